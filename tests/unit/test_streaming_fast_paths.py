"""The stream engine's fast paths give exactly what the plain ones give (issue 8's speed work)."""

from __future__ import annotations

import numpy as np
import pytest

from reportgen.engine.curve import build_table, merge_tables
from reportgen.reduce import accumulators as S


def _same(a, b):
    assert np.array_equal(a.thresholds, b.thresholds)
    assert np.array_equal(a.pos, b.pos) and np.array_equal(a.neg, b.neg)
    assert (a.direction, a.sum_w2, a.n_rows, a.weighted) == (b.direction, b.sum_w2, b.n_rows, b.weighted)


@pytest.mark.parametrize("direction", ["higher", "lower"])
def test_dense_counts_equal_merged_chunk_tables(direction):
    rng = np.random.default_rng(3)
    chunks = [np.round(rng.normal(loc=k, size=5_000), 3) for k in (0, 4, -6)]  # the range grows both ways
    chunks.append(np.array([-0.0, 0.0, 1.5]))
    ys = [rng.random(c.shape[0]) < 0.3 for c in chunks]
    acc = S.TableAccumulator(direction)
    for s, y in zip(chunks, ys):
        acc.add(s, y)
        assert acc.chunk_scores() is not None
    assert acc.row_lookup() is not None
    _same(acc.table(), merge_tables(*(build_table(s, y, direction=direction) for s, y in zip(chunks, ys))))
    # each row's integer score finds its row of the table
    qmin, lut = acc.row_lookup()
    table = acc.table()
    q = np.rint(chunks[0] * 1000).astype(np.int64)
    assert np.array_equal(table.thresholds[lut(q - qmin)], chunks[0])


def test_dense_counts_leave_for_tables_when_scores_stop_being_decimals():
    rng = np.random.default_rng(4)
    a, b = np.round(rng.random(3_000), 2), rng.random(3_000)  # the second chunk is continuous
    ya, yb = rng.random(3_000) < 0.5, rng.random(3_000) < 0.5
    acc = S.TableAccumulator("higher")
    acc.add(a, ya)
    acc.add(b, yb)
    assert acc.chunk_scores() is None and acc.row_lookup() is None
    _same(acc.table(), merge_tables(build_table(a, ya), build_table(b, yb)))


def test_dense_counts_overflow_like_tables():
    s = np.arange(1_000) / 100.0
    acc = S.TableAccumulator("higher", cap=500)
    acc.add(s[:400], s[:400] > 2)
    assert not acc.overflowed
    acc.add(s[400:], s[400:] > 2)
    assert acc.overflowed and acc.table() is None


def test_edge_search_equals_searchsorted():
    rng = np.random.default_rng(5)
    for trial in range(100):
        scale = 10.0 ** int(rng.integers(-5, 5))
        extra = rng.choice([0.0, 1.0, -1e300, 1e300, 5e-324, 2.5, -1.7e308, 1.7e308], 3) if trial % 2 else []
        edges = np.unique(np.concatenate([extra, rng.normal(size=int(rng.integers(2, 300))) * scale]))
        x = np.concatenate(
            [
                edges,
                np.nextafter(edges, np.inf),
                np.nextafter(edges, -np.inf),
                rng.normal(size=6_000) * scale,
                [-1e308, 1e308, 0.0, -0.0],
            ]
        )
        rng.shuffle(x)
        assert np.array_equal(S.EdgeSearch(edges)(x), np.searchsorted(edges, x, side="right")), trial


def test_sorted_quantiles_equal_numpy():
    rng = np.random.default_rng(6)
    q = np.linspace(0.0, 1.0, 1_001)
    for n in (1, 2, 7, 5_000):
        s = np.sort(rng.normal(size=n))
        assert np.array_equal(S.sorted_quantiles(s, q), np.quantile(s, q))


@pytest.mark.parametrize("direction", ["higher", "lower"])
def test_binned_rows_equal_binned_add(direction):
    rng = np.random.default_rng(7)
    s, y = rng.normal(size=20_000), rng.random(20_000) < 0.2
    edges = S.bin_edges(S.oriented(s[:2_000], direction), 50)
    a, b = S.BinnedAccumulator(edges, direction), S.BinnedAccumulator(edges, direction)
    a.add(s, y)
    bins = b.add_rows(s, y)
    _same(a.table(), b.table())
    assert np.array_equal(b.row_of_bin()[bins], a.grouper()(s))


def test_paired_rows_equal_paired_scores():
    rng = np.random.default_rng(8)
    y = rng.random(30_000) < 0.3
    s1, s2 = np.round(rng.normal(size=y.shape[0]) + y, 2), np.round(rng.normal(size=y.shape[0]) + 0.5 * y, 1)
    t1, t2 = build_table(s1, y), build_table(s2, y, direction="lower")
    a = S.PairedAccumulator([t1, t2], [0.3, 0.1])
    a.add([s1, s2], y)
    g = [S.exact_grouper(t1)(s1), S.exact_grouper(t2)(s2)]
    b = S.PairedAccumulator([t1, t2], [0.3, 0.1])
    b.add_rows(g, [(g[0] < t1.cut_index(0.3)) == y, (g[1] < t2.cut_index(0.1)) == y], y)
    assert np.array_equal(a.agree, b.agree)
    assert np.allclose(a.covariance(), b.covariance(), rtol=1e-12, atol=0)
    ok1, ok2 = (s1 >= 0.3) == y, (s2 <= 0.1) == y
    assert a.agree[0, 1, 0, 1] == np.sum(ok1 & ~ok2) and a.agree[0, 1, 1, 1] == np.sum(~ok1 & ~ok2)
