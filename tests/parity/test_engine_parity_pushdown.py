"""SQL pushdown (SQLite, PostgreSQL) and query row numbers agree with the rows pulled and with files
in every engine: one regression test per disagreement found, every engine run on the same input.

Rules decided here (README, "What an input may be"):

* SQL pushdown with a weight column groups by (score, label, weight): the weight cells every
  engine counts, so the pushed-down run has the weighted bootstrap, the counts in rows and the
  weight sums of the same rows read from a file; its values come back as stored and are read by
  the row rule, never cast by the database ('NA' is missing, 'true' is 1, 'abc' is refused);
* the rows of a query are numbered from 1 (row 1 = the first row of the result) in every
  engine; a file's rows keep the numbering of a CSV's lines (the header is line 1);
* a text id that reads as a number is keyed as that number is ('-0.0' is '0', '+7.0' is '7',
  '1e3' is '1000'), as a float id column is; zero padding ('007') still keeps an id apart.
"""

from __future__ import annotations

import sqlite3
import sys
from pathlib import Path

import numpy as np
import pandas as pd
import pyarrow as pa
import pytest

sys.path.insert(0, str(Path(__file__).parent))
sys.path.insert(0, str(Path(__file__).parent.parent / "e2e"))
from docdiff import first_difference
from test_bad_input_parity import config, rows, same_everywhere
from test_engine_parity_labels_and_parts import documents, same_documents
from test_sql_sources import pg  # noqa: F401  (the PostgreSQL fixture: a server in a temporary directory)


def _unfiled(doc: dict) -> dict:
    """A document with its models' file names blanked (the same data under other names)."""
    for model in doc["models"].values():
        model["file"] = None
    return doc


def _sqlite(tmp: Path, t: pd.DataFrame, table: str = "p") -> None:
    import adbc_driver_sqlite.dbapi  # noqa: F401 - a test dependency: missing, the test fails

    with sqlite3.connect(tmp / "x.db") as con:
        t.to_sql(table, con, index=False, if_exists="replace")
    con.close()


def _sql_model(pushdown: bool, url: str = "sqlite:///x.db", table: str = "p", **extra) -> dict:
    return {
        "name": "a",
        "source": {"url": url, "query": f"SELECT * FROM {table}", "pushdown": pushdown},
        "score": "s",
        **extra,
    }


def _weighted(n: int = 60, seed: int = 1) -> pd.DataFrame:
    rng = np.random.default_rng(seed)
    return pd.DataFrame(
        {"y": np.arange(n) % 2, "s": np.round(rng.random(n), 1), "w": rng.integers(1, 4, n).astype(float)}
    )


def _sqlite_declared(tmp: Path, t: pd.DataFrame, columns: str) -> None:
    """``t`` as the table ``p`` of declared column types (``"y INTEGER, s REAL"``): SQLite keeps a
    value its column type cannot hold ('NA' in a REAL column) as it is, text beside the reals."""
    import adbc_driver_sqlite.dbapi  # noqa: F401 - a test dependency: missing, the test fails

    with sqlite3.connect(tmp / "x.db") as con:
        con.execute(f"CREATE TABLE p ({columns})")
        con.executemany(f"INSERT INTO p VALUES ({', '.join('?' * len(t.columns))})", t.itertuples(index=False))
    con.close()


def _file_and_query(tmp: Path, scheduler: str, capsys, pushdown: bool, **extra) -> tuple[dict, dict]:
    """memory's document of a.csv, and every engine's (one) of the query ``SELECT * FROM p``."""
    want = _unfiled(
        documents(config(tmp, [{"name": "a", "file": "a.csv", "score": "s"}], **extra), scheduler, capsys, ("memory",))[
            "memory"
        ]
    )
    got = _unfiled(same_documents(documents(config(tmp, [_sql_model(pushdown)], **extra), scheduler, capsys)))
    return want, got


# --- 1. SQL pushdown with a weight column: the document of the rows ---------------------------------


