"""Models × metrics × comparisons → one frozen :class:`ComparisonResult` (binary tasks).

Per model: one score table (one sort), from which every metric, curve, optimum and prevalence
scenario is derived; DeLong intervals for AUC and Gini; stratified bootstrap intervals for
every other metric, resampling multiplicities over the already-grouped rows (no re-sort,
no table per resample: :mod:`~reportgen.engine.resample`).
Per comparison with the baseline: deltas, relative deltas, relative error reduction, the
paired DeLong test of ΔAUC (= ΔGini / 2), McNemar's test at the decision threshold,
bootstrap intervals of every delta, Holm-adjusted p-values and a verdict in words.
"""

from __future__ import annotations

from collections.abc import Callable, Sequence
from dataclasses import dataclass, replace

import numpy as np

from reportgen.engine import binary as B
from reportgen.engine import stats
from reportgen.engine.curve import ScoreTable, build_table, row_groups
from reportgen.engine.resample import resample_kernel, resampled_metrics
from reportgen.results import (
    CalibrationData,
    Comparison,
    ComparisonTests,
    CostCurveData,
    CurveData,
    Curves,
    DeLongSummary,
    KsData,
    McNemarSummary,
    ModelResult,
    PairwiseCell,
    PrevalenceScenario,
    ScoreHistogram,
)

#: Metrics whose ideal value is 1 ("higher is better, max 1"): relative error reduction applies.
MAX_ONE = (
    "accuracy", "precision", "recall", "specificity", "npv", "f1", "fbeta", "balanced_accuracy",
    "youden_j", "cohen_kappa", "mcc", "roc_auc", "gini", "average_precision", "r_precision", "ks",
)

#: Metrics with an analytic (DeLong) interval; the rest are bootstrapped.
DELONG_METRICS = ("roc_auc", "gini")


@dataclass(frozen=True, slots=True)
class ModelInput:
    """One model's aligned rows."""

    name: str
    file: str
    scores: np.ndarray
    y: np.ndarray
    weights: np.ndarray | None = None
    direction: str = "higher"
    probabilities: bool | None = None
    threshold: float | None = None  # overrides Settings.threshold for this model


@dataclass(frozen=True, slots=True)
class Settings:
    threshold: float = 0.5
    beta: float = 1.0
    costs: B.Costs = B.Costs()
    constraints: tuple[B.Constraint, ...] = ()
    prevalences: tuple[float, ...] = ()
    baseline: str | None = None
    primary_metric: str = "gini"
    level: float = 0.95
    resamples: int = 500
    seed: int = 20240601
    paired: bool = True


Progress = Callable[[int, int], None]


def _own(s: Settings, inp: ModelInput) -> Settings:
    """The settings of one model: its own decision threshold when it has one."""
    return s if inp.threshold is None else replace(s, threshold=inp.threshold)


# --------------------------------------------------------------------------------------
# Per model
# --------------------------------------------------------------------------------------


def _for_drawing(a: np.ndarray) -> np.ndarray:
    """Curve coordinates in [0, 1] rounded to 1e-6 (invisible in a figure, halves the JSON)."""
    return np.round(a, 6)


def _curves(table: ScoreTable, s: Settings, probabilities: bool) -> Curves:
    c = B.compute_curves(table, s.threshold, s.beta, s.costs)
    tp, fp = table.cumulative()
    P, N = table.total_pos, table.total_neg
    m = P + N
    sel = B.decimate((tp + fp) / m, tp / P, 400)
    lift = CurveData(_for_drawing((tp + fp)[sel] / m), _for_drawing(tp[sel] / P), None)
    # score distribution per class on 40 shared bins
    lo, hi = float(table.thresholds.min()), float(table.thresholds.max())
    if hi <= lo:
        hi = lo + 1.0
    edges = np.linspace(lo, hi, 41)
    hist_pos, _ = np.histogram(table.thresholds, edges, weights=table.pos)
    hist_neg, _ = np.histogram(table.thresholds, edges, weights=table.neg)
    calibration = None
    if probabilities:
        bins = np.minimum((table.thresholds * 10).astype(np.int64), 9)
        w = table.pos + table.neg
        cnt = np.bincount(bins, weights=w, minlength=10)
        ssum = np.bincount(bins, weights=w * table.thresholds, minlength=10)
        psum = np.bincount(bins, weights=table.pos, minlength=10)
        ok = cnt > 0
        calibration = CalibrationData(ssum[ok] / cnt[ok], psum[ok] / cnt[ok], cnt[ok])
    cost = None
    if c.cost is not None:
        cost = CostCurveData(c.cost.pc, _for_drawing(c.cost.envelope), c.cost.operating_pc, *c.cost.operating_line)
    r = _for_drawing
    ks = None if c.ks is None else KsData(c.ks.thresholds, r(c.ks.tpr), r(c.ks.fpr))
    return Curves(
        roc=CurveData(r(c.roc.x), r(c.roc.y), c.roc.thresholds),
        pr=CurveData(r(c.pr.x), r(c.pr.y), c.pr.thresholds),
        threshold_metrics={k: CurveData(r(v.x), r(v.y), None) for k, v in c.threshold_metrics.items()},
        ks=ks,
        cost=cost,
        lift=lift,
        histogram=ScoreHistogram(edges, hist_pos, hist_neg),
        calibration=calibration,
    )


