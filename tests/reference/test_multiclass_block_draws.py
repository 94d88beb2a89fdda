"""The multiclass bootstrap's block evaluations against the one-at-a-time computations, draw for
draw: the confusion metrics of a block of confusion matrices (``confusion_metric_draws``) against
``multiclass_from_counts`` per matrix, and the per-class one-vs-rest AUCs of a block of row
resamples (``draws``) against scikit-learn on the resampled rows spelled out."""

from __future__ import annotations

import numpy as np
import pytest
from sklearn.metrics import roc_auc_score

from reportgen.engine import class_row_draws as RD
from reportgen.engine import distinct_rows as DR
from reportgen.engine import multiclass as MC
from reportgen.engine.compare_multiclass import METRICS


def _matrices(k: int, seed: int) -> np.ndarray:
    """Confusion matrices with the awkward cases: empty classes, one predicted class, one class."""
    rng = np.random.default_rng(seed)
    C = rng.poisson(rng.uniform(0.0, 6.0, size=(40, 1, 1)), size=(40, k, k)).astype(np.float64)
    C[0] = 0.0
    C[0, 1, 1] = 5.0  # truth and predictions one and the same class
    C[1] = 0.0
    C[1, :, 0] = 3.0  # every row predicted class 0
    C[2, 0] = 0.0  # class 0 without support
    C[3] = 0.0
    C[3, 0, 1] = 4.0  # one true class, one other predicted class
    return C[C.sum(axis=(1, 2)) > 0]


@pytest.mark.parametrize(("k", "ordinal", "beta"), [(2, False, 1.0), (3, True, 2.0), (5, False, 0.5)])
def test_confusion_block_equals_multiclass_from_counts(k, ordinal, beta):
    C = _matrices(k, k)
    costs = np.arange(k * k, dtype=np.float64).reshape(k, k) % 3
    got = RD.confusion_metric_draws(C, beta=beta, costs=costs, ordinal=ordinal)
    labels = [f"c{i}" for i in range(k)]
    for r, c in enumerate(C):
        mm = MC.multiclass_from_counts(c, labels, int(c.sum()), None, beta=beta, costs=costs, ordinal=ordinal)
        for key in METRICS:
            want = (1.0 - mm.accuracy) if key == "error_rate" else getattr(mm, key)
            if key in got:
                if want is None:
                    assert np.isnan(got[key][r]), (key, r)
                else:
                    assert got[key][r] == pytest.approx(float(want), abs=1e-12), (key, r)
            else:
                assert want is None, key  # a probability metric: not from counts


def test_class_aucs_of_a_block_equal_sklearn_on_the_resampled_rows():
    """Each resample's per-class one-vs-rest AUCs equal scikit-learn's on the resampled rows, with
    ties (scores rounded) and rows not grouped by class."""
    rng = np.random.default_rng(4)
    k, n = 4, 300
    y = rng.integers(0, k, n)
    z = rng.normal(size=(n, k))
    z[np.arange(n), y] += 1.0
    p = np.round(np.exp(z) / np.exp(z).sum(axis=1, keepdims=True), 2)
    d = DR.distinct(DR.row_matrix(y, None, [None], [p]))
    yd, _, _, (pd_,) = DR.split(d, [(False, True)], k)
    W = next(DR.stratified_multinomial_blocks(yd, d.counts, 5, rng)).astype(np.float64)
    shuffle = rng.permutation(yd.shape[0])  # not grouped: the rows are grouped inside
    got = RD.draws(RD.ModelRows.of(yd[shuffle], pd_[shuffle]), W[:, shuffle]).class_auc
    for r in range(W.shape[0]):
        take = np.repeat(np.arange(yd.shape[0]), W[r].astype(np.int64))
        want = [roc_auc_score(yd[take] == c, pd_[take][:, c]) for c in range(k)]
        np.testing.assert_allclose(got[r], want, rtol=0, atol=1e-12)


@pytest.mark.parametrize("counts", [[1.0] * 6 + [1.0] * 4, [1.0, 3.0, 2.0, 1.0, 1.0, 2.0, 1.0, 5.0, 1.0, 1.0]])
def test_rows_picked_one_by_one_have_the_multinomial_distribution(counts):
    """Strata drawn row by row (unit counts, or a few rows per distinct row) keep their sizes and
    have the multinomial's mean n·p and variance n·p·(1 − p) per distinct row."""
    counts = np.array(counts)
    strata = np.array([0] * 6 + [1] * 4)
    draws = np.concatenate(list(DR.stratified_multinomial_blocks(strata, counts, 4000, np.random.default_rng(1))))
    for s in (0, 1):
        idx = strata == s
        n = counts[idx].sum()
        assert (draws[:, idx].sum(axis=1) == n).all()
        p = counts[idx] / n
        np.testing.assert_allclose(draws[:, idx].mean(axis=0), n * p, rtol=0.06)
        np.testing.assert_allclose(draws[:, idx].var(axis=0), n * p * (1 - p), rtol=0.12)
