"""Evidence + analysis settings → models, comparisons and the pairwise matrix (one driver).

:func:`compare_binary_evidence` takes the binary evidence every engine returns
(:mod:`reportgen.engine.evidence`) and chooses each method by what the evidence holds, never
by which engine made it (its docstring lists them). The multiclass driver
(:mod:`reportgen.engine.compare_multiclass`) shares the comparison's pieces defined here: the
deltas, McNemar's choice of counts, the primary metric's test and the family's verdicts.

No prose: warnings and the tests' caveats are :class:`~reportgen.results.Notice` codes with their
facts, the decision rule is ``ModelResult.decision_rule``; the report layer
(:mod:`reportgen.report.wording`) writes the verdict, the rule and every warning from them.
"""

from __future__ import annotations

import functools
import math
from collections.abc import Callable, Mapping
from dataclasses import dataclass, replace
from typing import TYPE_CHECKING, Literal

import numpy as np

from reportgen.engine import approval as AP
from reportgen.engine import binary as B
from reportgen.engine import class_tables as CT
from reportgen.engine import intervals as IV
from reportgen.engine import multiplicity as MP
from reportgen.engine import power as PW
from reportgen.engine import proportions as PR
from reportgen.engine import stats, streams
from reportgen.engine.bands import DEFAULT_BANDS, band_table
from reportgen.engine.curve import ScoreTable
from reportgen.engine.evidence import BinaryEvidence, BinaryModelEvidence, Pairing
from reportgen.engine.intervals import TABLE_BOOTSTRAP as TABLE_BOOTSTRAP  # re-exported: report.wording reads it here
from reportgen.engine.resample import stratified_cell_blocks
from reportgen.engine.streaming import TableDeLong, delong_from_table
from reportgen.parallel import ordered_map
from reportgen.results import (
    CalibrationData,
    Comparison,
    ComparisonTests,
    Confusion,
    CostCurveData,
    CurveData,
    Curves,
    Decision,
    DeLongSummary,
    HolmFamily,
    KsData,
    McNemarSummary,
    ModelResult,
    Notice,
    PairwiseCell,
    ScoreHistogram,
)
from reportgen.value import Shown, Value

if TYPE_CHECKING:  # the opted-into analyses: imported where one is asked for (a run without never loads them)
    from reportgen.engine import calibration as CAL
    from reportgen.engine import operating_points as OP
    from reportgen.engine import partial_auc as PA
    from reportgen.option_results import (
        CalibrationDelta,
        CalibrationSummary,
        OperatingPointDelta,
        OperatingPoints,
        PartialAuc,
        PartialAucTest,
        PrevalenceScenario,
    )

#: Metrics whose ideal value is 1 ("higher is better, max 1"): relative error reduction applies.
MAX_ONE = (
    "accuracy",
    "precision",
    "recall",
    "specificity",
    "npv",
    "f1",
    "fbeta",
    "balanced_accuracy",
    "youden_j",
    "cohen_kappa",
    "mcc",
    "roc_auc",
    "gini",
    "average_precision",
    "r_precision",
    "ks",
)

#: Metrics with an analytic (DeLong) interval; the rest are bootstrapped.
DELONG_METRICS = ("roc_auc", "gini")


@dataclass(frozen=True, repr=False, eq=False, slots=True)
class Settings(Value):
    """Analysis settings: applied to the evidence after the reduction (never shape it).

    The decision thresholds, directions and binning shape the reduction and live in the
    evidence (:mod:`reportgen.engine.evidence`), resolved once.
    """

    beta: float = 1.0
    costs: B.Costs = B.Costs()
    constraints: tuple[B.Constraint, ...] = ()
    prevalences: tuple[float, ...] = ()
    baseline: str | None = None
    primary_metric: str = "gini"
    level: float = 0.95
    resamples: int = 500
    seed: int = 20240601
    #: multiclass: (k, k) cost matrix, row = true class, column = predicted (None: no expected cost)
    cost_matrix: tuple[tuple[float, ...], ...] | None = None
    #: what row weights mean: "sampling" (tests count rows) or "frequency" (a row of weight w is w rows;
    #: the evidence then holds the repeated rows)
    weight_kind: str = "sampling"
    #: approval rates (share of rows approved = predicted negative) at which to compare bad rates,
    #: besides the baseline's own
    approval_rates: tuple[float, ...] = ()
    #: multiclass: the classes are ordered categories in their configured order (adds the
    #: quadratic-weighted kappa)
    ordinal: bool = False
    #: bands of the score-band (decile) table (:mod:`reportgen.engine.bands`)
    bands: int = DEFAULT_BANDS
    #: binary: the partial AUC ranges (:mod:`reportgen.engine.partial_auc`)
    partial_auc: tuple[PA.PartialRange, ...] = ()
    #: binary: (bins, strategy) of the calibration numbers (:mod:`reportgen.engine.calibration`), None: none
    calibration: tuple[int, Literal["uniform", "quantile"]] | None = None
    #: multiclass: the k of top-k accuracy (None: 2 with more than two classes)
    top_k: int | None = None
    #: binary: the operating points (:mod:`reportgen.engine.operating_points`), None: none
    operating_points: OP.Points | None = None


Progress = Callable[[int, int], None]

#: What McNemar's counts count: rows, or whole-number frequency weights.
McNemarBasis = Literal["rows", "frequency_weights"]


# --------------------------------------------------------------------------------------
# Per model
# --------------------------------------------------------------------------------------


def _for_drawing(a: np.ndarray) -> np.ndarray:
    """Curve coordinates in [0, 1] rounded to 1e-6 (invisible in a figure, halves the JSON)."""
    return np.round(a, 6)


def _curves(table: ScoreTable, threshold: float, s: Settings, probabilities: bool) -> Curves:
    c = B.compute_curves(table, threshold, s.beta, s.costs)
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
    # np.histogram's bins ([e_i, e_i+1), the last closed) by one search per score: np.histogram
    # sorts explicit edges' data block by block (0.07 s a model at 10^6 distinct scores)
    where = np.minimum(np.searchsorted(edges, table.thresholds, side="right") - 1, 39)
    hist_pos = np.bincount(where, weights=table.pos, minlength=40)
    hist_neg = np.bincount(where, weights=table.neg, minlength=40)
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


def _prevalence_scenarios(m: BinaryModelEvidence, s: Settings) -> list[PrevalenceScenario]:
    """The model's optimal thresholds and threshold metrics at each configured prevalence (its
    table's classes reweighted, :func:`~reportgen.engine.binary.shift_prevalence`); none
    configured: none, and their type is not imported."""
    if not s.prevalences:
        return []
    from reportgen.option_results import PrevalenceScenario  # noqa: PLC0415

    scenarios = []
    for p in s.prevalences:
        shifted = B.shift_prevalence(m.table, p)
        sm = B.compute_metrics(shifted, m.threshold, s.beta, s.costs, m.probabilities)
        so = B.optimal_thresholds(shifted, s.beta, s.costs, s.constraints)
        scenarios.append(
            PrevalenceScenario(p, {o.criterion: o for o in so}, {k: sm.get(k) for k in B.THRESHOLD_METRICS})
        )
    return scenarios


