"""Row rules and their one-line messages: one set per task, used by every engine.

Every message names the file, the column, the row (1-based as a spreadsheet shows it: the header
is row 1, so data row ``i`` of a batch starting after ``offset`` rows is ``offset + i + 2``) and
what to do. The engines differ only in how many rows they hold at once, never in the rules.

Labels, predictions and ids are compared by their *key* (:func:`keys`), one rule everywhere:

* missing is a real null (Parquet), a NaN or infinite number (also written as text: ``nan``,
  ``inf``, ``-Infinity``), or a cell that is empty after stripping spaces — a class named
  ``NA``, ``None`` or ``null`` is a class;
* a number, or text that is an integer (``" 1"``, ``+1``, ``01``, ``1.0``), is its decimal
  digits (``"1"``); other numbers their shortest ``repr`` (``"0.5"``);
* ``true`` / ``false`` in any case are ``"True"`` / ``"False"`` (a boolean column's keys);
* any other text is itself, stripped.

Ids (:func:`id_keys`) are text: an id read from text (CSV, a Parquet string column) is itself,
stripped — ``007`` and ``7`` are different ids — except that text that is a number written
without zero padding is that number's key (``1.0``, ``+1`` → ``"1"``, ``-0.0`` → ``"0"``, ``1e3``
→ ``"1000"``: the way a float column's values are keyed), and a padded id only loses a fraction
of zeros (``007.0`` → ``"007"``); missing as above. An id column stored as numbers (Parquet
integers, floats, booleans) is compared by the numbers' keys above (``7``, ``7.0`` → ``"7"``), so
integer or float ids in Parquet join the same numbers written in a CSV, however written (the CSV
a float id column is saved to); zero-padded ids must be stored as strings to keep their zeros.
"""

from __future__ import annotations

import logging
import re
from collections.abc import Set as AbstractSet
from pathlib import Path
from typing import TYPE_CHECKING, Any

import numpy as np

from reportgen.config import Config, ModelConfig
from reportgen.config_base import close_matches
from reportgen.errors import InputError
from reportgen.io.arrow_numpy import numpy_of
from reportgen.results import Notice

if TYPE_CHECKING:
    import pandas as pd

log = logging.getLogger(__name__)

#: How a row number is written: data row ``i`` of a batch after ``offset`` rows.
HEADER_ROWS = 2


class RowFault(InputError):
    """A row rule's error with the row it names (``row``: 0-based among the file's data rows).

    Of several faults the engines report the same one:

    1. a file that cannot be read (not UTF-8, a ragged row, a damaged Parquet part, no rows),
       files in config order — ``engine: memory`` reads every file first, so the streamed
       engines raise a row fault only once the rest of the files is known to parse (an error
       path: they read on without checking);
    2. **the earliest bad row in the file; on one row, the first rule in rule order**
       (:class:`Faults`: non-numbers, missing values, weights, score range, probabilities,
       labels), of several models reading the file the first in config order
       (:func:`earliest`), files in config order. A reader holding one batch honours it with
       bounded memory: the batches come in file order, so the first batch with a fault holds the
       earliest bad row, and within it every rule is evaluated before one is raised. The whole
       file as one batch (memory) gives the same row; so does Dask (a dataset whose fault is not
       in its first part is re-read in order, :func:`reportgen.reduce.local.first_fault`);
    3. each model's whole-file rules (rows left, both classes, weight totals, the class list);
    4. the id join (duplicated ids, ids not shared, labels that differ).
    """

    def __init__(self, message: str, row: int = -1) -> None:  # -1: rewritten, row unknown (a URI shown)
        super().__init__(message)
        self.row = row

    def __reduce__(self) -> tuple:  # a Dask worker's fault travels to the client whole
        return (RowFault, (str(self), self.row))


class Faults:
    """The first bad row of each rule over one batch: :meth:`add` in rule order, :meth:`check`
    raises the earliest as a :class:`RowFault` (on one row, the rule added first)."""

    __slots__ = ("best", "rank")

    def __init__(self) -> None:
        self.best: tuple[int, int, str] | None = None
        self.rank = 0

    def add(self, row: int, message: str) -> None:
        """A rule's first bad row (0-based in the file) and its message."""
        self.rank += 1
        if self.best is None or (row, self.rank) < self.best[:2]:
            self.best = (row, self.rank, message)

    def check(self) -> None:
        if self.best is not None:
            raise RowFault(self.best[2], self.best[0])


def fault(faults: Faults | None, row: int, message: str) -> None:
    """Report a row rule's fault: to ``faults`` when given, else raised at once."""
    if faults is None:
        raise RowFault(message, row)
    faults.add(row, message)


def earliest(found: list[RowFault | None]) -> None:
    """Raise the fault of the earliest row among ``found`` (one per model or rule group, in
    order: on one row the first listed wins); nothing when none is set."""
    hits = [f for f in found if f is not None]
    if hits:
        raise min(hits, key=lambda f: f.row)


_INT_TEXT = r"^[+-]?[0-9]+(\.0*)?$"
#: A key that is an integer as written canonically (no sign but minus, no leading zeros).
CANONICAL_INT = r"^(0|-?[1-9][0-9]*)$"
#: A whole number written with a fraction of zeros (``12.0``, ``12.``): the digits before the point.
_ZERO_FRACTION = r"^([+-]?[0-9]+)\.0*$"
_NON_FINITE_TEXT = r"(?i)^[+-]?(inf|infinity|nan)$"
_FLOAT_TEXT = r"^[+-]?([0-9]+\.?[0-9]*|\.[0-9]+)([eE][+-]?[0-9]+)?$"


def show(v: Any) -> str:
    """A data value for a message: ``1.0`` and ``'bad'``, not ``np.float64(1.0)``."""
    return repr(v.item() if isinstance(v, np.generic) else v)


def label_key(value: Any) -> str:
    """The key of one value written in the config (``positive``, ``classes``, score mappings)."""
    if isinstance(value, (bool, np.bool_)):
        return str(bool(value))
    if isinstance(value, (int, np.integer)):
        return str(int(value))
    if isinstance(value, (float, np.floating)):
        v = float(value)
        return str(int(v)) if v.is_integer() else repr(v)
    return keys(np.array([str(value)], dtype=object))[0] or str(value).strip()


