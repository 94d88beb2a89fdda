"""Structural tests of the figures: they draw the result's numbers, keep each model's colour,
and stay light at any number of rows (curves are decimated before drawing)."""

from __future__ import annotations

import os
import sys
from pathlib import Path

import numpy as np
import pytest
from matplotlib.colors import to_hex

from reportgen.report import figures
from reportgen.report.render import load_result

sys.path.insert(0, str(Path(__file__).resolve().parents[2] / "benchmarks"))
from bench_render import make_result  # noqa: E402


@pytest.fixture(scope="module")
def demo(demo_run):
    return load_result(demo_run.out / "metrics.json")


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
        point = [ln for ln in lines if len(ln.get_xdata()) == 1 and to_hex(ln.get_markeredgecolor()) == to_hex(col[name])]
        assert len(point) == 1, name
        assert point[0].get_xdata()[0] == pytest.approx(m.confusion.fp / m.negatives)
        assert point[0].get_ydata()[0] == pytest.approx(m.confusion.tp / m.positives)
    legend = [t.get_text() for t in fig.legends[0].get_texts()]  # below the axes, off the curves
    for name, m in demo.models.items():
        assert any(t.startswith(f"{name}: AUC {m.metrics['roc_auc']:.3f}, Gini {m.metrics['gini']:.3f}") for t in legend)


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
    return [(el.tag.rsplit("}", 1)[-1], dict(el.attrib), el.text) for el in ET.fromstring(svg).iter()
            if el.tag.rsplit("}", 1)[-1] in kinds]


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
    assert figures.lean_svgs(page.format(svg)) == page.format(lean)
    if shutil.which("pdftoppm") is None:
        pytest.skip("pdftoppm not installed")
    pixels = []
    for name, body in (("full", svg), ("lean", lean)):
        weasyprint.HTML(string=page.format(body)).write_pdf(tmp_path / f"{name}.pdf")
        subprocess.run(["pdftoppm", "-png", "-r", "50", "-singlefile", str(tmp_path / f"{name}.pdf"),
                        str(tmp_path / name)], check=True)
        pixels.append((tmp_path / f"{name}.png").read_bytes())
    assert pixels[0] == pixels[1]
    assert figures.lean_svg("<svg><g></svg>") == "<svg><g></svg>"  # not XML: left as it is


def test_figures_drawn_by_worker_processes_are_byte_identical_to_drawing_them_here(demo, monkeypatch):
    """The report's figures drawn by two forked workers (the default on Linux) are the SVG text
    drawn one after another in this process, key for key and byte for byte, in the same order."""
    if not sys.platform.startswith("linux"):
        pytest.skip("figures are drawn in worker processes on Linux only")
    monkeypatch.setattr(figures, "FIGURE_PROCESSES", 1)
    here = figures.render_figures(demo)
    monkeypatch.setattr(figures, "FIGURE_PROCESSES", 2)
    drawing = figures.start_figures(demo)
    assert drawing._pool is not None  # noqa: SLF001 - workers did start
    workers = drawing()
    assert list(workers) == list(here) and workers == here
    assert drawing._pool is None and drawing.token not in figures._SHARED  # noqa: SLF001 - all released


def test_the_credit_figures_are_drawn_by_the_same_workers_and_are_the_figures_drawn_here(demo, monkeypatch):
    """The credit section's figures (the costliest, up to four panels each) go to the report's
    figure workers with the other figures (:func:`credit_figures.figure_table`), come back under
    ``credit:NAME`` after the table's own, and are byte for byte each model's figure drawn here."""
    from reportgen.report import credit_figures

    if not sys.platform.startswith("linux"):
        pytest.skip("figures are drawn in worker processes on Linux only")
    assert demo.credit is not None
    col = figures.colours(list(demo.models))
    extra = credit_figures.figure_table(dict(demo.credit.models), col)
    monkeypatch.setattr(figures, "FIGURE_PROCESSES", 2)
    drawing = figures.start_figures(demo, extra=extra)
    assert drawing._pool is not None  # noqa: SLF001 - workers did start
    svgs = drawing()
    credit = [k for k in svgs if k.startswith(credit_figures.KEY_PREFIX)]
    assert list(svgs)[-len(credit):] == credit == [f"credit:{n}" for n in demo.credit.models]
    for name, m in demo.credit.models.items():
        assert svgs[f"credit:{name}"] == figures.to_svg(credit_figures.credit_figure(m, col[name]))
    assert drawing._pool is None and drawing.token not in figures._SHARED  # noqa: SLF001


