"""Multiclass metrics: confusion matrix, micro / macro / weighted averages, kappas, MCC, OvR / OvO AUC.

Pure computation: integer class indices and probability arrays in, frozen dataclasses out. No
I/O, no plotting. Classes are identified by their index ``0 .. k-1`` into ``labels``; the
labels themselves are only carried along for the report and for reason strings.

Notation (all counts are weighted when sample weights are given): ``C`` is the k×k confusion
matrix, ``C[i, j]`` = weight of rows of true class i predicted as class j (rows = truth,
columns = prediction, as scikit-learn and the table in Dyakonov's notes). For class c,
one-vs-rest: TP_c = C[c, c], FP_c = Σ_i C[i, c] − TP_c, FN_c = Σ_j C[c, j] − TP_c,
TN_c = m − TP_c − FP_c − FN_c, support_c = Σ_j C[c, j], m = Σ C.

Sources (``shared/seeds``):

* 000 (Sokolov, §2.4 "Метрики качества многоклассовой классификации") and 002 (Polyak,
  "Точность и полнота многоклассовой классификации"): micro averaging (pool TP, FP, FN over
  classes, then compute the metric) and macro averaging (compute per class, then average).
* 001 (Zhou, "性能度量" §2): macro-P, macro-R and the "macro-F1" defined as the harmonic mean
  of macro-P and macro-R (here :attr:`MulticlassMetrics.f1_of_macro_pr`, distinct from the
  mean of per-class F1 = :attr:`MulticlassMetrics.f1_macro`); §3: AUC = 1 − ℓ_rank with ties
  counted as half; §4: the cost-sensitive error rate with a cost matrix ``cost_ij`` = cost of
  predicting class j for a row of class i.
* 003 ("Оценка качества в задачах классификации"): the k×k confusion matrix,
  per-class TP / FP / FN / TN, specificity, F_β.
* 004 (Dyakonov, "Функционалы качества", "Confusion Matrix"): the 3-class example, accuracy,
  Cohen's kappa, MCC, balanced accuracy.
* Gorodkin (2004), "Comparing two K-category assignments by a K-category correlation
  coefficient": the multiclass MCC R_K. Hand & Till (2001), "A simple generalisation of the
  area under the ROC curve for multiple class classification problems": the OvO AUC.

Conventions, chosen to agree with scikit-learn 1.9 wherever scikit-learn defines a value:

* Undefined values are ``None`` with a reason (never NaN). A per-class precision with no
  predicted positives, a recall with no support, an F-score of a class that neither occurs nor
  is predicted are None per class; the macro and weighted averages count them as 0, which is
  scikit-learn's ``labels=<all classes>, zero_division=0``; a note (a
  :class:`~reportgen.results.Notice` code with its facts) records which classes were counted as 0.
* Balanced accuracy is the mean recall over classes *with support* (scikit-learn's
  ``balanced_accuracy_score``), so it differs from ``recall_macro`` when a class is absent from
  the truth.
* MCC and the kappas are None (scikit-learn returns 0.0 for MCC, NaN for kappa) when the
  statistic is 0/0.
* Log-loss follows ``sklearn.metrics.log_loss`` 1.9: probabilities are clipped to
  [ε, 1 − ε] with ε = float64 machine epsilon (≈ 2.2e-16, not 1e-15), rows are *not*
  renormalised (a note is recorded when a row sum differs from 1 by more than √ε relative);
  values outside [0, 1] make the log-loss None (scikit-learn raises).
* Ranking metrics (AUCs) accept any finite scores; rows need not sum to 1 (scikit-learn
  requires it for multiclass AUC). OvR classes without positives or negatives, and OvO pairs
  with an empty class, are left out of the averages with a note. Sample weights are honoured
  by every AUC, OvO included (scikit-learn refuses weights for OvO).
* Every OvR and OvO AUC, the micro AUC and the log-loss come from the class tables of
  :mod:`reportgen.engine.class_tables` (per score column and true class, the distinct scores
  with their counts: value sorts of the k² blocks, no argsort over the rows; Mann–Whitney
  counts with ties as half by sorted searches). Streamed inputs reduce to the same tables and
  the same confusion matrix, and :func:`multiclass_from_counts` turns either into the
  metrics. The ROC curves for figures come from the score table of
  :mod:`reportgen.engine.curve`.
* Predictions from probabilities are the argmax, ties to the lowest class index.
"""

from __future__ import annotations

import math
from collections.abc import Sequence
from dataclasses import dataclass
from itertools import combinations

import numpy as np

from reportgen.engine import class_tables as CT
from reportgen.engine.curve import ScoreTable, build_table
from reportgen.results import Notice, Reason

__all__ = [
    "LOG_LOSS_EPS",
    "ClassRocCurve",
    "MulticlassMetrics",
    "PerClassMetrics",
    "argmax_predictions",
    "compute_multiclass",
    "confusion_matrix",
    "harmonic_f",
    "multiclass_from_counts",
    "micro_roc_curve",
    "per_class_roc",
]

#: Probabilities are clipped to [LOG_LOSS_EPS, 1 − LOG_LOSS_EPS] in the log-loss (scikit-learn 1.9).
LOG_LOSS_EPS: float = CT.LOG_LOSS_EPS
#: Relative tolerance for "a probability row sums to 1" (scikit-learn: rtol = √ε).
_SUM_RTOL: float = math.sqrt(LOG_LOSS_EPS)

