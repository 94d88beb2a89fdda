"""Config + files → the segments section: the models' aligned rows by segment, compared per value.

The segment columns are read beside every model's label, score and weight, and reduced to
distinct rows (each model's label and score, the segment values) with their counts, the
fairness and credit readers' reduction (:mod:`reportgen.reduce.credit_rows`): with
``engine: memory`` from the file read whole, with the streamed and Dask engines batch by batch
(``stream.batch_rows``), the parts merged as they grow, so every engine hands the same distinct
rows on, sorted into one order (so every sum, and every number, is the same to the bit).
Sampling weights are not counts, so their rows are kept as they are (every engine).
Models in separate files are read whole and paired by id (``id:``) or, without one, by position
when the files have equal lengths; otherwise each model's rows are compared as an independent
sample (pairing ``separate_files``).

Per value, the rows become evidence by the local runner over rows in memory
(:func:`reportgen.reduce.rows.evidence_of_rows`: counts as frequency weights, which the
evidence reads as the repeated rows) and the one driver compares them
(:func:`reportgen.engine.driver.compare_evidence`); :mod:`reportgen.engine.segments` adjusts
and reads the verdicts.
"""

from __future__ import annotations

import dataclasses
import difflib
from collections.abc import Sequence
from pathlib import Path
from typing import Any

import numpy as np

import reportgen.catalog as catalog
from reportgen.config import Config
from reportgen.engine import segments as SG
from reportgen.engine.compare import Settings
from reportgen.engine.driver import compare_evidence
from reportgen.errors import InputError
from reportgen.io.files import columns_in, read_table, record_batches
from reportgen.io.validate import (
    HEADER_ROWS,
    id_key_list,
    keys,
    model_file,
    numeric,
    positive_keys,
    shown_columns,
    shown_name,
)
from reportgen.reduce.rows import ModelRows, evidence_of_rows
from reportgen.results import Comparison
from reportgen.section_results import SegmentColumn, SegmentSection, SegmentValue

__all__ = ["check_segments", "segment_section"]

#: Distinct rows held before the batch reader merges its parts.
_MERGE_ROWS = 1_000_000


def _where(cfg: Config, j: int) -> str:
    """The config key of segment column ``j`` (the deprecated ``segment:`` when it names it)."""
    return cfg.where("segment") if cfg.segment == cfg.segments[j] else cfg.where("segments", j)


def _columns_present(cfg: Config) -> None:
    """Every segment column in every model's file, else a one-line error naming the config key."""
    for i, m in enumerate(cfg.models):
        if m.file is None:
            raise InputError(
                f"{cfg.where('models', i, 'source')}: the segments section reads its columns from files; "
                f"give models[{i}].file, or drop 'segments:'"
            )
        path = model_file(m)
        have = columns_in(path)
        for j, col in enumerate(cfg.segments):
            if col not in have:
                hint = difflib.get_close_matches(col, have, n=1)
                tip = f"; did you mean {shown_name(hint[0])}?" if hint else ""
                raise InputError(
                    f"{_where(cfg, j)}: column {col!r} not found in {path} (columns: {shown_columns(have)}){tip}"
                )


def _kind(cfg: Config) -> str:
    """How the rows are counted: ``count`` (distinct rows with counts; frequency weights add to
    them) or ``sampling`` (rows kept, their sampling weights beside them)."""
    weighted = cfg.weight is not None or any(m.weight is not None for m in cfg.models)
    return "sampling" if weighted and cfg.weight_kind != "frequency" else "count"


def _rows(
    cfg: Config,
    models: Sequence[Any],
    df: Any,
    path: Path,
    offset: int,
    idx: Sequence[int],
    ids: np.ndarray | None = None,
) -> dict[str, np.ndarray]:
    """The batch ``df`` of ``path`` as columns ``y{j}``, ``s{j}`` (and ``w{j}``) of the models
    ``idx`` and the segment columns (and ``_id``: ``ids``, the rows' id keys); a missing value is
    an error naming its row, or its row is dropped (``missing: drop``)."""
    pos = list(positive_keys(cfg.positive))
    out: dict[str, np.ndarray] = {}
    bad: list[tuple[str, np.ndarray]] = []
    for j in idx:
        m = models[j]
        label, weight = m.label or cfg.label, m.weight or cfg.weight
        lab = keys(df[label])
        out[f"y{j}"] = np.isin(lab, pos)
        out[f"s{j}"] = numeric(df[m.score], path, m.score, offset)
        bad += [(str(label), lab == None), (str(m.score), ~np.isfinite(out[f"s{j}"]))]  # noqa: E711
        if weight is not None:
            out[f"w{j}"] = numeric(df[weight], path, weight, offset)
            bad.append((weight, ~np.isfinite(out[f"w{j}"])))
    for c in cfg.segments:
        out[c] = keys(df[c])
        bad.append((c, out[c] == None))  # noqa: E711
    if ids is not None:
        out["_id"] = ids
    missing = np.logical_or.reduce([b for _, b in bad])
    if missing.any() and cfg.missing != "drop":
        row = int(np.flatnonzero(missing)[0])
        col = next(c for c, b in bad if b[row])
        raise InputError(
            f"{path}: column '{col}', row {offset + row + HEADER_ROWS}: missing value; fill it in, or set "
            f"'missing: drop' to drop such rows"
        )
    return {k: v[~missing] for k, v in out.items()}


