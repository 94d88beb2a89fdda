"""The operating-points section: each model's TPR at the configured false positive rates and
precision at the configured recalls with intervals, and each challenger's differences (numbers
from ``ModelResult.operating_points`` and ``Comparison.operating_points``, formatted through
:mod:`reportgen.report.formats`)."""

from __future__ import annotations

from dataclasses import dataclass

from reportgen.report.formats import fmt_ci, fmt_num, fmt_pct, fmt_pvalue, fmt_signed
from reportgen.report.views.common import Models
from reportgen.results import ComparisonResult

#: Per kind: the table's title, the row label's words and the value's name.
KINDS = {
    "tpr_at_fpr": ("True positive rate at a fixed false positive rate", "FPR", "TPR"),
    "precision_at_recall": ("Precision at a fixed recall", "recall", "precision"),
}


@dataclass(frozen=True, slots=True)
class PointCell:
    value: str
    ci: str


@dataclass(frozen=True, slots=True)
class DeltaCell:
    value: str
    ci: str
    p: str


@dataclass(frozen=True, slots=True)
class PointRow:
    label: str
    cells: tuple[PointCell, ...]
    deltas: tuple[DeltaCell, ...]


@dataclass(frozen=True, slots=True)
class PointTable:
    title: str
    value_name: str
    rows: tuple[PointRow, ...]


@dataclass(frozen=True, slots=True)
class OperatingPointsView:
    #: models with operating points, in report order, and their colours
    models: tuple[str, ...]
    colours: tuple[str, ...]
    #: challengers with differences, their columns in ``PointRow.deltas``
    challengers: tuple[str, ...]
    tables: tuple[PointTable, ...]
    methods: str
    baseline: str


def operating_points_view(result: ComparisonResult, ms: Models) -> OperatingPointsView:
    """One table per kind: a row per configured point, a value and interval per model, then each
    challenger's difference, interval and (descriptive) p."""
    ops = {n: m.operating_points for n, m in result.models.items() if m.operating_points is not None}
    names = tuple(ops)
    comps = [c for c in result.comparisons if c.operating_points]
    tables = []
    first = next(iter(ops.values()), None)
    for kind, (title, axis, value_name) in KINDS.items():
        rows = []
        for q, p in enumerate(first.points if first is not None else ()):
            if p.kind != kind:
                continue
            cells = tuple(PointCell(fmt_num(ops[n].points[q].value, 3), fmt_ci(ops[n].points[q].ci, 3)) for n in names)
            deltas = tuple(
                DeltaCell(fmt_signed(d.delta, 3), fmt_ci(d.ci, 3), fmt_pvalue(d.p_value))
                for c in comps
                for d in (c.operating_points[q],)
            )
            rows.append(PointRow(f"{axis} {fmt_pct(p.at, 1)}", cells, deltas))
        if rows:
            tables.append(PointTable(title, value_name, tuple(rows)))
    methods = sorted({o.ci_method for o in ops.values()} | {d.ci_method for c in comps for d in c.operating_points})
    return OperatingPointsView(
        names,
        tuple(ms.colours[n] for n in names),
        tuple(c.model for c in comps),
        tuple(tables),
        "; ".join(methods),
        result.run.baseline,
    )


__all__ = ["OperatingPointsView", "operating_points_view"]
