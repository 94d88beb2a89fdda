"""The config's validator, generic over frozen dataclasses whose keys are declared by :func:`key`:
parsed YAML → frozen sections, every problem in the config's words with its key path
(:func:`validated`); sections as JSON data and as a JSON Schema. It names no section of
:mod:`reportgen.config`."""

import dataclasses
import functools
import inspect
import math
import re
import types
import typing
from collections.abc import Mapping, Sequence
from dataclasses import dataclass
from pathlib import Path
from typing import Annotated, Any, Literal, TypeVar

from reportgen.value import Value

#: One value of a label: a class, the positive class, a reference group.
ScalarLabel = int | str | bool | float


class InvalidKey(ValueError):
    """A cross-field problem found by a section's ``_rules``, with the key it is about (``loc``,
    relative to the section), so that the message and the line number point at that key."""

    def __init__(self, loc: tuple[str | int, ...], message: str) -> None:
        super().__init__(message)
        self.loc = loc


def key(default: Any = dataclasses.MISSING, *, description: str, **rules: Any) -> Any:
    """One key of a config section: its default (none: the key is required; a list or mapping is
    copied for each config), the description the JSON Schema and the documentation show, and its
    rules for :func:`validated`: bounds ``ge``, ``gt``, ``le``, ``lt``; lengths ``min_length``,
    ``max_length``; ``before``, a function of the value as written (a path's URI made local, …),
    and ``check``, of the typed value when it is not None; both raise ``ValueError`` with the
    message; ``json``, a function of the value (not None) as :func:`json_data` gives it."""
    metadata = {"description": description, **rules}
    if isinstance(default, (list, dict)):
        return dataclasses.field(default_factory=default.copy, metadata=metadata)
    return dataclasses.field(default=default, metadata=metadata)


#: A boolean where a number is meant: YAML reads yes, no, on, off, true and false as booleans, and a
#: Python bool is an int (``threshold: true`` would be a threshold of 1, ``resamples: yes`` one resample).
_BOOLEAN_NUMBER = (
    "expected a number, found a boolean (YAML reads yes, no, on, off, true and false as booleans); give a number"
)


def close_matches(word: str, choices: Sequence[str]) -> list[str]:
    """The choice closest to a mistyped ``word``, if any is close (a list of at most one), for the
    "did you mean" of an error; difflib is imported only when there is a mistake to name."""
    import difflib  # noqa: PLC0415

    return difflib.get_close_matches(word, choices, n=1)


_T = TypeVar("_T")


class _Nothing:
    """No value: a key's value that failed validation, or a problem that quotes none."""


_NOTHING: Any = _Nothing()


@dataclass(frozen=True, repr=False, eq=False)
class Problem(Value):
    """One thing wrong with a config: where (keys and list indices), what was expected, and the
    value found (quoted after the message; :data:`_NOTHING` when the message says it all, as a
    rule's own message does). ``unknown``: an unknown key, listed first (a typo explains the
    problems after it); ``shape``: the value is not the mapping or list the key takes (the branch
    of a union it was not meant for)."""

    loc: tuple[str | int, ...]
    message: str
    found: Any = _NOTHING
    unknown: bool = False
    shape: bool = False

    @property
    def quotes(self) -> bool:
        """Whether the problem quotes the value found."""
        return self.found is not _NOTHING


class InvalidConfig(ValueError):
    """What :func:`validated` raises: every problem found, in the order of the sections' keys."""

    def __init__(self, problems: list[Problem]) -> None:
        super().__init__(problems[0].message)
        self.problems = problems


@functools.cache
def section_keys(cls: type) -> dict[str, dataclasses.Field[Any]]:
    """The keys of a config section (its dataclass fields but the private ones), in order."""
    return {f.name: f for f in dataclasses.fields(cls) if not f.name.startswith("_")}


def validated(cls: type[_T], data: Any) -> _T:
    """``data`` (parsed YAML, or a mapping) as a section ``cls``, checked by its type hints, the
    rules in each key's metadata (:func:`key`) and the section's cross-field ``_rules``; raises
    :class:`InvalidConfig` with every problem. A section instance in ``data`` is taken as it is."""
    problems: list[Problem] = []
    value = _section(cls, data, (), problems)
    if problems:
        raise InvalidConfig(problems)
    return typing.cast(_T, value)


