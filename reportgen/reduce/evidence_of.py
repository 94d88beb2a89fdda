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

import numpy as np

from reportgen.config import Config
from reportgen.errors import InputError
from reportgen.engine import distinct_rows as DR
from reportgen.reduce import accumulators as S
from reportgen.io.pairs import PAIRED_CHUNK
from reportgen.parallel import ordered_map
from reportgen.engine.approval import joint_cell_luts
from reportgen.engine.intervals import count_cells
from reportgen.engine.compare import Progress, Settings
from reportgen.engine.driver import compare_evidence
from reportgen.engine.curve import ScoreTable, build_table, row_groups
from reportgen.engine.evidence import (
    BinaryEvidence,
    BinaryModelEvidence,
    BinaryRows,
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


def _repeat_counts(weights: np.ndarray, file: str, name: str, where: str = "weight") -> np.ndarray:
    """Frequency weights as repeat counts; a weight that is not a whole number is a one-line error
    naming the file, the config key ``where``, the row and the model."""
    w = np.asarray(weights, dtype=np.float64)
    bad = np.flatnonzero(w != np.round(w))
    if bad.size:
        raise InputError(f"{file}: {where}: weight_kind: frequency needs whole-number weights; row {int(bad[0]) + 1} "
                         f"of model '{name}' has weight {w[bad[0]]:g} (use weight_kind: sampling)")
    return w.astype(np.int64)


def as_repeated_rows(models: Sequence[ModelRows], where: str = "weight") -> list[ModelRows]:
    """Frequency weights as what they mean: a row of weight w repeated w times (weight 0: dropped).

    Every metric, interval and test of the result then is that of the repeated rows, exactly
    (``weight_kind: frequency``). The weights must be whole numbers; ``where`` names the config key
    in the error. Rows are repeated per model (aligned models share one weight column by row).
    """
    out = []
    for m in models:
        if m.weights is None:
            out.append(m)
            continue
        k = _repeat_counts(m.weights, m.file, m.name, where)
        out.append(replace(m, scores=np.repeat(m.scores, k), y=np.repeat(m.y, k), weights=None))
    return out


def evidence_of_rows(models: Sequence[ModelRows], threshold: float = 0.5, audit: LoadAudit | None = None,
                     aligned: bool = True, weight_kind: str = "sampling",
                     approval_rates: Sequence[float] = (), unpaired_reason: str = "separate_files") -> BinaryEvidence:
    """Evidence of binary models given as aligned rows: each model's table (one sort), each
    row's code in it, and the paired statistics of the rows (``aligned``: the rows line up;
    ``approval_rates``: the configured rates counted for the comparison at equal approval rate;
    ``unpaired_reason``: the pairing reason when the rows do not line up).
    ``weight_kind: frequency``: the rows are repeated by their weights first (:func:`as_repeated_rows`)."""
    if weight_kind == "frequency":
        if aligned and len(models) > 1:  # one row, one repetition in every model
            S.check_same_repeats([m.name for m in models], [m.file for m in models], [m.weights for m in models], None)
        models = as_repeated_rows(models)
    ev_models, codes = [], []
    weights: list[np.ndarray | None] = [None if m.weights is None or np.all(m.weights == 1) else np.asarray(m.weights, dtype=np.float64)
               for m in models]
    # each row's table row: for the paired pass (several models) and the row bootstrap (weighted);
    # one unweighted model needs neither (its intervals are drawn on its table), so no second sort
    # (weights that are all 1 still make a weighted table, whose cells need the codes)
    need_codes = len(models) > 1 or any(m.weights is not None for m in models)

    def reduced(m: ModelRows) -> tuple[ScoreTable, np.ndarray | None]:
        """One model's table and row codes (in a thread: numpy's sorts release the GIL)."""
        table = build_table(m.scores, m.y, m.weights, m.direction)  # type: ignore[arg-type]
        return table, np.asarray(row_groups(table, m.scores), dtype=np.int64) if need_codes else None

    for m, (table, code) in zip(models, ordered_map(reduced, models)):
        t = float(threshold if m.threshold is None else m.threshold)
        key = m.threshold_key or ("threshold" if m.threshold is None else f"models['{m.name}'].threshold")
        # a weighted model's rows per (table row, class, weight): what every engine counts
        cells = None if not table.weighted else S.capped(count_cells(code, m.y, m.weights))
        table = S.table_of_cells(table, cells)  # weight sums in one order for every engine
        ev_models.append(BinaryModelEvidence(m.name, m.file, table, t, key, m.probabilities, cells=cells))
        if need_codes:
            codes.append(code)
    y = np.asarray(models[0].y, dtype=bool)
    pairing = _row_pairing(ev_models, codes, y, weights, aligned, tuple(approval_rates), unpaired_reason)
    # rows that do not line up are not one sample: nothing may resample them together
    rows = BinaryRows(y, tuple(weights), tuple(codes)) if pairing.status == "aligned" and need_codes else None
    return BinaryEvidence(tuple(ev_models), pairing, audit or LoadAudit(()), rows)


def compare_rows(models: Sequence[ModelRows], settings: Settings, threshold: float = 0.5,
                 progress: Progress | None = None, aligned: bool = True):
    """Binary models given as rows → (models, comparisons, pairwise): the rows reduced to
    evidence, then the one driver (:func:`~reportgen.engine.driver.compare_evidence`).
    ``aligned``: the models' rows are the same rows in the same order (False: independent
    samples, reason ``separate_files``)."""
    return compare_evidence(evidence_of_rows(models, threshold, aligned=aligned, weight_kind=settings.weight_kind,
                                             approval_rates=settings.approval_rates), settings, progress)


def _row_pairing(models: list[BinaryModelEvidence], codes: list[np.ndarray], y: np.ndarray,
                 weights: list[np.ndarray | None], aligned: bool, approval_rates: tuple[float, ...] = (),
                 unpaired_reason: str = "separate_files") -> Pairing:
    """The paired statistics of aligned rows: the streamed engines' accumulator over all rows."""
    if len(models) < 2:
        return Pairing("aligned", "single_model")
    if not aligned:
        return unpaired(unpaired_reason)
    # decided by table row, as the streamed engines' paired pass (exact tables: the raw rule)
    correct = [(c < m.table.cut_index(m.threshold)) == y for c, m in zip(codes, models)]
    if any(m.table.weighted for m in models):
        # DeLong's covariance and the pattern counts are counts of unweighted rows; McNemar's table
        # in weighted counts (shown beside) and in rows (what sampling weights test on)
        rows_only = [None] * len(weights)
        joint = S.JointCellCounter(joint_cell_luts([m.table for m in models], [m.threshold for m in models],
                                                   approval_rates))
        joint.add(codes, y, weights)
        return Pairing("aligned", "aligned", None, S.agreement(correct, weights), None, S.agreement(correct, rows_only),
                       cells=joint.result())
    acc = S.PairedAccumulator([m.table for m in models], [m.threshold for m in models], approval_rates=approval_rates)

    def chunk_moments(lo: int) -> tuple:
        """One chunk's moments (in a thread; added below in chunk order, so the sums are bit-equal)."""
        part = slice(lo, lo + PAIRED_CHUNK)  # bounded memory: k × chunk placement matrices
        return acc.moments([c[part] for c in codes], [r[part] for r in correct], y[part])

    for moments in ordered_map(chunk_moments, range(0, y.shape[0], PAIRED_CHUNK)):
        acc.add_moments(moments)
    return _pairing_of(acc)


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
