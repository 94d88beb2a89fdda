"""The credit section's rendering of a full validation book: a
champion scorecard and a challenger PD model, 12 quantile grades of the reference PD, a reference
sample per model joined by id (so a 12 x 12 migration matrix), three products, nine months and
frequency weights. Each test is named after what the report showed before the fix.
"""

from __future__ import annotations

import re
from pathlib import Path

import numpy as np
import pandas as pd
import pytest
import yaml

pytestmark = [pytest.mark.pdf, pytest.mark.slow]

NOW = "2026-11-25T00:00:00+00:00"
SCALE = ["AAA", "AA", "A", "BBB", "BB", "B", "CCC", "CC", "C", "D1", "D2", "D3"]


def _sample(n: int, seed: int, start: str, months: int) -> pd.DataFrame:
    r = np.random.default_rng(seed)
    truth = np.clip(r.beta(1.2, 14, n), 0.001, 0.9)
    y = (r.random(n) < truth).astype(int)
    pd_points = np.clip(truth * np.exp(r.normal(0, 0.6, n)), 0.0005, 0.95)
    cuts = np.quantile(pd_points, np.linspace(0, 1, len(SCALE) + 1)[1:-1])
    return pd.DataFrame(
        {
            "application_id": np.arange(n) + 500000,
            "application_date": (
                pd.Timestamp(start) + pd.to_timedelta(r.integers(0, months * 30, n), unit="D")
            ).strftime("%Y-%m-%d"),
            "default_flag": y,
            "points": np.round(600 - 40 * np.log(pd_points / (1 - pd_points)) / np.log(2)).astype(int),
            "pd_points": pd_points.round(5),
            "pd": np.clip(truth * np.exp(r.normal(0, 0.35, n)), 0.0005, 0.95).round(5),
            "rating": np.array(SCALE)[np.searchsorted(cuts, pd_points)],
            "product": r.choice(["card", "personal loan", "auto"], n),
            "w": r.choice([1.0, 2.0, 3.0], n),
        }
    )


def _config(d: Path, grades: dict) -> Path:
    for name, frame in (("cur", _sample(6000, 1, "2025-01-01", 9)), ("ref", _sample(5000, 2, "2023-01-01", 12))):
        frame.to_csv(d / f"{name}.csv", index=False)
    cfg = {
        "title": "Champion vs challenger, credit review",
        "task": "binary",
        "label": "default_flag",
        "positive": 1,
        "id": "application_id",
        "date": "application_date",
        "weight": "w",
        "weight_kind": "frequency",
        "threshold": 0.1,
        "baseline": "champion",
        "primary_metric": "gini",
        "bootstrap": {"resamples": 0, "seed": 1},
        "models": [
            {
                "name": "champion",
                "file": "cur.csv",
                "score": "points",
                "direction": "lower",
                "threshold": 560,
                "pd": "pd_points",
                "reference": "ref.csv",
            },
            {"name": "challenger", "file": "cur.csv", "score": "pd", "reference": "ref.csv"},
        ],
        "credit": {"grades": grades},
        "segment": "product",
        # the tests read the credit section only: its tables, its figures and its pages
        "report": {"sections": ["credit"]},
        "output": {"dir": "out", "formats": ["html", "pdf", "json"], "overwrite": True},
    }
    path = d / "credit.yaml"
    path.write_text(yaml.safe_dump(cfg, sort_keys=False), encoding="utf-8")
    return path


def _run(tmp_path_factory, name: str, grades: dict, formats: str = "html,pdf,json") -> Path:
    from reportgen.cli import main

    d = tmp_path_factory.mktemp(name)
    assert (
        main(["run", str(_config(d, grades)), "--out", str(d / "out"), "--quiet", "--now", NOW, "--format", formats])
        == 0
    )
    return d / "out"


@pytest.fixture(scope="module")
def quantiles(tmp_path_factory) -> Path:
    return _run(tmp_path_factory, "credit_q12", {"quantiles": 12})


@pytest.fixture(scope="module")
def quantiles_html(quantiles) -> str:
    return (quantiles / "report.html").read_text(encoding="utf-8").replace("\u00a0", " ").replace("\u2009", " ")


@pytest.fixture(scope="module")
def quantiles_glyphs(quantiles):
    """Every character of the PDF and each page's size, read once (pdfminer takes seconds a pass)."""
    from test_pdf_layout import glyphs

    return glyphs(quantiles / "report.pdf")


def _credit(html: str) -> str:
    start = html.index('<section id="credit">')
    return html[start : html.index("</section>", start)]


def _migration(html: str) -> str:
    section = _credit(html)
    start = section.index('<table class="credit-migration')
    return section[start : section.index("</table>", start)]


def test_the_herfindahl_test_prints_p_below_not_p_equals_below(quantiles_html):
    # "S = 4.520, p = < 0.0001"
    section = _credit(quantiles_html)
    assert "p = &lt;" not in section and "p = <" not in section
    assert re.search(r"concentration, S = [−\d.]+, p (&lt;|=) [\d.]+ <span class=\"light", section)


