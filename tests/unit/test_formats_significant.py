"""Numbers a reader can trust at a glance (issue 40): an interval's end shows which side of zero
it lies on ([−0.015, 0.000] was marked "worse" beside [−0.009, 0.000] "not significant")."""

from __future__ import annotations

import pytest

from reportgen.report.formats import fmt_ci


def _ends(text: str) -> list[float]:
    return [float(e.replace("−", "-")) for e in text.strip("[]").split(", ")]


@pytest.mark.parametrize(
    ("ci", "text"),
    [
        ([-0.015, -0.0002], "[−0.015, −0.0002]"),
        ([-0.009, 0.0], "[−0.009, 0.000]"),
        ([-0.009, -0.0], "[−0.009, 0.000]"),
        ([-0.0004, 0.00031], "[−0.0004, 0.0003]"),
        ([0.1, 0.2], "[0.100, 0.200]"),
        ([-1e-9, 0.01], "[−< 0.000001, 0.010]"),
    ],
)
def test_an_interval_end_near_zero_shows_its_side_of_zero(ci, text):
    assert fmt_ci(ci) == text
    assert fmt_ci(ci, key="gini") == text


@pytest.mark.parametrize("ci", [[-0.0123, -0.00001], [-0.3, -0.0049], [0.00002, 0.5], [-0.0006, 0.0004]])
def test_the_printed_ends_have_the_signs_of_the_ends(ci):
    for v, e in zip(ci, _ends(fmt_ci(ci))):
        assert (v > 0) == (e > 0) and (v < 0) == (e < 0)
        assert abs(e - v) <= 0.0005 + 1e-12  # within half of the third decimal, or closer