#: ``(field, reason)`` pairs: why each None field is undefined, as codes with their facts.
Reasons = tuple[tuple[str, Reason], ...]
#: ``(field, notice)`` pairs: caveats of defined values, as codes with their facts (no model yet).
Notes = tuple[tuple[str, Notice], ...]

_NO_PROBABILITIES = Reason("no_probabilities")

#: Summary fields that need ``proba``.
_PROBABILITY_FIELDS = (
    "log_loss",
    "roc_auc_ovr_micro",
    "roc_auc_ovr_macro",
    "roc_auc_ovr_weighted",
    "roc_auc_ovo_macro",
)


# --------------------------------------------------------------------------------------
# Result types
# --------------------------------------------------------------------------------------


@dataclass(frozen=True, slots=True)
class PerClassMetrics:
    """One-vs-rest metrics of one class (weighted counts when sample weights are given).

    Attributes:
        label: the class label (a plain Python value).
        tp, fp, fn, tn: one-vs-rest confusion counts of this class.
        support: TP + FN, the weight of rows whose true class is this one.
        precision: TP / (TP + FP); None with no predicted positives.
        recall: TP / (TP + FN); None with no support.
        specificity: TN / (TN + FP); None when every row belongs to this class.
        f1: 2·TP / (2·TP + FP + FN); None when the class neither occurs nor is predicted.
        fbeta: (1 + β²)·TP / ((1 + β²)·TP + β²·FN + FP); None as for f1. Written from counts,
            the F-score is 0 (not undefined) when precision alone is undefined, as in
            scikit-learn.
        roc_auc: one-vs-rest AUC of this class's probability column, ties counted as half;
            None without probabilities, or when the class has no positives or no negatives.
        reasons: ``(field, reason)`` for every field that is None (codes with the class as a fact).
    """

    label: object
    tp: float
    fp: float
    fn: float
    tn: float
    support: float
    precision: float | None
    recall: float | None
    specificity: float | None
    f1: float | None
    fbeta: float | None
    roc_auc: float | None
    reasons: Reasons = ()

    def reason(self, name: str) -> Reason | None:
        """Why field ``name`` is None, or None if it has a value."""
        return dict(self.reasons).get(name)


@dataclass(frozen=True, slots=True, eq=False)
class MulticlassMetrics:
    """Every scalar metric of one multiclass model, plus its per-class metrics.

    Averages over k classes, with per-class values v_c (undefined counted as 0, see module doc):
    macro = (1/k) Σ_c v_c; weighted = Σ_c support_c · v_c / m; micro = the metric of the pooled
    counts ΣTP_c, ΣFP_c, ΣFN_c (seed 000 §2.4, 002). In single-label problems every row adds
    one TP or one (FP, FN) pair, so micro precision = micro recall = micro F_β = accuracy.

    Attributes:
        labels: the k class labels, in index order.
        confusion: shape (k, k), read-only, rows = true class, columns = predicted class.
        n_rows: number of rows; total_weight: m = Σ C (= n_rows without weights).
        beta: the β of the ``fbeta_*`` fields.
        accuracy: Σ_c C[c, c] / m.
        baseline_accuracy: max_c support_c / m, the accuracy of always predicting the majority
            class (seed 004: "выгодно выдавать решение — константу").
        balanced_accuracy: mean recall over classes with support > 0.
        cohen_kappa: (p_o − p_e) / (1 − p_e) with p_o = accuracy and
            p_e = Σ_c support_c · predicted_c / m² (seed 004, "Каппа Коэна").
        quadratic_weighted_kappa: 1 − Σ w_ij C_ij / Σ w_ij E_ij with w_ij = (i − j)² and
            E = outer(support, predicted) / m. The class index is used as an ordinal score, so
            it is computed only for classes declared ordered (``ordinal=True``: grades,
            severities, in their natural order); None otherwise (reason ``classes_not_ordinal``).
        mcc: Gorodkin's R_K = (c·m − Σ_c p_c t_c) / √((m² − Σ p_c²)(m² − Σ t_c²)), with c the
            trace, t_c true and p_c predicted class totals; equals the binary MCC for k = 2.
        log_loss: −Σ_i w_i log p_i,y_i / Σ_i w_i with p clipped to [ε, 1 − ε]; None without
            probabilities or when they are outside [0, 1].
        expected_cost: Σ_ij C_ij · cost_ij / m, mean cost per row (seed 001 §4, with cost_ij the
            cost of predicting j for class i); None without a cost matrix.
        precision_* / recall_* / f1_* / fbeta_*: micro, macro and weighted averages.
        f1_of_macro_pr: 2·macro-P·macro-R / (macro-P + macro-R), Zhou's macro-F1 (seed 001 §2).
        roc_auc_ovr_micro: AUC of the pooled one-vs-rest problem (all n·k (row, class) cells).
        roc_auc_ovr_macro / roc_auc_ovr_weighted: mean / support-weighted mean of the per-class
            one-vs-rest AUCs over classes where the AUC is defined.
        roc_auc_ovo_macro: Hand & Till's M = 2/(k(k−1)) Σ_{i<j} (A(i|j) + A(j|i)) / 2, where
            A(i|j) is the AUC of column i separating class i from class j on the rows of those
            two classes only; pairs with an empty class are left out.
        per_class: one :class:`PerClassMetrics` per label, in index order.
        reasons: ``(field, reason)`` for every summary field that is None (reason codes).
        notes: ``(field, notice)`` for defined values that need a caveat (classes counted as 0 in
            a macro average, classes left out of an AUC average, unnormalised or clipped
            probabilities), as notice codes with their facts; a field may have several.
    """

    labels: tuple
    confusion: np.ndarray
    n_rows: int
    total_weight: float
    beta: float
    accuracy: float
    baseline_accuracy: float
    balanced_accuracy: float
    cohen_kappa: float | None
    quadratic_weighted_kappa: float | None
    mcc: float | None
    log_loss: float | None
    expected_cost: float | None
    precision_micro: float
    precision_macro: float
    precision_weighted: float
    recall_micro: float
    recall_macro: float
    recall_weighted: float
    f1_micro: float
    f1_macro: float
    f1_weighted: float
    fbeta_micro: float
    fbeta_macro: float
    fbeta_weighted: float
    f1_of_macro_pr: float
    roc_auc_ovr_micro: float | None
    roc_auc_ovr_macro: float | None
    roc_auc_ovr_weighted: float | None
    roc_auc_ovo_macro: float | None
    per_class: tuple[PerClassMetrics, ...]
    reasons: Reasons = ()
    notes: Notes = ()

    def reason(self, name: str) -> Reason | None:
        """Why summary field ``name`` is None, or None if it has a value."""
        return dict(self.reasons).get(name)

    def notes_of(self, name: str) -> tuple[Notice, ...]:
        """The caveats recorded for summary field ``name``, in order (empty if none)."""
        return tuple(n for f, n in self.notes if f == name)


