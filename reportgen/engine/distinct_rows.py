"""The rows of a multiclass comparison compressed to their distinct rows with counts.

Why: the paired stratified row bootstrap of the averaged AUCs (macro, weighted, micro, one-vs-one)
and of every multiclass difference re-evaluates each resample on the rows, because those
statistics join the score columns of the same rows — class tables do not carry that. But rows
that agree in every field (true class, weight, each model's predicted class or class scores) are
interchangeable: drawing ``n_c`` rows with replacement among the ``n_c`` rows of class ``c`` is,
in distribution, a multinomial draw over the class's *distinct* rows with probabilities
``count_i / n_c``. So the bootstrap needs only the distinct rows and their counts — the rows
compressed, a mergeable statistic (sorted union, counts added) that a streamed or Dask pass
builds batch by batch as well as the in-memory engine builds it at once.

One meaning in every engine: each engine puts the rows into the same matrix
(:func:`row_matrix`) and reduces it with :func:`distinct` (one sort of the rows as byte
keys), so the distinct rows come out in one order whoever counted them, and one seed gives
identical draws (:func:`stratified_multinomial_blocks`) and identical intervals.

Layout of a row: the true class index, the weight (1 without weights), then per model its
predicted class index (when it has a prediction column) and its k class scores (when it has
them; without a prediction column its prediction is their argmax).
"""

from __future__ import annotations

from collections.abc import Iterator, Sequence
from dataclasses import dataclass

import numpy as np

from reportgen.value import Shown

#: Resamples × distinct rows drawn at once (int64 counts: 32 MB), so memory stays bounded.
BLOCK_CELLS = 4_000_000
#: Strata of at most this many rows per distinct row are drawn row by row (:func:`_picked_rows`).
DRAW_ROWS_FACTOR = 4


@dataclass(frozen=True, slots=True, eq=False, repr=False)
class DistinctRows(Shown):
    """Distinct rows (``matrix``, in the order of their byte keys) and how many rows
    each stands for (``counts``, whole numbers as float64)."""

    matrix: np.ndarray
    counts: np.ndarray
    #: the class scores were projected out (:func:`without_scores`): each model's columns are its
    #: predicted class alone
    scoreless: bool = False

    @property
    def size(self) -> int:
        return int(self.counts.shape[0])


def row_matrix(
    y_idx: np.ndarray,
    weights: np.ndarray | None,
    preds: Sequence[np.ndarray | None],
    probas: Sequence[np.ndarray | None],
) -> np.ndarray:
    """The rows as one float64 matrix in the module's layout (a model's scores when it has them,
    else its predicted class)."""
    n = int(y_idx.shape[0])
    cols = [
        np.asarray(y_idx, dtype=np.float64).reshape(n, 1),
        (np.ones((n, 1)) if weights is None else np.asarray(weights, dtype=np.float64).reshape(n, 1)),
    ]
    for pred, proba in zip(preds, probas):
        if pred is not None:
            cols.append(np.asarray(pred, dtype=np.float64).reshape(n, 1))
        if proba is not None:
            cols.append(np.asarray(proba, dtype=np.float64).reshape(n, -1))
    return np.hstack(cols)


def _keys(matrix: np.ndarray) -> np.ndarray:
    """Each row as one opaque key of its bytes (−0.0 made +0.0 first, so equal values are equal
    keys): sorting keys is several times faster than sorting rows value by value, and the order
    it gives depends on the values alone, so it is the same in every engine."""
    m = np.ascontiguousarray(matrix, dtype=np.float64) + 0.0
    return m.view(np.dtype((np.void, 8 * m.shape[1]))).ravel()


def distinct(matrix: np.ndarray, counts: np.ndarray | None = None) -> DistinctRows:
    """The distinct rows of ``matrix`` (in the order of their keys) and their counts (``counts``:
    what each input row stands for, 1 each by default: so the union of compressed parts is
    compressed again exactly)."""
    if matrix.shape[0] == 0:
        return DistinctRows(matrix, np.zeros(0))
    _, first, inverse = np.unique(_keys(matrix), return_index=True, return_inverse=True)
    summed = np.bincount(inverse.ravel(), weights=counts, minlength=first.shape[0])
    kept = summed > 0  # a row of frequency weight 0 stands for no row (the repeated rows lack it)
    return DistinctRows(matrix[first[kept]] + 0.0, summed[kept])


def merged(parts: Sequence[DistinctRows]) -> DistinctRows:
    """The distinct rows of several parts (their rows' union), counts added; parts of one layout
    (all with their scores or all :func:`without_scores`)."""
    parts = [p for p in parts if p.size]
    if len(parts) == 1:
        return parts[0]
    if not parts:
        return DistinctRows(np.zeros((0, 0)), np.zeros(0))
    assert len({p.scoreless for p in parts}) == 1, "parts of one layout"
    out = distinct(np.vstack([p.matrix for p in parts]), np.concatenate([p.counts for p in parts]))
    return DistinctRows(out.matrix, out.counts, parts[0].scoreless)


#: Most distinct rows × classes whose class scores the row bootstrap draws (the averaged AUCs
#: and the log-loss; past it those come from the counts or not at all). Past it the kept rows
#: drop their scores (:func:`without_scores`): in every engine, whatever the batches.
SCORE_ROWS_MAX_CELLS = 2_000_000


