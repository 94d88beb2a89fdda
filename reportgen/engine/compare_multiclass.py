"""Multiclass evidence → model results and comparisons (``task: multiclass``, every engine).

Per model: every metric of :func:`reportgen.engine.multiclass.multiclass_from_counts` from its
confusion counts and class tables (the same counts in every engine, so the same numbers), the
per-class one-vs-rest table, the confusion matrix and decimated per-class ROC / PR curves.
Intervals of an unweighted model's confusion metrics and log-loss are drawn on its counts in
every engine (:func:`~reportgen.engine.intervals.multiclass_model_bootstrap`: per true class a
multinomial, the row bootstrap's distribution). The AUCs and the differences between models
need the rows: when the evidence keeps them (as distinct rows with counts,
:mod:`reportgen.engine.distinct_rows`: memory always, stream and dask up to
``stream.max_distinct_scores`` distinct rows), the stratified paired bootstrap evaluates
each block of resamples on the drawn counts (:mod:`reportgen.engine.class_row_draws`;
above :data:`BOOTSTRAP_AUC_MAX_CELLS` distinct rows × classes without the AUCs, stated, and not
at all where the counts' draws already give every interval it would); otherwise none, and each comparison carries the capability
``bootstrap: needs_rows``.

Per comparison with the baseline: deltas, relative deltas and relative error reductions,
bootstrap intervals of the deltas when the rows are kept, McNemar's test from the agreement
counts, Holm-adjusted p-values, and the facts of the verdict on the primary metric (the
normal test on the bootstrap standard error, :func:`~reportgen.engine.compare.bootstrap_test`;
its interval is the difference's); each class's one-vs-rest AUC interval drawn on the class tables in every engine
(:func:`~reportgen.engine.intervals.ovr_auc_bootstrap`). Warnings are notice codes (the metrics'
own caveats travel as their codes, with the model and the metric added) and undefined metrics
carry reason codes; :mod:`reportgen.report.wording` writes the sentences.
"""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import replace

import numpy as np

import reportgen.catalog as catalog
from reportgen.engine import binary as B
from reportgen.engine import class_probabilities as CP
from reportgen.engine import class_report as CR
from reportgen.engine import class_row_draws as RD
from reportgen.engine import class_tables as CT
from reportgen.engine import distinct_rows as DR
from reportgen.engine import intervals as IV
from reportgen.engine import multiclass as MC
from reportgen.engine import multiplicity as MP
from reportgen.engine import streams
from reportgen.engine.compare import (
    MICRO_PROJECTION,
    ROW_BOOTSTRAP,
    Progress,
    Settings,
    bootstrap_interval,
    bootstrap_test,
    decide,
    differences,
    mcnemar_of_pairing,
    mcnemar_summary,
    no_test,
)
from reportgen.engine.evidence import MulticlassEvidence, MulticlassModelEvidence, MulticlassRows
from reportgen.engine.intervals import (
    CLASS_TABLE_BINNED_BOOTSTRAP,
    CLASS_TABLE_BOOTSTRAP,
    COUNT_BOOTSTRAP,
    JOINT_CONFUSION_BOOTSTRAP,
    joint_confusion_bootstrap,
    log_loss_sums,
    multiclass_count_draws,
    ovr_auc_bootstrap,
)
from reportgen.option_results import ClassProbabilities, ConfusionMatrixData, MulticlassCurves
from reportgen.results import (
    Comparison,
    ComparisonTests,
    CurveData,
    HolmFamily,
    ModelResult,
    Notice,
    PairwiseCell,
)

#: Summary metrics of a multiclass model, in report order (``models.NAME.metrics``).
METRICS: tuple[str, ...] = catalog.keys("multiclass")

#: Which way is better (None: neither, the baseline accuracy).
BETTER: dict[str, catalog.Better] = catalog.better("multiclass")

#: Metrics whose ideal is 1: relative error reduction applies.
MAX_ONE: tuple[str, ...] = tuple(m.key for m in catalog.metrics_of("multiclass") if m.ideal_one)

#: Per-class fields written under ``models.NAME.per_class.CLASS``.
PER_CLASS_FIELDS = ("precision", "recall", "specificity", "f1", "fbeta", "support", "tp", "fp", "fn", "tn", "roc_auc")

#: Largest rows × classes for which bootstrap resamples include the AUCs (above it, capability
#: ``bootstrap.auc``: ``too_many_cells``).
BOOTSTRAP_AUC_MAX_CELLS = DR.SCORE_ROWS_MAX_CELLS

#: Rows below which a class's per-class metrics and intervals are flagged (notice ``small_classes``).
SMALL_CLASS_ROWS = 30

#: Points kept per drawn curve.
CURVE_POINTS = 400


