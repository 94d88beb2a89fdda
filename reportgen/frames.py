"""A result as tidy tables: one pandas DataFrame per kind of fact, one row per fact.

:meth:`ComparisonResult.frames() <reportgen.results.ComparisonResult.frames>` returns them; the
``--format csv`` and ``--format xlsx`` exports are these frames written out
(:mod:`reportgen.report.export`), so a number in a spreadsheet is the number a notebook sees.

Every frame has the columns of :data:`COLUMNS` in that order and those dtypes, whatever the run
holds (an empty frame too): numbers ``float64`` (an undefined value is NaN: its reason is in
``undefined`` where the result records one), counts of rows ``int64`` (``Int64`` when they may be
missing), text pandas' ``string`` dtype (missing: ``<NA>``), flags ``bool``. Only facts, never
sentences: a verdict is its direction (``better``, ``worse``, ``inconclusive``), an undefined
metric its reason code (``reportgen.results.UndefinedCode``).
The frames of a result and of the same result read back from its ``metrics.json`` are equal.

pandas is imported when a frame is built, never by :mod:`reportgen.results` (start-up time).
"""

from __future__ import annotations

from collections.abc import Iterable, Sequence
from typing import TYPE_CHECKING, Any

import reportgen.catalog as catalog

if TYPE_CHECKING:
    import pandas as pd

#: A :class:`~reportgen.results.ComparisonResult` or one of its parts. This module sits below
#: :mod:`reportgen.results` (whose ``frames()`` imports it), so it imports no result type: results
#: stays a leaf, its only companions leaves themselves.
Result = Any

_F, _S, _B, _I, _IN = "float64", "string", "bool", "int64", "Int64"  # Int64: pandas' integer with <NA>

