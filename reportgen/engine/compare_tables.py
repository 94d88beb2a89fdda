"""Models given as score tables (streamed or distributed inputs) → results and comparisons.

The same per-model results as :func:`reportgen.engine.compare.compare` (every metric, optimum,
curve and prevalence scenario comes from the table), with the statistics a table allows:

* DeLong intervals of AUC and Gini from the table alone (placement values depend only on the
  score), identical to the per-row algorithm on unweighted rows;
* the paired DeLong test and McNemar's table when a second pass over aligned rows was made
  (:class:`reportgen.engine.streaming.PairedAccumulator`), else the unpaired DeLong test;
* the stratified bootstrap of each model's own metrics, drawn per cell of its table
  (:func:`reportgen.engine.resample.table_bootstrap_metrics`: the in-memory engine's scheme,
  exactly, without the rows); intervals of *differences* other than AUC and Gini would need
  the models' rows resampled together and are not given (each comparison says so).
"""

from __future__ import annotations

import math
from collections.abc import Sequence
from dataclasses import dataclass, replace

import numpy as np

from reportgen.engine import stats
from reportgen.engine import streaming as S
from reportgen.engine.compare import (
    MAX_ONE,
    ModelInput,
    Settings,
    _bootstrap_p,
    _model_result,
    _own,
    _relative,
    relative_error_reduction,
    verdict,
)
from reportgen.engine.binary import METRICS, THRESHOLD_METRICS, metric_arrays
from reportgen.engine.curve import ScoreTable
from reportgen.engine.resample import stratified_cell_blocks, table_bootstrap_metrics
from reportgen.results import BinningInfo, Comparison, ComparisonTests, DeLongSummary, McNemarSummary, ModelResult, PairwiseCell

NO_BOOTSTRAP = ("Intervals of differences other than AUC and Gini (DeLong) need the rows resampled together; "
                "with streamed or distributed inputs they are not given.")
JOINT_BOOTSTRAP = ("Intervals of differences of threshold metrics (accuracy, F1, MCC, expected cost, …): paired "
                   "stratified bootstrap of the models' decisions, counted per pattern of truth and decisions in the "
                   "second pass; differences of KS, average precision, log-loss and Brier score need the rows and are "
                   "not given.")


def table_bootstrap_note(resamples: int, seed: int) -> str:
    """How the streamed engines' model intervals were made (every comparison's notes)."""
    return (f"Each model's intervals (other than AUC and Gini) come from the stratified bootstrap drawn on its score "
            f"table ({resamples:,} resamples, seed {seed}): per class, how many resampled rows fall on each distinct "
            f"score is one multinomial draw, the distribution of resampling the rows themselves.")


@dataclass(frozen=True, slots=True)
class TableModel:
    """One model reduced to its score table."""

    name: str
    file: str
    table: ScoreTable
    probabilities: bool | None = None
    threshold: float | None = None
    binning: BinningInfo | None = None


def _unpaired(a: ScoreTable, b: ScoreTable, level: float) -> tuple[float, float, float | None, float, float, float]:
    """(auc_a, auc_b, z, p, lo, hi) of DeLong's test for independent samples.

    Normal reference (streamed inputs are large); the in-memory path uses pROC's Welch t, which
    agrees with it to the printed digits once each class has more than a few hundred rows.
    """
    da, db = S.delong_from_table(a), S.delong_from_table(b)
    delta = da.auc - db.auc
    z, p, lo, hi = stats._normal_test(delta, da.variance + db.variance, level)
    return da.auc, db.auc, z, p, lo, hi


