"""Prediction files → validated, aligned arrays per model.

Reads CSV or Parquet (each file once, only the columns the config names), checks every value
a metric will touch, and aligns the models' rows: by the ``id`` column when one is given, by
position otherwise. Every problem raises :class:`InputError` with the file, the column, the
first offending row (1-based, as a spreadsheet shows it, header = row 1) and what to do.
"""

from __future__ import annotations

from pathlib import Path

import numpy as np
import pandas as pd

from reportgen.config import Config, ModelConfig
from reportgen.io import validate as V
from reportgen.io.dataset import Dataset, ModelData, align_models, date_range, read_frames
from reportgen.io.files import FileInfo
from reportgen.io.validate import columns_for, id_key_list, label_key, lost_ids, numeric
from reportgen.sources_multiclass import load_multiclass

__all__ = ["Dataset", "FileInfo", "ModelData", "dataset_of_frames", "date_range", "load_dataset", "read_frames"]


def load_dataset(cfg: Config) -> Dataset:
    """Read, validate and align every model's predictions (multiclass: see sources_multiclass)."""
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
    label_codes: dict[tuple[Path, str], tuple[np.ndarray, np.ndarray]] = {}
    for i_model, m in enumerate(cfg.models):
        path = Path(m.file)
        df = frames[path]
        cols = columns_for(cfg, m)
        scores = numeric(df[cols["score"]], path, cols["score"])
        label = (path, cols["label"])  # models of one file share its label column: keyed once
        if label not in label_codes:
            label_codes[label] = V.key_codes(df[cols["label"]])
        codes, names = label_codes[label]  # the label keys are names[codes]
        weights = numeric(df[cols["weight"]], path, cols["weight"]) if "weight" in cols else None
        ids = id_key_list(df[cols["id"]]) if "id" in cols else None
        checks: list[tuple[str, np.ndarray]] = [
            (V.missing_score(cols["score"]), ~np.isfinite(scores)),
            (V.missing_label(cols["label"], "binary"), (names == None)[codes]),  # noqa: E711
        ]
        if weights is not None:
            checks.append((V.missing_weight(cols["weight"]), ~np.isfinite(weights)))
        if ids is not None:
            checks.append((V.missing_id(cols["id"]), ids == None))  # noqa: E711
        keep = V.kept(cfg, path, m.name, checks, len(df), weights, cols.get("weight"), dropped)
        n_rows.append(len(df))
        lost.append(None if ids is None else lost_ids(ids, keep))
        kept = codes[keep]
        found = set(names[np.bincount(kept, minlength=len(names)) > 0].tolist())
        V.check_two_labels(path, cols["label"], found)
        is_pos = (names == positive)[kept]
        if weights is None:  # counts, without a column of ones
            positives = float(np.count_nonzero(is_pos))
            negatives = float(is_pos.shape[0]) - positives
        else:
            w_kept = weights[keep]
            positives, negatives = float(w_kept[is_pos].sum()), float(w_kept[~is_pos].sum())
        V.check_both_classes(cfg, path, cols["label"], found, positives, negatives, cols.get("weight"))
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