def _values(mm: MC.MulticlassMetrics) -> dict[str, float | None]:
    out: dict[str, float | None] = {}
    for k in METRICS:
        if k == "error_rate":
            out[k] = 1.0 - mm.accuracy
        else:
            v = getattr(mm, k)
            out[k] = None if v is None else float(v)
    return out


def _round(a: np.ndarray) -> np.ndarray:
    return np.round(a, 6)


def class_curves(curve: MC.ClassRocCurve, positives: float, total: float) -> tuple[CurveData, CurveData]:
    """A class's decimated ROC and PR curves for the report from its full ROC curve (``positives``:
    the class's support, of ``total``)."""
    keep = B.upper_hull(curve.fpr, curve.tpr)
    sel = B.decimate(curve.fpr, curve.tpr, CURVE_POINTS, keep=keep)
    thr = np.concatenate([[np.nan], curve.thresholds])
    roc = CurveData(_round(curve.fpr[sel]), _round(curve.tpr[sel]), thr[sel])
    P, N = positives, total - positives
    tp, fp = curve.tpr[1:] * P, curve.fpr[1:] * N
    prec = np.divide(tp, tp + fp, out=np.full_like(tp, np.nan), where=(tp + fp) > 0)
    rec = curve.tpr[1:]
    sel_pr = B.decimate(rec, np.nan_to_num(prec), CURVE_POINTS)
    return roc, CurveData(_round(rec[sel_pr]), _round(prec[sel_pr]), curve.thresholds[sel_pr])


def micro_curve(t: CT.ClassTables) -> CurveData:
    """The micro-average's decimated ROC curve for the report, from the pooled cells' counts in
    blocks (:func:`~reportgen.engine.class_tables.micro_roc_blocks`): its n·k points never all
    at once."""
    fpr, tpr = B.decimate_roc_blocks(CT.micro_roc_blocks(t), CURVE_POINTS)
    return CurveData(_round(fpr), _round(tpr), None)


def result_of(
    name: str,
    file: str,
    mm: MC.MulticlassMetrics,
    labels: Sequence[str],
    *,
    weighted: bool,
    has_proba: bool,
    from_column: bool,
    curves: MulticlassCurves | None,
    ci: dict[str, list[float]],
    ci_method: dict[str, str],
) -> ModelResult:
    """A model's result from its metrics (in memory or streamed alike)."""
    per_class = {}
    for pc in mm.per_class:
        per_class[str(pc.label)] = {
            f: (None if getattr(pc, f) is None else float(getattr(pc, f))) for f in PER_CLASS_FIELDS
        }
    notices: list[Notice] = []
    seen: list[Notice] = []
    for field, note in mm.notes:  # the metrics' own caveats: one notice per distinct fact, at its first field
        if note not in seen:
            seen.append(note)
            notices.append(Notice(note.code, {"model": name, "metric": field, **dict(note.params)}))
    support = mm.confusion.sum(axis=1)
    present = support[support > 0]
    if present.size and present.min() < SMALL_CLASS_ROWS:
        small = [str(labels[c]) for c in range(len(labels)) if 0 < support[c] < SMALL_CLASS_ROWS]
        notices.append(Notice("small_classes", {"model": name, "classes": small, "min_rows": SMALL_CLASS_ROWS}))
    return ModelResult(
        name=name,
        file=file,
        n=mm.n_rows,
        positives=None,
        negatives=None,
        weighted=weighted,
        metrics=_values(mm),
        undefined={},  # the words: written by the report layer from undefined_reasons
        undefined_reasons=dict(mm.reasons),
        ci=ci,
        ci_method=ci_method,
        direction="higher",
        threshold=None,
        decision_rule="prediction_column" if from_column else "argmax",
        probabilities=has_proba and mm.log_loss is not None,
        per_class=per_class,
        confusion_matrix=ConfusionMatrixData(
            [str(x) for x in mm.labels], [[float(v) for v in row] for row in mm.confusion]
        ),
        multiclass_curves=curves,
        notices=notices,
    )


def _zero_width_notices(
    name: str, ci: dict[str, list[float]], per_class_ci: dict[str, dict[str, list[float]]], level: float
) -> list[Notice]:
    """The intervals of zero width (every resample gave the same value: a class whose scores
    separate it perfectly has the one-vs-rest AUC interval [1, 1]), which read as certainty:
    notices ``zero_width_interval`` (summary metrics) and ``zero_width_class_interval`` (classes)."""
    out = []
    if flat := [k for k, iv in ci.items() if iv[0] == iv[1]]:
        out.append(Notice("zero_width_interval", {"model": name, "level": level, "metrics": flat}))
    if classes := [c for c, f in per_class_ci.items() if (iv := f.get("roc_auc")) is not None and iv[0] == iv[1]]:
        out.append(
            Notice(
                "zero_width_class_interval", {"model": name, "level": level, "metric": "roc_auc", "classes": classes}
            )
        )
    return out