#: The integer key and the boolean key that name one class: ``1`` / ``True`` and ``0`` / ``False``.
_BOOLEAN_TWINS = {"1": "True", "True": "1", "0": "False", "False": "0"}


def twins(key: str) -> frozenset[str]:
    """A label key and its boolean twin (``"1"`` and ``"True"``, ``"0"`` and ``"False"``), or the key alone."""
    twin = _BOOLEAN_TWINS.get(key)
    return frozenset((key,) if twin is None else (key, twin))


def positive_keys(positive: Any) -> frozenset[str]:
    """The label keys that are the configured positive label (binary).

    Its key (:func:`label_key`) and, for ``1`` / ``0`` / ``true`` / ``false`` (as YAML numbers,
    booleans or text), its twin of the other kind: a boolean label column (Parquet, or text
    ``true`` / ``false``) has the keys ``"True"`` / ``"False"``, a numeric one ``"1"`` / ``"0"``,
    and ``positive: 1`` (the default) or ``positive: true`` names the same class in either, as
    ``1 == True`` in Python and in SQL. A column holding both twins is refused
    (:func:`check_both_classes`): which rows are positive would be a guess.
    """
    return twins(label_key(positive))


def _to_arrow(values: Any) -> Any:
    import pyarrow as pa  # noqa: PLC0415

    if isinstance(values, pa.ChunkedArray):
        return values.combine_chunks() if values.num_chunks != 1 else values.chunk(0)
    if isinstance(values, pa.Array):
        return values
    import pandas as pd  # noqa: PLC0415  (values given as a pandas Series or a list: the API's frames)

    series = values if isinstance(values, pd.Series) else pd.Series(values)
    try:
        return _to_arrow(pa.array(series, from_pandas=True))
    except (pa.ArrowException, TypeError, ValueError):  # mixed Python objects: their text
        present = series.notna()
        text = series.astype(object).where(~present, series.astype(str)).where(present, None)
        return _to_arrow(pa.array(text, type=pa.string(), from_pandas=True))


def float_keys(f: Any) -> Any:
    """Keys of a float64 arrow array: integral values as integers, others by ``repr``; NaN, ±inf null."""
    import pyarrow as pa  # noqa: PLC0415
    import pyarrow.compute as pc  # noqa: PLC0415

    finite = pc.is_finite(f)
    f = pc.if_else(finite, f, pa.scalar(None, pa.float64()))
    integral = pc.and_kleene(pc.equal(pc.floor(f), f), pc.less(pc.abs(f), 2.0**63))
    whole = pc.cast(pc.if_else(integral, f, 0.0), pa.int64()).cast(pa.string())
    other = pc.fill_null(pc.invert(integral), False)
    if not pc.any(other).as_py():
        return pc.if_else(integral, whole, pa.scalar(None, pa.string()))
    uniq = pc.unique(f.filter(other))
    shown = pa.array([repr(float(x)) for x in uniq.to_pylist()], type=pa.string())
    return pc.if_else(integral, whole, shown.take(pc.index_in(f, value_set=uniq)))


def _text_keys(s: Any) -> Any:
    """Keys of a string arrow array (see the module docstring)."""
    import pyarrow as pa  # noqa: PLC0415
    import pyarrow.compute as pc  # noqa: PLC0415

    if len(s) and pc.all(pc.match_substring_regex(s, CANONICAL_INT)).as_py():  # ids: already keys
        return s
    t = pc.utf8_trim_whitespace(s)
    t = pc.if_else(pc.equal(t, ""), pa.scalar(None, pa.string()), t)
    non_finite = pc.match_substring_regex(t, _NON_FINITE_TEXT)
    t = pc.if_else(non_finite, pa.scalar(None, pa.string()), t)
    lower = pc.utf8_lower(t)
    t = pc.if_else(pc.equal(lower, "true"), "True", pc.if_else(pc.equal(lower, "false"), "False", t))
    is_int = pc.match_substring_regex(t, _INT_TEXT)
    if pc.any(is_int).as_py():
        digits = pc.replace_substring_regex(t, r"\.0*$", "")
        digits = pc.replace_substring_regex(digits, r"^\+", "")
        digits = pc.replace_substring_regex(digits, r"^(-?)0+([0-9])", r"\1\2")
        digits = pc.if_else(pc.equal(digits, "-0"), "0", digits)
        t = pc.if_else(is_int, digits, t)
    is_float = pc.and_(pc.match_substring_regex(t, _FLOAT_TEXT), pc.invert(is_int))
    if pc.any(is_float).as_py():
        f = pc.cast(pc.if_else(is_float, t, "0"), pa.float64())
        t = pc.if_else(is_float, float_keys(f), t)
    return t


def keys(values: Any) -> np.ndarray:
    """Label / prediction / id values → their keys (object array of str, None where missing).

    ``values``: a pyarrow array (a batch's column) or a pandas Series / array; see :func:`key_array`."""
    codes, names = key_codes(values)
    return names[codes]


