"""Verdicts a committee can trust (issue 17): one multiplicity policy, decisions as fields,
exact intervals at the boundary, weights that mean one thing.

Oracles: scipy (``beta.ppf`` / ``binomtest`` for Clopper–Pearson and Wilson), Holm computed by
hand, repeated rows for frequency weights, McNemar on the rows for sampling weights.
"""

from __future__ import annotations

import dataclasses
import math

import numpy as np
import pytest
from hypothesis import given, settings
from hypothesis import strategies as st
from scipy import stats as sps

from reportgen.engine import approval as AP
from reportgen.engine import multiplicity as MP
from reportgen.engine import proportions as PR
from reportgen.engine.compare import BOOTSTRAP_NORMAL, Settings
from reportgen.engine.stats import holm, mcnemar
from reportgen.reduce.rows import ModelRows, compare_rows
from reportgen.report.wording import caveats_of, comparison_notes, mcnemar_sentence, model_warnings, verdict
from reportgen.results import Comparison, from_jsonable, to_jsonable

# --- exact and score intervals ---------------------------------------------------------------------


def test_clopper_pearson_zero_of_143_is_the_issue_bound():
    lo, hi = PR.clopper_pearson(0, 143, 0.95)
    assert lo == 0.0
    assert hi == pytest.approx(sps.beta.ppf(0.975, 1, 143), rel=1e-12)
    assert round(hi, 4) == 0.0255


@pytest.mark.parametrize("k,n", [(0, 1), (1, 1), (0, 20), (20, 20), (3, 20), (7, 143), (142, 143), (50, 101)])
@pytest.mark.parametrize("level", [0.9, 0.95, 0.99])
def test_clopper_pearson_and_wilson_match_scipy(k, n, level):
    ref = sps.binomtest(k, n).proportion_ci(level, "exact")
    got = PR.clopper_pearson(k, n, level)
    assert got == pytest.approx((ref.low, ref.high), abs=1e-10)
    ref_w = sps.binomtest(k, n).proportion_ci(level, "wilson")
    assert PR.wilson(k, n, level) == pytest.approx((ref_w.low, ref_w.high), abs=1e-12)


@pytest.mark.slow
@given(st.integers(0, 400), st.integers(1, 400), st.sampled_from([0.8, 0.95, 0.999]))
@settings(max_examples=60, deadline=None)
def test_clopper_pearson_contains_the_estimate_and_widens_with_level(k, n, level):
    k = min(k, n)
    lo, hi = PR.clopper_pearson(k, n, level)
    assert 0.0 <= lo <= k / n <= hi <= 1.0
    lo2, hi2 = PR.clopper_pearson(k, n, min(0.9999, level + (1 - level) / 2))
    assert lo2 <= lo + 1e-12 and hi2 >= hi - 1e-12


def test_logit_auc_interval_by_hand_and_inside_the_unit_interval():
    auc, var = 0.98, 1e-4
    z = sps.norm.ppf(0.975)
    se = math.sqrt(var) / (auc * (1 - auc))
    lg = math.log(auc / (1 - auc))
    ref = (1 / (1 + math.exp(-(lg - z * se))), 1 / (1 + math.exp(-(lg + z * se))))
    assert PR.logit_auc_interval(auc, var, 0.95) == pytest.approx(ref, rel=1e-12)
    assert 0.9 < PR.logit_auc_interval(0.995, 2.5e-5, 0.95)[1] < 1.0
    assert PR.logit_auc_interval(1.0, 0.0, 0.95) is None


# --- Holm over bootstrap verdicts ------------------------------------------------------------------


def three_models(seed=0, n=600):
    rng = np.random.default_rng(seed)
    y = rng.random(n) < 0.3
    base = y * 0.8 + rng.normal(0, 1, n)
    good = y * 1.6 + rng.normal(0, 1, n)
    same = base + rng.normal(0, 0.3, n)
    return y, [ModelRows("base", "f", base, y), ModelRows("good", "f", good, y), ModelRows("same", "f", same, y)]


