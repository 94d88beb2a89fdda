"""The paired bootstrap of multiclass confusion-metric differences drawn on the joint counts.

:func:`reportgen.engine.intervals.joint_confusion_bootstrap` draws, per true class, a multinomial
over the (baseline's class, model's class) cells of the pair's joint confusion counts. Checked
against the stratified row bootstrap it replaces: the exact first two moments of the accuracy
difference, and the distribution of the macro-F1 difference against resampled rows scored by
scikit-learn (two-sample KS test).
"""

from __future__ import annotations

import numpy as np
import pytest
from scipy import stats as sps
from sklearn.metrics import f1_score

from reportgen.engine.intervals import joint_confusion_bootstrap


def _pair(n: int = 240, k: int = 3, seed: int = 0):
    rng = np.random.default_rng(seed)
    y = rng.integers(0, k, n)
    a = np.where(rng.random(n) < 0.6, y, rng.integers(0, k, n))
    b = np.where(rng.random(n) < 0.7, y, rng.integers(0, k, n))
    joint = np.bincount((y * k + a) * k + b, minlength=k**3).reshape(k, k, k)
    return y, a, b, joint


def test_margins_are_both_models_confusion_matrices_in_every_draw():
    y, a, _b, joint = _pair()
    da, db = joint_confusion_bootstrap(joint, 50, np.random.default_rng(1))
    counts = np.bincount(y, minlength=3)
    assert np.array_equal(da.sum(axis=2), np.broadcast_to(counts, (50, 3)))  # stratified: class sizes kept
    assert np.array_equal(db.sum(axis=2), np.broadcast_to(counts, (50, 3)))
    assert not np.array_equal(da, db)
    # paired: a model against its own twin is drawn on the same rows, so every difference is zero
    twin = np.bincount((y * 3 + a) * 3 + a, minlength=27).reshape(3, 3, 3)
    ta, tb = joint_confusion_bootstrap(twin, 50, np.random.default_rng(1))
    assert np.array_equal(ta, tb) and not np.array_equal(ta[0], ta[1])


def test_accuracy_difference_has_the_row_bootstraps_exact_moments():
    """d_i = right_B − right_A per row; class t's n_t rows resampled: E = Σ d, Var = Σ_t n_t Var_t(d)."""
    y, a, b, joint = _pair(seed=3)
    R = 40_000
    da, db = joint_confusion_bootstrap(joint, R, np.random.default_rng(4))
    n = y.shape[0]
    diff = (np.trace(db, axis1=1, axis2=2) - np.trace(da, axis1=1, axis2=2)) / n
    d = (b == y).astype(float) - (a == y).astype(float)
    mean = d.mean()
    var = sum((y == t).sum() * d[y == t].var() for t in range(3)) / n**2
    assert abs(diff.mean() - mean) < 4 * np.sqrt(var / R)
    assert abs(diff.var() / var - 1) < 4 * np.sqrt(2 / R)


@pytest.mark.slow
def test_macro_f1_difference_matches_resampled_rows_scored_by_scikit_learn():
    y, a, b, joint = _pair(n=150, seed=5)
    R = 1500
    da, db = joint_confusion_bootstrap(joint, R, np.random.default_rng(6))

    def macro_f1(c: np.ndarray) -> float:
        tp = np.diag(c)
        denom = c.sum(axis=0) + c.sum(axis=1)
        return float(np.mean(np.where(denom > 0, 2 * tp / np.where(denom > 0, denom, 1), 0.0)))

    drawn = np.array([macro_f1(db[r]) - macro_f1(da[r]) for r in range(R)])
    rng = np.random.default_rng(7)
    strata = [np.flatnonzero(y == t) for t in range(3)]
    rows = []
    for _ in range(R):
        idx = np.concatenate([rng.choice(s, s.shape[0]) for s in strata])
        rows.append(
            f1_score(y[idx], b[idx], average="macro", labels=[0, 1, 2], zero_division=0)
            - f1_score(y[idx], a[idx], average="macro", labels=[0, 1, 2], zero_division=0)
        )
    assert sps.ks_2samp(drawn, np.array(rows)).pvalue > 0.001
    # and the observed difference is the draws' centre
    observed = f1_score(y, b, average="macro") - f1_score(y, a, average="macro")
    assert abs(np.median(drawn) - observed) < 0.02


def test_same_seed_same_draws():
    _y, _a, _b, joint = _pair()
    x = joint_confusion_bootstrap(joint, 30, np.random.default_rng(9))
    z = joint_confusion_bootstrap(joint.astype(float), 30, np.random.default_rng(9))
    assert all(np.array_equal(p, q) for p, q in zip(x, z))
