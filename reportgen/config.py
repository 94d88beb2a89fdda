"""The run configuration: strict, frozen, and the only place YAML is parsed.

Every nested model forbids unknown keys (a typo is an error that suggests the closest valid
key) and is frozen. Each default lives here and nowhere else. Relative data paths resolve
against the directory of the config file; the output directory against the working
directory (or ``--out``).
"""

from __future__ import annotations

import difflib
import stat
import re
import string
from pathlib import Path
from typing import Any, Literal

import yaml
from pydantic import BaseModel, ConfigDict, Field, PrivateAttr, ValidationError, ValidationInfo, field_validator, model_validator

import reportgen.catalog as catalog
from reportgen.errors import ConfigError

Task = Literal["binary", "multiclass"]
Format = Literal["html", "pdf", "json"]
ScalarLabel = int | str | bool | float

#: Metrics a constraint rule may name (threshold metrics that vary with the cut).
CONSTRAINT_METRICS: tuple[str, ...] = catalog.constraint_metrics()
ConstraintMetric = Literal[CONSTRAINT_METRICS]  # type: ignore[valid-type]

#: Metrics a binary run may rank by (``primary_metric``): those with a better direction.
PRIMARY_METRICS: tuple[str, ...] = catalog.primary_metrics("binary")

#: Metrics a multiclass run may rank by (``primary_metric``).
MULTICLASS_PRIMARY_METRICS: tuple[str, ...] = catalog.primary_metrics("multiclass")


#: The most models one report compares: every model adds a column to each table, a curve to
#: each figure and a row and column to the pairwise tests; 300 models made a 3.4 GB PDF run.
MAX_MODELS = 40

#: What ``output.dir`` may contain: the config file's stem, the run date, the run id.
OUTPUT_PLACEHOLDERS = ("config", "date", "run_id")


class _Invalid(ValueError):
    """A cross-field problem raised by a model validator, with the key it is about.

    Pydantic reports model-level errors at the model's own location; ``loc`` (relative to
    the model) lets the message and the line number point at the offending key instead.
    """

    def __init__(self, loc: tuple[str | int, ...], message: str) -> None:
        super().__init__(message)
        self.loc = loc


class Strict(BaseModel):
    """Every config model: unknown keys are errors, values are frozen, and no float may be
    NaN or infinite (a NaN threshold would flag every row; an infinite cost or β has no meaning)."""

    model_config = ConfigDict(extra="forbid", frozen=True, allow_inf_nan=False)


class CostsConfig(Strict):
    """Cost of each outcome per row (binary). Only relative sizes matter for the optimum."""

    fn: float = Field(1.0, ge=0)
    fp: float = Field(1.0, ge=0)
    tp: float = Field(0.0, ge=0)
    tn: float = Field(0.0, ge=0)


class ConstraintConfig(Strict):
    """``{maximize: precision, where: recall, at_least: 0.8}``: an optimal-threshold rule."""

    maximize: ConstraintMetric
    where: ConstraintMetric
    at_least: float | None = None
    at_most: float | None = None

    @model_validator(mode="after")
    def _one_bound(self) -> ConstraintConfig:
        if (self.at_least is None) == (self.at_most is None):
            raise ValueError("give exactly one of at_least / at_most")
        return self


class ModelConfig(Strict):
    name: str = Field(min_length=1)
    file: Path
    score: str | None = None
    direction: Literal["higher", "lower"] = "higher"
    threshold: float | None = None  # overrides the top-level threshold (e.g. scorecard points)
    label: str | None = None
    id: str | None = None
    weight: str | None = None
    probabilities: bool | None = None
    prediction: str | None = None
    scores: list[str] | dict[ScalarLabel, str] | None = None  # multiclass: a column per class


class OutputConfig(Strict):
    """Where reports go. ``dir`` may use ``{config}`` (config file stem), ``{date}``, ``{run_id}``."""

    dir: str = "reports/{config}"
    formats: list[Format] = Field(["html", "pdf", "json"], min_length=1)
    overwrite: bool = False

    @field_validator("dir")
    @classmethod
    def _placeholders(cls, v: str) -> str:
        try:
            fields = [(f, spec, conv) for _, f, spec, conv in string.Formatter().parse(v) if f is not None]
        except ValueError:  # an unbalanced brace
            fields = [("{", "", None)]
        if any(f not in OUTPUT_PLACEHOLDERS or spec or conv for f, spec, conv in fields):
            raise ValueError(f"{v!r} uses an unknown placeholder; only {{config}}, {{date}} and {{run_id}} may be used")
        return v


