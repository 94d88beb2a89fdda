"""Audit of the comparison layer against issue #4's correctness list.

Issue #4 asks for tests against a brute-force O(n+ · n-) DeLong, scipy's binomial and
chi-square tails, pROC's published values; and for ties, weights, identical models, perfectly
separating models and tiny samples. ``tests/unit/test_stats.py`` and
``tests/reference/test_stats_reference.py`` cover most items for ``engine/stats.py``; this file
closes the gaps found in the audit, mostly one level up, through ``compare.compare`` (which had
no test of its own), with small hand-built inputs and oracles written here.

The last three tests were found failing by the audit and fixed in ``engine/compare.py``: the
small-class warning counts rows (not weight), DeLong is skipped with a note when a class has a
single row, and the tests' own warnings (small class, zero variance) reach the report.
"""

from __future__ import annotations

import csv
import dataclasses
import math
import warnings
from pathlib import Path

import numpy as np
import pytest
from scipy import stats as sps

from reportgen.engine.compare import Settings
from reportgen.engine.delong import (
    DELONG_WEIGHTS_MESSAGE,
    delong_auc_ci,
    delong_paired,
    delong_unpaired,
    gini_interval,
)
from reportgen.engine.stats import SMALL_CLASS, mcnemar
from reportgen.reduce.rows import ModelRows as ModelInput
from reportgen.reduce.rows import compare_rows
from reportgen.report.wording import capability_note, caveats_of, model_warnings, notice_text, verdict

ASAH = Path(__file__).resolve().parents[1] / "data" / "asah.csv"


def words(result) -> tuple[str, ...]:
    """A standalone DeLong result's caveats as the report words them."""
    return tuple(notice_text(n) for n in result.notices)


# --- oracles and helpers ------------------------------------------------------------------------


def brute_delong(scores: list[np.ndarray], y: np.ndarray):
    """AUCs and DeLong's covariance matrix from the full n+ × n- kernel (ties count 1/2).

    ψ(x, z) = 1 if x > z, 1/2 if x = z, 0 otherwise; V10 = row means, V01 = column means;
    S = cov(V10) / n+ + cov(V01) / n- (DeLong, DeLong & Clarke-Pearson 1988, section 3).
    """
    v10, v01, aucs = [], [], []
    for s in scores:
        x, z = s[y], s[~y]
        psi = (x[:, None] > z[None, :]) + 0.5 * (x[:, None] == z[None, :])
        aucs.append(psi.mean())
        v10.append(psi.mean(axis=1))
        v01.append(psi.mean(axis=0))
    m, k = int(y.sum()), int((~y).sum())
    S = np.atleast_2d(np.cov(np.vstack(v10))) / m + np.atleast_2d(np.cov(np.vstack(v01))) / k
    return np.array(aucs), S


def run(inputs, **settings):
    """compare_rows() with Python warnings turned into errors (no RuntimeWarning, no division by 0)."""
    settings.setdefault("resamples", 0)
    with warnings.catch_warnings():
        warnings.simplefilter("error")
        threshold = settings.pop("threshold", 0.5)
        aligned = settings.pop("paired", True)
        return compare_rows(inputs, Settings(**settings), threshold, aligned=aligned)


def numbers(obj):
    """Every float-like value inside results (dataclasses, dicts, lists; not curve arrays)."""
    if isinstance(obj, bool) or obj is None or isinstance(obj, str):
        return
    if isinstance(obj, (int, float, np.floating, np.integer)):
        yield float(obj)
    elif isinstance(obj, dict):
        for v in obj.values():
            yield from numbers(v)
    elif isinstance(obj, (list, tuple)):
        for v in obj:
            yield from numbers(v)
    elif dataclasses.is_dataclass(obj):
        for f in dataclasses.fields(obj):
            if f.name not in ("curves", "prevalence_shift", "optimal_thresholds"):
                yield from numbers(getattr(obj, f.name))


def assert_no_nan(models, comparisons, cells):
    for x in (*models.values(), *comparisons, *cells):
        bad = [v for v in numbers(x) if not math.isfinite(v)]
        assert not bad, (x, bad)


def tied(seed: int, n: int = 80, levels: int = 4):
    """Two correlated ordinal scores (few distinct values, heavy ties) and labels."""
    rng = np.random.default_rng(seed)
    y = rng.random(n) < 0.45
    y[:2], y[2:4] = True, False
    a = rng.integers(0, levels, n) + y * rng.integers(0, 2, n)
    b = np.clip(a + rng.integers(-1, 2, n), 0, levels)
    return a.astype(float), b.astype(float), y


