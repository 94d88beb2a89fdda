"""The local runner: ``engine: memory`` (each file one batch) and ``engine: stream`` (record batches).

One runner, one set of rules and accumulators, two ways of getting a file's batches
(:class:`Reader`). Stream never holds a file as one table: each file is read column-projected,
batch by batch (:func:`batches`, :mod:`reportgen.io.batches`). Memory reads every file whole
first, with the fast multi-threaded readers (:func:`reportgen.io.batches.read_frames`), and
hands each one out as a single batch (:class:`Reader`, :func:`load_frames`; frames handed to
:mod:`reportgen.api` too), with nothing binned (:func:`whole_file_config`). Every batch is
validated by the rules of :mod:`reportgen.io.validate` (the same one-line errors, naming the
file, the column and the *global* row) and added to each model's accumulator
(:mod:`reportgen.reduce.accumulators`): a score table (binary) or a confusion matrix and class
tables (multiclass). Streamed, memory grows with the number of distinct scores, not rows.

Passes over the data, both tasks:

1. every file once: the accumulators, the labels seen, and for the id join each model's kept
   ids, positions and truth (:mod:`reportgen.io.align`); when some model keeps rows another
   does not (ids not shared, rows dropped), every file again keeping only the rows every model
   keeps. Binary only: a sample of each model's scores (a function of the scores alone, the same
   in every engine), and a model whose distinct scores
   pass ``stream.max_distinct_scores`` is read once more, binned with edges from the sample (the
   report states the binning and its AUC error bound). Multiclass tables are not binned (past
   the cap is an error asking to round the scores). Without configured ``classes`` the class
   list is known only at the end (the sorted union of the labels seen, as in memory), so
   batches number classes in order of first appearance and the counts are permuted once.
2. with several models whose rows can be paired (one file; files of equal length without an id;
   files joined by id): the paired statistics (:func:`paired_pass`). Each model's kept rows are
   read again and spilled by their common index (:class:`reportgen.io.pairs.RowSpill`), so files
   joined by id in any order pair exactly as in memory. Binary: DeLong's covariance, McNemar's
   tables and the pattern counts (:class:`~reportgen.reduce.accumulators.PairedAccumulator`;
   frequency weights as each row's multiplicity);
   with every model in one file, unweighted, the rows' table codes kept in pass 1 (at most
   :data:`ROW_CODES_BUDGET` bytes) make this pass a lookup in memory, in pieces of
   :data:`reportgen.io.pairs.PAIRED_CHUNK` rows. A file held whole (memory) is "read again"
   from memory. Multiclass: each model's joint confusion counts against the baseline
   (:class:`McNemarPairs`: McNemar's tables, the paired bootstrap).

Threads (:mod:`reportgen.parallel`, binary): the models of a batch are validated and counted in
parallel, binned batches and in-memory paired chunks a few ahead; everything is added up in
the order of a single-threaded run, so the results are the same bits. Every file is hashed as
it is read (:class:`reportgen.io.files.Digests`); each pass must read the same bytes.

``engine: dask`` (:mod:`reportgen.reduce.dask`) runs the same per-file steps on every part.
"""

from __future__ import annotations

import functools
import itertools
import logging
import sys
from collections.abc import Callable, Generator, Iterator, Sequence
from dataclasses import dataclass, field, replace
from pathlib import Path
from typing import Any, ClassVar, Self, TypeVar

import numpy as np

from reportgen.config import Config, ModelConfig
from reportgen.engine import class_probabilities as CP
from reportgen.engine import distinct_rows as DR
from reportgen.engine.approval import joint_cell_luts
from reportgen.engine.curve import ScoreTable, row_groups
from reportgen.engine.evidence import BinaryEvidence, LoadAudit, MulticlassEvidence, MulticlassModelEvidence
from reportgen.engine.streaming import binning_auc_bound
from reportgen.errors import InputError
from reportgen.io import align as A
from reportgen.io import validate as V
from reportgen.io.align import Join, Keyed, check_positions, check_unique, concat_ids
from reportgen.io.batches import Batch, arrow_table, read_columns, read_frames, release_unused
from reportgen.io.files import FileInfo, check_parts, columns_in, file_info, hashing, no_rows
from reportgen.io.pairs import PAIRED_CHUNK, RowSpill
from reportgen.io.progress import Progress, ReadProgress
from reportgen.io.validate import (
    check_class_count,
    class_warnings,
    columns_for,
    configured_classes,
    dates_of,
    score_columns,
    score_order,
    sorted_classes,
)
from reportgen.parallel import THREADS, ordered_map
from reportgen.reduce import accumulators as S
from reportgen.reduce.cells import cell_sums, merged_weight_cells, weight_cells
from reportgen.reduce.class_counts import TABLE_CHUNK, ClassCounts
from reportgen.reduce.evidence_of import ModelTable, binary_evidence, load_audit, multiclass_evidence
from reportgen.results import BinningInfo, Notice
from reportgen.value import Shown

#: Why rows are not paired (a :data:`reportgen.engine.evidence.PairingReason`): files of different
#: lengths and no id to join them.
LENGTHS_DIFFER = "lengths_differ"

log = logging.getLogger(__name__)


# --------------------------------------------------------------------------------------
# Both tasks: a model's pass over its rows, the id join, the paired pass
# --------------------------------------------------------------------------------------


@dataclass(slots=True, repr=False, eq=False)
class ModelPass(Shown):
    """What a pass over one model's rows keeps besides its accumulator.

    ``rows``: rows kept; ``dropped``: rows dropped per reason. With an id column, the kept rows'
    ids (:func:`reportgen.io.validate.held_ids`), file positions and truth are collected for the
    join (:mod:`reportgen.io.align`), and under ``missing: drop`` the ids of the rows dropped
    (``lost``) and their positions (``gone``). ``index``, when set (a second reading), is the
    common index of each file row (:func:`reportgen.io.align.common_index`): only rows ``>= 0``
    are kept."""

    TASK: ClassVar[str] = "binary"
    cfg: ModelConfig
    path: Path
    cols: dict[str, str]
    score_cols: list[str] = field(default_factory=list)  # multiclass: in class order when known
    rows: int = 0
    dropped: dict[str, int] = field(default_factory=dict)
    ids: list | None = None
    id_rows: list | None = None
    truth: list | None = None
    lost: list | None = None
    gone: list | None = None
    index: np.ndarray | None = None
    totals: tuple[float, float] = (0.0, 0.0)  # kept rows' weight (rows unweighted): binary (positive, negative)

    def fresh(self, cfg: Config, path: Path, index: np.ndarray | None = None, collect: bool = True) -> Self:
        """An empty state of the same model that reads ``path`` (each task's state says how)."""
        raise NotImplementedError

    def collecting(self, cfg: Config, index: np.ndarray | None, collect: bool) -> Self:
        """This state set to keep only the rows of ``index`` (None: all) and, when ``collect``,
        to collect what the join needs."""
        self.index = index
        if "id" in self.cols and collect:
            self.ids, self.id_rows, self.truth = [], [], []
        if collect and cfg.missing == "drop" and len(cfg.models) > 1:
            self.lost, self.gone = [], []
        return self

    def narrow(self, keep: np.ndarray | None, offset: int, n: int, ids: Any) -> np.ndarray | None:
        """The batch's rows kept (``keep``: valid rows, None = all) narrowed to the common rows;
        rows dropped for a missing value noted for the join (``missing: drop``)."""
        if self.gone is not None and keep is not None and not keep.all():
            self.gone.append(np.flatnonzero(~keep) + offset)
            if ids is not None and self.lost is not None:  # set with ``gone``
                self.lost.append(V.lost_ids(ids, keep))
        if self.index is None:
            return keep
        inside = self.index[offset : offset + n] >= 0
        return inside if keep is None else keep & inside

    def collect(self, keep: np.ndarray | None, offset: int, n: int, ids: Any, truth: np.ndarray) -> None:
        """The kept rows' ids, positions and truth, for the join."""
        if self.ids is None or self.id_rows is None or self.truth is None:  # set together (:meth:`collecting`)
            return
        if keep is None or keep.all():  # the batch's positions as a range: nothing held per row
            self.ids.append(ids)
            self.id_rows.append(range(offset, offset + n))
            self.truth.append(truth)
            return
        # positions in int32 below 2^31 rows: half the bytes, held to the end of the join
        at = np.int32 if offset + n < 2**31 else np.int64
        if hasattr(ids, "filter"):  # pyarrow strings: a mask as an Arrow array (pyarrow 12 takes no numpy mask)
            import pyarrow as pa  # noqa: PLC0415

            self.ids.append(ids.filter(pa.array(keep)))
        else:
            self.ids.append(ids[keep])
        self.id_rows.append((np.flatnonzero(keep) + offset).astype(at))
        self.truth.append(truth[keep])

    def count_dropped(self, counts: dict[str, int]) -> None:
        for reason, k in counts.items():
            self.dropped[reason] = self.dropped.get(reason, 0) + k

    def drops(self) -> list[tuple[str, str, int]]:
        """(model, reason, rows) of the rows this model dropped, reasons in the order of its checks
        (:func:`reportgen.io.validate.drop_reasons`), not in the order the batches met them."""
        order = {r: i for i, r in enumerate(V.drop_reasons(self.TASK, self.cols, self.score_cols))}
        ranked = sorted(self.dropped.items(), key=lambda item: order.get(item[0], len(order)))
        return [(self.cfg.name, reason, rows) for reason, rows in ranked]

    def keyed(self) -> Keyed:
        """The rows the model kept, as the id join sees them. Each collected list is replaced by
        its one concatenation (the ids: a ChunkedArray of the batches' pieces, uncopied): the
        pieces and the whole are not held side by side, and asking again (the join, then the
        common rows) copies nothing."""

        def cat(parts: list | None, dtype: Any) -> list:
            return [parts[0] if len(parts) == 1 else np.concatenate(parts)] if parts else [np.empty(0, dtype=dtype)]

        assert self.ids is not None and self.id_rows is not None and self.truth is not None  # collected together
        self.ids, self.id_rows, self.truth = [concat_ids(self.ids)], [positions(self.id_rows)], cat(self.truth, object)
        if self.lost is not None:
            self.lost = [concat_ids(self.lost)]
        return Keyed(
            self.cfg.name,
            str(self.path),
            self.cols["id"],
            self.ids[0],
            self.id_rows[0],
            self.truth[0],
            None if self.lost is None else self.lost[0],
        )

    def columns(self) -> list[str]:
        return sorted({*self.cols.values(), *self.score_cols})


PassT = TypeVar("PassT", bound=ModelPass)


def positions(parts: list) -> np.ndarray:
    """The kept rows' file positions from :meth:`ModelPass.collect`'s pieces (arrays, or a
    ``range`` where a batch kept every row), in int32 below 2^31 rows: one ``arange`` when
    every piece is a range and each follows the last."""
    if len(parts) == 1 and isinstance(parts[0], np.ndarray):
        return parts[0]

    def kind(stop: int) -> type:
        return np.int32 if stop < 2**31 else np.int64

    if (
        parts
        and all(isinstance(p, range) for p in parts)
        and all(a.stop == b.start for a, b in itertools.pairwise(parts))
    ):
        return np.arange(parts[0].start, parts[-1].stop, dtype=kind(parts[-1].stop))
    pieces = [np.arange(p.start, p.stop, dtype=kind(p.stop)) if isinstance(p, range) else p for p in parts]
    return np.concatenate(pieces) if pieces else np.empty(0, dtype=np.int64)


