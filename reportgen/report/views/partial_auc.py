"""The partial AUC section: each model's partial AUC per configured range, and each challenger's
paired test against the baseline (the numbers come from ``ModelResult.partial_auc`` and
``Comparison.partial_auc``; formatted here through :mod:`reportgen.report.formats`)."""

from __future__ import annotations

from dataclasses import dataclass

from reportgen.option_results import PartialAuc, PartialAucTest
from reportgen.report.formats import fmt_ci, fmt_num, fmt_pvalue, fmt_signed
from reportgen.report.views.common import Models
from reportgen.results import ComparisonResult


@dataclass(frozen=True, slots=True)
class PartialAucRow:
    model: str
    colour: str
    value: str
    ci: str
    corrected: str
    corrected_ci: str


@dataclass(frozen=True, slots=True)
class PartialAucTestRow:
    model: str
    delta: str
    delta_corrected: str
    ci: str
    p: str
    p_adjusted: str
    verdict: str
    paired: str


@dataclass(frozen=True, slots=True)
class PartialAucTable:
    title: str
    rows: tuple[PartialAucRow, ...]
    tests: tuple[PartialAucTestRow, ...]


@dataclass(frozen=True, slots=True)
class PartialAucView:
    tables: tuple[PartialAucTable, ...]
    #: how the intervals and tests were made, one sentence each
    methods: tuple[str, ...]
    baseline: str


def range_title(p: PartialAuc | PartialAucTest) -> str:
    """'Specificity 0.900 to 1.000 (false positive rate up to 0.100)'."""
    if p.focus == "specificity":
        return (
            f"Specificity {fmt_num(p.lo)} to {fmt_num(p.hi)} "
            f"(false positive rate {fmt_num(1 - p.hi)} to {fmt_num(1 - p.lo)})"
        )
    return f"Sensitivity {fmt_num(p.lo)} to {fmt_num(p.hi)}"


def _verdict(t: PartialAucTest) -> str:
    if t.significant is None:
        return "no test"
    if not t.significant:
        return "not significant"
    return "higher" if (t.delta or 0) > 0 else "lower"


def partial_auc_view(result: ComparisonResult, ms: Models) -> PartialAucView:
    """One table per range: a row per model (raw and corrected pAUC with intervals), then a row per
    challenger (the differences with the baseline, the test's p and Holm-adjusted p)."""
    first = next(iter(result.models.values()))
    tables = []
    methods: set[str] = set()
    for q, head in enumerate(first.partial_auc):
        rows = []
        for name, m in result.models.items():
            p = m.partial_auc[q]
            methods.add(p.ci_method)
            rows.append(
                PartialAucRow(
                    name, ms.colours[name], fmt_num(p.value), fmt_ci(p.ci), fmt_num(p.corrected), fmt_ci(p.corrected_ci)
                )
            )
        tests = []
        for c in result.comparisons:
            if q >= len(c.partial_auc):
                continue
            t = c.partial_auc[q]
            methods.add(f"tests: {t.method}")
            tests.append(
                PartialAucTestRow(
                    c.model,
                    fmt_signed(t.delta),
                    fmt_signed(t.delta_corrected),
                    fmt_ci(t.ci),
                    fmt_pvalue(t.p_value),
                    fmt_pvalue(t.p_value_adjusted),
                    _verdict(t),
                    "paired" if t.paired else "unpaired",
                )
            )
        tables.append(PartialAucTable(range_title(head), tuple(rows), tuple(tests)))
    return PartialAucView(tuple(tables), tuple(sorted(methods)), result.run.baseline)


__all__ = ["PartialAucView", "partial_auc_view", "range_title"]
