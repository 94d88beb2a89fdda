"""The comparison section: each challenger against the baseline, its tests, the challenger pairs."""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass

import reportgen.catalog as catalog
from reportgen.report.formats import (
    fmt_ci,
    fmt_count,
    fmt_int,
    fmt_metric,
    fmt_num,
    fmt_p,
    fmt_pct,
    fmt_pvalue,
    fmt_signed,
)
from reportgen.report.views.common import Models, better_mark, excludes_zero, optimum_threshold
from reportgen.report.wording import (
    CREDIT_WORDS,
    Vocabulary,
    achieved_note,
    approval_sentence,
    comparison_notes,
    family_words,
    mcnemar_sentence,
    verdict,
)
from reportgen.results import Comparison, ComparisonResult

KEY_COMPARISON_METRICS = (
    "gini",
    "roc_auc",
    "ks",
    "average_precision",
    "f1",
    "mcc",
    "accuracy",
    "expected_cost",
    "brier",
)
KEY_MULTICLASS_METRICS = (
    "f1_macro",
    "f1_weighted",
    "accuracy",
    "balanced_accuracy",
    "cohen_kappa",
    "mcc",
    "roc_auc_ovr_macro",
    "roc_auc_ovo_macro",
    "log_loss",
    "expected_cost",
)


@dataclass(frozen=True, slots=True)
class DeltaRow:
    """One metric of a comparison: both values, Δ with its mark and interval, relative change and
    error reduction, each with the note that qualifies it."""

    metric: str
    key: str
    baseline: str
    model: str
    delta: str
    mark: str
    #: a direction is not a finding: a Δ whose interval covers 0 says so beside "worse", and one
    #: without an interval (bootstrap off) says that, where a bare "better" read as a result
    ns: bool
    ns_note: str
    ci: str
    #: why there is no interval, in its cell ("" when there is one or nothing to say)
    ci_note: str
    relative: str
    rer: str
    #: an error reduction is a headline only when the change is significant (its CI clear of 0)
    rer_note: str
    primary: bool


@dataclass(frozen=True, slots=True)
class DelongView:
    delta: str
    se: str
    z: str
    p: str
    p_holm: str
    #: the Holm family its adjusted p is over, named with its size ("the 2 comparisons with …")
    family: str
    ci: str
    paired: str


@dataclass(frozen=True, slots=True)
class McnemarView:
    statistic: str
    p: str
    p_holm: str
    #: the Holm family its adjusted p is over, named with its size
    family: str
    method: str
    #: the mid-p test Fagerland, Lydersen & Laake (2013) recommend, beside the conservative one
    mid_p: str
    both: str
    model_only: str
    baseline_only: str
    neither: str
    #: which model errs more on the discordant rows, and whether that is significant
    reading: str


@dataclass(frozen=True, slots=True)
class ApprovalSide:
    """A model at the common approval rate: its riskiest approved score, approved rows, rate, bad rate."""

    model: str
    threshold: str
    approval: str
    approved: str
    bad_rate: str


@dataclass(frozen=True, slots=True)
class SwapRow:
    set: str
    rows: str
    bads: str
    bad_rate: str


@dataclass(frozen=True, slots=True)
class ApprovalTable:
    """The comparison at one equal approval rate: both sides, the swap sets, the sentence."""

    title: str
    sides: tuple[ApprovalSide, ...]
    swaps: tuple[SwapRow, ...]
    sentence: str


@dataclass(frozen=True, slots=True)
class ComparisonCard:
    """One challenger against the baseline."""

    model: str
    baseline: str
    model_short: str
    baseline_short: str
    colour: str
    verdict: str
    rows: tuple[DeltaRow, ...]
    #: why a metric of the table is n/a, one line per reason
    undefined: tuple[str, ...]
    delong: DelongView | None
    mcnemar: McnemarView | None
    notes: tuple[str, ...]
    approval: tuple[ApprovalTable, ...]
    rer_accuracy: str


@dataclass(frozen=True, slots=True)
class PairRow:
    model: str
    other: str
    model_short: str
    other_short: str
    colour: str
    other_colour: str
    delta: str
    mark: str
    p: str
    p_holm: str