def shifted(st: PassT, before: int) -> PassT:
    """The state with its row positions moved by the rows read before its part (dataset positions)."""
    if not before:
        return st
    return replace(
        st,
        id_rows=None
        if st.id_rows is None
        else [  # int32 rows widened
            range(r.start + before, r.stop + before) if isinstance(r, range) else r + np.int64(before)
            for r in st.id_rows
        ],
        gone=None if st.gone is None else [g + before for g in st.gone],
    )


def gathered(cfg: Config, parts: list[PassT]) -> PassT:
    """A fresh state of the parts' model holding the join's collections, rows and drops of the
    parts (disjoint rows, positions already shifted)."""
    first = parts[0]
    out = first.fresh(cfg, first.path, collect=first.ids is not None or first.lost is not None)
    for st in parts:
        out.rows += st.rows
        out.totals = (out.totals[0] + st.totals[0], out.totals[1] + st.totals[1])
        out.count_dropped(st.dropped)
        for name in ("ids", "id_rows", "truth", "lost", "gone"):  # the collections both keep
            mine, theirs = getattr(out, name), getattr(st, name)
            if mine is not None and theirs is not None:
                mine += theirs
    return out


def columns_of(states: Sequence[ModelPass]) -> list[str]:
    return sorted({c for st in states for c in st.columns()})


def column_types(cfg: Config, models: list[ModelConfig]) -> tuple[list[str], list[str]]:
    """(numbers, text): the columns of ``models`` read as float64 and as text (CSV types)."""
    numbers = sorted({c for m in models for c in V.number_columns(cfg, m)})
    text = sorted({c for m in models for c in V.text_columns(columns_for(cfg, m))})
    return numbers, text


def batches(cfg: Config, path: Path, states: Sequence[ModelPass]) -> Generator[tuple[Batch, int], None, None]:
    """(batch, offset) of the file holding ``states``' models: their columns, typed
    (``engine: stream``, and each Dask part); multiclass, at most :data:`MULTICLASS_BATCH_ROWS` rows."""
    rows = cfg.stream.batch_rows if cfg.task != "multiclass" else min(cfg.stream.batch_rows, MULTICLASS_BATCH_ROWS)
    return read_columns(path, columns_of(states), rows, *column_types(cfg, [st.cfg for st in states]))


#: Rows per record batch of a multiclass stream (``stream.batch_rows`` when smaller): a batch's
#: score matrix, its validation masks and its paired records are each several times the batch's
#: Arrow columns, and its pieces of class lists and cells are reduced :data:`TABLE_CHUNK` rows
#: at a time anyway; a batch's temporaries are what the heap keeps between batches. 2M rows x 5
#: classes x 3 models: peak RSS 0.72-0.76 GiB at 2^18 rows, 0.71 at 2^17, the same numbers.
MULTICLASS_BATCH_ROWS = TABLE_CHUNK // 2


@dataclass(frozen=True, slots=True, repr=False, eq=False)
class Reader(Shown):
    """Where the runner gets a file's batches: read from the file in record batches
    (``engine: stream``: :data:`FROM_FILES`, :func:`batches`), or held whole, one batch per file
    at offset 0 however often a pass asks (``engine: memory`` and frames handed to
    :mod:`reportgen.api`: ``whole``). Held files had their columns checked when they were read,
    and their paired pass lines the rows up in memory (:class:`reportgen.io.pairs.RowSpill`)."""

    whole: dict[Path, Batch] | None = None

    @property
    def held(self) -> bool:
        return self.whole is not None

    def batches(self, cfg: Config, path: Path, states: list) -> Iterator[tuple[Batch, int]]:
        """(batch, offset) of the file holding ``states``' models."""
        if self.whole is None:
            return batches(cfg, path, states)
        return iter(((self.whole[path], 0),))


#: The reader of ``engine: stream``: every file read in record batches.
FROM_FILES = Reader()


def plan_files(
    cfg: Config, new: Callable[[int, ModelConfig, Path], PassT], checked: bool = False
) -> dict[Path, list[PassT]]:
    """Each file's models as fresh states (``new(i, m, path)``); columns, and every Parquet part's,
    checked first (``checked``: they were, when the files were read whole — ``engine: memory``)."""
    by_file: dict[Path, list[PassT]] = {}
    for i, m in enumerate(cfg.models):
        path = V.model_file(m)
        if not checked:
            V.check_columns(cfg, i, m, path, columns_in(path))
        by_file.setdefault(path, []).append(new(i, m, path))
    for path, states in by_file.items():
        if not checked:
            check_parts(path, columns_of(states))
    return by_file


def in_order(cfg: Config, states: list) -> list:
    """States (or anything with a ``cfg`` or a ``name``) in the config's model order."""
    order = {m.name: i for i, m in enumerate(cfg.models)}
    return sorted(states, key=lambda st: order[st.cfg.name if hasattr(st, "cfg") else st.name])


def check_totals(cfg: Config, states: list[ModelPass]) -> None:
    """The whole-file rules on each model's kept rows, in config order, before the id join (as
    ``engine: memory`` checks them): some row left; binary, both classes present and weighing
    something; multiclass, some weight in all, then the class list (at least two classes, a cost
    matrix of their size, every model's score columns mapped to them)."""
    for st in states:
        if st.rows == 0:
            raise V.no_rows_left(st.path, st.cfg.name)
        if isinstance(st, ModelState):
            V.check_both_classes(cfg, st.path, st.cols["label"], st.labels, *st.totals, st.cols.get("weight"))
        else:
            V.check_some_weight(st.path, st.cols.get("weight"), st.totals[0])
    counts = [st for st in states if isinstance(st, ModelCounts)]
    if counts:  # multiclass: the class list (configured, or every key met) against the config
        configured = configured_classes(cfg)
        classes = (
            configured
            if configured is not None
            else sorted_classes(
                set().union(
                    *(
                        st.seen_truth | st.seen_pred | (set(st.sc) if isinstance(st.sc, dict) else set())
                        for st in counts
                    )
                )
            )
        )
        check_class_count(cfg, classes, counts[0].path, counts[0].cols["label"])
        for st in counts:
            if st.sc is not None:
                score_order(cfg, st.i, st.sc if isinstance(st.sc, dict) else st.score_cols, classes)


def join_states(cfg: Config, states: list[ModelPass]) -> Join | None:
    """The whole-file rules of pass 1 (:func:`check_totals`), then the id join of the models'
    kept rows (config order; None without an id column); errors as in memory."""
    check_totals(cfg, states)
    if any(st.ids is None for st in states):
        return None
    return A.join_ids(cfg, [st.keyed() for st in states])


def common_rows(
    states: list[ModelPass], reads: list[int], join: Join | None, always: bool = False
) -> tuple[dict[str, np.ndarray] | None, list[tuple[str, str, int]]]:
    """:func:`reportgen.io.align.common_rows` of the states (config order); ``reads``: each model's file length."""
    return A.common_rows(
        [st.cfg.name for st in states],
        reads,
        join,
        [st.keyed().rows for st in states] if join is not None else [],  # a join: every model has ids
        [np.concatenate(st.gone) if st.gone else None for st in states],
        always,
    )


def date_span(seen: list) -> tuple[str, str] | None:
    """First and last date seen (ISO dates), or None."""
    return (min(seen).date().isoformat(), max(seen).date().isoformat()) if seen else None


def note_dates(cfg: Config, batch: Batch, path: Path, offset: int, seen: list | None) -> V.RowFault | None:
    """A batch's first and last date added to ``seen`` (when a date column is set); the first bad
    date is returned as a fault (raised by :func:`checked_batch` with the models' faults)."""
    if cfg.date and seen is not None:
        faults = V.Faults()
        d = dates_of(batch.series(cfg.date), path, cfg.date, offset, faults)
        if faults.best is not None:
            return V.RowFault(faults.best[2], faults.best[0])
        if d.notna().any():
            seen += [d.min(), d.max()]
    return None


def fault_of(fn: Callable[..., Any], *args: Any) -> Any:
    """``fn(*args)``, or the :class:`~reportgen.io.validate.RowFault` it raised (returned): the
    faults of every model of a batch are gathered before the earliest is raised."""
    try:
        return fn(*args)
    except V.RowFault as f:
        return f


def checked_batch(cfg: Config, path: Path, batch: Batch, offset: int, dates: list | None, results: list) -> list:
    """Raise the earliest fault of a batch (:class:`~reportgen.io.validate.RowFault`: its date,
    then each model's rules in config order, ``results`` per model, a fault or a result);
    else the results. Every engine reads a file batch by batch (memory: one batch), so this is
    where "the earliest bad row in the file" is decided."""
    date = note_dates(cfg, batch, path, offset, dates)
    V.earliest([date, *(r for r in results if isinstance(r, V.RowFault))])
    return results


def read_files(
    by_file: dict[Path, list],
    fold: Callable[[Path, list, list], int],
    progress: Progress | None,
    cfg: Config,
    reader: Reader = FROM_FILES,
) -> tuple[dict[Path, int], list, list]:
    """Every file read once (``fold(path, states, seen_dates)``: rows read): (rows read per file,
    dates seen, the states in config order).

    A row fault is raised only once the files after it are known to be readable
    (:func:`parse_rest`): a file that cannot be read is reported before any row rule, as
    ``engine: memory`` (which reads every file first) reports it."""
    read: dict[Path, int] = {}
    seen_dates: list = []
    files = list(by_file.items())
    told = ReadProgress([path for path, _ in files], progress)
    for k, (path, states) in enumerate(files):
        try:
            with told.file(k):
                read[path] = fold(path, states, seen_dates)
        except V.RowFault:
            for later, sts in files[k + 1 :]:
                if parse_rest(reader.batches(cfg, later, sts)) == 0:
                    raise no_rows(later) from None
            raise
        if read[path] == 0:
            raise no_rows(path)
    release_unused()  # the batches' pages, before the join and the next pass grow
    return read, seen_dates, in_order(cfg, [st for _path, sts in files for st in sts])


def parse_rest(read: Any) -> int:
    """Read the rest of a file's batches (``read``: their iterator), checking nothing but that
    they can be read (an error path: a row fault is raised after it); the rows read."""
    return sum(len(batch) for batch, _offset in read)


