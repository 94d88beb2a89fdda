"""``result.frames()`` (issue 42): tidy DataFrames of a result, equal in memory and read back from
its metrics.json, with the JSON's numbers, fixed columns and dtypes; binary with credit and
checks, multiclass, a single model."""

from __future__ import annotations

import json
import subprocess
import sys
from pathlib import Path

import numpy as np
import pandas as pd
import pytest
import yaml
from oracles import holm_adjusted

import reportgen
from reportgen.frames import COLUMNS

ROOT = Path(__file__).resolve().parents[2]
NOW = "2026-01-01T00:00:00Z"


def _saved(result, tmp: Path):
    """``result``, read back from the metrics.json :func:`reportgen.write_report` wrote, and that document."""
    written = reportgen.write_report(result, tmp, formats=("json",))
    doc = json.loads(written["json"].read_text(encoding="utf-8"))
    return result, reportgen.load_result(written["json"]), doc


@pytest.fixture(scope="module")
def binary(tmp_path_factory):
    """Three binary models on 400 rows in memory, with checks."""
    rng = np.random.default_rng(1)
    y = rng.integers(0, 2, 400)
    df = pd.DataFrame(
        {
            "y": y,
            "a": np.clip(0.2 * y + rng.normal(0.4, 0.2, 400), 0, 1),
            "b": np.clip(0.3 * y + rng.normal(0.35, 0.2, 400), 0, 1),
            "c": rng.uniform(size=400),
        }
    )
    checks = [{"metric": "gini", "at_least": 0.1}, {"comparison": "b", "must_not_be": "worse"}]
    result = reportgen.compare_frames(
        df, label="y", scores=["a", "b", "c"], now=NOW, checks=checks, bootstrap={"resamples": 20, "seed": 7}
    )
    return _saved(result, tmp_path_factory.mktemp("binary"))


@pytest.fixture(scope="module")
def multiclass(tmp_path_factory):
    """Two multiclass models (class probabilities) on 300 rows of a CSV."""
    tmp = tmp_path_factory.mktemp("multiclass")
    rng = np.random.default_rng(2)
    y = rng.integers(0, 3, 300)
    cols = {"y": np.array(["low", "mid", "high"])[y]}
    for m, strength in (("m1", 1.0), ("m2", 2.0)):
        logits = rng.normal(size=(300, 3)) + strength * np.eye(3)[y]
        p = np.exp(logits) / np.exp(logits).sum(axis=1, keepdims=True)
        cols |= {f"{m}_{k}": p[:, i] for i, k in enumerate(("low", "mid", "high"))}
    pd.DataFrame(cols).to_csv(tmp / "d.csv", index=False)
    models = [
        {"name": m, "file": "d.csv", "scores": {k: f"{m}_{k}" for k in ("low", "mid", "high")}, "probabilities": True}
        for m in ("m1", "m2")
    ]
    (tmp / "c.yaml").write_text(
        yaml.safe_dump(
            {"task": "multiclass", "label": "y", "models": models, "bootstrap": {"resamples": 20, "seed": 7}}
        ),
        encoding="utf-8",
    )
    cfg, path = reportgen.load_config(tmp / "c.yaml")
    return _saved(reportgen.compare_models(cfg, path, now=NOW), tmp / "out")


@pytest.fixture(scope="module")
def credit(tmp_path_factory):
    """The shipped demo (credit validation of three models on 6,000 rows), a small bootstrap."""
    cfg, path = reportgen.load_config(ROOT / "configs" / "demo.yaml")
    cfg = cfg.with_overrides(bootstrap={"resamples": 20, "seed": 7})
    return _saved(reportgen.compare_models(cfg, path, now=NOW), tmp_path_factory.mktemp("credit"))


def _same_frames(result, loaded, case: str) -> None:
    ours, theirs = result.frames(), loaded.frames()
    assert list(ours) == list(theirs), case
    for name in ours:
        pd.testing.assert_frame_equal(ours[name], theirs[name], check_exact=True, obj=f"{case} {name}")


def test_frames_in_memory_equal_frames_read_back_from_metrics_json(binary, multiclass) -> None:
    _same_frames(*binary[:2], "binary")
    _same_frames(*multiclass[:2], "multiclass")
    assert list(binary[0].frames()) == ["metrics", "comparisons", "thresholds", "checks", "bands"]
    assert list(multiclass[0].frames()) == [
        "metrics",
        "comparisons",
        "thresholds",
        "per_class",
        "class_averages",
        "class_deltas",
        "class_probabilities",
    ]


