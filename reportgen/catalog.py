"""The metric catalogue: one row per metric and per optimal-threshold criterion.

Everything that names a metric reads it from here: the config's choices (``primary_metric``,
constraint rules), the engines' metric lists and better directions, the value ranges the
binary engine clips to, the labels of the report and its figures. Before this module those
lists lived in five places and drifted apart (criterion labels; multiclass primary metrics);
``tests/unit/test_catalog.py`` checks the rows against what the engines actually compute.

Order matters: it is the order of ``models.NAME.metrics`` in ``metrics.json`` and of the
report's metric tables. A task's metrics are the rows of that task in catalogue order, with
one exception kept from the binary engine: binary threshold metrics come before binary
ranking metrics (the engine evaluates them apart, threshold metrics on one cut and ranking
metrics on the whole score table). Hence ``expected_cost`` is the last row: it ends the
binary threshold metrics and the multiclass list alike.

This module imports nothing from reportgen, so that config, engine, results and report can
all read it.
"""

from __future__ import annotations

import math
from dataclasses import dataclass
from typing import Literal

from reportgen.value import Value

Better = Literal["higher", "lower"] | None
Task = Literal["binary", "multiclass"]
Kind = Literal["threshold", "ranking"]

INF = math.inf


@dataclass(frozen=True, repr=False, eq=False, slots=True)
class Metric(Value):
    """One metric as every part of reportgen should see it.

    Attributes:
        key: the name in ``metrics.json`` and in the config (``primary_metric: gini``).
        label: the report's name, with an optional parenthesised gloss ("Gini (2·AUC − 1)").
        better: "higher" or "lower" is better; None when neither is (the baseline accuracy
            depends only on the labels, so it cannot rank models).
        lo, hi: the mathematical range (±inf for an open side). A range finite on both sides
            is enforced by clipping (floating-point sums can leave it by a few ulps).
        tasks: the tasks whose engines compute it.
        probabilities: needs probability scores (log-loss, Brier), or for multiclass the
            class score columns (the AUCs); undefined with predictions or plain scores only.
        kind: "threshold": a function of the confusion counts at the decision threshold
            alone; "ranking": needs the scores themselves (AUCs, KS, losses).
        constraint: a constraint rule (``constraints: [{maximize: .., where: ..}]``) may name
            it: a binary threshold metric that varies with the cut and whose behaviour along
            a run of cuts the optimum search knows (``engine.binary._ALONG_RUN``).
    """

    key: str
    label: str
    better: Better
    lo: float
    hi: float
    tasks: tuple[Task, ...]
    kind: Kind
    probabilities: bool = False
    constraint: bool = False

    @property
    def short_label(self) -> str:
        """The label without its parenthesised gloss ("Gini (2·AUC − 1)" → "Gini"), for figures."""
        return self.label.split(" (")[0]

    @property
    def bounded(self) -> bool:
        """Whether both ends of the range are finite (values are then clipped to it)."""
        return math.isfinite(self.lo) and math.isfinite(self.hi)

    @property
    def ideal_one(self) -> bool:
        """Higher is better and 1 is the best value: the relative error reduction
        ((1 − r₁) − (1 − r₂)) / (1 − r₁) applies."""
        return self.better == "higher" and self.hi == 1.0


@dataclass(frozen=True, repr=False, eq=False, slots=True)
class Criterion(Value):
    """An optimal-threshold criterion of the binary engine (``models.NAME.optimal_thresholds``).

    Attributes:
        key: the criterion's name in ``metrics.json``; for every criterion but ``break_even``
            also the metric it optimises.
        label: the description stored with each optimum (``Optimum.description``) and shown in
            the report's threshold table.
        short_label: for figure legends and narrow table headers.
        better: "higher" (maximised), "lower" (minimised), or None for ``break_even``, which
            is the cut where precision and recall meet rather than an extreme of a metric.
    """

    key: str
    label: str
    short_label: str
    better: Better


_B: tuple[Task, ...] = ("binary",)
_M: tuple[Task, ...] = ("multiclass",)
_BM: tuple[Task, ...] = ("binary", "multiclass")

