"""Files as record batches, every engine: each batch's columns as numpy.

:func:`read_columns` reads only the named columns in batches (``engine: stream`` and ``dask``:
Parquet files, directories or hive-partitioned datasets, and CSV typed by
:mod:`reportgen.io.files`); :func:`read_frames` reads each file whole (``engine: memory``: the
fast multi-threaded readers of :func:`reportgen.io.files.read_table`) and :func:`arrow_table`
makes a file, or a frame handed to :mod:`reportgen.api`, one batch. A :class:`Batch` converts
each column once, straight from arrow when it is numeric, and through pandas helpers otherwise
(text read from CSV, booleans, labels with nulls), so values and error messages are the same
whichever way the rows came.
"""

from __future__ import annotations

from collections.abc import Generator, Iterator, Sequence
from pathlib import Path
from typing import TYPE_CHECKING, Any

import numpy as np

from reportgen.config import Config
from reportgen.io import validate as V
from reportgen.io.arrow_numpy import numpy_of
from reportgen.io.files import FileInfo, columns_in, file_info, hashing, numbers_as_text, read_table, record_batches
from reportgen.io.progress import Progress, ReadProgress

if TYPE_CHECKING:
    import pandas as pd


def release_unused() -> None:
    """Hand back to the system the memory pyarrow's pool keeps but no longer uses (its allocator
    keeps freed pages for reuse: about 270 MiB after a streamed multiclass pass over 2M rows ×
    5 classes × 3 models), once a pass over the files is done and before the next step grows."""
    import pyarrow as pa  # noqa: PLC0415

    pa.default_memory_pool().release_unused()


def read_columns(
    path: Path, columns: list[str], batch_rows: int, numbers: Sequence[str] = (), text: Sequence[str] = ()
) -> Generator[tuple[Batch, int], None, None]:
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


def _read_on_as_text(
    path: Path, columns: list[str], batch_rows: int, numbers: list[str], text: list[str], offset: int
) -> Iterator[tuple[Batch, int]]:
    """The rows from ``offset`` on, the ``numbers`` columns read as text (:data:`~reportgen.io.validate.NA_VALUES`
    spellings missing, as the typed reader has them): the rows of the failed block before its
    non-number are checked by every row rule, so a fault on an earlier row is the one reported
    (as ``engine: memory`` reports it); the non-number itself is then :meth:`Batch.numeric`'s
    fault. Only on this error path, and in batches: bounded memory."""
    for rb, start in numbers_as_text(path, columns, batch_rows, numbers, text, offset):
        yield Batch(rb), start


def read_frames(cfg: Config, progress: Progress | None = None) -> tuple[dict[Path, Any], list[FileInfo]]:
    """``engine: memory``: every file the models name, read whole and once, with only the columns
    they use (class scores too); columns checked first (errors name the config key), labels and
    ids as text, scores as numbers. Each file's columns as the reader gave them (a pyarrow Table;
    a DataFrame when the lenient pandas reader took the file: :func:`reportgen.io.files.read_table`),
    with its audit record (the SHA-256 of the bytes parsed)."""
    headers: dict[Path, list[str]] = {}
    wanted: dict[Path, set[str]] = {}
    text: dict[Path, set[str]] = {}
    numbers: dict[Path, set[str]] = {}
    for i, m in enumerate(cfg.models):
        path = V.model_file(m)
        if path not in headers:
            headers[path] = columns_in(path)
        V.check_columns(cfg, i, m, path, headers[path])
        cols = V.columns_for(cfg, m)
        wanted.setdefault(path, set()).update(cols.values(), V.number_columns(cfg, m))
        text.setdefault(path, set()).update(V.text_columns(cols))
        numbers.setdefault(path, set()).update(V.number_columns(cfg, m))
    frames: dict[Path, Any] = {}
    files: list[FileInfo] = []
    told = ReadProgress(list(wanted), progress)  # the terminal's progress line: bytes read
    with hashing():  # the audit trail's SHA-256 is of the bytes parsed here
        for k, (path, names) in enumerate(wanted.items()):
            with told.file(k):
                frames[path] = read_table(path, sorted(names), numbers[path], text[path], arrow=True)
            files.append(file_info(path, len(frames[path])))
    return frames, files


def arrow_table(df: Any) -> Any:
    """A frame (pandas, or a pyarrow Table as read) as one pyarrow Table, its chunks as they are
    (a :class:`Batch` converts each column it uses once: numbers into one numpy array, text
    labels encoded chunk by chunk; combining every column first copied 0.8 s of a 10M-row
    CSV's label strings); a column of mixed Python types (a frame handed to
    :mod:`reportgen.api`) as text, each value as :func:`str` writes it (missing stays missing)."""
    import pyarrow as pa  # noqa: PLC0415

    if isinstance(df, pa.Table):
        return df
    try:
        table = pa.Table.from_pandas(df, preserve_index=False)
    except (pa.ArrowTypeError, pa.ArrowInvalid):
        mixed = {
            c: df[c].map(lambda v: None if v is None or (isinstance(v, float) and v != v) else str(v))
            for c in df.columns
            if df[c].dtype == object
        }
        table = pa.Table.from_pandas(df.assign(**mixed), preserve_index=False)
    return table


