"""One multiplicity policy for a run: Holm over each family of like tests, whatever made them.

Policy (stated in every :class:`~reportgen.results.Decision` and in the report):

* a **family** is one kind of test repeated over the comparisons of a run: the verdicts on the
  primary metric (one per model against the baseline, by DeLong or by the bootstrap alike),
  McNemar's tests at the decision rules, the challenger-vs-challenger DeLong tests;
* every family is adjusted by Holm's step-down method (Holm 1979, *Scand. J. Statist.* 6:65),
  which controls the family-wise error rate at α = 1 − level; a verdict is *significant* when
  its Holm-adjusted p-value is below α (a family of one is its own adjustment);
* intervals beside adjusted verdicts are given twice: unadjusted at ``level`` (labelled so) and
  simultaneous at the Bonferroni level ``1 − α/m`` (m: the family size), which cover all m
  differences together with probability ≥ level. A Bonferroni interval that excludes 0 implies a
  Holm-significant verdict; the converse may fail (Holm is uniformly more powerful), so a
  significant verdict can sit beside a simultaneous interval that touches 0, never the reverse.

Families (``family`` beside every adjusted p in the results; each test belongs to exactly one):
:data:`VERDICTS` (the primary metric, each challenger against the baseline), :data:`DELONG`
(DeLong's tests against the baseline when the primary metric is not AUC or Gini: otherwise those
tests *are* the verdicts and carry the verdicts' adjusted p), :data:`MCNEMAR` (McNemar's tests
against the baseline), :data:`CHALLENGER_PAIRS` (DeLong's tests of each pair of challengers) and
:data:`SEGMENTS` (one challenger's verdicts over the values of one segment column).
A pair with the baseline in the pairwise matrix shows its comparison's adjusted p and family, so
a test has one adjusted p wherever it is shown.

Bootstrap verdicts use the normal test on the bootstrap standard error (Efron & Tibshirani 1993,
*An Introduction to the Bootstrap*, §12.2 and §16.4): ``z = δ̂ / se_B`` with ``se_B`` the standard
deviation of the B replicate differences, ``p = 2·Φ(−|z|)``, and the verdict's intervals
``δ̂ ± z_{1−α/2}·se_B`` (unadjusted) and ``δ̂ ± z_{1−α/(2m)}·se_B`` (simultaneous) from the same
``se_B``. The percentile p (share of replicates beyond 0) cannot go below ``1/(B + 1)``, so Holm
over m verdicts could not reach α once ``m/(B + 1) ≥ α`` (11 challengers at B = 200) however clear
the difference; the normal p has no floor, and a Bonferroni interval excluding 0 means
``|δ̂|/se_B > z_{1−α/(2m)}``, i.e. ``m·p < α``, so Holm (adjusted p ≤ m·p) is significant: the
rule above holds by construction for every method of the family (DeLong's are normal or Welch t
tests with their own intervals).
"""

from __future__ import annotations

from collections.abc import Sequence
from decimal import Decimal
from typing import Literal

import numpy as np

from reportgen.engine import stats

#: ``Decision.adjustment`` of the policy.
HOLM: Literal["holm"] = "holm"


#: Family codes (``family`` of a :class:`~reportgen.results.Decision`, a DeLong or McNemar summary
#: and a pairwise cell): see the module docstring.
VERDICTS: Literal["verdicts"] = "verdicts"
DELONG: Literal["delong"] = "delong"
MCNEMAR: Literal["mcnemar"] = "mcnemar"
CHALLENGER_PAIRS: Literal["challenger_pairs"] = "challenger_pairs"
#: One challenger's verdicts over the tested values of one segment column (:mod:`reportgen.engine.segments`).
SEGMENTS: Literal["segments"] = "segments"


def bootstrap_se(samples: np.ndarray) -> float | None:
    """Standard error of a statistic from its bootstrap replicates: their standard deviation
    (``ddof=1``, Efron & Tibshirani 1993 eq. 6.6) over the finite ones (a resample where the
    statistic is undefined is left out); None with fewer than two."""
    v = np.asarray(samples, dtype=np.float64)
    v = v[np.isfinite(v)]
    return None if v.size < 2 else float(np.std(v, ddof=1))


def holm(ps: Sequence[float | None]) -> tuple[list[float | None], int]:
    """Holm-adjusted p-values (:func:`reportgen.engine.stats.holm`) and the family's size (the
    defined p-values; None entries, no test, pass through)."""
    return stats.holm(ps), sum(p is not None for p in ps)


def alpha_of(level: float) -> float:
    """α = 1 − ``level`` as the level is written: 0.95 gives 0.05, not the float difference
    0.050000000000000044, under which a p-value of exactly 0.05 (a bootstrap p of 50/1000, or
    a Holm-adjusted 2 × 0.025) would read as significant "below α"."""
    return float(Decimal(1) - Decimal(repr(float(level))))


def simultaneous_level(level: float, m: int) -> float:
    """Bonferroni level of m simultaneous intervals with joint coverage ≥ ``level``: 1 − α/m."""
    return 1.0 - alpha_of(level) / max(m, 1)


def direction(delta: float | None, better: str, significant: bool | None) -> Literal["better", "worse", "inconclusive"]:
    """``"better"`` / ``"worse"`` for a significant difference in the ``better`` ('higher' or
    'lower') direction or against it; ``"inconclusive"`` otherwise (no test, not significant, no
    difference)."""
    if not significant or delta is None or delta == 0:
        return "inconclusive"
    return "better" if (delta > 0) == (better == "higher") else "worse"


__all__ = [
    "CHALLENGER_PAIRS",
    "DELONG",
    "HOLM",
    "MCNEMAR",
    "SEGMENTS",
    "VERDICTS",
    "alpha_of",
    "bootstrap_se",
    "direction",
    "holm",
    "simultaneous_level",
]
