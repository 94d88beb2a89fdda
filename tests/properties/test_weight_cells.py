"""Weighted rows resampled through their counts per (score, class, weight) — the row bootstrap, exactly.

Under sampling weights a model's interval is the stratified bootstrap of the rows with their
weights carried (rows resampled with replacement within each class). Rows of one (score, class,
weight) cell are interchangeable, so drawing per class one multinomial of its rows over the
cells and multiplying each cell's draw by its weight has exactly the distribution of the row
bootstrap (:mod:`reportgen.engine.intervals`, ``WeightCells``). Checked here:

(a) the moments: the TP and FP weight sums of the cell draw have the row bootstrap's mean and
    variance analytically (Var = P·[mean of (w·flag)² − (mean of w·flag)²] over the positive
    rows, the same sum over the cells), and the draws show them; the draws put on rows give
    the resampled table's metrics draw for draw; the quantiles of 2,000 resamples agree with a
    brute-force weighted row bootstrap scored by scikit-learn (AUC, F1, average precision)
    within Monte-Carlo error;
(b) every engine's counting gives the same cells: chunked, merged in any order, or from the
    rows at once (so the same seed gives the same intervals; the end-to-end check is the
    parity suite, ``tests/parity``);
(c) weights constant within each (score, class) cell: the draw is the unweighted model's draw
    (same seed, same counts) with each cell scaled by its weight, and one weight everywhere
    gives the unweighted replicates themselves.
"""

from __future__ import annotations

import numpy as np
import pytest
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st
from oracles import checked_against_sklearn
from sklearn.metrics import average_precision_score, f1_score, roc_auc_score

from reportgen.engine import binary as B
from reportgen.engine import intervals as IV
from reportgen.engine import resample, stats
from reportgen.engine.curve import ScoreTable, build_table, row_groups
from reportgen.engine.distributions import norm_ppf
from reportgen.reduce.accumulators import CellCounter, JointCellCounter

_M = {name: q for q, name in enumerate(B.METRICS)}


def _sample(seed: int, n: int, weights: str = "few"):
    """Scores with ties (two decimals), ~25 % positives, and weights: a few values or continuous."""
    rng = np.random.default_rng(seed)
    y = rng.random(n) < 0.25
    s = np.round(1.0 / (1.0 + np.exp(-(rng.normal(size=n) + 1.3 * y))), 2)
    w = rng.choice([0.5, 1.0, 2.5, 4.0], n) if weights == "few" else np.round(rng.uniform(0.2, 3.0, n), 3)
    return s, y, w


def _cells(s, y, w, direction="higher"):
    table = build_table(s, y, w, direction)
    return table, IV.count_cells(row_groups(table, s), y, w)


# --- (a) the moments and the distribution ------------------------------------------------------


@pytest.mark.parametrize("weights", ["few", "continuous"])
def test_tp_fp_weight_sums_have_the_row_bootstraps_moments(weights):
    s, y, w = _sample(1, 300, weights)
    threshold = 0.5
    table, cells = _cells(s, y, w)
    cut = table.cut_index(threshold)
    flagged_rows = s >= threshold
    for cls in (True, False):  # TP (positives flagged) and FP (negatives flagged)
        # rows: P draws i.i.d. from the class's rows, each adding w·flag
        x = (w * flagged_rows)[y == cls]
        n = x.shape[0]
        mean_rows, var_rows = n * x.mean(), n * (np.mean(x * x) - x.mean() ** 2)
        # cells: Multinomial(n, rows_c / n) times w_c·flag_c
        mine = cells.y == cls
        v = cells.w[0][mine] * (cells.codes[0][mine] < cut)
        p = cells.rows[mine] / n
        mean_cells, var_cells = n * np.dot(p, v), n * (np.dot(p, v * v) - np.dot(p, v) ** 2)
        assert mean_cells == pytest.approx(mean_rows, rel=1e-12)
        assert var_cells == pytest.approx(var_rows, rel=1e-10)
        # and the cell draws the driver uses show them (20,000 resamples: 3 standard errors)
        R = 20_000
        drawn = np.concatenate(
            [
                d
                for _, (d,) in resample.stratified_cell_blocks(
                    cells.rows.astype(float), cells.n_pos_cells, R, np.random.default_rng(7)
                )
            ]
        )
        sums = drawn[:, np.flatnonzero(mine)] @ v
        assert abs(sums.mean() - mean_rows) < 3 * np.sqrt(var_rows / R)
        assert sums.var() == pytest.approx(var_rows, rel=3 * np.sqrt(2.0 / R) + 0.01)


@pytest.mark.parametrize("direction", ["higher", "lower"])
def test_cell_draws_put_on_rows_give_the_resampled_tables_metrics(direction):
    """Draw for draw: ``weighted_model_bootstrap``'s replicates are the metrics of the table of the
    rows resampled with those cell counts (one row of each cell carrying its draw)."""
    s, y, w = _sample(2, 250)
    threshold = 0.45
    table, cells = _cells(s, y, w, direction)
    R = 30
    draws = IV.weighted_model_bootstrap(table, cells, threshold, R, np.random.default_rng(3), 2.0, B.Costs(fn=4), None)
    assert draws.method == IV.WEIGHTED_BOOTSTRAP and not draws.binned
    g = row_groups(table, s)
    first = {(bool(y[i]), int(g[i]), float(w[i])): i for i in range(s.shape[0])}
    rep = np.array(
        [first[(bool(cells.y[c]), int(cells.codes[0, c]), float(cells.w[0, c]))] for c in range(cells.n_cells)]
    )
    blocks = resample.stratified_cell_blocks(cells.rows, cells.n_pos_cells, R, np.random.default_rng(3))
    d = np.concatenate([b for _, (b,) in blocks])
    for r in range(R):
        m = np.zeros(s.shape[0])
        m[rep] = d[r]
        tb = stats.bootstrap_tables(table, g, y, m, weights=w)
        bm = B.compute_metrics(tb, threshold, 2.0, B.Costs(fn=4))
        ref = np.array([np.nan if v is None else v for _, v in bm.values])
        np.testing.assert_allclose(draws.samples[r], ref, rtol=1e-12, atol=1e-12, equal_nan=True)


