"""The engine's own distributions (:mod:`reportgen.engine.distributions`) against scipy.

Oracle: ``scipy.stats`` / ``scipy.special`` (Cephes and Boost, independent implementations).
Grids include both tails; tolerances are relative unless an absolute floor is stated, and are
the accuracy each function's docstring claims.
"""

from __future__ import annotations

import math

import numpy as np
import pytest
from scipy import stats as sps

from reportgen.engine import distributions as D


def test_norm_sf_and_two_sided_p_match_scipy_into_the_far_tail() -> None:
    z = np.concatenate([-np.geomspace(1e-8, 8.0, 40), [0.0], np.geomspace(1e-8, 37.0, 60)])
    # 1e-12: math.erfc keeps about 13 digits at 1e-300
    np.testing.assert_allclose(D.norm_sf(z), sps.norm.sf(z), rtol=1e-12, atol=0)
    np.testing.assert_allclose(D.norm_two_sided_p(z), 2 * sps.norm.sf(np.abs(z)), rtol=1e-12, atol=0)


def test_norm_ppf_matches_scipy_over_both_tails() -> None:
    p = np.concatenate(
        [np.geomspace(1e-300, 0.02425, 50), np.linspace(0.02425, 0.97575, 51), 1 - np.geomspace(1e-15, 0.02425, 30)]
    )
    np.testing.assert_allclose(D.norm_ppf(p), sps.norm.ppf(p), rtol=1e-13, atol=1e-15)
    assert float(D.norm_ppf(0.5)) == 0.0
    with pytest.raises(ValueError, match="0 < p < 1"):
        D.norm_ppf(1.0)


@pytest.mark.parametrize(
    "a, b, rtol",
    [
        (0.5, 30.0, 1e-11),
        (2.0, 3.0, 1e-11),
        (9.5, 500.5, 1e-11),
        (40.0, 60.0, 1e-11),
        (1e3, 2.0, 1e-11),
        (2.5e4, 7.5e5, 1e-11),
        (0.5, 5e5, 1e-10),
    ],
)
def test_beta_cdf_matches_scipy_including_both_tails(a: float, b: float, rtol: float) -> None:
    """Relative 1e-11 (1e-10 for the t distribution's b = ½ with a = 5e5: the continued fraction
    loses digits as a grows); absolute 1e-15 above ½."""
    mean = a / (a + b)
    sd = math.sqrt(a * b / ((a + b) ** 2 * (a + b + 1)))
    x = np.clip(mean + sd * np.linspace(-12, 12, 97), 1e-300, 1 - 1e-16)
    x = np.unique(np.concatenate([x, np.geomspace(1e-12, 0.5, 20), 1 - np.geomspace(1e-12, 0.5, 20)]))
    want = sps.beta.cdf(x, a, b)
    keep = want > 1e-290  # below, scipy itself underflows
    mine = D.beta_cdf(x, a, b)
    lower, upper = keep & (want <= 0.5), want > 0.5
    np.testing.assert_allclose(mine[lower], want[lower], rtol=rtol, atol=1e-300)
    np.testing.assert_allclose(mine[upper], want[upper], rtol=rtol, atol=1e-15)
    assert float(D.beta_cdf(0.0, a, b)) == 0.0 and float(D.beta_cdf(1.0, a, b)) == 1.0


def test_arcsine_distribution_closed_form() -> None:
    """``I_x(½, ½) = (2/π) arcsin √x`` (scipy's beta.cdf is 3e-9 off at x = 1 − 1e-8; mpmath
    agrees with the closed form and with ours)."""
    x = np.geomspace(1e-300, 0.5, 60)
    np.testing.assert_allclose(D.beta_cdf(x, 0.5, 0.5), 2 / np.pi * np.arcsin(np.sqrt(x)), rtol=1e-13)
    x = 1 - np.geomspace(1e-15, 0.5, 40)
    y = 1 - x  # exact: the upper tail 1 − I_x = (2/π) arcsin √(1 − x)
    np.testing.assert_allclose(1 - D.beta_cdf(x, 0.5, 0.5), 2 / np.pi * np.arcsin(np.sqrt(y)), rtol=0, atol=1e-15)


