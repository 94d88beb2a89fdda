"""The binary engine's fast paths against straightforward reference implementations.

The engine searches optima, the KS statistic and the ROC hull among run starts
(:meth:`ScoreTable.run_starts`), builds unweighted tables by one sort of label-carrying keys,
skips zero-weight terms, and decimates curves from closed-form arc lengths. Each reference
below is the plain definition those shortcuts replace (a scan of every cut, ``np.unique``,
whole-array sums), kept here as the oracle. Data: hypothesis-generated scores with heavy ties,
zero / integer / fractional weights, both directions, one class only, all scores equal.

Agreement: optima, threshold metrics, the KS statistic and every count are identical; sums
taken in another order (average precision, log-loss, Brier; AUC and R-precision with
fractional weights) agree to 1e-12; curves are identical when not decimated, and decimated
curves keep the ends and every hull vertex and only ever pick points of the full curve.
"""

from __future__ import annotations

import math

import numpy as np
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st
from oracles import monotone_chain_upper

from reportgen.engine import binary as B
from reportgen.engine.curve import ScoreTable, build_table, merge_tables, reweighted

_SETTINGS = settings(max_examples=80, deadline=None, suppress_health_check=[HealthCheck.too_slow])

# --------------------------------------------------------------------------------------
# Data
# --------------------------------------------------------------------------------------

_score_pools = st.sampled_from(
    [
        [0.0, 0.1, 0.2, 0.5, 0.9, 1.0],  # probabilities with heavy ties
        [-2.5, -1.0, -0.0, 0.0, 0.5, 3.0, 1e6],  # both signs, both zeros
        [0.3],  # all scores equal
        [1.0, 1.25, 1.5, 2.0],  # magnitudes past 1.5 (integer-key sort)
    ]
)


@st.composite
def rows(draw, weights: bool | None = None):
    """(scores, y, weights or None, direction) with ties, optional weights and one-class cases."""
    n = draw(st.integers(1, 60))
    if draw(st.booleans()):
        scores = draw(st.lists(st.sampled_from(draw(_score_pools)), min_size=n, max_size=n))
    else:
        scores = draw(st.lists(st.floats(-50, 50, allow_nan=False, allow_subnormal=False), min_size=n, max_size=n))
    y = draw(st.lists(st.booleans(), min_size=n, max_size=n) | st.just([True] * n) | st.just([False] * n))
    use_w = draw(st.booleans()) if weights is None else weights
    w = None
    if use_w:
        w = np.array(draw(st.lists(st.sampled_from([0.0, 0.5, 1.0, 2.0, 3.25]), min_size=n, max_size=n)))
    direction = draw(st.sampled_from(["higher", "lower"]))
    return np.array(scores, dtype=float), np.array(y, dtype=bool), w, direction


_costs = st.builds(B.Costs, *[st.sampled_from([0.0, 1.0, 2.0, 5.0])] * 4)
_betas = st.sampled_from([0.0, 0.5, 1.0, 2.0])
_CONSTRAINTS = (
    B.Constraint("precision", "recall", at_least=0.5),
    B.Constraint("recall", "precision", at_least=0.6),
    B.Constraint("f1", "fpr", at_most=0.2),
    B.Constraint("mcc", "fpr", at_least=0.1),  # not reducible to run starts: scanned
    B.Constraint("npv", "specificity", at_least=0.3),
    B.Constraint("cohen_kappa", "npv", at_most=0.9),
)

# --------------------------------------------------------------------------------------
# References: the definitions, every cut, whole arrays
# --------------------------------------------------------------------------------------


def ref_table(scores, y, w, direction):
    """``np.unique`` + ``bincount``: the definition of the table."""
    values, inv = np.unique(scores, return_inverse=True)
    w = np.ones_like(scores) if w is None else w
    pos = np.bincount(inv[y], w[y], minlength=values.size)
    neg = np.bincount(inv[~y], w[~y], minlength=values.size)
    if direction == "higher":
        values, pos, neg = values[::-1], pos[::-1], neg[::-1]
    return values, pos, neg


