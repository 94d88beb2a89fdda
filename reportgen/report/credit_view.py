"""The view of the credit validation section: sentences, labels and flags for its template.

Numbers are handed to the template as they are and formatted there by the report's tested Jinja
filters (``fmt_num``, ``fmt_pct``, ``fmt_pvalue``, ``fmt_ci``, ``fmt_count``); this module writes
the sentences (what is red and why, what could not be computed) and the labels of the tests.
It imports no other part of the report layer (``render`` imports it).
"""

from __future__ import annotations

from typing import Any

from reportgen.report.credit_figures import panel_keys
from reportgen.report.labels import CREDIT_TEST_NAMES as _N
from reportgen.report.labels import credit_failure_names
from reportgen.results import CreditAucHistory, CreditModel, CreditSection, CreditTest

__all__ = ["CAPABILITY_TEXT", "TEST_LABELS", "credit_view", "summary_notes"]

#: Label and formula of each portfolio test (the section's own glossary).
TEST_LABELS: dict[str, tuple[str, str]] = {
    "jeffreys": (_N["jeffreys"], "p = Beta(D + ½, N − D + ½) CDF at the mean PD; one-sided: a small p says the PD is too low. "
                                 "H0: the true default rate is at most the PD. Assumes independent defaults and the "
                                 "Jeffreys prior Beta(½, ½); a PD of 0 always fails (the posterior has no mass at 0)."),
    "binomial": (_N["binomial"], "p = P(X ≥ D), X ~ Bin(N, mean PD); one-sided: a small p says the PD is too low; "
                                 "statistic D − N·PD. H0: the true default rate is at most the PD. Assumes independent "
                                 "defaults (no asset correlation), one PD for the grade's obligors."),
    "hosmer_lemeshow": (_N["hosmer_lemeshow"],
                        "H = Σ (D_g − N_g p_g)² / (N_g p_g (1 − p_g)), χ² with G degrees of freedom (G grades with rows), "
                        "its upper tail: PDs too high and too low both make H large. H0: every grade's default "
                        "probability equals its mean PD. Assumes independent defaults, PDs not fitted on this sample "
                        "(the current sample is an independent validation sample, not the development sample: G − 2; "
                        "that p-value is in metrics.json as hosmer_lemeshow_g2, outside the verdict) and N_g p_g (1 − p_g) "
                        "large enough for the χ² approximation; undefined for a grade at PD 0 or 1."),
    "spiegelhalter": (_N["spiegelhalter"], "z = Σ (y − p)(1 − 2p) / √Σ (1 − 2p)² p (1 − p) over rows; two-sided. "
                                           "H0: every obligor defaults with probability its PD. Assumes independent "
                                           "defaults and the normal approximation of z."),
    "in_the_large": (_N["in_the_large"], "z = (D − Σp) / √Σ p(1 − p); two-sided. Shown with DR − mean PD and O/E = D / Σp. "
                                         "H0: the expected number of defaults is Σp. Assumes independent defaults and "
                                         "the normal approximation of the default count."),
    "slope": (_N["slope"], "b of logit P(default) = a + b·logit(PD) by maximum likelihood; Wald z = (b − 1)/se, two-sided. "
                           "H0: b = 1. Assumes independent defaults and the large-sample (Wald) normal approximation; "
                           "PDs clipped to [10⁻¹², 1 − 10⁻¹²]."),
    "intercept": (_N["intercept"], "a of logit P(default) = a + logit(PD) (slope fixed at 1); Wald z = a/se, two-sided. "
                                   "H0: a = 0. Assumes independent defaults and the large-sample (Wald) normal "
                                   "approximation."),
    "auc_history": (_N["auc_history"],
                    "S = (AUC_init − AUC_curr) / σ_curr, σ from DeLong; p = 1 − Φ(S), one-sided: a small p says the AUC "
                    "has fallen. H0: the current AUC is at least the initial one. Assumes the initial AUC known "
                    "(no variance of its own) and the normal approximation of the current AUC."),
    "psi": (_N["psi"],
            "PSI = Σ (a − e) ln(a / e), a and e the current and reference shares; a bin empty in one sample counts half a row "
            "there; a bin empty in both is left out. An index, not a test: no p-value; its lights are the rule-of-thumb "
            "levels (Siddiqi 2006)."),
    "herfindahl": (_N["herfindahl"],
                   "HI = Σ s² of the grade shares; normalised (HI − 1/K)/(1 − 1/K); CV = √(K Σ (s − 1/K)²), ECB form "
                   "1 + ln((CV² + 1)/K)/ln K. Test of the current against the initial (reference) concentration: "
                   "S = √(K − 1)(CV_curr − CV_init)/√(CV_curr²(½ + CV_curr²)), p = 1 − Φ(S), one-sided: a small p says "
                   "the grades became more concentrated. H0: CV_curr ≤ CV_init. Assumes the initial CV known (as the "
                   "ECB does) and the normal approximation of the current CV."),
    "cap": (_N["cap"], "Share of defaults captured against share of rows taken riskiest first; AR = 2·AUC − 1. A curve, "
                       "not a test. The AR's interval is Engelmann, Hayden & Tasche's (2003; BCBS WP14): normal, "
                       "2(U ∓ z·σ) − 1 with Bamber's (1975) unbiased variance σ² of the AUC U, ends cut at ±1 "
                       "(the ECB AUC test and the per-period intervals use DeLong's variance)."),
    "migration": (_N["migration"],
                  "Matrix weighted bandwidths over grades 1 … K: upper Σ_{i<j} |i − j| N_ij / Σ_{i<K} max(|i − K|, |i − 1|) "
                  "Σ_{j>i} N_ij, lower the same below the diagonal. Stability of cell (i, j): z = (p_n − p_ij) / "
                  "√((p_ij(1 − p_ij) + p_n(1 − p_n) + 2 p_ij p_n) / N_i), p_n the neighbour nearer the diagonal, "
                  "p = Φ(z), one-sided: a small p says the cell holds more rows than that neighbour. H0: p_ij ≤ p_n "
                  "(migrations fall away from the diagonal). Assumes independent obligors and the normal "
                  "approximation; N_ij counts obligors (a row of frequency weight w is w)."),
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
    "jeffreys": ("", "one-sided"), "binomial": ("D − N·PD", "one-sided"), "hosmer_lemeshow": ("H", "upper tail"),
    "spiegelhalter": ("z", "two-sided"), "in_the_large": ("z", "two-sided"), "slope": ("b", "two-sided"),
    "intercept": ("a", "two-sided"), "auc_history": ("S", "one-sided"), "herfindahl": ("S", "one-sided"),
}

