"""The in-memory engine's rows (``engine: memory``): every file read once, validated, aligned.

:func:`load_dataset` reads only the columns the config names (CSV or Parquet), checks every
value a metric will touch by the rules of :mod:`reportgen.io.validate` (the streamed engines
apply the same rules batch by batch) and returns a :class:`Dataset`; :func:`align_models` puts
every model's rows in one order with the id join of :mod:`reportgen.io.align`, the one the
streamed engines use too. Every problem raises :class:`InputError` with the file, the column,
the first offending row (1-based, header = row 1) and what to do.

Multiclass labels are compared as text after normalisation (``1``, ``1.0`` and ``" 1"`` are
the same class). The class list is the config's ``classes`` (that order) when given, else the
sorted union of every label in the truth, the predictions and the score mappings; classes that
occur only in the predictions or are never predicted are warnings, nothing is dropped silently.
"""

from __future__ import annotations

import dataclasses
from dataclasses import dataclass, field
from typing import Any

from pathlib import Path

import numpy as np
import pandas as pd

from reportgen.config import Config, ModelConfig
from reportgen.io import validate as V
from reportgen.io.validate import (
    check_class_count,
    class_warnings,
    columns_for,
    configured_classes,
    id_key_list,
    keys,
    label_key,
    lost_ids,
    numeric,
    score_columns,
    score_order,
    sorted_classes,
)
from reportgen.io.align import Keyed, check_enough, one_label, check_positions, intersect_positions, join_ids
from reportgen.io.files import FileInfo, columns_in, file_info, hashing, read_table


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
    warnings: tuple[str, ...] = ()
    classes: tuple[Any, ...] = ()
    label_values: tuple[str, ...] = field(default_factory=tuple)
    dates: tuple[str, str] | None = None  # first and last date of the configured date column


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
    if len(models) > 1 and len(set(n_rows)) == 1:
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


def read_frames(cfg: Config) -> tuple[dict[Path, pd.DataFrame], list[FileInfo]]:
    """Every file the models name, read once with only the columns they use (class scores too);
    columns checked first (errors name the config key), labels and ids as text, scores as numbers."""
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
            frames[path] = read_table(path, sorted(cols), numbers[path], text[path])
            files.append(file_info(path, len(frames[path])))
    return frames, files


def date_range(cfg: Config, frames: dict[Path, pd.DataFrame]) -> tuple[str, str] | None:
    """First and last date of the configured date column over every input (ISO dates)."""
    if not cfg.date:
        return None
    lo = hi = None
    for path, df in frames.items():
        d = V.dates_of(df[cfg.date], path, cfg.date)
        if d.notna().any():
            lo = d.min() if lo is None else min(lo, d.min())
            hi = d.max() if hi is None else max(hi, d.max())
    return None if lo is None else (lo.date().isoformat(), hi.date().isoformat())


# --------------------------------------------------------------------------------------
# The in-memory loaders (engine: memory): every row read, validated and aligned
# --------------------------------------------------------------------------------------


def load_dataset(cfg: Config) -> Dataset:
    """Read, validate and align every model's predictions (either task)."""
    if cfg.task == "multiclass":
        return load_multiclass(cfg)
    frames, files = read_frames(cfg)
    return dataset_of_frames(cfg, frames, files)


def dataset_of_frames(cfg: Config, frames: dict[Path, pd.DataFrame], files: list[FileInfo]) -> Dataset:
    """Validate and align binary models whose columns are already read: ``frames[Path(m.file)]``
    holds each model's columns (from a file, or a DataFrame handed to :mod:`reportgen.api`)."""
    dropped: list[tuple[str, str, int]] = []
    warnings: list[str] = []
    models: list[ModelData] = []
    n_rows: list[int] = []
    lost: list[np.ndarray | None] = []
    positive = label_key(cfg.positive)
    for i_model, m in enumerate(cfg.models):
        path = Path(m.file)
        df = frames[path]
        cols = columns_for(cfg, m)
        scores = numeric(df[cols["score"]], path, cols["score"])
        labels = keys(df[cols["label"]])
        weights = numeric(df[cols["weight"]], path, cols["weight"]) if "weight" in cols else None
        ids = id_key_list(df[cols["id"]]) if "id" in cols else None
        checks: list[tuple[str, np.ndarray]] = [
            (V.missing_score(cols["score"]), ~np.isfinite(scores)),
            (V.missing_label(cols["label"], "binary"), labels == None),  # noqa: E711
        ]
        if weights is not None:
            checks.append((V.missing_weight(cols["weight"]), ~np.isfinite(weights)))
        if ids is not None:
            checks.append((V.missing_id(cols["id"]), ids == None))  # noqa: E711
        keep = V.kept(cfg, path, m.name, checks, len(df), weights, cols.get("weight"), dropped)
        n_rows.append(len(df))
        lost.append(None if ids is None else lost_ids(ids, keep))
        kept = labels[keep]
        found = set(pd.unique(kept).tolist())
        V.check_two_labels(path, cols["label"], found)
        is_pos = kept == positive
        w_kept = np.ones(len(kept)) if weights is None else weights[keep]
        V.check_both_classes(cfg, path, cols["label"], found, float(w_kept[is_pos].sum()), float(w_kept[~is_pos].sum()),
                             cols.get("weight"))
        V.check_score_range(path, cols["score"], scores, keep, 0)
        if m.probabilities is True:
            V.check_probabilities(path, m.name, [cols["score"]], scores, keep, 0)
        s = scores[keep]
        warning = _threshold_outside(cfg, i_model, m, s)
        if warning:
            warnings.append(warning)
        models.append(
            ModelData(
                name=m.name,
                file=str(path),
                direction=m.direction,
                scores=s,
                y=np.asarray(is_pos, dtype=bool),
                weights=None if weights is None else weights[keep],
                ids=None if ids is None else ids[keep],
                probabilities=m.probabilities,
                rows=np.flatnonzero(keep),
                id_column=cols.get("id"),
            )
        )
    models, paired, align_warnings, left_out = align_models(cfg, models, n_rows, lost)
    warnings.extend(align_warnings)
    dropped.extend(left_out)
    return Dataset(tuple(models), tuple(files), paired, tuple(dropped), tuple(warnings), dates=date_range(cfg, frames))