#: Each frame's columns and dtypes, in order. ``metrics``, ``comparisons`` and ``thresholds`` are
#: always there; the others only when the run has them (``operating_points*``: ``operating_points:``;
#: ``per_class``, ``class_*``: multiclass; ``checks``: ``checks:``; ``trend``: ``history:``;
#: ``credit_*``: ``credit:``; ``segments``: ``segments:``; ``bands``: binary; ``fairness_*``: ``fairness:``).
COLUMNS: dict[str, dict[str, str]] = {
    "metrics": {
        "model": _S,
        "metric": _S,
        "value": _F,
        "ci_low": _F,
        "ci_high": _F,
        "method": _S,  # how the interval was made
        "better": _S,  # "higher" or "lower" is better; <NA> when neither
        "undefined": _S,  # why the value is undefined (a reason code)
    },
    "comparisons": {
        "model": _S,
        "baseline": _S,
        "metric": _S,
        "delta": _F,  # model - baseline
        "relative_delta": _F,
        "ci_low": _F,  # the delta's interval (unadjusted, at the run's confidence level)
        "ci_high": _F,
        "p_value": _F,
        "p_adjusted": _F,  # Holm-adjusted within `family`
        "family": _S,  # the Holm family: verdicts, delong, mcnemar
        "test": _S,  # the test that gave p_value
        "method": _S,  # how the interval was made
        "primary": _B,  # the run's primary metric (the verdict's)
        "verdict": _S,  # the primary metric's verdict: better, worse, inconclusive
    },
    "thresholds": {
        "model": _S,
        "criterion": _S,
        "threshold": _F,
        "value": _F,
        "tp": _F,
        "fp": _F,
        "fn": _F,
        "tn": _F,
        "approval_rate": _F,  # share predicted negative (approved), (tn + fn) / total
        # bootstrap intervals of the threshold and its value (operating_points:), else NaN
        "threshold_ci_low": _F,
        "threshold_ci_high": _F,
        "value_ci_low": _F,
        "value_ci_high": _F,
    },
    "operating_points": {
        "model": _S,
        "kind": _S,  # tpr_at_fpr or precision_at_recall
        "at": _F,  # the configured FPR or recall
        "value": _F,
        "ci_low": _F,
        "ci_high": _F,
        "method": _S,
    },
    "operating_point_deltas": {
        "model": _S,
        "baseline": _S,
        "kind": _S,
        "at": _F,
        "delta": _F,  # model - baseline
        "ci_low": _F,
        "ci_high": _F,
        "p_value": _F,  # descriptive: not adjusted, no verdict
        "paired": _B,
        "method": _S,
    },
    "per_class": {
        "model": _S,
        "class": _S,
        "metric": _S,
        "value": _F,
        "ci_low": _F,
        "ci_high": _F,
        "method": _S,
    },
    "class_averages": {  # multiclass: averages over classes, and accuracy against the no-information rate
        "model": _S,
        "average": _S,  # macro, weighted, micro; no_information (metric nir, accuracy or p_value)
        "metric": _S,
        "value": _F,
        "ci_low": _F,
        "ci_high": _F,
        "method": _S,
    },
    "class_deltas": {  # multiclass: each challenger's per-class change from the baseline
        "model": _S,
        "baseline": _S,
        "class": _S,
        "metric": _S,
        "delta": _F,  # model - baseline
        "ci_low": _F,  # paired interval
        "ci_high": _F,
        "method": _S,
    },
    "class_probabilities": {  # multiclass: Brier, ECEs, top-k accuracy, expected costs of argmax and the cost-optimal rule
        "model": _S,
        "metric": _S,
        "value": _F,
        "ci_low": _F,  # bootstrap interval (top_k_accuracy)
        "ci_high": _F,
        "undefined": _S,  # why the value is undefined (a reason code)
    },
    "checks": {
        "rule": _S,
        "kind": _S,
        "model": _S,
        "metric": _S,
        "passed": _B,
        "value": _F,
        "limit": _F,
        "outcome": _S,
        "detail": _S,
    },
    "trend": {
        "run_id": _S,
        "created": _S,
        "subject": _S,
        "kind": _S,
        "metric": _S,
        "value": _F,
        "ci_low": _F,
        "ci_high": _F,
    },
    "credit_grades": {
        "model": _S,
        "grade": _S,
        "lower": _F,
        "upper": _F,
        "n": _I,
        "defaults": _I,
        "default_rate": _F,
        "dr_ci_low": _F,
        "dr_ci_high": _F,
        "mean_pd": _F,
        "share": _F,
        "monotonic_violation": _B,
        "few_defaults": _B,
        "jeffreys_p": _F,
        "jeffreys_light": _S,
        "binomial_p": _F,
        "binomial_light": _S,
    },
    "credit_tests": {
        "model": _S,
        "test": _S,
        "statistic": _F,
        "p_value": _F,
        "light": _S,
        "df": _IN,
        "reason": _S,
    },
    "credit_groups": {
        "model": _S,
        "by": _S,  # "period" or "segment"
        "key": _S,
        "n": _I,
        "defaults": _I,
        "default_rate": _F,
        "mean_pd": _F,
        "auc": _F,
        "gini": _F,
        "gini_ci_low": _F,
        "gini_ci_high": _F,
        "ks": _F,
        "few_defaults": _B,
    },
    "segments": {  # one row per segment column, value, model and key metric (an untested value: one row)
        "column": _S,
        "segment": _S,  # the value
        "rows": _I,
        "positives": _I,
        "tested": _B,
        "model": _S,
        "metric": _S,
        "value": _F,
        "ci_low": _F,
        "ci_high": _F,
        "method": _S,
        "delta": _F,  # a challenger's primary metric minus the baseline's (the primary metric's row only)
        "delta_ci_low": _F,
        "delta_ci_high": _F,
        "p_value": _F,
        "p_adjusted": _F,  # Holm over the column's tested values (family segments)
        "direction": _S,  # better, worse, inconclusive
    },
    "bands": {  # the score-band (decile) table, one row per model x band, riskiest band first
        "model": _S,
        "band": _I,
        "score_first": _F,
        "score_last": _F,
        "rows": _F,  # weights when the table is weighted
        "positives": _F,
        "rate": _F,
        "capture": _F,  # cumulative
        "share_of_rows": _F,  # cumulative
        "lift": _F,  # cumulative
        "band_lift": _F,
        "ks": _F,
    },
    "fairness_groups": {  # one row per model x protected column x group x metric
        "model": _S,
        "column": _S,
        "group": _S,
        "reference": _B,  # the column's reference group (of the adverse-impact ratios)
        "n": _I,
        "positives": _I,
        "metric": _S,  # selection_rate, tpr, fpr, precision, auc, adverse_impact_ratio
        "value": _F,
        "ci_low": _F,
        "ci_high": _F,
        "method": _S,
        "favourable": _S,  # the outcome the adverse-impact ratios are taken on: flagged | not_flagged
    },
    "fairness_disparities": {  # one row per model x protected column x between-group measure
        "model": _S,
        "column": _S,
        "measure": _S,
        "value": _F,
        "ci_low": _F,
        "ci_high": _F,
        "method": _S,
        "favourable": _S,  # the outcome the adverse-impact ratios are taken on: flagged | not_flagged
    },
    "fairness_changes": {  # a challenger's change against the baseline, paired intervals
        "model": _S,
        "baseline": _S,
        "column": _S,
        "group": _S,  # the group of an adverse_impact_ratio change; <NA> for a between-group measure
        "measure": _S,
        "delta": _F,  # model - baseline
        "ci_low": _F,
        "ci_high": _F,
        "method": _S,
        "rows": _IN,  # rows both models score; <NA> when unpaired
        "unpaired": _S,  # why the rows could not be paired
        "favourable": _S,  # the outcome the adverse-impact ratios are taken on: flagged | not_flagged
    },
}