_PD_SOURCE = {"pd_column": "the model's PD column", "score": "the score (probabilities)", "none": "none"}

_WHAT = {"calibration": "calibration", "auc_history": "AUC test", "stability": "stability", "migration": "migration"}


def _test_row(key: str, t: CreditTest, statistic: Any = None) -> dict[str, Any]:
    label, formula = TEST_LABELS[key]
    symbol, side = TEST_STATISTICS[key]
    return {"key": key, "label": label, "formula": formula, "symbol": symbol, "side": side,
            "statistic": t.statistic if statistic is None else statistic,
            "p": t.p_value, "light": t.light or "none", "df": t.df, "reason": t.reason or ""}


def _verdict(m: CreditModel) -> str:
    if m.light is None:
        return "No test applies (see below)."
    if not m.failures:
        return {"green": "No calibration, discrimination or stability test fails.",
                "amber": "No test is red; amber tests are worth watching."}.get(m.light, "")
    return "Red: " + credit_failure_names(list(m.failures), sentence=True) + "."


def _pct(v: float) -> str:
    return f"{v * 100:.2f} %"


def auc_reference(h: CreditAucHistory) -> str:
    """What the ECB AUC test compares the current AUC with: the reference named, whether it is
    in-sample (a reference sample may be the development sample, where an AUC is optimistic),
    and that it is taken as exact (the test gives it no variance)."""
    if h.source == "config":
        return f"the initial AUC {h.initial_auc:.3f} from the config (models[].initial_auc), taken as exact"
    return (f"the reference sample's AUC {h.initial_auc:.3f} (models[].reference; in-sample, so optimistic, "
            f"when that is the development sample), taken as exact")


def _other_reason(m: CreditModel, key: str) -> str:
    """Why a non-calibration test of ``m`` is red, in words (its failure name and the facts)."""
    name = credit_failure_names([key], sentence=True)
    h, st = m.auc_history, m.stability
    if key == "auc_history" and h is not None and h.test.p_value is not None:
        return f"{name}: current AUC {h.current_auc:.3f} against {auc_reference(h)}, p = {h.test.p_value:.2g}"
    if key == "psi" and st is not None and st.psi.statistic is not None:
        return f"{name}: PSI {st.psi.statistic:.3f} against the reference sample"
    if key == "herfindahl" and st is not None and st.concentration_test is not None and st.concentration_test.p_value is not None:
        return f"{name}: grades more concentrated than in the reference sample, p = {st.concentration_test.p_value:.2g}"
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
        cal = list(m.calibration.failures) if m.calibration is not None else []
        other = [f for f in m.failures if f not in cal]
        parts = []
        if cal:
            c = m.calibration
            parts.append(f"its calibration fails (red: {credit_failure_names(cal, sentence=True)}): observed default rate {_pct(c.default_rate)} "
                         f"against a mean PD of {_pct(c.mean_pd)}")
        if other:
            parts.append(f"{'also ' if cal else ''}red in credit validation: {'; '.join(_other_reason(m, f) for f in other)}")
        text = "; ".join(parts)
        out[name] = f"Credit validation of {name}: {text}."
    return out


