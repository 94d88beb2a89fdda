"""The rest of the PD battery (issue 45) against independent computations: scipy's binomial and
Beta distributions and a fine trapezoid over the Vasicek factor, scipy's one-sample t statistic
(BCBS WP14's normal test is its statistic read against the normal), statsmodels' two-proportion
z test and Holm adjustment (PDtoolkit's heterogeneity test is R's prop.test without correction)."""

from __future__ import annotations

import numpy as np
import pytest
from scipy import stats
from statsmodels.stats.multitest import multipletests
from statsmodels.stats.proportion import proportions_ztest

import reportgen.engine.credit as C
from reportgen.engine import pd_battery as PB


def _vasicek_oracle(d: int, n: int, pd: float, rho: float) -> float:
    """P(D >= d) as a trapezoid over 100,001 factor values of scipy's binomial tail."""
    z = np.linspace(-12.0, 12.0, 100_001)
    p = stats.norm.cdf((stats.norm.ppf(pd) - np.sqrt(rho) * z) / np.sqrt(1.0 - rho))
    return float(np.trapezoid(stats.binom.sf(d - 1, n, p) * stats.norm.pdf(z), z))


CASES = [(1, 100, 0.01, 0.12), (5, 100, 0.01, 0.12), (30, 1000, 0.02, 0.05), (700, 100_000, 0.005, 0.12),
         (50, 50, 0.3, 0.1), (200, 5000, 0.03, 0.001), (1, 5, 0.001, 0.24), (40, 300, 0.05, 0.2)]  # fmt: skip


def test_the_correlated_binomial_tail_equals_an_integral_over_the_factor():
    d, n, pd, rho = (np.array(v, dtype=float) for v in zip(*CASES, strict=True))
    got = PB.vasicek_binomial_sf(d, n, pd, rho)
    for case, g in zip(CASES, got, strict=True):
        assert g == pytest.approx(_vasicek_oracle(*case), rel=1e-8), case


def test_the_correlated_binomial_tail_is_the_binomial_one_without_correlation_and_wider_with_it():
    d, n, pd = np.array([3.0, 12.0]), np.array([200.0, 400.0]), np.array([0.01, 0.02])
    assert PB.vasicek_binomial_sf(d, n, pd, np.zeros(2)) == pytest.approx(stats.binom.sf(d - 1, n, pd), rel=1e-12)
    # more defaults than expected are less surprising when defaults move together
    assert np.all(PB.vasicek_binomial_sf(d + 5, n, pd, np.full(2, 0.12)) > stats.binom.sf(d + 4, n, pd))


def test_the_irb_corporate_correlation_is_basel_ii_paragraph_272():
    # Basel II, paragraph 272: 0.12 (1 - e^{-50 PD}) / (1 - e^{-50}) + 0.24 [1 - (1 - e^{-50 PD}) / (1 - e^{-50})]
    for pd in (0.0003, 0.01, 0.05, 0.2):
        w = (1 - np.exp(-50 * pd)) / (1 - np.exp(-50))
        assert PB.irb_corporate_correlation(np.array([pd]))[0] == pytest.approx(0.12 * w + 0.24 * (1 - w), rel=1e-14)
    assert PB.irb_corporate_correlation(np.array([0.01]))[0] == pytest.approx(0.1928, abs=1e-4)


@pytest.mark.parametrize(("n", "pd"), [(50, 0.002), (400, 0.01), (2500, 0.004), (10, 0.3), (1, 0.5)])
def test_critical_defaults_and_power_equal_scipys_by_enumeration(n, pd):
    alpha, alt = 0.05, min(pd * 1.5, 1.0)
    ks = np.arange(n + 1)
    binom_rejects = np.flatnonzero(stats.binom.sf(ks - 1, n, pd) < alpha)
    jeff_rejects = np.flatnonzero(stats.beta.cdf(pd, ks + 0.5, n - ks + 0.5) < alpha)
    nn = np.array([n])
    bc = PB.critical_defaults(nn, alpha, lambda x, m: C.binomial_sf(x, m, pd))[0]
    jc = PB.critical_defaults(nn, alpha, lambda x, m: C.jeffreys_p(x, m, pd))[0]
    assert bc == (binom_rejects[0] if binom_rejects.size else -1)
    assert jc == (jeff_rejects[0] if jeff_rejects.size else -1)
    for crit in (bc, jc):
        want = 0.0 if crit < 0 else stats.binom.sf(crit - 1, n, alt)
        assert PB.power(np.array([crit]), nn, np.array([alt]))[0] == pytest.approx(want, rel=1e-10, abs=1e-300)


def test_the_normal_test_over_periods_is_wp14s_statistic():
    dr = np.array([0.021, 0.034, 0.018, 0.029, 0.041])
    pd = np.array([0.020, 0.025, 0.022, 0.024, 0.030])
    stat, p, reason = PB.normal_test_over_periods(dr, pd)
    t = stats.ttest_1samp(dr - pd, 0.0).statistic  # Σe / (√T τ), τ the sample standard deviation
    assert stat == pytest.approx(t, rel=1e-12) and p == pytest.approx(stats.norm.sf(t), rel=1e-12)
    assert reason is None
    assert PB.normal_test_over_periods(dr[:1], pd[:1])[2] == "too_few_periods"
    assert PB.normal_test_over_periods(pd + 0.01, pd)[2] == "zero_variance"


