"""Every binary metric of many bootstrap resamples of one model, without a table per resample.

A resample (:func:`~reportgen.engine.stats.stratified_bootstrap_blocks`) changes only the
counts of the score table, never its distinct scores; so what depends on the scores alone —
each row's place in the table, the cut of the decision threshold, the log-loss terms — is
worked out once per model (:func:`resample_kernel`), and a resample is a few bincounts and dot
products over its row multiplicities (:func:`resampled_metrics`), several resamples at a time.

Compressed table. The binary metrics the bootstrap reports (threshold metrics at one cut;
AUC, average precision, R-precision, KS, defective pairs; log-loss, Brier) need the table's
counts only at the *breakpoints* ``b_0 < b_1 < … < b_{L−1}`` — the distinct scores (table
indices, most positive first) that hold a positive row, and the first score the decision
threshold predicts negative — and the negatives' counts summed over each *stretch* between two
breakpoints: along a stretch TP does not change, so

* ``posB[j]``: positives at ``b_j``; ``negT[j]``: negatives tied with them at ``b_j``;
  ``negS[a]``: negatives strictly between ``b_{a−1}`` and ``b_a`` (``a = L``: after the last);
* positives before ``b_j``: ``cpos[j] = Σ_{i<j} posB[i]`` (``cpos[L] = P``); negatives before
  ``b_j``: ``fb[j] = Σ_{a<j} (negS[a] + negT[a]) + negS[j]``; negatives through ``b_j``:
  ``ft[j] = fb[j] + negT[j]``;
* threshold metrics: TP = ``cpos[c]``, FP = ``fb[c]`` with ``b_c`` the cut (the first score
  predicted negative);
* AUC (Mann–Whitney, ties as half): ``U = Σ_a negS[a]·cpos[a] + Σ_j negT[j]·(cpos[j] +
  posB[j]/2)``, as :func:`~reportgen.engine.binary.roc_auc` sums ``neg_i·(TP_{i−1} + pos_i/2)``;
* average precision: ``Σ_j posB[j] · cpos[j+1] / (cpos[j+1] + ft[j])``, divided by P;
* KS: the largest ``cpos[j+1]/P − ft[j]/N``: TPR − FPR cannot rise along a stretch (FP grows,
  TP stays), so its maximum over all cuts is at a cut just past a breakpoint that holds a
  drawn positive (what :func:`~reportgen.engine.binary._ks` searches: the run starts), and
  the other breakpoints' values are values at real cuts, never larger;
* R-precision: the first breakpoint ``j`` whose cumulative weight ``cpos[j+1] + ft[j]``
  reaches P; the crossing is at ``b_j`` itself, or, when the weight before it already
  reaches P, in the negatives-only stretch before it (then TP = ``cpos[j]`` exactly).

Same numbers: with unit weights every count is a whole number, so every sum above is exact
and the threshold metrics, AUC, defective pairs, R-precision and KS equal
:func:`~reportgen.engine.binary.compute_metrics` on the resampled table bit for bit; average
precision, log-loss and Brier (and every metric with non-unit weights) add the same terms in
another order, equal up to rounding (tests/properties/test_bootstrap_resample.py). Weights
must be non-negative, as :func:`~reportgen.engine.curve.build_table` requires.

Memory: a kernel keeps, per row, its bin (8 bytes), its weight if any (8) and its two loss
terms if the scores are probabilities (16); a chunk of resamples is bounded by
``_CHUNK_ELEMENTS`` elements per array.
"""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass

import numpy as np

from reportgen.engine import binary as B
from reportgen.engine.curve import ScoreTable
from reportgen.value import Shown

#: About the most resamples × max(rows, compressed bins) evaluated at once (float64: 512 KB
#: arrays, reused from the heap; 8 MB ones were mapped and faulted in anew for every chunk).
_CHUNK_ELEMENTS = 1 << 16

#: Each metric's range in :data:`~reportgen.engine.binary.METRICS` order (lower bounds, upper
#: bounds; ±inf where unbounded): a chunk's values are clipped in one call.
_RANGES = np.array([B.RANGES.get(name, (-np.inf, np.inf)) for name in B.METRICS]).T


