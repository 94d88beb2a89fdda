"""Calibration of a probability model from its score table: binned reliability, ECE and MCE, the
Brier score's decomposition and skill, with bootstrap intervals.

Bins (``calibration.bins`` = B, ``strategy``):

* ``uniform``: B equal-width bins of [0, 1], edges ``linspace(0, 1, B + 1)``, a score on an inner
  edge in the bin below (scikit-learn's ``calibration_curve(strategy="uniform")``: bin k holds
  ``(e_k, e_{k+1}]``, the first ``[0, e_1]``);
* ``quantile``: B bins of about equal row weight over the distinct scores in order, a distinct
  score never split (:func:`~reportgen.engine.intervals.equal_weight_bins`), so tied scores can
  leave fewer than B bins.

With ``n_k``, ``ō_k`` (observed positive share) and ``p̄_k`` (mean predicted probability) of bin
k, ``w_k = n_k / N`` and ``ō`` the overall positive share:

* ``ECE = Σ w_k·|ō_k − p̄_k|`` (L1, bins weighted by their share; Naeini et al. 2015, AAAI),
  ``MCE = max_k |ō_k − p̄_k|`` over non-empty bins;
* Murphy's decomposition (Murphy 1973, *J. Appl. Meteor.* 12:595) on the bins:
  ``reliability = Σ w_k·(p̄_k − ō_k)²``, ``resolution = Σ w_k·(ō_k − ō)²``,
  ``uncertainty = ō(1 − ō)``; ``Brier = reliability − resolution + uncertainty`` holds exactly
  when the forecasts are constant within each bin (otherwise up to the within-bin variance terms
  of Stephenson et al. 2008, *Meteorol. Appl.* 15:41);
* Brier skill score ``1 − Brier/(ō(1 − ō))`` (scikit-learn's ``d2_brier_score``), Brier the
  exact score over every row.

Each bin's observed share carries its Clopper–Pearson interval (row counts). Every other number
carries the percentile interval of the stratified bootstrap drawn on the score table's cells
(tables above :data:`~reportgen.engine.intervals.MODEL_BINS` distinct scores drawn on that many
equal-weight cells inside the calibration bins, each cell's rows at their mean score and mean
squared score). The stratified bootstrap keeps the class sizes, so the uncertainty ō(1 − ō) has
no interval. Unweighted models only: a weighted model gets the point values.
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import Literal

import numpy as np

from reportgen.engine import intervals as IV
from reportgen.engine.curve import ScoreTable
from reportgen.engine.proportions import clopper_pearson
from reportgen.engine.resample import stratified_cell_blocks
from reportgen.value import Value

Strategy = Literal["uniform", "quantile"]

#: The summary numbers, in the order of :attr:`Calibration.values`.
METRICS = ("ece", "mce", "brier", "reliability", "resolution", "uncertainty", "brier_skill")


def bin_of_scores(table: ScoreTable, bins: int, strategy: Strategy) -> np.ndarray:
    """Shape (table.n_distinct,): each distinct score's bin (0 … bins − 1)."""
    s = table.thresholds
    if strategy == "uniform":
        edges = np.linspace(0.0, 1.0, bins + 1)
        return np.searchsorted(edges[1:-1], s, side="left")
    order = np.argsort(s, kind="stable")  # ascending scores, whatever the table's direction
    b = np.empty(s.shape[0], dtype=np.int64)
    b[order] = IV.equal_weight_bins((table.pos + table.neg)[order], bins)
    return b