@dataclass(frozen=True, slots=True, eq=False)
class ClassRocCurve:
    """One-vs-rest ROC curve of one class (or the micro-average), for figures.

    Attributes:
        label: the class label; None for the micro-average.
        fpr, tpr: shape (d + 1,) for d distinct scores, from (0, 0) (nothing predicted
            positive) to (1, 1); point i ≥ 1 is the rule "score ≥ thresholds[i − 1]". Every
            distinct score is a vertex (no points dropped; figures decimate). Empty when
            ``auc`` is None.
        thresholds: shape (d,), the distinct scores, descending.
        auc: area under the curve (ties as half); None when the class has no positives or no
            negatives, with ``reason``.
    """

    label: object
    fpr: np.ndarray
    tpr: np.ndarray
    thresholds: np.ndarray
    auc: float | None
    reason: Reason | None = None


# --------------------------------------------------------------------------------------
# Input checks
# --------------------------------------------------------------------------------------


#: A class label as results hold it: text, a number or a boolean (JSON scalars).
Label = str | float | bool


def _plain(label: object) -> Label:
    """A numpy scalar label as the equivalent Python value (JSON-friendly); TypeError for a
    label that is none of text, number, boolean."""
    value = label.item() if isinstance(label, np.generic) else label
    if not isinstance(value, (str, int, float, bool)):
        raise TypeError(f"a class label must be text, a number or a boolean, got {value!r}")
    return value


def _check_index(a: object, k: int, name: str) -> np.ndarray:
    arr = np.asarray(a)
    if arr.ndim != 1:
        raise ValueError(f"{name} must be 1-D, got shape {arr.shape}")
    if arr.size and not (np.issubdtype(arr.dtype, np.integer) or arr.dtype == np.bool_):
        raise ValueError(f"{name} must hold integer class indices, got dtype {arr.dtype}")
    arr = arr.astype(np.intp, copy=False)
    if arr.size and (arr.min() < 0 or arr.max() >= k):
        bad = arr[(arr < 0) | (arr >= k)][0]
        raise ValueError(f"{name} holds class index {bad}, expected 0 .. {k - 1}")
    return arr


def _check_weights(weights: object, n: int) -> np.ndarray | None:
    if weights is None:
        return None
    w = np.asarray(weights, dtype=np.float64)
    if w.shape != (n,):
        raise ValueError(f"weights must have shape ({n},), got {w.shape}")
    if not np.isfinite(w).all() or (w < 0).any():
        raise ValueError("weights must be finite and non-negative")
    if not w.sum() > 0:
        raise ValueError("weights sum to zero")
    return w


def _check_proba(proba: object, n: int, k: int) -> np.ndarray:
    p = np.asarray(proba, dtype=np.float64)
    if p.shape != (n, k):
        raise ValueError(f"proba must have shape ({n}, {k}), got {p.shape}")
    if not np.isfinite(p).all():
        raise ValueError("proba holds NaN or infinite values")
    return p


# --------------------------------------------------------------------------------------
# Kernels
# --------------------------------------------------------------------------------------


def confusion_matrix(
    y_true_idx: np.ndarray,
    y_pred_idx: np.ndarray,
    k: int,
    weights: np.ndarray | None = None,
) -> np.ndarray:
    """The k×k (weighted) confusion matrix, rows = true class, columns = predicted class.

    ``C[i, j] = Σ_t w_t [y_t = i][a_t = j]`` (seed 003; seed 004 writes the same table with
    rows y and columns a). One ``np.bincount`` over the flat cell index ``y·k + a``.

    Args:
        y_true_idx, y_pred_idx: shape (n,), integer class indices in 0 .. k−1.
        k: number of classes.
        weights: shape (n,), non-negative sample weights, or None for unit weights.

    Returns:
        shape (k, k), float64.
    """
    if k < 1:
        raise ValueError(f"k must be at least 1, got {k}")
    t = _check_index(y_true_idx, k, "y_true_idx")
    p = _check_index(y_pred_idx, k, "y_pred_idx")
    if t.shape != p.shape:
        raise ValueError(f"y_true_idx and y_pred_idx differ in length: {t.shape[0]} vs {p.shape[0]}")
    w = None if weights is None else np.asarray(weights, dtype=np.float64)
    if w is not None and w.shape != t.shape:
        raise ValueError(f"weights must have shape {t.shape}, got {w.shape}")
    flat = np.bincount(t * k + p, weights=w, minlength=k * k)
    return flat.astype(np.float64, copy=False).reshape(k, k)


