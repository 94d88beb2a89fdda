"""Binary classification metrics, curves and optimal thresholds, all from one :class:`ScoreTable`.

Every quantity here is array arithmetic on the cumulative counts of the score table
(:meth:`ScoreTable.cumulative`): no loop over rows or thresholds, no second sort.

Notation (weighted counts): P positives, N negatives, m = P + N. At a cut, TP/FP are the
positives/negatives predicted positive, FN = P - TP, TN = N - FP. Definitions follow the
lecture notes in ``shared/seeds`` (Sokolov, "Метрики качества классификации"; Dyakonov,
"Функционалы качества: чёткая бинарная классификация"; Zhou, "性能度量") and scikit-learn
where the notes are silent (average precision as a step sum, log-loss clipping).

Threshold rule: with ``direction="higher"`` a row is predicted positive when ``score >= t``;
with ``direction="lower"`` when ``score <= t``. Every optimal threshold reported here is a
score that occurs in the data, so applying the rule in production reproduces the counts.
"""

from __future__ import annotations

import math
from collections.abc import Iterable, Sequence
from dataclasses import dataclass, field

import numpy as np

import reportgen.catalog as catalog
from reportgen.engine.curve import ScoreTable, reweighted
from reportgen.engine.sorting import sorted_unique
from reportgen.results import Confusion, Optimum, Reason
from reportgen.value import Value

#: Threshold metrics (functions of the confusion counts at one cut), in report order.
THRESHOLD_METRICS: tuple[str, ...] = catalog.keys("binary", "threshold")
#: Ranking metrics (functions of the whole score table), in report order.
RANKING_METRICS: tuple[str, ...] = catalog.keys("binary", "ranking")
METRICS: tuple[str, ...] = THRESHOLD_METRICS + RANKING_METRICS

#: Which way is better for each metric (``None``: neither, e.g. the baseline accuracy).
BETTER: dict[str, catalog.Better] = catalog.better("binary")

#: Criteria for optimal thresholds: metric maximised (or minimised for expected cost).
CRITERIA: tuple[str, ...] = tuple(c.key for c in catalog.CRITERIA)


@dataclass(frozen=True, repr=False, eq=False, slots=True)
class Costs(Value):
    """Misclassification costs per row: C(FN), C(FP), and optional costs of correct decisions."""

    fn: float = 1.0
    fp: float = 1.0
    tp: float = 0.0
    tn: float = 0.0


@dataclass(frozen=True, repr=False, eq=False, slots=True)
class Constraint(Value):
    """An optimal-threshold rule: maximise ``maximize`` subject to ``where`` ≥ at_least / ≤ at_most."""

    maximize: str
    where: str
    at_least: float | None = None
    at_most: float | None = None

    @property
    def name(self) -> str:
        if self.at_least is not None:
            return f"{self.maximize}_at_{self.where}_ge_{self.at_least:g}"
        return f"{self.maximize}_at_{self.where}_le_{self.at_most:g}"

    @property
    def description(self) -> str:
        bound = f"≥ {self.at_least:g}" if self.at_least is not None else f"≤ {self.at_most:g}"
        return f"best {self.maximize} with {self.where} {bound}"


@dataclass(frozen=True, repr=False, eq=False, slots=True)
class Undefined(Value):
    """Why a metric has no value on these data: a reason code and its facts (the report layer
    writes the sentence, :func:`reportgen.report.wording.undefined_text`)."""

    metric: str
    reason: Reason


@dataclass(frozen=True, repr=False, eq=False, slots=True)
class BinaryMetrics(Value):
    """All scalar metrics of one model: threshold metrics at one threshold plus ranking metrics.

    A value is None when undefined on the data; ``undefined`` says why.
    """

    threshold: float
    confusion: Confusion
    values: tuple[tuple[str, float | None], ...]
    undefined: tuple[Undefined, ...] = ()
    ks_threshold: float | None = None
    probabilities: bool = False

    def get(self, name: str) -> float | None:
        return dict(self.values).get(name)

    def as_dict(self) -> dict[str, float | None]:
        return dict(self.values)


@dataclass(frozen=True, repr=False, eq=False, slots=True)
class Curve(Value):
    """A named curve as two coordinate arrays (and the score threshold of each point)."""

    x: np.ndarray
    y: np.ndarray
    thresholds: np.ndarray | None = None


@dataclass(frozen=True, repr=False, eq=False, slots=True)
class CostCurve(Value):
    """Drummond–Holte cost curve: lower envelope of normalised expected cost over PC(+)."""

    pc: np.ndarray
    envelope: np.ndarray
    operating_pc: float
    operating_line: tuple[float, float]  # (FPR, TPR) at the decision threshold


@dataclass(frozen=True, repr=False, eq=False, slots=True)
class KsCurve(Value):
    """Share of positives and of negatives predicted positive at each threshold (KS plot)."""

    thresholds: np.ndarray
    tpr: np.ndarray
    fpr: np.ndarray


@dataclass(frozen=True, repr=False, eq=False, slots=True)
class BinaryCurves(Value):
    roc: Curve
    pr: Curve
    threshold_metrics: dict[str, Curve] = field(default_factory=dict)
    cost: CostCurve | None = None
    ks: KsCurve | None = None


# --------------------------------------------------------------------------------------
# Vectorised metric arrays over cuts
# --------------------------------------------------------------------------------------


def _per(num: np.ndarray, den: float | np.ndarray) -> np.ndarray:
    """num / den, NaN where den == 0; for a scalar den :func:`_div` without the length-n
    array of den (an array den, as the bootstrap's per-resample totals, goes to :func:`_div`)."""
    if isinstance(den, np.ndarray) and den.ndim:
        return _div(num, den)
    if den != 0:
        return np.divide(num, den)
    return np.full(np.shape(num), np.nan)


def _div(num: np.ndarray, den: np.ndarray) -> np.ndarray:
    """num / den with NaN where den == 0 (undefined), no warnings."""
    num = np.asarray(num, dtype=np.float64)
    den = np.asarray(den, dtype=np.float64)
    out = np.full(np.broadcast(num, den).shape, np.nan)
    np.divide(num, den, out=out, where=den != 0)
    return out


def _dot(a: np.ndarray, b: np.ndarray) -> float:
    """Σ a_i·b_i by numpy's own loop, not BLAS.

    A threaded BLAS splits long vectors across threads: the result's last bits then depend
    on the thread count, and on a busy machine the threads' hand-offs cost far more than
    the sum (measured: 8 ms instead of 0.3 ms for 10^6 terms with one core taken).
    """
    return float(np.einsum("i,i->", a, b))


