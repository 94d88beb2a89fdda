"""Verified cases, round 3: the credit battery (reportgen/engine/credit.py) against independent
implementations and published formulas, for what rounds 1 and 2 (test_credit_published.py,
test_credit_published_round2.py) and tests/unit/test_credit.py left unchecked, with ties,
frequency weights (a row of weight w is w repeated rows), both score directions and the edge
cases (a grade without defaults, a grade of defaults only, one grade only, PDs of 0 and 1).

What the battery reports (``CreditModel`` in metrics.json) and where each number is checked:

* grades: rows, defaults, default rate, Jeffreys interval of the default rate (RSurveillance,
  DescTools: round 2; statsmodels ``proportion_confint(method="jeffreys")`` and the Brown, Cai &
  DasGupta (2001) ends at D = 0 and D = N: here), mean PD, share, rank order, Jeffreys and
  binomial tests per grade (probcal, meliora, scipy: rounds 1-2; PD 0 and 1: here);
* portfolio calibration: Jeffreys, binomial, Hosmer–Lemeshow with G and G − 2 df, Spiegelhalter
  (meliora, probcal, scipy: rounds 1-2; frequency weights: here), calibration in the large
  (DR − mean PD, O/E and its z test: here, from the formula and statsmodels' Poisson-binomial
  moments), calibration slope and intercept (probcal, scipy's MLE: round 2; their Wald standard
  errors, intervals and tests against statsmodels ``GLM(Binomial, freq_weights=…)``: here);
* discrimination: accuracy ratio / CAP (Engelmann, Hayden & Tasche 2003: round 1), the ECB AUC
  test (pROC's DeLong σ: round 2), per period and per segment AUC/Gini with DeLong intervals
  and KS (pROC, toad, scipy: rounds 1-2; frequency weights and periods: here);
* stability: PSI over the grades (meliora, toad: round 1) and over the reference score deciles
  (toad on the repeated rows, both directions: here), Herfindahl index with the ECB CV form and
  its test (meliora: rounds 1-2; through the model with weights and one grade only: here), the
  migration matrix with the ECB bandwidths and the cell stability test (MathWorks, meliora:
  rounds 1-2; frequency weights: here);
* grades by quantiles with ties and counts: numpy's ``quantile`` of the repeated values (here);
* traffic lights at their boundaries (BCBS WP14 levels as the section states them: here);
* the section's glossary: each test's side, null hypothesis and assumptions (here).

No Brier score, Brier decomposition or information value is reported by the credit section, so
none is checked here.
"""

from __future__ import annotations

import math

import numpy as np
import pytest
from scipy import stats

import reportgen.engine.credit as C
from reportgen.results import to_jsonable

S = C.CreditSettings()


# --- grade migration: frequency weights count obligors ----------------------------------------------


def _migration_case() -> tuple[np.ndarray, np.ndarray, np.ndarray, np.ndarray]:
    """(ids, reference grade, current grade, frequency weight) of 60 obligor rows over 4 grades."""
    rng = np.random.default_rng(31)
    n = 60
    start = rng.integers(0, 4, n)
    end = np.clip(start + rng.choice([-1, 0, 0, 1, 2], n), 0, 3)
    return np.array([f"c{i}" for i in range(n)]), start, end, rng.integers(1, 5, n)


def _graded_sample(ids: np.ndarray, grade: np.ndarray, count: np.ndarray | None = None) -> C.CreditSample:
    pd_scale = np.array([0.01, 0.03, 0.08, 0.2])
    return C.CreditSample(y=np.arange(len(ids)) % 7 == 0, score=pd_scale[grade], pd=pd_scale[grade],
                          grade=np.array(list("ABCD"))[grade], ids=ids, count=count)


@pytest.mark.parametrize("as_counts", [False, True])
def test_migration_counts_a_row_of_frequency_weight_w_as_w_obligors(as_counts: bool) -> None:
    """README: 'weight_kind: frequency counts a row of weight w as w obligors everywhere in the
    section'. The memory engine repeats such a row w times (ids included); a caller may also pass
    the counts. The migration matrix joined the samples with ``intersect1d``, which keeps one row
    per id: an obligor row of weight 3 moved one obligor, while the grades table counted three (the
    matrix summed to 60 against 150 obligors). The matrix of the repeated rows is the matrix of the
    unweighted rows with every cell weighted, and the ECB bandwidths (2.5.5.1) and cell tests (2.5.5)
    are those of the weighted matrix."""
    ids, start, end, w = _migration_case()
    if as_counts:
        cur, ref = _graded_sample(ids, end, w), _graded_sample(ids, start, w)
    else:
        cur = _graded_sample(np.repeat(ids, w), np.repeat(end, w))
        ref = _graded_sample(np.repeat(ids, w), np.repeat(start, w))
    m = C.credit_model("m", cur, ref, "higher", C.Grading("column", order=tuple("ABCD")), S)
    want = np.zeros((4, 4))
    np.add.at(want, (start, end), w)
    mig = m.migration
    assert np.array_equal(np.array(mig.counts), want) and mig.matched == w.sum() == m.n
    moved = end - start
    assert (mig.stable, mig.upgraded, mig.downgraded, mig.beyond_one) == pytest.approx(
        [w[moved == 0].sum() / w.sum(), w[moved < 0].sum() / w.sum(), w[moved > 0].sum() / w.sum(),
         w[np.abs(moved) > 1].sum() / w.sum()], rel=1e-12)
    assert (mig.mwb_lower, mig.mwb_upper) == pytest.approx(C.matrix_weighted_bandwidth(want), rel=1e-12)
    z, _ = C.migration_stability(want)
    assert [[v is None for v in row] for row in mig.stability_z] == np.isnan(z).tolist()
    assert np.array([[0.0 if v is None else v for v in row] for row in mig.stability_z]) == pytest.approx(
        np.nan_to_num(z), rel=1e-12)


def test_migration_of_an_id_weighted_differently_in_the_two_samples_counts_the_obligors_in_both() -> None:
    """An id of weight 3 in the reference and 2 now: two obligors are found in both samples (the
    join of the repeated rows pairs them off one to one), not one and not six."""
    ids = np.array(["a", "b"])
    ref = _graded_sample(ids, np.array([0, 1]), np.array([3, 1]))
    cur = _graded_sample(ids, np.array([1, 1]), np.array([2, 4]))
    mig = C.credit_model("m", cur, ref, "higher", C.Grading("column", order=tuple("ABCD")), S).migration
    assert mig.counts[0][1] == 2 and mig.counts[1][1] == 1 and mig.matched == 3
