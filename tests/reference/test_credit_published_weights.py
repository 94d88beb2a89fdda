"""Verified cases with ties and weights: the credit battery (reportgen/engine/credit.py) against
independent implementations and published formulas (beside test_credit_published.py,
test_credit_published_edges.py and tests/unit/test_credit.py), with ties,
frequency weights (a row of weight w is w repeated rows), both score directions and the edge
cases (a grade without defaults, a grade of defaults only, one grade only, PDs of 0 and 1).

What the battery reports (``CreditModel`` in metrics.json) and where each number is checked:

* grades: rows, defaults, default rate, Jeffreys interval of the default rate (RSurveillance,
  DescTools: the other credit files; statsmodels ``proportion_confint(method="jeffreys")`` and the Brown, Cai &
  DasGupta (2001) ends at D = 0 and D = N: here), mean PD, share, rank order, Jeffreys and
  binomial tests per grade (probcal, meliora, scipy: the other credit files; PD 0 and 1: here);
* portfolio calibration: Jeffreys, binomial, Hosmer–Lemeshow with G and G − 2 df, Spiegelhalter
  (meliora, probcal, scipy: the other credit files; frequency weights: here), calibration in the large
  (DR − mean PD, O/E and its z test: here, from the formula and statsmodels' Poisson-binomial
  moments), calibration slope and intercept (probcal, scipy's MLE: the other credit files; their Wald standard
  errors, intervals and tests against statsmodels ``GLM(Binomial, freq_weights=…)``: here);
* discrimination: accuracy ratio / CAP (Engelmann, Hayden & Tasche 2003: the other credit files), the ECB AUC
  test (pROC's DeLong σ: the other credit files), per period and per segment AUC/Gini with DeLong intervals
  and KS (pROC, toad, scipy: the other credit files; frequency weights and periods: here);
* stability: PSI over the grades (meliora, toad: the other credit files) and over the reference score deciles
  (toad on the repeated rows, both directions: here), Herfindahl index with the ECB CV form and
  its test (meliora: the other credit files; through the model with weights and one grade only: here), the
  migration matrix with the ECB bandwidths and the cell stability test (MathWorks, meliora:
  the other credit files; frequency weights: here);
* grades by quantiles with ties and counts: numpy's ``quantile`` of the repeated values (here);
* traffic lights at their boundaries (BCBS WP14 levels as the section states them: here);
* the section's glossary: each test's side, null hypothesis and assumptions (here).

No Brier score, Brier decomposition or information value is reported by the credit section, so
none is checked here.
"""

from __future__ import annotations

import math

import numpy as np
import pytest
from scipy import stats

import reportgen.engine.credit as C
from reportgen.results import to_jsonable

S = C.CreditSettings()


# --- grade migration: frequency weights count obligors ----------------------------------------------


def _migration_case() -> tuple[np.ndarray, np.ndarray, np.ndarray, np.ndarray]:
    """(ids, reference grade, current grade, frequency weight) of 60 obligor rows over 4 grades."""
    rng = np.random.default_rng(31)
    n = 60
    start = rng.integers(0, 4, n)
    end = np.clip(start + rng.choice([-1, 0, 0, 1, 2], n), 0, 3)
    return np.array([f"c{i}" for i in range(n)]), start, end, rng.integers(1, 5, n)


def _graded_sample(ids: np.ndarray, grade: np.ndarray, count: np.ndarray | None = None) -> C.CreditSample:
    pd_scale = np.array([0.01, 0.03, 0.08, 0.2])
    return C.CreditSample(
        y=np.arange(len(ids)) % 7 == 0,
        score=pd_scale[grade],
        pd=pd_scale[grade],
        grade=np.array(list("ABCD"))[grade],
        ids=ids,
        count=count,
    )


@pytest.mark.parametrize("as_counts", [False, True])
def test_migration_counts_a_row_of_frequency_weight_w_as_w_obligors(as_counts: bool) -> None:
    """README: 'weight_kind: frequency counts a row of weight w as w obligors everywhere in the
    section'. The memory engine repeats such a row w times (ids included); a caller may also pass
    the counts. The migration matrix joined the samples with ``intersect1d``, which keeps one row
    per id: an obligor row of weight 3 moved one obligor, while the grades table counted three (the
    matrix summed to 60 against 150 obligors). The matrix of the repeated rows is the matrix of the
    unweighted rows with every cell weighted, and the ECB bandwidths (2.5.5.1) and cell tests (2.5.5)
    are those of the weighted matrix."""
    ids, start, end, w = _migration_case()
    if as_counts:
        cur, ref = _graded_sample(ids, end, w), _graded_sample(ids, start, w)
    else:
        cur = _graded_sample(np.repeat(ids, w), np.repeat(end, w))
        ref = _graded_sample(np.repeat(ids, w), np.repeat(start, w))
    m = C.credit_model("m", cur, ref, "higher", C.Grading("column", order=tuple("ABCD")), S)
    want = np.zeros((4, 4))
    np.add.at(want, (start, end), w)
    mig = m.migration
    assert np.array_equal(np.array(mig.counts), want) and mig.matched == w.sum() == m.n
    moved = end - start
    assert (mig.stable, mig.upgraded, mig.downgraded, mig.beyond_one) == pytest.approx(
        [
            w[moved == 0].sum() / w.sum(),
            w[moved < 0].sum() / w.sum(),
            w[moved > 0].sum() / w.sum(),
            w[np.abs(moved) > 1].sum() / w.sum(),
        ],
        rel=1e-12,
    )
    assert (mig.mwb_lower, mig.mwb_upper) == pytest.approx(C.matrix_weighted_bandwidth(want), rel=1e-12)
    z, _ = C.migration_stability(want)
    assert [[v is None for v in row] for row in mig.stability_z] == np.isnan(z).tolist()
    assert np.array([[0.0 if v is None else v for v in row] for row in mig.stability_z]) == pytest.approx(
        np.nan_to_num(z), rel=1e-12
    )


