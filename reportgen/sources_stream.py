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

Threads (:mod:`reportgen.parallel`): the files are hashed in the background; in pass 1 the
models of a batch are validated and counted in parallel, in pass 2 and the in-memory pass 3
the batches are binned or reduced to their moments a few ahead. Everything is added up in
the main thread in the order of a single-threaded run, so the results are the same bits.
"""

from __future__ import annotations

import functools
import threading
from collections.abc import Callable, Iterator
from dataclasses import dataclass, field
from pathlib import Path

import numpy as np
import pandas as pd

from reportgen.config import Config, ModelConfig
from reportgen.engine import streaming as S
from reportgen.engine.curve import ScoreTable
from reportgen.errors import InputError
from reportgen.parallel import in_background, ordered_map
from reportgen.results import BinningInfo
from reportgen.sources import (
    FileInfo,
    _check_columns,
    _columns_for,
    _columns_in,
    _first_line,
    _is_parquet,
    _label_matches,
    _numeric,
    _parquet_dataset,
    _show,
    dates_of,
    file_info,
    sha256_of,
)

Progress = Callable[[int, int], None]


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


def _record_batches(path: Path, columns: list[str], batch_rows: int) -> Iterator:
    """pyarrow record batches of the file's ``columns`` (about ``batch_rows`` rows each)."""
    import pyarrow as pa  # noqa: PLC0415
    import pyarrow.csv as pacsv  # noqa: PLC0415

    try:
        if _is_parquet(path):
            for rb in _parquet_dataset(path).to_batches(columns=columns, batch_size=batch_rows):
                if rb.num_rows:
                    yield rb
            return
        block = max(1 << 20, min(1 << 28, batch_rows * 16 * max(1, len(columns))))
        reader = pacsv.open_csv(
            str(path),
            read_options=pacsv.ReadOptions(block_size=block),
            convert_options=pacsv.ConvertOptions(include_columns=columns),
        )
        for rb in reader:
            if rb.num_rows:
                yield rb
    except (pa.ArrowException, OSError, ValueError) as exc:
        raise InputError(f"{path}: cannot read ({_first_line(exc)})") from None


def read_batches(path: Path, columns: list[str], batch_rows: int) -> Iterator[pd.DataFrame]:
    """The file's ``columns`` in record batches of about ``batch_rows`` rows, as small frames."""
    for rb in _record_batches(path, columns, batch_rows):
        yield rb.to_pandas()


def read_columns(path: Path, columns: list[str], batch_rows: int) -> Iterator[Batch]:
    """:func:`read_batches` without the DataFrames: each batch's columns go to numpy directly."""
    for rb in _record_batches(path, columns, batch_rows):
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
                out = _numeric(self.series(name), path, name, offset)
            self._cache[key] = out
        return self._cache[key]

    def missing(self, name: str) -> np.ndarray | None:
        """Rows whose value is missing (null, or NaN as pandas counts it), or None when none is."""
        key = ("missing", name)
        if key not in self._cache:
            col = self.rb.column(name)
            if _plain_numeric(col) and col.null_count == 0:
                if col.type.id in _FLOAT_IDS:
                    bad = np.isnan(np.asarray(col.to_numpy(zero_copy_only=False)))
                    out = bad if bad.any() else None
                else:
                    out = None
            else:
                bad = self.series(name).isna().to_numpy()
                out = bad if bad.any() else None
            self._cache[key] = out
        return self._cache[key]

    def matches(self, name: str, value) -> np.ndarray:
        """Rows whose label equals ``value`` (:func:`reportgen.sources._label_matches`)."""
        key = ("matches", name)
        if key not in self._cache:
            col = self.rb.column(name)
            numeric_value = isinstance(value, (int, float)) and not isinstance(value, bool)
            if _plain_numeric(col) and col.null_count == 0 and numeric_value:
                out = col.to_numpy(zero_copy_only=False) == value
            else:
                out = _label_matches(self.series(name), value)
            self._cache[key] = np.asarray(out, dtype=bool)
        return self._cache[key]

    def distinct(self, name: str, keep: np.ndarray | None) -> list:
        """The distinct labels of the kept rows, as pandas would list them."""
        col = self.rb.column(name)
        if _plain_numeric(col) and col.null_count == 0:
            import pyarrow.compute as pc  # noqa: PLC0415

            if keep is None:
                key = ("distinct", name)
                if key not in self._cache:
                    self._cache[key] = pc.unique(col).to_pylist()
                return self._cache[key]
            return pc.unique(col.filter(keep)).to_pylist()
        lab = self.series(name)
        return pd.unique(lab if keep is None else lab[keep]).tolist()


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
class _State:
    """What pass 1 keeps per model."""

    cfg: ModelConfig
    cols: dict[str, str]
    acc: S.TableAccumulator
    sample: list[np.ndarray]
    labels: set
    rows: int = 0
    dropped: dict[str, int] | None = None


