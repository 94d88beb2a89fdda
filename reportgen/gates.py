"""Gates: the config's ``checks:`` rules evaluated on a finished result.

A scheduler (cron, Airflow) acts on the exit code, not on prose: ``reportgen run`` exits 3 when
a check fails (see :mod:`reportgen.cli`). Two kinds of rule:

* a metric bound, ``{model: challenger, metric: gini, at_least: 0.45}``: the model's value of
  the metric (``models.NAME.metrics``) must be ≥ ``at_least`` or ≤ ``at_most``; without
  ``model`` the rule applies to every model (one result per model). An undefined value (null)
  fails: a gate that cannot be evaluated must alert, not pass silently.
* a comparison, ``{comparison: challenger, must_not_be: worse}``: the challenger must not be
  significantly worse than the baseline on the primary metric (see :func:`comparison_outcome`).
  An undefined outcome fails for the same reason.

Fairness (``fairness:``) adds metric bounds on the worst protected column: the smallest
adverse-impact ratio, the largest DP / EO difference, and for a challenger its change against
the baseline (:data:`reportgen.catalog.FAIRNESS_CHANGE_METRICS`: the AIR must not fall by more than
``at_least: -0.05``; ``adverse_impact_ratio_change_upper: {at_least: 0}``: the paired interval of
the change must not lie wholly below 0).

Pure functions of the result and the config's rules; nothing here reads or writes files.
"""

from __future__ import annotations

from collections.abc import Sequence
from typing import TYPE_CHECKING, Literal

import reportgen.catalog as catalog
from reportgen.config import CheckConfig
from reportgen.engine.compare import DELONG_METRICS
from reportgen.engine.multiplicity import alpha_of
from reportgen.results import Comparison, ComparisonResult

if TYPE_CHECKING:
    from reportgen.option_results import CheckResult
    from reportgen.section_results import FairnessModel

Outcome = Literal["better", "worse", "no_difference", "undefined"]


def comparison_outcome(c: Comparison, level: float) -> Outcome:
    """Which way ``c.model`` differs from the baseline on the primary metric, at ``level``.

    Significance is what the verdict sentence uses: for ROC AUC and Gini the DeLong test's
    p-value (Holm-adjusted when several models are compared) below ``1 − level``; for other
    metrics, the ``level`` interval of the paired difference excluding 0 (the verdict's
    bootstrap p-value is not kept in the result; the percentile interval is its dual).
    The sign of the delta and the metric's better direction (catalogue) give better / worse.

    One small function on purpose: when comparisons carry their own ``significant`` /
    ``direction`` fields, this is the one place to switch to them.
    """
    pm = c.primary_metric
    delta = c.delta.get(pm)
    if delta is None:
        return "undefined"
    d = c.decision
    if d is not None:  # the run's one multiplicity policy (Holm over the family), as the verdict says
        if d.significant is None:
            return "undefined"
        return "no_difference" if d.direction == "inconclusive" else d.direction
    dl = c.tests.delong
    if pm in DELONG_METRICS and dl is not None:
        p = dl.p_value_holm if dl.p_value_holm is not None else dl.p_value
        significant = p < alpha_of(level)
    else:
        ci = c.ci.get(pm)
        if not ci or ci[0] is None or ci[1] is None:
            return "undefined"
        significant = ci[0] > 0.0 or ci[1] < 0.0
    if not significant or delta == 0:
        return "no_difference"
    good = (delta > 0) == ((catalog.metric(pm).better or "higher") == "higher")
    return "better" if good else "worse"


def _metric_checks(rule: CheckConfig, result: ComparisonResult) -> list[CheckResult]:
    from reportgen.option_results import CheckResult  # noqa: PLC0415 (a run without checks never builds one)

    metric = rule.metric
    assert metric is not None  # the config model guarantees it
    bound: Literal["at_least", "at_most"] = "at_least" if rule.at_least is not None else "at_most"
    limit = rule.at_least if rule.at_least is not None else rule.at_most
    assert limit is not None
    words = "at least" if bound == "at_least" else "at most"
    names = [rule.model] if rule.model is not None else list(result.models)
    if metric in catalog.FAIRNESS_CHANGE_METRICS and rule.model is None:  # a change: challengers only
        names = [n for n in names if n != result.run.baseline]
    out = []
    for name in names:
        m = result.models[name]
        if metric in catalog.CREDIT_CHECK_METRICS:
            value, why = _credit_value(result, name, metric)
        elif metric in catalog.FAIRNESS_CHECK_METRICS:
            value, why = _fairness_value(result, name, metric)
        elif metric in catalog.SEGMENT_CHECK_METRICS:
            value, why = _segment_value(result, name)
        else:
            value, why = m.metrics.get(metric), m.undefined.get(metric, "not computed")
        text = f"{name}: {metric} {words} {limit:g}"
        if value is None:
            out.append(
                CheckResult(text, "metric", False, f"{metric} is undefined ({why})", name, metric, bound, limit, None)
            )
            continue
        passed = value >= limit if bound == "at_least" else value <= limit
        shown = f"{value:.4f}"
        if value != limit and float(shown) == round(limit, 4):  # 0.44999 is not "0.4500, below 0.45"
            shown = f"{value:.12g}"
        detail = f"{metric} = {shown}" + (
            "" if passed else f", {'below' if bound == 'at_least' else 'above'} {limit:g}"
        )
        out.append(CheckResult(text, "metric", passed, detail, name, metric, bound, limit, value))
    return out