def _model_result(
    m: BinaryModelEvidence,
    s: Settings,
    ci: dict[str, list[float]],
    ci_method: dict[str, str],
    smaller_class_rows: float,
    test_notices: tuple[Notice, ...] = (),
    bm: B.BinaryMetrics | None = None,
) -> ModelResult:
    """One model's result from its table and decision rule (every number from the table); its
    warnings as notices (codes and facts, worded by the report layer). ``bm``: its
    :func:`~reportgen.engine.binary.compute_metrics` at these settings, if already computed."""
    table, t = m.table, m.threshold
    if bm is None:
        bm = B.compute_metrics(table, t, s.beta, s.costs, m.probabilities)
    optima = B.optimal_thresholds(table, s.beta, s.costs, s.constraints)
    scenarios = _prevalence_scenarios(m, s)
    notices = [n for n in (m.threshold_notice(),) if n is not None]
    auc = bm.get("roc_auc")
    if auc is not None and auc < 0.5:
        notices.append(Notice("auc_below_half", {"model": m.name, "auc": auc, "direction": table.direction}))
    # rows, not weight: six rows of weight 100 are still six observations (from a weighted
    # table without the rows the class totals are weights: the best the evidence holds)
    if smaller_class_rows < stats.SMALL_CLASS:
        notices.append(Notice("small_class", {"model": m.name, "rows": smaller_class_rows}))
    ll = bm.get("log_loss")
    if ll is not None:
        clipped = B.log_loss_clipped(table)
        if CT.log_loss_clipping_share(clipped, ll, table.total) is not None:
            notices.append(
                Notice(
                    "log_loss_clipped",
                    {
                        "model": m.name,
                        "weight": clipped,
                        "log_loss": ll,
                        "total": table.total,
                        "weighted": table.weighted,
                    },
                )
            )
    notices.extend(test_notices)
    return ModelResult(
        name=m.name,
        file=m.file,
        n=table.n_rows,
        positives=table.total_pos,
        negatives=table.total_neg,
        weighted=table.weighted,
        metrics=bm.as_dict(),
        undefined={},  # the words: written by the report layer from undefined_reasons
        undefined_reasons={u.metric: u.reason for u in bm.undefined},
        ci=ci,
        ci_method=ci_method,
        direction=table.direction,
        threshold=t,
        decision_rule="threshold",
        probabilities=bm.probabilities,
        confusion=bm.confusion,
        ks_threshold=bm.ks_threshold,
        optimal_thresholds={o.criterion: o for o in optima},
        prevalence_shift=scenarios,
        curves=_curves(table, t, s, bm.probabilities),
        n_distinct_scores=table.n_distinct,
        notices=notices,
        binning=m.binning,
        bands=band_table(table, s.bands),
    )


def bootstrap_interval(samples: np.ndarray, level: float) -> list[float] | None:
    iv = stats.percentile_interval(samples, level)
    return None if iv is None else [float(iv[0]), float(iv[1])]


# --------------------------------------------------------------------------------------
# Comparisons
# --------------------------------------------------------------------------------------


@dataclass(frozen=True, repr=False, eq=False, slots=True)
class PrimaryTest(Value):
    """One comparison's test of the primary metric, before the family is adjusted.

    ``interval_at(level)``: the interval of the difference at another level (the simultaneous
    one), from the same method as ``p`` (DeLong's normal or t test, or the normal test on the
    bootstrap standard error), so an interval excludes 0 exactly when ``p`` is below 1 − level.
    """

    p: float | None
    method: str
    ci: list[float] | None
    ci_method: str | None
    interval_at: Callable[[float], list[float] | None] | None = None
    #: DeLong: the minimum detectable difference at 80 % power (:mod:`reportgen.engine.power`)
    min_detectable: float | None = None


def decide(
    deltas: list[float | None],
    tests: list[PrimaryTest],
    metric: str,
    better: str,
    level: float,
    also: list[float | None] | None = None,
) -> list[Decision]:
    """The family of verdicts of a run: Holm over every defined p-value (whatever the method),
    significance at α = 1 − level on the adjusted p, simultaneous Bonferroni intervals at
    1 − α/m beside the unadjusted ones (:mod:`reportgen.engine.multiplicity`). ``also``: the
    p-values of the family's other tests (the partial AUC tests), adjusted with the verdicts."""
    adjusted, m = MP.holm([t.p for t in tests] + list(also or []))
    alpha = MP.alpha_of(level)
    sim_level = MP.simultaneous_level(level, m)
    out = []
    for delta, t, adj in zip(deltas, tests, adjusted):
        sig = None if adj is None else adj < alpha
        sim = t.ci if m <= 1 else (t.interval_at(sim_level) if t.interval_at is not None else None)
        out.append(
            Decision(
                metric=metric,
                better="lower" if better == "lower" else "higher",
                delta=delta,
                method=t.method,
                p_value=t.p,
                p_value_is_bound=False,
                p_value_adjusted=adj,
                p_value_adjusted_is_bound=False,
                adjustment=MP.HOLM,
                family_size=m,
                alpha=alpha,
                significant=sig,
                direction=MP.direction(delta, better, sig),
                ci=t.ci,
                ci_level=level,
                ci_simultaneous=sim,
                ci_simultaneous_level=sim_level if m > 1 else level,
                ci_method=t.ci_method,
                family=MP.VERDICTS,
                min_detectable_delta=t.min_detectable,
            )
        )
    return out


def mcnemar_of_counts(agree: np.ndarray) -> stats.McNemarResult:
    """McNemar's test of the 2×2 counts [model right?][baseline right?] (0 = right)."""
    return stats.mcnemar(np.array([1, 1, 0, 0]), np.array([1, 0, 1, 0]), weights=np.asarray(agree).ravel())


def mcnemar_of_pairing(
    pairing: Pairing, j: int, b: int, weighted: bool, weight_kind: str
) -> tuple[tuple[stats.McNemarResult, McNemarBasis, np.ndarray | None] | None, str | None]:
    """McNemar's test of model j against the baseline b from the pairing's agreement counts, both
    tasks: on rows (unweighted, or under sampling weights, which never inflate the evidence; the
    weighted table beside) or on frequencies (whole-number frequency weights). Returns
    ((result, basis, weighted table), None) or (None, the capability code saying why not)."""
    basis: McNemarBasis = "rows"
    agree, wtab = pairing.agreement(j, b), None
    if weighted and weight_kind == "sampling":
        wtab, agree = agree, pairing.agreement_rows(j, b)
    elif weighted:
        basis = "frequency_weights"
        if agree is not None and not np.all(agree == np.round(agree)):
            agree = None
    if agree is not None:
        return (mcnemar_of_counts(agree), basis, wtab), None
    if pairing.status == "unpaired":
        return None, pairing.reason
    if not weighted:
        return None, "not_counted"
    return None, "weighted" if weight_kind == "sampling" else "non_integer_weights"


def mcnemar_summary(
    r: stats.McNemarResult,
    p_holm: float | None,
    basis: McNemarBasis,
    weighted: np.ndarray | None = None,
    family_size: int | None = None,
) -> McNemarSummary:
    """The result's summary with which side errs more: b = model right only, c = baseline right
    only; c > b means the model errs more on the rows where the two disagree. ``p_holm``: Holm
    over the family of McNemar's tests against the baseline, of ``family_size`` tests."""
    side: Literal["model", "baseline", "neither"] = "model" if r.c > r.b else "baseline" if r.b > r.c else "neither"
    wt = None if weighted is None else [[float(v) for v in row] for row in weighted]
    return McNemarSummary(
        r.statistic,
        r.p_value,
        p_holm,
        r.method,
        [[float(v) for v in row] for row in r.table],
        float(r.b),
        float(r.c),
        side,
        basis,
        wt,
        r.p_exact,
        r.p_mid,
        r.p_chi2,
        r.p_chi2_corrected,
        family=None if p_holm is None else MP.MCNEMAR,
        family_size=None if p_holm is None else family_size,
    )


