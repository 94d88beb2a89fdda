"""The partial AUC, calibration and operating-points sections render in the report, linked from the contents, with
their tables' numbers formatted (a whole report: slow)."""

from __future__ import annotations

import numpy as np
import pandas as pd
import pytest

from reportgen.api import compare_frames
from reportgen.report.render import render_html


@pytest.fixture(scope="module")
def html() -> str:
    rng = np.random.default_rng(9)
    n = 800
    y = (rng.random(n) < 0.3).astype(int)
    p = np.clip(np.round(1 / (1 + np.exp(-(rng.normal(size=n) + 1.5 * y - 1))), 2), 0, 1)
    q = np.clip(np.round(p * 0.8 + 0.05, 2), 0, 1)
    df = pd.DataFrame({"y": y, "champion": p, "challenger": q})
    result = compare_frames(
        df,
        label="y",
        scores=["champion", "challenger"],
        threshold=0.3,
        partial_auc=[{"specificity": [0.9, 1.0]}],
        calibration={"bins": 5, "strategy": "quantile"},
        operating_points={"fpr": [0.1]},
        bootstrap={"resamples": 50, "seed": 1},
        now="2026-01-01T00:00:00Z",
    )
    import reportgen.report.render as render

    with pytest.MonkeyPatch.context() as mp:  # the tests read sections, links and tables: no figures drawn
        mp.setattr(render, "_draw_figures", lambda result, theme, sections: {})
        return render_html(result)


@pytest.mark.slow
@pytest.mark.parametrize("section", ["partial_auc", "calibration", "operating_points"])
def test_the_new_sections_are_in_the_report_and_its_contents(html, section):
    assert f'<section id="{section}">' in html
    assert f'href="#{section}"' in html


@pytest.mark.slow
def test_the_sections_show_their_tables(html):
    assert "Specificity 0.900 to 1.000 (false positive rate 0.000 to 0.100)" in html
    assert "Corrected (McClish)" in html and "Holm p" in html
    assert "Expected calibration error (ECE)" in html and "Clopper–Pearson" in html
    assert "Difference with champion" in html
    assert "True positive rate at a fixed false positive rate" in html and "<td>FPR 10.0\xa0%</td>" in html
