"""A block of bootstrap resamples of distinct multiclass rows → every probability metric at once.

The paired stratified bootstrap of a multiclass comparison draws, per resample, how many times
each distinct row is taken (:func:`reportgen.engine.distinct_rows.stratified_multinomial_blocks`).
Each resample is then a weighted sample of the distinct rows, with weight ``W[r, i]`` (drawn
count times the row's weight) for resample r and distinct row i. The ranking metrics of a
weighted sample are Mann–Whitney sums, so for a block of B resamples they are array arithmetic
on (rows, B) matrices, the ranks found once (not per resample):

* per score column c: each row's rank among class c's rows by score, ``lo`` (strictly below) and
  ``hi`` (at most), found once by ``searchsorted``; per block, ``cum`` = the cumulative drawn
  weight of class c's rows in score order (one ``cumsum``), so a row of class i ≠ c has
  ``below = W(class c, score < s) + ½ W(class c, score = s) = ½ (cum[lo] + cum[hi])`` (one
  gather), and ``S[c, i] = P_c W_i − Σ_{rows of class i} W·below`` (``P_c``, ``W_i``: the classes'
  drawn weights). These are the pair sums of :func:`reportgen.engine.class_tables.pair_sums`
  (Mann–Whitney, ties one half, seed 001 §3): the one-vs-rest AUC of class c is
  ``Σ_{i≠c} S[c, i] / (P_c (m − P_c))`` and Hand & Till's ``A(c|i) = S[c, i] / (P_c P_i)``;
* the micro AUC is the same sum over the n·k pooled (row, class) cells, ranked against the
  positive cells (r, y_r);
* the log-loss is ``W @ (−log clip(p[i, y_i])) / Σ W``.

So each resample's values equal :func:`reportgen.engine.multiclass.compute_multiclass` on the
rows with weights ``W[r]`` (the reference test checks it to 1e-12), at O(rows · k) numpy work per
resample (one gather of a row per cell) and no Python loop over resamples or rows.
"""

from __future__ import annotations

from dataclasses import dataclass

import numpy as np

from reportgen.engine.class_tables import LOG_LOSS_EPS

#: Keys of the metrics :func:`probability_draws` returns (the multiclass catalog's probability metrics).
PROBABILITY_KEYS = ("log_loss", "roc_auc_ovr_micro", "roc_auc_ovr_macro", "roc_auc_ovr_weighted", "roc_auc_ovo_macro")


@dataclass(frozen=True, slots=True, eq=False)
class _Ranks:
    """One ranking of negatives against positives: the positives' rows in ascending score order
    (``pos_rows``), and per (row, column) how many positives score strictly below (``lo``) and at
    most (``hi``) the row's score; 0 and 0 where the cell is itself positive (so it adds nothing).
    ``ties``: whether some negative shares a score with a positive (else ``lo`` = ``hi``)."""

    pos_rows: np.ndarray
    lo: np.ndarray
    hi: np.ndarray
    ties: bool


def _ranks(pos_rows: np.ndarray, pos_scores: np.ndarray, scores: np.ndarray, negative: np.ndarray) -> _Ranks:
    order = np.argsort(pos_scores, kind="stable")
    v = pos_scores[order]
    lo = np.where(negative, np.searchsorted(v, scores, side="left"), 0)
    hi = np.where(negative, np.searchsorted(v, scores, side="right"), 0)
    return _Ranks(pos_rows[order], lo, hi, bool((lo != hi).any()))


def _cumulative(Wt: np.ndarray, pos_rows: np.ndarray) -> np.ndarray:
    """(positives + 1, B): the positives' cumulative drawn weight in score order, row 0 zero."""
    cum = np.zeros((pos_rows.shape[0] + 1, Wt.shape[1]))
    np.cumsum(Wt[pos_rows], axis=0, out=cum[1:])
    return cum


def _below(cum: np.ndarray, r: _Ranks) -> np.ndarray:
    """(cells, B): per negative cell, positive weight below its score plus half the tied positive
    weight, ``½ (cum[lo] + cum[hi])`` (:func:`_cumulative`)."""
    if not r.ties:
        return cum[r.hi]
    out = cum[r.hi]
    out += cum[r.lo]
    out *= 0.5
    return out


