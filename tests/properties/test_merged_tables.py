"""reportgen.reduce.class_counts.merged_tables: a model's class tables merged with batch lists into
one buffer are, cell by cell, the lists merge_lists gives (the merge the tables are defined by),
over several merges, with ties, weighted pairs, classes met late, empty lists and columns past
the cap of distinct scores dropped."""

from __future__ import annotations

import numpy as np
from hypothesis import given, settings
from hypothesis import strategies as st

from reportgen.engine import class_tables as CT
from reportgen.reduce.class_counts import merged_tables


def _reference(old: dict, columns: list, over: set, cap: int) -> dict:
    out = {}
    for j, batches in enumerate(columns):
        if j in over:
            continue
        keys = {i for v, _c in batches for i in range(len(v))} | {i for (jj, i) in old if jj == j}
        merged = {}
        for i in sorted(keys):
            parts = ([old[(j, i)]] if (j, i) in old else []) + [(v[i], c[i]) for v, c in batches if i < len(v)]
            merged[(j, i)] = CT.merge_lists(parts)
        if sum(CT.distinct_scores(v) for v, _c in merged.values()) > cap:
            over.add(j)
        else:
            out.update(merged)
    return out


@settings(max_examples=60, deadline=None)
@given(
    seed=st.integers(0, 2**32 - 1),
    q=st.integers(1, 4),
    decimals=st.sampled_from([None, 1, 2]),
    weighted=st.booleans(),
    cap=st.sampled_from([10**9, 40, 8]),
)
def test_merged_tables_are_merge_lists_cell_by_cell(seed, q, decimals, weighted, cap):
    rng = np.random.default_rng(seed)
    mine, theirs, over_mine, over_theirs = {}, {}, set(), set()
    for _merge in range(int(rng.integers(1, 4))):
        batches = []
        for _b in range(int(rng.integers(1, 4))):
            n = int(rng.integers(0, 40))
            k_seen = int(rng.integers(1, q + 1))  # classes met so far: later batches may add some
            y = rng.integers(0, k_seen, n)
            p = rng.random((n, q))
            if decimals is not None:
                p = np.round(p, decimals)
            if weighted:
                batches.append(CT.weighted_pair_lists(y, p, rng.integers(0, 3, n) * 0.5, k_seen))
            else:
                batches.append(CT.class_lists(y, p, None, k_seen))

        def columns(bs: list = batches) -> list:
            return [[(values[j], counts[j]) for values, counts in bs] for j in range(q)]

        theirs = _reference(theirs, columns(), over_theirs, cap)
        mine = merged_tables(mine, columns(), over_mine, cap)
        assert over_mine == over_theirs
        assert list(mine) == sorted(theirs)
        for key, (v, c) in theirs.items():
            got_v, got_c = mine[key]
            assert np.array_equal(got_v, v) and (not v.shape[0] or got_v.dtype == v.dtype), (
                key
            )  # an empty cell: any type
            assert (got_c is None) == (c is None), key
            assert c is None or np.array_equal(got_c, c), key
