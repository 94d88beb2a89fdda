"""McNemar's pass told by pass 1 that the compared rows are past the score cells
(``McNemarPairs(least=...)``) keeps no scores from the start, and ends with the same joint counts
and the same distinct rows as the pass that learns it on the way (issue 46: stream memory)."""

from __future__ import annotations

import dataclasses
from types import SimpleNamespace

import numpy as np
import pytest
import yaml

from reportgen.config import load_config
from reportgen.engine import class_tables as CT
from reportgen.engine import distinct_rows as DR
from reportgen.reduce import local as L


def _config(tmp_path, k: int = 3):
    classes = [f"c{i}" for i in range(k)]
    models = [
        {"name": "m0", "file": "a.csv", "scores": {c: f"a_{c}" for c in classes}, "probabilities": True},
        {"name": "m1", "file": "b.csv", "prediction": "pred"},
    ]
    cfg = {"task": "multiclass", "label": "y", "classes": classes, "bootstrap": {"resamples": 10}, "models": models}
    (tmp_path / "c.yaml").write_text(yaml.safe_dump(cfg), encoding="utf-8")
    return load_config(tmp_path / "c.yaml")[0], classes


def _records(pairs: L.McNemarPairs, y, pred, p, rows) -> np.ndarray:
    rec = np.zeros(y.shape[0], dtype=pairs.dtype)
    rec["y"], rec["pred"], rec["right"], rec["w"], rec["row"] = y, pred, pred == y, 1.0, rows
    if "p" in pairs.dtype.names:
        rec["p"] = p
    return rec


@pytest.mark.parametrize("chunk", [7, 50, 400])
def test_pairs_told_past_the_score_cells_end_as_the_pass_that_finds_out(tmp_path, monkeypatch, chunk):
    monkeypatch.setattr(DR, "SCORE_ROWS_MAX_CELLS", 90)  # 30 rows of 3 classes
    monkeypatch.setattr(L, "DISTINCT_CHUNK", 16)
    cfg, classes = _config(tmp_path)
    rng = np.random.default_rng(chunk)
    n, k = 400, len(classes)
    y = rng.integers(0, k, n)
    p = np.round(rng.dirichlet(np.ones(k), n), 2)
    pred1 = rng.integers(0, k, n)
    late, early = L.McNemarPairs(cfg, classes), L.McNemarPairs(cfg, classes, least=10**6)
    assert "p" in late.dtype.names and "p" not in early.dtype.names
    for pairs in (late, early):
        for lo in range(0, n, chunk):
            at = slice(lo, lo + chunk)
            rows = np.arange(n)[at]
            pairs.add(
                [
                    _records(pairs, y[at], np.argmax(p[at], axis=1), p[at], rows),
                    _records(pairs, y[at], pred1[at], None, rows),
                ]
            )
    a, b = late.result()[0], early.result()[0]
    assert a.distinct is not None and b.distinct is not None and a.distinct.scoreless and b.distinct.scoreless
    np.testing.assert_array_equal(a.distinct.matrix, b.distinct.matrix)
    np.testing.assert_array_equal(a.distinct.counts, b.distinct.counts)
    np.testing.assert_array_equal(a.rows["m1"], b.rows["m1"])
    np.testing.assert_array_equal(a.weighted["m1"], b.weighted["m1"])


def test_least_distinct_is_a_columns_distinct_class_score_pairs_and_zero_with_weights(tmp_path):
    cfg, _classes = _config(tmp_path)
    rng = np.random.default_rng(1)
    y = rng.integers(0, 3, 200)
    p = np.round(rng.dirichlet(np.ones(3), 200), 2)
    models = [SimpleNamespace(tables=CT.build_class_tables(y, p, None, 3)), SimpleNamespace(tables=None)]
    want = max(np.unique(np.column_stack([y, p[:, j]]), axis=0).shape[0] for j in range(3))
    assert L.least_distinct(cfg, models) == want  # type: ignore[arg-type]
    assert L.least_distinct(dataclasses.replace(cfg, weight="w"), models) == 0  # type: ignore[arg-type]