def _section(cls: type, data: Any, loc: tuple[str | int, ...], problems: list[Problem]) -> Any:
    if isinstance(data, cls):
        return data
    if not isinstance(data, dict):
        problems.append(Problem(loc, _mapping_words(cls), data, shape=True))
        return _NOTHING
    before = len(problems)
    keys = section_keys(cls)
    values = {}
    for name, f in keys.items():
        if name in data:
            value = _key(f, data[name], (*loc, name), problems)
            if value is not _NOTHING:
                values[name] = value
        elif f.default is dataclasses.MISSING and f.default_factory is dataclasses.MISSING:
            problems.append(Problem((*loc, name), "required key is missing"))
    for k in data:
        if not isinstance(k, str):
            problems.append(Problem(loc, _KEY_NOT_TEXT.format(k)))
        elif k not in keys:
            hint = close_matches(k, list(keys))
            tip = f"did you mean '{hint[0]}'?" if hint else f"valid keys: {', '.join(keys)}"
            problems.append(Problem((*loc, k), f"unknown key; {tip}", unknown=True))
    if len(problems) > before:
        return _NOTHING
    section = cls(**values)
    try:
        if (rules := getattr(section, "_rules", None)) is not None:
            rules()
    except InvalidKey as exc:
        problems.append(Problem((*loc, *exc.loc), str(exc)))
        return _NOTHING
    except ValueError as exc:
        problems.append(Problem(loc, str(exc)))
        return _NOTHING
    return section


_KEY_NOT_TEXT = (
    "key {!r} is not text (YAML reads yes/no, on/off, true/false, null and numbers as values); quote the key or fix it"
)


def _key(f: dataclasses.Field[Any], data: Any, loc: tuple[str | int, ...], problems: list[Problem]) -> Any:
    """One key's value: its ``before`` function, its type and bounds, then its ``check``."""
    rules = f.metadata
    try:
        if (before := rules.get("before")) is not None:
            data = before(data)
        value = _value(f.type, data, loc, problems, rules)
        if value is not None and value is not _NOTHING and (check := rules.get("check")) is not None:
            value = check(value)
    except ValueError as exc:
        problems.append(Problem(loc, str(exc)))
        return _NOTHING
    return value


def _value(tp: Any, data: Any, loc: tuple[str | int, ...], problems: list[Problem], rules: Mapping[str, Any]) -> Any:
    """``data`` as a value of type hint ``tp`` within ``rules``' bounds, or :data:`_NOTHING` with
    the problem added to ``problems``."""
    origin = typing.get_origin(tp)
    if origin is Annotated:
        tp, *extra = typing.get_args(tp)
        return _value(tp, data, loc, problems, {**rules, **dict(extra)})
    if origin in (typing.Union, types.UnionType):
        args = [a for a in typing.get_args(tp) if a is not type(None)]
        if data is None and len(args) < len(typing.get_args(tp)):
            return None
        if len(args) == 1:
            return _value(args[0], data, loc, problems, rules)
        return _union(args, data, loc, problems, rules)
    if origin is Literal:
        choices = typing.get_args(tp)
        if isinstance(data, str) and data in choices:
            return data
        return _refuse(problems, loc, f"expected {_either(choices)}", data)
    if dataclasses.is_dataclass(tp):
        return _section(typing.cast(type, tp), data, loc, problems)
    if origin is list:
        if not isinstance(data, (list, tuple)):  # a tuple: a report block read back from metrics.json
            return _refuse(problems, loc, _LIST, data, shape=True)
        (item,) = typing.get_args(tp)
        items = [_value(item, x, (*loc, i), problems, {}) for i, x in enumerate(data)]
        if any(x is _NOTHING for x in items):
            return _NOTHING
        return _within(items, rules, loc, problems, "item")
    if origin is tuple:
        parts = typing.get_args(tp)
        if not isinstance(data, (list, tuple)):
            return _refuse(problems, loc, f"expected a list of {len(parts)} numbers", data, shape=True)
        if len(data) != len(parts):
            return _refuse(problems, loc, f"expected a list of {len(parts)} numbers, found {len(data)}", data)
        items = [_value(a, x, (*loc, i), problems, {}) for i, (a, x) in enumerate(zip(parts, data))]
        return _NOTHING if any(x is _NOTHING for x in items) else tuple(items)
    if origin is dict:
        key_type, value_type = typing.get_args(tp)
        if not isinstance(data, dict):
            section = value_type if isinstance(value_type, type) and dataclasses.is_dataclass(value_type) else None
            words = _mapping_words(section)
            return _refuse(problems, loc, words, data, shape=True)
        out = {}
        for k, v in data.items():
            if key_type is str and not isinstance(k, str):
                _refuse(problems, loc, _KEY_NOT_TEXT.format(k))
                continue
            k = _value(key_type, k, (*loc, k), problems, {})
            out[k] = _value(value_type, v, (*loc, k), problems, {})
        return _NOTHING if _NOTHING in out.values() or _NOTHING in out else out
    value = _scalar(tp, data, loc, problems)
    if value is _NOTHING or value is None:
        return value
    if isinstance(value, str):
        return _within(value, rules, loc, problems, "character")
    return _bounded(value, data, rules, loc, problems)


