"""Files: what kind an input is, which columns it has, how it is read, and its audit record.

Every engine reads through here, so a file means the same thing to all of them:

* a path ending in ``.parquet`` / ``.pq``, or a directory (not ``.csv``), is a Parquet dataset
  (hive partitions allowed); anything else is a CSV file;
* a CSV file named ``.csv.gz``, ``.csv.bz2`` or ``.csv.zst`` is read through pyarrow's
  decompressing stream (:func:`codec_of`, :func:`decompressed`), front to back, by every reader
  here, so rows, columns and messages are the uncompressed file's; a file named as plain CSV
  whose first bytes say it is compressed, an archive or Parquet is refused before any parser
  guesses (:func:`check_not_binary`);
* every part of a Parquet dataset must hold every column read (:func:`check_parts`): a part
  without the score column is refused, not read as missing values; a part whose footer cannot
  be read is named; a column whose type differs between parts is read part by part, each
  part's values as the part read alone gives them (:func:`read_schema`, :class:`PartwiseDataset`),
  as a Dask task reading one part does;
* CSV is read with explicit column types, never inferred: numbers (scores, weights) as float64,
  labels, predictions and ids as text (normalised later by :func:`reportgen.io.validate.keys`).
  Only the usual missing-value spellings (``NA``, ``nan``, an empty cell, …) are missing in a
  numeric column; a text column is never null here — an empty cell is missing, ``NA`` is text.
  Inference looked at the first block only: a column integral for 48 MB and decimal later failed
  with "conversion error to int64" in the streaming engines;
* a non-numeric cell in a numeric CSV column gives the same message in every engine (the file is
  read again as text to find the row: only on that error path);
* every engine parses CSV with pyarrow's multi-threaded reader; the in-memory engine hands a file
  pyarrow refuses or may misread to pandas' more lenient reader (:func:`read_table`), so short
  rows, open quotes and bad bytes are accepted or refused as they always were;
* the audit trail's SHA-256 is of the bytes the parser read (:func:`hashing`), not of a second
  read that could meet another file; of a compressed file, the bytes as stored.
"""

from __future__ import annotations

import contextvars
import hashlib
import io
import os
import re
import stat
import threading
from collections.abc import Callable, Generator, Iterable, Iterator
from contextlib import contextmanager
from dataclasses import dataclass
from pathlib import Path
from typing import TYPE_CHECKING, Any

from reportgen.config import is_folded, scheme_of
from reportgen.errors import InputError
from reportgen.io import filesystems as F
from reportgen.io.parquet_file import ParquetFileData, single_file
from reportgen.io.validate import NA_VALUES, float_keys, numeric
from reportgen.value import Value

if TYPE_CHECKING:
    import pandas as pd


@dataclass(frozen=True, repr=False, eq=False, slots=True)
class FileInfo(Value):
    """What the audit trail records of an input file."""

    path: str
    sha256: str
    rows: int
    size_bytes: int


class Digests:
    """The SHA-256 of every input file, of the bytes a reader pulled while parsing it.

    A CSV file is hashed block by block as the parser reads it (:class:`HashingReader`), so the
    digest is of exactly the bytes parsed. A Parquet part is opened once per read: up to
    :data:`HASH_IN_MEMORY` bytes it is read into memory, hashed, and parsed from that buffer
    (exact); a larger part is hashed through the open file and parsed from the same descriptor
    (a file replaced by a rename meanwhile is not seen; one rewritten in place within those
    seconds could be). A file read more than once (the streamed engines' later passes, a re-read
    under ``id_mismatch: intersect``) must give the same digest every time, or the run stops:
    its numbers would mix two versions of the file.

    A dataset directory's digest is the SHA-256 of ``sha256sum``'s output over its parts,
    i.e. of the lines ``"<part digest>  <path relative to the directory>\n"`` in path order,
    so ``find . -type f ! -name '.*' ! -name '_*' | sed 's|^\\./||' | LC_ALL=C sort | xargs sha256sum | sha256sum``
    run in the directory reproduces it (a test checks the same formula).
    """

    def __init__(self) -> None:
        self.files: dict[str, str] = {}
        self._lock = threading.Lock()

    def add(self, file: str, digest: str) -> None:
        """Record ``file``'s digest (an absolute path); a different digest than before is an error."""
        with self._lock:
            before = self.files.setdefault(file, digest)
        if before != digest:
            raise InputError(
                f"{file}: the file changed while reportgen was reading it (two reads gave different "
                f"SHA-256 digests); run again once it is no longer being written"
            )

    def merge(self, files: dict[str, str]) -> None:
        """Record digests computed elsewhere (a Dask worker's parts)."""
        for file, digest in sorted(files.items()):
            self.add(file, digest)

    def of(self, path: Path) -> str:
        """The digest of an input read under :func:`hashing`: a file's, or a dataset directory's
        (see the class docstring)."""
        loc = F.locate(path)
        root = loc.key(loc.path)
        if root in self.files:
            return self.files[root]
        if not (os.path.isdir(root) if loc.local else F.kind(loc) == "dir"):
            raise RuntimeError(f"{path}: read without hashing")  # a loader that bypassed record_batches / read_table
        sep = os.sep if loc.local else "/"
        prefix = root + sep
        parts = sorted((f[len(prefix) :].replace(sep, "/"), d) for f, d in self.files.items() if f.startswith(prefix))
        expected = len(parts_of(path))
        if not parts or len(parts) != expected:
            raise RuntimeError(f"{path}: {len(parts)} of {expected} parts hashed")
        return hashlib.sha256("".join(f"{d}  {rel}\n" for rel, d in parts).encode("utf-8")).hexdigest()


#: Parquet parts up to this size are read into memory, hashed and parsed from that buffer.
HASH_IN_MEMORY = 64 << 20

_DIGESTS: contextvars.ContextVar[Digests | None] = contextvars.ContextVar("reportgen_digests", default=None)


#: ``tell(bytes)`` of the reading under way (:func:`read_progress`), or None.
_READ: contextvars.ContextVar[Callable[[int], None] | None] = contextvars.ContextVar("reportgen_read", default=None)


@contextmanager
def read_progress(tell: Callable[[int], None]) -> Iterator[None]:
    """Within the block, a file read through :func:`opened` (CSV, hashed) calls ``tell(bytes)``
    with the bytes of it read so far, as the parser takes them (from the parser's own thread:
    ``tell`` must only record the number). The terminal's progress line of a large file."""
    token = _READ.set(tell)
    try:
        yield
    finally:
        _READ.reset(token)


@contextmanager
def hashing(digests: Digests | None = None) -> Iterator[Digests]:
    """Within the block, :func:`read_table` and :func:`record_batches` hash what they read into
    the :class:`Digests` yielded (a loader wraps its reading in this; a Dask task too, in its
    worker, and sends the digests back with its result)."""
    digests = Digests() if digests is None else digests
    token = _DIGESTS.set(digests)
    try:
        yield digests
    finally:
        _DIGESTS.reset(token)


class HashingReader(io.RawIOBase):
    """A read-only binary file that updates a SHA-256 with every block it returns; at the end
    of the file the digest is recorded in ``digests`` under ``name``. Not seekable, so the
    parser reads the file once, front to back: the digest is of the bytes it parsed."""

    def __init__(self, path: Path, digests: Digests) -> None:
        super().__init__()
        loc = F.locate(path)
        self._fh = open(path, "rb") if loc.local else F.open_input(loc)  # noqa: SIM115 - closed by close()
        self._hash = hashlib.sha256()
        self._digests = digests
        self._name = loc.key(loc.path)
        self._done = False
        self._tell = _READ.get()
        self._read = 0

    def readable(self) -> bool:
        return True

    def readinto(self, buffer: Any) -> int:
        n = self._fh.readinto(buffer)
        if n:
            self._hash.update(memoryview(buffer)[:n])
            if self._tell is not None:
                self._read += n
                try:
                    self._tell(self._read)
                except Exception:  # noqa: BLE001  (a progress display never breaks a read)
                    self._tell = None
        elif not self._done:
            self._done = True
            self._digests.add(self._name, self._hash.hexdigest())
        return n

    def close(self) -> None:
        self._fh.close()
        super().close()


def opened(path: Path) -> Any:
    """What a CSV parser should read: ``path`` itself (a remote file: a stream on it), or under
    :func:`hashing` a buffered :class:`HashingReader` (the caller closes what is not ``path``).
    A compressed file (:func:`codec_of`) is a stream of its decompressed bytes; the digest is
    of the bytes as stored."""
    digests = _DIGESTS.get()
    if digests is None:
        if codec_of(path) is not None:
            return opened_plain(path)
        loc = F.locate(path)
        return path if loc.local else F.open_input(loc)
    return decompressed(path, io.BufferedReader(HashingReader(path, digests), 1 << 20))


