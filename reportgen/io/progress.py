"""Progress of reading the input files, for the terminal's status line (``reportgen run``).

A run's reading phase reports ``progress(done, total)``: the bytes read of all its files when
each is a local regular file (a CSV file tells its bytes as the parser takes them, through
:func:`reportgen.io.files.read_progress`; a Parquet file counts when it is read), else the files
read (a dataset directory or a remote file has no size known up front). The CLI shows many
units as a percentage, a few as ``done/total`` (:class:`reportgen.cli.Phases`).
"""

from __future__ import annotations

import os
import stat
from collections.abc import Callable, Iterator
from contextlib import contextmanager
from pathlib import Path

from reportgen.io import filesystems as F
from reportgen.io.files import read_progress

Progress = Callable[[int, int], None]


def local_sizes(paths: list[Path]) -> list[int] | None:
    """The sizes in bytes of ``paths`` when each is a local regular file, else None."""
    sizes = []
    for path in paths:
        if not F.locate(path).local:
            return None
        try:
            st = os.stat(path)
        except OSError:
            return None  # the reader says what is wrong with it
        if not stat.S_ISREG(st.st_mode):
            return None
        sizes.append(st.st_size)
    return sizes


class ReadProgress:
    """``progress(done, total)`` over the files ``paths``, read one after another (:meth:`file`)."""

    def __init__(self, paths: list[Path], progress: Progress | None) -> None:
        self.progress = progress
        self.count = len(paths)
        self.sizes = local_sizes(paths) if progress is not None else None
        self.total = sum(self.sizes) if self.sizes else 0
        self.before = 0  # bytes of the files read completely

    @contextmanager
    def file(self, k: int) -> Iterator[None]:
        """The block reads the ``k``-th file; told as it goes (bytes) and when it is read."""
        if self.progress is None:
            yield
            return
        if not self.total or self.sizes is None:
            yield
            self.progress(k + 1, self.count)
            return
        progress, before, total = self.progress, self.before, self.total
        with read_progress(lambda got: progress(min(before + got, total), total)):
            yield
        self.before += self.sizes[k]
        progress(self.before, total)


__all__ = ["ReadProgress", "local_sizes"]
