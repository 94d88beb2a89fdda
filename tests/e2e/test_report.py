"""The rendered report: sections, numbers from metrics.json, self-containment, PDF structure.

Uses the demo runs rendered once per test run (tests/renders.py): HTML and JSON, and the PDF for the
test that reads it.
"""

from __future__ import annotations

import json
import re
from html.parser import HTMLParser
from pathlib import Path

import pytest

from reportgen.report.formats import fmt_ci, fmt_count, fmt_num, fmt_p, fmt_pct, fmt_pvalue, fmt_signed, fmt_threshold
from reportgen.report.render import render_html
from reportgen.report.views import TASK_SECTIONS
from reportgen.results_io import load_result


class _Collector(HTMLParser):
    """Ids, links, resource URLs and visible text of an HTML page."""

    def __init__(self) -> None:
        super().__init__()
        self.ids: set[str] = set()
        self.hrefs: list[str] = []
        self.srcs: list[str] = []
        self.tags: list[str] = []
        self.text: list[str] = []
        self._skip = 0

    def handle_starttag(self, tag, attrs):
        self.tags.append(tag)
        a = dict(attrs)
        if "id" in a:
            self.ids.add(a["id"])
        if tag == "a" and "href" in a:
            self.hrefs.append(a["href"])
        for key in ("src", "href", "xlink:href"):
            if key in a and tag != "a":
                self.srcs.append(a[key])
        if tag in ("style", "script"):
            self._skip += 1

    def handle_endtag(self, tag):
        if tag in ("style", "script"):
            self._skip -= 1

    def handle_data(self, data):
        if not self._skip:
            self.text.append(data)


@pytest.fixture(scope="module")
def page(demo_run):
    assert demo_run.exit_code == 0
    html = (demo_run.out / "report.html").read_text(encoding="utf-8")
    c = _Collector()
    c.feed(html)
    return html, c, " ".join(" ".join(c.text).split())


def test_every_section_is_present_and_linked_from_the_contents(page):
    _, c, _ = page
    for section in TASK_SECTIONS["binary"]:
        # shown only with a history: store, partial_auc:, calibration:, fairness: or operating_points:,
        # which the demo has not (test_partial_auc_calibration_sections renders them)
        if section in ("trend", "partial_auc", "calibration", "fairness", "operating_points"):
            assert section not in c.ids
            continue
        assert section in c.ids, section
        assert f"#{section}" in c.hrefs, section


@pytest.mark.slow
def test_html_is_self_contained(page, demo_run, no_figures):
    html, c, _ = page
    assert "<link" not in html
    assert not [u for u in c.srcs if not u.startswith(("data:", "#"))]
    assert "<svg" in html and "<style>" in html
    # sortable tables: one inline script, static (no report data inside), screen only
    assert html.count("<script>") == 1 and 'class="ranking sortable"' in html and 'class="optima sortable"' in html
    script = html[html.index("<script>") : html.index("</script>")]
    assert "champion" not in script and "http" not in script
    assert "<script>" not in render_html(load_result(demo_run.out / "metrics.json"), for_pdf=True)


def test_headline_numbers_come_from_metrics_json(page, demo_run):
    _, _, text = page
    m = demo_run.metrics
    for name, model in m["models"].items():
        assert name in text
        assert f"{model['metrics']['gini']:.3f}" in text
        assert f"{model['metrics']['roc_auc']:.4f}" in text  # metrics table, 4 decimals
    for comp in m["comparisons"]:
        assert comp["verdict"] in text
        assert fmt_signed(comp["delta"]["gini"]) in text
    # the demo's application dates cover Q3 2024: the title page names the period
    assert m["run"]["date_range"] == ["2024-07-01", "2024-09-30"]
    assert "2024-07-01 to 2024-09-30" in text


def test_a_metric_not_from_the_score_says_where_it_comes_from(page, demo_run):
    # scorecard points are not probabilities: its log-loss is its PD column's, and the cell says so
    _, _, text = page
    champion = demo_run.metrics["models"]["champion"]
    assert champion["metrics"]["log_loss"] is not None and champion["metric_sources"]["log_loss"] == "pd_column"
    assert "from the PD column, no interval" in text


