"""The PDF laid out while its figures are drawn: each figure an empty SVG of its size until the
page is painted (reportgen.report.render.ViewInProgress, render_pdf(figures=...)). The report set is the
one the drawn figures give, byte for byte, whatever goes wrong on the way."""

from __future__ import annotations

import sys
from pathlib import Path

import numpy as np
import pandas as pd
import pytest
from matplotlib.figure import Figure

from reportgen.report import figures, render
from reportgen.report import weasyprint_tuning as tuning
from reportgen.api import compare_models
from reportgen.config import load_config
from reportgen.results_io import load_result

sys.path.insert(0, str(Path(__file__).resolve().parents[1] / "benchmarks"))
from bench_render import make_result  # noqa: E402


@pytest.fixture(scope="module")
def demo(demo_run):
    return load_result(demo_run.out / "metrics.json")


@pytest.fixture(scope="module")
def small():
    """A two-model binary result: a short PDF (eight figures, no credit section)."""
    return make_result(3_000, 2)


@pytest.fixture(scope="module")
def many_classes(tmp_path_factory):
    """A multiclass result of 12 classes: its per-class figures come in parts (9 panels each)."""
    d = tmp_path_factory.mktemp("classes")
    rng = np.random.default_rng(3)
    classes = [f"c{i:02d}" for i in range(12)]
    y = rng.integers(0, 12, 2_400)
    logits = rng.normal(size=(2_400, 12)) + 2.0 * np.eye(12)[y]
    p = np.exp(logits) / np.exp(logits).sum(axis=1, keepdims=True)
    df = pd.DataFrame({"label": [classes[i] for i in y], **{f"p_{c}": p[:, i] for i, c in enumerate(classes)}})
    df["guess"] = [classes[i] for i in p.argmax(axis=1)]
    df.to_csv(d / "scores.csv", index=False)
    (d / "c.yaml").write_text(
        "task: multiclass\nlabel: label\nclasses: [" + ", ".join(classes) + "]\nbootstrap: {resamples: 0}\n"
        "models:\n  - {name: probs, file: scores.csv, scores: [" + ", ".join(f"p_{c}" for c in classes)
        + "], probabilities: true}\n  - {name: guess, file: scores.csv, prediction: guess}\n",
        encoding="utf-8")
    cfg, path = load_config(d / "c.yaml")
    return compare_models(cfg, path, now="2026-01-01T00:00:00Z")


@pytest.fixture(scope="module")
def drawn_pdf(small, tmp_path_factory):
    """The small result's PDF made as before: every figure drawn, then the page laid out."""
    return _pdf(tmp_path_factory.mktemp("drawn"), "before.pdf", _drawn_page(small, for_pdf=True))


def _drawn_page(result, for_pdf: bool = False) -> str:
    """The page as it was made before: every figure drawn, then the view built with them."""
    return render.render_html(result, for_pdf=for_pdf, view=render.build_view(result))


def _pdf(tmp_path: Path, name: str, html: str, **kwargs) -> bytes:
    render.render_pdf(html, tmp_path / name, **kwargs)
    return (tmp_path / name).read_bytes()


@pytest.mark.parametrize("which", ["demo", "many_classes"])
def test_every_figure_is_foreseen_at_the_size_it_is_drawn(which, request):
    """Sizing the figures (their functions stopped where they make the figure) foresees exactly
    the figures drawing gives, parts and credit figures included, each at its drawn size."""
    result = request.getfixturevalue(which)
    drawing = render._start_drawing(result, render.Theme())  # noqa: SLF001 - the report's own figure table
    try:
        pending = drawing.pending()
        drawn = drawing()
    finally:
        drawing.cancel()
    assert pending is not None and list(pending) == list(drawn) and len(drawn) >= 5
    if which == "many_classes":
        assert {"class_roc", "class_roc_2", "class_pr_2"} <= set(drawn)
    else:
        assert any(k.startswith("credit:") for k in drawn)
    for key, svg in drawn.items():
        assert figures.svg_size(pending[key]) == figures.svg_size(svg) and len(figures.svg_size(svg)) == 3
    assert len(set(pending.values())) == len(pending)  # each stand-in can be told from the others


def test_the_pdf_laid_out_as_its_figures_are_drawn_is_the_pdf_of_the_drawn_page(small, drawn_pdf, tmp_path):
    """The PDF and the HTML page made from the view in progress are, byte for byte, those the
    page with every figure drawn beforehand gives; the stand-ins were in the page laid out."""
    v = render.start_view(small)
    try:
        html = render.render_html(small, for_pdf=True, view=v.view)
        assert html.count('id="reportgen-pending-') >= 8
        after_pdf = _pdf(tmp_path, "after.pdf", html, figures=v.drawn)
        page = v.fill(render.render_html(small, view=v.view))
    finally:
        v.close()
    assert after_pdf == drawn_pdf
    assert page == _drawn_page(small) and "reportgen-pending" not in page


