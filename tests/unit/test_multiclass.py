"""Unit tests of reportgen.engine.multiclass: scikit-learn as the oracle, plus hypothesis invariants."""

from __future__ import annotations

import dataclasses
import warnings

import numpy as np
import pytest
from hypothesis import given, settings
from hypothesis import strategies as st
from sklearn import metrics as skm

from reportgen.engine.multiclass import (
    LOG_LOSS_EPS,
    ClassRocCurve,
    MulticlassMetrics,
    argmax_predictions,
    compute_multiclass,
    confusion_matrix,
    harmonic_f,
    micro_roc_curve,
    per_class_roc,
)
from reportgen.report.wording import notice_text, undefined_text
from reportgen.results import Notice

TOL = 1e-12


def why(obj, name: str) -> str | None:
    """The sentence the report writes for ``obj.reason(name)`` (the engine returns the code)."""
    r = obj.reason(name)
    return None if r is None else undefined_text(name, r)


def note(m: MulticlassMetrics, name: str) -> str | None:
    """The report's sentences of the caveats recorded for summary field ``name`` (None if none)."""
    texts = [notice_text(Notice(n.code, {"model": "m", "metric": name, **n.params})) for n in m.notes_of(name)]
    return "; ".join(texts) if texts else None


# --------------------------------------------------------------------------------------
# Data
# --------------------------------------------------------------------------------------


def make_case(seed: int, k: int, n: int, *, weighted: bool, ties: bool = False, absent: tuple[int, ...] = ()):
    """Random truth, probabilities (rows sum to 1), a noisy prediction, optional weights.

    ``absent`` classes never occur in the truth (they may still be predicted).
    """
    rng = np.random.default_rng(seed)
    allowed = np.array([c for c in range(k) if c not in absent])
    y = rng.choice(allowed, size=n)
    y[: allowed.size] = allowed  # every allowed class occurs
    logits = rng.normal(size=(n, k))
    logits[np.arange(n), y] += 1.0
    proba = np.exp(logits)
    proba /= proba.sum(axis=1, keepdims=True)
    if ties:  # multiples of 1/10: many ties within columns and rows, some zeros
        proba = np.array([rng.multinomial(10, row) for row in proba]) / 10.0
    pred = np.where(rng.random(n) < 0.3, rng.integers(0, k, n), argmax_predictions(proba))
    w = rng.uniform(0.1, 3.0, n) if weighted else None
    return y, pred, proba, w


def _case_id(seed: int, k: int, n: int, weighted: bool, ties: bool) -> str:
    return f"s{seed}-k{k}-n{n}" + ("-w" if weighted else "") + ("-ties" if ties else "")


CASES = [
    pytest.param(seed, k, n, weighted, ties, id=_case_id(seed, k, n, weighted, ties))
    for seed, k, n, weighted, ties in [
        (0, 3, 60, False, False),
        (1, 3, 60, True, False),
        (2, 5, 200, False, True),
        (3, 5, 200, True, True),
        (4, 2, 50, False, False),
        (5, 4, 120, True, False),
    ]
]

STR_LABELS = ("ant", "bee", "cat", "dog", "eel")


def labels_for(k: int, kind: str) -> tuple:
    return tuple(STR_LABELS[:k]) if kind == "str" else tuple(10 * (c + 1) for c in range(k))


# --------------------------------------------------------------------------------------
# Confusion matrix and argmax
# --------------------------------------------------------------------------------------


@pytest.mark.parametrize(("seed", "k", "n", "weighted", "ties"), CASES)
def test_confusion_matrix_matches_sklearn(seed, k, n, weighted, ties):
    y, pred, _, w = make_case(seed, k, n, weighted=weighted, ties=ties)
    ours = confusion_matrix(y, pred, k, w)
    theirs = skm.confusion_matrix(y, pred, labels=list(range(k)), sample_weight=w)
    assert ours.shape == (k, k) and ours.dtype == np.float64
    np.testing.assert_allclose(ours, theirs, rtol=0, atol=1e-9)


def test_confusion_matrix_keeps_absent_classes_and_orientation():
    c = confusion_matrix(np.array([0, 0, 1]), np.array([1, 1, 1]), 4)
    expected = np.zeros((4, 4))
    expected[0, 1] = 2  # row = truth, column = prediction
    expected[1, 1] = 1
    np.testing.assert_array_equal(c, expected)


