"""Hypothesis invariants of the binary engine (``engine/curve.py``, ``engine/binary.py``).

Every property is checked on small random data with heavy ties (scores drawn from pools of a
few integers or a few arbitrary floats), optional positive weights, both directions, and the
edge case of a single class. Oracles are independent of the engine: scikit-learn's metrics on
the raw rows, a brute-force O(n²) Mann–Whitney count for the AUC, and plain-numpy scans over
every distinct threshold for the optimal thresholds (scikit-learn ``test_common.py`` style).
"""

from __future__ import annotations

import itertools
import math
import warnings

import numpy as np
import pytest
from hypothesis import HealthCheck, assume, given, settings
from hypothesis import strategies as st
from sklearn import metrics as skm

from reportgen.engine import binary as B
from reportgen.engine.curve import build_table, merge_tables

SETTINGS = settings(
    deadline=None, max_examples=80, suppress_health_check=[HealthCheck.too_slow, HealthCheck.filter_too_much]
)
TOL = 1e-12
#: Marks "no candidate cut has a defined value" in the brute-force scans (None = the empty cut).
UNDEFINED = object()

#: Rates that must lie in [0, 1] whenever they are defined.
UNIT_RATES = (
    "accuracy",
    "error_rate",
    "baseline_accuracy",
    "precision",
    "recall",
    "specificity",
    "npv",
    "fpr",
    "fnr",
    "type_i_error",
    "type_ii_error",
    "balanced_accuracy",
    "f1",
    "fbeta",
    "roc_auc",
    "average_precision",
    "r_precision",
    "ks",
    "defective_pairs",
)
#: Metrics that depend on the ranking (and the cut) only, not on the score values.
RANK_METRICS = tuple(m for m in B.METRICS if m not in ("log_loss", "brier"))


# --- strategies ---------------------------------------------------------------------------------


@st.composite
def datasets(draw, both: bool = True, max_n: int = 40, weights: bool | None = None, small_floats: bool = False):
    """(scores, y, weights or None, direction): heavy ties, optional positive weights.

    ``both``: at least one row of each class. ``weights``: None = maybe, True/False = forced.
    """
    n = draw(st.integers(2 if both else 1, max_n))
    kind = draw(st.sampled_from(["ints", "floats", "probs"]))
    if kind == "ints":
        lo = draw(st.integers(-5, 5))
        width = draw(st.integers(1, 6))
        s = np.array(draw(st.lists(st.integers(lo, lo + width - 1), min_size=n, max_size=n)), dtype=float)
    else:
        bound = 20.0 if small_floats else 1e3
        elems = (
            st.floats(0.0, 1.0, allow_subnormal=False)
            if kind == "probs"
            else st.floats(-bound, bound, allow_subnormal=False)
        )
        pool = draw(st.lists(elems, min_size=1, max_size=8, unique=True))
        s = np.array(draw(st.lists(st.sampled_from(pool), min_size=n, max_size=n)), dtype=float)
    y = np.array(draw(st.lists(st.booleans(), min_size=n, max_size=n)), dtype=bool)
    if both:
        i = draw(st.integers(0, n - 1))
        j = draw(st.integers(0, n - 2))
        j = j + 1 if j >= i else j
        y[i], y[j] = True, False
    use_w = draw(st.booleans()) if weights is None else weights
    w = None
    if use_w:
        w = np.array(
            draw(
                st.one_of(
                    st.lists(st.integers(1, 4), min_size=n, max_size=n),
                    st.lists(st.floats(0.1, 10.0), min_size=n, max_size=n),
                )
            ),
            dtype=float,
        )
    direction = draw(st.sampled_from(["higher", "lower"]))
    return s, y, w, direction


def _w(w: np.ndarray | None, n: int) -> np.ndarray:
    return np.ones(n) if w is None else w


def predict(s: np.ndarray, t: float, direction: str) -> np.ndarray:
    """The engine's documented rule: positive when score ≥ t (≤ t for ``lower``)."""
    return s >= t if direction == "higher" else s <= t


