"""Frozen result types of a comparison run, and their JSON round trip.

The JSON written to ``metrics.json`` *is* this structure (see ``reportgen/schema``), so a
report can be re-rendered or re-themed from a saved result without recomputing
(``reportgen render OUT/metrics.json``). Name-keyed maps (metrics, CIs, optima) are dicts so
that the JSON reads ``models.NAME.metrics.gini``; per-class and summary metrics live in
separate fields so a class named "accuracy" never collides with a summary key.

Undefined numbers are ``None`` (JSON ``null``), never NaN.
"""

from __future__ import annotations

import dataclasses
import math
import types
import typing
from dataclasses import dataclass, field
from typing import Any

import numpy as np

from reportgen.engine.binary import Confusion, Optimum


@dataclass(frozen=True, slots=True)
class CurveData:
    """A drawable curve: x, y and the score threshold of each point (decimated)."""

    x: np.ndarray
    y: np.ndarray
    thresholds: np.ndarray | None = None


@dataclass(frozen=True, slots=True)
class CostCurveData:
    pc: np.ndarray
    envelope: np.ndarray
    operating_pc: float
    operating_fpr: float
    operating_tpr: float


@dataclass(frozen=True, slots=True)
class KsData:
    thresholds: np.ndarray
    tpr: np.ndarray
    fpr: np.ndarray


@dataclass(frozen=True, slots=True)
class ScoreHistogram:
    """Score distribution per class on shared bin edges (weighted counts)."""

    edges: np.ndarray
    positives: np.ndarray
    negatives: np.ndarray


@dataclass(frozen=True, slots=True)
class CalibrationData:
    """Reliability diagram: mean predicted probability vs observed positive share per bin."""

    mean_predicted: np.ndarray
    observed: np.ndarray
    counts: np.ndarray


@dataclass(frozen=True, slots=True)
class Curves:
    roc: CurveData
    pr: CurveData
    threshold_metrics: dict[str, CurveData]
    ks: KsData | None = None
    cost: CostCurveData | None = None
    lift: CurveData | None = None  # x: share of rows taken, y: share of positives captured
    histogram: ScoreHistogram | None = None
    calibration: CalibrationData | None = None


@dataclass(frozen=True, slots=True)
class PrevalenceScenario:
    """Optimal thresholds when positives make up ``prevalence`` of the population."""

    prevalence: float
    optimal_thresholds: dict[str, Optimum]
    metrics: dict[str, float | None]


@dataclass(frozen=True, slots=True)
class ConfusionMatrixData:
    """K×K matrix, rows = true class, columns = predicted class."""

    labels: list[str]
    matrix: list[list[float]]


@dataclass(frozen=True, slots=True)
class MulticlassCurves:
    per_class_roc: dict[str, CurveData]
    per_class_pr: dict[str, CurveData]
    micro_roc: CurveData | None = None


@dataclass(frozen=True, slots=True)
class BinningInfo:
    """How a model's scores were binned (streamed inputs with too many distinct scores).

    ``auc_error_bound``: Σ_b pos_b·neg_b / (2·P·N), the largest possible |AUC(binned) − AUC(raw)|.
    """

    method: str
    bins: int
    max_distinct_scores: int
    auc_error_bound: float


@dataclass(frozen=True, slots=True)
class ModelResult:
    """Everything computed for one model."""

    name: str
    file: str
    n: int
    positives: float | None
    negatives: float | None
    weighted: bool
    metrics: dict[str, float | None]
    undefined: dict[str, str]
    ci: dict[str, list[float]]
    ci_method: dict[str, str]
    direction: str = "higher"
    threshold: float | None = None
    rule: str = ""
    probabilities: bool = False
    confusion: Confusion | None = None
    ks_threshold: float | None = None
    optimal_thresholds: dict[str, Optimum] = field(default_factory=dict)
    prevalence_shift: list[PrevalenceScenario] = field(default_factory=list)
    curves: Curves | None = None
    per_class: dict[str, dict[str, float | None]] | None = None
    confusion_matrix: ConfusionMatrixData | None = None
    multiclass_curves: MulticlassCurves | None = None
    n_distinct_scores: int | None = None
    warnings: list[str] = field(default_factory=list)
    binning: BinningInfo | None = None  # None: every score kept (exact)


@dataclass(frozen=True, slots=True)
class DeLongSummary:
    auc_model: float
    auc_baseline: float
    delta: float
    se: float
    z: float | None  # None when the standard error is 0 but the AUCs differ (infinite z)
    p_value: float
    p_value_holm: float | None
    ci: list[float]
    paired: bool


@dataclass(frozen=True, slots=True)
class McNemarSummary:
    statistic: float
    p_value: float
    p_value_holm: float | None
    method: str
    table: list[list[float]]  # [[both correct, model only], [baseline only, both wrong]]


@dataclass(frozen=True, slots=True)
class ComparisonTests:
    delong: DeLongSummary | None = None
    mcnemar: McNemarSummary | None = None
    notes: list[str] = field(default_factory=list)


