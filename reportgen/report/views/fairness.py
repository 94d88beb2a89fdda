"""The fairness section: per protected column and model, each group's rates with intervals and
the disparities between the groups (with each challenger's change against the baseline)."""

from __future__ import annotations

from collections.abc import Mapping
from dataclasses import dataclass

from reportgen.report.formats import fmt_ci, fmt_ci_pct, fmt_count, fmt_num, fmt_pct, fmt_signed, fmt_threshold
from reportgen.results import FairnessColumn, FairnessSection

#: The disparities' labels, in the section's order (keys of FairnessColumn.disparities).
DISPARITY_LABELS = {
    "demographic_parity_difference": "Demographic-parity difference (max − min selection rate)",
    "demographic_parity_ratio": "Demographic-parity ratio (min / max selection rate)",
    "equalized_odds_difference": "Equalized-odds difference (larger of the TPR and FPR differences)",
    "equalized_odds_ratio": "Equalized-odds ratio (smaller of the TPR and FPR ratios)",
    "equal_opportunity_difference": "Equal-opportunity difference (max − min TPR)",
    "min_adverse_impact_ratio": "Smallest adverse-impact ratio",
}


@dataclass(frozen=True, slots=True)
class GroupRow:
    group: str
    n: str
    positives: str
    selection: str
    selection_ci: str
    air: str
    air_ci: str
    #: below the four-fifths line: set in bold with a mark
    adverse: bool
    reference: bool
    tpr: str
    tpr_ci: str
    fpr: str
    fpr_ci: str
    precision: str
    precision_ci: str
    auc: str
    auc_ci: str


@dataclass(frozen=True, slots=True)
class DisparityRow:
    label: str
    value: str
    ci: str
    #: the challenger's value minus the baseline's ("" for the baseline)
    change: str


@dataclass(frozen=True, slots=True)
class ColumnView:
    column: str
    reference: str
    groups: tuple[GroupRow, ...]
    disparities: tuple[DisparityRow, ...]


@dataclass(frozen=True, slots=True)
class ModelFairness:
    model: str
    colour: str
    threshold: str
    challenger: bool
    columns: tuple[ColumnView, ...]


@dataclass(frozen=True, slots=True)
class FairnessView:
    models: tuple[ModelFairness, ...]
    baseline: str
    four_fifths: str
    level: str


def _column(c: FairnessColumn, changes: Mapping[str, float | None] | None, line: float) -> ColumnView:
    values = {**c.disparities, "min_adverse_impact_ratio": c.min_adverse_impact_ratio}
    return ColumnView(
        column=c.column,
        reference=c.reference,
        groups=tuple(
            GroupRow(
                group=g.group,
                n=fmt_count(g.n),
                positives=fmt_count(g.positives),
                selection=fmt_pct(g.selection_rate),
                selection_ci=fmt_ci_pct(g.selection_rate_ci, 1),
                air=fmt_num(g.adverse_impact_ratio, 2),
                air_ci=fmt_ci(g.adverse_impact_ratio_ci, 2),
                adverse=g.adverse_impact_ratio is not None and g.adverse_impact_ratio < line,
                reference=g.group == c.reference,
                tpr=fmt_pct(g.tpr),
                tpr_ci=fmt_ci_pct(g.tpr_ci, 1),
                fpr=fmt_pct(g.fpr),
                fpr_ci=fmt_ci_pct(g.fpr_ci, 1),
                precision=fmt_pct(g.precision),
                precision_ci=fmt_ci_pct(g.precision_ci, 1),
                auc=fmt_num(g.auc, 3),
                auc_ci=fmt_ci(g.auc_ci, 3, "roc_auc"),
            )
            for g in c.groups
        ),
        disparities=tuple(
            DisparityRow(
                label=label,
                value=fmt_num(values.get(k), 3),
                ci=fmt_ci(c.disparities_ci.get(k), 3),
                change="" if changes is None else fmt_signed(changes.get(k), 3),
            )
            for k, label in DISPARITY_LABELS.items()
        ),
    )


def fairness_view(
    section: FairnessSection | None, colours: Mapping[str, str], baseline: str, level: str
) -> FairnessView | None:
    """The section's view, None without a fairness section."""
    if section is None:
        return None
    return FairnessView(
        models=tuple(
            ModelFairness(
                model=name,
                colour=colours.get(name, "#777777"),
                threshold=fmt_threshold(fm.threshold),
                challenger=name != baseline,
                columns=tuple(
                    _column(c, None if name == baseline else fm.changes.get(c.column, {}), section.four_fifths)
                    for c in fm.columns
                ),
            )
            for name, fm in section.models.items()
        ),
        baseline=baseline,
        four_fifths=fmt_num(section.four_fifths, 2),
        level=level,
    )
