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
from collections.abc import Iterator

import numpy as np

from reportgen.engine.binary import simplify_each, upper_hull
from reportgen.engine.sorting import sorted_unique
from reportgen.results import ComparisonResult, CurveData, Curves, KsData, ModelResult

#: Largest distance (in unit-square coordinates) of a dropped point from the stored polyline.
TOLERANCE = 1e-3

#: A polyline to simplify: x, y and the indices it keeps whatever their distance.
_Line = tuple[np.ndarray, np.ndarray, np.ndarray | None]


def _line(c: CurveData, hull: bool = False) -> _Line:
    x, y = np.asarray(c.x, dtype=np.float64), np.asarray(c.y, dtype=np.float64)
    keep = None
    if hull:
        finite = np.flatnonzero(np.isfinite(x) & np.isfinite(y))
        keep = finite[upper_hull(x[finite], y[finite])]
    return x, y, keep


def _taken(c: CurveData, sel: np.ndarray) -> CurveData:
    thresholds = None if c.thresholds is None else np.asarray(c.thresholds)[sel]
    return CurveData(np.asarray(c.x)[sel], np.asarray(c.y)[sel], thresholds)


def _ks_lines(k: KsData) -> list[_Line]:
    t = np.asarray(k.thresholds, dtype=np.float64)
    finite = t[np.isfinite(t)]
    lo, width = (float(finite.min()), float(np.ptp(finite))) if finite.size else (0.0, 0.0)
    u = (t - lo) / width if width > 0 else np.zeros_like(t)
    return [(u, np.asarray(k.tpr, dtype=np.float64), None), (u, np.asarray(k.fpr, dtype=np.float64), None)]


def _ks_taken(k: KsData, tpr: np.ndarray, fpr: np.ndarray) -> KsData:
    sel = sorted_unique(
        np.concatenate([tpr, fpr])
    )  # both lines share the score axis: a point stays when either needs it
    return KsData(np.asarray(k.thresholds)[sel], np.asarray(k.tpr)[sel], np.asarray(k.fpr)[sel])


def _lines(c: Curves) -> list[_Line]:
    """The polylines of ``c`` to simplify, in the order :func:`_rebuilt` takes their indices."""
    lines = [_line(c.roc, hull=True), _line(c.pr), *(_line(v) for v in c.threshold_metrics.values())]
    lines += [] if c.ks is None else _ks_lines(c.ks)
    return lines + ([] if c.lift is None else [_line(c.lift)])


def _rebuilt(c: Curves, sel: Iterator[np.ndarray]) -> Curves:
    """``c`` with each of its :func:`_lines` cut to the next indices of ``sel`` (arguments are
    evaluated left to right, in the order of :func:`_lines`)."""
    return dataclasses.replace(
        c,
        roc=_taken(c.roc, next(sel)),
        pr=_taken(c.pr, next(sel)),
        threshold_metrics={k: _taken(v, next(sel)) for k, v in c.threshold_metrics.items()},
        ks=None if c.ks is None else _ks_taken(c.ks, next(sel), next(sel)),
        lift=None if c.lift is None else _taken(c.lift, next(sel)),
    )


def _simplified(all_curves: list[Curves]) -> list[Curves]:
    """Each of ``all_curves`` with ROC, PR, metric-vs-threshold, KS and lift curves simplified,
    every polyline of every one in one :func:`~reportgen.engine.binary.simplify_each` pass."""
    sel = iter(simplify_each([line for c in all_curves for line in _lines(c)], TOLERANCE))
    return [_rebuilt(c, sel) for c in all_curves]


def simplified_curves(curves: Curves) -> Curves:
    """``curves`` with ROC, PR, metric-vs-threshold, KS and lift curves simplified (see the module)."""
    return _simplified([curves])[0]


def for_json(result: ComparisonResult) -> ComparisonResult:
    """The result ``metrics.json`` stores: every binary model's curves simplified."""
    drawn = {name: m.curves for name, m in result.models.items() if m.curves is not None}
    slim = dict(zip(drawn, _simplified(list(drawn.values()))))
    models: dict[str, ModelResult] = {
        name: dataclasses.replace(m, curves=slim[name]) if name in slim else m for name, m in result.models.items()
    }
    return dataclasses.replace(result, models=models)


__all__ = ["TOLERANCE", "for_json", "simplified_curves"]
