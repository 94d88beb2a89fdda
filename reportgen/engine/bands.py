"""The score-band (decile) table: gains, lift and KS by band, from a model's score table.

Rows are ordered from the score most indicative of the positive class (the riskiest) to the
least, as in :class:`~reportgen.engine.curve.ScoreTable`, and cut into ``bands`` bands of about
equal weight. A band closes at the first distinct score at which the cumulative share of rows
reaches ``k / bands`` (the ``k / bands`` quantile of the ordered scores by the inverse of their
distribution function, numpy's ``method="inverted_cdf"``). Every row of one distinct score
falls in one band, so a band boundary never splits a tie: a tie larger than a band makes its
band larger and leaves fewer than ``bands`` bands (the empty ones are dropped).

Columns follow the scorecard's gains table (Siddiqi, *Credit Risk Scorecards*, 2006, ch. 9;
toad's ``KS_bucket``): per band the rows, positives and rate, then cumulative over the bands
so far the share of positives captured, the share of rows, the cumulative lift (capture /
share of rows) and the KS (cumulative share of positives minus cumulative share of
negatives, i.e. TPR - FPR of the rule "positive down to this band").

Everything is arithmetic on the score table's counts, which every engine reduces rows to, so
the table is the same from memory, stream and Dask.
"""

from __future__ import annotations

import numpy as np

from reportgen.engine.curve import ScoreTable
from reportgen.results import BandTable, ScoreBand

#: Bands of the table when ``bands:`` is not given (deciles).
DEFAULT_BANDS = 10


def band_of_scores(weights: np.ndarray, bands: int) -> np.ndarray:
    """Band index (0 = riskiest) of each distinct score, given its weight in risk order.

    ``weights``: shape (k,), the (weighted) rows of each distinct score, riskiest first.
    Band ``k`` (0-based) closes at the first distinct score whose cumulative weight reaches
    ``(k + 1) / bands`` of the total, so a distinct score's band is the number of boundaries
    its predecessors have reached: ``floor(bands * s / total)``, ``s`` the cumulative weight
    before it (the quantiles of ``np.quantile(..., method="inverted_cdf")``).
    """
    w = np.asarray(weights, dtype=np.float64)
    c = np.cumsum(w)
    total = c[-1] if c.shape[0] else 0.0
    if total <= 0:
        return np.zeros(w.shape[0], dtype=np.int64)
    before = np.concatenate(([0.0], c[:-1]))
    # a relative tolerance so that a cumulative share of exactly k / bands, summed in floats, reaches k
    x = bands * before / total
    b = np.floor(x + 1e-9 * np.maximum(1.0, x)).astype(np.int64)
    return np.clip(b, 0, bands - 1)


def _ratio(num: np.ndarray, den: np.ndarray | float) -> list[float | None]:
    den = np.broadcast_to(np.asarray(den, dtype=np.float64), num.shape)
    return [float(n / d) if d > 0 else None for n, d in zip(num, den, strict=True)]


def band_table(table: ScoreTable, bands: int = DEFAULT_BANDS) -> BandTable:
    """The gains table of ``table`` cut into ``bands`` bands of equal weight (ties kept whole).

    Per band (riskiest first): its highest- and lowest-risk score, rows (weights when the table
    is weighted), positives, their rate, and cumulatively: capture = cum positives / P, share of
    rows = cum rows / (P + N), lift = capture / share of rows, band lift = rate / (P / (P + N)),
    KS = cum positives / P - cum negatives / N. A share is None when its denominator is 0.
    """
    if bands < 1:
        raise ValueError(f"bands must be at least 1, got {bands}")
    pos, neg = np.asarray(table.pos, dtype=np.float64), np.asarray(table.neg, dtype=np.float64)
    rows = pos + neg
    if rows.shape[0] == 0:
        return BandTable(bands=bands, weighted=table.weighted, rows=())
    b = band_of_scores(rows, bands)
    used, first = np.unique(b, return_index=True)
    last = np.append(first[1:], b.shape[0]) - 1
    n_b = np.bincount(b, weights=rows, minlength=bands)[used]
    p_b = np.bincount(b, weights=pos, minlength=bands)[used]
    q_b = np.bincount(b, weights=neg, minlength=bands)[used]
    P, N = float(pos.sum()), float(neg.sum())
    T = P + N
    cp, cn, cr = np.cumsum(p_b), np.cumsum(q_b), np.cumsum(n_b)
    capture = _ratio(cp, P)
    share = _ratio(cr, T)
    rate = _ratio(p_b, n_b)
    lift = [None if c is None or s is None or s == 0 else c / s for c, s in zip(capture, share, strict=True)]
    base = P / T if T > 0 else 0.0
    band_lift = [None if r is None or base == 0 else r / base for r in rate]
    fpr = _ratio(cn, N)
    ks = [None if c is None or f is None else c - f for c, f in zip(capture, fpr, strict=True)]
    th = table.thresholds
    out = [
        ScoreBand(
            band=i + 1,
            score_first=float(th[first[i]]),
            score_last=float(th[last[i]]),
            rows=float(n_b[i]),
            positives=float(p_b[i]),
            rate=rate[i],
            capture=capture[i],
            share_of_rows=share[i],
            lift=lift[i],
            band_lift=band_lift[i],
            ks=ks[i],
        )
        for i in range(used.shape[0])
    ]
    return BandTable(bands=bands, weighted=table.weighted, rows=tuple(out))
