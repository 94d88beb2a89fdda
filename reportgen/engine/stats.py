"""Statistical inference for model comparison: DeLong, McNemar, Holm and the bootstrap.

Pure computation: arrays in, frozen values out; no I/O, no printing, randomness only through a
``numpy.random.Generator`` the caller passes in. The normal, Student-t, binomial and chi-square
distributions come from :mod:`reportgen.engine.distributions`.

Contents:

* DeLong's AUC variance and tests (DeLong, DeLong & Clarke-Pearson 1988, *Biometrics* 44:837),
  with the structural components computed by the midrank algorithm of Sun & Xu (2014,
  *IEEE Signal Processing Letters* 21:1389) in O(n log n): :func:`delong_components`,
  :func:`delong_auc_ci`, :func:`delong_paired`, :func:`delong_unpaired`. Conventions follow R's
  pROC (Robin et al. 2011, *BMC Bioinformatics* 12:77), whose published values on its ``aSAH``
  data are reproduced in ``tests/reference/test_stats_reference.py``.
* McNemar's test for paired classifiers (McNemar 1947, *Psychometrika* 12:153): :func:`mcnemar`.
* Holm's step-down adjustment (Holm 1979, *Scand. J. Statistics* 6:65): :func:`holm`.
* The stratified, paired bootstrap (Efron 1979, *Ann. Statist.* 7:1; Efron & Tibshirani 1993,
  *An Introduction to the Bootstrap*, ch. 13 for percentile intervals): a resample is a vector
  of row multiplicities ``m``, so one draw serves every model (paired) and a resampled
  :class:`~reportgen.engine.curve.ScoreTable` is two ``bincount`` calls, not a re-sort:
  :func:`stratified_bootstrap_counts`, :func:`bootstrap_tables`, :func:`percentile_interval`,
  :func:`paired_bootstrap`. :func:`stratified_bootstrap_blocks` gives the same draws per class
  and block, for the binary comparison's per-class resample kernel
  (:mod:`reportgen.engine.resample`).

Undefined quantities are ``None`` (never NaN) in results, except inside the raw bootstrap sample
matrix, where NaN marks a resample on which a statistic could not be computed.
"""

from __future__ import annotations

import math
from collections.abc import Callable, Iterator, Sequence
from dataclasses import dataclass
from typing import Literal

import numpy as np

from reportgen.engine.curve import Direction, ScoreTable, reweighted
from reportgen.engine.distributions import (
    binom_half_cdf,
    binom_half_pmf,
    chi2_sf,
    norm_ppf,
    norm_two_sided_p,
    t_critical,
    t_two_sided_p,
)
from reportgen.engine.sorting import sort_rows
from reportgen.results import Notice
from reportgen.value import Value

__all__ = [
    "SMALL_CLASS",
    "AucInterval",
    "BootstrapResult",
    "DeLongTest",
    "GiniInterval",
    "McNemarResult",
    "bootstrap_strata",
    "bootstrap_tables",
    "delong_auc_ci",
    "delong_components",
    "delong_paired",
    "delong_unpaired",
    "gini_interval",
    "holm",
    "mcnemar",
    "mcnemar_p_values",
    "paired_bootstrap",
    "percentile_interval",
    "stratified_bootstrap_blocks",
    "stratified_bootstrap_counts",
]

DELONG_WEIGHTS_MESSAGE = "DeLong's test is defined for unweighted rows; use the bootstrap for weighted data"

#: Fewest rows in the smaller class for which DeLong's normal approximation is taken at face
#: value; below it, intervals and tests carry a warning (the rule of thumb the report uses).
SMALL_CLASS = 30


# =============================================================================================
# Input checks
# =============================================================================================


def _as_labels(y: np.ndarray, name: str = "y") -> np.ndarray:
    """Binary labels as a boolean array: booleans, or numbers that are all 0 or 1."""
    y = np.asarray(y)
    if y.ndim != 1:
        raise ValueError(f"{name} must be 1-D, got shape {y.shape}")
    if y.dtype == bool:
        return y
    if not np.isin(y, (0, 1)).all():
        raise ValueError(f"{name} must hold booleans or 0/1, found values {np.unique(y)[:5]}")
    return y.astype(bool)


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


