"""``connections:`` in the config, and the DB-API rows made Arrow by one rule (issue 43)."""

from __future__ import annotations

import decimal
import json
import subprocess
import sys
from pathlib import Path

import pyarrow as pa
import pytest
import yaml

from reportgen.config import load_config, parse_config
from reportgen.errors import ConfigError
from reportgen.io.sql import arrow_rows, joined, redact

BASE = "label: y\nmodels:\n  - {name: a, score: s, source: {%s, query: 'SELECT * FROM p'}}\n"


def test_an_unknown_connection_is_one_line_naming_the_key() -> None:
    text = "connections: {warehouse: {url: 'duckdb:///x.duckdb'}}\n" + BASE % "connection: warehose"
    with pytest.raises(ConfigError) as e:
        parse_config(text, "q.yaml")
    assert str(e.value) == (
        "q.yaml:4: models[0].source.connection: no connection named 'warehose' "
        "(connections: warehouse); did you mean 'warehouse'?"
    )


def test_a_source_gives_a_connection_or_a_url_not_both() -> None:
    text = "connections: {w: {url: 'duckdb:///x.duckdb'}}\n" + BASE % "connection: w, url: 'sqlite:///x.db'"
    with pytest.raises(ConfigError, match="give exactly one of 'connection'"):
        parse_config(text, "q.yaml")


@pytest.mark.parametrize(
    "conn",
    [
        "{url: 'mysql+pymysql://u:hunter2@h/db'}",
        "{url: 'mssql+pyodbc://u@h/db?pwd=hunter2'}",
        "{url: 'snowflake://u@acct/db', options: {password: hunter2}}",
    ],
)
def test_a_literal_secret_in_a_connection_is_refused_without_echoing_it(conn: str) -> None:
    with pytest.raises(ConfigError) as e:
        parse_config(f"connections: {{w: {conn}}}\n" + BASE % "connection: w", "q.yaml")
    assert "hunter2" not in str(e.value) and "connections.w" in str(e.value)


def test_a_connection_keeps_its_variables_unexpanded_until_connecting() -> None:
    conn = "{url: 'mysql+pymysql://u:${PW}@h/db', options: {password: '${PW2}', connect_timeout: 5}}"
    cfg = parse_config(f"connections: {{w: {conn}}}\n" + BASE % "connection: w", "q.yaml", environ={})
    assert cfg.connections["w"].url == "mysql+pymysql://u:${PW}@h/db"
    assert cfg.connections["w"].options == {"password": "${PW2}", "connect_timeout": 5}
    assert "${PW}" in str(cfg.as_written())


@pytest.mark.parametrize("url", ["not a url", "mysql+pymysql:/h/db", "duckdb://host/x.duckdb", "sqlite+pysqlite:///"])
def test_a_malformed_database_url_is_refused_at_load(url: str) -> None:
    with pytest.raises(ConfigError, match=r"connections\.w\.url"):
        parse_config(f"connections: {{w: {{url: '{url}'}}}}\n" + BASE % "connection: w", "q.yaml")


def test_file_urls_of_connections_and_sources_resolve_against_the_config(tmp_path: Path) -> None:
    (tmp_path / "c.yaml").write_text(
        "connections: {d: {url: 'duckdb:///db/x.duckdb'}, l: {url: 'sqlite+pysqlite:///x.db'},"
        " pg: {url: 'postgresql://u@h/db'}}\nlabel: y\nmodels:\n"
        "  - {name: a, score: s, source: {connection: d, query: 'SELECT 1'}}\n"
        "  - {name: b, score: s, source: {url: 'sqlite+pysqlite:///y.db', query: 'SELECT 1'}}\n",
        encoding="utf-8",
    )
    cfg, _ = load_config(tmp_path / "c.yaml")
    assert cfg.connections["d"].url == f"duckdb:///{tmp_path}/db/x.duckdb"
    assert cfg.connections["l"].url == f"sqlite+pysqlite:///{tmp_path}/x.db"
    assert cfg.connections["pg"].url == "postgresql://u@h/db"
    assert cfg.models[1].source.url == f"sqlite+pysqlite:///{tmp_path}/y.db"
    assert redact(cfg.connections["d"].url) == f"duckdb:///{tmp_path}/db/x.duckdb"