def ref_cumulative(t: ScoreTable):
    return np.concatenate([[0.0], np.cumsum(t.pos)]), np.concatenate([[0.0], np.cumsum(t.neg)])


def _first_best(values, minimize=False):
    """The first cut within 1e-12 (relative) of the best: the engine's documented tie rule."""
    v = np.where(np.isfinite(values), values, np.inf if minimize else -np.inf)
    if not np.isfinite(values).any():
        return None
    best = v.min() if minimize else v.max()
    tol = 1e-12 * max(1.0, abs(best))
    return int(np.flatnonzero(v <= best + tol if minimize else v >= best - tol)[0])


def _clipped(name, value):
    """A reported value lies in its metric's range (the engine clips rounding beyond it)."""
    lo, hi = B.RANGES.get(name, (-np.inf, np.inf))
    return min(hi, max(lo, value))


def ref_optima(t: ScoreTable, beta, costs, constraints):
    """Every criterion scanned over every cut; first (highest-threshold) best on ties."""
    tp, fp = ref_cumulative(t)
    P, N = t.total_pos, t.total_neg
    names = (
        {
            "f1",
            "fbeta",
            "mcc",
            "cohen_kappa",
            "balanced_accuracy",
            "youden_j",
            "accuracy",
            "expected_cost",
            "precision",
            "recall",
        }
        | {c.maximize for c in constraints}
        | {c.where for c in constraints}
    )
    a = B.metric_arrays(tp, fp, P, N, beta, costs, names=tuple(names))
    out = {}
    for crit in B.CRITERIA:
        if crit == "expected_cost":
            i = _first_best(a["expected_cost"], minimize=True)
            vals = a["expected_cost"]
        elif crit == "break_even":
            gap = np.where(tp[1:] > 0, np.abs(a["precision"][1:] - a["recall"][1:]), np.nan)
            j = _first_best(gap, minimize=True)
            i = None if j is None else j + 1
            vals = (a["precision"] + a["recall"]) / 2.0
        else:
            vals = a[crit]
            j = _first_best(vals[1:])
            i = None if j is None else j + 1
        out[crit] = (i, None if i is None else _clipped(crit, float(vals[i])))
    for c in constraints:
        cond = a[c.where][1:]
        ok = np.isfinite(cond)
        ok &= (cond >= c.at_least - 1e-12) if c.at_least is not None else (cond <= c.at_most + 1e-12)
        j = _first_best(np.where(ok, a[c.maximize][1:], np.nan))
        out[c.name] = (
            None if j is None else j + 1,
            None if j is None else _clipped(c.maximize, float(a[c.maximize][j + 1])),
        )
    return out


def ref_ranking(t: ScoreTable):
    """AUC, AP, R-precision, KS (value and threshold), log-loss and Brier from whole arrays."""
    P, N, m = t.total_pos, t.total_neg, t.total
    tp, fp = ref_cumulative(t)
    out = {}
    both = P > 0 and N > 0
    out["roc_auc"] = min(1.0, max(0.0, float(np.dot(t.neg, tp[:-1] + 0.5 * t.pos)) / (P * N))) if both else None
    if P > 0:
        with np.errstate(divide="ignore", invalid="ignore"):
            prec = np.nan_to_num(tp[1:] / (tp[1:] + fp[1:]))
        out["average_precision"] = float(np.dot(t.pos / P, prec))
        cw = np.cumsum(t.pos + t.neg)
        i = min(int(np.searchsorted(cw, P)), t.n_distinct - 1)
        w = t.pos[i] + t.neg[i]
        frac = (P - (cw[i] - w)) / w if w > 0 else 0.0
        out["r_precision"] = float((t.pos[:i].sum() + frac * t.pos[i]) / P)
    else:
        out["average_precision"] = out["r_precision"] = None
    if both:
        diff = tp[1:] / P - fp[1:] / N
        i = int(np.argmax(diff))
        out["ks"], out["ks_threshold"] = float(max(diff[i], 0.0)), float(t.thresholds[i])
    else:
        out["ks"] = out["ks_threshold"] = None
    s = t.thresholds
    if m > 0 and t.direction == "higher" and s.size and s.min() >= 0 and s.max() <= 1:
        eps = np.finfo(float).eps
        sc = np.clip(s, eps, 1 - eps)
        out["log_loss"] = float(-(np.dot(t.pos, np.log(sc)) + np.dot(t.neg, np.log1p(-sc))) / m)
        out["brier"] = float((np.dot(t.pos, (1 - s) ** 2) + np.dot(t.neg, s**2)) / m)
    else:
        out["log_loss"] = out["brier"] = None
    return out