@dataclass(frozen=True, slots=True, eq=False, repr=False)
class ResampleKernel(Shown):
    """What every resample of one model shares: its rows' places in the compressed table.

    Attributes:
        n_breaks: L, the number of breakpoints.
        cut: index ``c`` of the decision cut in the breakpoints (L when every score is
            predicted positive).
        codes: per stratum (order of :func:`~reportgen.engine.stats.bootstrap_strata`), shape
            (size,), each row's bin: ``j`` for a positive at ``b_j``; ``L + a`` for a negative
            in stretch ``a``; ``2L + 1 + j`` for a negative tied with ``b_j`` (3L + 1 bins).
        weights: per stratum, shape (size,), the rows' sample weights, or None (unit weights).
        losses: per stratum, shape (2, size), each row's log-loss and Brier terms (−log of the
            probability given to its class, (y − s)²), or None when the scores are not
            probabilities.
    """

    n_breaks: int
    cut: int
    codes: tuple[np.ndarray, ...]
    weights: tuple[np.ndarray, ...] | None
    losses: tuple[np.ndarray, ...] | None


def resample_kernel(
    table: ScoreTable,
    groups: np.ndarray,
    y: np.ndarray,
    strata: Sequence[np.ndarray],
    threshold: float,
    weights: np.ndarray | None = None,
    probabilities: bool | None = None,
) -> ResampleKernel:
    """The :class:`ResampleKernel` of one model (once per comparison, O(n)).

    Args:
        table: the model's table of the full data.
        groups: shape (n,), :func:`~reportgen.engine.curve.row_groups` of its scores.
        y: shape (n,), booleans (True = positive).
        strata: the bootstrap's strata (row indices), as the resamples will be drawn.
        threshold: the model's decision threshold.
        weights: shape (n,), non-negative sample weights, or None.
        probabilities: as in :func:`~reportgen.engine.binary.compute_metrics` (False: the
            scores are declared not to be probabilities, so no log-loss or Brier).
    """
    y = np.asarray(y).astype(bool, copy=False)
    k = table.n_distinct
    mark = np.zeros(k, dtype=bool)
    mark[groups[y]] = True
    c0 = table.cut_index(threshold)
    if c0 < k:
        mark[c0] = True
    upto = np.cumsum(mark, dtype=np.int64)  # breakpoints at or before each score
    L = int(upto[-1]) if k else 0
    cut = int(upto[c0] - 1) if c0 < k else L
    # positives: their breakpoint; negatives: L + (breakpoints before), L + 1 more when tied
    bins = np.where(y, upto[groups] - 1, L + upto[groups] + L * mark[groups])
    del upto
    w = None if weights is None else np.asarray(weights, dtype=np.float64)
    losses = None
    if probability_scores(table, probabilities):
        eps = np.finfo(np.float64).eps
        s = table.thresholds[groups]
        sc = np.clip(s, eps, 1.0 - eps)
        log_loss = -np.where(y, np.log(sc), B.log1m(sc))
        brier = np.where(y, np.subtract(1.0, s), s) ** 2
        losses = tuple(np.stack([log_loss[rows], brier[rows]]) for rows in strata)
    return ResampleKernel(
        n_breaks=L,
        cut=cut,
        codes=tuple(bins[rows] for rows in strata),
        weights=None if w is None else tuple(w[rows] for rows in strata),
        losses=losses,
    )


def probability_scores(table: ScoreTable, probabilities: bool | None) -> bool:
    """Whether log-loss and Brier apply: the conditions of
    :func:`~reportgen.engine.binary.probability_losses` that do not depend on the counts."""
    s = table.thresholds
    in_unit = not s.size or (s.min() >= 0.0 and s.max() <= 1.0)
    return probabilities is not False and table.direction == "higher" and bool(in_unit)