def test_confusion_matrix_rejects_out_of_range_and_float_indices():
    with pytest.raises(ValueError, match="class index 3"):
        confusion_matrix(np.array([0, 3]), np.array([0, 1]), 3)
    with pytest.raises(ValueError, match="integer class indices"):
        confusion_matrix(np.array([0.0, 1.0]), np.array([0, 1]), 3)
    with pytest.raises(ValueError, match="differ in length"):
        confusion_matrix(np.array([0, 1]), np.array([0]), 3)


def test_argmax_ties_go_to_lowest_index():
    proba = np.array([[0.4, 0.4, 0.2], [0.2, 0.4, 0.4], [1 / 3, 1 / 3, 1 / 3], [0.1, 0.2, 0.7]])
    np.testing.assert_array_equal(argmax_predictions(proba), [0, 1, 0, 2])


def test_argmax_rejects_nan():
    with pytest.raises(ValueError, match="NaN"):
        argmax_predictions(np.array([[np.nan, 0.5]]))


# --------------------------------------------------------------------------------------
# Precision / recall / F averages
# --------------------------------------------------------------------------------------


@pytest.mark.parametrize("label_kind", ["int", "str"])
@pytest.mark.parametrize("beta", [1.0, 0.5, 2.0])
@pytest.mark.parametrize(("seed", "k", "n", "weighted", "ties"), CASES)
def test_prf_averages_match_sklearn(seed, k, n, weighted, ties, beta, label_kind):
    y, pred, _, w = make_case(seed, k, n, weighted=weighted, ties=ties)
    labels = labels_for(k, label_kind)
    lab = np.asarray(labels)
    m = compute_multiclass(y, labels, y_pred_idx=pred, weights=w, beta=beta)
    kw = dict(labels=list(labels), sample_weight=w, zero_division=0)
    for avg in ("micro", "macro", "weighted"):
        p, r, f, _ = skm.precision_recall_fscore_support(lab[y], lab[pred], beta=beta, average=avg, **kw)
        assert getattr(m, f"precision_{avg}") == pytest.approx(p, abs=TOL)
        assert getattr(m, f"recall_{avg}") == pytest.approx(r, abs=TOL)
        assert getattr(m, f"fbeta_{avg}") == pytest.approx(f, abs=TOL)
        f1 = skm.f1_score(lab[y], lab[pred], average=avg, **kw)
        assert getattr(m, f"f1_{avg}") == pytest.approx(f1, abs=TOL)
    p, r, f, s = skm.precision_recall_fscore_support(lab[y], lab[pred], beta=beta, average=None, **kw)
    assert tuple(pc.label for pc in m.per_class) == labels
    for c, pc in enumerate(m.per_class):
        assert pc.support == pytest.approx(s[c], abs=1e-9)
        assert (pc.precision or 0.0) == pytest.approx(p[c], abs=TOL)
        assert (pc.recall or 0.0) == pytest.approx(r[c], abs=TOL)
        assert (pc.fbeta or 0.0) == pytest.approx(f[c], abs=TOL)


