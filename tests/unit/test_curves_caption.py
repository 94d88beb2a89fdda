"""The curves section's reliability diagram says which bins it draws: always ten equal-width bins
of the probability, so a run whose ``calibration:`` bins by quantile shows two diagrams on
different bins, and the caption names both rather than leave the reader to find out."""

from __future__ import annotations

import dataclasses
import json
from pathlib import Path

import numpy as np
import pytest

from reportgen.option_results import CalibrationSummary
from reportgen.report.views.curves import calibration_caption
from reportgen.results import ComparisonResult

FIXTURE = Path(__file__).parents[1] / "snapshots" / "fixtures" / "binary.metrics.json"


@pytest.fixture(scope="module")
def result() -> ComparisonResult:
    return ComparisonResult.from_json(json.loads(FIXTURE.read_text()))


def _calibrated(result: ComparisonResult, bins: int, strategy: str) -> ComparisonResult:
    one = np.array([0.5])
    summary = CalibrationSummary(strategy, bins, one, one, one, one * 0, one, {}, {}, "")  # type: ignore[arg-type]
    models = {n: dataclasses.replace(m, calibration=summary) for n, m in result.models.items()}
    return dataclasses.replace(result, models=models)


def test_the_diagram_names_its_ten_equal_width_bins(result):
    assert calibration_caption(result).startswith("Reliability diagram on 10 equal-width bins: ")
    assert "calibration section" not in calibration_caption(_calibrated(result, 10, "uniform"))


@pytest.mark.parametrize(
    ("bins", "strategy", "words"),
    [
        (10, "quantile", "10 equal-count (quantile) bins"),
        (20, "uniform", "20 equal-width bins"),
    ],
)
def test_other_configured_bins_are_named(result, bins, strategy, words):
    caption = calibration_caption(_calibrated(result, bins, strategy))
    assert f"The calibration section bins as configured: {words}." in caption
