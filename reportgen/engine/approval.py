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
stratified bootstrap of the rows at the fixed cuts (one draw for both models: paired), each
resample's weights summed per (swap cell × class) by one matrix product, O(rows) per resample.

Pure numpy; results are :class:`~reportgen.results.ApprovalAtRate`.
"""

from __future__ import annotations

from collections.abc import Sequence

import numpy as np

from reportgen.engine import stats
from reportgen.results import ApprovalAtRate, ApprovalSide, SwapCell

#: ``ApprovalAtRate.ci_method``.
APPROVAL_BOOTSTRAP = "paired stratified bootstrap of rows at fixed cuts"

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


def _side(name: str, approved: np.ndarray, y: np.ndarray, w: np.ndarray, threshold: float | None) -> ApprovalSide:
    wa = float(w[approved].sum())
    bads = float(w[approved & y].sum())
    return ApprovalSide(
        model=name, threshold=threshold, approval_rate=wa / float(w.sum()),
        approved_rows=int(np.count_nonzero(approved)), bads_rows=int(np.count_nonzero(approved & y)),
        approved_weight=wa, bads_weight=bads, bad_rate=None if wa == 0 else bads / wa,
    )


def _cell(mask: np.ndarray, y: np.ndarray, w: np.ndarray) -> SwapCell:
    wt = float(w[mask].sum())
    bads = float(w[mask & y].sum())
    return SwapCell(rows=int(np.count_nonzero(mask)), bads_rows=int(np.count_nonzero(mask & y)), weight=wt,
                    bads_weight=bads, bad_rate=None if wt == 0 else bads / wt)


def _bad_rate_delta(cells: np.ndarray) -> np.ndarray:
    """BR_model − BR_baseline from weights per (…, swap cell, class), class 1 = bad; NaN when a
    side approves nothing."""
    model_app = cells[..., SWAP_IN, :] + cells[..., STAY_APPROVED, :]
    base_app = cells[..., SWAP_OUT, :] + cells[..., STAY_APPROVED, :]
    with np.errstate(invalid="ignore", divide="ignore"):
        return model_app[..., 1] / model_app.sum(-1) - base_app[..., 1] / base_app.sum(-1)


def bootstrap_delta(y: np.ndarray, w: np.ndarray, cell: np.ndarray, resamples: int,
                    rng: np.random.Generator) -> np.ndarray:
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
    source: str,
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
        sides.append(_side(name, a, y, w, None if cut >= thr.shape[0] else float(thr[cut])))
    out = []
    ab = approved[baseline]
    for j, name in enumerate(names):
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
        out.append(ApprovalAtRate(
            target_rate=rate, source=source, model=sides[j], baseline=sides[baseline], bad_rate_delta=delta,
            ci=ci, ci_level=level, ci_method=APPROVAL_BOOTSTRAP if ci is not None else None,
            swap_in=_cell(masks[0], y, w), swap_out=_cell(masks[1], y, w),
            stay_approved=_cell(masks[2], y, w), stay_declined=_cell(masks[3], y, w),
        ))
    return out


__all__ = ["APPROVAL_BOOTSTRAP", "approved_share_by_cut", "bootstrap_delta", "compare_at_rate", "cut_for_rate"]