def _close(a, b, rel=1e-12):
    if a is None or b is None:
        return a is b
    return a == b or abs(a - b) <= rel * max(1.0, abs(b))


# --------------------------------------------------------------------------------------
# Table
# --------------------------------------------------------------------------------------


@_SETTINGS
@given(rows())
def test_table_equals_unique_and_bincount(data):
    s, y, w, d = data
    t = build_table(s, y, w, d)
    values, pos, neg = ref_table(s, y, w, d)
    np.testing.assert_array_equal(t.thresholds, values)
    np.testing.assert_array_equal(t.pos, pos)
    np.testing.assert_array_equal(t.neg, neg)
    tp, fp = t.cumulative()
    rtp, rfp = ref_cumulative(t)
    np.testing.assert_array_equal(tp, rtp)
    np.testing.assert_array_equal(fp, rfp)


@_SETTINGS
@given(rows(weights=False), st.integers(0, 60))
def test_merge_of_parts_equals_table_of_whole(data, cut):
    s, y, _, d = data
    cut = min(cut, s.size)
    if 0 < cut < s.size:
        whole = build_table(s, y, direction=d)
        merged = merge_tables(build_table(s[:cut], y[:cut], direction=d), build_table(s[cut:], y[cut:], direction=d))
        np.testing.assert_array_equal(merged.thresholds, whole.thresholds)
        np.testing.assert_array_equal(merged.pos, whole.pos)
        np.testing.assert_array_equal(merged.neg, whole.neg)


# --------------------------------------------------------------------------------------
# Optima and metrics
# --------------------------------------------------------------------------------------


@_SETTINGS
@given(rows(), _betas, _costs)
def test_optima_equal_full_scan_with_the_same_tie_rule(data, beta, costs):
    s, y, w, d = data
    t = build_table(s, y, w, d)
    ref = ref_optima(t, beta, costs, _CONSTRAINTS)
    tp, fp = ref_cumulative(t)
    for o in B.optimal_thresholds(t, beta, costs, _CONSTRAINTS):
        i, value = ref[o.criterion]
        if i is None:
            assert o.threshold is None and o.value is None, o
            continue
        assert o.threshold == (None if i == 0 else float(t.thresholds[i - 1])), (o, i)
        assert (o.tp, o.fp) == (float(tp[i]), float(fp[i]))
        assert o.value == (None if value is None or not math.isfinite(value) else value)


@_SETTINGS
@given(rows(), _betas, _costs, st.floats(0.01, 0.99))
def test_optima_after_prevalence_shift_equal_full_scan(data, beta, costs, prevalence):
    s, y, w, d = data
    t = build_table(s, y, w, d)
    if t.total_pos > 0 and t.total_neg > 0:
        shifted = B.shift_prevalence(t, prevalence)
        ref = ref_optima(shifted, beta, costs, ())
        for o in B.optimal_thresholds(shifted, beta, costs):
            i, _ = ref[o.criterion]
            assert o.threshold == (None if i in (None, 0) else float(shifted.thresholds[i - 1])), o


