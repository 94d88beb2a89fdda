"""The report's figures: each a new ``matplotlib.figure.Figure`` (never pyplot) of the report's
size, the public :mod:`reportgen.plot` functions drawing on its axes, and the report's legend
and layout. The drawing itself lives in :mod:`reportgen.plot` only, so the figures a notebook
draws with ``reportgen.plot.roc(result, ax=ax)`` are the report's.

Figures are drawn at the size they print (issue 17, item 8): a half-width figure of the
report's two-column grid is :data:`HALF_WIDTH` inches wide and a full-width one
:data:`FULL_WIDTH`, both within the A4 content box (182 mm = 7.17 in), so the PDF shows them at
scale 1 and no text is smaller than :data:`MIN_POINTS` (7 pt) on paper. Long model names
(more than :data:`KEY_AFTER` characters) are replaced in every figure by their keys M1, M2, …
(:func:`model_keys`), which the report's table of models spells out; legends sit below the
axes, never over the curves.

Matplotlib's warnings are handled here, around each figure (:func:`_matplotlib_notes`), not by
filters on the whole process: a glyph missing from DejaVu Sans is dropped (the SVG keeps text
as text, ``svg.fonttype: none``, so the browser or WeasyPrint draws it with a font that has
it: a model named in Chinese printed one warning per character and figure); any other
warning is logged once on this module's logger.
"""

from __future__ import annotations

import io
import logging
import math
import re
import textwrap
import warnings
from collections.abc import Callable, Collection, Iterator, Sequence
from contextlib import contextmanager
from typing import TYPE_CHECKING

import reportgen.plot as plot
from reportgen.plot import (
    DASHES,
    KEY_AFTER,
    MIN_POINTS,
    PALETTE,
    PREVALENCE_CRITERIA,
    colours,
    dashes,
    figure_names,
    model_keys,
    new_figure,
    safe_text,
    uses_keys,
)
from reportgen.report.credit_figures import KEY_PREFIX, panel_keys
from reportgen.report.formats import isolate, needs_isolation
from reportgen.report.reliability import reliability_of
from reportgen.results import ComparisonResult
from reportgen.section_results import CreditModel

if TYPE_CHECKING:
    from matplotlib.axes import Axes
    from matplotlib.figure import Figure
    from matplotlib.legend import Legend

log = logging.getLogger(__name__)

#: Width of a figure in the report's two-column grid (inches; 49 % of the A4 content box).
HALF_WIDTH = 3.4
#: Width of a full-width figure (inches; the A4 content box is 7.17 in).
FULL_WIDTH = 7.0
#: Height of one legend row below the axes (inches).
LEGEND_ROW = 0.15


def _legend_below(fig: Figure, ax: Axes, ncols: int = 1, where: str = "lower") -> Legend:
    """The legend of ``ax``'s labelled artists under the figure's axes (or above them:
    ``where="upper"``, for a figure whose bottom holds a shared axis label); constrained layout
    makes room, so it never covers a curve."""
    handles, labels = ax.get_legend_handles_labels()
    if where == "upper":
        return fig.legend(handles, labels, loc="outside upper center", ncols=ncols)
    return fig.legend(handles, labels, loc="outside lower center", ncols=ncols)


def _legend_height(entries: int, ncols: int = 1) -> float:
    """Inches a legend of ``entries`` rows in ``ncols`` columns takes below the axes."""
    return LEGEND_ROW * math.ceil(entries / ncols) + 0.1


_MISSING_GLYPH = re.compile(r"Glyph \d+ .*missing from (current )?font")


@contextmanager
def _matplotlib_notes() -> Iterator[None]:
    """Matplotlib's warnings in the block: missing glyphs dropped (see the module docstring),
    each other distinct message logged once as a reportgen warning."""
    with warnings.catch_warnings(record=True) as caught:
        warnings.simplefilter("always")
        yield
    for message in dict.fromkeys(str(w.message) for w in caught if not _MISSING_GLYPH.search(str(w.message))):
        log.warning("figure: %s", " ".join(message.splitlines()))