# --- 1. brute-force DeLong: single AUC, unpaired, and through compare() ---------------------------


@pytest.mark.parametrize("seed", range(5))
@pytest.mark.parametrize("direction", ["higher", "lower"])
def test_auc_interval_variance_equals_brute_force_with_ties(seed, direction):
    a, _, y = tied(seed)
    ci = delong_auc_ci(a, y, direction=direction, level=0.9)
    auc, S = brute_delong([a if direction == "higher" else -a], y)
    assert ci.auc == pytest.approx(auc[0], abs=1e-14)
    assert ci.variance == pytest.approx(S[0, 0], rel=1e-12)
    half = sps.norm.ppf(0.95) * math.sqrt(S[0, 0])
    assert (ci.lo, ci.hi) == pytest.approx((max(0, auc[0] - half), min(1, auc[0] + half)), rel=1e-12)


@pytest.mark.parametrize("seed", range(3))
def test_unpaired_equals_brute_force_welch_with_ties(seed):
    a, _, ya = tied(seed, 70)
    b, _, yb = tied(seed + 100, 50, levels=3)
    t = delong_unpaired(a, ya, b, yb)
    (auc_a,), Sa = brute_delong([a], ya)
    (auc_b,), Sb = brute_delong([b], yb)
    va, vb = Sa[0, 0], Sb[0, 0]
    d = (auc_a - auc_b) / math.sqrt(va + vb)
    df = (va + vb) ** 2 / (va**2 / 69 + vb**2 / 49)
    assert t.z == pytest.approx(d, rel=1e-10)
    assert t.df == pytest.approx(df, rel=1e-10)
    assert t.p_value == pytest.approx(2 * sps.t.sf(abs(d), df), rel=1e-10)


@pytest.mark.parametrize("seed", range(3))
def test_compare_delong_equals_brute_force_with_ties(seed):
    a, b, y = tied(seed, 90, levels=5)
    c = np.round(a + np.random.default_rng(seed).normal(0, 1.5, a.shape[0]))
    models, comps, cells = run(
        [ModelInput("base", "f", a, y), ModelInput("m1", "f", b, y), ModelInput("m2", "f", c, y)], level=0.9
    )
    aucs, S = brute_delong([a, b, c], y)
    for j, cmp_ in ((1, comps[0]), (2, comps[1])):
        d = cmp_.tests.delong
        var = S[j, j] + S[0, 0] - 2 * S[0, j]
        z = (aucs[j] - aucs[0]) / math.sqrt(var)
        assert (d.auc_model, d.auc_baseline) == pytest.approx((aucs[j], aucs[0]), abs=1e-14)
        assert d.se == pytest.approx(math.sqrt(var), rel=1e-10)
        assert d.z == pytest.approx(z, rel=1e-9)
        assert d.p_value == pytest.approx(2 * sps.norm.sf(abs(z)), rel=1e-9)
        half = sps.norm.ppf(0.95) * math.sqrt(var)
        assert d.ci == pytest.approx([z * math.sqrt(var) - half, z * math.sqrt(var) + half], rel=1e-9)
        assert cmp_.ci["gini"] == pytest.approx([2 * v for v in d.ci], rel=1e-12)
        assert cmp_.delta["gini"] == pytest.approx(2 * (aucs[j] - aucs[0]), abs=1e-12)
    # Holm over the two DeLong p-values, computed here from the definition
    p = sorted((c_.tests.delong.p_value, i) for i, c_ in enumerate(comps))
    adj = [min(1, 2 * p[0][0]), max(min(1, 2 * p[0][0]), min(1, p[1][0]))]
    for (_raw, i), a_ in zip(p, adj):
        assert comps[i].tests.delong.p_value_holm == pytest.approx(a_, rel=1e-12)
    # per-model AUC interval from the diagonal
    for j, name in enumerate(("base", "m1", "m2")):
        half = sps.norm.ppf(0.95) * math.sqrt(S[j, j])
        lo, hi = max(0.0, aucs[j] - half), min(1.0, aucs[j] + half)
        assert models[name].ci["roc_auc"] == pytest.approx([lo, hi], rel=1e-12)
        assert models[name].ci_method["roc_auc"] == "DeLong"
    # the pairwise matrix: one paired DeLong test per unordered pair, symmetric p
    by_pair = {(c_.model, c_.baseline): c_ for c_ in cells}
    assert by_pair[("m1", "m2")].p_value == by_pair[("m2", "m1")].p_value
    assert by_pair[("m1", "base")].p_value == pytest.approx(comps[0].tests.delong.p_value, rel=1e-12)


