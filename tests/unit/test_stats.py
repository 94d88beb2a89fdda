"""Unit tests of ``reportgen.engine.stats``: DeLong, McNemar, Holm and the bootstrap.

Oracles are independent of the code under test: a brute-force O(n+ * n-) DeLong written here
from the definition (DeLong et al. 1988), scikit-learn's ``roc_auc_score``, and scipy's
``binomtest``, ``chi2``, ``norm`` and ``t`` distributions.
"""

from __future__ import annotations

import math
import warnings

import numpy as np
import pytest
from hypothesis import given, settings
from hypothesis import strategies as st
from scipy import stats as sps
from sklearn.metrics import roc_auc_score

from reportgen.engine import stats
from reportgen.engine.curve import build_table, row_groups
from reportgen.engine.delong import (
    AucInterval,
    delong_auc_ci,
    delong_components,
    delong_paired,
    delong_unpaired,
    gini_interval,
)
from reportgen.engine.stats import (
    BootstrapResult,
    bootstrap_tables,
    holm,
    mcnemar,
    paired_bootstrap,
    percentile_interval,
    stratified_bootstrap_counts,
)

WEIGHTS_MESSAGE = "DeLong's test is defined for unweighted rows; use the bootstrap for weighted data"


# --- oracles ------------------------------------------------------------------------------------


def brute_components(scores: np.ndarray, y: np.ndarray) -> tuple[float, np.ndarray, np.ndarray]:
    """DeLong's components from the full m x n kernel matrix psi (ties count 1/2)."""
    x = scores[y]
    z = scores[~y]
    psi = (x[:, None] > z[None, :]).astype(float) + 0.5 * (x[:, None] == z[None, :])
    return float(psi.mean()), psi.mean(axis=1), psi.mean(axis=0)


def brute_delong(sa: np.ndarray, sb: np.ndarray, y: np.ndarray):
    """(auc_a, auc_b, var_a, var_b, cov) from 2 x 2 covariance matrices S10/m + S01/n."""
    auc_a, v10a, v01a = brute_components(sa, y)
    auc_b, v10b, v01b = brute_components(sb, y)
    s10 = np.cov(np.vstack([v10a, v10b]))
    s01 = np.cov(np.vstack([v01a, v01b]))
    s = s10 / v10a.shape[0] + s01 / v01a.shape[0]
    return auc_a, auc_b, s[0, 0], s[1, 1], s[0, 1]


def table_auc(table) -> float:
    """Trapezoidal AUC of a score table (ties as diagonal segments = half credit)."""
    tp, fp = table.cumulative()
    return float(np.sum(np.diff(fp) * (tp[1:] + tp[:-1]) / 2.0) / (tp[-1] * fp[-1]))


def tied_data(seed: int, n: int, levels: int):
    """Scores with heavy ties (few distinct values), at least two rows of each class."""
    rng = np.random.default_rng(seed)
    y = rng.random(n) < 0.4
    y[:2] = True
    y[2:4] = False
    sa = rng.integers(0, levels, n) + 0.7 * y * rng.integers(0, 2, n)
    sb = np.round(sa + rng.normal(0, 1.0, n))
    return sa.astype(float), sb.astype(float), y


# --- DeLong: fast algorithm vs brute force --------------------------------------------------------


@settings(max_examples=60, deadline=None)
@given(
    seed=st.integers(0, 2**32 - 1),
    n=st.integers(4, 80),
    levels=st.integers(1, 6),
    direction_a=st.sampled_from(["higher", "lower"]),
    direction_b=st.sampled_from(["higher", "lower"]),
)
def test_fast_delong_equals_brute_force_with_ties(seed, n, levels, direction_a, direction_b):
    sa, sb, y = tied_data(seed, n, levels)
    oa = sa if direction_a == "higher" else -sa
    ob = sb if direction_b == "higher" else -sb

    auc, v10, v01 = delong_components(oa, y)
    ref_auc, ref_v10, ref_v01 = brute_components(oa, y)
    assert auc == pytest.approx(ref_auc, abs=1e-14)
    np.testing.assert_allclose(v10, ref_v10, atol=1e-14)
    np.testing.assert_allclose(v01, ref_v01, atol=1e-14)

    test = delong_paired(sa, sb, y, direction_a=direction_a, direction_b=direction_b)
    auc_a, auc_b, var_a, var_b, cov = brute_delong(oa, ob, y)
    assert test.auc_a == pytest.approx(auc_a, abs=1e-14)
    assert test.auc_b == pytest.approx(auc_b, abs=1e-14)
    assert test.var_a == pytest.approx(var_a, rel=1e-10, abs=1e-16)
    assert test.var_b == pytest.approx(var_b, rel=1e-10, abs=1e-16)
    assert test.covariance == pytest.approx(cov, rel=1e-10, abs=1e-16)
    var_d = max(var_a + var_b - 2 * cov, 0.0)
    assert test.se**2 == pytest.approx(var_d, rel=1e-9, abs=1e-15)
    if var_d > 1e-12:
        z = (auc_a - auc_b) / math.sqrt(var_d)
        assert test.z == pytest.approx(z, rel=1e-8)
        assert test.p_value == pytest.approx(2 * sps.norm.sf(abs(z)), rel=1e-8, abs=1e-300)


