"""``engine: dask``, both tasks: the local runner's accumulators mapped over parts, merged up a tree.

The work is a map and a tree reduce, nothing else: each task reads one Parquet part (or one CSV
file) with the stream runner's per-file step (:mod:`reportgen.reduce.local`), so validation
and errors are the same (the part's file, the column, and the row within the part), and
reduces it to each model's accumulator; partial results are merged pairwise up a tree (fan-in
:data:`FAN_IN`) on the workers, so the client receives one object per model whose size is the
number of distinct scores (or classes and distinct scores), never rows. Merging exact tables
and counts is exact, so without binning the result equals the in-memory one.

* binary: one exact score table per model and its sample for bin edges (a function of its
  scores alone, :class:`~reportgen.reduce.accumulators.ScoreSample`: parts merge to the sample
  stream takes batch by batch). When a model has more distinct scores than
  ``stream.max_distinct_scores``, the reduce reports an overflow instead of growing, and a second
  map/reduce bins that model's scores with edges from the merged sample.
* multiclass: each model's confusion matrix and class tables. With ``classes`` configured every
  part indexes classes in that order; without, each part numbers the classes it meets in its
  own order of first appearance (starting from the keys of score mappings) and carries that key
  list; a merge takes the union of the keys (the first part's order, then new keys) and remaps
  the other parts' counts (:meth:`reportgen.reduce.class_counts.ClassCounts.combine`). At the
  end the union is sorted and the counts permuted once, as in the stream runner.

With an id column the models' rows are joined as in memory (the kept ids come back from the
parts); when some model keeps rows another does not (ids not shared, rows dropped), the parts
are mapped again keeping the rows every model keeps. The paired statistics (binary: DeLong's
cross-moments, McNemar's tables, pattern counts; multiclass: McNemar's tables against the
baseline): when every model is in one dataset, a further map/reduce over its parts (the rows
of one part line up across models); separate datasets are paired by the common index of each
row: each part's compared rows go to the range of common indices they belong to, and each
range is put side by side on a worker (a shuffle by range). Each part is hashed by the worker
that parses it.

Without ``--scheduler`` (or ``scheduler:`` in the config) a ``LocalCluster`` of worker
processes is started and closed by reportgen. Dask is an optional extra:
``pip install 'classifier-comparison-report[dask]'``.
"""

from __future__ import annotations

import functools
import itertools
import logging
import os
import warnings
from collections.abc import Callable, Iterator, Sequence
from contextlib import ExitStack, contextmanager
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

import numpy as np

from reportgen.config import Config, ModelConfig
from reportgen.engine.curve import merge_tables
from reportgen.engine.evidence import BinaryEvidence, MulticlassEvidence
from reportgen.errors import InputError, UserError
from reportgen.io import validate as V
from reportgen.io.files import Digests, FileInfo, file_info, hashing, named_by_dataset, no_rows, parts_of
from reportgen.io.pairs import PAIRED_CHUNK, place, split_ranges
from reportgen.reduce import accumulators as S
from reportgen.reduce import local as L
from reportgen.reduce.evidence_of import ModelTable, binary_evidence, multiclass_evidence
from reportgen.results import Notice

#: Partial results merged per reduce task.
FAN_IN = 8

INSTALL_HINT = (
    "engine: dask needs Dask: pip install 'classifier-comparison-report[dask]' (or use engine: stream on one machine)"
)


# --------------------------------------------------------------------------------------
# Both tasks: the cluster, the tree, the shuffle by range
# --------------------------------------------------------------------------------------


