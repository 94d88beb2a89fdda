"""Boolean labels, Parquet types and parts, CSV spellings, id joins, weights and multiclass class
lists agree across engines and ``validate``: one regression test per disagreement a fuzzer found.

A throwaway fuzzer wrote small cases (boolean, dictionary, nullable, decimal and float16
columns; timestamp dates; empty row groups and parts; parts whose types differ; BOM, CRLF,
quoted and scientific numbers, repeated headers, trailing delimiters, NA-like labels; ids
zero-padded, duplicated, padded with spaces or missing; negative, NaN, huge and all-zero
weights; multiclass scores as lists and mappings, classes met in one part only) and ran
``reportgen run`` and ``reportgen validate`` with every engine, comparing metrics.json (the run
block aside) or the one error line. Each test here is the smallest input that reproduced one
cause.
"""

from __future__ import annotations

import decimal
import json
import sys
from pathlib import Path

import numpy as np
import pandas as pd
import pyarrow as pa
import pyarrow.parquet as pq
import pytest

from reportgen import cli

sys.path.insert(0, str(Path(__file__).parent))
from docdiff import first_difference
from test_bad_input_parity import ENGINES, config, rows
from test_engine_parity_credit import refused_alike_by_validate


def documents(cfg: Path, scheduler: str, capsys, engines: tuple[str, ...] = ENGINES) -> dict[str, dict]:
    """Each engine's metrics.json minus ``run`` (every run exits 0, and ``validate`` says OK)."""
    docs = {}
    for engine in engines:
        out = cfg.parent / f"o_{engine}"
        extra = ["--scheduler", scheduler] if engine == "dask" else []
        args = [
            "run",
            str(cfg),
            "--engine",
            engine,
            "--out",
            str(out),
            "--overwrite",
            "--quiet",
            "--now",
            "2026-01-01T00:00:00",
            *extra,
        ]
        assert cli.main(args) == 0, f"{engine}: {capsys.readouterr().err}"
        validate = ["validate", str(cfg), "--quiet", "--set", f"engine={engine}"]
        validate += ["--set", f"scheduler={scheduler}"] if engine == "dask" else []
        assert cli.main(validate) == 0, f"validate {engine}: {capsys.readouterr().err}"
        doc = json.loads((out / "metrics.json").read_text(encoding="utf-8"))
        doc.pop("run")
        doc.pop("digest", None)  # a digest of the whole document, run included
        docs[engine] = doc
    return docs


def same_documents(docs: dict[str, dict]) -> dict:
    """Every engine's document equals memory's; memory's."""
    for engine, doc in docs.items():
        assert first_difference(docs["memory"], doc) is None, engine
    return docs["memory"]


# --- a boolean label column and `positive` -----------------------------------------------------


@pytest.mark.parametrize("positive", [1, True, "true", "1"], ids=["1", "yes", "'true'", "'1'"])
def test_a_boolean_label_column_takes_positive_1_or_true_alike(positive, tmp_path, scheduler, capsys):
    """A Parquet boolean label (or true / false written in a CSV) has the keys 'True' / 'False':
    ``positive: 1`` — the default — was refused in every engine ("no row has the positive label 1
    (labels found: 'False', 'True')") while ``positive: true`` ran. 1 is true (as in Python and
    SQL): every spelling now gives the numbers of the same labels written 0 / 1."""
    t = rows(30)
    t.to_parquet(tmp_path / "a.parquet", index=False)
    want = same_documents(
        documents(config(tmp_path, [{"name": "a", "file": "a.parquet", "score": "s"}]), scheduler, capsys, ("memory",))
    )
    t.assign(y=t["y"].astype(bool)).to_parquet(tmp_path / "a.parquet", index=False)
    t.assign(y=np.where(t["y"] == 1, "TRUE", "false")).to_csv(tmp_path / "a.csv", index=False)
    for file in ("a.parquet", "a.csv"):
        cfg = config(tmp_path, [{"name": "a", "file": file, "score": "s"}], positive=positive)
        got = same_documents(documents(cfg, scheduler, capsys))
        got["models"]["a"]["file"] = want["models"]["a"]["file"]
        assert first_difference(want, got) is None, file


