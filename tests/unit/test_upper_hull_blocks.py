"""``binary.upper_hull`` prunes in blocks of ``HULL_BLOCK`` points (bounded temporaries on a
micro-averaged curve of rows × classes points): any block size gives the hull of one block."""

from __future__ import annotations

import numpy as np
import pytest

from reportgen.engine import binary as B


@pytest.mark.parametrize("block", [1, 5, 64])
def test_upper_hull_is_the_same_whatever_the_block(monkeypatch, block):
    rng = np.random.default_rng(block)
    steps = rng.integers(0, 3, 3000)  # 0: a positive, 1: a negative, 2: a tie of both
    tp = np.concatenate([[0], np.cumsum((steps != 1).astype(float))])
    fp = np.concatenate([[0], np.cumsum((steps != 0).astype(float))])
    x, y = fp / fp[-1], tp / tp[-1]
    whole = B.upper_hull(x, y)
    monkeypatch.setattr(B, "HULL_BLOCK", block)
    np.testing.assert_array_equal(B.upper_hull(x, y), whole)
    assert whole.shape[0] < 3000 and whole[0] == 0 and whole[-1] == 3000
