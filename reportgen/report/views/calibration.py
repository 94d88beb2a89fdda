"""The calibration section: each probability model's ECE, MCE, Brier decomposition and skill with
intervals, its per-bin observed rates with Clopper–Pearson intervals, and each challenger's
differences (numbers from ``ModelResult.calibration`` and ``Comparison.calibration``, formatted
through :mod:`reportgen.report.formats`)."""

from __future__ import annotations

from dataclasses import dataclass

from reportgen.report.formats import fmt_ci, fmt_count, fmt_num, fmt_pct, fmt_signed
from reportgen.report.views.common import Models
from reportgen.report.wording import binning_words
from reportgen.results import ComparisonResult

#: The summary rows: key, label, what a better value is.
ROWS = (
    ("ece", "Expected calibration error (ECE)", "lower"),
    ("mce", "Maximum calibration error (MCE)", "lower"),
    ("brier", "Brier score", "lower"),
    ("reliability", "Reliability (Murphy)", "lower"),
    ("resolution", "Resolution (Murphy)", "higher"),
    ("uncertainty", "Uncertainty ō(1 − ō)", "—"),
    ("brier_skill", "Brier skill score", "higher"),
)


@dataclass(frozen=True, slots=True)
class CalibrationCell:
    value: str
    ci: str


@dataclass(frozen=True, slots=True)
class CalibrationRow:
    label: str
    better: str
    cells: tuple[CalibrationCell, ...]


@dataclass(frozen=True, slots=True)
class BinRow:
    mean_predicted: str
    observed: str
    ci: str
    rows: str


@dataclass(frozen=True, slots=True)
class ModelBins:
    model: str
    colour: str
    rows: tuple[BinRow, ...]


@dataclass(frozen=True, slots=True)
class CalibrationView:
    #: models with a calibration, in report order
    models: tuple[str, ...]
    summary: tuple[CalibrationRow, ...]
    #: the challengers' differences with the baseline (same rows), their columns
    challengers: tuple[str, ...]
    deltas: tuple[CalibrationRow, ...]
    bins: tuple[ModelBins, ...]
    binning: str
    methods: str
    baseline: str
    #: "champion (scores not probabilities)", or ""
    left_out: str
    #: why there is no table of differences though several models are calibrated, or ""
    no_deltas: str = ""


def calibration_view(result: ComparisonResult, ms: Models) -> CalibrationView:
    cal = {n: m.calibration for n, m in result.models.items() if m.calibration is not None}
    names = tuple(cal)
    #: a scorecard's numbers are its PD column's (metric_sources), labelled so wherever it is named
    shown = {
        n: f"{n} (PD column)" if result.models[n].metric_sources.get("calibration") == "pd_column" else n for n in names
    }
    summary = tuple(
        CalibrationRow(
            label,
            better,
            tuple(CalibrationCell(fmt_num(cal[n].values.get(key), 4), fmt_ci(cal[n].ci.get(key), 4)) for n in names),
        )
        for key, label, better in ROWS
    )
    comps = [c for c in result.comparisons if c.calibration is not None and c.model in cal]
    deltas = tuple(
        CalibrationRow(
            label,
            better,
            tuple(
                CalibrationCell(fmt_signed(c.calibration.delta.get(key), 4), fmt_ci(c.calibration.ci.get(key), 4))  # type: ignore[union-attr]
                for c in comps
            ),
        )
        for key, label, better in ROWS
        if key != "uncertainty"
    )
    bins = tuple(
        ModelBins(
            shown[n],
            ms.colours[n],
            tuple(
                BinRow(fmt_pct(p, 2), fmt_pct(o, 2), "[" + fmt_pct(lo, 2) + ", " + fmt_pct(hi, 2) + "]", fmt_count(k))
                for p, o, lo, hi, k in zip(c.mean_predicted, c.observed, c.observed_lo, c.observed_hi, c.counts)
            ),
        )
        for n, c in cal.items()
    )
    first = next(iter(cal.values()), None)
    binning = "" if first is None else binning_words(first.bins, first.strategy)
    methods = "; ".join(sorted({c.ci_method for c in cal.values()} | {c.calibration.ci_method for c in comps}))  # type: ignore[union-attr]
    base = result.run.baseline
    pd_side = [n for n in (base, *(c.model for c in result.comparisons)) if n in cal and shown[n] != n]
    no_deltas = (
        f"No differences with {base}: {', '.join(pd_side)} calibrated on its PD column, which is not counted "
        "with the other models' scores (no joint table to pair them)"
        if not comps and base in cal and len(cal) > 1 and pd_side
        else ""
    )
    out = [n for n in result.models if n not in cal]
    left_out = ", ".join(out) + (" (scores not probabilities)" if out else "")
    return CalibrationView(
        tuple(shown[n] for n in names),
        summary,
        tuple(c.model for c in comps),
        deltas,
        bins,
        binning,
        methods,
        result.run.baseline,
        left_out,
        no_deltas,
    )


__all__ = ["CalibrationView", "calibration_view"]
