"""reportgen.plot (issue 42): each figure on the caller's axes, returned as scikit-learn's Displays
do; the data drawn is the result's; a result loaded from metrics.json draws as the one in memory."""

from __future__ import annotations

import dataclasses
from pathlib import Path

import numpy as np
import pandas as pd
import pytest
from matplotlib.colors import to_hex
from matplotlib.figure import Figure

import reportgen
import reportgen.plot as plot
from reportgen.history import headline
from reportgen.report import figures
from reportgen.report.stored_curves import for_json
from reportgen.results_io import load_result

FIXTURES = Path(__file__).resolve().parents[1] / "snapshots" / "fixtures"


@pytest.fixture(scope="module")
def memory() -> reportgen.ComparisonResult:
    """Three binary models compared in memory (no files), a few resamples."""
    rng = np.random.default_rng(3)
    n = 600
    y = rng.random(n) < 0.2
    df = pd.DataFrame(
        {
            "y": y.astype(int),
            "strong": np.clip(0.2 + 0.3 * y + rng.normal(0, 0.15, n), 0.001, 0.999),
            "weak": np.clip(0.2 + 0.1 * y + rng.normal(0, 0.15, n), 0.001, 0.999),
            "noise": rng.random(n),
        }
    )
    return reportgen.compare_frames(
        df,
        label="y",
        scores=["strong", "weak", "noise"],
        prevalences=[0.1, 0.2, 0.3],
        bootstrap={"resamples": 20, "seed": 1},
        now="2026-01-01T00:00:00Z",
    )


@pytest.fixture(scope="module")
def loaded(memory, tmp_path_factory) -> reportgen.ComparisonResult:
    """``memory`` written as a report's metrics.json (curves simplified as drawn) and read back."""
    paths = reportgen.write_report(memory, tmp_path_factory.mktemp("plot") / "out", formats=("json",))
    return reportgen.load_result(paths["json"])


@pytest.fixture(scope="module")
def multiclass() -> reportgen.ComparisonResult:
    return load_result(FIXTURES / "multiclass.metrics.json")


def _with_runs(result, runs: int):
    """``result`` with a trend of ``runs`` recorded runs (this run's numbers, shifted per run)."""
    points = []
    for i in range(runs):
        for p in headline(result):
            value = None if p.value is None else p.value - 0.01 * (runs - 1 - i)
            ci = None if p.ci is None else [c - 0.01 * (runs - 1 - i) for c in p.ci]
            points.append(
                dataclasses.replace(p, run_id=f"run{i}", created=f"2026-01-0{i + 1}T00:00:00Z", value=value, ci=ci)
            )
    return dataclasses.replace(result, trend=points)


BINARY = {
    "roc": {},
    "precision_recall": {},
    "gains": {},
    "cost": {},
    "threshold_metric": {"metric": "mcc"},
    "ks": {"model": "weak"},
    "calibration": {},
    "score_distribution": {"model": "noise"},
    "prevalence_thresholds": {"model": "strong"},
    "forest": {},
}


@pytest.mark.parametrize("name", list(BINARY))
def test_each_function_draws_on_the_axes_it_is_given_and_returns_them(memory, name):
    fig = Figure()
    ax = fig.add_subplot()
    assert getattr(plot, name)(memory, ax=ax, **BINARY[name]) is ax
    assert fig.axes == [ax] and ax.has_data()


@pytest.mark.parametrize("name", list(BINARY))
def test_without_axes_each_function_makes_a_figure_of_its_own_not_a_pyplot_one(memory, name):
    ax = getattr(plot, name)(memory, **BINARY[name])
    assert isinstance(ax.figure, Figure) and ax.figure.canvas.manager is None  # pyplot's figures have a manager


