"""The credit-risk validation battery: calibration by grade, stability, performance over time.

Arrays in, frozen results (:mod:`reportgen.results` ``Credit*`` types) out; pure numpy, no I/O,
no prose. The statistics and their sources:

* **Grades** (:func:`grade_codes`): PD edges (grade i holds ``edges[i-1] <= pd < edges[i]``),
  a rating column, or quantiles of the reference (or current) PD / score.
* **Jeffreys test** (ECB 2019, *Instructions for reporting the validation results of internal
  models*, IRB PD, section 2.5.3.1): posterior Beta(D + ½, N − D + ½) of the default rate under
  the Jeffreys prior; ``p = F_Beta(PD)``, the posterior probability that the true default rate is
  at most the mean PD: a small p says the PD is underestimated (one-sided).
* **Default rate interval** per grade: the Jeffreys interval of Brown, Cai & DasGupta (2001,
  *Statist. Sci.* 16:101, section 4.1.2), the equal-tailed quantiles of Beta(D + ½, N − D + ½),
  with the lower end 0 when D = 0 and the upper end 1 when D = N (their definition; R's
  DescTools ``BinomCI(method = "jeffreys")``).
* **Binomial test** (BCBS WP14, 2005, section 5.2): ``p = P(X ≥ D)``, ``X ~ Bin(N, PD)``,
  computed exactly as ``I_PD(D, N − D + 1)`` (the regularised incomplete beta).
* **Hosmer–Lemeshow** over the G grades (Hosmer & Lemeshow 1980; BCBS WP14 section 5.4):
  ``H = Σ (D_g − N_g p_g)² / (N_g p_g (1 − p_g))``, χ² with **G** degrees of freedom, because the
  sample is an independent validation sample (not the development sample, where G − 2 applies;
  that p-value is given beside it, outside the verdict, for comparison with ``hoslem.test``-style
  tools).
* **Spiegelhalter** (1986, *Stat. Med.* 5:421): ``z = Σ (y − p)(1 − 2p) / √Σ (1 − 2p)² p (1 − p)``.
* **Brier score and log-loss of the PD** (as ``sklearn.metrics.brier_score_loss`` / ``log_loss``):
  ``Σ c (y − p)² / Σ c`` and ``−Σ c [y ln p + (1 − y) ln(1 − p)] / Σ c``, p clipped to [ε, 1 − ε]
  (ε machine epsilon) in the logarithms, c the rows' counts; the **reliability curve** of the PD:
  ten equal-width PD bins (``[0.1k, 0.1(k + 1))``, the last closed), mean PD against the
  default rate, with the obligors in each bin (:func:`pd_losses`, :func:`reliability`). On the
  PD column where a model has one (a scorecard's points are no probability), so the models'
  calibration is compared on the same scale.
* **Calibration in the large**: ``DR − mean PD``, O/E = ``D / Σp`` and ``z = (D − Σp) / √Σ p(1 − p)``.
* **Calibration slope and intercept** (Cox 1958, *Biometrika* 45:562; Van Calster et al. 2016):
  maximum likelihood of ``logit P(y) = a + b·logit(p)`` (the slope b) and of
  ``logit P(y) = a + logit(p)`` (the intercept a, slope fixed at 1), by Newton–Raphson with
  Wald intervals from the observed information.
* **ECB AUC test** (ECB 2019, section 2.6.2): ``S = (AUC_init − AUC_curr) / σ_curr``,
  ``p = 1 − Φ(S)``, σ from DeLong (:func:`reportgen.engine.delong.delong_auc_ci`).
* **CAP and accuracy ratio** (BCBS WP14 section 3.2): CAP = share of defaults captured against
  share of rows taken riskiest first; AR = 2·AUC − 1 (ties count one half), with the normal
  interval of Engelmann, Hayden & Tasche (2003) from Bamber's (1975) unbiased variance of the AUC
  (:func:`bamber_auc_variance`; the ECB AUC test and the per-period AUC/Gini intervals use DeLong's).
* **PSI** over the grades (or reference score deciles): ``Σ (a − e) ln(a / e)``; a bin empty in
  one sample counts 0.5 rows there (:data:`EMPTY_RULE`), the shares renormalised; a bin empty in
  both is left out.
* **Herfindahl index** of grade shares: ``HI = Σ s²``, normalised ``(HI − 1/K)/(1 − 1/K)`` and the
  ECB form ``1 + ln((CV² + 1)/K)/ln K`` (= ``1 + ln(HI)/ln K``), CV = ``√(K Σ (s − 1/K)²)`` the
  coefficient of variation of the shares (ECB 2019 section 2.5.2); the ECB test of the current
  concentration against the initial one (the reference sample's), ``S = √(K − 1)(CV_curr − CV_init)
  / √(CV_curr²(½ + CV_curr²))``, ``p = 1 − Φ(S)`` (:func:`concentration_test`).
* **Grade migration** of the obligors in both samples (joined by id; an id of frequency weight w
  is w obligors), with the ECB (2019, section 2.5.5) lower and upper matrix weighted bandwidths
  (:func:`matrix_weighted_bandwidth`) and the stability test of each off-diagonal cell against
  its neighbour nearer the diagonal (:func:`migration_stability`).
* Per-period and per-segment AUC/Gini (DeLong intervals) and KS.

Traffic lights from p-values: green ``p ≥ amber``, amber ``red ≤ p < amber``, red ``p < red``
(defaults 0.05 and 0.001, BCBS WP14's 95 % / 99.9 % levels); the PSI: green below
``psi_amber`` (0.10), red from ``psi_red`` (0.25), the industry rule of thumb (Siddiqi 2006).

The distributions (normal, Beta, binomial tail, χ²) come from
:mod:`reportgen.engine.distributions`.
"""

from __future__ import annotations

import itertools
import math
from dataclasses import dataclass
from typing import Literal

import numpy as np

from reportgen.engine import pd_battery as PB
from reportgen.engine.binary import decimate
from reportgen.engine.curve import Direction, ScoreTable
from reportgen.engine.delong import delong_auc_ci
from reportgen.engine.distributions import beta_cdf, beta_ppf, binomial_sf, chi2_sf, norm_ppf, norm_sf, norm_two_sided_p
from reportgen.engine.proportions import delong_auc_bounds
from reportgen.option_results import CalibrationSummary
from reportgen.results import CalibrationData, CurveData
from reportgen.section_results import (
    AdjacentGrades,
    Concentration,
    CorrelatedBinomial,
    CreditAucHistory,
    CreditCalibration,
    CreditGrade,
    CreditGroup,
    CreditMigration,
    CreditModel,
    CreditPeriodTests,
    CreditStability,
    CreditTest,
    GradePower,
    PeriodLights,
    PsiBin,
    ShareHistogram,
)

__all__ = [
    "EMPTY_RULE",
    "CreditSample",
    "CreditSettings",
    "Grading",
    "merged_rows",
    "calibration_fit",
    "pd_calibration",
    "pd_losses",
    "reliability",
    "concentration",
    "concentration_test",
    "credit_model",
    "grade_codes",
    "hosmer_lemeshow",
    "jeffreys_p",
    "auc_interval",
    "accuracy_ratio_interval",
    "bamber_auc_variance",
    "ks_statistic",
    "light_of",
    "matrix_weighted_bandwidth",
    "migration_stability",
    "period_keys",
    "psi",
    "spiegelhalter",
]

#: The empty-bin rule of the PSI: a bin with no rows in one sample counts half a row there; a bin
#: with no rows in either sample is left out.
EMPTY_RULE = "half_row"

#: The label of the one grade of quantiles cut from a sample of one value (no edge lies inside it).
ONE_GRADE = "all"

Light = Literal["green", "amber", "red"]
GradedBy = Literal["pd", "score", "column"]
_ORDER: dict[Light, int] = {"green": 0, "amber": 1, "red": 2}


def jeffreys_p(d: np.ndarray | int, n: np.ndarray | int, pd: np.ndarray | float) -> np.ndarray:
    """ECB (2019) Jeffreys test p-value: ``F_Beta(D + ½, N − D + ½)(PD)``."""
    ds, ns, pds = (np.asarray(v, dtype=float) for v in np.broadcast_arrays(d, n, pd))
    return beta_cdf(pds, ds + 0.5, ns - ds + 0.5)


# --------------------------------------------------------------------------------------
# Settings and inputs
# --------------------------------------------------------------------------------------


@dataclass(frozen=True, slots=True)
class CreditSettings:
    """Analysis settings of the battery (from config ``credit:``; defaults documented there)."""

    amber: float = 0.05
    red: float = 0.001
    psi_amber: float = 0.10
    psi_red: float = 0.25
    min_defaults: int = 5
    level: float = 0.95
    #: rho of the binomial test with correlated defaults, or the Basel IRB corporate formula per grade
    asset_correlation: float | Literal["irb_corporate"] = 0.12
    #: the grade tests' power is computed at a true default rate of the PD times this
    power_ratio: float = 1.5