def test_holm_is_applied_to_bootstrap_verdicts():
    _y, models = three_models()
    _, comps, _ = compare_rows(models, Settings(primary_metric="accuracy", resamples=400, seed=3), threshold=0.9)
    ds = [c.decision for c in comps]
    assert all(d.method == BOOTSTRAP_NORMAL and d.family_size == 2 and d.adjustment == "holm" for d in ds)
    ref = holm([d.p_value for d in ds])
    for d, r in zip(ds, ref):
        assert d.p_value_adjusted == r
        assert d.significant == (d.p_value_adjusted < 0.05)
        assert d.direction == MP.direction(d.delta, "higher", d.significant)
    # the simultaneous interval is the bootstrap normal interval at 1 − 0.05/2
    assert ds[0].ci_simultaneous_level == pytest.approx(0.975)
    lo, hi = ds[0].ci_simultaneous
    assert lo <= ds[0].ci[0] and hi >= ds[0].ci[1]


def test_a_p_value_of_exactly_alpha_is_not_significant():
    """α is 1 − level as written (0.05 for 0.95), so "significant when p < α" holds at the
    boundary: a bootstrap p of 50/1000 or a Holm-adjusted 2 × 0.025 is exactly 0.05 and was
    read as significant against the float difference 1 − 0.95 = 0.050000000000000044."""
    from reportgen.engine.compare import PrimaryTest, decide

    assert MP.alpha_of(0.95) == 0.05 and MP.alpha_of(0.9) == 0.1 and MP.alpha_of(0.99) == 0.01
    assert MP.simultaneous_level(0.95, 2) == 0.975
    p = 0.05
    one = decide([0.1], [PrimaryTest(p, "bootstrap", [0.0, 0.2], "bootstrap")], "gini", "higher", 0.95)[0]
    assert one.alpha == 0.05 and one.p_value_adjusted == 0.05 and one.significant is False
    assert one.direction == "inconclusive"
    two = decide(
        [0.1, 0.2],
        [
            PrimaryTest(0.025, "bootstrap", [0.0, 0.2], "bootstrap"),
            PrimaryTest(0.5, "bootstrap", [-0.1, 0.3], "bootstrap"),
        ],
        "gini",
        "higher",
        0.95,
    )
    assert two[0].p_value_adjusted == 0.05 and two[0].significant is False
    below = decide([0.1], [PrimaryTest(0.0499, "bootstrap", [0.01, 0.2], "bootstrap")], "gini", "higher", 0.95)[0]
    assert below.significant is True and below.direction == "better"


def test_delong_verdicts_are_one_family_with_simultaneous_intervals():
    _, models = three_models(1)
    _, comps, cells = compare_rows(models, Settings(primary_metric="gini", resamples=0))
    ds = [c.decision for c in comps]
    assert [d.method for d in ds] == ["DeLong (paired)"] * 2
    ps = sorted(d.p_value for d in ds)
    small = min(ds, key=lambda d: d.p_value)
    assert small.p_value_adjusted == pytest.approx(min(1.0, 2 * ps[0]))
    assert comps[0].tests.delong.p_value_holm == ds[0].p_value_adjusted
    z1, z2 = sps.norm.ppf(0.975), sps.norm.ppf(1 - 0.025 / 2)
    d = ds[0]
    width, sim = d.ci[1] - d.ci[0], d.ci_simultaneous[1] - d.ci_simultaneous[0]
    assert sim / width == pytest.approx(z2 / z1, rel=1e-9)
    assert d.direction == "better" and d.significant  # 'good' is far better
    assert "unadjusted 95 % CI" in verdict(comps[0]) and "simultaneous 97.5 % CI" in verdict(comps[0])
    assert "significantly better" in verdict(comps[0])
    # the pairwise family (three pairs) is Holm-adjusted too
    raw = {(c.model, c.baseline): c.p_value for c in cells}
    assert all(c.p_value_holm >= c.p_value for c in cells)
    assert len(set(raw.values())) == 3


def test_a_bootstrap_p_has_no_floor():
    """The percentile p stopped at 1/(B+1) (0.01 at 99 resamples) and was worded as a bound; the
    normal p on the bootstrap standard error goes below it for a clear difference (issue 40)."""
    _y, models = three_models(2)
    _, comps, _ = compare_rows(models[:2], Settings(primary_metric="ks", resamples=99, seed=1))
    d = comps[0].decision
    assert not d.p_value_is_bound and d.p_value < 1 / 100 and d.family_size == 1
    assert "1/(B+1)" not in verdict(comps[0])


def test_decision_round_trips_through_json():
    _, models = three_models(3)
    _, comps, _ = compare_rows(models, Settings(primary_metric="f1", resamples=50))
    c = comps[0]
    assert from_jsonable(Comparison, to_jsonable(c)) == c


# --- McNemar: which side errs more; weights ----------------------------------------------------------


