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

import math

import numpy as np
import pytest
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st
from scipy import stats as sps

from reportgen.engine import binary as B
from reportgen.engine import intervals as IV
from reportgen.engine import resample, stats
from reportgen.engine.curve import ScoreTable, build_table, row_groups

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
        p.add([ra[lo : lo + 1300], rb[lo : lo + 1300], ra[lo : lo + 1300]], y[lo : lo + 1300])
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
            out[done : done + block[0], j] = resample.resampled_metrics(k, block, 1.0, B.Costs())
        done += block[0]
    return out


def _agree(new: np.ndarray, old: np.ndarray, what: str, offset_sd: float = 0.0) -> None:
    """Two sets of replicates from one distribution: the 2.5/50/97.5 % quantiles within 4
    Monte-Carlo standard errors (a quantile's SE ≈ √(q(1−q)/R)/f, f from the pooled sample's
    spread) and the two-sample KS test not rejecting at 0.001. ``offset_sd`` > 0: a known
    offset of the means, at most that many SDs, is taken out first (the shape is compared)."""
    new, old = new[np.isfinite(new)], old[np.isfinite(old)]
    sd = np.std(np.concatenate([new, old]))
    if offset_sd:
        offset = new.mean() - old.mean()
        assert abs(offset) < offset_sd * sd, (what, offset / sd)
        new = new - offset
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
    d = IV.pair_bootstrap(
        pc.of(0, 1), pc.luts[0], pc.luts[1], (ta, tb), (0.3, 0.35), (True, True), R, np.random.default_rng(7)
    )
    assert d.binned == (decimals is None)
    idx = {m: q for q, m in enumerate(B.METRICS)}
    for metric in ("ks", "average_precision", "log_loss", "brier", "f1"):
        q = idx[metric]
        # ΔKS on the binned joint table (64 bins a model) runs about 0.17 SD above the rows' (a
        # maximum over fewer cuts): the KS test's p has median 0.001 over pair seeds 7–16, with the
        # multinomial and the row-by-row cell draws alike; the offset is bounded, the shape compared
        offset_sd = 0.3 if metric == "ks" and decimals is None else 0.0
        _agree(d.samples[:, q] + d.shift[q], rows[:, 0, q] - rows[:, 1, q], f"delta {metric}", offset_sd)
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
    _values, ll = IV.multiclass_model_bootstrap(
        C, vals, cnts, lambda conf: seen.append(conf.copy()) or {}, R, np.random.default_rng(4)
    )
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


# --------------------------------------------------------------------------------------
# KS of one model: the reshaped bootstrap-t, against the same procedure written on rows
# --------------------------------------------------------------------------------------


def _oracle_curves(pos: np.ndarray, neg: np.ndarray, cuts: np.ndarray) -> tuple[np.ndarray, np.ndarray]:
    """TPR and FPR of the rule "score ≥ c" for each cut c (scores oriented higher = positive)."""
    sp, sn = np.sort(pos), np.sort(neg)
    tpr = (sp.shape[0] - np.searchsorted(sp, cuts, side="left")) / sp.shape[0]
    fpr = (sn.shape[0] - np.searchsorted(sn, cuts, side="left")) / sn.shape[0]
    return tpr, fpr


def _oracle_drift(s: np.ndarray, y: np.ndarray):
    """The cuts (distinct scores, most positive first), the rows' TPR and FPR there, and their
    Nadaraya–Watson smooth over the pooled rank, by explicit loops over the cuts."""
    cuts = np.unique(s)[::-1]
    n = s.shape[0]
    tpr, fpr = _oracle_curves(s[y], s[~y], cuts)
    w = np.array([np.count_nonzero(s == c) for c in cuts], dtype=float)
    u = np.array([np.count_nonzero(s > c) for c in cuts]) / n + w / (2 * n)
    h = IV.KS_BANDWIDTH * n**-0.2
    ts, fs = np.empty_like(tpr), np.empty_like(fpr)
    for i in range(cuts.shape[0]):
        k = np.array([math.exp(-0.5 * ((u[i] - u[j]) / h) ** 2) * w[j] for j in range(cuts.shape[0])])
        ts[i], fs[i] = k @ tpr / k.sum(), k @ fpr / k.sum()
    return cuts, tpr, fpr, ts, fs