@settings(max_examples=40, deadline=None)
@given(seed=st.integers(0, 2**32 - 1), n=st.integers(4, 200), levels=st.integers(1, 50))
def test_auc_equals_sklearn_in_both_directions(seed, n, levels):
    sa, _, y = tied_data(seed, n, levels)
    assert delong_auc_ci(sa, y).auc == pytest.approx(roc_auc_score(y, sa), abs=1e-14)
    assert delong_auc_ci(sa, y, direction="lower").auc == pytest.approx(roc_auc_score(y, -sa), abs=1e-14)


def test_components_are_in_input_order_and_average_to_the_auc():
    y = np.array([1, 0, 1, 0, 1], dtype=bool)
    s = np.array([0.9, 0.5, 0.5, 0.1, 0.2])
    auc, v10, v01 = delong_components(s, y)
    # positives 0.9, 0.5, 0.2 against negatives 0.5, 0.1
    np.testing.assert_allclose(v10, [1.0, 0.75, 0.5])
    np.testing.assert_allclose(v01, [1 / 3 + 0.5 / 3, 1.0])
    assert auc == pytest.approx(v10.mean()) == pytest.approx(v01.mean())


def test_large_input_is_fast_and_never_builds_the_pair_matrix():
    """2 x 10^5 rows: 10^10 pairs would not fit in memory; the midrank algorithm is O(n log n)."""
    rng = np.random.default_rng(0)
    n = 200_000
    y = rng.random(n) < 0.5
    s = np.round(rng.normal(size=n) + y, 2)  # many ties
    ci = delong_auc_ci(s, y)
    assert ci.auc == pytest.approx(roc_auc_score(y, s), abs=1e-12)
    assert 0 < ci.se < 0.01


def test_interval_is_normal_and_clipped():
    rng = np.random.default_rng(1)
    y = rng.random(300) < 0.3
    s = rng.normal(size=300) + 1.2 * y
    ci = delong_auc_ci(s, y, level=0.9)
    z = sps.norm.ppf(0.95)
    assert (ci.lo, ci.hi) == pytest.approx((ci.auc - z * ci.se, ci.auc + z * ci.se), rel=1e-12)
    assert ci.se == pytest.approx(math.sqrt(ci.variance))
    assert (ci.n_pos, ci.n_neg, ci.level) == (int(y.sum()), int((~y).sum()), 0.9)
    # Nearly separated classes: the upper bound is clipped at 1.
    y2 = np.array([0] * 5 + [1] * 5 + [0, 1], dtype=bool)
    s2 = np.array([1, 2, 3, 4, 5, 6, 7, 8, 9, 10, 6.5, 5.5])
    near = delong_auc_ci(s2, y2)
    assert near.hi == 1.0 and near.lo < near.auc < 1.0


def test_gini_interval_is_the_image_of_the_auc_interval():
    ci = AucInterval(auc=0.8, variance=0.0025, se=0.05, lo=0.702, hi=0.898, n_pos=10, n_neg=20)
    g = gini_interval(ci)
    assert (g.gini, g.se, g.lo, g.hi, g.level) == pytest.approx((0.6, 0.1, 0.404, 0.796, 0.95))


# --- DeLong: degenerate cases --------------------------------------------------------------------


