"""The report's figures as printed (issue 40, layout): no text under 7 pt at the size the PDF
shows a figure (drawn at print size: never wider than its column), no empty panel."""

from __future__ import annotations

import dataclasses
from pathlib import Path

import numpy as np
import pytest
from matplotlib.text import Text

import reportgen.engine.credit as C
from reportgen.history import headline
from reportgen.plot import MIN_POINTS
from reportgen.report import credit_figures, figures
from reportgen.results_io import load_result

FIXTURES = Path(__file__).resolve().parents[1] / "snapshots" / "fixtures"
#: The figures of the report's two-column grid (printed at most a column wide).
HALF = {"roc", "pr", "gains", "cost", "calibration"}
#: The tallest figure the print stylesheet shows unscaled (200 mm).
MAX_HEIGHT = 200 / 25.4


def _check(fig, width: float, where: str) -> None:
    fig.canvas.draw()  # tick labels exist once drawn
    w, h = fig.get_size_inches()
    assert w <= width + 1e-9 and h <= MAX_HEIGHT, (where, w, h)
    ticks = [t for ax in fig.axes for t in (*ax.get_xticklabels(which="both"), *ax.get_yticklabels(which="both"))]
    texts = [t for t in (*fig.findobj(Text), *ticks) if t.get_visible() and t.get_text().strip()]
    assert len(ticks) > 4 * len(fig.axes), where
    small = [(t.get_text(), t.get_fontsize()) for t in texts if t.get_fontsize() < MIN_POINTS]
    assert not small, (where, small)
    for ax in fig.axes:
        assert ax.get_visible() and ax.has_data(), (where, ax.get_title())  # no empty panel


def _with_runs(result, runs: int):
    points = [
        dataclasses.replace(p, run_id=f"r{i}", created=f"2026-01-0{i + 1}T00:00:00Z")
        for i in range(runs)
        for p in headline(result)
    ]
    return dataclasses.replace(result, trend=points)


@pytest.mark.parametrize("task", ["binary", "multiclass"])
def test_every_figure_prints_at_its_drawn_size_with_text_of_7_points_and_no_empty_panel(task):
    result = _with_runs(load_result(FIXTURES / f"{task}.metrics.json"), 3)
    table = {**(figures.FIGURES if task == "binary" else figures.MULTICLASS_FIGURES), "trend": figures.trend_figure}
    drawn = 0
    for key, fn in table.items():
        out = fn(result)
        for fig in out if isinstance(out, list) else [out]:
            if fig is not None:
                _check(fig, figures.HALF_WIDTH if key in HALF else figures.FULL_WIDTH, key)
                drawn += 1
    assert drawn >= (10 if task == "binary" else 4)


@pytest.mark.parametrize("n", [1, 2, 3, 4, 5, 7, 9])
def test_panels_fill_their_rows_and_centre_a_short_last_one(n):
    fig = figures.new_figure(figures.FULL_WIDTH, 6)
    axes = figures.panels(fig, n)
    assert len(axes) == len(fig.axes) == n
    fig.canvas.draw()
    boxes = [ax.get_position() for ax in axes]
    rows = sorted({round(b.y0, 3) for b in boxes}, reverse=True)
    assert len(rows) == figures.panel_rows(n)
    for r in rows:  # each row centred on the figure
        mine = [b for b in boxes if round(b.y0, 3) == r]
        middle = (min(b.x0 for b in mine) + max(b.x1 for b in mine)) / 2
        assert abs(middle - np.mean([b.x0 + b.x1 for b in boxes if round(b.y0, 3) == rows[0]]) / 2) < 0.03, (n, r)
    if n == 4:
        assert len(rows) == 2  # two by two, not three and one


def _credit_model(reference: bool):
    rng = np.random.default_rng(5)
    pd_ = np.exp(rng.normal(np.log(0.05), 0.8, 4_000)).clip(1e-4, 0.6)
    y = rng.random(pd_.shape[0]) < pd_
    dates = (np.datetime64("2024-01-01") + rng.integers(0, 90, pd_.shape[0])).astype("datetime64[D]")
    cur = C.CreditSample(y=y, score=pd_, pd=pd_, dates=dates)
    return C.credit_model(
        "m", cur, cur if reference else None, "higher", C.Grading("quantiles", quantiles=8), C.CreditSettings()
    )


@pytest.mark.parametrize("reference", [False, True])
def test_the_credit_figure_prints_at_its_drawn_size_two_panels_a_row(reference):
    m = _credit_model(reference)
    keys = credit_figures.panel_keys(m)
    assert len(keys) == (4 if reference else 3)
    fig = figures.credit_figure(m, "#0072B2")
    _check(fig, figures.FULL_WIDTH, "credit")
    main = [ax for ax in fig.axes if ax.get_title()]  # the AUC panel's twin (default rate) has none
    assert len(main) == len(keys)
    assert len({round(ax.get_position().y0, 3) for ax in main}) == 2  # two rows, not three across
