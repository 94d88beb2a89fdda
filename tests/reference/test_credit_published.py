"""Verified cases: the credit battery (reportgen/engine/credit.py) against published values.

Each test names its source. The sources and what they publish:

* ECB (2019), *Instructions for reporting the validation results of internal models, IRB Pillar I
  models for credit risk*: Jeffreys test, concentration (CV, HI and its test), the current-vs-
  initial AUC test, the matrix weighted bandwidths (2.5.5.1) and the migration matrix stability
  test (2.5.5). Its worked numbers are reproduced by the two implementations below.
* MathWorks Risk Management Toolbox, ``risk.validation.matrixWeightedBandwidth`` (R2026a)
  documentation example: a 5 × 5 count matrix with lower and upper MWB 0.3306 and 0.6066.
* meliora (github.com/at621/meliora, Python credit validation tests): the doctest examples of
  its reference pages ``docs/reference/*.md`` (Jeffreys, Hosmer test, Spiegelhalter, PSI,
  Herfindahl, multiple-period Herfindahl, migration matrix stability) and the printed table of
  its ``binomial_test`` docstring (``src/meliora/core.py``).
* PDtoolkit (R, CRAN; github.com/andrija-djurovic/PDtoolkit, ``R/12_PREDICTIVE_POWER.R``): the
  conventions of ``pp.testing``: binomial ``pbinom(nb - 1, no, pdc, lower.tail = FALSE)``,
  Jeffreys ``pbeta(pdc, nb + 0.5, no - nb + 0.5)``, Hosmer-Lemeshow χ² with ``k`` (the number of
  grades) degrees of freedom.
* Engelmann, Hayden & Tasche (2003), *Testing rating accuracy*, Risk 16(1): AR = 2·AUC − 1,
  AR = a_R / a_P from the CAP curve.

Round 2 (every statistic of the section's metrics.json, the ones above ticked off):

* meliora reference pages, further examples: ``gini`` (a tie, Gini 0.75), ``somersd`` (the table
  [[3, 1], [1, 3]], D = 0.5), ``kolmogorov_smirnov_stat`` (D = 1), ``binomial_test`` (p 0.1808,
  0.8208), ``logistic_calibration_lr_test`` (LR 1.78514841), ``migration_matrices_statistics``
  (MWB 0.8 / 0.8), run through the whole model rather than the building blocks.
* RSurveillance ``binom.jeffreys`` (R, CRAN) printed example: the grades' Jeffreys interval.
* pROC on its ``aSAH`` data: the per-segment AUC / Gini interval and the σ of the ECB AUC test,
  rows and compressed rows, both score directions.
* The MathWorks bandwidth example again with letter grades: the rating scale's order
  (``credit.grades.order``) is what makes the published numbers come out.
"""

from __future__ import annotations

import math
from pathlib import Path

import numpy as np
import pandas as pd
import pytest
from hypothesis import given, settings
from hypothesis import strategies as st
from scipy import stats
from sklearn.metrics import roc_auc_score

import reportgen.engine.credit as C

S = C.CreditSettings()


# --- calibration per grade and portfolio -------------------------------------------------


def test_binomial_test_reproduces_melioras_published_table() -> None:
    """meliora ``binomial_test`` docstring (BCBS WP14 p. 47, one-sided P(X >= D)): grades
    A (PD 0.10, N 401, D 36), B (0.15, 489, 73), C (0.20, 110, 23) print p-values
    0.775347, 0.537039, 0.443273."""
    p = C.binomial_sf(np.array([36, 73, 23]), np.array([401, 489, 110]), np.array([0.10, 0.15, 0.20]))
    assert np.round(p, 6).tolist() == [0.775347, 0.537039, 0.443273]
    # PDtoolkit's convention is the same tail: pbinom(nb - 1, no, pdc, lower.tail = FALSE)
    np.testing.assert_allclose(
        p, stats.binom.sf(np.array([35, 72, 22]), [401, 489, 110], [0.10, 0.15, 0.20]), rtol=1e-12
    )


def test_jeffreys_reproduces_melioras_symmetric_posterior() -> None:
    """meliora ``jeffreys_test`` example: D = 2 of N = 4 at PD 0.5, the posterior Beta(2.5, 2.5)
    is symmetric, so its CDF at the PD is 0.5 (ECB 2019: p = Beta(D + 1/2, N - D + 1/2) CDF at PD;
    PDtoolkit: pbeta(pdc, nb + 0.5, no - nb + 0.5))."""
    assert float(C.jeffreys_p(2, 4, 0.5)) == pytest.approx(0.5, abs=1e-14)


