"""The public library API: compare models from config files or from data in memory.

Re-exported by the package root (``reportgen.compare_frames`` …), which imports this module on
first use. Every function returns or takes the one frozen :class:`ComparisonResult`, whatever
the data came from: :func:`compare_frames` hands the frames to the same validation
(:func:`reportgen.reduce.local.load_frames`: the ``engine: memory`` runner, each frame one batch),
reduction (:mod:`reportgen.reduce`) and engine as files take, so a DataFrame and the CSV it was
read from give equal metrics, intervals and tests.
Importing this module registers the notebook display of results (:mod:`reportgen.report.notebook`).
"""

from __future__ import annotations

import hashlib
import re
from collections.abc import Mapping, Sequence
from pathlib import Path
from typing import TYPE_CHECKING, Any, Union

import numpy as np
import pandas as pd

import reportgen.report.notebook  # noqa: F401  (registers ComparisonResult._repr_html_)
from reportgen.config import Config, config_from_mapping, load_config, parse_config
from reportgen.engine.compare import Progress
from reportgen.engine.evidence import BinaryEvidence, MulticlassEvidence
from reportgen.errors import ConfigError, InputError
from reportgen.io import validate as V
from reportgen.io.files import FileInfo
from reportgen.pipeline import analyse, load_evidence
from reportgen.reduce.local import load_frames
from reportgen.report.render import Theme
from reportgen.report.writer import write_outputs
from reportgen.results import ComparisonResult
from reportgen.results_io import load_result

if TYPE_CHECKING:
    import pyarrow as pa

#: What :func:`compare_frames` accepts as one table of rows.
Frame = Union[pd.DataFrame, "pa.Table"]

#: The ``config_path`` recorded for a comparison of frames (there is no file).
IN_MEMORY = "<in memory>"

#: Config keys :func:`compare_frames` sets itself (the data is in memory, binary, one engine).
_OWN_KEYS = ("task", "models", "label", "weight", "id", "engine", "scheduler", "stream")


def compare_models(
    cfg: Config, config_path: Path | str, progress: Progress | None = None, now: str | None = None
) -> ComparisonResult:
    """Compare the models a loaded config names, reading their files (as ``reportgen run`` does).

    ``cfg, path = load_config("q3.yaml")`` gives both arguments. ``progress(done, total)`` is
    called during the bootstrap; ``now`` (ISO 8601) pins the run's timestamp for reproducible
    output. Raises :class:`~reportgen.errors.UserError` subclasses with one-line messages.
    """
    return analyse(cfg, config_path, progress, now=now)


