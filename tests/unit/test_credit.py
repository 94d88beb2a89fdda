"""The credit battery (reportgen/engine/credit.py) against independent oracles.

Oracles: scipy.stats for every distribution (Beta, binomial, chi-square, normal), scikit-learn
for the AUC, the KS and the logistic recalibration, two third-party implementations (both in the
test extras): probcal 0.4 (Jeffreys and binomial per grade, Hosmer-Lemeshow, Spiegelhalter,
calibration slope and intercept) and toad 0.1.7 (PSI), and hand-computed cases. meliora (Python
credit validation tests) does not install (its metadata requires the retired 'sklearn' package
name), so it is not used.
"""

from __future__ import annotations

import math

import numpy as np
import pytest
from hypothesis import given, settings
from hypothesis import strategies as st
from scipy import stats
from sklearn.linear_model import LogisticRegression
from sklearn.metrics import roc_auc_score

import reportgen.engine.credit as C
from reportgen.results import from_jsonable, to_jsonable
from reportgen.section_results import CreditSection

S = C.CreditSettings()


# --- distributions --------------------------------------------------------------------


def test_beta_cdf_matches_scipy_over_a_wide_range() -> None:
    rng = np.random.default_rng(1)
    a, b = rng.uniform(0.5, 5000, 400), rng.uniform(0.5, 200_000, 400)
    x = rng.uniform(0, 1, 400) ** 4
    np.testing.assert_allclose(C.beta_cdf(x, a, b), stats.beta.cdf(x, a, b), atol=1e-11)
    assert C.beta_cdf(0.0, 2, 3) == 0.0 and C.beta_cdf(1.0, 2, 3) == 1.0


def test_binomial_tail_is_exact_against_scipy_including_tiny_tails() -> None:
    rng = np.random.default_rng(2)
    n = rng.integers(1, 200_000, 300)
    d = np.minimum(rng.integers(0, 400, 300), n)
    p = rng.uniform(0, 0.01, 300)
    want = stats.binom.sf(d - 1, n, p)  # P(X >= d)
    np.testing.assert_allclose(C.binomial_sf(d, n, p), want, rtol=1e-8, atol=1e-300)
    assert C.binomial_sf(0, 10, 0.3) == 1.0


def test_jeffreys_is_the_beta_posterior_cdf_of_ecb_2019() -> None:
    # ECB (2019) IRB PD, 2.5.3.1: p = Beta(D + 1/2, N - D + 1/2).cdf(PD)
    for d, n, pd in [(3, 500, 0.01), (0, 40, 0.002), (54, 131, 0.424), (250, 10_000, 0.02)]:
        assert C.jeffreys_p(d, n, pd) == pytest.approx(stats.beta.cdf(pd, d + 0.5, n - d + 0.5), rel=1e-10)


def test_jeffreys_hand_case_no_defaults() -> None:
    # D = 0, N = 1: Beta(1/2, 3/2) CDF at x = (2/pi)(asin(sqrt x) + sqrt(x(1-x)))... closed form:
    # I_x(1/2, 3/2) = (2/pi) * (asin(sqrt(x)) - sqrt(x (1 - x))) + ... computed here from its integral
    x = 0.3
    grid = np.linspace(0, x, 200_001)[1:-1]
    dens = grid**-0.5 * (1 - grid) ** 0.5 / math.exp(math.lgamma(0.5) + math.lgamma(1.5) - math.lgamma(2.0))
    integral = np.trapezoid(dens, grid) + 2 * math.sqrt(grid[0]) / math.exp(math.lgamma(0.5) + math.lgamma(1.5))
    assert C.jeffreys_p(0, 1, x) == pytest.approx(integral, abs=1e-4)


def test_chi2_and_normal_tails_match_scipy() -> None:
    for x in (0.01, 0.5, 3.0, 12.0, 40.0, 150.0):
        for df in (1, 2, 3, 7, 10, 25):
            assert C.chi2_sf(x, df) == pytest.approx(stats.chi2.sf(x, df), rel=1e-10, abs=1e-300)
    z = np.array([-5, -1.2, 0, 0.7, 3, 9.0])
    np.testing.assert_allclose(C.norm_sf(z), stats.norm.sf(z), rtol=1e-12)


# --- tests of calibration -------------------------------------------------------------


def test_hosmer_lemeshow_hand_case_with_g_degrees_of_freedom() -> None:
    n = np.array([100.0, 200.0, 0.0, 50.0])
    d = np.array([2.0, 10.0, 0.0, 9.0])
    p = np.array([0.01, 0.04, 0.3, 0.2])
    h, g, reason = C.hosmer_lemeshow(n, d, p)
    want = (2 - 1) ** 2 / (100 * 0.01 * 0.99) + (10 - 8) ** 2 / (200 * 0.04 * 0.96) + (9 - 10) ** 2 / (50 * 0.2 * 0.8)
    assert reason is None and g == 3  # the empty grade is not counted
    assert h == pytest.approx(want)
    assert C.chi2_sf(h, g) == pytest.approx(stats.chi2.sf(want, 3))
    assert C.hosmer_lemeshow(np.array([5.0]), np.array([1.0]), np.array([0.0]))[2] == "no_defaults_possible"


