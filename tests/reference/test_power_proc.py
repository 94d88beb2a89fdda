"""Verified case: the power of DeLong's paired test equals pROC's published values.

Source: pROC's test suite, github.com/xrobin/pROC ``tests/testthat/test-power.roc.test.R``:
``power.roc.test(r.ndka, r.wfns)`` (DeLong variances) has power 0.7131594 at α = 0.05 with 41
cases and 72 controls, and ``power.roc.test(r.ndka, r.wfns, power = 0.9)`` needs 64.77777 cases.
Our DeLong variances and covariance (:func:`reportgen.engine.delong.delong_paired`) go through
:mod:`reportgen.engine.power`; the minimum detectable difference is checked by its definition:
at δ_min the power is exactly 80 %."""

from __future__ import annotations

import csv
from pathlib import Path

import numpy as np
import pytest
from scipy.stats import norm

from reportgen.engine import delong
from reportgen.engine import power as PW

ASAH = Path(__file__).resolve().parents[1] / "data" / "asah.csv"


@pytest.fixture(scope="module")
def ndka_wfns():
    with ASAH.open() as f:
        rows = list(csv.DictReader(f))
    y = np.array([r["outcome"] == "Poor" for r in rows])
    return delong.delong_paired(
        np.array([float(r["ndka"]) for r in rows]), np.array([float(r["wfns"]) for r in rows]), y
    )


def test_power_of_the_paired_delong_test_equals_proc(ndka_wfns):
    t = ndka_wfns
    got = PW.power_at(t.auc_a - t.auc_b, t.var_a, t.var_b, t.covariance, 0.05)
    assert got == pytest.approx(0.7131594, abs=1e-6)


def test_cases_for_90_percent_power_equal_proc(ndka_wfns):
    """pROC's sample size from the same variances (scaled by its 41 cases): the formula the
    minimum detectable difference inverts."""
    t = ndka_wfns
    v0 = 41 * (2 * t.var_a - 2 * t.covariance)
    va = 41 * (t.var_a + t.var_b - 2 * t.covariance)
    nd = (norm.ppf(0.975) * np.sqrt(v0) + norm.ppf(0.9) * np.sqrt(va)) ** 2 / (t.auc_a - t.auc_b) ** 2
    assert nd == pytest.approx(64.77777, abs=1e-5)
    # the same equation solved for δ at n = 41 by the engine, at power 0.9
    assert PW.min_detectable_delta(t.var_a, t.var_b, t.covariance, 0.05, 0.9) == pytest.approx(
        abs(t.auc_a - t.auc_b) * np.sqrt(nd / 41), rel=1e-9
    )


@pytest.mark.parametrize("alpha", [0.01, 0.05, 0.1])
def test_at_the_minimum_detectable_difference_the_power_is_80_percent(ndka_wfns, alpha):
    t = ndka_wfns
    d = PW.min_detectable_delta(t.var_a, t.var_b, t.covariance, alpha)
    assert PW.power_at(d, t.var_a, t.var_b, t.covariance, alpha) == pytest.approx(0.8, abs=1e-7)
