"""operating_points: its config, the model and comparison blocks, the optimum intervals (each
resample's own optimum), frames, the report's tables and the calibration figure's error bars."""

from __future__ import annotations

import json

import numpy as np
import pandas as pd
import pytest

from reportgen import plot
from reportgen.api import compare_frames
from reportgen.config import config_from_mapping
from reportgen.engine import binary as B
from reportgen.engine import operating_points as OP
from reportgen.engine.curve import build_table
from reportgen.errors import ConfigError
from reportgen.report.formats import fmt_threshold_ci
from reportgen.report.views.common import Models
from reportgen.report.views.operating_points import operating_points_view
from reportgen.report.views.thresholds import thresholds_view
from reportgen.results import ComparisonResult

BASE = {"label": "y", "models": [{"name": "a", "file": "a.csv", "score": "s"}]}


@pytest.mark.parametrize(
    "entry, words",
    [
        ({"fpr": [0.0]}, "outside"),
        ({"fpr": [1.0]}, "outside"),
        ({"recall": [1.2]}, "outside"),
        ({"fpr": [0.1, 0.1]}, "twice"),
        ({"fpr": [0.1], "tpr": [0.5]}, "tpr"),
    ],
)
def test_the_config_is_strict(entry, words):
    with pytest.raises(ConfigError, match=words):
        config_from_mapping({**BASE, "operating_points": entry})


def test_operating_points_need_task_binary():
    mc = {"label": "y", "task": "multiclass", "models": [{"name": "a", "file": "a.csv", "prediction": "p"}]}
    with pytest.raises(ConfigError, match="operating_points"):
        config_from_mapping({**mc, "operating_points": {"fpr": [0.1]}})


@pytest.fixture(scope="module")
def result() -> ComparisonResult:
    rng = np.random.default_rng(6)
    n = 1200
    p = 1.0 / (1.0 + np.exp(-rng.normal(-0.9, 1.1, n)))
    y = rng.random(n) < np.clip(1.15 * p, 0.0, 1.0)
    q = np.clip(p * 0.8 + rng.normal(0, 0.05, n), 0.0, 1.0)
    df = pd.DataFrame({"y": y.astype(int), "a": np.round(p, 2), "b": np.round(q, 2)})
    return compare_frames(
        df,
        label="y",
        scores=["a", "b"],
        threshold=0.3,
        calibration={"bins": 8},
        operating_points={"fpr": [0.05, 0.1], "recall": [0.5]},
        bootstrap={"resamples": 60, "seed": 4},
        now="2026-01-01T00:00:00Z",
    )


def test_every_model_and_comparison_has_its_points_with_intervals(result):
    for m in result.models.values():
        op = m.operating_points
        assert op is not None
        assert [(p.kind, p.at) for p in op.points] == [
            ("tpr_at_fpr", 0.05),
            ("tpr_at_fpr", 0.1),
            ("precision_at_recall", 0.5),
        ]
        for p in op.points:
            assert p.ci is not None and p.ci[0] <= p.value <= p.ci[1]
        assert [o.criterion for o in op.optima] == list(m.optimal_thresholds)
    (c,) = result.comparisons
    a, b = result.models["a"].operating_points, result.models["b"].operating_points
    for d, pa, pb in zip(c.operating_points, b.points, a.points):  # type: ignore[union-attr]
        assert d.delta == pytest.approx(pa.value - pb.value)
        assert d.paired and 0 < d.p_value <= 1 and d.ci[0] <= d.delta <= d.ci[1]
    # round trip through metrics.json
    back = ComparisonResult.from_json(json.loads(json.dumps(result.to_json())))
    assert back.models["a"].operating_points == result.models["a"].operating_points
    assert back.comparisons[0].operating_points == c.operating_points


def test_each_resample_finds_its_own_optimum():
    """Oracle: the row bootstrap by hand (numpy), each resample's F1 optimum by
    ``optimal_thresholds``; with the same draws (a table's cells are its distinct scores here)
    the threshold interval is the percentile interval of those optima."""
    rng = np.random.default_rng(8)
    y = rng.random(300) < 0.3
    s = np.round(rng.normal(size=300) + y, 1)
    t = build_table(s, y)
    got = OP.model_points(t, 0.5, OP.Points(), 1.0, B.Costs(), (), 200, np.random.default_rng(2), 0.9)
    assert got is not None
    lo, hi = got.optima["f1"]["threshold"]  # type: ignore[misc]
    f1 = next(o for o in B.optimal_thresholds(t) if o.criterion == "f1")
    assert lo <= f1.threshold <= hi and lo < hi  # type: ignore[operator]
    v = got.optima["f1"]["value"]
    assert v is not None and v[0] <= f1.value <= v[1]  # type: ignore[operator]


def test_frames_carry_the_points_the_deltas_and_the_threshold_intervals(result):
    fr = result.frames()
    assert len(fr["operating_points"]) == 6 and len(fr["operating_point_deltas"]) == 3
    th = fr["thresholds"]
    assert th[["threshold_ci_low", "threshold_ci_high"]].notna().any(axis=None)
    assert (th["threshold_ci_low"] <= th["threshold_ci_high"]).where(th["threshold_ci_low"].notna(), True).all()


def test_the_report_tables(result):
    ms = Models.of(result, plot.PALETTE, "generic")
    v = operating_points_view(result, ms)
    assert [t.title for t in v.tables] == [
        "True positive rate at a fixed false positive rate",
        "Precision at a fixed recall",
    ]
    assert [r.label for r in v.tables[0].rows] == ["FPR 5.0 %", "FPR 10.0 %"]
    assert v.challengers == ("b",) and v.tables[1].rows[0].deltas[0].ci.startswith("[")
    th = thresholds_view(result, ms)
    assert th.intervals and all(r.threshold_ci.startswith("[") for r in th.models[0].rows if r.threshold != "n/a")


def test_the_calibration_figure_draws_each_bins_interval(result):
    ax = plot.calibration_intervals(result)
    bars = [c for c in ax.collections if c.__class__.__name__ == "LineCollection"]
    cal = result.models["a"].calibration
    assert len(bars) == 2 and len(bars[0].get_segments()) == len(cal.observed)
    seg = bars[0].get_segments()[0]
    assert seg[:, 1].min() == pytest.approx(cal.observed_lo[0]) and seg[:, 1].max() == pytest.approx(cal.observed_hi[0])


@pytest.mark.parametrize(
    "ci, text",
    [
        ((543.8000000000001, 574.0), "[543.8, 574]"),  # a percentile between scores: 4 significant digits
        ((0.32524999, 0.16), "[0.3252, 0.16]"),
        ((12345.6, 0.0000158), "[12346, 0.0000158]"),  # never fewer than the integer part, never an exponent
        ((-0.5, 1.0), "[\u22120.5, 1]"),
        (None, ""),
    ],
)
def test_a_threshold_interval_prints_like_a_threshold(ci, text):
    assert fmt_threshold_ci(ci) == text