@pytest.mark.sql
@pytest.mark.parametrize("direction", ["higher", "lower"])
@pytest.mark.parametrize("weight_kind", ["sampling", "frequency"])
def test_weighted_pushdown_gives_the_document_of_the_same_rows_read_from_a_csv(
    direction, weight_kind, tmp_path, scheduler, capsys
):
    """Pushed down with a weight column, metrics.json lacked positives_rows, negatives_rows and
    confusion_rows (null) and every interval (no weighted bootstrap: the score table had no weight
    cells), and its weight sums were the database's (a few ulps off). The query now groups by
    (score, label, weight): the weight cells, from which all of these come as from the file."""
    t = _weighted()
    t.to_csv(tmp_path / "a.csv", index=False)
    _sqlite(tmp_path, t)
    extra = {"weight": "w", "weight_kind": weight_kind, "bootstrap": {"resamples": 40, "seed": 3}}
    want = _unfiled(
        same_documents(
            documents(
                config(tmp_path, [{"name": "a", "file": "a.csv", "score": "s", "direction": direction}], **extra),
                scheduler,
                capsys,
                ("memory",),
            )
        )
    )
    got = _unfiled(
        same_documents(documents(config(tmp_path, [_sql_model(True, direction=direction)], **extra), scheduler, capsys))
    )
    assert first_difference(want, got) is None
    if weight_kind == "sampling":
        assert got["models"]["a"]["positives_rows"] == 30 and got["models"]["a"]["ci"]["roc_auc"]


@pytest.mark.sql
def test_weighted_pushdown_of_a_mixed_sqlite_column_keeps_every_digit(tmp_path, scheduler, capsys):
    """SQLite keeps text beside numbers in one column, and its driver hands such a column back as
    text, its numbers written with 7 digits ('1.234568e+00'): pushed down, a weight of 1.23456789
    beside a weight stored as '2' would have been summed as 1.234568."""
    t = _weighted().astype({"w": object})
    t["w"] = [1.23456789 if i % 2 else str(1 + i % 3) for i in range(len(t))]
    _sqlite(tmp_path, t)
    t.assign(w=t.w.astype(float)).to_csv(tmp_path / "a.csv", index=False)
    assert (
        first_difference(*_file_and_query(tmp_path, scheduler, capsys, True, weight="w", bootstrap={"resamples": 0}))
        is None
    )


@pytest.mark.sql
def test_a_text_weight_true_pushed_down_is_1_as_in_the_pulled_rows(tmp_path, scheduler, capsys):
    """Pushed down, a weight stored as 'true' was refused ("read as 1 by the row rule but as 0 by
    the database") where the pulled rows read 1: the database no longer casts the weights."""
    _sqlite(tmp_path, _weighted().astype({"w": object}).assign(w=["true"] + [1.0] * 59))
    docs = {}
    for pushdown in (False, True):
        cfg = config(tmp_path, [_sql_model(pushdown)], weight="w", bootstrap={"resamples": 20, "seed": 1})
        docs[pushdown] = _unfiled(same_documents(documents(cfg, scheduler, capsys)))
    assert first_difference(docs[False], docs[True]) is None


@pytest.mark.sql
@pytest.mark.parametrize("pushdown", [False, True])
def test_the_reals_of_a_sqlite_real_column_holding_na_keep_every_digit(pushdown, tmp_path, scheduler, capsys):
    """A SQLite REAL column loaded with 'NA' for a missing value holds text beside its reals, and the
    driver hands such a column back as text with the reals written to 7 digits ('1.234568e+00'):
    the pulled rows (and the pushed-down groups) summed weights of 1.234568 where the CSV of the
    same table reads 1.23456789, in every engine. The reals are now fetched whole beside the text."""
    rng = np.random.default_rng(1)
    t = pd.DataFrame({"y": np.arange(40) % 2, "s": rng.random(40), "w": rng.random(40) * 3 + 0.1}).astype(object)
    t.loc[0, "w"] = "NA"
    t.loc[1, "s"] = "NA"
    _sqlite_declared(tmp_path, t, "y INTEGER, s REAL, w REAL")
    t.to_csv(tmp_path / "a.csv", index=False)
    want, got = _file_and_query(
        tmp_path, scheduler, capsys, pushdown, weight="w", missing="drop", bootstrap={"resamples": 20, "seed": 2}
    )
    assert first_difference(want, got) is None
    assert got["models"]["a"]["n"] == 38


