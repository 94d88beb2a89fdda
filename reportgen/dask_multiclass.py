"""``engine: dask`` for ``task: multiclass``: confusion matrices and class tables built on a Dask cluster.

The map and tree reduce of :mod:`reportgen.dask_engine`, with the counts of
:mod:`reportgen.sources_stream_multiclass`: each task reads one Parquet part (or the CSV file)
in record batches and folds it with the stream path's per-batch function, so validation and
errors are the same (the part's file, the column, and the row within the part); the result is
each model's k×k confusion matrix and class tables (per score column and true class, the
distinct scores with counts). Partial results are merged pairwise up a tree (fan-in
:data:`reportgen.dask_engine.FAN_IN`) on the workers, so the client receives one object per
model whose size is the number of classes and distinct scores, never rows; then
:func:`reportgen.engine.compare_multiclass.compare_counts` as with ``engine: stream``. Merging
adds counts (tables at equal scores), so with unit weights the result equals the in-memory one.

The class list. With ``classes`` configured every part indexes classes in that order. Without,
each part numbers the classes it meets in its own order of first appearance (starting from the
keys of score mappings, as the stream path does) and carries that key list; a merge takes the
union of the keys (the first part's order, then new keys) and remaps the other parts' confusion
matrix rows (true class), its columns when they are predicted classes, and the class of every
class-table cell. At the end the union is sorted and the counts permuted once, as in the stream
path. This needs no label pre-scan, and a class that occurs in one part only is simply a key
the other parts lack. The cap ``stream.max_distinct_scores`` on a score column's table entries
is checked in every part and after every merge (multiclass tables are not binned).

McNemar's tables: when every model is in one dataset and nothing was dropped, a second
map/reduce counts each comparison's 2×2 table per part (the rows of one part line up across
models, as in the binary Dask path) and adds them. Models in different datasets are not
paired (a note says so).
"""

from __future__ import annotations

import dataclasses
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

import numpy as np

from reportgen.config import Config
from reportgen.dask_engine import by_range, client_for, import_dask, part_slices, tree_reduce
from reportgen.io.align import NOTE_LENGTHS, check_rows_left
from reportgen.io.pairs import place, split_ranges
from reportgen.io.files import Digests, FileInfo, file_info, hashing, no_rows, parts_of
from reportgen.sources_stream import Progress, read_batches
from reportgen.sources_stream_multiclass import (
    ClassIds,
    ModelCounts,
    StreamedMulticlass,
    column_types,
    combine,
    conclude,
    fold_file,
    fresh,
    MCNEMAR_RECORD,
    common_rows,
    join_models,
    mcnemar_columns,
    mcnemar_range,
    mcnemar_records,
    merge_pending,
    plan,
)


@dataclass(slots=True)
class PartCounts:
    """One part's (or a reduce node's) counts: class ids are positions in ``keys``."""

    keys: list[str]  # class id → class key, in this part's order of first appearance
    models: list[ModelCounts]  # the dataset's models, in config order
    rows: int  # rows read (before dropping)
    dates: list  # first and last date seen (when a date column is set)
    digests: dict[str, str] = field(default_factory=dict)  # SHA-256 of each file read, as parsed (io.files.Digests)
    reads: list[int] = field(default_factory=list)  # rows read per part, in order


def _map_part(cfg: Config, part: str, templates: list[ModelCounts], ids: ClassIds,
              slices: dict[str, np.ndarray] | None = None) -> PartCounts:
    """One part → each model's confusion matrix and class tables, classes in the part's own ids
    (``slices``: each model's common index per row of the part; keep the rows ``>= 0``)."""
    ids = ids.copy()  # every task starts from the same ids and learns its own
    states = [fresh(st, Path(part), None if slices is None else slices[st.cfg.name], slices is None)
              for st in templates]  # errors name the part
    dates: list = []
    with hashing() as digests:
        rows = fold_file(cfg, states, ids, Path(part), dates)
    for st, template in zip(states, templates):
        merge_pending(st, cfg.stream.max_distinct_scores)
        st.path = template.path  # from here on the dataset is named (cap errors after merges, results, the join)
    return PartCounts(list(ids.index), states, rows, [min(dates), max(dates)] if dates else [],
                      digests=digests.files, reads=[rows])


def _shifted(st: ModelCounts, before: int) -> ModelCounts:
    """The state with its row positions moved by the rows read before its part (dataset positions)."""
    if not before:
        return st
    return dataclasses.replace(st, id_rows=None if st.id_rows is None else [r + before for r in st.id_rows],
                               gone=None if st.gone is None else [g + before for g in st.gone])


def _unite(parts: tuple[PartCounts, ...]) -> tuple[list[str], list[np.ndarray]]:
    """The union of the parts' class keys (the first part's order, then new keys as met) and,
    per part, its class ids → ids in the union."""
    keys = list(parts[0].keys)
    where = {c: j for j, c in enumerate(keys)}
    for p in parts[1:]:
        for c in p.keys:
            if c not in where:
                where[c] = len(keys)
                keys.append(c)
    return keys, [np.array([where[c] for c in p.keys], dtype=np.int64) for p in parts]


