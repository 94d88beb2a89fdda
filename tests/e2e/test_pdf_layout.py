"""The PDF survives real content: 60-character model names, 12 classes, nothing off the page.

Bank-style model names (``PD_retail_gbm_challenger_v1.0_monotone_2024Q3``, and longer) used to
push the ranking, comparison and metrics tables past the right margin and made the figure
legends cover the curves; figure text printed at 4–5.5 pt (issue 17, item 8). These tests
render the whole PDF of a binary run (five models) and a multiclass run (12 classes, four
models), every name 60 characters long, and read back every character's box with pdfminer
(``pdfminer.six``, a test extra): each must lie inside the page's content box horizontally
(the @page margins of ``templates/report.css``: 14 mm left and right) and on the page, and
figure text — text drawn inside an SVG figure — must print at 7 pt or more.

``python tests/e2e/test_pdf_layout.py OUT`` writes both runs' reports to ``OUT`` for a look.
"""

from __future__ import annotations

import sys
from dataclasses import dataclass
from pathlib import Path

import numpy as np
import pandas as pd
import pytest
import yaml

pytestmark = [pytest.mark.slow]

MM = 72 / 25.4
#: The horizontal page margin of ``@page`` in report.css (14 mm), in PDF points.
SIDE_MARGIN = 14 * MM
#: The smallest text size allowed at print size (points), figures included.
MIN_POINTS = 7.0
#: Slack for glyph boxes that touch the margin (side bearings, rounding): 0.5 pt.
SLACK = 0.5


def long_name(i: int, stem: str = "PD_retail_gbm_challenger_v1.0_monotone_2024Q3") -> str:
    """A 60-character model name without spaces, as banks name their models."""
    name = f"{stem}_candidate_{i:02d}"
    return (name + "_x" * 30)[:60]


def binary_config(d: Path, n_models: int = 5, rows: int = 600) -> Path:
    """A binary run: ``n_models`` noisy scores of one label, every name 60 characters."""
    rng = np.random.default_rng(17)
    y = (rng.random(rows) < 0.2).astype(int)
    frame = {"id": np.arange(rows), "y": y}
    for i in range(n_models):
        frame[f"s{i}"] = np.clip(0.2 + (0.15 + 0.05 * i) * (y - 0.2) + rng.normal(0, 0.15, rows), 0.001, 0.999)
    pd.DataFrame(frame).to_csv(d / "scores.csv", index=False)
    names = [long_name(i) for i in range(n_models)]
    cfg = {
        "title": "Long names: " + names[0],
        "task": "binary",
        "label": "y",
        "positive": 1,
        "id": "id",
        "threshold": 0.3,
        "costs": {"fn": 5, "fp": 1},
        "baseline": names[0],
        "primary_metric": "gini",
        "prevalences": [0.1, 0.2, 0.3],
        "bootstrap": {"resamples": 20, "seed": 1},
        "models": [{"name": n, "file": "scores.csv", "score": f"s{i}"} for i, n in enumerate(names)],
        "output": {"dir": "out", "formats": ["html", "pdf"], "overwrite": True},
    }
    path = d / "binary.yaml"
    path.write_text(yaml.safe_dump(cfg, sort_keys=False), encoding="utf-8")
    return path


def multiclass_config(d: Path, n_models: int = 4, k: int = 12, rows: int = 1200) -> Path:
    """A multiclass run with ``k`` classes (long labels too), probabilities, one predicted-label model."""
    rng = np.random.default_rng(23)
    classes = [f"stage_{j:02d}_{'delinquent' if j % 2 else 'performing'}" for j in range(k)]
    y = rng.integers(0, k, rows)
    frame: dict[str, object] = {"id": np.arange(rows), "y": [classes[j] for j in y]}
    models = []
    names = [long_name(i, "MC_stage_transition_xgb_v2.3_calibrated_2025Q1") for i in range(n_models)]
    for i, name in enumerate(names):
        if i == n_models - 1:  # a predicted label only
            pred = np.where(rng.random(rows) < 0.5, y, rng.integers(0, k, rows))
            frame[f"m{i}_pred"] = [classes[j] for j in pred]
            models.append({"name": name, "file": "scores.csv", "prediction": f"m{i}_pred"})
            continue
        logits = rng.normal(0, 1, (rows, k))
        logits[np.arange(rows), y] += 1.0 + 0.5 * i
        p = np.exp(logits) / np.exp(logits).sum(axis=1, keepdims=True)
        for j in range(len(classes)):
            frame[f"m{i}_{j}"] = p[:, j]
        models.append(
            {"name": name, "file": "scores.csv", "scores": [f"m{i}_{j}" for j in range(k)], "probabilities": True}
        )
    pd.DataFrame(frame).to_csv(d / "scores.csv", index=False)
    cost = [[0 if a == b else 1 + abs(a - b) for b in range(k)] for a in range(k)]
    cfg = {
        "title": "Twelve classes, long names",
        "task": "multiclass",
        "label": "y",
        "classes": classes,
        "id": "id",
        "costs": cost,
        "baseline": names[0],
        "primary_metric": "f1_macro",
        "bootstrap": {"resamples": 20, "seed": 1},
        "models": models,
        "output": {"dir": "out", "formats": ["html", "pdf"], "overwrite": True},
    }
    path = d / "multiclass.yaml"
    path.write_text(yaml.safe_dump(cfg, sort_keys=False), encoding="utf-8")
    return path


