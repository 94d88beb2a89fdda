"""The metrics section: every metric of every model, best marked, split into tables that fit."""

from __future__ import annotations

import math
from collections.abc import Sequence
from dataclasses import dataclass

import reportgen.catalog as catalog
from reportgen.report.formats import BREAK_AFTER, fmt_ci, fmt_metric, needs_isolation
from reportgen.report.views.common import Models, best_index
from reportgen.report.wording import interval_methods, undefined_text
from reportgen.results import ComparisonResult

#: Widths of the metrics table's model columns, in average characters of a bold header (0.82rem
#: DejaVu Sans Bold, about 0.64 em a character), padding included: what the model columns share on
#: an A4 portrait page (:data:`PORTRAIT_CHARS`) and on a landscape page or the HTML page, whose
#: 1,056 px content box holds about the same (:data:`WIDE_CHARS`); a column needs its header's
#: longest unbreakable piece or a value with its interval (:data:`VALUE_CHARS`), plus
#: :data:`PAD_CHARS` of padding.
PORTRAIT_CHARS = 80
WIDE_CHARS = 118
VALUE_CHARS = 7
PAD_CHARS = 2.5


def _piece_chars(text: str) -> float:
    """Width of ``text``'s longest piece between the :func:`wbr` break opportunities, in average
    characters (capitals and m/w count 1.3: "MODEL_W" is wider than "model_a")."""
    pieces = []
    for word in text.split():
        # a right-to-left name gets no <wbr> (it breaks at its spaces); any other piece keeps the
        # separators that follow it ("challenger_", "01"), as wbr breaks after them
        parts = [word] if needs_isolation(text) else BREAK_AFTER.split(word)
        pieces += ["".join(parts[i : i + 2]) for i in range(0, len(parts), 2)]
    return max((sum(1.3 if c.isupper() or c in "mwMW@%" else 1.0 for c in p) for p in pieces), default=0.0)


def column_chars(headers: Sequence[str]) -> list[float]:
    """Each model column's width need, in average characters (see :data:`WIDE_CHARS`)."""
    return [max(_piece_chars(str(h)), VALUE_CHARS) + PAD_CHARS for h in headers]


def column_groups(headers: Sequence[str], budget: float = WIDE_CHARS) -> list[list[int]]:
    """The model columns split into consecutive groups of about equal size, each narrow enough for
    ``budget``, so no header is broken inside a word ("challenger_01" in twelve columns printed
    "challenge" over "r_01"): one group (the usual two or three models) when they all fit."""
    need = column_chars(headers)
    n = len(need)
    k = max(1, math.ceil(sum(need) / budget))
    while True:
        size = math.ceil(n / k)
        groups = [list(range(i, min(i + size, n))) for i in range(0, n, size)] if n else [[]]
        if size <= 1 or all(sum(need[j] for j in g) <= budget for g in groups):
            return groups
        k += 1


@dataclass(frozen=True, slots=True)
class MetricCell:
    value: str
    ci: str
    best: bool
    #: why the value is n/a ("no predicted positives"), or ""
    reason: str


@dataclass(frozen=True, slots=True)
class MetricRow:
    key: str
    label: str
    better: str
    cells: tuple[MetricCell, ...]


@dataclass(frozen=True, slots=True)
class MetricGroup:
    """Consecutive model columns printed as one table, with the caption that says which."""

    cols: tuple[int, ...]
    caption: str


@dataclass(frozen=True, slots=True)
class MetricsView:
    rows: tuple[MetricRow, ...]
    groups: tuple[MetricGroup, ...]
    #: landscape past four models, or when the model columns' headers need more than a portrait
    #: page; on a landscape page (and in the HTML) the columns are split into tables that each fit
    wide: bool
    #: how the table's intervals were made, said where they are shown
    interval_methods: str
    #: the rows left out of the table, said once: those that equal a tabled row by an identity
    #: ("Precision, micro, … equal Accuracy"), and those undefined for every model for a reason of
    #: the run's settings ("Quadratic-weighted kappa: the classes are not declared ordered"); "" for none
    omitted: str


#: Why a metric is n/a for every model because of the run's settings, not its data: such a row
#: is said once under the table, not tabulated as a row of n/a.
RUN_LEVEL_REASONS = ("classes_not_ordinal", "no_cost_matrix")


def _every_class_occurs(result: ComparisonResult) -> bool:
    first = next(iter(result.models.values()))
    return bool(first.per_class) and all((v.get("support") or 0) > 0 for v in (first.per_class or {}).values())


