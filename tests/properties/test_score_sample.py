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


@settings(max_examples=40, deadline=None)
@given(st.integers(1, 2_000), st.integers(0, 3), st.integers(1, 300), st.integers(0, 2**32), st.integers(1, 4))
def test_scores_given_as_a_table_sample_as_their_rows(n, decimals, size, draw, first):
    """``add_counts`` (distinct scores with their rows: a table's) gives the sample of the rows."""
    rng = np.random.default_rng(draw)
    x = np.round(rng.normal(size=n), decimals)
    chunks = np.array_split(x, 5)
    head = np.concatenate(chunks[:first])
    values, counts = np.unique(head + 0.0, return_counts=True)
    lazy = ScoreSample(size, 11)
    lazy.add_counts(values, counts.astype(np.float64))
    for c in chunks[first:]:
        lazy.add(c)
    assert _as_dict(lazy) == _as_dict(_sample([x], size, 11))


@settings(max_examples=30, deadline=None)
@given(
    st.integers(50, 3_000),
    st.integers(1, 4),
    st.integers(5, 120),
    st.sampled_from(["higher", "lower"]),
    st.integers(0, 2**32),
)
def test_a_model_samples_its_rows_from_its_table_once_the_cap_is_passed(n, decimals, cap, direction, draw):
    """A model's pass samples unweighted rows only after its table passes the cap (from the table
    kept then) — and ends with the sample of every row, as if each row had been sampled."""
    from pathlib import Path

    from reportgen.config import ModelConfig
    from reportgen.reduce.accumulators import TableAccumulator, oriented
    from reportgen.reduce.local import ModelState

    rng = np.random.default_rng(draw)
    x = np.round(rng.random(n), decimals)
    y = rng.random(n) < 0.4
    m = ModelConfig(name="a", file="a.csv", score="s", direction=direction)
    st = ModelState(m, Path("a.csv"), {}, acc=TableAccumulator(direction, cap), sample=ScoreSample(40, 5))
    for part in np.array_split(np.arange(n), 7):
        st.acc.add(x[part], y[part])
        st.fold_sample(x[part], False)
    table = st.acc.table()
    settled = st.settled(table)
    assert _as_dict(settled) == _as_dict(_sample([oriented(x, direction)], 40, 5))
    assert st.acc.overflowed == (np.unique(x).shape[0] > cap)
