"""Intervals drawn on counts (:mod:`reportgen.engine.intervals`) against the row bootstrap.

Checked here:

1. the coarsening: bins are consecutive, never split a distinct score, at most ``bins + 1``,
   split at the decision cut, so every threshold metric of the coarse table is the exact one
   (oracle: ``compute_metrics`` on the exact table), and totals are kept;
2. the joint tables: counting in chunks, merging parts in any order and counting at once give
   the same integers; their marginals are the models' coarse tables;
3. the draws: on exact tables a model's draws are :func:`~reportgen.engine.resample.
   table_bootstrap_metrics` draw for draw; the cell (pattern) draws have exactly the row
   bootstrap's first two moments (closed forms from the rows); and the replicates of model
   metrics and of paired differences (KS, AP, log-loss; binned and exact tables) agree in
   distribution with the paired stratified bootstrap of the rows (2,000 resamples each: the
   quantiles within Monte-Carlo error, the two-sample KS test does not reject).
"""

from __future__ import annotations

import numpy as np
import pytest
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st
from scipy import stats as sps

from reportgen.engine import binary as B
from reportgen.engine import intervals as IV
from reportgen.engine import resample, stats
from reportgen.engine.curve import build_table, row_groups

COSTS = B.Costs(fn=3, fp=1)


@settings(max_examples=60, deadline=None, suppress_health_check=[HealthCheck.too_slow])
@given(
    st.integers(5, 400),
    st.integers(1, 12),
    st.sampled_from(["higher", "lower"]),
    st.floats(-0.5, 1.5),
    st.integers(0, 2**31),
)
def test_coarse_bins_keep_threshold_metrics_exact(n, bins, direction, threshold, seed):
    rng = np.random.default_rng(seed)
    y = rng.random(n) < 0.3
    s = np.round(rng.random(n) + 0.3 * y, 2)
    table = build_table(s, y, direction=direction)
    lut = IV.coarse_lut(table, threshold, bins)
    assert lut[0] == 0 and np.all(np.diff(lut) >= 0) and np.all(np.diff(lut) <= 1)
    assert int(lut[-1]) + 1 <= max(bins + 1, 1) or table.n_distinct <= bins
    c = table.cut_index(threshold)
    if 0 < c < table.n_distinct:
        assert lut[c] != lut[c - 1]  # a bin never straddles the threshold
    coarse = IV.coarsen(table, lut)
    assert coarse.total_pos == table.total_pos and coarse.total_neg == table.total_neg
    exact = B.compute_metrics(table, threshold, 2.0, COSTS).as_dict()
    got = B.compute_metrics(coarse, threshold, 2.0, COSTS).as_dict()
    for k in B.THRESHOLD_METRICS:
        assert got[k] == exact[k], k


def _rows(n: int, seed: int, decimals: int | None = None):
    rng = np.random.default_rng(seed)
    y = rng.random(n) < 0.25
    z = rng.normal(size=n) + 1.0 * y
    a = 1.0 / (1.0 + np.exp(-(z + 0.7 * rng.normal(size=n)) + 1.0))
    b = 1.0 / (1.0 + np.exp(-(z + 1.2 * rng.normal(size=n)) + 1.0))
    if decimals is not None:
        a, b = np.round(a, decimals), np.round(b, decimals)
    return y, a, b


def test_joint_tables_do_not_depend_on_chunks_or_merge_order():
    y, a, b = _rows(5_000, 1)
    ta, tb = build_table(a, y), build_table(b, y)
    ra, rb = row_groups(ta, a), row_groups(tb, b)
    whole = IV.PairTableAccumulator([ta, tb, ta], [0.3, 0.4, 0.5])
    whole.add([ra, rb, ra], y)
    parts = []
    for lo in range(0, 5_000, 1_300):
        p = IV.PairTableAccumulator([ta, tb, ta], [0.3, 0.4, 0.5])
        p.add([ra[lo:lo + 1300], rb[lo:lo + 1300], ra[lo:lo + 1300]], y[lo:lo + 1300])
        parts.append(p)
    merged = parts[-1]
    for p in parts[-2::-1]:
        merged.merge(p)
    w, m = whole.finish(), merged.finish()
    assert w.pairs == ((0, 1), (0, 2), (1, 2))
    for x, z in zip(w.counts, m.counts):
        assert x.dtype == np.int64 and np.array_equal(x, z)
    # marginals are the coarse tables; the reversed pair is the transpose
    j = w.of(0, 1)
    assert np.array_equal(w.of(1, 0), j.transpose(0, 2, 1))
    ca = IV.coarsen(ta, w.luts[0])
    assert np.array_equal(j[1].sum(axis=1), ca.pos) and np.array_equal(j[0].sum(axis=1), ca.neg)