def test_spiegelhalter_hand_case() -> None:
    y = np.array([1.0, 0, 0, 1, 0])
    p = np.array([0.8, 0.1, 0.3, 0.4, 0.05])
    num = sum((yi - pi) * (1 - 2 * pi) for yi, pi in zip(y, p))
    den = math.sqrt(sum((1 - 2 * pi) ** 2 * pi * (1 - pi) for pi in p))
    z, reason = C.spiegelhalter(y, p)
    assert reason is None and z == pytest.approx(num / den)
    assert C.spiegelhalter(np.array([1.0, 0.0]), np.array([0.5, 0.5])) == (None, "zero_variance")


def test_calibration_slope_and_intercept_match_unpenalised_logistic_regression() -> None:
    rng = np.random.default_rng(3)
    p = 1 / (1 + np.exp(-rng.normal(-2.5, 1.0, 4000)))
    y = rng.random(4000) < 1 / (1 + np.exp(-(0.3 + 0.7 * np.log(p / (1 - p)))))
    (b, se_b), (a, se_a) = C.calibration_fit(y, p)
    lg = np.log(p / (1 - p))
    lr = LogisticRegression(C=np.inf, tol=1e-12, max_iter=10_000).fit(lg[:, None], y)
    assert b == pytest.approx(lr.coef_[0][0], abs=1e-6)
    # intercept with slope fixed at 1 (an offset): its score equation is sum(y - expit(a + lg)) = 0
    assert np.sum(y - 1 / (1 + np.exp(-(a + lg)))) == pytest.approx(0, abs=1e-6)
    # Wald se of the intercept-only offset model: 1 / sqrt(sum mu (1 - mu))
    mu = 1 / (1 + np.exp(-(a + lg)))
    assert se_a == pytest.approx(1 / math.sqrt(np.sum(mu * (1 - mu))))
    assert 0 < se_b < 0.2


def test_perfectly_calibrated_pd_has_slope_one_and_intercept_zero_in_expectation() -> None:
    rng = np.random.default_rng(4)
    p = 1 / (1 + np.exp(-rng.normal(-2, 1.2, 60_000)))
    y = rng.random(p.shape[0]) < p
    (b, se_b), (a, se_a) = C.calibration_fit(y, p)
    assert abs(b - 1) < 4 * se_b and abs(a) < 4 * se_a


# --- PSI, concentration, KS, periods --------------------------------------------------


def test_psi_hand_case_and_empty_bin_rule() -> None:
    ref, cur = np.array([50, 30, 20]), np.array([40, 40, 20])
    v, _e, _a, c = C.psi(ref, cur)
    want = (0.4 - 0.5) * math.log(0.4 / 0.5) + (0.4 - 0.3) * math.log(0.4 / 0.3)
    assert v == pytest.approx(want) and c.sum() == pytest.approx(v) and np.all(c >= 0)
    # an empty bin counts half a row in that sample, shares renormalised
    v2, e2, _a2, _ = C.psi(np.array([10, 0]), np.array([5, 5]))
    assert e2 == pytest.approx([10 / 10.5, 0.5 / 10.5])
    assert v2 == pytest.approx(
        (0.5 - 10 / 10.5) * math.log(0.5 / (10 / 10.5)) + (0.5 - 0.5 / 10.5) * math.log(0.5 / (0.5 / 10.5))
    )


def test_psi_matches_toad() -> None:
    import toad.metrics as toad_metrics

    rng = np.random.default_rng(5)
    base = rng.integers(0, 6, 5000)
    test = np.minimum(rng.integers(0, 6, 3000) + (rng.random(3000) < 0.2), 5)
    ours, *_ = C.psi(np.bincount(base, minlength=6), np.bincount(test, minlength=6))
    assert ours == pytest.approx(float(toad_metrics.PSI(test, base)), rel=1e-12)


def test_herfindahl_hand_cases() -> None:
    even = C.concentration(np.array([25, 25, 25, 25]))
    assert (
        even.herfindahl == pytest.approx(0.25) and even.normalised == pytest.approx(0) and even.ecb == pytest.approx(0)
    )
    one = C.concentration(np.array([0, 10, 0]))
    assert one.herfindahl == 1 and one.normalised == pytest.approx(1) and one.ecb == pytest.approx(1)
    s = np.array([0.5, 0.3, 0.2])
    c = C.concentration(s * 1000)
    k = 3
    cv = math.sqrt(k * np.sum((s - 1 / k) ** 2))  # ECB 2019 2.5.2: CV of the grade shares
    assert c.ecb == pytest.approx(1 + math.log((cv**2 + 1) / k) / math.log(k))