def _check_level(level: float) -> None:
    if not 0.0 < level < 1.0:
        raise ValueError(f"level must be strictly between 0 and 1, got {level}")


# =============================================================================================
# DeLong
# =============================================================================================


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
    y = _as_labels(y)
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
    y = _as_labels(y, f"labels of {name}")
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
    _check_level(level)
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
    _check_level(level)
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


def normal_test(delta: float, var: float, level: float) -> tuple[float | None, float, float, float]:
    """(z, p, lo, hi) of a Wald test with normal reference; explicit branches for var == 0."""
    if var == 0.0:
        if delta == 0.0:
            return 0.0, 1.0, delta, delta
        return None, 0.0, delta, delta
    se = math.sqrt(var)
    z = delta / se
    half = float(norm_ppf(0.5 + level / 2.0)) * se
    return z, float(norm_two_sided_p(z)), delta - half, delta + half


def welch_test(
    delta: float, var_a: float, n_a: int, var_b: float, n_b: int, level: float
) -> tuple[float | None, float, float, float, float | None]:
    """(D, p, lo, hi, df) of DeLong's unpaired test of ``delta = AUC_a − AUC_b`` (pROC's ``roc.test``).

    ``D = delta / sqrt(V_a + V_b)`` referred to Student's t with the Welch–Satterthwaite degrees
    of freedom ``df = (V_a + V_b)² / (V_a²/(n_a − 1) + V_b²/(n_b − 1))`` (n: rows of each sample);
    zero variance as :func:`normal_test` (``df`` None). Needs only each AUC's variance and row
    count, so score tables give it as well as rows.
    """
    var = var_a + var_b
    if var == 0.0:
        z, p, lo, hi = normal_test(delta, var, level)
        return z, p, lo, hi, None
    se = math.sqrt(var)
    z = delta / se
    df = var * var / (var_a * var_a / (n_a - 1) + var_b * var_b / (n_b - 1))
    half = float(t_critical(1.0 - level, df)) * se
    return z, float(t_two_sided_p(z, df)), delta - half, delta + half, df


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
    _check_level(level)
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


# =============================================================================================
# McNemar
# =============================================================================================

McNemarMethod = Literal["exact binomial", "chi-square (continuity-corrected)", "none (no discordant pairs)"]


@dataclass(frozen=True, repr=False, eq=False, slots=True)
class McNemarResult(Value):
    """McNemar's test of equal error rates of two classifiers on the same rows.

    Attributes:
        table: ``((n11, n12), (n21, n22))``: rows = model a correct / wrong, columns = model b
            correct / wrong; so ``n11`` both correct, ``n12`` a correct and b wrong, ``n21`` a
            wrong and b correct, ``n22`` both wrong. Counts are frequency-weighted.
        b: ``n12``, rows only model a gets right.
        c: ``n21``, rows only model b gets right.
        statistic: ``min(b, c)`` for the exact test, the chi-square value for the asymptotic
            one, 0 when there are no discordant pairs.
        p_value: two-sided p-value of the test named by ``method`` (the one the verdicts use).
        method: ``"exact binomial"``, ``"chi-square (continuity-corrected)"`` or
            ``"none (no discordant pairs)"``.
        n: total (weighted) number of rows.
        p_exact, p_mid, p_chi2, p_chi2_corrected: the four two-sided p-values compared by
            Fagerland, Lydersen & Laake (2013, *BMC Med. Res. Methodol.* 13:91) on the same
            discordant counts, whichever ``method`` is used: exact conditional (binomial),
            mid-p, asymptotic McNemar without and with Edwards' continuity correction. 1 each
            without discordant rows.
    """

    table: tuple[tuple[int, int], tuple[int, int]]
    b: int
    c: int
    statistic: float
    p_value: float
    method: McNemarMethod
    n: int
    p_exact: float = 1.0
    p_mid: float = 1.0
    p_chi2: float = 1.0
    p_chi2_corrected: float = 1.0


