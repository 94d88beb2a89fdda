"""Past the cells whose scores the row bootstrap draws, every engine keeps the compared rows with
their predictions only (``distinct_rows.without_scores``), whatever the batches: memory and stream
give the same metrics.json, and the AUCs' row bootstrap is stated as left out."""

from __future__ import annotations

import json

import numpy as np
import pandas as pd
import pytest
import yaml

from reportgen.config import load_config
from reportgen.engine import compare_multiclass as CM
from reportgen.engine import distinct_rows as DR
from reportgen.pipeline import analyse


def _write(tmp_path, n: int = 2400, k: int = 3) -> None:
    rng = np.random.default_rng(7)
    y = rng.integers(0, k, n)
    classes = [f"c{i}" for i in range(k)]
    cols = {"id": np.arange(n), "y": np.array(classes)[y]}
    models = []
    for m in range(2):
        z = rng.normal(size=(n, k))
        z[np.arange(n), y] += 1.0 + m
        p = np.exp(z) / np.exp(z).sum(axis=1, keepdims=True)
        cols |= {f"m{m}_{c}": p[:, i] for i, c in enumerate(classes)}
        models.append(
            {"name": f"m{m}", "file": "mc.csv", "scores": {c: f"m{m}_{c}" for c in classes}, "probabilities": True}
        )
    pd.DataFrame(cols).to_csv(tmp_path / "mc.csv", index=False)
    cfg = {
        "title": "t",
        "task": "multiclass",
        "label": "y",
        "id": "id",
        "classes": classes,
        "bootstrap": {"resamples": 40, "seed": 3},
        "stream": {"batch_rows": 1000},
        "models": models,
    }
    (tmp_path / "c.yaml").write_text(yaml.safe_dump(cfg), encoding="utf-8")


@pytest.mark.slow  # two whole runs: about 2 s idle
def test_rows_past_the_score_cells_keep_predictions_alike_in_every_engine(tmp_path, monkeypatch):
    monkeypatch.setattr(DR, "SCORE_ROWS_MAX_CELLS", 300)  # 100 rows of 3 classes: the 2,400 rows are past it
    monkeypatch.setattr(CM, "BOOTSTRAP_AUC_MAX_CELLS", 300)
    _write(tmp_path)
    got = {}
    for engine in ("memory", "stream"):
        cfg, path = load_config(tmp_path / "c.yaml", overrides=[f"engine={engine}"])
        r = analyse(cfg, path, now="2026-01-01T00:00:00Z")
        (comp,) = r.comparisons
        assert comp.capabilities.get("bootstrap.auc") == "too_many_cells"
        assert "accuracy" in comp.ci and "roc_auc_ovr_macro" not in comp.ci
        got[engine] = json.dumps(
            {"models": {n: [m.ci, m.per_class_ci] for n, m in r.models.items()}, "ci": comp.ci},
            sort_keys=True,
            default=str,
        )
    assert got["memory"] == got["stream"]


@pytest.mark.parametrize("cut", [1, 3, 7])
def test_without_scores_of_a_union_is_the_union_of_without_scores(cut):
    rng = np.random.default_rng(cut)
    n, k = 60, 3
    y = rng.integers(0, k, n)
    p = np.round(rng.dirichlet(np.ones(k), n), 1)
    layout = [(False, True), (True, False)]
    matrix = DR.row_matrix(y, None, [None, rng.integers(0, k, n)], [p, None])
    whole = DR.without_scores(DR.distinct(matrix), layout, k)
    parts = [DR.without_scores(DR.distinct(matrix[i::cut]), layout, k) for i in range(cut)]
    union = DR.merged(parts)
    assert union.scoreless and whole.scoreless
    np.testing.assert_array_equal(union.matrix, whole.matrix)
    np.testing.assert_array_equal(union.counts, whole.counts)
    _, _, preds, probas = DR.split(whole, layout, k)
    assert all(p is not None for p in preds)
    assert probas == (None, None)
    # the first model's predictions are the argmax of its scores, row for row
    want = DR.distinct(DR.row_matrix(y, None, [np.argmax(p, axis=1), matrix[:, 5]], [None, None]))
    np.testing.assert_array_equal(whole.matrix, want.matrix)
