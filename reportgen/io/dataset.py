"""The in-memory engine's rows (``engine: memory``): the files read, and the kept rows aligned.

:func:`read_frames` reads every file once, only the columns the config names (CSV or Parquet);
the local runner (:func:`reportgen.reduce.local.dataset_of_frames`) validates each frame as one
batch by the rules every engine applies and keeps the rows: a :class:`Dataset`.
:func:`align_models` puts every model's rows in one order with the id join of
:mod:`reportgen.io.align`, the one the streamed engines use too.
"""

from __future__ import annotations

import dataclasses
from dataclasses import dataclass, field
from typing import Any

from pathlib import Path

import numpy as np
import pandas as pd

from reportgen.config import Config
from reportgen.io import validate as V
from reportgen.io.align import Keyed, check_enough, one_label, check_positions, intersect_positions, join_ids
from reportgen.io.files import FileInfo, columns_in, file_info, hashing, read_table
from reportgen.results import Notice


@dataclass(frozen=True, slots=True)
class ModelData:
    """One model's validated rows, aligned with every other model's (same order) when paired.

    ``y`` is boolean (True = positive) for binary tasks; for multiclass ``y_idx`` indexes
    ``classes`` and ``pred_idx`` / ``proba`` hold the predictions. ``ids`` are id keys;
    ``rows`` the kept rows' 0-based positions in the file (errors name them).
    """

    name: str
    file: str
    direction: str
    scores: np.ndarray | None
    y: np.ndarray | None
    weights: np.ndarray | None
    ids: np.ndarray | None
    probabilities: bool | None = None
    y_idx: np.ndarray | None = None
    pred_idx: np.ndarray | None = None
    proba: np.ndarray | None = None
    rows: np.ndarray | None = None
    id_column: str | None = None

    @property
    def n(self) -> int:
        if self.y is not None:
            return int(self.y.shape[0])
        return int(self.y_idx.shape[0]) if self.y_idx is not None else 0


@dataclass(frozen=True, slots=True)
class Dataset:
    """All models' data plus what was dropped and why (for the audit trail)."""

    models: tuple[ModelData, ...]
    files: tuple[FileInfo, ...]
    paired: bool
    dropped: tuple[tuple[str, str, int], ...] = ()  # (model, reason, rows)
    warnings: tuple[Notice, ...] = ()
    classes: tuple[Any, ...] = ()
    label_values: tuple[str, ...] = field(default_factory=tuple)
    dates: tuple[str, str] | None = None  # first and last date of the configured date column
    #: why the models' rows are not paired (a :data:`~reportgen.engine.evidence.PairingReason`), when not
    unpaired_reason: str = "separate_files"


def truth_of(m: ModelData) -> np.ndarray:
    """The true labels of a model's rows: booleans (binary) or class indices (multiclass)."""
    return m.y if m.y is not None else m.y_idx  # type: ignore[return-value]


def take(m: ModelData, rows: np.ndarray) -> ModelData:
    """The model's data restricted to (and reordered by) ``rows``."""
    arrays = ("scores", "y", "weights", "ids", "y_idx", "pred_idx", "proba", "rows")
    return dataclasses.replace(m, **{a: getattr(m, a)[rows] for a in arrays if getattr(m, a) is not None})


