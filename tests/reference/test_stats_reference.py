"""Verified cases: DeLong's AUC variance, covariance, interval and tests against R's pROC.

Data: pROC's ``aSAH`` dataset (Turck et al. 2010, Intensive Care Medicine 36:107; shipped as
``data/aSAH.rda`` in github.com/xrobin/pROC): 113 patients after aneurysmal subarachnoid
haemorrhage, outcome Good (72) / Poor (41), markers s100b, wfns (ordinal 1-5, heavy ties) and
ndka. The .rda file is binary, so ``tests/data/asah.csv`` was transcribed from two independent
public plain-text copies found in the code index (a pytest file of a model-gate project that
lists y/s100b/wfns/ndka as Python lists, and the opendose test suite, ``ASAH`` string of
"outcome,wfns,s100b,ndka" rows); the two copies agree row for row. Row order is pROC's.

Expected values (positive class "Poor"; pROC picks direction "<", i.e. higher = more positive,
for all three markers) are pROC's own published test expectations, github.com/xrobin/pROC:

* ``tests/testthat/test-var.R``: var(r.wfns), var(r.ndka), var(r.s100b) (DeLong).
* ``tests/testthat/test-cov.R``: cov(r.wfns, r.ndka), cov(r.ndka, r.s100b), cov(r.s100b, r.wfns).
* ``tests/testthat/test-ci.auc.R``: ci.auc(r.ndka) = 0.501244999271703 .. 0.722670989888189.
* ``tests/testthat/test-roc.test.R``: paired roc.test Z, p, conf.int for (wfns, s100b),
  (wfns, ndka), (ndka, s100b); unpaired D and p for the same pairs.
* pROC's documentation / printed example: ``roc(aSAH$outcome, aSAH$s100b, ci = TRUE)`` gives
  "Area under the curve: 0.7314, 95% CI: 0.6301-0.8326 (DeLong)", and
  ``roc.test(aSAH$outcome, aSAH$s100b, aSAH$wfns)`` gives Z = -2.209, p-value = 0.02718,
  AUCs 0.7314 and 0.8237.

pROC's tests use ``expect_equal`` (relative tolerance 1.5e-8); we assert rel 1e-9 or better.
"""

from __future__ import annotations

import csv
from pathlib import Path

import numpy as np
import pytest
from sklearn.metrics import roc_auc_score

from reportgen.engine.delong import delong_auc_ci, delong_paired, delong_unpaired, gini_interval

DATA = Path(__file__).resolve().parents[1] / "data" / "asah.csv"


@pytest.fixture(scope="module")
def asah() -> dict[str, np.ndarray]:
    with DATA.open(newline="") as f:
        rows = list(csv.DictReader(f))
    return {
        "poor": np.array([r["outcome"] == "Poor" for r in rows]),
        "s100b": np.array([float(r["s100b"]) for r in rows]),
        "wfns": np.array([float(r["wfns"]) for r in rows]),
        "ndka": np.array([float(r["ndka"]) for r in rows]),
    }


def test_dataset_shape(asah):
    assert asah["poor"].shape == (113,)
    assert int(asah["poor"].sum()) == 41  # 72 Good, 41 Poor
    assert set(np.unique(asah["wfns"])) == {1.0, 2.0, 3.0, 4.0, 5.0}


# verified case: pROC tests/testthat/test-roc.test.R (AUCs also in test-ci.auc.R for ndka)
AUC = {"wfns": 0.823678861788618, "ndka": 0.611957994579946, "s100b": 0.7313685636856369}
# verified case: pROC tests/testthat/test-var.R
VAR = {"wfns": 0.00146991470882363, "ndka": 0.0031908105493913, "s100b": 0.00266868245717244}


@pytest.mark.parametrize("marker", ["wfns", "ndka", "s100b"])
def test_auc_and_delong_variance(asah, marker):
    ci = delong_auc_ci(asah[marker], asah["poor"])
    assert ci.auc == pytest.approx(AUC[marker], rel=1e-12)
    assert ci.auc == pytest.approx(roc_auc_score(asah["poor"], asah[marker]), abs=1e-15)
    assert ci.variance == pytest.approx(VAR[marker], rel=1e-12)
    assert (ci.n_pos, ci.n_neg) == (41, 72)