def raw_confusion(s, y, w, t, direction):
    """Weighted (tp, fp, fn, tn) of the rule at ``t`` on the raw rows (t None: nothing positive)."""
    w = _w(w, s.shape[0])
    pred = np.zeros(s.shape[0], bool) if t is None else predict(s, t, direction)
    return (
        float(w[pred & y].sum()),
        float(w[pred & ~y].sum()),
        float(w[~pred & y].sum()),
        float(w[~pred & ~y].sum()),
    )


def draw_threshold(data, s: np.ndarray) -> float:
    """A data value, a midpoint between two, or a value beyond every score."""
    vals = np.unique(s)
    kind = data.draw(st.sampled_from(["value", "between", "outside"]))
    if kind == "value" or vals.shape[0] == 1:
        return float(data.draw(st.sampled_from(list(vals))))
    if kind == "between":
        i = data.draw(st.integers(0, vals.shape[0] - 2))
        return float((vals[i] + vals[i + 1]) / 2.0)
    return float(data.draw(st.sampled_from([vals[0] - 1.0, vals[-1] + 1.0])))


def brute_auc(s, y, w) -> float:
    """Mann–Whitney: Σ over (positive, negative) pairs of w⁺w⁻·[s⁺ > s⁻] + ½[s⁺ = s⁻], / (P·N)."""
    w = _w(w, s.shape[0])
    sp, sn, wp, wn = s[y], s[~y], w[y], w[~y]
    total = 0.0
    for a, wa in zip(sp, wp):
        for b, wb in zip(sn, wn):
            total += wa * wb * (1.0 if a > b else 0.5 if a == b else 0.0)
    return total / (wp.sum() * wn.sum())


def plain_metrics(tp, fp, fn, tn, beta=1.0, costs=B.Costs()) -> dict[str, float]:
    """Criteria from one confusion, written out in plain Python (NaN = undefined)."""
    P, N = tp + fn, fp + tn
    m = P + N

    def div(a, b):
        return a / b if b != 0 else math.nan

    rec, spec, prec = div(tp, P), div(tn, N), div(tp, tp + fp)
    pe = ((tp + fp) * (tp + fn) + (fn + tn) * (fp + tn)) / (m * m)
    b2 = beta * beta
    return {
        "f1": div(2 * tp, 2 * tp + fp + fn),
        "fbeta": div((1 + b2) * tp, (1 + b2) * tp + b2 * fn + fp),
        "mcc": div(tp * tn - fp * fn, math.sqrt((tp + fp) * (tp + fn) * (tn + fp) * (tn + fn))),
        "cohen_kappa": div((tp + tn) / m - pe, 1 - pe),
        "balanced_accuracy": (rec + spec) / 2,
        "youden_j": rec + spec - 1,
        "accuracy": (tp + tn) / m,
        "expected_cost": (costs.tp * tp + costs.fp * fp + costs.fn * fn + costs.tn * tn) / m,
        "precision": prec,
        "recall": rec,
        "fpr": div(fp, N),
    }


# --- 1. direction and negation ------------------------------------------------------------------


@SETTINGS
@given(datasets())
def test_auc_direction_and_negation(d):
    s, y, w, _ = d
    hi = build_table(s, y, w, "higher")
    auc = B.roc_auc(hi)
    assert auc is not None
    # "lower" on −s is the same ranking as "higher" on s
    assert B.roc_auc(build_table(-s, y, w, "lower")) == pytest.approx(auc, abs=TOL)
    # reversing the ranking: AUC(−s) = AUC(s, lower) = 1 − AUC(s)
    assert B.roc_auc(build_table(-s, y, w, "higher")) == pytest.approx(1 - auc, abs=TOL)
    assert B.roc_auc(build_table(s, y, w, "lower")) == pytest.approx(1 - auc, abs=TOL)
    g = B.compute_metrics(hi, float(s[0])).get("gini")
    g_neg = B.compute_metrics(build_table(-s, y, w, "higher"), float(-s[0])).get("gini")
    g_low = B.compute_metrics(build_table(s, y, w, "lower"), float(s[0])).get("gini")
    assert g == pytest.approx(2 * auc - 1, abs=TOL)
    assert g_neg == pytest.approx(-g, abs=TOL)
    assert g_low == pytest.approx(-g, abs=TOL)


