"""reportgen: compare classification models and write the evidence up as a report.

From files, as the command line does::

    import reportgen
    cfg, path = reportgen.load_config("configs/demo.yaml")
    result = reportgen.compare_models(cfg, path)        # a frozen ComparisonResult
    reportgen.write_report(result, "reports/demo", formats=("html", "pdf", "json"))

From data in memory (a notebook; pandas DataFrames or pyarrow Tables, no files)::

    result = reportgen.compare_frames(df, label="default_flag",
                                      scores={"champion": "pd_old", "challenger": "pd_new"})
    result                                              # shows the summary and ROC curves inline

Figures on your own Matplotlib axes, the report's own::

    reportgen.plot.roc(reportgen.load_result("metrics.json"), ax=ax)

Every name below is imported on first use, so ``import reportgen`` and ``reportgen --help``
load neither pandas nor matplotlib (PEP 562 module ``__getattr__``).

Warnings (rows dropped, ids left out, binning, a threshold outside the scores, …) are logged
where they arise, on one logger per module under ``reportgen`` (``logging.getLogger(__name__)``),
and kept in the result's ``run.warnings``. The package logs to no handler of its own (a
``NullHandler``): an application's handlers (an Airflow task log on the root logger) receive
them; the command line shows them on stderr.
"""

from __future__ import annotations

import importlib
import logging
from typing import TYPE_CHECKING, Any

from reportgen.version import __version__

if TYPE_CHECKING:  # the names below, for type checkers and readers; loaded lazily at run time
    from reportgen.api import (
        ComparisonResult,
        Config,
        compare_frames,
        compare_models,
        load_config,
        load_predictions,
        load_result,
        parse_config,
        write_report,
    )
    from reportgen.errors import ConfigError, InputError, OutputError, ReportgenError, ResultError, UserError

logging.getLogger(__name__).addHandler(logging.NullHandler())

#: Public name -> the module that defines it (imported when the name is first used).
_HOME = {
    "Config": "reportgen.api",
    "ComparisonResult": "reportgen.api",
    "compare_frames": "reportgen.api",
    "compare_models": "reportgen.api",
    "load_config": "reportgen.api",
    "load_predictions": "reportgen.api",
    "load_result": "reportgen.api",
    "parse_config": "reportgen.api",
    "write_report": "reportgen.api",
    "ConfigError": "reportgen.errors",
    "InputError": "reportgen.errors",
    "OutputError": "reportgen.errors",
    "ReportgenError": "reportgen.errors",
    "ResultError": "reportgen.errors",
    "UserError": "reportgen.errors",
}

__all__ = [
    "Config",
    "ComparisonResult",
    "ConfigError",
    "InputError",
    "OutputError",
    "ReportgenError",
    "ResultError",
    "UserError",
    "compare_frames",
    "compare_models",
    "load_config",
    "load_predictions",
    "load_result",
    "parse_config",
    "write_report",
    "plot",
    "__version__",
]


def __getattr__(name: str) -> Any:
    """Import a public name's module on first use and keep the name (later lookups are plain)."""
    if name == "plot":  # the figures (reportgen.plot): a module, imported with matplotlib on first use
        return importlib.import_module("reportgen.plot")
    home = _HOME.get(name)
    if home is None:
        raise AttributeError(f"module 'reportgen' has no attribute {name!r}")
    value = getattr(importlib.import_module(home), name)
    globals()[name] = value
    return value


def __dir__() -> list[str]:
    return sorted(set(globals()) | set(__all__))
