"""The report under inputs real users bring: a dozen models, right-to-left
names, a rating scale of 24 long grade labels. Each test is named after what the report showed
before the fix; the inputs are small (a few hundred rows, no bootstrap) so the file runs fast.
"""

from __future__ import annotations

import html
import re
from pathlib import Path

import numpy as np
import pandas as pd
import pytest
import yaml

import reportgen
import reportgen.report.figures as figures
from reportgen.report.formats import FSI, PDI, isolate, needs_isolation, text_direction, wbr
from reportgen.report.render import Theme, render_html
from reportgen.report.views import report_view

NOW = "2026-01-01T00:00:00Z"


def _html(result: reportgen.ComparisonResult, *sections: str, for_pdf: bool = False) -> str:
    """The report's HTML with only ``sections`` and without figures (drawing every figure costs
    seconds): for tests that read tables, sentences and the stylesheet."""
    theme = Theme(sections=sections)
    return render_html(result, theme=theme, for_pdf=for_pdf, view=report_view(result, theme, lambda sections: {}))


def _tables_view(result: reportgen.ComparisonResult):
    """The report's view without its figures, for tests that read its tables and sentences."""
    return report_view(result, Theme(), lambda sections: {})


def _scores(n_models: int, rows: int = 400, seed: int = 3) -> pd.DataFrame:
    rng = np.random.default_rng(seed)
    y = (rng.random(rows) < 0.25).astype(int)
    frame = {"y": y}
    for i in range(n_models):
        z = rng.normal(size=rows) + (0.3 + 0.1 * i) * (2 * y - 1)
        frame[f"s{i}"] = np.round(1 / (1 + np.exp(-z + 1.2)), 17)
    return pd.DataFrame(frame)


def _compare(names: list[str], **settings) -> reportgen.ComparisonResult:
    data = _scores(len(names))
    return reportgen.compare_frames(
        data,
        label="y",
        positive=1,
        threshold=0.3,
        now=NOW,
        scores={n: f"s{i}" for i, n in enumerate(names)},
        bootstrap={"resamples": 0, "seed": 1},
        **settings,
    )


# ---- twelve models ------------------------------------------------------------------------------

TWELVE = ["baseline"] + [f"challenger_{i:02d}" for i in range(1, 12)]


@pytest.fixture(scope="module")
def twelve():
    return _compare(TWELVE, costs={"fn": 5, "fp": 1})


@pytest.fixture(scope="module")
def twelve_html(twelve) -> str:
    """The title block (its table of models), the summary and the metrics section, and the CSS."""
    return _html(twelve, "summary", "metrics", for_pdf=True)


def test_twelve_models_no_longer_share_eight_colours(twelve_html):
    # the ninth model took the first model's blue, the tenth the second's orange, …
    col = figures.colours(TWELVE)
    assert len(set(col.values())) == 12
    table = twelve_html[twelve_html.index('<table class="models-compared">') :]
    table = table[: table.index("</table>")]
    swatches = re.findall(r'class="swatch" style="background: (#[0-9A-Fa-f]{6})"', table)
    assert len(swatches) == 12 and len(set(swatches)) == 12


@pytest.mark.parametrize("n, palette", [(40, figures.PALETTE), (7, figures.PALETTE[:3])])
def test_models_past_the_palette_differ_by_their_line(n, palette):
    # more models than colours (a theme's three colours, or 40 models): a shared colour used to
    # draw two identical lines, one legend entry indistinguishable from the other
    names = [f"m{i}" for i in range(n)]
    col, dash = figures.colours(names, palette), figures.dashes(names, palette)
    looks = {(col[x], str(dash[x])) for x in names}
    assert len(looks) == min(n, len(palette) * len(figures.DASHES))
    # each model its own line while the line styles last (greyscale print: the line tells them apart)
    assert len({dash[x] for x in names[: len(figures.DASHES)]}) == len(figures.DASHES)


def test_the_roc_legend_tells_apart_models_of_one_colour(twelve):
    fig = figures.roc_figure(twelve, figures.PALETTE[:4])
    lines = [ln for ln in fig.axes[0].get_lines() if ln.get_label().split(":")[0] in TWELVE]
    assert len(lines) == 12
    assert len({(ln.get_color(), ln.get_linestyle()) for ln in lines}) == 12