@_SETTINGS
@given(rows(), _betas, _costs, st.data())
def test_metrics_equal_whole_array_definitions(data, beta, costs, draw):
    s, y, w, d = data
    t = build_table(s, y, w, d)
    thr = float(draw.draw(st.sampled_from(list(s))))
    got = B.compute_metrics(t, thr, beta, costs)
    ref = ref_ranking(t)
    integral = w is None or bool(np.all(w == np.round(w)))
    for name in ("roc_auc", "average_precision", "r_precision", "log_loss", "brier", "ks"):
        exact = name == "ks" or (integral and name in ("roc_auc", "r_precision"))
        assert (got.get(name) == ref[name]) if exact else _close(got.get(name), ref[name]), (
            name,
            got.get(name),
            ref[name],
        )
    assert got.ks_threshold == ref["ks_threshold"]
    tp, fp = ref_cumulative(t)
    i = t.cut_index(thr)
    one = B.metric_arrays(tp[i : i + 1], fp[i : i + 1], t.total_pos, t.total_neg, beta, costs)
    for name in B.THRESHOLD_METRICS:
        v = float(one[name][0])
        assert got.get(name) == (v if math.isfinite(v) else None), name


@_SETTINGS
@given(rows(weights=False))
def test_auc_direction_lower_is_one_minus_higher(data):
    s, y, _, _ = data
    hi = B.roc_auc(build_table(s, y, direction="higher"))
    lo = B.roc_auc(build_table(s, y, direction="lower"))
    if hi is None:
        assert lo is None
    else:
        assert abs(hi + lo - 1.0) <= 1e-12


# --------------------------------------------------------------------------------------
# Curves
# --------------------------------------------------------------------------------------


def _ref_curves(t: ScoreTable):
    tp, fp = ref_cumulative(t)
    P, N = t.total_pos, t.total_neg
    tpr, fpr = tp / P, fp / N
    with np.errstate(divide="ignore", invalid="ignore"):
        prec = np.where(tp[1:] + fp[1:] > 0, tp[1:] / (tp[1:] + fp[1:]), np.nan)
    return tpr, fpr, prec


@_SETTINGS
@given(rows(), st.sampled_from([3, 5, 20, 10_000]))
def test_curves_are_points_of_the_full_curves_with_every_hull_vertex(data, max_points):
    s, y, w, d = data
    t = build_table(s, y, w, d)
    if not (t.total_pos > 0 and t.total_neg > 0):
        return
    c = B.compute_curves(t, float(s[0]), max_points=max_points)
    tpr, fpr, prec = _ref_curves(t)
    k = t.n_distinct
    thr = np.concatenate([[np.nan], t.thresholds])
    hull = monotone_chain_upper(fpr, tpr)
    if max_points >= k + 1:  # not decimated: every point, exactly
        np.testing.assert_array_equal(c.roc.x, fpr)
        np.testing.assert_array_equal(c.roc.y, tpr)
        np.testing.assert_array_equal(c.roc.thresholds, thr)
        np.testing.assert_array_equal(c.pr.x, tpr[1:])
        np.testing.assert_array_equal(c.pr.y, prec)
    else:  # decimated: points of the full curve, the ends, every hull vertex
        pts = set(zip(fpr.tolist(), tpr.tolist(), [None if np.isnan(v) else v for v in thr]))
        got = list(zip(c.roc.x.tolist(), c.roc.y.tolist(), [None if np.isnan(v) else v for v in c.roc.thresholds]))
        assert set(got) <= pts
        assert got[0][:2] == (0.0, 0.0) and got[-1][:2] == (float(fpr[-1]), float(tpr[-1]))
        # every vertex the rounding cannot make collinear (a collinear one is optional: a failing
        # example had (0.4, 0.818) on the chord of its neighbours, kept by the chain, not the engine)
        strict = monotone_chain_upper(fpr, tpr, tol=1e-12)
        assert {(fpr[i], tpr[i]) for i in strict} <= {(x, yy) for x, yy, _ in got}
        assert len(got) <= 2 * max_points + len(hull) + 2
        assert set(zip(c.pr.x.tolist(), c.pr.thresholds.tolist())) <= set(zip(tpr[1:].tolist(), t.thresholds.tolist()))
    # the cost envelope is the lower envelope over the hull vertices
    pc = c.cost.pc
    env = np.min((1 - tpr[hull] - fpr[hull])[:, None] * pc[None, :] + fpr[hull][:, None], axis=0)
    np.testing.assert_allclose(c.cost.envelope, env, rtol=0, atol=1e-12)


