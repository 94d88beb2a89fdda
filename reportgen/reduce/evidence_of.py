"""A runner's finished accumulators → :mod:`reportgen.engine.evidence`: the one contract of every engine.

The local runner (memory and stream: :mod:`reportgen.reduce.local`), the Dask runner
(:mod:`reportgen.reduce.dask`) and SQL pushdown (:mod:`reportgen.reduce.pushdown`) hand their
results straight to :func:`binary_evidence` or :func:`multiclass_evidence`: per-model tables
(:class:`ModelTable`) or counts, the paired pass's accumulator or the reason code why rows
could not be paired, and the load audit (:func:`load_audit`).

Thresholds are resolved here, once: a model's own ``threshold`` if it has one, else the config's.
"""

from __future__ import annotations

from collections.abc import Callable, Sequence
from dataclasses import dataclass, replace
from typing import Any

import numpy as np

from reportgen.config import Config
from reportgen.engine import distinct_rows as DR
from reportgen.engine.curve import ScoreTable
from reportgen.engine.evidence import (
    BinaryEvidence,
    BinaryModelEvidence,
    LoadAudit,
    MulticlassEvidence,
    MulticlassModelEvidence,
    MulticlassRows,
    Pairing,
    unpaired,
)
from reportgen.engine.intervals import WeightCells
from reportgen.errors import InputError
from reportgen.io.files import FileInfo
from reportgen.reduce import accumulators as S
from reportgen.results import BinningInfo, InputFile, Notice
from reportgen.value import Value


def _threshold(cfg: Config, name: str) -> tuple[float, str]:
    """(threshold, config key) of a model: its own threshold, else the config's."""
    for i, m in enumerate(cfg.models):
        if m.name == name:
            if m.threshold is not None:
                return float(m.threshold), f"models[{i}].threshold"
            break
    return float(cfg.threshold), "threshold"


def load_audit(
    files: Sequence[FileInfo],
    dropped: Sequence[tuple[str, str, int]],
    warnings: Sequence[Notice],
    dates: tuple[str, str] | None = None,
) -> LoadAudit:
    """The load audit of a run: the files read (their audit records), the rows dropped (model,
    reason, rows), the runner's notices and the date range."""
    return LoadAudit(
        tuple(InputFile(f.path, f.sha256, f.rows, f.size_bytes) for f in files),
        tuple((n, r, k) for n, r, k in dropped),
        tuple(warnings),
        (dates[0], dates[1]) if dates else None,
    )


# --------------------------------------------------------------------------------------
# Binary
# --------------------------------------------------------------------------------------


def _pairing_of(acc: S.PairedAccumulator) -> Pairing:
    """The :class:`Pairing` of a paired accumulator over aligned, unweighted rows (DeLong's
    covariance only with two rows of each class: its sample variances divide by m − 1)."""
    t = acc.tables[0]
    cov = acc.covariance() if min(t.total_pos, t.total_neg) >= 2 else None
    pairs = None if acc.pair_tables is None else acc.pair_tables.finish()
    approval = None if acc.approval is None else acc.approval.finish()
    return Pairing(
        "aligned",
        "aligned",
        cov,
        acc.agree.copy(),
        None if acc.joint is None else acc.joint.copy(),
        pair_counts=pairs,
        approval=approval,
    )


@dataclass(frozen=True, repr=False, eq=False, slots=True)
class ModelTable(Value):
    """A binary model's table as a runner finished it (every engine; SQL pushdown too): exact or
    binned (``binning``; ``grouper`` maps a raw score to its table row for the paired pass),
    and a weighted model's rows per (table row, class, weight) (``cells``; None binned), and a
    binned model's raw (lowest, highest) score (``score_range``; None: the table's own)."""

    name: str
    file: str
    direction: str
    probabilities: bool | None
    threshold: float | None
    table: ScoreTable
    binning: BinningInfo | None
    grouper: Callable[[np.ndarray], np.ndarray] | None
    cells: WeightCells | None = None
    score_range: tuple[float, float] | None = None


def binary_evidence(
    cfg: Config, tables: Sequence[ModelTable], paired: Any, paired_reason: str | None, audit: LoadAudit
) -> BinaryEvidence:
    """Binary evidence from a runner's finished accumulators: each model's table with its
    threshold resolved (:func:`_threshold`), and the pairing — ``paired`` the paired pass's
    accumulator (:class:`~reportgen.reduce.local.BinaryPairs`: a
    :class:`~reportgen.reduce.accumulators.PairedAccumulator`, or an
    :class:`~reportgen.reduce.accumulators.AgreementAccumulator` for weighted rows), None with
    ``paired_reason`` when rows could not be paired. ``weight_kind: frequency``: each table read
    as the table of its repeated rows, and the paired pass counted the rows with their weights as
    multiplicities on those tables — DeLong's covariance, McNemar's tables, the pattern counts,
    the joint pair tables and the approval patterns of the repeated rows."""
    models = []
    for m in tables:
        t, key = _threshold(cfg, m.name)
        # frequency weights: the table of the repeated rows
        table = S.frequency_table(m.table, m.name)[0] if cfg.weight_kind == "frequency" else m.table
        models.append(
            BinaryModelEvidence(
                m.name,
                m.file,
                table,
                t,
                key,
                m.probabilities,
                m.binning,
                m.cells if table.weighted else None,
                m.score_range,
            )
        )
    acc = paired
    if len(models) < 2:
        pairing = Pairing("aligned", "single_model")
    elif isinstance(acc, S.AgreementAccumulator):  # weighted aligned rows: McNemar's tables and the joint cells
        cells = None if acc.cells is None else acc.cells.result()
        pairing = Pairing("aligned", "aligned", None, acc.agree.copy(), None, acc.rows.copy(), cells=cells)
    elif acc is None:
        assert paired_reason is not None  # the runners give a reason whenever two models are unpaired
        pairing = unpaired(paired_reason)
    else:
        pairing = _pairing_of(acc)
    return BinaryEvidence(tuple(models), pairing, audit)


