"""Prediction files read in record batches → one score table per model (``engine: stream``).

Never holds a file as one table: each file is read column-projected, batch by batch
(pyarrow: Parquet files, directories or hive-partitioned datasets, and CSV), every batch is
validated like the in-memory path (non-finite scores, missing labels, a third label, negative
weights: one-line errors with the file, column and row) and folded into each model's running
score table. Memory grows with the number of distinct scores, not rows.

Passes over the data:

1. every file once: exact tables (merged every few batches), a fixed-size random sample of
   each model's scores, labels and row counts;
2. only for a model whose distinct scores passed ``stream.max_distinct_scores``: its file
   again, with bins from the sample (the report states the binning and its AUC error bound);
3. only when the models' rows line up (one file, or files of equal length without an id to
   join on) and nothing was dropped: DeLong's covariance and McNemar's tables (placement
   values looked up in the tables by score). With every model in one file, unweighted, and
   each either decimal (counted densely) or binned, passes 1 and 2 keep every row's code
   (int32 per model, the labels as bytes; :data:`ROW_CODES_BUDGET` at most, about 1.4 GB at
   100M rows × 3 models) and this pass runs in memory; otherwise all files are read again
   in lockstep.

Batches go from pyarrow to numpy without DataFrames; only text columns (CSV), booleans and
labels with nulls take the pandas helpers of the in-memory path.

Threads (:mod:`reportgen.parallel`): in pass 1 the
models of a batch are validated and counted in parallel, in pass 2 and the in-memory pass 3
the batches are binned or reduced to their moments a few ahead. Everything is added up in
the main thread in the order of a single-threaded run, so the results are the same bits.
"""

from __future__ import annotations

import functools
import logging
from collections.abc import Callable, Iterator
from dataclasses import dataclass, field
from pathlib import Path

import numpy as np
import pandas as pd

from reportgen.config import Config, ModelConfig
from reportgen.reduce import accumulators as S
from reportgen.engine.curve import ScoreTable
from reportgen.engine.streaming import binning_auc_bound
from reportgen.parallel import ordered_map
from reportgen.results import BinningInfo
from reportgen.io import align as A
from reportgen.io import validate as V
from reportgen.io.align import (
    NOTE_LENGTHS,
    Join,
    Keyed,
    check_positions,
    check_unique,
    concat_ids,
    join_ids,
)
from reportgen.io.pairs import RowSpill
from reportgen.io.files import FileInfo, check_parts, columns_in, file_info, hashing, no_rows, record_batches
from reportgen.io.validate import check_columns, columns_for, dates_of

Progress = Callable[[int, int], None]

log = logging.getLogger(__name__)


@dataclass(frozen=True, slots=True)
class StreamedModel:
    name: str
    file: str
    direction: str
    probabilities: bool | None
    threshold: float | None
    table: ScoreTable
    binning: BinningInfo | None
    grouper: Callable[[np.ndarray], np.ndarray] | None  # raw score → table row (binned tables)


@dataclass(frozen=True, slots=True)
class StreamedData:
    models: tuple[StreamedModel, ...]
    files: tuple[FileInfo, ...]
    dropped: tuple[tuple[str, str, int], ...]
    warnings: tuple[str, ...]
    paired: S.PairedAccumulator | None
    paired_note: str | None
    dates: tuple[str, str] | None = None


def column_types(cfg: Config, models: list[ModelConfig]) -> tuple[list[str], list[str]]:
    """(numbers, text): the columns of ``models`` read as float64 and as text (CSV types)."""
    numbers = sorted({c for m in models for c in V.number_columns(cfg, m)})
    text = sorted({c for m in models for c in V.text_columns(columns_for(cfg, m))})
    return numbers, text


def read_batches(path: Path, columns: list[str], batch_rows: int, numbers: list[str] = (),
                 text: list[str] = ()) -> Iterator[pd.DataFrame]:
    """The file's ``columns`` in record batches of about ``batch_rows`` rows, as small frames."""
    for rb in record_batches(path, columns, batch_rows, numbers, text):
        yield rb.to_pandas()


def read_columns(path: Path, columns: list[str], batch_rows: int, numbers: list[str] = (),
                 text: list[str] = ()) -> Iterator[Batch]:
    """:func:`read_batches` without the DataFrames: each batch's columns go to numpy directly."""
    for rb in record_batches(path, columns, batch_rows, numbers, text):
        yield Batch(rb)


