"""The credit validation section's view: ready-formatted strings, sentences and flags.

Every number is formatted here by :mod:`reportgen.report.formats`, as every other section's is
(the template only displays); this module also writes the sentences (what is red and why, what
could not be computed) and the labels of the tests.
"""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from dataclasses import dataclass
from typing import Any

from reportgen.report.formats import (
    fmt_ci,
    fmt_ci_pct,
    fmt_count,
    fmt_level,
    fmt_num,
    fmt_p,
    fmt_pct,
    fmt_points,
    fmt_pvalue,
    fmt_share,
    fmt_share_of_sum,
)
from reportgen.report.labels import CREDIT_TEST_NAMES as _N
from reportgen.report.labels import credit_failure_names
from reportgen.results import ModelResult
from reportgen.section_results import (
    Concentration,
    CreditAucHistory,
    CreditGrade,
    CreditGroup,
    CreditModel,
    CreditSection,
    CreditTest,
)

__all__ = ["CAPABILITY_TEXT", "TEST_LABELS", "CreditView", "auc_reference", "credit_view", "summary_notes"]

#: Label and formula of each portfolio test (the section's own glossary).
TEST_LABELS: dict[str, tuple[str, str]] = {
    "jeffreys": (
        _N["jeffreys"],
        "p = Beta(D + ½, N − D + ½) CDF at the mean PD; one-sided: a small p says the PD is too low. "
        "H0: the true default rate is at most the PD. Assumes independent defaults and the "
        "Jeffreys prior Beta(½, ½); a PD of 0 always fails (the posterior has no mass at 0).",
    ),
    "binomial": (
        _N["binomial"],
        "p = P(X ≥ D), X ~ Bin(N, mean PD); one-sided: a small p says the PD is too low; "
        "statistic D − N·PD. H0: the true default rate is at most the PD. Assumes independent "
        "defaults (no asset correlation), one PD for the grade's obligors.",
    ),
    "hosmer_lemeshow": (
        _N["hosmer_lemeshow"],
        "H = Σ (D_g − N_g p_g)² / (N_g p_g (1 − p_g)), χ² with G degrees of freedom (G grades with rows), "
        "its upper tail: PDs too high and too low both make H large. H0: every grade's default "
        "probability equals its mean PD. Assumes independent defaults, PDs not fitted on this sample "
        "(the current sample is an independent validation sample, not the development sample: G − 2; "
        "that p-value is in metrics.json as hosmer_lemeshow_g2, outside the verdict) and N_g p_g (1 − p_g) "
        "large enough for the χ² approximation; undefined for a grade at PD 0 or 1.",
    ),
    "spiegelhalter": (
        _N["spiegelhalter"],
        "z = Σ (y − p)(1 − 2p) / √Σ (1 − 2p)² p (1 − p) over rows; two-sided. "
        "H0: every obligor defaults with probability its PD. Assumes independent "
        "defaults and the normal approximation of z.",
    ),
    "in_the_large": (
        _N["in_the_large"],
        "z = (D − Σp) / √Σ p(1 − p); two-sided. Shown with DR − mean PD and O/E = D / Σp. "
        "H0: the expected number of defaults is Σp. Assumes independent defaults and "
        "the normal approximation of the default count.",
    ),
    "slope": (
        _N["slope"],
        "b of logit P(default) = a + b·logit(PD) by maximum likelihood; Wald z = (b − 1)/se, two-sided. "
        "H0: b = 1. Assumes independent defaults and the large-sample (Wald) normal approximation; "
        "PDs clipped to [10⁻¹², 1 − 10⁻¹²].",
    ),
    "intercept": (
        _N["intercept"],
        "a of logit P(default) = a + logit(PD) (slope fixed at 1); Wald z = a/se, two-sided. "
        "H0: a = 0. Assumes independent defaults and the large-sample (Wald) normal "
        "approximation.",
    ),
    "auc_history": (
        _N["auc_history"],
        "S = (AUC_init − AUC_curr) / σ_curr, σ from DeLong; p = 1 − Φ(S), one-sided: a small p says the AUC "
        "has fallen. H0: the current AUC is at least the initial one. Assumes the initial AUC known "
        "(no variance of its own) and the normal approximation of the current AUC.",
    ),
    "psi": (
        _N["psi"],
        "PSI = Σ (a − e) ln(a / e), a and e the current and reference shares; a bin empty in one sample counts half a row "
        "there; a bin empty in both is left out. An index, not a test: no p-value; its lights are the rule-of-thumb "
        "levels (Siddiqi 2006).",
    ),
    "herfindahl": (
        _N["herfindahl"],
        "HI = Σ s² of the grade shares; normalised (HI − 1/K)/(1 − 1/K); CV = √(K Σ (s − 1/K)²), ECB form "
        "1 + ln((CV² + 1)/K)/ln K. Test of the current against the initial (reference) concentration: "
        "S = √(K − 1)(CV_curr − CV_init)/√(CV_curr²(½ + CV_curr²)), p = 1 − Φ(S), one-sided: a small p says "
        "the grades became more concentrated. H0: CV_curr ≤ CV_init. Assumes the initial CV known (as the "
        "ECB does) and the normal approximation of the current CV.",
    ),
    "cap": (
        _N["cap"],
        "Share of defaults captured against share of rows taken riskiest first; AR = 2·AUC − 1. A curve, "
        "not a test. On the summary's rows the AR's interval is the summary's Gini interval (one number on "
        "the page); elsewhere, and in metrics.json's accuracy_ratio_ci, Engelmann, Hayden & Tasche's (2003; "
        "BCBS WP14): normal, 2(U ∓ z·σ) − 1 with Bamber's (1975) unbiased variance σ² of the AUC U, ends cut "
        "at ±1 (the ECB AUC test and the per-period intervals use DeLong's variance).",
    ),
    "binomial_correlated": (
        _N["binomial_correlated"],
        "p = P(D\u2032 ≥ D), D\u2032 the defaults of N obligors whose latent variables share one normal factor with asset "
        "correlation \u03c1 (Vasicek's one-factor model, the Basel IRB formula's): ∫ P(Bin(N, Φ((Φ⁻¹(PD) − √\u03c1·z)/√(1 − \u03c1))) "
        "≥ D) φ(z) dz; one-sided: a small p says the PD is too low even allowing for defaults that move together "
        "(Tasche 2003; BCBS WP14). The critical number of defaults is the large-portfolio one: the smallest D above "
        "N·Φ((Φ⁻¹(PD) + √\u03c1·Φ⁻¹(1 − amber))/√(1 − \u03c1)). \u03c1: credit.asset_correlation. Shown beside the independent "
        "tests, outside the light.",
    ),
    "power": (
        _N["power"],
        "Critical D: the fewest defaults at which the test turns amber (p < amber). Power: the chance of that, "
        "P(X ≥ critical D) with X ~ Bin(N, PD × credit.power_ratio), exact: how likely the test was to see a "
        "default rate that much above the PD. A low power makes a green light weak evidence.",
    ),
    "period_normal": (
        _N["period_normal"],
        "S = Σ e_t / (√T·τ), e_t = DR_t − mean PD_t over the T periods, τ² = (Σ e_t² − (Σ e_t)²/T)/(T − 1); "
        "p = 1 − Φ(S), one-sided: a small p says the PDs are too low on average over the periods. H0: the PDs are "
        "right in every period. Assumes independent periods and the normal approximation (BCBS WP14, 2005). "
        "Beside it, each grade's Jeffreys light in each period, counted (the traffic-lights approach). "
        "Outside the model's light.",
    ),
    "heterogeneity": (
        _N["heterogeneity"],
        "For each pair of adjacent non-empty grades: z = (DR_upper − DR_lower)/√(r(1 − r)(1/n_lower + 1/n_upper)), "
        "r the pooled default rate; p = 1 − Φ(z), one-sided (H1: the riskier grade defaults more; PDtoolkit's "
        "heterogeneity test, R prop.test without continuity correction), Holm-adjusted over the pairs. A pair "
        "whose adjusted p is not below amber is not told apart by the data. Outside the model's light.",
    ),
    "migration": (
        _N["migration"],
        "Matrix weighted bandwidths over grades 1 … K: upper Σ_{i<j} |i − j| N_ij / Σ_{i<K} max(|i − K|, |i − 1|) "
        "Σ_{j>i} N_ij, lower the same below the diagonal. Stability of cell (i, j): z = (p_n − p_ij) / "
        "√((p_ij(1 − p_ij) + p_n(1 − p_n) + 2 p_ij p_n) / N_i), p_n the neighbour nearer the diagonal, "
        "p = Φ(z), one-sided: a small p says the cell holds more rows than that neighbour. H0: p_ij ≤ p_n "
        "(migrations fall away from the diagonal). Assumes independent obligors and the normal "
        "approximation; N_ij counts obligors (a row of frequency weight w is w).",
    ),
}

