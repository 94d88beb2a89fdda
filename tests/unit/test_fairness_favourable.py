"""The adverse-impact ratio on the favourable outcome (``fairness.favourable``).

In a credit pack the positive class is the default, so a flag is a decline and the four-fifths
rule (29 CFR 1607.4(D)) compares approval rates, 1 − the selection rate. Oracles: fairlearn's
``selection_rate`` with ``pos_label`` flipped (the share predicted negative), and numpy on the rows
for the paired change. A regression test: a group declined less often than the reference was
reported as adverse impact when the ratio was taken on decline rates.
"""

from __future__ import annotations

from types import SimpleNamespace

import fairlearn.metrics as fm  # the oracle is a [test] dependency: missing, the tests fail
import numpy as np
import pandas as pd
import pytest
import yaml

from reportgen.config import config_from_mapping, load_config
from reportgen.engine import fairness as F
from reportgen.pipeline import analyse
from reportgen.report.formats import fmt_pct
from reportgen.report.views.brief import fairness_findings
from reportgen.report.views.fairness import fairness_view
from reportgen.report.wording import CREDIT_WORDS, GENERIC_WORDS

GROUPS = ("x", "y", "z")


@pytest.fixture(scope="module")
def rows():
    rng = np.random.default_rng(11)
    n = 900
    g = rng.choice(np.array(GROUPS), n, p=[0.5, 0.3, 0.2])
    y = rng.random(n) < np.where(g == "z", 0.35, 0.2)
    s = np.round(rng.normal(size=n) + y + 0.4 * (g == "x"), 1)
    return y, s, g


def _rate_by_group(y, pred, g, pos_label: int) -> pd.Series:
    """fairlearn's selection rate of ``pos_label`` per group: 1 the flagged share, 0 the share not flagged."""

    def metric(y_true, y_pred):
        return fm.selection_rate(y_true, y_pred, pos_label=pos_label)

    return fm.MetricFrame(metrics=metric, y_true=y.astype(int), y_pred=pred.astype(int), sensitive_features=g).by_group


@pytest.mark.parametrize(("favourable", "pos_label"), [("flagged", 1), ("not_flagged", 0)])
def test_group_ratios_are_fairlearns_favourable_rate_over_the_reference(rows, favourable, pos_label) -> None:
    y, s, g = rows
    col = F.fairness_column(
        "g", F.group_tables(y, s, g, "higher"), 0.7, "x", 0.95, 200, np.random.default_rng(0), favourable
    )
    pred = s >= 0.7
    rate = _rate_by_group(y, pred, g, pos_label)
    want = {k: rate[k] / rate["x"] for k in GROUPS}
    assert {x.group: x.adverse_impact_ratio for x in col.groups} == pytest.approx(want, abs=1e-12)
    assert col.min_adverse_impact_ratio == pytest.approx(min(want["y"], want["z"]), abs=1e-12)
    for x in col.groups[1:]:
        lo, hi = x.adverse_impact_ratio_ci
        assert lo <= x.adverse_impact_ratio <= hi
    # the other disparities are fairlearn's on the selection rate, whichever outcome is favourable
    kw = {"y_true": y.astype(int), "y_pred": pred.astype(int), "sensitive_features": g}
    assert col.disparities["demographic_parity_ratio"] == pytest.approx(fm.demographic_parity_ratio(**kw), abs=1e-12)
    assert col.disparities["demographic_parity_difference"] == pytest.approx(
        fm.demographic_parity_difference(**kw), abs=1e-12
    )


def test_the_setting_changes_the_ratios_and_nothing_else(rows) -> None:
    y, s, g = rows
    tables = F.group_tables(y, s, g, "higher")
    a, b = (
        F.fairness_column("g", tables, 0.7, "x", 0.95, 0, np.random.default_rng(0), f)
        for f in ("flagged", "not_flagged")
    )
    assert a.disparities == b.disparities
    assert [x.selection_rate for x in a.groups] == [x.selection_rate for x in b.groups]
    assert a.min_adverse_impact_ratio != pytest.approx(b.min_adverse_impact_ratio)


@pytest.mark.parametrize("favourable", ["flagged", "not_flagged"])
def test_paired_change_of_the_ratios_is_numpys_on_the_rows(favourable) -> None:
    rng = np.random.default_rng(49)
    n = 600
    group = rng.choice(3, n, p=[0.5, 0.3, 0.2])
    y = rng.random(n) < 0.3
    base = rng.random(n) < np.where(y, 0.7, 0.2) + 0.05 * group
    chal = np.where(rng.random(n) < 0.8, base, rng.random(n) < 0.4)
    got = F.change_of(F.joint_cells(y, base, chal, group, 3), 0, favourable)

    def air(d: np.ndarray) -> np.ndarray:
        fav = d if favourable == "flagged" else ~d
        rate = np.array([fav[group == k].mean() for k in range(3)])
        return rate / rate[0]

    want = air(chal) - air(base)
    assert got["air"] == pytest.approx(want, abs=1e-12)
    assert float(got["min_adverse_impact_ratio"]) == pytest.approx(air(chal)[1:].min() - air(base)[1:].min(), abs=1e-12)
    ch, point = F.fairness_change(
        "g", F.joint_cells(y, base, chal, group, 3), ["a", "b", "c"], "a", 0.95, 200, rng, favourable
    )
    assert ch.adverse_impact_ratio_changes == pytest.approx({"b": want[1], "c": want[2]}, abs=1e-12)
    lo, hi = ch.changes_ci["min_adverse_impact_ratio"]
    assert lo <= point["min_adverse_impact_ratio"] <= hi