def _plain_numeric(col) -> bool:
    """Whether an arrow column converts to float64 as pandas would, without pandas."""
    import pyarrow as pa  # noqa: PLC0415

    return pa.types.is_floating(col.type) or pa.types.is_integer(col.type)


class Batch:
    """One record batch (or a whole file's Table) whose columns are converted to numpy once
    each, straight from arrow.

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
                out, bad = np.asarray(numpy_of(col), dtype=np.float64), None
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

    def codes(self, name: str) -> tuple[np.ndarray, np.ndarray]:
        """The column's keys as ``(codes, names)`` (:func:`reportgen.io.validate.key_codes`): a
        label's missing rows, positive rows and distinct keys are then looked up among its few
        distinct values instead of spelled out and compared row by row (at 10M rows of text
        labels 0.15 s less a batch)."""
        key = ("codes", name)
        if key not in self._cache:
            self._cache[key] = V.key_codes(self.rb.column(name))
        return self._cache[key]

    def _per_row(self, name: str, of_key) -> np.ndarray:
        """``of_key(key)`` (the key None where missing) for each row, looked up from its codes."""
        codes, names = self.codes(name)
        return np.array([bool(of_key(k)) for k in names], dtype=bool)[codes]

    def ids(self, name: str):
        """The column's ids as the join holds them (:func:`reportgen.io.validate.held_ids`)."""
        key = ("ids", name)
        if key not in self._cache:
            self._cache[key] = V.held_ids(self.rb.column(name))
        return self._cache[key]

    def missing(self, name: str) -> np.ndarray | None:
        """Rows whose label is missing (null, NaN, ±inf, an empty cell), or None when none is."""
        key = ("missing", name)
        if key not in self._cache:
            col = self.rb.column(name)
            if _plain_numeric(col) and col.null_count == 0:
                if col.type.id in _FLOAT_IDS:
                    bad = ~np.isfinite(numpy_of(col))
                    out = bad if bad.any() else None
                else:
                    out = None
            else:
                bad = self._per_row(name, lambda k: k is None)
                out = bad if bad.any() else None
            self._cache[key] = out
        return self._cache[key]

    def matches(self, name: str, positive: frozenset[str]) -> np.ndarray:
        """Rows whose label key is one of ``positive`` (:func:`reportgen.io.validate.positive_keys`);
        numeric columns compare as numbers."""
        key = ("matches", name)
        if key not in self._cache:
            col = self.rb.column(name)
            numbers = [n for n in map(V.as_number, positive) if n is not None]
            if _plain_numeric(col) and col.null_count == 0:
                out = np.isin(numpy_of(col), numbers)
            else:
                out = self._per_row(name, lambda k: k in positive)
            self._cache[key] = np.asarray(out, dtype=bool)
        return self._cache[key]

    def distinct(self, name: str, keep: np.ndarray | None) -> list[str]:
        """The distinct label keys of the kept rows (of all rows: found once, every model of a
        file asks)."""
        if keep is None:
            ckey = ("distinct", name)
            if ckey not in self._cache:
                self._cache[ckey] = self._distinct(name, None)
            return self._cache[ckey]
        return self._distinct(name, keep)

    def _distinct(self, name: str, keep: np.ndarray | None) -> list[str]:
        import pyarrow as pa  # noqa: PLC0415

        col = self.rb.column(name)
        if _plain_numeric(col) and col.null_count == 0:
            if pa.types.is_integer(col.type):  # in order of first appearance (as pc.unique)
                values = numpy_of(col) if keep is None else numpy_of(col)[keep]
                return [V.label_key(v) for v in _first_appearances(values).tolist()]
            import pyarrow.compute as pc  # noqa: PLC0415  (floats: pyarrow's hashing of NaN and -0.0)

            return [V.label_key(v) for v in pc.unique(col if keep is None else col.filter(keep)).to_pylist()]
        codes, names = self.codes(name)
        # every name but the trailing None (missing) is some row's: an encoding of these rows
        present = [True] * len(names) if keep is None else np.bincount(codes[keep], minlength=len(names)) > 0
        return list(dict.fromkeys(k for k, p in zip(names, present) if p and k is not None))


#: Widest value range of an integer column whose distinct values are found value by value.
_FEW_VALUES = 8


def _first_appearances(values: np.ndarray) -> np.ndarray:
    """The distinct values of integer ``values`` in order of first appearance. A label of a few
    values (0/1) is scanned once per value in its range, a comparison each, where ``np.unique``
    sorts every row (at 10M rows 0.1 s of a 2 s run); other ranges through ``np.unique``."""
    if values.size == 0:
        return values
    lo, hi = int(values.min()), int(values.max())
    if hi - lo < _FEW_VALUES:
        first = []
        for v in range(lo, hi + 1):
            hit = values == v
            i = int(hit.argmax())
            if hit[i]:
                first.append(i)
        return values[np.sort(np.array(first, dtype=np.intp))]
    return values[np.sort(np.unique(values, return_index=True)[1])]


def _float_ids() -> frozenset:
    import pyarrow as pa  # noqa: PLC0415

    return frozenset(t.id for t in (pa.float16(), pa.float32(), pa.float64()))


_FLOAT_IDS = _float_ids()
