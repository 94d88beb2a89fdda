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

import logging
from pathlib import Path

import numpy as np
import pandas as pd

from reportgen.config import Config
from reportgen.errors import InputError
from reportgen.io import validate as V
from reportgen.io.dataset import Dataset, ModelData, align_models, date_range, read_frames
from reportgen.io.validate import columns_for, configured_classes, id_key_list, keys, lost_ids, numeric, score_columns, sorted_classes

log = logging.getLogger(__name__)


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
    """Classes that never occur in the truth, and classes a model never predicts (logged, and returned)."""
    warnings = []
    for c in [c for c in classes if c not in seen_truth]:
        by = [n for n, v in seen_pred.items() if c in v]
        also = f"; predicted by {', '.join(repr(n) for n in by)}" if by else ""
        warnings.append(f"class {str(c)!r} never occurs in the truth{also} (its recall and support are 0 / undefined)")
    for name, v in seen_pred.items():
        never = [c for c in classes if c in seen_truth and c not in v]
        if never:
            warnings.append(f"model '{name}' never predicts class(es) {', '.join(repr(str(c)) for c in never)}")
    for w in warnings:
        log.warning(w)
    return warnings


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

