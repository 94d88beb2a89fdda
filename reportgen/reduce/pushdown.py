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
from reportgen.io.sql import describe, pushdown_query, run_query
from reportgen.engine.evidence import BinaryEvidence
from reportgen.reduce.evidence_of import ModelTable, binary_evidence, load_audit

#: Scores beyond this magnitude are refused, as by the row readers.
MAX_ABS_SCORE = 1e300


def _column(table, name: str) -> np.ndarray:  # noqa: ANN001 - a pyarrow Table
    return table.column(name).to_numpy(zero_copy_only=False)


def _number(v: object) -> bool:
    """Whether numpy reads ``v`` as a float (a number, or text such as ``'0.5'``)."""
    try:
        np.float64(v)  # type: ignore[arg-type]
    except (TypeError, ValueError):
        return False
    return True


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
    dropped: list[tuple[str, str, int]] = []
    checks = [
        (V.missing_score(cols["score"]), np.asarray(score.is_null().to_numpy(zero_copy_only=False), bool)),
        (V.missing_label(cols["label"], "binary"), np.asarray(label.is_null().to_numpy(zero_copy_only=False), bool)),
    ]
    if "weight" in cols:
        checks.append((V.missing_weight(cols["weight"]), w_present < n))
    keep = np.ones(n.shape[0], bool)
    for reason, bad in checks:
        bad = bad & keep
        if bad.any():
            if cfg.missing == "error":
                raise InputError(f"{where} ({label_of}): {int(n[bad].sum())} row(s) with {reason}; "
                                 f"fix the data or set missing: drop")
            dropped.append((m.name, reason, int(n[bad].sum())))
            keep &= ~bad
    if not keep.any():
        raise V.no_rows_left(f"{where} ({label_of})", m.name)
    kept = score.filter(keep)
    try:
        s = kept.to_numpy(zero_copy_only=False).astype(np.float64)
    except (TypeError, ValueError):  # text the database kept as text (SQLite's mixed columns): name it
        bad_v = next((v for v in kept.to_pylist() if not _number(v)), None)
        raise InputError(f"{where} ({label_of}): column '{cols['score']}': non-numeric value {bad_v!r}; "
                         f"expected a number (fix the data or cast it in the query)") from None
    if not np.isfinite(s).all() or (np.abs(s) > MAX_ABS_SCORE).any():
        bad_s = s[~np.isfinite(s) | (np.abs(s) > MAX_ABS_SCORE)][0]
        raise InputError(f"{where} ({label_of}): column '{cols['score']}': score {float(bad_s)!r} is not a finite number "
                         f"within ±{MAX_ABS_SCORE:g}; fix the scores")
    if m.probabilities and ((s < 0) | (s > 1)).any():
        raise InputError(f"{where} ({label_of}): model '{m.name}': probabilities: true but a score lies outside [0, 1]")
    labels = label.filter(keep)
    distinct = labels.unique().to_pylist()
    keys = {v: V.label_key(v) for v in distinct}
    found = set(keys.values())
    V.check_two_labels(f"{where} ({label_of})", cols["label"], found)
    positive = V.positive_keys(cfg.positive)
    import pyarrow as pa  # noqa: PLC0415
    import pyarrow.compute as pc  # noqa: PLC0415

    pos_values = pa.array([v for v, k in keys.items() if k in positive], type=labels.type)
    is_pos = np.asarray(pc.is_in(labels, value_set=pos_values).to_numpy(zero_copy_only=False), bool)
    wk, nk = w[keep], n[keep]
    if "weight" in cols and (_column(grouped, "w_min")[keep] < 0).any():
        raise InputError(f"{where} ({label_of}): column '{cols['weight']}': a weight is negative; weights must be >= 0")
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
