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

import os
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

import numpy as np

from reportgen.config import Config
from reportgen.engine import streaming as S
from reportgen.engine.curve import ScoreTable, merge_tables
from reportgen.errors import UserError
from reportgen.io import validate as V
from reportgen.io.align import NOTE_DATASETS, NOTE_DROPPED, NOTE_WEIGHTED, Join, Keyed, concat_ids, join_ids
from reportgen.io.files import check_parts, columns_in, file_info, no_rows, parts_of
from reportgen.io.validate import check_columns, columns_for
from reportgen.sources_stream import (
    Progress,
    StreamedData,
    StreamedModel,
    binned_result,
    column_types,
    fold_file,
    keyed,
    new_state,
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


def _map_part(cfg: Config, part: str, names: list[str], index: int, allowed: Any = None) -> Part:
    """One part → exact tables (or overflow), a seeded sample, the labels and the kept ids, per model."""
    states = {}
    for m in cfg.models:
        if m.name in names:
            states[m.name] = new_state(cfg, m, allowed)
    columns = sorted({c for st in states.values() for c in st.cols.values()})
    rng = np.random.default_rng([cfg.bootstrap.seed, index])
    dates: list = []
    fold_file(cfg, list(states.values()), Path(part), columns, rng, dates)
    out = Part(dates=[min(dates), max(dates)] if dates else [])
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
    return out


def _reduce_parts(cap: int, sample_cap: int, *parts: Part) -> Part:
    """Merge partial results: tables added at equal scores (overflow when past ``cap``)."""
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
    for name, k in parts[0].keyed.items():
        ks = [p.keyed[name] for p in parts]
        out.keyed[name] = Keyed(k.name, k.file, k.id_column, concat_ids([x.ids for x in ks]),
                                np.concatenate([x.rows for x in ks]), np.concatenate([x.truth for x in ks]))
    for p in parts:
        for k, v in p.dropped.items():
            out.dropped[k] = out.dropped.get(k, 0) + v
    return out


def _map_binned(cfg: Config, part: str, name: str, edges: np.ndarray, allowed: Any = None) -> S.BinnedAccumulator:
    m = next(x for x in cfg.models if x.name == name)
    st = new_state(cfg, m, allowed, collect=False)
    acc = S.BinnedAccumulator(edges, m.direction)
    offset = 0
    for batch in read_columns(Path(part), sorted(set(st.cols.values())), cfg.stream.batch_rows, *column_types(cfg, [m])):
        s, y, w = validated(cfg, st, Path(part), batch, offset)
        acc.add(s, y, w)
        offset += len(batch)
    return acc


def _reduce_binned(*parts: S.BinnedAccumulator) -> S.BinnedAccumulator:
    return S.merge_binned(list(parts))


def _map_paired(cfg: Config, part: str, shared: tuple[list[ScoreTable], list[Any]]) -> S.PairedAccumulator:
    tables, groupers = shared
    acc = S.PairedAccumulator(tables, [m.threshold if m.threshold is not None else cfg.threshold for m in cfg.models], groupers)
    cols = {m.name: columns_for(cfg, m) for m in cfg.models}
    columns = sorted({c for cc in cols.values() for c in cc.values()})
    positive = V.label_key(cfg.positive)
    for batch in read_columns(Path(part), columns, cfg.stream.batch_rows, *column_types(cfg, list(cfg.models))):
        scores = [batch.numeric(cols[m.name]["score"], Path(part), 0) for m in cfg.models]
        acc.add(scores, batch.matches(cols[cfg.models[0].name]["label"], positive))
    return acc


def _reduce_paired(*parts: S.PairedAccumulator) -> S.PairedAccumulator:
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
    cluster = LocalCluster(n_workers=workers, threads_per_worker=1, processes=True, dashboard_address=None)
    return Client(cluster), cluster


def import_dask() -> Any:
    """The ``dask`` module, or a one-line error saying how to install it."""
    try:
        import dask  # noqa: PLC0415
    except ImportError:
        raise UserError(INSTALL_HINT) from None
    return dask


def _first_map(cfg: Config, dask: Any, by_file: dict[Path, list[str]], parts_of_file: dict[Path, list[str]],
               allowed: Any = None) -> dict[Path, Part]:
    """Map every part, reduce per dataset: each dataset's merged :class:`Part`."""
    delayed = dask.delayed
    shared = None if allowed is None else delayed(allowed, pure=True)
    graphs = []
    for path, names in by_file.items():
        mapped = [delayed(_map_part)(cfg, part, names, k, shared) for k, part in enumerate(parts_of_file[path])]
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
        models.append(Keyed(k.name, str(path), k.id_column, k.ids, k.rows, k.truth))
    return join_ids(cfg, models)


def load_dask(cfg: Config, progress: Progress | None = None) -> StreamedData:
    """Every model's table computed on a Dask cluster (map over parts, tree reduce).

    With an id column the models' rows are joined as in memory (the kept ids come back from the
    parts); under ``id_mismatch: intersect`` with ids left out, the parts are mapped again
    keeping the shared ids only."""
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
        join = _join(cfg, results)
        allowed = None
        if join is not None and any(join.left_out):
            allowed = join.common
            results = _first_map(cfg, dask, by_file, parts_of_file, allowed)
        files = []
        for path, names in by_file.items():
            part = results[path]
            rows = max(part.rows.values()) + sum(v for (n, _), v in part.dropped.items() if n == names[0])
            if rows == 0 and allowed is None:
                raise no_rows(path)
            files.append(file_info(path, rows))
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
                shared_allowed = None if allowed is None else delayed(allowed, pure=True)
                mapped = [delayed(_map_binned)(cfg, p, m.name, shared_edges, shared_allowed) for p in parts_of_file[path]]
                acc = tree_reduce(delayed, _reduce_binned, mapped).compute()
                table, grouper, binning = binned_result(cfg, m.name, acc, warnings)
            V.check_both_classes(cfg, path, label, part.labels[m.name], table.total_pos, table.total_neg,
                                 columns_for(cfg, m).get("weight"))
            models.append(StreamedModel(m.name, str(path), m.direction, m.probabilities, m.threshold, table, binning, grouper))
        paired, note = None, None
        if len(models) > 1:
            if dropped or allowed is not None:
                note = NOTE_DROPPED
            elif any(x.table.weighted for x in models):
                note = NOTE_WEIGHTED
            elif len(by_file) > 1:
                note = NOTE_DATASETS
            else:
                tables = [x.table for x in models]
                groupers = [x.grouper or S.exact_grouper(x.table) for x in models]
                path = next(iter(by_file))
                shared = delayed((tables, groupers), pure=True)  # one graph node, sent to each worker once
                mapped = [delayed(_map_paired)(cfg, p, shared) for p in parts_of_file[path]]
                paired = tree_reduce(delayed, _reduce_paired, mapped).compute()
        if progress is not None:
            progress(2, 2)
        seen = [d for part in results.values() for d in part.dates]
        dates = (min(seen).date().isoformat(), max(seen).date().isoformat()) if seen else None
        return StreamedData(tuple(models), tuple(files), tuple(dropped), tuple(warnings), paired, note, dates)
    finally:
        client.close()
        if cluster is not None:
            cluster.close()
