"""Structural tests of the figures: they draw the result's numbers, keep each model's colour,
and stay light at any number of rows (curves are decimated before drawing)."""

from __future__ import annotations

import sys
from pathlib import Path

import numpy as np
import pytest
from matplotlib.colors import to_hex

from reportgen.report import figures
from reportgen.results_io import load_result

sys.path.insert(0, str(Path(__file__).resolve().parents[2] / "benchmarks"))
from bench_render import make_result


@pytest.fixture(scope="module")
def demo(demo_run):
    return load_result(demo_run.out / "metrics.json")


@pytest.fixture(scope="module")
def demo_figures(demo):
    """The demo's figures (:func:`figures.render_figures`), drawn once for the module's tests
    that read them: a drawing of every figure takes seconds."""
    return figures.render_figures(demo)


def _lines(fig):
    return [ln for ax in fig.axes for ln in ax.get_lines()]


def _colour(line) -> str:
    return to_hex(line.get_color())


def test_roc_draws_each_models_curve_and_its_operating_point(demo):
    fig = figures.roc_figure(demo)
    col = figures.colours(list(demo.models))
    lines = _lines(fig)
    for name, m in demo.models.items():
        mine = [ln for ln in lines if _colour(ln) == to_hex(col[name])]
        curve = [ln for ln in mine if len(ln.get_xdata()) > 2]
        assert len(curve) == 1, name
        np.testing.assert_array_equal(curve[0].get_xdata(), m.curves.roc.x)
        np.testing.assert_array_equal(curve[0].get_ydata(), m.curves.roc.y)
        points = [
            c
            for c in fig.axes[0].collections
            if len(c.get_offsets()) == 1 and to_hex(c.get_facecolor()[0]) == to_hex(col[name])
        ]
        assert len(points) == 1, name
        assert points[0].get_offsets()[0][0] == pytest.approx(m.confusion.fp / m.negatives)
        assert points[0].get_offsets()[0][1] == pytest.approx(m.confusion.tp / m.positives)
    legend = [t.get_text() for t in fig.legends[0].get_texts()]  # below the axes, off the curves
    for name, m in demo.models.items():
        assert any(
            t.startswith(f"{name}: AUC {m.metrics['roc_auc']:.3f}, Gini {m.metrics['gini']:.3f}") for t in legend
        )


def test_each_model_keeps_one_colour_in_every_figure(demo):
    col = {n: to_hex(c) for n, c in figures.colours(list(demo.models)).items()}
    assert len(set(col.values())) == len(col)
    for fn in (figures.roc_figure, figures.pr_figure, figures.cost_figure, figures.gains_figure):
        fig = fn(demo)
        legend = fig.axes[0].get_legend() or (fig.legends[0] if fig.legends else None)
        assert legend is not None, fn.__name__
        seen = set()
        for text, handle in zip(legend.get_texts(), legend.legend_handles):
            for name, c in col.items():
                if text.get_text().startswith(f"{name}:") or text.get_text() in (name, f"{name} (lower envelope)"):
                    assert to_hex(handle.get_color()) == c, (fn.__name__, name)
                    seen.add(name)
        assert seen == set(col), fn.__name__


def test_cost_envelopes_lie_below_the_trivial_classifiers(demo):
    for m in demo.models.values():
        c = m.curves.cost
        pc, env = np.asarray(c.pc), np.asarray(c.envelope)
        assert np.all(env <= np.minimum(pc, 1 - pc) + 1e-12) and np.all(env >= -1e-12)


@pytest.mark.slow
def test_figures_stay_light_at_any_number_of_rows():
    result = make_result(200_000, 2)
    for m in result.models.values():
        for curve in (m.curves.roc, m.curves.pr):
            assert len(curve.x) <= 2_500
    svgs = figures.render_figures(result)
    assert {"roc", "pr", "cost", "thresholds", "ks", "gains", "calibration", "distributions"} <= set(svgs)
    assert max(len(s) for s in svgs.values()) < 250_000
    assert sum(len(s) for s in svgs.values()) < 800_000


def _drawn(svg: str) -> list[tuple[str, dict]]:
    """The drawing elements of an SVG, in document order, with their attributes."""
    import xml.etree.ElementTree as ET

    kinds = {"path", "text", "use", "rect", "clipPath", "style"}
    return [
        (el.tag.rsplit("}", 1)[-1], dict(el.attrib), el.text)
        for el in ET.fromstring(svg).iter()
        if el.tag.rsplit("}", 1)[-1] in kinds
    ]


