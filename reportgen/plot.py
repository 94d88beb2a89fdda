"""Figures of a comparison result drawn on your own Matplotlib axes.

Each function takes a :class:`~reportgen.results.ComparisonResult` (in memory, or read back with
:func:`reportgen.load_result` from a ``metrics.json``), draws on ``ax`` and returns it, as
scikit-learn's Displays do (``RocCurveDisplay.plot(ax=…)``): pass the axes of your own figure,
or leave ``ax=None`` and a new :class:`matplotlib.figure.Figure` is made (no pyplot: it is
``ax.figure``, to save or to display). The report draws its figures with these same functions
(:mod:`reportgen.report.figures` adds only its figure sizes, legends and layout), so a figure
here shows what the report shows. Nothing is computed: every number drawn is read from the result,
and a loaded ``metrics.json`` holds every curve a figure needs.

Several-model figures take ``models=`` (names, default all) and one-model figures ``model=``
(default the first model). Each model keeps its colour and line style whichever models are
drawn (:func:`colours`, :func:`dashes`: the Okabe–Ito palette, each model also its own dash, so
curves stay apart in greyscale print and for colour-blind readers). ``legend=False`` leaves the
legend to the caller (the labels are on the artists: ``ax.get_legend_handles_labels()``).

This is the only module that imports matplotlib (a heavy import: the command line's JSON-only
path never loads it).
"""

from __future__ import annotations

import math
from collections.abc import Sequence
from typing import TYPE_CHECKING, Any

import matplotlib
import numpy as np
from matplotlib.figure import Figure
from matplotlib.ticker import FuncFormatter, LogLocator, NullFormatter, PercentFormatter

import reportgen.catalog as catalog
from reportgen.report.formats import fmt_metric, isolate
from reportgen.report.reliability import MIN_BIN_ROWS, reliability_of
from reportgen.results import ComparisonResult, Curves, ModelResult
from reportgen.section_results import CreditModel

if TYPE_CHECKING:
    from matplotlib.axes import Axes
    from matplotlib.typing import RcKeyType

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
#: Line styles, one per model in turn (:func:`dashes`): the palette's blue and green are a tenth
#: of the grey scale apart, so in greyscale print the line, not the colour, tells them apart.
DASHES = ("-", "--", "-.", ":")
#: Markers, one per model in turn (point figures: calibration bins, the forest plot).
MARKERS = ("o", "s", "D", "^", "v", "P", "X", "h")
GRID = "#d9d9d9"
MUTED = "#7f7f7f"
#: The smallest text drawn (points, at the size a figure is drawn).
MIN_POINTS = 7.0
#: Area (points²) of an operating-point marker: 7.5 pt across, five times a curve's width.
POINT_AREA = 56.0
#: Names longer than this are shown in figures by their key (M1, M2, …).
KEY_AFTER = 20

#: The report's look (the report applies it around its figures; a figure of your own keeps yours).
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


def style() -> Any:
    """The report's look as a context (``with reportgen.plot.style(): …``)."""
    return matplotlib.rc_context(STYLE)


def new_figure(width: float, height: float) -> Figure:
    """A figure of ``width`` × ``height`` inches, constrained layout, in the report's style."""
    with style():
        return Figure(figsize=(width, height), dpi=100, layout="constrained")


