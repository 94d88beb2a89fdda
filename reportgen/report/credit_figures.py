"""Which panels a model's credit figure has (:func:`panel_keys`) and the figure table's key prefix:
what the views need of the credit figures without drawing them (no matplotlib here, so writing
``metrics.json`` alone never loads it). The figure itself is drawn by
:func:`reportgen.report.figures.credit_figure` with :mod:`reportgen.plot`'s credit panels."""

from __future__ import annotations

from reportgen.section_results import CreditModel

__all__ = ["KEY_PREFIX", "panel_keys"]


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


#: The key prefix of the credit figures in a report's figure table (:func:`reportgen.report.figures.credit_figure_table`).
KEY_PREFIX = "credit:"