def _oracle_se(t, f, P, N):
    t, f = np.clip(t, 0.5 / P, 1 - 0.5 / P), np.clip(f, 0.5 / N, 1 - 0.5 / N)
    return np.sqrt(t * (1 - t) / P + f * (1 - f) / N)


def _oracle_ks_pivots(s: np.ndarray, y: np.ndarray, resamples: int, seed: int):
    """The reshaped bootstrap-t on rows: each resample draws P positives and N negatives with
    replacement (the stratified row bootstrap), its curves' departure from the sample's is added
    to the smoothed curves, and the largest gap is studentised at its cut."""
    cuts, tpr, fpr, ts, fs = _oracle_drift(s, y)
    pos, neg = s[y], s[~y]
    P, N = pos.shape[0], neg.shape[0]
    ks_s = max(float(np.max(ts - fs)), 0.0)
    rng = np.random.default_rng(seed)
    out = np.empty(resamples)
    for r in range(resamples):
        tb, fb = _oracle_curves(pos[rng.integers(0, P, P)], neg[rng.integers(0, N, N)], cuts)
        t, f = ts + tb - tpr, fs + fb - fpr
        j = int(np.argmax(t - f))
        out[r] = (max(t[j] - f[j], 0.0) - ks_s) / _oracle_se(t[j], f[j], P, N)
    j = int(np.argmax(tpr - fpr))
    return out, max(float(tpr[j] - fpr[j]), 0.0), float(_oracle_se(tpr[j], fpr[j], P, N))


@pytest.mark.parametrize("direction", ["higher", "lower"])
def test_ks_drift_and_error_are_the_rows_smooth_curves(direction):
    y, a, _ = _rows(500, 11, decimals=2)  # ties: cells of several rows
    s = a if direction == "higher" else -a
    t = build_table(s, y, direction=direction)
    cuts, tpr, fpr, ts, fs = _oracle_drift(a, y)  # oriented: higher = more positive
    assert t.n_distinct == cuts.shape[0]
    got_t, got_f = IV.ks_drift(t)
    np.testing.assert_allclose(got_t, ts, rtol=1e-10, atol=1e-12)
    np.testing.assert_allclose(got_f, fs, rtol=1e-10, atol=1e-12)
    P, N = float(y.sum()), float((~y).sum())
    assert IV.ks_standard_error(0.3, 0.1, P, N) == pytest.approx(math.sqrt(0.3 * 0.7 / P + 0.1 * 0.9 / N), rel=1e-14)
    assert IV.ks_standard_error(1.0, 0.0, P, N) == pytest.approx(float(_oracle_se(1.0, 0.0, P, N)), rel=1e-14)
    assert IV.ks_standard_error(1.0, 0.0, P, N) > 0
    d = IV.model_bootstrap(t, 0.3 if direction == "higher" else -0.3, 10, np.random.default_rng(1))
    j = int(np.argmax(tpr - fpr))
    assert d.ks is not None and d.ks.point == pytest.approx(float(tpr[j] - fpr[j]), abs=1e-12)
    assert d.ks.se == pytest.approx(float(_oracle_se(tpr[j], fpr[j], P, N)), rel=1e-12)


