"""Every bad input gives the same exit code and the same one-line message in every engine.

Each case writes small files and a config into ``tmp_path`` and runs ``reportgen run`` through
``reportgen.cli.main`` with ``--engine memory``, ``stream`` and ``dask`` (one LocalCluster per
module, passed as ``--scheduler``). The stderr lines must be identical. Regression tests for the
disagreements of issue 15 are named after what broke.
"""

from __future__ import annotations

import json
import os
from pathlib import Path

import numpy as np
import pandas as pd
import pyarrow as pa
import pyarrow.parquet as pq
import pytest
import yaml

from reportgen import cli

ENGINES = ("memory", "stream", "dask")


def rows(n: int = 20, seed: int = 1, start: int = 1) -> pd.DataFrame:
    """``n`` rows of id, alternating 0/1 label and a score in [0, 1)."""
    rng = np.random.default_rng(seed)
    ids = np.arange(start, start + n)
    return pd.DataFrame({"id": ids, "y": ids % 2, "s": np.round(rng.random(n), 3)})


def config(tmp: Path, models: list[dict], **extra) -> Path:
    cfg = {
        "title": "t",
        "label": "y",
        "bootstrap": {"resamples": 0},
        "output": {"formats": ["json"]},
        "stream": {"batch_rows": 1000},
        **extra,
        "models": models,
    }
    path = tmp / "run.yaml"
    path.write_text(yaml.safe_dump(cfg, sort_keys=False), encoding="utf-8")
    return path


def two_models(tmp: Path, a: pd.DataFrame, b: pd.DataFrame, **extra) -> Path:
    a.to_csv(tmp / "a.csv", index=False)
    b.to_csv(tmp / "b.csv", index=False)
    return config(
        tmp, [{"name": "a", "file": "a.csv", "score": "s"}, {"name": "b", "file": "b.csv", "score": "s"}], **extra
    )


def run(cfg: Path, engine: str, scheduler: str, capsys) -> tuple[int, str, Path]:
    """(exit code, stderr, output dir) of ``reportgen run`` with ``engine``."""
    out = cfg.parent / f"out_{engine}"
    args = ["run", str(cfg), "--engine", engine, "--out", str(out), "--overwrite", "--quiet"]
    if engine == "dask":
        args += ["--scheduler", scheduler]
    code = cli.main(args)
    return code, capsys.readouterr().err.strip(), out


def same_everywhere(cfg: Path, scheduler: str, capsys, code: int = 2) -> str:
    """Run every engine; assert one exit code and one identical stderr line; return the line."""
    seen = {}
    for engine in ENGINES:
        got, err, _ = run(cfg, engine, scheduler, capsys)
        assert got == code, f"{engine}: exit {got}: {err}"
        seen[engine] = err
    assert seen["stream"] == seen["memory"], seen
    assert seen["dask"] == seen["memory"], seen
    if code == 2:
        assert len(seen["memory"].splitlines()) == 1 and "Traceback" not in seen["memory"]
    return seen["memory"]


def metrics(out: Path) -> dict:
    return json.loads((out / "metrics.json").read_text(encoding="utf-8"))


# --- the id join ----------------------------------------------------------------------------


@pytest.mark.slow
def test_stream_and_dask_refuse_files_with_no_id_in_common(tmp_path, scheduler, capsys):
    """With id: set, stream and dask ignored the join and compared unrelated rows (exit 0)."""
    cfg = two_models(tmp_path, rows(), rows(start=101), id="id")
    line = same_everywhere(cfg, scheduler, capsys)
    assert "not shared by every model" in line and "id_mismatch: intersect" in line


def test_stream_and_dask_refuse_contradicting_labels_for_one_id(tmp_path, scheduler, capsys):
    """Same ids, reversed order, one label flipped: stream and dask exited 0."""
    b = rows(seed=2).iloc[::-1].reset_index(drop=True)
    b.loc[b["id"] == 7, "y"] = 0
    cfg = two_models(tmp_path, rows(), b, id="id")
    line = same_everywhere(cfg, scheduler, capsys)
    assert "the label of id '7' differs from model 'a'" in line


def test_stream_and_dask_check_id_mismatch_error(tmp_path, scheduler, capsys):
    """Ids missing from one model: id_mismatch: error was never checked by stream and dask."""
    cfg = two_models(tmp_path, rows(), rows(seed=2).iloc[:15], id="id")
    line = same_everywhere(cfg, scheduler, capsys)
    assert "model 'a' has 5 id(s) not shared by every model" in line


def test_id_mismatch_intersect_compares_the_shared_ids_in_every_engine(tmp_path, scheduler, capsys):
    """intersect keeps the shared ids (and says how many rows were left out), in every engine."""
    b = rows(40, seed=2).iloc[5:].sample(frac=1, random_state=3)  # ids 6..40, shuffled
    cfg = two_models(tmp_path, rows(30), b, id="id", id_mismatch="intersect")
    results = {}
    for engine in ENGINES:
        code, err, out = run(cfg, engine, scheduler, capsys)
        assert code == 0, err
        results[engine] = metrics(out)
    for engine in ("stream", "dask"):
        for name in ("a", "b"):
            assert (
                results[engine]["models"][name]["metrics"]["roc_auc"]
                == results["memory"]["models"][name]["metrics"]["roc_auc"]
            )
        w = results[engine]["run"]["warnings"]
        assert "model 'a': 5 row(s) whose id is not in every model were dropped" in w
        assert "model 'b': 10 row(s) whose id is not in every model were dropped" in w


def _paired_facts(doc: dict) -> tuple:
    """What the paired tests of the first comparison say, with the pairing facts of the run."""
    c = doc["comparisons"][0]
    delong, mcnemar = c["tests"]["delong"], c["tests"]["mcnemar"]
    return (
        delong and round(delong["p_value"], 12),
        delong and delong["paired"],
        mcnemar and mcnemar["statistic"],
        # McNemar's p with the comparison at equal approval rate (counted in every paired pass)
        (mcnemar and mcnemar["p_value"], c.get("approval")),
        c.get("capabilities") or {},
        doc["run"]["paired"],
        doc["run"]["dropped"],
        {n: m["n"] for n, m in doc["models"].items()},
    )


def _same_pairing(cfg: Path, scheduler: str, capsys) -> tuple:
    """Run every engine (exit 0); the paired facts must be equal; return memory's."""
    seen = {}
    for engine in ENGINES:
        code, err, out = run(cfg, engine, scheduler, capsys)
        assert code == 0, f"{engine}: {err}"
        seen[engine] = _paired_facts(metrics(out))
    assert seen["stream"] == seen["memory"], seen
    assert seen["dask"] == seen["memory"], seen
    return seen["memory"]


def test_files_joined_by_id_in_any_order_are_paired_in_every_engine(tmp_path, scheduler, capsys):
    """Shuffled ids: stream said 'id_order' and dask 'separate_files' (no DeLong, no McNemar);
    memory paired them. Every engine now pairs by id, with memory's numbers."""
    b = rows(seed=2).sample(frac=1, random_state=4)
    cfg = two_models(tmp_path, rows(), b, id="id")
    p_delong, paired, _stat, _p, caps, run_paired, dropped, n = _same_pairing(cfg, scheduler, capsys)
    assert paired is True and run_paired is True and not caps and not dropped and n == {"a": 20, "b": 20}
    assert p_delong is not None


@pytest.mark.slow
def test_files_of_different_lengths_without_id_are_two_samples_in_every_engine(tmp_path, scheduler, capsys):
    """No id and 40 rows against 37: memory refused (exit 2, 'set id'), stream and dask compared
    the two samples unpaired. One rule now: two samples, unpaired tests, reason lengths_differ."""
    cfg = two_models(tmp_path, rows(40), rows(37, seed=2))
    _pd, paired, _s, _p, caps, run_paired, dropped, n = _same_pairing(cfg, scheduler, capsys)
    assert paired is False and run_paired is False and n == {"a": 40, "b": 37} and not dropped
    assert caps["delong_paired"] == "lengths_differ" and caps["mcnemar"] == "lengths_differ"
    outs = {e: metrics(tmp_path / f"out_{e}") for e in ENGINES}
    for e in ("stream", "dask"):
        assert {k: v for k, v in outs[e].items() if k not in ("run", "digest")} == {
            k: v for k, v in outs["memory"].items() if k not in ("run", "digest")
        }, e


@pytest.mark.slow
def test_missing_drop_with_id_keeps_the_rows_every_model_keeps(tmp_path, scheduler, capsys):
    """missing: drop with id: memory failed on the ids it dropped itself ('not shared by every
    model'); stream/dask did not pair. Now: the shared ids, paired, every left-out row counted."""
    a, b = rows(40), rows(40, seed=2).sample(frac=1, random_state=5)
    a.loc[[2, 9], "s"] = np.nan
    b.loc[b["id"].isin([4, 9, 30]), "s"] = np.nan
    cfg = two_models(tmp_path, a, b, id="id", missing="drop")
    _pd, paired, _s, _p, _c, run_paired, dropped, n = _same_pairing(cfg, scheduler, capsys)
    assert paired is True and run_paired is True and n == {"a": 35, "b": 35}  # ids 3, 10 (a), 4, 9, 30 (b) out
    assert {(d["model"], d["reason"], d["rows"]) for d in dropped} == {
        ("a", "missing or non-finite score in 's'", 2),
        ("b", "missing or non-finite score in 's'", 3),
        ("a", "dropped for another model (missing value)", 3),
        ("b", "dropped for another model (missing value)", 2),
    }


