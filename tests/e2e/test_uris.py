"""Inputs read through pyarrow's filesystems (issue 20): ``s3://`` URIs against a real S3 server.

The server is moto's (``moto[server]``, in the test extras), started by this module on
127.0.0.1; pyarrow's S3 filesystem reaches it through the URI's documented query
(``?endpoint_override=127.0.0.1:PORT&scheme=http&region=us-east-1``). The demo's files are
uploaded (the challenger's Parquet as a hive-partitioned directory of parts), and a config naming
them by URI must give the same ``metrics.json`` numbers as the local files in every engine, with
audit digests of the bytes parsed (equal to ``sha256sum`` of the same files). An unknown scheme,
an unreachable endpoint, refused credentials (moto checking keys) and a missing object are exit
2 with one line and no secret in it.
GCS, HDFS and Azure go through the same code (pyarrow's ``FileSystem.from_uri``) but are not
tested here: no local server for them installs from PyPI.
"""

from __future__ import annotations

import hashlib
import json
import logging
import socket
import tempfile
from pathlib import Path

import pyarrow.parquet as pq
import pytest
import yaml

from reportgen.config import checked_uri, unfolded
from reportgen.io import filesystems as F

ROOT = Path(__file__).resolve().parents[2]
DEMO = ROOT / "configs" / "demo.yaml"
DATA = DEMO.parent
PINNED_NOW = "2026-01-01T00:00:00Z"
SECRET = "wJalrXUtnFEMI-reportgen-test-secret"


def _free_port() -> int:
    with socket.socket() as s:
        s.bind(("127.0.0.1", 0))
        return int(s.getsockname()[1])


@pytest.fixture(scope="module")
def s3():
    """A local S3 server holding the demo's inputs under ``s3://preds/``; yields the URI query."""
    import boto3
    import moto.server as server_mod

    mp = pytest.MonkeyPatch()
    mp.setenv("AWS_ACCESS_KEY_ID", "reportgen-test")
    mp.setenv("AWS_SECRET_ACCESS_KEY", SECRET)
    mp.setenv("AWS_EC2_METADATA_DISABLED", "true")
    logging.getLogger("werkzeug").setLevel(logging.ERROR)
    port = _free_port()
    server = server_mod.ThreadedMotoServer(ip_address="127.0.0.1", port=port, verbose=False)
    server.start()
    try:
        client = boto3.client("s3", endpoint_url=f"http://127.0.0.1:{port}", region_name="us-east-1")
        client.create_bucket(Bucket="preds")
        for f in sorted(DATA.glob("data/*.csv")):
            client.put_object(Bucket="preds", Key=f"demo/{f.name}", Body=f.read_bytes())
        # the challenger's Parquet as a hive-partitioned dataset of two parts (a directory)
        table = pq.read_table(DATA / "data" / "challenger.parquet")
        half = table.num_rows // 2
        for k, part in enumerate([table.slice(0, half), table.slice(half)]):
            local = Path(tempfile.mkdtemp()) / "p.parquet"
            pq.write_table(part, local)
            client.put_object(Bucket="preds", Key=f"demo/challenger/batch={k}/part-0.parquet", Body=local.read_bytes())
        yield {
            "query": f"?endpoint_override=127.0.0.1:{port}&scheme=http&region=us-east-1",
            "client": client,
            "table": table,
        }
    finally:
        server.stop()
        mp.undo()


def _config(tmp: Path, files: dict[str, str], *, references: dict[str, str] | None = None, **extra) -> Path:
    cfg = yaml.safe_load(DEMO.read_text(encoding="utf-8"))
    cfg["bootstrap"] = {"resamples": 20, "seed": 7}
    for m in cfg["models"]:
        m["file"] = files[m["name"]]
        if "reference" in m:
            m["reference"] = (references or {}).get(m["name"], str((DATA / m["reference"]).resolve()))
    cfg.update(extra)
    if cfg.get("engine", "memory") != "memory":
        cfg.pop("credit", None)
        cfg.pop("segment", None)
    path = tmp / f"c{len(list(tmp.glob('c*.yaml')))}.yaml"
    path.write_text(yaml.safe_dump(cfg, sort_keys=False), encoding="utf-8")
    return path


