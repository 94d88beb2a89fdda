"""The multiclass bootstrap as the pipeline runs it — whole drawn counts, evaluated in int32
(``class_row_draws._exact_dtype``) with scratch arrays reused across blocks — against
scikit-learn on the resampled rows spelled out; and the log-loss draws of a small class's
table (rows picked one by one) against the same picks summed row by row."""

from __future__ import annotations

import numpy as np
import pytest
from sklearn.metrics import roc_auc_score
from sklearn.preprocessing import label_binarize

from reportgen.engine import class_row_draws as RD
from reportgen.engine import distinct_rows as DR
from reportgen.engine import intervals as IV


def _data(n: int, k: int, seed: int, ties: bool) -> tuple[np.ndarray, np.ndarray]:
    rng = np.random.default_rng(seed)
    y = rng.integers(0, k, n)
    z = rng.normal(size=(n, k))
    z[np.arange(n), y] += 1.0
    p = np.exp(z)
    p /= p.sum(axis=1, keepdims=True)
    if ties:  # coarse scores, rows still summing to 1
        p[:, :-1] = np.floor(p[:, :-1] * 10) / 10
        p[:, -1] = 1.0 - p[:, :-1].sum(axis=1)
    return y, p


@pytest.mark.parametrize("ties", [False, True])
def test_int32_blocks_equal_sklearn_on_the_resampled_rows(ties):
    """Blocks of whole counts (int32, two draws calls sharing one ``Work``): each resample's
    averaged AUCs (the micro average: its projection, tests/reference/test_multiclass_row_draws.py)
    and each class's one-vs-rest AUC equal scikit-learn's on the drawn rows."""
    k = 4
    y, p = _data(200, k, 7, ties)
    d = DR.distinct(DR.row_matrix(y, None, [None], [p]))
    yd, _, _, (pd_,) = DR.split(d, [(False, True)], k)
    rows, work = RD.ModelRows.of(yd, pd_), RD.Work()
    blocks = list(DR.stratified_multinomial_blocks(yd, d.counts, 2, np.random.default_rng(5)))
    blocks += [blocks[0][:, ::-1].copy()]  # a second block: other weights through the same scratch
    for W in blocks:
        assert W.dtype.kind == "i" and RD._exact_dtype(W, k) == np.int32
        got = RD.draws(rows, W, work)
        for r in range(W.shape[0]):
            take = np.repeat(np.arange(yd.shape[0]), W[r])
            yy, pp = yd[take], pd_[take]
            m = got.metrics
            assert m["roc_auc_ovr_macro"][r] == pytest.approx(roc_auc_score(yy, pp, multi_class="ovr"), abs=1e-12)
            weighted = roc_auc_score(yy, pp, multi_class="ovr", average="weighted")
            assert m["roc_auc_ovr_weighted"][r] == pytest.approx(weighted, abs=1e-12)
            assert m["roc_auc_ovo_macro"][r] == pytest.approx(roc_auc_score(yy, pp, multi_class="ovo"), abs=1e-12)
            onehot = label_binarize(yy, classes=range(k))
            for c in range(k):
                assert got.class_auc[r, c] == pytest.approx(roc_auc_score(onehot[:, c], pp[:, c]), abs=1e-12)


def test_int32_and_float64_evaluations_agree_bit_for_bit():
    """The int32 path and the float64 one (the same counts as floats) give identical AUC draws."""
    y, p = _data(500, 5, 3, True)
    rows = RD.ModelRows.of(y, p)
    W = np.random.default_rng(1).integers(0, 4, size=(45, 500)).astype(np.int32)
    a, b = RD.draws(rows, W), RD.draws(rows, W.astype(np.float64))
    for key in RD.PROBABILITY_KEYS:
        if key != "log_loss":
            np.testing.assert_array_equal(a.metrics[key], b.metrics[key])
    np.testing.assert_array_equal(a.class_auc, b.class_auc)


def test_small_class_log_loss_draws_are_the_picked_rows_summed():
    """A class of at most DRAW_ROWS_FACTOR rows per cell of its true-class table: each resample's
    log-loss is the mean of −log p over n_i rows picked uniformly with replacement from its rows,
    the picks being the stream's integers after the confusion rows' multinomials."""
    C = np.array([[5.0, 2.0], [1.0, 4.0]])
    values = [np.array([0.2, 0.6, 0.9]), np.array([0.3, 0.7])]
    counts = [np.array([3.0, 2.0, 2.0]), np.array([4.0, 1.0])]
    R = 6
    _, got = IV.multiclass_count_draws(C, values, counts, R, np.random.default_rng(9))
    rng = np.random.default_rng(9)
    for i in range(2):
        rng.multinomial(int(C[i].sum()), C[i] / C[i].sum(), size=R)
    total = np.zeros(R)
    for v, c in zip(values, counts):
        row_loss = [-np.log(x) for x, times in zip(v, c) for _ in range(int(times))]
        picks = rng.integers(0, len(row_loss), size=(R, len(row_loss)))
        total += [sum(row_loss[j] for j in pick) for pick in picks]
    np.testing.assert_allclose(got, total / C.sum(), rtol=0, atol=1e-12)