#: Compressed CSV by the file name's last suffix: pyarrow's codec, its first bytes, the tool that
#: tests a file. A compressed file is read front to back (gzip and bzip2 streams are not
#: splittable): one Dask task per file, as for a plain CSV file.
CODECS: dict[str, tuple[str, bytes, str]] = {
    ".gz": ("gzip", b"\x1f\x8b", "gzip -t"),
    ".bz2": ("bz2", b"BZh", "bzip2 -t"),
    ".zst": ("zstd", b"\x28\xb5\x2f\xfd", "zstd -t"),
}


def codec_of(path: Path | str) -> str | None:
    """The compression of a CSV input by its name (``a.csv.gz``: ``"gzip"``; see :data:`CODECS`),
    or None; a URI's name is its path's, without the query string."""
    loc = F.locate(path)
    found = CODECS.get(os.path.splitext(loc.path)[1].lower())
    return None if found is None else found[0]


def decompressed(path: Path, raw: Any) -> Any:
    """``raw`` (a binary stream of the file as stored) as the stream of its decompressed bytes
    when the file is compressed (:func:`codec_of`), else ``raw`` itself. Closing it closes ``raw``."""
    codec = codec_of(path)
    return raw if codec is None else io.BufferedReader(Decompressing(path, raw, codec), 1 << 20)


class Decompressing(io.RawIOBase):
    """The decompressed bytes of ``raw`` (pyarrow's :class:`pyarrow.CompressedInputStream`).

    A damaged or truncated stream is one :class:`~reportgen.errors.InputError` naming the file
    (raised inside the parser's read, which hands it on unchanged). At the end of the
    decompressed bytes ``raw`` is read to its own end, so that a :class:`HashingReader` under it
    records its digest: the bytes as stored."""

    def __init__(self, path: Path, raw: Any, codec: str) -> None:
        import pyarrow as pa  # noqa: PLC0415

        super().__init__()
        self._path, self._raw, self._codec = path, raw, codec
        self._stream = pa.CompressedInputStream(raw, codec)
        self._ended = False

    def readable(self) -> bool:
        return True

    def readinto(self, buffer: Any) -> int:
        if self._ended:
            return 0
        import pyarrow as pa  # noqa: PLC0415

        try:
            data = self._stream.read(len(buffer))
        except (pa.ArrowException, OSError) as exc:
            raise undecompressable(self._path, self._codec, exc) from None
        n = len(data)
        if n:
            memoryview(buffer)[:n] = data
        else:
            self._ended = True
            while self._raw.read(1 << 20):  # trailing bytes the decompressor left: hashed too
                pass
        return n

    def close(self) -> None:
        if not self.closed:
            self._stream.close()
            self._raw.close()
        super().close()


def undecompressable(path: Path, codec: str, exc: BaseException) -> InputError:
    """The one-line error of a compressed file whose bytes do not decompress (damaged, truncated)."""
    tool = next(t for c, _m, t in CODECS.values() if c == codec)
    return InputError(
        f"{path}: cannot decompress as {codec} ({first_line(exc)}); the file is damaged, "
        f"truncated or not {codec}-compressed: check it with {tool}, or write it again"
    )


def _hashing_filesystem(digests: Digests, loc: F.Location) -> Any:
    """A pyarrow filesystem that reads through ``loc``'s (local, or the remote one) and hashes
    each file it opens (see :class:`Digests`)."""
    import pyarrow as pa  # noqa: PLC0415
    import pyarrow.fs as pafs  # noqa: PLC0415

    local = pafs.LocalFileSystem() if loc.local else loc.fs

    class Handler(pafs.FileSystemHandler):
        def get_type_name(self) -> str:
            return "reportgen-hashing"

        def normalize_path(self, path: str) -> str:
            return local.normalize_path(path)

        def get_file_info(self, paths: list[str]) -> Any:
            return local.get_file_info(paths)

        def get_file_info_selector(self, selector: Any) -> Any:
            return local.get_file_info(selector)

        def open_input_file(self, path: str) -> Any:
            if not loc.local:  # the same two cases through the remote filesystem's random-access file
                return _hashed_remote(local.open_input_file(path), loc.key(path))
            fh = open(path, "rb")  # noqa: SIM115 - owned by the returned file, or closed here
            try:
                if os.fstat(fh.fileno()).st_size <= HASH_IN_MEMORY:
                    data = fh.read()
                    fh.close()
                    digests.add(os.path.abspath(path), hashlib.sha256(data).hexdigest())
                    return pa.BufferReader(data)
                h = hashlib.sha256()
                for block in iter(lambda: fh.read(1 << 20), b""):
                    h.update(block)
                digests.add(os.path.abspath(path), h.hexdigest())
                fh.seek(0)
                return pa.PythonFile(fh, mode="r")
            except BaseException:
                fh.close()
                raise

        def open_input_stream(self, path: str) -> Any:
            return self.open_input_file(path)

        def __eq__(self, other: object) -> bool:
            return self is other

        def __ne__(self, other: object) -> bool:
            return self is not other

        def _read_only(self, *args: Any) -> Any:
            raise NotImplementedError("reportgen reads its inputs only")

        create_dir = delete_dir = delete_dir_contents = delete_root_dir_contents = _read_only
        delete_file = move = copy_file = open_output_stream = open_append_stream = _read_only

    def _hashed_remote(fh: Any, key: str) -> Any:
        try:
            if fh.size() <= HASH_IN_MEMORY:
                data = fh.read()
                fh.close()
                digests.add(key, hashlib.sha256(data).hexdigest())
                return pa.BufferReader(data)
            h = hashlib.sha256()
            for block in iter(lambda: fh.read(1 << 20), b""):
                h.update(block)
            digests.add(key, h.hexdigest())
            fh.seek(0)
            return fh
        except BaseException:
            fh.close()
            raise

    return pafs.PyFileSystem(Handler())


def scanned_dataset(path: Path, numbers: Iterable[str] = ()) -> Any:
    """The Parquet dataset to read data from: :func:`parquet_dataset`, through a hashing
    filesystem under :func:`hashing` (discovery and footers are read without hashing);
    ``numbers``: the columns read as numbers (scores, weights: :func:`as_read_alone`)."""
    plain = parquet_dataset(path)
    digests = _DIGESTS.get()
    loc = F.locate(path)
    if isinstance(plain, ParquetFileData):
        if digests is None:
            return plain
        opened = _hashing_filesystem(digests, loc).open_input_file(os.path.abspath(path))
        if (hashed_file := single_file(plain.path, True, opened)) is not None:
            return hashed_file
        plain = parquet_dataset(path, whole=True)
    import pyarrow.dataset as ds  # noqa: PLC0415

    schema, alike = read_schema(plain)
    if digests is None:
        if alike:
            return plain
        return PartwiseDataset(
            ds.dataset(loc.path, format="parquet", partitioning=plain.partitioning, filesystem=loc.fs), schema, numbers
        )
    hashed = ds.dataset(
        os.path.abspath(path) if loc.local else loc.path,
        format="parquet",
        partitioning=plain.partitioning,
        filesystem=_hashing_filesystem(digests, loc),
    )
    return hashed if alike else PartwiseDataset(hashed, schema, numbers)


class PartwiseDataset:
    """A dataset whose column types differ between parts (:func:`read_schema`), read part by part
    in path order (:func:`parts_of`, a Dask task's order): each part's columns in the part's own
    types, then converted to the dataset's as reading that part alone gives its values.

    pyarrow's own casts, which a dataset read with one schema applies, do not: a decimal cast to
    float64 is not correctly rounded (0.5700 → 0.5700000000000001, where a part read alone gives
    0.57), and a float32 cast to text is its float32 spelling ("0.41", where a part read alone
    gives the float64 0.4099999964237213) — so memory and stream gave other thresholds and AUCs
    than Dask (found by fuzzing Parquet parts of mixed types)."""

    def __init__(self, dataset: Any, schema: Any, numbers: Iterable[str] = ()) -> None:
        self.dataset, self.schema, self.numbers = dataset, schema, frozenset(numbers)

    def to_batches(self, columns: list[str], batch_size: int, **options: Any) -> Iterator[Any]:
        import pyarrow as pa  # noqa: PLC0415

        for fragment in sorted(self.dataset.get_fragments(), key=lambda f: f.path):
            physical = fragment.physical_schema
            # each column read in the part's type (a column it lacks, a partition key: the dataset's)
            schema = pa.schema([physical.field(f.name) if f.name in physical.names else f for f in self.schema])
            for rb in fragment.to_batches(schema=schema, columns=columns, batch_size=batch_size, **options):
                yield pa.RecordBatch.from_arrays(
                    [
                        as_read_alone(c, self.schema.field(n).type, n in self.numbers)
                        for n, c in zip(rb.schema.names, rb.columns)
                    ],
                    names=rb.schema.names,
                )

    def to_table(self, columns: list[str]) -> Any:
        import pyarrow as pa  # noqa: PLC0415

        schema = pa.schema([self.schema.field(c) for c in columns])
        return pa.Table.from_batches(list(self.to_batches(columns, 1 << 20)), schema=schema)


