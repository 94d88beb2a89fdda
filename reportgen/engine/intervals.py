"""Bootstrap intervals whose cost does not grow with rows × resamples, the same in every engine.

The stratified bootstrap resamples P positives and N negatives with replacement. Rows that are
interchangeable for every statistic form a *cell*; how many resampled rows land in each cell
is one multinomial draw per class with the cells' shares (:func:`~reportgen.engine.resample.
stratified_cell_blocks`), exactly the distribution of resampling the rows. So every interval
here is drawn on counts every engine reduces to (mergeable, integer, order-free), never on
rows, at O(cells) per resample:

* **one model** (:func:`model_bootstrap`): the cells of its score table (a distinct score and a
  class). With more than :data:`MODEL_BINS` distinct scores the table is first coarsened to at
  most that many consecutive equal-weight bins (:func:`coarse_lut`), cut at the model's decision
  threshold, so the threshold metrics (TP and FP are then sums of whole cells) keep their
  exact bootstrap distribution; the ranking metrics (average precision, KS, R-precision,
  log-loss, Brier) are drawn on the binned table and the interval is moved by the binning's
  own error on the data, ``θ̂ − θ̂_binned`` (the percentile interval is translation-equivariant,
  so this is the interval of ``θ* − θ̂_binned + θ̂``);
* **a model's KS** (:func:`ks_interval`): from the same cell draws, the *reshaped bootstrap-t*
  (Cattaneo, Jansson & Nagasawa 2020; Hall 1988). KS is a maximum over cuts, whose sample
  value sits above the population's by more than the plain bootstrap reproduces, so its
  percentile interval covers too rarely (84 % at n = 1,000 for a nominal 95 %); each resample's
  TPR/FPR noise is added to smoothed curves (:func:`ks_drift`) and studentised at its maximum;
* **a paired difference** of ranking metrics (:func:`pair_bootstrap`): the counts of rows by
  (class, bin of model a, bin of model b) — a joint table per pair of models counted in the
  paired pass of every engine (:class:`PairTableAccumulator`), each model cut into at most
  :data:`JOINT_BINS` equal-weight bins (exact when it has no more distinct scores); resampling
  its cells resamples the rows of both models together, so the difference is paired. The same
  shift by the binning error as above. Differences of threshold metrics come from the exact
  decision-pattern counts (:func:`reportgen.engine.compare.joint_bootstrap`), AUC and Gini from
  DeLong.

* **weighted models** (sampling weights, :func:`weighted_model_bootstrap`,
  :func:`weighted_joint_bootstrap`): a weighted cell's resampled weight is not a function of its
  row count, so the rows are counted per (score cell, class, weight) (:class:`WeightCells`), and
  per (every model's cell, class, every model's weight) for aligned models: within such a cell
  every row has the same weight, so a multinomial of the class's rows over the cells, each draw
  times its weight, is exactly the row bootstrap with the weights carried. Every engine counts
  the same cells (:mod:`reportgen.reduce.accumulators`), memory included. Past
  :data:`EXACT_WEIGHT_CELLS` cells (many weight values) they are pooled per table row or bin and
  class (:func:`pool_cells`): rows per pool still drawn exactly, each pool's weight sum drawn
  from its rows' weight mean and variance (:func:`weight_blocks`: the row bootstrap's means,
  variances and covariances of every weight sum, at O(pools) per resample).

Log-loss and Brier of a cell use the mean loss of its (bin, class) in the model's exact table:
summed over a resample this has the exact expectation of the rows' losses; its variance
misses the spread of the losses within a bin (small with fine bins; none when exact).

Bound of the binning on the AUC (and, through the ordering, on every ranking metric): merging
scores into a bin turns its positive–negative pairs into ties,
``|AUC_binned − AUC| ≤ Σ_b pos_b·neg_b / (2·P·N)`` (:func:`~reportgen.engine.streaming.
binning_auc_bound`); with equal-weight bins of ``n/G`` rows this is at most ``n² / (8·G·P·N)``.
"""

from __future__ import annotations

from collections.abc import Callable, Sequence
from dataclasses import dataclass, replace

import numpy as np

from reportgen.engine import binary as B
from reportgen.engine import distinct_rows as DR
from reportgen.engine.curve import ScoreTable
from reportgen.engine.resample import (
    ResampleKernel,
    probability_scores,
    resample_kernel,
    resampled_metrics,
    stratified_cell_blocks,
)
from reportgen.value import Shown

#: Most distinct scores of a model drawn cell by cell; above, its table is coarsened to this
#: many bins (at most 2·MODEL_BINS cells: 500 resamples draw in ≈ 0.3 s).
MODEL_BINS = 4096
#: Bins per model in the joint table of a pair (at most 2·JOINT_BINS² = 8,192 cells).
JOINT_BINS = 64
#: Joint tables are counted for every pair of models when there are at most this many models.
MAX_PAIR_MODELS = 8
#: Decision patterns (rows per truth and every model's decision: 2^(k+1) counts), which the
#: paired differences of threshold metrics are drawn on, are counted for at most this many models.
MAX_PATTERN_MODELS = 15

#: ``ci_method`` wordings (one for every engine).
TABLE_BOOTSTRAP = "bootstrap"  # stratified, drawn per cell of the model's exact score table
BINNED_BOOTSTRAP = "bootstrap (binned score table)"
JOINT_BOOTSTRAP = "paired bootstrap of the joint score table"
JOINT_BINNED_BOOTSTRAP = "paired bootstrap of the binned joint score table"


def coarse_lut(table: ScoreTable, threshold: float, bins: int) -> np.ndarray:
    """Shape (table.n_distinct,) int64: each table row's bin, consecutive in table order.

    Identity when the table has at most ``bins`` distinct scores. Else row ``i`` (most positive
    first) goes to bin ``⌊W_i · bins / W⌋``, ``W_i`` the weight before it and ``W`` the total
    (equal-weight bins that never split a distinct score), and the bins are split once more at
    the decision cut, so at most ``bins + 1`` bins and every bin is one side of the threshold.
    A function of the table alone: every engine gets the same bins.
    """
    k = table.n_distinct
    if k <= bins:
        return np.arange(k, dtype=np.int64)
    return equal_weight_bins(table.pos + table.neg, bins, table.cut_index(threshold))


def equal_weight_bins(weight: np.ndarray, bins: int, cut: int = 0) -> np.ndarray:
    """Shape (weight.shape[0],) int64: consecutive entries (distinct scores in order, ``weight``
    their rows) in at most ``bins`` equal-weight bins, numbered 0, 1, … in order: entry ``i`` goes
    to ``⌊W_i · bins / W⌋``, ``W_i`` the weight before it and ``W`` the total, so a distinct score
    is never split; ``0 < cut < len``: a new bin starts at entry ``cut`` whatever the weights."""
    k = weight.shape[0]
    before = np.cumsum(weight) - weight
    raw = np.floor(before * (bins / float(before[-1] + weight[-1]))).astype(np.int64)
    if 0 < cut < k:
        raw[cut:] += bins + 1
    new = np.empty(k, dtype=bool)
    new[0] = False
    np.not_equal(raw[1:], raw[:-1], out=new[1:])
    return np.cumsum(new, dtype=np.int64)


def coarsen(table: ScoreTable, lut: np.ndarray) -> ScoreTable:
    """The table with its rows summed per bin of ``lut``; each bin's score is its least positive
    one, so "positive when score ≥ t" (or ≤ for ``lower``) at the model's threshold selects the
    same bins as rows (the bins never straddle the cut)."""
    nb = int(lut[-1]) + 1 if lut.shape[0] else 0
    if nb == table.n_distinct:
        return table
    last = np.flatnonzero(np.r_[lut[1:] != lut[:-1], True])
    return ScoreTable(
        thresholds=table.thresholds[last].copy(),
        pos=np.bincount(lut, weights=table.pos, minlength=nb),
        neg=np.bincount(lut, weights=table.neg, minlength=nb),
        direction=table.direction,
        sum_w2=table.sum_w2,
        n_rows=table.n_rows,
        weighted=table.weighted,
    )


def bin_losses(table: ScoreTable, lut: np.ndarray) -> np.ndarray:
    """Shape (2, 2, bins): mean [log-loss, Brier] term of a row of each [negative, positive]
    class in each bin, from the exact table (0 where the bin holds no row of the class).

    Terms as :func:`~reportgen.engine.binary.probability_losses`: −log of the probability given
    to the row's class (clipped to [ε, 1 − ε]) and (y − s)².
    """
    nb = int(lut[-1]) + 1
    s = table.thresholds
    eps = np.finfo(np.float64).eps
    sc = np.clip(s, eps, 1.0 - eps)
    out = np.zeros((2, 2, nb))
    for y, (cnt, ll, br) in enumerate(((table.neg, -np.log1p(-sc), s * s), (table.pos, -np.log(sc), (1.0 - s) ** 2))):
        tot = np.bincount(lut, weights=cnt, minlength=nb)
        for q, term in enumerate((ll, br)):
            num = np.bincount(lut, weights=cnt * term, minlength=nb)
            np.divide(num, tot, out=out[y, q], where=tot > 0)
    return out


