"""Result types of the optional sections of a run: credit-risk validation (issue 19: calibration by
grade, stability, performance over time), fairness by protected group and the models compared
within segments. Frozen like every result type (:class:`reportgen.result_base.Frozen`).

Apart from :mod:`reportgen.results` so that a run without these sections does not build their
types (28 dataclasses, a tenth of a small run's start-up, issue 46); :class:`~reportgen.results.ComparisonResult`
names them, and :mod:`reportgen.results` imports this module to read or describe them.
"""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from dataclasses import dataclass, field
from typing import Literal

import numpy as np

from reportgen.option_results import CalibrationSummary
from reportgen.result_base import (
    CalibrationData,
    CurveData,
    Favourable,
    Frozen,
    HolmFamily,
    Light,
    doc,
    lengths_differ,
)


@dataclass(frozen=True, slots=True, repr=False, eq=False)
class CreditTest(Frozen):
    """One test of a PD model: its statistic, p-value and traffic light (null when undefined)."""

    statistic: float | None = field(
        metadata=doc("The test statistic (z, chi-square, S or PSI, per the test); null when the test is undefined.")
    )
    p_value: float | None = field(
        metadata=doc(
            "The p-value: one-sided for Jeffreys, binomial, the AUC against the initial AUC and the concentration "
            "test (small p: PD too low, AUC fallen, grades more concentrated), the chi-square's upper tail for "
            "Hosmer-Lemeshow; two-sided for Spiegelhalter, calibration in the large, the calibration slope and "
            "intercept; null for the PSI, which has no p-value, and when undefined."
        )
    )
    light: Light | None = field(
        metadata=doc(
            "green / amber / red by credit.traffic_lights (p-value levels, or PSI levels for the PSI); null when undefined."
        )
    )
    df: int | None = field(
        default=None, metadata=doc("Degrees of freedom (Hosmer-Lemeshow: the number of grades used).")
    )
    reason: str | None = field(
        default=None,
        metadata=doc(
            "Why the test is undefined, as a code: no_rows, no_defaults_possible (a mean PD of 0 or 1), "
            "zero_variance (for the calibration slope also: every row has the same PD), no_maximum (the calibration "
            "slope's or intercept's likelihood has no maximum: no default, or no non-default, at the PDs), "
            "too_few_classes, too_few_grades; null when defined."
        ),
    )


@dataclass(frozen=True, slots=True, repr=False, eq=False)
class CorrelatedBinomial(Frozen):
    """The binomial test with correlated defaults (Vasicek's one-factor model, Tasche 2003)."""

    asset_correlation: float = field(
        metadata=doc(
            "The asset correlation rho used (credit.asset_correlation; irb_corporate: the grade's Basel value)."
        )
    )
    test: CreditTest = field(
        metadata=doc(
            "p = P(D' >= D), D' the defaults of N obligors at the PD whose latent variables share one normal factor with "
            "correlation rho: the integral over the factor z of P(Bin(N, Phi((Phi^-1(PD) - sqrt(rho) z) / sqrt(1 - rho))) "
            ">= D) phi(z) dz; one-sided (small p: PD too low even allowing for correlated defaults); statistic D - N * PD."
        )
    )
    critical_defaults: int | None = field(
        metadata=doc(
            "The number of defaults from which the test is amber in the large-portfolio (Vasicek) limit: the smallest D "
            "above N * Phi((Phi^-1(PD) + sqrt(rho) Phi^-1(1 - amber)) / sqrt(1 - rho)); null when above N."
        )
    )


@dataclass(frozen=True, slots=True, repr=False, eq=False)
class GradePower(Frozen):
    """What the grade's tests could see: their critical numbers of defaults and power."""

    alternative_pd: float = field(
        metadata=doc("The true default rate the power is computed at: the mean PD times credit.power_ratio, at most 1.")
    )
    binomial_critical: int | None = field(
        metadata=doc(
            "Smallest number of defaults at which the binomial test is amber (p < amber); null when none <= N."
        )
    )
    binomial_power: float = field(
        metadata=doc("P(X >= binomial_critical), X ~ Bin(N, alternative_pd): the binomial test's power (0 when null).")
    )
    jeffreys_critical: int | None = field(
        metadata=doc("Smallest number of defaults at which the Jeffreys test is amber; null when none <= N.")
    )
    jeffreys_power: float = field(
        metadata=doc("P(X >= jeffreys_critical), X ~ Bin(N, alternative_pd): the Jeffreys test's power (0 when null).")
    )


