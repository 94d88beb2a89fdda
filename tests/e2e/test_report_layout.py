"""The report's layout and verdicts with many models or long names, and the notebook display: each
test is named after what the report or the notebook display showed before the fix.
"""

from __future__ import annotations

import io
import re
import sys
from pathlib import Path

import numpy as np
import pandas as pd
import pytest

import reportgen
from reportgen.report.render import Theme, render_html
from reportgen.report.views import report_view
from reportgen.report.views.metrics import PORTRAIT_CHARS, column_chars, column_groups
from reportgen.report.wording import ranking_note, verdict_of
from reportgen.results import Decision

ROOT = Path(__file__).resolve().parents[2]
sys.path.insert(0, str(Path(__file__).resolve().parent))
from test_report_stress import TWELVE, _compare  # noqa: E402

NOW = "2026-01-01T00:00:00Z"


def build_view(result: reportgen.ComparisonResult, theme: Theme | None = None):
    """The report's view without its figures (``render.build_view`` draws every figure, seconds for
    twelve models): these tests read tables, sentences and sections that hold no figure."""
    return report_view(result, theme or Theme(), lambda sections: {})


# ---- the metrics table of a dozen models -------------------------------------------------------


@pytest.fixture(scope="module")
def twelve():
    return _compare(TWELVE, costs={"fn": 5, "fp": 1})


@pytest.fixture(scope="module")
def twelve_metrics_pdf_text(twelve) -> str:
    """The text of the PDF of the twelve-model report's metrics section (pypdf), page by page."""
    from pypdf import PdfReader
    from weasyprint import HTML

    theme = Theme(sections=("metrics",))
    html = render_html(twelve, theme=theme, for_pdf=True, view=build_view(twelve, theme))
    pdf = HTML(string=html).write_pdf()
    return "\n".join(page.extract_text() for page in PdfReader(io.BytesIO(pdf)).pages)


@pytest.mark.slow
@pytest.mark.pdf
def test_twelve_model_names_print_whole_in_the_metrics_table_not_broken_mid_word(twelve_metrics_pdf_text):
    # twelve columns of one landscape table were narrower than "challenger_": the header printed
    # "challenge" over "r_01"; now the columns are split into two tables of six, each name on a line
    for name in TWELVE:
        assert name in twelve_metrics_pdf_text, name
    assert "challenge\n" not in twelve_metrics_pdf_text


def test_twelve_models_split_into_two_tables_of_six_each_saying_where_the_best_is(twelve):
    theme = Theme(sections=("metrics",))
    view = build_view(twelve, theme)
    assert [g.cols for g in view.metrics.groups] == [tuple(range(6)), tuple(range(6, 12))]
    assert view.metrics.groups[1].caption.startswith("Models 7–12 of 12; the highlighted value is the best of all 12")
    html = render_html(twelve, theme=theme, view=view)
    section = html[html.index('<section id="metrics"') :]
    section = section[: section.index("</section>")]
    assert section.count('<table class="metrics">') == 2
    assert section.count("<caption>Models ") == 2
    # every model's column appears once, each row's cells in the model's order
    heads = re.findall(r'<th class="num name" title="([^"]+)"', section)
    assert heads == TWELVE


@pytest.mark.parametrize(
    "names", [["champion", "challenger", "naive"], ["scorecard", "pd_model"], ["a", "b", "c", "d"]]
)
def test_the_demo_sized_metrics_table_stays_one_table_without_a_caption(names):
    assert column_groups(names) == [list(range(len(names)))]
    result = _compare(names)
    view = build_view(result)
    assert [(g.cols, g.caption) for g in view.metrics.groups] == [(tuple(range(len(names))), "")]
    assert view.metrics.wide is False


