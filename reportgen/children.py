"""Forked helper processes (figure workers, the report process): signals and the parent's death.

A leaf (standard library only), so whatever forks a helper can use it without importing the
helper's libraries.
"""

from __future__ import annotations

import ctypes
import os
import signal


def child_of(parent: int) -> None:
    """Called first in a forked helper: it leaves SIGINT and SIGTERM to its parent and dies with it.

    Forked helpers inherit the command's handlers (:func:`reportgen.writer.on_signal`), so a
    signal sent to the process group (Ctrl-C at a terminal, ``systemctl stop``, ``kill -- -PGID``)
    raised :class:`~reportgen.writer.Interrupted` inside a figure pool's worker loop: a traceback
    on stderr, and a worker that neither finished nor exited left the parent waiting for it
    forever. The parent, which gets the same signal, stops its helpers
    (:meth:`reportgen.figures.Drawing.cancel`, :meth:`reportgen.documents.ReportProcess.close`);
    a helper ends with what it is doing.

    A parent killed outright (SIGKILL, the OOM killer) never stops its helpers, and a forked
    worker holds both ends of its pool's pipe, so it waited on it forever: Linux's parent-death
    signal (``prctl(PR_SET_PDEATHSIG, SIGKILL)``, prctl(2)) ends it with its parent; a parent
    already gone before that was set is checked by its pid (the helper exits at once).
    """
    for sig in (signal.SIGINT, signal.SIGTERM):
        signal.signal(sig, signal.SIG_IGN)
    try:
        ctypes.CDLL(None, use_errno=True).prctl(1, signal.SIGKILL)  # 1 = PR_SET_PDEATHSIG
    except (OSError, AttributeError):  # not Linux's libc: a figure worker ends with its pool's pipe
        return
    if os.getppid() != parent:
        os._exit(0)


__all__ = ["child_of"]
