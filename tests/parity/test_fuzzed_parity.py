"""Engine disagreements found by fuzzing random small cases (issue 15), one regression test each.

A throwaway fuzzer ran random configs (binary and multiclass, ties, both directions, weights,
id joins, dropped rows, Parquet parts, 2 to 5 models, bootstrap on) through ``reportgen run``
with ``--engine memory``, ``stream`` and ``dask`` and compared the ``metrics.json`` documents.
Each test here is the smallest input that reproduced one cause; it runs every engine through
``reportgen.cli.main`` (one LocalCluster per session, ``scheduler``) and compares the documents
minus the ``run`` block, plus the run's facts about the data, exactly.
"""

from __future__ import annotations

import json
import sys
from pathlib import Path

import numpy as np
import pandas as pd
import pyarrow as pa
import pyarrow.parquet as pq
import pytest
import yaml

from reportgen import cli

sys.path.insert(0, str(Path(__file__).parent))
from docdiff import first_difference

ENGINES = ("memory", "stream", "dask")
RUN_FACTS = ("warnings", "notices", "dropped", "paired", "date_range", "classes")


def _run_all(tmp: Path, cfg: dict, scheduler: str, capsys) -> dict[str, dict]:
    """Each engine's metrics.json minus ``run`` (its facts about the data kept); every run exits 0."""
    path = tmp / "run.yaml"
    path.write_text(
        yaml.safe_dump(
            {"title": "t", "output": {"formats": ["json"]}, "stream": {"batch_rows": 1000}, **cfg}, sort_keys=False
        ),
        encoding="utf-8",
    )
    docs = {}
    for engine in ENGINES:
        out = tmp / f"out_{engine}"
        args = [
            "run",
            str(path),
            "--engine",
            engine,
            "--out",
            str(out),
            "--overwrite",
            "--quiet",
            "--now",
            "2026-01-01T00:00:00",
        ]
        if engine == "dask":
            args += ["--scheduler", scheduler]
        code = cli.main(args)
        assert code == 0, f"{engine}: exit {code}: {capsys.readouterr().err}"
        doc = json.loads((out / "metrics.json").read_text(encoding="utf-8"))
        run = doc.pop("run")
        doc.pop("digest", None)  # a digest of the whole document, run included
        doc["run_facts"] = {k: run.get(k) for k in RUN_FACTS}
        docs[engine] = doc
    return docs


def _parts(tmp: Path, df: pd.DataFrame, rows: int = 1_000) -> str:
    """``df`` as a directory of Parquet parts of ``rows`` rows (stream batches and Dask parts alike)."""
    d = tmp / "parts"
    d.mkdir()
    for i, start in enumerate(range(0, len(df), rows)):
        pq.write_table(
            pa.Table.from_pandas(df.iloc[start : start + rows], preserve_index=False), d / f"part-{i}.parquet"
        )
    return d.name


def _same(docs: dict[str, dict]) -> None:
    for engine in ("stream", "dask"):
        diff = first_difference(docs["memory"], docs[engine])
        assert diff is None, f"memory vs {engine}: {diff}"


def test_dropped_rows_are_listed_in_check_order_not_in_the_order_batches_met_them(tmp_path, scheduler, capsys):
    """A missing label in the first batch and a missing score in the third: memory (one batch)
    listed the score's drops first (the order of the checks), stream and dask the label's (the
    order their batches met them), so the warnings and ``run.dropped`` differed."""
    n = 2_500
    rng = np.random.default_rng(3)
    df = pd.DataFrame({"y": (rng.random(n) < 0.3).astype(float), "s": np.round(rng.random(n), 2)})
    df.loc[5, "y"] = np.nan
    df.loc[2_200, "s"] = np.nan
    data = _parts(tmp_path, df)
    docs = _run_all(
        tmp_path,
        {
            "label": "y",
            "missing": "drop",
            "bootstrap": {"resamples": 0},
            "models": [{"name": "a", "file": data, "score": "s"}],
        },
        scheduler,
        capsys,
    )
    _same(docs)
    assert [d["reason"] for d in docs["stream"]["run_facts"]["dropped"]] == [
        "missing or non-finite score in 's'",
        "missing or non-finite label in 'y'",
    ]