def read_aligned(
    cfg: Config,
    plan: Callable[[dict[str, np.ndarray] | None], dict[Path, list]],
    read_all: Callable[[dict[Path, list], dict[str, np.ndarray] | None], tuple[dict[Path, int], list, list]],
    always: bool = False,
):
    """Pass 1, and again keeping only the rows every model keeps when some model keeps rows
    another does not, every runner: (by_file, states in config order, rows read per file, dates
    seen, the join's notices, common indexes, rows left out). ``plan(indexes)``: each file's fresh states;
    ``read_all(by_file, indexes)`` reads every file (``indexes`` None: the first reading) →
    (rows read per file, dates seen, states in config order); ``always``: the common indexes
    even when every model keeps every row (Dask, separate datasets: paired by index)."""
    by_file = plan(None)
    read, seen_dates, states = read_all(by_file, None)
    join = join_states(cfg, states)
    indexes, left_out = common_rows(states, [read[st.path] for st in states], join, always)
    if left_out:
        by_file = plan(indexes)
        read, seen_dates, states = read_all(by_file, indexes)
        check_left(cfg, states, join, left_out)
    if join is not None and indexes is None and not join.in_order:
        indexes = {st.cfg.name: join.index(i, st.keyed().rows, read[st.path]) for i, st in enumerate(states)}
    for st in states:  # the join is done: its ids, positions and truth are not held through the next pass
        st.ids = st.id_rows = st.truth = st.lost = st.gone = None
    release_unused()  # the ids' Arrow pages
    return by_file, states, read, seen_dates, () if join is None else join.warnings, indexes, left_out


def check_left(cfg: Config, states: list[ModelPass], join: Join | None, left_out: list) -> None:
    """Files matched by position and read again keeping the rows every model keeps (``left_out``:
    rows were left out): some rows left, binary of both classes (states in config order)."""
    if left_out and join is None:
        first = states[0]
        if isinstance(first, ModelCounts):
            labels = first.seen_truth
        else:
            assert isinstance(first, ModelState)
            labels = first.labels
        positive = V.positive_keys(cfg.positive) if cfg.task == "binary" else None
        A.check_rows_left(str(first.path), first.rows, labels, positive, [st.cfg.name for st in states])


def load_audit_of(
    files: list[FileInfo],
    dropped: list[tuple[str, str, int]],
    left_out: list,
    joined: Sequence[Notice],
    warnings: list[Notice],
    dates: list,
) -> LoadAudit:
    """The load audit of every runner: the rows each model dropped, then the rows left out of
    the comparison; the join's notices (``joined``) before the runner's."""
    return load_audit(files, [*dropped, *left_out], [*joined, *warnings], date_span(dates))


def check_first_batches(cfg: Config) -> tuple[dict[Path, int], bool]:
    """``reportgen validate`` for ``engine: stream`` / ``dask``: the plan and the first batch of each file.

    Checks that every file exists, every column the config names is there, every Parquet part
    holds them, and that the first record batch of each file passes the row rules, without
    reading further: bounded memory, whatever the file's size. Returns the rows checked per file,
    and whether the caller should apply every rule of a run (classes, both classes present,
    weight totals, the id join): when every file ended within its first batch, or the inputs
    hold at most :data:`reportgen.io.files.SMALL_INPUT_BYTES` — then no batch is checked here,
    so that the caller's run reports the fault a run reports (an unreadable row past the first
    batch before a bad row in it, as memory reads every file first)."""
    from reportgen.io import files as F  # noqa: PLC0415

    by_file: dict[Path, list[ModelCounts]] | dict[Path, list[ModelState]]
    if cfg.task == "multiclass":
        _configured, ids, by_file = plan_multiclass(cfg)
        check = functools.partial(fold_counts, cfg, ids=ids)
    else:
        by_file = plan_binary(cfg)
        check = functools.partial(kept_rows, cfg)
    if sum(F.input_bytes(p) for p in by_file) <= F.SMALL_INPUT_BYTES:
        return dict.fromkeys(by_file, 0), True
    checked: dict[Path, int] = {}
    whole = True
    for path, states in by_file.items():
        read = batches(cfg, path, states)
        try:
            first = next(read, None)
            if first is None:
                raise no_rows(path)
            checked_batch(cfg, path, first[0], 0, [], [fault_of(check, st, path, first[0], 0) for st in states])
            checked[path] = len(first[0])
            del first  # the next batch is read only to learn whether the file ended: one batch held at a time
            try:
                whole = whole and next(read, None) is None
            except InputError:  # past the first batch: the run's to report (bounded memory, bounded reading)
                whole = False
        finally:
            read.close()  # the file and its reader closed now, not when the generator is collected
    if not whole:  # the first batches' ids, after every file's row rules (a run: whole-file rules, then the join)
        for st in (st for sts in by_file.values() for st in sts if st.ids is not None):
            check_unique(st.keyed())
    return checked, whole


def check_rows(cfg: Config) -> tuple[list[Notice], tuple[tuple[str, str, int], ...], int]:
    """``reportgen validate`` for ``engine: memory``: every row read and checked as a run checks
    them (files, not SQL sources), without the comparison engine. Returns the notices a run gives about the inputs (the loaders',
    then each model's decision threshold outside its scores), the rows a run drops (model, reason,
    rows) and the rows the first model compares (under ``weight_kind: frequency``, the repeated rows)."""
    ev = load(cfg)
    notices = list(ev.audit.warnings)
    if isinstance(ev, BinaryEvidence):
        notices += [n for n in (m.threshold_notice() for m in ev.models) if n is not None]
    first = ev.models[0]
    rows = first.n_rows if isinstance(first, MulticlassModelEvidence) else first.table.n_rows
    return notices, ev.audit.dropped, int(rows)


def first_fault(cfg: Config, path: Path) -> None:
    """Raise the earliest fault of the dataset ``path`` as ``engine: stream`` meets it, reading its
    parts in order. ``engine: dask`` calls it (an error path only) when a part other than the
    first failed, or the parts' labels together are more than two: a fault that needs the rows
    before it (a third label, first met in another part) or lies on an earlier row than the part's
    own is then named as the other engines name it."""
    if cfg.task == "multiclass":
        _configured, ids, by_file = plan_multiclass(cfg)
        fold_class_file(cfg, by_file[path], ids, path, [])
    else:
        fold_file(cfg, plan_binary(cfg)[path], path, [])


#: ``engine: memory``'s cap on distinct scores (a model's table) and distinct rows (the
#: multiclass row bootstrap): none — every row is in memory already, so nothing is binned.
UNBOUNDED = sys.maxsize


def whole_file_config(cfg: Config) -> Config:
    """The config the runner reads a file held whole with: nothing binned, no sample for bin edges
    (``stream.max_distinct_scores`` unbounded, ``stream.sample_per_batch`` 0); every other value,
    and so every rule and message, as configured."""
    stream = replace(cfg.stream, max_distinct_scores=UNBOUNDED, sample_per_batch=0)
    return replace(cfg, stream=stream)


def load_frames(cfg: Config, frames: dict[Path, Any], files: list[FileInfo]) -> BinaryEvidence | MulticlassEvidence:
    """``engine: memory``: the local runner over files already read whole (``frames[Path(m.file)]``
    holds each model's columns, from :func:`reportgen.io.batches.read_frames` or a DataFrame handed
    to :mod:`reportgen.api`). Each frame is one batch (:class:`Reader`), reduced by the passes and
    accumulators of ``engine: stream`` with nothing binned (:func:`whole_file_config`): the same
    rules, messages, tables and paired statistics; ``files``: the inputs' audit records."""
    reader = Reader({path: Batch(arrow_table(df)) for path, df in frames.items()})
    return runner(cfg)(whole_file_config(cfg), None, reader, files)


def load(cfg: Config, progress: Progress | None = None) -> BinaryEvidence | MulticlassEvidence:
    """``engine: memory`` (every file read whole first, :func:`reportgen.io.batches.read_frames`,
    then :func:`load_frames`) or ``engine: stream``, either task: the evidence.

    The files are hashed for the audit trail as they are read (:class:`reportgen.io.files.Digests`)."""
    if cfg.engine == "memory":
        return load_frames(cfg, *read_frames(cfg, progress))
    with hashing():
        return runner(cfg)(cfg, progress)


def runner(cfg: Config) -> Callable[..., BinaryEvidence | MulticlassEvidence]:
    """The local runner of the config's task, :func:`load_streamed` or :func:`load_streamed_multiclass`:
    ``runner(cfg)(cfg, progress, reader, files)``, ``engine: stream`` (call within
    :func:`reportgen.io.files.hashing`) or memory (``reader``: the files held whole, ``files``
    their audit records; :func:`load_frames`)."""
    return load_streamed_multiclass if cfg.task == "multiclass" else load_streamed


# --------------------------------------------------------------------------------------
# Binary: score tables
# --------------------------------------------------------------------------------------


@dataclass(slots=True, repr=False, eq=False)
class PartTable(Shown):
    """A Dask part's exact table of one model, or its overflow past the distinct-score cap: what
    its state's accumulator becomes once the part is read (:mod:`reportgen.reduce.dask`)."""

    table: ScoreTable | None
    overflowed: bool
    weight_cells: S.CellCounter | None = None  # weighted rows per (score, class, weight)


@dataclass(slots=True, kw_only=True, repr=False, eq=False)
class ModelState(ModelPass):
    """A binary model's pass: its score table (a Dask part's, once read: :class:`PartTable`),
    a sample of its scores, the labels seen."""

    acc: S.TableAccumulator | PartTable
    sample: S.ScoreSample | None = None  # for bin edges; None when nothing is binned (memory)
    #: whether ``sample`` holds every row folded so far; until then (unweighted rows, the table
    #: under its cap) the exact table holds them, and the sample starts from it (:meth:`settled`)
    sampled: bool = False
    labels: set = field(default_factory=set)

    def fold_sample(self, scores: np.ndarray, weighted: bool) -> None:
        """A chunk's kept scores, just added to the table, into the sample for bin edges.

        Unweighted rows are sampled only once the table has passed its cap, from the table kept
        at that moment (every row until then, :meth:`TableAccumulator.take_spilled`): a table
        that stays exact needs no bins, and sampling every row cost about 0.1 s a 10^6-row batch
        and model. The sample is the same either way (:meth:`ScoreSample.add_counts`). Weighted
        rows are sampled from the start (a weighted table does not count rows)."""
        if self.sample is None:
            return
        spilled = self.reading().take_spilled()
        if spilled is not None:
            self._sample_table(spilled)
        elif self.sampled or weighted:
            self.sample.add(S.oriented(scores, self.cfg.direction))
            self.sampled = True

    def reading(self) -> S.TableAccumulator:
        """The accumulator of a pass over rows (not yet a :class:`PartTable`)."""
        assert isinstance(self.acc, S.TableAccumulator)
        return self.acc

    def _sample_table(self, table: ScoreTable) -> None:
        """Every row of an unweighted table (its scores with their row counts) into the sample.

        Never a weighted table: its sums are weights, not rows (weighted rows are sampled as they
        come, :meth:`fold_sample`)."""
        assert self.sample is not None
        self.sample.add_counts(S.oriented(table.thresholds, self.cfg.direction), table.pos + table.neg)
        self.sampled = True

    def settled(self, table: ScoreTable | None) -> S.ScoreSample | None:
        """The sample of every row folded, once the table is finished (``table``: ``acc.table()``,
        None past the cap): a cap passed in the table's last merge spills then; a state whose rows
        are still all in its exact table samples that table."""
        if self.sample is None:
            return None
        spilled = self.acc.take_spilled() if isinstance(self.acc, S.TableAccumulator) else None
        if spilled is not None:
            self._sample_table(spilled)
        if not self.sampled and table is not None:
            self._sample_table(table)
        return self.sample

    def fresh(self, cfg: Config, path: Path, index: np.ndarray | None = None, collect: bool = True) -> ModelState:
        """An empty state of the same model that reads ``path`` (a Dask part, named in errors)."""
        return new_state(cfg, self.cfg, path, index, collect)

    def replica(self) -> ModelState:
        """A state that validates like this one (labels seen, row filter) but collects nothing."""
        return ModelState(self.cfg, self.path, self.cols, acc=self.acc, labels=set(self.labels), index=self.index)


