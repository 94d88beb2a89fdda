"""Sentences the report writes from the engine's facts and codes (the report layer's words).

The engine returns what it computed, how (``ci_method``) and what it could not give with a
reason code (``Comparison.capabilities``); this module turns those into the sentences under
each comparison, one wording for every engine, so the same evidence reads the same whichever
engine made it.
"""

from __future__ import annotations

from reportgen.engine.compare import DELONG_MIN_ROWS, PATTERN_BOOTSTRAP, ROW_BOOTSTRAP, TABLE_BOOTSTRAP
from reportgen.engine.intervals import (
    BINNED_BOOTSTRAP,
    COUNT_BOOTSTRAP,
    JOINT_BINNED_BOOTSTRAP,
    JOINT_BINS,
    JOINT_BOOTSTRAP,
    MAX_PAIR_MODELS,
    MODEL_BINS,
)
from reportgen.engine.compare_multiclass import BOOTSTRAP_AUC_MAX_CELLS
from reportgen.results import Comparison, ComparisonResult

#: Why paired statistics are missing, by :data:`~reportgen.engine.evidence.PairingReason`.
PAIRING_TEXT = {
    "separate_files": "the models' rows are in separate files or datasets that cannot be lined up row by row",
    "rows_dropped": "rows were dropped, so the models' rows no longer line up",
    "weighted": "the rows are weighted",
    "labels_differ": "the models' labels differ row by row",
    "not_counted": "the models' rows were not counted together",
    "id_order": ("the models are in different files joined by id whose rows are not in the same id order "
                 "(put the scores in one table or write the files in the same id order)"),
    "lengths_differ": "the models are in different files of different lengths and no 'id' joins them",
}

#: Multiclass comparisons without the rows (capability ``bootstrap``: ``needs_rows``).
NO_BOOTSTRAP = ("Intervals of the differences between multiclass models, and of the models' AUCs, need the rows "
                "resampled together; the evidence holds counts only, so the deltas are exact but have no intervals.")

PATTERN_BOOTSTRAP_NOTE = ("Intervals of differences of threshold metrics (accuracy, F1, MCC, expected cost, …): paired "
                          "stratified bootstrap of the models' decisions, counted per pattern of truth and decisions.")


def capability_note(what: str, reason: str) -> str:
    """The sentence of a capability code: what is not given and why."""
    why = PAIRING_TEXT.get(reason, reason.replace("_", " "))
    if what == "delong":
        if reason == "small_class":
            return f"DeLong's test needs at least {DELONG_MIN_ROWS} rows of each class; not computed."
        return "DeLong's test needs unweighted rows; not computed."
    if what == "delong_paired":
        return (f"DeLong's test is unpaired (the two variances added, Student's t with Welch's degrees of "
                f"freedom, as pROC): {why}.")
    if what == "mcnemar":
        if reason == "non_integer_weights":
            return "McNemar's test needs integer (frequency) weights; not computed."
        return f"McNemar's test needs the models' decisions on the same rows: {why}; not computed."
    if what == "paired_interval.threshold_metrics":
        return (f"Intervals of differences of threshold metrics need the models' decisions counted together on "
                f"aligned rows: {why}; not given.")
    if what == "paired_interval.ranking_metrics":
        if reason == "not_counted":
            why = f"the models' joint score tables were not counted (more than {MAX_PAIR_MODELS} models)"
        return ("Intervals of differences of KS, average precision, R-precision, defective pairs, log-loss and "
                f"Brier score need the models' scores counted together on aligned rows: {why}; not given.")
    if what == "model_interval.bootstrap":
        return "Bootstrap intervals of weighted models need their rows; the evidence holds score tables only."
    if what == "bootstrap":
        return NO_BOOTSTRAP
    if what == "bootstrap.auc":
        return f"AUCs are not bootstrapped above {BOOTSTRAP_AUC_MAX_CELLS:,} rows × classes; no interval for them."
    raise ValueError(f"unknown capability {what!r}")


def table_bootstrap_note(resamples: int, seed: int) -> str:
    """How each model's bootstrap intervals were made (every engine: the same draw)."""
    return (f"Each model's intervals (other than AUC and Gini) come from the stratified bootstrap drawn on its score "
            f"table ({resamples:,} resamples, seed {seed}): per class, how many resampled rows fall on each distinct "
            f"score is one multinomial draw, the distribution of resampling the rows themselves.")


