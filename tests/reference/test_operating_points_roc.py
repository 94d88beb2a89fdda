"""TPR at a fixed FPR and precision at a fixed recall (reportgen.engine.operating_points) against
scikit-learn's ``roc_curve`` (every distinct threshold kept) read with the stated convention
(pROC's ``coords``: the highest TPR where points lie exactly at the FPR, else linear between
the neighbouring points), on hand cases with ties, weights and both score directions."""

from __future__ import annotations

import numpy as np
import pytest
from sklearn.metrics import roc_curve

from reportgen.engine import operating_points as OP
from reportgen.engine.curve import build_table


def _oracle_tpr(fpr: np.ndarray, tpr: np.ndarray, x: float) -> float:
    """Read sklearn's points by hand: exact matches take the highest TPR; else interpolate."""
    at = tpr[np.isclose(fpr, x, rtol=0, atol=1e-15)]
    if at.size:
        return float(at.max())
    i = np.flatnonzero(fpr < x)[-1]
    j = np.flatnonzero(fpr > x)[0]
    return float(tpr[i] + (tpr[j] - tpr[i]) * (x - fpr[i]) / (fpr[j] - fpr[i]))


def _oracle_precision(fpr: np.ndarray, tpr: np.ndarray, r: float, P: float, N: float) -> float:
    at = fpr[np.isclose(tpr, r, rtol=0, atol=1e-15)]
    if at.size:
        f = float(at.min())
    else:
        i = np.flatnonzero(tpr < r)[-1]
        j = np.flatnonzero(tpr > r)[0]
        f = float(fpr[i] + (fpr[j] - fpr[i]) * (r - tpr[i]) / (tpr[j] - tpr[i]))
    return r * P / (r * P + f * N)


def _ours(s, y, w, direction, points: OP.Points) -> np.ndarray:
    t = build_table(np.asarray(s, float), np.asarray(y, bool), None if w is None else np.asarray(w, float), direction)
    return OP.point_values(*t.cumulative_view(), points)


def test_hand_case_with_a_tie():
    """Scores 0.9 0.8 0.8 0.7 0.6, labels 1 0 1 0 0: ROC points (0, 1/2), (1/3, 1), (2/3, 1), (1, 1)."""
    s, y = [0.9, 0.8, 0.8, 0.7, 0.6], [1, 0, 1, 0, 0]
    pts = OP.Points(fpr=(0.1, 1 / 3, 0.5), recall=(0.5, 0.75, 1.0))
    got = _ours(s, y, None, "higher", pts)
    # TPR: interpolated on the tie's diagonal; exact at 1/3 (the top); flat at 1/2
    # precision: r = 1/2 is the point (0, 1/2); r = 3/4 halfway up the diagonal (FPR 1/6); r = 1 at FPR 1/3
    assert got == pytest.approx([0.5 + 0.5 * 0.3, 1.0, 1.0, 1.0, 0.75, 2 / 3], abs=1e-15)
    # the same rows scored the other way round, direction lower: the same points
    assert _ours([-v for v in s], y, None, "lower", pts) == pytest.approx(got, abs=1e-15)


def test_a_vertical_run_takes_its_top_and_a_horizontal_run_its_left_end():
    """Two positives tied at the top, then two negatives tied: points (0, 0), (0, 1), (1, 1).
    TPR at FPR 0 is not asked (the range is open); at any FPR the curve is 1. Precision at recall
    1 is the left end of the horizontal run: FPR 0, precision 1."""
    got = _ours([2, 2, 1, 1], [1, 1, 0, 0], None, "higher", OP.Points(fpr=(0.01,), recall=(1.0,)))
    assert got == pytest.approx([1.0, 1.0])


@pytest.mark.parametrize("direction", ["higher", "lower"])
@pytest.mark.parametrize("weighted", [False, True])
@pytest.mark.parametrize("seed", range(4))
def test_equals_scikit_learn_roc_curve_read_by_the_convention(seed, weighted, direction):
    rng = np.random.default_rng(seed)
    n = 60
    y = rng.random(n) < 0.35
    s = np.round(rng.normal(size=n) + 0.9 * y, 1)  # heavy ties
    w = np.round(rng.uniform(0.2, 3.0, n), 2) if weighted else None
    if direction == "lower":
        s = -s
    fpr_grid = (0.01, 0.05, 0.1, 0.25, 0.5)
    rec_grid = (0.2, 0.5, 0.8, 1.0)
    got = _ours(s, y, w, direction, OP.Points(fpr=fpr_grid, recall=rec_grid))
    fpr, tpr, _ = roc_curve(y, -s if direction == "lower" else s, sample_weight=w, drop_intermediate=False)
    P = float(y.sum() if w is None else w[y].sum())
    N = float((~y).sum() if w is None else w[~y].sum())
    want = [_oracle_tpr(fpr, tpr, x) for x in fpr_grid] + [_oracle_precision(fpr, tpr, r, P, N) for r in rec_grid]
    assert got == pytest.approx(want, rel=1e-12, abs=1e-14)


def test_replicates_are_read_row_by_row():
    """Shape (b, k + 1) counts give one value per row, equal to reading each row alone."""
    rng = np.random.default_rng(9)
    tp = np.cumsum(np.c_[np.zeros((5, 1)), rng.integers(0, 3, (5, 12))], axis=1)
    fp = np.cumsum(np.c_[np.zeros((5, 1)), rng.integers(1, 3, (5, 12))], axis=1)
    pts = OP.Points(fpr=(0.1, 0.3), recall=(0.4,))
    both = OP.point_values(tp, fp, pts)
    for i in range(5):
        assert both[i] == pytest.approx(OP.point_values(tp[i], fp[i], pts), abs=1e-15)
