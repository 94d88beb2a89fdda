"""Which reliability curve a binary model has, without matplotlib (the curves view counts the
diagram's bins; :func:`reportgen.plot.calibration` draws it)."""

from __future__ import annotations

from reportgen.results import CalibrationData, ComparisonResult

#: A reliability bin with fewer rows than this is drawn hollow and left out of the model's line:
#: one or two rows put the observed share at 0 or 1 and would steer the eye.
MIN_BIN_ROWS = 5


def reliability_of(result: ComparisonResult, name: str) -> tuple[CalibrationData | None, bool]:
    """A model's reliability curve and whether it is its PD column's: the curve of its scores when
    they are probabilities, else the credit section's curve of its ``pd:`` column (the PD its Brier
    score and log-loss come from), else None."""
    c = curves.calibration if (curves := result.models[name].curves) is not None else None
    if c is not None:
        return c, False
    cm = result.credit.models.get(name) if result.credit is not None else None
    if cm is not None and cm.pd_source == "pd_column" and cm.calibration is not None:
        return cm.calibration.reliability, cm.calibration.reliability is not None
    return None, False