def test_positive_0_of_a_boolean_label_is_false_and_both_twins_are_refused(tmp_path, scheduler, capsys):
    """``positive: 0`` names False; a column holding both '1' and 'true' (two labels that are each
    the positive label) is one line in every engine, not "every row is positive"."""
    t = rows(30)
    t.assign(y=t["y"].astype(bool)).to_parquet(tmp_path / "a.parquet", index=False)
    doc = same_documents(
        documents(
            config(tmp_path, [{"name": "a", "file": "a.parquet", "score": "s"}], positive=0),
            scheduler,
            capsys,
            ("memory", "stream"),
        )
    )
    assert doc["models"]["a"]["positives"] == 15
    t.assign(y=np.where(t["y"] == 1, "1", "true")).to_csv(tmp_path / "a.csv", index=False)
    line = refused_alike_by_validate(
        config(tmp_path, [{"name": "a", "file": "a.csv", "score": "s"}]), scheduler, capsys
    )
    assert line.endswith(
        "a.csv: column 'y': labels '1', 'True' both read as the positive label 1 (1 is true); "
        "write the labels one way (1 / 0 or true / false)"
    ), line


def test_a_boolean_label_file_joins_a_0_1_file_by_id(tmp_path, scheduler, capsys):
    """One model's file holds Parquet booleans, the other's 0 / 1 in a CSV, joined by id in
    another order: the truths agree row by row (positive: 1 is True in one, 1 in the other)."""
    t = rows(30)
    t.assign(y=t["y"].astype(bool)).to_parquet(tmp_path / "a.parquet", index=False)
    t.iloc[::-1].to_csv(tmp_path / "b.csv", index=False)
    cfg = config(
        tmp_path,
        [{"name": "a", "file": "a.parquet", "score": "s"}, {"name": "b", "file": "b.csv", "score": "s"}],
        id="id",
    )
    doc = same_documents(documents(cfg, scheduler, capsys))
    assert doc["models"]["a"]["positives"] == doc["models"]["b"]["positives"] == 15


# --- the multiclass cap on distinct scores, after every bad row -----------------------------------


def _class_rows(parts: int, rows_per_part: int, seed: int = 5) -> pd.DataFrame:
    """Multiclass rows: classes a/b/c, a score column per class (about 100 distinct scores each),
    as text so that one can be made bad."""
    rng = np.random.default_rng(seed)
    n = parts * rows_per_part
    p = np.round(rng.dirichlet(np.ones(3), n), 2)
    return pd.DataFrame(
        {
            "y": np.array(["a", "b", "c"], dtype=object)[np.arange(n) % 3],
            "pa": p[:, 0].astype(str),
            "pb": p[:, 1].astype(str),
            "pc": p[:, 2].astype(str),
        }
    )


def _write_parts(tmp: Path, t: pd.DataFrame, rows_per_part: int) -> str:
    (tmp / "ds").mkdir()
    for k, lo in enumerate(range(0, len(t), rows_per_part)):
        t.iloc[lo : lo + rows_per_part].to_parquet(tmp / "ds" / f"p{k:02d}.parquet", index=False)
    return "ds"


def test_a_bad_row_comes_before_the_multiclass_cap_on_distinct_scores(tmp_path, scheduler, capsys):
    """A multiclass model past ``stream.max_distinct_scores`` (an error: streamed class tables are
    not binned) and a non-numeric score in the last of ten parts: memory (no cap) named the row;
    stream merged its tables every eight batches and raised the cap there, before the row; Dask
    raised the cap of whichever part passed it (found by fuzzing: three engines, three orders). A
    column past the cap now stays past it while the rest is read, and the cap is raised with the
    whole-file rules, after every bad row, in every engine."""
    t = _class_rows(10, 60)
    t.loc[575, "pb"] = "high"  # not "n/a": a missing value when stored as text too
    data = _write_parts(tmp_path, t, 60)
    models = [{"name": "m", "file": data, "scores": {"a": "pa", "b": "pb", "c": "pc"}}]
    cfg = config(tmp_path, models, task="multiclass", stream={"batch_rows": 1000, "max_distinct_scores": 100})
    line = refused_alike_by_validate(cfg, scheduler, capsys)
    assert line.endswith("ds: column 'pb', row 577: non-numeric value 'high'; expected a number"), line

    t.loc[575, "pb"] = "0.5"  # no bad row: the cap, in the engines that have one (memory has none)
    t.iloc[540:].to_parquet(tmp_path / "ds" / "p09.parquet", index=False)
    for engine in ("stream", "dask"):
        extra = ["--scheduler", scheduler] if engine == "dask" else []
        code = cli.main(
            ["run", str(cfg), "--engine", engine, "--out", str(tmp_path / "o"), "--overwrite", "--quiet", *extra]
        )
        err = capsys.readouterr().err.strip()
        assert code == 2 and err.endswith(
            "ds: column 'pa' (model 'm') has more than 100 distinct scores; streamed multiclass "
            "tables are not binned: round the scores (e.g. to 6 decimals) or raise "
            "'stream.max_distinct_scores'"
        ), (engine, err)