@dataclass(frozen=True)
class Glyph:
    page: int
    text: str
    x0: float
    x1: float
    y0: float
    y1: float
    size: float
    in_figure: bool


def glyphs(pdf: Path, only: set[int] | None = None) -> tuple[list[Glyph], list[tuple[float, float]]]:
    """Every character of the PDF with its box and printed size, and each page's (width, height).

    ``only``: the (0-based) pages to read, for a test that checks a few pages of a long report
    (reading a page costs about a quarter of a second); the others' sizes are listed all the same.

    ``in_figure``: the character is inside a PDF form XObject (pdfminer's ``LTFigure``); WeasyPrint
    draws a figure's labels into the page itself, so :func:`figure_labels` tells them instead.
    The pages are read without layout analysis (``laparams=None``: no grouping into lines and
    boxes, which the characters' boxes do not need; the same characters in a third less time).
    """
    from pdfminer.converter import PDFPageAggregator
    from pdfminer.layout import LTChar, LTFigure
    from pdfminer.pdfinterp import PDFPageInterpreter, PDFResourceManager
    from pdfminer.pdfpage import PDFPage

    out: list[Glyph] = []
    pages: list[tuple[float, float]] = []

    def walk(obj, page: int, in_figure: bool) -> None:
        if isinstance(obj, LTChar):
            if obj.get_text().strip():
                # the printed size: the font size × the text matrix's scale, which is the box's
                # height for upright text and its width for text turned by 90° (axis labels)
                a, _b, _c, d = obj.matrix[:4]
                if obj.upright:
                    size = obj.size
                elif abs(a) < 1e-6 and abs(d) < 1e-6:
                    size = obj.width
                else:
                    raise AssertionError(f"page {page + 1}: text at an angle the test does not measure: {obj!r}")
                out.append(Glyph(page, obj.get_text(), obj.x0, obj.x1, obj.y0, obj.y1, size, in_figure))
            return
        if hasattr(obj, "__iter__"):
            for child in obj:
                walk(child, page, in_figure or isinstance(child, LTFigure))

    resources = PDFResourceManager()
    device = PDFPageAggregator(resources, laparams=None)
    interpreter = PDFPageInterpreter(resources, device)
    with open(pdf, "rb") as f:
        for i, page in enumerate(PDFPage.get_pages(f)):
            if only is not None and i not in only:
                x0, y0, x1, y1 = page.mediabox
                pages.append((x1 - x0, y1 - y0))
                continue
            interpreter.process_page(page)
            layout = device.get_result()
            pages.append((layout.width, layout.height))
            walk(layout, i, False)
    return out, pages


def off_page(found: list[Glyph], pages: list[tuple[float, float]]) -> list[str]:
    """Characters outside the content box horizontally, or off the page vertically."""
    bad = []
    for g in found:
        w, h = pages[g.page]
        if g.x0 < SIDE_MARGIN - SLACK or g.x1 > w - SIDE_MARGIN + SLACK or g.y0 < -SLACK or g.y1 > h + SLACK:
            bad.append(
                f"page {g.page + 1}: {g.text!r} at x {g.x0:.1f}–{g.x1:.1f} (content box "
                f"{SIDE_MARGIN:.1f}–{w - SIDE_MARGIN:.1f}), y {g.y0:.1f}–{g.y1:.1f} of {h:.1f}"
            )
    return bad