def argmax_predictions(proba: np.ndarray) -> np.ndarray:
    """Predicted class index per row: the column of the largest probability.

    Ties are broken toward the lowest class index (``np.argmax`` returns the first maximum), so
    the result is deterministic and independent of row order.

    Args:
        proba: shape (n, k), finite scores.

    Returns:
        shape (n,), intp.
    """
    p = np.asarray(proba, dtype=np.float64)
    if p.ndim != 2 or p.shape[1] < 1:
        raise ValueError(f"proba must have shape (n, k), got {p.shape}")
    if not np.isfinite(p).all():
        raise ValueError("proba holds NaN or infinite values")
    return np.argmax(p, axis=1).astype(np.intp, copy=False)


def harmonic_f(precision: float, recall: float, beta: float = 1.0) -> float:
    """F_β of a precision and a recall: (1 + β²)·P·R / (β²·P + R) (seeds 001 §2, 004).

    The weighted harmonic mean 1 / (α/P + (1 − α)/R) with β² = 1/α − 1. When P = R = 0 the
    value is 0, its limit (F_β ≤ (1 + β²)·P and F_β ≤ (1 + β²)·R / β²).
    """
    b2 = beta * beta
    den = b2 * precision + recall
    if den <= 0:
        return 0.0
    return float((1.0 + b2) * precision * recall / den)


def _ratio(num: np.ndarray, den: np.ndarray) -> np.ndarray:
    """num / den elementwise with NaN where den == 0 (internal only; NaN never leaves the module)."""
    out = np.full(num.shape, np.nan)
    np.divide(num, den, out=out, where=den > 0)
    return out


def _opt(v: float) -> float | None:
    return None if not math.isfinite(v) else float(v)


def _nan0(v: np.ndarray) -> np.ndarray:
    return np.where(np.isnan(v), 0.0, v)


# --------------------------------------------------------------------------------------
# ROC / AUC
# --------------------------------------------------------------------------------------


def _micro_table(y: np.ndarray, p: np.ndarray, w: np.ndarray | None) -> ScoreTable:
    """Score table of the n·k cells (row, class), positive where the class is the row's truth.

    One value sort of label-carrying keys (:func:`reportgen.engine.curve.build_table`), each
    row's weight repeated on its k cells (scikit-learn's ``label_binarize(y).ravel()``).
    """
    n, k = p.shape
    onehot = np.zeros(n * k, dtype=bool)
    onehot[np.arange(n) * k + y] = True
    return build_table(p.ravel(), onehot, None if w is None else np.repeat(w, k), "higher")


def _ovr_table(scores: np.ndarray, positive: np.ndarray, weights: np.ndarray | None) -> ScoreTable:
    return build_table(scores, positive, weights, "higher")


def roc_points(tp: np.ndarray, fp: np.ndarray) -> tuple[np.ndarray, np.ndarray]:
    """(fpr, tpr) from a score table's prefix sums (:meth:`~reportgen.engine.curve.ScoreTable.
    cumulative_view`), ending exactly at (1, 1); empty without positives or negatives."""
    P, N = float(tp[-1]), float(fp[-1])
    if P <= 0 or N <= 0:
        return np.zeros(0), np.zeros(0)
    fpr, tpr = fp / N, tp / P
    fpr[-1] = tpr[-1] = 1.0  # exact end point despite floating sums
    return fpr, tpr


def class_roc_curve(label: Label | None, table: ScoreTable) -> ClassRocCurve:
    """ROC points of a score table and the trapezoid area under them (= ties counted as half);
    ``label`` None for the micro-average."""
    P, N = table.total_pos, table.total_neg
    if P <= 0 or N <= 0:
        why = Reason("class_no_positives" if P <= 0 else "class_no_negatives", {"class": label})
        empty = np.zeros(0)
        return ClassRocCurve(label, empty, empty.copy(), empty.copy(), None, why)
    fpr, tpr = roc_points(*table.cumulative_view())
    for a in (fpr, tpr, table.thresholds):
        a.setflags(write=False)
    auc = _clip01(float(np.dot(np.diff(fpr), 0.5 * (tpr[1:] + tpr[:-1]))))
    return ClassRocCurve(label, fpr, tpr, table.thresholds, auc)


def per_class_roc(
    y_true_idx: np.ndarray,
    proba: np.ndarray,
    labels: Sequence,
    weights: np.ndarray | None = None,
) -> tuple[ClassRocCurve, ...]:
    """One-vs-rest ROC curve of every class: column c of ``proba`` scores "class c vs the rest".

    Args:
        y_true_idx: shape (n,), class indices into ``labels``.
        proba: shape (n, k), finite scores (probabilities or any monotone score per class).
        labels: the k class labels.
        weights: shape (n,) sample weights or None.

    Returns:
        k curves in index order; a class without positives or negatives gets empty arrays,
        ``auc=None`` and a reason.
    """
    labs = tuple(_plain(x) for x in labels)
    k = len(labs)
    y = _check_index(y_true_idx, k, "y_true_idx")
    p = _check_proba(proba, y.shape[0], k)
    w = _check_weights(weights, y.shape[0])
    return tuple(class_roc_curve(labs[c], _ovr_table(p[:, c], y == c, w)) for c in range(k))