def _reduce_parts(cap: int, *parts: PartCounts) -> PartCounts:
    """Merge partial counts of one dataset: class keys united, each part's ids remapped, counts added."""
    keys, to_ids = _unite(parts)
    before = np.cumsum([0] + [p.rows for p in parts[:-1]])
    models = [combine([_shifted(p.models[m], int(b)) for p, b in zip(parts, before)], to_ids, len(keys), cap)
              for m in range(len(parts[0].models))]
    seen = [d for p in parts for d in p.dates]
    digests = Digests()
    for p in parts:
        digests.merge(p.digests)
    return PartCounts(keys, models, sum(p.rows for p in parts), [min(seen), max(seen)] if seen else [],
                      digests=digests.files, reads=[r for p in parts for r in p.reads])


def _map_mcnemar(cfg: Config, part: str, states: list[ModelCounts], classes: list[str],
                 slices: dict[str, np.ndarray] | None) -> tuple[dict[str, np.ndarray] | None, str | None]:
    """McNemar's 2×2 tables of one part of the one dataset: its compared rows line up across the
    models (or the note why they cannot be paired)."""
    states = [fresh(st, Path(part), None if slices is None else slices[st.cfg.name], collect=False) for st in states]
    index = {c: j for j, c in enumerate(classes)}
    ids = ClassIds(list(classes))
    names = [st.cfg.name for st in states]
    tables = {n: np.zeros((2, 2)) for n in names if n != cfg.baseline_name}
    offset = 0
    for df in read_batches(Path(part), mcnemar_columns(states), cfg.stream.batch_rows, *column_types(states)):
        recs = [mcnemar_records(cfg, st, ids, df, offset, index)[1] for st in states]
        note = mcnemar_range(names, [str(st.path) for st in states], cfg.baseline_name, recs, tables)
        if note is not None:
            return None, note
        offset += len(df)
    return tables, None


def _map_records(cfg: Config, part: str, index: np.ndarray, start: int, ranges: int, template: ModelCounts,
                 classes: list[str]) -> list[np.ndarray]:
    """One part of one model's dataset → its compared rows as records (fields ``at``, ``value``),
    split by range of common indices (:data:`reportgen.io.pairs.PAIRED_CHUNK`)."""
    st = fresh(template, Path(part), index, collect=False)
    at_index = {c: j for j, c in enumerate(classes)}
    ids = ClassIds(list(classes))
    kind = np.dtype([("at", np.int64), ("value", MCNEMAR_RECORD)])
    pieces, offset = [], 0
    for df in read_batches(Path(part), mcnemar_columns([st]), cfg.stream.batch_rows, *column_types([st])):
        pos, rec = mcnemar_records(cfg, st, ids, df, offset, at_index)
        out = np.empty(pos.shape[0], dtype=kind)
        out["at"], out["value"] = index[pos], rec
        out["value"]["row"] += start
        pieces.append(out)
        offset += len(df)
    return split_ranges(np.concatenate(pieces) if pieces else np.empty(0, dtype=kind), ranges)


def _mcnemar_range(cfg: Config, names: list[str], files: list[str], lo: int, hi: int, *pieces: list[np.ndarray]
                   ) -> tuple[dict[str, np.ndarray] | None, str | None]:
    """McNemar's tables of common rows lo..hi−1 (``pieces``: per model, its parts' records of the range)."""
    recs = [place(np.concatenate(p), lo, hi) for p in pieces]
    tables = {n: np.zeros((2, 2)) for n in names if n != cfg.baseline_name}
    note = mcnemar_range(names, files, cfg.baseline_name, recs, tables)
    return (None, note) if note is not None else (tables, None)


def _reduce_mcnemar(*parts: tuple[dict[str, np.ndarray] | None, str | None]) -> tuple[dict[str, np.ndarray] | None, str | None]:
    """Tables added; the first part's note (in part order) wins."""
    for tables, note in parts:
        if note is not None:
            return None, note
    out = {name: np.zeros((2, 2)) for name in parts[0][0]}  # type: ignore[union-attr]
    for tables, _ in parts:
        for name, t in tables.items():  # type: ignore[union-attr]
            out[name] += t
    return out, None


def _map_all(cfg: Config, dask: Any, by_file: dict[Path, list[ModelCounts]], parts_of_file: dict[Path, list[str]],
             ids: ClassIds, slices: dict[Path, list[dict[str, np.ndarray]]] | None = None) -> tuple[PartCounts, ...]:
    """Map every part, reduce per dataset: each dataset's merged :class:`PartCounts`."""
    delayed = dask.delayed
    graphs = []
    for path, templates in by_file.items():
        mapped = [delayed(_map_part)(cfg, part, templates, ids, None if slices is None else slices[path][k])
                  for k, part in enumerate(parts_of_file[path])]
        graphs.append(tree_reduce(delayed, _reduce_parts, mapped, cfg.stream.max_distinct_scores))
    return dask.compute(*graphs)