def _rule(direction: str, threshold: float) -> str:
    op = "≥" if direction == "higher" else "≤"
    return f"positive when score {op} {threshold:g}"


def _model_result(
    inp: ModelInput,
    table: ScoreTable,
    s: Settings,
    ci: dict[str, list[float]],
    ci_method: dict[str, str],
    test_warnings: tuple[str, ...] = (),
) -> ModelResult:
    bm = B.compute_metrics(table, s.threshold, s.beta, s.costs, inp.probabilities)
    optima = B.optimal_thresholds(table, s.beta, s.costs, s.constraints)
    scenarios = []
    for p in s.prevalences:
        shifted = B.shift_prevalence(table, p)
        sm = B.compute_metrics(shifted, s.threshold, s.beta, s.costs, inp.probabilities)
        so = B.optimal_thresholds(shifted, s.beta, s.costs, s.constraints)
        scenarios.append(
            PrevalenceScenario(p, {o.criterion: o for o in so}, {k: sm.get(k) for k in B.THRESHOLD_METRICS})
        )
    warnings = []
    auc = bm.get("roc_auc")
    if auc is not None and auc < 0.5:
        warnings.append(
            f"model '{inp.name}': AUC {auc:.3f} < 0.5 — the score may point the other way; "
            f"check 'direction' (now '{table.direction}')"
        )
    # rows, not weight: six rows of weight 100 are still six observations
    # (from a table without the rows, as the streamed engines give, the class totals: rows
    # when unweighted, weight otherwise)
    small = _smaller_class_rows(inp.y) if inp.y.shape[0] else min(table.total_pos, table.total_neg)
    if small < stats.SMALL_CLASS:
        warnings.append(f"model '{inp.name}': only {small:g} rows in the smaller class; intervals and tests are unreliable")
    warnings.extend(f"model '{inp.name}': {w}" for w in test_warnings)
    return ModelResult(
        name=inp.name,
        file=inp.file,
        n=table.n_rows,
        positives=table.total_pos,
        negatives=table.total_neg,
        weighted=table.weighted,
        metrics=bm.as_dict(),
        undefined={u.metric: u.reason for u in bm.undefined},
        ci=ci,
        ci_method=ci_method,
        direction=table.direction,
        threshold=s.threshold,
        rule=_rule(table.direction, s.threshold),
        probabilities=bm.probabilities,
        confusion=bm.confusion,
        ks_threshold=bm.ks_threshold,
        optimal_thresholds={o.criterion: o for o in optima},
        prevalence_shift=scenarios,
        curves=_curves(table, s, bm.probabilities),
        n_distinct_scores=table.n_distinct,
        warnings=warnings,
    )


# --------------------------------------------------------------------------------------
# Bootstrap over all models at once (paired: one multiplicity vector for every model)
# --------------------------------------------------------------------------------------