def to_svg(fig: Figure) -> str:
    """Serialise a figure to an inline SVG string (no XML header, deterministic ids)."""
    buf = io.StringIO()
    with plot.style(), _matplotlib_notes():
        fig.savefig(buf, format="svg", metadata={"Date": None, "Creator": None})
    svg = buf.getvalue()
    start = svg.find("<svg")
    return svg[start:]


_SVG_NS = "http://www.w3.org/2000/svg"
_XLINK_NS = "http://www.w3.org/1999/xlink"


def lean_svg(svg: str) -> str:
    """The same drawing in fewer nodes: matplotlib's ``<g id="…">`` wrappers (an id and nothing
    else: no style, transform or clip) replaced by their children, and its RDF metadata dropped.

    WeasyPrint cascades styles and draws node by node, so a figure's PDF time follows its node
    count; about 300 of a figure's 500 nodes are such groups, and the 9 figures of a binary
    report draw in about a quarter less time without them (pages rendered at 50 dpi are
    pixel-identical, ``tests/test_figures.py``). An SVG that does not parse is returned as is."""
    import xml.etree.ElementTree as ET  # noqa: PLC0415

    ET.register_namespace("", _SVG_NS)
    ET.register_namespace("xlink", _XLINK_NS)
    try:
        root = ET.fromstring(svg)
    except ET.ParseError:
        return svg
    group, metadata = f"{{{_SVG_NS}}}g", f"{{{_SVG_NS}}}metadata"

    def flatten(el: ET.Element) -> None:
        kept: list[ET.Element] = []
        for child in el:
            flatten(child)
            if child.tag == metadata:
                continue
            if child.tag == group and set(child.attrib) <= {"id"}:
                kept.extend(child)
            else:
                kept.append(child)
        el[:] = kept

    flatten(root)
    return ET.tostring(root, encoding="unicode")


_FIGURE_WITH_CAPTION = re.compile(r"(<svg\b.*?</svg>)(\s*<figcaption>(.*?)</figcaption>)?", re.DOTALL)
_SVG_WIDTH = re.compile(r'<svg\b[^>]*?\swidth="([0-9.]+pt)"')
_TAGS = re.compile(r"<[^>]*>")


def pdf_figures(html: str) -> str:
    """The PDF's page: each inline ``<svg>`` figure (matplotlib's, sized in pt) as an ``<img>`` of
    its :func:`lean_svg` (a ``data:`` URL, class ``figure-svg``, its drawn width, the caption
    that follows it as ``alt``); an SVG without a width in pt stays inline.

    WeasyPrint draws an inline SVG and an SVG image with the same code, but an inline SVG's
    nodes are also HTML elements: parsed by the HTML parser and given computed CSS styles,
    never used, like every other element of the page. A binary report's nine figures are
    about 2,300 of its 3,900 elements, and the page lays out in about a fifth less time as
    images; the pages are pixel-identical at 50 and 100 dpi (``tests/test_figures.py``). The
    stylesheet sizes ``figure img.figure-svg`` as it sizes ``figure svg``."""
    import base64  # noqa: PLC0415

    def image(m: re.Match) -> str:
        width = _SVG_WIDTH.match(m.group(1))
        if width is None:
            return m.group(0)
        data = base64.b64encode(lean_svg(m.group(1)).encode("utf-8")).decode("ascii")
        caption = m.group(2) or ""
        alt = _TAGS.sub("", m.group(3) or "").replace('"', "&quot;")
        return (
            f'<img class="figure-svg" style="width: {width.group(1)}" alt="{alt}" '
            f'src="data:image/svg+xml;base64,{data}">{caption}'
        )

    return _FIGURE_WITH_CAPTION.sub(image, html)


