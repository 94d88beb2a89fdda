"""The text of a SQL source's query: trailing ``;`` and comments, second statements, duplicate columns.

A query pasted with its trailing ``;`` broke the pushed-down ``GROUP BY`` (``FROM (SELECT ...;)``:
a syntax error), as did a trailing ``-- comment``; a second statement after the ``;`` was
silently ignored by SQLite (PostgreSQL's driver refused it only
as a prepared-statement error); a result with two columns
of one name was an internal error (exit 1). Each is now one line and exit 2, or works.
"""

from __future__ import annotations

import json
from pathlib import Path

import pytest
import yaml
from test_sql_sources import env as pg_env  # noqa: F401 - fixtures: the password variable, MIN_ID
from test_sql_sources import pg as pg_server  # noqa: F401 - a real server; skips without pgserver

from reportgen.errors import ConfigError
from reportgen.io.sql import bind, one_statement, pushdown_query


@pytest.fixture(scope="module")
def db(tmp_path_factory: pytest.TempPathFactory) -> Path:
    import adbc_driver_sqlite.dbapi as dbapi
    import pyarrow as pa

    n = 200
    ids = list(range(n))
    y = [int(i % 3 == 0) for i in ids]
    s1 = [0.2 + 0.5 * v + (i % 17) / 20 for i, v in zip(ids, y)]
    s2 = [0.3 + 0.3 * v + (i % 13) / 30 for i, v in zip(ids, y)]
    path = tmp_path_factory.mktemp("sqlite7") / "p.db"
    with dbapi.connect(str(path)) as conn:
        cur = conn.cursor()
        cur.adbc_ingest("t", pa.table({"id": ids, "y": y, "s1": s1, "s2": s2}), mode="replace")
        conn.commit()
        cur.close()
    return path


def _config(tmp: Path, db: Path, query_b: str, pushdown: bool = False) -> Path:
    url = f"sqlite:///{db}"
    cfg = {
        "title": "Probe",
        "task": "binary",
        "label": "y",
        "bootstrap": {"resamples": 20, "seed": 1},
        "models": [
            {"name": "a", "score": "s1", "source": {"url": url, "query": "SELECT id, y, s1 FROM t"}},
            {"name": "b", "score": "s2", "source": {"url": url, "query": query_b}},
        ],
    }
    if pushdown:
        for m in cfg["models"]:
            m["source"]["pushdown"] = True
    else:
        cfg["id"] = "id"
    path = tmp / f"c{len(list(tmp.glob('c*.yaml')))}.yaml"
    path.write_text(yaml.safe_dump(cfg, sort_keys=False), encoding="utf-8")
    return path


def _run(cli, cfg: Path, out: Path) -> int:
    return cli(["run", str(cfg), "--out", str(out), "--format", "json", "-q", "--now", "2026-01-01T00:00:00Z"])


@pytest.mark.sql
@pytest.mark.parametrize("tail", [";", " ;  \n", "; -- the end", "\n-- a comment", ";;"])
def test_a_trailing_semicolon_or_comment_works_pushed_down_as_pulled(
    db: Path, tmp_path: Path, cli, capsys, tail: str
) -> None:
    plain = _config(tmp_path, db, "SELECT id, y, s2 FROM t", pushdown=True)
    pasted = _config(tmp_path, db, "SELECT id, y, s2 FROM t" + tail, pushdown=True)
    assert _run(cli, plain, tmp_path / "plain") == 0
    assert _run(cli, pasted, tmp_path / "pasted") == 0, capsys.readouterr().err
    a, b = (json.loads((tmp_path / d / "metrics.json").read_text(encoding="utf-8")) for d in ("plain", "pasted"))

    def numbers(doc: dict) -> dict:  # the model's file is the query as written
        return {n: {k: v for k, v in m.items() if k != "file"} for n, m in doc["models"].items()}

    assert numbers(a) == numbers(b)


@pytest.mark.sql
@pytest.mark.parametrize("pushdown", [False, True])
@pytest.mark.parametrize("second", ["SELECT 1", "DELETE FROM t"])
def test_two_statements_are_exit_2_one_line(db: Path, tmp_path: Path, cli, capsys, pushdown: bool, second: str) -> None:
    cfg = _config(tmp_path, db, f"SELECT id, y, s2 FROM t; {second}", pushdown=pushdown)
    assert _run(cli, cfg, tmp_path / "o") == 2
    err = capsys.readouterr().err
    assert err.count("\n") == 1 and "Traceback" not in err
    assert "models[1].source.query: holds more than one SQL statement" in err and second in err
    assert not (tmp_path / "o").exists()


