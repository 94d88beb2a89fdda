"""Binary metrics (reportgen.engine.binary) against scikit-learn, SciPy and brute force.

Every metric scikit-learn implements is compared with it on data with and without ties and
with integer and fractional weights; the rest (type I/II error shares, expected cost,
R-precision, defective pairs, KS) against brute force over rows, pairs or tie orders.
Threshold rule throughout: positive when ``score >= t`` (higher) / ``score <= t`` (lower).
"""

from __future__ import annotations

import itertools
import json
import math
import warnings

import numpy as np
import pytest
from oracles import monotone_chain_upper
from scipy.stats import ks_2samp
from sklearn.metrics import (
    accuracy_score,
    average_precision_score,
    balanced_accuracy_score,
    brier_score_loss,
    cohen_kappa_score,
    confusion_matrix,
    f1_score,
    fbeta_score,
    log_loss,
    matthews_corrcoef,
    precision_score,
    recall_score,
    roc_auc_score,
    roc_curve,
    zero_one_loss,
)

from reportgen.engine import binary as B
from reportgen.engine.curve import build_table
from reportgen.report.wording import optimum_label, undefined_text

CASES = ["distinct", "ties", "int_weights", "frac_weights", "ties_frac_weights"]
COSTS = B.Costs(fn=5.0, fp=1.0, tp=0.25, tn=0.1)
BETA = 2.0


def make_case(kind: str, n: int = 300, seed: int = 0, prob: bool = True):
    """Probabilities in (0, 1) (or raw scores), boolean labels, weights or None."""
    rng = np.random.default_rng(seed)
    y = rng.random(n) < 0.3
    z = rng.normal(size=n) + 1.0 * y
    s = 1.0 / (1.0 + np.exp(-z)) if prob else z * 10.0
    if "ties" in kind:
        s = np.round(s, 1 if prob else 0)
    w = None
    if kind == "int_weights":
        w = rng.integers(1, 5, size=n).astype(float)
    elif "frac_weights" in kind:
        w = rng.uniform(0.05, 3.0, size=n)
    return s, y, w


def predict(s, t, direction="higher"):
    return s >= t if direction == "higher" else s <= t


def sk_threshold_metrics(y, pred, w, beta=BETA, costs=COSTS) -> dict[str, float]:
    """Every threshold metric by scikit-learn (or from its confusion matrix when it has none)."""
    yi, pi = y.astype(int), pred.astype(int)
    tn, fp, fn, tp = confusion_matrix(yi, pi, labels=[0, 1], sample_weight=w).ravel()
    m = tn + fp + fn + tp
    P, N = tp + fn, tn + fp
    majority = int(P > N)
    spec = recall_score(yi, pi, pos_label=0, sample_weight=w)
    rec = recall_score(yi, pi, sample_weight=w)
    return {
        "accuracy": accuracy_score(yi, pi, sample_weight=w),
        "error_rate": zero_one_loss(yi, pi, sample_weight=w),
        "baseline_accuracy": accuracy_score(yi, np.full_like(yi, majority), sample_weight=w),
        "precision": precision_score(yi, pi, sample_weight=w),
        "recall": rec,
        "specificity": spec,
        "npv": precision_score(yi, pi, pos_label=0, sample_weight=w),
        "fpr": 1.0 - spec,
        "fnr": 1.0 - rec,
        "type_i_error": fp / m,
        "type_ii_error": fn / m,
        "f1": f1_score(yi, pi, sample_weight=w),
        "fbeta": fbeta_score(yi, pi, beta=beta, sample_weight=w),
        "balanced_accuracy": balanced_accuracy_score(yi, pi, sample_weight=w),
        "youden_j": balanced_accuracy_score(yi, pi, sample_weight=w, adjusted=True),
        "cohen_kappa": cohen_kappa_score(yi, pi, sample_weight=w),
        "mcc": matthews_corrcoef(yi, pi, sample_weight=w),
        "expected_cost": (costs.fn * fn + costs.fp * fp + costs.tp * tp + costs.tn * tn) / m,
    }


