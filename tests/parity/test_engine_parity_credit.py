"""The credit section, SQL sources, weights, id joins, labels and extreme scores agree across engines
and ``validate``: one regression test per disagreement a fuzzer found.

A throwaway fuzzer generated small cases (the credit section with grade columns and scales,
segments, dates, references and weights; Parquet datasets; SQLite sources beside the same data as
CSV; zero weights; ids of mixed types; NA-like and late third labels; ±inf, −0.0, subnormal and
huge scores) and ran ``reportgen run`` with every engine and ``reportgen validate`` with every
engine, comparing metrics.json (the run block aside) or the one error line. Each test here is the
smallest input that reproduced one cause.
"""

from __future__ import annotations

import json
import sys
from pathlib import Path

import numpy as np
import pandas as pd
import pyarrow as pa
import pyarrow.parquet as pq

from reportgen import cli

sys.path.insert(0, str(Path(__file__).parent))
from docdiff import first_difference
from test_bad_input_parity import ENGINES, config, rows, same_everywhere


def refused_alike_by_validate(cfg: Path, scheduler: str, capsys) -> str:
    """Every engine's run and every engine's ``validate`` refuse ``cfg`` with one identical line."""
    line = same_everywhere(cfg, scheduler, capsys)
    for engine in ENGINES:
        extra = ["--set", f"scheduler={scheduler}"] if engine == "dask" else []
        assert cli.main(["validate", str(cfg), "--quiet", "--set", f"engine={engine}", *extra]) == 2, engine
        assert capsys.readouterr().err.strip() == line, engine
    return line


def _book(n: int = 2_500, seed: int = 1) -> pd.DataFrame:
    rng = np.random.default_rng(seed)
    s = np.round(rng.random(n), 3)
    return pd.DataFrame(
        {
            "id": np.arange(1, n + 1),
            "y": (rng.random(n) < s).astype(int),
            "s": s,
            "d": "2024-01-05",
            "seg": np.where(rng.random(n) < 0.5, "retail", "sme"),
        }
    )


def test_a_credit_column_s_bad_value_in_a_later_parquet_batch_is_numbered_in_the_file(tmp_path, scheduler, capsys):
    """A PD column of text with 'abc' in the second batch of a Parquet file (and a bad date in the
    third batch of a reference sample): the credit section's reader numbered the row within its
    batch in stream and dask ('row 502', 'row 702') where memory named the file's row 1502 / 1702
    (the number and date parsers were not told the batch's offset)."""
    book = _book()
    book["pd"] = book["s"].astype(str)
    book.loc[1500, "pd"] = "abc"
    book.to_parquet(tmp_path / "a.parquet", index=False)
    cfg = config(
        tmp_path, [{"name": "a", "file": "a.parquet", "score": "s", "pd": "pd"}], credit={"grades": {"quantiles": 4}}
    )
    line = refused_alike_by_validate(cfg, scheduler, capsys)
    assert line.endswith("a.parquet: column 'pd', row 1502: non-numeric value 'abc'; expected a number"), line

    ref = _book(seed=2)
    ref.loc[1700, "d"] = "2024-02-30"
    ref.to_parquet(tmp_path / "ref.parquet", index=False)
    cfg = config(
        tmp_path,
        [{"name": "a", "file": "a.parquet", "score": "s", "reference": "ref.parquet"}],
        credit={"grades": {"quantiles": 4}},
        date="d",
    )
    _book().to_parquet(tmp_path / "a.parquet", index=False)
    line = refused_alike_by_validate(cfg, scheduler, capsys)
    assert "ref.parquet: column 'd', row 1702: '2024-02-30' is not a date in ISO 8601 form" in line, line


def test_validate_reads_every_batch_of_the_credit_section_s_small_inputs(tmp_path, scheduler, capsys):
    """A missing segment in the second batch: every run refuses it, and ``validate`` with engine
    stream or dask said OK: the data's check reads every row of small inputs, but the credit
    section's checked only the first batch of each file (found by fuzzing)."""
    book = _book()
    book.loc[1400, "seg"] = None
    book.to_parquet(tmp_path / "a.parquet", index=False)  # read in batches of 1,000 rows
    cfg = config(
        tmp_path, [{"name": "a", "file": "a.parquet", "score": "s"}], credit={"grades": {"quantiles": 4}}, segment="seg"
    )
    line = refused_alike_by_validate(cfg, scheduler, capsys)
    assert line.endswith(
        "a.parquet: column 'seg', row 1402: missing value; fill it in, or set 'missing: drop' to drop such rows"
    )


