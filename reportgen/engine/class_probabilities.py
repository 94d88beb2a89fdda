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
  rows whose argmax (ties → lowest index, the report's decision rule) is the true class.
* Top-k accuracy (scikit-learn ``top_k_accuracy_score``): the share of rows whose true class is
  among the k highest scores; tied scores are ordered as scikit-learn orders them, the higher
  class index first, so the true class's rank is #{c : p_c > p_y} + #{c > y : p_c = p_y}.
* Cost-optimal rule (Bayes decision with a cost matrix, Elkan 2001; seed 001 §4): predict
  argmin_j Σ_i p_i C[i, j] (ties → lowest index), C[i, j] the cost of predicting j for a row of
  class i; its confusion matrix and expected cost Σ_ij N_ij C_ij / m beside argmax's.

The last three need each row's whole probability vector, not its columns apart; every engine
reduces the rows to :class:`ProbabilityCounts` (the reduce layer's ``ProbabilityCells``: per chunk
whole-number cells that merge by addition, summed in one canonical order), so every engine gives
the same numbers without keeping the rows.

Intervals (unweighted rows; the stratified row bootstrap, each true class's rows resampled
with replacement, drawn on counts: class i's resampled rows over its cells are one multinomial):

* Brier score: each row's error e_r = Σ_c p_rc² − 2 p_{r,y_r} + 1 counted by (true class, e_r
  rounded to :data:`BRIER_STEP`) (:attr:`ProbabilityCounts.brier`); the replicates moved by the
  rounding's effect on the point value, so they centre on the exact score.
* Each challenger's Brier change against the baseline: the paired bootstrap of the per-row
  difference e_r(model) − e_r(baseline), counted the same way on the rows put side by side
  (:func:`brier_delta_draws`; one draw of rows for both models).
* Top-label ECE: drawn on the (true class, bin, right, confidence rounded to
  :data:`BRIER_STEP`) cells of :class:`ProbabilityCounts`, each cell's rows at their mean
  confidence (exact at the observed counts).

The class-wise ECE joins every column of a row; the class tables keep the columns apart, so it
has no interval.
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import TYPE_CHECKING

import numpy as np

from reportgen.engine.class_tables import ClassTables
from reportgen.engine.intervals import multiclass_count_draws
from reportgen.value import Shown

if TYPE_CHECKING:
    from reportgen.option_results import CalibrationDelta, ClassProbabilities

#: Equal-width bins of the calibration errors.
ECE_BINS = 10

#: The rounding of a row's Brier error (and of its confidence) in the interval's cells: 2⁻⁵.
#: The draws cost one binomial per non-empty cell and resample (class i's cells are one
#: multinomial). Rounding to a grid of step h changes a row error's variance by about h²/12
#: (8.1e-5 here), so the interval's width by about h²/(24 σ²) of itself, σ² the rows' error
#: variance within a class: 0.05 % at σ² = 0.08 (ten classes, softmax of noisy logits), 0.4 % at
#: σ² = 0.01 (a confident model), under the Monte-Carlo error of 500 percentile replicates (~3 %).
BRIER_STEP = 2.0**-5

#: Cells of the rounded Brier error of a row, 0 … 2 (:data:`BRIER_STEP` apart).
BRIER_CELLS = 2 * 32 + 1

#: How the Brier score's and the top-label ECE's intervals are drawn (``ci_method``).
ERROR_CELL_BOOTSTRAP = "bootstrap of the rows' Brier errors and confidences (counts per true class, rounded to 2^-5)"

#: How a challenger's Brier change is drawn (``calibration.ci_method`` of a multiclass comparison).
PAIRED_ERROR_CELL_BOOTSTRAP = (
    "paired bootstrap of the per-row Brier error differences (counts per true class, rounded to 2^-5)"
)

#: How the top-k accuracy's interval is drawn.
RANK_BOOTSTRAP = "bootstrap of the counts by the true class's rank"


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


@dataclass(frozen=True, slots=True, eq=False, repr=False)
class ProbabilityCounts(Shown):
    """A model's rows reduced for the measures that need each row's whole probability vector,
    classes as class indices.

    Attributes:
        true, predicted, confidence, weight: shape (m,), the distinct (true class, argmax class,
            max probability) cells of the rows and their summed weight, in canonical order; class
            indices in the smallest signed integer type that holds them (int8 below 128 classes),
            weights all 1 as one shared read-only 1 (unweighted rows with distinct confidences are
            a cell each: n int64 and float64 per model held to the end of a run, issue 46).
        rank: shape (k, k), the weight of the rows of true class i whose class ranks r among
            the scores (:func:`column_ranks`; 0 the highest).
        optimal: shape (k, k), the weight of rows by (true class, cost-optimal class), or None
            without a cost matrix.
        brier: shape (k, :data:`BRIER_CELLS`), the weight of rows by (true class, the row's
            Brier error in steps of :data:`BRIER_STEP`, :func:`brier_cells`), or None.
    """

    true: np.ndarray
    predicted: np.ndarray
    confidence: np.ndarray
    weight: np.ndarray
    rank: np.ndarray
    optimal: np.ndarray | None
    brier: np.ndarray | None = None


def brier_errors(p: np.ndarray, true_column: np.ndarray) -> np.ndarray:
    """shape (n,): each row's Brier error Σ_c p_c² − 2 p_y + 1, ``true_column`` the true class's column."""
    p = np.asarray(p, dtype=np.float64)
    return np.einsum("ij,ij->i", p, p) - 2.0 * p[np.arange(p.shape[0]), true_column] + 1.0


def brier_cells(p: np.ndarray, true_column: np.ndarray) -> np.ndarray:
    """shape (n,): each row's Brier error (:func:`brier_errors`) in steps of :data:`BRIER_STEP`
    (rounded, clipped to 0 … 2), ``true_column`` the true class's column."""
    e = brier_errors(p, true_column)
    return np.clip(np.rint(e / BRIER_STEP), 0, BRIER_CELLS - 1).astype(np.int64)


def brier_column_cells(p: np.ndarray) -> np.ndarray:
    """shape (n, q): :func:`brier_cells` of each row were column j its true class (the reducer
    counts them before the classes are known, :class:`ProbabilityCounts`)."""
    p = np.asarray(p, dtype=np.float64)
    e = np.einsum("ij,ij->i", p, p)[:, None] - 2.0 * p + 1.0
    return np.clip(np.rint(e / BRIER_STEP), 0, BRIER_CELLS - 1).astype(np.int64)


def brier_difference_cells(ea: np.ndarray, eb: np.ndarray) -> np.ndarray:
    """shape (n,): each row's Brier error of model a minus model b's (:func:`brier_errors` of
    each), in steps of :data:`BRIER_STEP` (rounded), offset by BRIER_CELLS − 1 so that
    0 … 2·(BRIER_CELLS − 1)."""
    e = np.asarray(ea, dtype=np.float64) - np.asarray(eb, dtype=np.float64)
    span = BRIER_CELLS - 1
    return (np.clip(np.rint(e / BRIER_STEP), -span, span) + span).astype(np.int64)


def class_cell_draws(counts: np.ndarray, values: np.ndarray, resamples: int, rng: np.random.Generator) -> np.ndarray:
    """shape (resamples, v): per resample of the stratified bootstrap, Σ over the resampled rows
    of their cell's ``values``; ``counts`` (k, cells) whole rows by (true class, cell), ``values``
    (cells, v). Class i's resampled rows over its cells: Multinomial(n_i, counts[i] / n_i), the
    row bootstrap's distribution; the classes in order, each its own draws from ``rng``."""
    out = np.zeros((resamples, values.shape[1]))
    for row in np.asarray(counts, dtype=np.float64):
        at = np.flatnonzero(row)
        if at.size == 0:
            continue
        n, pvals, v = int(round(float(row[at].sum()))), row[at] / row[at].sum(), values[at]
        step = max(1, min(resamples, (1 << 22) // at.size))
        for lo in range(0, resamples, step):
            b = min(step, resamples - lo)
            out[lo : lo + b] += rng.multinomial(n, pvals, size=b) @ v
    return out


def brier_draws(grid: np.ndarray, resamples: int, rng: np.random.Generator) -> np.ndarray:
    """shape (resamples,): the Brier score of each resample of the rows, their errors rounded
    (:attr:`ProbabilityCounts.brier`)."""
    values = (np.arange(grid.shape[1]) * BRIER_STEP)[:, None]
    return class_cell_draws(grid, values, resamples, rng)[:, 0] / float(grid.sum())


def grid_brier(grid: np.ndarray) -> float:
    """The Brier score of the rounded errors (the draws' point value)."""
    return float(grid.sum(axis=0) @ (np.arange(grid.shape[1]) * BRIER_STEP) / grid.sum())


def brier_delta_draws(grid: np.ndarray, resamples: int, rng: np.random.Generator) -> tuple[np.ndarray, float]:
    """(shape (resamples,) the change of Brier score under the paired bootstrap, the change of the
    rounded errors at the observed counts); ``grid`` (k, 2·BRIER_CELLS − 1): rows by (true class,
    :func:`brier_difference_cells`)."""
    values = (np.arange(grid.shape[1]) - (BRIER_CELLS - 1)) * BRIER_STEP
    m = float(grid.sum())
    return class_cell_draws(grid, values[:, None], resamples, rng)[:, 0] / m, float(grid.sum(axis=0) @ values / m)


def top_label_draws(c: ProbabilityCounts, bins: int, resamples: int, rng: np.random.Generator) -> np.ndarray:
    """shape (resamples,): the top-label ECE of each resample, drawn on the (true class, bin,
    right, confidence in steps of :data:`BRIER_STEP`) cells of the counts, each at its rows' mean
    confidence; unweighted rows (``c.weight`` whole rows)."""
    b = bin_of(c.confidence, bins)
    right = (c.predicted == c.true).astype(np.int64)
    fine = np.rint(c.confidence / BRIER_STEP).astype(np.int64)
    key = (b * 2 + right) * (int(fine.max(initial=0)) + 1) + fine
    cells, cell_of = np.unique(key, return_inverse=True)
    nc = cells.shape[0]
    k = c.rank.shape[0]
    flat = c.true.astype(np.int64) * nc + cell_of
    counts = np.bincount(flat, weights=c.weight, minlength=k * nc).reshape(k, nc)
    conf = np.bincount(flat, weights=c.weight * c.confidence, minlength=k * nc).reshape(k, nc)
    span = int(fine.max(initial=0)) + 1
    cell_bin, cell_right = (cells // span) // 2, (cells // span) % 2
    sums = np.zeros((resamples, 3 * bins))
    for i in range(k):  # each class its own cells, at its rows' mean confidence
        at = np.flatnonzero(counts[i])
        values = np.zeros((at.size, 3 * bins))
        r = np.arange(at.size)
        values[r, cell_bin[at]] = 1.0
        values[r, bins + cell_bin[at]] = cell_right[at]
        values[r, 2 * bins + cell_bin[at]] = conf[i, at] / counts[i, at]
        sums += class_cell_draws(counts[i, at][None], values, resamples, rng)
    n, acc, conf_sum = sums[:, :bins], sums[:, bins : 2 * bins], sums[:, 2 * bins :]
    return np.abs(acc - conf_sum).sum(axis=1) / n.sum(axis=1)


def column_ranks(p: np.ndarray) -> np.ndarray:
    """shape (n, q): each column's rank in its row, 0 the highest score, tied scores ordered as
    scikit-learn's ``top_k_accuracy_score`` orders them (the higher column first):
    rank_c = #{c' : p_c' > p_c} + #{c' > c : p_c' = p_c}."""
    n, q = p.shape
    at = q - 1 - np.argsort(-p[:, ::-1], axis=1, kind="stable")  # column at each rank
    ranks = np.empty((n, q), dtype=np.int64)
    np.put_along_axis(ranks, at, np.broadcast_to(np.arange(q), (n, q)), axis=1)
    return ranks


def cost_optimal_predictions(p: np.ndarray, costs: np.ndarray) -> np.ndarray:
    """shape (n,): argmin_j Σ_i p_i C[i, j] per row (ties → lowest index)."""
    return (p @ costs).argmin(axis=1)


def top_label_bins(c: ProbabilityCounts, bins: int = ECE_BINS) -> tuple[np.ndarray, np.ndarray, np.ndarray]:
    """Per bin of the confidence max_c p_rc: (weight, mean confidence, accuracy), NaN in an empty bin."""
    b = bin_of(c.confidence, bins)
    right = (c.predicted == c.true).astype(np.float64)
    weight = np.bincount(b, weights=c.weight, minlength=bins)
    with np.errstate(invalid="ignore", divide="ignore"):
        mean_conf = np.bincount(b, weights=c.weight * c.confidence, minlength=bins) / weight
        accuracy = np.bincount(b, weights=c.weight * right, minlength=bins) / weight
    return weight, mean_conf, accuracy


def top_label_ece(weight: np.ndarray, mean_conf: np.ndarray, accuracy: np.ndarray) -> float:
    """Σ_b (m_b / m) |acc_b − conf_b| over the non-empty bins (:func:`top_label_bins`)."""
    keep = weight > 0
    return float(np.dot(weight[keep], np.abs(accuracy[keep] - mean_conf[keep])) / weight.sum())


def error_intervals(
    c: ProbabilityCounts, out: ClassProbabilities, resamples: int, level: float, rng: np.random.Generator
) -> dict[str, list[float]]:
    """The percentile intervals of the Brier score (its draws moved by the rounding's effect on
    the point value, :func:`brier_draws`) and of the top-label ECE (:func:`top_label_draws`),
    drawn in that order from ``rng``; unweighted rows."""
    from reportgen.engine.intervals import percentile  # noqa: PLC0415

    ci: dict[str, list[float]] = {}
    if out.brier is not None and c.brier is not None and c.brier.sum() > 0:
        draws = brier_draws(c.brier, resamples, rng)
        if (iv := percentile(draws, out.brier - grid_brier(c.brier), level, 0.0, 2.0)) is not None:
            ci["brier"] = iv
    top = None if out.ece_top_label is None or c.weight.sum() <= 0 else top_label_draws(c, out.bins, resamples, rng)
    if top is not None and (iv := percentile(top, 0.0, level, 0.0, 1.0)) is not None:
        ci["ece_top_label"] = iv
    return ci


def brier_change(
    mine: ClassProbabilities,
    base: ClassProbabilities,
    grid: np.ndarray | None,
    resamples: int,
    level: float,
    rng: np.random.Generator,
    why: str = "no interval",
) -> CalibrationDelta | None:
    """A challenger's Brier score minus the baseline's, with the percentile interval of the paired
    bootstrap on ``grid`` (:func:`brier_delta_draws`, moved by the rounding's effect on the point
    value; None: no interval, ``why`` its ``ci_method``); None when either score is undefined."""
    from reportgen.engine.intervals import percentile  # noqa: PLC0415
    from reportgen.option_results import CalibrationDelta  # noqa: PLC0415

    if mine.brier is None or base.brier is None:
        return None
    delta = mine.brier - base.brier
    ci: dict[str, list[float]] = {}
    if grid is not None and resamples > 0 and grid.sum() > 0:
        draws, rounded = brier_delta_draws(grid, resamples, rng)
        if (iv := percentile(draws, delta - rounded, level, -2.0, 2.0)) is not None:
            ci["brier"] = iv
    return CalibrationDelta({"brier": delta}, ci, PAIRED_ERROR_CELL_BOOTSTRAP if ci else why)


def top_k_accuracy(c: ProbabilityCounts, k: int) -> float:
    """The weighted share of rows whose true class ranks among the k highest scores."""
    return float(c.rank[:, :k].sum() / c.weight.sum())


def top_k_draws(c: ProbabilityCounts, k: int, resamples: int, rng: np.random.Generator) -> np.ndarray:
    """shape (resamples,): top-k accuracy on the stratified bootstrap of unweighted rows, drawn
    on the counts (:func:`~reportgen.engine.intervals.multiclass_model_bootstrap`): class i's
    rows by the rank of its score are one multinomial, exactly the resampled rows' ranks."""
    drawn, _ = multiclass_count_draws(c.rank, [], None, resamples, rng)  # (resamples, classes, ranks)
    return drawn[:, :, :k].sum(axis=(1, 2)) / drawn.sum(axis=(1, 2))  # whole counts: sums exact in any order


def expected_costs(c: ProbabilityCounts, costs: np.ndarray) -> tuple[float, float]:
    """The expected cost per row of the cost-optimal rule and of argmax: Σ_ij N_ij C_ij / m."""
    k = costs.shape[0]
    m = float(c.weight.sum())
    argmax = np.bincount(c.true.astype(np.int64) * k + c.predicted, weights=c.weight, minlength=k * k).reshape(k, k)
    assert c.optimal is not None
    return float((c.optimal * costs).sum() / m), float((argmax * costs).sum() / m)


def class_probabilities(
    tables: ClassTables,
    counts: ProbabilityCounts,
    *,
    top_k: int | None,
    costs: np.ndarray | None,
    bins: int = ECE_BINS,
) -> ClassProbabilities:
    """A model's :class:`~reportgen.option_results.ClassProbabilities`: the Brier score and class-wise ECE
    from its class tables, the rest from its probability counts. ``top_k`` None: 2 with more
    than two classes."""
    from reportgen.option_results import ClassProbabilities  # noqa: PLC0415 (a binary run builds none)

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
    elif not unit:
        reasons.update(dict.fromkeys(("expected_cost_optimal", "expected_cost_argmax"), "proba_outside_unit"))
    empty = np.zeros(0)
    conf = acc = weight = empty
    ece_top = matrix = cost_opt = cost_max = None
    if unit:
        weight, conf, acc = top_label_bins(counts, bins)
        ece_top = top_label_ece(weight, conf, acc)
        keep = weight > 0
        weight, conf, acc = weight[keep], conf[keep], acc[keep]
        if costs is not None and counts.optimal is not None:
            cost_opt, cost_max = expected_costs(counts, costs)
            matrix = [[float(v) for v in row] for row in counts.optimal]
    return ClassProbabilities(
        brier=brier_from_tables(tables),
        ece_classwise=classwise_ece_from_tables(tables, bins),
        ece_top_label=ece_top,
        bins=bins,
        confidence=conf,
        accuracy=acc,
        counts=weight,
        top_k=kk,
        top_k_accuracy=None if kk is None else top_k_accuracy(counts, kk),
        cost_optimal_confusion=matrix,
        expected_cost_optimal=cost_opt,
        expected_cost_argmax=cost_max,
        reasons=reasons,
    )


__all__ = [
    "BRIER_CELLS",
    "BRIER_STEP",
    "ECE_BINS",
    "ERROR_CELL_BOOTSTRAP",
    "PAIRED_ERROR_CELL_BOOTSTRAP",
    "ProbabilityCounts",
    "RANK_BOOTSTRAP",
    "brier_cells",
    "brier_errors",
    "brier_change",
    "brier_column_cells",
    "brier_delta_draws",
    "brier_difference_cells",
    "brier_draws",
    "class_cell_draws",
    "error_intervals",
    "grid_brier",
    "top_label_draws",
    "bin_of",
    "class_probabilities",
    "brier_from_tables",
    "classwise_ece_from_tables",
    "column_ranks",
    "cost_optimal_predictions",
    "expected_costs",
    "top_k_accuracy",
    "top_k_draws",
    "top_label_bins",
    "top_label_ece",
]
