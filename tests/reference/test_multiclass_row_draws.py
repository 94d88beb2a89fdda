"""The multiclass bootstrap's block evaluation on counts (``engine/class_row_draws``) against
independent computations: scikit-learn on the resampled rows spelled out, and the per-row
engine (``compute_multiclass`` with the drawn counts as weights), draw for draw."""

from __future__ import annotations

import numpy as np
import pytest
from sklearn.metrics import log_loss, roc_auc_score
from sklearn.preprocessing import label_binarize

from reportgen.engine import class_row_draws as RD
from reportgen.engine import class_tables as CT
from reportgen.engine import distinct_rows as DR
from reportgen.engine import intervals as IV
from reportgen.engine import multiclass as MC


def _data(n: int, k: int, seed: int, decimals: int | None = None) -> tuple[np.ndarray, np.ndarray]:
    rng = np.random.default_rng(seed)
    y = rng.integers(0, k, n)
    z = rng.normal(size=(n, k))
    z[np.arange(n), y] += 1.0
    p = np.exp(z)
    p /= p.sum(axis=1, keepdims=True)
    if decimals is not None:  # coarse scores, rows still summing to 1: many ties
        p[:, :-1] = np.floor(p[:, :-1] * 10**decimals) / 10**decimals
        p[:, -1] = 1.0 - p[:, :-1].sum(axis=1)
    return y, p


@pytest.mark.parametrize("decimals", [None, 1])  # every score distinct; many ties
def test_block_equals_sklearn_on_the_resampled_rows(decimals):
    """Each resample's AUCs (OvR macro / weighted, Hand & Till OvO) and log-loss equal
    scikit-learn's on the rows the resample draws (each distinct row repeated its drawn count);
    the micro average is its projection (:func:`test_micro_draws_are_the_pair_sum_s_projection`)."""
    y, p = _data(400, 4, 3, decimals)
    d = DR.distinct(DR.row_matrix(y, None, [None], [p]))
    yd, _, _, (pd_,) = DR.split(d, [(False, True)], 4)
    W = next(DR.stratified_multinomial_blocks(yd, d.counts, 4, np.random.default_rng(5))).astype(np.float64)
    got = RD.probability_draws(RD.ModelRows.of(yd, pd_), W)
    conf = RD.confusion_draws(yd, np.argmax(pd_, axis=1), 4, W)
    for r in range(W.shape[0]):
        take = np.repeat(np.arange(yd.shape[0]), W[r].astype(np.int64))
        yy, pp = yd[take], pd_[take]
        assert got["roc_auc_ovr_macro"][r] == pytest.approx(roc_auc_score(yy, pp, multi_class="ovr"), abs=1e-12)
        assert got["roc_auc_ovr_weighted"][r] == pytest.approx(
            roc_auc_score(yy, pp, multi_class="ovr", average="weighted"), abs=1e-12
        )
        assert got["roc_auc_ovo_macro"][r] == pytest.approx(roc_auc_score(yy, pp, multi_class="ovo"), abs=1e-12)
        assert got["log_loss"][r] == pytest.approx(log_loss(yy, pp, labels=range(4)), abs=1e-12)
        np.testing.assert_array_equal(conf[r], np.bincount(yy * 4 + np.argmax(pp, axis=1), minlength=16).reshape(4, 4))


def test_block_equals_the_row_engine_with_weights():
    """With non-unit weights (drawn count × row weight) every value but the micro average's (a
    projection) equals ``compute_multiclass`` on the rows with those weights, draw for draw."""
    y, p = _data(250, 3, 8, 2)
    rng = np.random.default_rng(2)
    W = rng.poisson(1.0, size=(3, y.shape[0])) * rng.uniform(0.5, 2.0, size=y.shape[0])
    got = RD.probability_draws(RD.ModelRows.of(y, p), W)
    for r in range(3):
        mm = MC.compute_multiclass(y, ["a", "b", "c"], proba=p, weights=W[r])
        for key in RD.PROBABILITY_KEYS:
            if key != "roc_auc_ovr_micro":
                assert got[key][r] == pytest.approx(getattr(mm, key), abs=1e-12), key


@pytest.mark.parametrize("decimals", [None, 1])  # every score distinct; many ties
@pytest.mark.parametrize("weighted", [False, True])
def test_micro_draws_are_the_pair_sum_s_projection(decimals, weighted):
    """The micro AUC of a resample W is ``1 − Q_lin(W) / (P N)`` (P = Σ W, N = (k − 1) Σ W), Q_lin
    the pooled pair sum Q (negative cells' weight times the positive weight below, ties one half)
    linearised at the observed weights W0: ``Q(W0) + (W − W0) · ∇Q(W0)``. Q from scikit-learn's
    micro AUC, ``Q = (1 − AUC) P N``; Q is quadratic in W, so each partial derivative is the
    central difference exactly. At W0 the draw is scikit-learn's micro AUC itself."""
    k = 3
    y, p = _data(40, k, 4, decimals)
    rng = np.random.default_rng(6)
    w0 = rng.uniform(0.5, 2.0, size=y.shape[0]) if weighted else np.ones(y.shape[0])
    onehot = label_binarize(y, classes=range(k))

    def q(w: np.ndarray) -> float:
        return (1.0 - roc_auc_score(onehot, p, average="micro", sample_weight=w)) * (k - 1) * w.sum() ** 2

    grad = np.array([(q(w0 + e) - q(w0 - e)) / 2 for e in 0.25 * np.eye(y.shape[0])]) / 0.25
    W = rng.poisson(1.0, size=(5, y.shape[0])) * w0
    W[0] = w0
    got = RD.probability_draws(RD.ModelRows.of(y, p, w0), W)["roc_auc_ovr_micro"]
    want = 1.0 - (q(w0) + (W - w0) @ grad) / ((k - 1) * W.sum(axis=1) ** 2)
    np.testing.assert_allclose(got, np.clip(want, 0.0, 1.0), rtol=0, atol=1e-10)
    assert got[0] == pytest.approx(roc_auc_score(onehot, p, average="micro", sample_weight=w0), abs=1e-12)


@pytest.mark.slow  # 400 scikit-learn AUCs: seconds on a loaded machine
def test_per_class_auc_intervals_match_sklearn_on_row_resamples():
    """The class tables' per-class AUC draws (``ovr_auc_bootstrap``) have the mean and spread of
    scikit-learn's per-class AUC on stratified row resamples (400 each: means within 0.01, standard
    deviations within 20 %)."""
    k, R = 3, 400
    y, p = _data(300, k, 11)
    t = CT.build_class_tables(y, p, None, k)
    draws = IV.ovr_auc_bootstrap([list(v) for v in t.values], [list(c) for c in t.counts], R, np.random.default_rng(1))
    rng = np.random.default_rng(2)
    members = [np.flatnonzero(y == c) for c in range(k)]
    ref = np.empty((R, k))
    for r in range(R):
        take = np.concatenate([rng.choice(m, m.shape[0]) for m in members])
        ref[r] = roc_auc_score(y[take], p[take], multi_class="ovr", average=None)
    np.testing.assert_allclose(draws.mean(axis=0), ref.mean(axis=0), atol=0.01)
    np.testing.assert_allclose(draws.std(axis=0), ref.std(axis=0), rtol=0.2)
