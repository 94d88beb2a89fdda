"""The rest of the PD battery (issue 45): what the grade tests could see, defaults that move
together, several periods at once, and grades that differ. Counts in, numbers out; pure numpy.

* **Critical number of defaults and power** (:func:`critical_defaults`, :func:`power`): a
  one-sided test of a grade (N obligors, PD) rejects at level α from the smallest D with
  ``p(D) < α`` (the rule of the amber light); its power against a true default rate q is
  ``P(X ≥ D_crit)``, ``X ~ Bin(N, q)``, exact. The binomial test's p is ``P(X ≥ D)`` under
  Bin(N, PD) (BCBS WP14, 2005, section 5.2), the Jeffreys test's ``F_Beta(D + ½, N − D + ½)(PD)``
  (ECB 2019, section 2.5.3.1); both fall as D grows, so the critical D is found by bisection.
  The alternative is the PD times a stated ratio (``credit.power_ratio``, 1.5 by default): a
  grade whose true default rate is 50 % above its PD.
* **Binomial test with correlated defaults** (:func:`vasicek_binomial_sf`): Vasicek's one-factor
  model (Vasicek 2002; the model of the Basel IRB formula): obligor i defaults when
  ``√rho·Z + √(1 − rho)·ε_i < Φ⁻¹(PD)``; given the factor Z the defaults are independent with
  ``p(Z) = Φ((Φ⁻¹(PD) − √rho·Z)/√(1 − rho))``, so
  ``P(D ≥ d) = ∫ P(Bin(N, p(z)) ≥ d) φ(z) dz`` (Tasche 2003, "A traffic lights approach to PD
  validation"; BCBS WP14 section 5.2, the binomial test "with asset correlation"). As N grows
  the default rate's distribution tends to Vasicek's, ``P(DR ≤ x) = Φ((√(1 − rho)Φ⁻¹(x) − Φ⁻¹(PD))/√rho)``.
  The integral is computed by composite Gauss–Legendre quadrature over the z where the binomial
  tail moves between 0 and 1 (outside it, exactly 0 or the normal tail).
  rho: ``credit.asset_correlation``, 0.12 by default (the Basel IRB corporate correlation's floor,
  its value for a PD above about 10 %), or ``irb_corporate``: per grade
  ``0.12·w + 0.24·(1 − w)``, ``w = (1 − e^{−50·PD})/(1 − e^{−50})`` (Basel II, paragraph 272).
* **Normal test over periods** (BCBS WP14 section 5.3; Tasche 2003): with the default rate
  ``d_t`` and mean PD ``p_t`` of T periods and ``e_t = d_t − p_t``,
  ``S = Σ e_t / (√T·τ)``, ``τ² = (Σ e_t² − (Σ e_t)²/T)/(T − 1)``, ``p = 1 − Φ(S)`` (one-sided:
  a small p says the PDs are too low on average over the periods). Defined from two periods on.
* **Traffic lights over periods** (Blochwitz, Hohl, Tasche & When 2004, the traffic-lights
  approach): each (period, grade) cell's Jeffreys test coloured as the section's lights, the
  colours counted per period and over all periods.
* **Adjacent-grade heterogeneity** (PDtoolkit ``heterogeneity``): for each pair of adjacent
  non-empty grades (lower PD first) the pooled two-proportion z test, ``z = (r_2 − r_1)/
  √(r̄(1 − r̄)(1/n_1 + 1/n_2))``, one-sided ``p = 1 − Φ(z)`` (H1: the riskier grade's default rate
  is higher; R ``prop.test(correct = FALSE)``), Holm-adjusted over the pairs (Holm 1979).
"""

from __future__ import annotations

import itertools
import math
from collections.abc import Callable
from dataclasses import dataclass

import numpy as np

from reportgen.engine.distributions import beta_cdf, binomial_sf, norm_ppf, norm_sf
from reportgen.engine.stats import holm

__all__ = [
    "AdjacentTest",
    "adjacent_grades",
    "critical_defaults",
    "irb_corporate_correlation",
    "jeffreys_p_values",
    "normal_test_over_periods",
    "power",
    "vasicek_binomial_sf",
]

