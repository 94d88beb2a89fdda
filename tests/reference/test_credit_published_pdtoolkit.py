"""Verified cases: the credit battery (reportgen/engine/credit.py) against the values PDtoolkit's
published case study prints, for statistics the other reference files pin only to a formula, to a
symmetric case or to an independent implementation run there.

Pinned by the other reference files, and to what:

* published numbers: the binomial test per grade (meliora's table), Jeffreys (meliora: the
  symmetric D = 2 of 4 at PD ½ only), Hosmer–Lemeshow (meliora, two grades), Spiegelhalter
  (meliora), PSI without empty bins (meliora, ln 3), Herfindahl / CV / the ECB concentration
  test (meliora), the migration bandwidths (MathWorks, meliora) and cell test (meliora), the
  accuracy ratio with a tie (meliora ``gini``, scipy ``somersd``), KS (meliora), the default-rate
  interval (RSurveillance, DescTools), the per-segment AUC interval and the σ of the ECB AUC test
  (pROC on aSAH);
* a formula or another implementation only: calibration in the large, the ECB AUC test's
  statistic and p, the AUC and AR of grades with heavy ties in a book's size, the Jeffreys test
  away from the symmetric case, Hosmer–Lemeshow over more than two grades, the PSI of a bin empty
  in one sample.

The source here: the PDtoolkit case study (R, CRAN; README.md of
github.com/andrija-djurovic/PDtoolkit, "PDtoolkit 1.0.0", the German credit ``loans`` data): a
six-grade master scale whose application portfolio it prints grade by grade (rows ``no``,
defaults ``nb``, calibrated PD ``pdc`` to 7 decimals) with the p-values of ``pp.testing``
(binomial, Jeffreys, z-score per grade; Hosmer–Lemeshow over the scale) and of ``dp.testing``
(the current AUC against the development AUC). The conventions are those of its code
(``R/12_PREDICTIVE_POWER.R``, ``R/14_DISCRIMINATORY_POWER.R``, as read):

* binomial ``pbinom(nb − 1, no, pdc, lower.tail = FALSE)``, Jeffreys ``pbeta(pdc, nb + ½, no − nb + ½)``
  — the battery's, to the printed digits;
* Hosmer–Lemeshow χ² with k (the number of grades) degrees of freedom — the battery's (G df);
* z-score ``(odr − pdc)/√(pdc(1 − pdc)/no)``, upper tail — the battery's calibration in the large
  of one grade, whose p-value is two-sided (a convention difference, stated in the glossary);
* ``dp.testing``: test.stat = (AUC − AUC_dev)/σ, ``alternative = "less"``: p = Φ(test.stat), σ from
  Hanley & McNeil (1982). The battery's ECB test is S = (AUC_init − AUC_curr)/σ, p = 1 − Φ(S) — the
  same tail — with DeLong's σ (the ECB's estimator, as test_credit_published.py checks): the p-values differ by the
  σ alone (0.290 against PDtoolkit's 0.306 here). Both are defensible; README says which we use.

The application portfolio's rows are rebuilt from the printed grade table: its AUC is computed on
the grades' PDs (six values, heavy ties), so the table determines it, and the printed AUCs
(0.7821032 current, 0.79465 development) check the rebuilding.

And the PSI of a bin empty in one sample, where published tools disagree (meliora's documented
``smoothing = 0.5`` on every cell, PDtoolkit's ``psi`` ∞, toad 0.1.7 leaving the bin out): the
battery's rule (half a row in the empty cell only) against each, stated in README.

Not in the battery, so not checked: Brier score and its decomposition, information value / WoE,
the binomial test with asset correlation (Vasicek one-factor), Basel traffic-light zones.
"""

from __future__ import annotations

import json
import math

import numpy as np
import pytest
from scipy import stats

import reportgen.engine.credit as C

S = C.CreditSettings()

# --- PDtoolkit's case study, as printed (README.md, ``rs.ap`` and ``pp.testing``) ----------------------------------

