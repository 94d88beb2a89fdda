"""Result → view model → Jinja templates → HTML, PDF (WeasyPrint) and JSON text.

Templates only display: this module hands them ready-formatted strings and flags. Number
formatting lives in small tested filters (:func:`fmt_num`, :func:`fmt_pct`, :func:`fmt_pvalue`,
:func:`fmt_ci`). The Jinja environment autoescapes and uses ``StrictUndefined``; a custom
theme directory can override any template or the CSS but cannot include files outside itself.
WeasyPrint gets a URL fetcher that refuses everything except ``data:`` URLs, so rendering
never touches the network or the file system.

Writing them to disk (the whole set or nothing, locked, swapped in by one rename) is
:mod:`reportgen.report.writer` (which imports this module, never the other way).
"""

from __future__ import annotations

import base64
import hashlib
import json
import logging
import math
import os
import re
import stat
import traceback
import tempfile
from collections.abc import Callable, Iterator, Sequence
from contextlib import ExitStack, contextmanager
from dataclasses import dataclass
from datetime import datetime
from importlib import resources
from pathlib import Path
from typing import Any
from urllib.parse import unquote_to_bytes

import yaml
from jinja2 import ChoiceLoader, Environment, FileSystemLoader, StrictUndefined, select_autoescape
from jinja2.exceptions import SecurityError
from jinja2.sandbox import ImmutableSandboxedEnvironment
from markupsafe import Markup, escape
from pydantic import ValidationError

from reportgen.config import REPORT_SECTIONS, ReportConfig
import reportgen.catalog as catalog
from reportgen.errors import ReportgenError, ResultError, ThemeError, UserError
from reportgen.logo import logo_data_uri
from reportgen.report.formats import MAX_DIGITS, bounds_of, fmt_bounded, fmt_int, fmt_metric, fmt_threshold, minus
from reportgen.report.formats import isolate, needs_isolation, text_direction
from reportgen.report.heap import young_collections_only
from reportgen.report.labels import CRITERION_LABELS
from reportgen.results import ComparisonResult, ModelResult, to_jsonable
from reportgen.smallfiles import read_user_file
from reportgen.report.wording import approval_view, comparison_notes, interval_kind, interval_methods, per_class_interval_note, verdict
from reportgen.report.wording import family_words, optimum_label, ranking_note, undefined_of
from reportgen.report.wording import rule as model_rule

log = logging.getLogger(__name__)

FORMATS = ("html", "pdf", "json", "csv", "xlsx")


# --------------------------------------------------------------------------------------
# Formatting filters
# --------------------------------------------------------------------------------------


def fmt_num(v: float | None, digits: int = 3) -> str:
    """A number with ``digits`` decimals; integers of counts without decimals; None → 'n/a'."""
    if v is None or (isinstance(v, float) and not math.isfinite(v)):
        return "n/a"
    if isinstance(v, (int,)) or (float(v).is_integer() and abs(v) >= 1000):
        return minus(fmt_int(v))
    # the minus sign of the tables' differences (−0.028), never a hyphen (z = −8.14, S = −0.096)
    return minus(f"{v:.{digits}f}")


def fmt_count(v: float | None) -> str:
    """Counts: thin-space thousands; weighted counts keep one decimal."""
    if v is None:
        return "n/a"
    if float(v).is_integer():
        return f"{int(v):,}".replace(",", "\u2009")
    return f"{v:,.1f}".replace(",", "\u2009")


def fmt_pct(v: float | None, digits: int = 1, signed: bool = False) -> str:
    if v is None or not math.isfinite(v):
        return "n/a"
    sign = "+" if signed and v > 0 else ""
    return minus(f"{sign}{v * 100:.{digits}f} %")


def fmt_share(v: float | None, digits: int = 0) -> str:
    """A share in per cent (``digits`` decimals) never rounded to a bound it does not equal: 12 of
    2 975 rows is "< 1 %", not "0 %" (which reads as none), and 2 970 of 2 975 is "> 99 %"; with
    one decimal, 1 row flagged of 6 000 is "< 0.1 %" and the 5 999 approved "> 99.9 %"."""
    if v is None or not math.isfinite(v):
        return "n/a"
    step = 10.0 ** -digits  # the smallest share shown, in per cent
    if 0 < v * 100 < step / 2:
        return f"< {step:.{digits}f} %"
    if 100 - step / 2 <= v * 100 < 100:
        return f"> {100 - step:.{digits}f} %"
    return fmt_pct(v, digits)


def fmt_share_of_sum(v: float | None, digits: int = 4) -> str:
    """A non-negative term of a sum (a bin's PSI contribution) with ``digits`` decimals; a positive
    term too small to show is "< 0.0001", never "0.0000", which reads as none at all."""
    if v is None or not math.isfinite(v):
        return "n/a"
    if 0 < v < 0.5 * 10.0 ** -digits:
        return f"< {10.0 ** -digits:.{digits}f}"
    return fmt_num(v, digits)


def fmt_points(v: float | None, digits: int = 2) -> str:
    """A difference of two rates in percentage points, signed: 0.0025 → "+0.25 percentage points"
    (a difference of percentages printed as "0.25 %" reads as a relative change)."""
    if v is None or not math.isfinite(v):
        return "n/a"
    return minus(f"{v * 100:+.{digits}f}") + " percentage points"


def fmt_ci_pct(ci: Sequence[float] | None, digits: int = 2) -> str:
    """An interval of a rate in percent, as the rate beside it is printed: [0.0091, 0.0331] →
    "[0.91 %, 3.31 %]" (a default rate of 1.83 % with its interval as fractions mixes units)."""
    if not ci or ci[0] is None or ci[1] is None:
        return ""
    return "[" + ", ".join(fmt_pct(float(v), digits) for v in ci) + "]"


def fmt_signed(v: float | None, digits: int = 3) -> str:
    """A difference with its sign; a non-zero one never prints as zero (0.0003 → "+0.0003",
    beyond :data:`~reportgen.report.formats.MAX_DIGITS` decimals "+< 0.000001"); zero is "0.000"."""
    if v is None or not math.isfinite(v):
        return "n/a"
    if v == 0:
        return f"{0:.{digits}f}"
    for d in range(digits, MAX_DIGITS + 1):
        if float(f"{abs(v):.{d}f}") != 0:
            return f"{v:+.{d}f}".replace("-", "−")
    return ("+" if v > 0 else "−") + f"< {10.0 ** -MAX_DIGITS:.{MAX_DIGITS}f}"


def fmt_pvalue(p: float | None) -> str:
    if p is None or not math.isfinite(p):
        return "n/a"
    if p < 0.0001:
        return "< 0.0001"
    if p < 0.01:
        return f"{p:.4f}"
    return f"{p:.3f}"


def fmt_p(p: float | None) -> str:
    """'p = 0.027' or 'p < 0.0001' (the phrase, for running text)."""
    text = fmt_pvalue(p)
    return f"p {text}" if text.startswith("<") else f"p = {text}"


#: Names up to this long get no extra break opportunities (:func:`wbr`).
WBR_AFTER = 20
_BREAK_AFTER = re.compile(r"([_./:\\-]+)")


def wbr(text: Any, after: int = WBR_AFTER) -> Markup:
    """Text escaped, with a line-break opportunity (``<wbr>``) after each ``_ . / : - \\``.

    Model, class and file names (``PD_retail_gbm_challenger_v1.0_monotone_2024Q3``) have no
    spaces; without these a table column or heading cannot be narrower than the whole name, and
    the PDF loses columns past the right margin. The text itself is unchanged (copying it out of
    the page gives the name), and CSS ``overflow-wrap: anywhere`` breaks a name that has none.
    Text of at most ``after`` characters (:data:`WBR_AFTER`) fits any column and is left as it
    is; file names, in a narrow column, get them from any length (``wbr(0)``), so
    ``challenger.parquet`` breaks after its dot, not inside a word.
    """
    if needs_isolation(str(text)):
        # a right-to-left name is isolated (<bdi>) with its direction stated: WeasyPrint isolates
        # a <bdi> but reads it left to right unless told ("نموذج 2 (v3.1)" came out in the wrong
        # order); and without <wbr>, which WeasyPrint reorders as separate boxes ("(v3.<wbr>1)"
        # printed "(1.v3)"): a long one breaks where it must (overflow-wrap: anywhere)
        return Markup('<bdi dir="{}">{}</bdi>').format(text_direction(str(text)), text)
    if len(str(text)) <= after:
        return Markup(escape(text))
    parts = _BREAK_AFTER.split(str(text))
    return Markup("").join(Markup(escape(p)) + (Markup("<wbr>") if i % 2 else Markup("")) for i, p in enumerate(parts))


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
        parts = [word] if needs_isolation(text) else _BREAK_AFTER.split(word)
        pieces += ["".join(parts[i:i + 2]) for i in range(0, len(parts), 2)]
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