@pytest.mark.filterwarnings("error")
def test_identical_models_give_delta_zero_z_zero_p_one():
    sa, _, y = tied_data(3, 60, 4)
    for other in (sa, 3 * sa + 7, np.exp(sa)):  # any strictly increasing map ranks identically
        t = delong_paired(sa, other, y)
        assert (t.delta, t.se, t.z, t.p_value) == (0.0, 0.0, 0.0, 1.0)
        assert (t.lo, t.hi) == (0.0, 0.0) and t.paired and t.df is None
    # Opposite direction of the negated score is the same model too.
    t = delong_paired(sa, -sa, y, direction_b="lower")
    assert (t.z, t.p_value) == (0.0, 1.0)


@pytest.mark.filterwarnings("error")
def test_perfect_separation():
    y = np.array([0] * 6 + [1] * 5, dtype=bool)
    perfect = np.arange(11.0)
    both = delong_paired(perfect, 2 * perfect, y)
    assert (both.auc_a, both.auc_b, both.var_a, both.var_b) == (1.0, 1.0, 0.0, 0.0)
    assert (both.z, both.p_value) == (0.0, 1.0)
    # Perfect against perfectly inverted: zero variance with delta 1 -> p = 0, z undefined.
    inverted = delong_paired(perfect, -perfect, y)
    assert (inverted.auc_a, inverted.auc_b, inverted.delta) == (1.0, 0.0, 1.0)
    assert inverted.se == 0.0 and inverted.z is None and inverted.p_value == 0.0
    assert (inverted.lo, inverted.hi) == (1.0, 1.0)
    # Perfect against a noisy model: finite z, small p.
    noisy = perfect.copy()
    noisy[[0, 10]] = noisy[[10, 0]]
    t = delong_paired(perfect, noisy, y)
    assert t.z is not None and t.z > 0 and 0 < t.p_value < 1
    ci = delong_auc_ci(perfect, y)
    assert (ci.auc, ci.variance, ci.lo, ci.hi) == (1.0, 0.0, 1.0, 1.0)
    un = delong_unpaired(perfect, y, -perfect, y)
    assert (un.z, un.p_value, un.df, un.paired) == (None, 0.0, None, False)


def test_unpaired_uses_welch_t_like_proc():
    rng = np.random.default_rng(7)
    ya = rng.random(120) < 0.4
    sa = rng.normal(size=120) + ya
    yb = rng.random(90) < 0.5
    sb = rng.normal(size=90) + 0.4 * yb
    t = delong_unpaired(sa, ya, sb, yb, level=0.9)
    _, _, va, _, _ = brute_delong(sa, sa, ya)
    _, _, vb, _, _ = brute_delong(sb, sb, yb)
    assert (t.var_a, t.var_b) == pytest.approx((va, vb), rel=1e-10)
    d = (t.auc_a - t.auc_b) / math.sqrt(va + vb)
    df = (va + vb) ** 2 / (va**2 / 119 + vb**2 / 89)
    assert t.z == pytest.approx(d, rel=1e-10)
    assert t.df == pytest.approx(df, rel=1e-10)
    assert t.p_value == pytest.approx(2 * sps.t.sf(abs(d), df), rel=1e-10)
    half = sps.t.ppf(0.95, df) * math.sqrt(va + vb)
    assert (t.lo, t.hi) == pytest.approx((t.delta - half, t.delta + half), rel=1e-10)
    assert (t.n_pos_a, t.n_pos_b, t.covariance, t.paired) == (ya.sum(), yb.sum(), 0.0, False)


def test_paired_interval_uses_the_normal_quantile():
    sa, sb, y = tied_data(11, 150, 20)
    t = delong_paired(sa, sb, y, level=0.8)
    half = sps.norm.ppf(0.9) * t.se
    assert (t.lo, t.hi) == pytest.approx((t.delta - half, t.delta + half), rel=1e-12)


def test_weights_other_than_one_are_refused():
    sa, sb, y = tied_data(5, 40, 5)
    ones = np.ones(40)
    assert delong_auc_ci(sa, y, weights=ones) == delong_auc_ci(sa, y)
    assert delong_paired(sa, sb, y, weights=ones) == delong_paired(sa, sb, y)
    w = ones.copy()
    w[3] = 2.0
    with pytest.raises(ValueError, match=WEIGHTS_MESSAGE):
        delong_auc_ci(sa, y, weights=w)
    with pytest.raises(ValueError, match=WEIGHTS_MESSAGE):
        delong_paired(sa, sb, y, weights=w)
    with pytest.raises(ValueError, match=WEIGHTS_MESSAGE):
        delong_unpaired(sa, y, sb, y, weights_b=w)