#: Every metric, in catalogue order (see the module docstring for how a task's order follows).
METRICS: tuple[Metric, ...] = (
    Metric("accuracy", "Accuracy", "higher", 0.0, 1.0, _BM, "threshold", constraint=True),
    Metric("error_rate", "Error rate", "lower", 0.0, 1.0, _BM, "threshold"),
    Metric("baseline_accuracy", "Baseline accuracy (majority class)", None, 0.0, 1.0, _BM, "threshold"),
    Metric("precision", "Precision (PPV)", "higher", 0.0, 1.0, _B, "threshold", constraint=True),
    Metric("recall", "Recall (TPR, sensitivity)", "higher", 0.0, 1.0, _B, "threshold", constraint=True),
    Metric("specificity", "Specificity (TNR)", "higher", 0.0, 1.0, _B, "threshold", constraint=True),
    Metric("npv", "Negative predictive value", "higher", 0.0, 1.0, _B, "threshold", constraint=True),
    Metric("fpr", "False positive rate", "lower", 0.0, 1.0, _B, "threshold", constraint=True),
    Metric("fnr", "False negative rate", "lower", 0.0, 1.0, _B, "threshold", constraint=True),
    Metric("type_i_error", "Type I error share (FP / m)", "lower", 0.0, 1.0, _B, "threshold"),
    Metric("type_ii_error", "Type II error share (FN / m)", "lower", 0.0, 1.0, _B, "threshold"),
    Metric("f1", "F1", "higher", 0.0, 1.0, _B, "threshold", constraint=True),
    Metric("fbeta", "F-beta", "higher", 0.0, 1.0, _B, "threshold", constraint=True),
    Metric("balanced_accuracy", "Balanced accuracy", "higher", 0.0, 1.0, _BM, "threshold", constraint=True),
    Metric("youden_j", "Youden's J", "higher", -1.0, 1.0, _B, "threshold", constraint=True),
    Metric("cohen_kappa", "Cohen's kappa", "higher", -1.0, 1.0, _BM, "threshold", constraint=True),
    # Its lower bound depends on the number of classes and the margins, so none is assumed.
    Metric("quadratic_weighted_kappa", "Quadratic-weighted kappa (ordinal)", "higher", -INF, 1.0, _M, "threshold"),
    Metric("mcc", "Matthews correlation (MCC)", "higher", -1.0, 1.0, _BM, "threshold", constraint=True),
    Metric("precision_micro", "Precision, micro (pooled counts)", "higher", 0.0, 1.0, _M, "threshold"),
    Metric("precision_macro", "Precision, macro (mean over classes)", "higher", 0.0, 1.0, _M, "threshold"),
    Metric("precision_weighted", "Precision, weighted (by support)", "higher", 0.0, 1.0, _M, "threshold"),
    Metric("recall_micro", "Recall, micro", "higher", 0.0, 1.0, _M, "threshold"),
    Metric("recall_macro", "Recall, macro", "higher", 0.0, 1.0, _M, "threshold"),
    Metric("recall_weighted", "Recall, weighted", "higher", 0.0, 1.0, _M, "threshold"),
    Metric("f1_micro", "F1, micro", "higher", 0.0, 1.0, _M, "threshold"),
    Metric("f1_macro", "F1, macro (mean of per-class F1)", "higher", 0.0, 1.0, _M, "threshold"),
    Metric("f1_weighted", "F1, weighted", "higher", 0.0, 1.0, _M, "threshold"),
    Metric("f1_of_macro_pr", "F1 of macro precision and recall", "higher", 0.0, 1.0, _M, "threshold"),
    Metric("fbeta_micro", "F-beta, micro", "higher", 0.0, 1.0, _M, "threshold"),
    Metric("fbeta_macro", "F-beta, macro", "higher", 0.0, 1.0, _M, "threshold"),
    Metric("fbeta_weighted", "F-beta, weighted", "higher", 0.0, 1.0, _M, "threshold"),
    Metric("roc_auc_ovr_micro", "ROC AUC, one-vs-rest micro", "higher", 0.0, 1.0, _M, "ranking", probabilities=True),
    Metric("roc_auc_ovr_macro", "ROC AUC, one-vs-rest macro", "higher", 0.0, 1.0, _M, "ranking", probabilities=True),
    Metric(
        "roc_auc_ovr_weighted", "ROC AUC, one-vs-rest weighted", "higher", 0.0, 1.0, _M, "ranking", probabilities=True
    ),
    Metric(
        "roc_auc_ovo_macro", "ROC AUC, one-vs-one (Hand & Till)", "higher", 0.0, 1.0, _M, "ranking", probabilities=True
    ),
    Metric("roc_auc", "ROC AUC", "higher", 0.0, 1.0, _B, "ranking"),
    Metric("gini", "Gini (2·AUC − 1)", "higher", -1.0, 1.0, _B, "ranking"),
    Metric("average_precision", "Average precision", "higher", 0.0, 1.0, _B, "ranking"),
    Metric("r_precision", "R-precision (break-even)", "higher", 0.0, 1.0, _B, "ranking"),
    Metric("ks", "Kolmogorov–Smirnov", "higher", 0.0, 1.0, _B, "ranking"),
    Metric("defective_pairs", "Defective pairs share", "lower", 0.0, 1.0, _B, "ranking"),
    Metric("log_loss", "Log-loss", "lower", 0.0, INF, _BM, "ranking", probabilities=True),
    Metric("brier", "Brier score", "lower", 0.0, 1.0, _B, "ranking", probabilities=True),
    # Costs are non-negative (config), so the mean cost per row is too.
    Metric("expected_cost", "Expected cost per row", "lower", 0.0, INF, _BM, "threshold"),
)

