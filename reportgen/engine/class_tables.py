"""Per-class score tables of a multiclass model: what every multiclass AUC, curve and log-loss needs.

For k classes and a score matrix ``p`` (n, k), the table ``T(j, i)`` lists the distinct values
of score column j among the rows of true class i, ascending, with their (weighted) counts.
That is all the ranking metrics use:

* Hand & Till's A(j|i) (column j separating class j from class i) and the one-vs-rest AUC of
  class j compare ``T(j, j)`` with ``T(j, i)``: :func:`pair_sums`;
* the micro-averaged AUC pools the positive cells ``T(j, j)`` against the negative cells
  ``T(j, i ≠ j)`` of every column: :func:`micro_auc`;
* the log-loss sums −log p over the true class's column, i.e. over ``T(j, j)``:
  :func:`log_loss_sum`;
* the one-vs-rest ROC / PR curve of class j is the binary score table with positives
  ``T(j, j)`` and negatives the merge of ``T(j, i ≠ j)``: :func:`ovr_score_table`.

Why k² sparse lists and not one (distinct scores × k) count matrix per column: with
continuous scores every value occurs about once, so a dense matrix holds n·k counts per
column (n·k² per model), almost all zero; the k² lists hold n entries per column (n·k per
model, twice the bytes of the score matrix itself), and few distinct values (rounded
probabilities) make them small either way.

Tables of disjoint row sets merge exactly by adding counts at equal values
(:func:`merge_class_tables`): the streaming engine builds one per batch and merges them, and
with unit weights every count, every pair sum and hence every AUC is a whole (or half) number
computed exactly, so the streamed result equals the in-memory one bit for bit.
"""

from __future__ import annotations

import math
from collections.abc import Iterator, Sequence
from dataclasses import dataclass

import numpy as np

from reportgen.engine.curve import ScoreTable
from reportgen.value import Shown

#: Probabilities are clipped to [LOG_LOSS_EPS, 1 − LOG_LOSS_EPS] in the log-loss (scikit-learn 1.9).
LOG_LOSS_EPS: float = float(np.finfo(np.float64).eps)


@dataclass(frozen=True, slots=True, eq=False, repr=False)
class ClassTables(Shown):
    """``values[j][i]`` (ascending, distinct) and ``counts[j][i]`` of score column j on class i.

    Attributes:
        k: number of classes (= score columns).
        values, counts: k × k nested tuples of 1-D float64 arrays of equal length per cell.
        n_rows: rows the tables were built from.
        weighted: whether non-unit weights were used.
        p_min, p_max: smallest and largest score anywhere in the matrix (log-loss validity).
        max_row_dev: largest |Σ_j p[r, j] − 1| over rows (notice ``probability_rows_unnormalised``).
    """

    k: int
    values: tuple[tuple[np.ndarray, ...], ...]
    counts: tuple[tuple[np.ndarray, ...], ...]
    n_rows: int
    weighted: bool
    p_min: float
    p_max: float
    max_row_dev: float

    def n_entries(self, j: int) -> int:
        """Entries of column j's tables (≥ its number of distinct scores)."""
        return int(sum(v.shape[0] for v in self.values[j]))

    def class_weight(self) -> np.ndarray:
        """shape (k,): total weight of each true class (from column 0's tables)."""
        return np.array([float(c.sum()) for c in self.counts[0]])


def unit_counts_shared(
    values: Sequence[Sequence[np.ndarray]], counts: Sequence[Sequence[np.ndarray | None]]
) -> tuple[tuple[np.ndarray, ...], ...]:
    """``counts`` of the lists ``values`` with every cell whose counts are all 1 (None: each
    score on one row, as :func:`class_lists` and :func:`merge_lists` give continuous scores
    with unit weights) a view of one read-only array of ones, the same values contiguous from its
    start: the cells hold the longest cell's 8 bytes per entry, not n·k (issue 46)."""
    longest = max((v.shape[0] for row in values for v in row), default=0)
    ones = np.ones(longest)
    ones.setflags(write=False)
    return tuple(
        tuple(
            ones[: v.shape[0]] if c is None or (c.dtype == ones.dtype and bool((c == 1.0).all())) else c
            for v, c in zip(vrow, crow)
        )
        for vrow, crow in zip(values, counts)
    )


