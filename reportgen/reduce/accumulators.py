"""The binary accumulators every engine reduces rows with: ``add`` a batch, ``merge`` another, finish.

Pure numpy, no I/O; the runners (:mod:`reportgen.reduce.local`: memory and stream;
:mod:`reportgen.reduce.dask`) feed them batches and merge them up a tree.

* :class:`TableAccumulator` folds chunks of rows into one exact :class:`ScoreTable` (tables of
  chunks merged every few chunks, so memory grows with the number of distinct scores, not
  rows). When the distinct scores exceed a cap it reports ``overflowed`` instead of growing.
* :func:`bin_edges` / :class:`BinnedAccumulator`: scores grouped into ``bins`` bins (quantiles
  of a sample, or equal width); each bin's threshold is the lowest (oriented) score that fell
  into it, so "positive when score ≥ t" applied to the raw rows reproduces the binned counts
  exactly (the AUC error bound: :func:`reportgen.engine.streaming.binning_auc_bound`).
* :class:`PairedAccumulator` / :class:`AgreementAccumulator`: the paired statistics of aligned
  rows (DeLong's cross-moments, McNemar's tables, pattern counts).
* :class:`CellCounter` / :class:`JointCellCounter`: weighted rows counted per (score, class,
  weight) of one model, and per (every model's table row, class, every model's weight) of
  aligned models — the stratified row bootstrap of weighted rows drawn on counts
  (:class:`reportgen.engine.intervals.WeightCells`).
* :mod:`reportgen.reduce.class_counts`: the multiclass counts; :mod:`reportgen.reduce.cells`: the weight cells of both.
"""

from __future__ import annotations

import functools
import math
from collections.abc import Callable, Sequence
from dataclasses import dataclass, field, replace

import numpy as np

from reportgen.engine.approval import MAX_APPROVAL_MODELS, ApprovalCounter
from reportgen.engine.curve import Direction, ScoreTable, build_table, merge_tables, scaled_codes
from reportgen.engine.intervals import (
    JOINT_EXACT_CELLS,
    MAX_PAIR_MODELS,
    MAX_PATTERN_MODELS,
    MAX_WEIGHT_CELLS,
    PairTableAccumulator,
    WeightCells,
    count_cells,
    merge_cells,
    shared_weights,
)
from reportgen.engine.sorting import sorted_unique
from reportgen.engine.streaming import placements
from reportgen.errors import InputError
from reportgen.io.validate import HEADER_ROWS
from reportgen.reduce.cells import cell_sums, weight_cells
from reportgen.value import Shown

#: Chunk tables merged into the running table every this many chunks.
MERGE_EVERY = 8


def oriented(scores: np.ndarray, direction: Direction) -> np.ndarray:
    """Scores mapped so that larger always means more positive."""
    return scores if direction == "higher" else -scores


#: Widest range of integer codes (possible scores) counted in a dense array: 2 int64 counts
#: per code, so at most 128 MB (probabilities with 6 decimals need 10^6 codes, points a few
#: hundred).
DENSE_SPAN = 1 << 23
#: :class:`DenseCounts` finds its scores by sorting the rows' codes while there is at most one row
#: per this many codes of its range (a sort of n codes against a scan of 16 bytes per code).
SPARSE_ROWS = 8


@dataclass(slots=True, repr=False, eq=False)
class DenseCounts(Shown):
    """Unweighted counts of decimal scores, indexed by integer code: no table per chunk, no merge.

    Scores with few decimal places (rounded probabilities, scorecard points) are integers
    ``q = rint(s·scale)`` exactly (checked row by row, as in :func:`curve._integer_codes`), so
    a chunk is one ``bincount`` of ``2·(q − qmin) + y`` added into ``counts``; the range grows
    as chunks extend it. The table of the counts equals the merge of the chunks' tables.

    While the rows are few for the range (at most one per :data:`SPARSE_ROWS` codes: a thousand
    6-decimal probabilities span a million codes), the rows' integer scores and classes are kept
    instead (``seen``, ``seen_y``; ``counts`` is None) and the table is a sort of them, so a small
    input costs what its rows do, not 16 bytes per code of its range (a 16 MB array for a
    thousand probabilities, which the kernel faults in as huge pages).
    """

    scale: float
    qmin: int
    span: int  # codes of the range: q − qmin in [0, span)
    counts: np.ndarray | None = None  # int64, shape (2·span,): negatives at 2c, positives at 2c + 1
    n_rows: int = 0
    last: np.ndarray | None = None  # the last chunk's integer scores q (int64), for row codes
    seen: list[np.ndarray] | None = field(default_factory=list)  # every chunk's q while the rows are few
    seen_y: list[np.ndarray] = field(default_factory=list)  # and its classes (uint8)

    @classmethod
    def start(cls, scores: np.ndarray) -> DenseCounts | None:
        """An empty accumulator fitted to a first chunk, or None when its scores are not decimals."""
        from reportgen.engine.curve import decimal_places  # noqa: PLC0415

        d = decimal_places(scores) if scores.shape[0] else None
        if d is None:
            return None
        scale = 10.0**d
        q = np.rint(float(scores.min()) * scale)
        if not abs(q) < 2.0**52:
            return None
        return cls(scale, int(q), 1)

    def add(self, scores: np.ndarray, y: np.ndarray) -> bool:
        """Count one chunk; False (nothing counted) when a score is not a code or the range is too wide."""
        n = scores.shape[0]
        if n == 0:
            return True
        scale = self.scale
        lo, hi = np.rint(float(scores.min()) * scale), np.rint(float(scores.max()) * scale)
        if not (abs(lo) < 2.0**52 and abs(hi) < 2.0**52):
            return False
        qmin = min(self.qmin, int(lo))
        span = max(self.qmin + self.span, int(hi) + 1) - qmin
        if span > DENSE_SPAN:
            return False
        codes = scaled_codes(scores, np.asarray(y, dtype=bool).view(np.uint8), scale, float(qmin))
        if codes is None:
            return False
        self.n_rows += n
        if self.seen is not None and SPARSE_ROWS * self.n_rows <= span:  # still few rows: keep them
            self.qmin, self.span = qmin, span
            self.seen_y.append((codes & 1).astype(np.uint8))
        else:  # rows enough to scan the range: count them from now on
            if self.counts is None or qmin != self.qmin or span != self.span:
                self._grow(qmin, span)
            assert self.counts is not None
            if n >= self.counts.shape[0]:  # a chunk longer than the span: one bincount (add.at is ~3x slower a row)
                self.counts += np.bincount(codes, minlength=self.counts.shape[0])
            else:  # no bincount of the whole span: that costs ~10 ms per chunk at 10^6 codes
                np.add.at(self.counts, codes, 1)
        codes >>= 1
        codes += qmin
        self.last = codes
        if self.seen is not None:
            self.seen.append(codes)
        return True

    def _grow(self, qmin: int, span: int) -> None:
        """Counts over codes [qmin, qmin + span): the kept rows counted into them (the last time
        rows are kept), or the counts so far moved into the wider range."""
        grown = np.zeros(2 * span, dtype=np.int64)
        if self.seen is not None:
            if self.seen:
                kept = np.concatenate(self.seen)
                kept -= qmin
                kept *= 2
                kept += np.concatenate(self.seen_y)
                np.add.at(grown, kept, 1)
            self.seen, self.seen_y = None, []
        elif self.counts is not None:
            at = 2 * (self.qmin - qmin)
            grown[at : at + self.counts.shape[0]] = self.counts
        self.qmin, self.span, self.counts = qmin, span, grown

    def _present(self) -> np.ndarray:
        """``q − qmin`` of the integer scores that occur, ascending (the non-empty codes)."""
        if self.seen is not None:
            return sorted_unique(np.concatenate(self.seen)) - self.qmin if self.seen else np.zeros(0, dtype=np.int64)
        assert self.counts is not None
        return np.flatnonzero(self.counts[0::2] + self.counts[1::2])

    def n_distinct(self) -> int:
        return int(self._present().shape[0])

    def row_lookup(self, direction: Direction) -> tuple[int, Callable[[np.ndarray], np.ndarray]]:
        """(qmin, rows): ``rows(q − qmin)`` are the rows of :meth:`table` of integer scores q (int32;
        −1 for a score that does not occur). Counted densely, a table of the range; while the rows
        are few for it (``seen``), a binary search of the scores that occur instead (the table
        would be 4 bytes per code: 4 MB, paged in afresh, for a thousand 6-decimal probabilities)."""
        present = self._present()
        k = present.shape[0]
        if self.seen is not None:

            def rows(codes: np.ndarray) -> np.ndarray:
                at = np.searchsorted(present, codes).clip(max=max(k - 1, 0))
                found = present[at] == codes if k else np.zeros(codes.shape, dtype=bool)
                return np.where(found, k - 1 - at if direction == "higher" else at, -1).astype(np.int32)

            return self.qmin, rows
        if direction == "higher":
            present = present[::-1]
        lut = np.full(self.span, -1, dtype=np.int32)
        lut[present] = np.arange(k, dtype=np.int32)
        return self.qmin, lut.__getitem__

    def _class_counts(self) -> tuple[np.ndarray, np.ndarray, np.ndarray]:
        """(present, positives, negatives) per integer score that occurs, ascending."""
        if self.seen is not None:
            if not self.seen:
                empty = np.zeros(0, dtype=np.int64)
                return empty, empty, empty
            present, inverse = np.unique(np.concatenate(self.seen), return_inverse=True)
            present -= self.qmin
            rows = np.bincount(inverse, minlength=present.shape[0])
            pos = np.bincount(inverse[np.concatenate(self.seen_y).view(bool)], minlength=present.shape[0])
            return present, pos, rows - pos
        assert self.counts is not None
        present = self._present()
        return present, self.counts[1::2][present], self.counts[0::2][present]

    def table(self, direction: Direction) -> ScoreTable:
        present, pos, neg = self._class_counts()
        if direction == "higher":
            present, pos, neg = present[::-1], pos[::-1], neg[::-1]
        values = present.astype(np.float64)
        values += self.qmin
        if self.scale != 1.0:
            values /= self.scale
        n = self.n_rows
        return ScoreTable(
            values,
            pos.astype(np.float64),
            neg.astype(np.float64),
            direction,
            float(n),
            n,
            False,
        )


