"""Files read in record batches (``engine: stream`` and ``dask``): each batch's columns as numpy.

:func:`read_columns` reads only the named columns (Parquet files, directories or
hive-partitioned datasets, and CSV typed by :mod:`reportgen.io.files`); a :class:`Batch`
converts each column once, straight from arrow when it is numeric, and through the in-memory
path's pandas helpers otherwise (text read from CSV, booleans, labels with nulls), so values
and error messages are those of ``engine: memory``.
"""

from __future__ import annotations

from collections.abc import Iterator
from pathlib import Path

import numpy as np
import pandas as pd

from reportgen.io import validate as V
from reportgen.io.files import NA_VALUES, record_batches


def read_columns(path: Path, columns: list[str], batch_rows: int, numbers: list[str] = (),
                 text: list[str] = ()) -> Iterator[tuple[Batch, int]]:
    """The file's ``columns`` in record batches of about ``batch_rows`` rows, each with the
    number of rows before it (errors name the row in the file)."""
    offset = 0
    try:
        for rb in record_batches(path, columns, batch_rows, numbers, text):
            yield Batch(rb), offset
            offset += rb.num_rows
    except V.RowFault:  # a CSV cell of a number column is not a number: its block failed as a whole
        if not numbers:
            raise
        yield from _read_on_as_text(path, columns, batch_rows, list(numbers), list(text), offset)


def _read_on_as_text(path: Path, columns: list[str], batch_rows: int, numbers: list[str], text: list[str],
                     offset: int) -> Iterator[tuple[Batch, int]]:
    """The rows from ``offset`` on, the ``numbers`` columns read as text (:data:`NA_VALUES`
    spellings missing, as the typed reader has them): the rows of the failed block before its
    non-number are checked by every row rule, so a fault on an earlier row is the one reported
    (as ``engine: memory`` reports it); the non-number itself is then :meth:`Batch.numeric`'s
    fault. Only on this error path, and in batches: bounded memory."""
    import pyarrow as pa  # noqa: PLC0415
    import pyarrow.compute as pc  # noqa: PLC0415

    na = pa.array(NA_VALUES, type=pa.string())
    seen = 0
    for rb in record_batches(path, columns, batch_rows, (), [*text, *numbers]):
        start, seen = seen, seen + rb.num_rows
        if seen <= offset:
            continue
        rb = rb.slice(max(0, offset - start))
        arrays = [pc.if_else(pc.is_in(col, value_set=na), pa.scalar(None, pa.string()), col) if name in numbers else col
                  for name, col in zip(rb.schema.names, rb.columns)]
        yield Batch(pa.RecordBatch.from_arrays(arrays, names=rb.schema.names)), max(start, offset)


def _plain_numeric(col) -> bool:
    """Whether an arrow column converts to float64 as pandas would, without pandas."""
    import pyarrow as pa  # noqa: PLC0415

    return pa.types.is_floating(col.type) or pa.types.is_integer(col.type)


class Batch:
    """One record batch whose columns are converted to numpy once each, straight from arrow.

    Numeric columns skip pandas (about a third of a streamed pass went into ``to_pandas``);
    anything else (text read from CSV, booleans, labels with nulls) goes through the same
    pandas helpers as the in-memory path, so values and error messages are the same.
    """

    __slots__ = ("rb", "_cache")

    def __init__(self, rb) -> None:
        self.rb = rb
        self._cache: dict = {}

    def __len__(self) -> int:
        return self.rb.num_rows

    def slice(self, start: int, length: int | None = None) -> Batch:
        return Batch(self.rb.slice(start, length))

    def series(self, name: str) -> pd.Series:
        key = ("series", name)
        if key not in self._cache:
            self._cache[key] = self.rb.column(name).to_pandas()
        return self._cache[key]

    def numeric(self, name: str, path: Path, offset: int, faults: V.Faults | None = None) -> np.ndarray:
        """The column as float64 (NaN where missing); a non-numeric cell is an error naming its
        row (with ``faults``: added there, the cell NaN)."""
        key = ("numeric", name)
        if key not in self._cache:
            col = self.rb.column(name)
            if _plain_numeric(col):
                out, bad = np.asarray(col.to_numpy(zero_copy_only=False), dtype=np.float64), None
            else:
                found = V.Faults()
                out = V.numeric(self.series(name), path, name, offset, found)
                bad = found.best
            self._cache[key] = out, bad
        out, bad = self._cache[key]
        if bad is not None:
            V.fault(faults, bad[0], bad[2])
        return out

    def keys(self, name: str):
        """The column's keys (:func:`reportgen.io.validate.key_array`: pyarrow strings, null = missing)."""
        key = ("keys", name)
        if key not in self._cache:
            self._cache[key] = V.key_array(self.rb.column(name))
        return self._cache[key]

    def ids(self, name: str):
        """The column's id keys (:func:`reportgen.io.validate.id_keys`)."""
        key = ("ids", name)
        if key not in self._cache:
            self._cache[key] = V.id_keys(self.rb.column(name))
        return self._cache[key]

    def missing(self, name: str) -> np.ndarray | None:
        """Rows whose label is missing (null, NaN, ±inf, an empty cell), or None when none is."""
        key = ("missing", name)
        if key not in self._cache:
            col = self.rb.column(name)
            if _plain_numeric(col) and col.null_count == 0:
                if col.type.id in _FLOAT_IDS:
                    bad = ~np.isfinite(np.asarray(col.to_numpy(zero_copy_only=False)))
                    out = bad if bad.any() else None
                else:
                    out = None
            else:
                import pyarrow.compute as pc  # noqa: PLC0415

                bad = np.asarray(pc.is_null(self.keys(name)).to_numpy(zero_copy_only=False), dtype=bool)
                out = bad if bad.any() else None
            self._cache[key] = out
        return self._cache[key]

    def matches(self, name: str, positive: str) -> np.ndarray:
        """Rows whose label key is ``positive`` (a key); numeric columns compare as numbers."""
        key = ("matches", name)
        if key not in self._cache:
            col = self.rb.column(name)
            number = V.as_number(positive)
            if _plain_numeric(col) and col.null_count == 0:
                out = col.to_numpy(zero_copy_only=False) == number if number is not None else np.zeros(len(col), dtype=bool)
            else:
                import pyarrow.compute as pc  # noqa: PLC0415

                out = pc.fill_null(pc.equal(self.keys(name), positive), False).to_numpy(zero_copy_only=False)
            self._cache[key] = np.asarray(out, dtype=bool)
        return self._cache[key]

    def distinct(self, name: str, keep: np.ndarray | None) -> list[str]:
        """The distinct label keys of the kept rows."""
        import pyarrow.compute as pc  # noqa: PLC0415

        col = self.rb.column(name)
        if _plain_numeric(col) and col.null_count == 0:
            if keep is None:
                ckey = ("distinct", name)
                if ckey not in self._cache:
                    self._cache[ckey] = [V.label_key(v) for v in pc.unique(col).to_pylist()]
                return self._cache[ckey]
            return [V.label_key(v) for v in pc.unique(col.filter(keep)).to_pylist()]
        k = self.keys(name)
        return [v for v in pc.unique(k if keep is None else k.filter(keep)).to_pylist() if v is not None]


def _float_ids() -> frozenset:
    import pyarrow as pa  # noqa: PLC0415

    return frozenset(t.id for t in (pa.float16(), pa.float32(), pa.float64()))


_FLOAT_IDS = _float_ids()
