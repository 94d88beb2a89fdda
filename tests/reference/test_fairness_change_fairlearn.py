"""The challenger's fairness change against fairlearn (the oracle), resample by resample.

The paired bootstrap redraws each group's joint table (rows by label, baseline's decision,
challenger's decision); every draw is a set of rows, rebuilt here, on which fairlearn's metrics of
the two models' decisions are computed and subtracted. The point change is fairlearn's difference
of the two models' values on the rows.
"""

from __future__ import annotations

import fairlearn.metrics as fm  # the oracle is a [test] dependency: missing, the tests fail
import numpy as np
import pytest

from reportgen.engine import fairness as F

MEASURES = {
    "demographic_parity_difference": fm.demographic_parity_difference,
    "demographic_parity_ratio": fm.demographic_parity_ratio,
    "equalized_odds_difference": fm.equalized_odds_difference,
    "equalized_odds_ratio": fm.equalized_odds_ratio,
    "equal_opportunity_difference": fm.equal_opportunity_difference,
}


@pytest.fixture(scope="module")
def rows():
    rng = np.random.default_rng(49)
    n = 600
    group = rng.choice(3, n, p=[0.5, 0.3, 0.2])
    y = rng.random(n) < 0.3
    base = rng.random(n) < np.where(y, 0.7, 0.2) + 0.05 * group
    chal = np.where(rng.random(n) < 0.8, base, rng.random(n) < 0.4)
    return y, base, chal, group


def _fairlearn_change(y, base, chal, group, ref):
    out = {}
    for k, f in MEASURES.items():
        kw = {"y_true": y.astype(int), "sensitive_features": group}
        out[k] = f(y_pred=chal.astype(int), **kw) - f(y_pred=base.astype(int), **kw)
    sel = {}
    for name, d in (("base", base), ("chal", chal)):
        rates = fm.MetricFrame(
            metrics=fm.selection_rate, y_true=y.astype(int), y_pred=d.astype(int), sensitive_features=group
        ).by_group
        sel[name] = rates / rates.loc[ref]
    out["air"] = (sel["chal"] - sel["base"]).to_numpy()
    others = [g for g in sel["base"].index if g != ref]
    out["min_adverse_impact_ratio"] = sel["chal"][others].min() - sel["base"][others].min()
    return out


def _check(got: dict, want: dict, at=()) -> None:
    for k, v in want.items():
        assert np.asarray(got[k])[at] == pytest.approx(v, abs=1e-12), k


@pytest.mark.slow  # fairlearn's metrics: about 2 s
def test_point_change_is_fairlearns_difference_of_the_two_models(rows):
    y, base, chal, group = rows
    joint = F.joint_cells(y, base, chal, group, 3)
    _check(F.change_of(joint, 0, "flagged"), _fairlearn_change(y, base, chal, group, 0))


@pytest.mark.slow  # fairlearn's metrics on three resamples: about 4 s
def test_each_resample_is_fairlearn_on_its_rows(rows):
    y, base, chal, group = rows
    joint = F.joint_cells(y, base, chal, group, 3)
    draws = F.paired_draws(joint, 3, np.random.default_rng(1))
    change = F.change_of(draws, 1, "flagged")
    cells = np.arange(8)
    for r in range(draws.shape[0]):
        k = draws[r].astype(np.int64)  # (groups, 8): the rows of the draw, rebuilt
        g = np.repeat(np.repeat(np.arange(3), 8), k.ravel())
        c = np.repeat(np.tile(cells, 3), k.ravel())
        assert np.array_equal(k.sum(axis=1), joint.sum(axis=1))  # group sizes kept
        want = _fairlearn_change(c >= 4, (c // 2) % 2 == 1, c % 2 == 1, g, 1)
        got = {k2: v[r] for k2, v in change.items()}
        _check(got, want)


def test_models_marginals_are_their_confusion_cells(rows):
    y, base, chal, group = rows
    b, c = F.pair_marginals(F.joint_cells(y, base, chal, group, 3))
    for d, cells in ((base, b), (chal, c)):
        for g in range(3):
            s = group == g
            want = [(y & d)[s].sum(), (~y & d)[s].sum(), (y & ~d)[s].sum(), (~y & ~d)[s].sum()]
            assert cells[g].tolist() == want


def test_fairness_change_intervals_hold_the_point_and_name_the_method(rows):
    y, base, chal, group = rows
    joint = F.joint_cells(y, base, chal, group, 3)
    ch, point = F.fairness_change("g", joint, ["a", "b", "c"], "a", 0.95, 300, np.random.default_rng(2), "flagged")
    assert ch.rows == 600 and ch.method == F.PAIRED_METHOD
    assert set(ch.adverse_impact_ratio_changes) == {"b", "c"}
    for k, v in point.items():
        lo, hi = ch.changes_ci[k]
        assert lo <= v <= hi, k
    same, nil = F.fairness_change(
        "g", F.joint_cells(y, base, base, group, 3), ["a", "b", "c"], "a", 0.95, 50, np.random.default_rng(2), "flagged"
    )
    assert all(v == 0 for v in nil.values())  # the same decisions: no change, in every resample
    assert all(tuple(ci) == (0.0, 0.0) for ci in same.changes_ci.values())
