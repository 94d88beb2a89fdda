"""Sentences the report writes from the engine's facts and codes (the report layer's words).

The engine returns what it computed, how (``ci_method``), what it could not give with a
reason code (``Comparison.capabilities``), why a metric is undefined as a
:class:`~reportgen.results.Reason` code (``ModelResult.undefined_reasons``), its warnings as
:class:`~reportgen.results.Notice` codes with their facts, and each verdict as a
:class:`~reportgen.results.Decision`; this module turns those into the sentences of the report
and of ``metrics.json`` (the verdict, the decision rule, why a metric is undefined, the
warnings, the notes under each comparison), one wording for every engine, so the same evidence
reads the same whichever engine made it. :func:`worded` writes a result's sentence
fields from its facts at the report / serialisation edge.
"""

from __future__ import annotations

import dataclasses
import math
from collections.abc import Callable, Mapping, Sequence
from dataclasses import dataclass
from typing import TYPE_CHECKING, Literal

from reportgen.config import resolved_domain
from reportgen.engine import stats
from reportgen.engine.approval import APPROVAL_COUNT_BOOTSTRAP, APPROVAL_POOLED_BOOTSTRAP, MAX_APPROVAL_MODELS
from reportgen.engine.class_tables import LOG_LOSS_EPS, log_loss_clipping_share
from reportgen.engine.compare import (
    BOOTSTRAP_NORMAL,
    DELONG,
    DELONG_MIN_ROWS,
    MICRO_PROJECTION,
    PATTERN_BOOTSTRAP,
    ROW_BOOTSTRAP,
    TABLE_BOOTSTRAP,
)
from reportgen.engine.intervals import (
    BINNED_BOOTSTRAP,
    CLASS_TABLE_BINNED_BOOTSTRAP,
    CLASS_TABLE_BOOTSTRAP,
    COUNT_BOOTSTRAP,
    EXACT_WEIGHT_CELLS,
    JOINT_BINNED_BOOTSTRAP,
    JOINT_BINS,
    JOINT_BOOTSTRAP,
    JOINT_EXACT_CELLS,
    MAX_PAIR_MODELS,
    MAX_PATTERN_MODELS,
    MAX_WEIGHT_CELLS,
    MODEL_BINS,
    WEIGHTED_BINNED_BOOTSTRAP,
    WEIGHTED_BOOTSTRAP,
    WEIGHTED_JOINT_BINNED_BOOTSTRAP,
    WEIGHTED_JOINT_BOOTSTRAP,
    WEIGHTED_JOINT_POOLED_BINNED_BOOTSTRAP,
    WEIGHTED_JOINT_POOLED_BOOTSTRAP,
    WEIGHTED_POOLED_BINNED_BOOTSTRAP,
    WEIGHTED_POOLED_BOOTSTRAP,
    class_bins,
)
from reportgen.engine.proportions import CLOPPER_PEARSON, DELONG_LOGIT
from reportgen.report.formats import fmt_bounded, fmt_count, fmt_int, fmt_p, fmt_pct, fmt_threshold, minus
from reportgen.report.labels import LABELS, credit_failure_names
from reportgen.results import (
    ApprovalAtRate,
    Comparison,
    ComparisonResult,
    Decision,
    McNemarSummary,
    ModelResult,
    Notice,
    Optimum,
    Reason,
)
from reportgen.value import Value

if TYPE_CHECKING:
    from reportgen.option_results import ClassificationTable

#: Why paired statistics are missing, by :data:`~reportgen.engine.evidence.PairingReason`.
PAIRING_TEXT = {
    "separate_files": "the models' rows are in separate files or datasets that cannot be lined up row by row",
    "rows_dropped": "rows were dropped, so the models' rows no longer line up",
    "weighted": "the rows are weighted",
    "labels_differ": "the models' labels differ row by row",
    "not_counted": "the models' rows were not counted together",
    "id_order": (
        "the models are in different files joined by id whose rows are not in the same id order "
        "(put the scores in one table or write the files in the same id order)"
    ),
    "lengths_differ": "the models are in different files of different lengths and no 'id' joins them",
}

#: Multiclass comparisons without the rows (capability ``bootstrap``: ``needs_rows``).
NO_BOOTSTRAP = (
    "Intervals of the differences between multiclass models, and of the models' averaged AUCs (macro, "
    "weighted, micro, one-vs-one), need the rows resampled together; the evidence holds counts only, so the "
    "deltas are exact but have no intervals (for unweighted models with class scores, each class's own "
    "one-vs-rest AUC interval is drawn on the class "
    "tables, under Per-class metrics)."
)

#: Why weighted intervals are missing (capability reason ``weighted``): the cells were not counted.
WEIGHT_CELLS_TEXT = (
    f"weighted rows are resampled through their counts per score, class and weight (past "
    f"{MAX_WEIGHT_CELLS:,} such cells, per score and class with their weights' moments), and there "
    f"are more than {MAX_WEIGHT_CELLS:,} even so, a weight outside 2⁻³⁰ to 2⁴⁰, or models with weight "
    "columns of their own (or a binned table has more than that many cells)"
)

#: ``ci_method`` of a weighted model's intervals, and of weighted models' differences.
WEIGHTED_METHODS = {
    WEIGHTED_BOOTSTRAP,
    WEIGHTED_BINNED_BOOTSTRAP,
    WEIGHTED_POOLED_BOOTSTRAP,
    WEIGHTED_POOLED_BINNED_BOOTSTRAP,
}
WEIGHTED_JOINT_METHODS = {
    WEIGHTED_JOINT_BOOTSTRAP,
    WEIGHTED_JOINT_BINNED_BOOTSTRAP,
    WEIGHTED_JOINT_POOLED_BOOTSTRAP,
    WEIGHTED_JOINT_POOLED_BINNED_BOOTSTRAP,
}

WEIGHTED_NOTE = (
    "Intervals of weighted models: the stratified bootstrap of the rows with their sample weights, drawn "
    "on the rows counted per (score, class, weight): per class, how many resampled rows fall on each such "
    "cell is one multinomial draw, and each cell adds that number times its weight — the distribution of "
    "resampling the rows themselves, in every engine. KS gets the reshaped bootstrap-t of the same draws, "
    "each resample's curves over its own class weights, its standard errors those of Kish's effective "
    "class sizes (Σw)²/Σw²."
)

WEIGHTED_JOINT_NOTE = (
    "Intervals of differences of weighted models (and the verdict's bootstrap test): the paired "
    "stratified bootstrap of the rows with their weights, drawn on the rows counted per (both "
    "models' scores, class, weights), one multinomial draw per class and resample."
)

WEIGHTED_JOINT_BINNED_NOTE = (
    f"There are more than {JOINT_EXACT_CELLS:,} such counts, so each model's scores are cut "
    f"into {JOINT_BINS} equal-weight bins (and at its threshold and approval cuts, so threshold "
    "metrics and the comparison at equal approval rate stay exact), weights kept apart; each "
    "difference's interval is moved by the binning's error on the data."
)
#: ... when the binned joint cells are pooled too (their weights then not kept apart).
WEIGHTED_JOINT_POOLED_BINNED_NOTE = WEIGHTED_JOINT_BINNED_NOTE.replace(", weights kept apart;", ";")

POOLED_NOTE = (
    f"Intervals with moment-matched weight sums (their method in metrics.json): with more than "
    f"{EXACT_WEIGHT_CELLS:,} such counts (weights taking "
    "many values), the rows are pooled per (score or bin, class), with the mean and variance of their "
    "weights: how many "
    "resampled rows fall on each is still one exact multinomial draw, and their weight sum is drawn from "
    "a Gamma law with the mean and variance of that many rows' weights drawn with replacement — the row "
    "bootstrap's means, variances and covariances of every weight sum, at a cost that does not grow "
    "with the rows."
)