def new_state(
    cfg: Config, m: ModelConfig, path: Path, index: np.ndarray | None = None, collect: bool = True
) -> ModelState:
    """An empty pass-1 state of model ``m`` reading ``path`` (a file, or a Dask part named in errors)."""
    st = ModelState(
        m,
        path,
        columns_for(cfg, m),
        acc=S.TableAccumulator(m.direction, cfg.stream.max_distinct_scores),
        sample=score_sample(cfg),
    )
    return st.collecting(cfg, index, collect)


def score_sample(cfg: Config) -> S.ScoreSample | None:
    """An empty sample for a model's bin edges: ``max(stream.sample_per_batch, 2 · stream.bins)``
    distinct scores, hashed with ``stream.seed`` (:class:`~reportgen.reduce.accumulators.ScoreSample`:
    the same in every engine and batching); None when nothing is binned (``sample_per_batch`` 0)."""
    sc = cfg.stream
    return S.ScoreSample(max(sc.sample_per_batch, 2 * sc.bins), sc.seed) if sc.sample_per_batch else None


def plan_binary(
    cfg: Config, indexes: dict[str, np.ndarray] | None = None, checked: bool = False
) -> dict[Path, list[ModelState]]:
    """Each file's models as fresh pass-1 states (``indexes``, a second reading: each model's
    common index per file row, the rows it keeps)."""
    return plan_files(
        cfg,
        lambda _i, m, path: new_state(cfg, m, path, None if indexes is None else indexes[m.name], indexes is None),
        checked,
    )


#: Bytes of per-row codes pass 1 may keep so that the paired pass need not read the data
#: again: 4 per row and model, 1 per row for the labels (and for each binned model's
#: decisions). 100M rows × 3 models take about 1.4 GB; past the budget the codes are
#: dropped and the paired pass reads the file once more.
ROW_CODES_BUDGET = 2 << 30


@dataclass(slots=True, repr=False, eq=False)
class RowCodes(Shown):
    """Each row's table row per model, kept from pass 1 (one file, unweighted rows).

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

    def score_codes(self, name: str, acc: S.TableAccumulator) -> tuple[int, np.ndarray] | None:
        """The chunk just added to ``acc`` as integer scores relative to the model's first chunk's
        first score: (base, int32 codes), or None when it was not counted densely (overflowed:
        binned later, which keeps bins; or not decimal: no lookup later). Reads ``base`` only,
        so each model's codes are computed in its fold thread; :meth:`add_codes` keeps them."""
        q = acc.chunk_scores()
        if q is None:
            return None
        base = self.base.get(name, int(q[0]) if q.shape[0] else 0)
        # fits in int32: the dense counts span at most S.DENSE_SPAN (2^23) codes, base among them
        return base, (q - base).astype(np.int32)

    def add_codes(self, name: str, coded: tuple[int, np.ndarray] | None) -> None:
        """Keep a chunk's :meth:`score_codes` (None: nothing to keep)."""
        if coded is None or not self.ok:
            return
        self.base.setdefault(name, coded[0])
        if self._spend(coded[1]):
            self.codes.setdefault(name, []).append(coded[1])

    def add_bins(self, name: str, bins: np.ndarray) -> None:
        if self.ok and self._spend(bins):
            self.codes.setdefault(name, []).append(bins)


def kept_rows(cfg: Config, st: ModelState, path: Path, batch: Batch, offset: int):
    """(scores, is_positive, weights, keep) of the batch's valid rows (``keep``: their mask, None = all)."""
    cols = st.cols
    faults = V.Faults()  # every rule over the batch, then the earliest bad row raised
    scores = batch.numeric(cols["score"], path, offset, faults)
    weights = batch.numeric(cols["weight"], path, offset, faults) if "weight" in cols else None
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
        import pyarrow.compute as pc  # noqa: PLC0415

        checks.append(
            (V.missing_id(cols["id"]), np.asarray(pc.is_null(ids).to_numpy(zero_copy_only=False), dtype=bool))
        )
    counts: dict[str, int] = {}
    keep = V.keep_rows(cfg, path, checks, offset, counts, faults) if checks else None
    if weights is not None:
        V.check_weights(path, cols["weight"], weights, keep, offset, faults)
        V.check_whole_weights(cfg, path, cols["weight"], weights, keep, offset, faults)
    V.check_score_range(path, cols["score"], scores, keep, offset, faults)
    if st.cfg.probabilities is True:
        V.check_probabilities(path, st.cfg.name, [cols["score"]], scores, keep, offset, faults)
    labels = batch.distinct(cols["label"], keep)
    if len(st.labels.union(labels)) > 2:
        keys = np.asarray(batch.keys(cols["label"]).to_numpy(zero_copy_only=False), dtype=object)
        rows = np.arange(len(batch)) if keep is None else np.flatnonzero(keep)
        V.third_label(path, cols["label"], st.labels, keys, rows, offset, faults)
    faults.check()
    st.count_dropped(counts)
    keep = st.narrow(keep, offset, len(batch), ids)
    st.labels.update(labels if keep is None or st.index is None else batch.distinct(cols["label"], keep))
    y = batch.matches(cols["label"], V.positive_keys(cfg.positive))
    st.collect(keep, offset, len(batch), ids, y)
    yk, wk = (y, weights) if keep is None else (y[keep], None if weights is None else weights[keep])
    pos = float(yk.sum()) if wk is None else float(wk[yk].sum())
    st.totals = (st.totals[0] + pos, st.totals[1] + (float(yk.shape[0]) - pos if wk is None else float(wk[~yk].sum())))
    if keep is None:
        return scores, y, weights, None
    return scores[keep], y[keep], None if weights is None else weights[keep], keep


def _fold_model(cfg: Config, path: Path, batch: Batch, offset: int, rows: RowCodes | None, st: ModelState):
    """One model's part of a batch in pass 1 (its own state only, so models run in threads): the
    valid rows and, while ``rows`` keeps codes, the chunk's score codes (:meth:`RowCodes.score_codes`);
    a fault is returned (:func:`checked_batch`)."""
    try:
        s, y, w = kept_rows(cfg, st, path, batch, offset)[:3]
    except V.RowFault as f:
        return f
    acc = st.reading()
    acc.add(s, y, w)
    st.fold_sample(s, w is not None)  # a function of the scores alone: any thread, any order
    coded = rows.score_codes(st.cfg.name, acc) if rows is not None and rows.ok and w is None else None
    return s, y, w, coded


def fold_file(
    cfg: Config,
    states: list[ModelState],
    path: Path,
    dates: list | None = None,
    rows: RowCodes | None = None,
    reader: Reader = FROM_FILES,
) -> int:
    """Pass 1 over one file: every batch validated and folded into each model's state; rows read.

    ``dates`` (a list) collects each batch's first and last date when a date column is set;
    ``rows`` keeps each row's codes (labels of the first model, integer scores of each). The
    models of a batch are folded in threads, after the columns they share — the label's missing
    rows, positives and distinct keys — are computed once here; each model's codes are made in
    its thread and kept here; each model's sample for bin edges (a function of its scores alone,
    :class:`~reportgen.reduce.accumulators.ScoreSample`) is added to in its thread.
    """
    offset = 0
    parts = reader.batches(cfg, path, states)
    for batch, offset in parts:
        if len(states) > 1:
            for label in dict.fromkeys(st.cols["label"] for st in states):
                batch.missing(label)
                batch.matches(label, V.positive_keys(cfg.positive))
                batch.distinct(label, None)
        folded = list(ordered_map(functools.partial(_fold_model, cfg, path, batch, offset, rows), states))
        try:
            checked_batch(cfg, path, batch, offset, dates, folded)
        except V.RowFault:
            parse_rest(parts)  # a read error past the fault is the file's first problem (as in memory)
            raise
        for st, (s, y, w, coded) in zip(states, folded):
            if rows is not None and rows.ok:
                if st.dropped or w is not None:
                    rows.drop()
                else:
                    if st is states[0]:
                        rows.add_labels(y)
                    elif y is not rows.y[-1] and not np.array_equal(y, rows.y[-1]):
                        rows.drop()  # labels differ row by row: the paired pass says so
                    rows.add_codes(st.cfg.name, coded)
            st.rows += s.shape[0]
        offset += len(batch)
    return offset


def load_streamed(
    cfg: Config, progress: Progress | None = None, reader: Reader = FROM_FILES, files: list[FileInfo] | None = None
) -> BinaryEvidence:
    """Binary (:func:`runner`): every model's table, exact or binned, and the paired statistics."""
    codes = [RowCodes() if len({m.file for m in cfg.models}) == 1 and len(cfg.models) > 1 else None]

    def read_all(by_file: dict[Path, list[ModelState]], indexes: dict | None) -> tuple[dict[Path, int], list, list]:
        if indexes is not None:
            codes[0] = None
        return read_files(
            by_file, lambda path, sts, dates: fold_file(cfg, sts, path, dates, codes[0], reader), progress, cfg, reader
        )

    by_file, states, read, seen_dates, joined, indexes, left_out = read_aligned(
        cfg, lambda ix: plan_binary(cfg, ix, reader.held), read_all
    )
    rows = codes[0]
    models: list[ModelTable] = []
    lookups: dict[str, tuple[int, Callable[[np.ndarray], np.ndarray]] | None] = {}
    warnings: list[Notice] = []
    dropped: list[tuple[str, str, int]] = []
    for st in [st for sts in by_file.values() for st in sts]:  # file by file (binning reads each again)
        m, path = st.cfg, st.path
        dropped += st.drops()
        if st.rows == 0:
            raise V.no_rows_left(path, m.name)
        exact = st.reading()
        table = exact.table()
        binning, grouper, binned = None, None, None
        if table is None:  # too many distinct scores: bin, with edges from the sample
            acc = S.BinnedAccumulator(binning_edges(cfg, m, st.settled(None)), m.direction)
            kept = rows if rows is not None and rows.ok else None
            if kept is not None:
                kept.codes.pop(m.name, None)
                kept.base[m.name] = 0

            def bin_batch(item: tuple[Batch, int], st: ModelState = st, acc: S.BinnedAccumulator = acc):
                """A batch validated and binned in a thread: (weighted rows, or None; bins, or None)."""
                s, y, w = kept_rows(cfg, st.replica(), st.path, *item)[:3]
                return ((s, y, w), None) if w is not None else (None, acc.bin_rows(s, y))

            for weighted, binned in ordered_map(bin_batch, reader.batches(cfg, path, [st])):
                if binned is None:
                    acc.add(*weighted)
                else:  # the same table as add(): whole-number counts, a minimum per bin
                    acc.fold_rows(binned)
                    if kept is not None and kept.ok:
                        kept.add_bins(m.name, binned[0])
            table, grouper, binning = binned_result(cfg, m.name, acc, warnings)
            binned = acc
        models.append(model_table(cfg, st, table, binning, grouper, binned))
        if rows is not None and rows.ok:
            rows.base.setdefault(m.name, 0)
            lookups[m.name] = exact.row_lookup() if binned is None else (0, binned.row_of_bin().__getitem__)
    models, dropped = in_order(cfg, models), sorted(dropped, key=lambda d: [m.name for m in cfg.models].index(d[0]))
    if len(models) < 2:
        paired, note = None, None
    elif rows is not None and rows.ok and not dropped and all(lookups.get(m.name) is not None for m in models):
        paired, note = _paired_in_memory(cfg, models, rows, {k: v for k, v in lookups.items() if v is not None})
    else:
        if rows is not None:
            rows.drop()
        # a file held whole gives each model its table's own rows: one value sort finds their rows
        # (row_groups); batches search the table's thresholds (exact_grouper)
        exact = (lambda t: functools.partial(row_groups, t)) if reader.held else S.exact_grouper
        pairs = BinaryPairs(
            cfg, ([m.table for m in models], [m.grouper or exact(m.table) for m in models]), [m.file for m in models]
        )
        paired, note = paired_pass(cfg, by_file, states, read, indexes, pairs, reader=reader)
    inputs = files if files is not None else [file_info(p, n) for p, n in read.items()]
    return binary_evidence(
        cfg, models, paired, note, load_audit_of(inputs, dropped, left_out, joined, warnings, seen_dates)
    )