def _plain_numeric(col) -> bool:
    """Whether an arrow column converts to float64 as pandas would, without pandas."""
    import pyarrow as pa  # noqa: PLC0415

    return pa.types.is_floating(col.type) or pa.types.is_integer(col.type)


class Batch:
    """One record batch whose columns are converted to numpy once each, straight from arrow.

    Numeric columns skip pandas (about a third of a streamed pass went into ``to_pandas``);
    anything else (text read from CSV, booleans, labels with nulls) goes through the same
    pandas helpers as the in-memory path, so values and error messages are the same.
    """

    __slots__ = ("rb", "_cache")

    def __init__(self, rb) -> None:
        self.rb = rb
        self._cache: dict = {}

    def __len__(self) -> int:
        return self.rb.num_rows

    def slice(self, start: int, length: int | None = None) -> Batch:
        return Batch(self.rb.slice(start, length))

    def series(self, name: str) -> pd.Series:
        key = ("series", name)
        if key not in self._cache:
            self._cache[key] = self.rb.column(name).to_pandas()
        return self._cache[key]

    def numeric(self, name: str, path: Path, offset: int) -> np.ndarray:
        """The column as float64 (NaN where missing); a non-numeric cell is an error naming its row."""
        key = ("numeric", name)
        if key not in self._cache:
            col = self.rb.column(name)
            if _plain_numeric(col):
                out = np.asarray(col.to_numpy(zero_copy_only=False), dtype=np.float64)
            else:
                out = V.numeric(self.series(name), path, name, offset)
            self._cache[key] = out
        return self._cache[key]

    def keys(self, name: str):
        """The column's keys (:func:`reportgen.io.validate.key_array`: pyarrow strings, null = missing)."""
        key = ("keys", name)
        if key not in self._cache:
            self._cache[key] = V.key_array(self.rb.column(name))
        return self._cache[key]

    def ids(self, name: str):
        """The column's id keys (:func:`reportgen.io.validate.id_keys`)."""
        key = ("ids", name)
        if key not in self._cache:
            self._cache[key] = V.id_keys(self.rb.column(name))
        return self._cache[key]

    def missing(self, name: str) -> np.ndarray | None:
        """Rows whose label is missing (null, NaN, ±inf, an empty cell), or None when none is."""
        key = ("missing", name)
        if key not in self._cache:
            col = self.rb.column(name)
            if _plain_numeric(col) and col.null_count == 0:
                if col.type.id in _FLOAT_IDS:
                    bad = ~np.isfinite(np.asarray(col.to_numpy(zero_copy_only=False)))
                    out = bad if bad.any() else None
                else:
                    out = None
            else:
                import pyarrow.compute as pc  # noqa: PLC0415

                bad = np.asarray(pc.is_null(self.keys(name)).to_numpy(zero_copy_only=False), dtype=bool)
                out = bad if bad.any() else None
            self._cache[key] = out
        return self._cache[key]

    def matches(self, name: str, positive: str) -> np.ndarray:
        """Rows whose label key is ``positive`` (a key); numeric columns compare as numbers."""
        key = ("matches", name)
        if key not in self._cache:
            col = self.rb.column(name)
            number = V.as_number(positive)
            if _plain_numeric(col) and col.null_count == 0:
                out = col.to_numpy(zero_copy_only=False) == number if number is not None else np.zeros(len(col), dtype=bool)
            else:
                import pyarrow.compute as pc  # noqa: PLC0415

                out = pc.fill_null(pc.equal(self.keys(name), positive), False).to_numpy(zero_copy_only=False)
            self._cache[key] = np.asarray(out, dtype=bool)
        return self._cache[key]

    def distinct(self, name: str, keep: np.ndarray | None) -> list[str]:
        """The distinct label keys of the kept rows."""
        import pyarrow.compute as pc  # noqa: PLC0415

        col = self.rb.column(name)
        if _plain_numeric(col) and col.null_count == 0:
            if keep is None:
                ckey = ("distinct", name)
                if ckey not in self._cache:
                    self._cache[ckey] = [V.label_key(v) for v in pc.unique(col).to_pylist()]
                return self._cache[ckey]
            return [V.label_key(v) for v in pc.unique(col.filter(keep)).to_pylist()]
        k = self.keys(name)
        return [v for v in pc.unique(k if keep is None else k.filter(keep)).to_pylist() if v is not None]