def metric_arrays(
    tp: np.ndarray,
    fp: np.ndarray,
    P: float | np.ndarray,
    N: float | np.ndarray,
    beta: float = 1.0,
    costs: Costs = Costs(),
    names: tuple[str, ...] | None = None,
) -> dict[str, np.ndarray]:
    """Threshold metrics at every cut, as arrays aligned with ``tp`` / ``fp`` (NaN = undefined).

    ``P`` and ``N`` are the class totals: scalars for the cuts of one table, or arrays aligned
    with ``tp`` for one cut on each of several tables (bootstrap resamples).

    Formulas (seeds: Sokolov §1–2, Dyakonov part 2):
      accuracy = (TP + TN) / m;  precision = TP / (TP + FP);  recall = TPR = TP / P;
      specificity = TNR = TN / N;  NPV = TN / (TN + FN);  FPR = FP / N;  FNR = FN / P;
      type I error share = FP / m;  type II error share = FN / m;
      F_beta = (1 + b²) TP / ((1 + b²) TP + b² FN + FP);  balanced accuracy = (TPR + TNR) / 2;
      Youden J = TPR + TNR − 1;  Cohen's kappa = (p_o − p_e) / (1 − p_e) with
      p_e = ((TP + FP)(TP + FN) + (FN + TN)(FP + TN)) / m²;
      MCC = (TP·TN − FP·FN) / sqrt((TP + FP)(TP + FN)(TN + FP)(TN + FN));
      expected cost = (C_tp·TP + C_fp·FP + C_fn·FN + C_tn·TN) / m  (mean cost per row).
    """
    tp = np.asarray(tp, dtype=np.float64)
    fp = np.asarray(fp, dtype=np.float64)
    m = P + N
    fn = P - tp
    tn = N - fp
    want = set(names) if names is not None else set(THRESHOLD_METRICS)
    out: dict[str, np.ndarray] = {}
    pp = tp + fp
    if "accuracy" in want or "error_rate" in want:
        acc = _per(tp + tn, m)
        out["accuracy"] = acc
        out["error_rate"] = 1.0 - acc
    if "baseline_accuracy" in want:
        out["baseline_accuracy"] = np.full_like(tp, _per(np.maximum(P, N), m))
    recall = _per(tp, P)
    spec = _per(tn, N)
    if "precision" in want:
        out["precision"] = _div(tp, pp)
    if "recall" in want:
        out["recall"] = recall
    if "specificity" in want:
        out["specificity"] = spec
    if "npv" in want:
        out["npv"] = _div(tn, tn + fn)
    if "fpr" in want:
        out["fpr"] = _per(fp, N)
    if "fnr" in want:
        out["fnr"] = _per(fn, P)
    if "type_i_error" in want:
        out["type_i_error"] = _per(fp, m)
    if "type_ii_error" in want:
        out["type_ii_error"] = _per(fn, m)
    if "f1" in want:
        out["f1"] = _div(2.0 * tp, 2.0 * tp + fp + fn)
    if "fbeta" in want:
        b2 = beta * beta
        out["fbeta"] = _div((1.0 + b2) * tp, (1.0 + b2) * tp + b2 * fn + fp)
    if "balanced_accuracy" in want:
        out["balanced_accuracy"] = (recall + spec) / 2.0
    if "youden_j" in want:
        out["youden_j"] = recall + spec - 1.0
    if "cohen_kappa" in want:
        po = _per(tp + tn, m)
        pe = _per(pp * (tp + fn) + (fn + tn) * (fp + tn), m * m)
        out["cohen_kappa"] = _div(po - pe, 1.0 - pe)
    if "mcc" in want:
        den = pp * (tp + fn) * (tn + fp) * (tn + fn)
        out["mcc"] = _div(tp * tn - fp * fn, np.sqrt(np.maximum(den, 0.0)))
    if "expected_cost" in want:
        total = costs.tp * tp + costs.fp * fp + costs.fn * fn + costs.tn * tn
        out["expected_cost"] = _per(total, m)
    return out


#: Why a threshold metric is undefined, by metric (a :data:`~reportgen.results.UndefinedCode`):
#: the one denominator that can vanish for it.
_UNDEFINED_REASON = {
    "precision": Reason("no_predicted_positives"),  # TP + FP = 0
    "npv": Reason("no_predicted_negatives"),  # TN + FN = 0
    "recall": Reason("no_positives"),
    "fnr": Reason("no_positives"),
    "specificity": Reason("no_negatives"),
    "fpr": Reason("no_negatives"),
    "balanced_accuracy": Reason("needs_both_classes"),
    "youden_j": Reason("needs_both_classes"),
    "f1": Reason("no_positives_no_predicted"),  # 2TP + FP + FN = 0
    "fbeta": Reason("no_positives_no_predicted"),
    "cohen_kappa": Reason("chance_agreement_one"),  # all rows in one class and one prediction
    "mcc": Reason("empty_confusion_line"),  # a row or column of the confusion matrix is empty
}
_UNDEFINED = Reason("undefined")


# --------------------------------------------------------------------------------------
# Ranking metrics
# --------------------------------------------------------------------------------------


def roc_auc(table: ScoreTable) -> float | None:
    """Area under the ROC curve with ties counted as half (diagonal ROC segments).

    AUC = Σ_i neg_i · (TP_{i−1} + pos_i / 2) / (P · N) over distinct scores i, most positive
    first — the Mann–Whitney U / (P·N) (seed: Sokolov, task 3.1). None if a class is absent.
    """
    P, N = table.total_pos, table.total_neg
    if P <= 0 or N <= 0:
        return None
    tp, _ = table.cumulative_view()
    # Σ neg_i·(TP before i) + ½ Σ neg_i·pos_i (two sums: no length-k temporary)
    u = _dot(table.neg, tp[:-1]) + 0.5 * _dot(table.neg, table.pos)
    return min(1.0, max(0.0, u / (P * N)))


def average_precision(table: ScoreTable) -> float | None:
    """AP = Σ_i (R_i − R_{i−1}) · P_i over distinct thresholds (step-wise, as scikit-learn)."""
    P = table.total_pos
    if P <= 0:
        return None
    tp, fp = table.cumulative_view()
    # only scores with positives add recall: the sum runs over them alone
    i = table.positive_scores()
    prec = np.nan_to_num(_div(tp[i + 1], tp[i + 1] + fp[i + 1]), nan=0.0)
    return _dot(table.pos[i] / P, prec)


def r_precision(table: ScoreTable) -> float | None:
    """Precision among the top-P rows (P = number of positives) = the break-even point.

    At a cut of exactly P predicted positives precision equals recall. A tied group that
    straddles the cut contributes in proportion (the expectation over random tie-breaking),
    so the value is exact with ties.
    """
    P = table.total_pos
    if P <= 0:
        return None
    tp, fp = table.cumulative_view()
    # first score i whose cumulative weight TP + FP (through i) reaches P, by bisection
    lo, hi = 0, table.n_distinct
    while lo < hi:
        mid = (lo + hi) // 2
        if tp[mid + 1] + fp[mid + 1] < P:
            lo = mid + 1
        else:
            hi = mid
    i = min(lo, table.n_distinct - 1)
    w_i = float(table.pos[i] + table.neg[i])
    before_w = float(tp[i] + fp[i])
    frac = (P - before_w) / w_i if w_i > 0 else 0.0
    return float((float(tp[i]) + frac * table.pos[i]) / P)


