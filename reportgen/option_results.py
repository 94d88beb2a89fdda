"""Result types of the analyses a config or its data opt into: partial AUC, operating points and
the optimal thresholds' intervals, calibration (a model's bins and a challenger's deltas),
prevalence scenarios, the multiclass tables and curves, the config's checks and the history's
trend. Frozen like every result type
(:class:`reportgen.result_base.Frozen`).

Apart from :mod:`reportgen.results` so that a binary run that asks for none of them does not build
their types (16 dataclasses, issue 46), as :mod:`reportgen.section_results` for the optional
sections; :class:`~reportgen.results.ComparisonResult`'s types name them, and
:mod:`reportgen.results` imports this module to read or describe them.
"""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from dataclasses import dataclass, field
from typing import Literal

import numpy as np

from reportgen.result_base import CurveData, Frozen, Optimum, lengths_differ


@dataclass(frozen=True, slots=True, repr=False, eq=False)
class ConfusionMatrixData(Frozen):
    """K×K matrix, rows = true class, columns = predicted class."""

    labels: Sequence[str]
    matrix: Sequence[Sequence[float]]

    def problem(self) -> str | None:
        k = len(self.labels)
        if len(self.matrix) != k or any(len(row) != k for row in self.matrix):
            return f"expected a {k}×{k} matrix (one row and column per label)"
        return None


@dataclass(frozen=True, slots=True, repr=False, eq=False)
class MulticlassCurves(Frozen):
    """A multiclass model's one-vs-rest ROC and precision–recall curve per class, and the micro-averaged
    ROC curve."""

    per_class_roc: Mapping[str, CurveData]
    per_class_pr: Mapping[str, CurveData]
    micro_roc: CurveData | None = None


@dataclass(frozen=True, slots=True, repr=False, eq=False)
class CalibrationDelta(Frozen):
    """A challenger's calibration numbers minus the baseline's, with intervals."""

    delta: Mapping[str, float | None]
    ci: Mapping[str, Sequence[float]]
    ci_method: str = field(
        metadata={
            "description": (
                "How the intervals were made: the paired bootstrap on the pair's joint table (binary) or per-row Brier "
                "error differences (multiclass), else the two models' bootstrap variances added; 'no interval: ...' "
                "says why there is none."
            )
        }
    )


@dataclass(frozen=True, slots=True, repr=False, eq=False)
class PartialAuc(Frozen):
    """One model's partial AUC over a configured range (pROC's definition, McClish's correction)."""

    focus: Literal["specificity", "sensitivity"] = field(
        metadata={"description": "The axis the range is on: specificity (1 - FPR) or sensitivity (TPR)."}
    )
    lo: float
    hi: float
    value: float | None = field(
        metadata={"description": "The raw partial area, between 0 and hi - lo; null without both classes."}
    )
    corrected: float | None = field(
        metadata={
            "description": (
                "McClish's standardised partial AUC (0.5 useless, 1 perfect over the range); null where the curve is "
                "below the diagonal over the range (pROC: NA)."
            )
        }
    )
    ci: Sequence[float] | None = field(metadata={"description": "Percentile bootstrap interval of value."})
    corrected_ci: Sequence[float] | None = field(
        metadata={"description": "Percentile bootstrap interval of corrected (replicates below the diagonal left out)."}
    )
    ci_method: str = field(metadata={"description": "How the intervals were drawn (the score table's bootstrap)."})


_OP_KIND = (
    "'tpr_at_fpr': the true positive rate at the false positive rate 'at'; 'precision_at_recall': the "
    "precision at the recall 'at' (both read off the ROC curve, linear between cuts: pROC's coords)."
)


@dataclass(frozen=True, slots=True, repr=False, eq=False)
class OperatingPoint(Frozen):
    """One model at one configured operating point (``operating_points:``), with its interval."""

    kind: Literal["tpr_at_fpr", "precision_at_recall"] = field(metadata={"description": _OP_KIND})
    at: float = field(metadata={"description": "The configured false positive rate or recall."})
    value: float | None = field(metadata={"description": "The TPR or precision there; null without both classes."})
    ci: Sequence[float] | None = field(metadata={"description": "Percentile bootstrap interval of value."})