# --- 2. invariance under strictly increasing transforms ------------------------------------------

TRANSFORMS = {
    "exp": np.exp,
    "affine": lambda x: 3.0 * x + 7.0,
    "arctan": np.arctan,
    "cube": lambda x: x**3,
}


def transform_through_one_path(f, s: np.ndarray, t: float):
    """``f`` applied once, to the array of distinct values of ``s`` and ``t``; a lookup for the rest.

    numpy ≥ 2.4 may round ``x**3`` differently on an array and on a scalar (an ulp apart), so
    ``f(s)``, ``f(np.float64(t))`` and ``f(vals)`` need not agree, and a test comparing them would
    check numpy's pow paths instead of the engine. Every transformed value here (scores,
    threshold, and any threshold the engine reports) is read from one array ``f(vals)``.
    Returns ``(fv, fs, ft, image)``: ``fv`` the transformed distinct values (for ``assume``),
    the transformed scores and threshold, and ``image(x)``, the transform of an ``x`` that must
    be one of the values (it fails the test when the engine reports a value not in the data).
    """
    vals = np.unique(np.append(s, t))
    fv = f(vals)

    def image(x):
        x = np.asarray(x, dtype=float)
        i = np.searchsorted(vals, x)
        assert np.all(i < vals.shape[0]) and np.array_equal(vals[np.minimum(i, vals.shape[0] - 1)], x), (
            f"{x!r} is not a score or the threshold"
        )
        return fv[i]

    return fv, fv[np.searchsorted(vals, s)], float(image(t)), image


@SETTINGS
@given(datasets(both=False, small_floats=True), st.sampled_from(sorted(TRANSFORMS)), st.data())
def test_rank_metrics_and_optima_invariant_under_increasing_transforms(d, name, data):
    """A strictly increasing transform of the scores (and the threshold) changes no rank metric.

    The table's thresholds, the KS threshold and every optimal threshold move to their images;
    confusions and values do not change. All images come from one evaluation of the transform
    (:func:`transform_through_one_path`), so the check is exact.
    """
    s, y, w, direction = d
    f = TRANSFORMS[name]
    t = draw_threshold(data, s)
    fv, fs, ft, image = transform_through_one_path(f, s, t)
    # the transform must stay strictly increasing in floating point on these values
    assume(np.all(np.diff(fv) > 0) and np.all(np.isfinite(fv)))
    a, b = build_table(s, y, w, direction), build_table(fs, y, w, direction)
    np.testing.assert_array_equal(b.thresholds, image(a.thresholds))
    ma, mb = B.compute_metrics(a, t, beta=2.0), B.compute_metrics(b, ft, beta=2.0)
    assert ma.confusion == mb.confusion
    for k in RANK_METRICS:
        va, vb = ma.get(k), mb.get(k)
        assert (va is None) == (vb is None), k
        if va is not None:
            assert vb == pytest.approx(va, rel=TOL, abs=TOL), k
    if ma.ks_threshold is not None:
        assert mb.ks_threshold == image(ma.ks_threshold)
    cons = (B.Constraint("recall", "precision", at_least=0.5),)
    for oa, ob in zip(B.optimal_thresholds(a, 2.0, constraints=cons), B.optimal_thresholds(b, 2.0, constraints=cons)):
        assert oa.criterion == ob.criterion
        assert (oa.tp, oa.fp, oa.fn, oa.tn) == (ob.tp, ob.fp, ob.fn, ob.tn), oa.criterion
        assert (oa.value is None) == (ob.value is None)
        if oa.value is not None:
            assert ob.value == pytest.approx(oa.value, rel=TOL, abs=TOL), oa.criterion
        if oa.threshold is None:
            assert ob.threshold is None
        else:
            assert ob.threshold == image(oa.threshold), oa.criterion