def _apply_style(fn):
    def wrapper(*args, **kwargs):
        with plot.style(), _matplotlib_notes():
            return fn(*args, **kwargs)

    wrapper.__name__ = fn.__name__
    wrapper.__doc__ = fn.__doc__
    return wrapper


def panels(fig: Figure, n: int, max_cols: int = 3) -> list[Axes]:
    """``n`` axes in rows of at most ``max_cols``, no empty slot: four make two rows of two, and
    a last row that is short is centred (each panel spans two columns of a grid twice as fine)."""
    cols = n if n <= max_cols else (2 if n == 4 else max_cols)
    rows = math.ceil(n / cols)
    grid = fig.add_gridspec(rows, 2 * cols)
    out = []
    for i in range(n):
        r, c = divmod(i, cols)
        shift = cols - (n - r * cols) if r == rows - 1 else 0  # half a panel per missing one
        out.append(fig.add_subplot(grid[r, 2 * c + shift : 2 * c + shift + 2]))
    return out


def panel_rows(n: int, max_cols: int = 3) -> int:
    """The rows :func:`panels` lays ``n`` panels out in."""
    cols = n if n <= max_cols else (2 if n == 4 else max_cols)
    return math.ceil(n / cols)


@_apply_style
def roc_figure(result: ComparisonResult, palette: Sequence[str] = PALETTE) -> Figure:
    """:func:`reportgen.plot.roc`, its legend below."""
    fig = new_figure(HALF_WIDTH, 3.0 + _legend_height(len(result.models) + 2))
    _legend_below(fig, plot.roc(result, ax=fig.add_subplot(), palette=palette, legend=False))
    return fig


@_apply_style
def pr_figure(result: ComparisonResult, palette: Sequence[str] = PALETTE) -> Figure:
    """:func:`reportgen.plot.precision_recall`, its legend below."""
    fig = new_figure(HALF_WIDTH, 3.0 + _legend_height(len(result.models) + 2))
    _legend_below(fig, plot.precision_recall(result, ax=fig.add_subplot(), palette=palette, legend=False))
    return fig


@_apply_style
def cost_figure(result: ComparisonResult, palette: Sequence[str] = PALETTE) -> Figure:
    """:func:`reportgen.plot.cost`, its legend below."""
    fig = new_figure(HALF_WIDTH, 3.0 + _legend_height(len(result.models) + 3))
    _legend_below(fig, plot.cost(result, ax=fig.add_subplot(), palette=palette, legend=False))
    return fig


#: Threshold metrics drawn against the threshold, one panel each (titled by their short label).
_PANEL = ("f1", "mcc", "cohen_kappa", "balanced_accuracy")


@_apply_style
def threshold_figure(result: ComparisonResult, palette: Sequence[str] = PALETTE) -> Figure:
    """:func:`reportgen.plot.threshold_metric` of F1, MCC, kappa and balanced accuracy, two by two."""
    ncols = 3
    fig = new_figure(FULL_WIDTH, 4.6 + _legend_height(len(result.models), ncols))
    axes = panels(fig, len(_PANEL))
    for ax, key in zip(axes, _PANEL):
        plot.threshold_metric(result, key, ax=ax, palette=palette, legend=False)
    _legend_below(fig, axes[0], ncols=min(ncols, len(result.models)))
    fig.suptitle(
        "Metrics across thresholds (▼ optimum; dotted vertical line: each model's decision threshold)", fontsize=9
    )
    return fig


def _per_model(result: ComparisonResult, draw, names: Sequence[str], height: float, palette: Sequence[str]) -> Figure:
    """One panel per model (``draw(result, name, ax=…, palette=…)``), three to a row, full width."""
    fig = new_figure(FULL_WIDTH, height * panel_rows(len(names)) + 0.3)
    for ax, name in zip(panels(fig, len(names)), names):
        draw(result, name, ax=ax, palette=palette)
    return fig


