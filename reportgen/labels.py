"""Human names of metrics and optimal-threshold criteria, for the figures and the report.

Kept for the code that imports these names; the labels themselves are rows of
:mod:`reportgen.catalog` and are only read here.
"""

from __future__ import annotations

import reportgen.catalog as catalog

#: Metric key → report label, every metric of every task.
LABELS: dict[str, str] = {m.key: m.label for m in catalog.METRICS}

#: Criterion key → the label of its optimum (the text stored as ``Optimum.description``).
CRITERION_LABELS: dict[str, str] = {c.key: c.label for c in catalog.CRITERIA}

short_label = catalog.short_label

__all__ = ["LABELS", "CRITERION_LABELS", "short_label"]