def compare_frames(
    data: Frame | Mapping[str, Frame],
    *,
    label: str,
    scores: Mapping[str, str | Mapping[str, Any]] | Sequence[str],
    weight: str | None = None,
    id: str | None = None,  # shadows the builtin: the config key's name
    now: str | None = None,
    **settings: Any,
) -> ComparisonResult:
    """Compare binary classifiers whose scores are in memory: no files, the same frozen result.

    ``data``: one pandas DataFrame or pyarrow Table holding the label and every model's score
    column (rows line up), or a mapping ``{model name: frame}`` with one frame per model (rows
    matched by ``id`` when given, else by position, as separate files are). ``label``: the
    true-label column; ``weight`` / ``id``: optional sample-weight and row-id columns.

    ``scores``: ``{model name: score column}``, or a list of score columns (each model named
    after its column); a value may instead be the model's config entry without ``file``, e.g.
    ``{"score": "points", "direction": "lower", "threshold": 560}`` for a scorecard.

    ``settings``: any other top-level config key (``positive``, ``threshold``, ``costs``,
    ``baseline``, ``primary_metric``, ``bootstrap={"resamples": 500, "seed": 1}``, ``title`` …),
    validated as a YAML config is: an unknown key is a :class:`~reportgen.errors.ConfigError`
    suggesting the closest one. ``now`` pins the timestamp (ISO 8601).

    The result equals the one a config naming the same rows in files gives, except for the
    audit trail: each input is recorded as ``<data>`` (or ``<data['name']>``) with a SHA-256 of
    its columns' values (pandas' stable row hash) instead of the file's bytes.

    Example::

        result = compare_frames(df, label="default_flag", positive=1,
                                scores={"champion": "pd_old", "challenger": "pd_new"})
    """
    own = sorted(k for k in settings if k in _OWN_KEYS)
    if own:
        raise ConfigError(
            f"compare_frames: {own[0]!r} is set by compare_frames itself "
            f"(task binary, in memory; models from 'scores'); remove it"
        )
    entries = _model_entries(scores)
    sources = _sources(data, [e["name"] for e in entries])
    for e in entries:
        e["file"] = sources[e["name"]][0]
    cfg = config_from_mapping(
        {**settings, "task": "binary", "label": label, "weight": weight, "id": id, "models": entries},
        source="compare_frames",
    )
    frames: dict[Path, pd.DataFrame] = {}
    files: list[FileInfo] = []
    indexes: list[pd.Index] = []
    for i, m in enumerate(cfg.models):
        path = V.model_file(m)
        if path in frames:
            continue
        df = _pandas(sources[m.name][1], str(path))
        V.check_columns(cfg, i, m, path, [str(c) for c in df.columns])
        wanted = sorted(
            {
                c
                for mm in cfg.models
                if V.model_file(mm) == path
                for c in (*V.columns_for(cfg, mm).values(), *V.number_columns(cfg, mm))
            }
        )
        if cfg.date:
            wanted = sorted({*wanted, cfg.date})
        indexes.append(df.index)
        frame = df[wanted].reset_index(drop=True)
        frames[path] = frame
        files.append(frame_info(path, frame))
    try:
        return analyse(cfg, IN_MEMORY, None, now=now, data=load_frames(cfg, frames, files))
    except InputError as exc:
        raise type(exc)(frame_rows(str(exc), indexes[0] if len(indexes) == 1 else None)) from None


#: A row as the readers name it: numbered as a CSV's lines (the header is line 1, the first row 2).
_ROW = re.compile(r"\brow (\d+)\b")


def frame_rows(message: str, index: pd.Index | None = None) -> str:
    """A reader's message about frames, its rows named as a notebook finds them: "row 7" (a
    CSV's line, the header line 1) becomes "row at position 5" (``df.iloc[5]``), with the row's
    index label when ``index`` (the one frame's) is not the default ``0, 1, 2, …``."""
    default = index is None or index.equals(pd.RangeIndex(len(index)))

    def named(m: re.Match[str]) -> str:
        position = int(m.group(1)) - V.HEADER_ROWS
        if index is None or default or not 0 <= position < len(index):
            return f"row at position {position}"
        label = index[position]
        label = label.item() if isinstance(label, np.generic) else label  # np.int64(6) is shown 6, as the docs show it
        return f"row at position {position} (index {label!r})"

    return _ROW.sub(named, message)


def _model_entries(scores: Mapping[str, str | Mapping[str, Any]] | Sequence[str]) -> list[dict[str, Any]]:
    """``scores`` as config model entries (name, score and any per-model key but ``file``)."""
    if isinstance(scores, str) or not isinstance(scores, (Mapping, Sequence)):
        raise ConfigError(
            "compare_frames: scores must map model names to score columns "
            "(or list the score columns), e.g. scores={'champion': 'pd_old'}"
        )
    items = scores.items() if isinstance(scores, Mapping) else ((str(c), c) for c in scores)
    out = []
    for name, spec in items:
        entry = {"score": spec} if isinstance(spec, str) else dict(spec)
        if "file" in entry:
            raise ConfigError(f"compare_frames: scores[{name!r}]: 'file' has no meaning for data in memory; remove it")
        out.append({"name": name, **entry})
    if not out:
        raise ConfigError("compare_frames: scores names no model; give at least one score column")
    return out


