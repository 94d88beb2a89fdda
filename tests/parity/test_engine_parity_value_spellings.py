"""How a value is spelled (true/false scores, ids like 1.0, missing-value words, text in SQLite)
reads alike in every engine and format: one regression test per disagreement found.

Rules decided here (README, "What an input may be"):

* a number column's ``true`` / ``false`` (any case) are 1 / 0 in every format, as a Parquet
  boolean column is read (a rule's flag as a score);
* a text id is itself, stripped, but a fraction of zeros is dropped (``1.0`` is ``1``, as a float
  id column is keyed); ``007`` is still not ``7``, in the id join and in the credit section alike;
* a SQLite source pushed down reads its weights by the row rule: a weight stored as text that is
  not a number is refused, not cast to 0; the weight range rules of the rows apply too, and its
  grouped rows are dropped (a missing weight, score 'NA' or inf, label '') as the pulled rows are;
* the missing-value spellings of a CSV number column ('NA', 'nan', '', …) are missing when stored as
  text too (a Parquet string column, a database's text column);
* the credit section's grade migration counts each current row joined by id by its frequency weight.
"""

from __future__ import annotations

import sqlite3
import sys
from pathlib import Path

import numpy as np
import pandas as pd
import pyarrow as pa
import pyarrow.parquet as pq
import pytest

sys.path.insert(0, str(Path(__file__).parent))
from docdiff import first_difference
from test_bad_input_parity import config, rows, same_everywhere
from test_engine_parity_credit import refused_alike_by_validate
from test_engine_parity_labels_and_parts import documents, same_documents


def _unfiled(doc: dict) -> dict:
    """A document with its models' file names blanked (the same data under other names)."""
    for model in doc["models"].values():
        model["file"] = None
    return doc


# --- 1. true / false scores: one rule for CSV and Parquet ------------------------------------------


def test_true_false_scores_in_a_csv_read_as_the_parquet_booleans_do(tmp_path, scheduler, capsys):
    """A rule's flag as the score: Parquet booleans were read as 1 / 0 in every engine while the same
    flags written as true / false in a CSV were refused ("non-numeric value 'True'"). Both are now
    1 / 0, with the numbers of the flags written 1 / 0."""
    t = rows(30)
    flag = t.s > 0.5
    t.assign(s=flag.astype(int)).to_csv(tmp_path / "ones.csv", index=False)
    t.assign(s=flag).to_parquet(tmp_path / "a.parquet", index=False)
    t.assign(s=np.where(flag, "TRUE", "false")).to_csv(tmp_path / "a.csv", index=False)
    docs = {}
    for file in ("ones.csv", "a.parquet", "a.csv"):
        docs[file] = _unfiled(
            same_documents(documents(config(tmp_path, [{"name": "a", "file": file, "score": "s"}]), scheduler, capsys))
        )
    assert first_difference(docs["ones.csv"], docs["a.parquet"]) is None
    assert first_difference(docs["ones.csv"], docs["a.csv"]) is None


@pytest.mark.slow
def test_true_false_past_the_first_csv_block_are_read_on_by_the_streamed_engines(tmp_path, scheduler, capsys):
    """The streamed reader parses a CSV block by block as float64; a block holding 'true' failed as
    a whole. Past the first block (1 MB), the rows already read are kept and the rest is read with
    the row rule's parse: the numbers of memory, which reads the file whole."""
    n = 150_000
    rng = np.random.default_rng(3)
    s = np.round(rng.random(n), 3).astype(object)
    s[-5:] = ["true", "false", "True", "FALSE", "true"]
    pd.DataFrame({"y": np.arange(n) % 2, "s": s, "w": 1}).to_csv(tmp_path / "a.csv", index=False)
    assert (tmp_path / "a.csv").stat().st_size > 1 << 20
    cfg = config(tmp_path, [{"name": "a", "file": "a.csv", "score": "s"}], weight="w")
    doc = same_documents(documents(cfg, scheduler, capsys))
    assert doc["models"]["a"]["n"] == n


