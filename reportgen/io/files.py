"""Files: what kind an input is, which columns it has, how it is read, and its audit record.

Every engine reads through here, so a file means the same thing to all of them:

* a path ending in ``.parquet`` / ``.pq``, or a directory (not ``.csv``), is a Parquet dataset
  (hive partitions allowed); anything else is a CSV file;
* every part of a Parquet dataset must hold every column read (:func:`check_parts`): a part
  without the score column is refused, not read as missing values;
* CSV is read with explicit column types, never inferred: numbers (scores, weights) as float64,
  labels, predictions and ids as text (normalised later by :func:`reportgen.io.validate.keys`).
  Only the usual missing-value spellings (``NA``, ``nan``, an empty cell, …) are missing in a
  numeric column; a text column is never null here — an empty cell is missing, ``NA`` is text.
  Inference looked at the first block only: a column integral for 48 MB and decimal later failed
  with "conversion error to int64" in the streaming engines;
* a non-numeric cell in a numeric CSV column gives the same message in every engine (the file is
  read again as text to find the row: only on that error path).
"""

from __future__ import annotations

import hashlib
import os
import stat
import threading
from collections.abc import Iterable, Iterator
from dataclasses import dataclass
from pathlib import Path
from typing import Any

import pandas as pd

from reportgen.errors import InputError
from reportgen.io.validate import numeric

#: Cell texts that are a missing value in a numeric column (pandas' defaults; an empty cell too).
NA_VALUES = ("", "#N/A", "#N/A N/A", "#NA", "-1.#IND", "-1.#QNAN", "-NaN", "-nan", "1.#IND", "1.#QNAN", "<NA>",
             "N/A", "NA", "NULL", "NaN", "None", "n/a", "nan", "null")


@dataclass(frozen=True, slots=True)
class FileInfo:
    """What the audit trail records of an input file."""

    path: str
    sha256: str
    rows: int
    size_bytes: int


def sha256_of(path: Path, stop: threading.Event | None = None) -> str:
    """SHA-256 of a file; of a directory (a Parquet dataset), of its files' relative paths and
    contents in path order, so a re-partitioned or edited dataset gets a new hash.

    ``stop``: when it is set (by another thread that no longer needs the hash), the reading
    stops and the result is an empty string."""
    h = hashlib.sha256()
    files = [path] if path.is_file() else sorted(p for p in path.rglob("*") if p.is_file() and not p.name.startswith("."))
    for f in files:
        if f is not path:
            h.update(f.relative_to(path).as_posix().encode() + b"\0")
        with f.open("rb") as fh:
            for block in iter(lambda: fh.read(1 << 20), b""):
                if stop is not None and stop.is_set():
                    return ""
                h.update(block)
    return h.hexdigest()


def file_info(path: Path, rows: int, sha256: str | None = None) -> FileInfo:
    """The audit-trail record of an input (a file, or a directory of Parquet parts); ``sha256``
    when already computed (:func:`sha256_of`)."""
    if path.is_file():
        size = path.stat().st_size
    else:
        size = sum(p.stat().st_size for p in path.rglob("*") if p.is_file() and not p.name.startswith("."))
    return FileInfo(str(path), sha256_of(path) if sha256 is None else sha256, rows, size)


def first_line(exc: BaseException) -> str:
    """The first line of an exception's message (errors are one line)."""
    return (str(exc).strip().splitlines() or [type(exc).__name__])[0]


def is_parquet(path: Path) -> bool:
    """A ``.parquet`` / ``.pq`` file, or a directory that is not named like a CSV file."""
    return path.suffix.lower() in (".parquet", ".pq") or (path.is_dir() and path.suffix.lower() not in (".csv", ".tsv", ".txt"))


def parquet_dataset(path: Path) -> Any:
    """The pyarrow dataset of a Parquet file or directory (hive partitions), or a one-line error."""
    import pyarrow as pa  # noqa: PLC0415
    import pyarrow.dataset as ds  # noqa: PLC0415

    try:
        dataset = ds.dataset(str(path), format="parquet", partitioning="hive")
    except (pa.ArrowException, OSError, ValueError) as exc:
        raise InputError(f"{path}: cannot read as Parquet ({first_line(exc)})") from None
    if not dataset.schema.names:
        raise InputError(f"{path}: no Parquet data found; expected a .parquet file or a directory of them")
    return dataset


#: A Parquet dataset directory may hold at most this many entries and nest this deep: the walk
#: that checks it (and every later walk) ends in bounded time.
MAX_DATASET_ENTRIES = 100_000
MAX_DATASET_DEPTH = 32


