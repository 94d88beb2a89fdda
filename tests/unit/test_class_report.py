"""The multiclass classification table, accuracy against the NIR and per-class deltas
(reportgen.engine.class_report).

Oracles: scikit-learn's precision_recall_fscore_support (per class and averaged, with weights,
zero_division=0), scikit-learn's recall of the complement for specificity, scipy's binomtest for
the NIR p-value (caret's binom.test(correct, n, NIR, alternative = "greater"))."""

from __future__ import annotations

import numpy as np
import pytest
from scipy import stats
from sklearn import metrics as skm

from reportgen.engine import class_report as CR
from reportgen.engine.intervals import joint_confusion_bootstrap
from reportgen.engine.multiclass import confusion_matrix


def _case(seed: int, k: int = 4, n: int = 200, weighted: bool = False):
    rng = np.random.default_rng(seed)
    y = rng.integers(0, k, n)
    pred = np.where(rng.random(n) < 0.55, y, rng.integers(0, k - 1, n))  # class k-1 rarely predicted
    pred[pred == k - 1] = 0 if seed % 2 else pred[pred == k - 1]  # odd seeds: never predicted
    w = rng.uniform(0.2, 3.0, n) if weighted else None
    return y, pred, w, confusion_matrix(y, pred, k, w)


@pytest.mark.parametrize("seed", range(4))
@pytest.mark.parametrize("weighted", [False, True])
def test_classification_table_equals_scikit_learn(seed, weighted):
    k = 4
    y, pred, w, C = _case(seed, k, weighted=weighted)
    labels = list(range(k))
    rates = CR.class_rates(C)
    p, r, f, s = skm.precision_recall_fscore_support(y, pred, labels=labels, sample_weight=w, zero_division=np.nan)
    for name, want in (("precision", p), ("recall", r), ("f1", f)):
        np.testing.assert_allclose(rates[name], want, rtol=1e-12, equal_nan=True)
    np.testing.assert_allclose(C.sum(axis=1), s if w is None else [w[y == c].sum() for c in labels], rtol=1e-12)
    spec = [skm.recall_score(y != c, pred != c, sample_weight=w) for c in labels]
    np.testing.assert_allclose(rates["specificity"], spec, rtol=1e-12)
    avg = CR.class_averages(C)
    for a in ("macro", "weighted", "micro"):
        p, r, f, _ = skm.precision_recall_fscore_support(
            y, pred, labels=labels, sample_weight=w, average=a, zero_division=0
        )
        assert (avg[a]["precision"], avg[a]["recall"], avg[a]["f1"]) == pytest.approx((p, r, f), abs=1e-12), a
    # micro specificity: the pooled one-vs-rest problem (every row once per class)
    yy = np.concatenate([y == c for c in labels])
    pp = np.concatenate([pred == c for c in labels])
    ww = None if w is None else np.tile(w, k)
    assert avg["micro"]["specificity"] == pytest.approx(skm.recall_score(~yy, ~pp, sample_weight=ww), abs=1e-12)
    assert avg["macro"]["specificity"] == pytest.approx(np.mean(spec), abs=1e-12)


@pytest.mark.parametrize("seed", range(3))
def test_accuracy_against_nir_is_caret_one_sided_binomial(seed):
    y, _pred, _, C = _case(seed, n=150)
    values, why = CR.no_information_test(C, weighted=False)
    correct, n = int(np.trace(C)), len(y)
    nir = np.bincount(y).max() / n
    assert why is None and values["nir"] == pytest.approx(nir) and values["correct"] == correct
    want = stats.binomtest(correct, n, nir, alternative="greater").pvalue
    assert values["p_value"] == pytest.approx(want, rel=1e-9)
    assert CR.no_information_test(C, weighted=True) == ({**values, "p_value": None}, "weighted_rows")