_LIST = "expected a list ([a, b] or one '- ' line per item)"
_TEXT = (
    "expected text, found {!r} (YAML reads unquoted numbers, yes/no, true/false and null as values, not text); quote it"
)
#: What YAML text pydantic read as true and false: the config keeps reading them so (``${VAR}``).
_TRUE, _FALSE = ("1", "on", "t", "true", "y", "yes"), ("0", "off", "f", "false", "n", "no")


def _scalar(tp: Any, data: Any, loc: tuple[str | int, ...], problems: list[Problem]) -> Any:
    """A number, text, true or false, or a path; a number never a boolean nor NaN or infinite, and
    text that spells one taken as one (a ``${VAR}`` is text)."""
    if tp is str:
        if isinstance(data, str) and _is_unicode(data):
            return data
        if data is None or isinstance(data, (bool, int, float)):
            return _refuse(problems, loc, _TEXT.format(data))
        return _refuse(problems, loc, "expected text", data)
    if tp is Path:
        return Path(data) if isinstance(data, (str, Path)) else _refuse(problems, loc, "expected a path as text", data)
    if tp is bool:
        if isinstance(data, bool):
            return data
        word = data.lower() if isinstance(data, str) else data
        if word in _TRUE or word in _FALSE or (isinstance(data, (int, float)) and data in (0, 1)):
            return word in _TRUE or word == 1
        return _refuse(problems, loc, "expected true or false", data)
    if isinstance(data, bool):
        return _refuse(problems, loc, _BOOLEAN_NUMBER)
    if tp is int:
        whole = _whole(data)
        return whole if whole is not None else _refuse(problems, loc, "expected a whole number", data)
    if tp is float:
        number = _number(data)
        if number is None:
            return _refuse(problems, loc, "expected a number", data)
        return number if math.isfinite(number) else _refuse(problems, loc, "expected a finite number", data)
    raise TypeError(f"config: no validation for type {tp!r} at {format_loc(loc)}")  # a bug in the sections


def _is_unicode(text: str) -> bool:
    """Whether ``text`` holds no lone UTF-16 surrogate (YAML's ``"\\ud800"``): no file, report
    or metrics.json can hold one."""
    try:
        text.encode("utf-8")
    except UnicodeEncodeError:
        return False
    return True


def _whole(data: Any) -> int | None:
    """A whole number written as one, as a float without a fraction (within 64 bits), or as text
    (``"10"``, ``" +1_000 "``, ``"10.0"``), else None."""
    if isinstance(data, int):
        return data
    if isinstance(data, float):
        return int(data) if data.is_integer() and abs(data) < 2**63 else None
    m = re.fullmatch(r"\s*([+-]?[0-9_]+)(?:\.0*)?\s*", data) if isinstance(data, str) else None
    try:
        return int(m.group(1)) if m is not None else None
    except ValueError:  # underscores out of place ("1__0")
        return None


def _number(data: Any) -> float | None:
    """A number (a float; an int converted), or ASCII text Python reads as one, else None."""
    try:
        return float(data) if isinstance(data, (int, float)) or (isinstance(data, str) and data.isascii()) else None
    except (ValueError, OverflowError):  # not a number; an int past the largest float
        return None


