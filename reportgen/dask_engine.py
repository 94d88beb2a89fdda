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
from reportgen.errors import InputError, UserError
from reportgen.sources import _check_columns, _columns_for, _columns_in, _is_parquet, _parquet_dataset, file_info
from reportgen.sources_stream import Progress, StreamedData, StreamedModel, _State, _validated, binned_result, fold_file, read_columns

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


def _parts_of(path: Path) -> list[str]:
    """The files a dataset is made of (Parquet parts, or the CSV file itself)."""
    if _is_parquet(path):
        return sorted(f.path for f in _parquet_dataset(path).get_fragments())
    return [str(path)]


def _map_part(cfg: Config, part: str, names: list[str], index: int) -> Part:
    """One part → exact tables (or overflow), a seeded sample and the labels, per model."""
    sc = cfg.stream
    states = {}
    for m in cfg.models:
        if m.name in names:
            states[m.name] = _State(m, _columns_for(cfg, m), S.TableAccumulator(m.direction, sc.max_distinct_scores), [], set())
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
    for p in parts:
        for k, v in p.dropped.items():
            out.dropped[k] = out.dropped.get(k, 0) + v
    return out


def _map_binned(cfg: Config, part: str, name: str, edges: np.ndarray) -> S.BinnedAccumulator:
    m = next(x for x in cfg.models if x.name == name)
    st = _State(m, _columns_for(cfg, m), S.TableAccumulator(m.direction), [], set())
    acc = S.BinnedAccumulator(edges, m.direction)
    offset = 0
    for batch in read_columns(Path(part), sorted(set(st.cols.values())), cfg.stream.batch_rows):
        s, y, w = _validated(cfg, st, Path(part), batch, offset)
        acc.add(s, y, w)
        offset += len(batch)
    return acc


def _reduce_binned(*parts: S.BinnedAccumulator) -> S.BinnedAccumulator:
    return S.merge_binned(list(parts))


def _map_paired(cfg: Config, part: str, shared: tuple[list[ScoreTable], list[Any]]) -> S.PairedAccumulator:
    tables, groupers = shared
    acc = S.PairedAccumulator(tables, [m.threshold if m.threshold is not None else cfg.threshold for m in cfg.models], groupers)
    cols = {m.name: _columns_for(cfg, m) for m in cfg.models}
    columns = sorted({c for cc in cols.values() for c in cc.values()})
    for batch in read_columns(Path(part), columns, cfg.stream.batch_rows):
        scores = [batch.numeric(cols[m.name]["score"], Path(part), 0) for m in cfg.models]
        acc.add(scores, batch.matches(cols[cfg.models[0].name]["label"], cfg.positive))
    return acc


def _reduce_paired(*parts: S.PairedAccumulator) -> S.PairedAccumulator:
    out = parts[0]
    for p in parts[1:]:
        out.add_moments((p.c10, p.c01, p.agree, p.joint))
    return out


def _tree(delayed: Any, fn: Any, items: list[Any], *args: Any) -> Any:
    """Reduce ``items`` with ``fn(*args, *group)`` in groups of :data:`FAN_IN` until one is left."""
    while len(items) > 1:
        items = [delayed(fn)(*args, *items[i:i + FAN_IN]) for i in range(0, len(items), FAN_IN)]
    return items[0]


def _client(cfg: Config) -> tuple[Any, Any]:
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


def _import_dask() -> Any:
    """The ``dask`` module, or a one-line error saying how to install it."""
    try:
        import dask  # noqa: PLC0415
    except ImportError:
        raise UserError(INSTALL_HINT) from None
    return dask


def load_dask(cfg: Config, progress: Progress | None = None) -> StreamedData:
    """Every model's table computed on a Dask cluster (map over parts, tree reduce)."""
    dask = _import_dask()
    delayed = dask.delayed
    sc = cfg.stream
    by_file: dict[Path, list[str]] = {}
    for i, m in enumerate(cfg.models):
        path = Path(m.file)
        _check_columns(cfg, i, m, path, _columns_in(path))
        by_file.setdefault(path, []).append(m.name)
    client, cluster = _client(cfg)
    try:
        files, results = [], {}
        parts_of = {p: _parts_of(p) for p in by_file}
        graphs = []
        for path, names in by_file.items():
            mapped = [delayed(_map_part)(cfg, part, names, k) for k, part in enumerate(parts_of[path])]
            graphs.append(_tree(delayed, _reduce_parts, mapped, sc.max_distinct_scores, 200_000))
        reduced = dask.compute(*graphs)
        for (path, names), part in zip(by_file.items(), reduced):
            results[path] = part
            rows = max(part.rows.values()) + sum(v for (n, _), v in part.dropped.items() if n == names[0])
            files.append(file_info(path, rows))
        if progress is not None:
            progress(1, 2)
        models, warnings, dropped = [], [], []
        for m in cfg.models:
            path = Path(m.file)
            part = results[path]
            for (name, reason), rows in part.dropped.items():
                if name == m.name:
                    dropped.append((name, reason, rows))
            if len(part.labels[m.name]) > 2:
                raise InputError(f"{path}: the label column has more than 2 distinct labels; task: binary needs two")
            table, binning, grouper = part.tables[m.name], None, None
            if part.overflow[m.name]:
                edges = S.bin_edges(part.samples[m.name], sc.bins, sc.binning)
                shared_edges = delayed(edges, pure=True)
                mapped = [delayed(_map_binned)(cfg, p, m.name, shared_edges) for p in parts_of[path]]
                acc = _tree(delayed, _reduce_binned, mapped).compute()
                table, grouper, binning = binned_result(cfg, m.name, acc, warnings)
            if table is None or table.total_pos <= 0 or table.total_neg <= 0:
                raise InputError(f"{path}: model '{m.name}' needs rows of both classes (positive label {cfg.positive!r})")
            models.append(StreamedModel(m.name, str(path), m.direction, m.probabilities, m.threshold, table, binning, grouper))
        paired, note = None, None
        if len(models) > 1:
            if len(by_file) > 1:
                note = "the models are in different datasets; with engine: dask paired tests need the scores in one dataset"
            elif dropped:
                note = "Rows were dropped, so the models' rows no longer line up: paired tests are not computed"
            elif any(x.table.weighted for x in models):
                note = "Weighted rows: DeLong's and McNemar's paired tests are not computed with engine: dask"
            else:
                tables = [x.table for x in models]
                groupers = [x.grouper or S.exact_grouper(x.table) for x in models]
                path = next(iter(by_file))
                shared = delayed((tables, groupers), pure=True)  # one graph node, sent to each worker once
                mapped = [delayed(_map_paired)(cfg, p, shared) for p in parts_of[path]]
                paired = _tree(delayed, _reduce_paired, mapped).compute()
        if progress is not None:
            progress(2, 2)
        seen = [d for part in results.values() for d in part.dates]
        dates = (min(seen).date().isoformat(), max(seen).date().isoformat()) if seen else None
        return StreamedData(tuple(models), tuple(files), tuple(dropped), tuple(warnings), paired, note, dates)
    finally:
        client.close()
        if cluster is not None:
            cluster.close()