def _validated(cfg: Config, st: _State, path: Path, batch: Batch, offset: int):
    """(scores, is_positive, weights) of the batch's valid rows; errors name the global row."""
    cols = st.cols
    n = len(batch)
    scores = batch.numeric(cols["score"], path, offset)
    weights = batch.numeric(cols["weight"], path, offset) if "weight" in cols else None
    checks = []
    if not np.isfinite(scores).all():
        checks.append((f"missing or non-finite score in '{cols['score']}'", ~np.isfinite(scores)))
    label_bad = batch.missing(cols["label"])
    if label_bad is not None:
        checks.append((f"missing or non-finite label in '{cols['label']}'", label_bad))
    if weights is not None and not np.isfinite(weights).all():
        checks.append((f"missing or non-finite weight in '{cols['weight']}'", ~np.isfinite(weights)))
    keep = None
    for reason, bad in checks:
        if cfg.missing != "drop":
            i = int(np.flatnonzero(bad)[0])
            raise InputError(
                f"{path}: row {offset + i + 2}: {reason}; fix the data or set 'missing: drop' to drop such rows (counted in the report)"
            )
        if keep is None:
            keep = np.ones(n, dtype=bool)
        st.dropped = st.dropped or {}
        st.dropped[reason] = st.dropped.get(reason, 0) + int((bad & keep).sum())
        keep &= ~bad
    if weights is not None:
        neg = weights < 0 if keep is None else (weights < 0) & keep
        if neg.any():
            i = int(np.flatnonzero(neg)[0])
            raise InputError(f"{path}: column '{cols['weight']}', row {offset + i + 2}: negative weight {weights[i]:g}; weights must be >= 0")
    st.labels.update(batch.distinct(cols["label"], keep))
    if len(st.labels) > 2:
        shown = ", ".join(_show(v) for v in sorted(st.labels, key=str)[:6])
        raise InputError(
            f"{path}: column '{cols['label']}' has more than 2 distinct labels ({shown}) by row {offset + n + 1}; "
            f"task: binary needs two"
        )
    y = batch.matches(cols["label"], cfg.positive)
    if keep is None:
        return scores, y, weights
    return scores[keep], y[keep], None if weights is None else weights[keep]


def _with_offsets(batches: Iterator[Batch]) -> Iterator[tuple[Batch, int]]:
    """Each batch with the number of rows before it (errors name the row in the file)."""
    offset = 0
    for batch in batches:
        yield batch, offset
        offset += len(batch)


def _fold_model(cfg: Config, path: Path, batch: Batch, offset: int, st: _State):
    """One model's part of a batch in pass 1 (its own state only, so models run in threads)."""
    s, y, w = _validated(cfg, st, path, batch, offset)
    st.acc.add(s, y, w)
    return s, y, w


def fold_file(cfg: Config, states: list[_State], path: Path, columns: list[str], rng: np.random.Generator,
              dates: list | None = None, rows: _RowCodes | None = None) -> int:
    """Pass 1 over one file: every batch validated and folded into each model's state; rows read.

    ``dates`` (a list) collects each batch's first and last date when a date column is set;
    ``rows`` keeps each row's codes (labels of the first model, integer scores of each). The
    models of a batch are folded in threads; the codes and the sample (the shared ``rng``)
    are taken here, model by model, as in one thread.
    """
    offset = 0
    for batch in read_columns(path, columns, cfg.stream.batch_rows):
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


def _hashes(paths: list[Path], stop: threading.Event) -> dict[Path, str]:
    return {p: sha256_of(p, stop) for p in paths}


