"""One exception tree for everything a user can get wrong, and one for our own faults.

::

    ReportgenError                 base; ``cli`` maps it to an exit code
    ├── UserError                  exit 2: the user can fix it
    │   ├── ConfigError            the YAML config (file, key, value)
    │   ├── InputError             a prediction file (file, column, row)
    │   ├── OutputError            the output directory (permissions, disk full)
    │   ├── ThemeError             a custom template directory (missing or escaping templates)
    │   ├── ResultError            a saved metrics.json (unknown schema version, key or type)
    │   └── HistoryError           the history store (cannot be opened, read or written)
    ├── TrackingError              exit 4: the report was written; logging it to MLflow failed
    └── InternalError              exit 1: a bug in reportgen

Every message is one line that says where, what was found and what to do.
"""

from __future__ import annotations


class ReportgenError(Exception):
    """Base of all reportgen errors."""

    exit_code = 1


class UserError(ReportgenError):
    """Something the user can fix: bad config, bad data, unwritable output."""

    exit_code = 2


class ConfigError(UserError):
    """The config file is missing, malformed or inconsistent."""


class InputError(UserError):
    """A prediction file is missing, unreadable or holds values that cannot be used."""


class OutputError(UserError):
    """The report cannot be written (directory not writable, disk full, would overwrite)."""


class ThemeError(UserError):
    """A custom template directory is broken: a syntax error, a missing template, or a
    template that tries to include a file outside the directory."""


class ResultError(UserError):
    """A saved ``metrics.json`` cannot be read back: its schema version is missing, unknown or
    newer than this reportgen reads, or a key is unknown, missing or of the wrong type (the
    message names the JSON path)."""


class HistoryError(UserError):
    """The history store cannot be opened, is not a reportgen history, or cannot be written."""


class TrackingError(ReportgenError):
    """The report set was written, but logging it to MLflow failed (mlflow not installed, a bad
    tracking URI, the server down or refusing): the report is complete; log again or look."""

    exit_code = 4


class InternalError(ReportgenError):
    """A bug in reportgen; please report it with the --debug traceback."""

    exit_code = 1