@pytest.mark.parametrize("weighted", [False, True])
def test_absent_classes_zero_division_matches_sklearn_and_records_reasons(weighted):
    # labels a..e; 'd' is predicted but never true, 'e' neither occurs nor is predicted,
    # 'c' occurs but is never predicted.
    labels = ("a", "b", "c", "d", "e")
    y = np.array([0, 0, 1, 1, 2, 2, 0, 1])
    pred = np.array([0, 1, 1, 3, 0, 1, 0, 3])
    w = np.linspace(0.5, 2.0, y.size) if weighted else None
    m = compute_multiclass(y, labels, y_pred_idx=pred, weights=w)
    lab = np.asarray(labels)
    kw = dict(labels=list(labels), sample_weight=w, zero_division=0)
    for avg in ("macro", "weighted", "micro"):
        p, r, f, _ = skm.precision_recall_fscore_support(lab[y], lab[pred], average=avg, **kw)
        assert getattr(m, f"precision_{avg}") == pytest.approx(p, abs=TOL)
        assert getattr(m, f"recall_{avg}") == pytest.approx(r, abs=TOL)
        assert getattr(m, f"f1_{avg}") == pytest.approx(f, abs=TOL)
    c, d, e = m.per_class[2], m.per_class[3], m.per_class[4]
    assert c.precision is None and why(c, "precision") == "no predicted positives for class 'c'"
    assert c.recall == 0.0 and c.f1 == 0.0  # defined: support > 0, nothing right
    assert d.recall is None and "support 0" in why(d, "recall")
    assert d.precision == 0.0 and d.f1 == 0.0
    assert e.precision is None and e.recall is None and e.f1 is None and e.fbeta is None
    assert "neither occurs nor is predicted" in why(e, "f1")
    assert e.specificity == 1.0
    assert "'c'" in note(m, "precision_macro") and "'e'" in note(m, "precision_macro")
    assert "'d'" in note(m, "recall_macro")
    assert note(m, "f1_of_macro_pr") is not None
    # balanced accuracy: mean recall over classes with support (scikit-learn drops 'd', 'e')
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        ba = skm.balanced_accuracy_score(lab[y], lab[pred], sample_weight=w)
    assert m.balanced_accuracy == pytest.approx(ba, abs=TOL)
    assert "'d', 'e'" in note(m, "balanced_accuracy")
    assert m.recall_macro != pytest.approx(m.balanced_accuracy)


def test_f1_of_macro_pr_is_harmonic_mean_of_macro_precision_and_recall():
    y, pred, _, _ = make_case(7, 4, 80, weighted=False)
    m = compute_multiclass(y, range(4), y_pred_idx=pred)
    p, r = m.precision_macro, m.recall_macro
    assert m.f1_of_macro_pr == pytest.approx(2 * p * r / (p + r), abs=TOL)
    assert harmonic_f(0.0, 0.0) == 0.0
    assert harmonic_f(0.5, 0.25, beta=2.0) == pytest.approx(5 * 0.5 * 0.25 / (4 * 0.5 + 0.25))


def test_specificity_and_counts():
    y, pred, _, w = make_case(8, 3, 50, weighted=True)
    m = compute_multiclass(y, "xyz", y_pred_idx=pred, weights=w)
    C = m.confusion
    for c, pc in enumerate(m.per_class):
        assert pc.tp + pc.fp + pc.fn + pc.tn == pytest.approx(m.total_weight)
        assert pc.fp == pytest.approx(C[:, c].sum() - C[c, c])
        assert pc.specificity == pytest.approx(pc.tn / (pc.tn + pc.fp))
        yt = (y == c).astype(int)
        yp = (pred == c).astype(int)
        tnr = skm.recall_score(yt, yp, pos_label=0, sample_weight=w)
        assert pc.specificity == pytest.approx(tnr, abs=TOL)


# --------------------------------------------------------------------------------------
# Accuracy, kappas, MCC, log-loss, expected cost
# --------------------------------------------------------------------------------------


@pytest.mark.parametrize("label_kind", ["int", "str"])
@pytest.mark.parametrize(("seed", "k", "n", "weighted", "ties"), CASES)
def test_scalar_metrics_match_sklearn(seed, k, n, weighted, ties, label_kind):
    y, pred, proba, w = make_case(seed, k, n, weighted=weighted, ties=ties)
    labels = labels_for(k, label_kind)
    lab = np.asarray(labels)
    m = compute_multiclass(y, labels, y_pred_idx=pred, proba=proba, weights=w, ordinal=True)
    yt, yp = lab[y], lab[pred]
    assert m.accuracy == pytest.approx(skm.accuracy_score(yt, yp, sample_weight=w), abs=TOL)
    assert m.balanced_accuracy == pytest.approx(skm.balanced_accuracy_score(yt, yp, sample_weight=w), abs=TOL)
    kl = list(labels)
    assert m.cohen_kappa == pytest.approx(skm.cohen_kappa_score(yt, yp, labels=kl, sample_weight=w), abs=TOL)
    qwk = skm.cohen_kappa_score(yt, yp, labels=kl, weights="quadratic", sample_weight=w)
    assert m.quadratic_weighted_kappa == pytest.approx(qwk, abs=TOL)
    assert m.mcc == pytest.approx(skm.matthews_corrcoef(yt, yp, sample_weight=w), abs=TOL)
    ll = skm.log_loss(y, proba, labels=list(range(k)), sample_weight=w)
    assert m.log_loss == pytest.approx(ll, abs=TOL)
    counts = np.bincount(y, weights=w, minlength=k)
    assert m.baseline_accuracy == pytest.approx(counts.max() / counts.sum(), abs=TOL)
    assert m.total_weight == pytest.approx(counts.sum()) and m.n_rows == n
    assert m.labels == labels