def test_exact_table_draws_are_the_table_bootstrap():
    y, a, _ = _rows(3_000, 2, decimals=2)
    t = build_table(a, y)
    assert t.n_distinct <= IV.MODEL_BINS
    d = IV.model_bootstrap(t, 0.3, 200, np.random.default_rng(9), 2.0, COSTS, True)
    want = resample.table_bootstrap_metrics(t, 0.3, 200, np.random.default_rng(9), 2.0, COSTS, True)
    assert not d.binned and d.method == IV.TABLE_BOOTSTRAP and not d.shift.any()
    np.testing.assert_array_equal(d.samples, want)


def test_pattern_draws_have_the_row_bootstraps_moments():
    """TP of two models on the same resample: the stratified row bootstrap draws P rows uniformly
    with replacement, so with x_r = 1 where a model flags positive row r, E[TP*] = Σ x_r and
    Cov[TP_a*, TP_b*] = P·(mean(x_a·x_b) − mean(x_a)·mean(x_b)). The pattern draw is a
    multinomial over patterns with the patterns' shares: the same two moments, checked exactly
    in closed form and by 20,000 draws (within 5 standard errors)."""
    y, a, b = _rows(400, 3, decimals=2)
    xa, xb = (a >= 0.3)[y].astype(float), (b >= 0.35)[y].astype(float)
    P = xa.shape[0]
    cov_rows = P * (np.mean(xa * xb) - xa.mean() * xb.mean())
    pat = xa * 1 + xb * 2
    counts = np.bincount(pat.astype(int), minlength=4).astype(float)
    p = counts / P
    fa, fb = np.array([0, 1, 0, 1.0]), np.array([0, 0, 1, 1.0])
    cov_pat = P * (np.sum(p * fa * fb) - np.sum(p * fa) * np.sum(p * fb))
    assert cov_pat == pytest.approx(cov_rows, rel=1e-12)
    draws = np.random.default_rng(4).multinomial(P, p, size=20_000)
    ta, tb = draws @ fa, draws @ fb
    assert ta.mean() == pytest.approx(xa.sum(), abs=5 * np.sqrt(P * xa.var() / 20_000))
    assert np.cov(ta, tb)[0, 1] == pytest.approx(cov_rows, rel=0.08)


def _row_replicates(y, scores, thresholds, resamples, seed):
    """(resamples, models, METRICS) by the paired stratified bootstrap of the rows."""
    strata = stats.bootstrap_strata(y)
    kernels = []
    for s, t in zip(scores, thresholds):
        table = build_table(s, y)
        kernels.append(resample.resample_kernel(table, row_groups(table, s), y, strata, t, None, True))
    out = np.empty((resamples, len(kernels), len(B.METRICS)))
    done = 0
    for block in stats.stratified_bootstrap_blocks(y, resamples, np.random.default_rng(seed)):
        for j, k in enumerate(kernels):
            out[done:done + block[0], j] = resample.resampled_metrics(k, block, 1.0, B.Costs())
        done += block[0]
    return out


def _agree(new: np.ndarray, old: np.ndarray, what: str) -> None:
    """Two sets of replicates from one distribution: the 2.5/50/97.5 % quantiles within 4
    Monte-Carlo standard errors (a quantile's SE ≈ √(q(1−q)/R)/f, f from the pooled sample's
    spread) and the two-sample KS test not rejecting at 0.001."""
    new, old = new[np.isfinite(new)], old[np.isfinite(old)]
    sd = np.std(np.concatenate([new, old]))
    for q in (0.025, 0.5, 0.975):
        f = sps.norm.pdf(sps.norm.ppf(q)) / sd
        se = np.sqrt(q * (1 - q) / len(new)) / f * np.sqrt(2)  # difference of two quantiles
        assert abs(np.quantile(new, q) - np.quantile(old, q)) < 4 * se, (what, q)
    assert sps.ks_2samp(new, old).pvalue > 1e-3, what