#: What a capability code means, for the reader.
CAPABILITY_TEXT = {
    "text": "the rating column's grades run in text order (A before AA before AAA): set credit.grades.order to "
    "the rating scale, best grade first, for the rank-order check and the migration",
    "no_pd": "no PD: give models[].pd (a scorecard's PD mapping) or probability scores for the calibration tests",
    "no_reference": "no development sample: give models[].reference for stability, PSI and migration",
    "no_initial_auc": "no initial AUC: give models[].initial_auc or a reference sample for the ECB AUC test",
    "too_few_classes": "fewer than two defaults or non-defaults: no AUC",
    "no_ids": "the samples carry no id column, so no grade migration",
    "no_shared_ids": "no id is in both the reference and the current sample, so no obligor can migrate: not applicable",
    "no_reference_grades": "the reference has no grade column, so no migration (PSI over reference score deciles)",
    "needs_rows": "the grade migration joins the samples' rows by id, which needs engine: memory "
    "(streamed and Dask runs keep counts of distinct rows, not the rows)",
    "unweighted": "sampling weights are not applied here: the credit section counts obligors (rows), as the "
    "Jeffreys, binomial and Hosmer–Lemeshow tests are defined for counts of obligors; the weights "
    "apply to the other sections only (weight_kind: frequency makes a weight count obligors here too)",
    "frequency": "frequency weights: a row of weight w counts as w obligors in every count, rate and test, the "
    "grade migration's too: an id of w obligors in the reference and v now migrates min(w, v) of "
    "them (weight 0 drops the row)",
}

