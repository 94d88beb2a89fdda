"""The contract every engine returns: rows reduced to mergeable sufficient statistics.

Every engine (memory, stream, dask) reduces its rows to the same evidence, and one driver
(:func:`reportgen.engine.driver.compare_evidence`) turns evidence and analysis settings into
the frozen result, choosing interval and test methods by what the evidence holds — never by
which engine made it. So a number cannot depend on the engine, only on what was reducible.

What a task's evidence holds (the attributes below say exactly): per model its table, with
everything that shapes it resolved once (direction, threshold and the config key it came from,
probabilities, binning) or its confusion counts and class tables; optionally the multiclass
rows as distinct rows with counts, for what needs the rows resampled together (the averaged AUCs
and their differences) — binary evidence holds no rows: every runner, memory included, reduces
them to tables, weight cells and paired counts; the pairing, whether the models' rows are
aligned and why not, with the paired sufficient statistics; and the load audit.

Pure numpy, no I/O, no prose beyond the loaders' own warnings.
"""

from __future__ import annotations

from collections.abc import Mapping
from dataclasses import dataclass, field
from typing import Literal

import numpy as np

from reportgen.engine.approval import ApprovalCounts
from reportgen.engine.class_probabilities import ProbabilityCounts
from reportgen.engine.class_tables import ClassTables
from reportgen.engine.curve import ScoreTable
from reportgen.engine.intervals import PairCounts, WeightCells
from reportgen.results import BinningInfo, InputFile, Notice
from reportgen.value import Shown, Value

#: Why rows are paired or not (:attr:`Pairing.reason`).
PairingReason = Literal[
    "aligned",  # the models' rows are the same rows in the same order
    "single_model",  # one model: nothing to pair (its own statistics are unaffected)
    "separate_files",  # the models are in different datasets the engine cannot join
    "rows_dropped",  # validation dropped rows, so the models' rows no longer line up
    "weighted",  # weighted rows: the engine did not count the paired statistics
    "labels_differ",  # the models' truth differs row by row
    "id_order",  # files joined by id whose rows are not in the same id order (streamed engines)
    "lengths_differ",  # files of different lengths and no id to join them
    "not_counted",  # the engine made no paired pass (e.g. a pass cut short)
]

PAIRING_REASONS: tuple[str, ...] = PairingReason.__args__  # type: ignore[attr-defined]


@dataclass(frozen=True, repr=False, eq=False, slots=True)
class LoadAudit(Value):
    """What loading did, for the run block of the result.

    Attributes:
        files: every input file once, in the order read (where, its SHA-256, rows read, bytes).
        dropped: (model, reason, rows) for each reason rows were dropped.
        warnings: the loaders' warnings as notices (codes and facts; the report layer words them).
        dates: (first, last) of the configured date column, or None.
    """

    files: tuple[InputFile, ...]
    dropped: tuple[tuple[str, str, int], ...] = ()
    warnings: tuple[Notice, ...] = ()
    dates: tuple[str, str] | None = None


