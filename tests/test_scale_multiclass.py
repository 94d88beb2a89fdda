"""task: multiclass with engine: stream gives the in-memory numbers (issue 8).

A CSV and a hive-partitioned Parquet dataset written by the test, read in small batches so
that many batch tables are merged; every metric, per-class value, confusion matrix and curve
must equal the in-memory run (unit weights: every count and every AUC's Mann–Whitney sum is
a whole or half number, so the two engines agree bit for bit).
"""

from __future__ import annotations

from pathlib import Path

import numpy as np
import pandas as pd
import pyarrow as pa
import pyarrow.parquet as pq
import pytest

from reportgen.config import load_config
from reportgen.engine.compare_multiclass import NO_BOOTSTRAP
from reportgen.errors import ConfigError, InputError
from reportgen.pipeline import analyse

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
    cls = "classes: [current, early, late, default]\ncosts: [[0, 1, 2, 3], [2, 0, 1, 2], [4, 2, 0, 1], [8, 4, 2, 0]]\n" if classes else ""
    cfg.write_text(
        "title: mc scale\ntask: multiclass\nlabel: stage\ndate: day\nbootstrap: {resamples: 0}\n" + cls + extra +
        f"models:\n  - {{name: gbm, file: {file}, scores: [g_current, g_early, g_late, g_default]}}\n"
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
        assert my.undefined == mx.undefined, name
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
        assert NO_BOOTSTRAP in cy.tests.notes


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
    assert st.run.classes == sorted(CLASSES)
    _assert_same(mem, st)


def test_stream_multiclass_weights_match_memory(lake, tmp_path):
    df = pd.read_csv(lake / "all.csv").iloc[:3000]
    df["w"] = np.random.default_rng(1).integers(1, 4, len(df)).astype(float)
    df.to_csv(tmp_path / "w.csv", index=False)
    cfg = _config(tmp_path, "w.csv", "weight: w\n")
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
    with pytest.raises(InputError, match=r"bad.csv: column 'rule', row 2502: label 'paid' is not one of the configured classes"):
        _run(cfg, "stream", stream={"batch_rows": 1_000})
    df.loc[2500, "rule"] = "late"
    df.loc[2200, "g_early"] = None
    df.to_csv(tmp_path / "bad.csv", index=False)
    with pytest.raises(InputError, match=r"bad.csv: row 2202: missing or non-finite class score"):
        _run(cfg, "stream", stream={"batch_rows": 1_000})


def test_stream_multiclass_cap_and_dask(lake):
    with pytest.raises(InputError, match=r"more than 100 distinct scores; streamed multiclass tables are not binned"):
        _run(_config(lake, "all.csv"), "stream", stream={"batch_rows": 1_000, "max_distinct_scores": 100})
    with pytest.raises(ConfigError, match=r"engine: dask supports task: binary only"):
        _run(_config(lake, "all.csv"), "dask")


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
