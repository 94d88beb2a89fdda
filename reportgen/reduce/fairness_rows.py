"""Config + files → the fairness section: per protected column, one score table per group.

The group columns are read as the credit section reads its ``segment:`` column
(:mod:`reportgen.reduce.credit_rows`, one reader, one set of checks and messages): whole with
``engine: memory``, in record batches reduced to distinct (label, score, group) rows with their
counts for the streamed and Dask engines. Per group those rows become a score table
(:func:`reportgen.engine.fairness.group_tables`), the same table from every engine.
"""

from __future__ import annotations

import difflib
from collections.abc import Mapping

import numpy as np

from reportgen.config import Config
from reportgen.engine import streams
from reportgen.engine.fairness import fairness_changes, fairness_column, group_tables
from reportgen.errors import InputError
from reportgen.io.files import columns_in
from reportgen.io.validate import model_file, shown_columns, shown_name
from reportgen.reduce import credit_rows as CR
from reportgen.results import FairnessModel, FairnessSection, ModelResult

__all__ = ["check_fairness", "fairness_section"]

#: One model's rows for one protected column: label, score, group, count per row (None: 1 each).
Rows = tuple[np.ndarray, np.ndarray, np.ndarray, np.ndarray | None]


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


def _samples(cfg: Config, column: str) -> dict[str, Rows]:
    """model name → (label, score, group, count or None) of its current file: the credit
    section's reader, with the group column read as its ``segment``."""
    one = cfg.with_overrides(segments=[column], segment=None, credit=None)
    out = {}
    for m in one.models:
        s = CR.current_sample(one, m)
        assert s.segment is not None  # read as the segment column, so always there
        out[m.name] = (s.y, s.score, s.segment, s.count)
    return out


def fairness_section(cfg: Config, models: Mapping[str, ModelResult]) -> FairnessSection | None:
    """The fairness section of a run (None without ``fairness:``), at each model's threshold."""
    if cfg.fairness is None:
        return None
    _columns_present(cfg)
    reference = {k: str(v) for k, v in cfg.fairness.reference.items()}
    per_model: dict[str, list] = {m.name: [] for m in cfg.models}
    for col in cfg.fairness.groups:
        samples = _samples(cfg, col)
        for m in cfg.models:
            y, score, groups, count = samples[m.name]
            tables = group_tables(y, score, groups, m.direction, count)
            if col in reference and reference[col] not in tables:
                raise InputError(
                    f"{cfg.where('fairness', 'reference', col)}: group {reference[col]!r} not found in column "
                    f"{col!r} of {model_file(m)} (groups: {', '.join(tables)})"
                )
            rng = streams.stream(cfg.bootstrap.seed, "fairness", m.name, col)
            threshold = models[m.name].threshold
            per_model[m.name].append(
                fairness_column(
                    col,
                    tables,
                    cfg.threshold if threshold is None else threshold,
                    reference.get(col),
                    cfg.confidence_level,
                    cfg.bootstrap.resamples,
                    rng,
                )
            )
    base = cfg.baseline_name
    out = {}
    for name, cols in per_model.items():
        changes = {} if name == base else fairness_changes(cols, per_model[base])
        out[name] = FairnessModel(model=name, threshold=models[name].threshold, columns=tuple(cols), changes=changes)
    return FairnessSection(models=out)


def check_fairness(cfg: Config) -> str | None:
    """``reportgen validate``'s check of the fairness columns: present in every model's file and
    readable by the run's reader (every row, as the run reads them); None without ``fairness:``."""
    if cfg.fairness is None:
        return None
    _columns_present(cfg)
    groups = {col: len(set(next(iter(_samples(cfg, col).values()))[2].tolist())) for col in cfg.fairness.groups}
    return "fairness columns checked (" + ", ".join(f"{c}: {k} groups" for c, k in groups.items()) + ")"
