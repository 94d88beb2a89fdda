"""The micro-average walked in blocks (:func:`reportgen.engine.class_tables.micro_blocks`) against
the whole pooled table: tiny blocks (a handful of cells, so many blocks and ties across their
edges), ties, dyadic weights (sums exact in any order) with zeros, a class with no rows.

Agreement: the counts, the ROC points and, unweighted, the AUC are identical to the pooled
score table's (:func:`reportgen.engine.curve.build_table` over the raveled scores); weighted, the
AUC to 1e-12 (each block's dot products are summed apart). The decimated curve equals
``binary._decimate_by`` with the closed-form arc length on the whole arrays, keeping
``binary.upper_hull``'s vertices, up to points on the hull collinear with their neighbours
(optional vertices: rounding decides, and the blocks see other neighbours).
"""

from __future__ import annotations

import numpy as np
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st
from oracles import monotone_chain_upper

from reportgen.engine import binary as B
from reportgen.engine import class_tables as CT
from reportgen.engine import multiclass as MC
from reportgen.engine.curve import build_table

_SETTINGS = settings(max_examples=60, deadline=None, suppress_health_check=[HealthCheck.too_slow])


@st.composite
def scored_rows(draw):
    """(y, p (n, k), weights or None, k): tied or continuous scores; some classes may have no rows."""
    k = draw(st.integers(2, 4))
    n = draw(st.integers(1, 60))
    y = np.array(draw(st.lists(st.integers(0, k - 2 if draw(st.booleans()) else k - 1), min_size=n, max_size=n)))
    if draw(st.booleans()):
        pool = [0.0, 0.1, 0.25, 0.5, 0.75, 1.0]
        p = np.array(draw(st.lists(st.sampled_from(pool), min_size=n * k, max_size=n * k))).reshape(n, k)
    else:
        p = np.random.default_rng(draw(st.integers(0, 2**16))).dirichlet(np.ones(k), n)
    w = None
    if draw(st.booleans()):
        w = np.array(draw(st.lists(st.sampled_from([0.0, 0.5, 1.0, 2.0, 3.25]), min_size=n, max_size=n)))
    return y, p, w, k


def _pooled(y, p, w, k):
    onehot = np.zeros(p.size, dtype=bool)
    onehot[np.arange(y.shape[0]) * k + y] = True
    return build_table(p.ravel(), onehot, None if w is None else np.repeat(w, k), "higher")


@_SETTINGS
@given(scored_rows(), st.integers(1, 8), st.integers(2, 12))
def test_blocked_micro_average_equals_the_pooled_table(data, block, max_points):
    y, p, w, k = data
    t = CT.build_class_tables(y, p, w, k)
    pooled = _pooled(y, p, w, k)
    blocks = list(CT.micro_blocks(t, block))
    assert all(pos.shape[0] for pos, _ in blocks)
    pos, neg = (np.concatenate(a) for a in zip(*blocks))
    np.testing.assert_array_equal(pos, pooled.pos)
    np.testing.assert_array_equal(neg, pooled.neg)
    whole = CT.table_auc(pooled)
    got = CT.micro_auc(t, block)
    if w is None or whole is None:
        assert got == whole
    else:
        assert got is not None and abs(got - whole) <= 1e-12

    curve = MC.class_roc_curve(None, pooled)
    fpr, tpr = curve.fpr, curve.tpr
    roc = list(CT.micro_roc_blocks(t, block))
    if fpr.shape[0] == 0:
        assert roc == [] and all(a.shape == (0,) for a in B.decimate_roc_blocks(iter(roc), max_points))
        return
    np.testing.assert_array_equal(np.concatenate([x for x, _ in roc]), fpr)
    np.testing.assert_array_equal(np.concatenate([yy for _, yy in roc]), tpr)
    x, yy = B.decimate_roc_blocks(iter(roc), max_points)
    hull = B.upper_hull(fpr, tpr)
    sel = B._decimate_by(lambda i: fpr[i] + tpr[i], fpr.shape[0], max_points, keep=hull)
    if x.shape != sel.shape or not (np.array_equal(x, fpr[sel]) and np.array_equal(yy, tpr[sel])):
        # a point on the hull collinear with its neighbours is an optional vertex; the rest the same
        got, want = set(zip(x.tolist(), yy.tolist())), set(zip(fpr[sel].tolist(), tpr[sel].tolist()))
        on_hull = monotone_chain_upper(fpr, tpr, tol=-1e-12)
        strict = monotone_chain_upper(fpr, tpr, tol=1e-12)
        optional = {(fpr[i], tpr[i]) for i in on_hull} - {(fpr[i], tpr[i]) for i in strict}
        assert got ^ want <= optional, (got - want, want - got)