def test_missing_drop_without_id_drops_a_row_for_every_model(tmp_path, scheduler, capsys):
    """Files matched by position, each with its own missing scores: memory refused ('has 38 rows
    but …'), stream/dask did not pair. Now a row missing in any model is dropped for all."""
    a, b = rows(40), rows(40, seed=2)
    a.loc[[2, 9], "s"] = np.nan
    b.loc[[9, 30], "s"] = np.nan
    cfg = two_models(tmp_path, a, b, missing="drop")
    _pd, paired, _s, _p, _c, run_paired, dropped, n = _same_pairing(cfg, scheduler, capsys)
    assert paired is True and run_paired is True and n == {"a": 37, "b": 37}
    assert {(d["model"], d["reason"], d["rows"]) for d in dropped} >= {
        ("a", "dropped for another model (missing value)", 1),
        ("b", "dropped for another model (missing value)", 1),
    }


def test_intersect_with_no_shared_id_is_one_line_exit_2(tmp_path, scheduler, capsys):
    """id_mismatch: intersect with no id in common crashed with exit 1 (nothing left to compare)."""
    cfg = two_models(tmp_path, rows(), rows(start=101), id="id", id_mismatch="intersect")
    line = same_everywhere(cfg, scheduler, capsys)
    assert "no id is kept by every model ('a', 'b')" in line


def test_intersect_leaving_one_class_is_one_line_exit_2(tmp_path, scheduler, capsys):
    """The shared ids are all of one class: a one-line error, not metrics of a single class."""
    b = pd.concat([rows(30).iloc[1:16:2], rows(4, start=101)])  # shared: ids 2, 4, …, 16, all label 0
    cfg = two_models(tmp_path, rows(30), b, id="id", id_mismatch="intersect")
    line = same_everywhere(cfg, scheduler, capsys)
    assert "every one of the 8 rows kept by every model ('a', 'b') has the same label (negative)" in line


def test_multiclass_files_joined_by_id_in_any_order_are_paired_in_every_engine(tmp_path, scheduler, capsys):
    """Multiclass, shuffled ids, a drop in one model: McNemar on the rows both keep, everywhere."""
    rng = np.random.default_rng(3)
    n = 60
    df = pd.DataFrame(
        {
            "id": np.arange(n),
            "y": rng.choice(["lo", "mid", "hi"], n),
            "p": rng.choice(["lo", "mid", "hi"], n),
            "q": rng.choice(["lo", "mid", "hi"], n),
        }
    )
    a, b = df[["id", "y", "p"]].copy(), df[["id", "y", "q"]].sample(frac=1, random_state=2)
    a.loc[[5, 7], "p"] = None
    a.to_csv(tmp_path / "a.csv", index=False)
    b.to_csv(tmp_path / "b.csv", index=False)
    cfg = config(
        tmp_path,
        [{"name": "a", "file": "a.csv", "prediction": "p"}, {"name": "b", "file": "b.csv", "prediction": "q"}],
        task="multiclass",
        id="id",
        missing="drop",
    )
    seen = {}
    for engine in ENGINES:
        code, err, out = run(cfg, engine, scheduler, capsys)
        assert code == 0, f"{engine}: {err}"
        doc = metrics(out)
        seen[engine] = (
            doc["comparisons"][0]["tests"]["mcnemar"],
            doc["run"]["paired"],
            doc["run"]["dropped"],
            {k: m["n"] for k, m in doc["models"].items()},
        )
    assert seen["stream"] == seen["memory"] and seen["dask"] == seen["memory"], seen
    assert seen["memory"][0] is not None and seen["memory"][3] == {"a": 58, "b": 58}


# --- reading --------------------------------------------------------------------------------


@pytest.mark.slow
def test_csv_score_integral_for_the_first_block_then_decimal_is_read(tmp_path, scheduler, capsys):
    """stream and dask failed with "conversion error to int64" (type inference on the first block)."""
    n = 120_000  # past one 1 MB CSV block
    rng = np.random.default_rng(5)
    y = rng.integers(0, 2, n)
    df = pd.DataFrame({"y": y, "s": rng.integers(300, 800, n).astype(object)})
    df.loc[n - 1, "s"] = 612.5
    df.to_csv(tmp_path / "a.csv", index=False)
    cfg = config(
        tmp_path,
        [{"name": "a", "file": "a.csv", "score": "s", "direction": "lower", "threshold": 500}],
        stream={"batch_rows": 1000},
    )
    aucs = set()
    for engine in ENGINES:
        code, err, out = run(cfg, engine, scheduler, capsys)
        assert code == 0, f"{engine}: {err}"
        aucs.add(metrics(out)["models"]["a"]["metrics"]["roc_auc"])
    assert len(aucs) == 1


def test_parquet_part_without_the_score_column_is_refused(tmp_path, scheduler, capsys):
    """A part lacking the score column was read as missing values and its rows dropped."""
    d = tmp_path / "ds"
    (d / "k=0").mkdir(parents=True)
    (d / "k=1").mkdir()
    pq.write_table(pa.Table.from_pandas(rows(), preserve_index=False), d / "k=0" / "p.parquet")
    pq.write_table(
        pa.Table.from_pandas(rows(start=21).drop(columns="s"), preserve_index=False), d / "k=1" / "p.parquet"
    )
    cfg = config(tmp_path, [{"name": "a", "file": "ds", "score": "s"}], missing="drop")
    line = same_everywhere(cfg, scheduler, capsys)
    assert f"{d / 'k=1' / 'p.parquet'}: column 's' not found in this part" in line


def _repeating_s(df: pd.DataFrame) -> pa.Table:
    """``df`` as a Parquet table whose schema names the score column twice."""
    return pa.Table.from_arrays(
        [pa.array(df["id"]), pa.array(df["y"]), pa.array(df["s"]), pa.array(df["s"])], names=["id", "y", "s", "s"]
    )


@pytest.mark.parametrize("where", ["file", "first part", "later part"])
def test_parquet_naming_a_column_twice_is_refused_naming_the_file(where, tmp_path, scheduler, capsys):
    """Readers disagree on which of two same-named columns they keep. A single file was refused
    in pyarrow's words; a later part of a dataset was read (memory, stream: with either column)
    or refused (dask) — now one line naming the file everywhere, as for a CSV header."""
    if where == "file":
        pq.write_table(_repeating_s(rows()), tmp_path / "p.parquet")
        name, bad = "p.parquet", tmp_path / "p.parquet"
    else:
        d = tmp_path / "ds"
        d.mkdir()
        first, later = (_repeating_s(rows()), pa.Table.from_pandas(rows(start=21), preserve_index=False))
        if where == "later part":
            first, later = later, first
        pq.write_table(first, d / "a.parquet")
        pq.write_table(later, d / "b.parquet")
        name, bad = "ds", d / ("a.parquet" if where == "first part" else "b.parquet")
    cfg = config(tmp_path, [{"name": "a", "file": name, "score": "s"}])
    line = same_everywhere(cfg, scheduler, capsys)
    assert line.endswith(
        f"{bad}: column 's' appears 2 times in the Parquet schema; "
        "rename the duplicates so that the config names one column"
    ), line


def test_class_named_na_is_a_class_not_a_missing_label(tmp_path, scheduler, capsys):
    """Labels 'NA' became missing (and vanished under missing: drop) in some engines."""
    df = rows(30)
    df["y"] = np.where(df["id"] % 3 == 0, "yes", "NA")
    df.to_csv(tmp_path / "a.csv", index=False)
    cfg = config(tmp_path, [{"name": "a", "file": "a.csv", "score": "s"}], positive="yes", missing="drop")
    aucs = set()
    for engine in ENGINES:
        code, err, out = run(cfg, engine, scheduler, capsys)
        assert code == 0, f"{engine}: {err}"
        m = metrics(out)
        assert m["run"]["dropped"] == [] and m["run"]["files"][0]["rows"] == 30
        aucs.add(m["models"]["a"]["metrics"]["roc_auc"])
    assert len(aucs) == 1


def test_multiclass_classes_named_none_and_null_survive_in_every_engine(tmp_path, scheduler, capsys):
    """Classes 'None' / 'null' / 'NA' were read as missing labels by pyarrow's and pandas' defaults."""
    labels = np.array(["NA", "None", "null"])
    rng = np.random.default_rng(8)
    y = labels[rng.integers(0, 3, 60)]
    pred = np.where(rng.random(60) < 0.7, y, labels[rng.integers(0, 3, 60)])
    pd.DataFrame({"y": y, "p": pred}).to_csv(tmp_path / "a.csv", index=False)
    cfg = config(tmp_path, [{"name": "a", "file": "a.csv", "prediction": "p"}], task="multiclass", missing="drop")
    seen = {}
    for engine in ENGINES:
        code, err, out = run(cfg, engine, scheduler, capsys)
        assert code == 0, f"{engine}: {err}"
        m = metrics(out)
        assert m["run"]["classes"] == ["NA", "None", "null"] and m["run"]["dropped"] == []
        seen[engine] = m["models"]["a"]["metrics"]
    assert seen["stream"] == seen["memory"] == seen["dask"]


# --- row rules: one message per case ----------------------------------------------------------


def _one(tmp: Path, df: pd.DataFrame, model: dict | None = None, **extra) -> Path:
    df.to_csv(tmp / "a.csv", index=False)
    return config(tmp, [{"name": "a", "file": "a.csv", "score": "s", **(model or {})}], **extra)


def _multiclass(tmp: Path, data: dict, **extra) -> Path:
    pd.DataFrame(data).to_csv(tmp / "m.csv", index=False)
    return config(tmp, [{"name": "a", "file": "m.csv", "prediction": "p"}], task="multiclass", **extra)


def _raw(tmp: Path, text: str) -> Path:
    (tmp / "a.csv").write_text(text, encoding="utf-8")
    return config(tmp, [{"name": "a", "file": "a.csv", "score": "s"}])


def _edit(df: pd.DataFrame, row: int, column: str, value) -> pd.DataFrame:
    df = df.astype({column: object})
    df.loc[row, column] = value
    return df


