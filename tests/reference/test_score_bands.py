"""The score-band (decile) table against an independent computation on the raw rows.

The oracle sorts the rows riskiest first with numpy, finds each band's last score as the
``k / bands`` quantile by ``np.quantile(..., method="inverted_cdf")`` of the risk-ordered key,
puts every row whose key is at most that quantile (and above the previous one) in the band, and
sums per band: no score table, no cumulative-share arithmetic of the engine. The tied case
checks the convention that equal scores never straddle a band boundary.

toad's ``KS_bucket`` reports the same quantities per bucket but cuts by its own binning; it is
compared in words in docs/user-guide/score-bands.md, not here.
"""

from __future__ import annotations

import itertools

import numpy as np
import pytest

from reportgen.engine.bands import band_table
from reportgen.engine.curve import build_table


def _oracle(score: np.ndarray, y: np.ndarray, bands: int, direction: str) -> list[dict]:
    key = -score if direction == "higher" else score  # ascending key = riskiest first
    n = key.shape[0]
    cuts = [np.quantile(key, k / bands, method="inverted_cdf") for k in range(1, bands + 1)]
    P, N = y.sum(), n - y.sum()
    out, lo, cp, cn, cr = [], -np.inf, 0, 0, 0
    for hi in cuts:
        inside = (key > lo) & (key <= hi)
        lo = max(lo, hi)
        if not inside.any():
            continue
        r, p = int(inside.sum()), int(y[inside].sum())
        cp, cn, cr = cp + p, cn + r - p, cr + r
        out.append(
            {
                "rows": r,
                "positives": p,
                "rate": p / r,
                "capture": cp / P,
                "share_of_rows": cr / n,
                "lift": (cp / P) / (cr / n),
                "band_lift": (p / r) / (P / n),
                "ks": cp / P - cn / N,
                "score_first": score[inside][np.argmin(key[inside])],
                "score_last": score[inside][np.argmax(key[inside])],
            }
        )
    return out


@pytest.mark.parametrize("direction", ["higher", "lower"])
@pytest.mark.parametrize("tied", [False, True], ids=["tie_free", "tied"])
@pytest.mark.parametrize("bands", [10, 4, 7])
def test_bands_equal_the_row_oracle(direction: str, tied: bool, bands: int) -> None:
    rng = np.random.default_rng(7 + bands)
    n = 503
    y = rng.random(n) < 0.2
    score = rng.normal(size=n) + 1.2 * y
    if tied:  # scorecard-like points: many ties, one tie larger than a band
        score = np.round(score * 3) / 3
        score[:140] = 0.0
    else:
        assert np.unique(score).shape[0] == n
    if direction == "lower":
        score = -score
    got = band_table(build_table(score, y, direction=direction), bands)
    want = _oracle(score, y.astype(int), bands, direction)
    assert len(got.rows) == len(want)
    for g, w in zip(got.rows, want, strict=True):
        for k, v in w.items():
            assert getattr(g, k) == pytest.approx(v, rel=1e-12, abs=1e-12), (g.band, k)
    if not tied:
        assert len(got.rows) == bands
        assert max(r.rows for r in got.rows) - min(r.rows for r in got.rows) <= 1
    else:  # no distinct score in two bands
        spans = [(r.score_first, r.score_last) for r in got.rows]
        for (_, last), (first, _) in itertools.pairwise(spans):
            assert (last > first) if direction == "higher" else (last < first)
        assert max(r.rows for r in got.rows) >= 140  # the tie of 140 rows at score 0, whole in one band


def test_bands_last_row_closes_the_table() -> None:
    rng = np.random.default_rng(3)
    y = rng.random(200) < 0.3
    t = band_table(build_table(rng.random(200), y, direction="higher"))
    last = t.rows[-1]
    assert last.capture == pytest.approx(1.0) and last.share_of_rows == pytest.approx(1.0)
    assert last.ks == pytest.approx(0.0, abs=1e-12) and last.lift == pytest.approx(1.0)
    assert sum(r.rows for r in t.rows) == 200


def test_bands_weighted_rows_are_weights() -> None:
    score = np.array([0.9, 0.8, 0.7, 0.6])
    y = np.array([1, 0, 1, 0], dtype=bool)
    w = np.array([3.0, 1.0, 1.0, 3.0])
    t = band_table(build_table(score, y, weights=w, direction="higher"), 2)
    assert t.weighted
    assert [r.rows for r in t.rows] == [4.0, 4.0]
    assert [r.positives for r in t.rows] == [3.0, 1.0]  # band 1: 0.9 (w 3) and 0.8 (w 1), by weight