#: Nodes and weights of 16-point Gauss–Legendre on [−1, 1], and the panels of the quadrature.
_GL_X, _GL_W = np.polynomial.legendre.leggauss(16)
_PANELS = 12
#: The factor's range: Φ(−10) is 7.6e-24.
_Z = 10.0


def jeffreys_p_values(d: np.ndarray, n: np.ndarray, pd: np.ndarray) -> np.ndarray:
    """ECB (2019) Jeffreys test p-values ``F_Beta(D + ½, N − D + ½)(PD)``, elementwise."""
    d, n, pd = (np.asarray(v, dtype=float) for v in np.broadcast_arrays(d, n, pd))
    return beta_cdf(pd, d + 0.5, n - d + 0.5)


def irb_corporate_correlation(pd: np.ndarray) -> np.ndarray:
    """Basel II (paragraph 272) asset correlation of corporate exposures:
    ``0.12·w + 0.24·(1 − w)``, ``w = (1 − e^{−50·PD})/(1 − e^{−50})``."""
    w = -np.expm1(-50.0 * np.asarray(pd, dtype=float)) / -math.expm1(-50.0)
    return 0.12 * w + 0.24 * (1.0 - w)


def vasicek_binomial_sf(d: np.ndarray, n: np.ndarray, pd: np.ndarray, rho: np.ndarray) -> np.ndarray:
    """``P(D ≥ d)`` for the defaults D of n obligors at probability ``pd`` in Vasicek's one-factor
    model with asset correlation ``rho`` (module docstring), elementwise; ``rho = 0`` is the
    binomial tail. Composite Gauss–Legendre over the factor values where ``P(Bin(n, p(z)) ≥ d)``
    lies between 1e-16 and 1 − 1e-16 (bounded through the Gamma tails of the Beta(d, n − d + 1)
    distribution whose CDF it is); below that range it is 0, above it the normal tail."""
    d, n, pd, rho = (np.asarray(v, dtype=float).ravel() for v in np.broadcast_arrays(d, n, pd, rho))
    out = binomial_sf(d, n, pd)
    live = (d > 0) & (rho > 0) & (pd > 0) & (pd < 1)
    if not live.any():
        return out
    dd, nn, pp, rr = d[live], n[live], pd[live], rho[live]
    a, s, c = norm_ppf(pp), np.sqrt(rr), np.sqrt(1.0 - rr)
    # the binomial tail is the CDF of B ~ Beta(d, n − d + 1) at p: outside these rates it is 0 or 1
    spread = 12.0 * np.sqrt(dd) + 40.0
    p_lo = np.clip((dd - spread) / nn, 0.0, 1.0)
    p_hi = np.clip((dd + spread) / nn, 0.0, 1.0)

    def z_of(p: np.ndarray) -> np.ndarray:  # the factor value at which p(z) = p
        inner = (p > 0.0) & (p < 1.0)
        q = norm_ppf(np.where(inner, p, 0.5))
        return np.clip(np.where(inner, (a - c * q) / s, np.where(p <= 0.0, _Z, -_Z)), -_Z, _Z)

    z_top, z_bottom = z_of(p_lo), z_of(p_hi)  # p(z) falls as z rises
    # z below z_bottom: p(z) above p_hi, the tail is 1: the factor's mass there, Φ(z_bottom)
    total = norm_sf(-z_bottom)
    width = (z_top - z_bottom) / _PANELS
    starts = z_bottom[:, None] + width[:, None] * np.arange(_PANELS)[None, :]
    z = starts[:, :, None] + (0.5 * width)[:, None, None] * (_GL_X + 1.0)[None, None, :]
    z = z.reshape(len(dd), -1)
    p = norm_sf(-(a[:, None] - s[:, None] * z) / c[:, None])
    tail = binomial_sf(np.repeat(dd, z.shape[1]), np.repeat(nn, z.shape[1]), p.ravel()).reshape(z.shape)
    phi = np.exp(-0.5 * z * z) / math.sqrt(2.0 * math.pi)
    weights = np.tile(_GL_W, _PANELS)[None, :] * (0.5 * width)[:, None]
    total = total + np.sum(weights * tail * phi, axis=1)
    out[live] = np.clip(total, 0.0, 1.0)
    return out


