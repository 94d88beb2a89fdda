"""Figures as functions of results: each returns a ``matplotlib.figure.Figure`` (never pyplot).

No figure computes a metric: every number drawn comes from the :class:`ComparisonResult`.
One style for all, the Okabe–Ito colour-blind-safe palette, and each model keeps its colour
in every figure. Text from the data (model names) is escaped so that ``$`` and backslashes
print literally instead of triggering mathtext.

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
from collections.abc import Iterator, Sequence
from contextlib import contextmanager
from typing import TYPE_CHECKING, Any

# No matplotlib.use(): figures are Figure objects drawn by their own canvas (savefig picks the
# SVG backend), so importing this module leaves a notebook's backend and pyplot state alone.
import matplotlib
import numpy as np
from matplotlib.figure import Figure

import reportgen.catalog as catalog
from reportgen.catalog import short_label
from reportgen.report.formats import fmt_metric, isolate, needs_isolation
from reportgen.results import ComparisonResult, Curves, ModelResult

if TYPE_CHECKING:
    from matplotlib.typing import RcKeyType

log = logging.getLogger(__name__)

#: Okabe & Ito (2008) colour-blind-safe palette, black last, then four dark colours none of them
#: resembles (Tol's wine, olive and indigo, and a brown): with eight colours a ninth model took the
#: first model's blue, and twelve models drew four pairs of look-alike curves.
PALETTE = (
    "#0072B2",
    "#E69F00",
    "#009E73",
    "#D55E00",
    "#CC79A7",
    "#56B4E9",
    "#F0E442",
    "#000000",
    "#882255",
    "#999933",
    "#332288",
    "#8C510A",
)
#: The line of a model, by how many times the palette has gone round before it: more models than
#: colours (40 models, or a theme's short palette) share a colour, never a colour and a line.
DASHES = ("-", "--", ":", "-.")
GRID = "#d9d9d9"
MUTED = "#7f7f7f"

#: The smallest text drawn (points at print size: figures are drawn at the size they print).
MIN_POINTS = 7.0
#: Width of a figure in the report's two-column grid (inches; 49 % of the A4 content box).
HALF_WIDTH = 3.4
#: Width of a full-width figure (inches; the A4 content box is 7.17 in).
FULL_WIDTH = 7.0
#: Names longer than this are shown in figures by their key (M1, M2, …).
KEY_AFTER = 20
#: Height of one legend row below the axes (inches).
LEGEND_ROW = 0.15

STYLE: dict[RcKeyType, Any] = {
    "font.family": "DejaVu Sans",
    "font.size": 8,
    "axes.titlesize": 8.5,
    "axes.titleweight": "bold",
    "axes.labelsize": 8,
    "xtick.labelsize": 7.5,
    "ytick.labelsize": 7.5,
    "axes.spines.top": False,
    "axes.spines.right": False,
    "axes.grid": True,
    "grid.color": GRID,
    "grid.linewidth": 0.6,
    "legend.fontsize": 7.5,
    "legend.title_fontsize": 7.5,
    "legend.frameon": False,
    "lines.linewidth": 1.6,
    "svg.fonttype": "none",
    # drop path vertices that move a line by less than half a pixel (1/100 inch): invisible on
    # screen and paper, and it halves the SVG of a jagged small-sample curve, which WeasyPrint
    # then lays out in about a second less
    "path.simplify_threshold": 0.5,
    "svg.hashsalt": "reportgen",
}


def safe_text(text: str) -> str:
    """Escape matplotlib mathtext so that data prints literally.

    Matplotlib parses text as math only when it has an even, non-zero number of unescaped
    ``$``; escaping every ``$`` makes that count zero, and for non-math text matplotlib then
    turns each ``\\$`` back into ``$`` and leaves every other backslash alone. So a name such
    as ``$x^2$ \\alpha`` (or one that already contains ``\\$``) is drawn exactly as written.
    """
    return text.replace("$", r"\$")


def colours(names: Sequence[str], palette: Sequence[str] = PALETTE) -> dict[str, str]:
    """One colour per model, by position, stable across figures."""
    return {n: palette[i % len(palette)] for i, n in enumerate(names)}


def dashes(names: Sequence[str], palette: Sequence[str] = PALETTE) -> dict[str, str]:
    """Each model's line style: solid for the palette's first round, then dashed, dotted and
    dash-dotted, so that models that share a colour (:func:`colours`) differ in every legend."""
    return {n: DASHES[(i // len(palette)) % len(DASHES)] for i, n in enumerate(names)}


def uses_keys(names: Sequence[str]) -> bool:
    """Whether figures show the models by key: some name is longer than :data:`KEY_AFTER`."""
    return any(len(n) > KEY_AFTER for n in names)


def model_keys(names: Sequence[str]) -> dict[str, str]:
    """Each model's key, by position: M1, M2, … (the report's table of models spells them out)."""
    return {n: f"M{i + 1}" for i, n in enumerate(names)}


def figure_names(names: Sequence[str]) -> dict[str, str]:
    """How figures name each model: its name when every name is short, otherwise its key.

    All or none: a legend mixing names and keys would make the reader wonder which is which.
    """
    keys = model_keys(names)
    return {n: keys[n] if uses_keys(names) else isolate(safe_text(n)) for n in names}


def _legend_below(fig: Figure, ncols: int = 1, where: str = "lower", **kwargs) -> None:
    """The figure's legend under the axes (or above them: ``where="upper"``, for a figure whose
    bottom holds a shared axis label); constrained layout makes room, so it never covers a curve."""
    fig.legend(loc="outside upper center" if where == "upper" else "outside lower center", ncols=ncols, **kwargs)


def _legend_height(entries: int, ncols: int = 1) -> float:
    """Inches a legend of ``entries`` rows in ``ncols`` columns takes below the axes."""
    return LEGEND_ROW * math.ceil(entries / ncols) + 0.1


def _curves(m: ModelResult) -> Curves:
    """A binary model's curves: every binary model has them (its scores are required)."""
    if m.curves is None:
        raise ValueError("a binary report's figures need every model's curves")
    return m.curves


