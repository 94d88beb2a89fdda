"""A multiclass model's probabilities judged as probabilities: the Brier score, calibration
errors, top-k accuracy and the cost-optimal decision rule.

Notation: p (n, k) the class probabilities, y the true class indices, w the row weights
(1 without weights), m = Σ w, B equal-width bins of (0, 1]: bin b is (b/B, (b + 1)/B], q = 0
in bin 0 (and a score above 1 in the last).

* Brier score (the classic multiclass definition, Brier 1950; scikit-learn ≥ 1.7
  ``brier_score_loss`` on an (n, k) matrix): Σ_r w_r Σ_c (p_rc − [y_r = c])² / m, in [0, 2].
  Expanded, Σ_c p_rc² − 2 p_{r, y_r} + 1: sums over each column's class tables
  (:mod:`reportgen.engine.class_tables`), so every engine gives it from the same tables.
* Class-wise ECE (Kull et al. 2019, "Beyond temperature scaling", classwise-ECE; Nixon et al.
  2019): (1/k) Σ_c Σ_b (m_cb / m) |ō_cb − p̄_cb|, per class c its column's probabilities
  binned, ō the share of rows of class c in the bin and p̄ their mean probability; from the
  class tables too.
* Top-label ECE (Guo et al. 2017, "On calibration of modern neural networks", eq. 3): the
  confidence max_c p_rc of each row binned, Σ_b (m_b / m) |acc_b − conf_b| with acc the share of
  rows whose argmax (ties → lowest index, the report's decision rule) is the true class. Needs
  each row's whole probability vector: the kept rows.
* Top-k accuracy (scikit-learn ``top_k_accuracy_score``): the share of rows whose true class is
  among the k highest scores; tied scores are ordered as scikit-learn orders them, the higher
  class index first, so the true class's rank is #{c : p_c > p_y} + #{c > y : p_c = p_y}.
* Cost-optimal rule (Bayes decision with a cost matrix, Elkan 2001; seed 001 §4): predict
  argmin_j Σ_i p_i C[i, j] (ties → lowest index), C[i, j] the cost of predicting j for a row of
  class i; its confusion matrix and expected cost Σ_ij N_ij C_ij / m beside argmax's.
"""

from __future__ import annotations

import numpy as np

from reportgen.engine.class_tables import ClassTables
from reportgen.results import ClassProbabilities

#: Equal-width bins of the calibration errors.
ECE_BINS = 10


def _in_unit(t: ClassTables) -> bool:
    return t.p_min >= 0.0 and t.p_max <= 1.0


def bin_of(q: np.ndarray, bins: int) -> np.ndarray:
    """The bin of each probability: how many inner edges b/B lie strictly below it, so bin b is
    (b/B, (b+1)/B] exactly as the edges are floats (no rounding of q·B), 0 in bin 0."""
    edges = np.arange(1, bins, dtype=np.float64) / bins
    return np.searchsorted(edges, np.asarray(q, dtype=np.float64), side="left")


def brier_from_tables(t: ClassTables) -> float | None:
    """The multiclass Brier score from the class tables; None when a probability leaves [0, 1]."""
    if not _in_unit(t):
        return None
    m = float(t.class_weight().sum())
    squares = sum(float(np.dot(t.counts[j][i], t.values[j][i] ** 2)) for j in range(t.k) for i in range(t.k))
    true_col = sum(float(np.dot(t.counts[i][i], t.values[i][i])) for i in range(t.k))
    return (squares - 2.0 * true_col + m) / m


def classwise_ece_from_tables(t: ClassTables, bins: int = ECE_BINS) -> float | None:
    """The class-wise ECE from the class tables; None when a probability leaves [0, 1]."""
    if not _in_unit(t):
        return None
    m = float(t.class_weight().sum())
    total = 0.0
    for c in range(t.k):
        weight = np.zeros(bins)
        score = np.zeros(bins)
        positives = np.zeros(bins)
        for i in range(t.k):
            b = bin_of(t.values[c][i], bins)
            weight += np.bincount(b, weights=t.counts[c][i], minlength=bins)
            score += np.bincount(b, weights=t.counts[c][i] * t.values[c][i], minlength=bins)
            if i == c:
                positives += np.bincount(b, weights=t.counts[c][i], minlength=bins)
        total += float(np.abs(positives - score).sum()) / m  # Σ_b (m_b/m)·|ō_b − p̄_b|
    return total / t.k


def top_label_bins(
    y: np.ndarray, proba: np.ndarray, w: np.ndarray, bins: int = ECE_BINS
) -> tuple[np.ndarray, np.ndarray, np.ndarray]:
    """Per bin of the confidence max_c p_rc: (weight, mean confidence, accuracy), NaN in an empty bin."""
    conf = proba.max(axis=1)
    right = (proba.argmax(axis=1) == y).astype(np.float64)
    b = bin_of(conf, bins)
    weight = np.bincount(b, weights=w, minlength=bins)
    with np.errstate(invalid="ignore", divide="ignore"):
        mean_conf = np.bincount(b, weights=w * conf, minlength=bins) / weight
        accuracy = np.bincount(b, weights=w * right, minlength=bins) / weight
    return weight, mean_conf, accuracy


