"""Oracles shared by the test modules: slow, obviously correct loops (tests/ is on sys.path
through tests/conftest.py)."""

from __future__ import annotations


def monotone_chain_upper(x, y):
    """Andrew's monotone chain (upper hull), a row loop: the oracle for upper_hull."""
    hull: list[int] = []
    for i in range(len(x)):
        while len(hull) >= 2:
            a, b = hull[-2], hull[-1]
            if (x[b] - x[a]) * (y[i] - y[a]) - (y[b] - y[a]) * (x[i] - x[a]) >= 0:
                hull.pop()
            else:
                break
        hull.append(i)
    return hull
