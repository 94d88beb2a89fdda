"""The id join: which rows of each model are compared, the same in every engine.

With an ``id`` column every model's rows are matched by id: ids must be unique per model;
ids that some models lack are an error (``id_mismatch: error``) or are left out with a counted
warning (``intersect``); and one id must carry the same truth in every model. Without ids rows
are matched by position, which needs equal row counts and equal labels.

The engines hand over each model's ids (:func:`reportgen.io.validate.held_ids`) of the rows
they kept, with the rows' 0-based positions in the file and their truth; ids fit in memory
(O(n)), scores never need to. Only the rows every model keeps are compared (:func:`join_ids`,
:func:`intersect_positions`): the engines then pair them by each row's common index
(:meth:`Join.index`, :mod:`reportgen.io.pairs`); files of different lengths without an id are
not paired (reason ``lengths_differ``).
"""

from __future__ import annotations

import logging
from dataclasses import dataclass
from typing import Any

import numpy as np

from reportgen.config import Config
from reportgen.errors import InputError
from reportgen.io.validate import HEADER_ROWS
from reportgen.results import Notice
from reportgen.value import Value

log = logging.getLogger(__name__)

#: Reasons of the rows the intersection leaves out (``run.dropped``, the audit table), per model.
ID_NOT_SHARED = "id not in every model"
DROPPED_BY_ANOTHER = "dropped for another model (missing value)"


@dataclass(frozen=True, repr=False, eq=False, slots=True)
class Keyed(Value):
    """One model's kept rows as the join sees them.

    ``ids``: the ids (:func:`reportgen.io.validate.held_ids`: pyarrow int64, whose keys are their
    digits, or keys as pyarrow strings; an Array or a ChunkedArray, or an object array of str);
    ``rows``: each row's 0-based position in ``file``; ``truth``: the label of each row
    (booleans, or class ids: the runner's numbering, the same in every model); ``lost``: the ids
    of rows the model dropped itself for a missing value (``missing: drop``), which are in its
    file, so not a mismatch, but not compared either; ``classes``: the class keys by class id
    (errors name them)."""

    name: str
    file: str
    id_column: str
    ids: Any
    rows: np.ndarray
    truth: np.ndarray
    lost: Any = None
    classes: tuple[str, ...] = ()


@dataclass(frozen=True, repr=False, eq=False, slots=True)
class Join(Value):
    """The outcome of :func:`join_ids`.

    ``take[m]``: positions in model m's kept rows, in the common order (the first model's: its
    ids ``models[0].ids`` at ``take[0]``); ``left_out[m]``: rows of model m whose id is not
    shared (0 unless ``id_mismatch: intersect``); ``in_order``: every model has the same ids in
    the same order, so rows also line up by position (and every ``take[m]`` is one array)."""

    take: tuple[np.ndarray, ...]
    left_out: tuple[int, ...]
    warnings: tuple[Notice, ...]
    in_order: bool
    dropped: tuple[tuple[str, str, int], ...] = ()

    def index(self, m: int, rows: np.ndarray, n_rows: int) -> np.ndarray:
        """Model m's common index per file row (-1: not compared), for a file of ``n_rows`` rows
        whose kept rows were at ``rows`` (:attr:`Keyed.rows`): re-reads keep the rows ``>= 0``
        and put each at its place in the common order."""
        return common_index(rows[self.take[m]], n_rows)


def common_index(positions: np.ndarray, n_rows: int) -> np.ndarray:
    """int32 (int64 past 2^31 rows) array of ``n_rows``: ``i`` at ``positions[i]``, -1 elsewhere."""
    dtype = np.int32 if n_rows < (1 << 31) - 1 else np.int64
    out = np.full(n_rows, -1, dtype=dtype)
    out[positions] = np.arange(positions.shape[0], dtype=dtype)
    return out


def _chunked(ids: Any) -> Any:
    """Ids as a pyarrow ChunkedArray (uncopied; a list or an object array of str as strings)."""
    import pyarrow as pa  # noqa: PLC0415

    if isinstance(ids, pa.ChunkedArray):
        return ids
    return pa.chunked_array([ids if isinstance(ids, pa.Array) else pa.array(ids, type=pa.string())])