def test_a_drawing_of_another_size_than_its_stand_in_has_the_page_laid_out_again(small, drawn_pdf, tmp_path,
                                                                                   monkeypatch):
    """A stand-in that foresaw the wrong size is not drawn over: the page is laid out again
    with the drawings, and the PDF is still the drawn page's."""
    real = figures.pending_svg
    monkeypatch.setattr(figures, "pending_svg", lambda n, w, h: real(n, w + 1.0, h))
    asked = []
    monkeypatch.setattr(tuning, "redraw_svg_images", lambda *a: asked.append(a) or True)
    v = render.start_view(small)
    try:
        after = _pdf(tmp_path, "after.pdf", render.render_html(small, for_pdf=True, view=v.view), figures=v.drawn)
    finally:
        v.close()
    assert after == drawn_pdf and asked == []


def test_a_weasyprint_that_cannot_take_the_drawings_has_the_page_laid_out_again(small, drawn_pdf, tmp_path,
                                                                                monkeypatch):
    monkeypatch.setattr(tuning, "redraw_svg_images", lambda *a: False)
    v = render.start_view(small)
    try:
        after = _pdf(tmp_path, "after.pdf", render.render_html(small, for_pdf=True, view=v.view), figures=v.drawn)
    finally:
        v.close()
    assert after == drawn_pdf


def test_redraw_refuses_a_url_the_document_does_not_show_and_changes_nothing(small):
    """:func:`weasyprint_tuning.redraw_svg_images` swaps all of the images it is given or none."""
    import base64

    weasyprint = tuning.import_weasyprint()
    svg = figures.pending_svg(0, 2.0, 1.0)
    url = "data:image/svg+xml;base64," + base64.b64encode(svg.encode()).decode()
    doc = weasyprint.HTML(string=f'<img src="{url}">', url_fetcher=render._url_fetcher(), base_url=None).render()  # noqa: SLF001
    img = next(b.replacement for b in doc.pages[0]._page_box.descendants() if hasattr(b, "replacement"))  # noqa: SLF001
    kept = img._svg  # noqa: SLF001
    assert not tuning.redraw_svg_images(doc, {url: (url, svg.encode()), "data:other": ("x", b"<svg/>")})
    assert img._svg is kept  # noqa: SLF001
    other = figures.pending_svg(1, 2.0, 1.0).encode()
    assert tuning.redraw_svg_images(doc, {url: ("data:new", other)})
    assert img._svg is not kept and img._base_url == "data:new"  # noqa: SLF001


def test_a_figure_whose_size_cannot_be_foreseen_is_drawn_before_the_page(small, tmp_path, monkeypatch):
    """A figure made without ``new_figure`` (its size known only once drawn): the view waits for
    the drawings, as before, and the report set is the same."""
    def odd(result, palette):
        fig = Figure(figsize=(3, 2))
        fig.add_subplot().plot([0, 1], [1, 0])
        return fig

    monkeypatch.setitem(figures.FIGURES, "roc", figures._apply_style(odd))  # noqa: SLF001
    monkeypatch.setattr(figures, "FIGURE_PROCESSES", 1)
    assert figures.figure_sizes(figures.FIGURES, small) is None
    v = render.start_view(small)
    try:
        assert "reportgen-pending" not in str(v.view.curves.figures) and v.drawn() == {}
        page = v.fill(render.render_html(small, view=v.view))
    finally:
        v.close()
    assert page == _drawn_page(small)


def test_a_figure_drawn_that_was_not_foreseen_has_the_view_built_again(small, tmp_path, monkeypatch):
    """Should sizing ever miss a figure that drawing gives, the view is built again with the
    drawings (``remade``) and the report set written is the drawn one."""
    from reportgen.report.writer import write_outputs

    reference = tmp_path / "reference"
    write_outputs(small, reference, ["html", "pdf", "json"])
    real = figures.Drawing.pending
    remade = []

    def forgetful(self):
        out = real(self)
        out.pop("gains")
        return out

    drawn = render.ViewInProgress.drawn

    def noted(self):
        out = drawn(self)
        remade.append(self.remade)
        return out

    monkeypatch.setattr(figures.Drawing, "pending", forgetful)
    monkeypatch.setattr(render.ViewInProgress, "drawn", noted)
    out = tmp_path / "out"
    write_outputs(small, out, ["html", "pdf", "json"])
    assert remade and all(remade)
    for name in ("report.html", "report.pdf", "metrics.json"):
        assert (out / name).read_bytes() == (reference / name).read_bytes(), name


def test_the_report_set_is_written_pdf_first_and_says_so(small, tmp_path):
    """The PDF is written before the HTML (its layout overlaps the drawing); the phases say
    where the figures are drawn."""
    from reportgen.report.writer import write_outputs

    phases: list[str] = []
    write_outputs(small, tmp_path / "o", ["html", "pdf", "json"], phase=phases.append)
    assert phases[:2] == ["figures and PDF", "HTML"]
    phases.clear()
    write_outputs(small, tmp_path / "h", ["html", "json"], phase=phases.append)
    assert phases[0] == "figures and HTML"


def test_a_figure_that_fails_is_not_sized_and_fails_where_it_is_drawn(small, monkeypatch):
    """A figure function that raises: sizing gives up (nothing foreseen) and the error comes
    from drawing it, as it did before figures were sized."""
    def broken(result, palette):
        raise ValueError("broken figure")

    monkeypatch.setitem(figures.FIGURES, "roc", broken)
    monkeypatch.setattr(figures, "FIGURE_PROCESSES", 1)
    assert figures.figure_sizes(figures.FIGURES, small) is None
    with pytest.raises(ValueError, match="broken figure"):
        render.start_view(small)
