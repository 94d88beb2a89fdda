"""The bootstrap's compressed resample metrics against the resampled table they replace.

``compare`` used to build each resample's :class:`ScoreTable` (``stats.bootstrap_tables``) and
run ``B.compute_metrics`` on it; :mod:`reportgen.engine.resample` computes the same values from
a per-model kernel and the row multiplicities. The old way is the oracle here, on the same
seed's resamples: hypothesis-generated scores with heavy ties, zero / fractional weights, both
directions, thresholds inside, between and beyond the scores, one class only, probabilities
declared or not.

Agreement: the same metrics are undefined (NaN) on the same resamples; with unit weights
every count is a whole number, so all values are identical except average precision,
log-loss and Brier (the same terms summed in another order); with fractional weights every
value agrees to 1e-12 · max(1, |value|) (sums in another order, and differences such as
Gini = 2·AUC − 1 near 0 keep the absolute, not the relative, rounding).
"""

from __future__ import annotations

import numpy as np
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from reportgen.engine import binary as B
from reportgen.engine import compare as C
from reportgen.engine import resample, stats, streams
from reportgen.engine.curve import build_table, row_groups
from reportgen.reduce.rows import ModelRows, evidence_of_rows

_SETTINGS = settings(max_examples=120, deadline=None, suppress_health_check=[HealthCheck.too_slow])
_REORDERED = ("average_precision", "log_loss", "brier")  # sums in another order


@st.composite
def cases(draw):
    """(scores, y, weights or None, direction, threshold, probabilities, beta, costs)."""
    n = draw(st.integers(1, 50))
    pool = draw(
        st.sampled_from(
            [
                [0.0, 0.1, 0.2, 0.5, 0.9, 1.0],  # probabilities with heavy ties
                [-2.5, -1.0, 0.0, 0.5, 3.0],  # not probabilities
                [0.3],  # all scores equal
            ]
        )
    )
    if draw(st.booleans()):
        scores = draw(st.lists(st.sampled_from(pool), min_size=n, max_size=n))
    else:
        scores = draw(st.lists(st.floats(0, 1, allow_subnormal=False), min_size=n, max_size=n))
    y = draw(st.lists(st.booleans(), min_size=n, max_size=n) | st.just([True] * n) | st.just([False] * n))
    w = None
    if draw(st.booleans()):
        w = np.array(draw(st.lists(st.sampled_from([0.0, 0.3, 1.0, 2.0, 3.25]), min_size=n, max_size=n)))
    direction = draw(st.sampled_from(["higher", "lower"]))
    threshold = draw(st.sampled_from(scores) | st.sampled_from([-10.0, 0.25, 0.55, 10.0]))
    probabilities = draw(st.sampled_from([None, True, False]))
    beta = draw(st.sampled_from([0.5, 1.0, 2.0]))
    costs = draw(st.builds(B.Costs, *[st.sampled_from([0.0, 1.0, 5.0])] * 4))
    return np.array(scores, dtype=float), np.array(y, dtype=bool), w, direction, threshold, probabilities, beta, costs


def old_way(scores, y, w, direction, threshold, probabilities, beta, costs, n_resamples, seed):
    """Per resample: the resampled table by bincounts, then every metric of it (NaN for None)."""
    table = build_table(scores, y, w, direction)
    groups = row_groups(table, scores)
    out = []
    for m in stats.stratified_bootstrap_counts(y, n_resamples, np.random.default_rng(seed)):
        tb = stats.bootstrap_tables(table, groups, y, m, weights=w)
        bm = B.compute_metrics(tb, threshold, beta, costs, probabilities)
        out.append([np.nan if v is None else v for _, v in bm.values])
    return np.array(out).reshape(n_resamples, len(B.METRICS))


def new_way(scores, y, w, direction, threshold, probabilities, beta, costs, n_resamples, seed):
    table = build_table(scores, y, w, direction)
    kernel = resample.resample_kernel(
        table, row_groups(table, scores), y, stats.bootstrap_strata(y), threshold, w, probabilities
    )
    blocks = stats.stratified_bootstrap_blocks(y, n_resamples, np.random.default_rng(seed))
    return np.vstack([resample.resampled_metrics(kernel, block, beta, costs) for block in blocks])


def assert_same_metrics(new, old, weighted):
    for k, name in enumerate(B.METRICS):
        a, b = new[:, k], old[:, k]
        np.testing.assert_array_equal(np.isnan(a), np.isnan(b), err_msg=f"{name}: undefined differently")
        if not weighted and name not in _REORDERED:
            np.testing.assert_array_equal(a, b, err_msg=name)
        else:
            ok = ~np.isnan(b)
            assert np.all(np.abs(a[ok] - b[ok]) <= 1e-12 * np.maximum(1.0, np.abs(b[ok]))), (name, a, b)


@_SETTINGS
@given(cases(), st.integers(0, 2**32 - 1))
def test_resampled_metrics_equal_compute_metrics_of_the_resampled_table(case, seed):
    new = new_way(*case, 6, seed)
    old = old_way(*case, 6, seed)
    assert_same_metrics(new, old, weighted=case[2] is not None)


