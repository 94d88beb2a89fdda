"""The tiny frozen results the snapshot tests render, and how they were made.

``fixtures/{binary,multiclass}.metrics.json`` are committed: the snapshots test rendering
(view model, filters, templates), not the engine, so an engine change does not churn them.
They come from a small deterministic run of the real pipeline, with the clock pinned and the
temporary directory replaced by ``snapshot/`` in every path. Regenerate them (then the
snapshots, with ``--update-snapshots``) only when the result schema changes::

    PYTHONPATH=. python tests/snapshots/snapshot_fixtures.py
"""

from __future__ import annotations

import json
import os
import tempfile
from pathlib import Path

import numpy as np
import pandas as pd
import yaml

HERE = Path(__file__).resolve().parent
FIXTURES = HERE / "fixtures"
PINNED_NOW = "2026-01-01T00:00:00Z"
TASKS = ("binary", "multiclass")


def fixture_path(task: str) -> Path:
    return FIXTURES / f"{task}.metrics.json"


def _binary(d: Path) -> dict:
    rng = np.random.default_rng(1)
    n = 48
    y = (rng.random(n) < 0.35).astype(int)
    y[:2] = [0, 1]
    pd.DataFrame(
        {
            "id": np.arange(1, n + 1),
            "y": y,
            "pd": np.round(np.clip(0.3 + 0.25 * y + rng.normal(0, 0.2, n), 0.01, 0.99), 1),  # ties
            "points": 600 - np.round(30 * (rng.normal(size=n) + y)),  # lower = riskier
        }
    ).to_csv(d / "tiny.csv", index=False)
    return {
        "title": "Snapshot <binary> & co",
        "author": "Tests",
        "label": "y",
        "threshold": 0.5,
        "beta": 2,
        "costs": {"fn": 5, "fp": 1},
        "prevalences": [0.1],
        "constraints": [{"maximize": "precision", "where": "recall", "at_least": 0.5}],
        "bootstrap": {"resamples": 20, "seed": 3},
        "models": [
            {"name": "scorecard", "file": "tiny.csv", "score": "points", "direction": "lower", "threshold": 590},
            {"name": "pd_model", "file": "tiny.csv", "score": "pd"},
        ],
    }


def _multiclass(d: Path) -> dict:
    rng = np.random.default_rng(2)
    n = 48
    classes = np.array(["low", "mid", "high"])
    k = np.concatenate([[0, 1, 2], rng.choice(3, n - 3, p=[0.5, 0.3, 0.2])])
    df = pd.DataFrame({"y": classes[k]})
    for name, signal in (("a", 1.5), ("b", 0.7)):
        logits = rng.normal(size=(n, 3)) + signal * np.eye(3)[k]
        p = np.round(np.exp(logits) / np.exp(logits).sum(axis=1, keepdims=True), 2)
        p[:, 0] = np.round(1 - p[:, 1] - p[:, 2], 2)
        for j, c in enumerate(classes):
            df[f"{name}_{c}"] = np.clip(p[:, j], 0, 1)
    df["rule"] = classes[np.where(rng.random(n) < 0.6, k, rng.choice(3, n))]
    df.to_csv(d / "tiny_mc.csv", index=False)
    return {
        "title": "Snapshot multiclass",
        "task": "multiclass",
        "label": "y",
        "classes": classes.tolist(),
        "costs": [[0, 1, 2], [1, 0, 1], [3, 1, 0]],
        "bootstrap": {"resamples": 20, "seed": 3},
        "models": [
            {"name": "a", "file": "tiny_mc.csv", "scores": [f"a_{c}" for c in classes], "probabilities": True},
            {"name": "b", "file": "tiny_mc.csv", "scores": [f"b_{c}" for c in classes], "probabilities": True},
            {"name": "rule", "file": "tiny_mc.csv", "prediction": "rule"},
        ],
    }


def make_fixture(task: str) -> dict:
    """The metrics.json of a small deterministic run (pinned clock, temporary paths replaced)."""
    from reportgen.config import load_config
    from reportgen.pipeline import analyse
    from reportgen.results import ComparisonResult

    saved = os.environ.get("REPORTGEN_NOW")
    os.environ["REPORTGEN_NOW"] = PINNED_NOW
    try:
        with tempfile.TemporaryDirectory() as tmp:
            d = Path(tmp).resolve()
            cfg = (_binary if task == "binary" else _multiclass)(d)
            path = d / f"{task}.yaml"
            path.write_text(yaml.safe_dump(cfg, sort_keys=False), encoding="utf-8")
            config, p = load_config(path)
            text = json.dumps(analyse(config, p).to_json(), indent=1, ensure_ascii=False)
            # the paths replaced, the digest is the new document's
            return ComparisonResult.from_json(json.loads(text.replace(str(d), "snapshot"))).to_json()
    finally:
        if saved is None:
            os.environ.pop("REPORTGEN_NOW", None)
        else:
            os.environ["REPORTGEN_NOW"] = saved


if __name__ == "__main__":
    FIXTURES.mkdir(exist_ok=True)
    for task in TASKS:
        fixture_path(task).write_text(
            json.dumps(make_fixture(task), indent=1, ensure_ascii=False) + "\n", encoding="utf-8"
        )
        print(fixture_path(task))