@pytest.mark.sql
def test_real_ids_of_a_sqlite_column_holding_text_keep_every_digit(tmp_path, scheduler, capsys):
    """Ids stored as reals beside a text id in one SQLite column came back as text with 7 digits:
    12345678.0 became '1.234568e+07', the id 12345680, and joined another model's id or none."""
    t = rows(30).assign(id=lambda d: (d.id + 12345600).astype(float)).astype({"id": object})
    t.loc[0, "id"] = "A1"
    t.to_csv(tmp_path / "a.csv", index=False)
    _sqlite_declared(tmp_path, t.iloc[::-1], "id REAL, y INTEGER, s REAL")
    models = [{"name": "a", "file": "a.csv", "score": "s"}, dict(_sql_model(False), name="b")]
    doc = same_documents(documents(config(tmp_path, models, id="id"), scheduler, capsys))
    assert doc["models"]["b"]["n"] == 30


# --- 2. PostgreSQL: a text weight column holding 'NA' ---------------------------------------------------


def _postgres(server: dict, t: pd.DataFrame, table: str) -> str:
    """``t`` as a table of the test server; the URL to read it with."""
    import adbc_driver_postgresql.dbapi as dbapi

    url = f"postgresql://postgres@/postgres?host={server['socket']}"
    with dbapi.connect(url) as conn:
        cur = conn.cursor()
        cur.adbc_ingest(table, pa.Table.from_pandas(t, preserve_index=False), mode="replace")
        conn.commit()
        cur.close()
    return url


def test_a_text_weight_na_in_postgresql_is_missing_pushed_down_as_in_every_engine(pg, tmp_path, scheduler, capsys):  # noqa: F811
    """PostgreSQL stopped the pushed-down query with a server error (invalid input syntax for type
    double precision: "NA") where every engine reading the rows, or a CSV, takes 'NA' as a missing
    weight: dropped and counted under missing: drop, the usual one line otherwise."""
    t = _weighted().astype({"w": object})
    t["w"] = t.w.astype(int).astype(str)
    t.loc[3, "w"] = "NA"
    url = _postgres(pg, t, "text_weights")
    t.to_csv(tmp_path / "a.csv", index=False)
    extra = {"weight": "w", "missing": "drop", "bootstrap": {"resamples": 20, "seed": 1}}
    want = _unfiled(
        documents(
            config(tmp_path, [{"name": "a", "file": "a.csv", "score": "s"}], **extra), scheduler, capsys, ("memory",)
        )["memory"]
    )
    for pushdown in (False, True):
        got = _unfiled(
            same_documents(
                documents(config(tmp_path, [_sql_model(pushdown, url, "text_weights")], **extra), scheduler, capsys)
            )
        )
        assert first_difference(want, got) is None, pushdown
    assert want["models"]["a"]["n"] == 59
    pushed = same_everywhere(config(tmp_path, [_sql_model(True, url, "text_weights")], weight="w"), scheduler, capsys)
    assert pushed.endswith(
        "SELECT * FROM text_weights): 1 row(s) with missing or non-finite weight in 'w'; fix the data "
        "or set missing: drop"
    ), pushed
    pulled = same_everywhere(config(tmp_path, [_sql_model(False, url, "text_weights")], weight="w"), scheduler, capsys)
    assert "SELECT * FROM text_weights): row 4: missing or non-finite weight in 'w'" in pulled, pulled


def test_a_non_number_text_weight_in_postgresql_is_the_row_rules_line_pushed_down(pg, tmp_path, scheduler, capsys):  # noqa: F811
    t = _weighted().astype({"w": object})
    t["w"] = ["abc"] + [str(int(v)) for v in t.w[1:]]
    url = _postgres(pg, t, "bad_weights")
    line = same_everywhere(config(tmp_path, [_sql_model(True, url, "bad_weights")], weight="w"), scheduler, capsys)
    assert line.endswith(
        "SELECT * FROM bad_weights): column 'w': non-numeric value 'abc'; expected a number "
        "(fix the data or cast it in the query)"
    ), line


def test_numeric_labels_and_ids_in_postgresql_read_as_their_text(pg, tmp_path, scheduler, capsys):  # noqa: F811
    """PostgreSQL's NUMERIC comes as an opaque Arrow type over its text, which the readers' kernels
    do not take: a NUMERIC label or id column stopped every engine with an internal error (exit 1:
    "Function 'dictionary_encode' has no kernel matching input types"). It is read as its text
    ('1.0' is the label 1), as the same values from a CSV."""
    import decimal

    t = rows(40)
    table = pa.table(
        {
            "id": pa.array([decimal.Decimal(int(i)) for i in t.id], pa.decimal128(10, 0)),
            "y": pa.array([decimal.Decimal(int(v)) for v in t.y], pa.decimal128(5, 1)),
            "s": t.s,
        }
    )
    url = _postgres(pg, table.to_pandas(), "numeric_labels")
    t.to_csv(tmp_path / "a.csv", index=False)
    want = _unfiled(
        documents(
            config(tmp_path, [{"name": "a", "file": "a.csv", "score": "s"}], id="id"), scheduler, capsys, ("memory",)
        )["memory"]
    )
    for pushdown in (False, True):
        got = _unfiled(
            same_documents(
                documents(config(tmp_path, [_sql_model(pushdown, url, "numeric_labels")], id="id"), scheduler, capsys)
            )
        )
        assert first_difference(want, got) is None, pushdown


