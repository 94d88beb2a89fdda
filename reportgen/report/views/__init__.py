"""The report's view: one frozen dataclass per section, each built by one function from a
:class:`~reportgen.results.ComparisonResult`, and :class:`ReportView` holding them with the
title page's facts. Templates receive a :class:`ReportView` as ``view`` and only display it:
every number in it is a ready-formatted string (:mod:`reportgen.report.formats`), every choice a
flag. ``view.summary``, ``view.comparison``, ``view.metrics``, ``view.confusion``,
``view.thresholds``, ``view.bands``, ``view.curves``, ``view.per_class``, ``view.credit`` (None without a
credit section), ``view.trend``, ``view.appendix`` and ``view.checks`` are the sections.
"""

from __future__ import annotations

import dataclasses
import re
from collections.abc import Callable, Mapping, Sequence
from dataclasses import dataclass
from typing import TYPE_CHECKING, Any

from markupsafe import Markup

from reportgen.config import REPORT_SECTIONS
from reportgen.logo import logo_data_uri
from reportgen.report.formats import fmt_count, fmt_level, isolate, needs_isolation
from reportgen.report.views import credit as credit_section
from reportgen.report.views.appendix import AppendixView, ChecksView, PageMark, appendix_view, checks_view, page_mark
from reportgen.report.views.bands import BandsView, bands_view
from reportgen.report.views.brief import BriefView, brief_view
from reportgen.report.views.calibration import CalibrationView, calibration_view
from reportgen.report.views.class_probabilities import ClassProbabilitiesView, class_probabilities_view
from reportgen.report.views.common import Models
from reportgen.report.views.comparison import ComparisonView, comparison_view
from reportgen.report.views.confusion import ConfusionView, confusion_view
from reportgen.report.views.credit import CreditView
from reportgen.report.views.curves import CurvesView, curves_view
from reportgen.report.views.fairness import FairnessView, fairness_view
from reportgen.report.views.metrics import MetricsView, metrics_view
from reportgen.report.views.operating_points import OperatingPointsView, operating_points_view
from reportgen.report.views.partial_auc import PartialAucView, partial_auc_view
from reportgen.report.views.per_class import PerClassView, per_class_view
from reportgen.report.views.segments import SegmentsView, segments_view
from reportgen.report.views.summary import ModelRow, SummaryView, model_rows, summary_view
from reportgen.report.views.thresholds import ThresholdsView, thresholds_view
from reportgen.report.views.trend import TrendView, trend_view
from reportgen.report.wording import CREDIT_WORDS, Vocabulary
from reportgen.results import ComparisonResult

if TYPE_CHECKING:
    from reportgen.report.theme import Theme

#: Sections whose multiclass report uses its own template (``sections/NAME_multiclass.html``).
MULTICLASS_TEMPLATES = ("confusion", "glossary", "calibration")

#: Sections of each task (a theme's list is filtered by it).
TASK_SECTIONS = {
    "binary": tuple(s for s in REPORT_SECTIONS if s != "per_class"),
    "multiclass": tuple(s for s in REPORT_SECTIONS if s not in ("thresholds", "bands", "fairness", "segments")),
}

#: Each section's title in the table of contents.
TOC_TITLES = {
    "summary": "Summary",
    "comparison": "Comparison with the baseline",
    "partial_auc": "Partial AUC",
    "calibration": "Calibration",
    "operating_points": "Operating points",
    "metrics": "Metrics",
    "confusion": "Confusion matrices",
    "curves": "Curves",
    "thresholds": "Optimal thresholds",
    "bands": "Score bands",
    "per_class": "Per-class metrics",
    "glossary": "Glossary",
    "appendix": "Appendix: audit trail",
    "credit": "Credit validation",
    "fairness": "Fairness by protected group",
    "segments": "By segment",
    "trend": "Trend over recorded runs",
}

#: Classes past which the title page lists them in small, light text.
MANY_CLASSES = 12

#: The most characters of the title the PDF's page header repeats on every page.
RUNNING_TITLE_CHARS = 120


@dataclass(frozen=True, slots=True)
class TocEntry:
    id: str
    title: str