def micro_roc_curve(
    y_true_idx: np.ndarray,
    proba: np.ndarray,
    k: int,
    weights: np.ndarray | None = None,
) -> ClassRocCurve:
    """Micro-averaged ROC curve: the n·k cells (row, class) pooled into one binary problem.

    Cell (i, c) is positive when y_i = c and scored ``proba[i, c]``; each row's weight is
    repeated on its k cells (scikit-learn's ``roc_curve(label_binarize(y).ravel(),
    proba.ravel())``). P = m and N = (k − 1)·m, so the curve is defined whenever k ≥ 2.
    """
    y = _check_index(y_true_idx, k, "y_true_idx")
    p = _check_proba(proba, y.shape[0], k)
    w = _check_weights(weights, y.shape[0])
    onehot = y[:, None] == np.arange(k)[None, :]
    ww = None if w is None else np.repeat(w, k)
    return class_roc_curve(None, _ovr_table(p.ravel(), onehot.ravel(), ww))


def _clip01(v: float) -> float:
    return min(1.0, max(0.0, float(v)))


def _ovr_aucs(S: np.ndarray, class_w: np.ndarray, labs: tuple) -> tuple[list[float | None], list[Reason | None]]:
    """Per-class one-vs-rest AUCs from the pair sums, with a reason code where undefined."""
    k = len(labs)
    m = float(class_w.sum())
    aucs: list[float | None] = []
    why: list[Reason | None] = []
    for c in range(k):
        P, N = float(class_w[c]), m - float(class_w[c])
        if P <= 0:
            aucs.append(None)
            why.append(Reason("class_no_positives", {"class": labs[c]}))
        elif N <= 0:
            aucs.append(None)
            why.append(Reason("class_no_negatives", {"class": labs[c]}))
        else:
            aucs.append(_clip01((S[c].sum() - S[c, c]) / (P * N)))
            why.append(None)
    return aucs, why


def _ovo_macro(S: np.ndarray, class_w: np.ndarray, labs: tuple) -> tuple[float | None, Reason | Notice | None]:
    """Hand & Till M over class pairs with rows in both classes; (value, note when pairs were
    left out, or the reason when none is left)."""
    k = len(labs)
    pair_scores: list[float] = []
    first: list[Label] = []
    second: list[Label] = []
    for i, j in combinations(range(k), 2):
        den = float(class_w[i]) * float(class_w[j])
        if den <= 0:
            first.append(labs[i])
            second.append(labs[j])
            continue
        pair_scores.append(0.5 * (_clip01(S[i, j] / den) + _clip01(S[j, i] / den)))
    if not pair_scores:
        return None, Reason("no_class_pair")
    note = Notice("class_pairs_left_out", {"first": first, "second": second}) if first else None
    return float(np.mean(pair_scores)), note


# --------------------------------------------------------------------------------------
# The whole set
# --------------------------------------------------------------------------------------


def _kappa(C: np.ndarray, w: np.ndarray) -> float | None:
    """1 − Σ w·C / Σ w·E with E = outer(row totals, column totals) / m (scikit-learn's form)."""
    m = C.sum()
    E = np.outer(C.sum(axis=1), C.sum(axis=0)) / m
    den = float((w * E).sum())
    if den <= 0:
        return None
    return float(1.0 - (w * C).sum() / den)


def _agreement(
    C: np.ndarray, reasons: dict[str, Reason], ordinal: bool = False
) -> tuple[float | None, float | None, float | None]:
    """Cohen's kappa, quadratic weighted kappa and Gorodkin's MCC of a confusion matrix.

    kappa = 1 − Σ w_ij C_ij / Σ w_ij E_ij, E = outer(row totals, column totals) / m, with
    w = 1 − I (Cohen) or w_ij = (i − j)² (quadratic); this equals (p_o − p_e) / (1 − p_e) for
    w = 1 − I (seed 004, "Каппа Коэна"). The kappas are 0/0 only when truth and predictions are
    all one and the same class. MCC = (c·m − t·p) / √((m² − p·p)(m² − t·t)) (Gorodkin 2004;
    seed 004 for k = 2) is 0/0 when the truth or the predictions hold a single class.
    Undefined values are None and a reason code is added to ``reasons``.
    """
    k = C.shape[0]
    m = float(C.sum())
    t = C.sum(axis=1)
    p = C.sum(axis=0)
    n_true, n_pred = int((t > 0).sum()), int((p > 0).sum())
    idx = np.arange(k, dtype=np.float64)
    kappa = qwk = None
    if n_true == 1 and n_pred == 1 and bool(np.array_equal(t > 0, p > 0)):
        reasons["cohen_kappa"] = reasons["quadratic_weighted_kappa"] = Reason("one_same_class")
    else:
        kappa = _kappa(C, 1.0 - np.eye(k))
        qwk = _kappa(C, (idx[:, None] - idx[None, :]) ** 2) if ordinal else None
        for key, val in (("cohen_kappa", kappa), ("quadratic_weighted_kappa", qwk)):
            if val is None and (ordinal or key == "cohen_kappa"):
                reasons[key] = Reason("zero_expected_disagreement")
    if not ordinal:
        reasons["quadratic_weighted_kappa"] = Reason("classes_not_ordinal")
    if n_true <= 1 or n_pred <= 1:
        reasons["mcc"] = Reason("single_class", {"truth": n_true <= 1, "predictions": n_pred <= 1})
        return kappa, qwk, None
    cov_tp = float(np.trace(C)) * m - float(np.dot(t, p))
    cov_pp = m * m - float(np.dot(p, p))
    cov_tt = m * m - float(np.dot(t, t))
    mcc = min(1.0, max(-1.0, cov_tp / math.sqrt(cov_pp * cov_tt)))
    return kappa, qwk, mcc


