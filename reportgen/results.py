"""Frozen result types of a comparison run, and their strict JSON round trip.

The JSON written to ``metrics.json`` *is* this structure (see ``reportgen/schema``), so a
report can be re-rendered or re-themed from a saved result without recomputing
(``reportgen render OUT/metrics.json``). Name-keyed maps (metrics, CIs, optima) are mappings so
that the JSON reads ``models.NAME.metrics.gini``; per-class and summary metrics live in
separate fields so a class named "accuracy" never collides with a summary key.

Results are deeply immutable: callers construct them from dicts, lists and numpy arrays, and
``__post_init__`` stores frozen copies (dicts → :class:`FrozenDict`, lists → tuples, arrays →
read-only copies), so neither a report nor a later stage can edit a metric or a curve of a
result another part of the program holds. Loading (:meth:`ComparisonResult.from_json`) is
strict and versioned: a file this version cannot read is refused with the JSON path of the
first problem, as a user error.

Undefined numbers are ``None`` (JSON ``null``), never NaN.

A leaf module: it imports nothing from the rest of reportgen but the error tree and the types'
base (:mod:`reportgen.result_base`), so the engine, the report and the config can all import it (the
engine's value types :class:`Confusion` and :class:`Optimum`, the latter from the base, are
here for that reason). The optional sections' types (credit-risk validation, fairness, segments)
are :mod:`reportgen.section_results`', those of the analyses a config opts into (partial AUC,
operating points, calibration, prevalence scenarios, multiclass tables, checks, trend)
:mod:`reportgen.option_results`', each imported where its values are built, drawn or read.
"""

from __future__ import annotations

import dataclasses
import functools
import hashlib
import json
import math
import re
import types
import typing
from collections.abc import Mapping, Sequence
from dataclasses import dataclass, field
from typing import Any, Literal, NoReturn

import numpy as np

import reportgen.catalog as catalog
from reportgen.errors import ResultError
from reportgen.result_base import (
    CalibrationData,
    CurveData,
    Frozen,
    FrozenDict,
    HolmFamily,
    Optimum,
    freeze,
    lengths_differ,
)

if typing.TYPE_CHECKING:
    import pandas as pd

    from reportgen.option_results import (
        CalibrationDelta,
        CalibrationSummary,
        CheckResult,
        ClassDeltas,
        ClassificationTable,
        ClassProbabilities,
        ConfusionMatrixData,
        MulticlassCurves,
        OperatingPointDelta,
        OperatingPoints,
        PartialAuc,
        PartialAucTest,
        PrevalenceScenario,
        TrendPoint,
    )
    from reportgen.section_results import CreditSection, FairnessSection, SegmentSection

#: The ``schema_version`` this reportgen writes and reads.
SCHEMA_VERSION = "1"


# --------------------------------------------------------------------------------------
# Result types
# --------------------------------------------------------------------------------------


@dataclass(frozen=True, slots=True, repr=False, eq=False)
class Confusion(Frozen):
    """Weighted confusion counts at one cut."""

    tp: float
    fp: float
    fn: float
    tn: float

    @property
    def total(self) -> float:
        return self.tp + self.fp + self.fn + self.tn


@dataclass(frozen=True, slots=True, repr=False, eq=False)
class CostCurveData(Frozen):
    """Drummond–Holte cost curve: the lower envelope of normalised expected cost over the probability cost
    PC(+) (Drummond & Holte 2006), and the model's operating point: its PC(+) and the (FPR, TPR) at its
    decision threshold."""

    pc: np.ndarray
    envelope: np.ndarray
    operating_pc: float

    def problem(self) -> str | None:
        return lengths_differ(pc=self.pc, envelope=self.envelope)

    operating_fpr: float
    operating_tpr: float


@dataclass(frozen=True, slots=True, repr=False, eq=False)
class KsData(Frozen):
    """The KS plot: the share of positives (tpr) and of negatives (fpr) predicted positive at each
    threshold."""

    thresholds: np.ndarray
    tpr: np.ndarray
    fpr: np.ndarray

    def problem(self) -> str | None:
        return lengths_differ(thresholds=self.thresholds, tpr=self.tpr, fpr=self.fpr)


@dataclass(frozen=True, slots=True, repr=False, eq=False)
class ScoreHistogram(Frozen):
    """Score distribution per class on shared bin edges (weighted counts)."""

    edges: np.ndarray
    positives: np.ndarray
    negatives: np.ndarray

    def problem(self) -> str | None:
        if self.edges.shape[0] != self.positives.shape[0] + 1:
            return f"expected one more edge than bins, found {self.edges.shape[0]} edges for {self.positives.shape[0]} bins"
        return lengths_differ(positives=self.positives, negatives=self.negatives)


@dataclass(frozen=True, slots=True, repr=False, eq=False)
class Curves(Frozen):
    """A binary model's curves, as the report draws them: ROC, precision–recall, each threshold metric
    against the threshold, KS, cost, lift, the score histogram and the reliability diagram."""

    roc: CurveData
    pr: CurveData
    threshold_metrics: Mapping[str, CurveData]
    ks: KsData | None = None
    cost: CostCurveData | None = None
    lift: CurveData | None = None  # x: share of rows taken, y: share of positives captured
    histogram: ScoreHistogram | None = None
    calibration: CalibrationData | None = None


@dataclass(frozen=True, slots=True, repr=False, eq=False)
class ScoreBand(Frozen):
    """One band of the score-band (decile) table, riskiest band first (reportgen.engine.bands)."""

    band: int = field(metadata={"description": "1 for the riskiest band (scores most indicative of a positive)."})
    score_first: float = field(metadata={"description": "The band's riskiest score."})
    score_last: float = field(metadata={"description": "The band's least risky score."})
    rows: float = field(metadata={"description": "Rows in the band (their weight when the table is weighted)."})
    positives: float = field(metadata={"description": "Positives in the band (weighted when weighted)."})
    rate: float | None = field(metadata={"description": "positives / rows of the band."})
    capture: float | None = field(
        metadata={"description": "Cumulative capture: positives in this and the riskier bands / all positives."}
    )
    share_of_rows: float | None = field(
        metadata={"description": "Cumulative share of rows: rows in this and the riskier bands / all rows."}
    )
    lift: float | None = field(metadata={"description": "Cumulative lift: capture / share_of_rows."})
    band_lift: float | None = field(
        metadata={"description": "The band's own lift: its rate / the positive rate of all rows."}
    )
    ks: float | None = field(
        metadata={
            "description": (
                "Cumulative share of positives minus cumulative share of negatives down to this band (TPR - FPR "
                "of the rule 'positive down to this band'); its largest value is the KS at the bands' resolution."
            )
        }
    )


@dataclass(frozen=True, slots=True, repr=False, eq=False)
class BandTable(Frozen):
    """The score-band table of one binary model: bands of about equal rows, ties kept whole."""

    bands: int = field(metadata={"description": "Bands asked for (config bands:); a tie can leave fewer."})
    weighted: bool = field(metadata={"description": "Rows and positives are weights."})
    rows: Sequence[ScoreBand] = field(
        metadata={
            "description": (
                "The bands, riskiest first. A band closes at the first distinct score at which the cumulative "
                "share of rows reaches k / bands; equal scores are never split between bands."
            )
        }
    )


@dataclass(frozen=True, slots=True, repr=False, eq=False)
class BinningInfo(Frozen):
    """How a model's scores were binned (streamed inputs with too many distinct scores).

    ``auc_error_bound``: Σ_b pos_b·neg_b / (2·P·N), the largest possible |AUC(binned) − AUC(raw)|.
    """

    method: str
    bins: int
    max_distinct_scores: int
    auc_error_bound: float


#: A notice's parameters: names → scalars or lists of names (metrics) or class labels (text,
#: numbers or booleans).
NoticeParams = Mapping[str, str | float | bool | Sequence[str | float | bool] | None]

