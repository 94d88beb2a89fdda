"""The multiclass row bootstrap on distinct rows with counts (``reportgen.engine.distinct_rows``).

Three facts make it the row bootstrap in every engine:
- compressing is exact: a metric evaluated on the rows with multiplicities equals the metric on
  the distinct rows with the multiplicities summed per distinct row (scikit-learn as oracle);
- the multinomial draw over a class's distinct rows has the stratified row bootstrap's moments
  (mean n_c·p_i, covariance n_c·(diag p − p pᵀ)), and agrees with drawing rows in distribution;
- the union of compressed parts, compressed again, is the compression of all rows (so a
  streamed or Dask pass, in any batching, gives the in-memory engine's distinct rows).
"""

from __future__ import annotations

import numpy as np
import pytest
from hypothesis import given, settings
from hypothesis import strategies as st
from sklearn.metrics import roc_auc_score

from reportgen.engine import distinct_rows as DR
from reportgen.engine import stats


def _rows(seed: int, n: int = 300, k: int = 3, decimals: int = 1):
    """Rows with class scores in steps of 10^-decimals that sum to 1 (so rows repeat)."""
    rng = np.random.default_rng(seed)
    y = rng.integers(0, k, n)
    lean = np.full((n, k), 1.0) + 2.0 * np.eye(k)[y]
    units = 10**decimals
    p = np.array([rng.multinomial(units, row / row.sum()) for row in lean]) / units
    pred = np.where(rng.random(n) < 0.6, y, rng.integers(0, k, n))
    return y, p, pred


@settings(max_examples=25, deadline=None)
@given(seed=st.integers(0, 10_000), parts=st.integers(1, 6))
def test_union_of_compressed_parts_is_the_compression_of_all_rows(seed, parts):
    y, p, pred = _rows(seed)
    w = np.round(np.random.default_rng(seed).uniform(0.5, 2, y.shape[0]), 1)
    matrix = DR.row_matrix(y, w, [pred, None], [None, p])
    whole = DR.distinct(matrix)
    cuts = np.sort(np.random.default_rng(seed + 1).integers(0, y.shape[0], parts - 1))
    pieces = [DR.distinct(m) for m in np.split(matrix, cuts)]
    again = DR.merged(pieces)
    np.testing.assert_array_equal(again.matrix, whole.matrix)
    np.testing.assert_array_equal(again.counts, whole.counts)
    assert whole.counts.sum() == y.shape[0]
    yy, ww, preds, probas = DR.split(whole, [(True, False), (False, True)], 3)
    assert preds[1] is None and probas[0] is None
    # every distinct row is one of the rows, as often as counted
    back = np.repeat(DR.row_matrix(yy, ww, preds, probas), whole.counts.astype(int), axis=0)
    np.testing.assert_array_equal(back[np.lexsort(back.T[::-1])], matrix[np.lexsort(matrix.T[::-1])])
    assert np.unique(whole.matrix, axis=0).shape == whole.matrix.shape  # distinct indeed


@settings(max_examples=25, deadline=None)
@given(seed=st.integers(0, 10_000))
def test_metrics_of_the_compressed_rows_equal_those_of_the_rows(seed):
    """Any multiplicities of the rows, summed per distinct row, give the same macro AUC (scikit-learn
    on the rows with the multiplicities as sample weights)."""
    y, p, _ = _rows(seed)
    mult = np.random.default_rng(seed).integers(0, 4, y.shape[0])
    matrix = DR.row_matrix(y, None, [None], [p])
    rows, inverse = np.unique(matrix, axis=0, return_inverse=True)  # the oracle's own grouping
    summed = np.bincount(inverse.ravel(), weights=mult, minlength=rows.shape[0])
    d = DR.distinct(matrix)
    np.testing.assert_array_equal(np.unique(d.matrix, axis=0), rows)
    yy, probas = rows[:, 0].astype(int), (rows[:, 2:],)
    ref = roc_auc_score(y, p, multi_class="ovr", average="macro", sample_weight=mult, labels=[0, 1, 2])
    got = roc_auc_score(yy, probas[0], multi_class="ovr", average="macro", sample_weight=summed, labels=[0, 1, 2])
    assert got == np.float64(ref) or abs(got - ref) < 1e-12


def test_multinomial_draws_have_the_row_bootstraps_moments():
    """Per class, the counts drawn over distinct rows: mean n_c·p_i and covariance
    n_c·(diag p − p pᵀ), p_i = count_i / n_c — exactly the moments of the number of times each
    group of identical rows is drawn by the stratified row bootstrap. Checked on 20,000 draws
    within 5 standard errors."""
    strata = np.array([0, 0, 0, 1, 1])
    counts = np.array([5.0, 3.0, 2.0, 7.0, 1.0])
    B = 20_000
    draws = np.vstack(list(DR.stratified_multinomial_blocks(strata, counts, B, np.random.default_rng(3))))
    assert draws.shape == (B, 5)
    assert np.all(draws[:, :3].sum(axis=1) == 10) and np.all(draws[:, 3:].sum(axis=1) == 8)
    for idx in (np.arange(3), np.arange(3, 5)):
        n = counts[idx].sum()
        pi = counts[idx] / n
        cov = n * (np.diag(pi) - np.outer(pi, pi))
        mean = draws[:, idx].mean(axis=0)
        np.testing.assert_array_less(np.abs(mean - n * pi), 5 * np.sqrt(np.diag(cov) / B) + 1e-12)
        emp = np.cov(draws[:, idx].T)
        # the sampling s.d. of a covariance estimate is about sqrt((σ_ii σ_jj + σ_ij²) / B)
        se = np.sqrt((np.outer(np.diag(cov), np.diag(cov)) + cov**2) / B)
        np.testing.assert_array_less(np.abs(emp - cov), 5 * se + 1e-12)