def _float_ids() -> frozenset:
    import pyarrow as pa  # noqa: PLC0415

    return frozenset(t.id for t in (pa.float16(), pa.float32(), pa.float64()))


_FLOAT_IDS = _float_ids()


#: Bytes of per-row codes pass 1 and 2 may keep so that the paired pass need not read the
#: data again: 4 per row and model, 1 per row for the labels (and for each binned model's
#: decisions). 100M rows × 3 models take about 1.4 GB; past the budget the codes are
#: dropped and the paired pass reads the file once more, as it did before.
ROW_CODES_BUDGET = 2 << 30


@dataclass(slots=True)
class _RowCodes:
    """Each row's table row per model, kept from passes 1 and 2 (one file, unweighted rows).

    Exact models with decimal scores keep the integer score ``q`` (int32, relative to the
    first chunk's), binned models their bin; the table row is then a lookup, and the paired
    pass runs in memory (decisions by table row, the rule behind the reported metrics).
    """

    y: list[np.ndarray] = field(default_factory=list)
    codes: dict[str, list[np.ndarray]] = field(default_factory=dict)
    base: dict[str, int] = field(default_factory=dict)
    nbytes: int = 0
    ok: bool = True

    def _spend(self, arr: np.ndarray) -> bool:
        self.nbytes += arr.nbytes
        if self.nbytes > ROW_CODES_BUDGET:
            self.drop()
        return self.ok

    def drop(self) -> None:
        self.ok = False
        self.y, self.codes = [], {}

    def add_labels(self, y: np.ndarray) -> None:
        if self.ok and self._spend(y):
            self.y.append(y)

    def add_scores(self, name: str, acc: S.TableAccumulator) -> None:
        """The chunk just added to ``acc``, as integer scores (or the codes are dropped)."""
        if not self.ok:
            return
        q = acc.chunk_scores()
        if q is None:  # overflowed (binned in pass 2, which keeps bins) or not decimal (no lookup later)
            return
        base = self.base.setdefault(name, int(q[0]) if q.shape[0] else 0)
        # fits in int32: the dense counts span at most S.DENSE_SPAN (2^23) codes, base among them
        c32 = (q - base).astype(np.int32)
        if self._spend(c32):
            self.codes.setdefault(name, []).append(c32)

    def add_bins(self, name: str, bins: np.ndarray) -> None:
        if self.ok and self._spend(bins):
            self.codes.setdefault(name, []).append(bins)


@dataclass(slots=True)
class ModelState:
    """What pass 1 keeps per model.

    With an id column, the kept rows' id keys, file positions and truth are collected for the
    join (:mod:`reportgen.io.align`), and under ``missing: drop`` the ids of the rows dropped
    (``lost``); without one, the positions of dropped rows (``gone``). ``index``, when set
    (second reading), is the common index of each file row (:func:`reportgen.io.align.common_index`):
    only rows ``>= 0`` are kept — the rows every model keeps."""

    cfg: ModelConfig
    cols: dict[str, str]
    acc: S.TableAccumulator
    sample: list[np.ndarray]
    labels: set
    rows: int = 0
    dropped: dict[str, int] | None = None
    ids: list | None = None
    id_rows: list | None = None
    truth: list | None = None
    lost: list | None = None
    gone: list | None = None
    index: np.ndarray | None = None

    def replica(self) -> ModelState:
        """A state that validates like this one (labels seen, row filter) but collects nothing."""
        return ModelState(self.cfg, self.cols, self.acc, [], set(self.labels), index=self.index)


def new_state(cfg: Config, m: ModelConfig, index: np.ndarray | None = None, collect: bool = True) -> ModelState:
    """An empty pass-1 state of model ``m`` (collecting ids when the config names an id column,
    the rows dropped under ``missing: drop``)."""
    cols = columns_for(cfg, m)
    st = ModelState(m, cols, S.TableAccumulator(m.direction, cfg.stream.max_distinct_scores), [], set(), index=index)
    if "id" in cols and collect:
        st.ids, st.id_rows, st.truth = [], [], []
    if collect and cfg.missing == "drop" and len(cfg.models) > 1:
        st.lost, st.gone = [], []
    return st