@dataclass(frozen=True, slots=True)
class ComparisonView:
    comparisons: tuple[ComparisonCard, ...]
    several: bool
    #: the methods every comparison shares, said once after them, not repeated under each
    shared_notes: tuple[str, ...]
    pairwise: tuple[PairRow, ...]
    #: the pairwise block's Holm family, named with its size (a baseline pair keeps its comparison's)
    pairwise_family: str
    paired: bool
    mcnemar_title: str
    #: the forest plot of the primary metric's differences (markup), or None
    forest: object | None
    #: the pairwise table's difference and test headers, and how its pairs were tested
    pairwise_delta: str = "ΔGini (model − other)"
    pairwise_test: str = "DeLong p"
    pairwise_how: str = "the difference in Gini and DeLong's test of the difference in AUC on the same rows"


def comparison_view(result: ComparisonResult, ms: Models, forest: object | None) -> ComparisonView:
    """The comparison section of ``result`` (``forest``: its drawn figure, if any)."""
    # a family of one test is its own Holm adjustment: its adjusted p (= the raw p) is not shown twice
    delong_family = sum(
        c.tests.delong is not None and c.tests.delong.p_value_holm is not None for c in result.comparisons
    )
    mcnemar_family = sum(
        c.tests.mcnemar is not None and c.tests.mcnemar.p_value_holm is not None for c in result.comparisons
    )
    notes = [comparison_notes(c, result) for c in result.comparisons]
    # the notes every comparison shares go once under their heading (all of them, for one challenger)
    shared = [n for n in notes[0] if all(n in other for other in notes[1:])] if notes else []
    cards = []
    for c, own in zip(result.comparisons, notes):
        d, mc = c.tests.delong, c.tests.mcnemar
        cards.append(
            ComparisonCard(
                model=c.model,
                baseline=c.baseline,
                model_short=ms.short[c.model],
                baseline_short=ms.short[c.baseline],
                colour=ms.colours[c.model],
                verdict=verdict(c),
                rows=_delta_rows(result, c, ms),
                undefined=_undefined_lines(result, c, ms),
                delong=None
                if d is None
                else DelongView(
                    delta=fmt_signed(d.delta, 4),
                    se=fmt_num(d.se, 4),
                    z=fmt_num(d.z, 2),
                    p=fmt_p(d.p_value),
                    p_holm=fmt_p(d.p_value_holm) if d.p_value_holm is not None and delong_family > 1 else "",
                    family=family_words(
                        d.family, d.family_size, c.baseline, any(t.p_value is not None for t in c.partial_auc)
                    ),
                    ci=fmt_ci(d.ci, 4),
                    paired="paired" if d.paired else "unpaired",
                ),
                mcnemar=None
                if mc is None
                else McnemarView(
                    statistic=fmt_num(mc.statistic, 3),
                    p=fmt_p(mc.p_value),
                    p_holm=fmt_p(mc.p_value_holm) if mc.p_value_holm is not None and mcnemar_family > 1 else "",
                    family=family_words(mc.family, mc.family_size, c.baseline),
                    method=mc.method,
                    mid_p=fmt_p(mc.p_value_mid_p)
                    if mc.p_value_mid_p is not None and (mc.model_only_right or mc.baseline_only_right)
                    else "",
                    both=fmt_count(mc.table[0][0]),
                    model_only=fmt_count(mc.table[0][1]),
                    baseline_only=fmt_count(mc.table[1][0]),
                    neither=fmt_count(mc.table[1][1]),
                    reading=mcnemar_sentence(c.model, c.baseline, mc, c.decision.alpha if c.decision else 0.05),
                ),
                notes=tuple(n for n in own if n not in shared),
                approval=approval_tables(c, ms.words),
                rer_accuracy=fmt_pct(c.relative_error_reduction, 1, signed=True),
            )
        )
    return ComparisonView(
        comparisons=tuple(cards),
        several=len(cards) > 1,
        shared_notes=tuple(shared),
        pairwise=_pairwise(result, ms),
        **_pairwise_words(result),
        pairwise_family=next(
            (
                family_words(x.family, x.family_size, result.run.baseline)
                for x in result.pairwise
                if x.family == "challenger_pairs"
            ),
            "the challenger pairs",
        ),
        paired=result.run.paired,
        mcnemar_title="McNemar at the decision threshold"
        if ms.binary
        else "McNemar on correct / incorrect predictions",
        forest=forest,
    )


