"""The stratified bootstrap drawn on a score table (streamed inputs) against the row scheme.

Rows in one cell of the table (one distinct score, one class) are interchangeable, so
:func:`resample.table_bootstrap_metrics` draws per class how many resampled rows land in each
cell (one multinomial). Checked here: (1) the kernel maps cell draws to exactly the table a
row resample with those cell totals gives (oracle: ``compute_metrics`` on the reweighted
table); (2) the cell draws have the row scheme's distribution (class sizes fixed; each cell's
mean and variance those of the stratified bootstrap of the rows, summed per cell); (3) the
AUC interval agrees with DeLong's and the seed fixes every value.
"""

from __future__ import annotations

import numpy as np
import pytest
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from reportgen.engine import binary as B
from reportgen.engine import delong, resample, stats
from reportgen.engine.curve import build_table, reweighted

_REORDERED = ("average_precision", "log_loss", "brier")  # the same terms summed in another order


@settings(max_examples=80, deadline=None, suppress_health_check=[HealthCheck.too_slow])
@given(
    st.lists(st.sampled_from([0.0, 0.1, 0.25, 0.5, 0.9, 1.0]), min_size=2, max_size=40),
    st.lists(st.booleans(), min_size=40, max_size=40),
    st.sampled_from(["higher", "lower"]),
    st.sampled_from([-1.0, 0.1, 0.3, 0.5, 2.0]),
    st.integers(0, 2**32 - 1),
)
def test_cell_draws_give_the_reweighted_tables_metrics(scores, labels, direction, threshold, seed):
    s = np.array(scores)
    y = np.array(labels[: s.shape[0]])
    table = build_table(s, y, direction=direction)
    kernel, counts, n_pos = resample.table_kernel(table, threshold, True)
    assert counts.sum() == s.shape[0] and counts[:n_pos].sum() == table.total_pos
    rng = np.random.default_rng(seed)
    draws = rng.poisson(counts, size=(4, counts.shape[0]))  # any multiplicities: the mapping is what is tested
    got = resample.resampled_metrics(kernel, (4, [draws]), 1.5, B.Costs(fn=3, fp=1))
    n_pos = int((table.pos > 0).sum())
    for r in range(4):
        pos, neg = np.zeros(table.n_distinct), np.zeros(table.n_distinct)
        pos[np.flatnonzero(table.pos > 0)] = draws[r, :n_pos]
        neg[np.flatnonzero(table.neg > 0)] = draws[r, n_pos:]
        want = B.compute_metrics(reweighted(table, pos, neg), threshold, 1.5, B.Costs(fn=3, fp=1), True)
        for k, name in enumerate(B.METRICS):
            w = want.get(name)
            if w is None:
                assert np.isnan(got[r, k]), name
            elif name in _REORDERED:
                assert got[r, k] == pytest.approx(w, rel=1e-12, abs=1e-12), name
            else:
                assert got[r, k] == w, name


def test_cell_draws_have_the_row_schemes_distribution():
    """Per class P draws with replacement, counted per cell: class sizes fixed; a cell with c of
    the class's P rows gets Binomial(P, c/P) rows (mean c, variance c(1 − c/P)), as when the
    rows themselves are resampled by :func:`stats.stratified_bootstrap_blocks`."""
    s = np.repeat([0.2, 0.7, 0.9], [30, 50, 20])
    y = np.r_[np.ones(10), np.zeros(20), np.ones(35), np.zeros(15), np.ones(5), np.zeros(15)] > 0
    table = build_table(s, y)
    _, counts, n_pos = resample.table_kernel(table, 0.5)
    blocks = list(resample.stratified_cell_blocks(counts, n_pos, 20_000, np.random.default_rng(0)))
    draws = np.concatenate([b[1][0] for b in blocks])
    assert draws.shape == (20_000, counts.shape[0])
    assert (draws[:, :n_pos].sum(axis=1) == table.total_pos).all()
    assert (draws[:, n_pos:].sum(axis=1) == table.total_neg).all()
    totals = np.r_[np.full(n_pos, table.total_pos), np.full(counts.shape[0] - n_pos, table.total_neg)]
    np.testing.assert_allclose(draws.mean(axis=0), counts, rtol=0.03)
    np.testing.assert_allclose(draws.var(axis=0), counts * (1 - counts / totals), rtol=0.06)
    # the rows' own stratified bootstrap, summed per cell: the same moments
    groups = np.searchsorted(-table.thresholds, -s)
    cell = np.where(y, groups, table.n_distinct + groups)
    rows = np.zeros((4000, 2 * table.n_distinct))
    done = 0
    strata = stats.bootstrap_strata(y)
    for b, per in stats.stratified_bootstrap_blocks(y, 4000, np.random.default_rng(1)):
        for members, c in zip(strata, per):
            for r in range(b):
                rows[done + r] += np.bincount(cell[members], weights=c[r], minlength=2 * table.n_distinct)
        done += b
    rows = rows[:, rows.sum(axis=0) > 0]
    np.testing.assert_allclose(np.sort(rows.var(axis=0)), np.sort(draws.var(axis=0)), rtol=0.1)


def test_auc_interval_agrees_with_delong_and_the_seed_fixes_it():
    rng = np.random.default_rng(3)
    n = 8000
    y = rng.random(n) < 0.2
    s = np.round(1 / (1 + np.exp(-(rng.normal(size=n) + 1.2 * y))), 3)
    table = build_table(s, y)
    boot = resample.table_bootstrap_metrics(table, 0.5, 400, np.random.default_rng(7), probabilities=True)
    again = resample.table_bootstrap_metrics(table, 0.5, 400, np.random.default_rng(7), probabilities=True)
    np.testing.assert_array_equal(boot, again)
    k = B.METRICS.index("roc_auc")
    se_boot = np.nanstd(boot[:, k], ddof=1)
    iv = delong.delong_auc_ci(s, y)
    se_delong = (iv.hi - iv.lo) / (2 * 1.959963984540054)
    assert se_boot == pytest.approx(se_delong, rel=0.15)
    assert abs(np.nanmean(boot[:, k]) - iv.auc) < 0.25 * se_delong


def test_weighted_tables_are_refused():
    table = build_table(np.array([0.1, 0.9]), np.array([False, True]), weights=np.array([0.5, 2.0]))
    with pytest.raises(ValueError, match="unit weights"):
        resample.table_kernel(table, 0.5)
