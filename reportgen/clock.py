"""The one place the run's timestamp comes from, so that it can be pinned.

``REPORTGEN_NOW`` (ISO 8601, e.g. ``2026-01-31T06:00:00Z``) or ``SOURCE_DATE_EPOCH`` (seconds)
pin the clock; the CLI's ``--now`` sets ``REPORTGEN_NOW``. Pinned clock + same inputs and
config give byte-identical HTML and JSON.
"""

from __future__ import annotations

import os
from datetime import datetime, timezone

from reportgen.errors import ConfigError


def now() -> datetime:
    """The run's timestamp (UTC, whole seconds)."""
    pinned = os.environ.get("REPORTGEN_NOW")
    if pinned:
        try:
            dt = datetime.fromisoformat(pinned.replace("Z", "+00:00"))
        except ValueError:
            raise ConfigError(f"REPORTGEN_NOW={pinned!r}: not an ISO 8601 timestamp (e.g. 2026-01-31T06:00:00Z)") from None
        return (dt if dt.tzinfo else dt.replace(tzinfo=timezone.utc)).astimezone(timezone.utc).replace(microsecond=0)
    epoch = os.environ.get("SOURCE_DATE_EPOCH")
    if epoch:
        try:
            return datetime.fromtimestamp(int(epoch), tz=timezone.utc)
        except ValueError:
            raise ConfigError(f"SOURCE_DATE_EPOCH={epoch!r}: expected whole seconds since 1970") from None
    return datetime.now(timezone.utc).replace(microsecond=0)


def is_pinned() -> bool:
    return bool(os.environ.get("REPORTGEN_NOW") or os.environ.get("SOURCE_DATE_EPOCH"))