#: Every warning / caveat code the engine and the run return (:attr:`Notice.code`); the report
#: layer has a sentence for each (``reportgen.report.wording.NOTICE_CODES``, a test keeps the two equal).
#: ``class_note`` is read only (results written before the multiclass notes had codes: its
#: ``note`` parameter is the sentence itself).
NoticeCode = Literal[
    "unpaired_lengths",  # names, rows: files of different lengths, no id: compared as independent samples
    "threshold_outside_scores",
    "auc_below_half",
    "small_class",
    "log_loss_clipped",
    "delong_zero_variance",
    "zero_width_interval",
    "zero_width_class_interval",
    "small_classes",
    "delong_small_sample",
    "delong_infinite_z",
    "zero_width_difference",
    "rows_dropped",
    "credit_red",
    "credit_sampling_weights",
    "credit_grade_order",
    "segment_deprecated",  # column: the config says segment: (read as segments: [column])
    "segment_reversal",  # model, column, value, overall, segment, delta, p_adjusted, metric: a segment against the overall result
    # the load audit's (params: model, and the facts below)
    "scores_binned",  # max_distinct, bins, binning, bound: too many distinct scores, binned (stream, dask)
    "ids_not_shared",  # rows: rows whose id is not in every model, dropped (id_mismatch: intersect)
    "class_never_in_truth",  # class, predicted_by: a configured or predicted class with no true row
    "class_never_predicted",  # classes: classes with true rows the model never predicts
    # a multiclass metric's caveat (params: model, metric, and the facts below)
    "classes_counted_as_zero",  # stem, classes: per-class values undefined, counted as 0 in the average
    "macro_pr_counted_as_zero",  # the F1 of macro P / R is built from averages with classes counted as 0
    "classes_without_support",  # classes: left out of the balanced accuracy
    "probability_rows_unnormalised",  # max_row_dev: rows of class scores do not sum to 1
    "classes_left_out_of_auc",  # classes, why (per class: class_no_positives / class_no_negatives)
    "class_pairs_left_out",  # first, second: the pairs left out of the one-vs-one AUC
    "class_note",
]
NOTICE_CODES: tuple[str, ...] = typing.get_args(NoticeCode)
_NOTICE_CODE_SET = frozenset(NOTICE_CODES)

#: Why a metric is undefined (:attr:`Reason.code`); the report layer has a sentence for each
#: (``reportgen.report.wording.UNDEFINED_TEXT``, a test keeps the two equal).
UndefinedCode = Literal[
    # binary
    "no_predicted_positives",  # TP + FP = 0
    "no_predicted_negatives",  # TN + FN = 0
    "no_positives",  # no positive rows
    "no_negatives",  # no negative rows
    "needs_both_classes",
    "no_positives_no_predicted",  # 2TP + FP + FN = 0
    "chance_agreement_one",  # Cohen's kappa: all rows in one class and one prediction
    "empty_confusion_line",  # MCC: a row or column of the confusion matrix is empty
    "frequency_weight_below_one_row",  # defective pairs: a class has less than one row's worth of weight
    "no_rows",
    "not_probabilities_direction",  # log-loss / Brier: direction lower
    "not_probabilities_range",  # log-loss / Brier: scores outside [0, 1]
    "declared_not_probabilities",  # the config says the scores are not probabilities
    "undefined",  # no more specific reason
    # multiclass (class: the class label; null for the micro-average)
    "class_no_predicted_positives",
    "class_no_support",
    "class_no_positives",
    "class_no_negatives",
    "class_absent",  # neither occurs nor is predicted
    "no_probabilities",
    "no_cost_matrix",
    "one_same_class",  # kappas: truth and predictions are all one and the same class
    "zero_expected_disagreement",
    "classes_not_ordinal",  # quadratic-weighted kappa: the config does not declare the classes ordered
    "single_class",  # MCC: truth (bool) and / or predictions (bool) hold a single class
    "proba_outside_unit",
    "no_class_with_both",  # no class has both positives and negatives
    "no_class_pair",  # no pair of classes with rows of both classes
]
UNDEFINED_CODES: tuple[str, ...] = typing.get_args(UndefinedCode)
_UNDEFINED_CODE_SET = frozenset(UNDEFINED_CODES)


class _Coded(Frozen):
    """Base of a code with its facts: refuses, when built, a code its enumeration does not list
    (so the engine cannot emit a code the report layer has no sentence for)."""

    __slots__ = ()
    _CODES: typing.ClassVar[frozenset[str]] = frozenset()
    _ENUM: typing.ClassVar[tuple[str, str]] = ("", "")  # (what, the Literal listing the codes)

    def __post_init__(self) -> None:
        code = getattr(self, "code")  # noqa: B009 - a field of every subclass
        if code not in self._CODES:
            what, enum = self._ENUM
            raise ValueError(f"unknown {what} code {code!r} (add it to reportgen.results.{enum})")
        Frozen.__post_init__(self)


@dataclass(frozen=True, slots=True, repr=False, eq=False)
class Notice(_Coded):
    """A warning or caveat as facts: a reason code and its parameters (the model, the counts, the
    values that triggered it). The report layer writes the sentence (``reportgen.report.wording``), so the
    engine returns no prose and a consumer of ``metrics.json`` can act on the code."""

    code: NoticeCode = field(
        metadata={
            "description": (
                "What happened, e.g. 'threshold_outside_scores', 'auc_below_half', 'small_class', 'zero_width_interval', "
                "'delong_small_sample', 'rows_dropped' (reportgen.results.NoticeCode lists them all; "
                "reportgen.report.wording.NOTICE_CODES words each)."
            )
        }
    )
    params: NoticeParams = field(
        default_factory=dict,
        metadata={
            "description": ("The facts the sentence is written from (model, threshold, counts, metric names, ...).")
        },
    )

    _CODES = _NOTICE_CODE_SET
    _ENUM = ("notice", "NoticeCode")


@dataclass(frozen=True, slots=True, repr=False, eq=False)
class Reason(_Coded):
    """Why a value is undefined, as facts: a code and its parameters (the class, which side holds a
    single class). The report layer writes the sentence (``reportgen.report.wording.undefined_text``)."""

    code: UndefinedCode = field(
        metadata={
            "description": (
                "Why the value is null, e.g. 'no_positives', 'no_predicted_positives', 'no_probabilities' "
                "(reportgen.results.UndefinedCode lists them all; reportgen.report.wording.UNDEFINED_TEXT words each)."
            )
        }
    )
    params: NoticeParams = field(
        default_factory=dict,
        metadata={
            "description": (
                "The facts the sentence is written from (a class label, which side holds a single class, ...)."
            )
        },
    )

    _CODES = _UNDEFINED_CODE_SET
    _ENUM = ("undefined-reason", "UndefinedCode")