def small_text(found: list[Glyph]) -> list[str]:
    """Characters printed below :data:`MIN_POINTS`."""
    return [
        f"page {g.page + 1}: {g.text!r} at {g.size:.2f} pt{' (figure)' if g.in_figure else ''}"
        for g in found
        if g.size < MIN_POINTS - 0.01
    ]


def render(config: Path, out: Path) -> Path:
    from reportgen.cli import main

    assert main(["run", str(config), "--out", str(out), "--quiet", "--now", "2026-01-01T00:00:00Z"]) == 0
    return out / "report.pdf"


@pytest.fixture(scope="module", params=["binary", "multiclass"])
def long_pdf(request, tmp_path_factory):
    import pdfminer  # noqa: F401 - a test dependency: missing, the test fails

    d = tmp_path_factory.mktemp(request.param)
    config = binary_config(d) if request.param == "binary" else multiclass_config(d)
    pdf = render(config, d / "out")
    return request.param, glyphs(pdf), figure_labels((d / "out" / "report.html").read_text(encoding="utf-8"))


def figure_labels(html: str) -> list[str]:
    """The text of each unturned label of the report's SVG figures, whitespace removed (pdfminer
    reads a turned label one character per line, and whitespace as layout, not characters)."""
    import html as markup
    import re

    out = []
    for attrs, text in re.findall(r"<text\b([^>]*)>([^<]+)</text>", html):
        turn = re.search(r"rotate\(\s*([-+0-9.eE]+)", attrs)
        if turn is None or float(turn.group(1)) == 0:
            out.append(re.sub(r"\s+", "", markup.unescape(text)))
    return out


@pytest.mark.pdf
def test_no_text_leaves_the_content_box_with_60_character_names(long_pdf):
    task, (found, pages), _ = long_pdf
    assert len(found) > 5000 and len(pages) > 5, (task, len(found), len(pages))
    # the names are in the PDF (so the check saw them), if wrapped: their last characters are there
    text = "".join(g.text for g in found)
    assert "candidate_00" in text and "candidate_03" in text
    bad = off_page(found, pages)
    assert not bad, f"{task}: {len(bad)} characters outside the content box, e.g.\n" + "\n".join(bad[:15])


@pytest.mark.pdf
def test_all_text_prints_at_7_points_or_more(long_pdf):
    task, (found, _), labels = long_pdf
    # the figures' text is text (so the sizes below include it): every label of the figures is
    # in the PDF's text, in order
    text = "".join(g.text for g in found)
    long_labels = [label for label in labels if len(label) >= 6]
    assert len(long_labels) > 20 and sum(map(len, labels)) > 200, f"{task}: too few figure labels"
    missing = [label for label in long_labels if label not in text]
    assert not missing, f"{task}: figure labels not found as text: {missing[:10]}"
    bad = small_text(found)
    assert not bad, f"{task}: {len(bad)} characters below {MIN_POINTS} pt, e.g.\n" + "\n".join(bad[:15])


def test_the_checks_catch_text_off_the_page_and_small_text():
    """The checks can fail: a glyph past the right margin and one at 5 pt are reported."""
    pages = [(595.0, 842.0)]
    inside = Glyph(0, "a", 50, 55, 100, 108, 8.0, False)
    past = Glyph(0, "b", 590, 596, 100, 108, 8.0, False)
    tiny = Glyph(0, "c", 50, 53, 100, 105, 5.0, True)
    assert off_page([inside, tiny], pages) == []
    assert len(off_page([past], pages)) == 1
    assert small_text([inside, past]) == [] and len(small_text([tiny])) == 1


if __name__ == "__main__":  # python tests/e2e/test_pdf_layout.py OUT: both runs, for a look
    root = Path(sys.argv[1]).resolve()
    for task, make in (("binary", binary_config), ("multiclass", multiclass_config)):
        d = root / task
        d.mkdir(parents=True, exist_ok=True)
        pdf = render(make(d), d / "out")
        found, pages = glyphs(pdf)
        bad, small = off_page(found, pages), small_text(found)
        print(
            f"{task}: {len(pages)} pages, {len(found)} characters, {len(bad)} off the content box, "
            f"{len(small)} below {MIN_POINTS} pt"
        )
        for line in bad[:10] + small[:10]:
            print("  ", line)
