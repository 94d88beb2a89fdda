"""Exact and score intervals of proportions, and the logit-transformed DeLong interval.

Why: a bootstrap (or Wald) interval of a rate whose count is 0 or equals its total has zero
width — FP = 0 of 143 negatives prints FPR [0, 0] — which reads as certainty. The exact
(Clopper–Pearson) interval keeps its coverage there: for 0 of n its upper bound is
``1 − (α/2)^(1/n)`` (0.0255 for n = 143 at 95 %). Likewise DeLong's normal interval of an AUC
near 1 is cut at 1; the logit transform keeps it inside (0, 1) without clipping.

Pure numpy/math; the beta quantile is :func:`reportgen.engine.distributions.beta_ppf`.

Sources: Clopper & Pearson (1934), *Biometrika* 26:404; Wilson (1927), *JASA* 22:209;
Brown, Cai & DasGupta (2001), *Statistical Science* 16:101 (the comparison of both);
the logit interval of an AUC: Pepe (2003), *The Statistical Evaluation of Medical Tests*, §5.2.3
(as in Qin & Hotilovac 2008).
"""

from __future__ import annotations

import math
from dataclasses import dataclass

from reportgen.engine.distributions import beta_ppf, norm_ppf
from reportgen.value import Value

#: ``ci_method`` of an exact interval of a proportion.
CLOPPER_PEARSON = "Clopper–Pearson (exact, boundary count)"
#: ``ci_method`` of DeLong's normal interval of an AUC.
DELONG = "DeLong"
#: ``ci_method`` of the DeLong interval computed on the logit scale.
DELONG_LOGIT = "DeLong (logit scale)"


def _check(k: float, n: float, level: float) -> None:
    if not 0.0 < level < 1.0:
        raise ValueError(f"level must lie strictly between 0 and 1, got {level}")
    if n <= 0 or k < 0 or k > n:
        raise ValueError(f"a proportion needs 0 ≤ k ≤ n and n > 0, got k = {k}, n = {n}")


def clopper_pearson(k: float, n: float, level: float = 0.95) -> tuple[float, float]:
    """Exact (Clopper–Pearson) interval of a binomial proportion k / n.

    ``lo = B⁻¹(α/2; k, n − k + 1)`` and ``hi = B⁻¹(1 − α/2; k + 1, n − k)`` with α = 1 − level,
    ``lo = 0`` for k = 0 and ``hi = 1`` for k = n; in closed form at the boundary:
    ``hi = 1 − (α/2)^(1/n)`` for k = 0, ``lo = (α/2)^(1/n)`` for k = n.
    """
    _check(k, n, level)
    a = (1.0 - level) / 2.0
    if k == 0:
        return 0.0, 1.0 - a ** (1.0 / n)
    if k == n:
        return a ** (1.0 / n), 1.0
    return float(beta_ppf(a, k, n - k + 1)), float(beta_ppf(1.0 - a, k + 1, n - k))


def wilson(k: float, n: float, level: float = 0.95) -> tuple[float, float]:
    """Wilson's score interval of k / n:
    ``(p̂ + z²/2n ∓ z·√(p̂(1 − p̂)/n + z²/4n²)) / (1 + z²/n)``, z = Φ⁻¹((1 + level)/2)."""
    _check(k, n, level)
    z = float(norm_ppf(0.5 + level / 2.0))
    p = k / n
    z2n = z * z / n
    centre = p + z2n / 2.0
    half = z * math.sqrt(p * (1.0 - p) / n + z2n / (4.0 * n))
    return max(0.0, (centre - half) / (1.0 + z2n)), min(1.0, (centre + half) / (1.0 + z2n))


#: Threshold metrics that are proportions of confusion counts: metric → (numerator cells,
#: denominator cells), cells among "tp", "fp", "fn", "tn".
PROPORTIONS: dict[str, tuple[tuple[str, ...], tuple[str, ...]]] = {
    "accuracy": (("tp", "tn"), ("tp", "fp", "fn", "tn")),
    "error_rate": (("fp", "fn"), ("tp", "fp", "fn", "tn")),
    "precision": (("tp",), ("tp", "fp")),
    "recall": (("tp",), ("tp", "fn")),
    "specificity": (("tn",), ("tn", "fp")),
    "npv": (("tn",), ("tn", "fn")),
    "fpr": (("fp",), ("fp", "tn")),
    "fnr": (("fn",), ("fn", "tp")),
    "type_i_error": (("fp",), ("fp", "tn")),
    "type_ii_error": (("fn",), ("fn", "tp")),
}


@dataclass(frozen=True, repr=False, eq=False, slots=True)
class BoundaryInterval(Value):
    """An exact interval replacing a degenerate one: the metric, k of n rows, the bounds."""

    metric: str
    k: float
    n: float
    lo: float
    hi: float


def boundary_intervals(counts: dict[str, float], level: float) -> list[BoundaryInterval]:
    """Clopper–Pearson intervals of every proportion metric whose count is 0 or its total.

    ``counts``: the confusion cells in rows (``tp``, ``fp``, ``fn``, ``tn``; row counts, or
    frequency-weighted counts, never sampling weights). Proportions with a zero denominator
    are undefined and skipped; interior proportions keep their bootstrap interval.
    """
    out = []
    for metric, (num, den) in PROPORTIONS.items():
        k = float(sum(counts[c] for c in num))
        n = float(sum(counts[c] for c in den))
        if n > 0 and (k == 0 or k == n):
            lo, hi = clopper_pearson(k, n, level)
            out.append(BoundaryInterval(metric, k, n, lo, hi))
    return out


def logit_auc_interval(auc: float, variance: float, level: float) -> tuple[float, float] | None:
    """DeLong's interval of an AUC on the logit scale, mapped back:
    ``expit(logit(A) ∓ z·se / (A(1 − A)))`` (delta method: d logit(A)/dA = 1/(A(1 − A))).

    Stays inside (0, 1) without clipping, so an AUC near 1 gets an asymmetric interval instead of
    one cut at 1. None when A is 0 or 1 (the logit is infinite; the variance is then 0 as well).
    """
    if not 0.0 < auc < 1.0:
        return None
    z = float(norm_ppf(0.5 + level / 2.0))
    se = math.sqrt(max(variance, 0.0)) / (auc * (1.0 - auc))
    centre = math.log(auc / (1.0 - auc))
    return 1.0 / (1.0 + math.exp(-(centre - z * se))), 1.0 / (1.0 + math.exp(-(centre + z * se)))


def delong_auc_bounds(auc: float, variance: float, level: float) -> tuple[float, float, str]:
    """DeLong's interval of an AUC as every part of a run states it, with its ``ci_method``:
    ``auc ∓ z·√variance`` (pROC's ``ci.auc(method = "delong")``), or, when that would leave
    [0, 1], the logit-scale interval (:func:`logit_auc_interval`) instead of one cut at the bound.
    At AUC 0 or 1 (zero variance) the normal one, which is then the point."""
    z = float(norm_ppf(0.5 + level / 2.0))
    half = z * math.sqrt(max(variance, 0.0))
    if auc - half < 0.0 or auc + half > 1.0:
        iv = logit_auc_interval(auc, variance, level)
        if iv is not None:
            return iv[0], iv[1], DELONG_LOGIT
    return max(0.0, auc - half), min(1.0, auc + half), DELONG


__all__ = [
    "CLOPPER_PEARSON",
    "DELONG",
    "DELONG_LOGIT",
    "delong_auc_bounds",
    "PROPORTIONS",
    "BoundaryInterval",
    "boundary_intervals",
    "clopper_pearson",
    "logit_auc_interval",
    "wilson",
]
