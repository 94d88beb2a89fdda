"""Rows grouped by distinct score with one value sort instead of an argsort.

DeLong's placement values and the bootstrap's resample kernel need, for every row, which
distinct score it has. The textbook way is ``np.argsort`` (about 1 s for 10M doubles here),
but numpy sorts plain values several times faster than it argsorts them. So each row's score
is mapped to an unsigned integer that orders like the double, its low bits are replaced by
the row's index (and its label), and the keys are value-sorted: the index rides along and
comes out in score order.

Dropping the score's low bits makes rows whose scores agree in the high bits (the *prefix*)
come out in row order rather than score order. Those runs of equal prefix are rare for
continuous scores (a few in 10^4 rows at 10M) and are fixed up exactly: their true scores are
gathered, and runs that are out of order are re-sorted by a lexsort of the run alone. Ties
(equal scores) are found on the true scores, so the grouping is exact for any doubles, as
``np.unique(scores, return_inverse=True)`` (tests/unit/test_sorting.py checks it).
"""

from __future__ import annotations

from dataclasses import dataclass

import numpy as np

from reportgen.value import Value

#: Above this many rows the index would leave too few prefix bits; an argsort is used.
_MAX_PACKED_ROWS = 1 << 36
_TOP = np.uint64(1 << 63)
_LOW63 = np.uint64((1 << 63) - 1)


@dataclass(frozen=True, repr=False, eq=False)
class SortedRows(Value):
    """Rows in ascending score order (ties in any order).

    Attributes:
        order: shape (n,), int32 or int64, the row at each sorted position.
        starts: shape (n,), bool, True where a new distinct score begins.
        labels: shape (n,), bool, the label of each sorted row, or None when none was given.

    The distinct scores themselves are not kept (gathering them is a random access per row,
    and DeLong does not need them): :meth:`values` gives them.
    """

    order: np.ndarray
    starts: np.ndarray
    labels: np.ndarray | None

    def values(self, scores: np.ndarray) -> np.ndarray:
        """The distinct values of ``scores`` (the array that was sorted) ascending; -0.0 is 0.0."""
        return np.add(np.asarray(scores, dtype=np.float64)[self.order[self.starts]], 0.0)


def _ordered_bits(scores: np.ndarray) -> np.ndarray:
    """63-bit unsigned keys that order like the doubles (-0.0 equal to 0.0), a fresh array."""
    bits = np.add(scores, 0.0).view(np.uint64)  # + 0.0 turns -0.0 into 0.0
    if scores.shape[0] and float(scores.min()) >= 0.0:
        bits >>= np.uint64(1)  # non-negative doubles order like their bit patterns
        bits |= np.uint64(1 << 62)
        return bits
    # negative doubles order like their complemented bit patterns, the rest with the top bit set
    flip = bits >> np.uint64(63)
    flip *= _LOW63
    flip |= _TOP
    bits ^= flip
    bits >>= np.uint64(1)
    return bits


def _argsorted(scores: np.ndarray, y: np.ndarray | None) -> SortedRows:
    """The reference: one argsort (very long inputs only)."""
    order = np.argsort(scores, kind="stable")
    s_sorted = np.add(scores[order], 0.0)
    starts = np.empty(order.shape[0], dtype=bool)
    if order.shape[0]:
        starts[0] = True
        np.not_equal(s_sorted[1:], s_sorted[:-1], out=starts[1:])
    labels = None if y is None else y[order]
    return SortedRows(order, starts, labels)


def sort_rows(scores: np.ndarray, y: np.ndarray | None = None) -> SortedRows:
    """Group the rows of ``scores`` (finite doubles) by distinct score, ascending.

    Args:
        scores: shape (n,), finite.
        y: shape (n,), bool, optional; carried along in the keys and returned sorted.

    One value sort of ``prefix(score) << b | row << 1 | label`` (``b`` = bits of the row index
    plus one), then an exact fix-up of runs of equal prefix (module docstring). O(n log n) with
    the constant of a value sort; memory: one uint64 key per row plus the outputs.
    """
    scores = np.asarray(scores, dtype=np.float64)
    n = scores.shape[0]
    yb = None if y is None else np.asarray(y).astype(bool, copy=False)
    if n >= _MAX_PACKED_ROWS:
        return _argsorted(scores, yb)
    low = max(1, (n - 1).bit_length()) + 1
    keys = _ordered_bits(scores)
    low_mask = np.uint64((1 << low) - 1)
    keys &= ~low_mask
    index = np.arange(n, dtype=np.uint64)
    index <<= np.uint64(1)
    if yb is not None:
        index |= yb
    keys |= index
    del index
    if n and keys.max() < 0x7FF0_0000_0000_0000:
        keys.view(np.float64).sort()  # finite non-negative doubles: same order, faster sort
    else:
        keys.sort()
    itype = np.int32 if n < 2**31 else np.int64
    payload = keys & low_mask
    labels = None if yb is None else (payload & np.uint64(1)).astype(bool)
    payload >>= np.uint64(1)
    order = payload.astype(itype)
    del payload
    keys >>= np.uint64(low)  # the prefixes, ascending
    starts = np.empty(n, dtype=bool)
    if n:
        starts[0] = True
        np.not_equal(keys[1:], keys[:-1], out=starts[1:])
    del keys
    if n and not starts.all():
        _fix_equal_prefixes(scores, order, labels, starts)
    return SortedRows(order, starts, labels)


def _fix_equal_prefixes(scores: np.ndarray, order: np.ndarray, labels: np.ndarray | None, starts: np.ndarray) -> None:
    """Sort runs of equal prefix by their true scores and mark true ties (in place).

    On entry ``starts`` is True where the prefix changes; on exit where the score changes.
    """
    in_run = ~starts  # rows continuing a run of equal prefix ...
    in_run[:-1] |= ~starts[1:]  # ... and the rows that open one
    pos = np.flatnonzero(in_run)
    del in_run
    run = np.cumsum(starts[pos], dtype=np.int64)  # run id of each position (a run opens on a start)
    s = np.add(scores[order[pos]], 0.0)
    same_run = run[1:] == run[:-1]
    if np.any((s[1:] < s[:-1]) & same_run):
        perm = np.lexsort((s, run))
        pos_order = order[pos]
        order[pos] = pos_order[perm]
        if labels is not None:
            labels[pos] = labels[pos][perm]
        s = s[perm]
    # within a run, a new distinct score starts where the true score changes
    starts[pos[1:]] = ~same_run | (s[1:] != s[:-1])  # pos[0] opens a run: stays True


def distinct_codes(scores: np.ndarray) -> tuple[np.ndarray, np.ndarray]:
    """``(values, codes)`` equal to ``np.unique(scores, return_inverse=True)`` (codes int32/64)."""
    scores = np.asarray(scores, dtype=np.float64)
    rows = sort_rows(scores)
    n = rows.order.shape[0]
    itype = np.int32 if n < 2**31 else np.int64
    group: np.ndarray = np.cumsum(rows.starts, dtype=itype)
    group -= 1
    codes = np.empty(n, dtype=itype)
    codes[rows.order] = group
    return rows.values(scores), codes


def sorted_unique(a: np.ndarray) -> np.ndarray:
    """``np.unique(a)`` of an integer array by a sort, in place (``a`` is sorted): numpy 2's
    hash-based unique is slower, and its first call without options imports ``numpy.ma``."""
    a.sort()
    keep = np.empty(a.shape[0], dtype=bool)
    if a.shape[0]:
        keep[0] = True
        np.not_equal(a[1:], a[:-1], out=keep[1:])
    return a[keep]
