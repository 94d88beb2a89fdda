"""The id join: which rows of each model are compared, the same in every engine.

With an ``id`` column every model's rows are matched by id: ids must be unique per model;
ids that some models lack are an error (``id_mismatch: error``) or are left out with a counted
warning (``intersect``); and one id must carry the same truth in every model. Without ids rows
are matched by position, which needs equal row counts and equal labels.

The engines hand over each model's ids (keys, :func:`reportgen.io.validate.keys`) of the rows
they kept, with the rows' 0-based positions in the file and their truth; ids fit in memory
(O(n)), scores never need to. The paired tests (DeLong, McNemar) run only on rows that are
aligned; :data:`NOTE_ID_ORDER` and friends say, in the same words for every engine, why not.
"""

from __future__ import annotations

from dataclasses import dataclass

import numpy as np
import pandas as pd

from reportgen.config import Config
from reportgen.errors import InputError
from reportgen.io.validate import HEADER_ROWS

#: Why a streamed engine does not pair rows of files joined by id in different orders.
NOTE_ID_ORDER = ("The models are in different files whose rows are not in the same id order; paired tests "
                 "(DeLong, McNemar) are not computed with this engine — put the scores in one table or write "
                 "the files in the same id order")
#: Why rows of different files without an id are not paired (different lengths).
NOTE_LENGTHS = ("The models are in different files of different lengths and no 'id' joins them; paired tests "
                "(DeLong, McNemar) are not computed — set 'id' in the config")
#: Why rows are not paired after rows were dropped (missing values, or ids not shared).
NOTE_DROPPED = "Rows were dropped, so the models' rows no longer line up: paired tests (DeLong, McNemar) are not computed"
#: Why weighted rows are not paired by the streamed engines.
NOTE_WEIGHTED = "Weighted rows: DeLong's and McNemar's paired tests are not computed with this engine"
#: Why parts of different Dask datasets are not paired.
NOTE_DATASETS = ("The models are in different datasets; with engine: dask paired tests (DeLong, McNemar) need the "
                 "scores in one dataset (rows of different datasets' parts do not line up)")


@dataclass(frozen=True, slots=True)
class Keyed:
    """One model's kept rows as the join sees them.

    ``ids``: id keys (object array of str); ``rows``: each row's 0-based position in ``file``;
    ``truth``: the label of each row (booleans or class keys)."""

    name: str
    file: str
    id_column: str
    ids: np.ndarray
    rows: np.ndarray
    truth: np.ndarray


@dataclass(frozen=True, slots=True)
class Join:
    """The outcome of :func:`join_ids`.

    ``take[m]``: positions in model m's kept rows, in the common order (the first model's);
    ``common``: the shared ids in that order; ``left_out[m]``: rows of model m whose id is not
    shared (0 unless ``id_mismatch: intersect``); ``in_order``: every model has the same ids in
    the same order, so rows also line up by position."""

    take: tuple[np.ndarray, ...]
    common: np.ndarray
    left_out: tuple[int, ...]
    warnings: tuple[str, ...]
    in_order: bool


def check_unique(k: Keyed) -> None:
    """Ids must be unique within a model (the first repeat is an error naming its row)."""
    dup = pd.Index(k.ids).duplicated()
    if dup.any():
        j = int(np.flatnonzero(dup)[0])
        raise InputError(f"{k.file}: column '{k.id_column}', row {int(k.rows[j]) + HEADER_ROWS}: duplicated id {k.ids[j]!r}; ids must be unique")


def join_ids(cfg: Config, models: list[Keyed]) -> Join:
    """Match the models' rows by id (errors and warnings as the module docstring says)."""
    for k in models:
        check_unique(k)
    index = [pd.Index(k.ids) for k in models]
    common = index[0]
    for ix in index[1:]:
        common = common.intersection(ix, sort=False)
    warnings: list[str] = []
    left_out = []
    for k, own in zip(models, index):
        extra = len(k.ids) - len(common)
        left_out.append(extra)
        if not extra:
            continue
        if cfg.id_mismatch == "error":
            other_i = next(j for j, o in enumerate(index) if o is not own and len(own.difference(o)))
            other = models[other_i]
            sample = ", ".join(repr(v) for v in own.difference(index[other_i], sort=False)[:3])
            raise InputError(
                f"{k.file}: model '{k.name}' has {extra} id(s) not shared by every model (e.g. {sample}, "
                f"missing from model '{other.name}' in {other.file}); align the files or set "
                f"'id_mismatch: intersect' to compare on the shared ids (dropped rows are counted)"
            )
        warnings.append(f"model '{k.name}': {extra} row(s) whose id is not in every model were dropped")
    take = tuple(ix.get_indexer(common) for ix in index)
    ref = models[0].truth[take[0]]
    for k, t in zip(models[1:], take[1:]):
        truth = k.truth[t]
        if not np.array_equal(truth, ref):
            i = int(np.flatnonzero(truth != ref)[0])
            raise InputError(
                f"{k.file}: model '{k.name}': the label of id {common[i]!r} differs from model '{models[0].name}'; "
                f"models compared on the same rows must share the truth"
            )
    in_order = all(len(k.ids) == len(models[0].ids) and np.array_equal(k.ids, models[0].ids) for k in models[1:])
    return Join(take, np.asarray(common, dtype=object), tuple(left_out), tuple(warnings), in_order)


def check_positions(files: list[str], names: list[str], truths: list[np.ndarray]) -> None:
    """Without ids: equal row counts and equal labels row by row (errors say to set 'id')."""
    n0 = truths[0].shape[0]
    for f, name, t in zip(files[1:], names[1:], truths[1:]):
        if t.shape[0] != n0:
            raise InputError(
                f"{f}: model '{name}' has {t.shape[0]} rows but '{names[0]}' has {n0}, and no 'id' column "
                f"joins them; set 'id' in the config"
            )
        if not np.array_equal(t, truths[0]):
            i = int(np.flatnonzero(t != truths[0])[0])
            raise InputError(
                f"{f}: model '{name}': row {i + HEADER_ROWS} has a different label than in '{names[0]}'; "
                f"rows do not line up — set 'id' in the config to join them"
            )