def joint_bootstrap(joint: np.ndarray, k: int, s: Settings, rng: np.random.Generator) -> np.ndarray:
    """Array (resamples, k models, THRESHOLD_METRICS) of the paired stratified bootstrap of the
    models' decisions, from the counts of each pattern of truth and decisions.

    A pattern ``c = y + 2·Σ_i right_i·2^i`` says a row's class and which models decided it
    right; rows with one pattern are interchangeable for every threshold metric of every model.
    Resampling P positives and N negatives with replacement (the in-memory scheme, the same rows
    for every model, so the differences are paired) puts a multinomial number of rows on each
    pattern; model i's TP is the positives on patterns where it was right, its FP the negatives
    where it was wrong. Exact in distribution, O(2^(k+1)) per resample.
    """
    codes = np.arange(joint.shape[0])
    is_pos = (codes & 1) == 1
    right = ((codes[:, None] >> (1 + np.arange(k))[None, :]) & 1).astype(np.float64)  # (patterns, k)
    # patterns seen, the positives' first (as the table bootstrap's cells); empty ones never drawn
    pos_seen = np.flatnonzero(is_pos & (joint > 0))
    neg_seen = np.flatnonzero(~is_pos & (joint > 0))
    counts = np.concatenate([joint[pos_seen], joint[neg_seen]])
    flags = np.concatenate([right[pos_seen], 1.0 - right[neg_seen]])  # flagged positive: right on a positive, wrong on a negative
    n_pos = pos_seen.shape[0]
    P, N = float(joint[is_pos].sum()), float(joint[~is_pos].sum())
    out = np.full((s.resamples, k, len(THRESHOLD_METRICS)), np.nan)
    lo = 0
    for b, (draws,) in stratified_cell_blocks(counts, n_pos, s.resamples, rng):
        d = draws.astype(np.float64)
        tp, fp = d[:, :n_pos] @ flags[:n_pos], d[:, n_pos:] @ flags[n_pos:]  # (b, k)
        vals = metric_arrays(tp.ravel(), fp.ravel(), P, N, s.beta, s.costs)
        for m, name in enumerate(THRESHOLD_METRICS):
            out[lo : lo + b, :, m] = vals[name].reshape(b, k)
        lo += b
    return out


