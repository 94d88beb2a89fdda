"""``ClassCounts.add`` reduces a batch in pieces of ``TABLE_CHUNK`` rows (bounded temporaries):
the confusion matrix, class tables and probability counts are the same arrays as in one piece,
weighted or not (issue 46: stream memory)."""

from __future__ import annotations

import numpy as np
import pytest

from reportgen.reduce import class_counts


def _finish(y, p, w, costs):
    counts = class_counts.ClassCounts(p.shape[1], costs=costs)
    counts.add(y, np.argmax(p, axis=1), w, p, p.shape[1])
    counts.merge_pending(10**9)
    return counts.finish(p.shape[1], np.arange(p.shape[1]), False)


@pytest.mark.parametrize("weighted", [False, True])
def test_class_counts_in_pieces_equal_one_piece(monkeypatch, weighted):
    rng = np.random.default_rng(int(weighted))
    n, k = 500, 4
    y = rng.integers(0, k, n)
    p = np.round(rng.dirichlet(np.ones(k), n), 2)
    w = rng.choice([0.5, 1.0, 2.5], n) if weighted else None
    costs = 1.0 - np.eye(k)
    conf, tables, proba = _finish(y, p, w, costs)
    monkeypatch.setattr(class_counts, "TABLE_CHUNK", 37)
    conf2, tables2, proba2 = _finish(y, p, w, costs)
    np.testing.assert_array_equal(conf, conf2)
    assert tables is not None and tables2 is not None and proba is not None and proba2 is not None
    for j in range(k):
        for i in range(k):
            np.testing.assert_array_equal(tables.values[j][i], tables2.values[j][i])
            np.testing.assert_array_equal(tables.counts[j][i], tables2.counts[j][i])
    for field in ("true", "predicted", "confidence", "weight", "rank", "optimal"):
        np.testing.assert_array_equal(getattr(proba, field), getattr(proba2, field))