def differences(
    mm: Mapping[str, float | None], bm: Mapping[str, float | None], metrics: tuple[str, ...], max_one: tuple[str, ...]
) -> tuple[dict[str, float | None], ...]:
    """(deltas, relative deltas, relative error reductions) of a model's metrics ``mm`` against the
    baseline's ``bm``."""
    delta = {q: _minus(mm[q], bm[q]) for q in metrics}
    return (
        delta,
        {q: relative_change(mm[q], bm[q]) for q in metrics},
        {q: relative_error_reduction(bm[q], mm[q]) for q in max_one},
    )


def _minus(a: float | None, b: float | None) -> float | None:
    return None if a is None or b is None else a - b


#: ``Decision.method`` of a bootstrap verdict (:func:`bootstrap_test`).
BOOTSTRAP_NORMAL = "bootstrap (normal, SE of the replicates)"


def bootstrap_test(
    delta: float | None, samples: np.ndarray | None, level: float, ci_method: str | None = None
) -> PrimaryTest | None:
    """The primary metric's test from the bootstrap replicates of its difference: the normal test
    on their standard error, ``z = δ̂/se_B``, ``p = 2·Φ(−|z|)``, and its intervals
    ``δ̂ ± z_{(1+level)/2}·se_B`` at any level (Efron & Tibshirani 1993 §12.2;
    :mod:`reportgen.engine.multiplicity` says why not the percentile p). ``ci_method``: how the
    replicates were drawn (the difference's ``ci_method``), kept as the interval's. None without a
    difference or two finite replicates (no test)."""
    se = None if samples is None or delta is None else MP.bootstrap_se(samples)
    if se is None or delta is None:
        return None
    test_at = functools.partial(stats.normal_test, delta, se * se)
    _, p, lo, hi = test_at(level)
    return PrimaryTest(
        p, BOOTSTRAP_NORMAL, [lo, hi], ci_method or BOOTSTRAP_NORMAL, functools.partial(_scaled_interval, test_at, 1.0)
    )


def no_test(ci: dict[str, list[float]], method: dict[str, str], metric: str) -> PrimaryTest:
    """The primary metric untested: its interval (if any) beside "no test"."""
    return PrimaryTest(None, "no test", ci.get(metric), method.get(metric))


def relative_change(model_v: float | None, base_v: float | None) -> float | None:
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


# --------------------------------------------------------------------------------------
# The driver: evidence + analysis settings → models, comparisons, pairwise
# --------------------------------------------------------------------------------------

#: DeLong's variances are sample variances over each class's placements: two rows at least.
DELONG_MIN_ROWS = 2

#: Ranking metrics whose paired differences come from the joint score tables (or weighted rows).
ROW_ONLY_METRICS: tuple[str, ...] = tuple(k for k in B.RANKING_METRICS if k not in DELONG_METRICS)

#: Interval methods (``ci_method``), one wording for every engine.
DELONG, DELONG_PAIRED, DELONG_UNPAIRED = PR.DELONG, "DeLong (paired)", "DeLong (unpaired, Welch t)"
PATTERN_BOOTSTRAP = "paired bootstrap of decision patterns"
ROW_BOOTSTRAP = "bootstrap of rows"  # stratified over the kept rows, one draw for every model (paired)
#: The micro-averaged AUC on those resamples: its pair sum by its linear (Hájek) projection at the
#: observed rows (:mod:`reportgen.engine.class_row_draws`), not re-ranked per resample.
MICRO_PROJECTION = "bootstrap of rows, the micro-averaged AUC by its linear projection"


def joint_bootstrap(patterns: np.ndarray, k: int, s: Settings, rng: np.random.Generator) -> np.ndarray:
    """Array (resamples, k models, THRESHOLD_METRICS) of the paired stratified bootstrap of the
    models' decisions, from the counts of each pattern of truth and decisions.

    A pattern ``c = y + 2·Σ_i right_i·2^i`` says a row's class and which models decided it
    right; rows with one pattern are interchangeable for every threshold metric of every model.
    Resampling P positives and N negatives with replacement (the same rows for every model, so
    the differences are paired) puts a multinomial number of rows on each pattern
    (:func:`~reportgen.engine.resample.stratified_cell_blocks`); model i's TP is the positives
    on patterns where it was right, its FP the negatives where it was wrong. Exact in
    distribution, O(2^(k+1)) per resample whatever the number of rows.
    """
    codes = np.arange(patterns.shape[0])
    is_pos = (codes & 1) == 1
    right = ((codes[:, None] >> (1 + np.arange(k))[None, :]) & 1).astype(np.float64)  # (patterns, k)
    pos_seen = np.flatnonzero(is_pos & (patterns > 0))  # patterns seen, positives first; empty never drawn
    neg_seen = np.flatnonzero(~is_pos & (patterns > 0))
    counts = np.concatenate([patterns[pos_seen], patterns[neg_seen]])
    flags = np.concatenate([right[pos_seen], 1.0 - right[neg_seen]])  # flagged positive
    n_pos = pos_seen.shape[0]
    P, N = float(patterns[is_pos].sum()), float(patterns[~is_pos].sum())
    out = np.full((s.resamples, k, len(B.THRESHOLD_METRICS)), np.nan)
    lo = 0
    for b, (draws,) in stratified_cell_blocks(counts, n_pos, s.resamples, rng):
        d = draws.astype(np.float64)
        tp, fp = d[:, :n_pos] @ flags[:n_pos], d[:, n_pos:] @ flags[n_pos:]  # (b, k)
        vals = B.metric_arrays(tp.ravel(), fp.ravel(), P, N, s.beta, s.costs)
        for m, name in enumerate(B.THRESHOLD_METRICS):
            out[lo : lo + b, :, m] = vals[name].reshape(b, k)
        lo += b
    return out


def _weighted_pair_bootstrap(ev: BinaryEvidence, s: Settings) -> IV.Draws:
    """Replicates (resamples, models, METRICS) over paired stratified resamples of weighted aligned
    rows and each model's binning shift (models, METRICS), drawn on their joint weight cells
    (:func:`~reportgen.engine.intervals.weighted_joint_bootstrap`:
    one multinomial per class over the cells, the same resample for every model, so differences
    are paired; exactly the row bootstrap's distribution with the weights carried). Every engine
    counts the same cells. Drawn from the stream ``weighted_pairs`` (:mod:`reportgen.engine.streams`).
    """
    cells = ev.pairing.cells
    assert cells is not None
    return IV.weighted_joint_bootstrap(
        cells,
        [m.table for m in ev.models],
        [m.threshold for m in ev.models],
        [m.probabilities for m in ev.models],
        s.resamples,
        streams.stream(s.seed, "weighted_pairs"),
        s.beta,
        s.costs,
    )


def _positive_rows(ev: BinaryEvidence, m: BinaryModelEvidence) -> int | None:
    """Rows (unweighted) of the positive class: a weighted model's weight cells' count (None past
    their cap, in every engine) or an unweighted table's total."""
    if m.table.weighted:
        return None if m.cells is None else int(m.cells.rows[m.cells.y].sum())
    return int(round(m.table.total_pos))


def _smaller_class(ev: BinaryEvidence, m: BinaryModelEvidence) -> float:
    """Rows of the smaller class: counted on the weight cells (weighted), else the table's class
    totals (a weighted table past the cells' cap: its weights, in every engine)."""
    if m.table.weighted:
        pos = _positive_rows(ev, m)
        return float(min(m.table.total_pos, m.table.total_neg) if pos is None else min(pos, m.table.n_rows - pos))
    return float(min(m.table.total_pos, m.table.total_neg))


def dl_method(dl: DeLongSummary) -> str:
    """The ``ci_method`` wording of a DeLong test summary."""
    return DELONG_PAIRED if dl.paired else DELONG_UNPAIRED