def test_quadratic_kappa_uses_positions_of_absent_classes():
    # class 1 is absent from truth and predictions, but still sits between 0 and 2
    y = np.array([0, 0, 2, 2, 3, 3])
    pred = np.array([0, 2, 2, 3, 3, 2])
    m = compute_multiclass(y, ["low", "mid", "high", "top"], y_pred_idx=pred, ordinal=True)
    ref = skm.cohen_kappa_score(y, pred, labels=[0, 1, 2, 3], weights="quadratic")
    assert m.quadratic_weighted_kappa == pytest.approx(ref, abs=TOL)
    squeezed = skm.cohen_kappa_score(y, pred, weights="quadratic")  # labels 0, 2, 3 at positions 0, 1, 2
    assert m.quadratic_weighted_kappa != pytest.approx(squeezed)


def test_mcc_undefined_is_none_where_sklearn_returns_zero():
    y = np.array([0, 1, 2, 1])
    pred = np.zeros(4, dtype=int)
    m = compute_multiclass(y, "abc", y_pred_idx=pred)
    assert skm.matthews_corrcoef(y, pred) == 0.0
    assert m.mcc is None and "single class is predicted" in why(m, "mcc")
    assert m.cohen_kappa == pytest.approx(skm.cohen_kappa_score(y, pred), abs=TOL)  # 0.0, defined


def test_kappa_undefined_when_everything_is_one_class():
    y = np.ones(5, dtype=int)
    m = compute_multiclass(y, "abc", y_pred_idx=y, ordinal=True)
    assert m.accuracy == 1.0
    assert m.cohen_kappa is None and m.quadratic_weighted_kappa is None and m.mcc is None
    assert "one and the same class" in why(m, "cohen_kappa")
    assert m.per_class[1].specificity is None and why(m.per_class[1], "specificity")


def test_log_loss_clipping_matches_sklearn():
    y = np.array([0, 1, 2, 2])
    proba = np.array([[1.0, 0.0, 0.0], [1.0, 0.0, 0.0], [0.0, 0.5, 0.5], [0.2, 0.2, 0.6]])
    m = compute_multiclass(y, "abc", proba=proba)
    assert m.log_loss == pytest.approx(skm.log_loss(y, proba, labels=[0, 1, 2]), abs=TOL)
    by_hand = -(np.log(1 - LOG_LOSS_EPS) + np.log(LOG_LOSS_EPS) + np.log(0.5) + np.log(0.6)) / 4
    assert m.log_loss == pytest.approx(by_hand)


def test_log_loss_unnormalised_rows_kept_with_note():
    y = np.array([0, 1, 2])
    proba = np.array([[0.5, 0.2, 0.1], [0.1, 0.8, 0.3], [0.2, 0.2, 0.2]])
    m = compute_multiclass(y, "abc", proba=proba)
    with pytest.warns(UserWarning, match="do not sum to one"):
        ref = skm.log_loss(y, proba, labels=[0, 1, 2])
    assert m.log_loss == pytest.approx(ref, abs=TOL)
    assert "do not sum to 1" in note(m, "log_loss")


def test_log_loss_none_for_scores_outside_unit_interval_but_auc_defined():
    y = np.array([0, 1, 2, 0])
    scores = np.array([[3.0, -1.0, 0.0], [0.0, 2.0, 1.0], [-2.0, 0.0, 5.0], [1.0, 1.5, 0.0]])
    m = compute_multiclass(y, "abc", proba=scores)
    assert m.log_loss is None and "outside [0, 1]" in why(m, "log_loss")
    assert m.roc_auc_ovr_macro is not None and m.roc_auc_ovo_macro is not None