#: :class:`WeightMoments`: weights are summed exactly as integers in units of 2^-60, in four
#: limbs of 35 bits (a weight below 2^40 fills the lower three: weights below 2^40 are pooled,
#: ...), their squares in units of 2^-90 in six (a square below 2^80 fills the lower five), so the
#: top limb of a row is 0 and every sum up to 2^44 rows fits.
_LIMB_BITS, _LIMBS, _UNIT = 35, 4, 60
_SQ_LIMBS, _SQ_UNIT = 6, 90
_POOLABLE = 2.0**40
#: ... and not below 2^-30 (other than 0), so 30 bits of each weight and of its square at least
#: are kept (a square in units of 2^-60 kept none of a weight of 2^-30: their variance was lost).
_FINEST = 2.0**-30
#: A limb (below 2^35) split in 18 low and 17 high bits before it is multiplied or summed, so
#: neither product nor sum leaves int64 (up to 2^44 rows; a cell of 2^28 rows overflowed whole).
_LOW_BITS = 18


def _limbs(v: np.ndarray, rows: np.ndarray | None = None, unit: int = _UNIT, n: int = _LIMBS) -> np.ndarray:
    """Shape (values, ``n``) int64: ``v`` (≥ 0, < 2^(35·(n−1) − unit)) in units of 2^-``unit``
    (the rest dropped), 35 bits a limb, least significant first, times ``rows`` if given (below
    2^44). Every step is exact in float64."""
    x = np.asarray(v, dtype=np.float64) * 2.0**unit
    out = np.empty((x.shape[0], n), dtype=np.int64)
    for k in range(n - 1, 0, -1):
        q = np.floor(x * 2.0 ** (-_LIMB_BITS * k))
        out[:, k] = q
        x = x - q * 2.0 ** (_LIMB_BITS * k)
    out[:, 0] = np.floor(x)
    if rows is None:
        return _carried(out)
    r = np.asarray(rows, dtype=np.int64)[:, None]
    return _joined((out[:, :-1] & ((1 << _LOW_BITS) - 1)) * r, (out[:, :-1] >> _LOW_BITS) * r, out[:, -1] * r[:, 0])


def _summed(limbs: np.ndarray, start: np.ndarray) -> np.ndarray:
    """``np.add.reduceat`` of carried limbs over the runs beginning at ``start``, exactly (up to
    2^44 entries a run: each limb's low and high bits summed apart)."""
    low, high = limbs[:, :-1] & ((1 << _LOW_BITS) - 1), limbs[:, :-1] >> _LOW_BITS
    return _joined(
        np.add.reduceat(low, start, axis=0),
        np.add.reduceat(high, start, axis=0),
        np.add.reduceat(limbs[:, -1], start, axis=0),
    )


def _joined(low: np.ndarray, high: np.ndarray, top: np.ndarray) -> np.ndarray:
    """Carried limbs of ``Σ_k (low_k + high_k·2^18)·2^(35k)`` (k below the top limb) ``+ top·2^(35·last)``:
    ``high_k·2^18`` is its low 17 bits times 2^18 in limb k and the rest in limb k + 1."""
    out = np.empty((low.shape[0], low.shape[1] + 1), dtype=np.int64)
    out[:, :-1] = low + ((high & ((1 << (_LIMB_BITS - _LOW_BITS)) - 1)) << _LOW_BITS)
    out[:, -1] = top
    out[:, 1:] += high >> (_LIMB_BITS - _LOW_BITS)
    return _carried(out)


def _carried(limbs: np.ndarray) -> np.ndarray:
    """The same integers with every limb but the last below 2^35 (carries moved up)."""
    for k in range(limbs.shape[1] - 1):
        carry = limbs[:, k] >> _LIMB_BITS
        limbs[:, k] -= carry << _LIMB_BITS
        limbs[:, k + 1] += carry
    return limbs


def _value(limbs: np.ndarray, unit: int = _UNIT) -> np.ndarray:
    """The limbs (in units of 2^-``unit``) as float64, added in one fixed order (a function of the
    integers alone)."""
    out = np.zeros(limbs.shape[0])
    for k in range(limbs.shape[1] - 1, -1, -1):
        out += limbs[:, k].astype(np.float64) * 2.0 ** (_LIMB_BITS * k - unit)
    return out


#: Rows (or cells) turned into :class:`WeightMoments` at once: their limbs take ~100 bytes a row.
_MOMENT_SLICE = 1 << 20


@dataclass(frozen=True, slots=True, eq=False, repr=False)
class WeightMoments(Shown):
    """Weighted rows pooled per (keys, class): rows, Σw and Σw² — the weight cells past the cap.

    Keys: one model's raw score (:class:`CellCounter`), or every model's bin
    (:class:`JointCellCounter`, models sharing their weights). The sums are integers (units of
    2^-60 and 2^-90, :func:`_limbs`; each row's ``w²`` rounded once as float64), added exactly, so they do
    not depend on the order or chunking of the rows: every engine holds the same moments, and
    the same pooled cells to the bit.
    """

    keys: np.ndarray  # shape (m, k) float64
    y: np.ndarray  # shape (k,) bool
    rows: np.ndarray  # shape (k,) int64
    s1: np.ndarray  # shape (k, 4) int64 limbs of Σw
    s2: np.ndarray  # shape (k, 6) int64 limbs of Σw² (units of 2^-90)

    @property
    def n_cells(self) -> int:
        return int(self.rows.shape[0])

    @staticmethod
    def of(keys: np.ndarray, y: np.ndarray, w: np.ndarray, rows: np.ndarray) -> WeightMoments | None:
        """The moments of cells (``keys`` shape (m, k), their weight and rows), None when a weight
        is too large or too small to pool (outside [2^-30, 2^40), 0 aside)."""
        if w.shape[0] and (float(w.max()) >= _POOLABLE or float(np.min(w, initial=1.0, where=w > 0)) < _FINEST):
            return None
        keys = np.asarray(keys, dtype=np.float64)

        def pooled(at: slice) -> WeightMoments:
            k, r, v = keys[:, at], rows[at], w[at]
            return WeightMoments.pooled(k, y[at], r, _limbs(v, r), _limbs(v * v, r, _SQ_UNIT, _SQ_LIMBS))

        if y.shape[0] > _MOMENT_SLICE:  # slice by slice (the sums are exact: the same integers), bounded memory
            return WeightMoments.merged(
                [pooled(slice(i, i + _MOMENT_SLICE)) for i in range(0, y.shape[0], _MOMENT_SLICE)]
            )
        return pooled(slice(None))

    @staticmethod
    def pooled(keys: np.ndarray, y: np.ndarray, rows: np.ndarray, s1: np.ndarray, s2: np.ndarray) -> WeightMoments:
        """Entries of equal (class, keys) added (integers: any order gives the same sums), in the
        canonical order (positives first, then by keys)."""
        n = y.shape[0]
        if n == 0:
            return WeightMoments(keys, y, rows, s1, s2)
        order = np.lexsort((*keys[::-1], ~y))
        kk, yy = keys[:, order], y[order]
        new = np.empty(n, dtype=bool)
        new[0] = True
        new[1:] = (yy[1:] != yy[:-1]) | np.any(kk[:, 1:] != kk[:, :-1], axis=0)
        start = np.flatnonzero(new)
        return WeightMoments(
            kk[:, start],
            yy[start],
            np.add.reduceat(rows[order], start),
            _summed(s1[order], start),
            _summed(s2[order], start),
        )

    @staticmethod
    def merged(parts: list[WeightMoments]) -> WeightMoments:
        return WeightMoments.pooled(
            np.concatenate([p.keys for p in parts], axis=1),
            *(np.concatenate([getattr(p, a) for p in parts]) for a in ("y", "rows", "s1", "s2")),
        )

    def cells(self, codes: np.ndarray, luts: tuple[np.ndarray, ...] | None = None) -> WeightCells:
        """Pooled :class:`~reportgen.engine.intervals.WeightCells` at ``codes`` (shape (m, k), the
        keys' table rows or bins), in canonical order: ``w`` the mean weight (every key), ``var``
        the variance of the weights."""
        order = np.lexsort((*codes[::-1], ~self.y))
        rows = self.rows[order]
        mean = _value(self.s1[order]) / rows
        var = np.maximum(_value(self.s2[order], _SQ_UNIT) / rows - mean * mean, 0.0)
        return WeightCells(codes[:, order], self.y[order], np.tile(mean, (codes.shape[0], 1)), rows, luts, var)