def _distinct_weighted(v: np.ndarray, w: np.ndarray) -> tuple[np.ndarray, np.ndarray]:
    """(distinct values ascending, summed weights) of unsorted values with weights."""
    m = v.shape[0]
    if m == 0:
        return v, np.zeros(0)
    order = np.argsort(v, kind="stable")
    s = v[order]
    starts = np.empty(m, dtype=bool)
    starts[0] = True
    np.not_equal(s[1:], s[:-1], out=starts[1:])
    idx = np.flatnonzero(starts)
    return s[idx], np.add.reduceat(w[order], idx)


def build_class_tables(y: np.ndarray, p: np.ndarray, w: np.ndarray | None, k: int) -> ClassTables:
    """The k² tables of rows ``y`` (class indices, shape (n,)) scored ``p`` (n, k), weights ``w``.

    Rows are grouped by class once (a stable radix sort of the small class indices); then per
    score column, the column is gathered in that order and each class's block value-sorted in
    place, and the distinct values of all blocks found in one pass: n·k elements sorted in k²
    pieces, no argsort over all rows (weights need an argsort per block to carry them).
    """
    n = y.shape[0]
    values, counts = class_lists(y, p, w, k)
    if n:
        p_min, p_max = float(p.min()), float(p.max())
        max_dev = float(np.abs(p.sum(axis=1) - 1.0).max())
    else:
        p_min, p_max, max_dev = math.inf, -math.inf, 0.0
    return ClassTables(k, values, unit_counts_shared(values, counts), int(n), w is not None, p_min, p_max, max_dev)


def class_lists(
    y: np.ndarray, p: np.ndarray, w: np.ndarray | None, k: int
) -> tuple[tuple[tuple[np.ndarray, ...], ...], tuple[tuple[np.ndarray | None, ...], ...]]:
    """``(values, counts)``, each q × k nested tuples: column j of ``p`` (n, q) on true class i < k.

    Unweighted, a column whose values are all distinct within each class (continuous scores)
    has counts None (every count 1): the lists of a stream's batches then hold the scores alone,
    not as many float64 ones beside them (issue 46)."""
    n = y.shape[0]
    idx_dtype = np.int16 if k <= np.iinfo(np.int16).max else np.int64
    order = np.argsort(y.astype(idx_dtype, copy=False), kind="stable")
    bounds = np.concatenate([[0], np.cumsum(np.bincount(y, minlength=k))]).astype(np.int64)
    wb = None if w is None else w[order]
    values: list[tuple[np.ndarray, ...]] = []
    counts: list[tuple[np.ndarray | None, ...]] = []
    for j in range(p.shape[1]):
        col = np.ascontiguousarray(p[:, j])[order]
        if wb is None:
            for i in range(k):
                col[bounds[i] : bounds[i + 1]].sort()
            starts = np.empty(n, dtype=bool)
            if n:
                starts[0] = True
                np.not_equal(col[1:], col[:-1], out=starts[1:])
                starts[bounds[1:-1][bounds[1:-1] < n]] = True  # every block starts a run
            cnt: np.ndarray | None
            if np.count_nonzero(starts) == n:  # continuous scores: every value distinct, every count 1
                vals, cnt, cut = col, None, bounds
            else:
                idx = np.flatnonzero(starts)
                vals = col[idx]
                cnt = np.empty(idx.shape[0])
                np.subtract(idx[1:], idx[:-1], out=cnt[:-1], casting="unsafe")
                cnt[-1:] = n - idx[-1:]
                cut = np.searchsorted(idx, bounds)
            del starts
            vj = tuple(vals[cut[i] : cut[i + 1]] for i in range(k))
            cj = tuple(None if cnt is None else cnt[cut[i] : cut[i + 1]] for i in range(k))
        else:
            pairs = [
                _distinct_weighted(col[bounds[i] : bounds[i + 1]], wb[bounds[i] : bounds[i + 1]]) for i in range(k)
            ]
            vj = tuple(v for v, _ in pairs)
            cj = tuple(c for _, c in pairs)
        del col
        values.append(vj)
        counts.append(cj)
    return tuple(values), tuple(counts)