def test_roc_has_one_line_per_model_after_the_chance_diagonal_and_marks_each_operating_point(memory):
    ax = plot.roc(memory, ax=Figure().add_subplot())
    lines = ax.get_lines()
    assert len(lines) == 1 + len(memory.models)
    assert lines[0].get_label().startswith("chance") and list(lines[0].get_xdata()) == [0, 1]
    col = plot.colours(list(memory.models))
    for line, (name, m) in zip(lines[1:], memory.models.items()):
        assert line.get_label() == f"{name}: AUC {m.metrics['roc_auc']:.3f}, Gini {m.metrics['gini']:.3f}"
        np.testing.assert_array_equal(line.get_xdata(), m.curves.roc.x)
        np.testing.assert_array_equal(line.get_ydata(), m.curves.roc.y)
        point = [
            c for c in ax.collections if len(c.get_offsets()) and to_hex(c.get_facecolor()[0]) == to_hex(col[name])
        ]
        assert len(point) == 1
        np.testing.assert_allclose(
            point[0].get_offsets()[0], [m.confusion.fp / m.negatives, m.confusion.tp / m.positives]
        )
    # the operating points' legend entry; the legend is drawn on the axes unless legend=False
    assert "operating point at the decision threshold" in [t.get_text() for t in ax.get_legend().get_texts()]
    assert plot.roc(memory, ax=Figure().add_subplot(), legend=False).get_legend() is None


def test_models_picks_the_models_drawn_and_each_keeps_its_colour_and_line(memory):
    full = {ln.get_label().split(":")[0]: ln for ln in plot.roc(memory).get_lines()[1:]}
    ax = plot.roc(memory, models=["noise"])
    (line,) = ax.get_lines()[1:]
    assert line.get_label().startswith("noise:")
    assert (line.get_color(), line.get_linestyle()) == (full["noise"].get_color(), full["noise"].get_linestyle())
    assert len({(ln.get_color(), ln.get_linestyle()) for ln in full.values()}) == 3
    assert len({ln.get_linestyle() for ln in full.values()}) == 3  # apart in greyscale print too
    with pytest.raises(ValueError, match=r"model 'nope' is not in the result \(models: strong, weak, noise\)"):
        plot.roc(memory, models=["nope"])


def _drawn(ax) -> list:
    """What an axes shows: each line's label and data, each collection's offsets, the texts."""
    return (
        [(ln.get_label(), np.asarray(ln.get_xydata(), dtype=float).tolist()) for ln in ax.get_lines()]
        + [np.asarray(c.get_offsets(), dtype=float).tolist() for c in ax.collections]
        + [ax.get_title(), ax.get_xlabel(), ax.get_ylabel()]
    )


def _same(a: list, b: list, subset: bool = False) -> None:
    """Two :func:`_drawn` lists agree: texts and labels equal, points within metrics.json's
    rounding (6 decimals); ``subset``: each point of a line of ``a`` is one of ``b``'s line."""
    assert len(a) == len(b)
    for x, y in zip(a, b):
        if isinstance(x, tuple):  # a line
            assert x[0] == y[0]
            p, q = (np.nan_to_num(np.asarray(v[1], dtype=float).reshape(-1, 2), nan=-9.0) for v in (x, y))
            if subset:
                assert np.max(np.min(np.abs(p[:, None, :] - q[None, :, :]).max(axis=2), axis=1), initial=0) < 1e-6
            else:
                np.testing.assert_allclose(p, q, rtol=0, atol=1e-6)
        elif isinstance(x, list):  # a collection's offsets
            np.testing.assert_allclose(np.asarray(x, dtype=float), np.asarray(y, dtype=float), rtol=0, atol=1e-6)
        else:
            assert x == y


@pytest.mark.parametrize("name", list(BINARY))
def test_a_result_loaded_from_metrics_json_plots_as_the_one_in_memory(memory, loaded, name):
    """metrics.json holds the curves as the report draws them (simplified, exact points kept, six
    decimals): the loaded result draws what the written one does, and the same labels, texts and
    artists as the in-memory result, every point drawn one of the in-memory curve's."""
    kwargs = BINARY[name]
    fn = getattr(plot, name)
    from_file = _drawn(fn(loaded, **kwargs))
    _same(from_file, _drawn(fn(for_json(memory), **kwargs)))
    _same(from_file, _drawn(fn(memory, **kwargs)), subset=True)


