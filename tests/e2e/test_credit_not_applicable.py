"""A credit pack end to end (issue 40): a migration with no shared id is one sentence in the HTML
and 'not applicable' in metrics.json, never a matrix of zeros; the PDs' calibration is compared
head to head; the AUC test names its reference."""

from __future__ import annotations

import html as htmllib
import json
import re

import numpy as np
import pandas as pd
import pytest
import yaml
from sklearn.metrics import brier_score_loss

from reportgen import cli

pytestmark = [pytest.mark.slow]  # a run writing HTML: about 20 s


@pytest.fixture(scope="module")
def pack(tmp_path_factory) -> tuple[str, dict, pd.DataFrame, str]:
    import reportgen.report.render as render

    with pytest.MonkeyPatch.context() as mp:  # the tests read tables and sentences: no figures drawn
        mp.setattr(render, "_draw_figures", lambda result, theme, sections: {})
        return _pack(tmp_path_factory)


def _pack(tmp_path_factory) -> tuple[str, dict, pd.DataFrame, str]:
    tmp = tmp_path_factory.mktemp("pack")
    rng = np.random.default_rng(7)
    n = 1200
    pd_ = np.round(rng.beta(1.3, 7.0, n), 3)
    y = (rng.random(n) < pd_).astype(int)
    points = np.round(620 - 40 * np.log(pd_ / (1 - pd_) + 1e-6))
    cur = pd.DataFrame({"id": np.arange(n), "y": y, "points": points, "pd": pd_})
    cur.to_csv(tmp / "champion.csv", index=False)
    cur.assign(id=np.arange(n) + 10 * n).to_csv(tmp / "dev.csv", index=False)  # no id in both samples
    pd.DataFrame({"id": np.arange(n), "y": y, "p": np.round(np.clip(pd_ * 1.1, 0, 1), 3)}).to_csv(
        tmp / "challenger.csv", index=False
    )
    cfg = {
        "title": "t",
        "label": "y",
        "id": "id",
        "threshold": 0.2,
        "bootstrap": {"resamples": 0},
        "output": {"formats": ["html", "json"]},
        "models": [
            {
                "name": "champion",
                "file": "champion.csv",
                "score": "points",
                "direction": "lower",
                "threshold": 600,
                "pd": "pd",
                "reference": "dev.csv",
                "initial_auc": 0.8,
            },
            {"name": "challenger", "file": "challenger.csv", "score": "p"},
        ],
        "credit": {"grades": {"edges": [0.05, 0.1, 0.2, 0.4]}},
    }
    (tmp / "run.yaml").write_text(yaml.safe_dump(cfg, sort_keys=False), encoding="utf-8")
    out = tmp / "out"
    assert cli.main(["run", str(tmp / "run.yaml"), "--out", str(out), "--quiet", "--now", "2026-01-01T00:00:00"]) == 0
    page = (out / "report.html").read_text(encoding="utf-8")
    start = page.index('<section id="credit">')
    section = htmllib.unescape(page[start : page.index("</section>", start)]).replace("\u00a0", " ")
    metrics = page[
        page.index('<section id="metrics">') : page.index("</section>", page.index('<section id="metrics">'))
    ]
    return section, json.loads((out / "metrics.json").read_text(encoding="utf-8")), cur, htmllib.unescape(metrics)


def test_a_migration_without_shared_ids_is_one_sentence_not_a_matrix_of_zeros(pack):
    section, doc, _, _ = pack
    champion = doc["credit"]["models"]["champion"]
    assert champion["migration"] is None and champion["capabilities"]["migration"] == "no_shared_ids"
    assert "credit-migration" not in section and "Grade migration of the" not in section
    assert section.count("no id is in both the reference and the current sample") == 1


def test_the_scorecards_pd_is_compared_head_to_head_on_calibration(pack):
    section, doc, cur, metrics = pack
    brier = doc["credit"]["models"]["champion"]["calibration"]["brier"]
    assert brier == pytest.approx(brier_score_loss(cur.y, cur.pd), rel=1e-12)
    table = section[section.index('class="credit-calibrations"') :]
    table = table[: table.index("</table>")]
    assert re.search(rf"champion.*?the model's PD column.*?{brier:.4f}", table, re.S)
    assert "challenger" in table and "the score (probabilities)" in table
    assert f"Brier score of the PD {brier:.4f}" in section
    # the metrics table gives the points' Brier score from the PD column, and says so
    assert f"{brier:.4f}" in metrics and "from the PD column, no interval" in metrics
    assert doc["models"]["champion"]["metrics"]["brier"] == pytest.approx(brier, rel=1e-12)
    assert doc["models"]["champion"]["metric_sources"]["brier"] == "pd_column"


def test_the_auc_test_names_its_configured_reference(pack):
    section, _, _, _ = pack
    assert "with the initial AUC 0.800 from the config (models[].initial_auc), taken as exact" in section
