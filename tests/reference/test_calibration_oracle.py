"""Calibration numbers (reportgen.engine.calibration) against an independent computation: numpy
on the rows for the bins, ECE, MCE and Murphy's decomposition, scipy.stats.beta for the
Clopper–Pearson intervals, scikit-learn for the bins (``calibration_curve``), the Brier score
(``brier_score_loss``) and its skill (``d2_brier_score``). Data: a public credit data set's
shape (German credit's 30 % default rate, 1,000 applicants) drawn reproducibly, probabilities
rounded to two decimals so that tied scores and scores on bin edges occur."""

from __future__ import annotations

import numpy as np
import pandas as pd
import pytest
from scipy.stats import beta
from sklearn.calibration import calibration_curve
from sklearn.metrics import brier_score_loss, d2_brier_score

from reportgen.api import compare_frames
from reportgen.config import config_from_mapping
from reportgen.engine import calibration as C
from reportgen.engine.curve import build_table
from reportgen.errors import ConfigError


def _credit(seed: int, n: int = 1000) -> tuple[np.ndarray, np.ndarray]:
    rng = np.random.default_rng(seed)
    logit = rng.normal(-0.9, 1.1, n)
    p = 1.0 / (1.0 + np.exp(-logit))
    y = rng.random(n) < np.clip(1.15 * p, 0.0, 1.0)  # a little miscalibrated
    return np.round(p, 2), y


def _oracle(p: np.ndarray, y: np.ndarray, which: np.ndarray, bins: int, level: float = 0.95) -> dict:
    n = np.bincount(which, minlength=bins).astype(float)
    pos = np.bincount(which, weights=y, minlength=bins)
    ssum = np.bincount(which, weights=p, minlength=bins)
    ok = n > 0
    obs, pred, w = pos[ok] / n[ok], ssum[ok] / n[ok], n[ok] / n.sum()
    rate = y.mean()
    k, m = pos[ok], n[ok]
    a = (1 - level) / 2
    lo = np.where(k == 0, 0.0, beta.ppf(a, k, m - k + 1))
    hi = np.where(k == m, 1.0, beta.ppf(1 - a, k + 1, m - k))
    order = np.argsort(pred, kind="stable")
    return {
        "ece": float(np.sum(w * np.abs(obs - pred))),
        "mce": float(np.max(np.abs(obs - pred))),
        "reliability": float(np.sum(w * (pred - obs) ** 2)),
        "resolution": float(np.sum(w * (obs - rate) ** 2)),
        "uncertainty": float(rate * (1 - rate)),
        "observed": obs[order],
        "mean_predicted": pred[order],
        "lo": lo[order],
        "hi": hi[order],
    }


@pytest.mark.parametrize("seed", [1, 2, 3])
@pytest.mark.parametrize("bins", [5, 10, 17])
def test_uniform_bins_equal_an_independent_computation_and_scikit_learn(seed, bins):
    p, y = _credit(seed)
    c = C.model_calibration(
        build_table(p, y), bins, "uniform", brier_score_loss(y, p), 0, np.random.default_rng(0), 0.95
    )
    assert c is not None
    prob_true, prob_pred = calibration_curve(y, p, n_bins=bins, strategy="uniform")
    np.testing.assert_allclose(c.observed, prob_true, rtol=1e-12)
    np.testing.assert_allclose(c.mean_predicted, prob_pred, rtol=1e-12)
    which = np.searchsorted(np.linspace(0, 1, bins + 1)[1:-1], p)  # numpy on the rows
    o = _oracle(p, y, which, bins)
    for key in ("ece", "mce", "reliability", "resolution", "uncertainty"):
        assert c.values[key] == pytest.approx(o[key], rel=1e-10, abs=1e-15), key
    np.testing.assert_allclose(c.observed_lo, o["lo"], rtol=1e-9, atol=1e-15)
    np.testing.assert_allclose(c.observed_hi, o["hi"], rtol=1e-9, atol=1e-15)
    assert c.values["brier"] == pytest.approx(brier_score_loss(y, p), rel=1e-12)
    assert c.values["brier_skill"] == pytest.approx(d2_brier_score(y, p), rel=1e-10)


def test_quantile_bins_hold_about_equal_rows_and_equal_the_independent_computation():
    p, y = _credit(4)
    c = C.model_calibration(
        build_table(p, y), 10, "quantile", brier_score_loss(y, p), 0, np.random.default_rng(0), 0.95
    )
    assert c is not None
    # the oracle's bins: distinct scores in ascending order, a score's bin from the rows before it
    _values, inverse, counts = np.unique(p, return_inverse=True, return_counts=True)
    before = np.cumsum(counts) - counts
    raw = np.floor(before * 10 / counts.sum()).astype(int)
    dense = np.cumsum(np.r_[0, (raw[1:] != raw[:-1]).astype(int)])
    o = _oracle(p, y, dense[inverse], 10)
    for key in ("ece", "mce", "reliability", "resolution"):
        assert c.values[key] == pytest.approx(o[key], rel=1e-10), key
    np.testing.assert_allclose(c.observed, o["observed"], rtol=1e-12)
    assert c.counts.sum() == 1000 and c.counts.max() < 160


def test_bootstrap_intervals_cover_the_values_and_the_delta_is_the_difference():
    p, y = _credit(5, 2000)
    q = np.clip(np.round(p * 0.7, 2), 0, 1)  # a worse-calibrated model on the same rows
    df = pd.DataFrame({"y": y.astype(int), "good": p, "shrunk": q})
    res = compare_frames(
        df,
        label="y",
        scores=["good", "shrunk"],
        threshold=0.3,
        calibration={"bins": 10},
        bootstrap={"resamples": 200, "seed": 2},
        now="2026-01-01T00:00:00Z",
    )
    g, s = res.models["good"].calibration, res.models["shrunk"].calibration
    assert g is not None and s is not None
    for key in ("ece", "mce", "brier", "reliability", "resolution", "brier_skill"):
        lo, hi = g.ci[key]
        assert lo <= g.values[key] <= hi
    assert "uncertainty" not in g.ci
    d = res.comparisons[0].calibration
    assert d is not None
    assert d.delta["ece"] == pytest.approx(s.values["ece"] - g.values["ece"])
    assert d.ci["ece"][0] > 0  # the shrunk model is clearly worse calibrated
    assert g.values["brier"] == pytest.approx(brier_score_loss(y, p), rel=1e-12)


def test_calibration_config_is_strict():
    base = {"label": "y", "models": [{"name": "a", "file": "a.csv", "score": "s"}]}
    with pytest.raises(ConfigError, match="strategy"):
        config_from_mapping({**base, "calibration": {"strategy": "isotonic"}})
    with pytest.raises(ConfigError, match="bins"):
        config_from_mapping({**base, "calibration": {"bins": 1}})
    assert config_from_mapping({**base, "calibration": {}}).calibration.bins == 10
