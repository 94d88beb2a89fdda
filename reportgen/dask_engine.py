"""``engine: dask``: score tables built on a Dask cluster, identical to the in-memory engine.

The work is a map and a tree reduce, nothing else: each task reads one Parquet part (or one CSV
file), validates it like every other path and reduces it to one exact score table per model,
with a small seeded sample of the scores; tables are merged pairwise up a tree (fan-in
:data:`FAN_IN`) on the workers, so the client receives one table per model — its size is the
number of distinct scores (or bins), never the number of rows. Merging exact tables is exact,
so without binning the result equals the in-memory one.

When a model has more distinct scores than ``stream.max_distinct_scores``, the reduce reports
an overflow instead of growing, and a second map/reduce bins that model's scores with edges
from the pooled sample. When every model is in one dataset, a third map/reduce sums DeLong's
cross-moments and McNemar's tables per part (rows of one part line up across models).

``task: multiclass`` maps and reduces the same way (:mod:`reportgen.dask_multiclass`), with
confusion matrices and class tables in place of score tables.

Without ``--scheduler`` (or ``scheduler:`` in the config) a ``LocalCluster`` of worker
processes is started and closed by reportgen. Dask is an optional extra:
``pip install 'reportgen[dask]'``.
"""

from __future__ import annotations

import logging
import os
import warnings
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

import numpy as np

from reportgen.config import Config
from reportgen.reduce import accumulators as S
from reportgen.engine.curve import ScoreTable, merge_tables
from reportgen.errors import UserError
from reportgen.io import validate as V
from reportgen.io.align import (
    NOTE_LENGTHS,
    Join,
    Keyed,
    check_rows_left,
    common_rows,
    concat_ids,
    join_ids,
)
from reportgen.io.pairs import PAIRED_CHUNK, place, split_ranges
from reportgen.io.files import Digests, check_parts, columns_in, file_info, hashing, no_rows, parts_of
from reportgen.io.validate import check_columns, columns_for
from reportgen.sources_stream import (
    PAIR_RECORD,
    Progress,
    StreamedData,
    StreamedModel,
    binned_result,
    column_types,
    fold_file,
    keyed,
    kept_rows,
    new_state,
    pair_range,
    pair_records,
    read_columns,
    validated,
)

#: Partial results merged per reduce task.
FAN_IN = 8

INSTALL_HINT = "engine: dask needs Dask: pip install 'reportgen[dask]' (or use engine: stream on one machine)"


@dataclass(slots=True)
class Part:
    """What one part (or a reduce node) knows, per model name."""

    tables: dict[str, ScoreTable | None] = field(default_factory=dict)  # None: no rows (yet)
    overflow: dict[str, bool] = field(default_factory=dict)  # past the distinct-score cap
    samples: dict[str, np.ndarray] = field(default_factory=dict)
    labels: dict[str, set] = field(default_factory=dict)
    dropped: dict[tuple[str, str], int] = field(default_factory=dict)
    rows: dict[str, int] = field(default_factory=dict)
    dates: list = field(default_factory=list)  # first and last date seen (when a date column is set)
    keyed: dict[str, Keyed] = field(default_factory=dict)  # with an id column: the kept rows for the join
    digests: dict[str, str] = field(default_factory=dict)  # SHA-256 of each file read, as parsed (io.files.Digests)
    gone: dict[str, np.ndarray] = field(default_factory=dict)  # missing: drop — positions of dropped rows
    reads: list[int] = field(default_factory=list)  # rows read per part, in order (positions: their sum before)


def _map_part(cfg: Config, part: str, names: list[str], index: int, indexes: dict[str, np.ndarray] | None = None) -> Part:
    """One part → exact tables (or overflow), a seeded sample, the labels and the kept ids, per model.

    ``indexes`` (a second mapping): each model's common index per row of this part (keep ``>= 0``)."""
    states = {}
    for m in cfg.models:
        if m.name in names:
            states[m.name] = new_state(cfg, m, None if indexes is None else indexes[m.name], indexes is None)
    columns = sorted({c for st in states.values() for c in st.cols.values()})
    rng = np.random.default_rng([cfg.bootstrap.seed, index])
    dates: list = []
    with hashing() as digests:
        read = fold_file(cfg, list(states.values()), Path(part), columns, rng, dates)
    out = Part(dates=[min(dates), max(dates)] if dates else [], digests=digests.files, reads=[read])
    for name, st in states.items():
        out.tables[name] = st.acc.table()
        out.overflow[name] = st.acc.overflowed
        out.samples[name] = np.concatenate(st.sample) if st.sample else np.empty(0)
        out.labels[name] = st.labels
        out.rows[name] = st.rows
        for reason, rows in (st.dropped or {}).items():
            out.dropped[(name, reason)] = rows
        if st.ids is not None:
            out.keyed[name] = keyed(Path(part), st)
        if st.gone is not None:
            out.gone[name] = np.concatenate(st.gone) if st.gone else np.empty(0, dtype=np.int64)
    return out