def weighted_pair_lists(
    y: np.ndarray, p: np.ndarray, w: np.ndarray, k: int
) -> tuple[tuple[tuple[np.ndarray, ...], ...], tuple[tuple[np.ndarray | None, ...], ...]]:
    """:func:`class_lists` of weighted rows, keyed by (score, weight) instead of score: per score
    column j and true class i, the distinct pairs as complex numbers ``score + 1j·weight``
    (ascending: by score, then by weight) and the rows of each (whole numbers).

    Lists of disjoint rows merge exactly (:func:`merge_lists`: row counts added at equal pairs),
    so the merged lists of a model are the same arrays however its rows were batched, split into
    parts or ordered; :func:`collapse_pairs` then sums each score's weight in one canonical order.
    Summing the weights as the rows come instead gives a result that depends, in its last bits,
    on the batches (memory, stream and dask disagreed on weighted accuracy and per-class AUCs).
    """
    return class_lists(y, np.asarray(p, dtype=np.float64) + 1j * np.asarray(w, dtype=np.float64)[:, None], None, k)


def collapse_pairs(values: np.ndarray, rows: np.ndarray | None) -> tuple[np.ndarray, np.ndarray]:
    """(distinct scores ascending, weight of each) of a :func:`weighted_pair_lists` list:

        count_s = Σ_pairs rows_c · w_c   (the pairs of score s, by ascending weight; rows None: 1),

    one ``reduceat`` over the canonical order, so one number whatever the engine or batching."""
    if values.shape[0] == 0:
        return np.zeros(0), np.zeros(0)
    score = np.ascontiguousarray(values.real)
    starts = np.empty(score.shape[0], dtype=bool)
    starts[0] = True
    np.not_equal(score[1:], score[:-1], out=starts[1:])
    idx = np.flatnonzero(starts)
    weights = values.imag if rows is None else rows * values.imag
    return score[idx], np.add.reduceat(weights, idx)


def distinct_scores(values: np.ndarray) -> int:
    """Distinct scores of a list (:func:`class_lists`, or the pairs of :func:`weighted_pair_lists`)."""
    if values.shape[0] == 0 or not np.iscomplexobj(values):
        return int(values.shape[0])
    return int(np.count_nonzero(values.real[1:] != values.real[:-1])) + 1


def merge_lists(parts: list[tuple[np.ndarray, np.ndarray | None]]) -> tuple[np.ndarray, np.ndarray | None]:
    """Merge (values ascending, counts) lists of disjoint rows: counts added at equal values.

    Counts None stand for counts of 1 (:func:`class_lists`); lists of such counts whose values
    are all distinct merge to counts None again."""
    parts = [p for p in parts if p[0].shape[0]]
    if not parts:
        return np.zeros(0), None
    if len(parts) == 1:
        return parts[0]
    values = np.unique(np.concatenate([v for v, _ in parts]))
    if values.shape[0] == sum(v.shape[0] for v, _ in parts) and all(c is None for _, c in parts):
        return values, None
    out = np.zeros(values.shape[0])
    for v, c in parts:  # each list's values are distinct: a fancy-index add is exact
        out[np.searchsorted(values, v)] += 1.0 if c is None else c
    return values, out


def merge_class_tables(*parts: ClassTables) -> ClassTables:
    """The tables of the union of disjoint row sets (exact: counts added at equal values)."""
    k = parts[0].k
    if any(t.k != k for t in parts):
        raise ValueError("cannot merge class tables of different numbers of classes")
    values, counts = [], []
    for j in range(k):
        vj, cj = [], []
        for i in range(k):
            v, c = merge_lists([(t.values[j][i], t.counts[j][i]) for t in parts])
            vj.append(v)
            cj.append(c)
        values.append(tuple(vj))
        counts.append(tuple(cj))
    return ClassTables(
        k,
        tuple(values),
        unit_counts_shared(values, counts),
        sum(t.n_rows for t in parts),
        any(t.weighted for t in parts),
        min(t.p_min for t in parts),
        max(t.p_max for t in parts),
        max(t.max_row_dev for t in parts),
    )