#: Sections of a report, in reading order; ``report.sections`` picks and keeps this order.
REPORT_SECTIONS = ("summary", "comparison", "metrics", "per_class", "confusion", "curves", "thresholds", "glossary", "appendix")
ReportSection = Literal["summary", "comparison", "metrics", "per_class", "confusion", "curves", "thresholds", "glossary", "appendix"]


class ReportConfig(Strict):
    """Look of the report without forking the templates (paths resolve against the config file).

    ``template_dir`` may override any template (``report.html``, ``sections/*.html``) or
    ``report.css``; ``palette`` gives the model colours in order; ``sections`` which sections to
    include (the title block and contents are always there).
    """

    template_dir: Path | None = None
    logo: Path | None = None
    palette: list[str] | None = Field(None, min_length=1)
    sections: list[ReportSection] | None = Field(None, min_length=1)

    @field_validator("palette")
    @classmethod
    def _colours(cls, v: list[str] | None) -> list[str] | None:
        for c in v or []:
            if not re.fullmatch(r"#(?:[0-9a-fA-F]{3}|[0-9a-fA-F]{6})", c):
                raise ValueError(f"{c!r} is not a colour; write colours as '#rrggbb'")
        return v


class StreamConfig(Strict):
    """Reading in record batches (``engine: stream`` and ``dask``): memory grows with distinct scores.

    ``max_distinct_scores``: above this many distinct scores in a model, its scores are binned
    into ``bins`` bins (``quantile`` of a sample of the scores, or ``fixed`` width); the report
    states the binning and the exact bound on the AUC error it can cause. ``task: multiclass``
    is not binned: a score column with more table entries is an error (round the scores).
    """

    batch_rows: int = Field(1_000_000, ge=1_000)
    max_distinct_scores: int = Field(2_000_000, ge=100)
    bins: int = Field(100_000, ge=10)
    binning: Literal["quantile", "fixed"] = "quantile"
    sample_per_batch: int = Field(2_000, ge=10)


class BootstrapConfig(Strict):
    resamples: int = Field(500, ge=0, le=100_000)
    seed: int = Field(20240601, ge=0, lt=2**63)