def align_models(cfg: Config, models: list[ModelData], n_rows: list[int], lost: list[Any] | None = None,
                 classes: list[str] | None = None) -> tuple[list[ModelData], bool, list[str], list[tuple[str, str, int]]]:
    """Put every model's rows in one order so that comparisons are paired (:mod:`reportgen.io.align`).

    ``n_rows``: each model's file length; ``lost``: the ids each model dropped itself (``missing:
    drop``); ``classes``: the class keys (multiclass), so that labels are compared and named as
    the streamed engines do. Only the rows every model keeps are compared (with ids: the shared
    ids; without: the same positions). Returns (models, paired, warnings, rows left out per
    model and reason)."""
    names = None if classes is None else np.asarray(classes, dtype=object)

    def labels(m: ModelData) -> np.ndarray:
        return truth_of(m) if names is None else names[truth_of(m)]

    if all(m.ids is not None for m in models):
        keyed = [Keyed(m.name, m.file, m.id_column or "id", m.ids, m.rows if m.rows is not None else np.arange(m.n),
                       labels(m), None if lost is None else lost[i]) for i, m in enumerate(models)]
        joined = join_ids(cfg, keyed)
        if len(models) == 1:
            return models, True, [], []
        return [take(m, t) for m, t in zip(models, joined.take)], True, list(joined.warnings), list(joined.dropped)
    dropped: list[tuple[str, str, int]] = []
    if len(set(n_rows)) > 1:  # files of different lengths, no id: two samples, compared unpaired (as streamed)
        return models, False, [], dropped
    if len(models) > 1:
        masks = []
        for m, n in zip(models, n_rows):
            mask = np.zeros(n, dtype=bool)
            mask[m.rows] = True
            masks.append(mask)
        index, by_another = intersect_positions([m.name for m in models], masks, n_rows[0])
        if index is not None:
            models = [take(m, np.flatnonzero(index[m.rows] >= 0)) for m in models]
            dropped = list(by_another)
            check_positions([m.file for m in models], [m.name for m in models], [truth_of(m) for m in models],
                            models[0].rows)
            truth = labels(models[0])
            check_enough(models[0].file, "rows", "row", truth.shape[0], one_label(truth), [m.name for m in models])
    if len(models) > 1:
        check_positions([m.file for m in models], [m.name for m in models], [truth_of(m) for m in models], models[0].rows)
    return models, True, [], dropped


def read_frames(cfg: Config) -> tuple[dict[Path, Any], list[FileInfo]]:
    """Every file the models name, read once with only the columns they use (class scores too);
    columns checked first (errors name the config key), labels and ids as text, scores as numbers.
    Each file's columns as pyarrow read them (a Table; a DataFrame when the lenient pandas reader
    took the file: :func:`reportgen.io.files.read_table`)."""
    headers: dict[Path, list[str]] = {}
    wanted: dict[Path, set[str]] = {}
    text: dict[Path, set[str]] = {}
    numbers: dict[Path, set[str]] = {}
    for i, m in enumerate(cfg.models):
        path = Path(m.file)
        if path not in headers:
            headers[path] = columns_in(path)
        V.check_columns(cfg, i, m, path, headers[path])
        cols = V.columns_for(cfg, m)
        wanted.setdefault(path, set()).update(cols.values(), V.number_columns(cfg, m))
        text.setdefault(path, set()).update(V.text_columns(cols))
        numbers.setdefault(path, set()).update(V.number_columns(cfg, m))
    frames: dict[Path, pd.DataFrame] = {}
    files: list[FileInfo] = []
    with hashing():  # the audit trail's SHA-256 is of the bytes parsed here
        for path, cols in wanted.items():
            frames[path] = read_table(path, sorted(cols), numbers[path], text[path], arrow=True)
            files.append(file_info(path, len(frames[path])))
    return frames, files


def date_range(cfg: Config, frames: dict[Path, Any]) -> tuple[str, str] | None:
    """First and last date of the configured date column over every input (ISO dates; a frame
    is a DataFrame or a pyarrow Table)."""
    if not cfg.date:
        return None
    lo = hi = None
    for path, df in frames.items():
        col = df[cfg.date] if isinstance(df, pd.DataFrame) else df.column(cfg.date).to_pandas()
        d = V.dates_of(col, path, cfg.date)
        if d.notna().any():
            lo = d.min() if lo is None else min(lo, d.min())
            hi = d.max() if hi is None else max(hi, d.max())
    return None if lo is None else (lo.date().isoformat(), hi.date().isoformat())
