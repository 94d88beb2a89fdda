"""The curves section: the drawn figures (markup) and their captions."""

from __future__ import annotations

from collections.abc import Mapping
from dataclasses import dataclass

from markupsafe import Markup

from reportgen.report.formats import fmt_count
from reportgen.report.reliability import MIN_BIN_ROWS, reliability_of
from reportgen.report.wording import binning_words
from reportgen.results import ComparisonResult

#: The reliability diagram's bins (equal width, as the engine draws them), as column heads.
CALIBRATION_BINS = tuple(f"{k / 10:g}–{(k + 1) / 10:g}" for k in range(10))

#: Captions of the per-class figures (drawn in parts of nine panels when there are many classes).
CLASS_FIGURE_CAPTIONS = {
    "class_roc": (
        "One-vs-rest ROC of each class (its score column against all other classes), models overlaid, "
        "AUC in the legend; the last panel pools every (row, class) cell (micro-average)."
    ),
    "class_pr": "One-vs-rest precision–recall of each class, models overlaid.",
}


@dataclass(frozen=True, slots=True)
class ClassFigure:
    svg: Markup
    caption: str


@dataclass(frozen=True, slots=True)
class CurvesView:
    #: figure key (roc, pr, gains, cost, thresholds, ks, distributions, calibration, prevalence,
    #: forest, class_roc…) → its SVG
    figures: Mapping[str, Markup]
    class_figures: tuple[ClassFigure, ...]
    calibration_caption: str
    #: the rows in each reliability bin, per model drawn: (model, ten cells, "–" for an empty bin)
    calibration_counts: tuple[tuple[str, tuple[str, ...]], ...]
    calibration_bins: tuple[str, ...] = CALIBRATION_BINS


def calibration_counts(result: ComparisonResult) -> tuple[tuple[str, tuple[str, ...]], ...]:
    """The rows behind each marker of the reliability diagram, per model drawn (its probabilities
    or its PD column: :func:`reportgen.plot.reliability_of`); a bin's index is that of its mean
    predicted value, which lies inside it."""
    rows = []
    for name in result.models if result.run.task == "binary" else ():
        c, _ = reliability_of(result, name)
        if c is None:
            continue
        cells = ["–"] * 10
        for mp, n in zip(c.mean_predicted, c.counts):
            cells[min(int(mp * 10), 9)] = fmt_count(n)
        rows.append((name, tuple(cells)))
    return tuple(rows)


def curves_view(result: ComparisonResult, svgs: Mapping[str, str]) -> CurvesView:
    """The section of the figures ``svgs`` (key → SVG text, the credit section's left out)."""
    figs = {k: Markup(v) for k, v in svgs.items()}
    # a model with predicted labels only has no curve: the caption says so, not the reader's guess
    no_curves = [n for n, m in result.models.items() if result.run.task != "binary" and m.multiclass_curves is None]
    not_drawn = f" Not drawn (predicted classes only, no class scores): {', '.join(no_curves)}." if no_curves else ""
    return CurvesView(
        figures=figs,
        class_figures=tuple(
            ClassFigure(
                svg=figs[k], caption=CLASS_FIGURE_CAPTIONS[k.rsplit("_", 1)[0] if k[-1].isdigit() else k] + not_drawn
            )
            for k in figs
            if k.startswith(("class_roc", "class_pr"))
        ),
        calibration_caption=calibration_caption(result),
        calibration_counts=calibration_counts(result),
    )


def calibration_caption(result: ComparisonResult) -> str:
    """The reliability diagram's caption: its bins (binary: ten equal-width, whatever the
    calibration section's ``calibration:`` bins are, which it then names), and the models it leaves
    out (scores that are not probabilities, no PD column) and those drawn from their PD column: a
    reader does not take a missing line for a missing model."""
    binary = result.run.task == "binary"
    bins = f" on {binning_words(len(CALIBRATION_BINS), 'uniform')}" if binary else ""
    text = (
        f"Reliability diagram{bins}: marker area is proportional to the rows in the bin (counts below); hollow "
        f"markers are bins of fewer than {MIN_BIN_ROWS} rows, left out of the line."
    )
    if not binary:
        return text
    configured = next((m.calibration for m in result.models.values() if m.calibration is not None), None)
    if configured is not None and (configured.bins, configured.strategy) != (len(CALIBRATION_BINS), "uniform"):
        text += f" The calibration section bins as configured: {binning_words(configured.bins, configured.strategy)}."
    drawn = {n: reliability_of(result, n) for n in result.models}
    from_pd = [n for n, (c, pd) in drawn.items() if c is not None and pd]
    left = [n for n, (c, _) in drawn.items() if c is None]
    if from_pd:
        text += f" Drawn from the PD column (scores are not probabilities): {', '.join(from_pd)}."
    if left:
        text += f" Not drawn (scores are not probabilities): {', '.join(left)}."
        if result.credit is not None:
            text += " A PD mapping's calibration is in the credit validation section."
    return text
