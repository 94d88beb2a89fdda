"""Verified cases for reportgen.engine.multiclass from the lecture notes in /work/shared/seeds.

Every expected value is derived by hand (exact fractions) from the numbers printed in a seed,
using the seed's own formulas; the comment on each test names the seed file and section.
"""

from __future__ import annotations

import math
from fractions import Fraction as Fr

import numpy as np
import pytest

from reportgen.engine.multiclass import compute_multiclass, confusion_matrix, harmonic_f
from reportgen.report.wording import undefined_text

TOL = 1e-12

# Seed 004_b5ddd3493063cd28.txt (Dyakonov, "Функционалы качества", slide "«Confusion Matrix» –
# матрица ошибок / несоответствий"): ten objects, true class y and answer a, classes {1, 2, 3}.
DYAKONOV_Y = np.array([1, 1, 1, 2, 2, 3, 3, 3, 1, 2])
DYAKONOV_A = np.array([1, 1, 2, 1, 3, 2, 3, 3, 2, 2])
# The slide's "матрица ошибок", rows y, columns a:
DYAKONOV_CM = np.array([[2, 2, 0], [1, 1, 1], [0, 1, 2]], dtype=float)


def dyakonov_metrics():
    return compute_multiclass(DYAKONOV_Y - 1, (1, 2, 3), y_pred_idx=DYAKONOV_A - 1)


def test_dyakonov_3class_confusion_matrix():
    # 004, "«Confusion Matrix» – матрица ошибок": the table printed with rows y, columns a.
    # (The slide's formula m_ij = Σ I[a_t = i] I[y_t = j] indexes the transpose; the printed
    # table, scikit-learn and reportgen all put the truth in rows.)
    np.testing.assert_array_equal(confusion_matrix(DYAKONOV_Y - 1, DYAKONOV_A - 1, 3), DYAKONOV_CM)
    np.testing.assert_array_equal(dyakonov_metrics().confusion, DYAKONOV_CM)


def test_dyakonov_3class_accuracy_and_baseline():
    # 004, "Обычная точность – Accuracy": Σ m_tt / Σ m_ts = (2 + 1 + 2) / 10. (The slide labels
    # this "MCE" with I[a ≠ y]; the right-hand side, the trace over the total, is the accuracy.)
    # The majority class (y = 1, four objects) gives the constant-answer baseline 4/10.
    m = dyakonov_metrics()
    assert m.accuracy == pytest.approx(0.5, abs=TOL)
    assert m.baseline_accuracy == pytest.approx(0.4, abs=TOL)


def test_dyakonov_3class_per_class_precision_recall():
    # 004 matrix with the per-class TP/FP/FN of seed 003 ("Общие понятия": TP, FP, FN counted
    # relative to one class) and P = TP/(TP+FP), R = TP/(TP+FN) (004, "Точность", "Полнота"):
    #   class 1: TP 2, column 3, row 4  -> P = 2/3, R = 1/2, F1 = 2·2/(2·2+1+2) = 4/7
    #   class 2: TP 1, column 4, row 3  -> P = 1/4, R = 1/3, F1 = 2/(2+3+2)     = 2/7
    #   class 3: TP 2, column 3, row 3  -> P = 2/3, R = 2/3, F1 = 4/(4+1+1)     = 2/3
    m = dyakonov_metrics()
    expected = [(2 / 3, 1 / 2, 4 / 7), (1 / 4, 1 / 3, 2 / 7), (2 / 3, 2 / 3, 2 / 3)]
    for pc, (p, r, f) in zip(m.per_class, expected):
        assert (pc.precision, pc.recall, pc.f1) == pytest.approx((p, r, f), abs=TOL)
    assert [pc.support for pc in m.per_class] == [4.0, 3.0, 3.0]
    # specificity of class 1: TN = 10 − 2 − 1 − 2 = 5, FP = 1 -> 5/6 (004, "Специфичность")
    assert m.per_class[0].specificity == pytest.approx(5 / 6, abs=TOL)


