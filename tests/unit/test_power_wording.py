"""A non-significant DeLong verdict states the minimum detectable difference at 80 % power."""

from __future__ import annotations

import numpy as np
import pandas as pd
import pytest

from reportgen.api import compare_frames
from reportgen.report.wording import verdict_of


@pytest.fixture(scope="module")
def result():
    rng = np.random.default_rng(3)
    n = 600
    y = (rng.random(n) < 0.3).astype(int)
    df = pd.DataFrame(
        {"y": y, "a": np.round(rng.normal(size=n) + y, 2), "b": np.round(rng.normal(size=n) + 1.05 * y, 2)}
    )
    return compare_frames(
        df,
        label="y",
        scores=["a", "b"],
        threshold=0.5,
        bootstrap={"resamples": 20, "seed": 1},
        now="2026-01-01T00:00:00Z",
    )


def test_a_not_significant_gini_verdict_states_its_minimum_detectable_difference(result):
    c = result.comparisons[0]
    d = c.decision
    assert d.significant is False
    assert d.min_detectable_delta == pytest.approx(2 * c.tests.delong.min_detectable_delta)
    text = verdict_of(c.model, c.baseline, d)
    assert "not significant (with 80 % power this test detects a Gini difference of " in text
    assert f"{d.min_detectable_delta:.3f} or more at the 5 % level" in text
    assert c.tests.delong.power is not None and c.tests.delong.power < 0.8


def test_a_bootstrap_verdict_has_no_minimum_detectable_difference():
    rng = np.random.default_rng(4)
    n = 400
    y = (rng.random(n) < 0.3).astype(int)
    df = pd.DataFrame({"y": y, "a": rng.random(n), "b": rng.random(n)})
    r = compare_frames(
        df,
        label="y",
        scores=["a", "b"],
        primary_metric="f1",
        bootstrap={"resamples": 30, "seed": 1},
        now="2026-01-01T00:00:00Z",
    )
    d = r.comparisons[0].decision
    assert d.min_detectable_delta is None
    assert "80 % power" not in verdict_of("b", "a", d)
