"""The calibration section says why it has no table of differences when the baseline (or a
challenger) is calibrated on its PD column: that column is not counted with the other models'
scores, so no paired difference is drawn (regression: the table was silently absent)."""

from __future__ import annotations

import dataclasses

import numpy as np
import pandas as pd
import pytest

from reportgen import compare_frames
from reportgen.report.views.calibration import calibration_view
from reportgen.report.views.common import Models


@pytest.mark.slow  # a run and the figures' import: about 2 s on a loaded machine
def test_a_pd_column_baseline_explains_the_missing_differences():
    rng = np.random.default_rng(2)
    y = rng.random(300) < 0.3
    frame = pd.DataFrame({"y": y.astype(int), "a": np.clip(0.3 + 0.2 * y + rng.normal(0, 0.15, 300), 0, 1)})
    frame["b"] = np.clip(frame["a"] + rng.normal(0, 0.1, 300), 0, 1)
    result = compare_frames(
        frame,
        label="y",
        scores=["a", "b"],
        calibration={"bins": 5},
        bootstrap={"resamples": 0},
        now="2026-01-01T00:00:00Z",
    )
    palette = ["#000000"] * 4
    assert calibration_view(result, Models.of(result, palette)).no_deltas == ""  # the differences are there
    base = result.run.baseline
    models = dict(result.models)
    models[base] = dataclasses.replace(
        models[base], metric_sources={**models[base].metric_sources, "calibration": "pd_column"}
    )
    # as the pipeline leaves it: the baseline's numbers are its PD column's, no joint table, no differences
    changed = dataclasses.replace(
        result, models=models, comparisons=[dataclasses.replace(c, calibration=None) for c in result.comparisons]
    )
    view = calibration_view(changed, Models.of(changed, palette))
    assert view.challengers == () and view.no_deltas.startswith(
        f"No differences with {base}: {base} calibrated on its PD column"
    )
