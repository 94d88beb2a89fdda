"""Verified cases for the binary engine from the lecture notes in /work/shared/seeds.

Each test is one worked example of ``docs/seed_examples.md`` (section A: its id is in the test
name's docstring), with the value the notes state (or, where the notes give only the input, the
exact value derived there by hand with fractions). Seeds: S0 = 000 (Sokolov, RU), S1 = 001
(Zhou, ZH), S2 = 002 (Polyak, RU), S3 = 003 (ITMO wiki, RU), S4 = 004 (Dyakonov, RU). The
multiclass and 2×2-table examples (A5's 18 objects, A10, A13, A15) are in
``test_multiclass_seeds.py``.
"""

from __future__ import annotations

import itertools
import math

import numpy as np
import pytest

from reportgen.engine import binary as B
from reportgen.engine.compare import relative_change, relative_error_reduction
from reportgen.engine.curve import build_table
from reportgen.engine.multiclass import harmonic_f

TOL = 1e-12

# S0 §3, task 3.2: b = (0.2, 0.4, 0.1, 0.7, 0.05), y = (−1, +1, −1, +1, +1)
A1_B = np.array([0.2, 0.4, 0.1, 0.7, 0.05])
A1_Y = np.array([False, True, False, True, True])


def _optima(table, **kw):
    return {o.criterion: o for o in B.optimal_thresholds(table, **kw)}


def test_a1_five_object_auc_roc_points_ap_and_r_precision():
    """A1 (S0 task 3.2): AUC-ROC = 2/3 (stated); ROC points, DP = 0.2, AP = 13/15, R-precision 2/3."""
    t = build_table(A1_B, A1_Y)
    m = B.compute_metrics(t, 0.5)
    assert m.get("roc_auc") == pytest.approx(2 / 3, abs=TOL)
    assert m.get("gini") == pytest.approx(1 / 3, abs=TOL)
    assert m.get("defective_pairs") == pytest.approx(0.2, abs=TOL)
    assert m.get("average_precision") == pytest.approx(13 / 15, abs=TOL)
    assert m.get("r_precision") == pytest.approx(2 / 3, abs=TOL)
    c = B.compute_curves(t, 0.5, max_points=10_000)
    want = np.array([(0, 0), (0, 1 / 3), (0, 2 / 3), (1 / 2, 2 / 3), (1, 2 / 3), (1, 1)])
    assert np.allclose(np.c_[c.roc.x, c.roc.y], want, atol=TOL, rtol=0)


def test_a2_defective_pairs_formula_and_the_notes_counterexample():
    """A2 (S0 task 3.1): DP = 2·l−·l+ / (l(l−1)) · (1 − AUC); b = (0.1, 0.9), y = (+1, −1) has DP = 1
    (the notes' second formula, over the original indices, gives 0 there)."""
    m = B.compute_metrics(build_table(np.array([0.1, 0.9]), np.array([True, False])), 0.5)
    assert m.get("defective_pairs") == 1.0 and m.get("roc_auc") == 0.0
    # the identity on random tie-free samples, against the direct count of inversions
    rng = np.random.default_rng(0)
    for _ in range(50):
        n = int(rng.integers(2, 12))
        b = rng.permutation(n).astype(float)
        y = rng.random(n) < 0.5
        if y.all() or not y.any():
            continue
        order = np.argsort(b)
        ys = y[order]
        inversions = sum(ys[i] and not ys[j] for i in range(n) for j in range(i + 1, n))
        assert B.compute_metrics(build_table(b, y), 0.5).get("defective_pairs") == pytest.approx(
            2 * inversions / (n * (n - 1)), abs=TOL
        )


def test_a3_random_ranking_has_expected_auc_one_half():
    """A3 (S0 task 3.3): E[AUC] over all 120 orderings of A1's labels = 1/2."""
    aucs = [B.roc_auc(build_table(A1_B, np.array(p))) for p in itertools.permutations(A1_Y)]
    assert len(aucs) == 120 and np.mean(aucs) == pytest.approx(0.5, abs=TOL)


