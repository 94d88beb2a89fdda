"""Rows grouped by one value sort (reportgen.engine.sorting) against ``np.unique``.

The packed sort drops each score's low bits to make room for the row index, so scores that
differ only in their last bits come out in row order and must be fixed up exactly; the tests
build such scores with ``np.nextafter`` on purpose, in both row orders, next to ties, both
zeros and the extremes of the double range.
"""

from __future__ import annotations

import numpy as np
import pytest
from hypothesis import given, settings
from hypothesis import strategies as st
from hypothesis.extra.numpy import arrays

from reportgen.engine import sorting
from reportgen.engine.sorting import distinct_codes, sort_rows


def _check(scores: np.ndarray, y: np.ndarray) -> None:
    values, codes = distinct_codes(scores)
    u, inv = np.unique(scores, return_inverse=True)
    np.testing.assert_array_equal(values, u)
    np.testing.assert_array_equal(codes, inv.ravel())
    rows = sort_rows(scores, y)
    assert sorted(rows.order.tolist()) == list(range(scores.shape[0]))  # a permutation
    s = scores[rows.order]
    assert np.all(s[1:] >= s[:-1])
    np.testing.assert_array_equal(rows.starts, np.r_[True, s[1:] != s[:-1]][: s.shape[0]])
    np.testing.assert_array_equal(rows.labels, y[rows.order])


def _near(base: float, steps: np.ndarray) -> np.ndarray:
    """``base`` moved by ``steps`` units in the last place (differ only in their low bits)."""
    out = np.full(steps.shape[0], base)
    for k in range(int(steps.max(initial=0)) + 1):
        out[steps > k] = np.nextafter(out[steps > k], np.inf)
    return out


@pytest.mark.parametrize("n", [0, 1, 2, 3, 17, 1000])
def test_small_inputs_and_every_kind_of_tie(n):
    rng = np.random.default_rng(n)
    y = rng.random(n) < 0.4
    for scores in (
        rng.normal(size=n),
        np.round(rng.normal(size=n), 1),
        _near(0.5, rng.integers(0, 6, n)),
        _near(0.5, np.arange(n)[::-1] % 7),  # descending runs inside one prefix
        _near(-3.0, rng.integers(0, 4, n)),
    ):
        _check(scores, y)


def test_signed_zeros_extremes_and_subnormals():
    s = np.array(
        [
            -0.0,
            0.0,
            -1.0,
            3.0,
            -0.0,
            -2.5,
            1e300,
            -1e300,
            5e-324,
            -5e-324,
            np.finfo(float).max,
            -np.finfo(float).max,
            np.finfo(float).tiny,
            0.0,
        ]
    )
    y = np.arange(s.shape[0]) % 2 == 0
    _check(s, y)
    values, codes = distinct_codes(s)
    assert codes[0] == codes[1] == codes[4] == codes[-1]  # -0.0 and 0.0 are one score
    assert not np.signbit(values[values == 0.0]).any()  # and it is reported as +0.0


def test_many_rows_in_few_prefixes_are_fixed_up():
    """Enough rows that the index takes many bits, scores packed into few prefixes."""
    rng = np.random.default_rng(3)
    n = 200_000
    scores = _near(0.25, rng.integers(0, 40, n))
    scores[::3] = rng.random(scores[::3].shape[0])
    _check(scores, rng.random(n) < 0.1)


def test_argsort_fallback_gives_the_same_groups(monkeypatch):
    rng = np.random.default_rng(5)
    scores = np.round(rng.normal(size=500), 2)
    y = rng.random(500) < 0.5
    packed = sort_rows(scores, y)
    monkeypatch.setattr(sorting, "_MAX_PACKED_ROWS", 0)
    fallback = sort_rows(scores, y)
    np.testing.assert_array_equal(fallback.starts, packed.starts)
    np.testing.assert_array_equal(fallback.values(scores), packed.values(scores))
    _check(scores, y)


finite = st.floats(allow_nan=False, allow_infinity=False, width=64)


@settings(max_examples=200, deadline=None)
@given(arrays(np.float64, st.integers(0, 300), elements=finite), st.integers(0, 2**32 - 1))
def test_any_doubles_group_as_np_unique(scores, seed):
    y = np.random.default_rng(seed).random(scores.shape[0]) < 0.5
    _check(scores, y)


@settings(max_examples=100, deadline=None)
@given(
    st.lists(st.integers(0, 12), min_size=1, max_size=400),
    st.sampled_from([0.5, -1.0, 1e-300, 7.25, 0.0]),
)
def test_scores_differing_in_the_last_bits(steps, base):
    steps = np.array(steps)
    scores = _near(base, steps)
    _check(scores, steps % 3 == 0)