def test_mcnemar_states_which_model_errs_more():
    y, models = three_models(4)
    _, comps, _ = compare_rows(models[:2], Settings(resamples=0), threshold=0.9)
    t = comps[0].tests.mcnemar
    good_right = (models[1].scores >= 0.9) == y
    base_right = (models[0].scores >= 0.9) == y
    b, c = int(np.sum(good_right & ~base_right)), int(np.sum(~good_right & base_right))
    assert (t.model_only_right, t.baseline_only_right) == (b, c)
    assert t.errs_more == ("model" if c > b else "baseline" if b > c else "neither")
    assert t.p_value == mcnemar(good_right, base_right).p_value
    assert f"good alone is right on {b:,}" in mcnemar_sentence("good", "base", t)


def german_credit_like(seed=5):
    """400 rows, 120 bads and 280 goods; goods weighted 3 (1-in-3 sampling of goods)."""
    rng = np.random.default_rng(seed)
    y = np.zeros(400, dtype=bool)
    y[:120] = True
    rng.shuffle(y)
    a = y * 0.9 + rng.normal(0, 1, 400)
    b = y * 1.0 + rng.normal(0, 1, 400)
    w = np.where(y, 1.0, 3.0)
    return y, a, b, w


def test_german_credit_like_sampling_weights_give_mcnemar_on_the_rows():
    y, a, b, w = german_credit_like()
    _, comps, _ = compare_rows(
        [ModelRows("champion", "f", a, y, w), ModelRows("challenger", "f", b, y, w)],
        Settings(resamples=0),
        threshold=0.5,
    )
    t = comps[0].tests.mcnemar
    assert t.basis == "rows"
    assert sum(map(sum, t.table)) == 400
    assert sum(map(sum, t.weighted_table)) == 960
    ref = mcnemar((b >= 0.5) == y, (a >= 0.5) == y)
    assert t.p_value == ref.p_value


def test_frequency_weights_equal_repeated_rows():
    y, a, b, w = german_credit_like(6)
    w = np.random.default_rng(1).integers(0, 4, 400).astype(float)
    k = w.astype(int)
    s = Settings(resamples=200, seed=9, primary_metric="f1", weight_kind="frequency")
    fw = compare_rows([ModelRows("m1", "f", a, y, w), ModelRows("m2", "f", b, y, w)], s, threshold=0.5)
    rep = compare_rows(
        [
            ModelRows("m1", "f", np.repeat(a, k), np.repeat(y, k)),
            ModelRows("m2", "f", np.repeat(b, k), np.repeat(y, k)),
        ],
        Settings(resamples=200, seed=9, primary_metric="f1"),
        threshold=0.5,
    )
    (mf, cf, pf), (mr, cr, pr) = fw, rep
    for name in ("m1", "m2"):
        assert mf[name].metrics == mr[name].metrics
        assert mf[name].ci == mr[name].ci  # identical evidence: identical draws
        assert mf[name].n == int(k.sum())
    # the paired pass weighs each row's DeLong terms by its weight: the repeated rows' sums in
    # another order, equal to the last bits
    _assert_same(_plain(cf[0].tests.delong), _plain(cr[0].tests.delong), "delong")
    assert cf[0].tests.mcnemar == cr[0].tests.mcnemar
    _assert_same(_plain(cf[0].decision), _plain(cr[0].decision), "decision")
    assert pf == pr


def test_frequency_weights_must_be_whole_numbers():
    y, a, _b, w = german_credit_like(7)
    w = w * 0.5
    from reportgen.errors import InputError

    with pytest.raises(
        InputError,
        match=r"f.csv: column 'w0', row 2: weight 1.5 is not a whole number; weight_kind: "
        r"frequency needs whole-number weights",
    ):
        compare_rows([ModelRows("m1", "f.csv", a, y, w)], Settings(resamples=0, weight_kind="frequency"))


def test_sampling_weighted_run_shows_row_counts_beside_weighted_ones():
    y, a, b, w = german_credit_like(8)
    models, _comps, _ = compare_rows(
        [ModelRows("champion", "f", a, y, w), ModelRows("challenger", "f", b, y, w)],
        Settings(resamples=30, seed=1),
        threshold=0.5,
    )
    m = models["champion"]
    assert (m.positives, m.negatives) == (120, 840)
    assert (m.positives_rows, m.negatives_rows) == (120, 280)
    assert m.confusion_rows.total == 400 and m.confusion.total == 960


