"""Multiclass models × metrics × comparisons → model results and comparisons (``task: multiclass``).

Per model: every metric of :func:`reportgen.engine.multiclass.compute_multiclass` (one
``bincount`` for the confusion matrix, one sort per probability column for the AUCs), the
per-class one-vs-rest table, the confusion matrix, and decimated per-class ROC / PR curves.
Intervals come from the stratified paired bootstrap: the same row multiplicities for every
model (stratified by the true class), each resample re-evaluated by the same engine with the
multiplicities as weights, so a resample's metrics are exact, not approximated. Above
:data:`BOOTSTRAP_AUC_MAX_CELLS` rows × classes the AUCs are left out of the resamples (each
would need k sorts) and say so.

Per comparison with the baseline: deltas, relative deltas and relative error reductions of
every metric, bootstrap intervals of the deltas, McNemar's test on correct / incorrect
predictions (the 2×2 table of agreements), Holm-adjusted p-values when several models are
compared, and a verdict in words on the primary metric (bootstrap p-value).
"""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass

import numpy as np

from reportgen import catalog
from reportgen.engine import binary as B
from reportgen.engine import class_tables as CT
from reportgen.engine import multiclass as MC
from reportgen.engine import stats
from reportgen.engine.compare import Progress, Settings, _bootstrap_p, _interval, _relative, relative_error_reduction, verdict
from reportgen.results import (
    Comparison,
    ComparisonTests,
    ConfusionMatrixData,
    CurveData,
    McNemarSummary,
    ModelResult,
    MulticlassCurves,
)

#: Summary metrics of a multiclass model, in report order (``models.NAME.metrics``).
METRICS: tuple[str, ...] = catalog.keys("multiclass")

#: Which way is better (None: neither, the baseline accuracy).
BETTER: dict[str, str | None] = catalog.better("multiclass")

#: Metrics whose ideal is 1: relative error reduction applies.
MAX_ONE: tuple[str, ...] = tuple(m.key for m in catalog.metrics_of("multiclass") if m.ideal_one)

#: Per-class fields written under ``models.NAME.per_class.CLASS``.
PER_CLASS_FIELDS = ("precision", "recall", "specificity", "f1", "fbeta", "support", "tp", "fp", "fn", "tn", "roc_auc")

#: Largest rows × classes for which bootstrap resamples include the AUCs.
BOOTSTRAP_AUC_MAX_CELLS = 2_000_000

#: Points kept per drawn curve.
CURVE_POINTS = 400


@dataclass(frozen=True, slots=True)
class MulticlassInput:
    """One model's aligned rows: true class indices, predicted indices and/or class scores."""

    name: str
    file: str
    y_idx: np.ndarray
    pred_idx: np.ndarray | None = None
    proba: np.ndarray | None = None
    weights: np.ndarray | None = None


def _values(mm: MC.MulticlassMetrics) -> dict[str, float | None]:
    out: dict[str, float | None] = {}
    for k in METRICS:
        if k == "error_rate":
            out[k] = 1.0 - mm.accuracy
        else:
            v = getattr(mm, k)
            out[k] = None if v is None else float(v)
    return out


def _evaluate(inp: MulticlassInput, labels: Sequence[str], s: Settings, costs: np.ndarray | None,
              weights: np.ndarray | None, with_proba: bool = True) -> MC.MulticlassMetrics:
    return MC.compute_multiclass(
        inp.y_idx, labels, y_pred_idx=inp.pred_idx, proba=inp.proba if with_proba else None,
        weights=weights, beta=s.beta, costs=costs,
    )


def _round(a: np.ndarray) -> np.ndarray:
    return np.round(a, 6)


def _class_curves(inp: MulticlassInput, labels: Sequence[str]) -> MulticlassCurves | None:
    """Per-class one-vs-rest ROC and PR curves and the micro-averaged ROC, decimated."""
    if inp.proba is None:
        return None
    rocs = MC.per_class_roc(inp.y_idx, inp.proba, labels, inp.weights)
    w = np.ones(inp.y_idx.shape[0]) if inp.weights is None else inp.weights
    support = np.bincount(inp.y_idx, weights=w, minlength=len(labels))
    micro = MC.micro_roc_curve(inp.y_idx, inp.proba, len(labels), inp.weights)
    return curves_of(rocs, micro, support, float(w.sum()), labels)


