"""Regression tests from the differential oracle hunt (metrics.json against independent oracles).

A throwaway driver ran `reportgen run --format json --full-curves` on a few hundred random small
configs (heavy ties, integer / fractional / zero weights, a tiny class, `direction: lower`,
scores outside [0, 1], multiclass with 3–6 classes in any label order) and compared every field
it could with scikit-learn, scipy and brute-force loops over all thresholds. Each disagreement
it found is pinned here against the oracle that found it, named after what broke.
"""

from __future__ import annotations

import numpy as np
import pytest
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from reportgen.engine import binary as B
from reportgen.engine.compare import Settings
from reportgen.engine.curve import build_table
from reportgen.reduce.rows import ModelRows, compare_rows

# --- KS threshold: the optimal thresholds' tie rule ----------------------------------------------


def _ks_oracle(scores, y, w, direction):
    """(KS, its threshold) by brute force: max over cuts "positive when score ≥ t" (≤ for lower)
    of TPR − FPR, floored at 0; of exactly tied cuts the one with the fewest predicted positives
    (README "optimal thresholds": highest threshold for higher, lowest for lower). Fractions are
    compared exactly (integer weights), so ties are ties."""
    from fractions import Fraction

    sign = 1 if direction == "higher" else -1
    e = sign * scores
    P = sum(Fraction(int(v)) for v in w[y])
    N = sum(Fraction(int(v)) for v in w[~y])
    best, thr = None, None
    for t in sorted(set(e), reverse=True):  # fewest predicted positives first
        flag = e >= t
        d = sum(Fraction(int(v)) for v in w[flag & y]) / P - sum(Fraction(int(v)) for v in w[flag & ~y]) / N
        if best is None or d > best:
            best, thr = d, sign * t
    return float(max(best, 0)), float(thr)


@pytest.mark.parametrize("direction", ["higher", "lower"])
def test_ks_threshold_of_tied_maxima_is_the_fewest_positives_cut(direction):
    # P = 2, N = 10: cut at 3 gives 1/2 − 2/10 = 0.3, cut at 2 gives 2/2 − 7/10 = 0.30000000000000004
    # in floating point: the same KS, and the threshold must be 3 (the fewest predicted positives),
    # as optimal_thresholds' youden_j cut is; argmax of the computed values picked 2
    scores = np.array([3.0] * 3 + [2.0] * 6 + [1.0] * 3)
    y = np.array([1, 0, 0] + [1] + [0] * 5 + [0] * 3, dtype=bool)
    if direction == "lower":
        scores = -scores
    table = build_table(scores, y, direction=direction)
    m = B.compute_metrics(table, float(scores[0]))
    ks, thr = _ks_oracle(scores, y, np.ones(y.shape[0]), direction)
    assert (m.get("ks"), m.ks_threshold) == (pytest.approx(ks, abs=1e-15), thr)
    youden = {o.criterion: o for o in B.optimal_thresholds(table)}["youden_j"]
    assert youden.threshold == m.ks_threshold == (3.0 if direction == "higher" else -3.0)


@settings(deadline=None, max_examples=60, suppress_health_check=[HealthCheck.too_slow])
@given(st.data())
def test_ks_and_its_threshold_match_an_exact_brute_force(data):
    n = data.draw(st.integers(2, 30))
    scores = np.array(data.draw(st.lists(st.integers(0, 5), min_size=n, max_size=n)), dtype=float)
    y = np.array(data.draw(st.lists(st.booleans(), min_size=n, max_size=n)))
    w = np.array(data.draw(st.lists(st.integers(0, 3), min_size=n, max_size=n)), dtype=float)
    direction = data.draw(st.sampled_from(["higher", "lower"]))
    if not (w[y].sum() > 0 and w[~y].sum() > 0):
        return
    table = build_table(scores, y, w, direction)
    m = B.compute_metrics(table, float(scores[0]))
    ks, thr = _ks_oracle(scores, y, w, direction)
    assert m.get("ks") == pytest.approx(ks, abs=1e-12)
    # thresholds of zero-weight scores give the same counts as a neighbour: compare the counts
    e = scores if direction == "higher" else -scores
    at = lambda t: e >= (t if direction == "higher" else -t)  # noqa: E731
    got, want = at(m.ks_threshold), at(thr)
    assert (w[got & y].sum(), w[got & ~y].sum()) == (w[want & y].sum(), w[want & ~y].sum())


# --- Holm over a family of one -------------------------------------------------------------------


def test_holm_adjusted_p_of_a_single_comparison_is_its_raw_p():
    # Holm's adjustment of a family of one test is the test's p itself; it was null (read as "not
    # adjusted") for DeLong and McNemar while decision.p_value_adjusted carried the value
    rng = np.random.default_rng(3)
    n = 300
    y = rng.random(n) < 0.3
    a = ModelRows("a", "f", y * 0.8 + rng.normal(0, 1, n), y)
    b = ModelRows("b", "f", y * 1.4 + rng.normal(0, 1, n), y)
    _, comps, cells = compare_rows([a, b], Settings(primary_metric="gini", resamples=0), threshold=0.5)
    (c,) = comps
    assert c.tests.delong.p_value_holm == c.tests.delong.p_value == c.decision.p_value_adjusted
    assert c.tests.mcnemar.p_value_holm == c.tests.mcnemar.p_value
    assert cells[0].p_value_holm == cells[0].p_value  # the pairwise family of one, already so


