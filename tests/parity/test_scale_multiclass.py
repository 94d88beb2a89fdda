"""task: multiclass with engine: stream and engine: dask gives the in-memory numbers (issue 8).

A CSV and a hive-partitioned Parquet dataset written by the test, read in small batches so
that many batch tables are merged; every metric, per-class value, confusion matrix and curve
must equal the in-memory run (unit weights: every count and every AUC's Mann–Whitney sum is
a whole or half number, so the engines agree bit for bit). The Dask tests share one real
LocalCluster (two worker processes) per module, passed to reportgen as its scheduler.
"""

from __future__ import annotations

from pathlib import Path

import numpy as np
import pandas as pd
import pyarrow as pa
import pyarrow.parquet as pq
import pytest

from reportgen.config import load_config
from reportgen.errors import InputError
from reportgen.pipeline import analyse
from reportgen.report.wording import NO_BOOTSTRAP, comparison_notes

N = 12_000
CLASSES = ["current", "early", "late", "default"]


@pytest.fixture(scope="module")
def lake(tmp_path_factory) -> Path:
    d = tmp_path_factory.mktemp("mclake")
    rng = np.random.default_rng(5)
    y = rng.choice(4, size=N, p=[0.6, 0.2, 0.15, 0.05])
    df = pd.DataFrame({"stage": np.array(CLASSES, dtype=object)[y]})
    for name, noise, dec in (("g", 1.0, 3), ("l", 1.6, 2)):
        z = rng.normal(scale=noise, size=(N, 4))
        z[np.arange(N), y] += 1.5
        p = np.exp(z) / np.exp(z).sum(axis=1, keepdims=True)
        for c, cls in enumerate(CLASSES):
            df[f"{name}_{cls}"] = np.round(p[:, c], dec)  # ties within and across classes
    flip = rng.random(N) < 0.3
    df["rule"] = np.where(flip, np.array(CLASSES, dtype=object)[rng.integers(0, 4, N)], df["stage"])
    df["part"] = rng.integers(0, 4, N)
    days = rng.integers(0, 365, N)
    df["day"] = (np.datetime64("2025-01-01") + days).astype(str)
    pq.write_to_dataset(pa.Table.from_pandas(df), d / "ds", partition_cols=["part"])
    df.drop(columns="part").to_csv(d / "all.csv", index=False)
    return d


def _config(d: Path, file: str, extra: str = "", classes: bool = True) -> Path:
    cfg = d / f"m_{abs(hash((file, extra, classes)))}.yaml"
    cls = (
        "classes: [current, early, late, default]\ncosts: [[0, 1, 2, 3], [2, 0, 1, 2], [4, 2, 0, 1], [8, 4, 2, 0]]\n"
        if classes
        else ""
    )
    cfg.write_text(
        "title: mc scale\ntask: multiclass\nlabel: stage\ndate: day\nbootstrap: {resamples: 0}\n"
        + cls
        + extra
        + f"models:\n  - {{name: gbm, file: {file}, scores: [g_current, g_early, g_late, g_default]}}\n"
        f"  - {{name: logit, file: {file}, scores: {{late: l_late, current: l_current, default: l_default, early: l_early}}}}\n"
        f"  - {{name: rules, file: {file}, prediction: rule}}\n"
    )
    return cfg


def _run(cfg_path: Path, engine: str, **over):
    cfg, p = load_config(cfg_path)
    return analyse(cfg.with_overrides(engine=engine, **over), p)


