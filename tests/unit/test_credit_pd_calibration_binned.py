"""A scorecard's PD in the calibration section (issue 45): ECE, MCE, Murphy's decomposition and
skill computed on the PD column over the run's calibration bins, equal to a direct computation
with scikit-learn's calibration_curve and brier_score_loss, the same from rows and from counted
rows, and labelled as the PD column's in the section."""

from __future__ import annotations

import numpy as np
import pytest
from sklearn.calibration import calibration_curve
from sklearn.metrics import brier_score_loss

import reportgen.engine.credit as C


@pytest.fixture(scope="module")
def scorecard() -> tuple[np.ndarray, np.ndarray, np.ndarray]:
    rng = np.random.default_rng(45)
    pd = np.round(rng.beta(1.3, 6.0, 800), 3)
    y = rng.random(800) < pd
    return y, np.round(600 - 40 * np.log(pd / (1 - pd) + 1e-6)), pd


def test_the_pds_binned_calibration_equals_a_direct_computation(scorecard):
    y, points, pd = scorecard
    s = C.CreditSample(y=y, score=points, pd=pd)
    brier = brier_score_loss(y, pd)
    got = C.pd_calibration(s, 5, "uniform", brier, 0, np.random.default_rng(0), 0.95)
    assert got is not None
    obs, pred = calibration_curve(y, pd, n_bins=5, strategy="uniform")
    assert got.observed == pytest.approx(obs, rel=1e-12) and got.mean_predicted == pytest.approx(pred, rel=1e-12)
    b = np.searchsorted(np.linspace(0, 1, 6)[1:-1], pd, side="left")  # (e_k, e_k+1], scikit-learn's bins
    w = np.bincount(b, minlength=5) / len(pd)
    gap = np.abs(np.bincount(b, weights=y, minlength=5) - np.bincount(b, weights=pd, minlength=5))
    ece = float(np.sum(gap) / len(pd))
    rate = y.mean()
    ok = w > 0
    o_k = np.bincount(b, weights=y, minlength=5)[ok] / np.bincount(b, minlength=5)[ok]
    p_k = np.bincount(b, weights=pd, minlength=5)[ok] / np.bincount(b, minlength=5)[ok]
    v = got.values
    assert v["ece"] == pytest.approx(ece, rel=1e-12) and v["mce"] == pytest.approx(np.max(np.abs(o_k - p_k)), rel=1e-12)
    assert v["reliability"] == pytest.approx(np.sum(w[ok] * (p_k - o_k) ** 2), rel=1e-12)
    assert v["resolution"] == pytest.approx(np.sum(w[ok] * (o_k - rate) ** 2), rel=1e-12)
    assert v["brier_skill"] == pytest.approx(1 - brier / (rate * (1 - rate)), rel=1e-12)


@pytest.mark.slow  # two Clopper-Pearson tables and bootstraps: about 2 s on a busy machine
def test_the_pds_binned_calibration_is_the_same_from_counted_distinct_rows(scorecard):
    y, points, pd = scorecard
    rows = C.CreditSample(y=y, score=points, pd=pd)
    merged = C.merged_rows(rows)
    args = ("quantile", 0.2, 20)
    a = C.pd_calibration(rows, 3, args[0], args[1], args[2], np.random.default_rng(3), 0.95)
    b = C.pd_calibration(merged, 3, args[0], args[1], args[2], np.random.default_rng(3), 0.95)
    assert a is not None and b is not None
    assert a.values == b.values and dict(a.ci) == dict(b.ci)
    assert np.array_equal(a.counts, b.counts) and np.array_equal(a.observed_lo, b.observed_lo)
