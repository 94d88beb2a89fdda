"""Oracles shared by the test modules: slow, obviously correct loops (tests/ is on sys.path
through tests/conftest.py)."""

from __future__ import annotations


def monotone_chain_upper(x, y, tol=0.0):
    """Andrew's monotone chain (upper hull), a row loop: the oracle for upper_hull.

    ``tol`` > 0: a point within ``tol`` of collinear with its neighbours (cross product ≥ −tol)
    is dropped too, leaving only the vertices that are vertices whatever the rounding (points
    collinear in exact arithmetic can come out a hair above or below the chord in floats)."""
    hull: list[int] = []
    for i in range(len(x)):
        while len(hull) >= 2:
            a, b = hull[-2], hull[-1]
            if (x[b] - x[a]) * (y[i] - y[a]) - (y[b] - y[a]) * (x[i] - x[a]) >= -tol:
                hull.pop()
            else:
                break
        hull.append(i)
    return hull