LABELS = ("01 (-Inf,473)", "02 [473,482)", "03 [482,506)", "04 [506,515)", "05 [515,547)", "06 [547,Inf)")
#: Rating 01 is the riskiest (lowest score): the scale best first is the reverse of the labels' order.
SCALE = tuple(reversed(LABELS))
PDC = ("0.7400826", "0.6069830", "0.3750350", "0.2516151", "0.1537853", "0.0500000")
NO = (47, 35, 93, 53, 131, 141)
NB = (36, 21, 37, 15, 22, 11)
BINOMIAL = ("0.4159984", "0.6059111", "0.3613128", "0.3479606", "0.3621511", "0.0966087")
JEFFREYS = ("0.35159815", "0.53854844", "0.32231637", "0.29276184", "0.31876653", "0.07085215")
ZSCORE = ("0.34293973", "0.53370338", "0.32475205", "0.29914802", "0.32669329", "0.06346722")
HOSMER_LEMESHOW = "0.7851538"
#: The development sample (``rs``): rows and defaults per grade; the AUC depends only on the grades' order.
DEV_NO = (99, 72, 196, 100, 267, 266)
DEV_NB = (75, 46, 83, 30, 52, 14)
DEV_PD = (0.740, 0.607, 0.375, 0.252, 0.154, 0.05)  # printed to 3 decimals; only their order matters here
#: ``auc.model`` and ``dp.testing`` as printed.
AUC_DEV, AUC_APP = "0.79465", "0.7821032"
DP_SE, DP_STAT, DP_P = "0.0247617", "-0.5067005", "0.3061825"

PD_HALF_UNIT = 0.5e-7  # the PDs are printed to 7 decimals


def _half_unit(printed: str) -> float:
    """Half a unit in the last printed digit."""
    return 0.5 * 10.0 ** -len(printed.split(".")[1])


def _tolerance(f, pd: float, printed: str) -> float:
    """What the print allows: half a unit of the printed p-value plus how far the published formula
    ``f`` (scipy, independent of the battery) moves when the PD moves within its own rounding."""
    spread = max(abs(f(pd + PD_HALF_UNIT) - f(pd)), abs(f(pd - PD_HALF_UNIT) - f(pd)))
    return _half_unit(printed) + 1.01 * spread


def _book(no, nb, pd, labels=LABELS) -> C.CreditSample:
    """One row per obligor of a printed grade table: the grade's PD as PD and score."""
    g = np.repeat(np.arange(len(no)), no)
    y = np.concatenate([np.arange(n) < d for n, d in zip(no, nb, strict=True)])
    p = np.asarray(pd, dtype=float)[g]
    return C.CreditSample(y=y, score=p, pd=p, grade=np.asarray(labels)[g])


def _application() -> C.CreditSample:
    return _book(NO, NB, [float(v) for v in PDC])


def _development() -> C.CreditSample:
    return _book(DEV_NO, DEV_NB, DEV_PD)


# --- calibration per grade and over the scale ------------------------------------------------------------------------


def test_grade_tests_and_hosmer_lemeshow_reproduce_pdtoolkits_published_case_study() -> None:
    """PDtoolkit ``pp.testing`` on its case study's application portfolio, six grades of 35 to 141
    obligors at PDs 5 % … 74 %: the battery's binomial p = P(X ≥ D) and Jeffreys p = Beta(D + ½,
    N − D + ½) CDF at the PD per grade, and Hosmer–Lemeshow with G = 6 degrees of freedom, equal the
    printed values to their last digit (allowing for the PDs' own 7-decimal rounding). The
    Jeffreys test had been pinned to a published value only where the posterior is symmetric
    (p = ½), Hosmer–Lemeshow only over two grades. The G − 2 development-sample convention gives
    another p (0.527), which is why the battery keeps it out of the verdict."""
    m = C.credit_model("m", _application(), None, "higher", C.Grading("column", order=SCALE), S)
    by_label = {g.grade: g for g in m.grades}
    assert [g.grade for g in m.grades] == list(SCALE) and m.monotonic  # default rates fall along the scale
    for label, pd_s, no, nb, binom_s, jeff_s in zip(LABELS, PDC, NO, NB, BINOMIAL, JEFFREYS, strict=True):
        g, pd = by_label[label], float(pd_s)
        assert (g.n, g.defaults) == (no, nb) and g.mean_pd == pytest.approx(pd, rel=1e-12)
        tol_b = _tolerance(lambda p, nb=nb, no=no: stats.binom.sf(nb - 1, no, p), pd, binom_s)
        tol_j = _tolerance(lambda p, nb=nb, no=no: stats.beta.cdf(p, nb + 0.5, no - nb + 0.5), pd, jeff_s)
        assert abs(g.binomial.p_value - float(binom_s)) <= tol_b, (label, g.binomial.p_value, binom_s, tol_b)
        assert abs(g.jeffreys.p_value - float(jeff_s)) <= tol_j, (label, g.jeffreys.p_value, jeff_s, tol_j)
        assert tol_b < 1e-6 and tol_j < 1e-6  # the check is to about six digits, not loose
    hl = m.calibration.hosmer_lemeshow
    assert hl.df == 6 and abs(hl.p_value - float(HOSMER_LEMESHOW)) <= _half_unit(HOSMER_LEMESHOW) + 1e-8
    assert hl.light == "green" and not m.calibration.failures
    assert round(m.calibration.hosmer_lemeshow_g2.p_value, 3) == 0.527  # χ² with 4 df: not PDtoolkit's number