def test_jeffreys_in_the_model_uses_the_grades_mean_pd() -> None:
    """ECB 2019 2.5.3.1 with a PD per obligor: the grade's PD is the mean of its obligors' PDs and
    the portfolio's the mean over every obligor; a grade with no default and one with every
    obligor in default stay defined (Beta(1/2, N + 1/2) and Beta(N + 1/2, 1/2))."""
    pd_ = np.array([0.01, 0.03, 0.02, 0.2, 0.4, 0.3])
    y = np.array([False, False, False, True, True, True])
    grade = np.array(["1", "1", "1", "2", "2", "2"])
    m = C.credit_model("m", C.CreditSample(y=y, score=pd_, pd=pd_, grade=grade), None, "higher", C.Grading("column"), S)
    g1, g2 = m.grades
    assert g1.jeffreys.p_value == pytest.approx(stats.beta.cdf(0.02, 0.5, 3.5), rel=1e-10)
    assert g2.jeffreys.p_value == pytest.approx(stats.beta.cdf(0.3, 3.5, 0.5), rel=1e-10)
    assert g2.binomial.p_value == pytest.approx(0.3**3, rel=1e-12)  # P(X >= 3), X ~ Bin(3, 0.3)
    assert m.calibration.jeffreys.p_value == pytest.approx(stats.beta.cdf(pd_.mean(), 3.5, 3.5), rel=1e-10)


def test_hosmer_lemeshow_reproduces_melioras_fixed_pd_example() -> None:
    """meliora ``hosmer_test`` example (ddof 0: fixed external PDs, K degrees of freedom, as
    PDtoolkit's ``hl.test`` and BCBS WP14): grades A (4 obligors, 2 defaults, PD 0.2) and
    B (4, 2, 0.6): p = exp(-(2.25 + 1/6)/2), the χ²(2) tail."""
    h, g, reason = C.hosmer_lemeshow(np.array([4.0, 4.0]), np.array([2.0, 2.0]), np.array([0.2, 0.6]))
    assert reason is None and g == 2 and h == pytest.approx(2.25 + 1 / 6)
    assert C.chi2_sf(h, g) == pytest.approx(math.exp(-(2.25 + 1 / 6) / 2), rel=1e-12)


def test_spiegelhalter_reproduces_melioras_example() -> None:
    """meliora ``spiegelhalter_test`` example (Spiegelhalter 1986): outcomes 0, 0, 1, 1 at PD 0.2
    and again at PD 0.6 give z = 0.8 / sqrt(0.2688), about 1.54, two-sided."""
    y = np.array([0, 0, 1, 1] * 2, dtype=float)
    p = np.array([0.2] * 4 + [0.6] * 4)
    z, reason = C.spiegelhalter(y, p)
    assert reason is None and z == pytest.approx(0.8 / math.sqrt(0.2688), rel=1e-12)


# --- stability: PSI and concentration ------------------------------------------------------


def test_psi_reproduces_melioras_unsmoothed_example() -> None:
    """meliora ``population_stability_index`` example (smoothing 0): shares (0.75, 0.25) become
    (0.25, 0.75), PSI = ln 3."""
    v, e, a, _ = C.psi(np.array([3, 1]), np.array([1, 3]))
    assert v == pytest.approx(math.log(3), rel=1e-12)
    assert e.tolist() == [0.75, 0.25] and a.tolist() == [0.25, 0.75]


def test_a_bin_empty_in_both_samples_does_not_move_the_psi() -> None:
    """A grade nobody falls in, in either sample, is not a bin for toad, PDtoolkit or scorecard
    (their bins come from the values seen): it must add nothing. It used to count half a row in
    each sample (0.5/10.5 against 0.5/1000.5 of the rows), which made this PSI 0.257 (red)
    instead of 0.041 (green)."""
    with_empty, *_ = C.psi(np.array([600, 400, 0]), np.array([5, 5, 0]))
    without, *_ = C.psi(np.array([600, 400]), np.array([5, 5]))
    want = (0.5 - 0.6) * math.log(0.5 / 0.6) + (0.5 - 0.4) * math.log(0.5 / 0.4)
    assert with_empty == without == pytest.approx(want, rel=1e-12)
    import toad.metrics as toad_metrics

    base, test = np.repeat([0, 1], [600, 400]), np.repeat([0, 1], [5, 5])
    assert with_empty == pytest.approx(float(toad_metrics.PSI(test, base)), rel=1e-12)


def test_the_models_psi_ignores_a_pd_grade_empty_in_both_samples() -> None:
    """PD edges beyond every PD make a grade empty in both samples; the model's PSI equals the
    PSI over the grades with rows (the contribution of the empty one is 0), while the ECB
    concentration keeps K = every grade of the scale."""
    rng = np.random.default_rng(7)

    def mk(n, hi):
        pd = rng.uniform(0.001, hi, n)
        return C.CreditSample(y=rng.random(n) < pd, score=pd, pd=pd)

    cur, ref = mk(300, 0.15), mk(3000, 0.12)
    m = C.credit_model("m", cur, ref, "higher", C.Grading("edges", edges=(0.05, 0.1, 0.5)), S)
    bins = m.stability.bins
    assert bins[-1].reference_n == bins[-1].current_n == 0 and bins[-1].contribution == 0.0
    counts = [(b.reference_n, b.current_n) for b in bins[:-1]]
    want, *_ = C.psi(np.array([r for r, _ in counts]), np.array([c for _, c in counts]))
    assert m.stability.psi.statistic == pytest.approx(want, rel=1e-12)
    assert m.stability.concentration_current.grades == 4