def _assert_same(mem, st):
    assert st.run.classes == mem.run.classes
    assert st.run.date_range == mem.run.date_range
    assert st.run.warnings == mem.run.warnings
    for name, mx in mem.models.items():
        my = st.models[name]
        assert my.metrics == mx.metrics, name
        assert my.undefined == mx.undefined and my.undefined_reasons == mx.undefined_reasons, name
        assert my.per_class == mx.per_class, name
        assert my.confusion_matrix == mx.confusion_matrix, name
        assert my.rule == mx.rule and my.probabilities == mx.probabilities and my.n == mx.n
        if mx.multiclass_curves is None:
            assert my.multiclass_curves is None
            continue
        for kind in ("per_class_roc", "per_class_pr"):
            cx, cy = getattr(mx.multiclass_curves, kind), getattr(my.multiclass_curves, kind)
            assert cx.keys() == cy.keys()
            for c in cx:
                assert np.array_equal(cx[c].x, cy[c].x) and np.array_equal(cx[c].y, cy[c].y), (name, kind, c)
        assert np.array_equal(mx.multiclass_curves.micro_roc.x, my.multiclass_curves.micro_roc.x)
    for cx, cy in zip(mem.comparisons, st.comparisons):
        assert cx.model == cy.model and cx.delta == cy.delta
        assert cx.tests.mcnemar.table == cy.tests.mcnemar.table
        assert cx.tests.mcnemar.p_value == cy.tests.mcnemar.p_value
        # no resamples asked for: no interval and nothing missing, in every engine
        assert not cx.ci and not cy.ci and cy.capabilities == cx.capabilities
        assert NO_BOOTSTRAP not in comparison_notes(cy, st)


@pytest.mark.parametrize("file", ["ds", "all.csv"])
def test_stream_multiclass_equals_memory(lake, file):
    cfg = _config(lake, file)
    mem = _run(cfg, "memory")
    st = _run(cfg, "stream", stream={"batch_rows": 1_000})
    _assert_same(mem, st)
    assert st.run.engine == "stream" and st.run.paired


def test_stream_multiclass_classes_from_the_data(lake):
    """Without 'classes' the class list is only known at the end: counts are permuted then."""
    cfg = _config(lake, "all.csv", classes=False)
    mem = _run(cfg, "memory")
    st = _run(cfg, "stream", stream={"batch_rows": 1_500})
    assert list(st.run.classes) == sorted(CLASSES)
    _assert_same(mem, st)


def test_stream_multiclass_weights_match_memory(lake, tmp_path):
    df = pd.read_csv(lake / "all.csv").iloc[:3000]
    df["w"] = np.random.default_rng(1).integers(1, 4, len(df)).astype(float)
    df.to_csv(tmp_path / "w.csv", index=False)
    # frequency weights: memory repeats the rows, stream counts the weights: one McNemar table
    cfg = _config(tmp_path, "w.csv", "weight: w\nweight_kind: frequency\n")
    mem, st = _run(cfg, "memory"), _run(cfg, "stream", stream={"batch_rows": 1_000})
    for name, mx in mem.models.items():
        my = st.models[name]
        assert my.confusion_matrix == mx.confusion_matrix
        for k, v in mx.metrics.items():  # whole-number weights: equal up to the order of float sums
            assert my.metrics[k] == (None if v is None else pytest.approx(v, rel=1e-12, abs=1e-15)), (name, k)
    assert st.comparisons[0].tests.mcnemar.table == mem.comparisons[0].tests.mcnemar.table


def test_stream_multiclass_errors_name_the_global_row(lake, tmp_path):
    df = pd.read_csv(lake / "all.csv").iloc[:3000].copy()
    df.loc[2500, "rule"] = "paid"
    df.to_csv(tmp_path / "bad.csv", index=False)
    cfg = _config(tmp_path, "bad.csv")
    with pytest.raises(
        InputError, match=r"bad.csv: column 'rule', row 2502: label 'paid' is not one of the configured classes"
    ):
        _run(cfg, "stream", stream={"batch_rows": 1_000})
    df.loc[2500, "rule"] = "late"
    df.loc[2200, "g_early"] = None
    df.to_csv(tmp_path / "bad.csv", index=False)
    with pytest.raises(InputError, match=r"bad.csv: row 2202: missing or non-finite class score"):
        _run(cfg, "stream", stream={"batch_rows": 1_000})


def test_stream_multiclass_cap(lake):
    with pytest.raises(InputError, match=r"more than 100 distinct scores; streamed multiclass tables are not binned"):
        _run(_config(lake, "all.csv"), "stream", stream={"batch_rows": 1_000, "max_distinct_scores": 100})


