"""The sample for bin edges (:class:`reportgen.reduce.accumulators.ScoreSample`) is a function of
the scores alone: any batching, any merge tree, any row order gives the same sample, and it is
exactly the ``size`` distinct scores of smallest seeded hash with their full row counts (oracle:
``np.unique`` of all the scores, ranked by :func:`score_hash`)."""

from __future__ import annotations

import numpy as np
from hypothesis import given, settings
from hypothesis import strategies as st

from reportgen.reduce.accumulators import ScoreSample, bin_edges, score_hash


def _sample(chunks: list[np.ndarray], size: int, seed: int) -> ScoreSample:
    out = ScoreSample(size, seed)
    for c in chunks:
        out.add(c)
    return out


def _tree(chunks: list[np.ndarray], size: int, seed: int) -> ScoreSample:
    parts = [_sample([c], size, seed) for c in chunks]
    while len(parts) > 1:
        parts = [parts[i].merge(parts[i + 1]) if i + 1 < len(parts) else parts[i] for i in range(0, len(parts), 2)]
    return parts[0]


def _as_dict(s: ScoreSample) -> dict[float, int]:
    return dict(zip(s.values.tolist(), s.counts.tolist()))


@settings(max_examples=60, deadline=None)
@given(st.integers(1, 2_000), st.integers(0, 3), st.integers(1, 300), st.integers(0, 2**63 - 1), st.integers(0, 2**32))
def test_the_sample_is_the_bottom_k_of_the_distinct_scores_whatever_the_chunks(n, decimals, size, seed, draw):
    rng = np.random.default_rng(draw)
    x = np.round(rng.normal(size=n), decimals)
    x[rng.random(n) < 0.05] = -0.0  # both zeros: one score
    cuts = np.sort(rng.choice(np.arange(1, n + 1), size=min(int(rng.integers(1, 6)), n), replace=False))
    whole = _sample([x], size, seed)
    values, counts = np.unique(x + 0.0, return_counts=True)
    rank = np.lexsort((values, score_hash(values, seed)))[:size]
    expected = dict(zip(values[rank].tolist(), counts[rank].tolist()))
    assert _as_dict(whole) == expected
    assert _as_dict(_sample(np.split(x, cuts), size, seed)) == expected
    assert _as_dict(_tree(np.split(rng.permutation(x), cuts), size, seed)) == expected


def test_quantile_edges_of_a_sample_are_numpys_quantiles_of_its_rows():
    """Each sampled score counts as its rows: the edges are ``np.quantile`` of the repeated scores."""
    rng = np.random.default_rng(1)
    x = np.round(rng.normal(size=5_000), 2)
    s = _sample([x], 10_000, 3)  # large enough to hold every distinct score
    expected = np.unique(np.quantile(np.repeat(s.values, s.counts), np.linspace(0, 1, 11)[1:-1]))[::-1]
    assert np.array_equal(bin_edges(s, 10), expected)
    assert np.array_equal(bin_edges(s, 10), bin_edges(x, 10))