@dataclass(frozen=True, slots=True, repr=False, eq=False)
class AdjacentGrades(Frozen):
    """Heterogeneity of two adjacent non-empty grades (PDtoolkit's heterogeneity test)."""

    lower: str = field(metadata=doc("The lower-PD grade."))
    upper: str = field(metadata=doc("The next non-empty grade up."))
    z: float | None = field(
        metadata=doc(
            "Pooled two-proportion z = (DR_upper - DR_lower) / sqrt(r (1 - r) (1/n_lower + 1/n_upper)), r the pooled "
            "default rate; null when r is 0 or 1."
        )
    )
    p_value: float | None = field(
        metadata=doc(
            "One-sided 1 - Phi(z) (H1: the upper grade's default rate is higher; R prop.test(correct = FALSE))."
        )
    )
    p_holm: float | None = field(metadata=doc("Holm-adjusted over the model's adjacent pairs."))
    distinct: bool | None = field(
        metadata=doc("p_holm < credit.traffic_lights.amber: the two grades' default rates differ; null when untested.")
    )


@dataclass(frozen=True, slots=True, repr=False, eq=False)
class PeriodLights(Frozen):
    """The grades' Jeffreys lights in one period."""

    key: str = field(metadata=doc("The period (2024-07, 2024Q3)."))
    green: int = field(metadata=doc("Grades with rows in the period whose Jeffreys test is green."))
    amber: int = field(metadata=doc("... amber."))
    red: int = field(metadata=doc("... red."))


@dataclass(frozen=True, slots=True, repr=False, eq=False)
class CreditPeriodTests(Frozen):
    """Calibration over the date: periods (BCBS WP14's normal test; traffic lights over periods)."""

    normal_test: CreditTest = field(
        metadata=doc(
            "S = sum e_t / (sqrt(T) tau), e_t = DR_t - mean PD_t, tau^2 = (sum e_t^2 - (sum e_t)^2 / T) / (T - 1); "
            "p = 1 - Phi(S), one-sided (small p: PDs too low over the periods); reason too_few_periods below two."
        )
    )
    periods: int = field(metadata=doc("T, the periods with rows."))
    lights: Sequence[PeriodLights] = field(metadata=doc("Per period, the grades' Jeffreys lights counted."))
    green: int = field(metadata=doc("Green (period, grade) cells over all periods."))
    amber: int = field(metadata=doc("Amber cells over all periods."))
    red: int = field(metadata=doc("Red cells over all periods."))


@dataclass(frozen=True, slots=True, repr=False, eq=False)
class CreditGrade(Frozen):
    """One grade (rating class or PD bucket) of the current sample."""

    grade: str = field(metadata=doc("The grade's label (PD range, rating value or quantile bucket)."))
    lower: float | None = field(
        metadata=doc("Lower PD (or score) edge, inclusive; null when open or graded by a column.")
    )
    upper: float | None = field(
        metadata=doc("Upper PD (or score) edge, exclusive; null when open or graded by a column.")
    )
    n: int = field(metadata=doc("Rows in the grade."))
    defaults: int = field(metadata=doc("Defaults (positive labels) in the grade."))
    default_rate: float | None = field(metadata=doc("defaults / n; null for an empty grade."))
    mean_pd: float | None = field(metadata=doc("Mean PD of the grade's rows; null without a PD or for an empty grade."))
    share: float = field(metadata=doc("n / rows of the sample."))
    monotonic_violation: bool = field(
        metadata=doc(
            "The grade's default rate is below that of the previous non-empty grade (grades run from lowest to highest PD)."
        )
    )
    jeffreys: CreditTest | None = field(
        metadata=doc(
            "Jeffreys test (ECB 2019): p = Beta(D + 1/2, N - D + 1/2) CDF at the mean PD; small p: PD underestimated."
        )
    )
    binomial: CreditTest | None = field(
        metadata=doc("Exact one-sided binomial test: p = P(X >= D), X ~ Bin(N, mean PD); statistic: D - N * mean PD.")
    )
    few_defaults: bool = field(metadata=doc("Fewer than credit.min_defaults defaults: the grade's tests are weak."))
    dr_interval: Sequence[float] | None = field(
        default=None,
        metadata=doc(
            "Jeffreys interval of the default rate (Brown, Cai & DasGupta 2001): the (1 -/+ level)/2 quantiles of "
            "Beta(D + 1/2, N - D + 1/2), the lower end 0 when D = 0 and the upper end 1 when D = N; null for an empty grade."
        ),
    )
    power: GradePower | None = field(
        default=None,
        metadata=doc("Critical numbers of defaults and power of the Jeffreys and binomial tests; null without a PD."),
    )
    binomial_correlated: CorrelatedBinomial | None = field(
        default=None,
        metadata=doc("The binomial test with correlated defaults; null without a PD or for an empty grade."),
    )


