"""The score table (reportgen.engine.curve) against scikit-learn's curve kernel.

scikit-learn's ``roc_curve(..., drop_intermediate=False)`` returns one point per distinct
score (its private ``_binary_clf_curve``) plus the empty cut at threshold +inf, which is
exactly what :meth:`ScoreTable.cumulative` returns; ``precision_recall_curve`` is the same
kernel read the other way round.
"""

from __future__ import annotations

import itertools

import numpy as np
import pytest
from sklearn.metrics import precision_recall_curve, roc_curve

from reportgen.engine.curve import ScoreTable, build_table, merge_tables, reweighted, row_groups

# --------------------------------------------------------------------------------------
# Data
# --------------------------------------------------------------------------------------

CASES = ["distinct", "ties", "int_weights", "frac_weights", "ties_frac_weights"]


def make_case(kind: str, n: int = 200, seed: int = 0):
    """Scores, labels and weights (None for unit weights) for one kind of test data."""
    rng = np.random.default_rng(seed)
    y = rng.random(n) < 0.35
    raw = rng.normal(size=n) + 0.8 * y
    scores = np.round(raw, 1) if "ties" in kind else raw
    weights = None
    if kind == "int_weights":
        weights = rng.integers(1, 5, size=n).astype(float)
    elif "frac_weights" in kind:
        weights = rng.uniform(0.05, 3.0, size=n)
    return scores, y, weights


def brute_counts(scores, y, weights, threshold, direction="higher"):
    """(TP, FP) of the rule ``score >= t`` (higher) / ``score <= t`` (lower), by a row loop."""
    w = np.ones_like(scores) if weights is None else weights
    pred = scores >= threshold if direction == "higher" else scores <= threshold
    return float(w[pred & y].sum()), float(w[pred & ~y].sum())


def assert_same_table(a: ScoreTable, b: ScoreTable) -> None:
    np.testing.assert_array_equal(a.thresholds, b.thresholds)
    np.testing.assert_allclose(a.pos, b.pos, rtol=1e-12, atol=1e-12)
    np.testing.assert_allclose(a.neg, b.neg, rtol=1e-12, atol=1e-12)
    assert a.direction == b.direction
    assert a.n_rows == b.n_rows
    assert a.sum_w2 == pytest.approx(b.sum_w2, rel=1e-12)
    assert a.weighted == b.weighted


# --------------------------------------------------------------------------------------
# Cumulative counts vs scikit-learn
# --------------------------------------------------------------------------------------


@pytest.mark.parametrize("kind", CASES)
def test_cumulative_counts_match_sklearn_roc_curve(kind):
    s, y, w = make_case(kind)
    table = build_table(s, y, w)
    tp, fp = table.cumulative()
    fpr, tpr, thr = roc_curve(y, s, sample_weight=w, drop_intermediate=False)
    P, N = table.total_pos, table.total_neg
    # sklearn: first point is the empty cut (threshold +inf), then one per distinct score
    assert np.isinf(thr[0])
    np.testing.assert_array_equal(table.thresholds, thr[1:])
    np.testing.assert_allclose(tp, tpr * P, rtol=1e-12, atol=1e-9)
    np.testing.assert_allclose(fp, fpr * N, rtol=1e-12, atol=1e-9)
    assert tp[0] == 0 and fp[0] == 0
    assert tp[-1] == pytest.approx(P) and fp[-1] == pytest.approx(N)
    wt = np.ones_like(s) if w is None else w
    assert pytest.approx(wt[y].sum()) == P and pytest.approx(wt[~y].sum()) == N


@pytest.mark.parametrize("kind", CASES)
def test_precision_recall_points_match_sklearn(kind):
    s, y, w = make_case(kind, seed=3)
    table = build_table(s, y, w)
    tp, fp = table.cumulative()
    prec, rec, thr = precision_recall_curve(y, s, sample_weight=w, drop_intermediate=False)
    # sklearn: ascending thresholds, and a final (precision 1, recall 0) point with no threshold
    np.testing.assert_array_equal(table.thresholds, thr[::-1])
    np.testing.assert_allclose(tp[1:] / (tp[1:] + fp[1:]), prec[:-1][::-1], rtol=1e-12)
    np.testing.assert_allclose(tp[1:] / table.total_pos, rec[:-1][::-1], rtol=1e-12, atol=1e-12)


@pytest.mark.parametrize("kind", CASES)
def test_lower_direction_with_negated_scores_equals_higher(kind):
    s, y, w = make_case(kind, seed=5)
    hi = build_table(s, y, w, "higher")
    lo = build_table(-s, y, w, "lower")
    np.testing.assert_array_equal(lo.thresholds, -hi.thresholds)
    np.testing.assert_array_equal(lo.pos, hi.pos)
    np.testing.assert_array_equal(lo.neg, hi.neg)
    for a, b in zip(lo.cumulative(), hi.cumulative()):
        np.testing.assert_array_equal(a, b)
    np.testing.assert_array_equal(lo.oriented(), hi.oriented())
    assert np.all(np.diff(lo.thresholds) > 0) and np.all(np.diff(hi.thresholds) < 0)


