"""Prediction files → validated, aligned class indices per model (``task: multiclass``).

A model gives one predicted-label column (``prediction``), one score column per class
(``scores``: a list in class order, or a mapping class → column), or both. Labels are compared
as text after normalisation (``1``, ``1.0`` and ``" 1"`` are the same class), so integer and
string labels both work and the config's ``classes`` may be written either way.

The class list is the config's ``classes`` (that order) when given: a truth or predicted label
outside it is an error naming the row. Without it, the classes are the sorted union of every
label in the truth, the predictions and the score mappings (numerically when all are numbers),
and classes that occur only in the predictions or are never predicted are reported as
warnings: nothing is dropped silently.
"""

from __future__ import annotations

from pathlib import Path
from typing import Any

import numpy as np
import pandas as pd

from reportgen.config import Config, ModelConfig
from reportgen.errors import InputError
from reportgen.sources import (
    Dataset,
    FileInfo,
    ModelData,
    _align,
    _check_columns,
    _columns_for,
    _columns_in,
    _numeric,
    _read_table,
    _show,
    date_range,
    rows_to_keep,
    file_info,
)


def label_key(value: Any) -> str:
    """The text a label is compared by: integral numbers without ``.0``, text stripped."""
    if isinstance(value, (bool, np.bool_)):
        return str(bool(value))
    if isinstance(value, (int, np.integer)):
        return str(int(value))
    if isinstance(value, (float, np.floating)):
        v = float(value)
        return str(int(v)) if v.is_integer() else repr(v)
    return str(value).strip()


def _keys(series: pd.Series) -> np.ndarray:
    """A label column as normalised text (object array); missing values stay None."""
    out = np.empty(len(series), dtype=object)
    present = series.notna().to_numpy()
    values = series[present]
    if pd.api.types.is_bool_dtype(values):
        out[present] = values.astype(bool).astype(str).to_numpy()
    elif pd.api.types.is_numeric_dtype(values):
        f = values.to_numpy(dtype=np.float64)
        integral = np.isfinite(f) & (f == np.round(f))
        txt = np.where(integral, np.char.mod("%d", np.where(integral, f, 0).astype(np.int64)), f.astype(str))
        out[present] = txt
    else:
        out[present] = [label_key(v) for v in values.to_numpy()]
    return out


def _sorted_classes(keys: set[str]) -> list[str]:
    """Numeric order when every label is a number, text order otherwise."""
    try:
        return sorted(keys, key=float)
    except ValueError:
        return sorted(keys)


def _score_columns(m: ModelConfig) -> dict[str, str] | list[str] | None:
    """The model's score columns: class key → column (mapping) or the list in class order."""
    if m.scores is None:
        return None
    if isinstance(m.scores, dict):
        return {label_key(k): v for k, v in m.scores.items()}
    return list(m.scores)


def check_class_count(cfg: Config, classes: list[str], path: Path, label_column: str) -> None:
    """At least two classes, and a cost matrix of their size (errors as the in-memory path gives)."""
    k = len(classes)
    if k < 2:
        raise InputError(
            f"{path}: column '{label_column}' has a single class ({classes[0]!r}); "
            f"multiclass metrics need at least two classes (list them under 'classes')"
        )
    if cfg.task == "multiclass" and isinstance(cfg.costs, list) and len(cfg.costs) != k:
        raise InputError(
            f"{cfg.where('costs')}: a {len(cfg.costs)}x{len(cfg.costs)} cost matrix for {k} classes "
            f"({', '.join(classes)}); give one row and one column per class"
        )


def score_order(cfg: Config, i: int, sc: dict[str, str] | list[str], classes: list[str]) -> list[int]:
    """Positions of the model's score columns (as configured) in class order; errors name the config key."""
    k = len(classes)
    if isinstance(sc, dict):
        index = set(classes)
        missing = [c for c in classes if c not in sc]
        extra = [c for c in sc if c not in index]
        if missing or extra:
            what = (f"no score column for class(es) {', '.join(missing)}" if missing
                    else f"class(es) {', '.join(extra)} are not among the classes ({', '.join(classes)})")
            raise InputError(f"{cfg.where('models', i, 'scores')}: {what}; map every class to one column")
        return [list(sc).index(c) for c in classes]
    if len(sc) != k:
        raise InputError(
            f"{cfg.where('models', i, 'scores')}: {len(sc)} score columns for {k} classes "
            f"({', '.join(classes)}); give one column per class in this order, or a mapping class: column"
        )
    return list(range(k))


def class_warnings(classes: list[str], seen_truth: set[str], seen_pred: dict[str, set[str]]) -> list[str]:
    """Classes that never occur in the truth, and classes a model never predicts."""
    warnings = []
    for c in [c for c in classes if c not in seen_truth]:
        by = [n for n, v in seen_pred.items() if c in v]
        also = f"; predicted by {', '.join(repr(n) for n in by)}" if by else ""
        warnings.append(f"class {c!r} never occurs in the truth{also} (its recall and support are 0 / undefined)")
    for name, v in seen_pred.items():
        never = [c for c in classes if c in seen_truth and c not in v]
        if never:
            warnings.append(f"model '{name}' never predicts class(es) {', '.join(repr(c) for c in never)}")
    return warnings


