"""Score tables built chunk by chunk, with an optional binning cap, and statistics from tables.

Pure computation for larger-than-memory and distributed inputs (the I/O lives in
``reportgen.sources_stream`` and ``reportgen.dask_engine``):

* :class:`TableAccumulator` folds chunks of rows into one exact :class:`ScoreTable` (tables of
  chunks merged every few chunks, so memory grows with the number of distinct scores, not
  rows). When the distinct scores exceed a cap it reports ``overflowed`` instead of growing.
* :func:`bin_edges` / :class:`BinnedAccumulator`: scores grouped into ``bins`` bins (quantiles
  of a sample, or equal width); each bin's threshold is the lowest (oriented) score that fell
  into it, so "positive when score ≥ t" applied to the raw rows reproduces the binned counts
  exactly. Pairs of a positive and a negative in one bin become ties; hence
  :func:`binning_auc_bound`: |AUC(binned) − AUC(raw)| ≤ Σ_b pos_b·neg_b / (2·P·N), and with
  no binning the result is exact.
* :func:`delong_from_table`: DeLong's AUC variance from a table alone. The placement values
  V10 (positives) and V01 (negatives) depend only on the score, so their variances are
  count-weighted sums over the distinct scores; identical to the per-row computation.
"""

from __future__ import annotations

import functools
import math
from collections.abc import Callable
from dataclasses import dataclass, field

import numpy as np

from reportgen.engine.curve import Direction, ScoreTable, build_table, merge_tables

#: Chunk tables merged into the running table every this many chunks.
MERGE_EVERY = 8


def oriented(scores: np.ndarray, direction: Direction) -> np.ndarray:
    """Scores mapped so that larger always means more positive."""
    return scores if direction == "higher" else -scores


@dataclass(slots=True)
class TableAccumulator:
    """Exact score table of every chunk added so far (until the distinct scores pass ``cap``).

    ``add`` takes one chunk (scores, booleans, optional weights); ``table()`` returns the
    merged table. Once the merged table has more than ``cap`` distinct scores, ``overflowed``
    is set and further chunks are ignored (the caller switches to binning).
    """

    direction: Direction = "higher"
    cap: int | None = None
    overflowed: bool = False
    _merged: ScoreTable | None = None
    _pending: list[ScoreTable] = field(default_factory=list)

    def add(self, scores: np.ndarray, y: np.ndarray, weights: np.ndarray | None = None) -> None:
        if self.overflowed or scores.shape[0] == 0:
            return
        t = build_table(scores, y, weights, self.direction)
        if self.cap is not None and t.n_distinct > self.cap:
            self.overflowed, self._merged, self._pending = True, None, []
            return
        self._pending.append(t)
        pending = sum(p.n_distinct for p in self._pending)
        if len(self._pending) >= MERGE_EVERY or (self.cap is not None and pending > self.cap):
            self._merge()

    def add_table(self, table: ScoreTable) -> None:
        if not self.overflowed:
            self._pending.append(table)
            self._merge()

    def _merge(self) -> None:
        parts = ([self._merged] if self._merged is not None else []) + self._pending
        self._pending = []
        if not parts:
            return
        merged = merge_tables(*parts) if len(parts) > 1 else parts[0]
        if self.cap is not None and merged.n_distinct > self.cap:
            self.overflowed = True
            self._merged = None
            return
        self._merged = merged

    def table(self) -> ScoreTable | None:
        """The merged table, or None when nothing was added or the cap was passed."""
        self._merge()
        return None if self.overflowed else self._merged


def sorted_search(a: np.ndarray, x: np.ndarray, side: str = "left") -> np.ndarray:
    """``np.searchsorted(a, x, side)``, with ``x`` sorted first: on millions of unsorted values a
    binary search per value is bound by cache misses, while sorted keys walk ``a`` in order
    (numpy reuses the previous answer as a bound); about twice as fast at a million values."""
    x = np.asarray(x, dtype=np.float64)
    if x.shape[0] < 4096:
        return np.searchsorted(a, x, side=side)  # type: ignore[call-overload]
    order = np.argsort(x)
    out = np.empty(x.shape[0], dtype=np.int64)
    out[order] = np.searchsorted(a, x[order], side=side)  # type: ignore[call-overload]
    return out