def test_jeffreys_published_worked_example() -> None:
    # Verified case: Baesens, Roesch & Scheule, "Deep Credit Risk", Jeffreys test chapter
    # (training.deepcreditrisk.com/JP.html): n = 6, d = 2, predicted PD 0.0367 -> posterior CDF 0.0044.
    assert round(float(C.jeffreys_p(2, 6, 0.0367)), 4) == 0.0044
    # the same grade's exact binomial tail, P(X >= 2), X ~ Bin(6, 0.0367), written out by hand
    p = 0.0367
    assert float(C.binomial_sf(2, 6, p)) == pytest.approx(1 - (1 - p) ** 6 - 6 * p * (1 - p) ** 5, rel=1e-12)


def test_ecb_concentration_test_hand_case() -> None:
    # ECB 2019 instructions, 2.5.2: CV = sqrt(K sum (R_i - 1/K)^2) of the grade shares R_i; the current
    # HI against the initial one: S = sqrt(K-1)(CV_curr - CV_init) / sqrt(CV_curr^2 (0.5 + CV_curr^2)),
    # p = 1 - Phi(S). Initial shares (0.4, 0.3, 0.3), current (0.5, 0.3, 0.2), K = 3, by hand:
    # CV_init^2 = 3 (1/15^2 + 2/30^2) = 0.02, CV_curr^2 = 3 (1/6^2 + 1/30^2 + 2/15^2) = 0.14.
    ini, cur = C.concentration(np.array([400, 300, 300])), C.concentration(np.array([500, 300, 200]))
    assert ini.cv == pytest.approx(math.sqrt(0.02)) and cur.cv == pytest.approx(math.sqrt(0.14))
    stat, p, reason = C.concentration_test(ini.cv, cur.cv, 3)
    want = math.sqrt(2) * (math.sqrt(0.14) - math.sqrt(0.02)) / math.sqrt(0.14 * 0.64)
    assert reason is None and stat == pytest.approx(want) and stat == pytest.approx(1.0996138, abs=1e-6)
    assert p == pytest.approx(stats.norm.sf(want), rel=1e-12)
    # the ECB HI from CV equals 1 + ln(sum s^2)/ln K (CV^2 + 1 = K sum s^2)
    assert cur.ecb == pytest.approx(1 + math.log(0.25 + 0.09 + 0.04) / math.log(3))
    # evenly filled current grades: CV_curr = 0, the statistic is undefined; one grade: no test
    assert C.concentration_test(ini.cv, C.concentration(np.array([5, 5, 5])).cv, 3)[2] == "zero_variance"
    assert C.concentration_test(None, None, 1)[2] == "one_grade"


def test_concentration_test_enters_the_model_and_its_failures() -> None:
    # the reference evenly spread over 10 quantile grades of its own PDs (CV_init = 0); the current
    # book has drifted so that the grades fill unevenly: the ECB test flags the new concentration
    rng = np.random.default_rng(31)
    pd_ref = rng.uniform(0.005, 0.3, 4000)
    pd_cur = np.r_[rng.uniform(0.005, 0.3, 3000), rng.uniform(0.005, 0.06, 1000)]

    def mk(pd):
        return C.CreditSample(y=rng.random(pd.size) < pd, score=pd, pd=pd)

    ref, cur = mk(pd_ref), mk(pd_cur)
    grading = C.Grading("quantiles", quantiles=10)
    m = C.credit_model("m", cur, ref, "higher", grading, S)
    t = m.stability.concentration_test
    cv_r, cv_c = m.stability.concentration_reference.cv, m.stability.concentration_current.cv
    assert cv_r == pytest.approx(0.0, abs=1e-12)
    assert t.statistic == pytest.approx(3 * (cv_c - cv_r) / math.sqrt(cv_c**2 * (0.5 + cv_c**2)))
    assert t.light == "red" and "herfindahl" in m.failures and m.light == "red"
    same = C.credit_model("m", ref, ref, "higher", grading, S)
    assert same.stability.concentration_test.reason == "zero_variance"  # evenly filled: CV_curr = 0


def test_ecb_auc_test_convention() -> None:
    # ECB 2019, 2.6.2 (current vs initial AUC): S = (AUC_init - AUC_curr)/sigma_curr, p = 1 - Phi(S);
    # an AUC that has fallen by 2.5 standard errors gives p = 1 - Phi(2.5) = 0.00621 (one-sided).
    rng = np.random.default_rng(32)
    y = rng.random(3000) < 0.1
    score = rng.normal(0, 1, 3000) + 1.2 * y
    cur = C.CreditSample(y=y, score=score)
    m0 = C.credit_model("m", cur, None, "higher", C.Grading("quantiles", quantiles=5), S, initial_auc=0.5)
    h = m0.auc_history
    init = h.current_auc + 2.5 * h.se
    m = C.credit_model("m", cur, None, "higher", C.Grading("quantiles", quantiles=5), S, initial_auc=init)
    assert m.auc_history.test.statistic == pytest.approx(2.5) and m.auc_history.test.p_value == pytest.approx(
        0.0062097, abs=1e-6
    )
    assert m0.auc_history.test.p_value > 0.999  # an AUC above the initial one never fails