def test_dyakonov_3class_macro_micro_and_zhou_macro_f1():
    # Macro (seed 000 §2.4; seed 002 "с макроусреднением";  # noqa: RUF003 - the seed's Russian seed 001 §2 macro-P, macro-R):
    #   macro-P = (2/3 + 1/4 + 2/3) / 3 = 19/36,  macro-R = (1/2 + 1/3 + 2/3) / 3 = 1/2.
    # Zhou's macro-F1 (001 §2) = 2·(19/36)·(1/2) / (19/36 + 1/2) = 19/37.
    # Mean of per-class F1 = (4/7 + 2/7 + 2/3) / 3 = 32/63.
    # Micro (000 §2.4 with TP̄ = (1/K) Σ TP_k; 001 §2 with averaged TP̄, FP̄; 002 pooled sums):
    #   TP̄ = 5/3, FP̄ = FN̄ = 5/3 -> micro-P = micro-R = micro-F1 = 1/2 = accuracy.
    # Weighted precision (003 names "взвешенные варианты" of precision and recall, but its formula
    # did not survive extraction; support-weighted as scikit-learn's average='weighted'):
    #   (4·2/3 + 3·1/4 + 3·2/3) / 10 = 13/24.
    m = dyakonov_metrics()
    assert m.precision_macro == pytest.approx(19 / 36, abs=TOL)
    assert m.recall_macro == pytest.approx(1 / 2, abs=TOL)
    assert m.f1_of_macro_pr == pytest.approx(19 / 37, abs=TOL)
    assert m.f1_macro == pytest.approx(32 / 63, abs=TOL)
    assert m.f1_of_macro_pr != pytest.approx(m.f1_macro)  # the two "macro-F1"s differ
    tp_bar = Fr(2 + 1 + 2, 3)
    fp_bar = Fr((3 - 2) + (4 - 1) + (3 - 2), 3)
    assert m.precision_micro == pytest.approx(float(tp_bar / (tp_bar + fp_bar)), abs=TOL)
    assert (m.precision_micro, m.recall_micro, m.f1_micro) == pytest.approx((0.5, 0.5, 0.5), abs=TOL)
    assert m.precision_weighted == pytest.approx(13 / 24, abs=TOL)
    assert m.recall_weighted == pytest.approx(0.5, abs=TOL)  # weighted recall = accuracy
    # balanced accuracy (004, "Сбалансированная точность": mean of per-class recalls) = 1/2
    assert m.balanced_accuracy == pytest.approx(0.5, abs=TOL)


def test_dyakonov_3class_kappa_and_mcc():
    # 004, "Каппа Коэна": K = (Acc − Acc_chance)/(1 − Acc_chance), Acc_chance = Σ_c
    # (row_c / m)(column_c / m), generalised from the slide's two classes to three:
    #   rows (4, 3, 3), columns (3, 4, 3): Acc_chance = (12 + 12 + 9)/100 = 33/100,
    #   K = (1/2 − 33/100)/(67/100) = 17/67.
    # MCC (004 gives the 2×2 form; Gorodkin's R_K for K classes):
    #   (c·m − Σ p_c t_c) / √((m² − Σ p_c²)(m² − Σ t_c²)) = (5·10 − 33)/√((100 − 34)(100 − 34)) = 17/66.
    m = dyakonov_metrics()
    assert m.cohen_kappa == pytest.approx(17 / 67, abs=TOL)
    assert m.mcc == pytest.approx(17 / 66, abs=TOL)


# Seed 004, slides "Точность Accuracy" … "Коэффициент Мэттьюса": the 2×2 table
#            a = 0   a = 1
#   y = 0    13599    2600
#   y = 1      898     903
# entered as four rows with sample weights equal to the cell counts.
TABLE_Y = np.array([0, 0, 1, 1])
TABLE_A = np.array([0, 1, 0, 1])
TABLE_W = np.array([13599.0, 2600.0, 898.0, 903.0])


def test_dyakonov_binary_table_as_two_class_problem():
    # 004: Accuracy = (TN + TP)/m = 14502/18000; TPR = 903/1801; PPV = 903/3503;
    # TNR = 13599/16199; F1 = 2TP/(2TP + FP + FN) = 1806/5304; BA = (TPR + TNR)/2.
    m = compute_multiclass(TABLE_Y, ("y=0", "y=1"), y_pred_idx=TABLE_A, weights=TABLE_W)
    pos = m.per_class[1]
    assert m.accuracy == pytest.approx(14502 / 18000, abs=TOL)
    assert (pos.tp, pos.fp, pos.fn, pos.tn) == (903.0, 2600.0, 898.0, 13599.0)
    assert pos.recall == pytest.approx(903 / 1801, abs=TOL)
    assert pos.precision == pytest.approx(903 / 3503, abs=TOL)
    assert pos.specificity == pytest.approx(13599 / 16199, abs=TOL)
    assert pos.f1 == pytest.approx(1806 / 5304, abs=TOL)
    assert m.balanced_accuracy == pytest.approx((903 / 1801 + 13599 / 16199) / 2, abs=TOL)
    # recall of class 0 is the specificity of class 1 ("полнота для негативного класса")
    assert m.per_class[0].recall == pytest.approx(pos.specificity, abs=TOL)


def test_dyakonov_binary_table_kappa_and_mcc():
    # 004, "Каппа Коэна": Acc_chance = (16199/18000)(14497/18000) + (1801/18000)(3503/18000);
    # K = (14502/18000 − Acc_chance)/(1 − Acc_chance) = 9945097/41427097 ≈ 0.240063.
    # 004, "Коэффициент Мэттьюса": (TP·TN − FP·FN)/√((TP+FP)(TP+FN)(TN+FP)(TN+FN))
    #   = (903·13599 − 2600·898)/√(3503·1801·16199·14497) ≈ 0.258374.
    m = compute_multiclass(TABLE_Y, (0, 1), y_pred_idx=TABLE_A, weights=TABLE_W)
    po = Fr(14502, 18000)
    pe = Fr(16199 * 14497 + 1801 * 3503, 18000**2)
    kappa = (po - pe) / (1 - pe)
    assert kappa == Fr(9945097, 41427097)
    assert m.cohen_kappa == pytest.approx(float(kappa), abs=TOL)
    mcc = (903 * 13599 - 2600 * 898) / math.sqrt(3503 * 1801 * 16199 * 14497)
    assert m.mcc == pytest.approx(mcc, abs=TOL)
    assert m.mcc == pytest.approx(0.258374, abs=1e-6)


