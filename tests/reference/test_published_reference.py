"""Verified cases: the run's statistics (McNemar's four p-values, Holm, exact and score intervals,
DeLong through the whole comparison with ``direction: lower`` and frequency weights) against
published values and independent tools (statsmodels, scipy).

Published values:

* Fagerland, Lydersen & Laake (2013), "The McNemar test for binary matched-pairs data: mid-p and
  asymptotic are better than exact conditional", *BMC Medical Research Methodology* 13:91,
  worked example (Bentur et al. 2009, airway hyper-responsiveness before and after stem cell
  transplantation; discordant counts 1 and 7 of 21 children): exact conditional p = 0.070,
  mid-p = 0.039, asymptotic McNemar p = 0.034; the continuity-corrected chi-square
  (|1 − 7| − 1)² / 8 = 3.125 gives 0.077.
* R's pROC on its ``aSAH`` data (``tests/data/asah.csv``, provenance in
  ``tests/reference/test_stats_reference.py``): ``tests/testthat/test-roc.test.R`` (paired
  roc.test of wfns and s100b: Z = 2.20898359144091, p = 0.0271757822291882, CI of ΔAUC
  0.0104061769564846 .. 0.174214419249478), ``test-var.R`` (var of the s100b AUC
  0.00266868245717244) and the printed example "Area under the curve: 0.7314, 95% CI:
  0.6301-0.8326 (DeLong)".
"""

from __future__ import annotations

import math
from pathlib import Path

import numpy as np
import pandas as pd
import pytest
from oracles import holm_adjusted
from scipy import stats as sps
from statsmodels.stats.contingency_tables import mcnemar as sm_mcnemar
from statsmodels.stats.proportion import proportion_confint

import reportgen
from reportgen.engine.proportions import clopper_pearson, wilson
from reportgen.engine.stats import holm, mcnemar, mcnemar_p_values

ASAH = Path(__file__).resolve().parents[1] / "data" / "asah.csv"
NOW = "2026-01-01T00:00:00Z"


# --- McNemar ---------------------------------------------------------------------------------------


def test_mcnemar_four_p_values_reproduce_fagerland_2013_example():
    # verified case: Fagerland et al. (2013), worked example: n12 = 1, n21 = 7
    exact, mid, chi2, chi2_cc = mcnemar_p_values(1, 7)
    assert round(exact, 3) == 0.070 and exact == 18 / 256  # 2 · (1 + 8) / 2^8
    assert round(mid, 3) == 0.039 and mid == 10 / 256  # 2 · (1 + 8/2) / 2^8
    assert round(chi2, 3) == 0.034
    assert round(chi2_cc, 3) == 0.077
    assert mcnemar_p_values(7, 1) == (exact, mid, chi2, chi2_cc)  # symmetric in b and c


def _rows(n11: int, b: int, c: int, n22: int) -> tuple[np.ndarray, np.ndarray]:
    a = np.repeat([True, True, False, False], [n11, b, c, n22])
    bb = np.repeat([True, False, True, False], [n11, b, c, n22])
    return a, bb


@pytest.mark.parametrize("b", [0, 1, 2, 5, 9, 12, 24, 40, 130])
@pytest.mark.parametrize("c", [0, 1, 3, 12, 13, 30, 200])
def test_mcnemar_p_values_match_statsmodels(b, c):
    r = mcnemar(*_rows(6, b, c, 4))
    table = np.array(r.table)
    if b + c == 0:
        assert (r.p_exact, r.p_mid, r.p_chi2, r.p_chi2_corrected, r.p_value) == (1.0, 1.0, 1.0, 1.0, 1.0)
        return
    assert r.p_exact == pytest.approx(sm_mcnemar(table, exact=True).pvalue, rel=1e-12)
    assert r.p_chi2 == pytest.approx(sm_mcnemar(table, exact=False, correction=False).pvalue, rel=1e-12)
    assert r.p_chi2_corrected == pytest.approx(sm_mcnemar(table, exact=False, correction=True).pvalue, rel=1e-12)
    # mid-p from scipy's binomial distribution (Fagerland et al. 2013)
    k, n = min(b, c), b + c
    mid = 1 - sps.binom.pmf(k, n, 0.5) / 2 if b == c else 2 * sps.binom.cdf(k, n, 0.5) - sps.binom.pmf(k, n, 0.5)
    assert r.p_mid == pytest.approx(mid, rel=1e-12)
    # the stated method is the one whose p-value the verdicts use
    chosen = r.p_exact if r.method == "exact binomial" else r.p_chi2_corrected
    assert r.method == ("exact binomial" if n < 25 else "chi-square (continuity-corrected)")
    assert r.p_value == chosen
    assert r.p_mid <= r.p_exact  # mid-p is never more conservative than the exact test


