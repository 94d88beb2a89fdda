"""Snapshot of the notebook display (``ComparisonResult._repr_html_``, issue 21) of each task's
frozen fixture result: the verdicts, the ranking and the two key figures, as one fragment.

Normalised like the report's sections: only the inline SVG (matplotlib-version dependent; the
figures are tested in ``tests/unit/test_figures.py``). Accept a change with
``pytest tests/snapshots --update-snapshots`` and review ``html/<task>/notebook.html``.
"""

from __future__ import annotations

import json

import pytest
from snapshot_fixtures import TASKS, fixture_path
from test_report_fragments import HTML, check_snapshot, normalise

import reportgen.report.notebook as notebook
from reportgen.results import ComparisonResult


def _result(task: str) -> ComparisonResult:
    return ComparisonResult.from_json(json.loads(fixture_path(task).read_text(encoding="utf-8")))


@pytest.mark.parametrize("task", TASKS)
def test_repr_html_matches_its_snapshot(task, request):
    result = _result(task)
    html = result._repr_html_()
    assert html == notebook.result_html(result)  # the registered display
    assert html.count("<svg") == len(notebook.KEY_FIGURES[task])
    update = bool(request.config.getoption("--update-snapshots"))
    check_snapshot(HTML / task / "notebook.html", normalise(html), update)


def test_repr_html_escapes_data():
    """The binary fixture's title holds '<' and '&': shown escaped, never as markup."""
    html = _result("binary")._repr_html_()
    assert "Snapshot &lt;binary&gt; &amp; co" in html and "<binary>" not in html
