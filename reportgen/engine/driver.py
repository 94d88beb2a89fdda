"""The one compare driver, for either task: dispatches on the kind of evidence (never on the engine
that made it) to the binary driver (:mod:`reportgen.engine.compare`) or the multiclass one
(:mod:`reportgen.engine.compare_multiclass`)."""

from __future__ import annotations

from reportgen.engine.compare import Progress, Settings, compare_binary_evidence
from reportgen.engine.evidence import BinaryEvidence, MulticlassEvidence
from reportgen.results import Comparison, ModelResult, PairwiseCell


def compare_evidence(
    ev: BinaryEvidence | MulticlassEvidence, settings: Settings, progress: Progress | None = None
) -> tuple[dict[str, ModelResult], list[Comparison], list[PairwiseCell]]:
    """Evidence + analysis settings → (models, comparisons, pairwise), for either task.

    The methods follow from what the evidence holds (:mod:`reportgen.engine.evidence`), never
    from the engine that made it; each interval records its method (``ci_method``) and what
    could not be given is a capability code with its reason (``Comparison.capabilities``).
    """
    if isinstance(ev, MulticlassEvidence):
        from reportgen.engine.compare_multiclass import compare_multiclass_evidence  # noqa: PLC0415  (a binary run needs none of it)

        return compare_multiclass_evidence(ev, settings, progress)
    return compare_binary_evidence(ev, settings, progress)