@dataclass(frozen=True, slots=True)
class Grading:
    """How rows become grades: ``kind`` edges (PD edges), column (labels) or quantiles (count).

    ``order`` (column only): the rating scale, best grade (lowest PD) first; every listed grade is
    a grade (an empty one included) and every label of the rows must be listed. Empty: the labels
    seen, sorted as numbers when all are numbers, else as text.
    """

    kind: Literal["edges", "column", "quantiles"]
    edges: tuple[float, ...] = ()
    quantiles: int = 10
    order: tuple[str, ...] = ()


@dataclass(frozen=True, slots=True, eq=False)
class CreditSample:
    """One sample (current or reference) of one model, rows aligned across the arrays.

    Attributes:
        y: shape (n,), bool, True = default.
        score: shape (n,), the ranking score in its own units.
        pd: shape (n,) PDs in [0, 1], or None (a scorecard without a PD column).
        grade: shape (n,) grade labels as text (``credit.grades.column``), or None.
        dates: shape (n,) ``datetime64[D]``, or None.
        segment: shape (n,) segment labels as text, or None.
        ids: shape (n,) row ids as text, or None.
        count: shape (n,) whole numbers >= 1, how many obligors each row stands for (the streamed
            and Dask runners compress rows with equal values into one row with its count), or
            None: one each. Every statistic is that of the rows repeated by their counts.
    """

    y: np.ndarray
    score: np.ndarray
    pd: np.ndarray | None = None
    grade: np.ndarray | None = None
    dates: np.ndarray | None = None
    segment: np.ndarray | None = None
    ids: np.ndarray | None = None
    count: np.ndarray | None = None


def _ones(sample: CreditSample) -> np.ndarray:
    """The sample's row counts as float64 (ones when the rows are not compressed)."""
    return np.ones(len(sample.y)) if sample.count is None else np.asarray(sample.count, dtype=float)


# --------------------------------------------------------------------------------------
# Building blocks
# --------------------------------------------------------------------------------------


def light_of(p: float | None, amber: float, red: float) -> Light | None:
    """green if ``p ≥ amber``, amber if ``red ≤ p < amber``, red if ``p < red``; None for None."""
    if p is None:
        return None
    return "red" if p < red else ("amber" if p < amber else "green")


def _psi_light(v: float, s: CreditSettings) -> Light:
    return "red" if v >= s.psi_red else ("amber" if v >= s.psi_amber else "green")


def _worst(lights: list[Light | None]) -> Light | None:
    known: list[Light] = [x for x in lights if x is not None]
    if not known:
        return None
    return max(known, key=_ORDER.__getitem__)


def _f(v: float) -> float | None:
    return float(v) if math.isfinite(v) else None


def _label_order(labels: np.ndarray) -> np.ndarray:
    """Distinct labels in grade order: numerically if every label is a number, else as text."""
    distinct = np.unique(labels.astype(str))
    try:
        values = distinct.astype(float)
    except ValueError:
        return distinct
    return distinct[np.argsort(values, kind="stable")]


def grade_codes(values: np.ndarray, edges: np.ndarray) -> np.ndarray:
    """Grade index of each value: ``i`` such that ``edges[i-1] <= v < edges[i]`` (0 … len(edges))."""
    return np.searchsorted(np.asarray(edges, dtype=float), values, side="right")


def _quantile_edges(values: np.ndarray, q: int, count: np.ndarray | None = None) -> np.ndarray:
    """Inner edges at the 1/q … (q−1)/q quantiles (linear interpolation), duplicates dropped, and
    an edge dropped where it would leave a grade without rows of ``values`` (:func:`_filled_edges`).

    A value on an edge goes to the grade above it, the riskier one (:func:`grade_codes`:
    ``edges[i-1] <= v < edges[i]``, as configured PD edges and toad's ``np.digitize`` bins); R's
    ``cut(right = TRUE)`` and pandas' ``qcut`` close the grades on the right instead.

    With ``count`` (each value repeated that many times) the quantiles are those of the repeated
    values, exactly: numpy's linear rule interpolates between the order statistics at
    ``floor(h)`` and ``ceil(h)``, ``h = (N − 1)·p``, found here by a search in the cumulative counts.

    An edge at zero is +0.0 (``+ 0.0`` turns −0.0 into +0.0): the rows may hold both zeros (a
    rounded negative score, or an oriented ``-1 · 0``) and which one an order statistic picks
    depends on how the rows were grouped, so grade labels read "-0" in one engine and "0" in another.
    """
    probs = np.arange(1, q) / q
    if count is None:
        return _filled_edges(np.unique(np.quantile(values, probs)) + 0.0, values, None)
    order = np.argsort(values, kind="stable")
    v, cum = values[order], np.cumsum(np.asarray(count, dtype=np.int64)[order])
    h = (cum[-1] - 1) * probs
    lo = v[np.searchsorted(cum, np.floor(h), side="right")]
    hi = v[np.searchsorted(cum, np.ceil(h), side="right")]
    inner = np.array([np.quantile(np.array([a, b]), t) for a, b, t in zip(lo, hi, h - np.floor(h), strict=True)])
    return _filled_edges(np.unique(inner) + 0.0, values, count)


def _filled_edges(edges: np.ndarray, values: np.ndarray, count: np.ndarray | None) -> np.ndarray:
    """The quantile edges without those that leave a grade of ``values`` empty: the lower edge of
    an empty grade (it joins the grade below), the first edge when it equals the smallest value
    (nothing lies below it), as toad's ``QuantileMerge`` drops that one.

    Tied values put quantiles on the values themselves: PDs 0.5 % for 60 % of a book give the
    deciles 0.5 %, 0.5 %, …, and the edge at 0.5 % left a grade "< 0.5 %" that no row of the
    sample could fall in, yet counted as a grade in the Herfindahl index and its ECB test (K).
    A grade of quantiles now always holds rows of the sample it was cut from."""
    if edges.size == 0:
        return edges
    n = np.bincount(grade_codes(values, edges), weights=count, minlength=edges.size + 1)
    keep = n[1:] > 0  # edge i is the lower edge of grade i + 1
    keep[0] &= n[0] > 0
    return edges[keep]


def _edge_labels(edges: np.ndarray, pct: bool) -> list[str]:
    def f(v: float) -> str:
        return f"{v * 100:.3g} %" if pct else f"{v:g}"

    if edges.size == 0:  # quantiles of one value: one grade holds every row
        return [ONE_GRADE]
    bounds = [None, *edges.tolist(), None]
    out = []
    for lo, hi in itertools.pairwise(bounds):
        if lo is None:
            out.append(f"< {f(hi)}")
        elif hi is None:
            out.append(f"≥ {f(lo)}")
        else:
            out.append(f"{f(lo)} – {f(hi)}")
    return out


def hosmer_lemeshow(n: np.ndarray, d: np.ndarray, pd: np.ndarray) -> tuple[float | None, int, str | None]:
    """``H = Σ (D_g − N_g p_g)² / (N_g p_g (1 − p_g))`` over non-empty grades; (H, G, reason).

    Undefined (None, reason ``no_defaults_possible``) when a grade's mean PD is 0 or 1.
    """
    used = n > 0
    n, d, pd = n[used], d[used], pd[used]
    g = int(used.sum())
    if g == 0:
        return None, 0, "no_rows"
    var = n * pd * (1.0 - pd)
    if np.any(var <= 0.0):
        return None, g, "no_defaults_possible"
    return float(np.sum((d - n * pd) ** 2 / var)), g, None


def spiegelhalter(y: np.ndarray, p: np.ndarray, count: np.ndarray | None = None) -> tuple[float | None, str | None]:
    """Spiegelhalter's z = Σ (y − p)(1 − 2p) / √Σ (1 − 2p)² p (1 − p); (z, reason); ``count``: rows
    repeated that many times."""
    c = np.ones(len(p)) if count is None else count
    var = float(np.sum(c * (1.0 - 2.0 * p) ** 2 * p * (1.0 - p)))
    if var <= 0.0:
        return None, "zero_variance"
    return float(np.sum(c * (y - p) * (1.0 - 2.0 * p)) / math.sqrt(var)), None


def _expit(eta: np.ndarray) -> np.ndarray:
    """``1 / (1 + e^−η)``; a fit running off to ±∞ (separation: no default, or every row one) takes
    e^−η past the float range on its way to failing, which is 0 or 1 here, not a RuntimeWarning
    on the user's terminal."""
    with np.errstate(over="ignore"):
        return 1.0 / (1.0 + np.exp(-eta))