def test_a_figures_notes_drawn_in_a_worker_are_logged_by_the_parent_in_figure_order(demo, monkeypatch, caplog):
    """Matplotlib's warnings inside a worker reach this process's log once each, in the order
    of the figure table (as when drawn here), and missing glyphs stay dropped."""
    import logging
    import warnings

    if not sys.platform.startswith("linux"):
        pytest.skip("figures are drawn in worker processes on Linux only")

    def noisy(tag):
        original = figures.FIGURES[tag]

        def draw(result, palette=figures.PALETTE):
            with figures._matplotlib_notes():  # noqa: SLF001 - what _apply_style wraps each figure in
                warnings.warn(f"{tag} note", UserWarning, stacklevel=1)
                warnings.warn(f"{tag} note", UserWarning, stacklevel=1)
                warnings.warn("Glyph 27169 (x) missing from font(s) DejaVu Sans.", UserWarning, stacklevel=1)
                return original(result, palette)
        return draw

    monkeypatch.setattr(figures, "FIGURES", {k: noisy(k) for k in ("ks", "roc", "pr")})
    for processes in (2, 1):
        monkeypatch.setattr(figures, "FIGURE_PROCESSES", processes)
        caplog.clear()
        caplog.set_level(logging.WARNING, logger="reportgen.report.figures")
        svgs = figures.render_figures(demo)
        assert list(svgs) == ["ks", "roc", "pr"]
        assert [r.getMessage() for r in caplog.records] == [
            "figure: ks note", "figure: roc note", "figure: pr note"], processes


def test_an_error_drawing_a_figure_in_a_worker_is_raised_here_and_the_workers_stop(demo, monkeypatch):
    if not sys.platform.startswith("linux"):
        pytest.skip("figures are drawn in worker processes on Linux only")

    def broken(result, palette=figures.PALETTE):
        raise ValueError("no such curve")

    monkeypatch.setattr(figures, "FIGURES", {"roc": figures.roc_figure, "broken": broken})
    monkeypatch.setattr(figures, "FIGURE_PROCESSES", 2)
    drawing = figures.start_figures(demo)
    with pytest.raises(ValueError, match="no such curve"):
        drawing()
    assert drawing._pool is None and drawing.token not in figures._SHARED  # noqa: SLF001


def test_a_figure_worker_killed_while_the_parent_draws_leaves_every_figure_drawn_and_no_traceback(demo, monkeypatch, capfd):
    """kill -9 of a figure worker after the parent had taken the figures no worker had started:
    the parent cancelled their futures, and Python 3.11's pool, marking every pending future
    broken, failed on the cancelled ones and printed an ``InvalidStateError`` traceback from its
    manager thread on stderr. The parent now takes a figure by a shared mark, never a
    cancellation; the figures are still all drawn, the same as here, and stderr stays empty."""
    import signal
    import threading
    import time

    if not sys.platform.startswith("linux"):
        pytest.skip("figures are drawn in worker processes on Linux only")
    parent = os.getpid()
    uncaught: list[type[BaseException]] = []  # what a thread would print as a traceback
    monkeypatch.setattr(threading, "excepthook", lambda args: uncaught.append(args.exc_type))

    def dies_in_a_worker(result, palette=figures.PALETTE):
        if os.getpid() != parent:  # the worker takes it first (extra figures are handed out first)
            time.sleep(1.0)  # meanwhile the parent takes and draws the rest
            os.kill(os.getpid(), signal.SIGKILL)
        return None

    monkeypatch.setattr(figures, "FIGURES", {k: figures.FIGURES[k] for k in ("roc", "pr", "ks", "gains")})
    monkeypatch.setattr(figures, "FIGURE_PROCESSES", 1)
    here = figures.render_figures(demo)
    monkeypatch.setattr(figures, "FIGURE_PROCESSES", 2)
    capfd.readouterr()
    drawing = figures.start_figures(demo, extra={"killer": dies_in_a_worker})
    assert drawing._pool is not None  # noqa: SLF001 - workers did start
    assert drawing() == here
    time.sleep(0.2)  # the pool's manager thread notices the dead worker
    assert uncaught == [] and capfd.readouterr().err == ""
    assert drawing._pool is None and drawing.token not in figures._SHARED  # noqa: SLF001


