"""Per-segment numbers against independent computations on each subset: scikit-learn's
roc_auc_score (Gini = 2 AUC - 1), unweighted and with weights, and the paired DeLong p of a
whole run on the subset's rows alone."""

from __future__ import annotations

from pathlib import Path

import numpy as np
import pandas as pd
import pytest
from segment_cases import config, planted
from sklearn.metrics import roc_auc_score

from reportgen.engine.driver import compare_evidence
from reportgen.pipeline import load_evidence, settings_from
from reportgen.reduce.segment_rows import segment_section

MODELS = ("champion", "challenger", "third")


def _section(cfg):
    return segment_section(cfg, settings_from(cfg), [])  # no reversals asked for: no whole-sample run


@pytest.mark.parametrize("weights", [None, "frequency", "sampling"])
def test_auc_and_gini_equal_sklearn_on_each_subset(tmp_path: Path, weights: str | None) -> None:
    path = planted(tmp_path / "rows.csv", n=500, weights=weights is not None)
    extra = {} if weights is None else {"weight": "w", "weight_kind": weights}
    section = _section(config(path, segments=["band"], bootstrap={"resamples": 0, "seed": 1}, **extra))
    df = pd.read_csv(path)
    checked = 0
    for col in section.columns:
        for v in col.values:
            sub = df[df[col.column].astype(str) == v.value]
            assert v.rows == (int(sub["w"].sum()) if weights == "frequency" else len(sub))
            if not v.tested:
                continue
            for m in v.models:
                sw = None if weights is None else sub["w"].to_numpy(dtype=float)
                auc = roc_auc_score(sub["y"], sub[m.model], sample_weight=sw)
                assert m.metrics["roc_auc"] == pytest.approx(auc, abs=1e-12)
                assert m.metrics["gini"] == pytest.approx(2 * auc - 1, abs=1e-12)
                checked += 1
    assert checked == 3 * 3  # three values of band, three models each


def test_segment_delong_p_is_the_subsets_whole_run(tmp_path: Path) -> None:
    path = planted(tmp_path / "rows.csv", n=600)
    cfg = config(path, segments=["band"], bootstrap={"resamples": 0, "seed": 1})  # DeLong needs no bootstrap
    section = _section(cfg)
    df = pd.read_csv(path)
    for v in section.columns[0].values:
        sub_path = tmp_path / f"band_{v.value}.csv"
        df[df["band"] == v.value].to_csv(sub_path, index=False)
        sub = config(sub_path, segments=[], bootstrap={"resamples": 0, "seed": 1})
        _, comparisons, _ = compare_evidence(load_evidence(sub), settings_from(sub))
        for d in v.deltas:
            whole = next(c for c in comparisons if c.model == d.model).decision
            assert whole.method == d.method == "DeLong (paired)"
            assert d.p_value == pytest.approx(whole.p_value, rel=1e-9, abs=1e-14)
            assert d.delta == pytest.approx(whole.delta, abs=1e-12)
            assert np.allclose(d.ci, whole.ci, atol=1e-12)