def test_adjacent_grades_equal_statsmodels_two_proportion_test_and_holm():
    n = np.array([400, 0, 350, 300, 200, 100])
    d = np.array([2, 0, 6, 5, 12, 11])
    got = PB.adjacent_grades(n, d)
    assert [(t.lower, t.upper) for t in got] == [(0, 2), (2, 3), (3, 4), (4, 5)]  # the empty grade skipped
    raw = [
        proportions_ztest([d[j], d[i]], [n[j], n[i]], alternative="larger") for i, j in ((0, 2), (2, 3), (3, 4), (4, 5))
    ]
    for t, (z, p) in zip(got, raw, strict=True):
        assert t.z == pytest.approx(z, rel=1e-12) and t.p == pytest.approx(p, rel=1e-12)
    holm = multipletests([p for _, p in raw], method="holm")[1]
    assert [t.p_holm for t in got] == pytest.approx(holm, rel=1e-12)
    # no default in either grade: no variance, no test, outside the Holm family
    (only,) = PB.adjacent_grades(np.array([10, 20]), np.array([0, 0]))
    assert only.z is None and only.p is None and only.p_holm is None


@pytest.fixture(scope="module")
def dated() -> C.CreditSample:
    rng = np.random.default_rng(45)
    n = 1500
    pd = np.round(rng.beta(1.2, 30, n), 4)
    y = rng.random(n) < pd * 1.3
    dates = np.datetime64("2023-01-01") + rng.integers(0, 600, n).astype("timedelta64[D]")
    return C.CreditSample(y=y, score=-np.log(pd + 1e-4), pd=pd, dates=dates)


def test_the_battery_counts_period_lights_and_tests_grades_as_scipy_does(dated):
    s = C.CreditSettings()
    m = C.credit_model("m", dated, None, "lower", C.Grading("edges", edges=(0.01, 0.03, 0.06)), s)
    edges = np.array([0.01, 0.03, 0.06])
    grade = np.searchsorted(edges, dated.pd, side="right")
    period = C.period_keys(dated.dates)[1]
    lights = {"green": 0, "amber": 0, "red": 0}
    for key in np.unique(period):
        for g in range(4):
            rows = (period == key) & (grade == g)
            if rows.any():
                p = stats.beta.cdf(
                    dated.pd[rows].mean(), dated.y[rows].sum() + 0.5, rows.sum() - dated.y[rows].sum() + 0.5
                )
                lights["red" if p < s.red else "amber" if p < s.amber else "green"] += 1
    pt = m.period_tests
    assert pt is not None and (pt.green, pt.amber, pt.red) == (lights["green"], lights["amber"], lights["red"])
    assert pt.periods == len(np.unique(period)) and sum(r.green + r.amber + r.red for r in pt.lights) == sum(
        lights.values()
    )
    e = np.array([p.default_rate - p.mean_pd for p in m.periods])
    t = stats.ttest_1samp(e, 0.0).statistic
    assert pt.normal_test.statistic == pytest.approx(t, rel=1e-10)
    for g, gr in enumerate(m.grades):
        rows = grade == g
        nn, dd, pd = int(rows.sum()), int(dated.y[rows].sum()), float(dated.pd[rows].mean())
        cb = gr.binomial_correlated
        assert cb is not None and cb.asset_correlation == 0.12
        assert cb.test.p_value == pytest.approx(_vasicek_oracle(dd, nn, pd, 0.12), rel=1e-8)
        # large-portfolio critical number: the amber quantile of Vasicek's default-rate distribution
        q = stats.norm.cdf((stats.norm.ppf(pd) + np.sqrt(0.12) * stats.norm.ppf(0.95)) / np.sqrt(0.88))
        assert cb.critical_defaults == int(np.floor(nn * q)) + 1
        pw = gr.power
        assert pw is not None and pw.alternative_pd == pytest.approx(1.5 * pd)
        assert pw.binomial_power == pytest.approx(stats.binom.sf(pw.binomial_critical - 1, nn, 1.5 * pd), rel=1e-9)
    assert m.concentration is not None and m.concentration.herfindahl == pytest.approx(
        sum(g.share**2 for g in m.grades)
    )
    assert len(m.heterogeneity) == 3 and m.stability is None  # the index without a reference sample


def test_the_new_battery_is_the_same_from_rows_and_from_counted_distinct_rows(dated):
    """The streamed and Dask engines hand the battery distinct rows with counts; the memory engine
    every row: the power, correlated, period and heterogeneity results must not tell them apart."""
    s = C.CreditSettings(asset_correlation="irb_corporate", power_ratio=2.0)
    grading = C.Grading("quantiles", quantiles=5)
    rows = C.credit_model("m", dated, None, "lower", grading, s)
    merged = C.merged_rows(dated)
    counted = C.credit_model("m", merged, None, "lower", grading, s)
    assert merged.count is not None and len(merged.y) < len(dated.y)
    for a, b in ((rows, counted),):
        assert a.period_tests == b.period_tests and a.heterogeneity == b.heterogeneity
        assert a.concentration == b.concentration
        assert [g.power for g in a.grades] == [g.power for g in b.grades]
        assert [g.binomial_correlated for g in a.grades] == [g.binomial_correlated for g in b.grades]
        assert a.calibration is not None and b.calibration is not None
        assert a.calibration.binomial_correlated == b.calibration.binomial_correlated
    rhos = [g.binomial_correlated.asset_correlation for g in rows.grades if g.binomial_correlated is not None]
    assert all(0.12 <= r <= 0.24 for r in rhos) and len(set(rhos)) > 1
