"""Config + files → the fairness section: per protected column, one score table per group.

Each model's file is read once per protected column with the credit section's checks and
messages (:mod:`reportgen.reduce.credit_rows`, the group column read as its ``segment:``): whole
with ``engine: memory``, in record batches otherwise, each row reduced to its key (its id with
``id:``, else its place in the file), label, score, decision at the model's rule, group and
frequency weight (:func:`keyed_rows`). Per group those rows become a score table
(:func:`reportgen.engine.fairness.group_tables`), the same table from every engine.

A challenger's change against the baseline is paired: the rows both models score (the ids both
hold; without ids the files' rows one by one, when the files are equally long and no row was
dropped) are counted into one joint table per group (:func:`reportgen.engine.fairness.joint_cells`),
the same table from every engine. The streamed engines hold these per-row keys and codes, as
their id join holds each model's ids.
"""

from __future__ import annotations

import difflib
from collections.abc import Iterable, Mapping
from dataclasses import dataclass
from typing import Any

import numpy as np

from reportgen.config import Config, ModelConfig
from reportgen.engine import streams
from reportgen.engine.fairness import fairness_change, fairness_changes, fairness_column, group_tables, joint_cells
from reportgen.errors import InputError
from reportgen.io.files import columns_in, read_table, record_batches
from reportgen.io.validate import model_file, shown_columns, shown_name
from reportgen.reduce import credit_rows as CR
from reportgen.results import ModelResult
from reportgen.section_results import FairnessChange, FairnessColumn, FairnessModel, FairnessSection

__all__ = ["check_fairness", "fairness_section"]


def _columns_present(cfg: Config) -> None:
    """Every group column in every model's file, else a one-line error naming the config key."""
    assert cfg.fairness is not None
    for i, m in enumerate(cfg.models):
        if m.file is None:
            raise InputError(
                f"{cfg.where('models', i, 'source')}: the fairness section reads its columns from files; "
                f"give models[{i}].file, or drop 'fairness:'"
            )
        path = model_file(m)
        have = columns_in(path)
        for j, col in enumerate(cfg.fairness.groups):
            if col not in have:
                hint = difflib.get_close_matches(col, have, n=1)
                tip = f"; did you mean {shown_name(hint[0])}?" if hint else ""
                raise InputError(
                    f"{cfg.where('fairness', 'groups', j)}: column {col!r} not found in {path} "
                    f"(columns: {shown_columns(have)}){tip}"
                )


def _threshold(cfg: Config, models: Mapping[str, ModelResult], name: str) -> float:
    """The model's decision threshold (the run's when it has none of its own)."""
    t = models[name].threshold
    return cfg.threshold if t is None else t


@dataclass(frozen=True, slots=True)
class KeyedRows:
    """One model's checked rows: key (id, else the row's place in the file), label, score, decision
    at the model's rule, group (an index into ``names``), multiplicity (frequency weight, else
    None); ``dropped``: whether validation dropped any row of the file. Its group tables and the
    pairing are built from them (per row about 30 bytes and its id: what the id join holds too)."""

    keys: np.ndarray
    by_id: bool
    y: np.ndarray
    score: np.ndarray
    decision: np.ndarray
    group: np.ndarray
    names: np.ndarray
    count: np.ndarray | None
    dropped: bool

    def labels(self) -> np.ndarray:
        """Each row's group (object array of the names)."""
        return self.names[self.group]