Row = list[Any]


def _ci(ci: Sequence[float] | None) -> Row:
    return [ci[0], ci[1]] if ci else [None, None]


def _metrics(result: Result) -> Iterable[Row]:
    better = catalog.better(result.run.task)
    for name, m in result.models.items():
        for k, v in m.metrics.items():
            reason = m.undefined_reasons.get(k)
            yield [
                name,
                k,
                v,
                *_ci(m.ci.get(k)),
                m.ci_method.get(k),
                better.get(k),
                reason.code if reason is not None else None,
            ]


def _tested(c: Result, k: str) -> tuple[float | None, float | None, str | None, str | None]:
    """``(p, adjusted p, family, test)`` of delta ``k``: the verdict's for the primary metric, DeLong's
    for the AUC and Gini (one test: Gini = 2 AUC - 1), McNemar's for accuracy; none otherwise."""
    d, dl, mc = c.decision, c.tests.delong, c.tests.mcnemar
    if d is not None and k == d.metric:
        return d.p_value, d.p_value_adjusted, d.family, d.method
    if dl is not None and k in ("roc_auc", "gini"):
        return dl.p_value, dl.p_value_holm, dl.family or "delong", "DeLong (paired)" if dl.paired else "DeLong"
    if mc is not None and k == "accuracy":
        return mc.p_value, mc.p_value_holm, mc.family or "mcnemar", f"McNemar ({mc.method})"
    return None, None, None, None


def _comparisons(result: Result) -> Iterable[Row]:
    for c in result.comparisons:
        for k, delta in c.delta.items():
            p, p_adj, family, test = _tested(c, k)
            primary = k == c.primary_metric
            yield [
                c.model,
                c.baseline,
                k,
                delta,
                c.relative_delta.get(k),
                *_ci(c.ci.get(k)),
                p,
                p_adj,
                family,
                test,
                c.ci_method.get(k),
                primary,
                c.decision.direction if primary and c.decision is not None else None,
            ]