def test_migration_of_an_id_weighted_differently_in_the_two_samples_counts_the_obligors_in_both() -> None:
    """An id of weight 3 in the reference and 2 now: two obligors are found in both samples (the
    join of the repeated rows pairs them off one to one), not one and not six."""
    ids = np.array(["a", "b"])
    ref = _graded_sample(ids, np.array([0, 1]), np.array([3, 1]))
    cur = _graded_sample(ids, np.array([1, 1]), np.array([2, 4]))
    mig = C.credit_model("m", cur, ref, "higher", C.Grading("column", order=tuple("ABCD")), S).migration
    assert mig.counts[0][1] == 2 and mig.counts[1][1] == 1 and mig.matched == 3


# --- calibration slope and intercept: the Wald intervals against statsmodels ------------------------


def _weighted_book(seed: int, n: int = 600, mult: float = 1.3) -> tuple[np.ndarray, np.ndarray, np.ndarray]:
    """(default flag, PD rounded to a master scale of 2-decimal PDs: heavy ties, frequency weight)."""
    rng = np.random.default_rng(seed)
    pd_ = np.round(rng.uniform(0.01, 0.3, n), 2)
    return rng.random(n) < np.minimum(pd_ * mult, 1.0), pd_, rng.integers(1, 5, n)


@pytest.mark.parametrize("seed", [41, 42])
def test_calibration_slope_and_intercept_wald_intervals_match_statsmodels_glm_with_frequency_weights(seed: int) -> None:
    """statsmodels ``GLM(y, [1, logit PD], Binomial(), freq_weights=w)`` (the slope) and
    ``GLM(y, 1, Binomial(), offset=logit PD, freq_weights=w)`` (the intercept; Cox 1958, Van
    Calster et al. 2016): estimate, standard error, the Wald interval ``est ∓ z·se`` at 95 % and
    the two-sided Wald test of slope 1 and intercept 0. The same on the repeated rows (without
    weights), which is what a frequency weight means."""
    import statsmodels.api as sm

    y, pd_, w = _weighted_book(seed)
    lg = np.log(pd_ / (1 - pd_))
    fit_b = sm.GLM(y.astype(float), np.c_[np.ones_like(lg), lg], family=sm.families.Binomial(), freq_weights=w).fit(
        tol=1e-12
    )
    fit_a = sm.GLM(
        y.astype(float), np.ones((len(lg), 1)), family=sm.families.Binomial(), offset=lg, freq_weights=w
    ).fit(tol=1e-12)
    for sample in (
        C.CreditSample(y=y, score=pd_, pd=pd_, count=w),
        C.CreditSample(y=np.repeat(y, w), score=np.repeat(pd_, w), pd=np.repeat(pd_, w)),
    ):
        cal = C.credit_model("m", sample, None, "higher", C.Grading("quantiles", quantiles=5), S).calibration
        b, sb, a = fit_b.params[1], fit_b.bse[1], fit_a.params[0]
        assert cal.slope == pytest.approx(b, rel=1e-9) and cal.intercept == pytest.approx(a, rel=1e-9)
        assert cal.slope_ci == pytest.approx(fit_b.conf_int(alpha=0.05)[1], rel=1e-8)
        assert cal.intercept_ci == pytest.approx(fit_a.conf_int(alpha=0.05)[0], rel=1e-8)
        assert cal.slope_test.statistic == pytest.approx((b - 1) / sb, rel=1e-8)
        assert cal.slope_test.p_value == pytest.approx(2 * stats.norm.sf(abs((b - 1) / sb)), rel=1e-7)
        assert cal.intercept_test.statistic == pytest.approx(fit_a.tvalues[0], rel=1e-8)
        assert cal.intercept_test.p_value == pytest.approx(fit_a.pvalues[0], rel=1e-7)


# --- calibration in the large -------------------------------------------------------------------------


