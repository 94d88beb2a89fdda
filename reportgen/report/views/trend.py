"""The trend section: the headline numbers of the runs recorded in the history store."""

from __future__ import annotations

from dataclasses import dataclass

from markupsafe import Markup

import reportgen.catalog as catalog
from reportgen.option_results import TrendPoint
from reportgen.report.formats import fmt_ci, fmt_num, fmt_signed
from reportgen.results import ComparisonResult


@dataclass(frozen=True, slots=True)
class TrendCell:
    value: str
    ci: str


@dataclass(frozen=True, slots=True)
class TrendRow:
    created: str
    run_id: str
    cells: tuple[TrendCell, ...]
    current: bool


@dataclass(frozen=True, slots=True)
class TrendTable:
    title: str
    subjects: tuple[str, ...]
    rows: tuple[TrendRow, ...]


@dataclass(frozen=True, slots=True)
class TrendView:
    tables: tuple[TrendTable, ...]
    #: the primary metric per model across the runs (:func:`reportgen.plot.trend`), from two runs on
    figure: Markup | None = None


def trend_view(result: ComparisonResult, figure: str | None = None) -> TrendView:
    """One table per headline metric: a row per recorded run (date, run id), a column per model
    (or comparison), each cell the value and its interval; the current run is the last row.
    ``figure``: the drawn trend chart (SVG), shown above the tables."""
    groups: dict[tuple[str, str], dict[str, dict[str, TrendPoint]]] = {}
    runs: dict[str, str] = {}
    for p in result.trend:
        key = f"{p.created}|{p.run_id}"
        runs.setdefault(key, p.created)
        groups.setdefault((p.kind, p.metric), {}).setdefault(p.subject, {})[key] = p
    out = []
    for (kind, metric), by_subject in groups.items():
        subjects = list(by_subject)
        name = {
            "default_rate": "Default rate (share of positives)",
            "psi": "Population stability index (against the reference sample)",
        }.get(metric) or catalog.label(metric)
        title = f"{name}, difference with the baseline" if kind == "comparison" else name
        rows = []
        for key in runs:
            if not any(key in by_subject[s] for s in subjects):
                continue
            cells = []
            for s in subjects:
                q = by_subject[s].get(key)
                cells.append(
                    TrendCell(
                        value=fmt_signed(q.value) if q and kind == "comparison" else fmt_num(q.value if q else None),
                        ci=fmt_ci(q.ci) if q else "",
                    )
                )
            created, run_id = key.split("|", 1)
            rows.append(
                TrendRow(
                    created=created.replace("T", " ").replace("Z", " UTC"),
                    run_id=run_id,
                    cells=tuple(cells),
                    current=run_id == result.run.run_id and created == result.run.created,
                )
            )
        out.append(TrendTable(title=title, subjects=tuple(subjects), rows=tuple(rows)))
    return TrendView(tables=tuple(out), figure=Markup(figure) if figure else None)