def _newton_logistic(
    x: np.ndarray, y: np.ndarray, offset: np.ndarray, count: np.ndarray | None = None
) -> tuple[np.ndarray, np.ndarray] | None:
    """Maximum likelihood of ``logit P(y) = offset + x·β`` by Newton–Raphson with step halving;
    (β, covariance).

    ``x``: shape (n, k); ``count``: rows repeated that many times (the likelihood's terms
    multiplied). A Newton step that lowers the log-likelihood is halved until it does not (as R's
    ``glm.fit``): from β = 0 the full step overshoots when the default rate is far from the PDs
    (8 times the mean PD: the intercept's iterates ran 9.5, −333, 4e145 and the test was reported
    undefined, exactly where calibration fails). None when the information matrix is singular or
    the fit runs off to infinity (separation: no maximum).
    """
    c = np.ones(len(y)) if count is None else count

    def loglik(b: np.ndarray) -> float:
        eta = offset + x @ b
        return float(np.sum(c * (y * eta - np.logaddexp(0.0, eta))))

    beta = np.zeros(x.shape[1])
    ll = loglik(beta)
    for _ in range(100):
        mu = _expit(offset + x @ beta)
        w = c * mu * (1.0 - mu)
        info = (x * w[:, None]).T @ x
        grad = x.T @ (c * (y - mu))
        try:
            step = np.linalg.solve(info, grad)
        except np.linalg.LinAlgError:
            return None
        for _halving in range(60):
            trial = beta + step
            ll_trial = loglik(trial)
            if math.isfinite(ll_trial) and ll_trial >= ll - 1e-12 * abs(ll):
                break
            step = 0.5 * step
        else:
            return None
        beta, ll = trial, ll_trial
        if not np.all(np.isfinite(beta)) or np.max(np.abs(beta)) > 1e6:
            return None
        if np.max(np.abs(step)) < 1e-10:
            break
    else:
        return None
    eta = offset + x @ beta
    mu = _expit(eta)
    info = (x * (c * mu * (1.0 - mu))[:, None]).T @ x
    try:
        cov = np.linalg.inv(info)
    except np.linalg.LinAlgError:
        return None
    return beta, cov


def calibration_fit(
    y: np.ndarray, p: np.ndarray, count: np.ndarray | None = None
) -> tuple[tuple[float, float] | None, tuple[float, float] | None]:
    """((slope, se), (intercept, se)) of the logistic recalibration on ``logit(p)``.

    Slope: ``logit P(y) = a + b·logit(p)``, b and its se. Intercept: ``logit P(y) = a + logit(p)``
    (offset, slope 1), a and its se. PDs are clipped to [1e-12, 1 − 1e-12] before the logit.
    The slope is None when every row has the same PD (not identified); either is None when its
    likelihood has no maximum (no default, or no non-default, at the PDs: separation).
    """
    yy = np.asarray(y, dtype=float)
    lp = np.clip(np.asarray(p, dtype=float), 1e-12, 1.0 - 1e-12)
    lg = np.log(lp) - np.log1p(-lp)
    ones = np.ones_like(lg)
    zero = np.zeros_like(lg)
    # one PD for every row: the slope is not identified (the two columns are one); the solver's
    # rounding could still return a 'slope' 0 with se 1e7 (rows with counts)
    both = None if np.ptp(lg) == 0.0 else _newton_logistic(np.column_stack([ones, lg]), yy, zero, count)
    slope = None if both is None else (float(both[0][1]), float(math.sqrt(max(both[1][1, 1], 0.0))))
    off = _newton_logistic(ones[:, None], yy, lg, count)
    intercept = None if off is None else (float(off[0][0]), float(math.sqrt(max(off[1][0, 0], 0.0))))
    return slope, intercept


def psi(reference: np.ndarray, current: np.ndarray) -> tuple[float, np.ndarray, np.ndarray, np.ndarray]:
    """PSI of two count vectors over the same bins; (psi, e, a, contributions).

    ``e``, ``a``: reference and current shares after the empty-bin rule: a bin empty in one
    sample counts 0.5 rows there, then shares renormalise; a bin empty in both samples is left
    out (share 0 in both, contribution 0), so a grade nobody falls in does not move the index
    (as in toad, PDtoolkit and scorecard, which never see such a bin). Contributions
    ``(a − e) ln(a / e)``, each ≥ 0. Without empty bins this is the plain
    ``Σ (a − e) ln(a / e)`` of the shares.
    """
    reference, current = np.asarray(reference, dtype=float), np.asarray(current, dtype=float)
    used = (reference > 0) | (current > 0)
    ref = np.where(reference > 0, reference, np.where(used, 0.5, 0.0))
    cur = np.where(current > 0, current, np.where(used, 0.5, 0.0))
    e, a = ref / ref.sum(), cur / cur.sum()
    contrib = np.zeros_like(e)
    contrib[used] = (a[used] - e[used]) * np.log(a[used] / e[used])
    return float(contrib.sum()), e, a, contrib


def concentration(counts: np.ndarray) -> Concentration:
    """Herfindahl index of the shares of ``counts`` (K = len(counts) grades, empty grades included).

    ``HI = Σ s²``; normalised ``(HI − 1/K)/(1 − 1/K)``; the ECB (2019, section 2.5.2) form from the
    coefficient of variation of the shares ``CV = √(K Σ (s_i − 1/K)²)``:
    ``HI_ECB = 1 + ln((CV² + 1)/K)/ln K``, which equals ``1 + ln(HI)/ln K`` because
    ``CV² + 1 = K·Σ s²``. Both vanish when the grades are evenly filled and reach 1 when one grade
    holds every row.
    """
    k = int(counts.shape[0])
    total = float(counts.sum())
    s = counts / total if total > 0 else np.zeros(k)
    hi = float(np.sum(s**2))
    if k < 2:
        return Concentration(herfindahl=hi, normalised=None, ecb=None, grades=k, cv=None)
    cv = math.sqrt(k * float(np.sum((s - 1.0 / k) ** 2))) if total > 0 else None
    return Concentration(
        herfindahl=hi,
        normalised=(hi - 1.0 / k) / (1.0 - 1.0 / k),
        ecb=1.0 + math.log((cv**2 + 1.0) / k) / math.log(k) if cv is not None else None,
        grades=k,
        cv=cv,
    )


def concentration_test(
    cv_initial: float | None, cv_current: float | None, k: int
) -> tuple[float | None, float | None, str | None]:
    """ECB (2019, section 2.5.2) test of the current concentration in grades against the initial one;
    (statistic, p, reason).

    The Herfindahl index at the initial validation (here: of the reference sample) is taken as
    deterministic and the current one as approximately normal:
    ``S = √(K − 1)·(CV_curr − CV_init) / √(CV_curr²·(½ + CV_curr²))``, ``p = 1 − Φ(S)``, one-sided,
    H0: the current concentration is not above the initial one (a small p says the grades have
    become more concentrated). Undefined for fewer than two grades (``one_grade``) and when the
    current grades are evenly filled (CV_curr = 0: ``zero_variance``).
    """
    if k < 2 or cv_initial is None or cv_current is None:
        return None, None, "one_grade"
    var = cv_current**2 * (0.5 + cv_current**2)
    if var <= 0.0:
        return None, None, "zero_variance"
    stat = math.sqrt(k - 1.0) * (cv_current - cv_initial) / math.sqrt(var)
    return stat, float(norm_sf(stat)), None


def ks_statistic(
    score: np.ndarray, y: np.ndarray, direction: Direction = "higher", count: np.ndarray | None = None
) -> float | None:
    """max |TPR − FPR| over the cuts between distinct scores (the two-sample KS of the classes);
    ``count``: rows repeated that many times."""
    y = np.asarray(y, dtype=bool)
    c = np.ones(len(y)) if count is None else np.asarray(count, dtype=float)
    p, n = float(c[y].sum()), float(c[~y].sum())
    if p == 0 or n == 0:
        return None
    s = np.asarray(score, dtype=float)
    s = -s if direction == "lower" else s
    order = np.argsort(-s, kind="stable")
    ys, ss, cs = y[order], s[order], c[order]
    last = np.r_[ss[1:] != ss[:-1], True]
    tp = np.cumsum(cs * ys)[last] / p
    fp = np.cumsum(cs * ~ys)[last] / n
    return float(np.max(np.abs(tp - fp)))


def auc_interval(
    score: np.ndarray, y: np.ndarray, direction: Direction, level: float, count: np.ndarray | None = None
) -> tuple[float, float, float, float] | None:
    """(AUC, lo, hi, se) with DeLong's variance; None without two rows of each class. The interval is
    the models' (:func:`~reportgen.engine.proportions.delong_auc_bounds`: normal, or on the logit
    scale where the normal one would leave [0, 1]), so one model's AUC gets one kind of interval in
    every part of the report.

    Rows one each (``count`` None): :func:`reportgen.engine.delong.delong_auc_ci`. Compressed rows
    (``count``): the same estimator on the table of distinct scores, exactly that of the repeated
    rows: a positive at score s has placement ``V10 = (negatives below s + ½ negatives at s)/k``, a
    negative ``V01 = (positives above s + ½ positives at s)/m``; AUC = mean V10;
    ``Var = S10/m + S01/k``, S the sample variances (n − 1) of the placements (DeLong et al. 1988).
    """
    yb = np.asarray(y, dtype=bool)
    c = np.ones(len(yb)) if count is None else np.asarray(count, dtype=float)
    m, k = float(c[yb].sum()), float(c[~yb].sum())
    if m < 2 or k < 2:
        return None
    if count is None:
        iv = delong_auc_ci(score, yb, direction, level)
        lo, hi, _ = delong_auc_bounds(iv.auc, iv.variance, level)
        return iv.auc, lo, hi, iv.se
    s = np.asarray(score, dtype=float)
    s = -s if direction == "lower" else s
    u, inv = np.unique(s, return_inverse=True)
    pos = np.bincount(inv, weights=c * yb, minlength=len(u))
    neg = np.bincount(inv, weights=c * ~yb, minlength=len(u))
    v10 = (np.cumsum(neg) - neg + 0.5 * neg) / k
    v01 = (m - np.cumsum(pos) + 0.5 * pos) / m
    auc = float(np.sum(pos * v10) / m)
    var = float(np.sum(pos * (v10 - auc) ** 2) / (m - 1) / m + np.sum(neg * (v01 - auc) ** 2) / (k - 1) / k)
    lo, hi, _ = delong_auc_bounds(auc, max(var, 0.0), level)
    return auc, lo, hi, math.sqrt(max(var, 0.0))