def test_expected_cost_is_mean_cost_per_row():
    y, pred, _, w = make_case(9, 3, 40, weighted=True)
    costs = np.array([[0.0, 1.0, 4.0], [2.0, 0.0, 1.0], [8.0, 3.0, -0.5]])
    m = compute_multiclass(y, "abc", y_pred_idx=pred, weights=w, costs=costs)
    assert m.expected_cost == pytest.approx(np.average(costs[y, pred], weights=w), abs=TOL)
    m2 = compute_multiclass(y, "abc", y_pred_idx=pred)
    assert m2.expected_cost is None and why(m2, "expected_cost") == "no cost matrix given"


def test_without_probabilities_ranking_metrics_are_none_with_reasons():
    y, pred, _, _ = make_case(10, 3, 30, weighted=False)
    m = compute_multiclass(y, "abc", y_pred_idx=pred)
    probability_fields = ("log_loss", "roc_auc_ovr_micro", "roc_auc_ovr_macro", "roc_auc_ovr_weighted")
    for name in (*probability_fields, "roc_auc_ovo_macro"):
        assert getattr(m, name) is None and why(m, name) == "no probabilities given"
    assert all(pc.roc_auc is None and why(pc, "roc_auc") == "no probabilities given" for pc in m.per_class)


def test_probabilities_only_uses_argmax_and_both_uses_given_predictions():
    y, pred, proba, _ = make_case(11, 4, 60, weighted=False)
    only = compute_multiclass(y, range(4), proba=proba)
    np.testing.assert_array_equal(only.confusion, confusion_matrix(y, argmax_predictions(proba), 4))
    assert only.notes_of("predictions") == ()  # the rule is a fact of the result (decision_rule: argmax)
    both = compute_multiclass(y, range(4), y_pred_idx=pred, proba=proba)
    np.testing.assert_array_equal(both.confusion, confusion_matrix(y, pred, 4))
    assert both.roc_auc_ovr_macro == only.roc_auc_ovr_macro


# --------------------------------------------------------------------------------------
# AUCs and curves
# --------------------------------------------------------------------------------------


@pytest.mark.parametrize(("seed", "k", "n", "weighted", "ties"), CASES)
def test_auc_matches_sklearn(seed, k, n, weighted, ties):
    y, pred, proba, w = make_case(seed, k, n, weighted=weighted, ties=ties)
    m = compute_multiclass(y, range(k), y_pred_idx=pred, proba=proba, weights=w)
    if k > 2:
        for avg in ("macro", "weighted", "micro"):
            ref = skm.roc_auc_score(y, proba, multi_class="ovr", average=avg, sample_weight=w)
            assert getattr(m, f"roc_auc_ovr_{avg}") == pytest.approx(ref, abs=TOL)
        if w is None:
            ovo = skm.roc_auc_score(y, proba, multi_class="ovo")
            assert m.roc_auc_ovo_macro == pytest.approx(ovo, abs=TOL)
    else:
        # binary: every one-vs-rest AUC and the OvO AUC are the AUC of column 1
        ref = skm.roc_auc_score(y, proba[:, 1], sample_weight=w)
        for name in ("roc_auc_ovr_macro", "roc_auc_ovr_weighted", "roc_auc_ovo_macro"):
            assert getattr(m, name) == pytest.approx(ref, abs=TOL)
    for c, pc in enumerate(m.per_class):
        assert pc.roc_auc == pytest.approx(skm.roc_auc_score(y == c, proba[:, c], sample_weight=w), abs=TOL)


def test_ovo_with_integer_weights_equals_replicated_rows():
    y, _, proba, _ = make_case(12, 4, 50, weighted=False, ties=True)
    w = np.random.default_rng(12).integers(0, 4, y.size)
    w[:4] = 1  # keep every class
    weighted = compute_multiclass(y, range(4), proba=proba, weights=w.astype(float))
    rep = np.repeat(np.arange(y.size), w)
    replicated = compute_multiclass(y[rep], range(4), proba=proba[rep])
    assert weighted.roc_auc_ovo_macro == pytest.approx(replicated.roc_auc_ovo_macro, abs=TOL)
    ovo = skm.roc_auc_score(y[rep], proba[rep], multi_class="ovo")
    assert weighted.roc_auc_ovo_macro == pytest.approx(ovo, abs=TOL)
    assert weighted.roc_auc_ovr_macro == pytest.approx(replicated.roc_auc_ovr_macro, abs=TOL)


