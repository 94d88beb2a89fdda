"""Per cent values never print a sign on zero nor round a non-zero value to zero (issue 40:
"−0.0 %" in a relative-change column, "0 0 %" in a confusion matrix)."""

from __future__ import annotations

import pytest

from reportgen.report.formats import MAX_DIGITS, fmt_pct


@pytest.mark.parametrize(
    ("v", "signed", "text"),
    [
        (0.0, False, "0.0 %"),
        (-0.0, True, "0.0 %"),
        (-0.0004, True, "−0.04 %"),
        (0.0004, True, "+0.04 %"),
        (-0.00004, False, "−0.004 %"),
        (0.123, True, "+12.3 %"),
        (-0.5, False, "−50.0 %"),
        (-1e-12, True, f"−< {10.0**-MAX_DIGITS:.{MAX_DIGITS}f} %"),
    ],
)
def test_fmt_pct_never_prints_minus_zero_nor_rounds_a_value_to_zero(v, signed, text):
    assert fmt_pct(v, signed=signed) == text


@pytest.mark.parametrize("v", [-0.0004, -0.03, 1e-7, 0.25, -0.999])
def test_fmt_pct_reads_back_within_its_last_digit(v):
    text = fmt_pct(v).replace("−", "-").replace(" %", "")
    decimals = len(text.split(".")[1])
    assert float(text) / 100 == pytest.approx(v, abs=0.5 * 10.0 ** -(decimals + 2) + 1e-15)
    assert float(text) != 0
