"""The credit validation section end to end: the demo's report, metrics.json and summary warnings."""

from __future__ import annotations

import json
from pathlib import Path

import jsonschema
import numpy as np
import pandas as pd
import yaml

from reportgen.config import load_config
from reportgen.pipeline import analyse
from reportgen.report.render import build_view
from reportgen.report.theme import Theme
from reportgen.results import ComparisonResult


def test_demo_report_shows_the_whole_credit_section(demo_run) -> None:
    assert demo_run.exit_code == 0
    html = (demo_run.out / "report.html").read_text(encoding="utf-8")
    section = html[html.index('<section id="credit">') :]
    for text in (
        "Credit validation",
        "Jeffreys (ECB 2019)",
        "Hosmer–Lemeshow over the grades",
        "PSI over the grades",
        "Grade migration of the 3\u2009000 obligors found by id",
        "Performance per month",
        "Performance per product",
        "AUC against initial validation (ECB 2019)",
        "Concentration in grades (Herfindahl)",
        "<svg",
    ):
        assert text in section, text
    assert '<a href="#credit">Credit validation</a>' in html  # in the contents


def test_demo_metrics_json_carries_the_section_and_validates(demo_run, metrics_schema) -> None:
    doc = json.loads((demo_run.out / "metrics.json").read_text(encoding="utf-8"))
    jsonschema.Draft202012Validator(metrics_schema).validate(doc)
    champion = doc["credit"]["models"]["champion"]
    assert len(champion["grades"]) == 7 and champion["pd_source"] == "pd_column"
    assert champion["auc_history"]["initial_auc"] == 0.73 and champion["stability"]["basis"] == "grades"
    assert [p["key"] for p in champion["periods"]] == ["2024-07", "2024-08", "2024-09"]
    result = ComparisonResult.from_json(doc)
    assert result.credit.models["naive"].capabilities["stability"] == "no_reference"
    assert any(f.path.endswith("dev_champion.csv") for f in result.run.files)


def test_an_overstated_pd_is_red_and_named_in_the_summary_warnings(tmp_path: Path) -> None:
    # the German-credit case: mean PD 26 % against an observed default rate of 12.5 %
    rng = np.random.default_rng(5)
    pd_ = np.clip(rng.beta(2.6, 7.4, 1000), 0.001, 0.999)
    y = (rng.random(1000) < pd_ * 0.48).astype(int)
    pd.DataFrame({"y": y, "p": pd_}).to_csv(tmp_path / "gbm.csv", index=False)
    (tmp_path / "c.yaml").write_text(
        yaml.safe_dump(
            {
                "label": "y",
                "models": [{"name": "gbm", "file": "gbm.csv", "score": "p"}],
                "credit": {"grades": {"quantiles": 5}},
                "bootstrap": {"resamples": 0},
            }
        )
    )
    cfg, path = load_config(tmp_path / "c.yaml")
    result = analyse(cfg, path)
    m = result.credit.models["gbm"]
    # Jeffreys and the binomial test are one-sided (they flag an understated PD only): a
    # conservative PD passes them, and the two-sided tests catch it
    assert m.calibration.jeffreys.light == "green" and m.calibration.binomial.light == "green"
    assert {"hosmer_lemeshow", "in_the_large", "intercept"} <= set(m.failures)
    # the failures by the names the section's tables give them, never their keys
    assert any(
        w.startswith("model 'gbm': credit validation red: ")
        and "calibration in the large" in w
        and "in_the_large" not in w
        for w in result.run.warnings
    )
    # the summary's verdict of the (only) model states the calibration failure and the rates
    view = build_view(result, Theme(sections=("summary",)))  # the summary alone: no figure drawn
    [line] = view.summary.credit_verdicts
    assert line.text.startswith("Credit validation of gbm: its calibration fails (red: ")
    assert "; calibration in the large;" in line.text and f"{m.calibration.mean_pd * 100:.2f} %" in line.text
    from reportgen.report.notebook import notebook_view

    assert [v["text"] for v in notebook_view(result, with_figures=False)["verdicts"]] == [line.text]


def test_a_red_calibration_stands_beside_the_models_verdict_in_the_summary(demo_run) -> None:
    html = (demo_run.out / "report.html").read_text(encoding="utf-8")
    summary = html[html.index('<section id="summary">') : html.index('<section id="summary">') + 20_000]
    summary = summary[: summary.index("</section>")]
    doc = json.loads((demo_run.out / "metrics.json").read_text(encoding="utf-8"))
    red = {n for n, m in doc["credit"]["models"].items() if m["calibration"] and m["calibration"]["failures"]}
    assert red  # the demo's naive model fails calibration
    for n in red:
        verdict = next(
            p for p in summary.split('<p class="verdict">') if p.split("</span>", 1)[-1].startswith(f"{n}&#39;s")
        )
        assert f"Credit validation of {n}: its calibration fails (red: " in verdict
    for n in set(doc["credit"]["models"]) - red - {"champion"}:
        assert f"Credit validation of {n}" not in summary