def _thresholds(result: Result) -> Iterable[Row]:
    for name, m in result.models.items():
        ivs = {} if m.operating_points is None else {o.criterion: o for o in m.operating_points.optima}
        for key, o in m.optimal_thresholds.items():
            total = o.tp + o.fp + o.fn + o.tn
            iv = ivs.get(key)
            yield [
                name,
                key,
                o.threshold,
                o.value,
                o.tp,
                o.fp,
                o.fn,
                o.tn,
                (o.tn + o.fn) / total if total else None,
                *_ci(None if iv is None else iv.threshold_ci),
                *_ci(None if iv is None else iv.value_ci),
            ]


def _operating_points(result: Result) -> Iterable[Row]:
    for name, m in result.models.items():
        op = m.operating_points
        for p in () if op is None else op.points:
            yield [name, p.kind, p.at, p.value, *_ci(p.ci), op.ci_method]


def _operating_point_deltas(result: Result) -> Iterable[Row]:
    for c in result.comparisons:
        for d in c.operating_points:
            yield [c.model, c.baseline, d.kind, d.at, d.delta, *_ci(d.ci), d.p_value, d.paired, d.ci_method]


def _per_class(result: Result) -> Iterable[Row]:
    for name, m in result.models.items():
        for cls, values in (m.per_class or {}).items():
            cis = m.per_class_ci.get(cls, {})
            for k, v in values.items():
                yield [name, cls, k, v, *_ci(cis.get(k)), m.per_class_ci_method.get(k)]


def _class_averages(result: Result) -> Iterable[Row]:
    for name, m in result.models.items():
        if (t := m.classification) is None:
            continue
        for avg, values in t.averages.items():
            cis = t.averages_ci.get(avg, {})
            for k, v in values.items():
                yield [name, avg, k, v, *_ci(cis.get(k)), t.ci_method if k in cis else None]
        for k, v in (("accuracy", t.accuracy), ("nir", t.nir), ("p_value", t.nir_p_value)):
            yield [name, "no_information", k, v, None, None, None]


def _class_deltas(result: Result) -> Iterable[Row]:
    for c in result.comparisons:
        if (d := c.class_deltas) is None:
            continue
        for cls, values in d.delta.items():
            cis = d.ci.get(cls, {})
            for k, v in values.items():
                yield [c.model, c.baseline, cls, k, v, *_ci(cis.get(k)), d.ci_method.get(k) if k in cis else None]


def _class_probabilities(result: Result) -> Iterable[Row]:
    keys = (
        "brier",
        "ece_classwise",
        "ece_top_label",
        "top_k_accuracy",
        "expected_cost_argmax",
        "expected_cost_optimal",
    )
    for name, m in result.models.items():
        if (p := m.class_probabilities) is not None:
            for k in keys:
                lo, hi = p.ci.get(k, (None, None))
                yield [name, k, getattr(p, k), lo, hi, p.reasons.get(k)]


def _checks(result: Result) -> Iterable[Row]:
    for c in result.checks:
        yield [c.rule, c.kind, c.model, c.metric, c.passed, c.value, c.limit, c.outcome, c.detail]


def _trend(result: Result) -> Iterable[Row]:
    for t in result.trend:
        yield [t.run_id, t.created, t.subject, t.kind, t.metric, t.value, *_ci(t.ci)]


def _credit_grades(result: Result) -> Iterable[Row]:
    for name, cm in _credit_models(result):
        for g in cm.grades:
            yield [
                name,
                g.grade,
                g.lower,
                g.upper,
                g.n,
                g.defaults,
                g.default_rate,
                *_ci(g.dr_interval),
                g.mean_pd,
                g.share,
                g.monotonic_violation,
                g.few_defaults,
                *_p_light(g.jeffreys),
                *_p_light(g.binomial),
            ]


def _p_light(t: Result) -> Row:
    return [None, None] if t is None else [t.p_value, t.light]