@dataclass(frozen=True, slots=True, repr=False, eq=False)
class ModelResult(Frozen):
    """Everything computed for one model."""

    name: str
    file: str
    n: int
    positives: float | None
    negatives: float | None
    weighted: bool
    metrics: Mapping[str, float | None] = field(
        metadata={"description": "metric -> value; every metric of the task, null when undefined"}
    )
    undefined: Mapping[str, str] = field(
        metadata={
            "description": (
                "metric -> why it is null, in words: written by the report layer from 'undefined_reasons' (kept for "
                "readers of the text)."
            )
        }
    )
    ci: Mapping[str, Sequence[float]]
    ci_method: Mapping[str, str] = field(
        metadata={
            "description": (
                "metric -> how its interval was drawn, e.g. 'bootstrap of rows' (the stratified bootstrap of the kept rows, "
                "one draw for every model) or, for the multiclass micro-averaged AUC, 'bootstrap of rows, the "
                "micro-averaged AUC by its linear projection' (each resample evaluated by the AUC's linear "
                "(Hajek) projection at the observed rows)."
            )
        }
    )
    direction: Literal["higher", "lower"] = "higher"
    threshold: float | None = None
    rule: str = ""
    probabilities: bool = False
    confusion: Confusion | None = None
    ks_threshold: float | None = None
    optimal_thresholds: Mapping[str, Optimum] = field(
        default_factory=dict,
        metadata={
            "description": (
                "criterion -> optimum: one per optimal-threshold criterion of the catalogue, plus one per constraint rule"
            )
        },
    )
    prevalence_shift: Sequence[PrevalenceScenario] = field(default_factory=list)
    curves: Curves | None = None
    per_class: Mapping[str, Mapping[str, float | None]] | None = None
    confusion_matrix: ConfusionMatrixData | None = None
    multiclass_curves: MulticlassCurves | None = None
    n_distinct_scores: int | None = None
    warnings: Sequence[str] = field(
        default_factory=list,
        metadata={
            "description": (
                "The notices as sentences, written by the report layer from 'notices' (kept for readers of the text)."
            )
        },
    )
    binning: BinningInfo | None = field(
        default=None,
        metadata={
            "description": (
                "How the scores were binned (streamed inputs with more distinct scores than stream.max_distinct_scores); "
                "null: every score kept, results exact."
            )
        },
    )
    positives_rows: int | None = field(
        default=None,
        metadata={
            "description": (
                "Rows of the positive class (raw counts beside the weighted 'positives'); null when the evidence holds "
                "weighted tables only."
            )
        },
    )
    negatives_rows: int | None = field(
        default=None, metadata={"description": "Rows of the negative class (raw counts)."}
    )
    confusion_rows: Confusion | None = field(
        default=None,
        metadata={
            "description": (
                "The confusion counts in rows, beside the weighted 'confusion' (weighted models with their rows kept)."
            )
        },
    )
    notices: Sequence[Notice] = field(
        default_factory=list,
        metadata={
            "description": ("The model's warnings as reason codes with their facts ('warnings' is their wording).")
        },
    )
    per_class_ci: Mapping[str, Mapping[str, Sequence[float]]] = field(
        default_factory=dict,
        metadata={
            "description": (
                "class -> per-class metric -> [lo, hi] (multiclass): the one-vs-rest AUC's interval drawn on the class "
                "tables, the same in every engine; empty without intervals."
            )
        },
    )
    per_class_ci_method: Mapping[str, str] = field(
        default_factory=dict,
        metadata={"description": ("per-class metric -> how its intervals under 'per_class_ci' were made.")},
    )
    undefined_reasons: Mapping[str, Reason] = field(
        default_factory=dict,
        metadata={
            "description": (
                "metric -> why it is null, as a code with its facts ('undefined' is their wording); every null metric has "
                "one."
            )
        },
    )
    metric_sources: Mapping[str, str] = field(
        default_factory=dict,
        metadata={
            "description": (
                "metric -> where its value comes from when not from the score: 'pd_column', the model's PD column "
                "on the same rows (a scorecard's Brier score and log-loss, from the credit section's calibration; "
                "'calibration': the calibration section's numbers are the PD column's)."
            )
        },
    )
    bands: BandTable | None = field(
        default=None,
        metadata={
            "description": (
                "Binary: the score-band (decile) table, gains, lift and KS by band (config bands:); null for "
                "multiclass and for models with predicted labels only."
            )
        },
    )
    partial_auc: Sequence[PartialAuc] = field(
        default_factory=list,
        metadata={"description": "One per configured partial_auc range, in the config's order (binary)."},
    )
    calibration: CalibrationSummary | None = field(
        default=None,
        metadata={"description": "With calibration: set, a probability model's calibration (binary); else null."},
    )
    operating_points: OperatingPoints | None = field(
        default=None,
        metadata={"description": "With operating_points: set (binary), the model's values there; else null."},
    )
    decision_rule: Literal["threshold", "prediction_column", "argmax"] | None = field(
        default=None,
        metadata={
            "description": (
                "How a row's predicted class is decided: the score against 'threshold' in 'direction' "
                "(binary), the prediction column, or the highest class score (multiclass); 'rule' is its "
                "wording."
            )
        },
    )
    classification: ClassificationTable | None = field(
        default=None,
        metadata={"description": "Multiclass: the averages of the classification table and accuracy against the NIR."},
    )
    class_probabilities: ClassProbabilities | None = field(
        default=None,
        metadata={
            "description": "Multiclass with class probabilities: Brier, ECEs, top-k accuracy, cost-optimal rule."
        },
    )


_FAMILY = (
    "The Holm family of the adjusted p: 'verdicts' (the primary metric, each challenger against the baseline), "
    "'delong' or 'mcnemar' (those tests against the baseline), 'challenger_pairs' (DeLong, each pair of "
    "challengers); null in files written before families were recorded."
)


@dataclass(frozen=True, slots=True, repr=False, eq=False)
class DeLongSummary(Frozen):
    """DeLong's test of the AUC difference, model − baseline (DeLong, DeLong & Clarke-Pearson 1988):
    paired when both models scored the same rows, otherwise for independent samples (the AUCs'
    variances added, as pROC)."""

    auc_model: float
    auc_baseline: float
    delta: float
    se: float
    z: float | None  # None when the standard error is 0 but the AUCs differ (infinite z)
    p_value: float
    p_value_holm: float | None
    ci: Sequence[float]
    paired: bool
    family: HolmFamily | None = field(default=None, metadata={"description": _FAMILY})
    family_size: int | None = field(default=None, metadata={"description": "Tests in that family."})
    min_detectable_delta: float | None = field(
        default=None,
        metadata={
            "description": (
                "The smallest AUC difference this two-sided test at alpha = 1 - confidence_level detects with 80 % "
                "power at the observed sample and correlation (pROC power.roc.test with DeLong's variances, "
                "Obuchowski & McClish 1997; the baseline as reference); null in older files."
            )
        },
    )
    power: float | None = field(
        default=None,
        metadata={"description": "The test's power against the observed difference, same formula; null if undefined."},
    )


@dataclass(frozen=True, slots=True, repr=False, eq=False)
class McNemarSummary(Frozen):
    """McNemar's test at the decision rules: which model errs more, on what counts."""

    statistic: float
    p_value: float
    p_value_holm: float | None
    method: str
    table: Sequence[Sequence[float]]  # [[both correct, model only], [baseline only, both wrong]]
    model_only_right: float | None = field(
        default=None,
        metadata={"description": ("Discordant count b: rows the model decides right and the baseline wrong.")},
    )
    baseline_only_right: float | None = field(
        default=None,
        metadata={"description": ("Discordant count c: rows the baseline decides right and the model wrong.")},
    )
    errs_more: Literal["model", "baseline", "neither"] | None = field(
        default=None,
        metadata={
            "description": (
                "Which side makes more errors on the discordant rows (c > b: the model; b > c: the baseline)."
            )
        },
    )
    basis: Literal["rows", "frequency_weights"] = field(
        default="rows",
        metadata={
            "description": (
                "What the table counts: rows (unweighted, or sampling weights, which never inflate the evidence) or "
                "frequency weights (a row of weight w is w identical rows)."
            )
        },
    )
    weighted_table: Sequence[Sequence[float]] | None = field(
        default=None,
        metadata={
            "description": (
                "The same 2x2 table in sampling-weighted counts, shown beside the row counts; null when unweighted."
            )
        },
    )
    p_value_exact: float | None = field(
        default=None,
        metadata={
            "description": (
                "Two-sided exact conditional (binomial) p-value, min(1, 2 P(X <= min(b, c))), X ~ Bin(b + c, 1/2), "
                "whichever test `method` names (statsmodels mcnemar(exact=True))."
            )
        },
    )
    p_value_mid_p: float | None = field(
        default=None,
        metadata={
            "description": (
                "Two-sided mid-p value, 2 P(X <= min(b, c)) - P(X = min(b, c)) (1 - P(X = b)/2 when b = c): the test "
                "Fagerland, Lydersen & Laake (2013) recommend."
            )
        },
    )
    p_value_chi2: float | None = field(
        default=None,
        metadata={
            "description": (
                "Asymptotic McNemar p-value without continuity correction, chi2 = (b - c)^2 / (b + c) on 1 df."
            )
        },
    )
    p_value_chi2_corrected: float | None = field(
        default=None,
        metadata={
            "description": (
                "Asymptotic p-value with Edwards' continuity correction, chi2 = (|b - c| - 1)^2 / (b + c) on 1 df "
                "(R mcnemar.test; statsmodels mcnemar(exact=False))."
            )
        },
    )
    family: HolmFamily | None = field(default=None, metadata={"description": _FAMILY})
    family_size: int | None = field(default=None, metadata={"description": "Tests in that family."})