PATTERN_BOOTSTRAP_NOTE = (
    "Intervals of differences of threshold metrics (accuracy, F1, MCC, expected cost, …): paired "
    "stratified bootstrap of the models' decisions, counted per pattern of truth and decisions."
)


def binning_words(bins: int, strategy: str) -> str:
    """A reliability diagram's bins in words: "10 equal-width bins" (``uniform``, scikit-learn's
    ``calibration_curve`` default) or "10 equal-count (quantile) bins"."""
    return f"{bins} {'equal-width' if strategy == 'uniform' else 'equal-count (quantile)'} bins"


def capability_note(what: str, reason: str) -> str:
    """The sentence of a capability code: what is not given and why."""
    why = PAIRING_TEXT.get(reason, reason.replace("_", " "))
    if what == "paired_interval.pd_column":
        return (
            "Brier score and log-loss of a scorecard are its PD column's (the credit section's calibration, on "
            "the same rows); their differences have no paired interval (the PD is not counted with the other "
            "model's scores)."
        )
    if what == "delong":
        if reason == "small_class":
            return f"DeLong's test needs at least {DELONG_MIN_ROWS} rows of each class; not computed."
        return "DeLong's test needs unweighted rows; not computed."
    if what == "delong_paired":
        return (
            f"DeLong's test is unpaired (the two variances added, Student's t with Welch's degrees of "
            f"freedom, as pROC): {why}."
        )
    if what == "mcnemar":
        if reason == "non_integer_weights":
            return "McNemar's test needs integer (frequency) weights; not computed."
        if reason == "weighted":
            return (
                "McNemar's test under sampling weights counts rows, and this engine counted weighted agreement "
                "only; not computed."
            )
        return f"McNemar's test needs the models' decisions on the same rows: {why}; not computed."
    if what in ("paired_interval.threshold_metrics", "paired_interval.ranking_metrics") and reason == "weighted":
        return f"Intervals of differences of weighted models are not given: {WEIGHT_CELLS_TEXT}."
    if what == "paired_interval.threshold_metrics":
        if reason == "not_counted":
            why = f"the models' decision patterns were not counted (more than {MAX_PATTERN_MODELS} models)"
        return (
            f"Intervals of differences of threshold metrics need the models' decisions counted together on "
            f"aligned rows: {why}; not given."
        )
    if what == "paired_interval.ranking_metrics":
        if reason == "not_counted":
            why = f"the models' joint score tables were not counted (more than {MAX_PAIR_MODELS} models)"
        return (
            "Intervals of differences of KS, average precision, R-precision, defective pairs, log-loss and "
            f"Brier score need the models' scores counted together on aligned rows: {why}; not given."
        )
    if what == "model_interval.bootstrap":
        return f"Bootstrap intervals of weighted models are not given: {WEIGHT_CELLS_TEXT}."
    if what == "approval":
        if reason == "weighted":
            return f"The comparison at equal approval rate of weighted rows is not given: {WEIGHT_CELLS_TEXT}."
        if reason == "not_counted":
            why = (
                f"the models' approval patterns were not counted (more than {MAX_APPROVAL_MODELS} models, or a rate "
                "the paired pass was not given)"
            )
        return (
            f"The comparison at equal approval rate needs the models' decisions counted together on aligned "
            f"rows: {why}; not given."
        )
    if what == "bootstrap":
        return NO_BOOTSTRAP
    if what == "paired_interval.probability_metrics":
        return (
            "Intervals of the differences of AUCs and log-loss between multiclass models, and of the models' "
            "averaged AUCs, need the rows resampled together; the evidence holds counts only, so those are "
            "not given (differences of the confusion metrics are drawn on the pair's joint confusion counts)."
        )
    if what == "bootstrap.auc":
        from reportgen.engine.compare_multiclass import BOOTSTRAP_AUC_MAX_CELLS  # noqa: PLC0415  (multiclass only)

        return f"AUCs are not bootstrapped above {BOOTSTRAP_AUC_MAX_CELLS:,} rows × classes; no interval for them."
    raise ValueError(f"unknown capability {what!r}")


def table_bootstrap_note(resamples: int, seed: int) -> str:
    """How each model's bootstrap intervals were made (every engine: the same draw)."""
    return (
        f"Each model's intervals (other than AUC and Gini) come from the stratified bootstrap drawn on its score "
        f"table ({resamples:,} resamples, seed {seed}): per class, how many resampled rows fall on each distinct "
        f"score is one multinomial draw, the distribution of resampling the rows themselves. KS, a maximum over "
        f"cuts, whose percentile interval covers too rarely: the reshaped bootstrap-t of the same draws (each "
        f"resample's noise added to smoothed TPR and FPR curves, studentised at its maximum; Cattaneo, Jansson & "
        f"Nagasawa 2020, Hall 1988)."
    )


BINNED_NOTE = (
    f"Intervals marked as drawn on a binned score table: the model has more than {MODEL_BINS:,} distinct "
    f"scores, so its table was cut into at most {MODEL_BINS:,} equal-weight bins (and at its threshold, "
    "so threshold metrics keep their exact distribution); each interval is moved by the binning's error "
    "on the data (exact value minus binned value)."
)

JOINT_NOTE = (
    "Intervals of differences of KS, average precision, R-precision, defective pairs, log-loss and Brier "
    "score: paired stratified bootstrap drawn on the pair's joint score table (rows counted by class and "
    "both models' scores, one multinomial draw per class and resample)."
)

JOINT_BINNED_NOTE = (
    f"The joint score table of a pair cuts each model with more than {JOINT_BINS} distinct scores into "
    f"{JOINT_BINS} equal-weight bins; each difference's interval is moved by the binning's error on "
    "the data (exact difference minus binned difference)."
)


def count_bootstrap_note(resamples: int, seed: int) -> str:
    return (
        f"Each multiclass model's intervals of the metrics of its confusion counts and of its log-loss come from "
        f"the stratified bootstrap drawn on its counts ({resamples:,} resamples, seed {seed}): per true class, how "
        "the resampled rows are predicted (and where their true class's probabilities fall) is one multinomial "
        "draw, the distribution of resampling the rows themselves."
    )


#: The verdict's bootstrap test and its interval (:func:`reportgen.engine.compare.bootstrap_test`).
BOOTSTRAP_NORMAL_NOTE = (
    "The primary metric's difference is tested on its paired bootstrap: z = Δ / SE with SE the "
    "standard deviation of the resampled differences, a normal p-value, and the interval "
    "Δ ± z·SE in its row of the table and in the verdict, so the two never disagree."
)


def family_words(family: str | None, size: int | None, baseline: str, partial_auc: bool = False) -> str:
    """The Holm family of an adjusted p, named with its size ("the 2 comparisons with logistic",
    "the 1 challenger-vs-challenger pair"); "" when a file from before families were recorded
    does not say (:mod:`reportgen.engine.multiplicity`). ``partial_auc``: the verdicts' family
    holds partial AUC tests too, so its size is not the number of challengers ("the 2 tests
    against champion (verdicts and partial AUC)", not "the 2 comparisons" with one challenger)."""
    if family is None or size is None:
        return ""
    if family == "verdicts" and partial_auc:
        return f"the {size:,} test{'' if size == 1 else 's'} against {baseline} (verdicts and partial AUC)"
    what = {
        "verdicts": ("comparison", f" with {baseline}"),
        "delong": ("DeLong test", f" against {baseline}"),
        "mcnemar": ("McNemar test", f" against {baseline}"),
        "challenger_pairs": ("challenger-vs-challenger pair", ""),
    }.get(family, (family, ""))
    return f"the {size:,} {what[0]}{'' if size == 1 else 's'}{what[1]}"


