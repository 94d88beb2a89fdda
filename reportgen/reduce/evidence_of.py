"""What the runners return → :mod:`reportgen.engine.evidence`: the one contract of every engine.

* the local runner (memory and stream) and the Dask runner return
  :class:`reportgen.reduce.local.StreamedData` / :class:`reportgen.reduce.local.StreamedMulticlass`:
  tables and paired accumulators as they come, with the runners' reason code when rows could not
  be paired (:func:`binary_evidence_of_stream`, :func:`multiclass_evidence_of_counts`);
* rows given as arrays (:class:`ModelRows`: tests, benchmarks and :func:`compare_rows`): each
  model's rows become its score table (one sort) and each row's code in it; the aligned rows give
  the paired statistics by the same accumulator the runners run chunk by chunk
  (:class:`reportgen.reduce.accumulators.PairedAccumulator`).

Thresholds are resolved here, once: a model's own ``threshold`` if it has one, else the config's.
"""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass, replace
from pathlib import Path
from typing import Any

import numpy as np

from reportgen.config import Config, config_from_mapping
from reportgen.errors import InputError
from reportgen.engine import distinct_rows as DR
from reportgen.reduce import accumulators as S
from reportgen.reduce.local import load_frames
from reportgen.engine.compare import Progress, Settings
from reportgen.engine.driver import compare_evidence
from reportgen.engine.curve import ScoreTable
from reportgen.engine.evidence import (
    BinaryEvidence,
    BinaryModelEvidence,
    FileAudit,
    LoadAudit,
    MulticlassEvidence,
    MulticlassModelEvidence,
    MulticlassRows,
    Pairing,
    unpaired,
)


def _threshold(cfg: Config, name: str) -> tuple[float, str]:
    """(threshold, config key) of a model: its own threshold, else the config's."""
    for i, m in enumerate(cfg.models):
        if m.name == name:
            if m.threshold is not None:
                return float(m.threshold), f"models[{i}].threshold"
            break
    return float(cfg.threshold), "threshold"


def _audit(data) -> LoadAudit:
    """The load audit of any loader's return (files, dropped rows, warnings, dates)."""
    return LoadAudit(
        files=tuple(FileAudit(f.path, f.sha256, f.rows, f.size_bytes) for f in data.files),
        dropped=tuple((n, r, k) for n, r, k in data.dropped),
        warnings=tuple(data.warnings),
        dates=tuple(data.dates) if getattr(data, "dates", None) else None,  # type: ignore[arg-type]
    )


# --------------------------------------------------------------------------------------
# Binary
# --------------------------------------------------------------------------------------


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


def rows_config(models: Sequence[ModelRows], threshold: float = 0.5, weight_kind: str = "sampling",
                approval_rates: Sequence[float] = ()) -> tuple[Config, dict[Path, Any]]:
    """Models given as rows as what the local runner reads: a config and one frame per file name
    (a pyarrow Table with model j's label ``y{j}`` (1 = positive), score ``s{j}`` and weight ``w{j}``)."""
    import pyarrow as pa  # noqa: PLC0415

    frames: dict[Path, dict[str, np.ndarray]] = {}
    entries = []
    for j, m in enumerate(models):
        cols = frames.setdefault(Path(m.file), {})
        cols[f"y{j}"] = np.asarray(m.y, dtype=bool).astype(np.int8)
        cols[f"s{j}"] = np.asarray(m.scores, dtype=np.float64)
        entry = {"name": m.name, "file": m.file, "score": f"s{j}", "label": f"y{j}", "direction": m.direction,
                 "threshold": m.threshold, "probabilities": m.probabilities}
        if m.weights is not None:
            cols[f"w{j}"] = np.asarray(m.weights, dtype=np.float64)
            entry["weight"] = f"w{j}"
        entries.append(entry)
    cfg = config_from_mapping({"task": "binary", "positive": 1, "threshold": threshold, "weight_kind": weight_kind,
                               "approval_rates": list(approval_rates), "models": entries}, source="rows")
    return cfg, {path: pa.table(cols) for path, cols in frames.items()}


