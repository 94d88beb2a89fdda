"""The score-band table is the same from every engine: memory, stream (three record batches)
and Dask read tied scores in both directions, with and without weights, and give equal bands.

The bands are computed from each model's score table (:mod:`reportgen.engine.bands`), which
every engine builds by merging the tables of its batches or parts; the whole-document parity
(``test_engine_parity.py``, slow) covers them too, this module checks them alone and fast.
"""

from __future__ import annotations

import json
from pathlib import Path

import numpy as np
import pandas as pd
import pytest
import yaml

from reportgen.config import load_config
from reportgen.pipeline import analyse

N = 2_500


@pytest.fixture(scope="module")
def config_path(tmp_path_factory) -> Path:
    d = tmp_path_factory.mktemp("bands")
    rng = np.random.default_rng(44)
    y = (rng.random(N) < 0.2).astype(int)
    pd.DataFrame(
        {
            "y": y,
            "a": np.round(rng.normal(size=N) + 1.2 * y, 1),  # one decimal: heavy ties, higher = riskier
            "b": 600 - np.round(20 * (rng.normal(size=N) + 0.8 * y)),  # points, lower = riskier
            "w": np.round(rng.uniform(0.25, 3.0, N), 2),
        }
    ).to_csv(d / "bands.csv", index=False)
    cfg = {
        "title": "bands",
        "label": "y",
        "bands": 7,
        "bootstrap": {"resamples": 0},
        "models": [
            {"name": "a", "file": "bands.csv", "score": "a"},
            {"name": "b", "file": "bands.csv", "score": "b", "direction": "lower", "threshold": 585},
        ],
    }
    (d / "bands.yaml").write_text(yaml.safe_dump(cfg), encoding="utf-8")
    return d / "bands.yaml"


def _bands(path: Path, engine: str, weight: str | None, scheduler: str | None = None) -> dict:
    cfg, p = load_config(path)
    over: dict = {"engine": engine}
    if engine != "memory":
        over["stream"] = {"batch_rows": 1_000}
    if scheduler is not None:
        over["scheduler"] = scheduler
    if weight is not None:
        over["weight"] = weight
    doc = json.loads(json.dumps(analyse(cfg.with_overrides(**over), p).to_json()))
    return {name: m["bands"] for name, m in doc["models"].items()}


@pytest.mark.parametrize("weight", [None, "w"], ids=["rows", "weights"])
def test_stream_gives_the_memory_bands(config_path: Path, weight: str | None) -> None:
    memory = _bands(config_path, "memory", weight)
    assert all(len(t["rows"]) >= 5 for t in memory.values())  # ties merge bands, but not all of them
    assert memory == _bands(config_path, "stream", weight)


@pytest.mark.slow
@pytest.mark.parametrize("weight", [None, "w"], ids=["rows", "weights"])
def test_dask_gives_the_memory_bands(config_path: Path, weight: str | None, scheduler: str) -> None:
    assert _bands(config_path, "memory", weight) == _bands(config_path, "dask", weight, scheduler)
