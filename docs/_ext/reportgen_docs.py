"""Pages of the documentation written from the code at build time, so each fact has one home.

- ``_generated/config_reference.md``: the configuration reference, from the shipped
  ``reportgen/schema/config.schema.json`` (itself generated from the config models: a key's
  description is its ``Field(description=...)``).
- ``_generated/metrics_table.md``: every metric and optimal-threshold criterion, from
  ``reportgen.catalog``.
- ``_generated/glossary.md``: the report's glossary entries (formulas and sources), from
  ``templates/sections/glossary*.html``, so the report and the site say the same thing.
- ``_generated/conventions.md``: where tools differ and which one reportgen agrees with, from
  ``reportgen.catalog.CONVENTIONS`` (the sentences ``metrics.json`` records as ``run.conventions``).

The files are written when Sphinx starts (``builder-inited``) and are not kept in git.
"""

from __future__ import annotations

import html
import json
import re
from pathlib import Path
from typing import Any

DOCS = Path(__file__).resolve().parents[1]
ROOT = DOCS.parent
OUT = DOCS / "_generated"


# -- configuration reference ---------------------------------------------------------------------

def _rst_to_md(text: str) -> str:
    """A docstring's RST inline markup as MyST: ``x`` stays code, :role:`x` becomes `x`."""
    text = re.sub(r":[a-z]+:`~?([^`]+)`", r"`\1`", text)
    return "\n\n".join(" ".join(par.split()) for par in text.split("\n\n"))


def _ref_name(ref: str) -> str:
    return ref.rsplit("/", 1)[1]


def _type_of(node: dict[str, Any], anchors: dict[str, str]) -> str:
    """A JSON Schema node as a short type phrase; a nested model links to its table."""
    if "$ref" in node:
        name = _ref_name(node["$ref"])
        return f"[a mapping](#{anchors[name]})" if name in anchors else "a mapping"
    if "anyOf" in node:  # null is said by the default ("none")
        kinds = [k for k in node["anyOf"] if k.get("type") != "null"]
        if {k.get("type") for k in kinds} == {"integer", "string", "boolean", "number"}:
            return "label (number, text or boolean)"
        return " or ".join(_type_of(k, anchors) for k in kinds)
    if "enum" in node:
        return "one of " + ", ".join(f"`{v}`" for v in node["enum"])
    if "const" in node:
        return f"`{node['const']}`"
    kind = node.get("type")
    if kind == "array":
        item = _type_of(node.get("items", {}), anchors)
        return f"list of {item}" if item.startswith(("[", "list", "one of")) else f"list, each {item}"
    if kind == "object":
        value = node.get("additionalProperties")
        return f"mapping to {_type_of(value, anchors)}" if isinstance(value, dict) else "mapping"
    return {"string": "text", "number": "number", "integer": "integer", "boolean": "boolean"}.get(kind, "any")


def _bounds(node: dict[str, Any]) -> str:
    """The numeric and length limits of a node (and of its non-null branch)."""
    for branch in node.get("anyOf", []):
        if branch.get("type") != "null" and _bounds(branch):
            return _bounds(branch)
    parts = []
    for key, sign in (("minimum", "≥"), ("exclusiveMinimum", ">"), ("maximum", "≤"), ("exclusiveMaximum", "<")):
        if key in node:
            value = node[key]
            whole = float(value).is_integer() and abs(value) < 1e12
            power = float(value).is_integer() and value > 1 and int(value) & (int(value) - 1) == 0
            parts.append(f"{sign} {int(value):,}" if whole else f"{sign} 2^{int(value).bit_length() - 1}" if power
                         else f"{sign} {value:g}")
    if node.get("minItems"):
        parts.append(f"at least {node['minItems']} item{'s' * (node['minItems'] > 1)}")
    if node.get("maxItems"):
        parts.append(f"at most {node['maxItems']} items")
    return ", ".join(parts)


def _default(node: dict[str, Any], required: bool) -> str:
    if required:
        return "required"
    if "default" not in node:
        return ""
    value = node["default"]
    if value is None:
        return "none"
    if value == [] or value == {}:
        return "empty"
    return f"`{json.dumps(value, ensure_ascii=False)}`"


def _cell(text: str) -> str:
    return text.replace("|", "\\|").replace("\n", " ")