def _reduce_parts(cap: int, sample_cap: int, *parts: Part) -> Part:
    """Merge partial results: tables added at equal scores (overflow when past ``cap``); row
    positions shifted by the rows read before each part (positions in the whole dataset)."""
    out = Part()
    for name in parts[0].tables:
        tabs = [p.tables[name] for p in parts if p.tables[name] is not None]
        over = any(p.overflow[name] for p in parts)
        merged = merge_tables(*tabs) if tabs and not over else None
        out.overflow[name] = over or (merged is not None and merged.n_distinct > cap)
        out.tables[name] = None if out.overflow[name] else merged
        sample = np.concatenate([p.samples[name] for p in parts])
        if sample.shape[0] > sample_cap:
            sample = np.sort(sample)[np.linspace(0, sample.shape[0] - 1, sample_cap).astype(np.int64)]
        out.samples[name] = sample
        out.labels[name] = set().union(*(p.labels[name] for p in parts))
        out.rows[name] = sum(p.rows[name] for p in parts)
    seen = [d for p in parts for d in p.dates]
    out.dates = [min(seen), max(seen)] if seen else []
    out.reads = [r for p in parts for r in p.reads]
    before = np.cumsum([0] + [sum(p.reads) for p in parts[:-1]])
    for name, k in parts[0].keyed.items():
        ks = [p.keyed[name] for p in parts]
        lost = None if k.lost is None else concat_ids([x.lost for x in ks])
        out.keyed[name] = Keyed(k.name, k.file, k.id_column, concat_ids([x.ids for x in ks]),
                                np.concatenate([x.rows + b for x, b in zip(ks, before)]),
                                np.concatenate([x.truth for x in ks]), lost)
    for name in parts[0].gone:
        out.gone[name] = np.concatenate([p.gone[name] + b for p, b in zip(parts, before)])
    for p in parts:
        for k, v in p.dropped.items():
            out.dropped[k] = out.dropped.get(k, 0) + v
    digests = Digests()
    for p in parts:
        digests.merge(p.digests)
    out.digests = digests.files
    return out


def _map_binned(cfg: Config, part: str, name: str, edges: np.ndarray, index: np.ndarray | None = None) -> S.BinnedAccumulator:
    m = next(x for x in cfg.models if x.name == name)
    st = new_state(cfg, m, index, collect=False)
    acc = S.BinnedAccumulator(edges, m.direction)
    offset = 0
    for batch in read_columns(Path(part), sorted(set(st.cols.values())), cfg.stream.batch_rows, *column_types(cfg, [m])):
        s, y, w = validated(cfg, st, Path(part), batch, offset)
        acc.add(s, y, w)
        offset += len(batch)
    return acc


def _reduce_binned(*parts: S.BinnedAccumulator) -> S.BinnedAccumulator:
    return S.merge_binned(list(parts))


def _map_paired(cfg: Config, part: str, shared: tuple[list[ScoreTable], list[Any]],
                indexes: dict[str, np.ndarray] | None) -> S.PairedAccumulator | S.AgreementAccumulator:
    """One part of a dataset holding every model: its kept rows line up across the models."""
    tables, groupers = shared
    acc = S.PairedAccumulator(tables, [m.threshold if m.threshold is not None else cfg.threshold for m in cfg.models], groupers,
                              approval_rates=tuple(cfg.approval_rates))
    agree = S.AgreementAccumulator(len(tables)) if any(t.weighted for t in tables) else None
    states = [new_state(cfg, m, None if indexes is None else indexes[m.name], collect=False) for m in cfg.models]
    columns = sorted({c for st in states for c in st.cols.values()})
    cuts = [t.cut_index(c) for t, c in zip(tables, acc.cuts)]
    names, files = [m.name for m in cfg.models], [m.file for m in cfg.models]
    offset = 0
    for batch in read_columns(Path(part), columns, cfg.stream.batch_rows, *column_types(cfg, list(cfg.models))):
        recs = []
        for st, g in zip(states, groupers):
            s, y, w, keep = kept_rows(cfg, st, Path(part), batch, offset)
            recs.append(pair_records(g(s), y, w, offset + (np.arange(len(batch)) if keep is None else np.flatnonzero(keep))))
        pair_range(names, files, recs, cuts, acc, agree)
        offset += len(batch)
    return acc if agree is None else agree


