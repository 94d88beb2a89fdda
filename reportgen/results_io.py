"""A ``metrics.json``'s text (:func:`result_json`), and reading a saved one back into a
:class:`~reportgen.results.ComparisonResult`, strictly: the file a ``reportgen render`` or :func:`reportgen.load_result` receives is data
(bounded size, no FIFO, no repeated key, no NaN, every schema problem one line naming the file),
and its digest says whether its results were edited since reportgen wrote them
(:func:`reportgen.results.digest_status`).
"""

from __future__ import annotations

import json
import math
from dataclasses import dataclass
from pathlib import Path
from typing import Any

from reportgen.errors import UserError
from reportgen.results import ComparisonResult, DigestStatus, digest_status
from reportgen.smallfiles import read_user_file
from reportgen.value import Value

#: The largest ``metrics.json`` :func:`load_result` reads (a 40-model run with ``--full-curves``
#: is a few MB): a bound on the memory a received file can take.
MAX_RESULT_BYTES = 256 * 1024 * 1024


class _RepeatedKey(ValueError):
    def __init__(self, key: str) -> None:
        super().__init__(key)
        self.key = key


class _NotANumber(ValueError):
    """A JSON number no metrics.json holds: NaN, ±Infinity, one too large for a float (1e999
    read as inf), or an integer too long for Python to read (more than 4,300 digits)."""


def _finite_float(text: str) -> float:
    value = float(text)
    if not math.isfinite(value):
        raise _NotANumber(f"the number {text[:40]} is too large for a float")
    return value


def _bounded_int(text: str) -> int:
    if len(text) > 400:  # a count or a seed has at most 20 digits; Python refuses 4,300 (ValueError)
        raise _NotANumber(f"an integer of {len(text)} digits")
    return int(text)


def _no_constant(name: str) -> float:
    raise _NotANumber(f"{name} is not a JSON number; a reportgen metrics.json writes an undefined value as null")


def _object_without_repeats(pairs: list[tuple[str, Any]]) -> dict[str, Any]:
    """A JSON object, refusing a key given twice (``json`` keeps the last silently, so a received
    file could show one value to a reader of the text and another to the report)."""
    out = dict(pairs)
    if len(out) != len(pairs):
        seen: set[str] = set()
        for key, _ in pairs:
            if key in seen:
                raise _RepeatedKey(key)
            seen.add(key)
    return out


@dataclass(frozen=True, repr=False, eq=False, slots=True)
class SavedResult(Value):
    """A ``metrics.json`` as read (:func:`read_result`)."""

    result: ComparisonResult
    #: the exact bytes parsed (``reportgen render`` keeps them in its report set: one read, so the
    #: kept file is the one rendered even if the path is replaced meanwhile; never re-serialised,
    #: so an edited file stays one whose digest does not match)
    raw: bytes
    #: whether the file's digest matches its results: "ok", "edited" or "missing"
    digest: DigestStatus


def read_result(path: str | Path) -> SavedResult:
    """Read a saved ``metrics.json`` back into a result, with the bytes it was parsed from and
    whether its digest matches (checked after the schema: a file that is no metrics.json is told
    so, whatever its digest).

    A received file is data: a FIFO or device is refused (never blocks), the size is bounded by
    :data:`MAX_RESULT_BYTES`, nesting too deep for the parser and every schema problem are a
    :class:`~reportgen.errors.UserError` of one line.
    """
    p = Path(path)
    raw = read_user_file(p, MAX_RESULT_BYTES, UserError, "pass the metrics.json of a previous run")
    try:
        # a BOM (an editor on Windows saved the file) is no part of the JSON text
        data = json.loads(
            raw.decode("utf-8-sig"),
            object_pairs_hook=_object_without_repeats,
            parse_float=_finite_float,
            parse_int=_bounded_int,
            parse_constant=_no_constant,
        )
    except _NotANumber as exc:
        raise UserError(f"{p}: not a reportgen metrics.json ({exc})") from None
    except _RepeatedKey as exc:
        raise UserError(
            f"{p}: key {exc.key!r} is given twice in one object; a reportgen metrics.json "
            f"never repeats a key (which value was meant?)"
        ) from None
    except (json.JSONDecodeError, UnicodeDecodeError) as exc:
        raise UserError(f"{p}: not a reportgen metrics.json ({exc})") from None
    except RecursionError:
        raise UserError(f"{p}: not a reportgen metrics.json (it nests too deeply)") from None
    try:
        return SavedResult(ComparisonResult.from_json(data, source=str(p)), raw, digest_status(data))
    except (KeyError, TypeError, ValueError) as exc:
        raise UserError(f"{p}: not a reportgen metrics.json (missing or malformed {exc})") from None
    except RecursionError:
        raise UserError(f"{p}: not a reportgen metrics.json (it nests too deeply)") from None