def test_pdf_has_pages_outline_and_text(demo_pdf):
    import pypdf

    reader = pypdf.PdfReader(str(demo_pdf.out / "report.pdf"))
    assert len(reader.pages) >= 4

    def walk(items):
        for o in items:
            yield from (walk(o) if isinstance(o, list) else [o.title])

    titles = list(walk(reader.outline))
    for heading in ("Summary", "Metrics", "Curves", "Glossary", "Appendix: audit trail"):
        assert heading in titles
    first = reader.pages[0].extract_text()
    assert f"of {len(reader.pages)}" in reader.pages[1].extract_text()
    assert "Champion vs challenger" in first
    for p in reader.pages:  # A4 portrait or landscape, never anything else
        w, h = sorted((float(p.mediabox.width), float(p.mediabox.height)))
        assert abs(w - 595.3) < 1 and abs(h - 841.9) < 1


def _but_provenance(html: str) -> str:
    """The page without the audit trail's provenance rows (output directory, re-render: issue 40)."""
    return re.sub(r'<tr class="provenance">.*?</tr>', "", html)


@pytest.mark.slow
def test_render_from_saved_json_reproduces_the_html(demo_run, tmp_path, cli):
    code = cli(["render", str(demo_run.out / "metrics.json"), "--out", str(tmp_path), "--format", "html", "-q"])
    assert code == 0
    again = (tmp_path / "report.html").read_text(encoding="utf-8")
    assert _but_provenance(again) == _but_provenance((demo_run.out / "report.html").read_text(encoding="utf-8"))
    assert "Re-rendered" in again and "(digest ok)" in again


def test_result_round_trips_through_json(demo_run):
    result = load_result(demo_run.out / "metrics.json")
    again = json.loads(json.dumps(result.to_json()))
    assert again == demo_run.metrics


@pytest.mark.slow
def test_model_names_are_text_not_markup(demo_run):
    from reportgen.results import ComparisonResult

    evil = "<script>alert(1)</script>"
    text = (demo_run.out / "metrics.json").read_text(encoding="utf-8").replace('"naive"', json.dumps(evil))
    html = render_html(ComparisonResult.from_json(json.loads(text)))
    assert evil not in html
    assert "&lt;script&gt;alert(1)&lt;/script&gt;" in html


def test_weighted_positives_say_they_are_a_weight(no_figures, demo_run):
    """A weighted model's positives are a weight: the models table says so and gives the rows,
    so that 20 347.8 positives among 100 000 rows do not read as a 20 % share."""
    from reportgen.results import ComparisonResult

    doc = json.loads((demo_run.out / "metrics.json").read_text(encoding="utf-8"))
    name = next(iter(doc["models"]))
    m = doc["models"][name]
    rows = int(m["positives"])
    m.update(weighted=True, positives=20347.75, positives_rows=rows, negatives_rows=int(m["negatives"]))
    text = _Collector()
    text.feed(render_html(ComparisonResult.from_json(doc)))
    visible = " ".join(text.text)
    assert f"{fmt_count(20347.75)} (weight, {fmt_count(rows)} rows)" in visible
    others = [n for n in doc["models"] if n != name]
    assert all(f"{fmt_count(doc['models'][n]['positives'])} (weight" not in visible for n in others)