def _compress(frame: Any, k: int) -> Any:
    """Equal rows summed into ``count`` (frequency weights ``w{j}`` of the first weighted model
    are the counts; rows of count 0 dropped)."""
    w = next((f"w{j}" for j in range(k) if f"w{j}" in frame.columns), None)
    if w is not None:
        frame = frame.assign(count=frame[w]).drop(columns=[c for c in frame.columns if c.startswith("w")])
    cols = [c for c in frame.columns if c != "count"]
    out = frame.groupby(cols, sort=False, dropna=False)["count"].sum().reset_index()
    return out[out["count"] > 0]


def _wanted(cfg: Config, models: Sequence[Any], idx: Sequence[int]) -> tuple[list[str], list[str], list[str]]:
    numbers = [models[j].score for j in idx] + [w for j in idx if (w := models[j].weight or cfg.weight)]
    text = [models[j].label or cfg.label for j in idx] + list(cfg.segments)
    return sorted(set(numbers + text)), sorted(set(numbers)), sorted(set(text))  # type: ignore[arg-type]


def _one_file(cfg: Config, path: Path, kind: str) -> Any:
    """The models' rows of one shared file: whole (memory) or batch by batch, reduced to distinct
    rows with counts (``kind`` count) or kept (sampling weights)."""
    import pandas as pd  # noqa: PLC0415

    models, idx = cfg.models, range(len(cfg.models))
    columns, numbers, text = _wanted(cfg, models, idx)
    if cfg.engine == "memory":
        frame = pd.DataFrame(_rows(cfg, models, read_table(path, columns, numbers, text), path, 0, idx))
        return frame.assign(count=1) if kind == "sampling" else _compress(frame.assign(count=1), len(models))
    parts, held, offset = [], 0, 0
    for rb in record_batches(path, columns, cfg.stream.batch_rows, numbers, text):
        df = rb.to_pandas()
        part = pd.DataFrame(_rows(cfg, models, df, path, offset, idx)).assign(count=1)
        offset += len(df)
        parts.append(part if kind == "sampling" else _compress(part, len(models)))
        held += len(parts[-1])
        if kind == "count" and held > _MERGE_ROWS and len(parts) > 1:
            parts = [_compress(pd.concat(parts, ignore_index=True), len(models))]
            held = len(parts[0])
    frame = pd.concat(parts, ignore_index=True)
    return frame if kind == "sampling" else _compress(frame, len(models))


def _separate_files(cfg: Config, kind: str) -> tuple[Any, bool]:
    """Models in several files, read whole: joined by id, else by position (equal lengths);
    (frame, paired). Unpaired files give one frame per model stacked, each model's rows marked."""
    import pandas as pd  # noqa: PLC0415

    frames, whole = [], True
    for j, m in enumerate(cfg.models):
        path = model_file(m)
        columns, numbers, text = _wanted(cfg, cfg.models, [j])
        ident = m.id or cfg.id
        df = read_table(path, sorted({*columns, *([ident] if ident else [])}), numbers, text)
        ids = np.asarray(id_key_list(df[ident]), dtype=object) if ident else None
        part = pd.DataFrame(_rows(cfg, cfg.models, df, path, 0, [j], ids))
        whole &= len(part) == len(df)
        frames.append(part[part["_id"].notna()] if ident else part)
    ids_given = all("_id" in f.columns for f in frames)
    # by position only when no row was dropped (else the rows no longer line up: as the engines' rows_dropped)
    if ids_given or (whole and len({len(f) for f in frames}) == 1):
        joined = frames[0]
        for f in frames[1:]:
            f = f.drop(columns=list(cfg.segments))
            joined = joined.merge(f, on="_id") if ids_given else pd.concat([joined, f.reset_index(drop=True)], axis=1)
        joined = joined.drop(columns=["_id"], errors="ignore").assign(count=1)
        return (joined if kind == "sampling" else _compress(joined, len(cfg.models))), True
    return [f.drop(columns=["_id"], errors="ignore").assign(count=1) for f in frames], False


