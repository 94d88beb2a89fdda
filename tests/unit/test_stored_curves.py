"""Curves in metrics.json (issue 21): simplified with Ramer–Douglas–Peucker to what a figure can
show, exact points kept; ``--full-curves`` keeps the engine's points."""

from __future__ import annotations

import json
import sys
from pathlib import Path

import numpy as np
import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

import reportgen.report.stored_curves as export
from reportgen.engine.binary import simplify, simplify_each, upper_hull
from reportgen.report.render import result_json
from reportgen.results import ComparisonResult


def _rdp_reference(x: np.ndarray, y: np.ndarray, tol: float, lo: int, hi: int, out: set[int]) -> None:
    """The textbook recursion (Douglas & Peucker 1973), one span at a time, distances to the
    chord as a segment."""
    if hi - lo < 2:
        return
    i = np.arange(lo + 1, hi)
    dx, dy, px, py = x[hi] - x[lo], y[hi] - y[lo], x[i] - x[lo], y[i] - y[lo]
    den = dx * dx + dy * dy  # distance to the chord as a segment (projection clamped)
    t = np.clip((px * dx + py * dy) / den, 0.0, 1.0) if den > 0 else np.zeros_like(px)
    d = np.hypot(px - t * dx, py - t * dy)
    j = int(np.argmax(d))
    if d[j] > tol:
        out.add(lo + 1 + j)
        _rdp_reference(x, y, tol, lo, lo + 1 + j, out)
        _rdp_reference(x, y, tol, lo + 1 + j, hi, out)


def _distance_to_polyline(px: np.ndarray, py: np.ndarray, x: np.ndarray, y: np.ndarray) -> np.ndarray:
    """Distance of each point to the nearest segment of the polyline (x, y)."""
    ax, ay, bx, by = x[:-1, None], y[:-1, None], x[1:, None], y[1:, None]
    dx, dy = bx - ax, by - ay
    den = dx * dx + dy * dy
    t = np.clip(np.where(den > 0, ((px - ax) * dx + (py - ay) * dy) / np.where(den > 0, den, 1), 0), 0, 1)
    return np.nanmin(np.hypot(ax + t * dx - px, ay + t * dy - py), axis=0)  # segments into a gap: NaN


@pytest.mark.parametrize("seed", range(60))
def test_simplify_is_the_textbook_recursion(seed: int) -> None:
    rng = np.random.default_rng(seed)
    n = int(rng.integers(2, 300))
    x = np.cumsum(rng.random(n))
    y = np.cumsum(rng.normal(size=n)) * rng.choice([1e-3, 1, 10])
    if seed % 3 == 0:
        y = np.round(y, 1)  # ties for the farthest point
    tol = float(rng.choice([0.0, 1e-3, 0.05, 0.5]))
    expected = {0, n - 1}
    _rdp_reference(x, y, tol, 0, n - 1, expected)
    assert simplify(x, y, tol).tolist() == sorted(expected)


