"""Reductions of loaded rows to :mod:`reportgen.engine.evidence` (one contract for every engine)."""

from reportgen.reduce.evidence_of import (
    ModelRows,
    compare_rows,
    evidence_of_rows,
    binary_evidence_of_rows,
    binary_evidence_of_stream,
    evidence_of,
    multiclass_evidence_of_counts,
    multiclass_evidence_of_rows,
)

__all__ = [
    "ModelRows", "compare_rows", "evidence_of_rows",
    "binary_evidence_of_rows", "binary_evidence_of_stream", "evidence_of",
    "multiclass_evidence_of_counts", "multiclass_evidence_of_rows",
]