def test_stream_multiclass_mcnemar_over_two_files_lines_up_rows(lake, tmp_path):
    """Regression: the paired pass over several files cut pandas frames with ``.slice`` (arrow only)."""
    df = pd.read_csv(lake / "all.csv").iloc[:5000]
    df[["stage", *(f"g_{c}" for c in CLASSES)]].to_csv(tmp_path / "g.csv", index=False)
    df[["stage", "rule"]].to_csv(tmp_path / "r.csv", index=False)
    cfg = tmp_path / "two.yaml"
    cfg.write_text(
        "task: multiclass\nlabel: stage\nclasses: [current, early, late, default]\nbootstrap: {resamples: 0}\n"
        "models:\n  - {name: gbm, file: g.csv, scores: [g_current, g_early, g_late, g_default]}\n"
        "  - {name: rules, file: r.csv, prediction: rule}\n"
    )
    mem, st = _run(cfg, "memory"), _run(cfg, "stream", stream={"batch_rows": 1_000})
    assert st.run.paired and mem.run.paired
    assert st.comparisons[0].tests.mcnemar.table == mem.comparisons[0].tests.mcnemar.table


# --- engine: dask --------------------------------------------------------------------------


def test_dask_multiclass_equals_memory(lake, scheduler):
    """Four Parquet parts of three batches each, mapped and merged on two workers."""
    cfg = _config(lake, "ds")
    mem = _run(cfg, "memory")
    dk = _run(cfg, "dask", scheduler=scheduler, stream={"batch_rows": 1_000})
    _assert_same(mem, dk)
    assert dk.run.engine == "dask" and dk.run.paired
    assert [f.rows for f in dk.run.files] == [N]


@pytest.fixture(scope="module")
def rare(tmp_path_factory) -> Path:
    """Five classes; 'arrears' (first in sorted order) occurs, as truth and prediction, in one partition only."""
    d = tmp_path_factory.mktemp("mcrare")
    rng = np.random.default_rng(8)
    n = 8_000
    classes = ["arrears", *CLASSES]
    part = rng.integers(0, 4, n)
    y = rng.choice([1, 2, 3, 4], size=n, p=[0.55, 0.25, 0.15, 0.05])
    y[(part == 2) & (rng.random(n) < 0.1)] = 0
    df = pd.DataFrame({"stage": np.array(classes, dtype=object)[y], "part": part})
    z = rng.normal(size=(n, 5))
    z[np.arange(n), y] += 1.5
    p = np.round(np.exp(z) / np.exp(z).sum(axis=1, keepdims=True), 3)
    for c in range(5):  # list columns: position = class in sorted order
        df[f"s{c}"] = p[:, c]
    flip = rng.random(n) < 0.3
    df["rule"] = np.where(flip, np.array(CLASSES, dtype=object)[rng.integers(0, 4, n)], df["stage"])
    pq.write_to_dataset(pa.Table.from_pandas(df), d / "ds", partition_cols=["part"])
    assert sorted(set(pd.read_parquet(d / "ds").query("stage == 'arrears'")["part"].astype(int))) == [2]
    (d / "c.yaml").write_text(
        "task: multiclass\nlabel: stage\nbootstrap: {resamples: 0}\n"
        "models:\n  - {name: gbm, file: ds, scores: [s0, s1, s2, s3, s4]}\n  - {name: rules, file: ds, prediction: rule}\n"
    )
    return d


def test_dask_multiclass_learns_classes_across_parts(rare, scheduler):
    """Without 'classes' each part numbers the classes it meets; merges remap them into one list."""
    mem = _run(rare / "c.yaml", "memory")
    dk = _run(rare / "c.yaml", "dask", scheduler=scheduler, stream={"batch_rows": 1_000})
    assert dk.run.classes == ("arrears", "current", "default", "early", "late")
    _assert_same(mem, dk)
    assert dk.models["rules"].per_class["arrears"]["support"] == mem.models["rules"].per_class["arrears"]["support"] > 0