def _row_bootstrap_sklearn(s, y, w, threshold, R, seed):
    """The oracle: rows resampled with replacement within each class, scored with the rows'
    weights times their multiplicities: scikit-learn's AUC, F1 and average precision (all
    resamples at once through ``oracles.resampled_binary_scores``, whose first resamples are
    compared with scikit-learn's own calls)."""
    m = np.array(list(stats.stratified_bootstrap_counts(y, R, np.random.default_rng(seed))))
    return checked_against_sklearn(s, y, w * m, threshold)


def _assert_quantiles_agree(mine: np.ndarray, oracle: np.ndarray, R: int) -> None:
    """Per column: spreads within 10 %, the 2.5 / 50 / 97.5 % quantiles within 4 Monte-Carlo
    standard errors of a difference of quantiles (√(2·q(1−q)/R) / density, the density of a normal
    of the oracle's spread)."""
    for k in range(mine.shape[1]):
        sd = oracle[:, k].std()
        assert mine[:, k].std() == pytest.approx(sd, rel=0.1)
        for q in (0.025, 0.5, 0.975):
            z = float(norm_ppf(q))
            density = np.exp(-0.5 * z * z) / np.sqrt(2 * np.pi) / sd
            tol = 4.0 * np.sqrt(2.0 * q * (1 - q) / R) / density
            assert abs(np.quantile(mine[:, k], q) - np.quantile(oracle[:, k], q)) < tol, (k, q)


def test_quantiles_agree_with_a_brute_force_weighted_row_bootstrap(weights="continuous"):
    """2,000 resamples each: the cell draw's 2.5 / 50 / 97.5 % quantiles of AUC, F1 and average
    precision against scikit-learn's on resampled rows; tolerance 4 Monte-Carlo standard errors of
    a difference of quantiles (√(2·q(1−q)/B) / density, the density of a normal of the replicates'
    spread)."""
    s, y, w = _sample(4, 400, weights)
    threshold, R = 0.5, 2000
    table, cells = _cells(s, y, w)
    cell = IV.weighted_model_bootstrap(table, cells, threshold, R, np.random.default_rng(11))
    mine = cell.samples[:, [_M["roc_auc"], _M["f1"], _M["average_precision"]]]
    oracle = _row_bootstrap_sklearn(s, y, w, threshold, R, 12)
    # the point values agree with scikit-learn's (the oracle scores the same metrics)
    m = B.compute_metrics(table, threshold).as_dict()
    assert [m["roc_auc"], m["f1"], m["average_precision"]] == pytest.approx(
        [
            roc_auc_score(y, s, sample_weight=w),
            f1_score(y, s >= threshold, sample_weight=w),
            average_precision_score(y, s, sample_weight=w),
        ],
        rel=1e-10,
    )
    _assert_quantiles_agree(mine, oracle, R)


def _paired_sample(seed: int, n: int, weights: str = "few"):
    """A second model close to the first (seed + 1 for its noise), both tables on one weight
    column, their joint cells: (s, s2, y, w, tables, codes, cells)."""
    s, y, w = _sample(seed, n, weights)
    rng = np.random.default_rng(seed + 1)
    s2 = np.round(np.clip(s + rng.normal(0, 0.05, s.shape[0]), 0, 1), 2)
    tables = [build_table(s, y, w), build_table(s2, y, w)]
    codes = np.stack([row_groups(t, x) for t, x in zip(tables, (s, s2))])
    return s, s2, y, w, tables, codes, IV.count_cells(codes, y, np.stack([w, w]))


def test_joint_cells_pair_the_rows():
    """The paired draw: a difference of two models on the joint cells has the paired row bootstrap's
    spread (much smaller than the unpaired one when the models agree), against scikit-learn."""
    s, s2, y, w, tables, _codes, cells = _paired_sample(5, 400)
    R = 2000
    got = IV.weighted_joint_bootstrap(cells, tables, [0.5, 0.5], [None, None], R, np.random.default_rng(1)).samples
    diff = got[:, 0, _M["roc_auc"]] - got[:, 1, _M["roc_auc"]]
    # the oracle: the weighted Mann–Whitney sum over (positive, negative) pairs of the resampled
    # rows (ties one half), checked against scikit-learn on the data itself
    kern = [np.sign(x[y][:, None] - x[~y][None, :]) * 0.5 + 0.5 for x in (s, s2)]
    assert float(w[y] @ kern[0] @ w[~y] / (w[y].sum() * w[~y].sum())) == pytest.approx(
        roc_auc_score(y, s, sample_weight=w), rel=1e-12
    )
    _assert_paired_auc_spread(diff, s, s2, y, w, R, 2)


def _assert_paired_auc_spread(diff, s, s2, y, w, R: int, seed: int) -> None:
    """``diff`` (drawn AUC(s) − AUC(s2)) has the spread and centre of the paired weighted row
    bootstrap's: the weighted Mann–Whitney sums of the resampled rows (ties one half)."""
    kern = [np.sign(x[y][:, None] - x[~y][None, :]) * 0.5 + 0.5 for x in (s, s2)]
    ref = np.empty(R)
    for r, m in enumerate(stats.stratified_bootstrap_counts(y, R, np.random.default_rng(seed))):
        sw = w * m
        a, b = sw[y], sw[~y]
        ref[r] = float(a @ (kern[0] - kern[1]) @ b) / (a.sum() * b.sum())
    assert diff.std() == pytest.approx(ref.std(), rel=0.1)
    assert abs(diff.mean() - ref.mean()) < 4 * ref.std() / np.sqrt(R) * np.sqrt(2)


