"""The fairness section: per protected column and model, each group's rates with intervals and
the disparities between the groups (with each challenger's change against the baseline and its
paired bootstrap interval)."""

from __future__ import annotations

from collections.abc import Mapping
from dataclasses import dataclass

from reportgen.report.formats import fmt_ci, fmt_ci_pct, fmt_count, fmt_num, fmt_pct, fmt_signed, fmt_threshold
from reportgen.report.wording import GENERIC_WORDS, Vocabulary
from reportgen.section_results import FairnessChange, FairnessColumn, FairnessSection

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
    #: a challenger: its AIR minus the baseline's, with the paired interval ("" for the reference group)
    air_change: str
    air_change_ci: str


@dataclass(frozen=True, slots=True)
class DisparityRow:
    label: str
    value: str
    ci: str
    #: the challenger's value minus the baseline's ("" for the baseline), with the paired interval
    change: str
    change_ci: str


@dataclass(frozen=True, slots=True)
class ColumnView:
    column: str
    reference: str
    groups: tuple[GroupRow, ...]
    disparities: tuple[DisparityRow, ...]
    #: a challenger: on which rows its changes are measured and how, or why they have no interval
    change_note: str


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
    #: what the AIRs are taken on, in the report's words ("approval rates (predicted non-default)")
    air_on: str


#: Why a challenger's rows could not be paired with the baseline's (FairnessChange.unpaired).
UNPAIRED = {
    "lengths_differ": "the files have different lengths and no id: is set",
    "rows_dropped": "rows were dropped (missing: drop) and no id: is set to match the rest",
    "no_common_ids": "no id is in both files",
    "reference_missing": "the reference group has no row both models score",
}


def _change_note(p: FairnessChange | None, baseline: str, level: str) -> str:
    if p is None:
        return ""
    if p.unpaired is not None:
        why = UNPAIRED.get(p.unpaired, p.unpaired)
        return f"Change against {baseline}: no paired interval, as {why}; the change is the difference of the values."
    if not p.changes_ci:
        return f"Change against {baseline} on the {fmt_count(p.rows)} rows both score (no resamples: no interval)."
    return (
        f"Change against {baseline} on the {fmt_count(p.rows)} rows both score, with its {level} paired bootstrap "
        "interval: each group's rows resampled, the same rows for both models."
    )


def _column(
    c: FairnessColumn,
    changes: Mapping[str, float | None] | None,
    line: float,
    paired: FairnessChange | None = None,
    baseline: str = "",
    level: str = "",
) -> ColumnView:
    values = {**c.disparities, "min_adverse_impact_ratio": c.min_adverse_impact_ratio}
    cis = {} if paired is None else paired.changes_ci
    air = {} if paired is None else paired.adverse_impact_ratio_changes
    air_ci = {} if paired is None else paired.adverse_impact_ratio_changes_ci
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
                air_change="" if g.group not in air else fmt_signed(air[g.group], 2),
                air_change_ci=fmt_ci(air_ci.get(g.group), 2),
            )
            for g in c.groups
        ),
        disparities=tuple(
            DisparityRow(
                label=label,
                value=fmt_num(values.get(k), 3),
                ci=fmt_ci(c.disparities_ci.get(k), 3),
                change="" if changes is None else fmt_signed(changes.get(k), 3),
                change_ci=fmt_ci(cis.get(k), 3),
            )
            for k, label in DISPARITY_LABELS.items()
        ),
        change_note=_change_note(paired, baseline, level),
    )


def fairness_view(
    section: FairnessSection | None,
    colours: Mapping[str, str],
    baseline: str,
    level: str,
    words: Vocabulary = GENERIC_WORDS,
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
                    _column(
                        c,
                        None if name == baseline else fm.changes.get(c.column, {}),
                        section.four_fifths,
                        next((p for p in fm.paired if p.column == c.column), None),
                        baseline,
                        level,
                    )
                    for c in fm.columns
                ),
            )
            for name, fm in section.models.items()
        ),
        baseline=baseline,
        four_fifths=fmt_num(section.four_fifths, 2),
        level=level,
        air_on=words.air_on(section.favourable),
    )