def left_out(result: ComparisonResult, keys: Sequence[str]) -> tuple[dict[str, str], dict[str, str]]:
    """The rows of ``keys`` a table leaves out: (key → the tabled key it equals by an identity of the
    task, :func:`reportgen.catalog.twin_of`; key → why it is n/a for every model, a reason of the
    run's settings). The primary metric is always tabled."""
    task = result.run.task
    occurs = _every_class_occurs(result)
    twins: dict[str, str] = {}
    for k in keys:
        other = catalog.twin_of(k, task, beta=result.run.beta, every_class_occurs=occurs)
        if other is not None and other in keys and k != result.run.primary_metric:
            twins[k] = other
    unset: dict[str, str] = {}
    for k in keys:
        reasons = [m.undefined_reasons.get(k) for m in result.models.values()]
        codes = {r.code if r is not None else None for r in reasons}
        if len(codes) == 1 and codes <= set(RUN_LEVEL_REASONS) and k != result.run.primary_metric:
            unset[k] = undefined_text(k, reasons[0])  # type: ignore[arg-type]
    return twins, unset


#: Why a twin equals its row (:data:`reportgen.catalog.TWINS`' conditions), in words.
_WHY_EQUAL = {"always": "with one label per row", "beta_one": "at β = 1", "every_class_occurs": "as every class occurs"}


def no_interval_why(result: ComparisonResult, key: str) -> str:
    """Why a defined value has no interval where the run draws intervals, for its cell ("" when the
    run draws none: the section's sentence says so once). From the facts the comparisons carry
    (their ``capabilities``), else the metric's nature; a binary run's intervals have their own
    notes, so there only the baseline accuracy's is said."""
    if result.run.bootstrap_resamples <= 0:
        return ""
    if key == "baseline_accuracy":
        return "no interval: fixed by the labels"
    if result.run.task == "binary":
        return ""
    caps = {k: v for c in result.comparisons for k, v in c.capabilities.items()}
    if key in _PROBABILITY_KEYS and caps.get("bootstrap.auc") == "too_many_cells":
        return "no interval: too many rows × classes to resample the scores"
    if (key in _PROBABILITY_KEYS and "paired_interval.probability_metrics" in caps) or "bootstrap" in caps:
        return "no interval: needs the rows (engine: memory)"
    return "no interval: defined in fewer than two resamples"


def _source_note(result: ComparisonResult, model: str, key: str) -> str:
    """Where a value not from the model's score comes from, in its cell: "from the PD column"."""
    return "from the PD column, no interval" if result.models[model].metric_sources.get(key) == "pd_column" else ""


_PROBABILITY_KEYS = frozenset(m.key for m in catalog.METRICS if m.probabilities)


def omitted_note(twins: dict[str, str], unset: dict[str, str]) -> str:
    """The sentence that says which rows were left out and why: "Not tabled: Precision, micro;
    Recall, micro (equal to Accuracy with one label per row); …". Labels hold commas, so the
    list is split by semicolons."""
    groups: dict[tuple[str, str], list[str]] = {}
    for k, other in twins.items():
        groups.setdefault((other, catalog.TWINS[k][1]), []).append(catalog.short_label(k))
    parts = [
        f"{'; '.join(names)} (equal to {catalog.short_label(other)} {_WHY_EQUAL[when]})"
        for (other, when), names in groups.items()
    ]
    parts += [f"{catalog.short_label(k)} (n/a for every model: {why})" for k, why in unset.items()]
    if not parts:
        return ""
    return "Not tabled: " + "; ".join(parts) + ". metrics.json keeps every metric."


def metrics_view(result: ComparisonResult, ms: Models) -> MetricsView:
    """The metrics section: a row per metric (the catalog's order for a binary run), a cell per model."""
    first = next(iter(result.models.values()))
    keys = [k for k in catalog.keys("binary") if k in first.metrics] if ms.binary else list(first.metrics)
    twins, unset = left_out(result, keys)
    keys = [k for k in keys if k not in twins and k not in unset]
    rows = []
    for k in keys:
        vals = [result.models[n].metrics.get(k) for n in ms.names]
        b = ms.better_of.get(k, "higher")
        best = best_index(vals, b)
        cells = tuple(
            MetricCell(
                value=fmt_metric(v, k, 4),
                ci=fmt_ci(result.models[n].ci.get(k), key=k)
                or ("" if v is None else _source_note(result, n, k) or no_interval_why(result, k)),
                best=i in best,
                reason=ms.why_undefined[n].get(k, "") if v is None else "",
            )
            for i, (n, v) in enumerate(zip(ms.names, vals))
        )
        rows.append(
            MetricRow(
                key=k,
                label=catalog.label(k),
                better={"higher": "↑ higher", "lower": "↓ lower"}.get(b or "", "—"),
                cells=cells,
            )
        )
    headers = [ms.short[n] for n in ms.names]
    groups = column_groups(headers)
    n = len(ms.names)
    return MetricsView(
        rows=tuple(rows),
        groups=tuple(
            MetricGroup(
                cols=tuple(g),
                caption=(
                    f"Models {g[0] + 1}–{g[-1] + 1} of {n}; the highlighted value is "
                    f"the best of all {n}, in whichever table it falls."
                )
                if len(groups) > 1
                else "",
            )
            for g in groups
        ),
        wide=n > 4 or sum(column_chars(headers)) > PORTRAIT_CHARS,
        interval_methods=interval_methods(result) or "",
        omitted=omitted_note(twins, unset),
    )