def test_trend_draws_the_primary_metric_of_each_model_across_runs_with_its_intervals(memory):
    result = _with_runs(memory, 3)
    ax = plot.trend(result, ax=Figure().add_subplot())
    assert len(ax.containers) == len(memory.models)  # one errorbar per model
    for bars, (name, m) in zip(ax.containers, memory.models.items()):
        line, _, (vertical,) = bars.lines
        assert bars.get_label() == name
        assert list(line.get_xdata()) == [0, 1, 2]
        np.testing.assert_allclose(
            line.get_ydata(), [m.metrics["gini"] - 0.02, m.metrics["gini"] - 0.01, m.metrics["gini"]]
        )
        segments = vertical.get_segments()
        np.testing.assert_allclose(segments[-1][:, 1], m.ci["gini"])  # this run's interval, last
    assert [t.get_text() for t in ax.get_xticklabels()] == ["2026-01-01", "2026-01-02", "2026-01-03"]
    assert "Gini" in ax.get_ylabel()
    assert figures.trend_figure(result) is not None
    assert figures.trend_figure(_with_runs(memory, 1)) is None  # one run: the tables say it all
    with pytest.raises(ValueError, match="no trend"):
        plot.trend(memory)


def test_multiclass_class_curves_one_line_per_model_with_class_scores(multiclass):
    drawn = [n for n, m in multiclass.models.items() if m.multiclass_curves is not None]
    ax = plot.class_roc(multiclass, "mid", ax=Figure().add_subplot())
    assert [ln.get_label().split(" ")[0] for ln in ax.get_lines()[1:]] == drawn
    assert ax.get_title() == "mid vs rest"
    micro = plot.class_roc(multiclass)
    assert micro.get_title().startswith("micro-average") and len(micro.get_lines()) == 1 + len(drawn)
    pr = plot.class_precision_recall(multiclass, "high")
    assert [ln.get_label() for ln in pr.get_lines()] == drawn
    with pytest.raises(ValueError, match="class 'x' is not in the result"):
        plot.class_roc(multiclass, "x")
    assert plot.forest(multiclass, ax=Figure().add_subplot()).get_yticklabels()


def test_binary_figures_refuse_a_multiclass_result_in_a_sentence(multiclass):
    with pytest.raises(ValueError, match="binary result"):
        plot.roc(multiclass)


@pytest.fixture(scope="module")
def demo(demo_run):
    return reportgen.load_result(demo_run.out / "metrics.json")


CREDIT = ("credit_calibration", "cap", "score_stability", "auc_over_time")


@pytest.mark.parametrize("name", CREDIT)
def test_the_credit_figures_draw_on_the_axes_given(demo, name):
    fig = Figure()
    ax = fig.add_subplot()
    assert getattr(plot, name)(demo, "challenger", ax=ax) is ax and ax.has_data()
    assert len(fig.axes) == (2 if name == "auc_over_time" else 1)  # the default rate's twin axis


def test_the_credit_figures_are_the_reports_panels(demo):
    """The report's credit figure draws the same panels the public functions do."""
    from reportgen.report.figures import credit_figure

    col = plot.colours(list(demo.models))["challenger"]
    report = credit_figure(demo.credit.models["challenger"], col)
    for ax, name in zip(report.axes, CREDIT):
        mine = getattr(plot, name)(demo, "challenger")
        assert _drawn(mine) == _drawn(ax)
    with pytest.raises(ValueError, match=r"model 'x' is not in the credit validation \(models: champion"):
        plot.cap(demo, "x")


def test_writing_metrics_json_alone_never_imports_matplotlib(tmp_path):
    """matplotlib is a heavy import, and only reportgen.plot makes it: a JSON-only report (the
    command line's ``--format json``) loaded it through the credit view's panel list."""
    import subprocess
    import sys

    code = (
        "import sys, reportgen\n"
        f"r = reportgen.load_result({str(FIXTURES / 'binary.metrics.json')!r})\n"
        f"reportgen.write_report(r, {str(tmp_path / 'out')!r}, formats=('json',))\n"
        "import reportgen.report.render, reportgen.report.views, reportgen.report.credit_figures\n"
        "print(sorted(m for m in ('matplotlib', 'reportgen.plot') if m in sys.modules))"
    )
    done = subprocess.run(
        [sys.executable, "-c", code],
        capture_output=True,
        text=True,
        check=True,
        cwd=Path(__file__).resolve().parents[2],
    )
    assert done.stdout.strip().splitlines()[-1] == "[]"
    assert (tmp_path / "out" / "metrics.json").is_file()