def _ks(table: ScoreTable, tp: np.ndarray, fp: np.ndarray) -> tuple[float | None, float | None]:
    P, N = table.total_pos, table.total_neg
    if P <= 0 or N <= 0:
        return None, None
    starts = table.run_starts()
    # TPR − FPR cannot rise along a run (FP grows, TP stays), so its first maximum over the
    # cuts 1..k is at a run start
    cuts = np.arange(1, tp.shape[0]) if starts is None else starts[1:]
    diff = tp[cuts] / P - fp[cuts] / N
    # the threshold follows the optimal thresholds' tie rule (KS is max Youden's J, so this is
    # optimal_thresholds' youden_j cut): equal maxima computed along different paths differ in
    # their last bits (18/27 − 3/27 and 21/27 − 6/27), and the first within TIE_TOLERANCE wins
    j = _best(diff)
    assert j is not None
    return float(max(diff.max(), 0.0)), float(table.thresholds[cuts[j] - 1])


def defective_pairs(table: ScoreTable, auc: float | None) -> float | None:
    """Share of mis-ordered (positive, negative) pairs among all pairs of rows, ties as half.

    DP = 2·ℓ₋·ℓ₊ / (ℓ(ℓ − 1)) · (1 − AUC)  (seed: Sokolov, task 3.1). Weights are frequency
    weights, as everywhere in the engine: ℓ = W = Σw, so a row of weight 3 counts exactly like
    three identical rows (and the pairs among those copies are in the denominator). Undefined
    when the weights cannot be counts of rows: W(W − 1) < 2·P·N, i.e. P² + N² < P + N, which
    needs a class with less than one row's worth of weight (DP would exceed 1).
    """
    if auc is None:
        return None
    W = table.total
    P, N = table.total_pos, table.total_neg
    pairs = W * (W - 1.0)
    if pairs <= 0 or pairs < 2.0 * P * N:
        return None
    return _in_range(2.0 * P * N / pairs * (1.0 - auc), 0.0, 1.0)


def probability_losses(table: ScoreTable) -> tuple[float | None, float | None, Reason | None]:
    """Log-loss and Brier score from the table, when scores are probabilities of the positive class.

    log-loss = −(1/m) Σ_i [pos_i·log s_i + neg_i·log(1 − s_i)], s clipped to [ε, 1 − ε] with
    ε = machine epsilon (as scikit-learn); Brier = (1/m) Σ_i [pos_i (1 − s_i)² + neg_i s_i²].
    Not applicable (None with a reason code) unless the scores lie in [0, 1] and a higher score
    means positive.
    """
    m = table.total
    if m <= 0:
        return None, None, Reason("no_rows")
    s = table.thresholds
    if table.direction != "higher":
        return None, None, Reason("not_probabilities_direction")
    if s.size and (s.min() < 0.0 or s.max() > 1.0):
        return None, None, Reason("not_probabilities_range")
    eps = np.finfo(np.float64).eps
    if table.weighted:
        # resamples and reweighted tables: the logarithms depend on the scores only, so they
        # are taken once for the whole family of tables (table.by_score) and reused
        cache = table.by_score()
        if "losses" not in cache:
            sc = np.clip(s, eps, 1.0 - eps)
            cache["losses"] = (np.log(sc), log1m(sc), np.subtract(1.0, s))
        log_p, log_n, miss = cache["losses"]
        ll = -(_dot(table.pos, log_p) + _dot(table.neg, log_n)) / m
        brier = (float(np.einsum("i,i,i->", table.pos, miss, miss)) + float(np.einsum("i,i,i->", table.neg, s, s))) / m
        return ll, brier, None
    ll_sum = brier_sum = 0.0
    # in blocks (cache-sized, no length-k temporaries); each class's terms only where it
    # has weight (a zero weight adds nothing)
    for lo in range(0, table.n_distinct, _BLOCK):
        sb = s[lo : lo + _BLOCK]
        for w, positive in ((table.pos[lo : lo + _BLOCK], True), (table.neg[lo : lo + _BLOCK], False)):
            x = sb
            nz = w != 0.0
            count = int(np.count_nonzero(nz))
            if count == 0:
                continue
            if count < w.shape[0] // 2:  # sparse class: gather its scores
                i = np.flatnonzero(nz)
                w, x = w[i], sb[i]
            xc = np.clip(x, eps, 1.0 - eps)
            ll_sum += _dot(w, np.log(xc) if positive else log1m(xc))
            miss = np.subtract(1.0, x) if positive else x
            brier_sum += float(np.einsum("i,i,i->", w, miss, miss))
    return -ll_sum / m, brier_sum / m, None


def log_loss_clipped(table: ScoreTable) -> float:
    """The weight of rows whose true class has probability below ε: positives scored under ε,
    negatives scored above 1 − ε (clipped in :func:`probability_losses`, each adds −log ε)."""
    eps = np.finfo(np.float64).eps
    s = table.thresholds
    return float(table.pos[s < eps].sum() + table.neg[s > 1.0 - eps].sum())


#: Scores per block in :func:`probability_losses`.
_BLOCK = 1 << 15


def log1m(x: np.ndarray) -> np.ndarray:
    """log(1 − x) to a few ulps, for x in [0, 1): Goldberg's log1p with a vectorised log.

    log1p(−x) = log(u)·(−x)/(u − 1) with u = 1 − x rounded (the rounding error of u cancels
    in the ratio; Goldberg 1991, "What every computer scientist should know about
    floating-point arithmetic", thm. 4), and −x where u rounds to 1. numpy's log1p is a
    scalar loop, about 3x slower than log on this machine.
    """
    u = np.subtract(1.0, x)
    ratio = np.subtract(1.0, u)
    with np.errstate(divide="ignore", invalid="ignore"):
        np.divide(x, ratio, out=ratio)  # x / (1 − u); inf where u rounds to 1
        out = np.log(u)
        out *= ratio  # log(u)·x/(1 − u) = log(u)·(−x)/(u − 1)
    np.copyto(out, np.negative(x), where=u == 1.0)
    return out


# --------------------------------------------------------------------------------------
# Scalar metrics of one model
# --------------------------------------------------------------------------------------


def _scalar(v: float) -> float | None:
    return None if (v is None or not math.isfinite(v)) else float(v)


#: The mathematical range of each bounded metric. Sums of weights in floating point can leave
#: it by a few ulps (0.4 + 0.2 + 0.3 + 0.1 = 1.0000000000000002); reported values are clipped.
RANGES: dict[str, tuple[float, float]] = {m.key: (m.lo, m.hi) for m in catalog.metrics_of("binary") if m.bounded}


def _in_range(v: float | None, lo: float, hi: float) -> float | None:
    return None if v is None else min(hi, max(lo, float(v)))


def _bounded(name: str, v: float | None) -> float | None:
    """``v`` clipped to the range of metric ``name`` (unbounded metrics pass through)."""
    r = RANGES.get(name)
    return v if r is None or v is None else _in_range(v, *r)