def mcnemar_p_values(b: int, c: int) -> tuple[float, float, float, float]:
    """Two-sided p-values of McNemar's test from the discordant counts ``b``, ``c`` (n = b + c):
    ``(exact, mid-p, chi-square, chi-square with continuity correction)``.

    With ``X ~ Bin(n, 1/2)``, ``k = min(b, c)`` and ``f`` its probability function
    (Fagerland, Lydersen & Laake 2013, eqs. for the four tests):

    * exact conditional: ``min(1, 2 P(X <= k))``;
    * mid-p: ``2 P(X <= k) - f(k)`` (= ``2 [P(X <= k) - f(k)/2]``), and ``1 - f(k)/2`` when
      ``b = c``;
    * asymptotic: ``chi2 = (b - c)^2 / n`` on one degree of freedom;
    * continuity-corrected (Edwards 1948): ``chi2 = (|b - c| - 1)^2 / n``, as statsmodels'
      ``mcnemar(exact=False, correction=True)`` and R's ``mcnemar.test`` (so ``b = c`` gives
      ``1 / n``, not 0).

    ``n = 0``: all four are 1. Verified case: Fagerland et al. (2013), Table 1 example
    (b = 1, c = 7): 0.070, 0.039, 0.034, 0.077 (``tests/reference/test_published_reference.py``).
    """
    n = b + c
    if n == 0:
        return 1.0, 1.0, 1.0, 1.0
    k = min(b, c)
    cdf = binom_half_cdf(k, n)
    pmf = binom_half_pmf(k, n)
    exact = min(1.0, 2.0 * cdf)
    mid = 1.0 - 0.5 * pmf if b == c else min(1.0, 2.0 * cdf - pmf)
    chi2 = float(chi2_sf((b - c) ** 2 / n, 1))
    chi2_cc = float(chi2_sf((abs(b - c) - 1.0) ** 2 / n, 1))
    return exact, mid, chi2, chi2_cc


def mcnemar(
    correct_a: np.ndarray,
    correct_b: np.ndarray,
    weights: np.ndarray | None = None,
    exact_threshold: int = 25,
) -> McNemarResult:
    """McNemar's test (McNemar 1947) from per-row correctness of two classifiers.

    Args:
        correct_a, correct_b: shape (n,), booleans (or 0/1): was the row classified correctly.
        weights: shape (n,), non-negative integer frequency weights (a row standing for w
            identical rows), or None. Non-integer weights raise ``ValueError``: the test counts
            discordant pairs and has no meaning for fractional counts.
        exact_threshold: use the exact test when ``b + c < exact_threshold``.

    Under H0 each discordant row is equally likely to favour either model, ``b ~ Bin(b + c, 1/2)``.

    * ``b + c < exact_threshold``: exact two-sided binomial test,
      ``p = min(1, 2 P(X <= min(b, c)))``, ``X ~ Bin(b + c, 1/2)`` (computed exactly).
    * otherwise: ``chi2 = (|b - c| - 1)^2 / (b + c)`` (Edwards' continuity correction) on one
      degree of freedom, ``p = P(chi2_1 >= chi2) = erfc(sqrt(chi2 / 2))``.
    * ``b + c == 0``: no evidence either way, ``statistic = 0``, ``p = 1``.

    This rule is the textbook one (exact where the chi-square approximation is poor; the exact
    test is statsmodels' default, the corrected chi-square R's ``mcnemar.test``). Both are
    conservative; Fagerland et al. (2013) recommend the mid-p test instead, so the result also
    carries the mid-p and the uncorrected asymptotic p-value (:func:`mcnemar_p_values`).
    """
    a = _as_labels(correct_a, "correct_a")
    bb = _as_labels(correct_b, "correct_b")
    if a.shape != bb.shape:
        raise ValueError(f"correct_a and correct_b differ in length: {a.shape[0]} vs {bb.shape[0]}")
    if weights is None:
        w = np.ones(a.shape[0], dtype=np.int64)
    else:
        wf = np.asarray(weights, dtype=np.float64)
        if wf.shape != a.shape:
            raise ValueError(f"weights must be 1-D of length {a.shape[0]}, got shape {wf.shape}")
        if not np.isfinite(wf).all() or (wf < 0).any():
            raise ValueError("weights must be finite and non-negative")
        if not (wf == np.round(wf)).all():
            raise ValueError(
                "McNemar's test counts discordant rows and needs integer frequency weights; "
                "found non-integer weights (use the bootstrap for weighted data)"
            )
        w = wf.astype(np.int64)
    n11 = int(w[a & bb].sum())
    n12 = int(w[a & ~bb].sum())
    n21 = int(w[~a & bb].sum())
    n22 = int(w[~a & ~bb].sum())
    b, c = n12, n21
    nd = b + c
    table = ((n11, n12), (n21, n22))
    n = n11 + n12 + n21 + n22
    ps = mcnemar_p_values(b, c)
    if nd == 0:
        return McNemarResult(table, b, c, 0.0, 1.0, "none (no discordant pairs)", n, *ps)
    if nd < exact_threshold:
        return McNemarResult(table, b, c, float(min(b, c)), ps[0], "exact binomial", n, *ps)
    stat = (abs(b - c) - 1.0) ** 2 / nd
    return McNemarResult(table, b, c, stat, ps[3], "chi-square (continuity-corrected)", n, *ps)


