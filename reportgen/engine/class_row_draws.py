"""A block of bootstrap resamples of distinct multiclass rows → every probability metric at once.

The paired stratified bootstrap of a multiclass comparison draws, per resample, how many times
each distinct row is taken (:func:`reportgen.engine.distinct_rows.stratified_multinomial_blocks`).
Each resample is then a weighted sample of the distinct rows, with weight ``W[r, i]`` (drawn
count times the row's weight) for resample r and distinct row i. The ranking metrics of a
weighted sample are Mann–Whitney sums, so for a block of B resamples they are array arithmetic
on (rows, B) matrices, the ranks found once (not per resample):

* per score column c: each row's rank among class c's rows by score, ``lo`` (strictly below) and
  ``hi`` (at most), found once (``lo`` only where a negative ties a positive): by
  ``searchsorted`` among the pooled positive cells (the micro average's, below), and among class
  c's as the count of class c's cells within that pooled rank; per block, ``cum`` = the
  cumulative drawn weight of class c's rows in score order (one ``cumsum``), so a row of class
  i ≠ c has
  ``below = W(class c, score < s) + ½ W(class c, score = s) = ½ (cum[lo] + cum[hi])`` (one
  gather), and ``S[c, i] = P_c W_i − Σ_{rows of class i} W·below`` (``P_c``, ``W_i``: the classes'
  drawn weights; the rows grouped by class once, so the sum is one fused product per class run).
  These are the pair sums of :func:`reportgen.engine.class_tables.pair_sums`
  (Mann–Whitney, ties one half, seed 001 §3): the one-vs-rest AUC of class c is
  ``Σ_{i≠c} S[c, i] / (P_c (m − P_c))`` (each class's draws: :attr:`Draws.class_auc`) and
  Hand & Till's ``A(c|i) = S[c, i] / (P_c P_i)``;
* the micro AUC's pair sum Q(W) over the n·k pooled (row, class) cells, ranked against the
  positive cells (r, y_r), is drawn by its projection (the Hájek projection of the U-statistic,
  DeLong's structural components): Q linearised at the observed weights W0,
  ``Q(W0) + (W − W0) · ∇Q(W0)``, one product of the resamples with each row's influence
  (:func:`_micro_projection`, found once per model). Q is a quadratic form in W; the dropped
  term ``(W − W0)ᵀ K (W − W0)`` is O(1/n) against the draws' O(1/√n) spread, so the interval
  is the resampled AUC's to first order (the coverage check:
  ``benchmarks/coverage_multiclass_intervals.py``), without k random lookups per row and
  resample in a table of the resample's pooled cumulative weights;
* the log-loss is ``W @ (−log clip(p[i, y_i])) / Σ W``.

So each resample's values but the micro AUC equal
:func:`reportgen.engine.multiclass.compute_multiclass` on the rows with weights ``W[r]`` (the
reference tests check it to 1e-12; the micro AUC equals it at W0 and its projection elsewhere),
at O(rows · k) numpy work per resample (one gather of a row per cell) and no Python loop over
resamples or rows; the resamples
go :data:`SUB_BLOCK` at a time, so the (rows, resamples) arrays of one column stay in cache;
whole drawn counts are summed in int32 where no product can overflow (:func:`_exact_dtype`: the
same values as float64, half the memory traffic), in scratch arrays reused by every block
(:class:`Work`). The confusion metrics of a block of drawn confusion matrices are array arithmetic over the block
too (:func:`confusion_metric_draws`).
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import Literal

import numpy as np

from reportgen.engine.class_tables import LOG_LOSS_EPS

#: Keys of the metrics :func:`probability_draws` returns (the multiclass catalog's probability metrics).
PROBABILITY_KEYS = ("log_loss", "roc_auc_ovr_micro", "roc_auc_ovr_macro", "roc_auc_ovr_weighted", "roc_auc_ovo_macro")


@dataclass(frozen=True, slots=True, eq=False)
class _Ranks:
    """One ranking of negatives against positives: per (row, column) how many positives score
    strictly below (``lo``) and at most (``hi``) the row's score; 0 and 0 where the cell is itself
    positive (so it adds nothing). ``ties``: whether some negative shares a score with a positive
    (else ``lo`` = ``hi``)."""

    lo: np.ndarray
    hi: np.ndarray
    ties: bool


def _ranks_sorted(v: np.ndarray, scores: np.ndarray, negative: np.ndarray, order: np.ndarray) -> _Ranks:
    """The :class:`_Ranks` of positives of ascending scores ``v`` against every row's
    ``scores``, ``negative`` marking the rows ranked. ``order``: the permutation that sorts
    ``scores``; they are searched in that order (each search starts where the last one ended, so
    a column of 50,000 scores is found about 5x faster than in the rows' order) and the ranks put
    back in the rows' order."""
    ascending = scores[order]

    def rank(side: Literal["left", "right"]) -> np.ndarray:
        out = np.empty(scores.shape[0], np.intp)
        out[order] = np.searchsorted(v, ascending, side=side)
        out[~negative] = 0
        return out

    hi = rank("right")
    # a negative ties a positive iff the last positive at most its score equals it
    tied = (hi > 0) & (v[np.maximum(hi - 1, 0)] == scores) if v.shape[0] else np.zeros(hi.shape, bool)
    if not bool(tied.any()):
        return _Ranks(hi, hi, False)
    return _Ranks(rank("left"), hi, True)


def _column_ranks(pooled: _Ranks, of_class: np.ndarray) -> _Ranks:
    """A column's :class:`_Ranks` against its own positives (class c's rows) from its ranks
    against the pooled positives (``pooled``; ``of_class``: which of the pooled positives, in
    their ascending order, are class c's): the class c positives strictly below (at most) a score
    are those among the pooled positives strictly below (at most) it, so each rank is a prefix
    count of ``of_class`` at the pooled rank (one gather, no search); 0 stays 0 at the column's
    own positive cells."""
    below = np.concatenate([[0], np.cumsum(of_class)])
    hi = below[pooled.hi]
    if not pooled.ties:
        return _Ranks(hi, hi, False)
    lo = below[pooled.lo]
    ties = not np.array_equal(lo, hi)  # a negative ties a positive of class c
    return _Ranks(lo if ties else hi, hi, ties)


def _cumulative(weights: np.ndarray, cum: np.ndarray, across: np.ndarray) -> np.ndarray:
    """(positives + 1, B) into ``cum``: the cumulative sums of the positives' drawn weights
    ``weights`` (B, positives: the resamples' rows, so each sum runs along contiguous memory;
    down the columns of the (positives, B) layout it strides, about twice the time) in score
    order, row 0 zero; summed into ``across`` (B, positives), then transposed once."""
    cum[0] = 0
    np.cumsum(weights, axis=1, out=across)
    np.copyto(cum[1:], across.T)
    return cum


def _twice_below(cum: np.ndarray, r: _Ranks, out: np.ndarray, u: int, v: int) -> np.ndarray:
    """(v − u, B) into ``out[u:v]``: per negative cell of rows u … v, the positive weight below
    its score plus half the tied positive weight, ``½ (cum[lo] + cum[hi])`` (:func:`_cumulative`),
    doubled where ``r.ties`` (``cum[lo] + cum[hi]``, whole in whole weights) and as is otherwise
    (``cum[hi]``); 0 at a positive cell."""
    np.take(cum, r.hi[u:v], axis=0, out=out[u:v], mode="clip")
    if r.ties:
        out[u:v] += np.take(cum, r.lo[u:v], axis=0, mode="clip")
    return out[u:v]


#: Bytes of a cache line: the scratch arrays start on one (:func:`_aligned`).
LINE = 64


def _aligned(n: int, dtype: np.dtype | type[np.generic]) -> np.ndarray:
    """``n`` items of ``dtype``, uninitialised, the first on a :data:`LINE`-byte boundary. numpy's
    large arrays start 16 bytes past one, so every gathered row of :data:`SUB_BLOCK` int32 weights
    (128 bytes) touched three cache lines instead of two: a random-row ``np.take`` from a
    (50,001, 32) table took 0.22–0.55 ns per value from such an array, 0.11–0.14 from an aligned one."""
    item = np.dtype(dtype).itemsize
    buf = np.empty(n + LINE // item, dtype)
    skip = (-buf.ctypes.data % LINE) // item
    return buf[skip : skip + n]


class Work:
    """Scratch arrays for :func:`draws` of one set of distinct rows, reused by every sub-block
    and, passed to each call, by every block and every model of those rows (a fresh array of
    megabytes per step pays its page faults again: a third of the time on a loaded machine),
    each starting on a cache line (:func:`_aligned`)."""

    def __init__(self) -> None:
        self.flat: dict[tuple[str, np.dtype], np.ndarray] = {}

    def get(self, name: str, rows: int, b: int, dtype: np.dtype | type[np.generic]) -> np.ndarray:
        """A (rows, b) C-contiguous array of ``dtype``, contents undefined, starting on a cache line."""
        key = (name, np.dtype(dtype))
        have = self.flat.get(key)
        if have is None or have.shape[0] < rows * b:
            have = self.flat[key] = _aligned(rows * max(b, SUB_BLOCK), dtype)
        return have[: rows * b].reshape(rows, b)


def _run_sums(x: np.ndarray, runs: list[tuple[int, int]], bound: float, y: np.ndarray | None = None) -> np.ndarray:
    """(B, runs) float64: each class run's column sums of ``x`` (rows, B), or of ``x · y`` — exact:
    int32 operands whose entries (products) are at most ``bound`` are summed int32 in chunks of
    rows that cannot overflow, each chunk's products and sum in one pass (no product array), the
    chunks' sums in int64 (float64: summed as is)."""
    if x.dtype.kind == "f":
        if y is None:
            return np.stack([x[a:z].sum(axis=0) for a, z in runs], axis=1)
        return np.stack([(x[a:z] * y[a:z]).sum(axis=0) for a, z in runs], axis=1)
    step = max(1, int((2**31 - 1) // max(bound, 1.0)))
    out = np.zeros((x.shape[1], len(runs)), np.int64)
    for j, (a, z) in enumerate(runs):
        for u in range(a, z, step):
            v = min(z, u + step)
            out[:, j] += np.einsum("rb->b", x[u:v]) if y is None else np.einsum("rb,rb->b", x[u:v], y[u:v])
    return out.astype(np.float64)


#: Resamples evaluated together: (rows, SUB_BLOCK) arrays, so the steps of one column work on
#: numbers still in the caches; 32, so a gathered row of int32 weights is 128 bytes, two whole
#: cache lines of the (line-aligned, :class:`Work`) scratch arrays (40 made it 160 bytes: three).
SUB_BLOCK = 32


@dataclass(frozen=True, slots=True, eq=False)
class ModelRows:
    """One model's distinct rows prepared for :func:`probability_draws`, grouped by true class
    and within a class by its own score (``order``: the permutation of the rows that does it,
    None when they already come so; class i's rows are ``start[i]:stop[i]`` of the grouped
    rows, so column i's positives are in score order without a gather): per score column the
    ranks of every row among the column's positives; ``loss``: each row's log-loss, and
    ``micro``: each row's influence on the micro average's pair sum with that sum's offset
    (:func:`_micro_projection`), both in the caller's order (``loss`` None for scores outside
    [0, 1])."""

    y: np.ndarray
    k: int
    order: np.ndarray | None
    start: np.ndarray
    stop: np.ndarray
    columns: tuple[_Ranks, ...]
    loss: np.ndarray | None
    micro: tuple[np.ndarray, float]

    @classmethod
    def of(cls, y: np.ndarray, proba: np.ndarray, weights: np.ndarray | None = None) -> ModelRows:
        """``y`` (d,) true class indices, ``proba`` (d, k) scores of the distinct rows, ``weights``
        (d,) their observed weights (how many rows each stands for, times the row weight; None:
        1 each), the point the micro average's draws are linearised at."""
        k = proba.shape[1]
        d = y.shape[0]
        rows = np.arange(d)
        in_unit = d == 0 or (float(proba.min()) >= 0.0 and float(proba.max()) <= 1.0)
        true_score = proba[rows, y]  # in the caller's order, as the resamples' weights come
        loss = -np.log(np.clip(true_score, LOG_LOSS_EPS, 1.0 - LOG_LOSS_EPS)) if in_unit else None
        by_class = np.lexsort((true_score, y))  # by class, then by its own score
        order = None if np.array_equal(by_class, rows) else by_class
        w0 = np.ones(d) if weights is None else np.asarray(weights, dtype=np.float64)
        if order is not None:
            y, proba, w0 = y[order], proba[order], w0[order]
        runs = np.flatnonzero(np.concatenate([[True], y[1:] != y[:-1]])) if d else np.zeros(0, np.int64)
        start = np.zeros(k, np.int64)
        stop = np.zeros(k, np.int64)
        start[y[runs]] = runs
        stop[y[runs]] = np.concatenate([runs[1:], [d]])
        true_score = proba[rows, y]
        by_score = np.argsort(true_score, kind="stable")  # the pooled positive cells (r, y_r), sorted once
        v, y_pooled = true_score[by_score], y[by_score]
        columns, pooled = [], []
        for c, scores in enumerate(np.ascontiguousarray(proba.T)):
            order_c, negative = np.argsort(scores), y != c  # ties in any order: their ranks are equal
            # pooled cells: column c's cells negative where c ≠ y_r, against every row's positive cell
            pooled.append(_ranks_sorted(v, scores, negative, order_c))
            # column c's positives (class c's rows, already in ascending score) are the pooled ones of class c
            columns.append(_column_ranks(pooled[-1], y_pooled == c))
        g, offset = _micro_projection(y, w0, by_score, pooled)
        if order is not None:  # back to the caller's order, as the resamples' weights come
            g = g[np.argsort(order)]
        return cls(y, k, order, start, stop, tuple(columns), loss, (g, offset))


def _micro_projection(
    y: np.ndarray, w0: np.ndarray, by_score: np.ndarray, pooled: list[_Ranks]
) -> tuple[np.ndarray, float]:
    """The micro average's pair sum ``Q(W) = Σ_{negative cells (r, c)} W_r below(p[r, c])``
    (``below``: the positive cells' weight under the score plus half the tied, as
    :func:`_twice_below` halved) linearised at the observed weights ``w0`` (the Hájek projection
    of the U-statistic, DeLong's structural components): per row its influence
    ``g_r = ∂Q/∂W_r = Σ_{c ≠ y_r} below_0(p[r, c]) + above_0(p[r, y_r])`` (as a negative: the
    positive weight below each of its negative cells; as a positive: the negative weight above
    its own cell plus half the tied), and ``Q_0 − w0 · g``, so that
    ``Q(W) ≈ Q_0 + (W − w0) · g = W · g + offset``. Rows grouped as ``pooled``'s ranks
    (:class:`ModelRows`); ``by_score``: the positive cells in ascending score."""
    d = y.shape[0]
    cum = np.concatenate([[0.0], np.cumsum(w0[by_score])])  # positive weight at or below each pooled rank
    a = np.zeros(d)
    lo_w = np.zeros(d + 1)
    hi_w = np.zeros(d + 1)
    for c, r in enumerate(pooled):
        a += 0.5 * (cum[r.lo] + cum[r.hi])  # 0 at class c's own rows (ranks 0, cum[0] = 0)
        neg = y != c
        lo_w += np.bincount(r.lo[neg], weights=w0[neg], minlength=d + 1)
        hi_w += np.bincount(r.hi[neg], weights=w0[neg], minlength=d + 1)
    # positive cell j (ascending): a negative cell with lo > j scores above it, lo ≤ j < hi ties it
    at_lo, at_hi = np.cumsum(lo_w)[:d], np.cumsum(hi_w)[:d]
    g = a.copy()
    g[by_score] += lo_w.sum() - at_lo + 0.5 * (at_lo - at_hi)
    q0 = float(w0 @ a)
    return g, q0 - float(w0 @ g)


@dataclass(frozen=True, slots=True, eq=False)
class Draws:
    """Each resample's probability metrics (``metrics``: :data:`PROBABILITY_KEYS` → (B,)) and
    each class's one-vs-rest AUC (``class_auc``, (B, k)); NaN where undefined."""

    metrics: dict[str, np.ndarray]
    class_auc: np.ndarray


def _exact_dtype(W: np.ndarray, k: int) -> type[np.signedinteger] | type[np.floating]:
    """The dtype :func:`_pair_sums` forms its products in for the resamples ``W`` (B, d): int32
    for whole drawn weights when every such product fits — at most m per resample, a weight
    times twice a sum of k cumulative weights: ``2 · max weight · k · m < 2^31`` — so the sums
    are exact at half the memory traffic of float64; else float64."""
    if W.dtype.kind not in "iu" or W.size == 0:
        return np.float64
    w_max = float(W.max())
    # m, the largest resample's total weight: summed in int32 where no sum can reach 2^31 (numpy's
    # default int64 accumulator casts each value: ~7x the time)
    m = float(W.sum(axis=1, dtype=np.int32 if w_max * W.shape[1] < 2.0**31 else np.int64).max())
    return np.int32 if 2.0 * w_max * max(k, 1) * m < 2.0**31 else np.float64


def _around(a: int, z: int, d: int) -> list[tuple[int, int]]:
    """The non-empty row ranges of 0 … d outside a … z (the other classes' rows of a class's run)."""
    return [(u, v) for u, v in ((0, a), (z, d)) if v > u]


def _pair_sums(rows: ModelRows, Wt: np.ndarray, Wo: np.ndarray, work: Work) -> tuple[np.ndarray, np.ndarray]:
    """(S (B, k, k), class weights (B, k)) of one sub-block ``Wt`` (d, B) of grouped rows
    (``Wo``: the same, (B, d)): ``S[:, c, i] = P_c W_i − Σ_{r of class i} W_r below_c(r)``
    (per column one gather of the other classes' rows' ``below`` — class c's own rows are its
    positives and add nothing — then one fused product-and-sum with the weights per class run).
    The products are formed in ``Wt``'s dtype
    (int32 where exact, :func:`_exact_dtype`), summed in chunks of rows bounded by the largest
    product (the largest weight times the largest ``below``, a resample's class or total weight),
    the chunks' sums in 64 bits."""
    k, (d, b) = rows.k, Wt.shape
    run_of = {i: (int(rows.start[i]), int(rows.stop[i])) for i in range(k) if rows.stop[i] > rows.start[i]}
    present, runs = list(run_of), list(run_of.values())
    cls_w = np.zeros((b, k))
    if not runs:
        return cls_w[:, :, None] * cls_w[:, None, :], cls_w
    w_max = float(Wt.max())
    cls_w[:, present] = _run_sums(Wt, runs, w_max)
    S = cls_w[:, :, None] * cls_w[:, None, :]
    tmp = work.get("tmp", d, b, Wt.dtype)
    for c, r in enumerate(rows.columns):
        if c not in run_of:
            continue  # no positives: every below is 0
        others = [run for i, run in run_of.items() if i != c]
        if not others:
            continue  # no negatives
        a, z = run_of[c]  # class c's rows, in ascending score c: its positives in order
        cum = _cumulative(Wo[:, a:z], work.get("cum", z - a + 1, b, Wt.dtype), work.get("across", b, z - a, Wt.dtype))
        for u, v in _around(a, z, d):
            _twice_below(cum, r, tmp, u, v)
        top = w_max * float(cls_w[:, c].max()) * (2.0 if r.ties else 1.0)  # weight × twice below ≤ this
        at = [q for q in present if q != c]
        S[:, c, at] -= _run_sums(tmp, others, top, Wt) * (0.5 if r.ties else 1.0)
    return S, cls_w


def draws(rows: ModelRows, W: np.ndarray, work: Work | None = None) -> Draws:
    """Each probability metric and each class's one-vs-rest AUC of the model on each resample,
    the resamples given as row weights ``W`` (B, d); the definitions of
    :func:`reportgen.engine.multiclass.multiclass_from_counts` (AUCs clipped to [0, 1], classes or
    pairs without both kinds of rows left out of the means). ``work``: scratch arrays to reuse
    (:class:`Work`, one per set of rows, shared by its models), else fresh ones.

    With ``above(r) = P_c − below(r)`` (``below``: :func:`_twice_below`), the pair sums are
    ``S[c, i] = P_c W_i − Σ_{rows r of class i} W_r below_c(r)``: per column one cumulative sum
    over its positives, one gather of the other classes' rows' ``below`` and one fused
    product-and-sum with the weights per class run; the micro AUC's pair sum by its projection
    (:attr:`ModelRows.micro`: one product with the rows' influence). Resamples go
    :data:`SUB_BLOCK` at a time; whole-count ``W`` (an integer array) is evaluated in int32 where
    that is exact (:func:`_exact_dtype`)."""
    k = rows.k
    b = W.shape[0]
    S = np.empty((b, k, k))
    cls_w = np.empty((b, k))
    dtype = _exact_dtype(W, k)
    W = W if W.dtype == dtype else W.astype(dtype)  # whole counts to int32: checked exact
    work = Work() if work is None else work
    for lo in range(0, b, SUB_BLOCK):
        hi = min(b, lo + SUB_BLOCK)
        Wo = work.get("Wo", hi - lo, W.shape[1], dtype)  # (sub, d): the cumulative sums run along rows
        if rows.order is None:
            np.copyto(Wo, W[lo:hi])
        else:  # the rows put in order
            np.take(W[lo:hi], rows.order, axis=1, out=Wo, mode="clip")
        Wt = work.get("Wt", W.shape[1], hi - lo, dtype)  # (d, sub): a gather takes whole rows
        np.copyto(Wt, Wo.T)
        S[lo:hi], cls_w[lo:hi] = _pair_sums(rows, Wt, Wo, work)
    m = cls_w.sum(axis=1)
    out: dict[str, np.ndarray] = {}
    P, N = cls_w, m[:, None] - cls_w
    both = (P > 0) & (N > 0)
    diag = S[:, np.arange(k), np.arange(k)]
    with np.errstate(invalid="ignore", divide="ignore"):
        auc = np.where(both, np.clip((S.sum(axis=2) - diag) / (P * N), 0.0, 1.0), np.nan)
        out["roc_auc_ovr_macro"] = np.nanmean(auc, axis=1) if k else np.full(b, np.nan)
        sup = np.where(both, P, 0.0)
        out["roc_auc_ovr_weighted"] = np.nansum(auc * sup, axis=1) / sup.sum(axis=1)
        den = P[:, :, None] * P[:, None, :]  # (B, c, i): P_c · P_i
        A = np.clip(S / den, 0.0, 1.0)
        iu, ju = np.triu_indices(k, 1)
        pair = np.where(den[:, iu, ju] > 0, 0.5 * (A[:, iu, ju] + A[:, ju, iu]), np.nan)
        out["roc_auc_ovo_macro"] = np.nanmean(pair, axis=1)
        # micro: negative cells (r, c ≠ y_r) of weight W_r against the positive cells (r, y_r), the
        # pair sum by its projection (ModelRows.micro); einsum casts whole counts a buffer at a time
        Pm, Nm = m, (k - 1) * m  # every row has one positive cell
        num = Pm * Nm - (np.einsum("bd,d->b", W, rows.micro[0]) + rows.micro[1])
        out["roc_auc_ovr_micro"] = np.where((Pm > 0) & (Nm > 0), np.clip(num / (Pm * Nm), 0.0, 1.0), np.nan)
        if rows.loss is None:
            out["log_loss"] = np.full(b, np.nan)
        else:  # einsum casts whole counts to float64 a buffer at a time: no (B, d) float64 copy of W
            out["log_loss"] = np.einsum("bd,d->b", W, rows.loss) / m
    return Draws(out, auc)


def probability_draws(rows: ModelRows, W: np.ndarray) -> dict[str, np.ndarray]:
    """Each probability metric of the model on each resample, shape (B,) each (NaN where
    undefined), the resamples given as row weights ``W`` (B, d): :func:`draws`' ``metrics``."""
    return draws(rows, W).metrics


def confusion_metric_draws(
    C: np.ndarray, *, beta: float = 1.0, costs: np.ndarray | None = None, ordinal: bool = False
) -> dict[str, np.ndarray]:
    """Every confusion metric of :func:`reportgen.engine.multiclass.multiclass_from_counts` on a
    block of confusion matrices ``C`` (B, k, k) (rows = true class) at once: key → (B,), NaN
    where a matrix leaves the metric undefined (the probability metrics are not here).

    The same formulas, array-wise over the block: per class precision tp/(tp + fp), recall
    tp/support, F1 and F-β (undefined ones count as 0 in the macro and support-weighted means,
    scikit-learn ``zero_division=0``), micro averages from the summed counts, balanced accuracy
    over the classes with support, Cohen's (and for ordered classes the quadratic) kappa
    ``1 − Σ w·C / Σ w·E`` with ``E = outer(row totals, column totals) / m``, Gorodkin's MCC
    ``(c·m − t·p) / √((m² − p·p)(m² − t·t))``, the expected cost ``Σ C·cost / m``."""
    C = np.asarray(C, dtype=np.float64)
    b, k = C.shape[0], C.shape[1]
    b2 = beta * beta
    m = C.sum(axis=(1, 2))
    support = C.sum(axis=2)
    predicted = C.sum(axis=1)
    tp = np.diagonal(C, axis1=1, axis2=2).copy()
    fp = predicted - tp
    fn = support - tp

    def ratio(num: np.ndarray, den: np.ndarray) -> np.ndarray:
        out = np.full(num.shape, np.nan)
        np.divide(num, den, out=out, where=den > 0)
        return out

    rates = {
        "precision": ratio(tp, tp + fp),
        "recall": ratio(tp, support),
        "f1": ratio(2.0 * tp, 2.0 * tp + fp + fn),
        "fbeta": ratio((1.0 + b2) * tp, (1.0 + b2) * tp + b2 * fn + fp),
    }
    out: dict[str, np.ndarray] = {}
    with np.errstate(invalid="ignore", divide="ignore"):
        for stem, v in rates.items():
            v0 = np.where(np.isnan(v), 0.0, v)
            out[f"{stem}_macro"] = v0.mean(axis=1)
            out[f"{stem}_weighted"] = np.einsum("bk,bk->b", support, v0) / m
        tp_all, fp_all, fn_all = tp.sum(axis=1), fp.sum(axis=1), fn.sum(axis=1)
        out["precision_micro"] = tp_all / (tp_all + fp_all)
        out["recall_micro"] = tp_all / (tp_all + fn_all)
        out["f1_micro"] = 2.0 * tp_all / (2.0 * tp_all + fp_all + fn_all)
        out["fbeta_micro"] = (1.0 + b2) * tp_all / ((1.0 + b2) * tp_all + b2 * fn_all + fp_all)
        pm, rm = out["precision_macro"], out["recall_macro"]
        den = pm + rm
        out["f1_of_macro_pr"] = np.where(den > 0, 2.0 * pm * rm / np.where(den > 0, den, 1.0), 0.0)
        out["accuracy"] = tp_all / m
        out["error_rate"] = 1.0 - out["accuracy"]
        out["baseline_accuracy"] = support.max(axis=1) / m
        has = support > 0
        out["balanced_accuracy"] = np.where(has, rates["recall"], 0.0).sum(axis=1) / has.sum(axis=1)
        n_true, n_pred = has.sum(axis=1), (predicted > 0).sum(axis=1)
        one_same = (n_true == 1) & (n_pred == 1) & (has == (predicted > 0)).all(axis=1)
        E = support[:, :, None] * predicted[:, None, :] / m[:, None, None]
        idx = np.arange(k, dtype=np.float64)
        for key, w in (
            ("cohen_kappa", 1.0 - np.eye(k)),
            ("quadratic_weighted_kappa", (idx[:, None] - idx[None, :]) ** 2),
        ):
            if key == "quadratic_weighted_kappa" and not ordinal:
                out[key] = np.full(b, np.nan)
                continue
            den_k = (w * E).sum(axis=(1, 2))
            kap = 1.0 - (w * C).sum(axis=(1, 2)) / den_k
            out[key] = np.where(one_same | ~(den_k > 0), np.nan, kap)
        cov_tp = tp_all * m - np.einsum("bk,bk->b", support, predicted)
        cov_pp = m * m - np.einsum("bk,bk->b", predicted, predicted)
        cov_tt = m * m - np.einsum("bk,bk->b", support, support)
        mcc = np.clip(cov_tp / np.sqrt(cov_pp * cov_tt), -1.0, 1.0)
        out["mcc"] = np.where((n_true <= 1) | (n_pred <= 1), np.nan, mcc)
        out["expected_cost"] = np.full(b, np.nan) if costs is None else np.einsum("bij,ij->b", C, costs) / m
    return out


def confusion_draws(y: np.ndarray, pred: np.ndarray, k: int, W: np.ndarray) -> np.ndarray:
    """(B, k, k): each resample's confusion matrix (rows = true class) from the row weights ``W``."""
    code = y * k + pred
    order = np.argsort(code, kind="stable")
    sc = code[order]
    out = np.zeros((k * k, W.shape[0]))
    if sc.shape[0]:
        starts = np.flatnonzero(np.concatenate([[True], sc[1:] != sc[:-1]]))
        out[sc[starts]] = np.add.reduceat(np.ascontiguousarray(W.T)[order], starts, axis=0)
    return out.T.reshape(W.shape[0], k, k)


__all__ = [
    "Draws",
    "ModelRows",
    "PROBABILITY_KEYS",
    "SUB_BLOCK",
    "Work",
    "confusion_draws",
    "confusion_metric_draws",
    "draws",
    "probability_draws",
]