def test_herfindahl_reproduces_melioras_examples() -> None:
    """meliora ``herfindahl_test`` example: grades A, A, A, A, B, B give CV = 1/3 and HHI = 5/9
    (ECB 2019 CV = sqrt(K sum (s - 1/K)^2)); ``herfindahl_multiple_period_test``: from (4, 2)
    to (5, 1), z = 3/sqrt(34) and the current HHI 26/36, p = 1 - Phi(z)."""
    ini = C.concentration(np.array([4, 2]))
    assert ini.cv == pytest.approx(1 / 3, rel=1e-12) and ini.herfindahl == pytest.approx(5 / 9, rel=1e-12)
    cur = C.concentration(np.array([5, 1]))
    z, p, reason = C.concentration_test(ini.cv, cur.cv, 2)
    assert reason is None and z == pytest.approx(3 / math.sqrt(34), rel=1e-12)
    assert cur.herfindahl == pytest.approx(26 / 36, rel=1e-12) and p == pytest.approx(stats.norm.sf(3 / math.sqrt(34)))
    # ECB 2019's HI form of the same shares: 1 + ln((CV^2 + 1)/K) / ln K
    assert cur.ecb == pytest.approx(1 + math.log((cur.cv**2 + 1) / 2) / math.log(2), rel=1e-12)


# --- migration ---------------------------------------------------------------------------


def _mwb_oracle(n: np.ndarray) -> tuple[float | None, float | None]:
    """ECB 2019 2.5.5.1 written out cell by cell, grades numbered 1 … K, N_i p_ij = n[i-1, j-1]."""
    k = n.shape[0]
    up_num = up_den = lo_num = lo_den = 0.0
    for i in range(1, k + 1):
        w = max(abs(i - k), abs(i - 1))
        for j in range(1, k + 1):
            if j > i:
                up_num += abs(i - j) * n[i - 1, j - 1]
                up_den += w * n[i - 1, j - 1]
            elif j < i:
                lo_num += abs(i - j) * n[i - 1, j - 1]
                lo_den += w * n[i - 1, j - 1]
    return (lo_num / lo_den if lo_den else None), (up_num / up_den if up_den else None)


def _z_oracle(n: np.ndarray, i: int, j: int) -> float:
    """ECB 2019 2.5.5 stability statistic of cell (i, j) (0-based), written out."""
    ni = n[i].sum()
    p = n[i, j] / ni
    q = n[i, j - 1] / ni if j > i else n[i, j + 1] / ni
    return (q - p) / math.sqrt((p * (1 - p) + q * (1 - q) + 2 * p * q) / ni)


def test_matrix_weighted_bandwidth_reproduces_the_mathworks_example() -> None:
    """MathWorks ``risk.validation.matrixWeightedBandwidth`` documentation example (ECB 2019
    2.5.5.1): this count matrix has lower MWB 0.3306 and upper MWB 0.6066."""
    counts = np.array(
        [[10, 8, 15, 9, 10], [11, 9, 13, 9, 8], [0, 10, 10, 11, 10], [0, 0, 9, 11, 11], [0, 0, 0, 11, 10]]
    )
    lower, upper = C.matrix_weighted_bandwidth(counts)
    assert (round(lower, 4), round(upper, 4)) == (0.3306, 0.6066)
    assert (lower, upper) == pytest.approx(_mwb_oracle(counts), rel=1e-12)
    assert C.matrix_weighted_bandwidth(np.diag([3, 4, 5])) == (None, None)  # nobody moved


def test_migration_stability_reproduces_melioras_example() -> None:
    """meliora ``migration_matrix_stability`` example (ECB 2019 2.5.5): starts 1,1,1,1 / 2,2,2,2 /
    3,3,3,3 ending 1,1,2,3 / 1,2,2,3 / 1,2,3,3; cell (1, 2) has z = 2/sqrt(11), cell (1, 3)
    equal neighbours so Phi(z) = 0.5; the diagonal is undefined."""
    counts = np.array([[2, 1, 1], [1, 2, 1], [1, 1, 2]])
    z, p = C.migration_stability(counts)
    assert z[0, 1] == pytest.approx(2 / math.sqrt(11), rel=1e-12)
    assert p[0, 2] == pytest.approx(0.5) and p[0, 1] == pytest.approx(stats.norm.cdf(2 / math.sqrt(11)))
    assert np.isnan(np.diag(z)).all() and np.isnan(np.diag(p)).all()


