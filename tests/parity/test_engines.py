"""Parity of the engines (issue 15): every (task × engine) on the same inputs gives the same
metrics.json minus the run block.

Every engine reduces its rows to the same evidence (:mod:`reportgen.engine.evidence`) and one
driver makes the result, so: point metrics, curves, optima, DeLong and McNemar are equal
exactly; bootstrap intervals are equal for the same seed (each model's drawn on its score
table, the differences of threshold metrics on the decision-pattern counts). What an engine
cannot give (the memory engine keeps the rows, the others do not) is named in the comparison's
``capabilities`` with a reason code — the only allowed difference, and it must explain every
interval one engine has and the other lacks.

Small data with ties (scores rounded to 2 decimals, integer points), both directions, a model
with its own threshold outside its scores, and integer weights.
"""

from __future__ import annotations

import json
from pathlib import Path

import numpy as np
import pandas as pd
import pytest

from reportgen.config import load_config
from reportgen.engine.binary import THRESHOLD_METRICS
from reportgen.engine.compare import DELONG_METRICS, MICRO_PROJECTION, ROW_BOOTSTRAP, ROW_ONLY_METRICS
from reportgen.engine.intervals import (
    COUNT_BOOTSTRAP,
    JOINT_CONFUSION_BOOTSTRAP,
    WEIGHTED_BOOTSTRAP,
    WEIGHTED_JOINT_BOOTSTRAP,
)
from reportgen.engine.proportions import CLOPPER_PEARSON
from reportgen.pipeline import analyse

N = 2_500


@pytest.fixture(scope="module")
def data(tmp_path_factory) -> Path:
    d = tmp_path_factory.mktemp("parity")
    rng = np.random.default_rng(15)
    y = rng.random(N) < 0.3
    z = rng.normal(size=N) + 1.2 * y
    pd.DataFrame(
        {
            "y": y.astype(int),
            "a": np.round(1 / (1 + np.exp(-z)), 2),  # probabilities with ties
            "b": 600 - np.round(30 * (rng.normal(size=N) + 0.8 * y)),  # points, lower = riskier
            "c": np.round(rng.normal(size=N) + 0.5 * y, 1),  # few distinct scores
            "w": rng.integers(1, 4, N),  # frequency weights
        }
    ).to_csv(d / "bin.csv", index=False)
    classes = ["current", "early", "late"]
    yk = rng.choice(3, size=N, p=[0.6, 0.3, 0.1])
    df = pd.DataFrame({"stage": np.array(classes, dtype=object)[yk]})
    zk = rng.normal(size=(N, 3))
    zk[np.arange(N), yk] += 1.3
    p = np.exp(zk) / np.exp(zk).sum(axis=1, keepdims=True)
    for c, cls in enumerate(classes):
        df[f"g_{cls}"] = np.round(p[:, c], 2)
    flip = rng.random(N) < 0.3
    df["rule"] = np.where(flip, np.array(classes, dtype=object)[rng.integers(0, 3, N)], df["stage"])
    df["w"] = rng.integers(1, 4, N)
    df.to_csv(d / "mc.csv", index=False)
    return d


def _binary(d: Path, extra: str = "") -> Path:
    cfg = d / f"b_{abs(hash(extra))}.yaml"
    cfg.write_text(
        "title: parity\nlabel: y\nthreshold: 0.5\nbootstrap: {resamples: 150, seed: 7}\n"
        + extra
        + "models:\n  - {name: a, file: bin.csv, score: a}\n"
        "  - {name: b, file: bin.csv, score: b, direction: lower, threshold: 590}\n"
        "  - {name: c, file: bin.csv, score: c, threshold: 9}\n"  # outside the scores: one class predicted
    )
    return cfg


def _multiclass(d: Path, extra: str = "") -> Path:
    cfg = d / f"m_{abs(hash(extra))}.yaml"
    cfg.write_text(
        "title: parity\ntask: multiclass\nlabel: stage\nclasses: [current, early, late]\n"
        "bootstrap: {resamples: 60, seed: 7}\n"
        + extra
        + "models:\n  - {name: gbm, file: mc.csv, scores: [g_current, g_early, g_late]}\n"
        "  - {name: rules, file: mc.csv, prediction: rule}\n"
    )
    return cfg