def test_lower_direction_on_the_same_scores_reverses_the_order():
    s = np.array([3.0, 1.0, 2.0, 2.0, 5.0])
    y = np.array([0, 1, 1, 0, 0], dtype=bool)
    lo = build_table(s, y, direction="lower")
    np.testing.assert_array_equal(lo.thresholds, [1.0, 2.0, 3.0, 5.0])
    np.testing.assert_array_equal(lo.pos, [1, 1, 0, 0])
    np.testing.assert_array_equal(lo.neg, [0, 1, 1, 1])


# --------------------------------------------------------------------------------------
# The threshold rule
# --------------------------------------------------------------------------------------


@pytest.mark.parametrize("direction", ["higher", "lower"])
@pytest.mark.parametrize("kind", CASES)
def test_cut_index_applies_the_rule_at_every_threshold(kind, direction):
    s, y, w = make_case(kind, n=80, seed=11)
    table = build_table(s, y, w, direction)
    tp, fp = table.cumulative()
    distinct = np.unique(s)
    mids = (distinct[1:] + distinct[:-1]) / 2
    probes = np.concatenate([distinct, mids, [distinct[0] - 1, distinct[-1] + 1]])
    for t in probes:
        i = table.cut_index(float(t))
        want_tp, want_fp = brute_counts(s, y, w, t, direction)
        assert tp[i] == pytest.approx(want_tp, abs=1e-9), t
        assert fp[i] == pytest.approx(want_fp, abs=1e-9), t


def test_threshold_equal_to_a_score_predicts_that_score_positive():
    s = np.array([0.1, 0.5, 0.5, 0.9])
    y = np.array([0, 1, 0, 1], dtype=bool)
    hi = build_table(s, y)
    tp, fp = hi.cumulative()
    i = hi.cut_index(0.5)  # score >= 0.5: rows 2, 3, 4
    assert (tp[i], fp[i]) == (2.0, 1.0)
    lo = build_table(s, y, direction="lower")
    tp, fp = lo.cumulative()
    i = lo.cut_index(0.5)  # score <= 0.5: rows 1, 2, 3
    assert (tp[i], fp[i]) == (1.0, 2.0)


def test_cut_index_extremes():
    table = build_table(np.array([1.0, 2.0, 3.0]), np.array([1, 0, 1]))
    assert table.cut_index(3.5) == 0  # beyond every score: nothing positive
    assert table.cut_index(3.0) == 1
    assert table.cut_index(-np.inf) == 3
    lo = build_table(np.array([1.0, 2.0, 3.0]), np.array([1, 0, 1]), direction="lower")
    assert lo.cut_index(0.5) == 0 and lo.cut_index(1.0) == 1 and lo.cut_index(np.inf) == 3


# --------------------------------------------------------------------------------------
# Table bookkeeping
# --------------------------------------------------------------------------------------


def test_unweighted_and_unit_weighted_tables_agree():
    s, y, _ = make_case("ties", seed=2)
    a = build_table(s, y)
    b = build_table(s, y, np.ones_like(s))
    np.testing.assert_array_equal(a.thresholds, b.thresholds)
    np.testing.assert_array_equal(a.pos, b.pos)
    np.testing.assert_array_equal(a.neg, b.neg)
    assert a.sum_w2 == b.sum_w2 == len(s)
    assert a.n_rows == b.n_rows == len(s)
    assert not a.weighted and b.weighted


def test_sum_of_squared_weights_and_rows():
    s, y, w = make_case("frac_weights", seed=4)
    t = build_table(s, y, w)
    assert t.sum_w2 == pytest.approx(float(np.dot(w, w)))
    assert t.n_rows == len(s)
    assert t.total == pytest.approx(w.sum())


def test_table_arrays_are_read_only():
    t = build_table(np.array([0.2, 0.4]), np.array([0, 1]))
    with pytest.raises(ValueError):
        t.pos[0] = 5.0


def test_build_table_rejects_mismatched_shapes():
    with pytest.raises(ValueError):
        build_table(np.array([0.1, 0.2]), np.array([1]))
    with pytest.raises(ValueError):
        build_table(np.array([0.1, 0.2]), np.array([1, 0]), np.array([1.0]))


def test_single_class_and_single_score_tables():
    t = build_table(np.array([0.3, 0.3, 0.3]), np.array([1, 1, 1]))
    np.testing.assert_array_equal(t.thresholds, [0.3])
    assert t.total_pos == 3 and t.total_neg == 0
    tp, fp = t.cumulative()
    np.testing.assert_array_equal(tp, [0, 3])
    np.testing.assert_array_equal(fp, [0, 0])


