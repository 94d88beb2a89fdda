"""DeLong's AUC interval and tests on rows: the reference implementation, for callers that hold rows.

DeLong, DeLong & Clarke-Pearson (1988, *Biometrics* 44:837), with the structural components
computed by the midrank algorithm of Sun & Xu (2014, *IEEE Signal Processing Letters* 21:1389)
in O(n log n): :func:`delong_components`, :func:`delong_auc_ci`, :func:`gini_interval`,
:func:`delong_paired`, :func:`delong_unpaired`. Conventions follow R's pROC (Robin et al. 2011,
*BMC Bioinformatics* 12:77), whose published values on its ``aSAH`` data are reproduced in
``tests/reference/test_stats_reference.py``.

A comparison run computes DeLong from each model's score table
(:mod:`reportgen.engine.streaming`); these take rows, as the credit section's interval of a
grade's AUC does (:mod:`reportgen.engine.credit`) and the tests' oracles do, so a run imports
this module only when it builds a credit section. Pure computation, as
:mod:`reportgen.engine.stats`, whose normal and Welch tests and small-class rule it uses.
"""

from __future__ import annotations

import math
from dataclasses import dataclass

import numpy as np

from reportgen.engine.curve import Direction
from reportgen.engine.distributions import norm_ppf
from reportgen.engine.sorting import sort_rows
from reportgen.engine.stats import SMALL_CLASS, as_labels, check_level, normal_test, welch_test
from reportgen.results import Notice
from reportgen.value import Value

__all__ = [
    "DELONG_WEIGHTS_MESSAGE",
    "AucInterval",
    "DeLongCache",
    "DeLongTest",
    "GiniInterval",
    "delong_auc_ci",
    "delong_components",
    "delong_paired",
    "delong_unpaired",
    "gini_interval",
]

DELONG_WEIGHTS_MESSAGE = "DeLong's test is defined for unweighted rows; use the bootstrap for weighted data"


def _as_scores(scores: np.ndarray, n: int, name: str = "scores") -> np.ndarray:
    s = np.asarray(scores, dtype=np.float64)
    if s.ndim != 1 or s.shape[0] != n:
        raise ValueError(f"{name} must be 1-D of length {n} (the labels' length), got shape {s.shape}")
    if not np.isfinite(s).all():
        raise ValueError(f"{name} holds {int((~np.isfinite(s)).sum())} non-finite values")
    return s


def _orient(scores: np.ndarray, direction: Direction) -> np.ndarray:
    if direction == "higher":
        return scores
    if direction == "lower":
        return -scores
    raise ValueError(f"direction must be 'higher' or 'lower', got {direction!r}")


def _check_unit_weights(weights: np.ndarray | None, n: int) -> None:
    """DeLong's estimator has no weighted form: refuse anything but unit weights."""
    if weights is None:
        return
    w = np.asarray(weights, dtype=np.float64)
    if w.shape != (n,):
        raise ValueError(f"weights must be 1-D of length {n}, got shape {w.shape}")
    if not (w == 1.0).all():
        raise ValueError(DELONG_WEIGHTS_MESSAGE)