#: What each figure panel shows (the caption, in panel order).
PANEL_TEXT = {
    "calibration": "calibration by grade: observed default rate against mean PD, log axes, bars the Jeffreys interval",
    "cap": "CAP curve with the accuracy ratio",
    "distributions": "score distributions of the reference and current samples",
    "trend": "AUC per period with its DeLong interval (band) and the default rate",
}

#: What the tests table's statistic of each test is, and the p-value's side (its glossary entry says more).
TEST_STATISTICS: dict[str, tuple[str, str]] = {
    "jeffreys": ("", "one-sided"),
    "binomial": ("D − N·PD", "one-sided"),
    "hosmer_lemeshow": ("H", "upper tail"),
    "spiegelhalter": ("z", "two-sided"),
    "in_the_large": ("z", "two-sided"),
    "slope": ("b", "two-sided"),
    "intercept": ("a", "two-sided"),
    "auc_history": ("S", "one-sided"),
    "herfindahl": ("S", "one-sided"),
    "binomial_correlated": ("D − N·PD", "one-sided"),
    "period_normal": ("S", "one-sided"),
}

_PD_SOURCE = {"pd_column": "the model's PD column", "score": "the score (probabilities)", "none": "none"}

_WHAT = {"calibration": "calibration", "auc_history": "AUC test", "stability": "stability", "migration": "migration"}


@dataclass(frozen=True, slots=True)
class CreditTestRow:
    """A test of the portfolio: its label and formula, the statistic with its symbol
    ("D − N·PD = −235.3"), the p-value and its side, the light and why it is missing."""

    key: str
    label: str
    formula: str
    statistic: str
    df: str
    p: str
    #: the p-value as a phrase for running text ("p = 0.027")
    p_phrase: str
    side: str
    light: str
    reason: str


@dataclass(frozen=True, slots=True)
class GradeRow:
    grade: str
    n: str
    share: str
    defaults: str
    dr: str
    dr_ci: str
    pd: str
    jeffreys: str
    binomial: str
    light: str
    #: the default rate is below the previous grade's (rank order broken)
    violation: bool
    few: bool


@dataclass(frozen=True, slots=True)
class PowerRow:
    """One grade's critical numbers of defaults, power and correlated binomial test."""

    grade: str
    n: str
    defaults: str
    pd: str
    binomial_critical: str
    binomial_power: str
    jeffreys_critical: str
    jeffreys_power: str
    correlated_critical: str
    correlated_p: str
    #: neither test is amber or red and the Jeffreys power is below 80 %: "not significant" is weak
    weak: bool
    #: the PD × power_ratio is at least 1: the power is at a default rate of 100 %, which any test sees
    capped: bool


@dataclass(frozen=True, slots=True)
class HeterogeneityRow:
    lower: str
    upper: str
    z: str
    p: str
    p_holm: str
    verdict: str


@dataclass(frozen=True, slots=True)
class PeriodLightRow:
    key: str
    green: str
    amber: str
    red: str


@dataclass(frozen=True, slots=True)
class PeriodTestsView:
    periods: str
    normal: CreditTestRow
    green: str
    amber: str
    red: str
    rows: tuple[PeriodLightRow, ...]


@dataclass(frozen=True, slots=True)
class CalibrationView:
    dr: str
    pd: str
    citl: str
    oe: str
    slope_ci: str
    intercept_ci: str
    #: the PD's Brier score and log-loss ("" in a result written before they were computed)
    brier: str
    log_loss: str


@dataclass(frozen=True, slots=True)
class AucHistoryView:
    current: str
    se: str
    #: what the current AUC is tested against: the reference named, in-sample or not, taken as exact
    reference: str


@dataclass(frozen=True, slots=True)
class PsiRow:
    label: str
    ref_n: str
    cur_n: str
    ref: str
    cur: str
    contribution: str


@dataclass(frozen=True, slots=True)
class ConcentrationRow:
    sample: str
    hi: str
    norm: str
    ecb: str
    cv: str
    k: str


@dataclass(frozen=True, slots=True)
class StabilityView:
    basis: str
    psi: str
    light: str
    ref_n: str
    ref_defaults: str
    ref_auc: str
    bins: tuple[PsiRow, ...]
    hhi: tuple[ConcentrationRow, ...]
    hhi_test: CreditTestRow | None


