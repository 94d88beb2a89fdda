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

from dataclasses import dataclass
from pathlib import Path
from typing import Any

import numpy as np

from reportgen.config import Config
from reportgen.dask_engine import client_for, import_dask, tree_reduce
from reportgen.io.align import NOTE_DATASETS, NOTE_DROPPED, Join
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
    join_models,
    mcnemar_chunk,
    mcnemar_columns,
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
    digests: dict[str, str]  # SHA-256 of each file read, as parsed (io.files.Digests)


def _map_part(cfg: Config, part: str, templates: list[ModelCounts], ids: ClassIds) -> PartCounts:
    """One part → each model's confusion matrix and class tables, classes in the part's own ids."""
    ids = ids.copy()  # every task starts from the same ids and learns its own
    states = [fresh(st, Path(part)) for st in templates]  # errors name the part
    dates: list = []
    with hashing() as digests:
        rows = fold_file(cfg, states, ids, Path(part), dates)
    for st, template in zip(states, templates):
        merge_pending(st, cfg.stream.max_distinct_scores)
        st.path = template.path  # from here on the dataset is named (cap errors after merges, results, the join)
    return PartCounts(list(ids.index), states, rows, [min(dates), max(dates)] if dates else [], digests.files)


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
    models = [combine([p.models[m] for p in parts], to_ids, len(keys), cap) for m in range(len(parts[0].models))]
    seen = [d for p in parts for d in p.dates]
    digests = Digests()
    for p in parts:
        digests.merge(p.digests)
    return PartCounts(keys, models, sum(p.rows for p in parts), [min(seen), max(seen)] if seen else [], digests.files)


def _map_mcnemar(cfg: Config, part: str, states: list[ModelCounts], classes: list[str]) -> tuple[dict[str, np.ndarray] | None, str | None]:
    """McNemar's 2×2 tables of one part's rows (or the note why they cannot be paired)."""
    states = [fresh(st, Path(part)) for st in states]
    index = {c: j for j, c in enumerate(classes)}
    tables = {st.cfg.name: np.zeros((2, 2)) for st in states if st.cfg.name != cfg.baseline_name}
    for df in read_batches(Path(part), mcnemar_columns(states), cfg.stream.batch_rows, *column_types(states)):
        note = mcnemar_chunk(states, cfg.baseline_name, {Path(part): df}, index, tables)
        if note is not None:
            return None, note
    return tables, None


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
             ids: ClassIds) -> tuple[PartCounts, ...]:
    """Map every part, reduce per dataset: each dataset's merged :class:`PartCounts`."""
    delayed = dask.delayed
    graphs = []
    for path, templates in by_file.items():
        mapped = [delayed(_map_part)(cfg, part, templates, ids) for part in parts_of_file[path]]
        graphs.append(tree_reduce(delayed, _reduce_parts, mapped, cfg.stream.max_distinct_scores))
    return dask.compute(*graphs)


def load_dask_multiclass(cfg: Config, progress: Progress | None = None) -> StreamedMulticlass:
    """Every model's multiclass counts computed on a Dask cluster (map over parts, tree reduce).

    With an id column the models' rows are joined as in memory; under ``id_mismatch: intersect``
    with ids left out, the parts are mapped again keeping the shared ids only. Each part is
    hashed by the worker that parses it."""
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
        join = join_models(cfg, [st for part in reduced for st in part.models])
        if join is not None and any(join.left_out):
            configured, ids, by_file = plan(cfg, join.common)
            reduced = _map_all(cfg, dask, by_file, parts_of_file, ids)
        if progress is not None:
            progress(1, 2)
        files: list[FileInfo] = []
        for path, part in zip(by_file, reduced):
            if part.rows == 0:
                raise no_rows(path)
            digests.merge(part.digests)
            files.append(file_info(path, part.rows))
        # one class numbering for all datasets: the first's ids, then the others' new keys
        keys, to_ids = _unite(reduced)
        cap = cfg.stream.max_distinct_scores
        states = sorted((combine([st], [to], len(keys), cap) for part, to in zip(reduced, to_ids) for st in part.models),
                        key=lambda st: st.i)
        united = ids.copy()
        united.index = {c: j for j, c in enumerate(keys)}
        classes, models, warnings, dropped = conclude(cfg, states, configured, united)
        mcnemar, note = _mcnemar(cfg, delayed, by_file, parts_of_file, dropped, classes, join)
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
             dropped: list, classes: list[str], join: Join | None) -> tuple[dict[str, np.ndarray] | None, str | None]:
    """McNemar's tables from a second map/reduce over the one dataset's parts, or a note why not."""
    if len(cfg.models) < 2:
        return None, None
    if dropped or (join is not None and any(join.left_out)):
        return None, NOTE_DROPPED
    if len(by_file) > 1:
        return None, NOTE_DATASETS
    (path, templates), = by_file.items()
    mapped = [delayed(_map_mcnemar)(cfg, part, templates, classes) for part in parts_of_file[path]]
    return tree_reduce(delayed, _reduce_mcnemar, mapped).compute()


__all__ = ["PartCounts", "load_dask_multiclass"]