def bamber_auc_variance(
    score: np.ndarray, y: np.ndarray, direction: Direction, count: np.ndarray | None = None
) -> tuple[float, float] | None:
    """(AUC, variance) with Bamber's (1975) unbiased variance of the Mann–Whitney AUC, the
    estimator Engelmann, Hayden & Tasche (2003, *Risk* 16(1):82, "Testing rating accuracy") and
    BCBS WP14 (2005, section 3.2) give for the AUROC and the accuracy ratio's interval; None
    without two defaults and two non-defaults. ``count``: rows repeated that many times.

    With N_D defaults, N_ND non-defaults and U the AUC (ties one half)::

        σ² = [P(D ≠ ND) + (N_D − 1)·P_DDN + (N_ND − 1)·P_NND − 4(N_D + N_ND − 1)(U − ½)²]
             / (4 (N_D − 1)(N_ND − 1))

    ``P_DDN = P(D1, D2 < ND) + P(ND < D1, D2) − P(D1 < ND < D2) − P(D2 < ND < D1)`` over two
    distinct defaults and a non-default (for one non-default with A defaults riskier and B safer:
    ``(A − B)² − (A + B)`` ordered pairs of distinct defaults), ``P_NND`` the same with the roles
    swapped. Each P is the U-statistic of its pairs (distinct obligors), which makes σ² unbiased
    (Bamber's property; checked by exact enumeration in tests/reference), ties included. It is not
    DeLong's variance, which is biased upwards (by about 0.1 % of the standard error on the demo).
    """
    yb = np.asarray(y, dtype=bool)
    c = np.ones(len(yb)) if count is None else np.asarray(count, dtype=float)
    m, k = float(c[yb].sum()), float(c[~yb].sum())
    if m < 2 or k < 2:
        return None
    s = np.asarray(score, dtype=float)
    s = -s if direction == "lower" else s  # higher = riskier
    u, inv = np.unique(s, return_inverse=True)
    pos = np.bincount(inv, weights=c * yb, minlength=len(u))
    neg = np.bincount(inv, weights=c * ~yb, minlength=len(u))
    pos_below, neg_below = np.cumsum(pos) - pos, np.cumsum(neg) - neg  # strictly safer
    pos_above, neg_above = m - pos_below - pos, k - neg_below - neg  # strictly riskier
    auc = float(np.sum(pos * (neg_below + 0.5 * neg)) / (m * k))
    unequal = 1.0 - float(np.sum(pos * neg)) / (m * k)
    p_ddn = float(np.sum(neg * ((pos_above - pos_below) ** 2 - (pos_above + pos_below)))) / (m * (m - 1.0) * k)
    p_nnd = float(np.sum(pos * ((neg_above - neg_below) ** 2 - (neg_above + neg_below)))) / (k * (k - 1.0) * m)
    var = (unequal + (m - 1.0) * p_ddn + (k - 1.0) * p_nnd - 4.0 * (m + k - 1.0) * (auc - 0.5) ** 2) / (
        4.0 * (m - 1.0) * (k - 1.0)
    )
    return auc, var


def accuracy_ratio_interval(
    score: np.ndarray, y: np.ndarray, direction: Direction, level: float, count: np.ndarray | None = None
) -> tuple[float, float, float, float] | None:
    """(AR, lo, hi, se) of the accuracy ratio AR = 2U − 1 with Bamber's variance
    (:func:`bamber_auc_variance`): Engelmann, Hayden & Tasche's (2003) normal interval
    ``U ∓ z·σ`` mapped by 2U − 1, so ``se = 2σ``; the ends cut at ±1 (a negative unbiased variance,
    possible in a tiny sample, counts as 0). None without two defaults and two non-defaults."""
    got = bamber_auc_variance(score, y, direction, count)
    if got is None:
        return None
    auc, var = got
    half = float(norm_ppf(0.5 + level / 2.0)) * math.sqrt(max(var, 0.0))
    ar = 2.0 * auc - 1.0
    return ar, max(-1.0, 2.0 * (auc - half) - 1.0), min(1.0, 2.0 * (auc + half) - 1.0), 2.0 * math.sqrt(max(var, 0.0))


def cap_curve(score: np.ndarray, y: np.ndarray, direction: Direction, count: np.ndarray | None = None) -> CurveData:
    """CAP: x = share of rows taken riskiest first, y = share of defaults captured, at each
    distinct score (decimated to about a thousand points; ties taken together); ``count``: rows
    repeated that many times."""
    s = np.asarray(score, dtype=float)
    s = -s if direction == "lower" else s
    c = np.ones(len(s)) if count is None else np.asarray(count, dtype=float)
    order = np.argsort(-s, kind="stable")
    ys, ss, cs = np.asarray(y, dtype=bool)[order], s[order], c[order]
    last = np.r_[ss[1:] != ss[:-1], True]
    x = np.r_[0.0, np.cumsum(cs)[last] / cs.sum()]
    cy = np.r_[0.0, np.cumsum(cs * ys)[last] / max(float(np.sum(cs * ys)), 1.0)]
    keep = decimate(x, cy)
    return CurveData(x=x[keep], y=cy[keep], thresholds=None)


def period_keys(dates: np.ndarray) -> tuple[Literal["month", "quarter"], np.ndarray]:
    """Period of each date: months when the dates span at most 12 calendar months, else quarters.

    Returns (kind, labels): ``2024-07`` or ``2024Q3``.
    """
    months = dates.astype("datetime64[M]")
    span = int((months.max() - months.min()).astype(int)) + 1
    if span <= 12:
        return "month", months.astype(str)
    m = months.astype(int)  # months since 1970-01
    year, q = 1970 + m // 12, (m % 12) // 3 + 1
    return "quarter", np.char.add(np.char.add(year.astype(str), "Q"), q.astype(str))


# --------------------------------------------------------------------------------------
# Tables
# --------------------------------------------------------------------------------------


def _test(
    stat: float | None, p: float | None, s: CreditSettings, df: int | None = None, reason: str | None = None
) -> CreditTest:
    p = None if p is None else _f(min(1.0, max(0.0, p)))
    return CreditTest(
        statistic=None if stat is None else _f(stat),
        p_value=p,
        light=light_of(p, s.amber, s.red),
        df=df,
        reason=reason if p is None else None,
    )


def _groups(
    keys: np.ndarray,
    y: np.ndarray,
    score: np.ndarray,
    pd: np.ndarray | None,
    direction: Direction,
    s: CreditSettings,
    count: np.ndarray | None = None,
) -> list[CreditGroup]:
    """Headline numbers per key (rows, defaults, DR, mean PD, AUC/Gini with DeLong CI, KS);
    ``count``: rows repeated that many times."""
    labels, inv = np.unique(keys, return_inverse=True)
    c = np.ones(len(y)) if count is None else count
    n = np.rint(np.bincount(inv, weights=c, minlength=len(labels))).astype(np.int64)
    d = np.bincount(inv, weights=c * y, minlength=len(labels))
    mpd = None if pd is None else np.bincount(inv, weights=c * pd, minlength=len(labels))
    by = np.argsort(inv, kind="stable")
    starts = np.r_[0, np.cumsum(np.bincount(inv, minlength=len(labels)))]
    out = []
    for g, key in enumerate(labels):  # one pass per group (periods, segments), not per row
        rows = by[starts[g] : starts[g + 1]]
        yy, ss, cc = y[rows], score[rows], None if count is None else count[rows]
        pos, neg = int(round(d[g])), int(n[g] - round(d[g]))
        auc = ci = gini = gci = None
        iv = auc_interval(ss, yy, direction, s.level, cc)
        if iv is not None:
            auc, ci = iv[0], [iv[1], iv[2]]
            gini, gci = 2 * iv[0] - 1, [2 * iv[1] - 1, 2 * iv[2] - 1]
        out.append(
            CreditGroup(
                key=str(key),
                n=int(n[g]),
                defaults=pos,
                default_rate=float(d[g] / n[g]) if n[g] else 0.0,
                mean_pd=None if mpd is None or n[g] == 0 else float(mpd[g] / n[g]),
                auc=auc,
                auc_ci=ci,
                gini=gini,
                gini_ci=gci,
                ks=ks_statistic(ss, yy, direction, cc),
                few_defaults=min(pos, neg) < s.min_defaults,
            )
        )
    return out