#: How the micro-averaged AUC's resamples are evaluated (``ci_method`` MICRO_PROJECTION).
MICRO_PROJECTION_NOTE = (
    "On each resample the micro-averaged AUC is evaluated by its linear projection at the observed rows "
    "(DeLong's structural components: each row's share of the pooled pairs, weighted by how often the "
    "resample draws it) instead of ranking the pooled cells again; it agrees with the resampled AUC to first "
    "order, its interval to a few hundredths of its width at 400 rows and closer with more."
)


def row_bootstrap_note(resamples: int, seed: int, metrics: Sequence[str] = ()) -> str:
    """How the intervals drawn from the rows were made, naming them (``metrics``: their keys; the
    tables do not mark them). Labels hold commas ("ROC AUC, one-vs-rest macro"), so a list of them
    is split by semicolons."""
    names = [LABELS.get(k, k.replace("_", " ")) for k in metrics]
    which = f"of {('; ' if any(',' in n for n in names) else ', ').join(names)} " if names else "drawn from the rows "
    return (
        f"Intervals {which}come from the stratified bootstrap of the kept rows, one draw for every model "
        f"({resamples:,} resamples, seed {seed}), so differences are paired."
    )


def comparison_notes(c: Comparison, result: ComparisonResult) -> list[str]:
    """Every sentence under one comparison: what is missing and why, how the intervals were made,
    the tests' own caveats, and the multiple-comparison adjustment (McNemar's reading sits under its
    table: :func:`mcnemar_sentence`)."""
    notes = [capability_note(what, why) for what, why in c.capabilities.items()]
    methods = {v for m in result.models.values() for v in m.ci_method.values()} | set(c.ci_method.values())
    run = result.run
    if TABLE_BOOTSTRAP in methods:
        notes.append(table_bootstrap_note(run.bootstrap_resamples, run.bootstrap_seed))
    if PATTERN_BOOTSTRAP in c.ci_method.values():
        notes.append(PATTERN_BOOTSTRAP_NOTE)
    if BINNED_BOOTSTRAP in methods:
        notes.append(BINNED_NOTE)
    if COUNT_BOOTSTRAP in methods:
        notes.append(count_bootstrap_note(run.bootstrap_resamples, run.bootstrap_seed))
    if c.ci_method and {JOINT_BOOTSTRAP, JOINT_BINNED_BOOTSTRAP} & set(c.ci_method.values()):
        notes.append(JOINT_NOTE)
    if JOINT_BINNED_BOOTSTRAP in c.ci_method.values():
        notes.append(JOINT_BINNED_NOTE)
    if {ROW_BOOTSTRAP, MICRO_PROJECTION} & methods:
        drawn = [
            k
            for k in dict.fromkeys(
                k
                for m in [*(x.ci_method for x in result.models.values()), c.ci_method]
                for k, v in m.items()
                if v in (ROW_BOOTSTRAP, MICRO_PROJECTION)
            )
        ]
        notes.append(row_bootstrap_note(run.bootstrap_resamples, run.bootstrap_seed, drawn))
    if MICRO_PROJECTION in methods:
        notes.append(MICRO_PROJECTION_NOTE)
    if c.decision is not None and c.decision.method == BOOTSTRAP_NORMAL:
        notes.append(BOOTSTRAP_NORMAL_NOTE)
    pair_methods = set(c.ci_method.values())
    if WEIGHTED_METHODS & methods:
        notes.append(WEIGHTED_NOTE)
    if {WEIGHTED_BINNED_BOOTSTRAP, WEIGHTED_POOLED_BINNED_BOOTSTRAP} & methods and BINNED_BOOTSTRAP not in methods:
        notes.append(BINNED_NOTE)
    if WEIGHTED_JOINT_METHODS & pair_methods:
        notes.append(WEIGHTED_JOINT_NOTE)
    if WEIGHTED_JOINT_BINNED_BOOTSTRAP in pair_methods:
        notes.append(WEIGHTED_JOINT_BINNED_NOTE)
    elif WEIGHTED_JOINT_POOLED_BINNED_BOOTSTRAP in pair_methods:
        notes.append(WEIGHTED_JOINT_POOLED_BINNED_NOTE)
    if {
        WEIGHTED_POOLED_BOOTSTRAP,
        WEIGHTED_POOLED_BINNED_BOOTSTRAP,
        WEIGHTED_JOINT_POOLED_BOOTSTRAP,
        WEIGHTED_JOINT_POOLED_BINNED_BOOTSTRAP,
    } & methods:
        notes.append(POOLED_NOTE)
    notes.extend(caveats_of(c))
    w = weights_sentence(result)
    if w:
        notes.append(w)
    d = c.decision
    if d is not None and d.p_value_is_bound and d.p_value is not None:
        notes.append(
            f"The bootstrap p-value is at its resolution floor: with {round(1 / d.p_value) - 1:,} finite "
            f"resamples, p ≤ 1/(B+1) = {d.p_value:.2g}; it is a bound, not an estimate."
        )
    if d is not None and d.family_size > 1:
        notes.append(multiplicity_sentence(d.family_size, d.alpha, d.ci_simultaneous_level))
    elif d is None and len(result.comparisons) > 1:
        notes.append(
            f"{len(result.comparisons)} models are compared with {c.baseline}; Holm-adjusted p-values "
            f"control the family-wise error."
        )
    return notes


def multiplicity_sentence(m: int, alpha: float, sim_level: float) -> str:
    """The run's one multiplicity policy, as the report states it (:mod:`reportgen.engine.multiplicity`)."""
    return (
        f"Multiplicity: the {m} verdicts of this run form one family, adjusted by Holm's method whatever the test "
        f"(DeLong or bootstrap), which keeps the family-wise error at {alpha * 100:g} %; a verdict is significant "
        f"when its Holm-adjusted p is below {alpha:g}. Intervals in the verdict are unadjusted; the simultaneous "
        f"ones (Bonferroni, {sim_level * 100:.3g} %) cover all {m} differences together. McNemar's tests against "
        f"the baseline and the tests of the challengers against each other are adjusted the same way, each "
        f"within its own family; a test belongs to one family and has one adjusted p wherever it is shown."
    )


def mcnemar_sentence(model: str, baseline: str, t: McNemarSummary, alpha: float = 0.05) -> str:
    """Which model errs more on the rows where the two disagree, and on what counts.

    The sentence says a model errs more only when the test says so: its p-value (Holm-adjusted
    when the run adjusts McNemar's tests) below ``alpha``. Otherwise the counts are given with
    "not significantly": 648 against 659 discordant rows at p = 0.78 is no evidence either way.
    """
    if t.model_only_right is None or t.baseline_only_right is None:
        return f"McNemar's test ({t.method}): p = {t.p_value:.3g}."
    b, c = t.model_only_right, t.baseline_only_right
    unit = "rows" if t.basis == "rows" else "weighted rows (frequency weights)"
    p = fmt_p(t.p_value)
    decisive = t.p_value
    if t.p_value_holm is not None and t.p_value_holm != t.p_value:
        over = family_words(t.family, t.family_size, baseline)
        p += f", Holm-adjusted{' over ' + over + ',' if over else ''} {fmt_p(t.p_value_holm)}"
        decisive = t.p_value_holm
    who = {"model": model, "baseline": baseline}.get(t.errs_more or "neither")
    if who is None:
        side = "neither errs more"
    elif decisive < alpha:
        side = f"{who} errs more"
    else:
        side = (
            f"{who} errs more on these rows, but not significantly at the {alpha * 100:g} % level, so the test "
            f"shows no difference in error rates"
        )
    return (
        f"McNemar's test on {unit}: {model} alone is right on {fmt_int(b)}, {baseline} alone on {fmt_int(c)} "
        f"({t.method}, {p}): {side}."
    )


