"""Multiclass at the depth of binary, in every engine: the classification tables with their
intervals, accuracy against the NIR, the per-class deltas, the challengers' pairwise matrix and
the class probabilities' Brier, ECEs, top-k accuracy and cost-optimal rule are the same numbers
from the memory, stream and Dask engines (all are drawn on counts the engines count alike:
confusion matrices, the pairs' joint counts, the kept distinct rows).

Small inputs (1,500 rows, 3 classes, 3 models, 30 resamples); the whole-document parity of the
shipped cases is tests/parity/test_engine_parity.py."""

from __future__ import annotations

import json

import numpy as np
import pandas as pd
import pytest
import yaml
from sklearn import metrics as skm

from reportgen.config import load_config
from reportgen.pipeline import analyse

CLASSES = ["low", "mid", "high"]


@pytest.fixture(scope="module")
def config_path(tmp_path_factory):
    d = tmp_path_factory.mktemp("class_report")
    rng = np.random.default_rng(4)
    n = 1500
    y = rng.choice(3, n, p=[0.5, 0.3, 0.2])
    df = pd.DataFrame({"id": np.arange(n), "y": np.array(CLASSES)[y]})
    for name, signal in (("a", 1.6), ("b", 1.0), ("c", 0.6)):
        logits = rng.normal(size=(n, 3)) + signal * np.eye(3)[y]
        p = np.round(np.exp(logits) / np.exp(logits).sum(axis=1, keepdims=True), 2)
        for j, cls in enumerate(CLASSES):
            df[f"{name}_{cls}"] = p[:, j]
    df.to_csv(d / "mc.csv", index=False)
    cfg = {
        "title": "class report",
        "task": "multiclass",
        "label": "y",
        "classes": CLASSES,
        "id": "id",
        "baseline": "c",
        "primary_metric": "accuracy",
        "bootstrap": {"resamples": 30, "seed": 3},
        "costs": [[0, 1, 3], [1, 0, 1], [5, 2, 0]],
        "models": [
            {"name": m, "file": "mc.csv", "scores": [f"{m}_{c}" for c in CLASSES], "probabilities": True}
            for m in ("c", "a", "b")
        ],
    }
    path = d / "mc.yaml"
    path.write_text(yaml.safe_dump(cfg, sort_keys=False), encoding="utf-8")
    return path, df


def _blocks(path, **over):
    cfg, p = load_config(path)
    doc = json.loads(json.dumps(analyse(cfg.with_overrides(**over), p).to_json()))
    return {
        "models": {
            k: {
                f: m[f]
                for f in ("classification", "class_probabilities", "per_class", "per_class_ci", "per_class_ci_method")
            }
            for k, m in doc["models"].items()
        },
        "class_deltas": [c["class_deltas"] for c in doc["comparisons"]],
        "pairwise": doc["pairwise"],
    }


@pytest.fixture(scope="module")
def memory(config_path):
    return _blocks(config_path[0], engine="memory")


def test_the_tables_equal_scikit_learn_and_the_pairs_are_tested(memory, config_path):
    _, df = config_path
    y = df["y"].to_numpy()
    for m in ("a", "b", "c"):
        pred = np.array(CLASSES)[df[[f"{m}_{c}" for c in CLASSES]].to_numpy().argmax(axis=1)]
        t = memory["models"][m]["classification"]
        for avg in ("macro", "weighted", "micro"):
            p, r, f, _ = skm.precision_recall_fscore_support(y, pred, labels=CLASSES, average=avg, zero_division=0)
            assert [t["averages"][avg][k] for k in ("precision", "recall", "f1")] == pytest.approx([p, r, f], abs=1e-12)
            for k, (lo, hi) in t["averages_ci"][avg].items():
                assert lo <= t["averages"][avg][k] <= hi or np.isclose(lo, hi), (m, avg, k)
        assert set(memory["models"][m]["per_class_ci"]["mid"]) >= {"precision", "recall", "f1", "specificity"}
    pairs = {(c["model"], c["baseline"]): c for c in memory["pairwise"]}
    assert len(pairs) == 6
    ab, ba = pairs["a", "b"], pairs["b", "a"]
    assert ab["family"] == "challenger_pairs" and ab["p_value"] is not None and ab["metric"] == "accuracy"
    assert ab["delta"] == pytest.approx(-ba["delta"]) and ab["p_value"] == ba["p_value"]
    assert pairs["a", "c"]["family"] == "verdicts"
    assert all(d["ci"] for d in memory["class_deltas"])
    p = memory["models"]["a"]["class_probabilities"]
    proba = df[[f"a_{c}" for c in CLASSES]].to_numpy()
    yi = np.array([CLASSES.index(v) for v in y])  # scikit-learn reads the columns in label order
    assert p["brier"] == pytest.approx(skm.brier_score_loss(yi, proba, labels=[0, 1, 2]), abs=1e-12)
    assert p["top_k_accuracy"] == pytest.approx(skm.top_k_accuracy_score(yi, proba, k=2, labels=[0, 1, 2]), abs=1e-12)
    assert p["expected_cost_optimal"] <= p["expected_cost_argmax"] + 0.05 and p["reasons"] == {}


def test_the_stream_engine_gives_the_same_numbers(memory, config_path):
    assert _blocks(config_path[0], engine="stream", stream={"batch_rows": 1000}) == memory


@pytest.mark.dask
@pytest.mark.slow
def test_the_dask_engine_gives_the_same_numbers(memory, config_path, scheduler):
    assert _blocks(config_path[0], engine="dask", stream={"batch_rows": 1000}, scheduler=scheduler) == memory
