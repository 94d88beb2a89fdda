"""Verified cases at the edges: the credit battery (reportgen/engine/credit.py) against independent
implementations and published values for large books, one obligor and extreme calibration
(test_credit_published.py holds the main published cases).

Each test names its source and fails without the fix it guards:

* scipy.stats ``beta.cdf`` / ``binom.sf`` (Boost ``ibeta``, which keeps x and 1 − x apart) and
  R's ``pbeta`` / ``pbinom`` (TOMS 708, DiDonato & Morris 1992, whose ``brcomp`` centres the power
  term on the mean and uses the Stirling remainder for ``lbeta``): the Jeffreys and binomial
  p-values of a retail book with 10⁶–10⁷ obligors.
* The section's glossary against the conventions of PDtoolkit, the ECB, rms ``val.prob`` and
  ResourceSelection ``hoslem.test``: the side of every p-value and the Hosmer–Lemeshow df.
* DescTools ``BinomCI(method = "jeffreys")`` / R ``pbeta``, ``pchisq``: one obligor without default.
* The closed form of the Cox (1958) recalibration intercept for one PD, and scipy's trust-region
  maximum likelihood: the calibration slope and intercept where the PDs are far too low.
* meliora ``herfindahl_multiple_period_test`` reference page: the smallest p-value the ECB
  concentration test can reach for K = 7 and initial CV 0.615681 (about 0.191).
"""

from __future__ import annotations

import math

import numpy as np
import pytest
from scipy import stats

import reportgen.engine.credit as C

# --- the distributions at the size of a retail book ---------------------------------------------


@pytest.mark.parametrize(
    ("d", "n", "pd"),
    [
        (1000, 10**6, 0.001),
        (5000, 10**7, 0.0005),
        (2, 10**6, 1e-7),
        (0, 10**6, 1e-6),
        (150_000, 10**6, 0.15),
        (20, 1_000_020, 1e-9),
    ],
)
def test_jeffreys_and_binomial_p_of_a_large_book_match_scipy_to_ten_digits(d: int, n: int, pd: float) -> None:
    """scipy ``beta.cdf(PD, D + ½, N − D + ½)`` (ECB 2019 Jeffreys test) and ``binom.sf(D − 1, N, PD)``
    (BCBS WP14 binomial test) for books of 10⁶ and 10⁷ obligors. The power term
    x^a (1 − x)^b / B(a, b) was taken from ``math.lgamma`` differences: ln Γ(10⁷) is 1.5·10⁸, so the
    p-values kept about 8 digits (5000 of 10⁷ at PD 0.05 %: 0.4990603800 against 0.4990603680,
    relative error 2.4e-8; 1000 of 10⁶: 1.0e-9). Centred on the mean with Stirling's remainder (as
    R's TOMS 708 ``brcomp``) they agree to 1e-12, in the far tail too (20 defaults at PD 1e-9:
    p = 2.85e-81, taken from ln x there, not from 1 + (x − x0)/x0 which rounds x/x0 = 5e-5)."""
    assert float(C.jeffreys_p(d, n, pd)) == pytest.approx(stats.beta.cdf(pd, d + 0.5, n - d + 0.5), rel=1e-10)
    assert float(C.binomial_sf(d, n, pd)) == pytest.approx(stats.binom.sf(d - 1, n, pd), rel=1e-10)


def test_jeffreys_and_binomial_p_over_many_large_books_match_scipy() -> None:
    """400 grades each of 10⁵, 10⁶ and 10⁷ obligors, PDs from 0.01 % to 50 %, default counts around
    N·PD: every p-value within 1e-10 of scipy's (was up to 4.5e-8 at 10⁷, 3e-9 at 10⁶)."""
    rng = np.random.default_rng(0)
    for n_obligors in (10**5, 10**6, 10**7):
        n = np.full(400, n_obligors)
        pd = 10 ** rng.uniform(-4, -0.3, 400)
        d = rng.binomial(n, pd * rng.uniform(0.5, 1.6, 400))
        np.testing.assert_allclose(
            C.jeffreys_p(d, n, pd), stats.beta.cdf(pd, d + 0.5, n - d + 0.5), rtol=1e-10, atol=1e-300
        )
        np.testing.assert_allclose(C.binomial_sf(d, n, pd), stats.binom.sf(d - 1, n, pd), rtol=1e-10, atol=1e-300)


# --- the report states each test's convention -----------------------------------------------------


