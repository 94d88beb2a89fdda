"""Power of DeLong's test of two AUCs: the minimum detectable difference at a given power.

pROC's ``power.roc.test(roc1, roc2)`` for paired curves (``R/power.roc.test.R``) solves
Obuchowski & McClish's (1997, *Statistics in Medicine* 16:1529, formula 2) sample-size equation

    n·δ² = (z_{1−α/2}·√V₀ + z_{1−β}·√V_A)²

with DeLong's variances of the observed curves (``method = "delong"``): ``V₀ = 2·var₁ − 2·cov₁₂``
(the null variance, roc1 — here the baseline — as reference) and ``V_A = var₁ + var₂ − 2·cov₁₂``
(both scaled by the cases n, which cancel at the observed sample). At the observed sample the
smallest difference of AUCs the two-sided test at level α detects with power 1 − β is therefore

    δ_min = z_{1−α/2}·√V₀ + z_{1−β}·√V_A,

and the power at the observed difference ``Φ((|δ| − z_{1−α/2}·√V₀)/√V_A)``. Models on different
rows (unpaired) have ``cov₁₂ = 0`` (pROC refuses unpaired curves; the formula with independent
samples is the same with the covariance dropped).
"""

from __future__ import annotations

import math

from reportgen.engine.distributions import norm_ppf, norm_sf

#: The power the report's minimum detectable difference is stated at.
POWER = 0.8


def _variances(var_base: float, var_model: float, cov: float) -> tuple[float, float]:
    return max(0.0, 2.0 * var_base - 2.0 * cov), max(0.0, var_base + var_model - 2.0 * cov)


def min_detectable_delta(var_base: float, var_model: float, cov: float, alpha: float, power: float = POWER) -> float:
    """δ_min of the module docstring: AUC units (double it for the Gini)."""
    v0, va = _variances(var_base, var_model, cov)
    return float(norm_ppf(1.0 - alpha / 2.0)) * math.sqrt(v0) + float(norm_ppf(power)) * math.sqrt(va)


def power_at(delta: float, var_base: float, var_model: float, cov: float, alpha: float) -> float | None:
    """The power of the two-sided test at level α against the difference ``delta`` (None when
    the difference has no variance)."""
    v0, va = _variances(var_base, var_model, cov)
    if va == 0.0:
        return None
    z = (abs(delta) - float(norm_ppf(1.0 - alpha / 2.0)) * math.sqrt(v0)) / math.sqrt(va)
    return float(norm_sf(-z))  # Φ(z)


__all__ = ["POWER", "min_detectable_delta", "power_at"]