def _prevalence(m: ModelResult) -> float:
    """A binary model's share of positives (weighted): the baseline of its PR and gains figures."""
    if m.positives is None or m.negatives is None:
        raise ValueError("a binary report's figures need every model's positives and negatives")
    return m.positives / (m.positives + m.negatives)


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


def new_figure(width: float, height: float) -> Figure:
    """A report figure: ``width`` × ``height`` inches, constrained layout, the report's style."""
    with matplotlib.rc_context(STYLE):
        fig = Figure(figsize=(width, height), dpi=100, layout="constrained")
    return fig


def to_svg(fig: Figure) -> str:
    """Serialise a figure to an inline SVG string (no XML header, deterministic ids)."""
    buf = io.StringIO()
    with matplotlib.rc_context(STYLE), _matplotlib_notes():
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
        with matplotlib.rc_context(STYLE), _matplotlib_notes():
            return fn(*args, **kwargs)

    wrapper.__name__ = fn.__name__
    wrapper.__doc__ = fn.__doc__
    return wrapper


@_apply_style
def roc_figure(result: ComparisonResult, palette: Sequence[str] = PALETTE) -> Figure:
    """Overlaid ROC curves, chance diagonal, operating point at the decision threshold."""
    fig = new_figure(HALF_WIDTH, 3.0 + _legend_height(len(result.models) + 2))
    ax = fig.add_subplot()
    col = colours(list(result.models), palette)
    dash = dashes(list(result.models), palette)
    shown = figure_names(list(result.models))
    ax.plot([0, 1], [0, 1], ls="--", color=MUTED, lw=0.9, label="chance (AUC 0.5)")
    for name, m in result.models.items():
        c = _curves(m).roc
        label = (
            f"{shown[name]}: AUC {fmt_metric(m.metrics['roc_auc'], 'roc_auc')}, "
            f"Gini {fmt_metric(m.metrics['gini'], 'gini')}"
        )
        ax.plot(c.x, c.y, color=col[name], ls=dash[name], label=label, drawstyle="default")
        if m.confusion is not None and m.negatives and m.positives:
            fx = m.confusion.fp / m.negatives
            ty = m.confusion.tp / m.positives
            ax.plot([fx], [ty], marker="o", ms=5.5, mfc="white", mec=col[name], mew=1.6, ls="none")
    ax.plot(
        [],
        [],
        marker="o",
        ms=5.5,
        mfc="white",
        mec="black",
        ls="none",
        label="operating point at the decision threshold",
    )
    ax.set(
        xlim=(0, 1),
        ylim=(0, 1.01),
        xlabel="False positive rate (1 − specificity)",
        ylabel="True positive rate (recall)",
        title="ROC curves",
    )
    ax.set_aspect("equal")
    _legend_below(fig)
    return fig