def test_hand_till_definition_on_pairs():
    y, _, proba, _ = make_case(13, 3, 40, weighted=False, ties=True)
    m = compute_multiclass(y, "abc", proba=proba)
    pairs = []
    for i, j in ((0, 1), (0, 2), (1, 2)):
        mask = (y == i) | (y == j)
        a_ij = skm.roc_auc_score(y[mask] == i, proba[mask, i])
        a_ji = skm.roc_auc_score(y[mask] == j, proba[mask, j])
        pairs.append((a_ij + a_ji) / 2)
    assert m.roc_auc_ovo_macro == pytest.approx(np.mean(pairs), abs=TOL)


def test_class_absent_from_truth_is_left_out_of_auc_averages():
    y, pred, proba, w = make_case(14, 4, 80, weighted=True, absent=(2,))
    m = compute_multiclass(y, list("abcd"), y_pred_idx=pred, proba=proba, weights=w)
    assert m.per_class[2].roc_auc is None and "no positives for class 'c'" in why(m.per_class[2], "roc_auc")
    present = [0, 1, 3]
    aucs = [skm.roc_auc_score(y == c, proba[:, c], sample_weight=w) for c in present]
    supports = [w[y == c].sum() for c in present]
    assert m.roc_auc_ovr_macro == pytest.approx(np.mean(aucs), abs=TOL)
    assert m.roc_auc_ovr_weighted == pytest.approx(np.average(aucs, weights=supports), abs=TOL)
    assert "'c'" in note(m, "roc_auc_ovr_macro")
    # OvO: pairs with 'c' are dropped; the rest is Hand & Till on the present classes
    sub = np.isin(y, present)
    remap = np.searchsorted(present, y[sub])
    pr = proba[sub][:, present]
    pairs = []
    for i, j in ((0, 1), (0, 2), (1, 2)):
        mask = (remap == i) | (remap == j)
        ww = w[sub][mask]
        a_ij = skm.roc_auc_score(remap[mask] == i, pr[mask, i], sample_weight=ww)
        a_ji = skm.roc_auc_score(remap[mask] == j, pr[mask, j], sample_weight=ww)
        pairs.append((a_ij + a_ji) / 2)
    assert m.roc_auc_ovo_macro == pytest.approx(np.mean(pairs), abs=TOL)
    assert "('a', 'c')" in note(m, "roc_auc_ovo_macro")


def test_auc_none_when_only_one_class_occurs():
    y = np.zeros(4, dtype=int)
    proba = np.array([[0.5, 0.5], [0.6, 0.4], [0.7, 0.3], [0.9, 0.1]])
    m = compute_multiclass(y, "ab", proba=proba)
    assert m.roc_auc_ovr_macro is None and why(m, "roc_auc_ovr_macro")
    assert m.roc_auc_ovo_macro is None and why(m, "roc_auc_ovo_macro")
    assert why(m.per_class[0], "roc_auc").startswith("no negatives")


@pytest.mark.parametrize("weighted", [False, True])
def test_roc_curves_match_sklearn(weighted):
    y, _, proba, w = make_case(15, 3, 70, weighted=weighted, ties=True)
    curves = per_class_roc(y, proba, ("a", "b", "c"), w)
    assert [c.label for c in curves] == ["a", "b", "c"]
    for c, curve in enumerate(curves):
        fpr, tpr, thr = skm.roc_curve(y == c, proba[:, c], sample_weight=w, drop_intermediate=False)
        np.testing.assert_allclose(curve.fpr, fpr, atol=1e-12)
        np.testing.assert_allclose(curve.tpr, tpr, atol=1e-12)
        np.testing.assert_array_equal(curve.thresholds, thr[1:])  # sklearn prepends +inf
        assert curve.auc == pytest.approx(skm.auc(fpr, tpr), abs=TOL)
    micro = micro_roc_curve(y, proba, 3, w)
    onehot = y[:, None] == np.arange(3)
    ww = None if w is None else np.repeat(w, 3)
    fpr, tpr, _ = skm.roc_curve(onehot.ravel(), proba.ravel(), sample_weight=ww, drop_intermediate=False)
    assert isinstance(micro, ClassRocCurve) and micro.label is None
    np.testing.assert_allclose(micro.fpr, fpr, atol=1e-12)
    np.testing.assert_allclose(micro.tpr, tpr, atol=1e-12)
    assert micro.fpr[0] == 0.0 and micro.tpr[-1] == 1.0
    assert not micro.fpr.flags.writeable


