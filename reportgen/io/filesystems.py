"""Where an input lives: a local path, or a URI read through one of pyarrow's filesystems.

A model's ``file:`` (and ``reference:``) may be a URI that :meth:`pyarrow.fs.FileSystem.from_uri`
understands (``s3://bucket/key``, ``gs://bucket/key``, ``hdfs://host:port/path``,
``abfs://…``); ``file://`` URIs become local paths when the config is read. The URI is checked
for its form when the config is read (:func:`checked_uri`: a known scheme, no secret in it) and
resolved to ``(filesystem, path)`` only where a file is opened (:func:`locate`), so a config
is loaded without touching the network and each reader asks for the filesystem it needs.

**How a URI travels.** The loaders hold every input as a :class:`pathlib.Path`, which folds the
``//`` after the scheme: ``s3://b/k`` becomes ``s3:/b/k``. That form is unambiguous (a local
input is absolute once the config is loaded, so it starts with ``/``), and :func:`locate` turns
it back into the URI; :func:`checked_uri` makes sure nothing else in the URI is folded
(a ``/`` inside a query value is percent-encoded, which pyarrow decodes; an empty authority or
``//`` inside the path is refused). A part of a remote dataset travels the same way, as the
dataset's URI with the part's relative path appended (:meth:`Location.child`), so a Dask worker
resolves it from the string alone.

**What is shown.** Messages, the report and the audit trail show :attr:`Location.shown`: the
URI without user info and without query string (an endpoint or a region is not needed to
recognise a file, and nothing secret is ever written). :func:`shown_text` rewrites the folded
form wherever a message or a record built by the loaders holds it.

Outputs (``output.dir``), the history store, templates and logos stay local paths.
"""

from __future__ import annotations

import dataclasses
import functools
import os
import re
from collections.abc import Iterator
from contextlib import contextmanager
from dataclasses import dataclass
from pathlib import Path
from typing import Any
from urllib.parse import quote, urlsplit, urlunsplit

from reportgen.config import SCHEMES, scheme_of, unfolded
from reportgen.errors import InputError, UserError
from reportgen.redact import masked
from reportgen.value import Value

#: Environment variables whose values are masked in any message (pyarrow's filesystems read them).
SECRET_ENV = (
    "AWS_SECRET_ACCESS_KEY",
    "AWS_SESSION_TOKEN",
    "AWS_ACCESS_KEY_ID",
    "AZURE_STORAGE_ACCOUNT_KEY",
    "AZURE_CLIENT_SECRET",
    "GOOGLE_APPLICATION_CREDENTIALS",
)

# a folded URI inside a message: up to whitespace, a quote, or ": " (the message's own separator)
_FOLDED_IN_TEXT = re.compile(
    r"(?<![\w/:])(" + "|".join(SCHEMES) + r"):/(?!/)([^\s'\"?]*?)(\?[^\s'\"]*?)?(?=:\s|:$|[\s'\",;)]|$)"
)


def _shown(uri: str) -> str:
    p = urlsplit(uri)
    return urlunsplit((p.scheme, p.netloc.rpartition("@")[2], p.path, "", ""))


def shown_text(text: str) -> str:
    """``text`` with every folded URI in it written as :attr:`Location.shown` (``s3:/b/k?…`` → ``s3://b/k``)."""
    return _FOLDED_IN_TEXT.sub(lambda m: f"{m.group(1)}://{m.group(2)}", text)


def _mask(text: str) -> str:
    """``text`` (a storage client's message) without a URI's secrets or a credential from the environment."""
    text = masked(text)
    for name in SECRET_ENV:
        value = os.environ.get(name)
        if value and len(value) >= 4:
            text = text.replace(value, "***")
    return text


def storage_error(shown: str, exc: BaseException) -> InputError:
    """The one-line error of a filesystem that cannot be reached or refuses the credentials
    (pyarrow's first line, with any credential from the environment masked)."""
    first = (str(exc).strip().splitlines() or [type(exc).__name__])[0]
    return InputError(
        f"{shown}: cannot read from the storage ({_mask(shown_text(first))}); check the credentials "
        f"in the environment, the endpoint and the network"
    )


@dataclass(frozen=True, repr=False, eq=False, slots=True)
class Location(Value):
    """An input resolved for reading: the filesystem (None: local), the path inside it, the URI
    it came from (None: local) and what messages show."""

    fs: Any
    path: str
    uri: str | None
    shown: str

    @property
    def local(self) -> bool:
        return self.uri is None

    def key(self, fs_path: str) -> str:
        """What the audit trail (and :class:`~reportgen.io.files.Digests`) calls a file at
        ``fs_path`` inside this location's filesystem: an absolute local path, or the file's URI
        without query."""
        if self.uri is None:
            return os.path.abspath(fs_path)
        return _shown(self.child(fs_path))

    def child(self, fs_path: str) -> str:
        """The input a Path can carry for the file at ``fs_path`` under this location (a part of a
        dataset directory): a local path, or this URI with the relative path appended."""
        if self.uri is None:
            return fs_path
        root = self.path.rstrip("/")
        if fs_path == root:
            return self.uri
        if not fs_path.startswith(root + "/"):  # pragma: no cover - pyarrow lists only below the root
            raise InputError(f"{self.shown}: pyarrow listed {fs_path!r}, outside the dataset")
        p = urlsplit(self.uri)
        rel = quote(fs_path[len(root) + 1 :], safe="/=:@!$&'()*+,;-._~")
        return urlunsplit((p.scheme, p.netloc, p.path.rstrip("/") + "/" + rel, p.query, ""))