def fmt_ci(ci: Sequence[float] | None, digits: int = 3, key: str | None = None) -> str:
    """An interval as "[lo, hi]" with ``digits`` decimals. With the metric's ``key``, an end is never
    rounded to a bound of the metric's range it does not equal (:func:`~reportgen.report.formats.fmt_bounded`):
    the logit-scale DeLong interval of AUC 0.9991 is [0.996, 0.9998], not [0.996, 1.000], which
    would read as the certainty the transform exists to avoid."""
    if not ci or ci[0] is None or ci[1] is None:
        return ""
    b = bounds_of(key)
    if b is not None:
        ends = [fmt_bounded(float(v) + 0.0, digits, *b) for v in ci]
        ends = [e.lstrip("-") if e[0] == "-" and float(e) == 0.0 else e for e in ends]  # never "−0.000"
        return ("[" + ", ".join(ends) + "]").replace("-", "−")
    # + 0.0 turns a bound that rounds to zero from below into "0.000", never "−0.000"
    lo, hi = (float(f"{v:.{digits}f}") + 0.0 for v in ci)
    return f"[{lo:.{digits}f}, {hi:.{digits}f}]".replace("-", "−")


def better_mark(delta: float | None, better: str | None) -> str:
    """Whether a difference is an improvement, by the metric's better direction
    (:mod:`reportgen.catalog`): "better", "worse", "equal", or "" when neither way is better."""
    if delta is None or not math.isfinite(delta) or better not in ("higher", "lower"):
        return ""
    if delta == 0:
        return "equal"
    return "better" if (delta > 0) == (better == "higher") else "worse"


def excludes_zero(ci: Sequence[float] | None) -> bool | None:
    """Whether an interval of a difference lies clear of 0 (None without an interval)."""
    if not ci or ci[0] is None or ci[1] is None:
        return None
    return ci[0] > 0 or ci[1] < 0


# --------------------------------------------------------------------------------------
# View model
# --------------------------------------------------------------------------------------

SECTIONS = REPORT_SECTIONS

#: Sections whose multiclass report uses its own template (``sections/NAME_multiclass.html``).
MULTICLASS_TEMPLATES = ("confusion", "glossary")

#: Sections of each task (a theme's list is filtered by it).
TASK_SECTIONS = {
    "binary": tuple(s for s in SECTIONS if s != "per_class"),
    "multiclass": tuple(s for s in SECTIONS if s != "thresholds"),
}

KEY_COMPARISON_METRICS = ("gini", "roc_auc", "ks", "average_precision", "f1", "mcc", "accuracy", "expected_cost", "brier")
KEY_MULTICLASS_METRICS = ("f1_macro", "f1_weighted", "accuracy", "balanced_accuracy", "cohen_kappa", "mcc",
                          "roc_auc_ovr_macro", "roc_auc_ovo_macro", "log_loss", "expected_cost")

#: Per-class tables of a multiclass report: (field, title).
PER_CLASS_TABLES = (("f1", "F1"), ("recall", "Recall"), ("precision", "Precision"), ("roc_auc", "ROC AUC (one-vs-rest)"))

#: Captions of the per-class figures (drawn in parts of nine panels when there are many classes).
CLASS_FIGURE_CAPTIONS = {
    "class_roc": ("One-vs-rest ROC of each class (its score column against all other classes), models overlaid, "
                  "AUC in the legend; the last panel pools every (row, class) cell (micro-average)."),
    "class_pr": "One-vs-rest precision–recall of each class, models overlaid.",
}

#: Up to this many classes the confusion matrix is drawn in full; beyond, the top confusions.
MAX_MATRIX_CLASSES = 20
#: Classes past which the title page lists them in small, light text.
MANY_CLASSES = 12


@dataclass(frozen=True, slots=True)
class Theme:
    """Look of a report: an optional template directory, palette, logo and section list."""

    template_dir: Path | None = None
    palette: tuple[str, ...] | None = None
    logo: Path | None = None
    sections: tuple[str, ...] = SECTIONS

    @classmethod
    def from_config(cls, report: dict[str, Any] | None, template_dir: Path | None = None) -> Theme:
        """The theme of a config's ``report`` section, as the user wrote it for this run.

        ``template_dir`` (``--theme``) wins over the config's. A logo or template directory that
        no longer exists is left out. Never call this on a ``report`` section read from a
        received ``metrics.json``: use :meth:`from_saved_result`, which takes no path from it.
        """
        r = report or {}
        tdir = template_dir or (Path(r["template_dir"]) if r.get("template_dir") else None)
        logo = Path(r["logo"]) if r.get("logo") else None
        return cls(
            template_dir=tdir if tdir is None or tdir.is_dir() else None,
            palette=tuple(r["palette"]) if r.get("palette") else None,
            logo=logo if logo is not None and logo.is_file() else None,
            sections=tuple(r["sections"]) if r.get("sections") else SECTIONS,
        )

    @classmethod
    def from_saved_result(
        cls, report: Any, template_dir: Path | None = None, logo: Path | None = None,
        source: str = "metrics.json",
    ) -> Theme:
        """The theme for re-rendering a saved ``metrics.json`` (``reportgen render``).

        A received file is data: its palette and section list are taken, checked by the config's
        own rules (colours ``#rrggbb``, sections among :data:`REPORT_SECTIONS`; a value that
        breaks them is a :class:`~reportgen.errors.ResultError` naming its JSON path, never a
        crash in the figures nor a section silently left out), but no path in it is ever opened —
        the template directory comes only from ``--theme`` and the logo only from ``--logo``, both
        given by the person running the command.
        """
        if report is None:
            report = {}
        if not isinstance(report, dict):
            raise ResultError(f"{source}: run.config.report: expected an object or null, found {_found_json(report)}")
        looks = {k: report[k] for k in ("palette", "sections") if report.get(k) is not None}
        try:
            checked = ReportConfig.model_validate(looks)
        except ValidationError as exc:
            err = exc.errors()[0]
            where = "run.config.report" + "".join(f"[{p}]" if isinstance(p, int) else f".{p}" for p in err["loc"])
            msg = err["msg"].removeprefix("Value error, ")
            found = "" if err["type"] == "value_error" else f" (found {_found_json(err.get('input'))})"
            raise ResultError(f"{source}: {where}: {msg}{found}") from None
        return cls(
            template_dir=template_dir,
            palette=tuple(checked.palette) if checked.palette else None,
            logo=logo,
            sections=tuple(checked.sections) if checked.sections else SECTIONS,
        )


def _found_json(value: Any) -> str:
    """A found value for a one-line message: its repr, shortened."""
    text = repr(value)
    return text if len(text) <= 80 else text[:77] + "..."


def _best_index(values: list[float | None], better: str | None) -> set[int]:
    vals = [(i, v) for i, v in enumerate(values) if v is not None]
    if not vals or better is None or len(vals) < 2:
        return set()
    target = max(v for _, v in vals) if better == "higher" else min(v for _, v in vals)
    if all(v == target for _, v in vals):
        return set()
    return {i for i, v in vals if v == target}


def _confusion_view(name: str, tp: float, fp: float, fn: float, tn: float, label: str,
                    rule: str = "") -> dict[str, Any]:
    P, N = tp + fn, fp + tn
    m = P + N
    top = max(tp, fp, fn, tn, 1e-300)

    def cell(v: float, of: float, ok: bool) -> dict[str, Any]:
        return {
            "count": fmt_count(v),
            "share": fmt_share(v / of if of else None, 1),
            "shade": f"{0.08 + 0.55 * v / top:.2f}",
            "ok": ok,
        }

    return {
        "model": name,
        "label": label,
        "rule": rule,
        "tp": cell(tp, P, True),
        "fn": cell(fn, P, False),
        "fp": cell(fp, N, False),
        "tn": cell(tn, N, True),
        "pred_pos": fmt_count(tp + fp),
        "pred_neg": fmt_count(fn + tn),
        "pos": fmt_count(P),
        "neg": fmt_count(N),
        "total": fmt_count(m),
        "approval": fmt_share((fn + tn) / m if m else None, 1),
    }


def _without_nulls(value: Any) -> Any:
    """The config as run, without keys left at null (shorter, same meaning)."""
    if isinstance(value, dict):
        return {k: _without_nulls(v) for k, v in value.items() if v is not None}
    if isinstance(value, list):
        return [_without_nulls(v) for v in value]
    return value


#: Keys that mean nothing for a multiclass run, left out of its "config as run".
_BINARY_ONLY = ("positive", "threshold", "prevalences", "constraints")
_BINARY_ONLY_MODEL = ("direction", "threshold", "score")


def _config_as_run(config: dict[str, Any], binary: bool) -> Any:
    """The config for the appendix: no null keys, no keys that the task or engine ignores."""
    cfg = _without_nulls(config)
    if cfg.get("engine", "memory") == "memory":  # batch sizes and bins do not apply in memory
        cfg = {k: v for k, v in cfg.items() if k not in ("stream", "scheduler")}
    if binary:
        return cfg
    cfg = {k: v for k, v in cfg.items() if k not in _BINARY_ONLY}
    cfg["models"] = [{k: v for k, v in m.items() if k not in _BINARY_ONLY_MODEL} for m in cfg.get("models", [])]
    return cfg


def rule_text(direction: str, threshold: float | str) -> str:
    """The decision rule in words: 'positive when score ≥ 0.15'."""
    op = "≥" if direction == "higher" else "≤"
    t = threshold if isinstance(threshold, str) else fmt_threshold(threshold)
    return f"positive when score {op} {t}"