def load_result(path: str | Path, allow_edited: bool = False) -> ComparisonResult:
    """Read a saved ``metrics.json`` back into a result (see :func:`read_result`).

    A file whose results do not match their digest (edited since reportgen wrote it) is a
    :class:`~reportgen.errors.UserError` unless ``allow_edited``; the result then carries no
    mark of it (``reportgen render --allow-edited`` marks every page of the report it writes).
    """
    saved = read_result(path)
    if saved.digest == "edited" and not allow_edited:
        raise UserError(f"{path}: {EDITED}; pass allow_edited=True to read it anyway")
    return saved.result


#: What an edited ``metrics.json`` is, in the one-line refusals of ``render`` and :func:`load_result`.
EDITED = "its results do not match their digest (the file was edited after reportgen wrote it)"


__all__ = ["EDITED", "MAX_RESULT_BYTES", "SavedResult", "load_result", "read_result", "result_json"]


def result_json(result: ComparisonResult) -> str:
    """metrics.json text: ``json.dumps(..., indent=2, ensure_ascii=False, allow_nan=False)``
    with each list of numbers (curves, CIs) on one line, ``[a, b, c]``; strings, keys, numbers
    and nulls written as ``json.dumps`` writes them."""
    out: list[str] = []
    _indented(result.to_json(), "\n", out)
    out.append("\n")
    return "".join(out)


#: The types of the items of a list written on one line: numbers and nulls (not bool, an int
#: subclass). ``json.dumps`` writes such a list as ``[a, b, c]`` with ``float.__repr__`` and
#: ``int.__repr__``, ``null`` for None, and refuses NaN and infinities (``allow_nan=False``).
_NUMBER_TYPES = frozenset({float, int, type(None)})

#: ``json.dumps(x, ensure_ascii=False)`` (a key), ``json.dumps(x, ensure_ascii=False,
#: allow_nan=False)`` (a scalar) and ``json.dumps(x, allow_nan=False)`` (a list of numbers),
#: each encoder built once: ``json.dumps`` with any argument not its default builds a new
#: encoder on every call, some 2,000 times for a small run's metrics.json.
_key_text = json.JSONEncoder(ensure_ascii=False).encode
_scalar_text = json.JSONEncoder(ensure_ascii=False, allow_nan=False).encode
_numbers_text = json.JSONEncoder(allow_nan=False).encode


def _indented(v: Any, pad: str, out: list[str]) -> None:
    """``v`` indented two spaces a level (``pad``: a newline and the current indent), as
    ``json.dumps(indent=2)`` indents it, but a non-empty list of numbers and nulls on one line."""
    if type(v) is dict:
        if not v:
            out.append("{}")
            return
        inner = pad + "  "
        sep = "{" + inner
        for k, x in v.items():
            out.append(sep + _key_text(k) + ": ")
            _indented(x, inner, out)
            sep = "," + inner
        out.append(pad + "}")
    elif type(v) is list:
        if not v:
            out.append("[]")
            return
        if {type(x) for x in v} <= _NUMBER_TYPES:
            out.append(_numbers_text(v))
            return
        inner = pad + "  "
        sep = "[" + inner
        for x in v:
            out.append(sep)
            _indented(x, inner, out)
            sep = "," + inner
        out.append(pad + "]")
    else:
        out.append(_scalar_text(v))
