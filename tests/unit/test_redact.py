"""Secrets are never printed or stored; the audit trail records the config as written (issue 38).

Unit tests of :func:`reportgen.redact.masked` and :meth:`Config.as_written`, and one regression
test per case of the issue: an expanded ``${VAR}`` password in a refused ``https://`` URI, a
``?token=${VAR}``, ``s3://KEY:${VAR}@bucket/out`` in ``reference`` / ``history.path`` /
``report.logo`` / ``output.dir``, a literal ``sslpassword=`` in a PostgreSQL URL, a query holding
``'[1,2]'`` rewritten in metrics.json, and ``compare_frames`` naming an index ``np.int64(6)``.
"""

from __future__ import annotations

import json
import re
import sqlite3
from pathlib import Path

import numpy as np
import pandas as pd
import pytest
import yaml

from reportgen.config import parse_config
from reportgen.errors import ConfigError, InputError
from reportgen.redact import SECRET_KEYS, is_secret_key, masked

SECRET = "EnvS3cret-Value-77q"


# --------------------------------------------------------------------------------------
# masked / is_secret_key
# --------------------------------------------------------------------------------------


@pytest.mark.parametrize(
    ("text", "expected"),
    [
        ("https://reportgen:EnvS3cret@127.0.0.1:9/b.csv", "https://reportgen:***@127.0.0.1:9/b.csv"),
        ("postgresql://u:p@ss:w@rd@h:5432/db", "postgresql://u:***@h:5432/db"),  # '@' and ':' in a password
        (
            "postgresql://u:${DB_PASSWORD}@h/db",
            "postgresql://u:${DB_PASSWORD}@h/db",
        ),  # a reference names, never is, the secret
        ("postgresql://u:${PW:-hunter2}@h/db", "postgresql://u:***@h/db"),  # a default is a literal
        (
            "postgresql://u@h:5432/db?sslmode=require&sslpassword=abc",
            "postgresql://u@h:5432/db?sslmode=require&sslpassword=***",
        ),
        ("s3://b/k.csv?region=eu&token=abc&scheme=http", "s3://b/k.csv?region=eu&token=***&scheme=http"),
        ("s3://b/k?X-Amz-Signature=abc&Password=x", "s3://b/k?X-Amz-Signature=***&Password=***"),
        (
            "q.yaml:3: models[0].file: 'abfs://c/p?sas_token=sv%3D1': bad",
            "q.yaml:3: models[0].file: 'abfs://c/p?sas_token=***': bad",
        ),
        (
            "grpc://h?adbc.flight.sql.authorization_header=Bearer123",
            "grpc://h?adbc.flight.sql.authorization_header=***",
        ),
        ("postgresql://u@h:5432/db?host=/tmp&port=5", "postgresql://u@h:5432/db?host=/tmp&port=5"),  # nothing secret
        ("sqlite:////abs/p.db", "sqlite:////abs/p.db"),
        ("a title [1,2] with no URI", "a title [1,2] with no URI"),
    ],
)
def test_masked_hides_the_password_and_secret_query_values_only(text: str, expected: str) -> None:
    assert masked(text) == expected
    assert masked(expected) == expected  # idempotent


def test_secret_keys_are_matched_as_clients_read_them() -> None:
    for key in (
        "password",
        "PASSWORD",
        "sslpassword",
        "Session-Token",
        "adbc.snowflake.sql.client_option.token",
        "pass%77ord",
        "sig",
        "X-Goog-Credential",
    ):
        assert is_secret_key(key), key
    for key in ("sslmode", "sslkey", "passfile", "host", "region", "endpoint_override", "scheme", "user"):
        assert not is_secret_key(key), key  # a path to a key file, or no secret at all
    assert {
        "password",
        "sslpassword",
        "token",
        "access_key",
        "secret_key",
        "session_token",
        "sas_token",
        "account_key",
        "client_secret",
        "api_key",
    } <= SECRET_KEYS


# --------------------------------------------------------------------------------------
# Refused at load, the message holding no secret
# --------------------------------------------------------------------------------------

BASE = "label: y\nmodels:\n  - {name: a, file: a.csv, score: s}\n  - {name: b, file: b.csv, score: s}\n"