def _local_files() -> dict[str, str]:
    cfg = yaml.safe_load(DEMO.read_text(encoding="utf-8"))
    return {m["name"]: str((DATA / m["file"]).resolve()) for m in cfg["models"]}


def _s3_files(query: str) -> dict[str, str]:
    return {
        "champion": f"s3://preds/demo/champion_scorecard.csv{query}",
        "challenger": f"s3://preds/demo/challenger{query}",  # the directory of parts
        "naive": f"s3://preds/demo/naive.csv{query}",
    }


def _run(cli, cfg: Path, out: Path, formats: str = "json") -> dict:
    assert cli(["run", str(cfg), "--out", str(out), "--now", PINNED_NOW, "--format", formats, "-q"]) == 0
    return json.loads((out / "metrics.json").read_text(encoding="utf-8"))


def _numbers(doc: dict) -> dict:
    models = {n: {k: v for k, v in m.items() if k != "file"} for n, m in doc["models"].items()}
    return {
        "models": models,
        "comparisons": doc["comparisons"],
        "pairwise": doc["pairwise"],
        "credit": doc.get("credit"),
        "paired": doc["run"]["paired"],
        "dropped": doc["run"]["dropped"],
        "date_range": doc["run"]["date_range"],
    }


@pytest.fixture(scope="module")
def local_numbers(tmp_path_factory, cli):
    """The local files' numbers for an engine, run once for memory and once for the batched engines:
    stream and dask read the same config (but its engine) and give the same numbers bit for bit
    (tests/parity), so the dask case compares its remote run with the stream engine's local one."""
    done: dict[str, dict] = {}

    def numbers(engine: str) -> dict:
        key = "memory" if engine == "memory" else "batched"
        if key not in done:
            tmp = tmp_path_factory.mktemp(f"local_{key}")
            done[key] = _numbers(_run(cli, _config(tmp, _local_files(), engine=engine), tmp / "out"))
        return done[key]

    return numbers


@pytest.mark.slow
@pytest.mark.parametrize("engine", ["memory", "stream", "dask"])
def test_s3_inputs_give_the_numbers_of_the_local_files(
    s3, tmp_path: Path, cli, engine: str, local_numbers, no_figures
) -> None:
    # the HTML is read for the secret only (the audit's inputs): rendered without figures
    q = s3["query"]
    refs = {"champion": f"s3://preds/demo/dev_champion.csv{q}"}  # the credit section's reference, remote too
    remote = _run(cli, _config(tmp_path, _s3_files(q), references=refs, engine=engine), tmp_path / "s3", "json,html")
    assert _numbers(remote) == local_numbers(engine)
    if engine == "memory":
        assert remote["credit"]["models"]["champion"]["stability"] is not None
    # the audit names each input by its URI without the query, with the digest of the bytes parsed
    files = {f["path"]: f for f in remote["run"]["files"]}
    naive = files["s3://preds/demo/naive.csv"]
    assert naive["sha256"] == hashlib.sha256((DATA / "data" / "naive.csv").read_bytes()).hexdigest()
    assert naive["size_bytes"] == (DATA / "data" / "naive.csv").stat().st_size
    parts = s3["client"].list_objects_v2(Bucket="preds", Prefix="demo/challenger/")["Contents"]
    lines = sorted(
        f"{hashlib.sha256(s3['client'].get_object(Bucket='preds', Key=p['Key'])['Body'].read()).hexdigest()}"
        f"  {p['Key'].removeprefix('demo/challenger/')}\n"
        for p in parts
    )
    lines.sort(key=lambda line: line.split("  ", 1)[1])
    assert files["s3://preds/demo/challenger"]["sha256"] == hashlib.sha256("".join(lines).encode()).hexdigest()
    assert files["s3://preds/demo/challenger"]["rows"] == s3["table"].num_rows
    if engine == "memory":
        assert files["s3://preds/demo/dev_champion.csv"]["rows"] > 0
    assert remote["models"]["naive"]["file"] == "s3://preds/demo/naive.csv"
    assert remote["run"]["config"]["models"][0]["file"] == f"s3://preds/demo/champion_scorecard.csv{q}"
    html = (tmp_path / "s3" / "report.html").read_text(encoding="utf-8")
    assert SECRET not in html and "s3:/preds" not in html


