"""The title page's table of models and the summary section: verdicts, ranking, settings."""

from __future__ import annotations

from dataclasses import dataclass
from pathlib import Path
from typing import Any

import reportgen.catalog as catalog
from reportgen.report.formats import fmt_ci, fmt_count, fmt_level, fmt_metric, fmt_num, fmt_pct
from reportgen.report.views.brief import ModelFindings, findings_of
from reportgen.report.views.common import Models, kept_share, optimum_threshold
from reportgen.report.wording import interval_kind, interval_methods, notice_text, ranking_note, verdict
from reportgen.report.wording import rule as model_rule
from reportgen.results import ComparisonResult, ModelResult


@dataclass(frozen=True, slots=True)
class ModelRow:
    """A model on the title page: its input, rows, positives (or input kind) and decision rule."""

    count: str
    name: str
    key: str
    colour: str
    file: str
    n: str
    positives: str
    prevalence: str
    direction: str
    rule: str
    distinct: str
    baseline: bool


@dataclass(frozen=True, slots=True)
class RankingRow:
    rank: int
    name: str
    key: str
    colour: str
    value: str
    ci: str
    extra: tuple[str, ...]
    baseline: bool


@dataclass(frozen=True, slots=True)
class VerdictLine:
    """A challenger's verdict against the baseline, with its red credit result beside it (or "")."""

    colour: str
    verdict: str
    credit: str


@dataclass(frozen=True, slots=True)
class CreditVerdict:
    """A red credit result of a model that has no verdict line (the baseline)."""

    colour: str
    text: str


@dataclass(frozen=True, slots=True)
class SummaryView:
    verdicts: tuple[VerdictLine, ...]
    credit_verdicts: tuple[CreditVerdict, ...]
    primary_metric: str
    #: the ranking's column header: the caption above it gives the gloss ("Gini (2·AUC − 1)")
    primary_short: str
    ranking: tuple[RankingRow, ...]
    ranking_headers: tuple[str, ...]
    #: each extra column's cell class: an exact threshold (17 digits) may wrap in its column,
    #: where on one line it ran into the cost beside it
    ranking_cells: tuple[str, ...]
    #: below the ranking: the order of models the tests did not separate is only the point estimates
    ranking_note: str
    ranking_caption: str
    #: binary cost notation only in a binary report (a multiclass run's costs are a matrix)
    costs: str
    warnings: tuple[str, ...]
    settings_note: str
    #: every red and amber credit finding per model, with its reason (empty without credit:)
    findings: tuple[ModelFindings, ...] = ()
    #: the findings table's heading (which sections give findings)
    findings_title: str = ""


def model_rows(result: ComparisonResult, ms: Models) -> tuple[ModelRow, ...]:
    """The title page's table: one row per model."""
    rows = []
    for name, m in result.models.items():
        prevalence = m.positives / (m.positives + m.negatives) if m.positives is not None and m.negatives else None
        rows.append(
            ModelRow(
                count=_positives(m) if ms.binary else _multiclass_input(m),
                name=name,
                key=ms.keys[name],
                colour=ms.colours[name],
                file=m.file if "://" in m.file else Path(m.file).name,  # a SQL source: URL and query
                n=fmt_count(m.n),
                positives=fmt_count(m.positives),
                prevalence=fmt_pct(prevalence, 2),
                direction=m.direction,
                rule=model_rule(m),
                distinct=fmt_count(m.n_distinct_scores),
                baseline=name == result.run.baseline,
            )
        )
    return tuple(rows)


