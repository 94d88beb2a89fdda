"""What a multiclass run holds (issue 46: stream memory): unit counts shared, not one float per
score; the accumulator's tables handed over at ``finish``; a spilled range let go of once handed
out; the micro-average's AUC and curve from counts in blocks, equal to the pooled score table's."""

from __future__ import annotations

import weakref

import numpy as np
import pytest
from sklearn.metrics import roc_auc_score

from reportgen.engine import class_tables as CT
from reportgen.engine import multiclass as MC
from reportgen.engine.curve import build_table
from reportgen.io.pairs import RowSpill
from reportgen.reduce.class_counts import ClassCounts, ProbabilityCells, packed, probability_counts


def _rows(n: int = 400, k: int = 4, decimals: int | None = None, seed: int = 0) -> tuple[np.ndarray, np.ndarray]:
    rng = np.random.default_rng(seed)
    p = rng.dirichlet(np.ones(k), n)
    return rng.integers(0, k, n), p if decimals is None else np.round(p, decimals)


def test_unit_counts_are_views_of_one_read_only_array():
    y, p = _rows()
    t = CT.build_class_tables(y, p, None, 4)
    cells = [c for row in t.counts for c in row]
    assert all(np.array_equal(c, np.ones(c.shape[0])) for c in cells)
    bases = {id(c.base) for c in cells}
    assert len(bases) == 1 and all(c.base is not None for c in cells)
    assert not any(c.flags.writeable for c in cells)
    tied = CT.build_class_tables(*_rows(decimals=1), None, 4)  # repeated scores: counts > 1 kept as they are
    assert any((c > 1).any() for row in tied.counts for c in row)


def test_distinct_scores_keep_no_counts_until_a_score_repeats():
    y, p = _rows()
    values, counts = CT.class_lists(y, p, None, 4)
    assert all(c is None for row in counts for c in row)  # every count 1: no array of ones per list
    a, b = values[0][0][::2].copy(), values[0][0][1::2].copy()
    assert CT.merge_lists([(a, None), (b, None)])[1] is None  # disjoint values: still every count 1
    merged, c = CT.merge_lists([(a, None), (a[:3].copy(), np.array([2.0, 1.0, 4.0]))])
    assert np.array_equal(merged, a) and c is not None
    assert np.array_equal(c[:3], [3.0, 2.0, 5.0]) and (c[3:] == 1.0).all()


def test_finish_hands_over_the_tables_and_cells():
    y, p = _rows()
    counts = ClassCounts(4)
    counts.add(y, np.argmax(p, axis=1), None, p, 4)
    counts.merge_pending(10**9)
    _, tables, proba = counts.finish(4, np.arange(4), False)
    assert tables is not None and proba is not None
    assert counts.merged == {} and counts.pending == [] and counts.proba is None


def test_spilled_range_is_not_kept_by_the_spill():
    dtype = np.dtype([("v", np.float64)])
    with RowSpill(2, 6, dtype, chunk=3) as spill:
        for m in range(2):
            rec = np.zeros(6, dtype=dtype)
            rec["v"] = np.arange(6) + 10 * m
            spill.add(m, np.arange(6)[::-1], rec[::-1])
        ranges = spill.chunks()
        lo, hi, first = next(ranges)
        assert (lo, hi) == (0, 3) and first[1]["v"].tolist() == [10, 11, 12]
        gone = weakref.ref(first[0])
        del first
        assert gone() is None  # the generator holds no copy of a range it handed out
        assert [r["v"].tolist() for r in next(ranges)[2]] == [[3, 4, 5], [13, 14, 15]]


def test_micro_auc_and_points_equal_the_pooled_score_table():
    for decimals, weights in ((None, None), (1, None), (2, np.random.default_rng(3).choice([0.5, 2.0], 300))):
        y, p = _rows(300, 3, decimals, seed=4)
        t = CT.build_class_tables(y, p, weights, 3)
        onehot = np.zeros(p.size, dtype=bool)
        onehot[np.arange(y.shape[0]) * 3 + y] = True
        pooled = build_table(p.ravel(), onehot, None if weights is None else np.repeat(weights, 3), "higher")
        assert CT.micro_auc(t) == CT.table_auc(pooled)
        oracle = roc_auc_score(onehot, p.ravel(), sample_weight=pooled_weights(weights))
        assert CT.micro_auc(t) == pytest.approx(oracle, abs=1e-12)
        for block in (0, 50):  # one block; a dozen
            assert CT.micro_auc(t, block) == CT.micro_auc(t)
            pos, neg = (np.concatenate(a) for a in zip(*CT.micro_blocks(t, block)))
            np.testing.assert_array_equal(pos, pooled.pos)
            np.testing.assert_array_equal(neg, pooled.neg)
            fpr, tpr = (np.concatenate(a) for a in zip(*CT.micro_roc_blocks(t, block)))
            curve = MC.class_roc_curve(None, pooled)
            np.testing.assert_array_equal(fpr, curve.fpr)
            np.testing.assert_array_equal(tpr, curve.tpr)


def pooled_weights(weights: np.ndarray | None) -> np.ndarray | None:
    return None if weights is None else np.repeat(weights, 3)


def test_merged_tables_and_top_label_counts_are_one_allocation_each():
    y, p = _rows(n=2000)
    values, _ = CT.class_lists(y, p, None, 4)
    counts = ClassCounts(4)
    counts.add(y, np.argmax(p, axis=1), None, p, 4)
    counts.merge_pending(10**9)
    merged = [v for v, _ in counts.merged.values()]
    assert len({id(v.base) for v in merged}) == 1 and merged[0].base is not None
    assert all(np.array_equal(counts.merged[(j, i)][0], values[j][i]) for j in range(4) for i in range(4))
    _, _, proba = counts.finish(4, np.arange(4), False)
    assert proba is not None
    arrays = [proba.true, proba.predicted, proba.confidence]
    assert len({id(a.base) for a in arrays}) == 1 and arrays[0].base is not None
    assert [a.dtype for a in arrays] == [np.int8, np.int8, np.float64]
    assert proba.weight.strides == (0,) and proba.weight.sum() == 2000  # unit rows: one shared 1


def test_packed_arrays_keep_their_values_and_dtypes():
    arrays = [np.arange(5, dtype=np.int64), np.linspace(0, 1, 3), np.array([1 + 2j]), np.zeros(0)]
    out = packed(arrays)
    assert [a.dtype for a in out] == [a.dtype for a in arrays]
    assert all(np.array_equal(a, b) for a, b in zip(out, arrays))
    assert len({id(a.base) for a in out}) == 1


def test_top_label_cells_of_unit_rows_share_their_ones():
    y, p = _rows(n=3000)
    cells = ProbabilityCells(4, None)
    for lo in range(0, 3000, 500):  # several chunks, merged
        cells.add(y[lo : lo + 500], p[lo : lo + 500], None)
    cells.merge()
    (_key, _bits), w, rows = cells.top[0]
    assert w.strides == (0,) and rows.strides == (0,) and w[0] == 1.0 and rows[0] == 1
    whole = probability_counts(y, p, None)  # one chunk: the same counts
    split = cells.finish(4, np.arange(4))
    for name in ("true", "predicted", "confidence", "weight", "rank", "brier"):
        assert np.array_equal(getattr(split, name), getattr(whole, name)), name