@pytest.mark.slow
def test_unknown_scheme_unreachable_storage_and_missing_object_exit_2_one_line_no_secret(
    s3, tmp_path: Path, cli, capsys
) -> None:
    q = s3["query"]
    dead = f"?endpoint_override=127.0.0.1:{_free_port()}&scheme=http&region=us-east-1"
    cases = [
        ({"naive": "ftp://preds/demo/naive.csv"}, "models[2].file: ftp:// is not a filesystem"),
        ({"naive": f"s3://preds/demo/naive.csv{dead}"}, "s3://preds/demo/naive.csv: cannot read from the storage ("),
        ({"naive": f"s3://preds/demo/nothing.csv{q}"}, "s3://preds/demo/nothing.csv: file not found"),
        ({"challenger": f"s3://no-such-bucket/x.parquet{q}"}, "s3://no-such-bucket/x.parquet: "),
    ]
    for change, expected in cases:
        files = {**_local_files(), **change}
        code = cli(["run", str(_config(tmp_path, files)), "--out", str(tmp_path / "o"), "--format", "json"])
        err = capsys.readouterr().err
        assert code == 2, err
        assert err.count("\n") == 1 and expected in err, err
        assert SECRET not in err and "endpoint_override" not in err
        assert not (tmp_path / "o" / "metrics.json").exists()
    # validate names the input the same way, in both of its paths (memory rows, first batches)
    bad = {**_local_files(), "naive": f"s3://preds/demo/nothing.csv{q}"}
    for engine in ("memory", "stream"):
        assert cli(["validate", str(_config(tmp_path, bad, engine=engine))]) == 2
        err = capsys.readouterr().err
        assert "s3://preds/demo/nothing.csv: file not found" in err and "endpoint_override" not in err, err


def test_validate_reports_a_remote_data_problem_by_its_uri(s3, tmp_path: Path, cli, capsys) -> None:
    text = (DATA / "data" / "naive.csv").read_text(encoding="utf-8").splitlines()
    head, row = text[0], text[1].split(",")
    row[head.split(",").index("pd")] = "abc"
    s3["client"].put_object(
        Bucket="preds", Key="bad/naive.csv", Body="\n".join([head, ",".join(row), *text[2:]]) + "\n"
    )
    files = {**_local_files(), "naive": f"s3://preds/bad/naive.csv{s3['query']}"}
    for engine in ("memory", "stream"):
        assert cli(["validate", str(_config(tmp_path, files, engine=engine))]) == 2
        err = capsys.readouterr().err
        assert err.startswith("reportgen: error: s3://preds/bad/naive.csv: column 'pd', row 2") and "abc" in err, err
        assert "endpoint_override" not in err