def as_read_alone(values: Any, to: Any, number: bool = False) -> Any:
    """A part's column in the dataset's type ``to`` (float64, or text when its parts hold
    non-numbers: :func:`read_schema`) with the values the part read alone gives: integers and
    floats widened exactly, decimals through their text (correctly rounded, as
    :func:`reportgen.io.validate.numeric` reads them), floats spelled by the key rule as the
    float64 they are read as (:func:`reportgen.io.validate.float_keys`: ``1e18`` as its digits,
    so an id, a label and a number read alike; NaN and ±inf missing), booleans of a column read as numbers (``number``)
    as 1 / 0, of a text column as ``True`` / ``False`` (the key rule's spelling, which an id keeps); any other type cast."""
    import pyarrow as pa  # noqa: PLC0415
    import pyarrow.compute as pc  # noqa: PLC0415

    if values.type == to:
        return values
    if pa.types.is_dictionary(values.type):
        values = values.dictionary_decode()
    if pa.types.is_decimal(values.type):
        values = pc.cast(values, pa.string())
    elif pa.types.is_floating(values.type) and pa.types.is_string(to):
        return float_keys(pc.cast(values, pa.float64()))  # 1e18 as its digits, as the key rule spells it
    elif pa.types.is_boolean(values.type) and number:
        values = pc.if_else(values, "1", "0")
    elif pa.types.is_boolean(values.type) and pa.types.is_string(to):
        # the key rule's spelling of a boolean ("True"), not arrow's ("true"): an id keeps its text as written,
        # so a boolean id part beside text parts was 'true' where the part read alone (Dask) gave 'True'
        return pc.if_else(values, "True", "False")
    return pc.cast(values, to)


def read_schema(dataset: Any) -> tuple[Any, bool]:
    """The schema a dataset's parts are read with, so that every engine reads a part's values as
    the part holds them (a Dask task reads each part as a file of its own), and whether every
    part holds the first part's types (else :class:`PartwiseDataset` reads it).

    pyarrow reads every part with the *first* part's types: a score column integral in the first
    part and decimal in the next failed ("Float value 637.5 was truncated converting to int64"),
    text scores were parsed by a cast (a bad one: "Failed to parse string", no row), and boolean
    labels in one part became 0 / 1 beside another part's integers — where Dask, reading each part
    alone, read them and gave other numbers or another error. Here a column whose type differs
    between parts (all-null parts aside) is read as the common numeric type when every part holds
    numbers (integers and floats: float64, exact for the values compared), and as text otherwise,
    so that numbers then pass the same parse (errors naming their row) and labels and ids the same
    key rule as in a part read alone (``True`` → ``"true"`` → key ``"True"``; ``7`` → ``"7"``).
    A column typed null in the first part (an empty part written from pandas' object columns) is
    read with the other parts' type: with the first part's, memory and stream refused the dataset
    ("Unsupported cast from int64 to null") that Dask read."""
    import pyarrow as pa  # noqa: PLC0415

    fragments = list(dataset.get_fragments())
    if len(fragments) < 2:
        return dataset.schema, True
    types: dict[str, set] = {}
    for fragment in fragments:
        try:
            physical = fragment.physical_schema
        except (pa.ArrowException, OSError, ValueError):
            continue  # a damaged part: refused by check_parts, which names it
        for field in physical:
            t = field.type.value_type if pa.types.is_dictionary(field.type) else field.type
            t = pa.string() if pa.types.is_large_string(t) else t
            if not pa.types.is_null(t):
                types.setdefault(field.name, set()).add(t)
    fields = []
    for field in dataset.schema:
        seen = types.get(field.name, set())
        if len(seen) > 1:
            numeric = all(pa.types.is_integer(t) or pa.types.is_floating(t) or pa.types.is_decimal(t) for t in seen)
            field = pa.field(field.name, pa.float64() if numeric else pa.string())
        elif seen and pa.types.is_null(field.type):  # the first part's column all null (an empty part)
            field = pa.field(field.name, next(iter(seen)))
        fields.append(field)
    schema = pa.schema(fields)
    return schema, schema.equals(dataset.schema) and all(len(seen) < 2 for seen in types.values())


#: ``reportgen validate`` with ``engine: stream`` / ``dask`` applies every rule of a run (the
#: whole-file ones too: classes, both classes present, weight totals, the id join, every part)
#: when the inputs hold at most this many bytes in all; above it, the first batch of each file.
SMALL_INPUT_BYTES = 64 << 20


def input_bytes(path: Path) -> int:
    """The bytes of an input: a file's size, or the sum of a dataset directory's files."""
    loc = F.locate(path)
    if not loc.local:
        return F.size_of(loc)
    if path.is_file():
        return path.stat().st_size
    return sum(p.stat().st_size for p in path.rglob("*") if p.is_file() and not p.name.startswith("."))


def file_info(path: Path, rows: int, sha256: str | None = None) -> FileInfo:
    """The audit-trail record of an input (a file, or a directory of Parquet parts) read under
    :func:`hashing`: its digest is of the bytes that were parsed (:meth:`Digests.of`)."""
    if sha256 is None:
        digests = _DIGESTS.get()
        if digests is None:
            raise RuntimeError(f"{path}: file_info outside hashing()")
        sha256 = digests.of(path)
    loc = F.locate(path)
    return FileInfo(str(path) if loc.local else loc.shown, sha256, rows, input_bytes(path))


def first_line(exc: BaseException) -> str:
    """The first line of an exception's message (errors are one line)."""
    return (str(exc).strip().splitlines() or [type(exc).__name__])[0]


def is_parquet(path: Path) -> bool:
    """A ``.parquet`` / ``.pq`` file, or a directory that is not named like a CSV file."""
    loc = F.locate(path)
    if not loc.local:
        suffix = os.path.splitext(loc.path)[1].lower()
        return suffix in (".parquet", ".pq") or (suffix not in (".csv", ".tsv", ".txt") and F.kind(loc) == "dir")
    return path.suffix.lower() in (".parquet", ".pq") or (
        path.is_dir() and path.suffix.lower() not in (".csv", ".tsv", ".txt")
    )


def _repeated_parquet_column(loc: Any) -> tuple[str, str, int] | None:
    """(file shown, column, times) of the first Parquet file under ``loc`` whose schema names a
    column twice (pyarrow's dataset refuses such a file without naming it), or None."""
    import pyarrow.fs as pafs  # noqa: PLC0415
    import pyarrow.parquet as pq  # noqa: PLC0415

    fs = loc.fs or pafs.LocalFileSystem()
    try:
        info = fs.get_file_info(loc.path)
        files = (
            [info]
            if info.type == pafs.FileType.File
            else [
                f
                for f in fs.get_file_info(pafs.FileSelector(loc.path, recursive=True))
                if f.type == pafs.FileType.File and not f.base_name.startswith(("_", "."))
            ]
        )
        for f in sorted(files, key=lambda f: f.path):
            names = pq.read_schema(f.path, filesystem=fs).names
            twice = next((n for n in names if names.count(n) > 1), None)
            if twice is not None:
                shown = loc.shown if f.path == loc.path else f"{loc.shown}/{os.path.relpath(f.path, loc.path)}"
                return shown, twice, names.count(twice)
    except Exception:  # noqa: BLE001 - only a better message is at stake: pyarrow's is given instead
        return None
    return None