def test_bad_inputs_are_refused():
    y = np.array([1, 0, 1, 0], dtype=bool)
    with pytest.raises(ValueError, match="both classes"):
        delong_components(np.arange(3.0), np.ones(3, dtype=bool))
    with pytest.raises(ValueError, match="at least two positives"):
        delong_auc_ci(np.arange(3.0), np.array([1, 0, 0]))
    with pytest.raises(ValueError, match="0/1"):
        delong_auc_ci(np.arange(4.0), np.array([0, 1, 2, 1]))
    with pytest.raises(ValueError, match="length 4"):
        delong_auc_ci(np.arange(3.0), y)
    with pytest.raises(ValueError, match="non-finite"):
        delong_auc_ci(np.array([0.1, np.nan, 0.3, 0.4]), y)
    with pytest.raises(ValueError, match="direction"):
        delong_auc_ci(np.arange(4.0), y, direction="up")  # type: ignore[arg-type]
    with pytest.raises(ValueError, match="level"):
        delong_auc_ci(np.arange(4.0), y, level=95)


# --- McNemar -------------------------------------------------------------------------------------


def rows_for(n11: int, n12: int, n21: int, n22: int) -> tuple[np.ndarray, np.ndarray]:
    a = np.array([True] * n11 + [True] * n12 + [False] * n21 + [False] * n22)
    b = np.array([True] * n11 + [False] * n12 + [True] * n21 + [False] * n22)
    return a, b


def test_mcnemar_table_orientation():
    a, b = rows_for(7, 3, 5, 2)
    r = mcnemar(a, b)
    assert r.table == ((7, 3), (5, 2))
    assert (r.b, r.c, r.n) == (3, 5, 17)


@pytest.mark.parametrize("b", range(0, 14))
def test_mcnemar_exact_matches_binomtest(b):
    for c in range(0, 25 - b):
        a_, b_ = rows_for(4, b, c, 3)
        r = mcnemar(a_, b_)
        if b + c == 0:
            assert (r.statistic, r.p_value, r.method) == (0.0, 1.0, "none (no discordant pairs)")
            continue
        assert r.method == "exact binomial"
        assert r.statistic == min(b, c)
        ref = sps.binomtest(b, b + c, 0.5).pvalue
        assert r.p_value == pytest.approx(ref, rel=1e-12)


@pytest.mark.parametrize("b,c", [(25, 0), (12, 13), (30, 10), (100, 140), (5, 400), (1000, 1000)])
def test_mcnemar_chi_square_matches_scipy(b, c):
    r = mcnemar(*rows_for(10, b, c, 10))
    stat = (abs(b - c) - 1) ** 2 / (b + c)
    assert r.method == "chi-square (continuity-corrected)"
    assert r.statistic == pytest.approx(stat, rel=1e-14)
    assert r.p_value == pytest.approx(sps.chi2.sf(stat, 1), rel=1e-12)


def test_mcnemar_threshold_switches_method_and_large_exact_uses_log_space():
    a, b = rows_for(0, 10, 14, 0)  # b + c = 24
    assert mcnemar(a, b).method == "exact binomial"
    assert mcnemar(a, b, exact_threshold=24).method == "chi-square (continuity-corrected)"
    big = mcnemar(*rows_for(0, 2900, 3100, 0), exact_threshold=10**9)  # 6000 > exact-int cut
    assert big.method == "exact binomial"
    assert big.p_value == pytest.approx(sps.binomtest(2900, 6000, 0.5).pvalue, rel=1e-9)


def test_mcnemar_integer_weights_are_frequencies():
    a = np.array([True, True, False, False, True])
    b = np.array([True, False, True, False, False])
    w = np.array([3, 2, 7, 1, 4])
    weighted = mcnemar(a, b, weights=w)
    expanded = mcnemar(np.repeat(a, w), np.repeat(b, w))
    assert weighted == expanded
    assert weighted.table == ((3, 6), (7, 1))
    assert mcnemar(a, b, weights=w.astype(float)) == expanded  # 2.0 is an integer count
    with pytest.raises(ValueError, match="integer frequency weights"):
        mcnemar(a, b, weights=np.array([1, 1, 1.5, 1, 1]))
    with pytest.raises(ValueError, match="non-negative"):
        mcnemar(a, b, weights=np.array([1, 1, -1, 1, 1]))
    with pytest.raises(ValueError, match="length"):
        mcnemar(a, b[:4])


