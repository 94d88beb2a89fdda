"""A verdict never contradicts its own intervals (issue 40; :mod:`reportgen.engine.multiplicity`).

Over families of 1 to 40 verdicts, each by the bootstrap's normal test (a delta and a bootstrap
standard error, as :func:`~reportgen.engine.compare.bootstrap_test` computes them) or by DeLong's
paired or unpaired test, mixed as a run mixes them:

* a simultaneous (Bonferroni) interval that excludes 0 implies a Holm-significant verdict in the
  direction of the difference;
* the unadjusted interval excludes 0 exactly when the raw p is below α;
* Holm's adjusted p lies between the raw p and m·p (statsmodels' ``multipletests`` as oracle).

And the case that broke: bootstrap verdicts against replicates far from 0, at B = 200, are all
significant for every family size up to 40 (the percentile p's floor 1/(B+1) stopped them at 11).
"""

from __future__ import annotations

import functools

import numpy as np
from hypothesis import given, settings
from hypothesis import strategies as st
from oracles import holm_adjusted

from reportgen.engine import stats
from reportgen.engine.compare import PrimaryTest, _scaled_interval, bootstrap_test, decide

LEVELS = st.sampled_from([0.9, 0.95, 0.99])


def _delong(delta: float, se: float, level: float, welch: bool) -> PrimaryTest:
    """A DeLong verdict as :func:`reportgen.engine.compare._delong_step` builds it."""
    if welch:
        test_at = functools.partial(stats.welch_test, delta, se * se / 2, 300, se * se / 2, 400)
    else:
        test_at = functools.partial(stats.normal_test, delta, se * se)
    _, p, lo, hi = test_at(level)[:4]
    return PrimaryTest(p, "DeLong", [lo, hi], "DeLong", functools.partial(_scaled_interval, test_at, 1.0))


_member = st.tuples(
    st.floats(-0.3, 0.3, allow_nan=False),  # delta
    st.floats(1e-4, 0.1, allow_nan=False),  # standard error
    st.sampled_from(["bootstrap", "delong"]),
)


@given(st.lists(_member, min_size=1, max_size=40), LEVELS, st.integers(0, 2**32 - 1))
@settings(max_examples=150, deadline=None)
def test_a_bonferroni_interval_clear_of_zero_implies_a_holm_significant_verdict(members, level, seed) -> None:
    _check(members, level, seed)


def test_the_rule_holds_with_welch_verdicts_in_the_family() -> None:
    """DeLong's unpaired test (Welch t) beside bootstrap and paired verdicts (its t quantile is slow:
    a fixed family rather than hypothesis)."""
    members = [(0.02, 0.008, "welch"), (-0.03, 0.01, "bootstrap"), (0.015, 0.01, "delong"), (0.05, 0.01, "welch")]
    for level in (0.9, 0.95):
        _check(members, level, 1)


def _check(members, level, seed) -> None:
    rng = np.random.default_rng(seed)
    deltas, tests = [], []
    for delta, se, kind in members:
        if kind == "bootstrap":
            reps = rng.standard_normal(200)
            reps = delta + se * (reps - reps.mean()) / reps.std(ddof=1)  # replicates with SD exactly se
            tests.append(bootstrap_test(delta, reps, level))
        else:
            tests.append(_delong(delta, se, level, kind == "welch"))
        deltas.append(delta)
    ds = decide(deltas, tests, "f1", "higher", level)
    m = len(members)
    ref = holm_adjusted([d.p_value for d in ds])
    for d, r in zip(ds, ref):
        assert d.family_size == m and d.family == "verdicts"
        assert d.p_value_adjusted == np.float64(r) or abs(d.p_value_adjusted - r) < 1e-12
        assert d.p_value - 1e-15 <= d.p_value_adjusted <= min(1.0, m * d.p_value) + 1e-15
        lo, hi = d.ci_simultaneous
        if lo > 0 or hi < 0:
            assert d.significant, (d, m)
            assert d.direction == ("better" if d.delta > 0 else "worse")
        lo, hi = d.ci
        # the unadjusted interval and the raw p: one test (away from the float boundary)
        if abs(d.p_value - d.alpha) > 1e-9:
            assert (lo > 0 or hi < 0) == (d.p_value < d.alpha), d


@given(st.integers(1, 40), st.floats(-0.2, -0.05), st.integers(0, 2**32 - 1))
@settings(max_examples=30, deadline=None)
def test_clear_bootstrap_differences_are_significant_in_every_family_size(m, delta, seed) -> None:
    """Each challenger's replicates lie far below 0 (δ̂ ≈ −0.05 or less, SE 0.01): every verdict is
    worse, whatever m ≤ 40. At B = 200 the percentile p was 1/201 for each, and Holm's 11/201 > 0.05."""
    rng = np.random.default_rng(seed)
    tests = [bootstrap_test(delta, delta + 0.01 * rng.standard_normal(200), 0.95) for _ in range(m)]
    ds = decide([delta] * m, tests, "f1", "higher", 0.95)
    assert all(d.significant and d.direction == "worse" and d.ci_simultaneous[1] < 0 for d in ds)