def _sources(data: Frame | Mapping[str, Frame], names: list[str]) -> dict[str, tuple[str, Frame]]:
    """Each model's (source name, frame): ``<data>`` for one frame, ``<data['name']>`` per model."""
    if isinstance(data, Mapping):
        missing = [n for n in names if n not in data]
        if missing:
            raise ConfigError(
                f"compare_frames: data has no frame for model {missing[0]!r} "
                f"(frames: {', '.join(map(str, data)) or 'none'}); give one frame per model"
            )
        return {n: (f"<data[{n!r}]>", data[n]) for n in names}
    return {n: ("<data>", data) for n in names}


def _pandas(frame: Any, source: str) -> pd.DataFrame:
    """A pandas DataFrame of ``frame`` (a pyarrow Table is converted as a Parquet file's rows are)."""
    if isinstance(frame, pd.DataFrame):
        out = frame
    elif type(frame).__module__.startswith("pyarrow") and hasattr(frame, "to_pandas"):
        out = frame.to_pandas()
    else:
        raise InputError(f"{source}: expected a pandas DataFrame or a pyarrow Table, found {type(frame).__name__}")
    if len(out) == 0:
        raise InputError(f"{source}: has no rows; pass the rows to compare")
    return out


def frame_info(path: Path, frame: pd.DataFrame) -> FileInfo:
    """The audit record of a frame: SHA-256 over its column names and pandas' stable 64-bit hash
    of each row (``pd.util.hash_pandas_object``, fixed key), so equal data gives an equal hash."""
    h = hashlib.sha256()
    for name in frame.columns:
        h.update(str(name).encode() + b"\0")
    h.update(np.ascontiguousarray(pd.util.hash_pandas_object(frame, index=False).to_numpy()).tobytes())
    return FileInfo(str(path), h.hexdigest(), len(frame), int(frame.memory_usage(index=False, deep=True).sum()))


def load_predictions(cfg: Config) -> BinaryEvidence | MulticlassEvidence:
    """Read, validate and align the models' rows a config names, reduced to the evidence every
    engine gives (:mod:`reportgen.engine.evidence`: per-model tables, the pairing, the load audit)."""
    return load_evidence(cfg)


def write_report(
    result: ComparisonResult,
    out_dir: str | Path,
    formats: Sequence[str] = ("html", "pdf", "json"),
    theme: Theme | None = None,
    overwrite: bool = True,
) -> dict[str, Path]:
    """Render ``result`` into ``out_dir`` as its whole new report set, or nothing: ``report.html``,
    ``report.pdf``, ``metrics.json`` (the ``formats`` asked for). Locked against other runs and
    swapped in by one rename (:func:`reportgen.report.writer.write_outputs`). Returns each file's path.

    An :class:`~reportgen.errors.OutputError` names this function's arguments, not the command
    line's options (``overwrite=True``, another ``out_dir``)."""
    from reportgen.errors import OutputError  # noqa: PLC0415

    try:
        return write_outputs(result, out_dir, formats=formats, theme=theme, overwrite=overwrite)
    except OutputError as exc:
        raise OutputError(_in_api_terms(str(exc))) from None


def _in_api_terms(message: str) -> str:
    """The writer's advice, worded for the command line, in :func:`write_report`'s terms."""
    for cli, api in (
        ("pass --overwrite (or set output.overwrite: true)", "pass overwrite=True"),
        ("--overwrite", "overwrite=True"),
        ("with --out", "as out_dir"),
        ("another --out", "another out_dir"),
        ("e.g. --out ", "e.g. out_dir="),
    ):
        message = message.replace(cli, api)
    return message


__all__ = [
    "Config",
    "ComparisonResult",
    "Frame",
    "compare_frames",
    "compare_models",
    "frame_info",
    "load_config",
    "load_predictions",
    "load_result",
    "parse_config",
    "write_report",
]