# --- Holm ----------------------------------------------------------------------------------------


def test_holm_hand_computed():
    # sorted: 0.005*4 = 0.02, 0.01*3 = 0.03, 0.03*2 = 0.06, 0.04*1 = 0.04 -> running max 0.06
    assert holm([0.01, 0.04, 0.03, 0.005]) == pytest.approx([0.03, 0.06, 0.06, 0.02])
    assert holm([0.01, None, 0.04]) == [pytest.approx(0.02), None, pytest.approx(0.04)]
    assert holm([0.5, 0.6]) == [1.0, 1.0]  # capped at 1, then monotone
    assert holm([0.02, 0.02]) == pytest.approx([0.04, 0.04])
    assert holm([]) == []
    assert holm([None]) == [None]
    assert holm([0.0, 1.0]) == [0.0, 1.0]
    # statsmodels multipletests(method="holm") on a textbook family gives these values
    assert holm([0.01, 0.02, 0.03, 0.04, 0.05]) == pytest.approx([0.05, 0.08, 0.09, 0.09, 0.09])
    with pytest.raises(ValueError, match=r"\[0, 1\]"):
        holm([0.1, float("nan")])
    with pytest.raises(ValueError, match=r"\[0, 1\]"):
        holm([1.2])


@given(st.lists(st.one_of(st.none(), st.floats(0.0, 1.0)), max_size=12))
def test_holm_properties(ps):
    adj = holm(ps)
    assert [a is None for a in adj] == [p is None for p in ps]
    pairs = [(p, a) for p, a in zip(ps, adj) if p is not None]
    m = len(pairs)
    raw = sorted(p for p, _ in pairs)
    expected = {}
    running = 0.0
    for i, p in enumerate(raw):  # definition: max over j <= i of min(1, (m - j) p_(j))
        running = max(running, min(1.0, (m - i) * p))
        expected.setdefault(p, running)
    for p, a in pairs:
        assert p <= a <= 1.0
        assert a == pytest.approx(expected[p], abs=1e-15)
    for p1, a1 in pairs:
        for p2, a2 in pairs:
            if p1 < p2:
                assert a1 <= a2


# --- bootstrap -----------------------------------------------------------------------------------


def test_stratified_counts_keep_class_sizes_and_are_reproducible():
    rng_y = np.random.default_rng(0)
    y = rng_y.random(257) < 0.2
    draws = list(stratified_bootstrap_counts(y, 40, np.random.default_rng(42)))
    assert len(draws) == 40
    for m in draws:
        assert m.shape == (257,) and m.dtype.kind == "i" and (m >= 0).all()
        assert m[y].sum() == y.sum() and m[~y].sum() == (~y).sum()
    again = list(stratified_bootstrap_counts(y, 40, np.random.default_rng(42)))
    assert all((a == b).all() for a, b in zip(draws, again))
    other = list(stratified_bootstrap_counts(y, 40, np.random.default_rng(43)))
    assert any((a != b).any() for a, b in zip(draws, other))
    assert len({m.tobytes() for m in draws}) == 40  # resamples differ from each other


def test_stratified_counts_are_uniform_within_class():
    y = np.array([True] * 4 + [False] * 6)
    ms = np.array(list(stratified_bootstrap_counts(y, 4000, np.random.default_rng(1))))
    # each row is drawn on average once per resample (its class size / class size)
    np.testing.assert_allclose(ms.mean(axis=0), 1.0, atol=0.08)


def test_stratified_counts_blocks_across_boundaries(monkeypatch):
    monkeypatch.setattr(stats, "_BLOCK_ELEMENTS", 50)  # 5 resamples per block for 10 rows
    y = np.array([True] * 3 + [False] * 7)
    calls = []
    result = paired_bootstrap(
        lambda m: float(m[0]),
        y,
        12,
        np.random.default_rng(0),
        progress=lambda done, total: calls.append((done, total)),
    )
    assert calls == [(5, 12), (10, 12), (12, 12)]
    assert result.estimate_samples.shape == (12, 1)