def without_scores(rows: DistinctRows, models: Sequence[tuple[bool, bool]], k: int) -> DistinctRows:
    """The rows with each model's class scores replaced by its predicted class (its prediction
    column, else the argmax of its scores, ties to the lowest class as
    :func:`reportgen.engine.multiclass.argmax_predictions`), compressed again: what the confusion
    counts of a resample need, a few rows per (true class, weight, every model's prediction)
    instead of one per scored row. The projection of a union is the union of the projections, so
    it gives the same rows whenever it is applied."""
    if rows.scoreless:
        return rows
    m = rows.matrix
    cols = [m[:, :2]]
    at = 2
    for has_pred, has_proba in models:
        if has_pred:
            cols.append(m[:, at : at + 1])
        elif has_proba:
            cols.append(np.argmax(m[:, at : at + k], axis=1).astype(np.float64).reshape(-1, 1))
        at += int(has_pred) + (k if has_proba else 0)
    out = distinct(np.hstack(cols), rows.counts)
    return DistinctRows(out.matrix, out.counts, True)


def split(
    rows: DistinctRows, models: Sequence[tuple[bool, bool]], k: int
) -> tuple[np.ndarray, np.ndarray, tuple[np.ndarray | None, ...], tuple[np.ndarray | None, ...]]:
    """(true class indices, weights, per model predicted indices or None, per model scores or
    None) of the distinct rows; ``models``: per model (has a prediction column, has scores)
    (rows :func:`without_scores`: a predicted class each, no scores)."""
    if rows.scoreless:
        models = [(has_pred or has_proba, False) for has_pred, has_proba in models]
    m = rows.matrix
    y = m[:, 0].astype(np.int64)
    w = m[:, 1].copy()
    at, preds, probas = 2, [], []
    for has_pred, has_proba in models:
        preds.append(m[:, at].astype(np.int64) if has_pred else None)
        at += int(has_pred)
        probas.append(m[:, at : at + k].copy() if has_proba else None)
        at += k if has_proba else 0
    return y, w, tuple(preds), tuple(probas)


def stratified_multinomial_blocks(
    strata: np.ndarray, counts: np.ndarray, resamples: int, rng: np.random.Generator
) -> Iterator[np.ndarray]:
    """Blocks of resamples, shape (block, d), whole numbers (int32 below 2^31 rows, else int64):
    how many times each distinct row is drawn, each
    stratum (true class) keeping its number of rows — a multinomial over the stratum's distinct
    rows with probabilities count / stratum size, the stratified row bootstrap's distribution.

    A stratum of at most :data:`DRAW_ROWS_FACTOR` rows per distinct row is drawn as the row
    bootstrap draws it, its rows picked one by one (uniform integers, counted per distinct row:
    about 5x cheaper than numpy's multinomial, which draws a binomial per distinct row); a
    stratum of many rows per distinct row by the multinomial over its distinct rows. The block
    size and the choice depend only on the counts and the draw order is fixed (per block, strata
    in ascending order), so a seed gives the same resamples in every engine.
    """
    d = int(counts.shape[0])
    block = max(1, min(resamples, BLOCK_CELLS // max(d, 1)))
    members: list[np.ndarray | slice] = []
    for s in np.unique(strata):  # a stratum's rows as a slice where they are consecutive (the rows' order):
        rows = np.flatnonzero(strata == s)  # filling a slice is 4x faster than a scattered assignment
        members.append(slice(int(rows[0]), int(rows[-1]) + 1) if rows[-1] - rows[0] + 1 == rows.shape[0] else rows)
    # int32 where every count fits: half the memory, and a block's pages come from the heap
    dtype = np.int32 if float(counts.sum()) < 2.0**31 else np.int64
    done = 0
    while done < resamples:
        b = min(block, resamples - done)
        out = np.zeros((b, d), dtype=dtype)
        for idx in members:
            c = counts[idx]
            total = int(round(float(c.sum())))
            if total <= DRAW_ROWS_FACTOR * c.shape[0]:
                out[:, idx] = _picked_rows(c, total, b, rng)
            else:
                out[:, idx] = rng.multinomial(total, c / c.sum(), size=b)
        done += b
        yield out


def _picked_rows(counts: np.ndarray, total: int, b: int, rng: np.random.Generator) -> np.ndarray:
    """(b, distinct rows): ``total`` rows picked uniformly with replacement, b times, counted per
    distinct row (row j stands for ``counts[j]`` of the rows)."""
    d = counts.shape[0]
    ones = bool((counts == 1).all())
    cum = None if ones else np.cumsum(counts)
    parts = []
    step = max(1, BLOCK_CELLS // max(total, 1))  # at most BLOCK_CELLS picks at once
    for lo in range(0, b, step):
        hi = min(b, lo + step)
        picked = rng.integers(0, total, size=(hi - lo, total))
        if cum is not None:  # the picked row → its distinct row
            picked = np.searchsorted(cum, picked, side="right")
        picked += (np.arange(hi - lo) * d)[:, None]
        parts.append(np.bincount(picked.ravel(), minlength=(hi - lo) * d).reshape(hi - lo, d))
    return parts[0] if len(parts) == 1 else np.concatenate(parts)  # one chunk (the usual): no copy


__all__ = [
    "BLOCK_CELLS",
    "SCORE_ROWS_MAX_CELLS",
    "without_scores",
    "DRAW_ROWS_FACTOR",
    "DistinctRows",
    "distinct",
    "merged",
    "row_matrix",
    "split",
    "stratified_multinomial_blocks",
]