def delong_components(scores_oriented: np.ndarray, y: np.ndarray) -> tuple[float, np.ndarray, np.ndarray]:
    """AUC and DeLong's structural components by the fast midrank algorithm.

    Args:
        scores_oriented: shape (n,), finite; larger means more positive (callers negate scores
            of ``direction="lower"`` models).
        y: shape (n,), booleans or 0/1, True for the positive class.

    Returns:
        ``(auc, v10, v01)``: ``v10`` shape (m,), one per positive in input order; ``v01`` shape
        (k,), one per negative in input order.

    With the kernel ``psi(x, y) = 1 if x > y, 1/2 if x == y, 0 otherwise`` (DeLong et al. 1988),
    ``V10_i = mean_j psi(X_i, Y_j)`` and ``V01_j = mean_i psi(X_i, Y_j)``, and
    ``AUC = mean(V10) = mean(V01)``. Sun & Xu (2014) obtain them without the m x k matrix:
    with ``Tz`` the midranks in the pooled sample and ``Tx``, ``Ty`` the midranks within
    positives and negatives,

        V10_i = (Tz_i - Tx_i) / k,      V01_j = 1 - (Tz_j - Ty_j) / m,
        AUC   = (sum_i Tz_i - m (m + 1) / 2) / (m k).

    The midrank differences need no ranking within a class: ``Tz_i - Tx_i`` is the number of
    negatives scored below positive i plus half those tied with it, a function of its score
    alone. So one value sort groups the rows by distinct score (:func:`sorting.sort_rows`, the
    label riding along), run lengths count each class per score, and prefix sums give every
    score's "below, ties half" counts (whole and half numbers, exact in floating point, so the
    results equal the three-ranking computation's to the last bit). O(n log n) time, O(n)
    memory, no argsort.
    """
    y = as_labels(y)
    s = _as_scores(scores_oriented, y.shape[0], "scores_oriented")
    m = int(y.sum())
    k = int(y.shape[0] - m)
    if m == 0 or k == 0:
        raise ValueError(f"the AUC needs both classes, found {m} positives and {k} negatives")
    n = y.shape[0]
    rows = sort_rows(s, y)
    label = rows.labels
    assert label is not None  # sort_rows was given the labels
    first = np.flatnonzero(rows.starts)
    distinct = first.shape[0] == n
    if distinct:  # continuous scores: one row per score
        pos_g = label.astype(np.float64)
        neg_g = np.subtract(1.0, pos_g)
    else:
        pos_g = np.add.reduceat(label, first, dtype=np.int64).astype(np.float64)
        neg_g = np.diff(first, append=n).astype(np.float64)
        neg_g -= pos_g
    del first
    # per distinct score (ascending): rows of the other class strictly below, plus half the ties
    below_pos_g = np.cumsum(neg_g)
    below_pos_g -= 0.5 * neg_g
    below_neg_g = np.cumsum(pos_g)
    below_neg_g -= 0.5 * pos_g
    auc = float(np.dot(pos_g, below_pos_g)) / (m * k)  # exact: half-integer sums below 2^52
    del neg_g, pos_g
    v10_g = below_pos_g / k  # a positive's placement among the negatives
    v01_g = np.subtract(1.0, below_neg_g / m)  # a negative's among the positives
    del below_pos_g, below_neg_g
    if not distinct:
        itype = np.int32 if n < 2**31 else np.int64
        group: np.ndarray = np.cumsum(rows.starts, dtype=itype)
        group -= 1
        v10_g, v01_g = v10_g[group], v01_g[group]
        del group
    placement = np.where(label, v10_g, v01_g)  # sorted order
    del v10_g, v01_g
    per_row = np.empty(n, dtype=np.float64)
    per_row[rows.order] = placement
    del placement, rows
    return auc, per_row[y], per_row[~y]


class DeLongCache:
    """DeLong's components of each model, computed once per comparison run.

    A run asks for the same model's components several times (its AUC interval, its test
    against the baseline, every pair of the pairwise matrix); each costs a sort of the rows.
    Keyed by the identity of the score array (held here, so the identity stays valid) and the
    direction, and checked against the labels (the same array, or equal ones: paired models
    carry their own copies of the truth); the components are pure functions of the three.
    The arrays must not change while the cache lives (one comparison run treats its inputs as
    read-only).
    """

    def __init__(self) -> None:
        self._parts: dict[tuple[int, str], tuple[np.ndarray, np.ndarray, tuple]] = {}

    def get(self, scores: np.ndarray, y: np.ndarray, direction: str, compute) -> tuple:
        key = (id(scores), direction)
        hit = self._parts.get(key)
        if hit is None or hit[0] is not scores or not (hit[1] is y or np.array_equal(hit[1], y)):
            hit = (scores, y, compute())
            self._parts[key] = hit
        return hit[2]


def _delong_parts(
    scores: np.ndarray,
    y: np.ndarray,
    direction: Direction,
    weights: np.ndarray | None,
    name: str,
    cache: DeLongCache | None = None,
) -> tuple[float, np.ndarray, np.ndarray, int, int]:
    """Validated components of one model: (auc, v10, v01, n_pos, n_neg)."""
    if cache is not None:
        _check_unit_weights(weights, np.asarray(y).shape[0])  # not part of the key: checked on every call
        return cache.get(scores, y, direction, lambda: _delong_parts(scores, y, direction, weights, name))
    y = as_labels(y, f"labels of {name}")
    s = _as_scores(scores, y.shape[0], name)
    _check_unit_weights(weights, y.shape[0])
    auc, v10, v01 = delong_components(_orient(s, direction), y)
    m, k = v10.shape[0], v01.shape[0]
    if m < 2 or k < 2:
        raise ValueError(
            f"DeLong's variance needs at least two positives and two negatives in {name}, "
            f"found {m} positives and {k} negatives"
        )
    return auc, v10, v01, m, k


