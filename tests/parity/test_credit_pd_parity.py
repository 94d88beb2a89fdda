"""The PD's calibration (issue 40) is the same number in every engine: a scorecard (points as the
score, direction lower) with a PD column and a PD model, frequency weights, read whole (memory) and
in record batches reduced to distinct rows (stream, Dask); Brier and log-loss equal scikit-learn's
on the PD column with the weights as sample weights."""

from __future__ import annotations

import sys
from pathlib import Path

import numpy as np
import pandas as pd
import pytest
from sklearn.metrics import brier_score_loss, log_loss

sys.path.insert(0, str(Path(__file__).parent))

pytestmark = [pytest.mark.slow]  # three engines, a Dask cluster: about 30 s
from test_bad_input_parity import config  # noqa: E402
from test_engine_parity_labels_and_parts import documents, same_documents  # noqa: E402


def _files(tmp: Path) -> pd.DataFrame:
    rng = np.random.default_rng(40)
    n = 2500  # three record batches of 1000 rows (the helper's stream.batch_rows)
    pd_ = np.round(rng.beta(1.3, 7.0, n), 3)
    y = (rng.random(n) < pd_).astype(int)
    w = rng.integers(0, 4, n)
    points = np.round(620 - 40 * np.log(pd_ / (1 - pd_) + 1e-6))
    challenger = np.round(np.clip(pd_ + rng.normal(0, 0.03, n), 0, 1), 3)
    pd.DataFrame({"y": y, "points": points, "pd": pd_, "w": w}).to_csv(tmp / "champion.csv", index=False)
    pd.DataFrame({"y": y, "p": challenger, "w": w}).to_parquet(tmp / "challenger.parquet", index=False)
    return pd.DataFrame({"y": y, "pd": pd_, "challenger": challenger, "w": w})


def test_the_pds_brier_log_loss_and_reliability_agree_in_every_engine(tmp_path, scheduler, capsys):
    t = _files(tmp_path)
    cfg = config(
        tmp_path,
        [
            {
                "name": "champion",
                "file": "champion.csv",
                "score": "points",
                "direction": "lower",
                "threshold": 600,
                "pd": "pd",
            },
            {"name": "challenger", "file": "challenger.parquet", "score": "p"},
        ],
        weight="w",
        weight_kind="frequency",
        threshold=0.2,
        credit={"grades": {"quantiles": 6}},
    )
    doc = same_documents(documents(cfg, scheduler, capsys))
    models = doc["credit"]["models"]
    for name, column in (("champion", "pd"), ("challenger", "challenger")):
        cal = models[name]["calibration"]
        assert cal["brier"] == pytest.approx(brier_score_loss(t.y, t[column], sample_weight=t.w), rel=1e-12)
        assert cal["log_loss"] == pytest.approx(log_loss(t.y, t[column], sample_weight=t.w), rel=1e-12)
        assert sum(cal["reliability"]["counts"]) == t.w.sum()
        # the rest of the PD battery (issue 45) is in every engine's document, equal (same_documents)
        assert cal["binomial_correlated"]["test"]["p_value"] is not None and models[name]["heterogeneity"]
        assert all(g["power"] is not None for g in models[name]["grades"] if g["n"] > 0)
    assert models["champion"]["pd_source"] == "pd_column" and models["challenger"]["pd_source"] == "score"
    # the scorecard's points are no probability: the main metrics take the PD column's calibration
    # (issue 40), and the comparison weighs the two head to head, without a paired interval
    champion = doc["models"]["champion"]
    for key in ("brier", "log_loss"):
        assert champion["metrics"][key] == models["champion"]["calibration"][key]
        assert champion["metric_sources"][key] == "pd_column" and key not in champion["undefined_reasons"]
        (c,) = doc["comparisons"]
        assert c["delta"][key] == pytest.approx(doc["models"]["challenger"]["metrics"][key] - champion["metrics"][key])
        assert key not in c["ci"]