# --- 3. merging tables of parts ------------------------------------------------------------------


@SETTINGS
@given(datasets(both=False), st.data())
def test_table_of_concatenation_equals_merge_of_parts(d, data):
    s, y, w, direction = d
    n = s.shape[0]
    cuts = sorted(data.draw(st.lists(st.integers(0, n), min_size=1, max_size=3)))
    bounds = [0, *cuts, n]
    parts = [slice(a, b) for a, b in itertools.pairwise(bounds)]
    whole = build_table(s, y, w, direction)
    merged = merge_tables(*(build_table(s[p], y[p], None if w is None else w[p], direction) for p in parts))
    np.testing.assert_array_equal(merged.thresholds, whole.thresholds)
    if w is None or np.all(w == np.round(w)):
        np.testing.assert_array_equal(merged.pos, whole.pos)  # integer sums are exact
        np.testing.assert_array_equal(merged.neg, whole.neg)
    else:
        np.testing.assert_allclose(merged.pos, whole.pos, rtol=1e-13, atol=1e-13)
        np.testing.assert_allclose(merged.neg, whole.neg, rtol=1e-13, atol=1e-13)
    assert (merged.direction, merged.n_rows, merged.weighted) == (direction, n, w is not None)
    assert merged.sum_w2 == pytest.approx(whole.sum_w2, rel=1e-13)


@SETTINGS
@given(datasets(both=False, weights=True))
def test_integer_weights_are_frequencies(d):
    """A row of weight k counts exactly like k copies of the row (frequency weights)."""
    s, y, w, direction = d
    w = np.ceil(w)
    k = w.astype(int)
    t = build_table(s, y, w, direction)
    r = build_table(np.repeat(s, k), np.repeat(y, k), None, direction)
    np.testing.assert_array_equal(t.thresholds, r.thresholds)
    np.testing.assert_array_equal(t.pos, r.pos)
    np.testing.assert_array_equal(t.neg, r.neg)


# --- 4. against scikit-learn and brute force on the raw rows -------------------------------------


@pytest.mark.slow
@SETTINGS
@given(datasets(), st.sampled_from([0.5, 1.0, 2.0]), st.data())
def test_metrics_match_sklearn_and_brute_force(d, beta, data):
    s, y, w, direction = d
    t = draw_threshold(data, s)
    table = build_table(s, y, w, direction)
    bm = B.compute_metrics(table, t, beta=beta)
    got = bm.as_dict()
    oriented = s if direction == "higher" else -s
    sw = w  # None or weights, passed straight to scikit-learn
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        assert got["roc_auc"] == pytest.approx(skm.roc_auc_score(y, oriented, sample_weight=sw), abs=1e-12)
        assert got["roc_auc"] == pytest.approx(brute_auc(oriented, y, w), abs=1e-12)
        assert got["average_precision"] == pytest.approx(
            skm.average_precision_score(y, oriented, sample_weight=sw), abs=1e-12
        )
        pred = predict(s, t, direction)
        assert (bm.confusion.tp, bm.confusion.fp, bm.confusion.fn, bm.confusion.tn) == pytest.approx(
            raw_confusion(s, y, w, t, direction), abs=1e-9
        )
        nan = np.nan
        ref = {
            "accuracy": skm.accuracy_score(y, pred, sample_weight=sw),
            "precision": skm.precision_score(y, pred, sample_weight=sw, zero_division=nan),
            "recall": skm.recall_score(y, pred, sample_weight=sw, zero_division=nan),
            "specificity": skm.recall_score(y, pred, pos_label=False, sample_weight=sw, zero_division=nan),
            "npv": skm.precision_score(y, pred, pos_label=False, sample_weight=sw, zero_division=nan),
            "f1": skm.f1_score(y, pred, sample_weight=sw, zero_division=nan),
            "fbeta": skm.fbeta_score(y, pred, beta=beta, sample_weight=sw, zero_division=nan),
            "balanced_accuracy": skm.balanced_accuracy_score(y, pred, sample_weight=sw),
            "mcc": skm.matthews_corrcoef(y, pred, sample_weight=sw),
            "cohen_kappa": skm.cohen_kappa_score(y, pred, sample_weight=sw),
        }
    for k, v in ref.items():
        if got[k] is None:
            # undefined in the engine: scikit-learn agrees (NaN with zero_division=nan), except
            # that its MCC falls back to the convention 0
            assert math.isnan(v) or (k == "mcc" and v == 0.0), (k, v)
            continue
        assert not math.isnan(v), k
        assert got[k] == pytest.approx(v, abs=1e-10), k
    # KS: max over cuts of TPR − FPR, brute force over every distinct threshold
    wv = _w(w, s.shape[0])
    P, N = wv[y].sum(), wv[~y].sum()
    ks = max(
        (wv[y & predict(s, u, direction)].sum() / P - wv[~y & predict(s, u, direction)].sum() / N) for u in np.unique(s)
    )
    assert got["ks"] == pytest.approx(max(ks, 0.0), abs=1e-12)
    # defective pairs among all pairs of (frequency-weighted) rows
    W = wv.sum()
    if W * (W - 1) > 0:
        mis = 1.0 - brute_auc(oriented, y, w)
        assert got["defective_pairs"] == pytest.approx(2 * P * N * mis / (W * (W - 1)), abs=1e-12)
    if w is None:  # unweighted: count the pairs of rows literally
        n = s.shape[0]
        bad = sum(
            (1.0 if oriented[i] < oriented[j] else 0.5 if oriented[i] == oriented[j] else 0.0)
            for i in range(n)
            for j in range(n)
            if y[i] and not y[j]
        )
        assert got["defective_pairs"] == pytest.approx(bad / (n * (n - 1) / 2), abs=1e-12)