@dataclass(frozen=True, slots=True)
class MigrationRow:
    grade: str
    cells: tuple[str, ...]


@dataclass(frozen=True, slots=True)
class MigrationView:
    grades: tuple[str, ...]
    rows: tuple[MigrationRow, ...]
    #: labels such as "0.834 % – 1.7 %" as column headers wrapped into four lines each: numbers then
    numbered: bool
    matched: str
    stable: str
    up: str
    down: str
    far: str
    #: the ECB matrix weighted bandwidths, "" when neither was computed
    mwb_lower: str
    mwb_upper: str
    #: "3 cells" flagged by the ECB stability test, "" when it was not run
    flagged: str
    amber: str


@dataclass(frozen=True, slots=True)
class GroupRow:
    key: str
    n: str
    defaults: str
    dr: str
    pd: str
    auc: str
    auc_ci: str
    gini: str
    gini_ci: str
    ks: str
    few: bool


@dataclass(frozen=True, slots=True)
class GroupTable:
    """Performance per period or per segment."""

    title: str
    header: str
    rows: tuple[GroupRow, ...]
    #: one line per period or segment too small to test, saying why (not a row of n/a)
    untested: tuple[str, ...] = ()


@dataclass(frozen=True, slots=True)
class CreditModelView:
    name: str
    colour: str
    light: str
    verdict: str
    graded: str
    #: grades cut at edges (configured or quantiles): say which grade a value on an edge is in
    edged: bool
    pd_source: str
    n: str
    defaults: str
    grades: tuple[GradeRow, ...]
    monotonic: bool
    #: grade labels longer than a short interval ("12 % – 20 %", kept on one line) may wrap: 24
    #: labels of 40 characters pushed the grades table's last columns past the page's edge
    long_grades: bool
    #: a grades table longer than about half a page may break across pages: kept whole, 24
    #: grades left the section's heading alone on a page and started the table on the next
    many_grades: bool
    weak_grades: str
    calibration: CalibrationView | None
    tests: tuple[CreditTestRow, ...]
    auc: AucHistoryView | None
    #: the accuracy ratio and its interval ("" when undefined)
    ar: str
    ar_ci: str
    #: how ``ar_ci`` was made, for the sentence beside it
    ar_method: str
    #: the intervals' level, named in the column headers (never a bare "CI")
    level: str
    stability: StabilityView | None
    migration: MigrationView | None
    groups: tuple[GroupTable, ...]
    #: the grades' critical numbers of defaults, power and correlated test ("" ratio: not computed)
    power: tuple[PowerRow, ...]
    power_ratio: str
    rho: str
    #: grades not significant whose tests had little power, as one sentence ("" when none)
    power_note: str
    #: grades whose PD × power_ratio is at least 100 %, as one sentence ("" when none)
    capped_note: str
    heterogeneity: tuple[HeterogeneityRow, ...]
    period_tests: PeriodTestsView | None
    #: the current sample's Herfindahl index when no reference sample is given (else in stability)
    hhi_current: ConcentrationRow | None
    missing: tuple[str, ...]
    figure: Any
    caption: str


@dataclass(frozen=True, slots=True)
class GlossaryEntry:
    label: str
    formula: str


@dataclass(frozen=True, slots=True)
class CalibrationRow:
    """One model's PD in the head-to-head calibration table."""

    name: str
    source: str
    brier: str
    log_loss: str
    hl: str
    spiegelhalter: str
    slope: str
    light: str


@dataclass(frozen=True, slots=True)
class CreditView:
    models: tuple[CreditModelView, ...]
    lights: str
    min_defaults: str
    #: under frequency weights the counts are obligors (12,019 from a file of 6,000 rows was "12,019 rows")
    unit: str
    #: the unit as a column header ("Rows", "Obligors")
    unit_header: str
    segment: str
    missing: tuple[str, ...]
    glossary: tuple[GlossaryEntry, ...]
    #: the models' PDs side by side (a scorecard's PD column, a PD model's scores): calibration head to head
    calibrations: tuple[CalibrationRow, ...] = ()


def _test_row(key: str, t: CreditTest, statistic: float | None = None) -> CreditTestRow:
    label, formula = TEST_LABELS[key]
    symbol, side = TEST_STATISTICS[key]
    value = t.statistic if statistic is None else statistic
    return CreditTestRow(
        key=key,
        label=label,
        formula=formula,
        statistic=(f"{symbol} = " if symbol and value is not None else "") + fmt_num(value),
        df="" if t.df is None else str(t.df),
        p=fmt_pvalue(t.p_value),
        p_phrase=fmt_p(t.p_value),
        side=side,
        light=t.light or "none",
        reason=t.reason or "",
    )


def _verdict(m: CreditModel) -> str:
    if m.light is None:
        return "No test applies (see below)."
    if not m.failures:
        return {
            "green": "No calibration, discrimination or stability test fails.",
            "amber": "No test is red; amber tests are worth watching.",
        }.get(m.light, "")
    return "Red: " + credit_failure_names(list(m.failures), sentence=True) + "."