# --- boundary intervals and zero width ---------------------------------------------------------------


def test_no_false_positives_give_exact_intervals_not_zero_width():
    rng = np.random.default_rng(2)
    y = np.zeros(200, dtype=bool)
    y[:57] = True
    s = np.where(y, rng.uniform(0.6, 1.0, 200), rng.uniform(0.0, 0.9, 200))
    models, _, _ = compare_rows([ModelRows("m", "f", s, y)], Settings(resamples=200, seed=1), threshold=0.95)
    m = models["m"]
    assert m.confusion.fp == 0 and m.confusion.tn == 143
    assert m.ci["fpr"] == pytest.approx([0.0, sps.beta.ppf(0.975, 1, 143)])
    assert m.ci_method["fpr"] == PR.CLOPPER_PEARSON
    tp = m.confusion.tp
    assert m.ci["precision"] == pytest.approx([0.025 ** (1 / tp), 1.0])
    assert m.ci["specificity"] == pytest.approx([1 - sps.beta.ppf(0.975, 1, 143), 1.0])
    assert not any(iv[0] == iv[1] for iv in m.ci.values())


def test_auc_near_one_gets_the_logit_interval_and_perfect_separation_warns():
    rng = np.random.default_rng(3)
    y = rng.random(300) < 0.3
    s = y * 4.0 + rng.normal(0, 1, 300)
    models, _, _ = compare_rows([ModelRows("m", "f", s, y)], Settings(resamples=0))
    m = models["m"]
    assert m.ci_method["roc_auc"] == PR.DELONG_LOGIT and m.ci["roc_auc"][1] < 1.0
    assert m.ci["gini"] == pytest.approx([2 * v - 1 for v in m.ci["roc_auc"]])
    perfect, _, _ = compare_rows([ModelRows("p", "f", y * 2.0 + rng.uniform(0, 1, 300), y)], Settings(resamples=50))
    assert any("zero width" in w for w in model_warnings(perfect["p"]))


def test_notes_state_the_policy_and_the_weights():
    y, a, b, w = german_credit_like(9)
    from reportgen.results import ComparisonResult, RunInfo

    models, comps, cells = compare_rows(
        [ModelRows("champion", "f", a, y, w), ModelRows("c1", "f", b, y, w), ModelRows("c2", "f", a + b, y, w)],
        Settings(resamples=40, seed=2),
        threshold=0.5,
    )
    run = RunInfo(
        "t",
        "binary",
        "2026-01-01T00:00:00Z",
        "x",
        "0",
        {},
        {},
        "c.yaml",
        [],
        [],
        [],
        True,
        "champion",
        "gini",
        0.5,
        1.0,
        {},
        0.95,
        40,
        2,
        0.0,
    )
    result = ComparisonResult(run, models, comps, cells)
    notes = " ".join(comparison_notes(comps[0], result))
    assert "sampling weights" in notes and "McNemar on the rows" in notes
    assert "Holm" in notes and "bootstrap" in notes and "2 verdicts" in notes


# --- at equal approval rate --------------------------------------------------------------------------


def direct_approval(score, direction, y, w, rate):
    """Oracle without table codes: approve the safest rows, whole tied groups, share closest to rate."""
    risk = score if direction == "higher" else -score
    u = np.unique(risk)
    shares = [0.0] + [w[risk <= t].sum() / w.sum() for t in u]  # approve none, then the safest first
    dist = np.abs(np.array(shares) - rate)
    best = max(i for i in range(len(shares)) if dist[i] == dist.min())  # ties: approve more
    return risk <= u[best - 1] if best > 0 else np.zeros_like(y)