def test_a_non_number_beside_true_false_is_still_named_by_its_row(tmp_path, scheduler, capsys):
    t = rows(30).astype({"s": object})
    t.loc[3, "s"] = "true"
    t.loc[17, "s"] = "yes"
    t.to_csv(tmp_path / "a.csv", index=False)
    line = refused_alike_by_validate(
        config(tmp_path, [{"name": "a", "file": "a.csv", "score": "s"}]), scheduler, capsys
    )
    assert line.endswith("a.csv: column 's', row 19: non-numeric value 'yes'; expected a number"), line


# --- 3. ids: one rule across formats ---------------------------------------------------------------


@pytest.mark.parametrize("write", ["csv", "parquet"])
def test_an_id_written_1_0_joins_the_id_1_as_a_float_id_column_does(write, tmp_path, scheduler, capsys):
    """Parquet float ids (1.0) joined integer ids (1) in every engine, but the same ids saved to a
    CSV ("1.0", as pandas writes a float column) or stored as Parquet text found no id in common:
    "model 'a' has 30 id(s) not shared by every model (e.g. '1.0', …)". A fraction of zeros is now
    dropped from a text id; every writing of the ids gives the numbers of the integer ids."""
    t = rows(30)
    t.iloc[::-1].to_csv(tmp_path / "b.csv", index=False)
    models = [{"name": "a", "file": f"a.{write}", "score": "s"}, {"name": "b", "file": "b.csv", "score": "s"}]
    t.to_csv(tmp_path / "a.csv", index=False) if write == "csv" else t.to_parquet(tmp_path / "a.parquet", index=False)
    want = _unfiled(same_documents(documents(config(tmp_path, models, id="id"), scheduler, capsys, ("memory",))))
    for ids in (t.id.astype(float), t.id.map(lambda i: f"{i}.0"), t.id.map(lambda i: f" {i}.00 ")):
        a = t.assign(id=ids)
        a.to_csv(tmp_path / "a.csv", index=False) if write == "csv" else a.to_parquet(
            tmp_path / "a.parquet", index=False
        )
        got = _unfiled(same_documents(documents(config(tmp_path, models, id="id"), scheduler, capsys)))
        assert first_difference(want, got) is None, ids.iloc[0]


def test_zero_padded_ids_still_differ_and_a_padded_1_0_keeps_its_zeros(tmp_path, scheduler, capsys):
    t = rows(30)
    t.to_csv(tmp_path / "b.csv", index=False)
    t.assign(id=t.id.map(lambda i: f"00{i}.0")).to_csv(tmp_path / "a.csv", index=False)
    models = [{"name": "a", "file": "a.csv", "score": "s"}, {"name": "b", "file": "b.csv", "score": "s"}]
    line = same_everywhere(config(tmp_path, models, id="id"), scheduler, capsys)
    assert "model 'a' has 30 id(s) not shared by every model (e.g. '001', '002', '003'" in line, line


def test_the_credit_section_joins_ids_by_the_id_rule_not_the_label_rule(tmp_path, scheduler, capsys):
    """The credit section keyed ids by the label rule, so grade migration matched the reference's
    '07' with the current sample's '7', ids the run's own join keeps apart."""
    rng = np.random.default_rng(11)
    n = 60
    s = np.round(rng.random(n), 3)
    cur = pd.DataFrame({"id": [str(i) for i in range(n)], "y": (rng.random(n) < s).astype(int), "s": s})
    cur.to_csv(tmp_path / "a.csv", index=False)
    cur.assign(id=[f"0{i}" for i in range(n)]).to_csv(tmp_path / "ref.csv", index=False)
    cfg = config(
        tmp_path,
        [{"name": "a", "file": "a.csv", "score": "s", "reference": "ref.csv"}],
        id="id",
        credit={"grades": {"quantiles": 3}},
    )
    doc = same_documents(documents(cfg, scheduler, capsys, ("memory",)))
    # '00' is not '0', '01' not '1', …: no id in both samples, so no migration (not a matrix of zeros)
    assert doc["credit"]["models"]["a"]["migration"] is None
    assert doc["credit"]["models"]["a"]["capabilities"]["migration"] == "no_shared_ids"
    cur.assign(id=[f"{i}.0" for i in range(n)]).to_csv(tmp_path / "ref.csv", index=False)
    doc = same_documents(documents(cfg, scheduler, capsys, ("memory",)))
    assert doc["credit"]["models"]["a"]["migration"]["matched"] == n  # '1.0' is '1', as in the id join