def key_codes(values: Any) -> tuple[np.ndarray, np.ndarray]:
    """:func:`keys` as ``(codes, names)`` with ``keys(values) == names[codes]``: ``names`` the
    keys of the distinct values (object array, a trailing None for missing; two values may
    share a key, ``1`` and ``01``), ``codes`` an integer index per row.

    The key rule runs on the distinct values only (one dictionary-encoding pass), and callers
    can compare rows as integers: at 10M rows a label column costs a hash pass, not 10M Python
    strings built and compared. An Arrow-backed pandas column is encoded chunk by chunk, uncopied."""
    import pyarrow as pa  # noqa: PLC0415
    import pyarrow.compute as pc  # noqa: PLC0415

    arrow = getattr(getattr(values, "array", None), "__arrow_array__", None)
    arr = arrow() if arrow is not None else values
    if not isinstance(arr, (pa.Array, pa.ChunkedArray)):
        arr = _to_arrow(values)
    if pa.types.is_dictionary(arr.type) or pa.types.is_null(arr.type):
        arr = _to_arrow(arr)
        arr = arr.dictionary_decode() if pa.types.is_dictionary(arr.type) else arr.cast(pa.string())
    enc = pc.dictionary_encode(arr)
    chunks = enc.chunks if isinstance(enc, pa.ChunkedArray) else [enc]
    if not chunks:
        return np.zeros(0, dtype=np.intp), np.array([None], dtype=object)
    dictionary = chunks[0].dictionary
    luts = None
    if any(not c.dictionary.equals(dictionary) for c in chunks[1:]):
        if sum(len(c.dictionary) for c in chunks) > _FEW_DISTINCT:
            return key_codes(_to_arrow(arr))  # many values: encode the whole array once
        # chunks encoded apart (a CSV block that starts with another label): each chunk's codes
        # mapped into the union of the dictionaries, values in order of first appearance
        union: dict[Any, int] = {}
        luts = [
            np.array([union.setdefault(v, len(union)) for v in c.dictionary.to_pylist()], dtype=np.int32)
            for c in chunks
        ]
        dictionary = pa.array(list(union), type=dictionary.type)
    # the distinct keys through Python objects, the codes from their buffers: to_numpy imports pandas
    names = np.array([*key_array(dictionary).to_pylist(), None], dtype=object)
    missing = len(dictionary)
    parts = []
    for k, c in enumerate(chunks):
        own = missing if luts is None else len(c.dictionary)  # the chunk's own code of a missing value
        idx = numpy_of(c.indices if not c.indices.null_count else pc.fill_null(c.indices, own))
        parts.append(idx if luts is None else np.append(luts[k], missing)[idx])
    return (parts[0] if len(parts) == 1 else np.concatenate(parts)), names


#: Most dictionary entries over a column's chunks that :func:`key_codes` maps chunk by chunk.
_FEW_DISTINCT = 4096


#: Text that is the number zero (``-0.0``, ``0e5``, ``.0``).
_ZERO_TEXT = r"^[+-]?(0+\.?0*|\.0+)([eE][+-]?[0-9]+)?$"
#: Text that is zero-padded (``007``, ``-01.5``): an id that keeps its zeros.
_PADDED = r"^[+-]?0[0-9]"


def _id_text(s: Any) -> Any:
    """Keys of ids written as text: stripped; text that is a number written without zero padding
    is keyed as that number stored in a float or integer column is (``1.0``, ``+1`` → ``1``,
    ``-0.0`` → ``0``, ``1e3`` → ``1000``, ``.5`` → ``0.5``: :func:`float_keys`; integers by their
    digits, so long ones keep every digit); zero-padded text keeps its zeros (``007``), only a
    fraction of zeros dropped (``007.0`` → ``007``); other text is itself; empty or non-finite
    text missing.

    A CSV's ``1.0`` did not join ``1`` in another file, nor ``-0.0``, ``+7.0`` or ``1e3`` the
    Parquet floats 0.0, 7.0 and 1000.0, where the same ids stored as floats did: one rule for
    ids whatever the format."""
    import pyarrow as pa  # noqa: PLC0415
    import pyarrow.compute as pc  # noqa: PLC0415

    t = pc.cast(pc.utf8_trim_whitespace(s), pa.string())
    t = pc.replace_substring_regex(t, _ZERO_FRACTION, r"\1")
    missing = pc.or_(pc.equal(t, ""), pc.match_substring_regex(t, _NON_FINITE_TEXT))
    t = pc.if_else(missing, pa.scalar(None, pa.string()), t)
    plain = pc.invert(pc.match_substring_regex(t, _PADDED))
    integer = pc.and_(plain, pc.match_substring_regex(t, r"^[+-]?[0-9]+$"))
    if pc.any(integer).as_py():  # '+7' → '7', '-0' → '0'
        digits = pc.replace_substring_regex(t, r"^\+", "")
        t = pc.if_else(integer, pc.if_else(pc.equal(digits, "-0"), "0", digits), t)
    number = pc.and_(pc.and_(plain, pc.invert(integer)), pc.match_substring_regex(t, _FLOAT_TEXT))
    if pc.any(number).as_py():
        f = pc.cast(pc.if_else(number, t, "0"), pa.float64())
        # a number a float column cannot hold ('1e400', '1e-400' is not 0) stays text
        held = pc.and_(pc.is_finite(f), pc.or_(pc.not_equal(f, 0.0), pc.match_substring_regex(t, _ZERO_TEXT)))
        t = pc.if_else(pc.and_(number, held), float_keys(f), t)
    return t


def id_keys(values: Any) -> Any:
    """Id values → their keys (a pyarrow string array, null where missing): text as written,
    numbers by their keys (the module docstring)."""
    return key_array(values, few=False, text=_id_text)


def held_ids(values: Any) -> Any:
    """Id values as a run holds them for the id join: an integer column (not uint64) as pyarrow
    int64, whose keys are its decimal digits (:func:`id_keys`), any other as its keys (pyarrow
    strings). 8 bytes an id instead of its digits and their offset, and the join compares the
    integers without parsing their text (:func:`reportgen.io.align.id_codes`)."""
    import pyarrow as pa  # noqa: PLC0415

    arr = _to_arrow(values)
    if pa.types.is_integer(arr.type) and (pa.types.is_signed_integer(arr.type) or arr.type.bit_width < 64):
        return arr.cast(pa.int64())
    return id_keys(arr)


def id_key_list(values: Any) -> np.ndarray:
    """:func:`id_keys` as an object array of str (None where missing)."""
    return np.asarray(id_keys(values).to_numpy(zero_copy_only=False), dtype=object)


def key_array(values: Any, few: bool = True, text: Any = None) -> Any:
    """:func:`keys` as a pyarrow string array (null where missing), for vectorised comparisons.

    The rule is the module docstring's. ``few`` (labels): text runs on its distinct values
    (dictionary encoding), so a batch costs one hash pass plus work on its distinct values; ids
    (``few=False``, about as many distinct values as rows) skip the encoding, and ids already
    written as canonical integers cost one pass. ``text``: the rule for text values (default: labels')."""
    import pyarrow as pa  # noqa: PLC0415
    import pyarrow.compute as pc  # noqa: PLC0415

    arr = _to_arrow(values)
    t = arr.type
    if pa.types.is_dictionary(t):
        arr, t = arr.dictionary_decode(), t.value_type
    if pa.types.is_null(t):
        return pa.nulls(len(arr), pa.string())
    if pa.types.is_boolean(t):
        out = pc.if_else(arr, "True", "False")
    elif pa.types.is_integer(t):
        out = pc.cast(arr, pa.string())
    elif pa.types.is_floating(t) or pa.types.is_decimal(t):
        out = float_keys(pc.cast(arr, pa.float64()))
    else:
        if not (pa.types.is_string(t) or pa.types.is_large_string(t)):
            arr = pc.cast(arr, pa.string())
        rule = text or _text_keys
        if few:
            enc = pc.dictionary_encode(arr)
            out = rule(enc.dictionary).take(enc.indices)
        else:
            out = rule(arr)
    return out