def tree_reduce(delayed: Any, fn: Any, items: list[Any], *args: Any) -> Any:
    """Reduce ``items`` with ``fn(*args, *group)`` in groups of :data:`FAN_IN` until one is left."""
    while len(items) > 1:
        items = [delayed(fn)(*args, *items[i : i + FAN_IN]) for i in range(0, len(items), FAN_IN)]
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
            raise UserError(
                f"{cfg.where('scheduler')}: cannot reach the Dask scheduler {cfg.scheduler} ({exc}); "
                f"check the address, or leave 'scheduler' out to start a local cluster"
            ) from None
        except (ValueError, TypeError) as exc:  # an address distributed cannot parse ("tcp://host:port:x")
            raise UserError(
                f"{cfg.where('scheduler')}: {cfg.scheduler!r} is not a Dask scheduler address ({exc}); "
                f"write e.g. tcp://host:8786, or leave 'scheduler' out to start a local cluster"
            ) from None
    workers = max(1, min(4, os.cpu_count() or 1))
    # the cluster is ours: its workers' logs of a failed task ("Compute Failed" and a traceback, for
    # what is a one-line user error here) stay out of the user's stderr, and so does the scheduler's
    # note that its HTTP port (8787) was taken by another cluster and it chose another, and its
    # advice, when creating its scratch directory took over a second (a busy machine), to configure
    # a local directory (three lines naming contextlib.py, on stderr of a successful run)
    with warnings.catch_warnings():
        warnings.filterwarnings("ignore", message=r"Port \d+ is already in use", category=UserWarning)
        warnings.filterwarnings(
            "ignore", message=r"Creating scratch directories is taking a surprisingly long time", category=UserWarning
        )
        cluster = LocalCluster(
            n_workers=workers,
            threads_per_worker=1,
            processes=True,
            dashboard_address=None,
            silence_logs=logging.CRITICAL,
        )
    return Client(cluster), cluster


def import_dask() -> Any:
    """The ``dask`` module, or a one-line error saying how to install it."""
    try:
        import dask  # noqa: PLC0415
    except ImportError:
        raise UserError(INSTALL_HINT) from None
    return dask


@contextmanager
def cluster_for(cfg: Config) -> Iterator[Any]:
    """A client of the configured scheduler, or of a local cluster started (and closed) here.

    While it is in use, distributed's "Sending large graph of size … MiB" UserWarning (four
    lines of advice on stderr of a successful run, when a paired pass ships each part's row
    selection with its task) is dropped: the graph's size is reportgen's choice, not the user's
    to act on."""
    client, cluster = client_for(cfg)
    try:
        with warnings.catch_warnings():
            warnings.filterwarnings("ignore", message=r"Sending large graph of size", category=UserWarning)
            yield client
    finally:
        client.close()
        if cluster is not None:
            cluster.close()


def load_dask(cfg: Config, progress: L.Progress | None = None) -> BinaryEvidence | MulticlassEvidence:
    """Every model's accumulators computed on a Dask cluster (map over parts, tree reduce), either task.

    The cluster is started once the plan (files, columns, every part) is checked."""
    dask = import_dask()
    with hashing() as digests, ExitStack() as stack:
        run = _multiclass if cfg.task == "multiclass" else _binary
        return run(cfg, dask, progress, digests, lambda: stack.enter_context(cluster_for(cfg)))


def part_slices(
    reads: dict[Path, list[int]], by_file: dict[Path, list[L.ModelPass]], indexes: dict[str, np.ndarray]
) -> dict[Path, list[dict[str, np.ndarray]]]:
    """Each dataset's parts' share of every model's common index per row (``reads``: rows per part)."""
    out = {}
    for path, states in by_file.items():
        starts = np.cumsum([0] + reads[path])
        out[path] = [
            {st.cfg.name: indexes[st.cfg.name][lo:hi] for st in states} for lo, hi in itertools.pairwise(starts)
        ]
    return out


def _map_records(
    cfg: Config, part: str, index: np.ndarray, start: int, ranges: int, st: L.ModelPass, make: Callable, shared: Any
) -> list[np.ndarray]:
    """One part of one model's dataset → its compared rows as records (fields ``at``, ``value``: the
    pairing's record, its row moved by ``start``, the rows before the part), split by range of
    common indices (:data:`reportgen.io.pairs.PAIRED_CHUNK`)."""
    st = st.fresh(cfg, Path(part), index, collect=False)
    pairs = make(cfg, shared)
    records = pairs.records
    kind = np.dtype([("at", np.int64), ("value", pairs.dtype)])
    pieces = []
    for batch, offset in L.batches(cfg, Path(part), [st]):
        pos, rec = records(st, Path(part), batch, offset)
        out = np.empty(pos.shape[0], dtype=kind)
        out["at"], out["value"] = index[pos], rec
        out["value"]["row"] += start
        pieces.append(out)
    return split_ranges(np.concatenate(pieces) if pieces else np.empty(0, dtype=kind), ranges)