# --- 2. scipy tails through compare(): McNemar at the decision threshold ---------------------------


def test_compare_mcnemar_counts_and_p_match_scipy():
    rng = np.random.default_rng(5)
    n = 400
    y = rng.random(n) < 0.4
    a = rng.normal(size=n) + y
    b = a + rng.normal(0, 1.0, n)
    _, comps, _ = run([ModelInput("base", "f", a, y), ModelInput("m", "f", b, y)], threshold=0.5)
    mc = comps[0].tests.mcnemar
    ok_m, ok_b = (b >= 0.5) == y, (a >= 0.5) == y
    n12, n21 = int((ok_m & ~ok_b).sum()), int((~ok_m & ok_b).sum())
    assert mc.table == ((float((ok_m & ok_b).sum()), n12), (n21, float((~ok_m & ~ok_b).sum())))  # frozen: tuples
    assert n12 + n21 >= 25 and mc.method == "chi-square (continuity-corrected)"
    chi2 = (abs(n12 - n21) - 1) ** 2 / (n12 + n21)
    assert mc.statistic == pytest.approx(chi2, rel=1e-14)
    assert mc.p_value == pytest.approx(sps.chi2.sf(chi2, 1), rel=1e-12)
    # a few rows: the exact binomial tail
    small = slice(0, 30)
    _, comps, _ = run([ModelInput("base", "f", a[small], y[small]), ModelInput("m", "f", b[small], y[small])])
    mc = comps[0].tests.mcnemar
    (_, n12), (n21, _) = mc.table
    assert mc.method == "exact binomial"
    assert mc.p_value == pytest.approx(sps.binomtest(int(n12), int(n12 + n21), 0.5).pvalue, rel=1e-12)


# --- 3. pROC's published values through compare() -----------------------------------------------


@pytest.fixture(scope="module")
def asah():
    with ASAH.open(newline="") as f:
        rows = list(csv.DictReader(f))
    y = np.array([r["outcome"] == "Poor" for r in rows])
    return y, {k: np.array([float(r[k]) for r in rows]) for k in ("s100b", "wfns", "ndka")}


def test_compare_reproduces_proc_roc_test_on_asah(asah):
    # verified case: pROC tests/testthat/test-roc.test.R, paired roc.test(r.wfns, r.s100b):
    # Z = 2.20898359144091, p = 0.0271757822291882, CI 0.0104061769564846 .. 0.174214419249478;
    # test-ci.auc.R: ci.auc(r.ndka) = 0.501244999271703 .. 0.722670989888189
    y, s = asah
    models, comps, _ = run([ModelInput(k, "asah.csv", s[k], y) for k in ("s100b", "wfns", "ndka")])
    wfns = comps[0]
    assert (wfns.model, wfns.baseline) == ("wfns", "s100b")
    d = wfns.tests.delong
    assert d.z == pytest.approx(2.20898359144091, rel=1e-12)
    assert d.p_value == pytest.approx(0.0271757822291882, rel=1e-12)
    assert d.ci == pytest.approx([0.0104061769564846, 0.174214419249478], rel=1e-12)
    assert models["ndka"].ci["roc_auc"] == pytest.approx([0.501244999271703, 0.722670989888189], rel=1e-12)


def test_compare_unpaired_reproduces_proc_on_asah(asah):
    # verified case: pROC test-roc.test.R, unpaired roc.test(r.wfns, r.s100b): D = 1.43490640926908,
    # p = 0.152825378808796
    y, s = asah
    _, comps, cells = run(
        [ModelInput("s100b", "f", s["s100b"], y), ModelInput("wfns", "f", s["wfns"], y)], paired=False
    )
    d = comps[0].tests.delong
    assert not d.paired
    assert d.z == pytest.approx(1.43490640926908, rel=1e-12)
    assert d.p_value == pytest.approx(0.152825378808796, rel=1e-10)
    assert comps[0].tests.mcnemar is None  # McNemar needs paired rows
    assert all(c.p_value is None for c in cells)


# --- 4. ties ---------------------------------------------------------------------------------------