def test_row_by_row_draws_are_the_multinomial_in_distribution():
    """Past one cell per 8 rows the cells are drawn row by row (``stratified_cell_blocks``): each
    cell's count has the multinomial's mean n·p and variance n·p(1 − p), and the classes' totals
    are fixed."""
    counts = np.array([3.0, 1.0, 1.0, 2.0, 1.0, 1.0, 4.0, 1.0])  # 5 positive cells (8 rows), 3 negative (6)
    assert 8 * counts.shape[0] > counts.sum()
    R = 40_000
    d = np.concatenate([b for _, (b,) in resample.stratified_cell_blocks(counts, 5, R, np.random.default_rng(0))])
    assert (d[:, :5].sum(axis=1) == 8).all() and (d[:, 5:].sum(axis=1) == 6).all()
    for part, n in ((slice(0, 5), 8.0), (slice(5, 8), 6.0)):
        p = counts[part] / n
        np.testing.assert_allclose(d[:, part].mean(axis=0), n * p, atol=4 * np.sqrt(n * p * (1 - p) / R).max())
        np.testing.assert_allclose(d[:, part].var(axis=0), n * p * (1 - p), rtol=0.05)
    # one cell per 8 rows or fewer: one multinomial per class and block, draw for draw
    few = np.array([10.0, 6.0, 9.0])
    a = np.concatenate([b for _, (b,) in resample.stratified_cell_blocks(few, 1, 50, np.random.default_rng(1))])
    rng = np.random.default_rng(1)
    b = np.concatenate([rng.multinomial(10, [1.0], size=50), rng.multinomial(15, [0.4, 0.6], size=50)], axis=1)
    np.testing.assert_array_equal(a, b)


# --- (b) the same cells from every engine's way of counting --------------------------------------


@settings(max_examples=60, deadline=None, suppress_health_check=[HealthCheck.too_slow])
@given(st.integers(0, 10_000), st.integers(1, 6), st.sampled_from(["higher", "lower"]))
def test_counting_by_chunks_and_merges_gives_the_rows_cells(seed, parts, direction):
    rng = np.random.default_rng(seed)
    n = int(rng.integers(1, 120))
    s, y, w = _sample(seed, n)
    s = np.where(rng.random(n) < 0.1, -0.0 * s, s)  # -0.0 and 0.0 are one score
    table, rows_cells = _cells(s, y, w, direction)
    cuts = np.sort(rng.integers(0, n + 1, parts - 1))
    counters = []
    for lo, hi in zip(np.r_[0, cuts], np.r_[cuts, n]):  # a Dask part each (stream: chunks of one)
        c = CellCounter()
        for a in range(lo, hi, 7):
            c.add(s[a : min(hi, a + 7)], y[a : min(hi, a + 7)], w[a : min(hi, a + 7)])
        counters.append(c)
    merged = CellCounter()
    for c in counters[::-1] if seed % 2 else counters:  # merge order does not matter
        merged.merge(c)
    got = merged.cells(table)
    for field in ("codes", "y", "w", "rows"):
        np.testing.assert_array_equal(getattr(got, field), getattr(rows_cells, field))
    # the joint counter: chunked joint cells equal the rows' at once
    joint, whole = JointCellCounter(), IV.count_cells(np.stack([row_groups(table, s)] * 2), y, np.stack([w, 2 * w]))
    g = row_groups(table, s)
    for a in range(0, n, 9):
        part = slice(a, a + 9)
        joint.add([g[part], g[part]], y[part], [w[part], 2 * w[part]])
    res = joint.result()
    for field in ("codes", "y", "w", "rows"):
        np.testing.assert_array_equal(getattr(res, field), getattr(whole, field))


def test_past_the_cap_no_cells_in_any_way_of_counting(monkeypatch):
    """Every engine keeps no cells past the cap (the distinct cells of all rows decide, not chunks)."""
    import reportgen.reduce.accumulators as S

    monkeypatch.setattr(S, "MAX_WEIGHT_CELLS", 10)
    s, y, w = _sample(3, 200, "continuous")
    table = build_table(s, y, w)
    c = S.CellCounter()
    for a in range(0, 200, 3):
        c.add(s[a : a + 3], y[a : a + 3], w[a : a + 3])
    assert c.cells(table) is None
    monkeypatch.setattr(S, "MAX_WEIGHT_CELLS", 10_000)
    assert S.capped(IV.count_cells(row_groups(table, s), y, w)) is not None


# --- (c) weights constant within a cell: the unweighted draw, scaled -----------------------------


def test_weights_constant_within_cells_scale_the_unweighted_draw():
    """(3,000 rows on at most 202 cells: the multinomial draw, as the unweighted model's; with more
    than one cell per 8 rows both would be the same distribution drawn row by row.)"""
    s, y, _ = _sample(8, 3000)
    # each (score, class) cell its own weight: a function of the score and the class
    w = np.round(1.0 + 3.0 * s, 2) + 0.5 * y
    threshold, R = 0.5, 40
    unweighted = build_table(s, y)
    table, cells = _cells(s, y, w)
    assert cells.n_cells == np.count_nonzero(unweighted.pos) + np.count_nonzero(unweighted.neg)
    got = IV.weighted_model_bootstrap(table, cells, threshold, R, np.random.default_rng(9))
    _kernel, counts, npc = resample.table_kernel(unweighted, threshold)
    d = np.concatenate([b for _, (b,) in resample.stratified_cell_blocks(counts, npc, R, np.random.default_rng(9))])
    pos_cells, neg_cells = np.flatnonzero(unweighted.pos > 0), np.flatnonzero(unweighted.neg > 0)
    cell_w = np.concatenate([cells.w[0][cells.y], cells.w[0][~cells.y]])
    for r in range(R):  # the unweighted model's draw, each cell's count times its weight
        pos, neg = np.zeros(unweighted.n_distinct), np.zeros(unweighted.n_distinct)
        pos[pos_cells] = d[r, :npc] * cell_w[:npc]
        neg[neg_cells] = d[r, npc:] * cell_w[npc:]
        t = ScoreTable(unweighted.thresholds, pos, neg, "higher", 1.0, unweighted.n_rows, True)
        bm = B.compute_metrics(t, threshold)
        ref = np.array([np.nan if v is None else v for _, v in bm.values])
        keep = [q for q, name in enumerate(B.METRICS) if name != "defective_pairs"]  # n_rows-dependent
        np.testing.assert_allclose(got.samples[r, keep], ref[keep], rtol=1e-12, atol=1e-12, equal_nan=True)