class Config(Strict):
    """A comparison run. The YAML shape documented in the README is the public contract."""

    title: str = "Model comparison"
    author: str | None = None
    task: Task = "binary"
    label: str | None = None
    positive: ScalarLabel = 1
    classes: list[ScalarLabel] | None = None
    id: str | None = None
    weight: str | None = None
    date: str | None = None  # optional date column: its range is shown on the title page
    threshold: float = 0.5
    beta: float = Field(1.0, gt=0)
    costs: CostsConfig | list[list[float]] = CostsConfig()
    baseline: str | None = None
    primary_metric: str | None = None  # default: gini (binary), f1_macro (multiclass)
    confidence_level: float = Field(0.95, gt=0, lt=1)
    prevalences: list[float] = []
    constraints: list[ConstraintConfig] = []
    bootstrap: BootstrapConfig = BootstrapConfig()
    missing: Literal["error", "drop"] = "error"
    id_mismatch: Literal["error", "intersect"] = "error"
    models: list[ModelConfig] = Field(min_length=1)
    output: OutputConfig = OutputConfig()
    report: ReportConfig = ReportConfig()
    engine: Literal["memory", "stream", "dask"] = "memory"
    scheduler: str | None = None  # dask: address of a running scheduler; none starts a LocalCluster
    stream: StreamConfig = StreamConfig()

    _source: str | None = PrivateAttr(None)  # config file name, for messages
    _text: str | None = PrivateAttr(None)  # its YAML text, to find the line of a key

    def where(self, *loc: str | int) -> str:
        """``'configs/q3.yaml:12: models[1].score'``: the file, line and key of a config value.

        Lets later stages (sources) point a data problem at the config key that named it.
        """
        key = _format_loc(loc)
        if self._source is None:
            return key
        line = _yaml_line(self._text, loc) if self._text is not None else None
        return f"{self._source}{f':{line}' if line else ''}: {key}"

    @field_validator("prevalences")
    @classmethod
    def _prevalences(cls, v: list[float]) -> list[float]:
        for p in v:
            if not 0.0 < p < 1.0:
                raise ValueError(f"each prevalence must lie strictly between 0 and 1, found {p}")
        return v

    @field_validator("primary_metric")
    @classmethod
    def _primary_metric(cls, v: str | None, info: ValidationInfo) -> str | None:
        task = info.data.get("task", "binary")
        allowed = PRIMARY_METRICS if task == "binary" else MULTICLASS_PRIMARY_METRICS
        if v is not None and v in catalog.keys(task) and v not in allowed:
            raise ValueError(f"{v!r} cannot rank models: it has no better direction (it depends only on the labels); "
                             f"choose one of {', '.join(allowed)}")
        if v is not None and v not in allowed:
            hint = difflib.get_close_matches(v, allowed, n=1)
            tip = f"did you mean '{hint[0]}'?" if hint else f"choose one of {', '.join(allowed)}"
            raise ValueError(f"unknown metric {v!r} for task: {info.data.get('task', 'binary')}; {tip}")
        return v

    @field_validator("costs")
    @classmethod
    def _costs(cls, v: Any) -> Any:
        if isinstance(v, list):
            k = len(v)
            if k < 2 or any(len(row) != k for row in v):
                raise ValueError("a cost matrix must be square (one row and one column per class)")
            negative = [c for row in v for c in row if c < 0]
            if negative:
                raise ValueError(f"every cost must be non-negative, found {negative[0]:g}")
        return v

    @model_validator(mode="after")
    def _consistent(self) -> Config:
        if len(self.models) > MAX_MODELS:
            raise _Invalid(("models",), f"{len(self.models)} models; a report compares at most {MAX_MODELS} "
                           f"(each adds curves, tables and pairwise tests); split them into several configs")
        names = [m.name for m in self.models]
        dupes = sorted({n for n in names if names.count(n) > 1})
        if dupes:
            raise _Invalid(("models", names.index(dupes[0], names.index(dupes[0]) + 1), "name"),
                           f"duplicate model names: {', '.join(dupes)}; give every model a unique name")
        if self.baseline is not None and self.baseline not in names:
            hint = difflib.get_close_matches(self.baseline, names, n=1)
            tip = f" (did you mean '{hint[0]}'?)" if hint else ""
            raise _Invalid(("baseline",), f"'{self.baseline}' names no model{tip}; models: {', '.join(names)}")
        for i, m in enumerate(self.models):
            if (m.label or self.label) is None:
                raise _Invalid(("models", i), f"no label column for model '{m.name}'; set 'label' at the top or per model")
            if self.task == "binary" and m.score is None:
                raise _Invalid(("models", i), f"'score' (the column with the score) is required for task: binary (model '{m.name}')")
            if self.task == "multiclass" and m.prediction is None and m.scores is None:
                raise _Invalid(("models", i), f"give 'prediction' and/or 'scores' for task: multiclass (model '{m.name}')")
        if self.task == "binary" and isinstance(self.costs, list) and len(self.costs) != 2:
            raise _Invalid(("costs",), f"a {len(self.costs)}x{len(self.costs)} matrix for task: binary; give {{fn: .., fp: ..}} or a 2x2 matrix")
        if self.task == "multiclass" and isinstance(self.costs, list) and self.classes is not None:
            if len(self.costs) != len(self.classes):
                raise _Invalid(("costs",), f"a {len(self.costs)}x{len(self.costs)} matrix for {len(self.classes)} classes; "
                               f"give one row and one column per class")
        return self

    def with_overrides(self, **values: Any) -> Config:
        """A copy with top-level keys replaced and validated again (command-line overrides)."""
        data = self.model_dump()
        data.update(values)
        try:
            cfg = Config.model_validate(data)
        except ValidationError as exc:
            msg, _ = _explain(exc.errors()[0])
            raise ConfigError(f"{self._source or '<config>'}: {msg} (from the command line)") from None
        cfg._source, cfg._text = self._source, self._text
        return cfg

    @property
    def primary(self) -> str:
        """The metric that ranks the models and drives the verdicts."""
        if self.primary_metric is not None:
            return self.primary_metric
        return "gini" if self.task == "binary" else "f1_macro"

    @property
    def baseline_name(self) -> str:
        return self.baseline if self.baseline is not None else self.models[0].name

    def binary_costs(self) -> CostsConfig:
        """Binary costs; a 2×2 matrix is read as rows = true (neg, pos), columns = predicted."""
        if isinstance(self.costs, CostsConfig):
            return self.costs
        (tn, fp), (fn, tp) = self.costs
        return CostsConfig(fn=fn, fp=fp, tp=tp, tn=tn)


