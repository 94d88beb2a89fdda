"""Multiclass prediction files read in record batches → per-model counts (``engine: stream``).

The multiclass counterpart of :mod:`reportgen.sources_stream`. Each file is read column-projected
in record batches (:func:`reportgen.sources_stream.read_batches`); every batch is validated by
the rules of :mod:`reportgen.sources_multiclass` (missing labels, predictions or scores, labels
outside the configured classes, scores that are not probabilities, negative weights: the same
one-line errors, naming the file, column and *global* row) and folded into each model's:

* k×k confusion matrix: one ``bincount`` per batch over ``true·k + predicted`` (weights
  supported);
* class tables (:mod:`reportgen.engine.class_tables`): per score column and true class, the
  distinct scores with their counts, merged every few batches; the AUCs, the log-loss and the
  per-class ROC / PR curves all come from them;
* the score range and the largest deviation of a row sum from 1 (log-loss validity).

Memory grows with the number of distinct scores, not rows. A score column with more than
``stream.max_distinct_scores`` entries is an error asking to round the scores or raise the cap
(multiclass tables are not binned yet).

Without configured ``classes`` the class list is only known at the end (the sorted union of the
labels seen, as in memory), so batches index classes in order of first appearance and the
counts are permuted once at the end. Predictions from scores are the argmax over the score
columns in class order (ties to the first class), as in memory.

A second pass, only with several models whose rows line up (one file, or files of equal length
without an id to join on) and nothing dropped, counts McNemar's 2×2 table of (baseline
correct, model correct) per comparison.

``engine: dask`` (:mod:`reportgen.dask_multiclass`) runs the same steps per Parquet part:
:func:`plan` (columns, class ids to start from), :func:`fold_file` (one file or part),
:func:`combine` (counts of disjoint rows, each part's class ids remapped to common ones),
:func:`conclude` (class list, permutation), :func:`mcnemar_records` and :func:`mcnemar_range`.
"""

from __future__ import annotations

from collections.abc import Callable
from dataclasses import dataclass, field
from pathlib import Path

import numpy as np
import pandas as pd

from reportgen.config import Config, ModelConfig
from reportgen.engine import class_tables as CT
from reportgen.engine.compare_multiclass import MulticlassCounts
from reportgen.reduce.accumulators import MERGE_EVERY
from reportgen.errors import InputError
from reportgen.io import align as A
from reportgen.io import validate as V
from reportgen.io.align import (
    NOTE_LENGTHS,
    NOTE_NON_INTEGER,
    Join,
    Keyed,
    check_positions,
    check_unique,
    concat_ids,
    join_ids,
)
from reportgen.io.pairs import RowSpill
from reportgen.io.files import FileInfo, check_parts, columns_in, file_info, hashing, no_rows
from reportgen.io.validate import check_columns, columns_for, configured_classes, dates_of, keys, numeric, score_columns, sorted_classes
from reportgen.io.validate import check_class_count, class_warnings, score_order
from reportgen.sources_stream import read_batches

Progress = Callable[[int, int], None]


@dataclass(frozen=True, slots=True)
class StreamedMulticlass:
    models: tuple[MulticlassCounts, ...]
    files: tuple[FileInfo, ...]
    dropped: tuple[tuple[str, str, int], ...]
    warnings: tuple[str, ...]
    classes: tuple[str, ...]
    mcnemar: dict[str, np.ndarray] | None  # model name → 2×2 [baseline correct?][model correct?] counts
    paired_note: str | None
    dates: tuple[str, str] | None = None

    @property
    def paired(self) -> bool:
        return self.mcnemar is not None


class ClassIds:
    """Class keys → indices: the configured order, or order of first appearance (remapped later)."""

    def __init__(self, configured: list[str] | None) -> None:
        self.fixed = configured is not None
        self.index: dict[str, int] = {c: j for j, c in enumerate(configured or [])}

    def copy(self) -> ClassIds:
        out = ClassIds(None)
        out.fixed, out.index = self.fixed, dict(self.index)
        return out

    def of(self, keys: np.ndarray) -> np.ndarray:
        uniq, inv = np.unique(keys.astype(str), return_inverse=True)
        for u in uniq:
            if u not in self.index:
                self.index[u] = len(self.index)
        return np.array([self.index[u] for u in uniq], dtype=np.int64)[inv.ravel()]