def _scores_drawn(rows: MulticlassRows, labels: Sequence[str]) -> bool:
    """Whether the rows' bootstrap draws the scores too (AUCs, log-loss): at most
    :data:`BOOTSTRAP_AUC_MAX_CELLS` distinct rows × classes."""
    return not rows.scores_left_out and rows.y_idx.shape[0] * len(labels) <= BOOTSTRAP_AUC_MAX_CELLS


def _bootstrap(
    rows: MulticlassRows,
    labels: Sequence[str],
    s: Settings,
    costs: np.ndarray | None,
    progress: Progress | None,
    confusion: bool = True,
) -> tuple[np.ndarray, bool, list[np.ndarray | None]]:
    """Array (resamples, models, metrics) over paired stratified resamples of the rows; whether
    AUCs are in; and per model its classes' one-vs-rest AUCs, (resamples, k) (None without). The
    rows are distinct rows (``rows.counts``: rows each stands for), so a resample is a multinomial over each true class's distinct rows
    (:func:`~reportgen.engine.distinct_rows.stratified_multinomial_blocks`: the row bootstrap's
    distribution, the same draws in every engine), with the drawn counts times the weights as
    row weights. Each block of resamples is evaluated at once on counts
    (:mod:`reportgen.engine.class_row_draws`): the confusion matrices by one grouped sum and
    their metrics array-wise over the block, the AUCs and log-loss by Mann–Whitney sums over the rows sorted once per score column — the
    values :func:`~reportgen.engine.multiclass.compute_multiclass` gives on the weighted rows.
    ``confusion`` False: the confusion metrics are left NaN (drawn on the counts instead)."""
    y = rows.y_idx
    k = len(labels)
    with_auc = _scores_drawn(rows, labels)
    rng = streams.stream(s.seed, "class_rows")  # every model on the same resampled rows (paired)
    out = np.full((s.resamples, len(rows.pred_idx), len(METRICS)), np.nan)
    # a model of scores predicts their argmax: found once here, not in every resample
    preds = [_predictions(pred, proba) for pred, proba in zip(rows.pred_idx, rows.proba)]
    observed = rows.counts if rows.weights is None else rows.counts * rows.weights  # the resamples' mean
    prepared = [None if p is None or not with_auc else RD.ModelRows.of(y, p, observed) for p in rows.proba]
    col = {name: q for q, name in enumerate(METRICS)}
    class_auc = [None if p is None else np.full((s.resamples, k), np.nan) for p in prepared]
    work = RD.Work()  # scratch arrays, reused by every block and model (the same rows)
    r = 0
    for block in DR.stratified_multinomial_blocks(y, rows.counts, s.resamples, rng):
        W = block if rows.weights is None else block * rows.weights  # whole counts: exact in float32 (RD.draws)
        b = W.shape[0]
        for j, (pred, model_rows) in enumerate(zip(preds, prepared)):
            if confusion:
                drawn_c = RD.confusion_metric_draws(
                    RD.confusion_draws(y, pred, k, W), beta=s.beta, costs=costs, ordinal=s.ordinal
                )
                for name, draws in drawn_c.items():
                    out[r : r + b, j, col[name]] = draws
            if model_rows is not None:
                drawn = RD.draws(model_rows, W, work)
                for name, draws in drawn.metrics.items():
                    out[r : r + b, j, col[name]] = draws
                class_auc[j][r : r + b] = drawn.class_auc  # type: ignore[index]
        r += b
        if progress is not None:
            progress(r, s.resamples)
    return out, with_auc, class_auc


def _row_method(name: str) -> str:
    """The ``ci_method`` of a metric drawn on the rows' resamples (the micro AUC by its projection)."""
    return MICRO_PROJECTION if name == "roc_auc_ovr_micro" else ROW_BOOTSTRAP


def _predictions(pred: np.ndarray | None, proba: np.ndarray | None) -> np.ndarray:
    """A model's predicted class indices: given, or the argmax of its scores."""
    if pred is not None:
        return pred
    assert proba is not None, "a model without predictions has scores"
    return MC.argmax_predictions(proba)


def _row(values: dict[str, float | None], metrics: Sequence[str] = METRICS) -> list[float]:
    """The values of ``metrics``, NaN where undefined."""
    return [np.nan if (v := values[k]) is None else v for k in metrics]


_PROBA_METRICS = tuple(m.key for m in catalog.metrics_of("multiclass") if m.probabilities)