@SETTINGS
@given(datasets(both=False))
def test_single_class_makes_ranking_metrics_undefined_not_nan(d):
    s, y, w, direction = d
    y = np.full(s.shape[0], bool(y[0]))
    bm = B.compute_metrics(build_table(s, y, w, direction), float(s[0]))
    values = bm.as_dict()
    for k in ("roc_auc", "gini", "ks", "defective_pairs", "balanced_accuracy", "youden_j"):
        assert values[k] is None, k
    assert all(v is None or math.isfinite(v) for v in values.values())
    undefined = {u.metric for u in bm.undefined}
    assert {k for k, v in values.items() if v is None} <= undefined
    if not y[0]:
        assert values["average_precision"] is None and values["recall"] is None
    else:
        assert values["specificity"] is None and values["fpr"] is None


# --- 5. ranges -----------------------------------------------------------------------------------


#: The engine clips reported values to their ranges (regression examples below): no slack.
SLACK = 0.0


@SETTINGS
@given(datasets(both=False), st.sampled_from([0.5, 1.0, 2.0]), st.data())
def test_rates_lie_in_unit_interval_and_correlations_in_minus_one_one(d, beta, data):
    s, y, w, direction = d
    t = draw_threshold(data, s)
    table = build_table(s, y, w, direction)
    values = B.compute_metrics(table, t, beta=beta).as_dict()
    for k in UNIT_RATES:
        v = values[k]
        if v is None:
            continue
        assert -SLACK <= v <= 1.0 + SLACK, (k, v)
    for k in ("mcc", "cohen_kappa", "gini", "youden_j"):
        v = values[k]
        if v is not None:
            assert -1.0 - SLACK <= v <= 1.0 + SLACK, (k, v)
    for o in B.optimal_thresholds(table, beta):
        if o.value is not None and o.criterion != "expected_cost":
            assert -1.0 - SLACK <= o.value <= 1.0 + SLACK, (o.criterion, o.value)