def test_calibration_in_the_large_is_the_normal_test_of_the_poisson_binomial_default_count() -> None:
    """With independent defaults the default count D is Poisson-binomial with mean Σp and variance
    Σp(1 − p) (the moments statsmodels' and scipy's binomials give for each obligor); the test is
    z = (D − Σp)/√Σp(1 − p), two-sided, beside DR − mean PD and O/E = D/Σp. Frequency weights:
    the sums over the repeated rows."""
    y, pd_, w = _weighted_book(43)
    yy, pp = np.repeat(y, w), np.repeat(pd_, w)
    mean, var = (float(sum(v)) for v in zip(*(stats.bernoulli.stats(p, moments="mv") for p in pp), strict=True))
    z = (yy.sum() - mean) / math.sqrt(var)
    cal = C.credit_model(
        "m", C.CreditSample(y=y, score=pd_, pd=pd_, count=w), None, "higher", C.Grading("quantiles", quantiles=5), S
    ).calibration
    assert cal.n == len(yy) and cal.defaults == yy.sum()
    assert cal.in_the_large_test.statistic == pytest.approx(z, rel=1e-12)
    assert cal.in_the_large_test.p_value == pytest.approx(2 * stats.norm.sf(abs(z)), rel=1e-10)
    assert cal.in_the_large == pytest.approx(yy.mean() - pp.mean(), rel=1e-12)
    assert cal.observed_to_expected == pytest.approx(yy.sum() / pp.sum(), rel=1e-12)
    # Spiegelhalter and Hosmer–Lemeshow of the weighted rows are those of the repeated rows
    sp = np.sum((yy - pp) * (1 - 2 * pp)) / math.sqrt(np.sum((1 - 2 * pp) ** 2 * pp * (1 - pp)))
    assert cal.spiegelhalter.statistic == pytest.approx(sp, rel=1e-12)
    assert cal.spiegelhalter.p_value == pytest.approx(2 * stats.norm.sf(abs(sp)), rel=1e-10)


# --- the default rate interval per grade ----------------------------------------------------------------


@pytest.mark.parametrize(("d", "n"), [(0, 40), (3, 40), (40, 40), (1, 1), (0, 1)])
def test_grade_default_rate_interval_is_the_jeffreys_interval_of_statsmodels_with_the_bcd_ends(d: int, n: int) -> None:
    """statsmodels ``proportion_confint(D, N, alpha=0.05, method="jeffreys")`` (equal-tailed
    Beta(D + ½, N − D + ½) quantiles); Brown, Cai & DasGupta (2001, 4.1.2) set the lower end to 0
    when D = 0 and the upper end to 1 when D = N, the other end unchanged. A grade without defaults
    and a grade of defaults only, through the model (the grade of defaults only at PD 1 too)."""
    from statsmodels.stats.proportion import proportion_confint

    lo, hi = proportion_confint(d, n, alpha=0.05, method="jeffreys")
    want = [0.0 if d == 0 else lo, 1.0 if d == n else hi]
    for pd_ in (0.05, 1.0):
        m = C.credit_model(
            "m",
            C.CreditSample(y=np.arange(n) < d, score=np.full(n, pd_), pd=np.full(n, pd_), grade=np.array(["A"] * n)),
            None,
            "higher",
            C.Grading("column"),
            S,
        )
        assert m.grades[0].dr_interval == pytest.approx(want, rel=1e-10, abs=1e-15)


# --- grades by quantiles, and the PSI over reference score deciles, with ties and weights ------------


def _scorecard(seed: int, n: int) -> tuple[np.ndarray, np.ndarray, np.ndarray]:
    """(default flag, scorecard points in steps of 10: heavy ties, higher = safer; frequency weight)."""
    rng = np.random.default_rng(seed)
    points = rng.integers(30, 70, n) * 10.0
    return rng.random(n) < 1 / (1 + np.exp((points - 420) / 60)), points, rng.integers(1, 4, n)


@pytest.mark.parametrize("direction", ["higher", "lower"])
def test_quantile_grades_of_weighted_tied_scores_are_numpys_quantiles_of_the_repeated_rows(direction: str) -> None:
    """Grades by quantiles of the reference score (no PD): the inner edges are numpy's
    ``quantile`` (linear, R type 7) of the repeated reference values, oriented riskiest last, and a
    row on an edge falls in the riskier grade (``edges[i-1] <= v < edges[i]`` of the oriented
    value v). Scorecard points with heavy ties and frequency weights, given as riskier-higher
    (-points) or safer-higher (points): the same grades, rows and defaults either way."""
    y, points, w = _scorecard(51, 800)
    yr, pr, wr = _scorecard(52, 1200)
    score, ref_score = (points, pr) if direction == "lower" else (-points, -pr)
    m = C.credit_model(
        "m",
        C.CreditSample(y=y, score=score, count=w),
        C.CreditSample(y=yr, score=ref_score, count=wr),
        direction,
        C.Grading("quantiles", quantiles=5),
        S,
    )
    risk_ref, risk = -np.repeat(pr, wr), -np.repeat(points, w)  # oriented: higher = riskier
    edges = np.unique(np.quantile(risk_ref, [0.2, 0.4, 0.6, 0.8]))
    codes = np.searchsorted(edges, risk, side="right")
    want_n = np.bincount(codes, minlength=len(edges) + 1)
    want_d = np.bincount(codes, weights=np.repeat(y, w), minlength=len(edges) + 1)
    assert [g.n for g in m.grades] == want_n.tolist() and [g.defaults for g in m.grades] == want_d.tolist()
    assert m.n == w.sum() and sum(want_n) == m.n
    ref_n = np.bincount(np.searchsorted(edges, risk_ref, side="right"), minlength=len(edges) + 1)
    assert [b.reference_n for b in m.stability.bins] == ref_n.tolist()
    import toad.metrics as toad_metrics

    want_psi = float(toad_metrics.PSI(codes, np.searchsorted(edges, risk_ref, side="right")))
    assert m.stability.psi.statistic == pytest.approx(want_psi, rel=1e-12)