def validated(cfg: Config, st: ModelState, path: Path, batch: Batch, offset: int):
    """(scores, is_positive, weights) of the batch's valid rows; errors name the global row."""
    return kept_rows(cfg, st, path, batch, offset)[:3]


def kept_rows(cfg: Config, st: ModelState, path: Path, batch: Batch, offset: int):
    """(scores, is_positive, weights, keep) of the batch's valid rows (``keep``: their mask, None = all)."""
    import pyarrow.compute as pc  # noqa: PLC0415

    cols = st.cols
    scores = batch.numeric(cols["score"], path, offset)
    weights = batch.numeric(cols["weight"], path, offset) if "weight" in cols else None
    ids = batch.ids(cols["id"]) if "id" in cols else None
    checks = []
    if not np.isfinite(scores).all():
        checks.append((V.missing_score(cols["score"]), ~np.isfinite(scores)))
    label_bad = batch.missing(cols["label"])
    if label_bad is not None:
        checks.append((V.missing_label(cols["label"], "binary"), label_bad))
    if weights is not None and not np.isfinite(weights).all():
        checks.append((V.missing_weight(cols["weight"]), ~np.isfinite(weights)))
    if ids is not None and ids.null_count:
        checks.append((V.missing_id(cols["id"]), np.asarray(pc.is_null(ids).to_numpy(zero_copy_only=False), dtype=bool)))
    counts: dict[str, int] = {}
    keep = V.keep_rows(cfg, path, checks, offset, counts) if checks else None
    if counts:
        st.dropped = st.dropped or {}
        for reason, k in counts.items():
            st.dropped[reason] = st.dropped.get(reason, 0) + k
    if weights is not None:
        V.check_weights(path, cols["weight"], weights, keep, offset)
    V.check_score_range(path, cols["score"], scores, keep, offset)
    if st.cfg.probabilities is True:
        V.check_probabilities(path, st.cfg.name, [cols["score"]], scores, keep, offset)
    if st.gone is not None and keep is not None:  # missing: drop — what the join must leave out elsewhere
        st.gone.append(np.flatnonzero(~keep) + offset)
        if ids is not None:
            st.lost.append(V.lost_ids(ids, keep))
    if st.index is not None:
        inside = st.index[offset:offset + len(batch)] >= 0
        keep = inside if keep is None else keep & inside
    st.labels.update(batch.distinct(cols["label"], keep))
    V.check_two_labels(path, cols["label"], st.labels)
    y = batch.matches(cols["label"], V.label_key(cfg.positive))
    if st.ids is not None:
        rows = np.arange(len(batch)) if keep is None else np.flatnonzero(keep)
        st.ids.append(ids if keep is None else ids.filter(keep))
        st.id_rows.append(rows + offset)
        st.truth.append(y if keep is None else y[keep])
    if keep is None:
        return scores, y, weights, None
    return scores[keep], y[keep], None if weights is None else weights[keep], keep


def keyed(path: Path, st: ModelState) -> Keyed:
    """The rows a model kept, as the id join sees them."""
    return Keyed(st.cfg.name, str(path), st.cols["id"], concat_ids(st.ids),
                 np.concatenate(st.id_rows) if st.id_rows else np.empty(0, dtype=np.int64),
                 np.concatenate(st.truth) if st.truth else np.empty(0, dtype=bool),
                 None if st.lost is None else concat_ids(st.lost))


def _with_offsets(batches: Iterator[Batch]) -> Iterator[tuple[Batch, int]]:
    """Each batch with the number of rows before it (errors name the row in the file)."""
    offset = 0
    for batch in batches:
        yield batch, offset
        offset += len(batch)


def _fold_model(cfg: Config, path: Path, batch: Batch, offset: int, st: ModelState):
    """One model's part of a batch in pass 1 (its own state only, so models run in threads)."""
    s, y, w = validated(cfg, st, path, batch, offset)
    st.acc.add(s, y, w)
    return s, y, w


