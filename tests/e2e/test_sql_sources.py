"""SQL sources against a real PostgreSQL server (issue 20).

The server is ``pgserver`` (a pip-installed PostgreSQL 16 build, in the test extras), started
by this module under a temporary directory: no root, no apt, the same on a fresh CI machine.
The demo's prediction tables are loaded into it, and a config reading them back must give the
same ``metrics.json`` numbers as the same data read from its files; the pushed-down score
tables must equal the pulled rows'; a bad query, a wrong password and a missing table are exit 2
with one line and no secret in it.
"""

from __future__ import annotations

import json
import shutil
import tempfile
from pathlib import Path

import pyarrow as pa
import pyarrow.csv as pacsv
import pyarrow.parquet as pq
import pytest
import yaml

ROOT = Path(__file__).resolve().parents[2]
DEMO = ROOT / "configs" / "demo.yaml"
PINNED_NOW = "2026-01-01T00:00:00Z"
SECRET = "s3cr#t:pw/é"  # characters that need percent-encoding in a URL


def _demo_tables() -> dict[str, pa.Table]:
    cfg = yaml.safe_load(DEMO.read_text(encoding="utf-8"))
    out = {}
    for m in cfg["models"]:
        path = DEMO.parent / m["file"]
        out[m["name"]] = pq.read_table(path) if path.suffix == ".parquet" else pacsv.read_csv(path)
    return out


@pytest.fixture(scope="module")
def pg():
    """A PostgreSQL server with the demo tables and a password-protected role ``scorer``."""
    import pgserver

    root = tempfile.mkdtemp(prefix="reportgen-pg-")
    try:
        # "delete": cleanup() stops the server, removes its data and unregisters pgserver's atexit
        # hook ("stop" leaves the hook, which takes a machine-wide lock as the worker exits)
        srv = pgserver.get_server(root, cleanup_mode="delete")
    except Exception as exc:  # noqa: BLE001 - a server that cannot start here is a skip with its reason
        shutil.rmtree(root, ignore_errors=True)
        pytest.skip(f"PostgreSQL (pgserver) could not start: {exc}")
    try:
        yield _serve(srv, root)
    finally:
        srv.cleanup()  # stops the server, whatever failed above
        shutil.rmtree(root, ignore_errors=True)


def _serve(srv, root: str) -> dict[str, str]:
    """The demo tables and the role ``scorer`` on a started server; how to reach it."""
    import adbc_driver_postgresql.dbapi as dbapi

    socket_dir = root
    admin = f"postgresql://postgres@/postgres?host={socket_dir}"
    with dbapi.connect(admin) as conn:
        cur = conn.cursor()
        for name, table in _demo_tables().items():
            cur.adbc_ingest(name, table, mode="replace")
        cur.execute(f"CREATE ROLE scorer LOGIN PASSWORD '{SECRET}'")
        cur.execute("GRANT SELECT ON ALL TABLES IN SCHEMA public TO scorer")
        conn.commit()
        cur.close()
    # the role must give its password (the default pgserver trusts local connections)
    hba = Path(srv.pgdata) / "pg_hba.conf"
    hba.write_text("local all scorer scram-sha-256\n" + hba.read_text(encoding="utf-8"), encoding="utf-8")
    srv.psql("SELECT pg_reload_conf();")
    return {"socket": socket_dir, "url": f"postgresql://scorer:${{REPORTGEN_TEST_PW}}@/postgres?host={socket_dir}"}


def _config(tmp: Path, models: list[dict], **extra) -> Path:
    cfg = yaml.safe_load(DEMO.read_text(encoding="utf-8"))
    cfg["bootstrap"] = {"resamples": 20, "seed": 7}  # equality, not precision, is what these tests check
    cfg["models"] = models
    cfg.pop("output", None)
    cfg.pop("credit", None)
    cfg.pop("segments", None)  # the segments section reads its columns from files, not queries
    cfg.update(extra)
    path = tmp / f"c{len(list(tmp.glob('c*.yaml')))}.yaml"
    path.write_text(yaml.safe_dump(cfg, sort_keys=False, allow_unicode=True), encoding="utf-8")
    return path