# --- 2. SQLite pushdown reads weights by the row rule -----------------------------------------------


def _sqlite(tmp: Path, t: pd.DataFrame) -> None:
    import adbc_driver_sqlite.dbapi  # noqa: F401 - a test dependency: missing, the test fails

    with sqlite3.connect(tmp / "x.db") as con:
        t.to_sql("p", con, index=False)
    con.close()


def _sql_model(pushdown: bool) -> dict:
    return {
        "name": "a",
        "source": {"url": "sqlite:///x.db", "query": "SELECT * FROM p", "pushdown": pushdown},
        "score": "s",
    }


@pytest.mark.sql
def test_a_text_weight_pushed_down_to_sqlite_is_refused_not_cast_to_0(tmp_path, scheduler, capsys):
    """SQLite's CAST made 0 of a weight stored as 'abc' (exit 0, that row weightless) where the
    pulled rows, a CSV and a Parquet file refuse it in every engine."""
    t = rows(30).assign(w=["abc"] + ["2"] * 29)
    _sqlite(tmp_path, t)
    pulled = same_everywhere(config(tmp_path, [_sql_model(False)], weight="w"), scheduler, capsys)
    assert pulled.endswith("column 'w', row 1: non-numeric value 'abc'; expected a number"), pulled  # a query's row 1
    pushed = same_everywhere(config(tmp_path, [_sql_model(True)], weight="w"), scheduler, capsys)
    assert pushed.endswith(
        "SELECT * FROM p): column 'w': non-numeric value 'abc'; expected a number "
        "(fix the data or cast it in the query)"
    ), pushed


def _pulled_and_pushed(tmp: Path, scheduler: str, capsys, **extra) -> tuple[dict, dict]:
    """The stream engine's document of the pulled rows, and every engine's (one) of the pushed-down tables."""
    docs = {}
    for pushdown in (False, True):
        cfg = config(tmp, [_sql_model(pushdown)], **extra)
        docs[pushdown] = documents(
            cfg, scheduler, capsys, ("stream",) if not pushdown else ("memory", "stream", "dask")
        )
    same_documents(docs[True])
    return docs[False]["stream"], docs[True]["memory"]


def _same_numbers(pulled: dict, pushed: dict) -> None:
    a, b = pulled["models"]["a"], pushed["models"]["a"]
    assert (a["n"], a["positives"]) == (b["n"], b["positives"])
    assert a["metrics"].keys() == b["metrics"].keys()
    for k in a["metrics"]:
        assert a["metrics"][k] == pytest.approx(b["metrics"][k], rel=1e-12), k


@pytest.mark.sql
@pytest.mark.parametrize("case", ["a missing weight", "a score 'NA'", "an infinite score", "a label ''"])
def test_pushed_down_rows_are_dropped_as_the_pulled_rows_are(case, tmp_path, scheduler, capsys):
    """missing: drop, pushed down: a NULL weight dropped its whole (score, label) group, every row of
    it (38 rows kept where the pulled rows keep 39); a score stored as 'NA' or inf stopped the run
    ("score nan is not a finite number") and a label stored as '' was a third label, where the pulled
    rows drop the one row. Each now drops the rows the row rule drops, counted alike."""
    rng = np.random.default_rng(1)
    t = pd.DataFrame(
        {"y": np.arange(40) % 2, "s": np.round(rng.random(40), 1), "w": rng.integers(1, 4, 40).astype(float)}
    )
    t = t.astype({"s": object, "y": object})
    if case == "a missing weight":
        t.loc[3, "w"] = None
    elif case == "a score 'NA'":
        t.loc[3, "s"] = "NA"
    elif case == "an infinite score":
        t.loc[3, "s"] = float("inf")
    else:
        t.loc[3, "y"] = ""
    _sqlite(tmp_path, t)
    pulled, pushed = _pulled_and_pushed(tmp_path, scheduler, capsys, weight="w", missing="drop")
    _same_numbers(pulled, pushed)
    assert pushed["models"]["a"]["n"] == 39


