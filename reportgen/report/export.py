"""The report's key tables for spreadsheets: CSV files and one Excel workbook.

Validators work in spreadsheets, so ``--format csv`` writes ``metrics.csv``, ``comparisons.csv``,
``thresholds.csv`` (and ``checks.csv`` when the config has checks), and ``--format xlsx`` one
``tables.xlsx`` with a sheet per table (``pip install 'classifier-comparison-report[xlsx]'``, openpyxl). The tables
are long (one row per model and metric), so they filter and pivot without reshaping; numbers
stay numbers (full precision, empty when undefined) and intervals are two columns.

A text cell that starts with ``=``, ``+``, ``-`` or ``@`` (or a tab or carriage return) would be
run as a formula by Excel, LibreOffice or Google Sheets ("CSV injection", OWASP); model names,
file paths and reasons come from users' configs and data, so every such cell gets a leading
apostrophe (:func:`safe_cell`): shown as typed, never evaluated.
"""

from __future__ import annotations

import csv
import gc
import io
import logging
import sys
from collections.abc import Sequence
from pathlib import Path
from typing import Any

from reportgen.errors import OutputError
from reportgen.report.wording import verdict
from reportgen.results import ComparisonResult

log = logging.getLogger(__name__)

#: First characters that make a spreadsheet read a cell as a formula.
FORMULA_START = ("=", "+", "-", "@", "\t", "\r")

Table = tuple[list[str], list[list[Any]]]


def safe_cell(v: Any) -> Any:
    """A value safe to open in a spreadsheet: text starting with ``= + - @`` (or tab / CR) gets a
    leading apostrophe so it is shown, never evaluated; numbers are left as numbers."""
    if isinstance(v, str) and v.startswith(FORMULA_START):
        return "'" + v
    return v


def _ci(ci: Sequence[float] | None) -> list[Any]:
    return [ci[0], ci[1]] if ci else [None, None]


def tables(result: ComparisonResult) -> dict[str, Table]:
    """The key tables by name (``metrics``, ``comparisons``, ``thresholds``, and ``checks`` if any)."""
    metrics = []
    for name, m in result.models.items():
        for k, v in m.metrics.items():
            metrics.append([name, k, v, *_ci(m.ci.get(k)), m.ci_method.get(k, ""), m.undefined.get(k, "")])
    comparisons = []
    for c in result.comparisons:
        for k, d in c.delta.items():
            comparisons.append(
                [
                    c.model,
                    c.baseline,
                    k,
                    d,
                    c.relative_delta.get(k),
                    *_ci(c.ci.get(k)),
                    c.ci_method.get(k, ""),
                    k == c.primary_metric,
                    verdict(c) if k == c.primary_metric else "",
                ]
            )
    thresholds = []
    for name, m in result.models.items():
        for key, o in m.optimal_thresholds.items():
            thresholds.append([name, key, o.threshold, o.value, o.tp, o.fp, o.fn, o.tn])
    out: dict[str, Table] = {
        "metrics": (["model", "metric", "value", "ci_lo", "ci_hi", "ci_method", "undefined_reason"], metrics),
        "comparisons": (
            [
                "model",
                "baseline",
                "metric",
                "delta",
                "relative_delta",
                "ci_lo",
                "ci_hi",
                "ci_method",
                "primary",
                "verdict",
            ],
            comparisons,
        ),
        "thresholds": (["model", "criterion", "threshold", "value", "tp", "fp", "fn", "tn"], thresholds),
    }
    if result.checks:
        out["checks"] = (
            ["rule", "kind", "passed", "value", "limit", "outcome", "detail"],
            [[c.rule, c.kind, c.passed, c.value, c.limit, c.outcome, c.detail] for c in result.checks],
        )
    return out


def to_csv(table: Table) -> str:
    """One table as CSV text (RFC 4180 quoting, ``\\n`` line ends), every cell neutralised."""
    header, rows = table
    buf = io.StringIO()
    w = csv.writer(buf, lineterminator="\n")
    w.writerow([safe_cell(h) for h in header])
    w.writerows([[safe_cell(v) for v in row] for row in rows])
    return buf.getvalue()


def write_xlsx(result: ComparisonResult, path: Path) -> None:
    """Every key table as a sheet of one workbook (openpyxl), built and zipped in memory, then
    written as one file (the key tables are small: a few rows per model and metric).

    On a full disk, openpyxl's sheets (each staged in a temporary file by a generator) and the
    zip file ``save`` leaves open when a write fails printed "Exception ignored in ..." tracebacks
    on stderr after the one-line error, when Python collected them: the zip is now in memory and
    the sheets are collected at once, their repeated failure logged at debug level."""
    try:
        from openpyxl import Workbook  # noqa: PLC0415  (optional dependency)
    except ImportError:
        raise OutputError("--format xlsx needs openpyxl: pip install 'classifier-comparison-report[xlsx]'") from None
    wb = Workbook()
    wb.remove(wb.active)  # the default empty sheet
    for name, (header, rows) in tables(result).items():
        ws = wb.create_sheet(name)
        ws.append([safe_cell(h) for h in header])
        for row in rows:
            ws.append([safe_cell(v) for v in row])
    buffer = io.BytesIO()
    failed: OSError | None = None
    noise, sys.unraisablehook = sys.unraisablehook, _drop_unraisable
    try:
        try:
            wb.save(buffer)
        except OSError as exc:  # a full temporary disk: openpyxl stages each sheet in a temporary file
            failed = OSError(exc.errno, exc.strerror or str(exc))
        gc.collect()  # openpyxl's half-written sheets are finalised here, their second failure dropped
    finally:
        sys.unraisablehook = noise
    if failed is not None:
        raise failed
    path.write_bytes(buffer.getvalue())


def _drop_unraisable(unraisable: Any) -> None:
    """While an xlsx is saved: an error raised again by openpyxl's half-written sheets when they
    are collected (a full disk) is the failure already raised, not a second one for stderr."""
    log.debug("xlsx: %s while collecting %r", unraisable.exc_value, unraisable.object)