def test_a4_inverting_the_classifier_reflects_the_roc_curve():
    """A4 (S0 task 3.4): a* = −a gives AUC* = 1 − AUC; `direction: lower` on b is the same model as −b."""
    assert B.roc_auc(build_table(-A1_B, A1_Y)) == pytest.approx(1 / 3, abs=TOL)
    assert B.roc_auc(build_table(A1_B, A1_Y, direction="lower")) == pytest.approx(1 / 3, abs=TOL)
    t, tl = build_table(A1_B, A1_Y), build_table(-A1_B, A1_Y)
    for thr in A1_B:  # TP* = FN and FP* = TN: the complement cut of −b (strictly below thr)
        c = B.compute_metrics(t, thr).confusion
        below = float(np.nextafter(-thr, np.inf))  # −b ≥ −thr + ulp  ⇔  b < thr
        ci = B.compute_metrics(tl, below).confusion
        assert (ci.tp, ci.fp) == (c.fn, c.tn)


def test_a5_accuracy_of_the_constant_answer_on_950_to_50():
    """A5 (S0 §2.1): 950 negatives, 50 positives, everything predicted −1: accuracy = 0.95 (stated)
    = the baseline accuracy; everything predicted +1: 0.05 (derived)."""
    s = np.r_[np.zeros(950), np.ones(50)] * 0.5  # scores are irrelevant: one distinct threshold test
    y = np.r_[np.zeros(950, bool), np.ones(50, bool)]
    t = build_table(s, y)
    none = B.compute_metrics(t, 1.0)  # no score reaches 1.0: nothing flagged
    assert none.get("accuracy") == pytest.approx(0.95, abs=TOL)
    assert none.get("baseline_accuracy") == pytest.approx(0.95, abs=TOL)
    assert B.compute_metrics(t, -1.0).get("accuracy") == pytest.approx(0.05, abs=TOL)


@pytest.mark.parametrize("err1,err2,stated", [(0.2, 0.1, 0.5), (0.5, 0.25, 0.5), (0.001, 0.0001, 0.9)])
def test_a6_relative_error_reduction(err1, err2, stated):
    """A6 (S0 §2.1): errors 20 % → 10 %, 50 % → 25 %, 0.1 % → 0.01 % remove 50 %, 50 %, 90 %."""
    assert relative_error_reduction(1 - err1, 1 - err2) == pytest.approx(stated, rel=1e-9)


def test_a7_relative_improvement_of_auc_and_gini():
    """A7 (S0 §2.3): AUC 0.8 → 0.9 is +12.5 %, Gini 0.6 → 0.8 is +33.3 %, "almost three times" (2.67)."""
    auc = relative_change(0.9, 0.8)
    gini = relative_change(0.8, 0.6)
    assert auc == pytest.approx(0.125, abs=TOL) and gini == pytest.approx(1 / 3, abs=TOL)
    assert gini / auc == pytest.approx(8 / 3, abs=1e-9)


def test_a8_precision_and_recall_090_at_one_percent_prevalence():
    """A8 (S0 §2.2): l = 10^6, l+ = 10^4, TP 9000, FN 1000, FP 1000: accuracy = 99.8 % (stated)."""
    # four weighted rows stand for the million (frequency weights = repeated rows)
    s = np.array([1.0, 0.0, 1.0, 0.0])
    y = np.array([True, True, False, False])
    w = np.array([9000.0, 1000.0, 1000.0, 1_000_000 - 10_000 - 1000.0])
    m = B.compute_metrics(build_table(s, y, w), 0.5)
    assert m.get("accuracy") == pytest.approx(0.998, abs=TOL)
    assert (m.get("precision"), m.get("recall")) == pytest.approx((0.9, 0.9), abs=TOL)


def test_a9_f1_as_a_smoothed_minimum():
    """A9 (S0 §2.2): P = 0.9, R = 0.1: harmonic mean 0.18, geometric mean 0.3 (stated)."""
    assert harmonic_f(0.9, 0.1) == pytest.approx(0.18, abs=TOL)
    assert math.sqrt(0.9 * 0.1) == pytest.approx(0.3, abs=TOL)