@dataclass(frozen=True, slots=True, repr=False, eq=False)
class CreditCalibration(Frozen):
    """Portfolio-level calibration of the PD (every row of the current sample)."""

    n: int = field(metadata=doc("Rows."))
    defaults: int = field(metadata=doc("Defaults."))
    default_rate: float = field(metadata=doc("Observed default rate D / N."))
    mean_pd: float = field(metadata=doc("Mean PD over the rows."))
    jeffreys: CreditTest = field(metadata=doc("Jeffreys test of the portfolio (ECB 2019), one-sided."))
    binomial: CreditTest = field(metadata=doc("Exact one-sided binomial test of the portfolio, P(X >= D)."))
    hosmer_lemeshow: CreditTest = field(
        metadata=doc(
            "Hosmer-Lemeshow over the grades: sum (D_g - N_g p_g)^2 / (N_g p_g (1 - p_g)), chi-square with G df "
            "(G grades used; the df of an independent validation sample, not G - 2)."
        )
    )
    spiegelhalter: CreditTest = field(
        metadata=doc("Spiegelhalter's z over rows: sum (y - p)(1 - 2p) / sqrt(sum (1 - 2p)^2 p (1 - p)), two-sided.")
    )
    in_the_large: float = field(metadata=doc("Calibration in the large: observed default rate minus mean PD."))
    observed_to_expected: float | None = field(metadata=doc("D / sum PD; null when sum PD is 0."))
    in_the_large_test: CreditTest = field(metadata=doc("z = (D - sum p) / sqrt(sum p (1 - p)), two-sided."))
    slope: float | None = field(
        metadata=doc(
            "Calibration slope b of the logistic recalibration logit P(y) = a + b logit(PD) (maximum likelihood); 1 is ideal."
        )
    )
    slope_ci: Sequence[float] | None = field(metadata=doc("Wald interval of the slope at the run's confidence level."))
    slope_test: CreditTest = field(metadata=doc("Wald test of slope = 1: z = (b - 1) / se(b), two-sided."))
    intercept: float | None = field(
        metadata=doc("Calibration intercept a of logit P(y) = a + logit(PD) (slope fixed at 1, an offset); 0 is ideal.")
    )
    intercept_ci: Sequence[float] | None = field(metadata=doc("Wald interval of the intercept."))
    intercept_test: CreditTest = field(metadata=doc("Wald test of intercept = 0, two-sided."))
    light: Light | None = field(
        metadata=doc(
            "The worst light among the portfolio tests and the grades' Jeffreys tests (what enters the summary)."
        )
    )
    failures: Sequence[str] = field(
        metadata=doc(
            "Keys of the portfolio tests with a red light (jeffreys, binomial, hosmer_lemeshow, spiegelhalter, in_the_large, "
            "slope, intercept), and 'grade:LABEL' for a grade whose Jeffreys test is red."
        )
    )
    hosmer_lemeshow_g2: CreditTest | None = field(
        default=None,
        metadata=doc(
            "The same Hosmer-Lemeshow statistic with the development-sample convention, chi-square with G - 2 df (Hosmer & "
            "Lemeshow 1980, for PDs fitted on the sample tested; R ResourceSelection::hoslem.test), for comparison only: "
            "not in the light or the failures; undefined (too_few_grades) below 3 grades."
        ),
    )
    brier: float | None = field(
        default=None,
        metadata=doc(
            "Brier score of the PD over the rows: sum c (y - p)^2 / sum c (sklearn brier_score_loss, the counts as weights); "
            "the PD column's where the model has one, so scorecards and PD models compare on one scale."
        ),
    )
    log_loss: float | None = field(
        default=None,
        metadata=doc(
            "Log-loss of the PD: -sum c [y ln p + (1 - y) ln(1 - p)] / sum c, p clipped to [eps, 1 - eps] (sklearn log_loss)."
        ),
    )
    reliability: CalibrationData | None = field(
        default=None,
        metadata=doc(
            "Reliability curve of the PD: ten equal-width PD bins with rows, their mean PD (mean_predicted), default rate "
            "(observed) and obligors (counts)."
        ),
    )
    binomial_correlated: CorrelatedBinomial | None = field(
        default=None,
        metadata=doc("The portfolio's binomial test with correlated defaults (N, D, the mean PD); not in the light."),
    )
    binned: CalibrationSummary | None = field(
        default=None,
        metadata=doc(
            "The PD's calibration over the run's calibration: bins (ECE, MCE, Murphy's decomposition, skill, with "
            "intervals), for a model whose score is no probability; the calibration section shows it (metric_sources "
            "calibration: pd_column). Null without calibration: or a PD column."
        ),
    )


@dataclass(frozen=True, slots=True, repr=False, eq=False)
class CreditAucHistory(Frozen):
    """ECB 2019 test of the current AUC against the AUC at initial validation."""

    initial_auc: float = field(metadata=doc("The AUC at initial validation."))
    source: Literal["config", "reference"] = field(
        metadata=doc("config: models[].initial_auc; reference: the AUC of the reference sample (no initial_auc given).")
    )
    current_auc: float = field(metadata=doc("AUC of the current sample (ties count one half)."))
    se: float = field(metadata=doc("DeLong standard error of the current AUC."))
    test: CreditTest = field(
        metadata=doc("S = (AUC_init - AUC_curr) / se, p = 1 - Phi(S): small p, the AUC has fallen.")
    )