def _macro_auc(y: np.ndarray, p: np.ndarray, mult: np.ndarray) -> np.ndarray:
    """Macro one-vs-rest AUC of every resample (rows of ``mult``: multiplicities), vectorised:
    per class and score level the drawn positives and negatives, ties counted half
    (Mann–Whitney). Checked against scikit-learn on the first resamples below."""
    out = np.zeros(mult.shape[0])
    for c in range(p.shape[1]):
        levels, at = np.unique(p[:, c], return_inverse=True)
        onehot = np.eye(levels.shape[0])[at.ravel()]  # rows × levels
        pos = mult @ (onehot * (y == c)[:, None])
        neg = mult @ (onehot * (y != c)[:, None])
        below = np.cumsum(neg, axis=1) - neg
        out += (pos * (below + 0.5 * neg)).sum(axis=1) / (pos.sum(axis=1) * neg.sum(axis=1))
    return out / p.shape[1]


def test_distinct_row_draws_agree_with_drawing_rows_in_distribution():
    """Macro AUC over 2,000 resamples: drawn on distinct rows vs. on the rows (the old row
    bootstrap, :func:`stats.stratified_bootstrap_counts`); the 5 %, 50 % and 95 % quantiles agree
    within Monte-Carlo error (4 standard errors of the difference of two sample quantiles)."""
    y, p, _ = _rows(11, n=400, decimals=1)
    B = 2_000
    row_mult = np.array(list(stats.stratified_bootstrap_counts(y, B, np.random.default_rng(1))), dtype=float)
    row_auc = _macro_auc(y, p, row_mult)
    d = DR.distinct(DR.row_matrix(y, None, [None], [p]))
    yy, _, _, probas = DR.split(d, [(False, True)], 3)
    assert d.size < y.shape[0]  # scores in steps of 0.1: rows repeat, so the compression is real
    draws = np.vstack(list(DR.stratified_multinomial_blocks(yy, d.counts, B, np.random.default_rng(2)))).astype(float)
    cell_auc = _macro_auc(yy, probas[0], draws)
    for m, auc, yv, pv in ((row_mult, row_auc, y, p), (draws, cell_auc, yy, probas[0])):  # the oracle
        for r in range(3):
            ref = roc_auc_score(yv, pv, multi_class="ovr", average="macro", sample_weight=m[r], labels=[0, 1, 2])
            assert abs(auc[r] - ref) < 1e-12
    sd = row_auc.std()
    for q, z in ((0.05, 1.645), (0.5, 0.0), (0.95, 1.645)):
        a, b = np.quantile(row_auc, q), np.quantile(cell_auc, q)
        # s.e. of a sample quantile ≈ sqrt(q(1−q)/B) / density, the density of a normal ≈ φ(z)/sd
        se = np.sqrt(q * (1 - q) / B) * sd / (np.exp(-z * z / 2) / np.sqrt(2 * np.pi))
        assert abs(a - b) < 4 * np.sqrt(2) * se, (q, a, b, se)


def test_one_seed_gives_one_draw_whatever_the_block_size():
    """The block size depends only on the number of distinct rows, so a seed's draws are fixed."""
    strata = np.repeat([0, 1], 50)
    counts = np.arange(1, 101, dtype=float)
    a = np.vstack(list(DR.stratified_multinomial_blocks(strata, counts, 37, np.random.default_rng(5))))
    b = np.vstack(list(DR.stratified_multinomial_blocks(strata, counts, 37, np.random.default_rng(5))))
    np.testing.assert_array_equal(a, b)
    assert a.shape == (37, 100)


@pytest.mark.parametrize("cells", [DR.BLOCK_CELLS, 60])  # one chunk of picks per stratum; several
def test_picked_strata_are_the_stream_s_picks_counted(monkeypatch, cells):
    """Strata of few rows per distinct row: each resample's counts are the stream's uniform picks
    (per block, strata in order, at most BLOCK_CELLS picks a chunk) counted per distinct row,
    whether a block's picks come in one chunk or several."""
    monkeypatch.setattr(DR, "BLOCK_CELLS", cells)
    strata = np.array([1, 0, 1, 1, 0, 1])
    counts = np.array([4.0, 3.0, 4.0, 4.0, 5.0, 4.0])  # 4 rows per distinct row: picked, not multinomial
    got = np.vstack(list(DR.stratified_multinomial_blocks(strata, counts, 9, np.random.default_rng(4))))
    rng = np.random.default_rng(4)
    want = np.zeros((9, 6), np.int64)
    block = max(1, min(9, cells // 6))
    for lo in range(0, 9, block):
        hi = min(9, lo + block)
        for s in (0, 1):
            idx = np.flatnonzero(strata == s)
            total = int(counts[idx].sum())
            step = max(1, cells // total)
            for a in range(lo, hi, step):
                z = min(hi, a + step)
                at = rng.integers(0, total, size=(z - a, total))
                picked = np.searchsorted(np.cumsum(counts[idx]), at, side="right")
                for r in range(z - a):
                    want[a + r, idx] = np.bincount(picked[r], minlength=idx.shape[0])
    np.testing.assert_array_equal(got, want)