# Regression examples for values that used to leave their range (found by the property above and
# a wider random search over small data); the engine now clips to the range and takes P, N from
# the cumulative sums.
# * Rounding, a few ulps: roc_auc was clipped to [0, 1] in the engine, the others were not. AP sums
#   pos_i/P step by step (0.4 + 0.2 + 0.3 + 0.1 = 1.0000000000000002 for a perfect ranking);
#   TN = N − FP and FN = P − TP use N, P from ``pos.sum()``/``neg.sum()`` (pairwise summation)
#   while FP, TP are ``cumsum``s, so at the cut "everything positive" TN is −1.6e-16, not 0.
# * Defective pairs: DP = 2·P·N·(1 − AUC) / (W(W − 1)) exceeded 1 when fractional weights made the
#   total weight W small (P² + N² < W), e.g. two rows of weight 0.75: W(W − 1) = 0.75 < 2PN = 1.125;
#   such weights cannot be frequency weights, and DP is now undefined for them.
RANGE_EXAMPLES = [
    pytest.param(
        "average_precision",
        [3, 3, 3, 3, 2, 2, 1, 1, 1, 0, -1],
        [1] * 10 + [0],
        None,
        3.0,
        (0.0, 1.0),
        id="average_precision_perfect_ranking",
    ),
    pytest.param(
        "accuracy",
        list(range(8)),
        [0] * 8,
        [0.3, 0.3, 0.3, 0.1, 2.9, 1.1, 2.9, 2.9],
        0.0,
        (0.0, 1.0),
        id="accuracy_negative",
    ),
    pytest.param(
        "specificity",
        list(range(8)),
        [0] * 8,
        [0.3, 0.3, 0.3, 0.1, 2.9, 1.1, 2.9, 2.9],
        0.0,
        (0.0, 1.0),
        id="specificity_negative",
    ),
    pytest.param("r_precision", [3, 1], [1, 1], [6.934209, 1.300869], 3.0, (0.0, 1.0), id="r_precision"),
    pytest.param("mcc", [2, 0], [0, 1], [3.77254, 6.4923], 2.0, (-1.0, 1.0), id="mcc"),
    pytest.param("cohen_kappa", [1, 0, 1, 0], [0, 1, 0, 1], [0.1, 0.7, 1.3, 0.7], 1.0, (-1.0, 1.0), id="cohen_kappa"),
    pytest.param("defective_pairs", [1, 0], [0, 1], [0.75, 0.75], 1.0, (0.0, 1.0), id="defective_pairs"),
]


@pytest.mark.parametrize("metric,scores,labels,weights,threshold,bounds", RANGE_EXAMPLES)
def test_metric_stays_within_its_bounds(metric, scores, labels, weights, threshold, bounds):
    w = None if weights is None else np.array(weights, float)
    table = build_table(np.array(scores, float), np.array(labels, bool), w)
    bm = B.compute_metrics(table, threshold)
    v = bm.get(metric)
    if metric == "defective_pairs":
        # two rows of weight 0.75 cannot be frequency weights: undefined, with the reason
        assert (
            v is None
            and dict((u.metric, u.reason.code) for u in bm.undefined)[metric] == "frequency_weight_below_one_row"
        )
        return
    assert bounds[0] <= v <= bounds[1], v


# --- 6. optimal thresholds against a brute-force scan ---------------------------------------------