def test_the_grades_light_says_it_is_the_jeffreys_tests(quantiles_html):
    # a bare "Light" column beside both a Jeffreys and a binomial p: which one was lit?
    section = _credit(quantiles_html)
    assert section.count("<th>Light (Jeffreys)</th>") == 2
    assert '<th>Light</th></tr></thead>\n  <tbody>\n  \n    <tr><td class="grade">' not in section


def test_twelve_quantile_grades_head_the_migration_columns_by_number(quantiles_html):
    # each column header "0.834 % – 1.7 %" wrapped into four lines of a narrow column
    table = _migration(quantiles_html)
    heads = re.findall(r"<th class=\"num\"[^>]*>([^<]*)</th>", table)
    assert heads == [str(i) for i in range(1, 13)]
    assert '<th class="num" title="&lt; ' in table  # the label stays, as a tooltip in the HTML
    rows = re.findall(r"<td class=\"grade\"><span class=\"grade-no\">(\d+)</span> ", table)
    assert rows == [str(i) for i in range(1, 13)]
    assert "columns numbered as the rows' grades" in table


def test_the_migration_diagonal_is_marked(quantiles_html):
    table = _migration(quantiles_html)
    body = table[table.index("<tbody>") :]
    for i, row in enumerate(re.findall(r"<tr>(.*?)</tr>", body)):
        cells = re.findall(r"<td class=\"(num[^\"]*)\">", row)
        assert [c == "num diag" for c in cells] == [j == i for j in range(12)], (i, cells)
    css = quantiles_html[quantiles_html.index("<style>") : quantiles_html.index("</style>")]
    assert re.search(r"table\.credit-migration td\.diag \{ font-weight: bold;", css)


def test_the_migration_caption_stays_on_the_page_of_its_matrix(quantiles_glyphs, quantiles_html):
    # the caption's first two lines at page 12's foot, the matrix on page 13 (of the whole report;
    # without the keep, the credit section alone still puts the first caption on page 4, its matrix on 5)
    section = _credit(quantiles_html)
    assert re.search(r'<div class="keep">\s*<table class="credit-migration', section)
    found, sizes = quantiles_glyphs
    pages = ["".join(g.text for g in found if g.page == i) for i in range(len(sizes))]  # no spaces
    starts = [i for i, p in enumerate(pages) if "Grademigrationofthe" in p]
    heads = [i for i, p in enumerate(pages) if "From\\to" in p]
    assert starts and starts == heads, (starts, heads)


@pytest.fixture(scope="module")
def rating_html(tmp_path_factory) -> str:
    import reportgen.report.render as render

    with pytest.MonkeyPatch.context() as mp:  # the test reads the migration table only: no figures drawn
        mp.setattr(render, "_draw_figures", lambda result, theme, sections: {})
        out = _run(tmp_path_factory, "credit_rating", {"column": "rating", "order": SCALE}, "html")  # HTML only
    return (out / "report.html").read_text(encoding="utf-8")


def test_a_short_rating_scale_heads_the_migration_columns_by_its_labels(rating_html):
    table = _migration(rating_html)
    heads = re.findall(r"<th class=\"num\"[^>]*>([^<]*)</th>", table)
    assert heads == SCALE and "grade-no" not in table and "columns numbered" not in table


def test_the_grades_table_stays_inside_the_right_margin(quantiles_glyphs, quantiles_html):
    # ten columns at the body's size: the table's right edge (the Light column) ran ~5 mm past the
    # right margin of the page
    from test_pdf_layout import off_page

    found, pages = quantiles_glyphs
    assert not off_page(found, pages), off_page(found, pages)[:10]
    css = quantiles_html[quantiles_html.index("<style>") : quantiles_html.index("</style>")]
    assert re.search(r"table\.credit-grades, table\.credit-power \{ font-size: 0\.84rem; \}", css)


def test_frequency_weighted_counts_are_called_obligors_not_rows(quantiles, quantiles_html):
    # "12 019 rows, 915 defaults" from files of 6,000 rows (the audit's count): each row of weight w
    # is w obligors
    import json

    doc = json.loads((quantiles / "metrics.json").read_text(encoding="utf-8"))
    n = doc["credit"]["models"]["champion"]["n"]
    assert n > 6000
    section = re.sub(r"<svg\b.*?</svg>", "", _credit(quantiles_html), flags=re.DOTALL)  # the tables and text
    assert f"{n:,}".replace(",", " ") + " obligors, " in section
    assert " rows, " not in section and '<th class="num">Rows</th>' not in section
    assert section.count('<th class="num">Obligors</th>') == 2 * 4  # grades, power, months, products per model
    assert 'Reference obligors</th><th class="num">Current obligors</th>' in section


def test_the_portfolio_tests_name_their_statistic_and_side(quantiles_html):
    # "Binomial, exact | −235.312" with no unit, and nothing saying which tests are one-sided
    section = _credit(quantiles_html)
    table = section[section.index('<table class="credit-tests">') :]
    table = table[: table.index("</table>")]
    assert "<th>Side</th>" in table
    assert re.search(r'<td class="num">D − N·PD = [−\d.,  ]+</td>', table)
    assert re.search(r'<td class="num">H = [\d.,  ]+</td>', table)
    assert table.count("<td>one-sided</td>") >= 2 and "<td>two-sided</td>" in table and "<td>upper tail</td>" in table
