"""The rows every model keeps, put side by side in bounded memory: a spill by common index.

After the id join (:mod:`reportgen.io.align`) every compared row has a *common index* ``0 ≤ i <
n``: its place in the first model's order. The paired statistics (DeLong's covariance,
McNemar's tables, the decision-pattern counts) need, for each ``i``, every model's value of that
row — but a streamed engine reads each model's rows in its own file's order. :class:`RowSpill`
takes each model's rows as they come (``add``: records and their common indices), writes them
to temporary files, one file per model and range of :data:`PAIRED_CHUNK` common indices, and
gives them back range by range with every model's records in common order (``chunks``). Memory
holds one batch on the way in and one range on the way out (a range handed out is the caller's
alone: let go of it before asking for the next); the files live in a temporary
directory that is removed when the ``with`` block ends, however it ends. When the inputs are
held in memory already (``engine: memory``: ``held``), the records are placed in memory instead,
each model's in one array in common order.

The in-memory engine cuts its aligned rows into the same ranges, so the accumulators add the
same chunks in the same order in every engine.
"""

from __future__ import annotations

import os
import tempfile
from collections.abc import Iterator
from pathlib import Path

import numpy as np

from reportgen.errors import OutputError

#: Common indices per range (and per chunk of the in-memory paired pass): the placement matrices
#: of a chunk are k × chunk floats.
PAIRED_CHUNK = 1 << 20


def scratch_error(exc: OSError, what: str) -> OutputError:
    """A temporary file that could not be written (the disk full, a file size limit), as the one
    line and exit 2 of a full output disk rather than an internal error (exit 1)."""
    reason = os.strerror(exc.errno) if exc.errno else str(exc)
    return OutputError(
        f"{tempfile.gettempdir()}: cannot write {what} to a temporary file there ({reason}); "
        f"free some space there or point TMPDIR at a larger disk"
    )


class RowSpill:
    """Records of ``n_models`` models over ``n_rows`` common rows, spilled by common-index range.

    ``dtype``: the record type (a structured numpy dtype). Every common index must be added once
    per model; a range with a missing record is an error (it would pair unrelated rows).
    ``held``: placed in memory (one array per model, each index's place marked) instead of files."""

    def __init__(
        self, n_models: int, n_rows: int, dtype: np.dtype, chunk: int = PAIRED_CHUNK, held: bool = False
    ) -> None:
        self.n_models, self.n_rows, self.dtype, self.chunk = n_models, n_rows, np.dtype(dtype), chunk
        self._tmp: tempfile.TemporaryDirectory | None = None
        self._rec = np.dtype([("at", np.int64), ("value", self.dtype)])
        self._held: list[tuple[np.ndarray, np.ndarray]] | None = None
        if held:
            self._held = [(np.empty(n_rows, dtype=self.dtype), np.zeros(n_rows, dtype=bool)) for _ in range(n_models)]

    def __enter__(self) -> RowSpill:
        if self._held is None:
            try:
                self._tmp = tempfile.TemporaryDirectory(prefix="reportgen-pairs-")
            except OSError as exc:
                raise scratch_error(exc, "the paired rows") from None
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
        if self._held is not None:
            out, seen = self._held[m]
            if seen[at].any():
                raise AssertionError(f"common row {int(at[seen[at]][0])} added twice for model {m}")
            seen[at] = True
            if self.dtype.names is None:
                out[at] = values
            else:  # field by field: numpy scatters plain arrays several times faster than records
                for name in self.dtype.names:
                    out[name][at] = values[name]
            return
        rec = np.empty(at.shape[0], dtype=self._rec)
        rec["at"], rec["value"] = at, values
        part = at // self.chunk
        if np.any(part[1:] < part[:-1]):  # rows in range order already (the usual case) need no sorted copy
            order = np.argsort(part, kind="stable")
            rec, part = rec[order], part[order]
        cuts = np.flatnonzero(np.diff(part)) + 1
        for lo, hi in zip(np.r_[0, cuts], np.r_[cuts, part.shape[0]]):
            if hi > lo:
                try:
                    with open(self._file(m, int(part[lo])), "ab") as f:
                        f.write(rec[lo:hi].tobytes())
                except OSError as exc:
                    raise scratch_error(exc, "the paired rows") from None

    def chunks(self) -> Iterator[tuple[int, int, list[np.ndarray]]]:
        """(lo, hi, per model its records of common rows lo..hi−1 in common order), range by range."""
        if self._held is not None:
            for m, (_, seen) in enumerate(self._held):
                if not seen.all():
                    raise AssertionError(f"common row {int(np.argmin(seen))} has no record of model {m}")
            for lo in range(0, self.n_rows, self.chunk):
                hi = min(lo + self.chunk, self.n_rows)
                yield lo, hi, [out[lo:hi] for out, _ in self._held]
            return
        for part, lo in enumerate(range(0, self.n_rows, self.chunk)):
            hi = min(lo + self.chunk, self.n_rows)
            # no name keeps the range once it is handed out: the caller's copy is the only one
            yield lo, hi, [self._placed(m, part, lo, hi) for m in range(self.n_models)]

    def _placed(self, m: int, part: int, lo: int, hi: int) -> np.ndarray:
        """Model m's records of range ``part`` (common rows lo..hi−1) in common order, its file removed."""
        f = self._file(m, part)
        rec = np.fromfile(f, dtype=self._rec) if f.exists() else np.empty(0, dtype=self._rec)
        f.unlink(missing_ok=True)
        return place(rec, lo, hi)


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