def test_one_weight_everywhere_gives_the_unweighted_replicates():
    s, y, _ = _sample(9, 3000)
    threshold, R = 0.4, 50
    unweighted = IV.model_bootstrap(build_table(s, y), threshold, R, np.random.default_rng(4))
    table, cells = _cells(s, y, np.full(s.shape[0], 2.0))  # a power of two: every sum exact
    weighted = IV.weighted_model_bootstrap(table, cells, threshold, R, np.random.default_rng(4))
    same = [q for q, name in enumerate(B.METRICS) if name not in ("defective_pairs",)]
    np.testing.assert_allclose(
        weighted.samples[:, same], unweighted.samples[:, same], rtol=1e-13, atol=1e-15, equal_nan=True
    )
    # KS: the same reshaped bootstrap-t (Kish's sizes are the class sizes, the class weights fixed)
    assert weighted.ks is not None and unweighted.ks is not None
    assert weighted.ks.method == "reshaped bootstrap-t (weighted score table)"
    np.testing.assert_allclose(weighted.ks.pivots, unweighted.ks.pivots, rtol=1e-9, atol=1e-12)
    np.testing.assert_allclose(IV.ks_interval(weighted.ks, 0.95), IV.ks_interval(unweighted.ks, 0.95), rtol=1e-12)


def test_kish_sizes_are_the_effective_class_sizes():
    """(Σw)²/Σw² per class, from exact and from pooled cells alike; the rows when weights are equal."""
    s, y, w = _sample(10, 2000, "continuous")
    _table, cells = _cells(s, y, w)
    want = [w[c].sum() ** 2 / np.dot(w[c], w[c]) for c in (y, ~y)]
    np.testing.assert_allclose(IV.kish_sizes(cells), want, rtol=1e-12)
    np.testing.assert_allclose(IV.kish_sizes(IV.pool_cells(cells)), want, rtol=1e-9)
    _, flat = _cells(s, y, np.full(s.shape[0], 3.0))
    np.testing.assert_allclose(IV.kish_sizes(flat), [y.sum(), (~y).sum()], rtol=1e-12)


def test_binned_weighted_tables_keep_weights_within_bins(monkeypatch):
    """Past MODEL_BINS distinct scores the weighted table is coarsened as an unweighted one (cut at
    the threshold: threshold metrics keep their exact distribution) and the method says so."""
    monkeypatch.setattr(IV, "MODEL_BINS", 16)
    s, y, w = _sample(10, 500, "few")
    threshold = 0.5
    table, cells = _cells(s, y, w)
    got = IV.weighted_model_bootstrap(table, cells, threshold, 200, np.random.default_rng(5))
    assert got.binned and got.method == IV.WEIGHTED_BINNED_BOOTSTRAP
    monkeypatch.setattr(IV, "MODEL_BINS", 4096)
    exact = IV.weighted_model_bootstrap(table, cells, threshold, 200, np.random.default_rng(5))
    assert not exact.binned
    for name in ("recall", "precision", "f1"):  # sums of whole cells: the same distribution
        q = _M[name]
        assert got.samples[:, q].std() == pytest.approx(exact.samples[:, q].std(), rel=0.25)
        assert got.shift[q] == pytest.approx(0.0, abs=1e-12)


def test_joint_cells_past_the_cap_are_binned_alike_in_every_way_of_counting(monkeypatch):
    """Past JOINT_EXACT_CELLS the joint cells key each model by its bins (cut at the threshold and the
    approval cuts), weights kept: the same cells from the rows at once, from chunks, and from
    parts merged in any order; the threshold metrics' differences keep their exact distribution
    (no binning shift) and the comparison at equal approval rate its exact numbers."""
    import reportgen.reduce.accumulators as S
    from reportgen.engine import approval as AP

    s, y, w = _sample(12, 600, "few")
    rng = np.random.default_rng(13)
    s2 = np.round(np.clip(s + rng.normal(0, 0.1, s.shape[0]), 0, 1), 3)
    tables = [build_table(s, y, w), build_table(s2, y, w)]
    thresholds = [0.5, 0.45]
    codes = [row_groups(t, x) for t, x in zip(tables, (s, s2))]
    exact = IV.count_cells(np.stack(codes), y, np.stack([w, w]))
    luts = AP.joint_cell_luts(tables, thresholds, (0.7,))
    monkeypatch.setattr(S, "JOINT_EXACT_CELLS", exact.n_cells - 1)  # exact passes the cap; bins do not
    whole = S.JointCellCounter(luts)
    whole.add(codes, y, [w, w])
    got = whole.result()
    assert got is not None and got.luts is not None and got.n_cells < exact.n_cells
    parts = []
    for lo in range(0, 600, 150):
        c = S.JointCellCounter(luts)
        for a in range(lo, lo + 150, 40):
            part = slice(a, min(a + 40, lo + 150))
            c.add([x[part] for x in codes], y[part], [w[part], w[part]])
        parts.append(c)
    merged = S.JointCellCounter(luts)
    for c in parts[::-1]:
        merged.merge(c)
    again = merged.result()
    for field in ("codes", "y", "w", "rows"):
        np.testing.assert_array_equal(getattr(again, field), getattr(got, field))
    # the comparison at equal approval rate: the same numbers on bins as on table rows
    for rate in (AP.own_rate(tables[0], thresholds[0]), 0.7):
        a_exact = AP.compare_cells_at_rate(rate, "config", exact, ["a", "b"], tables, 0, 0.95, 0, rng)[0]
        a_binned = AP.compare_cells_at_rate(rate, "config", got, ["a", "b"], tables, 0, 0.95, 0, rng)[0]
        assert a_binned == a_exact
    # differences: threshold metrics unmoved, their spread the exact draw's
    R = 1000
    db = IV.weighted_joint_bootstrap(got, tables, thresholds, [None, None], R, np.random.default_rng(1))
    de = IV.weighted_joint_bootstrap(exact, tables, thresholds, [None, None], R, np.random.default_rng(2))
    assert db.binned and not de.binned
    for name in ("f1", "recall", "accuracy"):
        q = _M[name]
        assert db.shift[:, q] == pytest.approx(0.0, abs=1e-12)
        sd_b = (db.samples[:, 1, q] - db.samples[:, 0, q]).std()
        sd_e = (de.samples[:, 1, q] - de.samples[:, 0, q]).std()
        assert sd_b == pytest.approx(sd_e, rel=0.15)