def keyed_rows(one: Config, m: ModelConfig, threshold: float) -> KeyedRows:
    """Model ``m``'s rows of ``one`` (the config with the group column read as ``segment``), checked
    as the section reads them: the file whole with ``engine: memory``, else in record batches."""
    path = model_file(m)
    wanted = CR.wanted_columns(one, m, path, False, columns_in(path))
    columns, numbers, text = CR.read_types(wanted)
    frames: Iterable[Any] = (
        [read_table(path, columns, numbers, text)]
        if one.engine == "memory"
        else (rb.to_pandas() for rb in record_batches(path, columns, one.stream.batch_rows, numbers, text))
    )
    codes: dict[str, int] = {}
    parts: list[tuple[np.ndarray, np.ndarray, np.ndarray, np.ndarray, np.ndarray | None]] = []
    offset, kept, by_id = 0, 0, False
    for df in frames:
        sample, weights = CR.checked_rows(one, path, df, wanted, offset)
        offset += len(df)
        if sample is None:
            continue
        assert sample.segment is not None  # the group column, read as the segment
        seen, inverse = np.unique(sample.segment, return_inverse=True)
        lut = np.array([codes.setdefault(str(g), len(codes)) for g in seen], dtype=np.int32)
        by_id = sample.ids is not None
        at = np.arange(kept, kept + len(sample.y))  # a place among the kept rows (used only when none is dropped)
        parts.append((sample.ids if by_id else at, sample.y, sample.score, lut[inverse.ravel()], weights))  # type: ignore[arg-type]
        kept += len(sample.y)
    if not parts:
        raise CR.no_rows_error(path)

    def cat(i: int) -> np.ndarray:
        return np.concatenate([p[i] for p in parts])

    score = cat(2)
    with_weights = parts[0][4] is not None
    if with_weights and not any(p[4] is not None and p[4].any() for p in parts):  # every kept row of weight 0
        raise CR.no_obligors_error(path, wanted)
    return KeyedRows(
        keys=cat(0),
        by_id=by_id,
        y=cat(1),
        score=score,
        decision=score >= threshold if m.direction == "higher" else score <= threshold,
        group=cat(3),
        names=np.array(list(codes), dtype=object),
        count=cat(4) if with_weights else None,
        dropped=kept != offset,
    )


def _paired(
    cfg: Config, col: str, base: KeyedRows, chal: KeyedRows, files: tuple[str, str]
) -> tuple[np.ndarray, np.ndarray, np.ndarray, np.ndarray, np.ndarray | None] | str:
    """(label, baseline's decision, challenger's decision, group, count) of the rows both models
    score, or why there are none: by id when both have ids, else row by row."""
    if base.by_id and chal.by_id:
        _, ib, ic = np.intersect1d(
            base.keys.astype(str), chal.keys.astype(str), assume_unique=True, return_indices=True
        )
        if ib.shape[0] == 0:
            return "no_common_ids"
        order = np.argsort(ib, kind="stable")  # the baseline's file order
        ib, ic = ib[order], ic[order]
    else:
        if base.dropped or chal.dropped:
            return "rows_dropped"
        if base.y.shape[0] != chal.y.shape[0]:
            return "lengths_differ"
        ib = ic = np.arange(base.y.shape[0])
    for what, a, b in (("label", base.y, chal.y), ("group", base.labels(), chal.labels())):
        differ = a[ib] != b[ic]
        if differ.any():
            i = int(np.flatnonzero(differ)[0])
            where = f"id {str(base.keys[ib[i]])!r}" if base.by_id and chal.by_id else f"data row {ib[i] + 1}"
            raise InputError(
                f"{cfg.where('fairness', 'groups', cfg.fairness.groups.index(col))}: the {what} of {where} "  # type: ignore[union-attr]
                f"differs between {files[0]} and {files[1]} ({str(a[ib[i]])!r} and {str(b[ic[i]])!r}); the paired change "
                f"needs the same rows in both files"
            )
    return (
        base.y[ib],
        base.decision[ib],
        chal.decision[ic],
        base.labels()[ib],
        None if base.count is None else base.count[ib],
    )