def _bootstrap_metrics(
    inputs: Sequence[ModelInput],
    tables: Sequence[ScoreTable],
    s: Settings,
    progress: Progress | None,
) -> np.ndarray | None:
    """Array (resamples, models, metrics) of every metric on stratified bootstrap resamples.

    One resample is a vector of row multiplicities drawn per class, shared by every model
    (paired). Each model's metrics come from :mod:`~reportgen.engine.resample`: what depends
    on its scores only is worked out once, so a resample costs a few bincounts and dot
    products over the multiplicities (no table, no sort), several resamples at a time. The
    values are those of ``B.compute_metrics`` on each resampled table (NaN for None).
    """
    if s.resamples <= 0:
        return None
    y = inputs[0].y
    strata = stats.bootstrap_strata(y)
    kernels = [
        resample_kernel(t, row_groups(t, i.scores), i.y, strata, _own(s, i).threshold, i.weights, i.probabilities)
        for t, i in zip(tables, inputs)
    ]
    rng = np.random.default_rng(s.seed)
    out = np.full((s.resamples, len(inputs), len(B.METRICS)), np.nan)
    done = 0
    for block in stats.stratified_bootstrap_blocks(y, s.resamples, rng):
        b = block[0]
        for j, kernel in enumerate(kernels):
            out[done : done + b, j] = resampled_metrics(kernel, block, s.beta, s.costs)
        done += b
        if progress is not None:
            progress(done, s.resamples)
    return out


def _interval(samples: np.ndarray, level: float) -> list[float] | None:
    iv = stats.percentile_interval(samples, level)
    return None if iv is None else [float(iv[0]), float(iv[1])]


def _bootstrap_p(samples: np.ndarray) -> float | None:
    """Two-sided bootstrap p-value of 'delta = 0': 2·min(share ≤ 0, share ≥ 0), at least 1/(B+1)."""
    v = samples[np.isfinite(samples)]
    if v.size < 2:
        return None
    p = 2.0 * min(np.mean(v <= 0), np.mean(v >= 0))
    return float(min(1.0, max(p, 1.0 / (v.size + 1))))


# --------------------------------------------------------------------------------------
# Comparisons
# --------------------------------------------------------------------------------------

_NICE = {"gini": "Gini", "roc_auc": "AUC", "ks": "KS", "f1": "F1", "mcc": "MCC",
         "average_precision": "average precision", "accuracy": "accuracy", "expected_cost": "expected cost",
         "f1_macro": "macro F1", "f1_micro": "micro F1", "f1_weighted": "weighted F1",
         "f1_of_macro_pr": "F1 of macro precision and recall", "roc_auc_ovr_macro": "one-vs-rest macro AUC",
         "roc_auc_ovr_weighted": "one-vs-rest weighted AUC", "roc_auc_ovo_macro": "one-vs-one AUC (Hand & Till)",
         "roc_auc_ovr_micro": "micro-averaged AUC", "cohen_kappa": "Cohen's kappa", "log_loss": "log-loss"}


def _fmt_p(p: float | None) -> str:
    if p is None:
        return "p n/a"
    if p < 0.0001:
        return "p < 0.0001"
    return f"p = {p:.4f}" if p < 0.01 else f"p = {p:.3f}"


def verdict(model: str, baseline: str, metric: str, delta: float | None, ci: list[float] | None,
            p: float | None, method: str, level: float, p_holm: float | None = None,
            better: str | None = None) -> str:
    """One plain sentence: which way, by how much, how sure (``better``: 'higher' by default)."""
    name = _NICE.get(metric, metric.replace("_", " "))
    if delta is None:
        return f"{model}'s {name} cannot be compared with {baseline}'s (undefined on these data)."
    if delta == 0:
        return f"{model}'s {name} equals {baseline}'s ({_fmt_p(p)}, {method})."
    better = better or B.BETTER.get(metric) or "higher"
    direction = "higher" if delta > 0 else "lower"
    ci_txt = f", {level * 100:g} % CI {ci[0]:.3f} to {ci[1]:.3f}" if ci else ""
    holm = f", Holm-adjusted {_fmt_p(p_holm).replace('p ', 'p ', 1)}" if p_holm is not None and p_holm != p else ""
    sig = ""
    if p is not None:
        alpha = 1 - level
        q = p_holm if p_holm is not None else p
        good = (delta > 0) == (better == "higher")
        if q < alpha:
            sig = " — significantly better." if good else " — significantly worse."
        else:
            sig = " — not significant."
    return f"{model}'s {name} is {abs(delta):.3f} {direction} than {baseline}'s{ci_txt}, {_fmt_p(p)} ({method}){holm}{sig}"