def weights_sentence(result: ComparisonResult) -> str | None:
    """What the weights of a weighted run mean, and which counts the tests use."""
    if not any(m.weighted for m in result.models.values()) and result.run.weight_kind != "frequency":
        return None
    if result.run.weight_kind == "frequency":
        return (
            "Weights are frequency weights (weight_kind: frequency): a row of weight w counts as w identical rows "
            "in every metric, interval and test."
        )
    return (
        "Weights are sampling weights (weight_kind: sampling): metrics and confusion counts are weighted, but the "
        "tests count rows (McNemar on the rows, the bootstrap resamples rows), so the weights never inflate the "
        "evidence; row counts are shown beside weighted ones."
    )


#: How an equal-approval interval was drawn, when not row by row (same distribution).
_DRAWN = {
    APPROVAL_COUNT_BOOTSTRAP: ", drawn on the counts per pattern of the models' decisions",
    APPROVAL_POOLED_BOOTSTRAP: ", drawn on the counts per pattern of the models' decisions, weight sums from their moments",
}


@dataclass(frozen=True, repr=False, eq=False, slots=True)
class Vocabulary(Value):
    """The words of one domain (``report.domain``) for what a binary decision does to a row,
    chosen once per report (:func:`vocabulary`) and handed to every view and template: a credit
    pack approves applications and counts bad rates; a generic one predicts rows negative and
    counts positives. No template or sentence tests the domain itself."""

    domain: Literal["credit", "generic"]
    #: the share of rows not flagged: "approval rate" / "predicted-negative rate"
    rate: str
    #: column header of that share in the threshold and approval tables
    rate_header: str
    #: the confusion matrix's line under each 2×2 table
    rate_line: str
    #: the score at a cut that is still not flagged
    last_score: str
    #: rows not flagged, as a column header
    kept: str
    #: positives among them, as a column header and in a sentence
    bad_rate_header: str
    bad_rate: str
    #: positives, as a column header
    bads: str
    #: a row as the sentence counts it ("application" / "row")
    row: str
    #: the four swap sets (format with model= and baseline=)
    swap_header: str
    swap_in: str
    swap_out: str
    stay_kept: str
    stay_flagged: str
    #: NPV's explanation in the glossary
    npv: str
    #: the rows a model keeps, in a sentence; and the clause when a model keeps none
    kept_rows: str
    none_kept: str
    #: the share of rows flagged, in a sentence: "decline rate" / "predicted-positive rate"
    flagged_rate: str
    #: what the adverse-impact ratios are taken on (fairness ``favourable``: not_flagged, flagged)
    air_not_flagged: str
    air_flagged: str

    def favourable_rate(self, favourable: str) -> str:
        """The favourable outcome's rate in a sentence ("approval rate", "predicted-positive rate")."""
        return self.rate if favourable == "not_flagged" else self.flagged_rate

    def air_on(self, favourable: str) -> str:
        """What the adverse-impact ratios compare ("approval rates (predicted non-default)")."""
        return self.air_not_flagged if favourable == "not_flagged" else self.air_flagged

    def rows(self, n: float) -> str:
        """A count of rows in running text: "475 applications", "1 row"."""
        return f"{fmt_int(n)} {self.row}{'' if n == 1 else 's'}"


CREDIT_WORDS = Vocabulary(
    domain="credit",
    rate="approval rate",
    rate_header="Approval",
    rate_line="Approval rate (predicted negative)",
    last_score="Riskiest approved score",
    kept="Approved",
    bad_rate_header="Bad rate of approved",
    bad_rate="bad rate",
    bads="Bads",
    row="application",
    swap_header="Swap set",
    swap_in="Swap-in: approved by {model} only",
    swap_out="Swap-out: approved by {baseline} only",
    stay_kept="Stay approved",
    stay_flagged="Stay declined",
    npv="the share of approved (unflagged) rows that are negative",
    kept_rows="approved applications",
    none_kept="a model approves no row",
    flagged_rate="decline rate",
    air_not_flagged="approval rates (predicted non-default: 1 − the selection rate)",
    air_flagged="decline rates (predicted default: the selection rate)",
)
GENERIC_WORDS = Vocabulary(
    domain="generic",
    rate="predicted-negative rate",
    rate_header="Predicted negative",
    rate_line="Predicted negative",
    last_score="Last score predicted negative",
    kept="Predicted negative",
    bad_rate_header="Positive rate of predicted negatives",
    bad_rate="positive rate",
    bads="Positives",
    row="row",
    swap_header="Rows predicted negative by",
    swap_in="{model} only",
    swap_out="{baseline} only",
    stay_kept="both",
    stay_flagged="neither",
    npv="the share of rows predicted negative that are negative",
    kept_rows="rows predicted negative",
    none_kept="a model predicts no row negative",
    flagged_rate="predicted-positive rate",
    air_not_flagged="the rate predicted negative (1 − the selection rate)",
    air_flagged="the rate predicted positive (the selection rate)",
)


def vocabulary(domain: str | None, result: ComparisonResult) -> Vocabulary:
    """The report's words: the run's domain (:func:`reportgen.config.resolved_domain`; the saved
    result says whether it had a credit section, and its config as run whether it configured
    approval rates: a single-model run has no comparison to carry them)."""
    credit = result.credit is not None or bool(result.run.config.get("approval_rates"))
    return CREDIT_WORDS if resolved_domain(domain, credit) == "credit" else GENERIC_WORDS


def approval_sentence(a: ApprovalAtRate, words: Vocabulary = CREDIT_WORDS) -> str:
    """What the equal-approval comparison says, in one sentence (bad rates in %, their difference in
    percentage points, with the minus sign and thin-space counts of the report's tables)."""
    m, b = a.model, a.baseline
    ties = achieved_note(a)
    at = (
        f"At {b.model}'s {words.rate} ({fmt_pct(a.target_rate)}{'; ' + ties if ties else ''})"
        if a.source == "baseline"
        else f"At a target {words.rate} of {fmt_pct(a.target_rate)}{' (' + ties + ')' if ties else ''}"
    )
    if a.bad_rate_delta is None:
        return f"{at}, a {words.bad_rate} cannot be compared ({words.none_kept})."
    way = "lower" if a.bad_rate_delta < 0 else "higher" if a.bad_rate_delta > 0 else "no different"
    ci = (
        ""
        if a.ci is None
        else (
            f" ({a.ci_level * 100:g} % CI {minus(f'{a.ci[0] * 100:+.2f}')} to "
            f"{minus(f'{a.ci[1] * 100:+.2f}')} percentage points, "
            f"paired bootstrap of the rows{_DRAWN.get(a.ci_method or '', '')})"
        )
    )
    head = (
        f"{at}, {m.model}'s {words.kept_rows} have a {words.bad_rate} of {fmt_pct(m.bad_rate, 2)} against "
        f"{fmt_pct(b.bad_rate, 2)} for {b.model}: {abs(a.bad_rate_delta) * 100:.2f} percentage points {way}{ci}. "
    )
    return head + _swap_sentence(
        m.model, b.model, a.swap_in.rows, a.swap_in.bad_rate, a.swap_out.rows, a.swap_out.bad_rate, words
    )


def achieved_note(a: ApprovalAtRate) -> str:
    """Where ties at a cut-off move a side off the target rate, what it achieves: "achieved: champion
    80.8 %, ties at the cut-off"; "" when both sides print as the target."""
    target = fmt_pct(a.target_rate)
    off = [f"{s.model} {fmt_pct(s.approval_rate)}" for s in (a.baseline, a.model) if fmt_pct(s.approval_rate) != target]
    return f"achieved: {', '.join(off)}, ties at the cut-off" if off else ""


