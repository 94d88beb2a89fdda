"""The relative error reduction needs its denominator, the baseline's error 1 − r₁, known within
±50 %: an error under twice the half-width of the baseline's interval omits it (issue 40: the
breast-cancer pack's F1, KS, MCC and accuracy near 1 read −113 % to −131 %)."""

from __future__ import annotations

import pytest

from reportgen.report.views.comparison import _error_within_noise


@pytest.mark.parametrize(
    ("base", "ci", "noise"),
    [
        (0.9576, [0.923, 0.988], True),  # the pack's logistic F1: error 0.042, half-width 0.033
        (0.9507, [0.898, 0.968], True),  # its KS: error 0.049, half-width 0.035
        (0.685, [0.642, 0.729], False),  # the credit pack's accuracy: error 0.315, half-width 0.044
        (0.90, [0.86, 0.94], False),  # error 0.10 against twice the half-width, 0.08: shown
    ],
)
def test_an_error_under_two_half_widths_is_noise(base, ci, noise):
    assert _error_within_noise(base, ci) is noise