def test_a_threshold_in_the_ranking_is_short_and_never_wraps(twelve_html):
    # "0.31722801163764" on one line ran over "Cost per row there" beside it; thresholds are now
    # printed to 4 significant digits within the gap to the next distinct score, on one line
    summary = twelve_html[twelve_html.index('<section id="summary">') : twelve_html.index("</section>")]
    assert '<th class="num thr">Recommended threshold</th>' in summary
    cells = re.findall(r'<td class="num thr">([^<]*)</td>', summary)
    assert len(cells) == 12 and all(len(c.strip()) <= 10 for c in cells), cells
    css = twelve_html[twelve_html.index("<style>") : twelve_html.index("</style>")]
    assert re.search(r"td\.num\.thr\s*\{\s*white-space:\s*nowrap;", css)
    assert re.search(r"table\.ranking th\.thr\s*\{\s*width:", css)


def test_the_ranking_is_not_split_with_its_last_rows_alone_on_the_next_page(twelve_html):
    css = twelve_html[twelve_html.index("<style>") : twelve_html.index("</style>")]
    assert re.search(r"table\.ranking\s*\{\s*break-inside:\s*avoid;", css)


# ---- right-to-left names ------------------------------------------------------------------------

HEBREW, ARABIC = "מודל 2", "نموذج 10 (v3.1)"  # short: figures show names, not keys


def test_directions_and_isolation_of_names():
    assert needs_isolation(HEBREW) and needs_isolation(ARABIC) and needs_isolation("a\u202eb")
    assert not needs_isolation("信用评分 3") and not needs_isolation("café 😀") and not needs_isolation("<b>x</b>")
    assert text_direction(ARABIC) == "rtl" and text_direction("v2 " + HEBREW) == "ltr" and text_direction("12") == "ltr"
    assert isolate(HEBREW) == f"{FSI}{HEBREW}{PDI}" and isolate("plain") == "plain"
    # the name is data: escaped inside the isolate, never markup
    assert str(wbr("<מודל & 'x'>")) == '<bdi dir="rtl">&lt;מודל &amp; &#39;x&#39;&gt;</bdi>'
    assert str(wbr("<b>מודל</b>")) == '<bdi dir="ltr">&lt;b&gt;מודל&lt;/b&gt;</bdi>'  # its first letter is Latin
    assert str(wbr("plain_name")) == "plain_name"
    # long: no <wbr>, which WeasyPrint reordered as separate boxes ("(v3.<wbr>1)" printed "(1.v3)")
    assert str(wbr("نموذج_الائتمان 2 (v3.1)")) == '<bdi dir="rtl">نموذج_الائتمان 2 (v3.1)</bdi>'


@pytest.fixture(scope="module")
def rtl_html() -> str:
    # the curves for a figure's legend, the appendix for the config as run
    return render_html(
        _compare(["base", HEBREW, ARABIC, "model (v2)"]),
        for_pdf=True,
        theme=Theme(sections=("summary", "curves", "appendix")),
    )


@pytest.mark.slow
def test_a_right_to_left_name_in_a_table_is_isolated_with_its_direction(rtl_html):
    # WeasyPrint reads a <bdi> left to right unless told: "نموذج 10 (v3.1)" came out
    # with "(v3.1)" on the wrong side, and an unisolated name pulled the numbers beside it in
    table = rtl_html[rtl_html.index('<table class="models-compared">') :]
    table = table[: table.index("</table>")]
    assert f'<bdi dir="rtl">{HEBREW}</bdi>' in table
    assert f'<bdi dir="rtl">{ARABIC}</bdi>' in table
    latin = next(row for row in table.split("<tr>") if "model (v2)" in row)
    assert "<bdi" not in latin  # a name without right-to-left letters prints as it is
    css = rtl_html[rtl_html.index("<style>") : rtl_html.index("</style>")]
    assert re.search(r"bdi\s*\{\s*unicode-bidi:\s*isolate;", css)


@pytest.mark.slow
def test_a_right_to_left_name_in_a_sentence_is_isolated(rtl_html):
    summary = rtl_html[rtl_html.index('<section id="summary">') : rtl_html.index("</section>")]
    verdicts = [html.unescape(v) for v in re.findall(r'<p class="verdict">(.*?)</p>', summary, re.S)]
    assert any(f"{FSI}{HEBREW}{PDI}'s Gini is" in v for v in verdicts), verdicts
    assert not any(re.search(f"(?<!{FSI}){re.escape(HEBREW)}", v) for v in verdicts)


@pytest.mark.slow
def test_the_config_as_run_keeps_the_names_byte_for_byte(rtl_html):
    config = rtl_html[rtl_html.index('<pre class="config">') :]
    config = config[: config.index("</pre>")]
    assert HEBREW in config and FSI not in config and PDI not in config