def test_calibration_in_the_large_of_one_grade_is_pdtoolkits_zscore_test_two_sided() -> None:
    """PDtoolkit's ``zscore.test``: z = (DR − PD)/√(PD(1 − PD)/N), p = 1 − Φ(z) (H0: DR ≤ PD). For a
    book of one grade the battery's calibration in the large, z = (D − Σp)/√Σp(1 − p), is that z;
    its p-value is two-sided (the glossary says so: PDs too high fail too), 2·min(Φ(z), 1 − Φ(z)).
    Each of the six printed grades as a book of its own: the printed one-sided p-value is 1 − Φ of
    the battery's z, and the battery's p is twice the smaller tail."""
    for label, pd_s, no, nb, z_s in zip(LABELS, PDC, NO, NB, ZSCORE, strict=True):
        pd = float(pd_s)
        m = C.credit_model("m", _book((no,), (nb,), (pd,), (label,)), None, "higher", C.Grading("column"), S)
        t = m.calibration.in_the_large_test
        tol = _tolerance(lambda p, nb=nb, no=no: stats.norm.sf((nb / no - p) / math.sqrt(p * (1 - p) / no)), pd, z_s)
        assert abs(stats.norm.sf(t.statistic) - float(z_s)) <= tol, (label, t.statistic, z_s)
        assert t.p_value == pytest.approx(2 * min(stats.norm.sf(t.statistic), stats.norm.cdf(t.statistic)), rel=1e-10)
        assert m.calibration.in_the_large == pytest.approx(nb / no - pd, rel=1e-12, abs=1e-15)


# --- discrimination: the AUC of tied grades and the test against the development AUC --------------------------------


def _delong_se(score: np.ndarray, y: np.ndarray) -> float:
    """DeLong's standard error written out pair by pair, ties counting one half (the σ of the ECB test,
    as test_credit_published.py writes it)."""
    pos, neg = score[y], score[~y]
    psi = (pos[:, None] > neg[None, :]) + 0.5 * (pos[:, None] == neg[None, :])
    return math.sqrt(psi.mean(axis=1).var(ddof=1) / len(pos) + psi.mean(axis=0).var(ddof=1) / len(neg))


def _hanley_mcneil_se(auc: float, defaults: int, non_defaults: int) -> float:
    """PDtoolkit ``dp.testing``'s σ (Hanley & McNeil 1982): Q1 = A/(2 − A), Q2 = 2A²/(1 + A)."""
    q1, q2 = auc / (2 - auc), 2 * auc**2 / (1 + auc)
    return math.sqrt(
        (auc * (1 - auc) + (defaults - 1) * (q1 - auc**2) + (non_defaults - 1) * (q2 - auc**2))
        / (defaults * non_defaults)
    )