def test_a_long_piece_of_a_name_counts_not_the_whole_name():
    # a name breaks after _ . / : - (the wbr filter) and at spaces: only its longest piece must fit
    assert column_chars(["challenger_01"]) == column_chars(["challenger_"])
    assert column_chars(["a"]) == column_chars(["0.9475"])  # a column is never narrower than a value
    assert column_chars(["CHALLENGER_MODEL"])[0] > column_chars(["challenger_model"])[0]  # capitals are wider


def test_four_models_with_long_unbreakable_names_print_landscape_instead_of_breaking_them():
    names = ["gradientboostedtree", "logisticregression1", "randomforestmodel22", "neuralnetworkmodel3"]
    assert sum(column_chars(names)) > PORTRAIT_CHARS
    assert build_view(_compare(names)).metrics.wide is True


# ---- verdicts that overstate ------------------------------------------------------------------------


def _decision(**kw) -> Decision:
    base = dict(
        metric="f1",
        better="higher",
        delta=-0.0106,
        method="no test",
        p_value=None,
        p_value_is_bound=False,
        p_value_adjusted=None,
        p_value_adjusted_is_bound=False,
        adjustment="holm",
        family_size=0,
        alpha=0.05,
        significant=None,
        direction="inconclusive",
        ci=None,
        ci_level=0.95,
        ci_simultaneous=None,
        ci_simultaneous_level=0.95,
        ci_method=None,
    )
    return Decision(**{**base, **kw})


def test_an_untested_difference_is_said_to_be_not_established():
    # "chall's F1 is 0.011 lower than champ's, p n/a (no test)" ended without a conclusion (and a
    # full stop), so it read as a finding
    text = verdict_of("chall", "champ", _decision())
    assert text == (
        "chall's F1 is 0.011 lower than champ's on these rows; the difference was not tested "
        "(no p-value), so it is not established."
    )
    assert "p n/a" not in text


def test_a_tested_verdict_keeps_its_sentence():
    text = verdict_of(
        "chall",
        "champ",
        _decision(
            method="bootstrap", p_value=0.3, p_value_adjusted=0.3, family_size=1, significant=False, ci=[-0.03, 0.01]
        ),
    )
    assert (
        text
        == "chall's F1 is 0.011 lower than champ's, 95 % CI −0.030 to 0.010, p = 0.300 (paired bootstrap) — not significant."
    )


def _close_models() -> reportgen.ComparisonResult:
    rng = np.random.default_rng(5)
    n = 800
    y = (rng.random(n) < 0.2).astype(int)
    z = rng.normal(size=n) + 0.9 * y
    noise = rng.normal(scale=0.3, size=n)
    df = pd.DataFrame({"y": y, "a": 1 / (1 + np.exp(-z + 1.5)), "b": 1 / (1 + np.exp(-(z + noise) + 1.5))})
    return reportgen.compare_frames(
        df,
        label="y",
        positive=1,
        threshold=0.2,
        scores={"champ": "a", "chall": "b"},
        bootstrap={"resamples": 0, "seed": 1},
        now=NOW,
    )


def test_a_ranking_of_models_the_tests_do_not_separate_says_so():
    # the summary ranked the models 1, 2, 3 by their point estimates under verdicts that said "not
    # significant": a reader took the order for a result
    result = _close_models()
    assert result.comparisons[0].decision.direction == "inconclusive"
    note = ranking_note(result)
    assert note == (
        "The order is that of the point estimates: chall's difference in Gini from champ is not "
        "significant (see the verdict above), so the ranking does not show chall to be better or "
        "worse than champ."
    )
    theme = Theme(sections=("summary",))
    html = render_html(result, theme=theme, view=build_view(result, theme))
    assert f'<p class="small ranking-note">{note.replace(chr(39), "&#39;")}</p>' in html
    assert note.replace("'", "&#39;") in result._repr_html_()