@pytest.mark.parametrize("weighted", [False, True])
def test_curve_aucs_agree_with_metric_aucs(weighted):
    y, pred, proba, w = make_case(17, 4, 90, weighted=weighted, ties=True)
    m = compute_multiclass(y, "abcd", y_pred_idx=pred, proba=proba, weights=w)
    for curve, pc in zip(per_class_roc(y, proba, "abcd", w), m.per_class):
        assert curve.auc == pytest.approx(pc.roc_auc, abs=TOL)
    assert micro_roc_curve(y, proba, 4, w).auc == pytest.approx(m.roc_auc_ovr_micro, abs=TOL)


def test_roc_curve_of_class_without_positives_is_empty_with_reason():
    y = np.array([0, 1, 0, 1])
    proba = np.array([[0.7, 0.2, 0.1], [0.1, 0.8, 0.1], [0.5, 0.3, 0.2], [0.3, 0.3, 0.4]])
    curves = per_class_roc(y, proba, "abc")
    assert (
        curves[2].auc is None and curves[2].fpr.size == 0 and "class 'c'" in undefined_text("roc_auc", curves[2].reason)
    )


# --------------------------------------------------------------------------------------
# Types and validation
# --------------------------------------------------------------------------------------


def test_results_are_frozen_and_labels_are_plain_python():
    y, pred, _, _ = make_case(16, 3, 20, weighted=False)
    m = compute_multiclass(y, np.array([1, 2, 3]), y_pred_idx=pred)
    assert isinstance(m, MulticlassMetrics)
    assert all(type(lab) is int for lab in m.labels)
    with pytest.raises(dataclasses.FrozenInstanceError):
        m.accuracy = 0.0  # type: ignore[misc]
    with pytest.raises(dataclasses.FrozenInstanceError):
        m.per_class[0].precision = 0.0  # type: ignore[misc]
    assert not m.confusion.flags.writeable
    assert not hasattr(m, "__dict__")  # slots


@pytest.mark.parametrize(
    ("kwargs", "match"),
    [
        (dict(labels="a"), "at least 2"),
        (dict(labels="aab"), "distinct"),
        (dict(beta=0.0), "beta"),
        (dict(y_pred_idx=None), "either y_pred_idx or proba"),
        (dict(y_pred_idx=np.array([0, 1])), "differ in length"),
        (dict(proba=np.ones((3, 2))), "shape"),
        (dict(proba=np.full((3, 3), np.nan)), "NaN"),
        (dict(weights=np.array([1.0, -1.0, 1.0])), "non-negative"),
        (dict(weights=np.zeros(3)), "sum to zero"),
        (dict(costs=np.ones((2, 2))), "costs"),
    ],
)
def test_invalid_inputs_raise(kwargs, match):
    args = dict(labels="abc", y_pred_idx=np.array([0, 1, 2]))
    args.update(kwargs)
    labels = args.pop("labels")
    with pytest.raises(ValueError, match=match):
        compute_multiclass(np.array([0, 1, 2]), labels, **args)


# --------------------------------------------------------------------------------------
# Hypothesis invariants
# --------------------------------------------------------------------------------------


@st.composite
def problems(draw, max_k: int = 5, max_n: int = 40):
    k = draw(st.integers(2, max_k))
    n = draw(st.integers(1, max_n))
    y = np.array(draw(st.lists(st.integers(0, k - 1), min_size=n, max_size=n)))
    pred = np.array(draw(st.lists(st.integers(0, k - 1), min_size=n, max_size=n)))
    grid = np.array(draw(st.lists(st.integers(0, 10), min_size=n * k, max_size=n * k)), dtype=float)
    proba = (grid.reshape(n, k) + 0.5) / 11.0  # coarse grid: plenty of ties, values in (0, 1)
    weighted = draw(st.booleans())
    w = None
    if weighted:
        w = np.array(draw(st.lists(st.integers(1, 5), min_size=n, max_size=n)), dtype=float)
    return k, y, pred, proba, w


SETTINGS = settings(max_examples=60, deadline=None)


