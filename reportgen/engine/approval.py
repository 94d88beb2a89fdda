"""Comparison at equal approval rate: "at the same acceptance rate, do we take fewer bads?".

Why: two models at their own decision rules approve different shares of applicants, so their
accuracy, McNemar counts and bad rates compare different books. A champion/challenger review
fixes the approval rate instead: each model approves the same share of the rows (its least
risky ones), and the question is the bad rate among the approved, with the **swap sets** that
explain the difference (Siddiqi 2017, *Intelligent Credit Scoring*, 2nd ed., ch. 13 "swap set
analysis"; Thomas, Crook & Edelman 2017, *Credit Scoring and Its Applications*, §8).

Conventions: the positive class is the bad outcome; a row is *approved* when the model does not
flag it positive (its table code is at or past the cut: ``code ≥ cut``, codes ordered most
risky first, :class:`~reportgen.engine.curve.ScoreTable`). Rates are weighted (a population
estimate under sampling weights); counts are given in rows and in weight side by side.

For a target rate r, model j's cut is the one whose approved share is closest to r (the
riskiest approved score is its threshold; tied scores move together, so the achieved rate is
stated beside the target). Bad rate among approved: ``BR = Σ_approved w·y / Σ_approved w``.
The paired difference ``BR_model − BR_baseline`` gets a percentile interval from the
stratified bootstrap at the fixed cuts (one draw for both models: paired).

Every engine counts the same thing (unweighted rows): each model's cut for each target rate is
fixed by its score table alone (:func:`table_cut`; the tables are complete before the paired
pass), and the paired pass counts rows per pattern ``y + 2·Σ_i approved_i·2^i`` at each rate
(:class:`ApprovalCounter`: add · merge · finish, whole numbers, so chunking and merge order
cannot change them). Every number of the comparison follows from those counts exactly
(:func:`compare_from_counts`): a pair's swap cells are a marginal of the patterns. The
interval resamples the counts: drawing P positives and N negatives with replacement puts a
multinomial number of rows on each (swap cell, class), so one multinomial per class and
resample has exactly the distribution of the row bootstrap summed per cell, O(cells) per
resample (as the decision-pattern bootstrap, :func:`reportgen.engine.compare.joint_bootstrap`).
Weighted rows: a cell's resampled weight is not a function of its row count, so the rows are
counted per (every model's table row, class, weight) instead — the joint weight cells every
engine's paired pass counts (:class:`~reportgen.engine.intervals.WeightCells`) — and
:func:`compare_cells_at_rate` draws per class one multinomial of the rows over the (swap cell,
weight) cells, each draw times its weight: exactly the row bootstrap with the weights carried,
O(cells) per resample. (:func:`compare_at_rate` is the same comparison on raw rows.)

Pure numpy; results are :class:`~reportgen.results.ApprovalAtRate`.
"""

from __future__ import annotations

from collections.abc import Sequence
from typing import Literal

import numpy as np

from reportgen.engine import stats
from reportgen.engine.curve import ScoreTable
from reportgen.engine.intervals import (
    EXACT_WEIGHT_CELLS,
    JOINT_BINS,
    WeightCells,
    coarse_lut,
    count_cells,
    pool_cells,
    split_lut,
    weight_blocks,
)
from reportgen.engine.resample import stratified_cell_blocks
from reportgen.results import ApprovalAtRate, ApprovalSide, SwapCell

#: Where a compared approval rate comes from: the baseline's own rule, or the config's list.
Source = Literal["baseline", "config"]

#: ``ApprovalAtRate.ci_method``.
APPROVAL_BOOTSTRAP = "paired stratified bootstrap of rows at fixed cuts"
#: ``ApprovalAtRate.ci_method`` of the interval drawn on the pattern counts (same distribution).
APPROVAL_COUNT_BOOTSTRAP = "paired stratified bootstrap of approval patterns at fixed cuts"
#: ... of weighted rows with continuous weights: per (approval pattern, class), each one's resampled
#: weight drawn from its rows' weight moments (:func:`~reportgen.engine.intervals.weight_blocks`)
APPROVAL_POOLED_BOOTSTRAP = "paired stratified bootstrap of approval patterns at fixed cuts, moment-matched weight sums"
#: Most models whose approval patterns are counted (2^(k+1) cells per rate).
MAX_APPROVAL_MODELS = 10

#: Swap cells: index = 2·(model approves) + (baseline approves).
STAY_DECLINED, SWAP_OUT, SWAP_IN, STAY_APPROVED = 0, 1, 2, 3


