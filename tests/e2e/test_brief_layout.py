"""report.layout: brief on both demos: the brief is at most four PDF pages before the full report,
it names every red and amber finding of metrics.json, and report.sections orders credit first."""

from __future__ import annotations

import html as html_text
import json
import re
from pathlib import Path

import pytest
import yaml
from pypdf import PdfReader

from reportgen.report.labels import CREDIT_TEST_NAMES

ROOT = Path(__file__).resolve().parents[2]
PINNED_NOW = "2026-01-01T00:00:00Z"
#: The most pages the brief may take before the full report starts.
BRIEF_PAGES = 4
#: The brief and, after it, the full report's summary only: the brief comes before the contents
#: and the full report (templates/report.html), so its pages do not depend on the sections; the
#: other ~25 pages of the full report cost most of a render and no test here reads them.
BRIEF = {"layout": "brief", "sections": ["summary"]}


def _multiclass_config(path: Path, **overrides: object) -> Path:
    src = ROOT / "configs" / "demo_multiclass.yaml"
    cfg = yaml.safe_load(src.read_text(encoding="utf-8"))
    cfg["bootstrap"] = {"resamples": 50, "seed": 7}
    for m in cfg["models"]:
        m["file"] = str((src.parent / m["file"]).resolve())
    cfg.update(overrides)
    path.write_text(yaml.safe_dump(cfg, sort_keys=False, allow_unicode=True), encoding="utf-8")
    return path


def _run(cli, config: Path, out: Path, formats: str = "html,pdf,json") -> Path:
    assert cli(["run", str(config), "--out", str(out), "--now", PINNED_NOW, "--format", formats, "--quiet"]) == 0
    return out


def _brief_pages(pdf: Path) -> int:
    """Pages before the one where the full report starts ("The full report" heading)."""
    pages = PdfReader(str(pdf)).pages
    start = next(i for i, p in enumerate(pages) if "The full report" in (p.extract_text() or ""))
    return start


@pytest.fixture(scope="module")
def binary_brief(tmp_path_factory: pytest.TempPathFactory, cli, fast_config_factory) -> Path:
    tmp = tmp_path_factory.mktemp("brief")
    config = fast_config_factory(tmp / "demo_brief.yaml", report=BRIEF)
    return _run(cli, config, tmp / "out")


@pytest.fixture(scope="module")
def multiclass_brief(tmp_path_factory: pytest.TempPathFactory, cli) -> Path:
    tmp = tmp_path_factory.mktemp("brief_mc")
    return _run(cli, _multiclass_config(tmp / "mc_brief.yaml", report=BRIEF), tmp / "out")


def _brief_text(out: Path) -> str:
    """The brief's text in report.html: from its section to the full report, tags dropped."""
    html = (out / "report.html").read_text(encoding="utf-8")
    part = html[html.index('id="brief"') : html.index('id="full-report"')]
    return html_text.unescape(re.sub(r"\s+", " ", re.sub(r"<[^>]+>", " ", part))).replace("\u00a0", " ")


@pytest.mark.pdf
@pytest.mark.slow
def test_the_binary_demo_brief_fits_four_pages(binary_brief: Path) -> None:
    assert 1 <= _brief_pages(binary_brief / "report.pdf") <= BRIEF_PAGES


@pytest.mark.pdf
@pytest.mark.slow
def test_the_multiclass_demo_brief_fits_four_pages(multiclass_brief: Path) -> None:
    assert 1 <= _brief_pages(multiclass_brief / "report.pdf") <= BRIEF_PAGES
    text = _brief_text(multiclass_brief)
    assert "No credit validation is configured" in text and "Sign-off" in text


@pytest.mark.slow
def test_the_brief_names_every_red_and_amber_finding(binary_brief: Path) -> None:
    """Each red or amber light in metrics.json's credit section appears in the brief, under its
    model, with the test's name (a grade's Jeffreys and binomial tests as the grade's line)."""
    metrics = json.loads((binary_brief / "metrics.json").read_text(encoding="utf-8"))
    text = _brief_text(binary_brief)
    names = {
        "in_the_large_test": "in_the_large",
        "slope_test": "slope",
        "intercept_test": "intercept",
        "test": "auc_history",
        "concentration_test": "herfindahl",
    }
    expected: list[tuple[str, str, str]] = []
    for model, m in metrics["credit"]["models"].items():
        cal = m.get("calibration") or {}
        for key, t in cal.items():
            if isinstance(t, dict) and t.get("light") in ("red", "amber") and key != "hosmer_lemeshow_g2":
                expected.append((model, t["light"], CREDIT_TEST_NAMES[names.get(key, key)]))
        for g in m["grades"]:
            for t in (g.get("jeffreys"), g.get("binomial")):
                if t and t.get("light") in ("red", "amber"):
                    expected.append((model, t["light"], f"Grade {g['grade']}"))
        if (m.get("auc_history") or {}).get("test", {}).get("light") in ("red", "amber"):
            expected.append((model, m["auc_history"]["test"]["light"], CREDIT_TEST_NAMES["auc_history"]))
        stab = m.get("stability") or {}
        for key in ("psi", "concentration_test"):
            if (stab.get(key) or {}).get("light") in ("red", "amber"):
                expected.append((model, stab[key]["light"], CREDIT_TEST_NAMES[names.get(key, key)]))
    assert expected, "the demo has red and amber findings"
    findings = text[text.index("Findings:") : text.index("Key comparison")]
    for model, light, test in expected:
        assert model in findings and test in findings, (model, light, test)
    # each model's count: one finding per test, a grade's worst light for its line
    for model in metrics["credit"]["models"]:
        worst: dict[str, str] = {}
        for m, light, test in expected:
            if m == model and worst.get(test) != "red":
                worst[test] = light
        red, amber = list(worst.values()).count("red"), list(worst.values()).count("amber")
        count = ", ".join(x for x in (f"{red} red" if red else "", f"{amber} amber" if amber else "") if x)
        if count:
            assert f"{model} " in findings and count in findings, (model, count)
    assert "AUC against initial validation" in findings and "taken as exact" in findings


@pytest.mark.slow
def test_sections_put_credit_first(tmp_path: Path, cli, fast_config_factory, no_figures) -> None:
    # the sections' order is read, not their figures
    config = fast_config_factory(
        tmp_path / "c.yaml",
        report={"sections": ["credit", "summary", "appendix"]},
        bootstrap={"resamples": 0, "seed": 7},
    )
    out = _run(cli, config, tmp_path / "out", "html")  # the order of the sections in the HTML
    html = (out / "report.html").read_text(encoding="utf-8")
    at = [html.index(f'<section id="{s}"') for s in ("credit", "summary", "appendix")]
    assert at == sorted(at) and '<section id="comparison"' not in html