def _union(
    args: list[Any], data: Any, loc: tuple[str | int, ...], problems: list[Problem], rules: Mapping[str, Any]
) -> Any:
    """The first branch of a union that takes ``data``; if none does, the problems of the branches
    whose shape ``data`` has (a mapping of costs with a wrong cost), else one problem naming the
    shapes expected (a label is a number, text or true/false)."""
    if set(args) == set(typing.get_args(ScalarLabel)):
        if isinstance(data, (str, int)) or (isinstance(data, float) and math.isfinite(data)):
            return data
        return _refuse(problems, loc, "expected one label (a number, text or true/false)", data)
    tried = []
    for a in args:
        found: list[Problem] = []
        value = _value(a, data, loc, found, rules)
        if not found:
            return value
        tried.append(found)
    # a branch that refused the value itself (its shape, or a scalar of another type) was not meant
    meant = [found for found in tried if not any(p.shape or (p.loc == loc and p.quotes) for p in found)]
    if meant:
        problems.extend(p for found in meant for p in found)
        return _NOTHING
    return _refuse(problems, loc, "expected " + " or ".join(_words(a) for a in args), data, shape=True)


def _words(tp: Any) -> str:
    """One branch of a union as the shape of a value: a section, a choice, a number, or the words
    its ``Annotated`` hint gives (``("words", "a cost matrix (…)")``)."""
    if dataclasses.is_dataclass(tp):
        return _mapping_words(typing.cast(type, tp)).removeprefix("expected ")
    if typing.get_origin(tp) is Literal:
        return _either(typing.get_args(tp))
    return "a number" if tp is float else str(dict(tp.__metadata__)["words"])


def _mapping_words(cls: type | None) -> str:
    """What a config section takes: a mapping, and its keys."""
    keys = f" ({', '.join(section_keys(cls))})" if cls is not None else ""
    return f"expected a mapping of keys{keys}"


def _either(choices: Sequence[Any]) -> str:
    """``'a', 'b' or 'c'``."""
    said = [repr(c) for c in choices]
    return said[0] if len(said) == 1 else f"{', '.join(said[:-1])} or {said[-1]}"


def _refuse(
    problems: list[Problem], loc: tuple[str | int, ...], message: str, found: Any = _NOTHING, shape: bool = False
) -> Any:
    problems.append(Problem(loc, message, found, shape=shape))
    return _NOTHING


def _number_words(v: float) -> str:
    """A bound as a message writes it: a whole float without its ``.0``."""
    return str(int(v)) if isinstance(v, float) and v.is_integer() else str(v)


_BOUNDS = (
    ("ge", lambda v, b: v >= b, "≥"),
    ("gt", lambda v, b: v > b, ">"),
    ("le", lambda v, b: v <= b, "≤"),
    ("lt", lambda v, b: v < b, "<"),
)


def _bounded(
    value: Any, written: Any, rules: Mapping[str, Any], loc: tuple[str | int, ...], problems: list[Problem]
) -> Any:
    """A number within its key's bounds (``ge``, ``gt``, ``le``, ``lt``); ``written``, as found."""
    for name, holds, sign in _BOUNDS:
        if name in rules and not holds(value, rules[name]):
            number = "a whole number" if isinstance(value, int) else "a number"
            return _refuse(problems, loc, f"expected {number} {sign} {_number_words(rules[name])}", written)
    return value


def _within(
    value: Any, rules: Mapping[str, Any], loc: tuple[str | int, ...], problems: list[Problem], unit: str
) -> Any:
    """Text or a list within its key's lengths (``min_length``, ``max_length``), counted in ``unit``
    (character or item); a list's length is said, as a list found is not quoted."""
    for name, side, holds in (("min_length", "least", len(value).__ge__), ("max_length", "most", len(value).__le__)):
        n = rules.get(name)
        if n is not None and not holds(n):
            found = f", found {len(value)}" if unit == "item" else ""
            return _refuse(problems, loc, f"expected at {side} {n} {unit}{'s' * (n != 1)}{found}", value)
    return value


def json_data(value: Any) -> Any:
    """A config (or any of its sections) as JSON data: sections as mappings of their keys in order
    (a key's value through its ``json`` function, if it has one), paths as text, tuples as lists,
    mapping keys as text. What the run's digest hashes and ``metrics.json`` records."""
    if dataclasses.is_dataclass(value) and not isinstance(value, type):
        out = {}
        for name, f in section_keys(type(value)).items():
            v = getattr(value, name)
            out[name] = f.metadata["json"](v) if "json" in f.metadata and v is not None else json_data(v)
        return out
    if isinstance(value, (list, tuple)):
        return [json_data(v) for v in value]
    if isinstance(value, dict):
        return {str(k): json_data(v) for k, v in value.items()}  # a class label read as a number: its text
    if isinstance(value, Path):
        return str(value)
    return value