def curves_of(rocs: Sequence[MC.ClassRocCurve], micro: MC.ClassRocCurve, support: np.ndarray, total: float,
              labels: Sequence[str]) -> MulticlassCurves:
    """Decimated curves for the report from full per-class and micro ROC curves."""
    roc: dict[str, CurveData] = {}
    pr: dict[str, CurveData] = {}
    for c, curve in enumerate(rocs):
        if curve.auc is None:
            continue
        keep = B.upper_hull(curve.fpr, curve.tpr)
        sel = B.decimate(curve.fpr, curve.tpr, CURVE_POINTS, keep=keep)
        thr = np.concatenate([[np.nan], curve.thresholds])
        roc[labels[c]] = CurveData(_round(curve.fpr[sel]), _round(curve.tpr[sel]), thr[sel])
        P, N = support[c], total - support[c]
        tp, fp = curve.tpr[1:] * P, curve.fpr[1:] * N
        prec = np.divide(tp, tp + fp, out=np.full_like(tp, np.nan), where=(tp + fp) > 0)
        rec = curve.tpr[1:]
        sel_pr = B.decimate(rec, np.nan_to_num(prec), CURVE_POINTS)
        pr[labels[c]] = CurveData(_round(rec[sel_pr]), _round(prec[sel_pr]), curve.thresholds[sel_pr])
    sel = B.decimate(micro.fpr, micro.tpr, CURVE_POINTS, keep=B.upper_hull(micro.fpr, micro.tpr))
    return MulticlassCurves(roc, pr, CurveData(_round(micro.fpr[sel]), _round(micro.tpr[sel]), None))


def _model_result(inp: MulticlassInput, labels: Sequence[str], s: Settings, costs: np.ndarray | None,
                  ci: dict[str, list[float]], ci_method: dict[str, str]) -> ModelResult:
    mm = _evaluate(inp, labels, s, costs, inp.weights)
    weighted = inp.weights is not None and not np.all(inp.weights == 1)
    return result_of(inp.name, inp.file, mm, labels, weighted=weighted, has_proba=inp.proba is not None,
                     from_column=inp.pred_idx is not None, curves=_class_curves(inp, labels), ci=ci, ci_method=ci_method)


def result_of(name: str, file: str, mm: MC.MulticlassMetrics, labels: Sequence[str], *, weighted: bool,
              has_proba: bool, from_column: bool, curves: MulticlassCurves | None,
              ci: dict[str, list[float]], ci_method: dict[str, str]) -> ModelResult:
    """A model's result from its metrics (in memory or streamed alike)."""
    per_class = {}
    for pc in mm.per_class:
        per_class[str(pc.label)] = {f: (None if getattr(pc, f) is None else float(getattr(pc, f))) for f in PER_CLASS_FIELDS}
    warnings = []
    seen = set()
    for field, note in mm.notes:
        if note not in seen and field != "predictions":
            seen.add(note)
            warnings.append(f"model '{name}': {field.replace('_', ' ')}: {note}")
    support = mm.confusion.sum(axis=1)
    present = support[support > 0]
    if present.size and present.min() < 30:
        small = [labels[c] for c in range(len(labels)) if 0 < support[c] < 30]
        warnings.append(
            f"model '{name}': class(es) {', '.join(repr(c) for c in small)} have fewer than 30 rows; "
            f"their per-class metrics and the intervals are unreliable"
        )
    if from_column:
        rule = "predicted class from the prediction column"
    else:
        rule = "predicted class = the highest class score (ties to the first class in order)"
    undefined = {k: v for k, v in mm.reasons}
    return ModelResult(
        name=name,
        file=file,
        n=mm.n_rows,
        positives=None,
        negatives=None,
        weighted=weighted,
        metrics=_values(mm),
        undefined=undefined,
        ci=ci,
        ci_method=ci_method,
        direction="higher",
        threshold=None,
        rule=rule,
        probabilities=has_proba and mm.log_loss is not None,
        per_class=per_class,
        confusion_matrix=ConfusionMatrixData([str(x) for x in mm.labels], [[float(v) for v in row] for row in mm.confusion]),
        multiclass_curves=curves,
        warnings=warnings,
    )


def _bootstrap(inputs: Sequence[MulticlassInput], labels: Sequence[str], s: Settings, costs: np.ndarray | None,
               progress: Progress | None) -> tuple[np.ndarray | None, bool]:
    """Array (resamples, models, metrics) over paired stratified resamples; and whether AUCs are in."""
    if s.resamples <= 0:
        return None, False
    y = inputs[0].y_idx
    with_auc = y.shape[0] * len(labels) <= BOOTSTRAP_AUC_MAX_CELLS
    rng = np.random.default_rng(s.seed)
    out = np.full((s.resamples, len(inputs), len(METRICS)), np.nan)
    for r, mult in enumerate(stats.stratified_bootstrap_counts(y, s.resamples, rng)):
        for j, inp in enumerate(inputs):
            w = mult.astype(np.float64) if inp.weights is None else mult * inp.weights
            vals = _values(_evaluate(inp, labels, s, costs, w, with_proba=with_auc))
            out[r, j] = [np.nan if vals[k] is None else vals[k] for k in METRICS]
        if progress is not None:
            progress(r + 1, s.resamples)
    return out, with_auc


