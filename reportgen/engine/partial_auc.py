"""Partial AUC over a specificity or sensitivity range, McClish-corrected, from score tables.

Definitions are pROC's (Robin et al. 2011, *BMC Bioinformatics* 12:77; ``R/auc.R`` ``auc.roc``
and ``R/roc.utils.R`` of github.com/xrobin/pROC):

* focus **specificity**, range ``[lo, hi]``: the area under the ROC curve (sensitivity against
  specificity) for specificities in ``[lo, hi]``, i.e. ``∫ TPR d(FPR)`` over
  ``FPR ∈ [1 − hi, 1 − lo]``; focus **sensitivity**: the area under specificity against
  sensitivity for sensitivities in ``[lo, hi]``. The curve is the empirical one through every
  distinct score (ties make one step, a diagonal segment) and the range's ends are reached by
  linear interpolation on the segment that crosses them, as pROC does; vertical segments add
  nothing, so which of several points at one abscissa pROC picks does not change the area.
* **McClish's correction** (McClish 1989, *Med Decis Making* 9:190): with
  ``min = ((1 − hi) + (1 − lo))·(hi − lo)/2`` (the diagonal's area over the range) and
  ``max = hi − lo``, ``corrected = (1 + (pauc − min)/(max − min))/2``, 0.5 for a useless model and
  1 for a perfect one; undefined (None) when ``pauc < min`` (a curve below the diagonal there),
  as pROC returns NA.

Intervals: the stratified bootstrap drawn on the model's score table cells (the table coarsened
to :data:`~reportgen.engine.intervals.MODEL_BINS` bins above that many distinct scores, the
replicates moved by the binning error), as the other ranking metrics'. The paired test between
two models is pROC's ``roc.test(..., method = "bootstrap")`` for partial AUC:
``D = (pAUC₁ − pAUC₂)/sd(replicate differences)``, ``p = 2·Φ(−|D|)``, the replicates drawn on
the pair's joint score table (every engine's paired pass); unpaired models add the two models'
bootstrap variances (pROC's unpaired bootstrap test). The corrected pAUC is a fixed linear map
of the raw one over a range, so the test of either is the same test.

Everything is a function of score tables and joint counts (mergeable), so the memory, stream
and dask engines give the same numbers.
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import Literal

import numpy as np

from reportgen.engine import intervals as IV
from reportgen.engine.curve import ScoreTable
from reportgen.engine.operating_points import pair_curve_diffs
from reportgen.engine.resample import stratified_cell_blocks
from reportgen.value import Value

Focus = Literal["specificity", "sensitivity"]


@dataclass(frozen=True, repr=False, eq=False, slots=True)
class PartialRange(Value):
    """One configured range: its focus and ``lo < hi`` in [0, 1]."""

    focus: Focus
    lo: float
    hi: float


def clipped_area(x: np.ndarray, y: np.ndarray, a: float, b: float) -> np.ndarray:
    """``∫ y dx`` over ``x ∈ [a, b]`` of the polyline through (x, y), x non-decreasing along the
    last axis; shape (..., n) → (...). Each segment is clipped to [a, b] with y interpolated
    linearly at the clip points (pROC's interpolation at a range's ends)."""
    x0, x1, y0, y1 = x[..., :-1], x[..., 1:], y[..., :-1], y[..., 1:]
    ca, cb = np.clip(x0, a, b), np.clip(x1, a, b)
    width = cb - ca
    dx = x1 - x0
    slope = np.divide(y1 - y0, dx, out=np.zeros_like(dx), where=dx > 0)
    ya, yb = y0 + slope * (ca - x0), y0 + slope * (cb - x0)
    return np.sum(width * (ya + yb) / 2.0, axis=-1)


def partial_auc_of_counts(tp: np.ndarray, fp: np.ndarray, r: PartialRange) -> np.ndarray:
    """The raw partial AUC from cumulative counts ``tp``, ``fp`` (shape (..., k + 1), from the
    empty cut to every row positive: :meth:`ScoreTable.cumulative`); NaN without both classes."""
    p, n = tp[..., -1:], fp[..., -1:]
    with np.errstate(invalid="ignore", divide="ignore"):
        tpr, fpr = tp / p, fp / n
    if r.focus == "specificity":
        return clipped_area(fpr, tpr, 1.0 - r.hi, 1.0 - r.lo)
    return clipped_area(tpr, 1.0 - fpr, r.lo, r.hi)


def mcclish_bounds(r: PartialRange) -> tuple[float, float]:
    """McClish's (min, max): the diagonal's and the perfect curve's area over the range."""
    return ((1.0 - r.hi) + (1.0 - r.lo)) * (r.hi - r.lo) / 2.0, r.hi - r.lo


def corrected(pauc: float | np.ndarray, r: PartialRange) -> np.ndarray:
    """McClish's standardised partial AUC; NaN where ``pauc < min`` (pROC: NA)."""
    lo, hi = mcclish_bounds(r)
    v = np.asarray(pauc, dtype=np.float64)
    with np.errstate(invalid="ignore"):
        return np.where(v >= lo, (1.0 + (v - lo) / (hi - lo)) / 2.0, np.nan)


def partial_auc(table: ScoreTable, r: PartialRange) -> float | None:
    """A model's raw partial AUC over ``r``; None without both classes."""
    if table.total_pos <= 0 or table.total_neg <= 0:
        return None
    tp, fp = table.cumulative_view()
    return float(partial_auc_of_counts(tp, fp, r))


def _finite(v: float) -> float | None:
    return float(v) if np.isfinite(v) else None


