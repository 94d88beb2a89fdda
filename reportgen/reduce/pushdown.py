"""The pushed-down runner: binary score tables computed by the database (``source.pushdown: true``).

A binary model's metrics, curves, optimal thresholds and DeLong's AUC variance are functions of
its score table — per distinct score, the weight of positives and of negatives
(:class:`~reportgen.engine.curve.ScoreTable`). So instead of pulling every row, the database
runs ``GROUP BY score, label`` over the user's query (:func:`reportgen.io.sql.pushdown_query`)
and only one row per distinct (score, label) crosses the network. The table built here is the
table the stream engine builds from the same rows (same thresholds, same counts; with weights,
sums made by the database in its own order, equal to a few ulps), so the numbers equal the
``engine: stream`` numbers of the same data read from a file.

What a score table cannot give is said, not faked: the models' rows are not paired (pairing
reason ``separate_files``: each query is its own dataset), so the comparison uses the
unpaired methods exactly as the stream engine does for separate files.

Validation mirrors the row readers' rules on the grouped rows: a NULL score, label or weight is
an error (``missing: error``) or its rows are dropped and counted (``missing: drop``); a
non-finite score, a negative weight, more than two labels or a missing class is a one-line
error naming the config key.
"""

from __future__ import annotations

import numpy as np

import reportgen.io.validate as V
from reportgen.config import Config
from reportgen.engine.curve import ScoreTable, build_table
from reportgen.errors import InputError
from reportgen.io.files import FileInfo
from reportgen.io.sql import describe, pushdown_query, run_query, text_weights_query
from reportgen.engine.evidence import BinaryEvidence
from reportgen.reduce.evidence_of import ModelTable, binary_evidence, load_audit

#: Scores beyond this magnitude are refused, as by the row readers.
MAX_ABS_SCORE = 1e300


def _column(table, name: str) -> np.ndarray:  # noqa: ANN001 - a pyarrow Table
    return table.column(name).to_numpy(zero_copy_only=False)


def _numbers(values: object, where: str, column: str) -> np.ndarray:
    """Grouped values (a pandas Series) as float64 by the row readers' parse
    (:func:`reportgen.io.validate.numeric`: text that is a number, true / false as 1 / 0); the
    first that is not a number is one line naming the config key and the value."""
    faults = V.Faults()
    out = V.numeric(values, where, column, faults=faults)  # type: ignore[arg-type]
    if faults.best is not None:
        raise InputError(f"{where}: column '{column}': non-numeric value {V.show(values.iloc[faults.best[0]])}; "  # type: ignore[attr-defined]
                         f"expected a number (fix the data or cast it in the query)")
    return out


def _check_text_weights(source: object, column: str, where: str, label_of: str) -> None:
    """SQLite: weights stored as text are read by the row rule, as the pulled rows read them; the
    database's cast made 0 of a non-number (``'abc'``) and of ``'true'``, silently."""
    import pandas as pd  # noqa: PLC0415

    sql, params = text_weights_query(source, column, where)  # type: ignore[arg-type]
    found = run_query(source, sql, params, where)  # type: ignore[arg-type]
    raw = found.column("w").to_pylist()
    text = pd.Series([v.decode("utf-8", "replace") if isinstance(v, bytes) else v for v in raw], dtype=object)
    read = _numbers(text, f"{where} ({label_of})", column)
    cast = _column(found, "w_cast").astype(np.float64)
    differ = ~np.isclose(read, cast, rtol=1e-12, atol=0.0, equal_nan=True)
    if differ.any():
        i = int(np.flatnonzero(differ)[0])
        raise InputError(f"{where} ({label_of}): column '{column}': weight {text[i]!r} is read as {read[i]:g} by the "
                         f"row rule but as {cast[i]:g} by the database; cast it in the query")


def _check_weights(cfg: Config, grouped: object, keep: np.ndarray, where: str, column: str) -> None:
    """The row readers' weight rules on the grouped weights: negative, outside
    [:data:`~reportgen.io.validate.MIN_WEIGHT`, :data:`~reportgen.io.validate.MAX_WEIGHT`] (0 aside),
    not a whole number under ``weight_kind: frequency`` (pushed down, a weight of 1e30 or 1e-300
    was summed where every file engine refuses it)."""
    lo, hi = _column(grouped, "w_min")[keep].astype(np.float64), _column(grouped, "w_max")[keep].astype(np.float64)
    pos = _column(grouped, "w_min_positive")[keep].astype(np.float64)
    if (lo < 0).any():
        raise InputError(f"{where}: column '{column}': negative weight {float(lo.min()):g}; weights must be >= 0")
    if (hi > V.MAX_WEIGHT).any():
        raise InputError(f"{where}: column '{column}': weight {float(np.nanmax(hi)):g} is too large "
                         f"(at most {V.MAX_WEIGHT:g}); rescale the weights")
    if (pos < V.MIN_WEIGHT).any():
        raise InputError(f"{where}: column '{column}': weight {float(np.nanmin(pos)):g} is too small "
                         f"(0, or at least {V.MIN_WEIGHT:g}); rescale the weights")
    if cfg.weight_kind == "frequency" and _column(grouped, "n_fraction")[keep].astype(np.float64).sum() > 0:
        raise InputError(f"{where}: column '{column}': a weight is not a whole number; weight_kind: frequency needs "
                         f"whole-number weights (use weight_kind: sampling)")