@pytest.mark.parametrize("cells", [2, 37, 256, 257, 1000, 4097])
@pytest.mark.parametrize("rows", [None, 0.7])
def test_ks_drift_sums_each_curve_as_all_three_at_once(cells, rows):
    """ks_drift smooths one curve at a time; the KS intervals in metrics.json were made with all
    three curves in one ``einsum("ij,cj->ci")`` (reportgen 0.2.0's loop, below): the sums must be
    the same, bit for bit."""
    rng = np.random.default_rng(cells)
    pos, neg = rng.integers(0, 3, cells).astype(float), rng.integers(0, 5, cells).astype(float)
    pos[0], neg[-1] = pos[0] + 1, neg[-1] + 1
    t = ScoreTable(np.arange(cells, 0, -1.0), pos, neg, "higher", None, int(pos.sum() + neg.sum()), False)
    w = pos + neg
    n = float(w.sum())
    u = (np.cumsum(w) - 0.5 * w) / n
    curves = np.stack([np.cumsum(pos) / t.total_pos, np.cumsum(neg) / t.total_neg, np.ones_like(u)])
    keep = w > 0
    w, u, curves = w[keep], u[keep], curves[:, keep]
    curves *= w
    h = IV.KS_BANDWIDTH * (n if rows is None else rows * n) ** -0.2
    out = np.empty((3, u.shape[0]))
    buf = np.empty(min(IV._ROWS, u.shape[0]) * u.shape[0])
    for lo in range(0, u.shape[0], IV._ROWS):
        hi = min(lo + IV._ROWS, u.shape[0])
        a, b = np.searchsorted(u, [u[lo] - 8.0 * h, u[hi - 1] + 8.0 * h], side="left")
        k = buf[: (hi - lo) * (b - a)].reshape(hi - lo, b - a)
        np.subtract(u[lo:hi, None], u[None, a:b], out=k)
        k /= h
        np.multiply(k, k, out=k)
        k *= -0.5
        np.exp(k, out=k)
        out[:, lo:hi] = np.einsum("ij,cj->ci", k, curves[:, a:b])
    got = IV.ks_drift(t, None if rows is None else rows * n)
    assert np.array_equal(got[0], out[0] / out[2]) and np.array_equal(got[1], out[1] / out[2])


@pytest.mark.parametrize("decimals", [2, None], ids=["ties", "continuous"])
def test_ks_interval_agrees_with_the_procedure_on_rows(decimals):
    """The pivots drawn on cells and on rows have one distribution (quantiles within Monte-Carlo
    error, two-sample KS test), so the intervals agree within that error."""
    y, a, _ = _rows(400, 12, decimals)
    R = 2_000
    t = build_table(a, y)
    d = IV.model_bootstrap(t, 0.3, R, np.random.default_rng(13))
    assert d.ks is not None and d.ks.method == IV.KS_RESHAPED and not d.ks.binned
    rows, point, se = _oracle_ks_pivots(a, y, R, 14)
    assert d.ks.point == pytest.approx(point, abs=1e-12) and d.ks.se == pytest.approx(se, rel=1e-12)
    _agree(d.ks.pivots, rows, "KS pivots")
    got = IV.ks_interval(d.ks, 0.95)
    q_lo, q_hi = np.quantile(rows, [0.025, 0.975])
    want = [point - q_hi * se, point - q_lo * se]
    assert got is not None
    assert got == pytest.approx(want, abs=0.35 * se)  # 4 SE of the difference of two 2.5 % quantiles


def test_ks_interval_is_fixed_by_the_seed_and_the_counts():
    """Same seed, same interval; the same counts reached by chunks and merged parts (the streamed
    and Dask reductions) give the same bits; another seed moves it a little."""
    from reportgen.reduce import accumulators as S

    y, a, _ = _rows(6_000, 15, decimals=3)
    t = build_table(a, y)
    parts = []
    for lo in range(0, 6_000, 2_000):
        acc = S.TableAccumulator()
        for c in range(lo, lo + 2_000, 700):
            hi = min(c + 700, lo + 2_000)
            acc.add(a[c:hi], y[c:hi])
        parts.append(acc.table())
    whole = S.TableAccumulator()
    for p in parts[::-1]:
        whole.add_table(p)
    merged = whole.table()
    one = IV.model_bootstrap(t, 0.3, 150, np.random.default_rng(5))
    two = IV.model_bootstrap(merged, 0.3, 150, np.random.default_rng(5))
    np.testing.assert_array_equal(one.ks.pivots, two.ks.pivots)
    assert IV.ks_interval(one.ks, 0.95) == IV.ks_interval(two.ks, 0.95)
    np.testing.assert_array_equal(one.samples, two.samples)  # the other metrics' draws are unchanged
    other = IV.ks_interval(IV.model_bootstrap(t, 0.3, 150, np.random.default_rng(6)).ks, 0.95)
    assert other != IV.ks_interval(one.ks, 0.95)
    assert other == pytest.approx(IV.ks_interval(one.ks, 0.95), abs=0.02)