def approved_share_by_cut(codes: np.ndarray, weights: np.ndarray, n_codes: int) -> np.ndarray:
    """Shape (n_codes + 1,): weighted share of rows approved at each cut c (rows with code ≥ c)."""
    per_code = np.bincount(codes, weights=weights, minlength=n_codes)
    tail = np.concatenate([np.cumsum(per_code[::-1])[::-1], [0.0]])
    return tail / tail[0]


def cut_for_rate(codes: np.ndarray, weights: np.ndarray, n_codes: int, rate: float) -> int:
    """The cut whose approved share is closest to ``rate`` (ties: the one approving more)."""
    share = approved_share_by_cut(codes, weights, n_codes)
    return int(np.argmin(np.abs(share - rate)))


def table_shares(table: ScoreTable) -> np.ndarray:
    """Shape (n_codes + 1,): share approved at each cut c (rows with table code ≥ c), from the
    table's per-score weights; equal to :func:`approved_share_by_cut` of its rows."""
    per_code = np.asarray(table.pos, dtype=np.float64) + np.asarray(table.neg, dtype=np.float64)
    tail = np.concatenate([np.cumsum(per_code[::-1])[::-1], [0.0]])
    return tail / tail[0]


def table_cut(table: ScoreTable, rate: float, threshold: float | None = None) -> int:
    """The cut whose approved share is closest to ``rate`` (ties: the one approving more), from
    the table alone (:func:`cut_for_rate` of its rows).

    ``threshold``: the model's own decision threshold when ``rate`` is its own approval rate
    (:func:`own_rate`); the cut is then its rule's, whatever the ties. Scores of zero weight
    next to the rule's cut give several cuts of that share, and "the one approving more" would
    approve rows the rule declines (counted in ``approved_rows``, and the riskiest approved
    score named as the threshold).
    """
    if threshold is not None:
        rule = table.cut_index(threshold)
        if float(table_shares(table)[rule]) == rate:
            return rule
    return int(np.argmin(np.abs(table_shares(table) - rate)))


def own_rate(table: ScoreTable, threshold: float) -> float:
    """Share a model approves at its own decision rule (rows not flagged positive)."""
    return float(table_shares(table)[table.cut_index(threshold)])


class ApprovalCounter:
    """Rows per pattern of truth and approvals at each target rate: ``add`` · ``merge`` · ``finish``.

    Targets: each model's own approval rate at its rule (first, in model order: whichever is the
    baseline), then ``rates``. Row i of ``cuts`` holds every model's cut at target i
    (:func:`table_cut`); a row of codes ``c`` is approved by model j at target i when
    ``c_j ≥ cuts[i, j]``. Counts are integers: independent of chunking and merge order.
    """

    def __init__(self, tables: list[ScoreTable], thresholds: list[float], rates: tuple[float, ...] = ()) -> None:
        self.k = len(tables)
        self.targets = tuple(own_rate(t, thr) for t, thr in zip(tables, thresholds)) + tuple(float(r) for r in rates)
        # model j at its own rate (target j) keeps its rule's cut
        self.cuts = np.array(
            [
                [table_cut(t, r, thr if i == j else None) for j, (t, thr) in enumerate(zip(tables, thresholds))]
                for i, r in enumerate(self.targets)
            ],
            dtype=np.int64,
        ).reshape(len(self.targets), self.k)
        self.counts = np.zeros((len(self.targets), 1 << (self.k + 1)), dtype=np.int64)

    def moments(self, rows: list[np.ndarray], y: np.ndarray, counts: np.ndarray | None = None) -> np.ndarray:
        """One chunk's counts (targets, patterns), not yet added (safe to compute in threads);
        ``counts``: each row's multiplicity (whole numbers, frequency weights), None = 1."""
        width = self.counts.shape[1]
        ct = np.uint8 if width <= 256 else np.uint16 if width <= 65536 else np.int64  # a pattern in 1–2 bytes a row
        yi: np.ndarray = np.asarray(y, dtype=ct)
        out = np.empty_like(self.counts)
        for i, cuts in enumerate(self.cuts):
            code = yi.copy()
            for j, (r, c) in enumerate(zip(rows, cuts)):
                code |= (np.asarray(r) >= c).astype(ct) << ct(j + 1)
            out[i] = np.bincount(code, weights=counts, minlength=width)  # whole numbers: exact
        return out

    def add_moments(self, part: np.ndarray) -> None:
        self.counts += part

    def add(self, rows: list[np.ndarray], y: np.ndarray) -> None:
        self.add_moments(self.moments(rows, y))

    def merge(self, other: ApprovalCounter) -> None:
        self.add_moments(other.counts)

    def finish(self) -> ApprovalCounts:
        return ApprovalCounts(self.k, self.targets, self.cuts.copy(), self.counts.copy())


