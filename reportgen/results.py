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

A leaf module: it imports nothing from the rest of reportgen but the error tree, so the engine,
the report and the config can all import it (the engine's value types :class:`Confusion` and
:class:`Optimum` live here for that reason).
"""

from __future__ import annotations

import dataclasses
import math
import types
import typing
from collections.abc import Mapping, Sequence
from dataclasses import dataclass, field
from typing import Any, Literal, NoReturn

import numpy as np

import reportgen.catalog as catalog
from reportgen.errors import ResultError

#: The ``schema_version`` this reportgen writes and reads.
SCHEMA_VERSION = "1"


# --------------------------------------------------------------------------------------
# Deep freezing
# --------------------------------------------------------------------------------------


class FrozenDict(dict):  # type: ignore[type-arg]
    """A dict that refuses every in-place change (``d[k] = v``, ``del``, ``update``, ``pop``, …).

    A dict subclass rather than :class:`types.MappingProxyType` so that frozen results still
    compare equal to dicts, pass ``isinstance(x, dict)`` checks, serialise with :mod:`json`
    and pickle (for process pools); ``copy()`` returns an ordinary, mutable dict.
    """

    __slots__ = ()

    def _refuse(self, *args: Any, **kwargs: Any) -> NoReturn:
        raise TypeError("a result's mappings are read-only; build a new result (dataclasses.replace) instead")

    __setitem__ = __delitem__ = __ior__ = _refuse
    clear = pop = popitem = setdefault = update = _refuse

    def __reduce__(self) -> tuple[Any, ...]:
        return (FrozenDict, (dict(self),))

    def __repr__(self) -> str:
        return f"FrozenDict({dict.__repr__(self)})"


def _lengths_differ(**arrays: np.ndarray | None) -> str | None:
    """A message when the given arrays (None: absent) do not all have one length."""
    present = {k: len(v) for k, v in arrays.items() if v is not None}
    if len(set(present.values())) > 1:
        return "expected arrays of one length, found " + ", ".join(f"{k}: {n}" for k, n in present.items())
    return None


def freeze(value: Any) -> Any:
    """A deeply immutable copy of ``value``: dicts → :class:`FrozenDict`, lists and tuples →
    tuples, numpy arrays → read-only copies (their data no longer shared with the caller);
    everything else (numbers, strings, the frozen result dataclasses) as it is."""
    if isinstance(value, np.ndarray):
        if value.flags.writeable or value.base is not None:
            value = value.copy()
        value.setflags(write=False)
        return value
    if isinstance(value, FrozenDict):
        return value
    if isinstance(value, Mapping):
        return FrozenDict({k: freeze(v) for k, v in value.items()})
    if isinstance(value, (list, tuple)):
        return tuple(freeze(v) for v in value)
    return value


class _Frozen:
    """Base of every result type: freezes each field after construction (see :func:`freeze`)."""

    __slots__ = ()

    def problem(self) -> str | None:
        """What is inconsistent between the fields (array lengths, matrix shape), or None.

        Types alone cannot say that a curve's x and y have one length; the loader asks each
        value it builds, so that a broken metrics.json is refused with its JSON path instead of
        failing half-way through drawing a figure.
        """
        return None

    def __post_init__(self) -> None:
        for f in dataclasses.fields(self):  # type: ignore[arg-type]
            v = getattr(self, f.name)
            fv = freeze(v)
            if fv is not v:
                object.__setattr__(self, f.name, fv)


# --------------------------------------------------------------------------------------
# Result types
# --------------------------------------------------------------------------------------


@dataclass(frozen=True, slots=True)
class Confusion(_Frozen):
    """Weighted confusion counts at one cut."""

    tp: float
    fp: float
    fn: float
    tn: float

    @property
    def total(self) -> float:
        return self.tp + self.fp + self.fn + self.tn


@dataclass(frozen=True, slots=True)
class Optimum(_Frozen):
    """The best cut for one criterion.

    ``threshold`` is None when the best decision is to predict no row positive.
    """

    criterion: str
    threshold: float | None
    value: float | None
    tp: float
    fp: float
    fn: float
    tn: float
    description: str = ""


@dataclass(frozen=True, slots=True)
class CurveData(_Frozen):
    """A drawable curve: x, y and the score threshold of each point (decimated)."""

    x: np.ndarray
    y: np.ndarray
    thresholds: np.ndarray | None = None

    def problem(self) -> str | None:
        return _lengths_differ(x=self.x, y=self.y, thresholds=self.thresholds)


@dataclass(frozen=True, slots=True)
class CostCurveData(_Frozen):
    pc: np.ndarray
    envelope: np.ndarray
    operating_pc: float

    def problem(self) -> str | None:
        return _lengths_differ(pc=self.pc, envelope=self.envelope)
    operating_fpr: float
    operating_tpr: float


@dataclass(frozen=True, slots=True)
class KsData(_Frozen):
    thresholds: np.ndarray
    tpr: np.ndarray
    fpr: np.ndarray

    def problem(self) -> str | None:
        return _lengths_differ(thresholds=self.thresholds, tpr=self.tpr, fpr=self.fpr)


@dataclass(frozen=True, slots=True)
class ScoreHistogram(_Frozen):
    """Score distribution per class on shared bin edges (weighted counts)."""

    edges: np.ndarray
    positives: np.ndarray
    negatives: np.ndarray

    def problem(self) -> str | None:
        if self.edges.shape[0] != self.positives.shape[0] + 1:
            return f"expected one more edge than bins, found {self.edges.shape[0]} edges for {self.positives.shape[0]} bins"
        return _lengths_differ(positives=self.positives, negatives=self.negatives)


@dataclass(frozen=True, slots=True)
class CalibrationData(_Frozen):
    """Reliability diagram: mean predicted probability vs observed positive share per bin."""

    mean_predicted: np.ndarray
    observed: np.ndarray
    counts: np.ndarray

    def problem(self) -> str | None:
        return _lengths_differ(mean_predicted=self.mean_predicted, observed=self.observed, counts=self.counts)


@dataclass(frozen=True, slots=True)
class Curves(_Frozen):
    roc: CurveData
    pr: CurveData
    threshold_metrics: Mapping[str, CurveData]
    ks: KsData | None = None
    cost: CostCurveData | None = None
    lift: CurveData | None = None  # x: share of rows taken, y: share of positives captured
    histogram: ScoreHistogram | None = None
    calibration: CalibrationData | None = None


@dataclass(frozen=True, slots=True)
class PrevalenceScenario(_Frozen):
    """Optimal thresholds when positives make up ``prevalence`` of the population."""

    prevalence: float
    optimal_thresholds: Mapping[str, Optimum]
    metrics: Mapping[str, float | None]


@dataclass(frozen=True, slots=True)
class ConfusionMatrixData(_Frozen):
    """K×K matrix, rows = true class, columns = predicted class."""

    labels: Sequence[str]
    matrix: Sequence[Sequence[float]]

    def problem(self) -> str | None:
        k = len(self.labels)
        if len(self.matrix) != k or any(len(row) != k for row in self.matrix):
            return f"expected a {k}×{k} matrix (one row and column per label)"
        return None


@dataclass(frozen=True, slots=True)
class MulticlassCurves(_Frozen):
    per_class_roc: Mapping[str, CurveData]
    per_class_pr: Mapping[str, CurveData]
    micro_roc: CurveData | None = None


@dataclass(frozen=True, slots=True)
class BinningInfo(_Frozen):
    """How a model's scores were binned (streamed inputs with too many distinct scores).

    ``auc_error_bound``: Σ_b pos_b·neg_b / (2·P·N), the largest possible |AUC(binned) − AUC(raw)|.
    """

    method: str
    bins: int
    max_distinct_scores: int
    auc_error_bound: float


@dataclass(frozen=True, slots=True)
class ModelResult(_Frozen):
    """Everything computed for one model."""

    name: str
    file: str
    n: int
    positives: float | None
    negatives: float | None
    weighted: bool
    metrics: Mapping[str, float | None] = field(metadata={"description": "metric -> value; every metric of the task, null when undefined"})
    undefined: Mapping[str, str] = field(metadata={"description": "metric -> why it is null"})
    ci: Mapping[str, Sequence[float]]
    ci_method: Mapping[str, str]
    direction: Literal["higher", "lower"] = "higher"
    threshold: float | None = None
    rule: str = ""
    probabilities: bool = False
    confusion: Confusion | None = None
    ks_threshold: float | None = None
    optimal_thresholds: Mapping[str, Optimum] = field(default_factory=dict, metadata={"description": (
        "criterion -> optimum: one per optimal-threshold criterion of the catalogue, plus one per constraint rule")})
    prevalence_shift: Sequence[PrevalenceScenario] = field(default_factory=list)
    curves: Curves | None = None
    per_class: Mapping[str, Mapping[str, float | None]] | None = None
    confusion_matrix: ConfusionMatrixData | None = None
    multiclass_curves: MulticlassCurves | None = None
    n_distinct_scores: int | None = None
    warnings: Sequence[str] = field(default_factory=list)
    binning: BinningInfo | None = field(default=None, metadata={"description": (
        "How the scores were binned (streamed inputs with more distinct scores than stream.max_distinct_scores); "
        "null: every score kept, results exact.")})


@dataclass(frozen=True, slots=True)
class DeLongSummary(_Frozen):
    auc_model: float
    auc_baseline: float
    delta: float
    se: float
    z: float | None  # None when the standard error is 0 but the AUCs differ (infinite z)
    p_value: float
    p_value_holm: float | None
    ci: Sequence[float]
    paired: bool


@dataclass(frozen=True, slots=True)
class McNemarSummary(_Frozen):
    statistic: float
    p_value: float
    p_value_holm: float | None
    method: str
    table: Sequence[Sequence[float]]  # [[both correct, model only], [baseline only, both wrong]]


@dataclass(frozen=True, slots=True)
class ComparisonTests(_Frozen):
    delong: DeLongSummary | None = None
    mcnemar: McNemarSummary | None = None
    notes: Sequence[str] = field(default_factory=list)


@dataclass(frozen=True, slots=True)
class Comparison(_Frozen):
    """One model against the baseline: deltas (model − baseline), CIs, tests and a verdict."""

    model: str
    baseline: str
    delta: Mapping[str, float | None]
    relative_delta: Mapping[str, float | None]
    relative_error_reduction: float | None
    relative_error_reductions: Mapping[str, float | None]
    ci: Mapping[str, Sequence[float]]
    tests: ComparisonTests
    verdict: str
    primary_metric: str = "gini"
    #: how each interval of ``ci`` was made (e.g. "DeLong (paired)", "bootstrap of decision patterns")
    ci_method: dict[str, str] = field(default_factory=dict)
    #: what the evidence could not give, each with a reason code (e.g. "paired_interval.ks":
    #: "needs_rows"); the same codes from every engine for the same evidence
    capabilities: dict[str, str] = field(default_factory=dict)


@dataclass(frozen=True, slots=True)
class PairwiseCell(_Frozen):
    model: str
    baseline: str
    delta: float | None
    p_value: float | None


@dataclass(frozen=True, slots=True)
class InputFile(_Frozen):
    path: str
    sha256: str
    rows: int
    size_bytes: int


@dataclass(frozen=True, slots=True)
class DroppedRows(_Frozen):
    model: str
    reason: str
    rows: int


@dataclass(frozen=True, slots=True)
class RunInfo(_Frozen):
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
    engine: Literal["memory", "stream", "dask"] = field(default="memory", metadata={"description": (
        "How the data was read: in memory, streamed in record batches, or on a Dask cluster.")})
    date_range: Sequence[str] | None = field(default=None, metadata={"description": (
        "First and last date of the configured date column over the input files (ISO dates), or null.")})


@dataclass(frozen=True, slots=True)
class ComparisonResult(_Frozen):
    """The whole run: models, comparisons with the baseline, the pairwise matrix, the audit trail."""

    run: RunInfo
    models: Mapping[str, ModelResult]
    comparisons: Sequence[Comparison]
    pairwise: Sequence[PairwiseCell] = field(default_factory=list)
    schema_version: str = SCHEMA_VERSION

    def to_json(self) -> dict[str, Any]:
        """The ``metrics.json`` document: plain dicts, lists, numbers, strings and nulls."""
        return to_jsonable(self)

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
        result = _load(cls, data, "", source)
        _check_names(result, source)
        return result

    def __repr__(self) -> str:
        """One line (the generated repr of every curve point ran to hundreds of kilobytes)."""
        pm = self.run.primary_metric
        shown = ", ".join(f"{n} {pm} {_short(m.metrics.get(pm))}" for n, m in self.models.items())
        return (f"<ComparisonResult {self.run.title!r}: {self.run.task}, {len(self.models)} model(s), "
                f"baseline {self.run.baseline!r}; {shown}>")

    def _repr_html_(self) -> str | None:
        """Jupyter's rich display: the summary and key figures (:mod:`reportgen.notebook`), or
        None (plain repr) when no display is registered (see :func:`set_html_display`)."""
        show = _HTML_DISPLAY.get("html")
        return None if show is None else show(self)


#: The notebook display of a result, registered by the report layer (:mod:`reportgen.notebook`,
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
    if dataclasses.is_dataclass(obj) and not isinstance(obj, type):
        return {f.name: to_jsonable(getattr(obj, f.name)) for f in dataclasses.fields(obj)}
    if isinstance(obj, np.ndarray):
        if obj.dtype.kind == "f":
            return [to_jsonable(float(v)) for v in obj.tolist()] if obj.ndim == 1 else [to_jsonable(r) for r in obj]
        return obj.tolist()
    if isinstance(obj, Mapping):
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
        raise ResultError(f"{source}: schema_version {v!r} is newer than this reportgen reads ({SCHEMA_VERSION!r}); "
                          f"re-render it with a newer reportgen")
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
    if dataclasses.is_dataclass(tp):
        if not isinstance(data, dict):
            _fail(source, path, "an object", data)
        fields = {f.name: f for f in dataclasses.fields(tp)}
        for k in data:
            if k not in fields:
                raise ResultError(f"{source}: {_join(path, k)}: unknown key; expected keys: {', '.join(fields)}")
        hints = typing.get_type_hints(tp)
        kwargs = {}
        for name, f in fields.items():
            if name in data:
                kwargs[name] = _load(hints[name], data[name], _join(path, name), source)
            elif f.default is dataclasses.MISSING and f.default_factory is dataclasses.MISSING:
                raise ResultError(f"{source}: {_join(path, name)}: required key is missing")
        value = tp(**kwargs)
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
        args = typing.get_args(tp)
        et = args[0] if args else Any
        return [_load(et, v, _join(path, i), source) for i, v in enumerate(data)]
    raise TypeError(f"results: no JSON loader for type {tp!r} at {path}")  # a bug in these types


#: The mappings keyed by metric name, per result type: their keys must be catalogue metrics.
_METRIC_KEYED: dict[type, tuple[str, ...]] = {
    ModelResult: ("metrics", "undefined", "ci", "ci_method"),
    Comparison: ("delta", "relative_delta", "relative_error_reductions", "ci"),
    PrevalenceScenario: ("metrics",),
    Curves: ("threshold_metrics",),
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
                raise ResultError(f"{source}: {path}.{k}: unknown metric for task: {task}; "
                                  f"expected one of {', '.join(catalog.keys(task))}")

    if result.run.primary_metric not in known:
        raise ResultError(f"{source}: run.primary_metric: unknown metric {result.run.primary_metric!r} for task: {task}")
    if result.run.baseline not in result.models:
        raise ResultError(f"{source}: run.baseline: {result.run.baseline!r} is not among the models "
                          f"({', '.join(result.models) or 'none'})")
    for name, m in result.models.items():
        if m.name != name:
            raise ResultError(f"{source}: models.{name}.name: expected {name!r} (the key it is filed under), found {m.name!r}")
        for attr in ("positives", "negatives") if task == "binary" else ():
            if getattr(m, attr) is None:
                raise ResultError(f"{source}: models.{name}.{attr}: expected a number for task: binary, found null")
        for k in catalog.keys(task):
            if k not in m.metrics:
                raise ResultError(f"{source}: models.{name}.metrics.{k}: required key is missing "
                                  f"(every metric of task: {task} is written, null when undefined)")
    for i, c in enumerate(result.comparisons):
        for attr in ("model", "baseline"):
            if getattr(c, attr) not in result.models:
                raise ResultError(f"{source}: comparisons[{i}].{attr}: {getattr(c, attr)!r} is not among the models")
        if c.primary_metric not in known:
            raise ResultError(f"{source}: comparisons[{i}].primary_metric: unknown metric {c.primary_metric!r} for task: {task}")
    for obj, path in _dataclasses_in(result, ""):
        for attr in _METRIC_KEYED.get(type(obj), ()):
            metric_keys(getattr(obj, attr), _join(path, attr))
    for i, cell in enumerate(result.pairwise):
        for attr in ("model", "baseline"):
            if getattr(cell, attr) not in result.models:
                raise ResultError(f"{source}: pairwise[{i}].{attr}: {getattr(cell, attr)!r} is not among the models")


# --------------------------------------------------------------------------------------
# JSON Schema, generated from the same types
# --------------------------------------------------------------------------------------

_SCHEMA_DESCRIPTION = (
    "The machine-readable twin of a reportgen report, generated from reportgen.results by "
    "reportgen.results.json_schema(). Undefined values are null (never NaN); the reason is under "
    "models.NAME.undefined. Confidence intervals are [lo, hi]. Keys are extended between versions, "
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
        if dataclasses.is_dataclass(tp):
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
        hints = typing.get_type_hints(cls)
        props: dict[str, Any] = {}
        required = []
        for f in dataclasses.fields(cls):
            p = of(hints[f.name])
            if f.name in _METRIC_KEYED.get(cls, ()):
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
    root["allOf"] = [
        {
            "if": {"properties": {"run": {"properties": {"task": {"const": task}}}}},
            "then": {"properties": {"models": {"additionalProperties": {"properties": {"metrics": {
                "required": list(catalog.keys(task)), "propertyNames": {"enum": list(catalog.keys(task))},
            }}}}}},
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
    "Comparison",
    "RunInfo",
    "Curves",
    "CurveData",
    "Confusion",
    "Optimum",
    "FrozenDict",
    "freeze",
    "check_schema_version",
    "json_schema",
    "to_jsonable",
    "from_jsonable",
    "set_html_display",
]