@_apply_style
def ks_figure(result: ComparisonResult, palette: Sequence[str] = PALETTE) -> Figure | None:
    """:func:`reportgen.plot.ks` of each model (with a KS curve), three to a row."""
    names = [n for n, m in result.models.items() if plot.curves_of(m).ks is not None]
    return _per_model(result, plot.ks, names, 2.4, palette) if names else None


@_apply_style
def gains_figure(result: ComparisonResult, palette: Sequence[str] = PALETTE) -> Figure:
    """:func:`reportgen.plot.gains`, its legend below."""
    fig = new_figure(HALF_WIDTH, 3.0 + _legend_height(len(result.models) + 2))
    _legend_below(fig, plot.gains(result, ax=fig.add_subplot(), palette=palette, legend=False))
    return fig


def _diagram_with_diagonal(
    result: ComparisonResult, models: list[str], draw: Callable[..., Axes], palette: Sequence[str]
) -> Figure | None:
    """A half-width reliability diagram drawn by ``draw`` (a :mod:`reportgen.plot` function), its
    legend below (one line per model and the diagonal's); None without ``models``."""
    if not models:
        return None
    fig = new_figure(HALF_WIDTH, 3.0 + _legend_height(len(models) + 1))
    _legend_below(fig, draw(result, ax=fig.add_subplot(), palette=palette, legend=False))
    return fig


@_apply_style
def calibration_figure(result: ComparisonResult, palette: Sequence[str] = PALETTE) -> Figure | None:
    """:func:`reportgen.plot.calibration` of the models with a reliability curve: probabilities or
    a PD column (None if none)."""
    models = [n for n in result.models if reliability_of(result, n)[0] is not None]
    return _diagram_with_diagonal(result, models, plot.calibration, palette)


@_apply_style
def class_calibration_figure(result: ComparisonResult, palette: Sequence[str] = PALETTE) -> Figure | None:
    """:func:`reportgen.plot.top_label_calibration` of the multiclass models with its bins (None if none)."""
    models = [
        n for n, m in result.models.items() if m.class_probabilities is not None and m.class_probabilities.counts.size
    ]
    return _diagram_with_diagonal(result, models, plot.top_label_calibration, palette)


@_apply_style
def calibration_intervals_figure(result: ComparisonResult, palette: Sequence[str] = PALETTE) -> Figure | None:
    """:func:`reportgen.plot.calibration_intervals` of the models with a ``calibration:`` (None if none)."""
    models = [n for n, m in result.models.items() if m.calibration is not None]
    return _diagram_with_diagonal(result, models, plot.calibration_intervals, palette)


@_apply_style
def distribution_figure(result: ComparisonResult, palette: Sequence[str] = PALETTE) -> Figure | None:
    """:func:`reportgen.plot.score_distribution` of each model (with a histogram), three to a row."""
    names = [n for n, m in result.models.items() if plot.curves_of(m).histogram is not None]
    return _per_model(result, plot.score_distribution, names, 2.3, palette) if names else None


@_apply_style
def forest_figure(result: ComparisonResult, palette: Sequence[str] = PALETTE) -> Figure | None:
    """:func:`reportgen.plot.forest` (None without comparisons)."""
    if not result.comparisons:
        return None
    fig = new_figure(FULL_WIDTH * 0.8, 0.4 * len(result.comparisons) + 1.1)
    plot.forest(result, ax=fig.add_subplot(), palette=palette)
    return fig


@_apply_style
def prevalence_figure(result: ComparisonResult, palette: Sequence[str] = PALETTE) -> Figure | None:
    """:func:`reportgen.plot.prevalence_thresholds` of each model with two or more scenarios,
    three to a row (panels: models may score on different scales, points vs probabilities)."""
    names = [n for n, m in result.models.items() if len(m.prevalence_shift) >= 2]
    if not names:
        return None
    crits = len(PREVALENCE_CRITERIA)
    fig = new_figure(FULL_WIDTH, 2.5 * panel_rows(len(names)) + 0.5 + _legend_height(crits, crits))
    axes = panels(fig, len(names))
    for ax, name in zip(axes, names):
        plot.prevalence_thresholds(result, name, ax=ax, palette=palette, legend=False)
    _legend_below(fig, axes[0], ncols=crits)
    return fig


