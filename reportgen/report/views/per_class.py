"""The per-class section of a multiclass report: one table per metric, classes by models."""

from __future__ import annotations

from dataclasses import dataclass

from reportgen.report.formats import fmt_ci, fmt_count, fmt_metric
from reportgen.report.views.common import Models, best_index
from reportgen.report.wording import per_class_interval_note
from reportgen.results import ComparisonResult

#: Per-class tables of a multiclass report: (field, title).
PER_CLASS_TABLES = (
    ("f1", "F1"),
    ("recall", "Recall"),
    ("precision", "Precision"),
    ("roc_auc", "ROC AUC (one-vs-rest)"),
)


#: The per-class fields the engine draws intervals of (``per_class_ci``).
INTERVAL_FIELDS = ("roc_auc",)


def _no_interval(result: ComparisonResult, name: str, field: str, value: float | None) -> str:
    """Why a model's defined per-class AUC has no interval when other models' have one: a weighted
    model's class tables hold weights, not counts, and are not resampled."""
    m = result.models[name]
    if value is None or field not in INTERVAL_FIELDS or field in m.per_class_ci_method:
        return ""
    if not any(field in o.per_class_ci_method for o in result.models.values()):
        return ""
    return "no interval: weighted rows" if m.weighted else "no interval drawn"


@dataclass(frozen=True, slots=True)
class ClassCell:
    value: str
    ci: str
    best: bool


@dataclass(frozen=True, slots=True)
class ClassRow:
    label: str
    support: str
    cells: tuple[ClassCell, ...]


@dataclass(frozen=True, slots=True)
class ClassTable:
    title: str
    rows: tuple[ClassRow, ...]
    #: why the table has no intervals where the run draws them ("" otherwise)
    no_intervals: str = ""


@dataclass(frozen=True, slots=True)
class PerClassView:
    tables: tuple[ClassTable, ...]
    #: how the one-vs-rest AUCs' intervals were made ("" without them)
    interval_note: str


def per_class_view(result: ComparisonResult, ms: Models) -> PerClassView:
    """One table per per-class metric: rows = classes, columns = models, best marked (none for a
    binary run)."""
    if ms.binary:
        return PerClassView(tables=(), interval_note=per_class_interval_note(result))
    labels = list(result.run.classes or [])
    first = result.models[ms.names[0]]
    tables = []
    for field, title in PER_CLASS_TABLES:
        rows = []
        for label in labels:
            vals = [((result.models[n].per_class or {}).get(label) or {}).get(field) for n in ms.names]
            cis = [
                fmt_ci((result.models[n].per_class_ci.get(label) or {}).get(field), key=field)
                or _no_interval(result, n, field, v)
                for n, v in zip(ms.names, vals)
            ]
            best = best_index(vals, "higher")
            support = ((first.per_class or {}).get(label) or {}).get("support")
            rows.append(
                ClassRow(
                    label=label,
                    support=fmt_count(support),
                    cells=tuple(
                        ClassCell(value=fmt_metric(v, field), ci=ci, best=i in best)
                        for i, (v, ci) in enumerate(zip(vals, cis))
                    ),
                )
            )
        if any(c.value != "n/a" for r in rows for c in r.cells):
            drawn = any(f in INTERVAL_FIELDS for m in result.models.values() for f in m.per_class_ci_method)
            note = (
                ""
                if field in INTERVAL_FIELDS or not drawn
                else ("No intervals: per class, only the one-vs-rest AUC has one.")
            )
            tables.append(ClassTable(title=title, rows=tuple(rows), no_intervals=note))
    return PerClassView(tables=tuple(tables), interval_note=per_class_interval_note(result))