def compute_metrics(
    table: ScoreTable,
    threshold: float,
    beta: float = 1.0,
    costs: Costs = Costs(),
    probabilities: bool | None = None,
) -> BinaryMetrics:
    """Threshold metrics at ``threshold`` and all ranking metrics of one model."""
    tp, fp = table.cumulative_view()
    P, N = table.total_pos, table.total_neg
    idx = table.cut_index(threshold)
    arrays = metric_arrays(tp[idx : idx + 1], fp[idx : idx + 1], P, N, beta, costs)
    values: dict[str, float | None] = {}
    undefined: list[Undefined] = []
    for name in THRESHOLD_METRICS:
        v = _scalar(float(arrays[name][0]))
        values[name] = v
        if v is None:
            undefined.append(Undefined(name, _UNDEFINED_REASON.get(name, _UNDEFINED)))
    auc = roc_auc(table)
    values["roc_auc"] = auc
    values["gini"] = None if auc is None else 2.0 * auc - 1.0
    values["average_precision"] = average_precision(table)
    values["r_precision"] = r_precision(table)
    ks, ks_thr = _ks(table, tp, fp)
    values["ks"] = ks
    values["defective_pairs"] = defective_pairs(table, auc)
    for name in ("roc_auc", "gini", "ks", "defective_pairs"):
        if values[name] is None:
            why = Reason("needs_both_classes")
            if name == "defective_pairs" and auc is not None:
                why = Reason("frequency_weight_below_one_row")
            undefined.append(Undefined(name, why))
    if values["average_precision"] is None:
        undefined.append(Undefined("average_precision", Reason("no_positives")))
    if values["r_precision"] is None:
        undefined.append(Undefined("r_precision", Reason("no_positives")))
    ll, brier, loss_why = probability_losses(table)
    if probabilities is False:
        ll, brier, loss_why = None, None, Reason("declared_not_probabilities")
    values["log_loss"] = ll
    values["brier"] = brier
    if loss_why:
        undefined.append(Undefined("log_loss", loss_why))
        undefined.append(Undefined("brier", loss_why))
    values = {k: _bounded(k, v) for k, v in values.items()}
    conf = Confusion(float(tp[idx]), float(fp[idx]), float(P - tp[idx]), float(N - fp[idx]))
    return BinaryMetrics(
        threshold=float(threshold),
        confusion=conf,
        values=tuple((k, values[k]) for k in METRICS),
        undefined=tuple(undefined),
        ks_threshold=ks_thr,
        probabilities=loss_why is None,
    )


# --------------------------------------------------------------------------------------
# Optimal thresholds
# --------------------------------------------------------------------------------------

_CRITERION_TEXT = {c.key: c.label for c in catalog.CRITERIA}


#: Values within this relative distance of the best count as ties (see :func:`_best`).
TIE_TOLERANCE = 1e-12


def _best(values: np.ndarray, minimize: bool = False) -> int | None:
    """Index of the best finite value; the first (most conservative threshold) on ties.

    Mathematically equal values computed along different paths can differ in their last
    bits (e.g. balanced accuracy (1/2 + 4/6)/2 and (1 + 1/6)/2, both 7/12), so values within
    ``TIE_TOLERANCE`` · max(1, |best|) of the best are ties and the first of them wins: the
    documented "highest threshold on ties" then holds whatever the rounding.
    """
    if values.size == 0:
        return None
    finite = np.isfinite(values)
    if not finite.any():
        return None
    v = np.where(finite, values, np.inf if minimize else -np.inf)
    best = float(v.min() if minimize else v.max())
    tol = TIE_TOLERANCE * max(1.0, abs(best))
    near = v <= best + tol if minimize else v >= best - tol
    return int(np.argmax(near))


#: How each threshold metric moves along a run of cuts (TP fixed, FP growing), as computed
#: in floating point. ``falls``: never rises (every operation in its formula is monotone in
#: FP, and correctly rounded operations keep that); ``same``: bit-identical along the run;
#: ``rises``: never falls; ``falls~``: falls strictly in exact arithmetic whenever both
#: classes are present (MCC, Cohen's kappa, NPV), but the formula mixes terms that move in
#: opposite directions, so rounding could reorder two values a few ulps apart.
_ALONG_RUN: dict[str, str] = {
    "accuracy": "falls",
    "precision": "falls",
    "specificity": "falls",
    "f1": "falls",
    "fbeta": "falls",
    "balanced_accuracy": "falls",
    "youden_j": "falls",
    "recall": "same",
    "fnr": "same",
    "fpr": "rises",
    "npv": "falls~",
    "mcc": "falls~",
    "cohen_kappa": "falls~",
}
_BEST_AT_START = ("falls", "same", "falls~")


def _cost_best_at_start(costs: Costs) -> bool:
    """Whether the expected cost cannot fall along a run, so its minimum is at a run start.

    Its slope in FP is C(FP) − C(TN). With C(TN) = 0 the computed cost is monotone in FP
    (the TN term is exactly 0); with C(FP) > C(TN) it rises strictly in exact arithmetic.
    """
    return (costs.tn == 0.0 and costs.fp >= 0.0) or costs.fp > costs.tn


def _constraint_at_starts(c: Constraint) -> bool:
    """Whether a constraint rule's best cut is a run start: the objective cannot rise along a
    run, and a cut that meets the bound is preceded in its run by cuts that meet it too."""
    if _ALONG_RUN.get(c.maximize) not in _BEST_AT_START:
        return False
    trend = _ALONG_RUN.get(c.where)
    if c.at_least is not None:
        return trend in _BEST_AT_START
    return trend in ("rises", "same")


def _break_even_cut(table: ScoreTable, tp: np.ndarray, fp: np.ndarray) -> int | None:
    """The first cut (1..k) with the smallest |precision − recall| among cuts with TP > 0.

    Along a run TP is fixed and precision − recall = TP/(TP + FP) − TP/P cannot rise (each
    operation is monotone), so |precision − recall| falls while it is positive and rises
    once it is not. The first minimum of a run is therefore at its end when the difference
    is still ≥ 0 there (or, if the value before the end is equal, somewhere earlier: the
    run is then searched whole), at its start when the difference is already ≤ 0 there, and
    anywhere in a run where it changes sign (searched whole). Without runs: every cut.
    """
    P, N = table.total_pos, table.total_neg
    k = table.n_distinct
    starts = table.run_starts()
    if starts is None:
        cuts = np.arange(1, k + 1)
    else:
        first = starts[1:]  # runs of cuts 1..k: [first[r], last[r]]
        last = np.append(first[1:] - 1, k)
        d_first = _precision_minus_recall(tp, fp, P, N, first)
        d_last = _precision_minus_recall(tp, fp, P, N, last)
        falling = d_last >= 0.0
        long_fall = falling & (last > first)
        d_before = np.full(first.shape[0], np.nan)
        d_before[long_fall] = _precision_minus_recall(tp, fp, P, N, last[long_fall] - 1)
        whole = (long_fall & (d_before == d_last)) | ((d_first > 0.0) & (d_last < 0.0))
        picks = [first[~falling & ~whole], last[falling & ~whole]]
        if whole.any():
            lengths = last[whole] - first[whole] + 1
            offsets = np.repeat(np.cumsum(lengths) - lengths, lengths)
            picks.append(np.arange(int(lengths.sum())) - offsets + np.repeat(first[whole], lengths))
        cuts = sorted_unique(np.concatenate(picks))
    if cuts.size == 0:
        return None
    gap = np.abs(_precision_minus_recall(tp, fp, P, N, cuts))
    # Precision = recall holds trivially at P = R = 0 (any cut with TP = 0, e.g. when the
    # top-scored row is a negative); that is not a break-even point (seed S0 §2.2,
    # docs/seed_examples.md C5), so only cuts with TP > 0 are candidates.
    j = _best(np.where(tp[cuts] > 0, gap, np.nan), minimize=True)
    return None if j is None else int(cuts[j])


