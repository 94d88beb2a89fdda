"""The brief's view (reportgen.report.views.brief.brief_view) on the small saved results of the
snapshot tests: the recommendation follows the verdicts, identifiers carry the audit's SHA-256."""

from __future__ import annotations

from pathlib import Path

from reportgen.report.figures import PALETTE
from reportgen.report.views.brief import BRIEF_METRICS, brief_view
from reportgen.report.views.common import Models
from reportgen.report.views.comparison import comparison_view
from reportgen.results_io import load_result

FIXTURES = Path(__file__).resolve().parents[1] / "snapshots" / "fixtures"


def _brief(name: str, block_on: str = "red"):
    result = load_result(FIXTURES / name)
    ms = Models.of(result, PALETTE)
    return result, brief_view(result, ms.colours, comparison_view(result, ms, None), block_on)


def test_no_significant_challenger_retains_the_baseline() -> None:
    result, b = _brief("binary.metrics.json")
    assert [c.decision for c in b.calls] == ["retain"] * len(result.comparisons)
    assert b.decision == "retain" and b.headline == f"Retain {result.run.baseline}"
    assert "not significantly better" in b.calls[0].why
    assert "report.recommendation.block_on: red" in b.rule


def test_without_credit_the_brief_says_there_are_no_lights() -> None:
    _, b = _brief("multiclass.metrics.json")
    assert "No credit validation is configured" in b.findings_note
    assert all(not m.findings and m.count == "none" for m in b.findings)


def test_identifiers_are_the_audits_sha256_prefixes() -> None:
    result, b = _brief("binary.metrics.json")
    digests = {f.sha256[:12] for f in result.run.files}
    assert [i.name for i in b.identifiers] == list(result.models)
    assert all(i.sha256 in digests for i in b.identifiers)


def test_key_tables_lead_with_the_primary_metric() -> None:
    _, b = _brief("binary.metrics.json")
    for t in b.tables:
        assert 1 <= len(t.rows) <= BRIEF_METRICS and t.rows[0].primary


def test_sample_names_the_label_definition_and_exclusions() -> None:
    result, b = _brief("binary.metrics.json")
    sample = dict(b.sample)
    assert {"Period", "Rows", "Positives", "Definition", "Exclusions", "Missing values"} <= set(sample)
    assert str(result.run.config.get("positive")) in sample["Definition"]