@pytest.mark.parametrize(
    ("key", "value", "said"),
    [
        (
            "models[1].file",
            "https://reportgen:${RG_SECRET}@127.0.0.1:9/b.csv",
            "https:// is not a filesystem pyarrow reads",
        ),
        (
            "models[1].file",
            "https://reportgen:" + SECRET + "@127.0.0.1:9/b.csv",
            "https:// is not a filesystem pyarrow reads",
        ),
        ("models[1].file", "s3://bucket/b.csv?token=${RG_SECRET}", "holds a secret (token=…)"),
        ("models[1].file", "s3://bucket/b.csv?token=" + SECRET, "holds a secret (token=…)"),
        ("models[1].file", "gs://bucket/b.csv?access_token=${RG_SECRET}", "holds a secret (access_token=…)"),
        ("models[0].reference", "s3://KEY:${RG_SECRET}@bucket/out", "holds a password"),
        ("history.path", "s3://KEY:${RG_SECRET}@bucket/out", "s3:// URIs are read for models' file and reference only"),
        ("report.logo", "s3://KEY:${RG_SECRET}@bucket/out", "s3:// URIs are read for models' file and reference only"),
        (
            "report.template_dir",
            "s3://KEY:${RG_SECRET}@bucket/out",
            "s3:// URIs are read for models' file and reference only",
        ),
        ("output.dir", "s3://KEY:${RG_SECRET}@bucket/out", "s3:// URIs are read for models' file and reference only"),
        ("output.dir", "file://KEY:${RG_SECRET}@host/out", "file://"),
    ],
)
def test_a_refused_uri_is_named_by_its_key_never_by_its_expanded_value(key: str, value: str, said: str) -> None:
    with pytest.raises(ConfigError) as e:
        parse_config(BASE, "q.yaml", overrides=[f"{key}={value}"], environ={"RG_SECRET": SECRET})
    msg = str(e.value)
    assert SECRET not in msg and "\n" not in msg
    assert f"{key}: " in msg and said in msg


@pytest.mark.parametrize(
    "url",
    [
        "postgresql://u@db:5432/risk?sslmode=require&sslpassword=" + SECRET,
        "postgresql://u@db:5432/risk?oauth_client_secret=" + SECRET,
        "postgresql://u:" + SECRET + "@db:5432/risk",
        "postgresql://u@db/risk?password=${PW:-" + SECRET + "}",  # a default is written in the config
    ],
)
def test_a_literal_secret_in_a_database_url_is_refused_at_load(url: str) -> None:
    text = BASE.replace(
        "{name: b, file: b.csv, score: s}", f"{{name: b, score: s, source: {{url: '{url}', query: 'SELECT 1'}}}}"
    )
    with pytest.raises(ConfigError) as e:
        parse_config(text, "q.yaml", environ={})
    msg = str(e.value)
    assert SECRET not in msg and "models[1].source.url: holds a literal" in msg


def test_the_cli_prints_no_expanded_secret_for_the_issue_config(tmp_path: Path, cli, capsys, monkeypatch) -> None:
    """The issue's case, run as a scheduler would: exit 2, one line, no secret on stderr."""
    monkeypatch.setenv("RG_SECRET", SECRET)
    cfg = tmp_path / "c.yaml"
    cfg.write_text(
        BASE.replace("file: b.csv", "file: 'https://reportgen:${RG_SECRET}@127.0.0.1:9/b.csv'"), encoding="utf-8"
    )
    assert cli(["run", str(cfg), "--format", "json", "--out", str(tmp_path / "out")]) == 2
    out, err = capsys.readouterr()
    assert SECRET not in out + err and err.count("\n") == 1
    assert f"{cfg}:4: models[1].file: https:// is not a filesystem pyarrow reads" in err
    assert not (tmp_path / "out").exists()


# --------------------------------------------------------------------------------------
# The audit trail records the config as written
# --------------------------------------------------------------------------------------


def _tables(folder: Path, n: int = 40) -> None:
    rng = np.random.default_rng(3)
    y = (np.arange(n) % 3 == 0).astype(int)
    for name in ("a", "b"):
        s = np.round(np.clip(0.3 * y + rng.random(n) * 0.7, 0, 1), 4)
        pd.DataFrame(
            {"id": np.arange(n), "y": y, "s": s, "tag": np.where(np.arange(n) % 4 == 0, "[1,2]", "[1, 2]")}
        ).to_csv(folder / f"{name}.csv", index=False)


def test_as_written_keeps_references_and_never_their_values() -> None:
    text = (
        "title: 'Q ${QUARTER}'\nlabel: y\nbootstrap: {resamples: '${N}'}\nmodels:\n"
        "  - {name: a, file: '${DIR}/a.csv', score: s}\n  - {name: b, file: b.csv, score: s}\n"
    )
    cfg = parse_config(text, "q.yaml", environ={"QUARTER": "3", "DIR": "/d" + SECRET, "N": "20"})
    assert cfg.title == "Q 3" and str(cfg.models[0].file) == f"/d{SECRET}/a.csv" and cfg.bootstrap.resamples == 20
    doc = cfg.as_written()
    assert doc["title"] == "Q ${QUARTER}" and doc["models"][0]["file"] == "${DIR}/a.csv"
    assert doc["bootstrap"]["resamples"] == 20  # a number stays the number it was read as
    assert SECRET not in json.dumps(doc)
    assert cfg.with_overrides(threshold=0.3).as_written()["title"] == "Q ${QUARTER}"