@given(st.lists(st.floats(0, 1), min_size=4, max_size=60), st.randoms(use_true_random=False))
@settings(max_examples=60, deadline=None)
def test_ks_equals_the_two_sample_ks_of_the_classes(scores: list[float], r) -> None:
    s = np.round(np.array(scores), 2)  # ties
    y = np.array([r.random() < 0.4 for _ in s])
    if y.all() or not y.any():
        assert C.ks_statistic(s, y) is None
        return
    assert C.ks_statistic(s, y) == pytest.approx(stats.ks_2samp(s[y], s[~y]).statistic)
    assert C.ks_statistic(-s, y, "lower") == pytest.approx(C.ks_statistic(s, y))


def test_period_keys_month_or_quarter_by_span() -> None:
    d = np.array(["2024-07-03", "2024-09-30", "2024-08-01"], dtype="datetime64[D]")
    assert C.period_keys(d)[0] == "month"
    assert C.period_keys(d)[1].tolist() == ["2024-07", "2024-09", "2024-08"]
    d = np.array(["2023-01-03", "2024-02-01", "2023-12-31"], dtype="datetime64[D]")
    kind, keys = C.period_keys(d)
    assert kind == "quarter" and keys.tolist() == ["2023Q1", "2024Q1", "2023Q4"]


def test_traffic_lights() -> None:
    assert [C.light_of(p, 0.05, 0.001) for p in (0.2, 0.05, 0.049, 0.001, 0.0009, None)] == [
        "green",
        "green",
        "amber",
        "amber",
        "red",
        None,
    ]


# --- the whole model --------------------------------------------------------------------


def _book(seed: int, n: int, shift: float = 0.0, miscal: float = 0.0) -> C.CreditSample:
    rng = np.random.default_rng(seed)
    risk = rng.normal(shift, 1, n)
    pd = 1 / (1 + np.exp(-(-3 + risk)))
    y = rng.random(n) < 1 / (1 + np.exp(-(-3 + miscal + risk)))
    dates = np.datetime64("2024-01-01") + rng.integers(0, 180, n)
    return C.CreditSample(
        y=y,
        score=np.round(600 - 40 * risk),
        pd=pd,
        dates=dates.astype("datetime64[D]"),
        segment=np.array(["a", "b"])[rng.integers(0, 2, n)],
        ids=np.arange(n).astype(str),
    )


def test_credit_model_grades_tests_and_groups_against_direct_computation() -> None:
    cur, ref = _book(10, 5000), _book(11, 6000, shift=-0.2)
    edges = (0.02, 0.05, 0.1, 0.2)
    m = C.credit_model("m", cur, ref, "lower", C.Grading("edges", edges=edges), S, initial_auc=0.8)
    g = np.searchsorted(np.array(edges), cur.pd, side="right")
    for i, row in enumerate(m.grades):
        rows = g == i
        assert row.n == rows.sum() and row.defaults == cur.y[rows].sum()
        if row.n:
            assert row.mean_pd == pytest.approx(cur.pd[rows].mean())
            assert row.jeffreys.p_value == pytest.approx(
                stats.beta.cdf(row.mean_pd, row.defaults + 0.5, row.n - row.defaults + 0.5)
            )
            assert row.binomial.p_value == pytest.approx(stats.binom.sf(row.defaults - 1, row.n, row.mean_pd))
    cal = m.calibration
    assert cal.binomial.p_value == pytest.approx(stats.binom.sf(cur.y.sum() - 1, 5000, cur.pd.mean()))
    auc = roc_auc_score(cur.y, -cur.score)
    assert m.accuracy_ratio == pytest.approx(2 * auc - 1)
    h = m.auc_history
    assert h.current_auc == pytest.approx(auc) and h.test.p_value == pytest.approx(stats.norm.sf((0.8 - auc) / h.se))
    # CAP: AR = (area under CAP - 1/2) / (area under the perfect CAP - 1/2)
    area = np.trapezoid(m.cap.y, m.cap.x)
    pi = cur.y.mean()
    assert (area - 0.5) / ((1 - pi / 2) - 0.5) == pytest.approx(m.accuracy_ratio, abs=2e-3)  # decimated curve
    # PSI over the grades of both samples
    rg = np.searchsorted(np.array(edges), ref.pd, side="right")
    want, *_ = C.psi(np.bincount(rg, minlength=5), np.bincount(g, minlength=5))
    assert m.stability.psi.statistic == pytest.approx(want)
    assert m.stability.basis == "grades" and sum(b.current_n for b in m.stability.bins) == 5000
    # migration: ids 0..4999 in both samples
    assert m.migration.matched == 5000 and np.sum(m.migration.counts) == 5000
    assert np.trace(np.array(m.migration.counts)) / 5000 == pytest.approx(m.migration.stable)
    # periods: months of H1 2024, AUC per period against sklearn
    assert m.period == "month" and [p.key for p in m.periods] == [f"2024-0{i}" for i in range(1, 7)]
    for p in list(m.periods) + list(m.segments):
        rows = (
            (cur.dates.astype("datetime64[M]").astype(str) == p.key)
            if p.key.startswith("2024")
            else cur.segment == p.key
        )
        assert p.n == rows.sum() and p.auc == pytest.approx(roc_auc_score(cur.y[rows], -cur.score[rows]))
        assert p.ks == pytest.approx(
            stats.ks_2samp(cur.score[rows][cur.y[rows]], cur.score[rows][~cur.y[rows]]).statistic
        )
    assert m.capabilities == {}