def test_ci_auc_ndka(asah):
    # verified case: pROC tests/testthat/test-ci.auc.R, ci.auc(r.ndka) and ci.auc(outcome, -ndka)
    ci = delong_auc_ci(asah["ndka"], asah["poor"])
    assert (ci.lo, ci.hi) == pytest.approx((0.501244999271703, 0.722670989888189), rel=1e-12)
    flipped = delong_auc_ci(-asah["ndka"], asah["poor"], direction="lower")
    assert (flipped.lo, flipped.auc, flipped.hi) == pytest.approx((ci.lo, ci.auc, ci.hi), rel=1e-14)


def test_ci_auc_s100b_printed(asah):
    # verified case: pROC example output
    # "Area under the curve: 0.7314 / 95% CI: 0.6301-0.8326 (DeLong)"
    ci = delong_auc_ci(asah["s100b"], asah["poor"])
    assert round(ci.auc, 4) == 0.7314
    assert (round(ci.lo, 4), round(ci.hi, 4)) == (0.6301, 0.8326)
    g = gini_interval(ci)
    assert (g.gini, g.lo, g.hi) == pytest.approx((2 * ci.auc - 1, 2 * ci.lo - 1, 2 * ci.hi - 1))


# verified case: pROC tests/testthat/test-cov.R
@pytest.mark.parametrize(
    "a,b,cov",
    [
        ("wfns", "ndka", -0.000532967856762438),
        ("ndka", "s100b", -0.000756164938056579),
        ("s100b", "wfns", 0.00119615567376754),
    ],
)
def test_delong_covariance(asah, a, b, cov):
    t = delong_paired(asah[a], asah[b], asah["poor"])
    assert t.covariance == pytest.approx(cov, rel=1e-12)
    assert (t.var_a, t.var_b) == pytest.approx((VAR[a], VAR[b]), rel=1e-12)


# verified case: pROC tests/testthat/test-roc.test.R, "roc.test statistic and p are as expected"
@pytest.mark.parametrize(
    "a,b,z,p,lo,hi",
    [
        ("wfns", "s100b", 2.20898359144091, 0.0271757822291882, 0.0104061769564846, 0.174214419249478),
        ("wfns", "ndka", 2.79777591868904, 0.00514557970691098, 0.0634011709339876, 0.3600405634833566),
        ("ndka", "s100b", -1.39077002573558, 0.164295175223054, -0.2876917446341914, 0.0488706064228094),
    ],
)
def test_paired_roc_test(asah, a, b, z, p, lo, hi):
    t = delong_paired(asah[a], asah[b], asah["poor"])
    assert t.paired and t.df is None
    assert t.z == pytest.approx(z, rel=1e-12)
    assert t.p_value == pytest.approx(p, rel=1e-12)
    assert (t.lo, t.hi) == pytest.approx((lo, hi), rel=1e-12)
    assert t.delta == pytest.approx(AUC[a] - AUC[b], rel=1e-12)
    # reversed order: same p, negated statistic and interval
    r = delong_paired(asah[b], asah[a], asah["poor"])
    assert (r.z, r.p_value, r.lo, r.hi) == pytest.approx((-t.z, t.p_value, -t.hi, -t.lo), rel=1e-14)


def test_documented_roc_test_example(asah):
    # verified case: pROC roc.test(aSAH$outcome, aSAH$s100b, aSAH$wfns):
    # "Z = -2.209, p-value = 0.02718 ... AUC of roc1 0.7314, AUC of roc2 0.8237"
    t = delong_paired(asah["s100b"], asah["wfns"], asah["poor"])
    assert round(t.z, 3) == -2.209
    assert round(t.p_value, 5) == 0.02718
    assert (round(t.auc_a, 4), round(t.auc_b, 4)) == (0.7314, 0.8237)


def test_identical_curves(asah):
    # verified case: pROC test-roc.test.R "DeLong roc.test works when curves are identical"
    t = delong_paired(asah["wfns"], asah["wfns"], asah["poor"])
    assert (t.z, t.p_value) == (0.0, 1.0)


# verified case: pROC tests/testthat/test-roc.test.R, "unpaired roc.test statistic and p"
@pytest.mark.slow
@pytest.mark.parametrize(
    "a,b,d,p",
    [
        ("wfns", "s100b", 1.43490640926908, 0.152825378808796),
        ("wfns", "ndka", 3.10125096778969, 0.00220950791756457),
        ("ndka", "s100b", -1.55995743389685, 0.120192832430845),
    ],
)
def test_unpaired_roc_test(asah, a, b, d, p):
    y = asah["poor"]
    t = delong_unpaired(asah[a], y, asah[b], y)
    assert not t.paired and t.covariance == 0.0
    assert t.z == pytest.approx(d, rel=1e-12)
    assert t.p_value == pytest.approx(p, rel=1e-10)
