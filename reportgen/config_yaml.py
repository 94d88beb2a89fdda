"""YAML text → plain data, before validation: PyYAML's safe loader refusing duplicate keys, with
bounds on nesting and on values, the line of a key, ``${VAR}`` interpolation and ``--set``
overrides. Nothing here knows the config's sections (:mod:`reportgen.config`).
"""

import datetime
import re
from collections.abc import Mapping, Sequence
from typing import Any

import yaml

from reportgen.config_base import format_loc
from reportgen.errors import ConfigError


def yaml_line(text: str, loc: tuple[Any, ...]) -> int | None:
    """1-based line of the YAML node at ``loc`` (keys and list indices), if it can be found."""
    try:
        node = yaml.compose(text, Loader=yaml.SafeLoader)
    except yaml.YAMLError:
        return None
    line = None
    for part in loc:
        if isinstance(node, yaml.MappingNode):
            for k, v in node.value:
                if k.value == part:
                    line = k.start_mark.line + 1
                    node = v
                    break
            else:
                return line
        elif isinstance(node, yaml.SequenceNode) and isinstance(part, int) and part < len(node.value):
            node = node.value[part]
            line = node.start_mark.line + 1
        else:
            return line
    return line


#: How deep a config may nest (mappings and lists); the documented shape needs 4.
MAX_DEPTH = 32


class _DuplicateKey(yaml.YAMLError):
    def __init__(self, key: Any, line: int, first: int, todo: str = "keep one of them") -> None:
        super().__init__(f"duplicate key {key!r}")
        self.key, self.line, self.first, self.todo = key, line, first, todo


class _StrictSafeLoader(yaml.SafeLoader):
    """``yaml.SafeLoader`` that refuses a key given twice in one mapping (PyYAML keeps the last),
    merge keys (``<<:``) included."""

    def construct_mapping(self, node: yaml.MappingNode, deep: bool = False) -> dict[Any, Any]:
        seen: dict[Any, int] = {}
        merged = 0
        for key_node, _ in node.value:
            if key_node.tag == "tag:yaml.org,2002:merge":
                # two ``<<:`` keys in one mapping (YAML gives a key once): PyYAML merged both,
                # and which one's value won a clash depended on how each was written (the
                # second of two flow mappings, the first of a mapping's own key and a merge)
                if merged:
                    raise _DuplicateKey(
                        "<<",
                        key_node.start_mark.line + 1,
                        merged,
                        "merge several mappings with one key: <<: [*first, *second]",
                    )
                merged = key_node.start_mark.line + 1
                # ``<<: *defaults`` (a YAML merge key): PyYAML's own construct_mapping merges it,
                # and a key given beside it overrides the merged one (not a duplicate)
                continue
            key = self.construct_object(key_node, deep=deep)
            try:
                first = seen.get(key)
            except TypeError:  # an unhashable key: let PyYAML report it
                continue
            if first is not None:
                raise _DuplicateKey(key, key_node.start_mark.line + 1, first)
            seen[key] = key_node.start_mark.line + 1
        return super().construct_mapping(node, deep=deep)


#: The most values (mappings, lists and scalars, each alias counted as a copy) a config may hold:
#: PyYAML builds ``&a [*b, *b, ...]`` chains ("billion laughs") as shared references, but every
#: later walk (validation, ``${VAR}`` expansion, error messages) visits each copy. A 40-model
#: config with a 50-class cost matrix holds about 3,000.
MAX_VALUES = 100_000


def _depth(node: Any, limit: int, values: int = MAX_VALUES) -> int:
    """Nesting depth of parsed YAML, counting at most to ``limit + 1`` (no recursion).

    Raises :class:`_TooManyValues` past ``values`` visited values, so that an alias bomb (a
    small text that expands exponentially) is refused in bounded time."""
    deepest, stack, seen = 0, [(node, 1)], 0
    while stack:
        item, d = stack.pop()
        seen += 1
        if seen > values:
            raise _TooManyValues(values)
        if isinstance(item, (dict, list)):
            deepest = max(deepest, d)
            if deepest > limit:
                return deepest
            stack.extend((v, d + 1) for v in (item.values() if isinstance(item, dict) else item))
    return deepest


class _TooManyValues(ValueError):
    def __init__(self, values: int) -> None:
        super().__init__(values)
        self.values = values


def _safe_load(text: str, source: str) -> Any:
    """YAML text → plain data: safe tags only, no duplicate keys, bounded nesting."""
    try:
        return yaml.load(text, Loader=_StrictSafeLoader)
    except _DuplicateKey as exc:
        raise ConfigError(
            f"{source}:{exc.line}: duplicate key {exc.key!r} (first given at line {exc.first}); {exc.todo}"
        ) from None
    except RecursionError:
        raise ConfigError(
            f"{source}: the config nests too deeply (more than {MAX_DEPTH} levels); see configs/demo.yaml for its shape"
        ) from None


