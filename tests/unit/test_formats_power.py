"""A test's power near its bounds (issue 45, "readable at 80 dpi"): the PD battery's power table
printed 0.99996 as "100.0 %", a certainty the test does not have; it reads "> 99 %" now (whole per
cent: a power's decimals say nothing, and they widened the ten-column table past the margin), and a
power near nothing "< 1 %", never "0 %"."""

from __future__ import annotations

import numpy as np
import pytest
from hypothesis import given
from hypothesis import strategies as st

import reportgen.engine.credit as C
from reportgen.report.formats import fmt_share
from reportgen.report.views import credit as V


@pytest.mark.parametrize(
    ("power", "text"),
    [(0.99996, "> 99.9 %"), (0.9995, "> 99.9 %"), (0.9994, "99.9 %"), (1.0, "100.0 %"),
     (0.00004, "< 0.1 %"), (0.0, "0.0 %"), (0.8123, "81.2 %"), (None, "n/a")],
)  # fmt: skip
def test_a_power_near_a_bound_is_not_printed_as_the_bound(power, text):
    assert fmt_share(power, 1) == text


@given(st.floats(0.0, 1.0))
def test_only_the_bounds_themselves_print_as_the_bounds(p):
    text = fmt_share(p, 1)
    assert (text == "100.0 %") == (p == 1.0) and (text == "0.0 %") == (p == 0.0)


def test_the_power_table_keeps_a_near_certain_power_off_100_percent():
    # 4 000 rows in one grade at PD 5 %: the binomial test sees 1.5 × the PD with power ≈ 1 − 1e-7
    rng = np.random.default_rng(3)
    pd = np.full(4000, 0.05)
    s = C.CreditSample(y=rng.random(4000) < pd, score=-np.log(pd), pd=pd, dates=None)
    m = C.credit_model("m", s, None, "lower", C.Grading("edges", edges=()), C.CreditSettings())
    (g,) = [g for g in m.grades if g.power is not None]
    assert 0.9995 <= g.power.binomial_power < 1.0
    (row,) = V._model_view(m, "#000000", None, "").power
    assert row.binomial_power == "> 99 %"