def _swap_sentence(
    model: str,
    baseline: str,
    rows_in: float,
    bad_in: float | None,
    rows_out: float,
    bad_out: float | None,
    words: Vocabulary = CREDIT_WORDS,
) -> str:
    """What the model swaps in for what it swaps out; when one side is empty, "swaps in 2
    applications at 50.0 % bad and swaps none out" (it read "… bad for 0 at n/a"). In generic
    words: the rows one model predicts negative and the other positive, each way. Each sentence
    starts with a capital ("Against champion, challenger swaps in …"), never with a model's name,
    which may be lower-case."""
    against = f"Against {baseline}, {model}"
    if words.domain == "generic":
        if not rows_in and not rows_out:
            return f"{against} predicts the same rows negative."
        return (
            f"{against} alone predicts {words.rows(rows_in)} negative ({fmt_pct(bad_in)} positive), "
            f"{baseline} alone {words.rows(rows_out)} ({fmt_pct(bad_out)} positive)."
        )
    if rows_in and rows_out:
        return (
            f"{against} swaps in {words.rows(rows_in)} at {fmt_pct(bad_in)} bad for "
            f"{fmt_int(rows_out)} at {fmt_pct(bad_out)}."
        )
    if not rows_in and not rows_out:
        return f"{against} approves the same applications."
    if rows_in:
        return f"{against} swaps in {words.rows(rows_in)} at {fmt_pct(bad_in)} bad and swaps none out."
    return f"{against} swaps out {words.rows(rows_out)} at {fmt_pct(bad_out)} bad and swaps none in."


def interval_methods(result: ComparisonResult, bootstrap: str = "bootstrap") -> str | None:
    """How the models' intervals were made, from their ``ci_method`` (never assumed): e.g. "DeLong for
    AUC and Gini, bootstrap for the rest" (``bootstrap``: how the run's bootstrap is described);
    None when the run has no intervals."""
    methods = [m.ci_method for m in result.models.values()]
    auc = {v.get(k) for v in methods for k in ("roc_auc", "gini")} - {None}
    rest = {v for mm in methods for k, v in mm.items() if k not in ("roc_auc", "gini")} - {None}
    parts = []
    if auc & {DELONG, DELONG_LOGIT}:
        logit = " (on the logit scale near 1)" if DELONG_LOGIT in auc else ""
        parts.append(f"DeLong{logit} for AUC and Gini")
    boot = (rest - {CLOPPER_PEARSON}) | (auc - {DELONG, DELONG_LOGIT})
    if boot:
        parts.append(f"{bootstrap} for {'the rest' if parts else 'every metric'}")
    if CLOPPER_PEARSON in rest:
        parts.append("exact Clopper–Pearson for rates whose count is 0 or its total")
    return ", ".join(parts) if parts else None


def interval_kind(result: ComparisonResult) -> str | None:
    """How the bootstrap intervals of the run were drawn (the settings sentence), None without any."""
    methods = {v for m in result.models.values() for v in m.ci_method.values()}
    if TABLE_BOOTSTRAP in methods or BINNED_BOOTSTRAP in methods:
        return "stratified bootstrap drawn on each model's score table"
    if COUNT_BOOTSTRAP in methods:
        return "stratified bootstrap drawn on each model's confusion counts"
    if WEIGHTED_METHODS & methods:
        return "stratified bootstrap of the rows with their weights, drawn on each model's rows per score, class and weight"
    if {ROW_BOOTSTRAP, MICRO_PROJECTION} & methods:
        return "stratified bootstrap of the rows"
    return None


def per_class_interval_note(result: ComparisonResult) -> str:
    """How the per-class intervals were made (from ``per_class_ci_method``), "" without any."""
    methods = {v for m in result.models.values() for v in m.per_class_ci_method.values()}
    run = result.run
    if not methods & {CLASS_TABLE_BOOTSTRAP, CLASS_TABLE_BINNED_BOOTSTRAP}:
        if ROW_BOOTSTRAP not in methods:
            return ""
        return (
            f"{run.confidence_level * 100:g} % interval, from the stratified bootstrap of the rows "
            f"({run.bootstrap_resamples:,} resamples, seed {run.bootstrap_seed}), the resamples of the averaged AUCs"
        )
    bins = class_bins(max((len(m.per_class or {}) for m in result.models.values()), default=2))
    binned = (
        (
            f"; a class's scores with more than {2 * MODEL_BINS:,} distinct values over the true classes binned first "
            f"into {bins:,} equal-weight bins, the interval moved by the binning's error on the AUC"
        )
        if CLASS_TABLE_BINNED_BOOTSTRAP in methods
        else ""
    )
    return (
        f"{run.confidence_level * 100:g} % interval, from the stratified bootstrap drawn on the class tables "
        f"({run.bootstrap_resamples:,} resamples, seed {run.bootstrap_seed}): per true class, where its resampled "
        f"rows' scores fall is one multinomial draw, the distribution of resampling the rows themselves{binned}"
    )


def class_report_note(result: ComparisonResult) -> str:
    """How the classification tables' intervals were made, "" without any."""
    if not any(m.classification is not None and m.classification.ci_method for m in result.models.values()):
        return ""
    run = result.run
    weighted = any(m.weighted for m in result.models.values())
    return (
        f"Under each value, its {run.confidence_level * 100:g} % interval from the stratified bootstrap drawn on the "
        f"confusion counts ({run.bootstrap_resamples:,} resamples, seed {run.bootstrap_seed}): per true class, "
        "its row of the confusion matrix is one multinomial draw, the distribution of resampling the rows themselves"
        + ("; weighted models have none (a weight sum is not a count)" if weighted else "")
        + ". Macro and weighted averages count an undefined class value as 0 (scikit-learn's zero_division=0)."
    )


def nir_sentence(t: ClassificationTable) -> str:
    """Accuracy against the no-information rate, with the one-sided exact binomial test."""
    head = f"Accuracy {fmt_bounded(t.accuracy)} against the no-information rate {fmt_bounded(t.nir)} (the largest class's share)"
    if t.nir_p_value is None:
        return f"{head}; no test: weighted rows are not counts."
    return (
        f"{head}: {fmt_p(t.nir_p_value)}, one-sided exact binomial test of accuracy > NIR "
        f"({fmt_count(t.correct)} right of {fmt_count(t.n)})."
    )


# --------------------------------------------------------------------------------------
# Verdicts, decision rules and notices: sentences from the engine's facts
# --------------------------------------------------------------------------------------

_NICE = {
    "gini": "Gini",
    "roc_auc": "AUC",
    "ks": "KS",
    "f1": "F1",
    "mcc": "MCC",
    "average_precision": "average precision",
    "accuracy": "accuracy",
    "expected_cost": "expected cost",
    "f1_macro": "macro F1",
    "f1_micro": "micro F1",
    "f1_weighted": "weighted F1",
    "f1_of_macro_pr": "F1 of macro precision and recall",
    "roc_auc_ovr_macro": "one-vs-rest macro AUC",
    "roc_auc_ovr_weighted": "one-vs-rest weighted AUC",
    "roc_auc_ovo_macro": "one-vs-one AUC (Hand & Till)",
    "roc_auc_ovr_micro": "micro-averaged AUC",
    "cohen_kappa": "Cohen's kappa",
    "log_loss": "log-loss",
}


#: How a verdict names its test (``Decision.method`` → words).
_TEST_WORDS = {
    "DeLong (paired)": "DeLong's paired test",
    "DeLong (unpaired, Welch t)": "DeLong's unpaired test, Welch t",
    "bootstrap": "paired bootstrap",
    BOOTSTRAP_NORMAL: "paired bootstrap, normal test on its SE",
}


def _detectable(d: Decision, name: str) -> str:
    """Beside "not significant": the smallest difference the test would have seen (DeLong verdicts)."""
    if d.min_detectable_delta is None:
        return ""
    return (
        f" (with 80 % power this test detects a {name} difference of {fmt_bounded(d.min_detectable_delta, 3, 0.0)} "
        f"or more at the {fmt_pct(d.alpha, 0)} level, before Holm)"
    )