class CellCounter:
    """One weighted model's rows counted per (raw score, class, weight): ``add`` · ``merge`` · ``cells``.

    Held as :class:`~reportgen.engine.intervals.WeightCells` with the score and the weight as
    two weight keys (codes unused) until the table is known; :meth:`cells` then puts each score
    at its table row. Chunks are counted as they come and merged every :data:`MERGE_EVERY`
    chunks. Past :data:`~reportgen.engine.intervals.MAX_WEIGHT_CELLS` cells it keeps no cells
    (``overflowed``): the distinct cells of all rows do not depend on the chunking, so every
    engine overflows on the same data. With ``pool``, it then keeps the rows pooled per (score,
    class) with their weights' moments instead (:class:`WeightMoments`, exact integer sums; None
    past the cap again, or for a weight ≥ 2^40), from which the bootstrap draws pooled cells.
    """

    def __init__(self, pool: bool = False) -> None:
        self.merged: WeightCells | None = None
        self.pending: list[WeightCells] = []
        self.overflowed = False
        self.pool = pool
        self.moments: WeightMoments | None = None
        self.pending_moments: list[WeightMoments] = []

    def add(self, scores: np.ndarray, y: np.ndarray, weights: np.ndarray) -> None:
        self.add_counted(scores, y, weights, np.ones(scores.shape[0], dtype=np.int64))

    def add_counted(self, scores: np.ndarray, y: np.ndarray, weights: np.ndarray, rows: np.ndarray) -> None:
        """Rows already counted per (score, class, weight) (``rows`` each; SQL pushdown's groups)."""
        if scores.shape[0] == 0 or (self.overflowed and not self.pool):
            return
        s, r = np.asarray(scores, dtype=np.float64), np.asarray(rows, dtype=np.int64)
        w = np.asarray(weights, dtype=np.float64)
        if self.overflowed:
            self._push_moments(WeightMoments.of(s[None, :], y, w, r))
            return
        self._push(count_cells(np.zeros(s.shape[0], dtype=np.int64), y, np.stack([s, w]), r))

    def _push(self, part: WeightCells) -> None:
        if self.overflowed:
            self._push_moments(self._moments(part))
            return
        self.pending.append(part)
        if len(self.pending) >= MERGE_EVERY:
            self._merge()

    def _push_moments(self, part: WeightMoments | None) -> None:
        if not self.pool:
            return
        if part is None:  # a weight too large to pool: nothing kept
            self.pool, self.moments, self.pending_moments = False, None, []
            return
        self.pending_moments.append(part)
        if len(self.pending_moments) >= MERGE_EVERY:
            self._merge_moments()

    @staticmethod
    def _moments(cells: WeightCells) -> WeightMoments | None:
        """Exact cells (score and weight as their two weight keys) as moments per (score, class)."""
        return WeightMoments.of(cells.w[:1], cells.y, cells.w[1], cells.rows)

    def _merge_moments(self) -> None:
        parts = ([self.moments] if self.moments is not None else []) + self.pending_moments
        self.pending_moments = []
        if not self.pool or not parts:
            return
        merged = WeightMoments.merged(parts) if len(parts) > 1 else parts[0]
        if merged.n_cells > MAX_WEIGHT_CELLS:
            self.pool, self.moments = False, None
            return
        self.moments = merged

    def _shrink(self, merged: WeightCells) -> WeightCells:
        """Fewer cells for ``merged`` when it is large (here none: the cells as they are)."""
        return merged

    def _merge(self) -> None:
        parts = ([self.merged] if self.merged is not None else []) + self.pending
        self.pending = []
        if self.overflowed or not parts:
            return
        merged = self._shrink(merge_cells(parts) if len(parts) > 1 else parts[0])
        if merged.n_cells > MAX_WEIGHT_CELLS:
            self.overflowed, self.merged = True, None
            self._push_moments(self._moments(merged) if self.pool else None)
            return
        self.merged = merged

    def merge(self, other: CellCounter) -> CellCounter:
        """Add the counts of other rows (a Dask part)."""
        other._merge()
        other._merge_moments()
        if other.merged is not None:
            self._push(other.merged)
        self._merge()
        if other.overflowed:
            if not self.overflowed:  # this side's cells to moments too
                self.overflowed = True
                merged, self.merged = self.merged, None
                if merged is not None:
                    self._push_moments(self._moments(merged))
            if not other.pool:
                self.pool, self.moments, self.pending_moments = False, None, []
            elif other.moments is not None:
                self._push_moments(other.moments)
        return self

    def cells(self, table: ScoreTable) -> WeightCells | None:
        """The cells in ``table``'s rows (an exact table of these rows): exact, pooled past the cap
        (``pool``), or None."""
        self._merge()
        if self.overflowed:
            self._merge_moments()
            if not self.pool or self.moments is None:
                return None
            return self.moments.cells(exact_grouper(table)(self.moments.keys[0])[None, :])
        if self.merged is None:
            return None
        m = self.merged
        return count_cells(exact_grouper(table)(m.w[0]), m.y, m.w[1], m.rows)


class JointCellCounter(CellCounter):
    """Weighted aligned rows counted per (every model's table row, class, every model's weight):
    ``add`` · ``merge`` · ``result`` (:class:`~reportgen.engine.intervals.WeightCells`, key j =
    model j).

    Past :data:`~reportgen.engine.intervals.JOINT_EXACT_CELLS` cells the table rows are replaced
    by each model's bins ``luts`` (:func:`~reportgen.engine.approval.joint_cell_luts`: equal-weight
    bins cut at the threshold and at the approval cuts), weights kept distinct; past
    :data:`~reportgen.engine.intervals.MAX_WEIGHT_CELLS`, the rows pooled per (every model's bin,
    class) with their weights' exact moments (:class:`WeightMoments`) when the models share their
    weights, else None. The switch happens as soon as the running count passes the cap, which it does exactly
    when the count over all rows does (a count of distinct cells only grows), and binning is a
    function of the cell, so the result does not depend on chunking or merge order.
    """

    def __init__(self, luts: list[np.ndarray] | None = None) -> None:
        # cells are binned before they can pass the cap, so every engine pools binned codes
        assert JOINT_EXACT_CELLS <= MAX_WEIGHT_CELLS, "the joint binning cap must not exceed the pooling cap"
        super().__init__(pool=True)
        self.luts = luts
        self.binned = False

    @staticmethod
    def _moments(cells: WeightCells) -> WeightMoments | None:
        """Joint cells as moments per (every model's code, class); None unless every model gives
        every row the same weight (one weight column)."""
        if not shared_weights(cells):
            return None
        return WeightMoments.of(cells.codes, cells.y, cells.w[0], cells.rows)

    def add(self, codes: list[np.ndarray], y: np.ndarray, weights: Sequence[np.ndarray | None]) -> None:  # type: ignore[override]
        if y.shape[0] == 0 or (self.overflowed and not self.pool):
            return
        w = np.stack([np.ones(y.shape[0]) if x is None else np.asarray(x, dtype=np.float64) for x in weights])
        c = np.stack([lut[x] for lut, x in zip(self.luts, codes)]) if self.binned else np.stack(codes)  # type: ignore[arg-type]
        if self.overflowed:  # the rows' moments straight away (any order: they are pooled and sorted)
            self._push_moments(self._moments(WeightCells(c, y, w, np.ones(y.shape[0], dtype=np.int64))))
            return
        self._push(count_cells(c, y, w))

    def _bin(self, cells: WeightCells) -> WeightCells:
        assert self.luts is not None
        return count_cells(np.stack([lut[c] for lut, c in zip(self.luts, cells.codes)]), cells.y, cells.w, cells.rows)

    def _shrink(self, merged: WeightCells) -> WeightCells:
        if self.binned or self.luts is None or merged.n_cells <= JOINT_EXACT_CELLS:
            return merged
        self.binned = True
        return self._bin(merged)

    def merge(self, other: JointCellCounter) -> JointCellCounter:  # type: ignore[override]
        """Add the counts of other rows (a Dask part or range), binning whichever side is not yet."""
        other._merge()
        other._merge_moments()
        self._merge()
        if other.overflowed or self.overflowed:  # both sides as moments of binned cells
            sides = [
                (c, b)
                for c, b, over in (
                    (self.merged, self.binned, self.overflowed),
                    (other.merged, other.binned, other.overflowed),
                )
                if not over and c is not None
            ]
            self.pool = self.pool and other.pool
            self.overflowed, self.merged = True, None
            if self.luts is not None:
                self.binned = True
            for cells, binned in sides:
                self._push_moments(self._moments(cells if binned or self.luts is None else self._bin(cells)))
            if other.overflowed and other.moments is not None:
                self._push_moments(other.moments)
            return self
        if other.merged is None:
            return self
        theirs = other.merged
        if other.binned and not self.binned:
            self.binned = True
            if self.merged is not None:
                self.merged = self._bin(self.merged)
        elif self.binned and not other.binned:
            theirs = self._bin(theirs)
        self.pending.append(theirs)
        self._merge()
        return self

    def result(self) -> WeightCells | None:
        self._merge()
        if self.overflowed:
            self._merge_moments()
            if not self.pool or self.moments is None:
                return None
            luts = tuple(self.luts) if self.binned and self.luts is not None else None
            return self.moments.cells(self.moments.keys.astype(np.int64), luts)
        if self.merged is None:
            return None
        if not self.binned:
            return self.merged
        assert self.luts is not None
        return replace(self.merged, luts=tuple(self.luts))