@pytest.mark.parametrize(
    "b,c",
    [(480, 520), (500, 501), (700, 800), (2500, 2499), (2900, 3100), (9000, 11000), (20000, 20100), (49000, 51000)],
)
def test_mcnemar_exact_and_mid_p_past_the_integer_cut_match_scipy(b, c):
    """Past 1,000 discordant rows the binomial tail is the incomplete beta function, not a sum."""
    exact, mid, _, _ = mcnemar_p_values(b, c)
    n, k = b + c, min(b, c)
    assert exact == pytest.approx(min(1.0, 2 * sps.binom.cdf(k, n, 0.5)), rel=1e-9)
    assert mid == pytest.approx(2 * sps.binom.cdf(k, n, 0.5) - sps.binom.pmf(k, n, 0.5), rel=1e-9)


def test_mcnemar_variants_reach_metrics_json():
    """Every McNemar summary carries the four p-values; its ``p_value`` is the stated method's."""
    rng = np.random.default_rng(4)
    y = rng.random(300) < 0.3
    df = pd.DataFrame(
        {
            "y": y.astype(int),
            "a": np.round(0.3 + 0.3 * y + rng.normal(0, 0.2, 300), 2),
            "b": np.round(0.3 + 0.2 * y + rng.normal(0, 0.2, 300), 2),
        }
    )
    out = reportgen.compare_frames(
        df,
        label="y",
        positive=1,
        scores=["a", "b"],
        threshold=0.45,
        baseline="b",
        bootstrap={"resamples": 0, "seed": 1},
        now=NOW,
    ).to_json()
    mc = out["comparisons"][0]["tests"]["mcnemar"]
    (_, b), (c, _) = mc["table"]
    ref = sm_mcnemar(np.array(mc["table"]), exact=True).pvalue
    assert mc["p_value_exact"] == pytest.approx(ref, rel=1e-12)
    assert (
        mc["p_value_exact"],
        mc["p_value_mid_p"],
        mc["p_value_chi2"],
        mc["p_value_chi2_corrected"],
    ) == pytest.approx(mcnemar_p_values(int(b), int(c)), rel=1e-15)
    chosen = mc["p_value_exact"] if mc["method"] == "exact binomial" else mc["p_value_chi2_corrected"]
    assert mc["p_value"] == chosen


# --- Holm, exact and score intervals ----------------------------------------------------------------


@pytest.mark.parametrize(
    "ps",
    [
        [0.01, 0.04, 0.03, 0.005],
        [0.02, 0.02, 0.02],  # ties
        [0.5, 0.6, 1.0],  # the cap at 1
        [0.0, 1.0, 0.04, 0.04, 0.001],
        [0.011, 0.012, 0.013, 0.5, 0.9, 1.0, 0.049],
    ],
)
def test_holm_matches_statsmodels(ps):
    assert holm(ps) == pytest.approx(list(holm_adjusted(ps)), rel=1e-15, abs=0)