def _delong_variance(v10: np.ndarray, v01: np.ndarray) -> float:
    """``Var(AUC) = S10 / m + S01 / k`` with ``S10``, ``S01`` the sample variances (n - 1)."""
    return float(np.var(v10, ddof=1) / v10.shape[0] + np.var(v01, ddof=1) / v01.shape[0])


def _small_sample(m: int, k: int, statistic: str, sample: str | None = None) -> list[Notice]:
    """A ``delong_small_sample`` notice when the smaller class has fewer than :data:`SMALL_CLASS`
    rows, else nothing (``statistic``: ``auc_interval``, ``gini_interval`` or ``delong_test``;
    ``sample``: ``a`` or ``b`` of an unpaired test). The report layer words it."""
    if min(m, k) >= SMALL_CLASS:
        return []
    return [Notice("delong_small_sample", {"sample": sample, "positives": m, "negatives": k, "statistic": statistic})]


@dataclass(frozen=True, repr=False, eq=False, slots=True)
class AucInterval(Value):
    """An AUC with DeLong's variance and a normal confidence interval.

    Attributes:
        auc: the area under the ROC curve (ties count one half).
        variance: DeLong's variance estimate ``S10/m + S01/n``.
        se: ``sqrt(variance)``.
        lo, hi: ``auc -/+ z_{(1+level)/2} * se``, clipped to [0, 1] (as pROC's
            ``ci.auc(method = "delong")``).
        n_pos, n_neg: class sizes.
        level: confidence level.
        notices: why the interval may mislead, as reason codes (``delong_small_sample``: a
            class under :data:`SMALL_CLASS` rows; ``delong_zero_variance``: zero width) —
            :func:`reportgen.report.wording.notice_text` words them.
    """

    auc: float
    variance: float
    se: float
    lo: float
    hi: float
    n_pos: int
    n_neg: int
    level: float = 0.95
    notices: tuple[Notice, ...] = ()


@dataclass(frozen=True, repr=False, eq=False, slots=True)
class GiniInterval(Value):
    """The Gini coefficient ``2 AUC - 1`` with the image of an AUC interval (``se`` doubles)."""

    gini: float
    se: float
    lo: float
    hi: float
    level: float = 0.95
    notices: tuple[Notice, ...] = ()


def delong_auc_ci(
    scores: np.ndarray,
    y: np.ndarray,
    direction: Direction = "higher",
    level: float = 0.95,
    weights: np.ndarray | None = None,
    cache: DeLongCache | None = None,
) -> AucInterval:
    """AUC with DeLong's standard error and a normal interval on the AUC scale.

    Args:
        scores: shape (n,), finite scores in their own units.
        y: shape (n,), booleans or 0/1 (True = positive); at least two of each class.
        direction: ``"higher"`` if a higher score means more likely positive.
        level: confidence level of the two-sided interval.
        weights: None or all ones; any other weights raise ``ValueError`` (DeLong's estimator
            is defined for unweighted rows; use :func:`paired_bootstrap`).

    ``lo, hi = clip(auc -/+ z * sqrt(V), 0, 1)``, ``z = Phi^-1((1 + level) / 2)``, ``V`` from
    DeLong et al. (1988), eq. for ``S10/m + S01/n``; identical to pROC ``ci.auc`` (DeLong).
    ``notices`` flags a class smaller than :data:`SMALL_CLASS` and a zero variance (codes).
    """
    check_level(level)
    auc, v10, v01, m, k = _delong_parts(scores, y, direction, weights, "scores", cache)
    var = _delong_variance(v10, v01)
    se = math.sqrt(var)
    z = float(norm_ppf(0.5 + level / 2.0))
    notes = _small_sample(m, k, "auc_interval")
    if var == 0.0:
        notes.append(Notice("delong_zero_variance", {"auc": auc, "statistic": "auc_interval"}))
    return AucInterval(
        auc=auc,
        variance=var,
        se=se,
        lo=min(1.0, max(0.0, auc - z * se)),
        hi=min(1.0, max(0.0, auc + z * se)),
        n_pos=m,
        n_neg=k,
        level=level,
        notices=tuple(notes),
    )


