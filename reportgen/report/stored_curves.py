"""The curves ``metrics.json`` stores: simplified to what a figure can show, exact points kept.

The engine keeps about 1,000 arc-length steps of each curve (:func:`reportgen.engine.binary.decimate`,
about 2,000 points with the point before each step) so that a figure is drawn from exact curve
points. Stored as they are, they made two thirds of the demo's ``metrics.json``. Here each curve
is reduced with Ramer–Douglas–Peucker (:func:`reportgen.engine.binary.simplify`) at
:data:`TOLERANCE` in the figure's own coordinates (unit square: rates, shares, metric values;
the KS curve's score axis scaled to [0, 1]): every dropped point lies within 0.001 of the
polyline through the kept ones, about a third of a pixel on the report's figures (a unit is
some 330 px), less than matplotlib's own ``path.simplify_threshold`` of half a pixel drops
when it draws. The demo's ``metrics.json``: 522 KB with the engine's points, 224 KB simplified. Kept points are exact points of
the engine's curve (a subset, with their thresholds); the ROC curve keeps every vertex of its
convex hull (optimal thresholds and cost curves live there). The report's figures are drawn
from these same points (:func:`reportgen.report.writer.write_outputs`), so a report re-rendered from
its ``metrics.json`` (``reportgen render``) is byte-identical. Simplifying twice changes
nothing (each split point is also the farthest among the kept points).

Metrics, intervals and tests are untouched: they never come from curve points. ``--full-curves``
(``write_outputs(..., full_curves=True)``) stores the engine's points instead. Not simplified:
the cost curve (201 grid points), histograms, calibration bins and multiclass per-class curves.
"""

from __future__ import annotations

import dataclasses

import numpy as np

from reportgen.engine.binary import simplify, upper_hull
from reportgen.results import ComparisonResult, CurveData, Curves, KsData, ModelResult

#: Largest distance (in unit-square coordinates) of a dropped point from the stored polyline.
TOLERANCE = 1e-3


def _curve(c: CurveData, hull: bool = False) -> CurveData:
    x, y = np.asarray(c.x, dtype=np.float64), np.asarray(c.y, dtype=np.float64)
    keep = None
    if hull:
        finite = np.flatnonzero(np.isfinite(x) & np.isfinite(y))
        keep = finite[upper_hull(x[finite], y[finite])]
    sel = simplify(x, y, TOLERANCE, keep)
    return CurveData(x[sel], y[sel], None if c.thresholds is None else np.asarray(c.thresholds)[sel])


def _ks(k: KsData) -> KsData:
    t = np.asarray(k.thresholds, dtype=np.float64)
    finite = t[np.isfinite(t)]
    lo, width = (float(finite.min()), float(np.ptp(finite))) if finite.size else (0.0, 0.0)
    u = (t - lo) / width if width > 0 else np.zeros_like(t)
    tpr, fpr = np.asarray(k.tpr, dtype=np.float64), np.asarray(k.fpr, dtype=np.float64)
    # both lines share the score axis: a point stays when either line needs it
    sel = np.union1d(simplify(u, tpr, TOLERANCE), simplify(u, fpr, TOLERANCE))
    return KsData(t[sel], tpr[sel], fpr[sel])


def simplified_curves(curves: Curves) -> Curves:
    """``curves`` with ROC, PR, metric-vs-threshold, KS and lift curves simplified (see the module)."""
    return dataclasses.replace(
        curves,
        roc=_curve(curves.roc, hull=True),
        pr=_curve(curves.pr),
        threshold_metrics={k: _curve(v) for k, v in curves.threshold_metrics.items()},
        ks=None if curves.ks is None else _ks(curves.ks),
        lift=None if curves.lift is None else _curve(curves.lift),
    )


def for_json(result: ComparisonResult) -> ComparisonResult:
    """The result ``metrics.json`` stores: every binary model's curves simplified."""
    models: dict[str, ModelResult] = {
        name: m if m.curves is None else dataclasses.replace(m, curves=simplified_curves(m.curves))
        for name, m in result.models.items()
    }
    return dataclasses.replace(result, models=models)


__all__ = ["TOLERANCE", "for_json", "simplified_curves"]