@pytest.mark.parametrize(
    "case, build, words",
    [
        ("non-numeric score", lambda t: _one(t, _edit(rows(), 4, "s", "abc")), ("row 6", "non-numeric value 'abc'")),
        ("missing score", lambda t: _one(t, _edit(rows(), 4, "s", "")), ("row 6", "missing or non-finite score")),
        ("missing label", lambda t: _one(t, _edit(rows(), 4, "y", "")), ("row 6", "missing or non-finite label")),
        ("third label", lambda t: _one(t, _edit(rows(), 4, "y", 2)), ("3 distinct labels", "task: multiclass")),
        (
            "negative weight",
            lambda t: _one(t, rows().assign(w=[1.0] * 4 + [-2.0] + [1.0] * 15), weight="w"),
            ("column 'w', row 6", "negative weight -2"),
        ),
        (
            "not a probability",
            lambda t: _one(t, _edit(rows(), 4, "s", 1.5), {"probabilities": True}),
            ("row 6", "1.5 is not a probability"),
        ),
        ("duplicated id", lambda t: _one(t, _edit(rows(), 4, "id", 3), id="id"), ("row 6", "duplicated id '3'")),
        ("missing id", lambda t: _one(t, _edit(rows(), 4, "id", ""), id="id"), ("row 6", "missing id")),
        ("no positive", lambda t: _one(t, rows().assign(y=0)), ("no row has the positive label",)),
        ("header only", lambda t: _one(t, rows().iloc[:0]), ("header but no rows",)),
        (
            "unknown class",
            lambda t: _multiclass(t, {"y": ["a", "b", "c", "a"], "p": ["a", "b", "a", "a"]}, classes=["a", "b"]),
            ("row 4", "label 'c' is not one of the configured classes"),
        ),
        (
            "multiclass missing prediction",
            lambda t: _multiclass(t, {"y": ["a", "b", "a", "b"], "p": ["a", "", "a", "b"]}),
            ("row 3", "missing prediction in 'p'"),
        ),
        # memory padded a short row with a missing score and dropped a long row's extra field (exit 0);
        # stream and dask printed pyarrow's message, with a row number or without
        (
            "short row",
            lambda t: _raw(t, "id,y,s\n1,0,0.1\n2,1,0.2\n3,0\n4,1,0.4\n"),
            ("row 4", "2 fields where the header has 3"),
        ),
        # (the blank line 3 is skipped by every reader, and counted in the row named: the file's line 4)
        (
            "long row",
            lambda t: _raw(t, "id,y,s\n1,0,0.1\n\n2,1,0.2,9\n3,0,0.3\n"),
            ("row 4", "4 fields where the header has 3"),
        ),
        (
            "quote left open",
            lambda t: _raw(t, 'id,y,s\n1,0,0.1\n2,1,0.2\n3,"0,0.3\n'),
            ("row 4", "a quote is left open"),
        ),
        # every engine read the first of two 's' columns without a word
        ("repeated column", lambda t: _raw(t, "id,y,s,s\n1,0,0.1,0.9\n2,1,0.2,0.8\n"), ("column 's' appears 2 times",)),
        # a top-level column with no per-model key (date) was an AttributeError, exit 1, everywhere
        (
            "date column not in the file",
            lambda t: _one(t, rows(), date="when"),
            ("run.yaml:", "date: column 'when' not found"),
        ),
    ],
)
def test_row_rule_messages_are_identical_in_every_engine(case, build, words, tmp_path, scheduler, capsys):
    line = same_everywhere(build(tmp_path), scheduler, capsys)
    for w in words:
        assert w in line, (case, line)


def test_stream_missing_drop_with_two_models_in_one_file_runs(tmp_path, scheduler, capsys):
    """stream crashed (AttributeError: 'int' object has no attribute 'ok'): the loop over dropped
    counts rebound the row codes' name when rows were dropped and one file held both models."""
    df = rows(40)
    df["t"] = np.round(1 - df["s"], 3)
    df.loc[[3, 17], "s"] = np.nan
    df.to_csv(tmp_path / "a.csv", index=False)
    cfg = config(
        tmp_path,
        [{"name": "a", "file": "a.csv", "score": "s"}, {"name": "b", "file": "a.csv", "score": "t"}],
        missing="drop",
        id="id",
        id_mismatch="intersect",
    )
    aucs = {}
    for engine in ENGINES:
        code, err, out = run(cfg, engine, scheduler, capsys)
        assert code == 0, f"{engine}: {err}"
        doc = metrics(out)
        aucs[engine] = (doc["models"]["a"]["metrics"]["roc_auc"], doc["models"]["a"]["n"], doc["models"]["b"]["n"])
        assert doc["run"]["dropped"], engine
    assert aucs["stream"] == aucs["memory"] == aucs["dask"]


# --- inputs that would hang or escape (issue 18) ----------------------------------------------


def test_fifo_as_input_is_refused_not_waited_on(tmp_path, scheduler, capsys):
    """A FIFO named as the data file blocked every engine forever."""
    import os

    os.mkfifo(tmp_path / "a.csv")
    cfg = config(tmp_path, [{"name": "a", "file": "a.csv", "score": "s"}])
    line = same_everywhere(cfg, scheduler, capsys)
    assert "not a regular file (a FIFO, socket or device)" in line


def test_symlink_loop_in_a_parquet_directory_is_refused(tmp_path, scheduler, capsys):
    """A symlink to the parent inside a dataset: pyarrow walked into the loop (internal error)."""
    (tmp_path / "ds").mkdir()
    rows(40).to_parquet(tmp_path / "ds" / "part-0.parquet")
    (tmp_path / "ds" / "loop").symlink_to("..")
    cfg = config(tmp_path, [{"name": "a", "file": "ds", "score": "s"}])
    line = same_everywhere(cfg, scheduler, capsys)
    assert "ds/loop: a symlink to a directory inside the dataset" in line


def test_day_month_dates_with_every_day_at_most_12_are_refused_not_swapped(tmp_path, scheduler, capsys):
    """'03/04/2026' was read month-first: dd/mm dates with every day ≤ 12 swapped on the title page."""
    df = rows(20)
    df["d"] = [f"{(i % 12) + 1:02d}/04/2026" for i in range(20)]
    df.to_csv(tmp_path / "a.csv", index=False)
    cfg = config(tmp_path, [{"name": "a", "file": "a.csv", "score": "s"}], date="d")
    line = same_everywhere(cfg, scheduler, capsys)
    assert "column 'd', row 2: '01/04/2026' is not a date in ISO 8601 form" in line


def test_iso_dates_with_times_and_offsets_give_one_period_everywhere(tmp_path, scheduler, capsys):
    df = rows(20)
    df["d"] = ["2026-01-31", "2026-02-01T10:00:00Z", "2026-03-01 23:30:00+02:00", "20260115"] * 5
    df.to_csv(tmp_path / "a.csv", index=False)
    cfg = config(tmp_path, [{"name": "a", "file": "a.csv", "score": "s"}], date="d")
    ranges = set()
    for engine in ENGINES:
        code, err, out = run(cfg, engine, scheduler, capsys)
        assert code == 0, f"{engine}: {err}"
        ranges.add(tuple(metrics(out)["run"]["date_range"]))
    assert len(ranges) == 1, ranges


# --- weights and magnitudes that ended in an internal error or a misleading message (issue 18) ---


@pytest.mark.parametrize("weights", [[0, 0, 0, 0], [1, 0, 2, 0]], ids=["all-zero", "positives-zero"])
def test_a_class_whose_weights_are_all_zero_is_one_error_everywhere(weights, tmp_path, scheduler, capsys):
    """Memory exited 0 with NaN rates; stream said 'no row has the positive label 1'."""
    pd.DataFrame({"y": [0, 1, 0, 1], "s": [0.1, 0.9, 0.2, 0.7], "w": weights}).to_csv(tmp_path / "a.csv", index=False)
    cfg = config(tmp_path, [{"name": "a", "file": "a.csv", "score": "s"}], weight="w")
    line = same_everywhere(cfg, scheduler, capsys)
    assert (
        "column 'w': every row has weight 0" if sum(weights) == 0 else "column 'w': every positive row has weight 0"
    ) in line


@pytest.mark.parametrize("task", ["binary", "multiclass"])
def test_frequency_weights_that_are_not_whole_numbers_name_the_row_in_every_engine(task, tmp_path, scheduler, capsys):
    """Memory named the row among the compared rows; stream and dask only noticed when a score's
    weights did not add up to a whole number (1.5 + 0.5 at one score passed)."""
    df = rows(40)
    df["w"] = 1.0
    df.loc[5, "w"], df.loc[6, "w"], df.loc[6, "s"] = 1.5, 0.5, df.loc[5, "s"]  # one score: weights add up to 2
    if task == "multiclass":
        df["p"] = np.where(df["s"] > 0.5, 1, 0)
    df.to_csv(tmp_path / "a.csv", index=False)
    model = {"name": "a", "file": "a.csv", **({"score": "s"} if task == "binary" else {"prediction": "p"})}
    extra = {"task": "multiclass", "classes": [0, 1]} if task == "multiclass" else {}
    cfg = config(tmp_path, [model, {**model, "name": "b"}], weight="w", weight_kind="frequency", **extra)
    line = same_everywhere(cfg, scheduler, capsys)
    assert line.endswith(
        "a.csv: column 'w', row 7: weight 1.5 is not a whole number; weight_kind: frequency needs "
        "whole-number weights (use weight_kind: sampling)"
    ), line