def test_all_rows_tied_gives_auc_one_half_and_a_defined_test():
    y = np.array([1, 1, 1, 0, 0, 0, 0], dtype=bool)
    flat = np.full(7, 3.0)
    ci = delong_auc_ci(flat, y)
    assert (ci.auc, ci.variance, ci.lo, ci.hi) == (0.5, 0.0, 0.5, 0.5)
    other = np.array([5.0, 1.0, 3.0, 2.0, 4.0, 0.0, 1.0])
    t = delong_paired(flat, other, y)  # a constant score against an informative one
    (auc_other,), S = brute_delong([other], y)
    assert (t.auc_a, t.auc_b) == (0.5, pytest.approx(auc_other))
    assert t.var_a == 0.0 and t.se == pytest.approx(math.sqrt(S[0, 0]), rel=1e-12)
    assert math.isfinite(t.z) and 0 < t.p_value < 1
    # a constant score against a perfectly inverted one: both have zero variance, delta 1/2
    inv = delong_paired(flat, np.arange(7.0), y)
    assert (inv.auc_b, inv.se, inv.z, inv.p_value) == (0.0, 0.0, None, 0.0)


# --- 5. weights: what is supported, what is refused ----------------------------------------------


def test_weights_are_refused_by_delong_with_the_documented_message():
    a, b, y = tied(1, 40)
    w = np.ones(40)
    w[0] = 0.5
    for call in (
        lambda: delong_auc_ci(a, y, weights=w),
        lambda: delong_paired(a, b, y, weights=w),
        lambda: delong_unpaired(a, y, b, y, weights_a=w),
    ):
        with pytest.raises(ValueError, match="use the bootstrap for weighted data"):
            call()
    assert "unweighted rows" in DELONG_WEIGHTS_MESSAGE


def test_compare_with_fractional_weights_says_which_tests_were_skipped():
    a, b, y = tied(2, 120, levels=6)
    w = np.random.default_rng(0).uniform(0.5, 2.0, 120)
    models, comps, cells = run([ModelInput("base", "f", a, y, w), ModelInput("m", "f", b, y, w)], resamples=40, seed=1)
    c = comps[0]
    assert c.tests.delong is None
    assert c.capabilities == {"delong": "weighted"}
    notes = " ".join(capability_note(what, why) for what, why in c.capabilities.items())
    assert "DeLong" in notes and "unweighted" in notes
    # sampling weights (the default): McNemar counts the rows, the weighted table beside it
    mc = c.tests.mcnemar
    ref = mcnemar((b >= 0.5) == y, (a >= 0.5) == y)
    assert mc.basis == "rows" and mc.p_value == ref.p_value
    assert sum(map(sum, mc.table)) == 120 and sum(map(sum, mc.weighted_table)) == pytest.approx(w.sum())
    for m in models.values():  # intervals still reported, honestly labelled
        assert m.weighted and m.ci_method["roc_auc"] == m.ci_method["gini"] == "bootstrap (weighted score table)"
    assert "gini" in c.ci and "bootstrap" in verdict(c)
    assert all(cell.p_value is None for cell in cells)
    assert_no_nan(models, comps, cells)


def test_compare_with_integer_weights_runs_mcnemar_on_frequencies():
    a, b, y = tied(3, 60)
    w = np.random.default_rng(1).integers(1, 4, 60).astype(float)
    _, comps, _ = run(
        [ModelInput("base", "f", a, y, w), ModelInput("m", "f", b, y, w)], threshold=2.0, weight_kind="frequency"
    )
    got = comps[0].tests.mcnemar
    assert got.basis == "rows"  # the evidence holds the repeated rows
    k = w.astype(int)
    ref = mcnemar(np.repeat((b >= 2.0) == y, k), np.repeat((a >= 2.0) == y, k))
    assert got.p_value == ref.p_value and got.method == ref.method
    assert got.table == tuple(tuple(float(v) for v in row) for row in ref.table)
    assert comps[0].tests.delong is not None  # repeated rows are unweighted rows: DeLong applies


# --- 6. identical models ---------------------------------------------------------------------------


def test_unpaired_identical_samples_give_p_one():
    a, _, y = tied(4, 50)
    t = delong_unpaired(a, y, a, y)
    assert (t.delta, t.z, t.p_value) == (0.0, 0.0, 1.0)
    assert t.lo == pytest.approx(-t.hi)