@pytest.mark.parametrize("n", [1, 7, 143, 1000])
@pytest.mark.parametrize("level", [0.9, 0.95, 0.99])
def test_clopper_pearson_and_wilson_match_statsmodels(n, level):
    for k in sorted({0, 1, n // 3, n - 1, n}):
        assert clopper_pearson(k, n, level) == pytest.approx(
            proportion_confint(k, n, 1 - level, "beta"), rel=1e-9, abs=1e-14
        )
        assert wilson(k, n, level) == pytest.approx(proportion_confint(k, n, 1 - level, "wilson"), rel=1e-9, abs=1e-14)


# --- DeLong through a whole comparison: direction lower, frequency weights ---------------------------


@pytest.fixture(scope="module")
def asah() -> pd.DataFrame:
    df = pd.read_csv(ASAH)
    df["poor"] = (df["outcome"] == "Poor").astype(int)
    return df


def _check_proc(out: dict, wfns: str, s100b: str) -> None:
    # verified case: pROC test-var.R (s100b) and its printed example "0.7314, 95% CI: 0.6301-0.8326"
    m = out["models"][s100b]
    se = math.sqrt(0.00266868245717244)
    z = sps.norm.ppf(0.975)
    assert m["metrics"]["roc_auc"] == pytest.approx(0.7313685636856369, rel=1e-12)
    assert m["ci"]["roc_auc"] == pytest.approx([0.7313685636856369 - z * se, 0.7313685636856369 + z * se], rel=1e-10)
    assert [round(v, 4) for v in m["ci"]["roc_auc"]] == [0.6301, 0.8326]
    assert m["ci_method"]["roc_auc"] == "DeLong"
    assert m["ci"]["gini"] == pytest.approx([2 * v - 1 for v in m["ci"]["roc_auc"]], rel=1e-12)
    # verified case: pROC test-roc.test.R, paired roc.test(r.wfns, r.s100b)
    d = out["comparisons"][0]["tests"]["delong"]
    assert (out["comparisons"][0]["model"], out["comparisons"][0]["baseline"]) == (wfns, s100b)
    assert d["z"] == pytest.approx(2.20898359144091, rel=1e-10)
    assert d["p_value"] == pytest.approx(0.0271757822291882, rel=1e-10)
    assert d["ci"] == pytest.approx([0.0104061769564846, 0.174214419249478], rel=1e-10)
    assert out["comparisons"][0]["ci"]["gini"] == pytest.approx([2 * v for v in d["ci"]], rel=1e-12)


def test_asah_through_the_comparison_with_lower_is_riskier_scores(asah):
    """pROC's numbers when both markers are given as 'lower = more positive' (negated scores)."""
    df = pd.DataFrame({"poor": asah["poor"], "neg_wfns": -asah["wfns"], "neg_s100b": -asah["s100b"]})
    out = reportgen.compare_frames(
        df,
        label="poor",
        positive=1,
        baseline="neg_s100b",
        bootstrap={"resamples": 0, "seed": 1},
        now=NOW,
        scores={
            "neg_wfns": {"score": "neg_wfns", "direction": "lower", "threshold": -3},
            "neg_s100b": {"score": "neg_s100b", "direction": "lower", "threshold": -0.2},
        },
    ).to_json()
    _check_proc(out, "neg_wfns", "neg_s100b")


def test_asah_through_the_comparison_with_frequency_weights(asah):
    """The 113 patients compressed to their distinct (outcome, wfns, s100b) rows with a count:
    frequency weights give pROC's numbers of the repeated rows, DeLong included."""
    grouped = asah.groupby(["poor", "wfns", "s100b"], as_index=False).size()
    assert len(grouped) < len(asah) and grouped["size"].sum() == 113 and grouped["size"].max() > 1
    out = reportgen.compare_frames(
        grouped,
        label="poor",
        positive=1,
        weight="size",
        weight_kind="frequency",
        baseline="s100b",
        bootstrap={"resamples": 0, "seed": 1},
        now=NOW,
        scores={"wfns": {"score": "wfns", "threshold": 3}, "s100b": {"score": "s100b", "threshold": 0.2}},
    ).to_json()
    _check_proc(out, "wfns", "s100b")


# --- the conventions metrics.json states hold ----------------------------------------------------------


def test_stated_conventions_hold_against_scipy_and_scikit_learn():
    """``run.conventions`` names each convention and the tool it agrees with; check each on one run
    with heavy ties, probabilities of exactly 0 and 1, a constant score and an inverted score."""
    from sklearn import metrics as skm

    rng = np.random.default_rng(12)
    n = 240
    y = rng.random(n) < 0.3
    p = np.clip(np.round(0.3 + 0.35 * y + rng.normal(0, 0.2, n), 1), 0.0, 1.0)  # ties, 0s and 1s
    p[np.flatnonzero(y)[0]] = 0.0  # a positive at probability 0: the log-loss clip
    df = pd.DataFrame({"y": y.astype(int), "p": p, "flat": np.full(n, 0.4), "inv": 1.0 - p})
    out = reportgen.compare_frames(
        df,
        label="y",
        positive=1,
        threshold=0.5,
        baseline="p",
        bootstrap={"resamples": 0, "seed": 1},
        now=NOW,
        scores=["p", "flat", "inv"],
    ).to_json()
    conv = out["run"]["conventions"]
    assert set(conv) >= {
        "roc_auc",
        "ks",
        "average_precision",
        "log_loss",
        "mcc",
        "optimal_threshold_ties",
        "delong_interval",
        "delong_test",
        "mcnemar",
        "bootstrap_interval",
        "bootstrap_p",
        "multiplicity",
    }
    m = {k: out["models"][k]["metrics"] for k in ("p", "flat", "inv")}
    # roc_auc: Mann-Whitney with ties as 1/2 = scikit-learn
    assert m["p"]["roc_auc"] == pytest.approx(skm.roc_auc_score(y, p), rel=1e-12)
    assert m["flat"]["roc_auc"] == 0.5
    # ks: one-sided in the declared direction (scipy 'greater'); two-sided D only for the inverted score
    assert "alternative='greater'" in conv["ks"]
    for k, s in (("p", p), ("inv", 1.0 - p)):
        assert m[k]["ks"] == pytest.approx(sps.ks_2samp(s[~y], s[y], alternative="greater").statistic, abs=1e-12)
    assert m["p"]["ks"] == pytest.approx(sps.ks_2samp(p[y], p[~y]).statistic, rel=1e-12)
    assert m["inv"]["ks"] == 0.0 < sps.ks_2samp((1 - p)[y], (1 - p)[~y]).statistic
    # average precision: scikit-learn's step sum
    assert m["p"]["average_precision"] == pytest.approx(skm.average_precision_score(y, p), rel=1e-12)
    # log-loss: scikit-learn's clip at machine epsilon, and the clip is warned of
    assert m["p"]["log_loss"] == pytest.approx(skm.log_loss(y, p), rel=1e-12)
    assert any(nt["code"] == "log_loss_clipped" for nt in out["models"]["p"]["notices"])
    # mcc: null with a reason where scikit-learn gives 0 (a constant score flags nothing)
    assert m["flat"]["mcc"] is None and "mcc" in out["models"]["flat"]["undefined_reasons"]
    assert skm.matthews_corrcoef(y, np.full(n, 0.4) >= 0.5) == 0.0
    # bootstrap intervals: none drawn here, and none claimed
    assert all(v.startswith("DeLong") or v.startswith("Clopper") for v in out["models"]["p"]["ci_method"].values())


# --- more published worked examples ------------------------------------------------------------------


@pytest.mark.parametrize(
    "k,n,wilson_ci,exact_ci",
    [
        (81, 263, (0.2553, 0.3662), (0.2527, 0.3676)),
        (15, 148, (0.0624, 0.1605), (0.0578, 0.1617)),
        (0, 20, (0.0, 0.1611), (0.0, 0.1684)),
        (1, 29, (0.0061, 0.1718), (0.0009, 0.1776)),
    ],
)
def test_proportion_intervals_reproduce_newcombe_1998_table_1(k, n, wilson_ci, exact_ci):
    # verified case: Newcombe (1998), "Two-sided confidence intervals for the single proportion:
    # comparison of seven methods", Statistics in Medicine 17:857, Table I, methods 3 (Wilson score)
    # and 5 (Clopper-Pearson exact), 95 %
    assert tuple(round(v, 4) for v in wilson(k, n)) == wilson_ci
    assert tuple(round(v, 4) for v in clopper_pearson(k, n)) == exact_ci


def test_hanley_mcneil_1982_rating_example_auc():
    """verified case: Hanley & McNeil (1982), Radiology 143:29, Table 1: CT ratings 1-5 of 58 normal
    (33, 6, 6, 11, 2) and 51 abnormal (3, 2, 2, 11, 33) patients, area 0.893 (five tied rating
    levels). Their SE 0.032 is their exponential approximation; DeLong's estimator gives 0.031."""
    neg = np.repeat([1, 2, 3, 4, 5], [33, 6, 6, 11, 2])
    pos = np.repeat([1, 2, 3, 4, 5], [3, 2, 2, 11, 33])
    df = pd.DataFrame({"abnormal": np.r_[np.zeros(58, int), np.ones(51, int)], "rating": np.r_[neg, pos]})
    out = reportgen.compare_frames(
        df,
        label="abnormal",
        positive=1,
        scores={"ct": {"score": "rating", "threshold": 4}},
        bootstrap={"resamples": 0, "seed": 1},
        now=NOW,
    ).to_json()
    m = out["models"]["ct"]
    assert round(m["metrics"]["roc_auc"], 3) == 0.893
    a = m["metrics"]["roc_auc"]
    q1, q2 = a / (2 - a), 2 * a * a / (1 + a)
    hm_se = math.sqrt((a * (1 - a) + 50 * (q1 - a * a) + 57 * (q2 - a * a)) / (51 * 58))
    assert round(hm_se, 3) == 0.032  # the published SE, by their formula
    lo, hi = m["ci"]["roc_auc"]
    assert round((hi - lo) / (2 * sps.norm.ppf(0.975)), 3) == 0.031  # DeLong's, the one we use


def test_credit_section_auc_interval_near_one_is_the_models_logit_interval():
    """Regression: the credit section cut DeLong's normal interval at 1 (pROC's clip) while the
    model's own interval, of the same AUC, was taken on the logit scale: two conventions for one
    number in one report. Both now come from ``proportions.delong_auc_bounds``, rows or counts."""
    from reportgen.engine import credit as C
    from reportgen.engine.delong import delong_auc_ci
    from reportgen.engine.proportions import delong_auc_bounds, logit_auc_interval

    rng = np.random.default_rng(5)
    y = rng.random(300) < 0.2
    s = np.where(y, 0.6 + rng.random(300) * 0.4, rng.random(300) * 0.62)
    d = delong_auc_ci(s, y)
    assert d.auc + 1.96 * d.se > 1.0  # the normal interval would leave [0, 1]
    want = logit_auc_interval(d.auc, d.variance, 0.95)
    assert delong_auc_bounds(d.auc, d.variance, 0.95) == (*want, "DeLong (logit scale)")
    auc, lo, hi, se = C.auc_interval(s, y, "higher", 0.95)
    assert (auc, lo, hi, se) == pytest.approx((d.auc, *want, d.se), rel=1e-12)
    # the same rows compressed to distinct (score, class) with counts: the same interval
    u, inv = np.unique(np.c_[np.round(s, 2), y], axis=0, return_inverse=True)
    cnt = np.bincount(inv.ravel()).astype(float)
    rows = delong_auc_ci(np.round(s, 2), y)
    got = C.auc_interval(u[:, 0], u[:, 1].astype(bool), "higher", 0.95, cnt)
    assert got[1:3] == pytest.approx(delong_auc_bounds(rows.auc, rows.variance, 0.95)[:2], rel=1e-10)
    # away from the bounds: pROC's normal interval, unchanged
    ok = delong_auc_ci(np.r_[s[:150], rng.random(150)], y)
    assert delong_auc_bounds(ok.auc, ok.variance, 0.95) == (ok.lo, ok.hi, "DeLong")
