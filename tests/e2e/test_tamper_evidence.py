"""Tamper evidence (issue 40): metrics.json carries a digest of its results; ``reportgen render``
refuses a file whose digest does not match (exit 2, one line), renders it with ``--allow-edited``
marked EDITED on every page (HTML banner, every PDF page's foot), renders a file without a digest
marked unverified; the audit page names the output directory used and a re-render.

The edit is the one the issue reports: a Gini changed to 0.900 beside an interval of 0.42–0.62
renders without a word.
"""

from __future__ import annotations

import json
import re
from pathlib import Path

import pytest
from pypdf import PdfReader

from reportgen.results import ComparisonResult, digest_status, results_digest
from reportgen.results_io import load_result, read_result

#: a small binary metrics.json written by reportgen (tests/snapshots/snapshot_fixtures.py)
FIXTURE = Path(__file__).resolve().parents[1] / "snapshots" / "fixtures" / "binary.metrics.json"
EDITED_MARK = "EDITED — digest does not match"
#: one row of the audit trail's provenance (output directory, re-render)
PROVENANCE_ROW = re.compile(r'<tr class="provenance"><th>([^<]*)</th><td[^>]*>(.*?)</td></tr>')


def _doc() -> dict:
    return json.loads(FIXTURE.read_text(encoding="utf-8"))


def _saved(tmp_path: Path, doc: dict, name: str = "in", indent: int | None = 1) -> Path:
    d = tmp_path / name
    d.mkdir()
    path = d / "metrics.json"
    path.write_text(json.dumps(doc, indent=indent, ensure_ascii=False) + "\n", encoding="utf-8")
    return path


def _gini_edited(doc: dict) -> dict:
    """The issue's edit: the first model's Gini set to 0.900, its interval left as it was."""
    model = next(iter(doc["models"].values()))
    assert model["metrics"]["gini"] != 0.9
    model["metrics"]["gini"] = 0.9
    return doc


def _provenance(html: str) -> dict[str, str]:
    return {k: re.sub(r"<[^>]+>", "", v) for k, v in PROVENANCE_ROW.findall(html.replace("<wbr>", ""))}


# ---- the digest -------------------------------------------------------------------------------


def test_a_written_metrics_json_carries_a_digest_that_matches():
    doc = _doc()
    assert doc["digest"] == {"algorithm": "sha256", "value": results_digest(doc)}
    assert digest_status(doc) == "ok"


@pytest.mark.parametrize(
    "edit",
    [
        lambda d: _gini_edited(d),
        lambda d: d["run"].__setitem__("title", d["run"]["title"] + " "),  # one space in a string
        lambda d: d["comparisons"].pop(),  # structure
        lambda d: d["run"].__setitem__("bootstrap_resamples", d["run"]["bootstrap_resamples"] + 1),
        lambda d: next(iter(d["models"].values()))["metrics"].__setitem__("roc_auc", None),  # a number made undefined
    ],
    ids=["gini", "title", "structure", "count", "null"],
)
def test_any_edit_of_the_results_breaks_the_digest(edit):
    doc = _doc()
    edit(doc)
    assert digest_status(doc) == "edited"


def test_reformatting_and_reordering_keep_the_digest():
    doc = _doc()
    reordered = json.loads(json.dumps(dict(reversed(list(doc.items()))), indent=4, sort_keys=True))
    assert digest_status(reordered) == "ok"
    del doc["digest"]
    assert digest_status(doc) == "missing"


def test_load_result_refuses_an_edited_file_unless_allowed(tmp_path):
    path = _saved(tmp_path, _gini_edited(_doc()))
    with pytest.raises(Exception, match=r"do not match their digest.*allow_edited=True"):
        load_result(path)
    assert next(iter(load_result(path, allow_edited=True).models.values())).metrics["gini"] == 0.9
    assert read_result(path).digest == "edited"


def test_the_digest_must_have_its_shape(tmp_path):
    doc = _doc()
    doc["digest"]["value"] = "not hex"
    with pytest.raises(Exception, match=r"digest\.value: expected 64 lower-case hexadecimal digits"):
        ComparisonResult.from_json(doc)


# ---- reportgen render ---------------------------------------------------------------------------