def test_auc_of_tied_grade_pds_and_the_ecb_test_against_the_development_auc_reproduce_pdtoolkit() -> None:
    """PDtoolkit's case study scores each obligor by its grade's PD: six values, heavy ties. Published:
    the development AUC 0.79465 (1000 obligors), the application portfolio's 0.7821032 (500), and
    ``dp.testing``'s σ 0.0247617, test.stat −0.5067005 and p 0.3061825. Through the battery, the
    development sample as the reference (no ``initial_auc``: the reference's AUC is the initial one):

    * the current and initial AUC are the printed ones, and the accuracy ratio 2·AUC − 1 with them;
    * PDtoolkit's σ formula on the battery's AUC and counts gives the printed σ, test statistic and p
      (so the rebuilt book is the published one);
    * the battery's test takes the same tail — S = (AUC_init − AUC_curr)/σ = −test.stat and
      1 − Φ(S) = Φ(test.stat) at PDtoolkit's σ, 0.3061825 — but DeLong's σ, 0.0227 (written out pair
      by pair), so its p is 0.290: a convention difference (Hanley & McNeil's σ assumes exponential
      score distributions; DeLong's is the ECB's nonparametric estimator), stated in README."""
    m = C.credit_model("m", _application(), _development(), "higher", C.Grading("column", order=SCALE), S)
    h = m.auc_history
    assert h.source == "reference"
    assert abs(h.initial_auc - float(AUC_DEV)) <= 0.5e-7 and abs(h.current_auc - float(AUC_APP)) <= _half_unit(AUC_APP)
    assert m.stability.reference_auc == pytest.approx(h.initial_auc, rel=1e-15)
    assert (
        m.accuracy_ratio == pytest.approx(2 * h.current_auc - 1, rel=1e-12) and round(m.accuracy_ratio, 6) == 0.564206
    )
    # the CAP of six tied grades: its vertices are the grades' cumulative shares, riskiest first, and its area
    # ratio a_R / a_P (Engelmann, Hayden & Tasche 2003) is the published AUC's 2·AUC − 1
    x, y = np.asarray(m.cap.x), np.asarray(m.cap.y)
    want_x = np.r_[0, np.cumsum(NO)] / sum(NO)
    want_y = np.r_[0, np.cumsum(NB)] / sum(NB)
    assert x[np.isin(np.round(x, 12), np.round(want_x, 12))].size >= len(want_x)
    assert np.interp(want_x, x, y) == pytest.approx(want_y, rel=1e-12, abs=1e-15)
    a_r, a_p = np.trapezoid(y, x) - 0.5, (1 - sum(NB) / sum(NO)) / 2
    assert abs(a_r / a_p - (2 * float(AUC_APP) - 1)) <= 2 * _half_unit(AUC_APP)

    defaults = sum(NB)
    hm = _hanley_mcneil_se(h.current_auc, defaults, sum(NO) - defaults)
    stat = (h.current_auc - float(AUC_DEV)) / hm
    assert abs(hm - float(DP_SE)) <= _half_unit(DP_SE) and abs(stat - float(DP_STAT)) <= _half_unit(DP_STAT)
    assert abs(stats.norm.cdf(stat) - float(DP_P)) <= _half_unit(DP_P)
    # the battery's mapping from (initial AUC, current AUC, σ) to S and p is PDtoolkit's at its σ
    s_at_hm = (h.initial_auc - h.current_auc) / float(DP_SE)
    assert abs(s_at_hm + float(DP_STAT)) <= 1e-6 and abs(float(C.norm_sf(s_at_hm)) - float(DP_P)) <= 1e-6

    app = _application()
    delong = _delong_se(app.score, np.asarray(app.y))
    assert h.se == pytest.approx(delong, rel=1e-12) and round(h.se, 4) == 0.0227 and abs(h.se - hm) > 1e-3
    assert h.test.statistic == pytest.approx((h.initial_auc - h.current_auc) / delong, rel=1e-10)
    assert h.test.p_value == pytest.approx(stats.norm.sf(h.test.statistic), rel=1e-10)
    assert round(h.test.p_value, 3) == 0.290 and round(float(DP_P), 3) == 0.306 and h.test.light == "green"


@pytest.mark.parametrize("direction", ["higher", "lower"])
def test_the_published_auc_with_ties_holds_for_a_safer_higher_score_and_for_counts(direction: str) -> None:
    """The same books given as a scorecard's points (higher = safer, ``direction: lower``) and as
    distinct rows with counts (what the streamed engines hand the battery): the printed AUCs."""
    sign = 1.0 if direction == "higher" else -1.0

    def counted(no, nb, pd) -> C.CreditSample:
        pd = np.asarray(pd, dtype=float)
        y = np.r_[np.ones(len(no), bool), np.zeros(len(no), bool)]
        p = np.r_[pd, pd]
        return C.CreditSample(y=y, score=sign * p, pd=p, count=np.r_[nb, np.subtract(no, nb)])

    m = C.credit_model(
        "m",
        counted(NO, NB, [float(v) for v in PDC]),
        counted(DEV_NO, DEV_NB, DEV_PD),
        direction,
        C.Grading("quantiles", quantiles=6),
        S,
    )
    h = m.auc_history
    assert abs(h.current_auc - float(AUC_APP)) <= _half_unit(AUC_APP) and abs(h.initial_auc - float(AUC_DEV)) <= 0.5e-7
    assert h.se == pytest.approx(_delong_se(_application().score, np.asarray(_application().y)), rel=1e-10)


