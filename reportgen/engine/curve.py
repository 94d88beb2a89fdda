"""The score table: the one kernel every binary metric, curve and optimum derives from.

A binary classifier's scores, reduced to what every threshold metric needs: for each distinct
score, the (weighted) count of positives and of negatives that received exactly that score.
Ordered from the most "positive" score to the least, so that the cumulative sums are the
true-positive and false-positive counts of the rule "positive when score is at or beyond t"
(scikit-learn's ``_binary_clf_curve``, collapsed over ties).

The table is also what larger-than-memory and distributed inputs reduce to: tables of chunks
are merged by adding counts at equal scores (:func:`merge_tables`), so a table of the whole
equals the merge of the tables of its parts, exactly.

Direction: with ``direction="higher"`` a higher score means "more likely positive" and the
rule is ``score >= t``; with ``direction="lower"`` (credit scores where higher = safer) the
rule is ``score <= t``. ``thresholds`` keeps the scores in their original units.
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import Literal

import numpy as np

Direction = Literal["higher", "lower"]


@dataclass(frozen=True, slots=True, eq=False)
class ScoreTable:
    """Per distinct score: weighted positive and negative counts, most positive score first.

    Attributes:
        thresholds: shape (k,), distinct scores; descending for ``higher``, ascending for
            ``lower`` (so index 0 is always the score most indicative of the positive class).
        pos: shape (k,), total weight of positives with exactly that score.
        neg: shape (k,), total weight of negatives with exactly that score.
        direction: which way the score points.
        sum_w2: sum of squared weights of all rows (n for unweighted data); needed for the
            number of distinct pairs in the share of defective pairs.
        n_rows: number of rows the table was built from.
        weighted: whether non-unit weights were used.
    """

    thresholds: np.ndarray
    pos: np.ndarray
    neg: np.ndarray
    direction: Direction = "higher"
    sum_w2: float = 0.0
    n_rows: int = 0
    weighted: bool = False

    def __post_init__(self) -> None:
        for name in ("thresholds", "pos", "neg"):
            arr = getattr(self, name)
            if arr.ndim != 1 or arr.shape[0] != self.thresholds.shape[0]:
                raise ValueError(f"ScoreTable.{name} must be 1-D of length {self.thresholds.shape[0]}")
            arr.setflags(write=False)

    # --- totals -------------------------------------------------------------------------
    @property
    def n_distinct(self) -> int:
        return int(self.thresholds.shape[0])

    @property
    def total_pos(self) -> float:
        return float(self.pos.sum())

    @property
    def total_neg(self) -> float:
        return float(self.neg.sum())

    @property
    def total(self) -> float:
        return self.total_pos + self.total_neg

    # --- cumulative counts --------------------------------------------------------------
    def cumulative(self) -> tuple[np.ndarray, np.ndarray]:
        """TP and FP counts at every cut, including the empty cut.

        Returns ``(tp, fp)`` of shape (k + 1,): index 0 predicts nothing positive (threshold
        beyond every score), index i predicts positive every score up to and including
        ``thresholds[i - 1]``; the last index predicts everything positive.
        """
        tp = np.empty(self.n_distinct + 1, dtype=np.float64)
        fp = np.empty(self.n_distinct + 1, dtype=np.float64)
        tp[0] = 0.0
        fp[0] = 0.0
        np.cumsum(self.pos, out=tp[1:])
        np.cumsum(self.neg, out=fp[1:])
        return tp, fp

    def cut_index(self, threshold: float) -> int:
        """Number of distinct scores predicted positive by the rule at ``threshold``.

        ``higher``: positive when ``score >= threshold``; ``lower``: when ``score <= threshold``.
        The result indexes the arrays of :meth:`cumulative`.
        """
        if self.direction == "higher":
            # thresholds descending; count of thresholds >= t
            return int(np.searchsorted(-self.thresholds, -threshold, side="right"))
        return int(np.searchsorted(self.thresholds, threshold, side="right"))

    def oriented(self) -> np.ndarray:
        """Scores mapped so that larger always means more positive (descending order)."""
        return self.thresholds if self.direction == "higher" else -self.thresholds


def _distinct_counts(sorted_values: np.ndarray) -> tuple[np.ndarray, np.ndarray]:
    """Distinct values of an ascending array and how often each occurs."""
    n = sorted_values.shape[0]
    if n == 0:
        return sorted_values[:0], np.zeros(0, dtype=np.float64)
    starts = np.empty(n, dtype=bool)
    starts[0] = True
    np.not_equal(sorted_values[1:], sorted_values[:-1], out=starts[1:])
    idx = np.flatnonzero(starts)
    counts = np.diff(np.append(idx, n)).astype(np.float64)
    return sorted_values[idx], counts


def _assemble(
    values: np.ndarray,
    pos_vals: np.ndarray,
    pos_cnt: np.ndarray,
    neg_vals: np.ndarray,
    neg_cnt: np.ndarray,
) -> tuple[np.ndarray, np.ndarray]:
    """Place per-class counts (at ascending distinct values) onto the ascending union ``values``."""
    pos = np.zeros(values.shape[0], dtype=np.float64)
    neg = np.zeros(values.shape[0], dtype=np.float64)
    pos[np.searchsorted(values, pos_vals)] = pos_cnt
    neg[np.searchsorted(values, neg_vals)] = neg_cnt
    return pos, neg


def _union_sorted(a: np.ndarray, b: np.ndarray) -> np.ndarray:
    """Ascending distinct union of two ascending distinct arrays (a merge, not a full sort)."""
    merged = np.concatenate([a, b])
    merged.sort(kind="stable")  # timsort: two sorted runs merge in linear time
    return _distinct_counts(merged)[0]


def _orient(values_asc: np.ndarray, pos: np.ndarray, neg: np.ndarray, direction: Direction):
    if direction == "higher":
        return values_asc[::-1].copy(), pos[::-1].copy(), neg[::-1].copy()
    return values_asc, pos, neg


def build_table(
    scores: np.ndarray,
    y: np.ndarray,
    weights: np.ndarray | None = None,
    direction: Direction = "higher",
) -> ScoreTable:
    """Reduce raw rows to a :class:`ScoreTable`.

    Args:
        scores: shape (n,), finite floats.
        y: shape (n,), booleans or 0/1: True for the positive class.
        weights: shape (n,), non-negative sample weights, or None for unit weights.
        direction: ``"higher"`` if a higher score means more likely positive.

    Without weights, each class's scores are value-sorted separately (no argsort) and the
    distinct values merged; with weights, one argsort groups the weights by score.
    """
    scores = np.asarray(scores, dtype=np.float64)
    y = np.asarray(y).astype(bool, copy=False)
    if scores.shape != y.shape or scores.ndim != 1:
        raise ValueError("scores and y must be 1-D arrays of the same length")
    n = scores.shape[0]
    if weights is None:
        pos_sorted = np.sort(scores[y])
        neg_sorted = np.sort(scores[~y])
        pv, pc = _distinct_counts(pos_sorted)
        nv, nc = _distinct_counts(neg_sorted)
        values = _union_sorted(pv, nv)
        pos, neg = _assemble(values, pv, pc, nv, nc)
        sum_w2 = float(n)
        weighted = False
    else:
        w = np.asarray(weights, dtype=np.float64)
        if w.shape != scores.shape:
            raise ValueError("weights must have the same length as scores")
        order = np.argsort(scores, kind="stable")
        s_sorted = scores[order]
        values, _ = _distinct_counts(s_sorted)
        group = np.searchsorted(values, s_sorted)
        yo = y[order]
        wo = w[order]
        pos = np.bincount(group, weights=np.where(yo, wo, 0.0), minlength=values.shape[0])
        neg = np.bincount(group, weights=np.where(yo, 0.0, wo), minlength=values.shape[0])
        sum_w2 = float(np.dot(w, w))
        weighted = True
    t, p, q = _orient(values, pos, neg, direction)
    return ScoreTable(t, p, q, direction, sum_w2, n, weighted)


def merge_tables(*tables: ScoreTable) -> ScoreTable:
    """Merge tables of disjoint row sets into the table of their union (exact).

    All tables must share a direction. Counts at equal scores are added.
    """
    if not tables:
        raise ValueError("merge_tables needs at least one table")
    direction = tables[0].direction
    if any(t.direction != direction for t in tables):
        raise ValueError("cannot merge score tables of different directions")
    asc = [(t.thresholds if direction == "lower" else t.thresholds[::-1]) for t in tables]
    allv = np.concatenate(asc)
    values = np.unique(allv)
    pos = np.zeros(values.shape[0])
    neg = np.zeros(values.shape[0])
    for t, a in zip(tables, asc):
        idx = np.searchsorted(values, a)
        p = t.pos if direction == "lower" else t.pos[::-1]
        q = t.neg if direction == "lower" else t.neg[::-1]
        np.add.at(pos, idx, p)
        np.add.at(neg, idx, q)
    tv, tp, tn = _orient(values, pos, neg, direction)
    return ScoreTable(
        tv,
        tp,
        tn,
        direction,
        float(sum(t.sum_w2 for t in tables)),
        int(sum(t.n_rows for t in tables)),
        any(t.weighted for t in tables),
    )


def row_groups(table: ScoreTable, scores: np.ndarray) -> np.ndarray:
    """Index into ``table.thresholds`` of each row's score (for resampling without a re-sort).

    A bootstrap resample is a vector of row multiplicities ``m``; the resampled table's counts
    are then ``bincount(groups[y], m[y])`` and ``bincount(groups[~y], m[~y])``.
    """
    scores = np.asarray(scores, dtype=np.float64)
    if table.direction == "higher":
        return np.searchsorted(-table.thresholds, -scores)
    return np.searchsorted(table.thresholds, scores)


def reweighted(table: ScoreTable, pos: np.ndarray, neg: np.ndarray) -> ScoreTable:
    """A table with the same distinct scores and new per-score counts (resamples, prevalence shift)."""
    return ScoreTable(
        table.thresholds,
        np.asarray(pos, dtype=np.float64),
        np.asarray(neg, dtype=np.float64),
        table.direction,
        table.sum_w2,
        table.n_rows,
        True,
    )
