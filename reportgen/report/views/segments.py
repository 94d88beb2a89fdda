"""The segments section: per segment column, a table of each value's rows, each model's primary
metric and AUC with intervals, each challenger's paired difference with its Holm-adjusted p, and
the forest plot of those differences; a value too small to test says so in its row."""

from __future__ import annotations

from collections.abc import Mapping
from dataclasses import dataclass

from markupsafe import Markup

import reportgen.catalog as catalog
from reportgen.report.formats import fmt_ci, fmt_count, fmt_num, fmt_p, fmt_pvalue, fmt_signed
from reportgen.section_results import SegmentSection


@dataclass(frozen=True, slots=True)
class Cell:
    value: str
    ci: str
    #: a significant difference: "better" / "worse" (marked), else ""
    mark: str = ""


@dataclass(frozen=True, slots=True)
class ValueRow:
    value: str
    rows: str
    positives: str
    tested: bool
    #: per model (config order): the primary metric with its interval
    metrics: tuple[Cell, ...]
    #: per challenger: the paired difference with its interval, then its adjusted p
    deltas: tuple[Cell, ...]
    p_values: tuple[str, ...]


@dataclass(frozen=True, slots=True)
class ColumnView:
    column: str
    rows: tuple[ValueRow, ...]
    figure: Markup | None


@dataclass(frozen=True, slots=True)
class SegmentsView:
    metric: str
    baseline: str
    models: tuple[str, ...]
    colours: tuple[str, ...]
    challengers: tuple[str, ...]
    min_rows: str
    level: str
    columns: tuple[ColumnView, ...]
    #: the reversals as sentences (challenger better overall, worse in a segment, or the reverse)
    reversals: tuple[str, ...]


def segments_view(
    section: SegmentSection | None,
    models: tuple[str, ...],
    colours: Mapping[str, str],
    level: str,
    figures: Mapping[str, Markup],
) -> SegmentsView | None:
    """The section's view, None without a segments section."""
    if section is None:
        return None
    metric = section.primary_metric
    challengers = tuple(m for m in models if m != section.baseline)
    digits = 3
    columns = []
    for c in section.columns:
        rows = []
        for v in c.values:
            ms = {m.model: m for m in v.models}
            ds = {d.model: d for d in v.deltas}
            rows.append(
                ValueRow(
                    value=v.value,
                    rows=fmt_count(v.rows),
                    positives=fmt_count(v.positives),
                    tested=v.tested,
                    metrics=tuple(
                        Cell(fmt_num(ms[m].metrics.get(metric), digits), fmt_ci(ms[m].ci.get(metric), digits, metric))
                        if m in ms
                        else Cell("", "")
                        for m in models
                    ),
                    deltas=tuple(
                        Cell(
                            fmt_signed(ds[m].delta, digits),
                            fmt_ci(ds[m].ci, digits),
                            "" if ds[m].direction == "inconclusive" else ds[m].direction,
                        )
                        if m in ds
                        else Cell("", "")
                        for m in challengers
                    ),
                    p_values=tuple(fmt_pvalue(ds[m].p_value_adjusted) if m in ds else "" for m in challengers),
                )
            )
        columns.append(ColumnView(c.column, tuple(rows), figures.get(c.column)))
    label = catalog.short_label(metric)
    reversals = tuple(
        f"{r.overall.capitalize()} than {section.baseline} overall, {r.model} is significantly {r.segment} on "
        f"{r.column} = {r.value} (Δ {label} {fmt_signed(r.delta, digits)}, Holm-adjusted {fmt_p(r.p_value_adjusted)})."
        for r in section.reversals
    )
    return SegmentsView(
        metric=label,
        baseline=section.baseline,
        models=models,
        colours=tuple(colours.get(m, "#777777") for m in models),
        challengers=challengers,
        min_rows=fmt_count(section.min_rows),
        level=level,
        columns=tuple(columns),
        reversals=reversals,
    )