def parquet_dataset(path: Path, whole: bool = False) -> Any:
    """The pyarrow dataset of a Parquet file or directory (hive partitions), or a one-line error;
    a plain local file as :class:`~reportgen.io.parquet_file.ParquetFileData` (the same columns
    and values without ``pyarrow.dataset``, which imports pandas), unless ``whole``."""
    loc = F.locate(path)
    if not whole and (single := single_file(loc.path, loc.local)) is not None:
        return single
    import pyarrow as pa  # noqa: PLC0415
    import pyarrow.dataset as ds  # noqa: PLC0415

    try:
        dataset = ds.dataset(loc.path, format="parquet", partitioning="hive", filesystem=loc.fs)
    except (pa.ArrowException, OSError, ValueError) as exc:
        if re.search(_DENIED, str(exc)):
            raise unreadable_parquet(loc.shown, exc) from None
        if "duplicate field names" in str(exc) and (twice := _repeated_parquet_column(loc)) is not None:
            raise InputError(
                f"{twice[0]}: column {twice[1]!r} appears {twice[2]} times in the Parquet schema; "
                f"rename the duplicates so that the config names one column"
            ) from None
        raise InputError(f"{loc.shown}: cannot read as Parquet ({F.shown_text(first_line(exc))})") from None
    if not dataset.schema.names:
        raise InputError(f"{loc.shown}: no Parquet data found; expected a .parquet file or a directory of them")
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
    A remote input (a URI) must exist and list at most :data:`MAX_DATASET_ENTRIES` entries.
    """
    loc = F.locate(path)
    if not loc.local:
        F.check_remote(loc, MAX_DATASET_ENTRIES)
        return
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
            raise InputError(
                f"{path}: the dataset nests more than {MAX_DATASET_DEPTH} directories deep; "
                f"point 'file' at the dataset's root"
            )
        try:
            entries = list(os.scandir(folder))
        except OSError as exc:
            raise InputError(f"{folder}: cannot list the directory ({exc.strerror or exc})") from None
        for entry in entries:
            seen += 1
            if seen > MAX_DATASET_ENTRIES:
                raise InputError(
                    f"{path}: more than {MAX_DATASET_ENTRIES:,} files in the dataset; "
                    f"point 'file' at the dataset itself, not a directory above it"
                )
            if entry.name.startswith((".", "_")):
                continue  # hidden and metadata files, as pyarrow skips them
            if entry.is_symlink():
                if entry.is_dir():
                    raise InputError(
                        f"{entry.path}: a symlink to a directory inside the dataset (a loop, or data "
                        f"outside it); replace it by the directory or remove it"
                    )
                if not entry.is_file():
                    raise InputError(f"{entry.path}: a broken or special symlink inside the dataset; remove it")
            elif entry.is_dir(follow_symlinks=False):
                stack.append((entry.path, depth + 1))
            elif not entry.is_file(follow_symlinks=False):
                raise InputError(
                    f"{entry.path}: not a regular file (a FIFO, socket or device) inside the dataset; remove it"
                )


def columns_in(path: Path) -> list[str]:
    """The column names of a CSV or Parquet file; one-line errors for files that cannot be read."""
    check_input(path)
    if is_parquet(path):
        names = list(parquet_dataset(path).schema.names)
        for _part, have in part_columns(path):  # a column missing from the first part only: check_parts names that part
            names += [c for c in have if c not in names]
        return names
    if path.is_dir():
        raise InputError(f"{path}: is a directory, expected a CSV file; check 'file' in the config")
    check_not_binary(path)
    if (plain := plain_header(path)) is not None:
        return plain
    import pandas as pd  # noqa: PLC0415  (a header with quotes, blank lines, odd bytes: as pandas reads it)

    stream = None if F.locate(path).local and codec_of(path) is None else opened_plain(path)
    try:
        header = pd.read_csv(path if stream is None else stream, nrows=0, encoding="utf-8")
    except pd.errors.EmptyDataError:
        raise empty_csv(path) from None
    except (UnicodeDecodeError, OSError, pd.errors.ParserError, ValueError) as exc:
        raise csv_error(path, exc, "cannot read as CSV") from None
    finally:
        if stream is not None:
            stream.close()
    names = [str(c) for c in header.columns]
    if any((m := re.match(DEDUPED, c)) and m.group(1) in names for c in names) or any(
        re.match(UNNAMED, c) for c in names
    ):
        # pandas renamed a repeated name ('s', 's.1') or named an empty one ('Unnamed: 2', a name
        # the config could then use where pyarrow, reading the header as written, has ''): the names as written
        return raw_header(path)
    return names


#: How far :func:`plain_header` looks for the end of the header line.
HEADER_BYTES = 1 << 16


def plain_header(path: Path) -> list[str] | None:
    """The CSV's column names when its first line is plain — UTF-8 without quotes, carriage
    returns inside it or NUL bytes, not blank, ended within :data:`HEADER_BYTES` — split at its
    commas, as pandas names them (a BOM dropped) and as :func:`raw_header` keeps repeated and
    empty names; else None, and :func:`columns_in` asks pandas. Reading the header with pandas
    imported it (0.3–0.5 s) into every run of a CSV file."""
    try:
        with opened_plain(path) as fh:
            head = fh.read(HEADER_BYTES)
    except OSError:
        return None  # pandas' reader says what is wrong
    end = head.find(b"\n")
    if end < 0 and len(head) == HEADER_BYTES:
        return None
    line = head[: end if end >= 0 else len(head)].removeprefix(b"\xef\xbb\xbf")
    line = line[:-1] if line.endswith(b"\r") else line
    if not line.strip() or any(c in line for c in (b'"', b"\r", b"\x00")):
        return None
    try:
        return line.decode("utf-8").split(",")
    except UnicodeDecodeError:
        return None


#: Leading bytes of files that are not CSV text, with what to do: every engine refuses them alike.
#: A compressed file is read when its name says so (:data:`CODECS`); named ``.csv`` it is refused
#: here (pandas decompressed such a file by its name when it read the header, then every engine
#: parsed the compressed bytes as text: "not UTF-8" in one, "column 's' does not exist" in the others).
MAGIC: tuple[tuple[bytes, str], ...] = (
    (b"\x1f\x8b", "gzip-compressed; end its name with .gz (a.csv.gz) to have it read as compressed CSV"),
    (b"BZh?1AY&SY", "bzip2-compressed; end its name with .bz2 (a.csv.bz2) to have it read as compressed CSV"),
    (b"\x28\xb5\x2f\xfd", "zstd-compressed; end its name with .zst (a.csv.zst) to have it read as compressed CSV"),
    (b"\xfd7zXZ\x00", "xz-compressed; decompress it (unxz) or convert it to gzip, zstd or Parquet"),
    (b"PK\x03\x04", "a zip archive; extract the CSV file and name that in 'file'"),
    (b"PAR1", "a Parquet file named like a CSV file; give it the extension .parquet"),
)


def check_not_binary(path: Path) -> None:
    """Refuse a file named as CSV whose first bytes say it is compressed, an archive or Parquet
    (:data:`MAGIC`): the same one line in every engine, before any parser guesses. A file named
    as compressed CSV (:func:`codec_of`) must start with its codec's bytes, and its decompressed
    text is checked the same way."""
    codec = codec_of(path)
    try:
        with opened_stored(path) as fh:
            head = fh.read(12)
            if head.startswith(b"PAR1") and codec is None:
                # a Parquet file also ends with its magic (a CSV header may start "PAR1")
                fh.seek(-4, os.SEEK_END)
                head = head if fh.read(4) == b"PAR1" else b""
    except OSError as exc:
        raise InputError(f"{path}: cannot open ({exc.strerror or exc}); check the path and its permissions") from None
    if codec is not None:
        suffix, magic, _tool = next((k, m, t) for k, (c, m, t) in CODECS.items() if c == codec)
        if not head.startswith(magic):
            raise InputError(
                f"{path}: named as {codec}-compressed ({suffix}) but the file is not {codec}-compressed; "
                f"remove {suffix} from its name if it is plain CSV, or compress it again"
            )
        with opened_plain(path) as fh:
            inner = fh.read(12)
        if (what := _magic(inner)) is not None and not what.startswith("a Parquet"):
            raise InputError(
                f"{path}: once decompressed, the file is {what.split('; ')[0]}, not CSV text; "
                f"compress the CSV text itself, once"
            )
        head = inner
    elif (what := _magic(head)) is not None:
        what, todo = what.split("; ", 1)
        raise InputError(
            f"{path}: the file is {what}, not CSV text (reportgen reads UTF-8 CSV, plain or compressed as "
            f".csv.gz, .csv.bz2 or .csv.zst, or Parquet); {todo}"
        )
    hint = re.match(EXCEL_SEP, head)
    if hint:
        sep = hint.group(1).decode("utf-8", "replace")
        todo = "delete that line" if sep == "," else "save the file as comma-separated CSV without that line"
        raise InputError(
            f"{path}: line 1 is Excel's 'sep={sep}' hint, not a header (reportgen reads comma-separated "
            f"CSV with its header on line 1); {todo}"
        )


def _magic(head: bytes) -> str | None:
    """What :data:`MAGIC` says of a file starting with ``head`` (with what to do), or None."""
    for magic, what in MAGIC:
        # bzip2: "BZh", the block size digit (any: "?"), then the block magic
        if len(head) >= len(magic) and all(m == ord("?") or m == h for m, h in zip(magic, head)):
            return what
    return None


#: Excel's first line naming the delimiter (``sep=,`` or ``sep=;``, a line of its own): read as
#: the header, it made every column "not found (columns: sep=, '')", the file's real header
#: unmentioned; skipped, it would shift every row number a message gives. Refused, in every engine.
EXCEL_SEP = rb"(?is)(?:\xef\xbb\xbf)?sep=(.)\r?\n"


#: How pandas renames the second of two same-named columns (``s`` → ``s.1``).
DEDUPED = r"^(.*)\.(\d+)$"

#: How pandas names a column whose header cell is empty (the fourth: ``Unnamed: 3``).
UNNAMED = r"^Unnamed: \d+$"


def raw_header(path: Path) -> list[str]:
    """The CSV's header as written, repeated names kept (pandas renames them), so that a config
    naming a repeated column is refused rather than read from whichever copy a reader keeps."""
    source = opened_plain(path)
    try:
        # the header line only (pandas read it as UTF-8); bytes after it are not this function's to judge
        return next(csv_records(source), [])
    finally:
        source.close()


def csv_records(source: Any, strict: bool = False) -> Any:
    """A :func:`csv.reader` over a binary stream, as the error paths here scan a CSV: UTF-8 with
    its BOM dropped, undecodable bytes replaced, quoted line breaks kept in their field.

    The module's field limit (131,072 characters by default, process-wide) is raised to
    :data:`MAX_CSV_BLOCK`, the longest row pyarrow reads: a longer field made :mod:`csv` raise
    "field larger than field limit", which the scans reported as a quote left open on the wrong
    row, or (the header check) as an internal error."""
    import csv  # noqa: PLC0415

    if csv.field_size_limit() < MAX_CSV_BLOCK:
        csv.field_size_limit(MAX_CSV_BLOCK)
    return csv.reader(io.TextIOWrapper(source, encoding="utf-8-sig", errors="replace", newline=""), strict=strict)


def csv_error(path: Path, exc: Exception, malformed: str) -> InputError:
    """The one-line error of a CSV that pandas cannot read (``malformed``: how a parse error starts)."""
    if isinstance(exc, UnicodeDecodeError):
        return InputError(f"{path}: not UTF-8 text; re-save the file as UTF-8 CSV")
    if isinstance(exc, OSError):
        return read_failure(path, exc)
    import pandas as pd  # noqa: PLC0415  (an error path; the exception came from pandas' reader)

    if isinstance(exc, pd.errors.EmptyDataError):  # emptied after its header was read
        return empty_csv(path)
    if isinstance(exc, pd.errors.ParserError) and (fault := row_fault(path)) is not None:
        return fault  # "EOF inside string": the row where the quote opens, as every engine says
    return InputError(f"{path}: {malformed} ({first_line(exc)})")


def read_failure(path: Path, exc: OSError) -> InputError:
    """A file that could not be read (gone, or its permissions changed, since it was checked)."""
    if isinstance(exc, FileNotFoundError):
        return InputError(
            f"{path}: file not found (removed or renamed while reportgen was running); "
            f"check 'file' in the config and run again"
        )
    return InputError(f"{path}: cannot read the file ({exc.strerror or exc}); check its permissions")


def empty_csv(path: Path) -> InputError:
    """A CSV file without a header (empty, or blank lines only), or one with a header and no rows:
    pyarrow says "Empty CSV file" for both, so the first bytes decide, as in every engine."""
    try:
        with opened_plain(path) as fh:
            head = fh.read(1 << 16)
    except OSError as exc:
        return read_failure(path, exc)
    if not head.removeprefix(b"\xef\xbb\xbf").strip():
        return InputError(f"{path}: the file is empty; expected a CSV header and rows")
    return no_rows(path)


def parts_of(path: Path) -> list[str]:
    """The files a dataset is made of (Parquet parts in path order, or the CSV file itself)."""
    if is_parquet(path):
        loc = F.locate(path)
        return sorted(loc.child(f.path) for f in parquet_dataset(path).get_fragments())
    return [str(path)]


def check_parts(path: Path, columns: Iterable[str]) -> None:
    """Every part of a Parquet dataset holds every column in ``columns`` (hive partition keys count).

    Without this check pyarrow reads a part that lacks a column as nulls, and the rows were then
    dropped or refused as "missing" values: the user's file is incomplete, not its values.
    Reads each part's footer only."""
    loc = F.locate(path)
    wanted = list(dict.fromkeys(columns))
    for part, names in part_columns(path):
        lacking = [c for c in wanted if c not in names]
        if lacking:
            raise InputError(
                f"{part}: column {lacking[0]!r} not found in this part of the dataset {loc.shown} "
                f"(columns: {', '.join(names)}); write every part with the same columns"
            )
    if is_parquet(path):
        check_flat(path, parquet_dataset(path).schema, wanted)


