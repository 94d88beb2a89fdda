"""A block of bootstrap resamples of distinct multiclass rows → every probability metric at once.

The paired stratified bootstrap of a multiclass comparison draws, per resample, how many times
each distinct row is taken (:func:`reportgen.engine.distinct_rows.stratified_multinomial_blocks`).
Each resample is then a weighted sample of the distinct rows, with weight ``W[r, i]`` (drawn
count times the row's weight) for resample r and distinct row i. The ranking metrics of a
weighted sample are Mann–Whitney sums over the rows in score order, so for a block of B
resamples they are array arithmetic on (B, rows) matrices, with the rows sorted once per score
column (not per resample):

* per score column c, rows ascending by ``p[:, c]``, ``P_c`` = class c's drawn weight: each row's
  ``above = W(class c, score > s) + ½ W(class c, score = s) = P_c − cumsum(W·[y = c]) + ½ W·[y = c]``
  (tie groups summed first when scores repeat); then ``S[c, i] = Σ_{rows of class i} W·above``,
  one product with the class indicator. These are the pair sums of
  :func:`reportgen.engine.class_tables.pair_sums`: the one-vs-rest AUC of class c is
  ``Σ_{i≠c} S[c, i] / (P_c (m − P_c))`` and Hand & Till's ``A(c|i) = S[c, i] / (P_c P_i)``;
* the micro AUC is the same sum over the n·k pooled (row, class) cells, sorted once;
* the log-loss is ``W @ (−log clip(p[i, y_i])) / Σ W``.

So each resample's values equal :func:`reportgen.engine.multiclass.compute_multiclass` on the
rows with weights ``W[r]`` (the reference test checks it to 1e-12), at O(rows · k) numpy work per
resample and no Python loop over resamples or rows.
"""

from __future__ import annotations

from dataclasses import dataclass

import numpy as np

from reportgen.engine.class_tables import LOG_LOSS_EPS

#: Keys of the metrics :func:`probability_draws` returns (the multiclass catalog's probability metrics).
PROBABILITY_KEYS = ("log_loss", "roc_auc_ovr_micro", "roc_auc_ovr_macro", "roc_auc_ovr_weighted", "roc_auc_ovo_macro")

#: Pooled cells × resamples handled at once in the micro AUC (a few MB per array; the k-fold
#: larger arrays of a whole block spill out of the caches and cost several times more per cell).
POOLED_CELLS = 1 << 20


@dataclass(frozen=True, slots=True, eq=False)
class _Sorted:
    """Cells ascending by score (``order``), with the tie groups when scores repeat (``starts``:
    first cell of each group, ``group``: each sorted cell's group; None when all distinct)."""

    order: np.ndarray
    starts: np.ndarray | None
    group: np.ndarray | None


def _sorted(scores: np.ndarray) -> _Sorted:
    order = np.argsort(scores, kind="stable")
    s = scores[order]
    new = np.empty(s.shape[0], dtype=bool)
    if s.shape[0]:
        new[0] = True
        np.not_equal(s[1:], s[:-1], out=new[1:])
    if new.all():
        return _Sorted(order, None, None)
    return _Sorted(order, np.flatnonzero(new), np.cumsum(new) - 1)


def _above(pos: np.ndarray, s: _Sorted, P: np.ndarray) -> np.ndarray:
    """(B, cells): positive weight above each sorted cell's score plus half the tied positive weight."""
    if s.starts is None:
        out = np.cumsum(pos, axis=1)
        np.subtract(P[:, None], out, out=out)
        out += 0.5 * pos
        return out
    g = np.add.reduceat(pos, s.starts, axis=1)
    above = P[:, None] - np.cumsum(g, axis=1) + 0.5 * g
    return above[:, s.group]


@dataclass(frozen=True, slots=True, eq=False)
class ModelRows:
    """One model's distinct rows prepared for :func:`probability_draws`: the rows sorted once per
    score column and once over the pooled cells."""

    y: np.ndarray
    k: int
    columns: tuple[_Sorted, ...]
    pooled: _Sorted
    loss: np.ndarray | None

    @classmethod
    def of(cls, y: np.ndarray, proba: np.ndarray) -> ModelRows:
        """``y`` (d,) true class indices, ``proba`` (d, k) scores of the distinct rows."""
        k = proba.shape[1]
        d = y.shape[0]
        in_unit = d == 0 or (float(proba.min()) >= 0.0 and float(proba.max()) <= 1.0)
        loss = -np.log(np.clip(proba[np.arange(d), y], LOG_LOSS_EPS, 1.0 - LOG_LOSS_EPS)) if in_unit else None
        return cls(y, k, tuple(_sorted(proba[:, c]) for c in range(k)), _sorted(proba.ravel()), loss)