#: Optimal-threshold criteria of the binary engine, in the order they are searched and reported.
CRITERIA: tuple[Criterion, ...] = (
    Criterion("f1", "max F1", "max F1", "higher"),
    Criterion("fbeta", "max F-beta", "max F-beta", "higher"),
    Criterion("mcc", "max MCC", "max MCC", "higher"),
    Criterion("cohen_kappa", "max Cohen's kappa", "max Cohen's kappa", "higher"),
    Criterion("balanced_accuracy", "max balanced accuracy", "max balanced accuracy", "higher"),
    Criterion("youden_j", "max Youden's J (= max balanced accuracy)", "max Youden's J", "higher"),
    Criterion("accuracy", "max accuracy", "max accuracy", "higher"),
    Criterion("expected_cost", "min expected cost per row", "min expected cost", "lower"),
    Criterion("break_even", "precision = recall (break-even point)", "break-even (P = R)", None),
)

_BY_KEY: dict[str, Metric] = {m.key: m for m in METRICS}
_CRITERION_BY_KEY: dict[str, Criterion] = {c.key: c for c in CRITERIA}


def metric(key: str) -> Metric:
    """The catalogue row of ``key``; KeyError for a key no engine computes."""
    return _BY_KEY[key]


def criterion(key: str) -> Criterion:
    """The catalogue row of criterion ``key``; KeyError for an unknown criterion."""
    return _CRITERION_BY_KEY[key]


def metrics_of(task: Task, kind: Kind | None = None) -> tuple[Metric, ...]:
    """The rows of ``task`` in report order (binary: threshold metrics, then ranking metrics),
    optionally only those of one ``kind``."""
    rows = [m for m in METRICS if task in m.tasks and (kind is None or m.kind == kind)]
    if task == "binary" and kind is None:
        rows = [m for m in rows if m.kind == "threshold"] + [m for m in rows if m.kind == "ranking"]
    return tuple(rows)


#: Rows that repeat another row's value by an identity, not by chance: key → (the row it equals,
#: when). "always": single-label multiclass, where every row adds one TP or one (FP, FN) pair, so
#: the pooled (micro) precision, recall and F-scores are the accuracy, and the support-weighted
#: recall Σ_c (support_c / m)·(TP_c / support_c) is too; "beta_one": F-beta is F1 at β = 1;
#: "every_class_occurs": balanced accuracy is the macro recall when every class has support. The
#: report tables the row they equal and says so once; ``metrics.json`` keeps both keys.
TWINS: dict[str, tuple[str, Literal["always", "beta_one", "every_class_occurs"]]] = {
    "precision_micro": ("accuracy", "always"),
    "recall_micro": ("accuracy", "always"),
    "f1_micro": ("accuracy", "always"),
    "fbeta_micro": ("accuracy", "always"),
    "recall_weighted": ("accuracy", "always"),
    "recall_macro": ("balanced_accuracy", "every_class_occurs"),
    "fbeta_macro": ("f1_macro", "beta_one"),
    "fbeta_weighted": ("f1_weighted", "beta_one"),
    "fbeta": ("f1", "beta_one"),
}


def twin_of(key: str, task: Task, *, beta: float, every_class_occurs: bool) -> str | None:
    """The metric ``key`` equals by an identity of ``task`` on this run (:data:`TWINS`), or None."""
    if key not in TWINS or task not in metric(key).tasks:
        return None
    other, when = TWINS[key]
    holds = {"always": True, "beta_one": beta == 1.0, "every_class_occurs": every_class_occurs}[when]
    return other if holds else None