def _cell_kernel(
    coarse: ScoreTable, groups: np.ndarray, y: np.ndarray, threshold: float, losses: np.ndarray | None
) -> ResampleKernel:
    """The resample kernel of cells (one "row" per cell, its multiplicity the cell's draw).

    ``losses``: :func:`bin_losses` of the model, or None (no log-loss / Brier)."""
    kernel = resample_kernel(coarse, groups, y, [np.arange(groups.shape[0])], threshold, None, False)
    if losses is None:
        return kernel
    yi = y.astype(np.int64)
    return replace(kernel, losses=(np.stack([losses[yi, 0, groups], losses[yi, 1, groups]]),))


def _at(kernel: ResampleKernel, counts: np.ndarray, beta: float, costs: B.Costs) -> np.ndarray:
    """Shape (METRICS,): the kernel's metrics at the observed counts (the binned point values)."""
    return resampled_metrics(kernel, (1, [np.asarray(counts, dtype=np.float64)[None, :]]), beta, costs)[0]


@dataclass(frozen=True, slots=True, eq=False, repr=False)
class Draws(Shown):
    """Bootstrap replicates and where to centre them.

    Attributes:
        samples: shape (resamples, METRICS), replicates (NaN where undefined).
        shift: shape (METRICS,), ``θ̂ − θ̂_binned`` to add to an interval (0 when exact).
        binned: whether a table was coarsened (the interval's method says so).
        ks: the reshaped bootstrap-t of the model's KS on the same resamples
            (:func:`ks_interval`), or None (pairs; a class without rows; weighted models).
        weighted: drawn on a weighted model's cells (:func:`weighted_model_bootstrap`).
        pooled: drawn on pooled weight cells (:func:`pool_cells`): weight sums from their moments.
        paired: differences of two models drawn on their joint cells (:func:`pair_bootstrap`,
            :func:`weighted_joint_bootstrap`).

    (paired, weighted, pooled, binned) is the record of what was resampled; :attr:`method`
    is its ``ci_method`` (:data:`_METHODS`).
    """

    samples: np.ndarray
    shift: np.ndarray
    binned: bool
    ks: MaxDraws | None = None
    weighted: bool = False
    pooled: bool = False
    paired: bool = False

    @property
    def method(self) -> str:
        """The ``ci_method`` of intervals from these replicates: what was resampled."""
        return _METHODS[(self.paired, self.weighted or self.pooled, self.pooled, self.binned)]


def metric_vector(bm: B.BinaryMetrics) -> np.ndarray:
    """Shape (METRICS,): a model's metrics in :data:`~reportgen.engine.binary.METRICS` order (NaN
    where undefined), what the bootstrap's binning error is measured against."""
    values = bm.as_dict()
    return np.array([np.nan if (v := values.get(k)) is None else float(v) for k in B.METRICS])


def _exact(table: ScoreTable, threshold: float, beta: float, costs: B.Costs, probabilities: bool | None) -> np.ndarray:
    return metric_vector(B.compute_metrics(table, threshold, beta, costs, probabilities))


def model_bootstrap(
    table: ScoreTable,
    threshold: float,
    resamples: int,
    rng: np.random.Generator,
    beta: float = 1.0,
    costs: B.Costs = B.Costs(),
    probabilities: bool | None = None,
    exact: np.ndarray | None = None,
) -> Draws:
    """The stratified bootstrap of one unweighted model, drawn on its (coarsened) table's cells.

    Exact tables (≤ :data:`MODEL_BINS` distinct scores) give the replicates of
    :func:`~reportgen.engine.resample.table_bootstrap_metrics` draw for draw. ``exact``: the
    model's :func:`metric_vector` at these settings, if the caller has it (else computed)."""
    if table.weighted:
        raise ValueError("resampling a table's cells needs unit weights (counts)")
    lut = coarse_lut(table, threshold, MODEL_BINS)
    coarse = coarsen(table, lut)
    binned = coarse is not table
    pos_cells, neg_cells = np.flatnonzero(coarse.pos > 0), np.flatnonzero(coarse.neg > 0)
    groups = np.concatenate([pos_cells, neg_cells])
    y = np.zeros(groups.shape[0], dtype=bool)
    y[: pos_cells.shape[0]] = True
    counts = np.concatenate([coarse.pos[pos_cells], coarse.neg[neg_cells]])
    losses = bin_losses(table, lut) if binned and probability_scores(table, probabilities) else None
    if binned:
        kernel = _cell_kernel(coarse, groups, y, threshold, losses)
    else:
        kernel = resample_kernel(table, groups, y, [np.arange(groups.shape[0])], threshold, None, probabilities)
    reshaped = _ReshapedKS(coarse, pos_cells, neg_cells) if coarse.total_pos > 0 and coarse.total_neg > 0 else None
    samples = _draw(
        [kernel], counts, pos_cells.shape[0], resamples, rng, beta, costs, None if reshaped is None else reshaped.add
    )[0]
    shift = np.zeros(len(B.METRICS))
    if binned:
        if exact is None:
            exact = _exact(table, threshold, beta, costs, probabilities)
        shift = np.nan_to_num(exact - _at(kernel, counts, beta, costs))
    ks = None if reshaped is None else reshaped.finish(reshaped.ks + float(shift[_KS]), binned)
    return Draws(samples, shift, binned, ks)


def _draw(
    kernels: list[ResampleKernel],
    counts: np.ndarray,
    n_pos_cells: int,
    resamples: int,
    rng: np.random.Generator,
    beta: float,
    costs: B.Costs,
    also=None,
    blocks=stratified_cell_blocks,
) -> list[np.ndarray]:
    """Each kernel's metrics on the same resamples of the cells: shape (resamples, METRICS) each.

    ``also``: None, or called with each block's cell draws too (shape (b, cells)); ``blocks``:
    how the cells are drawn (pooled weight cells: :func:`weight_blocks`)."""
    out = [np.empty((resamples, len(B.METRICS))) for _ in kernels]
    done = 0
    for block in blocks(counts, n_pos_cells, resamples, rng):
        for o, kernel in zip(out, kernels):
            o[done : done + block[0]] = resampled_metrics(kernel, block, beta, costs)
        if also is not None:
            also(block[1][0])
        done += block[0]
    return out


def percentile(
    draws: np.ndarray, shift: float, level: float, lo: float | None = None, hi: float | None = None
) -> list[float] | None:
    """The percentile interval of ``draws`` moved by ``shift`` (and clipped to [lo, hi])."""
    from reportgen.engine.stats import percentile_interval  # noqa: PLC0415

    iv = percentile_interval(draws, level)
    if iv is None:
        return None
    a, b = iv[0] + shift, iv[1] + shift
    if lo is not None:
        a, b = max(a, lo), max(b, lo)
    if hi is not None:
        a, b = min(a, hi), min(b, hi)
    return [float(a), float(b)]


# --------------------------------------------------------------------------------------
# KS (one model): the reshaped bootstrap-t of a maximum
# --------------------------------------------------------------------------------------

#: ``ci_method`` of a model's KS interval (exact / binned score table).
KS_RESHAPED = "reshaped bootstrap-t"
KS_RESHAPED_BINNED = "reshaped bootstrap-t (binned score table)"
#: The drift's bandwidth, in pooled-rank units (the share of rows): ``KS_BANDWIDTH · n^(−1/5)``.
#: Coverage is flat from 0.2 to 0.5 (README, Coverage); the smaller keeps the drift closest to
#: the data where the population's curve is sharply peaked.
KS_BANDWIDTH = 0.2
_KS = B.METRICS.index("ks")
#: Rows of a kernel matrix, or resamples, handled at once (bounds memory to ~ _ROWS × cells floats).
_ROWS = 256
#: Resamples made into curves at once: about this many points a curve array (256 KB of float64),
#: so the temporaries are reused from the heap rather than mapped and faulted in for each block.
_DRAW_ELEMENTS = 1 << 15


def ks_standard_error(tpr, fpr, P: float, N: float):
    """``√(TPR(1 − TPR)/P + FPR(1 − FPR)/N)``, the standard error of TPR − FPR at one fixed
    cut (two independent binomials under the stratified design) — the first-order standard
    error of the sample KS when the population's largest gap is at one cut.

    Each proportion is first clipped to [½/P, 1 − ½/P] (½/N for FPR), half a count from either
    end, so a separated sample (TPR 1, FPR 0) still gets a positive error. Scalars or arrays.
    """
    t = np.clip(tpr, 0.5 / P, 1.0 - 0.5 / P)
    f = np.clip(fpr, 0.5 / N, 1.0 - 0.5 / N)
    return np.sqrt(t * (1.0 - t) / P + f * (1.0 - f) / N)