class ApprovalCounts:
    """What :class:`ApprovalCounter` counted: ``targets`` (each model's own rate, then the
    configured ones), ``cuts`` (targets, k) and ``counts`` (targets, 2^(k+1)) rows per pattern
    ``y + 2·Σ_j approved_j·2^j``."""

    __slots__ = ("k", "targets", "cuts", "counts")

    def __init__(self, k: int, targets: tuple[float, ...], cuts: np.ndarray, counts: np.ndarray) -> None:
        self.k, self.targets, self.cuts, self.counts = k, targets, cuts, counts

    def target_index(self, rate: float, own: int | None = None) -> int | None:
        """Index of model ``own``'s own rate, or of the configured ``rate``; None if not counted."""
        if own is not None:
            return own
        for i in range(self.k, len(self.targets)):
            if self.targets[i] == rate:
                return i
        return None

    def cells(self, target: int, j: int, b: int) -> np.ndarray:
        """Shape (4, 2): rows per (swap cell ``2·approved_j + approved_b``, class) at a target."""
        code = np.arange(self.counts.shape[1])
        cell = 2 * ((code >> (j + 1)) & 1) + ((code >> (b + 1)) & 1)
        out = np.zeros((4, 2))
        np.add.at(out, (cell, code & 1), self.counts[target].astype(np.float64))
        return out


def cut_scores(thresholds: np.ndarray, cut: int) -> tuple[float | None, float | None]:
    """The riskiest score approved at ``cut`` and the safest declined (its neighbour in the table):
    (None, …) when nothing is approved, (…, None) when nothing is declined."""
    if cut >= thresholds.shape[0]:
        return None, None
    return float(thresholds[cut]), None if cut == 0 else float(thresholds[cut - 1])


def _side_of(
    name: str, cells: np.ndarray, approved: tuple[int, int], scores: tuple[float | None, float | None]
) -> ApprovalSide:
    """One side from (swap cell, class) row counts; ``approved`` its two approving cells;
    ``scores``: :func:`cut_scores`."""
    app = cells[list(approved)].sum(0)
    wa, bads = float(app.sum()), float(app[1])
    return ApprovalSide(
        model=name,
        threshold=scores[0],
        next_score=scores[1],
        approval_rate=wa / float(cells.sum()),
        approved_rows=int(wa),
        bads_rows=int(bads),
        approved_weight=wa,
        bads_weight=bads,
        bad_rate=None if wa == 0 else bads / wa,
    )


def _cell_of(c: np.ndarray) -> SwapCell:
    wt, bads = float(c.sum()), float(c[1])
    return SwapCell(
        rows=int(wt), bads_rows=int(bads), weight=wt, bads_weight=bads, bad_rate=None if wt == 0 else bads / wt
    )


def count_bootstrap_delta(cells: np.ndarray, resamples: int, rng: np.random.Generator) -> np.ndarray:
    """Shape (resamples,): the bad-rate difference on stratified bootstrap resamples, drawn on the
    (swap cell, class) row counts ``cells`` (4, 2): per class a multinomial of its rows over its
    non-empty cells (:func:`~reportgen.engine.resample.stratified_cell_blocks`), exactly the
    distribution of the row bootstrap's per-cell sums."""
    pos = np.flatnonzero(cells[:, 1] > 0)
    neg = np.flatnonzero(cells[:, 0] > 0)
    counts = np.concatenate([cells[pos, 1], cells[neg, 0]])
    out = np.empty(resamples)
    done = 0
    for b, (draws,) in stratified_cell_blocks(counts, pos.shape[0], resamples, rng):
        c = np.zeros((b, 4, 2))
        c[:, pos, 1] = draws[:, : pos.shape[0]]
        c[:, neg, 0] = draws[:, pos.shape[0] :]
        out[done : done + b] = _bad_rate_delta(c)
        done += b
    return out