def _row_confusion(ev: BinaryEvidence, j: int) -> Confusion | None:
    """Model j's confusion counts in rows (unweighted), from a weighted model's weight cells; None
    without them (past their cap, in every engine)."""
    m = ev.models[j]
    if m.cells is None:
        return None
    tp, fp, fn, tn = IV.cells_confusion(m.cells, m.table.cut_index(m.threshold))
    return Confusion(float(tp), float(fp), float(fn), float(tn))


def _auc_interval(d: TableDeLong, level: float) -> tuple[list[float], str]:
    """DeLong's interval of an AUC: the normal one, or on the logit scale when the normal one
    would leave [0, 1] (cut at 1 near a perfect AUC; :func:`~reportgen.engine.proportions.logit_auc_interval`)."""
    lo, hi, how = PR.delong_auc_bounds(d.auc, d.variance, level)
    return [lo, hi], how


def _exact_at_boundary(
    ci: dict[str, list[float]], method: dict[str, str], counts: Confusion | None, level: float
) -> None:
    """Replace the interval of every proportion whose count is 0 or its total by the exact one."""
    if counts is None:
        return
    cells = {"tp": counts.tp, "fp": counts.fp, "fn": counts.fn, "tn": counts.tn}
    for b in PR.boundary_intervals(cells, level):
        ci[b.metric], method[b.metric] = [b.lo, b.hi], PR.CLOPPER_PEARSON


def _zero_width(ci: dict[str, list[float]], skip: tuple[str, ...] = ()) -> list[str]:
    """Every metric whose interval has zero width (it reads as certainty: notice ``zero_width_interval``)."""
    return [k for k, iv in ci.items() if iv[0] == iv[1] and k not in skip]


def _approvals(ev: BinaryEvidence, s: Settings, b: int) -> tuple[dict[str, list] | None, str | None]:
    """Each model against the baseline at equal approval rates (:mod:`reportgen.engine.approval`):
    the baseline's own rate at its rule, then ``s.approval_rates``; drawn from the stream ``approval``.

    Unweighted: from the approval-pattern counts of the paired pass, the same counts and the same
    draws in every engine. Weighted: from the joint weight cells of the paired pass
    (:func:`~reportgen.engine.approval.compare_cells_at_rate`; a resample's weight per cell is
    not a function of the cell's row count, so the rows are counted per weight too). Returns
    (per model, its entries) or (None, capability code): ``weighted`` (weight cells past
    :data:`~reportgen.engine.intervals.MAX_WEIGHT_CELLS`), ``not_counted`` (counts
    missing, e.g. more models than :data:`~reportgen.engine.approval.MAX_APPROVAL_MODELS` or a rate
    the paired pass was not given), or the pairing's reason.
    """
    if len(ev.models) < 2:
        return None, None
    pairing = ev.pairing
    if pairing.status != "aligned":
        return None, pairing.reason
    names = ev.names
    rng = streams.stream(s.seed, "approval")
    out: dict[str, list] = {n: [] for i, n in enumerate(names) if i != b}
    counts = pairing.approval
    if not ev.weighted and counts is not None:
        targets: list[tuple[AP.Source, float, int | None]] = [
            ("baseline", counts.targets[b], counts.target_index(0.0, own=b))
        ]
        targets += [("config", r, counts.target_index(r)) for r in s.approval_rates]
        if any(t is None for _, _, t in targets):
            return None, "not_counted"
        thresholds = [m.table.thresholds for m in ev.models]
        for source, rate, t in targets:
            assert t is not None
            for a in AP.compare_from_counts(rate, source, counts, t, names, thresholds, b, s.level, s.resamples, rng):
                out[a.model.model].append(a)
        return out, None
    cells = pairing.cells
    if not ev.weighted or cells is None:
        return None, "weighted" if ev.weighted else "not_counted"
    # weighted: the joint weight cells every engine counts (the rows per table rows, class, weights)
    base = ev.models[b]
    rates: list[tuple[AP.Source, float]] = [("baseline", AP.own_rate(base.table, base.threshold))]
    rates += [("config", r) for r in s.approval_rates]
    for source, rate in rates:
        for a in AP.compare_cells_at_rate(
            rate,
            source,
            cells,
            names,
            [m.table for m in ev.models],
            b,
            s.level,
            s.resamples,
            rng,
            rule=base.threshold if source == "baseline" else None,
        ):
            out[a.model.model].append(a)
    return out, None


class _BinaryRun:
    """What every step of one binary comparison shares: the evidence and settings, the baseline,
    the weighted joint replicates (drawn once for all pairs) and each model's exact metrics
    (computed once, for its result and both bootstraps' binning error)."""

    def __init__(self, ev: BinaryEvidence, s: Settings) -> None:
        self.ev, self.s = ev, s
        self.want = s.resamples > 0
        # weighted aligned models: their differences from the joint weight cells (the paired row bootstrap)
        self.wdraws = (
            _weighted_pair_bootstrap(ev, s) if self.want and ev.weighted and ev.pairing.cells is not None else None
        )
        self.base_name = s.baseline or ev.names[0]
        self.b = ev.names.index(self.base_name)
        self._exact: dict[int, tuple[B.BinaryMetrics, np.ndarray]] = {}

    def exact(self, j: int) -> tuple[B.BinaryMetrics, np.ndarray]:
        """Model j's metrics on its exact table and their vector (pure: a thread computing it
        twice gets the same)."""
        if j not in self._exact:
            m = self.ev.models[j]
            bm = B.compute_metrics(m.table, m.threshold, self.s.beta, self.s.costs, m.probabilities)
            self._exact[j] = (bm, IV.metric_vector(bm))
        return self._exact[j]

    def weighted_diffs(self, j: int) -> tuple[np.ndarray, str] | None:
        """Replicates (resamples, METRICS) of model j's metrics minus the baseline's on the
        weighted joint cells, moved by their binning errors, and their ``ci_method``; None
        without those replicates."""
        w, b = self.wdraws, self.b
        if w is None:
            return None
        return w.samples[:, j, :] - w.samples[:, b, :] + (w.shift[j] - w.shift[b]), w.method


@dataclass(slots=True, repr=False, eq=False)
class _ModelStep(Shown):
    """One model's result, its DeLong summary (None below two rows a class or weighted) and
    whether its bootstrap was impossible (weighted, past the weight cells' cap)."""

    result: ModelResult
    delong: TableDeLong | None
    no_cells: bool
    partial: list[PA.ModelPartial]
    calibration: CAL.Calibration | None
    points: OP.ModelPoints | None = None


