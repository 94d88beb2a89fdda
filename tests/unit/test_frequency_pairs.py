"""Frequency weights in the streamed paired pass: a row of weight w counted as w identical rows.

The streamed engines cannot repeat rows (weights may be large, memory must stay bounded), so
:class:`reportgen.reduce.accumulators.PairedAccumulator` takes each row's multiplicity and
:func:`reportgen.reduce.accumulators.frequency_table` reads a weighted table as the table of the
repeated rows. These tests hold both to what the in-memory engine computes from the repeated
rows (``np.repeat``), and DeLong's covariance to an independent O(m·n) computation on the
repeated rows (DeLong, DeLong & Clarke-Pearson 1988, eq. for V10 / V01 by direct comparison).
"""

from __future__ import annotations

import numpy as np
import pytest
from hypothesis import HealthCheck, assume, given, settings
from hypothesis import strategies as st

from reportgen.engine.curve import build_table
from reportgen.errors import InputError
from reportgen.reduce import accumulators as S


def _weighted_pass(scores, y, w, directions, cuts, rates=(), chunks=1):
    """The streamed engines' frequency path: weighted tables → tables of the repeated rows, each row's
    table row mapped to them, the rows added with their weights as multiplicities (in ``chunks``
    accumulators merged, as Dask parts)."""
    tables, codes = [], []
    for s, d in zip(scores, directions):
        t = build_table(s, y, w, d)
        ft, row_map = S.frequency_table(t, "m")
        c = S.exact_grouper(t)(s)
        tables.append(ft)
        codes.append(c if row_map is None else row_map[c])
    accs = []
    for part in np.array_split(np.arange(y.shape[0]), chunks):
        acc = S.PairedAccumulator(tables, list(cuts), approval_rates=tuple(rates))
        rows = [c[part] for c in codes]
        correct = [(r < t.cut_index(cut)) == y[part] for r, t, cut in zip(rows, tables, cuts)]
        acc.add_rows(rows, correct, y[part], w[part])
        accs.append(acc)
    for other in accs[1:]:
        accs[0].merge(other)
    return accs[0]


def _repeated_pass(scores, y, w, directions, cuts, rates=()):
    """The in-memory engine's path: every row repeated w times, then the unweighted pass."""
    k = w.astype(np.int64)
    ry = np.repeat(y, k)
    rs = [np.repeat(s, k) for s in scores]
    tables = [build_table(s, ry, None, d) for s, d in zip(rs, directions)]
    acc = S.PairedAccumulator(tables, list(cuts), approval_rates=tuple(rates))
    rows = [S.exact_grouper(t)(s) for t, s in zip(tables, rs)]
    correct = [(r < t.cut_index(cut)) == ry for r, t, cut in zip(rows, tables, cuts)]
    acc.add_rows(rows, correct, ry)
    return acc


def _assert_same_pass(got: S.PairedAccumulator, want: S.PairedAccumulator) -> None:
    for a, b in zip(got.tables, want.tables):
        np.testing.assert_array_equal(a.thresholds, b.thresholds)
        np.testing.assert_array_equal(a.pos, b.pos)
        np.testing.assert_array_equal(a.neg, b.neg)
        assert (a.n_rows, a.sum_w2, a.weighted) == (b.n_rows, b.sum_w2, b.weighted)
    np.testing.assert_array_equal(got.agree, want.agree)  # whole numbers: exact
    np.testing.assert_array_equal(got.joint, want.joint)
    for a, b in zip(got.pair_tables.counts, want.pair_tables.counts):
        np.testing.assert_array_equal(a, b)
    np.testing.assert_array_equal(got.approval.counts, want.approval.counts)
    # DeLong's cross-moments: Σ w·a·aᵀ against the repeated rows' sums, equal up to float order
    np.testing.assert_allclose(got.c10, want.c10, rtol=1e-12, atol=1e-12)
    np.testing.assert_allclose(got.c01, want.c01, rtol=1e-12, atol=1e-12)
    np.testing.assert_allclose(got.covariance(), want.covariance(), rtol=1e-12, atol=1e-15)


@settings(max_examples=60, deadline=None, suppress_health_check=[HealthCheck.too_slow])
@given(
    n=st.integers(8, 120),
    k=st.integers(2, 3),
    seed=st.integers(0, 2**32 - 1),
    decimals=st.integers(0, 2),
    chunks=st.integers(1, 3),
)
def test_rows_with_multiplicities_count_as_the_repeated_rows(n, k, seed, decimals, chunks):
    """Ties (rounded scores), weights 0…4 (a score whose rows all weigh 0 vanishes), both
    directions, several models, chunked and merged: every count equals the repeated rows'."""
    rng = np.random.default_rng(seed)
    y = rng.random(n) < 0.4
    w = rng.integers(0, 5, n).astype(np.float64)
    assume(w[y].sum() >= 2 and w[~y].sum() >= 2)
    scores = [np.round(rng.normal(size=n) + y, decimals) for _ in range(k)]
    directions = [("higher", "lower")[j % 2] for j in range(k)]
    cuts = [float(np.median(s)) for s in scores]
    got = _weighted_pass(scores, y, w, directions, cuts, (0.5,), chunks)
    want = _repeated_pass(scores, y, w, directions, cuts, (0.5,))
    _assert_same_pass(got, want)