def _trend_view(result: ComparisonResult) -> list[dict[str, Any]]:
    """One table per headline metric: a row per recorded run (date, run id), a column per model
    (or comparison), each cell the value and its interval; the current run is the last row."""
    groups: dict[tuple[str, str], dict[str, dict[str, Any]]] = {}
    runs: dict[str, str] = {}
    for p in result.trend:
        key = f"{p.created}|{p.run_id}"
        runs.setdefault(key, p.created)
        groups.setdefault((p.kind, p.metric), {}).setdefault(p.subject, {})[key] = p
    out = []
    for (kind, metric), by_subject in groups.items():
        subjects = list(by_subject)
        name = {"default_rate": "Default rate (share of positives)",
                "psi": "Population stability index (against the reference sample)"}.get(metric) or catalog.label(metric)
        title = f"{name}, difference with the baseline" if kind == "comparison" else name
        rows = []
        for key in runs:
            if not any(key in by_subject[s] for s in subjects):
                continue
            cells = []
            for s in subjects:
                p = by_subject[s].get(key)
                cells.append({"value": fmt_signed(p.value) if p and kind == "comparison" else fmt_num(p.value if p else None),
                              "ci": fmt_ci(p.ci) if p else ""})
            created, run_id = key.split("|", 1)
            rows.append({"created": created.replace("T", " ").replace("Z", " UTC"), "run_id": run_id, "cells": cells,
                         "current": run_id == result.run.run_id and created == result.run.created})
        out.append({"title": title, "subjects": subjects, "rows": rows})
    return out


def build_view(result: ComparisonResult, theme: Theme = Theme()) -> dict[str, Any]:
    """Everything the templates show, as formatted strings and flags.

    The figures, the credit section's among them, are drawn (in worker processes,
    :class:`reportgen.report.figures.Drawing`) while the tables of the view are built, and collected
    before the credit section's view, which holds its figures."""
    drawing = _start_drawing(result, theme)
    try:
        return _view_of(result, theme, drawing)
    finally:
        drawing.cancel()


def _view_of(result: ComparisonResult, theme: Theme, drawing: Any) -> dict[str, Any]:
    """:func:`_build_view` with right-to-left names isolated in its sentences."""
    return _isolated_in_sentences(_build_view(result, theme, drawing), [*result.models, *(result.run.classes or [])])


def _start_drawing(result: ComparisonResult, theme: Theme) -> Any:
    """The report's figures, the credit section's among them, set drawing in worker processes
    (:class:`reportgen.report.figures.Drawing`)."""
    import reportgen.report.figures as figures  # noqa: PLC0415  (figures are only needed to render)

    import reportgen.report.credit_figures as credit_figures  # noqa: PLC0415  (likewise)

    palette = theme.palette or figures.PALETTE
    credit = {} if result.credit is None else credit_figures.figure_table(
        dict(result.credit.models), figures.colours(list(result.models), palette))
    return figures.start_figures(result, palette, extra=credit)


class ViewInProgress:
    """A report's view (:func:`build_view`) whose figures are still being drawn (:func:`start_view`).

    ``view`` holds, where each figure goes, an empty SVG of its size
    (:func:`reportgen.report.figures.pending_svg`), so the PDF's page can be laid out while the
    figures are drawn; :meth:`drawn` waits for the drawings, :meth:`fill` puts them into a page.
    When the figures' sizes cannot be known before they are drawn, ``view`` is built with the
    drawings, as :func:`build_view` builds it, and there is nothing to fill.
    """

    def __init__(self, result: ComparisonResult, theme: Theme) -> None:
        self._result, self._theme = result, theme
        self._drawing = _start_drawing(result, theme)
        self._drawn: dict[str, str] | None = None
        #: True once :meth:`drawn` found a figure drawn that was not foreseen, or the reverse:
        #: ``view`` was then built again with the drawings (a page made before must be made again)
        self.remade = False
        try:
            self._pending = self._drawing.pending() or {}
            self.view = _view_of(result, theme, (lambda: self._pending) if self._pending else self._drawing)
        except BaseException:
            self.close()
            raise
        if not self._pending:
            self.close()

    def drawn(self) -> dict[str, str]:
        """Each figure's stand-in SVG → its drawing, once every figure is drawn (waits for them)."""
        if self._drawn is None and not self._pending:
            self._drawn = {}
        if self._drawn is None:
            try:
                svgs = self._drawing()
            finally:
                self.close()
            if list(svgs) != list(self._pending):
                log.debug("figures: drawn %s, foreseen %s: the view is built again", list(svgs), list(self._pending))
                self.view = _view_of(self._result, self._theme, lambda: svgs)
                self.remade = True
                self._drawn = {}
            else:
                self._drawn = {self._pending[k]: svgs[k] for k in svgs}
        return self._drawn

    def fill(self, page: str) -> str:
        """``page`` (rendered from ``view``) with the drawings in place of their stand-ins."""
        for pending, svg in self.drawn().items():
            page = page.replace(pending, svg)
        return page

    def close(self) -> None:
        """Stop the figures' workers (figures not yet drawn are dropped)."""
        self._drawing.cancel()


def start_view(result: ComparisonResult, theme: Theme = Theme()) -> ViewInProgress:
    """:func:`build_view` without waiting for the figures: see :class:`ViewInProgress`. Close it
    (:meth:`ViewInProgress.close`) when done with it, whether or not its figures were taken."""
    return ViewInProgress(result, theme)


#: View values printed as written: the config as run and the paths of the inputs (copied out of
#: the report, they must stay byte for byte what they are) and markup (figures, the logo).
_AS_WRITTEN = frozenset({"config_yaml", "config_path", "file", "files", "logo", "figures", "class_figures"})


def _isolated_in_sentences(view: Any, names: Sequence[str]) -> Any:
    """The view with each right-to-left name (model or class) isolated (:func:`isolate`) where it
    stands inside a longer text: a verdict, a note, a warning, a caption. A value that is the name
    alone is left to the template, which prints it through :func:`wbr` (a ``<bdi>``)."""
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
        if isinstance(v, dict):
            return {k: walk(x, k) for k, x in v.items()}
        if isinstance(v, (list, tuple)):
            return type(v)(walk(x) for x in v)
        return v

    return walk(view)


