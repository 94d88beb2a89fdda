"""checks: on a challenger's fairness change against the baseline (the worst protected column)."""

from __future__ import annotations

from types import SimpleNamespace

import pytest

from reportgen import gates
from reportgen.config import CheckConfig, parse_config
from reportgen.errors import ConfigError
from reportgen.section_results import FairnessChange, FairnessModel, FairnessSection


def _model(name: str, changes: dict, cis: dict | None = None, unpaired: str | None = None) -> FairnessModel:
    paired = tuple(
        FairnessChange(col, None if unpaired else 100, None if unpaired else "m", (cis or {}).get(col, {}), {}, {},
                       unpaired=unpaired)
        for col, ch in changes.items()
    )  # fmt: skip
    return FairnessModel(model=name, threshold=0.5, columns=(), changes=changes, paired=paired)


def _result(*models: FairnessModel):
    return SimpleNamespace(
        run=SimpleNamespace(baseline="a"),
        models={m.model: SimpleNamespace() for m in models},
        fairness=FairnessSection(models={m.model: m for m in models}),
    )


def _check(metric: str, **bound) -> CheckConfig:
    return CheckConfig(metric=metric, **bound)


def test_air_change_gate_takes_the_largest_fall_and_skips_the_baseline() -> None:
    b = _model("b", {"sex": {"min_adverse_impact_ratio": -0.02}, "age": {"min_adverse_impact_ratio": -0.09}})
    c = _model("c", {"sex": {"min_adverse_impact_ratio": 0.03}, "age": {"min_adverse_impact_ratio": -0.01}})
    got = gates.evaluate([_check("adverse_impact_ratio_change", at_least=-0.05)], _result(_model("a", {}), b, c))  # type: ignore[arg-type]
    assert [(x.model, x.passed, x.value) for x in got] == [("b", False, -0.09), ("c", True, -0.01)]


def test_the_upper_end_of_the_paired_interval_fails_a_significant_fall() -> None:
    cis = {"sex": {"min_adverse_impact_ratio": (-0.2, -0.01)}, "age": {"min_adverse_impact_ratio": (-0.1, 0.05)}}
    b = _model("b", {"sex": {"min_adverse_impact_ratio": -0.1}, "age": {"min_adverse_impact_ratio": -0.02}}, cis)
    (got,) = gates.evaluate([_check("adverse_impact_ratio_change_upper", at_least=0.0)], _result(b))  # type: ignore[arg-type]
    assert (got.passed, got.value) == (False, -0.01)


def test_unpaired_rows_fail_the_interval_gate_with_their_reason() -> None:
    b = _model("b", {"sex": {"min_adverse_impact_ratio": -0.1}}, unpaired="lengths_differ")
    (got,) = gates.evaluate([_check("adverse_impact_ratio_change_upper", at_least=0.0)], _result(b))  # type: ignore[arg-type]
    assert not got.passed and "lengths_differ" in got.detail


def test_difference_change_gate_takes_the_largest_rise() -> None:
    b = _model("b", {"sex": {"demographic_parity_difference": 0.01}, "age": {"demographic_parity_difference": 0.04}})
    (got,) = gates.evaluate([_check("demographic_parity_difference_change", at_most=0.02)], _result(b))  # type: ignore[arg-type]
    assert (got.passed, got.value) == (False, 0.04)


def test_a_change_gate_on_the_baseline_is_a_config_error() -> None:
    text = (
        "label: y\nfairness: {groups: [sex]}\nmodels: [{name: a, file: a.csv, score: s}, {name: b, file: a.csv, score: t}]\n"
        "checks: [{model: a, metric: adverse_impact_ratio_change, at_least: -0.05}]\n"
    )
    with pytest.raises(ConfigError, match="baseline"):
        parse_config(text, "c.yaml")