@_apply_style
def trend_figure(result: ComparisonResult, palette: Sequence[str] = PALETTE) -> Figure | None:
    """:func:`reportgen.plot.trend` of the primary metric, once two runs are recorded (None before)."""
    metric = result.run.primary_metric
    points = [p for p in result.trend if p.kind == "model" and p.metric == metric]
    if len({(p.created, p.run_id) for p in points}) < 2:
        return None
    subjects = len({p.subject for p in points})
    fig = new_figure(FULL_WIDTH * 0.8, 2.6 + _legend_height(subjects, 3))
    _legend_below(fig, plot.trend(result, ax=fig.add_subplot(), palette=palette, legend=False), ncols=min(3, subjects))
    return fig


#: Most per-class panels drawn; with more classes only the micro-average panel is kept.
MAX_CLASS_PANELS = 20
#: Panels per figure (3 × 3): a figure of more would be taller than the page and printed shrunk.
PANELS_PER_FIGURE = 9


#: Characters of a class panel's title line (a third of the figure's width at 8 pt bold).
PANEL_TITLE_CHARS = 30


def panel_title(label: str) -> str:
    """A class panel's title, "LABEL vs rest", on at most two lines of :data:`PANEL_TITLE_CHARS`
    (cut with "…" past them): a 60-character label ran over the next panel's title and past the
    figure's edge. A right-to-left label is isolated, so "vs rest" stays after it."""
    lines = textwrap.wrap(f"{label} vs rest", PANEL_TITLE_CHARS, break_on_hyphens=False)
    if len(lines) > 2:
        lines = [lines[0], lines[1][: PANEL_TITLE_CHARS - 1] + "…"]
    text = "\n".join(lines)
    return text.replace(label, isolate(label)) if needs_isolation(label) and label in text else text


def _class_panels(result: ComparisonResult, kind: str, palette: Sequence[str], part: int = 0) -> Figure | None:
    """Small multiples, one panel per class (:func:`reportgen.plot.class_roc` or
    :func:`~reportgen.plot.class_precision_recall`), the models overlaid in their colours;
    ``part``: which run of :data:`PANELS_PER_FIGURE` panels (None past the last)."""
    curves = [n for n, m in result.models.items() if m.multiclass_curves is not None]
    if not curves:
        return None
    labels = list(result.run.classes or [])
    if len(labels) > MAX_CLASS_PANELS:
        labels = []
    shown: list[str | None] = list(labels) + ([None] if kind == "roc" else [])
    shown = shown[part * PANELS_PER_FIGURE : (part + 1) * PANELS_PER_FIGURE]
    if not shown:
        return None
    ncols = 4
    legend = _legend_height(len(curves), ncols) if kind != "roc" else 0
    fig = new_figure(FULL_WIDTH, 2.35 * panel_rows(len(shown)) + 0.3 + legend)
    axes = panels(fig, len(shown))
    for ax, label in zip(axes, shown):
        if kind == "roc":  # the curves keep to the upper left; the AUCs sit in the lower right
            plot.class_roc(result, label, ax=ax, palette=palette)
        else:
            assert label is not None  # the micro-average panel is the ROC figure's
            plot.class_precision_recall(result, label, ax=ax, palette=palette, legend=False)
        title = "micro-average (all classes pooled)" if label is None else panel_title(label)
        ax.set_title(safe_text(title), fontsize=8)
        ax.set(xlabel="", ylabel="")
        ax.tick_params(labelsize=MIN_POINTS)
    if kind != "roc":
        _legend_below(fig, axes[0], ncols=min(ncols, len(curves)), where="upper")
    xl, yl = ("false positive rate", "true positive rate") if kind == "roc" else ("recall", "precision")
    fig.supxlabel(xl, fontsize=8)
    fig.supylabel(yl, fontsize=8)
    return fig