@pytest.mark.parametrize("cap", [2200, 900])
def test_memory_and_stream_agree_past_the_cap(monkeypatch, tmp_path, cap):
    """End to end, past the cap (lowered): at 2,200 the models keep their cells (561 and 1,933) and
    the joint cells (2,459 exact) are binned (2,098), the binned differences, verdict and approval
    intervals the same numbers in both engines; at 900 model b and the joint cells keep none,
    stated by the same capability codes in both engines (memory does not fall back on its rows)."""
    import json

    import pandas as pd
    import yaml

    import reportgen.reduce.accumulators as S
    from reportgen.config import load_config
    from reportgen.pipeline import analyse

    s, y, w = _sample(14, 2500, "few")
    rng = np.random.default_rng(15)
    pd.DataFrame(
        {"y": y.astype(int), "a": s, "b": np.round(np.clip(s + rng.normal(0, 0.1, s.shape[0]), 0, 1), 3), "w": w}
    ).to_csv(tmp_path / "d.csv", index=False)
    (tmp_path / "c.yaml").write_text(
        yaml.safe_dump(
            {
                "title": "t",
                "label": "y",
                "weight": "w",
                "threshold": 0.5,
                "bootstrap": {"resamples": 40, "seed": 3},
                "approval_rates": [0.7],
                "models": [
                    {"name": "a", "file": str(tmp_path / "d.csv"), "score": "a"},
                    {"name": "b", "file": str(tmp_path / "d.csv"), "score": "b"},
                ],
            }
        )
    )
    monkeypatch.setattr(S, "MAX_WEIGHT_CELLS", cap)
    monkeypatch.setattr(S, "JOINT_EXACT_CELLS", cap)
    docs = {}
    for engine in ("memory", "stream"):
        cfg, path = load_config(tmp_path / "c.yaml")
        over = {"engine": engine} if engine == "memory" else {"engine": engine, "stream": {"batch_rows": 1000}}
        doc = json.loads(json.dumps(analyse(cfg.with_overrides(**over), path).to_json()))
        doc.pop("run")
        doc.pop("digest", None)  # a digest of the whole document, run included
        docs[engine] = doc
    assert docs["memory"] == docs["stream"]
    c = docs["memory"]["comparisons"][0]
    models = docs["memory"]["models"]
    if cap == 2200:
        assert c["capabilities"] == {"delong": "weighted"}
        assert set(c["ci_method"].values()) == {IV.WEIGHTED_JOINT_BINNED_BOOTSTRAP}
        assert c["decision"]["method"] == "bootstrap (normal, SE of the replicates)" and all(
            a["ci"] for a in c["approval"]
        )
        assert all(m["ci_method"]["f1"] == IV.WEIGHTED_BOOTSTRAP for m in models.values())
    else:
        assert c["capabilities"] == {
            "model_interval.bootstrap": "weighted",
            "delong": "weighted",
            "approval": "weighted",
            "paired_interval.threshold_metrics": "weighted",
            "paired_interval.ranking_metrics": "weighted",
        }
        assert models["a"]["ci"] and not models["b"]["ci"] and models["b"]["confusion_rows"] is None
        assert c["decision"]["method"] == "no test"


# --- (c) pooled cells: past EXACT_WEIGHT_CELLS, weight sums drawn from their moments -------------


def _pooled_setup(seed: int, n: int):
    s, y, w = _sample(seed, n, "continuous")
    table, cells = _cells(s, y, w)
    return s, y, w, table, cells, IV.pool_cells(cells)


def test_pooled_cells_hold_each_pools_rows_mean_and_variance_in_one_order():
    s, y, w, table, cells, pooled = _pooled_setup(21, 3000)
    g = row_groups(table, s)
    assert pooled.n_cells == len({(bool(a), int(b)) for a, b in zip(y, g)}) < cells.n_cells
    for c in range(pooled.n_cells):
        rows = (y == pooled.y[c]) & (g == pooled.codes[0, c])
        assert pooled.rows[c] == rows.sum()
        assert pooled.w[0, c] == pytest.approx(w[rows].mean(), rel=1e-13)
        assert pooled.var[c] == pytest.approx(w[rows].var(), rel=1e-9, abs=1e-15)
    assert pooled.y[: pooled.n_pos_cells].all() and not pooled.y[pooled.n_pos_cells :].any()
    # the same rows counted in another order (another engine's chunks): the same bits
    order = np.random.default_rng(22).permutation(s.shape[0])
    parts = [IV.count_cells(g[order][k::3], y[order][k::3], w[order][k::3]) for k in range(3)]
    again = IV.pool_cells(IV.merge_cells(parts))
    for name in ("codes", "y", "w", "rows", "var"):
        np.testing.assert_array_equal(getattr(again, name), getattr(pooled, name))