def _relative(model_v: float | None, base_v: float | None) -> float | None:
    if model_v is None or base_v is None or base_v == 0:
        return None
    return (model_v - base_v) / abs(base_v)


def relative_error_reduction(r_base: float | None, r_model: float | None) -> float | None:
    """((1 − r₁) − (1 − r₂)) / (1 − r₁) for a metric whose ideal is 1 (seed: Dyakonov §2).

    r₁ is the baseline's value, r₂ the model's: accuracy 0.8 → 0.9 removes 50 % of errors.
    """
    if r_base is None or r_model is None or r_base >= 1.0:
        return None
    return ((1.0 - r_base) - (1.0 - r_model)) / (1.0 - r_base)


def compare(inputs: Sequence[ModelInput], settings: Settings, progress: Progress | None = None) -> tuple[dict[str, ModelResult], list[Comparison], list[PairwiseCell]]:
    """Compute every model's results and every comparison with the baseline."""
    s = settings
    tables = [build_table(i.scores, i.y, i.weights, i.direction) for i in inputs]  # type: ignore[arg-type]
    weighted = any(i.weights is not None and not np.all(i.weights == 1) for i in inputs)
    boot = _bootstrap_metrics(inputs, tables, s, progress) if s.paired else None
    names = [i.name for i in inputs]
    midx = {m: k for k, m in enumerate(B.METRICS)}
    memo = stats.DeLongCache()  # each model's DeLong components once, for its interval and every test

    models: dict[str, ModelResult] = {}
    for j, (inp, t) in enumerate(zip(inputs, tables)):
        ci: dict[str, list[float]] = {}
        method: dict[str, str] = {}
        test_warnings: tuple[str, ...] = ()
        if not weighted and _delong_possible(inp.y):
            iv = stats.delong_auc_ci(inp.scores, inp.y, direction=inp.direction, level=s.level, cache=memo)
            ci["roc_auc"] = [iv.lo, iv.hi]
            g = stats.gini_interval(iv)
            ci["gini"] = [g.lo, g.hi]
            method["roc_auc"] = method["gini"] = "DeLong"
            # the small-class warning is the model's own (above); the zero-variance one is not
            test_warnings = tuple(w for w in iv.warnings if "positives and" not in w)
        if boot is not None:
            for k, name in enumerate(B.METRICS):
                if name in ci or name == "baseline_accuracy":
                    continue
                iv2 = _interval(boot[:, j, k], s.level)
                if iv2 is not None:
                    ci[name] = iv2
                    method[name] = "bootstrap"
        models[inp.name] = _model_result(inp, t, _own(s, inp), ci, method, test_warnings)

    base_name = s.baseline or names[0]
    b = names.index(base_name)
    base = inputs[b]
    comparisons: list[Comparison] = []
    raw_delong: list[float | None] = []
    raw_mcnemar: list[float | None] = []
    pending = []
    for j, inp in enumerate(inputs):
        if j == b:
            continue
        mm, bm = models[inp.name].metrics, models[base_name].metrics
        delta = {k: (None if mm[k] is None or bm[k] is None else mm[k] - bm[k]) for k in B.METRICS}
        rel = {k: _relative(mm[k], bm[k]) for k in B.METRICS}
        rer = {k: relative_error_reduction(bm[k], mm[k]) for k in MAX_ONE}
        ci: dict[str, list[float]] = {}
        notes: list[str] = []
        delong = None
        if weighted:
            notes.append("DeLong's test needs unweighted rows; AUC and Gini intervals come from the bootstrap.")
        elif not (_delong_possible(inp.y) and _delong_possible(base.y)):
            notes.append(f"DeLong's test needs at least {DELONG_MIN_ROWS} rows of each class; not computed.")
        else:
            d = stats.delong_paired(inp.scores, base.scores, inp.y, direction_a=inp.direction,
                                    direction_b=base.direction, level=s.level, cache=memo) if s.paired else \
                stats.delong_unpaired(inp.scores, inp.y, base.scores, base.y, direction_a=inp.direction,
                                      direction_b=base.direction, level=s.level)
            delong = d
            notes.extend(d.warnings)
            ci["roc_auc"] = [d.lo, d.hi]
            ci["gini"] = [2 * d.lo, 2 * d.hi]
        if boot is not None:
            for k, name in enumerate(B.METRICS):
                if name in ci or name == "baseline_accuracy":
                    continue
                iv = _interval(boot[:, j, k] - boot[:, b, k], s.level)
                if iv is not None:
                    ci[name] = iv
        mcn = None
        if s.paired:
            pa = _predict(inp.scores, inp.direction, _own(s, inp).threshold)
            pb = _predict(base.scores, base.direction, _own(s, base).threshold)
            integer_w = inp.weights is None or np.all(inp.weights == np.round(inp.weights))
            if integer_w:
                mcn = stats.mcnemar(pa == inp.y, pb == base.y, weights=inp.weights)
            else:
                notes.append("McNemar's test needs integer (frequency) weights; not computed.")
        raw_delong.append(None if delong is None else delong.p_value)
        raw_mcnemar.append(None if mcn is None else mcn.p_value)
        pending.append((inp.name, delta, rel, rer, ci, notes, delong, mcn, j))

    holm_delong = stats.holm(raw_delong)
    holm_mcnemar = stats.holm(raw_mcnemar)
    several = len(pending) > 1
    for (name, delta, rel, rer, ci, notes, d, mcn, j), hd, hm in zip(pending, holm_delong, holm_mcnemar):
        dl = None
        if d is not None:
            dl = DeLongSummary(d.auc_a, d.auc_b, d.delta, d.se, d.z, d.p_value, hd if several else None,
                               [d.lo, d.hi], d.paired)
        mc = None
        if mcn is not None:
            mc = McNemarSummary(mcn.statistic, mcn.p_value, hm if several else None, mcn.method,
                                [[float(v) for v in row] for row in mcn.table])
        pm = s.primary_metric
        if pm in ("gini", "roc_auc") and d is not None:
            p, meth, p_h = d.p_value, "DeLong", (hd if several else None)
        elif boot is not None and pm in midx:
            p, meth, p_h = _bootstrap_p(boot[:, j, midx[pm]] - boot[:, b, midx[pm]]), "bootstrap", None
        else:
            p, meth, p_h = None, "no test", None
        text = verdict(name, base_name, pm, delta.get(pm), ci.get(pm), p, meth, s.level, p_h)
        if several:
            notes.append(f"{len(pending)} models are compared with {base_name}; Holm-adjusted p-values control the family-wise error.")
        comparisons.append(
            Comparison(
                model=name,
                baseline=base_name,
                delta=delta,
                relative_delta=rel,
                relative_error_reduction=rer["accuracy"],
                relative_error_reductions=rer,
                ci=ci,
                tests=ComparisonTests(dl, mc, notes),
                verdict=text,
                primary_metric=pm,
            )
        )

    return models, comparisons, _pairwise(inputs, models, s, weighted, memo)