def auc_reference(h: CreditAucHistory) -> str:
    """What the ECB AUC test compares the current AUC with: the reference named, whether it is
    in-sample (a reference sample may be the development sample, where an AUC is optimistic),
    and that it is taken as exact (the test gives it no variance)."""
    if h.source == "config":
        return f"the initial AUC {fmt_num(h.initial_auc)} from the config (models[].initial_auc), taken as exact"
    return (
        f"the reference sample's AUC {fmt_num(h.initial_auc)} (models[].reference; in-sample, so optimistic, "
        f"when that is the development sample), taken as exact"
    )


def _other_reason(m: CreditModel, key: str) -> str:
    """Why a non-calibration test of ``m`` is red, in words (its failure name and the facts)."""
    name = credit_failure_names([key], sentence=True)
    h, st = m.auc_history, m.stability
    if key == "auc_history" and h is not None and h.test.p_value is not None:
        return f"{name}: current AUC {fmt_num(h.current_auc)} against {auc_reference(h)}, {fmt_p(h.test.p_value)}"
    if key == "psi" and st is not None and st.psi.statistic is not None:
        return f"{name}: PSI {fmt_num(st.psi.statistic)} against the reference sample"
    if (
        key == "herfindahl"
        and st is not None
        and st.concentration_test is not None
        and st.concentration_test.p_value is not None
    ):
        return f"{name}: grades more concentrated than in the reference sample, {fmt_p(st.concentration_test.p_value)}"
    return name


def summary_notes(section: CreditSection | None) -> dict[str, str]:
    """Model → the sentence the report's summary puts beside its discrimination verdict, for each
    model whose credit validation has a red result (none for the others).

    A red calibration test (``CreditCalibration.failures``: the portfolio tests and the grades'
    Jeffreys tests) says the PDs fail, with the observed default rate against the mean PD; a red
    AUC test, PSI or concentration test follows as a second clause. The facts are the result's
    ``failures``; this writes them as words.
    """
    if section is None:
        return {}
    out = {}
    for name, m in section.models.items():
        if not m.failures:
            continue
        c = m.calibration
        cal = list(c.failures) if c is not None else []
        other = [f for f in m.failures if f not in cal]
        parts = []
        if c is not None and cal:
            parts.append(
                f"its calibration fails (red: {credit_failure_names(cal, sentence=True)}): observed default "
                f"rate {fmt_pct(c.default_rate, 2)} against a mean PD of {fmt_pct(c.mean_pd, 2)}"
            )
        if other:
            parts.append(
                f"{'also ' if cal else ''}red in credit validation: {'; '.join(_other_reason(m, f) for f in other)}"
            )
        text = "; ".join(parts)
        out[name] = f"Credit validation of {name}: {text}."
    return out