def test_migration_stability_lower_triangle_and_undefined_cells_by_hand() -> None:
    """Below the diagonal the neighbour nearer the diagonal is p_{i,j+1}; an empty row and two
    empty neighbours (zero variance) are undefined."""
    counts = np.array([[5, 3, 0, 0], [6, 20, 2, 0], [1, 9, 30, 4], [0, 0, 0, 0]])
    z, p = C.migration_stability(counts)
    for i, j in [(0, 1), (0, 2), (1, 0), (1, 2), (1, 3), (2, 0), (2, 1), (2, 3)]:
        assert z[i, j] == pytest.approx(_z_oracle(counts.astype(float), i, j), rel=1e-12), (i, j)
        assert p[i, j] == pytest.approx(stats.norm.cdf(z[i, j]), rel=1e-12)
    assert np.isnan(z[0, 3])  # p_13 = p_14 = 0: zero variance
    assert np.isnan(z[3]).all()  # nobody started in grade 4
    # cell (3, 1) holds 1 against 9 in (3, 2): z = (9/44 - 1/44) / sigma > 0, no violation
    assert z[2, 0] > 0 and p[2, 0] > 0.5


def test_the_models_migration_carries_the_ecb_statistics() -> None:
    """End to end: ids in both samples, the rating column as grades; the matrix, MWBs and cell
    tests agree with the formulas written out, and flagged counts the cells below the amber level."""
    rng = np.random.default_rng(11)
    n = 2000
    start = rng.integers(0, 5, n)
    end = np.clip(start + rng.choice([-2, -1, 0, 0, 0, 1, 3], n), 0, 4)
    ids = np.array([f"c{i}" for i in range(n)])
    grade = np.array(list("ABCDE"))
    pd_ = 0.01 * (1 + end)
    ref = C.CreditSample(
        y=rng.random(n) < 0.01 * (1 + start),
        score=0.01 * (1 + start),
        pd=0.01 * (1 + start),
        grade=grade[start],
        ids=ids,
    )
    order = rng.permutation(n)  # the current file lists the ids in another order
    cur = C.CreditSample(
        y=(rng.random(n) < pd_)[order], score=pd_[order], pd=pd_[order], grade=grade[end][order], ids=ids[order]
    )
    mig = C.credit_model("m", cur, ref, "higher", C.Grading("column"), S).migration
    want = np.zeros((5, 5), dtype=int)
    np.add.at(want, (start, end), 1)
    assert np.array_equal(np.array(mig.counts), want) and mig.matched == n
    assert (mig.mwb_lower, mig.mwb_upper) == pytest.approx(_mwb_oracle(want), rel=1e-12)
    flagged = 0
    for i in range(5):
        for j in range(5):
            if i == j:
                assert mig.stability_z[i][j] is None
                continue
            q = want[i, j - 1] if j > i else want[i, j + 1]
            if want[i, j] == 0 and q == 0:
                assert mig.stability_z[i][j] is None
                continue
            assert mig.stability_z[i][j] == pytest.approx(_z_oracle(want.astype(float), i, j), rel=1e-12)
            flagged += stats.norm.cdf(mig.stability_z[i][j]) < S.amber
    assert mig.stability_flagged == flagged and flagged > 0  # the 3-grade jumps pile up beyond their neighbours


@given(st.lists(st.integers(0, 60), min_size=16, max_size=16))
@settings(max_examples=80, deadline=None)
def test_matrix_weighted_bandwidths_lie_in_zero_one(cells: list[int]) -> None:
    counts = np.array(cells).reshape(4, 4)
    lower, upper = C.matrix_weighted_bandwidth(counts)
    want = _mwb_oracle(counts)
    for got, w in ((lower, want[0]), (upper, want[1])):
        assert (got is None) == (w is None)
        if got is not None:
            assert 0.0 < got <= 1.0 and got == pytest.approx(w, rel=1e-12)


# --- discrimination ------------------------------------------------------------------------


@pytest.mark.parametrize("direction", ["higher", "lower"])
def test_accuracy_ratio_is_the_cap_area_ratio_and_two_auc_minus_one(direction: str) -> None:
    """Engelmann, Hayden & Tasche (2003): AR = a_R / a_P, a_R the area between the CAP curve and
    the diagonal, a_P = (1 - pi)/2 that of the perfect model, and AR = 2 AUC - 1 (ties count one
    half). Scorecard points with heavy ties, both score directions."""
    rng = np.random.default_rng(12)
    points = rng.integers(0, 40, 5000) * 10.0
    y = rng.random(5000) < 1 / (1 + np.exp((points - 150) / 60))
    score = points if direction == "lower" else -points
    m = C.credit_model("m", C.CreditSample(y=y, score=score), None, direction, C.Grading("quantiles", quantiles=5), S)
    auc = roc_auc_score(y, -points)  # lower points = riskier
    x, cy = np.asarray(m.cap.x), np.asarray(m.cap.y)
    a_r = np.trapezoid(cy, x) - 0.5
    a_p = (1 - y.mean()) / 2
    assert m.accuracy_ratio == pytest.approx(2 * auc - 1, rel=1e-12)
    assert a_r / a_p == pytest.approx(2 * auc - 1, rel=1e-12)