def _grades(
    cur: CreditSample, ref: CreditSample | None, grading: Grading, direction: Direction
) -> tuple[np.ndarray, np.ndarray | None, list[str], np.ndarray | None, GradedBy]:
    """Grade indices of the current and reference rows, labels, edges (or None), graded_by.

    Grades always run from the lowest to the highest PD: edges on a PD, quantiles of the PD
    (or of the score, oriented so that grade 0 is the safest), or the column labels in the
    order of the rating scale (``grading.order``), else sorted.
    """
    if grading.kind == "column":
        assert cur.grade is not None
        ref_grade = None if ref is None else ref.grade
        if grading.order:
            scale = np.array(grading.order, dtype=str)
        else:
            scale = _label_order(cur.grade if ref_grade is None else np.r_[cur.grade, ref_grade])
        sorter = np.argsort(scale)

        def code(values: np.ndarray) -> np.ndarray:
            v = values.astype(str)
            at = np.minimum(np.searchsorted(scale, v, sorter=sorter), len(scale) - 1)
            found = scale[sorter[at]] == v
            if not found.all():  # the readers refuse such a row first, naming file, column and row
                raise ValueError(f"grade {str(v[~found][0])!r} is not in the rating scale (credit.grades.order)")
            return sorter[at]

        return code(cur.grade), None if ref_grade is None else code(ref_grade), scale.tolist(), None, "column"
    by: GradedBy
    if cur.pd is not None:
        cv, rv, by = cur.pd, None if ref is None or ref.pd is None else ref.pd, "pd"
    else:
        sign = -1.0 if direction == "lower" else 1.0
        cv, rv, by = sign * cur.score, None if ref is None else sign * ref.score, "score"
    if grading.kind == "edges":
        edges = np.asarray(grading.edges, dtype=float) + 0.0
    else:
        edges = (
            _quantile_edges(rv, grading.quantiles, ref.count)
            if rv is not None and ref is not None
            else _quantile_edges(cv, grading.quantiles, cur.count)
        )
    if by == "pd" or edges.size == 0:
        labels = _edge_labels(edges, True)
    elif direction == "higher":
        labels = _edge_labels(edges, False)
    else:  # oriented value v = -score: grade i holds -e[i] < score <= -e[i-1]
        pts = (0.0 - edges).tolist()  # never −0.0: an edge at zero reads "0" (as in _quantile_edges)
        labels = [f"> {pts[0]:g}"] + [f"{pts[i + 1]:g} – {pts[i]:g}" for i in range(len(pts) - 1)] + [f"≤ {pts[-1]:g}"]
    return grade_codes(cv, edges), None if rv is None else grade_codes(rv, edges), labels, edges, by


def matrix_weighted_bandwidth(counts: np.ndarray) -> tuple[float | None, float | None]:
    """ECB (2019, section 2.5.5.1) lower and upper matrix weighted bandwidths of a migration matrix.

    ``counts[i, j]``: obligors in grade i at the start and j at the end (K × K, grades 1 … K). With
    ``N_i p_ij = counts[i, j]`` the ECB formulas read (grades numbered from 1)::

        MWB_upper = Σ_{i<j} |i − j| N_ij / M_upper,  M_upper = Σ_{i=1}^{K−1} max(|i − K|, |i − 1|) Σ_{j>i} N_ij
        MWB_lower = Σ_{i>j} |i − j| N_ij / M_lower,  M_lower = Σ_{i=2}^{K}   max(|i − K|, |i − 1|) Σ_{j<i} N_ij

    Upper: moves to a later grade (here a higher PD); lower: to an earlier one. Each lies in
    (0, 1], since ``|i − j| ≤ max(|i − K|, |i − 1|)``: larger when the moves reach further. None
    when there is no move on that side (M = 0).
    Checked against MathWorks ``risk.validation.matrixWeightedBandwidth``'s published example.
    """
    c = np.asarray(counts, dtype=float)
    k = c.shape[0]
    i, j = np.arange(1, k + 1)[:, None], np.arange(1, k + 1)[None, :]
    dist = np.abs(i - j) * c
    norm = np.maximum(np.abs(i - k), np.abs(i - 1)) * c

    def side(mask: np.ndarray) -> float | None:
        m = float(norm[mask].sum())
        return float(dist[mask].sum()) / m if m > 0 else None

    return side(j < i), side(j > i)


def migration_stability(counts: np.ndarray) -> tuple[np.ndarray, np.ndarray]:
    """ECB (2019, section 2.5.5) stability test of each off-diagonal cell of a migration matrix;
    (z, p), K × K, NaN on the diagonal, in an empty row and where the variance is 0.

    ``p_ij = N_ij / N_i`` (``N_i`` the row's total); the cell is compared with its neighbour one
    step nearer the diagonal, ``p_n = p_{i,j−1}`` above the diagonal (j > i) and ``p_{i,j+1}``
    below it: ``z_ij = (p_n − p_ij) / √((p_ij(1 − p_ij) + p_n(1 − p_n) + 2 p_ij p_n) / N_i)``,
    ``p = Φ(z_ij)``, one-sided. H0: migration frequencies fall away from the diagonal
    (``p_ij ≤ p_n``); a small p says the cell holds more obligors than its neighbour nearer the
    diagonal.
    """
    c = np.asarray(counts, dtype=float)
    k = c.shape[0]
    rows = c.sum(axis=1, keepdims=True)
    p = np.zeros_like(c)
    np.divide(c, rows, out=p, where=rows > 0)
    i: np.ndarray = np.arange(k)[:, None]
    j: np.ndarray = np.arange(k)[None, :]
    left: np.ndarray = np.c_[np.zeros((k, 1)), p[:, :-1]]  # p[i, j-1]
    right: np.ndarray = np.c_[p[:, 1:], np.zeros((k, 1))]  # p[i, j+1]
    near = np.where(j > i, left, right)
    var = np.zeros_like(c)
    np.divide(p * (1 - p) + near * (1 - near) + 2 * p * near, rows, out=var, where=rows > 0)
    ok = (i != j) & (rows > 0) & (var > 0)
    z = np.full((k, k), np.nan)
    z[ok] = (near[ok] - p[ok]) / np.sqrt(var[ok])
    pv = np.full((k, k), np.nan)
    pv[ok] = norm_sf(-z[ok])
    return z, pv


def _per_id(sample: CreditSample, codes: np.ndarray) -> tuple[np.ndarray, np.ndarray, np.ndarray]:
    """(distinct ids, the grade of each id's first row, obligors per id): an id's rows (the memory
    engine repeats a row of frequency weight w w times) and their counts add up."""
    assert sample.ids is not None
    ids, first, inv = np.unique(sample.ids.astype(str), return_index=True, return_inverse=True)
    return ids, codes[first], np.bincount(inv.ravel(), weights=_ones(sample), minlength=len(ids))


def _migration(
    cur: CreditSample, ref: CreditSample, cc: np.ndarray, rc: np.ndarray, labels: list[str], s: CreditSettings
) -> CreditMigration:
    """Counts of (reference grade, current grade) over the ids in both samples, with the ECB
    matrix weighted bandwidths and the cell stability tests of that matrix.

    Obligors, not rows: an id held by w obligors (a row of frequency weight w, repeated or with
    its count) moves w obligors; an id of weight w_ref in the reference and w_cur now is found
    in both samples min(w_ref, w_cur) times (the repeated rows paired off one to one).
    """
    cid, cg, cw = _per_id(cur, cc)
    rid, rg, rw = _per_id(ref, rc)
    _, ic, ir = np.intersect1d(cid, rid, assume_unique=True, return_indices=True)
    w = np.minimum(cw[ic], rw[ir])
    k = len(labels)
    counts = np.rint(np.bincount(rg[ir] * k + cg[ic], weights=w, minlength=k * k)).astype(np.int64).reshape(k, k)
    m = int(counts.sum())
    moved = cg[ic].astype(int) - rg[ir].astype(int)

    def share(mask):
        return float(w[mask].sum() / m) if m else None

    lower, upper = matrix_weighted_bandwidth(counts)
    z, pv = migration_stability(counts)

    def cells(a):
        return [[None if not math.isfinite(v) else float(v) for v in row] for row in a.tolist()]

    return CreditMigration(
        grades=labels,
        counts=counts.tolist(),
        matched=m,
        stable=share(moved == 0),
        upgraded=share(moved < 0),
        downgraded=share(moved > 0),
        beyond_one=share(np.abs(moved) > 1),
        mwb_lower=lower,
        mwb_upper=upper,
        stability_z=cells(z),
        stability_p=cells(pv),
        stability_flagged=int(np.sum(np.nan_to_num(pv, nan=1.0) < s.amber)),
    )


def _wsum(v: np.ndarray, count: np.ndarray | None) -> float:
    """Σ v over the rows repeated by ``count`` (plain Σ v when None)."""
    return float(np.sum(v) if count is None else np.sum(count * v))