@pytest.mark.parametrize("direction", ["higher", "lower"])
def test_psi_over_reference_score_deciles_matches_toad_on_the_repeated_rows(direction: str) -> None:
    """Graded by a rating column the reference lacks, the PSI runs over deciles of the reference
    scores (``basis`` score_deciles): the bins of the repeated reference rows' deciles (numpy
    ``quantile``), the current rows binned at the same edges, toad 0.1.7 ``PSI`` of the bin codes.
    The Herfindahl test is not defined on deciles (reason no_reference_grades)."""
    import toad.metrics as toad_metrics

    y, points, w = _scorecard(53, 900)
    yr, pr, wr = _scorecard(54, 1500)
    pr = pr + 5.0 * (np.arange(len(pr)) % 3)  # more distinct reference values: ten deciles
    sign = 1.0 if direction == "lower" else -1.0
    grade = np.where(points < 500, "B", "A")
    m = C.credit_model(
        "m",
        C.CreditSample(y=y, score=sign * points, grade=grade, count=w),
        C.CreditSample(y=yr, score=sign * pr, count=wr),
        direction,
        C.Grading("column"),
        S,
    )
    st = m.stability
    assert st.basis == "score_deciles"
    risk_ref, risk = -np.repeat(pr, wr), -np.repeat(points, w)
    edges = np.unique(np.quantile(risk_ref, np.arange(1, 10) / 10))
    cur_codes, ref_codes = np.searchsorted(edges, risk, side="right"), np.searchsorted(edges, risk_ref, side="right")
    assert [b.current_n for b in st.bins] == np.bincount(cur_codes, minlength=len(edges) + 1).tolist()
    assert [b.reference_n for b in st.bins] == np.bincount(ref_codes, minlength=len(edges) + 1).tolist()
    assert st.psi.statistic == pytest.approx(float(toad_metrics.PSI(cur_codes, ref_codes)), rel=1e-12)
    assert st.concentration_test.p_value is None and st.concentration_test.reason == "no_reference_grades"


# --- per period and per segment, with frequency weights ----------------------------------------------------


def _delong_written_out(s: np.ndarray, y: np.ndarray) -> tuple[float, float]:
    """(AUC, DeLong variance) pair by pair, ties one half (DeLong, DeLong & Clarke-Pearson 1988)."""
    pos, neg = s[y], s[~y]
    psi = (pos[:, None] > neg[None, :]) + 0.5 * (pos[:, None] == neg[None, :])
    return float(psi.mean()), float(psi.mean(axis=1).var(ddof=1) / len(pos) + psi.mean(axis=0).var(ddof=1) / len(neg))


@pytest.mark.parametrize("direction", ["higher", "lower"])
def test_periods_and_segments_with_frequency_weights_are_those_of_the_repeated_rows(direction: str) -> None:
    """Per month and per segment: rows, defaults, default rate and mean PD of the repeated rows;
    the AUC (scikit-learn ``roc_auc_score`` with ``sample_weight``), its DeLong 95 % interval
    (written out pair by pair on the repeated rows, ties one half), Gini = 2·AUC − 1 on both ends
    and the KS (scipy ``ks_2samp`` of the repeated rows). Scores with ties, both directions."""
    from sklearn.metrics import roc_auc_score

    rng = np.random.default_rng(61)
    n = 700
    risk = rng.integers(0, 25, n).astype(float)  # higher = riskier
    y = rng.random(n) < 0.03 + risk / 50
    pd_ = np.round(0.02 + risk / 60, 3)
    w = rng.integers(1, 4, n)
    month = np.array(["2024-01-15", "2024-02-10", "2024-03-05"], dtype="datetime64[D]")[rng.integers(0, 3, n)]
    seg = np.array(["card", "loan"])[rng.integers(0, 2, n)]
    score = risk if direction == "higher" else -risk
    m = C.credit_model(
        "m",
        C.CreditSample(y=y, score=score, pd=pd_, dates=month, segment=seg, count=w),
        None,
        direction,
        C.Grading("quantiles", quantiles=4),
        S,
    )
    assert m.period == "month" and [p.key for p in m.periods] == ["2024-01", "2024-02", "2024-03"]
    # the portfolio's accuracy ratio: 2·AUC − 1 and the CAP's area ratio a_R / a_P (Engelmann, Hayden &
    # Tasche 2003), weighted
    ar = 2 * roc_auc_score(y, risk, sample_weight=w) - 1
    assert m.accuracy_ratio == pytest.approx(ar, rel=1e-12)
    a_r = np.trapezoid(np.asarray(m.cap.y), np.asarray(m.cap.x)) - 0.5
    assert a_r / ((1 - np.sum(w * y) / w.sum()) / 2) == pytest.approx(ar, rel=1e-12)
    z = stats.norm.ppf(0.975)
    for groups, keys in ((m.periods, month.astype("datetime64[M]").astype(str)), (m.segments, seg)):
        for g in groups:
            rows = keys == g.key
            yy, rr, pp = np.repeat(y[rows], w[rows]), np.repeat(risk[rows], w[rows]), np.repeat(pd_[rows], w[rows])
            assert (g.n, g.defaults) == (len(yy), yy.sum())
            assert g.default_rate == pytest.approx(yy.mean(), rel=1e-12) and g.mean_pd == pytest.approx(
                pp.mean(), rel=1e-12
            )
            assert g.auc == pytest.approx(roc_auc_score(y[rows], risk[rows], sample_weight=w[rows]), rel=1e-12)
            auc, var = _delong_written_out(rr, yy)
            assert g.auc == pytest.approx(auc, rel=1e-12)
            assert g.auc_ci == pytest.approx([auc - z * math.sqrt(var), auc + z * math.sqrt(var)], rel=1e-10)
            assert g.gini == pytest.approx(2 * auc - 1, rel=1e-12)
            assert g.gini_ci == pytest.approx([2 * v - 1 for v in g.auc_ci], rel=1e-12)
            assert g.ks == pytest.approx(stats.ks_2samp(rr[yy], rr[~yy]).statistic, rel=1e-12)


