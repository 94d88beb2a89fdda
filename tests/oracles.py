"""Oracles shared by the test modules: slow, obviously correct loops (tests/ is on sys.path
through tests/conftest.py)."""

from __future__ import annotations


def monotone_chain_upper(x, y, tol=0.0):
    """Andrew's monotone chain (upper hull), a row loop: the oracle for upper_hull.

    ``tol`` > 0: a point within ``tol`` of collinear with its neighbours (cross product ≥ −tol)
    is dropped too, leaving only the vertices that are vertices whatever the rounding (points
    collinear in exact arithmetic can come out a hair above or below the chord in floats)."""
    hull: list[int] = []
    for i in range(len(x)):
        while len(hull) >= 2:
            a, b = hull[-2], hull[-1]
            if (x[b] - x[a]) * (y[i] - y[a]) - (y[b] - y[a]) * (x[i] - x[a]) >= -tol:
                hull.pop()
            else:
                break
        hull.append(i)
    return hull


def holm_adjusted(p_values):
    """statsmodels' Holm-adjusted p-values (``multipletests(p, method="holm")[1]``).

    statsmodels runs a full ``gc.collect()`` on each Holm call, which in a test process (every
    test module and oracle library imported) costs about half a CPU-second; the objects alive
    before the call are frozen for its duration (``gc.freeze``), so the collection looks only at
    what the call itself allocates. The numbers are statsmodels' own."""
    import gc

    from statsmodels.stats.multitest import multipletests

    gc.freeze()
    try:
        return multipletests(p_values, method="holm")[1]
    finally:
        gc.unfreeze()


def resampled_binary_scores(s, y, weights, threshold: float):
    """AUC, F1 at ``threshold`` (``s >= threshold`` predicts positive) and average precision of
    one model on every row of ``weights`` (shape (R, n): each resample's row weights, e.g. the
    rows' weights times their bootstrap multiplicities), all resamples at once: shape (R, 3).

    The definitions scikit-learn computes, on tie groups of the sorted scores: AUC the weighted
    Mann–Whitney sum (ties one half) over the product of the classes' weights; F1 = 2·TP /
    (2·TP + FP + FN) in weights; average precision Σ (Rₖ − Rₖ₋₁)·Pₖ over the distinct thresholds,
    highest first. A brute-force bootstrap scored one resample at a time by scikit-learn costs
    milliseconds a resample; this costs microseconds. :func:`checked_against_sklearn` compares
    the two on the first resamples, so a test relies on scikit-learn's numbers, not on this."""
    import numpy as np

    s, y, weights = np.asarray(s, float), np.asarray(y, bool), np.atleast_2d(np.asarray(weights, float))
    order = np.argsort(s, kind="stable")
    starts = np.flatnonzero(np.r_[True, np.diff(s[order]) != 0])
    pos = np.add.reduceat(weights[:, order] * y[order], starts, axis=1)  # (R, groups), scores ascending
    neg = np.add.reduceat(weights[:, order] * ~y[order], starts, axis=1)
    below = np.cumsum(neg, axis=1) - neg
    auc = (pos * (below + 0.5 * neg)).sum(axis=1) / (pos.sum(axis=1) * neg.sum(axis=1))
    pred = s >= threshold
    tp, fp = weights @ (y & pred), weights @ (~y & pred)
    fn = weights @ (y & ~pred)
    f1 = 2 * tp / (2 * tp + fp + fn)
    tps, fps = np.cumsum(pos[:, ::-1], axis=1), np.cumsum(neg[:, ::-1], axis=1)  # thresholds descending
    precision = np.divide(tps, tps + fps, out=np.zeros_like(tps), where=(tps + fps) > 0)
    recall = tps / tps[:, -1:]
    ap = (np.diff(recall, axis=1, prepend=0.0) * precision).sum(axis=1)
    return np.column_stack([auc, f1, ap])


def checked_against_sklearn(s, y, weights, threshold: float, check: int = 25):
    """:func:`resampled_binary_scores`, its first ``check`` resamples compared with scikit-learn's
    ``roc_auc_score``, ``f1_score`` and ``average_precision_score`` (``sample_weight`` = the
    resample's weights; rel 1e-9, the float error of two summation orders)."""
    import numpy as np
    from sklearn.metrics import average_precision_score, f1_score, roc_auc_score

    out = resampled_binary_scores(s, y, weights, threshold)
    for r in range(min(check, out.shape[0])):
        sw = weights[r]
        ref = [
            roc_auc_score(y, s, sample_weight=sw),
            f1_score(y, s >= threshold, sample_weight=sw),
            average_precision_score(y, s, sample_weight=sw),
        ]
        np.testing.assert_allclose(out[r], ref, rtol=1e-9, err_msg=f"resample {r}")
    return out
