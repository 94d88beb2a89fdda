"""Every key of ``--summary-json`` (its schema) is named on the scheduled-runs page, so the page
cannot fall behind the object a scheduler reads."""

from __future__ import annotations

import json
from pathlib import Path

from reportgen.summary import REASONS, SCHEMA_FILE

PAGE = Path(__file__).resolve().parents[2] / "docs" / "user-guide" / "scheduled-runs.md"


def test_every_summary_key_and_reason_is_on_the_scheduled_runs_page() -> None:
    schema = json.loads(SCHEMA_FILE.read_text(encoding="utf-8"))
    entry = schema["properties"]["results"]["items"]
    verdict = entry["properties"]["verdicts"]["additionalProperties"]
    keys = [*schema["properties"], *entry["properties"], *verdict["properties"]]
    page = PAGE.read_text(encoding="utf-8")
    assert [k for k in keys if f"`{k}`" not in page] == []
    assert set(REASONS.values()) == set(schema["$defs"]["reason"]["enum"])
    assert [r for r in REASONS.values() if f"`{r}`" not in page] == []