def model_table(
    cfg: Config,
    st: ModelState,
    table: ScoreTable,
    binning: BinningInfo | None,
    grouper: Callable[[np.ndarray], np.ndarray] | None,
    binned: S.BinnedAccumulator | None = None,
) -> ModelTable:
    """A binary model's finished table, every runner: both classes present and weighing something
    (else the error every engine gives); an exact weighted table's rows per (table row, class,
    weight) counted, and its weight sums taken from them, in one order for every engine
    (:func:`~reportgen.reduce.accumulators.table_of_cells`)."""
    m, path = st.cfg, st.path
    V.check_both_classes(
        cfg, path, st.cols["label"], st.labels, table.total_pos, table.total_neg, st.cols.get("weight")
    )
    if binned is not None:  # its rows per (bin, class, weight), kept while binning
        cells, span = binned.table_cells(), binned.score_range()
    else:
        cells = None if st.acc.weight_cells is None else st.acc.weight_cells.cells(table)
        span = None
    return ModelTable(
        m.name,
        str(path),
        m.direction,
        m.probabilities,
        m.threshold,
        S.table_of_cells(table, cells),
        binning,
        grouper,
        cells,
        span,
    )


def binning_edges(cfg: Config, m: ModelConfig, sample: S.ScoreSample) -> np.ndarray:
    """The bin edges of model ``m`` past the cap (stream and dask alike): from its sample, with
    its decision threshold an edge (oriented), so the counts at the threshold stay exact; and,
    for a score where higher is riskier, the float just above 1, so a bin's lowest score
    (its threshold) is above 1 exactly when one of its rows is: the binned table's scores are
    probabilities (log-loss, Brier, calibration) exactly when the rows' are, as memory decides
    (the lowest bin's threshold is the lowest score, so a score below 0 shows too; a top bin
    holding 0.9 and 1.2 gave the log-loss of scores that were no probabilities)."""
    t = m.threshold if m.threshold is not None else cfg.threshold
    cuts: tuple[float, ...] = (float(S.oriented(np.array(t, dtype=np.float64), m.direction)),)
    if m.direction == "higher":
        cuts += (float(np.nextafter(1.0, np.inf)),)
    return S.bin_edges(sample, cfg.stream.bins, cfg.stream.binning, cuts)


def binned_result(
    cfg: Config, name: str, acc: S.BinnedAccumulator, warnings: list[Notice]
) -> tuple[ScoreTable, Callable[[np.ndarray], np.ndarray], BinningInfo]:
    """(table, grouper, BinningInfo) of a binned model; the notice that says so is appended."""
    sc = cfg.stream
    table = acc.table()
    bound = binning_auc_bound(table)
    warnings.append(
        Notice(
            "scores_binned",
            {
                "model": name,
                "max_distinct": sc.max_distinct_scores,
                "bins": table.n_distinct,
                "binning": sc.binning,
                "bound": bound,
            },
        )
    )
    return table, acc.grouper(), BinningInfo(sc.binning, table.n_distinct, sc.max_distinct_scores, bound)


#: A compared row on its way to the paired pass: its row of the model's table, its truth, its
#: weight (1 unweighted) and its position in the file (errors name it).
PAIR_RECORD = np.dtype([("code", np.int64), ("y", np.bool_), ("w", np.float64), ("row", np.int64)])


def pair_records(codes: np.ndarray, y: np.ndarray, w: np.ndarray | None, rows: np.ndarray) -> np.ndarray:
    """Rows as :data:`PAIR_RECORD` records."""
    rec = np.empty(codes.shape[0], dtype=PAIR_RECORD)
    rec["code"], rec["y"], rec["w"], rec["row"] = codes, y, 1.0 if w is None else w, rows
    return rec


class Pairs:
    """The pairing protocol the local and the Dask runners drive (:func:`paired_pass`,
    :mod:`reportgen.reduce.dask`): ``records`` (a batch's compared rows of one model: file
    positions and records of ``dtype``), ``add`` (a range of common rows, every model's records
    side by side), ``merge`` (other rows), ``result``. ``files``: the files errors name (default:
    the configured ones)."""

    dtype: np.dtype
    #: common rows per range of the local runners' spill (:class:`reportgen.io.pairs.RowSpill`):
    #: a range of every model's records is held at once
    range_rows: int = PAIRED_CHUNK

    def __init__(self, cfg: Config, files: list[str] | None) -> None:
        self.cfg, self.names = cfg, [m.name for m in cfg.models]
        self.files = files or [str(m.file) for m in cfg.models]

    def records(self, st: Any, path: Path, batch: Batch, offset: int) -> tuple[np.ndarray, np.ndarray]:
        raise NotImplementedError

    def add(self, recs: list[np.ndarray]) -> None:
        raise NotImplementedError

    def merge(self, other: Any) -> Pairs:
        raise NotImplementedError

    def result(self) -> tuple[Any, None]:
        raise NotImplementedError

    def starting_at(self, at: int) -> Pairs:
        """The pairing of common rows from ``at`` on (rows before it are another pairing's, merged
        before this one); a pairing whose sums do not depend on where its rows start ignores it."""
        return self

    def lined_up(self, recs: list[np.ndarray], frequency: bool) -> np.ndarray | None:
        """Check one range of common rows as memory does: every model's records carry the same
        truth (field ``y``; else memory's error naming the file row, field ``row``) and, under
        frequency weights, the same weight (:func:`~reportgen.reduce.accumulators.check_same_repeats`),
        which is returned as each row's multiplicity (None without ``frequency``)."""
        y = recs[0]["y"]
        for j, r in enumerate(recs[1:], start=1):
            if not np.array_equal(r["y"], y):
                i = int(np.flatnonzero(r["y"] != y)[0])
                check_positions(
                    [self.files[0], self.files[j]],
                    [self.names[0], self.names[j]],
                    [y[i : i + 1], r["y"][i : i + 1]],
                    np.asarray([recs[0]["row"][i]]),
                )
        if not frequency:
            return None
        S.check_same_repeats(self.names, self.files, [r["w"] for r in recs], recs[0]["row"])
        return recs[0]["w"]


class BinaryPairs(Pairs):
    """The paired statistics of binary models over rows put side by side: DeLong's cross-moments,
    McNemar's tables and the pattern counts (:class:`~reportgen.reduce.accumulators.PairedAccumulator`;
    sampling weights: McNemar's tables and the joint weight cells,
    :class:`~reportgen.reduce.accumulators.AgreementAccumulator`; frequency weights: the
    accumulator on the tables of the repeated rows, each row's weight its multiplicity, so every
    statistic is the repeated rows' as in memory). ``shared``: the models' tables and groupers
    (raw score → table row).

    DeLong's cross-moments are float sums, so their last bits depend on which rows are summed
    together: they are summed over the ranges of :data:`PAIRED_CHUNK` common rows (rows 0 …,
    :meth:`starting_at`) and the ranges added in order, whatever batches or parts brought the
    rows (memory sums a file held whole in these pieces; stream's batches and dask's parts cut
    the rows elsewhere, and the DeLong interval of a difference differed in its last bits between
    engines for models of one file, found by fuzzing). A range's rows wait until it is whole
    (at most one open range at each end of a pairing's rows, joined by :meth:`merge`)."""

    dtype = PAIR_RECORD

    def __init__(
        self, cfg: Config, shared: tuple[list[ScoreTable], list | None], files: list[str] | None = None
    ) -> None:
        super().__init__(cfg, files)
        tables, groupers = shared
        self.groupers = groupers
        # frequency weights: a row of weight w is w rows, counted on the tables of the repeated
        # rows with the weight as each row's multiplicity (what memory gets by repeating the rows)
        self.frequency = cfg.weight_kind == "frequency" and any(t.weighted for t in tables)
        self.row_maps: list[np.ndarray | None] = [None] * len(tables)
        if self.frequency:
            tables, self.row_maps = map(list, zip(*(S.frequency_table(t, n) for t, n in zip(tables, self.names))))
        self.acc = S.PairedAccumulator(
            tables,
            [m.threshold if m.threshold is not None else cfg.threshold for m in cfg.models],
            approval_rates=tuple(cfg.approval_rates),
        )
        weighted = any(t.weighted for t in tables)
        luts = joint_cell_luts(tables, self.acc.cuts, tuple(cfg.approval_rates)) if weighted else None
        self.agree = S.AgreementAccumulator(len(tables), cells=S.JointCellCounter(luts)) if weighted else None
        self.cuts = [t.cut_index(c) for t, c in zip(tables, self.acc.cuts)]
        self.at = 0  # the common row the next added row is
        self.open: dict[int, list[tuple]] = {}  # range → its rows so far (codes, correct, y, counts), in order
        self.whole: list[int] = []  # open ranges with all their rows, summed a few at a time (in threads)
        self.sums: dict[int, tuple[np.ndarray, np.ndarray]] = {}  # range → DeLong's (c10, c01) of its rows

    def starting_at(self, at: int) -> BinaryPairs:
        self.at = at
        return self

    def records(self, st: ModelState, path: Path, batch: Batch, offset: int) -> tuple[np.ndarray, np.ndarray]:
        """(file positions, :data:`PAIR_RECORD` records) of one batch's compared rows of one model."""
        s, y, w, keep = kept_rows(self.cfg, st.replica(), path, batch, offset)
        pos = offset + (np.arange(len(batch)) if keep is None else np.flatnonzero(keep))
        assert self.groupers is not None  # None only for the pairing of codes kept in memory
        return pos, pair_records(self.groupers[self.names.index(st.cfg.name)](s), y, w, pos)

    def add(self, recs: list[np.ndarray]) -> None:
        """One range of common rows (labels that differ row by row are memory's error)."""
        counts = self.lined_up(recs, self.frequency)
        y = recs[0]["y"]
        codes = [r["code"] if lut is None else lut[r["code"]] for r, lut in zip(recs, self.row_maps)]
        correct = [(c < ci) == y for c, ci in zip(codes, self.cuts)]
        if self.agree is not None:
            weights = [r["w"] for r in recs]
            self.agree.add(correct, weights)
            if self.agree.cells is not None:
                self.agree.cells.add(codes, y, weights)
        else:
            self.add_rows(codes, correct, y, counts)

    def add_rows(
        self, codes: list[np.ndarray], correct: list[np.ndarray], y: np.ndarray, counts: np.ndarray | None = None
    ) -> None:
        """Rows ``self.at …`` (each model's table row and whether its decision was right), cut at
        the ranges of :data:`PAIRED_CHUNK` common rows; the ranges made whole are summed once a
        few of them wait (in threads: bounded memory, k × range placement matrices)."""
        lo = 0
        while lo < y.shape[0]:
            r = self.at // PAIRED_CHUNK
            hi = min(y.shape[0], lo + (r + 1) * PAIRED_CHUNK - self.at)
            part = slice(lo, hi)
            self.open.setdefault(r, []).append(
                (
                    [c[part] for c in codes],
                    [x[part] for x in correct],
                    y[part],
                    None if counts is None else counts[part],
                )
            )
            self.at += hi - lo
            lo = hi
            if self.at % PAIRED_CHUNK == 0 and sum(p[2].shape[0] for p in self.open[r]) == PAIRED_CHUNK:
                self.whole.append(r)
        if len(self.whole) >= THREADS:
            self._sum(self.whole)

    def _sum(self, ranges: list[int]) -> None:
        """The terms of the open ``ranges``, each summed over its rows at once (DeLong's kept apart by range)."""

        def terms(r: int) -> tuple:
            rows = self.open.pop(r)

            def cat(i: int) -> Any:
                return (
                    rows[0][i]
                    if len(rows) == 1
                    else [np.concatenate([p[i][m] for p in rows]) for m in range(len(rows[0][i]))]
                )

            counts = None if rows[0][3] is None else np.concatenate([p[3] for p in rows])
            return self.acc.moments(cat(0), cat(1), np.concatenate([p[2] for p in rows]), counts)

        ranges = list(ranges)
        for r, (c10, c01, *rest) in zip(ranges, ordered_map(terms, ranges)):
            self.sums[r] = (c10, c01)
            self.acc.add_moments((0.0, 0.0, *rest))  # counts: exact in any order
        self.whole = [r for r in self.whole if r in self.open]

    def merge(self, other: BinaryPairs) -> BinaryPairs:
        """Add the pairing of the common rows that follow this one's."""
        if self.agree is not None:
            assert other.agree is not None  # pairings of one run: weighted alike
            self.agree.merge(other.agree)
            return self
        self.acc.merge(other.acc)
        self.sums.update(other.sums)
        for r, rows in other.open.items():  # a range cut between the two: its rows joined, in order
            self.open.setdefault(r, []).extend(rows)
        self.at = other.at
        self._sum([r for r, rows in self.open.items() if sum(p[2].shape[0] for p in rows) == PAIRED_CHUNK])
        return self  # (a merged pairing is sent on: no range waits whole)

    def result(self) -> tuple[S.PairedAccumulator | S.AgreementAccumulator, None]:
        if self.agree is not None:
            return self.agree, None
        self._sum(sorted(self.open))  # the last range, short of PAIRED_CHUNK rows
        k = len(self.acc.tables)
        self.acc.c10, self.acc.c01 = np.zeros((k, k)), np.zeros((k, k))
        for r in sorted(self.sums):  # the ranges in order, as one pass over every row adds them
            self.acc.c10 += self.sums[r][0]
            self.acc.c01 += self.sums[r][1]
        return self.acc, None