@dataclass(frozen=True, slots=True, repr=False, eq=False)
class PsiBin(Frozen):
    """One bin of the population stability index."""

    label: str = field(metadata=doc("The grade or score bin."))
    reference_n: int = field(metadata=doc("Rows of the reference sample in the bin."))
    current_n: int = field(metadata=doc("Rows of the current sample in the bin."))
    reference_share: float = field(metadata=doc("Share of the reference rows (after the empty-bin rule)."))
    current_share: float = field(metadata=doc("Share of the current rows (after the empty-bin rule)."))
    contribution: float = field(metadata=doc("(current - reference share) * ln(current / reference share)."))


@dataclass(frozen=True, slots=True, repr=False, eq=False)
class Concentration(Frozen):
    """Herfindahl index of the grade shares of one sample."""

    herfindahl: float = field(
        metadata=doc("HI = sum of squared grade shares (1/K when even, 1 when one grade holds all).")
    )
    normalised: float | None = field(metadata=doc("(HI - 1/K) / (1 - 1/K) in [0, 1]; null for one grade."))
    ecb: float | None = field(
        metadata=doc(
            "ECB 2019 form 1 + ln((CV^2 + 1) / K) / ln K = 1 + ln(HI) / ln K, CV the coefficient of variation of "
            "the shares; null for one grade."
        )
    )
    grades: int = field(metadata=doc("K, the number of grades."))
    cv: float | None = field(
        default=None,
        metadata=doc(
            "ECB 2019 coefficient of variation of the grade shares, sqrt(K * sum (s_i - 1/K)^2); null for one grade."
        ),
    )


@dataclass(frozen=True, slots=True, repr=False, eq=False)
class ShareHistogram(Frozen):
    """Score distribution of the reference and current samples on shared edges (shares of rows)."""

    edges: np.ndarray = field(metadata=doc("Bin edges, one more than bins."))
    reference: np.ndarray = field(metadata=doc("Share of reference rows per bin."))
    current: np.ndarray = field(metadata=doc("Share of current rows per bin."))

    def problem(self) -> str | None:
        if self.edges.shape[0] != self.reference.shape[0] + 1:
            return f"expected one more edge than bins, found {self.edges.shape[0]} edges for {self.reference.shape[0]} bins"
        return lengths_differ(reference=self.reference, current=self.current)


@dataclass(frozen=True, slots=True, repr=False, eq=False)
class CreditStability(Frozen):
    """Stability of the current sample against the reference (development) sample."""

    basis: Literal["grades", "score_deciles"] = field(
        metadata=doc(
            "grades: PSI over the grades; score_deciles: over deciles of the reference scores (grades by a column that "
            "the reference lacks)."
        )
    )
    reference_n: int = field(metadata=doc("Rows of the reference sample."))
    reference_defaults: int = field(metadata=doc("Defaults of the reference sample."))
    reference_auc: float | None = field(metadata=doc("AUC of the reference sample; null without both classes."))
    psi: CreditTest = field(
        metadata=doc(
            "PSI = sum (a - e) ln(a / e) over the bins (a current, e reference share); lights by credit.traffic_lights.psi_*."
        )
    )
    empty_rule: str = field(
        metadata=doc(
            "How empty bins are handled: half_row = a bin with no rows in one sample counts 0.5 rows there "
            "(the shares are then renormalised), so every term is finite; a bin with no rows in either sample is left out "
            "(shares and contribution 0)."
        )
    )
    bins: Sequence[PsiBin] = field(metadata=doc("Per-bin shares and PSI contributions."))
    concentration_current: Concentration = field(metadata=doc("Herfindahl index of the current grade shares."))
    concentration_reference: Concentration = field(metadata=doc("Herfindahl index of the reference grade shares."))
    scores: ShareHistogram = field(metadata=doc("Score distributions of both samples (the figure)."))
    concentration_test: CreditTest | None = field(
        default=None,
        metadata=doc(
            "ECB 2019 test of the current concentration in grades against the initial (reference) one: statistic "
            "S = sqrt(K - 1) (CV_curr - CV_init) / sqrt(CV_curr^2 (0.5 + CV_curr^2)), p = 1 - Phi(S), one-sided "
            "(a small p: the grades became more concentrated); undefined with reason no_reference_grades when the PSI "
            "runs over score deciles."
        ),
    )