def test_the_sections_glossary_names_the_side_of_every_p_value() -> None:
    """Published tools differ in the side of a p-value (PDtoolkit's binomial test and the ECB's
    Jeffreys test are one-sided, rms ``val.prob``'s Spiegelhalter test two-sided) and in the
    Hosmer–Lemeshow degrees of freedom (G for an independent sample as BCBS WP14 / PDtoolkit,
    G − 2 as ResourceSelection ``hoslem.test``): a reader comparing numbers needs the convention
    beside the formula. The binomial test's formula said P(X ≥ D) but not that it is one-sided nor
    that it takes defaults as independent (BCBS WP14 5.2: no asset correlation)."""
    from reportgen.report.views.credit import TEST_LABELS

    sides = {
        "jeffreys": "one-sided",
        "binomial": "one-sided",
        "spiegelhalter": "two-sided",
        "in_the_large": "two-sided",
        "slope": "two-sided",
        "intercept": "two-sided",
    }
    for key, side in sides.items():
        assert side in TEST_LABELS[key][1], key
    assert "no asset correlation" in TEST_LABELS["binomial"][1]
    hl = TEST_LABELS["hosmer_lemeshow"][1]
    assert "G degrees of freedom" in hl and "G − 2" in hl
    for key in ("auc_history", "herfindahl"):
        assert "1 − Φ" in TEST_LABELS[key][1], key  # one-sided upper tail, said with the formula
    assert "p = Φ(z)" in TEST_LABELS["migration"][1]


# --- the smallest book: one obligor, no default -------------------------------------------------------


def test_one_obligor_without_default_gives_the_published_edge_values_and_no_warning() -> None:
    """N = 1, D = 0 at PD 2 %: the Jeffreys interval of Brown, Cai & DasGupta (2001; DescTools
    ``BinomCI(0, 1, method = "jeffreys")``) is [0, qbeta(0.975, ½, 3/2)] = [0, 0.853254]; the ECB
    Jeffreys p is pbeta(0.02, ½, 3/2) = 0.179461; the binomial P(X ≥ 0) is 1; Hosmer–Lemeshow
    (0 − 0.02)²/(0.02·0.98) = 1/49 on 1 df; Spiegelhalter z = −0.02·0.96/√(0.96²·0.0196) = −1/7.
    The calibration slope and intercept have no maximum (every outcome 0): undefined, quietly, and
    said so (reason no_maximum; it read zero_variance, which is not why)."""
    import warnings

    one = C.CreditSample(y=np.array([False]), score=np.array([0.02]), pd=np.array([0.02]), grade=np.array(["A"]))
    with warnings.catch_warnings():
        warnings.simplefilter("error")
        m = C.credit_model("m", one, None, "higher", C.Grading("column"), C.CreditSettings())
    (g,) = m.grades
    assert g.dr_interval[0] == 0.0 and round(g.dr_interval[1], 6) == 0.853254
    assert g.dr_interval[1] == pytest.approx(stats.beta.ppf(0.975, 0.5, 1.5), rel=1e-12)
    assert round(g.jeffreys.p_value, 6) == 0.179461 and g.binomial.p_value == 1.0
    cal = m.calibration
    assert cal.hosmer_lemeshow.statistic == pytest.approx(1 / 49, rel=1e-12) and cal.hosmer_lemeshow.df == 1
    assert cal.hosmer_lemeshow.p_value == pytest.approx(stats.chi2.sf(1 / 49, 1), rel=1e-12)
    assert cal.spiegelhalter.statistic == pytest.approx(-1 / 7, rel=1e-12)
    assert cal.slope is None and cal.intercept is None and cal.slope_test.p_value is None
    assert cal.slope_test.reason == "zero_variance"  # one row, one PD: the slope is not identified
    assert cal.intercept_test.reason == "no_maximum"
    two = C.CreditSample(
        y=np.array([False, False]), score=np.array([0.02, 0.04]), pd=np.array([0.02, 0.04]), grade=np.array(["A", "A"])
    )
    cal = C.credit_model("m", two, None, "higher", C.Grading("column"), C.CreditSettings()).calibration
    assert (cal.slope_test.reason, cal.intercept_test.reason) == ("no_maximum", "no_maximum")


# --- calibration slope and intercept where the PDs are far off -------------------------------------


def _mle(y: np.ndarray, lg: np.ndarray, count: np.ndarray, slope: bool) -> tuple[np.ndarray, np.ndarray]:
    """An independent fit of logit P(y) = a + b·lg (slope) or a + lg (offset): scipy's trust-region
    maximisation of the count-weighted log-likelihood, the covariance the inverse of the
    information at the optimum."""
    from scipy import optimize

    x = np.c_[np.ones_like(lg), lg] if slope else np.ones((len(lg), 1))
    off = np.zeros_like(lg) if slope else lg

    def mu(b: np.ndarray) -> np.ndarray:
        return 1 / (1 + np.exp(-(off + x @ b)))

    def nll(b: np.ndarray) -> float:
        eta = off + x @ b
        return float(np.sum(count * (np.logaddexp(0.0, eta) - y * eta)))

    def info(b: np.ndarray) -> np.ndarray:
        m = mu(b)
        return (x * (count * m * (1 - m))[:, None]).T @ x

    b = optimize.minimize(
        nll,
        np.zeros(x.shape[1]),
        jac=lambda b: x.T @ (count * (mu(b) - y)),
        hess=info,
        method="trust-exact",
        options={"gtol": 1e-12},
    ).x
    return b, np.linalg.inv(info(b))