@dataclass(frozen=True, slots=True, repr=False, eq=False)
class Decision(Frozen):
    """The verdict on the primary metric as facts a scheduled job can act on (the sentence is written from them).

    Multiplicity: Holm over the family of verdicts of the run (one per model compared with the baseline,
    whatever the method); ``ci`` is unadjusted at ``ci_level``, ``ci_simultaneous`` covers the whole
    family at ``ci_simultaneous_level`` (Bonferroni).
    """

    metric: str
    better: Literal["higher", "lower"]
    delta: float | None
    method: str = field(
        metadata={
            "description": (
                "The test: 'DeLong (paired)', 'DeLong (unpaired, Welch t)', 'bootstrap (normal, SE of the replicates)' "
                "(z = delta / SD of the bootstrap differences), 'no test'; 'bootstrap' in older files (percentile p)."
            )
        }
    )
    p_value: float | None
    p_value_is_bound: bool = field(
        metadata={
            "description": (
                "True when p_value is only an upper bound: in older files, a percentile bootstrap p at its floor 1/(B+1); "
                "always false since bootstrap verdicts use the normal test."
            )
        }
    )
    p_value_adjusted: float | None
    p_value_adjusted_is_bound: bool
    adjustment: Literal["holm"]
    family_size: int = field(metadata={"description": "Tests in the Holm family (the verdicts of the run)."})
    alpha: float
    significant: bool | None = field(metadata={"description": "Adjusted p below alpha; null without a test."})
    direction: Literal["better", "worse", "inconclusive"]
    ci: Sequence[float] | None = field(metadata={"description": "Unadjusted interval of delta at ci_level."})
    ci_level: float
    ci_simultaneous: Sequence[float] | None = field(
        metadata={
            "description": (
                "Simultaneous (Bonferroni) interval of delta at ci_simultaneous_level = 1 - alpha/family_size."
            )
        }
    )
    ci_simultaneous_level: float
    ci_method: str | None
    family: HolmFamily = field(
        default="verdicts",
        metadata={
            "description": (
                "The Holm family: always 'verdicts' (the primary metric, each challenger against the baseline)."
            )
        },
    )
    min_detectable_delta: float | None = field(
        default=None,
        metadata={
            "description": (
                "DeLong verdicts (AUC, Gini): the smallest difference of the metric the test detects with 80 % power at "
                "alpha = 1 - ci_level for the observed sample and correlation (tests.delong.min_detectable_delta, "
                "doubled for the Gini); null for other methods."
            )
        },
    )


@dataclass(frozen=True, slots=True, repr=False, eq=False)
class SwapCell(Frozen):
    """One cell of a swap-set table: rows and bads, in rows and in weight, and the (weighted) bad rate."""

    rows: int
    bads_rows: int
    weight: float
    bads_weight: float
    bad_rate: float | None


@dataclass(frozen=True, slots=True, repr=False, eq=False)
class ApprovalSide(Frozen):
    """One model at a target approval rate: its cut, the rate it achieves and its approved book's bad rate."""

    model: str
    threshold: float | None = field(
        metadata={
            "description": (
                "The riskiest score approved (rows scored at least as safe are approved); null when none is."
            )
        }
    )
    approval_rate: float = field(metadata={"description": "Achieved (weighted) share approved; ties move together."})
    approved_rows: int
    bads_rows: int
    approved_weight: float
    bads_weight: float
    bad_rate: float | None
    next_score: float | None = field(
        default=None,
        metadata={
            "description": (
                "The safest score declined (null when none is): any cut-off from 'threshold' up to but "
                "excluding this score approves the same rows, so the report prints the shortest such decimal."
            )
        },
    )


@dataclass(frozen=True, slots=True, repr=False, eq=False)
class ApprovalAtRate(Frozen):
    """The model and the baseline approving the same share of the rows: bad rates among the approved,
    their paired difference (model - baseline) with an interval, and the swap-set table."""

    target_rate: float
    source: Literal["baseline", "config"] = field(
        metadata={
            "description": (
                "'baseline': the baseline's approval rate at its decision rule; 'config': listed under approval_rates."
            )
        }
    )
    model: ApprovalSide
    baseline: ApprovalSide
    bad_rate_delta: float | None
    ci: Sequence[float] | None
    ci_level: float
    ci_method: str | None
    swap_in: SwapCell = field(metadata={"description": "Approved by the model, declined by the baseline."})
    swap_out: SwapCell = field(metadata={"description": "Declined by the model, approved by the baseline."})
    stay_approved: SwapCell
    stay_declined: SwapCell


@dataclass(frozen=True, slots=True, repr=False, eq=False)
class ComparisonTests(Frozen):
    """The tests of a challenger against the baseline: DeLong's test of the AUC difference and McNemar's
    test of the decisions at the thresholds (each null when it cannot be run)."""

    delong: DeLongSummary | None = None
    mcnemar: McNemarSummary | None = None
    notes: Sequence[str] = field(
        default_factory=list,
        metadata={"description": ("The tests' caveats as sentences, written by the report layer from 'notices'.")},
    )
    notices: Sequence[Notice] = field(
        default_factory=list,
        metadata={
            "description": (
                "The tests' caveats as reason codes with their facts (small samples, an infinite z, zero-width intervals)."
            )
        },
    )


@dataclass(frozen=True, slots=True, repr=False, eq=False)
class Comparison(Frozen):
    """One model against the baseline: deltas (model − baseline), CIs, tests and a verdict."""

    model: str
    baseline: str
    delta: Mapping[str, float | None]
    relative_delta: Mapping[str, float | None]
    relative_error_reduction: float | None
    relative_error_reductions: Mapping[str, float | None]
    ci: Mapping[str, Sequence[float]]
    tests: ComparisonTests
    verdict: str = field(
        default="",
        metadata={
            "description": ("The verdict as one sentence, written by the report layer from 'decision' (the facts).")
        },
    )
    primary_metric: str = "gini"
    #: how each interval of ``ci`` was made (e.g. "DeLong (paired)", "bootstrap of decision patterns")
    ci_method: dict[str, str] = field(
        default_factory=dict,
        metadata={
            "description": (
                "metric -> how its change's interval was made, e.g. 'DeLong (paired)', 'bootstrap of rows' (the "
                "paired stratified bootstrap of the kept rows) or, for the multiclass micro-averaged AUC, 'bootstrap "
                "of rows, the micro-averaged AUC by its linear projection' (each resample evaluated by the AUC's "
                "linear (Hajek) projection at the observed rows)."
            )
        },
    )
    #: what the evidence could not give, each with a reason code (e.g. "paired_interval.ks":
    #: "needs_rows"); the same codes from every engine for the same evidence
    capabilities: dict[str, str] = field(default_factory=dict)
    decision: Decision | None = field(
        default=None,
        metadata={
            "description": (
                "The verdict's facts: significant, direction (better / worse / inconclusive), adjusted p-value, method."
            )
        },
    )
    approval: Sequence[ApprovalAtRate] = field(
        default_factory=list,
        metadata={
            "description": (
                "At equal approval rate (binary, aligned rows): the baseline's rate at its rule, then approval_rates."
            )
        },
    )
    partial_auc: Sequence[PartialAucTest] = field(
        default_factory=list,
        metadata={"description": "One per configured partial_auc range: the paired (or unpaired) bootstrap test."},
    )
    calibration: CalibrationDelta | None = field(
        default=None,
        metadata={"description": "With calibration: set and both models calibrated: the differences of their numbers."},
    )
    class_deltas: ClassDeltas | None = field(
        default=None,
        metadata={
            "description": "Multiclass: each class's recall, F1 and one-vs-rest AUC difference from the baseline."
        },
    )
    operating_points: Sequence[OperatingPointDelta] = field(
        default_factory=list,
        metadata={"description": "One per configured operating point (binary): the paired (or unpaired) difference."},
    )