def test_zhou_cost_sensitive_error_rate_on_dyakonov_table():
    # 001 §4 "代价敏感错误率与代价曲线": E(f; D; cost) = (1/m)(Σ_{D+} I(f ≠ y)·cost_01 +
    # Σ_{D−} I(f ≠ y)·cost_10), class 0 the positive one. On the 004 table with cost_01 = 5,
    # cost_10 = 1: (2600·5 + 898·1)/18000 = 13898/18000.
    costs = np.array([[0.0, 5.0], [1.0, 0.0]])
    m = compute_multiclass(TABLE_Y, (0, 1), y_pred_idx=TABLE_A, weights=TABLE_W, costs=costs)
    assert m.expected_cost == pytest.approx(13898 / 18000, abs=TOL)


def test_dyakonov_constant_answer_on_imbalanced_classes():
    # 004, "Обычная точность": y = [0,0,0,0,1,0,0,0,0,0,0,0,0,1,0,0,0,0] — "выгодно выдавать
    # решение – константу 0!": accuracy 16/18 equals the majority baseline, while Cohen's kappa
    # (K = (16/18 − 16/18)/(1 − 16/18) = 0) and balanced accuracy (1/2) expose it; MCC is 0/0.
    y = np.array([0, 0, 0, 0, 1, 0, 0, 0, 0, 0, 0, 0, 0, 1, 0, 0, 0, 0])
    m = compute_multiclass(y, (0, 1), y_pred_idx=np.zeros_like(y))
    assert m.accuracy == pytest.approx(16 / 18, abs=TOL)
    assert m.baseline_accuracy == pytest.approx(16 / 18, abs=TOL)
    assert m.cohen_kappa == pytest.approx(0.0, abs=TOL)
    assert m.balanced_accuracy == pytest.approx(0.5, abs=TOL)
    assert m.mcc is None and m.reason("mcc")
    assert m.per_class[1].precision is None
    assert undefined_text("precision", m.per_class[1].reason("precision")) == "no predicted positives for class 1"


@pytest.mark.parametrize(
    ("precision", "recall", "printed"),
    [(0.05, 1.0, 0.1), (0.525, 0.525, 0.525), (0.2, 1.0, 0.33), (0.2, 0.3, 0.24)],
)
def test_neerc_harmonic_mean_examples(precision, recall, printed):
    # 003, "Различные виды агрегации Precision и Recall — Гармоническое среднее, или F-мера":
    # F(0.05, 1) = 0.1/1.05 ≈ 0.095 (printed 0.1), F(0.525, 0.525) = 0.525,
    # F(0.2, 1) = 0.4/1.2 = 1/3 (printed 0.33), F(0.2, 0.3) = 0.12/0.5 = 0.24.
    # This is the function that turns macro-P and macro-R into Zhou's macro-F1.
    exact = 2 * precision * recall / (precision + recall)
    assert harmonic_f(precision, recall) == pytest.approx(exact, abs=TOL)
    assert harmonic_f(precision, recall) == pytest.approx(printed, abs=0.005)


def test_fbeta_weights_recall_beta_times_more():
    # 001 §2: 1/F_β = (1/(1+β²))(1/P + β²/R); 004, "F_β score": F_β = (1+β²)·P·R/(R + β²·P).
    # Dyakonov 3-class example, class 1 (P = 2/3, R = 1/2), β = 2: 5·(1/3)/(1/2 + 8/3) = 10/19.
    m = compute_multiclass(DYAKONOV_Y - 1, (1, 2, 3), y_pred_idx=DYAKONOV_A - 1, beta=2.0)
    assert m.per_class[0].fbeta == pytest.approx(10 / 19, abs=TOL)
    inv = (1 / (1 + 4)) * (1 / (2 / 3) + 4 / (1 / 2))
    assert m.per_class[0].fbeta == pytest.approx(1 / inv, abs=TOL)


def test_zhou_auc_is_one_minus_rank_loss_with_ties_as_half():
    # 001 §3: AUC = 1 − ℓ_rank, ℓ_rank = (1/(m⁺m⁻)) Σ (I(f⁺ < f⁻) + ½ I(f⁺ = f⁻)).
    # Class 'a' one-vs-rest: positives score 0.9, 0.5; negatives 0.5, 0.2, 0.1. Of the 6 pairs
    # one is tied (0.5 vs 0.5) and none is reversed: ℓ_rank = 1/12, AUC = 11/12.
    y = np.array([0, 0, 1, 2, 1])
    proba = np.array([[0.9, 0.05, 0.05], [0.5, 0.3, 0.2], [0.5, 0.4, 0.1], [0.2, 0.2, 0.6], [0.1, 0.8, 0.1]])
    m = compute_multiclass(y, "abc", proba=proba)
    assert m.per_class[0].roc_auc == pytest.approx(11 / 12, abs=TOL)
