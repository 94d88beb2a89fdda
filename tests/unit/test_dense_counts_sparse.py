"""DenseCounts finds its scores by sorting the rows' codes while the rows are few for the range,
and by scanning the range after: both give the same table and row lookup, to the bit."""

from __future__ import annotations

import numpy as np
import pytest

from reportgen.engine.curve import build_table, merge_tables
from reportgen.reduce import accumulators as S


def _chunks(rng, sizes, decimals):
    """Chunks of rounded scores with ties (a few repeated values, -0.0 beside 0.0) and labels."""
    out = []
    for n in sizes:
        s = np.round(rng.random(n) * 2 - 1, decimals)
        s[: n // 4] = rng.choice(s[n // 4 :], n // 4)  # ties
        s[-1] = -0.0 if len(out) % 2 else 0.0
        out.append((s, rng.random(n) < 0.3))
    return out


def _dense(chunks, direction, sparse):
    d = S.DenseCounts.start(chunks[0][0])
    if not sparse:
        d.seen = None  # the range scanned from the start
    for s, y in chunks:
        assert d.add(s, y)
    return d


@pytest.mark.parametrize("direction", ["higher", "lower"])
@pytest.mark.parametrize("sizes", [[1_000], [300, 50, 700]])
def test_sorted_codes_equal_scanned_range(direction, sizes):
    rng = np.random.default_rng(len(sizes))
    chunks = _chunks(rng, sizes, 6)  # a million codes for a thousand rows: the sorted path
    sparse, scanned = _dense(chunks, direction, True), _dense(chunks, direction, False)
    assert sparse.seen is not None and scanned.seen is None
    a, b = sparse.table(direction), scanned.table(direction)
    ref = merge_tables(*(build_table(s, y, direction=direction) for s, y in chunks))
    for t in (a, b):
        assert np.array_equal(t.thresholds, ref.thresholds)
        assert np.array_equal(t.pos, ref.pos) and np.array_equal(t.neg, ref.neg)
        assert (t.direction, t.sum_w2, t.n_rows, t.weighted) == (ref.direction, ref.sum_w2, ref.n_rows, ref.weighted)
    assert sparse.n_distinct() == scanned.n_distinct() == ref.n_distinct
    (qa, la), (qb, lb) = sparse.row_lookup(direction), scanned.row_lookup(direction)
    every = np.arange(scanned.span)  # every code of the range, those that do not occur (−1) too
    assert qa == qb and np.array_equal(la(every), lb(every)) and la(every).dtype == lb(every).dtype
    q = np.concatenate([np.rint(s * 1e6).astype(np.int64) for s, _ in chunks])
    assert np.array_equal(ref.thresholds[la(q - qa)], np.concatenate([s for s, _ in chunks]))


def test_many_rows_for_the_range_scan_it():
    rng = np.random.default_rng(9)
    d = _dense(_chunks(rng, [2_000, 2_000], 2), "higher", True)  # 201 codes, 4,000 rows
    assert d.seen is None


def test_weighted_rows_still_tables_of_chunks():
    rng = np.random.default_rng(11)
    chunks = _chunks(rng, [500, 500], 6)
    w = [rng.random(500) + 0.5 for _ in chunks]
    for direction in ("higher", "lower"):
        acc = S.TableAccumulator(direction)
        for (s, y), wk in zip(chunks, w):
            acc.add(s, y, wk)
        ref = merge_tables(*(build_table(s, y, wk, direction) for (s, y), wk in zip(chunks, w)))
        t = acc.table()
        assert np.array_equal(t.thresholds, ref.thresholds) and np.array_equal(t.pos, ref.pos)
        assert np.array_equal(t.neg, ref.neg) and t.sum_w2 == ref.sum_w2


@pytest.mark.parametrize("direction", ["higher", "lower"])
def test_kept_rows_counted_when_they_become_many(direction):
    """Rows kept while few (no counts array), counted into one when a later chunk makes them many."""
    rng = np.random.default_rng(5)
    chunks = _chunks(rng, [1_000, 2_000, 30_000], 4)  # 20,001 codes: kept, then counted
    d = S.DenseCounts.start(chunks[0][0])
    d.add(*chunks[0])
    assert d.counts is None and d.seen is not None
    for s, y in chunks[1:]:
        d.add(s, y)
    assert d.seen is None and d.counts is not None
    t, ref = d.table(direction), merge_tables(*(build_table(s, y, direction=direction) for s, y in chunks))
    assert np.array_equal(t.thresholds, ref.thresholds)
    assert np.array_equal(t.pos, ref.pos) and np.array_equal(t.neg, ref.neg) and t.n_rows == ref.n_rows