@dataclass(frozen=True, slots=True, repr=False, eq=False)
class PairwiseCell(Frozen):
    """One cell of the pairwise matrix: 'delta' is model − baseline, with its test's p-value and its
    Holm-adjusted p-value."""

    model: str
    baseline: str
    delta: float | None
    p_value: float | None
    p_value_holm: float | None = field(
        default=None,
        metadata={
            "description": (
                "Holm-adjusted within 'family': a pair of challengers over the challenger pairs (each unordered pair "
                "once); a pair with the baseline is its comparison's DeLong test, with that test's adjusted p."
            )
        },
    )
    family: HolmFamily | None = field(default=None, metadata={"description": _FAMILY})
    family_size: int | None = field(default=None, metadata={"description": "Tests in that family."})
    metric: str | None = field(
        default=None,
        metadata={
            "description": (
                "The metric of 'delta' (model − baseline) when not the Gini: multiclass, the primary metric (a pair "
                "of challengers tested by the normal test on its paired bootstrap SE); null: the Gini (binary, "
                "DeLong's test of the AUC)."
            )
        },
    )


@dataclass(frozen=True, slots=True, repr=False, eq=False)
class InputFile(Frozen):
    """A file the run read: its path, SHA-256, rows and size (the audit trail)."""

    path: str
    sha256: str
    rows: int
    size_bytes: int


@dataclass(frozen=True, slots=True, repr=False, eq=False)
class DroppedRows(Frozen):
    """Rows of a model's input left out of the comparison: how many, and why (e.g. "missing or
    non-finite score in 'score'")."""

    model: str
    reason: str
    rows: int


@dataclass(frozen=True, slots=True, repr=False, eq=False)
class RunInfo(Frozen):
    """The audit trail: what was run, on what, with which software, when."""

    title: str
    task: Literal["binary", "multiclass"]
    created: str
    run_id: str
    reportgen_version: str
    versions: Mapping[str, str]
    config: Mapping[str, Any]
    config_path: str
    files: Sequence[InputFile]
    dropped: Sequence[DroppedRows]
    warnings: Sequence[str]
    paired: bool
    baseline: str
    primary_metric: str
    threshold: float
    beta: float
    costs: Mapping[str, Any]
    confidence_level: float
    bootstrap_resamples: int
    bootstrap_seed: int
    duration_seconds: float
    author: str | None = None
    classes: Sequence[str] | None = None
    engine: Literal["memory", "stream", "dask"] = field(
        default="memory",
        metadata={
            "description": ("How the data was read: in memory, streamed in record batches, or on a Dask cluster.")
        },
    )
    date_range: Sequence[str] | None = field(
        default=None,
        metadata={
            "description": (
                "First and last date of the configured date column over the input files (ISO dates), or null."
            )
        },
    )
    weight_kind: Literal["sampling", "frequency"] = field(
        default="sampling",
        metadata={
            "description": (
                "What row weights mean: sampling (tests count rows, weights shape the estimates) or frequency "
                "(a row of weight w is w identical rows, in every metric, interval and test)."
            )
        },
    )
    multiplicity: Literal["holm"] = field(
        default="holm",
        metadata={
            "description": ("The adjustment of every family of tests in the run (verdicts, McNemar, pairwise): Holm.")
        },
    )
    notices: Sequence[Notice] = field(
        default_factory=list,
        metadata={
            "description": (
                "The run's warnings as reason codes with their facts: every model's notices, dropped rows, the credit "
                "section's; 'warnings' is their wording, after the loaders' own warnings."
            )
        },
    )
    conventions: Mapping[str, str] = field(
        default_factory=dict,
        metadata={
            "description": (
                "The conventions of the statistics where tools and papers differ (KS, average precision, log-loss "
                "clipping, MCC when undefined, threshold ties, DeLong's interval and test, McNemar, the bootstrap's "
                "intervals and p-values, multiplicity), each naming the tool it agrees with."
            )
        },
    )


@dataclass(frozen=True, slots=True, repr=False, eq=False)
class ComparisonResult(Frozen):
    """The whole run: models, comparisons with the baseline, the pairwise matrix, the audit trail."""

    run: RunInfo
    models: Mapping[str, ModelResult]
    comparisons: Sequence[Comparison]
    pairwise: Sequence[PairwiseCell] = field(default_factory=list)
    checks: Sequence[CheckResult] = field(
        default_factory=list,
        metadata={
            "description": (
                "The config's checks (gates), each passed or failed; reportgen run exits 3 when one failed."
            )
        },
    )
    trend: Sequence[TrendPoint] = field(
        default_factory=list,
        metadata={
            "description": (
                "Headline numbers of the runs recorded in the config's history store, this run last (empty without history)."
            )
        },
    )
    schema_version: str = SCHEMA_VERSION
    credit: CreditSection | None = field(
        default=None,
        metadata={
            "description": (
                "The credit-risk validation battery (config credit: or segment:); null when not configured."
            )
        },
    )
    fairness: FairnessSection | None = field(
        default=None,
        metadata={"description": "Fairness by protected group (config fairness:); null when not configured."},
    )
    segments: SegmentSection | None = field(
        default=None,
        metadata={"description": "The models compared within segments (config segments:); null when not configured."},
    )

    def to_json(self) -> dict[str, Any]:
        """The ``metrics.json`` document: plain dicts, lists, numbers, strings and nulls, its
        ``digest`` last (:func:`results_digest`)."""
        document = to_jsonable(self)
        return {**document, "digest": {"algorithm": DIGEST_ALGORITHM, "value": results_digest(document)}}

    @classmethod
    def from_json(cls, data: Any, source: str = "metrics.json") -> ComparisonResult:
        """A result from a parsed ``metrics.json`` document, checked strictly.

        Refuses a missing, unknown or newer ``schema_version``, unknown keys, missing required
        keys and values of the wrong type, raising :class:`ResultError` with a one-line message
        that names ``source`` and the JSON path (``models.champion.metrics.gini``). Keys added
        to schema version 1 after its first release have defaults and may be absent.
        """
        if not isinstance(data, dict):
            raise ResultError(f"{source}: expected a JSON object (a reportgen metrics.json), found {_found(data)}")
        check_schema_version(data, source)
        if "digest" in data:  # the file's, not the result's: its shape is checked here, its value by digest_status
            _check_digest_shape(data["digest"], source)
            data = {k: v for k, v in data.items() if k != "digest"}
        result = _load(cls, data, "", source)
        _check_text_lengths(result, source)
        _check_names(result, source)
        _check_ranges(result, source)
        return result

    def frames(self) -> dict[str, pd.DataFrame]:
        """The results as tidy pandas DataFrames, one row per fact, by name: ``metrics`` (model,
        metric, value, ci_low, ci_high, method, better, undefined), ``comparisons`` (model,
        baseline, metric, delta, relative_delta, ci_low, ci_high, p_value, p_adjusted, family,
        test, method, primary, verdict), ``thresholds`` (model, criterion, threshold, value, tp,
        fp, fn, tn, approval_rate), and when the run has them ``per_class``, ``checks``,
        ``trend``, ``credit_grades``, ``credit_tests``, ``credit_groups``, ``bands``, ``fairness_groups``,
        ``fairness_disparities``, ``fairness_changes``.

        Columns and dtypes are fixed (:data:`reportgen.frames.COLUMNS`); an undefined number is
        NaN. The ``--format csv`` / ``xlsx`` exports are these frames. pandas is imported here,
        on first call (:mod:`reportgen.frames`)."""
        from reportgen.frames import frames  # noqa: PLC0415  (pandas only when asked for)

        return frames(self)

    def __repr__(self) -> str:
        """One line (the generated repr of every curve point ran to hundreds of kilobytes)."""
        pm = self.run.primary_metric
        shown = ", ".join(f"{n} {pm} {_short(m.metrics.get(pm))}" for n, m in self.models.items())
        return (
            f"<ComparisonResult {self.run.title!r}: {self.run.task}, {len(self.models)} model(s), "
            f"baseline {self.run.baseline!r}; {shown}>"
        )

    def _repr_html_(self) -> str | None:
        """Jupyter's rich display: the summary and key figures (:mod:`reportgen.report.notebook`), or
        None (plain repr) when no display is registered (see :func:`set_html_display`)."""
        show = _HTML_DISPLAY.get("html")
        return None if show is None else show(self)


