"""The ordered thread map of the streamed passes: input order, bounded look-ahead, errors in turn."""

from __future__ import annotations

import threading
import time

import pytest

import reportgen.parallel as P
from reportgen.errors import InputError


@pytest.mark.parametrize("threads", [1, 3])
def test_ordered_map_keeps_input_order_and_raises_in_turn(monkeypatch, threads):
    monkeypatch.setattr(P, "THREADS", threads)
    running = []

    def square(i: int) -> int:
        running.append(i)
        time.sleep(0.002 * (i % 3))  # later items often finish first
        running.remove(i)
        if i == 7:
            raise InputError("data.csv: column 'a', row 9: non-numeric value 'x'")
        return i * i

    got = []
    with pytest.raises(InputError, match="row 9"):
        for r in P.ordered_map(square, range(20)):
            got.append(r)
    assert got == [i * i for i in range(7)]
    assert running == []  # nothing of the map is still running once it is left
    # the threads are kept for the next map (one pool per size), not started again
    after = threading.active_count()
    assert list(P.ordered_map(lambda i: i + 1, range(50))) == list(range(1, 51))
    assert threading.active_count() == after


def test_ordered_map_reads_only_a_few_items_ahead(monkeypatch):
    monkeypatch.setattr(P, "THREADS", 2)
    pulled = []

    def items():
        for i in range(100):
            pulled.append(i)
            yield i

    it = P.ordered_map(lambda i: -i, items())
    assert next(it) == 0 and len(pulled) <= 2 * P.THREADS
    it.close()
    assert len(pulled) <= 2 * P.THREADS