_PROBA_METRICS = tuple(m.key for m in catalog.metrics_of("multiclass") if m.probabilities)


def compare_multiclass(
    inputs: Sequence[MulticlassInput],
    labels: Sequence[str],
    settings: Settings,
    costs: np.ndarray | None = None,
    progress: Progress | None = None,
) -> tuple[dict[str, ModelResult], list[Comparison]]:
    """Every model's multiclass results and every comparison with the baseline.

    Args:
        inputs: the models, rows aligned (same truth, same order) when ``settings.paired``.
        labels: the k class labels (text), in index order.
        settings: shared run settings (β, baseline, primary metric, level, bootstrap).
        costs: shape (k, k) cost matrix (row = true, column = predicted) or None.
    """
    s = settings
    boot, with_auc = _bootstrap(inputs, labels, s, costs, progress) if s.paired else (None, False)
    names = [i.name for i in inputs]
    skipped_auc = boot is not None and not with_auc

    models: dict[str, ModelResult] = {}
    for j, inp in enumerate(inputs):
        ci: dict[str, list[float]] = {}
        method: dict[str, str] = {}
        if boot is not None:
            for k, name in enumerate(METRICS):
                if name == "baseline_accuracy":
                    continue
                iv = _interval(boot[:, j, k], s.level)
                if iv is not None:
                    ci[name] = iv
                    method[name] = "bootstrap"
        models[inp.name] = _model_result(inp, labels, s, costs, ci, method)

    base_name = s.baseline or names[0]
    base = inputs[names.index(base_name)]

    def mcnemar_of(j: int) -> tuple[stats.McNemarResult | None, list[str]]:
        inp = inputs[j]
        if not s.paired:
            return None, []
        if not (inp.weights is None or np.all(inp.weights == np.round(inp.weights))):
            return None, ["McNemar's test needs integer (frequency) weights; not computed."]
        return stats.mcnemar(_predicted(inp) == inp.y_idx, _predicted(base) == base.y_idx, weights=inp.weights), []

    return models, comparisons_of(names, models, s, boot, skipped_auc, mcnemar_of)


def comparisons_of(names: Sequence[str], models: dict[str, ModelResult], s: Settings, boot: np.ndarray | None,
                   skipped_auc: bool, mcnemar_of, extra_notes: Sequence[str] = ()) -> list[Comparison]:
    """Every comparison with the baseline: deltas, bootstrap intervals (when ``boot`` is given),
    McNemar's test (``mcnemar_of(j)`` → (result or None, notes)), Holm adjustment, verdict."""
    midx = {m: k for k, m in enumerate(METRICS)}
    base_name = s.baseline or names[0]
    b = names.index(base_name)
    pending = []
    raw_mcnemar: list[float | None] = []
    for j, model in enumerate(names):
        if j == b:
            continue
        mm, bm = models[model].metrics, models[base_name].metrics
        delta = {k: (None if mm[k] is None or bm[k] is None else mm[k] - bm[k]) for k in METRICS}
        rel = {k: _relative(mm[k], bm[k]) for k in METRICS}
        rer = {k: relative_error_reduction(bm[k], mm[k]) for k in MAX_ONE}
        ci: dict[str, list[float]] = {}
        notes: list[str] = list(extra_notes)
        if boot is not None:
            for k, name in enumerate(METRICS):
                if name == "baseline_accuracy":
                    continue
                iv = _interval(boot[:, j, k] - boot[:, b, k], s.level)
                if iv is not None:
                    ci[name] = iv
            if skipped_auc:
                notes.append(f"AUCs are not bootstrapped above {BOOTSTRAP_AUC_MAX_CELLS:,} rows × classes; no interval for them.")
        mcn, why = mcnemar_of(j)
        notes.extend(why)
        raw_mcnemar.append(None if mcn is None else mcn.p_value)
        pending.append((model, delta, rel, rer, ci, notes, mcn, j))

    holm = stats.holm(raw_mcnemar)
    several = len(pending) > 1
    comparisons: list[Comparison] = []
    pm = s.primary_metric
    for (name, delta, rel, rer, ci, notes, mcn, j), hm in zip(pending, holm):
        mc = None
        if mcn is not None:
            mc = McNemarSummary(mcn.statistic, mcn.p_value, hm if several else None, mcn.method,
                                [[float(v) for v in row] for row in mcn.table])
        if boot is not None and pm in midx:
            p, meth = _bootstrap_p(boot[:, j, midx[pm]] - boot[:, b, midx[pm]]), "bootstrap"
        else:
            p, meth = None, "no test"
        text = verdict(name, base_name, pm, delta.get(pm), ci.get(pm), p, meth, s.level, better=BETTER.get(pm))
        if several:
            notes.append(f"{len(pending)} models are compared with {base_name}; Holm-adjusted p-values control the family-wise error.")
        comparisons.append(Comparison(
            model=name, baseline=base_name, delta=delta, relative_delta=rel,
            relative_error_reduction=rer["accuracy"], relative_error_reductions=rer, ci=ci,
            tests=ComparisonTests(None, mc, notes), verdict=text, primary_metric=pm,
        ))
    return comparisons