def _log_loss(t: CT.ClassTables, m: float, reasons: dict[str, Reason], notes: list[tuple[str, Notice]]) -> float | None:
    """−Σ_i w_i log p_{i, y_i} / Σ_i w_i, p clipped to [ε, 1 − ε], rows not renormalised.

    As ``sklearn.metrics.log_loss`` 1.9 (ε = float64 machine epsilon; a row sum off 1 by more
    than √ε relative is only flagged, here with a note). None when a score leaves [0, 1].
    Summed over the class tables' T(j, j) (the true class's column), so that streamed and
    in-memory inputs give the same number.
    """
    if t.p_min < 0.0 or t.p_max > 1.0:
        reasons["log_loss"] = Reason("proba_outside_unit")
        return None
    if t.max_row_dev > _SUM_RTOL:
        notes.append(("log_loss", Notice("probability_rows_unnormalised", {"max_row_dev": float(t.max_row_dev)})))
    loss = float(CT.log_loss_sum(t) / m)
    clipped = CT.log_loss_clipped(t)
    if CT.log_loss_clipping_share(clipped, loss, m) is not None:
        notes.append(
            (
                "log_loss",
                Notice("log_loss_clipped", {"weight": clipped, "log_loss": loss, "total": m, "weighted": t.weighted}),
            )
        )
    return loss


def _ovr_averages(
    class_auc: list[float | None],
    auc_reason: list[Reason | None],
    support: np.ndarray,
    labs: tuple,
    reasons: dict[str, Reason],
    notes: list[tuple[str, Notice]],
) -> tuple[float | None, float | None]:
    """Macro and support-weighted means of the defined one-vs-rest AUCs."""
    defined = [c for c, a in enumerate(class_auc) if a is not None]
    if not defined:
        reasons["roc_auc_ovr_macro"] = reasons["roc_auc_ovr_weighted"] = Reason("no_class_with_both")
        return None, None
    if len(defined) < len(class_auc):
        left = [c for c, a in enumerate(class_auc) if a is None]
        note = Notice(
            "classes_left_out_of_auc",
            {"classes": [labs[c] for c in left], "why": [r.code for c in left if (r := auc_reason[c]) is not None]},
        )
        notes.extend((f, note) for f in ("roc_auc_ovr_macro", "roc_auc_ovr_weighted"))
    vals = np.array([class_auc[c] for c in defined], dtype=np.float64)
    sup = support[defined]
    return float(vals.mean()), float(np.dot(vals, sup) / sup.sum())


def compute_multiclass(
    y_true_idx: np.ndarray,
    labels: Sequence,
    *,
    y_pred_idx: np.ndarray | None = None,
    proba: np.ndarray | None = None,
    weights: np.ndarray | None = None,
    beta: float = 1.0,
    costs: np.ndarray | None = None,
    ordinal: bool = False,
) -> MulticlassMetrics:
    """All multiclass metrics of one model.

    Args:
        y_true_idx: shape (n,), true class indices into ``labels``.
        labels: the k ≥ 2 distinct class labels; classes absent from the data are still
            reported (as scikit-learn's ``labels=`` argument).
        y_pred_idx: shape (n,), predicted class indices. When None, the argmax of ``proba``
            (ties → lowest index) is used for the threshold metrics.
        proba: shape (n, k), per-class scores; column c belongs to ``labels[c]``. Needed for
            log-loss and the AUCs.
        weights: shape (n,), non-negative sample weights, or None.
        beta: β of the F_β fields (> 0).
        costs: shape (k, k), ``costs[i, j]`` = cost of predicting class j for a row of class
            i, or None.
        ordinal: the labels are ordered categories in index order: adds the quadratic-weighted
            kappa (else None, reason ``classes_not_ordinal``).

    At least one of ``y_pred_idx`` and ``proba`` is required; with both, threshold metrics use
    ``y_pred_idx`` and ranking metrics use ``proba``.
    """
    labs = tuple(_plain(x) for x in labels)
    k = len(labs)
    if k < 2:
        raise ValueError(f"labels must name at least 2 classes, got {k}")
    if len(set(labs)) != k:
        raise ValueError(f"labels must be distinct, got {labs!r}")
    if not (math.isfinite(beta) and beta > 0):
        raise ValueError(f"beta must be a positive number, got {beta}")
    y = _check_index(y_true_idx, k, "y_true_idx")
    n = int(y.shape[0])
    if n == 0:
        raise ValueError("no rows")
    w = _check_weights(weights, n)
    p = None if proba is None else _check_proba(proba, n, k)
    if y_pred_idx is not None:
        a = _check_index(y_pred_idx, k, "y_pred_idx")
        if a.shape[0] != n:
            raise ValueError(f"y_true_idx and y_pred_idx differ in length: {n} vs {a.shape[0]}")
    elif p is not None:
        a = argmax_predictions(p)
    else:
        raise ValueError("either y_pred_idx or proba is required")
    cost_m = None
    if costs is not None:
        cost_m = np.asarray(costs, dtype=np.float64)
        if cost_m.shape != (k, k) or not np.isfinite(cost_m).all():
            raise ValueError(f"costs must be a finite ({k}, {k}) matrix, got shape {cost_m.shape}")

    C = confusion_matrix(y, a, k, w)
    tables = micro = None
    if p is not None:
        tables = CT.build_class_tables(y, p, w, k)
        micro = _micro_table(y, p, w)
    return multiclass_from_counts(C, labs, n, tables, micro, beta=beta, costs=cost_m, ordinal=ordinal)