def _map_records(cfg: Config, part: str, index: np.ndarray, start: int, ranges: int, name: str, grouper: Any) -> list[np.ndarray]:
    """One part of one model's dataset → its compared rows as records (fields ``at``, ``value``),
    split by range of common indices (:data:`reportgen.io.pairs.PAIRED_CHUNK`)."""
    m = next(x for x in cfg.models if x.name == name)
    st = new_state(cfg, m, index, collect=False)
    kind = np.dtype([("at", np.int64), ("value", PAIR_RECORD)])
    pieces, offset = [], 0
    for batch in read_columns(Path(part), sorted(set(st.cols.values())), cfg.stream.batch_rows, *column_types(cfg, [m])):
        s, y, w, keep = kept_rows(cfg, st, Path(part), batch, offset)
        pos = offset + (np.arange(len(batch)) if keep is None else np.flatnonzero(keep))
        rec = np.empty(s.shape[0], dtype=kind)
        rec["at"], rec["value"] = index[pos], pair_records(grouper(s), y, w, pos + start)
        pieces.append(rec)
        offset += len(batch)
    return split_ranges(np.concatenate(pieces) if pieces else np.empty(0, dtype=kind), ranges)


def _pair_range(cfg: Config, shared: tuple[list[ScoreTable], list[Any]], files: list[str], lo: int, hi: int,
                *pieces: list[np.ndarray]) -> S.PairedAccumulator | S.AgreementAccumulator:
    """Common rows lo..hi−1 of every model (``pieces``: per model, its parts' records of the range)
    side by side, added to a paired accumulator (weighted rows: McNemar's tables)."""
    tables, _groupers = shared
    acc = S.PairedAccumulator(tables, [m.threshold if m.threshold is not None else cfg.threshold for m in cfg.models],
                              approval_rates=tuple(cfg.approval_rates))
    agree = S.AgreementAccumulator(len(tables)) if any(t.weighted for t in tables) else None
    recs = [place(np.concatenate(p), lo, hi) for p in pieces]
    cuts = [t.cut_index(c) for t, c in zip(tables, acc.cuts)]
    pair_range([m.name for m in cfg.models], files, recs, cuts, acc, agree)
    return acc if agree is None else agree


def _reduce_paired(*parts: S.PairedAccumulator | S.AgreementAccumulator) -> S.PairedAccumulator | S.AgreementAccumulator:
    out = parts[0]
    for p in parts[1:]:
        out.merge(p)
    return out


def tree_reduce(delayed: Any, fn: Any, items: list[Any], *args: Any) -> Any:
    """Reduce ``items`` with ``fn(*args, *group)`` in groups of :data:`FAN_IN` until one is left."""
    while len(items) > 1:
        items = [delayed(fn)(*args, *items[i:i + FAN_IN]) for i in range(0, len(items), FAN_IN)]
    return items[0]


def client_for(cfg: Config) -> tuple[Any, Any]:
    try:
        from dask.distributed import Client, LocalCluster  # noqa: PLC0415
    except ImportError:
        raise UserError(INSTALL_HINT) from None
    if cfg.scheduler:
        try:
            return Client(cfg.scheduler, timeout="20s"), None
        except OSError as exc:
            raise UserError(f"{cfg.where('scheduler')}: cannot reach the Dask scheduler {cfg.scheduler} ({exc}); "
                            f"check the address, or leave 'scheduler' out to start a local cluster") from None
    workers = max(1, min(4, os.cpu_count() or 1))
    # the cluster is ours: its workers' logs of a failed task ("Compute Failed" and a traceback, for
    # what is a one-line user error here) stay out of the user's stderr, and so does the scheduler's
    # note that its HTTP port (8787) was taken by another cluster and it chose another
    with warnings.catch_warnings():
        warnings.filterwarnings("ignore", message=r"Port \d+ is already in use", category=UserWarning)
        cluster = LocalCluster(n_workers=workers, threads_per_worker=1, processes=True, dashboard_address=None,
                               silence_logs=logging.CRITICAL)
    return Client(cluster), cluster


def import_dask() -> Any:
    """The ``dask`` module, or a one-line error saying how to install it."""
    try:
        import dask  # noqa: PLC0415
    except ImportError:
        raise UserError(INSTALL_HINT) from None
    return dask