def test_uuid_ids_in_postgresql_join_the_same_ids_written_as_text(pg, tmp_path, scheduler, capsys):  # noqa: F811
    """A UUID id column came as 16 bytes in an Arrow extension type: every engine stopped with an
    internal error ("Invalid UTF8 payload", exit 1). It is read as the text PostgreSQL shows."""
    import uuid

    t = rows(40).assign(id=[str(uuid.UUID(int=i * 7919)) for i in range(40)])
    url = _postgres(pg, t, "uuid_ids")
    import adbc_driver_postgresql.dbapi as dbapi

    with dbapi.connect(url) as conn:
        cur = conn.cursor()
        cur.execute("ALTER TABLE uuid_ids ALTER COLUMN id TYPE uuid USING id::uuid")
        conn.commit()
        cur.close()
    t.iloc[::-1].to_csv(tmp_path / "b.csv", index=False)
    models = [dict(_sql_model(False, url, "uuid_ids")), {"name": "b", "file": "b.csv", "score": "s"}]
    doc = same_documents(documents(config(tmp_path, models, id="id"), scheduler, capsys))
    assert doc["models"]["a"]["n"] == doc["models"]["b"]["n"] == 40


# --- 3. the rows of a query are numbered from 1 ---------------------------------------------------------


@pytest.mark.sql
@pytest.mark.parametrize(
    "fault, message",
    [
        ("score", "column 's', row 2101: non-numeric value 'abc'; expected a number"),
        ("missing", "row 2101: missing or non-finite score in 's'"),
        ("weight", "column 'w', row 2101: negative weight -1; weights must be >= 0"),
        ("id", "column 'id', row 2101: duplicated id '5'; ids must be unique"),
        ("label", "column 'y', row 2101: a third distinct label 'x'"),
    ],
)
def test_a_bad_row_of_a_query_is_numbered_from_the_first_row_of_the_result(fault, message, tmp_path, scheduler, capsys):
    """A bad row of a query was numbered as a CSV's line (the 2101st row of the result was "row
    2102", the header of a file that has none counted), in every engine. Row 1 is now the first
    row of the result; past the first batch too (the streamed engines read 1,000 rows a batch)."""
    n = 2500
    t = _weighted(n).assign(id=np.arange(n)).astype({"s": object, "y": object})
    t.loc[2100, {"score": "s", "missing": "s", "weight": "w", "id": "id", "label": "y"}[fault]] = {
        "score": "abc",
        "missing": None,
        "weight": -1,
        "id": 5,
        "label": "x",
    }[fault]
    _sqlite(tmp_path, t)
    line = same_everywhere(config(tmp_path, [_sql_model(False)], weight="w", id="id"), scheduler, capsys)
    assert "SELECT * FROM p): " + message in line, line


# --- 4. numeric-looking text ids: one rule ----------------------------------------------------------------


SPELLINGS = {
    "signed": lambda i: f"{i:+.1f}",
    "exponent": lambda i: f"{i:.3e}",
    "fraction": lambda i: f"{i:.1f}",
    "plus": lambda i: f" {int(i):+d} ",
}