def test_what_render_reads_back_is_recorded_as_read() -> None:
    """``reportgen render`` re-checks a saved run's palette and sections: ``${BRAND}`` there
    would make the saved run unreadable (and a colour is never a secret)."""
    from reportgen.report.render import Theme

    cfg = parse_config(BASE + "report: {palette: ['${BRAND}', '#000000']}\n", "q.yaml", environ={"BRAND": "#123456"})
    report = cfg.as_written()["report"]
    assert report["palette"] == ["#123456", "#000000"]
    Theme.from_saved_result(report)


def test_metrics_json_records_the_query_paths_and_title_byte_for_byte(
    tmp_path: Path, cli, monkeypatch, no_figures
) -> None:
    """The number-list formatter rewrote '[1,2]' as '[1, 2]' inside strings: the recorded query
    then selected other rows than the one analysed. And a password from ``${VAR}`` is not stored
    (in any file written; the figures, drawn from numbers and model names, are left out)."""
    pytest.importorskip("adbc_driver_sqlite.dbapi", reason="the sql extra is not installed")
    _tables(tmp_path)
    (tmp_path / "m[1,2]").mkdir()
    (tmp_path / "a.csv").rename(tmp_path / "m[1,2]" / "a[1,2].csv")
    with sqlite3.connect(tmp_path / "p.db") as conn:
        pd.read_csv(tmp_path / "b.csv").to_sql("b", conn, index=False)
    query = "SELECT id, y, s FROM b WHERE tag <> '[1,2]'  -- [3,4]\n"
    url = "sqlite:///p.db?password=${RG_SECRET}"
    cfg = {
        "title": "Q [1,2] ['x',1]",
        "label": "y",
        "id": "id",
        "bootstrap": {"resamples": 0},
        "id_mismatch": "intersect",
        "models": [
            {"name": "a", "file": "m[1,2]/a[1,2].csv", "score": "s"},
            {"name": "b", "score": "s", "source": {"url": url, "query": query}},
        ],
    }
    path = tmp_path / "q.yaml"
    path.write_text(yaml.safe_dump(cfg, sort_keys=False), encoding="utf-8")
    monkeypatch.setenv("RG_SECRET", SECRET)
    assert cli(["run", str(path), "--out", str(tmp_path / "out"), "--format", "json,html", "-q"]) == 0
    raw = (tmp_path / "out" / "metrics.json").read_text(encoding="utf-8")
    doc = json.loads(raw)
    assert doc["run"]["title"] == cfg["title"]
    assert doc["run"]["config"]["models"][1]["source"]["query"] == query
    assert (
        doc["run"]["config"]["models"][1]["source"]["url"] == f"sqlite:///{tmp_path}/p.db?password=${{RG_SECRET}}"
    )  # never the value
    assert doc["run"]["config"]["models"][0]["file"] == str(tmp_path / "m[1,2]" / "a[1,2].csv")
    assert doc["run"]["files"][0]["path"] == str(tmp_path / "m[1,2]" / "a[1,2].csv")
    assert doc["models"]["b"]["n"] == 30  # the rows the recorded query selects (40 less every 4th)
    assert "[1, 2]" not in raw and re.search(r"\[-?\d[\d.e+-]*, -?\d", raw)  # number lists still on one line
    for f in (tmp_path / "out").iterdir():
        assert SECRET.encode() not in f.read_bytes(), f.name


# --------------------------------------------------------------------------------------
# compare_frames names a row's index as the docs show it
# --------------------------------------------------------------------------------------


def test_compare_frames_names_an_integer_index_without_numpys_repr() -> None:
    from reportgen.api import frame_rows

    index = pd.Index(np.arange(10, 20, dtype=np.int64))
    assert frame_rows("<data>: row 8: missing label", index) == "<data>: row at position 6 (index 16): missing label"
    assert (
        frame_rows("<data>: row 8: x", pd.Index([f"k{i}" for i in range(10)]))
        == "<data>: row at position 6 (index 'k6'): x"
    )


def test_compare_frames_error_names_index_6() -> None:
    """A frame indexed by numpy integers: the row was named ``(index np.int64(6))``."""
    from reportgen.api import compare_frames

    n = 12
    df = pd.DataFrame({"y": [0, 1] * (n // 2), "a": np.linspace(0, 1, n)}, index=np.arange(1, n + 1, dtype=np.int64))
    df.loc[6, "a"] = np.nan  # position 5
    with pytest.raises(InputError) as e:
        compare_frames(df, label="y", scores=["a"])
    assert str(e.value).startswith("<data>: row at position 5 (index 6): missing")