def test_pooled_weight_sums_have_the_row_bootstraps_means_variances_and_covariances():
    """Per class the row bootstrap's weight on a set of rows A has mean S_A and variance
    Σ_A w² − S_A²/n, and two disjoint sets covariance −S_A·S_B/n; the pooled draw (exact counts,
    Gamma weight sums of those moments) has all three (checked on TP and FN: the positives flagged
    and not; 20,000 resamples, 3 standard errors)."""
    s, y, w, table, _cells, pooled = _pooled_setup(23, 2000)
    threshold, R = 0.5, 20_000
    cut = table.cut_index(threshold)
    flagged = s >= threshold
    drawn = np.concatenate([d for _, (d,) in IV.weight_blocks(pooled, np.random.default_rng(24), R)])
    pos = pooled.y
    tp = drawn[:, pos & (pooled.codes[0] < cut)].sum(axis=1)
    fn = drawn[:, pos & (pooled.codes[0] >= cut)].sum(axis=1)
    wp, fp_ = w[y], flagged[y]
    n = wp.shape[0]
    s_tp, s_fn = wp[fp_].sum(), wp[~fp_].sum()
    var_tp = float(np.sum(wp[fp_] ** 2) - s_tp**2 / n)
    var_fn = float(np.sum(wp[~fp_] ** 2) - s_fn**2 / n)
    cov = -s_tp * s_fn / n
    assert abs(tp.mean() - s_tp) < 3 * np.sqrt(var_tp / R)
    assert abs(fn.mean() - s_fn) < 3 * np.sqrt(var_fn / R)
    assert tp.var() == pytest.approx(var_tp, rel=3 * np.sqrt(2.0 / R) + 0.01)
    assert fn.var() == pytest.approx(var_fn, rel=3 * np.sqrt(2.0 / R) + 0.01)
    assert np.cov(tp, fn)[0, 1] == pytest.approx(cov, rel=0.06)
    # the rows drawn per cell are exactly the multinomial's: the class's rows always sum to n
    counts = np.concatenate(
        [
            d
            for _, (d,) in resample.stratified_cell_blocks(
                pooled.rows, pooled.n_pos_cells, 50, np.random.default_rng(24)
            )
        ]
    )
    assert (counts[:, pos].sum(axis=1) == n).all()
    # a cell of one weight is drawn as its rows times that weight (no Gamma)
    one = IV.pool_cells(
        IV.count_cells(np.zeros(6, dtype=np.int64), np.array([1, 1, 1, 0, 0, 0], bool), np.full(6, 2.5))
    )
    d = np.concatenate([x for _, (x,) in IV.weight_blocks(one, np.random.default_rng(0), 200)])
    assert set(np.unique(d[:, 0])) <= {0.0, 2.5, 5.0, 7.5} and (d.sum(axis=1) == 15.0).all()


def test_pooled_quantiles_agree_with_a_brute_force_weighted_row_bootstrap(monkeypatch):
    """As the exact draw's quantile test, with every model's cells pooled (the cap lowered)."""
    monkeypatch.setattr(IV, "EXACT_WEIGHT_CELLS", 10)
    s, y, w = _sample(25, 1500, "continuous")
    threshold, R = 0.5, 2000
    table, cells = _cells(s, y, w)
    draws = IV.weighted_model_bootstrap(table, cells, threshold, R, np.random.default_rng(26))
    assert draws.pooled and draws.method == IV.WEIGHTED_POOLED_BOOTSTRAP
    mine = draws.samples[:, [_M["roc_auc"], _M["f1"], _M["average_precision"]]]
    oracle = _row_bootstrap_sklearn(s, y, w, threshold, R, 27)
    _assert_quantiles_agree(mine, oracle, R)


def test_pooled_joint_cells_pair_the_rows(monkeypatch):
    """The paired draw on pooled joint cells (shared weights): the AUC difference's spread is the
    paired row bootstrap's; per-model weights that differ are never pooled."""
    monkeypatch.setattr(IV, "EXACT_WEIGHT_CELLS", 10)
    s, s2, y, w, tables, codes, cells = _paired_sample(28, 1200, "continuous")
    R = 2000
    got = IV.weighted_joint_bootstrap(cells, tables, [0.5, 0.5], [None, None], R, np.random.default_rng(30))
    assert got.pooled and got.method == IV.WEIGHTED_JOINT_POOLED_BOOTSTRAP
    diff = got.samples[:, 0, _M["roc_auc"]] - got.samples[:, 1, _M["roc_auc"]]
    _assert_paired_auc_spread(diff, s, s2, y, w, R, 31)
    own = IV.count_cells(codes, y, np.stack([w, w * 1.5]))
    assert not IV.weighted_joint_bootstrap(own, tables, [0.5, 0.5], [None, None], 20, np.random.default_rng(0)).pooled


