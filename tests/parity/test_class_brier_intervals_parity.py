"""The multiclass Brier score's and top-label ECE's intervals and each challenger's paired Brier
change are the same numbers from the memory, stream and Dask engines for the same seed, when
the streamed engines keep no rows (``stream.max_distinct_scores`` below the distinct rows): the
rows' errors are counted in mergeable cells (ProbabilityCells' ``brier`` cells per model, the
paired pass's error differences per challenger).

Small inputs: 2,200 rows, 3 classes, 3 models, 60 resamples; 3 stream batches."""

from __future__ import annotations

import json

import numpy as np
import pandas as pd
import pytest
import yaml

from reportgen.config import load_config
from reportgen.engine.class_probabilities import ERROR_CELL_BOOTSTRAP, PAIRED_ERROR_CELL_BOOTSTRAP
from reportgen.pipeline import analyse, load_evidence

CLASSES = ["low", "mid", "high"]
N = 2200


@pytest.fixture(scope="module")
def config_path(tmp_path_factory):
    d = tmp_path_factory.mktemp("class_brier")
    rng = np.random.default_rng(17)
    y = rng.choice(3, N, p=[0.5, 0.3, 0.2])
    df = pd.DataFrame({"id": np.arange(N), "y": np.array(CLASSES)[y]})
    for name, signal in (("a", 1.4), ("b", 0.7), ("c", 1.0)):
        logits = rng.normal(size=(N, 3)) + signal * np.eye(3)[y]
        p = np.round(np.exp(logits) / np.exp(logits).sum(axis=1, keepdims=True), 2)
        for j, cls in enumerate(CLASSES):
            df[f"{name}_{cls}"] = p[:, j]
    df.to_csv(d / "mc.csv", index=False)
    cfg = {
        "title": "class brier",
        "task": "multiclass",
        "label": "y",
        "classes": CLASSES,
        "id": "id",
        "baseline": "b",
        "bootstrap": {"resamples": 60, "seed": 3},
        "stream": {"batch_rows": 1000, "max_distinct_scores": 500},
        "models": [
            {"name": m, "file": "mc.csv", "scores": [f"{m}_{c}" for c in CLASSES], "probabilities": True}
            for m in ("b", "a", "c")
        ],
    }
    path = d / "mc.yaml"
    path.write_text(yaml.safe_dump(cfg, sort_keys=False), encoding="utf-8")
    return path


def _intervals(path, **over):
    cfg, p = load_config(path)
    doc = json.loads(json.dumps(analyse(cfg.with_overrides(**over), p).to_json()))
    models = {
        k: (m["class_probabilities"]["ci"], m["class_probabilities"]["ci_method"]) for k, m in doc["models"].items()
    }
    return models, {c["model"]: c["calibration"] for c in doc["comparisons"]}


@pytest.fixture(scope="module")
def memory(config_path):
    return _intervals(config_path, engine="memory")


def test_every_model_and_challenger_has_its_interval_and_method(memory):
    models, changes = memory
    for ci, method in models.values():
        assert set(ci) >= {"brier", "ece_top_label", "top_k_accuracy"}
        assert method["brier"] == method["ece_top_label"] == ERROR_CELL_BOOTSTRAP
        assert ci["brier"][0] < ci["brier"][1]
    assert set(changes) == {"a", "c"}
    for ch in changes.values():
        assert ch["ci_method"] == PAIRED_ERROR_CELL_BOOTSTRAP
        lo, hi = ch["ci"]["brier"]
        assert lo <= ch["delta"]["brier"] <= hi


@pytest.mark.parametrize("engine", ["stream", "dask"])
def test_the_streamed_engines_draw_the_same_intervals_without_the_rows(memory, config_path, engine, request):
    over = {"engine": engine}
    if engine == "dask":
        over["scheduler"] = request.getfixturevalue("scheduler")
    else:
        cfg, _ = load_config(config_path)
        assert load_evidence(cfg.with_overrides(engine="stream")).rows is None
    assert _intervals(config_path, **over) == memory


def test_unpaired_files_give_the_change_without_an_interval_and_say_why(tmp_path, config_path):
    """Files of different lengths and no id: the change is there, its interval is not, and the
    method says why (the report prints it in the interval's place)."""
    df = pd.read_csv(config_path.parent / "mc.csv")
    df.drop(columns="id").to_csv(tmp_path / "b.csv", index=False)
    df.drop(columns="id").iloc[:-7].to_csv(tmp_path / "a.csv", index=False)
    cfg = yaml.safe_load(config_path.read_text(encoding="utf-8"))
    del cfg["id"]
    cfg["models"] = [{**m, "file": f"{m['name']}.csv"} for m in cfg["models"] if m["name"] in ("a", "b")]
    path = tmp_path / "mc.yaml"
    path.write_text(yaml.safe_dump(cfg, sort_keys=False), encoding="utf-8")
    _, changes = _intervals(path, engine="memory")
    assert changes["a"]["ci"] == {} and changes["a"]["ci_method"] == "no interval: the rows are not paired"
    assert changes["a"]["delta"]["brier"] is not None