def comparisons_of(
    names: Sequence[str],
    models: dict[str, ModelResult],
    s: Settings,
    boot: np.ndarray | None,
    skipped_auc: bool,
    mcnemar_of,
    capabilities: dict[str, str],
    joint_deltas: dict[int, dict[str, np.ndarray]] | None = None,
) -> list[Comparison]:
    """Every comparison with the baseline: deltas, bootstrap intervals (when ``boot`` is given),
    McNemar's test (``mcnemar_of(j)``: :func:`~reportgen.engine.compare.mcnemar_of_pairing`), Holm
    over each family (verdicts, McNemar), and a decision (the report words the verdict);
    ``capabilities``: what every comparison lacks, with reason codes. ``joint_deltas[j]``: model
    j's drawn differences of the confusion metrics from the pair's joint confusion counts (every
    engine, the same draws); they come first, the rows' bootstrap (memory) adds the AUCs and
    log-loss."""
    joint_deltas = joint_deltas or {}
    midx = {m: k for k, m in enumerate(METRICS)}
    base_name = s.baseline or names[0]
    b = names.index(base_name)
    pm = s.primary_metric
    pending, tests = [], []
    raw_mcnemar: list[float | None] = []
    for j, model in enumerate(names):
        if j == b:
            continue
        delta, rel, rer = differences(models[model].metrics, models[base_name].metrics, METRICS, MAX_ONE)
        ci: dict[str, list[float]] = {}
        method: dict[str, str] = {}
        caps = dict(capabilities)
        for name, x in joint_deltas.get(j, {}).items():
            if name != "baseline_accuracy" and (iv := bootstrap_interval(x, s.level)) is not None:
                ci[name], method[name] = iv, JOINT_CONFUSION_BOOTSTRAP
        if boot is not None:
            for k, name in enumerate(METRICS):
                if name == "baseline_accuracy" or name in ci:
                    continue
                iv = bootstrap_interval(boot[:, j, k] - boot[:, b, k], s.level)
                if iv is not None:
                    ci[name], method[name] = iv, _row_method(name)
        if skipped_auc:
            caps["bootstrap.auc"] = "too_many_cells"
        mcn, why = mcnemar_of(j)
        if why is not None:
            caps["mcnemar"] = why
        raw_mcnemar.append(None if mcn is None else mcn[0].p_value)
        pending.append((model, delta, rel, rer, ci, method, caps, mcn))
        drawn = joint_deltas.get(j, {}).get(pm)
        if drawn is None and boot is not None and pm in midx:
            drawn = boot[:, j, midx[pm]] - boot[:, b, midx[pm]]
        if (test := bootstrap_test(delta.get(pm), drawn, s.level, method.get(pm))) is not None:
            # the difference's interval is the verdict's, so the table never contradicts the verdict
            ci[pm] = test.ci  # type: ignore[assignment]
        tests.append(test or no_test(ci, method, pm))
    decisions = decide([p[1].get(pm) for p in pending], tests, pm, BETTER.get(pm) or "higher", s.level)
    comparisons: list[Comparison] = []
    holm_m, size_m = MP.holm(raw_mcnemar)
    for (name, delta, rel, rer, ci, method, caps, mcn), hm, dec in zip(pending, holm_m, decisions):
        # a family of one is its own Holm adjustment (adjusted p = raw p), as in the binary driver
        mc = None if mcn is None else mcnemar_summary(mcn[0], hm, mcn[1], mcn[2], size_m)
        comparisons.append(
            Comparison(
                model=name,
                baseline=base_name,
                delta=delta,
                relative_delta=rel,
                relative_error_reduction=rer["accuracy"],
                relative_error_reductions=rer,
                ci=ci,
                tests=ComparisonTests(None, mc, notices=[]),
                primary_metric=pm,
                ci_method=method,
                capabilities=caps,
                decision=dec,
            )
        )
    return comparisons


def _count_bootstraps(
    ev: MulticlassEvidence,
    mms: Sequence[MC.MulticlassMetrics],
    s: Settings,
    costs: np.ndarray | None,
) -> list[dict[str, np.ndarray]]:
    """Per model, replicates of every metric its counts give (:func:`~reportgen.engine.intervals.
    multiclass_model_bootstrap`; none for a weighted model or without resamples): the confusion
    metrics from its own stream (``class_counts``), and the log-loss from its true class's tables
    when it has one (:func:`~reportgen.engine.intervals.log_loss_sums`: a class's rows picked one
    by one are picked once for every model with that many rows of it, from the class's stream
    ``class_log_loss``, so a model's draws still depend on its own counts alone); NaN where a
    resample leaves a metric undefined."""
    out: list[dict[str, np.ndarray]] = [{} for _ in ev.models]
    if s.resamples <= 0:
        return out
    drawn = [j for j, m in enumerate(ev.models) if not m.weighted]
    rngs = {j: streams.stream(s.seed, "class_counts", ev.models[j].name) for j in drawn}
    for j in drawn:
        confusions, _ = multiclass_count_draws(ev.models[j].confusion, [], None, s.resamples, rngs[j])
        for name, col in RD.confusion_metric_draws(confusions, beta=s.beta, costs=costs, ordinal=s.ordinal).items():
            if np.isfinite(col).any():
                out[j][name] = col
    scored = [(j, t) for j in drawn if (t := ev.models[j].tables) is not None and mms[j].log_loss is not None]
    labels = [str(c) for c in ev.classes]
    sums = log_loss_sums(
        [([t.values[i][i] for i in range(t.k)], [t.counts[i][i] for i in range(t.k)]) for _, t in scored],
        s.resamples,
        [rngs[j] for j, _ in scored],
        lambda i: streams.stream(s.seed, "class_log_loss", labels[i]),
    )
    for (j, _), total in zip(scored, sums):
        out[j]["log_loss"] = total / float(ev.models[j].confusion.sum())
    return out