@pytest.mark.parametrize("paired", [True, False])
def test_compare_identical_models(paired):
    a, _, y = tied(5, 100, levels=6)
    twin = 2.0 * a + 1.0  # a strictly increasing map: the same model on another scale
    models, comps, cells = run(
        [ModelInput("base", "f", a, y), ModelInput("twin", "f", twin, y, threshold=2.0 * 2 + 1)],
        threshold=2.0,
        resamples=30,
        paired=paired,
    )
    c = comps[0]
    for k, v in c.delta.items():
        if k not in ("log_loss", "brier"):
            assert v in (0.0, None), (k, v)
    d = c.tests.delong
    assert (d.delta, d.z, d.p_value) == (0.0, 0.0, 1.0)
    if paired:
        assert (d.se, d.ci) == (0.0, (0.0, 0.0))
        assert c.tests.mcnemar.p_value == 1.0
        assert c.tests.mcnemar.method == "none (no discordant pairs)"
        assert all(iv == (0.0, 0.0) for k, iv in c.ci.items() if k not in ("log_loss", "brier")), c.ci
        assert {cell.p_value for cell in cells} == {1.0}
    assert "equals" in verdict(c)
    assert_no_nan(models, comps, cells)


# --- 7. perfectly separating models (variance 0) --------------------------------------------------


def test_unpaired_two_perfect_models_give_p_one():
    y = np.array([0] * 6 + [1] * 5, dtype=bool)
    s = np.arange(11.0)
    t = delong_unpaired(s, y, 3 * s, y)
    assert (t.delta, t.se, t.z, t.p_value, t.df) == (0.0, 0.0, 0.0, 1.0, None)


def test_perfect_separation_is_flagged_not_divided_by():
    y = np.array([0] * 40 + [1] * 40, dtype=bool)
    s = np.arange(80.0)
    ci = delong_auc_ci(s, y)
    assert (ci.auc, ci.variance, ci.lo, ci.hi) == (1.0, 0.0, 1.0, 1.0)
    assert any("variance is 0" in w for w in words(ci))
    assert any("variance is 0" in w for w in words(gini_interval(ci)))
    t = delong_paired(s, -s, y)
    assert (t.z, t.p_value) == (None, 0.0)
    assert any("infinite" in w for w in words(t))
    same = delong_paired(s, 2 * s, y)
    assert (same.z, same.p_value, words(same)) == (0.0, 1.0, ())


def test_compare_with_perfect_models():
    y = np.array([0] * 8 + [1] * 7, dtype=bool)
    s = np.linspace(0.0, 1.0, 15)
    noisy = s.copy()
    noisy[[0, 14]] = noisy[[14, 0]]
    models, comps, cells = run(
        [
            ModelInput("perfect", "f", s, y),
            ModelInput("also", "f", s**2, y),
            ModelInput("noisy", "f", noisy, y),
            ModelInput("inverted", "f", 1 - s, y),
        ],
        resamples=30,
    )
    assert models["perfect"].ci["roc_auc"] == (1.0, 1.0)
    by = {c.model: c for c in comps}
    assert (by["also"].tests.delong.z, by["also"].tests.delong.p_value) == (0.0, 1.0)
    assert by["noisy"].tests.delong.z < 0 and 0 < by["noisy"].tests.delong.p_value < 1
    inv = by["inverted"].tests.delong
    assert inv.z is None and inv.p_value == 0.0 and inv.delta == -1.0
    assert_no_nan(models, comps, [c for c in cells if c.p_value is not None])


# --- 8. tiny samples -------------------------------------------------------------------------------


def test_small_classes_carry_a_warning_in_stats_results():
    rng = np.random.default_rng(6)
    y = np.array([1] * 5 + [0] * 40, dtype=bool)
    a = rng.normal(size=45) + y
    b = rng.normal(size=45) + y
    ci = delong_auc_ci(a, y)
    assert len(words(ci)) == 1 and "only 5 positives" in words(ci)[0] and "weak" in words(ci)[0]
    assert words(gini_interval(ci))[0].startswith("Gini interval")
    assert any("only 5 positives" in w for w in words(delong_paired(a, b, y)))
    un = delong_unpaired(a, y, b, y)
    assert len(words(un)) == 2  # one per sample
    # enough rows in both classes: no warning
    y2 = rng.random(400) < 0.5
    big = rng.normal(size=400) + y2
    assert words(delong_auc_ci(big, y2)) == ()
    assert words(delong_paired(big, big + rng.normal(size=400), y2)) == ()
    assert SMALL_CLASS == 30


