"""The thresholds section: each model's optimal thresholds and how they move with prevalence."""

from __future__ import annotations

from dataclasses import dataclass

import reportgen.catalog as catalog
from reportgen.report.formats import fmt_ci, fmt_count, fmt_metric, fmt_pct, fmt_share, fmt_threshold_ci
from reportgen.report.labels import CRITERION_LABELS
from reportgen.report.views.common import Models, kept_share, optimum_threshold, rule_text
from reportgen.report.wording import optimum_label
from reportgen.results import ComparisonResult


@dataclass(frozen=True, slots=True)
class OptimumRow:
    criterion: str
    threshold: str
    value: str
    tp: str
    fp: str
    fn: str
    tn: str
    approval: str
    flagged: str
    #: the bootstrap intervals of the threshold and the value ("" without ``operating_points:``)
    threshold_ci: str = ""
    value_ci: str = ""


@dataclass(frozen=True, slots=True)
class Scenario:
    """The optimal thresholds at another share of positives, one per criterion of ``scenario_criteria``."""

    prevalence: str
    cells: tuple[str, ...]


@dataclass(frozen=True, slots=True)
class ModelOptima:
    model: str
    colour: str
    rule_t: str
    tie_rule: str
    rows: tuple[OptimumRow, ...]
    scenarios: tuple[Scenario, ...]
    scenario_criteria: tuple[str, ...]


@dataclass(frozen=True, slots=True)
class ThresholdsView:
    models: tuple[ModelOptima, ...]
    #: whether the optima carry bootstrap intervals (``operating_points:``), and how they were drawn
    intervals: bool = False
    ci_method: str = ""


def tie_rule_text(direction: str) -> str:
    """Which threshold is reported when several are optimal: the one flagging the fewest rows,
    which is the highest score for ``direction: higher`` and the lowest for ``lower``
    (the engine takes the first of the tied cuts in flagging order, :func:`reportgen.engine.binary._best`)."""
    end = "highest" if direction == "higher" else "lowest"
    return f"on ties the {end} threshold (the fewest rows flagged) is reported"


def thresholds_view(result: ComparisonResult, ms: Models) -> ThresholdsView:
    from reportgen.report.figures import PREVALENCE_CRITERIA  # noqa: PLC0415  (figures are only needed to render)

    out = []
    for n, m in result.models.items():
        rows = []
        ivs = {o.criterion: o for o in m.operating_points.optima} if m.operating_points is not None else {}
        for crit, o in m.optimal_thresholds.items():
            total = o.tp + o.fp + o.fn + o.tn
            iv = ivs.get(crit)
            rows.append(
                OptimumRow(
                    criterion=optimum_label(crit, o, CRITERION_LABELS),
                    threshold=optimum_threshold(o),
                    value=fmt_metric(o.value, crit, 4),
                    tp=fmt_count(o.tp),
                    fp=fmt_count(o.fp),
                    fn=fmt_count(o.fn),
                    tn=fmt_count(o.tn),
                    approval=kept_share(o),
                    flagged=fmt_share((o.tp + o.fp) / total if total else None, 1),
                    threshold_ci=fmt_threshold_ci(iv.threshold_ci if iv is not None else None),
                    value_ci=fmt_ci(iv.value_ci, 4) if iv is not None else "",
                )
            )
        scenarios = tuple(
            Scenario(
                prevalence=fmt_pct(sc.prevalence, 1),
                cells=tuple(
                    optimum_threshold(sc.optimal_thresholds[k]) if k in sc.optimal_thresholds else "n/a"
                    for k in PREVALENCE_CRITERIA
                ),
            )
            for sc in m.prevalence_shift
        )
        if rows:
            out.append(
                ModelOptima(
                    model=n,
                    colour=ms.colours[n],
                    rule_t=rule_text(m.direction, "t"),
                    tie_rule=tie_rule_text(m.direction),
                    rows=tuple(rows),
                    scenarios=scenarios,
                    scenario_criteria=tuple(catalog.criterion(k).short_label for k in PREVALENCE_CRITERIA),
                )
            )
    ops = [m.operating_points for m in result.models.values() if m.operating_points is not None]
    return ThresholdsView(
        models=tuple(out),
        intervals=any(o.optima for o in ops),
        ci_method="; ".join(sorted({o.ci_method for o in ops if o.optima})),
    )