def _model_view(m: CreditModel, colour: str, figure: Any, segment: str, amber: float = 0.05,
                level: float = 0.95) -> dict[str, Any]:
    c = m.calibration
    tests = []
    if c is not None:
        tests = [_test_row("jeffreys", c.jeffreys), _test_row("binomial", c.binomial),
                 _test_row("hosmer_lemeshow", c.hosmer_lemeshow), _test_row("spiegelhalter", c.spiegelhalter),
                 _test_row("in_the_large", c.in_the_large_test),
                 _test_row("slope", c.slope_test, c.slope), _test_row("intercept", c.intercept_test, c.intercept)]
    h = m.auc_history
    if h is not None:
        tests.append(_test_row("auc_history", h.test))
    st = m.stability
    weak = [g.grade for g in m.grades if g.few_defaults and g.n > 0]
    return {
        "name": m.model,
        "colour": colour,
        "light": m.light or "none",
        "verdict": _verdict(m),
        "graded": {"pd": "by PD", "score": "by score (no PD)", "column": "by the rating column"}[m.graded_by]
        + {"edges": ", configured edges", "quantiles": ", quantiles", "column": ""}[m.grading],
        # grades cut at edges (configured or quantiles): say which grade a value on an edge is in
        "edged": m.grading != "column" and len(m.grades) > 1,
        "pd_source": _PD_SOURCE[m.pd_source],
        "n": m.n, "defaults": m.defaults,
        "grades": [{"grade": g.grade, "n": g.n, "share": g.share, "defaults": g.defaults, "dr": g.default_rate,
                    "dr_ci": g.dr_interval, "pd": g.mean_pd,
                    "jeffreys": None if g.jeffreys is None else g.jeffreys.p_value,
                    "binomial": None if g.binomial is None else g.binomial.p_value,
                    "light": "none" if g.jeffreys is None or g.jeffreys.light is None else g.jeffreys.light,
                    "violation": g.monotonic_violation, "few": g.few_defaults} for g in m.grades],
        "monotonic": m.monotonic,
        # grade labels longer than a short interval ("12 % – 20 %", kept on one line) may wrap: 24
        # labels of 40 characters pushed the grades table's last columns past the page's edge
        "long_grades": any(len(str(g.grade)) > LONG_GRADE for g in m.grades),
        # a grades table longer than about half a page may break across pages: kept whole, 24
        # grades left the section's heading alone on a page and started the table on the next
        "many_grades": len(m.grades) > MANY_GRADES,
        "weak_grades": ", ".join(weak),
        "calibration": None if c is None else {
            "dr": c.default_rate, "pd": c.mean_pd, "citl": c.in_the_large, "oe": c.observed_to_expected,
            "slope_ci": c.slope_ci, "intercept_ci": c.intercept_ci, "brier": c.brier, "log_loss": c.log_loss},
        "tests": tests,
        "auc": None if h is None else {"current": h.current_auc, "se": h.se, "reference": auc_reference(h)},
        "ar": m.accuracy_ratio,
        "ar_ci": m.accuracy_ratio_ci,
        # the intervals' level and method, named in the column headers (never a bare "CI")
        "level": f"{level * 100:g} %",
        "stability": None if st is None else {
            "basis": "grades" if st.basis == "grades" else "deciles of the reference scores",
            "psi": st.psi.statistic, "light": st.psi.light or "none", "ref_n": st.reference_n,
            "ref_defaults": st.reference_defaults, "ref_auc": st.reference_auc,
            "bins": [{"label": b.label, "ref_n": b.reference_n, "cur_n": b.current_n, "ref": b.reference_share,
                      "cur": b.current_share, "contribution": b.contribution} for b in st.bins],
            "hhi": [{"sample": s, "hi": k.herfindahl, "norm": k.normalised, "ecb": k.ecb, "cv": k.cv, "k": k.grades}
                    for s, k in (("reference", st.concentration_reference), ("current", st.concentration_current))],
            "hhi_test": None if st.concentration_test is None else _test_row("herfindahl", st.concentration_test),
        },
        "migration": None if m.migration is None else {
            "grades": list(m.migration.grades), "rows": [
                {"grade": g, "cells": list(r)} for g, r in zip(m.migration.grades, m.migration.counts, strict=True)],
            # labels such as "0.834 % – 1.7 %" as column headers wrapped into four lines each
            "numbered": max((len(g) for g in m.migration.grades), default=0) > SHORT_GRADE,
            "matched": m.migration.matched, "stable": m.migration.stable, "up": m.migration.upgraded,
            "down": m.migration.downgraded, "far": m.migration.beyond_one,
            "mwb_lower": m.migration.mwb_lower, "mwb_upper": m.migration.mwb_upper,
            "flagged": m.migration.stability_flagged, "amber": amber},
        "groups": [g for g in (
            {"title": f"Performance per {m.period}", "header": (m.period or "").capitalize(),
             "rows": [_group(p) for p in m.periods]},
            {"title": f"Performance per {segment}", "header": segment[:1].upper() + segment[1:],
             "rows": [_group(p) for p in m.segments]},
        ) if g["rows"]],
        "missing": [f"{_WHAT.get(k, k)}: {CAPABILITY_TEXT.get(v, v)}" for k, v in m.capabilities.items()],
        "figure": figure,
        "caption": _caption(panel_keys(m)),
    }