@SETTINGS
@given(problems())
def test_micro_averages_equal_accuracy(case):
    k, y, pred, proba, w = case
    m = compute_multiclass(y, range(k), y_pred_idx=pred, proba=proba, weights=w)
    for name in ("precision_micro", "recall_micro", "f1_micro", "fbeta_micro"):
        assert getattr(m, name) == pytest.approx(m.accuracy, abs=1e-12)


@pytest.mark.slow  # ~2.5 s
@SETTINGS
@given(problems(max_k=2))
def test_two_class_problem_gives_binary_numbers(case):
    _, y, pred, _, w = case
    m = compute_multiclass(y, (0, 1), y_pred_idx=pred, weights=w)
    pc = m.per_class[1]
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        p = skm.precision_score(y, pred, sample_weight=w, zero_division=0, labels=[0, 1])
        r = skm.recall_score(y, pred, sample_weight=w, zero_division=0, labels=[0, 1])
        f = skm.f1_score(y, pred, sample_weight=w, zero_division=0, labels=[0, 1])
        mcc = skm.matthews_corrcoef(y, pred, sample_weight=w)
    assert (pc.precision or 0.0) == pytest.approx(p, abs=1e-12)
    assert (pc.recall or 0.0) == pytest.approx(r, abs=1e-12)
    assert (pc.f1 or 0.0) == pytest.approx(f, abs=1e-12)
    assert (m.mcc or 0.0) == pytest.approx(mcc, abs=1e-12)
    assert pc.precision is not None or not (pred == 1).any()
    assert pc.recall is not None or not (y == 1).any()


@SETTINGS
@given(problems(), st.sampled_from(["cube", "exp", "log", "affine"]))
def test_aucs_invariant_to_increasing_transforms(case, transform):
    k, y, _, proba, w = case
    f = {
        "cube": lambda x: x**3,
        "exp": np.exp,
        "log": np.log,
        "affine": lambda x: 7.0 * x - 3.0,
    }[transform]
    a = compute_multiclass(y, range(k), proba=proba, weights=w)
    b = compute_multiclass(y, range(k), proba=f(proba), weights=w)
    for name in ("roc_auc_ovr_micro", "roc_auc_ovr_macro", "roc_auc_ovr_weighted", "roc_auc_ovo_macro"):
        va, vb = getattr(a, name), getattr(b, name)
        assert (va is None) == (vb is None)
        if va is not None:
            assert vb == pytest.approx(va, abs=1e-12)
    for pa, pb in zip(a.per_class, b.per_class):
        assert (pa.roc_auc is None) == (pb.roc_auc is None)
        if pa.roc_auc is not None:
            assert pb.roc_auc == pytest.approx(pa.roc_auc, abs=1e-12)


@SETTINGS
@given(problems(), st.floats(0.25, 4.0))
def test_rates_in_range_and_none_comes_with_a_reason(case, beta):
    k, y, pred, proba, w = case
    m = compute_multiclass(y, range(k), y_pred_idx=pred, proba=proba, weights=w, beta=beta)
    unit = [
        "accuracy", "baseline_accuracy", "balanced_accuracy", "log_loss",
        "precision_micro", "precision_macro", "precision_weighted",
        "recall_micro", "recall_macro", "recall_weighted",
        "f1_micro", "f1_macro", "f1_weighted", "fbeta_micro", "fbeta_macro", "fbeta_weighted",
        "f1_of_macro_pr", "roc_auc_ovr_micro", "roc_auc_ovr_macro", "roc_auc_ovr_weighted",
        "roc_auc_ovo_macro",
    ]  # fmt: skip
    for name in unit:
        v = getattr(m, name)
        if v is None:
            assert m.reason(name), name
        elif name == "log_loss":
            assert v >= 0.0
        else:
            assert 0.0 <= v <= 1.0 + 1e-12, name
    for name in ("cohen_kappa", "quadratic_weighted_kappa", "mcc"):
        v = getattr(m, name)
        assert (v is None and m.reason(name)) or -1.0 - 1e-12 <= v <= 1.0 + 1e-12
    assert m.accuracy >= 0 and m.balanced_accuracy >= 0
    for pc in m.per_class:
        for name in ("precision", "recall", "specificity", "f1", "fbeta", "roc_auc"):
            v = getattr(pc, name)
            assert (v is None and pc.reason(name)) or 0.0 <= v <= 1.0 + 1e-12
    assert m.confusion.sum() == pytest.approx(m.total_weight)