@pytest.mark.parametrize("task", ["binary", "multiclass"])
def test_frequency_weights_that_differ_between_joined_files_are_one_error_everywhere(task, tmp_path, scheduler, capsys):
    """Memory repeated each model's rows by its own weights and stopped with an internal error
    (arrays of different lengths); stream and dask counted the first model's weights."""
    a = rows(30)
    a["w"] = np.arange(30) % 3 + 1
    b = a.iloc[::-1].reset_index(drop=True)
    b.loc[b["id"] == 9, "w"] += 1  # one row weighs more in b's file
    if task == "multiclass":
        a["p"], b["p"] = (a["s"] > 0.5).astype(int), (b["s"] > 0.4).astype(int)
    a.to_csv(tmp_path / "a.csv", index=False)
    b.to_csv(tmp_path / "b.csv", index=False)
    col = {"score": "s"} if task == "binary" else {"prediction": "p"}
    extra = {"task": "multiclass", "classes": [0, 1]} if task == "multiclass" else {}
    cfg = config(
        tmp_path,
        [{"name": "a", "file": "a.csv", **col}, {"name": "b", "file": "b.csv", **col}],
        id="id",
        weight="w",
        weight_kind="frequency",
        **extra,
    )
    line = same_everywhere(cfg, scheduler, capsys)
    assert (
        f"a.csv: model 'a': row 10 weighs 3 and the same row of model 'b' ({tmp_path / 'b.csv'}) weighs 4; "
        "weight_kind: frequency repeats each row by its weight" in line
    ), line


def test_scores_near_the_float_limit_are_refused_not_overflowed(tmp_path, scheduler, capsys):
    """Scores of ±1e308 overflowed the histogram's range (internal error, exit 1)."""
    pd.DataFrame({"y": [0, 1, 0, 1, 0, 1], "s": [-1e308, 1e308, 1e307, -1e307, 0, 5]}).to_csv(
        tmp_path / "a.csv", index=False
    )
    cfg = config(tmp_path, [{"name": "a", "file": "a.csv", "score": "s"}])
    line = same_everywhere(cfg, scheduler, capsys)
    assert "column 's', row 2: score -1e+308 is too large in magnitude" in line


# --- ids are text (issue 17, item 7) ---------------------------------------------------------


def _padded(n: int = 20) -> pd.DataFrame:
    """Rows whose ids are zero-padded text (``00001`` …)."""
    df = rows(n)
    return df.assign(id=[f"{i:05d}" for i in df["id"]])


def test_csv_ids_with_leading_zeros_join_the_same_parquet_strings_in_every_engine(tmp_path, scheduler, capsys):
    """CSV ids were parsed as integers: ``00042`` never met the same id stored as a Parquet string."""
    a = _padded()
    a.to_csv(tmp_path / "a.csv", index=False)
    b = _padded().sample(frac=1, random_state=1)
    pq.write_table(pa.Table.from_pandas(b.astype({"id": str}), preserve_index=False), tmp_path / "b.parquet")
    cfg = config(
        tmp_path,
        [{"name": "a", "file": "a.csv", "score": "s"}, {"name": "b", "file": "b.parquet", "score": "s"}],
        id="id",
    )
    _p, paired, _s, _pv, _c, run_paired, dropped, n = _same_pairing(cfg, scheduler, capsys)
    assert paired is True and run_paired is True and not dropped and n == {"a": 20, "b": 20}


def test_ids_keep_their_leading_zeros_007_is_not_7(tmp_path, scheduler, capsys):
    """``007`` and ``7`` are two ids (they were one, so a file holding both had a 'duplicated id')."""
    a = rows(4).assign(id=["7", "007", "8", "9"])
    b = a.iloc[::-1].assign(s=[0.1, 0.7, 0.4, 0.2])
    cfg = two_models(tmp_path, a, b, id="id")
    _p, paired, *_rest, n = _same_pairing(cfg, scheduler, capsys)
    assert paired is True and n == {"a": 4, "b": 4}
    c = two_models(tmp_path, a, rows(4).assign(id=["7", "07", "8", "9"]), id="id")
    line = same_everywhere(c, scheduler, capsys)
    assert "has 1 id(s) not shared by every model (e.g. '007'" in line


def test_integer_parquet_ids_join_csv_digits_and_print_as_text(tmp_path, scheduler, capsys):
    """Integer ids in Parquet compare as their digits with CSV text; messages show '100282', never
    np.int64(100282)."""
    a = rows(20, start=100270)
    a.to_csv(tmp_path / "a.csv", index=False)
    b = rows(20, start=100270).iloc[::-1]
    b.loc[b["id"] == 100282, "y"] = 1 - b.loc[b["id"] == 100282, "y"]
    pq.write_table(pa.Table.from_pandas(b, preserve_index=False), tmp_path / "b.parquet")
    cfg = config(
        tmp_path,
        [{"name": "a", "file": "a.csv", "score": "s"}, {"name": "b", "file": "b.parquet", "score": "s"}],
        id="id",
    )
    line = same_everywhere(cfg, scheduler, capsys)
    assert "the label of id '100282' differs" in line and "np." not in line


def test_multiclass_intersection_leaving_one_class_is_one_line_exit_2(tmp_path, scheduler, capsys):
    """Multiclass: the shared ids are all of one class — the same line in every engine (memory
    named the class by its index)."""
    a = pd.DataFrame({"id": np.arange(12), "y": ["lo", "mid", "hi"] * 4, "p": ["lo", "mid", "hi"] * 4})
    b = pd.DataFrame(
        {"id": [0, 3, 6, 100, 101], "y": ["lo", "lo", "lo", "mid", "hi"], "p": ["lo", "mid", "hi", "hi", "lo"]}
    )
    a.to_csv(tmp_path / "a.csv", index=False)
    b.to_csv(tmp_path / "b.csv", index=False)
    cfg = config(
        tmp_path,
        [{"name": "a", "file": "a.csv", "prediction": "p"}, {"name": "b", "file": "b.csv", "prediction": "p"}],
        task="multiclass",
        id="id",
        id_mismatch="intersect",
    )
    line = same_everywhere(cfg, scheduler, capsys)
    assert "every one of the 3 rows kept by every model ('a', 'b') has the same label ('lo')" in line


# --- hostile files and faults (issue 15, fourth sweep) -----------------------------------------


def refused_alike(cfg: Path, scheduler: str, capsys) -> str:
    """:func:`same_everywhere` (exit 2, one identical line), and ``reportgen validate`` refuses
    the config with the same line, with the config's engine (memory) and with ``engine: stream``
    (small inputs: every rule of a run)."""
    line = same_everywhere(cfg, scheduler, capsys)
    for engine in ("memory", "stream"):
        assert cli.main(["validate", str(cfg), "--quiet", "--set", f"engine={engine}"]) == 2, engine
        assert capsys.readouterr().err.strip() == line, engine
    return line


def same_metrics(cfg: Path, scheduler: str, capsys) -> None:
    """Every engine runs (exit 0) and writes the same metrics.json, the run block aside."""
    outs = {}
    for engine in ENGINES:
        code, err, out = run(cfg, engine, scheduler, capsys)
        assert code == 0, f"{engine}: {err}"
        outs[engine] = {k: v for k, v in metrics(out).items() if k not in ("run", "digest")}
    assert outs["stream"] == outs["memory"] and outs["dask"] == outs["memory"]


def _bytes(tmp: Path, name: str, data: bytes) -> Path:
    (tmp / name).write_bytes(data)
    return config(tmp, [{"name": "a", "file": name, "score": "s"}])


def _csv_bytes() -> bytes:
    return rows(40).to_csv(index=False).encode()


