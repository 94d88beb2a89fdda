"""The PDF's WeasyPrint adjustments (:mod:`reportgen.report.weasyprint_tuning`): SVG labels drawn as
one run each, with the same text and the same look; a user-agent stylesheet without universal
pseudo-elements that draws the same pages; both undone or skipped where they do not apply."""

from __future__ import annotations

import base64
import shutil
import subprocess
import sys
import threading

import pytest

from reportgen.report import figures, render
from reportgen.report import weasyprint_tuning as tuning
from reportgen.results_io import load_result

weasyprint = pytest.importorskip("weasyprint")
poppler = pytest.mark.skipif(shutil.which("pdftoppm") is None or shutil.which("pdftotext") is None,
                             reason="poppler-utils not installed")


@pytest.fixture(scope="module")
def demo(demo_run):
    return load_result(demo_run.out / "metrics.json")


def _page(svgs: list[str]) -> str:
    return "<html><body>" + "".join(
        f'<p><img style="width: 16cm" src="data:image/svg+xml;base64,{base64.b64encode(s.encode()).decode()}"></p>'
        for s in svgs) + "</body></html>"


def _pdf(tmp_path, name: str, page: str, cls=None, dpi: str = "100") -> tuple[list[bytes], str, list]:
    """The pages as PNG bytes, the text, and the pages' images (PIL) of ``page`` laid out."""
    from PIL import Image

    pdf = tmp_path / f"{name}.pdf"
    (cls or weasyprint.HTML)(string=page, url_fetcher=render._url_fetcher(), base_url=None).write_pdf(pdf)  # noqa: SLF001
    subprocess.run(["pdftoppm", "-png", "-r", dpi, str(pdf), str(tmp_path / name)], check=True)
    subprocess.run(["pdftotext", str(pdf), str(tmp_path / f"{name}.txt")], check=True)
    pngs = sorted(tmp_path.glob(f"{name}-*.png"))
    return ([p.read_bytes() for p in pngs], (tmp_path / f"{name}.txt").read_text(encoding="utf-8"),
            [Image.open(p).convert("L") for p in pngs])


def _installed() -> bool:
    import weasyprint.svg as svg_pkg

    return svg_pkg.TAGS["text"] is not sys.modules["weasyprint.svg.text"].text


@poppler
def test_svg_labels_as_runs_keep_the_text_and_the_look_and_lay_out_once_per_label(demo, tmp_path, monkeypatch):
    """Figures drawn with :func:`svg_text_runs`: the PDF's text is the same string for string
    (pdftotext), each label is laid out once rather than once per character, and the pages
    differ from WeasyPrint's own drawing in at most a few pixels per label (kerning moves a glyph
    by a fraction of a point), nowhere outside the labels' lines."""
    from PIL import ImageChops, ImageFilter
    import weasyprint.text.line_break as line_break

    svgs = [figures.pdf_svg(figures.to_svg(f)) for f in (figures.roc_figure(demo), figures.threshold_figure(demo))]
    labels = sum(s.count("<text") for s in svgs)
    characters = sum(len(t) for s in svgs for t in __import__("re").findall(r"<text[^>]*>([^<]*)</text>", s))
    assert labels > 40 and characters > 4 * labels
    page = _page(svgs)
    layouts = []
    real = line_break.split_first_line
    monkeypatch.setattr(line_break, "split_first_line", lambda *a, **k: layouts.append(1) or real(*a, **k))
    plain = _pdf(tmp_path, "plain", page)
    per_glyph = len(layouts)
    layouts.clear()
    assert not _installed()
    with tuning.svg_text_runs():
        assert _installed()
        runs = _pdf(tmp_path, "runs", page)
    assert not _installed()
    assert len(layouts) <= labels + 5 < per_glyph - characters + labels + 5  # one layout per label
    assert runs[1] == plain[1] and "true positive rate" in runs[1].lower()
    # no form XObject per anchored (centred, right-aligned) label: a much smaller file
    assert (tmp_path / "runs.pdf").stat().st_size < 0.8 * (tmp_path / "plain.pdf").stat().st_size
    assert len(runs[2]) == len(plain[2])
    for a, b in zip(plain[2], runs[2]):
        assert ImageChops.difference(a, b).getbbox() is not None  # the labels are kerned now
        # every pixel of the new page is within the range of the old page's pixels within 3 px
        # (at 100 dpi: 2.2 pt), i.e. nothing moved further than kerning moves a glyph (a centred
        # bold title's glyphs move most: by half the kerning of the whole title)
        low, high = a.filter(ImageFilter.MinFilter(7)), a.filter(ImageFilter.MaxFilter(7))
        below = ImageChops.subtract(low, b, offset=0).point(lambda v: 255 if v > 48 else 0)
        above = ImageChops.subtract(b, high, offset=0).point(lambda v: 255 if v > 48 else 0)
        assert below.getbbox() is None and above.getbbox() is None


