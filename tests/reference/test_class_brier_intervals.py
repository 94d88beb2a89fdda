"""The multiclass Brier score's and top-label ECE's bootstrap, and the paired bootstrap of a
Brier change, drawn on counted cells (reportgen.engine.class_probabilities), against an
independent numpy loop that resamples the rows themselves (stratified by true class, each row's
error from scikit-learn's definition): the same centre, spread and percentiles up to Monte-Carlo
error; and a hand case where the stratified bootstrap has one resample only."""

from __future__ import annotations

import numpy as np
import pytest
from sklearn.metrics import brier_score_loss

from reportgen.engine import class_probabilities as CP
from reportgen.reduce.class_counts import probability_counts

K, N, R = 4, 1200, 1000


@pytest.fixture(scope="module")
def rows():
    rng = np.random.default_rng(1)
    y = rng.choice(K, N, p=[0.4, 0.3, 0.2, 0.1])

    def model(signal: float) -> np.ndarray:
        logits = rng.normal(size=(N, K)) + signal * np.eye(K)[y]
        return np.exp(logits) / np.exp(logits).sum(axis=1, keepdims=True)

    return y, model(1.5), model(0.8)


def _row_loop(y: np.ndarray, stat, seed: int) -> np.ndarray:
    """The stratified row bootstrap, row by row: each class's rows drawn with replacement."""
    rng = np.random.default_rng(seed)
    members = [np.flatnonzero(y == i) for i in range(K)]
    return np.array([stat(np.concatenate([rng.choice(m, m.size) for m in members])) for _ in range(R)])


def _errors(y: np.ndarray, p: np.ndarray) -> np.ndarray:
    return ((p - np.eye(K)[y]) ** 2).sum(axis=1)


def _close(got: np.ndarray, want: np.ndarray) -> None:
    sd = want.std()
    assert got.std() == pytest.approx(sd, rel=0.1)
    np.testing.assert_allclose(
        np.quantile(got, [0.025, 0.5, 0.975]), np.quantile(want, [0.025, 0.5, 0.975]), atol=0.3 * sd
    )


def test_the_brier_draws_are_the_row_bootstrap(rows):
    y, pa, _ = rows
    c = probability_counts(y, pa, None)
    exact = brier_score_loss(y, pa, labels=list(range(K)))
    assert exact == pytest.approx(float(_errors(y, pa).mean()), rel=1e-12)
    assert abs(CP.grid_brier(c.brier) - exact) <= CP.BRIER_STEP / 2  # each row's error rounded
    got = CP.brier_draws(c.brier, R, np.random.default_rng(2)) + exact - CP.grid_brier(c.brier)
    e = _errors(y, pa)
    _close(got, _row_loop(y, lambda i: e[i].mean(), 3))


def test_the_top_label_ece_draws_are_the_row_bootstrap(rows):
    y, pa, _ = rows
    c = probability_counts(y, pa, None)
    got = CP.top_label_draws(c, 10, R, np.random.default_rng(4))
    conf, right = pa.max(axis=1), (pa.argmax(axis=1) == y).astype(float)

    def ece(i: np.ndarray) -> float:
        b = CP.bin_of(conf[i], 10)
        gap = np.bincount(b, weights=right[i], minlength=10) - np.bincount(b, weights=conf[i], minlength=10)
        return float(np.abs(gap).sum() / i.size)

    assert ece(np.arange(N)) == pytest.approx(CP.top_label_ece(*CP.top_label_bins(c, 10)), abs=1e-12)
    _close(got, _row_loop(y, ece, 5))


def test_the_paired_brier_change_is_the_paired_row_bootstrap(rows):
    y, pa, pb = rows
    grid = np.zeros((K, 2 * CP.BRIER_CELLS - 1))
    np.add.at(grid, (y, CP.brier_difference_cells(CP.brier_errors(pa, y), CP.brier_errors(pb, y))), 1)
    ea, eb = _errors(y, pa), _errors(y, pb)
    draws, rounded = CP.brier_delta_draws(grid, R, np.random.default_rng(6))
    assert abs(rounded - (ea.mean() - eb.mean())) <= CP.BRIER_STEP / 2
    want = _row_loop(y, lambda i: ea[i].mean() - eb[i].mean(), 7)
    _close(draws + (ea.mean() - eb.mean()) - rounded, want)


def test_one_row_per_class_has_one_resample_by_hand():
    """Stratified by class, one row per class is always the same resample: the interval is the
    point. By hand, Σ_c (p_c − [y = c])² per row: (0.09 + 0.04 + 0.01), (0.01 + 0.36 + 0.25),
    (0.04 + 0.04 + 0.16): 0.14, 0.62, 0.24, mean 1/3, scikit-learn's Brier score."""
    y = np.array([0, 1, 2])
    p = np.array([[0.7, 0.2, 0.1], [0.1, 0.4, 0.5], [0.2, 0.2, 0.6]])
    assert brier_score_loss(y, p, labels=[0, 1, 2]) == pytest.approx(1 / 3, rel=1e-12)
    draws = CP.brier_draws(probability_counts(y, p, None).brier, 50, np.random.default_rng(0))
    assert np.ptp(draws) == 0.0 and draws[0] == pytest.approx(1 / 3, abs=CP.BRIER_STEP)