def _model_view(
    m: CreditModel,
    colour: str,
    figure: Any,
    segment: str,
    amber: float = 0.05,
    level: float = 0.95,
    main: ModelResult | None = None,
    power_ratio: float = 1.5,
) -> CreditModelView:
    c = m.calibration
    ar, ar_ci, ar_method = accuracy_ratio_text(m, main)
    tests = []
    if c is not None:
        tests = [
            _test_row("jeffreys", c.jeffreys),
            _test_row("binomial", c.binomial),
            _test_row("hosmer_lemeshow", c.hosmer_lemeshow),
            _test_row("spiegelhalter", c.spiegelhalter),
            _test_row("in_the_large", c.in_the_large_test),
            _test_row("slope", c.slope_test, c.slope),
            _test_row("intercept", c.intercept_test, c.intercept),
        ]
        if c.binomial_correlated is not None:
            tests.insert(2, _test_row("binomial_correlated", c.binomial_correlated.test))
    h = m.auc_history
    if h is not None:
        tests.append(_test_row("auc_history", h.test))
    weak = [g.grade for g in m.grades if g.few_defaults and g.n > 0]
    from reportgen.report.credit_figures import panel_keys  # noqa: PLC0415  (matplotlib: only where figures are drawn)

    return CreditModelView(
        name=m.model,
        colour=colour,
        light=m.light or "none",
        verdict=_verdict(m),
        graded={"pd": "by PD", "score": "by score (no PD)", "column": "by the rating column"}[m.graded_by]
        + {"edges": ", configured edges", "quantiles": ", quantiles", "column": ""}[m.grading],
        edged=m.grading != "column" and len(m.grades) > 1,
        pd_source=_PD_SOURCE[m.pd_source],
        n=fmt_count(m.n),
        defaults=fmt_count(m.defaults),
        grades=tuple(
            GradeRow(
                grade=g.grade,
                n=fmt_count(g.n),
                share=fmt_pct(g.share),
                defaults=fmt_count(g.defaults),
                dr=fmt_pct(g.default_rate, 2),
                dr_ci=fmt_ci_pct(g.dr_interval, 2),
                pd=fmt_pct(g.mean_pd, 2),
                jeffreys=fmt_pvalue(None if g.jeffreys is None else g.jeffreys.p_value),
                binomial=fmt_pvalue(None if g.binomial is None else g.binomial.p_value),
                light="none" if g.jeffreys is None or g.jeffreys.light is None else g.jeffreys.light,
                violation=g.monotonic_violation,
                few=g.few_defaults,
            )
            for g in m.grades
        ),
        monotonic=m.monotonic,
        long_grades=any(len(str(g.grade)) > LONG_GRADE for g in m.grades),
        many_grades=len(m.grades) > MANY_GRADES,
        weak_grades=", ".join(weak),
        calibration=None
        if c is None
        else CalibrationView(
            dr=fmt_pct(c.default_rate, 2),
            pd=fmt_pct(c.mean_pd, 2),
            citl=fmt_points(c.in_the_large, 2),
            oe=fmt_num(c.observed_to_expected),
            slope_ci=fmt_ci(c.slope_ci),
            intercept_ci=fmt_ci(c.intercept_ci),
            brier="" if c.brier is None else fmt_num(c.brier, 4),
            log_loss="" if c.log_loss is None else fmt_num(c.log_loss, 4),
        ),
        tests=tuple(tests),
        auc=None
        if h is None
        else AucHistoryView(current=fmt_num(h.current_auc), se=fmt_num(h.se, 4), reference=auc_reference(h)),
        ar=ar,
        ar_ci=ar_ci,
        ar_method=ar_method,
        level=fmt_level(level),
        stability=_stability(m),
        migration=_migration(m, amber),
        groups=tuple(
            g
            for g in (
                _group_table(f"Performance per {m.period}", (m.period or "").capitalize(), m.periods),
                _group_table(f"Performance per {segment}", segment[:1].upper() + segment[1:], m.segments),
            )
            if g.rows or g.untested
        ),
        missing=tuple(f"{_WHAT.get(k, k)}: {CAPABILITY_TEXT.get(v, v)}" for k, v in m.capabilities.items()),
        figure=figure,
        caption=_caption(panel_keys(m)),
        power=_power_rows(m, amber),
        power_ratio=f"{power_ratio:g}",
        rho=_rho_text(m),
        power_note=_power_note(m, power_ratio),
        capped_note=_capped_note(m, power_ratio),
        heterogeneity=tuple(
            HeterogeneityRow(
                lower=h.lower,
                upper=h.upper,
                z=fmt_num(h.z, 2),
                p=fmt_pvalue(h.p_value),
                p_holm=fmt_pvalue(h.p_holm),
                verdict="untested" if h.distinct is None else ("distinct" if h.distinct else "not told apart"),
            )
            for h in m.heterogeneity
        ),
        period_tests=_period_tests(m),
        hhi_current=None
        if m.stability is not None or m.concentration is None
        else _hhi_row("current", m.concentration),
    )


#: Below this power a grade's "not significant" is called weak evidence.
LOW_POWER = 0.8


def _weak(g: CreditGrade) -> bool:
    quiet = all(t is None or t.light == "green" for t in (g.jeffreys, g.binomial))
    return g.power is not None and quiet and g.power.jeffreys_power < LOW_POWER


def _power_rows(m: CreditModel, amber: float) -> tuple[PowerRow, ...]:
    def crit(v: int | None) -> str:
        return "none ≤ N" if v is None else fmt_count(v)

    return tuple(
        PowerRow(
            grade=g.grade,
            n=fmt_count(g.n),
            defaults=fmt_count(g.defaults),
            pd=fmt_pct(g.mean_pd, 2),
            binomial_critical=crit(g.power.binomial_critical),
            binomial_power=fmt_share(g.power.binomial_power),
            jeffreys_critical=crit(g.power.jeffreys_critical),
            jeffreys_power=fmt_share(g.power.jeffreys_power),
            correlated_critical="" if g.binomial_correlated is None else crit(g.binomial_correlated.critical_defaults),
            correlated_p="" if g.binomial_correlated is None else fmt_pvalue(g.binomial_correlated.test.p_value),
            weak=_weak(g),
            capped=_capped(g),
        )
        for g in m.grades
        if g.power is not None
    )


def _capped(g: CreditGrade) -> bool:
    """The power's alternative default rate was capped at 1 (``GradePower.alternative_pd``)."""
    return g.power is not None and g.power.alternative_pd >= 1.0


def _capped_note(m: CreditModel, ratio: float) -> str:
    """The grades whose power is at a default rate of 100 %, because the PD × ratio reaches it."""
    capped = [g.grade for g in m.grades if _capped(g)]
    if not capped:
        return ""
    return (
        f"§ {ratio:g} × the PD is at least 100 % in the grade{'s' if len(capped) > 1 else ''} {', '.join(capped)}: "
        "the power shown there is at a default rate of 100 %, which any test sees; it says nothing about the tests."
    )


