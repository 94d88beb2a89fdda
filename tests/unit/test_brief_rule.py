"""The brief's recommendation rule (reportgen.report.views.brief.recommend) and the config keys
that choose the brief and order the sections (report.layout, report.sections, report.recommendation)."""

from __future__ import annotations

import pytest

from reportgen.config import REPORT_SECTIONS, ReportConfig
from reportgen.config_base import InvalidConfig, validated
from reportgen.report.views.brief import recommend, rule_text


@pytest.mark.parametrize(
    ("better", "lights", "block_on", "expected"),
    [
        (True, [], "red", "adopt"),
        (True, ["amber", "amber"], "red", "conditional"),
        (True, ["amber", "red"], "red", "retain"),
        (False, [], "red", "retain"),
        (False, ["amber"], "red", "retain"),
        (True, ["amber"], "amber", "retain"),
        (True, [], "amber", "adopt"),
        (True, ["green"], "red", "adopt"),
    ],
)
def test_recommend_follows_the_stated_rule(better: bool, lights: list[str], block_on: str, expected: str) -> None:
    assert recommend(better, lights, block_on) == expected


def test_the_rule_text_names_its_config_key_and_blocking_light() -> None:
    red = rule_text("red", "Gini")
    amber = rule_text("amber", "Gini")
    assert "report.recommendation.block_on: red" in red and "amber findings are its conditions" in red
    assert "report.recommendation.block_on: amber" in amber and "a red or amber finding" in amber


def test_config_takes_the_brief_layout_and_the_blocking_light() -> None:
    cfg = validated(ReportConfig, {"layout": "brief", "recommendation": {"block_on": "amber"}})
    assert cfg.layout == "brief" and cfg.recommendation.block_on == "amber"
    assert ReportConfig().layout == "full" and ReportConfig().recommendation.block_on == "red"
    with pytest.raises(InvalidConfig):
        validated(ReportConfig, {"layout": "short"})
    with pytest.raises(InvalidConfig):
        validated(ReportConfig, {"recommendation": {"block_on": "green"}})


def test_sections_name_credit_and_trend_in_any_order() -> None:
    order = ["credit", "summary", "appendix", "comparison", "trend"]
    assert validated(ReportConfig, {"sections": order}).sections == order
    assert {"credit", "trend"} <= set(REPORT_SECTIONS)
