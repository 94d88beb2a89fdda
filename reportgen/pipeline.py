"""Config + data → :class:`ComparisonResult`: the glue between sources and the engine.

Maps the config onto the engine's plain settings, runs the comparison, and assembles the
audit trail (inputs with SHA-256, rows dropped, versions, run id, timing).
"""

from __future__ import annotations

import hashlib
import json
import time
from dataclasses import replace
from importlib import metadata
from pathlib import Path

import numpy as np

from reportgen import clock
from reportgen.config import Config
from reportgen.engine import binary as B
from reportgen.engine.compare import ModelInput, Progress, Settings, compare
from reportgen.engine.compare_multiclass import MulticlassInput, compare_counts, compare_multiclass
from reportgen.engine.compare_tables import TableModel, compare_tables
from reportgen.results import ComparisonResult, DroppedRows, InputFile, RunInfo
from reportgen.sources import Dataset, load_dataset
from reportgen.sources_stream import StreamedData, load_streamed
from reportgen.sources_stream_multiclass import StreamedMulticlass, load_streamed_multiclass

LIBRARIES = ("numpy", "pandas", "pyarrow", "matplotlib", "jinja2", "weasyprint", "pyyaml", "pydantic")


def versions() -> dict[str, str]:
    out = {}
    for lib in LIBRARIES:
        try:
            out[lib] = metadata.version(lib)
        except metadata.PackageNotFoundError:
            out[lib] = "not installed"
    return out


def reportgen_version() -> str:
    try:
        return metadata.version("reportgen")
    except metadata.PackageNotFoundError:
        from reportgen import __version__

        return __version__


def settings_from(cfg: Config) -> Settings:
    c = cfg.binary_costs() if cfg.task == "binary" else None
    return Settings(
        threshold=cfg.threshold,
        beta=cfg.beta,
        costs=B.Costs(fn=c.fn, fp=c.fp, tp=c.tp, tn=c.tn) if c else B.Costs(),
        constraints=tuple(B.Constraint(x.maximize, x.where, x.at_least, x.at_most) for x in cfg.constraints),
        prevalences=tuple(cfg.prevalences),
        baseline=cfg.baseline_name,
        primary_metric=cfg.primary,
        level=cfg.confidence_level,
        resamples=cfg.bootstrap.resamples,
        seed=cfg.bootstrap.seed,
    )


def _load_tables(cfg: Config, progress: Progress | None) -> StreamedData:
    """Streamed (``engine: stream``) or distributed (``engine: dask``) score tables."""
    if cfg.engine == "dask":
        from reportgen.dask_engine import load_dask  # noqa: PLC0415  (optional dependency)

        return load_dask(cfg, progress)
    return load_streamed(cfg, progress)


def _load_counts(cfg: Config, progress: Progress | None) -> StreamedMulticlass:
    """Streamed (``engine: stream``) or distributed (``engine: dask``) multiclass counts."""
    if cfg.engine == "dask":
        from reportgen.dask_multiclass import load_dask_multiclass  # noqa: PLC0415  (optional dependency)

        return load_dask_multiclass(cfg, progress)
    return load_streamed_multiclass(cfg, progress)


def run_id(cfg: Config, data: Dataset | StreamedData | StreamedMulticlass, created: str) -> str:
    """Deterministic id of a run: hash of the config, the inputs' hashes and the timestamp."""
    h = hashlib.sha256()
    h.update(json.dumps(cfg.model_dump(mode="json"), sort_keys=True).encode())
    for f in data.files:
        h.update(f.sha256.encode())
    h.update(created.encode())
    return h.hexdigest()[:12]


def analyse(cfg: Config, config_path: Path | str, progress: Progress | None = None,
            now: str | None = None) -> ComparisonResult:
    """Load the data the config names and compare the models.

    ``now`` pins the run's timestamp (ISO 8601, the CLI's ``--now``); see :mod:`reportgen.clock`.
    """
    started = time.perf_counter()
    created = clock.now(now).isoformat().replace("+00:00", "Z")
    s = settings_from(cfg)
    classes = None
    if cfg.engine != "memory" and cfg.task == "multiclass":
        data = _load_counts(cfg, progress)
        classes = list(data.classes)
        cost_matrix = np.asarray(cfg.costs, dtype=np.float64) if isinstance(cfg.costs, list) else None
        models, comparisons = compare_counts(data.models, classes, s, cost_matrix, data.mcnemar, data.paired_note)
        pairwise = []
    elif cfg.engine != "memory":
        data = _load_tables(cfg, progress)
        models, comparisons, pairwise = compare_tables(
            [TableModel(m.name, m.file, m.table, m.probabilities, m.threshold, m.binning) for m in data.models],
            s, data.paired, data.paired_note,
        )
    elif cfg.task == "multiclass":
        data = load_dataset(cfg)
        classes = list(data.classes)
        mc_inputs = [MulticlassInput(m.name, m.file, m.y_idx, m.pred_idx, m.proba, m.weights) for m in data.models]  # type: ignore[arg-type]
        cost_matrix = np.asarray(cfg.costs, dtype=np.float64) if isinstance(cfg.costs, list) else None
        models, comparisons = compare_multiclass(mc_inputs, classes, replace(s, paired=data.paired), cost_matrix, progress)
        pairwise = []
    else:
        data = load_dataset(cfg)
        own = {m.name: m.threshold for m in cfg.models}
        inputs = [
            ModelInput(m.name, m.file, m.scores, m.y, m.weights, m.direction, m.probabilities, own[m.name])  # type: ignore[arg-type]
            for m in data.models
        ]
        models, comparisons, pairwise = compare(inputs, s, progress)
    warnings = list(data.warnings)
    for m in models.values():
        warnings.extend(m.warnings)
    for name, reason, rows in data.dropped:
        warnings.append(f"model '{name}': {rows} row(s) dropped ({reason})")
    costs = cfg.costs.model_dump() if hasattr(cfg.costs, "model_dump") else {"matrix": cfg.costs}
    duration = 0.0 if clock.is_pinned(now) else round(time.perf_counter() - started, 3)
    run = RunInfo(
        title=cfg.title,
        task=cfg.task,
        created=created,
        run_id=run_id(cfg, data, created),
        reportgen_version=reportgen_version(),
        versions=versions(),
        config=cfg.model_dump(mode="json"),
        config_path=str(config_path),
        files=[InputFile(f.path, f.sha256, f.rows, f.size_bytes) for f in data.files],
        dropped=[DroppedRows(n, r, k) for n, r, k in data.dropped],
        warnings=warnings,
        paired=data.paired is not None and data.paired is not False,
        baseline=cfg.baseline_name,
        primary_metric=cfg.primary,
        threshold=cfg.threshold,
        beta=cfg.beta,
        costs=costs,
        confidence_level=cfg.confidence_level,
        bootstrap_resamples=cfg.bootstrap.resamples,
        bootstrap_seed=cfg.bootstrap.seed,
        duration_seconds=duration,
        author=cfg.author,
        classes=classes,
        engine=cfg.engine,
        date_range=list(data.dates) if getattr(data, "dates", None) else None,
    )
    return ComparisonResult(run=run, models=models, comparisons=comparisons, pairwise=pairwise)