def load_streamed(cfg: Config, progress: Progress | None = None) -> StreamedData:
    """Pass 1 (and 2, 3 where needed) over the files: every model's table, exact or binned.

    The files are hashed for the audit trail in a background thread meanwhile."""
    paths = list(dict.fromkeys(Path(m.file) for m in cfg.models))
    with in_background(functools.partial(_hashes, paths)) as hashes:
        return _load_streamed(cfg, progress, hashes.result)


def _load_streamed(cfg: Config, progress: Progress | None, hashes: Callable[[], dict[Path, str]]) -> StreamedData:
    sc = cfg.stream
    by_file: dict[Path, list[_State]] = {}
    for i, m in enumerate(cfg.models):
        path = Path(m.file)
        have = _columns_in(path)
        _check_columns(cfg, i, m, path, have)
        st = _State(m, _columns_for(cfg, m), S.TableAccumulator(m.direction, sc.max_distinct_scores), [], set())
        by_file.setdefault(path, []).append(st)
    rng = np.random.default_rng(cfg.bootstrap.seed)
    seen_dates: list = []
    read: dict[Path, int] = {}
    total_files = len(by_file)
    rows = _RowCodes() if len(by_file) == 1 and len(cfg.models) > 1 else None
    for k, (path, states) in enumerate(by_file.items()):
        columns = sorted({c for st in states for c in st.cols.values()})
        offset = fold_file(cfg, states, path, columns, rng, seen_dates, rows)
        if offset == 0:
            raise InputError(f"{path}: the file has no rows")
        read[path] = offset
        if progress is not None:
            progress(k + 1, total_files)

    models: list[StreamedModel] = []
    lookups: dict[str, tuple[int, np.ndarray] | None] = {}
    warnings: list[str] = []
    dropped: list[tuple[str, str, int]] = []
    for path, states in by_file.items():
        for st in states:
            m = st.cfg
            for reason, rows in (st.dropped or {}).items():
                dropped.append((m.name, reason, rows))
            if st.rows == 0:
                raise InputError(f"{path}: no rows left for model '{m.name}' after dropping missing values")
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
                    s, y, w = _validated(cfg, _State(m, st.cols, st.acc, [], set(st.labels)), path, batch, offset)
                    if w is not None:
                        return (s, y, w), None
                    return None, acc.bin_rows(s, y)

                batches = _with_offsets(read_columns(path, sorted(set(st.cols.values())), sc.batch_rows))
                for weighted, binned in ordered_map(bin_batch, batches):
                    if binned is None:
                        acc.add(*weighted)
                    else:  # the same table as add(): whole-number counts, a minimum per bin
                        acc.fold_rows(binned)
                        if keep_rows and rows.ok:
                            rows.add_bins(m.name, binned[0])
                table, grouper, binning = binned_result(cfg, m.name, acc, warnings)
            if table.total_pos <= 0:
                raise InputError(f"{path}: column '{st.cols['label']}': no row has the positive label {cfg.positive!r}; set 'positive' in the config")
            if table.total_neg <= 0:
                raise InputError(f"{path}: column '{st.cols['label']}': every row is positive; metrics need both classes")
            models.append(StreamedModel(m.name, str(path), m.direction, m.probabilities, m.threshold, table, binning, grouper))
            if rows is not None and rows.ok:
                rows.base.setdefault(m.name, 0)
                lookups[m.name] = st.acc.row_lookup() if binning is None else (0, acc.row_of_bin())
    order = {m.name: i for i, m in enumerate(cfg.models)}
    models.sort(key=lambda x: order[x.name])
    if rows is not None and rows.ok and not dropped and all(lookups.get(m.name) is not None for m in models):
        paired, note = _paired_in_memory(cfg, models, rows, lookups)
    else:
        if rows is not None:
            rows.drop()
        paired, note = _paired_pass(cfg, models, by_file, dropped)
    dates = (min(seen_dates).date().isoformat(), max(seen_dates).date().isoformat()) if seen_dates else None
    digests = hashes()
    files = tuple(file_info(p, n, digests[p]) for p, n in read.items())
    return StreamedData(tuple(models), files, tuple(dropped), tuple(warnings), paired, note, dates)