def _precision_minus_recall(tp: np.ndarray, fp: np.ndarray, P: float, N: float, cuts: np.ndarray) -> np.ndarray:
    """Precision − recall at ``cuts``, computed as :func:`metric_arrays` computes both."""
    t = tp[cuts]
    return _div(t, t + fp[cuts]) - _per(t, P)


def optimal_thresholds(
    table: ScoreTable,
    beta: float = 1.0,
    costs: Costs = Costs(),
    constraints: tuple[Constraint, ...] = (),
) -> tuple[Optimum, ...]:
    """The best cut for each criterion in :data:`CRITERIA` and each constraint rule.

    Candidate cuts are the distinct scores (``positive when score >= t`` for ``higher``); for
    the expected cost the empty cut (predict no positives, threshold None) is a candidate too.
    On ties the highest threshold (the fewest predicted positives) wins.

    Search: every criterion but break-even cannot improve along a run of cuts that adds only
    negatives (:meth:`ScoreTable.run_starts`), so with the tie rule its optimum is a run
    start and only run starts are evaluated (about the distinct scores of positives); rules
    whose metrics do not behave so (see ``_ALONG_RUN``) are evaluated at every cut.
    Break-even: :func:`_break_even_cut`.
    """
    tp, fp = table.cumulative_view()
    P, N = table.total_pos, table.total_neg
    k = table.n_distinct
    starts = table.run_starts()

    counts: dict[bool, tuple[np.ndarray, np.ndarray, np.ndarray]] = {}

    def values(on_starts: bool, *names: str) -> tuple[np.ndarray, list[np.ndarray]]:
        """The cuts evaluated (cut 0 first) and the arrays of ``names`` on them.

        One rule at a time, so that only its own arrays are alive (memory peak).
        """
        key = on_starts and starts is not None
        if key not in counts:
            if key and starts is not None:
                counts[key] = (starts, tp[starts], fp[starts])
            else:
                counts[key] = (np.arange(k + 1), tp, fp)
        cuts, tpc, fpc = counts[key]
        arrays = metric_arrays(tpc, fpc, P, N, beta, costs, names)
        return cuts, [arrays[n] for n in names]

    def make(criterion: str, idx: int | None, value: float | None, text: str) -> Optimum:
        if idx is None:
            return Optimum(criterion, None, None, 0.0, 0.0, P, N, text)  # undefined: value None (the report says so)
        thr = None if idx == 0 else float(table.thresholds[idx - 1])
        return Optimum(
            criterion,
            thr,
            _bounded(criterion, _scalar(value)) if value is not None else None,
            float(tp[idx]),
            float(fp[idx]),
            float(P - tp[idx]),
            float(N - fp[idx]),
            text,
            # the first score left unflagged: the printed threshold may be any decimal before it
            None if thr is None or idx >= k else float(table.thresholds[idx]),
        )

    out: list[Optimum] = []
    for crit in CRITERIA:
        if crit == "break_even":
            i = _break_even_cut(table, tp, fp)
            value = None
            if i is not None:
                a = metric_arrays(tp[i : i + 1], fp[i : i + 1], P, N, names=("precision", "recall"))
                value = float((a["precision"][0] + a["recall"][0]) / 2.0)
            out.append(make(crit, i, value, _CRITERION_TEXT[crit]))
            continue
        cuts, (vals,) = values(crit != "expected_cost" or _cost_best_at_start(costs), crit)
        if crit == "expected_cost":
            j = _best(vals, minimize=True)
            i = None if j is None else int(cuts[j])
            jv = j
        else:
            j = _best(vals[1:])  # cuts[0] is the empty cut
            i = None if j is None else int(cuts[j + 1])
            jv = None if j is None else j + 1
        out.append(make(crit, i, None if jv is None else float(vals[jv]), _CRITERION_TEXT[crit]))
    for c in constraints:
        cuts, (obj, cond) = values(_constraint_at_starts(c), c.maximize, c.where)
        obj, cond = obj[1:], cond[1:]
        ok = np.isfinite(cond)
        if c.at_least is not None:
            ok &= cond >= c.at_least - 1e-12
        if c.at_most is not None:
            ok &= cond <= c.at_most + 1e-12
        j = _best(np.where(ok, obj, np.nan))
        i = None if j is None else int(cuts[j + 1])
        out.append(make(c.name, i, None if j is None else _bounded(c.maximize, float(obj[j])), c.description))
    return tuple(out)


# --------------------------------------------------------------------------------------
# Prevalence shift
# --------------------------------------------------------------------------------------


def shift_prevalence(table: ScoreTable, prevalence: float) -> ScoreTable:
    """Reweight the classes so that positives make up ``prevalence`` of the total weight.

    Class-conditional score distributions are kept (TPR and FPR at every cut do not change);
    pos_i ← pos_i · π'm/P, neg_i ← neg_i · (1 − π')m/N, with m the total weight.
    """
    if not 0.0 < prevalence < 1.0:
        raise ValueError("prevalence must lie strictly between 0 and 1")
    P, N = table.total_pos, table.total_neg
    if P <= 0 or N <= 0:
        raise ValueError("prevalence shift needs both classes")
    m = P + N
    return reweighted(table, table.pos * (prevalence * m / P), table.neg * ((1 - prevalence) * m / N))


# --------------------------------------------------------------------------------------
# Curves
# --------------------------------------------------------------------------------------


def decimate(x: np.ndarray, y: np.ndarray, max_points: int = 1000, keep: np.ndarray | None = None) -> np.ndarray:
    """Indices of at most ~``max_points`` points of a polyline that keep its shape.

    Points are taken at equal steps of cumulative L1 arc length, plus the first and last and
    any indices in ``keep`` (e.g. convex-hull vertices), so that steps and corners survive.
    """
    n = x.shape[0]
    if n <= max_points:
        return np.arange(n)
    arc = np.empty(n)  # cumulative arc length from 0: the one n-long array beside x and y
    arc[0] = 0.0
    seg = arc[1:]  # |Δx| + |Δy| in the arc's place, then summed there
    np.subtract(x[1:], x[:-1], out=seg)
    np.abs(seg, out=seg)
    for lo in range(0, n - 1, HULL_BLOCK):  # |Δy| block by block: its temporaries stay small
        hi = min(lo + HULL_BLOCK, n - 1)
        seg[lo:hi] += np.abs(y[lo + 1 : hi + 1] - y[lo:hi])
    np.cumsum(seg, out=seg)
    targets = np.linspace(0.0, arc[-1], max_points)
    return _around(np.searchsorted(arc, targets, side="left"), n, keep)