def _build_view(result: ComparisonResult, theme: Theme, drawing: Any) -> dict[str, Any]:
    import reportgen.report.figures as figures  # noqa: PLC0415  (figures are only needed to render)

    palette = theme.palette or figures.PALETTE
    run = result.run
    names = list(result.models)
    col = figures.colours(names, palette)
    keys = figures.model_keys(names)
    keyed = figures.uses_keys(names)
    #: the name where a column is narrow (table headers): the key when names are long
    short = {n: keys[n] if keyed else n for n in names}
    first = next(iter(result.models.values()))
    binary = run.task == "binary"
    better_of = catalog.better("binary" if binary else "multiclass")

    models = []
    for name, m in result.models.items():
        prevalence = m.positives / (m.positives + m.negatives) if m.positives is not None and m.negatives else None
        models.append({
            "count": _positives(m) if binary else _multiclass_input(m),
            "name": name,
            "key": keys[name],
            "colour": col[name],
            "file": m.file if "://" in m.file else Path(m.file).name,  # a SQL source: URL and query
            "n": fmt_count(m.n),
            "positives": fmt_count(m.positives),
            "prevalence": fmt_pct(prevalence, 2),
            "direction": m.direction,
            "rule": model_rule(m),
            "distinct": fmt_count(m.n_distinct_scores),
            "baseline": name == run.baseline,
        })

    # ranking by the primary metric
    pm = run.primary_metric
    better = better_of.get(pm) or "higher"
    ranked = sorted(
        names,
        key=lambda n: (result.models[n].metrics.get(pm) is None,
                       -(result.models[n].metrics.get(pm) or 0) if better == "higher" else (result.models[n].metrics.get(pm) or 0)),
    )
    # a multiclass cost column only when some model has a cost (a cost matrix was configured)
    mc_costed = any(result.models[n].metrics.get("expected_cost") is not None for n in names)
    mc_ranking = ("accuracy", "balanced_accuracy", "roc_auc_ovr_macro") + (("expected_cost",) if mc_costed else ())
    ranking = []
    for rank, n in enumerate(ranked, 1):
        m = result.models[n]
        cost_opt = m.optimal_thresholds.get("expected_cost")
        if binary:
            extra = [fmt_metric(m.metrics.get("roc_auc"), "roc_auc"), fmt_metric(m.metrics.get("ks"), "ks"),
                     fmt_threshold(cost_opt.threshold) if cost_opt else "n/a",
                     fmt_num(cost_opt.value, 4) if cost_opt else "n/a"]
        else:
            extra = [fmt_metric(m.metrics.get(k), k, 4 if k == "expected_cost" else 3) for k in mc_ranking]
        ranking.append({
            "rank": rank,
            "name": n,
            "key": keys[n],
            "colour": col[n],
            "value": fmt_metric(m.metrics.get(pm), pm),
            "ci": fmt_ci(m.ci.get(pm), key=pm),
            "extra": extra,
            "baseline": n == run.baseline,
        })

    # comparisons
    comparisons = []
    # a family of one test is its own Holm adjustment: its adjusted p (= the raw p) is not shown twice
    delong_family = sum(c.tests.delong is not None and c.tests.delong.p_value_holm is not None
                        for c in result.comparisons)
    mcnemar_family = sum(c.tests.mcnemar is not None and c.tests.mcnemar.p_value_holm is not None
                         for c in result.comparisons)
    # why a metric is undefined ("no predicted positives"), under its n/a in every table
    why_undefined = {n: undefined_of(result.models[n]) for n in names}
    for c in result.comparisons:
        rows = []
        for k in (KEY_COMPARISON_METRICS if binary else KEY_MULTICLASS_METRICS):
            if k not in c.delta:
                continue
            clear = excludes_zero(c.ci.get(k))
            has_rer = c.relative_error_reductions.get(k) is not None
            # an error reduction of a baseline at the ideal 1 divides by 0: its n/a says why
            no_error = k in c.relative_error_reductions and result.models[c.baseline].metrics.get(k) == 1.0
            rows.append({
                "metric": catalog.label(k),
                "key": k,
                "baseline": fmt_metric(result.models[c.baseline].metrics.get(k), k),
                "model": fmt_metric(result.models[c.model].metrics.get(k), k),
                "delta": fmt_signed(c.delta.get(k)),
                "mark": better_mark(c.delta.get(k), better_of.get(k)),
                # a direction is not a finding: a Δ whose interval covers 0 says so beside "worse", and
                # one without an interval (bootstrap off) says that, where a bare "better" read as a result
                "ns": clear is not True and better_mark(c.delta.get(k), better_of.get(k)) in ("better", "worse"),
                "ns_note": "not significant" if clear is False else "no interval",
                "ci": fmt_ci(c.ci.get(k)),
                "relative": fmt_pct(c.relative_delta.get(k), 1, signed=True),
                "rer": fmt_pct(c.relative_error_reductions.get(k), 1, signed=True) if k in c.relative_error_reductions else "",
                # an error reduction is a headline only when the change is significant (its CI clear of 0)
                "rer_note": ("baseline has no error" if no_error else "") if not has_rer
                else "" if clear else ("not significant" if clear is False else "no interval"),
                "primary": k == pm,
            })
        # the comparison table's n/a said nothing of why (the metrics table did): one line under it
        # per model and reason (in the table's narrow column the reason took 5 lines)
        why: dict[tuple[str, str], list[str]] = {}
        for k in (KEY_COMPARISON_METRICS if binary else KEY_MULTICLASS_METRICS):
            for n in (c.baseline, c.model):
                if k in c.delta and result.models[n].metrics.get(k) is None and why_undefined[n].get(k):
                    why.setdefault((n, why_undefined[n][k]), []).append(catalog.label(k))
        alike: dict[tuple[tuple[str, ...], str], list[str]] = {}  # both models, one reason: one line
        for (n, reason), labels in why.items():
            alike.setdefault((tuple(labels), reason), []).append(n)
        undefined = [f"{'; '.join(labels)}: n/a for {' and '.join(ns)}, {reason}."
                     for (labels, reason), ns in alike.items()]
        d = c.tests.delong
        mc = c.tests.mcnemar
        comparisons.append({
            "undefined": undefined,
            "model": c.model,
            "baseline": c.baseline,
            "model_short": short[c.model],
            "baseline_short": short[c.baseline],
            "colour": col[c.model],
            "verdict": verdict(c),
            "rows": rows,
            "delong": None if d is None else {
                "delta": fmt_signed(d.delta, 4), "se": fmt_num(d.se, 4), "z": fmt_num(d.z, 2),
                "p": fmt_p(d.p_value), "p_holm": fmt_p(d.p_value_holm) if d.p_value_holm is not None and delong_family > 1 else "",
                "family": family_words(d.family, d.family_size, c.baseline),
                "ci": fmt_ci(d.ci, 4), "paired": "paired" if d.paired else "unpaired",
            },
            "mcnemar": None if mc is None else {
                "statistic": fmt_num(mc.statistic, 3), "p": fmt_p(mc.p_value),
                "p_holm": fmt_p(mc.p_value_holm) if mc.p_value_holm is not None and mcnemar_family > 1 else "",
                "family": family_words(mc.family, mc.family_size, c.baseline),
                "method": mc.method,
                # the mid-p test Fagerland, Lydersen & Laake (2013) recommend, beside the conservative one
                "mid_p": fmt_p(mc.p_value_mid_p) if mc.p_value_mid_p is not None and (mc.model_only_right or mc.baseline_only_right) else "",
                "both": fmt_count(mc.table[0][0]), "model_only": fmt_count(mc.table[0][1]),
                "baseline_only": fmt_count(mc.table[1][0]), "neither": fmt_count(mc.table[1][1]),
            },
            "notes": comparison_notes(c, result),
            "approval": approval_view(c),
            "rer_accuracy": fmt_pct(c.relative_error_reduction, 1, signed=True),
        })

    # the methods every comparison shares are said once, after them, not repeated under each
    shared_notes = [n for n in comparisons[0]["notes"] if all(n in c["notes"] for c in comparisons[1:])] \
        if len(comparisons) > 1 else []
    for c in comparisons:
        c["notes"] = [n for n in c["notes"] if n not in shared_notes]

    # metrics table
    metric_rows = []
    keys = [k for k in catalog.keys("binary") if k in first.metrics] if binary else list(first.metrics)
    for k in keys:
        vals = [result.models[n].metrics.get(k) for n in names]
        b = better_of.get(k, "higher")
        best = _best_index(vals, b)
        cells = []
        for i, n in enumerate(names):
            m = result.models[n]
            v = vals[i]
            cells.append({
                "value": fmt_metric(v, k, 4),
                "ci": fmt_ci(m.ci.get(k), key=k),
                "best": i in best,
                "reason": why_undefined[n].get(k, "") if v is None else "",
            })
        metric_rows.append({
            "key": k,
            "label": catalog.label(k),
            "better": {"higher": "↑ higher", "lower": "↓ lower"}.get(b or "", "—"),
            "cells": cells,
        })

    confusions = []
    for n, m in result.models.items():
        if m.confusion is None:
            continue
        c = m.confusion
        # the rule on a line of its own under each matrix's title: a long exact threshold
        # (0.19541665490424923) wrapped one caption of the pair, and its matrix sat lower than the other
        items = [_confusion_view(n, c.tp, c.fp, c.fn, c.tn, "at the decision threshold", f"({model_rule(m)})")]
        o = m.optimal_thresholds.get("expected_cost")
        if o is not None:
            rule = "no row predicted positive" if o.threshold is None else rule_text(m.direction, o.threshold)
            items.append(_confusion_view(n, o.tp, o.fp, o.fn, o.tn, "at the cost-optimal threshold", f"({rule})"))
        confusions.append({"model": n, "colour": col[n], "views": items})

    thresholds = []
    for n, m in result.models.items():
        rows = []
        for crit, o in m.optimal_thresholds.items():
            total = o.tp + o.fp + o.fn + o.tn
            rows.append({
                "criterion": optimum_label(crit, o, CRITERION_LABELS),
                "threshold": fmt_threshold(o.threshold),
                "value": fmt_metric(o.value, crit, 4),
                "tp": fmt_count(o.tp), "fp": fmt_count(o.fp), "fn": fmt_count(o.fn), "tn": fmt_count(o.tn),
                "approval": fmt_share((o.fn + o.tn) / total if total else None, 1),
                "flagged": fmt_share((o.tp + o.fp) / total if total else None, 1),
            })
        scen = []
        for sc in m.prevalence_shift:
            scen.append({
                "prevalence": fmt_pct(sc.prevalence, 1),
                "cells": [fmt_threshold(sc.optimal_thresholds[k].threshold) if k in sc.optimal_thresholds else "n/a"
                          for k in figures.PREVALENCE_CRITERIA],
            })
        if rows:
            thresholds.append({"model": n, "colour": col[n], "rule_t": rule_text(m.direction, "t"),
                               "tie_rule": tie_rule_text(m.direction),
                               "rows": rows, "scenarios": scen,
                               "scenario_criteria": [catalog.criterion(k).short_label for k in figures.PREVALENCE_CRITERIA]})

    import reportgen.report.credit_figures as credit_figures  # noqa: PLC0415  (figures are only needed to render)
    import reportgen.report.credit_view as credit_view  # noqa: PLC0415

    svgs = drawing()
    prefix = credit_figures.KEY_PREFIX
    credit = credit_view.credit_view(result.credit, col, level=run.confidence_level, figures={
        k[len(prefix):]: Markup(v) for k, v in svgs.items() if k.startswith(prefix)
    } if result.credit is not None else {})
    svgs = {k: v for k, v in svgs.items() if not k.startswith(prefix)}
    # a red credit result stands beside the model's verdict in the summary (or on its own line)
    credit_notes = credit_view.summary_notes(result.credit)
    for c in comparisons:
        c["credit"] = credit_notes.get(c["model"], "")
    compared = {c["model"] for c in comparisons}
    credit_verdicts = [{"colour": col.get(n, "#000000"), "text": t} for n, t in credit_notes.items() if n not in compared]
    figs = {k: Markup(v) for k, v in svgs.items()}
    # a model with predicted labels only has no curve: the caption says so, not the reader's guess
    no_curves = [n for n, m in result.models.items() if not binary and m.multiclass_curves is None]
    not_drawn = f" Not drawn (predicted classes only, no class scores): {', '.join(no_curves)}." if no_curves else ""
    class_figures = [{"svg": figs[k],
                      "caption": CLASS_FIGURE_CAPTIONS[k.rsplit("_", 1)[0] if k[-1].isdigit() else k] + not_drawn}
                     for k in figs if k.startswith(("class_roc", "class_pr"))]

    sections = [s for s in theme.sections if s in TASK_SECTIONS.get(run.task, SECTIONS)]
    toc_titles = {
        "summary": "Summary", "comparison": "Comparison with the baseline", "metrics": "Metrics",
        "confusion": "Confusion matrices", "curves": "Curves", "thresholds": "Optimal thresholds",
        "per_class": "Per-class metrics",
        "glossary": "Glossary", "appendix": "Appendix: audit trail",
        "credit": "Credit validation", "trend": "Trend over recorded runs",
    }
    # the sections a run adds when configured (credit:, history:) go before the glossary and the
    # audit trail, which close the report
    added = (["credit"] if credit else []) + (["trend"] if result.trend else [])
    closing = [i for i, s in enumerate(sections) if s in ("glossary", "appendix")]
    at = closing[0] if closing else len(sections)
    sections = sections[:at] + added + sections[at:]
    headers = [short[n] for n in names]
    wide_metrics = len(names) > 4 or sum(column_chars(headers)) > PORTRAIT_CHARS
    groups = column_groups(headers)
    return {
        "title": run.title,
        "running_title": running_title(run.title),
        "author": run.author or "",
        "created": run.created.replace("T", " ").replace("Z", " UTC"),
        "run_id": run.run_id,
        "version": run.reportgen_version,
        "task": run.task,
        "baseline": run.baseline,
        "primary_metric": catalog.label(pm),
        # the ranking's column header: the caption above it gives the gloss ("Gini (2·AUC − 1)")
        "primary_short": catalog.short_label(pm),
        "threshold": f"{run.threshold:g}",
        "beta": f"{run.beta:g}",
        # binary cost notation only in a binary report (a multiclass run's costs are a matrix)
        "costs": ", ".join(f"{k.upper()} {v:g}" for k, v in run.costs.items() if isinstance(v, (int, float)))
        if binary else "",
        "level": f"{run.confidence_level * 100:g} %",
        "resamples": fmt_count(run.bootstrap_resamples),
        "seed": str(run.bootstrap_seed),
        "rows": fmt_count(first.n),
        "prevalence": models[0]["prevalence"],
        "paired": run.paired,
        "models": models,
        "ranking": ranking,
        "comparisons": comparisons,
        "several": len(comparisons) > 1,
        "shared_notes": shared_notes,
        "metric_rows": metric_rows,
        "model_names": names,
        # column headers of the wide tables: the names, or their keys when names are long
        "model_headers": headers,
        "model_colours": [col[n] for n in names],
        "confusions": confusions,
        "thresholds": thresholds,
        "figures": figs,
        "class_figures": class_figures,
        "warnings": run.warnings,
        "sections": sections,
        "section_templates": [
            f"sections/{s}_multiclass.html" if not binary and s in MULTICLASS_TEMPLATES else f"sections/{s}.html"
            for s in sections
        ],
        "binary": binary,
        "count_header": "Positives" if binary else "Input",
        "ranking_headers": ["ROC AUC", "KS", "Recommended threshold", "Cost per row there"] if binary
        else [catalog.label(k) for k in mc_ranking],
        # each extra column's cell class: an exact threshold (17 digits) may wrap in its column,
        # where on one line it ran into the cost beside it
        "ranking_cells": ["num", "num", "num thr", "num"] if binary else ["num"] * len(mc_ranking),
        # below the ranking: the order of models the tests did not separate is only the point estimates
        "ranking_note": ranking_note(result),
        "ranking_caption": "recommended threshold minimises the expected cost" if binary
        else ("cost per row under the configured cost matrix" if mc_costed else "no cost matrix configured"),
        "keyed": keyed,
        "pairwise": _pairwise_view(result, col, short),
        # the pairwise block's Holm family, named with its size (a baseline pair keeps its comparison's)
        "pairwise_family": next((family_words(x.family, x.family_size, run.baseline) for x in result.pairwise
                                 if x.family == "challenger_pairs"), "the challenger pairs"),
        "settings_note": _settings_note(run, binary, interval_kind(result), result),
        # how the metrics table's intervals were made, said where they are shown
        "interval_methods": interval_methods(result) or "",
        "calibration_caption": _calibration_caption(result),
        "mcnemar_title": "McNemar at the decision threshold" if binary else "McNemar on correct / incorrect predictions",
        "classes": ", ".join(run.classes or []),
        # past a dozen classes the list is set small and light: 40 long labels in bold filled half
        # the title page
        "many_classes": len(run.classes or []) > MANY_CLASSES,
        "period": " to ".join(run.date_range) if run.date_range else "",
        "per_class": _per_class_view(result, names) if not binary else [],
        "per_class_ci": per_class_interval_note(result),
        "mc_confusions": _multiclass_confusions(result, col) if not binary else [],
        "toc": ([{"id": "checks", "title": "Checks"}] if result.checks else [])
        + [{"id": s, "title": toc_titles[s]} for s in sections],
        "checks": [{"rule": c.rule, "passed": c.passed, "detail": c.detail} for c in result.checks],
        "trend": _trend_view(result),
        "checks_failed": sum(not c.passed for c in result.checks),
        "credit": credit,
        "credit_verdicts": credit_verdicts,
        "files": [
            {"path": f.path, "name": Path(f.path).name, "sha256": f.sha256, "rows": fmt_count(f.rows),
             "size": fmt_count(f.size_bytes)}
            for f in run.files
        ],
        "dropped": [{"model": d.model, "reason": d.reason, "rows": fmt_count(d.rows)} for d in run.dropped],
        "versions": sorted(run.versions.items()),
        "duration": f"{run.duration_seconds:.2f} s",
        "engine": {"memory": "in memory (every row)", "stream": "streamed in record batches (bounded memory)",
                   "dask": "Dask cluster (map over parts, tree reduce)"}.get(run.engine, run.engine),
        "binning": [
            f"{n}: scores binned into {m.binning.bins:,} {m.binning.method} bins (more than "
            f"{m.binning.max_distinct_scores:,} distinct); |AUC error| ≤ {m.binning.auc_error_bound:.2g}"
            for n, m in result.models.items() if m.binning is not None
        ],
        "config_yaml": yaml.safe_dump(_config_as_run(to_jsonable(run.config), binary), sort_keys=False, allow_unicode=True,
                                      default_flow_style=None, width=100),
        "config_path": run.config_path,
        "logo": logo_data_uri(theme.logo),
        # landscape past four models, or when the model columns' headers need more than a portrait
        # page; on a landscape page (and in the HTML) the columns are split into tables that each fit
        "wide_metrics": wide_metrics,
        "metric_groups": [
            {"cols": g, "caption": (f"Models {g[0] + 1}–{g[-1] + 1} of {len(names)}; the highlighted value is "
                                    f"the best of all {len(names)}, in whichever table it falls.")
             if len(groups) > 1 else ""}
            for g in groups
        ],
        # a K×K matrix of more than 8 classes prints on landscape pages
        # (the top-confusions table of more than MAX_MATRIX_CLASSES classes has four columns: it
        # stays portrait, where 40 classes turned three short tables into three landscape pages)
        "wide_confusion": 8 < len(run.classes or []) <= MAX_MATRIX_CLASSES,
    }