@pytest.mark.parametrize("weighted", [False, True])
def test_equal_approval_matches_a_direct_calculation(weighted):
    rng = np.random.default_rng(11)
    n = 900
    y = rng.random(n) < 0.2
    champion = np.round(600 - 60 * y - rng.normal(0, 40, n))  # scorecard points: lower = riskier
    challenger = np.round(y * 1.2 + rng.normal(0, 1, n), 2)  # a PD-like score, ties from rounding
    w = rng.integers(1, 4, n).astype(float) if weighted else None
    ww = np.ones(n) if w is None else w
    s = Settings(resamples=150, seed=4, approval_rates=(0.5,))
    _, comps, _ = compare_rows(
        [
            ModelRows("champion", "f", champion, y, w, "lower", threshold=560),
            ModelRows("challenger", "f", challenger, y, w, threshold=0.8),
        ],
        s,
        threshold=0.5,
    )
    got = comps[0].approval
    base_rate = ww[champion > 560].sum() / ww.sum()
    assert [a.source for a in got] == ["baseline", "config"]
    assert got[0].target_rate == pytest.approx(base_rate) and got[1].target_rate == 0.5
    for a in got:
        am = direct_approval(challenger, "higher", y, ww, a.target_rate)
        ab = direct_approval(champion, "lower", y, ww, a.target_rate)
        if a.source == "baseline":
            assert np.array_equal(ab, champion > 560)  # the baseline's own rule
        br = lambda m: (ww * (m & y)).sum() / ww[m].sum()  # noqa: E731
        assert a.model.bad_rate == pytest.approx(br(am), rel=1e-12)
        assert a.baseline.bad_rate == pytest.approx(br(ab), rel=1e-12)
        assert a.bad_rate_delta == pytest.approx(br(am) - br(ab), rel=1e-12)
        assert a.model.approval_rate == pytest.approx(ww[am].sum() / ww.sum())
        for cell, mask in (
            (a.swap_in, am & ~ab),
            (a.swap_out, ~am & ab),
            (a.stay_approved, am & ab),
            (a.stay_declined, ~am & ~ab),
        ):
            assert (cell.rows, cell.bads_rows) == (mask.sum(), (mask & y).sum())
            assert cell.weight == pytest.approx(ww[mask].sum())
        assert a.model.threshold == challenger[am].max()
    # the interval: drawn on the pattern counts (unweighted) or the joint weight cells (weighted),
    # the row bootstrap's distribution either way (tests/properties/test_weight_cells.py)
    assert all(a.ci_method == AP.APPROVAL_COUNT_BOOTSTRAP and a.ci[0] < a.bad_rate_delta < a.ci[1] for a in got)


def test_approval_count_bootstrap_moments():
    """The bootstrap on the (swap cell, class) counts has the row bootstrap's distribution: its
    first two moments agree with the row bootstrap's (independent draws, Monte-Carlo tolerance)."""
    rng = np.random.default_rng(5)
    n = 60
    y = rng.random(n) < 0.3
    am, ab = rng.random(n) < 0.6, rng.random(n) < 0.55
    cell = 2 * am.astype(np.int64) + ab.astype(np.int64)
    cells = np.zeros((4, 2))
    np.add.at(cells, (cell, y.astype(np.int64)), 1.0)
    B = 40000
    by_counts = AP.count_bootstrap_delta(cells, B, np.random.default_rng(1))
    by_rows = AP.bootstrap_delta(y, np.ones(n), cell, B, np.random.default_rng(2))
    a, r = by_counts[np.isfinite(by_counts)], by_rows[np.isfinite(by_rows)]
    se = np.sqrt(a.var() / a.size + r.var() / r.size)
    assert abs(a.mean() - r.mean()) < 4 * se
    # variance of a sample variance ≈ (m4 − σ⁴)/B: compare within 4 of its standard errors
    m4 = np.mean((r - r.mean()) ** 4)
    assert abs(a.var() - r.var()) < 4 * np.sqrt(2 * (m4 - r.var() ** 2) / r.size)
    assert a.size == r.size == B  # both models approve some rows on every resample here


def test_approval_counts_do_not_depend_on_chunks_or_engine_path():
    """The pattern counts merged from parts equal the counts of all rows at once, and the driver's
    numbers from them equal the row-by-row calculation (the memory engine's weighted path)."""
    rng = np.random.default_rng(8)
    n = 500
    y = rng.random(n) < 0.25
    s1, s2 = np.round(y + rng.normal(0, 1, n), 1), np.round(y + rng.normal(0, 0.8, n), 1)
    from reportgen.engine.curve import build_table, row_groups

    tables = [build_table(s1, y, None, "higher"), build_table(s2, y, None, "higher")]
    codes = [np.asarray(row_groups(t, sc), dtype=np.int64) for t, sc in zip(tables, (s1, s2))]
    whole = AP.ApprovalCounter(tables, [0.5, 0.7], (0.3, 0.8))
    whole.add(codes, y)
    parts = [AP.ApprovalCounter(tables, [0.5, 0.7], (0.3, 0.8)) for _ in range(3)]
    for p, sl in zip(parts, (slice(0, 101), slice(101, 377), slice(377, n))):
        p.add([c[sl] for c in codes], y[sl])
    parts[2].merge(parts[0])
    parts[2].merge(parts[1])
    assert np.array_equal(parts[2].counts, whole.counts)
    counts = whole.finish()
    for t, rate in enumerate(counts.targets):
        via_counts = AP.compare_from_counts(
            rate, "config", counts, t, ["a", "b"], [x.thresholds for x in tables], 1, 0.95, 0, np.random.default_rng(0)
        )
        via_rows = AP.compare_at_rate(
            rate,
            "config",
            y,
            None,
            ["a", "b"],
            codes,
            [x.thresholds for x in tables],
            1,
            0.95,
            0,
            np.random.default_rng(0),
        )
        assert via_counts == via_rows


