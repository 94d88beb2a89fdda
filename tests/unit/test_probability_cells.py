"""reportgen.reduce.class_counts.ProbabilityCells: the cells of rows in any batches and parts, each
numbering the classes its own way, finish to the same ProbabilityCounts as the rows in one chunk,
bit for bit (what makes memory = stream = Dask)."""

from __future__ import annotations

import numpy as np
import pytest

from reportgen.reduce.class_counts import ProbabilityCells, probability_counts

K = 4
COSTS = np.array([[0.0, 1, 2, 3], [2, 0, 1, 2], [4, 2, 0, 1], [8, 4, 2, 0]])


@pytest.mark.parametrize("weighted", [False, True])
def test_batches_and_parts_with_their_own_class_ids_give_the_one_chunk_counts(weighted):
    rng = np.random.default_rng(2)
    n = 600
    y = rng.integers(0, K, n)
    p = np.round(rng.dirichlet(np.ones(K), n), 1)  # ties within rows and across rows
    w = rng.integers(1, 4, n) * 0.7 if weighted else None
    whole = probability_counts(y, p, w, COSTS)

    parts, to_ids = [], []
    for lo, hi in ((0, 250), (250, 600)):
        ids = rng.permutation(K)  # part's id of class c: ids[c]
        part = ProbabilityCells(K, COSTS)
        for a in range(lo, hi, 100):  # batches
            b = min(a + 100, hi)
            part.add(ids[y[a:b]], p[a:b], None if w is None else w[a:b])
        parts.append(part)
        to_ids.append(np.argsort(ids))  # the part's ids → class indices (the common ids here)
    common = ProbabilityCells(K, COSTS)
    for part, to in zip(parts, to_ids):
        common.combine(part, to)
    got = common.finish(K, np.arange(K))

    for f in ("true", "predicted", "confidence", "weight", "rank", "optimal"):
        assert np.array_equal(getattr(got, f), getattr(whole, f)), f
    assert whole.rank.sum() == pytest.approx(n if w is None else w.sum())


@pytest.mark.parametrize("decimals", [None, 1], ids=["continuous", "tied"])
def test_top_label_cells_are_merged_only_while_merging_shrinks_them(monkeypatch, decimals):
    """Continuous confidences are a cell per row: after the first merge shows it, later batches'
    top-label chunks wait for finish (never re-sorted in the pass); tied ones keep merging. Either
    way finish gives the one-chunk counts, bit for bit."""
    import reportgen.reduce.class_counts as S

    monkeypatch.setattr(S, "MERGE_EVERY", 2)
    rng = np.random.default_rng(4)
    n = 700
    y = rng.integers(0, K, n)
    p = rng.dirichlet(np.ones(K), n)
    if decimals is not None:
        p = np.round(p, decimals)
    cells = ProbabilityCells(K, COSTS)
    for a in range(0, n, 100):
        cells.add(y[a : a + 100], p[a : a + 100], None)
    assert cells.top_distinct is (decimals is None)
    assert (len(cells.top) > 2) is (decimals is None)  # continuous: the chunks after the first merge wait
    assert len(cells.rank) < 2 + 1  # the other lists are merged all along
    got, whole = cells.finish(K, np.arange(K)), probability_counts(y, p, None, COSTS)
    for f in ("true", "predicted", "confidence", "weight", "rank", "optimal", "brier"):
        assert np.array_equal(getattr(got, f), getattr(whole, f)), f