def test_db_api_rows_become_arrow_by_the_rules_of_text_and_numbers() -> None:
    t = arrow_rows(
        ["i", "mixed", "dec", "none"],
        [(1, 1.23456789, decimal.Decimal("0.100"), None), (2, "NA", decimal.Decimal("2"), None)],
    )
    assert t.column("i").type == pa.int64()
    assert t.column("mixed").to_pylist() == ["1.23456789", "NA"]  # every digit of the real kept
    assert t.column("dec").to_pylist() == ["0.100", "2"]  # NUMERIC as its text, as ADBC gives PostgreSQL's
    assert t.column("none").null_count == 2


def test_batches_typed_apart_are_joined_by_one_type_per_column() -> None:
    parts = [arrow_rows(["a", "b", "c"], [(1, 0.5, None)]), arrow_rows(["a", "b", "c"], [(2.5, "NA", 3)])]
    t = joined(["a", "b", "c"], parts)
    assert t.schema.types == [pa.float64(), pa.string(), pa.int64()]
    assert t.column("a").to_pylist() == [1.0, 2.5] and t.column("b").to_pylist() == ["0.5", "NA"]
    assert joined(["a", "a"], []).column_names == ["a", "a"]  # duplicate names stay for the one-line check


@pytest.mark.slow  # a fresh interpreter importing the CLI: about 1 s alone, 3 s on busy cores
def test_reading_a_config_imports_no_database_client() -> None:
    """Start-up time: SQLAlchemy, DuckDB and the drivers are imported only by a run that uses them."""
    code = (
        "import sys, reportgen.cli, reportgen.pipeline, reportgen.config; "
        "print(sorted(m for m in ('sqlalchemy', 'duckdb', 'pymysql', 'adbc_driver_manager') if m in sys.modules))"
    )
    out = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True, check=True).stdout
    assert out.strip() == "[]"


def _pysqlite(tmp_path: Path, query: str, pushdown: bool = False) -> Path:
    import sqlite3

    with sqlite3.connect(tmp_path / "x.db") as con:
        con.execute("CREATE TABLE p (id TEXT, y INTEGER, s REAL)")
        con.executemany("INSERT INTO p VALUES (?, ?, ?)", [(f"k{i}", i % 2, (i * 7 % 10) / 10) for i in range(20)])
    con.close()
    cfg = tmp_path / "c.yaml"
    cfg.write_text(
        yaml.safe_dump(
            {
                "label": "y",
                "bootstrap": {"resamples": 0},
                "output": {"formats": ["json"]},
                "connections": {"lite": {"url": "sqlite+pysqlite:///x.db"}},
                "models": [
                    {
                        "name": "a",
                        "score": "s",
                        "source": {"connection": "lite", "query": query, "params": {"lo": 0}, "pushdown": pushdown},
                    }
                ],
            }
        ),
        encoding="utf-8",
    )
    return cfg


@pytest.mark.sql
def test_a_dialect_that_cannot_compile_the_grouped_query_has_its_rows_read_and_says_so(
    tmp_path, cli, capsys, monkeypatch
) -> None:
    import sqlalchemy as sa
    from sqlalchemy.ext.compiler import compiles
    from sqlalchemy.sql.expression import ColumnElement

    import reportgen.io.sql as sql

    class Unsupported(ColumnElement):
        inherit_cache = True

    @compiles(Unsupported)
    def _refuse(element, compiler, **kw):
        raise sa.exc.CompileError("no GROUP BY here")

    monkeypatch.setattr(sql, "grouped_statement", lambda *a: sa.select(Unsupported()))
    cfg = _pysqlite(tmp_path, "SELECT * FROM p WHERE s >= :lo", pushdown=True)
    assert (
        cli(["run", str(cfg), "--out", str(tmp_path / "o"), "--format", "json", "--now", "2026-01-01T00:00:00Z"]) == 0
    )
    err = capsys.readouterr().err
    assert (
        "models[0].source.pushdown: the sqlite dialect cannot compile the grouped query (no GROUP BY here); "
        "its rows are read instead" in err
    ), err
    assert json.loads((tmp_path / "o" / "metrics.json").read_text())["models"]["a"]["n"] == 20


@pytest.mark.sql
@pytest.mark.parametrize(
    ("query", "expected"),
    [
        ("SELECT id, y, s, s FROM p", "returns more than one column named 's'"),
        ("SELECT * FROM p WHERE s >= :lo; DELETE FROM p", "holds more than one SQL statement"),
        ("SELECT * FROM p WHERE s >= :lo AND :nope = 1", "parameter :nope has no value"),
    ],
)
def test_the_sqlalchemy_path_keeps_the_query_rules(query, expected, tmp_path, cli, capsys) -> None:
    cfg = _pysqlite(tmp_path, query if ":lo" in query else query + " WHERE 0 <= :lo")
    assert cli(["run", str(cfg), "--out", str(tmp_path / "o"), "--quiet"]) == 2
    err = capsys.readouterr().err
    assert err.count("\n") == 1 and expected in err, err


