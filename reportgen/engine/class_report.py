"""Multiclass at the depth of binary: the classification table, accuracy against the
no-information rate, per-class deltas against the baseline and the pairs of challengers.

Everything here reads confusion matrices only, so every engine (which counts the same matrices)
gives the same numbers, and a block of bootstrap resamples is array arithmetic on a stack of
matrices, shape (B, k, k), rows = true class.

* :func:`class_rates`: per class one-vs-rest precision TP/(TP+FP), recall TP/(TP+FN), F1
  2TP/(2TP+FP+FN) and specificity TN/(TN+FP); NaN where the denominator is 0 (the notation of
  :mod:`reportgen.engine.multiclass`).
* :func:`class_averages`: their macro mean, support-weighted mean (undefined counted as 0:
  scikit-learn's ``precision_recall_fscore_support(average=..., zero_division=0)``) and micro
  value (the pooled counts; micro precision = recall = F1 = accuracy in single-label problems).
* :func:`no_information_test`: accuracy against the no-information rate, the largest class share,
  with the one-sided exact binomial test ``p = P(X ≥ correct | n, NIR)`` (caret's
  ``confusionMatrix`` "Acc > NIR", PyCM's ``NIR`` and ``p-value``).
"""

from __future__ import annotations

from collections.abc import Sequence

import numpy as np

from reportgen.engine.distributions import binomial_sf
from reportgen.engine.intervals import (
    COUNT_BOOTSTRAP,
    JOINT_CONFUSION_BOOTSTRAP,
    multiclass_count_draws,
)
from reportgen.option_results import ClassDeltas, ClassificationTable

#: Per-class fields drawn from the confusion counts, in table order.
RATE_FIELDS: tuple[str, ...] = ("precision", "recall", "f1", "specificity")

#: Averages of the classification table, in table order.
AVERAGES: tuple[str, ...] = ("macro", "weighted", "micro")

#: Per-class fields whose challenger − baseline difference is drawn (paired) on the joint counts.
DELTA_FIELDS: tuple[str, ...] = ("recall", "f1")


def _div(num: np.ndarray, den: np.ndarray) -> np.ndarray:
    out = np.full(np.broadcast(num, den).shape, np.nan)
    np.divide(num, den, out=out, where=den > 0)
    return out


def class_rates(confusion: np.ndarray) -> dict[str, np.ndarray]:
    """Per class precision, recall, F1 and specificity of one or a stack of confusion matrices.

    ``confusion``: shape (..., k, k), rows = true class. Returns field → shape (..., k), NaN
    where undefined (no predicted positives, no support, class neither true nor predicted, every
    row of the class).
    """
    C = np.asarray(confusion, dtype=np.float64)
    tp = np.diagonal(C, axis1=-2, axis2=-1)
    support = C.sum(axis=-1)
    predicted = C.sum(axis=-2)
    m = C.sum(axis=(-2, -1))[..., None]
    fp, fn = predicted - tp, support - tp
    tn = np.maximum(m - support - predicted + tp, 0.0)
    return {
        "precision": _div(tp, tp + fp),
        "recall": _div(tp, support),
        "f1": _div(2.0 * tp, 2.0 * tp + fp + fn),
        "specificity": _div(tn, tn + fp),
    }


def class_averages(confusion: np.ndarray) -> dict[str, dict[str, np.ndarray]]:
    """Average → field → value, shape (...) for a stack of confusion matrices (..., k, k).

    macro = (1/k) Σ_c v_c and weighted = Σ_c support_c v_c / m with undefined v_c counted as 0
    (scikit-learn ``zero_division=0`` over every class); micro = the field of the pooled counts
    ΣTP, ΣFP, ΣFN, ΣTN.
    """
    C = np.asarray(confusion, dtype=np.float64)
    rates = class_rates(C)
    support = C.sum(axis=-1)
    m = support.sum(axis=-1)
    tp = np.diagonal(C, axis1=-2, axis2=-1).sum(axis=-1)
    wrong = m - tp  # every wrong row is one FP (of its prediction) and one FN (of its truth)
    k = C.shape[-1]
    tn = k * m - 2.0 * wrong - tp  # Σ_c TN_c = k·m − Σ(TP + FP + FN)
    micro = {
        "precision": _div(tp, m),
        "recall": _div(tp, m),
        "f1": _div(2.0 * tp, 2.0 * m),
        "specificity": _div(tn, tn + wrong),
    }
    macro, weighted = {}, {}
    for f, v in rates.items():
        v0 = np.nan_to_num(v, nan=0.0)
        macro[f] = v0.mean(axis=-1)
        weighted[f] = _div((support * v0).sum(axis=-1), m)
    return {"macro": macro, "weighted": weighted, "micro": micro}