def ks_drift(table: ScoreTable, rows: float | None = None) -> tuple[np.ndarray, np.ndarray]:
    """The smoothed TPR and FPR at the cut after each table row that holds rows: shape (rows of
    the table with a positive count,) twice. (A distinct score of weight 0 — a frequency weight
    0 — is no cut of its own: leaving it out keeps the interval equal to that of the repeated
    rows.)

    Nadaraya–Watson with a Gaussian kernel over the rows' pooled rank ``u`` (the share of
    rows before a row's cell plus half its own), each cell weighted by its rows, bandwidth
    ``h = KS_BANDWIDTH · n^(−1/5)``:
    ``TPR̃(u_i) = Σ_j K((u_i − u_j)/h)·w_j·TPR(u_j) / Σ_j K((u_i − u_j)/h)·w_j`` (FPR alike).
    A function of the counts alone (ranks, not scores: KS does not change with a monotone
    transform of the scores, and neither does this). ``rows``: the ``n`` of the bandwidth when
    it is not the total weight (weighted rows: their effective number, :func:`kish_sizes`). Cells farther than 8h are left out (their
    weight is below e^(−32)); O(cells × cells within 8h) in blocks of :data:`_ROWS` rows, by
    numpy's own loops (no threaded BLAS: the same bits on every machine), each block's kernel
    in one buffer (a new block-sized array each time was paged in afresh).
    """
    w = table.pos + table.neg
    n = float(w.sum())
    u = (np.cumsum(w) - 0.5 * w) / n
    curves = np.stack([np.cumsum(table.pos) / table.total_pos, np.cumsum(table.neg) / table.total_neg, np.ones_like(u)])
    keep = w > 0
    w, u, curves = w[keep], u[keep], curves[:, keep]
    curves *= w
    h = KS_BANDWIDTH * (n if rows is None else rows) ** -0.2
    out = np.empty((3, u.shape[0]))
    buf = np.empty(min(_ROWS, u.shape[0]) * u.shape[0])  # every block's kernel, in place: one temporary
    for lo in range(0, u.shape[0], _ROWS):
        hi = min(lo + _ROWS, u.shape[0])
        # cells beyond 8h weigh < e^(−32) ≈ 1e−14 of the nearest: left out (u is ascending)
        a, b = np.searchsorted(u, [u[lo] - 8.0 * h, u[hi - 1] + 8.0 * h], side="left")
        k = buf[: (hi - lo) * (b - a)].reshape(hi - lo, b - a)
        np.subtract(u[lo:hi, None], u[None, a:b], out=k)
        k /= h
        np.multiply(k, k, out=k)
        k *= -0.5  # exact (a power of two), so the bits of −0.5·z·z
        np.exp(k, out=k)
        # a curve at a time: the same sums, bit for bit, as "ij,cj->ci" over all three, which numpy
        # ran as a buffered loop three products long (a third of ks_drift's instructions go)
        for c in range(3):
            np.einsum("j,ij->i", curves[c, a:b], k, out=out[c, lo:hi])
    return out[0] / out[2], out[1] / out[2]


@dataclass(frozen=True, slots=True, eq=False, repr=False)
class MaxDraws(Shown):
    """The reshaped bootstrap-t of a model's KS.

    Attributes:
        pivots: shape (resamples,), ``(KS*_r − KS̃) / SE*`` per resample (:func:`ks_interval`).
        point: the sample KS (of the exact table).
        se: :func:`ks_standard_error` at the sample's largest gap.
        binned: whether the resamples were drawn on a coarsened table.
    """

    pivots: np.ndarray
    point: float
    se: float
    binned: bool
    #: drawn on a weighted model's cells (pooled: moment-matched weight sums), for the method's name
    weighted: bool = False
    pooled: bool = False

    @property
    def method(self) -> str:
        if self.weighted:
            table = ("binned " if self.binned else "") + "weighted score table"
            return f"{KS_RESHAPED} ({table}{', moment-matched weight sums' if self.pooled else ''})"
        return KS_RESHAPED_BINNED if self.binned else KS_RESHAPED


def kish_sizes(cells: WeightCells) -> tuple[float, float]:
    """Kish's effective number of positives and of negatives, ``(Σw)² / Σw²`` per class (the rows
    when every weight is equal): the ``n`` of a weighted proportion's binomial standard error."""
    sq = cells.rows * cells.w[0] ** 2 + (0.0 if cells.var is None else cells.rows * cells.var)
    mass = cells.rows * cells.w[0]
    out = []
    for cls in (cells.y, ~cells.y):
        s1, s2 = float(mass[cls].sum()), float(sq[cls].sum())
        out.append(s1 * s1 / s2 if s2 > 0 else 0.0)
    return out[0], out[1]