def gini_interval(ci: AucInterval) -> GiniInterval:
    """Gini = 2 AUC - 1 and its interval ``(2 lo - 1, 2 hi - 1)`` (a monotone map of the AUC's)."""
    return GiniInterval(
        gini=2.0 * ci.auc - 1.0,
        se=2.0 * ci.se,
        lo=2.0 * ci.lo - 1.0,
        hi=2.0 * ci.hi - 1.0,
        level=ci.level,
        notices=tuple(Notice(n.code, {**n.params, "statistic": "gini_interval"}) for n in ci.notices),
    )


@dataclass(frozen=True, repr=False, eq=False, slots=True)
class DeLongTest(Value):
    """DeLong's test of ``H0: AUC_a = AUC_b``.

    Attributes:
        auc_a, auc_b: the two AUCs.
        var_a, var_b: their DeLong variances.
        covariance: DeLong covariance of the two AUCs (0 for unpaired samples).
        delta: ``auc_a - auc_b``.
        se: standard error of ``delta``.
        z: the statistic ``delta / se`` (pROC's Z when paired, D when unpaired). ``0`` when
            ``delta == 0`` and ``se == 0`` (identical rankings); ``None`` when ``se == 0`` but
            ``delta != 0`` (the statistic is infinite).
        p_value: two-sided p-value; normal reference when paired, Student t with ``df`` degrees
            of freedom when unpaired (as pROC). With ``se == 0``: 1 if ``delta == 0`` else 0.
        lo, hi: two-sided interval of ``delta`` at ``level`` (``delta`` itself when ``se == 0``).
        level: confidence level.
        paired: True when both models scored the same rows.
        df: Welch-Satterthwaite degrees of freedom (unpaired only, else None).
        n_pos_a, n_neg_a, n_pos_b, n_neg_b: class sizes of each sample (equal when paired).
        notices: why the test may mislead, as reason codes: ``delong_small_sample`` (a class
            smaller than :data:`SMALL_CLASS` in either sample), ``delong_infinite_z`` (a zero
            standard error with ``delta != 0``: ``p = 0`` by convention).
    """

    auc_a: float
    auc_b: float
    var_a: float
    var_b: float
    covariance: float
    delta: float
    se: float
    z: float | None
    p_value: float
    lo: float
    hi: float
    level: float
    paired: bool
    df: float | None
    n_pos_a: int
    n_neg_a: int
    n_pos_b: int
    n_neg_b: int
    notices: tuple[Notice, ...] = ()


def _test_notices(notes: list[Notice], se: float, delta: float) -> tuple[Notice, ...]:
    """``notes`` and a ``delong_infinite_z`` notice when the AUCs differ with a zero standard error."""
    if se == 0.0 and delta != 0.0:
        notes.append(Notice("delong_infinite_z", {"delta": delta}))
    return tuple(notes)


def _sample_cov(a: np.ndarray, b: np.ndarray) -> float:
    return float(np.dot(a - a.mean(), b - b.mean()) / (a.shape[0] - 1))