def test_an_untouched_file_renders_and_says_from_what(no_figures, tmp_path, cli, monkeypatch):
    monkeypatch.setenv("REPORTGEN_NOW", "2026-03-04T05:06:07Z")
    path = _saved(tmp_path, _doc())
    out = tmp_path / "out"
    assert cli(["render", str(path), "--out", str(out), "--format", "html", "-q"]) == 0
    html = (out / "report.html").read_text(encoding="utf-8")
    assert 'class="pack-mark' not in html
    assert _provenance(html) == {
        "Output directory": str(out.resolve()),
        "Re-rendered": f"on 2026-03-04 05:06:07 UTC from {path} (digest ok)",
    }


def test_a_reformatted_file_still_verifies(no_figures, tmp_path, cli):
    path = _saved(tmp_path, _doc(), indent=4)
    assert cli(["render", str(path), "--format", "html", "-q"]) == 0
    assert "(digest ok)" in _provenance((path.parent / "report.html").read_text(encoding="utf-8"))["Re-rendered"]


def test_an_edited_gini_is_refused_with_one_line(tmp_path, cli, capsys):
    path = _saved(tmp_path, _gini_edited(_doc()))
    before = sorted(p.name for p in path.parent.iterdir())
    assert cli(["render", str(path), "--format", "html,pdf"]) == 2
    err = capsys.readouterr().err.strip().splitlines()
    assert len(err) == 1, err
    assert str(path) in err[0] and "do not match their digest" in err[0] and "--allow-edited" in err[0]
    assert sorted(p.name for p in path.parent.iterdir()) == before  # nothing written


@pytest.mark.slow  # renders a PDF: ~1.5 s with WeasyPrint's import
def test_allow_edited_marks_every_page(no_figures, tmp_path, cli, capsys):
    doc = _gini_edited(_doc())
    doc["run"]["config"].setdefault("report", {})["sections"] = ["summary", "metrics", "appendix"]  # pages enough
    path = _saved(tmp_path, doc)
    edited = path.read_bytes()
    assert cli(["render", str(path), "--format", "html,pdf", "--allow-edited"]) == 0
    err = capsys.readouterr().err
    assert "do not match their digest" in err and "marked EDITED" in err
    html = (path.parent / "report.html").read_text(encoding="utf-8")
    assert html.count('class="pack-mark edited"') == 1 and EDITED_MARK in html
    assert "(EDITED: the results do not match their digest)" in _provenance(html)["Re-rendered"]
    pages = PdfReader(path.parent / "report.pdf").pages
    assert len(pages) > 1
    assert [i for i, page in enumerate(pages) if EDITED_MARK not in page.extract_text()] == []
    # the metrics.json beside the pack is the file rendered, its digest still not matching
    assert path.read_bytes() == edited and read_result(path).digest == "edited"


def test_a_file_without_a_digest_renders_marked_unverified(no_figures, tmp_path, cli, capsys):
    doc = _doc()
    del doc["digest"]
    path = _saved(tmp_path, doc)
    assert cli(["render", str(path), "--format", "html"]) == 0
    assert "no digest" in capsys.readouterr().err
    html = (path.parent / "report.html").read_text(encoding="utf-8")
    assert 'class="pack-mark unverified"' in html and "carries no digest" in html
    assert "(no digest: unverified)" in _provenance(html)["Re-rendered"]


# ---- reportgen run ------------------------------------------------------------------------------


@pytest.mark.slow  # a pipeline run: ~1.5 s
def test_the_audit_page_names_the_directory_used_not_the_template(no_figures, tmp_path, cli):
    """``output.dir: reports/{config}`` is resolved against the config's directory; the audit page
    names the result, and a run's page says nothing of a re-render."""
    from conftest import write_fast_demo_config

    cfg = write_fast_demo_config(
        tmp_path / "q3.yaml", bootstrap={"resamples": 20, "seed": 1}, output={"dir": "reports/{config}"}
    )
    assert cli(["run", str(cfg), "--format", "html,json", "-q"]) == 0
    out = (tmp_path / "reports" / "q3").resolve()
    html = (out / "report.html").read_text(encoding="utf-8")
    assert _provenance(html) == {"Output directory": str(out)}
    assert digest_status(json.loads((out / "metrics.json").read_text(encoding="utf-8"))) == "ok"
