"""Operating points from score tables: TPR at fixed false positive rates, precision at fixed
recalls, and bootstrap intervals of every optimal threshold and its values.

**TPR at FPR x** is read off the empirical ROC curve, the polyline through (FPR, TPR) at every
distinct score (ties between scores make one diagonal segment; :meth:`ScoreTable.cumulative`):
where points lie exactly at FPR = x, the highest TPR among them (the top of the vertical run);
otherwise the linear interpolation between the last point below x and the first above it. This
is pROC's ``coords(roc, x = 1 − x, input = "specificity", ret = "sensitivity")`` (``R/coords.R``
of github.com/xrobin/pROC: an exact match takes the point of highest sensitivity, otherwise
sensitivity and specificity are interpolated linearly between the neighbours). An interpolated
point is reached by randomising between the two neighbouring thresholds, so it has no single
threshold (pROC returns NA).

**Precision at recall r** is the same reading with the axes swapped: the FPR on the ROC polyline
at TPR = r (the lowest FPR where points lie exactly at TPR = r, otherwise linear), then
``precision = r·P / (r·P + FPR·N)``, pROC's ``coords(..., input = "recall", ret = "precision")``
(it interpolates sensitivity and specificity, never precision: linear interpolation in ROC space
is the achievable one, Davis & Goadrich 2006, ICML, §4).

**Intervals** (pROC's ``ci.coords``, ``R/ci.coords.R`` and ``bootstrap.R``): the stratified
bootstrap of the score table's cells (above :data:`~reportgen.engine.intervals.MODEL_BINS`
distinct scores on that many equal-weight bins, the values moved by the binning error), the
percentile interval (R's quantile type 7, as pROC). For an optimal threshold every resample finds
its own optimum (pROC's ``x = "best"``): the interval of the threshold is the spread of the
resamples' optimal thresholds, beside those of the criterion's value and of TPR and FPR there.

**Paired differences** (challenger − baseline) at each configured point are drawn on the pair's
joint score table (every engine's paired pass, :class:`~reportgen.engine.intervals.PairCounts`),
one draw of rows for both models, each model's curve on its binned table moved by its binning
error; the normal interval and two-sided p from the bootstrap standard error, as the partial
AUC's test (:mod:`reportgen.engine.partial_auc`). Unpaired models add the two models' bootstrap
variances. The differences are descriptive: their p-values are not adjusted and give no verdict.

Everything is a function of score tables and joint counts (mergeable), so the memory, stream and
dask engines give the same numbers.
"""

from __future__ import annotations

from collections.abc import Callable
from dataclasses import dataclass
from typing import Literal

import numpy as np

from reportgen.engine import binary as B
from reportgen.engine import intervals as IV
from reportgen.engine.curve import ScoreTable, reweighted
from reportgen.engine.resample import stratified_cell_blocks
from reportgen.results import Optimum
from reportgen.value import Value

Kind = Literal["tpr_at_fpr", "precision_at_recall"]

#: ``OperatingPoints.ci_method`` (per model) and ``OperatingPointDelta.ci_method``.
PAIRED = "paired bootstrap of the joint score table (normal, bootstrap SE)"
UNPAIRED = "bootstrap (normal, the two models' variances added)"


@dataclass(frozen=True, repr=False, eq=False, slots=True)
class Points(Value):
    """The configured points: FPRs for TPR, recalls for precision, and whether each optimal
    threshold gets its intervals."""

    fpr: tuple[float, ...] = ()
    recall: tuple[float, ...] = ()
    optima: bool = True

    def entries(self) -> list[tuple[Kind, float]]:
        return [("tpr_at_fpr", x) for x in self.fpr] + [("precision_at_recall", r) for r in self.recall]


def tpr_at_fpr(tp: np.ndarray, fp: np.ndarray, x: float) -> np.ndarray:
    """TPR at FPR ``x`` (module docstring) from cumulative counts of shape (..., k + 1) (from the
    empty cut to every row positive); NaN without both classes."""
    with np.errstate(invalid="ignore", divide="ignore"):
        tpr, fpr = tp / tp[..., -1:], fp / fp[..., -1:]
    i = np.clip(np.sum(fpr <= x, axis=-1) - 1, 0, tpr.shape[-1] - 1)  # last point at or left of x
    j = np.minimum(i + 1, tpr.shape[-1] - 1)
    f0, f1 = np.take_along_axis(fpr, i[..., None], -1)[..., 0], np.take_along_axis(fpr, j[..., None], -1)[..., 0]
    t0, t1 = np.take_along_axis(tpr, i[..., None], -1)[..., 0], np.take_along_axis(tpr, j[..., None], -1)[..., 0]
    with np.errstate(invalid="ignore", divide="ignore"):
        inner = t0 + (t1 - t0) * (x - f0) / (f1 - f0)
    return np.where(f0 == x, t0, inner)