@dataclass(frozen=True, slots=True, eq=False, repr=False)
class Pairing(Shown):
    """What paired statistics the evidence allows, why, and the counts that make them possible.

    Attributes:
        status: ``"aligned"`` when the models' rows are one set of rows in one order,
            ``"unpaired"`` otherwise.
        reason: a :data:`PairingReason` code: ``"aligned"``, or why not.
        covariance: shape (k, k), DeLong's covariance matrix of the models' AUCs,
            S10/m + S01/n with S10[a, b] = Σ_pos (V10_a − AUC_a)(V10_b − AUC_b)/(m − 1) over
            the aligned rows (DeLong et al. 1988); None when unweighted aligned rows were not
            available.
        agree: shape (k, k, 2, 2), counts of rows by (model a right?, model b right?), index 0
            = right, at each model's decision rule; NaN for pairs that were not counted (the
            streamed multiclass engine counts each model against the baseline only); None
            when nothing was counted.
        patterns: shape (2^(k+1),) (binary, k ≤ 15), rows per pattern ``y + 2·Σ_i right_i·2^i``
            of the truth and every model's decision being right: the paired bootstrap of
            every threshold metric at O(patterns) per resample; None otherwise.
        agree_rows: shape (k, k, 2, 2), the agreement counts in rows (unweighted) when ``agree``
            holds weighted counts: McNemar's test under sampling weights counts rows, so the
            weights never inflate the evidence; None when ``agree`` already counts rows.
        pair_counts: rows by (class, bin of a, bin of b) for every pair of models
            (:class:`~reportgen.engine.intervals.PairCounts`): the paired bootstrap of
            ranking-metric differences at O(cells) per resample; None when not counted.
        approval: rows per pattern of truth and every model's approval at each target approval
            rate (:class:`~reportgen.engine.approval.ApprovalCounts`): the comparison at equal
            approval rate and its paired bootstrap; None when not counted (weighted rows).
        cells: weighted aligned rows counted per (every model's table row, class, every model's
            weight) (:class:`~reportgen.engine.intervals.WeightCells`, key j = model j): the
            paired row bootstrap of weighted models' differences and their comparison at equal
            approval rate; None when unweighted, not counted, or past
            :data:`~reportgen.engine.intervals.MAX_WEIGHT_CELLS` cells.
        joint: multiclass, shape (models, k, k, k): rows by (true class, the baseline's predicted
            class, model j's predicted class) for each model j against the baseline (the
            baseline's own slot: its diagonal), in weight sums (rows when unweighted; integer
            frequency weights). Both confusion matrices of a pair are its margins, so the paired
            bootstrap of every confusion-metric difference is a multinomial per true class over
            its k² cells; None when not counted.
    """

    status: Literal["aligned", "unpaired"]
    reason: str
    covariance: np.ndarray | None = None
    agree: np.ndarray | None = None
    patterns: np.ndarray | None = None
    agree_rows: np.ndarray | None = None
    pair_counts: PairCounts | None = None
    approval: ApprovalCounts | None = None
    joint: np.ndarray | None = None
    cells: WeightCells | None = None

    def __post_init__(self) -> None:
        if self.reason not in PAIRING_REASONS:
            raise ValueError(f"unknown pairing reason {self.reason!r}")
        if (self.status == "aligned") != (self.reason in ("aligned", "single_model")):
            raise ValueError(f"pairing status {self.status!r} contradicts reason {self.reason!r}")

    def agreement(self, a: int, b: int) -> np.ndarray | None:
        """The 2×2 counts [a right?][b right?] (0 = right) of models a and b, or None."""
        if self.agree is None or not np.all(np.isfinite(self.agree[a, b])):
            return None
        return self.agree[a, b]

    def agreement_rows(self, a: int, b: int) -> np.ndarray | None:
        """The 2×2 counts of models a and b in rows (unweighted), for weighted evidence; None when
        the engine counted weighted agreement only (never the weighted counts in their place:
        sampling weights must not inflate McNemar's evidence)."""
        if self.agree_rows is None:
            return None
        if not np.all(np.isfinite(self.agree_rows[a, b])):
            return None
        return self.agree_rows[a, b]


def unpaired(reason: str) -> Pairing:
    """A :class:`Pairing` without paired statistics, for the given reason code."""
    return Pairing("unpaired", reason)


# --------------------------------------------------------------------------------------
# Binary
# --------------------------------------------------------------------------------------


@dataclass(frozen=True, slots=True, eq=False, repr=False)
class BinaryModelEvidence(Shown):
    """One binary model reduced to its score table, with its decision rule resolved.

    Attributes:
        name, file: the model's name and the file its scores came from.
        table: the model's :class:`~reportgen.engine.curve.ScoreTable` (sorted distinct scores,
            positive and negative weight at each; oriented by ``table.direction``).
        threshold: the decision threshold in score units: "positive when score ≥ t"
            (``direction: higher``) or "≤ t" (``lower``).
        threshold_key: the config key it came from, ``"threshold"`` or ``"models[i].threshold"``
            (so a warning can say what to change).
        probabilities: the model's ``probabilities`` setting (None: decided by the scores).
        binning: how the table was binned (method, bins, the bound on the AUC error), or None
            for an exact table.
        cells: a weighted model's rows counted per (table row, class, weight)
            (:class:`~reportgen.engine.intervals.WeightCells`, one key): its bootstrap and its
            confusion counts in rows; None when unweighted, binned, or past
            :data:`~reportgen.engine.intervals.MAX_WEIGHT_CELLS` cells.
        score_range: a binned table's raw (lowest, highest) score, which its thresholds (the
            bins' lowest scores) do not both hold; None: the table's thresholds hold them.
    """

    name: str
    file: str
    table: ScoreTable
    threshold: float
    threshold_key: str = "threshold"
    probabilities: bool | None = None
    binning: BinningInfo | None = None
    cells: WeightCells | None = None
    score_range: tuple[float, float] | None = None

    @property
    def direction(self) -> str:
        return self.table.direction

    def predicts_one_class(self) -> str | None:
        """``"positive"`` / ``"negative"`` when the threshold lies outside the table's scores, so
        every row is predicted one class; else None. Decided on the table (for a binned table its
        thresholds are the bins' lowest scores, the rule behind its counts)."""
        thr = self.table.thresholds
        if thr.shape[0] == 0:
            return None
        lo, hi = float(thr.min()), float(thr.max())
        t = self.threshold
        if lo <= t <= hi:
            return None
        above = t > hi
        if self.direction == "higher":
            return "negative" if above else "positive"
        return "positive" if above else "negative"

    def threshold_notice(self) -> Notice | None:
        """The ``threshold_outside_scores`` notice (codes and facts) when :meth:`predicts_one_class`;
        else None. ``reportgen validate`` gives it from the evidence; a run from the driver."""
        everyone = self.predicts_one_class()
        if everyone is None:
            return None
        thr = self.table.thresholds
        lo, hi = self.score_range or (float(thr.min()), float(thr.max()))
        return Notice(
            "threshold_outside_scores",
            {
                "model": self.name,
                "threshold": self.threshold,
                "score_min": lo,
                "score_max": hi,
                "predicted": everyone,
                "threshold_key": self.threshold_key,
            },
        )