def format_loc(loc: tuple[Any, ...]) -> str:
    """A key path as a config writes it: ``models[1].score``."""
    out = ""
    for part in loc:
        out += f"[{part}]" if isinstance(part, int) else (f".{part}" if out else str(part))
    return out or "(top level)"


def json_schema_of(root: type) -> dict[str, Any]:
    """The JSON Schema (draft 2020-12) of section ``root``: every key, type, choice, bound and
    default, and ``additionalProperties: false`` at every level; its sections under ``$defs``."""
    defs: dict[str, Any] = {}
    top = _schema_of_section(root, defs)
    del defs[root.__name__]
    return {"$schema": "https://json-schema.org/draft/2020-12/schema", "$defs": dict(sorted(defs.items())), **top}


#: The JSON Schema keywords of a key's rules.
_SCHEMA_BOUNDS = {
    "ge": "minimum",
    "gt": "exclusiveMinimum",
    "le": "maximum",
    "lt": "exclusiveMaximum",
    "min_length": "minLength",
    "max_length": "maxLength",
}


def _schema_of_section(cls: type, defs: dict[str, Any]) -> dict[str, Any]:
    """A section's schema, added to ``defs`` by its class name (its sections' schemas too)."""
    properties, required = {}, []
    for name, f in section_keys(cls).items():
        node = _schema_of(f.type, f.metadata, defs)
        if not all("$ref" in b or b == {"type": "null"} for b in node.get("anyOf", [node])):  # a section: its own
            node["title"] = name.replace("_", " ").title()
        if f.default is not dataclasses.MISSING:
            node["default"] = json_data(f.default)
        elif f.default_factory is not dataclasses.MISSING:
            node["default"] = json_data(f.default_factory())
        else:
            required.append(name)
        node["description"] = f.metadata["description"]
        properties[name] = dict(sorted(node.items()))
    schema = {
        "additionalProperties": False,
        "description": inspect.cleandoc(cls.__doc__ or ""),
        "properties": properties,
        **({"required": required} if required else {}),
        "title": cls.__name__,
        "type": "object",
    }
    defs[cls.__name__] = schema
    return schema


def _schema_of(tp: Any, rules: Mapping[str, Any], defs: dict[str, Any]) -> dict[str, Any]:
    """The JSON Schema of type hint ``tp`` within ``rules``' bounds."""
    origin, args = typing.get_origin(tp), typing.get_args(tp)
    if origin is Annotated:
        return _schema_of(args[0], {**rules, **dict(args[1:])}, defs)
    if origin in (typing.Union, types.UnionType):
        return {"anyOf": [_schema_of(a, rules, defs) if a is not type(None) else {"type": "null"} for a in args]}
    if dataclasses.is_dataclass(tp):
        name = typing.cast(type, tp).__name__
        if name not in defs:
            _schema_of_section(typing.cast(type, tp), defs)
        return {"$ref": f"#/$defs/{name}"}
    if origin is Literal:
        return {"const": args[0], "type": "string"} if len(args) == 1 else {"enum": list(args), "type": "string"}
    if origin is list:
        node = {"items": _schema_of(args[0], {}, defs), "type": "array"}
        lengths = {"minItems": rules.get("min_length"), "maxItems": rules.get("max_length")}
        return dict(sorted((node | {k: v for k, v in lengths.items() if v is not None}).items()))
    if origin is tuple:
        items = [_schema_of(a, {}, defs) for a in args]
        return {"maxItems": len(args), "minItems": len(args), "prefixItems": items, "type": "array"}
    if origin is dict:
        return {"additionalProperties": _schema_of(args[1], {}, defs), "type": "object"}
    kind = {str: "string", int: "integer", float: "number", bool: "boolean", Path: "string"}[tp]
    node = {"type": kind, **({"format": "path"} if tp is Path else {})}
    return dict(sorted((node | {word: rules[k] for k, word in _SCHEMA_BOUNDS.items() if k in rules}).items()))