# --------------------------------------------------------------------------------------
# Merging and regrouping
# --------------------------------------------------------------------------------------


@pytest.mark.parametrize("direction", ["higher", "lower"])
@pytest.mark.parametrize("kind", CASES)
def test_merge_of_chunk_tables_equals_table_of_whole(kind, direction):
    s, y, w = make_case(kind, n=301, seed=7)
    whole = build_table(s, y, w, direction)
    cuts = [0, 13, 14, 150, 301]  # includes a one-row chunk and uneven sizes
    parts = []
    for a, b in itertools.pairwise(cuts):
        parts.append(build_table(s[a:b], y[a:b], None if w is None else w[a:b], direction))
    assert_same_table(merge_tables(*parts), whole)
    assert_same_table(merge_tables(whole), whole)


def test_merge_of_shuffled_interleaved_chunks():
    s, y, w = make_case("ties_frac_weights", n=400, seed=9)
    rng = np.random.default_rng(1)
    idx = rng.permutation(len(s))
    chunks = np.array_split(idx, 5)
    parts = [build_table(s[c], y[c], w[c]) for c in chunks]
    assert_same_table(merge_tables(*parts), build_table(s, y, w))


def test_merge_rejects_mixed_directions_and_nothing():
    a = build_table(np.array([0.1, 0.2]), np.array([0, 1]))
    b = build_table(np.array([0.1, 0.2]), np.array([0, 1]), direction="lower")
    with pytest.raises(ValueError):
        merge_tables(a, b)
    with pytest.raises(ValueError):
        merge_tables()


@pytest.mark.parametrize("direction", ["higher", "lower"])
@pytest.mark.parametrize("kind", CASES)
def test_row_groups_index_each_rows_score(kind, direction):
    s, y, w = make_case(kind, seed=13)
    table = build_table(s, y, w, direction)
    g = row_groups(table, s)
    np.testing.assert_array_equal(table.thresholds[g], s)
    # a resample as multiplicities: bincount over groups == table built from repeated rows
    rng = np.random.default_rng(0)
    mult = rng.integers(0, 3, size=len(s)).astype(float)
    wt = mult if w is None else mult * w
    pos = np.bincount(g[y], weights=wt[y], minlength=table.n_distinct)
    neg = np.bincount(g[~y], weights=wt[~y], minlength=table.n_distinct)
    rt = reweighted(table, pos, neg)
    keep = mult > 0
    direct = build_table(s[keep], y[keep], wt[keep], direction)
    nz = (rt.pos + rt.neg) > 0  # distinct scores the resample did not draw keep a zero count
    np.testing.assert_array_equal(rt.thresholds[nz], direct.thresholds)
    np.testing.assert_allclose(rt.pos[nz], direct.pos, rtol=1e-12)
    np.testing.assert_allclose(rt.neg[nz], direct.neg, rtol=1e-12)


def test_reweighted_keeps_scores_and_marks_weighted():
    t = build_table(np.array([0.1, 0.2, 0.3]), np.array([0, 1, 1]))
    r = reweighted(t, [0.0, 2.5, 1.0], [4.0, 0.0, 0.0])
    np.testing.assert_array_equal(r.thresholds, t.thresholds)
    assert r.total_pos == 3.5 and r.total_neg == 4.0 and r.weighted


@pytest.mark.parametrize("direction", ["higher", "lower"])
def test_row_groups_of_decimal_scores_need_no_sort_and_match_the_sorted_codes(direction):
    """Rounded scores take the lookup path (no sort); the oracle is np.unique's inverse, mapped
    to the table's order. A table with a threshold no row has, or rows scored off the table,
    fall back to the sort / binary search and still index each row's score."""
    from reportgen.engine.curve import _coded_groups

    rng = np.random.default_rng(3)
    s = np.round(rng.random(5000) * 2 - 1, 3)
    s[:3] = [-0.0, 0.0, 0.5]
    y = rng.random(5000) < 0.3
    table = build_table(s, y, None, direction)
    fast = _coded_groups(table.thresholds, s)
    assert fast is not None
    values, inverse = np.unique(s, return_inverse=True)
    order = np.arange(values.shape[0]) if direction == "lower" else np.arange(values.shape[0])[::-1]
    np.testing.assert_array_equal(fast, np.argsort(order)[inverse])
    np.testing.assert_array_equal(row_groups(table, s), fast)
    np.testing.assert_array_equal(table.thresholds[row_groups(table, s)], s)
    other = np.round(rng.random(100) * 2 - 1, 3)  # a sample scored off this table
    other[0] = 0.0005
    assert _coded_groups(table.thresholds, other) is None
    g = row_groups(table, other)
    assert g.shape == other.shape
    assert _coded_groups(table.thresholds, s * np.pi) is None  # not decimals: the sort path