def _decimal_lookup(thresholds: np.ndarray) -> tuple[float, float, np.ndarray] | None:
    """(scale, qmin, lut) with ``lut[rint(s·scale) − qmin]`` = the row of score s, when the
    distinct scores are decimals with at most 9 places spanning a small integer range."""
    n = thresholds.shape[0]
    for d in range(10):
        scale = 10.0**d
        q = np.rint(thresholds * scale)
        if np.array_equal(q / scale, thresholds) and np.abs(q).max(initial=0.0) < 2.0**52:
            qmin = float(q.min(initial=0.0))
            span = int(q.max(initial=0.0) - qmin) + 1
            if span > max(8 * n, 1 << 16) or span > 50_000_000:
                return None
            lut = np.full(span, -1, dtype=np.int64)
            lut[(q - qmin).astype(np.int64)] = np.arange(n)
            return scale, qmin, lut
    return None


def exact_grouper(table: ScoreTable) -> Callable[[np.ndarray], np.ndarray]:
    """Raw score → row of an exact table (every score occurs in it).

    Decimal scores (points, rounded probabilities): one table lookup per row by integer code;
    otherwise a search in the sorted thresholds. Rows whose code misses fall back to the search.
    """
    n = table.n_distinct
    if table.direction == "higher":  # thresholds descending: row = n − 1 − (index in ascending order)
        asc = table.thresholds[::-1].copy()

        def search(s: np.ndarray) -> np.ndarray:
            return (n - 1) - sorted_search(asc, s, "left")
    else:
        search = functools.partial(sorted_search, table.thresholds)
    coded = _decimal_lookup(table.thresholds)
    if coded is None:
        return search
    scale, qmin, lut = coded
    thr = table.thresholds

    def lookup(s: np.ndarray) -> np.ndarray:
        s = np.asarray(s, dtype=np.float64)
        c = np.rint(s * scale) - qmin
        ok = (c >= 0) & (c < lut.shape[0])
        rows = lut[np.where(ok, c, 0).astype(np.int64)]
        ok &= rows >= 0
        ok &= thr[np.where(ok, rows, 0)] == s
        if not ok.all():
            rows[~ok] = search(s[~ok])
        return rows

    return lookup


def bin_edges(sample: np.ndarray, bins: int, method: str = "quantile") -> np.ndarray:
    """Lower edges of the bins in oriented units, descending, ``bins − 1`` of them at most.

    Bin 0 holds oriented scores ≥ edges[0], bin j scores in [edges[j], edges[j − 1]), the last
    bin everything below the last edge. ``quantile``: edges at equal shares of ``sample``
    (duplicates removed, so heavy ties give fewer bins); ``fixed``: equal width between the
    sample's minimum and maximum.
    """
    if bins < 2:
        raise ValueError("bins must be at least 2")
    s = np.asarray(sample, dtype=np.float64)
    if s.size == 0:
        return np.empty(0)
    if method == "quantile":
        qs = np.quantile(s, np.linspace(0.0, 1.0, bins + 1)[1:-1])
    elif method == "fixed":
        qs = np.linspace(float(s.min()), float(s.max()), bins + 1)[1:-1]
    else:
        raise ValueError(f"unknown binning method {method!r}")
    return np.unique(qs)[::-1].copy()