def critical_defaults(n: np.ndarray, alpha: float, p_of: Callable[[np.ndarray, np.ndarray], np.ndarray]) -> np.ndarray:
    """The smallest D in 0 … n with ``p_of(D, n) < alpha`` per element (−1 where no D rejects),
    by bisection: ``p_of(d, n)`` must fall as d grows (both tests' p-values do)."""
    n = np.asarray(n, dtype=np.int64)
    reject_all = p_of(n.astype(float), n) < alpha
    lo = np.full(n.shape, -1, dtype=np.int64)  # p(lo) >= alpha (lo = −1: none below)
    hi = n.copy()  # p(hi) < alpha where reject_all
    while np.any(hi - lo > 1):
        mid = (lo + hi) // 2
        rej = p_of(np.maximum(mid, 0).astype(float), n) < alpha
        rej = rej | (mid < 0)
        move = hi - lo > 1
        hi = np.where(move & rej, mid, hi)
        lo = np.where(move & ~rej, mid, lo)
    return np.where(reject_all, hi, -1)


def power(critical: np.ndarray, n: np.ndarray, q: np.ndarray) -> np.ndarray:
    """``P(X ≥ D_crit)``, ``X ~ Bin(n, q)``: the power of a test rejecting from ``critical``
    defaults when the true default rate is q; 0 where no number of defaults rejects (−1)."""
    crit = np.asarray(critical, dtype=float)
    return np.where(crit < 0, 0.0, binomial_sf(np.maximum(crit, 0.0), n, np.clip(q, 0.0, 1.0)))


def normal_test_over_periods(
    default_rates: np.ndarray, pds: np.ndarray
) -> tuple[float | None, float | None, str | None]:
    """BCBS WP14's normal test over T periods (module docstring); (S, p one-sided, reason).
    Undefined below two periods (``too_few_periods``) and when every period's difference
    ``d_t − p_t`` is the same (``zero_variance``)."""
    e = np.asarray(default_rates, dtype=float) - np.asarray(pds, dtype=float)
    t = e.shape[0]
    if t < 2:
        return None, None, "too_few_periods"
    tau2 = (float(np.sum(e * e)) - float(np.sum(e)) ** 2 / t) / (t - 1)
    if not tau2 > 0.0:
        return None, None, "zero_variance"
    stat = float(np.sum(e)) / (math.sqrt(t) * math.sqrt(tau2))
    return stat, float(norm_sf(stat)), None


@dataclass(frozen=True, slots=True)
class AdjacentTest:
    """One pair of adjacent non-empty grades: indices, z, one-sided p and its Holm adjustment."""

    lower: int
    upper: int
    z: float | None
    p: float | None
    p_holm: float | None


def adjacent_grades(n: np.ndarray, d: np.ndarray) -> list[AdjacentTest]:
    """The heterogeneity tests of adjacent non-empty grades (module docstring), Holm-adjusted
    over the defined ones; a pair without a default or without a non-default between them has
    no variance (z and p None)."""
    n, d = np.asarray(n, dtype=float), np.asarray(d, dtype=float)
    filled = np.flatnonzero(n > 0)
    raw: list[tuple[int, int, float | None, float | None]] = []
    for i, j in itertools.pairwise(filled):
        pooled = (d[i] + d[j]) / (n[i] + n[j])
        var = pooled * (1.0 - pooled) * (1.0 / n[i] + 1.0 / n[j])
        if var <= 0.0:
            raw.append((int(i), int(j), None, None))
            continue
        z = float((d[j] / n[j] - d[i] / n[i]) / math.sqrt(var))
        raw.append((int(i), int(j), z, float(norm_sf(z))))
    adjusted = holm([r[3] for r in raw])
    return [AdjacentTest(i, j, z, p, a) for (i, j, z, p), a in zip(raw, adjusted, strict=True)]