# --------------------------------------------------------------------------------------
# Loading
# --------------------------------------------------------------------------------------


def _yaml_line(text: str, loc: tuple[Any, ...]) -> int | None:
    """1-based line of the YAML node at ``loc`` (keys and list indices), if it can be found."""
    try:
        node = yaml.compose(text, Loader=yaml.SafeLoader)
    except yaml.YAMLError:
        return None
    line = None
    for part in loc:
        if isinstance(node, yaml.MappingNode):
            for k, v in node.value:
                if k.value == part:
                    line = k.start_mark.line + 1
                    node = v
                    break
            else:
                return line
        elif isinstance(node, yaml.SequenceNode) and isinstance(part, int) and part < len(node.value):
            node = node.value[part]
            line = node.start_mark.line + 1
        else:
            return line
    return line


def _fields_at(loc: tuple[Any, ...]) -> list[str]:
    """Valid keys of the config model that holds the key at ``loc`` (for suggestions)."""
    model: Any = Config
    for part in loc[:-1]:
        if isinstance(part, int):
            continue
        field = model.model_fields.get(part)
        if field is None:
            return []
        ann = field.annotation
        candidates = [ann, *getattr(ann, "__args__", ())]
        for c in candidates:
            for cc in [c, *getattr(c, "__args__", ())]:
                if isinstance(cc, type) and issubclass(cc, BaseModel):
                    model = cc
                    break
            else:
                continue
            break
        else:
            return []
    return list(model.model_fields)


def _format_loc(loc: tuple[Any, ...]) -> str:
    out = ""
    for part in loc:
        out += f"[{part}]" if isinstance(part, int) else (f".{part}" if out else str(part))
    return out or "(top level)"


def _explain(err: dict[str, Any]) -> tuple[str, tuple[Any, ...]]:
    # drop pydantic's union-branch names (e.g. 'CostsConfig', 'list[list[float]]') from the path
    loc = tuple(p for p in err["loc"] if isinstance(p, int) or not (p[:1].isupper() or "[" in p))
    cause = err.get("ctx", {}).get("error")
    if isinstance(cause, _Invalid):
        loc += cause.loc
    kind = err["type"]
    where = _format_loc(loc)
    if kind == "extra_forbidden":
        valid = _fields_at(loc)
        hint = difflib.get_close_matches(str(loc[-1]), valid, n=1)
        tip = f"; did you mean '{hint[0]}'?" if hint else f"; valid keys: {', '.join(valid)}"
        return f"{where}: unknown key{tip}", loc
    if kind == "missing":
        return f"{where}: required key is missing", loc
    msg = err["msg"]
    if msg.startswith("Value error, "):
        msg = msg[len("Value error, "):]
    found = err.get("input")
    shown = "" if kind.startswith("value_error") or isinstance(found, (dict, list)) else f" (found {found!r})"
    return f"{where}: {msg}{shown}", loc


#: How deep a config may nest (mappings and lists); the documented shape needs 4.
MAX_DEPTH = 32

#: At most this many problems are listed in one error line.
MAX_PROBLEMS_SHOWN = 5


class _DuplicateKey(yaml.YAMLError):
    def __init__(self, key: Any, line: int, first: int) -> None:
        super().__init__(f"duplicate key {key!r}")
        self.key, self.line, self.first = key, line, first


