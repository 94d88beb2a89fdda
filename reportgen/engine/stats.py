"""Statistical inference for model comparison: McNemar, Holm, the bootstrap and the normal and
Welch tests of a difference.

Pure computation: arrays in, frozen values out; no I/O, no printing, randomness only through a
``numpy.random.Generator`` the caller passes in. The normal, Student-t, binomial and chi-square
distributions come from :mod:`reportgen.engine.distributions`; DeLong's interval and tests on
rows are :mod:`reportgen.engine.delong`'s (a comparison run takes DeLong from score tables:
:mod:`reportgen.engine.streaming`).

Contents:

* The Wald test with a normal reference and Welch's t-test of a difference
  (:func:`normal_test`, :func:`welch_test`), and :data:`SMALL_CLASS`, below which a DeLong
  interval or test carries a warning.
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

from reportgen.engine.curve import ScoreTable, reweighted
from reportgen.engine.distributions import (
    binom_half_cdf,
    binom_half_pmf,
    chi2_sf,
    norm_ppf,
    norm_two_sided_p,
    t_critical,
    t_two_sided_p,
)
from reportgen.value import Shown, Value

__all__ = [
    "SMALL_CLASS",
    "BootstrapResult",
    "McNemarResult",
    "bootstrap_strata",
    "bootstrap_tables",
    "holm",
    "mcnemar",
    "mcnemar_p_values",
    "paired_bootstrap",
    "percentile_interval",
    "stratified_bootstrap_blocks",
    "stratified_bootstrap_counts",
]

#: Fewest rows in the smaller class for which DeLong's normal approximation is taken at face
#: value; below it, intervals and tests carry a warning (the rule of thumb the report uses).
SMALL_CLASS = 30


# =============================================================================================
# Input checks
# =============================================================================================


def as_labels(y: np.ndarray, name: str = "y") -> np.ndarray:
    """Binary labels as a boolean array: booleans, or numbers that are all 0 or 1."""
    y = np.asarray(y)
    if y.ndim != 1:
        raise ValueError(f"{name} must be 1-D, got shape {y.shape}")
    if y.dtype == bool:
        return y
    if not np.isin(y, (0, 1)).all():
        raise ValueError(f"{name} must hold booleans or 0/1, found values {np.unique(y)[:5]}")
    return y.astype(bool)


def check_level(level: float) -> None:
    """A confidence level strictly between 0 and 1, else ValueError."""
    if not 0.0 < level < 1.0:
        raise ValueError(f"level must be strictly between 0 and 1, got {level}")


# =============================================================================================
# Tests of a difference (DeLong's, calibration's, …)
# =============================================================================================


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
    a = as_labels(correct_a, "correct_a")
    bb = as_labels(correct_b, "correct_b")
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
    check_level(level)
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


@dataclass(frozen=True, slots=True, eq=False, repr=False)
class BootstrapResult(Shown):
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
    check_level(level)
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