def fpr_at_tpr(tp: np.ndarray, fp: np.ndarray, r: float) -> np.ndarray:
    """FPR at TPR ``r`` on the ROC polyline: the lowest FPR where points lie exactly at TPR = r,
    otherwise linear between the neighbours; shapes as :func:`tpr_at_fpr`."""
    with np.errstate(invalid="ignore", divide="ignore"):
        tpr, fpr = tp / tp[..., -1:], fp / fp[..., -1:]
    j = np.clip(np.sum(tpr < r, axis=-1), 1, tpr.shape[-1] - 1)  # first point at or above r
    i = j - 1
    f0, f1 = np.take_along_axis(fpr, i[..., None], -1)[..., 0], np.take_along_axis(fpr, j[..., None], -1)[..., 0]
    t0, t1 = np.take_along_axis(tpr, i[..., None], -1)[..., 0], np.take_along_axis(tpr, j[..., None], -1)[..., 0]
    with np.errstate(invalid="ignore", divide="ignore"):
        inner = f0 + (f1 - f0) * (r - t0) / (t1 - t0)
    return np.where(t1 == r, f1, inner)


def precision_at_recall(tp: np.ndarray, fp: np.ndarray, r: float) -> np.ndarray:
    """Precision at recall ``r`` (module docstring): ``r·P / (r·P + FPR(r)·N)``."""
    P, N = tp[..., -1], fp[..., -1]
    with np.errstate(invalid="ignore", divide="ignore"):
        return r * P / (r * P + fpr_at_tpr(tp, fp, r) * N)


def point_values(tp: np.ndarray, fp: np.ndarray, points: Points) -> np.ndarray:
    """Shape (..., len(points.entries())): every configured point's value from cumulative counts."""
    fns = {"tpr_at_fpr": tpr_at_fpr, "precision_at_recall": precision_at_recall}
    return np.stack([fns[k](tp, fp, x) for k, x in points.entries()], axis=-1)


#: The values drawn at each optimum, in order.
OPTIMUM_VALUES = ("threshold", "value", "tpr", "fpr")


def _optimum_row(o: Optimum, P: float, N: float) -> list[float]:
    nan = float("nan")
    thr = nan if o.threshold is None else o.threshold
    val = nan if o.value is None else o.value
    return [thr, val, o.tp / P if P > 0 else nan, o.fp / N if N > 0 else nan]


def _finite(v: float) -> float | None:
    return float(v) if np.isfinite(v) else None


@dataclass(frozen=True, repr=False, eq=False, slots=True)
class ModelPoints(Value):
    """One model's values at the configured points and their percentile intervals, the replicates
    (for the unpaired differences), and per optimum criterion the intervals of
    :data:`OPTIMUM_VALUES` (None: undefined or not drawn)."""

    values: list[float | None]
    ci: list[list[float] | None]
    replicates: np.ndarray | None  # (resamples, points), moved by the binning error
    optima: dict[str, dict[str, list[float] | None]]
    method: str


