"""The rows every model keeps, put side by side in bounded memory: a spill by common index.

After the id join (:mod:`reportgen.io.align`) every compared row has a *common index* ``0 ≤ i <
n``: its place in the first model's order. The paired statistics (DeLong's covariance,
McNemar's tables, the decision-pattern counts) need, for each ``i``, every model's value of that
row — but a streamed engine reads each model's rows in its own file's order. :class:`RowSpill`
takes each model's rows as they come (``add``: records and their common indices), writes them
to temporary files, one file per model and range of :data:`PAIRED_CHUNK` common indices, and
gives them back range by range with every model's records in common order (``chunks``). Memory
holds one batch on the way in and one range on the way out; the files live in a temporary
directory that is removed when the ``with`` block ends, however it ends.

The in-memory engine cuts its aligned rows into the same ranges, so the accumulators add the
same chunks in the same order in every engine.
"""

from __future__ import annotations

import tempfile
from collections.abc import Iterator
from pathlib import Path

import numpy as np

#: Common indices per range (and per chunk of the in-memory paired pass): the placement matrices
#: of a chunk are k × chunk floats.
PAIRED_CHUNK = 1 << 20


class RowSpill:
    """Records of ``n_models`` models over ``n_rows`` common rows, spilled by common-index range.

    ``dtype``: the record type (a structured numpy dtype). Every common index must be added once
    per model; a range with a missing record is an error (it would pair unrelated rows)."""

    def __init__(self, n_models: int, n_rows: int, dtype: np.dtype, chunk: int = PAIRED_CHUNK) -> None:
        self.n_models, self.n_rows, self.dtype, self.chunk = n_models, n_rows, np.dtype(dtype), chunk
        self._tmp: tempfile.TemporaryDirectory | None = None
        self._rec = np.dtype([("at", np.int64), ("value", self.dtype)])

    def __enter__(self) -> RowSpill:
        self._tmp = tempfile.TemporaryDirectory(prefix="reportgen-pairs-")
        return self

    def __exit__(self, *exc: object) -> None:
        if self._tmp is not None:
            self._tmp.cleanup()
            self._tmp = None

    def _file(self, m: int, part: int) -> Path:
        assert self._tmp is not None, "RowSpill used outside its with block"
        return Path(self._tmp.name) / f"{m}-{part}.bin"

    def add(self, m: int, at: np.ndarray, values: np.ndarray) -> None:
        """Model m's records ``values`` of common rows ``at`` (any order), appended to their ranges."""
        at = np.asarray(at, dtype=np.int64)
        rec = np.empty(at.shape[0], dtype=self._rec)
        rec["at"], rec["value"] = at, values
        part = at // self.chunk
        order = np.argsort(part, kind="stable")
        rec, part = rec[order], part[order]
        cuts = np.flatnonzero(np.diff(part)) + 1
        for lo, hi in zip(np.r_[0, cuts], np.r_[cuts, part.shape[0]]):
            if hi > lo:
                with open(self._file(m, int(part[lo])), "ab") as f:
                    f.write(rec[lo:hi].tobytes())

    def chunks(self) -> Iterator[tuple[int, int, list[np.ndarray]]]:
        """(lo, hi, per model its records of common rows lo..hi−1 in common order), range by range."""
        for part, lo in enumerate(range(0, self.n_rows, self.chunk)):
            hi = min(lo + self.chunk, self.n_rows)
            out = []
            for m in range(self.n_models):
                f = self._file(m, part)
                rec = np.fromfile(f, dtype=self._rec) if f.exists() else np.empty(0, dtype=self._rec)
                f.unlink(missing_ok=True)
                out.append(place(rec, lo, hi))
            yield lo, hi, out


def split_ranges(rec: np.ndarray, ranges: int) -> list[np.ndarray]:
    """Records (field ``at``) split by range of :data:`PAIRED_CHUNK` common indices: one list per
    range, each in the order given (a part's share of every range, for a shuffle)."""
    r = rec["at"] // PAIRED_CHUNK
    return [rec[r == k] for k in range(ranges)]


def place(rec: np.ndarray, lo: int, hi: int) -> np.ndarray:
    """The values of records ``rec`` (fields ``at``, ``value``) in common order over ``lo..hi−1``;
    each index exactly once (else the rows would not pair: an internal error)."""
    if rec.shape[0] != hi - lo:
        raise AssertionError(f"{rec.shape[0]} records for the {hi - lo} common rows {lo}..{hi - 1}")
    out = np.empty(hi - lo, dtype=rec.dtype["value"])
    out[rec["at"] - lo] = rec["value"]
    return out