def _rho_text(m: CreditModel) -> str:
    rhos = sorted({g.binomial_correlated.asset_correlation for g in m.grades if g.binomial_correlated is not None})
    if not rhos:
        return ""
    if len(rhos) == 1:
        return f"\u03c1 = {rhos[0]:.3g}"
    return f"\u03c1 from {rhos[0]:.3g} to {rhos[-1]:.3g} (Basel IRB corporate formula at each grade's PD)"


def _power_note(m: CreditModel, ratio: float) -> str:
    """The grades whose tests are not significant but had little power, as one sentence."""
    weak = [g for g in m.grades if _weak(g)]
    if not weak:
        return ""
    parts = ", ".join(
        f"{g.grade} (Jeffreys {fmt_share(g.power.jeffreys_power)}, binomial {fmt_share(g.power.binomial_power)})"
        for g in weak
        if g.power is not None
    )
    return (
        f"Not significant, but with little power to see a default rate {ratio:g} × the PD "
        f"(below {LOW_POWER * 100:.0f} %): {parts}. A green light there is weak evidence that the PD is right."
    )


def _period_tests(m: CreditModel) -> PeriodTestsView | None:
    pt = m.period_tests
    if pt is None:
        return None
    return PeriodTestsView(
        periods=f"{pt.periods} {m.period or 'period'}{'' if pt.periods == 1 else 's'}",
        normal=_test_row("period_normal", pt.normal_test),
        green=fmt_count(pt.green),
        amber=fmt_count(pt.amber),
        red=fmt_count(pt.red),
        rows=tuple(
            PeriodLightRow(key=r.key, green=fmt_count(r.green), amber=fmt_count(r.amber), red=fmt_count(r.red))
            for r in pt.lights
        ),
    )


def _hhi_row(sample: str, k: Concentration) -> ConcentrationRow:
    return ConcentrationRow(
        sample=sample,
        hi=fmt_num(k.herfindahl, 4),
        norm=fmt_num(k.normalised, 4),
        ecb=fmt_num(k.ecb, 4),
        cv=fmt_num(k.cv, 4),
        k=fmt_count(k.grades),
    )


def _stability(m: CreditModel) -> StabilityView | None:
    st = m.stability
    if st is None:
        return None
    return StabilityView(
        basis="grades" if st.basis == "grades" else "deciles of the reference scores",
        psi=fmt_num(st.psi.statistic, 4),
        light=st.psi.light or "none",
        ref_n=fmt_count(st.reference_n),
        ref_defaults=fmt_count(st.reference_defaults),
        ref_auc=fmt_num(st.reference_auc),
        bins=tuple(
            PsiRow(
                label=b.label,
                ref_n=fmt_count(b.reference_n),
                cur_n=fmt_count(b.current_n),
                ref=fmt_pct(b.reference_share, 2),
                cur=fmt_pct(b.current_share, 2),
                contribution=fmt_share_of_sum(b.contribution, 4),
            )
            for b in st.bins
        ),
        hhi=tuple(
            _hhi_row(s, k)
            for s, k in (("reference", st.concentration_reference), ("current", st.concentration_current))
        ),
        hhi_test=None if st.concentration_test is None else _test_row("herfindahl", st.concentration_test),
    )


def _migration(m: CreditModel, amber: float) -> MigrationView | None:
    g = m.migration
    if g is None:
        return None
    both_none = g.mwb_lower is None and g.mwb_upper is None
    return MigrationView(
        grades=tuple(g.grades),
        rows=tuple(
            MigrationRow(grade=grade, cells=tuple(fmt_count(v) for v in row))
            for grade, row in zip(g.grades, g.counts, strict=True)
        ),
        numbered=max((len(x) for x in g.grades), default=0) > SHORT_GRADE,
        matched=fmt_count(g.matched),
        stable=fmt_pct(g.stable),
        up=fmt_pct(g.upgraded),
        down=fmt_pct(g.downgraded),
        far=fmt_pct(g.beyond_one),
        mwb_lower="" if both_none else fmt_num(g.mwb_lower, 4),
        mwb_upper="" if both_none else fmt_num(g.mwb_upper, 4),
        flagged=""
        if g.stability_flagged is None
        else f"{fmt_count(g.stability_flagged)} cell{'' if g.stability_flagged == 1 else 's'}",
        amber=f"{amber}",
    )


#: Grades tables of more rows than this may break across pages (shorter ones are kept whole).
MANY_GRADES = 15
#: The migration matrix heads its columns with the grades' labels when none is longer than this, else
#: with the grades' numbers (the rows give number and label).
SHORT_GRADE = 5
#: Grade labels longer than this wrap in their column (the wbr filter's breaks); shorter ones stay on one line.
LONG_GRADE = 20