#: Numbers of the credit validation section a ``checks:`` rule may bound (binary runs with
#: ``credit:``): key → what it is. Lower is better for each.
CREDIT_CHECK_METRICS: dict[str, str] = {
    "psi": "population stability index of the current sample against models[].reference",
}

#: Numbers of the fairness section a ``checks:`` rule may bound (binary runs with ``fairness:``):
#: key → what it is, taken over every protected column of the model (the worst group or column).
FAIRNESS_CHECK_METRICS: dict[str, str] = {
    "adverse_impact_ratio": "the smallest adverse-impact ratio of any group against its column's reference group",
    "demographic_parity_difference": "the largest demographic-parity difference of any protected column",
    "equalized_odds_difference": "the largest equalized-odds difference of any protected column",
}

#: Numbers of the segments section a ``checks:`` rule may bound (binary runs with ``segments:``).
SEGMENT_CHECK_METRICS: dict[str, str] = {
    "segments_significantly_worse": (
        "segment values (over every segment column) where the challenger is significantly worse than the baseline "
        "on the primary metric, Holm-adjusted over each column's values; at_most: 0 gates on none"
    ),
}
#: The fairness numbers of a challenger's change against the baseline (challenger − baseline,
#: fairness.models.NAME.changes and .paired) a ``checks:`` rule may bound; a rule without
#: ``model`` applies to every challenger. Each is the worst over the protected columns.
FAIRNESS_CHANGE_METRICS: dict[str, str] = {
    "adverse_impact_ratio_change": "the change of the smallest adverse-impact ratio (its largest fall over the columns)",
    "adverse_impact_ratio_change_upper": (
        "the upper end of that change's paired interval (at_least: 0 fails a significant fall)"
    ),
    "demographic_parity_difference_change": "the change of the demographic-parity difference (its largest rise)",
    "equalized_odds_difference_change": "the change of the equalized-odds difference (its largest rise)",
}
FAIRNESS_CHECK_METRICS.update(FAIRNESS_CHANGE_METRICS)


def keys(task: Task, kind: Kind | None = None) -> tuple[str, ...]:
    """The metric names of :func:`metrics_of`, as the engines' ``METRICS`` tuples list them."""
    return tuple(m.key for m in metrics_of(task, kind))


def better(task: Task) -> dict[str, Better]:
    """Metric → better direction for ``task`` (the engines' ``BETTER``)."""
    return {m.key: m.better for m in metrics_of(task)}


def primary_metrics(task: Task) -> tuple[str, ...]:
    """Metrics a run of ``task`` may rank models by (``primary_metric``): those with a better
    direction, since a verdict needs to know which way is better."""
    return tuple(m.key for m in metrics_of(task) if m.better is not None)


def constraint_metrics() -> tuple[str, ...]:
    """Metrics a binary constraint rule may name (``maximize`` and ``where``)."""
    return tuple(m.key for m in metrics_of("binary") if m.constraint)


def label(key: str) -> str:
    """The report's label of a metric, or the key with spaces for a name not in the catalogue
    (a constraint rule's name)."""
    row = _BY_KEY.get(key)
    return row.label if row is not None else key.replace("_", " ")


def short_label(key: str) -> str:
    """:func:`label` without its parenthesised gloss, for figure text."""
    return label(key).split(" (")[0]