def test_multiclass_dropped_rows_are_listed_in_check_order(tmp_path, scheduler, capsys):
    """Multiclass likewise: a missing class score in the first batch, a missing label in the third."""
    n = 2_500
    rng = np.random.default_rng(4)
    k = rng.integers(0, 3, n)
    p = rng.dirichlet(np.ones(3), n).round(2)
    df = pd.DataFrame({"y": np.array(["a", "b", "c"], dtype=object)[k], "pa": p[:, 0], "pb": p[:, 1], "pc": p[:, 2]})
    df.loc[7, "pb"] = np.nan
    df.loc[2_300, "y"] = None
    data = _parts(tmp_path, df)
    docs = _run_all(
        tmp_path,
        {
            "task": "multiclass",
            "label": "y",
            "missing": "drop",
            "bootstrap": {"resamples": 0},
            "models": [{"name": "m", "file": data, "scores": {"a": "pa", "b": "pb", "c": "pc"}}],
        },
        scheduler,
        capsys,
    )
    _same(docs)
    assert [d["reason"] for d in docs["stream"]["run_facts"]["dropped"]] == [
        "missing label in 'y'",
        "missing or non-finite class score in 'pa', 'pb', 'pc'",
    ]


def test_weighted_multiclass_sums_do_not_depend_on_the_batches(tmp_path, scheduler, capsys):
    """Fractional weights, three batches / parts: the confusion matrix and the class tables summed
    each batch's weights and then the batches (memory: all rows at once), so accuracy, kappa, the
    per-class AUCs and log-loss differed in their last bits between engines. Rows are now counted
    per (cell, weight) and summed in one canonical order: equal to the bit, with no tolerance."""
    n = 2_500
    rng = np.random.default_rng(10)
    k = rng.choice(3, n, p=[0.5, 0.3, 0.2])
    z = rng.normal(size=(n, 3))
    z[np.arange(n), k] += 1.2
    p = np.round(np.exp(z) / np.exp(z).sum(axis=1, keepdims=True), 2)
    classes = np.array(["a", "b", "c"], dtype=object)
    df = pd.DataFrame(
        {
            "y": classes[k],
            "pa": p[:, 0],
            "pb": p[:, 1],
            "pc": p[:, 2],
            "rule": np.where(rng.random(n) < 0.6, classes[k], classes[rng.integers(0, 3, n)]),
            "w": np.round(rng.uniform(0.1, 3.0, n), 2),
        }
    )
    data = _parts(tmp_path, df)
    docs = _run_all(
        tmp_path,
        {
            "task": "multiclass",
            "label": "y",
            "weight": "w",
            "bootstrap": {"resamples": 0},
            "models": [
                {"name": "m", "file": data, "scores": {"a": "pa", "b": "pb", "c": "pc"}},
                {"name": "rule", "file": data, "prediction": "rule"},
            ],
        },
        scheduler,
        capsys,
    )
    _same(docs)
    # the canonical sums are the weights of the cells (the confusion matrix's total is the weight total)
    matrix = np.array(docs["memory"]["models"]["rule"]["confusion_matrix"]["matrix"])
    assert matrix.sum() == pytest.approx(df["w"].sum(), rel=1e-12)


@pytest.mark.parametrize("binning", ["fixed", "quantile"])
def test_a_binned_model_is_binned_alike_in_stream_and_dask(binning, tmp_path, scheduler, capsys):
    """Past ``stream.max_distinct_scores`` a model is binned with edges from a sample of its scores.
    The sample was drawn per batch (stream: one generator over the batches) or per part (dask: a
    generator per part, thinned while merging), so stream and dask binned the same rows with
    different edges (found by fuzzing: AUC 0.52867 against 0.52850, fixed-width bins). The sample
    is now a function of the scores alone (bottom-k distinct scores by a seeded hash, with their
    rows): parts of 700 rows and batches of 1,000 give one document. Memory never bins: its
    ``binning`` is null, the stated difference."""
    n = 2_500
    rng = np.random.default_rng(8)
    y = (rng.random(n) < 0.4).astype(int)
    df = pd.DataFrame({"y": y, "s": 1 / (1 + np.exp(-(rng.normal(size=n) + 0.5 * y)))})
    data = _parts(tmp_path, df, rows=700)
    docs = _run_all(
        tmp_path,
        {
            "label": "y",
            "bootstrap": {"resamples": 10, "seed": 3},
            "stream": {
                "batch_rows": 1000,
                "max_distinct_scores": 100,
                "bins": 20,
                "sample_per_batch": 10,
                "binning": binning,
            },
            "models": [
                {"name": "a", "file": data, "score": "s"},
                {"name": "b", "file": data, "score": "s", "direction": "lower"},
            ],
        },
        scheduler,
        capsys,
    )
    assert docs["stream"]["models"]["a"]["binning"]["method"] == binning
    assert docs["memory"]["models"]["a"]["binning"] is None
    diff = first_difference(docs["stream"], docs["dask"])
    assert diff is None, f"stream vs dask: {diff}"


