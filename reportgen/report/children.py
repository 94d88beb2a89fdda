"""Forked helper processes (figure workers, the report process): signals and the parent's death.

A leaf (standard library only), so whatever forks a helper can use it without importing the
helper's libraries.
"""

from __future__ import annotations

import ctypes
import os
import signal
from collections.abc import Iterator
from contextlib import contextmanager

#: The signals a forked helper leaves to its parent.
_LEFT_TO_PARENT = (signal.SIGINT, signal.SIGTERM)


@contextmanager
def forking() -> Iterator[None]:
    """SIGINT and SIGTERM held back in this thread while it forks helpers, until they ignore them.

    A forked helper starts with its parent's handlers (:func:`reportgen.report.writer.on_signal`) until
    :func:`child_of` runs in it. A signal sent to the process group in between (``systemctl
    stop``, Ctrl-C, ``kill -- -PGID``) raised :class:`~reportgen.report.writer.Interrupted` in the
    helper outside its own code: the copy of the command unwound as the command (a second
    "interrupted" line, a second exit) and removed the command's private temporary directory
    under it (its report then failed: exit 2). Blocked across the fork, such a signal stays
    pending in the helper until :func:`child_of` ignores it (a pending signal set to be ignored
    is discarded); the parent takes its own copy when the mask is restored here. Where signals
    cannot be blocked (no ``pthread_sigmask``), nothing changes.
    """
    try:
        previous = signal.pthread_sigmask(signal.SIG_BLOCK, _LEFT_TO_PARENT)
    except (AttributeError, OSError, ValueError):  # not POSIX, or not the main interpreter
        yield
        return
    try:
        yield
    finally:
        signal.pthread_sigmask(signal.SIG_SETMASK, previous)


def child_of(parent: int) -> None:
    """Called first in a forked helper: it leaves SIGINT and SIGTERM to its parent and dies with it.

    Forked helpers inherit the command's handlers (:func:`reportgen.report.writer.on_signal`), so a
    signal sent to the process group (Ctrl-C at a terminal, ``systemctl stop``, ``kill -- -PGID``)
    raised :class:`~reportgen.report.writer.Interrupted` inside a figure pool's worker loop: a traceback
    on stderr, and a worker that neither finished nor exited left the parent waiting for it
    forever. The parent, which gets the same signal, stops its helpers
    (:meth:`reportgen.report.figures.Drawing.cancel`, :meth:`reportgen.report.documents.ReportProcess.close`);
    a helper ends with what it is doing.

    A parent killed outright (SIGKILL, the OOM killer) never stops its helpers, and a forked
    worker holds both ends of its pool's pipe, so it waited on it forever: Linux's parent-death
    signal (``prctl(PR_SET_PDEATHSIG, SIGKILL)``, prctl(2)) ends it with its parent; a parent
    already gone before that was set is checked by its pid (the helper exits at once).

    Forked inside :func:`forking`, the helper starts with the two signals blocked: they are
    unblocked once ignored.
    """
    for sig in _LEFT_TO_PARENT:
        signal.signal(sig, signal.SIG_IGN)
    if hasattr(signal, "pthread_sigmask"):
        signal.pthread_sigmask(signal.SIG_UNBLOCK, _LEFT_TO_PARENT)
    try:
        ctypes.CDLL(None, use_errno=True).prctl(1, signal.SIGKILL)  # 1 = PR_SET_PDEATHSIG
    except (OSError, AttributeError):  # not Linux's libc: a figure worker ends with its pool's pipe
        return
    if os.getppid() != parent:
        os._exit(0)


__all__ = ["child_of", "forking"]