@pytest.mark.sql
def test_numbers_stored_as_text_in_sqlite_give_the_pulled_rows_numbers_pushed_down(tmp_path, scheduler, capsys):
    """Weights '2' and scores 'true' / '0.25' stored as text: pushed down, the weights are read as
    the database casts them (the same numbers), the scores by the row rule (SQLite's mixed column
    was refused at 'true'); the numbers equal the pulled rows' read by the stream engine."""
    t = rows(30).astype({"s": object})
    t["s"] = [("true" if v > 0.7 else "false") if i % 3 == 0 else str(v) for i, v in enumerate(t.s)]
    _sqlite(tmp_path, t.assign(w=[str(1 + i % 3) for i in range(30)]))
    _same_numbers(*_pulled_and_pushed(tmp_path, scheduler, capsys, weight="w"))


@pytest.mark.sql
@pytest.mark.parametrize(
    "weight, message",
    [
        (1e16, "weight 1e+16 is too large (at most 1e+15); rescale the weights"),
        (1e-20, "weight 1e-20 is too small (0, or at least 1e-15); rescale the weights"),
    ],
    ids=["large", "small"],
)
def test_pushed_down_weights_follow_the_row_readers_weight_rules(weight, message, tmp_path, scheduler, capsys):
    """Pushed down, a weight of 1e16 or 1e-20 was summed (the row readers refuse both). (The text
    'true', then refused pushed down, is read as 1 as the rows read it, by the row rule.)"""
    _sqlite(tmp_path, rows(30).assign(w=[weight] + [1.0] * 29))
    line = same_everywhere(config(tmp_path, [_sql_model(True)], weight="w"), scheduler, capsys)
    assert line.endswith(f"SELECT * FROM p): column 'w': {message}"), line
    pulled = same_everywhere(config(tmp_path, [_sql_model(False)], weight="w"), scheduler, capsys)
    assert "row 1: " + message.split(";")[0] in pulled, pulled


@pytest.mark.sql
def test_fractional_frequency_weights_pushed_down_are_refused_as_the_rows_are(tmp_path, scheduler, capsys):
    _sqlite(tmp_path, rows(30).assign(w=[2.5] + [1.0] * 29))
    line = same_everywhere(config(tmp_path, [_sql_model(True)], weight="w", weight_kind="frequency"), scheduler, capsys)
    assert line.endswith(
        "column 'w': a weight is not a whole number; weight_kind: frequency needs whole-number "
        "weights (use weight_kind: sampling)"
    ), line


# --- 4. grade migration counts frequency weights ---------------------------------------------------


def test_grade_migration_counts_each_joined_row_by_its_frequency_weight(tmp_path, scheduler, capsys):
    """With weight_kind: frequency every count of the credit section is of obligors (a row of
    weight w is w rows) but the grade migration joined distinct ids and counted each once: 43
    obligors migrated where the current sample held 89. An id held by w obligors in the reference
    and v now is found in both min(w, v) times (the repeated rows paired off one to one), from its
    reference grade to its current one: the cross-table of the obligors in both samples."""
    rng = np.random.default_rng(11)
    n, edges = 60, [0.25, 0.5, 0.75]
    s = np.round(rng.random(n), 3)
    cur = pd.DataFrame({"id": np.arange(n), "y": (rng.random(n) < s).astype(int), "s": s, "w": rng.integers(0, 4, n)})
    ref = cur.assign(s=np.round(np.clip(s + rng.normal(0, 0.1, n), 0, 1), 3), w=rng.integers(1, 4, n))
    cur.to_csv(tmp_path / "a.csv", index=False)
    ref.iloc[::-1].to_csv(tmp_path / "ref.csv", index=False)
    cfg = config(
        tmp_path,
        [{"name": "a", "file": "a.csv", "score": "s", "reference": "ref.csv"}],
        id="id",
        weight="w",
        weight_kind="frequency",
        credit={"grades": {"edges": edges}},
    )
    doc = same_documents(documents(cfg, scheduler, capsys, ("memory",)))
    migration = doc["credit"]["models"]["a"]["migration"]
    want = np.zeros((4, 4), dtype=int)
    both = np.minimum(ref.w, cur.w)
    np.add.at(want, (np.digitize(ref.s, edges), np.digitize(cur.s, edges)), both)
    assert migration["matched"] == both.sum() == want.sum() > (both > 0).sum()
    assert migration["counts"] == want.tolist()


# --- fuzzed: NA spellings in text number columns ------------------------------------------------------