def verdict_of(model: str, baseline: str, d: Decision, partial_auc: bool = False) -> str:
    """One plain sentence written from the decision's facts alone: which way, by how much, how sure.

    The interval is labelled unadjusted when the family has several verdicts, with the
    simultaneous (Bonferroni) interval beside it; the conclusion follows ``d.direction``, which
    the Holm-adjusted p-value decides (:mod:`reportgen.engine.multiplicity`). ``partial_auc``:
    the comparison has partial AUC tests, which share the verdicts' Holm family (:func:`family_words`).
    """
    name = _NICE.get(d.metric, d.metric.replace("_", " "))
    if d.delta is None:
        return f"{model}'s {name} cannot be compared with {baseline}'s (undefined on these data)."
    p_txt = fmt_p(d.p_value, d.p_value_is_bound)
    if d.p_value_is_bound and d.p_value:
        p_txt = f"p ≤ 1/(B+1) = {d.p_value:.2g} with B = {round(1.0 / d.p_value) - 1:,} resamples"
    test = _TEST_WORDS.get(d.method, d.method)
    if d.delta == 0:
        return f"{model}'s {name} equals {baseline}'s ({p_txt}, {test})."
    several = d.family_size > 1
    ci_txt = ""
    if d.ci is not None:
        lab = "unadjusted " if several else ""
        ci_txt = minus(f", {lab}{d.ci_level * 100:g} % CI {d.ci[0]:.3f} to {d.ci[1]:.3f}")
        if several and d.ci_simultaneous is not None:
            ci_txt += minus(
                f" (simultaneous {d.ci_simultaneous_level * 100:.3g} % CI {d.ci_simultaneous[0]:.3f} to "
                f"{d.ci_simultaneous[1]:.3f})"
            )
    holm = ""
    if several and d.p_value_adjusted is not None:
        holm = (
            f", Holm-adjusted over {family_words(d.family, d.family_size, baseline, partial_auc)}, "
            f"{fmt_p(d.p_value_adjusted, d.p_value_adjusted_is_bound)}"
        )
    sig = ""
    if d.significant is not None:
        sig = {"better": " — significantly better.", "worse": " — significantly worse."}.get(
            d.direction, " — not significant" + _detectable(d, name) + "."
        )
    way = "higher" if d.delta > 0 else "lower"
    # a non-zero difference is never "0.000 higher": more decimals until it shows (0.0003 higher)
    size = fmt_bounded(abs(d.delta), 3, 0.0)
    if d.significant is None:
        # no test (no p-value: e.g. a bootstrap primary metric with the bootstrap off): the sentence
        # ended "…, p n/a (no test)" with no conclusion, which read as a finding
        return (
            f"{model}'s {name} is {size} {way} than {baseline}'s on these rows{ci_txt}; the difference was "
            f"not tested (no p-value), so it is not established."
        )
    return f"{model}'s {name} is {size} {way} than {baseline}'s{ci_txt}, {p_txt} ({test}){holm}{sig}"


def ranking_note(result: ComparisonResult) -> str:
    """What the ranking by the primary metric does not say: the models whose difference from the
    baseline is not significant (or not tested) are ordered by their point estimates only, which a
    reader took for a ranking the tests had established. Empty when every verdict is decided."""
    open_ = [c.model for c in result.comparisons if c.decision is not None and c.decision.direction == "inconclusive"]
    if not open_:
        return ""
    name = _NICE.get(result.run.primary_metric, result.run.primary_metric.replace("_", " "))
    base = result.run.baseline
    if len(open_) == 1:
        return (
            f"The order is that of the point estimates: {open_[0]}'s difference in {name} from {base} is not "
            f"significant (see the verdict above), so the ranking does not show {open_[0]} to be better or "
            f"worse than {base}."
        )
    who = ", ".join(f"{m}'s" for m in open_[:-1]) + f" and {open_[-1]}'s"
    return (
        f"The order is that of the point estimates: {who} differences in {name} from {base} are not "
        f"significant (see the verdicts above), so the ranking does not show them to be better or worse "
        f"than {base}."
    )


def verdict(c: Comparison) -> str:
    """The comparison's verdict, written from ``c.decision``; the stored sentence when the result
    has no decision (a ``metrics.json`` written before decisions were recorded)."""
    if c.decision is None:
        return c.verdict
    return verdict_of(c.model, c.baseline, c.decision, any(t.p_value is not None for t in c.partial_auc))


#: How a multiclass model decides a row's class (``ModelResult.decision_rule``).
_CLASS_RULES = {
    "prediction_column": "predicted class from the prediction column",
    "argmax": "predicted class = the highest class score (ties to the first class in order)",
}


def rule(m: ModelResult) -> str:
    """The model's decision rule in words ("positive when score ≥ 0.5"), from its facts."""
    if m.decision_rule == "threshold" and m.threshold is not None:
        op = "≥" if m.direction == "higher" else "≤"
        return f"positive when score {op} {fmt_threshold(m.threshold)}"  # as configured, every digit
    return _CLASS_RULES.get(m.decision_rule or "", m.rule)


def _names(xs: Sequence[str]) -> str:
    return ", ".join(xs)


def _reprs(xs: Sequence[object]) -> str:
    """Class labels as the report quotes them: ``'a', 'b'``."""
    return ", ".join(repr(x) for x in xs)


def _class(p: Mapping[str, object]) -> str:
    """The class a reason is about: ``class 'a'``, or the micro-average (class None)."""
    c = p.get("class")
    return "the micro-average" if c is None else f"class {c!r}"


def _single_class(p: Mapping[str, object]) -> str:
    parts = []
    if p.get("truth"):
        parts.append("the truth has a single class")
    if p.get("predictions"):
        parts.append("a single class is predicted")
    return " and ".join(parts) + " (0/0; scikit-learn returns 0)"


#: Why a metric is undefined: every :data:`~reportgen.results.UndefinedCode` with its sentence,
#: written from the metric's key and the reason's facts (a test keeps the two lists equal).
UNDEFINED_TEXT: dict[str, Callable[[str, Mapping[str, object]], str]] = {
    "no_predicted_positives": lambda k, p: "no row predicted positive (TP + FP = 0)",
    "no_predicted_negatives": lambda k, p: "no row predicted negative (TN + FN = 0)",
    "no_positives": lambda k, p: "no positives in the data",
    "no_negatives": lambda k, p: "no negatives in the data",
    "needs_both_classes": lambda k, p: "needs both classes in the data",
    "no_positives_no_predicted": lambda k, p: (
        "no positives and no predicted positives" + (" (2TP + FP + FN = 0)" if k == "f1" else "")
    ),
    "chance_agreement_one": lambda k, p: "chance agreement is 1 (all rows in one class and one prediction)",
    "empty_confusion_line": lambda k, p: "a row or column of the confusion matrix is empty",
    "frequency_weight_below_one_row": lambda k, p: (
        "weights are frequency weights here, and a class has less than one row's worth of weight"
    ),
    "no_rows": lambda k, p: "no rows",
    "not_probabilities_direction": lambda k, p: "scores are not probabilities (direction: lower)" + _pd_note(k, p),
    "not_probabilities_range": lambda k, p: "scores are not probabilities (outside [0, 1])" + _pd_note(k, p),
    "declared_not_probabilities": lambda k, p: "scores declared not to be probabilities",
    "undefined": lambda k, p: "undefined on these data",
    "class_no_predicted_positives": lambda k, p: f"no predicted positives for {_class(p)}",
    "class_no_support": lambda k, p: f"no true rows of {_class(p)} (support 0)",
    "class_no_positives": lambda k, p: f"no positives for {_class(p)}",
    "class_no_negatives": lambda k, p: f"no negatives for {_class(p)} (every row is of it)",
    "class_absent": lambda k, p: f"{_class(p)} neither occurs nor is predicted",
    "no_probabilities": lambda k, p: "no probabilities given",
    "no_cost_matrix": lambda k, p: "no cost matrix given",
    "one_same_class": lambda k, p: "truth and predictions are all one and the same class (chance agreement is 1)",
    "zero_expected_disagreement": lambda k, p: "expected disagreement is zero",
    "classes_not_ordinal": lambda k, p: "the classes are not declared ordered by ordinal: true",
    "single_class": lambda k, p: _single_class(p),
    "proba_outside_unit": lambda k, p: "proba has values outside [0, 1]; scores are not probabilities",
    "no_class_with_both": lambda k, p: "no class has both positives and negatives",
    "no_class_pair": lambda k, p: "no pair of classes with rows of both classes",
}