def resampled_metrics(
    kernel: ResampleKernel,
    block: tuple[int, Sequence[np.ndarray]],
    beta: float = 1.0,
    costs: B.Costs = B.Costs(),
) -> np.ndarray:
    """Every metric of :data:`~reportgen.engine.binary.METRICS` on each resample of a block.

    Args:
        kernel: the model's :func:`resample_kernel`.
        block: ``(b, counts)`` as :func:`~reportgen.engine.stats.stratified_bootstrap_blocks`
            yields it: per stratum, int shape (b, size), the row multiplicities.

    Returns shape (b, len(METRICS)): the values ``compute_metrics`` reports on each resampled
    table (clipped to each metric's range), NaN where it reports None.
    """
    b, counts = block
    out = np.empty((b, len(B.METRICS)))
    width = max(3 * kernel.n_breaks + 1, max((c.shape[1] for c in counts), default=0))
    # the fewest chunks of about _CHUNK_ELEMENTS, of equal sizes (a block of 2·65 + 1 resamples is
    # two chunks, not 65, 65 and 1: each chunk costs some 80 numpy calls whatever its size)
    chunks = min(b, -(-b * width // _CHUNK_ELEMENTS))
    for i in range(chunks):
        lo, hi = b * i // chunks, b * (i + 1) // chunks
        out[lo:hi] = _chunk_metrics(kernel, hi - lo, [c[lo:hi] for c in counts], beta, costs)
    return out


def _chunk_metrics(kernel: ResampleKernel, b: int, counts: list[np.ndarray], beta: float, costs: B.Costs) -> np.ndarray:
    """:func:`resampled_metrics` of ``b`` resamples at once (the formulas: module docstring)."""
    L, c = kernel.n_breaks, kernel.cut
    # each stratum's rows' weights in this resample: multiplicity × sample weight
    mult = [m.astype(np.float64) for m in counts]
    if kernel.weights is not None:
        for m, w in zip(mult, kernel.weights):
            m *= w
    # one bincount per stratum for all b resamples: resample r's bins at r·(3L + 1) …, each bin
    # summed in row order as a bincount per resample sums it
    bins = 3 * L + 1
    X = np.zeros((b, bins))
    offsets = np.arange(0, b * bins, bins)[:, None]
    for m, codes in zip(mult, kernel.codes):
        X += np.bincount((codes + offsets).ravel(), weights=m.ravel(), minlength=b * bins).reshape(b, bins)
    posB, negS, negT = X[:, :L], X[:, L : 2 * L + 1], X[:, 2 * L + 1 :]
    cpos = np.zeros((b, L + 1))
    np.cumsum(posB, axis=1, out=cpos[:, 1:])
    fb = np.zeros((b, L + 1))
    np.add(negS[:, :L], negT, out=fb[:, 1:])
    np.cumsum(fb[:, 1:], axis=1, out=fb[:, 1:])
    fb += negS
    ft = fb[:, :L] + negT
    P, N = cpos[:, L].copy(), fb[:, L].copy()
    both = (P > 0) & (N > 0)
    tp_t = cpos[:, 1:]
    through = tp_t + ft  # weight predicted positive by the cut just past each breakpoint

    vals = B.metric_arrays(cpos[:, c], fb[:, c], P, N, beta, costs)
    with np.errstate(divide="ignore", invalid="ignore"):
        u = _rowdot(negS, cpos) + _rowdot(negT, cpos[:, :L]) + 0.5 * _rowdot(negT, posB)
        auc = np.where(both, np.clip(u / (P * N), 0.0, 1.0), np.nan)
        vals["roc_auc"] = auc
        vals["gini"] = 2.0 * auc - 1.0
        prec = np.zeros_like(through)  # precision, 0 where nothing is flagged (as nan_to_num)
        np.divide(tp_t, through, out=prec, where=through != 0)
        vals["average_precision"] = np.where(P > 0, _rowdot(posB, prec) / P, np.nan)
        vals["r_precision"] = np.where(P > 0, _r_precision(cpos, fb, through, posB, negT, P), np.nan)
        tp_t /= P[:, None]  # TPR, in place: cpos is not used again
        ft /= N[:, None]  # FPR
        tp_t -= ft  # TPR − FPR
        vals["ks"] = np.where(both, np.maximum(tp_t.max(axis=1, initial=-np.inf), 0.0), np.nan)
        W = P + N
        pairs = W * (W - 1.0)
        dp = 2.0 * P * N / pairs * (1.0 - auc)
        vals["defective_pairs"] = np.where((pairs > 0) & (pairs >= 2.0 * P * N), dp, np.nan)
        if kernel.losses is None:
            vals["log_loss"] = vals["brier"] = np.full(b, np.nan)
        else:
            sums = sum(np.einsum("rn,kn->rk", m, t) for m, t in zip(mult, kernel.losses))
            vals["log_loss"], vals["brier"] = _per_row(sums[:, 0], W), _per_row(sums[:, 1], W)
    out = np.column_stack([vals[name] for name in B.METRICS])
    out[~np.isfinite(out)] = np.nan
    return np.clip(out, *_RANGES, out=out)


def _rowdot(a: np.ndarray, b: np.ndarray) -> np.ndarray:
    """Σ_j a[r, j]·b[r, j] per row r, by numpy's own loop (no threaded BLAS: see ``B._dot``)."""
    return np.einsum("rj,rj->r", a, b)


def _per_row(num: np.ndarray, den: np.ndarray) -> np.ndarray:
    """num / den, NaN where den <= 0 (a resample without weight has no mean loss)."""
    return np.where(den > 0, num / den, np.nan)


def _r_precision(
    cpos: np.ndarray, fb: np.ndarray, through: np.ndarray, posB: np.ndarray, negT: np.ndarray, P: np.ndarray
) -> np.ndarray:
    """R-precision per resample (:func:`~reportgen.engine.binary.r_precision`).

    The first breakpoint ``j`` whose cumulative weight reaches P exists when P > 0 (at the last
    breakpoint with a drawn positive TP alone is P). If the weight before ``b_j`` reaches P too,
    the crossing is a negatives-only score: TP there is ``cpos[j]`` and it adds no positives;
    otherwise it is ``b_j``, whose share ``(P − before) / weight`` of positives counts.
    """
    L = posB.shape[1]
    b = P.shape[0]
    if L == 0:
        return np.full(b, np.nan)
    rows = np.arange(b)
    j = np.argmax(through >= P[:, None], axis=1)
    before = cpos[rows, j] + fb[rows, j]
    w = posB[rows, j] + negT[rows, j]
    frac = np.where(w > 0, (P - before) / w, 0.0)
    tp = cpos[rows, j]
    return np.where(before >= P, tp, tp + frac * posB[rows, j]) / P


# --------------------------------------------------------------------------------------
# The stratified bootstrap of a score table (streamed and distributed inputs)
# --------------------------------------------------------------------------------------


def table_kernel(
    table: ScoreTable, threshold: float, probabilities: bool | None = None
) -> tuple[ResampleKernel, np.ndarray, int]:
    """The kernel of a table's *cells* and their counts, for resampling without the rows.

    Rows in one cell of the table — one distinct score and one class — are interchangeable for
    every metric, so a resample is fully described by how many of each cell's rows it draws.
    Each cell becomes one kernel "row" (its score's group and class; its log-loss and Brier
    terms are those of one row) whose multiplicity is that number (:func:`stratified_cell_blocks`).

    Returns ``(kernel, counts, n_pos_cells)``: ``counts`` shape (cells,), the cells' row
    counts, the positives' cells first. Unit weights only: a weighted cell is not a count.
    """
    if table.weighted:
        raise ValueError("resampling a table's cells needs unit weights (counts)")
    pos_cells = np.flatnonzero(table.pos > 0)
    neg_cells = np.flatnonzero(table.neg > 0)
    groups = np.concatenate([pos_cells, neg_cells])
    y = np.zeros(groups.shape[0], dtype=bool)
    y[: pos_cells.shape[0]] = True
    counts = np.concatenate([table.pos[pos_cells], table.neg[neg_cells]])
    kernel = resample_kernel(table, groups, y, [np.arange(groups.shape[0])], threshold, None, probabilities)
    return kernel, counts, int(pos_cells.shape[0])


def stratified_cell_blocks(counts: np.ndarray, n_pos_cells: int, n_resamples: int, rng: np.random.Generator):
    """Blocks ``(b, [draws])`` of the stratified bootstrap, counted per cell: int shape (b, cells).

    The stratified bootstrap draws P rows with replacement among the P positives (and N among
    the negatives); how many land in each cell is multinomial with the cells' shares, exactly
    the distribution of :func:`~reportgen.engine.stats.stratified_bootstrap_blocks` summed per
    cell — the in-memory engine's scheme, whatever the number of rows. (It is also the per-row
    Poisson(1) bootstrap of data streams conditioned on the class sizes.) Two ways to draw it,
    picked by the counts alone, so every engine holding the same cells draws the same resamples
    for a seed:

    * at least 8 rows a cell: one ``multinomial(P, pos / P)`` per resample and class, O(cells)
      per resample (about 60–170 ns a cell: one binomial each);
    * fewer (small inputs, where most cells hold one row; weight cells of continuous weights):
      the rows themselves, P uniform indices into the class's rows laid out cell after cell
      (``np.repeat``), counted per cell — the row bootstrap, so the same distribution, at about
      10 ns a row (:func:`_row_blocks`).

    The blocks' sizes depend on the counts only, so a seed fixes the whole stream.
    """
    counts = np.asarray(counts, dtype=np.float64)
    parts = [counts[:n_pos_cells], counts[n_pos_cells:]]
    if 8 * counts.shape[0] > int(round(float(counts.sum()))):
        yield from _row_blocks(parts, n_resamples, rng)
        return
    step = max(1, min(n_resamples, (1 << 22) // max(counts.shape[0], 1)))
    done = 0
    while done < n_resamples:
        b = min(step, n_resamples - done)
        draws = []
        for c in parts:
            if c.shape[0] == 0:
                draws.append(np.zeros((b, 0), dtype=np.int64))
                continue
            draws.append(rng.multinomial(int(round(float(c.sum()))), c / c.sum(), size=b))
        yield b, [np.concatenate(draws, axis=1)]
        done += b


def _row_blocks(parts: list[np.ndarray], n_resamples: int, rng: np.random.Generator):
    """:func:`stratified_cell_blocks` drawn row by row: per block of ``b`` resamples and per class
    (positives first), ``integers(0, n, (b, n))`` picks each resample's ``n`` rows among the
    class's ``n``, each mapped to its cell; the picks of both classes are counted per (resample,
    cell) in one ``bincount``. Blocks of about 2 × :data:`_CHUNK_ELEMENTS` counts (and fewer than
    8 times as many drawn rows), about what the consumers take at once: smaller blocks cost each
    consumer a call per block (1.5x the time at 20,000 rows), larger ones fresh pages (1.3x at
    1,000 rows)."""
    rows = int(sum(round(float(c.sum())) for c in parts))
    kind = np.int32 if rows < 2**31 else np.int64  # half the memory traffic of the gather
    starts = np.cumsum([0] + [c.shape[0] for c in parts])  # each class's first cell
    # each class's rows laid out cell after cell, as the numbers of their cells
    owners = [
        np.repeat(np.arange(a, a + c.shape[0], dtype=kind), np.round(c).astype(np.int64)) for c, a in zip(parts, starts)
    ]
    cells, picks = int(starts[-1]), sum(o.shape[0] for o in owners)
    step = max(1, min(n_resamples, (2 * _CHUNK_ELEMENTS) // max(cells, 1)))
    done = 0
    while done < n_resamples:
        b = min(step, n_resamples - done)
        offsets = np.arange(0, b * cells, cells, dtype=kind)[:, None]  # resample r's cells at r·cells …
        codes = np.empty(b * picks, dtype=kind)  # each class's picks, resample after resample
        at = 0
        for owner in owners:
            n = owner.shape[0]
            if n:
                picked = codes[at : at + b * n].reshape(b, n)
                np.take(owner, rng.integers(0, n, size=(b, n), dtype=kind), out=picked, mode="clip")
                np.add(picked, offsets, out=picked)
                at += b * n
        yield b, [np.bincount(codes, minlength=b * cells).reshape(b, cells)]
        done += b


def table_bootstrap_metrics(
    table: ScoreTable,
    threshold: float,
    n_resamples: int,
    rng: np.random.Generator,
    beta: float = 1.0,
    costs: B.Costs = B.Costs(),
    probabilities: bool | None = None,
) -> np.ndarray:
    """Shape (n_resamples, len(METRICS)): every metric on stratified bootstrap resamples of one
    model's rows, drawn per cell of its table (:func:`stratified_cell_blocks`); NaN where
    undefined."""
    kernel, counts, n_pos_cells = table_kernel(table, threshold, probabilities)
    out = np.empty((n_resamples, len(B.METRICS)))
    done = 0
    for block in stratified_cell_blocks(counts, n_pos_cells, n_resamples, rng):
        out[done : done + block[0]] = resampled_metrics(kernel, block, beta, costs)
        done += block[0]
    return out