@dataclass(frozen=True, slots=True, repr=False, eq=False)
class OptimumInterval(Frozen):
    """Bootstrap intervals of one optimal threshold (``optimal_thresholds`` of the same criterion):
    every resample finds its own optimum (pROC's ci.coords with x = "best")."""

    criterion: str
    threshold_ci: Sequence[float] | None = field(
        metadata={"description": "Percentile interval of the resamples' optimal thresholds (score units)."}
    )
    value_ci: Sequence[float] | None = field(
        metadata={"description": "Percentile interval of the criterion's value at the resamples' optima."}
    )
    tpr_ci: Sequence[float] | None = field(metadata={"description": "... of the true positive rate there."})
    fpr_ci: Sequence[float] | None = field(metadata={"description": "... of the false positive rate there."})


@dataclass(frozen=True, slots=True, repr=False, eq=False)
class OperatingPoints(Frozen):
    """One model's configured operating points and the intervals of its optimal thresholds."""

    points: Sequence[OperatingPoint] = field(
        metadata={"description": "The configured FPRs, then the configured recalls, in the config's order."}
    )
    optima: Sequence[OptimumInterval] = field(
        metadata={"description": "One per optimal threshold, in the order of optimal_thresholds; empty when off."}
    )
    ci_method: str = field(metadata={"description": "How the intervals were drawn (the score table's bootstrap)."})


@dataclass(frozen=True, slots=True, repr=False, eq=False)
class OperatingPointDelta(Frozen):
    """A challenger against the baseline at one configured operating point: descriptive (its p is
    not adjusted and gives no verdict)."""

    kind: Literal["tpr_at_fpr", "precision_at_recall"] = field(metadata={"description": _OP_KIND})
    at: float
    delta: float | None = field(metadata={"description": "The model's value minus the baseline's."})
    ci: Sequence[float] | None = field(
        metadata={"description": "delta +- z * SD of the bootstrap differences, at the run's level."}
    )
    p_value: float | None = field(
        metadata={"description": "Two-sided p of delta / SD of the bootstrap differences; descriptive, not adjusted."}
    )
    paired: bool = field(
        metadata={"description": "True: replicates drawn on the pair's joint score table; false: variances added."}
    )
    ci_method: str


@dataclass(frozen=True, slots=True, repr=False, eq=False)
class PartialAucTest(Frozen):
    """A challenger's partial AUC against the baseline's over one range: pROC's bootstrap test."""

    focus: Literal["specificity", "sensitivity"]
    lo: float
    hi: float
    delta: float | None = field(metadata={"description": "Raw partial AUC, model minus baseline."})
    delta_corrected: float | None = field(
        metadata={"description": "McClish-corrected partial AUC, model minus baseline (null if either is)."}
    )
    ci: Sequence[float] | None = field(
        metadata={"description": "Interval of delta: delta +- z * SD of the bootstrap differences, at the run's level."}
    )
    p_value: float | None = field(
        metadata={
            "description": (
                "Two-sided p of D = delta / SD of the bootstrap differences (pROC roc.test, method bootstrap); the "
                "corrected pAUC is a linear map of the raw one, so it is the test of both."
            )
        }
    )
    p_value_adjusted: float | None = field(
        metadata={"description": "Holm-adjusted over the 'verdicts' family (the verdicts and every partial AUC test)."}
    )
    family_size: int | None
    significant: bool | None = field(metadata={"description": "Adjusted p below alpha; null without a test."})
    paired: bool = field(
        metadata={"description": "True: replicates drawn on the pair's joint score table; false: variances added."}
    )
    method: str = field(metadata={"description": "How the bootstrap differences were drawn."})


@dataclass(frozen=True, slots=True, repr=False, eq=False)
class ClassificationTable(Frozen):
    """A multiclass model's classification table beyond its per-class fields ('per_class'): the
    macro, weighted and micro averages with their intervals, and accuracy against the
    no-information rate (reportgen.engine.class_report)."""

    averages: Mapping[str, Mapping[str, float | None]] = field(
        metadata={
            "description": (
                "macro | weighted | micro -> precision, recall, f1, specificity. macro and weighted count an "
                "undefined class value as 0 (scikit-learn zero_division=0); micro is the pooled counts' value."
            )
        }
    )
    averages_ci: Mapping[str, Mapping[str, Sequence[float]]] = field(
        metadata={"description": "average -> field -> [lo, hi], drawn on the confusion counts; empty without."}
    )
    ci_method: str | None = field(metadata={"description": "How the intervals (here and per class) were made."})
    accuracy: float
    nir: float = field(metadata={"description": "The no-information rate: the largest class's share of the rows."})
    correct: float = field(metadata={"description": "Rows predicted right (weight when weighted)."})
    n: float = field(metadata={"description": "Rows (weight when weighted)."})
    nir_p_value: float | None = field(
        metadata={
            "description": (
                "One-sided exact binomial test of accuracy > NIR, P(X >= correct) for X ~ Bin(n, NIR) (caret "
                "confusionMatrix, PyCM); null for weighted rows."
            )
        }
    )
    nir_reason: str | None = field(default=None, metadata={"description": "Why nir_p_value is null."})