@SETTINGS
@given(
    datasets(both=False),
    st.sampled_from([0.5, 1.0, 2.0]),
    st.sampled_from([B.Costs(), B.Costs(fn=5.0, fp=1.0), B.Costs(fn=1.0, fp=3.0, tp=-0.5)]),
)
def test_optimal_thresholds_equal_brute_force_scan(d, beta, costs):
    s, y, w, direction = d
    table = build_table(s, y, w, direction)
    cons = (B.Constraint("recall", "precision", at_least=0.6), B.Constraint("precision", "fpr", at_most=0.2))
    optima = {o.criterion: o for o in B.optimal_thresholds(table, beta, costs, cons)}
    # candidates in the engine's order: most conservative first (fewest predicted positives)
    cands = sorted(np.unique(s), reverse=(direction == "higher"))
    rows = [(float(u), raw_confusion(s, y, w, float(u), direction)) for u in cands]
    empty = (None, raw_confusion(s, y, w, None, direction))
    table_rows = {}
    for u, c in [empty, *rows]:
        table_rows[u] = plain_metrics(*c, beta=beta, costs=costs)

    def scan(candidates, key, minimize=False):
        """(best value, cuts whose value is within 1e-12 of it) or (None, []) if all undefined."""
        scored = [(u, key(table_rows[u])) for u, _ in candidates]
        scored = [(u, v) for u, v in scored if v is not None and math.isfinite(v)]
        if not scored:
            return None, []
        best = min(v for _, v in scored) if minimize else max(v for _, v in scored)
        return best, [u for u, v in scored if abs(v - best) <= 1e-12]

    expected = {}
    for crit in ("f1", "fbeta", "mcc", "cohen_kappa", "balanced_accuracy", "youden_j", "accuracy"):
        expected[crit] = scan(rows, lambda r, c=crit: r[c])
    expected["expected_cost"] = scan([empty, *rows], lambda r: r["expected_cost"], minimize=True)
    for c in cons:
        expected[c.name] = scan(rows, lambda r, c=c: r[c.maximize] if _holds(r, c) else None)
    # break-even: smallest |precision − recall| over cuts with TP > 0; value = (P + R) / 2 there
    _gap, be_ties = scan([(u, c) for u, c in rows if c[0] > 0], lambda r: -abs(r["precision"] - r["recall"]))
    be = optima["break_even"]
    if not be_ties:
        assert be.value is None and be.threshold is None
    else:
        assert be.threshold in be_ties, (be.threshold, be_ties)
        r = table_rows[be.threshold]
        assert be.value == pytest.approx((r["precision"] + r["recall"]) / 2, abs=1e-10)

    for crit, (best, ties) in expected.items():
        o = optima[crit]
        if not ties:
            assert o.value is None and o.threshold is None, crit
            continue
        assert o.value == pytest.approx(best, abs=1e-10), crit
        # one of the (numerically) best cuts; which one on exact ties: see the tie examples below
        assert o.threshold in ties, (crit, o.threshold, ties)
        if w is None and crit in EXACT_CRITERIA:
            # a ratio of small exact numbers is correctly rounded, so equal values are equal
            # doubles and the documented tie rule (most conservative cut) must hold exactly
            assert o.threshold == ties[0], (crit, o.threshold, ties)
    for o in optima.values():  # the reported counts are what the rule gives on the raw rows
        assert (o.tp, o.fp, o.fn, o.tn) == pytest.approx(raw_confusion(s, y, w, o.threshold, direction), abs=1e-9)


#: Criteria whose value on unweighted counts is one division of exact small numbers.
EXACT_CRITERIA = ("f1", "fbeta", "accuracy", "expected_cost")


def _holds(r: dict[str, float], c: B.Constraint) -> bool:
    v = r[c.where]
    if v is None or not math.isfinite(v):
        return False
    if c.at_least is not None and v < c.at_least - 1e-12:
        return False
    return c.at_most is None or v <= c.at_most + 1e-12


# --- 7. prevalence shift --------------------------------------------------------------------------


@SETTINGS
@given(datasets(), st.floats(0.01, 0.99))
def test_shift_prevalence_keeps_rates_and_sets_the_share(d, target):
    s, y, w, direction = d
    table = build_table(s, y, w, direction)
    shifted = B.shift_prevalence(table, target)
    np.testing.assert_array_equal(shifted.thresholds, table.thresholds)
    assert shifted.total_pos / shifted.total == pytest.approx(target, rel=1e-12)
    assert shifted.total == pytest.approx(table.total, rel=1e-12)
    tp, fp = table.cumulative()
    tp2, fp2 = shifted.cumulative()
    np.testing.assert_allclose(tp2 / shifted.total_pos, tp / table.total_pos, rtol=1e-12, atol=1e-12)
    np.testing.assert_allclose(fp2 / shifted.total_neg, fp / table.total_neg, rtol=1e-12, atol=1e-12)
    # the ranking metrics that only depend on TPR/FPR do not move
    assert B.roc_auc(shifted) == pytest.approx(B.roc_auc(table), abs=1e-12)