@pytest.mark.parametrize("decimals", [1, None], ids=["exact_tables", "binned_tables"])
def test_intervals_agree_with_the_row_bootstrap_in_distribution(decimals):
    y, a, b = _rows(3_000, 5, decimals)
    R = 2_000
    rows = _row_replicates(y, [a, b], [0.3, 0.35], R, 6)
    ta, tb = build_table(a, y), build_table(b, y)
    acc = IV.PairTableAccumulator([ta, tb], [0.3, 0.35])
    acc.add([row_groups(ta, a), row_groups(tb, b)], y)
    pc = acc.finish()
    assert (pc.luts[0][-1] + 1 < ta.n_distinct) == (decimals is None)  # continuous scores are binned
    d = IV.pair_bootstrap(pc.of(0, 1), pc.luts[0], pc.luts[1], (ta, tb), (0.3, 0.35), (True, True), R,
                          np.random.default_rng(7))
    assert d.binned == (decimals is None)
    idx = {m: q for q, m in enumerate(B.METRICS)}
    for metric in ("ks", "average_precision", "log_loss", "brier", "f1"):
        q = idx[metric]
        _agree(d.samples[:, q] + d.shift[q], rows[:, 0, q] - rows[:, 1, q], f"delta {metric}")
    m = IV.model_bootstrap(ta, 0.3, R, np.random.default_rng(8), 1.0, B.Costs(), True)
    for metric in ("ks", "average_precision", "f1", "mcc", "log_loss"):
        q = idx[metric]
        _agree(m.samples[:, q] + m.shift[q], rows[:, 0, q], metric)


def test_binned_model_bootstrap_threshold_metrics_and_shift():
    """Above MODEL_BINS distinct scores the table is binned: the threshold metrics' binned point
    values are exact (shift 0), the ranking metrics' shifts are the binning error (small)."""
    y, a, _ = _rows(40_000, 10)
    t = build_table(a, y)
    assert t.n_distinct > IV.MODEL_BINS
    d = IV.model_bootstrap(t, 0.3, 50, np.random.default_rng(1), 1.0, B.Costs(), True)
    assert d.binned and d.method == IV.BINNED_BOOTSTRAP
    idx = {m: q for q, m in enumerate(B.METRICS)}
    for k in B.THRESHOLD_METRICS:
        assert abs(d.shift[idx[k]]) < 1e-12, k
    assert 0 < abs(d.shift[idx["average_precision"]]) < 1e-3
    assert abs(d.shift[idx["ks"]]) < 1e-3


def test_multiclass_count_draws_are_the_row_bootstraps_per_class_multinomials():
    """Class i's resampled confusion row: n_i rows drawn with replacement among class i's rows,
    so each cell has mean C[i, j] and variance n_i·p(1 − p) with p = C[i, j]/n_i, rows sum to n_i;
    the log-loss replicate has mean the log-loss and variance Σ_i n_i·Var_i(loss)/m² (closed
    forms from the rows), checked with 4,000 draws (5 standard errors)."""
    rng = np.random.default_rng(3)
    k, n = 3, 600
    y = rng.choice(k, n, p=[0.5, 0.3, 0.2])
    pred = np.where(rng.random(n) < 0.7, y, rng.choice(k, n))
    p_true = np.round(rng.uniform(0.05, 0.95, n), 2)
    C = np.zeros((k, k))
    np.add.at(C, (y, pred), 1)
    vals, cnts = [], []
    for i in range(k):
        v, c = np.unique(p_true[y == i], return_counts=True)
        vals.append(v)
        cnts.append(c.astype(float))
    R = 4_000
    seen = []
    values, ll = IV.multiclass_model_bootstrap(C, vals, cnts, lambda conf: seen.append(conf.copy()) or {},
                                               R, np.random.default_rng(4))
    draws = np.array(seen)
    assert np.array_equal(draws.sum(axis=2), np.broadcast_to(C.sum(axis=1), (R, k)))
    n_i = C.sum(axis=1, keepdims=True)
    p = C / n_i
    se = np.sqrt(n_i * p * (1 - p) / R)
    assert np.all(np.abs(draws.mean(axis=0) - C) <= 5 * se + 1e-12)
    np.testing.assert_allclose(draws.var(axis=0), n_i * p * (1 - p), rtol=0.1, atol=0.5)
    loss = -np.log(p_true)
    want_var = sum((y == i).sum() * loss[y == i].var() for i in range(k)) / n**2
    assert ll.mean() == pytest.approx(loss.mean(), abs=5 * np.sqrt(want_var / R))
    assert ll.var() == pytest.approx(want_var, rel=0.1)
