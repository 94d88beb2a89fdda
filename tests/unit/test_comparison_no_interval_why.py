"""The comparison table says why a Brier or log-loss difference has no interval beside it when a
model's value is its PD column's (issue 45, "readable at 80 dpi"): the demo read "worse, no
interval" with the reason only in the notes a page or two later."""

from __future__ import annotations

import dataclasses
import json
from pathlib import Path

import pytest

from reportgen.report.render import make_environment
from reportgen.report.theme import Theme
from reportgen.report.views import report_view
from reportgen.report.views.common import Models
from reportgen.report.views.comparison import _delta_rows
from reportgen.results import ComparisonResult

FIXTURE = Path(__file__).parents[1] / "snapshots" / "fixtures" / "binary.metrics.json"


@pytest.fixture(scope="module")
def result() -> ComparisonResult:
    return ComparisonResult.from_json(json.loads(FIXTURE.read_text()))


def _with_pd_brier(result: ComparisonResult, source: str) -> ComparisonResult:
    """The fixture as the pipeline leaves a scorecard baseline with a PD column: its Brier score
    is the PD's (``metric_sources``), the difference has no interval."""
    base = result.run.baseline
    models = dict(result.models)
    models[base] = dataclasses.replace(
        models[base],
        metrics={**models[base].metrics, "brier": 0.085},
        metric_sources={**models[base].metric_sources, "brier": source},
    )
    c = result.comparisons[0]
    c = dataclasses.replace(c, delta={**c.delta, "brier": 0.005}, ci={k: v for k, v in c.ci.items() if k != "brier"})
    return dataclasses.replace(result, models=models, comparisons=[c])


def _rows(result: ComparisonResult) -> dict[str, object]:
    return {r.key: r for r in _delta_rows(result, result.comparisons[0], Models.of(result, ["#000000"] * 4))}


def test_a_pd_column_difference_says_why_it_has_no_interval(result):
    base = result.run.baseline
    rows = _rows(_with_pd_brier(result, "pd_column"))
    brier = rows["brier"]
    assert brier.ns and brier.ns_note == "no interval" and brier.ci == ""
    assert brier.ci_note == f"{base}: from the PD column, not paired with these scores"
    # a difference with its interval has nothing to explain
    assert rows["gini"].ci and rows["gini"].ci_note == ""


def test_a_missing_interval_without_a_pd_column_is_left_plain(result):
    brier = _rows(_with_pd_brier(result, "scores"))["brier"]
    assert brier.ns_note == "no interval" and brier.ci_note == ""


def test_the_brief_says_why_beside_its_empty_interval(result):
    """The sign-off brief's key table carries the same reason as the comparison table: a committee
    reading only the brief of a Brier-led comparison saw "no interval" with no why."""
    led_by_brier = _with_pd_brier(result, "pd_column")
    led_by_brier = dataclasses.replace(led_by_brier, run=dataclasses.replace(led_by_brier.run, primary_metric="brier"))
    view = report_view(led_by_brier, Theme(layout="brief"), lambda sections: {})
    page = make_environment().from_string('{% import "macros.html" as ui %}{% include "sections/brief.html" %}')
    html = page.render(view=view)
    assert f'<td class="ci why">{result.run.baseline}: from the PD column, not paired with these scores</td>' in html