class _StrictSafeLoader(yaml.SafeLoader):
    """``yaml.SafeLoader`` that refuses a key given twice in one mapping (PyYAML keeps the last)."""

    def construct_mapping(self, node: yaml.MappingNode, deep: bool = False) -> dict[Any, Any]:
        seen: dict[Any, int] = {}
        for key_node, _ in node.value:
            key = self.construct_object(key_node, deep=deep)  # type: ignore[no-untyped-call]
            try:
                first = seen.get(key)
            except TypeError:  # an unhashable key: let PyYAML report it
                continue
            if first is not None:
                raise _DuplicateKey(key, key_node.start_mark.line + 1, first)
            seen[key] = key_node.start_mark.line + 1
        return super().construct_mapping(node, deep=deep)


def _depth(node: Any, limit: int) -> int:
    """Nesting depth of parsed YAML, counting at most to ``limit + 1`` (no recursion)."""
    deepest, stack = 0, [(node, 1)]
    while stack:
        item, d = stack.pop()
        if isinstance(item, (dict, list)):
            deepest = max(deepest, d)
            if deepest > limit:
                return deepest
            stack.extend((v, d + 1) for v in (item.values() if isinstance(item, dict) else item))
    return deepest


def _safe_load(text: str, source: str) -> Any:
    """YAML text → plain data: safe tags only, no duplicate keys, bounded nesting."""
    try:
        return yaml.load(text, Loader=_StrictSafeLoader)  # noqa: S506 - a SafeLoader subclass
    except _DuplicateKey as exc:
        raise ConfigError(
            f"{source}:{exc.line}: duplicate key {exc.key!r} (first given at line {exc.first}); keep one of them"
        ) from None
    except RecursionError:
        raise ConfigError(f"{source}: the config nests too deeply (more than {MAX_DEPTH} levels); "
                          f"see configs/demo.yaml for its shape") from None


def parse_config(text: str, source: str = "<config>") -> Config:
    """Parse and validate YAML text. Raises :class:`ConfigError` with file, line and key.

    Every problem is listed on one line, unknown keys (with the closest valid key) first:
    a typo such as ``modles`` is the cause of the "models: required key is missing" after it.
    """
    try:
        data = _safe_load(text, source)
    except yaml.YAMLError as exc:
        mark = getattr(exc, "problem_mark", None)
        pos = f":{mark.line + 1}:{mark.column + 1}" if mark is not None else ""
        problem = getattr(exc, "problem", None) or str(exc).splitlines()[0]
        context, cmark = getattr(exc, "context", None), getattr(exc, "context_mark", None)
        if context and cmark is not None and mark is not None and cmark.line != mark.line:
            problem += f" ({context} at line {cmark.line + 1}, column {cmark.column + 1})"
        if "could not determine a constructor" in str(exc):
            problem = "tags such as !!python/object are not allowed (safe YAML only); remove the tag"
        raise ConfigError(f"{source}{pos}: invalid YAML: {problem}") from None
    if data is None:
        raise ConfigError(f"{source}: the config is empty; see configs/demo.yaml for an example")
    if not isinstance(data, dict):
        raise ConfigError(f"{source}: the config must be a mapping of keys (title, models, ...), found {type(data).__name__}")
    if _depth(data, MAX_DEPTH) > MAX_DEPTH:
        raise ConfigError(f"{source}: the config nests too deeply (more than {MAX_DEPTH} levels); "
                          f"see configs/demo.yaml for its shape")
    try:
        cfg = Config.model_validate(data)
    except ValidationError as exc:
        raise ConfigError(_problems_line(exc, text, source)) from None
    except RecursionError:
        raise ConfigError(f"{source}: the config nests too deeply; see configs/demo.yaml for its shape") from None
    cfg._source, cfg._text = source, text
    return cfg


#: Where the config's JSON Schema ships (regenerate with :func:`json_schema`; a test checks it).
SCHEMA_FILE = Path(__file__).resolve().parent / "schema" / "config.schema.json"