def table_of_cells(table: ScoreTable, cells: WeightCells | None) -> ScoreTable:
    """A weighted model's table with its weight sums taken from its weight cells, in one order for
    every engine; ``table`` itself when unweighted or without cells (past the cap, binned).

    A weight sum depends in its last bits on the order of its additions, and the engines add a
    model's weights in different orders: memory in the order of the compared rows (an id join
    reorders a file), stream batch by batch and dask part by part, merged. The cells (rows per
    (table row, class, weight), :func:`~reportgen.engine.intervals.count_cells`) are the same
    arrays in the same canonical order in every engine (positives first, then by table row, then
    by weight; the counts are integers), so per table row and class

        pos_s = Σ_cells rows_c · w_c   (cells of row s, class 1, by ascending weight),

    added by one ``bincount`` in that order (likewise ``neg`` and ``sum_w2 = Σ rows_c·w_c²``),
    is one number whatever the engine, the chunking or the row order. O(cells), cells ≤ rows.
    """
    if cells is None or not table.weighted:
        return table
    code, y = cells.codes[0], cells.y
    mass = cells.rows * cells.w[0]  # exact for a one-row cell; one rounding per cell otherwise
    n = table.n_distinct
    pos = np.bincount(code[y], weights=mass[y], minlength=n)
    neg = np.bincount(code[~y], weights=mass[~y], minlength=n)
    # pooled cells (past the cap): w is the mean weight, Σw² = rows·(mean² + var)
    sum_w2 = float(np.sum(mass * cells.w[0] if cells.var is None else cells.rows * (cells.w[0] ** 2 + cells.var)))
    return ScoreTable(table.thresholds, pos, neg, table.direction, sum_w2, table.n_rows, True)


def capped(cells: WeightCells) -> WeightCells | None:
    """``cells``, or None past :data:`~reportgen.engine.intervals.MAX_WEIGHT_CELLS` (as the counters)."""
    return None if cells.n_cells > MAX_WEIGHT_CELLS else cells


@dataclass(slots=True, repr=False, eq=False)
class TableAccumulator(Shown):
    """Exact score table of every chunk added so far (until the distinct scores pass ``cap``).

    ``add`` takes one chunk (scores, booleans, optional weights); ``table()`` returns the
    merged table. Once the merged table has more than ``cap`` distinct scores, ``overflowed``
    is set and further chunks are ignored (the caller switches to binning).

    Unweighted decimal scores are counted in a :class:`DenseCounts` (one ``bincount`` per
    chunk); chunks it cannot take (more decimals, a range too wide, weights) turn its counts
    into a table and continue with tables of chunks, merged every :data:`MERGE_EVERY` chunks.
    """

    direction: Direction = "higher"
    cap: int | None = None
    overflowed: bool = False
    _merged: ScoreTable | None = None
    _pending: list[ScoreTable] = field(default_factory=list)
    _dense: DenseCounts | None = None
    _dense_ok: bool = True  # whether a dense accumulator may still be used
    _last_dense: bool = False  # whether the last chunk was counted by the dense accumulator
    #: weighted rows per (score, class, weight) (:class:`CellCounter`), None for unweighted rows
    weight_cells: CellCounter | None = None
    #: unweighted rows: the table of every row so far, kept at the moment the cap was passed
    #: (:meth:`take_spilled`), so a sample of the rows for bin edges can start from it
    _spilled: ScoreTable | None = None

    def add(self, scores: np.ndarray, y: np.ndarray, weights: np.ndarray | None = None) -> None:
        self._last_dense = False
        if self.overflowed or scores.shape[0] == 0:
            return
        if weights is not None:
            if self.weight_cells is None:
                self.weight_cells = CellCounter(pool=True)
            self.weight_cells.add(scores, y, np.asarray(weights, dtype=np.float64))
        if self._dense_ok and weights is None:
            scores = np.asarray(scores, dtype=np.float64)
            if self._dense is None and self._merged is None and not self._pending:
                self._dense = DenseCounts.start(scores)
            if self._dense is not None and self._dense.add(scores, y):
                self._last_dense = True
                if self.cap is not None and self._dense.span > self.cap and self._dense.n_distinct() > self.cap:
                    self._spill(self._dense.table(self.direction))
                    self.overflowed, self._dense = True, None
                return
        self._leave_dense()
        t = build_table(scores, y, weights, self.direction)
        if self.cap is not None and t.n_distinct > self.cap:
            if self.weight_cells is None:
                self._spill(merge_tables(*([self._merged] if self._merged is not None else []), *self._pending, t))
            self.overflowed, self._merged, self._pending = True, None, []
            return
        self._pending.append(t)
        pending = sum(p.n_distinct for p in self._pending)
        if len(self._pending) >= MERGE_EVERY or (self.cap is not None and pending > self.cap):
            self._merge()

    def _spill(self, table: ScoreTable) -> None:
        if self.weight_cells is None:  # rows are counts only unweighted
            self._spilled = table

    def take_spilled(self) -> ScoreTable | None:
        """Once, after the cap was passed: the table of every unweighted row added until then
        (their scores with their row counts), else None."""
        out, self._spilled = self._spilled, None
        return out

    def chunk_scores(self) -> np.ndarray | None:
        """The last chunk's scores as integers ``q = score·scale`` when it was counted densely."""
        return self._dense.last if self._last_dense and self._dense is not None else None

    def row_lookup(self) -> tuple[int, Callable[[np.ndarray], np.ndarray]] | None:
        """:meth:`DenseCounts.row_lookup` of the table, when every chunk was counted densely."""
        if self._dense is None or self.overflowed or self._merged is not None or self._pending:
            return None
        return self._dense.row_lookup(self.direction)

    def _leave_dense(self) -> None:
        """From now on tables of chunks: the dense counts become the first of them."""
        self._dense_ok = False
        if self._dense is not None:
            if self._dense.n_rows:
                self._pending.insert(0, self._dense.table(self.direction))
            self._dense = None

    def add_table(self, table: ScoreTable) -> None:
        if not self.overflowed:
            self._leave_dense()
            self._pending.append(table)
            self._merge()

    def _merge(self) -> None:
        parts = ([self._merged] if self._merged is not None else []) + self._pending
        self._pending = []
        if not parts:
            return
        merged = merge_tables(*parts) if len(parts) > 1 else parts[0]
        if self.cap is not None and merged.n_distinct > self.cap:
            self._spill(merged)
            self.overflowed = True
            self._merged = None
            return
        self._merged = merged

    def table(self) -> ScoreTable | None:
        """The merged table, or None when nothing was added or the cap was passed."""
        if self._dense is not None:
            if self.overflowed or not self._dense.n_rows:
                return None
            return self._dense.table(self.direction)
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