def test_continuous_scores_with_a_threshold_between_them():
    rng = np.random.default_rng(7)
    n = 3000
    y = rng.random(n) < 0.1
    s = 1.0 / (1.0 + np.exp(-(rng.normal(size=n) + 1.2 * y)))
    for w in (None, rng.uniform(0.2, 3.0, n)):
        for direction in ("higher", "lower"):
            case = (s, y, w, direction, float(np.median(s)), True, 2.0, B.Costs(fn=5, fp=1))
            assert_same_metrics(new_way(*case, 20, 3), old_way(*case, 20, 3), weighted=w is not None)


def test_chunks_of_resamples_give_the_same_values(monkeypatch):
    rng = np.random.default_rng(8)
    n = 400
    y = rng.random(n) < 0.3
    s = np.round(rng.random(n), 2)
    case = (s, y, None, "higher", 0.5, None, 1.0, B.Costs())
    whole = new_way(*case, 30, 1)
    monkeypatch.setattr(resample, "_CHUNK_ELEMENTS", 1)  # one resample at a time
    np.testing.assert_array_equal(new_way(*case, 30, 1), whole)


def test_single_class_resamples_are_undefined_as_before():
    s = np.array([0.1, 0.4, 0.4, 0.8, 0.9])
    for y in (np.zeros(5, dtype=bool), np.ones(5, dtype=bool)):
        case = (s, y, None, "higher", 0.4, None, 1.0, B.Costs())
        new, old = new_way(*case, 4, 0), old_way(*case, 4, 0)
        assert_same_metrics(new, old, weighted=False)
        assert np.isnan(new[:, B.METRICS.index("roc_auc")]).all()


def test_weighted_joint_bootstrap_equals_the_per_table_loop():
    """``compare._weighted_pair_bootstrap`` (paired: one draw of the joint weight cells for every
    model, drawn from the stream ``weighted_pairs``) against tables rebuilt from the same draws put on rows, with a
    weighted model, a 'lower' model and a model with its own threshold."""
    rng = np.random.default_rng(11)
    n = 500
    y = rng.random(n) < 0.25
    z = rng.normal(size=n) + y
    w = np.round(rng.uniform(0.5, 2.0, n), 1)  # few distinct weights: cells hold several rows
    inputs = [
        ModelRows("a", "a.csv", 1.0 / (1.0 + np.exp(-z)), y),
        ModelRows("b", "b.csv", np.round(600 - 50 * z), y, direction="lower", threshold=600.0),
        ModelRows("c", "c.csv", np.round(1.0 / (1.0 + np.exp(-z - rng.normal(size=n))), 2), y, weights=w),
    ]
    s = C.Settings(beta=2.0, costs=B.Costs(fn=5, fp=1), resamples=40, seed=5)
    ev = evidence_of_rows(inputs, threshold=0.3)
    got = C._weighted_pair_bootstrap(ev, s).samples
    cells = ev.pairing.cells
    tables = [m.table for m in ev.models]
    groups = [row_groups(t, i.scores) for t, i in zip(tables, inputs)]
    weights = [np.ones(n) if i.weights is None else i.weights for i in inputs]
    # one row of each cell carries the cell's draw (rows of a cell are interchangeable)
    key = {(bool(y[i]), *(int(g[i]) for g in groups), *(float(x[i]) for x in weights)): i for i in range(n)}
    rep = np.array(
        [
            key[(bool(cells.y[c]), *(int(k) for k in cells.codes[:, c]), *(float(x) for x in cells.w[:, c]))]
            for c in range(cells.n_cells)
        ]
    )
    r = 0
    for _b, (draws,) in resample.stratified_cell_blocks(
        cells.rows, cells.n_pos_cells, s.resamples, streams.stream(s.seed, "weighted_pairs")
    ):
        for d in draws:
            m = np.zeros(n, dtype=np.int64)
            m[rep] = d
            for j, (inp, t, g) in enumerate(zip(inputs, tables, groups)):
                tb = stats.bootstrap_tables(t, g, inp.y, m, weights=inp.weights)
                thr = 0.3 if inp.threshold is None else inp.threshold
                bm = B.compute_metrics(tb, thr, s.beta, s.costs, inp.probabilities)
                ref = np.array([[np.nan if v is None else v for _, v in bm.values]])
                assert_same_metrics(got[r, j][None, :], ref, weighted=inp.weights is not None)
            r += 1
    assert r == s.resamples


def test_blocks_are_the_draws_of_the_counts_stream():
    """The per-class blocks carry the same random stream as ``stratified_bootstrap_counts``
    always did: ``rng.integers`` per block and class, counted per resample."""
    y = np.random.default_rng(0).random(97) < 0.3
    rng = np.random.default_rng(42)
    members = [np.flatnonzero(~y), np.flatnonzero(y)]
    expected = []
    draws = [rng.integers(0, rows.size, size=(3, rows.size)) for rows in members]  # one block of 3
    for r in range(3):
        m = np.zeros(97, dtype=np.int64)
        for rows, d in zip(members, draws):
            m[rows] = np.bincount(d[r], minlength=rows.size)
        expected.append(m)
    got = list(stats.stratified_bootstrap_counts(y, 3, np.random.default_rng(42)))
    np.testing.assert_array_equal(np.array(got), np.array(expected))
    ((b, counts),) = stats.stratified_bootstrap_blocks(y, 3, np.random.default_rng(42))
    assert b == 3
    for rows, c in zip(members, counts):
        np.testing.assert_array_equal(c, np.array(expected)[:, rows])
