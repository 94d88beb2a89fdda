"""The same predictions in CSV files, in DuckDB, and in SQLite through SQLAlchemy
(``sqlite+pysqlite://``) and through ADBC (``sqlite:///``), each named once under
``connections:``, give the same metrics.json numbers, pulled and pushed down, in every engine
(issue 43). The documents are compared without ``run`` and ``digest`` (provenance: the run's
time, its config, the input's name) and without the models' file names.
"""

from __future__ import annotations

import sqlite3
import sys
from pathlib import Path

import numpy as np
import pandas as pd
import pytest

sys.path.insert(0, str(Path(__file__).parent))
from docdiff import first_difference
from test_bad_input_parity import config
from test_engine_parity_labels_and_parts import documents, same_documents

pytestmark = [pytest.mark.sql, pytest.mark.slow]


def _unfiled(doc: dict) -> dict:
    for model in doc["models"].values():
        model["file"] = None
    return doc


def _data(n: int = 120, seed: int = 11) -> pd.DataFrame:
    """Two models' scores (ties, a weight) on ``n`` rows keyed by a text id."""
    rng = np.random.default_rng(seed)
    y = (rng.random(n) < 0.35).astype(int)
    return pd.DataFrame(
        {
            "id": [f"k{i:04d}" for i in range(n)],
            "y": y,
            "s1": np.round(np.clip(0.3 * y + rng.random(n) * 0.7, 0, 1), 2),
            "s2": np.round(rng.random(n), 3),
            "w": rng.integers(1, 4, n).astype(float),
        }
    )


def _stores(tmp: Path, t: pd.DataFrame) -> dict[str, dict]:
    """``t`` as a.csv, and as the table ``p`` of a DuckDB file and a SQLite file; the connections."""
    import duckdb

    t.to_csv(tmp / "a.csv", index=False)
    with sqlite3.connect(tmp / "x.db") as con:
        t.to_sql("p", con, index=False, if_exists="replace")
    con.close()
    (tmp / "x.duckdb").unlink(missing_ok=True)
    with duckdb.connect(str(tmp / "x.duckdb")) as dcon:
        dcon.register("t", t)
        dcon.execute("CREATE TABLE p AS SELECT * FROM t")
    return {
        "duck": {"url": "duckdb:///x.duckdb"},
        "lite": {"url": "sqlite+pysqlite:///x.db"},
        "adbc": {"url": "sqlite:///x.db", "options": {}},
    }


def _models(connection: str | None, pushdown: bool, names: tuple[str, ...]) -> list[dict]:
    scores = {"a": "s1", "b": "s2"}
    if connection is None:
        return [{"name": n, "file": "a.csv", "score": scores[n]} for n in names]
    return [
        {
            "name": n,
            "score": scores[n],
            "source": {
                "connection": connection,
                "query": "SELECT * FROM p WHERE y >= :lo;",
                "params": {"lo": 0},
                "pushdown": pushdown,
            },
        }
        for n in names
    ]


def test_files_duckdb_and_sqlite_through_both_paths_give_one_document_pulled(tmp_path, scheduler, capsys):
    conns = _stores(tmp_path, _data())
    extra = {"id": "id", "weight": "w", "bootstrap": {"resamples": 30, "seed": 5}, "connections": conns}
    want = _unfiled(
        same_documents(documents(config(tmp_path, _models(None, False, ("a", "b")), **extra), scheduler, capsys))
    )
    for name in conns:
        got = _unfiled(
            same_documents(documents(config(tmp_path, _models(name, False, ("a", "b")), **extra), scheduler, capsys))
        )
        assert first_difference(want, got) is None, name


@pytest.mark.parametrize("weight", [None, "w"])
def test_files_duckdb_and_sqlite_through_both_paths_give_one_document_pushed_down(weight, tmp_path, scheduler, capsys):
    """Pushed down, a model's score table is its own query's (no pairing): one model, against its file."""
    conns = _stores(tmp_path, _data())
    extra = {"weight": weight, "bootstrap": {"resamples": 30, "seed": 5}, "connections": conns}
    want = _unfiled(
        same_documents(
            documents(config(tmp_path, _models(None, False, ("a",)), **extra), scheduler, capsys, ("memory",))
        )
    )
    for name in conns:
        got = _unfiled(
            same_documents(documents(config(tmp_path, _models(name, True, ("a",)), **extra), scheduler, capsys))
        )
        assert first_difference(want, got) is None, name


def _text_scores(tmp: Path) -> dict[str, dict]:
    """The table ``p`` whose score column is text: numbers written as text, a NULL at row 3 and
    'abc' at row 5 of the result, in DuckDB (VARCHAR) and SQLite; the connections."""
    t = pd.DataFrame(
        {
            "id": [f"k{i}" for i in range(8)],
            "y": [0, 1] * 4,
            "s": ["0.25", "1e-1", None, "0.5", "abc", "0.75", "0.125", ".5"],
        }
    )
    return _stores(tmp, t)


@pytest.mark.parametrize(
    ("where", "expected"),
    [
        ("WHERE s IS NOT NULL", "row 4: non-numeric value 'abc'"),
        ("WHERE s <> 'abc' OR s IS NULL", "row 3: missing or non-finite score in 's'"),
    ],
)
def test_a_bad_cell_is_one_line_naming_its_row_alike_from_every_database(where, expected, tmp_path, scheduler, capsys):
    """The row rule of files, on a query's rows numbered from 1, in every engine, whatever the
    database: numbers written as text are read, a NULL is missing, other text is refused."""
    from test_bad_input_parity import same_everywhere

    conns = _text_scores(tmp_path)
    lines = {}
    for name in conns:
        model = {
            "name": "a",
            "score": "s",
            "source": {"connection": name, "query": f"SELECT * FROM p {where} ORDER BY id"},
        }
        line = same_everywhere(config(tmp_path, [model], connections=conns), scheduler, capsys)
        assert expected in line, line
        lines[name] = line.split(" ORDER BY id): ", 1)[1]  # after the source's description (its URL)
    assert len(set(lines.values())) == 1, lines