# --- edge cases: PDs of 0 and 1, one grade only -----------------------------------------------------------


def test_grades_at_pd_zero_and_one_give_scipys_values_and_hosmer_lemeshow_is_undefined() -> None:
    """A grade at PD 0 without defaults, one at PD 1 of defaults only and one in between. Per grade
    (scipy): Jeffreys ``beta.cdf(PD, D + ½, N − D + ½)`` is 0 at PD 0 (the Jeffreys posterior puts
    no mass at 0: a PD of 0 always fails the ECB test, even without defaults; CRR Art. 160(1)
    floors PDs at 0.03 %) and 1 at PD 1; the binomial ``binom.sf(D − 1, N, PD)`` is 1 for D = 0
    and for PD 1. Hosmer–Lemeshow divides by N p (1 − p) = 0: undefined
    (no_defaults_possible), not a χ² value. Spiegelhalter's and the in-the-large sums have no
    term at PD 0 or 1 (variance p(1 − p) = 0): those of the middle grade alone."""
    import warnings

    y = np.array([0, 0, 0, 0, 1, 0, 1, 0, 1, 1, 1], dtype=bool)
    pd_ = np.array([0.0] * 3 + [0.25] * 5 + [1.0] * 3)
    grade = np.array(["A"] * 3 + ["B"] * 5 + ["C"] * 3)
    with warnings.catch_warnings():
        warnings.simplefilter("error")
        m = C.credit_model(
            "m",
            C.CreditSample(y=y, score=pd_, pd=pd_, grade=grade),
            None,
            "higher",
            C.Grading("column", order=("A", "B", "C")),
            S,
        )
    for g, (d, n, p) in zip(m.grades, [(0, 3, 0.0), (2, 5, 0.25), (3, 3, 1.0)], strict=True):
        assert (g.defaults, g.n, g.mean_pd) == (d, n, p)
        assert g.jeffreys.p_value == pytest.approx(stats.beta.cdf(p, d + 0.5, n - d + 0.5), rel=1e-12, abs=0)
        assert g.binomial.p_value == pytest.approx(stats.binom.sf(d - 1, n, p), rel=1e-12)
    assert m.grades[0].jeffreys.p_value == 0.0 and m.grades[2].jeffreys.p_value == 1.0
    cal = m.calibration
    assert cal.hosmer_lemeshow.p_value is None and cal.hosmer_lemeshow.reason == "no_defaults_possible"
    mid = pd_ == 0.25
    sp = np.sum((y[mid] - 0.25) * 0.5) / math.sqrt(mid.sum() * 0.5**2 * 0.25 * 0.75)
    assert cal.spiegelhalter.statistic == pytest.approx(sp, rel=1e-12)
    assert cal.in_the_large_test.statistic == pytest.approx(
        (y.sum() - pd_.sum()) / math.sqrt(5 * 0.25 * 0.75), rel=1e-12
    )
    assert cal.binomial.p_value == pytest.approx(stats.binom.sf(y.sum() - 1, 11, pd_.mean()), rel=1e-12)
    assert cal.jeffreys.p_value == pytest.approx(
        stats.beta.cdf(pd_.mean(), y.sum() + 0.5, 11 - y.sum() + 0.5), rel=1e-12
    )


