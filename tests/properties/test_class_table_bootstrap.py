"""Each class's one-vs-rest AUC drawn on the class tables (:func:`reportgen.engine.intervals.ovr_auc_bootstrap`)
against the row bootstrap stratified by true class (oracle: scikit-learn's ``roc_auc_score`` with the
resample's multiplicities as weights), and the same intervals from every engine's tables."""

from __future__ import annotations

import numpy as np
import pytest
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st
from oracles import checked_against_sklearn
from scipy import stats as sps
from sklearn.metrics import roc_auc_score

from reportgen.engine import intervals as IV
from reportgen.engine import stats
from reportgen.engine.class_tables import build_class_tables, merge_class_tables, ovr_score_table, table_auc


def _rows(n: int, k: int, seed: int, decimals: int = 1):
    """True classes and tied class probabilities (rounded: many ties within and across classes)."""
    rng = np.random.default_rng(seed)
    y = rng.choice(k, n, p=np.linspace(1.0, 2.0, k) / np.linspace(1.0, 2.0, k).sum())
    logits = rng.normal(size=(n, k)) + 1.2 * np.eye(k)[y]
    p = np.exp(logits) / np.exp(logits).sum(axis=1, keepdims=True)
    return y, np.round(p, decimals)


def _draws(y, p, k, resamples, seed):
    t = build_class_tables(y, p, None, k)
    return t, IV.ovr_auc_bootstrap(
        [list(v) for v in t.values], [list(c) for c in t.counts], resamples, np.random.default_rng(seed)
    )


def test_replicates_have_the_row_bootstraps_distribution():
    """2,000 replicates each: quantiles within Monte-Carlo error and a two-sample KS test that
    does not reject, for every class (heavy ties, unequal class sizes)."""
    k, B = 3, 2_000
    y, p = _rows(90, k, 4)
    _, got = _draws(y, p, k, B, 1)
    mult = np.array(list(stats.stratified_bootstrap_counts(y, B, np.random.default_rng(2))))
    # scikit-learn's roc_auc_score on each resample, all resamples at once (the first ones checked
    # against scikit-learn's own calls)
    rows = np.column_stack([checked_against_sklearn(p[:, j], y == j, mult, 0.5)[:, 0] for j in range(k)])
    for j in range(k):
        a, b = got[:, j], rows[:, j]
        se = b.std() / np.sqrt(B)
        assert abs(a.mean() - b.mean()) < 5 * se * np.sqrt(2), j
        assert a.std() == pytest.approx(b.std(), rel=0.1), j
        assert np.quantile(a, [0.025, 0.5, 0.975]) == pytest.approx(np.quantile(b, [0.025, 0.5, 0.975]), abs=0.02)
        assert sps.ks_2samp(a, b).pvalue > 1e-3, j


@settings(max_examples=40, deadline=None, suppress_health_check=[HealthCheck.too_slow])
@given(st.integers(4, 120), st.integers(2, 5), st.integers(0, 2**31), st.sampled_from([0, 1, 2]))
def test_every_replicate_is_an_auc_of_a_resample_and_the_draw_is_order_free(n, k, seed, decimals):
    """Replicates lie in [0, 1] (NaN only for a class with no rows or all rows); a class that
    separates perfectly draws 1 every time; tables merged from parts in any order draw the same
    stream; the point AUC of the same formula is the one-vs-rest table's AUC."""
    y, p = _rows(n, k, seed, decimals)
    t, d = _draws(y, p, k, 50, seed + 1)
    for j in range(k):
        present = 0 < np.count_nonzero(y == j) < n
        assert np.isfinite(d[:, j]).all() == present and (not present or ((d[:, j] >= 0) & (d[:, j] <= 1)).all())
        if present and p[y == j, j].min() > p[y != j, j].max():
            assert (d[:, j] == 1.0).all()
    half = n // 2
    parts = [build_class_tables(y[half:], p[half:], None, k), build_class_tables(y[:half], p[:half], None, k)]
    merged = merge_class_tables(*parts)
    again = IV.ovr_auc_bootstrap(
        [list(v) for v in merged.values], [list(c) for c in merged.counts], 50, np.random.default_rng(seed + 1)
    )
    np.testing.assert_array_equal(np.nan_to_num(again, nan=-1), np.nan_to_num(d, nan=-1))
    one = IV.ovr_auc_bootstrap([list(v) for v in t.values], [list(c) for c in t.counts], 1, np.random.default_rng(0))
    assert one.shape == (1, k)
    for j in range(k):
        if 0 < np.count_nonzero(y == j) < n:
            assert table_auc(ovr_score_table(t, j)) == pytest.approx(roc_auc_score(y == j, p[:, j]), abs=1e-12)