def _model_step(run: _BinaryRun, j: int) -> _ModelStep:
    """Model j: DeLong's interval of AUC and Gini, the bootstrap's of every other metric (its own
    stream, so the models run in threads), exact intervals at boundary counts, zero-width notices."""
    ev, s = run.ev, run.s
    m = ev.models[j]
    ci: dict[str, list[float]] = {}
    method: dict[str, str] = {}
    test_notices: list[Notice] = []
    t = m.table
    d = None
    if not t.weighted and min(t.total_pos, t.total_neg) >= DELONG_MIN_ROWS:
        d = delong_from_table(t)
        (lo, hi), how_auc = _auc_interval(d, s.level)
        ci["roc_auc"], ci["gini"] = [lo, hi], [2 * lo - 1, 2 * hi - 1]
        method["roc_auc"] = method["gini"] = how_auc
        if d.variance == 0.0:
            test_notices.append(Notice("delong_zero_variance", {"model": m.name, "auc": d.auc}))
    draws: IV.Draws | None = None
    rng = streams.stream(s.seed, "model", m.name)
    if run.want and not t.weighted:
        draws = IV.model_bootstrap(
            t, m.threshold, s.resamples, rng, s.beta, s.costs, m.probabilities, exact=run.exact(j)[1]
        )
    elif run.want and m.cells is not None:  # weighted: the row bootstrap drawn on its weight cells
        draws = IV.weighted_model_bootstrap(t, m.cells, m.threshold, s.resamples, rng, s.beta, s.costs, m.probabilities)
    if draws is not None:
        _model_intervals(draws, ci, method, s.level)
    rows_conf = _row_confusion(ev, j) if t.weighted else None
    if run.want:  # rows (or frequencies): an exact interval where the bootstrap's collapses
        conf = rows_conf if t.weighted else run.exact(j)[0].confusion
        _exact_at_boundary(ci, method, conf, s.level)
    flat = _zero_width(ci, skip=DELONG_METRICS if test_notices else ())
    if flat:
        test_notices.append(Notice("zero_width_interval", {"model": m.name, "level": s.level, "metrics": flat}))
    r = _model_result(m, s, ci, method, _smaller_class(ev, m), tuple(test_notices), run.exact(j)[0])
    pos_rows = _positive_rows(ev, m)
    neg_rows = None if pos_rows is None else t.n_rows - pos_rows
    partial: list[PA.ModelPartial] = []
    if s.partial_auc:
        from reportgen.engine import partial_auc as PA  # noqa: PLC0415

        partial = PA.model_partial_aucs(
            t, m.threshold, s.partial_auc, s.resamples, streams.stream(s.seed, "partial_auc", m.name), s.level
        )
    cal = None
    if s.calibration is not None and r.probabilities:
        from reportgen.engine import calibration as CAL  # noqa: PLC0415

        cal = CAL.model_calibration(
            t,
            *s.calibration,
            r.metrics.get("brier"),
            s.resamples,
            streams.stream(s.seed, "calibration", m.name),
            s.level,
        )
    pts = None
    if s.operating_points is not None:
        from reportgen.engine import operating_points as OP  # noqa: PLC0415

        pts = OP.model_points(
            t,
            m.threshold,
            s.operating_points,
            s.beta,
            s.costs,
            s.constraints,
            s.resamples,
            streams.stream(s.seed, "operating_points", m.name),
            s.level,
        )
    r = replace(
        r,
        calibration=None if cal is None else calibration_summary(cal),
        operating_points=None
        if pts is None or s.operating_points is None
        else _points_summary(pts, s.operating_points),
        positives_rows=pos_rows,
        negatives_rows=neg_rows,
        confusion_rows=rows_conf,
        partial_auc=_partial_summary(partial),
    )
    return _ModelStep(r, d, run.want and draws is None, partial, cal, pts)


def _partial_summary(partial: list[PA.ModelPartial]) -> list[PartialAuc]:
    """A model's partial AUCs, one per configured range (none configured: none, and their type
    is not imported)."""
    if not partial:
        return []
    from reportgen.option_results import PartialAuc  # noqa: PLC0415

    return [
        PartialAuc(p.range.focus, p.range.lo, p.range.hi, p.value, p.corrected, p.ci, p.corrected_ci, p.method)
        for p in partial
    ]


def _points_summary(p: OP.ModelPoints, points: OP.Points) -> OperatingPoints:
    from reportgen.option_results import OperatingPoint, OperatingPoints, OptimumInterval  # noqa: PLC0415

    return OperatingPoints(
        [OperatingPoint(k, x, v, ci) for (k, x), v, ci in zip(points.entries(), p.values, p.ci)],
        [OptimumInterval(n, o["threshold"], o["value"], o["tpr"], o["fpr"]) for n, o in p.optima.items()],
        p.method,
    )


def _point_deltas(run: _BinaryRun, points: dict[str, OP.ModelPoints | None], model: str) -> list[OperatingPointDelta]:
    """A challenger's differences from the baseline at the configured operating points: paired
    on the pair's joint score table when counted (the pair's own stream), else the two models'
    own replicates, variances added; descriptive (:mod:`reportgen.engine.operating_points`)."""
    ev, s = run.ev, run.s
    op = s.operating_points
    a, b = points.get(model), points.get(run.base_name)
    if op is None or a is None or b is None or not op.entries():
        return []
    from reportgen.engine import operating_points as OP  # noqa: PLC0415
    from reportgen.option_results import OperatingPointDelta  # noqa: PLC0415

    j = ev.names.index(model)
    pc = ev.pairing.pair_counts
    pair = None if pc is None or ev.weighted or not run.want else pc.of(j, run.b)
    diffs = None
    if pair is not None and pc is not None:
        diffs = OP.pair_curve_diffs(
            pair,
            (pc.luts[j], pc.luts[run.b]),
            (ev.models[j].table, ev.models[run.b].table),
            functools.partial(OP.point_values, points=op),
            s.resamples,
            streams.stream(s.seed, "operating_points_pair", run.base_name, model),
        )
    out = []
    for q, (k, x) in enumerate(op.entries()):
        va, vb = a.values[q], b.values[q]
        delta = None if va is None or vb is None else va - vb
        ra = None if a.replicates is None else a.replicates[:, q]
        rb = None if b.replicates is None else b.replicates[:, q]
        test = _difference_test(delta, None if diffs is None else diffs[:, q], ra, rb, s.level)
        if test is None:
            out.append(OperatingPointDelta(k, x, delta, None, None, diffs is not None, "no test"))
            continue
        method = OP.PAIRED if diffs is not None else OP.UNPAIRED
        out.append(OperatingPointDelta(k, x, delta, test[0], test[1], diffs is not None, method))
    return out


def _difference_test(
    delta: float | None, paired: np.ndarray | None, mine: np.ndarray | None, base: np.ndarray | None, level: float
) -> tuple[list[float], float] | None:
    """The normal interval and two-sided p of ``delta`` from the bootstrap: the SD of its paired
    replicates, else the two models' own replicates' variances added (pROC's ``roc.test`` with
    ``method = "bootstrap"``, paired or not); None without a delta or replicates."""
    var = None
    if paired is not None:
        se = MP.bootstrap_se(paired)
        var = None if se is None else se * se
    elif mine is not None and base is not None:
        sa, sb = MP.bootstrap_se(mine), MP.bootstrap_se(base)
        var = None if sa is None or sb is None else sa * sa + sb * sb
    if delta is None or var is None:
        return None
    _, p, lo, hi = stats.normal_test(delta, var, level)
    return [lo, hi], p


def calibration_summary(c: CAL.Calibration) -> CalibrationSummary:
    """The result's calibration summary of an engine calibration (the one conversion, also used by the
    credit battery's PD calibration); an empty bin's observed-rate bounds NaN → 0 and 1 for the JSON."""
    from reportgen.option_results import CalibrationSummary  # noqa: PLC0415

    return CalibrationSummary(
        c.strategy,
        c.bins,
        c.mean_predicted,
        c.observed,
        c.counts,
        np.nan_to_num(c.observed_lo, nan=0.0),
        np.nan_to_num(c.observed_hi, nan=1.0),
        c.values,
        c.ci,
        c.ci_method,
    )


#: ``CalibrationDelta.ci_method``: unpaired models, and models paired on their joint score table.
CALIBRATION_DELTA = "bootstrap (normal, the two models' variances added)"
CALIBRATION_PAIRED = "paired bootstrap of the joint score table (percentile)"


def _model_intervals(draws: IV.Draws, ci: dict[str, list[float]], method: dict[str, str], level: float) -> None:
    """Percentile intervals of every metric without one yet from a model's bootstrap replicates,
    and the KS's (a maximum: the reshaped bootstrap-t)."""
    for q, metric in enumerate(B.METRICS):
        if metric in ci or metric == "baseline_accuracy":
            continue
        iv = IV.percentile(draws.samples[:, q], float(draws.shift[q]), level, *B.RANGES.get(metric, (None, None)))
        if iv is not None:
            ci[metric], method[metric] = iv, draws.method
    if draws.ks is not None and (iv := IV.ks_interval(draws.ks, level)) is not None:
        ci["ks"], method["ks"] = iv, draws.ks.method