# --- Parquet parts whose types differ: each part's values as the part read alone gives them --------


def _decimals(values: np.ndarray) -> pa.Array:
    return pa.array([decimal.Decimal(f"{v:.2f}") for v in values], pa.decimal128(10, 2))


@pytest.mark.parametrize(
    "first, second",
    [
        # memory and stream cast the decimals to float64 in arrow: 0.57 became 0.5700000000000001 (a
        # threshold, the KS threshold), where Dask reading the part alone had 0.57
        (lambda s: pa.array(s), _decimals),
        # text in one part, float32 in the next: read as text, the float32 spelled "0.41" where Dask had
        # the float64 0.4099999964237213 (another AUC)
        (lambda s: pa.array([f"{v:.2f}" for v in s]), lambda s: pa.array(s.astype(np.float32))),
        # a boolean score (a rule's flag, 1 / 0 in a part read alone) beside text scores: "non-numeric
        # value 'true'" in memory and stream, exit 0 in Dask
        (lambda s: pa.array([f"{v:.2f}" for v in s]), lambda s: pa.array(s > 0.5)),
    ],
    ids=["float64 then decimal", "text then float32", "text then boolean"],
)
def test_parquet_parts_of_other_score_types_read_as_each_part_alone(first, second, tmp_path, scheduler, capsys):
    rng = np.random.default_rng(4)
    (tmp_path / "ds").mkdir()
    for k, make in enumerate((first, second)):
        s = np.round(rng.random(20), 2)
        pq.write_table(pa.table({"y": np.arange(20) % 2, "s": make(s)}), tmp_path / "ds" / f"p{k}.parquet")
    cfg = config(tmp_path, [{"name": "a", "file": "ds", "score": "s"}])
    same_documents(documents(cfg, scheduler, capsys))


def test_float_ids_of_one_part_beside_text_ids_of_another_join_by_their_digits(tmp_path, scheduler, capsys):
    """Ids as text in one part and as float64 in the next (1.1e18, 1.2e18, …): read as text, pyarrow
    spelled the floats '1.1e+18', not the digits a part read alone gives ('1100000000000000000'), so
    memory and stream found no id in common with the other model's file where Dask joined them."""
    (tmp_path / "ds").mkdir()
    ids = [str(i * 10**17) for i in range(1, 21)]
    t = rows(20)
    pq.write_table(pa.table({"id": ids[:10], "y": t.y[:10], "s": t.s[:10]}), tmp_path / "ds" / "p0.parquet")
    pq.write_table(
        pa.table({"id": [float(i) for i in ids[10:]], "y": t.y[10:], "s": t.s[10:]}), tmp_path / "ds" / "p1.parquet"
    )
    t.assign(id=ids).iloc[::-1].to_csv(tmp_path / "b.csv", index=False)
    cfg = config(
        tmp_path, [{"name": "a", "file": "ds", "score": "s"}, {"name": "b", "file": "b.csv", "score": "s"}], id="id"
    )
    assert same_documents(documents(cfg, scheduler, capsys))["models"]["a"]["n"] == 20


def test_a_credit_reference_labelled_0_1_beside_a_boolean_current_sample(tmp_path, scheduler, capsys):
    """The current sample's labels are Parquet booleans, its reference sample's 0 / 1 in a CSV (or
    the reverse): the reference was refused ("label '0' is not one of the current sample's labels
    ('False', 'True')") although positive: 1 names True in the one and 1 in the other. The
    section now reads the reference as it reads the same labels written as booleans."""
    rng = np.random.default_rng(7)

    def book(n: int) -> pd.DataFrame:
        s = np.round(rng.random(n), 3)
        return pd.DataFrame({"y": (rng.random(n) < s).astype(int), "s": s})

    current, reference = book(60), book(60)
    current.assign(y=current["y"].astype(bool)).to_parquet(tmp_path / "a.parquet", index=False)
    docs = {}
    for name, ref in (("ref.csv", reference), ("ref.parquet", reference.assign(y=reference["y"].astype(bool)))):
        ref.to_csv(tmp_path / name, index=False) if name.endswith(".csv") else ref.to_parquet(
            tmp_path / name, index=False
        )
        cfg = config(
            tmp_path,
            [{"name": "a", "file": "a.parquet", "score": "s", "reference": name}],
            credit={"grades": {"quantiles": 3}},
        )
        docs[name] = same_documents(documents(cfg, scheduler, capsys, ("memory", "stream")))["credit"]
    assert first_difference(docs["ref.csv"], docs["ref.parquet"]) is None