class _ReshapedKS:
    """Collects the reshaped bootstrap-t of one model's KS from the cell draws of
    :func:`model_bootstrap` (the resamples every other metric of the model uses).

    ``sizes``: weighted rows, their effective class sizes (:func:`kish_sizes`) for the standard
    errors and the drift's bandwidth; then the draws are weights (:meth:`add_weights`)."""

    def __init__(
        self, table: ScoreTable, pos_cells: np.ndarray, neg_cells: np.ndarray, sizes: tuple[float, float] | None = None
    ) -> None:
        self.P, self.N = float(table.total_pos), float(table.total_neg)
        self.Pe, self.Ne = (self.P, self.N) if sizes is None else sizes
        self.pos_cells, self.neg_cells = pos_cells, neg_cells
        self.width = table.n_distinct
        self.keep = np.flatnonzero(table.pos + table.neg > 0)  # the cuts (as :func:`ks_drift`)
        tpr, fpr = np.cumsum(table.pos)[self.keep] / self.P, np.cumsum(table.neg)[self.keep] / self.N
        gap = tpr - fpr
        j = int(np.argmax(gap))
        self.ks = max(float(gap[j]), 0.0)
        self.se = float(ks_standard_error(tpr[j], fpr[j], self.Pe, self.Ne))
        tpr_s, fpr_s = ks_drift(table, None if sizes is None else self.Pe + self.Ne)
        self.ks_s = max(float(np.max(tpr_s - fpr_s)), 0.0)
        self.move_t, self.move_f = tpr_s - tpr, fpr_s - fpr  # drift − sample: added to each replicate
        # the cells (ascending) through each cut: a cut's TPR* is the positive cells' running sum there
        self.pos_at = np.searchsorted(pos_cells, self.keep, side="right")
        self.neg_at = np.searchsorted(neg_cells, self.keep, side="right")
        self.pivots: list[np.ndarray] = []

    def _pivots(self, tpr: np.ndarray, fpr: np.ndarray) -> None:
        """One block's replicate curves (each resample's TPR*, FPR* at the cuts) to pivots."""
        tpr += self.move_t
        fpr += self.move_f
        j = np.argmax(tpr - fpr, axis=1)
        r = np.arange(tpr.shape[0])
        t, f = tpr[r, j], fpr[r, j]
        se = ks_standard_error(t, f, self.Pe, self.Ne)
        self.pivots.append((np.maximum(t - f, 0.0) - self.ks_s) / se)

    def add_weights(self, cells: WeightCells, drawn: np.ndarray) -> None:
        """One block of weighted draws: ``drawn`` shape (b, cells), each cell's resampled weight
        (``cells`` in canonical order, codes the table's rows); each resample's TPR* and FPR* over
        its own class totals (a weighted resample's class weights vary)."""
        for lo in range(0, drawn.shape[0], _ROWS):
            d = drawn[lo : lo + _ROWS]
            curves = []
            for cls in (cells.y, ~cells.y):
                idx = np.flatnonzero(cls)
                x = np.zeros((d.shape[0], self.width))
                if idx.shape[0]:
                    code = cells.codes[0, idx]  # ascending within a class (canonical order)
                    assert code.shape[0] < 2 or bool(np.all(code[1:] >= code[:-1])), "cells not in canonical order"
                    start = np.flatnonzero(np.r_[True, code[1:] != code[:-1]])
                    x[:, code[start]] = np.add.reduceat(d[:, idx], start, axis=1)
                c = np.cumsum(x, axis=1)[:, self.keep]
                with np.errstate(divide="ignore", invalid="ignore"):
                    c /= x.sum(axis=1, keepdims=True)
                curves.append(c)
            self._pivots(*curves)

    def add(self, draws: np.ndarray) -> None:
        """One block of cell draws, shape (b, cells): the positives' cells, then the negatives'.
        Each class's running sums over its own cells in the draws' own type, read at the cuts,
        then divided by the class size (whole counts: the sums are exact in any type)."""
        npc = self.pos_cells.shape[0]
        # each resample's curve is its own: the fewest pieces of about _DRAW_ELEMENTS points, of
        # equal sizes (a block of 131 resamples is four pieces, not 32, 32, 32, 32 and 3)
        b = draws.shape[0]
        pieces = min(b, -(-b * max(self.width, 1) // _DRAW_ELEMENTS))
        for i in range(pieces):
            d = draws[b * i // pieces : b * (i + 1) // pieces]
            curves = []
            for part, at, total in ((d[:, :npc], self.pos_at, self.P), (d[:, npc:], self.neg_at, self.N)):
                run = np.zeros((d.shape[0], part.shape[1] + 1), dtype=part.dtype)
                np.cumsum(part, axis=1, out=run[:, 1:])
                curves.append(np.divide(run[:, at], total))
            self._pivots(*curves)

    def finish(self, point: float, binned: bool, weighted: bool = False, pooled: bool = False) -> MaxDraws:
        pivots = np.concatenate(self.pivots) if self.pivots else np.empty(0)
        return MaxDraws(pivots, point, self.se, binned, weighted, pooled)


def ks_interval(draws: MaxDraws, level: float) -> list[float] | None:
    """The reshaped bootstrap-t interval of KS: ``[KS − q_hi·SE, KS − q_lo·SE]`` ∩ [0, 1], with
    ``q_lo, q_hi`` the ``(1 ∓ level)/2`` quantiles of the pivots; None with fewer than two.

    Why not the percentile interval: KS is the largest TPR − FPR gap over all cuts, so the
    sample KS sits above the population's (the maximum picks the cut where the noise is
    highest; the excess shrinks only as n^(−2/3) against a spread of n^(−1/2)); the ordinary
    bootstrap of such a maximum does not reproduce that excess (it sees it about half, and
    least where the sample's peak is highest: Sen, Banerjee & Woodroofe 2010 for the cube-root
    part), so the percentile interval sits too high (84 % coverage at n = 1,000). The
    *reshaped* bootstrap (Cattaneo, Jansson & Nagasawa 2020, Econometrica 88(5)) keeps each
    resample's noise — the cell draws' TPR*, FPR* minus the sample's — but adds it to a smooth
    estimate of the population's curves (:func:`ks_drift`) instead of the jagged sample's, so
    ``KS*_r = max_cut (TPR̃ − FPR̃ + noise_r)`` against ``KS̃ = max (TPR̃ − FPR̃)`` has the
    sampling distribution of KS − KS_true, selection excess included. Each replicate is
    studentised by :func:`ks_standard_error` at its own maximum (the bootstrap-t, Hall 1988:
    a sample whose peak is high also has a smaller binomial variance, so the unstudentised
    reshaped interval covered 92.5 % at n = 1,000) and the interval is scaled by the sample's
    error at its maximum. Coverage: README, "Intervals at any scale".
    """
    from reportgen.engine.stats import percentile_interval  # noqa: PLC0415

    if not np.isfinite(draws.point) or not np.isfinite(draws.se):
        return None
    iv = percentile_interval(draws.pivots, level)
    if iv is None:
        return None
    lo = min(1.0, max(0.0, draws.point - iv[1] * draws.se))
    hi = min(1.0, max(0.0, draws.point - iv[0] * draws.se))
    return [float(lo), float(hi)]


# --------------------------------------------------------------------------------------
# Joint tables of pairs of models (the paired pass of every engine)
# --------------------------------------------------------------------------------------


@dataclass(frozen=True, slots=True, eq=False, repr=False)
class PairCounts(Shown):
    """Rows counted by (class, bin of model a, bin of model b) for pairs of models.

    Attributes:
        luts: per model, shape (n_distinct,), its table rows' bins (:func:`coarse_lut` at
            :data:`JOINT_BINS`).
        pairs: the (a, b) model indices, a < b, in order.
        counts: per pair, int64 shape (2, bins_a, bins_b): [negatives, positives].
    """

    luts: tuple[np.ndarray, ...]
    pairs: tuple[tuple[int, int], ...]
    counts: tuple[np.ndarray, ...]

    def of(self, a: int, b: int) -> np.ndarray | None:
        """The counts of models (a, b) as [class, bin of a, bin of b], or None if not counted."""
        if (a, b) in self.pairs:
            return self.counts[self.pairs.index((a, b))]
        if (b, a) in self.pairs:
            return self.counts[self.pairs.index((b, a))].transpose(0, 2, 1)
        return None


class PairTableAccumulator:
    """Joint tables of every pair of models over aligned rows: ``add`` · ``merge`` · ``finish``.

    Rows arrive as each model's table row (the codes every engine's paired pass computes) and
    the truth; a chunk adds one ``bincount`` per pair. Counts are integers, so the result does
    not depend on how the rows were chunked or merged.
    """

    def __init__(self, tables: list[ScoreTable], thresholds: list[float]) -> None:
        self.luts = [coarse_lut(t, thr, JOINT_BINS) for t, thr in zip(tables, thresholds)]
        self.sizes = [int(lut[-1]) + 1 if lut.shape[0] else 1 for lut in self.luts]
        k = len(tables)
        self.pairs = [(a, b) for a in range(k) for b in range(a + 1, k)]
        self.counts = [np.zeros(2 * self.sizes[a] * self.sizes[b], dtype=np.int64) for a, b in self.pairs]
        # the luts in the narrowest integer type (at most JOINT_BINS + 1 bins: one byte) for the
        # per-row lookups: a chunk's bins and codes are then 1–4 bytes a row, not 8
        self._narrow = [lut.astype(np.uint8 if size <= 256 else np.int32) for lut, size in zip(self.luts, self.sizes)]
        self._code_type = (
            np.int32 if max((2 * self.sizes[a] * self.sizes[b] for a, b in self.pairs), default=0) < 2**31 else np.int64
        )

    def moments(self, rows: list[np.ndarray], y: np.ndarray, counts: np.ndarray | None = None) -> list[np.ndarray]:
        """One chunk's counts per pair, not yet added (safe to compute in threads); ``counts``:
        each row's multiplicity (whole numbers, frequency weights), None = 1."""
        ct = self._code_type
        yi: np.ndarray = np.asarray(y, dtype=ct)
        bins = [np.take(lut, np.asarray(r)) for lut, r in zip(self._narrow, rows)]
        out = []
        for a, b in self.pairs:
            code = yi * ct(self.sizes[a])
            code += bins[a]
            code *= ct(self.sizes[b])
            code += bins[b]
            n = np.bincount(code, weights=counts, minlength=2 * self.sizes[a] * self.sizes[b])
            out.append(n if counts is None else n.astype(np.int64))  # whole numbers below 2^53: exact
        return out

    def add_moments(self, part: list[np.ndarray]) -> None:
        for c, p in zip(self.counts, part):
            c += p

    def add(self, rows: list[np.ndarray], y: np.ndarray) -> None:
        self.add_moments(self.moments(rows, y))

    def merge(self, other: PairTableAccumulator) -> None:
        self.add_moments(other.counts)

    def finish(self) -> PairCounts:
        return PairCounts(
            tuple(self.luts),
            tuple(self.pairs),
            tuple(c.reshape(2, self.sizes[a], self.sizes[b]).copy() for c, (a, b) in zip(self.counts, self.pairs)),
        )


def pair_bootstrap(
    joint: np.ndarray,
    lut_a: np.ndarray,
    lut_b: np.ndarray,
    tables: tuple[ScoreTable, ScoreTable],
    thresholds: tuple[float, float],
    probabilities: tuple[bool | None, bool | None],
    resamples: int,
    rng: np.random.Generator,
    beta: float = 1.0,
    costs: B.Costs = B.Costs(),
    exact: tuple[np.ndarray, np.ndarray] | None = None,
) -> Draws:
    """Replicates of ``metric(a) − metric(b)`` under the paired stratified bootstrap, drawn on
    the cells of the pair's joint table ``joint`` ([class, bin of a, bin of b]); ``exact``: the
    two models' :func:`metric_vector`, if the caller has them."""
    cls, ia, ib = np.nonzero(joint)
    order = np.argsort(-cls, kind="stable")  # positives first
    cls, ia, ib = cls[order], ia[order], ib[order]
    counts = joint[cls, ia, ib].astype(np.float64)
    y = cls == 1
    n_pos = int(np.count_nonzero(y))
    kernels, binned = [], False
    for t, lut, g, thr, prob in zip(tables, (lut_a, lut_b), (ia, ib), thresholds, probabilities):
        coarse = coarsen(t, lut)
        binned |= coarse is not t
        losses = bin_losses(t, lut) if probability_scores(t, prob) else None
        kernels.append(_cell_kernel(coarse, g, y, thr, losses))
    da, db = _draw(kernels, counts, n_pos, resamples, rng, beta, costs)
    shift = np.zeros(len(B.METRICS))
    if binned:
        if exact is None:
            e0, e1 = (_exact(t, thr, beta, costs, prob) for t, thr, prob in zip(tables, thresholds, probabilities))
            exact = (e0, e1)
        shift = np.nan_to_num(
            exact[0] - exact[1] - (_at(kernels[0], counts, beta, costs) - _at(kernels[1], counts, beta, costs))
        )
    return Draws(da - db, shift, binned, paired=True)


# --------------------------------------------------------------------------------------
# Multiclass: the confusion counts and the true class's score tables
# --------------------------------------------------------------------------------------

#: ``ci_method`` of a multiclass model's interval drawn on its counts.
COUNT_BOOTSTRAP = "bootstrap of the confusion counts"


def multiclass_model_bootstrap(
    confusion: np.ndarray,
    diag_values: list[np.ndarray],
    diag_counts: list[np.ndarray] | None,
    evaluate,
    resamples: int,
    rng: np.random.Generator,
) -> tuple[list[dict], np.ndarray | None]:
    """The stratified bootstrap of one unweighted multiclass model, drawn on its counts.

    Stratified by true class: class i's n_i rows are resampled with replacement, so its row of
    the confusion matrix is ``Multinomial(n_i, C[i] / n_i)`` — exactly the distribution of the
    resampled rows' predictions — and every metric of the confusion counts (accuracy, κ, MCC,
    F-scores, expected cost, …) has the row bootstrap's distribution. The log-loss is a sum over
    classes of −log p[r, y_r], the true class's column: a class of at most
    :data:`~reportgen.engine.distinct_rows.DRAW_ROWS_FACTOR` rows per cell of its table T(i, i)
    has its n_i rows picked one by one, as the row bootstrap picks them (n_i uniform integers per
    resample: cheaper than a binomial per cell, and unbinned); a larger one falls on the distinct
    values of T(i, i) by a multinomial (binned to :data:`MODEL_BINS` equal-count bins with their
    mean loss above that many values: the exact expectation). The choice depends on the counts
    alone, so every engine draws the same. The two
    draws are independent: each metric's own interval is exact in distribution, and no metric
    depends on both. The AUCs combine several columns of the same rows, which the tables do not
    join: they are not drawn here.

    Args:
        confusion: (k, k) whole-number counts, rows = true class.
        diag_values, diag_counts: per class, T(i, i)'s ascending distinct values and counts
            (``diag_counts`` None: no scores, no log-loss).
        evaluate: ``confusion → dict`` of the model's metrics from counts alone.

    Returns (per resample the metrics ``evaluate`` gives, shape (resamples,) log-losses or None).
    """
    draws, log_loss = multiclass_count_draws(confusion, diag_values, diag_counts, resamples, rng)
    return [evaluate(draws[r]) for r in range(resamples)], log_loss


def multiclass_count_draws(
    confusion: np.ndarray,
    diag_values: list[np.ndarray],
    diag_counts: list[np.ndarray] | None,
    resamples: int,
    rng: np.random.Generator,
) -> tuple[np.ndarray, np.ndarray | None]:
    """The draws of :func:`multiclass_model_bootstrap` before any metric: the drawn confusion
    matrices, shape (resamples, k, k), and the log-losses (resamples,) or None — for a caller that
    evaluates the whole block at once
    (:func:`reportgen.engine.class_row_draws.confusion_metric_draws`). The same stream, so the
    same draws."""
    C = np.asarray(confusion, dtype=np.float64)
    k = C.shape[0]
    draws = np.zeros((resamples, k, k))
    for i in range(k):
        n_i = int(round(float(C[i].sum())))
        if n_i > 0:
            draws[:, i, :] = rng.multinomial(n_i, C[i] / C[i].sum(), size=resamples)
    if diag_counts is None:
        return draws, None
    (total,) = log_loss_sums([(diag_values, diag_counts)], resamples, [rng], lambda i: rng)
    return draws, total / float(C.sum())


#: Rows picked at once by :func:`log_loss_sums` (2 MB of int64: in cache, and no fresh pages per chunk).
PICKS_AT_ONCE = 1 << 18


def log_loss_sums(
    diags: Sequence[tuple[Sequence[np.ndarray], Sequence[np.ndarray]]],
    resamples: int,
    own: Sequence[np.random.Generator],
    picks: Callable[[int], np.random.Generator],
) -> list[np.ndarray]:
    """Each model's summed log-loss −Σ log p[r, y_r] over its resampled rows, shape (resamples,),
    drawn on its true class's tables as :func:`multiclass_model_bootstrap` draws it; ``diags[j]``:
    model j's per class T(i, i)'s ascending distinct values and counts.

    Classes in order. A class drawn on its values (more than
    :data:`~reportgen.engine.distinct_rows.DRAW_ROWS_FACTOR` rows per cell) takes its multinomial
    from the model's own generator ``own[j]``. A class whose n_i rows are picked one by one is
    picked once for every model with n_i rows of it, each summing its own losses at the picked
    places (its rows in ascending score; any order of a class's rows gives the same
    distribution): the integers come from ``picks(i)``, called once per class and row count, so
    with a fresh generator per call a model's draws depend only on its own tables, not on the
    other models — and one set of integers serves them all (the picks are most of the cost)."""
    eps = np.finfo(np.float64).eps
    totals = [np.zeros(resamples) for _ in diags]
    for i in range(max((len(values) for values, _ in diags), default=0)):
        picked: dict[int, list[tuple[int, np.ndarray]]] = {}  # rows of the class → (model, its losses, row by row)
        for j, (values, counts) in enumerate(diags):
            v = values[i]
            if v.shape[0] == 0:
                continue
            loss = -np.log(np.clip(v, eps, 1.0 - eps))
            c: np.ndarray = np.asarray(counts[i], dtype=np.float64)
            n_i = int(round(float(c.sum())))
            if n_i <= DR.DRAW_ROWS_FACTOR * min(v.shape[0], MODEL_BINS):  # few rows: picked one by one
                picked.setdefault(n_i, []).append((j, np.repeat(loss, c.astype(np.int64))))
                continue
            if v.shape[0] > MODEL_BINS:  # equal-count bins over the ascending values, mean loss each
                before = np.cumsum(c) - c
                b = np.floor(before * (MODEL_BINS / c.sum())).astype(np.int64)
                cnt = np.bincount(b, weights=c)
                keep = cnt > 0
                loss = np.bincount(b, weights=c * loss)[keep] / cnt[keep]
                c = cnt[keep]
            totals[j] += own[j].multinomial(int(round(float(c.sum()))), c / c.sum(), size=resamples) @ loss
        for n, models in picked.items():
            rng = picks(i)
            step = max(1, PICKS_AT_ONCE // max(n, 1))
            for lo in range(0, resamples, step):
                hi = min(resamples, lo + step)
                at = rng.integers(0, n, size=(hi - lo, n))
                for j, losses in models:
                    totals[j][lo:hi] += np.take(losses, at).sum(axis=1)  # take: a quarter faster than losses[at]
    return totals


__all__ = [
    "BINNED_BOOTSTRAP",
    "COUNT_BOOTSTRAP",
    "KS_BANDWIDTH",
    "KS_RESHAPED",
    "KS_RESHAPED_BINNED",
    "MaxDraws",
    "log_loss_sums",
    "multiclass_count_draws",
    "multiclass_model_bootstrap",
    "Draws",
    "JOINT_BINNED_BOOTSTRAP",
    "JOINT_BINS",
    "JOINT_BOOTSTRAP",
    "MAX_PAIR_MODELS",
    "MAX_PATTERN_MODELS",
    "MODEL_BINS",
    "PairCounts",
    "PairTableAccumulator",
    "TABLE_BOOTSTRAP",
    "bin_losses",
    "coarse_lut",
    "coarsen",
    "equal_weight_bins",
    "ks_drift",
    "ks_interval",
    "ks_standard_error",
    "model_bootstrap",
    "pair_bootstrap",
    "percentile",
]


# --------------------------------------------------------------------------------------
# Multiclass: each class's one-vs-rest AUC, drawn on the class tables (added for issue 15)
# --------------------------------------------------------------------------------------

#: ``ci_method`` of a per-class one-vs-rest AUC interval drawn on the class tables.
CLASS_TABLE_BOOTSTRAP = "bootstrap of the class tables"
#: The same, some column's scores binned first (more cells than a binary table's, :func:`class_bins`).
CLASS_TABLE_BINNED_BOOTSTRAP = "bootstrap of the binned class tables"
#: Bins of a class's score column never fall below this many, however many the classes.
CLASS_MIN_BINS = 256


def class_bins(k: int) -> int:
    """Bins a class's score column of k classes is cut into when it has more distinct scores:
    ``2·MODEL_BINS / k`` (at least :data:`CLASS_MIN_BINS`), so drawing one class's AUC (a
    multinomial per true class over the column's bins) costs about what a binary model's table
    does, ≤ 2·MODEL_BINS cells, and a resample of every class ≤ k·2·MODEL_BINS whatever the rows
    (not k²·MODEL_BINS: 50 classes would draw 10M cells a resample)."""
    return max(CLASS_MIN_BINS, (2 * MODEL_BINS) // max(k, 1))


def _ovr_auc(pos: np.ndarray, neg: np.ndarray) -> float:
    """One-vs-rest AUC from rows per distinct score (ascending), ties one half."""
    P, N = float(pos.sum()), float(neg.sum())
    return float(np.dot(pos, np.cumsum(neg) - 0.5 * neg) / (P * N))


def _binned_column(
    where: list[np.ndarray], cnts: list[np.ndarray], size: int, j: int, limit: int
) -> tuple[list[np.ndarray], list[np.ndarray], int, float]:
    """Column j's cells merged into at most ``limit`` equal-weight bins of consecutive
    scores (over every class's rows; :func:`equal_weight_bins`, as :func:`coarse_lut` bins a
    model's table): each class's (bin, rows), the number of bins, and the binning's error on the
    AUC, ``AUC_exact − AUC_binned`` (ties within a bin count one half), to move the replicates by."""
    weight = np.zeros(size)
    for w, c in zip(where, cnts):
        weight += np.bincount(w, weights=c, minlength=size)
    lut = equal_weight_bins(weight, limit)
    bins = int(lut[-1]) + 1
    exact_pos, exact_neg = np.zeros(size), np.zeros(size)
    binned = [np.bincount(lut[w], weights=c, minlength=bins) for w, c in zip(where, cnts)]
    for i, (w, c) in enumerate(zip(where, cnts)):
        (exact_pos if i == j else exact_neg)[w] += c
    binned_neg = np.sum([b for i, b in enumerate(binned) if i != j], axis=0)
    shift = _ovr_auc(exact_pos, exact_neg) - _ovr_auc(binned[j], binned_neg)
    cells = [np.flatnonzero(b) for b in binned]
    return cells, [b[c] for b, c in zip(binned, cells)], bins, shift


def ovr_auc_bootstrap(
    values: list[list[np.ndarray]],
    counts: list[list[np.ndarray]],
    resamples: int,
    rng: np.random.Generator,
    binned: list[bool] | None = None,
) -> np.ndarray:
    """Shape (resamples, k): each class's one-vs-rest AUC on stratified bootstrap resamples of the
    rows, drawn on the class tables; NaN for a class without positives or negatives. ``binned``:
    a list told, per class, whether its column was binned (below).

    ``values[j][i]``, ``counts[j][i]``: the distinct scores of column j on the rows of true class i
    (ascending) and how many rows have each (:class:`~reportgen.engine.class_tables.ClassTables`,
    unweighted). The row bootstrap stratified by true class resamples class i's n_i rows with
    replacement; column j of the resampled rows of class i then falls on the cells of T(j, i) as
    one ``Multinomial(n_i, counts[j][i] / n_i)`` — exactly. Class j's AUC reads column j alone
    (positives: class j's cells, negatives: every other class's), so its replicates have the row
    bootstrap's distribution: with ``pos_u``, ``neg_u`` the resampled counts at distinct score u,

        AUC_j = Σ_u pos_u · (Σ_{v<u} neg_v + ½ neg_u) / (P·N)    (ties count one half, as the point value).

    Columns are drawn independently: each class's interval is exact, but the draws do not join
    the columns of the same rows, so averages over classes (macro, weighted, micro) are not drawn
    here. O(Σ cells) per resample and column, in blocks of about 4M numbers (a seed fixes the
    stream: columns in order, then blocks, then true classes).

    A column with more cells than a binary model's table may have (its distinct scores per true
    class, summed, past 2·MODEL_BINS; continuous probabilities: about one a row) is first cut
    into :func:`class_bins` equal-weight bins of consecutive scores, as a binary model's table is
    (:func:`_binned_column`), so a resample costs at most about 2·MODEL_BINS cells per column
    whatever the rows; its replicates are moved by the binning's error on the data,
    ``AUC − AUC_binned`` (the percentile interval is translation-equivariant), as
    :func:`model_bootstrap` moves a binned model's.
    """
    k = len(values)
    out = np.full((resamples, k), np.nan)
    for j in range(k):
        if binned is not None:
            binned.append(False)
        n = [float(np.sum(c)) for c in counts[j]]
        P, N = n[j], float(sum(n)) - n[j]
        if P <= 0 or N <= 0 or resamples <= 0:
            continue
        grid = np.unique(np.concatenate([np.asarray(v, dtype=np.float64) for v in values[j]]))
        where = [np.searchsorted(grid, v) for v in values[j]]  # distinct per class: no index twice
        cnts = [np.asarray(c, dtype=np.float64) for c in counts[j]]
        size, shift = grid.shape[0], 0.0
        if sum(w.shape[0] for w in where) > 2 * MODEL_BINS:  # more cells than a binary table's
            where, cnts, size, shift = _binned_column(where, cnts, size, j, class_bins(k))
            if binned is not None:
                binned[-1] = True
        step = max(1, min(resamples, (1 << 22) // max(size, 1)))
        for lo in range(0, resamples, step):
            b = min(step, resamples - lo)
            pos = np.zeros((b, size))
            neg = np.zeros((b, size))
            for i in range(k):
                if n[i] <= 0:
                    continue
                drawn = rng.multinomial(int(round(n[i])), cnts[i] / n[i], size=b)
                (pos if i == j else neg)[:, where[i]] += drawn
            below = np.cumsum(neg, axis=1) - neg
            out[lo : lo + b, j] = np.einsum("bu,bu->b", pos, below + 0.5 * neg) / (P * N) + shift
    return out


__all__ += [
    "CLASS_MIN_BINS",
    "CLASS_TABLE_BINNED_BOOTSTRAP",
    "CLASS_TABLE_BOOTSTRAP",
    "class_bins",
    "ovr_auc_bootstrap",
]


# --------------------------------------------------------------------------------------
# Multiclass: differences of confusion metrics, drawn on the pair's joint confusion counts
# --------------------------------------------------------------------------------------

#: ``ci_method`` of a multiclass difference drawn on the joint confusion counts of the pair.
JOINT_CONFUSION_BOOTSTRAP = "paired bootstrap of the joint confusion counts"


def joint_confusion_bootstrap(
    joint: np.ndarray, resamples: int, rng: np.random.Generator
) -> tuple[np.ndarray, np.ndarray]:
    """Paired stratified bootstrap of two multiclass models' confusion matrices, on counts.

    ``joint[t, a, b]``: rows of true class t that model A predicts as a and model B as b. The
    stratified row bootstrap resamples class t's n_t rows with replacement, so how many land in
    each (a, b) cell is ``Multinomial(n_t, joint[t] / n_t)``, exactly; A's confusion row t is the
    draw summed over b, B's summed over a. Every confusion metric of both models (accuracy, κ,
    MCC, F-scores, expected cost, …) and their difference therefore have the paired row
    bootstrap's distribution, at O(k³) per resample whatever the rows, and every engine counts
    the same table. Returns A's and B's drawn confusion matrices, shape (resamples, k, k) each.
    """
    J = np.asarray(joint, dtype=np.float64)
    k = J.shape[0]
    da = np.zeros((resamples, k, k))
    db = np.zeros((resamples, k, k))
    for t in range(k):
        n_t = int(round(float(J[t].sum())))
        if n_t <= 0:
            continue
        cells = rng.multinomial(n_t, J[t].ravel() / J[t].sum(), size=resamples).reshape(resamples, k, k)
        da[:, t, :] = cells.sum(axis=2)
        db[:, t, :] = cells.sum(axis=1)
    return da, db


__all__ += ["JOINT_CONFUSION_BOOTSTRAP", "joint_confusion_bootstrap"]


# --------------------------------------------------------------------------------------
# Weighted models: rows counted per (score cell, class, weight) — the row bootstrap, exactly
# --------------------------------------------------------------------------------------

#: ``ci_method`` of a weighted model's interval drawn on its weight cells (exact / binned table).
WEIGHTED_BOOTSTRAP = "bootstrap (weighted score table)"
WEIGHTED_BINNED_BOOTSTRAP = "bootstrap (binned weighted score table)"
#: ... drawn on its pooled weight cells (:func:`pool_cells`: weight sums from their moments).
WEIGHTED_POOLED_BOOTSTRAP = "bootstrap (weighted score table, moment-matched weight sums)"
WEIGHTED_POOLED_BINNED_BOOTSTRAP = "bootstrap (binned weighted score table, moment-matched weight sums)"
#: ``ci_method`` of a difference of weighted models drawn on their joint weighted rows (exact / binned).
WEIGHTED_JOINT_BOOTSTRAP = "paired bootstrap of the weighted joint rows"
WEIGHTED_JOINT_BINNED_BOOTSTRAP = "paired bootstrap of the binned weighted joint rows"
#: ... drawn on their pooled joint cells (exact / binned codes).
WEIGHTED_JOINT_POOLED_BOOTSTRAP = "paired bootstrap of the weighted joint rows, moment-matched weight sums"
WEIGHTED_JOINT_POOLED_BINNED_BOOTSTRAP = (
    "paired bootstrap of the binned weighted joint rows, moment-matched weight sums"
)
#: Most weight cells (or distinct joint rows) counted: past it an engine keeps the rows pooled per
#: (score or every model's bin, class) with their weights' exact moments instead
#: (:class:`~reportgen.reduce.accumulators.WeightMoments`; models sharing one weight column), or
#: nothing, and those weighted intervals are not drawn (capability code ``weighted``) — the same
#: in every engine: the count of distinct cells of all rows does not depend on the chunking.
MAX_WEIGHT_CELLS = 1 << 22
#: Weight cells drawn cell by cell (each cell's multinomial draw times its weight: the row
#: bootstrap exactly) up to this many; past it the cells are pooled per table row or bin (every
#: model's) and class, and each pooled cell's resampled weight is drawn from its rows' weight
#: moments (:func:`pool_cells`, :func:`weight_blocks`). 500 resamples of 2^15 cells cost at most
#: about 1.5 s (a multinomial's 90 ns per cell, or 10 ns per row when rows are fewer than 8 per cell).
EXACT_WEIGHT_CELLS = 1 << 15
#: Joint weight cells of aligned models drawn exactly up to this many; past it each model's rows
#: are binned (:class:`~reportgen.reduce.accumulators.JointCellCounter`): a multinomial over 10^6
#: cells costs about 90 ms per resample, over 2^16 about 6 ms.
JOINT_EXACT_CELLS = 1 << 16


@dataclass(frozen=True, slots=True, eq=False, repr=False)
class WeightCells(Shown):
    """Rows counted by (key, class, weight): what the stratified row bootstrap of weighted rows needs.

    Rows of one cell share their class, their weight and, for every statistic, their place (a
    table row, or one table row per model), so they are interchangeable: resampling the rows
    with replacement within each class puts a multinomial number of rows on each cell, and the
    resample's weight on a cell is that number times the cell's weight. A draw on the cells
    therefore has exactly the distribution of the row bootstrap with the weights carried.

    Attributes:
        codes: shape (keys, cells) int64: per key (a model), each cell's row in that model's table.
        y: shape (cells,) bool, the class (True = positive).
        w: shape (keys, cells) float64: per key, the cell's weight (each model's own weights).
        rows: shape (cells,) int64: rows in the cell.
        luts: None when ``codes`` are table rows; else per key the bin of each table row
            (joint cells binned past :data:`MAX_WEIGHT_CELLS`).

    Canonical order (:func:`count_cells`): positives first, then by codes, then by weights — so
    every engine that counts the same rows holds the same arrays in the same order, and a seed
    draws the same resamples.
    """

    codes: np.ndarray
    y: np.ndarray
    w: np.ndarray
    rows: np.ndarray
    #: per key, the table rows' bins when ``codes`` are bins (:func:`split_lut`), None for table rows
    luts: tuple[np.ndarray, ...] | None = None
    #: pooled cells (:func:`pool_cells`): shape (cells,), the variance of the weights of each
    #: cell's rows, ``w`` then being their mean; None: every row of a cell has the weight ``w``
    var: np.ndarray | None = None

    @property
    def n_cells(self) -> int:
        return int(self.rows.shape[0])

    @property
    def n_pos_cells(self) -> int:
        return int(np.count_nonzero(self.y))


def count_cells(codes: np.ndarray, y: np.ndarray, w: np.ndarray, rows: np.ndarray | None = None) -> WeightCells:
    """Rows (or counted cells, ``rows`` their counts) grouped into :class:`WeightCells`.

    Args:
        codes: shape (keys, n) or (n,) integer codes (table rows).
        y: shape (n,) booleans.
        w: shape (keys, n) or (n,) weights (-0.0 is 0.0).
        rows: shape (n,) counts of each input (None: one row each).

    One ``lexsort`` over every key, equal neighbours summed: O(n log n), order-free.
    """
    codes = np.atleast_2d(np.asarray(codes, dtype=np.int64))
    w = np.atleast_2d(np.asarray(w, dtype=np.float64)) + 0.0  # -0.0 → 0.0
    y = np.asarray(y, dtype=bool)
    n = y.shape[0]
    r = np.ones(n, dtype=np.int64) if rows is None else np.asarray(rows, dtype=np.int64)
    if n == 0:
        return WeightCells(codes[:, :0].copy(), y.copy(), w[:, :0].copy(), r.copy())
    # np.lexsort: the last key is the primary one
    # keys that hold one value (a single model's unused codes) do not change the order: left out
    keys = [k for k in (*w[::-1], *codes[::-1]) if k.shape[0] and k.min() != k.max()]
    order = np.lexsort((*keys, ~y))
    c, ww, yy, rr = codes[:, order], w[:, order], y[order], r[order]
    new = np.empty(n, dtype=bool)
    new[0] = True
    same = (yy[1:] == yy[:-1]) & np.all(c[:, 1:] == c[:, :-1], axis=0) & np.all(ww[:, 1:] == ww[:, :-1], axis=0)
    new[1:] = ~same
    start = np.flatnonzero(new)
    return WeightCells(c[:, start], yy[start], ww[:, start], np.add.reduceat(rr, start))


def merge_cells(parts: list[WeightCells]) -> WeightCells:
    """Cells of disjoint rows added (cells with equal keys summed): the cells of all the rows."""
    return count_cells(
        np.concatenate([p.codes for p in parts], axis=1),
        np.concatenate([p.y for p in parts]),
        np.concatenate([p.w for p in parts], axis=1),
        np.concatenate([p.rows for p in parts]),
    )


def pool_cells(cells: WeightCells, codes: np.ndarray | None = None) -> WeightCells:
    """``cells`` pooled per codes (``codes``, shape (keys, cells), or their own) and class, weights
    no longer told apart: each pooled cell's rows (summed), ``w`` the mean weight of its rows and
    ``var`` the (population) variance of their weights (pooled input: its pools' variances and
    means combined, ``Σ rows·(var + (w − mean)²) / rows``). Every key must carry the same weights
    (one weight per row).

    Sums are taken over the cells in their canonical order (:func:`count_cells`; the sort is
    stable), so every engine pools the same cells into the same bits. O(cells log cells).
    """
    c = cells.codes if codes is None else np.atleast_2d(np.asarray(codes, dtype=np.int64))
    n, k = cells.n_cells, c.shape[0]
    if n == 0:
        return replace(cells, codes=c, var=np.zeros(0))
    order = np.lexsort((*c[::-1], ~cells.y))
    c, yy, w = c[:, order], cells.y[order], cells.w[0][order]
    r = cells.rows[order]
    new = np.empty(n, dtype=bool)
    new[0] = True
    new[1:] = (yy[1:] != yy[:-1]) | np.any(c[:, 1:] != c[:, :-1], axis=0)
    start = np.flatnonzero(new)
    group = np.cumsum(new) - 1
    rows = np.add.reduceat(r, start)
    rf = r.astype(np.float64)
    mean = np.bincount(group, weights=rf * w) / rows
    dev = w - mean[group]
    spread = dev * dev if cells.var is None else cells.var[order] + dev * dev
    var = np.bincount(group, weights=rf * spread) / rows
    return WeightCells(c[:, start], yy[start], np.tile(mean, (k, 1)), rows, cells.luts, var)


def weight_blocks(cells: WeightCells, rng: np.random.Generator, resamples: int):
    """Blocks ``(b, [drawn])`` of the stratified row bootstrap of weighted cells: ``drawn`` shape
    (b, cells), each cell's resampled *weight* (of key 0).

    How many of a class's rows land on each cell is drawn exactly (a multinomial per class and
    resample, :func:`~reportgen.engine.resample.stratified_cell_blocks`). Cells of one weight
    (``var`` None): that number times the weight — the row bootstrap, exactly. Pooled cells
    (:func:`pool_cells`): given ``K`` rows drawn on a cell whose rows' weights have mean ``μ`` and
    variance ``σ²``, the sum of their weights is drawn as ``Gamma(shape = K·μ²/σ², scale = σ²/μ)``
    (``K·μ`` when ``σ² = 0``): the conditional mean ``K·μ`` and variance ``K·σ²`` of ``K`` rows
    drawn with replacement from the cell, so every cell's resampled weight has the row
    bootstrap's mean and variance and every two cells its covariance (``−S_a·S_b/n``, ``S`` the
    cells' weights); only the higher moments of a cell's weight sum differ, by O(1/K). (A sum of
    ``K`` Gamma(μ²/σ², σ²/μ) draws is that Gamma: the bootstrap of rows whose weights were
    smoothed within each cell to a Gamma law of their mean and variance.) O(cells) per resample.
    """
    w = cells.w[0]
    spread = np.zeros(cells.n_cells, dtype=bool) if cells.var is None else cells.var > (1e-12 * w) ** 2
    shape_per_row = scale = None
    if cells.var is not None and spread.any():
        shape_per_row = np.divide(w * w, cells.var, out=np.zeros_like(w), where=spread)
        scale = np.divide(cells.var, w, out=np.zeros_like(w), where=spread)
    for b, (k,) in stratified_cell_blocks(cells.rows, cells.n_pos_cells, resamples, rng):
        drawn = k * w
        if shape_per_row is not None and scale is not None:
            drawn[:, spread] = rng.gamma(k[:, spread] * shape_per_row[spread], scale[spread])
        yield b, [drawn]


def cells_confusion(cells: WeightCells, cut: int, key: int = 0) -> tuple[int, int, int, int]:
    """(TP, FP, FN, TN) in rows of key ``key`` at the table cut ``cut`` (rows before it flagged)."""
    flagged = cells.codes[key] < cut
    tp = int(cells.rows[flagged & cells.y].sum())
    fp = int(cells.rows[flagged & ~cells.y].sum())
    pos = int(cells.rows[cells.y].sum())
    neg = int(cells.rows[~cells.y].sum())
    return tp, fp, pos - tp, neg - fp


def _weighted_kernel(
    table: ScoreTable,
    lut: np.ndarray,
    codes: np.ndarray,
    y: np.ndarray,
    w: np.ndarray | None,
    threshold: float,
    probabilities: bool | None,
) -> tuple[ResampleKernel, ScoreTable]:
    """The kernel of one model over cells (one kernel "row" per cell, its weight the cell's), on
    the table coarsened by ``lut`` (identity: the exact table)."""
    coarse = coarsen(table, lut)
    if coarse is table:
        return resample_kernel(table, codes, y, [np.arange(codes.shape[0])], threshold, w, probabilities), coarse
    losses = bin_losses(table, lut) if probability_scores(table, probabilities) else None
    kernel = resample_kernel(coarse, codes, y, [np.arange(codes.shape[0])], threshold, w, False)
    if losses is not None:
        yi = y.astype(np.int64)
        kernel = replace(kernel, losses=(np.stack([losses[yi, 0, codes], losses[yi, 1, codes]]),))
    return kernel, coarse


def weighted_model_bootstrap(
    table: ScoreTable,
    cells: WeightCells,
    threshold: float,
    resamples: int,
    rng: np.random.Generator,
    beta: float = 1.0,
    costs: B.Costs = B.Costs(),
    probabilities: bool | None = None,
) -> Draws:
    """The stratified row bootstrap of one weighted model (sample weights carried), drawn on its
    weight cells: per class one multinomial of its rows over the cells, each cell's draw times
    its weight summed per table row — exactly the distribution of resampling the rows.

    With more than :data:`MODEL_BINS` distinct scores the table is coarsened as an unweighted
    model's (:func:`coarse_lut`, cut at the threshold; weights kept distinct within a bin), the
    interval moved by the binning's error (:func:`model_bootstrap`). Past
    :data:`EXACT_WEIGHT_CELLS` cells, or given pooled cells (the counter's past its cap), the
    cells are pooled per (bin, class) and drawn by :func:`weight_blocks` (``pooled``). KS: the
    reshaped bootstrap-t (:func:`ks_interval`) on the same draws, each resample's curves over its
    own class weights, the binomial standard errors of Kish's effective class sizes
    (:func:`kish_sizes`).
    """
    lut = coarse_lut(table, threshold, MODEL_BINS)
    binned = int(lut[-1]) + 1 != table.n_distinct if lut.shape[0] else False
    c = cells
    if binned:
        codes = lut[cells.codes[0]]
        c = count_cells(codes, cells.y, cells.w[0], cells.rows) if cells.var is None else pool_cells(cells, codes)
    if c.var is None and c.n_cells > EXACT_WEIGHT_CELLS:
        c = pool_cells(c)
    pooled = c.var is not None
    kernel, coarse = _weighted_kernel(table, lut, c.codes[0], c.y, None if pooled else c.w[0], threshold, probabilities)
    reshaped = None
    if coarse.total_pos > 0 and coarse.total_neg > 0 and all(kish_sizes(c)):
        reshaped = _ReshapedKS(coarse, np.empty(0, np.int64), np.empty(0, np.int64), kish_sizes(c))
    also = None if reshaped is None else (lambda d: reshaped.add_weights(c, d if pooled else d * c.w[0]))
    samples = _draw([kernel], c.rows, c.n_pos_cells, resamples, rng, beta, costs, also, blocks=_blocks_of(c))[0]
    shift = np.zeros(len(B.METRICS))
    if binned:
        at = resampled_metrics(kernel, (1, [_observed(c)]), beta, costs)[0]
        shift = np.nan_to_num(_exact(table, threshold, beta, costs, probabilities) - at)
    ks = None if reshaped is None else reshaped.finish(reshaped.ks + float(shift[_KS]), binned, True, pooled)
    return Draws(samples, shift, binned, ks, weighted=True, pooled=pooled)


def _blocks_of(cells: WeightCells):
    """How :func:`_draw` draws ``cells``: counts per cell (kernels carry the weights), or pooled
    cells' resampled weights (:func:`weight_blocks`; kernels without weights)."""
    if cells.var is None:
        return stratified_cell_blocks
    return lambda counts, n_pos_cells, resamples, rng: weight_blocks(cells, rng, resamples)


def _observed(cells: WeightCells) -> np.ndarray:
    """Shape (1, cells): the draw of the observed rows themselves, as :func:`_blocks_of` draws."""
    rows = cells.rows.astype(np.float64)
    return (rows if cells.var is None else rows * cells.w[0])[None, :]


def split_lut(lut: np.ndarray, cuts) -> np.ndarray:
    """``lut`` (bins consecutive in table order) with a new bin starting at every table row in
    ``cuts`` too (0 < c < rows), so a rule "row ≥ c" selects whole bins."""
    k = lut.shape[0]
    new = np.zeros(k, dtype=bool)
    new[1:] = lut[1:] != lut[:-1]
    c = np.asarray([int(x) for x in cuts], dtype=np.int64)
    c = c[(c > 0) & (c < k)]
    new[c] = True
    return np.cumsum(new, dtype=np.int64)


def weighted_joint_bootstrap(
    cells: WeightCells,
    tables: list[ScoreTable],
    thresholds: list[float],
    probabilities: list[bool | None],
    resamples: int,
    rng: np.random.Generator,
    beta: float = 1.0,
    costs: B.Costs = B.Costs(),
) -> Draws:
    """Every model's metrics on the same paired stratified row bootstrap of weighted aligned rows
    (the same rows for every model: differences are paired), drawn on their joint cells (key j =
    model j: the row's place in model j's table and its weight there). Exact in distribution,
    O(cells) per resample (cells ≤ rows).

    Returns :class:`Draws` with ``samples`` shape (resamples, models, METRICS) and ``shift`` shape
    (models, METRICS): when the cells are binned (``cells.luts``), each model's table is
    coarsened by its lut and its binning error ``θ̂ − θ̂_binned`` is the shift (the threshold
    metrics keep their exact distribution: the bins are cut at the threshold).
    """
    kernels, shifts = [], []
    n = cells.n_cells
    if cells.var is None and n > EXACT_WEIGHT_CELLS and shared_weights(cells):
        cells = pool_cells(cells)
        n = cells.n_cells
    pooled = cells.var is not None
    for j, (t, thr, prob) in enumerate(zip(tables, thresholds, probabilities)):
        lut = np.arange(t.n_distinct, dtype=np.int64) if cells.luts is None else cells.luts[j]
        kernel, coarse = _weighted_kernel(t, lut, cells.codes[j], cells.y, None if pooled else cells.w[j], thr, prob)
        kernels.append(kernel)
        shift = np.zeros(len(B.METRICS))
        if coarse is not t:
            at = resampled_metrics(kernel, (1, [_observed(cells)]), beta, costs)[0]
            shift = np.nan_to_num(_exact(t, thr, beta, costs, prob) - at)
        shifts.append(shift)
    draws = (
        _draw(kernels, cells.rows, cells.n_pos_cells, resamples, rng, beta, costs, blocks=_blocks_of(cells))
        if n
        else [np.full((resamples, len(B.METRICS)), np.nan) for _ in kernels]
    )
    return Draws(
        np.stack(draws, axis=1), np.stack(shifts), cells.luts is not None, weighted=True, pooled=pooled, paired=True
    )


#: ``ci_method`` of each record of what was resampled: (paired, weighted, pooled, binned).
_METHODS: dict[tuple[bool, bool, bool, bool], str] = {
    (False, False, False, False): TABLE_BOOTSTRAP,
    (False, False, False, True): BINNED_BOOTSTRAP,
    (True, False, False, False): JOINT_BOOTSTRAP,
    (True, False, False, True): JOINT_BINNED_BOOTSTRAP,
    (False, True, False, False): WEIGHTED_BOOTSTRAP,
    (False, True, False, True): WEIGHTED_BINNED_BOOTSTRAP,
    (False, True, True, False): WEIGHTED_POOLED_BOOTSTRAP,
    (False, True, True, True): WEIGHTED_POOLED_BINNED_BOOTSTRAP,
    (True, True, False, False): WEIGHTED_JOINT_BOOTSTRAP,
    (True, True, False, True): WEIGHTED_JOINT_BINNED_BOOTSTRAP,
    (True, True, True, False): WEIGHTED_JOINT_POOLED_BOOTSTRAP,
    (True, True, True, True): WEIGHTED_JOINT_POOLED_BINNED_BOOTSTRAP,
}


def shared_weights(cells: WeightCells) -> bool:
    """Whether every key (model) gives each cell the same weight (a run-level weight column)."""
    return bool(np.all(cells.w == cells.w[:1]))


__all__ += [
    "EXACT_WEIGHT_CELLS",
    "WEIGHTED_POOLED_BOOTSTRAP",
    "WEIGHTED_POOLED_BINNED_BOOTSTRAP",
    "WEIGHTED_JOINT_POOLED_BOOTSTRAP",
    "WEIGHTED_JOINT_POOLED_BINNED_BOOTSTRAP",
    "pool_cells",
    "shared_weights",
    "weight_blocks",
]
__all__ += [
    "JOINT_EXACT_CELLS",
    "MAX_WEIGHT_CELLS",
    "WEIGHTED_BINNED_BOOTSTRAP",
    "WEIGHTED_JOINT_BINNED_BOOTSTRAP",
    "split_lut",
    "WEIGHTED_BOOTSTRAP",
    "WEIGHTED_JOINT_BOOTSTRAP",
    "WeightCells",
    "cells_confusion",
    "count_cells",
    "merge_cells",
    "weighted_joint_bootstrap",
    "weighted_model_bootstrap",
]