# --- PSI: a bin empty in one sample -----------------------------------------------------------------------------------


def test_psi_of_a_grade_empty_now_is_finite_and_red_where_published_tools_disagree() -> None:
    """A grade holding 20 % of the reference and nobody now. Published conventions differ:

    * PDtoolkit ``psi`` (``R/15_PSI.R``): (pct.base − pct.target)·log(pct.base/pct.target) with
      pct.target 0: +∞;
    * meliora ``population_stability_index`` (reference page): ``smoothing = 0.5`` added to *every*
      sample/bin cell before the shares;
    * toad 0.1.7 ``metrics.PSI`` (run here): the bin's term is NaN and its sum skips it — the grade
      that emptied adds nothing, PSI 0.047, green;
    * the battery: half a row in the empty cell only (README, ``EMPTY_RULE``), 0.765, red.

    The battery's value is finite, flags the shift, and equals the plain PSI of the shares with the
    half row; it differs from meliora's smoothing only in the cells that were not empty."""
    ref, cur = np.array([50, 30, 20]), np.array([60, 40, 0])
    ours, e, a, _ = C.psi(ref, cur)
    half = np.array([60, 40, 0.5]) / 100.5
    assert a == pytest.approx(half, rel=1e-15) and e == pytest.approx(ref / 100, rel=1e-15)
    assert ours == pytest.approx(float(np.sum((half - e) * np.log(half / e))), rel=1e-12)
    assert round(ours, 3) == 0.765 and ours >= S.psi_red
    with np.errstate(divide="ignore"):
        pdtoolkit = float(np.sum((ref / 100 - cur / 100) * np.log((ref / 100) / (cur / 100))))
    assert pdtoolkit == math.inf
    es, as_ = (ref + 0.5) / (ref + 0.5).sum(), (cur + 0.5) / (cur + 0.5).sum()
    meliora = float(np.sum((as_ - es) * np.log(as_ / es)))
    assert round(meliora, 3) == 0.777 and abs(meliora - ours) > 1e-3
    import warnings

    import toad.metrics as toad_metrics

    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        toad = float(toad_metrics.PSI(np.repeat([0, 1], [60, 40]), np.repeat([0, 1, 2], [50, 30, 20])))
    drop = (0.6 - 0.5) * math.log(0.6 / 0.5) + (0.4 - 0.3) * math.log(0.4 / 0.3)
    assert toad == pytest.approx(drop, rel=1e-12) and toad < S.psi_amber

    # through the model: the reference's third grade is empty now; the PSI is the battery's rule
    def book(counts):
        return _book(counts, (0,) * len(counts), (0.01, 0.05, 0.2), ("A", "B", "C"))

    m = C.credit_model(
        "m", book((60, 40, 0)), book((50, 30, 20)), "higher", C.Grading("column", order=("A", "B", "C")), S
    )
    assert m.stability.psi.statistic == pytest.approx(ours, rel=1e-12) and m.stability.psi.light == "red"


# --- the published case study through a whole run, in every engine ------------------------------------------------


