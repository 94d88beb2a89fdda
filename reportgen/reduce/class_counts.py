"""A multiclass model's counts, ``add`` · ``combine`` · ``finish``: :class:`ClassCounts` (confusion
matrix, class tables, score range) and :class:`ProbabilityCells` (the cells of whole probability
vectors); the binary accumulators are :mod:`reportgen.reduce.accumulators`.
"""

from __future__ import annotations

from dataclasses import dataclass, field

import numpy as np

from reportgen.engine import class_probabilities as CP
from reportgen.engine import class_tables as CT
from reportgen.reduce.accumulators import MERGE_EVERY
from reportgen.reduce.cells import (
    cell_sums,
    concat_cells,
    merged_weight_cells,
    ones_shared,
    ones_view,
    sparse_unit_cells,
    unit_cells,
    weight_cells,
)
from reportgen.value import Shown

#: Rows of a batch reduced at once to class lists and probability cells (:meth:`ClassCounts.add`):
#: their sort keys and ranks are several (rows × classes) int64 arrays; a batch held whole (memory)
#: or of ``stream.batch_rows`` rows is cut into pieces of this many rows.
TABLE_CHUNK = 1 << 18


def _grow(conf: np.ndarray, k: int) -> np.ndarray:
    """The square count matrix ``conf`` padded with zeros to k × k (unchanged when already that large)."""
    if conf.shape[0] >= k:
        return conf
    out = np.zeros((k, k))
    out[: conf.shape[0], : conf.shape[1]] = conf
    return out


def merged_tables(old: dict, columns: list, over: set, cap: int) -> dict:
    """A model's merged class tables ``old`` ((column, class id) → (values, counts)) with the
    batch lists of each column (``columns[j]``: (values per class id, counts) per batch) merged in
    (:func:`~reportgen.engine.class_tables.merge_lists`); a column whose distinct scores pass
    ``cap`` is added to ``over`` and dropped, with its later lists.

    The tables are written one after another into one values array and one counts array, sized
    for every entry being distinct and trimmed in place at the end: no cell is built apart and
    copied again, the tables are one allocation (mapped apart from the heap once large), each
    column's batch lists are let go of once it is merged and the old tables once every cell is."""
    bound = sum(v.shape[0] for key, (v, _c) in old.items() if key[0] not in over)
    bound += sum(
        v.shape[0] for j, batches in enumerate(columns) if j not in over for values, _c in batches for v in values
    )
    kinds = [v.dtype for v, _c in old.values() if v.shape[0]]
    kinds += [a.dtype for batches in columns for v, _c in batches for a in v if a.shape[0]]
    values = np.empty(bound, dtype=np.result_type(np.float64, *kinds))  # complex: weighted pairs
    counts: np.ndarray | None = None
    spans: list = []  # (key, start, stop, start in counts or None)
    at = at_c = 0
    for j in range(len(columns)):
        batches, columns[j] = columns[j], None
        if j in over:
            continue
        first, start, start_c, entries = len(spans), at, at_c, 0
        for i in sorted({i for v, _c in batches for i in range(len(v))} | {i for (jj, i) in old if jj == j}):
            parts = [old.pop((j, i))] if (j, i) in old else []
            parts += [(v[i], c[i]) for v, c in batches if i < len(v)]
            v, c = CT.merge_lists(parts)
            del parts
            n = v.shape[0]
            values[at : at + n] = v
            if c is not None:
                if counts is None:
                    counts = np.empty(bound, dtype=c.dtype)
                counts[at_c : at_c + n] = c
            spans.append(((j, i), at, at + n, None if c is None else at_c))
            at, at_c = at + n, at_c + (0 if c is None else n)
            entries += CT.distinct_scores(v)
        del batches
        if entries > cap:
            over.add(j)
            del spans[first:]
            at, at_c = start, start_c
    # trimmed in place: no view of either array exists yet (each write's slice was a temporary),
    # so a frame's other reference (a debugger's) cannot be left pointing at freed memory
    values.resize(at, refcheck=False)
    if counts is not None:
        counts.resize(at_c, refcheck=False)
    return {
        key: (values[a:b], None if c is None or counts is None else counts[c : c + b - a]) for key, a, b, c in spans
    }