BINNED_NOTE = (f"Intervals marked as drawn on a binned score table: the model has more than {MODEL_BINS:,} distinct "
               f"scores, so its table was cut into at most {MODEL_BINS:,} equal-weight bins (and at its threshold, "
               "so threshold metrics keep their exact distribution); each interval is moved by the binning's error "
               "on the data (exact value minus binned value).")

JOINT_NOTE = ("Intervals of differences of KS, average precision, R-precision, defective pairs, log-loss and Brier "
              "score: paired stratified bootstrap drawn on the pair's joint score table (rows counted by class and "
              "both models' scores, one multinomial draw per class and resample).")

JOINT_BINNED_NOTE = (f"The joint score table of a pair cuts each model with more than {JOINT_BINS} distinct scores into "
                     f"{JOINT_BINS} equal-weight bins; each difference's interval is moved by the binning's error on "
                     "the data (exact difference minus binned difference).")


def count_bootstrap_note(resamples: int, seed: int) -> str:
    return (f"Each multiclass model's intervals of the metrics of its confusion counts and of its log-loss come from "
            f"the stratified bootstrap drawn on its counts ({resamples:,} resamples, seed {seed}): per true class, how "
            "the resampled rows are predicted (and where their true class's probabilities fall) is one multinomial "
            "draw, the distribution of resampling the rows themselves.")


def row_bootstrap_note(resamples: int, seed: int) -> str:
    return (f"Intervals marked as drawn from the rows come from the stratified bootstrap of the kept rows, one draw "
            f"for every model ({resamples:,} resamples, seed {seed}), so differences are paired.")


def comparison_notes(c: Comparison, result: ComparisonResult) -> list[str]:
    """Every sentence under one comparison: what is missing and why, how the intervals were made,
    the tests' own caveats, and the multiple-comparison adjustment."""
    notes = [capability_note(what, why) for what, why in c.capabilities.items()]
    methods = {v for m in result.models.values() for v in m.ci_method.values()} | set(c.ci_method.values())
    run = result.run
    if TABLE_BOOTSTRAP in methods:
        notes.append(table_bootstrap_note(run.bootstrap_resamples, run.bootstrap_seed))
    if PATTERN_BOOTSTRAP in c.ci_method.values():
        notes.append(PATTERN_BOOTSTRAP_NOTE)
    if BINNED_BOOTSTRAP in methods:
        notes.append(BINNED_NOTE)
    if COUNT_BOOTSTRAP in methods:
        notes.append(count_bootstrap_note(run.bootstrap_resamples, run.bootstrap_seed))
    if c.ci_method and {JOINT_BOOTSTRAP, JOINT_BINNED_BOOTSTRAP} & set(c.ci_method.values()):
        notes.append(JOINT_NOTE)
    if JOINT_BINNED_BOOTSTRAP in c.ci_method.values():
        notes.append(JOINT_BINNED_NOTE)
    if ROW_BOOTSTRAP in methods:
        notes.append(row_bootstrap_note(run.bootstrap_resamples, run.bootstrap_seed))
    notes.extend(c.tests.notes)
    n = len(result.comparisons)
    if n > 1:
        notes.append(f"{n} models are compared with {c.baseline}; Holm-adjusted p-values control the family-wise error.")
    return notes


def interval_kind(result: ComparisonResult) -> str | None:
    """How the bootstrap intervals of the run were drawn (the settings sentence), None without any."""
    methods = {v for m in result.models.values() for v in m.ci_method.values()}
    if TABLE_BOOTSTRAP in methods or BINNED_BOOTSTRAP in methods:
        return "stratified bootstrap drawn on each model's score table"
    if COUNT_BOOTSTRAP in methods:
        return "stratified bootstrap drawn on each model's confusion counts"
    if ROW_BOOTSTRAP in methods:
        return "stratified bootstrap of the rows"
    return None


__all__ = ["NO_BOOTSTRAP", "PAIRING_TEXT", "capability_note", "comparison_notes", "interval_kind", "table_bootstrap_note"]