def _per_class_auc_intervals(
    m: MulticlassModelEvidence,
    labels: Sequence[str],
    s: Settings,
    rng: np.random.Generator,
    row_draws: np.ndarray | None = None,
) -> tuple[dict[str, dict[str, list[float]]], str]:
    """Each class's one-vs-rest AUC interval and the method; none for a weighted model (a
    weighted cell is not a count) or one without class scores. Drawn with the averaged AUCs on
    the rows' resamples when the rows' bootstrap draws them (``row_draws`` (resamples, k): the
    row bootstrap itself, exactly, at no extra cost: every engine that keeps the rows — all of
    them up to ``stream.max_distinct_scores`` distinct rows — draws the same), else on the
    model's class tables (:func:`~reportgen.engine.intervals.ovr_auc_bootstrap`: exact in
    distribution, the same counts and draws in every engine; a column with more cells than a
    binary table's binned, the replicates moved by the binning error)."""
    t = m.tables
    if t is None or m.weighted or s.resamples <= 0:
        return {}, CLASS_TABLE_BOOTSTRAP
    binned: list[bool] = []
    if row_draws is not None:
        draws, how = row_draws, ROW_BOOTSTRAP
    else:
        draws = ovr_auc_bootstrap([list(v) for v in t.values], [list(c) for c in t.counts], s.resamples, rng, binned)
        how = CLASS_TABLE_BINNED_BOOTSTRAP if any(binned) else CLASS_TABLE_BOOTSTRAP
    out = {}
    for c, label in enumerate(labels):
        if (iv := IV.percentile(draws[:, c], 0.0, s.level, 0.0, 1.0)) is not None:
            out[str(label)] = {"roc_auc": iv}
    return out, how


def _table_curves(t: CT.ClassTables, labels: Sequence[str]) -> MulticlassCurves:
    """The report's curves from class tables (the same points as from the rows). One class's full
    curve at a time, decimated before the next is built; the micro-average's block by block."""
    support = t.class_weight()
    total = float(support.sum())
    roc: dict[str, CurveData] = {}
    pr: dict[str, CurveData] = {}
    for c in range(t.k):
        curve = MC.class_roc_curve(labels[c], CT.ovr_score_table(t, c))
        if curve.auc is not None:
            roc[labels[c]], pr[labels[c]] = class_curves(curve, support[c], total)
        del curve
    return MulticlassCurves(roc, pr, micro_curve(t))