#: The notebook display of a result, registered by the report layer (:mod:`reportgen.report.notebook`,
#: imported with the public API) so that this module stays a leaf that imports no renderer.
_HTML_DISPLAY: dict[str, typing.Callable[[ComparisonResult], str]] = {}


def set_html_display(show: typing.Callable[[ComparisonResult], str]) -> None:
    """Register the function that renders a result as HTML for ``_repr_html_``."""
    _HTML_DISPLAY["html"] = show


def _short(v: float | None) -> str:
    return "n/a" if v is None else f"{v:.4g}"


# --------------------------------------------------------------------------------------
# Dataclass → JSON
# --------------------------------------------------------------------------------------


def _clean_float(v: float) -> float | None:
    return None if not math.isfinite(v) else v


def to_jsonable(obj: Any) -> Any:
    """Dataclasses → dicts, arrays and tuples → lists; NaN/inf → None. Deterministic key order."""
    kind = type(obj)
    if kind is float:  # the common leaves first: a curve is thousands of them
        return obj if math.isfinite(obj) else None
    if kind is str or kind is int or kind is bool or obj is None:
        return obj
    if dataclasses.is_dataclass(obj) and not isinstance(obj, type):
        return {f.name: to_jsonable(getattr(obj, f.name)) for f in dataclasses.fields(obj)}
    if isinstance(obj, np.ndarray):
        if obj.dtype.kind == "f":  # tolist gives Python floats
            return (
                [v if math.isfinite(v) else None for v in obj.tolist()]
                if obj.ndim == 1
                else [to_jsonable(r) for r in obj]
            )
        return obj.tolist()
    if isinstance(obj, (list, tuple)):  # before the Mapping ABC, which caches each type it is asked about
        return [to_jsonable(v) for v in obj]
    if isinstance(obj, Mapping):
        return {str(k): to_jsonable(v) for k, v in obj.items()}
    if isinstance(obj, (bool, np.bool_)):
        return bool(obj)
    if isinstance(obj, (int, np.integer)):
        return int(obj)
    if isinstance(obj, (float, np.floating)):
        return _clean_float(float(obj))
    return obj


# --------------------------------------------------------------------------------------
# The digest: tamper evidence for a saved metrics.json
# --------------------------------------------------------------------------------------

#: The hash of ``metrics.json``'s ``digest``.
DIGEST_ALGORITHM = "sha256"

#: What a digest's ``value`` is: 64 lower-case hexadecimal digits.
_DIGEST_VALUE = re.compile(r"[0-9a-f]{64}")

#: What :func:`digest_status` finds: the digest matches the results, does not, or is absent.
DigestStatus = Literal["ok", "edited", "missing"]


def results_digest(document: Mapping[str, Any]) -> str:
    """SHA-256 (hex) of a ``metrics.json`` document's canonical JSON, its ``digest`` key left out.

    Canonical: ``json.dumps(document, sort_keys=True, separators=(",", ":"), ensure_ascii=True)``
    of the parsed values, as UTF-8 (ASCII) bytes. Any change to a number, a string, a key or the
    structure changes it; re-indenting the file, reordering its keys or writing a number another way
    (``0.5`` as ``5e-1``) does not. Tamper-evident, not a signature: anyone can recompute it, so
    it shows a file edited by hand or by a tool that does not know it, not one forged on purpose.
    """
    content = {k: v for k, v in document.items() if k != "digest"}
    text = json.dumps(content, sort_keys=True, separators=(",", ":"), ensure_ascii=True, allow_nan=False)
    return hashlib.sha256(text.encode("ascii")).hexdigest()


def digest_status(document: Mapping[str, Any]) -> DigestStatus:
    """Whether a parsed ``metrics.json`` document's ``digest`` matches its results (``"ok"``),
    does not (``"edited"``), or is absent (``"missing"``: written before reportgen 0.2.0, or
    removed). Its shape is :meth:`ComparisonResult.from_json`'s to check."""
    if "digest" not in document:
        return "missing"
    return "ok" if document["digest"].get("value") == results_digest(document) else "edited"


def _check_digest_shape(digest: Any, source: str) -> None:
    """Refuse a ``digest`` that is not ``{"algorithm": "sha256", "value": <64 hex digits>}``."""
    if not isinstance(digest, dict):
        _fail(source, "digest", "an object", digest)
    for key in digest:
        if key not in ("algorithm", "value"):
            raise ResultError(f"{source}: digest.{key}: unknown key; expected keys: algorithm, value")
    for key in ("algorithm", "value"):
        if key not in digest:
            raise ResultError(f"{source}: digest.{key}: required key is missing")
    if digest["algorithm"] != DIGEST_ALGORITHM:
        _fail(source, "digest.algorithm", repr(DIGEST_ALGORITHM), digest["algorithm"])
    value = digest["value"]
    if not isinstance(value, str) or _DIGEST_VALUE.fullmatch(value) is None:
        _fail(source, "digest.value", "64 lower-case hexadecimal digits (a SHA-256)", value)


# --------------------------------------------------------------------------------------
# JSON → dataclass, strictly
# --------------------------------------------------------------------------------------


def check_schema_version(data: Mapping[str, Any], source: str = "metrics.json") -> None:
    """Refuse a document whose ``schema_version`` this reportgen does not read.

    Versions are whole numbers written as strings ("1"); a newer one asks for a newer
    reportgen, an older or unparseable one is simply unknown.
    """
    reads = f"this reportgen reads schema_version {SCHEMA_VERSION!r}"
    if "schema_version" not in data:
        raise ResultError(f"{source}: schema_version is missing, so this is not a reportgen metrics.json; {reads}")
    v = data["schema_version"]
    if v == SCHEMA_VERSION:
        return
    if isinstance(v, str) and v.isdigit() and int(v) > int(SCHEMA_VERSION):
        raise ResultError(
            f"{source}: schema_version {v!r} is newer than this reportgen reads ({SCHEMA_VERSION!r}); "
            f"re-render it with a newer reportgen"
        )
    raise ResultError(f"{source}: schema_version: unknown version {_found(v)}; {reads}")


def _found(v: Any) -> str:
    """How a wrong JSON value is shown in a message: its repr for scalars (shortened), its JSON
    kind for containers."""
    if isinstance(v, dict):
        return "an object"
    if isinstance(v, list):
        return "an array"
    if v is None:
        return "null"
    if isinstance(v, bool):
        return "true" if v else "false"
    text = repr(v)
    return text if len(text) <= 40 else text[:37] + "..."


def _join(path: str, key: str | int) -> str:
    if isinstance(key, int):
        return f"{path}[{key}]"
    return f"{path}.{key}" if path else key


def _fail(source: str, path: str, expected: str, data: Any) -> NoReturn:
    raise ResultError(f"{source}: {path or '(top level)'}: expected {expected}, found {_found(data)}")


def _is_number(v: Any) -> bool:
    return isinstance(v, (int, float)) and not isinstance(v, bool)


def _describe(tp: Any) -> str:
    """The JSON kind a type hint expects, in words ("a number or null")."""
    origin = typing.get_origin(tp)
    if origin in (typing.Union, types.UnionType):
        args = typing.get_args(tp)
        words = [_describe(a) for a in args if a is not type(None)]
        return " or ".join(words) + (" or null" if type(None) in args else "")
    if tp is float or tp is int:
        return "a whole number" if tp is int else "a number"
    if tp is str:
        return "a string"
    if tp is bool:
        return "true or false"
    if tp is np.ndarray or origin in (list, tuple, Sequence) or tp in (list, tuple):
        return "an array"
    if origin in (dict, Mapping) or dataclasses.is_dataclass(tp):
        return "an object"
    return "a JSON value"


@functools.cache
def _type_hints(tp: type) -> dict[str, Any]:
    """``typing.get_type_hints`` of a result dataclass, evaluated once per class: it compiles every
    string annotation on each call, more than half the time of a ``metrics.json`` load.

    The types of the optional sections (credit, fairness, segments) and of the opted-into analyses
    (:mod:`reportgen.section_results`, :mod:`reportgen.option_results`) are imported here rather
    than with this module: a run that asks for none of them never builds them."""
    import reportgen.option_results as options  # noqa: PLC0415
    import reportgen.section_results as sections  # noqa: PLC0415

    return typing.get_type_hints(tp, localns={**sections.SECTIONS, **options.OPTIONS})