def test_miscalibrated_book_fails_and_the_failure_is_reported() -> None:
    cur = _book(12, 20_000, miscal=0.6)  # defaults ~ 1.8x the PD
    m = C.credit_model("m", cur, None, "lower", C.Grading("quantiles", quantiles=10), S)
    assert m.calibration.light == "red" and "jeffreys" in m.failures and "hosmer_lemeshow" in m.failures
    assert m.capabilities == {"auc_history": "no_initial_auc", "stability": "no_reference"}
    ok = C.credit_model("m", _book(13, 20_000), None, "lower", C.Grading("quantiles", quantiles=10), S)
    assert ok.calibration.jeffreys.light != "red"


def test_monotonicity_violation_marked_on_the_grade_that_breaks_the_order() -> None:
    y = np.array([0, 0, 1, 1, 0, 0, 0, 1, 1, 1, 0, 0], dtype=bool)
    pd = np.array([0.01] * 4 + [0.03] * 4 + [0.08] * 4)
    cur = C.CreditSample(y=y, score=pd, pd=pd)
    m = C.credit_model("m", cur, None, "higher", C.Grading("edges", edges=(0.02, 0.05)), S)
    assert [g.monotonic_violation for g in m.grades] == [False, True, False] and not m.monotonic


def test_scorecard_without_pd_is_graded_by_score_and_says_why_no_calibration() -> None:
    cur = _book(14, 3000)
    nopd = C.CreditSample(y=cur.y, score=cur.score)
    m = C.credit_model("m", nopd, None, "lower", C.Grading("quantiles", quantiles=5), S)
    assert m.graded_by == "score" and m.calibration is None and m.capabilities["calibration"] == "no_pd"
    dr = [g.default_rate for g in m.grades]
    assert dr == sorted(dr)  # safest (highest points) first
    assert m.grades[0].grade.startswith(">")


def test_grade_column_orders_numeric_labels_and_psi_falls_back_to_score_deciles() -> None:
    cur = _book(15, 2000)
    grade = np.where(cur.pd < 0.05, "2", np.where(cur.pd < 0.2, "10", "1"))
    c = C.CreditSample(y=cur.y, score=cur.score, pd=cur.pd, grade=grade)
    ref = C.CreditSample(y=cur.y, score=cur.score + 1, pd=cur.pd)  # no grade column in the reference
    m = C.credit_model("m", c, ref, "lower", C.Grading("column"), S)
    assert [g.grade for g in m.grades] == ["1", "2", "10"]
    assert m.stability.basis == "score_deciles" and m.migration is None
    assert m.capabilities["migration"] == "no_reference_grades"


def test_section_round_trips_through_json() -> None:
    m = C.credit_model("m", _book(16, 2000), _book(17, 2000), "lower", C.Grading("quantiles"), S, 0.75)
    sec = CreditSection(models={"m": m}, amber=0.05, red=0.001, psi_amber=0.1, psi_red=0.25, min_defaults=5)
    back = from_jsonable(CreditSection, to_jsonable(sec))
    assert to_jsonable(back) == to_jsonable(sec)