def _run(cfg_path: Path, engine: str, scheduler: str | None = None) -> dict:
    cfg, p = load_config(cfg_path)
    over = {"engine": engine, "stream": {"batch_rows": 1000}}
    if scheduler:
        over["scheduler"] = scheduler
    return json.loads(json.dumps(analyse(cfg.with_overrides(**over), p).to_json()))


def _engines(cfg: Path, scheduler: str) -> dict[str, dict]:
    return {"memory": _run(cfg, "memory"), "stream": _run(cfg, "stream"), "dask": _run(cfg, "dask", scheduler)}


def _without_rows(comparison: dict) -> dict:
    """A comparison minus what only kept rows give (intervals made by the row bootstrap) and
    and minus the capability codes (compared on their own)."""
    c = dict(comparison)
    row_made = {k for k, v in c["ci_method"].items() if v in (ROW_BOOTSTRAP, MICRO_PROJECTION)}
    c["ci"] = {k: v for k, v in c["ci"].items() if k not in row_made}
    c["ci_method"] = {k: v for k, v in c["ci_method"].items() if k not in row_made}
    c["capabilities"] = {}
    c["approval"] = []  # at equal approval rate: the aligned rows only
    c["tests"] = {**c["tests"], "notes": None}
    return c


#: The capability that explains a missing interval of a difference, per metric.
def _capability_of(metric: str) -> tuple[str, ...]:
    if metric in ROW_ONLY_METRICS:
        return ("paired_interval.ranking_metrics",)
    if metric in DELONG_METRICS:
        return ("delong",)
    assert metric in THRESHOLD_METRICS
    return ("paired_interval.threshold_metrics",)


def test_binary_engines_give_the_same_json(data, scheduler):
    runs = _engines(_binary(data, "approval_rates: [0.3, 0.7]\n"), scheduler)
    mem = runs["memory"]
    for engine in ("stream", "dask"):
        got = runs[engine]
        # every model: metrics, curves, optima, DeLong and bootstrap intervals, warnings — exactly
        assert got["models"] == mem["models"], engine
        assert got["pairwise"] == mem["pairwise"], engine
        assert got["run"]["warnings"] == mem["run"]["warnings"], engine
        # every comparison too, the ranking-metric differences included: drawn on the pairs' joint
        # score tables, which every engine counts in its paired pass (issue 16)
        # and the comparison at equal approval rate: counted by pattern in every paired pass (same
        # numbers, same interval for the seed)
        assert got["comparisons"] == mem["comparisons"], engine
        for cm in mem["comparisons"]:
            assert cm["capabilities"] == {} and all(a["ci"] for a in cm["approval"])
            assert [(a["source"], a["target_rate"]) for a in cm["approval"]][1:] == [("config", 0.3), ("config", 0.7)]
            assert {k for k in ROW_ONLY_METRICS if k in cm["ci"]} != set()
    # the warning 'threshold outside the scores', from one place for every engine
    assert any(
        "threshold 9 lies outside the scores of model 'c'" in w and "models[2].threshold" in w
        for w in mem["run"]["warnings"]
    )
    assert mem["models"]["a"]["ci_method"]["f1"] == "bootstrap"
    assert mem["models"]["a"]["ci_method"]["ks"] == "reshaped bootstrap-t"  # a maximum (issue 16)
    assert mem["comparisons"][0]["ci_method"]["f1"] == "paired bootstrap of decision patterns"
    assert mem["comparisons"][0]["tests"]["delong"]["paired"]