class EdgeSearch:
    """``np.searchsorted(asc, x, side="right")`` for millions of ``x``, through a uniform grid.

    A uniform grid over the edges' range (64 cells per edge, 2^22 at most: 16 MB of int32)
    stores, per cell, the answer at the cell's lower end, which is each value's answer unless
    an edge lies between the cell's start and the value. Every answer is checked against its
    neighbouring edges and the wrong ones (a few per cent; 15 % with 8 cells per edge on
    100,000 quantile edges of skewed scores) found by binary search, so rounding in the grid
    arithmetic costs time, never exactness. About six times faster than a binary search per value.
    """

    def __init__(self, asc: np.ndarray) -> None:
        self.asc = np.ascontiguousarray(asc, dtype=np.float64)
        n = self.asc.shape[0]
        self.padded = np.concatenate([[-np.inf], self.asc, [np.inf]])  # padded[i] = asc[i − 1]
        self.cells = 0
        if n >= 2:
            lo, hi = float(self.asc[0]), float(self.asc[-1])
            cells = min(1 << 22, 64 * n)
            scale = cells / (hi - lo) if hi > lo else math.inf
            if 0.0 < scale < math.inf and math.isfinite(lo):
                self.lo, self.scale, self.cells = lo, scale, cells
                start = np.searchsorted(self.asc, lo + np.arange(cells) / scale, side="right")
                self.start = start.astype(np.int32) if n < 2**31 else start  # half the cache lines

    def __call__(self, x: np.ndarray) -> np.ndarray:
        x = np.asarray(x, dtype=np.float64)
        asc = self.asc
        if not self.cells or x.shape[0] < 4096:
            return np.searchsorted(asc, x, side="right")
        with np.errstate(over="ignore", invalid="ignore"):
            c = np.subtract(x, self.lo)
            c *= self.scale
        np.floor(c, out=c)
        np.clip(c, 0, self.cells - 1, out=c)
        res = self.start[c.astype(np.intp)]
        del c
        # right when the edge below the answer is <= x and the edge at it is > x (padded with
        # ∓inf: none below 0, none at n); the rest (values past an edge inside their cell, or
        # rounded into a neighbouring cell) by a binary search each
        wrong = self.padded[res] > x
        res += 1
        wrong |= self.padded[res] <= x
        res -= 1
        idx = np.flatnonzero(wrong)
        if idx.shape[0]:
            res[idx] = np.searchsorted(asc, x[idx], side="right")
        return res


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


def sorted_quantiles(s: np.ndarray, q: np.ndarray, counts: np.ndarray | None = None) -> np.ndarray:
    """``np.quantile(s, q)`` (method ``linear``, same bits) of an ascending array ``s``.

    numpy finds each quantile by a partition with every requested index as a pivot, which at
    10^5 quantiles of a 240,000-value sample takes about 40 s; on sorted values each is two
    look-ups and numpy's own interpolation (``a + (b − a)·t``, or ``b − (b − a)·(1 − t)`` for
    t ≥ ½). With ``counts``, ``s[i]`` stands for ``counts[i]`` equal values: the quantiles of
    the repeated values, each order statistic found by a search in the cumulative counts.
    """
    n = s.shape[0] if counts is None else int(np.sum(counts))
    virtual = np.asarray(q, dtype=np.float64) * (n - 1)
    lo = np.minimum(np.floor(virtual).astype(np.intp), n - 1)
    hi = np.minimum(lo + 1, n - 1)
    t = virtual - lo
    if counts is not None:
        cum = np.cumsum(np.asarray(counts, dtype=np.int64))
        lo, hi = np.searchsorted(cum, lo, side="right"), np.searchsorted(cum, hi, side="right")
    a, b = s[lo], s[hi]
    diff = b - a
    out = a + diff * t
    upper = t >= 0.5
    out[upper] = (b - diff * (1.0 - t))[upper]
    return out


def bin_edges(
    sample: np.ndarray | ScoreSample, bins: int, method: str = "quantile", cuts: tuple[float, ...] = ()
) -> np.ndarray:
    """Lower edges of the bins in oriented units, descending, ``bins − 1`` of them at most.

    Bin 0 holds oriented scores ≥ edges[0], bin j scores in [edges[j], edges[j − 1]), the last
    bin everything below the last edge. ``quantile``: edges at equal shares of ``sample``
    (duplicates removed, so heavy ties give fewer bins); ``fixed``: equal width between the
    sample's minimum and maximum. ``sample``: scores, or a :class:`ScoreSample` (its distinct
    scores, each counted with its rows). ``cuts`` (oriented, finite) are edges too, in place of as
    many quantile or equal-width edges: the model's decision threshold, so no bin straddles it
    and the binned table's counts at it are the raw rows' (a bin holding scores on both sides
    counted them all on one side: a streamed model binned past the cap reported accuracy, F1,
    McNemar's table … at the bin's lowest score, not at the threshold memory applies).
    """
    if bins < 2:
        raise ValueError("bins must be at least 2")
    counts = None
    if isinstance(sample, ScoreSample):
        order = np.argsort(sample.values, kind="stable")
        s, counts = sample.values[order], sample.counts[order]
    else:
        s = np.sort(np.asarray(sample, dtype=np.float64))
    cut = np.unique(np.asarray([c for c in cuts if math.isfinite(c)], dtype=np.float64) + 0.0)[: bins - 1]
    if s.size == 0:
        return cut[::-1].copy()
    k = bins - cut.shape[0]  # the bins the sample's edges cut
    if method == "quantile":
        qs = sorted_quantiles(s, np.linspace(0.0, 1.0, k + 1)[1:-1], counts)
    elif method == "fixed":
        qs = np.linspace(float(s.min()), float(s.max()), k + 1)[1:-1]
    else:
        raise ValueError(f"unknown binning method {method!r}")
    return np.unique(np.concatenate([qs, cut]))[::-1].copy()


#: splitmix64's constants (Steele, Lea & Flood 2014, "Fast splittable pseudorandom number generators").
_GOLDEN, _MIX1, _MIX2 = np.uint64(0x9E3779B97F4A7C15), np.uint64(0xBF58476D1CE4E5B9), np.uint64(0x94D049BB133111EB)


def score_hash(values: np.ndarray, seed: int) -> np.ndarray:
    """A seeded 64-bit hash of each score (splitmix64's finaliser of its bits): equal scores,
    ±0 included, hash alike; a function of the value and the seed only."""
    bits = (np.ascontiguousarray(values, dtype=np.float64) + 0.0).view(np.uint64)
    x = (bits ^ np.uint64(seed)) + _GOLDEN
    x = (x ^ (x >> np.uint64(30))) * _MIX1
    x = (x ^ (x >> np.uint64(27))) * _MIX2
    return x ^ (x >> np.uint64(31))


@dataclass(slots=True, repr=False, eq=False)
class ScoreSample(Shown):
    """A model's sample of (oriented) scores for the bin edges that is a function of its scores
    alone: the ``size`` distinct scores of smallest seeded hash (:func:`score_hash`, a bottom-k
    sketch), each with the number of rows that hold it.

    ``add`` · ``merge`` in any grouping give the same sample: a score among the k smallest
    hashes of all rows is among the k smallest of every subset holding it, so every batch or
    part keeps it with its full count. A sample drawn per batch (or per Dask part) with a
    generator depended on the batching, so stream and dask binned one model with different edges.
    Sampling distinct scores with their rows keeps quantiles of the rows (each distinct score is
    in with equal probability, and counts as its rows).
    """

    size: int
    seed: int
    values: np.ndarray = field(default_factory=lambda: np.zeros(0))
    hashes: np.ndarray = field(default_factory=lambda: np.zeros(0, dtype=np.uint64))
    counts: np.ndarray = field(default_factory=lambda: np.zeros(0, dtype=np.int64))

    def add(self, scores: np.ndarray) -> None:
        """A chunk of rows' scores."""
        self._add(np.ascontiguousarray(scores, dtype=np.float64) + 0.0, None)

    def _limit(self, h: np.ndarray) -> np.uint64 | None:
        """The largest hash a row of this chunk (hashes ``h``) may have and still be in the
        sample after it, or None (every row may). A full sample admits nothing above its largest
        hash; a chunk of many rows nothing above the ``size``-th smallest of its own distinct
        hashes (that many distinct scores hash lower), found by a partition — so the sort in
        :meth:`_fold` sees about ``size`` rows, not the chunk's millions (a 10^6-row batch:
        0.5 s a model before)."""
        limit = self.hashes[-1] if self.values.shape[0] >= self.size else None
        n, m = h.shape[0], self.size
        while 2 * m < n:
            t = np.partition(h, m - 1)[m - 1]  # the m-th smallest row hash: ≥ m rows at or below it
            if np.unique(h[h <= t]).shape[0] >= self.size:  # and that many distinct scores
                return t if limit is None else min(limit, t)
            m *= 4  # ties: more rows than scores at or below t
        return limit

    def add_counts(self, values: np.ndarray, counts: np.ndarray) -> None:
        """Rows given as distinct scores with their numbers of rows (a table's): the same sample
        as adding those rows one by one."""
        c = np.rint(np.asarray(counts, dtype=np.float64)).astype(np.int64)
        self._add((np.ascontiguousarray(values, dtype=np.float64) + 0.0)[c > 0], c[c > 0])

    def _add(self, v: np.ndarray, c: np.ndarray | None) -> None:
        """Scores ``v`` (each ``c`` rows; None: one) folded in, past the chunk's own bound."""
        if v.shape[0] == 0:
            return
        h = score_hash(v, self.seed)
        limit = self._limit(h)
        if limit is not None:
            keep = h <= limit
            v, h, c = v[keep], h[keep], None if c is None else c[keep]
        self._fold(v, h, np.ones(v.shape[0], dtype=np.int64) if c is None else c)

    def merge(self, other: ScoreSample) -> ScoreSample:
        """The sample of both row sets (the other's rows disjoint from these)."""
        self._fold(other.values, other.hashes, other.counts)
        return self

    def _fold(self, v: np.ndarray, h: np.ndarray, c: np.ndarray) -> None:
        if v.shape[0] == 0:
            return
        v, h, c = (np.concatenate([self.values, v]), np.concatenate([self.hashes, h]), np.concatenate([self.counts, c]))
        order = np.argsort(h, kind="stable")  # by hash: equal scores hash alike, so they end up together
        v, h, c = v[order], h[order], c[order]
        starts = np.empty(v.shape[0], dtype=bool)
        starts[0] = True
        np.not_equal(v[1:], v[:-1], out=starts[1:])
        if np.any(starts[1:] & (h[1:] == h[:-1])):  # two scores share a hash (rare): by hash, then score
            order = np.lexsort((v, h))
            v, h, c = v[order], h[order], c[order]
            np.not_equal(v[1:], v[:-1], out=starts[1:])
        idx = np.flatnonzero(starts)
        self.counts = np.add.reduceat(c, idx)[: self.size]
        idx = idx[: self.size]
        self.values, self.hashes = v[idx], h[idx]