def _credit_tests(result: Result) -> Iterable[Row]:
    """Every portfolio test of each model (the grade-level tests are columns of ``credit_grades``)."""
    for name, cm in _credit_models(result):
        tests: list[tuple[str, Result]] = []
        cal = cm.calibration
        if cal is not None:
            tests += [
                ("jeffreys", cal.jeffreys),
                ("binomial", cal.binomial),
                ("hosmer_lemeshow", cal.hosmer_lemeshow),
                ("spiegelhalter", cal.spiegelhalter),
                ("calibration_in_the_large", cal.in_the_large_test),
                ("calibration_slope", cal.slope_test),
                ("calibration_intercept", cal.intercept_test),
            ]
            if cal.binomial_correlated is not None:
                tests.append(("binomial_correlated", cal.binomial_correlated.test))
        if cm.period_tests is not None:
            tests.append(("normal_over_periods", cm.period_tests.normal_test))
        if cm.auc_history is not None:
            tests.append(("auc_against_initial", cm.auc_history.test))
        if cm.stability is not None:
            tests += [("psi", cm.stability.psi), ("concentration", cm.stability.concentration_test)]
        for key, t in tests:
            if t is not None:
                yield [name, key, t.statistic, t.p_value, t.light, t.df, t.reason]


def _credit_groups(result: Result) -> Iterable[Row]:
    for name, cm in _credit_models(result):
        for by, groups in (("period", cm.periods), ("segment", cm.segments)):
            for g in groups:
                yield [
                    name,
                    by,
                    g.key,
                    g.n,
                    g.defaults,
                    g.default_rate,
                    g.mean_pd,
                    g.auc,
                    g.gini,
                    *_ci(g.gini_ci),
                    g.ks,
                    g.few_defaults,
                ]


def _segments(result: Result) -> Iterable[Row]:
    sec = result.segments
    if sec is None:
        return
    for c in sec.columns:
        for v in c.values:
            head = [c.column, v.value, v.rows, v.positives, v.tested]
            if not v.tested:
                yield [*head, *([None] * 12)]
                continue
            deltas = {d.model: d for d in v.deltas}
            for m in v.models:
                for k, x in m.metrics.items():
                    d = deltas.get(m.model) if k == sec.primary_metric else None
                    tail = (
                        [None] * 6 if d is None else [d.delta, *_ci(d.ci), d.p_value, d.p_value_adjusted, d.direction]
                    )
                    yield [*head, m.model, k, x, *_ci(m.ci.get(k)), m.ci_method.get(k), *tail]


def _credit_models(result: Result) -> Iterable[tuple[str, Result]]:
    return () if result.credit is None else result.credit.models.items()


def _bands(result: Result) -> Iterable[Row]:
    for name, m in result.models.items():
        for b in () if m.bands is None else m.bands.rows:
            yield [
                name,
                b.band,
                b.score_first,
                b.score_last,
                b.rows,
                b.positives,
                b.rate,
                b.capture,
                b.share_of_rows,
                b.lift,
                b.band_lift,
                b.ks,
            ]


#: How each per-group interval is made (reportgen.engine.fairness).
_GROUP_METHODS = {
    "selection_rate": "Wilson",
    "tpr": "Wilson",
    "fpr": "Wilson",
    "precision": "Wilson",
    "auc": "DeLong",
    "adverse_impact_ratio": "bootstrap percentile (group count tables)",
}


def _fairness_models(result: Result) -> Iterable[tuple[str, Result]]:
    return () if result.fairness is None else result.fairness.models.items()


def _fairness_groups(result: Result) -> Iterable[Row]:
    fav = None if result.fairness is None else result.fairness.favourable
    for name, fm in _fairness_models(result):
        for c in fm.columns:
            for g in c.groups:
                for k, method in _GROUP_METHODS.items():
                    ci = getattr(g, f"{k}_ci")
                    yield [
                        name,
                        c.column,
                        g.group,
                        g.group == c.reference,
                        g.n,
                        g.positives,
                        k,
                        getattr(g, k),
                        *_ci(ci),
                        method if ci else None,
                        fav,
                    ]