#: The most characters of the title the PDF's page header repeats on every page.
RUNNING_TITLE_CHARS = 120


def running_title(title: str) -> str:
    """The title as the PDF's page header shows it: at most :data:`RUNNING_TITLE_CHARS`
    characters, a longer one cut with an ellipsis. WeasyPrint lays the header out again on
    every page, and its line breaking is slow on long unbroken text: a title of 20,000
    characters added 15 s to a 36-page PDF, one of 200,000 took it past five minutes."""
    return title if len(title) <= RUNNING_TITLE_CHARS else title[:RUNNING_TITLE_CHARS - 1].rstrip() + "…"


def _calibration_caption(result: ComparisonResult) -> str:
    """The reliability diagram's caption, naming the models it leaves out (scores that are not
    probabilities): a reader does not take a missing line for a missing model."""
    text = "Reliability diagram: marker area is proportional to the rows in the bin."
    left = [n for n, m in result.models.items() if m.curves is None or m.curves.calibration is None]
    if left:
        text += f" Not drawn (scores are not probabilities): {', '.join(left)}."
        if result.credit is not None:
            text += " A PD mapping's calibration is in the credit validation section."
    return text


def tie_rule_text(direction: str) -> str:
    """Which threshold is reported when several are optimal: the one flagging the fewest rows,
    which is the highest score for ``direction: higher`` and the lowest for ``lower``
    (the engine takes the first of the tied cuts in flagging order, :func:`reportgen.engine.binary._best`)."""
    end = "highest" if direction == "higher" else "lowest"
    return f"on ties the {end} threshold (the fewest rows flagged) is reported"


def _pairwise_view(result: ComparisonResult, col: dict[str, str], short: dict[str, str]) -> list[dict[str, Any]]:
    """Every challenger-vs-challenger pair of ``result.pairwise``, once each (first in model order
    as the row): Δ Gini (row − column model) marked better or worse, and the DeLong p-value."""
    order = {n: i for i, n in enumerate(result.models)}
    base = result.run.baseline
    rows = []
    for cell in result.pairwise:
        if base in (cell.model, cell.baseline) or order[cell.model] > order[cell.baseline]:
            continue
        rows.append({
            "model": cell.model, "other": cell.baseline,
            "model_short": short[cell.model], "other_short": short[cell.baseline],
            "colour": col[cell.model], "other_colour": col[cell.baseline],
            "delta": fmt_signed(cell.delta),
            "mark": better_mark(cell.delta, "higher"),
            "p": fmt_pvalue(cell.p_value),
            "p_holm": fmt_pvalue(cell.p_value_holm) if cell.p_value_holm is not None else "n/a",
        })
    return rows