@pytest.mark.parametrize("spelling", ["NA", "nan", "NaN", "", "null", "N/A"])
def test_a_missing_value_spelled_in_a_parquet_text_score_is_missing_as_in_a_csv(spelling, tmp_path, scheduler, capsys):
    """A score column stored as text (a Parquet string column, a SQLite text column pulled) with 'NA'
    or an empty string: refused as "non-numeric value 'NA'" in every engine, where the same cell in
    a CSV is missing (dropped under missing: drop, counted). Both are missing now."""
    t = rows(30).astype({"s": object})
    t["s"] = t.s.astype(str)
    t.loc[4, "s"] = spelling
    t.to_csv(tmp_path / "a.csv", index=False)
    t.to_parquet(tmp_path / "a.parquet", index=False)
    docs = {}
    for file in ("a.csv", "a.parquet"):
        cfg = config(tmp_path, [{"name": "a", "file": file, "score": "s"}], missing="drop")
        docs[file] = _unfiled(same_documents(documents(cfg, scheduler, capsys)))
    assert first_difference(docs["a.csv"], docs["a.parquet"]) is None
    assert docs["a.csv"]["models"]["a"]["n"] == 29
    line = same_everywhere(config(tmp_path, [{"name": "a", "file": "a.parquet", "score": "s"}]), scheduler, capsys)
    assert line.endswith(
        "a.parquet: row 6: missing or non-finite score in 's'; fix the data or set 'missing: drop' "
        "to drop such rows (counted in the report)"
    ), line


# --- fuzzed: Parquet parts of other id types -------------------------------------------------------


def test_boolean_ids_of_one_part_beside_text_ids_are_spelled_as_a_part_read_alone(tmp_path, scheduler, capsys):
    """A part of boolean ids beside a part of text ids: memory and stream read the dataset's column as
    text through arrow's cast ('true'), Dask each part alone by the key rule ('True'); a CSV's ids
    'True' / 'False' joined in Dask only ("model 'a' has 2 id(s) not shared …" elsewhere)."""
    t = rows(12)
    ids = [f"a{i}" for i in range(10)] + ["True", "False"]
    (tmp_path / "ds").mkdir()
    pq.write_table(pa.table({"id": ids[:10], "y": t.y[:10], "s": t.s[:10]}), tmp_path / "ds" / "p0.parquet")
    pq.write_table(pa.table({"id": [True, False], "y": t.y[10:], "s": t.s[10:]}), tmp_path / "ds" / "p1.parquet")
    t.assign(id=ids).iloc[::-1].to_csv(tmp_path / "b.csv", index=False)
    cfg = config(
        tmp_path, [{"name": "a", "file": "ds", "score": "s"}, {"name": "b", "file": "b.csv", "score": "s"}], id="id"
    )
    assert same_documents(documents(cfg, scheduler, capsys))["models"]["a"]["n"] == 12


# --- fuzzed: SQLite tables loaded from a CSV (every value text) -------------------------------------


@pytest.mark.sql
def test_a_weight_stored_as_text_na_in_sqlite_is_missing_pushed_down_as_pulled(tmp_path, scheduler, capsys):
    """A SQLite table loaded from a CSV (``.import``) holds every value as text, 'NA' for a missing
    weight: the pulled rows drop that row under missing: drop, while pushed down the database cast
    'NA' to 0 (then the text check refused it). 'NA' spellings are NULL to the pushed-down query."""
    rng = np.random.default_rng(2)
    t = pd.DataFrame(
        {"y": np.arange(40) % 2, "s": np.round(rng.random(40), 1).astype(str), "w": rng.integers(1, 4, 40).astype(str)}
    )
    t.loc[3, "w"] = "NA"
    _sqlite(tmp_path, t)
    pulled, pushed = _pulled_and_pushed(tmp_path, scheduler, capsys, weight="w", missing="drop")
    _same_numbers(pulled, pushed)
    assert pushed["models"]["a"]["n"] == 39
    line = same_everywhere(config(tmp_path, [_sql_model(True)], weight="w"), scheduler, capsys)
    assert line.endswith(
        "SELECT * FROM p): 1 row(s) with missing or non-finite weight in 'w'; fix the data or set missing: drop"
    ), line