def as_number(key: str) -> float | None:
    """A key as the number it names (``"1"`` → 1.0), or None for text keys: numeric label
    columns compare with it directly, which equals comparing their keys."""
    try:
        return float(key)
    except ValueError:
        return None


def sorted_classes(found: AbstractSet[str]) -> list[str]:
    """Numeric order when every key is a number, text order otherwise."""
    try:
        return sorted(found, key=float)
    except ValueError:
        return sorted(found)


#: The text a number column reads as a number although it is not one: a flag written as text.
BOOLEAN_NUMBERS = {"true": 1.0, "false": 0.0}
#: Cell texts that are a missing value in a numeric column (pandas' defaults; an empty cell too),
#: written in a CSV or stored as text (a Parquet string column, a database's text column).
NA_VALUES = (
    "",
    "#N/A",
    "#N/A N/A",
    "#NA",
    "-1.#IND",
    "-1.#QNAN",
    "-NaN",
    "-nan",
    "1.#IND",
    "1.#QNAN",
    "<NA>",
    "N/A",
    "NA",
    "NULL",
    "NaN",
    "None",
    "n/a",
    "nan",
    "null",
)


def numeric(series: pd.Series, path: Any, column: str, offset: int = 0, faults: Faults | None = None) -> np.ndarray:
    """Column as float64; a non-numeric cell is an error naming its row (``offset``: rows before;
    with ``faults`` it is added there and the cell is NaN).

    ``true`` / ``false`` in any case (:data:`BOOLEAN_NUMBERS`) are 1 / 0 in every format: a CSV's
    true / false scores (a rule's flag) were refused as non-numeric where the same flags stored
    as Parquet booleans were read as 1 / 0. The :data:`NA_VALUES` spellings stored as text are
    missing, as in a CSV (a Parquet text score 'NA' or '' was refused as non-numeric)."""
    if series.dtype == np.float64:  # read typed (pyarrow, Parquet): nothing to convert or check
        return series.to_numpy(dtype=np.float64)
    if getattr(series.dtype, "kind", None) in ("M", "m"):
        # a Parquet timestamp or duration column: pandas turned it into nanoseconds, and a date
        # column named as the score ranked the rows by date, silently, in every engine
        what = "timestamps" if series.dtype.kind == "M" else "durations"
        raise InputError(
            f"{path}: column '{column}' holds {what} ({series.dtype}), not numbers; "
            f"name a numeric column (a score, weight or class probability)"
        )
    import pandas as pd  # noqa: PLC0415  (a column of text or objects: the series is pandas already)

    values = pd.to_numeric(series, errors="coerce").to_numpy(dtype=np.float64, na_value=np.nan)
    bad = np.isnan(values) & series.notna().to_numpy()
    if bad.any():  # true / false (any case) are 1 / 0, as a boolean column (Parquet, a database) is read
        at = np.flatnonzero(bad)
        text = series.iloc[at].astype(str)
        values = values.copy()
        values[at] = text.str.strip().str.lower().map(BOOLEAN_NUMBERS).to_numpy(dtype=np.float64)
        bad[at] = np.isnan(values[at]) & ~text.isin(NA_VALUES).to_numpy()  # NA: missing, as in a CSV
    if bad.any():
        i = int(np.flatnonzero(bad)[0])
        fault(
            faults,
            offset + i,
            f"{path}: column '{column}', row {offset + i + HEADER_ROWS}: non-numeric value {show(series.iloc[i])}; "
            f"{number_expected(series.iloc[i])}",
        )
    return values


#: A number written with a percent sign, or with a decimal comma (``0,714``).
_PERCENT = r"\s*([+-]?(?:\d+\.?\d*|\.\d+))\s*%\s*"
_DECIMAL_COMMA = r"\s*[+-]?\d+,\d+\s*"


def number_expected(value: Any) -> str:
    """What a message about a non-numeric ``value`` asks for: a number, and how to write the two
    spellings a spreadsheet exports (``71.4%``, ``0,714``): "expected a number" alone left the
    user to guess that the sign or the comma was the fault."""
    text = str(value)
    if m := re.fullmatch(_PERCENT, text):
        return f"expected a number; write it without the % sign ({m.group(1)}% as {float(m.group(1)) / 100:g})"
    if re.fullmatch(_DECIMAL_COMMA, text):
        return f"expected a number; write it with a dot as the decimal separator ({text.strip()} as {text.strip().replace(',', '.')})"
    return "expected a number"


def model_file(m: ModelConfig) -> Path:
    """The file model ``m``'s rows are read from: its ``file``, or the Parquet file its SQL
    ``source`` was fetched to before any reader runs (:func:`reportgen.io.sql.materialised`)."""
    assert m.file is not None, f"model '{m.name}': its SQL source was not fetched"
    return m.file


def columns_for(cfg: Config, m: ModelConfig) -> dict[str, str]:
    """Role → column of model ``m`` (label, score, id, weight, prediction, date; not class scores)."""
    cols: dict[str, str] = {"label": m.label or cfg.label}  # type: ignore[dict-item]
    if m.score:
        cols["score"] = m.score
    if m.id or cfg.id:
        cols["id"] = m.id or cfg.id  # type: ignore[assignment]
    if m.weight or cfg.weight:
        cols["weight"] = m.weight or cfg.weight  # type: ignore[assignment]
    if m.prediction:
        cols["prediction"] = m.prediction
    if cfg.date:
        cols["date"] = cfg.date
    return cols