def summary(n: np.ndarray, pos: np.ndarray, sum_s: np.ndarray, brier: np.ndarray) -> np.ndarray:
    """The :data:`METRICS` from per-bin sums of shape (..., bins) and the Brier score (...,)."""
    total = n.sum(axis=-1)
    with np.errstate(invalid="ignore", divide="ignore"):
        obs = pos / n
        pred = sum_s / n
        w = n / total[..., None]
        gap = np.where(n > 0, np.abs(obs - pred), 0.0)
        ece = np.sum(w * gap, axis=-1)
        mce = np.max(gap, axis=-1)
        rel = np.sum(np.where(n > 0, w * (pred - obs) ** 2, 0.0), axis=-1)
        rate = pos.sum(axis=-1) / total
        res = np.sum(np.where(n > 0, w * (obs - rate[..., None]) ** 2, 0.0), axis=-1)
        unc = rate * (1.0 - rate)
        skill = np.where(unc > 0, 1.0 - brier / unc, np.nan)
    return np.stack([ece, mce, brier, rel, res, unc, skill], axis=-1)


@dataclass(frozen=True, repr=False, eq=False, slots=True)
class Calibration(Value):
    """One model's calibration (module docstring): per non-empty bin (ordered by mean predicted)
    and the :data:`METRICS` with their intervals (None: not drawn or undefined)."""

    strategy: Strategy
    bins: int
    mean_predicted: np.ndarray
    observed: np.ndarray
    counts: np.ndarray
    observed_lo: np.ndarray
    observed_hi: np.ndarray
    values: dict[str, float | None]
    ci: dict[str, list[float]]
    ci_method: str
    replicates: np.ndarray | None  # (resamples, METRICS)


def _cells(
    table: ScoreTable, which: np.ndarray, cap: int
) -> tuple[np.ndarray, np.ndarray, np.ndarray, np.ndarray, int]:
    """Cells of the table for the bootstrap, positives first: (bin, count, mean s, mean s², n_pos
    cells). Above ``cap`` distinct scores, equal-weight cells that never straddle a bin."""
    s = table.thresholds
    k = s.shape[0]
    if k > cap:
        order = np.argsort(which, kind="stable")
        cell = np.empty(k, dtype=np.int64)
        fine = IV.equal_weight_bins((table.pos + table.neg)[order], cap)
        # a new cell wherever the calibration bin changes too
        key = fine * (int(which.max()) + 1) + which[order]
        cell[order] = np.cumsum(np.r_[False, key[1:] != key[:-1]])
    else:
        cell = np.arange(k)
    nc = int(cell.max()) + 1 if k else 0
    out = []
    for w in (table.pos, table.neg):
        cnt = np.bincount(cell, weights=w, minlength=nc)
        ms = np.bincount(cell, weights=w * s, minlength=nc)
        mq = np.bincount(cell, weights=w * s * s, minlength=nc)
        b = np.zeros(nc, dtype=np.int64)
        b[cell] = which
        keep = cnt > 0
        out.append((b[keep], cnt[keep], ms[keep] / cnt[keep], mq[keep] / cnt[keep]))
    (bp, cp, sp, qp), (bn, cn, sn, qn) = out
    return (
        np.r_[bp, bn],
        np.r_[cp, cn],
        np.r_[sp, sn],
        np.r_[qp, qn],
        int(bp.shape[0]),
    )