def test_dask_multiclass_models_in_two_datasets(lake, tmp_path, scheduler):
    """Each dataset reduced on its own, classes united at the end; McNemar says why it is missing."""
    df = pq.read_table(lake / "ds").to_pandas()
    df["part"] = df["part"].astype(int)
    pq.write_to_dataset(pa.Table.from_pandas(df.drop(columns="rule")), tmp_path / "g", partition_cols=["part"])
    df[["stage", "rule", "day"]].to_csv(tmp_path / "r.csv", index=False)
    cfg = tmp_path / "two.yaml"
    cfg.write_text(
        "task: multiclass\nlabel: stage\nbootstrap: {resamples: 0}\n"
        "models:\n  - {name: gbm, file: g, scores: [g_current, g_early, g_late, g_default]}\n"
        "  - {name: rules, file: r.csv, prediction: rule}\n"
    )
    one = _run(_config(lake, "ds", classes=False), "memory")
    dk = _run(cfg, "dask", scheduler=scheduler, stream={"batch_rows": 1_000})
    assert dk.run.classes == one.run.classes
    for name in ("gbm", "rules"):
        assert dk.models[name].metrics == one.models[name].metrics
        assert dk.models[name].confusion_matrix == one.models[name].confusion_matrix
    # rows of the two datasets line up by position (as memory matches them): paired by a shuffle
    # by range of row positions, with memory's McNemar (dask used to say 'separate_files')
    mem = _run(cfg, "memory")
    assert dk.run.paired and mem.run.paired and dk.comparisons[0].capabilities == mem.comparisons[0].capabilities == {}
    assert dk.comparisons[0].tests.mcnemar == mem.comparisons[0].tests.mcnemar is not None


def test_dask_multiclass_errors_name_the_dataset_and_row_as_memory_does(lake, tmp_path, scheduler):
    """A bad row in the second part: dask named the part and its row within the part
    ("part=1/….parquet: row 502") where memory and stream named the dataset and its row (issue 15:
    one message in every engine)."""
    df = pd.read_csv(lake / "all.csv").iloc[:4000].copy()
    df["part"] = np.arange(len(df)) // 2000
    df.loc[2500, "rule"] = "paid"  # row 500 of the second part
    pq.write_to_dataset(pa.Table.from_pandas(df), tmp_path / "bad", partition_cols=["part"])
    cfg = _config(tmp_path, "bad")
    messages = []
    for engine in ("memory", "dask"):
        with pytest.raises(
            InputError, match=r"bad: column 'rule', row 2502: label 'paid' is not one of the configured classes"
        ) as exc:
            _run(cfg, engine, scheduler=scheduler, stream={"batch_rows": 1_000})
        messages.append(str(exc.value))
    assert messages[0] == messages[1]
    # multiclass tables are not binned on Dask either: past the cap is an error, not an approximation
    with pytest.raises(InputError, match=r"more than 100 distinct scores; streamed multiclass tables are not binned"):
        _run(_config(lake, "ds"), "dask", scheduler=scheduler, stream={"batch_rows": 1_000, "max_distinct_scores": 100})


@pytest.mark.slow
def test_dask_multiclass_csv_with_weights(lake, tmp_path, scheduler):
    """A CSV is one task, as in the binary Dask path; whole-number weights give the in-memory numbers."""
    df = pd.read_csv(lake / "all.csv").iloc[:3000]
    df["w"] = np.random.default_rng(1).integers(1, 4, len(df)).astype(float)
    df.to_csv(tmp_path / "w.csv", index=False)
    cfg = _config(tmp_path, "w.csv", "weight: w\nweight_kind: frequency\n")  # McNemar on the repeated rows
    mem, dk = _run(cfg, "memory"), _run(cfg, "dask", scheduler=scheduler, stream={"batch_rows": 1_000})
    for name, mx in mem.models.items():
        my = dk.models[name]
        assert my.confusion_matrix == mx.confusion_matrix
        for k, v in mx.metrics.items():  # equal up to the order of float sums
            assert my.metrics[k] == (None if v is None else pytest.approx(v, rel=1e-12, abs=1e-15)), (name, k)
    assert dk.comparisons[0].tests.mcnemar.table == mem.comparisons[0].tests.mcnemar.table