def concat_ids(parts: list[Any]) -> Any:
    """Ids of consecutive batches or parts as one pyarrow ChunkedArray, their pieces uncopied:
    int64 when every part is, else keys (strings: integers turned into their digits)."""
    import pyarrow as pa  # noqa: PLC0415
    import pyarrow.compute as pc  # noqa: PLC0415

    chunks = [c for x in parts for c in _chunked(x).chunks]
    if len({c.type for c in chunks}) > 1:
        chunks = [pc.cast(c, pa.string()) for c in chunks]
    return pa.chunked_array(chunks, type=chunks[0].type if chunks else pa.string())


def _integers(ids: Any) -> list[np.ndarray] | None:
    """Ids (a ChunkedArray) as int64, chunk by chunk: int64 as it is (views), strings when they
    are all canonical integers of up to 18 digits (the keys of int64 ids), else None."""
    import pyarrow as pa  # noqa: PLC0415
    import pyarrow.compute as pc  # noqa: PLC0415

    from reportgen.io.arrow_numpy import numpy_of  # noqa: PLC0415
    from reportgen.io.validate import CANONICAL_INT  # noqa: PLC0415

    if pa.types.is_int64(ids.type):
        return [numpy_of(c) for c in ids.chunks]
    if len(ids) and not pc.all(pc.match_substring_regex(ids, CANONICAL_INT.replace("*", "{0,17}"))).as_py():
        return None
    return [numpy_of(pc.cast(c, pa.int64())) for c in ids.chunks]


def _sorted_distinct(x: np.ndarray) -> np.ndarray:
    """``x``'s distinct values in order (``x`` sorted in place: np.unique would sort a copy)."""
    x.sort()
    if x.shape[0] > 1:
        new = x[1:] != x[:-1]
        if not new.all():
            x = x[np.concatenate(([True], new))]
    return x


def id_codes(ids: list[Any]) -> tuple[list[np.ndarray], int]:
    """Each array of ids (:attr:`Keyed.ids`) as integer codes below the number of distinct ids
    (returned; equal keys, equal codes): the join then works on int arrays, not on Python
    strings. Codes are int32 below 2^31 ids (int64 past).

    When every array is integers (:func:`_integers`: int64 ids, or text that is their keys) the
    codes are ranks among the distinct integers: the first array's sorted, with the few ids the
    other arrays add (the files describe the same rows), so no array of every model's ids is
    made; else the integers are turned into their keys (their digits) and the strings hashed
    once, in pyarrow."""
    import pyarrow as pa  # noqa: PLC0415
    import pyarrow.compute as pc  # noqa: PLC0415

    from reportgen.io.arrow_numpy import numpy_of  # noqa: PLC0415

    arrays = [_chunked(x) for x in ids]
    ints = [x for x in (_integers(a) for a in arrays) if x is not None]
    if len(ints) == len(arrays):  # integer ids (the common case)
        del arrays
        at = np.int32 if sum(v.shape[0] for vs in ints for v in vs) < 2**31 else np.int64
        # the first array's distinct ids; the others' are mostly among them (joined files)
        distinct = _sorted_distinct(np.concatenate(ints[0] or [np.empty(0, dtype=np.int64)]))
        while True:  # twice at most: ids the first array lacks are added to the distinct ids
            codes, extra = [], []
            for vs in ints:  # chunk by chunk: no id array copied whole, no int64 ranks
                out = np.empty(sum(v.shape[0] for v in vs), dtype=at)
                i = 0
                for v in vs:
                    r = np.searchsorted(distinct, v)
                    extra.append(v[distinct[np.minimum(r, distinct.shape[0] - 1)] != v] if distinct.shape[0] else v)
                    out[i : i + v.shape[0]] = r
                    i += v.shape[0]
                codes.append(out)
            if not any(e.shape[0] for e in extra):
                return codes, distinct.shape[0]
            del codes
            distinct = _sorted_distinct(np.concatenate([distinct, *extra]))
    del ints
    enc = pa.chunked_array(
        [c if pa.types.is_string(c.type) else pc.cast(c, pa.string()) for a in arrays for c in a.chunks],
        type=pa.string(),
    ).dictionary_encode()
    flat = np.concatenate([numpy_of(c.indices) for c in enc.chunks] or [np.empty(0, dtype=np.int32)])
    words = len(enc.chunks[0].dictionary) if enc.num_chunks else 0
    return np.split(flat, np.cumsum([len(a) for a in arrays])[:-1]), words