@pytest.mark.slow
def test_a_compressed_remote_csv_gives_the_local_numbers_and_its_stored_digest(
    s3, tmp_path: Path, cli, capsys, local_numbers
) -> None:
    """``s3://…/naive.csv.gz`` is read as the local ``naive.csv`` (decompressed as it streams), its
    digest of the gzip bytes as stored; a truncated one is one line naming its URI."""
    import gzip

    stored = gzip.compress((DATA / "data" / "naive.csv").read_bytes())
    s3["client"].put_object(Bucket="preds", Key="gz/naive.csv.gz", Body=stored)
    s3["client"].put_object(Bucket="preds", Key="gz/cut.csv.gz", Body=stored[: len(stored) // 2])
    for engine in ("memory", "stream"):
        files = {**_local_files(), "naive": f"s3://preds/gz/naive.csv.gz{s3['query']}"}
        remote = _run(cli, _config(tmp_path, files, engine=engine), tmp_path / f"gz-{engine}")
        assert _numbers(remote) == local_numbers(engine)
        record = {f["path"]: f for f in remote["run"]["files"]}["s3://preds/gz/naive.csv.gz"]
        assert record["sha256"] == hashlib.sha256(stored).hexdigest() and record["size_bytes"] == len(stored)
        cut = {**_local_files(), "naive": f"s3://preds/gz/cut.csv.gz{s3['query']}"}
        capsys.readouterr()
        assert cli(["run", str(_config(tmp_path, cut, engine=engine)), "--out", str(tmp_path / "o"), "-q"]) == 2
        err = capsys.readouterr().err
        assert err.startswith("reportgen: error: s3://preds/gz/cut.csv.gz: cannot decompress as gzip"), err
        assert err.count("\n") == 1 and "endpoint_override" not in err, err


def test_a_bad_part_of_a_remote_dataset_names_the_part_by_its_uri(s3, tmp_path: Path, cli, capsys) -> None:
    table = s3["table"]
    local = tmp_path / "p.parquet"
    pq.write_table(table, local)
    s3["client"].put_object(Bucket="preds", Key="bad/challenger/batch=0/part-0.parquet", Body=local.read_bytes())
    pq.write_table(table.drop_columns(["pd"]), local)  # the second part lacks the score column
    s3["client"].put_object(Bucket="preds", Key="bad/challenger/batch=1/part-0.parquet", Body=local.read_bytes())
    files = {**_local_files(), "challenger": f"s3://preds/bad/challenger{s3['query']}"}
    assert (
        cli(["run", str(_config(tmp_path, files, engine="stream")), "--out", str(tmp_path / "o"), "--format", "json"])
        == 2
    )
    err = capsys.readouterr().err
    assert (
        "s3://preds/bad/challenger/batch=1/part-0.parquet: column 'pd' not found in this part of the dataset "
        "s3://preds/bad/challenger" in err
    ), err


def test_a_dataset_part_travels_as_the_dataset_uri_with_its_path_appended() -> None:
    loc = F.Location(None, "preds/demo/ch", "s3://preds/demo/ch?region=us-east-1&scheme=http", "s3://preds/demo/ch")
    child = loc.child("preds/demo/ch/batch=0/part 0.parquet")
    assert child == "s3://preds/demo/ch/batch=0/part%200.parquet?region=us-east-1&scheme=http"
    assert unfolded(Path(child)) == child  # survives the loaders' Path
    assert loc.key("preds/demo/ch/batch=0/part 0.parquet") == "s3://preds/demo/ch/batch=0/part%200.parquet"


def test_folded_uris_in_messages_are_shown_as_written_without_query() -> None:
    uri = checked_uri("s3://b/k.csv?endpoint_override=127.0.0.1:9000&scheme=http")
    text = f"{Path(uri)}: column 'score', row 5: 'x' is not a number; also in ({Path(uri)})"
    assert F.shown_text(text) == "s3://b/k.csv: column 'score', row 5: 'x' is not a number; also in (s3://b/k.csv)"
    assert F.shown_text("/local/s3:/x.csv: row 1") == "/local/s3:/x.csv: row 1"  # a local path is left alone
    assert F.locate(Path("/data/a.csv")).local


def test_a_storage_error_masks_credentials_from_the_environment(monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setenv("AWS_SECRET_ACCESS_KEY", SECRET)
    exc = OSError(f"AWS Error ACCESS_DENIED: signature for {SECRET} does not match\nsecond line")
    msg = str(F.storage_error("s3://b/k.csv", exc))
    assert msg == (
        "s3://b/k.csv: cannot read from the storage (AWS Error ACCESS_DENIED: signature for *** does not "
        "match); check the credentials in the environment, the endpoint and the network"
    )


def test_refused_credentials_are_one_line_exit_2_without_the_secret(
    s3, tmp_path: Path, cli, capsys, monkeypatch: pytest.MonkeyPatch
) -> None:
    import moto.settings

    monkeypatch.setattr(moto.settings, "INITIAL_NO_AUTH_ACTION_COUNT", 0)  # the server now checks every key
    files = {**_local_files(), "naive": f"s3://preds/demo/naive.csv{s3['query']}"}
    assert cli(["run", str(_config(tmp_path, files)), "--out", str(tmp_path / "o"), "--format", "json"]) == 2
    err = capsys.readouterr().err
    assert (
        err.startswith("reportgen: error: s3://preds/demo/naive.csv: cannot read from the storage (")
        and err.count("\n") == 1
    ), err
    assert SECRET not in err and "endpoint_override" not in err
    assert not (tmp_path / "o" / "metrics.json").exists()
