"""Statistics of score tables: DeLong's AUC variance and the binning error bound, from a table alone.

The placement values V10 (positives) and V01 (negatives) depend only on the score, so their
variances are count-weighted sums over the distinct scores; identical to the per-row computation.
The accumulators that build the tables live in :mod:`reportgen.reduce.accumulators`.
"""

from __future__ import annotations

from dataclasses import dataclass

import numpy as np

from reportgen.engine.curve import ScoreTable
from reportgen.value import Value


def binning_auc_bound(table: ScoreTable) -> float:
    """Largest possible |AUC(binned) − AUC(raw)|: Σ_b pos_b·neg_b / (2·P·N).

    Within a bin every positive-negative pair counts as a tie (½) in the binned table, while in
    the raw data it counts 0, ½ or 1; so each such pair moves the AUC by at most ½ / (P·N).
    """
    P, N = table.total_pos, table.total_neg
    if P <= 0 or N <= 0:
        return 0.0
    return float(np.dot(table.pos, table.neg) / (2.0 * P * N))


@dataclass(frozen=True, repr=False, eq=False, slots=True)
class TableDeLong(Value):
    """DeLong's AUC variance computed from a score table."""

    auc: float
    variance: float
    n_pos: int
    n_neg: int


def placements(table: ScoreTable) -> tuple[np.ndarray, np.ndarray]:
    """Placement values per distinct score: V10 for a positive, V01 for a negative there.

    V10(s) = (N(score below s) + ½·N(score = s)) / N: the share of negatives a positive at s
    outranks; V01(s) = (P(score above s) + ½·P(score = s)) / P.
    """
    tp, fp = table.cumulative()
    P, N = table.total_pos, table.total_neg
    neg_above = fp[:-1]
    v10 = (N - neg_above - 0.5 * table.neg) / N
    v01 = (tp[:-1] + 0.5 * table.pos) / P
    return v10, v01


def delong_from_table(table: ScoreTable) -> TableDeLong:
    """AUC and DeLong's variance S10/m + S01/n from an unweighted table (counts = rows).

    S10 = Σ_s pos_s (V10(s) − AUC)² / (m − 1), S01 likewise over the negatives; the same numbers
    the per-row midrank algorithm gives, because V10 and V01 depend only on the score.
    """
    if table.weighted:
        raise ValueError("DeLong's variance needs unweighted rows")
    P, N = table.total_pos, table.total_neg
    m, n = int(round(P)), int(round(N))
    if m < 2 or n < 2:
        raise ValueError("DeLong's variance needs at least two rows of each class")
    v10, v01 = placements(table)
    auc = float(np.dot(table.pos, v10) / P)
    s10 = float(np.dot(table.pos, (v10 - auc) ** 2) / (m - 1))
    s01 = float(np.dot(table.neg, (v01 - auc) ** 2) / (n - 1))
    return TableDeLong(auc, s10 / m + s01 / n, m, n)