@_apply_style
def class_roc_figure(result: ComparisonResult, palette: Sequence[str] = PALETTE, part: int = 0) -> Figure | None:
    """One-vs-rest ROC curve of every class, one panel per class, plus the micro-average."""
    return _class_panels(result, "roc", palette, part)


@_apply_style
def class_pr_figure(result: ComparisonResult, palette: Sequence[str] = PALETTE, part: int = 0) -> Figure | None:
    """One-vs-rest precision–recall curve of every class, one panel per class."""
    return _class_panels(result, "pr", palette, part)


def _parts(fn):
    """Every part of a paged small-multiples figure: ``fn(result, palette, part)`` until None."""

    def all_parts(result: ComparisonResult, palette: Sequence[str] = PALETTE) -> list[Figure]:
        out: list[Figure] = []
        while (fig := fn(result, palette, len(out))) is not None:
            out.append(fig)
        return out

    all_parts.__name__ = fn.__name__ + "_parts"
    return all_parts


#: The figures of a multiclass report (the binary ones need score curves of one positive class).
MULTICLASS_FIGURES = {
    "forest": forest_figure,
    "class_calibration": class_calibration_figure,
    "class_roc": _parts(class_roc_figure),
    "class_pr": _parts(class_pr_figure),
}

FIGURES = {
    "forest": forest_figure,
    "roc": roc_figure,
    "pr": pr_figure,
    "cost": cost_figure,
    "thresholds": threshold_figure,
    "ks": ks_figure,
    "gains": gains_figure,
    "calibration": calibration_figure,
    "calibration_intervals": calibration_intervals_figure,
    "distributions": distribution_figure,
    "prevalence": prevalence_figure,
}


#: The sections that show each figure of :data:`FIGURES`, :data:`MULTICLASS_FIGURES` and the
#: trend (``brief``: the sign-off brief); the credit and segments sections' figures are theirs.
FIGURE_SECTIONS: dict[str, tuple[str, ...]] = {
    "forest": ("comparison", "brief"),
    "roc": ("curves", "brief"),
    "pr": ("curves",),
    "cost": ("curves",),
    "thresholds": ("curves",),
    "ks": ("curves",),
    "gains": ("curves",),
    "calibration": ("curves",),
    "calibration_intervals": ("calibration",),
    "distributions": ("curves",),
    "prevalence": ("curves",),
    "class_calibration": ("calibration",),
    "class_roc": ("curves", "brief"),
    "class_pr": ("curves",),
    "trend": ("trend",),
}


def render_figures(
    result: ComparisonResult, palette: Sequence[str] = PALETTE, sections: Collection[str] | None = None
) -> dict[str, str]:
    """Every applicable figure of ``sections`` (:data:`FIGURE_SECTIONS`; None: of every section)
    as inline SVG, keyed by name, drawn here one after another; a figure in parts (the per-class
    panels of many classes) as ``key``, ``key_2``, ``key_3``, …; then the trend (``trend``), the
    credit section's (``credit:MODEL``, :func:`credit_figure_table`) and the segments section's
    (``segments:COLUMN``, :func:`segment_figure_table`), those two in the report's reading order.
    A report draws those of the sections it shows: a figure takes up to seconds."""

    def shown(*where: str) -> bool:
        return sections is None or any(s in sections for s in where)

    of_task = {**(FIGURES if result.run.task == "binary" else MULTICLASS_FIGURES), "trend": trend_figure}
    table = {key: fn for key, fn in of_task.items() if shown(*FIGURE_SECTIONS[key])}
    if shown("credit"):
        table.update(credit_figure_table(result))
    if shown("segments"):
        table.update(segment_figure_table(result))
    out: dict[str, str] = {}
    for key, fn in table.items():
        drawn = fn(result, palette)
        parts = [p for p in (drawn if isinstance(drawn, list) else [drawn]) if p is not None]
        for j, part in enumerate(parts):
            out[key if j == 0 else f"{key}_{j + 1}"] = to_svg(part)
    return out