@dataclass(frozen=True, slots=True, eq=False)
class ModelRows:
    """One model's distinct rows prepared for :func:`probability_draws`: per score column the
    ranks of every row among the column's positives, and the same for the pooled cells."""

    y: np.ndarray
    k: int
    runs: np.ndarray
    columns: tuple[_Ranks, ...]
    pooled: tuple[_Ranks, ...]
    loss: np.ndarray | None

    @classmethod
    def of(cls, y: np.ndarray, proba: np.ndarray) -> ModelRows:
        """``y`` (d,) true class indices, ``proba`` (d, k) scores of the distinct rows."""
        k = proba.shape[1]
        d = y.shape[0]
        rows = np.arange(d)
        in_unit = d == 0 or (float(proba.min()) >= 0.0 and float(proba.max()) <= 1.0)
        true_score = proba[rows, y]
        loss = -np.log(np.clip(true_score, LOG_LOSS_EPS, 1.0 - LOG_LOSS_EPS)) if in_unit else None
        columns = []
        for c in range(k):
            pos = np.flatnonzero(y == c)
            columns.append(_ranks(pos, proba[pos, c], proba[:, c], y != c))
        # pooled cells: the positive cell of row r is (r, y_r); column c's cells negative where c ≠ y_r
        first = _ranks(rows, true_score, proba[:, 0], y != 0)
        pooled = [first] + [_ranks(rows, true_score, proba[:, c], y != c) for c in range(1, k)]
        runs = np.flatnonzero(np.concatenate([[True], y[1:] != y[:-1]])) if d else np.zeros(0, np.int64)
        return cls(y, k, runs, tuple(columns), tuple(pooled), loss)

    def by_class(self, X: np.ndarray) -> np.ndarray:
        """(k, B): the rows of ``X`` (d, B) summed per true class, over the runs of equal classes
        (distinct rows come grouped by class: k runs); not a matrix product, whose threads lose
        more than they win on a shared machine."""
        out = np.zeros((self.k, X.shape[1]))
        if self.runs.shape[0]:
            np.add.at(out, self.y[self.runs], np.add.reduceat(X, self.runs, axis=0))
        return out


def probability_draws(rows: ModelRows, W: np.ndarray) -> dict[str, np.ndarray]:
    """Each probability metric of the model on each resample, shape (B,) each (NaN where undefined),
    the resamples given as row weights ``W`` (B, d); the definitions of
    :func:`reportgen.engine.multiclass.multiclass_from_counts` (AUCs clipped to [0, 1], classes or
    pairs without both kinds of rows left out of the means).

    With ``above(r) = P_c − below(r)`` (``below``: :func:`_below`), the pair sums are
    ``S[c, i] = P_c W_i − Σ_{rows r of class i} W_r below_c(r)``: per column one cumulative sum
    over its positives and one gather of every row's ``below``, then one product with the class
    indicator; the micro AUC the same over the pooled cells (k gathers)."""
    k = rows.k
    b = W.shape[0]
    Wt = np.ascontiguousarray(W.T)  # (d, B): a gather takes whole rows
    cls_w = rows.by_class(Wt).T  # (B, k): each class's drawn weight
    m = cls_w.sum(axis=1)
    S = np.empty((b, k, k))
    for c, r in enumerate(rows.columns):
        below = _below(_cumulative(Wt, r.pos_rows), r)
        below *= Wt
        S[:, c, :] = cls_w[:, c, None] * cls_w - rows.by_class(below).T
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
        # micro: negative cells (r, c ≠ y_r) of weight W_r against the positive cells (r, y_r)
        acc = np.zeros_like(Wt)
        cum = _cumulative(Wt, rows.pooled[0].pos_rows)  # the positive cells, shared by every column
        for r in rows.pooled:
            acc += _below(cum, r)
        Pm, Nm = m, (k - 1) * m  # every row has one positive cell
        num = Pm * Nm - np.einsum("rb,rb->b", Wt, acc)
        out["roc_auc_ovr_micro"] = np.where((Pm > 0) & (Nm > 0), np.clip(num / (Pm * Nm), 0.0, 1.0), np.nan)
        out["log_loss"] = np.full(b, np.nan) if rows.loss is None else (rows.loss @ Wt) / m
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


__all__ = ["ModelRows", "PROBABILITY_KEYS", "confusion_draws", "probability_draws"]