@pytest.mark.slow
def test_a_right_to_left_name_in_a_figure_legend_keeps_its_number_after_it(rtl_html):
    # the ROC legend "מודל 2: AUC 0.66" printed the AUC's neighbours reordered around the name
    labels = re.findall(r"<text\b[^>]*>([^<]*)</text>", rtl_html)
    assert any(lab.startswith(f"{FSI}{HEBREW}{PDI}: AUC") for lab in labels), labels[:20]


# ---- credit: 24 long grade labels ---------------------------------------------------------------

GRADES = [f"grade_{i:02d}_{'very_long_rating_band_label_' if i % 4 == 0 else ''}{chr(65 + i)}" for i in range(24)]


def _credit_config(d: Path, rows: int = 1200) -> Path:
    rng = np.random.default_rng(5)
    pd_ = np.clip(rng.beta(1.2, 20, rows), 0.0005, 0.9)
    y = (rng.random(rows) < pd_).astype(int)
    cuts = np.quantile(pd_, np.linspace(0, 1, len(GRADES) + 1)[1:-1])
    pd.DataFrame(
        {
            "id": np.arange(rows),
            "y": y,
            "pd": pd_,
            "rating": [GRADES[g] for g in np.searchsorted(cuts, pd_)],
            "segment": rng.choice(["retail_mortgages_fixed_rate_long_name", "cards", "قروض"], rows),
        }
    ).to_csv(d / "data.csv", index=False)
    cfg = {
        "title": "Credit, 24 grades",
        "task": "binary",
        "label": "y",
        "positive": 1,
        "id": "id",
        "threshold": 0.1,
        "bootstrap": {"resamples": 0, "seed": 1},
        "models": [{"name": "pd_model", "file": "data.csv", "score": "pd"}],
        "credit": {"grades": {"column": "rating", "order": GRADES}},
        "segment": "segment",
        "output": {"dir": "out", "formats": ["html", "pdf"], "overwrite": True},
        "report": {"sections": ["credit"]},
    }  # the section under test: its heading starts a page
    path = d / "credit.yaml"
    path.write_text(yaml.safe_dump(cfg, sort_keys=False, allow_unicode=True), encoding="utf-8")
    return path


@pytest.fixture(scope="module")
def credit_run(tmp_path_factory):
    import pdfminer  # noqa: F401 - a test dependency: missing, the test fails

    from reportgen.cli import main

    d = tmp_path_factory.mktemp("credit24")
    assert main(["run", str(_credit_config(d)), "--out", str(d / "out"), "--quiet", "--now", NOW]) == 0
    return d / "out"


@pytest.mark.slow
@pytest.mark.pdf
def test_long_grade_labels_wrap_and_many_grades_may_break_across_pages(credit_run):
    html = (credit_run / "report.html").read_text(encoding="utf-8")
    assert '<table class="credit-grades long-grades many-grades">' in html
    assert '<div class="many-grades">' in html  # not one unbreakable block of a page's height
    css = html[html.index("<style>") : html.index("</style>")]
    assert re.search(r"table\.long-grades td\.grade[^{]*\{\s*white-space:\s*normal;", css)
    assert re.search(r"table\.credit-grades\.many-grades\s*\{\s*break-inside:\s*auto;", css)


@pytest.mark.slow
@pytest.mark.pdf
def test_a_grades_table_of_24_long_labels_stays_on_the_page(credit_run):
    # the labels never wrapped (td.grade: nowrap), so the last columns (Binomial p, Light) ran
    # past the right edge; the whole table moved to the next page, leaving the section's heading
    # alone on its page
    from test_pdf_layout import glyphs, off_page

    found, pages = glyphs(credit_run / "report.pdf")
    assert not off_page(found, pages), off_page(found, pages)[:10]
    by_page: dict[int, str] = {}
    for g in found:
        by_page[g.page] = by_page.get(g.page, "") + g.text
    heading = next(p for p, t in by_page.items() if "Creditvalidation" in t.replace(" ", "") and "Traffic" in t)
    assert "grade_00" in by_page[heading] and "GREEN" in by_page[heading].upper()


# ---- tiny data: ten rows, one positive --------------------------------------------------------


@pytest.fixture(scope="module")
def tiny():
    data = pd.DataFrame(
        {
            "y": [0, 0, 0, 0, 0, 0, 0, 0, 0, 1],
            "s0": [0.1, 0.2, 0.3, 0.1, 0.2, 0.4, 0.6, 0.2, 0.1, 0.9],  # AUC 1
            "s1": [0.1] * 10,
        }
    )  # one prediction for all
    return reportgen.compare_frames(
        data, label="y", positive=1, threshold=0.5, now=NOW, scores=["s0", "s1"], bootstrap={"resamples": 20, "seed": 1}
    )


