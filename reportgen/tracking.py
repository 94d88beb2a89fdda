"""Logging a written report to MLflow: one MLflow run per report (config ``mlflow:``, ``--mlflow URI``).

What one run holds:

- **params**: the config as written (``metrics.json``'s ``run.config``: a ``${VAR}`` value is
  kept as the reference, never the variable's value), nested keys flattened with dots
  (``bootstrap.resamples``, ``models.1.file``); a value longer than MLflow's limit is cut,
  ending in ``…``;
- **metrics**: each model's defined metrics (``challenger.gini``) and each comparison's
  differences and Holm-adjusted p-values (``challenger_vs_champion.gini.delta``,
  ``challenger_vs_champion.gini.p_adjusted``), read from the result's frames
  (:mod:`reportgen.frames`), so they are the report's numbers;
- **artifacts**: the files of the report set;
- **tags**: ``reportgen.run_id``, ``reportgen.version``, ``reportgen.title``, each input's
  ``reportgen.input.N.path`` and ``reportgen.input.N.sha256``, and the config's ``tags``.

Names are made of what MLflow accepts (letters, digits, ``_ - . : /`` and space): any other
character of a model's name becomes ``_`` (and ``/`` too, which MLflow would read as a path).

It runs after the report set is written, so a failure here (mlflow not installed, a bad URI, a
server down) never touches the report: :class:`~reportgen.errors.TrackingError`, one line.
mlflow is imported only here, only when a run is logged. Credentials come from MLflow's own
environment variables (``MLFLOW_TRACKING_USERNAME`` …); so do its HTTP retries
(``MLFLOW_HTTP_REQUEST_MAX_RETRIES``, ``MLFLOW_HTTP_REQUEST_TIMEOUT``).
"""

from __future__ import annotations

import json
import logging
import math
import re
import time
from collections.abc import Iterable, Iterator, Mapping
from contextlib import contextmanager, suppress
from pathlib import Path
from typing import Any
from urllib.parse import urlsplit

from reportgen.config import MlflowConfig
from reportgen.errors import TrackingError
from reportgen.redact import masked
from reportgen.results import ComparisonResult
from reportgen.terminal import one_line
from reportgen.version import __version__

#: MLflow's limits (``mlflow.utils.validation``): a param's value, a tag's value, a name's length,
#: and the most items one ``log_batch`` request takes.
MAX_PARAM_VALUE, MAX_TAG_VALUE, MAX_NAME = 6000, 8000, 250
MAX_BATCH_METRICS, MAX_BATCH_PARAMS, MAX_BATCH_TAGS = 1000, 100, 100

#: A character MLflow refuses in a name (it accepts word characters, ``/ . - :`` and space);
#: ``/`` is replaced too: MLflow reads it as a path separator and refuses ``a/../b``.
_NOT_ALLOWED = re.compile(r"[^\w.\- :]")


def mlflow_name(text: str) -> str:
    """``text`` as a part of an MLflow metric, param or tag name: each character MLflow does
    not accept, and ``/``, as ``_``; empty as ``_``."""
    return _NOT_ALLOWED.sub("_", text) or "_"


def flat_params(config: Mapping[str, Any]) -> dict[str, str]:
    """The config as MLflow params: nested keys joined with dots (a list's items by index),
    scalars as JSON text (a string as itself), an empty list or mapping as ``[]`` / ``{}``;
    every value passed through :func:`~reportgen.redact.masked` and cut to MLflow's limit."""
    out: dict[str, str] = {}

    def walk(node: Any, key: str) -> None:
        if isinstance(node, Mapping) and node:
            for k, v in node.items():
                walk(v, f"{key}.{mlflow_name(str(k))}" if key else mlflow_name(str(k)))
        elif isinstance(node, (list, tuple)) and node:
            for i, v in enumerate(node):
                walk(v, f"{key}.{i}")
        else:
            text = node if isinstance(node, str) else json.dumps(node, ensure_ascii=False)
            text = masked(text)
            out[key[:MAX_NAME]] = text if len(text) <= MAX_PARAM_VALUE else text[: MAX_PARAM_VALUE - 1] + "…"

    walk(config, "")
    return out


def _model_names(result: ComparisonResult) -> dict[str, str]:
    """Each model's name as a part of a metric name, unique (a clash after :func:`mlflow_name`
    gets ``_2``, ``_3`` …) and short enough for ``NAME_vs_NAME.metric.p_adjusted``."""
    out: dict[str, str] = {}
    for name in result.models:
        base = mlflow_name(name)[:100]
        shown, n = base, 1
        while shown in out.values():
            n += 1
            shown = f"{base}_{n}"
        out[name] = shown
    return out


def run_metrics(result: ComparisonResult) -> dict[str, float]:
    """The run's metrics as MLflow metrics: ``MODEL.METRIC`` for each defined value, and for each
    comparison ``MODEL_vs_BASELINE.METRIC.delta`` and, where tested, ``….p_adjusted``."""
    frames = result.frames()
    names = _model_names(result)
    out: dict[str, float] = {}

    def put(key: str, value: Any) -> None:
        if value is not None and not (isinstance(value, float) and math.isnan(value)):
            out[key] = float(value)

    for model, metric, value in frames["metrics"][["model", "metric", "value"]].itertuples(index=False):
        put(f"{names[model]}.{mlflow_name(metric)}", value)
    rows = frames["comparisons"][["model", "baseline", "metric", "delta", "p_adjusted"]]
    for model, baseline, metric, delta, p_adjusted in rows.itertuples(index=False):
        stem = f"{names[model]}_vs_{names[baseline]}.{mlflow_name(metric)}"
        put(f"{stem}.delta", delta)
        put(f"{stem}.p_adjusted", p_adjusted)
    return out


