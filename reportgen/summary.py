"""``--summary-json``: what a command did, as one JSON object for a scheduler to read.

``reportgen run | validate | render --summary-json`` ends its stdout with one line holding one
JSON object (``--quiet`` or not, success or failure): a scheduler that keeps the last line
(Airflow's XCom) gets the paths written, each challenger's verdict, the checks, and the exit
code with its reason, without parsing prose. The keys are described by
``reportgen/schema/summary.schema.json`` (:data:`SCHEMA_FILE`) and the scheduled-runs page.

The object is built here from what the command already has (the frozen result, the paths the
writer returned, the one-line errors it printed); :mod:`reportgen.cli` prints it. Every string
passes through :func:`reportgen.redact.masked`, as every message does, so a URI's secret
never reaches it. Standard library only: nothing is imported for a command that does not ask.
"""

from __future__ import annotations

import json
import math
from collections.abc import Mapping
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

from reportgen.redact import masked

#: The version of the object's keys (a key added keeps it; a key renamed or removed raises it).
SUMMARY_VERSION = 1

#: The JSON schema of the object.
SCHEMA_FILE = Path(__file__).resolve().parent / "schema" / "summary.schema.json"

#: Why a command ended, by its exit code (reportgen.cli's codes).
REASONS: Mapping[int, str] = {
    0: "ok",
    3: "check_failed",
    4: "tracking_failed",
    2: "user_error",
    1: "internal_error",
    130: "interrupted",
    143: "interrupted",
}


def reason(code: int) -> str:
    """The ``exit_reason`` of an exit code."""
    return REASONS.get(code, "internal_error")


@dataclass
class Summary:
    """The summary of one command, filled in as it runs (one entry per config, or per file rendered)."""

    command: str
    order: list[str] = field(default_factory=list)  # the sources as given: the entries' order
    entries: list[dict[str, Any]] = field(default_factory=list)

    def written(self, source: str, paths: Mapping[str, Path], result: Any, code: int) -> None:
        """A report set written from ``source`` (a config, or a metrics.json re-rendered);
        ``result``: its :class:`~reportgen.results.ComparisonResult`, ``code``: 0, or 3 when a check failed."""
        entry: dict[str, Any] = {"source": source, "exit_code": code, "exit_reason": reason(code), "error": None}
        entry["written"] = {Path(p).name: str(p) for p in paths.values()}
        entry["run_id"] = result.run.run_id
        entry["baseline"] = result.run.baseline
        entry["verdicts"] = {c.model: _verdict(c) for c in result.comparisons}
        entry["checks"] = [{"rule": c.rule, "passed": c.passed, "detail": c.detail} for c in result.checks]
        entry["checks_passed"] = all(c.passed for c in result.checks) if result.checks else None
        entry["fairness"] = _fairness(result.fairness)
        self.entries.append(entry)

    def validated(self, source: str) -> None:
        """A config whose data ``reportgen validate`` accepted."""
        self.entries.append({"source": source, "exit_code": 0, "exit_reason": "ok", "error": None})

    def failed(self, source: str, code: int, error: str | None) -> None:
        """A config (or file) that ended with ``code`` and the one-line ``error`` printed for it:
        nothing written (``written`` is empty)."""
        self.entries.append(
            {"source": source, "exit_code": code, "exit_reason": reason(code), "error": error, "written": {}}
        )

    def document(self, code: int, error: str | None = None) -> dict[str, Any]:
        """The object: the command's exit code and reason, its first error (an entry's, else
        ``error``: one outside any entry, such as a bad ``--now``), and each entry."""
        # a config refused while the batch was checked is recorded before the others ran
        entries = sorted(self.entries, key=lambda e: _index(self.order, e["source"]))
        error = next((e["error"] for e in entries if e.get("error")), error)
        return _masked(
            {
                "summary_version": SUMMARY_VERSION,
                "command": self.command,
                "exit_code": code,
                "exit_reason": reason(code),
                "error": error,
                "written": [p for e in entries for p in e.get("written", {}).values()],
                "results": entries,
            }
        )

    def line(self, code: int, error: str | None = None) -> str:
        """:meth:`document` as one line of JSON (ASCII, so any terminal or log keeps it whole)."""
        return json.dumps(self.document(code, error), ensure_ascii=True, allow_nan=False, separators=(",", ":"))


def _index(order: list[str], source: str) -> int:
    return order.index(source) if source in order else len(order)


def _verdict(c: Any) -> dict[str, Any]:
    """A challenger's verdict on the primary metric: the facts of its decision."""
    d = c.decision
    if d is None:
        return {"metric": c.primary_metric, "direction": "inconclusive", "significant": None, "delta": None,
                "ci": None, "p_value_adjusted": None}  # fmt: skip
    return {
        "metric": d.metric,
        "direction": d.direction,
        "significant": d.significant,
        "delta": d.delta,
        "ci": None if d.ci is None else list(d.ci),
        "p_value_adjusted": d.p_value_adjusted,
    }


def _fairness(section: Any) -> dict[str, Any] | None:
    """The fairness section's facts a scheduler acts on: per model and protected column the
    smallest adverse-impact ratio, the groups below the four-fifths line, and a challenger's
    change against the baseline with its paired interval; None without ``fairness:``."""
    if section is None:
        return None
    models: dict[str, Any] = {}
    below = False
    for name, fm in section.models.items():
        cis = {p.column: p.changes_ci for p in fm.paired}
        cols = {}
        for c in fm.columns:
            low = [
                g.group
                for g in c.groups
                if g.adverse_impact_ratio is not None and g.adverse_impact_ratio < section.four_fifths
            ]
            below = below or bool(low)
            cols[c.column] = {
                "reference": c.reference,
                "min_adverse_impact_ratio": c.min_adverse_impact_ratio,
                "below_four_fifths": low,
                "disparities": dict(c.disparities),
                "change": {
                    k: {"delta": v, "ci": list(ci) if (ci := cis.get(c.column, {}).get(k)) else None}
                    for k, v in fm.changes[c.column].items()
                }
                if c.column in fm.changes
                else None,
            }
        models[name] = cols
    return {
        "four_fifths": section.four_fifths,
        "favourable": section.favourable,
        "below_four_fifths": below,
        "models": models,
    }


def _masked(value: Any) -> Any:
    """``value`` with every string passed through :func:`~reportgen.redact.masked` (and a
    non-finite number as null, as in metrics.json)."""
    if isinstance(value, str):
        return masked(value)
    if isinstance(value, float) and not math.isfinite(value):
        return None
    if isinstance(value, dict):
        return {k: _masked(v) for k, v in value.items()}
    if isinstance(value, list):
        return [_masked(v) for v in value]
    return value


__all__ = ["REASONS", "SCHEMA_FILE", "SUMMARY_VERSION", "Summary", "reason"]