def fold_file(cfg: Config, states: list[ModelState], path: Path, columns: list[str], rng: np.random.Generator,
              dates: list | None = None, rows: _RowCodes | None = None) -> int:
    """Pass 1 over one file: every batch validated and folded into each model's state; rows read.

    ``dates`` (a list) collects each batch's first and last date when a date column is set;
    ``rows`` keeps each row's codes (labels of the first model, integer scores of each). The
    models of a batch are folded in threads; the codes and the sample (the shared ``rng``)
    are taken here, model by model, as in one thread.
    """
    offset = 0
    numbers, text = column_types(cfg, [st.cfg for st in states])
    for batch in read_columns(path, columns, cfg.stream.batch_rows, numbers, text):
        if cfg.date and dates is not None:
            d = dates_of(batch.series(cfg.date), path, cfg.date, offset)
            if d.notna().any():
                dates += [d.min(), d.max()]
        folded = ordered_map(functools.partial(_fold_model, cfg, path, batch, offset), states)
        for st, (s, y, w) in zip(states, folded):
            if rows is not None and rows.ok:
                if st.dropped or w is not None:
                    rows.drop()
                else:
                    if st is states[0]:
                        rows.add_labels(y)
                    elif y is not rows.y[-1] and not np.array_equal(y, rows.y[-1]):
                        rows.drop()  # labels differ row by row: the paired pass says so
                    if rows.ok:
                        rows.add_scores(st.cfg.name, st.acc)
            st.rows += s.shape[0]
            take = min(cfg.stream.sample_per_batch, s.shape[0])
            if take:
                st.sample.append(S.oriented(s[rng.choice(s.shape[0], take, replace=False)], st.cfg.direction))
        offset += len(batch)
    return offset


def load_streamed(cfg: Config, progress: Progress | None = None) -> StreamedData:
    """Pass 1 (and 2, 3 where needed) over the files: every model's table, exact or binned.

    The files are hashed for the audit trail as they are read (every pass must read the same
    bytes: :class:`reportgen.io.files.Digests`)."""
    with hashing():
        return _load_streamed(cfg, progress)


def plan(cfg: Config, indexes: dict[str, np.ndarray] | None = None) -> dict[Path, list[ModelState]]:
    """Each file's models as fresh pass-1 states; columns (and every Parquet part's) checked first.

    ``indexes`` (a second reading): each model's common index per file row, the rows it keeps."""
    by_file: dict[Path, list[ModelState]] = {}
    for i, m in enumerate(cfg.models):
        path = Path(m.file)
        check_columns(cfg, i, m, path, columns_in(path))
        by_file.setdefault(path, []).append(new_state(cfg, m, None if indexes is None else indexes[m.name], indexes is None))
    for path, states in by_file.items():
        check_parts(path, {c for st in states for c in st.cols.values()})
    return by_file


def _first_pass(cfg: Config, by_file: dict[Path, list[ModelState]], rows: _RowCodes | None, progress: Progress | None
                ) -> tuple[dict[Path, int], list]:
    """Pass 1 over every file: (rows read per file, the dates seen)."""
    rng = np.random.default_rng(cfg.bootstrap.seed)
    seen_dates: list = []
    read: dict[Path, int] = {}
    for k, (path, states) in enumerate(by_file.items()):
        columns = sorted({c for st in states for c in st.cols.values()})
        offset = fold_file(cfg, states, path, columns, rng, seen_dates, rows)
        if offset == 0:
            raise no_rows(path)
        read[path] = offset
        if progress is not None:
            progress(k + 1, len(by_file))
    return read, seen_dates


def ordered(cfg: Config, by_file: dict[Path, list[ModelState]]) -> list[tuple[Path, ModelState]]:
    """Every (file, model state) in the config's model order."""
    order = {m.name: i for i, m in enumerate(cfg.models)}
    return sorted(((p, st) for p, sts in by_file.items() for st in sts), key=lambda x: order[x[1].cfg.name])


def common_rows(cfg: Config, by_file: dict[Path, list[ModelState]], read: dict[Path, int], join: Join | None
                ) -> tuple[dict[str, np.ndarray] | None, list[tuple[str, str, int]]]:
    """:func:`reportgen.io.align.common_rows` of the states of pass 1."""
    states = ordered(cfg, by_file)
    return A.common_rows([st.cfg.name for _p, st in states], [read[p] for p, _st in states], join,
                         [keyed(p, st).rows if st.ids is not None else None for p, st in states],
                         [np.concatenate(st.gone) if st.gone else None for _p, st in states])