#: Arrow's nested types by what a message calls their values.
NESTED = (
    ("is_list", "lists"),
    ("is_large_list", "lists"),
    ("is_fixed_size_list", "lists"),
    ("is_list_view", "lists"),
    ("is_large_list_view", "lists"),
    ("is_struct", "records"),
    ("is_map", "maps"),
    ("is_union", "unions"),
)


def nested(t: Any) -> str | None:
    """What an Arrow type's values are called when they are nested (``"lists"``), else None."""
    import pyarrow as pa  # noqa: PLC0415

    return next((w for test, w in NESTED if getattr(pa.types, test, lambda _t: False)(t)), None)


def check_flat(path: Any, schema: Any, columns: Iterable[str]) -> None:
    """Refuse a Parquet column the config reads that holds nested values (lists, structs, maps):
    a list label or id was an internal error in every engine (``dictionary_encode`` / ``cast`` has
    no kernel for it), a list score "non-numeric value array([0.714])"."""
    import pyarrow as pa  # noqa: PLC0415

    for name in columns:
        if name not in schema.names:
            continue
        t = schema.field(name).type
        t = t.value_type if pa.types.is_dictionary(t) else t
        what = nested(t)
        if what is not None:
            raise InputError(
                f"{path}: column {name!r} holds {what} ({t}), not one value per row; name a column of "
                f"single values (numbers or text), or flatten it when the file is written"
            )


def part_columns(path: Path) -> list[tuple[str, list[str]]]:
    """(part, its column names with the hive partition keys) of each part of a Parquet dataset
    directory, in path order; empty for a single file or a CSV. Reads each part's footer only;
    a part whose footer cannot be read (damaged, truncated, not Parquet) is an error naming it."""
    loc = F.locate(path)
    if not is_parquet(path) or (path.is_file() if loc.local else F.kind(loc) == "file"):
        return []
    import pyarrow as pa  # noqa: PLC0415
    import pyarrow.dataset as ds  # noqa: PLC0415

    out = []
    for fragment in sorted(parquet_dataset(path).get_fragments(), key=lambda f: f.path):
        part = loc.key(fragment.path) if not loc.local else fragment.path
        try:
            names = list(fragment.physical_schema.names)
        except (pa.ArrowException, OSError, ValueError) as exc:
            raise unreadable_parquet(part, exc) from None
        if (twice := next((n for n in names if names.count(n) > 1), None)) is not None:
            # the dataset's schema comes from one part: another that repeats a name would be read
            # with either of its columns
            raise InputError(
                f"{part}: column {twice!r} appears {names.count(twice)} times in the Parquet schema; "
                f"rename the duplicates so that the config names one column"
            )
        names += [k for k in ds.get_partition_keys(fragment.partition_expression) if k not in names]
        out.append((part, names))
    return out


def named_by_dataset(exc: InputError, parts_of_file: dict[Path, list[str]]) -> InputError:
    """An error raised while one part of a Parquet dataset was read on its own (a Dask task reads
    a part as a file), worded as the engines that read the whole dataset word it: the dataset
    named instead of the part, and a row number counted from the dataset's first row (the rows
    of the parts before it, from their footers, added). Any other error is returned as it is.

    Without this, memory and stream said "ds: row 45: missing score" and dask
    "ds/k=1/p.parquet: row 5: missing score" for the same row."""
    text = str(exc)
    for dataset, parts in parts_of_file.items():
        if len(parts) < 2 and (not parts or parts[0] == str(dataset)):
            continue
        for k, part in enumerate(parts):
            if not text.startswith(f"{part}: "):
                continue
            rest = text[len(part) + 2 :]
            if (m := re.search(r"\brow (\d+)", rest)) is not None:
                before = sum(part_rows(dataset)[:k])
                rest = f"{rest[: m.start(1)]}{int(m.group(1)) + before}{rest[m.end(1) :]}"
            return InputError(f"{dataset}: {rest}")
    return exc


def part_rows(path: Path) -> list[int]:
    """The rows of each part of a Parquet dataset, in :func:`parts_of`'s order (from the footers)."""
    fragments = sorted(parquet_dataset(path).get_fragments(), key=lambda f: f.path)
    return [f.metadata.num_rows for f in fragments]


def no_rows(path: Path) -> InputError:
    """The error for a file without data rows (the same in every engine)."""
    if is_parquet(path):
        return InputError(f"{path}: the file has no rows")
    return InputError(f"{path}: the file has a header but no rows")


def csv_options(
    columns: list[str], numbers: Iterable[str], text: Iterable[str], block_size: int | None = None
) -> tuple:
    """pyarrow CSV (read, convert) options: only ``columns``, typed explicitly.

    ``numbers`` are float64 (the :data:`NA_VALUES` spellings are missing), ``text`` columns are
    strings that are never null (an empty cell is the empty string: missing by the key rule);
    other columns read (a date column) keep pyarrow's inference."""
    import pyarrow as pa  # noqa: PLC0415
    import pyarrow.csv as pacsv  # noqa: PLC0415

    types = {c: pa.float64() for c in numbers if c in columns}
    types.update({c: pa.string() for c in text if c in columns})
    read = pacsv.ReadOptions(block_size=block_size) if block_size else pacsv.ReadOptions()
    convert = pacsv.ConvertOptions(
        include_columns=columns,
        column_types=types,
        null_values=list(NA_VALUES),
        strings_can_be_null=False,
        quoted_strings_can_be_null=False,
    )
    return read, convert


def streamed_parquet(path: Path) -> dict[str, Any]:
    """The scan options of a Parquet dataset read batch by batch: a local one without pyarrow's
    pre-buffering, which read every row group's column chunks of a part ahead and held them until
    the part was done (40M rows in one 977 MB file: 0.93 GB of raw chunks held, ``engine: stream``
    peaked at 2.8 GB, now 1.9–2.1 GB, memory no longer growing with the part; about 15 % more wall
    time on that file, its chunks read as the batches need them). A remote dataset keeps it (one
    request per coalesced range)."""
    if not F.locate(path).local:
        return {}
    import pyarrow.dataset as ds  # noqa: PLC0415

    return {"fragment_scan_options": ds.ParquetFragmentScanOptions(pre_buffer=False)}