def test_a_ranking_of_significant_differences_has_no_note():
    rng = np.random.default_rng(2)
    y = (rng.random(600) < 0.3).astype(int)
    df = pd.DataFrame({"y": y, "a": rng.random(600), "b": rng.random(600) * 0.5 + 0.5 * y})
    result = reportgen.compare_frames(
        df, label="y", scores={"base": "a", "better_model": "b"}, bootstrap={"resamples": 0, "seed": 1}, now=NOW
    )
    assert result.comparisons[0].decision.direction == "better"
    assert ranking_note(result) == ""


# ---- the notebook display -----------------------------------------------------------------------------


def test_the_notebook_forest_plot_is_shown_full_width_and_rows_with_thousands():
    # the 7-inch forest plot was squeezed into a half-width box beside the ROC (labels at 6 px), and
    # the rows read "6000" where the report writes "6 000"
    rng = np.random.default_rng(1)
    y = (rng.random(2000) < 0.3).astype(int)
    df = pd.DataFrame({"y": y, "a": rng.random(2000) * 0.5 + 0.3 * y, "b": rng.random(2000) * 0.5 + 0.2 * y})
    result = reportgen.compare_frames(
        df, label="y", scores={"a": "a", "b": "b"}, bootstrap={"resamples": 0, "seed": 1}, now=NOW
    )
    html = result._repr_html_()
    figures = re.findall(r"<figure( class=\"wide\")?><svg", html)
    assert figures == ["", ' class="wide"']  # the ROC half width, the forest plot full width
    assert "binary · 2 models · 2\u2009000 rows" in html


# ---- the comparison section's pages ------------------------------------------------------------------


@pytest.mark.slow
def test_a_comparison_flows_on_instead_of_leaving_half_a_page_and_a_lone_sentence(demo_pdf):
    # each comparison was kept whole on a page, but a card is taller than what the forest plot
    # leaves of a page: the demo's page 2 was half empty and its last sentence (McNemar's) stood
    # alone on page 4. Now the card flows; its Δ table and its tests stay whole
    from pypdf import PdfReader

    reader = PdfReader(demo_pdf.out / "report.pdf")
    read: dict[int, str] = {}

    def page(i: int) -> str:  # read as needed: the comparison is on the first pages of ~30
        if i not in read:
            read[i] = " ".join(reader.pages[i].extract_text().split())
        return read[i]

    def page_of(text: str) -> int:
        return next(i for i in range(len(reader.pages)) if text in page(i))

    assert page_of("challenger vs champion") == page_of("Each challenger against champion")
    assert page_of("McNemar's test on rows: challenger alone") == page_of("At champion's approval rate")
    # the Δ table is never split (its last row was left alone under a repeated header)
    # (its last row, the Brier score, is on the page its heading is)
    assert "Brier score" in page(page_of("naive vs champion")).split("naive vs champion", 1)[1]


@pytest.mark.slow
@pytest.mark.pdf
def test_a_delta_mark_with_its_qualifier_stays_in_the_delta_column(demo_pdf):
    # "better, no interval" (the Brier score, champion's from its PD column) and "worse, not
    # significant" were set on one line, wider than the PDF's Δ column: they ran into the interval
    # cell beside them ("better, no intervalPD column, not"). Each mark ends where the Δ column's
    # content does: at the right edge of its heading "Δ" (right-aligned, as the marks are).
    # The Δ tables are the comparison section's: its pages (from the contents on page 1), not all ~30
    import pdfminer  # noqa: F401 - a test dependency: missing, the test fails
    from test_pdf_layout import glyphs

    pdf = demo_pdf.out / "report.pdf"
    contents = "".join(g.text for g in glyphs(pdf, only={0})[0])
    start, end = map(int, re.search(r"Comparisonwiththebaseline(\d+)·[^·\d]+(\d+)", contents).groups())
    found, _ = glyphs(pdf, only=set(range(start - 1, end)))
    marks = 0
    for page in sorted({g.page for g in found}):
        # one entry per character: a ligature's glyph ("fi" of "significant") stands for two
        chars = [g for g in found if g.page == page and not g.in_figure for _ in g.text]
        text = "".join(g.text for g in found if g.page == page and not g.in_figure)
        heading = text.find("Δ95%CIofΔ")  # the Δ column's heading, then the interval column's
        for m in re.finditer(r"(better|worse),(nointerval|notsignificant)", text):
            assert heading != -1, f"page {page + 1}: a Δ mark without the table's heading"
            edge = chars[heading].x1
            right = max(g.x1 for g in chars[m.start() : m.end()])
            assert right <= edge + 0.5, (
                f"page {page + 1}: {m.group(0)!r} ends at {right:.1f}, the Δ column at {edge:.1f}"
            )
            marks += 1
    assert marks >= 2  # the demo's: each challenger's Brier score has no interval (champion's PD column)