#: The precision at which the PR figure labels its iso-F1 lines (near the top, clear of the curves' ends).
ISO_F1_LABEL_AT = 0.97


@_apply_style
def pr_figure(result: ComparisonResult, palette: Sequence[str] = PALETTE) -> Figure:
    """Overlaid precision–recall curves with the prevalence baseline and iso-F1 lines."""
    fig = new_figure(HALF_WIDTH, 3.0 + _legend_height(len(result.models) + 1))
    ax = fig.add_subplot()
    col = colours(list(result.models), palette)
    dash = dashes(list(result.models), palette)
    shown = figure_names(list(result.models))
    r = np.linspace(0.01, 1, 200)
    for f in (0.2, 0.4, 0.6, 0.8):
        p = f * r / (2 * r - f)
        ok = (p > 0) & (p <= 1.0)
        ax.plot(r[ok], p[ok], color=GRID, lw=0.8, zorder=0)
        # labelled where the line leaves the top of the plot: at the right edge, where every
        # curve ends near the prevalence, the curves covered "F1=0.2"
        # (the last is "F1=0.8", the others the value alone: side by side, four full labels touched)
        top = ISO_F1_LABEL_AT
        ax.annotate(
            f"F1={f:g}" if f == 0.8 else f"{f:g}",
            xy=(f * top / (2 * top - f) + 0.01, top),
            fontsize=MIN_POINTS,
            color=MUTED,
            ha="left",
            va="top",
        )
    first = next(iter(result.models.values()))
    prev = _prevalence(first)
    ax.axhline(prev, ls="--", color=MUTED, lw=0.9, label=f"prevalence {prev:.3f} (random)")
    for name, m in result.models.items():
        c = _curves(m).pr
        ax.step(
            c.x,
            c.y,
            where="post",
            color=col[name],
            ls=dash[name],
            label=f"{shown[name]}: AP {fmt_metric(m.metrics['average_precision'], 'average_precision')}",
        )
        if m.confusion is not None and m.positives and (m.confusion.tp + m.confusion.fp) > 0:
            ax.plot(
                [m.confusion.tp / m.positives],
                [m.confusion.tp / (m.confusion.tp + m.confusion.fp)],
                marker="o",
                ms=5.5,
                mfc="white",
                mec=col[name],
                mew=1.6,
                ls="none",
            )
    ax.set(
        xlim=(0, 1),
        ylim=(0, 1.02),
        xlabel="Recall (true positive rate)",
        ylabel="Precision",
        title="Precision–recall curves",
    )
    _legend_below(fig)
    return fig


@_apply_style
def cost_figure(result: ComparisonResult, palette: Sequence[str] = PALETTE) -> Figure:
    """Drummond–Holte cost curves: lower envelopes, trivial classifiers, the operating condition."""
    fig = new_figure(HALF_WIDTH, 3.0 + _legend_height(len(result.models) + 3))
    ax = fig.add_subplot()
    col = colours(list(result.models), palette)
    dash = dashes(list(result.models), palette)
    shown = figure_names(list(result.models))
    x = np.array([0.0, 1.0])
    ax.plot(x, x, color=MUTED, lw=0.9, ls=":", label="always negative")
    ax.plot(x, 1 - x, color=MUTED, lw=0.9, ls="-.", label="always positive")
    pc = None
    for name, m in result.models.items():
        c = _curves(m).cost
        if c is None:
            continue
        ax.plot(c.pc, c.envelope, color=col[name], ls=dash[name], label=f"{shown[name]} (lower envelope)")
        # the line of the operating point at the decision threshold
        ax.plot(
            x,
            (1 - c.operating_tpr - c.operating_fpr) * x + c.operating_fpr,
            color=col[name],
            lw=0.8,
            ls="--",
            alpha=0.8,
        )
        pc = c.operating_pc
    if pc is not None:
        ax.axvline(pc, color="black", lw=0.9, label=f"operating condition PC(+) = {pc:.3f}")
    ax.set(
        xlim=(0, 1),
        ylim=(0, 0.55),
        xlabel="Probability cost PC(+)",
        ylabel="Normalised expected cost",
        title="Cost curves\n(dashed: at the decision threshold)",
    )
    _legend_below(fig)
    return fig