@pytest.mark.slow
def test_credit_frames_in_memory_equal_frames_read_back(credit) -> None:
    _same_frames(*credit[:2], "credit")
    assert list(credit[0].frames()) == [
        "metrics",
        "comparisons",
        "thresholds",
        "credit_grades",
        "credit_tests",
        "credit_groups",
        "segments",
        "bands",
    ]


def test_columns_and_dtypes_are_fixed_whatever_the_run_holds(binary, multiclass) -> None:
    one = reportgen.compare_frames(
        pd.DataFrame({"y": [0, 1] * 20, "s": np.linspace(0, 1, 40)}),
        label="y",
        scores=["s"],
        now=NOW,
        bootstrap={"resamples": 0},
    )
    for result in (binary[0], multiclass[0], one):  # the credit frames: test_credit_frames_…
        for name, df in result.frames().items():
            assert {c: str(t) for c, t in df.dtypes.items()} == {
                c: "string" if t == "string" else t for c, t in COLUMNS[name].items()
            }, name
    empty = one.frames()["comparisons"]  # one model: nothing compared, the columns still there
    assert len(empty) == 0 and list(empty.columns) == list(COLUMNS["comparisons"])


def test_comparisons_hold_each_challengers_gini_delta_interval_and_adjusted_p_of_the_json(binary) -> None:
    _, loaded, doc = binary
    df = loaded.frames()["comparisons"]
    gini = df[df["metric"] == "gini"].set_index("model")
    assert sorted(gini.index) == sorted(c["model"] for c in doc["comparisons"]) == ["b", "c"]
    for c in doc["comparisons"]:
        row = gini.loc[c["model"]]
        assert row["baseline"] == c["baseline"] == "a"
        assert row["delta"] == c["delta"]["gini"]
        assert [row["ci_low"], row["ci_high"]] == c["ci"]["gini"]
        assert row["p_value"] == c["decision"]["p_value"]
        assert row["p_adjusted"] == c["decision"]["p_value_adjusted"]
        assert row["family"] == "verdicts" and row["primary"]
        assert row["verdict"] == c["decision"]["direction"]
    # the adjusted p is Holm's over the family of verdicts (statsmodels, an independent oracle)
    raw = [gini.loc[c["model"], "p_value"] for c in doc["comparisons"]]
    holm = holm_adjusted(raw)
    assert list(gini.loc[[c["model"] for c in doc["comparisons"]], "p_adjusted"]) == pytest.approx(holm, abs=1e-12)
    # the AUC's delta carries DeLong's test, in its own family
    auc = df[df["metric"] == "roc_auc"].set_index("model")
    for c in doc["comparisons"]:
        assert auc.loc[c["model"], "p_adjusted"] == c["tests"]["delong"]["p_value_holm"]
        assert (
            auc.loc[c["model"], "family"] == c["tests"]["delong"]["family"]
        )  # "verdicts" when DeLong gives the verdict
    assert df.loc[~df["primary"], "verdict"].isna().all()


def test_metrics_and_thresholds_hold_the_json_values(binary) -> None:
    _, loaded, doc = binary
    f = loaded.frames()
    metrics = f["metrics"]
    assert len(metrics) == sum(len(m["metrics"]) for m in doc["models"].values())
    for r in metrics.itertuples(index=False):
        m = doc["models"][r.model]
        want = m["metrics"][r.metric]
        assert np.isnan(r.value) if want is None else r.value == want
        ci = m["ci"].get(r.metric)
        assert (np.isnan(r.ci_low) and np.isnan(r.ci_high)) if ci is None else [r.ci_low, r.ci_high] == ci
        assert (r.better is pd.NA) or r.better in ("higher", "lower")
    assert set(metrics.loc[metrics["metric"] == "error_rate", "better"]) == {"lower"}
    thr = f["thresholds"]
    assert len(thr) == sum(len(m["optimal_thresholds"]) for m in doc["models"].values())
    for r in thr.itertuples(index=False):
        o = doc["models"][r.model]["optimal_thresholds"][r.criterion]
        assert (r.threshold, r.value, r.tp, r.fp, r.fn, r.tn) == (
            o["threshold"],
            o["value"],
            o["tp"],
            o["fp"],
            o["fn"],
            o["tn"],
        )