def _settings_note(run: Any, binary: bool, kind: str | None, result: ComparisonResult | None = None) -> str:
    """The settings behind the numbers, in one sentence under the ranking (``kind``: how the
    bootstrap intervals were actually drawn, :func:`reportgen.report.wording.interval_kind`)."""
    level = f"{run.confidence_level * 100:g} %"
    boot = (f"{kind or 'stratified bootstrap'} with {fmt_count(run.bootstrap_resamples)} resamples, seed "
            f"{run.bootstrap_seed}" if run.bootstrap_resamples else "no bootstrap (resamples: 0)")
    if binary:
        methods = None if result is None else interval_methods(result, boot)
        costs = ", ".join(f"{k.upper()} {v:g}" for k, v in run.costs.items() if isinstance(v, (int, float)))
        return (f"Decision rules as in the table of models above (default threshold {run.threshold:g}); "
                f"F-beta with β = {run.beta:g}; costs {costs}; "
                + (f"intervals at {level} ({methods})." if methods else
                   "no intervals" + ("" if run.bootstrap_resamples else " (resamples: 0)") + "."))
    matrix = run.costs.get("matrix") if isinstance(run.costs, dict) else None
    costs = "the cost matrix in the appendix (rows: true class, columns: predicted)" if matrix else "no cost matrix"
    intervals = (f"intervals at {level} ({boot}, paired across models and resampled within each true class)"
                 if kind or not run.bootstrap_resamples else
                 "no intervals (without the rows multiclass metrics are not bootstrapped)")
    return (f"Predicted classes as in the table of models above; F-beta with β = {run.beta:g}; {costs}; "
            f"{intervals}.")


def _positives(m: ModelResult) -> str:
    """The models table's positives: a weighted model's are a weight, so they say so and give the
    rows beside it (a weight of 20 347.8 among 100 000 rows is not a share of 20 %)."""
    if not m.weighted:
        return fmt_count(m.positives)
    rows = f", {fmt_count(m.positives_rows)} rows" if m.positives_rows is not None else ""
    return f"{fmt_count(m.positives)} (weight{rows})"


def _multiclass_input(m: ModelResult) -> str:
    """What a multiclass model gave: class scores, a predicted label, or both."""
    scores = m.multiclass_curves is not None or m.metrics.get("roc_auc_ovr_micro") is not None
    predicted = model_rule(m).startswith("predicted class from")
    if scores and predicted:
        return "class scores + predicted label"
    return "class scores (argmax)" if scores else "predicted label"


def _per_class_view(result: ComparisonResult, names: list[str]) -> list[dict[str, Any]]:
    """One table per per-class metric: rows = classes, columns = models, best marked."""
    labels = list(result.run.classes or [])
    first = result.models[names[0]]
    tables = []
    for field, title in PER_CLASS_TABLES:
        rows = []
        for label in labels:
            vals = [((result.models[n].per_class or {}).get(label) or {}).get(field) for n in names]
            cis = [fmt_ci((result.models[n].per_class_ci.get(label) or {}).get(field), key=field) for n in names]
            best = _best_index(vals, "higher")
            support = ((first.per_class or {}).get(label) or {}).get("support")
            rows.append({
                "label": label,
                "support": fmt_count(support),
                "cells": [{"value": fmt_metric(v, field), "ci": ci, "best": i in best}
                          for i, (v, ci) in enumerate(zip(vals, cis))],
            })
        if any(c["value"] != "n/a" for r in rows for c in r["cells"]):
            tables.append({"title": title, "rows": rows})
    return tables


def _multiclass_confusions(result: ComparisonResult, col: dict[str, str]) -> list[dict[str, Any]]:
    """Each model's K×K matrix as shaded cells (counts and row shares), or its top confusions."""
    out = []
    for n, m in result.models.items():
        cm = m.confusion_matrix
        if cm is None:
            continue
        k = len(cm.labels)
        totals = [sum(row) for row in cm.matrix]
        rows = []
        for i, row in enumerate(cm.matrix):
            cells = []
            for j, v in enumerate(row):
                share = v / totals[i] if totals[i] else None
                cells.append({
                    "count": fmt_count(v),
                    "share": fmt_share(share) if share is not None else "",
                    "shade": f"{0.06 + 0.6 * (share or 0.0):.2f}",
                    "diag": i == j,
                })
            rows.append({"label": cm.labels[i], "cells": cells, "total": fmt_count(totals[i])})
        predicted = [sum(cm.matrix[i][j] for i in range(k)) for j in range(k)]
        off = sorted(((cm.matrix[i][j], i, j) for i in range(k) for j in range(k) if i != j and cm.matrix[i][j] > 0),
                     key=lambda t: (-t[0], t[1], t[2]))[:15]
        out.append({
            "model": n,
            "colour": col[n],
            "labels": cm.labels,
            "full": k <= MAX_MATRIX_CLASSES,
            "rows": rows,
            "predicted": [fmt_count(v) for v in predicted],
            "total": fmt_count(sum(totals)),
            "top": [{"true": cm.labels[i], "predicted": cm.labels[j], "count": fmt_count(v),
                     "share": fmt_share(v / totals[i] if totals[i] else None, 1)} for v, i, j in off],
        })
    return out


# --------------------------------------------------------------------------------------
# Jinja environment
# --------------------------------------------------------------------------------------


def default_template_dir() -> Path:
    """The shipped templates (``templates/`` in the repo, ``reportgen/templates`` in the wheel)."""
    repo = Path(__file__).resolve().parents[2] / "templates"
    if (repo / "report.html").exists():
        return repo
    return Path(str(resources.files("reportgen.templates")))


class _ConfinedLoader(FileSystemLoader):
    """A FileSystemLoader that refuses template names escaping its directory."""

    def get_source(self, environment: Environment, template: str):  # type: ignore[override]
        parts = Path(template.replace("\\", "/")).parts
        if template.startswith(("/", "\\")) or ".." in parts or (parts and ":" in parts[0]):
            raise ThemeError(
                f"{self.searchpath[0]}: template {template!r} points outside the template directory; "
                f"a theme may include only its own files and the shipped templates"
            )
        source, filename, uptodate = super().get_source(environment, template)
        root = Path(self.searchpath[0]).resolve()
        if not Path(filename).resolve().is_relative_to(root):  # a symlink leading out
            raise ThemeError(
                f"{self.searchpath[0]}: template {template!r} points outside the template directory (symlink); "
                f"a theme may include only its own files and the shipped templates"
            )
        return source, filename, uptodate


#: A number and the per cent sign after it (``9.95 %``): joined by a no-break space on output.
_NUMBER_PERCENT = re.compile(r"(?<=\d) %")


def keep_units(value: Any) -> Any:
    """The environment's ``finalize``: in every text value a template prints, the space between a
    number and its per cent sign is a no-break space, so a line never ends "at 10.2" with "%" on
    the next line (nor "97.5" over "% CI"). Markup (figures, names broken by :func:`wbr`) is left
    as it is; the text reads and copies as before."""
    if isinstance(value, str) and not isinstance(value, Markup) and " %" in value:
        return _NUMBER_PERCENT.sub("\u00a0%", value)
    return value


#: The longest string or sequence a template may build with ``*``, and the largest power it may
#: raise an integer to: a theme's ``{{ 'a' * 10**9 }}`` would otherwise fill the memory and the
#: report (Jinja's sandbox bounds ``range`` only).
MAX_REPEAT = 1_000_000
MAX_POWER = 10_000


class _ReportSandbox(ImmutableSandboxedEnvironment):
    """The sandbox, with ``*`` and ``**`` bounded (:data:`MAX_REPEAT`, :data:`MAX_POWER`)."""

    intercepted_binops = frozenset({"*", "**"})

    def call_binop(self, context: Any, operator: str, left: Any, right: Any) -> Any:
        if operator == "*":
            for seq, times in ((left, right), (right, left)):
                if isinstance(seq, (str, bytes, list, tuple)) and isinstance(times, int) and len(seq) * times > MAX_REPEAT:
                    raise SecurityError(f"a repetition longer than {MAX_REPEAT:,} items")
        elif operator == "**" and isinstance(left, int) and isinstance(right, int) and abs(right) > MAX_POWER and abs(left) > 1:
            raise SecurityError(f"a power above {MAX_POWER:,}")
        return super().call_binop(context, operator, left, right)


def make_environment(theme: Theme = Theme()) -> Environment:
    loaders = []
    if theme.template_dir is not None:
        loaders.append(_ConfinedLoader(str(theme.template_dir)))
    loaders.append(_ConfinedLoader(str(default_template_dir())))
    # The sandbox: a template (a theme's, or one named by anything the user did not write) can
    # display values but never reach Python internals (``cycler.__init__.__globals__.os``, …) nor
    # mutate the view model.
    env = _ReportSandbox(
        loader=ChoiceLoader(loaders),
        autoescape=select_autoescape(enabled_extensions=("html", "xml", "j2"), default=True, default_for_string=True),
        undefined=StrictUndefined,
        trim_blocks=True,
        lstrip_blocks=True,
        keep_trailing_newline=True,
        finalize=keep_units,
    )
    env.filters.update(fmt_num=fmt_num, fmt_pct=fmt_pct, fmt_pvalue=fmt_pvalue, fmt_p=fmt_p, fmt_ci=fmt_ci, fmt_count=fmt_count, wbr=wbr,
                       fmt_points=fmt_points, fmt_ci_pct=fmt_ci_pct, fmt_share_of_sum=fmt_share_of_sum)
    return env