@pytest.mark.parametrize("weighted", [False, True])
@pytest.mark.parametrize("engine", ["memory", "stream", "dask"])
def test_a_run_reproduces_pdtoolkits_published_numbers_in_every_engine(
    tmp_path, engine: str, weighted: bool, request
) -> None:
    """The case study's two samples as CSV files (the application portfolio as the model's file, the
    development sample as its reference, the rating column with its scale best first), through
    ``load_config`` and ``analyse``: the result's credit section gives the printed per-grade
    binomial and Jeffreys p-values, Hosmer–Lemeshow's, the current and development AUCs, in memory
    and in the streamed (batches of 1,000 rows: the reference's 1,000 and the 500 current rows in
    distinct-row counts) and Dask engines alike. Weighted: each sample as its grade table, one row
    per (grade, default flag) with the obligors as a frequency weight (``weight_kind: frequency``,
    a row of weight w is w obligors): the same published numbers."""
    import pandas as pd
    import yaml

    from reportgen.config import load_config
    from reportgen.pipeline import analyse

    rng = np.random.default_rng(5)
    for name, sample in (("app.csv", _application()), ("dev.csv", _development())):
        frame = pd.DataFrame({"y": sample.y.astype(int), "pd": sample.pd, "rating": sample.grade})
        if weighted:
            frame = frame.groupby(["rating", "y", "pd"], as_index=False).size().rename(columns={"size": "w"})
        frame.iloc[rng.permutation(len(frame))].to_csv(tmp_path / name, index=False)  # in no particular order
    config = {
        "label": "y",
        "threshold": 0.3,
        "bootstrap": {"resamples": 0},
        "models": [{"name": "m", "file": "app.csv", "score": "pd", "pd": "pd", "reference": "dev.csv"}],
        "credit": {"grades": {"column": "rating", "order": list(SCALE)}},
    }
    if weighted:
        config |= {"weight": "w", "weight_kind": "frequency"}
    (tmp_path / "c.yaml").write_text(yaml.safe_dump(config, allow_unicode=True))
    cfg, path = load_config(tmp_path / "c.yaml")
    over: dict = {"engine": engine, "stream": {"batch_rows": 1000}}
    if engine == "dask":
        over["scheduler"] = request.getfixturevalue("scheduler")
    m = analyse(cfg.with_overrides(**over), path).credit.models["m"]
    by_label = {g.grade: g for g in m.grades}
    for label, pd_s, no, nb, binom_s, jeff_s in zip(LABELS, PDC, NO, NB, BINOMIAL, JEFFREYS, strict=True):
        g, p = by_label[label], float(pd_s)
        assert (g.n, g.defaults) == (no, nb)
        assert abs(g.binomial.p_value - float(binom_s)) <= _tolerance(
            lambda q, nb=nb, no=no: stats.binom.sf(nb - 1, no, q), p, binom_s
        )
        assert abs(g.jeffreys.p_value - float(jeff_s)) <= _tolerance(
            lambda q, nb=nb, no=no: stats.beta.cdf(q, nb + 0.5, no - nb + 0.5), p, jeff_s
        )
    assert m.calibration.hosmer_lemeshow.df == 6
    assert abs(m.calibration.hosmer_lemeshow.p_value - float(HOSMER_LEMESHOW)) <= _half_unit(HOSMER_LEMESHOW) + 1e-8
    h = m.auc_history
    assert abs(h.current_auc - float(AUC_APP)) <= _half_unit(AUC_APP) and abs(h.initial_auc - float(AUC_DEV)) <= 0.5e-7
    assert round(h.test.p_value, 3) == 0.290 and h.source == "reference"


# --- the side of each p-value, as metrics.json describes it ----------------------------------------------------------


def test_the_metrics_json_description_of_a_credit_p_value_gives_each_tests_side_as_the_glossary() -> None:
    """The sides differ between tools (PDtoolkit's z-score test one-sided, ours two-sided; its
    ``dp.testing`` and our ECB AUC test the same lower tail of the AUC), so a reader comparing a
    ``metrics.json`` p-value with another tool's needs the side where the number is. The schema's
    description of ``CreditTest.p_value`` said "two-sided for the z tests", but the ECB
    concentration test is a z test with a one-sided p (1 − Φ(S)), as the section's glossary says; now
    the description names every test with the glossary's side."""
    from dataclasses import fields

    from reportgen.report.views.credit import TEST_LABELS
    from reportgen.results import json_schema
    from reportgen.section_results import CreditTest

    doc = next(f for f in fields(CreditTest) if f.name == "p_value").metadata["description"]
    one_sided, two_sided = doc.split("two-sided", 1)
    words = {
        "jeffreys": "Jeffreys",
        "binomial": "binomial",
        "auc_history": "initial AUC",
        "herfindahl": "concentration",
        "hosmer_lemeshow": "Hosmer-Lemeshow",
        "spiegelhalter": "Spiegelhalter",
        "in_the_large": "calibration in the large",
        "slope": "slope",
        "intercept": "intercept",
    }
    for key, word in words.items():
        glossary = TEST_LABELS[key][1]
        where = two_sided if "two-sided" in glossary else one_sided
        assert word in where, (key, word, doc)
    assert (
        "Hosmer-Lemeshow" in one_sided
        and "upper tail" in one_sided
        and "upper tail" in TEST_LABELS["hosmer_lemeshow"][1]
    )
    assert json.dumps(json_schema(), ensure_ascii=False).count(json.dumps(doc, ensure_ascii=False)[1:-1]) == 1
