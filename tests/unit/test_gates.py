"""Gates (issue 20): ``checks:`` rules, their results in metrics.json and the report, exit code 3."""

from __future__ import annotations

import json
from pathlib import Path

import pytest
import yaml

from reportgen.gates import comparison_outcome
from reportgen.option_results import CheckResult
from reportgen.results import Comparison, ComparisonResult, ComparisonTests, DeLongSummary

PINNED_NOW = "2026-01-01T00:00:00Z"


def _comparison(
    pm: str, delta: float | None, ci: list[float] | None = None, p: float | None = None, p_holm: float | None = None
) -> Comparison:
    dl = None if p is None else DeLongSummary(0.7, 0.7, 0.0, 0.01, 1.0, p, p_holm, [-0.1, 0.1], True)
    return Comparison(
        "m", "base", {pm: delta}, {pm: None}, None, {}, {pm: ci} if ci else {}, ComparisonTests(dl, None, []), "", pm
    )


@pytest.mark.parametrize(
    ("c", "expected"),
    [
        # DeLong metrics: the p-value decides significance, the delta's sign the direction
        (_comparison("gini", -0.05, p=0.01), "worse"),
        (_comparison("gini", +0.05, p=0.01), "better"),
        (_comparison("gini", -0.05, p=0.2), "no_difference"),
        (_comparison("gini", -0.05, p=0.049), "worse"),
        (_comparison("gini", -0.05, p=0.0501), "no_difference"),
        (_comparison("roc_auc", -0.05, p=0.01, p_holm=0.08), "no_difference"),  # Holm-adjusted first
        (_comparison("gini", None, p=0.01), "undefined"),
        # other metrics: the interval of the paired difference excluding 0
        (_comparison("ks", -0.03, ci=[-0.05, -0.01]), "worse"),
        (_comparison("ks", -0.03, ci=[-0.05, 0.01]), "no_difference"),
        (_comparison("ks", 0.03, ci=[0.01, 0.05]), "better"),
        (_comparison("ks", 0.03), "undefined"),  # no interval (bootstrap off): cannot tell
        # a lower-is-better metric: a positive delta is worse
        (_comparison("brier", 0.02, ci=[0.01, 0.03]), "worse"),
        (_comparison("brier", -0.02, ci=[-0.03, -0.01]), "better"),
    ],
)
def test_comparison_outcome(c: Comparison, expected: str) -> None:
    assert comparison_outcome(c, 0.95) == expected


def test_outcome_agrees_with_every_verdict_sentence_of_the_demo(demo_run) -> None:
    """The verdict's prose and the gate's direction are one judgement (DeLong on the Gini)."""
    result = ComparisonResult.from_json(demo_run.metrics)
    for c in result.comparisons:
        outcome = comparison_outcome(c, result.run.confidence_level)
        words = {"better": "significantly better", "worse": "significantly worse", "no_difference": "not significant"}
        assert words[outcome] in c.verdict, (outcome, c.verdict)


def _config(tmp_path: Path, fast_config_factory, checks: list[dict]) -> Path:
    cfg = fast_config_factory(tmp_path / "c.yaml", checks=checks)
    return cfg


@pytest.mark.slow
def test_checks_in_metrics_json_report_and_exit_codes(
    tmp_path: Path, fast_config_factory, cli, capsys, demo_run, metrics_schema, no_figures
) -> None:
    # the HTML is read for its checks only: rendered without figures
    import jsonschema

    demo = demo_run.metrics
    gini = demo["models"]["challenger"]["metrics"]["gini"]
    ks = {n: m["metrics"]["ks"] for n, m in demo["models"].items()}
    verdicts = {c["model"]: c["verdict"] for c in demo["comparisons"]}
    worse = [n for n, v in verdicts.items() if "significantly worse" in v]
    not_worse = [n for n, v in verdicts.items() if "significantly worse" not in v]
    assert worse and not_worse, verdicts  # the demo has both kinds (naive is worse)
    passing = [
        {"model": "challenger", "metric": "gini", "at_least": gini},  # the bound is inclusive
        {"metric": "ks", "at_least": min(ks.values())},
        {"comparison": not_worse[0], "must_not_be": "worse"},
    ]
    cfg = _config(tmp_path, fast_config_factory, passing)
    out = tmp_path / "ok"
    code = cli(["run", str(cfg), "--out", str(out), "--now", PINNED_NOW, "--format", "json,html"])
    assert code == 0
    doc = json.loads((out / "metrics.json").read_text(encoding="utf-8"))
    jsonschema.validate(doc, metrics_schema)
    checks = doc["checks"]
    assert [c["passed"] for c in checks] == [True] * 5  # the ks rule expands to one per model
    assert [c["model"] for c in checks[1:4]] == list(demo["models"])
    assert checks[0]["value"] == gini and checks[4]["outcome"] in ("better", "no_difference")
    # the same numbers as a run without checks: gates never change a metric
    assert doc["models"] == demo["models"] and doc["comparisons"] == demo["comparisons"]
    html = (out / "report.html").read_text(encoding="utf-8")
    assert 'id="checks"' in html and "All 5 check(s) passed." in html
    capsys.readouterr()

    failing = [
        {"model": "challenger", "metric": "gini", "at_least": gini + 1e-9},
        {"comparison": worse[0], "must_not_be": "worse"},
        {"model": "champion", "metric": "brier", "at_most": 0.05},
    ]
    cfg = _config(tmp_path, fast_config_factory, failing)
    out = tmp_path / "bad"
    code = cli(["run", str(cfg), "--out", str(out), "--now", PINNED_NOW, "--format", "json,html"])
    assert code == 3
    err = [ln for ln in capsys.readouterr().err.strip().splitlines() if not ln.startswith("reportgen: warning:")]
    assert len(err) == 3  # one line per failed check (beside the run's warnings)
    # the 4-digit value equals the bound to 4 digits: the line shows the digits that make it fail
    assert err[0].endswith(
        f"check failed: challenger: gini at least {gini + 1e-9:g}: gini = {gini:.12g}, below {gini + 1e-9:g}"
    )
    assert f"check failed: {worse[0]} must not be worse than champion: significantly worse on gini" in err[1]
    # a scorecard's Brier score is its PD column's (the credit section's calibration): gated like any other
    brier = demo["models"]["champion"]["metrics"]["brier"]
    assert err[2].endswith(f"check failed: champion: brier at most 0.05: brier = {brier:.4f}, above 0.05"), err[2]
    doc = json.loads((out / "metrics.json").read_text(encoding="utf-8"))
    assert [c["passed"] for c in doc["checks"]] == [False, False, False]
    assert doc["checks"][2]["value"] == brier
    html = (out / "report.html").read_text(encoding="utf-8")
    assert "3 of 3 check(s) failed: reportgen exited with code 3." in html
    # the saved result round-trips and re-renders with its checks
    again = ComparisonResult.from_json(doc)
    assert all(isinstance(c, CheckResult) for c in again.checks) and again.to_json() == doc