def multiclass_from_counts(
    confusion: np.ndarray,
    labels: Sequence,
    n_rows: int,
    tables: CT.ClassTables | None = None,
    micro_table: ScoreTable | None = None,
    *,
    beta: float = 1.0,
    costs: np.ndarray | None = None,
    ordinal: bool = False,
) -> MulticlassMetrics:
    """All multiclass metrics from the confusion matrix and the class tables of the scores.

    What :func:`compute_multiclass` computes after reducing the rows, and what streamed
    inputs (one confusion matrix and one set of class tables per model, merged over record
    batches) are reduced to. Args: ``confusion`` (k, k) rows = true class; ``tables`` from
    :func:`reportgen.engine.class_tables.build_class_tables` or None without probabilities;
    ``micro_table`` the binary score table of the pooled n·k cells (else built from the
    class tables). Reasons and notes are codes with their facts (no prose: the report layer,
    :mod:`reportgen.report.wording`, writes the sentences).
    """
    labs = tuple(_plain(x) for x in labels)
    k = len(labs)
    n = n_rows
    notes: list[tuple[str, Notice]] = []
    reasons: dict[str, Reason] = {}
    cost_m = costs
    C = np.array(confusion, dtype=np.float64)
    if C.shape != (k, k):
        raise ValueError(f"confusion must have shape ({k}, {k}), got {C.shape}")
    C.setflags(write=False)
    m = float(C.sum())
    support = C.sum(axis=1)
    predicted = C.sum(axis=0)
    tp = np.diag(C).copy()
    fp = predicted - tp
    fn = support - tp
    tn = np.maximum(m - support - predicted + tp, 0.0)
    b2 = beta * beta

    prec = _ratio(tp, tp + fp)
    rec = _ratio(tp, support)
    spec = _ratio(tn, tn + fp)
    f1 = _ratio(2.0 * tp, 2.0 * tp + fp + fn)
    fb = _ratio((1.0 + b2) * tp, (1.0 + b2) * tp + b2 * fn + fp)

    # --- AUCs: one sort per probability column gives every OvR and OvO AUC ---
    class_auc: list[float | None] = [None] * k
    auc_reason: list[Reason | None] = [_NO_PROBABILITIES] * k
    S = None
    if tables is not None:
        S = CT.pair_sums(tables)
        class_auc, auc_reason = _ovr_aucs(S, support, labs)

    per_class = _per_class(labs, tp, fp, fn, tn, support, (prec, rec, spec, f1, fb), class_auc, auc_reason)

    # --- averages: undefined per-class values count as 0 (scikit-learn zero_division=0) ---
    averages = _averages(labs, support, m, {"precision": prec, "recall": rec, "f1": f1, "fbeta": fb}, notes)
    tp_all, fp_all, fn_all = float(tp.sum()), float(fp.sum()), float(fn.sum())
    precision_micro = tp_all / (tp_all + fp_all)
    recall_micro = tp_all / (tp_all + fn_all)
    f1_micro = 2.0 * tp_all / (2.0 * tp_all + fp_all + fn_all)
    fbeta_micro = (1.0 + b2) * tp_all / ((1.0 + b2) * tp_all + b2 * fn_all + fp_all)
    f1_of_macro_pr = harmonic_f(averages["precision_macro"], averages["recall_macro"], 1.0)
    if any(f in ("precision_macro", "recall_macro") for f, _ in notes):
        notes.append(("f1_of_macro_pr", Notice("macro_pr_counted_as_zero")))

    # --- accuracy family ---
    accuracy = float(tp.sum() / m)
    baseline_accuracy = float(support.max() / m)
    has_support = support > 0
    balanced_accuracy = float(rec[has_support].mean())
    if not has_support.all():
        absent = [labs[c] for c in range(k) if not has_support[c]]
        notes.append(("balanced_accuracy", Notice("classes_without_support", {"classes": absent})))

    cohen_kappa, qwk, mcc = _agreement(C, reasons, ordinal)

    # --- costs ---
    if cost_m is None:
        expected_cost = None
        reasons["expected_cost"] = Reason("no_cost_matrix")
    else:
        expected_cost = float((C * cost_m).sum() / m)

    # --- probability metrics ---
    log_loss = roc_micro = roc_macro = roc_weighted = roc_ovo = None
    if tables is None:
        for key in _PROBABILITY_FIELDS:
            reasons[key] = _NO_PROBABILITIES
    else:
        assert S is not None
        log_loss, roc_micro, roc_macro, roc_weighted, roc_ovo = _probability_metrics(
            tables, micro_table, S, m, class_auc, auc_reason, support, labs, reasons, notes
        )

    return MulticlassMetrics(
        labels=labs,
        confusion=C,
        n_rows=n,
        total_weight=m,
        beta=float(beta),
        accuracy=accuracy,
        baseline_accuracy=baseline_accuracy,
        balanced_accuracy=balanced_accuracy,
        cohen_kappa=cohen_kappa,
        quadratic_weighted_kappa=qwk,
        mcc=mcc,
        log_loss=log_loss,
        expected_cost=expected_cost,
        precision_micro=precision_micro,
        precision_macro=averages["precision_macro"],
        precision_weighted=averages["precision_weighted"],
        recall_micro=recall_micro,
        recall_macro=averages["recall_macro"],
        recall_weighted=averages["recall_weighted"],
        f1_micro=f1_micro,
        f1_macro=averages["f1_macro"],
        f1_weighted=averages["f1_weighted"],
        fbeta_micro=fbeta_micro,
        fbeta_macro=averages["fbeta_macro"],
        fbeta_weighted=averages["fbeta_weighted"],
        f1_of_macro_pr=f1_of_macro_pr,
        roc_auc_ovr_micro=roc_micro,
        roc_auc_ovr_macro=roc_macro,
        roc_auc_ovr_weighted=roc_weighted,
        roc_auc_ovo_macro=roc_ovo,
        per_class=tuple(per_class),
        reasons=tuple(reasons.items()),
        notes=tuple(notes),
    )