@dataclass(frozen=True, slots=True, repr=False, eq=False)
class ClassProbabilities(Frozen):
    """A multiclass model's probabilities judged as probabilities (reportgen.engine.class_probabilities):
    Brier score, calibration errors, top-k accuracy and the cost-optimal decision rule."""

    brier: float | None = field(
        metadata={
            "description": (
                "Multiclass Brier score: mean over rows of the sum over classes of (p - [true class])^2, in [0, 2] "
                "(Brier 1950; scikit-learn >= 1.7 brier_score_loss on the probability matrix)."
            )
        }
    )
    ece_classwise: float | None = field(
        metadata={
            "description": "Class-wise ECE (Kull et al. 2019): the mean over classes of each column's binned ECE."
        }
    )
    ece_top_label: float | None = field(
        metadata={"description": "Top-label ECE (Guo et al. 2017): the confidence (highest probability) binned."}
    )
    bins: int = field(metadata={"description": "Equal-width bins of (0, 1] of both ECEs."})
    confidence: np.ndarray = field(
        metadata={"description": "Top-label reliability, per non-empty bin: the mean confidence."}
    )
    accuracy: np.ndarray = field(metadata={"description": "Per non-empty bin: the share predicted right (argmax)."})
    counts: np.ndarray = field(metadata={"description": "Per non-empty bin: its rows (weight)."})
    top_k: int | None = field(metadata={"description": "The k of top_k_accuracy (config top_k)."})
    top_k_accuracy: float | None = field(
        metadata={
            "description": (
                "Share of rows whose true class is among the k highest scores, ties ordered as scikit-learn's "
                "top_k_accuracy_score (the higher class index first)."
            )
        }
    )
    cost_optimal_confusion: Sequence[Sequence[float]] | None = field(
        metadata={
            "description": (
                "With a cost matrix: the confusion matrix (rows = true class) of predicting argmin_j sum_i p_i C[i, j]."
            )
        }
    )
    expected_cost_optimal: float | None = field(metadata={"description": "Its expected cost per row."})
    expected_cost_argmax: float | None = field(
        metadata={"description": "The expected cost per row of predicting the most probable class."}
    )
    reasons: Mapping[str, str] = field(
        metadata={"description": "field -> why it is null: proba_outside_unit, two_classes, no_cost_matrix."}
    )
    ci: Mapping[str, Sequence[float]] = field(
        default_factory=dict,
        metadata={
            "description": (
                "field -> percentile interval (stratified bootstrap, unweighted rows, the same in every engine): "
                "top_k_accuracy on the counts by (true class, rank of its score); brier and ece_top_label on the rows' "
                "Brier errors and confidences counted per true class, rounded to 2^-5 (ci_method)."
            )
        },
    )
    ci_method: Mapping[str, str] = field(
        default_factory=dict, metadata={"description": "field -> how its interval in ci was drawn."}
    )

    def problem(self) -> str | None:
        return lengths_differ(confidence=self.confidence, accuracy=self.accuracy, counts=self.counts)


@dataclass(frozen=True, slots=True, repr=False, eq=False)
class ClassDeltas(Frozen):
    """A multiclass challenger's per-class differences from the baseline (model − baseline)."""

    delta: Mapping[str, Mapping[str, float | None]] = field(
        metadata={"description": "class -> recall | f1 | roc_auc -> model − baseline; null when either is undefined."}
    )
    ci: Mapping[str, Mapping[str, Sequence[float]]] = field(
        metadata={"description": "class -> field -> paired interval of the difference; empty without."}
    )
    ci_method: Mapping[str, str] = field(metadata={"description": "field -> how its intervals were made."})