def _two_weighted_models_in_three_engines(tmp_path, scheduler, seed: int, n: int, b_decimals: int):
    """Two models of continuous-weight rows (one ``weight:`` column, an approval rate) run by
    memory, stream (1,000-row batches) and dask: each engine's metrics.json minus the run block,
    and memory's result."""
    import json

    import pandas as pd
    import yaml

    from reportgen.config import load_config
    from reportgen.pipeline import analyse

    s, y, w = _sample(seed, n, "continuous")
    rng = np.random.default_rng(seed + 1)
    b = np.round(np.clip(s + rng.normal(0, 0.1, s.shape[0]), 0, 1), b_decimals)
    pd.DataFrame({"y": y.astype(int), "a": s, "b": b, "w": w}).to_csv(tmp_path / "d.csv", index=False)
    (tmp_path / "c.yaml").write_text(
        yaml.safe_dump(
            {
                "title": "t",
                "label": "y",
                "weight": "w",
                "threshold": 0.5,
                "bootstrap": {"resamples": 60, "seed": 3},
                "approval_rates": [0.7],
                "models": [
                    {"name": "a", "file": str(tmp_path / "d.csv"), "score": "a"},
                    {"name": "b", "file": str(tmp_path / "d.csv"), "score": "b"},
                ],
            }
        )
    )
    docs, results = {}, {}
    for engine, over in (
        ("memory", {}),
        ("stream", {"stream": {"batch_rows": 1000}}),
        ("dask", {"stream": {"batch_rows": 1000}, "scheduler": scheduler}),
    ):
        cfg, path = load_config(tmp_path / "c.yaml")
        results[engine] = analyse(cfg.with_overrides(engine=engine, **over), path)
        doc = json.loads(json.dumps(results[engine].to_json()))
        doc.pop("run")
        doc.pop("digest", None)  # a digest of the whole document, run included
        docs[engine] = doc
    return docs, results["memory"]


def test_pooled_intervals_are_the_same_in_every_engine(monkeypatch, tmp_path, scheduler):
    """End to end with continuous weights past the (lowered) exact cap: memory, stream (several
    batches) and dask give the same metrics.json, the pooled methods stated and worded."""
    from reportgen.engine import approval as AP
    from reportgen.report import wording

    monkeypatch.setattr(IV, "EXACT_WEIGHT_CELLS", 200)
    monkeypatch.setattr(AP, "EXACT_WEIGHT_CELLS", 200)
    docs, result = _two_weighted_models_in_three_engines(tmp_path, scheduler, 32, 3000, 3)
    assert docs["memory"] == docs["stream"] == docs["dask"]
    models, c = docs["memory"]["models"], docs["memory"]["comparisons"][0]
    assert {m["ci_method"]["roc_auc"] for m in models.values()} == {IV.WEIGHTED_POOLED_BOOTSTRAP}
    assert set(c["ci_method"].values()) == {IV.WEIGHTED_JOINT_POOLED_BOOTSTRAP}
    assert all(a["ci"] and a["ci_method"] == AP.APPROVAL_POOLED_BOOTSTRAP for a in c["approval"])
    assert c["decision"]["method"] == "bootstrap (normal, SE of the replicates)"
    notes = wording.comparison_notes(result.comparisons[0], result)
    assert wording.POOLED_NOTE in notes and wording.WEIGHTED_NOTE in notes


# --- (d) past MAX_WEIGHT_CELLS: a model's rows kept as exact integer weight moments --------------


def test_weight_moments_are_exact_integer_sums_whatever_the_chunking(monkeypatch):
    """Past the (lowered) cap the counter keeps rows per (score, class) with Σw and Σw² as integers
    in units of 2^-60: counted in one chunk, in chunks merged in order, or as Dask parts merged in
    another order, the same bits; the pooled cells agree with pooling the exact cells."""
    import reportgen.reduce.accumulators as S

    s, y, w = _sample(40, 4000, "continuous")
    table, exact = _cells(s, y, w)
    # a weight of at least 2^-8 comes back exactly from its limbs; sums are exact
    ws = np.array([1.0, 0.1, 3.0e6, 2.0**-8, 123.456789, 0.0])
    np.testing.assert_array_equal(S._value(S._limbs(ws)), ws)
    assert S._value(S._limbs(np.full(3, 0.1), np.array([3, 5, 7])).sum(axis=0, keepdims=True))[0] == 1.5
    monkeypatch.setattr(S, "MAX_WEIGHT_CELLS", 500)

    def counted(chunks, parts=1):
        counters = []
        for k in range(parts):
            c = S.CellCounter(pool=True)
            for idx in chunks[k::parts]:
                c.add(s[idx], y[idx], w[idx])
            counters.append(c)
        out = S.CellCounter(pool=True)
        for c in counters[::-1]:
            out.merge(c)
        return out.cells(table)

    rng = np.random.default_rng(41)
    one = counted([np.arange(s.shape[0])])
    order = rng.permutation(s.shape[0])
    for got in (counted(np.array_split(order, 9)), counted(np.array_split(order, 13), parts=4)):
        for name in ("codes", "y", "w", "rows", "var"):
            np.testing.assert_array_equal(getattr(got, name), getattr(one, name))
    ref = IV.pool_cells(exact)
    np.testing.assert_array_equal(one.codes, ref.codes)
    np.testing.assert_array_equal(one.rows, ref.rows)
    np.testing.assert_allclose(one.w, ref.w, rtol=1e-14)
    np.testing.assert_allclose(one.var, ref.var, rtol=1e-9, atol=1e-15)
    # a model's draws on them are pooled, the table's sums taken from them
    draws = IV.weighted_model_bootstrap(table, one, 0.5, 20, np.random.default_rng(0))
    assert draws.pooled and draws.method == IV.WEIGHTED_POOLED_BOOTSTRAP
    t = S.table_of_cells(table, one)
    np.testing.assert_allclose(t.pos, table.pos, rtol=1e-13)
    assert t.sum_w2 == pytest.approx(float(np.dot(w, w)), rel=1e-12)
    # weights too large (or too small) to pool: nothing kept past the cap, as before
    big = S.CellCounter(pool=True)
    big.add(s, y, np.where(np.arange(s.shape[0]) == 0, 2.0**41, w))
    assert big.cells(table) is None