def test_every_engine_gives_the_same_per_class_intervals(tmp_path):
    """memory and stream keep the same distinct rows, so the same draws and intervals, drawn with the
    averaged AUCs on the rows' resamples (dask: the parity suite)."""
    import json

    import pandas as pd
    import yaml

    from reportgen.config import load_config
    from reportgen.engine.compare import ROW_BOOTSTRAP
    from reportgen.pipeline import analyse

    y, p = _rows(300, 3, 9, 2)
    classes = ["a", "b", "c"]
    df = pd.DataFrame(
        {
            "y": np.array(classes)[y],
            **{f"s_{c}": p[:, j] for j, c in enumerate(classes)},
            **{f"t_{c}": np.round(p[:, j] ** 1.3, 2) for j, c in enumerate(classes)},
        }
    )
    df.to_csv(tmp_path / "mc.csv", index=False)
    cfg = {
        "title": "t",
        "task": "multiclass",
        "label": "y",
        "classes": ["a", "b", "c"],
        "bootstrap": {"resamples": 60, "seed": 3},
        "models": [
            {"name": "s", "file": "mc.csv", "scores": {c: f"s_{c}" for c in classes}, "probabilities": True},
            {"name": "t", "file": "mc.csv", "scores": {c: f"t_{c}" for c in classes}, "probabilities": True},
        ],
    }
    (tmp_path / "c.yaml").write_text(yaml.safe_dump(cfg), encoding="utf-8")
    got = {}
    for engine in ("memory", "stream"):
        c, path = load_config(tmp_path / "c.yaml", overrides=[f"engine={engine}"])
        r = analyse(c, path, now="2026-01-01T00:00:00Z")
        got[engine] = json.dumps(
            {n: {"ci": m.per_class_ci, "how": m.per_class_ci_method} for n, m in r.models.items()},
            default=dict,
            sort_keys=True,
        )
        assert all(set(m.per_class_ci) == {"a", "b", "c"} for m in r.models.values())
        assert all(m.per_class_ci_method["roc_auc"] == ROW_BOOTSTRAP for m in r.models.values())
    assert got["memory"] == got["stream"]


def test_past_the_bin_cap_a_column_is_binned_and_moved_by_its_binning_error(monkeypatch):
    """A column with more cells than a binary table's draws on ``class_bins(k)`` equal-weight bins: the
    replicates centre on the exact AUC (moved by the binning's error), spread as the row
    bootstrap's, and the caller is told which columns were binned; below the cap nothing moves."""
    k, B = 3, 2_000
    y, p = _rows(400, k, 11, decimals=6)  # about one distinct score a row
    t = build_class_tables(y, p, None, k)
    exact = [table_auc(ovr_score_table(t, j)) for j in range(k)]
    unbinned: list[bool] = []
    full = IV.ovr_auc_bootstrap(
        [list(v) for v in t.values], [list(c) for c in t.counts], B, np.random.default_rng(3), unbinned
    )
    assert unbinned == [False] * k
    monkeypatch.setattr(IV, "MODEL_BINS", 8)  # binned past 16 cells a column
    monkeypatch.setattr(IV, "class_bins", lambda k: 16)
    told: list[bool] = []
    got = IV.ovr_auc_bootstrap(
        [list(v) for v in t.values], [list(c) for c in t.counts], B, np.random.default_rng(3), told
    )
    assert told == [True] * k
    for j in range(k):
        a, b = got[:, j], full[:, j]
        assert np.median(a) == pytest.approx(exact[j], abs=0.01), j  # centred on the exact AUC, not the binned one
        assert a.std() == pytest.approx(b.std(), rel=0.15), j
        assert np.quantile(a, [0.025, 0.975]) == pytest.approx(np.quantile(b, [0.025, 0.975]), abs=0.02), j
    # coarser still, the binning's own error is material, and the replicates are moved by it
    monkeypatch.setattr(IV, "class_bins", lambda k: 4)
    coarse = IV.ovr_auc_bootstrap([list(v) for v in t.values], [list(c) for c in t.counts], B, np.random.default_rng(3))
    for j in range(k):
        grid = np.unique(np.concatenate([np.asarray(v) for v in t.values[j]]))
        where = [np.searchsorted(grid, v) for v in t.values[j]]
        *_, shift = IV._binned_column(where, [np.asarray(c, float) for c in t.counts[j]], grid.shape[0], j, 4)
        assert abs(shift) > 0.015, j
        assert np.median(coarse[:, j]) == pytest.approx(exact[j], abs=0.01), j


def test_a_class_column_gets_a_binary_models_share_of_cells():
    """``class_bins``: 2·MODEL_BINS / k bins (a class's draw costs a binary table's), never below the floor."""
    assert IV.class_bins(2) == IV.MODEL_BINS
    assert IV.class_bins(5) == 2 * IV.MODEL_BINS // 5
    assert IV.class_bins(1000) == IV.CLASS_MIN_BINS
    assert all(k * IV.class_bins(k) <= 2 * IV.MODEL_BINS for k in range(2, 2 * IV.MODEL_BINS // IV.CLASS_MIN_BINS + 1))