def json_schema() -> dict[str, Any]:
    """The config's JSON Schema (draft 2020-12), generated from the models above so it cannot
    drift: every key, type, choice and default, and ``additionalProperties: false`` at every
    level (a typo is refused by an editor as by :func:`parse_config`). Cross-field rules (a
    label for every model, ``baseline`` naming a model, …) are checked only by reportgen.

    Regenerate ``reportgen/schema/config.schema.json`` after changing a config model::

        PYTHONPATH=. python -c "import json, reportgen.config as c; \
        print(json.dumps(c.json_schema(), indent=2, ensure_ascii=False))" > reportgen/schema/config.schema.json
    """
    schema = Config.model_json_schema()
    return {"$schema": "https://json-schema.org/draft/2020-12/schema", **schema}


def config_from_mapping(data: dict[str, Any], source: str = "<config>") -> Config:
    """Validate config keys given as a mapping (the library's in-memory entry point,
    :func:`reportgen.api.compare_frames`): the rules and one-line messages of
    :func:`parse_config`, without line numbers. Raises :class:`ConfigError`."""
    try:
        cfg = Config.model_validate(data)
    except ValidationError as exc:
        raise ConfigError(_problems_line(exc, "", source)) from None
    cfg._source = source
    return cfg


def _problems_line(exc: ValidationError, text: str, source: str) -> str:
    """Every validation problem on one line, unknown keys first, each with its line number."""
    errors = sorted(exc.errors(), key=lambda e: e["type"] != "extra_forbidden")  # stable: keeps YAML order
    shown = []
    for err in errors[:MAX_PROBLEMS_SHOWN]:
        msg, loc = _explain(err)
        line = _yaml_line(text, loc)
        shown.append((line, msg))
    first_line, first_msg = shown[0]
    out = f"{source}{f':{first_line}' if first_line else ''}: {first_msg}"
    for line, msg in shown[1:]:
        out += f"; also {f'line {line}: ' if line else ''}{msg}"
    more = len(errors) - len(shown)
    if more:
        out += f" (and {more} more problem{'s' if more > 1 else ''})"
    return out


def load_config(path: str | Path) -> tuple[Config, Path]:
    """Read a config file; return it with data paths resolved against its directory."""
    p = Path(path)
    try:
        text = p.read_text(encoding="utf-8")
    except FileNotFoundError:
        raise ConfigError(f"{p}: config file not found; check the path") from None
    except IsADirectoryError:
        raise ConfigError(f"{p}: is a directory, expected a YAML config file") from None
    except UnicodeDecodeError:
        raise ConfigError(f"{p}: not UTF-8 text; save the config as UTF-8") from None
    except OSError as exc:
        raise ConfigError(f"{p}: cannot read the config ({exc.strerror})") from None
    cfg = parse_config(text, str(p))
    base = p.resolve().parent
    models = [
        m.model_copy(update={"file": m.file if m.file.is_absolute() else (base / m.file)})
        for m in cfg.models
    ]
    report = cfg.report.model_copy(update={
        k: (v if v.is_absolute() else base / v)
        for k in ("template_dir", "logo") if (v := getattr(cfg.report, k)) is not None
    })
    for key in ("template_dir", "logo"):
        target = getattr(report, key)
        if target is None:
            continue
        if not target.exists() or target.is_dir() != (key == "template_dir"):
            what = "a directory of templates" if key == "template_dir" else "an image file"
            raise ConfigError(f"{cfg.where('report', key)}: {target} is not {what}; fix the path (relative to the config file)")
        if key == "logo":
            # A logo is embedded in the report: it must be the config's own regular file, never
            # a symlink or path leading out of the config's directory tree (a secret inlined as
            # base64), nor a device or FIFO.
            real = target.resolve()
            if not real.is_relative_to(base):
                raise ConfigError(
                    f"{cfg.where('report', 'logo')}: {target} lies outside the config's directory {base} "
                    f"(or is a symlink leading out of it); copy the logo next to the config"
                )
            if not stat.S_ISREG(real.stat().st_mode):
                raise ConfigError(f"{cfg.where('report', 'logo')}: {target} is not a regular file; give an image file")
    return cfg.model_copy(update={"models": models, "report": report}), p