def test_ecb_auc_test_written_out_on_a_small_book_with_ties() -> None:
    """ECB 2019 (current AUC against the AUC at initial validation): S = (AUC_init - AUC_curr)/s,
    p = 1 - Phi(S), s^2 = S10/N_D + S01/N_ND with DeLong's placements (ties one half)
    V10(x_i) = mean_j psi(x_i, y_j), V01(y_j) = mean_i psi(x_i, y_j) and S10, S01 their sample
    variances (divisor N - 1). Written out pair by pair on ten obligors with tied grades."""
    grade = np.array([1, 2, 2, 3, 3, 3, 4, 4, 5, 5], dtype=float)  # higher grade = riskier
    y = np.array([0, 0, 1, 0, 0, 1, 0, 1, 1, 0], dtype=bool)
    pos, neg = grade[y], grade[~y]
    psi = (pos[:, None] > neg[None, :]) + 0.5 * (pos[:, None] == neg[None, :])
    auc = psi.mean()
    v10, v01 = psi.mean(axis=1), psi.mean(axis=0)
    s = math.sqrt(v10.var(ddof=1) / len(pos) + v01.var(ddof=1) / len(neg))
    m = C.credit_model(
        "m", C.CreditSample(y=y, score=grade), None, "higher", C.Grading("quantiles", quantiles=2), S, initial_auc=0.9
    )
    h = m.auc_history
    assert h.current_auc == pytest.approx(auc, rel=1e-12) and h.se == pytest.approx(s, rel=1e-12)
    assert h.test.statistic == pytest.approx((0.9 - auc) / s, rel=1e-12)
    assert h.test.p_value == pytest.approx(stats.norm.sf((0.9 - auc) / s), rel=1e-12)
    assert m.accuracy_ratio == pytest.approx(2 * auc - 1, rel=1e-12)


def test_hosmer_lemeshow_gives_both_conventions_and_only_g_df_counts() -> None:
    """PD validation on an independent sample: chi-square with G df (BCBS WP14, PDtoolkit
    ``hl.test``, meliora ddof 0): the light and the failures. The development-sample convention,
    G - 2 df (Hosmer & Lemeshow 1980; ResourceSelection ``hoslem.test``), is given beside it for
    comparison: same statistic, its own p-value, outside the verdict."""
    rng = np.random.default_rng(13)
    pd_ = rng.uniform(0.01, 0.2, 4000)
    y = rng.random(4000) < pd_ * 1.25
    m = C.credit_model(
        "m", C.CreditSample(y=y, score=pd_, pd=pd_), None, "higher", C.Grading("quantiles", quantiles=10), S
    )
    n = np.array([g.n for g in m.grades], dtype=float)
    d = np.array([g.defaults for g in m.grades], dtype=float)
    p = np.array([g.mean_pd for g in m.grades])
    h = float(np.sum((d - n * p) ** 2 / (n * p * (1 - p))))
    cal = m.calibration
    assert cal.hosmer_lemeshow.statistic == pytest.approx(h, rel=1e-12) and cal.hosmer_lemeshow.df == 10
    assert cal.hosmer_lemeshow.p_value == pytest.approx(stats.chi2.sf(h, 10), rel=1e-10)
    assert cal.hosmer_lemeshow_g2.statistic == pytest.approx(h, rel=1e-12) and cal.hosmer_lemeshow_g2.df == 8
    assert cal.hosmer_lemeshow_g2.p_value == pytest.approx(stats.chi2.sf(h, 8), rel=1e-10)
    assert "hosmer_lemeshow_g2" not in cal.failures
    two = C.credit_model(
        "m", C.CreditSample(y=y, score=pd_, pd=pd_), None, "higher", C.Grading("quantiles", quantiles=2), S
    )
    assert two.calibration.hosmer_lemeshow_g2.p_value is None
    assert two.calibration.hosmer_lemeshow_g2.reason == "too_few_grades"


@pytest.mark.parametrize("direction", ["higher", "lower"])
def test_ks_matches_toad_on_tied_scores(direction: str) -> None:
    """toad 0.1.7 ``toad.metrics.KS`` (max |TPR - FPR| over the cuts, ties taken together): the
    same KS whichever way the score points."""
    import toad.metrics as toad_metrics

    rng = np.random.default_rng(14)
    s = rng.integers(0, 20, 3000).astype(float)
    y = rng.random(3000) < 0.1 + s / 60
    ours = C.ks_statistic(s if direction == "higher" else -s, y, direction)
    assert ours == pytest.approx(float(toad_metrics.KS(s, y)), rel=1e-12)


# --- discrimination with ties, intervals, the battery end to end ----------------------


ASAH = Path(__file__).resolve().parents[1] / "data" / "asah.csv"


def _graded(y: list[int], grade: list[str], pd_: list[float], **kw: object) -> C.CreditModel:
    """A model graded by a rating column, its PD as the score."""
    p = np.array(pd_, dtype=float)
    return C.credit_model(
        "m",
        C.CreditSample(y=np.array(y, dtype=bool), score=p, pd=p, grade=np.array(grade), **kw),
        None,
        "higher",
        C.Grading("column"),
        S,
    )