def simplify(x: np.ndarray, y: np.ndarray, tolerance: float, keep: np.ndarray | None = None) -> np.ndarray:
    """Indices of the points of a polyline that Ramer–Douglas–Peucker keeps at ``tolerance``.

    Ramer (1972), Douglas & Peucker (1973): a span between two kept points keeps its point
    farthest from the chord (as a segment) when that distance exceeds ``tolerance``,
    and both halves are examined again; so every dropped point lies within ``tolerance`` of the
    polyline through the kept ones, and the kept points are exact points of the curve (a
    subset, never moved). The ends, ``keep`` (e.g. convex-hull vertices), every point with a
    non-finite coordinate (an undefined precision: a gap in the drawn line) and its neighbours
    are kept and split the curve first.

    Vectorised by level: every open span of a level is measured in one pass over its interior
    points (``np.maximum.reduceat`` over contiguous blocks), so the Python loop runs once per
    level of the recursion, not per point. Ties for the farthest point split at the first.
    """
    n = x.shape[0]
    if n <= 2:
        return np.arange(n)
    gap = ~(np.isfinite(x) & np.isfinite(y))
    kept = gap.copy()
    kept[1:] |= gap[:-1]  # a gap's neighbours end the drawn pieces on either side of it
    kept[:-1] |= gap[1:]
    kept[[0, n - 1]] = True
    if keep is not None:
        kept[np.asarray(keep, dtype=np.int64)] = True
    anchors = np.flatnonzero(kept)
    lo, hi = anchors[:-1], anchors[1:]
    while True:
        inner = hi - lo - 1
        lo, hi, inner = lo[inner > 0], hi[inner > 0], inner[inner > 0]
        if lo.size == 0:
            break
        span = np.repeat(np.arange(lo.size), inner)
        first = np.cumsum(inner) - inner  # where each span's block starts
        idx = lo[span] + 1 + (np.arange(span.size) - first[span])
        x0, y0 = x[lo][span], y[lo][span]
        dx, dy = x[hi][span] - x0, y[hi][span] - y0
        px, py = x[idx] - x0, y[idx] - y0
        # distance to the chord as a segment (the projection clamped to its ends): a point beyond
        # an end, e.g. a spike on a steep chord, is as far as it looks
        den = dx * dx + dy * dy
        t = np.clip(np.where(den > 0, (px * dx + py * dy) / np.where(den > 0, den, 1.0), 0.0), 0.0, 1.0)
        dist = np.hypot(px - t * dx, py - t * dy)
        far = np.maximum.reduceat(dist, first)
        split = far > tolerance
        if not split.any():
            break
        at_max = np.flatnonzero(dist == far[span])
        spans = span[at_max]  # ascending: the first farthest point of each span starts its run
        cut = idx[at_max[np.flatnonzero(np.concatenate([[True], spans[1:] != spans[:-1]]))]]
        kept[cut[split]] = True
        lo, hi = np.concatenate([lo[split], cut[split]]), np.concatenate([cut[split], hi[split]])
    return np.flatnonzero(kept)


def simplify_each(
    lines: Sequence[tuple[np.ndarray, np.ndarray, np.ndarray | None]], tolerance: float
) -> list[np.ndarray]:
    """:func:`simplify` of each polyline ``(x, y, keep)``: the indices each keeps, in one pass.

    The polylines are laid end to end with every end kept, so no span reaches from one into
    the next and each keeps exactly the points it keeps alone; they share the levels of the
    recursion, so the Python loop runs once per level for all of them, not once per level and
    polyline (a 1,000-row, two-model run simplifies 18 curves of ~1,000 points: 18-27 ms one by
    one, the numpy calls' overhead, against ~2 ms together).
    """
    if not lines:
        return []
    starts = np.cumsum([0] + [x.shape[0] for x, _, _ in lines])
    ends = [starts[:-1], starts[1:] - 1]  # an empty polyline's "ends" are its neighbours' ends (or the last point)
    keep = [np.asarray(k, dtype=np.int64) + a for (_, _, k), a in zip(lines, starts) if k is not None]
    x, y = np.concatenate([x for x, _, _ in lines]), np.concatenate([y for _, y, _ in lines])
    kept = simplify(x, y, tolerance, np.concatenate([*ends, *keep]).clip(0, max(x.shape[0] - 1, 0)))
    return [part - a for part, a in zip(np.split(kept, np.searchsorted(kept, starts[1:-1])), starts)]


def _around(idx: np.ndarray, n: int, keep: np.ndarray | None) -> np.ndarray:
    """The points at and just before each arc-length target, the ends, and ``keep``."""
    idx = np.clip(idx, 0, n - 1)
    parts = [idx, idx - 1, [0, n - 1]]
    if keep is not None:
        parts.append(keep)
    return sorted_unique(np.clip(np.concatenate([np.asarray(p, dtype=np.int64) for p in parts]), 0, n - 1))


def _decimate_by(arc_at, n: int, max_points: int, keep: np.ndarray | None = None) -> np.ndarray:
    """:func:`decimate` of a polyline whose arc length at any point is known in closed form.

    ``arc_at(i)`` gives the cumulative L1 arc length at points ``i`` (an index array),
    non-decreasing in i. The first point at or past each target is found by bisection over
    all ``max_points`` targets at once (about 20 vectorised steps), so no array of length n
    is formed. Equals :func:`decimate` up to rounding: ``decimate`` sums the segment
    lengths one by one, here the sum is taken in closed form.
    """
    if n <= max_points:
        return np.arange(n)
    targets = np.linspace(0.0, float(arc_at(np.array([n - 1]))[0]), max_points)
    lo = np.zeros(max_points, dtype=np.int64)
    hi = np.full(max_points, n, dtype=np.int64)  # n: past every point (then clipped)
    while True:
        open_ = lo < hi
        if not open_.any():
            break
        mid = (lo + hi) // 2
        reached = np.zeros(max_points, dtype=bool)
        reached[open_] = arc_at(mid[open_]) >= targets[open_]
        hi = np.where(open_ & reached, mid, hi)
        lo = np.where(open_ & ~reached, mid + 1, lo)
    return _around(lo, n, keep)