def summary_view(result: ComparisonResult, ms: Models, credit_notes: dict[str, str]) -> SummaryView:
    """The summary section (``credit_notes``: model → its red credit result, see
    :func:`reportgen.report.views.credit.summary_notes`)."""
    run = result.run
    pm = run.primary_metric
    better = ms.better_of.get(pm) or "higher"
    ranked = sorted(
        ms.names,
        key=lambda n: (
            result.models[n].metrics.get(pm) is None,
            -(result.models[n].metrics.get(pm) or 0) if better == "higher" else (result.models[n].metrics.get(pm) or 0),
        ),
    )
    # a multiclass cost column only when some model has a cost (a cost matrix was configured)
    mc_costed = any(result.models[n].metrics.get("expected_cost") is not None for n in ms.names)
    mc_ranking = ("accuracy", "balanced_accuracy", "roc_auc_ovr_macro") + (("expected_cost",) if mc_costed else ())
    # the ranking's metric columns, less the primary metric (its own column, with its interval)
    bin_ranking = tuple(k for k in ("roc_auc", "ks") if k != pm)
    mc_ranking = tuple(k for k in mc_ranking if k != pm)
    ranking = []
    for rank, n in enumerate(ranked, 1):
        m = result.models[n]
        cost_opt = m.optimal_thresholds.get("expected_cost")
        extra: tuple[str, ...]
        if ms.binary:
            extra = (
                *(fmt_metric(m.metrics.get(k), k) for k in bin_ranking),
                optimum_threshold(cost_opt) if cost_opt else "n/a",
                kept_share(cost_opt) if cost_opt else "n/a",
                fmt_num(cost_opt.value, 4) if cost_opt else "n/a",
            )
        else:
            extra = tuple(fmt_metric(m.metrics.get(k), k, 4 if k == "expected_cost" else 3) for k in mc_ranking)
        ranking.append(
            RankingRow(
                rank=rank,
                name=n,
                key=ms.keys[n],
                colour=ms.colours[n],
                value=fmt_metric(m.metrics.get(pm), pm),
                ci=fmt_ci(m.ci.get(pm), key=pm),
                extra=extra,
                baseline=n == run.baseline,
            )
        )
    compared = {c.model for c in result.comparisons}
    findings = findings_of(result, ms.colours) if result.credit is not None or result.fairness is not None else ()
    # a red credit result is a row of the findings table: not repeated in the warnings box
    in_findings = {notice_text(n) for n in run.notices if n.code == "credit_red"} if findings else set()
    return SummaryView(
        verdicts=tuple(
            VerdictLine(colour=ms.colours[c.model], verdict=verdict(c), credit=credit_notes.get(c.model, ""))
            for c in result.comparisons
        ),
        credit_verdicts=tuple(
            CreditVerdict(colour=ms.colours.get(n, "#000000"), text=t)
            for n, t in credit_notes.items()
            if n not in compared
        ),
        primary_metric=catalog.label(pm),
        primary_short=catalog.short_label(pm),
        ranking=tuple(ranking),
        ranking_headers=(
            *({"roc_auc": "ROC AUC", "ks": "KS"}[k] for k in bin_ranking),
            "Recommended threshold",
            f"{ms.words.rate_header} there",
            "Cost per row there",
        )
        if ms.binary
        else tuple(catalog.label(k) for k in mc_ranking),
        ranking_cells=("num",) * len(bin_ranking) + ("num thr", "num", "num")
        if ms.binary
        else ("num",) * len(mc_ranking),
        ranking_note=ranking_note(result),
        ranking_caption="recommended threshold minimises the expected cost"
        if ms.binary
        else ("cost per row under the configured cost matrix" if mc_costed else "no cost matrix configured"),
        costs=", ".join(f"{k.upper()} {v:g}" for k, v in run.costs.items() if isinstance(v, (int, float)))
        if ms.binary
        else "",
        warnings=tuple(w for w in run.warnings if w not in in_findings),
        settings_note=settings_note(result),
        findings=findings,
        findings_title=" and ".join(
            x for x, on in (("Credit validation", result.credit), ("fairness", result.fairness)) if on is not None
        ).capitalize()
        + ": every red and amber finding",
    )


def settings_note(result: ComparisonResult) -> str:
    """The settings behind the numbers, in one sentence under the ranking (how the bootstrap
    intervals were actually drawn: :func:`reportgen.report.wording.interval_kind`)."""
    run: Any = result.run
    kind = interval_kind(result)
    level = fmt_level(run.confidence_level)
    boot = (
        f"{kind or 'stratified bootstrap'} with {fmt_count(run.bootstrap_resamples)} resamples, seed "
        f"{run.bootstrap_seed}"
        if run.bootstrap_resamples
        else "no bootstrap (resamples: 0)"
    )
    if run.task == "binary":
        methods = interval_methods(result, boot)
        costs = ", ".join(f"{k.upper()} {v:g}" for k, v in run.costs.items() if isinstance(v, (int, float)))
        return (
            f"Decision rules as in the table of models above (default threshold {run.threshold:g}); "
            f"F-beta with β = {run.beta:g}; costs {costs}; "
            + (
                f"intervals at {level} ({methods})."
                if methods
                else "no intervals" + ("" if run.bootstrap_resamples else " (resamples: 0)") + "."
            )
        )
    matrix = run.costs.get("matrix") if isinstance(run.costs, dict) else None
    costs = "the cost matrix in the appendix (rows: true class, columns: predicted)" if matrix else "no cost matrix"
    intervals = (
        f"intervals at {level} ({boot}, paired across models and resampled within each true class)"
        if kind or not run.bootstrap_resamples
        else "no intervals (without the rows multiclass metrics are not bootstrapped)"
    )
    return f"Predicted classes as in the table of models above; F-beta with β = {run.beta:g}; {costs}; {intervals}."


def _positives(m: ModelResult) -> str:
    """The models table's positives: a weighted model's are a weight, so they say so and give the
    rows beside it (a weight of 20 347.8 among 100 000 rows is not a share of 20 %)."""
    if not m.weighted:
        return fmt_count(m.positives)
    rows = f", {fmt_count(m.positives_rows)} rows" if m.positives_rows is not None else ""
    return f"{fmt_count(m.positives)} (weight{rows})"


def _multiclass_input(m: ModelResult) -> str:
    """What a multiclass model gave: class scores, a predicted label, or both."""
    scores = m.multiclass_curves is not None or m.metrics.get("roc_auc_ovr_micro") is not None
    predicted = model_rule(m).startswith("predicted class from")
    if scores and predicted:
        return "class scores + predicted label"
    return "class scores (argmax)" if scores else "predicted label"