# --------------------------------------------------------------------------------------
# Multiclass
# --------------------------------------------------------------------------------------


def multiclass_rows(d: DR.DistinctRows, layout: Sequence[tuple[bool, bool]], k: int) -> MulticlassRows:
    """The evidence's rows from distinct rows (``layout``: per model, whether it has a prediction
    column and whether it has class scores); weights None when every weight is 1."""
    y, w, preds, probas = DR.split(d, layout, k)
    return MulticlassRows(y, None if np.all(w == 1) else w, preds, probas, d.counts, d.scoreless)


def as_frequency_counts(m: MulticlassModelEvidence) -> MulticlassModelEvidence:
    """A weighted multiclass model read as frequency weights: the counts of its repeated rows
    (the weight sums as counts, ``n_rows`` the total weight, unweighted) — what the in-memory
    engine gets by repeating each row. The weight sums must be whole numbers."""
    if not m.weighted:
        return m
    if not np.all(m.confusion == np.round(m.confusion)):
        raise InputError(
            f"model '{m.name}': weight: weight_kind: frequency needs whole-number weights; the weights "
            f"of some classes do not add up to whole numbers (use weight_kind: sampling)"
        )
    n = round(float(m.confusion.sum()))
    tables = None if m.tables is None else replace(m.tables, n_rows=n, weighted=False)
    return replace(m, n_rows=n, tables=tables, weighted=False)


def multiclass_evidence(
    cfg: Config,
    classes: Sequence[str],
    counts: Sequence[MulticlassModelEvidence],
    mcnemar: Any,
    paired_reason: str | None,
    audit: LoadAudit,
) -> MulticlassEvidence:
    """Multiclass evidence from a runner's finished counts (``counts``: per model, in class order)
    and its paired pass (``mcnemar``: :class:`~reportgen.reduce.local.JointCounts`, None with
    ``paired_reason`` when rows could not be paired).

    The runners count each model's joint confusion counts against the configured baseline only
    (in weight sums and in rows): McNemar's tables of the other pairs stay NaN. As in memory, the
    joint counts travel for the paired bootstrap only when every weight is a whole number, and the
    tables in rows stand beside the weighted ones when a weight is not 1.
    """
    frequency = cfg.weight_kind == "frequency"
    models = tuple(as_frequency_counts(m) if frequency else m for m in counts)
    names = [m.name for m in models]
    if len(models) < 2:
        pairing = Pairing("aligned", "single_model")
    elif mcnemar is None:
        assert paired_reason is not None  # the runners give a reason whenever two models are unpaired
        pairing = unpaired(paired_reason)
    else:
        jc, k = mcnemar, len(classes)
        agree = joint_pairing(names, cfg.baseline_name, jc.weighted, k).agree
        in_rows = (
            joint_pairing(names, cfg.baseline_name, jc.rows, k).agree if jc.has_weights and not frequency else None
        )
        pairing = joint_pairing(names, cfg.baseline_name, jc.weighted if jc.integral else {}, k, agree, in_rows)
    distinct = None if mcnemar is None else mcnemar.distinct
    rows = (
        None
        if distinct is None
        else multiclass_rows(distinct, [(m.predicted_from_column, m.tables is not None) for m in models], len(classes))
    )
    brier = {} if mcnemar is None or len(models) < 2 else dict(mcnemar.brier)
    return MulticlassEvidence(tuple(str(c) for c in classes), models, pairing, audit, rows, brier)


def joint_pairing(
    names: Sequence[str],
    baseline: str,
    joint: dict[str, np.ndarray],
    k: int,
    agree: np.ndarray | None = None,
    agree_rows: np.ndarray | None = None,
) -> Pairing:
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
        table = np.array(
            [
                [t[base_right & model_right].sum(), t[base_right & ~model_right].sum()],
                [t[~base_right & model_right].sum(), t[~base_right & ~model_right].sum()],
            ]
        )
        agree[j, b] = table.T
        agree[b, j] = table
    return Pairing("aligned", "aligned", None, agree, None, agree_rows, joint=J if joint else None)
