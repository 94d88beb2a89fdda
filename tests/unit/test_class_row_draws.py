"""The multiclass rows' draws' scratch arrays (``engine/class_row_draws.Work``)."""

from __future__ import annotations

import numpy as np
import pytest

from reportgen.engine import class_row_draws as RD


@pytest.mark.parametrize("dtype", [np.int32, np.int64, np.float64])
def test_work_arrays_start_on_a_cache_line(dtype):
    """Every scratch array starts on a 64-byte boundary (numpy's own large arrays start 16 bytes
    past one), so each gathered row of SUB_BLOCK int32 weights fills whole cache lines, also when
    a larger request replaces a cached array."""
    work = RD.Work()
    for rows, b in [(50_001, RD.SUB_BLOCK), (7, 3), (200_000, RD.SUB_BLOCK)]:
        a = work.get("cum", rows, b, dtype)
        assert a.shape == (rows, b) and a.dtype == dtype and a.flags.c_contiguous
        assert a.ctypes.data % RD.LINE == 0


@pytest.mark.parametrize("decimals", [None, 1, 2])  # distinct scores; ties everywhere; ties in some columns only
def test_column_ranks_count_the_class_positives_below_and_at_each_score(decimals):
    """Each column's ranks (read off the pooled ranks) are the counts of class c's own scores
    strictly below (lo) and at most (hi) each negative cell's score, 0 at class c's rows, and the
    column has ties exactly when some negative shares a score with a class c row."""
    rng = np.random.default_rng(3)
    n, k = 300, 4
    y = rng.integers(0, k, n)
    p = rng.dirichlet(np.ones(k), n)
    if decimals is not None:
        p = np.round(p, decimals)
    if decimals == 2:  # column 0 coarse (ties), the others still all distinct
        p[:, 1:] = rng.random((n, k - 1))
        p[:, 0] = np.round(p[:, 0], 1)
    rows = RD.ModelRows.of(y, p)
    yg = y if rows.order is None else y[rows.order]
    pg = p if rows.order is None else p[rows.order]
    for c, r in enumerate(rows.columns):
        own = pg[yg == c, c]
        neg = yg != c
        hi = np.where(neg, (own[None, :] <= pg[:, c : c + 1]).sum(axis=1), 0)
        lo = np.where(neg, (own[None, :] < pg[:, c : c + 1]).sum(axis=1), 0)
        assert np.array_equal(r.hi, hi)
        assert r.ties == bool((lo != hi).any())
        assert np.array_equal(r.lo, lo if r.ties else hi)
