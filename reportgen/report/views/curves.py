"""The curves section: the drawn figures (markup) and their captions."""

from __future__ import annotations

from collections.abc import Mapping
from dataclasses import dataclass

from markupsafe import Markup

from reportgen.results import ComparisonResult

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
    )


def calibration_caption(result: ComparisonResult) -> str:
    """The reliability diagram's caption, naming the models it leaves out (scores that are not
    probabilities): a reader does not take a missing line for a missing model."""
    text = "Reliability diagram: marker area is proportional to the rows in the bin."
    left = [n for n, m in result.models.items() if m.curves is None or m.curves.calibration is None]
    if left:
        text += f" Not drawn (scores are not probabilities): {', '.join(left)}."
        if result.credit is not None:
            text += " A PD mapping's calibration is in the credit validation section."
    return text