def _first_map(cfg: Config, dask: Any, by_file: dict[Path, list[str]], parts_of_file: dict[Path, list[str]],
               slices: dict[Path, list[dict[str, np.ndarray]]] | None = None) -> dict[Path, Part]:
    """Map every part, reduce per dataset: each dataset's merged :class:`Part` (``slices``: per
    dataset and part, each model's common index per row: keep only the rows every model keeps)."""
    delayed = dask.delayed
    graphs = []
    for path, names in by_file.items():
        mapped = [delayed(_map_part)(cfg, part, names, k, None if slices is None else slices[path][k])
                  for k, part in enumerate(parts_of_file[path])]
        graphs.append(tree_reduce(delayed, _reduce_parts, mapped, cfg.stream.max_distinct_scores, 200_000))
    return dict(zip(by_file, dask.compute(*graphs)))


def _join(cfg: Config, results: dict[Path, Part]) -> Join | None:
    """The id join of every model's kept rows (None without an id column); errors as in memory."""
    found = [(Path(m.file), m.name) for m in cfg.models]
    if any(name not in results[path].keyed for path, name in found):
        return None
    models = []
    for path, name in found:
        k = results[path].keyed[name]
        if results[path].rows[name] == 0:
            raise V.no_rows_left(path, name)
        models.append(Keyed(k.name, str(path), k.id_column, k.ids, k.rows, k.truth, k.lost))
    return join_ids(cfg, models)


def _common_rows(cfg: Config, results: dict[Path, Part], join: Join | None, always: bool
                 ) -> tuple[dict[str, np.ndarray] | None, list[tuple[str, str, int]]]:
    """:func:`reportgen.io.align.common_rows` of the datasets' merged parts."""
    found = [(Path(m.file), m.name) for m in cfg.models]
    return common_rows([n for _p, n in found], [sum(results[p].reads) for p, _n in found], join,
                       [results[p].keyed[n].rows if n in results[p].keyed else None for p, n in found],
                       [results[p].gone.get(n) for p, n in found], always)


def part_slices(reads: dict[Path, list[int]], names: dict[Path, list[str]], indexes: dict[str, np.ndarray]
                ) -> dict[Path, list[dict[str, np.ndarray]]]:
    """Each dataset's parts' share of every model's common index per row (``reads``: rows per part)."""
    out = {}
    for path, models in names.items():
        starts = np.cumsum([0] + reads[path])
        out[path] = [{n: indexes[n][lo:hi] for n in models} for lo, hi in zip(starts[:-1], starts[1:])]
    return out