def test_credit_grade_labels_at_a_zero_edge_read_the_same_in_every_engine(tmp_path, scheduler, capsys):
    """Scores rounded to whole numbers hold both −0.0 and +0.0; a quantile edge at zero took the sign
    of whichever zero its order statistic picked, which depends on how the rows were grouped (the
    fuzzed case: memory's rows against stream's and dask's merged distinct rows), so a ``direction:
    lower`` model's grades read "-0 – 1" in one engine and "0 – 1" in another. Here every engine
    picked −0.0 before the fix (labels "> -0", "-1 – -0"); an edge at zero is now always +0.0."""
    n = 2_500
    rng = np.random.default_rng(6)
    y = rng.random(n) < 0.4
    score = np.round(rng.normal(size=n) - 0.8 * y).clip(-2, 2)  # −0.0 among the zeros
    assert np.signbit(score[score == 0]).any() and not np.signbit(score[score == 0]).all()
    df = pd.DataFrame(
        {"y": y.astype(int), "s": score, "day": (np.datetime64("2025-01-01") + rng.integers(0, 200, n)).astype(str)}
    )
    data = _parts(tmp_path, df)
    docs = _run_all(
        tmp_path,
        {
            "label": "y",
            "date": "day",
            "bootstrap": {"resamples": 0},
            "credit": {"grades": {"quantiles": 3}, "min_defaults": 2},
            "models": [{"name": "a", "file": data, "score": "s", "direction": "lower"}],
        },
        scheduler,
        capsys,
    )
    _same(docs)
    labels = [g["grade"] for g in docs["memory"]["credit"]["models"]["a"]["grades"]]
    assert not any("-0 " in f"{label} " for label in labels), labels


# --- batch boundaries, binned weights, id joins, formats (a second fuzzer) -------------


def _weighted_frame(n: int, seed: int) -> pd.DataFrame:
    """Two models of heavy ties and fractional weights (two decimals): sums that round."""
    rng = np.random.default_rng(seed)
    y = (rng.random(n) < 0.4).astype(int)
    return pd.DataFrame(
        {
            "id": np.arange(n),
            "y": y,
            "w": np.round(rng.uniform(0.1, 3.0, n), 2),
            "s0": np.round(rng.normal(size=n) + y, 1),
            "s1": np.round(rng.normal(size=n) + 0.5 * y, 1),
        }
    )


def test_weighted_mcnemar_tables_do_not_depend_on_the_batches(tmp_path, scheduler, capsys):
    """Sampling weights, two models in one file read in three batches / parts: McNemar's weighted
    table (``weighted_table``) was summed batch by batch (a ``bincount`` per batch, batches
    added; memory: every row at once), so its cells differed in their last bits between all three
    engines (found by fuzzing: 1066.5800000000008 against 1066.5799999999997). The rows are now
    counted per (pattern of the models being right, weight) and summed in one canonical order."""
    df = _weighted_frame(2_500, 21)
    data = _parts(tmp_path, df)
    docs = _run_all(
        tmp_path,
        {
            "label": "y",
            "weight": "w",
            "bootstrap": {"resamples": 0},
            "models": [
                {"name": "a", "file": data, "score": "s0", "threshold": 0.5},
                {"name": "b", "file": data, "score": "s1", "threshold": 0.2},
            ],
        },
        scheduler,
        capsys,
    )
    _same(docs)
    table = np.array(docs["memory"]["comparisons"][0]["tests"]["mcnemar"]["weighted_table"])
    assert table.sum() == pytest.approx(df["w"].sum(), rel=1e-12)


def test_binned_weighted_tables_do_not_depend_on_the_batches(tmp_path, scheduler, capsys):
    """A weighted model past ``stream.max_distinct_scores`` is binned; each bin's weights were
    summed batch by batch (stream) or part by part (dask), so its table, accuracy, optima and
    histogram differed in their last bits between stream and dask (found by fuzzing: positives
    664.8 against 664.7999999999998). The weighted rows are now counted per (bin, class, weight)
    and the bins' sums taken from those cells in one canonical order. Seventeen parts of 150 rows
    (stream: a batch per part, added in turn; dask: merged up a tree of eight); memory never bins
    (its ``binning`` is null)."""
    n = 2_500
    rng = np.random.default_rng(22)
    y = (rng.random(n) < 0.4).astype(int)
    df = pd.DataFrame({"y": y, "s": rng.normal(size=n) + y, "w": np.round(rng.uniform(0.1, 3.0, n), 2)})
    data = _parts(tmp_path, df, rows=150)
    docs = _run_all(
        tmp_path,
        {
            "label": "y",
            "weight": "w",
            "bootstrap": {"resamples": 0},
            "stream": {"batch_rows": 1000, "max_distinct_scores": 100, "bins": 20},
            "models": [{"name": "a", "file": data, "score": "s"}],
        },
        scheduler,
        capsys,
    )
    assert docs["stream"]["models"]["a"]["binning"] is not None
    diff = first_difference(docs["stream"], docs["dask"])
    assert diff is None, f"stream vs dask: {diff}"
    assert docs["stream"]["models"]["a"]["positives"] == pytest.approx(df.loc[df.y == 1, "w"].sum(), rel=1e-12)