def test_equal_approval_says_when_a_rate_was_not_counted():
    """Evidence counted without a configured rate cannot give it: capability ``not_counted``, worded."""
    from reportgen.engine.driver import compare_evidence
    from reportgen.reduce.rows import evidence_of_rows
    from reportgen.report.wording import capability_note

    _y, models = three_models(6)
    ev = evidence_of_rows(models[:2])  # no approval_rates given to the paired pass
    _, comps, _ = compare_evidence(ev, Settings(resamples=0, approval_rates=(0.5,)))
    assert comps[0].approval == () and comps[0].capabilities["approval"] == "not_counted"
    assert "approval patterns were not counted" in capability_note("approval", "not_counted")
    _, comps, _ = compare_evidence(ev, Settings(resamples=0))  # the baseline's own rate is always counted
    assert [a.source for a in comps[0].approval] == ["baseline"] and "approval" not in comps[0].capabilities


def test_equal_approval_needs_aligned_rows():
    _y, models = three_models(5)
    _, comps, _ = compare_rows(models[:2], Settings(resamples=0), aligned=False)
    assert comps[0].approval == () and comps[0].capabilities["approval"] == "separate_files"


# --- weight_kind from the config, every engine ---------------------------------------------------------


def _write_config(d, file, extra=""):
    cfg = d / f"c_{file.replace('.', '_')}_{abs(hash(extra))}.yaml"
    cfg.write_text(
        "title: t\nlabel: y\nthreshold: 0.5\nbootstrap: {resamples: 60, seed: 7}\n"
        + extra
        + f"models:\n  - {{name: a, file: {file}, score: a}}\n  - {{name: b, file: {file}, score: b}}\n"
    )
    return cfg


def _analyse(cfg_path, engine="memory"):
    from reportgen.config import load_config
    from reportgen.pipeline import analyse

    cfg, p = load_config(cfg_path)
    cfg = cfg.with_overrides(engine=engine, stream={"batch_rows": 1000})
    return analyse(cfg, p, now="2026-01-01T00:00:00Z").to_json()


@pytest.mark.parametrize("engine", ["memory", "stream"])
@pytest.mark.parametrize("task", ["binary", "multiclass"])
def test_frequency_weights_in_the_config_equal_repeated_rows(tmp_path, engine, task):
    import pandas as pd

    rng = np.random.default_rng(12)
    n = 300
    if task == "binary":
        y = (rng.random(n) < 0.3).astype(int)
        df = pd.DataFrame(
            {"y": y, "a": np.round(y * 0.8 + rng.normal(0, 1, n), 2), "b": np.round(y * 1.2 + rng.normal(0, 1, n), 2)}
        )
        models = "models:\n  - {name: a, file: F, score: a}\n  - {name: b, file: F, score: b}\n"
    else:
        y = rng.integers(0, 3, n)
        df = pd.DataFrame(
            {
                "y": y,
                "p": np.where(rng.random(n) < 0.7, y, rng.integers(0, 3, n)),
                "q": np.where(rng.random(n) < 0.5, y, rng.integers(0, 3, n)),
            }
        )
        models = "models:\n  - {name: a, file: F, prediction: p}\n  - {name: b, file: F, prediction: q}\n"
    df["w"] = rng.integers(0, 4, n)
    df.to_csv(tmp_path / "w.csv", index=False)
    df.loc[df.index.repeat(df["w"])].drop(columns="w").to_csv(tmp_path / "rep.csv", index=False)
    head = "title: t\nlabel: y\nbootstrap: {resamples: 60, seed: 7}\n" + (
        "task: multiclass\nclasses: [0, 1, 2]\n" if task == "multiclass" else ""
    )
    (tmp_path / "w.yaml").write_text(head + "weight: w\nweight_kind: frequency\n" + models.replace("F", "w.csv"))
    (tmp_path / "rep.yaml").write_text(head + models.replace("F", "rep.csv"))
    fw, rep = _analyse(tmp_path / "w.yaml", engine), _analyse(tmp_path / "rep.yaml", engine)
    assert fw["run"]["weight_kind"] == "frequency"
    for name in ("a", "b"):
        for key in ("metrics", "ci", "ci_method", "confusion", "n"):
            assert fw["models"][name][key] == rep["models"][name][key], (name, key)
    for key in ("delta", "ci", "tests", "decision", "approval"):
        # the paired pass (every engine's) weighs each row's DeLong terms by its weight: the sums of
        # the repeated rows in another order, so DeLong's numbers agree to the last bits
        _assert_same(fw["comparisons"][0][key], rep["comparisons"][0][key], key)