@pytest.mark.parametrize("direction", ["higher", "lower"])
def test_accuracy_ratio_with_a_tie_reproduces_melioras_gini_example(direction: str) -> None:
    """meliora ``gini`` reference example: outcomes 0, 0, 1, 1 with scores 1, 2, 2, 3 (a default
    and a non-default tied at 2, ties counting one half) have AUC 0.875 and Gini 0.75. The CAP's
    area ratio a_R / a_P (Engelmann, Hayden & Tasche 2003), the model's accuracy ratio and a
    segment's Gini all give 0.75, and the segment's KS is the two-sample D = 1/2."""
    y = np.array([0, 0, 1, 1], dtype=bool)
    s = np.array([1.0, 2.0, 2.0, 3.0]) * (1 if direction == "higher" else -1)
    m = C.credit_model(
        "m",
        C.CreditSample(y=y, score=s, segment=np.array(["all"] * 4)),
        None,
        direction,
        C.Grading("quantiles", quantiles=2),
        S,
    )
    assert m.accuracy_ratio == pytest.approx(0.75, rel=1e-12)
    x, cy = np.asarray(m.cap.x), np.asarray(m.cap.y)
    assert (np.trapezoid(cy, x) - 0.5) / ((1 - 0.5) / 2) == pytest.approx(0.75, rel=1e-12)
    (seg,) = m.segments
    assert seg.auc == pytest.approx(0.875, rel=1e-12) and seg.gini == pytest.approx(0.75, rel=1e-12)
    assert seg.ks == pytest.approx(0.5, rel=1e-12)


def test_accuracy_ratio_is_somers_d_of_the_grades_given_default() -> None:
    """meliora ``somersd`` reference example (scipy ``somersd``): the table [[3, 1], [1, 3]] has
    Somers' D(column | row) = 0.5. Rows as the default flag (non-defaults 3 in the good grade and
    1 in the bad one, defaults 1 and 3), columns as the grades: the accuracy ratio with tied grades
    is that D (BCBS WP14 section 3.2: AR = Somers' D of the rating given default). On a larger
    book with heavy ties it equals scipy's Somers' D of the same table."""
    m = _graded(
        [0, 0, 0, 0, 1, 1, 1, 1], ["1", "1", "1", "2", "1", "2", "2", "2"], [0.1] * 3 + [0.3] + [0.1] + [0.3] * 3
    )
    assert m.accuracy_ratio == pytest.approx(0.5, rel=1e-12)
    assert stats.somersd(np.array([[3, 1], [1, 3]])).statistic == pytest.approx(0.5, rel=1e-12)
    rng = np.random.default_rng(21)
    grade = rng.integers(1, 8, 3000)
    y = rng.random(3000) < 0.02 * grade
    m = C.credit_model(
        "m", C.CreditSample(y=y, score=grade.astype(float)), None, "higher", C.Grading("quantiles", quantiles=4), S
    )
    table = np.array([np.bincount(grade[~y], minlength=8)[1:], np.bincount(grade[y], minlength=8)[1:]])
    assert m.accuracy_ratio == pytest.approx(stats.somersd(table).statistic, rel=1e-12)


def test_ks_reproduces_melioras_separated_classes_and_scipys_two_sided_d() -> None:
    """meliora ``kolmogorov_smirnov_stat`` reference example: outcomes 0, 0, 1, 1 at scores 1, 2,
    3, 4 do not overlap, D = 1. With ties and a score that ranks the wrong way in part of its range,
    the credit section's KS is the two-sided D of scipy ``ks_2samp`` (README: 'the credit section
    reports D')."""
    assert C.ks_statistic(np.array([1.0, 2.0, 3.0, 4.0]), np.array([0, 0, 1, 1], dtype=bool)) == 1.0
    rng = np.random.default_rng(22)
    s = rng.integers(0, 12, 2000).astype(float)
    y = rng.random(2000) < np.where(s < 6, 0.05 + s / 40, 0.5 - s / 40)  # rises, then falls
    for direction, sign in (("higher", 1.0), ("lower", -1.0)):
        assert C.ks_statistic(sign * s, y, direction) == pytest.approx(stats.ks_2samp(s[y], s[~y]).statistic, rel=1e-12)