def _per_class(
    labs: tuple,
    tp: np.ndarray,
    fp: np.ndarray,
    fn: np.ndarray,
    tn: np.ndarray,
    support: np.ndarray,
    rates: tuple[np.ndarray, np.ndarray, np.ndarray, np.ndarray, np.ndarray],
    class_auc: list[float | None],
    auc_reason: list[Reason | None],
) -> list[PerClassMetrics]:
    """Each class's counts, (precision, recall, specificity, F1, F-beta) ``rates`` and OvR AUC,
    with the reason of every undefined one."""
    prec, rec, spec, f1, fb = rates
    per_class: list[PerClassMetrics] = []
    for c in range(len(labs)):
        cls = {"class": labs[c]}
        why: dict[str, Reason] = {}
        if np.isnan(prec[c]):
            why["precision"] = Reason("class_no_predicted_positives", cls)
        if np.isnan(rec[c]):
            why["recall"] = Reason("class_no_support", cls)
        if np.isnan(spec[c]):
            why["specificity"] = Reason("class_no_negatives", cls)
        if np.isnan(f1[c]):
            why["f1"] = why["fbeta"] = Reason("class_absent", cls)
        reason = auc_reason[c]
        if class_auc[c] is None and reason is not None:
            why["roc_auc"] = reason
        per_class.append(
            PerClassMetrics(
                label=labs[c],
                tp=float(tp[c]),
                fp=float(fp[c]),
                fn=float(fn[c]),
                tn=float(tn[c]),
                support=float(support[c]),
                precision=_opt(prec[c]),
                recall=_opt(rec[c]),
                specificity=_opt(spec[c]),
                f1=_opt(f1[c]),
                fbeta=_opt(fb[c]),
                roc_auc=class_auc[c],
                reasons=tuple(why.items()),
            )
        )
    return per_class


def _averages(
    labs: tuple, support: np.ndarray, m: float, per_class: dict[str, np.ndarray], notes: list[tuple[str, Notice]]
) -> dict[str, float]:
    """Macro and support-weighted averages of each per-class rate (``stem`` → values); an
    undefined class value counts as 0 (scikit-learn ``zero_division=0``), noted per average."""
    averages: dict[str, float] = {}
    for stem, v in per_class.items():
        v0 = _nan0(v)
        averages[f"{stem}_macro"] = float(v0.mean())
        averages[f"{stem}_weighted"] = float(np.dot(support, v0) / m)
        bad = [labs[c] for c in range(len(labs)) if np.isnan(v[c])]
        if bad:
            note = Notice("classes_counted_as_zero", {"stem": stem, "classes": bad})
            notes.extend(((f"{stem}_macro", note), (f"{stem}_weighted", note)))
    return averages


def _probability_metrics(
    tables: CT.ClassTables,
    micro_table: ScoreTable | None,
    S: np.ndarray,
    m: float,
    class_auc: list[float | None],
    auc_reason: list[Reason | None],
    support: np.ndarray,
    labs: tuple,
    reasons: dict[str, Reason],
    notes: list[tuple[str, Notice]],
) -> tuple[float | None, float | None, float | None, float | None, float | None]:
    """(log loss, OvR micro, macro and weighted AUC, OvO macro AUC) from the class tables; the
    reasons and notes of the undefined or caveated ones into ``reasons`` and ``notes``."""
    log_loss = _log_loss(tables, m, reasons, notes)
    # defined: k >= 2 and m > 0
    roc_micro = CT.table_auc(micro_table) if micro_table is not None else CT.micro_auc(tables)
    roc_macro, roc_weighted = _ovr_averages(class_auc, auc_reason, support, labs, reasons, notes)
    roc_ovo, msg = _ovo_macro(S, support, labs)
    if isinstance(msg, Notice):
        notes.append(("roc_auc_ovo_macro", msg))
    elif msg is not None:
        reasons["roc_auc_ovo_macro"] = msg
    return log_loss, roc_micro, roc_macro, roc_weighted, roc_ovo
