"""A printed threshold reproduces its counts: applying the rule to the data with the threshold as
the report prints it (a few significant digits, :func:`reportgen.report.formats.fmt_threshold`)
flags exactly the rows the exact threshold flags, for every optimum and every approval cut, in
both score directions and with ties."""

from __future__ import annotations

import numpy as np
from hypothesis import given, settings
from hypothesis import strategies as st

from reportgen.engine.approval import compare_at_rate
from reportgen.engine.binary import optimal_thresholds
from reportgen.engine.curve import build_table
from reportgen.report.formats import THRESHOLD_DIGITS, fmt_threshold
from reportgen.report.views.common import optimum_threshold


def _parse(text: str) -> float:
    return float(text.replace("\u2212", "-"))


#: Scores as a credit pack has them: probabilities, near-equal floats, scorecard points, tiny PDs.
_score = st.one_of(
    st.floats(0, 1, allow_subnormal=False),
    st.floats(0.158299415, 0.1582994157),
    st.integers(300, 900).map(float),
    st.floats(1e-7, 1e-4),
    st.floats(-50, 50, allow_subnormal=False),
)


@st.composite
def _rows(draw: st.DrawFn) -> tuple[np.ndarray, np.ndarray]:
    pool = draw(st.lists(_score, min_size=1, max_size=12))
    n = draw(st.integers(2, 60))
    idx = draw(st.lists(st.integers(0, len(pool) - 1), min_size=n, max_size=n))  # ties: repeats from a pool
    y = draw(st.lists(st.booleans(), min_size=n, max_size=n))
    return np.array([pool[i] for i in idx]), np.array(y, dtype=bool)


@settings(max_examples=200, deadline=None)
@given(_rows(), st.sampled_from(["higher", "lower"]))
def test_printed_optimum_threshold_reproduces_counts(rows: tuple[np.ndarray, np.ndarray], direction: str) -> None:
    scores, y = rows
    table = build_table(scores, y, direction=direction)  # type: ignore[arg-type]
    for o in optimal_thresholds(table):
        if o.threshold is None:
            continue
        t = _parse(optimum_threshold(o))
        flagged = scores >= t if direction == "higher" else scores <= t
        counts = (
            np.count_nonzero(flagged & y),
            np.count_nonzero(flagged & ~y),
            np.count_nonzero(~flagged & y),
            np.count_nonzero(~flagged & ~y),
        )
        assert counts == (o.tp, o.fp, o.fn, o.tn), (o, optimum_threshold(o))


@settings(max_examples=100, deadline=None)
@given(_rows(), st.sampled_from(["higher", "lower"]), st.floats(0.05, 0.95))
def test_printed_approval_cut_approves_the_same_rows(
    rows: tuple[np.ndarray, np.ndarray], direction: str, rate: float
) -> None:
    scores, y = rows
    table = build_table(scores, y, direction=direction)  # type: ignore[arg-type]
    oriented = scores if direction == "higher" else -scores
    codes = np.searchsorted(-table.oriented(), -oriented)  # each row's index in the table, riskiest first
    (a,) = compare_at_rate(
        rate, "config", y, None, ["m", "b"], [codes, codes], [table.thresholds] * 2, 1, 0.95, 0, None
    )  # type: ignore[arg-type]
    for side in (a.model, a.baseline):
        if side.threshold is None:
            continue
        t = _parse(optimum_threshold(side))
        approved = scores <= t if direction == "higher" else scores >= t
        assert np.count_nonzero(approved) == side.approved_rows, (side, optimum_threshold(side))


def test_threshold_digits_and_form() -> None:
    """Four significant digits where the gap allows; more only where it demands; no exponent."""
    assert THRESHOLD_DIGITS == 4
    assert fmt_threshold(0.217799, 0.2171) == "0.2177"
    assert fmt_threshold(0.2178, 0.2171) == "0.2178"
    assert fmt_threshold(0.1582994156310317, 0.15829941) == "0.158299415"
    assert fmt_threshold(1.5829941563103168e-05, 1.2e-05) == "0.00001582"
    assert "e" not in fmt_threshold(1.5829941563103168e-05)
    assert fmt_threshold(560.0, 562.0) == "560"
    assert fmt_threshold(555.21, 557.0) == "555.3"  # score ≤ t: rounded up, toward the next score
    assert fmt_threshold(None) == "none positive"
