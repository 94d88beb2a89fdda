"""The demo report reads unambiguously:
the credit section's units, levels and names, the figures' labels, the captions that say what is
left out. Each test is named after what the report showed before the fix.
"""

from __future__ import annotations

import itertools
import re

import numpy as np
import pytest

from reportgen.report.figures import credit_figure
from reportgen.report.render import Theme, build_view
from reportgen.report.views.curves import calibration_caption
from reportgen.results_io import load_result


@pytest.fixture(scope="module")
def demo(demo_run):
    return load_result(demo_run.out / "metrics.json")


@pytest.fixture(scope="module")
def html(demo_run) -> str:
    return (demo_run.out / "report.html").read_text(encoding="utf-8")


def _credit(html: str) -> str:
    return html[html.index('<section id="credit">') : html.index("</section>", html.index('<section id="credit">'))]


def test_the_jeffreys_interval_is_in_percent_like_the_default_rate_beside_it(html, demo):
    section = _credit(html)
    g = demo.credit.models["champion"].grades[0]
    lo, hi = g.dr_interval
    assert f"[{lo * 100:.2f}\u00a0%, {hi * 100:.2f}\u00a0%]" in section
    assert f"[{lo:.4f}, {hi:.4f}]" not in section
    assert "<th>Jeffreys 95\u00a0% interval</th>" in section


def test_the_difference_of_default_rate_and_mean_pd_is_in_percentage_points(html, demo):
    c = demo.credit.models["champion"].calibration
    assert f"(difference {c.in_the_large * 100:+.2f} percentage points, observed / expected" in _credit(html)


def test_per_period_and_segment_intervals_state_their_level_and_method(html):
    section = _credit(html)
    assert "Performance per month (AUC and Gini with 95\u00a0% DeLong intervals)" in section
    assert "Performance per product (AUC and Gini with 95\u00a0% DeLong intervals)" in section
    assert "<th>CI</th>" not in section and section.count("<th>95\u00a0% CI</th>") >= 4
    assert "Wald interval" in section  # the calibration slope's and intercept's


def test_the_accuracy_ratio_is_tied_to_the_gini_of_the_summary(html, demo):
    ar = demo.credit.models["champion"].accuracy_ratio
    assert ar == pytest.approx(demo.models["champion"].metrics["gini"])
    assert f"Accuracy ratio (AR, from the CAP curve; equal to the Gini of the summary) {ar:.3f}, 95" in _credit(html)


def test_grade_labels_do_not_wrap_inside_a_number(html):
    # "12 % – 20 %" printed as "12 % – 20" over "%" in the PDF's narrow grade column
    assert '<td class="grade">12 % – 20 %</td>' in _credit(html).replace("\u00a0", " ")
    css = html[html.index("<style>") : html.index("</style>")]
    assert re.search(r"td\.grade\s*\{\s*white-space:\s*nowrap;", css)


def test_initial_auc_source_reads_as_the_config_not_a_bare_key(html):
    assert "from the config (models[].initial_auc)" in _credit(html)


def test_approval_counts_and_differences_read_like_the_tables(html):
    comparison = html[html.index('<section id="comparison">') : html.index('<section id="metrics">')]
    assert not re.search(r"\d,\d{3}", comparison)  # no "5,036" beside the tables' "5 036"
    assert "percentage points" in comparison and " points," not in comparison.replace("percentage points,", "")
    assert not re.search(r"CI -\d", comparison)


def test_the_reliability_diagram_names_its_bins_and_the_models_drawn_from_their_pd(demo):
    assert calibration_caption(demo) == (
        "Reliability diagram on 10 equal-width bins: marker area is proportional to the rows in the bin (counts below); hollow markers "
        "are bins of fewer than 5 rows, left out of the line. Drawn from the PD column (scores are not "
        "probabilities): champion."
    )


def test_the_metrics_table_states_how_its_intervals_were_made(html):
    metrics = html[
        html.index('<section id="metrics">') : html.index("</section>", html.index('<section id="metrics">'))
    ]
    assert "confidence interval (DeLong for AUC and Gini, bootstrap for the rest)" in metrics
    assert "hover" not in metrics  # the PDF cannot hover; the reason is printed under the value


def test_the_credit_figure_titles_print_the_psi_as_the_table_does(demo):
    m = demo.credit.models["champion"]
    fig = credit_figure(m, "#0072B2")
    titles = [ax.get_title() for ax in fig.axes]
    assert f"Score distributions (PSI {m.stability.psi.statistic:.4f})" in titles  # 0.0025, not 0.002