#: Threshold metrics drawn against the threshold, one panel each (titled by their short label).
_PANEL = ("f1", "mcc", "cohen_kappa", "balanced_accuracy")

#: Criteria whose optimal thresholds are followed across prevalences (figure and report table).
PREVALENCE_CRITERIA = ("f1", "mcc", "balanced_accuracy", "expected_cost")


@_apply_style
def threshold_figure(result: ComparisonResult, palette: Sequence[str] = PALETTE) -> Figure:
    """F1, MCC, kappa and balanced accuracy against the threshold, with the decision threshold."""
    ncols = 3
    fig = new_figure(FULL_WIDTH, 4.6 + _legend_height(len(result.models), ncols))
    axes = fig.subplots(2, 2, sharex=False)
    col = colours(list(result.models), palette)
    dash = dashes(list(result.models), palette)
    shown = figure_names(list(result.models))
    for ax, key in zip(axes.flat, _PANEL):
        for name, m in result.models.items():
            c = _curves(m).threshold_metrics.get(key)
            if c is None:
                continue
            ax.plot(c.x, c.y, color=col[name], ls=dash[name], label=shown[name] if ax is axes.flat[0] else None, lw=1.3)
            opt = m.optimal_thresholds.get(key)
            total = (m.positives or 0) + (m.negatives or 0)
            if opt is not None and opt.threshold is not None and opt.value is not None and total:
                ax.plot([(opt.tp + opt.fp) / total], [opt.value], marker="v", color=col[name], ms=5, ls="none")
            if m.confusion is not None and total:
                ax.axvline((m.confusion.tp + m.confusion.fp) / total, color=col[name], lw=0.8, ls="--")
        ax.set_title(short_label(key))
        ax.set_xlabel("share of rows flagged (predicted positive)")
        ax.set_xlim(0, 1)
    _legend_below(fig, ncols=min(ncols, len(result.models)))
    fig.suptitle("Metrics across thresholds (▼ optimum, dashed: each model's decision threshold)", fontsize=9)
    return fig


@_apply_style
def ks_figure(result: ComparisonResult, palette: Sequence[str] = PALETTE) -> Figure:
    """KS plot: cumulative share of each class predicted positive, per model."""
    names = list(result.models)
    n = len(names)
    cols = min(3, n)
    rows = math.ceil(n / cols)
    fig = new_figure(FULL_WIDTH, 2.4 * rows + 0.3)
    axes = np.atleast_1d(fig.subplots(rows, cols, squeeze=False)).ravel()
    col = colours(names, palette)
    shown = figure_names(names)
    for ax, name in zip(axes, names):
        m = result.models[name]
        k = _curves(m).ks
        if k is None:
            ax.set_visible(False)
            continue
        ax.plot(k.thresholds, k.tpr, color=col[name], label="positives")
        ax.plot(k.thresholds, k.fpr, color=col[name], ls="--", label="negatives")
        if m.ks_threshold is not None and m.metrics["ks"] is not None:
            ax.axvline(m.ks_threshold, color=MUTED, lw=0.8)
        ax.set_title(f"{shown[name]}: KS {fmt_metric(m.metrics['ks'], 'ks')}")
        ax.set_xlabel("threshold (score)")
        ax.set_ylabel("share predicted positive")
        if m.direction == "lower":
            ax.invert_xaxis()
        ax.legend(loc="best")
    for ax in axes[n:]:
        ax.set_visible(False)
    return fig