@dataclass(frozen=True, slots=True, eq=False, repr=False)
class BinaryEvidence(Shown):
    """Everything the binary driver needs; the same type from every engine.

    Attributes:
        models: the models in config order.
        pairing: what paired statistics are possible (:class:`Pairing`).
        audit: the load audit.
    """

    models: tuple[BinaryModelEvidence, ...]
    pairing: Pairing
    audit: LoadAudit

    @property
    def weighted(self) -> bool:
        """Whether any model's table carries non-unit weights."""
        return any(m.table.weighted for m in self.models)

    @property
    def names(self) -> list[str]:
        return [m.name for m in self.models]


# --------------------------------------------------------------------------------------
# Multiclass
# --------------------------------------------------------------------------------------


@dataclass(frozen=True, slots=True, eq=False, repr=False)
class MulticlassModelEvidence(Shown):
    """One multiclass model reduced to counts.

    Attributes:
        name, file: the model's name and the file its predictions came from.
        confusion: shape (k, k), weight of rows by (true class, predicted class).
        n_rows: rows counted.
        tables: the :class:`~reportgen.engine.class_tables.ClassTables` of the class scores, or
            None without scores.
        weighted: whether non-unit weights were used.
        predicted_from_column: False when the predictions are the argmax of the scores.
        probability: the :class:`~reportgen.engine.class_probabilities.ProbabilityCounts` of the
            class scores (top-label ECE, top-k accuracy, the cost-optimal rule), or None without scores.
    """

    name: str
    file: str
    confusion: np.ndarray
    n_rows: int
    tables: ClassTables | None
    weighted: bool
    predicted_from_column: bool
    probability: ProbabilityCounts | None = None


@dataclass(frozen=True, slots=True, eq=False, repr=False)
class MulticlassRows(Shown):
    """The aligned rows of a multiclass comparison, compressed to distinct rows
    (:mod:`reportgen.engine.distinct_rows`: the same rows in the same order from every engine).

    Attributes:
        y_idx: shape (n,), true class indices, shared by every model.
        weights: shape (n,) or None.
        pred_idx: per model, shape (n,) predicted class indices, or None (argmax of ``proba``).
        proba: per model, shape (n, k) class scores, or None.
        counts: shape (n,), how many rows each row stands for (whole numbers).
        scores_left_out: more distinct rows × classes than the bootstrap draws scores for
            (:data:`~reportgen.engine.distinct_rows.SCORE_ROWS_MAX_CELLS`): the rows carry each
            model's predicted class only (``proba`` all None).
    """

    y_idx: np.ndarray
    weights: np.ndarray | None
    pred_idx: tuple[np.ndarray | None, ...]
    proba: tuple[np.ndarray | None, ...]
    counts: np.ndarray
    scores_left_out: bool = False


@dataclass(frozen=True, slots=True, eq=False, repr=False)
class MulticlassEvidence(Shown):
    """Everything the multiclass driver needs; the same type from every engine.

    Attributes:
        classes: the k class labels (text), in index order.
        models: the models in config order.
        pairing: the paired statistics possible (``agree`` holds McNemar's 2×2 counts).
        audit: the load audit.
        rows: the aligned rows as distinct rows with counts, or None (not aligned, or past the
            streamed engines' cap on distinct rows).
        brier_deltas: per challenger with class scores (and a baseline with them), its aligned
            rows by (true class, Brier error minus the baseline's, rounded), shape (k, 2·BRIER_CELLS
            − 1) (:func:`~reportgen.engine.class_probabilities.brier_difference_cells`): the paired
            bootstrap of the Brier change; empty when the rows were not aligned.
    """

    classes: tuple[str, ...]
    models: tuple[MulticlassModelEvidence, ...]
    pairing: Pairing
    audit: LoadAudit
    rows: MulticlassRows | None = None
    brier_deltas: Mapping[str, np.ndarray] = field(default_factory=dict)

    @property
    def names(self) -> list[str]:
        return [m.name for m in self.models]


__all__ = [
    "BinaryEvidence",
    "BinaryModelEvidence",
    "LoadAudit",
    "MulticlassEvidence",
    "MulticlassModelEvidence",
    "MulticlassRows",
    "PAIRING_REASONS",
    "Pairing",
    "unpaired",
]