def delong_paired(
    scores_a: np.ndarray,
    scores_b: np.ndarray,
    y: np.ndarray,
    direction_a: Direction = "higher",
    direction_b: Direction = "higher",
    level: float = 0.95,
    weights: np.ndarray | None = None,
    cache: DeLongCache | None = None,
) -> DeLongTest:
    """DeLong's test for two correlated AUCs (two models scored on the same rows).

    Args:
        scores_a, scores_b: shape (n,), the two models' scores on the same rows.
        y: shape (n,), booleans or 0/1; at least two of each class.
        direction_a, direction_b: each model's score direction.
        level: confidence level of the interval of ``delta``.
        weights: None or all ones (see :func:`delong_auc_ci`).

    With ``S10``, ``S01`` the 2 x 2 sample covariance matrices of the components (DeLong et al.
    1988, section 3), ``S = S10/m + S01/n`` and ``L = (1, -1)``:

        delta = AUC_a - AUC_b,   Var(delta) = L S L' ,   z = delta / sqrt(Var(delta)),
        p = 2 (1 - Phi(|z|)),    CI = delta -/+ Phi^-1((1 + level)/2) sqrt(Var(delta)).

    ``Var(delta)`` is computed as the variance of the component differences
    ``(V10_a - V10_b)``, ``(V01_a - V01_b)``, algebraically equal to ``L S L'`` and exactly 0
    for models that rank the rows identically. Zero variance is resolved without dividing:
    ``delta == 0`` gives ``z = 0, p = 1`` (as pROC); ``delta != 0`` (e.g. one model separates the
    classes perfectly and the other perfectly inverts them) gives ``z = None, p = 0``.
    """
    check_level(level)
    auc_a, v10a, v01a, m, k = _delong_parts(scores_a, y, direction_a, weights, "scores_a", cache)
    auc_b, v10b, v01b, _, _ = _delong_parts(scores_b, y, direction_b, weights, "scores_b", cache)
    var_a = _delong_variance(v10a, v01a)
    var_b = _delong_variance(v10b, v01b)
    cov = _sample_cov(v10a, v10b) / m + _sample_cov(v01a, v01b) / k
    var_d = max(0.0, _delong_variance(v10a - v10b, v01a - v01b))
    delta = auc_a - auc_b
    z, p, lo, hi = normal_test(delta, var_d, level)
    return DeLongTest(
        auc_a=auc_a,
        auc_b=auc_b,
        var_a=var_a,
        var_b=var_b,
        covariance=cov,
        delta=delta,
        se=math.sqrt(var_d),
        z=z,
        p_value=p,
        lo=lo,
        hi=hi,
        level=level,
        paired=True,
        df=None,
        n_pos_a=m,
        n_neg_a=k,
        n_pos_b=m,
        n_neg_b=k,
        notices=_test_notices(_small_sample(m, k, "delong_test"), math.sqrt(var_d), delta),
    )


def delong_unpaired(
    scores_a: np.ndarray,
    y_a: np.ndarray,
    scores_b: np.ndarray,
    y_b: np.ndarray,
    direction_a: Direction = "higher",
    direction_b: Direction = "higher",
    level: float = 0.95,
    weights_a: np.ndarray | None = None,
    weights_b: np.ndarray | None = None,
) -> DeLongTest:
    """DeLong's test for two AUCs from independent samples (different test sets).

    Args:
        scores_a, y_a: shape (n_a,), model a's scores and labels.
        scores_b, y_b: shape (n_b,), model b's scores and labels.
        direction_a, direction_b: each model's score direction.
        level: confidence level of the interval of ``delta``.
        weights_a, weights_b: None or all ones (see :func:`delong_auc_ci`).

    ``D = (AUC_a - AUC_b) / sqrt(V_a + V_b)`` (covariance 0 for independent samples), referred
    to Student's t with the Welch-Satterthwaite degrees of freedom pROC uses:

        df = (V_a + V_b)^2 / (V_a^2 / (n_a - 1) + V_b^2 / (n_b - 1)),

    ``p = 2 P(T_df >= |D|)`` and ``CI = delta -/+ t_{df, (1+level)/2} sqrt(V_a + V_b)``.
    Zero variance is handled as in :func:`delong_paired` (``df`` is then None).
    """
    check_level(level)
    auc_a, v10a, v01a, ma, ka = _delong_parts(scores_a, y_a, direction_a, weights_a, "scores_a")
    auc_b, v10b, v01b, mb, kb = _delong_parts(scores_b, y_b, direction_b, weights_b, "scores_b")
    var_a = _delong_variance(v10a, v01a)
    var_b = _delong_variance(v10b, v01b)
    var = var_a + var_b
    delta = auc_a - auc_b
    z, p, lo, hi, df = welch_test(delta, var_a, ma + ka, var_b, mb + kb, level)
    return DeLongTest(
        auc_a=auc_a,
        auc_b=auc_b,
        var_a=var_a,
        var_b=var_b,
        covariance=0.0,
        delta=delta,
        se=math.sqrt(var),
        z=z,
        p_value=p,
        lo=lo,
        hi=hi,
        level=level,
        paired=False,
        df=df,
        n_pos_a=ma,
        n_neg_a=ka,
        n_pos_b=mb,
        n_neg_b=kb,
        notices=_test_notices(
            _small_sample(ma, ka, "delong_test", "a") + _small_sample(mb, kb, "delong_test", "b"),
            math.sqrt(var),
            delta,
        ),
    )