def _gzip(truncate: bool = False) -> bytes:
    import gzip

    data = gzip.compress(rows(400).to_csv(index=False).encode())
    return data[: len(data) // 2] if truncate else data


def _parquet_bytes(tmp: Path) -> bytes:
    rows(40).to_parquet(tmp / "x.parquet")
    return (tmp / "x.parquet").read_bytes()


def _dataset(tmp: Path, *parts: pd.DataFrame) -> Path:
    """A hive-partitioned dataset ``ds/k=i/p.parquet`` of ``parts``."""
    for i, part in enumerate(parts):
        (tmp / "ds" / f"k={i}").mkdir(parents=True)
        pq.write_table(pa.Table.from_pandas(part, preserve_index=False), tmp / "ds" / f"k={i}" / "p.parquet")
    return tmp / "ds"


def _damaged_part(tmp: Path) -> Path:
    ds = _dataset(tmp, rows(20), rows(20, start=21))
    part = ds / "k=1" / "p.parquet"
    part.write_bytes(part.read_bytes()[:100])  # truncated: its footer is gone
    return config(tmp, [{"name": "a", "file": "ds", "score": "s"}])


def _first_part_without_score(tmp: Path) -> Path:
    _dataset(tmp, rows(20).drop(columns="s"), rows(20, start=21))
    return config(tmp, [{"name": "a", "file": "ds", "score": "s"}])


def _bad_row_in_second_part(tmp: Path) -> Path:
    b = rows(20, start=21)
    b.loc[4, "s"] = np.nan
    _dataset(tmp, rows(20), b)
    return config(tmp, [{"name": "a", "file": "ds", "score": "s"}])


def _bad_rows_in_three_parts(tmp: Path) -> Path:
    parts = [rows(20, start=1 + 20 * i) for i in range(3)]
    for p in parts[1:]:
        p.loc[2, "s"] = np.nan
    parts[0].loc[15, "s"] = np.nan
    _dataset(tmp, *parts)
    return config(tmp, [{"name": "a", "file": "ds", "score": "s"}])


def _multiclass_unknown_class_in_second_part(tmp: Path) -> Path:
    a = pd.DataFrame({"id": np.arange(12), "y": ["lo", "mid", "hi"] * 4, "p": ["lo", "mid", "hi"] * 4})
    b = a.assign(id=a["id"] + 100)
    b.loc[3, "y"] = "zz"
    _dataset(tmp, a, b)
    return config(tmp, [{"name": "a", "file": "ds", "prediction": "p"}], task="multiclass", classes=["lo", "mid", "hi"])


def _two_faults_far_apart(tmp: Path) -> Path:
    """A missing label in row 10 and a missing score ~190,000 rows later, several CSV blocks apart."""
    n = 200_000
    df = pd.DataFrame({"y": (np.arange(n) % 2).astype(str), "s": np.round(np.random.default_rng(0).random(n), 3)})
    df.loc[8, "y"] = ""
    df.loc[190_000, "s"] = np.nan
    df.to_csv(tmp / "a.csv", index=False)
    return config(tmp, [{"name": "a", "file": "a.csv", "score": "s"}], stream={"batch_rows": 50_000})


@pytest.mark.parametrize(
    "case, build, words",
    [
        # stream and dask: "cannot read (Column 's' in include_columns does not exist in CSV file)";
        # memory: "not UTF-8 text"; a truncated gzip: an internal error (EOFError), exit 1
        # (a readable .csv.gz: tests/parity/test_compressed_csv.py)
        (
            "truncated gzip",
            lambda t: _bytes(t, "a.csv.gz", _gzip(truncate=True)),
            ("a.csv.gz: cannot decompress as gzip",),
        ),
        (
            "gzip named .csv",
            lambda t: _bytes(t, "a.csv", _gzip()),
            ("a.csv: the file is gzip-compressed", "end its name with .gz"),
        ),
        (
            "damaged zstd",
            lambda t: _bytes(t, "a.csv.zst", b"\x28\xb5\x2f\xfd" + bytes(64)),
            ("a.csv.zst: cannot decompress as zstd", "zstd -t"),
        ),
        ("zip archive", lambda t: _bytes(t, "a.zip", b"PK\x03\x04" + bytes(64)), ("a zip archive", "extract")),
        (
            "Parquet named .csv",
            lambda t: _bytes(t, "a.csv", _parquet_bytes(t)),
            ("a Parquet file named like a CSV file", ".parquet"),
        ),
        # stream and dask: pyarrow's "CSV conversion error to string: invalid UTF8 data"
        (
            "latin-1 label",
            lambda t: _bytes(t, "a.csv", _csv_bytes().replace(b"\n5,1,", b"\n5,\xe9,")),
            ("a.csv: not UTF-8 text",),
        ),
        # stream and dask: "CSV parse error: Empty CSV file or block: cannot infer number of columns"
        (
            "header without line break",
            lambda t: _bytes(t, "a.csv", b"id,y,s"),
            ("a.csv: the file has a header but no rows",),
        ),
        ("BOM only", lambda t: _bytes(t, "a.csv", b"\xef\xbb\xbf"), ("a.csv: the file is empty",)),
        # 1e308 overflowed the weight sums: exit 0, NaN rates, numbers differing between engines
        (
            "huge weight",
            lambda t: _one(t, rows().assign(w=1e308), weight="w"),
            ("column 'w', row 2", "weight 1e+308 is too large"),
        ),
        # 1e-300 underflowed the sums of squared weights: an internal ZeroDivisionError (exit 1) everywhere
        (
            "tiny weight",
            lambda t: _one(t, rows().assign(w=[1.0] * 3 + [1e-300] * 17), weight="w"),
            ("column 'w', row 5", "weight 1e-300 is too small (0, or at least 1e-15)"),
        ),
        ("damaged Parquet part", _damaged_part, ("ds/k=1/p.parquet: cannot read as Parquet", "damaged part")),  # exit 1
        # named the whole dataset with the first part's columns: "column 's' not found in …/ds (columns: id, y, k)"
        (
            "first part without the column",
            _first_part_without_score,
            ("k=0/p.parquet: column 's' not found in this part",),
        ),
        # dask named the part and its own row: "ds/k=1/p.parquet: row 6" for memory's "ds: row 26"
        ("bad row in the second part", _bad_row_in_second_part, ("ds: row 26: missing or non-finite score",)),
        # dask raised whichever part's task failed first
        ("bad rows in three parts", _bad_rows_in_three_parts, ("ds: row 17: missing or non-finite score",)),
        (
            "multiclass class in the second part",
            _multiclass_unknown_class_in_second_part,
            ("ds: column 'y', row 17: label 'zz' is not one of the configured classes",),
        ),
        # memory gave the first rule's first row (row 190,002's score), stream and dask row 10's label
        ("two faults far apart", _two_faults_far_apart, ("a.csv: row 10: missing or non-finite label",)),
        (
            "column name with spaces",
            lambda t: _raw(t, "id, y ,s\n1,0,0.1\n2,1,0.2\n"),
            ("(columns: id, ' y ', s)", "the file has ' y '"),
        ),
        ("column name in another case", lambda t: _raw(t, "id,Y,s\n1,0,0.1\n2,1,0.2\n"), ("the file has 'Y'",)),
    ],
)
@pytest.mark.slow
def test_hostile_files_are_refused_alike_by_every_engine_and_validate(case, build, words, tmp_path, scheduler, capsys):
    line = refused_alike(build(tmp_path), scheduler, capsys)
    for w in words:
        assert w in line, (case, line)


def test_a_row_longer_than_the_csv_block_is_read_by_every_engine(tmp_path, scheduler, capsys):
    """A 2.5 MB text value (past two 1 MB blocks): memory read it, stream and dask failed with pyarrow's "straddling
    object straddles two block boundaries". Every engine now re-reads with a larger block and
    gives memory's numbers."""
    df = rows(3000)
    df["note"] = "x"
    df.loc[2000, "note"] = "y" * 2_500_000
    df.to_csv(tmp_path / "a.csv", index=False)
    cfg = config(tmp_path, [{"name": "a", "file": "a.csv", "score": "s"}])
    same_metrics(cfg, scheduler, capsys)


@pytest.mark.parametrize(
    "fault, words",
    [
        ("deleted", "a.csv: file not found (removed or renamed while reportgen was running)"),
        # memory said "malformed CSV (No columns to parse from file)", stream "header but no rows"
        ("emptied", "a.csv: the file is empty; expected a CSV header and rows"),
    ],
)
def test_a_file_changed_after_its_header_was_checked_gives_one_line_everywhere(
    fault, words, tmp_path, scheduler, capsys, monkeypatch
):
    """The file goes away (or is emptied) between the column check and the read."""
    import reportgen.io.batches as batches_module
    import reportgen.io.files as files_module
    import reportgen.reduce.local as local_module

    checked = files_module.columns_in

    def then_break(path):
        names = checked(path)
        if fault == "deleted":
            path.unlink()
        else:
            path.write_bytes(b"")
        return names

    monkeypatch.setattr(local_module, "columns_in", then_break)
    monkeypatch.setattr(batches_module, "columns_in", then_break)
    for engine in ENGINES:
        cfg = _one(tmp_path, rows(40))
        code, err, _ = run(cfg, engine, scheduler, capsys)
        assert code == 2 and words in err and len(err.splitlines()) == 1, f"{engine}: {err}"


@pytest.mark.skipif(os.geteuid() == 0, reason="root reads files whatever their permission bits")
def test_an_unreadable_parquet_part_names_the_part_in_every_engine(tmp_path, scheduler, capsys):
    """A part the user may not read: one line naming it, about permissions (not a "damaged part")."""
    ds = _dataset(tmp_path, rows(20), rows(20, start=21))
    (ds / "k=1" / "p.parquet").chmod(0)
    cfg = config(tmp_path, [{"name": "a", "file": "ds", "score": "s"}])
    line = refused_alike(cfg, scheduler, capsys)
    assert "k=1/p.parquet: cannot open (Permission denied)" in line


@pytest.mark.parametrize("first", ["PAR1", "BZh9"])
def test_csv_text_that_starts_like_a_binary_format_is_read(first, tmp_path, scheduler, capsys):
    """The first-bytes check refuses compressed and Parquet files, not CSV text that happens to
    start alike (a Parquet file also ends with PAR1; bzip2 has a block magic after BZh<digit>)."""
    df = rows(30).rename(columns={"id": first})
    df.to_csv(tmp_path / "a.csv", index=False)
    cfg = config(tmp_path, [{"name": "a", "file": "a.csv", "score": "s"}])
    for engine in ENGINES:
        code, err, _ = run(cfg, engine, scheduler, capsys)
        assert code == 0, f"{engine}: {err}"


def _parts_of_other_types(tmp: Path, first: pa.Table, second: pa.Table, **extra) -> Path:
    for i, table in enumerate((first, second)):
        (tmp / "ds" / f"k={i}").mkdir(parents=True)
        pq.write_table(table, tmp / "ds" / f"k={i}" / "p.parquet")
    return config(tmp, [{"name": "a", "file": "ds", "score": "s"}], **extra)


def _table(df: pd.DataFrame, **columns) -> pa.Table:
    return pa.Table.from_pandas(df.assign(**columns), preserve_index=False)


@pytest.mark.parametrize(
    "case, first, second, words",
    [
        # memory and stream read every part with the first part's types (int64): "Float value 637.5 was
        # truncated converting to int64"; dask read each part alone and ran (exit 0)
        (
            "integers then decimals",
            lambda: _table(rows(), s=np.arange(20) * 7 % 10),
            lambda: _table(rows(start=21), s=np.arange(20) + 0.5),
            None,
        ),
        # memory and stream: "cannot read as Parquet (Failed to parse string: 'x' …)", no row; dask: the row
        (
            "numbers then text",
            lambda: _table(rows()),
            lambda: _table(rows(start=21), s=["x"] * 20),
            "ds: column 's', row 22: non-numeric value 'x'",
        ),
        # memory and stream cast the second part's booleans to 0 / 1 (exit 0); dask: four labels. Now the
        # row of the third label (the earliest bad row), as every engine meets it
        (
            "integer then boolean labels",
            lambda: _table(rows()),
            lambda: _table(rows(start=21), y=[True, False] * 10),
            "ds: column 'y', row 22: a third distinct label 'True' (3 distinct labels: '0', '1', 'True')",
        ),
        # an empty first part written from pandas' object columns (typed null): memory and stream cast
        # the next part to null, "cannot read as Parquet (Unsupported cast from int64 to null …)"; dask ran
        (
            "empty first part typed null",
            lambda: pa.Table.from_pandas(rows().iloc[:0].astype(object), preserve_index=False),
            lambda: _table(rows(start=21)),
            None,
        ),
    ],
)
def test_a_parquet_part_with_another_column_type_is_read_alike_everywhere(
    case, first, second, words, tmp_path, scheduler, capsys
):
    cfg = _parts_of_other_types(tmp_path, first(), second())
    if words is not None:
        assert words in refused_alike(cfg, scheduler, capsys), case
        return
    same_metrics(cfg, scheduler, capsys)


def _latin1_date(tmp: Path) -> Path:
    """A date column (read with inferred types by stream and dask) holding one latin-1 byte."""
    text = rows().assign(d="2026-01-02").to_csv(index=False).encode()
    (tmp / "a.csv").write_bytes(text.replace(b"2026-01-02\n", b"2026-01-0\xe9\n", 1))
    return config(tmp, [{"name": "a", "file": "a.csv", "score": "s"}], date="d")


@pytest.mark.parametrize(
    "case, build, words",
    [
        # memory's lenient reader parsed 'true' / 'false' as booleans (exit 0) where stream and dask refused them; they
        # are 1 / 0 in every engine (test_engine_parity_value_spellings.py), and any other word is refused alike
        ("yes/no scores", lambda t: _one(t, rows().assign(s=["yes", "no"] * 10)), ("row 2: non-numeric value 'yes'",)),
        # stream and dask: an internal error (UnicodeDecodeError) on a date column pyarrow typed as binary
        ("latin-1 date", lambda t: _latin1_date(t), ("a.csv: not UTF-8 text",)),
    ],
)
def test_csv_values_every_engine_reads_the_same_way(case, build, words, tmp_path, scheduler, capsys):
    line = refused_alike(build(tmp_path), scheduler, capsys)
    for w in words:
        assert w in line, (case, line)


@pytest.mark.parametrize("spelling", ["NA", "None"])
@pytest.mark.parametrize("task", ["binary", "multiclass"])
def test_na_like_labels_are_classes_and_the_message_says_so_in_every_engine(
    spelling, task, tmp_path, scheduler, capsys
):
    """A label spelled NA / null / None / N/A is a class (the key rule), also under missing: drop:
    binary sees a third label, multiclass a class without a score column. Every engine and
    validate give one line, and it says how to write a missing label."""
    if task == "binary":
        df = rows().astype({"y": object})
        df.loc[4, "y"] = spelling
        cfg = _one(tmp_path, df, missing="drop")
        where = (
            f"a.csv: column 'y', row 6: a third distinct label {spelling!r} (3 distinct labels: '0', '1', {spelling!r})"
        )
    else:
        df = pd.DataFrame({"y": ["a", "b", "c"] * 6, "p_a": [0.5] * 18, "p_b": [0.3] * 18, "p_c": [0.2] * 18})
        df.loc[4, "y"] = spelling
        df.to_csv(tmp_path / "m.csv", index=False)
        cfg = config(
            tmp_path,
            [{"name": "a", "file": "m.csv", "scores": {"a": "p_a", "b": "p_b", "c": "p_c"}}],
            task="multiclass",
            missing="drop",
        )
        where = f"models[0].scores: no score column for class(es) {spelling}"
    line = refused_alike(cfg, scheduler, capsys)
    assert where in line and f"{spelling!r} is read as a class name, not as a missing value" in line, line


# --- several faults of different kinds: the earliest bad row in the file wins ----------------
#
# memory applied its rules one after another over the whole file (a non-numeric score at row
# 2,602 was reported before a missing label at row 402), stream and dask reported the first
# batch with any fault; two models of one file reported the first model's fault in memory and
# the earlier row in stream. The rule now: the earliest bad row in the file; on one row, the
# first rule in rule order (non-numbers, missing values, weights, score range, probabilities,
# labels); of several models of a file, the first in config order; files in config order.

FAULTY_ROWS = 3000  # three batches of stream.batch_rows = 1000; the Parquet dataset three parts


def _faulty(edits: list[tuple[int, str, object]], parquet: bool) -> pd.DataFrame:
    """3,000 rows (id, y, s, s2, w) with ``edits`` (row index, column, value) applied; for
    Parquet, every column typed as far as its values allow (text labels and ids)."""
    t = rows(FAULTY_ROWS).assign(s2=lambda d: np.round(1 - d.s, 3), w=1.0)
    t = t.astype(object)
    for i, col, value in edits:
        t.loc[i, col] = value
    if parquet:
        for col in ("s", "s2", "w"):
            t[col] = pd.to_numeric(t[col])
        t["y"] = [None if v is None else str(v) for v in t.y]
        t["id"] = [None if v is None else str(v) for v in t.id]
    return t


def _three_parts(tmp: Path, t: pd.DataFrame) -> str:
    for k, lo in enumerate(range(0, FAULTY_ROWS, 1000)):
        (tmp / "ds" / f"k={k}").mkdir(parents=True)
        pq.write_table(
            pa.Table.from_pandas(t.iloc[lo : lo + 1000], preserve_index=False), tmp / "ds" / f"k={k}" / "p.parquet"
        )
    return "ds"


MIXED_FAULTS = [
    # (case, edits, config extras, parquet too, expected words)
    (
        "a missing label after a non-numeric score",
        [(2600, "y", ""), (400, "s", "x")],
        {},
        False,
        "a.csv: column 's', row 402: non-numeric value 'x'",
    ),
    (
        "a non-numeric score after a missing label",
        [(400, "y", ""), (2600, "s", "x")],
        {},
        False,
        "a.csv: row 402: missing or non-finite label in 'y'",
    ),
    # the block holding the non-number failed as a whole in stream: the rows before it went unchecked
    (
        "a non-numeric weight in the block of an earlier missing label",
        [(10, "y", ""), (2900, "w", "heavy")],
        {"weight": "w"},
        False,
        "a.csv: row 12: missing or non-finite label in 'y'",
    ),
    (
        "a missing id before a negative weight",
        [(2500, "w", -1.0), (700, "id", None)],
        {"weight": "w", "id": "id"},
        True,
        "row 702: missing id in 'id'",
    ),
    (
        "a missing id dropped before a negative weight",
        [(2500, "w", -1.0), (700, "id", None)],
        {"weight": "w", "id": "id", "missing": "drop"},
        True,
        "column 'w', row 2502: negative weight -1",
    ),
    (
        "a huge weight before a missing id",
        [(700, "w", 1e20), (2500, "id", None)],
        {"weight": "w", "id": "id"},
        True,
        "column 'w', row 702: weight 1e+20 is too large",
    ),
    (
        "a third label before a missing score",
        [(1500, "y", 7), (2200, "s", np.nan)],
        {},
        True,
        "column 'y', row 1502: a third distinct label '7' (3 distinct labels: '0', '1', '7')",
    ),
    (
        "a missing score before a third label",
        [(2200, "y", 7), (1500, "s", np.nan)],
        {},
        True,
        "row 1502: missing or non-finite score in 's'",
    ),
    (
        "a missing label and a negative weight on one row",
        [(1800, "w", -2.0), (1800, "y", None)],
        {"weight": "w"},
        True,
        "row 1802: missing or non-finite label in 'y'",
    ),
]


@pytest.mark.parametrize("fmt", ["csv", "parquet parts"])
@pytest.mark.parametrize(("case", "edits", "extra", "parquet", "words"), MIXED_FAULTS, ids=[c[0] for c in MIXED_FAULTS])
def test_of_several_faults_every_engine_names_the_earliest_row(
    case, edits, extra, parquet, words, fmt, tmp_path, scheduler, capsys
):
    if fmt != "csv" and not parquet:
        pytest.skip("a non-number needs a text column: CSV")
    t = _faulty(edits, fmt != "csv")
    if fmt == "csv":
        t.to_csv(tmp_path / "a.csv", index=False)
        file = "a.csv"
    else:
        file = _three_parts(tmp_path, t)
        words = words.replace("a.csv: ", "ds: ")
    line = refused_alike(config(tmp_path, [{"name": "a", "file": file, "score": "s"}], **extra), scheduler, capsys)
    assert words in line, (case, line)


def test_of_two_models_in_one_file_the_earlier_row_wins(tmp_path, scheduler, capsys):
    """Model a's fault at row 2,802, model b's (another rule) at row 1,202: memory named a's."""
    _faulty([(2800, "s", ""), (1200, "s2", "1e400")], False).to_csv(tmp_path / "a.csv", index=False)
    cfg = config(
        tmp_path, [{"name": "a", "file": "a.csv", "score": "s"}, {"name": "b", "file": "a.csv", "score": "s2"}]
    )
    line = refused_alike(cfg, scheduler, capsys)
    assert "a.csv: row 1202: missing or non-finite score in 's2'" in line, line


def test_of_faults_on_one_row_of_two_models_the_first_model_wins(tmp_path, scheduler, capsys):
    _faulty([(2000, "s2", "zz"), (2000, "s", "")], False).to_csv(tmp_path / "a.csv", index=False)
    cfg = config(
        tmp_path, [{"name": "a", "file": "a.csv", "score": "s"}, {"name": "b", "file": "a.csv", "score": "s2"}]
    )
    assert "a.csv: row 2002: missing or non-finite score in 's'" in refused_alike(cfg, scheduler, capsys)


def test_files_are_checked_in_config_order_whatever_the_rows(tmp_path, scheduler, capsys):
    """Models a and c read a.csv (a fault at row 3,002), b reads b.csv (row 102): a.csv first,
    in memory too (it checked model by model: b's file before c's fault)."""
    _faulty([(3000 - 1, "s2", "")], False).to_csv(tmp_path / "a.csv", index=False)
    _faulty([(100, "s", "")], False).to_csv(tmp_path / "b.csv", index=False)
    cfg = config(
        tmp_path,
        [
            {"name": "a", "file": "a.csv", "score": "s"},
            {"name": "b", "file": "b.csv", "score": "s"},
            {"name": "c", "file": "a.csv", "score": "s2"},
        ],
    )
    assert "a.csv: row 3001: missing or non-finite score in 's2'" in refused_alike(cfg, scheduler, capsys)


def test_a_third_label_met_in_a_later_parquet_part_is_named_by_its_row(tmp_path, scheduler, capsys):
    """Parts 1 and 2 hold labels {0, 1} and {0, 7}: no part alone has three. Dask said "has 3
    distinct labels" (no row) after merging, or a later part's other fault; now the row of '7'."""
    t = _faulty([(2400, "s", np.nan)], True)
    t.loc[1000:, "y"] = np.where(np.arange(FAULTY_ROWS - 1000) % 2, "0", "7")
    cfg = config(tmp_path, [{"name": "a", "file": _three_parts(tmp_path, t), "score": "s"}])
    line = refused_alike(cfg, scheduler, capsys)
    assert "ds: column 'y', row 1002: a third distinct label '7'" in line, line


MIXED_CLASS_FAULTS = [
    (
        "a missing label after a non-numeric class score",
        [(2300, "y", ""), (1200, "p_b", "x")],
        {},
        "column 'p_b', row 1202: non-numeric value 'x'",
    ),
    (
        "a non-numeric class score after a missing label",
        [(1200, "y", ""), (2300, "p_b", "x")],
        {},
        "row 1202: missing label in 'y'",
    ),
    (
        "an unknown class before a missing class score",
        [(1500, "y", "zz"), (2500, "p_a", "")],
        {"classes": ["a", "b", "c"]},
        "column 'y', row 1502: label 'zz' is not one of the configured classes",
    ),
    (
        "a missing class score before an NA-like class",
        [(1500, "p_a", ""), (2500, "y", "NA")],
        {"classes": ["a", "b", "c"]},
        "row 1502: missing or non-finite class score",
    ),
    (
        "a probability out of range before a missing label",
        [(1500, "p_a", "1.5"), (2500, "y", "")],
        {},
        "column 'p_a', row 1502: 1.5 is not a probability",
    ),
]


@pytest.mark.parametrize(
    ("case", "edits", "extra", "words"), MIXED_CLASS_FAULTS, ids=[c[0] for c in MIXED_CLASS_FAULTS]
)
def test_of_several_multiclass_faults_every_engine_names_the_earliest_row(
    case, edits, extra, words, tmp_path, scheduler, capsys
):
    classes = np.array(["a", "b", "c"])
    t = pd.DataFrame({"y": classes[np.arange(FAULTY_ROWS) % 3], "p_a": 0.5, "p_b": 0.3, "p_c": 0.2}).astype(object)
    for i, col, value in edits:
        t.loc[i, col] = value
    t.to_csv(tmp_path / "m.csv", index=False)
    cfg = config(
        tmp_path,
        [{"name": "a", "file": "m.csv", "probabilities": True, "scores": {"a": "p_a", "b": "p_b", "c": "p_c"}}],
        task="multiclass",
        **extra,
    )
    line = refused_alike(cfg, scheduler, capsys)
    assert words in line, (case, line)


def test_validate_of_a_large_input_checks_the_first_batch_by_the_same_rule(tmp_path, scheduler, capsys, monkeypatch):
    """``validate`` with ``engine: stream`` on inputs too large to read whole checks the first
    batch: of two models' faults there, the earlier row (as the run says); a fault past the first
    batch is left to the run."""
    import reportgen.io.files as files

    monkeypatch.setattr(files, "SMALL_INPUT_BYTES", 0)
    _faulty([(800, "s", np.nan), (100, "s2", np.nan)], True).to_parquet(tmp_path / "a.parquet", index=False)
    models = [{"name": "a", "file": "a.parquet", "score": "s"}, {"name": "b", "file": "a.parquet", "score": "s2"}]
    cfg = config(tmp_path, models)
    line = same_everywhere(cfg, scheduler, capsys)
    assert cli.main(["validate", str(cfg), "--quiet", "--set", "engine=stream"]) == 2
    assert capsys.readouterr().err.strip() == line and "row 102: missing or non-finite score in 's2'" in line
    _faulty([(1500, "s", np.nan)], True).to_parquet(tmp_path / "a.parquet", index=False)  # Parquet: batches of 1,000
    assert cli.main(["validate", str(cfg), "--set", "engine=stream"]) == 0
    said = capsys.readouterr()
    assert "the first batch of each file is valid" in said.err + said.out


def test_weights_all_one_after_dropped_rows_run_in_memory(tmp_path, scheduler, capsys):
    """Memory stopped with an internal error (a weighted table without row codes) when every
    weight left was 1 after ``missing: drop``; stream and dask ran."""
    t = _faulty([(5, "w", np.nan)], False)
    t.to_csv(tmp_path / "a.csv", index=False)
    same_metrics(
        config(tmp_path, [{"name": "a", "file": "a.csv", "score": "s"}], weight="w", missing="drop"), scheduler, capsys
    )


# --- whole-file rules before the id join, in every engine --------------------------------------
# memory checked each model's classes and weights before joining ids; stream and dask joined
# first ("40 id(s) not shared" where memory said "every row is positive"), and validate with
# engine: stream reported a duplicated id of the first batch before both.


def _every_row(y: int | None = None, w: float | None = None, **changes) -> pd.DataFrame:
    t = rows(40)
    if y is not None:
        t["y"] = y
    if w is not None:
        t["w"] = w
    return t.assign(**changes)


@pytest.mark.parametrize(
    ("case", "a", "b", "extra", "words"),
    [
        (
            "every row positive, no id shared",
            _every_row(y=1),
            _every_row(id=lambda d: d.id + 1000),
            {},
            "a.csv: column 'y': every row is positive",
        ),
        (
            "b every row positive, ids partly shared",
            _every_row(),
            _every_row(y=1).iloc[:30],
            {},
            "b.csv: column 'y': every row is positive",
        ),
        (
            "no positive row, a duplicated id",
            _every_row(y=0),
            _every_row(id=lambda d: d.id.where(d.id != 5, 6)),
            {},
            "a.csv: column 'y': no row has the positive label 1",
        ),
        (
            "every positive row of weight 0, ids partly shared",
            _every_row(w=1.0).assign(w=lambda d: np.where(d.y == 1, 0.0, 1.0)),
            _every_row(w=1.0).iloc[:30],
            {"weight": "w"},
            "a.csv: column 'w': every positive row has weight 0",
        ),
        (
            "labels contradict, every row positive",
            _every_row(y=1),
            _every_row(),
            {},
            "a.csv: column 'y': every row is positive",
        ),
    ],
)
def test_whole_file_rules_come_before_the_id_join(case, a, b, extra, words, tmp_path, scheduler, capsys):
    line = refused_alike(two_models(tmp_path, a, b, id="id", **extra), scheduler, capsys)
    assert words in line, (case, line)


def test_multiclass_weights_of_zero_come_before_the_id_join(tmp_path, scheduler, capsys):
    for name, shift, w in (("a", 0, 0.0), ("b", 1000, 1.0)):
        pd.DataFrame(
            {"id": np.arange(30) + shift, "y": ["a", "b", "c"] * 10, "p_a": 0.5, "p_b": 0.3, "p_c": 0.2, "w": w}
        ).to_csv(tmp_path / f"{name}.csv", index=False)
    models = [{"name": n, "file": f"{n}.csv", "scores": {"a": "p_a", "b": "p_b", "c": "p_c"}} for n in ("a", "b")]
    line = refused_alike(config(tmp_path, models, task="multiclass", id="id", weight="w"), scheduler, capsys)
    assert "a.csv: column 'w': every row has weight 0" in line, line


@pytest.mark.parametrize(
    ("case", "extra", "edit", "words"),
    [
        (
            "a cost matrix of the wrong size",
            {"costs": [[0, 1], [1, 0]]},
            None,
            "costs: a 2x2 cost matrix for 3 classes",
        ),
        ("a class without a score column", {}, (3, "y", "d"), "models[0].scores: no score column for class(es) d"),
    ],
)
def test_the_class_list_is_checked_before_the_id_join(case, extra, edit, words, tmp_path, scheduler, capsys):
    """Memory checked the classes before joining ids, stream and dask after ("60 id(s) not shared")."""
    for name, shift in (("a", 0), ("b", 1000)):
        t = pd.DataFrame({"id": np.arange(30) + shift, "y": ["a", "b", "c"] * 10, "p_a": 0.5, "p_b": 0.3, "p_c": 0.2})
        if edit is not None and name == "b":
            t.loc[edit[0], edit[1]] = edit[2]
        t.to_csv(tmp_path / f"{name}.csv", index=False)
    models = [{"name": n, "file": f"{n}.csv", "scores": {"a": "p_a", "b": "p_b", "c": "p_c"}} for n in ("a", "b")]
    line = refused_alike(config(tmp_path, models, task="multiclass", id="id", **extra), scheduler, capsys)
    assert words in line, (case, line)


# --- a file that cannot be read is reported before any row rule ----------------------------
# memory reads every file before applying a row rule; stream and dask reported a bad row met
# before the unreadable bytes (a later CSV block, a later file, a later Parquet part).


def test_bytes_that_are_not_utf8_past_the_first_block_come_before_an_earlier_bad_row(tmp_path, scheduler, capsys):
    t = rows(90_000).astype(object)
    t.loc[10, "y"] = ""
    lines = t.to_csv(index=False).encode().split(b"\n")
    lines[80_000] += b"\xe9"  # past the first 1 MB CSV block
    (tmp_path / "a.csv").write_bytes(b"\n".join(lines))
    line = refused_alike(config(tmp_path, [{"name": "a", "file": "a.csv", "score": "s"}]), scheduler, capsys)
    assert "a.csv: not UTF-8 text" in line, line


@pytest.mark.parametrize("second", ["latin-1", "header only"])
def test_an_unreadable_later_file_comes_before_a_bad_row_of_an_earlier_one(second, tmp_path, scheduler, capsys):
    a = rows().astype(object)
    a.loc[3, "s"] = ""
    b = rows().to_csv(index=False).encode() + b"21,1,0.5\xe9\n" if second == "latin-1" else b"id,y,s\n"
    a.to_csv(tmp_path / "a.csv", index=False)
    (tmp_path / "b.csv").write_bytes(b)
    models = [{"name": "a", "file": "a.csv", "score": "s"}, {"name": "b", "file": "b.csv", "score": "s"}]
    line = refused_alike(config(tmp_path, models), scheduler, capsys)
    assert ("b.csv: not UTF-8 text" if second == "latin-1" else "b.csv: the file has a header but no rows") in line, (
        line
    )


def test_a_damaged_later_parquet_part_comes_before_a_bad_row_of_an_earlier_part(tmp_path, scheduler, capsys):
    t = rows(300).assign(s=lambda d: d.s.where(d.id != 11))
    ds = _dataset(tmp_path, t.iloc[:100], t.iloc[100:200], t.iloc[200:])  # the footer intact: read when scanned
    last = sorted(ds.rglob("*.parquet"))[-1]
    data = last.read_bytes()
    last.write_bytes(data[: len(data) // 2] + b"\0" * 50 + data[len(data) // 2 + 50 :])
    line = refused_alike(config(tmp_path, [{"name": "a", "file": "ds", "score": "s"}]), scheduler, capsys)
    assert "cannot read as Parquet" in line and "row 12" not in line, line


# --- validate checks in the run's order (a second fuzzer) ------------------------------------


@pytest.mark.parametrize("value", [np.inf, np.nan], ids=["infinite", "missing"])
def test_validate_with_a_credit_section_names_a_bad_score_in_the_run_s_words(value, tmp_path, scheduler, capsys):
    """With ``credit:`` set, ``validate`` checked the credit section's inputs before the data, so
    a bad score was "column 's', row 9: missing value; fill it in …" (the section's reader; an
    infinite score called missing) where every engine's run says "row 9: missing or non-finite
    score in 's'" (found by fuzzing). validate now checks in the run's order: data, then section."""
    df = rows(40)
    df.loc[7, "s"] = value
    df.to_csv(tmp_path / "a.csv", index=False)
    cfg = config(tmp_path, [{"name": "a", "file": "a.csv", "score": "s"}], credit={"grades": {"quantiles": 4}})
    line = refused_alike(cfg, scheduler, capsys)
    assert "a.csv: row 9: missing or non-finite score in 's'" in line, line
    assert cli.main(["validate", str(cfg), "--quiet", "--set", "engine=dask", "--set", f"scheduler={scheduler}"]) == 2
    assert capsys.readouterr().err.strip() == line


@pytest.mark.sql
def test_validate_of_a_sql_model_with_a_credit_section_reports_the_data_first(tmp_path, scheduler, capsys):
    """A credit section (which reads files only) with a model read by SQL, and a Parquet part of
    another model without its score column: a run refuses the part (the data is read first);
    ``validate`` refused the SQL model for the section, a different verdict for the same config."""
    import adbc_driver_sqlite.dbapi as dbapi

    with dbapi.connect(str(tmp_path / "p.db")) as conn:
        cur = conn.cursor()
        cur.adbc_ingest("a", pa.Table.from_pandas(rows(20), preserve_index=False), mode="replace")
        conn.commit()
        cur.close()
    _dataset(tmp_path, rows(10), rows(10, start=11).drop(columns=["s"]))
    cfg = config(
        tmp_path,
        [
            {"name": "a", "source": {"url": "sqlite:///p.db", "query": "SELECT id, y, s FROM a"}, "score": "s"},
            {"name": "b", "file": "ds", "score": "s"},
        ],
        credit={"grades": {"quantiles": 4}},
    )
    line = refused_alike(cfg, scheduler, capsys)
    assert "column 's' not found in this part of the dataset" in line, line


def test_a_third_label_met_only_across_parts_comes_before_a_later_file_s_bad_row(tmp_path, scheduler, capsys):
    """The first model's dataset has labels '0' and 'x' in one part and '0' and '1' in the other
    (three between them, none in a part); the second model's file has a third label of its own.
    Memory and stream stop at the dataset's row 12 ('1', the third label); dask ran every part,
    found the file's fault in a part and raised it — the dataset's fault is known only once its
    parts are merged (found by fuzzing). It now raises the earlier dataset's fault first."""
    first = rows(10).astype({"y": str})
    first["y"] = np.where(first["y"] == "1", "x", "0")
    _dataset(tmp_path, first, rows(10, start=11).astype({"y": str}))
    second = rows(20).astype({"y": str})
    second.loc[15, "y"] = "x"
    second.to_csv(tmp_path / "b.csv", index=False)
    cfg = config(
        tmp_path,
        [{"name": "a", "file": "ds", "score": "s"}, {"name": "b", "file": "b.csv", "score": "s"}],
        id="id",
        id_mismatch="intersect",
    )
    line = refused_alike(cfg, scheduler, capsys)
    assert "ds: column 'y', row 12: a third distinct label '1'" in line, line


def test_a_row_weighed_differently_by_two_models_of_one_dataset_is_named_by_its_dataset_row(
    tmp_path, scheduler, capsys
):
    """``weight_kind: frequency`` with a weight on one model only: a row that model weighs 2 and
    the other 1 is an error naming the row. With the models in one Parquet dataset, dask paired
    each part in a task of its own and raised whichever failed first, its row counted within the
    part ("row 2 … weighs 0": the third part's first row) where memory and stream name the
    dataset's row 4 (found by fuzzing). The earliest part's error is raised, its row in the dataset."""
    parts = [rows(10, start=1 + 10 * i).assign(w=1) for i in range(3)]
    parts[0].loc[2, "w"] = 2
    parts[2].loc[0, "w"] = 0
    _dataset(tmp_path, *parts)
    cfg = config(
        tmp_path,
        [{"name": "a", "file": "ds", "score": "s", "weight": "w"}, {"name": "b", "file": "ds", "score": "s"}],
        weight_kind="frequency",
    )
    line = refused_alike(cfg, scheduler, capsys)
    assert "ds: model 'a': row 4 weighs 2 and the same row of model 'b' weighs 1;" in line, line


def test_a_control_character_in_a_header_name_stays_escaped_in_the_did_you_mean_hint(tmp_path, scheduler, capsys):
    """A NUL byte in a header name (a binary file read as CSV) was escaped in the column list but
    written raw in "did you mean 'id<NUL>'?": a control character on the user's terminal and log."""
    (tmp_path / "a.csv").write_bytes(rows().to_csv(index=False).replace("id,", "id\x00,", 1).encode())
    cfg = config(tmp_path, [{"name": "a", "file": "a.csv", "score": "s"}], id="id")
    line = same_everywhere(cfg, scheduler, capsys)
    assert line.isprintable() and r"did you mean 'id\x00'?" in line, line


@pytest.mark.parametrize(
    ("header", "bad", "row"),
    [
        ("id,y,s", '10,0,"0.5', 11),  # the score, mid-file: pyarrow read the rest of the file as one score
        ("id,y,s", '20,0,"0.5', 21),  # the score, last row: "CSV conversion error to double"
        ("id,s,y", '10,0.5,"0', 11),  # the label: "a third distinct label" of thirty lines
        ("id,s,y", '20,0.5,"0', 21),  # the label, last row: accepted by stream and dask, refused by memory
    ],
)
def test_a_quote_left_open_in_the_last_column_is_named_at_its_row_in_every_engine(
    header, bad, row, tmp_path, scheduler, capsys
):
    """A quote left open keeps the row's field count when it is in the last column, so each engine
    told it its own way (pandas "EOF inside string", pyarrow a value running to the end of the file)."""
    t = rows()
    lines = [header] + [",".join(str(r[c]) for c in header.split(",")) for _, r in t.iterrows()]
    lines[row - 1] = bad
    (tmp_path / "a.csv").write_text("\n".join(lines) + "\n", encoding="utf-8")
    line = same_everywhere(config(tmp_path, [{"name": "a", "file": "a.csv", "score": "s"}]), scheduler, capsys)
    assert line.endswith(
        f"a.csv: row {row}: a quote is left open or misplaced (malformed CSV); close the quote or remove the stray one"
    ), line


@pytest.mark.parametrize(
    ("values", "what"),
    [
        (pd.date_range("2024-01-01", periods=20, freq="D"), "timestamps (datetime64"),
        (pd.to_timedelta(np.arange(20), unit="s"), "durations (timedelta64"),
    ],
)
def test_a_parquet_score_of_timestamps_or_durations_is_refused_in_every_engine(
    values, what, tmp_path, scheduler, capsys
):
    """pandas turned a timestamp column into nanoseconds: a date column named as the score ranked
    the rows by date, exit 0, in every engine."""
    pq.write_table(pa.Table.from_pandas(rows().assign(s=values), preserve_index=False), tmp_path / "a.parquet")
    line = same_everywhere(config(tmp_path, [{"name": "a", "file": "a.parquet", "score": "s"}]), scheduler, capsys)
    assert line.startswith(f"reportgen: error: {tmp_path / 'a.parquet'}: column 's' holds {what}"), line
