"""Weighted tables whose weight sums do not depend on the order of the rows.

A weight sum's last bits depend on the order of its additions; memory adds a model's weights in
the order of the compared rows (an id join reorders a file), stream per batch and dask per part.
:func:`reportgen.reduce.accumulators.table_of_cells` takes every weighted table's sums from its
weight cells, which every engine holds in one canonical order. Regression for the parity case
``binary_weights_id_join_shuffled_file`` (last-bit differences in every weighted metric).
"""

from __future__ import annotations

import numpy as np
from hypothesis import given, settings
from hypothesis import strategies as st

from reportgen.engine.curve import build_table, row_groups
from reportgen.engine.intervals import count_cells
from reportgen.reduce import accumulators as S
from reportgen.reduce.cells import concat_cells, weight_cells


def _memory(scores, y, w, direction):
    """The in-memory engine's weighted table: built from the rows, sums from their cells."""
    t = build_table(scores, y, w, direction)
    return S.table_of_cells(t, count_cells(row_groups(t, scores), y, w))


def _streamed(scores, y, w, direction, chunks):
    """The streamed engines' weighted table: chunk tables merged, cells counted chunk by chunk."""
    acc = S.TableAccumulator(direction)
    for part in np.array_split(np.arange(y.shape[0]), chunks):
        acc.add(scores[part], y[part], w[part])
    t = acc.table()
    return S.table_of_cells(t, acc.weight_cells.cells(t))


def _same_bits(a, b):
    np.testing.assert_array_equal(a.thresholds, b.thresholds)
    assert a.pos.tobytes() == b.pos.tobytes()
    assert a.neg.tobytes() == b.neg.tobytes()
    assert (a.sum_w2, a.n_rows, a.weighted) == (b.sum_w2, b.n_rows, b.weighted)


@settings(max_examples=60, deadline=None)
@given(
    n=st.integers(1, 400),
    seed=st.integers(0, 2**32 - 1),
    decimals=st.integers(0, 3),
    chunks=st.integers(1, 5),
    direction=st.sampled_from(["higher", "lower"]),
)
def test_weight_sums_are_the_same_bits_in_any_row_order_and_chunking(n, seed, decimals, chunks, direction):
    rng = np.random.default_rng(seed)
    y = rng.random(n) < 0.4
    s = np.round(rng.normal(size=n), decimals)
    w = np.round(rng.uniform(0.0, 3.0, n), int(rng.integers(1, 6)))  # zeros and inexact decimals
    perm = rng.permutation(n)
    want = _memory(s, y, w, direction)
    _same_bits(_memory(s[perm], y[perm], w[perm], direction), want)
    _same_bits(_streamed(s[perm], y[perm], w[perm], direction, chunks), want)
    # the sums themselves: those of the rows, to rounding
    ref = build_table(s, y, w, direction)
    np.testing.assert_allclose(want.pos, ref.pos, rtol=1e-12, atol=1e-12)
    np.testing.assert_allclose(want.neg, ref.neg, rtol=1e-12, atol=1e-12)
    np.testing.assert_allclose(want.sum_w2, float(np.dot(w, w)), rtol=1e-12, atol=1e-12)


def test_weight_sums_by_hand_and_tables_without_cells_unchanged():
    s = np.array([0.3, 0.1, 0.3, 0.3, 0.1])
    y = np.array([True, False, True, False, True])
    w = np.array([0.1, 0.7, 0.2, 0.5, 0.1])
    t = _memory(s, y, w, "higher")
    # 0.3: positives 0.1 + 0.2 added by ascending weight, negatives 0.5; 0.1: positive 0.1, negative 0.7
    assert t.pos.tolist() == [0.1 + 0.2, 0.1] and t.neg.tolist() == [0.5, 0.7]
    assert np.isclose(t.sum_w2, 0.01 + 0.04 + 0.01 + 0.25 + 0.49, rtol=1e-15)
    plain = build_table(s, y, w)
    assert S.table_of_cells(plain, None) is plain  # past the cap or binned: the table as read
    unweighted = build_table(s, y)
    assert S.table_of_cells(unweighted, count_cells(row_groups(unweighted, s), y, np.ones(5))) is unweighted


@settings(max_examples=60, deadline=None)
@given(
    n=st.integers(0, 300),
    keys=st.integers(1, 3),
    chunks=st.integers(1, 6),
    seed=st.integers(0, 2**31 - 1),
)
def test_cells_merged_from_chunks_are_the_cells_of_all_rows_and_the_chunks_are_handed_over(n, keys, chunks, seed):
    """concat_cells of the chunks' weight cells gives the cells of all the rows (same arrays, same
    order, whatever the chunking), and empties the chunk list it read (its owner replaces it)."""
    rng = np.random.default_rng(seed)
    cols = [rng.integers(0, 4, n) for _ in range(keys)]
    w = rng.choice([1.0, 0.5, 2.0, 0.0], n)
    whole = weight_cells(cols, w)
    parts = [weight_cells([c[p] for c in cols], w[p]) for p in np.array_split(np.arange(n), chunks)]
    merged = concat_cells(parts)
    assert parts == [] or chunks == 1
    for a, b in zip(merged[0], whole[0], strict=True):
        assert np.array_equal(a, b) and a.dtype == b.dtype
    assert np.array_equal(merged[1], whole[1]) and np.array_equal(merged[2], whole[2])