@dataclass(frozen=True, slots=True, repr=False, eq=False)
class CreditMigration(Frozen):
    """Grade migration of the rows found (by id) in both samples."""

    grades: Sequence[str] = field(metadata=doc("Grade labels, rows and columns of the matrix."))
    counts: Sequence[Sequence[int]] = field(
        metadata=doc("counts[i][j]: obligors in grade i of the reference and j now.")
    )
    matched: int = field(
        metadata=doc(
            "Obligors found by id in both samples (under frequency weights an id of w "
            "obligors in the reference and v now counts min(w, v))."
        )
    )
    stable: float | None = field(metadata=doc("Share of the matched obligors in the same grade."))
    upgraded: float | None = field(metadata=doc("Share moved to a lower-PD grade."))
    downgraded: float | None = field(metadata=doc("Share moved to a higher-PD grade."))
    beyond_one: float | None = field(metadata=doc("Share moved by more than one grade."))
    mwb_lower: float | None = field(
        default=None,
        metadata=doc(
            "ECB 2019 (2.5.5.1) lower matrix weighted bandwidth, moves to a lower-PD grade: sum_{i>j} |i-j| N_ij / M_lower, "
            "M_lower = sum_{i>=2} max(|i-K|, |i-1|) sum_{j<i} N_ij (grades 1..K); in (0, 1]; null without such a move."
        ),
    )
    mwb_upper: float | None = field(
        default=None,
        metadata=doc(
            "ECB 2019 (2.5.5.1) upper matrix weighted bandwidth, moves to a higher-PD grade: sum_{i<j} |i-j| N_ij / M_upper, "
            "M_upper = sum_{i<=K-1} max(|i-K|, |i-1|) sum_{j>i} N_ij; in (0, 1]; null without such a move."
        ),
    )
    stability_z: Sequence[Sequence[float | None]] | None = field(
        default=None,
        metadata=doc(
            "ECB 2019 (2.5.5) migration matrix stability test per cell: z_ij = (p_n - p_ij) / sqrt((p_ij (1 - p_ij) + "
            "p_n (1 - p_n) + 2 p_ij p_n) / N_i), p_ij = N_ij / N_i over the matched rows of reference grade i, p_n the "
            "neighbour one step nearer the diagonal; null on the diagonal, in an empty row and at zero variance."
        ),
    )
    stability_p: Sequence[Sequence[float | None]] | None = field(
        default=None,
        metadata=doc(
            "p = Phi(z_ij), one-sided (H0: frequencies fall away from the diagonal); small: the cell holds more rows "
            "than its neighbour nearer the diagonal."
        ),
    )
    stability_flagged: int | None = field(
        default=None, metadata=doc("Cells whose stability p-value is below credit.traffic_lights.amber.")
    )


@dataclass(frozen=True, slots=True, repr=False, eq=False)
class CreditGroup(Frozen):
    """Headline numbers of one period or segment of the current sample."""

    key: str = field(metadata=doc("The period (2024-07, 2024Q3) or the segment value."))
    n: int = field(metadata=doc("Rows."))
    defaults: int = field(metadata=doc("Defaults."))
    default_rate: float = field(metadata=doc("defaults / n."))
    mean_pd: float | None = field(metadata=doc("Mean PD; null without a PD."))
    auc: float | None = field(metadata=doc("AUC; null without two rows of each class."))
    auc_ci: Sequence[float] | None = field(
        metadata=doc(
            "DeLong interval of the AUC at the run's confidence level: AUC -/+ z SE (pROC ci.auc, method delong), or on "
            "the logit scale where that would leave [0, 1] (the models' rule, engine.proportions.delong_auc_bounds)."
        )
    )
    gini: float | None = field(metadata=doc("Gini = 2 AUC - 1 (the accuracy ratio)."))
    gini_ci: Sequence[float] | None = field(metadata=doc("The AUC interval mapped to the Gini scale."))
    ks: float | None = field(
        metadata=doc("Kolmogorov-Smirnov: max |TPR - FPR| over the cuts; null without both classes.")
    )
    few_defaults: bool = field(
        metadata=doc(
            "Fewer than credit.min_defaults defaults or non-defaults: the AUC, its interval and the KS are weak."
        )
    )


