"""Figures of the credit validation section: functions of :class:`CreditModel` results.

Per model, one figure of up to three panels: calibration by grade (observed default rate
against mean PD on log axes with each grade's Jeffreys interval, so a low-default book's grades
are spread out rather than piled into the first of ten equal-width bins), the score
distributions of the reference and current samples, and the per-period AUC with its interval
and the default rate. Nothing here computes a statistic; every number comes from the result.
"""

from __future__ import annotations

from collections.abc import Callable

# No matplotlib.use(): Figure objects with their own canvas, as in reportgen.report.figures (a
# notebook's backend and pyplot state are left alone).
import matplotlib
import numpy as np
from matplotlib.figure import Figure
from matplotlib.ticker import FuncFormatter, LogLocator, NullFormatter, PercentFormatter

from reportgen.report.figures import MUTED, STYLE, new_figure, safe_text
from reportgen.report.formats import isolate
from reportgen.results import CreditModel

__all__ = ["KEY_PREFIX", "credit_figure", "figure_table", "panel_keys"]


def _calibration_panel(ax, m: CreditModel, colour: str) -> None:
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
    ax.legend(loc="upper left")


def _psi(v: float | None) -> str:
    """The PSI as the section's table prints it (four decimals): the title never says 0.002 for the
    table's 0.0025."""
    return "n/a" if v is None else f"{v:.4f}"


def _distribution_panel(ax, m: CreditModel, colour: str) -> None:
    s = m.stability
    assert s is not None and s.scores is not None  # the panel is drawn for a model with a reference sample
    h = s.scores
    ax.stairs(h.reference, h.edges, color=MUTED, fill=True, alpha=0.35, label="reference")
    ax.stairs(h.current, h.edges, color=colour, lw=1.4, label="current")
    ax.set(xlabel="score", ylabel="share of rows", title=f"Score distributions (PSI {_psi(s.psi.statistic)})")
    ax.legend(loc="best")


def _cap_panel(ax, m: CreditModel, colour: str) -> None:
    cap = m.cap
    assert cap is not None  # the panel is drawn for a model with a CAP curve
    pi = m.defaults / m.n if m.n else 0.0
    ax.plot([0, pi, 1], [0, 1, 1], color=MUTED, lw=0.9, ls=":", label="perfect model")
    ax.plot([0, 1], [0, 1], color=MUTED, lw=0.9, ls="--", label="random")
    ax.plot(
        cap.x,
        cap.y,
        color=colour,
        label=f"model (AR {m.accuracy_ratio:.3f})" if m.accuracy_ratio is not None else "model",
    )
    ax.set(
        xlim=(0, 1),
        ylim=(0, 1.01),
        xlabel="share of rows, riskiest first",
        ylabel="share of defaults captured",
        title="CAP curve",
    )
    ax.legend(loc="lower right")


def _trend_panel(ax, m: CreditModel, colour: str) -> None:
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


_PANELS = {
    "calibration": _calibration_panel,
    "cap": _cap_panel,
    "distributions": _distribution_panel,
    "trend": _trend_panel,
}


def panel_keys(m: CreditModel) -> list[str]:
    """The panels the model's result supports, in drawing order (left to right, top to bottom)."""
    keys = []
    if m.calibration is not None and any(g.mean_pd is not None and g.n > 0 for g in m.grades):
        keys.append("calibration")
    if m.cap is not None and m.defaults > 0:
        keys.append("cap")
    if m.stability is not None:
        keys.append("distributions")
    if len(m.periods) >= 2:
        keys.append("trend")
    return keys


def credit_figure(m: CreditModel, colour: str) -> Figure | None:
    """The model's panels (:func:`panel_keys`) in a row, or two rows of two for four; None if none."""
    keys = panel_keys(m)
    if not keys:
        return None
    rows, cols = (2, 2) if len(keys) == 4 else (1, len(keys))
    fig = new_figure(3.4 * cols + 0.2, 2.7 * rows + 0.2)
    with matplotlib.rc_context(STYLE):
        for ax, key in zip(np.atleast_1d(fig.subplots(rows, cols)).ravel(), keys, strict=True):
            _PANELS[key](ax, m, colour)
        fig.suptitle(isolate(safe_text(m.model)), fontsize=9, fontweight="bold")
    return fig


#: The key prefix of the credit figures in a report's figure table (:func:`figure_table`).
KEY_PREFIX = "credit:"


def figure_table(models: dict[str, CreditModel], colours: dict[str, str]) -> dict[str, Callable[..., Figure | None]]:
    """``credit:NAME → fn(result, palette)`` drawing the model's :func:`credit_figure`, for
    :func:`reportgen.report.figures.render_figures`, which draws them after the report's other
    figures. The function ignores its arguments: the credit result and colours are bound here."""

    def draw(m: CreditModel, colour: str) -> Callable[..., Figure | None]:
        return lambda *_: credit_figure(m, colour)

    return {f"{KEY_PREFIX}{name}": draw(m, colours.get(name, MUTED)) for name, m in models.items()}