def _file_models() -> list[dict]:
    cfg = yaml.safe_load(DEMO.read_text(encoding="utf-8"))
    for m in cfg["models"]:
        m["file"] = str((DEMO.parent / m["file"]).resolve())
        for key in ("reference", "pd", "initial_auc"):  # the credit section reads files, not queries
            m.pop(key, None)
    return cfg["models"]


def _sql_models(url: str, pushdown: bool = False) -> list[dict]:
    out = []
    for m in _file_models():
        m = dict(m)
        m.pop("file")
        cols = ", ".join(dict.fromkeys(["application_id", "application_date", "default_flag", m["score"]]))
        # no ORDER BY: the rows in the table's order, as in the files (a fresh table is scanned
        # in insertion order), so that the stream engine's id-order check sees the same rows
        m["source"] = {
            "url": url,
            "query": f"SELECT {cols} FROM {m['name']} WHERE application_id >= CAST(:min_id AS BIGINT)",
            "params": {"min_id": "${MIN_ID}"},
        }
        if pushdown:
            m["source"]["pushdown"] = True
        out.append(m)
    return out


def _run(cli, cfg: Path, out: Path, formats: str = "json") -> dict:
    assert cli(["run", str(cfg), "--out", str(out), "--now", PINNED_NOW, "--format", formats, "-q"]) == 0
    return json.loads((out / "metrics.json").read_text(encoding="utf-8"))


def _numbers(doc: dict) -> dict:
    """Everything computed from the data (the run block — paths, config, ids — aside)."""
    models = {n: {k: v for k, v in m.items() if k != "file"} for n, m in doc["models"].items()}
    return {
        "models": models,
        "comparisons": doc["comparisons"],
        "pairwise": doc["pairwise"],
        "paired": doc["run"]["paired"],
        "dropped": doc["run"]["dropped"],
        "date_range": doc["run"]["date_range"],
    }


@pytest.fixture()
def env(monkeypatch: pytest.MonkeyPatch):
    monkeypatch.setenv("REPORTGEN_TEST_PW", SECRET)
    monkeypatch.setenv("MIN_ID", "0")


@pytest.mark.slow
@pytest.mark.parametrize("engine", ["memory", "stream"])
def test_database_gives_the_numbers_of_the_same_data_from_files(
    pg, env, tmp_path: Path, cli, engine: str, no_figures
) -> None:
    # the HTML is read for the secret only (the audit's sources): rendered without figures
    files = _run(cli, _config(tmp_path, _file_models(), engine=engine), tmp_path / "files")
    db = _run(cli, _config(tmp_path, _sql_models(pg["url"]), engine=engine), tmp_path / "db", "json,html")
    assert _numbers(db) == _numbers(files)
    # the audit keeps the redacted URL, the query text and a hash of the result; never the secret
    sources = [f["path"] for f in db["run"]["files"]]
    assert sources[0].startswith(
        "postgresql://scorer@/postgres: SELECT application_id, application_date, default_flag, "
        "score_points FROM champion WHERE application_id >= CAST(:min_id AS BIGINT)"
    )
    assert all(len(f["sha256"]) == 64 for f in db["run"]["files"])
    assert [f["rows"] for f in db["run"]["files"]] == [f["rows"] for f in files["run"]["files"]]
    text = (tmp_path / "db" / "metrics.json").read_text(encoding="utf-8") + (tmp_path / "db" / "report.html").read_text(
        encoding="utf-8"
    )
    assert SECRET not in text and "s3cr" not in text
    assert db["models"]["champion"]["file"].startswith("postgresql://scorer@/postgres: SELECT")