def _samples(cfg: Config) -> tuple[Any, bool]:
    """(the models' rows with the segment columns, paired): one frame, or one per model when unpaired."""
    kind = _kind(cfg)
    paths = {model_file(m) for m in cfg.models}
    data, paired = (_one_file(cfg, next(iter(paths)), kind), True) if len(paths) == 1 else _separate_files(cfg, kind)
    return (_canonical(data), True) if paired else ([_canonical(f) for f in data], False)


def _canonical(frame: Any) -> Any:
    """The rows in one order whatever order they were read in (sorted by every column), so the
    sums over them, and so every number, are the same to the last bit in every engine."""
    return frame.sort_values(list(frame.columns), kind="stable", ignore_index=True)


def _counts(frame: Any, j: int) -> tuple[float, float]:
    """(positives, negatives) of model ``j`` in ``frame`` (rows; counts summed)."""
    c = frame["count"].to_numpy(dtype=np.float64)
    y = frame[f"y{j}"].to_numpy(dtype=bool)
    return float(c[y].sum()), float(c[~y].sum())


def _value(cfg: Config, settings: Settings, parts: list[Any], paired: bool, kind: str, value: str) -> SegmentValue:
    """One segment value's counts and, with enough rows of each class, its comparison."""
    first = parts[0]
    b = [m.name for m in cfg.models].index(cfg.baseline_name)
    base = first if paired else parts[b]
    rows, pos = int(base["count"].sum()), _counts(base, b)[0]
    counts = [_counts(parts[j] if not paired else first, j) for j in range(len(cfg.models))]
    if min(min(p, n) for p, n in counts) < cfg.segments_min_rows:
        return SegmentValue(value=value, rows=rows, positives=int(pos), tested=False)
    models = []
    for j, m in enumerate(cfg.models):
        f = first if paired else parts[j]
        w = f[f"w{j}"].to_numpy() if kind == "sampling" and f"w{j}" in f.columns else None
        models.append(
            ModelRows(
                m.name,
                "segment" if paired else f"segment-{j}",
                f[f"s{j}"].to_numpy(dtype=np.float64),
                f[f"y{j}"].to_numpy(dtype=bool),
                w if kind == "sampling" else f["count"].to_numpy(dtype=np.float64),
                m.direction,
                m.probabilities,
                m.threshold,
            )
        )
    weight_kind = "sampling" if kind == "sampling" else "frequency"
    ev = evidence_of_rows(models, cfg.threshold, aligned=paired, weight_kind=weight_kind)
    results, comparisons, _ = compare_evidence(ev, dataclasses.replace(settings, weight_kind=weight_kind))
    return SegmentValue(
        value=value,
        rows=rows,
        positives=int(pos),
        tested=True,
        models=SG.segment_models(results, settings.primary_metric),
        deltas=SG.raw_deltas(comparisons),
    )


def segment_section(cfg: Config, settings: Settings, comparisons: Sequence[Comparison]) -> SegmentSection | None:
    """The segments section of a run (None without ``segments:``). ``settings``: the run's
    analysis settings (the comparison at equal approval rate, partial AUCs, calibration and
    prevalence scenarios are left out per segment); ``comparisons``: the whole sample's, whose
    deltas the reversals are read against."""
    if not cfg.segments:
        return None
    _columns_present(cfg)
    kind = _kind(cfg)
    data, paired = _samples(cfg)
    slim = dataclasses.replace(
        settings, approval_rates=(), partial_auc=(), calibration=None, prevalences=(), constraints=()
    )
    better = catalog.metric(cfg.primary).better or "higher"
    columns = []
    for c in cfg.segments:
        frames = [data] if paired else list(data)
        values = sorted(set().union(*(set(f[c].tolist()) for f in frames)), key=str)
        per = [_value(cfg, slim, [f[f[c] == v] for f in frames], paired, kind, str(v)) for v in values]
        columns.append(SegmentColumn(column=c, values=SG.adjusted(per, better, cfg.confidence_level)))
    overall = {x.model: None if x.decision is None else x.decision.delta for x in comparisons}
    return SegmentSection(
        baseline=cfg.baseline_name,
        primary_metric=cfg.primary,
        min_rows=cfg.segments_min_rows,
        alpha=SG.MP.alpha_of(cfg.confidence_level),
        columns=columns,
        reversals=SG.reversals(columns, overall, better),
    )


def check_segments(cfg: Config) -> str | None:
    """``reportgen validate``'s check of the segment columns: present in every model's file and
    read as the run reads them; None without ``segments:``."""
    if not cfg.segments:
        return None
    _columns_present(cfg)
    data, paired = _samples(cfg)
    frame = data if paired else data[0]
    shown = ", ".join(f"{c}: {frame[c].nunique()} values" for c in cfg.segments)
    return f"segment columns checked ({shown})"
