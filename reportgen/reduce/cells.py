"""Weight cells: weighted rows counted per distinct (keys…, weight) and summed in one canonical
order (:func:`weight_cells`, :func:`cell_sums`), so a weighted count is one number in every
engine; the binary accumulators, the multiclass counts and the runners keep theirs so.
"""

from __future__ import annotations

import numpy as np

from reportgen.engine.intervals import MAX_WEIGHT_CELLS


def weight_cells(
    keys: list[np.ndarray], w: np.ndarray, rows: np.ndarray | None = None
) -> tuple[list[np.ndarray], np.ndarray, np.ndarray]:
    """Rows per distinct (keys…, weight) cell, sorted by the keys in turn, then the weight:
    (keys, weights, rows), the same arrays whatever the order or the chunking of the rows.

    A weighted count summed as rows come (``bincount(key, weights=w)`` per chunk, chunks added)
    depends in its last bits on the chunks; the cells are whole numbers that add exactly, and
    :func:`cell_sums` sums them in their canonical order: one number in every engine."""
    cols = [np.asarray(k, dtype=np.int64) for k in keys]
    cols.append(np.asarray(w, dtype=np.float64))
    cols.append(np.broadcast_to(np.int64(1), cols[-1].shape) if rows is None else np.asarray(rows, dtype=np.int64))
    del keys, w, rows
    return _cells(cols)


def _cells(cols: list[np.ndarray]) -> tuple[list[np.ndarray], np.ndarray, np.ndarray]:
    """:func:`weight_cells` of ``cols`` = [keys…, weights, rows], whose arrays the list gives
    up as it goes: each is replaced by its sorted copy, then by its cells, one at a time, so an
    array and its copy are held together only while it is being copied. A column of one value
    repeated (a stride-0 view: every weight, or every row count, 1) orders nothing and stays a
    view; rows that are each their own cell are returned as they are sorted."""
    n = cols[-1].shape[0]
    if n:
        order = np.lexsort([c for c in cols[-2::-1] if not _constant(c)])  # by the keys in turn, then the weight
        _take(cols, order)
        del order
        starts = np.zeros(n, dtype=bool)
        starts[0] = True
        for c in cols[:-1]:
            if not _constant(c):
                starts[1:] |= c[1:] != c[:-1]
        del c
        if np.count_nonzero(starts) < n:
            idx = np.flatnonzero(starts)
            del starts
            rows = np.add.reduceat(cols.pop(), idx)
            _take(cols, idx)
            cols.append(rows)
    return cols[:-2], cols[-2], cols[-1]


def _constant(a: np.ndarray) -> bool:
    """``a`` (1-D, not empty) is one value repeated as a stride-0 view (:func:`ones_view`)."""
    return a.strides[0] == 0 and a.shape[0] > 1


def _take(arrays: list[np.ndarray], at: np.ndarray) -> None:
    """Each of ``arrays`` replaced in the list by its elements ``at``, one at a time (a stride-0
    view by a view of the new length)."""
    for j in range(len(arrays)):
        a = arrays[j]
        arrays[j] = np.broadcast_to(a[0], at.shape) if _constant(a) else a[at]


def merged_weight_cells(chunks: list) -> tuple[list[np.ndarray], np.ndarray, np.ndarray] | None:
    """The cells of several chunks (:func:`weight_cells`) as one; None past
    :data:`~reportgen.engine.intervals.MAX_WEIGHT_CELLS` (the cells of all rows bound those of any
    chunk, so every engine gives up on the same data)."""
    merged = concat_cells(chunks)
    return None if merged[1].shape[0] > MAX_WEIGHT_CELLS else merged


def concat_cells(chunks: list) -> tuple[list[np.ndarray], np.ndarray, np.ndarray]:
    """The cells of several chunks (:func:`weight_cells`, the same keys) as one, uncapped. The
    list is emptied as it is read (its owner replaces it by the result): each chunk's arrays are
    let go of once concatenated, not held beside the whole and its sorted copy."""
    if len(chunks) == 1:
        return chunks[0]
    parts = [[*c[0], c[1], c[2]] for c in chunks]
    chunks.clear()
    cols = []
    for j in range(len(parts[0])):
        column = [p[j] for p in parts]
        if all(_constant(a) and a[0] == column[0][0] for a in column):  # every weight (or count) 1: a view
            cols.append(np.broadcast_to(column[0][0], sum(a.shape[0] for a in column)))
        else:
            cols.append(np.concatenate(column))
        del column
        for p in parts:
            p[j] = None
    del parts
    return _cells(cols)


def cell_sums(key: np.ndarray, w: np.ndarray, rows: np.ndarray, size: int) -> np.ndarray:
    """Σ rows·w per key (0 … size − 1) of cells in canonical order: ``bincount`` adds in array order."""
    return np.bincount(key, weights=rows * w, minlength=size)


def ones_shared(
    cells: tuple[list[np.ndarray], np.ndarray, np.ndarray],
) -> tuple[list[np.ndarray], np.ndarray, np.ndarray]:
    """Cells (:func:`weight_cells`) whose weights, or rows, are all 1 with that column as one
    shared 1 (a read-only view of stride 0): the top-label cells of unweighted rows with distinct
    confidences are one cell per row, and two of their four columns would be n ones (32 MB per
    million rows of a model held through pass 1). The values are the same arrays to every reader."""
    keys, w, rows = cells
    return keys, ones_view(w), ones_view(rows)


def ones_view(a: np.ndarray) -> np.ndarray:
    """``a`` (1-D), or a read-only view of stride 0 of its one value when every entry is 1."""
    if a.shape[0] and a.strides[0] and bool(np.all(a == 1)):
        return np.broadcast_to(a.dtype.type(1), a.shape)
    return a


def unit_cells(key: np.ndarray) -> tuple[list[np.ndarray], np.ndarray, np.ndarray]:
    """:func:`weight_cells` of rows of weight 1 keyed by one small integer, by ``bincount``: the
    same cells in the same order, without the sort."""
    rows = np.bincount(key)
    at = np.flatnonzero(rows)
    return [at.astype(np.int64)], np.ones(at.shape[0]), rows[at].astype(np.int64)


def sparse_unit_cells(key: np.ndarray) -> tuple[list[np.ndarray], np.ndarray, np.ndarray]:
    """:func:`unit_cells` of keys too wide for a ``bincount`` of their range: by ``unique``."""
    at, rows = np.unique(key, return_counts=True)
    return [at.astype(np.int64)], np.ones(at.shape[0]), rows.astype(np.int64)