@dataclass(slots=True, repr=False, eq=False)
class BinnedAccumulator(Shown):
    """Per-bin positive and negative weight and the lowest oriented score seen in each bin.

    Weighted rows are also counted per (bin, class, weight) (:class:`CellCounter`, the bin as its
    score key): the table's weight sums are then taken from those cells in their canonical order
    (:meth:`table`, as :func:`table_of_cells` does for an exact table), so stream batches and
    Dask parts give the same sums to the bit. A bin's weight summed chunk by chunk depends in its
    last bits on the chunking (found by fuzzing: a binned weighted model's accuracy differed in
    its 16th digit between stream and dask). Past
    :data:`~reportgen.engine.intervals.MAX_WEIGHT_CELLS` cells the chunk sums stand."""

    edges: np.ndarray  # descending lower edges (oriented units)
    direction: Direction = "higher"
    pos: np.ndarray = field(init=False)
    neg: np.ndarray = field(init=False)
    low: np.ndarray = field(init=False)
    #: the highest oriented score seen (the bins keep their lowest only)
    high: float = -math.inf
    sum_w2: float = 0.0
    n_rows: int = 0
    weighted: bool = False
    #: weighted rows per (bin, class, weight); ``weighted_rows`` of the ``n_rows`` were weighted
    cells: CellCounter | None = None
    weighted_rows: int = 0
    _search: EdgeSearch | None = field(default=None, init=False, repr=False)

    def __post_init__(self) -> None:
        k = self.edges.shape[0] + 1
        self.pos = np.zeros(k)
        self.neg = np.zeros(k)
        self.low = np.full(k, np.inf)

    def bin_of(self, o: np.ndarray) -> np.ndarray:
        """Bin index (0 = most positive) of each oriented score.

        The search is built on first use (two threads may both build it: either is the same)."""
        if self._search is None:
            self._search = EdgeSearch(self.edges[::-1])
        return self.edges.shape[0] - self._search(o)

    def add(self, scores: np.ndarray, y: np.ndarray, weights: np.ndarray | None = None) -> None:
        if scores.shape[0] == 0:
            return
        o = oriented(np.asarray(scores, dtype=np.float64), self.direction)
        k = self.pos.shape[0]
        y = np.asarray(y, dtype=bool)
        asc_edges = self.edges[::-1].copy()
        sum_w2 = float(o.shape[0])
        if weights is None:  # value sorts of each class: bins by a walk, lowest score per bin for free
            for cls, counts in ((True, self.pos), (False, self.neg)):
                v = np.sort(o[y == cls])
                b = self.edges.shape[0] - np.searchsorted(asc_edges, v, side="right")
                counts += np.bincount(b, minlength=k)
                if v.shape[0]:  # b is non-increasing along v: each run starts at its bin's lowest score
                    first = np.flatnonzero(np.concatenate([[True], b[1:] != b[:-1]]))
                    np.minimum.at(self.low, b[first], v[first])
                    self.high = max(self.high, float(v[-1]))
        else:
            b = self.bin_of(o)
            w = np.asarray(weights, dtype=np.float64)
            self.pos += np.bincount(b[y], weights=w[y], minlength=k)
            self.neg += np.bincount(b[~y], weights=w[~y], minlength=k)
            np.minimum.at(self.low, b, o)
            self.high = max(self.high, float(o.max()))
            if self.cells is None:
                self.cells = CellCounter()
            self.cells.add(b.astype(np.float64), y, w)
            self.weighted_rows += int(o.shape[0])
            sum_w2 = float(np.dot(w, w))
        self.sum_w2 += sum_w2
        self.n_rows += int(o.shape[0])
        self.weighted = self.weighted or weights is not None

    def add_rows(self, scores: np.ndarray, y: np.ndarray) -> np.ndarray:
        """:meth:`add` for unweighted rows, returning each row's bin (int32, 0 = most positive)."""
        binned = self.bin_rows(scores, y)
        self.fold_rows(binned)
        return binned[0]

    def bin_rows(self, scores: np.ndarray, y: np.ndarray) -> tuple[np.ndarray, np.ndarray, np.ndarray, float]:
        """The work of :meth:`add_rows` on one chunk, without adding it: (each row's bin (int32),
        counts of negatives at 2b and positives at 2b + 1, lowest oriented score per bin, the
        highest oriented score).

        Reads only the edges, so chunks may be binned in threads; :meth:`fold_rows` adds them.
        """
        o = oriented(np.asarray(scores, dtype=np.float64), self.direction)
        k = self.pos.shape[0]
        b = self.bin_of(o).astype(np.int32, copy=False)
        code = b << 1
        code += np.asarray(y, dtype=bool)
        counts = np.bincount(code, minlength=2 * k)
        del code
        low = np.full(k, np.inf)
        np.minimum.at(low, b, o)
        return b, counts, low, float(o.max()) if o.shape[0] else -math.inf

    def fold_rows(self, binned: tuple[np.ndarray, np.ndarray, np.ndarray, float]) -> None:
        """Add a chunk binned by :meth:`bin_rows` (counts are whole numbers, the lowest score a
        minimum: the same table in any order)."""
        b, counts, low, high = binned
        self.neg += counts[0::2]
        self.pos += counts[1::2]
        np.minimum(self.low, low, out=self.low)
        self.high = max(self.high, high)
        self.sum_w2 += float(b.shape[0])
        self.n_rows += int(b.shape[0])

    def row_of_bin(self) -> np.ndarray:
        """Row of :meth:`table` of each bin (−1 for an empty bin)."""
        used = ((self.pos + self.neg) > 0) & np.isfinite(self.low)
        return np.where(used, np.cumsum(used) - 1, -1).astype(np.int32)

    def add_table(self, table: ScoreTable) -> None:
        """Fold an exact table in (its distinct scores stand for their rows)."""
        o = table.oriented()
        b = self.bin_of(o)
        k = self.pos.shape[0]
        self.pos += np.bincount(b, weights=table.pos, minlength=k)
        self.neg += np.bincount(b, weights=table.neg, minlength=k)
        np.minimum.at(self.low, b, o)
        if o.shape[0]:
            self.high = max(self.high, float(o.max()))
        self.sum_w2 += table.sum_w2
        self.n_rows += table.n_rows
        self.weighted = self.weighted or table.weighted

    def score_range(self) -> tuple[float, float] | None:
        """(lowest, highest) raw score of the rows added (None: none): a binned table's
        thresholds are its bins' lowest scores, so one end of the range is not among them."""
        seen = np.isfinite(self.low)
        if not seen.any():
            return None
        lo, hi = float(self.low[seen].min()), self.high
        return (lo, hi) if self.direction == "higher" else (-hi, -lo)

    def grouper(self) -> Callable[[np.ndarray], np.ndarray]:
        """Raw score → row of :meth:`table` (for a second pass over the rows)."""
        used = ((self.pos + self.neg) > 0) & np.isfinite(self.low)
        row = np.cumsum(used) - 1

        def group(scores: np.ndarray) -> np.ndarray:
            return row[self.bin_of(oriented(np.asarray(scores, dtype=np.float64), self.direction))]

        return group

    def canonical_sums(self) -> tuple[np.ndarray, np.ndarray, float]:
        """(pos, neg, sum_w2): when every row was weighted and the cells were kept, the sums of
        the cells in their canonical order (``Σ rows·w`` per bin and class, ``Σ rows·w²``);
        otherwise the running sums."""
        cells = None
        if self.cells is not None and self.weighted_rows == self.n_rows:
            self.cells._merge()
            cells = None if self.cells.overflowed else self.cells.merged
        if cells is None:
            return self.pos, self.neg, self.sum_w2
        b, y, w = cells.w[0].astype(np.int64), cells.y, cells.w[1]
        mass = cells.rows * w
        k = self.pos.shape[0]
        return (
            np.bincount(b[y], weights=mass[y], minlength=k),
            np.bincount(b[~y], weights=mass[~y], minlength=k),
            float(np.sum(mass * w)),
        )

    def table_cells(self) -> WeightCells | None:
        """The weighted rows per (row of :meth:`table`, class, weight), in canonical order, when
        every row was weighted and the cells were kept (else None): a binned weighted model's
        bootstrap and its confusion counts in rows, as an exact table's cells give them."""
        if self.cells is None or self.weighted_rows != self.n_rows:
            return None
        self.cells._merge()
        m = None if self.cells.overflowed else self.cells.merged
        if m is None:
            return None
        return count_cells(self.row_of_bin()[m.w[0].astype(np.int64)], m.y, m.w[1], m.rows)

    def table(self) -> ScoreTable:
        """The binned table: one row per non-empty bin, threshold = the lowest score in it."""
        used = (self.pos + self.neg) > 0
        used &= np.isfinite(self.low)
        thr = self.low[used]
        pos, neg, sum_w2 = self.canonical_sums()
        return ScoreTable(
            thr if self.direction == "higher" else -thr,
            pos[used].copy(),
            neg[used].copy(),
            self.direction,
            sum_w2,
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
        out.high = max(out.high, p.high)
        out.sum_w2 += p.sum_w2
        out.n_rows += p.n_rows
        out.weighted = out.weighted or p.weighted
        out.weighted_rows += p.weighted_rows
        if p.cells is not None:
            out.cells = p.cells if out.cells is None else out.cells.merge(p.cells)
    return out


@dataclass(slots=True, repr=False, eq=False)
class PairedAccumulator(Shown):
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
    #: configured approval rates (``approval_rates``), counted besides each model's own rate
    approval_rates: tuple[float, ...] = ()
    c10: np.ndarray = field(init=False)
    c01: np.ndarray = field(init=False)
    agree: np.ndarray = field(init=False)  # [a, b, 2, 2] counts: a correct?, b correct?
    #: rows per pattern ``y + 2·Σ_i right_i·2^i`` (truth and every model's decision together),
    #: for the paired bootstrap of threshold metrics; None above 15 models
    joint: np.ndarray | None = field(init=False)
    #: rows by (class, bin of a, bin of b) for every pair of models (≤ MAX_PAIR_MODELS models),
    #: for the paired bootstrap of ranking-metric differences (:mod:`reportgen.engine.intervals`)
    pair_tables: PairTableAccumulator | None = field(init=False)
    #: rows per pattern of truth and approvals at each target approval rate, for the comparison
    #: at equal approval rate (:mod:`reportgen.engine.approval`); None above MAX_APPROVAL_MODELS
    approval: ApprovalCounter | None = field(init=False)
    _v10: list[np.ndarray] = field(init=False)
    _v01: list[np.ndarray] = field(init=False)
    _auc: list[float] = field(init=False)

    def __post_init__(self) -> None:
        k = len(self.tables)
        self.c10 = np.zeros((k, k))
        self.c01 = np.zeros((k, k))
        self.agree = np.zeros((k, k, 2, 2))
        self.joint = np.zeros(1 << (k + 1)) if k <= MAX_PATTERN_MODELS else None
        self.pair_tables = PairTableAccumulator(self.tables, self.cuts) if 2 <= k <= MAX_PAIR_MODELS else None
        self.approval = (
            ApprovalCounter(self.tables, self.cuts, tuple(self.approval_rates))
            if 2 <= k <= MAX_APPROVAL_MODELS
            else None
        )
        self._v10, self._v01, self._auc = [], [], []
        for t in self.tables:
            v10, v01 = placements(t)
            auc = float(np.dot(t.pos, v10) / t.total_pos)
            self._v10.append(v10 - auc)  # deviations from the AUC, per distinct score
            self._v01.append(v01 - auc)
            self._auc.append(auc)

    def add(self, scores: list[np.ndarray], y: np.ndarray) -> None:
        """One chunk of aligned rows: each model's raw scores and the shared truth."""
        groupers = self.groupers or [exact_grouper(t) for t in self.tables]
        rows = [group(s) for group, s in zip(groupers, scores)]
        # decided by table row, the rule behind each model's reported counts: for a binned model
        # a bin that straddles the threshold is one side of it as a whole
        correct = [(r < t.cut_index(cut)) == y for r, t, cut in zip(rows, self.tables, self.cuts)]
        self.add_rows(rows, correct, y)

    def add_rows(
        self, rows: list[np.ndarray], correct: list[np.ndarray], y: np.ndarray, counts: np.ndarray | None = None
    ) -> None:
        """One chunk given each model's table row and whether its decision was right, per row
        (``counts``: how many rows each stands for, see :meth:`moments`)."""
        self.add_moments(self.moments(rows, correct, y, counts))

    def moments(
        self, rows: list[np.ndarray], correct: list[np.ndarray], y: np.ndarray, counts: np.ndarray | None = None
    ) -> tuple:
        """One chunk's terms of :meth:`add_rows`, not yet added: (c10, c01, agree, joint, pair
        tables, approval patterns).

        DeLong: the placement deviations of the positives (and of the negatives) stacked into
        a k × rows matrix whose Gram matrix is the chunk's cross-moment sum. McNemar: each
        row's pattern of right and wrong decisions as a k-bit code; one ``bincount`` of the
        codes gives every pair's 2×2 table (whole numbers, exact in any order). Reads only the
        tables' placements, so chunks may be computed in threads; :meth:`add_moments` adds them.

        ``counts``: shape (rows,), whole numbers ≥ 0, each row's multiplicity (frequency
        weights: a row of weight w is w identical rows; the tables are then the tables of the
        repeated rows, :func:`frequency_table`). Every term is that of the repeated rows: the
        Gram matrices become Σ_r w_r·a_r·a_rᵀ (equal to the repeated rows' sums up to the order
        of float additions) and every count a ``bincount`` weighted by ``counts`` (whole
        numbers below 2^53: exact). Rows of multiplicity 0 count nothing.
        """
        y = np.asarray(y, dtype=bool)
        if counts is not None:
            counts = np.asarray(counts, dtype=np.float64)
            rows = [np.where(counts > 0, r, 0) for r in rows]  # a row of weight 0 need not be in a table
        pairs = None if self.pair_tables is None else self.pair_tables.moments(rows, y, counts)
        approval = None if self.approval is None else self.approval.moments(rows, y, counts)
        pos = np.flatnonzero(y)
        neg = np.flatnonzero(~y)
        A10 = np.empty((len(rows), pos.shape[0]))
        A01 = np.empty((len(rows), neg.shape[0]))
        for i, (g, v10, v01) in enumerate(zip(rows, self._v10, self._v01)):
            np.take(v10, g[pos], out=A10[i])
            np.take(v01, g[neg], out=A01[i])
        if counts is None:
            c10 = A10 @ A10.T
            c01 = A01 @ A01.T
        else:
            c10 = (A10 * counts[pos]) @ A10.T
            c01 = (A01 * counts[neg]) @ A01.T
        del A10, A01
        k = len(correct)
        agree = np.empty((k, k, 2, 2))
        joint = None
        if k <= 16:
            code = np.zeros(y.shape[0], dtype=np.uint16)
            for i, c in enumerate(correct):
                code |= np.asarray(c, dtype=np.uint16) << i
            hist = np.bincount(code, weights=counts, minlength=1 << k).astype(np.float64)
            if self.joint is not None:
                code <<= 1
                code |= y
                joint = np.bincount(code, weights=counts, minlength=1 << (k + 1)).astype(np.float64)
            bits = (np.arange(1 << k)[:, None] >> np.arange(k)[None, :]) & 1  # (patterns, k): 1 = right
            right = bits.T.astype(np.float64)  # (k, patterns)
            wrong = 1.0 - right
            for ia, A in enumerate((right, wrong)):
                for ib, B in enumerate((right, wrong)):
                    agree[:, :, ia, ib] = (A * hist) @ B.T
            return c10, c01, agree, joint, pairs, approval
        C = np.vstack(correct).astype(np.float64)
        W = 1.0 - C
        Cw, Ww = (C, W) if counts is None else (C * counts, W * counts)
        agree[:, :, 0, 0] = Cw @ C.T
        agree[:, :, 0, 1] = Cw @ W.T
        agree[:, :, 1, 0] = Ww @ C.T
        agree[:, :, 1, 1] = Ww @ W.T
        return c10, c01, agree, joint, pairs, approval

    def add_moments(self, part: tuple) -> None:
        """Add one chunk's :meth:`moments` (chunks in their order: the float sums are then
        added in the same order however the chunks were computed)."""
        c10, c01, agree, joint, *rest = part
        if rest and rest[0] is not None and self.pair_tables is not None:
            self.pair_tables.add_moments(rest[0])
        if len(rest) > 1 and rest[1] is not None and self.approval is not None:
            self.approval.add_moments(rest[1])
        self.c10 += c10
        self.c01 += c01
        self.agree += agree
        if joint is not None and self.joint is not None:
            self.joint += joint

    def merge(self, other: PairedAccumulator) -> None:
        """Add another accumulator of the same models over other rows (a Dask part)."""
        pairs = None if other.pair_tables is None else other.pair_tables.counts
        approval = None if other.approval is None else other.approval.counts
        self.add_moments((other.c10, other.c01, other.agree, other.joint, pairs, approval))

    def covariance(self) -> np.ndarray:
        """DeLong's covariance matrix of the models' AUCs: S10/m + S01/n."""
        m = self.tables[0].total_pos
        n = self.tables[0].total_neg
        return self.c10 / (m - 1) / m + self.c01 / (n - 1) / n


def frequency_table(table: ScoreTable, name: str) -> tuple[ScoreTable, np.ndarray | None]:
    """A weighted table read as frequency weights: (the table of the repeated rows, row map).

    A row of weight w stands for w identical rows (``weight_kind: frequency``), so the table of
    the repeated rows has the weight sums as counts, ``n_rows`` and ``sum_w2`` the total weight,
    is unweighted, and has no score whose rows all weigh 0 (repeated 0 times, they are not
    there) — the table the in-memory engine builds from the repeated rows, exactly. DeLong, the
    paired pass and the table bootstrap then apply as to the repeated rows.

    The row map (shape (table rows,), int64) takes a row of ``table`` to its row of the result
    (0 for a dropped score: only rows of weight 0 have it); None when nothing was dropped. An
    unweighted table is returned as it is. The weight sums must be whole numbers (each row's
    weight is checked where the rows are read; this is the check a table alone allows).
    """
    if not table.weighted:
        return table, None
    counts = np.concatenate([table.pos, table.neg])
    if not np.all(counts == np.round(counts)):
        raise InputError(
            f"model '{name}': weight: weight_kind: frequency needs whole-number weights; the weights of "
            f"some scores do not add up to whole numbers (use weight_kind: sampling)"
        )
    total = float(counts.sum())
    there = (table.pos + table.neg) > 0
    if there.all():
        return ScoreTable(table.thresholds, table.pos, table.neg, table.direction, total, int(total), False), None
    row_map = np.maximum(np.cumsum(there) - 1, 0).astype(np.int64)
    return ScoreTable(
        table.thresholds[there], table.pos[there], table.neg[there], table.direction, total, int(total), False
    ), row_map


def check_same_repeats(
    names: list[str], files: list[str], weights: list[np.ndarray | None], rows: np.ndarray | None
) -> None:
    """Frequency weights of aligned rows: a row is one row in every model, so it must be repeated
    alike — every model's weight of it equal (each model's weights in the common row order; None:
    unweighted, 1). Else an error naming both files and the first model's file row (``rows``: its
    0-based file positions), worded alike in every engine and shaped as the other row messages
    (``file: model 'a': row N``), so a query's rows are renumbered from 1 (:func:`reportgen.io.sql.query_rows`)."""
    w0 = np.ones(0) if weights[0] is None else np.asarray(weights[0], dtype=np.float64)
    for j, w in enumerate(weights[1:], start=1):
        a = np.ones_like(w) if weights[0] is None and w is not None else w0
        b = np.ones_like(a) if w is None else np.asarray(w, dtype=np.float64)
        if a.shape != b.shape or np.array_equal(a, b):
            continue
        i = int(np.flatnonzero(a != b)[0])
        row = i if rows is None else int(rows[i])
        other = "" if files[j] == files[0] else f" ({files[j]})"
        raise InputError(
            f"{files[0]}: model '{names[0]}': row {row + HEADER_ROWS} weighs {a[i]:g} and the same row of model "
            f"'{names[j]}'{other} weighs {b[i]:g}; weight_kind: frequency repeats each row by its weight, so every "
            f"model must weigh a row alike: fix the weights (or use weight_kind: sampling)"
        )


def integer_weights(w: np.ndarray | None) -> bool:
    """Whether weights are whole numbers (frequency weights McNemar's table can count); None = unweighted."""
    return w is None or bool(np.all(w == np.round(w)))


@dataclass(repr=False, eq=False)
class AgreementAccumulator(Shown):
    """McNemar's tables of weighted aligned rows, chunk by chunk: ``agree`` in weighted counts
    (shape (k, k, 2, 2), index 0 = right, ``agree[a, b]`` weighted by model a's weights) and
    ``rows`` in rows (what a test under sampling weights counts;
    frequency weights count as repeated rows, which needs every weight whole: ``integer``).

    The rows are counted per (pattern of every model being right, weight) for each model's weights
    (:func:`weight_cells`, pattern ``Σ_i right_i·2^i``), and the tables summed from those cells in
    their canonical order (:func:`cell_sums`): a weighted table summed chunk by chunk
    (``bincount`` per batch, batches added) differed in its last bits between the in-memory
    engine, stream batches and Dask parts; the cells are the same whatever the chunking.

    DeLong's covariance and the pattern counts are counts of unweighted rows, so weighted rows
    give only these tables."""

    k: int
    integer: bool = True
    #: the rows per (every model's table row, class, weights), when the caller counts them
    cells: JointCellCounter | None = None
    #: per model a: (pattern keys, model a's weights, rows) of the rows seen, canonical
    patterns: list = field(init=False)

    def __post_init__(self) -> None:
        self.patterns = [None] * self.k

    def add(self, correct: list[np.ndarray], weights: Sequence[np.ndarray | None]) -> None:
        self.integer = self.integer and all(integer_weights(w) for w in weights)
        n = correct[0].shape[0] if correct else 0
        pattern = np.zeros(n, dtype=np.int64)
        for i, r in enumerate(correct):
            pattern |= np.asarray(r, dtype=np.int64) << i
        for a in range(self.k):
            w = np.ones(n) if weights[a] is None else np.asarray(weights[a], dtype=np.float64)
            self._push(a, weight_cells([pattern], w))

    def _push(self, a: int, cells: tuple) -> None:
        mine = self.patterns[a]
        self.patterns[a] = (
            cells
            if mine is None
            else weight_cells(
                [np.concatenate([mine[0][0], cells[0][0]])],
                np.concatenate([mine[1], cells[1]]),
                np.concatenate([mine[2], cells[2]]),
            )
        )

    def merge(self, other: AgreementAccumulator) -> AgreementAccumulator:
        self.integer = self.integer and other.integer
        for a, cells in enumerate(other.patterns):
            if cells is not None:
                self._push(a, cells)
        if self.cells is not None and other.cells is not None:
            self.cells.merge(other.cells)
        return self

    def _tables(self, weighted: bool) -> np.ndarray:
        out = np.zeros((self.k, self.k, 2, 2))
        for a in range(self.k):
            if self.patterns[a] is None:
                continue
            (pattern,), w, rows = self.patterns[a]
            for b in range(self.k):
                code = (1 - ((pattern >> a) & 1)) * 2 + (1 - ((pattern >> b) & 1))
                out[a, b] = (
                    cell_sums(code, w, rows, 4) if weighted else np.bincount(code, weights=rows, minlength=4)
                ).reshape(2, 2)
        return out

    @property
    def agree(self) -> np.ndarray:
        """Shape (k, k, 2, 2): weight of rows by (model a right?, model b right?), model a's weights."""
        return self._tables(True)

    @property
    def rows(self) -> np.ndarray:
        """Shape (k, k, 2, 2): the same tables in rows."""
        return self._tables(False)

    def result(self) -> np.ndarray | None:
        """The summed weighted tables, or None when a weight was not a whole number."""
        return self.agree if self.integer else None