def test_one_grade_only_gives_the_ecb_concentration_edge_values_and_hl_with_one_df() -> None:
    """Every obligor in one grade (a master scale of one PD) in both samples: HI = 1 (ECB 2019
    2.5.2), the normalised and ECB forms and the CV are undefined for K = 1 (a division by ln 1 and
    by 1 − 1/K) and so is the concentration test (one_grade); the PSI of identical shares is 0;
    Hosmer–Lemeshow has G = 1 df (scipy ``chi2.sf``), its development-sample form G − 2 none; the
    slope is not identified (one PD), the intercept is the closed form logit(D/N) − logit(PD)."""
    y = np.arange(50) < 7
    ref = C.CreditSample(y=np.arange(80) < 8, score=np.full(80, 0.1), pd=np.full(80, 0.1), grade=np.array(["A"] * 80))
    m = C.credit_model(
        "m",
        C.CreditSample(y=y, score=np.full(50, 0.1), pd=np.full(50, 0.1), grade=np.array(["A"] * 50)),
        ref,
        "higher",
        C.Grading("column"),
        S,
    )
    st = m.stability
    for conc in (st.concentration_current, st.concentration_reference):
        assert (conc.herfindahl, conc.normalised, conc.ecb, conc.cv, conc.grades) == (1.0, None, None, None, 1)
    assert st.concentration_test.p_value is None and st.concentration_test.reason == "one_grade"
    assert st.psi.statistic == 0.0 and st.psi.light == "green"
    hl = (7 - 5) ** 2 / (50 * 0.1 * 0.9)
    cal = m.calibration
    assert cal.hosmer_lemeshow.df == 1 and cal.hosmer_lemeshow.statistic == pytest.approx(hl, rel=1e-12)
    assert cal.hosmer_lemeshow.p_value == pytest.approx(stats.chi2.sf(hl, 1), rel=1e-12)
    assert cal.hosmer_lemeshow_g2.p_value is None and cal.hosmer_lemeshow_g2.reason == "too_few_grades"
    assert cal.slope is None and cal.slope_test.reason == "zero_variance"
    assert cal.intercept == pytest.approx(math.log(7 / 43) - math.log(0.1 / 0.9), rel=1e-10)


# --- traffic lights at their boundaries ------------------------------------------------------------------


def test_traffic_lights_at_the_boundaries_follow_the_stated_rule() -> None:
    """The section states: green p ≥ amber, amber red ≤ p < amber, red p < red; PSI green below
    psi_amber, red from psi_red. At each boundary exactly, through the model: a PSI equal to
    psi_amber is amber and equal to psi_red is red; a p equal to amber is green, equal to red amber."""
    ref = C.CreditSample(
        y=np.arange(100) < 10,
        score=np.repeat([0.05, 0.2], 50),
        pd=np.repeat([0.05, 0.2], 50),
        grade=np.repeat(["A", "B"], 50),
    )
    cur = C.CreditSample(
        y=np.arange(100) < 10,
        score=np.repeat([0.05, 0.2], [30, 70]),
        pd=np.repeat([0.05, 0.2], [30, 70]),
        grade=np.repeat(["A", "B"], [30, 70]),
    )
    v = (0.3 - 0.5) * math.log(0.3 / 0.5) + (0.7 - 0.5) * math.log(0.7 / 0.5)

    def light(**kw):
        return C.credit_model("m", cur, ref, "higher", C.Grading("column"), C.CreditSettings(**kw)).stability.psi

    assert light(psi_amber=v, psi_red=1.0).light == "amber"
    assert light(psi_amber=v / 2, psi_red=v).light == "red"
    assert light(psi_amber=math.nextafter(v, 1.0), psi_red=1.0).light == "green"
    assert light().statistic == pytest.approx(v, rel=1e-12)
    jp = C.credit_model("m", cur, None, "higher", C.Grading("column"), S).calibration.jeffreys.p_value
    top = math.nextafter(1.0, 0.0)  # the largest amber level the config allows (0 < amber < 1)
    lights = [
        C.credit_model(
            "m", cur, None, "higher", C.Grading("column"), C.CreditSettings(amber=a, red=r)
        ).calibration.jeffreys.light
        for a, r in ((jp, jp / 2), (top, jp), (top, math.nextafter(jp, 1.0)))
    ]
    assert lights == ["green", "amber", "red"]


# --- the section's glossary: side, null hypothesis, assumptions ---------------------------------------------