def check_input(path: Path) -> None:
    """Refuse inputs that would hang or escape before anything reads them.

    A FIFO, socket or device would block the reader (or never end); a dataset directory is
    walked without following symlinks, and refused when a symlink in it leads to a directory
    (a loop, or data outside the dataset), when it holds a FIFO or device, or when it exceeds
    :data:`MAX_DATASET_ENTRIES` entries or :data:`MAX_DATASET_DEPTH` levels.
    """
    try:
        st = path.stat()
    except FileNotFoundError:
        raise InputError(
            f"{path}: file not found; check 'file' in the config (relative paths resolve against the config file)"
        ) from None
    except OSError as exc:
        raise InputError(f"{path}: cannot open ({exc.strerror or exc}); check the path and its permissions") from None
    if stat.S_ISREG(st.st_mode):
        return
    if not stat.S_ISDIR(st.st_mode):
        raise InputError(f"{path}: not a regular file (a FIFO, socket or device); give a CSV or Parquet file")
    seen, stack = 0, [(str(path), 0)]
    while stack:
        folder, depth = stack.pop()
        if depth > MAX_DATASET_DEPTH:
            raise InputError(f"{path}: the dataset nests more than {MAX_DATASET_DEPTH} directories deep; "
                             f"point 'file' at the dataset's root")
        try:
            entries = list(os.scandir(folder))
        except OSError as exc:
            raise InputError(f"{folder}: cannot list the directory ({exc.strerror or exc})") from None
        for entry in entries:
            seen += 1
            if seen > MAX_DATASET_ENTRIES:
                raise InputError(f"{path}: more than {MAX_DATASET_ENTRIES:,} files in the dataset; "
                                 f"point 'file' at the dataset itself, not a directory above it")
            if entry.name.startswith((".", "_")):
                continue  # hidden and metadata files, as pyarrow skips them
            if entry.is_symlink():
                if entry.is_dir():
                    raise InputError(f"{entry.path}: a symlink to a directory inside the dataset (a loop, or data "
                                     f"outside it); replace it by the directory or remove it")
                if not entry.is_file():
                    raise InputError(f"{entry.path}: a broken or special symlink inside the dataset; remove it")
            elif entry.is_dir(follow_symlinks=False):
                stack.append((entry.path, depth + 1))
            elif not entry.is_file(follow_symlinks=False):
                raise InputError(f"{entry.path}: not a regular file (a FIFO, socket or device) inside the dataset; "
                                 f"remove it")


def columns_in(path: Path) -> list[str]:
    """The column names of a CSV or Parquet file; one-line errors for files that cannot be read."""
    check_input(path)
    if is_parquet(path):
        return parquet_dataset(path).schema.names
    if path.is_dir():
        raise InputError(f"{path}: is a directory, expected a CSV file; check 'file' in the config")
    try:
        header = pd.read_csv(path, nrows=0, encoding="utf-8")
    except pd.errors.EmptyDataError:
        raise InputError(f"{path}: the file is empty; expected a CSV header and rows") from None
    except (UnicodeDecodeError, OSError, pd.errors.ParserError, ValueError) as exc:
        raise csv_error(path, exc, "cannot read as CSV") from None
    return [str(c) for c in header.columns]


def csv_error(path: Path, exc: Exception, malformed: str) -> InputError:
    """The one-line error of a CSV that pandas cannot read (``malformed``: how a parse error starts)."""
    if isinstance(exc, UnicodeDecodeError):
        return InputError(f"{path}: not UTF-8 text; re-save the file as UTF-8 CSV")
    if isinstance(exc, OSError):
        return InputError(f"{path}: cannot read the file ({exc.strerror or exc}); check its permissions")
    return InputError(f"{path}: {malformed} ({first_line(exc)})")


def parts_of(path: Path) -> list[str]:
    """The files a dataset is made of (Parquet parts in path order, or the CSV file itself)."""
    if is_parquet(path):
        return sorted(f.path for f in parquet_dataset(path).get_fragments())
    return [str(path)]


def check_parts(path: Path, columns: Iterable[str]) -> None:
    """Every part of a Parquet dataset holds every column in ``columns`` (hive partition keys count).

    Without this check pyarrow reads a part that lacks a column as nulls, and the rows were then
    dropped or refused as "missing" values: the user's file is incomplete, not its values.
    Reads each part's footer only."""
    if not is_parquet(path) or path.is_file():
        return
    import pyarrow.dataset as ds  # noqa: PLC0415

    wanted = list(dict.fromkeys(columns))
    for fragment in sorted(parquet_dataset(path).get_fragments(), key=lambda f: f.path):
        have = set(fragment.physical_schema.names) | set(ds.get_partition_keys(fragment.partition_expression))
        lacking = [c for c in wanted if c not in have]
        if lacking:
            raise InputError(
                f"{fragment.path}: column {lacking[0]!r} not found in this part of the dataset {path} "
                f"(columns: {', '.join(fragment.physical_schema.names)}); write every part with the same columns"
            )