def test_binary_weighted_engines_give_the_same_json(data, scheduler):
    """Weighted models: every engine counts the rows per (score, class, weight) and, for pairs,
    per (both models' scores, class, weights), so the bootstrap of the rows with their weights,
    its paired differences, the verdict and the comparison at equal approval rate are the same
    numbers for the same seed in every engine (issue 16)."""
    runs = _engines(_binary(data, "weight: w\napproval_rates: [0.7]\n"), scheduler)
    mem = runs["memory"]
    for engine in ("stream", "dask"):
        got = runs[engine]
        assert got["models"] == mem["models"], engine
        assert got["comparisons"] == mem["comparisons"], engine
    for name, mm in mem["models"].items():
        ks = "reshaped bootstrap-t (weighted score table)"
        assert set(mm["ci_method"].values()) <= {WEIGHTED_BOOTSTRAP, CLOPPER_PEARSON, ks}, name
        assert mm["ci_method"]["f1"] == mm["ci_method"]["roc_auc"] == WEIGHTED_BOOTSTRAP
        assert mm["ci_method"]["ks"] == ks and mm["ci"]["ks"], name
    for cm in mem["comparisons"]:
        assert cm["tests"]["delong"] is None and cm["capabilities"] == {"delong": "weighted"}
        assert cm["ci_method"]["gini"] == cm["ci_method"]["f1"] == cm["ci_method"]["ks"] == WEIGHTED_JOINT_BOOTSTRAP
        assert (
            cm["decision"]["method"] == "bootstrap (normal, SE of the replicates)"
            and cm["decision"]["p_value"] is not None
        )
        assert [a["target_rate"] for a in cm["approval"]][1:] == [0.7] and all(a["ci"] for a in cm["approval"])
        # sampling weights: McNemar on the rows (weighted table beside) in every engine
        assert cm["tests"]["mcnemar"]["basis"] == "rows"


def test_multiclass_past_the_distinct_row_cap_streams_without_the_row_bootstrap(data):
    """Stream keeps the compared rows as distinct rows up to ``stream.max_distinct_scores``; past
    it the row bootstrap is not drawn and every comparison says so (``bootstrap``-family
    capability ``needs_rows``), while the intervals the counts give stay equal to memory's."""
    cfg, p = load_config(_multiclass(data))
    mem = json.loads(json.dumps(analyse(cfg.with_overrides(engine="memory"), p).to_json()))
    capped = cfg.with_overrides(engine="stream", stream={"batch_rows": 1000, "max_distinct_scores": 1000})
    got = json.loads(json.dumps(analyse(capped, p).to_json()))
    for name, mm in mem["models"].items():
        gm = got["models"][name]
        rows = {ROW_BOOTSTRAP, MICRO_PROJECTION}  # the rows' resamples' methods
        assert not rows & set(gm["ci_method"].values())
        assert {k: v for k, v in mm["ci"].items() if mm["ci_method"][k] not in rows} == gm["ci"]
    for cm, cg in zip(mem["comparisons"], got["comparisons"]):
        assert cm["capabilities"] == {} and cg["capabilities"] == {"paired_interval.probability_metrics": "needs_rows"}
        assert cg["delta"] == cm["delta"] and cg["tests"]["mcnemar"] == cm["tests"]["mcnemar"]


def test_multiclass_engines_give_the_same_json(data, scheduler):
    runs = _engines(_multiclass(data), scheduler)
    mem = runs["memory"]
    for engine in ("stream", "dask"):
        got = runs[engine]
        for name, mm in mem["models"].items():
            # every interval the same for the same seed (issue 15): the counts' draws, the class
            # tables' and the row bootstrap of the distinct rows every engine counts alike
            assert got["models"][name] == mm, (engine, name)
            assert set(mm["ci_method"].values()) >= {COUNT_BOOTSTRAP}
            assert {k for k, v in mm["ci_method"].items() if v == ROW_BOOTSTRAP} <= {
                "roc_auc_ovr_micro",
                "roc_auc_ovr_macro",
                "roc_auc_ovr_weighted",
                "roc_auc_ovo_macro",
            }
        for cm, cg in zip(mem["comparisons"], got["comparisons"]):
            assert cg == cm and cm["capabilities"] == {}
            # differences of the confusion metrics: drawn on the pair's joint confusion counts; the
            # rows add the AUCs and log-loss
            joint = {k for k, v in cm["ci_method"].items() if v == JOINT_CONFUSION_BOOTSTRAP}
            assert joint and set(cm["ci"]) - joint <= {
                "log_loss",
                "roc_auc_ovr_micro",
                "roc_auc_ovr_macro",
                "roc_auc_ovr_weighted",
                "roc_auc_ovo_macro",
            }
            # the model with scores: its averaged AUCs' intervals drawn on the distinct rows' counts
            assert {"roc_auc_ovr_macro", "roc_auc_ovo_macro", "roc_auc_ovr_micro", "log_loss"} <= set(
                mem["models"]["gbm"]["ci"]
            )
        assert got["run"]["warnings"] == mem["run"]["warnings"]