def join_states(cfg: Config, by_file: dict[Path, list[ModelState]]) -> Join | None:
    """The id join of the models' kept rows (None without an id column); errors as in memory."""
    states = ordered(cfg, by_file)
    if any(st.ids is None for _p, st in states):
        return None
    for path, st in states:
        if st.rows == 0:
            raise V.no_rows_left(path, st.cfg.name)
    return join_ids(cfg, [keyed(p, st) for p, st in states])


def _load_streamed(cfg: Config, progress: Progress | None) -> StreamedData:
    sc = cfg.stream
    by_file = plan(cfg)
    rows = _RowCodes() if len(by_file) == 1 and len(cfg.models) > 1 else None
    read, seen_dates = _first_pass(cfg, by_file, rows, progress)
    join = join_states(cfg, by_file)
    indexes, left_out = common_rows(cfg, by_file, read, join)
    if left_out:  # some model keeps rows another does not: read again, the rows every model keeps only
        by_file, rows = plan(cfg, indexes), None
        read, seen_dates = _first_pass(cfg, by_file, rows, progress)
        p, st = ordered(cfg, by_file)[0]
        if join is None:
            A.check_rows_left(str(p), st.rows, st.labels, V.label_key(cfg.positive), [m.name for m in cfg.models])

    models: list[StreamedModel] = []
    lookups: dict[str, tuple[int, np.ndarray] | None] = {}
    warnings: list[str] = []
    dropped: list[tuple[str, str, int]] = []
    for path, states in by_file.items():
        for st in states:
            m = st.cfg
            for reason, count in (st.dropped or {}).items():  # not 'rows': that is the row codes
                dropped.append((m.name, reason, count))
            if st.rows == 0:
                raise V.no_rows_left(path, m.name)
            table = st.acc.table()
            binning, grouper = None, None
            if table is None:  # too many distinct scores: bin, with edges from the sample
                edges = S.bin_edges(np.concatenate(st.sample), sc.bins, sc.binning)
                acc = S.BinnedAccumulator(edges, m.direction)
                keep_rows = rows is not None and rows.ok
                if keep_rows:
                    rows.codes.pop(m.name, None)
                    rows.base[m.name] = 0

                def bin_batch(item: tuple[Batch, int]):
                    """A batch validated and binned in a thread: (weighted rows, or None; bins, or None)."""
                    batch, offset = item
                    s, y, w = validated(cfg, st.replica(), path, batch, offset)
                    if w is not None:
                        return (s, y, w), None
                    return None, acc.bin_rows(s, y)

                batches = _with_offsets(read_columns(path, sorted(set(st.cols.values())), sc.batch_rows,
                                                     *column_types(cfg, [m])))
                for weighted, binned in ordered_map(bin_batch, batches):
                    if binned is None:
                        acc.add(*weighted)
                    else:  # the same table as add(): whole-number counts, a minimum per bin
                        acc.fold_rows(binned)
                        if keep_rows and rows.ok:
                            rows.add_bins(m.name, binned[0])
                table, grouper, binning = binned_result(cfg, m.name, acc, warnings)
            V.check_both_classes(cfg, path, st.cols["label"], st.labels, table.total_pos, table.total_neg,
                                 st.cols.get("weight"))
            models.append(StreamedModel(m.name, str(path), m.direction, m.probabilities, m.threshold, table, binning, grouper))
            if rows is not None and rows.ok:
                rows.base.setdefault(m.name, 0)
                lookups[m.name] = st.acc.row_lookup() if binning is None else (0, acc.row_of_bin())
    order = {m.name: i for i, m in enumerate(cfg.models)}
    models.sort(key=lambda x: order[x.name])
    dropped.sort(key=lambda d: order[d[0]])
    if rows is not None and rows.ok and not dropped and all(lookups.get(m.name) is not None for m in models):
        paired, note = _paired_in_memory(cfg, models, rows, lookups)
    else:
        if rows is not None:
            rows.drop()
        if join is not None and indexes is None and not join.in_order:
            indexes = {st.cfg.name: join.index(i, keyed(p, st).rows, read[p]) for i, (p, st) in enumerate(ordered(cfg, by_file))}
        paired, note = _paired_pass(cfg, models, by_file, read, indexes)
    dropped.extend(left_out)
    if join is not None:
        warnings[:0] = join.warnings
    dates = (min(seen_dates).date().isoformat(), max(seen_dates).date().isoformat()) if seen_dates else None
    files = tuple(file_info(p, n) for p, n in read.items())
    return StreamedData(tuple(models), files, tuple(dropped), tuple(warnings), paired, note, dates)