def _above_half(v_ref: np.ndarray, cum: np.ndarray, x: np.ndarray) -> np.ndarray:
    """For each x: W(ref > x) + ½·W(ref = x), with ``cum`` = [0, cumsum(ref weights)].

    ``v_ref`` is ascending and distinct, so one search suffices: x equals ``v_ref[lo]`` or
    nothing, and then ``hi = lo + 1``. ``x`` ascending makes the searches walk ``v_ref`` in order.
    """
    lo = np.searchsorted(v_ref, x, side="left")
    hit = v_ref[np.minimum(lo, v_ref.shape[0] - 1)] == x
    hi = lo + hit
    total = cum[-1]
    return (total - cum[hi]) + 0.5 * (cum[hi] - cum[lo])


def pair_sums(t: ClassTables) -> np.ndarray:
    """S (k×k), S[c, i] = Σ over rows r of class i of w_r·(W_c(p[:, c] > p[r, c]) + ½·W_c(=)).

    W_c sums the weights of rows of class c (table ``T(c, c)``). A(c|i) = S[c, i] / (W_c·W_i)
    is Hand & Till's AUC of column c separating class c from class i; the one-vs-rest AUC of
    class c is Σ_{i≠c} S[c, i] / (W_c·(m − W_c)). Mann–Whitney counts with ties as half
    (seed 001 §3). Queries are sorted, so each search walks the reference in order. The
    diagonal is left 0 (not used).
    """
    k = t.k
    S = np.zeros((k, k))
    for c in range(k):
        v_ref, w_ref = t.values[c][c], t.counts[c][c]
        if v_ref.shape[0] == 0:
            continue
        cum = np.concatenate([[0.0], np.cumsum(w_ref)])
        for i in range(k):
            if i == c or t.values[c][i].shape[0] == 0:
                continue
            S[c, i] = float(np.dot(t.counts[c][i], _above_half(v_ref, cum, t.values[c][i])))
    return S


def table_auc(table: ScoreTable) -> float | None:
    """Mann–Whitney AUC of a binary score table, ties as half: Σ_s neg_s·(P(> s) + ½·pos_s) / (P·N).

    With unit weights every term is a whole or half number, so the value is exact whatever
    the order of the rows or of the merges that built the table.
    """
    tp, fp = table.cumulative_view()
    return _mann_whitney(tp, float(fp[-1]), table.pos, table.neg)


def _mann_whitney(tp: np.ndarray, N: float, pos: np.ndarray, neg: np.ndarray) -> float | None:
    """:func:`table_auc` from a table's counts (descending scores), the prefix sums of the
    positives and the negatives' total N (the last of their prefix sums)."""
    P = float(tp[-1])
    if P <= 0 or N <= 0:
        return None
    s = float(np.dot(neg, tp[:-1])) + 0.5 * float(np.dot(neg, pos))
    return min(1.0, max(0.0, s / (P * N)))


def log_loss_sum(t: ClassTables) -> float:
    """Σ_r w_r·(−log clip(p[r, y_r], ε, 1 − ε)) over the true class's column: the tables T(j, j)."""
    total = 0.0
    for j in range(t.k):
        v = t.values[j][j]
        if v.shape[0]:
            total += float(np.dot(t.counts[j][j], -np.log(np.clip(v, LOG_LOSS_EPS, 1.0 - LOG_LOSS_EPS))))
    return total


def log_loss_clipped(t: ClassTables) -> float:
    """The weight of rows whose true class has probability below ε (0 in effect): clipped to ε,
    each adds −log ε ≈ 36.04 to the log-loss sum, whatever the model's actual error."""
    return float(
        sum(t.counts[j][j][t.values[j][j] < LOG_LOSS_EPS].sum() for j in range(t.k) if t.values[j][j].shape[0])
    )


