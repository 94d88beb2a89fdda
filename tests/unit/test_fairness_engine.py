"""engine.fairness on raw arrays against fairlearn, fast (the whole-run check is in tests/reference)."""

from __future__ import annotations

import fairlearn.metrics as fm  # the oracle is a [test] dependency: missing, the tests fail
import numpy as np
import pytest

from reportgen.engine.fairness import fairness_column, group_tables


def _case(seed: int, direction: str):
    rng = np.random.default_rng(seed)
    n = 900
    g = rng.choice(np.array(["x", "y", "z"]), n, p=[0.5, 0.3, 0.2])
    y = rng.random(n) < np.where(g == "z", 0.35, 0.2)
    s = np.round(rng.normal(size=n) + y + 0.4 * (g == "x"), 1)
    return (s if direction == "higher" else -s), y, g


@pytest.mark.parametrize("direction", ["higher", "lower"])
def test_column_equals_fairlearn(direction: str) -> None:
    s, y, g = _case(1, direction)
    t = 0.7 if direction == "higher" else -0.7
    col = fairness_column(
        "g", group_tables(y, s, g, direction), t, None, 0.95, 100, np.random.default_rng(0), "flagged"
    )
    pred = (s >= t) if direction == "higher" else (s <= t)
    kw = {"y_true": y.astype(int), "y_pred": pred.astype(int), "sensitive_features": g}
    sel = fm.MetricFrame(metrics=fm.selection_rate, **kw).by_group
    assert [x.selection_rate for x in col.groups] == pytest.approx([sel[k] for k in ("x", "y", "z")], abs=1e-12)
    assert col.reference == "x"  # the largest group
    d = col.disparities
    assert d["demographic_parity_ratio"] == pytest.approx(fm.demographic_parity_ratio(**kw), abs=1e-12)
    assert d["equalized_odds_difference"] == pytest.approx(fm.equalized_odds_difference(**kw), abs=1e-12)
    assert d["equalized_odds_ratio"] == pytest.approx(fm.equalized_odds_ratio(**kw), abs=1e-12)
    assert col.min_adverse_impact_ratio == pytest.approx(min(sel["y"], sel["z"]) / sel["x"], abs=1e-12)


def test_counts_give_the_rows_answer() -> None:
    """Distinct rows with counts (the streamed engines) give the table of the rows (memory)."""
    s, y, g = _case(2, "higher")
    keys, count = np.unique(np.stack([s, y, np.searchsorted(["x", "y", "z"], g)]), axis=1, return_counts=True)
    rows = group_tables(y, s, g, "higher")
    counted = group_tables(
        keys[1].astype(bool), keys[0], np.array(["x", "y", "z"])[keys[2].astype(int)], "higher", count
    )
    a = fairness_column("g", rows, 0.5, "y", 0.95, 50, np.random.default_rng(4), "not_flagged")
    b = fairness_column("g", counted, 0.5, "y", 0.95, 50, np.random.default_rng(4), "not_flagged")
    assert a == b