def thresholds_to_probe(s):
    """A score value in the middle (exactly equal to some rows' score), plus a mid-point."""
    d = np.unique(s)
    k = len(d) // 2
    return [float(d[k]), float((d[k // 2] + d[k // 2 + 1]) / 2), float(d[(3 * len(d)) // 4])]


def assert_no_nan(values: dict) -> None:
    for k, v in values.items():
        assert v is None or math.isfinite(v), (k, v)
    json.dumps(values, allow_nan=False)


# --------------------------------------------------------------------------------------
# Threshold metrics vs scikit-learn
# --------------------------------------------------------------------------------------


@pytest.mark.parametrize("kind", CASES)
def test_threshold_metrics_match_sklearn(kind):
    s, y, w = make_case(kind)
    table = build_table(s, y, w)
    for t in thresholds_to_probe(s):
        bm = B.compute_metrics(table, t, beta=BETA, costs=COSTS)
        want = sk_threshold_metrics(y, predict(s, t), w)
        for name in B.THRESHOLD_METRICS:
            assert bm.get(name) == pytest.approx(want[name], rel=1e-10, abs=1e-12), (kind, t, name)
        assert bm.undefined == () or all(u.metric in ("log_loss", "brier") for u in bm.undefined)


@pytest.mark.parametrize("kind", CASES)
def test_confusion_matches_sklearn_and_threshold_is_inclusive(kind):
    s, y, w = make_case(kind, seed=1)
    table = build_table(s, y, w)
    t = float(np.unique(s)[len(np.unique(s)) // 3])  # exactly a score value
    assert np.any(s == t)
    bm = B.compute_metrics(table, t)
    tn, fp, fn, tp = confusion_matrix(y, s >= t, labels=[False, True], sample_weight=w).ravel()
    c = bm.confusion
    assert (c.tp, c.fp, c.fn, c.tn) == pytest.approx((tp, fp, fn, tn), abs=1e-9)
    assert bm.threshold == t
    # the rows scored exactly t are predicted positive: moving t just above drops them
    above = B.compute_metrics(table, float(np.nextafter(t, np.inf))).confusion
    wt = np.ones_like(s) if w is None else w
    assert c.tp - above.tp == pytest.approx(wt[(s == t) & y].sum())
    assert c.fp - above.fp == pytest.approx(wt[(s == t) & ~y].sum())


@pytest.mark.parametrize("beta", [0.5, 1.0, 3.0])
def test_fbeta_for_several_betas(beta):
    s, y, w = make_case("ties_frac_weights", seed=2)
    t = thresholds_to_probe(s)[0]
    bm = B.compute_metrics(build_table(s, y, w), t, beta=beta)
    pred = predict(s, t)
    assert bm.get("fbeta") == pytest.approx(fbeta_score(y, pred, beta=beta, sample_weight=w), rel=1e-12)
    assert bm.get("f1") == pytest.approx(f1_score(y, pred, sample_weight=w), rel=1e-12)


# --------------------------------------------------------------------------------------
# Ranking metrics vs scikit-learn / SciPy
# --------------------------------------------------------------------------------------


@pytest.mark.parametrize("kind", CASES)
def test_ranking_metrics_match_sklearn(kind):
    s, y, w = make_case(kind, seed=4)
    bm = B.compute_metrics(build_table(s, y, w), 0.5)
    auc = roc_auc_score(y, s, sample_weight=w)
    assert bm.get("roc_auc") == pytest.approx(auc, rel=1e-12)
    assert bm.get("gini") == pytest.approx(2 * auc - 1, rel=1e-12)
    assert bm.get("average_precision") == pytest.approx(average_precision_score(y, s, sample_weight=w), rel=1e-12)
    assert bm.get("log_loss") == pytest.approx(log_loss(y, s, sample_weight=w), rel=1e-12)
    assert bm.get("brier") == pytest.approx(brier_score_loss(y, s, sample_weight=w), rel=1e-12)
    assert bm.probabilities


def test_log_loss_clips_like_sklearn_at_zero_and_one():
    s = np.array([0.0, 1.0, 0.0, 1.0, 0.3, 0.7])
    y = np.array([0, 1, 1, 0, 0, 1], dtype=bool)  # two confident mistakes
    bm = B.compute_metrics(build_table(s, y), 0.5)
    assert bm.get("log_loss") == pytest.approx(log_loss(y, s), rel=1e-12)
    assert bm.get("brier") == pytest.approx(brier_score_loss(y, s), rel=1e-12)


def test_losses_undefined_for_non_probabilities_with_reason():
    s, y, _ = make_case("distinct", prob=False)
    bm = B.compute_metrics(build_table(s, y), 0.0)
    assert bm.get("log_loss") is None and bm.get("brier") is None
    reasons = {u.metric: undefined_text(u.metric, u.reason) for u in bm.undefined}
    assert "outside [0, 1]" in reasons["log_loss"] and "brier" in reasons
    assert not bm.probabilities
    p, y, _ = make_case("distinct")
    lo = B.compute_metrics(build_table(-p, y, direction="lower"), -0.5)
    assert (
        lo.get("log_loss") is None
        and "direction" in {u.metric: undefined_text(u.metric, u.reason) for u in lo.undefined}["log_loss"]
    )
    off = B.compute_metrics(build_table(p, y), 0.5, probabilities=False)
    assert (
        off.get("brier") is None
        and "declared" in {u.metric: undefined_text(u.metric, u.reason) for u in off.undefined}["brier"]
    )


@pytest.mark.parametrize("kind", ["distinct", "ties"])
def test_ks_matches_scipy_two_sample_statistic(kind):
    s, y, _ = make_case(kind, seed=6)
    bm = B.compute_metrics(build_table(s, y), 0.5)
    # the positives score higher here, so the one-sided and two-sided statistics coincide
    assert bm.get("ks") == pytest.approx(ks_2samp(s[y], s[~y]).statistic, rel=1e-12)
    # KS is attained at ks_threshold: TPR - FPR there equals KS
    t = bm.ks_threshold
    tpr = np.mean(s[y] >= t)
    fpr = np.mean(s[~y] >= t)
    assert tpr - fpr == pytest.approx(bm.get("ks"), rel=1e-12)


def test_ks_is_directional_like_scipy_one_sided():
    """The engine's KS is max(TPR − FPR) in the declared direction (0 for an inverted score)."""
    rng = np.random.default_rng(3)
    for _ in range(20):
        n = 60
        y = rng.random(n) < 0.5
        s = np.round(rng.normal(size=n) + rng.normal() * y, 1)
        if y.all() or not y.any():
            continue
        ks = B.compute_metrics(build_table(s, y), 0.0).get("ks")
        # scipy 'greater': max(F_neg − F_pos), i.e. positives' scores stochastically larger
        assert ks == pytest.approx(ks_2samp(s[~y], s[y], alternative="greater").statistic, abs=1e-12)


@pytest.mark.parametrize("kind", CASES)
def test_defective_pairs_vs_brute_force_pair_count(kind):
    s, y, w = make_case(kind, n=60, seed=8)
    wt = np.ones_like(s) if w is None else w
    bad = 0.0
    # weights are frequency weights: a row of weight w stands for w rows, so the w(w-1)/2
    # pairs among its own copies count (same label, never defective)
    total = float(np.sum(wt * (wt - 1.0)) / 2.0)
    for i, j in itertools.combinations(range(len(s)), 2):
        ww = wt[i] * wt[j]
        total += ww
        if y[i] == y[j]:
            continue
        p, q = (i, j) if y[i] else (j, i)
        if s[p] < s[q]:
            bad += ww
        elif s[p] == s[q]:
            bad += 0.5 * ww
    bm = B.compute_metrics(build_table(s, y, w), 0.5)
    assert bm.get("defective_pairs") == pytest.approx(bad / total, rel=1e-10)


def test_defective_pairs_integer_weights_equal_repeated_rows():
    s, y, w = make_case("int_weights", n=50, seed=9)
    rep = w.astype(int)
    a = B.compute_metrics(build_table(s, y, w), 0.5)
    b = B.compute_metrics(build_table(np.repeat(s, rep), np.repeat(y, rep)), 0.5)
    for name in B.METRICS:
        assert a.get(name) == pytest.approx(b.get(name), rel=1e-12, abs=1e-14), name


def test_roc_auc_ties_count_half_mann_whitney():
    s, y, _w = make_case("ties", n=80, seed=10)
    pos, neg = s[y], s[~y]
    u = sum((p > q) + 0.5 * (p == q) for p in pos for q in neg)
    bm = B.compute_metrics(build_table(s, y), 0.5)
    assert bm.get("roc_auc") == pytest.approx(u / (len(pos) * len(neg)), rel=1e-12)


def test_curves_roc_points_match_sklearn_when_not_decimated():
    s, y, w = make_case("ties_frac_weights", n=150, seed=12)
    table = build_table(s, y, w)
    curves = B.compute_curves(table, 0.5)
    fpr, tpr, _ = roc_curve(y, s, sample_weight=w, drop_intermediate=False)
    np.testing.assert_allclose(curves.roc.x, fpr, atol=1e-12)
    np.testing.assert_allclose(curves.roc.y, tpr, atol=1e-12)
    # the cost-curve envelope never exceeds the trivial classifiers' lines min(pc, 1 - pc)
    pc = curves.cost.pc
    assert np.all(curves.cost.envelope <= np.minimum(pc, 1 - pc) + 1e-12)


# --------------------------------------------------------------------------------------
# Direction
# --------------------------------------------------------------------------------------


@pytest.mark.parametrize("kind", CASES)
def test_direction_lower_with_negated_scores_equals_higher(kind):
    s, y, w = make_case(kind, seed=14)
    hi_t = build_table(s, y, w, "higher")
    lo_t = build_table(-s, y, w, "lower")
    for t in thresholds_to_probe(s):
        hi = B.compute_metrics(hi_t, t, beta=BETA, costs=COSTS)
        lo = B.compute_metrics(lo_t, -t, beta=BETA, costs=COSTS)
        assert lo.confusion == hi.confusion
        for name in B.METRICS:
            if name in ("log_loss", "brier"):
                continue  # "lower" scores are not probabilities
            assert lo.get(name) == pytest.approx(hi.get(name), rel=1e-12, abs=1e-15), name
        assert lo.ks_threshold == -hi.ks_threshold
    for a, b in zip(B.optimal_thresholds(lo_t, BETA, COSTS), B.optimal_thresholds(hi_t, BETA, COSTS)):
        assert a.criterion == b.criterion
        assert (a.tp, a.fp, a.fn, a.tn) == (b.tp, b.fp, b.fn, b.tn)
        assert a.value == pytest.approx(b.value, rel=1e-12)
        assert (a.threshold is None and b.threshold is None) or a.threshold == -b.threshold


def test_direction_lower_matches_sklearn_on_original_scores():
    """A scorecard (higher = safer): positive when points <= t; sklearn sees the negated score."""
    rng = np.random.default_rng(15)
    y = rng.random(400) < 0.2
    points = np.round(600 - 40 * y + rng.normal(0, 30, size=400))
    t = 560.0
    bm = B.compute_metrics(build_table(points, y, direction="lower"), t, beta=BETA, costs=COSTS)
    want = sk_threshold_metrics(y, points <= t, None)
    for name in B.THRESHOLD_METRICS:
        assert bm.get(name) == pytest.approx(want[name], rel=1e-12, abs=1e-15), name
    assert bm.get("roc_auc") == pytest.approx(roc_auc_score(y, -points), rel=1e-12)
    assert bm.get("average_precision") == pytest.approx(average_precision_score(y, -points), rel=1e-12)


# --------------------------------------------------------------------------------------
# Optimal thresholds vs brute force
# --------------------------------------------------------------------------------------


def _sk_criterion(crit, y, pred, w, vals):
    if crit == "break_even":
        tp = float(np.sum((np.ones_like(y, float) if w is None else w)[pred & y]))
        if tp == 0:
            return math.nan  # P = R = 0 is not a break-even point
        p = precision_score(y, pred, sample_weight=w)
        r = recall_score(y, pred, sample_weight=w)
        return -abs(p - r)  # maximise the negated gap
    return -vals["expected_cost"] if crit == "expected_cost" else vals[crit]


def brute_optima(s, y, w, direction="higher"):
    """For each criterion: (threshold, value, tp, fp) of the first best cut, most positive first."""
    d = np.unique(s)
    order = d[::-1] if direction == "higher" else d
    wt = np.ones_like(s) if w is None else w
    out = {}
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        cuts = [(float(t), predict(s, t, direction)) for t in order]
        nothing = (None, np.zeros_like(y))  # "predict nothing": a candidate for expected cost
        # scikit-learn's metrics once per cut (not once per cut and criterion)
        sk = {id(p): sk_threshold_metrics(y, p, w) for _, p in [nothing, *cuts]}
        for crit in B.CRITERIA:
            cands = [nothing, *cuts] if crit == "expected_cost" else cuts
            scores = np.array([_sk_criterion(crit, y, p, w, sk[id(p)]) for _, p in cands])
            best = np.nanmax(scores)
            j = int(np.flatnonzero(scores >= best - 1e-12)[0])
            t, p = cands[j]
            if crit == "break_even":
                value = (precision_score(y, p, sample_weight=w) + recall_score(y, p, sample_weight=w)) / 2
            elif crit == "expected_cost":
                value = -best
            else:
                value = best
            out[crit] = (t, value, float(wt[p & y].sum()), float(wt[p & ~y].sum()))
    return out


@pytest.mark.slow
@pytest.mark.parametrize("direction", ["higher", "lower"])
@pytest.mark.parametrize("kind", CASES)
def test_optimal_thresholds_match_brute_force(kind, direction):
    s, y, w = make_case(kind, n=100, seed=16)
    if direction == "lower":
        s = -s
    table = build_table(s, y, w, direction)
    want = brute_optima(s, y, w, direction)
    P, N = table.total_pos, table.total_neg
    got = {o.criterion: o for o in B.optimal_thresholds(table, BETA, COSTS)}
    assert tuple(got) == B.CRITERIA
    for crit, (t, value, tp, fp) in want.items():
        o = got[crit]
        assert o.threshold == t, crit
        assert o.value == pytest.approx(value, rel=1e-10), crit
        assert (o.tp, o.fp) == pytest.approx((tp, fp), abs=1e-9), crit
        assert (o.fn, o.tn) == pytest.approx((P - tp, N - fp), abs=1e-9), crit
        # applying the reported threshold with the rule reproduces the counts
        if o.threshold is not None:
            c = B.compute_metrics(table, o.threshold, BETA, COSTS).confusion
            assert (c.tp, c.fp) == pytest.approx((o.tp, o.fp), abs=1e-9)


def test_youden_and_balanced_accuracy_optima_coincide():
    s, y, w = make_case("ties_frac_weights", seed=17)
    got = {o.criterion: o for o in B.optimal_thresholds(build_table(s, y, w))}
    assert got["youden_j"].threshold == got["balanced_accuracy"].threshold
    assert got["youden_j"].value == pytest.approx(2 * got["balanced_accuracy"].value - 1)


def test_expected_cost_can_choose_to_predict_nothing():
    s, y, _ = make_case("distinct", seed=18)
    y[np.argmax(s)] = False  # the top-scored row is a negative, so every cut flags one
    costs = B.Costs(fn=1.0, fp=100.0)  # flagging a negative is ruinous
    o = {o.criterion: o for o in B.optimal_thresholds(build_table(s, y), costs=costs)}["expected_cost"]
    assert o.threshold is None
    assert (o.tp, o.fp) == (0.0, 0.0)
    assert o.value == pytest.approx(y.sum() / len(y))  # every positive missed at cost 1


def test_ties_between_cuts_pick_the_highest_threshold():
    # accuracy is 3/4 at t = 0.8 and at t = 0.4 (exactly): the higher threshold wins
    s = np.array([0.9, 0.8, 0.4, 0.3])
    y = np.array([1, 0, 1, 0], dtype=bool)
    # cuts: {0.9}: TP1 TN2 FN1 -> 3/4 ; {0.9,0.8}: 2/4 ; {.., 0.4}: 3/4 ; all: 2/4
    o = {o.criterion: o for o in B.optimal_thresholds(build_table(s, y))}
    assert o["accuracy"].threshold == 0.9 and o["accuracy"].value == 0.75
    lo = {o.criterion: o for o in B.optimal_thresholds(build_table(-s, y, direction="lower"))}
    assert lo["accuracy"].threshold == -0.9


def test_break_even_is_not_the_trivial_cut_with_no_true_positives():
    """Regression: the top-scored row is a negative, so the first cut has P = R = 0.

    Before the fix, break_even picked that cut (gap 0) and reported value 0.0 — seen on the
    demo's "naive" model (threshold 0.434, TP 0, FP 1).
    """
    s = np.array([0.95, 0.9, 0.8, 0.7, 0.6, 0.5, 0.4, 0.3])
    y = np.array([0, 1, 1, 0, 1, 0, 0, 0], dtype=bool)  # P = 3
    o = {o.criterion: o for o in B.optimal_thresholds(build_table(s, y))}["break_even"]
    assert o.tp > 0
    assert o.threshold == 0.8  # top 3 rows: TP 2, FP 1 -> precision = recall = 2/3
    assert o.value == pytest.approx(2 / 3)
    assert o.value == pytest.approx(B.compute_metrics(build_table(s, y), 0.5).get("r_precision"))


@pytest.mark.slow
@pytest.mark.parametrize("kind", CASES)
def test_constraint_rules_match_brute_force(kind):
    s, y, w = make_case(kind, n=80, seed=19)
    table = build_table(s, y, w)
    rules = (
        B.Constraint("precision", "recall", at_least=0.8),
        B.Constraint("recall", "fpr", at_most=0.1),
        B.Constraint("f1", "specificity", at_least=0.5),
    )
    got = {o.criterion: o for o in B.optimal_thresholds(table, BETA, COSTS, rules)}
    d = np.unique(s)[::-1]
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        sk = {float(t): sk_threshold_metrics(y, s >= t, w) for t in d}
        for c in rules:
            best = None
            for t in d:
                m = sk[float(t)]
                cond = m[c.where]
                ok = cond >= c.at_least - 1e-12 if c.at_least is not None else cond <= c.at_most + 1e-12
                if ok and (best is None or m[c.maximize] > best[1] + 1e-12):
                    best = (float(t), m[c.maximize])
            o = got[c.name]
            assert o.threshold == best[0], c.name
            assert o.value == pytest.approx(best[1], rel=1e-10)
            assert o.description == c.description


def test_unsatisfiable_constraint_is_none_not_nan():
    s, y, _ = make_case("distinct", seed=20)
    rule = B.Constraint("recall", "precision", at_least=1.5)
    o = B.optimal_thresholds(build_table(s, y), constraints=(rule,))[-1]
    assert o.criterion == rule.name and o.threshold is None and o.value is None
    assert o.description == rule.description  # the label; the report marks it undefined (value None)
    assert optimum_label(o.criterion, o, {}) == f"{rule.description} (undefined on these data)"


# --------------------------------------------------------------------------------------
# Undefined cases
# --------------------------------------------------------------------------------------


def test_only_positives_gives_none_with_reasons():
    s = np.array([0.2, 0.4, 0.6, 0.8])
    y = np.ones(4, dtype=bool)
    bm = B.compute_metrics(build_table(s, y), 0.5)
    vals = bm.as_dict()
    assert_no_nan(vals)
    reasons = {u.metric: undefined_text(u.metric, u.reason) for u in bm.undefined}
    for name in (
        "roc_auc",
        "gini",
        "ks",
        "defective_pairs",
        "specificity",
        "fpr",
        "balanced_accuracy",
        "youden_j",
        "mcc",
    ):
        assert vals[name] is None, name
        assert reasons[name], name
    assert vals["precision"] == 1.0 and vals["recall"] == 0.5
    assert set(reasons) == {k for k, v in vals.items() if v is None}
    for o in B.optimal_thresholds(build_table(s, y), constraints=(B.Constraint("precision", "fpr", at_most=0.1),)):
        assert o.value is None or math.isfinite(o.value)


def test_only_negatives_gives_none_with_reasons():
    s = np.array([0.2, 0.4, 0.6, 0.8])
    y = np.zeros(4, dtype=bool)
    bm = B.compute_metrics(build_table(s, y), 0.5)
    vals = bm.as_dict()
    assert_no_nan(vals)
    reasons = {u.metric: undefined_text(u.metric, u.reason) for u in bm.undefined}
    for name in ("recall", "fnr", "roc_auc", "average_precision", "r_precision", "ks", "balanced_accuracy"):
        assert vals[name] is None and reasons[name], name
    assert "no positives" in reasons["average_precision"]
    assert vals["specificity"] == 0.5
    assert set(reasons) == {k for k, v in vals.items() if v is None}
    for o in B.optimal_thresholds(build_table(s, y)):
        assert o.value is None or math.isfinite(o.value)


def test_no_predicted_positives_gives_none_precision_with_reason():
    s, y, _ = make_case("distinct", seed=21)
    bm = B.compute_metrics(build_table(s, y), float(s.max()) + 0.01)
    vals = bm.as_dict()
    assert_no_nan(vals)
    reasons = {u.metric: undefined_text(u.metric, u.reason) for u in bm.undefined}
    assert vals["precision"] is None and "no row predicted positive" in reasons["precision"]
    assert vals["mcc"] is None and reasons["mcc"]
    assert vals["recall"] == 0.0 and vals["f1"] == 0.0  # 2TP / (2TP + FP + FN) = 0 / FN
    assert vals["cohen_kappa"] == 0.0
    assert vals["specificity"] == 1.0
    c = bm.confusion
    assert c.tp == 0 and c.fp == 0


def test_all_predicted_positive_gives_none_npv():
    s, y, _ = make_case("distinct", seed=22)
    bm = B.compute_metrics(build_table(s, y), float(s.min()))
    assert (
        bm.get("npv") is None
        and "no row predicted negative" in {u.metric: undefined_text(u.metric, u.reason) for u in bm.undefined}["npv"]
    )
    assert bm.get("recall") == 1.0
    assert_no_nan(bm.as_dict())


# --------------------------------------------------------------------------------------
# Prevalence shift
# --------------------------------------------------------------------------------------


@pytest.mark.parametrize("prevalence", [0.02, 0.3, 0.5, 0.9])
@pytest.mark.parametrize("kind", ["ties", "frac_weights"])
def test_shift_prevalence_keeps_rates_and_sets_prevalence(kind, prevalence):
    s, y, w = make_case(kind, seed=23)
    t0 = build_table(s, y, w)
    t1 = B.shift_prevalence(t0, prevalence)
    assert t1.total_pos / t1.total == pytest.approx(prevalence, rel=1e-12)
    assert t1.total == pytest.approx(t0.total, rel=1e-12)
    np.testing.assert_array_equal(t1.thresholds, t0.thresholds)
    tp0, fp0 = t0.cumulative()
    tp1, fp1 = t1.cumulative()
    np.testing.assert_allclose(tp1 / t1.total_pos, tp0 / t0.total_pos, rtol=1e-12, atol=1e-15)
    np.testing.assert_allclose(fp1 / t1.total_neg, fp0 / t0.total_neg, rtol=1e-12, atol=1e-15)
    a = B.compute_metrics(t0, 0.5)
    b = B.compute_metrics(t1, 0.5)
    for name in ("recall", "specificity", "fpr", "fnr", "balanced_accuracy", "youden_j", "roc_auc", "ks"):
        assert b.get(name) == pytest.approx(a.get(name), rel=1e-12, abs=1e-15), name


def test_shift_prevalence_rejects_bad_input():
    t = build_table(np.array([0.1, 0.9]), np.array([0, 1]))
    for p in (0.0, 1.0, -0.1, 1.5):
        with pytest.raises(ValueError):
            B.shift_prevalence(t, p)
    with pytest.raises(ValueError):
        B.shift_prevalence(build_table(np.array([0.1, 0.9]), np.array([1, 1])), 0.5)


# --------------------------------------------------------------------------------------
# R-precision with ties
# --------------------------------------------------------------------------------------


def _mean_precision_at_P_over_all_tie_orders(s, y):
    """Exact expectation over random tie-breaking: every permutation, then a stable sort."""
    P = int(y.sum())
    total = 0.0
    count = 0
    for perm in itertools.permutations(range(len(s))):
        perm = np.array(perm)
        order = perm[np.argsort(-s[perm], kind="stable")]
        total += y[order[:P]].sum() / P
        count += 1
    return total / count


@pytest.mark.parametrize(
    "s, y",
    [
        # the tied group at 2 straddles the top-4 cut: 3 of its 4 rows (2 pos, 2 neg) are taken
        ([3, 2, 2, 2, 2, 1, 0], [0, 1, 0, 0, 1, 1, 1]),
        ([5, 5, 4, 4, 4, 1, 1], [1, 0, 0, 1, 1, 0, 1]),
        ([1, 1, 1, 1, 1, 1, 1], [1, 0, 0, 1, 0, 0, 0]),  # everything tied: precision = prevalence
        ([6, 5, 4, 3, 2, 1, 0], [1, 0, 1, 1, 0, 0, 1]),  # no ties: precision@P
    ],
)
def test_r_precision_is_expectation_over_tie_breaking(s, y):
    s = np.asarray(s, dtype=float)
    y = np.asarray(y, dtype=bool)
    want = _mean_precision_at_P_over_all_tie_orders(s, y)
    got = B.compute_metrics(build_table(s, y), 0.5).get("r_precision")
    assert got == pytest.approx(want, rel=1e-12)


def test_r_precision_with_ties_by_random_tie_breaks_on_larger_data():
    s, y, _ = make_case("ties", n=500, seed=24)
    rng = np.random.default_rng(0)
    P = int(y.sum())
    draws = []
    for _ in range(2000):
        order = np.lexsort((rng.random(len(s)), -s))
        draws.append(y[order[:P]].mean())
    got = B.compute_metrics(build_table(s, y), 0.5).get("r_precision")
    assert got == pytest.approx(np.mean(draws), abs=4 * np.std(draws) / np.sqrt(len(draws)) + 1e-9)


def test_r_precision_integer_weights_equal_repeated_rows():
    s, y, w = make_case("int_weights", n=40, seed=25)
    s = np.round(s, 1)
    rep = w.astype(int)
    a = B.compute_metrics(build_table(s, y, w), 0.5).get("r_precision")
    b = B.compute_metrics(build_table(np.repeat(s, rep), np.repeat(y, rep)), 0.5).get("r_precision")
    assert a == pytest.approx(b, rel=1e-12)


# --------------------------------------------------------------------------------------
# metric_arrays directly
# --------------------------------------------------------------------------------------


def test_metric_arrays_subset_and_undefined_as_nan_internally():
    tp = np.array([0.0, 1.0, 2.0])
    fp = np.array([0.0, 0.0, 3.0])
    out = B.metric_arrays(tp, fp, P=2.0, N=3.0, names=("precision", "recall"))
    assert set(out) == {"precision", "recall"}
    assert np.isnan(out["precision"][0]) and out["precision"][1] == 1.0 and out["precision"][2] == 0.4
    np.testing.assert_array_equal(out["recall"], [0.0, 0.5, 1.0])


@pytest.mark.parametrize("kind", CASES)
def test_upper_hull_matches_monotone_chain(kind):
    for seed in range(5):
        s, y, w = make_case(kind, n=400, seed=seed)
        t = build_table(s, y, w)
        tp, fp = t.cumulative()
        fpr = np.concatenate([[0.0], fp / t.total_neg])
        tpr = np.concatenate([[0.0], tp / t.total_pos])
        assert B.upper_hull(fpr, tpr).tolist() == monotone_chain_upper(fpr, tpr)


def test_upper_hull_keeps_a_vertex_that_a_zero_weight_score_repeats():
    """Regression: both copies of a repeated point lay on the other's chord and were pruned
    in one pass, so the ROC hull (and the cost curve) lost the vertex (0.2, 0.8)."""
    x = np.array([0.0, 0.2, 0.2, 1.0])
    y = np.array([0.0, 0.8, 0.8, 1.0])
    assert B.upper_hull(x, y).tolist() == monotone_chain_upper(x, y) == [0, 2, 3]


def test_decimate_takes_the_points_at_equal_steps_of_l1_arc_length_past_one_block():
    """decimate's arc length is Σ|Δx| + |Δy| summed in order (built block by block in place):
    the points it keeps are those at (and just before) equal steps of that sum, the ends and
    ``keep``, on a curve longer than one block."""
    rng = np.random.default_rng(3)
    n = 2 * B.HULL_BLOCK + 123
    x = np.cumsum(rng.integers(0, 3, n)).astype(float)
    y = np.cumsum(rng.integers(0, 3, n)).astype(float)
    x /= x[-1]
    y /= y[-1]
    keep = np.array([5, n // 2])
    arc = np.concatenate([[0.0], np.cumsum(np.abs(np.diff(x)) + np.abs(np.diff(y)))])
    at = np.clip(np.searchsorted(arc, np.linspace(0.0, arc[-1], 300), side="left"), 0, n - 1)
    want = np.unique(np.clip(np.concatenate([at, at - 1, [0, n - 1], keep]), 0, n - 1))
    assert np.array_equal(B.decimate(x, y, 300, keep=keep), want)