@dataclass(frozen=True, slots=True)
class Comparison:
    """One model against the baseline: deltas (model − baseline), CIs, tests and a verdict."""

    model: str
    baseline: str
    delta: dict[str, float | None]
    relative_delta: dict[str, float | None]
    relative_error_reduction: float | None
    relative_error_reductions: dict[str, float | None]
    ci: dict[str, list[float]]
    tests: ComparisonTests
    verdict: str
    primary_metric: str = "gini"
    #: how each interval of ``ci`` was made (e.g. "DeLong (paired)", "bootstrap of decision patterns")
    ci_method: dict[str, str] = field(default_factory=dict)
    #: what the evidence could not give, each with a reason code (e.g. "paired_interval.ks":
    #: "needs_rows"); the same codes from every engine for the same evidence
    capabilities: dict[str, str] = field(default_factory=dict)


@dataclass(frozen=True, slots=True)
class PairwiseCell:
    model: str
    baseline: str
    delta: float | None
    p_value: float | None


@dataclass(frozen=True, slots=True)
class InputFile:
    path: str
    sha256: str
    rows: int
    size_bytes: int


@dataclass(frozen=True, slots=True)
class DroppedRows:
    model: str
    reason: str
    rows: int


@dataclass(frozen=True, slots=True)
class RunInfo:
    """The audit trail: what was run, on what, with which software, when."""

    title: str
    task: str
    created: str
    run_id: str
    reportgen_version: str
    versions: dict[str, str]
    config: dict[str, Any]
    config_path: str
    files: list[InputFile]
    dropped: list[DroppedRows]
    warnings: list[str]
    paired: bool
    baseline: str
    primary_metric: str
    threshold: float
    beta: float
    costs: dict[str, Any]
    confidence_level: float
    bootstrap_resamples: int
    bootstrap_seed: int
    duration_seconds: float
    author: str | None = None
    classes: list[str] | None = None
    engine: str = "memory"  # memory, stream or dask
    date_range: list[str] | None = None  # [first, last] date of the configured date column


@dataclass(frozen=True, slots=True)
class ComparisonResult:
    """The whole run: models, comparisons with the baseline, the pairwise matrix, the audit trail."""

    run: RunInfo
    models: dict[str, ModelResult]
    comparisons: list[Comparison]
    pairwise: list[PairwiseCell] = field(default_factory=list)
    schema_version: str = "1"

    def to_json(self) -> dict[str, Any]:
        return to_jsonable(self)

    @classmethod
    def from_json(cls, data: dict[str, Any]) -> ComparisonResult:
        return from_jsonable(cls, data)


# --------------------------------------------------------------------------------------
# Generic dataclass <-> JSON
# --------------------------------------------------------------------------------------


def _clean_float(v: float) -> float | None:
    return None if not math.isfinite(v) else v


def to_jsonable(obj: Any) -> Any:
    """Dataclasses → dicts, arrays → lists; NaN/inf → None. Deterministic key order."""
    if dataclasses.is_dataclass(obj) and not isinstance(obj, type):
        return {f.name: to_jsonable(getattr(obj, f.name)) for f in dataclasses.fields(obj)}
    if isinstance(obj, np.ndarray):
        if obj.dtype.kind == "f":
            return [to_jsonable(float(v)) for v in obj.tolist()] if obj.ndim == 1 else [to_jsonable(r) for r in obj]
        return obj.tolist()
    if isinstance(obj, dict):
        return {str(k): to_jsonable(v) for k, v in obj.items()}
    if isinstance(obj, (list, tuple)):
        return [to_jsonable(v) for v in obj]
    if isinstance(obj, (bool, np.bool_)):
        return bool(obj)
    if isinstance(obj, (int, np.integer)):
        return int(obj)
    if isinstance(obj, (float, np.floating)):
        return _clean_float(float(obj))
    return obj


def from_jsonable(tp: Any, data: Any) -> Any:
    """Inverse of :func:`to_jsonable`, guided by type hints."""
    if data is None:
        return None
    origin = typing.get_origin(tp)
    if origin in (typing.Union, types.UnionType):
        args = [a for a in typing.get_args(tp) if a is not type(None)]
        if len(args) == 1:
            return from_jsonable(args[0], data)
        return data  # unions of primitives (float | None handled above)
    if tp is np.ndarray:
        return np.asarray([np.nan if v is None else v for v in data], dtype=np.float64)
    if dataclasses.is_dataclass(tp):
        hints = typing.get_type_hints(tp)
        kwargs = {f.name: from_jsonable(hints[f.name], data[f.name]) for f in dataclasses.fields(tp) if f.name in data}
        return tp(**kwargs)
    if origin is dict:
        _, vt = typing.get_args(tp)
        return {k: from_jsonable(vt, v) for k, v in data.items()}
    if origin in (list, tuple):
        args = typing.get_args(tp)
        et = args[0] if args else Any
        return [from_jsonable(et, v) for v in data]
    return data


__all__ = [
    "ComparisonResult",
    "ModelResult",
    "Comparison",
    "RunInfo",
    "Curves",
    "CurveData",
    "Confusion",
    "Optimum",
    "to_jsonable",
    "from_jsonable",
]