def _change(
    cfg: Config, col: str, mine: FairnessColumn, rows: dict[str, KeyedRows], name: str, rng: np.random.Generator
) -> tuple[FairnessChange, dict[str, float | None] | None]:
    """Challenger ``name``'s change against the baseline on column ``col`` and its point values,
    paired when the rows pair (else no interval, and no point: the difference of the values stands)."""
    base = cfg.baseline_name
    files = {m.name: str(model_file(m)) for m in cfg.models}
    paired = _paired(cfg, col, rows[base], rows[name], (files[base], files[name]))
    if isinstance(paired, str):
        return FairnessChange(col, None, None, {}, {}, {}, unpaired=paired), None
    y, db, dc, group, count = paired
    names = sorted(set(group.tolist()))
    if mine.reference not in names:
        return FairnessChange(col, None, None, {}, {}, {}, unpaired="reference_missing"), None
    codes = np.searchsorted(np.array(names, dtype=object), group)
    joint = joint_cells(y, db, dc, codes, len(names), count)
    return fairness_change(
        col, joint, names, mine.reference, cfg.confidence_level, cfg.bootstrap.resamples, rng, cfg.favourable
    )


def fairness_section(cfg: Config, models: Mapping[str, ModelResult]) -> FairnessSection | None:
    """The fairness section of a run (None without ``fairness:``), at each model's threshold."""
    if cfg.fairness is None:
        return None
    _columns_present(cfg)
    reference = {k: str(v) for k, v in cfg.fairness.reference.items()}
    per_model: dict[str, list] = {m.name: [] for m in cfg.models}
    paired: dict[str, list[FairnessChange]] = {m.name: [] for m in cfg.models}
    points: dict[str, dict[str, dict[str, float | None]]] = {m.name: {} for m in cfg.models}
    base = cfg.baseline_name
    for col in cfg.fairness.groups:
        one = cfg.with_overrides(segments=[col], segment=None, credit=None)
        rows = {m.name: keyed_rows(one, m, _threshold(cfg, models, m.name)) for m in one.models}
        for m in cfg.models:
            r = rows[m.name]
            kept = slice(None) if r.count is None else r.count > 0  # weight 0: no row (as repeated rows)
            count = None if r.count is None else r.count[kept]
            tables = group_tables(r.y[kept], r.score[kept], r.labels()[kept], m.direction, count)
            if col in reference and reference[col] not in tables:
                raise InputError(
                    f"{cfg.where('fairness', 'reference', col)}: group {reference[col]!r} not found in column "
                    f"{col!r} of {model_file(m)} (groups: {', '.join(tables)})"
                )
            rng = streams.stream(cfg.bootstrap.seed, "fairness", m.name, col)
            per_model[m.name].append(
                fairness_column(
                    col,
                    tables,
                    _threshold(cfg, models, m.name),
                    reference.get(col),
                    cfg.confidence_level,
                    cfg.bootstrap.resamples,
                    rng,
                    cfg.favourable,
                )
            )
        if len(cfg.models) > 1:
            for m in cfg.models:
                if m.name != base:
                    rng = streams.stream(cfg.bootstrap.seed, "fairness", "paired", m.name, col)
                    change, point = _change(cfg, col, per_model[base][-1], rows, m.name, rng)
                    paired[m.name].append(change)
                    if point is not None:
                        points[m.name][col] = point
    out = {}
    for name, cols in per_model.items():
        changes = {} if name == base else {**fairness_changes(cols, per_model[base]), **points[name]}
        out[name] = FairnessModel(
            model=name,
            threshold=models[name].threshold,
            columns=tuple(cols),
            changes=changes,
            paired=tuple(paired[name]),
        )
    return FairnessSection(models=out, favourable=cfg.favourable)


def check_fairness(cfg: Config) -> str | None:
    """``reportgen validate``'s check of the fairness columns: present in every model's file and
    readable by the run's reader (every row, as the run reads them); None without ``fairness:``."""
    if cfg.fairness is None:
        return None
    _columns_present(cfg)
    groups = {}
    for col in cfg.fairness.groups:
        one = cfg.with_overrides(segments=[col], segment=None, credit=None)
        found = [keyed_rows(one, m, cfg.threshold) for m in one.models]  # every model's file, as the run reads it
        groups[col] = len(found[0].names)
    return "fairness columns checked (" + ", ".join(f"{c}: {k} groups" for c, k in groups.items()) + ")"