@dataclass(slots=True)
class BinnedAccumulator:
    """Per-bin positive and negative weight and the lowest oriented score seen in each bin."""

    edges: np.ndarray  # descending lower edges (oriented units)
    direction: Direction = "higher"
    pos: np.ndarray = field(init=False)
    neg: np.ndarray = field(init=False)
    low: np.ndarray = field(init=False)
    sum_w2: float = 0.0
    n_rows: int = 0
    weighted: bool = False

    def __post_init__(self) -> None:
        k = self.edges.shape[0] + 1
        self.pos = np.zeros(k)
        self.neg = np.zeros(k)
        self.low = np.full(k, np.inf)

    def bin_of(self, o: np.ndarray) -> np.ndarray:
        """Bin index (0 = most positive) of each oriented score."""
        return self.edges.shape[0] - sorted_search(self.edges[::-1].copy(), o, "right")

    def add(self, scores: np.ndarray, y: np.ndarray, weights: np.ndarray | None = None) -> None:
        if scores.shape[0] == 0:
            return
        o = oriented(np.asarray(scores, dtype=np.float64), self.direction)
        k = self.pos.shape[0]
        y = np.asarray(y, dtype=bool)
        asc_edges = self.edges[::-1].copy()
        if weights is None:  # value sorts of each class: bins by a walk, lowest score per bin for free
            for cls, counts in ((True, self.pos), (False, self.neg)):
                v = np.sort(o[y == cls])
                b = self.edges.shape[0] - np.searchsorted(asc_edges, v, side="right")
                counts += np.bincount(b, minlength=k)
                if v.shape[0]:  # b is non-increasing along v: each run starts at its bin's lowest score
                    first = np.flatnonzero(np.concatenate([[True], b[1:] != b[:-1]]))
                    np.minimum.at(self.low, b[first], v[first])
        else:
            b = self.bin_of(o)
            w = np.asarray(weights, dtype=np.float64)
            self.pos += np.bincount(b[y], weights=w[y], minlength=k)
            self.neg += np.bincount(b[~y], weights=w[~y], minlength=k)
            np.minimum.at(self.low, b, o)
        self.sum_w2 += float(o.shape[0]) if weights is None else float(np.dot(w, w))
        self.n_rows += int(o.shape[0])
        self.weighted = self.weighted or weights is not None

    def add_table(self, table: ScoreTable) -> None:
        """Fold an exact table in (its distinct scores stand for their rows)."""
        o = table.oriented()
        b = self.bin_of(o)
        k = self.pos.shape[0]
        self.pos += np.bincount(b, weights=table.pos, minlength=k)
        self.neg += np.bincount(b, weights=table.neg, minlength=k)
        np.minimum.at(self.low, b, o)
        self.sum_w2 += table.sum_w2
        self.n_rows += table.n_rows
        self.weighted = self.weighted or table.weighted

    def grouper(self) -> Callable[[np.ndarray], np.ndarray]:
        """Raw score → row of :meth:`table` (for a second pass over the rows)."""
        used = ((self.pos + self.neg) > 0) & np.isfinite(self.low)
        row = np.cumsum(used) - 1

        def group(scores: np.ndarray) -> np.ndarray:
            return row[self.bin_of(oriented(np.asarray(scores, dtype=np.float64), self.direction))]

        return group

    def table(self) -> ScoreTable:
        """The binned table: one row per non-empty bin, threshold = the lowest score in it."""
        used = (self.pos + self.neg) > 0
        used &= np.isfinite(self.low)
        thr = self.low[used]
        return ScoreTable(
            thr if self.direction == "higher" else -thr,
            self.pos[used].copy(),
            self.neg[used].copy(),
            self.direction,
            self.sum_w2,
            self.n_rows,
            self.weighted,
        )


def merge_binned(parts: list[BinnedAccumulator]) -> BinnedAccumulator:
    """Sum accumulators built with the same edges (a tree reduce of partitions)."""
    out = BinnedAccumulator(parts[0].edges, parts[0].direction)
    for p in parts:
        out.pos += p.pos
        out.neg += p.neg
        np.minimum(out.low, p.low, out=out.low)
        out.sum_w2 += p.sum_w2
        out.n_rows += p.n_rows
        out.weighted = out.weighted or p.weighted
    return out