WORKER_ORPHAN = """
import os, signal, sys, time
from reportgen.report import figures
from reportgen.api import load_result
from concurrent.futures import FIRST_COMPLETED, wait
drawing = figures.start_figures(load_result(sys.argv[1]))
wait(drawing._futures.values(), return_when=FIRST_COMPLETED)  # the workers have started
pids = [p.pid for p in drawing._pool._processes.values()]
print(" ".join(map(str, pids)), flush=True)
time.sleep(60)
"""


def test_figure_workers_leave_signals_to_their_parent_and_die_with_it(demo_run, tmp_path):
    """A forked figure worker inherited the command's handlers: a signal to the process group
    (Ctrl-C) raised Interrupted in its loop (a traceback, and a parent waiting forever); and a
    parent killed with SIGKILL left its workers waiting on the pool's pipe forever."""
    import signal
    import subprocess
    import time

    if not sys.platform.startswith("linux"):
        pytest.skip("figures are drawn in worker processes on Linux only")
    env = {**os.environ, "PYTHONPATH": str(Path(__file__).resolve().parents[2]), "REPORTGEN_FIGURE_PROCESSES": "2"}
    proc = subprocess.Popen([sys.executable, "-c", WORKER_ORPHAN, str(demo_run.out / "metrics.json")], env=env,
                            stdout=subprocess.PIPE, text=True)
    try:
        workers = [int(p) for p in proc.stdout.readline().split()]
        assert workers
        for pid in workers:
            ignored = int(next(ln for ln in _status(pid).splitlines() if ln.startswith("SigIgn:")).split()[1], 16)
            assert ignored >> (signal.SIGINT - 1) & 1 and ignored >> (signal.SIGTERM - 1) & 1, _status(pid)
    finally:
        proc.kill()
        proc.wait()
        proc.stdout.close()
    deadline = time.monotonic() + 10
    while any(Path(f"/proc/{pid}").exists() and "State:\tZ" not in _status(pid) for pid in workers):
        assert time.monotonic() < deadline, "a figure worker outlived its killed parent"
        time.sleep(0.05)


def _status(pid: int) -> str:
    try:
        return Path(f"/proc/{pid}/status").read_text()
    except OSError:
        return "State:\tZ"


@pytest.mark.pdf
def test_pdf_svg_draws_the_same_pixels_without_style_attributes_or_uses(demo, tmp_path):
    """The PDF's form of a figure (:func:`figures.pdf_svg`: styles as attributes, the ``*`` rule
    on each element, marker ``<use>``s as paths, no zero-degree turns) draws the same page as the lean SVG at 50 and
    150 dpi, for figures with markers, scatter points, error bars and rotated text; what it
    cannot rewrite exactly it leaves as it is."""
    import base64
    import shutil
    import subprocess

    import weasyprint

    from reportgen.report import credit_figures, render

    col = figures.colours(list(demo.models))
    name, credit = next(iter(demo.credit.models.items()))
    drawn = (figures.roc_figure(demo), figures.threshold_figure(demo), figures.calibration_figure(demo),
             credit_figures.credit_figure(credit, col[name]))
    svgs = [figures.to_svg(f) for f in drawn]
    converted = [figures.pdf_svg(svg) for svg in svgs]
    for svg, pdf in zip(svgs, converted):
        assert "<use" in svg and "style=" in svg
        assert "<use" not in pdf and "style=" not in pdf and "<style" not in pdf
        assert pdf.count("<path") == figures.lean_svg(svg).count("<path") + figures.lean_svg(svg).count("<use")
        assert pdf.count("<text") == svg.count("<text")
        assert 'transform="rotate(-0 ' in svg and "rotate(-0 " not in pdf  # the identity turns go
    assert 'transform="rotate(-90 ' in converted[0]  # the y-axis label keeps its quarter turn
    for turn, identity in (("rotate(-0 51.2 195.8)", True), ("rotate(0)", True), ("rotate(-0.0, 1e-3, 2)", True),
                           ("rotate(-90 1 2)", False), ("rotate(0.5 1 2)", False), ("rotate(10)", False),
                           ("rotate()", False), ("rotate(-0 1 2) translate(3)", False)):
        one = f'<svg xmlns="http://www.w3.org/2000/svg"><text x="1" y="2" transform="{turn}">a</text></svg>'
        assert ("transform=" not in figures.pdf_svg(one)) is identity, turn
    odd = '<svg xmlns="http://www.w3.org/2000/svg"><path d="M 0 0" style="fill: red !important"/></svg>'
    assert figures.pdf_svg(odd) == figures.lean_svg(odd)  # an !important stays for WeasyPrint to parse
    if shutil.which("pdftoppm") is None:
        pytest.skip("pdftoppm not installed")

    def page(forms: list[str]) -> str:
        return "<html><body>" + "".join(
            f'<p><img style="width: 16cm" src="data:image/svg+xml;base64,{base64.b64encode(f.encode()).decode()}"></p>'
            for f in forms) + "</body></html>"

    for dpi in ("50", "150"):
        pixels = []
        for kind, forms in (("lean", [figures.lean_svg(s) for s in svgs]), ("pdf", converted)):
            pdf = tmp_path / f"{kind}.pdf"
            weasyprint.HTML(string=page(forms), url_fetcher=render._url_fetcher()).write_pdf(pdf)  # noqa: SLF001
            subprocess.run(["pdftoppm", "-png", "-r", dpi, str(pdf), str(tmp_path / f"{kind}{dpi}")], check=True)
            pixels.append([p.read_bytes() for p in sorted(tmp_path.glob(f"{kind}{dpi}-*.png"))])
        assert len(pixels[0]) >= 2 and pixels[0] == pixels[1], dpi