@pytest.mark.slow
@pytest.mark.pdf
def test_the_notes_under_a_dozen_models_ranking_are_not_left_alone_on_a_page(twelve):
    # the ranking of twelve (kept whole) ended page 2 and its settings note stood alone on page 3
    from pypdf import PdfReader
    from weasyprint import HTML

    theme = Theme(sections=("summary",))
    html = render_html(twelve, theme=theme, for_pdf=True, view=build_view(twelve, theme))
    pdf = HTML(string=html).write_pdf()
    pages = [" ".join(p.extract_text().split()) for p in PdfReader(io.BytesIO(pdf)).pages]
    ranking = next(i for i, t in enumerate(pages) if "Ranking by Gini" in t)
    assert "Decision rules as in the table of models above" in pages[ranking]
    assert "The order is that of the point estimates: challenger_01's" in pages[ranking]


def test_a_difference_without_an_interval_is_not_marked_plain_better(twelve):
    # with the bootstrap off, KS, F1, … had no interval, yet their Δ was marked "better" like the
    # Gini's, whose DeLong interval excludes 0; the error-reduction column beside it said "no interval"
    theme = Theme(sections=("comparison",))
    view = build_view(twelve, theme)
    rows = {r.key: r for r in view.comparison.comparisons[-1].rows}
    assert rows["ks"].ci == "" and rows["ks"].mark == "better"
    assert rows["ks"].ns and rows["ks"].ns_note == "no interval"
    assert rows["gini"].ci and not rows["gini"].ns  # DeLong: clear of 0, a plain "better"
    html = render_html(twelve, theme=theme, view=view)
    assert '<span class="mark ns">better,</span> <span class="mark ns">no interval</span>' in html


@pytest.mark.slow
@pytest.mark.pdf
def test_a_pair_of_confusion_matrices_stays_level_when_one_threshold_is_long(tmp_path):
    # "at the cost-optimal threshold (positive when score ≥ 0.19131843768564435)" wrapped, the
    # other caption did not, and the right-hand matrix sat a line lower than the left one
    from pdfminer.high_level import extract_pages
    from pdfminer.layout import LTTextContainer
    from weasyprint import HTML

    result = _compare(TWELVE[:3], costs={"fn": 5, "fp": 1})
    theme = Theme(sections=("confusion",))
    view = build_view(result, theme)
    assert all(v.rule.startswith("(positive when score") for m in view.confusion.binary for v in m.views)
    pdf = tmp_path / "c.pdf"
    HTML(string=render_html(result, theme=theme, for_pdf=True, view=view)).write_pdf(pdf)
    totals = []  # the y of each "Total" (a matrix's column header and its last row's label), page by page
    for page in extract_pages(pdf):
        totals += [
            (page.pageid, round(line.y0))
            for box in page
            if isinstance(box, LTTextContainer)
            for line in box
            if line.get_text().strip() == "Total"
        ]
    assert len(totals) >= 12  # two of each matrix, two matrices for each of three models
    by_row: dict[tuple[int, int], int] = {}
    for page, y in totals:
        by_row[(page, y)] = by_row.get((page, y), 0) + 1
    assert all(n % 2 == 0 for n in by_row.values()), by_row  # each Total row level with its pair's
