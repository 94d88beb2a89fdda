"""Snapshot tests of the report's sections, one HTML fragment each, on tiny frozen results.

Each section template (summary, comparison, metrics, thresholds, …) is rendered through the real
Jinja environment (:func:`reportgen.report.render.make_environment`, the sandbox, the filters, the
macros) from the real view model (:func:`reportgen.report.render.build_view`) of a committed
``metrics.json`` (``fixtures/``, see ``snapshot_fixtures.py``), and compared with the committed
``html/<task>/<section>.html``. A change in wording, number formatting, escaping or markup shows
as a unified diff of that one section (great_tables' snapshot style).

Normalised, because they vary without the report changing: only the SVG of the figures, whose
bytes depend on the matplotlib version (figures are tested in ``tests/unit/test_figures.py``). The
fixture pins everything else (its timestamp, versions and paths are frozen in the JSON).

To accept a change: ``pytest tests/snapshots --update-snapshots`` (or
``REPORTGEN_UPDATE_SNAPSHOTS=1``), then review the diff of ``tests/snapshots/html``.
"""

from __future__ import annotations

import difflib
import json
import os
import re
from functools import cache
from pathlib import Path

import pytest
from snapshot_fixtures import TASKS, fixture_path

from reportgen.report.render import build_view, make_environment
from reportgen.report.views import ReportView
from reportgen.results import ComparisonResult

HTML = Path(__file__).resolve().parent / "html"
#: The sections a task's report has (``reportgen.report.views.TASK_SECTIONS``), as snapshotted here.
SECTIONS = {
    "binary": (
        "summary",
        "comparison",
        "metrics",
        "confusion",
        "curves",
        "thresholds",
        "bands",
        "glossary",
        "appendix",
    ),
    "multiclass": (
        "summary",
        "comparison",
        "calibration",
        "metrics",
        "per_class",
        "confusion",
        "curves",
        "glossary",
        "appendix",
    ),
}
SVG = re.compile(r"<svg\b.*?</svg>", re.DOTALL)


def normalise(html: str) -> str:
    """The fragment with every inline SVG figure replaced by a placeholder (matplotlib-dependent)."""
    return SVG.sub("<svg><!-- figure, see tests/test_figures.py --></svg>", html)


def render_section(view: ReportView, section: str) -> str:
    """One section of the report, as ``report.html`` includes it (with the ``ui`` macros)."""
    template = view.section_templates[view.sections.index(section)]
    env = make_environment()
    page = env.from_string('{% import "macros.html" as ui %}{% include template %}')
    return normalise(page.render(view=view, template=template))


@cache
def view_of(task: str) -> ReportView:
    """The view model of the task's frozen result (figures are drawn once per task and session)."""
    data = json.loads(fixture_path(task).read_text(encoding="utf-8"))
    return build_view(ComparisonResult.from_json(data))


def _updating(config) -> bool:
    return bool(config.getoption("--update-snapshots") or os.environ.get("REPORTGEN_UPDATE_SNAPSHOTS"))


def check_snapshot(path: Path, actual: str, update: bool) -> None:
    """Compare ``actual`` with the snapshot at ``path`` (or write it); fail with a unified diff."""
    if update:
        path.parent.mkdir(parents=True, exist_ok=True)
        path.write_text(actual, encoding="utf-8")
        return
    if not path.exists():
        pytest.fail(f"{path}: no snapshot yet; run pytest with --update-snapshots and review it", pytrace=False)
    expected = path.read_text(encoding="utf-8")
    if actual != expected:
        diff = "".join(
            difflib.unified_diff(
                expected.splitlines(keepends=True),
                actual.splitlines(keepends=True),
                fromfile=f"{path} (snapshot)",
                tofile="rendered now",
            )
        )
        pytest.fail(
            f"the rendered section differs from its snapshot (accept with --update-snapshots):\n{diff}", pytrace=False
        )


@pytest.mark.parametrize(("task", "section"), [(t, s) for t in TASKS for s in SECTIONS[t]])
def test_section_html_matches_its_snapshot(task, section, request):
    """Each section renders to exactly its committed HTML (wording, numbers, escaping, markup)."""
    check_snapshot(HTML / task / f"{section}.html", render_section(view_of(task), section), _updating(request.config))


@pytest.mark.parametrize("task", TASKS)
def test_every_section_of_a_report_has_a_snapshot(task):
    """A section added to the report gets a snapshot too (the list above cannot fall behind)."""
    assert list(view_of(task).sections) == list(SECTIONS[task])


def test_a_changed_line_shows_as_a_unified_diff_of_the_section(tmp_path):
    """The failure message is a unified diff naming the changed line, not a wall of HTML."""
    snapshot = tmp_path / "summary.html"
    html = render_section(view_of("binary"), "summary")
    snapshot.write_text(html.replace("<h2>Summary</h2>", "<h2>Résumé</h2>"), encoding="utf-8")
    with pytest.raises(pytest.fail.Exception) as failed:
        check_snapshot(snapshot, html, update=False)
    message = str(failed.value)
    assert "\n-<h2>Résumé</h2>\n+<h2>Summary</h2>\n" in message and "--update-snapshots" in message


def test_the_fixture_title_reaches_the_appendix_escaped():
    """Values reach the HTML escaped (autoescape): the binary fixture's title holds '<' and '&',
    so its snapshots would show a broken escape as a diff (this pins that the fixture does)."""
    assert view_of("binary").title == "Snapshot <binary> & co"
    assert "Snapshot &lt;binary&gt; &amp; co" in render_section(view_of("binary"), "appendix")
