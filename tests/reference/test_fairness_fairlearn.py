"""The fairness section against fairlearn (the test oracle) on the raw rows, in memory and stream.

fairlearn's ``MetricFrame`` gives the per-group selection rate, TPR, FPR and precision of the
predictions ``score >= threshold`` (``<=`` for direction: lower); its ``demographic_parity_*``,
``equalized_odds_*`` and ``equal_opportunity_difference`` the disparities. The per-group AUC is
scikit-learn's on each subset; the Wilson intervals are statsmodels' ``proportion_confint``.
"""

from __future__ import annotations

from pathlib import Path

import fairlearn.metrics as fm  # the oracle is a [test] dependency: missing, the tests fail
import numpy as np
import pandas as pd
import pytest
import yaml
from sklearn.metrics import precision_score, roc_auc_score
from statsmodels.stats.proportion import proportion_confint

from reportgen.config import load_config
from reportgen.pipeline import analyse

N = 2_400
#: two whole runs (memory, stream) with their bootstraps: about 20 s on a shared core
pytestmark = pytest.mark.slow


@pytest.fixture(scope="module")
def case(tmp_path_factory) -> tuple[Path, pd.DataFrame]:
    d = tmp_path_factory.mktemp("fair")
    rng = np.random.default_rng(48)
    sex = rng.choice(["f", "m"], N, p=[0.4, 0.6])
    age = rng.choice(["18-25", "26-40", "41+"], N, p=[0.2, 0.5, 0.3])
    y = (rng.random(N) < np.where(age == "18-25", 0.3, 0.15)).astype(int)
    df = pd.DataFrame(
        {
            "y": y,
            "sex": sex,
            "age": age,
            "a": np.round(rng.normal(size=N) + 1.1 * y + 0.3 * (sex == "m"), 1),
            "b": 600 - np.round(20 * (rng.normal(size=N) + 0.8 * y)),
        }
    )
    df.to_csv(d / "fair.csv", index=False)
    cfg = {
        "title": "fairness",
        "label": "y",
        "threshold": 0.8,
        "bootstrap": {"resamples": 200, "seed": 3},
        "fairness": {"groups": ["sex", "age"], "reference": {"age": "26-40"}},
        "models": [
            {"name": "a", "file": "fair.csv", "score": "a"},
            {"name": "b", "file": "fair.csv", "score": "b", "direction": "lower", "threshold": 585},
        ],
    }
    (d / "fair.yaml").write_text(yaml.safe_dump(cfg), encoding="utf-8")
    return d / "fair.yaml", df


def _run(path: Path, engine: str):
    cfg, p = load_config(path)
    over = {"engine": engine} if engine == "memory" else {"engine": engine, "stream": {"batch_rows": 1_000}}
    return analyse(cfg.with_overrides(**over), p)


@pytest.fixture(scope="module")
def results(case):
    return {e: _run(case[0], e) for e in ("memory", "stream")}


@pytest.mark.parametrize("engine", ["memory", "stream"])
@pytest.mark.parametrize(
    ("model", "score", "threshold", "direction"), [("a", "a", 0.8, "higher"), ("b", "b", 585, "lower")]
)
def test_groups_and_disparities_equal_fairlearn(case, results, engine, model, score, threshold, direction):
    _, df = case
    pred = (df[score] >= threshold) if direction == "higher" else (df[score] <= threshold)
    pred = pred.astype(int).to_numpy()
    y = df["y"].to_numpy()
    got = results[engine].fairness.models[model]
    for col in got.columns:
        sf = df[col.column].to_numpy()
        frame = fm.MetricFrame(
            metrics={
                "sel": fm.selection_rate,
                "tpr": fm.true_positive_rate,
                "fpr": fm.false_positive_rate,
                "precision": lambda t, p: precision_score(t, p, zero_division=np.nan),
            },
            y_true=y,
            y_pred=pred,
            sensitive_features=sf,
        )
        for g in col.groups:
            row = frame.by_group.loc[g.group]
            assert g.selection_rate == pytest.approx(row["sel"], abs=1e-12)
            assert g.tpr == pytest.approx(row["tpr"], abs=1e-12)
            assert g.fpr == pytest.approx(row["fpr"], abs=1e-12)
            assert g.precision == pytest.approx(row["precision"], abs=1e-12)
            sub = sf == g.group
            s = df[score].to_numpy()[sub]
            assert g.auc == pytest.approx(roc_auc_score(y[sub], s if direction == "higher" else -s), abs=1e-12)
            assert g.selection_rate_ci == pytest.approx(
                list(proportion_confint(g.selected, g.n, alpha=0.05, method="wilson")), abs=1e-9
            )
        ref = next(x for x in col.groups if x.group == col.reference)
        for g in col.groups:
            assert g.adverse_impact_ratio == pytest.approx(g.selection_rate / ref.selection_rate, abs=1e-12)
        d = col.disparities
        kw = {"y_true": y, "y_pred": pred, "sensitive_features": sf}
        assert d["demographic_parity_difference"] == pytest.approx(fm.demographic_parity_difference(**kw), abs=1e-12)
        assert d["demographic_parity_ratio"] == pytest.approx(fm.demographic_parity_ratio(**kw), abs=1e-12)
        assert d["equalized_odds_difference"] == pytest.approx(fm.equalized_odds_difference(**kw), abs=1e-12)
        assert d["equalized_odds_ratio"] == pytest.approx(fm.equalized_odds_ratio(**kw), abs=1e-12)
        assert d["equal_opportunity_difference"] == pytest.approx(fm.equal_opportunity_difference(**kw), abs=1e-12)
        for k, v in d.items():  # a 95 % bootstrap interval holds its point estimate here
            lo, hi = col.disparities_ci[k]
            assert lo <= v <= hi, k


def test_reference_defaults_to_the_largest_group(results):
    cols = {c.column: c for c in results["memory"].fairness.models["a"].columns}
    assert cols["sex"].reference == "m" and cols["age"].reference == "26-40"


def test_stream_gives_the_memory_section(results):
    assert results["memory"].fairness == results["stream"].fairness


def test_challenger_change_is_its_disparity_minus_the_baseline(results):
    f = results["memory"].fairness.models
    for col_b, col_a in zip(f["b"].columns, f["a"].columns, strict=True):
        for k, v in f["b"].changes[col_b.column].items():
            if k in col_b.disparities:
                assert v == pytest.approx(col_b.disparities[k] - col_a.disparities[k], abs=1e-15)


def test_dask_gives_the_memory_section(case, results, scheduler):
    cfg, p = load_config(case[0])
    over = {"engine": "dask", "scheduler": scheduler, "stream": {"batch_rows": 1_000}}
    assert analyse(cfg.with_overrides(**over), p).fairness == results["memory"].fairness


def test_the_section_renders_each_group_and_the_four_fifths_mark(results, no_figures):  # the section draws none
    from reportgen.report.render import build_view, make_environment

    view = build_view(results["memory"])
    assert "fairness" in view.sections
    page = make_environment().from_string('{% import "macros.html" as ui %}{% include "sections/fairness.html" %}')
    html = page.render(view=view)
    assert html.count('<table class="fairness-groups">') == 4  # 2 models x 2 columns
    for g in ("f", "m", "18-25", "26-40", "41+"):
        assert f'<td class="group">{g}' in html
    adverse = [
        g
        for m in results["memory"].fairness.models.values()
        for c in m.columns
        for g in c.groups
        if g.adverse_impact_ratio is not None and g.adverse_impact_ratio < 0.8
    ]
    assert html.count("▼ ") == len(adverse)