def _plain(x) -> dict:
    """A frozen result as JSON values (tuples as lists)."""
    import json

    return json.loads(json.dumps(dataclasses.asdict(x)))


def _assert_same(a, b, path: str) -> None:
    """``a == b``, floats exactly except DeLong's (and what derives from it: the AUC and Gini intervals,
    the decision's p-values) to a relative 1e-12."""
    import math

    if isinstance(a, dict):
        assert isinstance(b, dict) and a.keys() == b.keys(), path
        for k in a:
            _assert_same(a[k], b[k], f"{path}.{k}")
    elif isinstance(a, list):
        assert isinstance(b, list) and len(a) == len(b), path
        for i, (x, y) in enumerate(zip(a, b)):
            _assert_same(x, y, f"{path}[{i}]")
    elif (
        isinstance(a, float)
        and isinstance(b, float)
        and any(k in path for k in ("roc_auc", "gini", "delong", "decision"))
    ):
        assert math.isclose(a, b, rel_tol=1e-12, abs_tol=1e-15), (path, a, b)
    else:
        assert type(a) is type(b) and a == b, (path, a, b)


def test_frequency_weights_that_are_not_whole_numbers_are_a_one_line_error(tmp_path):
    import pandas as pd

    pd.DataFrame({"y": [0, 1, 0, 1], "a": [0.1, 0.9, 0.2, 0.8], "w": [1, 2.5, 1, 1]}).to_csv(
        tmp_path / "f.csv", index=False
    )
    (tmp_path / "c.yaml").write_text(
        "label: y\nweight: w\nweight_kind: frequency\nbootstrap: {resamples: 0}\n"
        "models:\n  - {name: a, file: f.csv, score: a}\n"
    )
    from reportgen.errors import InputError

    with pytest.raises(
        InputError,
        match=r"f.csv: column 'w', row 3: weight 2.5 is not a whole number; "
        r"weight_kind: frequency needs whole-number weights",
    ):
        _analyse(tmp_path / "c.yaml")


# --- the interval footnote is stated from ci_method ---------------------------------------------------


def _result(models, comps, cells, resamples):
    from reportgen.results import ComparisonResult, RunInfo

    run = RunInfo(
        "t",
        "binary",
        "2026-01-01T00:00:00Z",
        "x",
        "0",
        {},
        {},
        "c.yaml",
        [],
        [],
        [],
        True,
        next(iter(models)),
        "gini",
        0.5,
        1.0,
        {},
        0.95,
        resamples,
        2,
        0.0,
    )
    return ComparisonResult(run, models, comps, cells)


@pytest.mark.parametrize(
    "weighted,resamples,expected",
    [
        (False, 40, "DeLong for AUC and Gini, B for the rest"),
        (False, 0, "DeLong for AUC and Gini"),
        (True, 40, "B for every metric"),
        (True, 0, None),
    ],
)
def test_interval_footnote_follows_the_data(weighted, resamples, expected):
    from reportgen.report.wording import interval_methods

    y, a, b, w = german_credit_like(10)
    models, comps, cells = compare_rows(
        [ModelRows("m1", "f", a, y, w if weighted else None), ModelRows("m2", "f", b, y, w if weighted else None)],
        Settings(resamples=resamples, seed=1),
    )
    got = interval_methods(_result(models, comps, cells, resamples), "B")
    assert got == expected or (expected and got.startswith(expected + ", exact Clopper"))