@dataclass(slots=True)
class ModelCounts:
    """What the pass over the data keeps per model."""

    i: int
    cfg: ModelConfig
    path: Path
    cols: dict[str, str]
    sc: dict[str, str] | list[str] | None
    score_cols: list[str]  # in class order when known (mapping, or a list: position = class)
    conf: np.ndarray = field(default_factory=lambda: np.zeros((0, 0)))
    pending: list = field(default_factory=list)  # per batch: (values, counts) q × k nested tuples
    merged: dict = field(default_factory=dict)  # (column, class id) → (values, counts)
    rows: int = 0
    weighted: bool = False
    p_min: float = np.inf
    p_max: float = -np.inf
    max_dev: float = 0.0
    seen_truth: set = field(default_factory=set)
    seen_pred: set = field(default_factory=set)
    dropped: dict = field(default_factory=dict)
    ids: list | None = None  # with an id column: the kept rows' id keys, positions and truth keys
    id_rows: list | None = None
    truth: list | None = None
    lost: list | None = None  # missing: drop — ids (with an id column) and positions of the rows dropped
    gone: list | None = None
    index: np.ndarray | None = None  # second reading: common index per row; only rows >= 0 are kept


def fresh(st: ModelCounts, path: Path, index: np.ndarray | None = None, collect: bool = True) -> ModelCounts:
    """An empty copy of a model's state that reads ``path`` (a Dask part, named in errors);
    ``index``: keep only the rows every model keeps (:func:`reportgen.io.align.common_index`)."""
    out = ModelCounts(st.i, st.cfg, path, st.cols, st.sc, st.score_cols, index=index)
    if "id" in st.cols and collect:
        out.ids, out.id_rows, out.truth = [], [], []
    if collect and st.cfg is not None and st.lost is not None:
        out.lost, out.gone = [], []
    return out


def keyed(st: ModelCounts) -> Keyed:
    """The rows a model kept, as the id join sees them."""
    def cat(parts: list, dtype: object) -> np.ndarray:
        return np.concatenate(parts) if parts else np.empty(0, dtype=dtype)

    return Keyed(st.cfg.name, str(st.path), st.cols["id"], concat_ids(st.ids), cat(st.id_rows, np.int64), cat(st.truth, object),
                 None if st.lost is None else concat_ids(st.lost))


def join_models(cfg: Config, states: list[ModelCounts]) -> Join | None:
    """The id join of the models' kept rows (config order; None without an id column)."""
    if any(st.ids is None for st in states):
        return None
    for st in states:
        if st.rows == 0:
            raise V.no_rows_left(st.path, st.cfg.name)
    return join_ids(cfg, [keyed(st) for st in sorted(states, key=lambda s: s.i)])


def _mapping_order(cfg: Config, i: int, sc: dict[str, str], configured: list[str] | None) -> list[str]:
    """Score columns of a mapping in class order (the classes are the mapping's keys unless configured)."""
    classes = configured if configured is not None else sorted_classes(set(sc))
    return [list(sc.values())[j] for j in score_order(cfg, i, sc, classes)]


def _grow(conf: np.ndarray, k: int) -> np.ndarray:
    if conf.shape[0] >= k:
        return conf
    out = np.zeros((k, k))
    out[: conf.shape[0], : conf.shape[1]] = conf
    return out


def _fold(cfg: Config, st: ModelCounts, ids: ClassIds, df: pd.DataFrame, offset: int, cap: int) -> None:
    """Validate one batch for one model and add it to the model's counts."""
    keep, truth, pred, scores, weights = kept_rows(cfg, st, ids, df, offset)
    if not keep.any():
        return
    _count(st, ids, keep, truth, pred, scores, weights, cap)