def test_beta_quantile_and_the_grades_jeffreys_interval_match_scipy() -> None:
    q = np.array([0.025, 0.5, 0.975, 0.0005])
    a, b = np.array([0.5, 3.5, 54.5, 9.5]), np.array([40.5, 496.5, 77.5, 9000.5])
    np.testing.assert_allclose(C.beta_ppf(q, a, b), stats.beta.ppf(q, a, b), rtol=1e-9)
    m = C.credit_model("m", _book(18, 3000), None, "lower", C.Grading("quantiles", quantiles=4), S)
    for g in m.grades:
        lo, hi = stats.beta.ppf([0.025, 0.975], g.defaults + 0.5, g.n - g.defaults + 0.5)
        assert g.dr_interval == pytest.approx([lo, hi], rel=1e-8)
    # Brown, Cai & DasGupta (2001, section 4.1.2): the Jeffreys interval is [0, U] at D = 0 and
    # [L, 1] at D = N (the equal-tailed quantiles elsewhere)
    y = np.array([False] * 50 + [True] * 7)
    grade = np.array(["a"] * 50 + ["b"] * 7)
    pd_ = np.r_[np.full(50, 0.01), np.full(7, 0.6)]
    none, every = C.credit_model(
        "m", C.CreditSample(y=y, score=pd_, pd=pd_, grade=grade), None, "higher", C.Grading("column"), S
    ).grades
    assert none.dr_interval == pytest.approx([0.0, stats.beta.ppf(0.975, 0.5, 50.5)], rel=1e-9)
    assert every.dr_interval == pytest.approx([stats.beta.ppf(0.025, 7.5, 0.5), 1.0], rel=1e-9)


# --- a third-party implementation: probcal (numpy-only PD calibration toolkit) -----------------


def _probcal_case() -> tuple[np.ndarray, np.ndarray, np.ndarray]:
    rng = np.random.default_rng(21)
    p = rng.uniform(0.01, 0.3, 3000)
    y = (rng.random(3000) < p * 1.2).astype(int)  # PDs understated by a sixth
    return y, p, np.digitize(p, [0.05, 0.1, 0.2])


def test_grade_tests_match_probcal() -> None:
    import probcal.metrics as grade

    y, p, g = _probcal_case()
    jt, bt = grade.jeffreys_grade_test(y, p, g), grade.binomial_grade_test(y, p, g)
    m = C.credit_model(
        "m",
        C.CreditSample(y=y.astype(bool), score=p, pd=p),
        None,
        "higher",
        C.Grading("edges", edges=(0.05, 0.1, 0.2)),
        S,
    )
    np.testing.assert_allclose([x.jeffreys.p_value for x in m.grades], jt.p_value, rtol=1e-9)
    np.testing.assert_allclose([x.binomial.p_value for x in m.grades], bt.p_value, rtol=1e-9)


def test_hosmer_lemeshow_spiegelhalter_slope_intercept_match_probcal() -> None:
    import probcal.metrics as pc

    y, p, _ = _probcal_case()
    # probcal groups rows into ten equal-mass groups by PD and uses G degrees of freedom (ddof=0)
    g = np.empty(len(p), dtype=int)
    for i, part in enumerate(np.array_split(np.argsort(p, kind="stable"), 10)):
        g[part] = i
    n, d = np.bincount(g), np.bincount(g, weights=y)
    h, df, _ = C.hosmer_lemeshow(n.astype(float), d, np.bincount(g, weights=p) / n)
    theirs = pc.hosmer_lemeshow(y, p)
    assert (h, df) == (pytest.approx(theirs.statistic, rel=1e-10), theirs.df)
    assert C.chi2_sf(h, df) == pytest.approx(theirs.p_value, rel=1e-9)
    assert C.spiegelhalter(y, p)[0] == pytest.approx(pc.spiegelhalter_z(y, p).z, rel=1e-10)
    (slope, _), (intercept, _) = C.calibration_fit(y, p)
    assert slope == pytest.approx(pc.calibration_slope(y, p), rel=1e-7)
    assert intercept == pytest.approx(pc.calibration_intercept(y, p), rel=1e-7)


# --- invariants -------------------------------------------------------------------------


@given(st.lists(st.integers(0, 500), min_size=2, max_size=12), st.lists(st.integers(0, 500), min_size=2, max_size=12))
@settings(max_examples=100, deadline=None)
def test_psi_is_non_negative_symmetric_and_zero_for_equal_shares(a: list[int], b: list[int]) -> None:
    k = min(len(a), len(b))
    ra, rb = np.array(a[:k]), np.array(b[:k])
    if ra.sum() == 0 or rb.sum() == 0:
        return
    v, *_ = C.psi(ra, rb)
    assert v >= 0 and v == pytest.approx(C.psi(rb, ra)[0])
    assert C.psi(ra + 1, 3 * (ra + 1))[0] == pytest.approx(0, abs=1e-15)


@given(st.integers(1, 5000), st.floats(0, 1), st.floats(1e-6, 0.5), st.floats(1e-6, 0.5))
@settings(max_examples=100, deadline=None)
def test_jeffreys_and_binomial_p_rise_with_the_pd(n: int, share: float, p1: float, p2: float) -> None:
    d = int(share * n)
    lo, hi = sorted((p1, p2))
    assert C.jeffreys_p(d, n, lo) <= C.jeffreys_p(d, n, hi) + 1e-12
    assert C.binomial_sf(d, n, lo) <= C.binomial_sf(d, n, hi) + 1e-12