def score_columns(m: ModelConfig) -> dict[str, str] | list[str] | None:
    """A multiclass model's score columns: class key → column (mapping) or the list in class order."""
    if m.scores is None:
        return None
    if isinstance(m.scores, dict):
        return {label_key(k): v for k, v in m.scores.items()}
    return list(m.scores)


def text_columns(cols: dict[str, str]) -> list[str]:
    """The columns read as text (keys): label, prediction, id."""
    return [cols[r] for r in ("label", "prediction", "id") if r in cols]


def number_columns(cfg: Config, m: ModelConfig) -> list[str]:
    """The columns read as float64: score, weight, class scores."""
    cols = columns_for(cfg, m)
    sc = score_columns(m)
    out = [cols[r] for r in ("score", "weight") if r in cols]
    return out + list(sc.values() if isinstance(sc, dict) else sc or [])


def check_columns(cfg: Config, i: int, m: ModelConfig, path: Any, have: list[str]) -> None:
    """Every column model ``i`` names must exist; the message points at the config key."""
    for role, column in columns_for(cfg, m).items():
        if column in have:
            continue
        key = role if role in ("score", "prediction") or getattr(m, role, None) else None
        where = cfg.where("models", i, role) if key else cfg.where(role)
        hint = ""
        same = [c for c in have if c.strip().casefold() == column.strip().casefold()]
        if len(have) == 1 and any(sep in have[0] for sep in (";", "\t", "|")):
            hint = "; the header looks delimited by something other than a comma — save as comma-separated CSV"
        elif same:  # ' y ' or 'Y' for 'y': names are matched exactly, spaces and case included
            hint = f"; the file has {same[0]!r} (names must match exactly, spaces and case included)"
        elif close := close_matches(column, have):
            hint = f"; did you mean {shown_name(close[0])}?"
        raise InputError(f"{where}: column {column!r} not found in {path} (columns: {shown_columns(have)}){hint}")
    sc = score_columns(m)
    for column in sc.values() if isinstance(sc, dict) else sc or []:
        if column not in have:
            raise InputError(
                f"{cfg.where('models', i, 'scores')}: column {column!r} not found in {path} (columns: {shown_columns(have)})"
            )
    used = [*columns_for(cfg, m).values(), *(sc.values() if isinstance(sc, dict) else sc or [])]
    for column in used:  # readers disagree on which of two same-named columns they keep: refuse
        if have.count(column) > 1:
            raise InputError(
                f"{path}: column {column!r} appears {have.count(column)} times in the header; "
                f"rename the duplicates so that the config names one column"
            )


def shown_name(name: str) -> str:
    """One column name for a message, in quotes: ``'y'``; a control character (a NUL byte read from
    a binary file's header) escaped as Python writes it (``'id\\x00'``), so that the message stays
    one line of printable text."""
    return repr(name) if not name.isprintable() else f"'{name}'"


def shown_columns(have: list[str], most: int = 20) -> str:
    """Column names for a message: comma-separated, an empty name, a name with spaces around it
    or a control character quoted (``''``, ``' y '``), at most ``most`` of them (a binary file's
    "header" can be long)."""
    shown = [repr(c) if not c or c != c.strip() or not c.isprintable() else c for c in have[:most]]
    return ", ".join(shown) + (f", … ({len(have)} in all)" if len(have) > most else "")


def keep_rows(
    cfg: Config,
    path: Any,
    checks: list[tuple[str, np.ndarray]],
    offset: int,
    dropped: dict[str, int],
    faults: Faults | None = None,
) -> np.ndarray | None:
    """The rows that pass every missing-value check (boolean mask), or None when all do.

    Under ``missing: error`` the first failing row of the first failing check is an error naming
    it; under ``drop`` the rows are dropped and counted in ``dropped`` (reason → rows)."""
    if cfg.missing != "drop":
        # the earliest bad row, and on it the first check: the row a batch-by-batch reader meets
        # first (memory reported the first *check*'s row: row 190,002's score where stream said
        # row 10's label)
        first = [(int(np.flatnonzero(bad)[0]), j) for j, (_reason, bad) in enumerate(checks) if bad.any()]
        if first:
            i, j = min(first)
            fault(
                faults,
                offset + i,
                f"{path}: row {offset + i + HEADER_ROWS}: {checks[j][0]}; "
                f"fix the data or set 'missing: drop' to drop such rows (counted in the report)",
            )
        return None
    keep = None
    for reason, bad in checks:
        if not bad.any():
            continue
        if keep is None:
            keep = np.ones(bad.shape[0], dtype=bool)
        dropped[reason] = dropped.get(reason, 0) + int((bad & keep).sum())
        keep &= ~bad
    return keep


def kept(
    cfg: Config,
    path: Any,
    model: str,
    checks: list[tuple[str, np.ndarray]],
    n: int,
    weights: np.ndarray | None,
    weight_column: str | None,
    dropped: list[tuple[str, str, int]],
) -> np.ndarray:
    """A whole file's rows to keep (boolean mask): :func:`keep_rows`, negative weights checked,
    drops appended to ``dropped`` as (model, reason, rows); no row left is an error."""
    counts: dict[str, int] = {}
    keep = keep_rows(cfg, path, checks, 0, counts)
    dropped.extend((model, reason, rows) for reason, rows in counts.items())
    if weights is not None:
        check_weights(path, weight_column or "", weights, keep, 0)
    keep = np.ones(n, dtype=bool) if keep is None else keep
    if not keep.any():
        raise no_rows_left(path, model)
    return keep


def missing_score(column: str) -> str:
    return f"missing or non-finite score in '{column}'"


def missing_label(column: str, task: str) -> str:
    return f"missing or non-finite label in '{column}'" if task == "binary" else f"missing label in '{column}'"


def missing_prediction(column: str) -> str:
    return f"missing prediction in '{column}'"


def missing_class_score(columns: list[str]) -> str:
    return f"missing or non-finite class score in {', '.join(repr(c) for c in columns)}"


def missing_weight(column: str) -> str:
    return f"missing or non-finite weight in '{column}'"


def missing_id(column: str) -> str:
    return f"missing id in '{column}'"