def _pd_note(metric: str, p: Mapping[str, object]) -> str:
    """Where a scorecard's PD column gives the metric (the credit section's calibration)."""
    v = p.get("pd_brier" if metric == "brier" else "pd_log_loss")
    return f"; from its PD column {v:.4f} (credit validation)" if isinstance(v, float) else ""


def undefined_text(metric: str, reason: Reason) -> str:
    """Why ``metric`` is undefined, in words, from its reason code and facts."""
    write = UNDEFINED_TEXT.get(reason.code)
    if write is None:
        raise ValueError(f"unknown undefined-reason code {reason.code!r}")
    return write(metric, dict(reason.params))


def undefined_of(m: ModelResult) -> dict[str, str]:
    """A model's undefined metrics → why, in words: from its reason codes, or the stored
    sentences of a result written before the codes were recorded."""
    if m.undefined_reasons:
        return {k: undefined_text(k, r) for k, r in m.undefined_reasons.items()}
    return dict(m.undefined)


def optimum_label(criterion: str, o: Optimum, labels: Mapping[str, str]) -> str:
    """The label of an optimal-threshold row: the catalogue's label of the criterion (``labels``),
    else the optimum's own (a constraint rule's), marked when no cut has a defined value."""
    text = labels.get(criterion, o.description or criterion)
    return text + " (undefined on these data)" if o.value is None and criterion not in labels else text


def log_loss_clipping_sentence(weight: float, log_loss: float, total: float, weighted: bool = False) -> str:
    """The warning when clipped probabilities enter the log-loss (notice ``log_loss_clipped``):
    how many rows (their total weight for a weighted model), what each adds (−log ε) and their
    share of the log-loss (:func:`reportgen.engine.class_tables.log_loss_clipping_share`); the
    log-loss is said to reflect the clipping constant more than the model only when that share
    is at least half."""
    share = log_loss_clipping_share(weight, log_loss, total) or 0.0
    rows = f"rows of total weight {weight:g}" if weighted else f"{weight:g} row(s)"
    part = "under 1" if 0.0 < share < 0.005 else f"{share * 100:.0f}"
    tail = ", so the log-loss reflects the clipping constant more than the model" if share >= 0.5 else ""
    return (
        f"{rows} give the true class probability 0 (below ε = {LOG_LOSS_EPS:.2g}); clipped to ε, each "
        f"adds −log ε ≈ {-math.log(LOG_LOSS_EPS):.1f}, together {part} % of the log-loss{tail}"
    )


def _metric_note(p: dict, text: str) -> str:
    """A multiclass metric's caveat under the metric's name in the tables: ``model 'a': Precision,
    macro (mean over classes): <text>`` (never its key, "f1 of macro pr")."""
    key = str(p["metric"])
    return f"{_who(p)}: {LABELS.get(key, key.replace('_', ' '))}: {text}"


def _auc_left_out(p: dict) -> str:
    left = ", ".join(f"{c!r} ({UNDEFINED_TEXT[w]('roc_auc', {'class': c})})" for c, w in zip(p["classes"], p["why"]))
    return _metric_note(p, f"classes left out: {left}")


def _who(p: Mapping[str, object]) -> str:
    """Whom a notice is about: "model 'a'", or for one fact of several models (:func:`merged`)
    "models 'a', 'b' and 'c'"."""
    models = p.get("models")
    if isinstance(models, (list, tuple)) and models:
        quoted = [f"'{m}'" for m in models]
        return "models " + (quoted[0] if len(quoted) == 1 else ", ".join(quoted[:-1]) + " and " + quoted[-1])
    return f"model '{p['model']}'"


def _model_prefix(p: dict) -> str:
    return f"{_who(p)}: "


#: What a DeLong notice is about (``statistic``; absent: the comparison's test).
_DELONG_STATISTIC = {"auc_interval": "AUC interval", "gini_interval": "Gini interval", "delong_test": "DeLong's test"}


def zero_variance_note(auc: float, what: str = "AUC interval") -> str:
    """Why DeLong's variance is 0, in words: every positive scores above every negative (AUC 1),
    below every negative (AUC 0), or — a constant score — ties every negative (AUC 0.5); the
    placement values V10, V01 are then all equal. Only AUC 0 or 1 is "perfectly separated"."""
    if auc in (0.0, 1.0):
        why = f"AUC = {auc:g}: the classes are perfectly separated"
    elif auc == 0.5:
        why = "AUC = 0.5: every positive ties every negative, as with a constant score"
    else:
        why = f"AUC = {auc:g}: every positive is placed alike among the negatives"
    return f"{what}: DeLong's variance is 0 ({why}), so the interval has zero width and understates the uncertainty"


def _delong_small_sample(p: dict) -> str:
    what = _DELONG_STATISTIC[p.get("statistic") or "delong_test"]
    what = what if p.get("sample") is None else f"{what} (sample {p['sample']})"
    return (
        f"{what}: only {p['positives']} positives and {p['negatives']} negatives; DeLong's normal "
        f"approximation is weak with fewer than {stats.SMALL_CLASS} rows in a class, so treat the interval and "
        f"p-value as rough"
    )