@_apply_style
def gains_figure(result: ComparisonResult, palette: Sequence[str] = PALETTE) -> Figure:
    """Cumulative gains: share of positives captured against the share of rows taken."""
    fig = new_figure(HALF_WIDTH, 3.0 + _legend_height(len(result.models) + 2))
    ax = fig.add_subplot()
    col = colours(list(result.models), palette)
    dash = dashes(list(result.models), palette)
    shown = figure_names(list(result.models))
    first = next(iter(result.models.values()))
    prev = _prevalence(first)
    ax.plot([0, 1], [0, 1], ls="--", color=MUTED, lw=0.9, label="random")
    ax.plot([0, prev, 1], [0, 1, 1], ls=":", color=MUTED, lw=0.9, label="perfect")
    for name, m in result.models.items():
        if (lift := _curves(m).lift) is not None:
            ax.plot(lift.x, lift.y, color=col[name], ls=dash[name], label=shown[name])
    ax.set(
        xlim=(0, 1),
        ylim=(0, 1.01),
        xlabel="Share of rows, highest risk first",
        ylabel="Share of positives captured",
        title="Cumulative gains",
    )
    _legend_below(fig)
    return fig


@_apply_style
def calibration_figure(result: ComparisonResult, palette: Sequence[str] = PALETTE) -> Figure | None:
    """Reliability diagram for models whose scores are probabilities (marker area ∝ rows)."""
    models = {n: m for n, m in result.models.items() if _curves(m).calibration is not None}
    if not models:
        return None
    fig = new_figure(HALF_WIDTH, 3.0 + _legend_height(len(models) + 1))
    ax = fig.add_subplot()
    col = colours(list(result.models), palette)
    dash = dashes(list(result.models), palette)
    shown = figure_names(list(result.models))
    ax.plot([0, 1], [0, 1], ls="--", color=MUTED, lw=0.9, label="perfectly calibrated")
    for name, m in models.items():
        c = _curves(m).calibration
        assert c is not None  # models holds those with a calibration
        size = 12 + 120 * c.counts / max(float(c.counts.max()), 1.0)
        ax.plot(
            c.mean_predicted,
            c.observed,
            color=col[name],
            ls=dash[name],
            lw=1.2,
            label=f"{shown[name]}: Brier {fmt_metric(m.metrics['brier'], 'brier', 4)}",
        )
        ax.scatter(c.mean_predicted, c.observed, s=size, color=col[name], alpha=0.7, zorder=3)
    ax.set(
        xlim=(0, 1),
        ylim=(0, 1),
        xlabel="Mean predicted probability (bin)",
        ylabel="Observed share of positives",
        title="Calibration (10 equal-width bins)",
    )
    _legend_below(fig)
    return fig


@_apply_style
def distribution_figure(result: ComparisonResult, palette: Sequence[str] = PALETTE) -> Figure:
    """Score distributions per class (normalised within class), one panel per model."""
    names = list(result.models)
    n = len(names)
    cols = min(3, n)
    rows = math.ceil(n / cols)
    fig = new_figure(FULL_WIDTH, 2.3 * rows + 0.3)
    axes = np.atleast_1d(fig.subplots(rows, cols, squeeze=False)).ravel()
    col = colours(names, palette)
    shown = figure_names(names)
    for ax, name in zip(axes, names):
        m = result.models[name]
        h = _curves(m).histogram
        if h is None:
            continue
        pos = h.positives / max(h.positives.sum(), 1e-300)
        neg = h.negatives / max(h.negatives.sum(), 1e-300)
        ax.stairs(neg, h.edges, color=MUTED, fill=True, alpha=0.35, label="negatives")
        ax.stairs(pos, h.edges, color=col[name], lw=1.5, label="positives")
        if m.threshold is not None:
            ax.axvline(m.threshold, color="black", lw=0.8, ls="--")
        ax.set_title(shown[name])
        ax.set_xlabel("score")
        ax.set_ylabel("share of class")
        ax.legend(loc="best")
    for ax in axes[n:]:
        ax.set_visible(False)
    return fig