@pytest.mark.parametrize("spelling", SPELLINGS)
def test_text_ids_that_are_numbers_join_the_parquet_float_ids_of_those_numbers(spelling, tmp_path, scheduler, capsys):
    """A text id '1.0' joined the Parquet float id 1.0, but '-0.0', '+7.0' and '1e3' did not join
    0.0, 7.0 and 1000.0 ("model 'a' has 3 id(s) not shared by every model", every engine). Text
    that is a number written without zero padding is now keyed as that number is in a float
    column: the document of the ids written as the integers themselves."""
    t = rows(30, start=-5).assign(id=lambda d: d.id * 1000)  # -5000 … 24000, 0 among them
    t.iloc[::-1].assign(id=t.id.astype(float)[::-1]).to_parquet(tmp_path / "b.parquet", index=False)
    models = [{"name": "a", "file": "a.csv", "score": "s"}, {"name": "b", "file": "b.parquet", "score": "s"}]
    t.to_csv(tmp_path / "a.csv", index=False)
    want = same_documents(documents(config(tmp_path, models, id="id"), scheduler, capsys, ("memory",)))
    ids = [SPELLINGS[spelling](float(i)) for i in t.id]
    ids[5] = "-0.0" if spelling == "signed" else ids[5]  # the id 0 written as negative zero
    t.assign(id=ids).to_csv(tmp_path / "a.csv", index=False)
    got = same_documents(documents(config(tmp_path, models, id="id"), scheduler, capsys))
    assert first_difference(want, got) is None


def test_zero_padded_numbers_keep_their_zeros_as_ids(tmp_path, scheduler, capsys):
    t = rows(30)
    t.to_parquet(tmp_path / "b.parquet", index=False)
    t.assign(id=[f"0{i}e0" if i % 2 else f"{i}e0" for i in t.id]).to_csv(tmp_path / "a.csv", index=False)
    models = [{"name": "a", "file": "a.csv", "score": "s"}, {"name": "b", "file": "b.parquet", "score": "s"}]
    line = same_everywhere(config(tmp_path, models, id="id"), scheduler, capsys)
    assert "model 'a' has 15 id(s) not shared by every model (e.g. '01e0', '03e0', '05e0'" in line, line


@pytest.mark.sql
def test_rows_that_do_not_line_up_name_the_querys_row_from_1(tmp_path, scheduler, capsys):
    """Without ids, a query's row whose label differs from the first model's was named by its CSV
    line ("row 8" for the 7th row of the result)."""
    t = rows(30)
    t.to_csv(tmp_path / "a.csv", index=False)
    _sqlite(tmp_path, t.assign(y=np.where(np.arange(30) == 6, 1 - t.y, t.y)))
    b = dict(_sql_model(False), name="b")
    line = same_everywhere(config(tmp_path, [{"name": "a", "file": "a.csv", "score": "s"}, b]), scheduler, capsys)
    assert line.endswith(
        "SELECT * FROM p): model 'b': row 7 has a different label than in 'a'; rows do not line up — "
        "set 'id' in the config to join them"
    ), line


@pytest.mark.sql
def test_a_sqlite_real_column_with_na_past_the_drivers_first_rows_pushed_down(tmp_path, scheduler, capsys):
    """The driver types a column by its first rows and refuses a change later ("Type mismatch in
    column 0: expected DOUBLE but got STRING"): the pushed-down query's text half of a score column
    was NULL for the first 1,024 groups and 'NA' after them."""
    n = 3000
    t = pd.DataFrame({"y": np.arange(n) % 2, "s": np.arange(n) / n}).astype(object)
    t.loc[n - 1, "s"] = "NA"
    _sqlite_declared(tmp_path, t, "y INTEGER, s REAL")
    doc = same_documents(documents(config(tmp_path, [_sql_model(True)], missing="drop"), scheduler, capsys))
    assert doc["models"]["a"]["n"] == n - 1


@pytest.mark.sql
@pytest.mark.parametrize("pushdown", [False, True])
def test_a_sqlite_real_weight_column_with_na_past_row_1024_runs_as_its_csv(pushdown, tmp_path, scheduler, capsys):
    """The driver typed a column by its first 1,024 rows: a REAL weight column holding 'NA' at row
    3,000 stopped every engine ("Type mismatch in column 2: expected DOUBLE but got STRING/BINARY",
    exit 2) where the CSV of the same table runs, 'NA' a missing weight."""
    n = 3000
    rng = np.random.default_rng(4)
    t = pd.DataFrame({"y": np.arange(n) % 2, "s": np.round(rng.random(n), 3), "w": rng.random(n) + 0.5}).astype(object)
    t.loc[n - 1, "w"] = "NA"
    _sqlite_declared(tmp_path, t, "y INTEGER, s REAL, w REAL")
    t.to_csv(tmp_path / "a.csv", index=False)
    want, got = _file_and_query(
        tmp_path, scheduler, capsys, pushdown, weight="w", missing="drop", bootstrap={"resamples": 0}
    )
    assert first_difference(want, got) is None
    assert got["models"]["a"]["n"] == n - 1