@SETTINGS
@given(datasets(both=False), st.floats(0.01, 0.99))
def test_shift_prevalence_refuses_a_single_class(d, target):
    s, y, w, direction = d
    y = np.full(s.shape[0], bool(y[0]))
    with pytest.raises(ValueError, match="both classes"):
        B.shift_prevalence(build_table(s, y, w, direction), target)


# --- 8. curves ------------------------------------------------------------------------------------


@SETTINGS
@given(datasets())
def test_roc_curve_is_monotone_and_its_area_is_the_auc(d):
    s, y, w, direction = d
    table = build_table(s, y, w, direction)
    c = B.compute_curves(table, float(s[0]))
    x, yy = c.roc.x, c.roc.y
    assert (x[0], yy[0]) == (0.0, 0.0)
    assert x[-1] == pytest.approx(1.0) and yy[-1] == pytest.approx(1.0)
    assert np.all(np.diff(x) >= 0) and np.all(np.diff(yy) >= 0)
    area = float(np.sum(np.diff(x) * (yy[1:] + yy[:-1]) / 2))
    assert area == pytest.approx(B.roc_auc(table), abs=1e-12)
    assert np.all((c.pr.y >= 0) & (c.pr.y <= 1) | np.isnan(c.pr.y))


# Regression examples for the tie rule "on ties the highest threshold (fewest predicted positives)
# wins" (``optimal_thresholds`` docstring). Each pair of cuts below has exactly equal criterion
# values in rational arithmetic, but the engine computes them with different rounding and
# ``_best``'s plain argmax picked the later (lower) threshold; it now treats values within 1e-12
# (relative) of the best as ties. Found by the brute-force scan.
TIE_EXAMPLES = [
    # P = 2, N = 6: cut ≥ 3 gives (TPR, TNR) = (1/2, 4/6), cut ≥ 2 gives (1, 1/6): both 7/12
    pytest.param("balanced_accuracy", [3, 1, 2, 2, 2, 2, 3, 3], [0, 0, 1, 0, 0, 0, 1, 0], 3.0, id="balanced_accuracy"),
    pytest.param("youden_j", [3, 1, 2, 2, 2, 2, 3, 3], [0, 0, 1, 0, 0, 0, 1, 0], 3.0, id="youden_j"),
    # P = 3: cut ≥ 3 gives P = 1/2, R = 1/3; cut ≥ 2 gives P = 1/2, R = 2/3: both |P − R| = 1/6,
    # and the reported value (P + R) / 2 differs: 0.4167 at 3, 0.5833 at 2
    pytest.param("break_even", [2, 0, 3, 3, 2], [1, 1, 0, 1, 0], 3.0, id="break_even"),
    # P = 7, N = 3: cut ≥ 3 gives (TP, FP) = (1, 0), cut ≥ 2 gives (4, 1): both MCC = √(1/21)
    pytest.param("mcc", [1, 3, 2, 2, 1, 1, 2, 2, 0, 1], [0, 1, 1, 1, 1, 1, 0, 1, 1, 0], 3.0, id="mcc"),
    # P = 6, N = 3: cut ≥ 2 gives (TP, FP) = (3, 0), cut ≥ 1 gives (6, 2): both kappa = 2/5
    pytest.param("cohen_kappa", [1, 1, 2, 0, 2, 1, 1, 1, 2], [0, 0, 1, 0, 1, 1, 1, 1, 1], 2.0, id="cohen_kappa"),
]


@pytest.mark.parametrize("criterion,scores,labels,expected", TIE_EXAMPLES)
def test_optimum_tie_rule_picks_the_highest_threshold(criterion, scores, labels, expected):
    table = build_table(np.array(scores, float), np.array(labels, bool))
    o = {o.criterion: o for o in B.optimal_thresholds(table)}[criterion]
    assert o.threshold == expected