def record_batches(
    path: Path, columns: list[str], batch_rows: int, numbers: Iterable[str] = (), text: Iterable[str] = ()
) -> Generator[Any, None, None]:
    """pyarrow record batches of the file's ``columns`` (about ``batch_rows`` rows each).

    CSV columns are typed by :func:`csv_options`; a cell of a ``numbers`` column that is not a
    number is an error naming its row (:func:`locate_non_number`); any other error pyarrow
    raises is worded as the in-memory engine words it (:func:`csv_arrow_error`). A row longer
    than the CSV block (pyarrow's "straddling object") is read again with a block eight times
    larger, the rows already yielded skipped, up to :data:`MAX_CSV_BLOCK`. Parquet parts are
    read with :func:`read_schema`'s types."""
    import pyarrow as pa  # noqa: PLC0415

    numbers, text = list(numbers), list(text)
    if is_parquet(path):
        try:
            data = scanned_dataset(path, numbers)
            options = {} if isinstance(data, ParquetFileData) else streamed_parquet(path)
            for rb in data.to_batches(columns=columns, batch_size=batch_rows, **options):
                if rb.num_rows:
                    yield rb
        except (pa.ArrowException, OSError, ValueError) as exc:
            raise unreadable_parquet(path, exc) from None
        return
    block = max(1 << 20, min(1 << 28, batch_rows * 16 * max(1, len(columns))))
    done = 0  # rows yielded: a re-read with a larger block skips them
    while True:
        try:
            for rb in _csv_batches(path, columns, numbers, text, block, done):
                done += rb.num_rows
                yield rb
            return
        except _Straddle as more:
            done = more.done
            block = larger_block(path, block)
        except pa.ArrowInvalid as exc:
            if "conversion error" in str(exc) and odd_quotes(path) and (fault := row_fault(path)) is not None:
                raise fault from None  # a quote left open: the value runs on over the next rows
            if "conversion error" in str(exc) and "invalid UTF8" not in str(exc) and numbers:
                locate_non_number(path, columns, numbers, text, batch_rows)
                # every cell a number by the row rule's parse (true / false as 1 / 0): read on with it
                yield from _numbers_parsed(path, columns, numbers, text, batch_rows, done)
                return
            raise csv_arrow_error(path, exc) from None
        except (pa.ArrowException, OSError, ValueError) as exc:
            raise csv_arrow_error(path, exc) from None


#: The largest CSV block pyarrow is given: a row must fit in one block ("straddling object").
MAX_CSV_BLOCK = 1 << 30


def longer_than_block(exc: Exception, path: Path, block: int) -> bool:
    """Whether pyarrow refused a CSV read in ``block``-byte blocks because a row is longer than a
    block: "straddling object" for a record, "Empty CSV file or block" for a header longer than
    the first block (the same words as for an empty file or a header without a line break, told
    apart by the file's size). Both engines then read again with :func:`larger_block`."""
    text = str(exc)
    if "straddl" in text:
        return True
    if "Empty CSV file or block" not in text:
        return False
    if codec_of(path) is None:
        return input_bytes(path) > block
    with opened_plain(path) as fh:  # the text's length, not the compressed file's
        return len(fh.read(block + 1)) > block


def larger_block(path: Path, block: int) -> int:
    """The next CSV block size after ``block`` (eight times larger, at most :data:`MAX_CSV_BLOCK`),
    or the one-line error of a row longer than the largest block, the same in every engine."""
    if block >= MAX_CSV_BLOCK:
        raise InputError(
            f"{path}: a row is longer than {MAX_CSV_BLOCK >> 20} MB; shorten the values or convert the file to Parquet"
        ) from None
    return min(MAX_CSV_BLOCK, block * 8)


class _Straddle(Exception):
    """A row longer than the CSV block: read again with a larger block, ``done`` rows skipped."""

    def __init__(self, done: int) -> None:
        super().__init__(done)
        self.done = done


def _csv_batches(
    path: Path, columns: list[str], numbers: list[str], text: list[str], block: int, skip: int
) -> Iterator[Any]:
    """One pass of :func:`record_batches` over a CSV file with ``block``-byte blocks, the first
    ``skip`` rows left out (yielded by an earlier pass); a row longer than a block raises
    :class:`_Straddle` with the rows yielded so far."""
    import pyarrow as pa  # noqa: PLC0415
    import pyarrow.csv as pacsv  # noqa: PLC0415

    read, convert = csv_options(columns, numbers, text, block)
    source = opened(path)
    gate = ReadAhead(open(path, "rb", buffering=0) if source is path else source, block, owned=source is path)  # noqa: SIM115
    seen, checked = 0, False
    try:
        try:
            for rb in pacsv.open_csv(io.BufferedReader(gate, 1 << 20), read_options=read, convert_options=convert):
                gate.taken()
                start, seen = seen, seen + rb.num_rows
                if seen <= skip:
                    continue
                rb = rb.slice(max(0, skip - start))
                if any(pa.types.is_binary(t) or pa.types.is_large_binary(t) for t in rb.schema.types):
                    raise InputError(f"{path}: not UTF-8 text; re-save the file as UTF-8 CSV")  # an inferred column
                if not checked and (line_break_in_text(rb.columns) or F.locate(path).local):
                    # a quoted multi-line value, or a quote left open (pyarrow reads on to the end of
                    # the file as one value: a label of many lines, or none refused in the last row).
                    # A local file is checked whatever its read columns hold: a quote left open in a
                    # column the config does not read took every later row into that value, silently
                    # (the in-memory engine, checking the file's quotes, refused it)
                    checked = True
                    if odd_quotes(path) and (fault := row_fault(path)) is not None:
                        raise fault
                if rb.num_rows:
                    yield rb
        except pa.ArrowInvalid as exc:
            if longer_than_block(exc, path, block):
                raise _Straddle(max(seen, skip)) from None
            raise
    finally:
        gate.close()  # a parser thread waiting for room sees the end of the file
        if source is not path:
            source.close()


class ReadAhead(io.RawIOBase):
    """A binary file whose reader may get at most :data:`READ_AHEAD_BLOCKS` blocks ahead of the
    batches its consumer has taken (:meth:`taken`); a read past that waits.

    pyarrow's streaming CSV reader reads its input ahead on its I/O threads as fast as the
    disk gives it, whatever the consumer has taken: a 1.16 GB CSV was held whole in memory
    after the first batch (``engine: stream`` peaked at 1.68 GB on 40M rows, growing with the
    file; 1.36 GB with this). Each batch taken allows one more block, so the parser never waits
    for bytes it needs (batch k ends within the first k + 1 blocks; k batches taken allow
    k + 2). A read kept waiting :data:`READ_AHEAD_WAIT` seconds goes on by one block (a consumer
    holding several readers at once can never deadlock pyarrow's I/O threads). Closed (the
    consumer stopped early), a waiting read ends as at the end of the file; ``inner`` is closed
    with it when ``owned``."""

    def __init__(self, inner: Any, block: int, owned: bool = False) -> None:
        super().__init__()
        self._inner = inner
        self._owned = owned
        self._block = block
        self._allowed = READ_AHEAD_BLOCKS * block
        self._read = 0
        self._stopped = False
        self._room = threading.Condition()

    def readable(self) -> bool:
        return True

    def taken(self) -> None:
        """The consumer took a batch: the parser may read one block further."""
        with self._room:
            self._allowed += self._block
            self._room.notify_all()

    def readinto(self, buffer: Any) -> int:
        with self._room:
            if not self._room.wait_for(lambda: self._read < self._allowed or self._stopped, READ_AHEAD_WAIT):
                self._allowed = self._read + self._block
            if self._stopped:
                return 0
            room = self._allowed - self._read
        view = memoryview(buffer)[:room]
        if hasattr(self._inner, "readinto"):
            n = self._inner.readinto(view) or 0
        else:  # a remote file's stream
            data = self._inner.read(len(view))
            n = len(data)
            view[:n] = data
        with self._room:
            self._read += n
        return n

    def close(self) -> None:
        with self._room:
            self._stopped = True
            self._room.notify_all()
        if self._owned:
            self._inner.close()
        super().close()


#: Blocks a CSV parser may read beyond the batches its consumer has taken (:class:`ReadAhead`).
READ_AHEAD_BLOCKS = 2
#: Seconds a read waits for the consumer before it goes on anyway (:class:`ReadAhead`).
READ_AHEAD_WAIT = 10.0