def test_one_row_in_the_smaller_class_is_one_row(tiny):
    # "only 1 rows in the smaller class"
    text = " ".join(tiny.run.warnings)
    assert "only 1 row in the smaller class" in text and "only 1 rows" not in text


def test_a_swap_with_nothing_swapped_out_says_so(tiny):
    # "s1 swaps in 2 applications at 50.0 % bad for 0 at n/a."
    from reportgen.report.wording import approval_sentence

    (a,) = tiny.comparisons[0].approval
    assert a.swap_out.rows == 0 and a.swap_in.rows == 2
    text = approval_sentence(a)
    assert text.endswith("Against s0, s1 swaps in 2 applications at 50.0 % bad and swaps none out.")
    assert "at n/a" not in text


def test_an_undefined_value_in_the_comparison_table_says_why(tiny):
    # the comparison table printed a bare n/a for s1's MCC (the metrics table gave the reason), and
    # an error reduction of n/a against a perfect baseline without a word
    comparison = _tables_view(tiny).comparison.comparisons[0]
    rows = {r.key: r for r in comparison.rows}
    assert rows["mcc"].model == "n/a" and rows["gini"].rer == "n/a"
    assert rows["gini"].rer_note == "baseline has no error"
    assert list(comparison.undefined) == [
        "Matthews correlation (MCC): n/a for s1, a row or column of the confusion matrix is empty."
    ]
    html = _html(tiny, "comparison")
    assert (
        '<p class="note undefined">Matthews correlation (MCC): n/a for s1, a row or column of the confusion '
        "matrix is empty.</p>"
    ) in html


@pytest.mark.parametrize(
    "label, title",
    [
        ("1", "1 vs rest"),
        (
            "class_with_a_very_long_label_that_goes_on_and_on_forever_2026",
            "class_with_a_very_long_label_t\nhat_goes_on_and_on_forever_20…",
        ),
        ("קבוצה ב", f"{FSI}קבוצה ב{PDI} vs rest"),
    ],
)
def test_a_long_class_label_does_not_run_over_the_next_panel(label, title):
    # a 60-character label's "… vs rest" ran over the next panel's title and past the figure
    assert figures.panel_title(label) == title
    assert all(len(line) <= figures.PANEL_TITLE_CHARS for line in title.split("\n"))


def test_a_model_header_breaks_after_its_underscore_not_inside_a_word(twelve_html):
    # "challenger_01" in a metrics column of twelve printed "challenge" over "r_01"
    metrics = twelve_html[twelve_html.index('<section id="metrics"') :]
    metrics = metrics[: metrics.index("</section>")]
    heads = "".join(re.findall(r"<thead>.*?</thead>", metrics, re.DOTALL))  # its tables of six models
    assert heads.count("challenger_<wbr>") == 11


def test_intervals_in_a_metrics_table_of_many_models_wrap_instead_of_touching(twelve_html):
    css = twelve_html[twelve_html.index("<style>") : twelve_html.index("</style>")]
    assert re.search(r"table\.metrics td \.ci\s*\{\s*white-space:\s*normal;", css)


def test_40_classes_print_portrait_top_confusions_and_a_light_class_list(tmp_path):
    # a top-confusions table (four columns) took a landscape page per model
    from reportgen.api import compare_models
    from reportgen.config import load_config
    from reportgen.report.render import build_view

    rng = np.random.default_rng(2)
    classes = [f"c{i:02d}" for i in range(40)]
    y = rng.integers(0, 40, 400)
    pred = np.where(rng.random(400) < 0.6, y, rng.integers(0, 40, 400))
    pd.DataFrame({"y": [classes[i] for i in y], "p": [classes[i] for i in pred]}).to_csv(
        tmp_path / "d.csv", index=False
    )
    (tmp_path / "c.yaml").write_text(
        yaml.safe_dump(
            {
                "task": "multiclass",
                "label": "y",
                "classes": classes,
                "bootstrap": {"resamples": 0, "seed": 1},
                "models": [{"name": "rules", "file": "d.csv", "prediction": "p"}],
            }
        ),
        encoding="utf-8",
    )
    result = compare_models(*load_config(tmp_path / "c.yaml"), now=NOW)
    view = build_view(result)
    assert view.confusion.multiclass[0].full is False and view.confusion.wide is False
    # and the title page lists the 40 classes small and light (in bold they filled half the page)
    assert '<div class="wide-fact many-classes"><dt>Classes</dt>' in render_html(result, view=view)