def kept_rows(cfg: Config, st: ModelCounts, ids: ClassIds, df: pd.DataFrame, offset: int):
    """(keep, truth, pred, scores, weights) of one batch for one model: every row validated
    (errors name the global row), ``keep`` the rows compared; ids and drops collected."""
    path, cols, n = st.path, st.cols, len(df)
    truth = keys(df[cols["label"]])
    pred = keys(df[cols["prediction"]]) if "prediction" in cols else None
    scores = np.column_stack([numeric(df[c], path, c, offset) for c in st.score_cols]) if st.score_cols else None
    weights = numeric(df[cols["weight"]], path, cols["weight"], offset) if "weight" in cols else None
    id_keys = V.id_key_list(df[cols["id"]]) if "id" in cols else None
    checks = V.multiclass_checks(cols, truth, pred, st.score_cols, scores, weights, id_keys)
    keep = V.keep_rows(cfg, path, checks, offset, st.dropped)
    if weights is not None:
        V.check_weights(path, cols["weight"], weights, keep, offset)
    keep = np.ones(n, dtype=bool) if keep is None else keep
    if scores is not None and st.cfg.probabilities is True:
        V.check_probabilities(path, st.cfg.name, st.score_cols, scores, keep, offset)
    if ids.fixed:
        for role, values in (("label", truth), ("prediction", pred)):
            if values is not None:
                V.check_classes(path, cols[role], values, keep, list(ids.index), offset)
    if st.gone is not None and not keep.all():  # missing: drop — what the join must leave out elsewhere
        st.gone.append(np.flatnonzero(~keep) + offset)
        if id_keys is not None:
            st.lost.append(V.lost_ids(id_keys, keep))
    if st.index is not None:
        keep &= st.index[offset:offset + n] >= 0
    if st.ids is not None:
        st.ids.append(id_keys[keep])
        st.id_rows.append(np.flatnonzero(keep) + offset)
        st.truth.append(truth[keep])
    return keep, truth, pred, scores, weights


def _count(st: ModelCounts, ids: ClassIds, keep: np.ndarray, truth: np.ndarray, pred: np.ndarray | None,
           scores: np.ndarray | None, weights: np.ndarray | None, cap: int) -> None:
    """Add one batch's kept rows to the model's counts."""
    truth = truth[keep]
    st.seen_truth.update(np.unique(truth.astype(str)).tolist())
    y = ids.of(truth)
    w = None if weights is None else weights[keep]
    if pred is not None:
        pred = pred[keep]
        st.seen_pred.update(np.unique(pred.astype(str)).tolist())
        a = ids.of(pred)
    else:  # argmax of the score columns (class order): the prediction is a column position
        a = np.argmax(scores[keep], axis=1).astype(np.int64)  # type: ignore[index]
    k = max(len(ids.index), len(st.score_cols))
    st.conf = _grow(st.conf, k)
    st.conf += np.bincount(y * k + a, weights=w, minlength=k * k).reshape(k, k)
    st.rows += int(y.shape[0])
    st.weighted = st.weighted or w is not None
    if scores is not None:
        p = scores[keep]
        st.p_min = min(st.p_min, float(p.min()))
        st.p_max = max(st.p_max, float(p.max()))
        st.max_dev = max(st.max_dev, float(np.abs(p.sum(axis=1) - 1.0).max()))
        st.pending.append(CT.class_lists(y, p, w, int(y.max()) + 1))
        if len(st.pending) >= MERGE_EVERY:
            merge_pending(st, cap)


def merge_pending(st: ModelCounts, cap: int) -> None:
    """Fold the pending batch lists into the merged tables; the cap is checked per score column."""
    if not st.pending:
        return
    for j, column in enumerate(st.score_cols):
        classes = {i for values, _ in st.pending for i in range(len(values[j]))} | {i for (jj, i) in st.merged if jj == j}
        entries = 0
        for i in sorted(classes):
            parts = [st.merged[(j, i)]] if (j, i) in st.merged else []
            parts += [(values[j][i], counts[j][i]) for values, counts in st.pending if i < len(values[j])]
            st.merged[(j, i)] = CT.merge_lists(parts)
            entries += st.merged[(j, i)][0].shape[0]
        if entries > cap:
            raise InputError(
                f"{st.path}: column '{column}' (model '{st.cfg.name}') has more than {cap:,} distinct scores; "
                f"streamed multiclass tables are not binned: round the scores (e.g. to 6 decimals) or raise "
                f"'stream.max_distinct_scores'"
            )
    st.pending = []