def test_holm_adjusted_mcnemar_p_of_a_single_multiclass_comparison(tmp_path):
    import pandas as pd

    from reportgen.config import load_config
    from reportgen.pipeline import analyse

    rng = np.random.default_rng(4)
    n = 200
    y = rng.integers(0, 3, n)
    pd.DataFrame(
        {
            "y": y,
            "p0": np.where(rng.random(n) < 0.6, y, rng.integers(0, 3, n)),
            "p1": np.where(rng.random(n) < 0.7, y, rng.integers(0, 3, n)),
        }
    ).to_csv(tmp_path / "m.csv", index=False)
    (tmp_path / "m.yaml").write_text(
        "label: y\ntask: multiclass\nclasses: [2, 0, 1]\nbootstrap: {resamples: 0}\n"
        "models:\n  - {name: m0, file: m.csv, prediction: p0}\n"
        "  - {name: m1, file: m.csv, prediction: p1}\n"
    )
    cfg, p = load_config(tmp_path / "m.yaml")
    (c,) = analyse(cfg, p, now="2026-01-01T00:00:00Z").comparisons
    assert c.tests.mcnemar.p_value_holm == c.tests.mcnemar.p_value


# --- equal approval rate: the baseline at its own rule, rows of zero weight ----------------------


def test_baseline_at_its_own_approval_rate_keeps_its_rule_with_zero_weight_rows():
    # champion (direction lower, threshold 0.2) declines the score 0.1; that row has weight 0, so
    # the cuts at 0.1 and 0.3 approve the same weighted share, and "closest share, ties approving
    # more" approved the 0.1 row too: 30 approved rows, threshold 0.1, against the rule's 29
    rng = np.random.default_rng(0)
    n = 40
    y = rng.integers(0, 2, n).astype(bool)
    champion = np.round(rng.normal(size=n) + y, 1)
    champion[champion == 0.1] = 0.0
    champion[:2] = [0.1, 0.3]
    w = rng.integers(1, 4, n).astype(float)
    w[0] = 0.0
    challenger = np.round(rng.random(n), 1)
    _, comps, _ = compare_rows(
        [
            ModelRows("champion", "f", champion, y, w, "lower", threshold=0.2),
            ModelRows("challenger", "f", challenger, y, w, threshold=0.5),
        ],
        Settings(resamples=0),
        threshold=0.5,
    )
    (a,) = [x for x in comps[0].approval if x.source == "baseline"]
    rule = champion > 0.2  # approved: not flagged by "positive when score ≤ 0.2"
    assert a.baseline.approved_rows == rule.sum() and a.baseline.bads_rows == (rule & y).sum()
    assert a.baseline.threshold == champion[rule].min() == 0.3
    assert a.baseline.approved_weight == w[rule].sum() and a.target_rate == w[rule].sum() / w.sum()
    am = challenger <= a.model.threshold
    for cell, mask in (
        (a.swap_in, am & ~rule),
        (a.swap_out, ~am & rule),
        (a.stay_approved, am & rule),
        (a.stay_declined, ~am & ~rule),
    ):
        assert (cell.rows, cell.bads_rows, cell.weight) == (mask.sum(), (mask & y).sum(), w[mask].sum())


@settings(deadline=None, max_examples=40, suppress_health_check=[HealthCheck.too_slow])
@given(st.data())
def test_equal_approval_sides_match_a_brute_force_with_zero_weights(data):
    n = data.draw(st.integers(4, 30))
    y = np.array(data.draw(st.lists(st.booleans(), min_size=n, max_size=n)))
    w = np.array(data.draw(st.lists(st.integers(0, 3), min_size=n, max_size=n)), dtype=float)
    sa = np.array(data.draw(st.lists(st.integers(0, 6), min_size=n, max_size=n)), dtype=float) / 2
    sb = np.array(data.draw(st.lists(st.integers(0, 6), min_size=n, max_size=n)), dtype=float) / 2
    da, db = data.draw(st.sampled_from(["higher", "lower"])), data.draw(st.sampled_from(["higher", "lower"]))
    ta, tb = float(data.draw(st.sampled_from(sa.tolist()))), float(data.draw(st.sampled_from(sb.tolist())))
    if not (w[y].sum() > 0 and w[~y].sum() > 0):
        return
    _, comps, _ = compare_rows(
        [ModelRows("a", "f", sa, y, w, da, threshold=ta), ModelRows("b", "f", sb, y, w, db, threshold=tb)],
        Settings(resamples=0),
        threshold=0.5,
    )
    (a,) = [x for x in comps[0].approval if x.source == "baseline"]
    # the baseline approves what its rule does not flag; the model the safest rows, whole tied
    # groups, at the share closest to the baseline's (ties: approving more)
    rule = ~(sa >= ta if da == "higher" else sa <= ta)
    risk = sb if db == "higher" else -sb
    cuts = np.unique(risk)
    shares = np.array([0.0] + [w[risk <= t].sum() / w.sum() for t in cuts])
    best = max(np.flatnonzero(np.abs(shares - a.target_rate) == np.abs(shares - a.target_rate).min()))
    am = risk <= cuts[best - 1] if best > 0 else np.zeros(n, bool)
    assert a.target_rate == pytest.approx(w[rule].sum() / w.sum(), abs=1e-12)
    for side, mask in ((a.baseline, rule), (a.model, am)):
        assert (side.approved_rows, side.bads_rows) == (mask.sum(), (mask & y).sum())
        assert side.approved_weight == pytest.approx(w[mask].sum(), abs=1e-12)
    for cell, mask in (
        (a.swap_in, am & ~rule),
        (a.swap_out, ~am & rule),
        (a.stay_approved, am & rule),
        (a.stay_declined, ~am & ~rule),
    ):
        assert (cell.rows, cell.bads_rows) == (mask.sum(), (mask & y).sum())