@settings(max_examples=60, deadline=None)
@given(
    st.lists(st.tuples(st.floats(0, 1), st.floats(-1, 1)), min_size=1, max_size=120),
    st.sampled_from([0.0, 1e-3, 0.02, 0.3]),
)
def test_every_dropped_point_lies_within_the_tolerance_and_kept_points_are_exact(points, tol) -> None:
    pts = np.array(sorted(points))
    x, y = pts[:, 0], pts[:, 1]
    keep = np.array([len(x) // 2])
    sel = simplify(x, y, tol, keep)
    n = len(x)
    assert sel[0] == 0 and sel[-1] == n - 1 and (len(x) // 2) in sel
    assert np.all(np.diff(sel) > 0)
    dropped = np.setdiff1d(np.arange(n), sel)
    if dropped.size and sel.size >= 2:
        assert np.all(_distance_to_polyline(x[dropped], y[dropped], x[sel], y[sel]) <= tol + 1e-12)


@pytest.mark.parametrize("seed", range(30))
def test_simplifying_polylines_together_keeps_what_each_keeps_alone(seed: int) -> None:
    """simplify_each lays the polylines end to end: no span may reach from one into the next,
    whatever their lengths (empty, one point), keeps, gaps and ties."""
    rng = np.random.default_rng(seed)
    lines = []
    for _ in range(int(rng.integers(1, 6))):
        n = int(rng.choice([0, 1, 2, 3, int(rng.integers(4, 200))]))
        x, y = np.cumsum(rng.random(n)), np.round(np.cumsum(rng.normal(size=n)), int(rng.integers(0, 3)))
        if n > 3 and seed % 2:
            y[rng.integers(0, n)] = np.nan  # a gap: its neighbours are kept, on its own side only
        keep = rng.choice(n, size=min(n, 2), replace=False) if n and seed % 3 == 0 else None
        lines.append((x, y, keep))
    tol = float(rng.choice([0.0, 1e-3, 0.05, 0.5]))
    together = simplify_each(lines, tol)
    assert [s.tolist() for s in together] == [simplify(x, y, tol, keep).tolist() for x, y, keep in lines]


def test_non_finite_points_are_kept() -> None:
    x = np.linspace(0, 1, 7)
    y = np.array([0, 0.1, 0.2, np.nan, 0.4, 0.5, 0.6])
    sel = simplify(x, y, 0.01)
    assert 3 in sel and sel.tolist() == [0, 2, 3, 4, 6]


@pytest.fixture(scope="module")
def demo_result(tmp_path_factory) -> ComparisonResult:
    sys.path.insert(0, str(Path(__file__).resolve().parents[1]))
    from conftest import PINNED_NOW, write_fast_demo_config

    from reportgen.config import load_config
    from reportgen.pipeline import analyse

    cfg, path = load_config(write_fast_demo_config(tmp_path_factory.mktemp("cfg") / "demo.yaml"))
    return analyse(cfg, path, now=PINNED_NOW)


def test_the_demo_json_shrinks_and_keeps_every_number_but_curve_points(demo_result) -> None:
    full, slim = result_json(demo_result), result_json(export.for_json(demo_result))
    a, b = json.loads(full), json.loads(slim)

    def curves_size(doc: dict) -> int:
        return sum(len(json.dumps(m["curves"])) for m in doc["models"].values())

    # the curves alone (the rest of the document grows with every section): measured 2026-12, the
    # whole document 522 KB -> 224 KB when the curves were most of it
    assert curves_size(b) < 0.4 * curves_size(a), (curves_size(b), curves_size(a))
    for doc in (a, b):
        doc.pop("digest")  # of the whole document, the curves included
        for m in doc["models"].values():
            m.pop("curves")
    assert a == b  # metrics, intervals, tests, optima, audit: identical
    ComparisonResult.from_json(json.loads(slim))  # still a valid metrics.json


def test_simplifying_twice_changes_nothing(demo_result) -> None:
    """Idempotent (each split point is the farthest of the kept ones too), so writing a result
    loaded from a metrics.json again stores, and draws, the same curves."""
    once = export.for_json(demo_result)
    assert result_json(export.for_json(once)) == result_json(once)


def test_stored_points_are_exact_points_with_their_thresholds_and_the_roc_hull(demo_result) -> None:
    slim = export.for_json(demo_result)
    for name, m in demo_result.models.items():
        full_roc, roc = m.curves.roc, slim.models[name].curves.roc
        # every stored point is one of the engine's, with its own threshold
        at = {(x, y): t for x, y, t in zip(full_roc.x.tolist(), full_roc.y.tolist(), full_roc.thresholds.tolist())}
        for x, y, t in zip(roc.x.tolist(), roc.y.tolist(), roc.thresholds.tolist()):
            assert at[(x, y)] == t or (np.isnan(t) and np.isnan(at[(x, y)]))
        hull = upper_hull(full_roc.x, full_roc.y)
        assert set(zip(full_roc.x[hull].tolist(), full_roc.y[hull].tolist())) <= set(
            zip(roc.x.tolist(), roc.y.tolist())
        )
        # and the dropped ones lie within the tolerance of the stored polyline
        for key, curve in m.curves.threshold_metrics.items():
            stored = slim.models[name].curves.threshold_metrics[key]
            ok = np.isfinite(curve.x) & np.isfinite(curve.y)  # undefined points are kept, as gaps
            d = _distance_to_polyline(curve.x[ok], curve.y[ok], stored.x, stored.y)
            assert d.max() <= export.TOLERANCE + 1e-12, (name, key)
            assert len(stored.x) < len(curve.x)


@pytest.mark.slow
def test_full_curves_flag_keeps_the_engine_points(tmp_path: Path, fast_demo_config, cli) -> None:
    args = ["run", str(fast_demo_config), "--format", "json", "--now", "2026-01-01T00:00:00Z", "--quiet"]
    assert cli([*args, "--out", str(tmp_path / "slim")]) == 0
    assert cli([*args, "--out", str(tmp_path / "full"), "--full-curves"]) == 0
    slim = json.loads((tmp_path / "slim" / "metrics.json").read_text(encoding="utf-8"))
    full = json.loads((tmp_path / "full" / "metrics.json").read_text(encoding="utf-8"))
    for name in full["models"]:
        assert len(full["models"][name]["curves"]["roc"]["x"]) > len(slim["models"][name]["curves"]["roc"]["x"])