def paired_pass(
    cfg: Config,
    by_file: dict[Path, list[ModelPass]],
    states: list[ModelPass],
    read: dict[Path, int],
    indexes: dict[str, np.ndarray] | None,
    pairs: Pairs,
    alone: bool = False,
    reader: Reader = FROM_FILES,
) -> tuple[Any, str | None]:
    """The paired statistics over the rows every model keeps, or the reason code why there are
    none (files of different lengths without an id); ``alone``: a single model's pass too (its
    rows, for the row bootstrap).

    Every model's compared rows (``pairs.records``) are put side by side range by range and added
    (``pairs.add``): each model's records are spilled by their common index (``indexes``: per
    model, each file row's; None when every model keeps the same rows in the same order), then
    lined up (:class:`reportgen.io.pairs.RowSpill`); with one file the batches already line up."""
    if len(states) < 2 and not alone:
        return None, None
    if indexes is None and len(set(read.values())) > 1:
        return None, LENGTHS_DIFFER
    names = [st.cfg.name for st in states]
    one_file = len(by_file) == 1
    with RowSpill(len(states), states[0].rows, pairs.dtype, pairs.range_rows, held=reader.held) as spill:
        for path, sts in by_file.items():
            seen = dict.fromkeys((st.cfg.name for st in sts), 0)
            for batch, offset in reader.batches(cfg, path, sts):
                recs: list = [None] * len(states)
                # each model's records in a thread (its own state; numpy and pyarrow release the GIL)
                found = list(ordered_map(functools.partial(_records, pairs, path, batch, offset), sts))
                for st, (pos, rec) in zip(sts, found):
                    name = st.cfg.name
                    j = names.index(name)
                    recs[j] = rec
                    if not one_file:
                        at = (
                            indexes[name][pos]
                            if indexes is not None
                            else np.arange(seen[name], seen[name] + pos.shape[0])
                        )
                        spill.add(j, at, rec)
                    seen[name] += pos.shape[0]
                if one_file:
                    pairs.add(recs)
        for _lo, _hi, recs in [] if one_file else spill.chunks():
            pairs.add(recs)
            del recs  # one range held at a time, not this one while the next is read
    release_unused()
    return pairs.result()


def _records(pairs: Pairs, path: Path, batch: Batch, offset: int, st: ModelPass) -> tuple[np.ndarray, np.ndarray]:
    """``pairs.records`` of one model's rows of a batch (:func:`paired_pass`, in a thread)."""
    return pairs.records(st, path, batch, offset)


def _paired_in_memory(
    cfg: Config,
    models: list[ModelTable],
    rows: RowCodes,
    lookups: dict[str, tuple[int, Callable[[np.ndarray], np.ndarray]]],
) -> tuple[S.PairedAccumulator | S.AgreementAccumulator | None, str | None]:
    """The paired pass from the codes kept in pass 1: each chunk's table rows by lookup, added to
    the pairing in order (its sums by range of common rows, whatever the batches)."""
    if len(models) < 2:
        return None, None
    pairs = BinaryPairs(cfg, ([m.table for m in models], None))
    cuts = pairs.cuts
    lengths = [y.shape[0] for y in rows.y]
    for m in models:
        if [c.shape[0] for c in rows.codes.get(m.name, [])] != lengths:
            raise AssertionError(f"codes of model '{m.name}' out of step with the labels")

    def chunk_rows(piece: tuple[int, int]) -> tuple[list[np.ndarray], list[np.ndarray], np.ndarray]:
        """Rows ``lo:lo + PAIRED_CHUNK`` of the i-th chunk: their table rows by lookup and whether
        each model was right (in a thread; bounded memory: a batch held whole is taken in pieces)."""
        i, lo = piece
        part = slice(lo, lo + PAIRED_CHUNK)
        y = rows.y[i][part]
        found, right = [], []
        for m, ci in zip(models, cuts):
            qmin, rows_of = lookups[m.name]
            codes, shift = rows.codes[m.name][i][part], rows.base[m.name] - qmin
            r = rows_of(codes + shift if shift else codes)
            found.append(r)
            right.append((r < ci) == y)  # by table row: a binned model decides per bin, as its metrics
        return found, right, y

    pieces = [(i, lo) for i, y in enumerate(rows.y) for lo in range(0, y.shape[0], PAIRED_CHUNK)]
    for found, right, y in ordered_map(chunk_rows, pieces):
        pairs.add_rows(found, right, y)
    rows.drop()
    return pairs.result()


# --------------------------------------------------------------------------------------
# Multiclass: confusion matrices and class tables
# --------------------------------------------------------------------------------------


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


@dataclass(slots=True, repr=False, eq=False)
class ModelCounts(ModelPass):
    """A multiclass model's pass: its counts (:class:`~reportgen.reduce.class_counts.ClassCounts`)
    and the class keys seen in its truth and predictions."""

    TASK: ClassVar[str] = "multiclass"
    i: int = 0
    sc: dict[str, str] | list[str] | None = None
    counts: ClassCounts = field(default_factory=lambda: ClassCounts(0))
    seen_truth: set = field(default_factory=set)
    seen_pred: set = field(default_factory=set)
    #: the class keys by class id: the truth collected for the join is class ids (a byte a row,
    #: not an object per row), named by these in its errors
    class_keys: list = field(default_factory=list)

    def fresh(self, cfg: Config, path: Path, index: np.ndarray | None = None, collect: bool = True) -> ModelCounts:
        """An empty copy that reads ``path`` (a Dask part, named in errors); ``index``: keep only the
        rows every model keeps (:func:`reportgen.io.align.common_index`)."""
        out = ModelCounts(
            self.cfg, path, self.cols, self.score_cols, i=self.i, sc=self.sc, counts=class_counts(cfg, self.score_cols)
        )
        return out.collecting(cfg, index, collect)

    def keyed(self) -> Keyed:
        return replace(ModelPass.keyed(self), classes=tuple(self.class_keys))  # (slots: no bare super())

    def merge_pending(self, cap: int, final: bool = False) -> None:
        """The counts' pending tables merged; once every row is read (``final``), a score column
        past the cap is an error (:meth:`~reportgen.reduce.class_counts.ClassCounts.merge_pending`)."""
        j = self.counts.merge_pending(cap)
        if j is not None and final:
            raise InputError(
                f"{self.path}: column '{self.score_cols[j]}' (model '{self.cfg.name}') has more than {cap:,} distinct "
                f"scores; streamed multiclass tables are not binned: round the scores (e.g. to 6 decimals) or raise "
                f"'stream.max_distinct_scores'"
            )


def plan_multiclass(
    cfg: Config, indexes: dict[str, np.ndarray] | None = None, checked: bool = False
) -> tuple[list[str] | None, ClassIds, dict[Path, list[ModelCounts]]]:
    """Columns checked; the configured classes, the class ids to start from and each file's models.

    Without configured classes the ids start with the keys of score mappings (classes, as in
    memory), so every reader of the data (each Dask part too) starts from the same ids.
    """
    configured = configured_classes(cfg)
    ids = ClassIds(configured)
    return (
        configured,
        ids,
        plan_files(
            cfg,
            lambda i, m, path: new_counts(cfg, i, m, path, configured, ids).fresh(
                cfg, path, None if indexes is None else indexes[m.name], indexes is None
            ),
            checked,
        ),
    )