@pytest.mark.sql
def test_a_colon_in_a_literal_is_no_parameter_on_the_sqlalchemy_path(tmp_path, cli) -> None:
    cfg = _pysqlite(tmp_path, "SELECT * FROM p WHERE 'a:b' <> ':x' AND id LIKE 'k%' AND s >= :lo -- :c")
    assert cli(["run", str(cfg), "--out", str(tmp_path / "o"), "--quiet"]) == 0


def test_batches_spooled_to_parquet_are_the_joined_table_with_its_digest(tmp_path: Path) -> None:
    """Through SQLAlchemy a result is written one batch at a time (no more than a batch held):
    the Parquet file is the table the batches join to, the digest that of its IPC stream."""
    import hashlib

    import pyarrow.parquet as pq

    from reportgen.io.sql import spooled

    names = ["id", "s"]
    parts = [arrow_rows(names, [(1, 0.5), (2, None)]), arrow_rows(names, [(3, "NA")]), arrow_rows(names, [(4.5, 2)])]
    rows, sha, size = spooled(names, iter(parts), tmp_path / "r.parquet", "w")
    want = joined(names, parts)
    got = pq.read_table(tmp_path / "r.parquet")
    assert rows == 4 and got.equals(want) and got.schema.types == [pa.float64(), pa.string()]
    sink = pa.BufferOutputStream()
    with pa.ipc.new_stream(sink, want.schema) as w:
        for t in parts:
            w.write_table(
                pa.Table.from_arrays(
                    [t.column(j).cast(want.schema.field(j).type) for j in range(2)], schema=want.schema
                )
            )
    assert (sha, size) == (hashlib.sha256(sink.getvalue()).hexdigest(), sink.getvalue().size)
    assert sorted(p.name for p in tmp_path.iterdir()) == ["r.parquet"]  # the batches' files removed


@pytest.mark.sql
@pytest.mark.parametrize(
    ("url", "expected"),
    [
        ("mysql+pymysql://u:${PW}@h:notaport/db", "connections.w.url: not a database URL SQLAlchemy reads"),
        ("nosuch+x://u:${PW}@h/db", "nosuch+x:// names no SQLAlchemy dialect installed here"),
        ("mssql+pyodbc://u:${PW}@h/db", "needs the Python driver pyodbc"),
    ],
)
def test_a_bad_url_or_dialect_or_driver_is_one_line_without_the_secret(
    url, expected, tmp_path, cli, capsys, monkeypatch
) -> None:
    monkeypatch.setenv("PW", "hunter2-secret")
    monkeypatch.setitem(sys.modules, "pyodbc", None)  # not installed, whatever this machine has
    cfg = tmp_path / "c.yaml"
    cfg.write_text(
        yaml.safe_dump(
            {
                "label": "y",
                "connections": {"w": {"url": url}},
                "models": [{"name": "a", "score": "s", "source": {"connection": "w", "query": "SELECT 1"}}],
            }
        )
    )
    assert cli(["run", str(cfg), "--out", str(tmp_path / "o"), "--quiet"]) == 2
    err = capsys.readouterr().err
    assert err.count("\n") == 1 and expected in err and "hunter2" not in err, err


@pytest.mark.sql
def test_the_cursor_is_read_in_batches_of_cursor_batch_rows(tmp_path, cli, monkeypatch) -> None:
    """``result.partitions()`` without a size gave one-row batches on pysqlite (a Parquet write
    and an Arrow file per row: a million rows took over ten minutes); fetchmany's batches are whole."""
    import reportgen.io.sql as sql

    sizes: list[int] = []
    monkeypatch.setattr(sql, "CURSOR_BATCH_ROWS", 8)
    monkeypatch.setattr(sql, "arrow_rows", lambda names, rows: sizes.append(len(rows)) or arrow_rows(names, rows))
    cfg = _pysqlite(tmp_path, "SELECT * FROM p WHERE s >= :lo")
    assert cli(["run", str(cfg), "--out", str(tmp_path / "o"), "--quiet"]) == 0
    assert sizes == [8, 8, 4]