def confusion_metric(confusion: np.ndarray, key: str) -> np.ndarray | None:
    """Metric ``key`` of a stack of confusion matrices (..., k, k) at once, for the keys this module
    computes (accuracy, error_rate, precision / recall / f1 with _macro, _weighted, _micro: the
    definitions of :func:`reportgen.engine.multiclass.multiclass_from_counts`); None for others."""
    C = np.asarray(confusion, dtype=np.float64)
    if key in ("accuracy", "error_rate"):
        acc = np.trace(C, axis1=-2, axis2=-1) / C.sum(axis=(-2, -1))
        return acc if key == "accuracy" else 1.0 - acc
    stem, _, avg = key.rpartition("_")
    if stem in ("precision", "recall", "f1") and avg in AVERAGES:
        return class_averages(C)[avg][stem]
    return None


def no_information_test(confusion: np.ndarray, weighted: bool) -> tuple[dict[str, float | None], str | None]:
    """Accuracy against the no-information rate: (values, reason the p-value is undefined).

    NIR = max_c support_c / n (the accuracy of always predicting the largest class); the test
    is one-sided exact binomial, ``p = P(X ≥ correct)`` for ``X ~ Bin(n, NIR)`` (caret
    ``confusionMatrix``: ``binom.test(correct, n, NIR, alternative = "greater")``; PyCM
    ``NIR``, ``p-value``). Weighted counts are not trials: the p-value is None with reason
    ``weighted_rows``.
    """
    C = np.asarray(confusion, dtype=np.float64)
    n = float(C.sum())
    correct = float(np.trace(C))
    nir = float(C.sum(axis=1).max() / n)
    values: dict[str, float | None] = {"accuracy": correct / n, "nir": nir, "correct": correct, "n": n}
    if weighted:
        values["p_value"] = None
        return values, "weighted_rows"
    values["p_value"] = float(binomial_sf(round(correct), round(n), nir))
    return values, None


def interval_of(draws: np.ndarray, level: float) -> list[float] | None:
    """The percentile interval of ``draws`` (NaN replicates left out), or None."""
    from reportgen.engine.stats import percentile_interval  # noqa: PLC0415

    iv = percentile_interval(draws, level)
    return None if iv is None else [float(iv[0]), float(iv[1])]


def per_class_intervals(draws: np.ndarray, labels: Sequence[str], level: float) -> dict[str, dict[str, list[float]]]:
    """Class → field → interval of each :data:`RATE_FIELDS` over drawn confusion matrices (B, k, k)."""
    rates = class_rates(draws)
    out: dict[str, dict[str, list[float]]] = {}
    for c, label in enumerate(labels):
        for f in RATE_FIELDS:
            if (iv := interval_of(rates[f][:, c], level)) is not None:
                out.setdefault(str(label), {})[f] = iv
    return out


def average_intervals(draws: np.ndarray, level: float) -> dict[str, dict[str, list[float]]]:
    """Average → field → interval over drawn confusion matrices (B, k, k)."""
    out: dict[str, dict[str, list[float]]] = {}
    for avg, fields in class_averages(draws).items():
        for f, v in fields.items():
            if (iv := interval_of(v, level)) is not None:
                out.setdefault(avg, {})[f] = iv
    return out


def class_deltas(model: np.ndarray, baseline: np.ndarray, labels: Sequence[str]) -> dict[str, dict[str, float | None]]:
    """Class → field → model − baseline of :data:`DELTA_FIELDS` (None where either is undefined)."""
    a, b = class_rates(model), class_rates(baseline)
    out: dict[str, dict[str, float | None]] = {}
    for c, label in enumerate(labels):
        out[str(label)] = {}
        for f in DELTA_FIELDS:
            d = float(a[f][c] - b[f][c])
            out[str(label)][f] = d if np.isfinite(d) else None
    return out


def class_delta_intervals(
    model_draws: np.ndarray, baseline_draws: np.ndarray, labels: Sequence[str], level: float
) -> dict[str, dict[str, list[float]]]:
    """Class → field → interval of the paired differences over the two models' drawn matrices,
    drawn together (:func:`~reportgen.engine.intervals.joint_confusion_bootstrap`)."""
    a, b = class_rates(model_draws), class_rates(baseline_draws)
    out: dict[str, dict[str, list[float]]] = {}
    for c, label in enumerate(labels):
        for f in DELTA_FIELDS:
            if (iv := interval_of(a[f][:, c] - b[f][:, c], level)) is not None:
                out.setdefault(str(label), {})[f] = iv
    return out


