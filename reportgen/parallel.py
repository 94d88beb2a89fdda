"""Threads for the streamed passes: an ordered map with bounded look-ahead.

numpy, pyarrow and hashlib release the GIL on large arrays, so per-batch work run in a couple
of threads uses the other cores (the single-threaded stream engine took twice as long as
pyarrow reading the same columns with its threads). Only pure work goes to the threads:
whatever accumulates the results stays in the calling thread and takes them in input order,
so every sum is added in the same order as in a single-threaded run, to the same bits.
"""

from __future__ import annotations

import os
import threading
from collections import deque
from collections.abc import Callable, Iterable, Iterator, Sized
from concurrent.futures import Future, ThreadPoolExecutor, wait
from typing import TypeVar

T = TypeVar("T")
R = TypeVar("R")

#: Worker threads of :func:`ordered_map`; 1 runs the work in the calling thread, one item at a
#: time (as before threads, and what the tests compare the threaded results with).
THREADS = min(4, os.cpu_count() or 1)


def ordered_map(fn: Callable[[T], R], items: Iterable[T]) -> Iterator[R]:
    """``map(fn, items)`` on :data:`THREADS` threads: results in input order, lazily.

    At most ``2 × THREADS`` items are in flight (submitted, not yet taken), so memory stays
    at a few batches. ``items`` is iterated in the calling thread. An exception raised by
    ``fn`` is raised here when its item's turn comes (after the earlier items' results), as
    with ``map``; on the way out the items not started are cancelled and the threads joined.
    """
    threads = THREADS
    if threads <= 1 or (isinstance(items, Sized) and len(items) <= 1):  # nothing to overlap
        yield from map(fn, items)
        return
    pool = _pool(threads)
    pending: deque[Future[R]] = deque()
    try:
        for item in items:
            pending.append(pool.submit(fn, item))
            if len(pending) >= 2 * threads:
                yield pending.popleft().result()
        while pending:
            yield pending.popleft().result()
    finally:
        for f in pending:
            f.cancel()
        wait(pending)  # nothing of this map still runs once it is left


_POOLS: dict[tuple[int, int], ThreadPoolExecutor] = {}
_POOLS_LOCK = threading.Lock()


def _pool(threads: int) -> ThreadPoolExecutor:
    """One long-lived pool per size and process: pass 1 maps the models of every batch, and
    starting threads for each of hundreds of batches cost most of a second at 100M rows. Keyed
    by the process id too, so a forked child never submits to its parent's (absent) threads.
    ``ordered_map`` is never called from its own workers, so the shared pool cannot deadlock."""
    key = (os.getpid(), threads)
    with _POOLS_LOCK:
        pool = _POOLS.get(key)
        if pool is None:
            pool = _POOLS[key] = ThreadPoolExecutor(threads, thread_name_prefix="reportgen")
        return pool