def binned_result(cfg: Config, name: str, acc: S.BinnedAccumulator, warnings: list[str]):
    """(table, grouper, BinningInfo) of a binned model; the warning that says so is appended (and logged)."""
    sc = cfg.stream
    table = acc.table()
    bound = binning_auc_bound(table)
    warnings.append(
        f"model '{name}': more than {sc.max_distinct_scores:,} distinct scores, binned into "
        f"{table.n_distinct:,} {sc.binning} bins; its AUC is within ±{bound:.2g} of the exact value "
        f"and its thresholds are bin boundaries that occur in the data"
    )
    log.warning(warnings[-1])
    return table, acc.grouper(), BinningInfo(sc.binning, table.n_distinct, sc.max_distinct_scores, bound)


def _paired_pass(cfg: Config, models: list[StreamedModel], by_file: dict[Path, list[ModelState]], read: dict[Path, int],
                 indexes: dict[str, np.ndarray] | None) -> tuple[S.PairedAccumulator | S.AgreementAccumulator | None, str | None]:
    """Pass 3: DeLong covariances and McNemar tables over the rows every model keeps (weighted
    rows: McNemar's tables only, :class:`reportgen.engine.streaming.AgreementAccumulator`).

    Each model's kept rows are read again and spilled by their common index (``indexes``: per
    model, each file row's; None when every model keeps the same rows in the same order), then
    put side by side range by range (:class:`reportgen.io.pairs.RowSpill`): files joined by id in
    any order pair exactly as in memory, in bounded memory."""
    if len(models) < 2:
        return None, None
    if indexes is None and len(set(read.values())) > 1:
        return None, NOTE_LENGTHS
    names = [m.name for m in models]
    states = {st.cfg.name: (p, st) for p, sts in by_file.items() for st in sts}
    n = states[names[0]][1].rows
    acc = S.PairedAccumulator([m.table for m in models],
                              [m.threshold if m.threshold is not None else cfg.threshold for m in models],
                              [m.grouper or S.exact_grouper(m.table) for m in models],
                              approval_rates=tuple(cfg.approval_rates))
    weighted = any(m.table.weighted for m in models)
    agree = S.AgreementAccumulator(len(models))
    cuts = [m.table.cut_index(c) for m, c in zip(models, acc.cuts)]
    files = [str(states[name][0]) for name in names]
    one_file = len(by_file) == 1  # every model keeps the same rows of one file, in its order: no spill
    with RowSpill(len(models), n, PAIR_RECORD) as spill:
        for path, sts in by_file.items():
            seen = dict.fromkeys((st.cfg.name for st in sts), 0)
            columns = sorted({c for st in sts for c in st.cols.values()})
            for batch, offset in _with_offsets(read_columns(path, columns, cfg.stream.batch_rows,
                                                            *column_types(cfg, [st.cfg for st in sts]))):
                recs: list = [None] * len(models)
                for st in sts:
                    name = st.cfg.name
                    s, y, w, keep = kept_rows(cfg, st.replica(), path, batch, offset)
                    pos = offset + (np.arange(len(batch)) if keep is None else np.flatnonzero(keep))
                    j = names.index(name)
                    recs[j] = pair_records(acc.groupers[j](s), y, w, pos)
                    if not one_file:
                        at = indexes[name][pos] if indexes is not None else np.arange(seen[name], seen[name] + s.shape[0])
                        spill.add(j, at, recs[j])
                    seen[name] += s.shape[0]
                if one_file:
                    pair_range(names, files, recs, cuts, acc, agree if weighted else None)
        for _lo, _hi, recs in ([] if one_file else spill.chunks()):
            pair_range(names, files, recs, cuts, acc, agree if weighted else None)
    return (agree if weighted else acc), None