def _load(tp: Any, data: Any, path: str, source: str) -> Any:
    """``data`` (parsed JSON) as a value of type hint ``tp``; :class:`ResultError` at ``path`` if
    it is not one. Numbers stay as the JSON had them (an integral count stays an int), so that
    saving a loaded result writes the same JSON."""
    origin = typing.get_origin(tp)
    if origin in (typing.Union, types.UnionType):
        args = [a for a in typing.get_args(tp) if a is not type(None)]
        if data is None:
            if len(args) < len(typing.get_args(tp)):
                return None
            _fail(source, path, _describe(tp), data)
        if len(args) == 1 and args[0] not in (float, int, str, bool):
            return _load(args[0], data, path, source)  # a container: its own error, deeper down
        for a in args:
            try:
                return _load(a, data, path, source)
            except ResultError:
                pass
        _fail(source, path, _describe(tp), data)
    if tp is Any:
        return data
    if origin is Literal:
        choices = typing.get_args(tp)
        if data not in choices or isinstance(data, bool):
            _fail(source, path, "one of " + ", ".join(repr(c) for c in choices), data)
        return data
    if tp is float:
        if not _is_number(data) or not math.isfinite(data):
            _fail(source, path, "a number", data)
        return data
    if tp is int:
        if not isinstance(data, int) or isinstance(data, bool):
            _fail(source, path, "a whole number", data)
        return data
    if tp is str:
        if not isinstance(data, str):
            _fail(source, path, "a string", data)
        return data
    if tp is bool:
        if not isinstance(data, bool):
            _fail(source, path, "true or false", data)
        return data
    if tp is np.ndarray:
        if not isinstance(data, list):
            _fail(source, path, "an array of numbers", data)
        for i, v in enumerate(data):
            if v is not None and (not _is_number(v) or not math.isfinite(v)):
                _fail(source, _join(path, i), "a number or null", v)
        return np.asarray([np.nan if v is None else v for v in data], dtype=np.float64)
    if isinstance(tp, type) and dataclasses.is_dataclass(tp):
        if not isinstance(data, dict):
            _fail(source, path, "an object", data)
        fields = {f.name: f for f in dataclasses.fields(tp)}
        for k in data:
            if k not in fields:
                raise ResultError(f"{source}: {_join(path, k)}: unknown key; expected keys: {', '.join(fields)}")
        hints = _type_hints(tp)
        kwargs = {}
        for name, f in fields.items():
            if name in data:
                kwargs[name] = _load(hints[name], data[name], _join(path, name), source)
            elif f.default is dataclasses.MISSING and f.default_factory is dataclasses.MISSING:
                raise ResultError(f"{source}: {_join(path, name)}: required key is missing")
        value = tp(**kwargs)
        assert isinstance(value, Frozen)  # every result dataclass is one
        problem = value.problem()
        if problem is not None:
            raise ResultError(f"{source}: {path or '(top level)'}: {problem}")
        return value
    if origin in (dict, Mapping):
        if not isinstance(data, dict):
            _fail(source, path, "an object", data)
        _, vt = typing.get_args(tp)
        return {k: _load(vt, v, _join(path, k), source) for k, v in data.items()}
    if origin in (list, tuple, Sequence):
        if not isinstance(data, list):
            _fail(source, path, "an array", data)
        params = typing.get_args(tp)
        et = params[0] if params else Any
        return [_load(et, v, _join(path, i), source) for i, v in enumerate(data)]
    raise TypeError(f"results: no JSON loader for type {tp!r} at {path}")  # a bug in these types


#: The mappings keyed by metric name, per result type: their keys must be catalogue metrics.
#: (By the type's name: :class:`~reportgen.section_results.SegmentModel` is imported only with a section.)
_METRIC_KEYED: dict[str, tuple[str, ...]] = {
    "ModelResult": ("metrics", "undefined", "undefined_reasons", "ci", "ci_method"),
    "Comparison": ("delta", "relative_delta", "relative_error_reductions", "ci"),
    "PrevalenceScenario": ("metrics",),
    "Curves": ("threshold_metrics",),
    "SegmentModel": ("metrics", "ci", "ci_method"),
}


def _dataclasses_in(obj: Any, path: str) -> typing.Iterator[tuple[Any, str]]:
    """Every result dataclass inside ``obj`` (itself included) with its JSON path."""
    if dataclasses.is_dataclass(obj):
        yield obj, path
        for f in dataclasses.fields(obj):
            yield from _dataclasses_in(getattr(obj, f.name), _join(path, f.name))
    elif isinstance(obj, Mapping):
        for k, v in obj.items():
            yield from _dataclasses_in(v, _join(path, str(k)))
    elif isinstance(obj, tuple):
        for i, v in enumerate(obj):
            yield from _dataclasses_in(v, _join(path, i))


#: The most characters of a title, an author or a model name a report lays out. WeasyPrint's line
#: breaking grows with the square of an unbroken text's length: a 200,000-character title kept
#: the PDF of a two-model run going past five minutes. The config's rule, and a received file's.
MAX_TEXT_CHARS = 1000


def _check_text_lengths(result: ComparisonResult, source: str) -> None:
    """Refuse a title, author or model name longer than :data:`MAX_TEXT_CHARS` characters."""
    texts = [("run.title", result.run.title), ("run.author", result.run.author or "")]
    texts += [
        (f"models.{name[:40]}….name" if len(name) > 40 else f"models.{name}.name", name) for name in result.models
    ]
    for path, text in texts:
        if len(text) > MAX_TEXT_CHARS:
            raise ResultError(
                f"{source}: {path}: {len(text):,} characters; a report lays out at most "
                f"{MAX_TEXT_CHARS:,} (this file was not written by reportgen)"
            )


def _check_names(result: ComparisonResult, source: str) -> None:
    """Refuse names that point nowhere: a metric the task's engine does not compute (or a model
    without one it does), a model filed under another name, a baseline or compared model that
    is not among the models.

    Types alone cannot catch these, and the report would fail on them half-way (a KeyError
    is an internal error, not a message about the file).
    """
    task = result.run.task
    known = set(catalog.keys(task))

    def metric_keys(mapping: Mapping[str, Any], path: str) -> None:
        for k in mapping:
            if k not in known:
                raise ResultError(
                    f"{source}: {path}.{k}: unknown metric for task: {task}; "
                    f"expected one of {', '.join(catalog.keys(task))}"
                )

    if result.run.primary_metric not in known:
        raise ResultError(
            f"{source}: run.primary_metric: unknown metric {result.run.primary_metric!r} for task: {task}"
        )
    if result.run.baseline not in result.models:
        raise ResultError(
            f"{source}: run.baseline: {result.run.baseline!r} is not among the models "
            f"({', '.join(result.models) or 'none'})"
        )
    for name, m in result.models.items():
        if m.name != name:
            raise ResultError(
                f"{source}: models.{name}.name: expected {name!r} (the key it is filed under), found {m.name!r}"
            )
        for attr in ("positives", "negatives") if task == "binary" else ():
            if getattr(m, attr) is None:
                raise ResultError(f"{source}: models.{name}.{attr}: expected a number for task: binary, found null")
        for k in catalog.keys(task):
            if k not in m.metrics:
                raise ResultError(
                    f"{source}: models.{name}.metrics.{k}: required key is missing "
                    f"(every metric of task: {task} is written, null when undefined)"
                )
    for i, c in enumerate(result.comparisons):
        for attr in ("model", "baseline"):
            if getattr(c, attr) not in result.models:
                raise ResultError(f"{source}: comparisons[{i}].{attr}: {getattr(c, attr)!r} is not among the models")
        if c.primary_metric not in known:
            raise ResultError(
                f"{source}: comparisons[{i}].primary_metric: unknown metric {c.primary_metric!r} for task: {task}"
            )
    for obj, path in _dataclasses_in(result, ""):
        for attr in _METRIC_KEYED.get(type(obj).__name__, ()):
            metric_keys(getattr(obj, attr), _join(path, attr))
    for i, cell in enumerate(result.pairwise):
        for attr in ("model", "baseline"):
            if getattr(cell, attr) not in result.models:
                raise ResultError(f"{source}: pairwise[{i}].{attr}: {getattr(cell, attr)!r} is not among the models")