def _pair_draws(run: _BinaryRun, j: int) -> IV.Draws | None:
    """Model j's and the baseline's ranking-metric replicates on their joint score table (the
    pair's own stream, so the comparisons run in threads), or None when not counted."""
    ev, s, b = run.ev, run.s, run.b
    pc = ev.pairing.pair_counts
    if j == b or pc is None or ev.weighted or not run.want or (pair := pc.of(j, b)) is None:
        return None
    m, mb = ev.models[j], ev.models[b]
    return IV.pair_bootstrap(
        pair,
        pc.luts[j],
        pc.luts[b],
        (m.table, mb.table),
        (m.threshold, mb.threshold),
        (m.probabilities, mb.probabilities),
        s.resamples,
        streams.stream(s.seed, "pair", mb.name, m.name),
        s.beta,
        s.costs,
        exact=(run.exact(j)[1], run.exact(b)[1]),
    )


@dataclass(slots=True, repr=False, eq=False)
class _PairStep(Shown):
    """One comparison with the baseline before its families are adjusted."""

    name: str
    delta: dict[str, float | None]
    rel: dict[str, float | None]
    rer: dict[str, float | None]
    ci: dict[str, list[float]]
    method: dict[str, str]
    caps: dict[str, str]
    notices: list[Notice]
    delong: DeLongSummary | None
    mcnemar: tuple[stats.McNemarResult, McNemarBasis, np.ndarray | None] | None
    primary: PrimaryTest


def _take(
    step: _PairStep,
    drawn: dict[str, np.ndarray],
    metrics: tuple[str, ...],
    reps: np.ndarray,
    how: str,
    index: dict[str, int],
    s: Settings,
) -> None:
    """Percentile intervals of the differences of ``metrics`` from their replicates ``reps[:, index[metric]]``;
    the primary metric's replicates kept in ``drawn`` for its test."""
    for metric in metrics:
        if metric == "baseline_accuracy":
            continue
        if (iv := bootstrap_interval(reps[:, index[metric]], s.level)) is not None:
            step.ci[metric], step.method[metric] = iv, how
    if s.primary_metric in metrics:
        drawn[s.primary_metric] = reps[:, index[s.primary_metric]]


def _missing(run: _BinaryRun) -> str:
    """The capability code of a paired interval the evidence does not give."""
    pairing = run.ev.pairing
    return pairing.reason if pairing.status == "unpaired" else "weighted" if run.ev.weighted else "not_counted"


_TIDX = {m: q for q, m in enumerate(B.THRESHOLD_METRICS)}
_MIDX = {m: q for q, m in enumerate(B.METRICS)}


def _pair_step(
    run: _BinaryRun,
    j: int,
    models: dict[str, ModelResult],
    delong: dict[str, TableDeLong],
    model_caps: set[str],
    joint: np.ndarray | None,
    dr: IV.Draws | None,
) -> _PairStep:
    """Model j against the baseline: deltas, the paired (or unpaired) intervals of every
    difference, DeLong's test, McNemar's and the primary metric's test (unadjusted)."""
    ev, s, b = run.ev, run.s, run.b
    m = ev.models[j]
    pm = s.primary_metric
    delta, rel, rer = differences(models[m.name].metrics, models[run.base_name].metrics, B.METRICS, MAX_ONE)
    step = _PairStep(
        m.name,
        delta,
        rel,
        rer,
        {},
        {},
        {c: "weighted" for c in sorted(model_caps)},
        [],
        None,
        None,
        PrimaryTest(None, "no test", None, None),
    )
    drawn: dict[str, np.ndarray] = {}  # the bootstrap replicates of the primary metric's difference
    wdiff = run.weighted_diffs(j)
    # differences of threshold metrics: decision patterns, else the weighted rows
    if joint is not None:
        _take(step, drawn, B.THRESHOLD_METRICS, joint[:, j] - joint[:, b], PATTERN_BOOTSTRAP, _TIDX, s)
    elif wdiff is not None:
        _take(step, drawn, B.THRESHOLD_METRICS, *wdiff, _MIDX, s)
    elif run.want:
        step.caps["paired_interval.threshold_metrics"] = _missing(run)
    # differences of ranking metrics other than AUC and Gini: the pair's joint score table
    # (every engine's paired pass), else the joint weight cells (weighted)
    if dr is not None:
        for metric in ROW_ONLY_METRICS:
            q = _MIDX[metric]
            if (iv := IV.percentile(dr.samples[:, q], float(dr.shift[q]), s.level)) is not None:
                step.ci[metric], step.method[metric] = iv, dr.method
        if pm in ROW_ONLY_METRICS:
            drawn[pm] = dr.samples[:, _MIDX[pm]] + dr.shift[_MIDX[pm]]
    elif wdiff is not None:
        _take(step, drawn, ROW_ONLY_METRICS, *wdiff, _MIDX, s)
    elif run.want:
        step.caps["paired_interval.ranking_metrics"] = _missing(run)
    # AUC and Gini: DeLong, paired when the covariance was counted
    test: PrimaryTest | None = None
    if m.name in delong and run.base_name in delong:
        test = _delong_step(run, j, step, delong[m.name], delong[run.base_name])
    else:
        small = any(
            not mo.table.weighted and min(mo.table.total_pos, mo.table.total_neg) < DELONG_MIN_ROWS
            for mo in (m, ev.models[b])
        )
        step.caps["delong"] = "small_class" if small else "weighted"
        if wdiff is not None:
            _take(step, drawn, DELONG_METRICS, *wdiff, _MIDX, s)
    if test is None and (test := bootstrap_test(delta.get(pm), drawn.get(pm), s.level, step.method.get(pm))):
        # the difference's interval is the verdict's, so the table never contradicts the verdict
        step.ci[pm] = test.ci  # type: ignore[assignment]
    step.primary = test or no_test(step.ci, step.method, pm)
    # McNemar: the agreement counts at each model's decision rule
    step.mcnemar, why = mcnemar_of_pairing(ev.pairing, j, b, ev.weighted, s.weight_kind)
    if why is not None:
        step.caps["mcnemar"] = why
    return step


def _scaled_interval(test_at: Callable[[float], tuple], scale: float, level: float) -> list[float]:
    """The interval of a normal (or t) test at ``level``, times ``scale`` (2 for the Gini)."""
    return [scale * v for v in test_at(level)[2:4]]