def _fairness_disparities(result: Result) -> Iterable[Row]:
    fav = None if result.fairness is None else result.fairness.favourable
    for name, fm in _fairness_models(result):
        for c in fm.columns:
            values = {**c.disparities, "min_adverse_impact_ratio": c.min_adverse_impact_ratio}
            for k, v in values.items():
                ci = c.disparities_ci.get(k)
                method = "bootstrap percentile (group count tables)" if ci else None
                yield [name, c.column, k, v, *_ci(ci), method, fav]


def _fairness_changes(result: Result) -> Iterable[Row]:
    fav = None if result.fairness is None else result.fairness.favourable
    for name, fm in _fairness_models(result):
        paired = {p.column: p for p in fm.paired}
        for column, changes in fm.changes.items():
            p = paired.get(column)
            rows, why, method = (None, None, None) if p is None else (p.rows, p.unpaired, p.method)
            cis = {} if p is None else p.changes_ci
            for k, v in changes.items():  # the paired point when paired (FairnessModel.changes)
                ci = cis.get(k)
                yield [name, result.run.baseline, column, None, k, v, *_ci(ci), method if ci else None, rows, why, fav]
            if p is not None:
                for g, v in p.adverse_impact_ratio_changes.items():
                    ci = p.adverse_impact_ratio_changes_ci.get(g)
                    yield [
                        name,
                        result.run.baseline,
                        column,
                        g,
                        "adverse_impact_ratio",
                        v,
                        *_ci(ci),
                        method if ci else None,
                        rows,
                        why,
                        fav,
                    ]


_ROWS = {
    "metrics": _metrics,
    "comparisons": _comparisons,
    "thresholds": _thresholds,
    "operating_points": _operating_points,
    "operating_point_deltas": _operating_point_deltas,
    "per_class": _per_class,
    "class_averages": _class_averages,
    "class_deltas": _class_deltas,
    "class_probabilities": _class_probabilities,
    "checks": _checks,
    "trend": _trend,
    "credit_grades": _credit_grades,
    "credit_tests": _credit_tests,
    "credit_groups": _credit_groups,
    "segments": _segments,
    "bands": _bands,
    "fairness_groups": _fairness_groups,
    "fairness_disparities": _fairness_disparities,
    "fairness_changes": _fairness_changes,
}
#: The frames every result has, even when empty (a model without optimal thresholds).
ALWAYS = ("metrics", "comparisons", "thresholds")


def frame(rows: Iterable[Row], columns: dict[str, str]) -> pd.DataFrame:
    """Rows as a DataFrame of exactly ``columns`` (name -> dtype); None becomes NaN or <NA>."""
    import pandas as pd  # noqa: PLC0415  (pandas only when frames are asked for)

    data = list(zip(*rows)) or [()] * len(columns)
    return pd.DataFrame(
        {name: pd.Series(values, dtype=_pandas_dtype(dtype)) for (name, dtype), values in zip(columns.items(), data)}
    )


def _pandas_dtype(dtype: str) -> Any:
    """``string`` as pandas' StringDtype backed by Python objects (one missing value, <NA>, in
    pandas 2 and 3 alike); ``float64`` and ``bool`` as named."""
    import pandas as pd  # noqa: PLC0415

    return pd.StringDtype("python") if dtype == _S else dtype


def frames(result: Result) -> dict[str, pd.DataFrame]:
    """The result's tidy tables by name (see the module docstring and :data:`COLUMNS`):
    ``metrics``, ``comparisons``, ``thresholds`` always, then ``operating_points``,
    ``operating_point_deltas``, ``per_class``, ``class_averages``, ``class_deltas``,
    ``class_probabilities``, ``checks``, ``trend``, ``credit_grades``, ``credit_tests``,
    ``credit_groups``, ``segments``, ``bands``, ``fairness_groups``, ``fairness_disparities``,
    ``fairness_changes`` when they have rows."""
    out = {}
    for name, columns in COLUMNS.items():
        rows = list(_ROWS[name](result))
        if rows or name in ALWAYS:
            out[name] = frame(rows, columns)
    return out


__all__ = ["ALWAYS", "COLUMNS", "frame", "frames"]