def pd_losses(y: np.ndarray, p: np.ndarray, count: np.ndarray | None = None) -> tuple[float, float]:
    """(Brier score, log-loss) of PDs ``p`` for defaults ``y``, rows repeated by ``count``.

    Brier = Σ c (y − p)² / Σ c; log-loss = −Σ c [y ln p + (1 − y) ln(1 − p)] / Σ c with p clipped to
    [ε, 1 − ε], ε the float64 machine epsilon: ``sklearn.metrics.brier_score_loss`` and ``log_loss``
    with ``sample_weight=count`` (scikit-learn 1.6's clipping, as
    :func:`reportgen.engine.binary.probability_losses`).
    """
    c = np.ones(len(y)) if count is None else np.asarray(count, dtype=float)
    yy = np.asarray(y, dtype=float)
    eps = np.finfo(np.float64).eps
    pc = np.clip(p, eps, 1.0 - eps)
    total = float(c.sum())
    brier = float(np.dot(c, (yy - p) ** 2)) / total
    ll = -float(np.dot(c, np.where(yy > 0, np.log(pc), np.log1p(-pc)))) / total
    return brier, ll


def reliability(y: np.ndarray, p: np.ndarray, count: np.ndarray | None = None, bins: int = 10) -> CalibrationData:
    """The reliability curve of PDs ``p``: per equal-width bin ``[k/bins, (k + 1)/bins)`` (the last
    closed; bin ``⌊p·bins⌋``, the bins of the comparison's reliability diagram,
    :func:`reportgen.engine.compare._curves`) holding rows, the mean PD, the default rate and the
    obligors (rows repeated by ``count``): ``sklearn.calibration.calibration_curve(strategy=
    "uniform")`` with the counts, but for a PD on an inner edge, which scikit-learn puts in the
    lower bin."""
    c = np.ones(len(y)) if count is None else np.asarray(count, dtype=float)
    b = np.minimum((np.asarray(p) * bins).astype(np.int64), bins - 1)
    n = np.bincount(b, weights=c, minlength=bins)
    ok = n > 0
    mean_p = np.bincount(b, weights=c * p, minlength=bins)[ok] / n[ok]
    dr = np.bincount(b, weights=c * np.asarray(y, dtype=float), minlength=bins)[ok] / n[ok]
    return CalibrationData(mean_p, dr, n[ok])


def _calibration(
    y: np.ndarray,
    p: np.ndarray,
    grades: list[CreditGrade],
    n: np.ndarray,
    d: np.ndarray,
    mpd: np.ndarray,
    s: CreditSettings,
    count: np.ndarray | None = None,
    correlated: CorrelatedBinomial | None = None,
) -> CreditCalibration:
    N, D = int(round(_wsum(np.ones(len(y)), count))), int(round(_wsum(y, count)))
    sum_pd = _wsum(p, count)
    mean_pd = sum_pd / N
    z = float(norm_ppf(0.5 + s.level / 2.0))
    hl, g, hl_reason = hosmer_lemeshow(n.astype(float), d.astype(float), mpd)
    sp, sp_reason = spiegelhalter(y.astype(float), p, count)
    var = _wsum(p * (1 - p), count)
    citl = (D - sum_pd) / math.sqrt(var) if var > 0 else None
    slope, intercept = calibration_fit(y, p, count)
    brier, log_loss = pd_losses(y, p, count)

    one_pd = float(np.ptp(np.clip(p, 1e-12, 1.0 - 1e-12))) == 0.0  # the slope is not identified

    def wald(est: tuple[float, float] | None, null: float, unfit: str) -> tuple[CreditTest, list[float] | None]:
        if est is None or est[1] == 0.0:  # no maximum: no default, or no non-default (separation)
            return _test(None, None, s, reason="zero_variance" if est is not None else unfit), None
        zz = (est[0] - null) / est[1]
        return _test(zz, float(norm_two_sided_p(zz)), s), [est[0] - z * est[1], est[0] + z * est[1]]

    slope_test, slope_ci = wald(slope, 1.0, "zero_variance" if one_pd else "no_maximum")
    int_test, int_ci = wald(intercept, 0.0, "no_maximum")
    tests: dict[str, CreditTest] = {
        "jeffreys": _test(None, float(jeffreys_p(D, N, mean_pd)), s),
        "binomial": _test(D - N * mean_pd, float(binomial_sf(D, N, mean_pd)), s),
        "hosmer_lemeshow": _test(hl, None if hl is None else float(chi2_sf(hl, g)), s, df=g, reason=hl_reason),
        "spiegelhalter": _test(sp, None if sp is None else float(norm_two_sided_p(sp)), s, reason=sp_reason),
        "in_the_large": _test(citl, None if citl is None else float(norm_two_sided_p(citl)), s, reason="zero_variance"),
    }
    tests["slope"], tests["intercept"] = slope_test, int_test
    failures = [k for k, t in tests.items() if t.light == "red"]
    failures += [f"grade:{gr.grade}" for gr in grades if gr.jeffreys is not None and gr.jeffreys.light == "red"]
    light = _worst([t.light for t in tests.values()] + [gr.jeffreys.light for gr in grades if gr.jeffreys is not None])
    return CreditCalibration(
        n=N,
        defaults=D,
        default_rate=D / N,
        mean_pd=mean_pd,
        jeffreys=tests["jeffreys"],
        binomial=tests["binomial"],
        hosmer_lemeshow=tests["hosmer_lemeshow"],
        spiegelhalter=tests["spiegelhalter"],
        in_the_large=D / N - mean_pd,
        observed_to_expected=D / sum_pd if sum_pd > 0 else None,
        in_the_large_test=tests["in_the_large"],
        slope=None if slope is None else slope[0],
        slope_ci=slope_ci,
        slope_test=slope_test,
        intercept=None if intercept is None else intercept[0],
        intercept_ci=int_ci,
        intercept_test=int_test,
        light=light,
        failures=failures,
        hosmer_lemeshow_g2=_test(
            hl,
            None if hl is None or g < 3 else float(chi2_sf(hl, g - 2)),
            s,
            df=max(g - 2, 0),
            reason=hl_reason or "too_few_grades",
        ),
        brier=brier,
        log_loss=log_loss,
        reliability=reliability(y, p, count),
        binomial_correlated=correlated,
    )


def pd_calibration(
    sample: CreditSample,
    bins: int,
    strategy: Literal["uniform", "quantile"],
    brier: float | None,
    resamples: int,
    rng: np.random.Generator,
    level: float,
) -> CalibrationSummary | None:
    """The PD's calibration over the run's ``calibration:`` bins (:mod:`reportgen.engine.calibration`:
    ECE, MCE, Murphy's decomposition, skill, their bootstrap intervals), from the table of the
    sample's distinct PDs with their obligors (rows repeated by their counts: integer sums, the
    same table in every engine); ``brier``: the PD's Brier score (:func:`pd_losses`). None
    without a PD or without both classes."""
    if sample.pd is None:
        return None
    from reportgen.engine.calibration import model_calibration  # noqa: PLC0415
    from reportgen.engine.compare import calibration_summary  # noqa: PLC0415  (the one conversion)

    c, y = _ones(sample), np.asarray(sample.y, dtype=bool)
    values, inv = np.unique(np.asarray(sample.pd, dtype=float), return_inverse=True)
    pos = np.bincount(inv.ravel(), weights=c * y, minlength=len(values))[::-1]
    neg = np.bincount(inv.ravel(), weights=c * ~y, minlength=len(values))[::-1]
    n = int(round(float(c.sum())))
    table = ScoreTable(values[::-1].copy(), pos, neg, "higher", float(n), n, False)
    cal = model_calibration(table, bins, strategy, brier, resamples, rng, level)
    return None if cal is None else calibration_summary(cal)


def _histogram(cur: CreditSample, ref: CreditSample, bins: int = 30) -> ShareHistogram:
    """Shares of rows (repeated by their counts) of both samples' scores on 30 shared bins."""
    lo, hi = float(min(cur.score.min(), ref.score.min())), float(max(cur.score.max(), ref.score.max()))
    edges = np.linspace(lo, hi if hi > lo else lo + 1.0, bins + 1)
    c = np.histogram(cur.score, edges, weights=cur.count)[0] / _ones(cur).sum()
    r = np.histogram(ref.score, edges, weights=ref.count)[0] / _ones(ref).sum()
    return ShareHistogram(edges=edges, reference=r, current=c)


