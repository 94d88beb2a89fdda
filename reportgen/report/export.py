"""The result's tidy tables for spreadsheets: CSV files and one Excel workbook.

Validators work in spreadsheets, so ``--format csv`` writes one ``NAME.csv`` per frame of
:meth:`ComparisonResult.frames() <reportgen.results.ComparisonResult.frames>` (``metrics.csv``,
``comparisons.csv``, ``thresholds.csv``, and ``per_class``, ``checks``, ``trend`` and the
``credit_*`` tables when the run has them), and ``--format xlsx`` one ``tables.xlsx`` with a sheet
per frame (``pip install 'classifier-comparison-report[xlsx]'``, openpyxl). One source: a number in
a spreadsheet is the number ``result.frames()`` gives a notebook. The tables are long (one row per
fact), so they filter and pivot without reshaping; numbers stay numbers (full precision, empty
when undefined) and intervals are two columns.

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
from pathlib import Path
from typing import Any

from reportgen.errors import OutputError
from reportgen.results import ComparisonResult

log = logging.getLogger(__name__)

#: First characters that make a spreadsheet read a cell as a formula.
FORMULA_START = ("=", "+", "-", "@", "\t", "\r")

#: A table as header and rows of plain Python values (None where undefined).
Table = tuple[list[str], list[list[Any]]]


def safe_cell(v: Any) -> Any:
    """A value safe to open in a spreadsheet: text starting with ``= + - @`` (or tab / CR) gets a
    leading apostrophe so it is shown, never evaluated; numbers are left as numbers."""
    if isinstance(v, str) and v.startswith(FORMULA_START):
        return "'" + v
    return v


def tables(result: ComparisonResult) -> dict[str, Table]:
    """The result's frames (:meth:`~reportgen.results.ComparisonResult.frames`) as plain tables
    by name: NaN and <NA> as None, numpy scalars as Python numbers and booleans."""
    import pandas as pd  # noqa: PLC0415  (the frames import it anyway)

    def plain(v: Any) -> Any:
        return None if pd.isna(v) else v.item() if hasattr(v, "item") else v

    return {
        name: (list(df.columns), [[plain(v) for v in row] for row in df.itertuples(index=False, name=None)])
        for name, df in result.frames().items()
    }


def to_csv(table: Table) -> str:
    """One table as CSV text (RFC 4180 quoting, ``\\n`` line ends), every cell neutralised,
    numbers at full precision (``repr``), an undefined value empty."""
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