#: Grades tables of more rows than this may break across pages (shorter ones are kept whole).
MANY_GRADES = 15
#: The migration matrix heads its columns with the grades' labels when none is longer than this, else
#: with the grades' numbers (the rows give number and label).
SHORT_GRADE = 5
#: Grade labels longer than this wrap in their column (the wbr filter's breaks); shorter ones stay on one line.
LONG_GRADE = 20


def _caption(keys: list[str]) -> str:
    """The figure's caption: each panel's position and what it shows."""
    where = {1: [""], 2: ["left: ", "right: "], 3: ["left: ", "middle: ", "right: "],
             4: ["top left: ", "top right: ", "bottom left: ", "bottom right: "]}.get(len(keys), [""] * len(keys))
    text = "; ".join(f"{pos}{PANEL_TEXT[k]}" for pos, k in zip(where, keys, strict=True)) + "."
    return text[:1].upper() + text[1:]


def _group(p: Any) -> dict[str, Any]:
    return {"key": p.key, "n": p.n, "defaults": p.defaults, "dr": p.default_rate, "pd": p.mean_pd, "auc": p.auc,
            "auc_ci": p.auc_ci, "gini": p.gini, "gini_ci": p.gini_ci, "ks": p.ks, "few": p.few_defaults}


def credit_view(section: CreditSection | None, colours: dict[str, str], figures: dict[str, Any],
                level: float = 0.95) -> dict[str, Any] | None:
    """The template's view of the section, or None when the run has none (``level``: the run's
    confidence level, of the Jeffreys and DeLong intervals)."""
    if section is None:
        return None
    return {
        "models": [_model_view(m, colours.get(n, "#000000"), figures.get(n), section.segment or "", section.amber,
                               level)
                   for n, m in section.models.items()],
        "lights": (f"Traffic lights: green p ≥ {section.amber:g}, amber {section.red:g} ≤ p < {section.amber:g}, "
                   f"red p < {section.red:g} (credit.traffic_lights; defaults 0.05 and 0.001, BCBS WP14's 95 % and 99.9 %); "
                   f"PSI green below {section.psi_amber:g}, red from {section.psi_red:g} (defaults 0.10 and 0.25)."),
        "min_defaults": section.min_defaults,
        # under frequency weights the counts are obligors (12,019 from a file of 6,000 rows was "12,019 rows")
        "unit": "obligors" if "frequency" in section.capabilities.values() else "rows",
        "segment": section.segment or "",
        "missing": [CAPABILITY_TEXT.get(v, v) for v in section.capabilities.values()],
        # the models' PDs side by side (a scorecard's PD column, a PD model's scores): calibration head to head
        "calibrations": [{"name": n, "source": _PD_SOURCE[m.pd_source], "brier": c.brier, "log_loss": c.log_loss,
                          "hl": c.hosmer_lemeshow.p_value, "spiegelhalter": c.spiegelhalter.p_value, "slope": c.slope,
                          "slope_ci": c.slope_ci, "light": c.light or "none"}
                         for n, m in section.models.items() if (c := m.calibration) is not None],
        "glossary": [{"label": lab, "formula": f} for lab, f in TEST_LABELS.values()],
    }