def pushed_table(cfg: Config, i: int) -> tuple[ModelTable, FileInfo, list[tuple[str, str, int]]]:
    """Model ``i``'s score table from the database, its audit record and its dropped rows."""
    import hashlib  # noqa: PLC0415

    m = cfg.models[i]
    assert m.source is not None  # noqa: S101
    where = cfg.where("models", i, "source")
    cols = V.columns_for(cfg, m)
    sql, params = pushdown_query(m.source, cols, where)
    grouped = run_query(m.source, sql, params, where)
    label_of = describe(m.source)
    n = _column(grouped, "n").astype(np.int64)
    score = grouped.column("score")
    label = grouped.column("label")
    w = _column(grouped, "w").astype(np.float64)
    w_present = _column(grouped, "n_w").astype(np.int64)
    # text the database kept as text (SQLite's mixed columns) read by the row rule: '0.5', true / false, 'NA'
    s_all = _numbers(score.to_pandas(), f"{where} ({label_of})", cols["score"])
    if "weight" in cols and _column(grouped, "n_text").sum() > 0:
        _check_text_weights(m.source, cols["weight"], where, label_of)
    label_keys = V.key_array(label)  # the row rule's keys: '' and 'nan' are missing as in the pulled rows
    dropped: list[tuple[str, str, int]] = []
    checks = [
        (V.missing_score(cols["score"]), ~np.isfinite(s_all)),
        (V.missing_label(cols["label"], "binary"), np.asarray(label_keys.is_null().to_numpy(zero_copy_only=False), bool)),
    ]
    keep = np.ones(n.shape[0], bool)
    for reason, bad in checks:
        bad = bad & keep
        if bad.any():
            if cfg.missing == "error":
                raise InputError(f"{where} ({label_of}): {int(n[bad].sum())} row(s) with {reason}; "
                                 f"fix the data or set missing: drop")
            dropped.append((m.name, reason, int(n[bad].sum())))
            keep &= ~bad
    if "weight" in cols and (w_present < n)[keep].any():
        # the rows without a weight, not their group: SUM and MIN skip them, COUNT(w) counts the rest
        lost = int((n - w_present)[keep].sum())
        if cfg.missing == "error":
            raise InputError(f"{where} ({label_of}): {lost} row(s) with {V.missing_weight(cols['weight'])}; "
                             f"fix the data or set missing: drop")
        dropped.append((m.name, V.missing_weight(cols["weight"]), lost))
        n = np.where(keep, w_present, n)
        keep &= n > 0
    if not keep.any():
        raise V.no_rows_left(f"{where} ({label_of})", m.name)
    s = s_all[keep]
    if (np.abs(s) > MAX_ABS_SCORE).any():
        bad_s = s[np.abs(s) > MAX_ABS_SCORE][0]
        raise InputError(f"{where} ({label_of}): column '{cols['score']}': score {float(bad_s):g} is too large in "
                         f"magnitude (at most ±{MAX_ABS_SCORE:g}); rescale the scores")
    if m.probabilities and ((s < 0) | (s > 1)).any():
        raise InputError(f"{where} ({label_of}): model '{m.name}': probabilities: true but a score lies outside [0, 1]")
    import pyarrow as pa  # noqa: PLC0415
    import pyarrow.compute as pc  # noqa: PLC0415

    labels = label_keys.filter(pa.array(keep))
    found = set(labels.unique().to_pylist())
    V.check_two_labels(f"{where} ({label_of})", cols["label"], found)
    positive = V.positive_keys(cfg.positive)
    is_pos = np.asarray(pc.is_in(labels, value_set=pa.array(sorted(positive), pa.string())).to_numpy(zero_copy_only=False),
                        bool)
    wk, nk = w[keep], n[keep]
    if "weight" in cols:
        _check_weights(cfg, grouped, keep, f"{where} ({label_of})", cols["weight"])
    base = build_table(s, is_pos, wk, m.direction)
    weighted = "weight" in cols
    w2 = _column(grouped, "w2").astype(np.float64)[keep]
    table = ScoreTable(base.thresholds, base.pos, base.neg, m.direction,
                       float(w2.sum()) if weighted else float(nk.sum()), int(nk.sum()), weighted)
    V.check_both_classes(cfg, f"{where} ({label_of})", cols["label"], found, table.total_pos, table.total_neg,
                         cols.get("weight"))
    digest = hashlib.sha256()
    for arr in (table.thresholds, table.pos, table.neg):
        digest.update(np.ascontiguousarray(arr).tobytes())
    info = FileInfo(label_of, digest.hexdigest(), int(n.sum()), int(grouped.nbytes))
    model = ModelTable(m.name, label_of, m.direction, m.probabilities, m.threshold, table, None, None)
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