def top_label_ece(weight: np.ndarray, mean_conf: np.ndarray, accuracy: np.ndarray) -> float:
    """Σ_b (m_b / m) |acc_b − conf_b| over the non-empty bins (:func:`top_label_bins`)."""
    keep = weight > 0
    return float(np.dot(weight[keep], np.abs(accuracy[keep] - mean_conf[keep])) / weight.sum())


def top_k_accuracy(y: np.ndarray, proba: np.ndarray, w: np.ndarray, k: int) -> float:
    """The weighted share of rows whose true class ranks among the k highest scores, ties ordered
    as scikit-learn's ``top_k_accuracy_score`` orders them (the higher class index first)."""
    n, classes = proba.shape
    true_score = proba[np.arange(n), y][:, None]
    higher = proba > true_score
    tied_after = (proba == true_score) & (np.arange(classes)[None, :] > y[:, None])
    rank = (higher | tied_after).sum(axis=1)
    return float(np.dot(w, rank < k) / w.sum())


def cost_optimal(y: np.ndarray, proba: np.ndarray, w: np.ndarray, costs: np.ndarray) -> tuple[np.ndarray, float, float]:
    """The cost-optimal rule's confusion matrix (k, k) and expected cost per row, and argmax's
    expected cost: predict argmin_j Σ_i p_i C[i, j] (ties → lowest index)."""
    k = proba.shape[1]
    optimal = (proba @ costs).argmin(axis=1)
    confusion = np.bincount(y * k + optimal, weights=w, minlength=k * k).reshape(k, k)
    m = float(w.sum())
    argmax = proba.argmax(axis=1)
    return confusion, float((confusion * costs).sum() / m), float(np.dot(w, costs[y, argmax]) / m)


def class_probabilities(
    tables: ClassTables,
    rows: tuple[np.ndarray, np.ndarray, np.ndarray] | None,
    *,
    top_k: int | None,
    costs: np.ndarray | None,
    bins: int = ECE_BINS,
) -> ClassProbabilities:
    """A model's :class:`~reportgen.results.ClassProbabilities`: the Brier score and class-wise ECE
    from its class tables (every engine), the rest from its kept rows ``(y, proba, weight)`` (a
    distinct row's weight: its count times its row weight), None with reason ``needs_rows``
    without them. ``top_k`` None: 2 with more than two classes."""
    k = tables.k
    reasons: dict[str, str] = {}
    unit = _in_unit(tables)
    if not unit:
        reasons.update(dict.fromkeys(("brier", "ece_classwise", "ece_top_label"), "proba_outside_unit"))
    kk = top_k if top_k is not None else (2 if k > 2 else None)
    if kk is None:
        reasons["top_k_accuracy"] = "two_classes"
    if costs is None:
        reasons.update(dict.fromkeys(("expected_cost_optimal", "expected_cost_argmax"), "no_cost_matrix"))
    empty = np.zeros(0)
    conf = acc = weight = empty
    ece_top = top = None
    matrix = cost_opt = cost_max = None
    if rows is None:
        for f in ("ece_top_label", "top_k_accuracy", "expected_cost_optimal", "expected_cost_argmax"):
            reasons.setdefault(f, "needs_rows")
    else:
        y, proba, w = rows
        if unit:
            weight, conf, acc = top_label_bins(y, proba, w, bins)
            ece_top = top_label_ece(weight, conf, acc)
            keep = weight > 0
            weight, conf, acc = weight[keep], conf[keep], acc[keep]
        if kk is not None:
            top = top_k_accuracy(y, proba, w, kk)
        if costs is not None:
            if unit:
                C, cost_opt, cost_max = cost_optimal(y, proba, w, costs)
                matrix = [[float(v) for v in row] for row in C]
            else:
                reasons.update(dict.fromkeys(("expected_cost_optimal", "expected_cost_argmax"), "proba_outside_unit"))
    return ClassProbabilities(
        brier=brier_from_tables(tables),
        ece_classwise=classwise_ece_from_tables(tables, bins),
        ece_top_label=ece_top,
        bins=bins,
        confidence=conf,
        accuracy=acc,
        counts=weight,
        top_k=kk,
        top_k_accuracy=top,
        cost_optimal_confusion=matrix,
        expected_cost_optimal=cost_opt,
        expected_cost_argmax=cost_max,
        reasons=reasons,
    )


__all__ = [
    "ECE_BINS",
    "bin_of",
    "class_probabilities",
    "brier_from_tables",
    "classwise_ece_from_tables",
    "cost_optimal",
    "top_k_accuracy",
    "top_label_bins",
    "top_label_ece",
]