def _caption(keys: list[str]) -> str:
    """The figure's caption: each panel's position and what it shows."""
    where = {
        1: [""],
        2: ["left: ", "right: "],
        3: ["top left: ", "top right: ", "bottom: "],
        4: ["top left: ", "top right: ", "bottom left: ", "bottom right: "],
    }.get(len(keys), [""] * len(keys))
    text = "; ".join(f"{pos}{PANEL_TEXT[k]}" for pos, k in zip(where, keys, strict=True)) + "."
    return text[:1].upper() + text[1:]


def _group(p: Any) -> GroupRow:
    return GroupRow(
        key=p.key,
        n=fmt_count(p.n),
        defaults=fmt_count(p.defaults),
        dr=fmt_pct(p.default_rate, 2),
        pd=fmt_pct(p.mean_pd, 2),
        auc=fmt_num(p.auc),
        auc_ci=fmt_ci(p.auc_ci, 3, "roc_auc"),
        gini=fmt_num(p.gini),
        gini_ci=fmt_ci(p.gini_ci, 3, "gini"),
        ks=fmt_num(p.ks),
        few=p.few_defaults,
    )


def _group_table(title: str, header: str, groups: Sequence[CreditGroup]) -> GroupTable:
    """Performance per period or segment: a row for each one with an AUC; one too small to test
    (fewer than two defaults or non-defaults) is a line saying so, not a row of n/a."""
    return GroupTable(
        title=title,
        header=header,
        rows=tuple(_group(p) for p in groups if p.auc is not None),
        untested=tuple(
            f"{header} {p.key}: {fmt_count(p.n)} row{'' if p.n == 1 else 's'}, {fmt_count(p.defaults)} "
            f"default{'' if p.defaults == 1 else 's'} — too small to test "
            "(the AUC needs at least two defaults and two non-defaults)"
            for p in groups
            if p.auc is None
        ),
    )


def accuracy_ratio_text(m: CreditModel, main: ModelResult | None) -> tuple[str, str, str]:
    """The accuracy ratio, its interval and the interval's method, as the page prints them.

    AR = Gini for a binary score, so on the rows of the summary (same ``n``) the section prints
    the summary's Gini and its interval, one number from one source (the two intervals, DeLong's
    and Bamber's variance, differed in their last digit on one page, issue 40); metrics.json keeps
    Bamber's interval (``accuracy_ratio_ci``, BCBS WP14). On other rows, Bamber's."""
    if main is not None and main.n == m.n and main.metrics.get("gini") is not None and main.ci.get("gini"):
        return fmt_num(main.metrics["gini"]), fmt_ci(main.ci["gini"], 3, "gini"), "the summary's Gini interval"
    ar = "" if m.accuracy_ratio is None else fmt_num(m.accuracy_ratio)
    return ar, fmt_ci(m.accuracy_ratio_ci, 3, "gini"), "Bamber's variance, as Engelmann, Hayden & Tasche 2003"


def credit_view(
    section: CreditSection | None,
    colours: Mapping[str, str],
    figures: Mapping[str, Any],
    level: float = 0.95,
    models: Mapping[str, ModelResult] | None = None,
) -> CreditView | None:
    """The section's view, or None when the run has none (``level``: the run's confidence level,
    of the Jeffreys and DeLong intervals; ``figures``: model → its drawn figure; ``models``: the
    run's model results, whose Gini the accuracy ratio prints, :func:`accuracy_ratio_text`)."""
    if section is None:
        return None
    unit = "obligors" if "frequency" in section.capabilities.values() else "rows"
    return CreditView(
        models=tuple(
            _model_view(
                m,
                colours.get(n, "#000000"),
                figures.get(n),
                section.segment or "",
                section.amber,
                level,
                (models or {}).get(n),
                section.power_ratio or 1.5,
            )
            for n, m in section.models.items()
        ),
        lights=(
            f"Traffic lights: green p ≥ {section.amber:g}, amber {section.red:g} ≤ p < {section.amber:g}, "
            f"red p < {section.red:g} (credit.traffic_lights; defaults 0.05 and 0.001, BCBS WP14's 95 % and 99.9 %); "
            f"PSI green below {section.psi_amber:g}, red from {section.psi_red:g} (defaults 0.10 and 0.25)."
        ),
        min_defaults=str(section.min_defaults),
        unit=unit,
        unit_header=unit.capitalize(),
        segment=section.segment or "",
        missing=tuple(CAPABILITY_TEXT.get(v, v) for v in section.capabilities.values()),
        glossary=tuple(GlossaryEntry(label=lab, formula=f) for lab, f in TEST_LABELS.values()),
        calibrations=tuple(
            CalibrationRow(
                name=n,
                source=_PD_SOURCE[m.pd_source],
                brier=fmt_num(c.brier, 4),
                log_loss=fmt_num(c.log_loss, 4),
                hl=fmt_pvalue(c.hosmer_lemeshow.p_value),
                spiegelhalter=fmt_pvalue(c.spiegelhalter.p_value),
                slope=fmt_num(c.slope),
                light=c.light or "none",
            )
            for n, m in section.models.items()
            if (c := m.calibration) is not None
        ),
    )
