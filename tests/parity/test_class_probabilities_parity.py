"""The measures that need each row's whole probability vector (top-label ECE with its bins,
top-k accuracy, the cost-optimal rule and both expected costs) are the same numbers from the
memory, stream and Dask engines, weighted or not, when the streamed engines keep no rows
(``stream.max_distinct_scores`` below the distinct rows, above each column's table): every
engine reduces the rows to the same mergeable cells (reportgen.reduce.class_counts.ProbabilityCells).

Small inputs: 2,500 rows, 3 classes, 2 models, no bootstrap; 3 stream batches."""

from __future__ import annotations

import json

import numpy as np
import pandas as pd
import pytest
import yaml
from sklearn import metrics as skm

from reportgen.config import load_config
from reportgen.pipeline import analyse, load_evidence

CLASSES = ["low", "mid", "high"]
N = 2500


@pytest.fixture(scope="module")
def config_path(tmp_path_factory):
    d = tmp_path_factory.mktemp("class_probabilities")
    rng = np.random.default_rng(11)
    y = rng.choice(3, N, p=[0.5, 0.3, 0.2])
    df = pd.DataFrame({"id": np.arange(N), "y": np.array(CLASSES)[y], "w": rng.integers(1, 4, N)})
    for name, signal in (("a", 1.4), ("b", 0.7)):
        logits = rng.normal(size=(N, 3)) + signal * np.eye(3)[y]
        p = np.round(np.exp(logits) / np.exp(logits).sum(axis=1, keepdims=True), 2)  # ties in rows
        for j, cls in enumerate(CLASSES):
            df[f"{name}_{cls}"] = p[:, j]
    df.to_csv(d / "mc.csv", index=False)
    cfg = {
        "title": "class probabilities",
        "task": "multiclass",
        "label": "y",
        "classes": CLASSES,
        "id": "id",
        "baseline": "b",
        "bootstrap": {"resamples": 0},
        "stream": {"batch_rows": 1000, "max_distinct_scores": 500},
        "costs": [[0, 1, 3], [1, 0, 1], [5, 2, 0]],
        "models": [
            {"name": m, "file": "mc.csv", "scores": [f"{m}_{c}" for c in CLASSES], "probabilities": True}
            for m in ("b", "a")
        ],
    }
    path = d / "mc.yaml"
    path.write_text(yaml.safe_dump(cfg, sort_keys=False), encoding="utf-8")
    return path, df


def _probabilities(path, **over):
    cfg, p = load_config(path)
    doc = json.loads(json.dumps(analyse(cfg.with_overrides(**over), p).to_json()))
    return {k: m["class_probabilities"] for k, m in doc["models"].items()}


@pytest.fixture(scope="module", params=[False, True], ids=["unweighted", "weighted"])
def memory(request, config_path):
    over = {"weight": "w"} if request.param else {}
    return over, _probabilities(config_path[0], engine="memory", **over)


def test_memory_equals_scikit_learn_and_no_value_is_missing(memory, config_path):
    over, got = memory
    _, df = config_path
    yi = df["y"].map(CLASSES.index).to_numpy()
    w = df["w"].to_numpy(dtype=float) if over else None
    for m, p in got.items():
        proba = df[[f"{m}_{c}" for c in CLASSES]].to_numpy()
        want = skm.top_k_accuracy_score(yi, proba, k=2, sample_weight=w, labels=[0, 1, 2])
        assert p["top_k_accuracy"] == pytest.approx(want, abs=1e-12) and p["reasons"] == {}
        support = np.bincount(yi, weights=w, minlength=3)  # the rule's oracle: tests/unit (no exact ties there)
        np.testing.assert_allclose(np.sum(p["cost_optimal_confusion"], axis=1), support, rtol=1e-12)
        assert p["ece_top_label"] is not None and p["expected_cost_argmax"] is not None


def test_the_stream_engine_gives_the_same_numbers_without_the_rows(memory, config_path):
    over, got = memory
    cfg, _ = load_config(config_path[0])
    assert load_evidence(cfg.with_overrides(engine="stream", **over)).rows is None
    assert _probabilities(config_path[0], engine="stream", **over) == got


@pytest.mark.dask
@pytest.mark.slow
def test_the_dask_engine_gives_the_same_numbers_without_the_rows(memory, config_path, scheduler):
    over, got = memory
    assert _probabilities(config_path[0], engine="dask", scheduler=scheduler, **over) == got
