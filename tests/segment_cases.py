"""Small files for the segments tests: one CSV, three models, two segment columns."""

from __future__ import annotations

from pathlib import Path
from typing import Any

import numpy as np
import pandas as pd

from reportgen.config import Config, config_from_mapping


def planted(path: Path, n: int = 900, seed: int = 3, weights: bool = False) -> Path:
    """Rows where the challenger ranks far better than the champion in bands a and b and is noise
    in band c (where the champion ranks well): better overall, worse in c. ``other`` a second
    column with no effect; ``third`` a model between the two."""
    rng = np.random.default_rng(seed)
    band = rng.choice(np.array(["a", "b", "c"]), n, p=[0.4, 0.4, 0.2])
    y = rng.random(n) < 0.3
    noise = rng.normal(size=(3, n))
    champion = np.where(band == "c", 2.0 * y, 0.4 * y) + noise[0]
    challenger = np.where(band == "c", 0.0, 2.0 * y) + noise[1]
    third = 1.0 * y + noise[2]
    df = pd.DataFrame(
        {
            "y": y.astype(int),
            "champion": np.round(champion, 2),
            "challenger": np.round(challenger, 2),
            "third": np.round(third, 2),
            "band": band,
            "other": rng.choice(np.array(["x", "y"]), n),
        }
    )
    if weights:
        df["w"] = rng.integers(1, 4, n)
    df.to_csv(path, index=False)
    return path


def config(path: Path, **extra: Any) -> Config:
    models = [{"name": n, "file": str(path), "score": n} for n in ("champion", "challenger", "third")]
    data = {
        "task": "binary",
        "label": "y",
        "positive": 1,
        "threshold": 0.5,
        "primary_metric": "gini",
        "bootstrap": {"resamples": 30, "seed": 5},
        "models": models,
        "segments": ["band", "other"],
        **extra,
    }
    return config_from_mapping(data, source="segments.yaml")
