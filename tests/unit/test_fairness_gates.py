"""checks: on the fairness section: the worst group or column of each model decides."""

from __future__ import annotations

from types import SimpleNamespace

import pytest

from reportgen import gates
from reportgen.config import CheckConfig, parse_config
from reportgen.errors import ConfigError
from reportgen.section_results import FairnessColumn, FairnessModel, FairnessSection


def _column(name: str, air: float | None, dp: float | None) -> FairnessColumn:
    return FairnessColumn(
        column=name,
        reference="r",
        groups=(),
        disparities={"demographic_parity_difference": dp, "equalized_odds_difference": 0.1},
        disparities_ci={},
        min_adverse_impact_ratio=air,
    )


def _result(**columns: list[FairnessColumn]):
    models = {n: FairnessModel(model=n, threshold=0.5, columns=tuple(c)) for n, c in columns.items()}
    return SimpleNamespace(models={n: SimpleNamespace() for n in columns}, fairness=FairnessSection(models=models))


def test_adverse_impact_gate_takes_the_smallest_ratio_of_every_column() -> None:
    result = _result(a=[_column("sex", 0.93, 0.02), _column("age", 0.79, 0.08)], b=[_column("sex", 0.85, 0.05)])
    got = gates.evaluate([CheckConfig(metric="adverse_impact_ratio", at_least=0.8)], result)  # type: ignore[arg-type]
    assert [(c.model, c.passed, c.value) for c in got] == [("a", False, 0.79), ("b", True, 0.85)]
    dp = gates.evaluate([CheckConfig(metric="demographic_parity_difference", at_most=0.05)], result)  # type: ignore[arg-type]
    assert [(c.model, c.passed, c.value) for c in dp] == [("a", False, 0.08), ("b", True, 0.05)]


def test_an_undefined_ratio_fails_the_gate() -> None:
    result = _result(a=[_column("sex", None, 0.02)])
    (got,) = gates.evaluate([CheckConfig(metric="adverse_impact_ratio", at_least=0.8)], result)  # type: ignore[arg-type]
    assert not got.passed and "undefined" in got.detail


def test_a_fairness_gate_without_the_section_is_a_config_error() -> None:
    text = "label: y\nmodels: [{name: a, file: a.csv, score: s}]\nchecks: [{metric: adverse_impact_ratio, at_least: 0.8}]\n"
    with pytest.raises(ConfigError, match="fairness"):
        parse_config(text, "c.yaml")
