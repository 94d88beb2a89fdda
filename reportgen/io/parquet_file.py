"""One local Parquet file read through :class:`pyarrow.parquet.ParquetFile`, not a dataset.

``pyarrow.dataset`` imports pandas whenever pandas is installed (0.3–0.5 s, issue 46), and a
single file needs none of its discovery. :func:`single_file` opens such a file and answers the
part of :class:`pyarrow.dataset.Dataset`'s interface :mod:`reportgen.io.files` uses (``schema``,
``get_fragments``, ``to_batches``, ``to_table``, ``head``; the file is its own only fragment), so
the same code reads it and a dataset directory. A file read this way gives the columns, types
and values the dataset reader gives: the schema is the file's Arrow schema in both. Anything
else — a directory, a remote file, a path with a hive key (``month=3/``: the dataset reader adds
that column), a file it cannot open or whose schema repeats or lacks names — is left to the
dataset reader (None), whose messages name what is wrong.
"""

from __future__ import annotations

import os
from collections.abc import Iterator
from typing import Any


class ParquetFileData:
    """A single Parquet file with a dataset's interface (see the module docstring)."""

    partitioning = None

    def __init__(self, path: str, file: Any) -> None:
        self.path, self.file = path, file
        self.schema = self.physical_schema = file.schema_arrow
        self.metadata = file.metadata

    def get_fragments(self) -> list[ParquetFileData]:
        return [self]

    def to_batches(self, columns: list[str], batch_size: int, **_scan_options: Any) -> Iterator[Any]:
        """Record batches of ``columns`` (at most ``batch_size`` rows each), one row group at a
        time: ``iter_batches`` over the whole file read every row group's column chunks ahead
        (a 20 MB file held whole after the first batch), where ``streamed_parquet`` asks a
        dataset to read them as the batches need them. Each batch's columns are decoded in the
        calling thread: decoded by pyarrow's threads, their scratch stays in per-thread heaps
        beside the pool for the rest of the run, and a batch is read far faster than it is reduced."""
        for group in range(self.file.num_row_groups):
            yield from self.file.iter_batches(
                batch_size=batch_size, columns=columns, row_groups=[group], use_threads=False
            )

    def to_table(self, columns: list[str]) -> Any:
        return self.file.read(columns=columns)

    def head(self, rows: int) -> Any:
        """The first ``rows`` rows (fewer if the file has fewer), every column."""
        import pyarrow as pa  # noqa: PLC0415

        batches, have = [], 0
        for rb in self.to_batches(self.schema.names, max(1, rows)):
            if have >= rows:
                break
            batches.append(rb.slice(0, rows - have))
            have += batches[-1].num_rows
        return pa.Table.from_batches(batches, schema=self.schema)


#: Bytes read at a time from a column chunk. pyarrow's defaults (pre-buffering, unbuffered reads)
#: hold a row group's whole column chunks while its batches are decoded (a 1M-row group of 7
#: columns: 44 MB of raw chunks; pyarrow's pool peaked at 94 MiB reading 262,144-row batches, 55
#: MiB so); a local file gains nothing from coalesced reads (:func:`reportgen.io.files.streamed_parquet`).
READ_BUFFER = 1 << 20


def single_file(path: str, local: bool, source: Any = None) -> ParquetFileData | None:
    """``path`` as :class:`ParquetFileData` when it is a local file a dataset would read as that
    one file with its own columns (no ``key=value`` directory above it), else None. ``source``:
    the file opened already (a hashing reader), else the path is opened."""
    if not local or "=" in os.path.dirname(os.path.abspath(path)) or not os.path.isfile(path):
        return None
    import pyarrow as pa  # noqa: PLC0415
    import pyarrow.parquet as pq  # noqa: PLC0415

    try:
        data = ParquetFileData(
            path, pq.ParquetFile(path if source is None else source, pre_buffer=False, buffer_size=READ_BUFFER)
        )
    except (pa.ArrowException, OSError, ValueError):
        return None  # the dataset reader says what is wrong
    names = data.schema.names
    if not names or len(set(names)) != len(names):
        return None
    return data