def test_calibration_intercept_of_a_book_defaulting_at_many_times_its_pd_is_the_mle() -> None:
    """Cox (1958) recalibration with the slope fixed at 1 (Van Calster et al. 2016's calibration
    intercept): with one PD p for every obligor the maximum is closed, a = logit(D/N) − logit(p),
    se = 1/√(N q(1 − q)), q = D/N. Three of six defaulting at PD 5 % (meliora's and rms
    ``val.prob``'s recalibration model): a = ln 19 = 2.944439, se = √(2/3). Plain Newton from
    a = 0 overshot (9.5, −333, 4e145) and the intercept came out undefined ('zero_variance'); on a
    5000-obligor book defaulting at 8 to 16 times its PDs (the failing calibration the test is
    for) as well, where an independent maximisation finds a = 2.31 … 3.43."""
    import warnings

    y, p, count = np.array([1.0, 0.0, 0.0, 0.0]), np.full(4, 0.05), np.array([3, 1, 1, 1])
    with warnings.catch_warnings():  # the diverging steps printed 'RuntimeWarning: overflow encountered in exp'
        warnings.simplefilter("error")
        slope, (a, se) = C.calibration_fit(y, p, count)
    assert a == pytest.approx(np.log(19), rel=1e-12) and se == pytest.approx(np.sqrt(2 / 3), rel=1e-10)
    # one PD for every obligor: the slope is not identified (was 0.0 with se 1.4e7, from rounding)
    assert slope is None
    rng = np.random.default_rng(1)
    for mult in (8, 12, 16):
        pd_ = rng.uniform(0.005, 0.05, 5000)
        yy = (rng.random(5000) < pd_ * mult).astype(float)
        lg = np.log(pd_ / (1 - pd_))
        (b, sb), (a, sa) = C.calibration_fit(yy, pd_)
        want_a, cov_a = _mle(yy, lg, np.ones(5000), slope=False)
        want_b, cov_b = _mle(yy, lg, np.ones(5000), slope=True)
        assert a == pytest.approx(want_a[0], rel=1e-7) and sa == pytest.approx(np.sqrt(cov_a[0, 0]), rel=1e-6)
        assert b == pytest.approx(want_b[1], rel=1e-7) and sb == pytest.approx(np.sqrt(cov_b[1, 1]), rel=1e-6)
        m = C.credit_model(
            "m",
            C.CreditSample(y=yy.astype(bool), score=pd_, pd=pd_),
            None,
            "higher",
            C.Grading("quantiles", quantiles=5),
            C.CreditSettings(),
        )
        assert m.calibration.intercept == pytest.approx(a, rel=1e-12) and m.calibration.intercept_test.light == "red"
        assert "intercept" in m.calibration.failures
    # a book graded on one master-scale PD: the intercept is defined, the slope is not
    y = np.array([True] * 3 + [False] * 3)
    one_pd = C.credit_model(
        "m",
        C.CreditSample(y=y, score=np.full(6, 0.05), pd=np.full(6, 0.05)),
        None,
        "higher",
        C.Grading("quantiles", quantiles=2),
        C.CreditSettings(),
    ).calibration
    assert one_pd.intercept == pytest.approx(np.log(19), rel=1e-12)
    assert one_pd.slope is None and one_pd.slope_test.reason == "zero_variance"


# --- concentration: a published property of the ECB test ---------------------------------------------


def test_ecb_concentration_test_cannot_reject_below_meliora_s_published_floor() -> None:
    """meliora ``herfindahl_multiple_period_test`` reference page: 'For K=7 and initial CV=0.615681,
    the minimum possible p-value is about 0.191' (the ECB 2019 statistic S = √(K − 1)(CV_curr −
    CV_init)/√(CV_curr²(½ + CV_curr²)) peaks at CV_curr ≈ 1.39 and falls again towards the
    largest CV, √(K − 1), of one full grade). Over every current CV in (CV_init, √6] the smallest p
    is 0.1908, never below."""
    cvs = np.linspace(0.615681, math.sqrt(6), 20001)[1:]
    p = np.array([C.concentration_test(0.615681, cv, 7)[1] for cv in cvs])
    assert round(float(p.min()), 3) == 0.191 and 1.3 < cvs[int(np.argmin(p))] < 1.5
    # every obligor in one of the seven grades: CV = √6, HI = 1, the ECB HI 1
    full = C.concentration(np.array([10, 0, 0, 0, 0, 0, 0]))
    assert full.cv == pytest.approx(math.sqrt(6), rel=1e-12) and full.ecb == pytest.approx(1.0, rel=1e-12)
