"""The one place the run's timestamp comes from, so that it can be pinned.

The timestamp is pinned by, in this order: an explicit override (the CLI's ``--now``, passed
as a value to :func:`now` and :func:`reportgen.pipeline.analyse`), ``REPORTGEN_NOW`` (ISO
8601, e.g. ``2026-01-31T06:00:00Z``) or ``SOURCE_DATE_EPOCH`` (whole seconds since 1970, the
reproducible-builds convention). The two environment variables are read here and nowhere
else; nothing writes them. Pinned clock + same inputs and config give byte-identical HTML and
JSON. A value that is not a timestamp, or one outside what a UTC datetime can hold (years 1 to
9999), is a :class:`ConfigError` (exit 2) naming where it came from.
"""

from __future__ import annotations

import os
from datetime import UTC, datetime

from reportgen.errors import ConfigError

ISO_EXAMPLE = "2026-01-31T06:00:00Z"


def _pin(override: str | None) -> tuple[str, str] | None:
    """``(where, value)`` of the pinned timestamp, or None when the clock is not pinned."""
    if override is not None:  # an empty --now (a scheduler's template that rendered to nothing) is refused below
        return "--now", override
    for name in ("REPORTGEN_NOW", "SOURCE_DATE_EPOCH"):
        value = os.environ.get(name)
        if value:
            return name, value
    return None


def now(override: str | None = None) -> datetime:
    """The run's timestamp (UTC, whole seconds): ``override``, else the environment, else the wall clock."""
    pin = _pin(override)
    if pin is None:
        return datetime.now(UTC).replace(microsecond=0)
    where, value = pin
    if where == "SOURCE_DATE_EPOCH":
        try:
            seconds = int(value)
        except ValueError:
            raise ConfigError(
                f"SOURCE_DATE_EPOCH={value!r}: expected whole seconds since 1970; fix or unset the variable"
            ) from None
        try:
            return datetime.fromtimestamp(seconds, tz=UTC)
        except (OverflowError, OSError, ValueError):
            raise ConfigError(
                f"SOURCE_DATE_EPOCH={value!r}: out of range (years 1 to 9999); fix or unset the variable"
            ) from None
    shown = f"--now {value!r}" if where == "--now" else f"{where}={value!r}"
    try:
        dt = datetime.fromisoformat(value.replace("Z", "+00:00"))
    except ValueError:
        raise ConfigError(f"{shown}: not an ISO 8601 timestamp (e.g. {ISO_EXAMPLE})") from None
    try:
        utc = (dt if dt.tzinfo else dt.replace(tzinfo=UTC)).astimezone(UTC)
    except (OverflowError, ValueError):
        raise ConfigError(
            f"{shown}: out of range once converted to UTC (years 1 to 9999); give a timestamp such as {ISO_EXAMPLE}"
        ) from None
    return utc.replace(microsecond=0)


def is_pinned(override: str | None = None) -> bool:
    """Whether :func:`now` with this ``override`` returns a pinned rather than the wall-clock time."""
    return _pin(override) is not None