@dataclass(frozen=True, slots=True)
class ReportView:
    """Everything the templates show: the title page's facts, then one view per section."""

    title: str
    running_title: str
    #: a pack from an edited (--allow-edited) or digest-less metrics.json says so on every page
    mark: PageMark | None
    author: str
    created: str
    run_id: str
    version: str
    task: str
    baseline: str
    #: the run's confidence level, "95 %"
    level: str
    rows: str
    prevalence: str
    classes: str
    #: past a dozen classes the list is set small and light: 40 long labels in bold filled half the title page
    many_classes: bool
    period: str
    #: figures and narrow columns name the models by key (M1, M2, …): their names are long
    keyed: bool
    count_header: str
    models: tuple[ModelRow, ...]
    #: the model columns of the wide tables: names, colours, headers (the names, or their keys when long)
    model_names: tuple[str, ...]
    model_colours: tuple[str, ...]
    model_headers: tuple[str, ...]
    logo: str | None
    sections: tuple[str, ...]
    section_templates: tuple[str, ...]
    toc: tuple[TocEntry, ...]
    checks: ChecksView
    summary: SummaryView
    comparison: ComparisonView
    partial_auc: PartialAucView
    calibration: CalibrationView
    operating_points: OperatingPointsView
    metrics: MetricsView
    confusion: ConfusionView
    thresholds: ThresholdsView
    bands: BandsView
    curves: CurvesView
    per_class: PerClassView
    credit: CreditView | None
    fairness: FairnessView | None
    segments: SegmentsView | None
    trend: TrendView
    appendix: AppendixView
    #: the sign-off brief before the report (``report.layout: brief``), else None
    brief: BriefView | None = None
    #: the report's words for a binary decision (``report.domain``)
    words: Vocabulary = CREDIT_WORDS
    #: multiclass: the calibration section (class probabilities judged as probabilities), else None
    class_probabilities: ClassProbabilitiesView | None = None


def report_view(
    result: ComparisonResult, theme: Theme, drawing: Callable[[tuple[str, ...]], Mapping[str, str]]
) -> ReportView:
    """The report's view, right-to-left names isolated in its sentences (:func:`isolated`).

    ``drawing(sections)`` gives the figures of the sections shown (:func:`_sections`, and
    ``brief`` with the sign-off brief): key → SVG text, the credit section's keys prefixed with
    :data:`reportgen.report.credit_figures.KEY_PREFIX`; it is called once the tables are built."""
    import reportgen.report.credit_figures as credit_figures  # noqa: PLC0415  (figures are only needed to render)
    import reportgen.report.figures as figures  # noqa: PLC0415

    run = result.run
    ms = Models.of(result, theme.palette or figures.PALETTE, theme.domain)
    metrics, confusion = metrics_view(result, ms), confusion_view(result, ms)
    thresholds, per_class = thresholds_view(result, ms), per_class_view(result, ms)
    sections = _sections(result, theme)
    svgs = drawing(sections + (("brief",) if theme.layout == "brief" else ()))
    prefix = credit_figures.KEY_PREFIX
    credit = credit_section.credit_view(
        result.credit,
        ms.colours,
        level=run.confidence_level,
        models=result.models,
        figures={k[len(prefix) :]: Markup(v) for k, v in svgs.items() if k.startswith(prefix)},
    )
    seg = figures.SEGMENT_PREFIX
    curves = curves_view(result, {k: v for k, v in svgs.items() if not k.startswith((prefix, seg)) and k != "trend"})
    comparison = comparison_view(result, ms, curves.figures.get("forest"))
    # a red credit result stands beside the model's verdict in the summary (or on its own line)
    credit_notes = credit_section.summary_notes(result.credit)
    title_models = model_rows(result, ms)
    view = ReportView(
        title=run.title,
        running_title=running_title(run.title),
        mark=page_mark(theme.provenance),
        author=run.author or "",
        created=run.created.replace("T", " ").replace("Z", " UTC"),
        run_id=run.run_id,
        version=run.reportgen_version,
        task=run.task,
        baseline=run.baseline,
        level=fmt_level(run.confidence_level),
        rows=fmt_count(next(iter(result.models.values())).n),
        prevalence=title_models[0].prevalence,
        classes=", ".join(run.classes or []),
        many_classes=len(run.classes or []) > MANY_CLASSES,
        period=" to ".join(run.date_range) if run.date_range else "",
        keyed=ms.keyed,
        count_header="Positives" if ms.binary else "Input",
        models=title_models,
        model_names=ms.names,
        model_colours=tuple(ms.colours[n] for n in ms.names),
        model_headers=tuple(ms.short[n] for n in ms.names),
        logo=logo_data_uri(theme.logo),
        sections=sections,
        section_templates=tuple(
            f"sections/{s}_multiclass.html" if not ms.binary and s in MULTICLASS_TEMPLATES else f"sections/{s}.html"
            for s in sections
        ),
        toc=(
            ((TocEntry("checks", "Checks"),) if result.checks else ())
            + tuple(TocEntry(s, TOC_TITLES[s]) for s in sections)
        ),
        checks=checks_view(result),
        summary=summary_view(result, ms, credit_notes),
        comparison=comparison,
        partial_auc=partial_auc_view(result, ms),
        calibration=calibration_view(result, ms),
        operating_points=operating_points_view(result, ms),
        metrics=metrics,
        confusion=confusion,
        thresholds=thresholds,
        bands=bands_view(result, ms),
        curves=curves,
        per_class=per_class,
        credit=credit,
        fairness=fairness_view(result.fairness, ms.colours, run.baseline, fmt_level(run.confidence_level), ms.words),
        segments=segments_view(
            result.segments,
            tuple(ms.names),
            ms.colours,
            fmt_level(run.confidence_level),
            {k[len(seg) :]: Markup(v) for k, v in svgs.items() if k.startswith(seg)},
        ),
        trend=trend_view(result, svgs.get("trend")),
        appendix=appendix_view(result, theme.provenance),
        brief=brief_view(result, ms.colours, comparison, theme.block_on) if theme.layout == "brief" else None,
        words=ms.words,
        class_probabilities=class_probabilities_view(result, ms),
    )
    return isolated(view, [*result.models, *(run.classes or [])])


