"""The pushed-down runner: binary score tables computed by the database (``source.pushdown: true``).

A binary model's metrics, curves, optimal thresholds and DeLong's AUC variance are functions of
its score table — per distinct score, the weight of positives and of negatives
(:class:`~reportgen.engine.curve.ScoreTable`). So instead of pulling every row, the database
runs ``GROUP BY score, label`` over the user's query (:func:`reportgen.io.sql.grouped`)
and only one row per distinct (score, label) crosses the network — with a weight column, one per
distinct (score, label, weight): the weight cells the row readers count, from which the table's
weight sums are added in their one order, the weighted bootstrap drawn and the counts in rows
taken. The values come back as stored and are read by the row rule here, never cast by the
database. The table built here is the table every engine builds from the same rows (same
thresholds, same counts, the same weight sums to the bit), so the numbers equal the numbers of
the same data read from a file.

What a score table cannot give is said, not faked: the models' rows are not paired (pairing
reason ``separate_files``: each query is its own dataset), so the comparison uses the
unpaired methods exactly as the stream engine does for separate files.

Validation mirrors the row readers' rules on the grouped rows: a NULL score, label or weight is
an error (``missing: error``) or its rows are dropped and counted (``missing: drop``); a
non-finite score, a negative weight, more than two labels or a missing class is a one-line
error naming the config key.
"""

from __future__ import annotations

from typing import Any

import numpy as np

import reportgen.io.validate as V
from reportgen.config import Config
from reportgen.engine.curve import ScoreTable, build_table
from reportgen.engine.evidence import BinaryEvidence
from reportgen.errors import InputError
from reportgen.io.files import FileInfo
from reportgen.io.sql import database, describe, grouped
from reportgen.reduce import accumulators as S
from reportgen.reduce.evidence_of import ModelTable, binary_evidence, load_audit

#: Scores beyond this magnitude are refused, as by the row readers.
MAX_ABS_SCORE = 1e300


def _values(table: Any, role: str) -> Any:  # a pyarrow Table in, a pandas Series out
    """A value column of the grouped rows as stored, for the row rule: SQLite's text and numbers
    put back together by their ``typeof``."""
    import pandas as pd  # noqa: PLC0415

    if f"{role}_type" in table.column_names:
        kind = table.column(f"{role}_type").to_pandas()
        num = table.column(f"{role}_num").to_numpy(zero_copy_only=False)
        if kind.isin(("integer", "real")).all():
            return pd.Series(num, dtype=np.float64)
        text = table.column(f"{role}_text").to_pandas().astype(object)
        out = text.where(kind.isin(("text", "blob")), pd.Series(num, dtype=object))
        return out.where(kind != "null", None)
    return table.column(role).to_pandas()


def _numbers(values: object, where: str, column: str) -> np.ndarray:
    """Grouped values (a pandas Series) as float64 by the row readers' parse
    (:func:`reportgen.io.validate.numeric`: text that is a number, true / false as 1 / 0, the
    missing-value spellings missing); the first that is not a number is one line naming the
    config key and the value."""
    faults = V.Faults()
    out = V.numeric(values, where, column, faults=faults)  # type: ignore[arg-type]
    if faults.best is not None:
        value = values.iloc[faults.best[0]]  # type: ignore[attr-defined]
        raise InputError(
            f"{where}: column '{column}': non-numeric value {V.show(value)}; "
            f"{V.number_expected(value)} (fix the data or cast it in the query)"
        )
    return out


def _check_weights(cfg: Config, w: np.ndarray, where: str, column: str) -> None:
    """The row readers' weight rules on the kept cells' weights: negative, outside
    [:data:`~reportgen.io.validate.MIN_WEIGHT`, :data:`~reportgen.io.validate.MAX_WEIGHT`] (0 aside),
    not a whole number under ``weight_kind: frequency``."""
    if (w < 0).any():
        raise InputError(f"{where}: column '{column}': negative weight {float(w.min()):g}; weights must be >= 0")
    if (w > V.MAX_WEIGHT).any():
        raise InputError(
            f"{where}: column '{column}': weight {float(w.max()):g} is too large "
            f"(at most {V.MAX_WEIGHT:g}); rescale the weights"
        )
    small = w[(w > 0) & (w < V.MIN_WEIGHT)]
    if small.shape[0]:
        raise InputError(
            f"{where}: column '{column}': weight {float(small.min()):g} is too small "
            f"(0, or at least {V.MIN_WEIGHT:g}); rescale the weights"
        )
    if cfg.weight_kind == "frequency" and (w != np.round(w)).any():
        raise InputError(
            f"{where}: column '{column}': a weight is not a whole number; weight_kind: frequency needs "
            f"whole-number weights (use weight_kind: sampling)"
        )