def new_counts(
    cfg: Config, i: int, m: ModelConfig, path: Path, configured: list[str] | None, ids: ClassIds
) -> ModelCounts:
    """Model ``i``'s state, its score columns in class order (a mapping's: its keys are classes,
    numbered first, unless ``classes`` are configured)."""
    sc = score_columns(m)
    if isinstance(sc, dict):
        classes = configured if configured is not None else sorted_classes(set(sc))
        score_cols = [list(sc.values())[j] for j in score_order(cfg, i, sc, classes)]
        if configured is None:
            ids.of(np.array(sorted_classes(set(sc)), dtype=object))
    else:
        score_cols = list(sc or [])
    return ModelCounts(m, path, columns_for(cfg, m), score_cols, i=i, sc=sc, counts=class_counts(cfg, score_cols))


def class_counts(cfg: Config, score_cols: list[str]) -> ClassCounts:
    """Empty counts of a model with these score columns (class order), the config's cost matrix
    for the cost-optimal rule."""
    costs = np.asarray(cfg.costs, dtype=np.float64) if isinstance(cfg.costs, list) else None
    return ClassCounts(len(score_cols), costs=costs)


def _keys(batch: Batch, name: str) -> np.ndarray:
    """The column's keys per row (:func:`reportgen.io.validate.keys`) from the arrow column's
    few distinct values, without a pandas column of one Python string per row."""
    codes, names = batch.codes(name)
    return names[codes]


def class_rows(cfg: Config, st: ModelCounts, ids: ClassIds, batch: Batch, path: Path, offset: int):
    """(keep, truth, pred, scores, weights) of one batch for one model: every row validated
    (errors name the global row), ``keep`` the rows compared; ids and drops collected."""
    cols, n = st.cols, len(batch)
    faults = V.Faults()  # every rule over the batch, then the earliest bad row raised
    truth = _keys(batch, cols["label"])
    pred = _keys(batch, cols["prediction"]) if "prediction" in cols else None
    scores = np.column_stack([batch.numeric(c, path, offset, faults) for c in st.score_cols]) if st.score_cols else None
    weights = batch.numeric(cols["weight"], path, offset, faults) if "weight" in cols else None
    # ids as pyarrow int64 or strings (kept for the join): a Python str per row held 4x the bytes
    id_keys = batch.ids(cols["id"]) if "id" in cols else None
    checks = V.multiclass_checks(cols, truth, pred, st.score_cols, scores, weights, id_keys)
    dropped: dict[str, int] = {}
    keep = V.keep_rows(cfg, path, checks, offset, dropped, faults)
    if weights is not None:
        V.check_weights(path, cols["weight"], weights, keep, offset, faults)
        V.check_whole_weights(cfg, path, cols["weight"], weights, keep, offset, faults)
    keep = np.ones(n, dtype=bool) if keep is None else keep
    if scores is not None and st.cfg.probabilities is True:
        V.check_probabilities(path, st.cfg.name, st.score_cols, scores, keep, offset, faults)
    if ids.fixed:
        for role, values in (("label", truth), ("prediction", pred)):
            if values is not None:
                V.check_classes(path, cols[role], values, keep, list(ids.index), offset, faults)
    faults.check()
    st.count_dropped(dropped)
    keep = st.narrow(keep, offset, n, id_keys)
    assert keep is not None  # narrowed from a mask: a mask
    if st.truth is not None:  # the join's truth: the kept rows' class ids in the narrowest type
        y = ids.of(kept(truth, keep))
        st.class_keys = list(ids.index)
        codes = np.zeros(n, dtype=np.min_scalar_type(-len(st.class_keys)))
        codes[keep] = y
        st.collect(keep, offset, n, id_keys, codes)
    st.totals = (st.totals[0] + (float(keep.sum()) if weights is None else float(weights[keep].sum())), 0.0)
    return keep, truth, pred, scores, weights


def kept(values: Any, keep: np.ndarray) -> Any:
    """``values[keep]`` (rows, read only): ``values`` itself when every row is kept, not a copy of
    a batch's score matrix per use."""
    return values if keep.all() else values[keep]


def fold_counts(cfg: Config, st: ModelCounts, path: Path, batch: Batch, offset: int, ids: ClassIds) -> None:
    """Validate one batch for one model and add its kept rows to the model's counts."""
    keep, truth, pred, scores, weights = class_rows(cfg, st, ids, batch, path, offset)
    if not keep.any():
        return
    truth = kept(truth, keep)
    st.seen_truth.update(np.unique(truth.astype(str)).tolist())
    y = ids.of(truth)
    if scores is not None:
        scores = kept(scores, keep)
    if pred is not None:
        pred = kept(pred, keep)
        st.seen_pred.update(np.unique(pred.astype(str)).tolist())
        a = ids.of(pred)
    else:  # argmax of the score columns (class order): the prediction is a column position
        a = np.argmax(scores, axis=1).astype(np.int64)
    st.rows += int(y.shape[0])
    if st.counts.add(y, a, None if weights is None else kept(weights, keep), scores, len(ids.index)):
        st.merge_pending(cfg.stream.max_distinct_scores)


def fold_class_file(
    cfg: Config, states: list[ModelCounts], ids: ClassIds, path: Path, seen_dates: list, reader: Reader = FROM_FILES
) -> int:
    """Every batch of one file (or Dask part) validated and folded into its models' counts; rows read."""
    offset = 0
    parts = reader.batches(cfg, path, states)
    for batch, offset in parts:
        try:
            checked_batch(
                cfg,
                path,
                batch,
                offset,
                seen_dates,
                [fault_of(fold_counts, cfg, st, path, batch, offset, ids) for st in states],
            )
        except V.RowFault:
            parse_rest(parts)  # a read error past the fault is the file's first problem (as in memory)
            raise
        offset += len(batch)
    return offset


def combine(parts: list[ModelCounts], to_ids: list[np.ndarray], n_ids: int, cfg: Config) -> ModelCounts:
    """One model's counts over disjoint row sets (positions already in the dataset), each indexing
    classes its own way, in common ids (``to_ids[p]``: part p's class ids → the common ones)."""
    keys: list = [None] * n_ids
    for st, to in zip(parts, to_ids):  # the join's truth in the common ids
        if st.truth is not None:
            st.truth = [to[t] for t in st.truth]
        for i, key in enumerate(st.class_keys):
            keys[int(to[i])] = key
    out = gathered(cfg, parts)
    out.class_keys = keys
    out.counts.combine([p.counts for p in parts], to_ids, n_ids, "prediction" in out.cols)
    for st in parts:
        out.seen_truth |= st.seen_truth
        out.seen_pred |= st.seen_pred
    out.merge_pending(cfg.stream.max_distinct_scores)
    return out


def conclude(
    cfg: Config, states: list[ModelCounts], configured: list[str] | None, ids: ClassIds
) -> tuple[list[str], list[MulticlassModelEvidence], list[Notice], list[tuple[str, str, int]]]:
    """(classes, counts per model in class order, warnings, dropped rows) once every row is folded."""
    for st in states:
        if st.rows == 0:
            raise V.no_rows_left(st.path, st.cfg.name)
        st.merge_pending(cfg.stream.max_distinct_scores, final=True)
        V.check_some_weight(st.path, st.cols.get("weight"), float(st.counts.conf.sum()))
    seen_truth = set().union(*(st.seen_truth for st in states))
    seen_pred = {st.cfg.name: st.seen_pred for st in states if "prediction" in st.cols}
    classes = configured if configured is not None else sorted_classes(set(ids.index))
    check_class_count(cfg, classes, states[0].path, states[0].cols["label"])
    to_final = np.array([classes.index(c) for c in ids.index], dtype=np.int64)  # id → class index
    models = []
    for st in states:
        if st.sc is not None:
            score_order(cfg, st.i, st.sc if isinstance(st.sc, dict) else st.score_cols, classes)  # errors as in memory
        by_class = "prediction" in st.cols
        conf, tables, proba = st.counts.finish(len(classes), to_final, by_class)
        models.append(
            MulticlassModelEvidence(
                st.cfg.name, str(st.path), conf, st.counts.rows, tables, st.counts.weighted, by_class, proba
            )
        )
    warnings = class_warnings(classes, seen_truth, seen_pred)
    dropped = [d for st in states for d in st.drops()]
    return classes, models, warnings, dropped


def load_streamed_multiclass(
    cfg: Config, progress: Progress | None = None, reader: Reader = FROM_FILES, files: list[FileInfo] | None = None
) -> MulticlassEvidence:
    """Multiclass (:func:`runner`): every model's counts, exact, and the joint counts against the
    baseline (McNemar's tables, the paired bootstrap)."""
    plan: list = []

    def read_all(by_file: dict[Path, list[ModelCounts]], _indexes: dict | None) -> tuple[dict[Path, int], list, list]:
        return read_files(
            by_file,
            lambda path, sts, dates: fold_class_file(cfg, sts, plan[-1][1], path, dates, reader),
            progress,
            cfg,
            reader,
        )

    def planned(indexes: dict[str, np.ndarray] | None) -> dict[Path, list[ModelCounts]]:
        plan.append(plan_multiclass(cfg, indexes, reader.held))
        return plan[-1][2]

    by_file, states, read, seen_dates, joined, indexes, left_out = read_aligned(cfg, planned, read_all)
    classes, models, warnings, dropped = conclude(cfg, states, plan[-1][0], plan[-1][1])
    mcnemar, note = paired_pass(
        cfg,
        by_file,
        states,
        read,
        indexes,
        McNemarPairs(cfg, classes, [str(st.path) for st in states], least_distinct(cfg, models)),
        alone=cfg.bootstrap.resamples > 0,
        reader=reader,
    )
    inputs = files if files is not None else [file_info(p, n) for p, n in read.items()]
    return multiclass_evidence(
        cfg, classes, models, mcnemar, note, load_audit_of(inputs, dropped, left_out, joined, warnings, seen_dates)
    )


def least_distinct(cfg: Config, models: list[MulticlassModelEvidence]) -> int:
    """Distinct compared rows there are at least, known from pass 1: a model's class tables hold
    each column's distinct (true class, score) pairs, and rows differing there differ (0 with
    weights: a row of frequency weight 0 stands for no row)."""
    if cfg.weight is not None or any(m.weight is not None for m in cfg.models):
        return 0
    tables = [m.tables for m in models if m.tables is not None]
    return max((t.n_entries(j) for t in tables for j in range(t.k)), default=0)


#: Distinct rows held in pending parts before they are merged (their union compressed again).
PENDING_DISTINCT = 1_000_000

#: Compared rows compressed at once (:meth:`McNemarPairs.add`): the row matrix, its keys and their
#: sort are a few times this many rows × columns.
DISTINCT_CHUNK = 1 << 17


@dataclass(frozen=True, slots=True, repr=False, eq=False)
class JointCounts(Shown):
    """Each model's joint confusion counts against the baseline, (k, k, k) [truth, baseline's
    class, model's class]: ``weighted`` in weight sums, ``rows`` in rows (McNemar under sampling
    weights counts rows: the weights never inflate its evidence); ``integral``: every weight is a
    whole number (the weighted counts are counts, e.g. frequency weights); ``weighted``: a weight
    other than 1 was seen."""

    weighted: dict[str, np.ndarray]
    rows: dict[str, np.ndarray]
    integral: bool
    has_weights: bool
    #: the compared rows as distinct rows with counts (:mod:`reportgen.engine.distinct_rows`), for
    #: the row bootstrap; None without resamples or past ``stream.max_distinct_scores`` distinct rows
    distinct: DR.DistinctRows | None = None
    #: per challenger with class scores (both it and the baseline), rows (frequency weights: their
    #: sums) by (true class, the row's Brier error minus the baseline's, rounded:
    #: :func:`~reportgen.engine.class_probabilities.brier_difference_cells`)
    brier: dict[str, np.ndarray] = field(default_factory=dict)


