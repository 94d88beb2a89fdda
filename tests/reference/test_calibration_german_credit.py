"""Calibration on a public credit data set, in every engine: ECE, MCE, each bin's observed rate
with its Clopper–Pearson interval, the Brier score, its uncertainty term and its skill score of
two PD models on the German credit data (UCI Statlog, CC BY 4.0; configs/public/data, scored out
of fold by configs/public/make_packs.py), equal to an independent computation on the rows
(numpy for the bins, scipy.stats.beta for the intervals, scikit-learn for the bins' rates, the
Brier score and ``d2_brier_score``), from memory, stream and Dask alike. The 1,000 applicants
are written three times over (3,000 rows: three record batches of the stream engine's smallest
size); the oracle reads the same file.
"""

from __future__ import annotations

import json
from pathlib import Path

import numpy as np
import pandas as pd
import pytest
import yaml
from scipy.stats import beta
from sklearn.calibration import calibration_curve
from sklearn.metrics import brier_score_loss, d2_brier_score

from reportgen.config import load_config
from reportgen.pipeline import analyse

DATA = Path(__file__).resolve().parents[2] / "configs" / "public" / "data" / "credit_segments.csv"
BINS = 10
MODELS = ("gbm_pd", "logistic_pd")


@pytest.fixture(scope="module")
def config_path(tmp_path_factory) -> Path:
    d = tmp_path_factory.mktemp("german_calibration")
    pd.concat([pd.read_csv(DATA)] * 3).to_csv(d / "german.csv", index=False)
    cfg = {
        "title": "German credit calibration",
        "label": "default_flag",
        "threshold": 0.3,
        "bootstrap": {"resamples": 20, "seed": 3},
        "calibration": {"bins": BINS, "strategy": "uniform"},
        "models": [{"name": m, "file": "german.csv", "score": m} for m in MODELS],
    }
    (d / "german.yaml").write_text(yaml.safe_dump(cfg), encoding="utf-8")
    return d / "german.yaml"


def _calibration(path: Path, engine: str, scheduler: str | None = None) -> dict:
    cfg, p = load_config(path)
    over: dict = {"engine": engine}
    if engine != "memory":
        over["stream"] = {"batch_rows": 1_000}
    if scheduler is not None:
        over["scheduler"] = scheduler
    doc = json.loads(json.dumps(analyse(cfg.with_overrides(**over), p).to_json()))
    return {n: m["calibration"] for n, m in doc["models"].items()}


def _oracle(p: np.ndarray, y: np.ndarray) -> dict:
    """The numbers from the rows: bin b holds b/BINS < p <= (b + 1)/BINS (the first bin closed),
    scikit-learn's ``calibration_curve`` binning."""
    which = np.searchsorted(np.linspace(0, 1, BINS + 1)[1:-1], p)
    n = np.bincount(which, minlength=BINS).astype(float)
    k = np.bincount(which, weights=y, minlength=BINS)
    s = np.bincount(which, weights=p, minlength=BINS)
    ok = n > 0
    obs, pred, w = k[ok] / n[ok], s[ok] / n[ok], n[ok] / n.sum()
    lo = np.where(k[ok] == 0, 0.0, beta.ppf(0.025, k[ok], n[ok] - k[ok] + 1))
    hi = np.where(k[ok] == n[ok], 1.0, beta.ppf(0.975, k[ok] + 1, n[ok] - k[ok]))
    rate = y.mean()
    return {
        "ece": float(np.sum(w * np.abs(obs - pred))),
        "mce": float(np.max(np.abs(obs - pred))),
        "uncertainty": float(rate * (1 - rate)),
        "brier": float(brier_score_loss(y, p)),
        "brier_skill": float(d2_brier_score(y, p)),
        "observed": obs,
        "mean_predicted": pred,
        "lo": lo,
        "hi": hi,
    }


@pytest.fixture(scope="module")
def memory(config_path: Path) -> dict:
    return _calibration(config_path, "memory")


@pytest.mark.parametrize("model", MODELS)
def test_memory_equals_an_independent_computation_on_the_rows(config_path: Path, memory: dict, model: str) -> None:
    df = pd.read_csv(config_path.parent / "german.csv")
    y, p = df["default_flag"].to_numpy(dtype=float), df[model].to_numpy(dtype=float)
    o = _oracle(p, y)
    c = memory[model]
    for key in ("ece", "mce", "uncertainty", "brier", "brier_skill"):
        assert c["values"][key] == pytest.approx(o[key], rel=1e-10, abs=1e-15), key
    order = np.argsort(c["mean_predicted"])
    np.testing.assert_allclose(np.asarray(c["observed"])[order], o["observed"], rtol=1e-12)
    np.testing.assert_allclose(np.asarray(c["mean_predicted"])[order], o["mean_predicted"], rtol=1e-12)
    np.testing.assert_allclose(np.asarray(c["observed_lo"])[order], o["lo"], rtol=1e-9, atol=1e-15)
    np.testing.assert_allclose(np.asarray(c["observed_hi"])[order], o["hi"], rtol=1e-9, atol=1e-15)
    prob_true, prob_pred = calibration_curve(y, p, n_bins=BINS, strategy="uniform")
    np.testing.assert_allclose(np.asarray(c["observed"])[order], prob_true, rtol=1e-12)
    np.testing.assert_allclose(np.asarray(c["mean_predicted"])[order], prob_pred, rtol=1e-12)


def test_stream_gives_the_memory_calibration(config_path: Path, memory: dict) -> None:
    assert _calibration(config_path, "stream") == memory


@pytest.mark.slow
def test_dask_gives_the_memory_calibration(config_path: Path, memory: dict, scheduler: str) -> None:
    assert _calibration(config_path, "dask", scheduler) == memory