def _error_within_noise(base: float | None, base_ci: Sequence[float] | None) -> bool:
    """Whether the relative error reduction ((1 − r₁) − (1 − r₂)) / (1 − r₁) is meaningless: the
    baseline's error 1 − r₁ is less than twice the half-width h of the baseline's own interval, so
    the ratio's denominator is not known within ±50 % (between 1 − r₁ − h and 1 − r₁ + h, a factor
    of 3 or more apart: a breast-cancer F1 of 0.958 ± 0.033 read −130 %). Without an interval it
    cannot be judged, and is shown."""
    if base is None or not base_ci or base_ci[0] is None or base_ci[1] is None:
        return False
    return 1.0 - base < base_ci[1] - base_ci[0]


def _no_interval_why(result: ComparisonResult, c: Comparison, key: str, ci: object) -> str:
    """Why a difference has no interval, for its empty interval cell ("" when it has one, or
    when the bootstrap was off): a metric a scorecard takes from its PD column (``metric_sources``;
    capability ``paired_interval.pd_column``) is not counted with the other model's scores, so
    there is no paired draw. Said beside the "no interval", not only pages later in the notes."""
    pd = [n for n in (c.baseline, c.model) if result.models[n].metric_sources.get(key) == "pd_column"]
    if ci or not pd:
        return ""
    return f"{' and '.join(pd)}: from the PD column, not paired with these scores"


def _delta_rows(result: ComparisonResult, c: Comparison, ms: Models) -> tuple[DeltaRow, ...]:
    rows = []
    for k in KEY_COMPARISON_METRICS if ms.binary else KEY_MULTICLASS_METRICS:
        if k not in c.delta:
            continue
        clear = excludes_zero(c.ci.get(k))
        has_rer = c.relative_error_reductions.get(k) is not None
        # an error reduction of a baseline at the ideal 1 divides by 0: its n/a says why
        no_error = k in c.relative_error_reductions and result.models[c.baseline].metrics.get(k) == 1.0
        # near the bound the baseline's error 1 − r₁ is within two of its interval's half-widths of 0:
        # the ratio's denominator is noise (an AUC near 1 read −2665 %)
        base = result.models[c.baseline]
        noise = has_rer and _error_within_noise(base.metrics.get(k), base.ci.get(k))
        has_rer = has_rer and not noise
        mark = better_mark(c.delta.get(k), ms.better_of.get(k))
        rows.append(
            DeltaRow(
                metric=catalog.label(k),
                key=k,
                baseline=fmt_metric(result.models[c.baseline].metrics.get(k), k),
                model=fmt_metric(result.models[c.model].metrics.get(k), k),
                delta=fmt_signed(c.delta.get(k)),
                mark=mark,
                ns=clear is not True and mark in ("better", "worse"),
                ns_note="not significant" if clear is False else "no interval",
                ci=fmt_ci(c.ci.get(k)),
                ci_note=_no_interval_why(result, c, k, c.ci.get(k)),
                relative=fmt_pct(c.relative_delta.get(k), 1, signed=True),
                rer="—"
                if noise
                else fmt_pct(c.relative_error_reductions.get(k), 1, signed=True)
                if k in c.relative_error_reductions
                else "",
                rer_note=(
                    "baseline has no error" if no_error else "omitted: baseline error not clear of 0" if noise else ""
                )
                if not has_rer
                else ""
                if clear
                else ("not significant" if clear is False else "no interval"),
                primary=k == result.run.primary_metric,
            )
        )
    return tuple(rows)