def by_range(delayed: Any, cfg: Config, mapper: Any, combine: Any, models: list[tuple[Path, str, tuple]],
             parts_of_file: dict[Path, list[str]], slices: dict[Path, list[dict[str, np.ndarray]]],
             reads: dict[Path, list[int]], n: int, *args: Any) -> list[Any]:
    """The shuffle that pairs separate datasets: every part of each model's dataset is mapped to
    its compared rows split by range of common indices (``mapper(cfg, part, index, start,
    ranges, *extra)`` for ``models``' (dataset, name, extra)), and one task per range gets every
    model's share of it: ``combine(*args, lo, hi, *per-model lists of pieces)``."""
    ranges = -(-n // PAIRED_CHUNK)
    pieces = []
    for path, name, extra in models:
        starts = np.cumsum([0] + reads[path])
        pieces.append([delayed(mapper, nout=ranges)(cfg, part, slices[path][k][name], int(starts[k]), ranges, *extra)
                       for k, part in enumerate(parts_of_file[path])])
    return [delayed(combine)(*args, r * PAIRED_CHUNK, min((r + 1) * PAIRED_CHUNK, n), *[[mp[r] for mp in mapped] for mapped in pieces])
            for r in range(ranges)]


def load_dask(cfg: Config, progress: Progress | None = None) -> StreamedData:
    """Every model's table computed on a Dask cluster (map over parts, tree reduce).

    With an id column the models' rows are joined as in memory (the kept ids come back from the
    parts); when some model keeps rows another does not (ids not shared, rows dropped), the
    parts are mapped again keeping the rows every model keeps. Separate datasets are paired by
    the common index of each row: each part's compared rows go to the range of common indices
    they belong to, and each range is put side by side on a worker (a shuffle by range). Each part is hashed by the
    worker that parses it."""
    with hashing() as digests:
        return _load_dask(cfg, progress, digests)


def _load_dask(cfg: Config, progress: Progress | None, digests: Digests) -> StreamedData:
    dask = import_dask()
    delayed = dask.delayed
    sc = cfg.stream
    by_file: dict[Path, list[str]] = {}
    for i, m in enumerate(cfg.models):
        path = Path(m.file)
        check_columns(cfg, i, m, path, columns_in(path))
        by_file.setdefault(path, []).append(m.name)
    for path in by_file:
        check_parts(path, {c for m in cfg.models if Path(m.file) == path for c in columns_for(cfg, m).values()})
    client, cluster = client_for(cfg)
    try:
        parts_of_file = {p: parts_of(p) for p in by_file}
        results = _first_map(cfg, dask, by_file, parts_of_file)
        for path, part in results.items():
            if sum(part.reads) == 0:
                raise no_rows(path)
            digests.merge(part.digests)
        reads = {p: sum(r.reads) for p, r in results.items()}
        join = _join(cfg, results)
        indexes, left_out = _common_rows(cfg, results, join, len(by_file) > 1)
        reads_of = {p: r.reads for p, r in results.items()}
        slices = None if indexes is None else part_slices(reads_of, by_file, indexes)
        if left_out:
            results = _first_map(cfg, dask, by_file, parts_of_file, slices)
            for again in results.values():  # the same bytes again, or the run stops (Digests.add)
                digests.merge(again.digests)
            first = results[Path(cfg.models[0].file)]
            if join is None:
                check_rows_left(cfg.models[0].file, first.rows[cfg.models[0].name], first.labels[cfg.models[0].name],
                                V.label_key(cfg.positive), [m.name for m in cfg.models])
        files = [file_info(path, reads[path]) for path in by_file]
        if progress is not None:
            progress(1, 2)
        models, warnings, dropped = [], list(join.warnings) if join is not None else [], []
        for m in cfg.models:
            path = Path(m.file)
            part = results[path]
            label = columns_for(cfg, m)["label"]
            for (name, reason), rows in part.dropped.items():
                if name == m.name:
                    dropped.append((name, reason, rows))
            if part.rows[m.name] == 0:
                raise V.no_rows_left(path, m.name)
            V.check_two_labels(path, label, part.labels[m.name])
            table, binning, grouper = part.tables[m.name], None, None
            if part.overflow[m.name]:
                edges = S.bin_edges(part.samples[m.name], sc.bins, sc.binning)
                shared_edges = delayed(edges, pure=True)
                mapped = [delayed(_map_binned)(cfg, p, m.name, shared_edges, None if slices is None or not left_out
                                               else slices[path][k][m.name])
                          for k, p in enumerate(parts_of_file[path])]
                acc = tree_reduce(delayed, _reduce_binned, mapped).compute()
                table, grouper, binning = binned_result(cfg, m.name, acc, warnings)
            V.check_both_classes(cfg, path, label, part.labels[m.name], table.total_pos, table.total_neg,
                                 columns_for(cfg, m).get("weight"))
            models.append(StreamedModel(m.name, str(path), m.direction, m.probabilities, m.threshold, table, binning, grouper))
        dropped.extend(left_out)
        paired, note = None, None
        if len(models) > 1:
            tables = [x.table for x in models]
            groupers = [x.grouper or S.exact_grouper(x.table) for x in models]
            shared = delayed((tables, groupers), pure=True)  # one graph node, sent to each worker once
            if len(by_file) == 1:
                path = next(iter(by_file))
                mapped = [delayed(_map_paired)(cfg, p, shared, None if not left_out else slices[path][k])
                          for k, p in enumerate(parts_of_file[path])]
                paired = tree_reduce(delayed, _reduce_paired, mapped).compute()
            elif indexes is None:
                note = NOTE_LENGTHS
            else:
                n = int(models[0].table.total_pos + models[0].table.total_neg)
                accs = by_range(delayed, cfg, _map_records, _pair_range,
                                [(Path(x.file), x.name, (x.name, g)) for x, g in zip(cfg.models, groupers)],
                                parts_of_file, slices, reads_of, n, cfg, shared, [x.file for x in cfg.models])
                paired = tree_reduce(delayed, _reduce_paired, accs).compute()
        if progress is not None:
            progress(2, 2)
        seen = [d for part in results.values() for d in part.dates]
        dates = (min(seen).date().isoformat(), max(seen).date().isoformat()) if seen else None
        return StreamedData(tuple(models), tuple(files), tuple(dropped), tuple(warnings), paired, note, dates)
    finally:
        client.close()
        if cluster is not None:
            cluster.close()