@pytest.mark.slow  # a batch of two full runs
def test_a_broken_config_outranks_a_failed_check_in_a_batch(tmp_path: Path, fast_config_factory, cli, capsys) -> None:
    # exit codes only: no interval decides a Gini of at least 2, so no resamples are drawn
    bad_gate = fast_config_factory(
        tmp_path / "a.yaml", checks=[{"metric": "gini", "at_least": 2}], bootstrap={"resamples": 0, "seed": 7}
    )
    broken = tmp_path / "b.yaml"
    broken.write_text(yaml.safe_dump({"models": []}), encoding="utf-8")
    assert cli(["run", str(bad_gate), "--out", str(tmp_path / "o"), "--format", "json", "-q"]) == 3
    assert cli(["run", str(bad_gate), str(broken), "--out", str(tmp_path / "o2"), "--format", "json", "-q"]) == 2


@pytest.mark.parametrize(
    ("check", "message"),
    [
        (
            {"metric": "psy", "at_most": 0.25},
            "checks[0].metric: unknown metric 'psy' for task: binary; did you mean 'psi'?",
        ),
        (
            {"metric": "gnii", "at_least": 0.4},
            "checks[0].metric: unknown metric 'gnii' for task: binary; did you mean 'gini'?",
        ),
        (
            {"model": "challnger", "metric": "gini", "at_least": 0.4},
            "checks[0].model: 'challnger' names no model; did you mean 'challenger'?",
        ),
        ({"comparison": "champion", "must_not_be": "worse"}, "checks[0].comparison: 'champion' is the baseline"),
        ({"comparison": "naive", "must_not_be": "better"}, "checks[0].must_not_be: expected 'worse'"),
        ({"metric": "gini", "at_least": 0.4, "at_most": 0.9}, "checks[0]: give exactly one of at_least / at_most"),
        ({"model": "naive"}, "checks[0]: a check needs 'metric'"),
    ],
)
def test_bad_checks_are_one_line_config_errors(
    tmp_path: Path, fast_config_factory, cli, capsys, check, message
) -> None:
    cfg = _config(tmp_path, fast_config_factory, [check])
    assert cli(["validate", str(cfg)]) == 2
    err = capsys.readouterr().err.strip()
    assert "\n" not in err and message in err, err


def test_a_psi_check_bounds_the_credit_sections_stability(tmp_path: Path, fast_config_factory, cli, capsys) -> None:
    """``{metric: psi, at_most: 0.25}`` (issue 20) reads the credit section's PSI against each
    model's reference sample; a model without a reference has no PSI, and the gate fails on it."""
    cfg = _config(tmp_path, fast_config_factory, [{"metric": "psi", "at_most": 0.25}])
    out = tmp_path / "o"
    assert cli(["run", str(cfg), "--out", str(out), "--format", "json", "-q", "--now", PINNED_NOW]) == 3
    doc = json.loads((out / "metrics.json").read_text(encoding="utf-8"))
    by_model = {c["model"]: c for c in doc["checks"]}
    for name in ("champion", "challenger"):  # the demo's models with a development sample
        psi = doc["credit"]["models"][name]["stability"]["psi"]["statistic"]
        assert by_model[name]["passed"] and by_model[name]["value"] == psi and psi <= 0.25
    assert not by_model["naive"]["passed"] and "no reference sample" in by_model["naive"]["detail"]


def test_a_psi_check_without_the_credit_section_is_a_config_error(
    tmp_path: Path, fast_config_factory, cli, capsys
) -> None:
    cfg = fast_config_factory(tmp_path / "c.yaml", checks=[{"metric": "psi", "at_most": 0.25}])
    data = yaml.safe_load(cfg.read_text(encoding="utf-8"))
    data.pop("credit", None)
    cfg.write_text(yaml.safe_dump(data, sort_keys=False), encoding="utf-8")
    assert cli(["validate", str(cfg)]) == 2
    err = capsys.readouterr().err.strip()
    assert "checks[0].metric: 'psi' comes from the credit validation section; set 'credit:'" in err, err