def test_bootstrap_table_equals_table_of_repeated_rows():
    rng = np.random.default_rng(3)
    n = 150
    y = rng.random(n) < 0.35
    s = np.round(rng.normal(size=n) + y, 1)
    for direction in ("higher", "lower"):
        table = build_table(s, y, direction=direction)
        groups = row_groups(table, s)
        for m in stratified_bootstrap_counts(y, 5, rng):
            boot = bootstrap_tables(table, groups, y, m)
            ref = build_table(np.repeat(s, m), np.repeat(y, m), direction=direction)
            kept = (boot.pos + boot.neg) > 0
            np.testing.assert_array_equal(boot.thresholds[kept], ref.thresholds)
            np.testing.assert_array_equal(boot.pos[kept], ref.pos)
            np.testing.assert_array_equal(boot.neg[kept], ref.neg)
            assert table_auc(boot) == pytest.approx(
                roc_auc_score(np.repeat(y, m), np.repeat(s if direction == "higher" else -s, m))
            )


def test_bootstrap_table_with_sample_weights():
    rng = np.random.default_rng(4)
    y = rng.random(60) < 0.5
    s = rng.integers(0, 8, 60).astype(float)
    w = rng.uniform(0.5, 2.0, 60)
    table = build_table(s, y, weights=w)
    m = next(stratified_bootstrap_counts(y, 1, rng))
    boot = bootstrap_tables(table, row_groups(table, s), y, m, weights=w)
    ref = build_table(s, y, weights=w * m)
    np.testing.assert_allclose(boot.pos, ref.pos)
    np.testing.assert_allclose(boot.neg, ref.neg)


def test_percentile_interval():
    v = np.arange(101.0)
    assert percentile_interval(v, 0.9) == pytest.approx((5.0, 95.0))
    with_nan = np.concatenate([v, [np.nan, np.inf]])
    assert percentile_interval(with_nan, 0.9) == percentile_interval(v, 0.9)
    assert percentile_interval(np.array([1.0, np.nan])) is None
    assert percentile_interval(np.array([])) is None
    assert percentile_interval(np.array([1.0, 2.0]), 0.5) == pytest.approx((1.25, 1.75))


@settings(max_examples=300, deadline=None)
@given(
    st.lists(st.floats(-1e6, 1e6) | st.sampled_from([0.0, 0.5, 1.0, np.nan, np.inf]), min_size=0, max_size=60),
    st.floats(0.01, 0.999) | st.sampled_from([0.5, 0.8, 0.9, 0.95, 0.99]),
)
def test_percentile_interval_is_numpys_linear_quantile_to_the_bit(values, level):
    """The sort-once type-7 quantiles equal np.quantile's default (the oracle) exactly, with ties,
    non-finite replicates dropped and every sample size."""
    v = np.array(values, dtype=np.float64)
    finite = v[np.isfinite(v)]
    got = percentile_interval(v, level)
    if finite.shape[0] < 2:
        assert got is None
        return
    want = np.quantile(finite, [(1.0 - level) / 2.0, (1.0 + level) / 2.0])
    assert got == (float(want[0]), float(want[1]))


def test_paired_bootstrap_covers_the_true_auc_and_delta():
    """Binormal scores: model a with separation 1 (AUC = Phi(1/sqrt 2) = 0.7602), model b a noisier
    copy; 2,000 rows, 300 resamples. The interval of AUC_a covers the truth and has about DeLong's
    width; the paired delta interval agrees with DeLong's paired interval."""
    rng = np.random.default_rng(2024)
    n = 2000
    y = rng.random(n) < 0.4
    sa = rng.normal(size=n) + 1.0 * y
    sb = sa + rng.normal(size=n)
    true_auc = sps.norm.cdf(1 / math.sqrt(2))
    ta, tb = build_table(sa, y), build_table(sb, y)
    ga, gb = row_groups(ta, sa), row_groups(tb, sb)

    def statistic(m):
        auc_a = table_auc(bootstrap_tables(ta, ga, y, m))
        auc_b = table_auc(bootstrap_tables(tb, gb, y, m))
        return np.array([auc_a, auc_b, auc_a - auc_b])

    res = paired_bootstrap(statistic, y, 300, np.random.default_rng(9), level=0.95)
    assert isinstance(res, BootstrapResult)
    assert res.estimate_samples.shape == (300, 3) and res.n_resamples == 300
    assert res.n_valid == (300, 300, 300)
    assert res.lo[0] < true_auc < res.hi[0]
    ci = delong_auc_ci(sa, y)
    assert (res.hi[0] - res.lo[0]) == pytest.approx(ci.hi - ci.lo, rel=0.2)
    d = delong_paired(sa, sb, y)
    assert res.lo[2] == pytest.approx(d.lo, abs=0.015)
    assert res.hi[2] == pytest.approx(d.hi, abs=0.015)
    with pytest.raises(ValueError):
        res.estimate_samples[0, 0] = 1.0  # frozen samples