def _word(ids: Any, i: Any) -> str:
    """Id ``i`` of ``ids`` (:attr:`Keyed.ids`) as an error quotes it, by its key: ``'123'``."""
    return repr(str(_chunked(ids)[int(i)].as_py()))


def _first_repeat(codes: np.ndarray) -> int | None:
    """Position of the first row whose code occurred on an earlier row, or None."""
    order = np.argsort(codes, kind="stable")
    s = codes[order]
    again = order[1:][s[1:] == s[:-1]]
    return int(again.min()) if again.shape[0] else None


def check_unique(k: Keyed, codes: np.ndarray | None = None, distinct: int = 0) -> None:
    """Ids must be unique within a model (the first repeat is an error naming its row).

    ``codes``: the ids' codes below ``distinct`` (:func:`id_codes`), when already computed: a
    mark per code tells first whether any repeats (a byte per code, not a sort of the rows)."""
    if codes is None:
        (codes,), distinct = id_codes([k.ids])
    seen = np.zeros(distinct, dtype=bool)
    seen[codes] = True
    if int(np.count_nonzero(seen)) == codes.shape[0]:
        return
    j = _first_repeat(codes)
    if j is not None:
        raise InputError(
            f"{k.file}: column '{k.id_column}', row {int(k.rows[j]) + HEADER_ROWS}: "
            f"duplicated id {_word(k.ids, j)}; ids must be unique — remove the repeated row "
            f"or give it its own id"
        )


def join_ids(cfg: Config, models: list[Keyed]) -> Join:
    """Match the models' rows by id (errors and warnings as the module docstring says).

    An id a model dropped itself (:attr:`Keyed.lost`, ``missing: drop``) is in its file: it is
    no mismatch, but its rows in the other models are left out too, so that every comparison is
    on the rows every model keeps (counted per model as :data:`DROPPED_BY_ANOTHER`); ids that
    some file lacks are :data:`ID_NOT_SHARED` (``id_mismatch: intersect``)."""
    if len(models) == 1:  # nothing to join: ids must only be unique
        check_unique(models[0])
        return Join((np.arange(len(models[0].rows)),), (0,), (), True)
    coded, u = id_codes([x for k in models for x in (k.ids, [] if k.lost is None else k.lost)])
    codes, gone = coded[0::2], coded[1::2]  # each model's kept ids and lost ids
    del coded
    for k, c in zip(models, codes):
        check_unique(k, c, u)
    present, kept = [], []
    for c, g in zip(codes, gone):
        q = np.zeros(u, dtype=bool)
        q[c] = True
        kept.append(q)
        p = q.copy()
        p[g] = True
        present.append(p)
    everywhere = np.logical_and.reduce(present)
    shared = np.logical_and.reduce(kept)
    common = codes[0][shared[codes[0]]]
    warnings: list[Notice] = []
    left_out, dropped = [], []
    for m, (k, c, g) in enumerate(zip(models, codes, gone)):
        not_shared = int((~everywhere[c]).sum())
        foreign = not_shared + int((~everywhere[g]).sum())
        if foreign and cfg.id_mismatch == "error":
            cb = np.concatenate([c, g])
            o = next(j for j in range(len(models)) if j != m and not present[j][cb].all())
            ids = concat_ids([k.ids] if k.lost is None else [k.ids, k.lost])
            sample = ", ".join(_word(ids, i) for i in np.flatnonzero(~present[o][cb])[:3])
            raise InputError(
                f"{k.file}: model '{k.name}' has {foreign} id(s) not shared by every model (e.g. {sample}, "
                f"missing from model '{models[o].name}' in {models[o].file}); align the files or set "
                f"'id_mismatch: intersect' to compare on the shared ids (dropped rows are counted)"
            )
        by_another = int(c.shape[0] - common.shape[0] - not_shared)
        left_out.append(not_shared + by_another)
        if not_shared:
            warnings.append(Notice("ids_not_shared", {"model": k.name, "rows": not_shared}))
            dropped.append((k.name, ID_NOT_SHARED, not_shared))
        if by_another:
            dropped.append((k.name, DROPPED_BY_ANOTHER, by_another))
    in_order = all(c.shape[0] == codes[0].shape[0] and np.array_equal(c, codes[0]) for c in codes[1:])
    take: list[np.ndarray] = []
    for c in codes:  # int32 positions below 2^31 rows: half the bytes, held to the end of the join
        if in_order and take:  # the same ids in the same order: the first model's positions
            take.append(take[0])
            continue
        pos = np.full(u, -1, dtype=np.int32 if c.shape[0] < 2**31 else np.int64)
        pos[c] = np.arange(c.shape[0], dtype=pos.dtype)
        take.append(pos[common])
    ref = models[0].truth[take[0]]
    for k, t in zip(models[1:], take[1:]):
        truth = in_ids_of(models[0], k)[t]
        if not np.array_equal(truth, ref):
            i = int(np.flatnonzero(truth != ref)[0])
            raise InputError(
                f"{k.file}: model '{k.name}': the label of id {_word(models[0].ids, take[0][i])} differs from model "
                f"'{models[0].name}'; models compared on the same rows must share the truth"
            )
    if any(left_out):  # what the intersection leaves must still be comparable
        check_enough(
            models[0].file,
            f"column '{models[0].id_column}'",
            "id",
            ref.shape[0],
            one_label(ref, models[0].classes),
            [k.name for k in models],
        )
    return Join(tuple(take), tuple(left_out), tuple(warnings), in_order, tuple(dropped))


