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
   join on) and nothing was dropped: all files in lockstep, for DeLong's covariance and
   McNemar's tables (placement values looked up in the tables by score).
"""

from __future__ import annotations

from collections.abc import Callable, Iterator
from dataclasses import dataclass
from pathlib import Path

import numpy as np
import pandas as pd

from reportgen.config import Config, ModelConfig
from reportgen.engine import streaming as S
from reportgen.engine.curve import ScoreTable
from reportgen.errors import InputError
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


def read_batches(path: Path, columns: list[str], batch_rows: int) -> Iterator[pd.DataFrame]:
    """The file's ``columns`` in record batches of about ``batch_rows`` rows, as small frames."""
    import pyarrow as pa  # noqa: PLC0415
    import pyarrow.csv as pacsv  # noqa: PLC0415

    try:
        if _is_parquet(path):
            for rb in _parquet_dataset(path).to_batches(columns=columns, batch_size=batch_rows):
                if rb.num_rows:
                    yield rb.to_pandas()
            return
        block = max(1 << 20, min(1 << 28, batch_rows * 16 * max(1, len(columns))))
        reader = pacsv.open_csv(
            str(path),
            read_options=pacsv.ReadOptions(block_size=block),
            convert_options=pacsv.ConvertOptions(include_columns=columns),
        )
        for rb in reader:
            if rb.num_rows:
                yield rb.to_pandas()
    except (pa.ArrowException, OSError, ValueError) as exc:
        raise InputError(f"{path}: cannot read ({_first_line(exc)})") from None


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


def _validated(cfg: Config, st: _State, path: Path, df: pd.DataFrame, offset: int):
    """(scores, is_positive, weights) of the batch's valid rows; errors name the global row."""
    cols = st.cols
    scores = _numeric(df[cols["score"]], path, cols["score"], offset)
    weights = _numeric(df[cols["weight"]], path, cols["weight"], offset) if "weight" in cols else None
    label = df[cols["label"]]
    label_bad = label.isna().to_numpy()
    checks = [(f"missing or non-finite score in '{cols['score']}'", ~np.isfinite(scores)),
              (f"missing or non-finite label in '{cols['label']}'", label_bad)]
    if weights is not None:
        checks.append((f"missing or non-finite weight in '{cols['weight']}'", ~np.isfinite(weights)))
    keep = np.ones(len(df), dtype=bool)
    for reason, bad in checks:
        if bad.any():
            if cfg.missing != "drop":
                i = int(np.flatnonzero(bad)[0])
                raise InputError(
                    f"{path}: row {offset + i + 2}: {reason}; fix the data or set 'missing: drop' to drop such rows (counted in the report)"
                )
            st.dropped = st.dropped or {}
            st.dropped[reason] = st.dropped.get(reason, 0) + int((bad & keep).sum())
            keep &= ~bad
    if weights is not None and (weights[keep] < 0).any():
        i = int(np.flatnonzero((weights < 0) & keep)[0])
        raise InputError(f"{path}: column '{cols['weight']}', row {offset + i + 2}: negative weight {weights[i]:g}; weights must be >= 0")
    lab = label[keep]
    st.labels.update(pd.unique(lab).tolist())
    if len(st.labels) > 2:
        shown = ", ".join(_show(v) for v in sorted(st.labels, key=str)[:6])
        raise InputError(
            f"{path}: column '{cols['label']}' has more than 2 distinct labels ({shown}) by row {offset + len(df) + 1}; "
            f"task: binary needs two"
        )
    return scores[keep], _label_matches(lab, cfg.positive), None if weights is None else weights[keep]


def fold_file(cfg: Config, states: list[_State], path: Path, columns: list[str], rng: np.random.Generator,
              dates: list | None = None) -> int:
    """Pass 1 over one file: every batch validated and folded into each model's state; rows read.

    ``dates`` (a list) collects each batch's first and last date when a date column is set.
    """
    offset = 0
    for df in read_batches(path, columns, cfg.stream.batch_rows):
        if cfg.date and dates is not None:
            d = dates_of(df[cfg.date], path, cfg.date, offset)
            if d.notna().any():
                dates += [d.min(), d.max()]
        for st in states:
            s, y, w = _validated(cfg, st, path, df, offset)
            st.acc.add(s, y, w)
            st.rows += s.shape[0]
            take = min(cfg.stream.sample_per_batch, s.shape[0])
            if take:
                st.sample.append(S.oriented(s[rng.choice(s.shape[0], take, replace=False)], st.cfg.direction))
        offset += len(df)
    return offset