def plan(cfg: Config, indexes: dict[str, np.ndarray] | None = None) -> tuple[list[str] | None, ClassIds, dict[Path, list[ModelCounts]]]:
    """Columns checked; the configured classes, the class ids to start from and each file's models.

    Without configured classes the ids start with the keys of score mappings (classes, as in
    memory), so every reader of the data (each Dask part too) starts from the same ids.
    """
    configured = configured_classes(cfg)
    ids = ClassIds(configured)
    by_file: dict[Path, list[ModelCounts]] = {}
    for i, m in enumerate(cfg.models):
        path = Path(m.file)
        check_columns(cfg, i, m, path, columns_in(path))
        sc = score_columns(m)
        if isinstance(sc, dict):
            score_cols = _mapping_order(cfg, i, sc, configured)
            if configured is None:  # mapping keys are classes, as in memory
                ids.of(np.array(sorted_classes(set(sc)), dtype=object))
        else:
            score_cols = list(sc or [])
        template = ModelCounts(i, m, path, columns_for(cfg, m), sc, score_cols)
        if cfg.missing == "drop" and len(cfg.models) > 1:
            template.lost = []
        by_file.setdefault(path, []).append(fresh(template, path, None if indexes is None else indexes[m.name], indexes is None))
    for path, states in by_file.items():
        check_parts(path, mcnemar_columns(states))
    return configured, ids, by_file


def fold_file(cfg: Config, states: list[ModelCounts], ids: ClassIds, path: Path, seen_dates: list) -> int:
    """Every batch of one file (or Dask part) validated and folded into its models' counts; rows read.

    ``seen_dates`` collects each batch's first and last date when a date column is set.
    """
    columns = sorted({c for st in states for c in [*st.cols.values(), *st.score_cols]} | ({cfg.date} if cfg.date else set()))
    offset = 0
    numbers, text = column_types(states)
    for df in read_batches(path, columns, cfg.stream.batch_rows, numbers, text):
        if cfg.date:
            d = dates_of(df[cfg.date], path, cfg.date, offset)
            if d.notna().any():
                seen_dates += [d.min(), d.max()]
        for st in states:
            _fold(cfg, st, ids, df, offset, cfg.stream.max_distinct_scores)
        offset += len(df)
    return offset


def column_types(states: list[ModelCounts]) -> tuple[list[str], list[str]]:
    """(numbers, text): the columns the models read as float64 and as text (CSV types)."""
    numbers = sorted({c for st in states for c in [*st.score_cols, *([st.cols["weight"]] if "weight" in st.cols else [])]})
    return numbers, sorted({c for st in states for c in V.text_columns(st.cols)})


def conclude(cfg: Config, states: list[ModelCounts], configured: list[str] | None, ids: ClassIds
             ) -> tuple[list[str], list[MulticlassCounts], list[str], list[tuple[str, str, int]]]:
    """(classes, counts per model in class order, warnings, dropped rows) once every row is folded."""
    for st in states:
        if st.rows == 0:
            raise V.no_rows_left(st.path, st.cfg.name)
        merge_pending(st, cfg.stream.max_distinct_scores)
        V.check_some_weight(st.path, st.cols.get("weight"), float(st.conf.sum()))
    seen_truth = set().union(*(st.seen_truth for st in states))
    seen_pred = {st.cfg.name: st.seen_pred for st in states if "prediction" in st.cols}
    classes = configured if configured is not None else sorted_classes(set(ids.index))
    check_class_count(cfg, classes, states[0].path, states[0].cols["label"])
    k = len(classes)
    to_final = np.array([classes.index(c) for c in ids.index], dtype=np.int64)  # id → class index
    models = []
    for st in states:
        if st.sc is not None:
            score_order(cfg, st.i, st.sc if isinstance(st.sc, dict) else st.score_cols, classes)  # errors as in memory
        models.append(_finish(st, k, to_final))
    warnings = class_warnings(classes, seen_truth, seen_pred)
    dropped = [(st.cfg.name, reason, rows) for st in states for reason, rows in st.dropped.items()]
    return classes, models, warnings, dropped