def _delong_oracle(scores: list[np.ndarray], y: np.ndarray) -> np.ndarray:
    """DeLong's covariance of the AUCs by direct comparison of every positive with every negative
    (higher = more positive): V10_i = mean_j ψ(x_i, y_j), V01_j = mean_i ψ(x_i, y_j) with
    ψ = 1 above, ½ tied, 0 below; S10 = cov of V10 over positives (ddof 1), S = S10/m + S01/n."""
    v10, v01 = [], []
    for s in scores:
        x, z = s[y][:, None], s[~y][None, :]
        psi = (x > z) + 0.5 * (x == z)
        v10.append(psi.mean(axis=1))
        v01.append(psi.mean(axis=0))
    m, n = int(y.sum()), int((~y).sum())
    return np.cov(np.array(v10), ddof=1) / m + np.cov(np.array(v01), ddof=1) / n


def test_delong_covariance_of_frequency_weights_equals_the_repeated_rows_by_direct_comparison():
    """A hand-sized case: weights 0, 1, 2, 3 on tied scores of three models, the second oriented
    ``lower`` (the oracle compares its negated scores)."""
    y = np.array([1, 1, 1, 0, 0, 0, 0, 1, 0, 1, 0, 0], dtype=bool)
    w = np.array([2, 1, 3, 1, 0, 2, 1, 1, 3, 2, 1, 1], dtype=np.float64)
    a = np.array([0.9, 0.8, 0.8, 0.3, 0.5, 0.8, 0.1, 0.4, 0.4, 0.7, 0.2, 0.6])
    b = np.array([2.0, 3.0, 1.0, 4.0, 1.0, 4.0, 5.0, 3.0, 2.0, 1.0, 5.0, 3.0])  # lower = more positive
    c = np.array([0.5, 0.5, 0.5, 0.5, 0.1, 0.4, 0.2, 0.5, 0.3, 0.6, 0.5, 0.1])
    acc = _weighted_pass([a, b, c], y, w, ["higher", "lower", "higher"], [0.5, 2.5, 0.45])
    rep = np.repeat(np.arange(y.shape[0]), w.astype(int))
    want = _delong_oracle([a[rep], -b[rep], c[rep]], y[rep])
    np.testing.assert_allclose(acc.covariance(), want, rtol=1e-12, atol=1e-15)
    # McNemar's table of a against b in repeated rows, counted by hand: right = decision == truth
    ra = (a[rep] >= 0.5) == y[rep]
    rb = (b[rep] <= 2.5) == y[rep]
    hand = [[np.sum(ra & rb), np.sum(ra & ~rb)], [np.sum(~ra & rb), np.sum(~ra & ~rb)]]
    np.testing.assert_array_equal(acc.agree[0, 1], hand)


def test_frequency_table_is_the_table_of_the_repeated_rows_without_scores_of_weight_zero():
    s = np.array([0.1, 0.2, 0.3, 0.3, 0.4])
    y = np.array([1, 0, 1, 0, 0], dtype=bool)
    w = np.array([1.0, 0.0, 2.0, 0.0, 3.0])
    for direction in ("higher", "lower"):
        t = build_table(s, y, w, direction)
        ft, row_map = S.frequency_table(t, "m")
        rep = build_table(np.repeat(s, w.astype(int)), np.repeat(y, w.astype(int)), None, direction)
        np.testing.assert_array_equal(ft.thresholds, rep.thresholds)
        np.testing.assert_array_equal(ft.pos, rep.pos)
        np.testing.assert_array_equal(ft.neg, rep.neg)
        assert (ft.n_rows, ft.sum_w2, ft.weighted) == (6, 6.0, False)
        # every score with weight keeps its row; 0.2 (weight 0 only) is gone
        np.testing.assert_array_equal(ft.thresholds[row_map[t.thresholds != 0.2]], t.thresholds[t.thresholds != 0.2])
    unweighted = build_table(s, y, None)
    assert S.frequency_table(unweighted, "m") == (unweighted, None)


def test_frequency_table_refuses_weight_sums_that_are_not_whole_numbers():
    t = build_table(np.array([0.1, 0.2]), np.array([True, False]), np.array([1.5, 1.0]))
    with pytest.raises(InputError, match="model 'm': weight: weight_kind: frequency needs whole-number weights"):
        S.frequency_table(t, "m")


def test_aligned_rows_must_be_repeated_alike():
    w = np.array([1.0, 2.0, 3.0])
    S.check_same_repeats(["a", "b"], ["a.csv", "b.csv"], [w, w.copy()], None)
    S.check_same_repeats(["a", "b"], ["a.csv", "b.csv"], [None, np.ones(3)], None)  # unweighted = weight 1
    with pytest.raises(
        InputError,
        match=r"^a.csv: model 'a': row 12 weighs 2 and the same row of model 'b' \(b.csv\) "
        r"weighs 5; weight_kind: frequency repeats each row by its weight, so every model "
        r"must weigh a row alike: fix the weights \(or use weight_kind: sampling\)$",
    ):
        S.check_same_repeats(["a", "b"], ["a.csv", "b.csv"], [w, np.array([1.0, 5.0, 3.0])], np.array([4, 10, 11]))