@pytest.mark.slow  # renders a PDF page to pixels: ~2.5 s
@pytest.mark.pdf
def test_lean_svg_keeps_every_drawn_element_and_the_pdf_pixels(demo, tmp_path):
    """The PDF's figures lose matplotlib's id-only groups and metadata, nothing drawn: the same
    paths, texts and uses in the same order, and the same page at 50 dpi (pdftoppm)."""
    import shutil
    import subprocess

    import weasyprint

    svg = figures.to_svg(figures.FIGURES["thresholds"](demo)).strip()
    lean = figures.lean_svg(svg)
    assert lean.count("<g") < svg.count("<g") / 2 and "<metadata" not in lean
    assert _drawn(lean) == _drawn(svg)
    page = "<html><body><div style='width:16cm'>{}</div></body></html>"
    if shutil.which("pdftoppm") is None:
        pytest.skip("pdftoppm not installed")
    pixels = []
    for name, body in (("full", svg), ("lean", lean)):
        weasyprint.HTML(string=page.format(body)).write_pdf(tmp_path / f"{name}.pdf")
        subprocess.run(
            ["pdftoppm", "-png", "-r", "50", "-singlefile", str(tmp_path / f"{name}.pdf"), str(tmp_path / name)],
            check=True,
        )
        pixels.append((tmp_path / f"{name}.png").read_bytes())
    assert pixels[0] == pixels[1]
    assert figures.lean_svg("<svg><g></svg>") == "<svg><g></svg>"  # not XML: left as it is


@pytest.mark.slow
def test_the_credit_figures_come_after_the_tables_own_and_are_each_models_figure(demo, demo_figures):
    """The credit section's figures (:func:`figures.credit_figure_table`) are drawn with the
    report's, under ``credit:NAME`` after the table's own (and the trend), each the model's figure;
    the segments section's (``segments:COLUMN``) follow, as that section follows credit's in the
    report's reading order (``config.REPORT_SECTIONS``)."""
    from reportgen.config import REPORT_SECTIONS
    from reportgen.report import credit_figures

    assert demo.credit is not None and demo.segments is not None
    assert REPORT_SECTIONS.index("credit") < REPORT_SECTIONS.index("segments")
    svgs = demo_figures
    credit = [f"{credit_figures.KEY_PREFIX}{n}" for n in demo.credit.models]
    segments = [f"{figures.SEGMENT_PREFIX}{c.column}" for c in demo.segments.columns]
    own = [k for k in svgs if not k.startswith((credit_figures.KEY_PREFIX, figures.SEGMENT_PREFIX))]
    assert own and segments == ["segments:product"]
    assert list(svgs) == own + credit + segments
    col = figures.colours(list(demo.models))
    for name, m in demo.credit.models.items():
        assert svgs[f"credit:{name}"] == figures.to_svg(figures.credit_figure(m, col[name]))


def test_a_report_of_one_section_draws_only_that_sections_figures(demo):
    # with `report: sections: [segments]` the report drew every figure of the run (ROC, PR, cost,
    # thresholds, KS, …, the forest, each credit model's), seconds of drawing for pages not shown
    from reportgen.report.render import build_view
    from reportgen.report.theme import Theme

    view = build_view(demo, Theme(sections=("segments",)))
    assert view.sections == ("segments",)
    assert [c.figure is not None for c in view.segments.columns] == [True]
    assert dict(view.curves.figures) == {} and view.comparison.forest is None and view.trend.figure is None
    assert view.credit is not None and all(m.figure is None for m in view.credit.models)
    # the public function: a section's figures, none of a section that has none
    assert list(figures.render_figures(demo, sections=("comparison",))) == ["forest"]
    assert figures.render_figures(demo, sections=("summary", "metrics", "glossary")) == {}


def test_the_sign_off_brief_draws_its_two_figures_without_their_sections(demo):
    # the brief shows the forest plot and the ROC curves (templates/sections/brief.html) whether or
    # not the comparison and curves sections follow it
    from reportgen.report.render import build_view
    from reportgen.report.theme import Theme

    view = build_view(demo, Theme(sections=("summary",), layout="brief"))
    assert view.brief is not None and view.comparison.forest is not None
    assert list(view.curves.figures) == ["forest", "roc"]