def model_calibration(
    table: ScoreTable,
    bins: int,
    strategy: Strategy,
    brier: float | None,
    resamples: int,
    rng: np.random.Generator,
    level: float,
) -> Calibration | None:
    """One model's calibration (module docstring); None without both classes. ``brier``: the
    model's exact Brier score (its metrics')."""
    if table.total_pos <= 0 or table.total_neg <= 0 or brier is None:
        return None
    which = bin_of_scores(table, bins, strategy)
    nb = max(bins, int(which.max()) + 1)
    n = np.bincount(which, weights=table.pos + table.neg, minlength=nb)
    pos = np.bincount(which, weights=table.pos, minlength=nb)
    sum_s = np.bincount(which, weights=(table.pos + table.neg) * table.thresholds, minlength=nb)
    point = summary(n, pos, sum_s, np.asarray(brier, dtype=np.float64))
    ok = n > 0
    order = np.argsort(sum_s[ok] / n[ok], kind="stable")
    kept = np.flatnonzero(ok)[order]
    lo = np.empty(kept.shape[0])
    hi = np.empty(kept.shape[0])
    for i, k in enumerate(kept):
        if table.weighted:
            lo[i], hi[i] = np.nan, np.nan
        else:
            lo[i], hi[i] = clopper_pearson(float(pos[k]), float(n[k]), level)
    values = {m: (float(v) if np.isfinite(v) else None) for m, v in zip(METRICS, point)}
    ci: dict[str, list[float]] = {}
    reps = None
    method = "no interval"
    if resamples > 0 and not table.weighted:
        b_of, cnt, ms, mq, n_pos = _cells(table, which, IV.MODEL_BINS)
        method = IV.BINNED_BOOTSTRAP if table.n_distinct > IV.MODEL_BINS else IV.TABLE_BOOTSTRAP
        onehot = np.zeros((b_of.shape[0], nb))
        onehot[np.arange(b_of.shape[0]), b_of] = 1.0
        is_pos = np.zeros(b_of.shape[0])
        is_pos[:n_pos] = 1.0
        sq_err = np.where(is_pos == 1.0, 1.0 - 2.0 * ms + mq, mq)  # mean (y − s)² of a cell's row
        reps = np.empty((resamples, len(METRICS)))
        done = 0
        for b, (d,) in stratified_cell_blocks(cnt, n_pos, resamples, rng):
            d = d.astype(np.float64)
            rn, rp, rs = d @ onehot, (d * is_pos) @ onehot, (d * ms) @ onehot
            rb = (d @ sq_err) / d.sum(axis=1)
            reps[done : done + b] = summary(rn, rp, rs, rb)
            done += b
        for q, m in enumerate(METRICS):
            if values[m] is None or m == "uncertainty":  # fixed: the bootstrap keeps the class sizes
                continue
            bounds = (None, None) if m == "brier_skill" else (0.0, 1.0)
            iv = IV.percentile(reps[:, q], 0.0, level, *bounds)
            if iv is not None:
                ci[m] = iv
    return Calibration(
        strategy,
        bins,
        sum_s[kept] / n[kept],
        pos[kept] / n[kept],
        n[kept],
        lo,
        hi,
        values,
        ci,
        method,
        reps,
    )


def _spread(table: ScoreTable, lut: np.ndarray, bins: int, strategy: Strategy) -> tuple[np.ndarray, ...]:
    """Per (class, joint cell of the model): its rows' shares over the calibration bins, their
    mean score per bin (as a sum per row of the cell) and their mean (y − s)², each per row of
    the cell; shapes (2, cells, bins), (2, cells, bins), (2, cells). Class 0 negatives."""
    which = bin_of_scores(table, bins, strategy)
    nb = max(bins, int(which.max()) + 1)
    nc = int(lut[-1]) + 1
    s = table.thresholds
    share = np.zeros((2, nc, nb))
    score = np.zeros((2, nc, nb))
    sq = np.zeros((2, nc))
    for c, w in ((0, table.neg), (1, table.pos)):
        total = np.bincount(lut, weights=w, minlength=nc)
        per = np.where(total > 0, total, 1.0)
        code = lut * nb + which
        share[c] = (np.bincount(code, weights=w, minlength=nc * nb) / np.repeat(per, nb)).reshape(nc, nb)
        score[c] = (np.bincount(code, weights=w * s, minlength=nc * nb) / np.repeat(per, nb)).reshape(nc, nb)
        sq[c] = np.bincount(lut, weights=w * (c - s) ** 2, minlength=nc) / per
    return share, score, sq