class McNemarPairs(Pairs):
    """The joint confusion counts of multiclass models against the baseline (true class, the
    baseline's predicted class, the model's), over rows put side by side — McNemar's tables and
    the paired bootstrap of confusion-metric differences are functions of them
    (:func:`reportgen.reduce.evidence_of.joint_pairing`).
    ``shared``: the class list. Counted in weight sums and in rows (:class:`JointCounts`), and
    the rows themselves as distinct rows with counts (the same rows, in the same order, as the
    in-memory evidence compresses), merged every :data:`PENDING_DISTINCT` rows and dropped past
    ``stream.max_distinct_scores`` (the bootstrap then states ``needs_rows``).

    Its counts are whole numbers and its weights are summed per cell in one order (up to
    :data:`~reportgen.engine.intervals.MAX_WEIGHT_CELLS` cells; past them range by range, in
    ranges of the same size in memory and stream), so its ranges need not be the binary pairing's
    (whose sums are canonical by :data:`~reportgen.io.pairs.PAIRED_CHUNK` ranges): a quarter of
    them, 2^18 rows of every model's records held at once (27 bytes a record without scores:
    21 MiB for three models)."""

    range_rows = PAIRED_CHUNK // 4

    def __init__(self, cfg: Config, shared: list[str], files: list[str] | None = None, least: int = 0) -> None:
        super().__init__(cfg, files)
        self.classes = list(shared)
        k = len(self.classes)
        self.tables = {m.name: np.zeros((k, k, k)) for m in cfg.models if m.name != cfg.baseline_name}
        self.rows = {name: np.zeros((k, k, k)) for name in self.tables}
        # weighted (the run's weight or a model's own): rows per (joint cell, weight), summed in one
        # order at the end (weight_cells); only a run-level weight was counted so, and models
        # weighted by models[i].weight had their tables summed chunk by chunk (last bits per engine)
        weighted = cfg.weight is not None or any(m.weight is not None for m in cfg.models)
        self.cells: dict[str, list | None] = {name: [] for name in self.tables} if weighted else {}
        self.integral, self.has_weights = True, False
        self.layout = [(m.prediction is not None, m.scores is not None) for m in cfg.models]
        self.keep_rows = cfg.bootstrap.resamples > 0
        self.pending: list[DR.DistinctRows] = []
        # past this many distinct rows the scores are not drawn: the rows keep predictions only
        # (when the cap on distinct rows allows so many; else they are dropped there, as before)
        self.score_rows = DR.SCORE_ROWS_MAX_CELLS // max(k, 1)
        # ``least``: distinct rows the compared rows are known to have at least (:func:`least_distinct`);
        # past the score rows the scores would be dropped anyway, so they are never kept nor spilled
        self.scoreless = (
            self.keep_rows and least > self.score_rows and self.score_rows <= cfg.stream.max_distinct_scores
        )
        base_scored = any(m.scores is not None for m in cfg.models if m.name == cfg.baseline_name)
        width = 2 * CP.BRIER_CELLS - 1
        self.brier = (
            {m.name: np.zeros((k, width)) for m in cfg.models if m.name in self.tables and m.scores is not None}
            if base_scored
            else {}
        )
        # a record carries its row's Brier error (``e``) for the Brier changes, its scores only
        # while the kept rows may need them
        scores = [] if self.scoreless else [("p", np.float64, (k,))]
        errors = [("e", np.float64)] if self.brier else []
        # a compared row as this pass keeps it: its true class, the model's class, whether the
        # model was right, its weight and its position in the file (errors name it); the classes
        # in the narrowest signed type that holds their indices (int8 up to 128 classes): a
        # range's records of every model are held, and spilled, at once
        index = np.min_scalar_type(-k)
        record = [("y", index), ("pred", index), ("right", np.bool_), ("w", np.float64), ("row", np.int64)]
        self.dtype = np.dtype([*record, *scores, *errors])

    def records(self, st: ModelCounts, path: Path, batch: Batch, offset: int) -> tuple[np.ndarray, np.ndarray]:
        """(file positions, records (:attr:`dtype`)) of one batch's compared rows of one model."""
        probe = st.fresh(self.cfg, path, st.index, collect=False)
        keep, truth, pred, scores, weights = class_rows(self.cfg, probe, ClassIds(self.classes), batch, path, offset)
        pos = np.flatnonzero(keep)
        import pandas as pd  # noqa: PLC0415  (a class's index among the classes: multiclass McNemar records only)

        y = pd.Index(self.classes).get_indexer(kept(truth, keep)).astype(np.int64)
        if scores is not None:
            scores = kept(scores, keep)
        if pred is not None:
            guess = pd.Index(self.classes).get_indexer(kept(pred, keep)).astype(np.int64)
        else:
            guess = np.argmax(scores, axis=1).astype(np.int64)
        rec = np.empty(pos.shape[0], dtype=self.dtype)
        rec["y"], rec["pred"], rec["right"], rec["row"] = y, guess, guess == y, pos + offset
        rec["w"] = 1.0 if weights is None else kept(weights, keep)
        if not self.scoreless:
            rec["p"] = 0.0 if scores is None else scores
        if self.brier:
            rec["e"] = 0.0 if scores is None else CP.brier_errors(scores, y)
        return pos + offset, rec

    def add(self, recs: list[np.ndarray]) -> None:
        """One range of common rows (labels that differ row by row are memory's error). The
        baseline's weights weigh every pair, as the in-memory evidence weighs them (one weight per
        row: the first model's)."""
        self.lined_up(recs, self.cfg.weight_kind == "frequency")
        b = recs[self.names.index(self.cfg.baseline_name)]
        y = b["y"].astype(np.int64)  # the cell keys below pass the narrow index type's range
        w = recs[0]["w"]
        self.has_weights = self.has_weights or bool(np.any(w != 1))
        self.integral = self.integral and bool(np.array_equal(w, np.round(w)))
        for name, t in self.tables.items():
            r = recs[self.names.index(name)]
            k = t.shape[0]
            cell = (y * k + b["pred"]) * k + r["pred"]
            t += np.bincount(cell, weights=w, minlength=k**3).reshape(k, k, k)
            self.rows[name] += np.bincount(cell, minlength=k**3).reshape(k, k, k)
            self._count_cells(name, [weight_cells([cell], w)])
        frequency = self.cfg.weight_kind == "frequency"  # a row of weight w is w rows (memory repeats it)
        for name, grid in self.brier.items():
            d = CP.brier_difference_cells(recs[self.names.index(name)]["e"], b["e"])
            key = y * grid.shape[1] + d
            grid += np.bincount(key, weights=w if frequency else None, minlength=grid.size).reshape(grid.shape)
        for lo in range(0, b.shape[0] if self.keep_rows else 0, DISTINCT_CHUNK):  # bounded temporaries
            part = [r[lo : lo + DISTINCT_CHUNK] for r in recs]
            wp = w[lo : lo + DISTINCT_CHUNK]
            if self.scoreless:  # each model's predicted class: :func:`DR.without_scores`'s layout
                preds = [
                    r["pred"] if has_pred or has_proba else None for r, (has_pred, has_proba) in zip(part, self.layout)
                ]
                probas: list = [None] * len(part)
            else:
                preds = [r["pred"] if has_pred else None for r, (has_pred, _) in zip(part, self.layout)]
                probas = [r["p"] if has_proba else None for r, (_, has_proba) in zip(part, self.layout)]
            rows = DR.distinct(
                DR.row_matrix(part[0]["y"], None if frequency else wp, preds, probas), wp if frequency else None
            )
            self._keep(DR.DistinctRows(rows.matrix, rows.counts, self.scoreless))

    def _keep(self, part: DR.DistinctRows) -> None:
        """Add compressed rows; merge when the pending parts hold many; past
        :data:`~reportgen.engine.distinct_rows.SCORE_ROWS_MAX_CELLS` distinct rows × classes keep
        the predictions only (:func:`~reportgen.engine.distinct_rows.without_scores`); give up past
        the cap. Both decisions grow with the rows seen, so every batching ends alike."""
        if not self.keep_rows:
            return
        k = len(self.classes)
        self.pending.append(DR.without_scores(part, self.layout, k) if self.scoreless and not part.scoreless else part)
        limit = PENDING_DISTINCT if self.scoreless else min(PENDING_DISTINCT, self.score_rows)
        if len(self.pending) > 1 and sum(p.size for p in self.pending) > limit:
            self.pending = [DR.merged(self.pending)]
        cap = self.cfg.stream.max_distinct_scores
        if not self.scoreless and self.score_rows <= cap and self.pending[0].size > self.score_rows:
            self._drop_scores()
        if self.pending[0].size > cap:
            self.keep_rows, self.pending = False, []

    def _drop_scores(self) -> None:
        """Keep the predictions only, from now on (:meth:`_keep`)."""
        k = len(self.classes)
        self.pending = [DR.without_scores(DR.merged(self.pending), self.layout, k)]
        self.scoreless = True

    def _count_cells(self, name: str, chunks: list) -> None:
        """Weighted cells added to the model's (merged every few chunks; None past the cap)."""
        mine = self.cells.get(name)
        if mine is None or not chunks:
            return
        if any(c is None for c in chunks):
            self.cells[name] = None
            return
        mine += chunks
        if len(mine) >= S.MERGE_EVERY:
            merged = merged_weight_cells(mine)
            self.cells[name] = None if merged is None else [merged]

    def merge(self, other: McNemarPairs) -> McNemarPairs:
        """Counts added, distinct rows united."""
        self.integral, self.has_weights = self.integral and other.integral, self.has_weights or other.has_weights
        for name, t in other.tables.items():
            self.tables[name] += t
            self.rows[name] += other.rows[name]
            if name in self.brier:
                self.brier[name] += other.brier[name]
            if name in self.cells:
                theirs = other.cells.get(name)
                self._count_cells(name, [None] if theirs is None else theirs)
        if not other.keep_rows:  # the other part gave up: so does the union
            self.keep_rows, self.pending = False, []
        if self.keep_rows and other.scoreless and not self.scoreless:
            self._drop_scores()
        for part in other.pending:
            self._keep(part)
        return self

    def result(self) -> tuple[JointCounts, None]:
        for name, chunks in self.cells.items():  # the weight sums in one canonical order (every engine)
            merged = merged_weight_cells(chunks) if chunks else None
            if merged is not None:
                (cell,), w, n = merged
                self.tables[name] = cell_sums(cell, w, n, self.tables[name].size).reshape(self.tables[name].shape)
        distinct = None
        if self.keep_rows:
            distinct = DR.merged(self.pending)
            if not distinct.scoreless and self.score_rows < distinct.size <= self.cfg.stream.max_distinct_scores:
                distinct = DR.without_scores(distinct, self.layout, len(self.classes))
            if not 0 < distinct.size <= self.cfg.stream.max_distinct_scores:
                distinct = None
        return JointCounts(self.tables, self.rows, self.integral, self.has_weights, distinct, self.brier), None