# =============================================================================================
# Holm
# =============================================================================================


def holm(p_values: Sequence[float | None]) -> list[float | None]:
    """Holm's step-down adjusted p-values (Holm 1979), in the input order.

    Args:
        p_values: raw p-values in [0, 1]; ``None`` entries (tests that could not be run) are
            passed through as ``None`` and do not count towards the family size.

    With the m defined p-values sorted ascending, ``p_(1) <= ... <= p_(m)``:

        p~_(i) = max_{j <= i} min(1, (m - j + 1) p_(j)),

    so adjusted values are monotone in the raw ones and capped at 1 (as R's
    ``p.adjust(method = "holm")``). Rejecting ``p~ <= alpha`` controls the family-wise error rate.
    """
    idx = [i for i, p in enumerate(p_values) if p is not None]
    vals = []
    for i in idx:
        p = float(p_values[i])  # type: ignore[arg-type]
        if not 0.0 <= p <= 1.0:  # also rejects NaN
            raise ValueError(f"p-values must lie in [0, 1], got {p_values[i]!r} at position {i}")
        vals.append(p)
    out: list[float | None] = [None] * len(p_values)
    m = len(vals)
    running = 0.0
    for rank, j in enumerate(sorted(range(m), key=lambda t: vals[t])):
        running = max(running, min(1.0, (m - rank) * vals[j]))
        out[idx[j]] = running
    return out


# =============================================================================================
# Bootstrap
# =============================================================================================

#: Upper bound on the number of multiplicity entries generated at once (rows x resamples).
_BLOCK_ELEMENTS = 1 << 22