@dataclass(frozen=True, slots=True, repr=False, eq=False)
class CreditModel(Frozen):
    """The credit validation of one model."""

    model: str = field(metadata=doc("The model's name."))
    grading: Literal["edges", "column", "quantiles"] = field(metadata=doc("How the grades were made (credit.grades)."))
    graded_by: Literal["pd", "score", "column"] = field(
        metadata=doc("What the grades cut: the PD, the score (a scorecard without a PD), or a rating column.")
    )
    pd_source: Literal["pd_column", "score", "none"] = field(
        metadata=doc("Where the PD comes from: models[].pd, the score (probabilities), or none (no calibration).")
    )
    n: int = field(metadata=doc("Rows of the current sample."))
    defaults: int = field(metadata=doc("Defaults of the current sample."))
    grades: Sequence[CreditGrade] = field(metadata=doc("The grades table, lowest PD first."))
    monotonic: bool = field(metadata=doc("No grade breaks the rank order of default rates."))
    calibration: CreditCalibration | None = field(metadata=doc("Portfolio calibration; null without a PD."))
    auc_history: CreditAucHistory | None = field(
        metadata=doc("The ECB test against the initial AUC; null without initial_auc and reference.")
    )
    accuracy_ratio: float | None = field(metadata=doc("Accuracy ratio of the CAP curve (= Gini = 2 AUC - 1)."))
    cap: CurveData | None = field(
        metadata=doc("CAP curve: x share of rows taken riskiest first, y share of defaults captured (decimated).")
    )
    stability: CreditStability | None = field(metadata=doc("Stability against models[].reference; null without one."))
    migration: CreditMigration | None = field(
        metadata=doc(
            "Grade migration; null unless both samples carry ids and share at least one (capabilities.migration says why)."
        )
    )
    period: Literal["month", "quarter"] | None = field(
        metadata=doc(
            "Length of the periods: month when the dates span at most 12 calendar months, else quarter; null without date."
        )
    )
    periods: Sequence[CreditGroup] = field(metadata=doc("Per-period numbers, in time order."))
    segments: Sequence[CreditGroup] = field(metadata=doc("Per-segment numbers (the segment column), by label."))
    light: Light | None = field(
        metadata=doc("Worst light of the model's calibration, AUC test, PSI and concentration test.")
    )
    failures: Sequence[str] = field(
        metadata=doc(
            "What is red: calibration failures, 'auc_history', 'psi', 'herfindahl'; these enter the report's summary."
        )
    )
    capabilities: Mapping[str, str] = field(
        metadata=doc(
            "What could not be computed, with a reason code (e.g. calibration: no_pd, migration: no_ids or no_shared_ids)."
        )
    )
    accuracy_ratio_ci: Sequence[float] | None = field(
        default=None,
        metadata=doc(
            "Normal interval of the accuracy ratio at the run's confidence level with Bamber's (1975) unbiased "
            "variance of the AUC, as Engelmann, Hayden & Tasche (2003) and BCBS WP14 give it: 2(U -/+ z sigma) - 1, "
            "the ends cut at -1 and 1; null without two defaults and two non-defaults."
        ),
    )
    accuracy_ratio_se: float | None = field(
        default=None,
        metadata=doc("Standard error of the accuracy ratio, 2 sigma, sigma Bamber's (1975) standard error of the AUC."),
    )
    concentration: Concentration | None = field(
        default=None,
        metadata=doc("Herfindahl index of the current sample's grade shares (with or without a reference sample)."),
    )
    heterogeneity: Sequence[AdjacentGrades] = field(
        default=(), metadata=doc("Adjacent-grade heterogeneity tests, lowest PD first; not in the light.")
    )
    period_tests: CreditPeriodTests | None = field(
        default=None,
        metadata=doc("Calibration over the periods; null without a date column or a PD. Not in the light."),
    )


@dataclass(frozen=True, slots=True, repr=False, eq=False)
class CreditSection(Frozen):
    """The credit validation battery (config ``credit:`` / ``segment:``), one entry per model."""

    models: Mapping[str, CreditModel] = field(metadata=doc("model name -> its credit validation."))
    amber: float = field(metadata=doc("p-value below which a test is amber (credit.traffic_lights.amber)."))
    red: float = field(metadata=doc("p-value below which a test is red (credit.traffic_lights.red)."))
    psi_amber: float = field(metadata=doc("PSI at or above which stability is amber."))
    psi_red: float = field(metadata=doc("PSI at or above which stability is red."))
    min_defaults: int = field(metadata=doc("Cells with fewer defaults (or non-defaults) are marked few_defaults."))
    segment: str | None = field(default=None, metadata=doc("The segment column, or null."))
    asset_correlation: float | Literal["irb_corporate"] | None = field(
        default=None, metadata=doc("credit.asset_correlation, of the binomial tests with correlated defaults.")
    )
    power_ratio: float | None = field(
        default=None,
        metadata=doc("credit.power_ratio: the grade tests' power is at a default rate this times the PD."),
    )
    capabilities: Mapping[str, str] = field(
        default_factory=dict,
        metadata=doc(
            "What the run could not give, with a code: migration: needs_rows (the grade migration joins rows by id, "
            "engine: memory only); "
            "weights: unweighted (rows are counted unweighted here although the config gives weights); "
            "grade_order: text (a rating column's labels are not all numbers and credit.grades.order is not given, so the "
            "grades run in text order, A before AA before AAA, and the rank-order check and the migration follow it)."
        ),
    )