@pytest.mark.parametrize(
    "fn, value, expected",
    [
        (fmt_num, None, "n/a"),
        (fmt_num, 0.12345, "0.123"),
        (fmt_num, float("nan"), "n/a"),
        (fmt_count, 6000.0, "6\u2009000"),
        (fmt_count, 12.5, "12.5"),
        (fmt_pct, 0.0995, "10.0 %"),
        (fmt_pct, None, "n/a"),
        (fmt_pvalue, 0.00001, "< 0.0001"),
        (fmt_pvalue, 0.0271757, "0.027"),
        (fmt_pvalue, 0.00514557, "0.0051"),
        (fmt_pvalue, 0.5, "0.500"),
        (fmt_p, 0.00001, "p < 0.0001"),
        (fmt_p, 0.5, "p = 0.500"),
        (fmt_signed, -0.1185, "−0.118"),
        (fmt_signed, 0.146, "+0.146"),
        (fmt_ci, [0.1, 0.2], "[0.100, 0.200]"),
        (fmt_ci, None, ""),
        (fmt_threshold, None, "none positive"),
        (fmt_threshold, 0.2178, "0.2178"),
    ],
)
def test_formatting_filters(fn, value, expected):
    assert fn(value) == expected


def test_shipped_configs_all_load():
    """Every config under configs/ parses, so none of them can rot."""
    from reportgen.config import load_config

    root = Path(__file__).resolve().parents[2] / "configs"
    found = sorted(root.glob("*.yaml"))
    assert found
    for path in found:
        cfg, _ = load_config(path)
        for m in cfg.models:
            assert Path(m.file).exists(), (path, m.file)


def test_no_nan_in_metrics_json(demo_run):
    text = (demo_run.out / "metrics.json").read_text(encoding="utf-8")
    assert not re.search(r"\bNaN\b|\bInfinity\b", text)


@pytest.mark.slow  # a run of the fast demo and a re-render: about 2.6 CPU-s
def test_config_report_section_themes_without_forking(no_figures, tmp_path, fast_config_factory, cli):
    """report: template_dir (a CSS override), logo, palette and sections, all from the config."""
    theme = tmp_path / "theme"
    theme.mkdir()
    (theme / "report.css").write_text("body { font-family: serif; } /* house style */\n")
    logo = tmp_path / "logo.svg"
    logo.write_text(
        '<svg xmlns="http://www.w3.org/2000/svg" width="10" height="10"><rect width="10" height="10"/></svg>'
    )
    cfg = fast_config_factory(
        tmp_path / "themed.yaml",
        report={
            "template_dir": str(theme),
            "logo": str(logo),
            "palette": ["#123456", "#abcdef", "#fedcba"],
            "sections": ["summary", "metrics", "appendix"],
        },
    )
    out = tmp_path / "out"
    assert cli(["run", str(cfg), "--out", str(out), "--format", "html,json"]) == 0
    html = (out / "report.html").read_text(encoding="utf-8")
    assert "house style" in html and "data:image/svg+xml;base64," in html and "#123456" in html
    assert (
        'id="summary"' in html and 'id="metrics"' in html and 'id="curves"' not in html and 'id="glossary"' not in html
    )
    # re-rendering the saved result keeps the look when the theme and logo are given again
    # (paths inside a metrics.json are never opened: a received file is data, issue 18)
    assert (
        cli(
            [
                "render",
                str(out / "metrics.json"),
                "--out",
                str(tmp_path / "again"),
                "--format",
                "html",
                "--theme",
                str(theme),
                "--logo",
                str(logo),
            ]
        )
        == 0
    )
    assert _but_provenance((tmp_path / "again" / "report.html").read_text(encoding="utf-8")) == _but_provenance(html)
    assert cli(["render", str(out / "metrics.json"), "--out", str(tmp_path / "plain"), "--format", "html"]) == 0
    plain = (tmp_path / "plain" / "report.html").read_text(encoding="utf-8")
    assert "house style" not in plain and "data:image/svg+xml;base64," not in plain
    assert "#123456" in plain and 'id="curves"' not in plain  # palette and sections are data, kept


def test_config_report_paths_are_checked(tmp_path, fast_config_factory, cli, capsys):
    cfg = fast_config_factory(tmp_path / "bad.yaml", report={"logo": "no-such-logo.png"})
    assert cli(["run", str(cfg), "--out", str(tmp_path / "o")]) == 2
    err = capsys.readouterr().err
    assert "report.logo" in err and "no-such-logo.png" in err and len(err.strip().splitlines()) == 1
