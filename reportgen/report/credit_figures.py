"""Figures of the credit validation section: per model, one figure of up to four panels drawn by
:mod:`reportgen.plot` (:func:`~reportgen.plot.credit_calibration`, :func:`~reportgen.plot.cap`,
:func:`~reportgen.plot.score_stability`, :func:`~reportgen.plot.auc_over_time`), two to a row at
the report's half width each, so the figure prints at its drawn size (three panels in a row were
drawn 10.4 in wide and printed at two thirds: 5 pt text). Nothing here computes a statistic.

The views import :func:`panel_keys` (the caption names the panels), so this module imports
matplotlib (through :mod:`reportgen.plot`) only when it draws: writing ``metrics.json`` alone
never loads it."""

from __future__ import annotations

from collections.abc import Callable, Sequence
from typing import TYPE_CHECKING

from reportgen.report.formats import isolate
from reportgen.results import ComparisonResult, CreditModel

if TYPE_CHECKING:
    from matplotlib.figure import Figure

__all__ = ["KEY_PREFIX", "credit_figure", "figure_table", "panel_keys"]


def panel_keys(m: CreditModel) -> list[str]:
    """The panels the model's result supports, in drawing order (left to right, top to bottom)."""
    keys = []
    if m.calibration is not None and any(g.mean_pd is not None and g.n > 0 for g in m.grades):
        keys.append("calibration")
    if m.cap is not None and m.defaults > 0:
        keys.append("cap")
    if m.stability is not None and m.stability.scores is not None:
        keys.append("distributions")
    if len(m.periods) >= 2:
        keys.append("trend")
    return keys


def credit_figure(m: CreditModel, colour: str) -> Figure | None:
    """The model's panels (:func:`panel_keys`, :data:`reportgen.plot.CREDIT_PANELS`), two to a
    row (a third centred below), or None."""
    import reportgen.plot as plot  # noqa: PLC0415  (matplotlib: see the module)
    from reportgen.report.figures import HALF_WIDTH, _matplotlib_notes, panel_rows, panels  # noqa: PLC0415

    keys = panel_keys(m)
    if not keys:
        return None
    with plot.style(), _matplotlib_notes():
        fig = plot.new_figure(HALF_WIDTH * min(2, len(keys)) + 0.2, 2.7 * panel_rows(len(keys), 2) + 0.2)
        for ax, key in zip(panels(fig, len(keys), 2), keys, strict=True):
            plot.CREDIT_PANELS[key](ax, m, colour)
        fig.suptitle(isolate(plot.safe_text(m.model)), fontsize=9, fontweight="bold")
    return fig


#: The key prefix of the credit figures in a report's figure table (:func:`figure_table`).
KEY_PREFIX = "credit:"


def figure_table(result: ComparisonResult) -> dict[str, Callable[..., Figure | None]]:
    """``credit:NAME → fn(result, palette)`` drawing the model's :func:`credit_figure` in its
    colour, for :func:`reportgen.report.figures.render_figures`, which draws them after the
    report's other figures."""
    import reportgen.plot as plot  # noqa: PLC0415  (matplotlib: see the module)

    if result.credit is None:
        return {}

    def draw(m: CreditModel) -> Callable[..., Figure | None]:
        def fn(result: ComparisonResult, palette: Sequence[str] = plot.PALETTE) -> Figure | None:
            return credit_figure(m, plot.colours(list(result.models), palette).get(m.model, plot.MUTED))

        return fn

    return {f"{KEY_PREFIX}{name}": draw(m) for name, m in result.credit.models.items()}