def no_rows(path: Path) -> InputError:
    """The error for a file without data rows (the same in every engine)."""
    if is_parquet(path):
        return InputError(f"{path}: the file has no rows")
    return InputError(f"{path}: the file has a header but no rows")


def csv_options(columns: list[str], numbers: Iterable[str], text: Iterable[str], block_size: int | None = None) -> tuple:
    """pyarrow CSV (read, convert) options: only ``columns``, typed explicitly.

    ``numbers`` are float64 (the :data:`NA_VALUES` spellings are missing), ``text`` columns are
    strings that are never null (an empty cell is the empty string: missing by the key rule);
    other columns read (a date column) keep pyarrow's inference."""
    import pyarrow as pa  # noqa: PLC0415
    import pyarrow.csv as pacsv  # noqa: PLC0415

    types = {c: pa.float64() for c in numbers if c in columns}
    types.update({c: pa.string() for c in text if c in columns})
    read = pacsv.ReadOptions(block_size=block_size) if block_size else pacsv.ReadOptions()
    convert = pacsv.ConvertOptions(include_columns=columns, column_types=types, null_values=list(NA_VALUES),
                                   strings_can_be_null=False, quoted_strings_can_be_null=False)
    return read, convert


def record_batches(path: Path, columns: list[str], batch_rows: int, numbers: Iterable[str] = (),
                   text: Iterable[str] = ()) -> Iterator[Any]:
    """pyarrow record batches of the file's ``columns`` (about ``batch_rows`` rows each).

    CSV columns are typed by :func:`csv_options`; a cell of a ``numbers`` column that is not a
    number is an error naming its row (:func:`locate_non_number`)."""
    import pyarrow as pa  # noqa: PLC0415
    import pyarrow.csv as pacsv  # noqa: PLC0415

    numbers, text = list(numbers), list(text)
    try:
        if is_parquet(path):
            for rb in parquet_dataset(path).to_batches(columns=columns, batch_size=batch_rows):
                if rb.num_rows:
                    yield rb
            return
        block = max(1 << 20, min(1 << 28, batch_rows * 16 * max(1, len(columns))))
        read, convert = csv_options(columns, numbers, text, block)
        for rb in pacsv.open_csv(str(path), read_options=read, convert_options=convert):
            if rb.num_rows:
                yield rb
    except pa.ArrowInvalid as exc:
        if "conversion error" in str(exc) and numbers:
            locate_non_number(path, columns, numbers, text, batch_rows)
        raise InputError(f"{path}: cannot read ({first_line(exc)})") from None
    except (pa.ArrowException, OSError, ValueError) as exc:
        raise InputError(f"{path}: cannot read ({first_line(exc)})") from None


def locate_non_number(path: Path, columns: list[str], numbers: list[str], text: list[str], batch_rows: int) -> None:
    """Read the CSV again with ``numbers`` as text and raise the first non-numeric cell's error
    (:func:`reportgen.io.validate.numeric`): the message the in-memory engine gives."""
    offset = 0
    for rb in record_batches(path, columns, batch_rows, (), [*text, *numbers]):
        for c in numbers:
            numeric(rb.column(c).to_pandas().replace(list(NA_VALUES), None), path, c, offset)
        offset += rb.num_rows


def read_table(path: Path, columns: list[str], numbers: Iterable[str] = (), text: Iterable[str] = ()) -> pd.DataFrame:
    """Read only ``columns`` (known to exist) from a CSV or Parquet file, with one-line errors.

    CSV: ``text`` columns as strings (only an empty cell is empty), ``numbers`` with the usual
    missing spellings as NaN and converted by :func:`reportgen.io.validate.numeric` later."""
    import pyarrow as pa  # noqa: PLC0415

    if is_parquet(path):
        check_parts(path, columns)
        try:
            table = parquet_dataset(path).to_table(columns=columns)
        except (pa.ArrowException, OSError, ValueError) as exc:
            raise InputError(f"{path}: cannot read as Parquet ({first_line(exc)})") from None
        if table.num_rows == 0:
            raise no_rows(path)
        return table.to_pandas()
    text = [c for c in text if c in columns]
    try:
        df = pd.read_csv(path, usecols=columns, encoding="utf-8", low_memory=False, keep_default_na=False,
                         dtype={c: str for c in text}, na_values={c: list(NA_VALUES) for c in columns if c not in text})
    except (UnicodeDecodeError, OSError, pd.errors.ParserError, ValueError) as exc:
        raise csv_error(path, exc, "malformed CSV") from None
    if len(df) == 0:
        raise no_rows(path)
    return df