def _pairwise(inputs: Sequence[ModelInput], models: dict[str, ModelResult], s: Settings,
              weighted: bool, memo: stats.DeLongCache | None = None) -> list[PairwiseCell]:
    """ΔGini and the DeLong p-value for every ordered pair (one test per unordered pair)."""
    cells: list[PairwiseCell] = []
    for i, a in enumerate(inputs):
        for c in inputs[i + 1:]:
            ga, gc = models[a.name].metrics["gini"], models[c.name].metrics["gini"]
            dg = None if ga is None or gc is None else ga - gc
            pv = None
            if not weighted and s.paired and _delong_possible(a.y):
                pv = stats.delong_paired(a.scores, c.scores, a.y, direction_a=a.direction,
                                         direction_b=c.direction, level=s.level, cache=memo).p_value
            cells.append(PairwiseCell(a.name, c.name, dg, pv))
            cells.append(PairwiseCell(c.name, a.name, None if dg is None else -dg, pv))
    return cells


#: DeLong's variances are sample variances over each class's placements: two rows at least.
DELONG_MIN_ROWS = 2


def _smaller_class_rows(y: np.ndarray) -> int:
    m = int(np.count_nonzero(y))
    return min(m, int(y.shape[0]) - m)


def _delong_possible(y: np.ndarray) -> bool:
    return _smaller_class_rows(y) >= DELONG_MIN_ROWS


def _predict(scores: np.ndarray, direction: str, threshold: float) -> np.ndarray:
    return scores >= threshold if direction == "higher" else scores <= threshold