@given(st.lists(st.integers(0, 1000), min_size=2, max_size=20))
@settings(max_examples=100, deadline=None)
def test_herfindahl_bounds(counts: list[int]) -> None:
    c = np.array(counts)
    if c.sum() == 0:
        return
    h = C.concentration(c)
    assert 1 / len(c) - 1e-12 <= h.herfindahl <= 1 + 1e-12
    assert -1e-12 <= h.normalised <= 1 + 1e-12 and -1e-12 <= h.ecb <= 1 + 1e-12


def test_low_default_book_figure_spreads_the_grades_on_log_axes() -> None:
    from reportgen.report.credit_figures import panel_keys
    from reportgen.report.figures import credit_figure

    rng = np.random.default_rng(30)
    pd = np.exp(rng.normal(np.log(0.004), 0.9, 20_000)).clip(1e-5, 0.5)
    y = rng.random(pd.shape[0]) < pd  # ~0.6 % defaults: equal-width bins would put nearly all rows in the first
    dates = (np.datetime64("2024-01-01") + rng.integers(0, 120, pd.shape[0])).astype("datetime64[D]")
    cur = C.CreditSample(y=y, score=pd, pd=pd, dates=dates)
    m = C.credit_model("ldp", cur, cur, "higher", C.Grading("quantiles", quantiles=10), S)
    assert panel_keys(m) == ["calibration", "cap", "distributions", "trend"]
    assert max(g.share for g in m.grades) <= 0.11  # quantile grades: no grade holds most rows
    fig = credit_figure(m, "#0072B2")
    ax = fig.axes[0]
    assert ax.get_xscale() == "log" and ax.get_yscale() == "log"
    lo, hi = ax.get_xlim()
    assert hi / lo > 10  # the grades span more than a decade of PD


# --- compressed rows (the streamed runners' form) ----------------------------------------------


def _close(a, b, path: str = "") -> None:
    """Two JSON documents equal, numbers to 1e-9 relative (sums taken in another order)."""
    if isinstance(a, dict):
        assert a.keys() == b.keys(), path
        for k in a:
            _close(a[k], b[k], f"{path}.{k}")
    elif isinstance(a, list):
        assert len(a) == len(b), path
        for i, (x, z) in enumerate(zip(a, b, strict=True)):
            _close(x, z, f"{path}[{i}]")
    elif isinstance(a, float) and isinstance(b, float):
        assert b == pytest.approx(a, rel=1e-9, abs=1e-12), path
    else:
        assert a == b, path


def _compress(sample: C.CreditSample) -> C.CreditSample:
    """Rows with equal values as one row with its count (what the batch runner builds)."""
    import pandas as pd

    cols = {
        k: getattr(sample, k)
        for k in ("y", "score", "pd", "grade", "dates", "segment")
        if getattr(sample, k) is not None
    }
    if "dates" in cols:  # only the month matters (the period is a month or a quarter)
        cols["dates"] = cols["dates"].astype("datetime64[M]").astype("datetime64[D]")
    g = pd.DataFrame(cols).groupby(list(cols), sort=False).size().reset_index()
    out = {k: g[k].to_numpy() for k in cols}
    if "dates" in out:
        out["dates"] = out["dates"].astype("datetime64[D]")
    return C.CreditSample(**out, count=g[0].to_numpy())


@pytest.mark.slow  # three gradings of a repeated book: ~1.5 s each
@pytest.mark.parametrize(
    "grading", [C.Grading("quantiles", quantiles=7), C.Grading("edges", edges=(0.03, 0.08, 0.15)), C.Grading("column")]
)
def test_compressed_rows_give_the_battery_of_the_repeated_rows(grading: C.Grading) -> None:
    rng = np.random.default_rng(40)

    def book(n: int, shift: float) -> C.CreditSample:
        points = rng.integers(0, 60, n) * 5.0 + shift * 50  # scorecard points: many ties
        pd_ = 1 / (1 + np.exp((points - 150) / 40))
        return C.CreditSample(
            y=rng.random(n) < pd_,
            score=points,
            pd=pd_,
            grade=np.where(pd_ < 0.05, "A", np.where(pd_ < 0.2, "B", "C")),
            dates=np.datetime64("2024-01-01") + rng.integers(0, 400, n).astype("timedelta64[D]"),
            segment=rng.choice(["x", "y", "z"], n),
        )

    cur, ref = book(6000, 0.0), book(5000, 0.3)
    full = C.credit_model("m", cur, ref, "lower", grading, S, initial_auc=0.74)
    small = C.credit_model("m", _compress(cur), _compress(ref), "lower", grading, S, initial_auc=0.74)
    assert len(_compress(cur).y) < 3000  # the compression is real
    _close(to_jsonable(full), to_jsonable(small))
    # PSI over reference score deciles (grades by a column the reference lacks)
    ref_nogr = C.CreditSample(y=ref.y, score=ref.score, pd=ref.pd)
    a = C.credit_model("m", cur, ref_nogr, "lower", C.Grading("column"), S)
    b = C.credit_model("m", _compress(cur), _compress(ref_nogr), "lower", C.Grading("column"), S)
    _close(to_jsonable(a.stability), to_jsonable(b.stability))