def test_grade_and_portfolio_tests_reproduce_melioras_examples_through_the_model() -> None:
    """One book through the whole battery, graded by a rating column: grade A (4 obligors, 2
    defaults, PD 0.2) and B (4, 2, 0.6), the data of meliora's ``binomial_test``, ``hosmer_test``
    and ``spiegelhalter_test`` reference examples. Published: binomial p 0.1808 and 0.8208
    (P(X >= 2) per grade, BCBS WP14), Hosmer-Lemeshow p = exp(-(2.25 + 1/6)/2) with 2 df,
    Spiegelhalter z = 0.8 / sqrt(0.2688)."""
    m = _graded([0, 0, 1, 1] * 2, ["A"] * 4 + ["B"] * 4, [0.2] * 4 + [0.6] * 4)
    assert [round(g.binomial.p_value, 4) for g in m.grades] == [0.1808, 0.8208]
    assert [g.binomial.statistic for g in m.grades] == pytest.approx([2 - 0.8, 2 - 2.4])
    cal = m.calibration
    assert cal.hosmer_lemeshow.df == 2 and cal.hosmer_lemeshow.statistic == pytest.approx(2.25 + 1 / 6, rel=1e-12)
    assert cal.hosmer_lemeshow.p_value == pytest.approx(math.exp(-(2.25 + 1 / 6) / 2), rel=1e-12)
    assert cal.spiegelhalter.statistic == pytest.approx(0.8 / math.sqrt(0.2688), rel=1e-12)
    assert cal.spiegelhalter.p_value == pytest.approx(2 * stats.norm.sf(0.8 / math.sqrt(0.2688)), rel=1e-12)
    # the portfolio: D = 4 of N = 8 at the mean PD 0.4, P(X >= 4) for X ~ Bin(8, 0.4)
    assert cal.binomial.p_value == pytest.approx(stats.binom.sf(3, 8, 0.4), rel=1e-12)
    assert cal.jeffreys.p_value == pytest.approx(stats.beta.cdf(0.4, 4.5, 4.5), rel=1e-12)


def test_default_rate_interval_reproduces_rsurveillances_binom_jeffreys() -> None:
    """RSurveillance ``binom.jeffreys`` documented example output (equal-tailed Jeffreys interval,
    Brown, Cai & DasGupta 2001): 25 of 200 -> (0.08462743, 0.176126); 10 of 200 -> (0.02599340,
    0.08687509); 50 of 200 -> (0.19387268, 0.31330266), as printed (each to its last printed digit)."""
    published = {25: ("0.08462743", "0.176126"), 10: ("0.02599340", "0.08687509"), 50: ("0.19387268", "0.31330266")}
    for d, want in published.items():
        m = _graded([1] * d + [0] * (200 - d), ["A"] * 200, [0.1] * 200)
        for got, printed in zip(m.grades[0].dr_interval, want, strict=True):  # equal to the digits printed
            assert abs(got - float(printed)) <= 0.5 * 10.0 ** -len(printed.split(".")[1]), (d, got, printed)


@pytest.mark.parametrize("direction", ["higher", "lower"])
@pytest.mark.parametrize("compressed", [False, True])
def test_credit_auc_interval_and_ecb_sigma_reproduce_proc_on_asah(direction: str, compressed: bool) -> None:
    """pROC on its ``aSAH`` data (tests/data/asah.csv), s100b against a poor outcome: AUC 0.7314,
    DeLong 95 % CI 0.6301-0.8326 (the ``ci.auc`` example), var 0.00266868245717244 (pROC
    test-var.R). The credit section's per-segment AUC and Gini intervals and the σ of the ECB
    AUC test are those numbers, for rows one each and compressed to counts, in both directions."""
    df = pd.read_csv(ASAH)
    y = (df["outcome"] == "Poor").to_numpy()
    s = df["s100b"].to_numpy(dtype=float) * (1 if direction == "higher" else -1)
    count = None
    if compressed:
        g = pd.DataFrame({"y": y, "s": s}).groupby(["y", "s"], as_index=False).size()
        y, s, count = g["y"].to_numpy(), g["s"].to_numpy(dtype=float), g["size"].to_numpy()
        assert len(y) < 113 and count.sum() == 113
    m = C.credit_model(
        "m",
        C.CreditSample(y=y, score=s, segment=np.full(len(y), "all"), count=count),
        None,
        direction,
        C.Grading("quantiles", quantiles=4),
        S,
        initial_auc=0.8,
    )
    (seg,) = m.segments
    assert seg.auc == pytest.approx(0.7313685636856369, rel=1e-12)
    assert [round(v, 4) for v in seg.auc_ci] == [0.6301, 0.8326]
    assert seg.gini_ci == pytest.approx([2 * v - 1 for v in seg.auc_ci], rel=1e-12)
    h = m.auc_history
    assert h.se == pytest.approx(math.sqrt(0.00266868245717244), rel=1e-10)
    assert h.test.statistic == pytest.approx((0.8 - 0.7313685636856369) / math.sqrt(0.00266868245717244), rel=1e-10)


def test_calibration_slope_reproduces_melioras_likelihood_ratio_example() -> None:
    """meliora ``logistic_calibration_lr_test`` reference example: outcomes 0, 1, 0, 1 at PDs 0.2,
    0.2, 0.8, 0.8 give LR = 2(log L(a, b) - log L(0, 1)) = 1.78514841 for the recalibration
    logit P(y) = a + b logit(PD). The fitted slope (both PDs default half the time: b = 0, a = 0)
    and the intercept of the offset model (a = 0 by symmetry) reproduce that LR."""
    y, p = np.array([0.0, 1.0, 0.0, 1.0]), np.array([0.2, 0.2, 0.8, 0.8])
    (b, _), (a, _) = C.calibration_fit(y, p)
    lg = np.log(p / (1 - p))

    def loglik(intercept: float, slope: float) -> float:
        q = 1 / (1 + np.exp(-(intercept + slope * lg)))
        return float(np.sum(y * np.log(q) + (1 - y) * np.log1p(-q)))

    assert b == pytest.approx(0.0, abs=1e-12) and a == pytest.approx(0.0, abs=1e-12)
    assert 2 * (loglik(a, b) - loglik(0.0, 1.0)) == pytest.approx(1.78514841, abs=5e-9)