def _delong_step(run: _BinaryRun, j: int, step: _PairStep, da: TableDeLong, db: TableDeLong) -> PrimaryTest | None:
    """DeLong's test of model j's AUC against the baseline's: paired on the aligned rows'
    covariance, else unpaired (Welch's t, as pROC); its interval for AUC and Gini into ``step``,
    and the primary metric's test when that is AUC or Gini."""
    s, b, pairing = run.s, run.b, run.ev.pairing
    cov = pairing.covariance
    d_auc = da.auc - db.auc
    test_at: Callable[[float], tuple]
    if cov is not None:
        var_d = max(0.0, cov[j, j] + cov[b, b] - 2.0 * cov[j, b])
        test_at = functools.partial(stats.normal_test, d_auc, var_d)
    else:
        var_d = da.variance + db.variance
        step.caps["delong_paired"] = pairing.reason if pairing.status == "unpaired" else "not_counted"
        test_at = functools.partial(
            stats.welch_test, d_auc, da.variance, da.n_pos + da.n_neg, db.variance, db.n_pos + db.n_neg
        )
    paired = cov is not None
    how = DELONG_PAIRED if paired else DELONG_UNPAIRED
    z, p, lo, hi = test_at(s.level)[:4]
    c_jb = 0.0 if cov is None else float(cov[j, b])
    alpha = MP.alpha_of(s.level)
    mdd = PW.min_detectable_delta(db.variance, da.variance, c_jb, alpha)
    step.delong = DeLongSummary(
        da.auc,
        db.auc,
        d_auc,
        math.sqrt(var_d),
        z,
        p,
        None,
        [lo, hi],
        paired,
        min_detectable_delta=mdd,
        power=PW.power_at(d_auc, db.variance, da.variance, c_jb, alpha),
    )
    samples = ((None, da),) if paired else (("a", da), ("b", db))
    step.notices.extend(
        Notice("delong_small_sample", {"sample": w, "positives": x.n_pos, "negatives": x.n_neg})
        for w, x in samples
        if min(x.n_pos, x.n_neg) < stats.SMALL_CLASS
    )
    if var_d == 0.0 and d_auc != 0.0:
        step.notices.append(Notice("delong_infinite_z", {"delta": d_auc}))
    step.ci["roc_auc"], step.ci["gini"] = [lo, hi], [2 * lo, 2 * hi]
    step.method["roc_auc"] = step.method["gini"] = how
    pm = s.primary_metric
    if pm not in DELONG_METRICS:
        return None
    scale = 2.0 if pm == "gini" else 1.0
    return PrimaryTest(
        p, how, step.ci[pm], how, functools.partial(_scaled_interval, test_at, scale), min_detectable=scale * mdd
    )


def _partial_tests(run: _BinaryRun, j: int, partial: dict[str, list[PA.ModelPartial]]) -> list[PA.PartialTest]:
    """Model j's partial AUCs against the baseline's: pROC's bootstrap test (module docstring of
    :mod:`reportgen.engine.partial_auc`), paired on the pair's joint score table when counted,
    else on the two models' own replicates (variances added)."""
    from reportgen.engine import partial_auc as PA  # noqa: PLC0415

    ev, s, b = run.ev, run.s, run.b
    mine, base = partial[ev.names[j]], partial[run.base_name]
    pc = ev.pairing.pair_counts
    pair = None if pc is None or ev.weighted or not run.want else pc.of(j, b)
    diffs: list[np.ndarray | None]
    if pair is not None and pc is not None:
        diffs = list(
            PA.pair_partial_auc_diffs(
                pair,
                pc.luts[j],
                pc.luts[b],
                (ev.models[j].table, ev.models[b].table),
                s.partial_auc,
                s.resamples,
                streams.stream(s.seed, "partial_auc_pair", run.base_name, ev.names[j]),
            )
        )
        method = IV.JOINT_BINNED_BOOTSTRAP
    else:
        diffs = [None] * len(s.partial_auc)
        method = "bootstrap (unpaired: the two models' variances added)"
    out = []
    for q, (m, mb) in enumerate(zip(mine, base)):
        delta = None if m.value is None or mb.value is None else m.value - mb.value
        test = _difference_test(delta, diffs[q], m.replicates, mb.replicates, s.level)
        if test is None:
            out.append(PA.PartialTest(m, mb, None, None, diffs[q] is not None, "no test"))
            continue
        out.append(PA.PartialTest(m, mb, test[0], test[1], diffs[q] is not None, method))
    return out


def _partial_family(
    tests: list[list[PA.PartialTest]], primary: list[float | None], level: float
) -> list[list[PartialAucTest]]:
    """Each comparison's partial AUC tests, Holm-adjusted together with the verdicts (one family:
    :data:`~reportgen.engine.multiplicity.VERDICTS`)."""
    flat = [t.p for ts in tests for t in ts]
    if not flat:  # no range configured: no test, and their type is not imported
        return [[] for _ in tests]
    from reportgen.option_results import PartialAucTest  # noqa: PLC0415

    adjusted, m = MP.holm(primary + flat)
    adj = iter(adjusted[len(primary) :])
    alpha = MP.alpha_of(level)
    out = []
    for ts in tests:
        row = []
        for t in ts:
            a = next(adj)
            mine, base = t.mine, t.base
            r = mine.range
            dc = None if mine.corrected is None or base.corrected is None else mine.corrected - base.corrected
            delta = None if mine.value is None or base.value is None else mine.value - base.value
            row.append(
                PartialAucTest(
                    r.focus,
                    r.lo,
                    r.hi,
                    delta,
                    dc,
                    t.ci,
                    t.p,
                    a,
                    m if t.p is not None else None,
                    None if a is None else a < alpha,
                    t.paired,
                    t.method,
                )
            )
        out.append(row)
    return out


def _comparison_family(
    run: _BinaryRun,
    steps: list[_PairStep],
    partial: dict[str, list[PA.ModelPartial]] | None = None,
    calibration: dict[str, CAL.Calibration | None] | None = None,
    points: dict[str, OP.ModelPoints | None] | None = None,
) -> list[Comparison]:
    """The comparisons with the baseline, each family adjusted: Holm over the verdicts (the
    primary metric), over McNemar's tests and over DeLong's; the approval comparisons beside."""
    ev, s = run.ev, run.s
    pm = s.primary_metric
    approvals, approval_cap = _approvals(ev, s, run.b)
    ptests = [_partial_tests(run, ev.names.index(p.name), partial) if partial and s.partial_auc else [] for p in steps]
    decisions = decide(
        [p.delta.get(pm) for p in steps],
        [p.primary for p in steps],
        pm,
        B.BETTER.get(pm) or "higher",
        s.level,
        also=[t.p for ts in ptests for t in ts],
    )
    partial_rows = _partial_family(ptests, [p.primary.p for p in steps], s.level)
    holm_m, size_m = MP.holm([None if p.mcnemar is None else p.mcnemar[0].p_value for p in steps])
    holm_d, size_d = MP.holm([None if p.delong is None else p.delong.p_value for p in steps])
    # Every family is adjusted, a family of one included: Holm's adjusted p of a single test is
    # its raw p (as the decision's p_value_adjusted and the multiclass McNemar summary say); the
    # report leaves out the duplicate, the numbers do not (a null read as "not adjusted").
    comparisons = []
    for p, hm, hd, dec, prow in zip(steps, holm_m, holm_d, decisions, partial_rows):
        dl = p.delong
        if dl is not None:  # DeLong's family: the verdicts' when they are DeLong's, else its own
            if pm in DELONG_METRICS and dec.method == dl_method(dl):
                dl = replace(dl, p_value_holm=dec.p_value_adjusted, family=MP.VERDICTS, family_size=dec.family_size)
            else:
                dl = replace(dl, p_value_holm=hd, family=MP.DELONG, family_size=size_d)
        mcs = None if p.mcnemar is None else mcnemar_summary(p.mcnemar[0], hm, p.mcnemar[1], p.mcnemar[2], size_m)
        notes = list(p.notices)  # the tests' own caveats; what is missing is in ``caps`` (codes)
        flat = _zero_width(p.ci)
        if flat:
            notes.append(Notice("zero_width_difference", {"level": s.level, "metrics": flat}))
        if approvals is None and approval_cap is not None:
            p.caps["approval"] = approval_cap
        comparisons.append(
            Comparison(
                p.name,
                run.base_name,
                p.delta,
                p.rel,
                p.rer["accuracy"],
                p.rer,
                p.ci,
                ComparisonTests(dl, mcs, notices=notes),
                primary_metric=pm,
                ci_method=p.method,
                capabilities=p.caps,
                decision=dec,
                approval=[] if approvals is None else approvals[p.name],
                partial_auc=prow,
                calibration=_calibration_delta(run, calibration or {}, p.name),
                operating_points=_point_deltas(run, points or {}, p.name),
            )
        )
    return comparisons