def test_approval_rate_is_the_share_of_rows_below_the_cut() -> None:
    """Checked from the scores themselves: a row is approved (predicted negative) below the cut."""
    rng = np.random.default_rng(3)
    y = rng.integers(0, 2, 400)
    s = np.clip(0.3 * y + rng.normal(0.35, 0.2, 400), 0, 1)
    result = reportgen.compare_frames(
        pd.DataFrame({"y": y, "s": s}), label="y", scores=["s"], now=NOW, bootstrap={"resamples": 0}
    )
    thr = result.frames()["thresholds"]
    assert len(thr) > 0
    for r in thr.itertuples(index=False):
        assert r.approval_rate == pytest.approx(np.mean(s < r.threshold), abs=1e-12), r.criterion


def test_multiclass_per_class_frame(multiclass) -> None:
    result, _, doc = multiclass
    pc = result.frames()["per_class"]
    for r in pc.itertuples(index=False):
        want = doc["models"][r.model]["per_class"][r._1][r.metric]
        assert np.isnan(r.value) if want is None else r.value == want
    assert set(pc["class"]) == {"low", "mid", "high"} and len(pc) > 0


@pytest.mark.slow
def test_credit_frames_hold_the_grades_tests_and_groups(credit) -> None:
    _, loaded, doc = credit
    for name, df in loaded.frames().items():
        assert {c: str(t) for c, t in df.dtypes.items()} == {
            c: "string" if t == "string" else t for c, t in COLUMNS[name].items()
        }, name
    f = loaded.frames()
    credit = doc["credit"]["models"]
    grades = f["credit_grades"]
    assert len(grades) == sum(len(m["grades"]) for m in credit.values())
    first = credit["challenger"]["grades"][0]
    row = grades[grades["model"] == "challenger"].iloc[0]
    assert (row["grade"], row["n"], row["defaults"], row["jeffreys_p"]) == (
        first["grade"],
        first["n"],
        first["defaults"],
        first["jeffreys"]["p_value"],
    )
    tests = f["credit_tests"].set_index(["model", "test"])
    for name, m in credit.items():
        if m["calibration"] is not None:
            assert tests.loc[(name, "hosmer_lemeshow"), "p_value"] == m["calibration"]["hosmer_lemeshow"]["p_value"]
        if m["stability"] is not None:
            assert tests.loc[(name, "psi"), "statistic"] == m["stability"]["psi"]["statistic"]
    groups = f["credit_groups"]
    assert set(groups["by"]) <= {"period", "segment"}
    seg = groups[(groups["model"] == "challenger") & (groups["by"] == "segment")]
    assert list(seg["key"]) == [g["key"] for g in credit["challenger"]["segments"]]


def test_checks_frame(binary) -> None:
    _, loaded, doc = binary
    checks = loaded.frames()["checks"]
    assert list(checks["rule"]) == [c["rule"] for c in doc["checks"]]
    assert list(checks["passed"]) == [c["passed"] for c in doc["checks"]]


def test_importing_results_does_not_import_pandas() -> None:
    code = "import sys, reportgen.results, reportgen.frames; print('pandas' in sys.modules)"
    out = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True, check=True).stdout
    assert out.strip() == "False"


def test_trend_frame_one_row_per_recorded_number(binary) -> None:
    import dataclasses

    from reportgen.option_results import TrendPoint

    points = [
        TrendPoint("r1", "2026-01-01T00:00:00Z", "a", "model", "gini", 0.41, [0.35, 0.47]),
        TrendPoint("r2", "2026-02-01T00:00:00Z", "b vs a", "comparison", "gini", None),
    ]
    trend = dataclasses.replace(binary[0], trend=points).frames()["trend"]
    assert list(trend["run_id"]) == ["r1", "r2"] and list(trend["kind"]) == ["model", "comparison"]
    assert trend.loc[0, ["value", "ci_low", "ci_high"]].tolist() == [0.41, 0.35, 0.47]
    assert trend.loc[1, ["value", "ci_low", "ci_high"]].isna().all()
    assert str(trend["value"].dtype) == "float64" and str(trend["subject"].dtype) == "string"