def test_parameters_are_bound_and_filter_rows(pg, env, tmp_path: Path, cli, monkeypatch: pytest.MonkeyPatch) -> None:
    ids = _demo_tables()["champion"].column("application_id").to_numpy()
    cut = int(sorted(ids)[len(ids) // 2])
    monkeypatch.setenv("MIN_ID", str(cut))
    doc = _run(cli, _config(tmp_path, _sql_models(pg["url"])), tmp_path / "half")
    assert doc["models"]["champion"]["n"] == int((ids >= cut).sum())
    # a value that would break string-formatted SQL is just a value when bound
    monkeypatch.setenv("MIN_ID", "0 OR 1=1; DROP TABLE champion; --")
    cfg = _config(tmp_path, _sql_models(pg["url"]))
    assert cli(["validate", str(cfg)]) == 2  # not an integer: the server refuses the value, nothing runs
    monkeypatch.setenv("MIN_ID", "0")
    assert cli(["validate", str(cfg)]) == 0  # and the table is still there


def test_pushed_down_score_tables_equal_the_pulled_rows(pg, env, tmp_path: Path, cli) -> None:
    # pulled rows joined by id (paired) against score tables from the database (never paired:
    # a table has no rows to line up): every model's number is equal, and so is every difference;
    # what needs paired rows (DeLong's covariance, McNemar) the pushed-down run says it cannot give
    pulled = _run(cli, _config(tmp_path, _sql_models(pg["url"]), engine="stream", date=None), tmp_path / "pulled")
    pushed = _run(
        cli,
        _config(tmp_path, _sql_models(pg["url"], pushdown=True), engine="stream", id=None, date=None),
        tmp_path / "pushed",
    )
    a, b = _numbers(pushed), _numbers(pulled)
    assert a["models"] == b["models"]
    assert [c["delta"] for c in a["comparisons"]] == [c["delta"] for c in b["comparisons"]]
    assert b["paired"] and not a["paired"]
    reasons = [c["capabilities"] for c in a["comparisons"]]
    assert "separate_files" in {v for caps in reasons for v in caps.values()}
    assert all(c["tests"]["mcnemar"] is None for c in a["comparisons"])
    assert all(c["tests"]["mcnemar"] is not None for c in b["comparisons"])
    assert [f["rows"] for f in pushed["run"]["files"]] == [f["rows"] for f in pulled["run"]["files"]]


@pytest.mark.parametrize(
    ("change", "expected"),
    [
        ({"query": "SELEC application_id FROM champion"}, "syntax error at or near"),
        ({"query": "SELECT * FROM no_such_table WHERE 1 = :min_id"}, 'relation "no_such_table" does not exist'),
        ({"password": "wrong-password"}, 'password authentication failed for user "scorer"'),
    ],
)
@pytest.mark.parametrize("pushdown", [False, True])
def test_bad_query_wrong_password_missing_table_exit_2_one_line_no_secret(
    pg, env, tmp_path: Path, cli, capsys, monkeypatch: pytest.MonkeyPatch, change: dict, expected: str, pushdown: bool
) -> None:
    models = _sql_models(pg["url"], pushdown=pushdown)
    if "query" in change:
        models[1]["source"]["query"] = change["query"]
        models[1]["source"]["params"] = {"min_id": 0} if ":min_id" in change["query"] else {}
    if "password" in change:
        monkeypatch.setenv("REPORTGEN_TEST_PW", change["password"])
    cfg = _config(tmp_path, models, engine="stream", id=None, date=None)
    code = cli(["run", str(cfg), "--out", str(tmp_path / "o"), "--format", "json"])
    err = capsys.readouterr().err
    assert code == 2
    assert err.count("\n") == 1 and expected in err, err
    assert SECRET not in err and "s3cr" not in err and "wrong-password" not in err
    assert "models[" in err and ".source" in err  # the config key that named the source
    assert not (tmp_path / "o" / "metrics.json").exists()


def test_missing_column_names_the_config_key(pg, env, tmp_path: Path, cli, capsys) -> None:
    models = _sql_models(pg["url"])
    models[2]["source"]["query"] = (
        "SELECT application_id, default_flag FROM naive WHERE application_id >= CAST(:min_id AS BIGINT)"
    )
    assert cli(["validate", str(_config(tmp_path, models))]) == 2
    err = capsys.readouterr().err
    assert "models[2].score: column 'pd' not found in" in err and "postgresql://scorer@/postgres: SELECT" in err