def _map_lined_up(
    cfg: Config,
    part: str,
    k: int,
    templates: list[L.ModelPass],
    index: dict[str, np.ndarray] | None,
    start: int,
    first: int,
    make: Callable,
    shared: Any,
    files: list[str] | None,
) -> Any:
    """Part ``k`` of a dataset holding every model: its kept rows line up across the models, added
    to a pairing (``make(cfg, shared, files)``, :class:`reportgen.reduce.local.BinaryPairs` or
    :class:`~reportgen.reduce.local.McNemarPairs`; ``files`` None: errors name the part). Rows are
    numbered in the dataset (``start``: the rows before the part), so that an error of the pairing
    (a row weighed differently by two models, labels that differ) names the dataset's row;
    ``first``: the common rows before the part (the pairing's sums by range of common rows)."""
    states = [
        st.fresh(cfg, Path(part), None if index is None else index[st.cfg.name], collect=False) for st in templates
    ]
    pairs = make(cfg, shared, files or [str(Path(part))] * len(states)).starting_at(first)
    for batch, offset in L.batches(cfg, Path(part), states):
        recs = [pairs.records(st, Path(part), batch, offset)[1] for st in states]
        for rec in recs:
            rec["row"] += start
        pairs.add(recs)
    return pairs


def _merge_lined_up(*parts: Any) -> Any:
    """:func:`_merge_pairs`, or the earliest part's :class:`_Failed` when some part failed."""
    failed = [p for p in parts if isinstance(p, _Failed)]
    return min(failed, key=lambda f: f.k) if failed else _merge_pairs(*parts)


def _range(
    cfg: Config, make: Callable, shared: Any, files: list[str], lo: int, hi: int, *pieces: list[np.ndarray]
) -> Any:
    """Common rows lo..hi−1 of every model (``pieces``: per model, its parts' records of the range)
    side by side, added to a pairing."""
    pairs = make(cfg, shared, files).starting_at(lo)
    pairs.add([place(np.concatenate(p), lo, hi) for p in pieces])
    return pairs


def _merge_pairs(*parts: Any) -> Any:
    """Pairings of other rows merged, in order."""
    out = parts[0]
    for p in parts[1:]:
        out.merge(p)
    return out