def test_the_glossary_states_each_tests_side_null_hypothesis_and_assumptions() -> None:
    """A reader comparing a p-value with another tool's needs the convention beside the formula:
    its side (PDtoolkit's and the ECB's tests are one-sided, rms ``val.prob``'s two-sided, the
    Hosmer–Lemeshow χ² takes its upper tail, which PDs too high and too low both reach), its null
    hypothesis (ECB 2019's Jeffreys and AUC tests, the concentration and migration tests are
    stated with their H0) and what it assumes (independent defaults, BCBS WP14 5.2; a
    normal or χ² approximation; the initial value taken as known, ECB 2019 2.5.2 and 2.6.2). The
    glossary gave the formula and, for some tests, the side: no test stated its H0, and only the
    binomial test its assumption. The PSI and the CAP are not tests: said so, with no H0."""
    from reportgen.report.views.credit import TEST_LABELS

    tests = [
        "jeffreys",
        "binomial",
        "hosmer_lemeshow",
        "spiegelhalter",
        "in_the_large",
        "slope",
        "intercept",
        "auc_history",
        "herfindahl",
        "migration",
    ]
    for key in tests:
        text = TEST_LABELS[key][1]
        assert any(side in text for side in ("one-sided", "two-sided", "upper tail")), key
        assert "H0: " in text, key
        assert "Assumes " in text, key
    for key, side in {
        "jeffreys": "one-sided",
        "binomial": "one-sided",
        "auc_history": "one-sided",
        "herfindahl": "one-sided",
        "migration": "one-sided",
        "spiegelhalter": "two-sided",
        "in_the_large": "two-sided",
        "slope": "two-sided",
        "intercept": "two-sided",
    }.items():
        assert side in TEST_LABELS[key][1], key
    for key in tests:  # every test of default counts assumes independent defaults
        if key not in ("auc_history", "herfindahl", "migration"):
            assert "independent" in TEST_LABELS[key][1], key
    assert "initial AUC known" in TEST_LABELS["auc_history"][1]
    assert "initial CV known" in TEST_LABELS["herfindahl"][1]
    assert "PD of 0 always fails" in TEST_LABELS["jeffreys"][1]
    for key in ("psi", "cap"):
        assert "not a test" in TEST_LABELS[key][1] and "H0" not in TEST_LABELS[key][1], key


def test_the_calibration_figure_shows_a_grade_at_pd_zero_at_the_axis_floor() -> None:
    """On log axes a grade of mean PD 0 was drawn at x = 0, which a log axis cannot show: the grade
    vanished from the calibration figure while its default rate (0) was lifted to the axis' floor.
    Both coordinates are now lifted to the floor, so every grade of the table is a marker inside
    the axes (the PD 1 grade at the top)."""
    from reportgen.report.figures import credit_figure

    y = np.array([0, 0, 0, 0, 1, 0, 1, 0, 1, 1, 1], dtype=bool)
    pd_ = np.array([0.0] * 3 + [0.25] * 5 + [1.0] * 3)
    m = C.credit_model(
        "m",
        C.CreditSample(y=y, score=pd_, pd=pd_, grade=np.array(["A"] * 3 + ["B"] * 5 + ["C"] * 3)),
        None,
        "higher",
        C.Grading("column", order=("A", "B", "C")),
        S,
    )
    ax = credit_figure(m, "#0072B2").axes[0]
    lo, hi = ax.get_xlim()
    (bars,) = ax.containers  # the grades' markers with their Jeffreys intervals
    points = bars.lines[0]
    x, yy = np.asarray(points.get_xdata(), dtype=float), np.asarray(points.get_ydata(), dtype=float)
    assert np.all((x >= lo) & (x <= hi)) and np.all((yy >= lo) & (yy <= hi)), (x, yy, lo, hi)


@pytest.mark.slow
def test_a_run_with_frequency_weights_reports_the_migration_of_obligors_and_says_which_cells_are_weak(
    tmp_path, no_figures
) -> None:
    """End to end (config, memory engine, report): a rating column, ids in both samples and
    frequency weights. The memory engine repeats a row of weight w w times; the migration counts
    the obligors (sum of the weights of the ids in both samples), and the report's caption says
    obligors found by id, not ids. The † note says what the code marks: a grade with few defaults,
    a period or segment with few defaults or few non-defaults (it said 'defaults (or
    non-defaults)' for every cell, but a grade of defaults only is not marked)."""
    import pandas as pd
    import yaml

    from reportgen.config import load_config
    from reportgen.pipeline import analyse
    from reportgen.report.render import render_html

    ids, start, end, w = _migration_case()
    pd_scale = np.array([0.01, 0.03, 0.08, 0.2])
    y = np.arange(len(ids)) % 7 == 0
    for name, g in (("cur.csv", end), ("ref.csv", start)):
        pd.DataFrame(
            {"id": ids, "y": y.astype(int), "pd": pd_scale[g], "rating": np.array(list("ABCD"))[g], "w": w}
        ).to_csv(tmp_path / name, index=False)
    (tmp_path / "c.yaml").write_text(
        yaml.safe_dump(
            {
                "label": "y",
                "id": "id",
                "weight": "w",
                "weight_kind": "frequency",
                "models": [{"name": "m", "file": "cur.csv", "score": "pd", "pd": "pd", "reference": "ref.csv"}],
                "credit": {"grades": {"column": "rating", "order": list("ABCD")}},
                "bootstrap": {"resamples": 0},
            }
        )
    )
    cfg, path = load_config(tmp_path / "c.yaml")
    result = analyse(cfg, path)
    mig = result.credit.models["m"].migration
    want = np.zeros((4, 4))
    np.add.at(want, (start, end), w)
    assert np.array_equal(np.array(mig.counts), want) and mig.matched == w.sum()
    html = render_html(result)
    section = html[html.index('<section id="credit">') :]
    assert f"Grade migration of the {w.sum()} obligors found by id in both samples" in section
    assert (
        "Grades marked † hold fewer than 5 defaults; periods and segments marked †, fewer than 5 defaults or "
        "fewer than 5 non-defaults" in section
    )


# --- concentration and rank order through the model, with weights and an empty grade -------------------------


