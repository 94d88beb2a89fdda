"""Binary models given as arrays (tests, benchmarks, notebooks): rows in, evidence or results out.

The rows become in-memory frames read by the local runner held whole (``engine: memory``:
:func:`reportgen.reduce.local.load_frames`), so every rule, accumulator and paired statistic is
the one files get; :func:`compare_rows` hands the evidence to the one driver
(:func:`reportgen.engine.driver.compare_evidence`).
"""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass, replace
from pathlib import Path
from typing import Any

import numpy as np

from reportgen.config import Config, config_from_mapping
from reportgen.engine.compare import Progress, Settings
from reportgen.engine.driver import compare_evidence
from reportgen.engine.evidence import BinaryEvidence, LoadAudit, unpaired
from reportgen.reduce.local import load_frames


@dataclass(frozen=True, slots=True)
class ModelRows:
    """One binary model's aligned rows (the in-memory API: arrays in, evidence out).

    ``threshold`` is the model's own decision threshold (None: the shared one), ``threshold_key``
    the config key it came from.
    """

    name: str
    file: str
    scores: np.ndarray
    y: np.ndarray
    weights: np.ndarray | None = None
    direction: str = "higher"
    probabilities: bool | None = None
    threshold: float | None = None
    threshold_key: str | None = None


def rows_config(
    models: Sequence[ModelRows],
    threshold: float = 0.5,
    weight_kind: str = "sampling",
    approval_rates: Sequence[float] = (),
) -> tuple[Config, dict[Path, Any]]:
    """Models given as rows as what the local runner reads: a config and one frame per file name
    (a pyarrow Table with model j's label ``y{j}`` (1 = positive), score ``s{j}`` and weight ``w{j}``)."""
    import pyarrow as pa  # noqa: PLC0415

    frames: dict[Path, dict[str, np.ndarray]] = {}
    entries = []
    for j, m in enumerate(models):
        cols = frames.setdefault(Path(m.file), {})
        cols[f"y{j}"] = np.asarray(m.y, dtype=bool).astype(np.int8)
        cols[f"s{j}"] = np.asarray(m.scores, dtype=np.float64)
        entry = {
            "name": m.name,
            "file": m.file,
            "score": f"s{j}",
            "label": f"y{j}",
            "direction": m.direction,
            "threshold": m.threshold,
            "probabilities": m.probabilities,
        }
        if m.weights is not None:
            cols[f"w{j}"] = np.asarray(m.weights, dtype=np.float64)
            entry["weight"] = f"w{j}"
        entries.append(entry)
    cfg = config_from_mapping(
        {
            "task": "binary",
            "positive": 1,
            "threshold": threshold,
            "weight_kind": weight_kind,
            "approval_rates": list(approval_rates),
            "models": entries,
        },
        source="rows",
    )
    return cfg, {path: pa.table(cols) for path, cols in frames.items()}


def evidence_of_rows(
    models: Sequence[ModelRows],
    threshold: float = 0.5,
    audit: LoadAudit | None = None,
    aligned: bool = True,
    weight_kind: str = "sampling",
    approval_rates: Sequence[float] = (),
    unpaired_reason: str = "separate_files",
) -> BinaryEvidence:
    """Evidence of binary models given as rows, by the local runner over them held in memory
    (:func:`rows_config`, :func:`reportgen.reduce.local.load_frames`): the rules, accumulators and
    paired pass of every engine. ``aligned``: each model's rows are the same rows in the same
    order (models of one file name share a frame; frames of equal length pair by position); else
    each model is reduced alone and the pairing is ``unpaired_reason``. ``approval_rates``: the
    configured rates counted for the comparison at equal approval rate. A model's
    ``threshold_key`` is kept as given (default: ``threshold``, or ``models['name'].threshold``)."""
    if not aligned and len(models) > 1:
        alone = [evidence_of_rows([m], threshold, None, True, weight_kind, approval_rates) for m in models]
        return BinaryEvidence(tuple(e.models[0] for e in alone), unpaired(unpaired_reason), audit or LoadAudit(()))
    cfg, frames = rows_config(models, threshold, weight_kind, approval_rates)
    ev = load_frames(cfg, frames, [])
    assert isinstance(ev, BinaryEvidence)  # rows_config: a binary config
    keys = [
        m.threshold_key or ("threshold" if m.threshold is None else f"models['{m.name}'].threshold") for m in models
    ]
    return BinaryEvidence(
        tuple(replace(e, threshold_key=k) for e, k in zip(ev.models, keys)), ev.pairing, audit or LoadAudit(())
    )


def compare_rows(
    models: Sequence[ModelRows],
    settings: Settings,
    threshold: float = 0.5,
    progress: Progress | None = None,
    aligned: bool = True,
):
    """Binary models given as rows → (models, comparisons, pairwise): the rows reduced to
    evidence, then the one driver (:func:`~reportgen.engine.driver.compare_evidence`).
    ``aligned``: the models' rows are the same rows in the same order (False: independent
    samples, reason ``separate_files``)."""
    return compare_evidence(
        evidence_of_rows(
            models, threshold, aligned=aligned, weight_kind=settings.weight_kind, approval_rates=settings.approval_rates
        ),
        settings,
        progress,
    )