def compare_multiclass_evidence(
    ev: MulticlassEvidence, s: Settings, progress: Progress | None = None
) -> tuple[dict[str, ModelResult], list[Comparison], list[PairwiseCell]]:
    """Every model's results, every comparison with the baseline and the pairwise matrix, from
    multiclass evidence (the methods: the module docstring)."""
    labels = list(ev.classes)
    costs = None if s.cost_matrix is None else np.asarray(s.cost_matrix, dtype=np.float64)
    names = ev.names
    base = names.index(s.baseline or names[0])
    weighted = any(m.weighted for m in ev.models)
    joint_deltas, class_delta_ci = (
        _joint_deltas(ev, base, labels, s, costs) if not (weighted and s.weight_kind == "sampling") else ({}, {})
    )
    boot, with_auc = None, False
    class_draws: list[np.ndarray | None] = [None] * len(names)
    rows_kept = ev.rows is not None and s.resamples > 0
    if ev.rows is not None and s.resamples > 0 and not _rows_add_nothing(ev, labels, s, joint_deltas, base):
        # the confusion metrics' draws come from the counts when every model is unweighted and
        # every comparison has its joint counts: the rows then add only the scores' metrics
        counted = not weighted and all(j in joint_deltas for j in range(len(names)) if j != base)
        boot, with_auc, class_draws = _bootstrap(ev.rows, labels, s, costs, progress, confusion=not counted)
    skipped_auc = rows_kept and not with_auc
    models: dict[str, ModelResult] = {}
    mms = [
        MC.multiclass_from_counts(m.confusion, labels, m.n_rows, m.tables, beta=s.beta, costs=costs, ordinal=s.ordinal)
        for m in ev.models
    ]
    # the log-loss on the true class's tables in every engine, rows kept or not (one method per
    # number: the rows' draws past stream.max_distinct_scores are not there)
    count_draws = _count_bootstraps(ev, mms, s, costs)
    for j, (m, mm) in enumerate(zip(ev.models, mms)):
        curves = None if m.tables is None else _table_curves(m.tables, labels)
        ci: dict[str, list[float]] = {}
        method: dict[str, str] = {}
        for name, draws in count_draws[j].items():
            if name != "baseline_accuracy" and (iv := bootstrap_interval(draws, s.level)) is not None:
                ci[name], method[name] = iv, COUNT_BOOTSTRAP
        if boot is not None:
            for q, name in enumerate(METRICS):
                if name in ci or name == "baseline_accuracy":
                    continue
                if (iv := bootstrap_interval(boot[:, j, q], s.level)) is not None:
                    ci[name], method[name] = iv, _row_method(name)
        r = result_of(
            m.name,
            m.file,
            mm,
            labels,
            weighted=m.weighted,
            has_proba=m.tables is not None,
            from_column=m.predicted_from_column,
            curves=curves,
            ci=ci,
            ci_method=method,
        )
        per_class_ci, how = _per_class_auc_intervals(
            m, labels, s, streams.stream(s.seed, "class_auc", m.name), class_draws[j]
        )
        table, rates_ci = CR.classification_table(
            m.confusion,
            labels,
            weighted=m.weighted,
            resamples=s.resamples,
            level=s.level,
            rng=streams.stream(s.seed, "class_report", m.name),
        )
        methods = {"roc_auc": how} if per_class_ci else {}
        if rates_ci and table.ci_method is not None:
            methods.update(dict.fromkeys(CR.RATE_FIELDS, table.ci_method))
        per_class_ci = {c: {**rates_ci.get(c, {}), **per_class_ci.get(c, {})} for c in map(str, labels)}
        per_class_ci = {c: v for c, v in per_class_ci.items() if v}
        r = replace(r, classification=table, class_probabilities=_class_probabilities(ev, j, s, costs))
        if per_class_ci:
            r = replace(r, per_class_ci=per_class_ci, per_class_ci_method=methods)
        models[m.name] = replace(r, notices=[*r.notices, *_zero_width_notices(m.name, ci, per_class_ci, s.level)])
    if rows_kept or s.resamples <= 0:
        caps = {}
    elif joint_deltas:
        caps = {"paired_interval.probability_metrics": "needs_rows"}
    else:
        caps = {"bootstrap": "needs_rows"}

    def mcnemar_of(j: int) -> tuple[tuple | None, str | None]:
        return mcnemar_of_pairing(ev.pairing, j, base, weighted, s.weight_kind)

    comparisons = comparisons_of(names, models, s, boot, skipped_auc, mcnemar_of, caps, joint_deltas)
    comparisons = _with_class_deltas(ev, models, comparisons, s, class_delta_ci, class_draws)
    comparisons = _with_brier_changes(ev, models, comparisons, s)
    return models, comparisons, _pairwise(ev, models, comparisons, s, boot, weighted)


def _class_probabilities(
    ev: MulticlassEvidence, j: int, s: Settings, costs: np.ndarray | None
) -> ClassProbabilities | None:
    """Model j's probabilities judged as probabilities (:func:`~reportgen.engine.class_probabilities.
    class_probabilities`); None without class scores."""
    m = ev.models[j]
    if m.tables is None or m.probability is None:
        return None
    out = CP.class_probabilities(m.tables, m.probability, top_k=s.top_k, costs=costs)
    if m.weighted or s.resamples <= 0:
        return out
    rng = streams.stream(s.seed, "class_brier", m.name)
    ci = CP.error_intervals(m.probability, out, s.resamples, s.level, rng)
    method = dict.fromkeys(ci, CP.ERROR_CELL_BOOTSTRAP)
    if out.top_k is not None:
        draws = CP.top_k_draws(m.probability, out.top_k, s.resamples, streams.stream(s.seed, "class_top_k", m.name))
        if (iv := bootstrap_interval(draws, s.level)) is not None:
            ci["top_k_accuracy"], method["top_k_accuracy"] = iv, CP.RANK_BOOTSTRAP
    return replace(out, ci=ci, ci_method=method) if ci else out