@_SETTINGS
@given(rows())
def test_upper_hull_equals_monotone_chain_on_repeated_points(data):
    s, y, w, d = data
    t = build_table(s, y, w, d)
    if t.total_pos > 0 and t.total_neg > 0:
        tpr, fpr, _ = _ref_curves(t)
        got, ref = B.upper_hull(fpr, tpr).tolist(), monotone_chain_upper(fpr, tpr)
        if got != ref:  # a vertex collinear with its neighbours is optional (rounding decides)
            assert set(got) <= set(range(fpr.shape[0])) and got[0] == ref[0] and got[-1] == ref[-1]
            pc = np.linspace(0.0, 1.0, 201)

            def envelope(h):
                h = np.array(h)
                return np.min((1 - tpr[h] - fpr[h])[:, None] * pc[None, :] + fpr[h][:, None], axis=0)

            np.testing.assert_allclose(envelope(got), envelope(ref), rtol=0, atol=1e-12)
            assert len(got) < len(ref)


@_SETTINGS
@given(rows())
def test_run_starts_are_where_tp_rises(data):
    s, y, w, d = data
    t = build_table(s, y, w, d)
    starts = t.run_starts()
    if not (t.total_pos > 0 and t.total_neg > 0):
        assert starts is None
        return
    tp, fp = t.cumulative()
    rises = {i for i in range(1, t.n_distinct + 1) if t.pos[i - 1] != 0}
    assert rises <= set(starts.tolist()) <= rises | {0, 1} | {int(np.argmax(tp + fp > 0))}
    assert not starts.flags.writeable


def test_cumulative_returns_fresh_writable_copies_of_one_cached_view():
    t = build_table(np.array([0.3, 0.1, 0.3, 0.7]), np.array([True, False, False, True]))
    tp, _fp = t.cumulative()
    tp[0] = 99.0  # the caller's own copy
    view_tp, _view_fp = t.cumulative_view()
    assert view_tp[0] == 0.0 and not view_tp.flags.writeable
    assert t.cumulative_view()[0] is view_tp
    r = reweighted(t, t.pos * 2, t.neg)
    assert r.cumulative_view()[0][-1] == 2 * view_tp[-1]


@_SETTINGS
@given(rows(), st.integers(0, 2**32 - 1))
def test_bootstrap_table_equals_masked_bincounts_and_reuses_the_logs(data, seed):
    from reportgen.engine import stats
    from reportgen.engine.curve import row_groups

    s, y, w, d = data
    t = build_table(s, y, w, d)
    groups = row_groups(t, s)
    mult = np.random.default_rng(seed).integers(0, 3, size=s.size)
    tb = stats.bootstrap_tables(t, groups, y, mult, weights=w)
    rw = mult.astype(float) * (1.0 if w is None else w)
    np.testing.assert_array_equal(tb.pos, np.bincount(groups[y], rw[y], minlength=t.n_distinct))
    np.testing.assert_array_equal(tb.neg, np.bincount(groups[~y], rw[~y], minlength=t.n_distinct))
    assert tb.by_score() is t.by_score()  # one family: the scores' logarithms are shared
    ref = ref_ranking(tb)
    for _ in range(2):  # the second call reads the cached logarithms
        ll, brier, _ = B.probability_losses(tb)
        assert _close(ll, ref["log_loss"]) and _close(brier, ref["brier"])
