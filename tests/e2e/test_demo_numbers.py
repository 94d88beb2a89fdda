"""The demo pack's numbers a reader checks at a glance (issue 40): the printed thresholds cut the
data as the tables say, the approval rate stands beside the recommended threshold, the accuracy
ratio and the Gini print one interval, and the scorecard's Brier score is its PD's."""

from __future__ import annotations

import html as htmllib
import json
import re

import numpy as np
import pandas as pd
import pytest
from conftest import DEMO_CONFIG
from sklearn.metrics import brier_score_loss

from reportgen.report.formats import fmt_ci

DATA = DEMO_CONFIG.parent / "data"


@pytest.fixture(scope="module")
def page(demo_run) -> str:
    assert demo_run.exit_code == 0
    return htmllib.unescape((demo_run.out / "report.html").read_text(encoding="utf-8"))


@pytest.fixture(scope="module")
def doc(demo_run) -> dict:
    return json.loads((demo_run.out / "metrics.json").read_text(encoding="utf-8"))


@pytest.mark.parametrize(
    ("model", "file", "column", "direction"),
    [
        ("champion", "champion_scorecard.csv", "score_points", "lower"),
        ("challenger", "challenger.parquet", "pd", "higher"),
    ],
)
def test_every_printed_optimal_threshold_reproduces_its_counts(page, model, file, column, direction) -> None:
    data = pd.read_csv(DATA / file) if file.endswith(".csv") else pd.read_parquet(DATA / file)
    score, y = data[column].to_numpy(), data["default_flag"].to_numpy() == 1
    section = page[page.index('<section id="thresholds"') :]
    start = section.index(f"</span>{model} <span")
    table = section[start : section.index("</table>", start)]
    cell = r"<td class=\"num\">([^<]+)</td>"
    rows = re.findall(r"<td class=\"num strong thr\">([^<]+)</td>" + cell * 5, table)
    assert len(rows) >= 8
    for t, _value, *counts in rows:
        printed = float(t.replace("\u2212", "-"))
        flagged = score >= printed if direction == "higher" else score <= printed
        got = [
            np.count_nonzero(flagged & y),
            np.count_nonzero(flagged & ~y),
            np.count_nonzero(~flagged & y),
            np.count_nonzero(~flagged & ~y),
        ]
        assert got == [int(c.replace("\u2009", "")) for c in counts], t
        assert len(t.lstrip("\u2212").replace(".", "").lstrip("0")) <= 6, t  # a few digits, not 17


def test_the_recommended_threshold_has_its_approval_rate_beside_it(page, doc) -> None:
    ranking = page[page.index('<table class="ranking') :]
    ranking = ranking[: ranking.index("</table>")]
    assert 'Recommended threshold</th><th class="num">Approval there</th>' in ranking
    o = doc["models"]["champion"]["optimal_thresholds"]["expected_cost"]
    share = (o["fn"] + o["tn"]) / (o["tp"] + o["fp"] + o["fn"] + o["tn"])
    assert f">{share * 100:.1f}\u00a0%<" in ranking


def test_the_accuracy_ratio_prints_the_summarys_gini_interval(page, doc) -> None:
    sentences = re.findall(r"Accuracy ratio \(AR[^<]*", page)
    assert len(sentences) == 3
    for name, sentence in zip(("champion", "challenger", "naive"), sentences):
        ci = fmt_ci(doc["models"][name]["ci"]["gini"], 3, "gini")
        assert f"interval {ci} (the summary's Gini interval)" in sentence


def test_the_scorecards_brier_score_is_its_pds(page, doc) -> None:
    data = pd.read_csv(DATA / "champion_scorecard.csv")
    champion = doc["models"]["champion"]
    assert champion["metrics"]["brier"] == pytest.approx(brier_score_loss(data.default_flag, data.pd_points), rel=1e-12)
    assert champion["metric_sources"] == {"brier": "pd_column", "log_loss": "pd_column"}
    metrics = page[page.index('<section id="metrics"') :]
    assert "from the PD column, no interval" in metrics[: metrics.index("</section>")]