def _credit_value(result: ComparisonResult, name: str, metric: str) -> tuple[float | None, str]:
    """A credit-section number of model ``name`` (:data:`reportgen.catalog.CREDIT_CHECK_METRICS`),
    or None with the reason it is missing."""
    sec = result.credit
    if sec is None:
        return None, "no credit validation section in this run"
    cm = sec.models.get(name)
    if cm is None:
        return (
            None,
            f"the credit section has no numbers for this model ({', '.join(sec.capabilities.values()) or 'n/a'})",
        )
    if metric == "psi":
        if cm.stability is None:
            return None, "no reference sample (models[].reference)"
        return cm.stability.psi.statistic, "the PSI is undefined"
    raise ValueError(f"unknown credit check metric {metric!r}")


def _segment_value(result: ComparisonResult, name: str) -> tuple[float | None, str]:
    """Segment values where challenger ``name`` is significantly worse than the baseline (Holm
    over each column's values); None for the baseline or without the section."""
    sec = result.segments
    if sec is None:
        return None, "no segments section in this run"
    if name == sec.baseline:
        return None, "the baseline is not compared with itself"
    worse = [d for c in sec.columns for v in c.values for d in v.deltas if d.model == name and d.direction == "worse"]
    return float(len(worse)), ""


def _fairness_value(result: ComparisonResult, name: str, metric: str) -> tuple[float | None, str]:
    """The worst fairness number of model ``name`` over its protected columns
    (:data:`reportgen.catalog.FAIRNESS_CHECK_METRICS`): the smallest adverse-impact ratio, the
    largest difference; None with the reason when a column has none (a gate that cannot be
    evaluated fails)."""
    sec = result.fairness
    fm = None if sec is None else sec.models.get(name)
    if fm is None:
        return None, "no fairness section for this model in this run"
    if metric in catalog.FAIRNESS_CHANGE_METRICS:
        return _fairness_change(fm, metric)
    if metric == "adverse_impact_ratio":
        values = [c.min_adverse_impact_ratio for c in fm.columns]
    else:
        values = [c.disparities.get(metric) for c in fm.columns]
    if not values or any(v is None for v in values):
        return None, "undefined for a protected column (a group with no rows selected, or one group only)"
    return (min(values) if metric == "adverse_impact_ratio" else max(values)), ""  # type: ignore[type-var]


def _fairness_change(fm: FairnessModel, metric: str) -> tuple[float | None, str]:
    """A challenger's worst change against the baseline over its protected columns
    (:data:`reportgen.catalog.FAIRNESS_CHANGE_METRICS`), or None with the reason."""
    if not fm.changes:
        return None, "the baseline has no change against itself"
    if metric == "adverse_impact_ratio_change_upper":
        paired = {p.column: p for p in fm.paired}
        values: list[float | None] = []
        for column in fm.changes:
            p = paired.get(column)
            ci = None if p is None else p.changes_ci.get("min_adverse_impact_ratio")
            if ci is None:
                why = "no resamples" if p is None or p.unpaired is None else f"rows not paired: {p.unpaired}"
                return None, f"no paired interval for column {column} ({why})"
            values.append(ci[1])
    else:
        key = {"adverse_impact_ratio_change": "min_adverse_impact_ratio"}.get(metric, metric.removesuffix("_change"))
        values = [c.get(key) for c in fm.changes.values()]
    if not values or any(v is None for v in values):
        return None, "undefined for a protected column (a group with no rows selected, or one group only)"
    lowest = metric.startswith("adverse_impact_ratio")
    return (min(values) if lowest else max(values)), ""  # type: ignore[type-var]


def _comparison_check(rule: CheckConfig, result: ComparisonResult) -> CheckResult:
    from reportgen.option_results import CheckResult  # noqa: PLC0415 (a run without checks never builds one)

    name = rule.comparison
    assert name is not None
    text = f"{name} must not be worse than {result.run.baseline}"
    c = next((c for c in result.comparisons if c.model == name), None)
    if c is None:
        return CheckResult(
            text,
            "comparison",
            False,
            f"no comparison of {name} with the baseline in this result",
            name,
            None,
            "must_not_be_worse",
            None,
            None,
            "undefined",
        )
    outcome = comparison_outcome(c, result.run.confidence_level)
    pm, delta = c.primary_metric, c.delta.get(c.primary_metric)
    level = f"{result.run.confidence_level * 100:g} %"
    shown = "undefined" if delta is None else f"{delta:+.4f}"
    detail = {
        "better": f"significantly better on {pm} (Δ {shown}, {level} level)",
        "no_difference": f"no significant difference on {pm} (Δ {shown}, {level} level)",
        "worse": f"significantly worse on {pm} (Δ {shown}, {level} level)",
        "undefined": f"the difference on {pm} cannot be tested (Δ {shown}); a gate that cannot be evaluated fails",
    }[outcome]
    passed = outcome in ("better", "no_difference")
    return CheckResult(text, "comparison", passed, detail, name, pm, "must_not_be_worse", None, delta, outcome)


def evaluate(rules: Sequence[CheckConfig], result: ComparisonResult) -> list[CheckResult]:
    """Every rule's results, in the config's order (a rule without ``model``: one per model)."""
    out: list[CheckResult] = []
    for rule in rules:
        if rule.comparison is not None:
            out.append(_comparison_check(rule, result))
        else:
            out.extend(_metric_checks(rule, result))
    return out


def failed(result: ComparisonResult) -> list[CheckResult]:
    """The checks of ``result`` that failed."""
    return [c for c in result.checks if not c.passed]