@_apply_style
def forest_figure(result: ComparisonResult, palette: Sequence[str] = PALETTE) -> Figure | None:
    """Forest plot of Δ primary metric (model − baseline) with its confidence interval.

    With several comparisons the verdicts are Holm-adjusted as a family, so beside each
    unadjusted interval (thick) the simultaneous one (thin, Bonferroni level) is drawn and the
    axis says which is which: an interval clear of zero is not read as a verdict it is not.
    """
    comps = result.comparisons
    if not comps:
        return None
    metric = result.run.primary_metric
    fig = new_figure(FULL_WIDTH * 0.8, 0.4 * len(comps) + 1.1)
    ax = fig.add_subplot()
    col = colours(list(result.models), palette)
    shown = figure_names(list(result.models))
    sim_level = None
    for i, c in enumerate(comps):
        d = c.delta.get(metric)
        ci = c.ci.get(metric)
        y = len(comps) - 1 - i
        if d is None:
            continue
        dec = c.decision
        if dec is not None and dec.family_size > 1 and dec.ci_simultaneous is not None:
            ax.plot(list(dec.ci_simultaneous), [y, y], color=col[c.model], lw=0.9)
            ax.plot(
                [dec.ci_simultaneous[0]] * 2 + [dec.ci_simultaneous[1]] * 2,
                [y - 0.12, y + 0.12, y - 0.12, y + 0.12],
                linestyle="none",
                marker="|",
                color=col[c.model],
                ms=6,
            )
            sim_level = dec.ci_simultaneous_level
        if ci:
            ax.plot(ci, [y, y], color=col[c.model], lw=2.6)
        ax.plot([d], [y], marker="s", color=col[c.model], ms=7)
    ax.axvline(0, color="black", lw=0.9)
    ax.set_yticks(range(len(comps)), [f"{shown[c.model]} − {shown[c.baseline]}" for c in reversed(comps)])
    name = short_label(metric)
    level = f"{result.run.confidence_level * 100:g} %"
    if sim_level is not None:
        ax.set_xlabel(f"Δ {name} (thick: {level} CI, unadjusted; thin: simultaneous {sim_level * 100:.3g} % CI)")
    else:
        ax.set_xlabel(f"Δ {name} ({level} CI)")
    ax.set_title(f"Difference in {name} against the baseline")
    ax.set_ylim(-0.6, len(comps) - 0.4)
    ax.grid(axis="y", visible=False)
    return fig