def test_settings_note_says_bootstrap_when_weighted_and_nothing_with_resamples_0():
    from reportgen.report.render import build_view
    from reportgen.report.theme import Theme

    y, a, b, w = german_credit_like(11)
    for resamples, want, unwanted in ((40, "bootstrap", "DeLong"), (0, "no intervals (resamples: 0)", "DeLong")):
        models, comps, cells = compare_rows(
            [ModelRows("m1", "f", a, y, w), ModelRows("m2", "f", b, y, w)], Settings(resamples=resamples, seed=1)
        )
        note = build_view(_result(models, comps, cells, resamples), Theme(sections=("summary",))).summary.settings_note
        assert want in note and unwanted not in note, note


@pytest.mark.slow
def test_holm_is_applied_to_multiclass_bootstrap_verdicts(tmp_path):
    import pandas as pd

    rng = np.random.default_rng(13)
    n = 400
    y = rng.integers(0, 3, n)
    df = pd.DataFrame(
        {
            "y": y,
            **{
                f"p{i}": np.where(rng.random(n) < q, y, rng.integers(0, 3, n))
                for i, q in enumerate((0.6, 0.75, 0.55, 0.62))
            },
        }
    )
    df.to_csv(tmp_path / "mc.csv", index=False)
    models = "".join(f"  - {{name: m{i}, file: mc.csv, prediction: p{i}}}\n" for i in range(4))
    (tmp_path / "mc.yaml").write_text(
        "label: y\ntask: multiclass\nclasses: [0, 1, 2]\nbootstrap: {resamples: 200, seed: 5}\nmodels:\n" + models
    )
    doc = _analyse(tmp_path / "mc.yaml")
    ds = [c["decision"] for c in doc["comparisons"]]
    assert [d["family_size"] for d in ds] == [3, 3, 3] and {d["method"] for d in ds} == {BOOTSTRAP_NORMAL}
    ref = holm([d["p_value"] for d in ds])
    assert [d["p_value_adjusted"] for d in ds] == ref
    assert [d["significant"] for d in ds] == [r < 0.05 for r in ref]
    # m2 is the weakest: the smallest p, multiplied by the family's size (0.016 × 3 = 0.049: worse after Holm)
    assert ds[1]["delta"] < 0 and ds[1]["p_value"] == min(d["p_value"] for d in ds)
    assert ds[1]["p_value_adjusted"] == pytest.approx(3 * ds[1]["p_value"], rel=1e-12)
    assert ds[1]["significant"] and ds[1]["direction"] == "worse"
    mc = [c["tests"]["mcnemar"] for c in doc["comparisons"]]
    assert all(t["p_value_holm"] >= t["p_value"] for t in mc)


def test_zero_width_difference_intervals_are_noted():
    y, models = three_models(6)
    twin = ModelRows("twin", "f", 3.0 * models[0].scores + 1.0, y, threshold=3.0 * 0.5 + 1.0)
    _, comps, _ = compare_rows([models[0], twin], Settings(resamples=50, seed=2), threshold=0.5)
    notes = " ".join(caveats_of(comps[0]))
    assert "has zero width" in notes and "accuracy" in notes


def test_past_the_pattern_cap_threshold_differences_say_not_counted_not_weighted():
    """Regression: with more models than decision patterns are counted for, unweighted aligned
    models said their threshold differences were missing because they were *weighted*; the
    capability is ``not_counted`` and its note names the cap. Below the cap they are drawn."""
    from reportgen.engine.driver import compare_evidence
    from reportgen.engine.intervals import MAX_PATTERN_MODELS
    from reportgen.reduce.rows import evidence_of_rows
    from reportgen.report.wording import capability_note

    rng = np.random.default_rng(8)
    y = rng.random(300) < 0.3
    models = [
        ModelRows(f"m{j}", "f", y * (0.5 + j / 10) + rng.normal(0, 1, 300), y) for j in range(MAX_PATTERN_MODELS + 1)
    ]
    for k, drawn in ((MAX_PATTERN_MODELS, True), (MAX_PATTERN_MODELS + 1, False)):
        _, comps, _ = compare_evidence(evidence_of_rows(models[:k]), Settings(resamples=20, seed=1))
        caps = comps[0].capabilities
        assert ("f1" in comps[0].ci) == drawn, k
        assert caps.get("paired_interval.threshold_metrics") == (None if drawn else "not_counted"), k
    note = capability_note("paired_interval.threshold_metrics", "not_counted")
    assert f"more than {MAX_PATTERN_MODELS} models" in note and "weight" not in note