def compare_tables(
    models_in: Sequence[TableModel],
    settings: Settings,
    paired: S.PairedAccumulator | None = None,
    paired_note: str | None = None,
) -> tuple[dict[str, ModelResult], list[Comparison], list[PairwiseCell]]:
    """Every model's results and every comparison with the baseline, from tables."""
    s = settings
    names = [m.name for m in models_in]
    weighted = any(m.table.weighted for m in models_in)
    models: dict[str, ModelResult] = {}
    delong: dict[str, S.TableDeLong] = {}
    rng = np.random.default_rng(s.seed)  # one stream, models in config order: same seed, same intervals
    for m in models_in:
        inp = ModelInput(m.name, m.file, np.empty(0), np.empty(0, dtype=bool), None, m.table.direction, m.probabilities, m.threshold)
        ci: dict[str, list[float]] = {}
        method: dict[str, str] = {}
        if not weighted and min(m.table.total_pos, m.table.total_neg) >= 2:
            d = S.delong_from_table(m.table)
            delong[m.name] = d
            lo, hi = S.normal_interval(d.auc, d.variance, s.level)
            ci["roc_auc"], ci["gini"] = [lo, hi], [2 * lo - 1, 2 * hi - 1]
            method["roc_auc"] = method["gini"] = "DeLong"
        if s.resamples > 0 and not m.table.weighted:
            boot = table_bootstrap_metrics(m.table, _own(s, inp).threshold, s.resamples, rng, s.beta, s.costs,
                                             m.probabilities)
            for k, metric in enumerate(METRICS):
                if metric in ci or metric == "baseline_accuracy":
                    continue
                iv = stats.percentile_interval(boot[:, k], s.level)
                if iv is not None:
                    ci[metric] = [float(iv[0]), float(iv[1])]
                    method[metric] = "bootstrap"
        r = _model_result(inp, m.table, _own(s, inp), ci, method)
        models[m.name] = replace(r, binning=m.binning)

    base_name = s.baseline or names[0]
    b = names.index(base_name)
    cov = paired.covariance() if paired is not None else None
    joint = None
    if paired is not None and paired.joint is not None and s.resamples > 0 and not weighted:
        joint = joint_bootstrap(paired.joint, len(models_in), s, np.random.default_rng((s.seed, 1)))
    tidx = {m: k for k, m in enumerate(THRESHOLD_METRICS)}
    pending, raw_d, raw_m = [], [], []
    for j, m in enumerate(models_in):
        if j == b:
            continue
        mm, bm = models[m.name].metrics, models[base_name].metrics
        delta = {k: (None if mm[k] is None or bm[k] is None else mm[k] - bm[k]) for k in METRICS}
        rel = {k: _relative(mm[k], bm[k]) for k in METRICS}
        rer = {k: relative_error_reduction(bm[k], mm[k]) for k in MAX_ONE}
        notes = [JOINT_BOOTSTRAP if joint is not None else NO_BOOTSTRAP]
        notes += [table_bootstrap_note(s.resamples, s.seed)] if s.resamples > 0 and not weighted else []
        ci: dict[str, list[float]] = {}
        boot_p = None
        if joint is not None:
            for metric, k in tidx.items():
                if metric == "baseline_accuracy":
                    continue
                iv = stats.percentile_interval(joint[:, j, k] - joint[:, b, k], s.level)
                if iv is not None:
                    ci[metric] = [float(iv[0]), float(iv[1])]
            if s.primary_metric in tidx:
                boot_p = _bootstrap_p(joint[:, j, tidx[s.primary_metric]] - joint[:, b, tidx[s.primary_metric]])
        dl = mc = None
        if m.name in delong and base_name in delong:
            da, db = delong[m.name], delong[base_name]
            d_auc = da.auc - db.auc
            if cov is not None:
                var_d = max(0.0, cov[j, j] + cov[b, b] - 2.0 * cov[j, b])
                z, p, lo, hi = stats._normal_test(d_auc, var_d, s.level)
                dl = DeLongSummary(da.auc, db.auc, d_auc, math.sqrt(var_d), z, p, None, [lo, hi], True)
            else:
                _, _, z, p, lo, hi = _unpaired(m.table, models_in[b].table, s.level)
                dl = DeLongSummary(da.auc, db.auc, d_auc, math.sqrt(da.variance + db.variance), z, p, None, [lo, hi], False)
                if paired_note:
                    notes.append(paired_note)
            ci["roc_auc"], ci["gini"] = [dl.ci[0], dl.ci[1]], [2 * dl.ci[0], 2 * dl.ci[1]]
        if paired is not None:
            t = paired.agree[j, b]
            res = stats.mcnemar(np.array([1, 1, 0, 0]), np.array([1, 0, 1, 0]), weights=t.ravel())
            mc = (res, [[float(v) for v in row] for row in t])
        raw_d.append(None if dl is None else dl.p_value)
        raw_m.append(None if mc is None else mc[0].p_value)
        pending.append((m.name, delta, rel, rer, ci, notes, dl, mc, boot_p))

    several = len(pending) > 1
    hd_all, hm_all = stats.holm(raw_d), stats.holm(raw_m)
    comparisons = []
    pm = s.primary_metric
    for (name, delta, rel, rer, ci, notes, dl, mc, boot_p), hd, hm in zip(pending, hd_all, hm_all):
        if dl is not None and several:
            dl = DeLongSummary(dl.auc_model, dl.auc_baseline, dl.delta, dl.se, dl.z, dl.p_value, hd, dl.ci, dl.paired)
        mcs = None
        if mc is not None:
            res, table = mc
            mcs = McNemarSummary(res.statistic, res.p_value, hm if several else None, res.method, table)
        if pm in ("gini", "roc_auc") and dl is not None:
            p, meth, p_h = dl.p_value, "DeLong", dl.p_value_holm
        elif boot_p is not None:
            p, meth, p_h = boot_p, "bootstrap", None
        else:
            p, meth, p_h = None, "no test without the rows", None
        text = verdict(name, base_name, pm, delta.get(pm), ci.get(pm), p, meth, s.level, p_h)
        if several:
            notes.append(f"{len(pending)} models are compared with {base_name}; Holm-adjusted p-values control the family-wise error.")
        comparisons.append(Comparison(name, base_name, delta, rel, rer["accuracy"], rer, ci, ComparisonTests(dl, mcs, notes), text, pm))

    pairwise = []
    for i, a in enumerate(models_in):
        for c_ in models_in[i + 1:]:
            ga, gc = models[a.name].metrics["gini"], models[c_.name].metrics["gini"]
            dg = None if ga is None or gc is None else ga - gc
            pv = None
            if cov is not None:
                ia, ic = names.index(a.name), names.index(c_.name)
                var_d = max(0.0, cov[ia, ia] + cov[ic, ic] - 2.0 * cov[ia, ic])
                pv = stats._normal_test(delong[a.name].auc - delong[c_.name].auc, var_d, s.level)[1]
            pairwise += [PairwiseCell(a.name, c_.name, dg, pv), PairwiseCell(c_.name, a.name, None if dg is None else -dg, pv)]
    return models, comparisons, pairwise