def test_semicolons_inside_literals_identifiers_and_comments_are_not_statement_ends() -> None:
    q = "SELECT 'a;b' AS x, \"c;d\", $$e;f$$ /* g; h */ FROM t -- i; j\n"
    assert one_statement(q, "w") == q
    assert one_statement(q + ";\n", "w") == q
    with pytest.raises(ConfigError, match="more than one SQL statement"):
        bind("SELECT :a; SELECT 2", {"a": 1}, "w")


def test_pushed_down_query_ends_a_trailing_line_comment() -> None:
    from reportgen.config import SourceConfig

    src = SourceConfig(url="sqlite:////x.db", query="SELECT s, y FROM t -- latest run")
    sql, _ = pushdown_query(src, {"score": "s", "label": "y"}, "w")
    assert "GROUP BY" in sql.splitlines()[-1]  # not inside the comment


@pytest.mark.sql
@pytest.mark.parametrize("query", ["SELECT id, y, s2, s1 AS s2 FROM t", "SELECT id, id, y, s2 FROM t"])
def test_duplicate_column_names_are_exit_2_not_an_internal_error(
    db: Path, tmp_path: Path, cli, capsys, query: str
) -> None:
    assert _run(cli, _config(tmp_path, db, query), tmp_path / "o") == 2
    err = capsys.readouterr().err
    assert err.count("\n") == 1 and "internal error" not in err
    assert "models[1].source: the query returns more than one column named" in err
    assert not (tmp_path / "o").exists()


@pytest.mark.sql
def test_gate_bounds_are_inclusive_and_a_near_miss_is_not_shown_as_the_bound(
    db: Path, tmp_path: Path, cli, capsys
) -> None:
    """README: "bounds inclusive". A value equal to the bound passes both ways; one a hair below
    a floor fails, and its line shows the digits that make it fail (it said ``gini = 0.8338,
    below 0.8338``: a scheduler's operator could not tell why the gate failed)."""
    base = _config(tmp_path, db, "SELECT id, y, s2 FROM t")
    assert _run(cli, base, tmp_path / "first") == 0
    gini = json.loads((tmp_path / "first" / "metrics.json").read_text(encoding="utf-8"))["models"]["a"]["metrics"][
        "gini"
    ]
    cfg = yaml.safe_load(base.read_text(encoding="utf-8"))
    cfg["checks"] = [
        {"model": "a", "metric": "gini", "at_least": gini},
        {"model": "a", "metric": "gini", "at_most": gini},
    ]
    exact = tmp_path / "exact.yaml"
    exact.write_text(yaml.safe_dump(cfg, sort_keys=False), encoding="utf-8")
    assert _run(cli, exact, tmp_path / "exact") == 0
    capsys.readouterr()
    cfg["checks"] = [{"model": "a", "metric": "gini", "at_least": gini + 1e-9}]
    miss = tmp_path / "miss.yaml"
    miss.write_text(yaml.safe_dump(cfg, sort_keys=False), encoding="utf-8")
    assert _run(cli, miss, tmp_path / "miss") == 3
    err = capsys.readouterr().err
    assert err.count("\n") == 1 and "check failed: a: gini at least" in err
    shown = err.split("gini = ")[1].split(",")[0]
    assert float(shown) < gini + 1e-9 and float(shown) == pytest.approx(gini, abs=1e-11), err


def test_postgresql_second_statement_is_refused_and_never_runs(pg_server, pg_env, tmp_path: Path, cli, capsys) -> None:  # noqa: F811
    """Against a real server: a trailing ';' works pushed down; ``SELECT ...; DELETE ...`` is exit 2
    before anything reaches the server (the table keeps its rows)."""
    from test_sql_sources import _config as demo_config
    from test_sql_sources import _run as demo_run
    from test_sql_sources import _sql_models

    models = _sql_models(pg_server["url"], pushdown=True)
    models[1]["source"]["query"] += " ;\n"
    doc = demo_run(cli, demo_config(tmp_path, models, engine="stream", id=None, date=None), tmp_path / "pushed")
    assert doc["models"]
    models = _sql_models(pg_server["url"])
    name = models[1]["name"]
    models[1]["source"]["query"] += f"; DELETE FROM {name}"
    cfg = demo_config(tmp_path, models, engine="stream", id=None, date=None)
    assert cli(["run", str(cfg), "--out", str(tmp_path / "o"), "--format", "json", "-q"]) == 2
    err = capsys.readouterr().err
    assert err.count("\n") == 1 and "holds more than one SQL statement" in err
    again = demo_run(
        cli,
        demo_config(tmp_path, _sql_models(pg_server["url"], pushdown=True), engine="stream", id=None, date=None),
        tmp_path / "after",
    )
    assert [f["rows"] for f in again["run"]["files"]] == [f["rows"] for f in doc["run"]["files"]]