# ------------------------------------------------------------------------------------------
# How models are shown
# ------------------------------------------------------------------------------------------


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
    """Each model's line style: :data:`DASHES` in turn, shifted by one after every
    lcm(colours, styles) models, so no two models share a colour and a line style until
    colours × styles models (the position modulo both is unique within each lcm; the shift
    moves to pairs not yet used)."""
    period = math.lcm(len(palette), len(DASHES))
    return {n: DASHES[(i + i // period) % len(DASHES)] for i, n in enumerate(names)}


def markers(names: Sequence[str]) -> dict[str, str]:
    """Each model's marker (:data:`MARKERS` in turn)."""
    return {n: MARKERS[i % len(MARKERS)] for i, n in enumerate(names)}


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


class _Looks:
    """Colour, line, marker and shown name of every model of a result (by its position among all
    the result's models, so a model looks the same whichever models a figure draws)."""

    def __init__(self, result: ComparisonResult, palette: Sequence[str] | None) -> None:
        names = list(result.models)
        pal = palette or PALETTE
        self.colour, self.dash = colours(names, pal), dashes(names, pal)
        self.marker, self.name = markers(names), figure_names(names)


def _axes(ax: Axes | None) -> Axes:
    """``ax``, or the axes of a new figure (no pyplot: display or save ``ax.figure``)."""
    return Figure(layout="constrained").add_subplot() if ax is None else ax


def _pick(result: ComparisonResult, models: Sequence[str] | None) -> list[str]:
    """The models to draw, in the result's order; a name the result lacks is a ValueError."""
    if models is None:
        return list(result.models)
    unknown = [n for n in models if n not in result.models]
    if unknown:
        raise ValueError(f"model {unknown[0]!r} is not in the result (models: {', '.join(result.models)})")
    return [n for n in result.models if n in set(models)]


def _one(names: Sequence[str], model: str | None, what: str = "result") -> str:
    if model is None:
        if not names:
            raise ValueError(f"the {what} has no model to draw")
        return names[0]
    if model not in names:
        raise ValueError(f"model {model!r} is not in the {what} (models: {', '.join(names)})")
    return model


def curves_of(m: ModelResult) -> Curves:
    """A binary model's curves: every binary model has them (its scores are required)."""
    if m.curves is None:
        raise ValueError("this figure needs a binary result's curves (a multiclass result has per-class curves)")
    return m.curves


def _prevalence(m: ModelResult) -> float:
    """A binary model's share of positives (weighted): the baseline of its PR and gains figures."""
    if m.positives is None or m.negatives is None:
        raise ValueError("this figure needs a binary result (positives and negatives per model)")
    return m.positives / (m.positives + m.negatives)


def _legend(ax: Axes, legend: bool, **kwargs: Any) -> Axes:
    if legend:
        ax.legend(**kwargs)
    return ax


def _points_entry(ax: Axes) -> None:
    """The legend's entry for the operating points (an empty scatter: nothing drawn)."""
    ax.scatter(
        [], [], s=POINT_AREA, facecolors="white", edgecolors="black", linewidths=1.0,
        label="operating point at the decision threshold",
    )  # fmt: skip


def _point(ax: Axes, x: float, y: float, colour: str) -> None:
    """An operating point: filled in the model's colour, ringed in black, above every line."""
    ax.scatter([x], [y], s=POINT_AREA, facecolors=colour, edgecolors="black", linewidths=1.0, zorder=5)


# ------------------------------------------------------------------------------------------
# Binary curves
# ------------------------------------------------------------------------------------------


def roc(
    result: ComparisonResult,
    *,
    models: Sequence[str] | None = None,
    ax: Axes | None = None,
    palette: Sequence[str] | None = None,
    legend: bool = True,
) -> Axes:
    """ROC curves: one line per model (labelled with its AUC and Gini), after the chance
    diagonal (the first line), and each model's operating point at its decision threshold
    (a scatter point: false and true positive rates of its confusion matrix)."""
    ax, look = _axes(ax), _Looks(result, palette)
    ax.plot([0, 1], [0, 1], ls="--", color=MUTED, lw=0.9, label="chance (AUC 0.5)")
    drawn: list[tuple[str, Any, tuple[float, float] | None]] = []
    for name in _pick(result, models):
        m = result.models[name]
        c = curves_of(m).roc
        label = (
            f"{look.name[name]}: AUC {fmt_metric(m.metrics['roc_auc'], 'roc_auc')}, "
            f"Gini {fmt_metric(m.metrics['gini'], 'gini')}"
        )
        ax.plot(c.x, c.y, color=look.colour[name], ls=look.dash[name], label=label)
        point = None
        if m.confusion is not None and m.negatives and m.positives:
            point = (m.confusion.fp / m.negatives, m.confusion.tp / m.positives)
            _point(ax, *point, look.colour[name])
        drawn.append((name, c, point))
    if any(p is not None for _, _, p in drawn):
        _points_entry(ax)
    _corner_zoom(ax, look, drawn)
    ax.set(
        xlim=(0, 1),
        ylim=(0, 1.01),
        xlabel="False positive rate (1 − specificity)",
        ylabel="True positive rate (recall)",
        title="ROC curves",
    )
    ax.set_aspect("equal")
    return _legend(ax, legend, loc="lower right")


#: The ROC's corner zoom: drawn when every operating point lies within this of the top-left corner
#: (AUCs near 1, where the points sit on each other and on the axes), its side the points' reach
#: plus a margin, at least :data:`ZOOM_MIN`.
ZOOM_WHEN, ZOOM_MIN = 0.2, 0.05


def _corner_zoom(ax: Axes, look: _Looks, drawn: Sequence[tuple[str, Any, tuple[float, float] | None]]) -> None:
    """An inset in the ROC's empty lower right magnifying the top-left corner [0, z] × [1 − z, 1]
    with each model's curve and operating point, when every point lies within :data:`ZOOM_WHEN`
    of the corner."""
    points = [p for _, _, p in drawn if p is not None]
    reach = max((max(x, 1.0 - y) for x, y in points), default=1.0)
    if not points or reach > ZOOM_WHEN:
        return
    z = max(ZOOM_MIN, 1.5 * reach)
    inset = ax.inset_axes((0.42, 0.08, 0.5, 0.5))
    for name, c, p in drawn:
        inset.plot(c.x, c.y, color=look.colour[name], ls=look.dash[name])
        if p is not None:
            _point(inset, *p, look.colour[name])
    inset.set(xlim=(0, z), ylim=(1 - z, 1.0))
    inset.set_aspect("equal")
    inset.tick_params(labelsize=MIN_POINTS)
    inset.grid(True)
    ax.indicate_inset_zoom(inset, edgecolor=MUTED)


#: The precision at which the PR figure labels its iso-F1 lines (near the top, clear of the curves' ends).
ISO_F1_LABEL_AT = 0.97


def precision_recall(
    result: ComparisonResult,
    *,
    models: Sequence[str] | None = None,
    ax: Axes | None = None,
    palette: Sequence[str] | None = None,
    legend: bool = True,
) -> Axes:
    """Precision–recall curves (steps, labelled with the average precision): one line per model
    after the prevalence baseline (the first line), grey iso-F1 lines (unlabelled, drawn
    first), and each model's operating point at its decision threshold."""
    ax, look = _axes(ax), _Looks(result, palette)
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
    names = _pick(result, models)
    prev = _prevalence(result.models[next(iter(result.models))])
    ax.axhline(prev, ls="--", color=MUTED, lw=0.9, label=f"prevalence {prev:.3f} (random)")
    points = False
    for name in names:
        m = result.models[name]
        c = curves_of(m).pr
        ap = fmt_metric(m.metrics["average_precision"], "average_precision")
        ax.step(
            c.x, c.y, where="post", color=look.colour[name], ls=look.dash[name], label=f"{look.name[name]}: AP {ap}"
        )
        if m.confusion is not None and m.positives and (m.confusion.tp + m.confusion.fp) > 0:
            tp, fp = m.confusion.tp, m.confusion.fp
            _point(ax, tp / m.positives, tp / (tp + fp), look.colour[name])
            points = True
    if points:
        _points_entry(ax)
    ax.set(
        xlim=(0, 1),
        ylim=(0, 1.02),
        xlabel="Recall (true positive rate)",
        ylabel="Precision",
        title="Precision–recall curves",
    )
    return _legend(ax, legend, loc="upper right")


def gains(
    result: ComparisonResult,
    *,
    models: Sequence[str] | None = None,
    ax: Axes | None = None,
    palette: Sequence[str] | None = None,
    legend: bool = True,
) -> Axes:
    """Cumulative gains: share of positives captured against the share of rows taken, riskiest
    first; the random and perfect models are the first two lines, then one line per model."""
    ax, look = _axes(ax), _Looks(result, palette)
    prev = _prevalence(result.models[next(iter(result.models))])
    ax.plot([0, 1], [0, 1], ls="--", color=MUTED, lw=0.9, label="random")
    ax.plot([0, prev, 1], [0, 1, 1], ls=":", color=MUTED, lw=0.9, label="perfect")
    for name in _pick(result, models):
        if (lift := curves_of(result.models[name]).lift) is not None:
            ax.plot(lift.x, lift.y, color=look.colour[name], ls=look.dash[name], label=look.name[name])
    ax.set(
        xlim=(0, 1),
        ylim=(0, 1.01),
        xlabel="Share of rows, highest risk first",
        ylabel="Share of positives captured",
        title="Cumulative gains",
    )
    return _legend(ax, legend, loc="lower right")


def cost(
    result: ComparisonResult,
    *,
    models: Sequence[str] | None = None,
    ax: Axes | None = None,
    palette: Sequence[str] | None = None,
    legend: bool = True,
) -> Axes:
    """Drummond–Holte cost curves: the two trivial classifiers (first two lines), then per model
    its lower envelope (labelled) and the thin dotted line of its decision threshold; the
    vertical line is the configured operating condition PC(+)."""
    ax, look = _axes(ax), _Looks(result, palette)
    x = np.array([0.0, 1.0])
    ax.plot(x, x, color=MUTED, lw=0.9, ls=":", label="always negative")
    ax.plot(x, 1 - x, color=MUTED, lw=0.9, ls="-.", label="always positive")
    pc = None
    for name in _pick(result, models):
        c = curves_of(result.models[name]).cost
        if c is None:
            continue
        col = look.colour[name]
        ax.plot(c.pc, c.envelope, color=col, ls=look.dash[name], label=f"{look.name[name]} (lower envelope)")
        line = (1 - c.operating_tpr - c.operating_fpr) * x + c.operating_fpr
        ax.plot(x, line, color=col, lw=0.9, ls=":")
        pc = c.operating_pc
    if pc is not None:
        ax.axvline(pc, color="black", lw=0.9, label=f"operating condition PC(+) = {pc:.3f}")
    ax.set(
        xlim=(0, 1),
        ylim=(0, 0.55),
        xlabel="Probability cost PC(+)",
        ylabel="Normalised expected cost",
        title="Cost curves\n(thin dotted: at the decision threshold)",
    )
    return _legend(ax, legend, loc="upper right")


def threshold_metric(
    result: ComparisonResult,
    metric: str = "f1",
    *,
    models: Sequence[str] | None = None,
    ax: Axes | None = None,
    palette: Sequence[str] | None = None,
    legend: bool = True,
) -> Axes:
    """A threshold metric (``f1``, ``mcc``, ``cohen_kappa``, ``balanced_accuracy``, …) against
    the share of rows flagged: one line per model, its optimum (▼) and its decision threshold
    (dotted vertical line)."""
    ax, look = _axes(ax), _Looks(result, palette)
    for name in _pick(result, models):
        m = result.models[name]
        c = curves_of(m).threshold_metrics.get(metric)
        if c is None:
            continue
        col = look.colour[name]
        ax.plot(c.x, c.y, color=col, ls=look.dash[name], label=look.name[name], lw=1.3)
        opt = m.optimal_thresholds.get(metric)
        total = (m.positives or 0) + (m.negatives or 0)
        if opt is not None and opt.threshold is not None and opt.value is not None and total:
            ax.plot(
                [(opt.tp + opt.fp) / total], [opt.value], marker="v", color=col, ms=5.5, mec="black", mew=0.6, ls="none"
            )
        if m.confusion is not None and total:
            ax.axvline((m.confusion.tp + m.confusion.fp) / total, color=col, lw=0.9, ls=":")
    ax.set_title(catalog.short_label(metric))
    ax.set_xlabel("share of rows flagged (predicted positive)")
    ax.set_xlim(0, 1)
    return _legend(ax, legend, loc="best")


def ks(
    result: ComparisonResult,
    model: str | None = None,
    *,
    ax: Axes | None = None,
    palette: Sequence[str] | None = None,
    legend: bool = True,
) -> Axes:
    """One model's KS plot: the share of positives (solid) and of negatives (dashed) predicted
    positive at each threshold; the grey vertical line is where their gap, the KS statistic, is largest."""
    ax, look = _axes(ax), _Looks(result, palette)
    name = _one(list(result.models), model)
    m = result.models[name]
    k = curves_of(m).ks
    if k is None:
        raise ValueError(f"model {name!r} has no KS curve")
    ax.plot(k.thresholds, k.tpr, color=look.colour[name], label="positives")
    ax.plot(k.thresholds, k.fpr, color=look.colour[name], ls="--", label="negatives")
    if m.ks_threshold is not None and m.metrics["ks"] is not None:
        ax.axvline(m.ks_threshold, color=MUTED, lw=0.8)
    ax.set_title(f"{look.name[name]}: KS {fmt_metric(m.metrics['ks'], 'ks')}")
    ax.set_xlabel("threshold (score)")
    ax.set_ylabel("share predicted positive")
    if m.direction == "lower":
        ax.invert_xaxis()
    return _legend(ax, legend, loc="best")


def _bin_curve(
    ax: Axes, x: Any, y: Any, counts: Any, size: Any, colour: str, dash: Any, marker: str, label: str
) -> None:
    """One model's binned reliability curve: a line through the bins of at least
    :data:`MIN_BIN_ROWS` rows, markers of area ``size`` (filled there, hollow below)."""
    full = counts >= MIN_BIN_ROWS
    ax.plot(x[full], y[full], color=colour, ls=dash, lw=1.2, label=label)
    ax.scatter(x[full], y[full], s=size[full], color=colour, marker=marker, alpha=0.7, zorder=3)
    ax.scatter(x[~full], y[~full], s=size[~full], facecolors="none", edgecolors=colour, marker=marker, zorder=3)


def calibration(
    result: ComparisonResult,
    *,
    models: Sequence[str] | None = None,
    ax: Axes | None = None,
    palette: Sequence[str] | None = None,
    legend: bool = True,
) -> Axes:
    """Reliability diagram (ten equal-width bins): the diagonal (first line), then per model with a
    reliability curve (:func:`reliability_of`: its probabilities, or its PD column) its line
    (labelled with the Brier score) through the bins of at least :data:`MIN_BIN_ROWS` rows and its
    bins as markers of area proportional to their rows, hollow below that. Models without a curve
    are left out; if none of ``models`` has one, a ValueError."""
    ax, look = _axes(ax), _Looks(result, palette)
    curves = {n: reliability_of(result, n) for n in _pick(result, models)}
    names = [n for n, (c, _) in curves.items() if c is not None]
    if not names:
        raise ValueError("no model has a calibration curve (scores that are not probabilities have none)")
    ax.plot([0, 1], [0, 1], ls="--", color=MUTED, lw=0.9, label="perfectly calibrated")
    for name in names:
        m = result.models[name]
        c, from_pd = curves[name]
        assert c is not None  # names holds those with a calibration
        size = 12 + 120 * c.counts / max(float(c.counts.max()), 1.0)
        col = look.colour[name]
        brier = fmt_metric(m.metrics.get("brier"), "brier", 4)
        label = f"{look.name[name]}{' (PD column)' if from_pd else ''}: Brier {brier}"
        _bin_curve(ax, c.mean_predicted, c.observed, c.counts, size, col, look.dash[name], look.marker[name], label)
    ax.set(
        xlim=(0, 1),
        ylim=(0, 1),
        xlabel="Mean predicted probability (bin)",
        ylabel="Observed share of positives",
        title="Calibration (10 equal-width bins)",
    )
    return _legend(ax, legend, loc="upper left")


def top_label_calibration(
    result: ComparisonResult,
    *,
    models: Sequence[str] | None = None,
    ax: Axes | None = None,
    palette: Sequence[str] | None = None,
    legend: bool = True,
) -> Axes:
    """Multiclass top-label reliability diagram: per model with class probabilities
    (``class_probabilities`` with its bins), the share predicted right against the mean confidence
    (highest probability) per equal-width bin, labelled with the top-label ECE; markers of area
    proportional to the bin's rows, hollow below :data:`MIN_BIN_ROWS`. A ValueError if none of
    ``models`` has the bins."""
    ax, look = _axes(ax), _Looks(result, palette)
    names = [
        n for n in _pick(result, models) if (p := result.models[n].class_probabilities) is not None and p.counts.size
    ]
    if not names:
        raise ValueError("no model has a top-label reliability curve (class probabilities on kept rows)")
    ax.plot([0, 1], [0, 1], ls="--", color=MUTED, lw=0.9, label="perfectly calibrated")
    bins = 10
    for name in names:
        p = result.models[name].class_probabilities
        assert p is not None
        bins = p.bins
        col = look.colour[name]
        size = 12 + 120 * p.counts / max(float(p.counts.max()), 1.0)
        label = f"{look.name[name]}: ECE {fmt_metric(p.ece_top_label, None, 3)}"
        _bin_curve(ax, p.confidence, p.accuracy, p.counts, size, col, look.dash[name], look.marker[name], label)
    ax.set(
        xlim=(0, 1),
        ylim=(0, 1),
        xlabel="Mean confidence (highest probability, bin)",
        ylabel="Share predicted right",
        title=f"Top-label calibration ({bins} equal-width bins)",
    )
    return _legend(ax, legend, loc="upper left")


def calibration_intervals(
    result: ComparisonResult,
    *,
    models: Sequence[str] | None = None,
    ax: Axes | None = None,
    palette: Sequence[str] | None = None,
    legend: bool = True,
) -> Axes:
    """Reliability diagram of the configured bins (``calibration:``, ``ModelResult.calibration``):
    the diagonal, then per model its bins at (mean predicted, observed share) with the observed
    share's Clopper–Pearson interval as an error bar, a line through the bins of at least
    :data:`MIN_BIN_ROWS` rows, markers hollow below that (as :func:`calibration`). Models without
    a calibration are left out; if none of ``models`` has one, a ValueError."""
    ax, look = _axes(ax), _Looks(result, palette)
    names = [n for n in _pick(result, models) if result.models[n].calibration is not None]
    if not names:
        raise ValueError("no model has a calibration (set calibration: and give probabilities)")
    ax.plot([0, 1], [0, 1], ls="--", color=MUTED, lw=0.9, label="perfectly calibrated")
    first = result.models[names[0]].calibration
    assert first is not None
    for name in names:
        c = result.models[name].calibration
        assert c is not None
        col, mk = look.colour[name], look.marker[name]
        full = c.counts >= MIN_BIN_ROWS
        x, y = c.mean_predicted, c.observed
        err = np.vstack([np.maximum(y - c.observed_lo, 0.0), np.maximum(c.observed_hi - y, 0.0)])
        ece = fmt_metric(c.values.get("ece"), "brier", 3)
        ax.plot(x[full], y[full], color=col, ls=look.dash[name], lw=1.1, label=f"{look.name[name]}: ECE {ece}")
        ax.errorbar(x, y, yerr=err, fmt="none", ecolor=col, elinewidth=0.9, capsize=2.0, alpha=0.8, zorder=2)
        ax.scatter(x[full], y[full], s=22, color=col, marker=mk, zorder=3)
        ax.scatter(x[~full], y[~full], s=22, facecolors="white", edgecolors=col, marker=mk, zorder=3)
    kind = "equal-width" if first.strategy == "uniform" else "equal-count"
    ax.set(
        xlim=(-0.02, 1.02),  # a bin at 0 or 1 (observed share, interval end) drawn whole
        ylim=(-0.02, 1.02),
        xlabel="Mean predicted probability (bin)",
        ylabel="Observed share of positives",
        title=f"Calibration, {first.bins} {kind} bins",
    )
    return _legend(ax, legend, loc="upper left")


def score_distribution(
    result: ComparisonResult,
    model: str | None = None,
    *,
    ax: Axes | None = None,
    palette: Sequence[str] | None = None,
    legend: bool = True,
) -> Axes:
    """One model's score histograms, each class normalised to 1 (negatives grey, filled;
    positives in the model's colour); the dashed line is its decision threshold."""
    ax, look = _axes(ax), _Looks(result, palette)
    name = _one(list(result.models), model)
    m = result.models[name]
    h = curves_of(m).histogram
    if h is None:
        raise ValueError(f"model {name!r} has no score histogram")
    pos = h.positives / max(h.positives.sum(), 1e-300)
    neg = h.negatives / max(h.negatives.sum(), 1e-300)
    ax.stairs(neg, h.edges, color=MUTED, fill=True, alpha=0.35, label="negatives")
    ax.stairs(pos, h.edges, color=look.colour[name], lw=1.5, label="positives")
    if m.threshold is not None:
        ax.axvline(m.threshold, color="black", lw=0.8, ls="--")
    ax.set_title(look.name[name])
    ax.set_xlabel("score")
    ax.set_ylabel("share of class")
    return _legend(ax, legend, loc="best")


#: Criteria whose optimal thresholds are followed across prevalences (figure and report table).
PREVALENCE_CRITERIA = ("f1", "mcc", "balanced_accuracy", "expected_cost")


def prevalence_thresholds(
    result: ComparisonResult,
    model: str | None = None,
    *,
    ax: Axes | None = None,
    palette: Sequence[str] | None = None,
    legend: bool = True,
) -> Axes:
    """One model's optimal threshold of each criterion (:data:`PREVALENCE_CRITERIA`, one line and
    marker each) against the share of positives it was recomputed for (``prevalences:``)."""
    ax, look = _axes(ax), _Looks(result, palette)
    name = _one([n for n, m in result.models.items() if len(m.prevalence_shift) >= 2], model, "prevalence scenarios")
    m = result.models[name]
    for crit, ls, marker in zip(PREVALENCE_CRITERIA, DASHES, MARKERS):
        xs, ys = [], []
        for sc in m.prevalence_shift:
            o = sc.optimal_thresholds.get(crit)
            if o is not None and o.threshold is not None:
                xs.append(sc.prevalence)
                ys.append(o.threshold)
        label = catalog.criterion(crit).short_label
        ax.plot(xs, ys, ls=ls, marker=marker, ms=3.5, color=look.colour[name], label=label, lw=1.2)
    ax.set_title(look.name[name])
    ax.set_xlabel("share of positives")
    ax.set_ylabel("optimal threshold (score)")
    return _legend(ax, legend, loc="best")


# ------------------------------------------------------------------------------------------
# Comparisons
# ------------------------------------------------------------------------------------------


def forest(
    result: ComparisonResult,
    *,
    ax: Axes | None = None,
    palette: Sequence[str] | None = None,
) -> Axes:
    """Forest plot of Δ primary metric (model − baseline), one row per comparison: the estimate
    (the model's marker) and its interval (thick). With several comparisons the verdicts are
    Holm-adjusted as a family, so beside each unadjusted interval the simultaneous one (thin,
    Bonferroni level) is drawn and the axis label says which is which."""
    ax, look = _axes(ax), _Looks(result, palette)
    comps = result.comparisons
    if not comps:
        raise ValueError("the result has no comparison (one model, or no baseline)")
    metric = result.run.primary_metric
    sim_level = None
    for i, c in enumerate(comps):
        d = c.delta.get(metric)
        ci = c.ci.get(metric)
        y = len(comps) - 1 - i
        if d is None:
            continue
        col = look.colour[c.model]
        dec = c.decision
        if dec is not None and dec.family_size > 1 and dec.ci_simultaneous is not None:
            lo, hi = dec.ci_simultaneous
            ax.plot([lo, hi], [y, y], color=col, lw=0.9)
            ax.plot([lo, lo, hi, hi], [y - 0.12, y + 0.12, y - 0.12, y + 0.12], ls="none", marker="|", color=col, ms=6)
            sim_level = dec.ci_simultaneous_level
        if ci:
            ax.plot(ci, [y, y], color=col, lw=2.6)
        ax.plot([d], [y], marker=look.marker[c.model], color=col, mec="black", mew=0.6, ms=7, ls="none")
    ax.axvline(0, color="black", lw=0.9)
    ax.set_yticks(range(len(comps)), [f"{look.name[c.model]} − {look.name[c.baseline]}" for c in reversed(comps)])
    name = catalog.short_label(metric)
    level = f"{result.run.confidence_level * 100:g} %"
    if sim_level is not None:
        ax.set_xlabel(f"Δ {name} (thick: {level} CI, unadjusted; thin: simultaneous {sim_level * 100:.3g} % CI)")
    else:
        ax.set_xlabel(f"Δ {name} ({level} CI)")
    ax.set_title(f"Difference in {name} against the baseline")
    ax.set_ylim(-0.6, len(comps) - 0.4)
    ax.grid(axis="y", visible=False)
    return ax


def segment_forest(
    result: ComparisonResult,
    column: str,
    *,
    ax: Axes | None = None,
    palette: Sequence[str] | None = None,
    legend: bool = True,
) -> Axes:
    """Forest plot of each challenger's Δ primary metric (challenger − baseline) within each value
    of a segment column (``segments:``): one row per value, the challengers side by side in their
    colours and markers, each estimate with its unadjusted interval; a Holm-significant one
    (over the column's values) filled, others hollow. Values too small to test are labelled so."""
    ax, look = _axes(ax), _Looks(result, palette)
    section = result.segments
    col = None if section is None else next((c for c in section.columns if c.column == column), None)
    if col is None:
        raise ValueError(f"the result has no segment column {column!r} (a run with segments: [{column}] has one)")
    names = [n for n in result.models if n != section.baseline]  # type: ignore[union-attr]
    k = len(col.values)
    step = 0.6 / max(len(names), 1)
    for i, v in enumerate(col.values):
        y = k - 1 - i
        for j, name in enumerate(names):
            d = next((x for x in v.deltas if x.model == name), None)
            if d is None or d.delta is None:
                continue
            yy = y + 0.3 - step * (j + 0.5)
            c = look.colour[name]
            if d.ci:
                ax.plot(d.ci, [yy, yy], color=c, lw=2.0)
            face = c if d.significant else "white"
            ax.plot([d.delta], [yy], marker=look.marker[name], color=c, mfc=face, mec=c, mew=1.2, ms=6, ls="none",
                    label=look.name[name] if i == 0 else None)  # fmt: skip
    ax.axvline(0, color="black", lw=0.9)
    ax.set_yticks(range(k), [v.value if v.tested else f"{v.value} (too small)" for v in reversed(col.values)])
    ax.set_ylim(-0.6, k - 0.4)
    name = catalog.short_label(section.primary_metric)  # type: ignore[union-attr]
    level = f"{result.run.confidence_level * 100:g} %"
    ax.set_xlabel(f"Δ {name} vs {look.name[section.baseline]} ({level} CI; filled: significant after Holm)")  # type: ignore[union-attr]
    ax.set_title(f"Difference in {name} by {column}")
    ax.grid(axis="y", visible=False)
    if legend and len(names) > 1:
        ax.legend(loc="best", frameon=False)
    return ax


def trend(
    result: ComparisonResult,
    metric: str | None = None,
    *,
    models: Sequence[str] | None = None,
    ax: Axes | None = None,
    palette: Sequence[str] | None = None,
    legend: bool = True,
) -> Axes:
    """A headline metric (default: the primary metric) of each model across the runs recorded in
    the history store (``history:``; the result's ``trend``), oldest first, this run last: one
    line per model, each run's interval as a bar. Runs are spaced evenly and labelled by date
    (and time, where two runs share a date)."""
    ax = _axes(ax)
    metric = metric or result.run.primary_metric
    points = [p for p in result.trend if p.kind == "model" and p.metric == metric]
    if not points:
        raise ValueError(f"the result has no trend of {metric!r} (a run with history: records one)")
    runs = list(dict.fromkeys((p.created, p.run_id) for p in points))
    at = {r: i for i, r in enumerate(runs)}
    subjects = list(dict.fromkeys(p.subject for p in points))
    if models is not None:
        subjects = [s for s in subjects if s in set(_pick(result, models))]
    # a model of past runs only comes after this run's, in colours of its own
    everyone = [*result.models, *(s for s in subjects if s not in result.models)]
    pal = palette or PALETTE
    col, dash, mark, shown = colours(everyone, pal), dashes(everyone, pal), markers(everyone), figure_names(everyone)
    for s in subjects:
        mine = sorted(((at[(p.created, p.run_id)], p) for p in points if p.subject == s and p.value is not None),
                      key=lambda q: q[0])  # fmt: skip
        if not mine:
            continue
        x = np.array([i for i, _ in mine], dtype=float)
        y = np.array([p.value for _, p in mine], dtype=float)
        lo = np.array([p.ci[0] if p.ci else np.nan for _, p in mine])
        hi = np.array([p.ci[1] if p.ci else np.nan for _, p in mine])
        ax.errorbar(
            x, y, yerr=[y - lo, hi - y], color=col[s], ls=dash[s], marker=mark[s],
            ms=4, lw=1.3, elinewidth=0.9, capsize=2, label=shown[s],
        )  # fmt: skip
    # the run's date, with its time (UTC) where two runs share a date
    dates = [created[:10] for created, _ in runs]
    labels = [created[:16].replace("T", " ") if dates.count(d) > 1 else d for d, (created, _) in zip(dates, runs)]
    ax.set_xticks(
        range(len(runs)), labels, rotation=30 if len(runs) > 4 else 0, ha="right" if len(runs) > 4 else "center"
    )
    ax.set_xlim(-0.5, len(runs) - 0.5)
    ax.set_ylabel(f"{catalog.short_label(metric)} (bars: interval)")
    ax.set_title(f"{catalog.label(metric)} across recorded runs")
    return _legend(ax, legend, loc="best")


# ------------------------------------------------------------------------------------------
# Multiclass
# ------------------------------------------------------------------------------------------


def _class_curves(
    result: ComparisonResult,
    label: str | None,
    kind: str,
    models: Sequence[str] | None,
    ax: Axes | None,
    palette: Sequence[str] | None,
) -> tuple[Axes, _Looks]:
    ax, look = _axes(ax), _Looks(result, palette)
    classes = list(result.run.classes or [])
    if label is not None and label not in classes:
        raise ValueError(f"class {label!r} is not in the result (classes: {', '.join(classes)})")
    if kind == "roc":
        ax.plot([0, 1], [0, 1], ls="--", color=MUTED, lw=0.8)
    for name in _pick(result, models):
        m = result.models[name]
        mc = m.multiclass_curves
        if mc is None:
            continue
        if label is None:
            c = mc.micro_roc
            auc = m.metrics.get("roc_auc_ovr_micro")
        else:
            c = (mc.per_class_roc if kind == "roc" else mc.per_class_pr).get(label)
            auc = (m.per_class or {}).get(label, {}).get("roc_auc")
        if c is None:
            continue
        text = f"{look.name[name]} {fmt_metric(auc, 'roc_auc')}" if kind == "roc" else look.name[name]
        ax.plot(c.x, c.y, color=look.colour[name], ls=look.dash[name], lw=1.3, label=text)
    ax.set(xlim=(0, 1), ylim=(0, 1.02))
    return ax, look


def class_roc(
    result: ComparisonResult,
    label: str | None = None,
    *,
    models: Sequence[str] | None = None,
    ax: Axes | None = None,
    palette: Sequence[str] | None = None,
    legend: bool = True,
) -> Axes:
    """A multiclass result's one-vs-rest ROC curve of class ``label`` (None: the micro-average,
    every (row, class) cell pooled): the chance diagonal (first line), then one line per model
    with a class score, labelled with its AUC."""
    ax, _ = _class_curves(result, label, "roc", models, ax, palette)
    ax.set_title(safe_text("micro-average (all classes pooled)" if label is None else f"{label} vs rest"))
    ax.set(xlabel="false positive rate", ylabel="true positive rate")
    return _legend(
        ax, legend, loc="lower right", fontsize=MIN_POINTS, title="AUC", title_fontsize=MIN_POINTS,
        borderaxespad=0.2, handlelength=1.6, labelspacing=0.2,
    )  # fmt: skip


def class_precision_recall(
    result: ComparisonResult,
    label: str,
    *,
    models: Sequence[str] | None = None,
    ax: Axes | None = None,
    palette: Sequence[str] | None = None,
    legend: bool = True,
) -> Axes:
    """A multiclass result's one-vs-rest precision–recall curve of class ``label``: one line per
    model with a class score."""
    ax, _ = _class_curves(result, label, "pr", models, ax, palette)
    ax.set_title(safe_text(f"{label} vs rest"))
    ax.set(xlabel="recall", ylabel="precision")
    return _legend(ax, legend, loc="best")


# ------------------------------------------------------------------------------------------
# Credit validation (a result with ``credit:``)
# ------------------------------------------------------------------------------------------


def _credit(result: ComparisonResult, model: str | None) -> tuple[str, CreditModel]:
    """The credit result of ``model`` (default: the first model with one)."""
    if result.credit is None:
        raise ValueError("the result has no credit validation (a run with credit: has one)")
    name = _one(list(result.credit.models), model, "credit validation")
    return name, result.credit.models[name]


def _colour(result: ComparisonResult, name: str, palette: Sequence[str] | None) -> str:
    return colours(list(result.models), palette or PALETTE).get(name, MUTED)


def credit_calibration(
    result: ComparisonResult,
    model: str | None = None,
    *,
    ax: Axes | None = None,
    palette: Sequence[str] | None = None,
    legend: bool = True,
) -> Axes:
    """Calibration by grade: each grade's observed default rate against its mean PD, with its
    Jeffreys interval, on log axes (a low-default book's grades spread out rather than piled into
    the first of ten equal-width bins); the dashed diagonal is observed = PD."""
    name, m = _credit(result, model)
    if not any(g.mean_pd is not None and g.n > 0 for g in m.grades):
        raise ValueError(f"model {name!r} has no grade with a mean PD")
    return _credit_calibration(_axes(ax), m, _colour(result, name, palette), legend)


def _credit_calibration(ax: Axes, m: CreditModel, colour: str, legend: bool = True) -> Axes:
    rows = [g for g in m.grades if g.mean_pd is not None and g.n > 0]
    x = np.array([g.mean_pd for g in rows])
    y = np.array([g.default_rate for g in rows])
    lo = np.array([g.dr_interval[0] if g.dr_interval else np.nan for g in rows])
    hi = np.array([g.dr_interval[1] if g.dr_interval else np.nan for g in rows])
    floor = max(min(float(x.min()), float(lo[lo > 0].min()) if np.any(lo > 0) else 1.0) / 2, 1e-5)
    top = min(1.0, max(float(x.max()), float(hi.max())) * 1.5)
    ax.plot([floor, top], [floor, top], ls="--", color=MUTED, lw=0.9, label="observed = PD")
    # a grade at PD 0 (or of DR 0) sits on the axis' floor: a log axis cannot show 0, and the grade vanished
    ax.errorbar(
        np.maximum(x, floor),
        np.maximum(y, floor),
        yerr=[np.maximum(y, floor) - np.maximum(lo, floor), hi - np.maximum(y, floor)],
        fmt="o",
        color=colour,
        ms=4,
        lw=1.0,
        capsize=2,
        label="grade (Jeffreys interval)",
    )
    ax.set(
        xscale="log",
        yscale="log",
        xlim=(floor, top),
        ylim=(floor, top),
        xlabel="mean PD of the grade",
        ylabel="observed default rate",
        title="Calibration by grade",
    )
    # rates in percent, as the tables print them (1 %, 2 %, 5 %, 10 %), not powers of ten (10⁻²)
    # (the x axis of a narrow panel labels decades only when it spans more than one and a half)
    wide = np.log10(top / floor) > 1.5
    for axis in (ax.xaxis, ax.yaxis):
        subs = (1.0,) if axis is ax.xaxis and wide else (1.0, 2.0, 5.0)
        axis.set_major_locator(LogLocator(base=10.0, subs=subs))
        axis.set_major_formatter(FuncFormatter(lambda v, _: f"{v * 100:g} %"))
        axis.set_minor_formatter(NullFormatter())
    return _legend(ax, legend, loc="upper left")


def cap(
    result: ComparisonResult,
    model: str | None = None,
    *,
    ax: Axes | None = None,
    palette: Sequence[str] | None = None,
    legend: bool = True,
) -> Axes:
    """The cumulative accuracy profile (CAP): share of defaults captured against the share of rows
    taken riskiest first, with the perfect (dotted) and random (dashed) models; labelled with the
    accuracy ratio."""
    name, m = _credit(result, model)
    if m.cap is None:
        raise ValueError(f"model {name!r} has no CAP curve")
    return _cap(_axes(ax), m, _colour(result, name, palette), legend)


def _cap(ax: Axes, m: CreditModel, colour: str, legend: bool = True) -> Axes:
    assert m.cap is not None  # drawn for a model with a CAP curve
    pi = m.defaults / m.n if m.n else 0.0
    ax.plot([0, pi, 1], [0, 1, 1], color=MUTED, lw=0.9, ls=":", label="perfect model")
    ax.plot([0, 1], [0, 1], color=MUTED, lw=0.9, ls="--", label="random")
    label = f"model (AR {m.accuracy_ratio:.3f})" if m.accuracy_ratio is not None else "model"
    ax.plot(m.cap.x, m.cap.y, color=colour, label=label)
    ax.set(
        xlim=(0, 1),
        ylim=(0, 1.01),
        xlabel="share of rows, riskiest first",
        ylabel="share of defaults captured",
        title="CAP curve",
    )
    return _legend(ax, legend, loc="lower right")


def _psi(v: float | None) -> str:
    """The PSI as the section's table prints it (four decimals): the title never says 0.002 for the
    table's 0.0025."""
    return "n/a" if v is None else f"{v:.4f}"


def score_stability(
    result: ComparisonResult,
    model: str | None = None,
    *,
    ax: Axes | None = None,
    palette: Sequence[str] | None = None,
    legend: bool = True,
) -> Axes:
    """Score distributions of the reference (grey, filled) and current samples, titled with the
    population stability index."""
    name, m = _credit(result, model)
    if m.stability is None or m.stability.scores is None:
        raise ValueError(f"model {name!r} has no reference sample (reference:)")
    return _score_stability(_axes(ax), m, _colour(result, name, palette), legend)


def _score_stability(ax: Axes, m: CreditModel, colour: str, legend: bool = True) -> Axes:
    s = m.stability
    assert s is not None and s.scores is not None  # drawn for a model with a reference sample
    h = s.scores
    ax.stairs(h.reference, h.edges, color=MUTED, fill=True, alpha=0.35, label="reference")
    ax.stairs(h.current, h.edges, color=colour, lw=1.4, label="current")
    ax.set(xlabel="score", ylabel="share of rows", title=f"Score distributions (PSI {_psi(s.psi.statistic)})")
    return _legend(ax, legend, loc="best")


def auc_over_time(
    result: ComparisonResult,
    model: str | None = None,
    *,
    ax: Axes | None = None,
    palette: Sequence[str] | None = None,
) -> Axes:
    """The AUC per period (line, its interval as a band; left axis) and the default rate per
    period (grey dashed; right axis, a twin of ``ax``, from 0). Returns ``ax``."""
    name, m = _credit(result, model)
    if len(m.periods) < 2:
        raise ValueError(f"model {name!r} has fewer than two periods")
    return _auc_over_time(_axes(ax), m, _colour(result, name, palette))


def _auc_over_time(ax: Axes, m: CreditModel, colour: str, legend: bool = False) -> Axes:
    keys = [p.key for p in m.periods]
    t = np.arange(len(keys))
    auc = np.array([np.nan if p.auc is None else p.auc for p in m.periods])
    lo = np.array([np.nan if p.auc_ci is None else p.auc_ci[0] for p in m.periods])
    hi = np.array([np.nan if p.auc_ci is None else p.auc_ci[1] for p in m.periods])
    ax.fill_between(t, lo, hi, color=colour, alpha=0.2, lw=0)
    ax.plot(t, auc, "o-", color=colour, ms=3.5, label="AUC (interval)")
    # the axes say which line is which (no legend, which hid the lines' ends on two axes)
    ax.set(title=f"Over time (per {m.period})")
    ax.set_ylabel("AUC (line; band: interval)", color=colour)
    ax.set_xticks(t, keys, rotation=45 if len(keys) > 6 else 0, ha="right" if len(keys) > 6 else "center")
    ax2 = ax.twinx()
    dr = [p.default_rate for p in m.periods]
    ax2.plot(t, dr, "s--", color=MUTED, ms=3, lw=1.0, label="default rate")
    ax2.set_ylabel("default rate (dashed)", color=MUTED)
    # from 0: an axis spanning 9.90 %–10.00 % drew a 0.1-point wobble as a collapse
    top = max((v for v in dr if v is not None and np.isfinite(v)), default=0.0)
    ax2.set_ylim(0.0, top * 1.25 if top > 0 else 1.0)
    ax2.yaxis.set_major_formatter(PercentFormatter(1.0, symbol=" %"))
    ax2.spines["right"].set_visible(True)
    ax2.grid(False)
    return ax


#: The credit figure's panels: key → ``draw(ax, credit_model, colour)`` (what the public
#: functions above draw once they have found the model and its colour).
CREDIT_PANELS = {
    "calibration": _credit_calibration,
    "cap": _cap,
    "distributions": _score_stability,
    "trend": _auc_over_time,
}


__all__ = [
    "DASHES",
    "MARKERS",
    "MIN_POINTS",
    "PALETTE",
    "STYLE",
    "auc_over_time",
    "calibration",
    "calibration_intervals",
    "cap",
    "class_precision_recall",
    "class_roc",
    "colours",
    "cost",
    "credit_calibration",
    "dashes",
    "forest",
    "gains",
    "ks",
    "new_figure",
    "precision_recall",
    "prevalence_thresholds",
    "roc",
    "score_distribution",
    "score_stability",
    "segment_forest",
    "style",
    "threshold_metric",
    "top_label_calibration",
    "trend",
]