def locate(path: Path | str) -> Location:
    """Where ``path`` lives: local, or a URI (also in its folded Path form) resolved by
    :meth:`pyarrow.fs.FileSystem.from_uri` — with one-line errors: an unknown scheme, a
    filesystem pyarrow was built without, or one that cannot be reached or authenticated."""
    text = str(path)
    uri = unfolded(text) or (text if scheme_of(text) in SCHEMES else None)
    return Location(None, text, None, text) if uri is None else _remote(uri)


@functools.lru_cache(maxsize=64)
def _remote(uri: str) -> Location:
    """The filesystem of ``uri`` (cached per process: an S3 filesystem resolves its region once)."""
    import pyarrow as pa  # noqa: PLC0415
    import pyarrow.fs as pafs  # noqa: PLC0415

    shown = _shown(uri)
    try:
        fs, inner = pafs.FileSystem.from_uri(uri)
    except pa.ArrowNotImplementedError as exc:
        raise InputError(f"{shown}: this pyarrow was built without that filesystem ({first_line(exc)})") from None
    except pa.ArrowInvalid as exc:
        raise InputError(f"{shown}: not a URI pyarrow can read ({_mask(first_line(exc))})") from None
    except OSError as exc:  # a region lookup that fails, a missing client library (libjvm for HDFS)
        raise storage_error(shown, exc) from None
    return Location(fs, inner, uri, shown)


def first_line(exc: BaseException) -> str:
    """The first line of an exception's message."""
    return (str(exc).strip().splitlines() or [type(exc).__name__])[0]


def open_input(loc: Location) -> Any:
    """A binary input stream of a remote file's bytes as stored (pyarrow's; the caller closes it),
    or a one-line error. Not decompressed by its name (pyarrow's default): the digest is of the
    stored bytes, and :func:`reportgen.io.files.decompressed` decompresses."""
    try:
        return loc.fs.open_input_stream(loc.path, compression=None)
    except FileNotFoundError:
        raise not_found(loc) from None
    except OSError as exc:
        raise storage_error(loc.shown, exc) from None


def not_found(loc: Location) -> InputError:
    """The error of a remote input that does not exist (the words of a missing local file)."""
    return InputError(f"{loc.shown}: file not found; check 'file' in the config (the bucket or host and the path)")


def kind(loc: Location) -> str:
    """``"file"``, ``"dir"`` or ``"missing"``: what a remote location is (one metadata request).
    An object store has no directories of its own: a prefix with objects below it is one."""
    import pyarrow.fs as pafs  # noqa: PLC0415

    try:
        info = loc.fs.get_file_info(loc.path)
    except OSError as exc:
        raise storage_error(loc.shown, exc) from None
    return {pafs.FileType.File: "file", pafs.FileType.Directory: "dir"}.get(info.type, "missing")


def listing(loc: Location, limit: int) -> list[Any]:
    """The files below a remote directory (pyarrow ``FileInfo``, hidden ``.``/``_`` names skipped
    as pyarrow's dataset discovery skips them), at most ``limit`` of them or an error."""
    import pyarrow.fs as pafs  # noqa: PLC0415

    try:
        infos = loc.fs.get_file_info(pafs.FileSelector(loc.path, recursive=True))
    except OSError as exc:
        raise storage_error(loc.shown, exc) from None
    root = loc.path.rstrip("/") + "/"
    files = [
        i
        for i in infos
        if i.type == pafs.FileType.File
        and not any(seg.startswith((".", "_")) for seg in i.path[len(root) :].split("/"))
    ]
    if len(infos) > limit:
        raise InputError(f"{loc.shown}: more than {limit:,} files in the dataset; point 'file' at the dataset itself")
    return files


def check_remote(loc: Location, limit: int) -> None:
    """A remote input exists (a file, or a directory with at most ``limit`` entries below it)."""
    found = kind(loc)
    if found == "missing":
        raise not_found(loc)
    if found == "dir":
        listing(loc, limit)


def size_of(loc: Location) -> int:
    """Bytes of a remote file, or of every file of a remote dataset directory."""
    if kind(loc) == "file":
        return int(loc.fs.get_file_info(loc.path).size)
    return sum(int(i.size) for i in listing(loc, 1 << 62))


@contextmanager
def shown_errors() -> Iterator[None]:
    """Within the block, a :class:`~reportgen.errors.UserError` that names a folded URI names it
    as :attr:`Location.shown` instead (the loaders write the Path they hold into their messages)."""
    try:
        yield
    except UserError as exc:
        text = str(exc)
        shown = shown_text(text)
        if shown == text:
            raise
        raise type(exc)(shown) from None


def shown_evidence(evidence: Any) -> Any:
    """Evidence whose models' files and audit records name a URI as :attr:`Location.shown`
    (the loaders record the Path they hold: the folded form, with its query string)."""
    models = tuple(dataclasses.replace(m, file=shown_text(m.file)) if unfolded(m.file) else m for m in evidence.models)
    files = tuple(
        dataclasses.replace(f, path=shown_text(f.path)) if unfolded(f.path) else f for f in evidence.audit.files
    )
    if models == tuple(evidence.models) and files == tuple(evidence.audit.files):
        return evidence
    return dataclasses.replace(evidence, models=models, audit=dataclasses.replace(evidence.audit, files=files))