def _sections(result: ComparisonResult, theme: Theme) -> tuple[str, ...]:
    """The theme's sections this run has, in the theme's order (``report.sections`` names and
    orders every section; credit and trend are left out of a run without ``credit:`` or
    ``history:``)."""
    have = {
        "credit": result.credit is not None,
        "fairness": result.fairness is not None,
        "segments": result.segments is not None,
        "trend": bool(result.trend),
        "partial_auc": any(m.partial_auc for m in result.models.values()),
        "calibration": any(
            m.calibration is not None or m.class_probabilities is not None for m in result.models.values()
        ),
        "operating_points": any(
            m.operating_points is not None and m.operating_points.points for m in result.models.values()
        ),
    }
    task = TASK_SECTIONS.get(result.run.task, REPORT_SECTIONS)
    return tuple(s for s in theme.sections if s in task and have.get(s, True))


def running_title(title: str) -> str:
    """The title as the PDF's page header shows it: at most :data:`RUNNING_TITLE_CHARS`
    characters, a longer one cut with an ellipsis. WeasyPrint lays the header out again on
    every page, and its line breaking is slow on long unbroken text: a title of 20,000
    characters added 15 s to a 36-page PDF, one of 200,000 took it past five minutes."""
    return title if len(title) <= RUNNING_TITLE_CHARS else title[: RUNNING_TITLE_CHARS - 1].rstrip() + "…"


#: View fields printed as written: the config as run, the paths of the inputs, of the output
#: directory and of a re-render's source (copied out of the report, they must stay byte for byte
#: what they are; the page mark names the source) and markup (figures, the logo).
_AS_WRITTEN = frozenset(
    {"config_yaml", "config_path", "output_dir", "source", "mark", "file", "files", "logo", "figures", "class_figures"}
)


def isolated(view: Any, names: Sequence[str]) -> Any:
    """The view with each right-to-left name (model or class) isolated (:func:`isolate`) where it
    stands inside a longer text: a verdict, a note, a warning, a caption. A value that is the name
    alone is left to the template, which prints it through :func:`~reportgen.report.formats.wbr`
    (a ``<bdi>``)."""
    rtl = sorted({n for n in names if needs_isolation(n)}, key=len, reverse=True)
    if not rtl:
        return view
    pattern = re.compile("|".join(re.escape(n) for n in rtl))
    exact = set(rtl)

    def walk(v: Any, key: str | None = None) -> Any:
        if key in _AS_WRITTEN or isinstance(v, Markup):
            return v
        if isinstance(v, str):
            return v if v in exact else pattern.sub(lambda m: isolate(m.group(0)), v)
        if dataclasses.is_dataclass(v) and not isinstance(v, type):
            return dataclasses.replace(v, **{f.name: walk(getattr(v, f.name), f.name) for f in dataclasses.fields(v)})
        if isinstance(v, dict):
            return {k: walk(x, k) for k, x in v.items()}
        if isinstance(v, (list, tuple)):
            return type(v)(walk(x) for x in v)
        return v

    return walk(view)


__all__ = [
    "MANY_CLASSES",
    "MULTICLASS_TEMPLATES",
    "RUNNING_TITLE_CHARS",
    "TASK_SECTIONS",
    "ReportView",
    "TocEntry",
    "isolated",
    "report_view",
    "running_title",
]