def combine(parts: list[ModelCounts], to_ids: list[np.ndarray], n_ids: int, cap: int) -> ModelCounts:
    """One model's counts over disjoint row sets, each indexing classes its own way, in common ids.

    ``to_ids[p]`` maps part p's class ids to the common ones (``n_ids`` of them). Rows of the
    confusion matrix (true class), its columns when they are predicted classes (not score
    column positions), and the class of every class-table cell are remapped; then counts are
    added (tables merged at equal scores, the cap checked per score column as in one pass).
    """
    out = fresh(parts[0], parts[0].path)
    q = len(out.score_cols)
    size = max(n_ids, q)
    out.conf = np.zeros((size, size))
    for st, to in zip(parts, to_ids):
        conf = _grow(st.conf, len(to))
        if "prediction" in st.cols:
            out.conf[np.ix_(to, to)] += conf[: len(to), : len(to)]
        else:  # columns are score-column positions
            out.conf[to, : conf.shape[1]] += conf[: len(to)]
        if out.score_cols:
            values = [[np.zeros(0)] * n_ids for _ in range(q)]
            counts = [[np.zeros(0)] * n_ids for _ in range(q)]
            for (j, i), (v, c) in st.merged.items():
                values[j][int(to[i])], counts[j][int(to[i])] = v, c
            out.pending.append((values, counts))
        out.rows += st.rows
        out.weighted = out.weighted or st.weighted
        out.p_min, out.p_max = min(out.p_min, st.p_min), max(out.p_max, st.p_max)
        out.max_dev = max(out.max_dev, st.max_dev)
        out.seen_truth |= st.seen_truth
        out.seen_pred |= st.seen_pred
        for reason, rows in st.dropped.items():
            out.dropped[reason] = out.dropped.get(reason, 0) + rows
        if out.ids is not None and st.ids is not None:  # the kept ids (keys: nothing to remap)
            out.ids += st.ids
            out.id_rows += st.id_rows
            out.truth += st.truth
        if out.lost is not None and st.lost is not None:
            out.lost += st.lost
            out.gone += st.gone
    merge_pending(out, cap)
    return out


def _read_all(cfg: Config, ids: ClassIds, by_file: dict[Path, list[ModelCounts]], progress: Progress | None
              ) -> tuple[list[FileInfo], list]:
    """The pass over every file: (the files' audit records, the dates seen)."""
    seen_dates: list = []
    files: list[FileInfo] = []
    for f, (path, states) in enumerate(by_file.items()):
        rows = fold_file(cfg, states, ids, path, seen_dates)
        if rows == 0:
            raise no_rows(path)
        files.append(file_info(path, rows))
        if progress is not None:
            progress(f + 1, len(by_file))
    return files, seen_dates


def load_streamed_multiclass(cfg: Config, progress: Progress | None = None) -> StreamedMulticlass:
    """One pass over the files (two for McNemar's tables): every model's counts, exact.

    With an id column the models' rows are joined as in memory; when some model keeps rows
    another does not (ids not shared, rows dropped), the files are read again keeping the rows
    every model keeps. The files are
    hashed as they are read (:class:`reportgen.io.files.Digests`)."""
    with hashing():
        return _load(cfg, progress)


def _load(cfg: Config, progress: Progress | None) -> StreamedMulticlass:
    configured, ids, by_file = plan(cfg)
    files, seen_dates = _read_all(cfg, ids, by_file, progress)
    states = sorted((st for sts in by_file.values() for st in sts), key=lambda st: st.i)
    join = join_models(cfg, states)
    reads = {f.path: f.rows for f in files}
    indexes, left_out = common_rows(cfg, states, {st.cfg.name: reads[str(st.path)] for st in states}, join)
    if left_out:
        configured, ids, by_file = plan(cfg, indexes)
        files, seen_dates = _read_all(cfg, ids, by_file, progress)
        states = sorted((st for sts in by_file.values() for st in sts), key=lambda st: st.i)
        if join is None:
            A.check_rows_left(str(states[0].path), states[0].rows, states[0].seen_truth, None, [st.cfg.name for st in states])
    classes, models, warnings, dropped = conclude(cfg, states, configured, ids)
    if join is not None and indexes is None and not join.in_order:
        indexes = {st.cfg.name: join.index(j, keyed(st).rows, reads[str(st.path)]) for j, st in enumerate(states)}
    mcnemar, note = _mcnemar_pass(cfg, states, by_file, classes, indexes, reads)
    dropped.extend(left_out)
    if join is not None:
        warnings[:0] = join.warnings
    dates = (min(seen_dates).date().isoformat(), max(seen_dates).date().isoformat()) if seen_dates else None
    return StreamedMulticlass(tuple(models), tuple(files), tuple(dropped), tuple(warnings), tuple(classes),
                              mcnemar, note, dates)