BASE = {"label": "y", "models": [{"name": "a", "file": "a.csv", "score": "s"}], "fairness": {"groups": ["sex"]}}


@pytest.mark.parametrize(
    ("extra", "domain", "want"),
    [
        ({}, "generic", "flagged"),
        ({"approval_rates": [0.7]}, "credit", "not_flagged"),  # approval rates configured
        ({"credit": {}}, "credit", "not_flagged"),  # a credit block
        ({"report": {"domain": "credit"}}, "credit", "not_flagged"),
        ({"approval_rates": [0.7], "report": {"domain": "generic"}}, "generic", "flagged"),
        ({"approval_rates": [0.7], "fairness": {"groups": ["sex"], "favourable": "flagged"}}, "credit", "flagged"),
        ({"fairness": {"groups": ["sex"], "favourable": "not_flagged"}}, "generic", "not_flagged"),
    ],
)
def test_a_credit_pack_takes_approval_as_favourable_a_generic_one_the_flag(extra, domain, want) -> None:
    cfg = config_from_mapping({**BASE, **extra})
    assert (cfg.domain, cfg.favourable) == (domain, want)


N = 400


@pytest.fixture(scope="module")
def planted(tmp_path_factory):
    """Group f declined (flagged) about half as often as the reference m: under credit, approval
    rates of about 0.8 against 0.6, no adverse impact on f."""
    d = tmp_path_factory.mktemp("favourable")
    rng = np.random.default_rng(3)
    sex = rng.choice(["f", "m"], N, p=[0.4, 0.6])
    y = (rng.random(N) < 0.2).astype(int)
    s = np.round(rng.random(N) + 0.3 * y - 0.2 * (sex == "f"), 2)
    pd.DataFrame({"y": y, "sex": sex, "s": s}).to_csv(d / "f.csv", index=False)
    cfg = {
        "title": "t",
        "label": "y",
        "threshold": 0.6,
        "approval_rates": [0.7],  # a credit pack
        "bootstrap": {"resamples": 20, "seed": 1},
        "fairness": {"groups": ["sex"]},
        "checks": [{"metric": "adverse_impact_ratio", "at_least": 0.8}],
        "models": [{"name": "a", "file": "f.csv", "score": "s"}],
    }
    (d / "c.yaml").write_text(yaml.safe_dump(cfg), encoding="utf-8")
    c, p = load_config(d / "c.yaml")
    return c, p, analyse(c, p)


def test_a_group_declined_less_than_the_reference_is_not_adverse_impact_in_credit(planted) -> None:
    c, p, result = planted
    sec = result.fairness
    assert sec.favourable == "not_flagged"
    (col,) = sec.models["a"].columns
    f, m = (next(g for g in col.groups if g.group == k) for k in ("f", "m"))
    assert col.reference == "m" and f.selection_rate < 0.6 * m.selection_rate  # f declined far less often
    assert f.adverse_impact_ratio == pytest.approx((1 - f.selection_rate) / (1 - m.selection_rate), abs=1e-12)
    assert f.adverse_impact_ratio > 1
    assert fairness_findings(result) == {}  # no amber finding, the gate passes
    assert all(ch.passed for ch in result.checks)
    # the same run taking the flag as favourable (the old reading) flags f: the test can fail
    old = analyse(c.with_overrides(fairness={"groups": ["sex"], "favourable": "flagged"}), p)
    (o,) = old.fairness.models["a"].columns
    assert o.min_adverse_impact_ratio < 0.8 and not all(ch.passed for ch in old.checks)
    (finding,) = (x for x in fairness_findings(old)["a"] if x.light == "amber")  # group f, on its flagged share
    assert f"rate {fmt_pct(f.selection_rate)} against {fmt_pct(m.selection_rate)}" in finding.reason


def test_metrics_json_frames_and_the_section_say_which_outcome(planted) -> None:
    from reportgen.report.render import make_environment

    _, _, result = planted
    assert result.to_json()["fairness"]["favourable"] == "not_flagged"
    frames = result.frames()
    assert set(frames["fairness_groups"].favourable) == {"not_flagged"}
    assert set(frames["fairness_disparities"].favourable) == {"not_flagged"}
    view = SimpleNamespace(fairness=fairness_view(result.fairness, {}, "a", "95 %", CREDIT_WORDS))
    page = make_environment().from_string('{% import "macros.html" as ui %}{% include "sections/fairness.html" %}')
    assert (
        "AIR) is taken on the favourable outcome, here on approval rates (predicted non-default: 1 − the selection rate)"
        in page.render(view=view)
    )
    assert (
        fairness_view(result.fairness, {}, "a", "95 %", GENERIC_WORDS).air_on
        == "the rate predicted negative (1 − the selection rate)"
    )
