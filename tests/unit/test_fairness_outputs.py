"""The fairness section outside its own pages: --summary-json, the findings, result.frames().

One small run (400 rows, two models in one file, a group the baseline selects at about half the
reference group's rate, a failing fairness check) shared by the module."""

from __future__ import annotations

import json
from types import SimpleNamespace

import jsonschema
import numpy as np
import pandas as pd
import pytest
import yaml

from reportgen.config import load_config
from reportgen.pipeline import analyse
from reportgen.report.views.brief import fairness_findings, findings_of
from reportgen.summary import SCHEMA_FILE, Summary

N = 400


@pytest.fixture(scope="module")
def result(tmp_path_factory):
    d = tmp_path_factory.mktemp("fairout")
    rng = np.random.default_rng(7)
    sex = rng.choice(["f", "m"], N, p=[0.4, 0.6])
    y = (rng.random(N) < 0.3).astype(int)
    a = np.round(rng.random(N) + 0.4 * y - 0.25 * (sex == "f"), 2)  # f selected less often
    b = np.round(rng.random(N) + 0.5 * y, 2)
    pd.DataFrame({"id": np.arange(N), "y": y, "sex": sex, "a": a, "b": b}).to_csv(d / "f.csv", index=False)
    cfg = {
        "title": "t",
        "label": "y",
        "id": "id",
        "threshold": 0.7,
        "bootstrap": {"resamples": 50, "seed": 1},
        "fairness": {"groups": ["sex"]},
        "checks": [{"metric": "adverse_impact_ratio", "at_least": 0.8}],
        "models": [{"name": "a", "file": "f.csv", "score": "a"}, {"name": "b", "file": "f.csv", "score": "b"}],
    }
    (d / "c.yaml").write_text(yaml.safe_dump(cfg), encoding="utf-8")
    c, p = load_config(d / "c.yaml")
    return analyse(c, p)


def test_the_planted_group_is_below_the_four_fifths_line(result):
    (col,) = result.fairness.models["a"].columns
    assert col.min_adverse_impact_ratio < 0.8


def test_summary_json_names_the_groups_below_the_line_and_the_paired_change(result):
    s = Summary("run")
    s.written("c.yaml", {}, result, 3)
    doc = json.loads(s.line(3))
    jsonschema.validate(doc, json.loads(SCHEMA_FILE.read_text(encoding="utf-8")))
    fair = doc["results"][0]["fairness"]
    assert fair["below_four_fifths"] is True
    assert fair["models"]["a"]["sex"]["below_four_fifths"] == ["f"]
    assert fair["models"]["a"]["sex"]["change"] is None  # the baseline
    change = fair["models"]["b"]["sex"]["change"]
    (paired,) = result.fairness.models["b"].paired
    assert change["min_adverse_impact_ratio"] == {
        "delta": result.fairness.models["b"].changes["sex"]["min_adverse_impact_ratio"],
        "ci": list(paired.changes_ci["min_adverse_impact_ratio"]),
    }


def test_a_failed_fairness_check_is_red_and_a_group_below_the_line_amber(result):
    found = fairness_findings(result)
    lights = sorted((f.light, f.test) for f in found["a"])
    assert ("amber", "Four-fifths rule: sex = f") in lights
    assert ("red", "Fairness check") in lights
    (a, _) = findings_of(result, {})
    assert a.name == "a" and a.findings[0].light == "red"  # red first


def test_frames_hold_groups_disparities_changes_and_bands_with_fixed_dtypes(result):
    from reportgen.frames import COLUMNS
    from reportgen.results import ComparisonResult

    f = result.frames()
    for name in ("bands", "fairness_groups", "fairness_disparities", "fairness_changes"):
        assert {c: str(t) for c, t in f[name].dtypes.items()} == dict(COLUMNS[name]), name
    back = ComparisonResult.from_json(json.loads(json.dumps(result.to_json()))).frames()
    for name, df in f.items():
        pd.testing.assert_frame_equal(df, back[name], check_exact=True, obj=name)
    groups = f["fairness_groups"]
    (col,) = result.fairness.models["a"].columns
    g = next(x for x in col.groups if x.group == "f")
    row = groups[(groups.model == "a") & (groups.group == "f") & (groups.metric == "adverse_impact_ratio")].iloc[0]
    assert (row.value, row.ci_low, row.ci_high) == (g.adverse_impact_ratio, *g.adverse_impact_ratio_ci)
    assert len(groups) == 2 * 2 * 6  # models x groups x metrics
    changes = f["fairness_changes"]
    assert set(changes.model) == {"b"} and set(changes.baseline) == {"a"}
    (paired,) = result.fairness.models["b"].paired
    air = changes[changes.measure == "adverse_impact_ratio"].iloc[0]
    assert (air.group, air.delta) == ("f", paired.adverse_impact_ratio_changes["f"])
    assert (air.ci_low, air.ci_high) == tuple(paired.adverse_impact_ratio_changes_ci["f"])
    assert air.method == paired.method and air.rows == N
    bands = f["bands"]
    assert list(bands[bands.model == "a"].band) == [b.band for b in result.models["a"].bands.rows]


def test_the_exports_carry_the_new_frames(result):
    from reportgen.report.export import tables, to_csv

    t = tables(result)
    assert {"bands", "fairness_groups", "fairness_disparities", "fairness_changes"} <= set(t)
    assert to_csv(t["fairness_changes"]).splitlines()[0].startswith("model,baseline,column,group,measure,delta")


def test_the_section_shows_the_challengers_change_with_its_paired_interval(result):
    from reportgen.report.formats import fmt_ci
    from reportgen.report.render import make_environment
    from reportgen.report.views.fairness import fairness_view

    view = SimpleNamespace(fairness=fairness_view(result.fairness, {}, "a", "95 %"))
    page = make_environment().from_string('{% import "macros.html" as ui %}{% include "sections/fairness.html" %}')
    html = page.render(view=view)
    (paired,) = result.fairness.models["b"].paired
    assert html.count("AIR Δ") == 1 and html.count("Paired interval") == 1  # the challenger's tables only
    assert fmt_ci(paired.changes_ci["demographic_parity_difference"], 3) in html
    assert fmt_ci(paired.adverse_impact_ratio_changes_ci["f"], 2) in html
    assert f"on the {N} rows both score" in html