@dataclass(frozen=True, slots=True, repr=False, eq=False)
class FairnessGroup(Frozen):
    """One protected group of one column, one model, at the model's decision rule."""

    group: str = field(metadata=doc("The group (a value of the column)."))
    n: int = field(metadata=doc("Rows of the group."))
    positives: int = field(metadata=doc("Positives (label = positive) of the group."))
    selected: int = field(metadata=doc("Rows predicted positive (flagged) by the decision rule."))
    selection_rate: float | None = field(metadata=doc("selected / n."))
    selection_rate_ci: Sequence[float] | None = field(metadata=doc("Wilson score interval of the selection rate."))
    tpr: float | None = field(metadata=doc("True-positive rate tp / (tp + fn); null without positives."))
    tpr_ci: Sequence[float] | None = field(metadata=doc("Wilson score interval of the TPR."))
    fpr: float | None = field(metadata=doc("False-positive rate fp / (fp + tn); null without negatives."))
    fpr_ci: Sequence[float] | None = field(metadata=doc("Wilson score interval of the FPR."))
    precision: float | None = field(metadata=doc("tp / (tp + fp); null when no row is selected."))
    precision_ci: Sequence[float] | None = field(metadata=doc("Wilson score interval of the precision."))
    auc: float | None = field(metadata=doc("ROC AUC within the group; null below two rows of each class."))
    auc_ci: Sequence[float] | None = field(metadata=doc("DeLong interval of the AUC (logit scale near 0 or 1)."))
    adverse_impact_ratio: float | None = field(
        metadata=doc(
            "Favourable rate (see favourable) / the reference group's (1 for the reference); below 0.8 fails the "
            "four-fifths rule."
        )
    )
    adverse_impact_ratio_ci: Sequence[float] | None = field(
        metadata=doc("Bootstrap percentile interval of the adverse-impact ratio (per-group count tables resampled).")
    )


@dataclass(frozen=True, slots=True, repr=False, eq=False)
class FairnessColumn(Frozen):
    """One protected column of one model: its groups and the disparities between them."""

    column: str = field(metadata=doc("The protected-attribute column (fairness.groups)."))
    reference: str = field(metadata=doc("The reference group of the adverse-impact ratios."))
    groups: Sequence[FairnessGroup] = field(metadata=doc("The groups, in label order."))
    disparities: Mapping[str, float | None] = field(
        metadata=doc(
            "Between groups, as fairlearn.metrics defines them: demographic_parity_difference (max - min "
            "selection rate) and _ratio (min / max), equalized_odds_difference (the larger of the TPR and FPR "
            "differences) and _ratio (the smaller of their ratios), equal_opportunity_difference (TPR max - min)."
        )
    )
    disparities_ci: Mapping[str, Sequence[float]] = field(
        metadata=doc(
            "Bootstrap percentile intervals of the disparities: each group's confusion cells redrawn from a "
            "multinomial of its size (groups independent); empty without resamples."
        )
    )
    min_adverse_impact_ratio: float | None = field(
        metadata=doc("The smallest adverse-impact ratio of a non-reference group (the four-fifths rule's test).")
    )


@dataclass(frozen=True, slots=True, repr=False, eq=False)
class FairnessChange(Frozen):
    """A challenger's change against the baseline on one protected column, with paired intervals."""

    column: str = field(metadata=doc("The protected-attribute column (fairness.groups)."))
    rows: int | None = field(
        metadata=doc("Rows both models score (joined by id, else row by row); null when they cannot be paired.")
    )
    method: str | None = field(metadata=doc("How the intervals were made; null without intervals."))
    changes_ci: Mapping[str, Sequence[float]] = field(
        metadata=doc(
            "Measure -> the paired bootstrap percentile interval of its change (FairnessModel.changes); empty "
            "without resamples or pairing."
        )
    )
    adverse_impact_ratio_changes: Mapping[str, float | None] = field(
        metadata=doc("Non-reference group -> its adverse-impact ratio, challenger minus baseline.")
    )
    adverse_impact_ratio_changes_ci: Mapping[str, Sequence[float]] = field(
        metadata=doc("Paired bootstrap percentile intervals of the adverse-impact ratio changes.")
    )
    unpaired: str | None = field(
        default=None,
        metadata=doc(
            "Why the rows could not be paired (lengths_differ, rows_dropped, no_common_ids); null when paired."
        ),
    )


@dataclass(frozen=True, slots=True, repr=False, eq=False)
class FairnessModel(Frozen):
    """The fairness of one model."""

    model: str = field(metadata=doc("The model's name."))
    threshold: float | None = field(metadata=doc("The decision threshold the groups' rates are taken at."))
    columns: Sequence[FairnessColumn] = field(metadata=doc("One entry per protected column."))
    changes: Mapping[str, Mapping[str, float | None]] = field(
        default_factory=dict,
        metadata=doc(
            "A challenger: column -> disparity (and min_adverse_impact_ratio) -> its value minus the baseline's on "
            "the rows both score (paired; else the difference of the two values); empty for the baseline."
        ),
    )
    paired: Sequence[FairnessChange] = field(
        default=(),
        metadata=doc(
            "A challenger: per protected column, the change against the baseline on the rows both score, with "
            "paired bootstrap intervals; empty for the baseline."
        ),
    )