@dataclass(frozen=True, repr=False, eq=False, slots=True)
class ModelPartial(Value):
    """One model's partial AUC over one range: the value, McClish's, their percentile intervals
    and the (shifted) bootstrap replicates of the raw value (for the unpaired test)."""

    range: PartialRange
    value: float | None
    corrected: float | None
    ci: list[float] | None
    corrected_ci: list[float] | None
    replicates: np.ndarray | None
    method: str


@dataclass(frozen=True, repr=False, eq=False, slots=True)
class PartialTest(Value):
    """A challenger's partial AUC test against the baseline over one range, before the verdicts'
    family is adjusted (:mod:`reportgen.engine.compare`)."""

    mine: ModelPartial
    base: ModelPartial
    ci: list[float] | None
    p: float | None
    paired: bool
    method: str


#: Resamples made into curves at once: about this many points a curve array (256 KB of float64),
#: so the temporaries are reused from the heap rather than mapped and faulted in for each block.
_CURVE_ELEMENTS = 1 << 15


def _cells(table: ScoreTable) -> tuple[np.ndarray, np.ndarray, np.ndarray]:
    """The table's non-empty cells, positives first: (row of each cell, counts, n_pos_cells)."""
    pos_cells, neg_cells = np.flatnonzero(table.pos > 0), np.flatnonzero(table.neg > 0)
    return pos_cells, neg_cells, np.concatenate([table.pos[pos_cells], table.neg[neg_cells]])


def _resampled(n_rows: int, pos_cells: np.ndarray, neg_cells: np.ndarray, draws: np.ndarray):
    """Cumulative (tp, fp) of each resample, shape (b, n_rows + 1), from per-cell draws."""
    b = draws.shape[0]
    k = pos_cells.shape[0]
    tp = np.zeros((b, n_rows + 1))
    fp = np.zeros((b, n_rows + 1))
    tp[:, 1 + pos_cells] = draws[:, :k]
    fp[:, 1 + neg_cells] = draws[:, k:]
    return np.cumsum(tp, axis=1), np.cumsum(fp, axis=1)


def model_partial_aucs(
    table: ScoreTable,
    threshold: float,
    ranges: tuple[PartialRange, ...],
    resamples: int,
    rng: np.random.Generator,
    level: float,
) -> list[ModelPartial]:
    """Each range's partial AUC of one unweighted model with its bootstrap intervals (module
    docstring); no intervals when ``resamples`` is 0 or the table is weighted, and no draws
    without ranges."""
    exact = [partial_auc(table, r) for r in ranges]
    reps: list[np.ndarray | None] = [None] * len(ranges)
    method = "no interval"
    if ranges and resamples > 0 and not table.weighted and table.total_pos > 0 and table.total_neg > 0:
        lut = IV.coarse_lut(table, threshold, IV.MODEL_BINS)
        coarse = IV.coarsen(table, lut)
        binned = coarse is not table
        method = IV.BINNED_BOOTSTRAP if binned else IV.TABLE_BOOTSTRAP
        pos_cells, neg_cells, counts = _cells(coarse)
        out = [np.empty(resamples) for _ in ranges]
        done = 0
        step = max(1, _CURVE_ELEMENTS // (coarse.n_distinct + 1))
        for b, (draws,) in stratified_cell_blocks(counts, pos_cells.shape[0], resamples, rng):
            for lo in range(0, b, step):  # each resample's curve is its own: any rows at once
                tp, fp = _resampled(coarse.n_distinct, pos_cells, neg_cells, draws[lo : lo + step])
                for o, r in zip(out, ranges):
                    o[done + lo : done + lo + tp.shape[0]] = partial_auc_of_counts(tp, fp, r)
            done += b
        for q, (o, r) in enumerate(zip(out, ranges)):
            shift = 0.0 if not binned else (exact[q] or 0.0) - (partial_auc(coarse, r) or 0.0)
            reps[q] = o + shift
    results = []
    for r, v, rep in zip(ranges, exact, reps):
        c = None if v is None else _finite(float(corrected(v, r)))
        ci = cci = None
        if rep is not None:
            ci = IV.percentile(rep, 0.0, level, 0.0, r.hi - r.lo)
            cci = IV.percentile(corrected(rep, r), 0.0, level, 0.0, 1.0) if c is not None else None
        results.append(ModelPartial(r, v, c, ci, cci, rep, method))
    return results


def pair_partial_auc_diffs(
    joint: np.ndarray,
    lut_a: np.ndarray,
    lut_b: np.ndarray,
    tables: tuple[ScoreTable, ScoreTable],
    ranges: tuple[PartialRange, ...],
    resamples: int,
    rng: np.random.Generator,
) -> list[np.ndarray]:
    """Replicates of ``pAUC(a) − pAUC(b)`` per range under the paired stratified bootstrap,
    drawn on the cells of the pair's joint table ``joint`` ([class, bin of a, bin of b]), each
    model's curve on its binned table, moved by the two binning errors
    (:func:`~reportgen.engine.operating_points.pair_curve_diffs`)."""

    def areas(tp: np.ndarray, fp: np.ndarray) -> np.ndarray:
        return np.stack([partial_auc_of_counts(tp, fp, r) for r in ranges], axis=-1)

    d = pair_curve_diffs(joint, (lut_a, lut_b), tables, areas, resamples, rng)
    return [d[:, q] for q in range(len(ranges))]


__all__ = [
    "ModelPartial",
    "PartialRange",
    "clipped_area",
    "corrected",
    "mcclish_bounds",
    "model_partial_aucs",
    "pair_partial_auc_diffs",
    "partial_auc",
    "partial_auc_of_counts",
]