_LAST_ENVIRONMENT: list[tuple[Path | None, Environment]] = []


def _environment(theme: Theme) -> Environment:
    """:func:`make_environment` of the theme's template directory, kept for the next page of the
    same directory: a report set renders two pages (HTML and the PDF's), and compiling the
    templates took about as long as rendering them. Jinja re-reads a template whose file
    changed (``auto_reload``), through the same confined loader."""
    key = theme.template_dir
    if not _LAST_ENVIRONMENT or _LAST_ENVIRONMENT[0][0] != key:
        _LAST_ENVIRONMENT[:] = [(key, make_environment(theme))]
    return _LAST_ENVIRONMENT[0][1]


def compile_templates(theme: Theme = Theme()) -> None:
    """Compile the theme's page templates ahead of its first page, for :func:`render_html` to
    find (the report process, :mod:`reportgen.report.documents`, does it while the data is read: it
    took about 0.13 s of CPU, more than rendering a page from compiled templates)."""
    env = _environment(theme)
    for name in env.list_templates(filter_func=lambda n: n.endswith(".html")):
        env.get_template(name)


def render_html(
    result: ComparisonResult, theme: Theme = Theme(), for_pdf: bool = False, view: dict[str, Any] | None = None
) -> str:
    """The report as one self-contained HTML page (``for_pdf``: the print flavour for WeasyPrint)."""
    env = _environment(theme)
    view = build_view(result, theme) if view is None else view
    css = env.loader.get_source(env, "report.css")[0]  # type: ignore[union-attr]
    script = (default_template_dir() / "sort.js").read_text(encoding="utf-8")
    with theme_errors(theme):  # here, before the writer takes a TemplateNotFound (an OSError) for a disk error
        page = env.get_template("report.html").render(view=view, css=Markup(css), script=Markup(script), for_pdf=for_pdf)
    return _with_content_policy(page, script)


def _with_content_policy(page: str, script: str) -> str:
    """The page with a Content-Security-Policy that lets a browser fetch nothing.

    Inserted by code after ``<head>`` (or first, when a theme's page has no head), so no theme
    can drop it: images and fonts only from inline ``data:`` URLs, inline styles, and only the
    shipped table-sorting script (by its hash); no network, no file, no other script.
    """
    digest = base64.b64encode(hashlib.sha256(script.encode("utf-8")).digest()).decode("ascii")
    policy = (
        "default-src 'none'; img-src data:; font-src data:; style-src 'unsafe-inline'; "
        f"script-src 'sha256-{digest}'; base-uri 'none'; form-action 'none'"
    )
    meta = f'<meta http-equiv="Content-Security-Policy" content="{policy}">'
    head = re.search(r"<head(\s[^>]*)?>", page, re.IGNORECASE)
    if head is None:
        return meta + "\n" + page
    return page[: head.end()] + "\n" + meta + page[head.end():]


def _decode_data_url(url: str) -> tuple[bytes, str]:
    """Body and media type of an RFC 2397 ``data:`` URL (decoded here; nothing is opened)."""
    header, sep, payload = url[5:].partition(",")
    if not sep:
        raise ValueError(f"malformed data URL ({url[:80]})")
    parts = header.split(";")
    mime = parts[0] or "text/plain"
    if parts[-1].lower() == "base64":
        return base64.b64decode(unquote_to_bytes(payload)), mime
    return unquote_to_bytes(payload), mime


def _refuse_urls(url: str, *_: Any, **__: Any) -> dict[str, Any]:
    """Resolve a URL for WeasyPrint: inline ``data:`` URLs only, nothing from network or disk.

    Returns the classic fetcher dict (``string``, ``mime_type``); ``_LocalOnlyFetcher`` wraps
    it for WeasyPrint ≥ 68, whose fetchers are ``URLFetcher`` objects.
    """
    if url.startswith("data:"):
        body, mime = _decode_data_url(url)
        return {"string": body, "mime_type": mime}
    raise ValueError(f"reportgen does not fetch external resources ({url[:80]})")


def _url_fetcher() -> Any:
    """The fetcher object or function this WeasyPrint version expects, refusing all but data:."""
    import weasyprint.urls as wurls  # noqa: PLC0415

    if not hasattr(wurls, "URLFetcher"):  # WeasyPrint < 68: a plain function
        return lambda url, *a, **k: _refuse_urls(url)

    class _LocalOnlyFetcher(wurls.URLFetcher):  # type: ignore[misc, name-defined]
        def fetch(self, url: str, headers: Any = None) -> Any:
            got = _refuse_urls(url)
            return wurls.URLFetcherResponse(url, got["string"], {"Content-Type": got["mime_type"]})

    return _LocalOnlyFetcher(allowed_protocols={"data"}, allow_redirects=False)


@contextmanager
def _quiet(*names: str) -> Iterator[None]:
    """Raise the named loggers (and their children) to ERROR for one call, then restore them.

    WeasyPrint's and fontTools' notes on CSS they ignore and fonts they subset are noise in a
    report run; they are kept out only while reportgen's own PDF is laid out, so other code in
    the process (an Airflow task) keeps those libraries' loggers as it configured them.
    """
    loggers = [logging.getLogger(n) for n in names]
    before = [lg.level for lg in loggers]
    for lg in loggers:
        if lg.getEffectiveLevel() < logging.ERROR:
            lg.setLevel(logging.ERROR)
    try:
        yield
    finally:
        for lg, level in zip(loggers, before):
            lg.setLevel(level)


#: Archival PDF variants ``--pdf-variant`` offers: PDF/A-3 is the part of ISO 19005 that allows
#: embedded files (``metrics.json`` travels inside the PDF); b = visual appearance, u = also
#: Unicode text.
PDF_VARIANTS = ("pdf/a-3b", "pdf/a-3u")


#: CSS that needs the user-agent rules :func:`reportgen.report.weasyprint_tuning.html_class` leaves out
_UA_NEEDED = re.compile(r"footnote|list-item|::?marker|\bnote-(?:call|marker|callback)", re.IGNORECASE)
#: a page's stylesheets and style attributes
_PAGE_CSS = re.compile(r"<style\b[^>]*>(.*?)</style>|\sstyle=\"([^\"]*)\"", re.DOTALL | re.IGNORECASE)


def render_pdf(html: str, target: Path, variant: str | None = None, attachments: dict[str, bytes] | None = None,
               when: str | None = None, figures: Callable[[], dict[str, str]] | None = None,
               check_fonts: bool = True) -> None:
    """Lay ``html`` out as a PDF at ``target``.

    ``variant`` (one of :data:`PDF_VARIANTS`): an archival PDF/A file (WeasyPrint's
    ``pdf_variant``: sRGB output intent, XMP metadata, a document identifier), tagged where the
    installed WeasyPrint can (``pdf_tags``, WeasyPrint ≥ 67), with ``attachments`` (file name →
    bytes) embedded; ``when`` (ISO 8601, the run's timestamp) dates the attachments so the same
    run gives the same file.

    ``figures`` (:meth:`ViewInProgress.drawn`): ``html`` holds figures still being drawn, as
    empty SVGs of their sizes; the page is laid out with them, then ``figures()`` gives each
    one's drawing (stand-in → drawn SVG), drawn in its place when the page is painted. The PDF
    is the one ``html`` with the drawings gives, byte for byte: a drawing whose stated size
    differs from its stand-in's, or a WeasyPrint that cannot take the drawings after the
    layout, has the page laid out again with them. Why: the layout (about 1 s for a
    three-model report, on one core) then runs while the other core draws the figures.

    ``check_fonts``: warn (this module's logger, one line) when ``html`` has characters no
    installed font can draw (:func:`reportgen.report.fonts.undrawable`), as the PDF prints them as
    empty boxes; off for a second layout of the same page.
    """
    import reportgen.report.figures as drawing  # noqa: PLC0415  (figures are only needed to render)
    import reportgen.report.weasyprint_tuning as tuning  # noqa: PLC0415  (likewise)

    weasyprint = tuning.import_weasyprint()
    if check_fonts:  # characters no installed font has print as empty boxes: say so, once a render
        from reportgen.report.fonts import undrawable, undrawable_warning  # noqa: PLC0415

        if (warning := undrawable_warning(undrawable([html]))) is not None:
            log.warning("%s", warning)

    options: dict[str, object] = {}
    with ExitStack() as stack:
        if variant is not None:
            if variant not in PDF_VARIANTS:
                raise ValueError(f"unknown PDF variant {variant!r}; choose from {', '.join(PDF_VARIANTS)}")
            options["pdf_variant"] = variant
            if "pdf_tags" in weasyprint.DEFAULT_OPTIONS:
                options["pdf_tags"] = True
            stamp = datetime.fromisoformat(when.replace("Z", "+00:00")) if when else None
            folder = Path(stack.enter_context(tempfile.TemporaryDirectory(prefix="reportgen-attach-")))
            files = []
            for name, data in (attachments or {}).items():
                # a file, not a string: every WeasyPrint since 63 names the attachment after it
                (folder / name).write_bytes(data)
                files.append(weasyprint.Attachment(filename=str(folder / name), created=stamp, modified=stamp,
                                                   relationship="Data", description=f"{name} of this report"))
            options["attachments"] = files
        options = {**weasyprint.DEFAULT_OPTIONS, **options}
        with _quiet("weasyprint", "fontTools"), young_collections_only(), tuning.svg_text_runs():
            page = drawing.pdf_figures(html)  # the same figures as images of fewer SVG nodes: laid out faster
            # the lean user-agent stylesheet (reportgen.report.weasyprint_tuning) unless a theme's CSS
            # uses what it leaves out: footnotes, or list items other than <li>
            css = " ".join(a or b for a, b in _PAGE_CSS.findall(page))
            html_class = weasyprint.HTML if _UA_NEEDED.search(css) else tuning.html_class()
            document = html_class(string=page, url_fetcher=_url_fetcher(), base_url=None).render(**options)
            if figures is not None and not _draw_pending(document, figures(), tuning):
                for pending, svg in figures().items():
                    html = html.replace(pending, svg)
                page = drawing.pdf_figures(html)
                document = html_class(string=page, url_fetcher=_url_fetcher(), base_url=None).render(**options)
            document.write_pdf(str(target), **options)