@dataclass(frozen=True, slots=True, repr=False, eq=False)
class CheckResult(Frozen):
    """One ``checks:`` rule of the config, evaluated on this run's results."""

    rule: str = field(metadata={"description": "The rule as written, e.g. 'challenger: gini at least 0.45'."})
    kind: Literal["metric", "comparison"]
    passed: bool
    detail: str = field(metadata={"description": "What was found, e.g. 'gini = 0.412'; why a check failed."})
    model: str | None = None
    metric: str | None = None
    bound: Literal["at_least", "at_most", "must_not_be_worse"] | None = None
    limit: float | None = None
    value: float | None = field(
        default=None,
        metadata={
            "description": (
                "The metric's value (a metric check) or the primary metric's delta (a comparison check); null when undefined."
            )
        },
    )
    outcome: Literal["better", "worse", "no_difference", "undefined"] | None = field(
        default=None,
        metadata={
            "description": (
                "A comparison check: the challenger against the baseline on the primary metric at the run's confidence level."
            )
        },
    )


@dataclass(frozen=True, slots=True, repr=False, eq=False)
class TrendPoint(Frozen):
    """One headline number of one recorded run (``history:``), for the report's trend section."""

    run_id: str
    created: str
    subject: str = field(metadata={"description": "A model name, or 'MODEL vs BASELINE' for a comparison."})
    kind: Literal["model", "comparison"]
    metric: str = field(
        metadata={
            "description": (
                "A catalogue metric, or 'default_rate' (the weighted share of positives); for a comparison, the primary metric's delta."
            )
        }
    )
    value: float | None
    ci: Sequence[float] | None = None


@dataclass(frozen=True, slots=True, repr=False, eq=False)
class PrevalenceScenario(Frozen):
    """Optimal thresholds when positives make up ``prevalence`` of the population."""

    prevalence: float
    optimal_thresholds: Mapping[str, Optimum]
    metrics: Mapping[str, float | None]


@dataclass(frozen=True, slots=True, repr=False, eq=False)
class CalibrationSummary(Frozen):
    """One model's calibration over the configured bins (``calibration:``): per non-empty bin, in
    order of mean predicted probability, and the summary numbers with their intervals."""

    strategy: Literal["uniform", "quantile"]
    bins: int = field(metadata={"description": "The configured number of bins (empty ones are left out below)."})
    mean_predicted: np.ndarray
    observed: np.ndarray = field(metadata={"description": "Each bin's share of positives."})
    counts: np.ndarray = field(metadata={"description": "Each bin's rows (weight)."})
    observed_lo: np.ndarray = field(
        metadata={
            "description": "Each bin's Clopper-Pearson lower bound of the observed share (NaN-free; weighted: 0)."
        }
    )
    observed_hi: np.ndarray = field(metadata={"description": "Each bin's Clopper-Pearson upper bound (weighted: 1)."})
    values: Mapping[str, float | None] = field(
        metadata={
            "description": (
                "ece, mce, brier, reliability, resolution, uncertainty (Murphy's decomposition on the bins) and "
                "brier_skill (1 - brier / uncertainty); null when undefined."
            )
        }
    )
    ci: Mapping[str, Sequence[float]] = field(
        metadata={"description": "name -> percentile bootstrap interval (none for uncertainty: fixed by the design)."}
    )
    ci_method: str

    def problem(self) -> str | None:
        return lengths_differ(
            mean_predicted=self.mean_predicted,
            observed=self.observed,
            counts=self.counts,
            observed_lo=self.observed_lo,
            observed_hi=self.observed_hi,
        )


#: The types :class:`~reportgen.results.ComparisonResult`'s fields name, by name (with
#: :data:`reportgen.section_results.SECTIONS`, the ``localns`` its type hints are resolved in).
OPTIONS: dict[str, type] = {
    t.__name__: t
    for t in (
        ConfusionMatrixData,
        MulticlassCurves,
        CalibrationDelta,
        PartialAuc,
        OperatingPoint,
        OptimumInterval,
        OperatingPoints,
        OperatingPointDelta,
        PartialAucTest,
        ClassificationTable,
        ClassProbabilities,
        ClassDeltas,
        CheckResult,
        TrendPoint,
        PrevalenceScenario,
        CalibrationSummary,
    )
}