def test_validate_of_pd_edges_follows_the_run_s_rule_for_a_score_taken_as_the_pd(tmp_path, scheduler, capsys):
    """Grades by PD edges, a model without a PD column whose scores are probabilities, a reference
    sample whose scores are not: a run takes no PD from the score (the two samples would be on
    other scales) and refuses the edges; ``validate`` looked at the current sample only and said OK."""
    _book(40).to_csv(tmp_path / "a.csv", index=False)
    _book(40, seed=2).assign(s=lambda t: t["s"] * 100).to_csv(tmp_path / "ref.csv", index=False)
    cfg = config(
        tmp_path,
        [{"name": "a", "file": "a.csv", "score": "s", "reference": "ref.csv"}],
        credit={"grades": {"edges": [0.1, 0.5]}},
    )
    line = refused_alike_by_validate(cfg, scheduler, capsys)
    assert "PD edges need a PD, and model 'a' has none" in line, line


def test_a_reference_sample_of_zero_frequency_weights_is_named_alike(tmp_path, scheduler, capsys):
    """Every frequency weight of a reference sample 0: memory said "every weight is 0, so the credit
    section has no obligors", stream and dask "no rows left … after dropping rows with missing
    values" (no row was missing)."""
    _book(40).assign(w=1).to_csv(tmp_path / "a.csv", index=False)
    _book(40, seed=2).assign(w=0).to_csv(tmp_path / "ref.csv", index=False)
    cfg = config(
        tmp_path,
        [{"name": "a", "file": "a.csv", "score": "s", "reference": "ref.csv"}],
        credit={"grades": {"quantiles": 4}},
        weight="w",
        weight_kind="frequency",
    )
    line = refused_alike_by_validate(cfg, scheduler, capsys)
    assert line.endswith("ref.csv: column 'w': every weight is 0, so the credit section has no obligors"), line


def test_a_reference_sample_s_labels_are_the_current_sample_s(tmp_path, scheduler, capsys):
    """The reference sample's labels were never checked: a third label '2' counted as no default,
    and a reference labelled 'good'/'bad' against the data's 0/1 (positive: 1) had no default at
    all, its PSI, AUC and default rate computed from it, exit 0 in every engine."""
    _book(40).to_csv(tmp_path / "a.csv", index=False)
    ref = _book(40, seed=2)
    ref.loc[30, "y"] = 2
    ref.to_csv(tmp_path / "ref.csv", index=False)
    cfg = config(
        tmp_path,
        [{"name": "a", "file": "a.csv", "score": "s", "reference": "ref.csv"}],
        credit={"grades": {"quantiles": 4}},
    )
    line = refused_alike_by_validate(cfg, scheduler, capsys)
    assert line.endswith(
        "ref.csv: column 'y', row 32: label '2' is not one of the current sample's labels ('0', '1'); "
        "label the reference sample with the same labels"
    ), line
    ref["y"] = np.where(ref["y"] == 1, "bad", "good")
    ref.to_csv(tmp_path / "ref.csv", index=False)
    line = refused_alike_by_validate(cfg, scheduler, capsys)
    assert "ref.csv: column 'y', row 2: label 'good' is not one of the current sample's labels" in line, line


def test_a_third_label_met_only_across_parts_comes_before_the_id_join_s_fault(tmp_path, scheduler, capsys):
    """A dataset whose parts hold labels True/False and 0/1 (Parquet booleans in one part, integers
    in the next: three labels between them, two in each part), and a second model joined by id
    whose file keeps True/False: memory and stream stop at the dataset's row 12 (its third label);
    dask read every part without a fault and raised the id join's "the label of id '11' differs"
    (found by fuzzing parts of mixed types)."""
    first, second = rows(10), rows(10, start=11)
    (tmp_path / "ds" / "k=0").mkdir(parents=True)
    (tmp_path / "ds" / "k=1").mkdir()
    pq.write_table(
        pa.Table.from_pandas(first.assign(y=first["y"].astype(bool)), preserve_index=False),
        tmp_path / "ds" / "k=0" / "p.parquet",
    )
    pq.write_table(pa.Table.from_pandas(second, preserve_index=False), tmp_path / "ds" / "k=1" / "p.parquet")
    both = pd.concat([first, second], ignore_index=True)
    both.assign(y=both["y"].astype(bool)).to_csv(tmp_path / "b.csv", index=False)
    cfg = config(
        tmp_path,
        [{"name": "a", "file": "ds", "score": "s"}, {"name": "b", "file": "b.csv", "score": "s"}],
        id="id",
        positive=True,
    )
    line = refused_alike_by_validate(cfg, scheduler, capsys)
    assert "ds: column 'y', row 12: a third distinct label '1'" in line, line


