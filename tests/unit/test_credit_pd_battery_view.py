"""The credit section's view of the rest of the PD battery (issue 45): the weak-power sentence
names exactly the quiet grades whose Jeffreys power is below 80 %, the current Herfindahl table
stands only without a reference sample, and the new tests' labels are in the glossary."""

from __future__ import annotations

import numpy as np
import pytest

import reportgen.engine.credit as C
from reportgen.config import CreditConfig
from reportgen.config_base import InvalidConfig, validated
from reportgen.report.views import credit as V


@pytest.fixture(scope="module")
def sample() -> C.CreditSample:
    rng = np.random.default_rng(7)
    n = 1200
    pd = np.round(rng.beta(1.1, 25, n), 4)
    y = rng.random(n) < pd
    dates = np.datetime64("2024-01-01") + rng.integers(0, 200, n).astype("timedelta64[D]")
    return C.CreditSample(y=y, score=-np.log(pd + 1e-4), pd=pd, dates=dates)


def test_the_power_sentence_names_the_quiet_grades_with_little_power(sample):
    m = C.credit_model("m", sample, None, "lower", C.Grading("edges", edges=(0.02, 0.05, 0.1)), C.CreditSettings())
    view = V._model_view(m, "#000000", None, "", 0.05, 0.95, None, 1.5)
    weak = [g.grade for g in m.grades if g.power is not None and g.power.jeffreys_power < 0.8
            and g.jeffreys is not None and g.jeffreys.light == "green" and g.binomial is not None
            and g.binomial.light == "green"]  # fmt: skip
    assert weak, "the fixture should hold a low-power grade"
    assert [r.grade for r in view.power if r.weak] == weak
    assert all(g in view.power_note for g in weak) and "1.5 × the PD" in view.power_note
    assert view.hhi_current is not None and view.period_tests is not None
    assert len(view.heterogeneity) == 3 and view.rho == "\u03c1 = 0.12"
    assert any(t.key == "binomial_correlated" for t in view.tests)


def test_a_grade_whose_alternative_rate_is_capped_at_100_percent_is_marked(sample):
    # the German pack's "≥ 60 %" grade (mean PD 68.7 %) printed a power of 100 % at "1.5 × the PD"
    m = C.credit_model("m", sample, None, "lower", C.Grading("edges", edges=(0.02, 0.05, 0.1)), C.CreditSettings())
    view = V._model_view(m, "#000000", None, "", 0.05, 0.95, None, 1.5)
    assert not any(r.capped for r in view.power) and view.capped_note == ""
    high = C.CreditSample(y=sample.y, score=sample.score, pd=np.minimum(sample.pd * 12, 0.99), dates=sample.dates)
    m = C.credit_model("m", high, None, "lower", C.Grading("edges", edges=(0.3, 0.6)), C.CreditSettings())
    view = V._model_view(m, "#000000", None, "", 0.05, 0.95, None, 1.5)
    capped = [g.grade for g in m.grades if g.power is not None and 1.5 * g.mean_pd >= 1]
    assert capped and [r.grade for r in view.power if r.capped] == capped
    assert all(g.power is None or g.power.alternative_pd == 1.0 for g in m.grades if g.grade in capped)
    grades = "grade" + ("s" if len(capped) > 1 else "")
    assert view.capped_note.startswith(f"§ 1.5 × the PD is at least 100 % in the {grades} {', '.join(capped)}: ")


def test_the_current_herfindahl_table_is_left_to_stability_with_a_reference(sample):
    m = C.credit_model("m", sample, sample, "lower", C.Grading("quantiles", quantiles=4), C.CreditSettings())
    assert m.stability is not None and m.concentration == m.stability.concentration_current
    assert V._model_view(m, "#000000", None, "").hhi_current is None


def test_every_new_test_has_its_glossary_entry():
    for key in ("binomial_correlated", "power", "period_normal", "heterogeneity"):
        label, formula = V.TEST_LABELS[key]
        assert label and len(formula) > 80


def test_the_correlation_and_power_keys_refuse_what_has_no_meaning():
    assert CreditConfig().asset_correlation == 0.12 and CreditConfig().power_ratio == 1.5
    assert CreditConfig(asset_correlation="irb_corporate").asset_correlation == "irb_corporate"
    for bad in ({"asset_correlation": 1.0}, {"asset_correlation": 0}, {"asset_correlation": "retail"},
                {"power_ratio": 1.0}):  # fmt: skip
        with pytest.raises(InvalidConfig):
            validated(CreditConfig, bad)