def in_ids_of(first: Keyed, k: Keyed) -> np.ndarray:
    """``k``'s truth in ``first``'s class ids: the same array when their numberings agree (one
    runner's ids, one a prefix of the other's), else mapped by key (Dask numbers each dataset's
    classes as it meets them)."""
    n = min(len(first.classes), len(k.classes))
    if first.classes[:n] == k.classes[:n]:
        return k.truth
    at = {c: i for i, c in enumerate(first.classes)}
    to = np.array([at.get(c, len(at) + j) for j, c in enumerate(k.classes)], dtype=np.int64)
    return to[k.truth]


def check_enough(file: str, where: str, what: str, n: int, single: str | None, names: list[str]) -> None:
    """The rows every model keeps must be at least two, of at least two classes (else one line
    naming why: no shared row, a single row, or one class only: ``single`` names it)."""
    models = ", ".join(f"'{n}'" for n in names)
    if n == 0:
        raise InputError(
            f"{file}: {where}: no {what} is kept by every model ({models}); nothing can be compared — "
            f"check that the files describe the same rows"
        )
    if n < 2:
        raise InputError(
            f"{file}: {where}: only 1 {what} is kept by every model ({models}); comparisons need at least 2"
        )
    if single is not None:
        raise InputError(
            f"{file}: {where}: every one of the {n} rows kept by every model ({models}) has the same "
            f"label ({single}); metrics need at least two classes — check the ids or 'missing'"
        )


def one_label(truth: np.ndarray, classes: tuple[str, ...] = ()) -> str | None:
    """How :func:`check_enough` names the one label of ``truth`` (booleans: positive / negative;
    class ids: the key ``classes`` gives), or None when it holds two or more (or none)."""
    if truth.shape[0] == 0 or not np.all(truth == truth[0]):
        return None
    if truth.dtype == bool:
        return "positive" if truth[0] else "negative"
    return repr(str(classes[int(truth[0])])) if classes else repr(truth[0])