def model_points(
    table: ScoreTable,
    threshold: float,
    points: Points,
    beta: float,
    costs: B.Costs,
    constraints: tuple[B.Constraint, ...],
    resamples: int,
    rng: np.random.Generator,
    level: float,
) -> ModelPoints | None:
    """One model's operating points (module docstring); None without both classes. No intervals
    when ``resamples`` is 0 or the table is weighted."""
    if table.total_pos <= 0 or table.total_neg <= 0:
        return None
    tp, fp = table.cumulative_view()
    keys = points.entries()
    exact = point_values(tp, fp, points) if keys else np.zeros(0)
    values = [_finite(v) for v in exact]
    ci: list[list[float] | None] = [None] * len(keys)
    optima: dict[str, dict[str, list[float] | None]] = {}
    if resamples <= 0 or table.weighted:
        return ModelPoints(values, ci, None, optima, "no interval")
    lut = IV.coarse_lut(table, threshold, IV.MODEL_BINS)
    coarse = IV.coarsen(table, lut)
    binned = coarse is not table
    pos_cells, neg_cells = np.flatnonzero(coarse.pos > 0), np.flatnonzero(coarse.neg > 0)
    counts = np.concatenate([coarse.pos[pos_cells], coarse.neg[neg_cells]])
    k = pos_cells.shape[0]
    reps = np.empty((resamples, len(keys)))
    names = [o.criterion for o in B.optimal_thresholds(coarse, beta, costs, constraints)] if points.optima else []
    opt = np.full((resamples, len(names), len(OPTIMUM_VALUES)), np.nan)
    P, N = coarse.total_pos, coarse.total_neg
    done = 0
    for b, (draws,) in stratified_cell_blocks(counts, k, resamples, rng):
        pos = np.zeros((b, coarse.n_distinct))
        neg = np.zeros((b, coarse.n_distinct))
        pos[:, pos_cells], neg[:, neg_cells] = draws[:, :k], draws[:, k:]
        if keys:
            zero = np.zeros((b, 1))
            reps[done : done + b] = point_values(
                np.concatenate([zero, np.cumsum(pos, axis=1)], axis=1),
                np.concatenate([zero, np.cumsum(neg, axis=1)], axis=1),
                points,
            )
        for r in range(b) if names else ():
            found = B.optimal_thresholds(reweighted(coarse, pos[r], neg[r]), beta, costs, constraints)
            opt[done + r] = [_optimum_row(o, P, N) for o in found]
        done += b
    if binned and keys:
        c_tp, c_fp = coarse.cumulative_view()
        reps += exact - point_values(c_tp, c_fp, points)
    ci = [IV.percentile(reps[:, q], 0.0, level, 0.0, 1.0) for q in range(len(keys))]
    if names:
        shift = np.zeros((len(names), len(OPTIMUM_VALUES)))
        if binned:  # the values (not the threshold) moved by the binning error
            here = {
                o.criterion: _optimum_row(o, table.total_pos, table.total_neg)
                for o in B.optimal_thresholds(table, beta, costs, constraints)
            }
            there = {o.criterion: _optimum_row(o, P, N) for o in B.optimal_thresholds(coarse, beta, costs, constraints)}
            for q, n in enumerate(names):
                d = np.subtract(here[n], there[n])
                shift[q, 1:] = np.where(np.isfinite(d[1:]), d[1:], 0.0)
        for q, n in enumerate(names):
            optima[n] = {v: IV.percentile(opt[:, q, c] + shift[q, c], 0.0, level) for c, v in enumerate(OPTIMUM_VALUES)}
    method = IV.BINNED_BOOTSTRAP if binned else IV.TABLE_BOOTSTRAP
    return ModelPoints(values, ci, reps if keys else None, optima, method)


def pair_curve_diffs(
    joint: np.ndarray,
    luts: tuple[np.ndarray, np.ndarray],
    tables: tuple[ScoreTable, ScoreTable],
    fn: Callable[[np.ndarray, np.ndarray], np.ndarray],
    resamples: int,
    rng: np.random.Generator,
) -> np.ndarray:
    """Replicates of ``fn(a) − fn(b)``, shape (resamples, q), under the paired stratified
    bootstrap drawn on the cells of the pair's joint table ``joint`` ([class, bin of a, bin of
    b]); ``fn(tp, fp)`` maps cumulative counts (..., k + 1) to (..., q). Each model's curve is its
    binned table's, moved by its binning error (``fn`` of the exact table minus the binned one)."""
    cls, ia, ib = np.nonzero(joint)
    order = np.argsort(-cls, kind="stable")  # positives first
    cls, ia, ib = cls[order], ia[order], ib[order]
    counts = joint[cls, ia, ib].astype(np.float64)
    n_pos = int(np.count_nonzero(cls == 1))
    shift = 0.0
    for sign, t, lut in ((1.0, tables[0], luts[0]), (-1.0, tables[1], luts[1])):
        coarse = IV.coarsen(t, lut)
        shift = shift + sign * (fn(*t.cumulative_view()) - fn(*coarse.cumulative_view()))
    out: list[np.ndarray] = []
    for b, (draws,) in stratified_cell_blocks(counts, n_pos, resamples, rng):
        vals = []
        for g, size in ((ia, joint.shape[1]), (ib, joint.shape[2])):
            tp = np.zeros((b, size + 1))
            fp = np.zeros((b, size + 1))
            np.add.at(tp.T, 1 + g[:n_pos], draws[:, :n_pos].T)
            np.add.at(fp.T, 1 + g[n_pos:], draws[:, n_pos:].T)
            vals.append(fn(np.cumsum(tp, axis=1), np.cumsum(fp, axis=1)))
        out.append(vals[0] - vals[1])
    return np.concatenate(out, axis=0) + shift


__all__ = [
    "OPTIMUM_VALUES",
    "PAIRED",
    "UNPAIRED",
    "Kind",
    "ModelPoints",
    "Points",
    "fpr_at_tpr",
    "model_points",
    "pair_curve_diffs",
    "point_values",
    "precision_at_recall",
    "tpr_at_fpr",
]