def test_two_per_class_is_the_least_delong_accepts():
    y = np.array([1, 1, 0, 0], dtype=bool)
    ci = delong_auc_ci(np.array([0.9, 0.2, 0.4, 0.1]), y)
    assert words(ci) and math.isfinite(ci.variance)
    with pytest.raises(ValueError, match="at least two positives and two negatives"):
        delong_auc_ci(np.array([0.9, 0.4, 0.1]), np.array([1, 0, 0], dtype=bool))


def test_compare_warns_about_a_small_class_and_not_about_a_large_one():
    rng = np.random.default_rng(7)
    y = np.array([1] * 6 + [0] * 30, dtype=bool)
    a, b = rng.normal(size=36) + y, rng.normal(size=36) + y
    models, _, _ = run([ModelInput("base", "f", a, y), ModelInput("m", "f", b, y)])
    for m in models.values():
        assert any("only 6 rows in the smaller class" in w and "unreliable" in w for w in model_warnings(m))
    y2 = rng.random(200) < 0.5
    models, _, _ = run(
        [ModelInput("base", "f", rng.normal(size=200) + y2, y2), ModelInput("m", "f", rng.normal(size=200) + y2, y2)]
    )
    assert not any("smaller class" in w for m in models.values() for w in model_warnings(m))


def test_compare_small_class_warning_counts_rows_not_weight():
    rng = np.random.default_rng(8)
    y = np.array([1] * 6 + [0] * 30, dtype=bool)
    w = np.where(y, 100.0, 10.0)
    models, _, _ = run(
        [ModelInput("base", "f", rng.normal(size=36) + y, y, w), ModelInput("m", "f", rng.normal(size=36) + y, y, w)],
        resamples=20,
    )
    assert all(any("smaller class" in w_ for w_ in model_warnings(m)) for m in models.values())


def test_compare_with_a_single_positive_row_does_not_crash():
    y = np.array([1] + [0] * 20, dtype=bool)
    s = np.linspace(1.0, 0.0, 21)
    _models, comps, _ = run([ModelInput("base", "f", s, y), ModelInput("m", "f", s[::-1].copy(), y)], resamples=20)
    assert comps[0].tests.delong is None
    assert comps[0].capabilities["delong"] == "small_class"
    assert "at least 2 rows of each class" in capability_note("delong", "small_class")


def test_compare_passes_on_the_tests_own_warnings():
    y = np.array([0] * 8 + [1] * 7, dtype=bool)
    s = np.linspace(0.0, 1.0, 15)
    _, comps, _ = run([ModelInput("perfect", "f", s, y), ModelInput("inverted", "f", 1 - s, y)])
    notes = " ".join(caveats_of(comps[0]))
    assert "only 7 positives" in notes and "infinite" in notes


def test_standalone_delong_caveats_are_codes_worded_by_the_report_layer():
    """The engine's standalone DeLong functions return reason codes, not sentences (issue 15);
    ``notice_text`` words them as the engine's sentences used to read."""

    y = np.array([1, 1, 1, 0, 0, 0, 0], dtype=bool)
    flat = np.full(7, 3.0)
    ci = delong_auc_ci(flat, y)
    assert [n.code for n in ci.notices] == ["delong_small_sample", "delong_zero_variance"]
    assert notice_text(ci.notices[0]) == (
        "AUC interval: only 3 positives and 4 negatives; DeLong's normal approximation is weak with fewer than "
        "30 rows in a class, so treat the interval and p-value as rough"
    )
    assert notice_text(ci.notices[1]) == (
        "AUC interval: DeLong's variance is 0 (AUC = 0.5: every positive ties every negative, as with a constant "
        "score), so the interval has zero width and understates the uncertainty"
    )
    assert [notice_text(n)[:14] for n in gini_interval(ci).notices] == ["Gini interval:"] * 2
    inv = delong_paired(flat, np.arange(7.0), y)
    assert [n.code for n in inv.notices] == ["delong_small_sample", "delong_infinite_z"]
    assert notice_text(inv.notices[0]).startswith("DeLong's test: only 3 positives")
    un = delong_unpaired(flat, y, np.arange(7.0), y)
    assert [notice_text(n)[:29] for n in un.notices[:2]] == [
        "DeLong's test (sample a): onl",
        "DeLong's test (sample b): onl",
    ]