def drop_reasons(task: str, cols: dict[str, str], score_cols: list[str] | None = None) -> list[str]:
    """A model's missing-value reasons in the order its checks run (binary: the runner's
    ``kept_rows``; multiclass: :func:`multiclass_checks`), the order its drops are reported in.

    A batch reader meets the reasons in the order of its batches (a missing label in the first
    batch, a missing score in the third), a whole file in the order of its checks; listing the
    counts in this order instead makes the report the same whatever the batches or parts."""
    if task == "binary":
        reasons = [missing_score(cols["score"]), missing_label(cols["label"], "binary")]
    else:
        reasons = [missing_label(cols["label"], "multiclass")]
        if "prediction" in cols:
            reasons.append(missing_prediction(cols["prediction"]))
        if score_cols:
            reasons.append(missing_class_score(score_cols))
    if "weight" in cols:
        reasons.append(missing_weight(cols["weight"]))
    if "id" in cols:
        reasons.append(missing_id(cols["id"]))
    return reasons


def multiclass_checks(
    cols: dict[str, str],
    truth: np.ndarray,
    pred: np.ndarray | None,
    score_cols: list[str],
    scores: np.ndarray | None,
    weights: np.ndarray | None,
    ids: Any,
) -> list[tuple[str, np.ndarray]]:
    """The missing-value checks of multiclass rows, in the order every engine reports them
    (keys: None = missing; ``ids``: :func:`held_ids`, null = missing)."""
    checks: list[tuple[str, np.ndarray]] = [(missing_label(cols["label"], "multiclass"), truth == None)]  # noqa: E711
    if pred is not None:
        checks.append((missing_prediction(cols["prediction"]), pred == None))  # noqa: E711
    if scores is not None:
        checks.append((missing_class_score(score_cols), (~np.isfinite(scores)).any(axis=1)))
    if weights is not None:
        checks.append((missing_weight(cols["weight"]), ~np.isfinite(weights)))
    if ids is not None:
        import pyarrow.compute as pc  # noqa: PLC0415

        checks.append((missing_id(cols["id"]), np.asarray(pc.is_null(ids).to_numpy(zero_copy_only=False), dtype=bool)))
    return checks


def lost_ids(ids: Any, keep: np.ndarray) -> Any:
    """The ids (:func:`held_ids`, null = missing) of the rows ``keep`` drops that have an id: a model dropped
    them itself (``missing: drop``), so they are in its file though not compared (the id join)."""
    import pyarrow as pa  # noqa: PLC0415
    import pyarrow.compute as pc  # noqa: PLC0415

    arr = ids if isinstance(ids, (pa.Array, pa.ChunkedArray)) else pa.array(ids, type=pa.string())
    gone = arr.filter(pa.array(~np.asarray(keep, dtype=bool)))
    return gone.filter(pc.is_valid(gone))


def first_kept(flags: np.ndarray, keep: np.ndarray | None) -> int | None:
    """Index of the first flagged row among the kept ones (``keep``: None = every row), or None."""
    hit = flags if keep is None else flags & keep
    return int(np.flatnonzero(hit)[0]) if hit.any() else None


#: The largest weight accepted. Below 2**53 (≈ 9.0e15) float64 holds every integer, so frequency
#: weights (row counts) stay exact; sums over 10**12 rows stay below 1e27 and their squares (the
#: variances) far from overflow. Weights of 1e308 overflowed the cumulative sums to inf and NaN
#: and every engine wrote different numbers (exit 0, numpy's RuntimeWarnings on stderr).
MAX_WEIGHT = 1e15
#: The smallest positive weight accepted (0 is a weight too). Weights of 1e-300 underflowed the
#: sums of squared weights to 0 and every engine stopped with an internal ZeroDivisionError;
#: within [1e-15, 1e15] a product of two weights stays a normal float64.
MIN_WEIGHT = 1e-15


def check_weights(
    path: Any, column: str, weights: np.ndarray, keep: np.ndarray | None, offset: int, faults: Faults | None = None
) -> None:
    """Negative weights, and positive weights outside [:data:`MIN_WEIGHT`, :data:`MAX_WEIGHT`] (of
    kept rows), are an error naming the first of them, in this order."""

    def where(i: int) -> str:
        return f"{path}: column '{column}', row {offset + i + HEADER_ROWS}"

    if (i := first_kept(weights < 0, keep)) is not None:
        fault(faults, offset + i, f"{where(i)}: negative weight {weights[i]:g}; weights must be >= 0")
    if (i := first_kept((weights > MAX_WEIGHT) | ((weights > 0) & (weights < MIN_WEIGHT)), keep)) is not None:
        size = (
            f"large (at most {MAX_WEIGHT:g})" if weights[i] > MAX_WEIGHT else f"small (0, or at least {MIN_WEIGHT:g})"
        )
        fault(faults, offset + i, f"{where(i)}: weight {weights[i]:g} is too {size}; rescale the weights")


def check_whole_weights(
    cfg: Config,
    path: Any,
    column: str,
    weights: np.ndarray,
    keep: np.ndarray | None,
    offset: int,
    faults: Faults | None = None,
) -> None:
    """``weight_kind: frequency``: a kept row's weight that is not a whole number is an error naming
    the first (a row of weight w stands for w rows). Checked row by row where every engine reads the
    rows, so memory, stream and dask stop at the same row with the same message."""
    if cfg.weight_kind != "frequency":
        return
    if (i := first_kept(weights != np.round(weights), keep)) is not None:
        fault(
            faults,
            offset + i,
            f"{path}: column '{column}', row {offset + i + HEADER_ROWS}: weight {weights[i]:g} is "
            f"not a whole number; weight_kind: frequency needs whole-number weights (use weight_kind: sampling)",
        )


#: The largest score magnitude accepted: beyond it, differences of scores (curve spans, bin
#: widths, the histogram of a score range) overflow to infinity in float64.
MAX_SCORE_MAGNITUDE = 1e300