@dataclass(frozen=True, slots=True, repr=False, eq=False)
class FairnessSection(Frozen):
    """The fairness section (config fairness:), one entry per binary model."""

    models: Mapping[str, FairnessModel] = field(metadata=doc("model name -> its fairness by group."))
    four_fifths: float = field(default=0.8, metadata=doc("The adverse-impact ratio below which a group is flagged."))
    favourable: Favourable = field(
        default="flagged",
        metadata=doc(
            "The outcome the adverse-impact ratios compare: flagged (the selection rate, the share predicted "
            "positive) or not_flagged (1 - the selection rate, e.g. the approval rate when the positive class is "
            "the default)."
        ),
    )


@dataclass(frozen=True, slots=True, repr=False, eq=False)
class SegmentModel(Frozen):
    """One model's key metrics within one segment value."""

    model: str = field(metadata=doc("The model's name."))
    metrics: Mapping[str, float | None] = field(
        metadata=doc("roc_auc, gini, ks, brier, log_loss and the primary metric; null when undefined.")
    )
    ci: Mapping[str, Sequence[float]] = field(metadata=doc("metric -> its interval at the run's level."))
    ci_method: Mapping[str, str] = field(metadata=doc("metric -> how its interval was made."))


@dataclass(frozen=True, slots=True, repr=False, eq=False)
class SegmentDelta(Frozen):
    """A challenger's paired difference of the primary metric from the baseline within one segment value."""

    model: str = field(metadata=doc("The challenger."))
    delta: float | None = field(metadata=doc("The challenger's primary metric minus the baseline's."))
    ci: Sequence[float] | None = field(metadata=doc("Unadjusted interval of delta at the run's level."))
    ci_method: str | None
    method: str = field(metadata=doc("The test: DeLong (paired) for AUC / Gini on paired rows, else the bootstrap."))
    p_value: float | None
    p_value_adjusted: float | None = field(
        metadata=doc("Holm-adjusted over the family 'segments': this challenger over the tested values of the column.")
    )
    family: HolmFamily = field(default="segments", metadata=doc("The Holm family: 'segments'."))
    family_size: int = field(default=0, metadata=doc("Tested values of the column."))
    significant: bool | None = field(default=None, metadata=doc("Adjusted p below alpha; null without a test."))
    direction: Literal["better", "worse", "inconclusive"] = "inconclusive"


@dataclass(frozen=True, slots=True, repr=False, eq=False)
class SegmentValue(Frozen):
    """One value of a segment column: its rows, and the models compared within it."""

    value: str = field(metadata=doc("The segment value."))
    rows: int = field(metadata=doc("Rows of the value (frequency weights counted as rows)."))
    positives: int = field(metadata=doc("Positive rows of the value (the baseline's labels)."))
    tested: bool = field(
        metadata=doc("False: fewer positive or negative rows than segments_min_rows; no metrics or tests.")
    )
    models: Sequence[SegmentModel] = field(default_factory=list, metadata=doc("Each model's metrics."))
    deltas: Sequence[SegmentDelta] = field(default_factory=list, metadata=doc("Each challenger against the baseline."))


@dataclass(frozen=True, slots=True, repr=False, eq=False)
class SegmentColumn(Frozen):
    """One segment column: its values in label order."""

    column: str
    values: Sequence[SegmentValue]


@dataclass(frozen=True, slots=True, repr=False, eq=False)
class SegmentReversal(Frozen):
    """A challenger whose overall result and a segment's (Holm-significant) point opposite ways."""

    model: str
    column: str
    value: str
    overall: Literal["better", "worse"] = field(
        metadata=doc("The challenger's overall primary-metric delta favours it (better) or the baseline (worse).")
    )
    segment: Literal["better", "worse"] = field(metadata=doc("The segment's significant direction."))
    delta: float | None
    p_value_adjusted: float | None


@dataclass(frozen=True, slots=True, repr=False, eq=False)
class SegmentSection(Frozen):
    """The models compared within segments (config segments:)."""

    baseline: str
    primary_metric: str
    min_rows: int = field(metadata=doc("segments_min_rows: positive and negative rows a value needs to be tested."))
    alpha: float
    columns: Sequence[SegmentColumn]
    reversals: Sequence[SegmentReversal] = field(
        default_factory=list,
        metadata=doc("Challengers better overall and significantly worse in a segment, or the reverse."),
    )


#: The section types :class:`~reportgen.results.ComparisonResult`'s fields name, by name (the
#: ``localns`` its type hints are resolved in).
SECTIONS: dict[str, type] = {
    "CreditSection": CreditSection,
    "FairnessSection": FairnessSection,
    "SegmentSection": SegmentSection,
}