#: A compared row on its way to the paired pass: its row of the model's table, its truth, its
#: weight (1 unweighted) and its position in the file (errors name it).
PAIR_RECORD = np.dtype([("code", np.int64), ("y", np.bool_), ("w", np.float64), ("row", np.int64)])


def pair_records(codes: np.ndarray, y: np.ndarray, w: np.ndarray | None, rows: np.ndarray) -> np.ndarray:
    """Rows as :data:`PAIR_RECORD` records."""
    rec = np.empty(codes.shape[0], dtype=PAIR_RECORD)
    rec["code"], rec["y"], rec["w"], rec["row"] = codes, y, 1.0 if w is None else w, rows
    return rec


def pair_range(names: list[str], files: list[str], recs: list[np.ndarray], cuts: list[int],
               acc: S.PairedAccumulator, agree: S.AgreementAccumulator | None) -> None:
    """One range of common rows, every model's records side by side, added to ``acc`` (or, for
    weighted rows, to ``agree``); labels that differ row by row are memory's error."""
    y = recs[0]["y"]
    for j, r in enumerate(recs[1:], start=1):
        if not np.array_equal(r["y"], y):
            i = int(np.flatnonzero(r["y"] != y)[0])
            check_positions([files[0], files[j]], [names[0], names[j]], [y[i:i + 1], r["y"][i:i + 1]],
                            np.asarray([recs[0]["row"][i]]))
    codes = [r["code"] for r in recs]
    correct = [(c < ci) == y for c, ci in zip(codes, cuts)]
    if agree is not None:
        agree.add(correct, [r["w"] for r in recs])
    else:
        acc.add_rows(codes, correct, y)


def _paired_in_memory(cfg: Config, models: list[StreamedModel], rows: _RowCodes,
                      lookups: dict[str, tuple[int, np.ndarray]]) -> tuple[S.PairedAccumulator | None, str | None]:
    """Pass 3 from the codes kept in passes 1 and 2: each chunk's table rows by lookup."""
    if len(models) < 2:
        return None, None
    acc = S.PairedAccumulator([m.table for m in models], [m.threshold if m.threshold is not None else cfg.threshold for m in models],
                              approval_rates=tuple(cfg.approval_rates))
    cuts = [m.table.cut_index(c) for m, c in zip(models, acc.cuts)]
    lengths = [y.shape[0] for y in rows.y]
    for m in models:
        if [c.shape[0] for c in rows.codes.get(m.name, [])] != lengths:
            raise AssertionError(f"codes of model '{m.name}' out of step with the labels")

    def chunk_moments(i: int):
        """The i-th chunk's table rows by lookup and its moments (in a thread)."""
        y = rows.y[i]
        chunk_rows, right = [], []
        for m, ci in zip(models, cuts):
            qmin, lut = lookups[m.name]
            codes, shift = rows.codes[m.name][i], rows.base[m.name] - qmin
            r = lut[codes + shift if shift else codes]
            chunk_rows.append(r)
            right.append((r < ci) == y)  # by table row: a binned model decides per bin, as its metrics
        return acc.moments(chunk_rows, right, y)

    for part in ordered_map(chunk_moments, range(len(rows.y))):
        acc.add_moments(part)
    rows.drop()
    return acc, None


def check_first_batches(cfg: Config) -> dict[Path, int]:
    """``reportgen validate`` for ``engine: stream`` / ``dask``: the plan and the first batch of each file.

    Checks that every file exists, every column the config names (score, label, id, weight,
    date) is there, every Parquet part holds them, and that the first record batch of each file
    passes the row rules, without reading further: bounded memory, whatever the file's size.
    Returns the rows checked per file. Multiclass: :func:`reportgen.sources_stream_multiclass.check_first_batches`."""
    by_file = plan(cfg)
    checked: dict[Path, int] = {}
    for path, states in by_file.items():
        columns = sorted({c for st in states for c in st.cols.values()})
        batch = next(iter(read_columns(path, columns, cfg.stream.batch_rows, *column_types(cfg, [st.cfg for st in states]))), None)
        if batch is None:
            raise no_rows(path)
        if cfg.date:
            dates_of(batch.series(cfg.date), path, cfg.date, 0)
        for st in states:
            validated(cfg, st, path, batch, 0)
            if st.ids is not None:
                check_unique(keyed(path, st))
        checked[path] = len(batch)
    return checked