def check_score_range(
    path: Any, column: str, scores: np.ndarray, keep: np.ndarray | None, offset: int, faults: Faults | None = None
) -> None:
    """Scores beyond ±:data:`MAX_SCORE_MAGNITUDE` are an error naming the first (not an overflow later)."""
    if scores.size == 0 or (scores.min() >= -MAX_SCORE_MAGNITUDE and scores.max() <= MAX_SCORE_MAGNITUDE):
        return  # two passes that allocate nothing; a NaN fails both comparisons and is looked at below
    if (i := first_kept(np.abs(scores) > MAX_SCORE_MAGNITUDE, keep)) is not None:
        fault(
            faults,
            offset + i,
            f"{path}: column '{column}', row {offset + i + HEADER_ROWS}: score {scores[i]:g} is too large in magnitude "
            f"(at most ±{MAX_SCORE_MAGNITUDE:g}); rescale the scores",
        )


def check_probabilities(
    path: Any,
    model: str,
    columns: list[str],
    scores: np.ndarray,
    keep: np.ndarray | None,
    offset: int,
    faults: Faults | None = None,
) -> None:
    """Scores outside [0, 1] when the model says ``probabilities: true`` (``scores``: n × columns)."""
    s = scores.reshape(scores.shape[0], -1)
    out = (s < 0) | (s > 1)
    if keep is not None:
        out &= keep[:, None]
    if out.any():
        r, c = (int(v[0]) for v in np.nonzero(out))
        fault(
            faults,
            offset + r,
            f"{path}: column '{columns[c]}', row {offset + r + HEADER_ROWS}: {s[r, c]:g} is not a probability; "
            f"remove 'probabilities: true' for model '{model}' or rescale the scores",
        )


#: Spellings of "no value" that the key rule reads as text: a label so written is a class (a
#: class may be named ``NA``), which a message about an unexpected class points out.
NA_LIKE = frozenset({"NA", "N/A", "n/a", "#N/A", "NULL", "null", "None", "none", "<NA>", "-"})


def na_hint(classes: Any) -> str:
    """``"; …"`` when one of ``classes`` is spelled like a missing value (:data:`NA_LIKE`), else ``""``."""
    na = [str(c) for c in classes if str(c) in NA_LIKE]
    if not na:
        return ""
    return (
        f"; {na[0]!r} is read as a class name, not as a missing value — write a missing label as an empty "
        f"cell (and set 'missing: drop' to drop such rows)"
    )


def spelling_hint(labels: Any) -> str:
    """``"; …"`` when ``labels`` mix true/false with 1/0 (``TRUE`` and ``1`` in one column, as two
    exports appended): each is a label of its own, three or four where the user meant two."""
    keys = {str(c) for c in labels}
    words, digits = keys & {"True", "False"}, keys & {"1", "0"}
    if not (words and digits):
        return ""
    pair = next(
        ((w, d) for w, d in (("True", "1"), ("False", "0")) if w in words and d in digits), (min(words), min(digits))
    )
    return (
        f"; {pair[0]!r} and {pair[1]!r} are different labels (true/false and 1/0 are not mixed) — write every "
        f"label the same way"
    )


def check_two_labels(path: Any, column: str, found: set[str]) -> None:
    """Binary labels: at most two distinct keys (the message lists them in sorted order)."""
    if len(found) > 2:
        shown = ", ".join(repr(v) for v in sorted_classes(found)[:6])
        raise InputError(
            f"{path}: column '{column}' has {len(found)} distinct labels ({shown}); task: binary needs two — "
            f"use task: multiclass or map the labels{na_hint(found)}{spelling_hint(found)}"
        )


def third_label(
    path: Any,
    column: str,
    known: set[str],
    labels: np.ndarray,
    rows: np.ndarray,
    offset: int,
    faults: Faults | None = None,
) -> None:
    """Binary labels, a row rule: the row where a third distinct label first appears (``known``:
    the labels of the rows before the batch; ``labels``: the batch's label keys, None = missing;
    ``rows``: the batch rows kept, in order). The message lists the three labels met by then
    (sorted), so it is the same whoever reads the file and in what batches."""
    import pandas as pd  # noqa: PLC0415  (pandas only where a batch's labels are checked)

    firsts = pd.Series(labels[rows], dtype=object).drop_duplicates()
    seen = set(known)
    for pos, label in zip(firsts.index, firsts.to_numpy()):  # distinct labels only, in order of first appearance
        if label is None or label in seen:
            continue
        seen.add(label)
        if len(seen) > 2:
            r = int(rows[pos])
            shown = ", ".join(repr(v) for v in sorted_classes(seen))
            fault(
                faults,
                offset + r,
                f"{path}: column '{column}', row {offset + r + HEADER_ROWS}: a third distinct label {label!r} "
                f"(3 distinct labels: {shown}); task: binary needs two — use task: multiclass or map the labels"
                f"{na_hint(seen)}{spelling_hint(seen)}",
            )
            return


def check_both_classes(
    cfg: Config,
    path: Any,
    column: str,
    found: set[str],
    positives: float,
    negatives: float,
    weight_column: str | None = None,
) -> None:
    """Binary labels: some rows positive and some negative, and each class with some weight.

    Presence is judged from the labels found (``found``: the kept rows' label keys), the same
    in every engine whatever it counted; ``positives`` / ``negatives`` are the classes' total
    weights (row counts without weights). A class whose every row has weight 0 has no evidence:
    every rate on it would be 0 / 0.
    """
    pos_keys = positive_keys(cfg.positive)
    if not pos_keys & found:
        shown = ", ".join(repr(v) for v in sorted_classes(found)[:6])
        raise InputError(
            f"{path}: column '{column}': no row has the positive label {cfg.positive!r} (labels found: {shown}); "
            f"set 'positive' in the config"
        )
    if len(pos_keys & found) > 1:
        both = ", ".join(repr(v) for v in sorted_classes(pos_keys & found))
        raise InputError(
            f"{path}: column '{column}': labels {both} both read as the positive label {cfg.positive!r} (1 is true); "
            f"write the labels one way (1 / 0 or true / false)"
        )
    if not any(k not in pos_keys for k in found):
        raise InputError(f"{path}: column '{column}': every row is positive; metrics need both classes")
    check_some_weight(path, weight_column, positives + negatives)
    for name, total in (("positive", positives), ("negative", negatives)):
        if total <= 0:
            raise InputError(
                f"{path}: column '{weight_column}': every {name} row has weight 0; "
                f"each class needs some weight — check the weights"
            )