def _calibration_delta(run: _BinaryRun, cal: dict[str, CAL.Calibration | None], model: str) -> CalibrationDelta | None:
    """A challenger's calibration differences: the paired bootstrap of the pair's joint score
    table (:func:`~reportgen.engine.calibration.pair_deltas`, the pair's own stream) when counted,
    else the two models' own replicates, variances added."""
    ev, s = run.ev, run.s
    a, b = cal.get(model), cal.get(run.base_name)
    if a is None or b is None or s.calibration is None:
        return None
    from reportgen.engine import calibration as CAL  # noqa: PLC0415
    from reportgen.option_results import CalibrationDelta  # noqa: PLC0415

    j = ev.names.index(model)
    pc = ev.pairing.pair_counts
    pair = None if pc is None or ev.weighted or not run.want else pc.of(j, run.b)
    if pair is None or pc is None:
        delta, ci = CAL.deltas(a, b, s.level)
        return CalibrationDelta(delta, ci, CALIBRATION_DELTA)
    diffs = CAL.pair_deltas(
        pair,
        (pc.luts[j], pc.luts[run.b]),
        (ev.models[j].table, ev.models[run.b].table),
        *s.calibration,
        s.resamples,
        streams.stream(s.seed, "calibration_pair", run.base_name, model),
    )
    delta, ci = CAL.paired_deltas(a, b, diffs, s.level)
    return CalibrationDelta(delta, ci, CALIBRATION_PAIRED)


def _pairwise_family(
    run: _BinaryRun, models: dict[str, ModelResult], delong: dict[str, TableDeLong], comparisons: list[Comparison]
) -> list[PairwiseCell]:
    """Every pair of models, both orders: the Gini difference and DeLong's paired p-value (when the
    covariance was counted). A pair of challengers is adjusted by Holm over the family of
    challenger pairs; a pair with the baseline is its comparison's DeLong test, and shows that
    test's p, adjusted p and family (one adjusted p per test, :mod:`reportgen.engine.multiplicity`)."""
    ev, s = run.ev, run.s
    cov = ev.pairing.covariance
    against = {c.model: c.tests.delong for c in comparisons}
    pairwise = []
    raw_pw: list[float | None] = []
    for i, a in enumerate(ev.models):
        for c in ev.models[i + 1 :]:
            ga, gc = models[a.name].metrics["gini"], models[c.name].metrics["gini"]
            dg = None if ga is None or gc is None else ga - gc
            pv = None
            if run.base_name not in (a.name, c.name) and cov is not None and a.name in delong and c.name in delong:
                ia, ic = ev.names.index(a.name), ev.names.index(c.name)
                var_d = max(0.0, cov[ia, ia] + cov[ic, ic] - 2.0 * cov[ia, ic])
                pv = stats.normal_test(delong[a.name].auc - delong[c.name].auc, var_d, s.level)[1]
            raw_pw.append(pv)
            pairwise.append((a.name, c.name, dg, pv))
    holm_pw, size_pw = MP.holm(raw_pw)
    cells = []
    for (a_name, c_name, dg, pv), ph in zip(pairwise, holm_pw):
        family: HolmFamily | None = MP.CHALLENGER_PAIRS if pv is not None else None
        size = size_pw if pv is not None else None
        if run.base_name in (a_name, c_name):
            dl = against.get(c_name if a_name == run.base_name else a_name)
            if dl is not None and dl.paired:
                pv, ph, family, size = dl.p_value, dl.p_value_holm, dl.family, dl.family_size
        cells += [
            PairwiseCell(a_name, c_name, dg, pv, ph, family, size),
            PairwiseCell(c_name, a_name, None if dg is None else -dg, pv, ph, family, size),
        ]
    return cells


def compare_binary_evidence(
    ev: BinaryEvidence, s: Settings, progress: Progress | None = None
) -> tuple[dict[str, ModelResult], list[Comparison], list[PairwiseCell]]:
    """The binary driver (module docstring of :mod:`reportgen.engine.evidence` for the inputs).

    * each model: DeLong's interval of AUC and Gini from its table (unweighted, ≥ 2 rows per
      class; on the logit scale when the normal one would leave [0, 1]); every other metric's
      interval from the stratified bootstrap drawn on its score table's cells (unweighted:
      :func:`~reportgen.engine.intervals.model_bootstrap`, the row bootstrap's distribution at
      O(cells) per resample; above 4,096 distinct scores on a binned table cut at the threshold,
      moved by the binning error), or on its weight cells (weighted models:
      :func:`~reportgen.engine.intervals.weighted_model_bootstrap`);
      proportions whose count is 0 or its total get the exact Clopper–Pearson interval instead of
      a degenerate one; zero-width intervals are warned of;
    * each difference with the baseline: AUC and Gini by DeLong's paired test (covariance of
      the aligned rows) or else the unpaired one (variances added, Welch's t as pROC); the
      threshold metrics by the paired bootstrap of the decision-pattern counts; the other
      ranking metrics by the paired bootstrap of the pair's joint score table; weighted models
      every difference by the paired bootstrap of their joint weight cells (and the comparison at
      equal approval rate); McNemar's test from the agreement counts (rows under sampling
      weights, frequencies under frequency weights); deltas, relative deltas and error
      reductions; one multiplicity policy, Holm over each family (verdicts, McNemar, pairwise),
      with a :class:`~reportgen.results.Decision` per comparison; or a capability code saying
      what is missing.

    Every draw comes from its own stream (:mod:`reportgen.engine.streams`): each model's
    (``model``, its name), each comparison's joint table (``pair``, baseline and model), the
    decision patterns of all models (``patterns``), the weighted joint cells (``weighted_pairs``)
    and the approval comparisons (``approval``). So a model's intervals do not depend on the
    other models of the config or their order, and the models and the pairs are drawn in threads.
    """
    run = _BinaryRun(ev, s)
    k = len(ev.models)
    models: dict[str, ModelResult] = {}
    delong: dict[str, TableDeLong] = {}
    partial: dict[str, list[PA.ModelPartial]] = {}
    calibration: dict[str, CAL.Calibration | None] = {}
    points: dict[str, OP.ModelPoints | None] = {}
    model_caps: set[str] = set()
    paired_draws: list[IV.Draws | None] = []
    # each model and each pair draws from its own stream (reportgen.engine.streams), so they all
    # run in threads as one queue, the models first (a pair does not wait for the models' results)
    tasks: list[tuple[Callable[[_BinaryRun, int], object], int]] = [(_model_step, j) for j in range(k)] + [
        (_pair_draws, j) for j in range(k)
    ]
    for i, out in enumerate(ordered_map(lambda task: task[0](run, task[1]), tasks)):
        if i >= k:
            assert out is None or isinstance(out, IV.Draws)
            paired_draws.append(out)
            continue
        assert isinstance(out, _ModelStep)
        models[out.result.name] = out.result
        partial[out.result.name] = out.partial
        calibration[out.result.name] = out.calibration
        points[out.result.name] = out.points
        if out.delong is not None:
            delong[out.result.name] = out.delong
        if out.no_cells:
            model_caps.add("model_interval.bootstrap")
        if progress is not None:
            progress(i + 1, k)
    joint = None
    if ev.pairing.patterns is not None and run.want and not ev.weighted:
        joint = joint_bootstrap(ev.pairing.patterns, k, s, streams.stream(s.seed, "patterns"))
    steps = [_pair_step(run, j, models, delong, model_caps, joint, paired_draws[j]) for j in range(k) if j != run.b]
    comparisons = _comparison_family(run, steps, partial, calibration, points)
    return models, comparisons, _pairwise_family(run, models, delong, comparisons)