# --------------------------------------------------------------------------------------
# ${VAR} interpolation and --set overrides
# --------------------------------------------------------------------------------------

#: ``${NAME}``, ``${NAME:-default}``; ``$${`` is a literal ``${``.
_VAR = re.compile(r"\$\$\{|\$\{([^{}]*)\}")
_VAR_NAME = re.compile(r"[A-Za-z_][A-Za-z0-9_]*")

#: Keys whose ``${VAR}`` are *not* expanded when the config is read but only when it is used,
#: so that a secret (a database password in a URL) is never held in the config, printed,
#: or written into the report or metrics.json: a source's and a connection's URL, a connection's options.
DEFERRED_KEYS = (
    ("models", "*", "source", "url"),
    ("connections", "*", "url"),
    ("connections", "*", "options", "*"),
)


def _deferred(loc: tuple[Any, ...]) -> bool:
    return any(len(loc) == len(k) and all(a == "*" or a == b for a, b in zip(k, loc)) for k in DEFERRED_KEYS)


def expand_vars(value: str, environ: Mapping[str, str], where: str) -> str:
    """``value`` with each ``${NAME}`` replaced by the environment variable ``NAME`` (or the
    ``default`` of ``${NAME:-default}`` when it is unset or empty, as in POSIX shells).

    An unset variable without a default, or a malformed reference, is a :class:`ConfigError`
    naming ``where`` (the config key) and the variable — never its value.
    """

    def sub(m: re.Match[str]) -> str:
        if m.group(0) == "$${":
            return "${"
        body = m.group(1)
        name, sep, default = body.partition(":-")
        if not _VAR_NAME.fullmatch(name):
            raise ConfigError(
                f"{where}: ${{{body}}} is not a variable reference; write ${{NAME}} or "
                f"${{NAME:-default}} (and $${{ for a literal ${{)"
            )
        got = environ.get(name)
        if got:
            return got
        if sep:
            return default
        if got is not None:  # set but empty: as the shell, an empty value is taken
            return got
        raise ConfigError(
            f"{where}: environment variable {name} is not set; export it, or write ${{{name}:-default}} for a default"
        )

    return _VAR.sub(sub, value)


def from_set(loc: tuple[Any, ...], set_keys: Sequence[tuple[Any, ...]]) -> bool:
    """Whether the value at ``loc`` was given by a ``--set`` item (the key itself, or inside it)."""
    return any(loc[: len(k)] == k or k[: len(loc)] == loc for k in set_keys)


def _interpolate(
    data: Any, environ: Mapping[str, str], text: str, source: str, set_keys: Sequence[tuple[Any, ...]]
) -> tuple[Any, dict[tuple[Any, ...], str]]:
    """Parsed YAML with ``${VAR}`` expanded in every string value (keys are left alone;
    :data:`DEFERRED_KEYS` are expanded later, where they are used) and a ``!!binary`` value
    refused, naming its key; recursive, bounded by the nesting limit already checked. A problem in
    a value from ``--set`` (``set_keys``) is said to come from there, not from the file's line of
    that key. With each expanded value's text as written, by its key (what
    :meth:`reportgen.config.Config.as_written` records)."""
    written: dict[tuple[Any, ...], str] = {}

    def where(loc: tuple[Any, ...]) -> str:
        if from_set(loc, set_keys):
            return f"{source}: {format_loc(loc)} (from --set)"
        line = yaml_line(text, loc)
        return f"{source}{f':{line}' if line else ''}: {format_loc(loc)}"

    def walk(node: Any, loc: tuple[Any, ...]) -> Any:
        if isinstance(node, dict):
            return {k: walk(v, (*loc, k)) for k, v in node.items()}
        if isinstance(node, list):
            return [walk(v, (*loc, i)) for i, v in enumerate(node)]
        if isinstance(node, str) and "$" in node and not _deferred(loc):
            value = expand_vars(node, environ, where(loc))
            if value != node:
                written[loc] = node
            return value
        if isinstance(node, (bytes, bytearray)):  # pydantic would decode them: a title or name of bytes
            raise ConfigError(
                f"{where(loc)}: a YAML !!binary value (bytes), where every value is text, a number "
                f"or true/false; write the value out as plain text"
            )
        return node

    return walk(data, ()), written


_SET_KEY = r"[A-Za-z_][A-Za-z0-9_]*(?:\[\d+\])*(?:\.[A-Za-z_][A-Za-z0-9_]*(?:\[\d+\])*)*"