def test_every_figure_a_section_template_shows_is_drawn_for_that_section():
    # a figure is drawn only for the sections FIGURE_SECTIONS names: a template showing it in
    # another section would show nothing
    import re

    from reportgen.config import REPORT_SECTIONS

    templates = Path(__file__).resolve().parents[2] / "templates" / "sections"
    shown = {"view.comparison.forest": "forest", "view.trend.figure": "trend", "class_figures": "class_roc"}
    assert set(figures.FIGURE_SECTIONS) == {*figures.FIGURES, *figures.MULTICLASS_FIGURES, "trend"}
    assert {s for secs in figures.FIGURE_SECTIONS.values() for s in secs} <= {*REPORT_SECTIONS, "brief"}
    found = 0
    for path in templates.glob("*.html"):
        section = path.stem.removesuffix("_multiclass")
        text = path.read_text(encoding="utf-8")
        keys = set(re.findall(r"view\.curves\.figures\.(\w+)", text)) | {k for s, k in shown.items() if s in text}
        for key in keys:
            assert section in figures.FIGURE_SECTIONS[key], (path.name, key)
            found += 1
    assert found >= 14


def test_a_figures_notes_are_logged_once_each_in_figure_order(demo, monkeypatch, caplog):
    """Matplotlib's warnings reach the log once each, in the order of the figure table, and
    missing glyphs stay dropped."""
    import dataclasses
    import logging
    import warnings

    def noisy(tag):
        original = figures.FIGURES[tag]

        def draw(result, palette=figures.PALETTE):
            with figures._matplotlib_notes():
                warnings.warn(f"{tag} note", UserWarning, stacklevel=1)
                warnings.warn(f"{tag} note", UserWarning, stacklevel=1)
                warnings.warn("Glyph 27169 (x) missing from font(s) DejaVu Sans.", UserWarning, stacklevel=1)
                return original(result, palette)

        return draw

    monkeypatch.setattr(figures, "FIGURES", {k: noisy(k) for k in ("ks", "roc", "pr")})
    caplog.set_level(logging.WARNING, logger="reportgen.report.figures")
    # the figure table's own figures only: the credit and segments sections' would be drawn, then dropped below
    svgs = figures.render_figures(dataclasses.replace(demo, credit=None, segments=None))
    assert [k for k in svgs if not k.startswith(("credit:", "segments:"))] == ["ks", "roc", "pr"]
    assert [r.getMessage() for r in caplog.records] == ["figure: ks note", "figure: roc note", "figure: pr note"]


@pytest.mark.slow
@pytest.mark.pdf
def test_the_pdf_draws_its_figures_as_images_with_the_same_pixels_text_and_alt(
    demo, demo_figures, tmp_path, monkeypatch
):
    """The PDF's page holds each figure as an ``<img>`` of its lean SVG (fewer HTML elements to
    parse and style): every page of the demo's PDF is pixel-identical at 50 dpi to the page with
    the figures inline, the text is the same, and each image's alt is its caption."""
    import re
    import shutil
    import subprocess

    import weasyprint

    from reportgen.report import render
    from reportgen.report.theme import Theme

    # every section that draws a figure (the others' pages hold none to compare): a smaller PDF;
    # its figures are the module's drawing of the demo's (the theme keeps the default palette)
    monkeypatch.setattr(render, "_draw_figures", lambda result, theme, sections: demo_figures)
    html = render.render_html(demo, Theme(sections=("comparison", "curves", "credit", "segments")), for_pdf=True)
    page = figures.pdf_figures(html)
    inline = re.sub(r"<svg\b.*?</svg>", lambda m: figures.lean_svg(m.group(0)), html, flags=re.DOTALL)
    assert "<svg" not in page and page.count('class="figure-svg"') == html.count("<svg") > 5
    alts = re.findall(r'<img class="figure-svg" style="width: [0-9.]+pt" alt="([^"]*)"', page)
    assert alts and all(alts) and "ROC" in alts[1] + alts[0]
    assert figures.pdf_figures("<p><svg viewBox='0 0 1 1'></svg></p>") == "<p><svg viewBox='0 0 1 1'></svg></p>"
    if shutil.which("pdftoppm") is None or shutil.which("pdftotext") is None:
        pytest.skip("poppler-utils not installed")
    out = {}
    for name, body in (("inline", inline), ("image", page)):
        pdf = tmp_path / f"{name}.pdf"
        weasyprint.HTML(string=body, url_fetcher=render._url_fetcher(), base_url=None).write_pdf(pdf)
        subprocess.run(["pdftoppm", "-png", "-r", "50", str(pdf), str(tmp_path / name)], check=True)
        subprocess.run(["pdftotext", str(pdf), str(tmp_path / f"{name}.txt")], check=True)
        out[name] = (
            [p.read_bytes() for p in sorted(tmp_path.glob(f"{name}-*.png"))],
            (tmp_path / f"{name}.txt").read_text(encoding="utf-8"),
        )
    assert len(out["image"][0]) == len(out["inline"][0]) > 3
    assert out["image"] == out["inline"]