@poppler
def test_glyph_by_glyph_texts_are_left_to_weasyprint(tmp_path):
    """A text with per-glyph positions, dx, rotate, letter-spacing or textLength, or a tspan,
    is drawn by WeasyPrint's own function: the same pixels with and without the runs."""
    svg = ('<svg xmlns="http://www.w3.org/2000/svg" width="300pt" height="160pt" viewBox="0 0 300 160">'
           '<text x="10 30 50" y="20" font-size="14px">abc</text>'
           '<text x="10" y="40" dx="0 4 8" font-size="14px">spaced</text>'
           '<text x="10" y="60" rotate="0 20 40" font-size="14px">turned</text>'
           '<text x="10" y="80" letter-spacing="3" font-size="14px">letters</text>'
           '<text x="10" y="100" textLength="200" font-size="14px">stretched</text>'
           '<text x="10" y="120" font-size="14px">one <tspan font-weight="bold">two</tspan></text>'
           '<text x="10" y="140" direction="rtl" font-size="14px">rtl</text>'
           '<text x="250 270" y="20" text-anchor="middle" font-size="14px">mid</text>'
           '<text x="290" y="40" dx="2" text-anchor="end" font-size="14px">end</text></svg>')
    plain = _pdf(tmp_path, "plain", _page([svg]))
    with tuning.svg_text_runs():
        runs = _pdf(tmp_path, "runs", _page([svg]))
    assert runs[0] == plain[0] and runs[1] == plain[1]


def test_svg_text_runs_nest_share_one_installation_and_undo_it_on_errors():
    """Nested and concurrent blocks install once and restore WeasyPrint's function after the
    last; an exception inside still restores it."""
    original = sys.modules["weasyprint.svg.text"].text
    draw_node = weasyprint.svg.SVG.draw_node
    with tuning.svg_text_runs():
        first = weasyprint.svg.TAGS["text"]
        assert first is not original and weasyprint.svg.text is first
        assert weasyprint.svg.SVG.draw_node is not draw_node
        assert all(weasyprint.svg.TAGS[t] is first for t in ("a", "text", "textPath", "tspan"))
        with tuning.svg_text_runs():
            assert weasyprint.svg.TAGS["text"] is first
        assert weasyprint.svg.TAGS["text"] is first
        seen = []
        worker = threading.Thread(target=lambda: seen.append(_inside()))
        worker.start()
        worker.join()
        assert seen == [first]
    assert weasyprint.svg.TAGS["text"] is original and weasyprint.svg.text is original
    assert weasyprint.svg.SVG.draw_node is draw_node
    with pytest.raises(RuntimeError), tuning.svg_text_runs():
        raise RuntimeError("boom")
    assert weasyprint.svg.TAGS["text"] is original and weasyprint.svg.text is original
    assert weasyprint.svg.SVG.draw_node is draw_node


def _inside():
    with tuning.svg_text_runs():
        return weasyprint.svg.TAGS["text"]


def test_svg_text_runs_leave_a_weasyprint_of_another_shape_alone(monkeypatch):
    """Where WeasyPrint's SVG package is not as expected (its TAGS no longer hold the text
    function), the block changes nothing."""
    import weasyprint.svg as svg_pkg

    other = dict(svg_pkg.TAGS, text=lambda *a: None)
    monkeypatch.setattr(svg_pkg, "TAGS", other)
    with tuning.svg_text_runs():
        assert svg_pkg.TAGS is other and svg_pkg.text is sys.modules["weasyprint.svg.text"].text


def test_the_lean_user_agent_stylesheet_drops_only_the_universal_pseudo_elements():
    """The stylesheet differs from WeasyPrint's in the six rules, ``::marker`` now ``li::marker``;
    a stylesheet without them as expected gives None (WeasyPrint's is used)."""
    from pathlib import Path

    source = (Path(weasyprint.__file__).parent / "css" / "html5_ua.css").read_text(encoding="utf-8")
    lean = tuning._lean_ua(source)  # noqa: SLF001
    assert lean is not None
    gone = set(source.splitlines()) - set(lean.splitlines())
    added = set(lean.splitlines()) - set(source.splitlines())
    assert len(gone) == 6 and all(line.startswith(("::marker", "::footnote", "::note")) for line in gone)
    assert added == {"li" + next(line for line in gone if line.startswith("::marker"))}
    assert tuning._lean_ua(source.replace("::note-call {", "::note-call\n{")) is None  # noqa: SLF001
    assert tuning._lean_ua(source + "\n::selection { color: red }\n") is None  # noqa: SLF001
    assert tuning._lean_ua("p { color: red }") is None  # noqa: SLF001
    assert issubclass(tuning.html_class(), weasyprint.HTML) and tuning.html_class() is tuning.html_class()