def csv_arrow_error(path: Path, exc: Exception) -> InputError:
    """The one-line error of a CSV file pyarrow refuses, worded as the in-memory engine words it
    (:func:`csv_error`, :func:`no_rows`, :func:`ragged_row`) so that every engine says the same."""
    text = str(exc)
    if re.search(RAGGED, text):
        return ragged_row(path)
    if "invalid UTF8" in text:
        return InputError(f"{path}: not UTF-8 text; re-save the file as UTF-8 CSV")
    if "Empty CSV file" in text:  # no header (emptied since it was read), or a header without a line break
        return empty_csv(path)
    import pyarrow as pa  # noqa: PLC0415

    if isinstance(exc, OSError) and not isinstance(exc, pa.ArrowException):
        return read_failure(path, exc)
    return InputError(f"{path}: cannot read ({first_line(exc)})")


def unreadable_parquet(path: Any, exc: Exception) -> InputError:
    """The one-line error of Parquet data that cannot be read, the same in every engine: a file
    the user may not read is named with what to do about its permissions (pyarrow names the
    file in its message); otherwise the part is damaged, truncated or not Parquet."""
    text = F.shown_text(first_line(exc))
    if (denied := re.search(_DENIED, text)) is not None or getattr(exc, "errno", None) == 13:
        return InputError(
            f"{denied.group(1) if denied else path}: cannot open (Permission denied); check the path and its permissions"
        )
    return InputError(f"{path}: cannot read as Parquet ({text}); rewrite the file, or remove the damaged part")


#: pyarrow's message for a local file it may not open (the file is named in it).
_DENIED = r"Failed to open local file '([^']+)'\. Detail: \[errno 13\]"


#: pyarrow's parse error for a row whose field count differs from the header's.
RAGGED = r"Expected \d+ columns, got \d+"


def ragged_row(path: Path) -> InputError:
    """The one error of a CSV row with more or fewer fields than the header, the same in every
    engine: its row number (header = row 1, records counted as RFC 4180 reads them, a quoted line
    break inside one) and both counts. pyarrow refuses such a file and pandas would silently pad
    a short row with missing cells or, reading some columns, drop a long row's extra fields, so
    the file is refused whoever reads it. Found by one scan with :mod:`csv`, on this error path only."""
    return row_fault(path) or InputError(f"{path}: cannot read (a row's field count differs from the header's)")


def line_break_in_text(columns: Iterable[Any]) -> bool:
    """Whether a value of a string column among ``columns`` (pyarrow arrays) holds a line break."""
    import pyarrow as pa  # noqa: PLC0415
    import pyarrow.compute as pc  # noqa: PLC0415

    return any(
        (pa.types.is_string(col.type) or pa.types.is_large_string(col.type))
        and (pc.any(pc.match_substring(col, "\n")).as_py() or pc.any(pc.match_substring(col, "\r")).as_py())
        for col in columns
    )


def row_fault(path: Path) -> InputError | None:
    """The first row of a CSV whose fields cannot be right, as one error, or None: a field count
    other than the header's (:func:`ragged_row`), or a quote left open (to the end of the file)
    or misplaced. A quote left open in the last column kept the field count, so each engine
    told it its own way — pandas "EOF inside string", pyarrow a score of several lines that is
    not a number, or "conversion error" — and now all three name the row where it opens. One
    scan with :mod:`csv` (strict), on an error path only."""
    import csv  # noqa: PLC0415

    source = opened_plain(path)
    width, record = None, 0
    try:
        reader = csv_records(source, strict=True)
        for fields in reader:
            if not fields:
                continue  # a blank line is no row (as every reader here skips it)
            record += 1
            if width is None:
                width = len(fields)
            elif len(fields) != width:
                return InputError(
                    f"{path}: row {record}: {len(fields)} fields where the header has {width}; "
                    f"give every row one field per header column (quote a value that holds a comma)"
                )
    except csv.Error:
        return InputError(
            f"{path}: row {record + 1}: a quote is left open or misplaced (malformed CSV); "
            f"close the quote or remove the stray one"
        )
    finally:
        source.close()
    return None


def opened_plain(path: Path) -> Any:
    """A binary stream of the file's text (decompressed: :func:`decompressed`), local or remote,
    outside :func:`hashing` (an error path's second read)."""
    return decompressed(path, opened_stored(path))


def opened_stored(path: Path) -> Any:
    """A binary stream of the file's bytes as stored (compressed or not), local or remote."""
    loc = F.locate(path)
    return open(path, "rb") if loc.local else F.open_input(loc)


def locate_non_number(path: Path, columns: list[str], numbers: list[str], text: list[str], batch_rows: int) -> None:
    """Read the CSV again with ``numbers`` as text and raise the first non-numeric cell's error
    (:func:`reportgen.io.validate.numeric`): the message the in-memory engine gives."""
    offset = 0
    for rb in record_batches(path, columns, batch_rows, (), [*text, *numbers]):
        for c in numbers:
            numeric(rb.column(c).to_pandas().replace(list(NA_VALUES), None), path, c, offset)
        offset += rb.num_rows


def _numbers_parsed(
    path: Path, columns: list[str], numbers: list[str], text: list[str], batch_rows: int, skip: int
) -> Iterator[Any]:
    """The CSV's batches from row ``skip`` on, ``numbers`` read as text and parsed by
    :func:`reportgen.io.validate.numeric`: a file whose number columns pyarrow cannot parse
    although every cell is a number by the row rule (``true`` / ``false``: 1 / 0), so the
    streamed engines read what ``engine: memory`` reads."""
    import pyarrow as pa  # noqa: PLC0415

    for rb, start in numbers_as_text(path, columns, batch_rows, numbers, text, skip):
        arrays = [
            pa.array(numeric(col.to_pandas(), path, name, start), pa.float64(), from_pandas=True)
            if name in numbers
            else col
            for name, col in zip(rb.schema.names, rb.columns)
        ]
        yield pa.RecordBatch.from_arrays(arrays, names=rb.schema.names)


def numbers_as_text(
    path: Path, columns: list[str], batch_rows: int, numbers: list[str], text: list[str], skip: int
) -> Iterator[tuple[Any, int]]:
    """The CSV's record batches from row ``skip`` on, with the row (0-based) each starts at, the
    ``numbers`` columns read as text (:data:`NA_VALUES` spellings missing, as the typed reader
    has them): what a reader whose typed read failed reads on with."""
    import pyarrow as pa  # noqa: PLC0415
    import pyarrow.compute as pc  # noqa: PLC0415

    na = pa.array(NA_VALUES, type=pa.string())
    seen = 0
    for rb in record_batches(path, columns, batch_rows, (), [*text, *numbers]):
        start, seen = seen, seen + rb.num_rows
        if seen <= skip:
            continue
        rb = rb.slice(max(0, skip - start))
        arrays = [
            pc.if_else(pc.is_in(col, value_set=na), pa.scalar(None, pa.string()), col) if name in numbers else col
            for name, col in zip(rb.schema.names, rb.columns)
        ]
        yield pa.RecordBatch.from_arrays(arrays, names=rb.schema.names), max(start, skip)


def read_table(
    path: Path, columns: list[str], numbers: Iterable[str] = (), text: Iterable[str] = (), arrow: bool = False
) -> Any:
    """Read only ``columns`` (known to exist) from a CSV or Parquet file, with one-line errors:
    a pandas DataFrame, or with ``arrow`` whatever the reader gave — a pyarrow Table (pyarrow's
    readers; no round trip through pandas) or a DataFrame (the lenient pandas reader).

    CSV: ``text`` columns as strings (only an empty cell is empty), ``numbers`` as float64 with
    the :data:`NA_VALUES` spellings as NaN (checked by :func:`reportgen.io.validate.numeric`
    later), any other column (a date) as text with those spellings missing — never inferred.
    pyarrow's multi-threaded reader parses the file (:func:`arrow_csv_frame`, typed as the
    streamed engines type it); a file it refuses — a short or long row, a cell that is not a
    number, bytes that are not UTF-8, a header pandas renames (``s.1``, ``Unnamed: 2``) — or
    may misread — a line break in a text value, an odd number of quotes (:func:`odd_quotes`) —
    is read by :func:`pandas_csv_frame`, the lenient reader this engine always used, so such a
    file is accepted, or refused with the same message, as before. A row or header longer
    than pyarrow's block is read again with a larger block, as the streamed engines read it
    (pandas, reading it instead, padded a short row with missing cells that every other engine
    refused)."""
    import pyarrow as pa  # noqa: PLC0415

    if is_parquet(path):
        check_parts(path, columns)
        try:
            table = scanned_dataset(path, numbers).to_table(columns=columns)
        except (pa.ArrowException, OSError, ValueError) as exc:
            raise unreadable_parquet(path, exc) from None
        if table.num_rows == 0:
            raise no_rows(path)
        return table if arrow else table.to_pandas()
    text = [c for c in text if c in columns]
    numbers = [c for c in numbers if c in columns and c not in text]
    df = arrow_csv_frame(path, columns, numbers, text, arrow)
    if df is None:
        df = pandas_csv_frame(path, columns, text, numbers)
    if len(df) == 0:
        raise no_rows(path)
    return df