def test_the_trend_panel_has_no_legend_over_its_lines_and_its_rate_axis_starts_at_zero(demo):
    m = demo.credit.models["challenger"]
    fig = credit_figure(m, "#E69F00")
    trend = next(ax for ax in fig.axes if ax.get_title().startswith("Over time"))
    assert trend.get_legend() is None  # the legend hid the default rate's last point
    rate = next(ax for ax in fig.axes if ax is not trend and ax.bbox.bounds == trend.bbox.bounds)
    assert rate.get_ylim()[0] == 0.0  # 9.90 %–10.00 % drew a 0.1-point wobble as a collapse
    assert "default rate" in rate.get_ylabel() and "AUC" in trend.get_ylabel()


def test_calibration_by_grade_labels_rates_in_percent(demo):
    m = demo.credit.models["champion"]
    fig = credit_figure(m, "#0072B2")
    ax = next(ax for ax in fig.axes if ax.get_title() == "Calibration by grade")
    fig.canvas.draw()
    labels = [t.get_text() for t in ax.get_yticklabels() if t.get_text()]
    assert labels and all(t.endswith(" %") for t in labels), labels  # not 10⁻¹


def _comparison(html: str) -> str:
    return html[html.index('<section id="comparison">') : html.index('<section id="metrics">')]


def test_a_difference_whose_interval_covers_zero_is_not_marked_plainly_worse(html, demo):
    # naive's accuracy: Δ −0.002, 95 % CI [−0.015, 0.009] was marked "worse" like a finding
    c = next(c for c in demo.comparisons if c.model == "naive")
    lo, hi = c.ci["accuracy"]
    assert lo < 0 < hi
    naive = _comparison(html).split("naive vs champion", 1)[1]
    row = re.search(r"<tr class=\"\"><td>Accuracy</td>.*?</tr>", naive).group(0)
    assert '<span class="mark ns">worse,</span> <span class="mark ns">not significant</span>' in row
    gini = re.search(r"<tr class=\"primary\"><td>Gini.*?</tr>", naive).group(0)
    assert '<span class="mark worse">worse</span>' in gini  # clear of 0: the direction alone


def test_every_interval_in_the_comparison_and_ranking_states_its_level(html):
    comparison = _comparison(html)
    assert "; 95\u00a0% CI [" in comparison and "; CI [" not in comparison  # DeLong's ΔAUC
    assert ", unadjusted." in comparison  # two challengers: the DeLong intervals are not simultaneous
    summary = html[html.index('<section id="summary">') : html.index('<section id="comparison">')]
    assert "<th>95\u00a0% CI</th>" in summary and "<th>CI</th>" not in summary


def test_the_segment_column_is_headed_like_the_period_column(html):
    section = _credit(html)
    assert "<thead><tr><th>Month</th>" in section and "<thead><tr><th>Product</th>" in section


@pytest.mark.slow  # the multiclass render, shared with the slow multiclass modules (tests/renders.py)
def test_multiclass_curves_name_the_models_they_leave_out(multiclass_run):
    # the curves section's figures only (the class curves' captions): the others take as long again
    view = build_view(load_result(multiclass_run / "metrics.json"), Theme(sections=("curves",)))
    captions = [f.caption for f in view.curves.class_figures]
    assert captions and all(c.endswith("Not drawn (predicted classes only, no class scores): rules.") for c in captions)


def test_the_methods_every_comparison_shares_are_printed_once(html):
    comparison = _comparison(html)
    # they were repeated under each challenger, word for word
    assert comparison.count("Multiplicity: the 2 verdicts of this run form one family") == 1
    assert comparison.count("Intervals of differences of threshold metrics") == 1
    shared = comparison.index("How every comparison above was made")
    assert comparison.index("Multiplicity: the 2 verdicts") > shared > comparison.index("naive vs champion")
    # each comparison keeps its own sentences
    assert comparison.count("McNemar&#39;s test on rows:") == 2