def probability_draws(rows: ModelRows, W: np.ndarray) -> dict[str, np.ndarray]:
    """Each probability metric of the model on each resample, shape (B,) each (NaN where undefined),
    the resamples given as row weights ``W`` (B, d); the definitions of
    :func:`reportgen.engine.multiclass.multiclass_from_counts` (AUCs clipped to [0, 1], classes or
    pairs without both kinds of rows left out of the means)."""
    y, k = rows.y, rows.k
    b = W.shape[0]
    onehot = (y[:, None] == np.arange(k)).astype(np.float64)
    cls_w = W @ onehot  # (B, k): each class's drawn weight
    m = cls_w.sum(axis=1)
    S = np.empty((b, k, k))
    for c, s in enumerate(rows.columns):
        Ws = W[:, s.order]
        pos = Ws * (y[s.order] == c)
        Ws *= _above(pos, s, cls_w[:, c])
        S[:, c, :] = Ws @ onehot[s.order]
    out: dict[str, np.ndarray] = {}
    P, N = cls_w, m[:, None] - cls_w
    both = (P > 0) & (N > 0)
    diag = S[:, np.arange(k), np.arange(k)]
    with np.errstate(invalid="ignore", divide="ignore"):
        auc = np.where(both, np.clip((S.sum(axis=2) - diag) / (P * N), 0.0, 1.0), np.nan)
        out["roc_auc_ovr_macro"] = np.nanmean(np.where(both, auc, np.nan), axis=1) if k else np.full(b, np.nan)
        sup = np.where(both, P, 0.0)
        out["roc_auc_ovr_weighted"] = np.nansum(auc * sup, axis=1) / sup.sum(axis=1)
        den = P[:, :, None] * P[:, None, :]  # (B, c, i): P_c · P_i
        A = np.clip(S / den, 0.0, 1.0)
        iu, ju = np.triu_indices(k, 1)
        pair = np.where(den[:, iu, ju] > 0, 0.5 * (A[:, iu, ju] + A[:, ju, iu]), np.nan)
        out["roc_auc_ovo_macro"] = np.nanmean(pair, axis=1)
        # micro: the n·k cells (row i, class c) with weight W[:, i], positive where c = y_i
        s = rows.pooled
        cell_row = s.order // k
        is_pos = (s.order % k) == y[cell_row]
        Pm, Nm = m, (k - 1) * m  # every row has one positive cell
        neg_sum = np.empty(b)
        step = max(1, POOLED_CELLS // max(cell_row.shape[0], 1))  # k times the rows: a few resamples at a time
        for lo in range(0, b, step):
            Wc = W[lo : lo + step, cell_row]
            pos = Wc * is_pos
            Wc -= pos
            neg_sum[lo : lo + step] = np.einsum("bu,bu->b", Wc, _above(pos, s, Pm[lo : lo + step]))
        out["roc_auc_ovr_micro"] = np.where((Pm > 0) & (Nm > 0), np.clip(neg_sum / (Pm * Nm), 0.0, 1.0), np.nan)
        out["log_loss"] = np.full(b, np.nan) if rows.loss is None else (W @ rows.loss) / m
    return out


def confusion_draws(y: np.ndarray, pred: np.ndarray, k: int, W: np.ndarray) -> np.ndarray:
    """(B, k, k): each resample's confusion matrix (rows = true class) from the row weights ``W``."""
    code = y * k + pred
    order = np.argsort(code, kind="stable")
    sc = code[order]
    starts = np.flatnonzero(np.concatenate([[True], sc[1:] != sc[:-1]])) if sc.shape[0] else np.zeros(0, np.int64)
    out = np.zeros((W.shape[0], k * k))
    if starts.shape[0]:
        out[:, sc[starts]] = np.add.reduceat(W[:, order], starts, axis=1)
    return out.reshape(W.shape[0], k, k)


__all__ = ["ModelRows", "PROBABILITY_KEYS", "confusion_draws", "probability_draws"]