def load_multiclass(cfg: Config) -> Dataset:
    """Read, validate and align every model's multiclass predictions."""
    headers: dict[Path, list[str]] = {}
    wanted: dict[Path, set[str]] = {}
    for i, m in enumerate(cfg.models):
        path = Path(m.file)
        if path not in headers:
            headers[path] = _columns_in(path)
        _check_columns(cfg, i, m, path, headers[path])
        cols = set(_columns_for(cfg, m).values())
        sc = _score_columns(m)
        for column in (sc.values() if isinstance(sc, dict) else sc or []):
            if column not in headers[path]:
                raise InputError(
                    f"{cfg.where('models', i, 'scores')}: column {column!r} not found in {path} "
                    f"(columns: {', '.join(headers[path])})"
                )
            cols.add(column)
        wanted.setdefault(path, set()).update(cols)
    frames: dict[Path, pd.DataFrame] = {}
    files: list[FileInfo] = []
    for path, cols in wanted.items():
        frames[path] = _read_table(path, sorted(cols))
        files.append(file_info(path, len(frames[path])))

    # --- pass 1: labels as text, rows to keep ---
    dropped: list[tuple[str, str, int]] = []
    parsed = []
    for i, m in enumerate(cfg.models):
        path = Path(m.file)
        df = frames[path]
        cols = _columns_for(cfg, m)
        truth = _keys(df[cols["label"]])
        pred = _keys(df[cols["prediction"]]) if "prediction" in cols else None
        sc = _score_columns(m)
        score_cols = list(sc.values()) if isinstance(sc, dict) else (sc or [])
        scores = np.column_stack([_numeric(df[c], path, c) for c in score_cols]) if score_cols else None
        weights = _numeric(df[cols["weight"]], path, cols["weight"]) if "weight" in cols else None
        checks: list[tuple[str, np.ndarray]] = [(f"missing label in '{cols['label']}'", truth == None)]  # noqa: E711
        if pred is not None:
            checks.append((f"missing prediction in '{cols['prediction']}'", pred == None))  # noqa: E711
        if scores is not None:
            bad = ~np.isfinite(scores)
            checks.append((f"missing or non-finite class score in {', '.join(repr(c) for c in score_cols)}", bad.any(axis=1)))
        keep = rows_to_keep(cfg, m.name, path, df, cols, checks, weights, dropped)
        if scores is not None and m.probabilities is True and ((scores[keep] < 0) | (scores[keep] > 1)).any():
            r, c = (int(v[0]) for v in np.nonzero(((scores < 0) | (scores > 1)) & keep[:, None]))
            raise InputError(
                f"{path}: column '{score_cols[c]}', row {r + 2}: {scores[r, c]:g} is not a probability; "
                f"remove 'probabilities: true' for model '{m.name}' or rescale the scores"
            )
        parsed.append((i, m, path, df, cols, truth, pred, sc, scores, weights, keep))

    # --- the class list ---
    configured = [label_key(c) for c in cfg.classes] if cfg.classes is not None else None
    if configured is not None and len(set(configured)) != len(configured):
        dup = next(c for c in configured if configured.count(c) > 1)
        raise InputError(f"{cfg.where('classes')}: class {dup!r} is listed twice; list every class once")
    seen_truth: set[str] = set()
    seen_pred: dict[str, set[str]] = {}
    for i, m, path, df, cols, truth, pred, sc, scores, weights, keep in parsed:
        seen_truth.update(truth[keep])
        if pred is not None:
            seen_pred[m.name] = set(pred[keep])
    if configured is not None:
        classes = configured
        allowed = set(classes)
        for i, m, path, df, cols, truth, pred, sc, scores, weights, keep in parsed:
            for role, values in (("label", truth), ("prediction", pred)):
                if values is None:
                    continue
                bad = keep & ~np.isin(values, list(allowed))
                if bad.any():
                    r = int(np.flatnonzero(bad)[0])
                    raise InputError(
                        f"{path}: column '{cols[role]}', row {r + 2}: label {values[r]!r} is not one of the configured "
                        f"classes ({', '.join(classes)}); add it to 'classes' or fix the data"
                    )
    else:
        everything = set(seen_truth)
        for v in seen_pred.values():
            everything |= v
        for *_, sc, _s, _w, _k in parsed:
            if isinstance(sc, dict):
                everything |= set(sc)
        classes = _sorted_classes(everything)
    check_class_count(cfg, classes, parsed[0][2], parsed[0][4]['label'])

    # --- pass 2: indices and probability matrices ---
    warnings: list[str] = []
    models: list[ModelData] = []
    for i, m, path, df, cols, truth, pred, sc, scores, weights, keep in parsed:
        proba = None
        if scores is not None:
            proba = scores[keep][:, score_order(cfg, i, sc, classes)]
        y_idx = pd.Index(classes).get_indexer(truth[keep]).astype(np.int64)
        pred_idx = None if pred is None else pd.Index(classes).get_indexer(pred[keep]).astype(np.int64)
        ids = df[cols["id"]].to_numpy()[keep] if "id" in cols else None
        if ids is not None:
            dup = pd.Series(ids).duplicated()
            if dup.any():
                r = int(np.flatnonzero(keep)[int(np.flatnonzero(dup.to_numpy())[0])])
                raise InputError(f"{path}: column '{cols['id']}', row {r + 2}: duplicated id {_show(df[cols['id']].iloc[r])}; ids must be unique")
        models.append(ModelData(
            name=m.name, file=str(path), direction="higher", scores=None, y=None,
            weights=None if weights is None else weights[keep], ids=ids, probabilities=m.probabilities,
            y_idx=y_idx, pred_idx=pred_idx, proba=proba,
        ))
    warnings.extend(class_warnings(classes, seen_truth, seen_pred))
    models, paired, align_warnings = _align(cfg, models)
    warnings.extend(align_warnings)
    return Dataset(tuple(models), tuple(files), paired, tuple(dropped), tuple(warnings), classes=tuple(classes),
                   dates=date_range(cfg, frames))
