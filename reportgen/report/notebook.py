"""A result in a notebook: the summary and the key figures as one HTML fragment.

:func:`result_html` is what ``ComparisonResult._repr_html_`` shows in Jupyter (registered with
:func:`reportgen.results.set_html_display` when this module is imported, which the public API
does): the verdicts, the ranking by the primary metric with its interval, the warnings, and two
figures (binary: ROC curves and the forest plot of the primary metric's Δ; multiclass: the
forest plot and the one-vs-rest ROC panels). Rendered through the report's sandboxed Jinja
environment (template ``notebook.html``, autoescaped) with the report's number filters; the
figures are drawn on ``matplotlib.figure.Figure`` objects, so the notebook's matplotlib backend
and pyplot state are never touched. About 0.2 s for the demo (the full report view draws all ten
figures and takes seconds, too slow for a repr).
"""

from __future__ import annotations

from typing import Any

from markupsafe import Markup

import reportgen.catalog as catalog
from reportgen.report.formats import fmt_ci, fmt_count, fmt_num
from reportgen.report.render import make_environment
from reportgen.report.views.credit import summary_notes
from reportgen.report.wording import ranking_note, verdict
from reportgen.results import ComparisonResult, set_html_display

#: The figures shown inline, by task, in this order (keys of figures.FIGURES / MULTICLASS_FIGURES).
KEY_FIGURES = {"binary": ("roc", "forest"), "multiclass": ("forest", "class_roc")}

#: Captions of the inline figures.
CAPTIONS = {
    "roc": "ROC curves; the dot is each model's operating point at its decision threshold",
    "forest": "Difference from the baseline in the primary metric, with its confidence interval",
    "class_roc": "One-vs-rest ROC curve of every class",
}


def ranked(result: ComparisonResult) -> list[str]:
    """Model names best first by the primary metric (undefined values last; ties keep config order)."""
    pm = result.run.primary_metric
    higher = (catalog.better(result.run.task).get(pm) or "higher") == "higher"

    def key(name: str) -> tuple[bool, float]:
        v = result.models[name].metrics.get(pm)
        return (v is None, 0.0 if v is None else (-v if higher else v))

    return sorted(result.models, key=key)


def notebook_view(result: ComparisonResult, with_figures: bool = True) -> dict[str, Any]:
    """What ``notebook.html`` shows, as formatted strings (``with_figures``: draw the SVGs)."""
    import reportgen.report.figures as figures  # noqa: PLC0415  (matplotlib, when a result is shown)

    run = result.run
    pm = run.primary_metric
    col = figures.model_colours(result)
    table = figures.FIGURES if run.task == "binary" else figures.MULTICLASS_FIGURES
    figs = []
    for key in KEY_FIGURES[run.task]:
        drawn = table[key](result) if with_figures else None
        # a figure in parts (per-class panels of many classes, nine a figure) shows every part
        for fig in drawn if isinstance(drawn, list) else [drawn]:
            if fig is not None:
                # a full-width figure (the forest plot, the per-class panels) is shown at its own
                # width: squeezed into a half-width box beside the ROC its labels printed at 6 px
                wide = fig.get_figwidth() > figures.HALF_WIDTH * 1.5
                figs.append({"svg": Markup(figures.to_svg(fig)), "caption": CAPTIONS[key], "wide": wide})
    first = next(iter(result.models.values()))
    credit = summary_notes(result.credit)
    return {
        "title": run.title,
        "task": run.task,
        "rows": fmt_count(first.n),  # "6 000", as the report writes it
        "models": len(result.models),
        "created": run.created.replace("T", " ").replace("Z", " UTC"),
        "primary_metric": catalog.label(pm),
        "level": f"{run.confidence_level * 100:g} %",
        # a red credit result stands beside the model's verdict, as in the report's summary
        "verdicts": [
            {"colour": col[c.model], "text": " ".join(filter(None, (verdict(c), credit.get(c.model))))}
            for c in result.comparisons
        ]
        + [{"colour": col[n], "text": t} for n, t in credit.items() if n not in {c.model for c in result.comparisons}],
        "ranking": [
            {
                "rank": i,
                "name": n,
                "colour": col[n],
                "baseline": n == run.baseline,
                "value": fmt_num(result.models[n].metrics.get(pm)),
                "ci": fmt_ci(result.models[n].ci.get(pm), key=pm),
            }
            for i, n in enumerate(ranked(result), 1)
        ],
        "ranking_note": ranking_note(result),  # the order of models the tests did not separate
        "warnings": list(run.warnings),
        "figures": figs,
    }


def result_html(result: ComparisonResult, with_figures: bool = True) -> str:
    """The notebook display of ``result``: an autoescaped HTML fragment (no script, no external URL)."""
    env = make_environment()
    return env.get_template("notebook.html").render(view=notebook_view(result, with_figures))


set_html_display(result_html)

__all__ = ["CAPTIONS", "KEY_FIGURES", "notebook_view", "ranked", "result_html"]
