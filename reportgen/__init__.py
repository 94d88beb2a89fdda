"""reportgen: compare classification models and write the evidence up as a report.

Public API::

    cfg, path = load_config("configs/demo.yaml")
    result = compare_models(cfg, path)          # a frozen ComparisonResult
    write_report(result, "reports/demo", formats=("html", "pdf", "json"))

Warnings (rows dropped, ids left out, binning, a threshold outside the scores, …) are logged
where they arise, on one logger per module under ``reportgen`` (``logging.getLogger(__name__)``),
and kept in the result's ``run.warnings``. The package logs to no handler of its own (a
``NullHandler``): an application's handlers (an Airflow task log on the root logger) receive
them; the command line shows them on stderr.
"""

from __future__ import annotations

import logging

from reportgen.version import __version__
from reportgen.config import Config, load_config, parse_config  # noqa: E402
from reportgen.errors import ConfigError, InputError, OutputError, ReportgenError, ResultError, UserError  # noqa: E402
from reportgen.pipeline import analyse as compare_models  # noqa: E402
from reportgen.results import ComparisonResult  # noqa: E402
from reportgen.sources import load_dataset as load_predictions  # noqa: E402


logging.getLogger(__name__).addHandler(logging.NullHandler())


def write_report(result, out_dir, formats=("html", "pdf", "json"), **kwargs):
    """Render ``result`` into ``out_dir`` as its whole new report set, or nothing; see
    :func:`reportgen.writer.write_outputs` (locked against other runs, swapped in by one rename)."""
    from reportgen.writer import write_outputs  # noqa: PLC0415

    return write_outputs(result, out_dir, formats=formats, **kwargs)


__all__ = [
    "Config",
    "ComparisonResult",
    "ConfigError",
    "InputError",
    "OutputError",
    "ReportgenError",
    "ResultError",
    "UserError",
    "compare_models",
    "load_config",
    "load_predictions",
    "parse_config",
    "write_report",
    "__version__",
]