def intersect_positions(
    names: list[str], kept: list[np.ndarray], n_rows: int
) -> tuple[np.ndarray | None, tuple[tuple[str, str, int], ...]]:
    """Rows of files without an id (matched by position) that every model keeps.

    ``kept[m]``: boolean mask of the ``n_rows`` rows model m kept. Returns the common index per
    row (:func:`common_index`; None when every model kept the same rows) and the rows each model
    loses because another model dropped them (:data:`DROPPED_BY_ANOTHER`)."""
    every = np.logical_and.reduce(kept)
    counts = [int(k.sum()) for k in kept]
    common = int(every.sum())
    if all(c == common for c in counts):
        return None, ()
    dropped = tuple((n, DROPPED_BY_ANOTHER, c - common) for n, c in zip(names, counts) if c > common)
    return common_index(np.flatnonzero(every), n_rows), dropped


def common_rows(
    names: list[str],
    n_rows: list[int],
    join: Join | None,
    kept: list[np.ndarray],
    gone: list[np.ndarray | None],
    always: bool = False,
) -> tuple[dict[str, np.ndarray] | None, list[tuple[str, str, int]]]:
    """Each model's common index per file row (:func:`common_index`) and the rows left out per
    model and reason, when some model keeps rows another does not; (None, []) when every model
    keeps the same rows (``always``: the indexes all the same — separate datasets pair by them).

    ``n_rows``: each model's file length; with ids (``join``), ``kept``: each model's kept rows'
    positions (:attr:`Keyed.rows`); without, rows are matched by position and ``gone`` holds the
    positions each model dropped (``missing: drop``): a row any model dropped is left out for
    all (:func:`intersect_positions`). Files of different lengths without an id are not matched."""
    if len(names) < 2:
        return None, []
    if join is not None:
        if not any(join.left_out) and not always:
            return None, []
        return {n: join.index(i, k, r) for i, (n, k, r) in enumerate(zip(names, kept, n_rows))}, list(join.dropped)
    if len(set(n_rows)) > 1:
        return None, []
    if not always and all(g is None or g.shape[0] == 0 for g in gone):
        return None, []  # no model dropped a row: every row is common (no n-row masks to build)
    masks = []
    for g in gone:
        mask = np.ones(n_rows[0], dtype=bool)
        if g is not None:
            mask[g] = False
        masks.append(mask)
    index, by_another = intersect_positions(names, masks, n_rows[0])
    if index is None and always:
        index = common_index(np.flatnonzero(np.logical_and.reduce(masks)), n_rows[0])
    return (None if index is None else dict.fromkeys(names, index)), list(by_another)


def check_rows_left(file: str, n: int, labels: set[str], positive: frozenset[str] | None, names: list[str]) -> None:
    """:func:`check_enough` for files matched by position, after a second reading kept the rows
    every model keeps: ``n`` rows whose label keys are ``labels`` (``positive``: the binary
    positive keys; None for multiclass)."""
    single = None
    if len(labels) == 1:
        key = next(iter(labels))
        single = repr(key) if positive is None else ("positive" if key in positive else "negative")
    check_enough(file, "rows", "row", n, single, names)


def check_positions(
    files: list[str], names: list[str], truths: list[np.ndarray], rows: np.ndarray | None = None
) -> None:
    """Without ids: equal row counts and equal labels row by row (errors say to set 'id').

    ``rows``: the compared rows' 0-based positions in the files (errors name the file's row)."""
    n0 = truths[0].shape[0]
    for f, name, t in zip(files[1:], names[1:], truths[1:]):
        if t.shape[0] != n0:
            raise InputError(
                f"{f}: model '{name}' has {t.shape[0]} rows but '{names[0]}' has {n0}, and no 'id' column "
                f"joins them; set 'id' in the config"
            )
        if not np.array_equal(t, truths[0]):
            i = int(np.flatnonzero(t != truths[0])[0])
            row = i if rows is None else int(rows[i])
            raise InputError(
                f"{f}: model '{name}': row {row + HEADER_ROWS} has a different label than in '{names[0]}'; "
                f"rows do not line up — set 'id' in the config to join them"
            )
