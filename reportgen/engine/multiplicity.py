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

Bootstrap p-values have a resolution floor: with B finite replicates the two-sided p is at least
``1/(B + 1)``; a p-value at the floor is an upper bound (``p ≤ 1/(B+1)``), flagged as such, and
so is a Holm-adjusted value that the floored p determines.
"""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass
from decimal import Decimal
from typing import Literal

import numpy as np

from reportgen.engine import stats

#: ``Decision.adjustment`` of the policy.
HOLM: Literal["holm"] = "holm"


@dataclass(frozen=True, slots=True)
class PValue:
    """A p-value and whether it is only an upper bound (a bootstrap p at its floor 1/(B + 1))."""

    value: float
    is_bound: bool = False


def bootstrap_p(samples: np.ndarray) -> PValue | None:
    """Two-sided bootstrap p-value of 'delta = 0': ``2·min(share ≤ 0, share ≥ 0)``, capped at 1.

    With B finite replicates the smallest value that can be resolved is ``1/(B + 1)``; a p below it
    is reported as that bound with ``is_bound`` set. None with fewer than two finite replicates.
    """
    v = np.asarray(samples, dtype=np.float64)
    v = v[np.isfinite(v)]
    if v.size < 2:
        return None
    p = min(1.0, 2.0 * min(float(np.mean(v <= 0)), float(np.mean(v >= 0))))
    floor = 1.0 / (v.size + 1)
    return PValue(floor, True) if p <= floor else PValue(p)


def holm(ps: Sequence[PValue | None]) -> list[PValue | None]:
    """Holm-adjusted p-values (:func:`reportgen.engine.stats.holm`), in input order, each flagged
    as a bound when the raw p that sets it (the maximising term ``(m − j + 1)·p_(j)``) is a bound.
    None entries (no test) pass through and do not count towards the family size."""
    raw = [None if p is None else p.value for p in ps]
    adjusted = stats.holm(raw)
    idx = [i for i, p in enumerate(ps) if p is not None]
    m = len(idx)
    order = sorted(idx, key=lambda i: raw[i])  # type: ignore[arg-type, return-value]
    terms = [min(1.0, (m - r) * raw[i]) for r, i in enumerate(order)]  # type: ignore[operator]
    out: list[PValue | None] = [None] * len(ps)
    for r, i in enumerate(order):
        a = adjusted[i]
        assert a is not None
        # the terms up to rank r that reach the running maximum: a bound only if all of them are
        setters = [order[q] for q in range(r + 1) if terms[q] == a]
        bound = bool(setters) and a < 1.0 and all(ps[s].is_bound for s in setters)  # type: ignore[union-attr]
        out[i] = PValue(a, bound)
    return out


def alpha_of(level: float) -> float:
    """α = 1 − ``level`` as the level is written: 0.95 gives 0.05, not the float difference
    0.050000000000000044, under which a p-value of exactly 0.05 (a bootstrap p of 50/1000, or
    a Holm-adjusted 2 × 0.025) would read as significant "below α"."""
    return float(Decimal(1) - Decimal(repr(float(level))))


def simultaneous_level(level: float, m: int) -> float:
    """Bonferroni level of m simultaneous intervals with joint coverage ≥ ``level``: 1 − α/m."""
    return 1.0 - alpha_of(level) / max(m, 1)


def direction(delta: float | None, better: str, significant: bool | None
              ) -> Literal["better", "worse", "inconclusive"]:
    """``"better"`` / ``"worse"`` for a significant difference in the ``better`` ('higher' or
    'lower') direction or against it; ``"inconclusive"`` otherwise (no test, not significant, no
    difference)."""
    if not significant or delta is None or delta == 0:
        return "inconclusive"
    return "better" if (delta > 0) == (better == "higher") else "worse"


__all__ = ["HOLM", "PValue", "alpha_of", "bootstrap_p", "direction", "holm", "simultaneous_level"]