def test_a_missing_id_drops_the_row_from_the_credit_section_in_every_engine(tmp_path, scheduler, capsys):
    """The streamed and Dask credit reader did not read the id column (it keeps no ids), so a row
    with a missing id stayed in the section under ``missing: drop`` (n 40 where memory, and the
    metrics, had 39), and a reference sample's missing id was an error in memory only."""
    book = _book(40)
    book["id"] = book["id"].astype(object)
    book.loc[3, "id"] = None
    book.to_csv(tmp_path / "a.csv", index=False)
    cfg = config(
        tmp_path,
        [{"name": "a", "file": "a.csv", "score": "s"}],
        credit={"grades": {"quantiles": 4}},
        id="id",
        missing="drop",
    )
    docs = {}
    for engine in ENGINES:
        args = [
            "run",
            str(cfg),
            "--engine",
            engine,
            "--out",
            str(tmp_path / f"o_{engine}"),
            "--overwrite",
            "--quiet",
            "--now",
            "2026-01-01T00:00:00",
        ] + (["--scheduler", scheduler] if engine == "dask" else [])
        assert cli.main(args) == 0, capsys.readouterr().err
        docs[engine] = json.loads((tmp_path / f"o_{engine}" / "metrics.json").read_text(encoding="utf-8"))["credit"]
    assert docs["memory"]["models"]["a"]["n"] == 39
    for engine in ("stream", "dask"):
        assert first_difference(docs["memory"], docs[engine]) is None, engine

    _book(40).to_csv(tmp_path / "a.csv", index=False)
    book.to_csv(tmp_path / "ref.csv", index=False)
    cfg = config(
        tmp_path,
        [{"name": "a", "file": "a.csv", "score": "s", "reference": "ref.csv"}],
        credit={"grades": {"quantiles": 4}},
        id="id",
    )
    line = refused_alike_by_validate(cfg, scheduler, capsys)
    assert line.endswith(
        "ref.csv: column 'id', row 5: missing value; fill it in, or set 'missing: drop' to drop such rows"
    ), line


def test_delong_of_models_in_one_file_does_not_depend_on_the_batches(tmp_path, scheduler, capsys):
    """Two models scored in one Parquet file of 2,200 rows: memory summed DeLong's cross-moments
    over every row at once, stream per batch of 1,000 rows and dask per part, so the DeLong
    standard error and interval of the difference differed in their last bits (found by fuzzing
    Parquet types; half the cases of models sharing a file). The sums are now taken per range of
    common rows in every engine."""
    rng = np.random.default_rng(2)
    n = 2_200
    y = (rng.random(n) < 0.3).astype(int)
    t = pd.DataFrame(
        {
            "id": np.arange(n),
            "y": y,
            "s": np.round(rng.random(n), 4),
            "s2": np.round(np.clip(rng.random(n) * 0.7 + 0.3 * y, 0, 1), 4),
        }
    )
    t.to_parquet(tmp_path / "a.parquet", index=False)  # read in batches of 1,000
    (tmp_path / "ds").mkdir()
    for k, lo in enumerate((0, 700, 1_900)):
        t.iloc[lo : {0: 700, 700: 1_900, 1_900: n}[lo]].to_parquet(tmp_path / "ds" / f"p{k}.parquet", index=False)
    for data in ("a.parquet", "ds"):
        cfg = config(
            tmp_path,
            [
                {"name": "a", "file": data, "score": "s"},
                {"name": "b", "file": data, "score": "s2"},
                {"name": "c", "file": data, "score": "s", "direction": "lower"},
            ],
        )
        docs = {}
        for engine in ENGINES:
            out = tmp_path / f"o_{engine}"
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
            ] + (["--scheduler", scheduler] if engine == "dask" else [])
            assert cli.main(args) == 0, capsys.readouterr().err
            doc = json.loads((out / "metrics.json").read_text(encoding="utf-8"))
            doc.pop("run")
            doc.pop("digest", None)  # a digest of the whole document, run included
            docs[engine] = doc
        for engine in ("stream", "dask"):
            assert first_difference(docs["memory"], docs[engine]) is None, (data, engine)


def test_a_row_without_a_sampling_weight_is_left_out_of_the_credit_section_too(tmp_path, scheduler, capsys):
    """Sampling weights are not applied in the credit section, so it did not read them: under
    ``missing: drop`` a row with a missing weight, dropped from the metrics (n 39), stayed in the
    section (n 40), in every engine."""
    book = _book(40).assign(w=1.0)
    book.loc[5, "w"] = np.nan
    book.to_csv(tmp_path / "a.csv", index=False)
    cfg = config(
        tmp_path,
        [{"name": "a", "file": "a.csv", "score": "s"}],
        credit={"grades": {"quantiles": 4}},
        weight="w",
        missing="drop",
    )
    for engine in ENGINES:
        args = [
            "run",
            str(cfg),
            "--engine",
            engine,
            "--out",
            str(tmp_path / f"o_{engine}"),
            "--overwrite",
            "--quiet",
            "--now",
            "2026-01-01T00:00:00",
        ] + (["--scheduler", scheduler] if engine == "dask" else [])
        assert cli.main(args) == 0, capsys.readouterr().err
        doc = json.loads((tmp_path / f"o_{engine}" / "metrics.json").read_text(encoding="utf-8"))
        assert doc["models"]["a"]["n"] == doc["credit"]["models"]["a"]["n"] == 39, engine
