"""A multiclass model's probabilities as probabilities (reportgen.engine.class_probabilities).

Oracles: scikit-learn's brier_score_loss (multiclass, ≥ 1.7) and top_k_accuracy_score (ties as
it breaks them), with weights; the ECEs by a plain loop over rows and bins (Guo et al. 2017
eq. 3; Kull et al. 2019 classwise-ECE); the cost-optimal rule by brute force over the classes."""

from __future__ import annotations

import numpy as np
import pytest
from sklearn import metrics as skm

from reportgen.engine import class_probabilities as CP
from reportgen.engine.class_tables import build_class_tables
from reportgen.reduce.class_counts import probability_counts


def _case(seed: int, n: int = 300, k: int = 4, decimals: int = 1, weighted: bool = False):
    rng = np.random.default_rng(seed)
    y = rng.integers(0, k, n)
    logits = rng.normal(size=(n, k)) + 1.2 * np.eye(k)[y]
    p = np.exp(logits) / np.exp(logits).sum(axis=1, keepdims=True)
    p = np.round(p, decimals)  # ties within rows and across rows
    w = rng.uniform(0.3, 2.5, n) if weighted else np.ones(n)
    return y, p, w


def _ece_loop(conf, right, w, bins):
    total = 0.0
    for b in range(bins):
        lo, hi = b / bins, (b + 1) / bins
        inside = [(c > lo or (b == 0 and c == 0)) and c <= hi for c in conf]
        ws = w[inside]
        if ws.sum() > 0:
            total += abs(np.dot(ws, right[inside]) / ws.sum() - np.dot(ws, conf[inside]) / ws.sum()) * ws.sum()
    return total / w.sum()


@pytest.mark.parametrize("weighted", [False, True])
@pytest.mark.parametrize("seed", range(3))
def test_brier_and_calibration_errors_equal_independent_computations(seed, weighted):
    y, p, w = _case(seed, weighted=weighted)
    k = p.shape[1]
    t = build_class_tables(y, p, w if weighted else None, k)
    assert CP.brier_from_tables(t) == pytest.approx(
        skm.brier_score_loss(y, p, sample_weight=w, labels=list(range(k))), abs=1e-12
    )
    out = CP.class_probabilities(t, probability_counts(y, p, w if weighted else None), top_k=None, costs=None)
    right = (p.argmax(axis=1) == y).astype(float)
    assert out.ece_top_label == pytest.approx(_ece_loop(p.max(axis=1), right, w, CP.ECE_BINS), abs=1e-12)
    classwise = np.mean([_ece_loop(p[:, c], (y == c).astype(float), w, CP.ECE_BINS) for c in range(k)])
    assert out.ece_classwise == pytest.approx(classwise, abs=1e-12)
    assert out.counts.sum() == pytest.approx(w.sum()) and np.all(out.counts > 0)
    assert out.top_k == 2 and out.reasons["expected_cost_optimal"] == "no_cost_matrix"


@pytest.mark.parametrize("weighted", [False, True])
@pytest.mark.parametrize("top_k", [1, 2, 3])
def test_top_k_accuracy_breaks_ties_as_scikit_learn(top_k, weighted):
    y, p, w = _case(7, decimals=1, weighted=weighted)
    assert (p == p.max(axis=1, keepdims=True)).sum() > len(y)  # tied top scores exist
    want = skm.top_k_accuracy_score(y, p, k=top_k, sample_weight=w, labels=list(range(p.shape[1])))
    assert CP.top_k_accuracy(probability_counts(y, p, w), top_k) == pytest.approx(want, abs=1e-12)


def test_the_cost_optimal_rule_minimises_each_rows_expected_cost():
    y, p, w = _case(3, n=200, k=3, decimals=3, weighted=True)
    costs = np.array([[0.0, 1, 4], [2, 0, 1], [9, 3, 0]])
    counts = probability_counts(y, p, w, costs)
    confusion = counts.optimal
    cost_opt, cost_max = CP.expected_costs(counts, costs)
    brute = np.array(
        [min(range(3), key=lambda j: (sum(p[r, i] * costs[i, j] for i in range(3)), j)) for r in range(len(y))]
    )
    want = np.zeros((3, 3))
    np.add.at(want, (y, brute), w)
    np.testing.assert_allclose(confusion, want, rtol=1e-12)
    assert cost_opt == pytest.approx(float((want * costs).sum() / w.sum()))
    assert cost_max == pytest.approx(float(np.dot(w, costs[y, p.argmax(axis=1)]) / w.sum()))
    t = build_class_tables(y, p, w, 3)
    out = CP.class_probabilities(t, counts, top_k=None, costs=costs)
    assert out.top_k == 2 and "top_k_accuracy" not in out.reasons
    assert out.expected_cost_optimal == pytest.approx(cost_opt)


def test_top_k_is_refused_for_a_binary_run():
    from reportgen.config import config_from_mapping
    from reportgen.errors import ConfigError

    cfg = {
        "title": "t",
        "task": "binary",
        "label": "y",
        "top_k": 2,
        "models": [{"name": "a", "file": "a.csv", "score": "s"}],
    }
    with pytest.raises(ConfigError, match="top_k"):
        config_from_mapping(cfg, "t.yaml")


def test_the_top_k_draws_spread_as_the_stratified_row_bootstrap():
    # per true class i, top-k hits ~ Binomial(n_i, a_i): the draws' sd is sqrt(Σ n_i a_i (1 − a_i)) / n
    y, p, _ = _case(5, n=2000, k=4, decimals=2)
    counts = probability_counts(y, p, None)
    draws = CP.top_k_draws(counts, 2, 4000, np.random.default_rng(1))
    hit = (CP.column_ranks(p)[np.arange(len(y)), y] < 2).astype(float)
    n_i = np.bincount(y, minlength=4)
    a_i = np.bincount(y, weights=hit, minlength=4) / n_i
    assert draws.mean() == pytest.approx(hit.mean(), abs=2e-3)
    assert draws.std() == pytest.approx(np.sqrt((n_i * a_i * (1 - a_i)).sum()) / len(y), rel=0.06)