def check_some_weight(path: Any, weight_column: str | None, total: float) -> None:
    """The kept rows weigh something in all: with every weight 0 each rate is 0 / 0 (a
    multiclass run divided by the zero total and stopped with an internal error)."""
    if weight_column is not None and total <= 0:
        raise InputError(
            f"{path}: column '{weight_column}': every row has weight 0; give the rows positive weights "
            f"(or leave 'weight' out)"
        )


def check_classes(
    path: Any,
    column: str,
    values: np.ndarray,
    keep: np.ndarray | None,
    allowed: list[str],
    offset: int,
    faults: Faults | None = None,
) -> None:
    """Multiclass: every kept label / prediction key is one of the configured classes."""
    if (r := first_kept(~np.isin(values, allowed), keep)) is not None:
        fault(
            faults,
            offset + r,
            f"{path}: column '{column}', row {offset + r + HEADER_ROWS}: label {values[r]!r} is not one of the configured "
            f"classes ({', '.join(allowed)}); add it to 'classes' or fix the data{na_hint([values[r]])}",
        )


def no_rows_left(path: Any, model: str) -> InputError:
    return InputError(f"{path}: no rows left for model '{model}' after dropping missing values")


def configured_classes(cfg: Config) -> list[str] | None:
    """The config's ``classes`` as keys (None when not given); a class listed twice is an error."""
    configured = [label_key(c) for c in cfg.classes] if cfg.classes is not None else None
    if configured is not None and len(set(configured)) != len(configured):
        dup = next(c for c in configured if configured.count(c) > 1)
        raise InputError(f"{cfg.where('classes')}: class {dup!r} is listed twice; list every class once")
    if configured is not None and cfg.task == "multiclass" and len(configured) < 2:
        # ``classes: []`` was "label '1' is not one of the configured classes ()" on the first row
        raise InputError(
            f"{cfg.where('classes')}: {len(configured)} class(es) listed; list every class (at least two), "
            f"or leave 'classes' out to take them from the data"
        )
    return configured


def dates_of(series: pd.Series, path: Any, column: str, offset: int = 0, faults: Faults | None = None) -> pd.Series:
    """A date column parsed; a value that is not a date is an error naming its row.

    Text dates must be ISO 8601 (``2026-01-31``, optionally with a time): ``03/04/2026`` is
    3 April in one country and 4 March in another, and guessing the order from the values
    swapped day and month whenever every day was ≤ 12. The rule needs no look at other rows, so
    every engine (whole file or batch by batch) decides alike. Native date types (Parquet
    timestamps and dates) are taken as they are.
    """
    import pandas as pd  # noqa: PLC0415  (only a config with a date column parses dates)

    if pd.api.types.is_datetime64_any_dtype(series.dtype):
        return pd.to_datetime(series, utc=True)
    text = series.where(series.isna(), series.astype(str).str.strip())
    d = pd.to_datetime(text, errors="coerce", utc=True, format="ISO8601")
    bad = d.isna() & series.notna()
    if bad.any():
        i = int(np.flatnonzero(bad.to_numpy())[0])
        fault(
            faults,
            offset + i,
            f"{path}: column '{column}', row {offset + i + HEADER_ROWS}: {show(series.iloc[i])} is not a date "
            f"in ISO 8601 form; write dates as 2026-01-31 (day-first or month-first orders are not guessed)",
        )
    return d


# --- multiclass: the class list and each model's score columns ---


def check_class_count(cfg: Config, classes: list[str], path: Any, label_column: str) -> None:
    """At least two classes, and a cost matrix of their size (errors as the in-memory path gives)."""
    k = len(classes)
    if k < 2:
        raise InputError(
            f"{path}: column '{label_column}' has a single class ({classes[0]!r}); "
            f"multiclass metrics need at least two classes (list them under 'classes')"
        )
    if cfg.task == "multiclass" and isinstance(cfg.costs, list) and len(cfg.costs) != k:
        raise InputError(
            f"{cfg.where('costs')}: a {len(cfg.costs)}x{len(cfg.costs)} cost matrix for {k} classes "
            f"({', '.join(classes)}); give one row and one column per class"
        )


def score_order(cfg: Config, i: int, sc: dict[str, str] | list[str], classes: list[str]) -> list[int]:
    """Positions of the model's score columns (as configured) in class order; errors name the config key."""
    k = len(classes)
    if isinstance(sc, dict):
        given = [label_key(c) for c in cfg.models[i].scores or {}]
        if len(set(given)) != len(given):  # ``1`` and ``"1"`` are one class: one of their columns was dropped
            dup = next(c for c in given if given.count(c) > 1)
            raise InputError(
                f"{cfg.where('models', i, 'scores')}: class {dup!r} is given twice (as "
                f"{' and '.join(repr(c) for c in cfg.models[i].scores if label_key(c) == dup)}); "  # type: ignore[union-attr]
                f"map every class to one column"
            )
        index = set(classes)
        missing = [c for c in classes if c not in sc]
        extra = [c for c in sc if c not in index]
        if missing or extra:
            what = (
                f"no score column for class(es) {', '.join(missing)}"
                if missing
                else f"class(es) {', '.join(extra)} are not among the classes ({', '.join(classes)})"
            )
            raise InputError(
                f"{cfg.where('models', i, 'scores')}: {what}; map every class to one column{na_hint(missing)}"
            )
        return [list(sc).index(c) for c in classes]
    if len(sc) != k:
        raise InputError(
            f"{cfg.where('models', i, 'scores')}: {len(sc)} score columns for {k} classes "
            f"({', '.join(classes)}); give one column per class in this order, or a mapping class: column"
        )
    return list(range(k))


def class_warnings(classes: list[str], seen_truth: set[str], seen_pred: dict[str, set[str]]) -> list[Notice]:
    """Classes that never occur in the truth, and classes a model never predicts, as notices (the
    report layer words and logs them)."""
    warnings = []
    for c in [c for c in classes if c not in seen_truth]:
        by = [n for n, v in seen_pred.items() if c in v]
        warnings.append(Notice("class_never_in_truth", {"class": str(c), "predicted_by": by}))
    for name, v in seen_pred.items():
        never = [c for c in classes if c in seen_truth and c not in v]
        if never:
            warnings.append(Notice("class_never_predicted", {"model": name, "classes": [str(c) for c in never]}))
    return warnings