#: Every notice code the engine and the run return (:data:`~reportgen.results.NoticeCode`), with its
#: sentence (``params`` → words); a test keeps the two lists equal.
NOTICE_CODES = {
    "unpaired_lengths": lambda p: (
        "the models' files have different numbers of rows ("
        + ", ".join(f"{n}: {fmt_count(r)}" for n, r in zip(p["names"], p["rows"]))
        + ") and no 'id' joins them, so the models are compared as independent samples (unpaired tests, "
        "wider intervals, no McNemar test); to pair them, give every file an id column and set 'id:' (or "
        "models[].id), with 'id_mismatch: intersect' to keep the ids present in every file"
    ),
    "scores_binned": lambda p: (
        f"{_who(p)}: more than {p['max_distinct']:,} distinct scores, binned into {p['bins']:,} "
        f"{p['binning']} bins; its AUC is within ±{p['bound']:.2g} of the exact value and its thresholds are bin "
        f"boundaries that occur in the data"
    ),
    "ids_not_shared": lambda p: f"{_who(p)}: {p['rows']} row(s) whose id is not in every model were dropped",
    "class_never_in_truth": lambda p: (
        f"class {str(p['class'])!r} never occurs in the truth"
        + (f"; predicted by {', '.join(repr(n) for n in p['predicted_by'])}" if p["predicted_by"] else "")
        + " (its recall and support are 0 / undefined)"
    ),
    "class_never_predicted": lambda p: (
        f"{_who(p)} never predict{'' if 'models' in p else 's'} class(es) {', '.join(repr(str(c)) for c in p['classes'])}"
    ),
    "threshold_outside_scores": lambda p: (
        f"threshold {fmt_threshold(p['threshold'])} lies outside the scores of {_who(p)} ({p['score_min']:g} to "
        f"{p['score_max']:g}), so every row is predicted {p['predicted']}; check '{p['threshold_key']}' "
        f"(or the model's 'direction')"
    ),
    "auc_below_half": lambda p: (
        f"{_who(p)}: AUC {p['auc']:.3f} < 0.5 — the score may point the other way; check 'direction' "
        f"(now '{p['direction']}')"
    ),
    "small_class": lambda p: (
        f"{_who(p)}: only {p['rows']:g} row{'' if p['rows'] == 1 else 's'} in the smaller class; intervals "
        f"and tests are unreliable"
    ),
    "log_loss_clipped": lambda p: (
        f"{_who(p)}: log-loss: "
        + log_loss_clipping_sentence(p["weight"], p["log_loss"], p["total"], bool(p.get("weighted")))
    ),
    "delong_zero_variance": lambda p: (
        (_model_prefix(p) if "model" in p or "models" in p else "")
        + zero_variance_note(p["auc"], _DELONG_STATISTIC[p.get("statistic") or "auc_interval"])
    ),
    "zero_width_interval": lambda p: (
        f"{_who(p)}: the {p['level'] * 100:g} % interval of {_names(p['metrics'])} has zero width (every "
        f"resample gave the same value), which understates the uncertainty"
    ),
    "zero_width_class_interval": lambda p: (
        f"{_who(p)}: the {p['level'] * 100:g} % interval of the one-vs-rest AUC of class(es) {_reprs(p['classes'])} "
        f"has zero width (every resample gave the same value, e.g. the class's scores separate it perfectly), which "
        f"understates the uncertainty"
    ),
    "classes_counted_as_zero": lambda p: _metric_note(
        p, (f"{p['stem']} undefined for {_reprs(p['classes'])}; counted as 0 (scikit-learn zero_division=0)")
    ),
    "macro_pr_counted_as_zero": lambda p: _metric_note(
        p, "built from macro precision / recall with undefined classes counted as 0"
    ),
    "classes_without_support": lambda p: _metric_note(
        p, f"mean recall over classes with support; left out: {_reprs(p['classes'])}"
    ),
    "probability_rows_unnormalised": lambda p: _metric_note(
        p,
        (
            f"probability rows do not sum to 1 (largest deviation {p['max_row_dev']:.3g}); used unnormalised, as "
            f"scikit-learn does"
        ),
    ),
    "classes_left_out_of_auc": _auc_left_out,
    "class_pairs_left_out": lambda p: _metric_note(
        p,
        "pairs left out (a class has no rows): "
        + ", ".join(f"({a!r}, {b!r})" for a, b in zip(p["first"], p["second"])),
    ),
    # read only: a result written before the multiclass caveats had codes (the note is the sentence)
    "class_note": lambda p: _metric_note(p, p["note"]),
    "small_classes": lambda p: (
        f"{_who(p)}: class(es) {', '.join(repr(c) for c in p['classes'])} have fewer than "
        f"{p['min_rows']:g} rows; their per-class metrics and the intervals are unreliable"
    ),
    "delong_small_sample": _delong_small_sample,
    "delong_infinite_z": lambda p: (
        "DeLong's test: the standard error of the AUC difference is 0 while the AUCs differ (perfect separation), "
        "so z is infinite and p = 0 is a convention, not an estimate"
    ),
    "zero_width_difference": lambda p: (
        f"The {p['level'] * 100:g} % interval of the difference in {_names(p['metrics'])} has zero width: the "
        f"difference was the same on every resample (e.g. both models decide alike on every row), so the interval "
        f"shows no sampling variation, not certainty about other data."
    ),
    "rows_dropped": lambda p: f"{_who(p)}: {p['rows']} row(s) dropped ({p['reason']})",
    "credit_red": lambda p: (
        f"{_who(p)}: credit validation red: {credit_failure_names(p['failures'], sentence=True)} "
        f"(see Credit validation)"
    ),
    "credit_sampling_weights": lambda p: (
        "the credit validation section counts obligors (rows): sampling weights do not apply "
        "there (weight_kind: frequency makes a weight count obligors)"
    ),
    "credit_grade_order": lambda p: (
        "the credit validation section sorts the rating column's grades as text (A before AA before AAA): set "
        "credit.grades.order to the rating scale, best grade first, for the rank-order check and the migration"
    ),
    "segment_deprecated": lambda p: (
        f"'segment: {p['column']}' is deprecated: it is read as 'segments: [{p['column']}]'; write that instead"
    ),
    "segment_reversal": lambda p: (
        f"{'Better' if p['overall'] == 'better' else 'Worse'} than the baseline overall, {p['model']} is "
        f"significantly {p['segment']} on {p['column']} = {p['value']} ({p['metric']} difference "
        f"{minus(format(p['delta'], '+.3f'))}, Holm-adjusted {fmt_p(p['p_adjusted'])})"
    ),
}


def notice_text(n: Notice) -> str:
    """The sentence of one notice (its code and facts)."""
    write = NOTICE_CODES.get(n.code)
    if write is None:
        raise ValueError(f"unknown notice code {n.code!r}")
    return write(dict(n.params))


def merged(notices: Sequence[Notice]) -> list[Notice]:
    """One notice per fact: notices that differ only in their model become one naming every model
    (param ``models`` for ``model``), at the place of the first; every other notice as it is.
    Ten models with the same small classes give one warning, not ten."""
    order: list[tuple[str, str]] = []
    groups: dict[tuple[str, str], list[Notice]] = {}
    for i, n in enumerate(notices):
        p = dict(n.params)
        key: tuple[str, str] = (
            (n.code, repr(sorted((k, v) for k, v in p.items() if k != "model"))) if "model" in p else (n.code, f"#{i}")
        )
        if key not in groups:
            order.append(key)
        groups.setdefault(key, []).append(n)
    out = []
    for key in order:
        ns = groups[key]
        models = list(dict.fromkeys(str(n.params["model"]) for n in ns)) if len(ns) > 1 else []
        if len(models) > 1:
            rest = {k: v for k, v in ns[0].params.items() if k != "model"}
            out.append(Notice(ns[0].code, {**rest, "models": models}))
        else:
            out.append(ns[0])
    return out


def notice_texts(notices: Sequence[Notice]) -> list[str]:
    """The run's warnings in words, one per fact (:func:`merged`)."""
    return [notice_text(n) for n in merged(notices)]


def model_warnings(m: ModelResult) -> list[str]:
    """A model's warnings in words: from its notices, or the stored sentences of an older result."""
    return [notice_text(n) for n in m.notices] if m.notices else list(m.warnings)


def caveats_of(c: Comparison) -> list[str]:
    """The tests' own caveats under a comparison: from its notices, or the stored sentences."""
    t = c.tests
    return [notice_text(n) for n in t.notices] if t.notices else list(t.notes)


def worded(result: ComparisonResult) -> ComparisonResult:
    """The result with its sentence fields written from its facts (the report / serialisation edge):
    each model's ``rule``, ``undefined`` and ``warnings``, each comparison's ``verdict`` and ``tests.notes``.

    The engine leaves them empty; ``metrics.json`` keeps the sentences for its readers, the
    report writes them again from the same facts (so a saved result re-renders alike).
    """
    models = {
        n: dataclasses.replace(m, rule=rule(m), undefined=undefined_of(m), warnings=model_warnings(m))
        for n, m in result.models.items()
    }
    comparisons = [
        dataclasses.replace(c, verdict=verdict(c), tests=dataclasses.replace(c.tests, notes=caveats_of(c)))
        for c in result.comparisons
    ]
    return dataclasses.replace(result, models=models, comparisons=comparisons)


__all__ = [
    "NOTICE_CODES",
    "UNDEFINED_TEXT",
    "log_loss_clipping_sentence",
    "optimum_label",
    "ranking_note",
    "undefined_of",
    "undefined_text",
    "model_warnings",
    "merged",
    "notice_texts",
    "per_class_interval_note",
    "notice_text",
    "rule",
    "caveats_of",
    "verdict",
    "verdict_of",
    "worded",
    "NO_BOOTSTRAP",
    "PAIRING_TEXT",
    "approval_sentence",
    "achieved_note",
    "CREDIT_WORDS",
    "GENERIC_WORDS",
    "Vocabulary",
    "vocabulary",
    "capability_note",
    "comparison_notes",
    "interval_kind",
    "interval_methods",
    "mcnemar_sentence",
    "multiplicity_sentence",
    "family_words",
    "table_bootstrap_note",
    "weights_sentence",
]
