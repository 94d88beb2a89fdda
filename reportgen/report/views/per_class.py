"""The per-class section of a multiclass report: each model's classification table (classes and
their averages), the one-vs-rest AUC per class across models, and each challenger's change per
class from the baseline."""

from __future__ import annotations

from dataclasses import dataclass

from reportgen.report.formats import fmt_ci, fmt_count, fmt_metric, fmt_signed
from reportgen.report.views.common import Models, best_index
from reportgen.report.wording import class_report_note, nir_sentence, per_class_interval_note
from reportgen.results import ComparisonResult, ModelResult

#: Per-class tables across models: (field, title); precision, recall and F1 are in each model's
#: classification table.
PER_CLASS_TABLES = (("roc_auc", "ROC AUC (one-vs-rest)"),)

#: The per-class fields the engine draws intervals of (``per_class_ci``) in the cross-model tables.
INTERVAL_FIELDS = ("roc_auc",)

#: Columns of a model's classification table with an interval: (field, header).
RATE_COLUMNS = (("precision", "Precision"), ("recall", "Recall"), ("f1", "F1"), ("specificity", "Specificity"))

#: Rows of the averages, in table order: (key, label).
AVERAGE_ROWS = (("macro", "Macro average"), ("weighted", "Weighted average"), ("micro", "Micro (pooled)"))

#: Per-class changes from the baseline: (field, header).
DELTA_COLUMNS = (("recall", "Δ Recall"), ("f1", "Δ F1"), ("roc_auc", "Δ AUC"))


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


@dataclass(frozen=True, slots=True)
class ReportRow:
    """A class (with its counts) or an average (counts empty) of a classification table."""

    label: str
    average: bool
    support: str
    cells: tuple[ClassCell, ...]
    counts: tuple[str, ...]


@dataclass(frozen=True, slots=True)
class ModelReport:
    """One model's classification table and its accuracy against the no-information rate."""

    name: str
    colour: str
    rows: tuple[ReportRow, ...]
    nir: str


@dataclass(frozen=True, slots=True)
class DeltaRow:
    label: str
    cells: tuple[ClassCell, ...]


@dataclass(frozen=True, slots=True)
class DeltaTable:
    """Each challenger's per-class change from the baseline: columns (model, field)."""

    baseline: str
    headers: tuple[tuple[str, str], ...]
    rows: tuple[DeltaRow, ...]


@dataclass(frozen=True, slots=True)
class PerClassView:
    tables: tuple[ClassTable, ...]
    #: how the one-vs-rest AUCs' intervals were made ("" without them)
    interval_note: str
    reports: tuple[ModelReport, ...] = ()
    #: how the classification tables' intervals were made ("" without them)
    report_note: str = ""
    deltas: DeltaTable | None = None
    rate_headers: tuple[str, ...] = tuple(h for _, h in RATE_COLUMNS)


def _model_report(m: ModelResult, labels: list[str], colour: str) -> ModelReport:
    rows = []
    cis = m.per_class_ci
    for label in labels:
        v = (m.per_class or {}).get(label) or {}
        rows.append(
            ReportRow(
                label=label,
                average=False,
                support=fmt_count(v.get("support")),
                cells=tuple(
                    ClassCell(fmt_metric(v.get(f), f), fmt_ci((cis.get(label) or {}).get(f), key=f), False)
                    for f, _ in RATE_COLUMNS
                ),
                counts=tuple(fmt_count(v.get(f)) for f in ("tp", "fp", "fn", "tn")),
            )
        )
    t = m.classification
    if t is not None:
        total = fmt_count(t.n)
        for key, title in AVERAGE_ROWS:
            vals = t.averages.get(key) or {}
            ci = t.averages_ci.get(key) or {}
            rows.append(
                ReportRow(
                    label=title,
                    average=True,
                    support=total,
                    cells=tuple(
                        ClassCell(fmt_metric(vals.get(f), f), fmt_ci(ci.get(f), key=f), False) for f, _ in RATE_COLUMNS
                    ),
                    counts=(),
                )
            )
    return ModelReport(name=m.name, colour=colour, rows=tuple(rows), nir="" if t is None else nir_sentence(t))


def _deltas(result: ComparisonResult, labels: list[str], ms: Models) -> DeltaTable | None:
    comps = [c for c in result.comparisons if c.class_deltas is not None]
    if not comps:
        return None
    headers = tuple((ms.short.get(c.model, c.model), h) for c in comps for _, h in DELTA_COLUMNS)
    rows = []
    for label in labels:
        cells = []
        for c in comps:
            d = c.class_deltas
            assert d is not None
            for f, _ in DELTA_COLUMNS:
                cells.append(
                    ClassCell(
                        fmt_signed((d.delta.get(label) or {}).get(f)), fmt_ci((d.ci.get(label) or {}).get(f)), False
                    )
                )
        rows.append(DeltaRow(label, tuple(cells)))
    return DeltaTable(baseline=comps[0].baseline, headers=headers, rows=tuple(rows))


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
            tables.append(ClassTable(title=title, rows=tuple(rows)))
    reports = tuple(_model_report(result.models[n], labels, ms.colours[n]) for n in ms.names)
    return PerClassView(
        tables=tuple(tables),
        interval_note=per_class_interval_note(result),
        reports=reports,
        report_note=class_report_note(result),
        deltas=_deltas(result, labels, ms),
    )
