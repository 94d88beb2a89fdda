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

from dataclasses import dataclass, field
from typing import Literal

import numpy as np

from reportgen.engine.sorting import distinct_codes
from reportgen.value import Shown

Direction = Literal["higher", "lower"]

#: Unweighted tables of fewer rows than this have prefix sums that fit in int32.
_INT32_ROWS = 2**31


@dataclass(frozen=True, slots=True, eq=False, repr=False)
class ScoreTable(Shown):
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
    # (tp, fp) of :meth:`cumulative`, read-only, computed on first use: the engine's metric,
    # optimum and curve functions are called one after another on the same table and all
    # start from these two prefix sums (derived data of an immutable table, not state)
    _cum: tuple[np.ndarray, np.ndarray] | None = field(default=None, init=False, repr=False, compare=False)
    _starts: np.ndarray | bool | None = field(default=None, init=False, repr=False, compare=False)
    _steps: np.ndarray | None = field(default=None, init=False, repr=False, compare=False)
    _sums: tuple[float, float] | None = field(default=None, init=False, repr=False, compare=False)
    # arrays derived from ``thresholds`` alone, shared with every table :func:`reweighted`
    # from this one (bootstrap resamples reuse e.g. the log-loss's logarithms)
    _by_score: dict | None = field(default=None, init=False, repr=False, compare=False)

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
        return self._totals()[0]

    @property
    def total_neg(self) -> float:
        return self._totals()[1]

    def _totals(self) -> tuple[float, float]:
        """(P, N), once per table (every metric asks for them).

        The last cumulative counts, not ``pos.sum()`` (pairwise summation): then FN = P − TP
        and TN = N − FP are exactly 0 at the cut that predicts everything positive.
        """
        if self._sums is None:
            tp, fp = self.cumulative_view()
            object.__setattr__(self, "_sums", (float(tp[-1]), float(fp[-1])))
        return self._sums  # type: ignore[return-value]

    @property
    def total(self) -> float:
        return self.total_pos + self.total_neg

    # --- cumulative counts --------------------------------------------------------------
    def cumulative(self) -> tuple[np.ndarray, np.ndarray]:
        """TP and FP counts at every cut, including the empty cut.

        Returns ``(tp, fp)`` of shape (k + 1,): index 0 predicts nothing positive (threshold
        beyond every score), index i predicts positive every score up to and including
        ``thresholds[i - 1]``; the last index predicts everything positive. The arrays are
        the caller's to modify (copies of :meth:`cumulative_view`).
        """
        tp, fp = self.cumulative_view()
        return tp.copy(), fp.copy()

    def cumulative_view(self) -> tuple[np.ndarray, np.ndarray]:
        """:meth:`cumulative` as read-only arrays, computed once per table and then shared."""
        if self._cum is None:
            tp = np.empty(self.n_distinct + 1, dtype=np.float64)
            fp = np.empty(self.n_distinct + 1, dtype=np.float64)
            tp[0] = 0.0
            fp[0] = 0.0
            if not self.weighted and 0 < self.n_rows < _INT32_ROWS:
                # unit weights: the counts are whole numbers of rows, so a prefix sum in int32
                # (vectorised, unlike numpy's float64 one) gives the same values exactly
                for counts, out in ((self.pos, tp), (self.neg, fp)):
                    c = counts.astype(np.int32)
                    out[1:] = np.cumsum(c, out=c)
                    del c
            else:
                np.cumsum(self.pos, out=tp[1:])
                np.cumsum(self.neg, out=fp[1:])
            tp.setflags(write=False)
            fp.setflags(write=False)
            object.__setattr__(self, "_cum", (tp, fp))
        return self._cum  # type: ignore[return-value]

    def positive_scores(self) -> np.ndarray:
        """Indices of the scores with positive weight (``pos != 0``): where TP rises.

        Read-only, computed once; about a tenth of all scores in typical credit data.
        """
        if self._steps is None:
            steps = np.flatnonzero(self.pos != 0.0)  # a bool mask first: 5x faster on floats
            steps.setflags(write=False)
            object.__setattr__(self, "_steps", steps)
        return self._steps  # type: ignore[return-value]

    def by_score(self) -> dict:
        """A cache of arrays that depend on the scores only (not on the counts), shared by
        this table and every table :func:`reweighted` from it."""
        if self._by_score is None:
            object.__setattr__(self, "_by_score", {})
        return self._by_score  # type: ignore[return-value]

    def run_starts(self) -> np.ndarray | None:
        """The cuts at which a run of equal TP begins, or None where runs are of no use.

        A run is a maximal stretch of cuts over which only negatives are added: TP stays
        the same (bit for bit: the prefix sum adds 0.0) and FP does not fall. Its start is a
        cut ``i`` whose last score ``thresholds[i - 1]`` carries positive weight, and also
        cut 0, cut 1 and the first cut with any weight (so that an empty prefix of
        zero-weight scores is a run of its own). Sorted, read-only, computed once.

        None unless both classes are present and every count is non-negative (FP of a run
        could fall otherwise). Metrics that cannot rise when only FP grows take their best
        value of a run at its start, so optima, the KS statistic and the ROC hull's
        vertices can be searched among run starts: about the number of distinct scores of
        positives instead of all distinct scores.
        """
        if self._starts is None:
            object.__setattr__(self, "_starts", self._find_run_starts())
        return None if self._starts is False else self._starts  # type: ignore[return-value]

    def _find_run_starts(self) -> np.ndarray | bool:
        k = self.n_distinct
        if k == 0 or not (self.total_pos > 0 and self.total_neg > 0):
            return False
        if float(self.pos.min()) < 0.0 or float(self.neg.min()) < 0.0:
            return False
        tp, fp = self.cumulative_view()
        steps = self.positive_scores() + 1
        first = min(int(np.searchsorted(tp, 0.0, side="right")), int(np.searchsorted(fp, 0.0, side="right")))
        extra = sorted({0, 1, min(first, k)})
        at = np.searchsorted(steps, extra)
        new = [e for e, i in zip(extra, at) if i >= steps.shape[0] or steps[i] != e]
        out = np.insert(steps, np.searchsorted(steps, new), new)
        out.setflags(write=False)
        return out

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