def _with_brier_changes(
    ev: MulticlassEvidence, models: dict[str, ModelResult], comparisons: list[Comparison], s: Settings
) -> list[Comparison]:
    """Each comparison with its change of Brier score (``calibration``), the paired interval drawn
    on the pair's per-row error differences (:func:`~reportgen.engine.class_probabilities.
    brier_change`; none for weighted models), each pair its own stream."""
    out = []
    for c in comparisons:
        mine, base = models[c.model].class_probabilities, models[c.baseline].class_probabilities
        if mine is None or base is None:
            out.append(c)
            continue
        weighted = models[c.model].weighted or models[c.baseline].weighted
        grid = None if weighted else ev.brier_deltas.get(c.model)
        why = (
            "no interval: no resamples"
            if s.resamples <= 0
            else "no interval: weighted rows"
            if weighted
            else "no interval: the rows are not paired"
        )
        rng = streams.stream(s.seed, "class_brier_pair", c.baseline, c.model)
        out.append(replace(c, calibration=CP.brier_change(mine, base, grid, s.resamples, s.level, rng, why)))
    return out


def _pair_draws(
    ev: MulticlassEvidence, s: Settings, boot: np.ndarray | None, a: int, c: int, weighted: bool
) -> tuple[np.ndarray | None, str | None]:
    """The primary metric's paired bootstrap differences (model a − model c) and how they were
    drawn: from the rows' resamples when they drew it (every model on the same resamples), else
    from the pair's joint confusion counts counted on the kept rows (a confusion metric; none
    under sampling weights, as :func:`_joint_deltas`); (None, None) without the rows."""
    pm = s.primary_metric
    if s.resamples <= 0 or ev.rows is None:
        return None, None
    if boot is not None and pm in METRICS:
        q = METRICS.index(pm)
        d = boot[:, a, q] - boot[:, c, q]
        if np.isfinite(d).any():
            return d, _row_method(pm)
    if pm in _PROBA_METRICS or pm not in METRICS or (weighted and s.weight_kind == "sampling"):
        return None, None
    rows, labels = ev.rows, list(ev.classes)
    weight = rows.counts if rows.weights is None else rows.counts * rows.weights
    preds = [_predictions(rows.pred_idx[j], rows.proba[j]) for j in (a, c)]
    joint = CR.joint_of(rows.y_idx, preds[0], preds[1], weight, len(labels))
    da, dc = joint_confusion_bootstrap(
        joint, s.resamples, streams.stream(s.seed, "class_pairs", ev.models[a].name, ev.models[c].name)
    )
    costs = None if s.cost_matrix is None else np.asarray(s.cost_matrix, dtype=np.float64)

    def value(C: np.ndarray, n_rows: int) -> float:
        v = _values(MC.multiclass_from_counts(C, labels, n_rows, None, beta=s.beta, costs=costs, ordinal=s.ordinal))
        return np.nan if v[pm] is None else float(v[pm])  # type: ignore[arg-type]

    fast_a, fast_c = CR.confusion_metric(da, pm), CR.confusion_metric(dc, pm)
    if fast_a is not None and fast_c is not None:  # the common metrics on the whole stack at once
        return fast_a - fast_c, JOINT_CONFUSION_BOOTSTRAP
    na, nc = ev.models[a].n_rows, ev.models[c].n_rows
    return np.array([value(x, na) - value(y, nc) for x, y in zip(da, dc)]), JOINT_CONFUSION_BOOTSTRAP


def _pairwise(
    ev: MulticlassEvidence,
    models: dict[str, ModelResult],
    comparisons: list[Comparison],
    s: Settings,
    boot: np.ndarray | None,
    weighted: bool,
) -> list[PairwiseCell]:
    """Every pair of models, both orders, as the binary driver's matrix: the primary metric's
    difference and, for a pair of challengers, the normal test on the SE of its paired bootstrap
    differences (:func:`_pair_draws`, :func:`~reportgen.engine.compare.bootstrap_test`), Holm over
    the family of challenger pairs; a pair with the baseline is its comparison's verdict (its p,
    adjusted p and family, :mod:`reportgen.engine.multiplicity`)."""
    pm = s.primary_metric
    names = ev.names
    base = s.baseline or names[0]
    verdicts = {c.model: c.decision for c in comparisons}
    pending = []
    raw: list[float | None] = []
    for i, a in enumerate(names):
        for j in range(i + 1, len(names)):
            c = names[j]
            va, vc = models[a].metrics.get(pm), models[c].metrics.get(pm)
            delta = None if va is None or vc is None else va - vc
            p = None
            if base not in (a, c) and delta is not None:
                drawn, _ = _pair_draws(ev, s, boot, i, j, weighted)
                test = bootstrap_test(delta, drawn, s.level)
                p = None if test is None else test.p
            raw.append(p)
            pending.append((a, c, delta, p))
    holm, size = MP.holm(raw)
    cells = []
    for (a, c, delta, p), ph in zip(pending, holm):
        family: HolmFamily | None = MP.CHALLENGER_PAIRS if p is not None else None
        n = size if p is not None else None
        if base in (a, c):
            dec = verdicts.get(c if a == base else a)
            if dec is not None and dec.p_value is not None:
                p, ph, family, n = dec.p_value, dec.p_value_adjusted, dec.family, dec.family_size
        cells += [
            PairwiseCell(a, c, delta, p, ph, family, n, pm),
            PairwiseCell(c, a, None if delta is None else -delta, p, ph, family, n, pm),
        ]
    return cells