@pytest.mark.pdf
def test_the_pdf_draws_its_figures_as_images_with_the_same_pixels_text_and_alt(demo, tmp_path):
    """The PDF's page holds each figure as an ``<img>`` of its lean SVG (fewer HTML elements to
    parse and style): every page of the demo's PDF is pixel-identical at 50 dpi to the page with
    the figures inline, the text is the same, and each image's alt is its caption."""
    import re
    import shutil
    import subprocess

    import weasyprint

    from reportgen.report import render

    html = render.render_html(demo, for_pdf=True)
    page = figures.pdf_figures(html)
    inline = figures.lean_svgs(html)
    assert "<svg" not in page and page.count('class="figure-svg"') == html.count("<svg") > 5
    alts = re.findall(r'<img class="figure-svg" style="width: [0-9.]+pt" alt="([^"]*)"', page)
    assert alts and all(alts) and "ROC" in alts[1] + alts[0]
    assert figures.pdf_figures("<p><svg viewBox='0 0 1 1'></svg></p>") == "<p><svg viewBox='0 0 1 1'></svg></p>"
    if shutil.which("pdftoppm") is None or shutil.which("pdftotext") is None:
        pytest.skip("poppler-utils not installed")
    out = {}
    for name, body in (("inline", inline), ("image", page)):
        pdf = tmp_path / f"{name}.pdf"
        weasyprint.HTML(string=body, url_fetcher=render._url_fetcher(), base_url=None).write_pdf(pdf)  # noqa: SLF001
        subprocess.run(["pdftoppm", "-png", "-r", "50", str(pdf), str(tmp_path / name)], check=True)
        subprocess.run(["pdftotext", str(pdf), str(tmp_path / f"{name}.txt")], check=True)
        out[name] = ([p.read_bytes() for p in sorted(tmp_path.glob(f"{name}-*.png"))],
                     (tmp_path / f"{name}.txt").read_text(encoding="utf-8"))
    assert len(out["image"][0]) == len(out["inline"][0]) > 3
    assert out["image"] == out["inline"]


def test_young_collections_only_puts_off_full_collections_and_restores_the_thresholds():
    """Inside the block (nested too) no generation-2 collection starts on its own, young ones
    still do, an explicit ``gc.collect()`` still runs; the thresholds come back as they were."""
    import gc

    from reportgen.report import heap

    before = gc.get_threshold()
    seen: list[int] = []

    def note(phase, info):
        if phase == "start":
            seen.append(info["generation"])

    gc.callbacks.append(note)
    try:
        with heap.young_collections_only():
            with heap.young_collections_only():
                assert gc.get_threshold()[:2] == before[:2] and gc.get_threshold()[2] >= 2**30
                junk = [[i] for i in range(300_000)]  # enough survivors for several full collections
                del junk
            assert gc.get_threshold()[2] >= 2**30  # the outer block still holds
            assert 2 not in seen and 0 in seen
            gc.collect()
            assert seen[-1] == 2
    finally:
        gc.callbacks.remove(note)
    assert gc.get_threshold() == before