def model_colours(result: ComparisonResult, palette: Sequence[str] = PALETTE) -> dict[str, str]:
    return colours(list(result.models), palette)


__all__ = [
    "DASHES",
    "FIGURES",
    "FIGURE_SECTIONS",
    "FULL_WIDTH",
    "HALF_WIDTH",
    "KEY_AFTER",
    "MIN_POINTS",
    "MULTICLASS_FIGURES",
    "PALETTE",
    "PREVALENCE_CRITERIA",
    "colours",
    "dashes",
    "figure_names",
    "lean_svg",
    "model_colours",
    "model_keys",
    "new_figure",
    "panels",
    "pdf_figures",
    "render_figures",
    "safe_text",
    "to_svg",
    "uses_keys",
]


def credit_figure(m: CreditModel, colour: str) -> Figure | None:
    """The credit section's figure of a model: its panels (:func:`~reportgen.report.credit_figures.panel_keys`,
    :data:`reportgen.plot.CREDIT_PANELS`), two to a row at half width each (a third centred below),
    so the figure prints at its drawn size; or None."""
    keys = panel_keys(m)
    if not keys:
        return None
    with plot.style(), _matplotlib_notes():
        fig = plot.new_figure(HALF_WIDTH * min(2, len(keys)) + 0.2, 2.7 * panel_rows(len(keys), 2) + 0.2)
        for ax, key in zip(panels(fig, len(keys), 2), keys, strict=True):
            plot.CREDIT_PANELS[key](ax, m, colour)
        fig.suptitle(isolate(plot.safe_text(m.model)), fontsize=9, fontweight="bold")
    return fig


#: Key prefix of the segments section's figures (``segments:COLUMN``).
SEGMENT_PREFIX = "segments:"


def segment_figure_table(result: ComparisonResult) -> dict[str, Callable[..., Figure | None]]:
    """``segments:COLUMN → fn(result, palette)`` drawing :func:`reportgen.plot.segment_forest`."""
    if result.segments is None or len(result.models) < 2:
        return {}

    def draw(column: str, values: int) -> Callable[..., Figure | None]:
        @_apply_style
        def fn(result: ComparisonResult, palette: Sequence[str] = PALETTE) -> Figure:
            fig = new_figure(FULL_WIDTH * 0.8, 0.42 * values + 1.2 + _legend_height(1))
            ax = plot.segment_forest(result, column, ax=fig.add_subplot(), palette=palette, legend=False)
            _legend_below(fig, ax, ncols=max(len(result.models) - 1, 1))
            return fig

        return fn

    return {f"{SEGMENT_PREFIX}{c.column}": draw(c.column, len(c.values)) for c in result.segments.columns}


def credit_figure_table(result: ComparisonResult) -> dict[str, Callable[..., Figure | None]]:
    """``credit:NAME → fn(result, palette)`` drawing the model's :func:`credit_figure` in its
    colour (keys prefixed :data:`~reportgen.report.credit_figures.KEY_PREFIX`)."""
    if result.credit is None:
        return {}

    def draw(m: CreditModel) -> Callable[..., Figure | None]:
        def fn(result: ComparisonResult, palette: Sequence[str] = PALETTE) -> Figure | None:
            return credit_figure(m, plot.colours(list(result.models), palette).get(m.model, plot.MUTED))

        return fn

    return {f"{KEY_PREFIX}{name}": draw(m) for name, m in result.credit.models.items()}