def common_rows(cfg: Config, states: list[ModelCounts], reads: dict[str, int], join: Join | None, always: bool = False
                ) -> tuple[dict[str, np.ndarray] | None, list[tuple[str, str, int]]]:
    """:func:`reportgen.io.align.common_rows` of multiclass states (config order); ``reads``:
    each model's file length."""
    return A.common_rows([st.cfg.name for st in states], [reads[st.cfg.name] for st in states], join,
                         [keyed(st).rows if st.ids is not None else None for st in states],
                         [np.concatenate(st.gone) if st.gone else None for st in states], always)


def _finish(st: ModelCounts, k: int, to_final: np.ndarray) -> MulticlassCounts:
    """The model's confusion matrix and class tables with classes in their final order."""
    conf = _grow(st.conf, max(k, len(to_final)))
    kk = conf.shape[0]
    rows = np.full(kk, -1, dtype=np.int64)
    rows[: len(to_final)] = to_final
    by_column = "prediction" not in st.cols
    cols = np.arange(kk) if by_column else rows
    C = np.zeros((k, k))
    used = np.flatnonzero(conf.sum(axis=1) > 0)
    for r in used:
        mask = conf[r] != 0
        C[rows[r], cols[mask]] += conf[r, mask]
    tables = None
    if st.score_cols:
        values = [[np.zeros(0)] * k for _ in range(k)]
        counts = [[np.zeros(0)] * k for _ in range(k)]
        for (j, i), (v, c) in st.merged.items():
            values[j][int(to_final[i])] = v
            counts[j][int(to_final[i])] = c
        tables = CT.ClassTables(k, tuple(map(tuple, values)), tuple(map(tuple, counts)), st.rows, st.weighted,
                                st.p_min, st.p_max, st.max_dev)
    return MulticlassCounts(st.cfg.name, str(st.path), C, st.rows, tables, st.weighted, not by_column)


#: A compared row as McNemar's pass keeps it: its true class, whether the model was right, its
#: weight and its position in the file (errors name it).
MCNEMAR_RECORD = np.dtype([("y", np.int64), ("right", np.bool_), ("w", np.float64), ("row", np.int64)])


def mcnemar_records(cfg: Config, st: ModelCounts, ids: ClassIds, df: pd.DataFrame, offset: int,
                    index: dict[str, int]) -> tuple[np.ndarray, np.ndarray]:
    """(positions, records) of one batch's compared rows of one model (:data:`MCNEMAR_RECORD`)."""
    probe = fresh(st, st.path, st.index, collect=False)
    keep, truth, pred, scores, weights = kept_rows(cfg, probe, ids, df, offset)
    pos = np.flatnonzero(keep)
    y = pd.Index(list(index)).get_indexer(truth[keep]).astype(np.int64)
    if pred is not None:
        guess = pd.Index(list(index)).get_indexer(pred[keep]).astype(np.int64)
    else:
        guess = np.argmax(scores[keep], axis=1).astype(np.int64)  # type: ignore[index]
    rec = np.empty(pos.shape[0], dtype=MCNEMAR_RECORD)
    rec["y"], rec["right"], rec["row"] = y, guess == y, pos + offset
    rec["w"] = 1.0 if weights is None else weights[keep]
    return pos + offset, rec