@pytest.mark.parametrize("kind", ["frequency", "sampling"])
def test_a_weighted_model_binned_from_many_small_parts_gets_stream_s_edges(kind, tmp_path, scheduler, capsys):
    """Dask merges parts up a tree of eight. Parts whose merge stayed under
    ``stream.max_distinct_scores`` lost their sample of the scores, and the next merge sampled
    their table instead — whose sums are weights, not rows (a row of weight 0 left out, of weight
    2 counted twice, of weight 0.4 none). So a weighted model binned from many small parts got
    other bin edges in dask than in stream (found with 1-row Parquet parts: accuracy 0.324
    against 0.342). The samples of weighted parts are now merged at every node. Here 40 parts of
    12 rows: eight of them merge to 96 distinct scores, under the cap of 100."""
    n = 480
    rng = np.random.default_rng(9)
    y = (rng.random(n) < 0.3).astype(int)
    w = rng.integers(0, 3, n) if kind == "frequency" else np.round(rng.uniform(0.1, 3.0, n), 2)
    df = pd.DataFrame({"y": y, "s": rng.normal(size=n) + y, "w": w})
    d = tmp_path / "parts"
    d.mkdir()
    for i in range(0, n, 12):
        pq.write_table(pa.Table.from_pandas(df.iloc[i : i + 12], preserve_index=False), d / f"part-{i:04d}.parquet")
    docs = _run_all(
        tmp_path,
        {
            "label": "y",
            "weight": "w",
            "weight_kind": kind,
            "bootstrap": {"resamples": 0},
            "stream": {"batch_rows": 1000, "max_distinct_scores": 100, "bins": 10, "sample_per_batch": 10},
            "models": [{"name": "a", "file": "parts", "score": "s", "direction": "lower"}],
        },
        scheduler,
        capsys,
    )
    assert docs["stream"]["models"]["a"]["binning"] is not None
    diff = first_difference(docs["stream"], docs["dask"])
    assert diff is None, f"stream vs dask: {diff}"


def test_multiclass_weights_given_per_model_sum_mcnemar_alike(tmp_path, scheduler, capsys):
    """Multiclass models weighted by ``models[i].weight`` (no run-level ``weight``): the joint
    confusion counts against the baseline were summed in canonical weight cells only for a
    run-level weight, so McNemar's ``weighted_table`` differed in its last bits between memory,
    stream (batches) and dask (parts). Every weighted run is now counted in cells."""
    n = 2_500
    rng = np.random.default_rng(10)
    k = rng.integers(0, 3, n)
    classes = np.array(["a", "b", "c"], dtype=object)
    z = rng.normal(size=(n, 3))
    z[np.arange(n), k] += 1.0
    p = np.round(np.exp(z) / np.exp(z).sum(axis=1, keepdims=True), 2)
    df = pd.DataFrame(
        {
            "y": classes[k],
            "pa": p[:, 0],
            "pb": p[:, 1],
            "pc": p[:, 2],
            "rule": classes[rng.integers(0, 3, n)],
            "w": np.round(rng.uniform(0.1, 3.0, n), 2),
        }
    )
    data = _parts(tmp_path, df, rows=150)
    docs = _run_all(
        tmp_path,
        {
            "task": "multiclass",
            "label": "y",
            "bootstrap": {"resamples": 0},
            "models": [
                {"name": "m", "file": data, "scores": {"a": "pa", "b": "pb", "c": "pc"}, "weight": "w"},
                {"name": "rule", "file": data, "prediction": "rule", "weight": "w"},
            ],
        },
        scheduler,
        capsys,
    )
    _same(docs)
    table = np.array(docs["memory"]["comparisons"][0]["tests"]["mcnemar"]["weighted_table"])
    assert table.sum() == pytest.approx(df["w"].sum(), rel=1e-12)
