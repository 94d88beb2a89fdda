"""The operating points, the optimal thresholds' intervals and the calibration differences (paired
on the joint score table) are the same from every engine: memory, stream (three record batches)
and Dask, on tied scores in both directions and more distinct scores than the joint table's bins.

All of them are functions of each model's score table and the pair's joint counts
(:mod:`reportgen.engine.operating_points`, :func:`reportgen.engine.calibration.pair_deltas`),
which every engine builds by merging its batches' or parts' counts; the same seed then gives the
same draws, so the documents agree to the bit.
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
#: three engine runs with the optimum bootstrap: seconds each
pytestmark = pytest.mark.slow


@pytest.fixture(scope="module")
def config_path(tmp_path_factory) -> Path:
    d = tmp_path_factory.mktemp("oppoints")
    rng = np.random.default_rng(45)
    y = (rng.random(N) < 0.2).astype(int)
    p = 1.0 / (1.0 + np.exp(-(rng.normal(size=N) + 1.4 * y - 1.5)))
    pd.DataFrame(
        {
            "y": y,
            "a": np.round(p, 3),  # probabilities, ~600 distinct: the joint table is binned
            "b": 600 - np.round(20 * (rng.normal(size=N) + 0.8 * y)),  # points, lower = riskier
            "c": np.round(np.clip(p + rng.normal(0, 0.08, N), 0, 1), 2),  # probabilities, heavy ties
        }
    ).to_csv(d / "op.csv", index=False)
    cfg = {
        "title": "operating points",
        "label": "y",
        "threshold": 0.3,
        "bootstrap": {"resamples": 40, "seed": 5},
        "calibration": {"bins": 8, "strategy": "quantile"},
        "operating_points": {"fpr": [0.05, 0.2], "recall": [0.5, 1.0]},
        "models": [
            {"name": "a", "file": "op.csv", "score": "a"},
            {"name": "b", "file": "op.csv", "score": "b", "direction": "lower", "threshold": 585},
            {"name": "c", "file": "op.csv", "score": "c"},
        ],
    }
    (d / "op.yaml").write_text(yaml.safe_dump(cfg), encoding="utf-8")
    return d / "op.yaml"


def _parts(path: Path, engine: str, scheduler: str | None = None) -> dict:
    cfg, p = load_config(path)
    over: dict = {"engine": engine}
    if engine != "memory":
        over["stream"] = {"batch_rows": 1_000}
    if scheduler is not None:
        over["scheduler"] = scheduler
    doc = json.loads(json.dumps(analyse(cfg.with_overrides(**over), p).to_json()))
    return {
        "models": {n: (m["operating_points"], m["calibration"]) for n, m in doc["models"].items()},
        "comparisons": [(c["model"], c["operating_points"], c["calibration"]) for c in doc["comparisons"]],
    }


@pytest.fixture(scope="module")
def memory(config_path: Path) -> dict:
    got = _parts(config_path, "memory")
    a_vs_c = next(c for c in got["comparisons"] if c[0] == "c")
    assert a_vs_c[1][0]["paired"] and "paired" in a_vs_c[2]["ci_method"]  # the paired path is what is compared
    assert got["models"]["a"][0]["optima"]  # the optima's intervals too
    return got


def test_stream_gives_the_memory_operating_points(config_path: Path, memory: dict) -> None:
    assert _parts(config_path, "stream") == memory


def test_dask_gives_the_memory_operating_points(config_path: Path, memory: dict, scheduler: str) -> None:
    assert _parts(config_path, "dask", scheduler) == memory