def compare_from_counts(
    rate: float,
    source: Source,
    counts: ApprovalCounts,
    target: int,
    names: Sequence[str],
    thresholds: Sequence[np.ndarray],
    baseline: int,
    level: float,
    resamples: int,
    rng: np.random.Generator,
) -> list[ApprovalAtRate]:
    """Every model against the baseline at one counted target (unweighted rows): the numbers of
    :func:`compare_at_rate` from the pattern counts, the interval by :func:`count_bootstrap_delta`."""
    cuts = counts.cuts[target]

    def thr(j: int) -> tuple[float | None, float | None]:
        return cut_scores(thresholds[j], int(cuts[j]))

    out = []
    for j, name in enumerate(names):
        if j == baseline:
            continue
        cells = counts.cells(target, j, baseline)
        model = _side_of(name, cells, (SWAP_IN, STAY_APPROVED), thr(j))
        base = _side_of(names[baseline], cells, (SWAP_OUT, STAY_APPROVED), thr(baseline))
        delta = None if model.bad_rate is None or base.bad_rate is None else model.bad_rate - base.bad_rate
        ci = None
        if resamples > 0 and delta is not None:
            iv = stats.percentile_interval(count_bootstrap_delta(cells, resamples, rng), level)
            ci = None if iv is None else [iv[0], iv[1]]
        out.append(
            ApprovalAtRate(
                target_rate=rate,
                source=source,
                model=model,
                baseline=base,
                bad_rate_delta=delta,
                ci=ci,
                ci_level=level,
                ci_method=APPROVAL_COUNT_BOOTSTRAP if ci is not None else None,
                swap_in=_cell_of(cells[SWAP_IN]),
                swap_out=_cell_of(cells[SWAP_OUT]),
                stay_approved=_cell_of(cells[STAY_APPROVED]),
                stay_declined=_cell_of(cells[STAY_DECLINED]),
            )
        )
    return out


def _side(
    name: str, approved: np.ndarray, y: np.ndarray, w: np.ndarray, scores: tuple[float | None, float | None]
) -> ApprovalSide:
    wa = float(w[approved].sum())
    bads = float(w[approved & y].sum())
    return ApprovalSide(
        model=name,
        threshold=scores[0],
        next_score=scores[1],
        approval_rate=wa / float(w.sum()),
        approved_rows=int(np.count_nonzero(approved)),
        bads_rows=int(np.count_nonzero(approved & y)),
        approved_weight=wa,
        bads_weight=bads,
        bad_rate=None if wa == 0 else bads / wa,
    )


def _cell(mask: np.ndarray, y: np.ndarray, w: np.ndarray) -> SwapCell:
    wt = float(w[mask].sum())
    bads = float(w[mask & y].sum())
    return SwapCell(
        rows=int(np.count_nonzero(mask)),
        bads_rows=int(np.count_nonzero(mask & y)),
        weight=wt,
        bads_weight=bads,
        bad_rate=None if wt == 0 else bads / wt,
    )


def _bad_rate_delta(cells: np.ndarray) -> np.ndarray:
    """BR_model − BR_baseline from weights per (…, swap cell, class), class 1 = bad; NaN when a
    side approves nothing."""
    model_app = cells[..., SWAP_IN, :] + cells[..., STAY_APPROVED, :]
    base_app = cells[..., SWAP_OUT, :] + cells[..., STAY_APPROVED, :]
    with np.errstate(invalid="ignore", divide="ignore"):
        return model_app[..., 1] / model_app.sum(-1) - base_app[..., 1] / base_app.sum(-1)


def bootstrap_delta(
    y: np.ndarray, w: np.ndarray, cell: np.ndarray, resamples: int, rng: np.random.Generator
) -> np.ndarray:
    """Shape (resamples,): the bad-rate difference on stratified bootstrap resamples of the rows.

    Per class stratum, a block of multiplicities ``counts`` (b, rows) times the matrix of each
    row's weight on its swap cell (rows, 4) gives every resample's weight per cell.
    """
    strata = stats.bootstrap_strata(y)
    onehot = [np.zeros((r.shape[0], 4)) for r in strata]
    for o, r in zip(onehot, strata):
        o[np.arange(r.shape[0]), cell[r]] = w[r]
    klass = [int(y[r[0]]) for r in strata]
    out = np.empty(resamples)
    done = 0
    for b, counts in stats.stratified_bootstrap_blocks(y, resamples, rng):
        cells = np.zeros((b, 4, 2))
        for c, o, kl in zip(counts, onehot, klass):
            cells[:, :, kl] += c.astype(np.float64) @ o
        out[done : done + b] = _bad_rate_delta(cells)
        done += b
    return out