#: Why streamed multiclass comparisons have no intervals (the report's notes; cf. compare_tables.NO_BOOTSTRAP).
NO_BOOTSTRAP = ("Bootstrap intervals need the rows; with streamed inputs the multiclass metrics and their "
                "deltas are exact but have no intervals.")


@dataclass(frozen=True, slots=True)
class MulticlassCounts:
    """One model reduced to counts (streamed inputs): what :func:`MC.multiclass_from_counts` needs.

    ``confusion`` (k, k) rows = true class; ``tables`` the class tables of the scores, or None
    without scores; ``predicted_from_column``: False when predictions are the argmax of the scores.
    """

    name: str
    file: str
    confusion: np.ndarray
    n_rows: int
    tables: CT.ClassTables | None
    weighted: bool
    predicted_from_column: bool


def _table_curves(t: CT.ClassTables, labels: Sequence[str]) -> MulticlassCurves:
    """The report's curves from class tables (the same points as from the rows)."""
    rocs = [MC._curve(labels[c], CT.ovr_score_table(t, c), MC._class_name(labels[c])) for c in range(t.k)]
    micro = MC._curve(None, CT.micro_score_table(t), "the micro-average")
    support = t.class_weight()
    return curves_of(rocs, micro, support, float(support.sum()), labels)


def compare_counts(
    inputs: Sequence[MulticlassCounts],
    labels: Sequence[str],
    settings: Settings,
    costs: np.ndarray | None = None,
    mcnemar: dict[str, np.ndarray] | None = None,
    paired_note: str | None = None,
) -> tuple[dict[str, ModelResult], list[Comparison]]:
    """Every model's results and every comparison from counts (``engine: stream``).

    The metrics are those of the in-memory engine (the same functions of the same counts).
    No bootstrap (it needs the rows; :data:`NO_BOOTSTRAP` says so in every comparison).
    ``mcnemar``: per non-baseline model, the 2×2 counts [baseline correct?][model correct?]
    (index 0 = correct) over aligned rows, or None with ``paired_note`` saying why.
    """
    s = settings
    models: dict[str, ModelResult] = {}
    for inp in inputs:
        notes = {} if inp.predicted_from_column else {
            "predictions": "threshold metrics use the argmax of proba (ties to the lowest class index)"}
        mm = MC.multiclass_from_counts(inp.confusion, labels, inp.n_rows, inp.tables, beta=s.beta, costs=costs, notes=notes)
        curves = None if inp.tables is None else _table_curves(inp.tables, labels)
        models[inp.name] = result_of(inp.name, inp.file, mm, labels, weighted=inp.weighted, has_proba=inp.tables is not None,
                                     from_column=inp.predicted_from_column, curves=curves, ci={}, ci_method={})
    names = [i.name for i in inputs]

    def mcnemar_of(j: int) -> tuple[stats.McNemarResult | None, list[str]]:
        if mcnemar is None:
            return None, [paired_note] if paired_note else []
        t = mcnemar[names[j]]  # [baseline][model]; stats.mcnemar's a = the model, b = the baseline
        w = np.array([t[0, 0], t[1, 0], t[0, 1], t[1, 1]])
        return stats.mcnemar(np.array([1, 1, 0, 0]), np.array([1, 0, 1, 0]), weights=w), []

    return models, comparisons_of(names, models, s, None, False, mcnemar_of, extra_notes=(NO_BOOTSTRAP,))


def _predicted(inp: MulticlassInput) -> np.ndarray:
    """Predicted class index per row: the prediction column, else the argmax of the scores."""
    if inp.pred_idx is not None:
        return inp.pred_idx
    return MC.argmax_predictions(inp.proba)  # type: ignore[arg-type]


__all__ = ["MulticlassCounts", "MulticlassInput", "NO_BOOTSTRAP", "compare_counts", "compare_multiclass", "METRICS", "BETTER", "MAX_ONE", "PER_CLASS_FIELDS"]