@_apply_style
def prevalence_figure(result: ComparisonResult, palette: Sequence[str] = PALETTE) -> Figure | None:
    """Optimal threshold of each criterion against the share of positives, one panel per model.

    Panels, because models may score on different scales (points vs probabilities).
    """
    models = {n: m for n, m in result.models.items() if len(m.prevalence_shift) >= 2}
    if not models:
        return None
    crits = [
        (k, ls, marker, catalog.criterion(k).short_label)
        for k, ls, marker in zip(PREVALENCE_CRITERIA, ("-", "--", ":", "-."), ("o", "s", "^", "D"))
    ]
    n = len(models)
    cols = min(3, n)
    rows = math.ceil(n / cols)
    fig = new_figure(FULL_WIDTH, 2.5 * rows + 0.5 + _legend_height(len(crits), len(crits)))
    axes = np.atleast_1d(fig.subplots(rows, cols, squeeze=False)).ravel()
    col = colours(list(result.models), palette)
    shown = figure_names(list(result.models))
    for ax, (name, m) in zip(axes, models.items()):
        for crit, ls, marker, label in crits:
            xs, ys = [], []
            for sc in m.prevalence_shift:
                o = sc.optimal_thresholds.get(crit)
                if o is not None and o.threshold is not None:
                    xs.append(sc.prevalence)
                    ys.append(o.threshold)
            ax.plot(xs, ys, ls=ls, marker=marker, ms=3.5, color=col[name], label=label, lw=1.2)
        ax.set_title(shown[name])
        ax.set_xlabel("share of positives")
        ax.set_ylabel("optimal threshold (score)")
    for ax in axes[n:]:
        ax.set_visible(False)
    handles, texts = axes[0].get_legend_handles_labels()
    fig.legend(handles, texts, loc="outside lower center", ncols=len(crits))
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
    """Small multiples, one panel per class (one-vs-rest), the models overlaid in their colours;
    ``part``: which run of :data:`PANELS_PER_FIGURE` panels (None past the last)."""
    curves = {n: m.multiclass_curves for n, m in result.models.items() if m.multiclass_curves is not None}
    if not curves:
        return None
    labels = list(result.run.classes or [])
    if len(labels) > MAX_CLASS_PANELS:
        labels = []
    panels: list[str | None] = list(labels) + ([None] if kind == "roc" else [])
    panels = panels[part * PANELS_PER_FIGURE : (part + 1) * PANELS_PER_FIGURE]
    if not panels:
        return None
    cols = min(3, len(panels))
    rows = math.ceil(len(panels) / cols)
    ncols = 4
    fig = new_figure(FULL_WIDTH, 2.35 * rows + 0.3 + (_legend_height(len(curves), ncols) if kind != "roc" else 0))
    axes = np.atleast_1d(fig.subplots(rows, cols, squeeze=False)).ravel()
    col = colours(list(result.models), palette)
    dash = dashes(list(result.models), palette)
    shown = figure_names(list(result.models))
    for ax, label in zip(axes, panels):
        if kind == "roc":
            ax.plot([0, 1], [0, 1], ls="--", color=MUTED, lw=0.8)
        for name, mc in curves.items():
            if label is None:
                c = mc.micro_roc
                auc = result.models[name].metrics.get("roc_auc_ovr_micro")
            else:
                c = (mc.per_class_roc if kind == "roc" else mc.per_class_pr).get(label)
                auc = (result.models[name].per_class or {}).get(label, {}).get("roc_auc")
            if c is None:
                continue
            text = f"{shown[name]} {fmt_metric(auc, 'roc_auc')}" if kind == "roc" else shown[name]
            ax.plot(
                c.x, c.y, color=col[name], ls=dash[name], lw=1.3, label=text if kind == "roc" or ax is axes[0] else None
            )
        title = "micro-average (all classes pooled)" if label is None else panel_title(label)
        ax.set_title(safe_text(title), fontsize=8)
        ax.set(xlim=(0, 1), ylim=(0, 1.02))
        ax.tick_params(labelsize=MIN_POINTS)
        if kind == "roc":  # the curves keep to the upper left; the AUCs sit in the lower right
            ax.legend(
                loc="lower right",
                fontsize=MIN_POINTS,
                title="AUC",
                title_fontsize=MIN_POINTS,
                borderaxespad=0.2,
                handlelength=1.2,
                labelspacing=0.2,
            )
    for ax in axes[len(panels) :]:
        ax.set_visible(False)
    if kind != "roc":
        _legend_below(fig, ncols=min(ncols, len(curves)), where="upper")
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
    "distributions": distribution_figure,
    "prevalence": prevalence_figure,
}


def render_figures(
    result: ComparisonResult, palette: Sequence[str] = PALETTE, extra: dict[str, Any] | None = None
) -> dict[str, str]:
    """Every applicable figure as inline SVG, keyed by name, drawn here one after another; a
    figure in parts (the per-class panels of many classes) as ``key``, ``key_2``, ``key_3``, ….

    ``extra``: more figures of the report, ``key → fn(result, palette) → Figure | None`` (the
    credit section's, :func:`reportgen.report.credit_figures.figure_table`), drawn after the
    table's own, under their keys."""
    table = {**(FIGURES if result.run.task == "binary" else MULTICLASS_FIGURES), **(extra or {})}
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
    "render_figures",
    "new_figure",
    "FIGURES",
    "PALETTE",
    "safe_text",
    "to_svg",
    "lean_svg",
    "pdf_figures",
    "model_colours",
    "model_keys",
    "uses_keys",
    "figure_names",
    "MIN_POINTS",
    "HALF_WIDTH",
    "FULL_WIDTH",
    "KEY_AFTER",
    "ModelResult",
]