def _draw_pending(document: Any, drawn: dict[str, str], tuning: Any) -> bool:
    """``document``'s stand-in figures drawn from their drawings (``drawn``: stand-in SVG →
    drawn SVG; :func:`render_pdf`), if each drawing states its stand-in's size and WeasyPrint
    takes them (:func:`reportgen.report.weasyprint_tuning.redraw_svg_images`)."""
    import reportgen.report.figures as drawing  # noqa: PLC0415

    def url(svg: str) -> str:  # the image's URL as drawing.pdf_figures writes it
        return "data:image/svg+xml;base64," + base64.b64encode(svg.encode("utf-8")).decode("ascii")

    swaps: dict[str, tuple[str, bytes]] = {}
    for pending, svg in drawn.items():
        if drawing.svg_size(pending) != drawing.svg_size(svg):
            log.debug("figures: a drawing states %s, its stand-in %s: laid out again",
                      drawing.svg_size(svg), drawing.svg_size(pending))
            return False
        lean = drawing.pdf_svg(svg)
        swaps[url(drawing.pdf_svg(pending))] = (url(lean), lean.encode("utf-8"))
    return tuning.redraw_svg_images(document, swaps)


# a JSON string (kept as it is: a query or a title holding "[1,2]" is recorded as written), or a list of numbers
_NUMBER_LIST = re.compile(r'"(?:[^"\\]|\\.)*"|\[\s*((?:-?[\d.eE+-]+|null)(?:,\s*(?:-?[\d.eE+-]+|null))*)\s*\]')


def result_json(result: ComparisonResult) -> str:
    """metrics.json text: indented objects, lists of numbers (curves, CIs) on one line each;
    string values exactly as ``json.dumps`` wrote them."""
    text = json.dumps(result.to_json(), indent=2, ensure_ascii=False, allow_nan=False)
    return _NUMBER_LIST.sub(lambda m: m.group(0) if m.group(1) is None else
                            "[" + ", ".join(x.strip() for x in m.group(1).split(",")) + "]", text) + "\n"


@contextmanager
def theme_errors(theme: Theme) -> Iterator[None]:
    """A broken custom theme is the user's to fix; a broken shipped template stays a bug."""
    from jinja2 import TemplateNotFound, TemplateSyntaxError, UndefinedError  # noqa: PLC0415

    try:
        yield
    except SecurityError as exc:
        if theme.template_dir is None:
            raise
        raise ThemeError(
            f"{theme.template_dir}: the theme tried something templates may not do ({exc}); "
            f"a template may only display the report's values"
        ) from None
    except UndefinedError as exc:
        if theme.template_dir is None:
            raise
        raise ThemeError(f"{theme.template_dir}: a template uses an undefined value ({exc.message})") from None
    except TemplateSyntaxError as exc:
        if theme.template_dir is None:
            raise
        raise ThemeError(f"{exc.filename or theme.template_dir}:{exc.lineno}: template syntax error: {exc.message}") from None
    except TemplateNotFound as exc:
        if theme.template_dir is None:
            raise
        raise ThemeError(f"{theme.template_dir}: template {exc.name!r} not found in the theme or the shipped templates") from None
    except ReportgenError:
        raise
    except Exception as exc:  # a theme's expression failed at render time ({{ 1/0 }}, {{ 1 + "a" }})
        where = _theme_frame(exc, theme.template_dir) if theme.template_dir is not None else None
        if where is None:  # not raised in the theme's own templates: ours
            raise
        message = " ".join(str(exc).split()) or type(exc).__name__
        raise ThemeError(f"{where}: the template failed while rendering ({type(exc).__name__}: {message}); "
                         f"fix the expression in the theme") from None


def _theme_frame(exc: BaseException, template_dir: str | Path) -> str | None:
    """``file:line`` of the innermost traceback frame inside the theme's directory, if any
    (Jinja compiles each template with its file name, so its frames carry the template's lines)."""
    root = os.path.realpath(template_dir)
    found = None
    for frame in traceback.extract_tb(exc.__traceback__):
        name = os.path.realpath(frame.filename) if frame.filename else ""
        if name.startswith(root + os.sep):
            found = f"{frame.filename}:{frame.lineno}"
    return found


#: The largest ``metrics.json`` :func:`load_result` reads (a 40-model run with ``--full-curves``
#: is a few MB): a bound on the memory a received file can take.
MAX_RESULT_BYTES = 256 * 1024 * 1024


class _RepeatedKey(ValueError):
    def __init__(self, key: str) -> None:
        super().__init__(key)
        self.key = key


class _NotANumber(ValueError):
    """A JSON number no metrics.json holds: NaN, ±Infinity, one too large for a float (1e999
    read as inf), or an integer too long for Python to read (more than 4,300 digits)."""


def _finite_float(text: str) -> float:
    value = float(text)
    if not math.isfinite(value):
        raise _NotANumber(f"the number {text[:40]} is too large for a float")
    return value


def _bounded_int(text: str) -> int:
    if len(text) > 400:  # a count or a seed has at most 20 digits; Python refuses 4,300 (ValueError)
        raise _NotANumber(f"an integer of {len(text)} digits")
    return int(text)


def _no_constant(name: str) -> float:
    raise _NotANumber(f"{name} is not a JSON number; a reportgen metrics.json writes an undefined value as null")


def _object_without_repeats(pairs: list[tuple[str, Any]]) -> dict[str, Any]:
    """A JSON object, refusing a key given twice (``json`` keeps the last silently, so a received
    file could show one value to a reader of the text and another to the report)."""
    out = dict(pairs)
    if len(out) != len(pairs):
        seen: set[str] = set()
        for key, _ in pairs:
            if key in seen:
                raise _RepeatedKey(key)
            seen.add(key)
    return out


def read_result(path: str | Path) -> tuple[ComparisonResult, bytes]:
    """Read a saved ``metrics.json`` back into a result, with the exact bytes it was parsed from
    (``reportgen render`` keeps those bytes in its report set: one read, so the kept file is the
    one rendered even if the path is replaced meanwhile).

    A received file is data: a FIFO or device is refused (never blocks), the size is bounded by
    :data:`MAX_RESULT_BYTES`, nesting too deep for the parser and every schema problem are a
    :class:`~reportgen.errors.UserError` of one line.
    """
    p = Path(path)
    raw = read_user_file(p, MAX_RESULT_BYTES, UserError, "pass the metrics.json of a previous run")
    try:
        # a BOM (an editor on Windows saved the file) is no part of the JSON text
        data = json.loads(raw.decode("utf-8-sig"), object_pairs_hook=_object_without_repeats, parse_float=_finite_float,
                          parse_int=_bounded_int, parse_constant=_no_constant)
    except _NotANumber as exc:
        raise UserError(f"{p}: not a reportgen metrics.json ({exc})") from None
    except _RepeatedKey as exc:
        raise UserError(f"{p}: key {exc.key!r} is given twice in one object; a reportgen metrics.json "
                        f"never repeats a key (which value was meant?)") from None
    except (json.JSONDecodeError, UnicodeDecodeError) as exc:
        raise UserError(f"{p}: not a reportgen metrics.json ({exc})") from None
    except RecursionError:
        raise UserError(f"{p}: not a reportgen metrics.json (it nests too deeply)") from None
    try:
        return ComparisonResult.from_json(data, source=str(p)), raw
    except (KeyError, TypeError, ValueError) as exc:
        raise UserError(f"{p}: not a reportgen metrics.json (missing or malformed {exc})") from None
    except RecursionError:
        raise UserError(f"{p}: not a reportgen metrics.json (it nests too deeply)") from None


def load_result(path: str | Path) -> ComparisonResult:
    """Read a saved ``metrics.json`` back into a result (see :func:`read_result`)."""
    return read_result(path)[0]


__all__ = ["render_html", "build_view", "load_result", "read_result", "Theme", "fmt_num", "fmt_pct", "fmt_pvalue", "fmt_ci"]
