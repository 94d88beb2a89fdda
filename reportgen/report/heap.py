"""The process's garbage collector while a report is drawn: full collections put off to the end.

A leaf (standard library only), so the writer can use it without importing matplotlib or
WeasyPrint for a run that writes only JSON.
"""

from __future__ import annotations

import gc
import os
import threading
from collections.abc import Iterator
from contextlib import contextmanager
from typing import Any

__all__ = ["young_collections_only"]

#: Held while :func:`young_collections_only` changes the collector's thresholds (process-wide).
_GC_LOCK = threading.Lock()
#: [callers inside :func:`young_collections_only`, the thresholds saved by the first of them]
_GC_STATE: list[Any] = [0, None]


def _new_gc_lock() -> None:
    """A forked child (a figure worker) gets a fresh lock: another thread of the parent may have
    held it at the fork, and nothing in the child would ever release that copy."""
    global _GC_LOCK
    _GC_LOCK = threading.Lock()


if hasattr(os, "register_at_fork"):
    os.register_at_fork(after_in_child=_new_gc_lock)


@contextmanager
def young_collections_only() -> Iterator[None]:
    """The block runs with CPython's full (generation 2) garbage collections put off to its end.

    Writing a report allocates a few hundred thousand objects that live until it ends
    (WeasyPrint's boxes and computed styles, matplotlib's artists, the frozen result with its
    stored curves); each time the survivors reach a quarter of the process's long-lived
    objects, CPython walks the whole heap (a run's results, every imported module) in a full
    collection: measured (``gc.callbacks``) at 0.15–0.5 s of a 2 s PDF for two such walks,
    0.1–0.2 s of the figures and 0.15 s of the stored curves. The writer holds this around the
    whole report set; the PDF and each figure worker hold it too (when used on their own).

    Young collections (generations 0 and 1) still run, so short-lived cycles are freed as
    before; what survives them is freed by the first full collection after the block, as it
    would have been anyway, a little later (measured: 2 MB more at the peak of a three-model
    report's PDF, 10–20 MB or 3–5 % of the demo run's peak). Nestable and thread-safe: the
    thresholds are restored when the last caller leaves; a collection the user asks for
    (``gc.collect()``) is never blocked.
    """
    with _GC_LOCK:
        if _GC_STATE[0] == 0:
            _GC_STATE[1] = gc.get_threshold()
            first, second = _GC_STATE[1][:2]
            gc.set_threshold(first, second, 2**30)  # generation 2 once per 2**30 young collections: never here
        _GC_STATE[0] += 1
    try:
        yield
    finally:
        with _GC_LOCK:
            _GC_STATE[0] -= 1
            if _GC_STATE[0] == 0:
                gc.set_threshold(*_GC_STATE[1])