def binning_auc_bound(table: ScoreTable) -> float:
    """Largest possible |AUC(binned) − AUC(raw)|: Σ_b pos_b·neg_b / (2·P·N).

    Within a bin every positive-negative pair counts as a tie (½) in the binned table, while in
    the raw data it counts 0, ½ or 1; so each such pair moves the AUC by at most ½ / (P·N).
    """
    P, N = table.total_pos, table.total_neg
    if P <= 0 or N <= 0:
        return 0.0
    return float(np.dot(table.pos, table.neg) / (2.0 * P * N))


@dataclass(frozen=True, slots=True)
class TableDeLong:
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


@dataclass(slots=True)
class PairedAccumulator:
    """Cross-moments of the models' placement values over aligned rows (a second pass).

    For models a, b on the same rows: S10[a, b] = Σ_pos (V10_a − AUC_a)(V10_b − AUC_b) / (m − 1)
    and S01 likewise over the negatives give DeLong's covariance S10/m + S01/n; and, at each
    model's decision rule, the 2×2 table of (a correct, b correct) for McNemar's test. Rows
    are looked up in each model's table by score (the tables of pass 1), so nothing per row is
    kept between chunks.
    """

    tables: list[ScoreTable]
    cuts: list[float]  # each model's decision threshold
    groupers: list[Callable[[np.ndarray], np.ndarray]] | None = None  # raw score → table row
    c10: np.ndarray = field(init=False)
    c01: np.ndarray = field(init=False)
    agree: np.ndarray = field(init=False)  # [a, b, 2, 2] counts: a correct?, b correct?
    _v10: list[np.ndarray] = field(init=False)
    _v01: list[np.ndarray] = field(init=False)
    _auc: list[float] = field(init=False)

    def __post_init__(self) -> None:
        k = len(self.tables)
        self.c10 = np.zeros((k, k))
        self.c01 = np.zeros((k, k))
        self.agree = np.zeros((k, k, 2, 2))
        self._v10, self._v01, self._auc = [], [], []
        for t in self.tables:
            v10, v01 = placements(t)
            self._v10.append(v10)
            self._v01.append(v01)
            self._auc.append(float(np.dot(t.pos, v10) / t.total_pos))

    def add(self, scores: list[np.ndarray], y: np.ndarray) -> None:
        """One chunk of aligned rows: each model's raw scores and the shared truth."""
        y = np.asarray(y, dtype=bool)
        d10, d01, ok = [], [], []
        groupers = self.groupers or [exact_grouper(t) for t in self.tables]
        for t, s, v10, v01, auc, cut, group in zip(self.tables, scores, self._v10, self._v01, self._auc, self.cuts, groupers):
            g = group(s)
            d10.append(v10[g[y]] - auc)
            d01.append(v01[g[~y]] - auc)
            flagged = s >= cut if t.direction == "higher" else s <= cut
            ok.append(flagged == y)
        A10, A01 = np.vstack(d10), np.vstack(d01)
        self.c10 += A10 @ A10.T
        self.c01 += A01 @ A01.T
        C = np.vstack(ok).astype(np.float64)
        W = 1.0 - C
        self.agree[:, :, 0, 0] += C @ C.T
        self.agree[:, :, 0, 1] += C @ W.T
        self.agree[:, :, 1, 0] += W @ C.T
        self.agree[:, :, 1, 1] += W @ W.T

    def covariance(self) -> np.ndarray:
        """DeLong's covariance matrix of the models' AUCs: S10/m + S01/n."""
        m = self.tables[0].total_pos
        n = self.tables[0].total_neg
        return self.c10 / (m - 1) / m + self.c01 / (n - 1) / n


def normal_interval(estimate: float, variance: float, level: float) -> tuple[float, float]:
    """estimate ∓ z·√variance clipped to [0, 1], z = Φ⁻¹((1 + level) / 2)."""
    from reportgen.engine.stats import _norm_ppf  # noqa: PLC0415

    z = _norm_ppf(0.5 + level / 2.0)
    se = math.sqrt(max(variance, 0.0))
    return max(0.0, estimate - z * se), min(1.0, estimate + z * se)