def test_the_curves_heading_is_not_left_alone_on_a_page(twelve_html):
    # the ROC and PR figures of twelve models (tall legends) fitted under "Curves", but the grid's
    # two rows are two lines of one block and the default orphans (2) moved both to the next page
    css = twelve_html[twelve_html.index("<style>") : twelve_html.index("</style>")]
    assert re.search(r"\.grid2\s*\{\s*orphans:\s*1;\s*widows:\s*1;", css)


def test_paths_named_like_a_right_to_left_model_are_printed_as_written(tmp_path):
    # isolating the name inside other text must not touch the input's path (copied out of the report)
    from reportgen.api import compare_models
    from reportgen.config import load_config

    _scores(2).to_csv(tmp_path / f"{HEBREW}.csv", index=False)
    (tmp_path / "c.yaml").write_text(
        yaml.safe_dump(
            {
                "task": "binary",
                "label": "y",
                "positive": 1,
                "bootstrap": {"resamples": 0, "seed": 1},
                "models": [
                    {"name": "base", "file": f"{HEBREW}.csv", "score": "s0"},
                    {"name": HEBREW, "file": f"{HEBREW}.csv", "score": "s1"},
                ],
            },
            allow_unicode=True,
        ),
        encoding="utf-8",
    )
    view = _tables_view(compare_models(*load_config(tmp_path / "c.yaml"), now=NOW))
    assert [m.file for m in view.models] == [f"{HEBREW}.csv"] * 2
    assert view.appendix.files[0].name == f"{HEBREW}.csv" and FSI not in view.appendix.files[0].path
    assert any(f"{FSI}{HEBREW}{PDI}'s" in c.verdict for c in view.comparison.comparisons)


def test_one_reason_for_both_models_is_one_note():
    # "Brier score: n/a for s0, scores are not probabilities …" and then the same line for s1
    data = _scores(2)
    data[["s0", "s1"]] *= 100  # points, not probabilities
    result = reportgen.compare_frames(
        data, label="y", positive=1, threshold=30, now=NOW, scores=["s0", "s1"], bootstrap={"resamples": 0, "seed": 1}
    )
    notes = _tables_view(result).comparison.comparisons[0].undefined
    assert len(notes) == 1 and notes[0].startswith("Brier score: n/a for s0 and s1, "), notes


@pytest.mark.slow
@pytest.mark.pdf
def test_a_landscape_confusion_matrix_keeps_its_model_heading(tmp_path):
    # 12 classes, one label of 60 characters: each card (heading + matrix) was taller than a
    # landscape page, so the heading was left alone at the foot of one page, the matrix on the next
    import pdfminer  # noqa: F401 - a test dependency: missing, the test fails
    from test_pdf_layout import glyphs

    from reportgen.api import compare_models
    from reportgen.config import load_config
    from reportgen.report.render import render_pdf

    rng = np.random.default_rng(4)
    classes = [f"c{i}" for i in range(11)] + ["class_with_a_very_long_label_that_goes_on_and_on_forever_2026"]
    y = rng.integers(0, 12, 1200)
    frame = {"y": [classes[i] for i in y]}
    for m in range(2):
        pred = np.where(rng.random(1200) < 0.5 + 0.2 * m, y, rng.integers(0, 12, 1200))
        frame[f"p{m}"] = [classes[i] for i in pred]
    pd.DataFrame(frame).to_csv(tmp_path / "d.csv", index=False)
    (tmp_path / "c.yaml").write_text(
        yaml.safe_dump(
            {
                "task": "multiclass",
                "label": "y",
                "classes": classes,
                "bootstrap": {"resamples": 0, "seed": 1},
                "report": {"sections": ["summary", "confusion"]},
                "models": [{"name": f"heading_model_{m}", "file": "d.csv", "prediction": f"p{m}"} for m in range(2)],
            }
        ),
        encoding="utf-8",
    )
    html = _html(compare_models(*load_config(tmp_path / "c.yaml"), now=NOW), "summary", "confusion", for_pdf=True)
    render_pdf(html, tmp_path / "r.pdf")
    found, _ = glyphs(tmp_path / "r.pdf")
    pages: dict[int, str] = {}
    for g in found:
        pages[g.page] = pages.get(g.page, "") + g.text
    matrices = [t for t in pages.values() if "Trueclass" in t.replace(" ", "")]
    assert len(matrices) >= 2
    for m in range(2):  # the page of each matrix names its model (the heading above it)
        assert sum(f"heading_model_{m}" in t for t in matrices) == 1, f"heading_model_{m}'s heading left its matrix"