def compare_at_rate(
    rate: float,
    source: Source,
    y: np.ndarray,
    weights: np.ndarray | None,
    names: Sequence[str],
    codes: Sequence[np.ndarray],
    thresholds: Sequence[np.ndarray],
    baseline: int,
    level: float,
    resamples: int,
    rng: np.random.Generator,
) -> list[ApprovalAtRate]:
    """Every model against the baseline at approval rate ``rate`` (one entry per other model).

    Args:
        y: shape (n,), True = bad (the positive class), shared by the aligned rows.
        weights: shape (n,) or None (unit weights).
        codes: per model, shape (n,): each row's index in that model's table (most risky first).
        thresholds: per model, the table's distinct scores (``thresholds[c]`` is the riskiest
            score approved at cut c).
        baseline: index of the baseline model.
    """
    y = np.asarray(y, dtype=bool)
    w = np.ones(y.shape[0]) if weights is None else np.asarray(weights, dtype=np.float64)
    approved, sides = [], []
    for name, c, thr in zip(names, codes, thresholds):
        cut = cut_for_rate(c, w, thr.shape[0], rate)
        a = c >= cut
        approved.append(a)
        sides.append(_side(name, a, y, w, cut_scores(thr, cut)))
    out = []
    ab = approved[baseline]
    for j in range(len(names)):
        if j == baseline:
            continue
        am = approved[j]
        cell = 2 * am.astype(np.int64) + ab.astype(np.int64)
        masks = [cell == q for q in (SWAP_IN, SWAP_OUT, STAY_APPROVED, STAY_DECLINED)]
        br_m, br_b = sides[j].bad_rate, sides[baseline].bad_rate
        delta = None if br_m is None or br_b is None else br_m - br_b
        ci = None
        if resamples > 0 and delta is not None:
            iv = stats.percentile_interval(bootstrap_delta(y, w, cell, resamples, rng), level)
            ci = None if iv is None else [iv[0], iv[1]]
        out.append(
            ApprovalAtRate(
                target_rate=rate,
                source=source,
                model=sides[j],
                baseline=sides[baseline],
                bad_rate_delta=delta,
                ci=ci,
                ci_level=level,
                ci_method=APPROVAL_BOOTSTRAP if ci is not None else None,
                swap_in=_cell(masks[0], y, w),
                swap_out=_cell(masks[1], y, w),
                stay_approved=_cell(masks[2], y, w),
                stay_declined=_cell(masks[3], y, w),
            )
        )
    return out


def joint_cell_luts(
    tables: Sequence[ScoreTable], thresholds: Sequence[float], rates: Sequence[float] = ()
) -> list[np.ndarray]:
    """Each model's bins for weighted joint cells past :data:`~reportgen.engine.intervals.MAX_WEIGHT_CELLS`:
    :func:`~reportgen.engine.intervals.coarse_lut` at :data:`~reportgen.engine.intervals.JOINT_BINS`
    (equal-weight bins cut at the threshold), split again at the model's cut for every target
    approval rate the paired pass knows (every model's own rate, then ``rates``:
    :class:`ApprovalCounter`'s targets), so the decisions and the approvals stay exact on bins."""
    targets = [own_rate(t, thr) for t, thr in zip(tables, thresholds)] + [float(r) for r in rates]
    return [
        split_lut(
            coarse_lut(t, thr, JOINT_BINS), [table_cut(t, r, thr if i == j else None) for i, r in enumerate(targets)]
        )
        for j, (t, thr) in enumerate(zip(tables, thresholds))
    ]


