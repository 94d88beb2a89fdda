"""SQL sources from SQLite (``sqlite:///…`` through ``adbc-driver-sqlite``, the ``sql`` extra).

The demo's prediction tables are loaded into a SQLite file; a config reading them back gives the
same ``metrics.json`` numbers as the files (memory and stream engines), the pushed-down score
tables equal the pulled rows', the database is opened read-only (a run never creates or changes
it), and a bad query, a missing table and a missing database file are exit 2 with one line.
"""

from __future__ import annotations

from pathlib import Path

import pytest
from test_sql_sources import _config, _demo_tables, _file_models, _numbers, _run, _sql_models

from reportgen.config import parse_config
from reportgen.errors import ConfigError
from reportgen.io.sql import bind


@pytest.fixture(scope="module")
def db(tmp_path_factory: pytest.TempPathFactory) -> Path:
    import adbc_driver_sqlite.dbapi as dbapi

    path = tmp_path_factory.mktemp("sqlite") / "preds.db"
    with dbapi.connect(str(path)) as conn:
        cur = conn.cursor()
        for name, table in _demo_tables().items():
            cur.adbc_ingest(name, table, mode="replace")
        conn.commit()
        cur.close()
    return path


@pytest.fixture()
def env(monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setenv("MIN_ID", "0")


@pytest.mark.sql
@pytest.mark.parametrize("engine", ["memory", "stream"])
def test_sqlite_gives_the_numbers_of_the_same_data_from_files(db: Path, env, tmp_path: Path, cli, engine: str) -> None:
    before = db.read_bytes()
    files = _run(cli, _config(tmp_path, _file_models(), engine=engine), tmp_path / "files")
    got = _run(cli, _config(tmp_path, _sql_models(f"sqlite:///{db}"), engine=engine), tmp_path / "db")
    assert _numbers(got) == _numbers(files)
    assert got["run"]["files"][0]["path"].startswith(f"sqlite:///{db}: SELECT application_id")
    assert [f["rows"] for f in got["run"]["files"]] == [f["rows"] for f in files["run"]["files"]]
    assert db.read_bytes() == before  # opened read-only


@pytest.mark.slow  # two runs each: ~1.5 s (the numbers of the same data stay in the inner loop)
@pytest.mark.sql
def test_a_relative_sqlite_path_resolves_against_the_config(db: Path, env, tmp_path: Path, cli) -> None:
    (tmp_path / "sub").mkdir()
    (tmp_path / "sub" / "p.db").write_bytes(db.read_bytes())
    cfg = _config(tmp_path, _sql_models("sqlite:///sub/p.db"))
    doc = _run(cli, cfg, tmp_path / "o")
    assert doc["run"]["files"][0]["path"].startswith(f"sqlite:///{tmp_path}/sub/p.db: SELECT")


@pytest.mark.slow  # two runs each: ~1.5 s (the numbers of the same data stay in the inner loop)
@pytest.mark.sql
def test_sqlite_pushed_down_score_tables_equal_the_pulled_rows(db: Path, env, tmp_path: Path, cli) -> None:
    url = f"sqlite:///{db}"
    pulled = _run(cli, _config(tmp_path, _sql_models(url), engine="stream", date=None), tmp_path / "pulled")
    pushed = _run(
        cli,
        _config(tmp_path, _sql_models(url, pushdown=True), engine="stream", id=None, date=None),
        tmp_path / "pushed",
    )
    a, b = _numbers(pushed), _numbers(pulled)
    assert a["models"] == b["models"]
    assert [c["delta"] for c in a["comparisons"]] == [c["delta"] for c in b["comparisons"]]
    assert [f["rows"] for f in pushed["run"]["files"]] == [f["rows"] for f in pulled["run"]["files"]]


@pytest.mark.sql
@pytest.mark.parametrize(
    ("change", "expected"),
    [
        ({"query": "SELEC application_id FROM champion"}, "syntax error"),
        ({"query": "SELECT * FROM no_such_table WHERE 1 = :min_id"}, "no such table: no_such_table"),
        ({"url": "sqlite:////nonexistent/dir/p.db"}, "/nonexistent/dir/p.db: database file not found"),
    ],
)
@pytest.mark.parametrize("pushdown", [False, True])
def test_sqlite_bad_query_missing_table_missing_file_exit_2_one_line(
    db: Path, env, tmp_path: Path, cli, capsys, change: dict, expected: str, pushdown: bool
) -> None:
    models = _sql_models(change.get("url", f"sqlite:///{db}"), pushdown=pushdown)
    if "query" in change:
        models[1]["source"]["query"] = change["query"]
        models[1]["source"]["params"] = {"min_id": 0} if ":min_id" in change["query"] else {}
    cfg = _config(tmp_path, models, engine="stream", id=None, date=None)
    code = cli(["run", str(cfg), "--out", str(tmp_path / "o"), "--format", "json"])
    err = capsys.readouterr().err
    assert code == 2
    assert err.count("\n") == 1 and expected in err, err
    assert "models[" in err and ".source" in err
    assert not Path("/nonexistent/dir/p.db").exists()


def test_sqlite_binds_with_question_marks_and_a_url_names_a_file() -> None:
    assert bind("SELECT * FROM t WHERE a = :x AND b = ':y' AND c = :x", {"x": 1}, "k", "?") == (
        "SELECT * FROM t WHERE a = ? AND b = ':y' AND c = ?",
        (1, 1),
    )
    base = "label: y\nmodels:\n  - {name: a, score: s, source: {url: 'URL', query: 'SELECT 1'}}\n"
    for url in ("sqlite://host/p.db", "sqlite:///"):
        with pytest.raises(ConfigError, match="a SQLite URL names a file"):
            parse_config(base.replace("URL", url), "q.yaml")