def arrow_csv_frame(path: Path, columns: list[str], numbers: list[str], text: list[str], arrow: bool = False) -> Any:
    """The CSV's ``columns`` read by pyarrow's multi-threaded reader (a DataFrame, or with
    ``arrow`` the pyarrow Table), or None if it refuses the file.

    Typed by :func:`csv_options` (the streamed engines' types): ``numbers`` float64, ``text`` and
    every other column strings, so a column integral for 48 MB and decimal later is read like
    any other; in the other columns the :data:`NA_VALUES` spellings become missing, as pandas'
    ``na_values`` made them. Under :func:`hashing` the parser reads through the hashing file
    (:func:`opened`), so the digest is of the bytes parsed. Text columns come back as pandas'
    Arrow-backed strings (the dtype ``pd.read_csv(dtype=str)`` gives), without a copy."""
    import pyarrow as pa  # noqa: PLC0415
    import pyarrow.compute as pc  # noqa: PLC0415
    import pyarrow.csv as pacsv  # noqa: PLC0415

    other = [c for c in columns if c not in numbers and c not in text]
    block = 1 << 20  # pyarrow's default; a row (or the header) longer than it: read again, 8 times larger
    table: Any = None  # read in the loop, which ends only once it is
    while True:
        read, convert = csv_options(columns, numbers, [*text, *other], block)
        # pandas' Arrow-backed strings are large_string: read them so, and to_pandas copies nothing
        convert.column_types = {
            c: pa.large_string() if t == pa.string() else t for c, t in convert.column_types.items()
        }
        source: Any = path
        try:
            source = opened(path)
            table = pacsv.read_csv(
                source if source is not path else str(path), read_options=read, convert_options=convert
            )
            if source is not path:
                source.read()  # to the end, so the digest is recorded (the parser stops at the last block)
            break
        except (pa.ArrowException, OSError, ValueError) as exc:
            if isinstance(exc, pa.ArrowInvalid) and re.search(RAGGED, str(exc)):
                raise ragged_row(path) from None  # one rule in every engine: pandas would pad or drop fields
            if isinstance(exc, pa.ArrowInvalid) and longer_than_block(exc, path, block):
                block = larger_block(path, block)  # pandas, reading it instead, padded a short row
                continue
            return None  # the lenient reader decides: it accepts, or gives this engine's message
        finally:
            if source is not path:
                source.close()
    if line_break_in_text([table.column(c) for c in [*text, *other]]):
        return None  # a quote left open, or a quoted multi-line value: the lenient reader decides
    if odd_quotes(path):
        return None
    missing = pa.array(NA_VALUES, pa.large_string()) if other else None
    for c in other:
        col = table.column(c)
        table = table.set_column(
            table.schema.get_field_index(c),
            c,
            pc.if_else(pc.is_in(col, value_set=missing), pa.scalar(None, pa.large_string()), col),
        )
    return table if arrow else table.to_pandas()


def odd_quotes(path: Path) -> bool:
    """Whether the file holds an odd number of ``"`` characters.

    Every quoted CSV field (RFC 4180) holds an even number of them (its two quotes, each inner
    quote doubled), so an odd count is a quote left open — which pyarrow reads on to the end of
    the file as one value where pandas refuses the file ("EOF inside string") — or a stray quote
    inside an unquoted field, which pandas reads as a character: either way pandas decides (as
    for a file that cannot be opened here). One scan of the file mapped in memory a window of
    :data:`QUOTE_WINDOW` bytes at a time (a window without quotes: one ``memchr``); each window is
    unmapped before the next, so the scan adds at most one window to the resident memory (the
    whole file mapped at once kept every page resident: 290 MB more for a 10M-row CSV, as much
    as the streamed run's batches)."""
    import mmap  # noqa: PLC0415

    import numpy as np  # noqa: PLC0415

    if codec_of(path) is not None:  # a compressed file: its text counted as it is decompressed
        if not F.locate(path).local:
            return True  # as for any remote file: pandas decides
        with opened_plain(path) as fh:
            return sum(block.count(b'"') for block in iter(lambda: fh.read(QUOTE_WINDOW), b"")) % 2 == 1
    try:
        fh = open(path, "rb")  # noqa: SIM115 - closed below
    except OSError:
        return True  # not a local file this can map: pandas decides
    count = 0
    with fh:
        size = os.fstat(fh.fileno()).st_size
        for start in range(0, size, QUOTE_WINDOW):
            with mmap.mmap(fh.fileno(), min(QUOTE_WINDOW, size - start), offset=start, access=mmap.ACCESS_READ) as mm:
                first = mm.find(b'"')  # memchr: a window without quotes costs one fast scan
                if first >= 0:
                    data = np.frombuffer(mm, dtype=np.uint8)
                    count += int(np.count_nonzero(data[first:] == ord('"')))
                    del data
    return count % 2 == 1


#: Bytes of a file mapped at once by :func:`odd_quotes` (a multiple of ``mmap.ALLOCATIONGRANULARITY``).
QUOTE_WINDOW = 1 << 25


def pandas_csv_frame(path: Path, columns: list[str], text: list[str], numbers: Iterable[str] = ()) -> pd.DataFrame:
    """The CSV's ``columns`` read by pandas (the fallback of :func:`read_table`): ``text`` as
    strings, the :data:`NA_VALUES` spellings missing in the others; short rows are padded with
    missing cells, unreadable files give :func:`csv_error`'s one line."""
    import pandas as pd  # noqa: PLC0415  (the fallback reader only)

    source: Any = path
    try:
        source = opened(path)
        # numbers as text too, parsed later by validate.numeric as every engine parses them (pandas
        # read "true" / "false" in a score column as booleans, i.e. 1 / 0, where the others refused them)
        df = pd.read_csv(
            source,
            usecols=columns,
            encoding="utf-8",
            low_memory=False,
            keep_default_na=False,
            dtype={c: str for c in [*text, *numbers]},
            na_values={c: list(NA_VALUES) for c in columns if c not in text},
        )
        if source is not path:
            source.read()  # to the end, so the digest is recorded (pandas has read every byte already)
    except (UnicodeDecodeError, OSError, pd.errors.ParserError, ValueError) as exc:
        raise csv_error(path, exc, "malformed CSV") from None
    finally:
        if source is not path:
            source.close()
    return df


#: A message about a file's row, as the readers word it: the file first, then the row
#: ("a.csv: row 7", "a.csv: column 's', row 7", "a.csv: model 'a': row 7").
_FILE_ROW = r"^(?P<path>.+?)(?P<mid>: (?:column '[^']*', |model '[^']*': )?row )(?P<row>\d+)\b"

#: Bytes that start a blank line somewhere in a file (or a file starting with one).
_BLANK = rb"\n\r?\n|\r\r|\r\n\r?\n"


def has_blank_line(path: Path) -> bool:
    """Whether a CSV holds an empty line (a quoted value's empty line counts too: the scan that
    follows tells them apart). Read in 32 MiB chunks, on an error path only."""
    chunk, tail = 32 << 20, b""
    try:
        fh = opened_plain(path)
    except OSError:
        return False
    with fh:
        first = True
        while block := fh.read(chunk):
            text = tail + block
            if first and text.removeprefix(b"\xef\xbb\xbf")[:1] in (b"\n", b"\r"):
                return True
            if re.search(_BLANK, text):
                return True
            first, tail = False, text[-3:]
    return False


def row_as_written(path: Path, row: int) -> int:
    """The row the readers call ``row`` (the header 1, a blank line no row: pyarrow and pandas
    skip it) numbered as the file's lines, a blank line counted (as an editor and a spreadsheet
    number it): row 9 after one blank line is line 10."""
    if row < 1 or not has_blank_line(path):
        return row
    import csv  # noqa: PLC0415

    try:
        source = opened_plain(path)
    except OSError:
        return row
    try:
        records = 0
        for line, fields in enumerate(csv_records(source), start=1):
            if fields:
                records += 1
                if records == row:
                    return line
    except (OSError, csv.Error):  # a file the scan cannot follow keeps the readers' number
        return row
    finally:
        source.close()
    return row


@contextmanager
def rows_as_lines() -> Iterator[None]:
    """Within the block, a :class:`~reportgen.errors.InputError` naming a row of a local CSV file
    that holds blank lines names it by the file's line (:func:`row_as_written`): every engine and
    ``validate`` counted records, so after a blank line "row 9" was the file's line 10, where the
    README says a file's rows are numbered as its lines."""
    try:
        yield
    except InputError as exc:
        text = str(exc)
        m = re.match(_FILE_ROW, text)
        if m is None or getattr(exc, "lines_counted", False):  # once: the blocks nest (validate's, a run's)
            raise
        raw = m.group("path")
        if scheme_of(raw) is not None or is_folded(raw):  # a URI (its file is read again only locally)
            raise
        path = Path(raw)
        try:
            local = path.is_file() and not is_parquet(path)
        except (OSError, ValueError):
            local = False
        if not local:
            raise
        row = row_as_written(path, int(m.group("row")))
        exc.lines_counted = True  # type: ignore[attr-defined]
        if row == int(m.group("row")):
            raise
        counted = type(exc)(f"{m.group('path')}{m.group('mid')}{row}{text[m.end() :]}")
        counted.lines_counted = True  # type: ignore[attr-defined]
        raise counted from None