def mcnemar_range(names: list[str], files: list[str], baseline: str, recs: list[np.ndarray],
                  tables: dict[str, np.ndarray]) -> str | None:
    """Add the compared rows of one range (``recs``: per model, in common order) to McNemar's 2×2
    tables (baseline correct?, model correct?); a note instead when weights are not integers.
    Labels that differ row by row are memory's error."""
    y = recs[0]["y"]
    for j, r in enumerate(recs[1:], start=1):
        if not np.array_equal(r["y"], y):
            i = int(np.flatnonzero(r["y"] != y)[0])
            check_positions([files[0], files[j]], [names[0], names[j]], [y[i:i + 1], r["y"][i:i + 1]],
                            np.asarray([recs[0]["row"][i]]))
    b = recs[names.index(baseline)]
    for name, t in tables.items():
        r = recs[names.index(name)]
        if not np.array_equal(r["w"], np.round(r["w"])):
            return NOTE_NON_INTEGER
        cell = 2 * (~b["right"]).astype(np.int64) + (~r["right"]).astype(np.int64)
        t += np.bincount(cell, weights=r["w"], minlength=4).reshape(2, 2)
    return None


def mcnemar_columns(states: list[ModelCounts]) -> list[str]:
    """The columns McNemar's pass reads from a file holding ``states``' models."""
    return sorted({c for st in states for c in [*st.cols.values(), *st.score_cols]})


def _mcnemar_pass(cfg: Config, states: list[ModelCounts], by_file: dict[Path, list[ModelCounts]], classes: list[str],
                  indexes: dict[str, np.ndarray] | None, reads: dict[str, int]
                  ) -> tuple[dict[str, np.ndarray] | None, str | None]:
    """McNemar's 2×2 tables (baseline correct?, model correct?) over the rows every model keeps,
    spilled by common index and put side by side range by range (:class:`reportgen.io.pairs.RowSpill`),
    or a note why not (files of different lengths without an id)."""
    if len(states) < 2:
        return None, None
    if indexes is None and len(set(reads.values())) > 1:
        return None, NOTE_LENGTHS
    index = {c: j for j, c in enumerate(classes)}
    ids = ClassIds(list(classes))
    names = [st.cfg.name for st in states]
    tables = {n: np.zeros((2, 2)) for n in names if n != cfg.baseline_name}
    files = [str(st.path) for st in states]
    one_file = len(by_file) == 1  # every model keeps the same rows of one file, in its order: no spill
    with RowSpill(len(states), states[0].rows, MCNEMAR_RECORD) as spill:
        for path, sts in by_file.items():
            seen = dict.fromkeys((st.cfg.name for st in sts), 0)
            offset = 0
            for df in read_batches(path, mcnemar_columns(sts), cfg.stream.batch_rows, *column_types(sts)):
                recs: list = [None] * len(states)
                for st in sts:
                    pos, rec = mcnemar_records(cfg, st, ids, df, offset, index)
                    j = names.index(st.cfg.name)
                    recs[j] = rec
                    if not one_file:
                        at = indexes[st.cfg.name][pos] if indexes is not None else np.arange(seen[st.cfg.name], seen[st.cfg.name] + pos.shape[0])
                        spill.add(j, at, rec)
                    seen[st.cfg.name] += pos.shape[0]
                if one_file and (note := mcnemar_range(names, files, cfg.baseline_name, recs, tables)) is not None:
                    return None, note
                offset += len(df)
        for _lo, _hi, recs in ([] if one_file else spill.chunks()):
            note = mcnemar_range(names, files, cfg.baseline_name, recs, tables)
            if note is not None:
                return None, note
    return tables, None


__all__ = ["StreamedMulticlass", "load_streamed_multiclass"]


def check_first_batches(cfg: Config) -> dict[Path, int]:
    """``reportgen validate`` for ``engine: stream`` / ``dask`` and ``task: multiclass``: the plan
    (files, columns, class scores, every Parquet part) and the first batch of each file by the
    row rules, in bounded memory. Returns the rows checked per file."""
    _configured, ids, by_file = plan(cfg)
    checked: dict[Path, int] = {}
    for path, states in by_file.items():
        columns = sorted({c for st in states for c in [*st.cols.values(), *st.score_cols]})
        df = next(iter(read_batches(path, columns, cfg.stream.batch_rows, *column_types(states))), None)
        if df is None:
            raise no_rows(path)
        if cfg.date:
            dates_of(df[cfg.date], path, cfg.date, 0)
        for st in states:
            _fold(cfg, st, ids, df, 0, cfg.stream.max_distinct_scores)
            if st.ids is not None:
                check_unique(keyed(st))
        checked[path] = len(df)
    return checked