def test_a11_math_articles_roc_versus_pr_under_imbalance():
    """A11 (S3, S0 §2.3): 100 positives among 10^6 negatives; flagging 95 positives and 50,000
    negatives is TPR 0.95, FPR 0.05 (stated); positives ranked after 50,000 negatives: AUC-ROC =
    0.95 (stated), AP ≈ 0.001 (stated; 0.0010086 exactly for ranks 50,001–50,100)."""
    # TPR / FPR: 95 of 100 positives and 50,000 of 10^6 negatives at score 1
    s = np.array([1.0, 0.0, 1.0, 0.0])
    y = np.array([True, True, False, False])
    m = B.compute_metrics(build_table(s, y, np.array([95.0, 5.0, 50_000.0, 950_000.0])), 0.5)
    assert (m.get("recall"), m.get("fpr")) == pytest.approx((0.95, 0.05), abs=TOL)
    assert m.get("precision") == pytest.approx(95 / 50_095, abs=TOL)
    # the ranking: 50,000 negatives on top, then the 100 positives (distinct scores), then the rest
    scores = np.r_[1e6 + np.zeros(1), 1e6 - 1 - np.arange(100), np.zeros(1)]
    y = np.r_[False, np.ones(100, bool), False]
    w = np.r_[50_000.0, np.ones(100), 950_000.0]
    m = B.compute_metrics(build_table(scores, y, w), 0.5)
    assert m.get("roc_auc") == pytest.approx(1 - 50_000 / 1e6, abs=TOL)
    ap = sum((k + 1) / (50_000 + k + 1) for k in range(100)) / 100
    assert m.get("average_precision") == pytest.approx(ap, abs=TOL)
    assert m.get("average_precision") == pytest.approx(0.0010086, abs=5e-8)


def test_a12_polyak_165_object_confusion_matrix():
    """A12 (S2): TN 50, FP 10, FN 5, TP 100; the derived values of docs/seed_examples.md (κ = 4/5)."""
    s = np.array([1.0, 0.0, 1.0, 0.0])
    y = np.array([True, True, False, False])
    w = np.array([100.0, 5.0, 10.0, 50.0])
    m = B.compute_metrics(build_table(s, y, w), 0.5, beta=2.0)
    want = {
        "accuracy": 10 / 11,
        "precision": 10 / 11,
        "recall": 20 / 21,
        "specificity": 5 / 6,
        "fpr": 1 / 6,
        "npv": 10 / 11,
        "f1": 40 / 43,
        "fbeta": 0.943396226415,
        "cohen_kappa": 4 / 5,
        "mcc": (100 * 50 - 10 * 5) / math.sqrt(110 * 105 * 60 * 55),
        "balanced_accuracy": 25 / 28,
        "youden_j": 20 / 21 + 5 / 6 - 1,
        "type_i_error": 10 / 165,
        "type_ii_error": 5 / 165,
    }
    for k, v in want.items():
        assert m.get(k) == pytest.approx(v, abs=1e-11), k
    assert m.get("mcc") == pytest.approx(0.801784, abs=1e-6)
    assert B.compute_metrics(build_table(s, y, w), 0.5, beta=0.5).get("fbeta") == pytest.approx(0.917431, abs=1e-6)


def _dyakonov_model_task(cells: int = 4000, prevalence: float | None = None):
    """A14 (S4): balanced classes, score density 2x for class 1 and 2(1 − x) for class 0 on [0, 1],
    "predict 1 if x > θ". Each cell [a, b) of a fine grid is one score a carrying its exact mass
    (b² − a² of class 1, (2b − b²) − (2a − a²) of class 0), so the cut "score ≥ a" is exactly x > a."""
    edges = np.linspace(0.0, 1.0, cells + 1)
    a, b = edges[:-1], edges[1:]
    pos, neg = b * b - a * a, (2 * b - b * b) - (2 * a - a * a)
    s = np.r_[a, a]
    y = np.r_[np.ones(cells, bool), np.zeros(cells, bool)]
    t = build_table(s, y, np.r_[pos, neg])
    return t if prevalence is None else B.shift_prevalence(t, prevalence)


@pytest.mark.parametrize("theta", [0.1, 0.25, 0.5, 0.75, 0.9])
def test_a14_closed_forms_of_the_metrics_against_the_threshold(theta):
    """A14 (S4): R = 1 − θ², P = (1 + θ)/2, F1 = (1 − θ²)/(1.5 − θ), MCC = √(θ(1 − θ)),
    κ = 2θ(1 − θ), BA = accuracy = (1 + 2θ − 2θ²)/2 (stated closed forms)."""
    m = B.compute_metrics(_dyakonov_model_task(), theta)
    want = {
        "recall": 1 - theta**2,
        "precision": (1 + theta) / 2,
        "f1": (1 - theta**2) / (1.5 - theta),
        "mcc": math.sqrt(theta * (1 - theta)),
        "cohen_kappa": 2 * theta * (1 - theta),
        "balanced_accuracy": (1 + 2 * theta - 2 * theta**2) / 2,
        "accuracy": (1 + 2 * theta - 2 * theta**2) / 2,
    }
    for k, v in want.items():
        assert m.get(k) == pytest.approx(v, abs=1e-9), k