def log_loss_clipping_share(weight: float, mean_loss: float, m: float) -> float | None:
    """The share of the log-loss that clipped probabilities make, or None when no row is clipped.

    ``weight``: the clipped rows' weight (:func:`log_loss_clipped`); ``mean_loss``: the log-loss
    (a mean over ``m``); their share is min(1, weight·(−log ε) / (m·log-loss)). A probability of
    0 for the true class has an infinite loss, so the value reported depends on the constant ε;
    the report warns (notice ``log_loss_clipped``, worded by :mod:`reportgen.report.wording`).
    """
    if weight <= 0 or not mean_loss > 0:
        return None
    return min(1.0, weight * -math.log(LOG_LOSS_EPS) / (m * mean_loss))


def ovr_score_table(t: ClassTables, c: int) -> ScoreTable:
    """Binary score table of column c: positives = rows of class c, negatives = the rest.

    Descending thresholds (``direction="higher"``), as :func:`reportgen.engine.curve.build_table`
    would give on the rows; ``sum_w2`` is not tracked (set to the row count). Built descending,
    each class list's counts added at its values' places (a class list's values are distinct: the
    adds are exact), so a model's column is held about three times, not six.
    """
    vals = [t.values[c][i] for i in range(t.k)]
    values = np.unique(np.concatenate(vals) if vals else np.zeros(0))[::-1].copy()
    last = values.shape[0] - 1
    pos = np.zeros(values.shape[0])
    neg = np.zeros(values.shape[0])
    for i in range(t.k):
        if t.values[c][i].shape[0]:
            target = pos if i == c else neg
            # the list ascends: its places in the descending values are last − its ascending ones
            target[last - np.searchsorted(values[::-1], t.values[c][i])] += t.counts[c][i]
    return ScoreTable(values, pos, neg, "higher", float(t.n_rows), t.n_rows, t.weighted)


#: Pooled cells per block of :func:`micro_blocks`: the micro-average's temporaries are a few
#: arrays of this length, not of a model's n·k cells (issue 46).
MICRO_BLOCK = 1 << 20


