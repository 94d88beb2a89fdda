"""Each challenger's paired per-class AUC change against the baseline (issue 45): its interval
equals the percentile interval of scikit-learn's per-class AUCs on the same resampled rows,
the challenger's minus the baseline's, resample by resample."""

from __future__ import annotations

import numpy as np
import pandas as pd
from sklearn.metrics import roc_auc_score

from reportgen.config import load_config
from reportgen.engine import distinct_rows as DR
from reportgen.engine import streams
from reportgen.engine.compare import ROW_BOOTSTRAP
from reportgen.engine.compare_multiclass import compare_multiclass_evidence
from reportgen.engine.stats import percentile_interval
from reportgen.pipeline import load_evidence, settings_from


def test_per_class_auc_delta_interval_is_sklearn_on_the_same_resampled_rows(tmp_path):
    rng = np.random.default_rng(4)
    n, k, labels = 150, 3, ["a", "b", "c"]
    y = rng.integers(0, k, n)
    lines = ["task: multiclass", "label: y", f"classes: {labels}", "bootstrap: {resamples: 25, seed: 3}", "models:"]
    for m, noise in (("base", 1.5), ("chal", 0.8)):
        z = rng.normal(scale=noise, size=(n, k))
        z[np.arange(n), y] += 1.0
        p = np.round(np.exp(z) / np.exp(z).sum(axis=1, keepdims=True), 2)  # ties too
        pd.DataFrame({"y": np.array(labels)[y]} | {f"p{c}": p[:, c] for c in range(k)}).to_csv(
            tmp_path / f"{m}.csv", index=False
        )
        cols = [f"p{c}" for c in range(k)]
        lines += [f"  - name: {m}", f"    file: {m}.csv", f"    scores: {cols}", "    probabilities: true"]
    (tmp_path / "c.yaml").write_text("\n".join([*lines, "output: {dir: out, formats: [json]}"]) + "\n")
    cfg = load_config(tmp_path / "c.yaml")[0]
    ev, s = load_evidence(cfg), settings_from(cfg)
    comparison = compare_multiclass_evidence(ev, s)[1][0]
    got = comparison.class_deltas
    assert got is not None and got.ci_method["roc_auc"] == ROW_BOOTSTRAP

    rows = ev.rows  # the oracle: the same stream's resamples, the rows spelled out
    blocks = DR.stratified_multinomial_blocks(
        rows.y_idx, rows.counts, s.resamples, streams.stream(s.seed, "class_rows")
    )
    diffs = []
    for W in np.concatenate(list(blocks)):
        take = np.repeat(np.arange(rows.y_idx.shape[0]), W)
        yy = rows.y_idx[take]
        base, chal = (rows.proba[j][take] for j in (0, 1))
        diffs.append([roc_auc_score(yy == c, chal[:, c]) - roc_auc_score(yy == c, base[:, c]) for c in range(k)])
    diffs = np.array(diffs)
    for c, label in enumerate(labels):
        want = percentile_interval(diffs[:, c], s.level)
        np.testing.assert_allclose(got.ci[label]["roc_auc"], want, rtol=0, atol=1e-12)