def test_delong_on_counts_matches_delong_on_rows() -> None:
    rng = np.random.default_rng(41)
    s = rng.integers(0, 30, 3000).astype(float)
    y = rng.random(3000) < 0.2 + s / 100
    u, _inv, c = np.unique(np.c_[s, y], axis=0, return_inverse=True, return_counts=True)
    from reportgen.engine.delong import delong_auc_ci

    for direction in ("higher", "lower"):
        want = delong_auc_ci(s, y, direction, 0.9)
        got = C.auc_interval(u[:, 0], u[:, 1].astype(bool), direction, 0.9, c)
        assert got == pytest.approx((want.auc, want.lo, want.hi, want.se), rel=1e-10)


@given(st.lists(st.integers(0, 500), min_size=2, max_size=15), st.lists(st.integers(0, 500), min_size=2, max_size=15))
@settings(max_examples=80, deadline=None)
def test_concentration_test_sign_and_range(a: list[int], b: list[int]) -> None:
    k = min(len(a), len(b))
    ini, cur = C.concentration(np.array(a[:k])), C.concentration(np.array(b[:k]))
    stat, p, reason = C.concentration_test(ini.cv, cur.cv, k)
    if ini.cv is None or cur.cv is None or cur.cv == 0:
        assert stat is None and p is None and reason is not None
        return
    assert 0.0 <= p <= 1.0 and np.sign(stat) == np.sign(cur.cv - ini.cv)
    assert (p < 0.5) == (stat > 0)
    # CV in [0, sqrt(K - 1)]: even shares 0, one grade holding all sqrt(K - 1)
    assert -1e-12 <= cur.cv <= math.sqrt(k - 1) + 1e-12


def test_the_battery_on_rows_equals_it_on_their_distinct_rows_with_counts_in_any_order() -> None:
    """The memory engine hands the battery every row, the streamed runners distinct rows with
    counts in first-seen order: merged the same way (``merged_rows``), both give the same section
    to the last bit (issue 15: one meaning per number), the migration from the rows' ids."""
    rng = np.random.default_rng(5)
    n = 4000

    def sample(seed: int) -> C.CreditSample:
        r = np.random.default_rng(seed)
        pd_ = np.round(r.beta(1, 12, n), 3)  # few distinct PDs: many equal rows
        return C.CreditSample(
            y=r.random(n) < pd_,
            score=np.round(600 - 400 * pd_),
            pd=pd_,
            dates=np.datetime64("2025-01-01") + r.integers(0, 200, n).astype("timedelta64[D]"),
            segment=r.choice(np.array(["retail", "sme"]), n),
            ids=np.array([f"c{i}" for i in r.permutation(n)]),
        )

    cur, ref = sample(1), sample(2)

    def compressed(s: C.CreditSample) -> C.CreditSample:
        """Distinct rows with counts in a shuffled first-seen order (no ids: as the batch runners)."""
        perm = rng.permutation(n)
        month = s.dates.astype("datetime64[M]").astype("datetime64[D]")
        keys = list(zip(s.y[perm], s.score[perm], s.pd[perm], month[perm], s.segment[perm]))
        seen: dict = {}
        for k in keys:
            seen[k] = seen.get(k, 0) + 1
        rows = list(seen)
        return C.CreditSample(
            y=np.array([k[0] for k in rows]),
            score=np.array([k[1] for k in rows]),
            pd=np.array([k[2] for k in rows]),
            dates=np.array([k[3] for k in rows], dtype="datetime64[D]"),
            segment=np.array([k[4] for k in rows]),
            count=np.array(list(seen.values())),
        )

    grading = C.Grading("quantiles", quantiles=7)
    whole = to_jsonable(C.credit_model("m", cur, ref, "lower", grading, S))
    merged = to_jsonable(C.credit_model("m", compressed(cur), compressed(ref), "lower", grading, S))
    assert whole["migration"] is not None and merged["migration"] is None  # ids: rows only
    assert merged["capabilities"]["migration"] == "no_ids"
    for d in (whole, merged):
        d.pop("migration"), d["capabilities"].pop("migration", None)
    assert whole == merged  # exactly: every float to the last bit
    assert len(C.merged_rows(cur).y) < 0.6 * n  # the battery ran on fewer, distinct rows
