"""Paired calibration differences (reportgen.engine.calibration.pair_deltas): exact at the
observed counts however the joint table is binned, the row bootstrap's spread, narrower than the
unpaired interval when the models move together, and used by the driver when rows are paired."""

from __future__ import annotations

import numpy as np
import pandas as pd
import pytest

from reportgen.api import compare_frames
from reportgen.engine import calibration as CAL
from reportgen.engine import intervals as IV
from reportgen.engine.compare import CALIBRATION_DELTA, CALIBRATION_PAIRED
from reportgen.engine.curve import build_table


def _pair(seed: int, n: int, decimals: int) -> tuple[np.ndarray, np.ndarray, np.ndarray]:
    rng = np.random.default_rng(seed)
    p = 1.0 / (1.0 + np.exp(-rng.normal(-0.9, 1.1, n)))
    y = rng.random(n) < np.clip(1.15 * p, 0.0, 1.0)
    q = np.clip(p * 0.8 + rng.normal(0, 0.05, n), 0.0, 1.0)
    return np.round(p, decimals), np.round(q, decimals), y


def _joint(a: np.ndarray, b: np.ndarray, y: np.ndarray):
    """The pair's joint table and each model's table and lut, as the engines' paired pass counts."""
    ta, tb = build_table(a, y), build_table(b, y)
    acc = IV.PairTableAccumulator([ta, tb], [0.3, 0.3])
    # each row's table row: the index of its score in the table
    rows = [np.searchsorted(-t.thresholds, -s) for t, s in ((ta, a), (tb, b))]
    acc.add_moments(acc.moments(rows, y.astype(np.int64)))
    pc = acc.finish()
    return pc.of(0, 1), pc.luts, (ta, tb)


@pytest.mark.parametrize("strategy", ["uniform", "quantile"])
@pytest.mark.parametrize("decimals", [1, 3])  # 1: exact joint cells; 3: binned past JOINT_BINS
def test_at_the_observed_counts_the_paired_difference_is_the_exact_one(monkeypatch, strategy, decimals):
    """The replicate drawn at the observed counts is the exact difference of the two models'
    calibration numbers, also when a joint cell straddles calibration bins (its rows are spread
    over the bins in the exact shares)."""
    a, b, y = _pair(1, 1500, decimals)
    joint, luts, tables = _joint(a, b, y)
    if decimals == 3:
        assert joint.shape[1] < tables[0].n_distinct  # binned
    monkeypatch.setattr(CAL, "stratified_cell_blocks", lambda counts, n_pos, r, rng: iter([(1, [counts[None]])]))
    got = CAL.pair_deltas(joint, luts, tables, 10, strategy, 1, np.random.default_rng(0))[0]
    exact = []
    for t, s in zip(tables, (a, b)):  # the summary on the exact table's bins (model_calibration's numbers)
        which = CAL.bin_of_scores(t, 10, strategy)
        sums = [
            np.bincount(which, weights=w, minlength=10) for w in (t.pos + t.neg, t.pos, (t.pos + t.neg) * t.thresholds)
        ]
        exact.append(CAL.summary(*sums, np.asarray(np.mean((y - s) ** 2))))
    for q, m in enumerate(CAL.METRICS):
        assert got[q] == pytest.approx(exact[0][q] - exact[1][q], abs=1e-12), m


def _ece_brier(s: np.ndarray, y: np.ndarray) -> np.ndarray:
    """ECE over 10 equal-width bins (a score on an inner edge in the bin below, as scikit-learn's
    calibration_curve) and the Brier score, in numpy."""
    k = np.digitize(s, np.linspace(0, 1, 11)[1:-1], right=True)
    n = np.bincount(k, minlength=10)
    ok = n > 0
    obs = np.bincount(k, weights=y, minlength=10)[ok] / n[ok]
    pred = np.bincount(k, weights=s, minlength=10)[ok] / n[ok]
    return np.array([np.sum(n[ok] / s.size * np.abs(obs - pred)), np.mean((y - s) ** 2)])


def test_the_paired_spread_is_the_row_bootstrap_spread():
    """Oracle: the paired stratified bootstrap drawn on the rows themselves (numpy), 1,000
    resamples each; the two standard deviations of the ECE and Brier differences agree within
    Monte Carlo error (about 3 % each: 12 % is three of them; exact joint cells: one decimal)."""
    a, b, y = _pair(2, 600, 1)
    joint, luts, tables = _joint(a, b, y)
    reps = CAL.pair_deltas(joint, luts, tables, 10, "uniform", 1000, np.random.default_rng(1))
    rng = np.random.default_rng(2)
    pos, neg = np.flatnonzero(y), np.flatnonzero(~y)
    oracle = np.empty((1000, 2))
    for r in range(1000):
        i = np.r_[rng.choice(pos, pos.size), rng.choice(neg, neg.size)]
        oracle[r] = _ece_brier(a[i], y[i].astype(float)) - _ece_brier(b[i], y[i].astype(float))
    ours = reps[:, [CAL.METRICS.index("ece"), CAL.METRICS.index("brier")]]
    assert ours.std(axis=0) == pytest.approx(oracle.std(axis=0), rel=0.12)


@pytest.fixture(scope="module")
def paired_and_not():
    a, b, y = _pair(3, 1500, 2)
    df = pd.DataFrame({"y": y.astype(int), "a": a, "b": b})
    common = {"label": "y", "threshold": 0.3, "calibration": {"bins": 10}, "bootstrap": {"resamples": 200, "seed": 3}}
    paired = compare_frames(df, scores=["a", "b"], now="2026-01-01T00:00:00Z", **common)
    apart = compare_frames(
        {"a": df[["y", "a"]], "b": df[["y", "b"]].iloc[:-1]},  # lengths differ, no id: unpaired
        scores={"a": "a", "b": "b"},
        now="2026-01-01T00:00:00Z",
        **common,
    )
    return paired, apart


@pytest.mark.slow  # two runs of the driver with calibration (bootstrap of 200)
def test_the_driver_pairs_the_calibration_differences_when_the_rows_are_aligned(paired_and_not):
    paired, apart = paired_and_not
    dp, du = paired.comparisons[0].calibration, apart.comparisons[0].calibration
    assert dp is not None and du is not None
    assert dp.ci_method == CALIBRATION_PAIRED and du.ci_method == CALIBRATION_DELTA
    ma, mb = paired.models["a"].calibration, paired.models["b"].calibration
    assert ma is not None and mb is not None
    for key in ("ece", "brier", "brier_skill"):
        assert dp.delta[key] == pytest.approx(mb.values[key] - ma.values[key], abs=1e-12)  # type: ignore[operator]
        lo, hi = dp.ci[key]
        assert lo <= dp.delta[key] <= hi  # type: ignore[operator]
    # the models move together on the same rows: pairing narrows the Brier difference's interval
    width = lambda ci: ci[1] - ci[0]  # noqa: E731
    assert width(dp.ci["brier"]) < 0.6 * width(du.ci["brier"])
    assert "uncertainty" not in dp.ci