def compare_cells_at_rate(
    rate: float,
    source: Source,
    cells: WeightCells,
    names: Sequence[str],
    tables: Sequence[ScoreTable],
    baseline: int,
    level: float,
    resamples: int,
    rng: np.random.Generator,
    rule: float | None = None,
) -> list[ApprovalAtRate]:
    """:func:`compare_at_rate` of weighted aligned rows given as their joint weight cells
    (:class:`~reportgen.engine.intervals.WeightCells`, key j = model j): rows are the cells'
    counts, weights the counts times the baseline's weight (as :func:`compare_at_rate` weighs
    every model's rows by the baseline's); each model's cut is :func:`table_cut` of its own table
    (the same cut when the models share their weights; on binned cells, a bin boundary by
    :func:`joint_cell_luts`). The interval is drawn per class on the (swap cell, weight) cells
    (:func:`~reportgen.engine.resample.stratified_cell_blocks`), exactly the distribution of
    :func:`bootstrap_delta` on the rows. ``rule``: the baseline's decision threshold when ``rate``
    is its own approval rate (its side then keeps its rule's cut, :func:`table_cut`)."""
    y = np.asarray(cells.y, dtype=bool)
    mult = cells.rows.astype(np.float64)
    w = cells.w[baseline]
    mw = mult * w
    approved, sides = [], []
    for j, (name, table) in enumerate(zip(names, tables)):
        thr = table.thresholds
        cut = table_cut(table, rate, rule if j == baseline else None)
        # bins never exceed the rows, so cut = rows (nothing approved) approves no bin either
        at = cut if cells.luts is None or cut >= thr.shape[0] else int(cells.luts[j][cut])
        a = cells.codes[j] >= at
        approved.append(a)
        wa, bads = float(mw[a].sum()), float(mw[a & y].sum())
        threshold, next_score = cut_scores(thr, cut)
        sides.append(
            ApprovalSide(
                model=name,
                threshold=threshold,
                next_score=next_score,
                approval_rate=wa / float(mw.sum()),
                approved_rows=int(mult[a].sum()),
                bads_rows=int(mult[a & y].sum()),
                approved_weight=wa,
                bads_weight=bads,
                bad_rate=None if wa == 0 else bads / wa,
            )
        )

    def cell_of(mask: np.ndarray) -> SwapCell:
        wt, bads = float(mw[mask].sum()), float(mw[mask & y].sum())
        return SwapCell(
            rows=int(mult[mask].sum()),
            bads_rows=int(mult[mask & y].sum()),
            weight=wt,
            bads_weight=bads,
            bad_rate=None if wt == 0 else bads / wt,
        )

    out = []
    ab = approved[baseline]
    for j in range(len(names)):
        if j == baseline:
            continue
        cell = 2 * approved[j].astype(np.int64) + ab.astype(np.int64)
        br_m, br_b = sides[j].bad_rate, sides[baseline].bad_rate
        delta = None if br_m is None or br_b is None else br_m - br_b
        ci, pooled = None, False
        if resamples > 0 and delta is not None:
            # per (swap cell, class, weight), positives first; pooled cells (past the cap): per (swap cell, class)
            sub = count_cells(cell, y, w, cells.rows) if cells.var is None else pool_cells(cells, cell)
            if sub.var is None and sub.n_cells > EXACT_WEIGHT_CELLS:  # continuous weights: by their moments
                sub = pool_cells(sub)
            pooled = sub.var is not None
            onehot = np.zeros((sub.n_cells, 4, 2))
            onehot[np.arange(sub.n_cells), sub.codes[0], sub.y.astype(np.int64)] = 1.0
            draws_out = np.empty(resamples)
            done = 0
            for b, (weights,) in weight_blocks(sub, rng, resamples):
                drawn = np.einsum("rc,cqk->rqk", weights, onehot)
                draws_out[done : done + b] = _bad_rate_delta(drawn)
                done += b
            iv = stats.percentile_interval(draws_out, level)
            ci = None if iv is None else [iv[0], iv[1]]
        masks = [cell == q for q in (SWAP_IN, SWAP_OUT, STAY_APPROVED, STAY_DECLINED)]
        out.append(
            ApprovalAtRate(
                target_rate=rate,
                source=source,
                model=sides[j],
                baseline=sides[baseline],
                bad_rate_delta=delta,
                ci=ci,
                ci_level=level,
                ci_method=None if ci is None else APPROVAL_POOLED_BOOTSTRAP if pooled else APPROVAL_COUNT_BOOTSTRAP,
                swap_in=cell_of(masks[0]),
                swap_out=cell_of(masks[1]),
                stay_approved=cell_of(masks[2]),
                stay_declined=cell_of(masks[3]),
            )
        )
    return out


__all__ = [
    "APPROVAL_BOOTSTRAP",
    "APPROVAL_POOLED_BOOTSTRAP",
    "compare_cells_at_rate",
    "joint_cell_luts",
    "APPROVAL_COUNT_BOOTSTRAP",
    "ApprovalCounter",
    "ApprovalCounts",
    "MAX_APPROVAL_MODELS",
    "approved_share_by_cut",
    "bootstrap_delta",
    "compare_at_rate",
    "compare_from_counts",
    "count_bootstrap_delta",
    "cut_for_rate",
    "own_rate",
    "table_cut",
    "table_shares",
]