def evidence_of_rows(models: Sequence[ModelRows], threshold: float = 0.5, audit: LoadAudit | None = None,
                     aligned: bool = True, weight_kind: str = "sampling",
                     approval_rates: Sequence[float] = (), unpaired_reason: str = "separate_files") -> BinaryEvidence:
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
    ev = binary_evidence_of_stream(cfg, load_frames(cfg, frames, []))
    keys = [m.threshold_key or ("threshold" if m.threshold is None else f"models['{m.name}'].threshold") for m in models]
    return BinaryEvidence(tuple(replace(e, threshold_key=k) for e, k in zip(ev.models, keys)), ev.pairing,
                          audit or LoadAudit(()))


def compare_rows(models: Sequence[ModelRows], settings: Settings, threshold: float = 0.5,
                 progress: Progress | None = None, aligned: bool = True):
    """Binary models given as rows → (models, comparisons, pairwise): the rows reduced to
    evidence, then the one driver (:func:`~reportgen.engine.driver.compare_evidence`).
    ``aligned``: the models' rows are the same rows in the same order (False: independent
    samples, reason ``separate_files``)."""
    return compare_evidence(evidence_of_rows(models, threshold, aligned=aligned, weight_kind=settings.weight_kind,
                                             approval_rates=settings.approval_rates), settings, progress)


def _pairing_of(acc: S.PairedAccumulator) -> Pairing:
    """The :class:`Pairing` of a paired accumulator over aligned, unweighted rows (DeLong's
    covariance only with two rows of each class: its sample variances divide by m − 1)."""
    t = acc.tables[0]
    cov = acc.covariance() if min(t.total_pos, t.total_neg) >= 2 else None
    pairs = None if acc.pair_tables is None else acc.pair_tables.finish()
    approval = None if acc.approval is None else acc.approval.finish()
    return Pairing("aligned", "aligned", cov, acc.agree.copy(), None if acc.joint is None else acc.joint.copy(),
                   pair_counts=pairs, approval=approval)


def as_frequency_table(table: ScoreTable, name: str) -> ScoreTable:
    """A weighted table read as frequency weights: the table of the repeated rows
    (:func:`reportgen.reduce.accumulators.frequency_table`)."""
    return S.frequency_table(table, name)[0]


def binary_evidence_of_stream(cfg: Config, data) -> BinaryEvidence:
    """Evidence of :class:`~reportgen.reduce.local.StreamedData` (engines stream and dask);
    ``weight_kind: frequency``: each table read as the table of its repeated rows, and the paired
    pass (:class:`~reportgen.reduce.local.BinaryPairs`) counted the rows with their weights as
    multiplicities on those tables — DeLong's covariance, McNemar's tables, the pattern counts,
    the joint pair tables and the approval patterns of the repeated rows, as in memory."""
    models = []
    for m in data.models:
        t, key = _threshold(cfg, m.name)
        table = as_frequency_table(m.table, m.name) if cfg.weight_kind == "frequency" else m.table
        models.append(BinaryModelEvidence(m.name, m.file, table, t, key, m.probabilities, m.binning,
                                          m.cells if table.weighted else None))
    acc = data.paired
    if len(models) < 2:
        pairing = Pairing("aligned", "single_model")
    elif isinstance(acc, S.AgreementAccumulator):  # weighted aligned rows: McNemar's tables and the joint cells
        cells = None if acc.cells is None else acc.cells.result()
        pairing = Pairing("aligned", "aligned", None, acc.agree.copy(), None, acc.rows.copy(), cells=cells)
    elif acc is None:
        pairing = unpaired(data.paired_reason)
    else:
        pairing = _pairing_of(acc)
    return BinaryEvidence(tuple(models), pairing, _audit(data), None)


# --------------------------------------------------------------------------------------
# Multiclass
# --------------------------------------------------------------------------------------


def multiclass_rows(d: DR.DistinctRows, layout: Sequence[tuple[bool, bool]], k: int) -> MulticlassRows:
    """The evidence's rows from distinct rows (``layout``: per model, whether it has a prediction
    column and whether it has class scores); weights None when every weight is 1."""
    y, w, preds, probas = DR.split(d, layout, k)
    return MulticlassRows(y, None if np.all(w == 1) else w, preds, probas, d.counts)