def merged_rows(sample: CreditSample) -> CreditSample:
    """The sample as its distinct rows — equal (default, score, PD, grade, month, segment) — with
    their counts, in one canonical order: ascending by those columns in that order.

    The battery's statistics are sums over rows, and float sums depend on their order; the memory
    engine hands the battery every row, the streamed and Dask runners batches already reduced to
    distinct rows with counts in the order they first appeared. Merged and sorted the same way,
    both are the same arrays, so every engine's credit section is the same to the last bit. A
    date only places its row in a month or a quarter (:func:`period_keys`): the month is kept.
    Ids are per row and are not kept (the grade migration reads the rows themselves). A row of
    count 0 is left out: no obligor, and no term of 0 in a sum, whose order it would change.
    """
    dates = None if sample.dates is None else sample.dates.astype("datetime64[M]").astype("datetime64[D]")
    text = {
        k: None if getattr(sample, k) is None else np.asarray(getattr(sample, k)).astype(str)
        for k in ("grade", "segment")
    }
    cols = {
        "y": np.asarray(sample.y, dtype=bool),
        "score": np.asarray(sample.score, dtype=np.float64),
        "pd": None if sample.pd is None else np.asarray(sample.pd, dtype=np.float64),
        "grade": text["grade"],
        "dates": dates,
        "segment": text["segment"],
    }
    count = None if sample.count is None else np.asarray(sample.count, dtype=np.int64)
    if count is not None and not np.all(count > 0):  # a row of count 0 is no row (the readers drop it too)
        cols = {name: None if v is None else v[count > 0] for name, v in cols.items()}
        count = count[count > 0]
    keys = [v for v in cols.values() if v is not None]
    n = keys[0].shape[0]
    count = np.ones(n, dtype=np.int64) if count is None else count
    if n == 0:
        return _sample_of(cols, count)
    order = np.lexsort(keys[::-1])  # the first key (default) varies slowest
    new = np.zeros(n, dtype=bool)
    new[0] = True
    for k in keys:
        ks = k[order]
        new[1:] |= ks[1:] != ks[:-1]
    starts = np.flatnonzero(new)
    first = order[starts]
    merged = {name: None if v is None else v[first] for name, v in cols.items()}
    return _sample_of(merged, np.add.reduceat(count[order], starts))


def _sample_of(cols: dict[str, np.ndarray | None], count: np.ndarray) -> CreditSample:
    """The sample of :func:`merged_rows`' columns (ids not kept) with its counts."""
    y, score = cols["y"], cols["score"]
    assert y is not None and score is not None
    return CreditSample(
        y=y, score=score, pd=cols["pd"], grade=cols["grade"], dates=cols["dates"], segment=cols["segment"], count=count
    )


def _stability(
    cur: CreditSample,
    ref: CreditSample,
    rc: np.ndarray | None,
    n: np.ndarray,
    labels: list[str],
    direction: Direction,
    s: CreditSettings,
    ref_auc: float | None,
) -> CreditStability:
    """Stability of the current sample against the reference: PSI and the concentration of the
    grades (or, graded by a column the reference lacks, of the reference scores' deciles), with the
    score distributions of both."""
    k = len(labels)
    c = _ones(cur)
    rc1 = _ones(ref)
    basis: Literal["grades", "score_deciles"]
    if rc is not None:
        basis, ccount, blabels = "grades", n, labels
        rcount = np.rint(np.bincount(rc, weights=rc1, minlength=k)).astype(np.int64)
    else:  # graded by a column the reference lacks: deciles of the reference scores
        sign = -1.0 if direction == "lower" else 1.0
        e = _quantile_edges(sign * ref.score, 10, ref.count)
        rcount = np.rint(np.bincount(grade_codes(sign * ref.score, e), weights=rc1, minlength=len(e) + 1)).astype(
            np.int64
        )
        ccount = np.rint(np.bincount(grade_codes(sign * cur.score, e), weights=c, minlength=len(e) + 1)).astype(
            np.int64
        )
        basis, blabels = "score_deciles", [f"decile {i + 1}" for i in range(len(e) + 1)]
    v, e_sh, a_sh, contrib = psi(rcount, ccount)
    psi_test = CreditTest(statistic=v, p_value=None, light=_psi_light(v, s))
    conc_cur, conc_ref = concentration(ccount), concentration(rcount)
    if basis == "grades":  # the ECB test compares the grades' concentration, not decile shares
        hs, hp, hr = concentration_test(conc_ref.cv, conc_cur.cv, k)
        conc_test = _test(hs, hp, s, reason=hr)
    else:
        conc_test = _test(None, None, s, reason="no_reference_grades")
    return CreditStability(
        basis=basis,
        reference_n=int(round(rc1.sum())),
        reference_defaults=int(round(_wsum(ref.y, ref.count))),
        reference_auc=ref_auc,
        psi=psi_test,
        empty_rule=EMPTY_RULE,
        bins=[
            PsiBin(
                label=blabels[i],
                reference_n=int(rcount[i]),
                current_n=int(ccount[i]),
                reference_share=float(e_sh[i]),
                current_share=float(a_sh[i]),
                contribution=float(contrib[i]),
            )
            for i in range(len(blabels))
        ],
        concentration_current=conc_cur,
        concentration_reference=conc_ref,
        concentration_test=conc_test,
        scores=_histogram(cur, ref),
    )


def _auc_history(
    iv: tuple | None, initial_auc: float | None, ref_auc: float | None, s: CreditSettings, caps: dict[str, str]
) -> CreditAucHistory | None:
    """The AUC against its initial value (the configured ``initial_auc``, else the reference
    sample's): the one-sided normal test ``z = (AUC_initial − AUC) / SE(AUC)`` on the current
    AUC's DeLong standard error. None, with the reason in ``caps``, when there is no current AUC or
    nothing to compare it with."""
    source: Literal["config", "reference"]
    init, source = (initial_auc, "config") if initial_auc is not None else (ref_auc, "reference")
    if iv is None:
        caps["auc_history"] = "too_few_classes"
        return None
    if init is None:
        caps["auc_history"] = "no_initial_auc"
        return None
    auc, se = iv[0], iv[3]
    stat = (init - auc) / se if se > 0 else None
    t = _test(stat, None if stat is None else float(norm_sf(stat)), s, reason="zero_variance")
    return CreditAucHistory(initial_auc=float(init), source=source, current_auc=auc, se=se, test=t)


def _verdict(
    calibration: CreditCalibration | None, history: CreditAucHistory | None, stability: CreditStability | None
) -> tuple[list[str], Light | None]:
    """The model's red tests (calibration's own, the AUC history, PSI, Herfindahl) and its worst
    light over the tests that set it (the other tests are shown beside them, not counted)."""
    failures = list(calibration.failures) if calibration else []
    concentration_test = stability.concentration_test if stability is not None else None
    for key, test in (
        ("auc_history", history.test if history is not None else None),
        ("psi", stability.psi if stability is not None else None),
        ("herfindahl", concentration_test),
    ):
        if test is not None and test.light == "red":
            failures.append(key)
    light = _worst(
        [
            calibration.light if calibration else None,
            history.test.light if history else None,
            stability.psi.light if stability else None,
            concentration_test.light if concentration_test else None,
        ]
    )
    return failures, light