def test_the_pdf_lists_its_sections_with_the_pages_they_start_on(demo_pdf):
    # the HTML had a contents list, the PDF none; now page 1 lists each section and its page
    from pdfminer.high_level import extract_text

    pdf = demo_pdf.out / "report.pdf"
    first = extract_text(pdf, page_numbers=[0])
    # the summary starts on page 1; with every red and amber finding listed it may run onto page 2
    assert "Contents" in first and "Summary" in first
    # the findings table (every red and amber finding with its reason) follows on page 1 or 2
    assert "Why it is flagged" in " ".join((first + extract_text(pdf, page_numbers=[1])).split())
    # each entry whole: a word broken at the line's end without a hyphen read "Ap pendix"
    toc = re.search(r'<nav class="toc".*?</nav>', (demo_pdf.out / "report.html").read_text(encoding="utf-8"), re.S)
    titles = re.findall(r'<a href="#[^"]+">([^<]+)</a>', toc.group(0))
    assert titles and all(t in " ".join(first.split()) for t in titles)
    pages = {title: int(n) for title, n in re.findall(r"(Credit validation|Glossary|Metrics)\s(\d+)", first)}
    assert set(pages) == {"Credit validation", "Glossary", "Metrics"}
    assert "Traffic lights:" in extract_text(pdf, page_numbers=[pages["Credit validation"] - 1])
    assert "Counts are" in extract_text(pdf, page_numbers=[pages["Glossary"] - 1])  # the glossary's first words


@pytest.mark.slow
def test_credit_tables_and_headings_are_not_split_over_pages(demo_pdf, html):
    # before: "Performance per month", its header and one month at a page's foot, two months over
    # the page; the naive model's heading and verdict at a foot, its grades on the next page
    from pdfminer.high_level import extract_text
    from pypdf import PdfReader

    pdf = demo_pdf.out / "report.pdf"
    first_page = extract_text(pdf, page_numbers=[0])
    n = int(re.search(r"page 1 of (\d+)", first_page).group(1))
    assert len(PdfReader(pdf).pages) == n
    # from the credit section's first page (the contents on page 1) to the end, in one pass, a form
    # feed after each page: the pages before it (half the report) hold neither kind of table
    start = int(re.search(r"Credit validation\s(\d+)", first_page).group(1)) - 1
    pages = extract_text(pdf, page_numbers=range(start, n)).split("\f")
    assert pages[n - start :] == [""]
    pages = pages[: n - start]
    credit = [p for p in pages if "Grades, lowest PD first" in p or "Performance per month" in p]
    assert credit
    # from the credit section on (the summary's findings table names each model and its light too)
    first = next(i for i, p in enumerate(pages) if "Grades, lowest PD first" in p or "Performance per month" in p)
    for page in pages[first:]:
        if "Performance per month" in page:
            block = page[page.index("Performance per month") :]
            assert all(m in block for m in ("2024-07", "2024-08", "2024-09")), block[:300]
        for name in ("champion", "challenger", "naive"):
            if re.search(rf"^{name}\s*(GREEN|AMBER|RED)\s*$", page, re.M):
                assert "Grades, lowest PD first" in page, name
    section = _credit(html)
    assert section.count('<div class="keep">') >= 3
    css = html[html.index("<style>") : html.index("</style>")]
    assert re.search(
        r"table\.credit-grades, table\.credit-tests, table\.credit-groups, table\.credit-migration "
        r"\{ break-inside: avoid; \}",
        css,
    )


def test_iso_f1_labels_stand_clear_of_the_curves_ends(demo):
    # at the right edge every PR curve ends near the prevalence, where "F1=0.2" was drawn under them
    from reportgen.report import figures

    fig = figures.pr_figure(demo)
    labels = {t.get_text(): t.xy for t in fig.axes[0].texts}
    assert set(labels) == {"0.2", "0.4", "0.6", "F1=0.8"}
    xs = sorted(x for x, _ in labels.values())
    assert all(b - a > 0.1 for a, b in itertools.pairwise(xs))  # side by side, apart
    for text, (x, y) in labels.items():
        assert y > 0.9 and x < 0.9, (text, x, y)
        for m in demo.models.values():  # every curve runs below the label there
            c = m.curves.pr
            i = min(np.searchsorted(c.x, x), len(c.y) - 1)
            assert c.y[i] < y - 0.05, (text, m.name)


def test_the_warnings_box_is_not_split_over_pages(html):
    # eight models, four credit warnings: the box began at page 2's foot and ended on page 3
    css = html[html.index("<style>") : html.index("</style>")]
    printed = css[css.index("@media print") :]
    assert re.search(r"\.warnings \{ break-inside: avoid; \}", printed)