def config_reference(schema: dict[str, Any]) -> str:
    """The reference page's body: one table per mapping of the config, reached from the top
    level in reading order (``models[]``, ``models[].source``, ``output``, ...)."""
    defs = schema["$defs"]
    order: list[tuple[str, str, dict[str, Any]]] = []  # (path, def name, node)
    anchors: dict[str, str] = {}

    def visit(path: str, name: str, node: dict[str, Any]) -> None:
        if name in anchors:
            return
        anchors[name] = "config-" + (re.sub(r"[^a-z0-9]+", "-", path.lower()).strip("-") or "top")
        order.append((path, name, node))
        for key, prop in node.get("properties", {}).items():
            for ref, suffix in _refs(prop):
                visit(f"{path + '.' if path else ''}{key}{suffix}", ref, defs[ref])

    visit("", "Config", schema)
    lines: list[str] = []
    for path, name, node in order:
        lines.append(f"({anchors[name]})=")
        lines.append(f"### {'Top level' if not path else f'`{path}`'}\n")
        if node.get("description") and name != "Config":
            lines.append(_rst_to_md(node["description"]) + "\n")
        required = set(node.get("required", []))
        for key, prop in node.get("properties", {}).items():
            kind = _type_of(prop, anchors)
            limits = _bounds(prop)
            kind += f" ({limits})" if limits else ""
            default = _default(prop, key in required)
            facts = kind + (f"; {'default ' if default != 'required' else ''}{default}" if default else "")
            description = _rst_to_md(prop.get("description", ""))
            lines.append(f"`{key}`\n: {description} *{facts}.*\n")
    return "\n".join(lines)


def _refs(node: dict[str, Any]) -> list[tuple[str, str]]:
    """The models a property holds, with the path suffix of a list's items (``[]``)."""
    if "$ref" in node:
        return [(_ref_name(node["$ref"]), "")]
    found = []
    for branch in node.get("anyOf", []):
        found += _refs(branch)
    if node.get("type") == "array" and "items" in node:
        found += [(ref, "[]" + suffix) for ref, suffix in _refs(node["items"])]
    if node.get("type") == "object" and isinstance(node.get("additionalProperties"), dict):  # connections.NAME
        found += [(ref, ".NAME" + suffix) for ref, suffix in _refs(node["additionalProperties"])]
    return found


# -- metrics ---------------------------------------------------------------------------------------

def metrics_table() -> str:
    from reportgen import catalog

    def rng(lo: float, hi: float) -> str:
        def end(v: float) -> str:
            return "∞" if v == float("inf") else "−∞" if v == float("-inf") else f"{v:g}"
        return f"[{end(lo)}, {end(hi)}]"

    tasks = {("binary",): "binary", ("multiclass",): "multiclass", ("binary", "multiclass"): "both"}
    lines = ["| Key | Name | Better | Range | Task |", "| --- | --- | --- | --- | --- |"]
    for m in catalog.METRICS:
        needs = " ¹" if m.probabilities else ""
        lines.append(f"| `{m.key}` | {m.label}{needs} | {m.better or '—'} | {rng(m.lo, m.hi)} | {tasks[m.tasks]} |")
    lines += ["", "¹ Needs probabilities (binary) or class score columns (multiclass); without them the value is "
              "`null` with the reason."]
    lines += ["", "Optimal-threshold criteria (`models.NAME.optimal_thresholds`), binary:", "",
              "| Key | Criterion |", "| --- | --- |"]
    lines += [f"| `{c.key}` | {c.label} |" for c in catalog.CRITERIA]
    return "\n".join(lines) + "\n"


def conventions() -> str:
    from reportgen import catalog

    lines = ["| Statistic | Tasks | Convention |", "| --- | --- | --- |"]
    for key, (tasks, text) in catalog.CONVENTIONS.items():
        lines.append(f"| `{key}` | {', '.join(tasks)} | {_cell(text)} |")
    return "\n".join(lines) + "\n"


def _html_to_md(text: str) -> str:
    text = re.sub(r"<code>(.*?)</code>", r"`\1`", text)
    text = re.sub(r"<sub>(.*?)</sub>", r"_\1", text)
    text = re.sub(r"<sup>(.*?)</sup>", r"^\1", text)
    text = re.sub(r"</?(em|i)>", "*", text)
    text = re.sub(r"</?(strong|b)>", "**", text)
    text = re.sub(r"<[^>]+>", "", text)
    return html.unescape(text).replace("\xa0", " ")


def glossary() -> str:
    """The report's glossary entries, binary then multiclass, as a MyST definition list."""
    parts = []
    for name, title in (("glossary.html", "Binary classification"), ("glossary_multiclass.html", "Multiclass")):
        source = (ROOT / "templates" / "sections" / name).read_text(encoding="utf-8")
        parts.append(f"### {title}\n")
        for term, definition in re.findall(r"<dt>(.*?)</dt>\s*<dd>(.*?)</dd>", source, re.S):
            parts.append(f"{_html_to_md(term).strip()}\n: {' '.join(_html_to_md(definition).split())}\n")
    return "\n".join(parts)


def write_pages(*_: Any) -> None:
    OUT.mkdir(exist_ok=True)
    schema = json.loads((ROOT / "reportgen" / "schema" / "config.schema.json").read_text(encoding="utf-8"))
    pages = {
        "config_reference.md": config_reference(schema),
        "metrics_table.md": metrics_table(),
        "conventions.md": conventions(),
        "glossary.md": glossary(),
    }
    for name, text in pages.items():
        path = OUT / name
        if not path.exists() or path.read_text(encoding="utf-8") != text:  # unchanged: no rebuild
            path.write_text(text, encoding="utf-8")


def setup(app: Any) -> dict[str, Any]:
    app.connect("builder-inited", write_pages)
    return {"version": "1", "parallel_read_safe": True, "parallel_write_safe": True}