def _threshold_outside(cfg: Config, i: int, m: ModelConfig, scores: np.ndarray) -> str | None:
    """A warning when the decision threshold lies outside the model's scores (one class predicted)."""
    t = m.threshold if m.threshold is not None else cfg.threshold
    lo, hi = float(scores.min()), float(scores.max())
    if lo <= t <= hi:
        return None
    above = t > hi
    everyone = ("negative" if above else "positive") if m.direction == "higher" else ("positive" if above else "negative")
    key = f"models[{i}].threshold" if m.threshold is not None else "threshold"
    return (
        f"threshold {t:g} lies outside the scores of model '{m.name}' ({lo:g} to {hi:g}), so every row is "
        f"predicted {everyone}; check '{key}' (or the model's 'direction')"
    )


def load_multiclass(cfg: Config) -> Dataset:
    """Read, validate and align every model's multiclass predictions."""
    frames, files = read_frames(cfg)
    configured = configured_classes(cfg)

    # --- pass 1: labels as keys, rows to keep ---
    dropped: list[tuple[str, str, int]] = []
    parsed = []
    for i, m in enumerate(cfg.models):
        path = Path(m.file)
        df = frames[path]
        cols = columns_for(cfg, m)
        truth = keys(df[cols["label"]])
        pred = keys(df[cols["prediction"]]) if "prediction" in cols else None
        sc = score_columns(m)
        score_cols = list(sc.values()) if isinstance(sc, dict) else (sc or [])
        scores = np.column_stack([numeric(df[c], path, c) for c in score_cols]) if score_cols else None
        weights = numeric(df[cols["weight"]], path, cols["weight"]) if "weight" in cols else None
        ids = id_key_list(df[cols["id"]]) if "id" in cols else None
        checks = V.multiclass_checks(cols, truth, pred, score_cols, scores, weights, ids)
        keep = V.kept(cfg, path, m.name, checks, len(df), weights, cols.get("weight"), dropped)
        if weights is not None:
            V.check_some_weight(path, cols["weight"], float(weights[keep].sum()))
        if scores is not None and m.probabilities is True:
            V.check_probabilities(path, m.name, score_cols, scores, keep, 0)
        if configured is not None:
            for role, values in (("label", truth), ("prediction", pred)):
                if values is not None:
                    V.check_classes(path, cols[role], values, keep, configured, 0)
        parsed.append((i, m, path, cols, truth, pred, sc, scores, weights, ids, keep))

    # --- the class list ---
    seen_truth: set[str] = set()
    seen_pred: dict[str, set[str]] = {}
    for i, m, path, cols, truth, pred, sc, scores, weights, ids, keep in parsed:
        seen_truth.update(truth[keep])
        if pred is not None:
            seen_pred[m.name] = set(pred[keep])
    if configured is not None:
        classes = configured
    else:
        everything = set(seen_truth)
        for v in seen_pred.values():
            everything |= v
        for *_, sc, _s, _w, _ids, _k in parsed:
            if isinstance(sc, dict):
                everything |= set(sc)
        classes = sorted_classes(everything)
    check_class_count(cfg, classes, parsed[0][2], parsed[0][3]["label"])

    # --- pass 2: indices and probability matrices ---
    warnings: list[str] = []
    models: list[ModelData] = []
    n_rows = [len(frames[path]) for _i, _m, path, *_rest in parsed]
    lost = [None if ids is None else lost_ids(ids, keep) for *_, ids, keep in parsed]
    for i, m, path, cols, truth, pred, sc, scores, weights, ids, keep in parsed:
        proba = None
        if scores is not None:
            proba = scores[keep][:, score_order(cfg, i, sc, classes)]
        y_idx = pd.Index(classes).get_indexer(truth[keep]).astype(np.int64)
        pred_idx = None if pred is None else pd.Index(classes).get_indexer(pred[keep]).astype(np.int64)
        models.append(ModelData(
            name=m.name, file=str(path), direction="higher", scores=None, y=None,
            weights=None if weights is None else weights[keep], ids=None if ids is None else ids[keep],
            probabilities=m.probabilities, y_idx=y_idx, pred_idx=pred_idx, proba=proba,
            rows=np.flatnonzero(keep), id_column=cols.get("id"),
        ))
    warnings.extend(class_warnings(classes, seen_truth, seen_pred))
    models, paired, align_warnings, left_out = align_models(cfg, models, n_rows, lost, classes)
    warnings.extend(align_warnings)
    dropped.extend(left_out)
    return Dataset(tuple(models), tuple(files), paired, tuple(dropped), tuple(warnings), classes=tuple(classes),
                   dates=date_range(cfg, frames))