def test_model_intervals_past_the_cap_are_the_same_in_every_engine(monkeypatch, tmp_path, scheduler):
    """Past the (lowered) caps, continuous weights: each model's moments and the pair's pooled joint
    cells give intervals, the verdict's test and the approval interval, the same in every engine."""
    import reportgen.reduce.accumulators as S
    from reportgen.engine import approval as AP

    monkeypatch.setattr(S, "MAX_WEIGHT_CELLS", 3000)
    monkeypatch.setattr(S, "JOINT_EXACT_CELLS", 300)
    docs, _ = _two_weighted_models_in_three_engines(tmp_path, scheduler, 42, 5000, 2)
    assert docs["memory"] == docs["stream"] == docs["dask"]
    for m in docs["memory"]["models"].values():
        assert m["ci_method"]["roc_auc"] == IV.WEIGHTED_POOLED_BOOTSTRAP and m["ci"]["roc_auc"]
    # the joint cells (binned at 300, past 3,000) pooled too: differences, verdict, approval interval
    c = docs["memory"]["comparisons"][0]
    assert c["capabilities"] == {"delong": "weighted"}
    assert set(c["ci_method"].values()) == {IV.WEIGHTED_JOINT_POOLED_BINNED_BOOTSTRAP}
    assert c["decision"]["method"] == "bootstrap (normal, SE of the replicates)"
    assert all(a["ci"] and a["ci_method"] == AP.APPROVAL_POOLED_BOOTSTRAP for a in c["approval"])


def test_joint_cells_past_the_cap_pool_only_shared_weights(monkeypatch):
    """Past the cap, joint cells of models that weigh a row differently (their own weight columns)
    keep nothing, as before; with one weight they are pooled, the same bits however counted."""
    import reportgen.reduce.accumulators as S

    s, y, w = _sample(44, 3000, "continuous")
    rng = np.random.default_rng(45)
    s2 = np.round(np.clip(s + rng.normal(0, 0.05, s.shape[0]), 0, 1), 2)
    tables = [build_table(s, y, w), build_table(s2, y, w)]
    codes = [row_groups(t, x) for t, x in zip(tables, (s, s2))]
    luts = [IV.equal_weight_bins(t.pos + t.neg, 8) for t in tables]
    monkeypatch.setattr(S, "MAX_WEIGHT_CELLS", 100)
    monkeypatch.setattr(S, "JOINT_EXACT_CELLS", 50)

    def counted(chunks, weights, parts=1):
        counters = []
        for k in range(parts):
            c = S.JointCellCounter(luts)
            for idx in chunks[k::parts]:
                c.add([x[idx] for x in codes], y[idx], [x[idx] for x in weights])
            counters.append(c)
        out = S.JointCellCounter(luts)
        for c in counters[::-1]:
            out.merge(c)
        return out.result()

    order = rng.permutation(s.shape[0])
    one = counted([np.arange(s.shape[0])], [w, w])
    assert one is not None and one.var is not None and one.luts is not None
    for got in (counted(np.array_split(order, 7), [w, w]), counted(np.array_split(order, 11), [w, w], parts=3)):
        for name in ("codes", "y", "w", "rows", "var"):
            np.testing.assert_array_equal(getattr(got, name), getattr(one, name))
    assert int(one.rows.sum()) == s.shape[0]
    assert counted(np.array_split(order, 7), [w, w * 1.5]) is None


def test_weight_moments_keep_large_cells_and_the_variance_of_small_weights():
    """Two limits of the integer moments: a cell of 2^29 rows (one score, class and weight, at
    scale) overflowed int64 when its limbs were multiplied by its rows (Σw 161061257.6 for
    161061273.6); and squares in units of 2^-60 kept no bit of a weight near 2^-30, so the pooled
    variance of weights in [2^-29, 2^-28] came out 0 (−9 % at 2^-27)."""
    import reportgen.reduce.accumulators as S

    big = S.WeightMoments.of(
        np.zeros((1, 2)), np.array([True, True]), np.array([0.3, 1.0 / 3.0]), np.array([2**29, 2**40])
    )
    c = big.cells(np.zeros((1, 1), dtype=np.int64))
    want = 0.3 * 2**29 + 2**40 / 3.0
    assert c.rows[0] == 2**29 + 2**40 and c.w[0, 0] * c.rows[0] == pytest.approx(want, rel=1e-14)
    assert c.var[0] == pytest.approx((0.09 * 2**29 + 2**40 / 9.0) / c.rows[0] - (want / c.rows[0]) ** 2, rel=1e-6)
    rng = np.random.default_rng(46)
    for lo in (-29, -27, -20):
        w = rng.uniform(2.0**lo, 2.0 ** (lo + 1), 20_000)
        m = S.WeightMoments.of(
            np.zeros((1, w.shape[0])), np.ones(w.shape[0], dtype=bool), w, np.ones(w.shape[0], dtype=np.int64)
        )
        pooled = m.cells(np.zeros((1, 1), dtype=np.int64))
        assert pooled.var[0] == pytest.approx(float(np.var(w)), rel=1e-6)
        assert pooled.w[0, 0] == pytest.approx(float(np.mean(w)), rel=1e-12)


@pytest.mark.slow
def test_weight_moments_taken_slice_by_slice_are_the_same_integers(monkeypatch):
    """Rows turned into moments in slices (bounded memory) give the same exact sums."""
    import reportgen.reduce.accumulators as S

    s, y, w = _sample(46, 3000, "continuous")
    whole = S.WeightMoments.of(s[None, :], y, w, np.ones(s.shape[0], dtype=np.int64))
    monkeypatch.setattr(S, "_MOMENT_SLICE", 97)
    sliced = S.WeightMoments.of(s[None, :], y, w, np.ones(s.shape[0], dtype=np.int64))
    assert whole is not None and sliced is not None
    for name in ("keys", "y", "rows", "s1", "s2"):
        np.testing.assert_array_equal(getattr(sliced, name), getattr(whole, name))