def pair_deltas(
    joint: np.ndarray,
    luts: tuple[np.ndarray, np.ndarray],
    tables: tuple[ScoreTable, ScoreTable],
    bins: int,
    strategy: Strategy,
    resamples: int,
    rng: np.random.Generator,
) -> np.ndarray:
    """Shape (resamples, METRICS): replicates of model a's :data:`METRICS` minus model b's under
    the paired stratified bootstrap, drawn on the cells of the pair's joint table ``joint``
    ([class, cell of a, cell of b], :class:`~reportgen.engine.intervals.PairCounts`): one draw of
    rows for both models. A joint cell's rows are spread over each model's calibration bins in
    the shares its exact table gives them (:func:`_spread`), so at the observed counts every
    number is the exact one; a joint cell is one distinct score of each model below
    :data:`~reportgen.engine.intervals.JOINT_BINS` distinct scores (the exact paired bootstrap)."""
    cls, ia, ib = np.nonzero(joint)
    order = np.argsort(-cls, kind="stable")  # positives first
    cls, ia, ib = cls[order], ia[order], ib[order]
    counts = joint[cls, ia, ib].astype(np.float64)
    n_pos = int(np.count_nonzero(cls == 1))
    mats = []
    for t, lut, idx in ((tables[0], luts[0], ia), (tables[1], luts[1], ib)):
        share, score, sq = _spread(t, lut, bins, strategy)
        n_of = share[cls, idx]
        mats.append((n_of, n_of * cls[:, None], score[cls, idx], sq[cls, idx]))
    out = np.empty((resamples, len(METRICS)))
    done = 0
    for b, (d,) in stratified_cell_blocks(counts, n_pos, resamples, rng):
        d = d.astype(np.float64)
        total = d.sum(axis=1)
        a_, b_ = (summary(d @ n, d @ p, d @ sc, (d @ e) / total) for n, p, sc, e in mats)
        out[done : done + b] = a_ - b_
        done += b
    return out


def paired_deltas(
    mine: Calibration, base: Calibration, diffs: np.ndarray, level: float
) -> tuple[dict[str, float | None], dict[str, list[float]]]:
    """A challenger's calibration numbers minus the baseline's, each with the percentile interval
    of its paired replicates (:func:`pair_deltas`); none for the uncertainty (the same rows)."""
    from reportgen.engine.stats import percentile_interval  # noqa: PLC0415

    delta: dict[str, float | None] = {}
    ci: dict[str, list[float]] = {}
    for q, m in enumerate(METRICS):
        a, b = mine.values[m], base.values[m]
        delta[m] = None if a is None or b is None else a - b
        if delta[m] is None or m == "uncertainty":
            continue
        if (iv := percentile_interval(diffs[:, q], level)) is not None:
            ci[m] = [float(iv[0]), float(iv[1])]
    return delta, ci


def deltas(
    mine: Calibration, base: Calibration, level: float
) -> tuple[dict[str, float | None], dict[str, list[float]]]:
    """A challenger's calibration numbers minus the baseline's, each with the normal interval of
    the two models' own bootstrap replicates, their variances added (unpaired models: drawn apart)."""
    from reportgen.engine.stats import normal_test  # noqa: PLC0415

    delta: dict[str, float | None] = {}
    ci: dict[str, list[float]] = {}
    for q, m in enumerate(METRICS):
        a, b = mine.values[m], base.values[m]
        delta[m] = None if a is None or b is None else a - b
        if delta[m] is None or mine.replicates is None or base.replicates is None:
            continue
        ra, rb = mine.replicates[:, q], base.replicates[:, q]
        ra, rb = ra[np.isfinite(ra)], rb[np.isfinite(rb)]
        if ra.size < 2 or rb.size < 2:
            continue
        var = float(np.var(ra, ddof=1) + np.var(rb, ddof=1))
        _, _, lo, hi = normal_test(float(delta[m]), var, level)  # type: ignore[arg-type]
        ci[m] = [lo, hi]
    return delta, ci


__all__ = [
    "METRICS",
    "Calibration",
    "bin_of_scores",
    "deltas",
    "model_calibration",
    "pair_deltas",
    "paired_deltas",
    "summary",
]