def parse_set(item: str) -> tuple[tuple[str | int, ...], Any]:
    """``'models[1].file=b.csv'`` → ``(('models', 1, 'file'), 'b.csv')``; the value is read as a
    YAML scalar or flow collection (``--set bootstrap.resamples=100`` is the number 100)."""
    key, eq, raw = item.partition("=")
    key = key.strip()
    if not eq or not re.fullmatch(_SET_KEY, key):
        raise ConfigError(f"--set {item}: expected KEY=VALUE with KEY such as bootstrap.seed or models[1].file")
    loc: list[str | int] = []
    for part in key.split("."):
        name, *idx = part.replace("]", "").split("[")
        loc.append(name)
        loc.extend(int(i) for i in idx)
    try:
        value = _safe_load(raw, f"--set {key}") if raw.strip() else ""
    except yaml.YAMLError:
        value = raw  # not YAML: the text itself (a path with a colon, say)
    if isinstance(value, (datetime.date, datetime.datetime)):
        value = raw  # a date is text in the config (``date``, paths, titles), as typed
    # a value nesting too deeply, or an alias bomb, is the --set item's fault, named as such (the
    # whole config's check, after the merge, named the config file)
    try:
        too_deep = _depth(value, MAX_DEPTH) > MAX_DEPTH
    except _TooManyValues as exc:
        raise ConfigError(
            f"--set {key}: the value holds more than {exc.values:,} values once its YAML aliases "
            f"(*name) are expanded; write the value out"
        ) from None
    if too_deep:
        raise ConfigError(f"--set {key}: the value nests too deeply (more than {MAX_DEPTH} levels)")
    return tuple(loc), value


def apply_overrides(data: dict[str, Any], overrides: Sequence[str]) -> tuple[dict[str, Any], list[tuple[Any, ...]]]:
    """``--set`` items applied to parsed YAML (a deep copy is changed); returns the data and the
    keys that were set. A missing mapping on the way is created; a list index must exist."""
    import copy  # noqa: PLC0415

    data = copy.deepcopy(data)
    keys = []
    for item in overrides:
        loc, value = parse_set(item)
        node: Any = data
        for i, part in enumerate(loc[:-1]):
            nxt = loc[i + 1]
            here = format_loc(loc[: i + 1])
            if isinstance(part, int):
                if not isinstance(node, list) or part >= len(node):
                    n = len(node) if isinstance(node, list) else 0
                    raise ConfigError(f"--set {item}: {here}: no such entry ({format_loc(loc[:i])} has {n})")
                node = node[part]
            else:
                if not isinstance(node, dict):
                    raise ConfigError(f"--set {item}: {format_loc(loc[:i])} is not a mapping")
                if part not in node:
                    if isinstance(nxt, int):
                        raise ConfigError(f"--set {item}: {here}: no such list in the config")
                    node[part] = {}
                node = node[part]
        last = loc[-1]
        if isinstance(last, int):
            if not isinstance(node, list) or last >= len(node):
                raise ConfigError(f"--set {item}: {format_loc(loc)}: no such entry")
        elif not isinstance(node, dict):
            raise ConfigError(f"--set {item}: {format_loc(loc[:-1])} is not a mapping")
        node[last] = value
        keys.append(loc)
    return data, keys


def read_yaml(
    text: str, source: str, overrides: Sequence[str], environ: Mapping[str, str]
) -> tuple[dict[str, Any], list[tuple[Any, ...]], dict[tuple[Any, ...], str]]:
    """YAML text as a mapping to validate, ``--set`` items applied and ``${VAR}`` expanded; with
    the keys set and each expanded value as written (:func:`_interpolate`). Raises :class:`ConfigError`."""
    try:
        data = _safe_load(text, source)
    except yaml.YAMLError as exc:
        mark = getattr(exc, "problem_mark", None)
        pos = f":{mark.line + 1}:{mark.column + 1}" if mark is not None else ""
        problem = getattr(exc, "problem", None) or str(exc).splitlines()[0]
        context, cmark = getattr(exc, "context", None), getattr(exc, "context_mark", None)
        if context and cmark is not None and mark is not None and cmark.line != mark.line:
            problem += f" ({context} at line {cmark.line + 1}, column {cmark.column + 1})"
        if "could not determine a constructor" in str(exc):
            problem = "tags such as !!python/object are not allowed (safe YAML only); remove the tag"
        raise ConfigError(f"{source}{pos}: invalid YAML: {problem}") from None
    if data is None:
        raise ConfigError(f"{source}: the config is empty; see configs/demo.yaml for an example")
    if not isinstance(data, dict):
        raise ConfigError(
            f"{source}: the config must be a mapping of keys (title, models, ...), found {type(data).__name__}"
        )
    set_keys: list[tuple[Any, ...]] = []
    if overrides:
        data, set_keys = apply_overrides(data, overrides)
    try:
        depth = _depth(data, MAX_DEPTH)
    except _TooManyValues as exc:
        raise ConfigError(
            f"{source}: the config holds more than {exc.values:,} values once its YAML aliases "
            f"(*name) are expanded; write the values out (see configs/demo.yaml for its shape)"
        ) from None
    if depth > MAX_DEPTH:
        raise ConfigError(
            f"{source}: the config nests too deeply (more than {MAX_DEPTH} levels); see configs/demo.yaml for its shape"
        )
    data, written = _interpolate(data, environ, text, source, set_keys)
    return data, set_keys, written