def _with_class_deltas(
    ev: MulticlassEvidence,
    models: dict[str, ModelResult],
    comparisons: list[Comparison],
    s: Settings,
    class_delta_ci: dict[int, dict[str, dict[str, list[float]]]],
    class_draws: Sequence[np.ndarray | None] = (),
) -> list[Comparison]:
    """Each comparison with its per-class differences (:func:`~reportgen.engine.class_report.
    comparison_class_deltas`); the recall and F1 changes' paired intervals ``class_delta_ci[j]``
    (:func:`_joint_deltas`: the resamples of the metrics' differences; none under sampling
    weights); the per-class AUC
    differences' from the two models' per-class AUCs on the rows' resamples (``class_draws``, as
    :func:`_bootstrap` gives them: the same resampled rows for every model) when both have them."""
    labels = [str(c) for c in ev.classes]
    names = ev.names
    by_name = {m.name: m for m in ev.models}

    def auc(name: str) -> list[float | None]:
        per_class = models[name].per_class or {}
        return [(per_class.get(c) or {}).get("roc_auc") for c in labels]

    out = []
    for c in comparisons:
        j = names.index(c.model)
        am, ab = (class_draws[q] if q < len(class_draws) else None for q in (j, names.index(c.baseline)))
        deltas = CR.comparison_class_deltas(
            by_name[c.model].confusion,
            by_name[c.baseline].confusion,
            auc(c.model),
            auc(c.baseline),
            labels,
            class_delta_ci.get(j),
            level=s.level,
            auc_draws=None if am is None or ab is None or s.resamples <= 0 else (am, ab, ROW_BOOTSTRAP),
        )
        out.append(replace(c, class_deltas=deltas))
    return out


def _rows_add_nothing(
    ev: MulticlassEvidence,
    labels: Sequence[str],
    s: Settings,
    joint_deltas: dict[int, dict[str, np.ndarray]],
    base: int,
) -> bool:
    """Whether the rows' bootstrap would give no interval the counts' draws do not: past
    :data:`BOOTSTRAP_AUC_MAX_CELLS` it leaves the scores out, so for unweighted models whose
    comparisons all have their joint confusion counts (and a primary metric of those) it would
    only redraw what :func:`_count_bootstraps` and :func:`_joint_deltas` drew, at O(rows) per
    resample (a 2M-row model of five classes: about a minute for nothing)."""
    assert ev.rows is not None
    if _scores_drawn(ev.rows, labels):
        return False  # the AUCs and the log-loss differences are drawn on the rows
    return (
        not any(m.weighted for m in ev.models)
        and s.primary_metric not in _PROBA_METRICS
        and all(j in joint_deltas for j in range(len(ev.models)) if j != base)
    )


def _joint_deltas(
    ev: MulticlassEvidence, base: int, labels: Sequence[str], s: Settings, costs: np.ndarray | None
) -> tuple[dict[int, dict[str, np.ndarray]], dict[int, dict[str, dict[str, list[float]]]]]:
    """Each comparison's drawn differences (model − baseline) of every confusion metric, and its
    per-class recall and F1 differences' paired intervals (:func:`~reportgen.engine.class_report.
    class_delta_intervals`), both read off one draw of the pair's joint confusion counts
    (:func:`~reportgen.engine.intervals.joint_confusion_bootstrap`: the paired stratified row
    bootstrap's distribution, exactly), one pair at a time (the drawn matrices are not kept); each
    comparison its own stream (``class_pairs``, :mod:`reportgen.engine.streams`), so every engine
    draws the same. Empty without the joint counts or resamples."""
    J = ev.pairing.joint
    if J is None or s.resamples <= 0:
        return {}, {}
    deltas: dict[int, dict[str, np.ndarray]] = {}
    class_ci: dict[int, dict[str, dict[str, list[float]]]] = {}
    for j, m in enumerate(ev.models):
        if j == base:
            continue
        db, dm = joint_confusion_bootstrap(
            J[j], s.resamples, streams.stream(s.seed, "class_pairs", ev.models[base].name, m.name)
        )
        vb, vm = (RD.confusion_metric_draws(c, beta=s.beta, costs=costs, ordinal=s.ordinal) for c in (db, dm))
        deltas[j] = {k: vm[k] - vb[k] for k in vm if np.isfinite(vm[k] - vb[k]).any()}
        class_ci[j] = CR.class_delta_intervals(dm, db, [str(c) for c in labels], s.level)
    return deltas, class_ci


__all__ = ["compare_multiclass_evidence", "METRICS", "BETTER", "MAX_ONE", "PER_CLASS_FIELDS"]