def packed(arrays: list[np.ndarray]) -> list[np.ndarray]:
    """The arrays (1-D) copied into one buffer: views of it, the same dtypes and values.

    Long-lived arrays built among a pass's temporaries (a model's top-label cells) are then one
    allocation. Past glibc's mmap threshold (at most 32 MiB) it is mapped
    apart from the heap and handed back whole when freed, where tens of separately allocated
    arrays would sit among the freed temporaries and keep the heap below them resident."""
    align = 16  # each view starts on a 16-byte boundary (complex128 lists, float64, int64)
    sizes = [-(-a.nbytes // align) * align for a in arrays]
    buf = np.empty(sum(sizes), dtype=np.uint8)
    out, at = [], 0
    for a, size in zip(arrays, sizes):
        view = buf[at : at + a.nbytes].view(a.dtype)
        view[...] = a
        out.append(view)
        at += size
    return out


def _narrowed(a: np.ndarray) -> np.ndarray:
    """Non-negative integers ``a`` in the smallest signed integer type that holds them."""
    return a.astype(np.min_scalar_type(-int(a.max(initial=0)) - 1), copy=False)


@dataclass(slots=True, repr=False, eq=False)
class ProbabilityCells(Shown):
    """A multiclass model's rows reduced for the measures that need each row's whole probability
    vector (:class:`~reportgen.engine.class_probabilities.ProbabilityCounts`), in cells of whole
    numbers of rows (:func:`weight_cells`) that merge by addition; true classes as the runner's
    class ids, the rest as score-column positions (class order), mapped at :meth:`finish`.

    * ``top``: rows per (true id · q + argmax column, max probability's bits, weight): the
      top-label ECE and argmax's confusion matrix;
    * ``rank``: rows per ((true id · q + column) · q + the column's rank in its row, weight):
      top-k accuracy for any k (the true class's column is known only once the classes are);
    * ``optimal``: rows per (true id · q + cost-optimal column, weight), with a q × q cost matrix;
    * ``brier``: rows per ((true id · q + column) · BRIER_CELLS + the row's Brier error were that
      column the true class's, rounded, weight) (:func:`~reportgen.engine.class_probabilities.
      brier_column_cells`): the Brier score's interval.

    The keys are packed into one integer (one sort key: a quarter of the time of three). The
    cells are bounded by the class tables' entries (top), classes · q² (rank), classes · q
    (optimal) and classes · q · BRIER_CELLS (brier), times the distinct weights; :meth:`finish` sums each in one canonical order, so
    the numbers do not depend on the batches, the parts or the row order.
    """

    q: int
    costs: np.ndarray | None
    top: list = field(default_factory=list)
    rank: list = field(default_factory=list)
    optimal: list = field(default_factory=list)
    brier: list = field(default_factory=list)
    #: a merge of the top-label cells left every row its own cell (:meth:`merge`)
    top_distinct: bool = False

    def add(self, y: np.ndarray, p: np.ndarray, w: np.ndarray | None) -> None:
        """One batch: true class ids ``y``, scores ``p`` (rows × q), weights or None."""
        n, q = p.shape
        y = np.asarray(y, dtype=np.int64)
        unit = w is None
        w = np.broadcast_to(1.0, n) if w is None else np.asarray(w, dtype=np.float64)
        conf = np.ascontiguousarray(p.max(axis=1), dtype=np.float64)
        (key, bits), ws, rows = ones_shared(weight_cells([y * q + p.argmax(axis=1), conf.view(np.int64)], w))
        self.top.append(([_narrowed(key), bits], ws, rows))  # a cell per row: its key in int8, not int64
        key = (np.repeat(y * q, q) + np.tile(np.arange(q), n)) * q + CP.column_ranks(p).ravel()
        self.rank.append(unit_cells(key) if unit else weight_cells([key], np.repeat(w, q)))
        if self.costs is not None and self.costs.shape == (q, q):
            key = y * q + CP.cost_optimal_predictions(p, self.costs)
            self.optimal.append(unit_cells(key) if unit else weight_cells([key], w))
        key = (np.repeat(y * q, q) + np.tile(np.arange(q), n)) * CP.BRIER_CELLS + CP.brier_column_cells(p).ravel()
        self.brier.append(sparse_unit_cells(key) if unit else weight_cells([key], np.repeat(w, q)))
        if len(self.rank) >= MERGE_EVERY:
            self.merge()

    def merge(self) -> None:
        """Each list's chunks merged into one; the top-label cells only while merging shrinks them.

        Merging bounds a list by its distinct cells. The top-label cells are one per row unless
        rows share a confidence (rounded scores), so once a merge leaves as many cells as it
        took, merging them again would copy them for nothing: later chunks wait for
        :meth:`finish`, which sorts them all once, and never hold more than a cell per row."""
        for name in ("top", "rank", "optimal", "brier"):
            chunks = getattr(self, name)
            if len(chunks) > 1 and not (name == "top" and self.top_distinct):
                cells = sum(c[1].shape[0] for c in chunks)
                setattr(self, name, [ones_shared(concat_cells(chunks))])
                self.top_distinct = self.top_distinct or (name == "top" and self.top[0][1].shape[0] == cells)

    def _lists(self) -> tuple[tuple[list, int], ...]:
        """Each cell list with how many columns its key packs below the true id (q^span)."""
        return (
            (self.top, self.q),
            (self.rank, self.q * self.q),
            (self.optimal, self.q),
            (self.brier, self.q * CP.BRIER_CELLS),
        )

    def combine(self, other: ProbabilityCells, to: np.ndarray) -> None:
        """Add the cells of disjoint rows whose class ids ``to`` maps to this one's."""
        other.merge()
        for (mine, span), (theirs, _) in zip(self._lists(), other._lists()):
            for (key, *rest), w, rows in theirs:
                mine.append(([to[key // span] * span + key % span, *rest], w, rows))
        self.merge()

    def finish(self, k: int, to_final: np.ndarray) -> CP.ProbabilityCounts:
        """The counts in class indices (``to_final``: class id → class index), each cell list
        re-sorted in class indices so that it sums in the same order from every engine (already in
        that order when ``to_final`` is increasing: configured classes, or ids met in class order)."""
        in_order = bool(np.all(np.diff(to_final) > 0))

        def cells(chunks: list, span: int, keys: int) -> tuple[np.ndarray, np.ndarray, list, np.ndarray, np.ndarray]:
            if not chunks:
                none = np.zeros(0, dtype=np.int64)
                return none, none, [none] * (keys - 1), np.zeros(0), none
            (key, *rest), w, rows = concat_cells(chunks)
            mapped = [to_final[key // span], key % span, *rest]
            del key
            (y, low, *rest), w, rows = (mapped, w, rows) if in_order else weight_cells(mapped, w, rows)
            return y, low, rest, w, rows

        q = self.q
        y, a, (bits,), w, rows = cells(self.top, q, 2)
        ry, low, _, rw, rrows = cells(self.rank, q * q, 1)
        on_true = low // q == ry  # the true class's own column
        optimal = None
        if self.optimal:
            oy, oa, _, ow, orows = cells(self.optimal, q, 1)
            optimal = cell_sums(oy * k + oa, ow, orows, k * k).reshape(k, k)
        brier = None
        if self.brier:
            by, blow, _, bw, brows = cells(self.brier, q * CP.BRIER_CELLS, 1)
            mine = blow // CP.BRIER_CELLS == by  # the true class's own column
            size = k * CP.BRIER_CELLS
            at = by * CP.BRIER_CELLS + blow % CP.BRIER_CELLS
            brier = cell_sums(at[mine], bw[mine], brows[mine], size).reshape(k, CP.BRIER_CELLS)
        index = np.min_scalar_type(-max(k, q))  # class indices and columns: int8 below 128 classes
        y, a, conf = packed([y.astype(index), a.astype(index), bits.view(np.float64)])
        return CP.ProbabilityCounts(
            true=y,
            predicted=a,
            confidence=conf,
            weight=ones_view(w * rows),
            rank=cell_sums((ry * k + low % q)[on_true], rw[on_true], rrows[on_true], k * k).reshape(k, k),
            optimal=optimal,
            brier=brier,
        )


def probability_counts(
    y: np.ndarray, p: np.ndarray, w: np.ndarray | None, costs: np.ndarray | None = None
) -> CP.ProbabilityCounts:
    """The :class:`~reportgen.engine.class_probabilities.ProbabilityCounts` of rows given in class
    indices (``y`` (n,), ``p`` (n, k)), one chunk."""
    cells = ProbabilityCells(p.shape[1], costs)
    cells.add(y, p, w)
    return cells.finish(p.shape[1], np.arange(p.shape[1]))


@dataclass(slots=True, repr=False, eq=False)
class ClassCounts(Shown):
    """One multiclass model's counts over some rows, classes numbered by the runner's class ids.

    * ``conf``: the confusion matrix, one ``bincount`` per batch over ``true·k + predicted``
      (columns are score-column positions when the prediction is the argmax of the scores);
    * class tables (:mod:`reportgen.engine.class_tables`): per score column and true class, the
      distinct scores with their counts (None: every count 1), batch lists ``pending`` merged every
      :data:`MERGE_EVERY` batches into ``merged`` ((column, class id) → (values, counts));
    * the score range and the largest deviation of a row sum from 1 (log-loss validity).

    Weighted rows are counted, not summed, as they come: the class tables per (score, weight)
    pair (:func:`~reportgen.engine.class_tables.weighted_pair_lists`) and the confusion matrix
    per (true, predicted, weight) cell (``cells``, up to
    :data:`~reportgen.engine.intervals.MAX_WEIGHT_CELLS` of them), whole numbers of rows that add
    exactly; :meth:`finish` sums the weights in one canonical order, so a weighted model's
    numbers do not depend on the batches, the parts or the row order (a weight sum does, in its
    last bits, on the order of its additions). Past the cap the matrix is summed as it comes.

    Counts of disjoint rows add exactly (tables merge at equal scores): :meth:`combine`.
    """

    q: int  # score columns (0: a predicted-label column only)
    conf: np.ndarray = field(default_factory=lambda: np.zeros((0, 0)))
    pending: list = field(default_factory=list)
    merged: dict = field(default_factory=dict)
    rows: int = 0
    weighted: bool = False
    p_min: float = np.inf
    p_max: float = -np.inf
    max_dev: float = 0.0
    #: weighted: rows per (true id, predicted id, weight) (:func:`weight_cells`) in chunks; None past the cap
    cells: list | None = field(default_factory=list)
    #: score columns past the cap of :meth:`merge_pending` (their tables dropped; no more are kept)
    over: set = field(default_factory=set)
    #: the config's cost matrix (class order), for the cost-optimal rule's cells
    costs: np.ndarray | None = None
    #: the cells of the whole probability vectors (:class:`ProbabilityCells`); None without scores
    proba: ProbabilityCells | None = None

    def add(self, y: np.ndarray, a: np.ndarray, w: np.ndarray | None, p: np.ndarray | None, n_ids: int) -> bool:
        """One batch: true class ids ``y``, predictions ``a``, weights, scores (rows × q); True when
        the pending lists are due for :meth:`merge_pending`."""
        k = max(n_ids, self.q)
        self.conf = _grow(self.conf, k)
        self.conf += np.bincount(y * k + a, weights=w, minlength=k * k).reshape(k, k)
        self.rows += int(y.shape[0])
        self.weighted = self.weighted or w is not None
        if w is not None and self.cells is not None:
            self.cells.append(weight_cells([y, a], w))
            if len(self.cells) >= MERGE_EVERY:
                self._merge_cells()
        if p is None:
            return False
        self.p_min = min(self.p_min, float(p.min()))
        self.p_max = max(self.p_max, float(p.max()))
        self.max_dev = max(self.max_dev, float(np.abs(p.sum(axis=1) - 1.0).max()))
        k_seen = int(y.max()) + 1
        if self.proba is None:
            self.proba = ProbabilityCells(self.q, self.costs)
        for lo in range(0, y.shape[0], TABLE_CHUNK):  # cells and lists of disjoint rows add exactly
            ys, ps, ws = (
                y[lo : lo + TABLE_CHUNK],
                p[lo : lo + TABLE_CHUNK],
                None if w is None else w[lo : lo + TABLE_CHUNK],
            )
            self.proba.add(ys, ps, ws)
            self.pending.append(
                CT.class_lists(ys, ps, None, k_seen) if ws is None else CT.weighted_pair_lists(ys, ps, ws, k_seen)
            )
        return len(self.pending) >= MERGE_EVERY

    def _merge_cells(self) -> None:
        """The confusion cells' chunks merged into one; past the cap, none kept (``cells`` None)."""
        if self.cells:
            merged = merged_weight_cells(self.cells)
            self.cells = None if merged is None else [merged]

    def merge_pending(self, cap: int) -> int | None:
        """Fold the pending batch lists into the merged tables; the first score column with more
        than ``cap`` entries so far (its position), or None.

        A column past the cap stays past it (``over``: its tables are dropped, and its later
        lists too), so whichever rows were merged when, every engine ends with the same columns
        past the cap: the rows past one are still read and checked, and the error is the
        caller's, once every row is (the runners raise it among the whole-file rules, after
        every bad row: a stream met it in the middle of a file, a Dask part at its end, and so
        each named another fault)."""
        if self.pending:
            # the batches' lists by column (a batch's lists of a column are views of one array)
            columns = [[(values[j], counts[j]) for values, counts in self.pending] for j in range(self.q)]
            self.pending = []
            self.merged = merged_tables(self.merged, columns, self.over, cap)
        return min(self.over) if self.over else None

    def combine(self, parts: list[ClassCounts], to_ids: list[np.ndarray], n_ids: int, by_class: bool) -> None:
        """Add counts of disjoint rows, each part numbering classes its own way: ``to_ids[p]`` maps
        part p's class ids to this one's (``n_ids`` of them). Rows of the confusion matrix, its
        columns when they are predicted classes (``by_class``; else score-column positions) and
        the class of every table cell are remapped; the tables wait in ``pending``."""
        size = max(n_ids, self.q)
        self.conf = _grow(self.conf, size)
        for st, to in zip(parts, to_ids):
            conf = _grow(st.conf, len(to))
            if by_class:
                self.conf[np.ix_(to, to)] += conf[: len(to), : len(to)]
            else:
                self.conf[to, : conf.shape[1]] += conf[: len(to)]
            if self.q:
                values = [[np.zeros(0)] * n_ids for _ in range(self.q)]
                counts: list[list[np.ndarray | None]] = [[None] * n_ids for _ in range(self.q)]
                for (j, i), (v, c) in st.merged.items():
                    values[j][int(to[i])], counts[j][int(to[i])] = v, c
                self.pending.append((values, counts))
            if st.proba is not None:
                if self.proba is None:
                    self.proba = ProbabilityCells(self.q, self.costs)
                self.proba.combine(st.proba, to)
            self.rows += st.rows
            self.over |= st.over
            self.weighted = self.weighted or st.weighted
            self.p_min, self.p_max = min(self.p_min, st.p_min), max(self.p_max, st.p_max)
            self.max_dev = max(self.max_dev, st.max_dev)
            if st.cells is None or self.cells is None:
                self.cells = None
            elif st.cells:
                st._merge_cells()
                if st.cells is None:
                    self.cells = None
                else:
                    (y, a), w, rows = st.cells[0]
                    self.cells.append(([to[y], to[a] if by_class else a], w, rows))
        self._merge_cells()

    def finish(
        self, k: int, to_final: np.ndarray, by_class: bool
    ) -> tuple[np.ndarray, CT.ClassTables | None, CP.ProbabilityCounts | None]:
        """(confusion matrix, class tables, probability counts) with class ids mapped to class
        indices by ``to_final`` (after :meth:`merge_pending`). The tables and cells are handed
        over: the counts keep none of them (the runner's paired pass would hold them twice)."""
        conf = _grow(self.conf, max(k, len(to_final)))
        kk = conf.shape[0]
        rows = np.full(kk, -1, dtype=np.int64)
        rows[: len(to_final)] = to_final
        cols = rows if by_class else np.arange(kk)
        C = np.zeros((k, k))
        for r in np.flatnonzero(conf.sum(axis=1) > 0):
            mask = conf[r] != 0
            C[rows[r], cols[mask]] += conf[r, mask]
        self._merge_cells()
        if self.weighted and self.cells:  # the weights summed per cell in one order, every engine
            (y, a), w, n = self.cells[0]
            (fy, fa), w, n = weight_cells([rows[y], cols[a]], w, n)
            C = cell_sums(fy * k + fa, w, n, k * k).reshape(k, k)
        if not self.q:
            return C, None, None
        values = [[np.zeros(0)] * k for _ in range(k)]
        counts: list[list[np.ndarray | None]] = [[None] * k for _ in range(k)]
        for (j, i), (v, c) in self.merged.items():
            if self.weighted:
                v, c = CT.collapse_pairs(v, c)
            values[j][int(to_final[i])] = v
            counts[j][int(to_final[i])] = c
        tables = CT.ClassTables(
            k,
            tuple(map(tuple, values)),
            CT.unit_counts_shared(values, counts),
            self.rows,
            self.weighted,
            self.p_min,
            self.p_max,
            self.max_dev,
        )
        proba = None if self.proba is None else self.proba.finish(k, to_final)
        self.merged, self.pending, self.proba = {}, [], None  # handed over: each table and cell held once
        return C, tables, proba