#: The conventions of the statistics where tools and papers differ, each with the tool it agrees with
#: (``run.conventions`` of metrics.json; the documentation's table of conventions, written from this dict, and the glossary say the
#: same; ``tests/reference/`` checks each against its reference). Key → (tasks, sentence).
CONVENTIONS: dict[str, tuple[tuple[Task, ...], str]] = {
    "roc_auc": (
        ("binary", "multiclass"),
        ("Mann-Whitney U / (P·N), tied scores count 1/2 (scikit-learn roc_auc_score, pROC auc)."),
    ),
    "ks": (
        ("binary",),
        (
            "max over cuts of TPR − FPR in the declared direction, 0 if never positive (scipy "
            "ks_2samp(negatives' scores, positives' scores, alternative='greater')); the two-sided "
            "D = max |TPR − FPR| (ks_2samp default, R ks.test; the credit section's KS) is larger only where "
            "the ROC curve falls further below the diagonal than it rises above it. No KS test p-value is reported. "
            "Its threshold (ks_threshold) is the optimal Youden's J cut, ties broken as for the optimal thresholds."
        ),
    ),
    "average_precision": (
        ("binary",),
        (
            "Step sum Σ (R_k − R_{k−1})·P_k over distinct thresholds (scikit-learn average_precision_score), not "
            "interpolated and not a trapezoidal PR AUC."
        ),
    ),
    "log_loss": (
        ("binary", "multiclass"),
        (
            "Probabilities clipped to [ε, 1 − ε], ε = 2.220446049250313e-16 (scikit-learn log_loss 1.9); rows "
            "needing the clip are warned of (notice log_loss_clipped)."
        ),
    ),
    "mcc": (
        ("binary", "multiclass"),
        ("null with its reason when a factor of the denominator is 0 (scikit-learn matthews_corrcoef returns 0)."),
    ),
    "optimal_threshold_ties": (
        ("binary",),
        (
            "Of tied cuts the one with the fewest predicted positives: the highest threshold for direction higher, "
            "the lowest for direction lower; every threshold is a score that occurs in the data."
        ),
    ),
    "delong_interval": (
        ("binary",),
        (
            "AUC ± z·SE with DeLong's variance (pROC ci.auc, method 'delong'); when that would leave [0, 1], "
            "expit(logit(AUC) ∓ z·SE / (AUC(1 − AUC))) (Pepe 2003; ci_method 'DeLong (logit scale)'; pROC cuts at 1). "
            "Gini: 2·(AUC interval) − 1."
        ),
    ),
    "delong_test": (
        ("binary",),
        (
            "Paired: z = ΔAUC / SE with DeLong's covariance, normal p and interval (pROC roc.test, method 'delong'); "
            "unpaired: D referred to Student's t with Welch-Satterthwaite degrees of freedom (pROC)."
        ),
    ),
    "mcnemar": (
        ("binary", "multiclass"),
        (
            "Two-sided exact binomial test when b + c < 25 (statsmodels mcnemar default), else chi-square "
            "(|b − c| − 1)² / (b + c) with Edwards' continuity correction (R mcnemar.test); 'method' says which. "
            "The mid-p and uncorrected chi-square p-values that Fagerland, Lydersen & Laake (2013) recommend "
            "are given beside (p_value_mid_p, p_value_chi2)."
        ),
    ),
    "bootstrap_interval": (
        ("binary", "multiclass"),
        (
            "Percentile interval (quantiles (1 ∓ level)/2, linear interpolation: R type 7) of the stratified "
            "bootstrap, each class keeping its size, one resample for every model (paired); exceptions, named "
            "in ci_method: a model's KS (reshaped bootstrap-t), a proportion whose count is 0 or its total "
            "(Clopper-Pearson), AUC and Gini of unweighted binary models (DeLong)."
        ),
    ),
    "bootstrap_p": (
        ("binary", "multiclass"),
        (
            "Normal test on the bootstrap standard error: z = Δ / SD(Δ*), two-sided p = 2·Φ(−|z|), its intervals "
            "Δ ± z_(1−α/2)·SD(Δ*) and, simultaneous, Δ ± z_(1−α/(2m))·SD(Δ*) (Efron & Tibshirani 1993, §12.2); the "
            "verdict's interval is also the difference's. No resolution floor, so a Bonferroni interval that excludes 0 "
            "implies a Holm-significant verdict."
        ),
    ),
    "multiplicity": (
        ("binary", "multiclass"),
        (
            "Holm's step-down adjustment per family of tests, capped at 1 (statsmodels multipletests 'holm', "
            "R p.adjust); simultaneous intervals at the Bonferroni level 1 − α/m."
        ),
    ),
}


def conventions(task: Task) -> dict[str, str]:
    """The :data:`CONVENTIONS` that apply to a run of ``task``: key → sentence."""
    return {k: text for k, (tasks, text) in CONVENTIONS.items() if task in tasks}


__all__ = [
    "Metric",
    "Criterion",
    "METRICS",
    "CRITERIA",
    "CONVENTIONS",
    "metric",
    "criterion",
    "metrics_of",
    "keys",
    "better",
    "primary_metrics",
    "constraint_metrics",
    "conventions",
    "label",
    "short_label",
    "TWINS",
    "twin_of",
]