def load_streamed(cfg: Config, progress: Progress | None = None) -> StreamedData:
    """Pass 1 (and 2, 3 where needed) over the files: every model's table, exact or binned."""
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
    files: list[FileInfo] = []
    total_files = len(by_file)
    for k, (path, states) in enumerate(by_file.items()):
        columns = sorted({c for st in states for c in st.cols.values()})
        offset = fold_file(cfg, states, path, columns, rng, seen_dates)
        if offset == 0:
            raise InputError(f"{path}: the file has no rows")
        files.append(file_info(path, offset))
        if progress is not None:
            progress(k + 1, total_files)

    models: list[StreamedModel] = []
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
                offset = 0
                for df in read_batches(path, sorted(set(st.cols.values())), sc.batch_rows):
                    s, y, w = _validated(cfg, _State(m, st.cols, st.acc, [], set(st.labels)), path, df, offset)
                    acc.add(s, y, w)
                    offset += len(df)
                table, grouper, binning = binned_result(cfg, m.name, acc, warnings)
            if table.total_pos <= 0:
                raise InputError(f"{path}: column '{st.cols['label']}': no row has the positive label {cfg.positive!r}; set 'positive' in the config")
            if table.total_neg <= 0:
                raise InputError(f"{path}: column '{st.cols['label']}': every row is positive; metrics need both classes")
            models.append(StreamedModel(m.name, str(path), m.direction, m.probabilities, m.threshold, table, binning, grouper))
    order = {m.name: i for i, m in enumerate(cfg.models)}
    models.sort(key=lambda x: order[x.name])
    paired, note = _paired_pass(cfg, models, by_file, dropped)
    dates = (min(seen_dates).date().isoformat(), max(seen_dates).date().isoformat()) if seen_dates else None
    return StreamedData(tuple(models), tuple(files), tuple(dropped), tuple(warnings), paired, note, dates)


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
        return None, "rows were dropped, so the models' rows no longer line up: paired tests are not computed in stream mode"
    if any(m.table.weighted for m in models):
        return None, "weighted rows: DeLong's and McNemar's paired tests are not computed in stream mode"
    counts = {st.rows for states in by_file.values() for st in states}
    if len(by_file) > 1 and (cfg.id is not None or any(m.id for m in cfg.models) or len(counts) > 1):
        return None, ("the models are in different files joined by id (or of different lengths); stream mode "
                      "pairs rows by position only, so paired tests are not computed — put the scores in one table")
    states = {st.cfg.name: (path, st) for path, sts in by_file.items() for st in sts}
    acc = S.PairedAccumulator(
        [m.table for m in models],
        [m.threshold if m.threshold is not None else cfg.threshold for m in models],
        [m.grouper or S.exact_grouper(m.table) for m in models],
    )
    readers = {p: read_batches(p, sorted({c for st in sts for c in st.cols.values()}), cfg.stream.batch_rows)
               for p, sts in by_file.items()}
    for chunk in _lockstep(readers):
        scores, ys = [], []
        for m in models:
            path, st = states[m.name]
            df = chunk[path]
            scores.append(df[st.cols["score"]].to_numpy(dtype=np.float64))
            ys.append(_label_matches(df[st.cols["label"]], cfg.positive))
        for m, y in zip(models[1:], ys[1:]):
            if not np.array_equal(y, ys[0]):
                return None, f"the labels of '{m.name}' and '{models[0].name}' differ row by row; paired tests are not computed"
        acc.add(scores, ys[0])
    return acc, None


def _lockstep(readers: dict[Path, Iterator[pd.DataFrame]]) -> Iterator[dict[Path, pd.DataFrame]]:
    """Chunks of equal length from several readers of files with the same number of rows."""
    buffers: dict[Path, pd.DataFrame | None] = {p: None for p in readers}
    while True:
        for p, it in readers.items():
            if buffers[p] is None or len(buffers[p]) == 0:
                buffers[p] = next(it, None)
        if any(b is None for b in buffers.values()):
            return
        n = min(len(b) for b in buffers.values())  # type: ignore[arg-type]
        yield {p: b.iloc[:n] for p, b in buffers.items()}  # type: ignore[union-attr]
        for p in buffers:
            buffers[p] = buffers[p].iloc[n:]  # type: ignore[union-attr]
