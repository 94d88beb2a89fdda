"""Reading a small file a user names (a config, a saved ``metrics.json``) in bounded time and memory.

A leaf (standard library only). ``Path.read_text`` on a FIFO blocks until a writer appears (a
scheduled job hangs without bound), and on ``/dev/zero`` or ``/dev/urandom`` reads until memory
runs out. :func:`read_regular` opens without blocking (``O_NONBLOCK``: opening a FIFO for reading
returns at once), checks the open descriptor is a regular file (``fstat``: no race with a rename
between a check and the read), and reads at most ``limit`` bytes, so every outcome is a value or
an exception the caller words as one line. :func:`file_on_the_way` says why a directory a user
names (``--out``, ``history.path``) could not be created.
"""

from __future__ import annotations

import os
import stat
from pathlib import Path


class NotRegularFile(OSError):
    """The path is a FIFO, socket or device, not a regular file."""


class FileTooLarge(OSError):
    """The file holds more than the caller's limit of bytes."""

    def __init__(self, path: Path, limit: int) -> None:
        super().__init__(f"{path}: larger than {limit:,} bytes")
        self.limit = limit


def read_regular(path: str | Path, limit: int) -> bytes:
    """The bytes of the regular file ``path``, at most ``limit`` of them.

    Raises ``FileNotFoundError``, ``IsADirectoryError``, :class:`NotRegularFile`,
    :class:`FileTooLarge` or another ``OSError`` (permissions, a symlink loop); never blocks on a
    FIFO or reads a device without end.
    """
    p = Path(path)
    fd = os.open(p, os.O_RDONLY | os.O_NONBLOCK | getattr(os, "O_CLOEXEC", 0))
    try:
        st = os.fstat(fd)
        if stat.S_ISDIR(st.st_mode):
            raise IsADirectoryError(21, "Is a directory", str(p))
        if not stat.S_ISREG(st.st_mode):
            raise NotRegularFile(f"{p}: not a regular file")
        if st.st_size > limit:
            raise FileTooLarge(p, limit)
        chunks, total = [], 0
        while True:
            chunk = os.read(fd, min(1 << 20, limit + 1 - total))
            if not chunk:
                break
            chunks.append(chunk)
            total += len(chunk)
            if total > limit:  # the file grew while it was read
                raise FileTooLarge(p, limit)
        return b"".join(chunks)
    finally:
        os.close(fd)


def read_user_file(path: str | Path, limit: int, error: type[Exception], advice: str) -> bytes:
    """:func:`read_regular`, each failure raised as ``error`` with one line: the path, what was
    found, then ``advice`` (what to pass instead). ``error`` is the caller's exception class
    (a config's ``ConfigError``, a result's ``UserError``): this leaf knows none of them."""
    p = Path(path)
    try:
        return read_regular(p, limit)
    except FileNotFoundError:
        found = "file not found"
    except IsADirectoryError:
        found = "is a directory"
    except NotRegularFile:
        found = "not a regular file (a FIFO, socket or device)"
    except FileTooLarge as exc:
        found = f"larger than {exc.limit:,} bytes"
    except OSError as exc:
        found = f"cannot read it ({exc.strerror or exc})"
    raise error(f"{p}: {found}; {advice}")


def file_on_the_way(target: Path) -> Path | None:
    """The first of ``target``'s parents that exists and is not a directory, if any: where
    creating ``target``'s directories failed, mkdir said only "File exists" or "Not a directory"."""
    for parent in reversed(target.parents):
        if parent.exists() and not parent.is_dir():
            return parent
    return None


__all__ = ["read_regular", "read_user_file", "file_on_the_way", "NotRegularFile", "FileTooLarge"]