def binned_result(cfg: Config, name: str, acc: S.BinnedAccumulator, warnings: list[str]):
    """(table, grouper, BinningInfo) of a binned model; the warning that says so is appended."""
    sc = cfg.stream
    table = acc.table()
    bound = S.binning_auc_bound(table)
    warnings.append(
        f"model '{name}': more than {sc.max_distinct_scores:,} distinct scores, binned into "
        f"{table.n_distinct:,} {sc.binning} bins; its AUC is within ±{bound:.2g} of the exact value "
        f"and its thresholds are bin boundaries that occur in the data"
    )
    return table, acc.grouper(), BinningInfo(sc.binning, table.n_distinct, sc.max_distinct_scores, bound)


def _paired_pass(cfg: Config, models: list[StreamedModel], by_file: dict[Path, list[_State]],
                 dropped: list) -> tuple[S.PairedAccumulator | None, str | None]:
    """Pass 3: DeLong covariances and McNemar tables over aligned rows, when rows align."""
    if len(models) < 2:
        return None, None
    if dropped:
        return None, "Rows were dropped, so the models' rows no longer line up: paired tests are not computed in stream mode"
    if any(m.table.weighted for m in models):
        return None, "Weighted rows: DeLong's and McNemar's paired tests are not computed in stream mode"
    counts = {st.rows for states in by_file.values() for st in states}
    if len(by_file) > 1 and (cfg.id is not None or any(m.id for m in cfg.models) or len(counts) > 1):
        return None, ("The models are in different files joined by id (or of different lengths); stream mode "
                      "pairs rows by position only, so paired tests are not computed — put the scores in one table")
    states = {st.cfg.name: (path, st) for path, sts in by_file.items() for st in sts}
    acc = S.PairedAccumulator(
        [m.table for m in models],
        [m.threshold if m.threshold is not None else cfg.threshold for m in models],
        [m.grouper or S.exact_grouper(m.table) for m in models],
    )
    readers = {p: read_columns(p, sorted({c for st in sts for c in st.cols.values()}), cfg.stream.batch_rows)
               for p, sts in by_file.items()}
    for chunk in _lockstep(readers):
        scores, ys = [], []
        for m in models:
            path, st = states[m.name]
            batch = chunk[path]
            scores.append(batch.numeric(st.cols["score"], path, 0))
            ys.append(batch.matches(st.cols["label"], cfg.positive))
        for m, y in zip(models[1:], ys[1:]):
            if not np.array_equal(y, ys[0]):
                return None, f"The labels of '{m.name}' and '{models[0].name}' differ row by row; paired tests are not computed"
        acc.add(scores, ys[0])
    return acc, None


def _paired_in_memory(cfg: Config, models: list[StreamedModel], rows: _RowCodes,
                      lookups: dict[str, tuple[int, np.ndarray]]) -> tuple[S.PairedAccumulator | None, str | None]:
    """Pass 3 from the codes kept in passes 1 and 2: each chunk's table rows by lookup."""
    if len(models) < 2:
        return None, None
    if any(m.table.weighted for m in models):
        return None, "Weighted rows: DeLong's and McNemar's paired tests are not computed in stream mode"
    acc = S.PairedAccumulator([m.table for m in models], [m.threshold if m.threshold is not None else cfg.threshold for m in models])
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


def _lockstep(readers: dict[Path, Iterator[Batch]]) -> Iterator[dict[Path, Batch]]:
    """Chunks of equal length from several readers of files with the same number of rows."""
    if len(readers) == 1:  # one file: its batches as they come
        (p, it), = readers.items()
        for batch in it:
            yield {p: batch}
        return
    buffers: dict[Path, Batch | None] = {p: None for p in readers}
    while True:
        for p, it in readers.items():
            if buffers[p] is None or len(buffers[p]) == 0:
                buffers[p] = next(it, None)
        if any(b is None for b in buffers.values()):
            return
        n = min(len(b) for b in buffers.values())  # type: ignore[arg-type]
        yield {p: b.slice(0, n) for p, b in buffers.items()}  # type: ignore[union-attr]
        for p in buffers:
            buffers[p] = buffers[p].slice(n)  # type: ignore[union-attr]