def test_beta_cdf_upper_tail_through_the_complement() -> None:
    """``1 − I_x(a, b) = I_{1−x}(b, a)``: the upper tail checked against scipy's sf."""
    a, b = 3.0, 40.0
    x = np.geomspace(0.2, 0.9, 30)
    np.testing.assert_allclose(D.beta_cdf(1 - x, b, a), sps.beta.sf(x, a, b), rtol=1e-11)


@pytest.mark.parametrize("a, b", [(0.5, 0.5), (2.0, 3.0), (9.5, 500.5), (1000.5, 9000.5)])
def test_beta_ppf_matches_scipy(a: float, b: float) -> None:
    q = np.array([1e-200, 1e-12, 1e-6, 0.001, 0.025, 0.3, 0.5, 0.7, 0.975, 0.999, 1 - 1e-6])
    np.testing.assert_allclose(D.beta_ppf(q, a, b), sps.beta.ppf(q, a, b), rtol=1e-11)
    assert float(D.beta_ppf(0.0, a, b)) == 0.0 and float(D.beta_ppf(1.0, a, b)) == 1.0


def test_binomial_sf_matches_scipy_in_both_tails() -> None:
    n = np.array([1, 10, 137, 5_000, 10**6])
    for p in (1e-4, 0.03, 0.5, 0.97):
        for frac in (0.0, 0.01, 0.3, 0.5, 0.9, 1.0):
            d = np.round(frac * n)
            want = sps.binom.sf(d - 1, n, p)
            keep = want > 1e-290
            np.testing.assert_allclose(D.binomial_sf(d, n, p)[keep], want[keep], rtol=1e-10, atol=1e-300)


@pytest.mark.parametrize("n", [1, 7, 200, 1000, 1001, 5_000, 60_000])
def test_binomial_half_cdf_and_pmf_match_scipy(n: int) -> None:
    for k in sorted({0, 1, n // 10, n // 2 - 1, n // 2, n - 1, n}):
        assert D.binom_half_cdf(k, n) == pytest.approx(sps.binom.cdf(k, n, 0.5), rel=1e-12, abs=1e-300)
        assert D.binom_half_pmf(k, n) == pytest.approx(sps.binom.pmf(k, n, 0.5), rel=1e-11, abs=1e-300)


def test_t_two_sided_p_and_critical_value_match_scipy() -> None:
    for df in (1.0, 2.5, 7.3, 50.2, 300.0, 5e3):
        t = np.concatenate([[0.0], np.geomspace(1e-6, 60.0, 40)])
        # scipy's t.sf loses digits for tiny t (3e-11 at t = 1e-6, df = 1): below p = 0.99 the
        # closed forms of df = 1 and 2 are the oracle instead
        want = 2 * sps.t.sf(t, df)
        far = want < 0.99
        np.testing.assert_allclose(D.t_two_sided_p(t[far], df), want[far], rtol=1e-12, atol=1e-300)
        for alpha in (0.2, 0.05, 0.01, 1e-4):
            assert float(D.t_critical(alpha, df)) == pytest.approx(sps.t.isf(alpha / 2, df), rel=1e-12)
    t = np.geomspace(1e-9, 0.1, 20)
    np.testing.assert_allclose(D.t_two_sided_p(t, 1.0), 1 - 2 * np.arctan(t) / np.pi, rtol=1e-15)
    np.testing.assert_allclose(D.t_two_sided_p(t, 2.0), 1 - t / np.sqrt(2 + t * t), rtol=1e-15)
    # very large df: the continued fraction keeps about ten digits (documented)
    assert float(D.t_two_sided_p(2.0, 1e6)) == pytest.approx(2 * sps.t.sf(2.0, 1e6), rel=1e-9)
    assert float(D.t_two_sided_p(2.0, math.inf)) == pytest.approx(2 * sps.norm.sf(2.0), rel=1e-15)
    assert float(D.t_critical(0.05, math.inf)) == pytest.approx(sps.norm.isf(0.025), rel=1e-15)


@pytest.mark.parametrize("df", [1, 2, 3, 7, 10, 40, 250])
def test_chi2_sf_matches_scipy_into_the_far_tail(df: int) -> None:
    x = np.concatenate([[0.0], np.geomspace(1e-6, 20.0 * df + 200.0, 50)])
    want = sps.chi2.sf(x, df)
    keep = want > 1e-290
    np.testing.assert_allclose(D.chi2_sf(x, df)[keep], want[keep], rtol=1e-10, atol=1e-300)