def as_frequency_counts(m: MulticlassModelEvidence) -> MulticlassModelEvidence:
    """A weighted multiclass model read as frequency weights: the counts of its repeated rows
    (the weight sums as counts, ``n_rows`` the total weight, unweighted) — what the in-memory
    engine gets by repeating each row. The weight sums must be whole numbers."""
    if not m.weighted:
        return m
    if not np.all(m.confusion == np.round(m.confusion)):
        raise InputError(f"model '{m.name}': weight: weight_kind: frequency needs whole-number weights; the weights "
                         f"of some classes do not add up to whole numbers (use weight_kind: sampling)")
    n = int(round(float(m.confusion.sum())))
    tables = None if m.tables is None else replace(m.tables, n_rows=n, weighted=False)
    return replace(m, n_rows=n, tables=tables, weighted=False)


def multiclass_evidence_of_counts(cfg: Config, data) -> MulticlassEvidence:
    """Evidence of :class:`~reportgen.reduce.local.StreamedMulticlass` (stream, dask).

    The loaders count each model's joint confusion counts against the configured baseline only
    (in weight sums and in rows): McNemar's tables of the other pairs stay NaN. As in memory, the
    joint counts travel for the paired bootstrap only when every weight is a whole number, and the
    tables in rows stand beside the weighted ones when a weight is not 1.
    """
    frequency = cfg.weight_kind == "frequency"
    models = tuple(as_frequency_counts(m) if frequency else m for m in data.models)
    names = [m.name for m in models]
    if len(models) < 2:
        pairing = Pairing("aligned", "single_model")
    elif data.mcnemar is None:
        pairing = unpaired(data.paired_reason)
    else:
        jc, k = data.mcnemar, len(data.classes)
        agree = joint_pairing(names, cfg.baseline_name, jc.weighted, k).agree
        in_rows = joint_pairing(names, cfg.baseline_name, jc.rows, k).agree if jc.has_weights and not frequency else None
        pairing = joint_pairing(names, cfg.baseline_name, jc.weighted if jc.integral else {}, k, agree, in_rows)
    distinct = None if data.mcnemar is None else data.mcnemar.distinct
    rows = None if distinct is None else multiclass_rows(
        distinct, [(m.predicted_from_column, m.tables is not None) for m in models],
                                                          len(data.classes))
    return MulticlassEvidence(tuple(str(c) for c in data.classes), models, pairing, _audit(data), rows)


def joint_pairing(names: Sequence[str], baseline: str, joint: dict[str, np.ndarray], k: int,
                  agree: np.ndarray | None = None, agree_rows: np.ndarray | None = None) -> Pairing:
    """The :class:`Pairing` of aligned multiclass models from each model's joint confusion counts
    against the baseline (``joint[name][t, baseline's class, model's class]``): McNemar's 2×2
    tables [baseline right?][model right?] (0 = right) are its sums, the joint counts travel
    whole for the paired bootstrap. ``agree``: all pairs' tables when counted (memory), else the
    baseline's only (the rest NaN)."""
    b = names.index(baseline)
    J = np.zeros((len(names), k, k, k))
    J[b] = 0.0
    if agree is None:
        agree = np.full((len(names), len(names), 2, 2), np.nan)
    diag = np.arange(k)
    for j, name in enumerate(names):
        if name not in joint:
            continue
        t = np.asarray(joint[name], dtype=np.float64)
        J[j] = t
        base_right = np.zeros((k, k, k), dtype=bool)
        base_right[diag, diag, :] = True
        model_right = np.zeros((k, k, k), dtype=bool)
        model_right[diag, :, diag] = True
        table = np.array([[t[base_right & model_right].sum(), t[base_right & ~model_right].sum()],
                          [t[~base_right & model_right].sum(), t[~base_right & ~model_right].sum()]])
        agree[j, b] = table.T
        agree[b, j] = table
    return Pairing("aligned", "aligned", None, agree, None, agree_rows, joint=J if joint else None)


def evidence_of(cfg: Config, data) -> BinaryEvidence | MulticlassEvidence:
    """The evidence of what a runner returned (:mod:`reportgen.reduce.local`, :mod:`reportgen.reduce.dask`,
    :mod:`reportgen.reduce.pushdown`), whichever engine ran."""
    if cfg.task == "multiclass":
        return multiclass_evidence_of_counts(cfg, data)
    return binary_evidence_of_stream(cfg, data)