def _undefined_lines(result: ComparisonResult, c: Comparison, ms: Models) -> tuple[str, ...]:
    """Why the comparison table's n/a are n/a, one line per model and reason (in the table's
    narrow column the reason took 5 lines); both models with one reason share a line."""
    why: dict[tuple[str, str], list[str]] = {}
    for k in KEY_COMPARISON_METRICS if ms.binary else KEY_MULTICLASS_METRICS:
        for n in (c.baseline, c.model):
            if k in c.delta and result.models[n].metrics.get(k) is None and ms.why_undefined[n].get(k):
                why.setdefault((n, ms.why_undefined[n][k]), []).append(catalog.label(k))
    alike: dict[tuple[tuple[str, ...], str], list[str]] = {}
    for (n, reason), labels in why.items():
        alike.setdefault((tuple(labels), reason), []).append(n)
    return tuple(
        f"{'; '.join(labels)}: n/a for {' and '.join(ns)}, {reason}." for (labels, reason), ns in alike.items()
    )


def _pairwise_words(result: ComparisonResult) -> dict[str, str]:
    """The pairwise table's headers and method for a matrix of another metric than the Gini
    (multiclass: the primary metric, the normal test on the paired bootstrap SE); {} for the Gini."""
    metric = next((c.metric for c in result.pairwise if c.metric is not None), None)
    if metric is None:
        return {}
    label = catalog.short_label(metric)
    return {
        "pairwise_delta": f"Δ {label} (model − other)",
        "pairwise_test": "Bootstrap p",
        "pairwise_how": (
            f"the difference in {label} and the normal test on the standard error of its paired bootstrap "
            "differences (the same resampled rows for both models)"
        ),
    }


def _pairwise(result: ComparisonResult, ms: Models) -> tuple[PairRow, ...]:
    """Every challenger-vs-challenger pair of ``result.pairwise``, once each (first in model order
    as the row): Δ Gini (row − column model) marked better or worse, and the DeLong p-value."""
    order = {n: i for i, n in enumerate(result.models)}
    base = result.run.baseline
    rows = []
    for cell in result.pairwise:
        if base in (cell.model, cell.baseline) or order[cell.model] > order[cell.baseline]:
            continue
        rows.append(
            PairRow(
                model=cell.model,
                other=cell.baseline,
                model_short=ms.short[cell.model],
                other_short=ms.short[cell.baseline],
                colour=ms.colours[cell.model],
                other_colour=ms.colours[cell.baseline],
                delta=fmt_signed(cell.delta),
                mark=better_mark(cell.delta, "higher" if cell.metric is None else ms.better_of.get(cell.metric)),
                p=fmt_pvalue(cell.p_value),
                p_holm=fmt_pvalue(cell.p_value_holm) if cell.p_value_holm is not None else "n/a",
            )
        )
    return tuple(rows)


def approval_tables(c: Comparison, words: Vocabulary = CREDIT_WORDS) -> tuple[ApprovalTable, ...]:
    """The comparison at each equal approval rate: who is approved, the swap sets, what it says
    (in the report's ``words``); a target that ties move a side off says what it achieves."""
    out = []
    for a in c.approval:
        cells = (
            (words.swap_in.format(model=c.model, baseline=c.baseline), a.swap_in),
            (words.swap_out.format(model=c.model, baseline=c.baseline), a.swap_out),
            (words.stay_kept, a.stay_approved),
            (words.stay_flagged, a.stay_declined),
        )
        ties = achieved_note(a)
        out.append(
            ApprovalTable(
                title=(
                    f"At {c.baseline}'s {words.rate}, {fmt_pct(a.target_rate)}"
                    if a.source == "baseline"
                    else f"At {words.rate} {fmt_pct(a.target_rate)} (approval_rates)"
                )
                + (f"; {ties}" if ties else ""),
                sides=tuple(
                    ApprovalSide(
                        model=s.model,
                        threshold="n/a" if s.threshold is None else optimum_threshold(s),
                        approval=fmt_pct(s.approval_rate),
                        approved=fmt_int(s.approved_rows),
                        bad_rate=fmt_pct(s.bad_rate, 2),
                    )
                    for s in (a.baseline, a.model)
                ),
                swaps=tuple(
                    SwapRow(set=name, rows=fmt_int(x.rows), bads=fmt_int(x.bads_rows), bad_rate=fmt_pct(x.bad_rate))
                    for name, x in cells
                ),
                sentence=approval_sentence(a, words),
            )
        )
    return tuple(out)
