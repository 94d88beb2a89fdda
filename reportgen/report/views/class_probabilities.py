"""The calibration section of a multiclass report: each model's probabilities judged as
probabilities (``ModelResult.class_probabilities``): Brier score, class-wise and top-label ECE,
top-k accuracy, the cost-optimal rule against argmax, and the top-label reliability figure."""

from __future__ import annotations

from dataclasses import dataclass

from reportgen.option_results import ClassProbabilities
from reportgen.report.formats import fmt_ci, fmt_count, fmt_metric, fmt_signed
from reportgen.report.views.common import Models
from reportgen.results import ComparisonResult

#: Why a value is n/a, by reason code.
_WHY = {
    "proba_outside_unit": "scores outside [0, 1]",
    "two_classes": "two classes",
    "no_cost_matrix": "no cost matrix",
}


@dataclass(frozen=True, slots=True)
class ProbabilityRow:
    label: str
    better: str
    cells: tuple[str, ...]
    #: per model, why its value is n/a ("" when it has one)
    why: tuple[str, ...]


@dataclass(frozen=True, slots=True)
class CostMatrix:
    """One model's confusion matrix under the cost-optimal rule (rows = true class)."""

    model: str
    colour: str
    rows: tuple[tuple[str, tuple[str, ...]], ...]


@dataclass(frozen=True, slots=True)
class BrierChange:
    """A challenger's Brier score minus the baseline's, with its paired interval."""

    model: str
    colour: str
    delta: str
    ci: str


@dataclass(frozen=True, slots=True)
class ClassProbabilitiesView:
    models: tuple[str, ...]
    colours: tuple[str, ...]
    rows: tuple[ProbabilityRow, ...]
    bins: int
    top_k: str
    classes: tuple[str, ...]
    costs: tuple[CostMatrix, ...]
    #: the cost-optimal matrices print on landscape pages, as the confusion section's K×K matrices
    #: (:attr:`~reportgen.report.views.confusion.ConfusionView.wide`): 12 long class names ran past a
    #: portrait page's right margin
    wide: bool
    #: each challenger's Brier change against ``baseline`` (empty with one model)
    changes: tuple[BrierChange, ...] = ()
    baseline: str = ""


def _rows(ps: list[ClassProbabilities | None], top_k: str) -> tuple[ProbabilityRow, ...]:
    spec = (
        ("brier", "Brier score (sum over classes)", "lower"),
        ("ece_classwise", "Class-wise ECE", "lower"),
        ("ece_top_label", "Top-label ECE", "lower"),
        ("top_k_accuracy", f"Top-{top_k} accuracy", "higher"),
        ("expected_cost_argmax", "Expected cost per row, most probable class", "lower"),
        ("expected_cost_optimal", "Expected cost per row, cost-optimal rule", "lower"),
    )
    rows = []
    for key, label, better in spec:
        vals = [None if p is None else getattr(p, key) for p in ps]
        if all(v is None for v in vals) and key in ("top_k_accuracy", "expected_cost_argmax", "expected_cost_optimal"):
            continue  # not configured for any model: no row of n/a
        why = tuple(
            "" if p is None or v is not None else _WHY.get(p.reasons.get(key, ""), "") for p, v in zip(ps, vals)
        )
        cells = tuple(
            " ".join(filter(None, (fmt_metric(v, None, 4), fmt_ci(None if p is None else p.ci.get(key), 4))))
            for p, v in zip(ps, vals)
        )
        rows.append(ProbabilityRow(label, "↓ lower" if better == "lower" else "↑ higher", cells, why))
    return tuple(rows)


def class_probabilities_view(result: ComparisonResult, ms: Models) -> ClassProbabilitiesView | None:
    """The section's tables, or None when no model has class probabilities."""
    names = [n for n in ms.names if result.models[n].class_probabilities is not None]
    if ms.binary or not names:
        return None
    ps = [result.models[n].class_probabilities for n in names]
    ks = {p.top_k for p in ps if p is not None and p.top_k is not None}
    top_k = str(next(iter(ks))) if len(ks) == 1 else "k"
    classes = tuple(result.run.classes or [])
    costs = []
    for n, p in zip(names, ps):
        if p is not None and p.cost_optimal_confusion is not None:
            rows = tuple((c, tuple(fmt_count(v) for v in row)) for c, row in zip(classes, p.cost_optimal_confusion))
            costs.append(CostMatrix(n, ms.colours[n], rows))
    bins = next((p.bins for p in ps if p is not None), 10)
    changes = tuple(
        BrierChange(
            c.model,
            ms.colours[c.model],
            fmt_signed(c.calibration.delta.get("brier"), 4),
            fmt_ci(ci, 4) if (ci := c.calibration.ci.get("brier")) else c.calibration.ci_method,
        )
        for c in result.comparisons
        if c.calibration is not None and c.model in names and "brier" in c.calibration.delta
    )
    return ClassProbabilitiesView(
        models=tuple(names),
        colours=tuple(ms.colours[n] for n in names),
        rows=_rows(ps, top_k),
        bins=bins,
        top_k=top_k,
        classes=classes,
        costs=tuple(costs),
        wide=len(classes) > 8,
        changes=changes,
        baseline=result.comparisons[0].baseline if changes else "",
    )