@poppler
def test_the_lean_user_agent_stylesheet_draws_the_report_and_lists_the_same(demo, tmp_path):
    """The demo's PDF page (tables, figures, lists) is pixel-identical at 50 dpi with the lean
    stylesheet, with the same text; so is a page of numbered and bulleted lists."""
    page = figures.pdf_figures(render.render_html(demo, for_pdf=True))
    lists = ("<html><body><ol><li>one</li><li>two<ul><li>inner</li></ul></li></ol>"
             "<ul style='list-style: square'><li>a</li></ul><table><tr><td>1</td></tr></table></body></html>")
    for name, body in (("report", page), ("lists", lists)):
        standard = _pdf(tmp_path, f"{name}-standard", body, dpi="50")
        lean = _pdf(tmp_path, f"{name}-lean", body, cls=tuning.html_class(), dpi="50")
        assert len(lean[0]) == len(standard[0]) and lean[0] == standard[0] and lean[1] == standard[1], name


def test_render_pdf_keeps_weasyprints_stylesheet_for_css_that_needs_it(tmp_path, monkeypatch):
    """A theme whose CSS uses footnotes, markers or list items other than ``<li>`` gets
    WeasyPrint's own user-agent stylesheet; the report's own CSS gets the lean one."""
    used = []
    real = tuning.html_class()

    class Spy(real):
        def __init__(self, *a, **k):
            used.append("lean")
            super().__init__(*a, **k)

    monkeypatch.setattr(tuning, "html_class", lambda: Spy)
    for css, lean in (("p { color: red }", True), (".n { float: footnote }", False),
                      ("dt { display: list-item }", False), ("li::marker { color: red }", False)):
        used.clear()
        render.render_pdf(f"<html><head><style>{css}</style></head><body><p>x</p></body></html>", tmp_path / "x.pdf")
        assert (used == ["lean"]) is lean, css
    used.clear()
    render.render_pdf('<html><body><p style="display: list-item">x</p></body></html>', tmp_path / "y.pdf")
    assert used == []


@pytest.mark.skipif(not sys.platform.startswith("linux") or tuning._linker_cache() is None,  # noqa: SLF001
                    reason="Linux with ldconfig only")
def test_library_lookups_answer_as_ctypes_does_for_cached_names_and_run_no_compiler(tmp_path, monkeypatch):
    import ctypes.util

    find = tuning._cached_find_library(tuning._linker_cache())  # noqa: SLF001
    for name in ("c", "m", "pango-1.0", "gobject-2.0", "fontconfig", "harfbuzz"):
        assert find(name) == ctypes.util.find_library(name), name
    # a miss asks no compiler or linker: the only subprocess was the one ldconfig listing
    monkeypatch.setattr(subprocess, "Popen", lambda *a, **k: pytest.fail(f"ran {a}"))
    assert find("libpango-1.0-0") is None and find("no-such-library-here") is None
    # a library outside the cache is found on LD_LIBRARY_PATH, as the dynamic loader would
    (tmp_path / "libreportgen-probe.so.1").write_bytes(b"")
    monkeypatch.setenv("LD_LIBRARY_PATH", f"/nonexistent:{tmp_path}")
    assert find("reportgen-probe") == str(tmp_path / "libreportgen-probe.so.1")


def test_import_weasyprint_falls_back_to_the_plain_import_quietly_when_lookups_find_too_little():
    """Where the cached lookups miss a library, the import is made again as WeasyPrint makes it:
    the same modules, and none of WeasyPrint's installation help on stdout."""
    code = (
        "import sys\n"
        "import reportgen.report.weasyprint_tuning as t\n"
        "t._cached_find_library = lambda listing: (lambda name: None)\n"
        "w = t.import_weasyprint()\n"
        "import weasyprint.text.ffi as ffi\n"
        "assert w is sys.modules['weasyprint'] and ffi.pango is not None\n"
        "print('imported', w.__version__)\n"
    )
    out = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True, check=True)
    assert out.stdout == f"imported {weasyprint.__version__}\n", out.stdout