def test_paired_bootstrap_scalar_nan_and_reproducibility():
    y = np.array([True] * 3 + [False] * 20)

    def first_row_drawn(m):
        return float(m[0]) if m[0] > 0 else float("nan")

    a = paired_bootstrap(first_row_drawn, y, 200, np.random.default_rng(5))
    b = paired_bootstrap(first_row_drawn, y, 200, np.random.default_rng(5))
    np.testing.assert_array_equal(a.estimate_samples, b.estimate_samples)
    assert a.estimate_samples.shape == (200, 1)
    assert 0 < a.n_valid[0] < 200  # P(row 0 not drawn among 3) = (2/3)^3
    nothing = paired_bootstrap(lambda m: float("nan"), y, 10, np.random.default_rng(5))
    assert (nothing.lo, nothing.hi, nothing.n_valid) == ((None,), (None,), (0,))
    with pytest.raises(ValueError, match="1-D"):
        paired_bootstrap(lambda m: np.zeros((2, 2)), y, 3, np.random.default_rng(0))
    with pytest.raises(ValueError, match="at least 1"):
        paired_bootstrap(lambda m: 0.0, y, 0, np.random.default_rng(0))


def test_no_warnings_from_degenerate_inputs():
    y = np.array([0] * 4 + [1] * 4, dtype=bool)
    s = np.arange(8.0)
    with warnings.catch_warnings():
        warnings.simplefilter("error")
        delong_paired(s, s[::-1].copy(), y)
        delong_unpaired(s, y, s, y)
        mcnemar(np.ones(8, bool), np.ones(8, bool))
        holm([None, None])


def test_delong_components_group_ties_without_ranking_within_classes():
    """The components come from per-score class counts: identical for every order of tied rows."""
    rng = np.random.default_rng(3)
    s = rng.integers(0, 5, size=300).astype(float)
    y = rng.random(300) < 0.3
    auc, v10, v01 = delong_components(s, y)
    perm = rng.permutation(300)
    auc_p, v10_p, v01_p = delong_components(s[perm], y[perm])
    assert auc_p == auc
    # the same multiset of components, each row keeping its own value
    np.testing.assert_array_equal(np.sort(v10_p), np.sort(v10))
    np.testing.assert_array_equal(np.sort(v01_p), np.sort(v01))
    below = np.array([((s[~y] < v).sum() + 0.5 * (s[~y] == v).sum()) for v in s[y]])
    np.testing.assert_array_equal(v10, below / (~y).sum())


def test_delong_cache_gives_the_same_numbers_and_computes_each_model_once(monkeypatch):
    from reportgen.engine import delong as S

    rng = np.random.default_rng(4)
    y = rng.random(400) < 0.3
    a, b = rng.normal(size=400) + y, rng.normal(size=400) + 0.5 * y
    plain = (S.delong_auc_ci(a, y), S.delong_paired(a, b, y, direction_b="higher"), S.delong_paired(b, a, y.copy()))
    calls = []
    real = S.delong_components
    monkeypatch.setattr(S, "delong_components", lambda s, yy: calls.append(1) or real(s, yy))
    memo = S.DeLongCache()
    cached = (
        S.delong_auc_ci(a, y, cache=memo),
        S.delong_paired(a, b, y, cache=memo),
        S.delong_paired(b, a, y.copy(), cache=memo),
    )
    assert cached == plain
    assert len(calls) == 2  # a and b once each; equal labels in another array still hit
    S.delong_paired(a, b, y, direction_a="lower", cache=memo)
    assert len(calls) == 3  # another direction is another model
    with pytest.raises(ValueError):  # weights are checked on a cache hit too
        S.delong_auc_ci(a, y, weights=np.full(400, 2.0), cache=memo)