def test_the_models_migration_reproduces_melioras_bandwidth_example() -> None:
    """meliora ``migration_matrices_statistics`` reference example (ECB 2019 2.5.5.1): starts 1,1,1,1
    / 2,2,2,2 / 3,3,3,3 ending 1,1,2,3 / 1,2,2,3 / 1,2,3,3 give upper and lower MWB 0.8 (distance-
    weighted count 4 over the maximum-distance-weighted 5 on each side). Through the model: the
    ids join the reference and current rating columns."""
    start, end = [1] * 4 + [2] * 4 + [3] * 4, [1, 1, 2, 3, 1, 2, 2, 3, 1, 2, 3, 3]
    ids = np.array([f"c{i}" for i in range(12)])

    def sample(g):
        return C.CreditSample(
            y=np.zeros(12, dtype=bool), score=np.array(g, dtype=float), grade=np.array(g).astype(str), ids=ids
        )

    mig = C.credit_model("m", sample(end), sample(start), "higher", C.Grading("column"), S).migration
    assert np.array_equal(np.array(mig.counts), [[2, 1, 1], [1, 2, 1], [1, 1, 2]])
    assert (mig.mwb_lower, mig.mwb_upper) == pytest.approx((0.8, 0.8), rel=1e-12)
    assert (mig.stable, mig.upgraded, mig.downgraded, mig.beyond_one) == pytest.approx((0.5, 0.25, 0.25, 1 / 6))


def test_letter_grades_in_the_rating_scales_order_reproduce_the_mathworks_bandwidths() -> None:
    """The MathWorks ``matrixWeightedBandwidth`` example (lower 0.3306, upper 0.6066) with the
    grades named as letters, best first: AAA, AA, A, BBB, BB. The ECB formulas number the grades
    along the scale; sorted as text (A, AA, AAA, BB, BBB) the same moves would weigh other
    distances. With ``credit.grades.order`` (``Grading.order``) the model's migration gives the
    published numbers; without it the letters sort as text and the bandwidths differ (the reason
    the scale is a setting), and the grades' rank-order check runs along that wrong order."""
    counts = np.array(
        [[10, 8, 15, 9, 10], [11, 9, 13, 9, 8], [0, 10, 10, 11, 10], [0, 0, 9, 11, 11], [0, 0, 0, 11, 10]]
    )
    scale = np.array(["AAA", "AA", "A", "BBB", "BB"])
    start, end = np.nonzero(counts)
    start, end = np.repeat(start, counts[start, end]), np.repeat(end, counts[start, end])
    n = len(start)
    ids = np.array([f"c{i}" for i in range(n)])
    pd_scale = np.array([0.001, 0.005, 0.02, 0.05, 0.15])

    def sample(g: np.ndarray, y: np.ndarray) -> C.CreditSample:
        return C.CreditSample(y=y, score=pd_scale[g], pd=pd_scale[g], grade=scale[g], ids=ids)

    y = np.zeros(n, dtype=bool)  # 1, 2, 5, 11, 20 defaults of 21, 27, 47, 51, 49: rising along the scale
    y[[i for k, d in enumerate([1, 2, 5, 11, 20]) for i in np.flatnonzero(end == k)[:d]]] = True
    ref, cur = sample(start, np.arange(n) % 40 == 0), sample(end, y)
    ordered = C.credit_model("m", cur, ref, "higher", C.Grading("column", order=tuple(scale)), S)
    assert [g.grade for g in ordered.grades] == scale.tolist() and ordered.monotonic
    assert np.array_equal(np.array(ordered.migration.counts), counts)
    assert (round(ordered.migration.mwb_lower, 4), round(ordered.migration.mwb_upper, 4)) == (0.3306, 0.6066)
    as_text = C.credit_model("m", cur, ref, "higher", C.Grading("column"), S)
    assert [g.grade for g in as_text.grades] == ["A", "AA", "AAA", "BB", "BBB"]
    assert (round(as_text.migration.mwb_lower, 4), round(as_text.migration.mwb_upper, 4)) != (0.3306, 0.6066)
    assert not as_text.monotonic  # A (DR 5/47) after BBB would break the order; only the text order does
    with pytest.raises(ValueError, match="grade 'BB' is not in the rating scale"):
        C.credit_model("m", cur, ref, "higher", C.Grading("column", order=("AAA", "AA", "A", "BBB")), S)