def decimate_roc_blocks(
    blocks: Iterable[tuple[np.ndarray, np.ndarray]], max_points: int
) -> tuple[np.ndarray, np.ndarray]:
    """The points of a ROC curve that :func:`decimate` keeps with its :func:`upper_hull`
    vertices, from the curve's points (fpr, tpr) in consecutive blocks, never all at once.

    The curve rises in both coordinates from (0, 0) to exactly (1, 1), so its L1 arc length at
    a point is fpr + tpr (the closed form of :func:`_decimate_by`) and the targets, evenly spaced
    over [0, 2], are known before the pass: each block finds its own by search and keeps the
    points at and just before each (:func:`_around`), with the ends. A vertex of the whole
    curve's upper hull is one of its block's, so the hull of the blocks' hull vertices is the
    whole curve's hull. Repeated points are dropped first as :func:`upper_hull` drops them (the
    last of each run kept, and of the copies of (0, 0) the first), each point once its successor
    is known. Equals ``decimate(fpr, tpr, max_points, keep=upper_hull(fpr, tpr))`` on the whole
    arrays except where a target lies within rounding of an arc length (``decimate`` sums the
    segments one by one); at most ``max_points`` points are all kept.
    """
    targets = np.linspace(0.0, 2.0, max_points)
    found = 0  # targets found so far (ascending, as the arc lengths are)
    picks: list[tuple[np.ndarray, np.ndarray, np.ndarray]] = []  # (global index, fpr, tpr)
    hulls: list[tuple[np.ndarray, np.ndarray, np.ndarray]] = []
    head: list[tuple[np.ndarray, np.ndarray, np.ndarray]] = []  # every point, while at most max_points
    n = 0  # points seen
    x = y = np.zeros(0)
    for bx, by in blocks:
        if not bx.shape[0]:
            continue
        # a chunk: the previous block's last point (its successor now known), then this block
        x, y = np.concatenate([x[-1:], bx]), np.concatenate([y[-1:], by])
        at = n - (1 if n else 0)  # global index of the chunk's first point
        n += bx.shape[0]
        if n <= max_points:
            head.append((at + np.arange(x.shape[0]), x, y))
        arc = x + y
        end = found + int(np.searchsorted(targets[found:], arc[-1], side="right"))
        local = np.searchsorted(arc, targets[found:end], side="left")
        found = end
        local = np.unique(np.concatenate([local, local - 1]).clip(0))  # target 0 picks point 0
        picks.append((at + local, x[local], y[local]))
        keep = np.flatnonzero(~_repeats(x, y, at))
        v = keep[upper_hull(x[keep], y[keep])]
        hulls.append((at + v, x[v], y[v]))
    if n == 0:
        return x, y
    last = (np.array([n - 1]), x[-1:], y[-1:])
    if n <= max_points:
        picks = head
    else:
        hulls.append(last)
        hi, hx, hy = (np.concatenate(a) for a in zip(*hulls))
        v = upper_hull(hx, hy)
        picks += [last, (hi[v], hx[v], hy[v])]
    idx, px, py = (np.concatenate(a) for a in zip(*picks))
    _, first = np.unique(idx, return_index=True)
    return px[first], py[first]


def _repeats(x: np.ndarray, y: np.ndarray, at: int) -> np.ndarray:
    """Which points of a chunk starting at global index ``at`` :func:`upper_hull` drops as
    repeats: a copy of its successor, or a copy of (0, 0) after the first point. The last
    point's successor is not known yet: True here, it is judged as the next chunk's first."""
    out = np.ones(x.shape[0], dtype=bool)
    np.logical_and(x[:-1] == x[1:], y[:-1] == y[1:], out=out[:-1])
    out[:-1] |= (x[:-1] == 0) & (y[:-1] == 0)
    if at == 0 and x.shape[0] > 1:
        out[0] = False  # the first point, kept
    return out


#: Points of one block of a pruning pass (:func:`upper_hull`): a micro-averaged curve has rows ×
#: classes points, and a pass over all at once held a dozen arrays of that length.
HULL_BLOCK = 1 << 18


def upper_hull(x: np.ndarray, y: np.ndarray) -> np.ndarray:
    """Indices of the upper convex hull of points sorted by ascending x (ROC convex hull).

    Vectorised pruning: each pass drops every point that lies on or below the chord of its
    current neighbours, all at once (a point below the segment between two points of the set
    is never a vertex of the upper hull, whether or not those two survive); passes repeat
    until none is dropped — about 15 on a million-point ROC curve.

    Repeated points (a score whose rows all weigh 0 repeats its neighbour's ROC point) are
    reduced to one first, the last of each repeat (the first point's copies go instead), as
    a monotone chain would keep them: with both copies present each lies on the "chord" of
    the other and a neighbour, and one pass would drop both, losing a vertex.
    """
    n = x.shape[0]
    if n > 2:
        drop = np.zeros(n, dtype=bool)
        np.logical_and(x[:-1] == x[1:], y[:-1] == y[1:], out=drop[:-1])
        if drop[0]:
            lead = int(np.argmin(drop))  # points 0..lead are copies of point 0
            drop[0] = False
            drop[1 : min(lead, n - 2) + 1] = True  # the last point is always kept
        # int32 positions where they fit: half the bytes of flatnonzero's int64 at every pass
        idx = np.arange(n, dtype=np.int32 if n <= np.iinfo(np.int32).max else np.int64)
        if drop.any():  # (no repeats, the usual case: no copy of the positions)
            idx = idx[~drop]
        del drop
    else:
        idx = np.arange(n)
    while idx.shape[0] > 2:
        # a pass's flags are the points kept (ends, and every point strictly above its chord):
        # one bool array beside the positions and their kept copy
        keep = np.ones(idx.shape[0], dtype=bool)
        for lo in range(0, idx.shape[0] - 2, HULL_BLOCK):  # in blocks: a pass's temporaries stay small
            i = idx[lo : lo + HULL_BLOCK + 2]
            xa, ya = x[i[:-2]], y[i[:-2]]
            xb, yb = x[i[1:-1]], y[i[1:-1]]
            xc, yc = x[i[2:]], y[i[2:]]
            cross = (xb - xa) * (yc - ya) - (yb - ya) * (xc - xa)
            flags = keep[lo + 1 : lo + 1 + cross.shape[0]]
            np.logical_not(cross >= 0, out=flags)  # b is strictly above the chord a-c (NaN: kept)
        if keep.all():
            break
        idx = idx[keep]
    return idx


def probability_cost(prevalence: float, costs: Costs) -> float:
    """PC(+) = p·C(FN) / (p·C(FN) + (1 − p)·C(FP)) (Drummond & Holte 2006)."""
    a = prevalence * (costs.fn - costs.tp)
    b = (1 - prevalence) * (costs.fp - costs.tn)
    return float(a / (a + b)) if (a + b) > 0 else 0.5


def _even_indices(n: int, max_points: int) -> np.ndarray:
    """``decimate(np.arange(n), np.zeros(n), max_points)`` without the length-n arrays.

    On that polyline the arc length at point i is exactly i, so the first point at or past
    target t is ceil(t).
    """
    if n <= max_points:
        return np.arange(n)
    targets = np.linspace(0.0, float(n - 1), max_points)
    idx = np.minimum(np.ceil(targets).astype(np.int64), n - 1)
    return sorted_unique(np.clip(np.concatenate([idx, idx - 1, [0, n - 1]]), 0, n - 1))