def credit_model(
    name: str,
    cur: CreditSample,
    ref: CreditSample | None,
    direction: Direction,
    grading: Grading,
    s: CreditSettings,
    initial_auc: float | None = None,
    pd_source: Literal["pd_column", "score", "none"] = "pd_column",
) -> CreditModel:
    """The whole battery for one model: grades, calibration, AUC history, CAP, stability, groups.

    Every statistic is computed on the samples' :func:`merged_rows` (the same arrays whichever
    engine read them); the grade migration, which joins rows by id, on the rows given."""
    rows_cur, rows_ref = cur, ref
    cur = merged_rows(cur)
    ref = None if ref is None else merged_rows(ref)
    y = np.asarray(cur.y, dtype=bool)
    cnt = cur.count  # None: one obligor per row
    c = _ones(cur)
    caps: dict[str, str] = {}
    cc, rc, labels, edges, by = _grades(cur, ref, grading, direction)
    k = len(labels)
    n = np.rint(np.bincount(cc, weights=c, minlength=k)).astype(np.int64)
    d = np.rint(np.bincount(cc, weights=c * y, minlength=k))
    N = int(n.sum())
    has_pd = cur.pd is not None
    mpd = np.bincount(cc, weights=c * cur.pd, minlength=k) / np.maximum(n, 1) if has_pd else None
    dr = np.where(n > 0, d / np.maximum(n, 1), np.nan)
    filled = np.flatnonzero(n > 0)
    viol = np.zeros(k, dtype=bool)
    viol[filled[1:]] = dr[filled[1:]] < dr[filled[:-1]]
    jp = None if mpd is None else jeffreys_p(d, n, mpd)
    bp = None if mpd is None else binomial_sf(d, n, mpd)
    tail = (1.0 - s.level) / 2.0
    ivl = np.stack([beta_ppf(tail, d + 0.5, n - d + 0.5), beta_ppf(1.0 - tail, d + 0.5, n - d + 0.5)], axis=1)
    ivl[d == 0, 0], ivl[d == n, 1] = 0.0, 1.0  # Brown, Cai & DasGupta (2001): [0, U] at D = 0, [L, 1] at D = N
    bounds = [None, *(edges.tolist() if edges is not None and by == "pd" else [None] * (k - 1)), None]
    mean_pd_all = None if cur.pd is None else _wsum(cur.pd, cnt) / max(float(n.sum()), 1.0)
    powers, correlated, portfolio = _power_and_correlation(n, d, mpd, mean_pd_all, s)
    grades = []
    for g in range(k):  # one entry per grade
        mean_pd = jeff = binom = None
        if mpd is not None and jp is not None and bp is not None and n[g] > 0:
            mean_pd = float(mpd[g])
            jeff = _test(None, float(jp[g]), s)
            binom = _test(float(d[g] - n[g] * mpd[g]), float(bp[g]), s)
        grades.append(
            CreditGrade(
                grade=labels[g],
                lower=bounds[g],
                upper=bounds[g + 1],
                n=int(n[g]),
                defaults=int(d[g]),
                default_rate=None if n[g] == 0 else float(dr[g]),
                mean_pd=mean_pd,
                share=float(n[g] / N),
                monotonic_violation=bool(viol[g]),
                jeffreys=jeff,
                binomial=binom,
                few_defaults=bool(d[g] < s.min_defaults),
                dr_interval=ivl[g].tolist() if n[g] > 0 else None,
                power=powers.get(g),
                binomial_correlated=correlated.get(g),
            )
        )
    calibration = (
        None if cur.pd is None or mpd is None else _calibration(y, cur.pd, grades, n, d, mpd, s, cnt, portfolio)
    )
    if not has_pd:
        caps["calibration"] = "no_pd"

    iv = auc_interval(cur.score, y, direction, s.level, cnt)
    ar_iv = accuracy_ratio_interval(cur.score, y, direction, s.level, cnt)
    ref_iv = (
        None if ref is None else auc_interval(ref.score, np.asarray(ref.y, dtype=bool), direction, s.level, ref.count)
    )
    ref_auc = None if ref_iv is None else ref_iv[0]
    history = _auc_history(iv, initial_auc, ref_auc, s, caps)

    stability = migration = None
    if ref is None:
        caps["stability"] = "no_reference"
    else:
        stability = _stability(cur, ref, rc, n, labels, direction, s, ref_auc)
        if rc is not None and rows_cur.ids is not None and rows_ref is not None and rows_ref.ids is not None:
            fixed = grading if edges is None else Grading("edges", edges=tuple(float(e) for e in edges))
            mc, mr, *_ = _grades(rows_cur, rows_ref, fixed, direction)  # the rows' grades, at the same edges
            assert mr is not None  # the reference is graded (rc), so are its rows
            migration = _migration(rows_cur, rows_ref, mc, mr, labels, s)
            if migration.matched == 0:  # a matrix of zeros is no test: said, not tabulated
                migration, caps["migration"] = None, "no_shared_ids"
        else:
            caps["migration"] = "no_ids" if rc is not None else "no_reference_grades"

    period = period_tests = None
    periods: list[CreditGroup] = []
    if cur.dates is not None:
        period, keys = period_keys(cur.dates)
        periods = _groups(keys, y, cur.score, cur.pd, direction, s, cnt)
        if cur.pd is not None:
            period_tests = _period_tests(keys, cc, k, y, cur.pd, c, periods, s)
    segments = [] if cur.segment is None else _groups(cur.segment.astype(str), y, cur.score, cur.pd, direction, s, cnt)

    failures, light = _verdict(calibration, history, stability)
    return CreditModel(
        model=name,
        grading=grading.kind,
        graded_by=by,
        pd_source=pd_source if has_pd else "none",
        n=N,
        defaults=int(round(_wsum(y, cnt))),
        grades=grades,
        monotonic=not bool(viol.any()),
        calibration=calibration,
        auc_history=history,
        accuracy_ratio=None if iv is None else 2 * iv[0] - 1,
        cap=cap_curve(cur.score, y, direction, cnt),
        stability=stability,
        migration=migration,
        period=period,
        periods=periods,
        segments=segments,
        light=light,
        failures=failures,
        capabilities=caps,
        accuracy_ratio_ci=None if ar_iv is None else [ar_iv[1], ar_iv[2]],
        accuracy_ratio_se=None if ar_iv is None else ar_iv[3],
        concentration=concentration(n),
        heterogeneity=[
            AdjacentGrades(
                lower=labels[t.lower],
                upper=labels[t.upper],
                z=t.z,
                p_value=t.p,
                p_holm=t.p_holm,
                distinct=None if t.p_holm is None else t.p_holm < s.amber,
            )
            for t in PB.adjacent_grades(n, d)
        ],
        period_tests=period_tests,
    )


def _rho(s: CreditSettings, pd: np.ndarray) -> np.ndarray:
    """The asset correlation at each PD: the configured rho, or the Basel IRB corporate formula's."""
    if s.asset_correlation == "irb_corporate":
        return PB.irb_corporate_correlation(pd)
    return np.full(np.shape(pd), float(s.asset_correlation))


def _correlated(d: np.ndarray, n: np.ndarray, pd: np.ndarray, s: CreditSettings) -> list[CorrelatedBinomial]:
    """The binomial test with correlated defaults of each (D, N, PD) (:mod:`reportgen.engine.pd_battery`),
    with the large-portfolio critical number of defaults at the amber level."""
    rho = _rho(s, pd)
    p = PB.vasicek_binomial_sf(d, n, pd, rho)
    inner = (pd > 0) & (pd < 1)
    q = np.where(inner, pd, 0.5)
    rate = norm_sf(-(norm_ppf(q) + np.sqrt(rho) * norm_ppf(1.0 - s.amber)) / np.sqrt(1.0 - rho))
    rate = np.where(inner, rate, pd)
    crit = np.floor(n * rate) + 1.0
    return [
        CorrelatedBinomial(
            asset_correlation=float(rho[i]),
            test=_test(float(d[i] - n[i] * pd[i]), float(p[i]), s),
            critical_defaults=int(crit[i]) if crit[i] <= n[i] else None,
        )
        for i in range(len(d))
    ]


def _power_and_correlation(
    n: np.ndarray, d: np.ndarray, mpd: np.ndarray | None, mean_pd: float | None, s: CreditSettings
) -> tuple[dict[int, GradePower], dict[int, CorrelatedBinomial], CorrelatedBinomial | None]:
    """Per non-empty grade (with a PD): the critical numbers of defaults and power of the
    binomial and Jeffreys tests at the amber level against a default rate of PD × power_ratio,
    and the binomial test with correlated defaults; that test of the portfolio (all rows at
    ``mean_pd``) too, in the same vectorised call."""
    if mpd is None or mean_pd is None:
        return {}, {}, None
    g = np.flatnonzero(n > 0)
    ng, dg, pg = n[g], d[g].astype(float), mpd[g]
    alt = np.minimum(pg * s.power_ratio, 1.0)
    bc = PB.critical_defaults(ng, s.amber, lambda x, m: binomial_sf(x, m, pg))
    jc = PB.critical_defaults(ng, s.amber, lambda x, m: jeffreys_p(x, m, pg))
    bpow, jpow = PB.power(bc, ng, alt), PB.power(jc, ng, alt)
    powers = {
        int(i): GradePower(
            alternative_pd=float(alt[j]),
            binomial_critical=None if bc[j] < 0 else int(bc[j]),
            binomial_power=float(bpow[j]),
            jeffreys_critical=None if jc[j] < 0 else int(jc[j]),
            jeffreys_power=float(jpow[j]),
        )
        for j, i in enumerate(g)
    }
    tests = _correlated(
        np.r_[dg, d.sum()], np.r_[ng, n.sum()].astype(float), np.r_[pg, mean_pd], s
    )  # the grades', then the portfolio's
    return powers, dict(zip((int(i) for i in g), tests[:-1], strict=True)), tests[-1]


def _period_tests(
    keys: np.ndarray,
    codes: np.ndarray,
    k: int,
    y: np.ndarray,
    pd: np.ndarray,
    c: np.ndarray,
    periods: list[CreditGroup],
    s: CreditSettings,
) -> CreditPeriodTests:
    """BCBS WP14's normal test over the periods' default rates and mean PDs, and the grades'
    Jeffreys lights in each period counted (:mod:`reportgen.engine.pd_battery`)."""
    labels, inv = np.unique(keys, return_inverse=True)
    cell = inv.ravel() * k + codes
    size = len(labels) * k
    n = np.rint(np.bincount(cell, weights=c, minlength=size)).reshape(len(labels), k)
    dd = np.rint(np.bincount(cell, weights=c * y, minlength=size)).reshape(len(labels), k)
    sp = np.bincount(cell, weights=c * pd, minlength=size).reshape(len(labels), k)
    filled = n > 0
    lights = np.full(n.shape, "", dtype=object)
    pv = jeffreys_p(dd[filled], n[filled], sp[filled] / n[filled])
    lights[filled] = [light_of(float(p), s.amber, s.red) for p in pv]
    rows = [
        PeriodLights(
            key=str(labels[t]),
            green=int(np.sum(lights[t] == "green")),
            amber=int(np.sum(lights[t] == "amber")),
            red=int(np.sum(lights[t] == "red")),
        )
        for t in range(len(labels))
    ]
    with_pd = [p for p in periods if p.mean_pd is not None and p.n > 0]
    stat, p, reason = PB.normal_test_over_periods(
        np.array([p.default_rate for p in with_pd]), np.array([p.mean_pd for p in with_pd], dtype=float)
    )
    return CreditPeriodTests(
        normal_test=_test(stat, p, s, reason=reason),
        periods=len(with_pd),
        lights=rows,
        green=sum(r.green for r in rows),
        amber=sum(r.amber for r in rows),
        red=sum(r.red for r in rows),
    )