def count_draws(confusion: np.ndarray, resamples: int, rng: np.random.Generator) -> np.ndarray:
    """(resamples, k, k): the stratified row bootstrap of an unweighted model's confusion matrix,
    drawn on its counts (:func:`~reportgen.engine.intervals.multiclass_model_bootstrap`)."""
    return multiclass_count_draws(confusion, [], None, resamples, rng)[0]


def classification_table(
    confusion: np.ndarray,
    labels: Sequence[str],
    *,
    weighted: bool,
    resamples: int,
    level: float,
    rng: np.random.Generator,
) -> tuple[ClassificationTable, dict[str, dict[str, list[float]]]]:
    """A model's classification table and its per-class intervals (class → field → [lo, hi]).

    Intervals: the percentile intervals of the stratified bootstrap drawn on the confusion counts
    (:func:`count_draws`), the same in every engine; none for weighted rows (a weight sum is not
    a count) or without resamples.
    """
    C = np.asarray(confusion, dtype=np.float64)
    point = class_averages(C)
    averages = {a: {f: (float(v) if np.isfinite(v) else None) for f, v in fs.items()} for a, fs in point.items()}
    per_class_ci: dict[str, dict[str, list[float]]] = {}
    averages_ci: dict[str, dict[str, list[float]]] = {}
    method = None
    if not weighted and resamples > 0:
        draws = count_draws(C, resamples, rng)
        per_class_ci = per_class_intervals(draws, labels, level)
        averages_ci = average_intervals(draws, level)
        method = COUNT_BOOTSTRAP
    nir, why = no_information_test(C, weighted)
    table = ClassificationTable(
        averages=averages,
        averages_ci=averages_ci,
        ci_method=method,
        accuracy=float(nir["accuracy"] or 0.0),
        nir=float(nir["nir"] or 0.0),
        correct=float(nir["correct"] or 0.0),
        n=float(nir["n"] or 0.0),
        nir_p_value=nir["p_value"],
        nir_reason=why,
    )
    return table, per_class_ci


def comparison_class_deltas(
    model: np.ndarray,
    baseline: np.ndarray,
    model_auc: Sequence[float | None],
    baseline_auc: Sequence[float | None],
    labels: Sequence[str],
    joint_ci: dict[str, dict[str, list[float]]] | None,
    *,
    level: float,
    auc_draws: tuple[np.ndarray, np.ndarray, str] | None = None,
) -> ClassDeltas:
    """A challenger's per-class recall, F1 and one-vs-rest AUC differences from the baseline.

    ``joint_ci``: the recall and F1 differences' paired intervals (:func:`class_delta_intervals`
    of the model's and the baseline's confusion matrices drawn together on the pair's joint
    confusion counts, :func:`~reportgen.engine.intervals.joint_confusion_bootstrap`: the paired
    stratified row bootstrap exactly); None: none. ``auc_draws``: the model's and the baseline's
    per-class AUCs on the same resampled rows, (resamples, k) each, and their method: the AUC
    differences' paired intervals (as the averaged AUCs' differences).
    """
    delta = class_deltas(model, baseline, labels)
    for c, label in enumerate(labels):
        a, b = model_auc[c], baseline_auc[c]
        delta[str(label)]["roc_auc"] = None if a is None or b is None else float(a - b)
    ci: dict[str, dict[str, list[float]]] = {}
    method: dict[str, str] = {}
    if joint_ci is not None:
        ci = {c: dict(fields) for c, fields in joint_ci.items()}
        method = dict.fromkeys(DELTA_FIELDS, JOINT_CONFUSION_BOOTSTRAP)
    if auc_draws is not None:
        am, ab, how = auc_draws
        for c, label in enumerate(labels):
            if (iv := interval_of(am[:, c] - ab[:, c], level)) is not None:
                ci.setdefault(str(label), {})["roc_auc"] = iv
                method["roc_auc"] = how
    return ClassDeltas(delta=delta, ci=ci, ci_method=method)


def joint_of(y: np.ndarray, pred_a: np.ndarray, pred_b: np.ndarray, weight: np.ndarray, k: int) -> np.ndarray:
    """(k, k, k): weight of rows by (true class, a's prediction, b's prediction), the joint
    confusion counts of a pair (:class:`~reportgen.engine.evidence.Pairing` ``joint``)."""
    code = (np.asarray(y) * k + np.asarray(pred_a)) * k + np.asarray(pred_b)
    return np.bincount(code, weights=weight, minlength=k**3).reshape(k, k, k)


__all__ = [
    "AVERAGES",
    "DELTA_FIELDS",
    "RATE_FIELDS",
    "average_intervals",
    "class_averages",
    "class_delta_intervals",
    "class_deltas",
    "class_rates",
    "classification_table",
    "comparison_class_deltas",
    "confusion_metric",
    "count_draws",
    "joint_of",
    "no_information_test",
    "per_class_intervals",
]