def _roc_hull(table: ScoreTable, fpr, tpr) -> np.ndarray:
    """:func:`upper_hull` of the ROC points, searched among run starts and the last cut.

    ``fpr`` / ``tpr`` map cut indices to rates. A hull vertex turns from a step up to a
    step right; a point inside a run of negatives-only steps lies on a horizontal segment
    between its neighbours, so it is never a vertex. Needs :meth:`ScoreTable.run_starts`.
    """
    starts = table.run_starts()
    assert starts is not None, "_roc_hull needs the table's run starts"
    tp, fp = table.cumulative_view()
    k = table.n_distinct
    cand = starts if starts[-1] == k else np.append(starts, k)
    hull = cand[upper_hull(fpr(cand), tpr(cand))]
    # a run start followed by scores of zero weight repeats its point; upper_hull keeps the
    # last copy, so name that one (the counts are non-decreasing, so it is found by search)
    hull[1:] = (
        np.minimum(np.searchsorted(fp, fp[hull[1:]], side="right"), np.searchsorted(tp, tp[hull[1:]], side="right")) - 1
    )
    return hull


def compute_curves(
    table: ScoreTable,
    threshold: float,
    beta: float = 1.0,
    costs: Costs = Costs(),
    max_points: int = 1000,
    grid: int = 201,
) -> BinaryCurves:
    """ROC, PR, metric-vs-threshold, KS and cost curves, decimated for drawing.

    Metric-vs-threshold curves use the share of rows flagged (predicted positive) as x, so
    that models on different score scales can be overlaid; each point keeps its threshold.
    They and the KS curve are evaluated only at the (evenly spaced) cuts they keep.

    Cost curve (Drummond & Holte 2006): each ROC point (FPR, TPR) is the line
    NEC(pc) = (1 − TPR − FPR)·pc + FPR over pc ∈ [0, 1]; the model's cost curve is the lower
    envelope of those lines, attained on the ROC convex hull.
    """
    tp, fp = table.cumulative_view()
    P, N = table.total_pos, table.total_neg
    k = table.n_distinct
    starts = table.run_starts()
    if starts is None:  # a class is absent (or a count is negative): whole arrays, as drawn
        return _curves_by_arrays(table, threshold, beta, costs, max_points)

    def tpr(i: np.ndarray) -> np.ndarray:
        return tp[i] / P

    def fpr(i: np.ndarray) -> np.ndarray:
        return fp[i] / N

    def prec(i: np.ndarray) -> np.ndarray:  # precision, 0 where undefined (for arc lengths)
        num = tp[i]
        den = num + fp[i]
        np.divide(num, den, out=num, where=den != 0)
        num[den == 0] = 0.0
        return num

    # ROC: both coordinates rise, so the arc length at cut i is FPR + TPR
    hull = _roc_hull(table, fpr, tpr)
    sel = _decimate_by(lambda i: fpr(i) + tpr(i), k + 1, max_points, keep=hull)
    thr_sel = np.where(sel > 0, table.thresholds[np.maximum(sel - 1, 0)], np.nan)
    roc = Curve(fpr(sel), tpr(sel), thr_sel)
    # PR over cuts 1..k: recall rises; precision falls along each run (TP fixed) and jumps
    # between runs, so its variation is summed per run and read off within one
    first = starts[1:]
    last = np.append(first[1:] - 1, k)
    p_first, p_last, r_first = prec(first), prec(last), tpr(first)
    step = np.zeros(first.shape[0])
    step[1:] = (p_first[:-1] - p_last[:-1]) + np.abs(r_first[1:] - r_first[:-1]) + np.abs(p_first[1:] - p_last[:-1])
    del last, p_last, r_first
    arc_first = np.cumsum(step, out=step)

    def pr_arc(j: np.ndarray) -> np.ndarray:  # j: index into cuts 1..k
        r = np.searchsorted(first, j + 1, side="right") - 1
        return arc_first[r] + (p_first[r] - prec(j + 1))

    sel_pr = _decimate_by(pr_arc, k, max_points)
    pr = Curve(tpr(sel_pr + 1), _div(tp[sel_pr + 1], tp[sel_pr + 1] + fp[sel_pr + 1]), table.thresholds[sel_pr])
    tm, ks = _threshold_curves(table, tp, fp, beta, costs, max_points)
    cost = _cost_curve(table, threshold, costs, fpr(hull), tpr(hull), grid)
    return BinaryCurves(roc=roc, pr=pr, threshold_metrics=tm, cost=cost, ks=ks)


def _threshold_curves(
    table: ScoreTable, tp: np.ndarray, fp: np.ndarray, beta: float, costs: Costs, max_points: int
) -> tuple[dict[str, Curve], KsCurve]:
    """Metric-vs-share-flagged curves and the KS curve at evenly spaced cuts 1..k."""
    P, N = table.total_pos, table.total_neg
    names = ("f1", "mcc", "cohen_kappa", "balanced_accuracy")
    t_sel = _even_indices(table.n_distinct, max_points)
    tp_t, fp_t = tp[1:][t_sel], fp[1:][t_sel]
    arr = metric_arrays(tp_t, fp_t, P, N, beta, costs, names=names)
    flagged = (tp_t + fp_t) / (P + N)  # comparable across models with different score scales
    thr_t = table.thresholds[t_sel]
    tm = {name: Curve(flagged, arr[name], thr_t) for name in names}
    tpr_t = tp_t / P if P > 0 else np.zeros_like(tp_t)
    fpr_t = fp_t / N if N > 0 else np.zeros_like(fp_t)
    return tm, KsCurve(thr_t, tpr_t, fpr_t)


def _cost_curve(
    table: ScoreTable, threshold: float, costs: Costs, hf: np.ndarray, ht: np.ndarray, grid: int
) -> CostCurve | None:
    """Lower envelope of the cost lines of the ROC hull points (FPR ``hf``, TPR ``ht``)."""
    P, N = table.total_pos, table.total_neg
    if not (P > 0 and N > 0):
        return None
    tp, fp = table.cumulative_view()
    pc = np.linspace(0.0, 1.0, grid)
    nec = (1.0 - ht - hf)[:, None] * pc[None, :] + hf[:, None]
    env = nec.min(axis=0)
    i = table.cut_index(threshold)
    return CostCurve(pc, env, probability_cost(P / (P + N), costs), (float(fp[i] / N), float(tp[i] / P)))


def _curves_by_arrays(table: ScoreTable, threshold: float, beta: float, costs: Costs, max_points: int) -> BinaryCurves:
    """:func:`compute_curves` on whole arrays (tables without runs: one class, or negative counts)."""
    tp, fp = table.cumulative_view()
    P, N = table.total_pos, table.total_neg
    tpr = tp / P if P > 0 else np.zeros_like(tp)
    fpr = fp / N if N > 0 else np.zeros_like(fp)
    hull = upper_hull(fpr, tpr)
    sel = decimate(fpr, tpr, max_points, keep=hull)
    thr = np.concatenate([[np.nan], table.thresholds])
    roc = Curve(fpr[sel], tpr[sel], thr[sel])
    prec = _div(tp[1:], tp[1:] + fp[1:])
    rec = tpr[1:]
    sel_pr = decimate(rec, np.nan_to_num(prec), max_points)
    pr = Curve(rec[sel_pr], prec[sel_pr], table.thresholds[sel_pr])
    tm, ks = _threshold_curves(table, tp, fp, beta, costs, max_points)
    return BinaryCurves(roc=roc, pr=pr, threshold_metrics=tm, cost=None, ks=ks)