def test_herfindahl_and_its_ecb_test_through_the_model_are_those_of_the_repeated_rows() -> None:
    """ECB 2019 2.5.2 written out on the repeated rows of both samples: shares s_i over the K grades
    of the scale (an empty one included), HI = Σ s², CV = √(K Σ (s_i − 1/K)²), the ECB form
    1 + ln((CV² + 1)/K)/ln K, and S = √(K − 1)(CV_curr − CV_init)/√(CV_curr²(½ + CV_curr²)),
    p = 1 − Φ(S) (scipy ``norm.sf``)."""
    ids, start, end, w = _migration_case()
    order = tuple("ABCDE")  # grade E of the scale holds nobody
    m = C.credit_model(
        "m",
        _graded_sample(ids, end, w),
        _graded_sample(ids, start, w[::-1]),
        "higher",
        C.Grading("column", order=order),
        S,
    )

    def ecb(codes: np.ndarray, weights: np.ndarray) -> tuple[float, float, float]:
        s = np.bincount(np.repeat(codes, weights), minlength=5) / weights.sum()
        cv = math.sqrt(5 * np.sum((s - 0.2) ** 2))
        return float(np.sum(s**2)), cv, 1 + math.log((cv**2 + 1) / 5) / math.log(5)

    st = m.stability
    for conc, (codes, weights) in (
        (st.concentration_current, (end, w)),
        (st.concentration_reference, (start, w[::-1])),
    ):
        hi, cv, form = ecb(codes, weights)
        assert conc.grades == 5
        assert (conc.herfindahl, conc.cv, conc.ecb) == pytest.approx((hi, cv, form), rel=1e-12)
        assert conc.normalised == pytest.approx((hi - 0.2) / 0.8, rel=1e-12)
    cv0, cv1 = ecb(start, w[::-1])[1], ecb(end, w)[1]
    s_stat = 2 * (cv1 - cv0) / math.sqrt(cv1**2 * (0.5 + cv1**2))
    assert st.concentration_test.statistic == pytest.approx(s_stat, rel=1e-12)
    assert st.concentration_test.p_value == pytest.approx(stats.norm.sf(s_stat), rel=1e-10)


def test_rank_order_is_checked_against_the_previous_grade_with_rows_and_ties_do_not_break_it() -> None:
    """The rank-order (monotonicity) check along the rating scale: a grade breaks it when its
    default rate is below the previous grade's with rows (an empty grade between them is skipped);
    an equal default rate does not break it. Written out on weighted rows: grades A 1/10, B empty,
    C 1/10 (tie: no break), D 0/5 (break), E 3/6."""
    grade = np.array(["A", "A", "C", "C", "D", "E", "E"])
    y = np.array([1, 0, 1, 0, 0, 1, 0], dtype=bool)
    w = np.array([1, 9, 1, 9, 5, 3, 3])
    pd_ = np.array([0.05, 0.05, 0.1, 0.1, 0.2, 0.4, 0.4])
    m = C.credit_model(
        "m",
        C.CreditSample(y=y, score=pd_, pd=pd_, grade=grade, count=w),
        None,
        "higher",
        C.Grading("column", order=tuple("ABCDE")),
        S,
    )
    assert [(g.grade, g.n, g.defaults) for g in m.grades] == [
        ("A", 10, 1),
        ("B", 0, 0),
        ("C", 10, 1),
        ("D", 5, 0),
        ("E", 6, 3),
    ]
    assert [g.monotonic_violation for g in m.grades] == [False, False, False, True, False] and not m.monotonic
    assert m.grades[1].default_rate is None and m.grades[1].dr_interval is None and m.grades[1].jeffreys is None


def test_a_row_of_frequency_weight_zero_is_no_row_to_the_last_bit() -> None:
    """A weight is how many times a row repeats: weight 0 is a row that is not there. The readers
    drop such rows; a sample handed to the battery with counts of 0 kept them in its sums, where
    they changed the order of the float additions: the mean PD, Jeffreys, binomial, Spiegelhalter,
    slope and intercept moved in the last digits (0.15908196721311470 against …474). Now the
    battery's numbers are those of the sample without them, exactly."""
    rng = np.random.default_rng(9)
    n = 300
    pd_ = np.round(rng.uniform(0.01, 0.3, n), 2)
    y, w = rng.random(n) < pd_, rng.integers(0, 3, n)
    seg = np.array(["a", "b"])[rng.integers(0, 2, n)]
    ref = C.CreditSample(y=rng.random(n) < pd_, score=pd_, pd=pd_)
    kept = w > 0
    for grading in (C.Grading("quantiles", quantiles=5), C.Grading("edges", edges=(0.05, 0.1))):
        with_zeros = C.credit_model(
            "m", C.CreditSample(y=y, score=pd_, pd=pd_, count=w, segment=seg), ref, "higher", grading, S
        )
        without = C.credit_model(
            "m",
            C.CreditSample(y=y[kept], score=pd_[kept], pd=pd_[kept], count=w[kept], segment=seg[kept]),
            ref,
            "higher",
            grading,
            S,
        )
        assert to_jsonable(with_zeros) == to_jsonable(without)