def load_dask_multiclass(cfg: Config, progress: Progress | None = None) -> StreamedMulticlass:
    """Every model's multiclass counts computed on a Dask cluster (map over parts, tree reduce).

    With an id column the models' rows are joined as in memory; when some model keeps rows
    another does not (ids not shared, rows dropped), the parts are mapped again keeping the rows
    every model keeps. Separate datasets are paired by a shuffle by range of common indices, as
    in :func:`reportgen.dask_engine.load_dask`. Each part
    is hashed by the worker that parses it."""
    with hashing() as digests:
        return _load(cfg, progress, digests)


def _load(cfg: Config, progress: Progress | None, digests: Digests) -> StreamedMulticlass:
    dask = import_dask()
    delayed = dask.delayed
    configured, ids, by_file = plan(cfg)
    client, cluster = client_for(cfg)
    try:
        parts_of_file = {p: parts_of(p) for p in by_file}
        reduced = _map_all(cfg, dask, by_file, parts_of_file, ids)
        for part in reduced:  # a second map must see the same bytes (Digests.add)
            digests.merge(part.digests)
        reads = {path: part.reads for path, part in zip(by_file, reduced)}
        first = sorted((st for part in reduced for st in part.models), key=lambda st: st.i)
        join = join_models(cfg, first)
        sizes = {st.cfg.name: sum(reads[Path(st.cfg.file)]) for st in first}
        indexes, left_out = common_rows(cfg, first, sizes, join, always=len(by_file) > 1)  # separate datasets: by index
        names = {p: [st.cfg.name for st in sts] for p, sts in by_file.items()}
        slices = None if indexes is None else part_slices(reads, names, indexes)
        if left_out:
            configured, ids, by_file = plan(cfg, indexes)
            reduced = _map_all(cfg, dask, by_file, parts_of_file, ids, slices)
        if progress is not None:
            progress(1, 2)
        files: list[FileInfo] = []
        for path, part in zip(by_file, reduced):
            if part.rows == 0:
                raise no_rows(path)
            digests.merge(part.digests)
            files.append(file_info(path, sum(reads[path])))
        # one class numbering for all datasets: the first's ids, then the others' new keys
        keys, to_ids = _unite(reduced)
        cap = cfg.stream.max_distinct_scores
        states = sorted((combine([st], [to], len(keys), cap) for part, to in zip(reduced, to_ids) for st in part.models),
                        key=lambda st: st.i)
        if left_out and join is None:
            check_rows_left(str(states[0].path), states[0].rows, states[0].seen_truth, None, [st.cfg.name for st in states])
        united = ids.copy()
        united.index = {c: j for j, c in enumerate(keys)}
        classes, models, warnings, dropped = conclude(cfg, states, configured, united)
        mcnemar, note = _mcnemar(cfg, delayed, by_file, parts_of_file, classes, slices, reads, left_out)
        dropped.extend(left_out)
        if join is not None:
            warnings[:0] = join.warnings
        if progress is not None:
            progress(2, 2)
        seen = [d for part in reduced for d in part.dates]
        dates = (min(seen).date().isoformat(), max(seen).date().isoformat()) if seen else None
        return StreamedMulticlass(tuple(models), tuple(files), tuple(dropped), tuple(warnings), tuple(classes),
                                  mcnemar, note, dates)
    finally:
        client.close()
        if cluster is not None:
            cluster.close()


def _mcnemar(cfg: Config, delayed: Any, by_file: dict[Path, list[ModelCounts]], parts_of_file: dict[Path, list[str]],
             classes: list[str], slices: dict[Path, list[dict[str, np.ndarray]]] | None, reads: dict[Path, list[int]],
             left_out: list) -> tuple[dict[str, np.ndarray] | None, str | None]:
    """McNemar's tables from a second map/reduce, or a note why not: one dataset's parts line up
    across its models; separate datasets are shuffled by range of common indices."""
    if len(cfg.models) < 2:
        return None, None
    if len(by_file) == 1:
        (path, templates), = by_file.items()
        mapped = [delayed(_map_mcnemar)(cfg, part, templates, classes, slices[path][k] if left_out else None)
                  for k, part in enumerate(parts_of_file[path])]
        return tree_reduce(delayed, _reduce_mcnemar, mapped).compute()
    if slices is None:
        return None, NOTE_LENGTHS
    states = sorted((st for sts in by_file.values() for st in sts), key=lambda st: st.i)
    n = sum(int((sl[states[0].cfg.name] >= 0).sum()) for sl in slices[states[0].path])
    names, files = [st.cfg.name for st in states], [str(st.path) for st in states]
    accs = by_range(delayed, cfg, _map_records, _mcnemar_range, [(st.path, st.cfg.name, (st, classes)) for st in states],
                    parts_of_file, slices, reads, n, cfg, names, files)
    return tree_reduce(delayed, _reduce_mcnemar, accs).compute()


__all__ = ["PartCounts", "load_dask_multiclass"]