# --- build_table: grouping strategies ---------------------------------------------------
#
# Every strategy returns the same (values ascending, pos, neg) as the reference definition
# ``values, inv = np.unique(scores, return_inverse=True)``; ``pos = bincount(inv[y], w[y])``,
# ``neg = bincount(inv[~y], w[~y])`` (tests/unit/test_curve_fast_paths.py checks it). Unit
# counts are integers, so their order of summation does not matter; weighted sums are always
# accumulated by one ``bincount`` in original row order, as in the reference, so they agree
# to the last bit too.

#: Rows per block when converting decimal scores to integer codes (fits in L2 cache).
_BLOCK = 1 << 16
#: Rows inspected to guess whether scores are decimals with few digits.
_SAMPLE = 2048
#: Decimal places tried (0 = integer-valued scores such as scorecard points).
_MAX_DECIMALS = 9
#: Beyond this the integer codes of scaled scores would no longer be exact doubles.
_EXACT_INT = float(2**52)


def decimal_places(scores: np.ndarray) -> int | None:
    """Smallest ``d`` for which a sample of ``scores`` is exactly ``rint(s·10^d) / 10^d``."""
    step = max(1, scores.shape[0] // _SAMPLE)
    sample = scores[::step][:_SAMPLE]
    for d in range(_MAX_DECIMALS + 1):
        scale = 10.0**d
        if np.array_equal(np.rint(sample * scale) / scale, sample):
            return d
    return None


def _integer_codes(scores: np.ndarray, y: np.ndarray, max_range: int) -> tuple[np.ndarray, float, float, int] | None:
    """Scores as small integer codes, if they are decimals with few digits in a small range.

    Returns ``(codes, scale, qmin, r)`` with ``codes = 2·(rint(s·scale) − qmin) + y`` per row
    (so one ``bincount`` counts both classes) and ``r`` the number of possible scores, or None.

    Exactness: every row is checked to satisfy ``rint(s·scale) / scale == s`` and
    ``|s·scale| < 2^52``, so a score is a function of its code and its code a function of the
    score: equal scores (including -0.0 and 0.0) share a code, different scores never do, and
    the order of codes is the order of scores. ``(code + qmin) / scale`` gives back the score.
    """
    d = decimal_places(scores)
    if d is None:
        return None
    scale = 10.0**d
    lo, hi = float(scores.min()), float(scores.max())
    if max(abs(lo), abs(hi)) * scale >= _EXACT_INT:
        return None
    qmin = float(np.rint(lo * scale))
    r = int(np.rint(hi * scale) - qmin) + 1
    if r > max_range:
        return None
    codes = scaled_codes(scores, y, scale, qmin)
    return None if codes is None else (codes, scale, qmin, r)


def scaled_codes(scores: np.ndarray, y: np.ndarray, scale: float, qmin: float) -> np.ndarray | None:
    """``2·(rint(s·scale) − qmin) + y`` per row (int64), or None when a score is not
    ``rint(s·scale) / scale`` exactly; blockwise, so the temporaries stay in cache."""
    n = scores.shape[0]
    codes = np.empty(n, dtype=np.int64)
    buf = np.empty(min(n, _BLOCK), dtype=np.float64)
    back = np.empty_like(buf)
    for i in range(0, n, _BLOCK):
        block = scores[i : i + _BLOCK]
        m = block.shape[0]
        t, u = buf[:m], back[:m]
        np.multiply(block, scale, out=t)
        np.rint(t, out=t)
        np.divide(t, scale, out=u)
        if not np.array_equal(u, block):
            return None
        np.subtract(t, qmin, out=t)
        out = codes[i : i + m]
        out[...] = t
        out *= 2
        out += y[i : i + m]
    return codes


def _by_codes(
    codes: np.ndarray, scale: float, qmin: float, r: int, w: np.ndarray | None, descending: bool
) -> tuple[np.ndarray, np.ndarray, np.ndarray]:
    """Table arrays from integer codes by one ``bincount`` (no sort)."""
    counts = np.bincount(codes, weights=w, minlength=2 * r)
    neg_all, pos_all = counts[0::2], counts[1::2]
    if w is None or (w.shape[0] and float(w.min()) > 0.0):
        present = np.flatnonzero(neg_all + pos_all)
    else:  # a score whose rows all weigh 0 is still a threshold
        seen = np.bincount(codes >> 1, minlength=r)
        present = np.flatnonzero(seen)
    if descending:
        present = present[::-1]
    values = present.astype(np.float64)
    values += qmin
    if scale != 1.0:
        values /= scale
    return values, pos_all[present].astype(np.float64), neg_all[present].astype(np.float64)


def _packed_part(
    mag: np.ndarray, y: np.ndarray, ascending: bool, below_1_5: bool
) -> tuple[np.ndarray, np.ndarray, np.ndarray]:
    """(distinct magnitudes, positive counts, negative counts) of non-negative scores by one sort.

    ``mag`` must be a fresh array of scores >= +0.0 (sign bit clear; it is overwritten). Such
    a double's bit pattern, read as an unsigned integer, orders like the double and leaves the
    top bit free, so ``bits << 1 | y`` sorts by score and carries each row's label along: one
    value sort instead of an argsort, and no second pass to find which class a row was.
    With ``ascending=False`` the keys are complemented (or negated) around the sort, giving
    descending magnitudes without a reversed copy. ``below_1_5``: every magnitude is < 1.5.
    """
    keys = mag.view(np.uint64)
    keys <<= 1
    keys |= y
    if below_1_5:
        # magnitudes < 1.5 keep the shifted key's exponent below 0x7FF: the keys are finite
        # non-negative doubles ordered like the integers, and numpy sorts doubles faster
        fkeys = keys.view(np.float64)
        if not ascending:
            np.negative(fkeys, out=fkeys)
        fkeys.sort()
        if not ascending:
            np.negative(fkeys, out=fkeys)
    else:
        if not ascending:
            np.invert(keys, out=keys)
        keys.sort()
        if not ascending:
            np.invert(keys, out=keys)
    m = keys.shape[0]
    # each sorted row's class: the low byte of its key (little- or big-endian alike)
    low = keys.view(np.uint8)[::8] if np.little_endian else keys.view(np.uint8)[7::8]
    label = np.bitwise_and(low, 1).view(bool)
    del low
    keys >>= 1
    bits = keys  # the magnitudes' bit patterns again, in place
    starts = np.empty(m, dtype=bool)
    if m:
        starts[0] = True
        np.not_equal(bits[1:], bits[:-1], out=starts[1:])
    if m and starts.all():  # every score distinct (continuous scores): one row per value
        del starts
        pos = label.astype(np.float64)
        del label
        neg = np.subtract(1.0, pos)
        return bits.view(np.float64), pos, neg
    idx = np.flatnonzero(starts)
    del starts
    values = bits[idx].view(np.float64)
    del bits
    total = np.diff(idx, append=m).astype(np.float64)
    pos = np.add.reduceat(label, idx, dtype=np.int64).astype(np.float64) if m else np.zeros(0)
    del label
    total -= pos
    return values, pos, total


def _by_packed_sort(scores: np.ndarray, y: np.ndarray, descending: bool) -> tuple[np.ndarray, np.ndarray, np.ndarray]:
    """Unweighted table by one value sort of label-carrying keys (see :func:`_packed_part`).

    Scores of one sign are one part; scores of both signs are split into the non-negative
    rows and the negated negative rows, each sorted on its own and the two joined (the
    negative part's magnitudes run the other way). ``+ 0.0`` turns -0.0 into 0.0, so the
    two zeros are one value, as in ``np.unique``. Counts are integers, hence exact.
    """
    yb = y.view(np.uint8)
    lo = float(scores.min()) if scores.shape[0] else 0.0
    hi = float(scores.max()) if scores.shape[0] else 0.0
    small = max(-lo, hi) < 1.5
    if lo >= 0.0:
        return _packed_part(np.add(scores, 0.0), yb, not descending, small)
    if hi <= 0.0:
        v, p, n = _packed_part(np.subtract(0.0, scores), yb, descending, small)
        np.negative(v, out=v)
        return v, p, n
    neg_rows = scores < 0.0
    upper = _packed_part(np.add(scores[~neg_rows], 0.0), yb[~neg_rows], not descending, small)
    lower = _packed_part(np.negative(scores[neg_rows]), yb[neg_rows], descending, small)
    del neg_rows
    np.negative(lower[0], out=lower[0])
    first, second = (upper, lower) if descending else (lower, upper)
    return tuple(np.concatenate((a, b)) for a, b in zip(first, second))  # type: ignore[return-value]


def _by_row_codes(
    scores: np.ndarray, y: np.ndarray, w: np.ndarray, descending: bool
) -> tuple[np.ndarray, np.ndarray, np.ndarray]:
    """Weighted table: one value sort gives each row's group; one bincount sums in row order."""
    values, codes = distinct_codes(scores)
    codes = codes.astype(np.int64)
    codes *= 2
    codes += y
    k = values.shape[0]
    counts = np.bincount(codes, weights=w, minlength=2 * k)
    del codes
    neg, pos = counts[0::2], counts[1::2]
    if descending:
        return values[::-1].copy(), pos[::-1].copy(), neg[::-1].copy()
    return values, pos.copy(), neg.copy()


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

    Grouping, fastest applicable first (all give the same table):

    1. scores that are decimals with at most 9 places in a range of at most about n possible
       values (scorecard points, rounded probabilities): integer codes checked row by row,
       then one ``bincount``, no sort;
    2. unit weights: one value sort of keys that pack each score with its label (no argsort);
    3. weights: one value sort to find each row's group (:func:`sorting.distinct_codes`),
       one ``bincount`` in row order.
    """
    scores = np.asarray(scores, dtype=np.float64)
    y = np.asarray(y).astype(bool, copy=False)
    if scores.shape != y.shape or scores.ndim != 1:
        raise ValueError("scores and y must be 1-D arrays of the same length")
    n = scores.shape[0]
    w = None
    if weights is not None:
        w = np.asarray(weights, dtype=np.float64)
        if w.shape != scores.shape:
            raise ValueError("weights must have the same length as scores")
    descending = direction == "higher"
    coded = _integer_codes(scores, y, max_range=n + (1 << 16)) if n else None
    if coded is not None:
        values, pos, neg = _by_codes(*coded, w=w, descending=descending)
    elif w is None:
        values, pos, neg = _by_packed_sort(scores, y, descending)
    else:
        values, pos, neg = _by_row_codes(scores, y, w, descending)
    if w is None:
        return ScoreTable(values, pos, neg, direction, float(n), n, False)
    return ScoreTable(values, pos, neg, direction, float(np.dot(w, w)), n, True)


def merge_tables(*tables: ScoreTable) -> ScoreTable:
    """Merge tables of disjoint row sets into the table of their union (exact).

    All tables must share a direction. Counts at equal scores are added, table by table in
    the order given.
    """
    if not tables:
        raise ValueError("merge_tables needs at least one table")
    direction = tables[0].direction
    if any(t.direction != direction for t in tables):
        raise ValueError("cannot merge score tables of different directions")
    asc = [(t.thresholds if direction == "lower" else t.thresholds[::-1]) for t in tables]
    values = np.unique(np.concatenate(asc))
    pos = np.zeros(values.shape[0])
    neg = np.zeros(values.shape[0])
    for t, a in zip(tables, asc):
        # a table's thresholds are distinct, so each index occurs once: a fancy-index add is
        # exact and adds in the same order as np.add.at did
        idx = np.searchsorted(values, a)
        pos[idx] += t.pos if direction == "lower" else t.pos[::-1]
        neg[idx] += t.neg if direction == "lower" else t.neg[::-1]
    if direction == "higher":
        values, pos, neg = values[::-1].copy(), pos[::-1].copy(), neg[::-1].copy()
    return ScoreTable(
        values,
        pos,
        neg,
        direction,
        float(sum(t.sum_w2 for t in tables)),
        int(sum(t.n_rows for t in tables)),
        any(t.weighted for t in tables),
    )


def row_groups(table: ScoreTable, scores: np.ndarray) -> np.ndarray:
    """Index into ``table.thresholds`` of each row's score (for resampling without a re-sort).

    A bootstrap resample is a vector of row multiplicities ``m``; the resampled table's counts
    are then ``bincount(groups[y], m[y])`` and ``bincount(groups[~y], m[~y])``.

    When ``scores`` are the rows the table was built from (the usual case) their distinct values
    are the thresholds: decimals with few digits (rounded probabilities, scorecard points; the
    first case of :func:`build_table`) are found by their integer codes in a lookup table, with
    no sort (:func:`_coded_groups`); other scores by one value sort
    (:func:`sorting.distinct_codes`); a score that is not a threshold by binary search.
    """
    scores = np.asarray(scores, dtype=np.float64)
    thresholds = table.thresholds
    coded = _coded_groups(thresholds, scores)
    if coded is not None:
        return coded
    values, codes = distinct_codes(scores)
    ascending = thresholds if table.direction != "higher" else thresholds[::-1]
    if values.shape == ascending.shape and np.array_equal(values, ascending):
        if table.direction == "higher":
            np.subtract(values.shape[0] - 1, codes, out=codes)
        return codes
    if table.direction == "higher":
        return np.searchsorted(-thresholds, -scores)
    return np.searchsorted(thresholds, scores)


def _coded_groups(thresholds: np.ndarray, scores: np.ndarray) -> np.ndarray | None:
    """Each row's index in ``thresholds`` through integer codes, or None (then :func:`row_groups` sorts).

    When every score is ``rint(s·10^d) / 10^d`` exactly in a range of at most about n codes
    (:func:`_integer_codes`, which checks every row), so is every threshold that is a row's
    score, and ``q = rint(s·10^d) − qmin`` is a one-to-one, order-keeping code: a lookup table
    from the thresholds' codes to their positions gives every row's index in O(n), where a
    sort cost about 2 s per 10M rows. None when the scores are not such decimals, or when a
    threshold is not an exact code or some row's score is not a threshold."""
    n = scores.shape[0]
    if n == 0 or thresholds.shape[0] == 0:
        return None
    coded = _integer_codes(scores, np.zeros(n, dtype=bool), max_range=n + (1 << 16))
    if coded is None:
        return None
    codes, scale, qmin, r = coded
    tq = np.rint(thresholds * scale) - qmin
    if not (np.array_equal((tq + qmin) / scale, thresholds) and tq.min() >= 0 and tq.max() < r):
        return None
    itype = np.int32 if thresholds.shape[0] < 2**31 else np.int64
    lut = np.full(r, -1, dtype=itype)
    lut[tq.astype(np.int64)] = np.arange(thresholds.shape[0], dtype=itype)
    codes >>= 1  # 2·q + 0: the label bit is 0
    groups = lut[codes]
    return None if groups.shape[0] and int(groups.min()) < 0 else groups


def reweighted(table: ScoreTable, pos: np.ndarray, neg: np.ndarray) -> ScoreTable:
    """A table with the same distinct scores and new per-score counts (resamples, prevalence shift)."""
    out = ScoreTable(
        table.thresholds,
        np.asarray(pos, dtype=np.float64),
        np.asarray(neg, dtype=np.float64),
        table.direction,
        table.sum_w2,
        table.n_rows,
        True,
    )
    object.__setattr__(out, "_by_score", table.by_score())
    return out