def _block_size(n_rows: int, n_resamples: int) -> int:
    """Resamples per block; depends on the data size only, so a seed fixes the whole stream."""
    return max(1, min(n_resamples, _BLOCK_ELEMENTS // max(n_rows, 1)))


def bootstrap_strata(y: np.ndarray) -> list[np.ndarray]:
    """The strata of the stratified bootstrap: row indices of each value of ``y``.

    One array per distinct value, in ``np.unique`` order (False, then True for binary labels),
    each ascending. :func:`stratified_bootstrap_blocks` draws its counts in this order.
    """
    y = np.asarray(y)
    if y.ndim != 1:
        raise ValueError(f"y must be 1-D, got shape {y.shape}")
    if y.shape[0] == 0:
        return []
    _, strata = np.unique(y, return_inverse=True)
    strata = strata.reshape(-1)
    return [np.flatnonzero(strata == g) for g in range(int(strata.max()) + 1)]


def stratified_bootstrap_blocks(
    y: np.ndarray, n_resamples: int, rng: np.random.Generator
) -> Iterator[tuple[int, list[np.ndarray]]]:
    """Blocks of stratified resamples, as multiplicities of each stratum's rows.

    Yields, per block, ``(b, counts)``: the number of resamples ``b`` and one int64 array of
    shape (b, size) per stratum of :func:`bootstrap_strata` (same order), whose column i counts
    how often that stratum's i-th row is drawn. Within a stratum each resample is ``size``
    uniform draws with replacement.

    Consumers that work per class (the binary bootstrap's compressed tables) take the blocks
    as they are; :func:`stratified_bootstrap_counts` scatters them into whole-row vectors.
    The block size depends on ``n`` only, so a seed fixes the whole stream.
    """
    if n_resamples < 0:
        raise ValueError(f"n_resamples must be non-negative, got {n_resamples}")
    members = bootstrap_strata(y)
    step = _block_size(np.asarray(y).shape[0], n_resamples)
    done = 0
    while done < n_resamples:
        bsize = min(step, n_resamples - done)
        block = []
        for rows in members:
            size = rows.shape[0]
            draws = rng.integers(0, size, size=(bsize, size))
            # one bincount per resample: its counts array (size entries) stays in cache, which
            # makes it twice as fast as one bincount over bsize * size offset slots
            counts = np.empty((bsize, size), dtype=np.int64)
            for r in range(bsize):
                counts[r] = np.bincount(draws[r], minlength=size)
            del draws
            block.append(counts)
        done += bsize
        yield bsize, block


def _count_blocks(y: np.ndarray, n_resamples: int, rng: np.random.Generator) -> Iterator[np.ndarray]:
    """Blocks of multiplicity vectors, shape (block, n), stratified by the values of ``y``."""
    members = bootstrap_strata(y)
    n = np.asarray(y).shape[0]
    for b, counts in stratified_bootstrap_blocks(y, n_resamples, rng):
        block = np.zeros((b, n), dtype=np.int64)
        for rows, c in zip(members, counts):
            block[:, rows] = c
        yield block


def stratified_bootstrap_counts(y: np.ndarray, n_resamples: int, rng: np.random.Generator) -> Iterator[np.ndarray]:
    """Yield ``n_resamples`` stratified bootstrap resamples as row multiplicity vectors.

    Args:
        y: shape (n,), class labels (booleans for binary data; any labels stratify).
        n_resamples: number of resamples.
        rng: the random generator (the only source of randomness; same seed, same stream).

    Yields:
        ``m`` of shape (n,), int64: how often each row is drawn. Within each class the draw is a
        uniform multinomial over that class's rows, so every resample keeps each class's size
        (stratified bootstrap, as pROC's default ``boot.stratified = TRUE``).

    Generated in vectorised blocks (``rng.integers`` plus one ``bincount`` per class and block);
    the block size depends only on ``n``, so the stream is reproducible for a given seed.
    """
    for block in _count_blocks(y, n_resamples, rng):
        yield from block


def bootstrap_tables(
    table: ScoreTable,
    groups: np.ndarray,
    y: np.ndarray,
    m: np.ndarray,
    weights: np.ndarray | None = None,
) -> ScoreTable:
    """The score table of a resample, without re-sorting.

    Args:
        table: the table of the full data.
        groups: shape (n,), :func:`~reportgen.engine.curve.row_groups` of the full data's scores
            (index of each row's distinct score in ``table``).
        y: shape (n,), booleans (True = positive).
        m: shape (n,), row multiplicities of the resample.
        weights: shape (n,), the rows' sample weights if the table was weighted (multiplied by m).

    ``pos = bincount(groups[y], m[y], minlength=k)``, ``neg`` likewise over ``~y``; distinct
    scores that the resample did not draw keep a zero count.
    """
    y = np.asarray(y).astype(bool, copy=False)
    w = np.asarray(m, dtype=np.float64)
    if weights is not None:
        w = w * np.asarray(weights, dtype=np.float64)
    k = table.n_distinct
    # one bincount over (score, class) codes: each bin still sums its own rows in row order,
    # so the counts equal two bincounts over the masked rows, without the four mask gathers
    codes = np.left_shift(groups, 1)
    codes |= y
    counts = np.bincount(codes, weights=w, minlength=2 * k)
    del codes
    return reweighted(table, np.ascontiguousarray(counts[1::2]), np.ascontiguousarray(counts[0::2]))


def percentile_interval(values: np.ndarray, level: float = 0.95) -> tuple[float, float] | None:
    """Percentile bootstrap interval (Efron & Tibshirani 1993, section 13.3).

    Args:
        values: shape (B,), bootstrap replicates; NaN / infinite entries (resamples where the
            statistic was undefined) are ignored.
        level: coverage of the two-sided interval.

    Returns ``(q_{(1-level)/2}, q_{(1+level)/2})`` of the finite replicates, or None with fewer
    than two finite replicates. Quantiles by linear interpolation between order statistics
    (Hyndman & Fan 1996, type 7; R's default, as pROC): with the n sorted values ``x``,
    ``h = (n − 1)·p``, ``i = ⌊h⌋``, ``t = h − i``: ``x[i] + (x[i+1] − x[i])·t``, written
    ``x[i+1] − (x[i+1] − x[i])·(1 − t)`` when ``t ≥ ½`` — ``np.quantile``'s default to the bit
    (tests/unit/test_stats.py), from one sort (``np.quantile`` also calls ``np.unique``, whose
    first call imports ``numpy.ma``).
    """
    _check_level(level)
    v = np.asarray(values, dtype=np.float64).ravel()
    v = np.sort(v[np.isfinite(v)])
    n = v.shape[0]
    if n < 2:
        return None
    h = (n - 1) * np.array([(1.0 - level) / 2.0, (1.0 + level) / 2.0])
    i = np.floor(h)
    t = h - i
    below = np.minimum(i.astype(np.intp), n - 1)
    a, b = v[below], v[np.minimum(below + 1, n - 1)]
    d = b - a
    lo, hi = np.where(t >= 0.5, b - d * (1.0 - t), a + d * t)
    return float(lo), float(hi)


@dataclass(frozen=True, slots=True, eq=False)
class BootstrapResult:
    """Replicates and percentile intervals of one or several statistics on shared resamples.

    Attributes:
        estimate_samples: shape (n_resamples, k), one column per statistic (k = 1 for a scalar
            statistic); NaN where the statistic was undefined on that resample.
        lo, hi: per statistic, the percentile interval bounds, None when fewer than two
            replicates were finite.
        n_resamples: number of resamples drawn.
        n_valid: per statistic, the number of finite replicates.
        level: coverage of the intervals.
    """

    estimate_samples: np.ndarray
    lo: tuple[float | None, ...]
    hi: tuple[float | None, ...]
    n_resamples: int
    n_valid: tuple[int, ...]
    level: float = 0.95

    def __post_init__(self) -> None:
        self.estimate_samples.setflags(write=False)


def paired_bootstrap(
    statistic: Callable[[np.ndarray], np.ndarray | float],
    y: np.ndarray,
    n_resamples: int,
    rng: np.random.Generator,
    level: float = 0.95,
    progress: Callable[[int, int], None] | None = None,
) -> BootstrapResult:
    """Stratified, paired bootstrap of any statistic of the rows.

    Args:
        statistic: maps a multiplicity vector ``m`` (shape (n,), int) to a float or a 1-D array
            of k floats (several metrics, several models, or their differences at once). Every
            model sees the same ``m``, which makes the resampling paired. Return NaN for a value
            that is undefined on a resample.
        y: shape (n,), class labels used for stratification.
        n_resamples: number of resamples B (at least 1).
        rng: the random generator.
        level: coverage of the percentile intervals.
        progress: called as ``progress(done, total)`` after each block of resamples; the engine
            never prints.

    Returns a :class:`BootstrapResult`; intervals by :func:`percentile_interval` per column.
    """
    _check_level(level)
    if n_resamples < 1:
        raise ValueError(f"n_resamples must be at least 1, got {n_resamples}")
    rows: list[np.ndarray] = []
    width: int | None = None
    done = 0
    for block in _count_blocks(y, n_resamples, rng):
        for m in block:
            value = np.atleast_1d(np.asarray(statistic(m), dtype=np.float64))
            if value.ndim != 1:
                raise ValueError(f"statistic must return a float or a 1-D array, got shape {value.shape}")
            if width is None:
                width = value.shape[0]
            elif value.shape[0] != width:
                raise ValueError(f"statistic returned {value.shape[0]} values after returning {width} before")
            rows.append(value)
        done += block.shape[0]
        if progress is not None:
            progress(done, n_resamples)
    samples = np.vstack(rows)
    lo: list[float | None] = []
    hi: list[float | None] = []
    valid: list[int] = []
    for j in range(samples.shape[1]):
        col = samples[:, j]
        valid.append(int(np.isfinite(col).sum()))
        interval = percentile_interval(col, level)
        lo.append(None if interval is None else interval[0])
        hi.append(None if interval is None else interval[1])
    return BootstrapResult(
        estimate_samples=samples,
        lo=tuple(lo),
        hi=tuple(hi),
        n_resamples=n_resamples,
        n_valid=tuple(valid),
        level=level,
    )