def pushed_table(cfg: Config, i: int) -> tuple[ModelTable, FileInfo, list[tuple[str, str, int]]]:
    """Model ``i``'s score table from the database, its audit record and its dropped rows.

    Unweighted, the database's groups are the table's rows with their counts. Weighted, they are
    the weight cells (rows per (score, label, weight), :class:`~reportgen.reduce.accumulators.CellCounter`)
    every engine counts: the table's weight sums are taken from them in the engines' one order
    (:func:`~reportgen.reduce.accumulators.table_of_cells`), and they carry the weighted
    bootstrap and the counts in rows (positives, negatives, the confusion counts) as from a file."""
    import hashlib  # noqa: PLC0415

    import pyarrow as pa  # noqa: PLC0415
    import pyarrow.compute as pc  # noqa: PLC0415

    m = cfg.models[i]
    assert m.source is not None
    where = cfg.where("models", i, "source")
    cols = V.columns_for(cfg, m)
    weighted = "weight" in cols
    db = database(cfg, i)
    rows = grouped(db, m.source, cols, where)
    label_of = describe(m.source, db)
    at = f"{where} ({label_of})"
    n = rows.column("n").to_numpy(zero_copy_only=False).astype(np.int64)
    s_all = _numbers(_values(rows, "score"), at, cols["score"])
    w_all = _numbers(_values(rows, "weight"), at, cols["weight"]) if weighted else np.ones(n.shape[0])
    label_keys = V.key_array(rows.column("label"))  # the row rule's keys: '' and 'nan' are missing as pulled
    dropped: list[tuple[str, str, int]] = []
    checks = [
        (V.missing_score(cols["score"]), ~np.isfinite(s_all)),
        (
            V.missing_label(cols["label"], "binary"),
            np.asarray(label_keys.is_null().to_numpy(zero_copy_only=False), bool),
        ),
    ]
    if weighted:
        checks.append((V.missing_weight(cols["weight"]), ~np.isfinite(w_all)))
    keep = np.ones(n.shape[0], bool)
    for reason, bad in checks:
        bad = bad & keep
        if bad.any():
            if cfg.missing == "error":
                raise InputError(f"{at}: {int(n[bad].sum())} row(s) with {reason}; fix the data or set missing: drop")
            dropped.append((m.name, reason, int(n[bad].sum())))
            keep &= ~bad
    if not keep.any():
        raise V.no_rows_left(at, m.name)
    s = s_all[keep]
    if (np.abs(s) > MAX_ABS_SCORE).any():
        bad_s = s[np.abs(s) > MAX_ABS_SCORE][0]
        raise InputError(
            f"{at}: column '{cols['score']}': score {float(bad_s):g} is too large in "
            f"magnitude (at most ±{MAX_ABS_SCORE:g}); rescale the scores"
        )
    if m.probabilities and ((s < 0) | (s > 1)).any():
        raise InputError(f"{at}: model '{m.name}': probabilities: true but a score lies outside [0, 1]")
    labels = label_keys.filter(pa.array(keep))
    found = set(labels.unique().to_pylist())
    V.check_two_labels(at, cols["label"], found)
    positive = V.positive_keys(cfg.positive)
    is_pos = np.asarray(
        pc.is_in(labels, value_set=pa.array(sorted(positive), pa.string())).to_numpy(zero_copy_only=False), bool
    )
    wk, nk = w_all[keep], n[keep]
    if weighted:
        _check_weights(cfg, wk, at, cols["weight"])
    base = build_table(s, is_pos, wk * nk, m.direction)
    table = ScoreTable(
        base.thresholds,
        base.pos,
        base.neg,
        m.direction,
        float(np.sum(nk * wk * wk)) if weighted else float(nk.sum()),
        int(nk.sum()),
        weighted,
    )
    V.check_both_classes(cfg, at, cols["label"], found, table.total_pos, table.total_neg, cols.get("weight"))
    cells = None
    if weighted:  # the weight cells, counted as the row readers count them
        counter = S.CellCounter(pool=True)
        counter.add_counted(s, is_pos, wk, nk)
        cells = counter.cells(table)
        table = S.table_of_cells(table, cells)
    digest = hashlib.sha256()
    for arr in (table.thresholds, table.pos, table.neg):
        digest.update(np.ascontiguousarray(arr).tobytes())
    info = FileInfo(label_of, digest.hexdigest(), int(n.sum()), int(rows.nbytes))
    model = ModelTable(m.name, label_of, m.direction, m.probabilities, m.threshold, table, None, None, cells)
    return model, info, dropped


def load_pushed(cfg: Config) -> BinaryEvidence:
    """The evidence of every model's score table from its database (the config guarantees all are
    pushed down)."""
    models, files, dropped = [], [], []
    for i in range(len(cfg.models)):
        model, info, d = pushed_table(cfg, i)
        models.append(model)
        files.append(info)
        dropped.extend(d)
    # each model's score table was computed by its own database query, so rows cannot be paired
    return binary_evidence(cfg, models, None, "separate_files", load_audit(files, dropped, ()))