def _check_ranges(result: ComparisonResult, source: str) -> None:
    """Refuse numbers no run can produce: a model's metric or an end of its interval outside the
    metric's range (:mod:`reportgen.catalog`: the engine clips to it), a negative or non-finite
    count of rows. The types pass ``"gini": 1e308`` or ``"n": -5``; the report would print them
    as evidence."""
    for name, m in result.models.items():
        for attr in ("n", "positives", "negatives", "positives_rows", "negatives_rows"):
            v = getattr(m, attr, None)
            if v is not None and not (math.isfinite(v) and v >= 0):
                raise ResultError(
                    f"{source}: models.{name}.{attr}: expected a count of rows (a number >= 0), found {v!r}"
                )
        for where, values in [(f"metrics.{k}", [v]) for k, v in m.metrics.items()] + [
            (f"ci.{k}", list(v)) for k, v in m.ci.items()
        ]:
            spec = catalog.metric(where.split(".", 1)[1])
            slack = 1e-9  # float sums of a resample may pass a bound by ulps: only numbers no run gives are refused
            for v in values:
                if v is not None and not (
                    spec.lo - slack * max(1.0, abs(spec.lo)) <= v <= spec.hi + slack * max(1.0, abs(spec.hi))
                ):
                    raise ResultError(
                        f"{source}: models.{name}.{where}: {v!r} is outside the range of "
                        f"{spec.key} [{spec.lo:g}, {spec.hi:g}]"
                    )


# --------------------------------------------------------------------------------------
# JSON Schema, generated from the same types
# --------------------------------------------------------------------------------------

_SCHEMA_DESCRIPTION = (
    "The machine-readable twin of a reportgen report, generated from reportgen.results by "
    "reportgen.results.json_schema(). Undefined values are null (never NaN); the reason is under "
    "models.NAME.undefined_reasons (a code and its facts) and models.NAME.undefined (its wording). "
    "Confidence intervals are [lo, hi]. Keys are extended between versions, "
    "never renamed; schema_version changes when a key's meaning does."
)


def json_schema() -> dict[str, Any]:
    """The JSON Schema (draft 2020-12) of ``metrics.json``, derived from the result types.

    It accepts what :meth:`ComparisonResult.from_json` accepts: the same keys (unknown ones
    refused, those with defaults optional), the same types, metric names from the catalogue
    and, per task, every metric of the task under ``models.NAME.metrics``. Cross references
    (a baseline among the models) are beyond a schema and checked by the loader only.
    ``reportgen/schema/metrics.schema.json`` is this function's output (a test keeps it so).
    """
    defs: dict[str, Any] = {}
    all_metrics = [m.key for m in catalog.METRICS]

    def scalar(tp: Any) -> str | None:
        return {float: "number", int: "integer", str: "string", bool: "boolean"}.get(tp)

    def of(tp: Any) -> dict[str, Any]:
        origin = typing.get_origin(tp)
        if origin in (typing.Union, types.UnionType):
            args = [a for a in typing.get_args(tp) if a is not type(None)]
            inner = [of(a) for a in args]
            if len(args) == 1 and scalar(args[0]):
                return {"type": [scalar(args[0]), "null"]}
            return {"anyOf": [*inner, {"type": "null"}]}
        if tp is Any:
            return {}
        if origin is Literal:
            return {"enum": list(typing.get_args(tp))}
        if scalar(tp):
            return {"type": scalar(tp)}
        if tp is np.ndarray:
            return {"type": "array", "items": {"type": ["number", "null"]}}
        if isinstance(tp, type) and dataclasses.is_dataclass(tp):
            if tp.__name__ not in defs:
                defs[tp.__name__] = {}  # placeholder: recursion-safe
                defs[tp.__name__] = obj(tp)
            return {"$ref": f"#/$defs/{tp.__name__}"}
        if origin in (dict, Mapping):
            return {"type": "object", "additionalProperties": of(typing.get_args(tp)[1])}
        if origin in (list, tuple, Sequence):
            return {"type": "array", "items": of(typing.get_args(tp)[0])}
        raise TypeError(f"results: no JSON Schema for type {tp!r}")

    def obj(cls: Any) -> dict[str, Any]:
        hints = _type_hints(cls)
        props: dict[str, Any] = {}
        required = []
        for f in dataclasses.fields(cls):
            p = of(hints[f.name])
            if f.name in _METRIC_KEYED.get(cls.__name__, ()):
                p["propertyNames"] = {"enum": all_metrics}
            if "description" in f.metadata:
                p["description"] = f.metadata["description"]
            props[f.name] = p
            if f.default is dataclasses.MISSING and f.default_factory is dataclasses.MISSING:
                required.append(f.name)
        doc = (cls.__doc__ or "").strip().split("\n\n")[0]
        out: dict[str, Any] = {"type": "object"}
        if doc and not doc.startswith(cls.__name__ + "("):  # not dataclass's generated signature
            out["description"] = " ".join(doc.split())
        return {**out, "properties": props, "required": required, "additionalProperties": False}

    root = obj(ComparisonResult)
    root["properties"]["schema_version"] = {"const": SCHEMA_VERSION}
    root["properties"]["digest"] = {
        "type": "object",
        "properties": {
            "algorithm": {"const": DIGEST_ALGORITHM},
            "value": {"type": "string", "pattern": "^[0-9a-f]{64}$"},
        },
        "required": ["algorithm", "value"],
        "additionalProperties": False,
        "description": (
            "Tamper evidence, not a signature: SHA-256 (hex) of this document without its 'digest' key, "
            "serialised canonically as Python's json.dumps(document, sort_keys=True, separators=(',', ':'), "
            "ensure_ascii=True) in UTF-8. Any change to a number, string, key or structure breaks it; "
            "whitespace, key order and number spelling do not. reportgen render refuses a file whose digest "
            "does not match (--allow-edited renders it, marked EDITED on every page) and marks a file "
            "without one as unverified. Anyone can recompute it, so it shows edits, not who made them."
        ),
    }
    root["allOf"] = [
        {
            "if": {"properties": {"run": {"properties": {"task": {"const": task}}}}},
            "then": {
                "properties": {
                    "models": {
                        "additionalProperties": {
                            "properties": {
                                "metrics": {
                                    "required": list(catalog.keys(task)),
                                    "propertyNames": {"enum": list(catalog.keys(task))},
                                }
                            }
                        }
                    }
                }
            },
        }
        for task in ("binary", "multiclass")
    ]
    root.pop("description", None)
    return {
        "$schema": "https://json-schema.org/draft/2020-12/schema",
        "$id": "https://reportgen.invalid/schema/metrics.schema.json",
        "title": "reportgen metrics.json",
        "description": _SCHEMA_DESCRIPTION,
        **root,
        "$defs": dict(sorted(defs.items())),
    }


def from_jsonable(tp: Any, data: Any, source: str = "metrics.json") -> Any:
    """Inverse of :func:`to_jsonable` for any result type ``tp``, checked as strictly as
    :meth:`ComparisonResult.from_json` (without the schema version, which only the whole
    document carries)."""
    return _load(tp, data, "", source)


__all__ = [
    "SCHEMA_VERSION",
    "ComparisonResult",
    "ModelResult",
    "ApprovalAtRate",
    "ApprovalSide",
    "Comparison",
    "Decision",
    "Notice",
    "NoticeParams",
    "NoticeCode",
    "NOTICE_CODES",
    "Reason",
    "UndefinedCode",
    "UNDEFINED_CODES",
    "SwapCell",
    "RunInfo",
    "Curves",
    "CurveData",
    "BandTable",
    "ScoreBand",
    "Confusion",
    "Optimum",
    "FrozenDict",
    "freeze",
    "check_schema_version",
    "DIGEST_ALGORITHM",
    "DigestStatus",
    "digest_status",
    "results_digest",
    "json_schema",
    "to_jsonable",
    "from_jsonable",
    "set_html_display",
]