def _pairs(
    cfg: Config,
    delayed: Any,
    by_file: dict[Path, list[L.ModelPass]],
    parts_of_file: dict[Path, list[str]],
    slices: dict[Path, list[dict[str, np.ndarray]]] | None,
    reads: dict[Path, list[int]],
    left_out: list,
    make: Callable,
    shared: Any,
    files: list[str] | None,
    kept: list[int],
    alone: bool = False,
) -> tuple[Any, str | None]:
    """The paired statistics from a further map/reduce, or a note why not: one dataset's parts
    line up across its models (``kept``: the rows each of its parts keeps); separate datasets are paired by a shuffle by range of common
    indices: every part of each model's dataset is mapped to its compared rows split by range
    (:func:`_map_records`), and one task per range gets every model's share of it (:func:`_range`)."""
    if len(cfg.models) < 2 and not alone:
        return None, None
    if len(by_file) == 1:
        # the error of the earliest part that fails, as memory and stream meet it reading in order
        # (dask raised whichever task failed first, its row counted in the part: "row 2" of a later part)
        ((path, templates),) = by_file.items()
        starts = np.cumsum([0] + reads[path])
        firsts = np.cumsum([0, *kept[:-1]])  # common rows before each part: every model keeps the same rows
        mapped = [
            delayed(_mapped)(
                _map_lined_up,
                cfg,
                part,
                k,
                templates,
                None if slices is None or not left_out else slices[path][k],
                int(starts[k]),
                int(firsts[k]),
                make,
                shared,
                files,
            )
            for k, part in enumerate(parts_of_file[path])
        ]
        merged = tree_reduce(delayed, _merge_lined_up, mapped).compute()
        if isinstance(merged, _Failed):
            raise merged.error
        return merged.result()
    if slices is None:
        return None, L.LENGTHS_DIFFER
    states = L.in_order(cfg, [st for sts in by_file.values() for st in sts])
    n = sum(int((sl[states[0].cfg.name] >= 0).sum()) for sl in slices[states[0].path])
    ranges = -(-n // PAIRED_CHUNK)
    pieces = []
    for st in states:
        path, st = st.path, st.fresh(cfg, st.path, None, collect=False)  # what a part needs, not what was collected
        starts = np.cumsum([0] + reads[path])
        pieces.append(
            [
                delayed(_map_records, nout=ranges)(
                    cfg, part, slices[path][k][st.cfg.name], int(starts[k]), ranges, st, make, shared
                )
                for k, part in enumerate(parts_of_file[path])
            ]
        )
    files = files or [str(st.path) for st in states]
    accs = [
        delayed(_range)(
            cfg,
            make,
            shared,
            files,
            r * PAIRED_CHUNK,
            min((r + 1) * PAIRED_CHUNK, n),
            *[[mp[r] for mp in mapped] for mapped in pieces],
        )
        for r in range(ranges)
    ]
    return tree_reduce(delayed, _merge_pairs, accs).compute().result()


def _first_map(
    cfg: Config,
    dask: Any,
    by_file: dict[Path, list],
    parts_of_file: dict[Path, list[str]],
    mapper: Any,
    reducer: Any,
    slices: dict[Path, list[dict[str, np.ndarray]]] | None,
    *args: Any,
) -> tuple:
    """Map every part (``mapper(cfg, part, k, states, slice, *args)``), reduce per dataset:
    each dataset's merged result (``slices``: per dataset and part, each model's common index
    per row: keep only the rows every model keeps)."""
    delayed = dask.delayed
    graphs = []
    for path, states in by_file.items():
        mapped = [
            delayed(_mapped)(mapper, cfg, part, k, states, None if slices is None else slices[path][k], *args)
            for k, part in enumerate(parts_of_file[path])
        ]
        graphs.append(tree_reduce(delayed, _reduced, mapped, reducer, cfg))
    try:
        results = dask.compute(*graphs)
    except InputError as exc:  # a part's row named as memory and stream name it (the dataset, its row)
        raise named_by_dataset(exc, parts_of_file) from None
    failed = [(path, r) for path, r in zip(by_file, results) if isinstance(r, _Failed)]
    if failed:  # a dataset that cannot be read first (as memory reads every file first), then row faults
        unreadable = [(p, r) for p, r in failed if not isinstance(r.error, V.RowFault)]
        empty = [p for p, r in zip(by_file, results) if not isinstance(r, _Failed) and sum(r.reads) == 0]
        if not unreadable and empty:
            raise no_rows(empty[0])
        path, r = (unreadable or failed)[0]
        if not unreadable:  # an earlier dataset's fault that only its merged parts show comes first
            _third_label_before(cfg, by_file, results, path)
        if r.k > 0 and isinstance(r.error, V.RowFault):  # an earlier part may hold what makes an earlier row bad
            L.first_fault(cfg, path)
        raise named_by_dataset(r.error, parts_of_file)
    _third_label_before(cfg, by_file, results, None)  # before the id join, as memory and stream meet it
    return results


def _third_label_before(cfg: Config, by_file: dict[Path, list], results: tuple, failed: Path | None) -> None:
    """Raise the fault of a dataset read before ``failed`` (whose part raised a row fault; None:
    every dataset) whose parts hold three labels between them (binary), as memory and stream meet
    it: reading the datasets in order, they stop at that dataset's third label. No part of it had
    three labels, so its parts succeeded and only their merge knows; a later dataset's row fault
    was raised in its place, or the id join's fault (a label differing between models) when no
    part failed (found by fuzzing)."""
    if cfg.task != "binary":
        return
    for path, r in zip(by_file, results):
        if path == failed:
            return
        if any(len(st.labels) > 2 for st in r.states):
            L.first_fault(cfg, path)


@dataclass(frozen=True, slots=True)
class _Failed:
    """A part's user error carried up the reduction as a value: the error of the earliest part is
    raised, as the engines that read the parts in order raise it, whichever task failed first
    (two parts with a bad row gave either part's row from run to run)."""

    k: int
    error: InputError


def _mapped(mapper: Any, cfg: Config, part: str, k: int, *args: Any) -> Any:
    """``mapper(cfg, part, k, *args)``, a user error returned as :class:`_Failed`."""
    try:
        return mapper(cfg, part, k, *args)
    except InputError as exc:
        return _Failed(k, exc)


def _reduced(reducer: Any, cfg: Config, *parts: Any) -> Any:
    """``reducer(cfg, *parts)``, or the earliest part's :class:`_Failed` when some part failed."""
    failed = [p for p in parts if isinstance(p, _Failed)]  # a part that cannot be read before any row fault
    return min(failed, key=lambda f: (isinstance(f.error, V.RowFault), f.k)) if failed else reducer(cfg, *parts)


def _read_twice(
    cfg: Config,
    dask: Any,
    digests: Digests,
    connect: Callable,
    plan: Callable,
    mapper: Any,
    reducer: Any,
    args: Callable[[], tuple] = tuple,
):
    """The local runner's readings (:func:`reportgen.reduce.local.read_aligned`) as maps over the
    parts: (by_file, parts per file, results per dataset, rows per part, the join's notices, common indexes,
    part slices, rows left out). ``plan(indexes)``: each dataset's models (the columns checked);
    ``connect()`` starts the cluster; ``args()``: the mapper's last arguments (after the plan)."""
    parts_of_file: dict[Path, list[str]] = {}
    reads: dict[Path, list[int]] = {}  # rows per part (the first map's)
    results: list[Part] = []

    def read_all(by_file: dict[Path, list], indexes: dict[str, np.ndarray] | None) -> tuple[dict, list, list]:
        slices = None
        if indexes is None:
            connect()
            parts_of_file.update((p, parts_of(p)) for p in by_file)
        else:
            slices = part_slices(reads, by_file, indexes)
            for st in (st for sts in by_file.values() for st in sts):
                st.index = None  # each part gets its slice (sent once per part, not the dataset's index per task)
        results[:] = _first_map(cfg, dask, by_file, parts_of_file, mapper, reducer, slices, *args())
        for path, r in zip(by_file, results):  # a second map must see the same bytes (Digests.add)
            if indexes is None and sum(r.reads) == 0:
                raise no_rows(Path(r.path))
            digests.merge(r.digests)
            reads.setdefault(path, r.reads)
        return {p: sum(n) for p, n in reads.items()}, [d for r in results for d in r.dates], _states(cfg, results)

    separate = len({V.model_file(m) for m in cfg.models}) > 1  # separate datasets: paired by index
    by_file, _states_read, _read, _dates, joined, indexes, left_out = L.read_aligned(cfg, plan, read_all, separate)
    slices = None if indexes is None else part_slices(reads, by_file, indexes)
    return by_file, parts_of_file, tuple(results), reads, joined, indexes, slices, left_out


@dataclass(slots=True)
class Part:
    """What one part (or a reduce node) of a dataset knows: per model its pass state (the
    join's collections, drops, rows kept; binary: the labels, the table or overflow, a sample)."""

    path: str  # the dataset
    states: list
    reads: list[int] = field(default_factory=list)  # rows read per part, in order (positions: their sum before)
    dates: list = field(default_factory=list)  # first and last date seen (when a date column is set)
    digests: dict[str, str] = field(default_factory=dict)  # SHA-256 of each file read, as parsed (io.files.Digests)
    keys: list[str] = field(default_factory=list)  # multiclass: class id → class key, in the part's order
    kept: list[int] = field(default_factory=list)  # rows the dataset's first model kept per part, in order


def _gather(parts: tuple[Part, ...], states: list) -> Part:
    """The merged :class:`Part` around merged ``states``: rows read, dates and digests of every part."""
    seen = [d for p in parts for d in p.dates]
    digests = Digests()
    for p in parts:
        digests.merge(p.digests)
    return Part(
        parts[0].path,
        states,
        [r for p in parts for r in p.reads],
        _span(seen),
        digests.files,
        kept=[r for p in parts for r in p.kept],
    )


def _span(dates: list) -> list:
    """The first and last of ``dates`` (empty without any)."""
    return [min(dates), max(dates)] if dates else []


def _states(cfg: Config, results: Sequence[Part]) -> list:
    """Every model's merged pass state, in config order."""
    return L.in_order(cfg, [st for r in results for st in r.states])


def _before(parts: tuple[Part, ...]) -> list[int]:
    """Rows read before each part (its row positions' shift within the dataset)."""
    return [int(b) for b in np.cumsum([0] + [sum(p.reads) for p in parts[:-1]])]


def _map_part(
    cfg: Config,
    part: str,
    k: int,
    templates: list[L.ModelPass],
    index: dict[str, np.ndarray] | None,
    ids: L.ClassIds | None = None,
) -> Part:
    """One part → each model's pass state and the kept ids (``index``: each model's common index
    per row of the part; keep the rows ``>= 0``), errors naming the part. Binary: exact tables
    (or overflow), the sample for bin edges, the labels; multiclass: the counts, classes in the part's own
    ids (every task starts from ``ids`` and learns its own)."""
    states: list[Any] = [
        st.fresh(cfg, Path(part), None if index is None else index[st.cfg.name], index is None) for st in templates
    ]  # ModelState (ids None), or ModelCounts
    ids = None if ids is None else ids.copy()
    dates: list = []
    with hashing() as digests:
        read = (
            L.fold_file(cfg, states, Path(part), dates)
            if ids is None
            else L.fold_class_file(cfg, states, ids, Path(part), dates)
        )
    for st, template in zip(states, templates):
        if isinstance(st, L.ModelCounts):
            st.merge_pending(cfg.stream.max_distinct_scores)
        elif isinstance(st, L.ModelState):
            acc = st.reading()
            table = acc.table()
            if acc.overflowed:  # its rows in its sample (a part under the cap: in its table, sampled when merged)
                st.settled(None)
            st.acc = L.PartTable(table, acc.overflowed, acc.weight_cells)
        st.path = template.path  # from here on the dataset is named (the join, merges, results)
    return Part(
        str(templates[0].path),
        states,
        [read],
        _span(dates),
        digests.files,
        [] if ids is None else list(ids.index),
        [int(states[0].rows)],
    )


# --------------------------------------------------------------------------------------
# Binary
# --------------------------------------------------------------------------------------


def _reduce_parts(cfg: Config, *parts: Part) -> Part:
    """Merge partial results: tables added at equal scores (overflow when past the cap); row
    positions shifted by the rows read before each part (positions in the whole dataset)."""
    cap = cfg.stream.max_distinct_scores
    before = _before(parts)
    out = []
    for m in range(len(parts[0].states)):
        sts = [L.shifted(p.states[m], b) for p, b in zip(parts, before)]
        st = L.gathered(cfg, sts)
        tabs = [s.acc.table for s in sts if s.acc.table is not None]
        over = any(s.acc.overflowed for s in sts)
        merged = merge_tables(*tabs) if tabs and not over else None
        over = over or (merged is not None and merged.n_distinct > cap)
        counters = [s.acc.weight_cells for s in sts if s.acc.weight_cells is not None]
        cells = None
        if counters and not over:
            cells = S.CellCounter(pool=True)
            for c in counters:
                cells.merge(c)
        st.acc = L.PartTable(None if over else merged, over, cells)
        st.sample = L.score_sample(cfg)
        # the same sample however the parts were merged (ScoreSample); weighted rows are sampled
        # from the start (``sampled``) and their samples merged at every node: sampling a merged
        # weighted table took its weight sums for row counts (a row of weight 0 left out, of
        # weight 2 twice), so with more parts than one reduce merges dask binned a weighted model
        # with other edges than stream
        if st.sample is not None and (over or any(s.sampled for s in sts)):
            for s in sts:
                st.sample.merge(s.settled(s.acc.table))
            st.sampled = True
        st.labels = set().union(*(s.labels for s in sts))
        out.append(st)
    return _gather(parts, out)


def _map_binned(
    cfg: Config, part: str, m: ModelConfig, edges: np.ndarray, index: np.ndarray | None
) -> S.BinnedAccumulator:
    """One part of a model's dataset binned with the edges of the pooled sample."""
    st = L.new_state(cfg, m, Path(part), index, collect=False)
    acc = S.BinnedAccumulator(edges, st.cfg.direction)
    for batch, offset in L.batches(cfg, Path(part), [st]):
        acc.add(*L.kept_rows(cfg, st, Path(part), batch, offset)[:3])
    return acc


def _reduce_binned(*parts: S.BinnedAccumulator) -> S.BinnedAccumulator:
    return S.merge_binned(list(parts))


def _binary(cfg: Config, dask: Any, progress: L.Progress | None, digests: Digests, connect: Callable) -> BinaryEvidence:
    delayed = dask.delayed
    by_file, parts_of_file, results, reads, joined, _indexes, slices, left_out = _read_twice(
        cfg, dask, digests, connect, functools.partial(L.plan_binary, cfg), _map_part, _reduce_parts
    )
    states = _states(cfg, results)
    files = [file_info(path, sum(reads[path])) for path in by_file]
    if progress is not None:
        progress(1, 2)
    models: list[ModelTable] = []
    warnings: list[Notice] = []
    dropped: list[tuple[str, str, int]] = []
    for st in states:
        m, path = st.cfg, st.path
        dropped += st.drops()
        if st.rows == 0:
            raise V.no_rows_left(path, m.name)
        if len(st.labels) > 2:  # a third label first met in a later part: its row, as stream names it
            L.first_fault(cfg, path)
        V.check_two_labels(path, st.cols["label"], st.labels)
        table, binning, grouper, binned = st.acc.table, None, None, None
        if st.acc.overflowed:
            shared_edges = delayed(L.binning_edges(cfg, m, st.sample), pure=True)
            mapped = [
                delayed(_map_binned)(
                    cfg, p, m, shared_edges, None if slices is None or not left_out else slices[path][k][m.name]
                )
                for k, p in enumerate(parts_of_file[path])
            ]
            acc = tree_reduce(delayed, _reduce_binned, mapped).compute()
            table, grouper, binning = L.binned_result(cfg, m.name, acc, warnings)
            binned = acc
        models.append(L.model_table(cfg, st, table, binning, grouper, binned))
    shared = delayed(([x.table for x in models], [x.grouper or S.exact_grouper(x.table) for x in models]), pure=True)
    paired, note = _pairs(
        cfg,
        delayed,
        by_file,
        parts_of_file,
        slices,
        reads,
        left_out,
        L.BinaryPairs,
        shared,
        [str(m.file) for m in cfg.models],
        results[0].kept,
    )  # the tables: one graph node, sent to each worker once
    if progress is not None:
        progress(2, 2)
    dates = [d for part in results for d in part.dates]
    return binary_evidence(
        cfg, models, paired, note, L.load_audit_of(files, dropped, left_out, joined, warnings, dates)
    )


# --------------------------------------------------------------------------------------
# Multiclass
# --------------------------------------------------------------------------------------


def _unite(parts: tuple[Part, ...]) -> tuple[list[str], list[np.ndarray]]:
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


def _reduce_counts(cfg: Config, *parts: Part) -> Part:
    """Merge partial counts of one dataset: class keys united, each part's ids remapped, counts added."""
    keys, to_ids = _unite(parts)
    before = _before(parts)
    models = [
        L.combine([L.shifted(p.states[m], b) for p, b in zip(parts, before)], to_ids, len(keys), cfg)
        for m in range(len(parts[0].states))
    ]
    out = _gather(parts, models)
    out.keys = keys
    return out


def _multiclass(
    cfg: Config, dask: Any, progress: L.Progress | None, digests: Digests, connect: Callable
) -> MulticlassEvidence:
    delayed = dask.delayed
    plans: list = []

    def plan(indexes: dict[str, np.ndarray] | None) -> dict[Path, list[L.ModelCounts]]:
        plans.append(L.plan_multiclass(cfg, indexes))
        return plans[-1][2]

    by_file, parts_of_file, results, reads, joined, _indexes, slices, left_out = _read_twice(
        cfg, dask, digests, connect, plan, _map_part, _reduce_counts, lambda: (plans[-1][1],)
    )
    if progress is not None:
        progress(1, 2)
    files: list[FileInfo] = [file_info(path, sum(reads[path])) for path in by_file]
    # one class numbering for all datasets: the first's ids, then the others' new keys
    keys, to_ids = _unite(results)
    states = L.in_order(
        cfg, [L.combine([st], [to], len(keys), cfg) for part, to in zip(results, to_ids) for st in part.states]
    )
    configured, ids, _by_file = plans[-1]
    united = ids.copy()
    united.index = {c: j for j, c in enumerate(keys)}
    classes, models, warnings, dropped = L.conclude(cfg, states, configured, united)
    mcnemar, note = _pairs(
        cfg,
        delayed,
        by_file,
        parts_of_file,
        slices,
        reads,
        left_out,
        L.McNemarPairs,
        classes,
        None,
        results[0].kept,
        alone=cfg.bootstrap.resamples > 0,
    )
    if progress is not None:
        progress(2, 2)
    dates = [d for part in results for d in part.dates]
    return multiclass_evidence(
        cfg, classes, models, mcnemar, note, L.load_audit_of(files, dropped, left_out, joined, warnings, dates)
    )