def test_binned_ks_interval_is_centred_on_the_exact_ks():
    y, a, _ = _rows(40_000, 10)
    t = build_table(a, y)
    d = IV.model_bootstrap(t, 0.3, 100, np.random.default_rng(2))
    exact = B.compute_metrics(t, 0.3).as_dict()["ks"]
    assert d.binned and d.ks is not None and d.ks.binned and d.ks.method == IV.KS_RESHAPED_BINNED
    assert d.ks.point == pytest.approx(exact, abs=1e-12)
    lo, hi = IV.ks_interval(d.ks, 0.95)
    assert lo < exact < hi and hi - lo < 8 * d.ks.se


def test_ks_interval_of_a_separated_sample_is_not_degenerate():
    """TPR 1 at FPR 0: the error uses half a count, so the interval has width and stays in [0, 1]."""
    y = np.r_[np.ones(30, bool), np.zeros(70, bool)]
    s = np.r_[np.linspace(0.6, 1.0, 30), np.linspace(0.0, 0.4, 70)]
    d = IV.model_bootstrap(build_table(s, y), 0.5, 200, np.random.default_rng(3))
    assert d.ks.point == 1.0 and d.ks.se > 0
    lo, hi = IV.ks_interval(d.ks, 0.95)
    assert 0.0 <= lo < hi <= 1.0


@settings(max_examples=40, deadline=None, suppress_health_check=[HealthCheck.too_slow])
@given(
    st.lists(st.sampled_from([0.0, 0.1, 0.25, 0.5, 0.9, 1.0]), min_size=2, max_size=60),
    st.integers(1, 59),
    st.sampled_from(["higher", "lower"]),
    st.integers(0, 2**31),
)
def test_ks_interval_is_a_finite_interval_around_its_point(scores, n_pos, direction, seed):
    """Any table with both classes (ties, a class of one row, both directions): the pivots are
    finite, the interval lies in [0, 1], and the point is where the procedure centres it."""
    s = np.asarray(scores)
    y = np.zeros(s.shape[0], dtype=bool)
    y[: max(1, min(n_pos, s.shape[0] - 1))] = True
    t = build_table(s, y, direction=direction)
    d = IV.model_bootstrap(t, 0.5, 60, np.random.default_rng(seed))
    assert d.ks is not None and np.all(np.isfinite(d.ks.pivots)) and d.ks.se > 0
    assert d.ks.point == pytest.approx(B.compute_metrics(t, 0.5).as_dict()["ks"], abs=1e-12)
    lo, hi = IV.ks_interval(d.ks, 0.95)
    assert 0.0 <= lo <= hi <= 1.0


def test_ks_interval_ignores_scores_of_no_weight():
    """A distinct score whose rows all have frequency weight 0 is in the table with no count:
    it is not a cut, so the interval equals that of the table without it (the repeated rows')."""
    y, a, _ = _rows(300, 16, decimals=2)
    t = build_table(a, y)
    extra = build_table(np.r_[a, 0.123456, 0.654321], np.r_[y, False, True], weights=np.r_[np.ones(300), 0.0, 0.0])
    assert extra.n_distinct == t.n_distinct + 2
    from reportgen.engine.curve import ScoreTable

    counts = ScoreTable(extra.thresholds, extra.pos, extra.neg, extra.direction, extra.sum_w2, extra.n_rows, False)
    one = IV.model_bootstrap(t, 0.3, 100, np.random.default_rng(4))
    two = IV.model_bootstrap(counts, 0.3, 100, np.random.default_rng(4))
    assert IV.ks_interval(one.ks, 0.95) == IV.ks_interval(two.ks, 0.95)
