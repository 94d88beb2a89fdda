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


def holm_adjusted(p_values):
    """statsmodels' Holm-adjusted p-values (``multipletests(p, method="holm")[1]``).

    statsmodels runs a full ``gc.collect()`` on each Holm call, which in a test process (every
    test module and oracle library imported) costs about half a CPU-second; the objects alive
    before the call are frozen for its duration (``gc.freeze``), so the collection looks only at
    what the call itself allocates. The numbers are statsmodels' own."""
    import gc  # noqa: PLC0415

    from statsmodels.stats.multitest import multipletests  # noqa: PLC0415

    gc.freeze()
    try:
        return multipletests(p_values, method="holm")[1]
    finally:
        gc.unfreeze()