def test_count_draws_keep_each_true_class_size_and_a_perfect_model_has_no_spread():
    C = np.array([[30.0, 5, 0], [4, 20, 6], [0, 0, 10]])
    draws = CR.count_draws(C, 50, np.random.default_rng(0))
    assert draws.shape == (50, 3, 3)
    np.testing.assert_array_equal(draws.sum(axis=2), np.broadcast_to(C.sum(axis=1), (50, 3)))
    assert len({d.tobytes() for d in draws}) > 1
    table, per_class = CR.classification_table(
        np.diag([20.0, 30, 10]),
        ["a", "b", "c"],
        weighted=False,
        resamples=40,
        level=0.95,
        rng=np.random.default_rng(1),
    )
    assert per_class["a"]["recall"] == [1.0, 1.0] and list(table.averages_ci["macro"]["f1"]) == [1.0, 1.0]
    weighted, none = CR.classification_table(
        C, ["a", "b", "c"], weighted=True, resamples=40, level=0.95, rng=np.random.default_rng(1)
    )
    assert none == {} and weighted.averages_ci == {} and weighted.ci_method is None


def test_class_deltas_are_the_difference_of_scikit_learn_values_with_paired_intervals():
    rng = np.random.default_rng(5)
    k, n = 3, 300
    y = rng.integers(0, k, n)
    pb = np.where(rng.random(n) < 0.5, y, rng.integers(0, k, n))
    pm = np.where(rng.random(n) < 0.8, y, pb)
    Cb, Cm = confusion_matrix(y, pb, k), confusion_matrix(y, pm, k)
    joint = np.zeros((k, k, k))
    np.add.at(joint, (y, pb, pm), 1.0)
    db, dm = joint_confusion_bootstrap(joint, 200, np.random.default_rng(2))
    out = CR.comparison_class_deltas(
        Cm,
        Cb,
        [0.9, None, 0.7],
        [0.8, 0.6, 0.75],
        ["a", "b", "c"],
        CR.class_delta_intervals(dm, db, list("abc"), 0.95),
        level=0.95,
    )
    want_r = skm.recall_score(y, pm, average=None) - skm.recall_score(y, pb, average=None)
    want_f = skm.f1_score(y, pm, average=None) - skm.f1_score(y, pb, average=None)
    for c, label in enumerate("abc"):
        assert out.delta[label]["recall"] == pytest.approx(want_r[c], abs=1e-12)
        assert out.delta[label]["f1"] == pytest.approx(want_f[c], abs=1e-12)
        lo, hi = out.ci[label]["recall"]
        assert lo <= want_r[c] <= hi
    assert out.delta["a"]["roc_auc"] == pytest.approx(0.1) and out.delta["b"]["roc_auc"] is None
    # paired: the model is right wherever the baseline is, so no class's recall can drop
    assert all(out.ci[label]["recall"][0] >= 0 for label in "abc")
    assert CR.comparison_class_deltas(Cm, Cb, [None] * 3, [None] * 3, list("abc"), None, level=0.95).ci == {}


def test_the_stacked_confusion_metrics_equal_multiclass_from_counts():
    from reportgen.engine.multiclass import multiclass_from_counts

    rng = np.random.default_rng(9)
    stack = rng.integers(0, 6, (5, 4, 4)).astype(float)
    stack[0, :, 3] = 0  # a class never predicted: precision undefined, counted as 0
    for key in ("accuracy", "error_rate", "f1_macro", "f1_weighted", "precision_macro", "recall_weighted", "f1_micro"):
        got = CR.confusion_metric(stack, key)
        want = [getattr(multiclass_from_counts(C, list("abcd"), int(C.sum())), key, None) for C in stack]
        if key == "error_rate":
            want = [1 - multiclass_from_counts(C, list("abcd"), int(C.sum())).accuracy for C in stack]
        np.testing.assert_allclose(got, want, rtol=1e-12, atol=1e-15, err_msg=key)
    assert CR.confusion_metric(stack, "mcc") is None