@pytest.mark.parametrize(
    "prevalence,f1,mcc,kappa,ba,acc",
    [
        (None, 0.382, 0.5, 0.5, 0.5, 0.5),
        (0.3, 0.525, 0.604, 0.604, 0.5, 0.7),
        (0.1, 0.718, 0.75, 0.75, 0.5, 0.9),
        (0.05, 0.795, 0.813, 0.813, 0.5, 0.95),
    ],
)
def test_a14_optimal_thresholds_move_with_the_prevalence(prevalence, f1, mcc, kappa, ba, acc):
    """A14 (S4 figure "при изменении доли класса 1"; values derived in docs/seed_examples.md on a
    2.5e-4 grid): F1's optimum is (3 − √5)/2 ≈ 0.382 at π = 1/2, below MCC's, κ's and accuracy's at
    every π; BA's does not move; accuracy's is 1 − π; the others rise as positives get rarer.
    (docs/seed_examples.md calls F1's "the smallest"; its own table has BA's 0.5 below F1's
    for π < 1/2.)"""
    o = _optima(_dyakonov_model_task(prevalence=prevalence))
    got = {k: o[k].threshold for k in ("f1", "mcc", "cohen_kappa", "balanced_accuracy", "accuracy")}
    for k, v in zip(got, (f1, mcc, kappa, ba, acc)):
        assert got[k] == pytest.approx(v, abs=1e-3), k
    if prevalence is None:
        assert got["f1"] == pytest.approx((3 - math.sqrt(5)) / 2, abs=2.5e-4)
    assert got["f1"] == min(got[k] for k in ("f1", "mcc", "cohen_kappa", "accuracy"))


def test_a14_max_accuracy_is_not_always_at_least_max_balanced_accuracy():
    """A14 (S4 homework, derived answer): scores (0.1, 0.5, 0.9), y = (0, 1, 0): max accuracy 2/3,
    max BA 3/4."""
    o = _optima(build_table(np.array([0.1, 0.5, 0.9]), np.array([False, True, False])))
    assert o["accuracy"].value == pytest.approx(2 / 3, abs=TOL)
    assert o["balanced_accuracy"].value == pytest.approx(3 / 4, abs=TOL)


def test_c5_break_even_is_precision_at_l_plus_not_the_trivial_cut():
    """C5 (S0 §2.2): R-precision = precision at l+ predicted positives; P = R = 0 at TP = 0 is no
    break-even point (A1: the top-ranked row is a positive, so both are 2/3 there)."""
    o = _optima(build_table(A1_B, A1_Y))["break_even"]
    assert o.tp > 0 and o.value == pytest.approx(2 / 3, abs=TOL)
    assert o.tp + o.fp == A1_Y.sum()


@pytest.mark.parametrize("ratio", [(5.0, 1.0), (50.0, 10.0)])
def test_c7_drummond_holte_cost_curve_of_s1(ratio):
    """C7 (S1 §4): each ROC point is the segment from (0, FPR) to (1, FNR); the curve is their lower
    envelope; PC(+) = p·cost01 / (p·cost01 + (1 − p)·cost10); only the cost ratio matters."""
    fn, fp = ratio
    t = build_table(A1_B, A1_Y)
    c = B.compute_curves(t, 0.3, costs=B.Costs(fn=fn, fp=fp)).cost
    p = 3 / 5
    assert c.operating_pc == pytest.approx(p * fn / (p * fn + (1 - p) * fp), abs=TOL)
    roc = [(0, 0), (0, 1 / 3), (0, 2 / 3), (1 / 2, 2 / 3), (1, 2 / 3), (1, 1)]
    env = np.min([(1 - tpr) * c.pc + fpr * (1 - c.pc) for fpr, tpr in roc], axis=0)
    assert np.allclose(c.envelope, env, atol=TOL, rtol=0)
    # normalised expected cost of the operating point = FNR·PC + FPR·(1 − PC)
    fpr, tpr = c.operating_line
    m = B.compute_metrics(t, 0.3)
    assert (fpr, tpr) == pytest.approx((m.get("fpr"), m.get("recall")), abs=TOL)