def run_tags(result: ComparisonResult, extra: Mapping[str, str]) -> dict[str, str]:
    """reportgen's tags (run id, version, title, each input's path and SHA-256), then ``extra``."""
    run = result.run
    tags = {"reportgen.run_id": run.run_id, "reportgen.version": __version__, "reportgen.title": run.title}
    for i, f in enumerate(run.files):
        tags[f"reportgen.input.{i}.path"] = masked(f.path)
        tags[f"reportgen.input.{i}.sha256"] = f.sha256
    tags.update({mlflow_name(k)[:MAX_NAME]: masked(v) for k, v in extra.items()})
    return {k: v[:MAX_TAG_VALUE] for k, v in tags.items()}


def tracking_uri(uri: str, base: Path) -> str:
    """``uri`` with a relative SQLite database or a plain directory made absolute against
    ``base`` (the config's directory, as every path in a config); any other URI as given."""
    parts = urlsplit(uri)
    if parts.scheme.lower() == "sqlite":
        rel = parts.path[1:]
        if rel and not rel.startswith(("/", "~")) and not parts.netloc:
            return f"sqlite:///{(base / rel).resolve()}"
        return uri
    if not parts.scheme or len(parts.scheme) == 1:  # a path (C: on Windows)
        return (base / Path(uri).expanduser()).resolve().as_uri()
    return uri


@contextmanager
def _mlflow_info_quiet() -> Iterator[None]:
    """MLflow's INFO lines ("Creating initial MLflow database tables…", "View run … at …") kept
    off the command's stderr while a run is logged (its warnings still show); the level restored."""
    logger = logging.getLogger("mlflow")
    level = logger.level
    logger.setLevel(max(level, logging.WARNING))
    try:
        yield
    finally:
        logger.setLevel(level)


def _chunks(items: list[Any], size: int) -> Iterator[list[Any]]:
    for i in range(0, len(items), size):
        yield items[i : i + size]


def log_run(
    result: ComparisonResult, files: Iterable[Path], settings: MlflowConfig, base: Path = Path(".")
) -> tuple[str, str]:
    """Log a written report to MLflow as one run (see the module docstring); returns the MLflow
    run id and the experiment's id.

    ``files``: the report set's files (artifacts). ``base``: the config's directory (a relative
    ``sqlite:///`` path is relative to it). An experiment this creates on a SQLite store keeps its
    artifacts in ``mlartifacts`` beside the database (MLflow's default is the current directory).
    Raises :class:`~reportgen.errors.TrackingError` (one line, no secret) when mlflow is missing
    or the store refuses; a run left half-logged is marked FAILED.
    """
    try:
        import mlflow  # noqa: F401, PLC0415  (only when logging)
    except ImportError:
        raise TrackingError(
            "logging to MLflow needs mlflow: pip install 'classifier-comparison-report[mlflow]'"
        ) from None
    with _mlflow_info_quiet():
        return _log(result, files, settings, base)


def _log(result: ComparisonResult, files: Iterable[Path], settings: MlflowConfig, base: Path) -> tuple[str, str]:
    uri = tracking_uri(settings.tracking_uri, base)
    shown = masked(settings.tracking_uri)
    run_id: str | None = None
    client: Any = None
    try:
        from mlflow.entities import Metric, Param, RunTag  # noqa: PLC0415  (only when logging)
        from mlflow.tracking import MlflowClient  # noqa: PLC0415

        client = MlflowClient(tracking_uri=uri)
        experiment = client.get_experiment_by_name(settings.experiment)
        if experiment is not None:
            experiment_id = experiment.experiment_id
        else:
            location = None
            if uri.startswith("sqlite:///"):  # made absolute by tracking_uri: sqlite:////dir/mlflow.db
                location = (Path(uri.removeprefix("sqlite:///")).parent / "mlartifacts").as_uri()
            experiment_id = client.create_experiment(settings.experiment, artifact_location=location)
        tags = run_tags(result, settings.tags)
        run = client.create_run(experiment_id, run_name=settings.run_name or result.run.title[:MAX_NAME])
        run_id = run.info.run_id
        now = int(time.time() * 1000)
        metrics = [Metric(k, v, now, 0) for k, v in run_metrics(result).items()]
        params = [Param(k, v) for k, v in flat_params(result.run.config).items()]
        for chunk in _chunks(metrics, MAX_BATCH_METRICS):
            client.log_batch(run_id, metrics=chunk)
        for chunk in _chunks(params, MAX_BATCH_PARAMS):
            client.log_batch(run_id, params=chunk)
        for chunk in _chunks([RunTag(k, v) for k, v in tags.items()], MAX_BATCH_TAGS):
            client.log_batch(run_id, tags=chunk)
        for path in files:
            client.log_artifact(run_id, str(path))
        client.set_terminated(run_id, "FINISHED")
    except Exception as exc:  # whatever MLflow or its transport raises: one line
        if run_id is not None:
            with suppress(Exception):  # the store is failing already; the first error is the one to tell
                client.set_terminated(run_id, "FAILED")
        where = f" (MLflow run {run_id} marked FAILED)" if run_id is not None else ""
        what = one_line(masked(f"{type(exc).__name__}: {exc}"))
        what = what if len(what) <= 400 else what[:399] + "…"
        raise TrackingError(f"MLflow {shown}: {what}{where}") from exc
    return run_id, experiment_id


__all__ = ["flat_params", "log_run", "mlflow_name", "run_metrics", "run_tags", "tracking_uri"]