def micro_blocks(t: ClassTables, block: int = 0) -> Iterator[tuple[np.ndarray, np.ndarray]]:
    """(pos, neg) of the pooled n·k cells (positive cells (r, y_r)) per distinct score, descending:
    the binary score table's counts without its scores, in blocks of about ``block`` cells
    (0: :data:`MICRO_BLOCK`) from the highest score down, never all at once.

    A block is the scores in [e_q, e_{q+1}) of ascending edges e taken from a strided sample of
    the cells' sorted values, so each score, with all its ties, lies in exactly one block; each
    cell is cut at the edges by search. Within a block the counts are added cell by cell in the
    order (column j, class i), as over the whole table: the same numbers in any blocking.
    Unweighted, rows as int32 (whole numbers below 2³¹, exact), else float64 weights.
    """
    size = block or MICRO_BLOCK
    cells = [(t.values[j][i], t.counts[j][i], i == j) for j in range(t.k) for i in range(t.k)]
    cells = [c for c in cells if c[0].shape[0]]
    if not cells:
        return
    stride = max(1, size // (8 * len(cells)))  # a block's size is off by at most cells × stride
    sample = np.concatenate([v[::stride] for v, _, _ in cells])
    sample.sort()
    edges = np.unique(sample[size // stride :: size // stride])
    cuts = [np.concatenate([[0], np.searchsorted(v, edges), [v.shape[0]]]) for v, _, _ in cells]
    dtype = np.int32 if _int32_rows(t) else np.float64
    for q in range(edges.shape[0], -1, -1):
        parts = [(v[c[q] : c[q + 1]], n[c[q] : c[q + 1]], diag) for (v, n, diag), c in zip(cells, cuts)]
        asc = np.concatenate([v for v, _, _ in parts])
        asc.sort()
        first = np.empty(asc.shape[0], dtype=bool)
        first[:1] = True
        np.not_equal(asc[1:], asc[:-1], out=first[1:])
        asc = asc[first]
        del first
        last = asc.shape[0] - 1
        pos = np.zeros(asc.shape[0], dtype)  # descending: entry last − (ascending position)
        neg = np.zeros(asc.shape[0], dtype)
        for v, n, diag in parts:
            if v.shape[0]:
                target = pos if diag else neg
                target[last - np.searchsorted(asc, v)] += n.astype(dtype, copy=False)
        del asc  # not held while the caller works on the block
        if last >= 0:
            yield pos, neg


def _int32_rows(t: ClassTables) -> bool:
    """Whether the pooled cells' counts and their prefix sums fit in int32 (unit weights)."""
    return not t.weighted and 0 < t.n_rows * t.k < 2**31


def _running(counts: np.ndarray, start: float) -> np.ndarray:
    """[start, start + c₀, start + c₀ + c₁, …] in float64, summed one by one: carried from block
    to block, the prefix sums of the whole table bit for bit (whole numbers exact below 2⁵³)."""
    c = np.empty(counts.shape[0] + 1)
    c[0] = start
    c[1:] = counts
    return np.cumsum(c, out=c)


def micro_auc(t: ClassTables, block: int = 0) -> float | None:
    """AUC of the pooled (row, class) cells: positive cells (r, y_r), the other k − 1 negative.

    P = m (every row has one positive cell), N = (k − 1)·m; ties across cells count as half:
    s = Σ_s neg_s·TP(> s) + ½·Σ_s neg_s·pos_s over :func:`micro_blocks`, the positives' running
    total carried from block to block; AUC = s / (P·N). Unweighted, every term and partial sum
    is a whole or half number, exact while P·N < 2⁵³, so the value is that of the pooled table
    (:func:`table_auc` of :func:`reportgen.engine.curve.build_table` over the raveled score
    matrix) bit for bit, whatever the blocks. Weighted (or past 2⁵³), P and N are the pooled
    table's sums bit for bit, and s may differ from its in the last bits (each block's dot
    products are rounded apart; relative error of order 1e-16 per block); every engine calls
    this one function on the same tables with the same blocks, so they agree exactly.
    """
    tp = fp = cross = ties = 0.0
    for pos, neg in micro_blocks(t, block):
        tps = _running(pos, tp)
        cross += float(np.dot(neg, tps[:-1]))
        ties += float(np.dot(neg, pos.astype(np.float64)))
        tp, fp = float(tps[-1]), float(_running(neg, fp)[-1])
    if tp <= 0 or fp <= 0:
        return None
    return min(1.0, max(0.0, (cross + 0.5 * ties) / (tp * fp)))


def micro_roc_blocks(t: ClassTables, block: int = 0) -> Iterator[tuple[np.ndarray, np.ndarray]]:
    """The micro-averaged ROC curve's points (fpr, tpr) from (0, 0) to (1, 1), in the blocks of
    :func:`micro_blocks`: the prefix sums of the negatives and positives over their totals, the
    values :func:`~reportgen.engine.multiclass.roc_points` gives on the pooled table (the sums
    carried from block to block, and the totals summed in the same order first: unweighted
    exactly from the cells, weighted by a first pass over the blocks). None without a positive or
    a negative cell."""
    if t.weighted:
        P = N = 0.0
        for pos, neg in micro_blocks(t, block):
            P, N = float(_running(pos, P)[-1]), float(_running(neg, N)[-1])
    else:
        P = sum(float(t.counts[j][j].sum()) for j in range(t.k))
        N = sum(float(t.counts[j][i].sum()) for j in range(t.k) for i in range(t.k) if i != j)
    if P <= 0 or N <= 0:
        return
    tp = fp = 0.0
    head = 0  # the first block starts at (0, 0); the others after their predecessor's last point
    for pos, neg in micro_blocks(t, block):
        tps, fps = _running(pos, tp), _running(neg, fp)
        tp, fp = float(tps[-1]), float(fps[-1])
        fps /= N
        tps /= P
        yield fps[head:], tps[head:]
        head = 1


__all__ = [
    "ClassTables",
    "build_class_tables",
    "class_lists",
    "merge_lists",
    "merge_class_tables",
    "micro_auc",
    "micro_blocks",
    "micro_roc_blocks",
    "table_auc",
    "log_loss_sum",
    "log_loss_clipped",
    "log_loss_clipping_share",
    "ovr_score_table",
    "pair_sums",
]
