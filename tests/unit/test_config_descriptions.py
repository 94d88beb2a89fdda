"""Every key of the config is described once, in its ``Field(description=...)``: the shipped JSON
Schema carries it to an editor's hover and the documentation's configuration reference is
generated from it (``docs/_ext/reportgen_docs.py``)."""

from __future__ import annotations

import json
from typing import Any

import reportgen.config as config


def _properties(schema: dict[str, Any]) -> list[tuple[str, dict[str, Any]]]:
    models = {"Config": schema, **schema["$defs"]}
    return [
        (f"{name}.{key}", prop) for name, node in models.items() for key, prop in node.get("properties", {}).items()
    ]


def test_every_property_of_the_shipped_schema_has_a_description() -> None:
    schema = json.loads(config.SCHEMA_FILE.read_text(encoding="utf-8"))
    properties = _properties(schema)
    assert len(properties) > 90
    assert [k for k, p in properties if len(p.get("description", "").strip()) < 10] == []


def test_every_config_model_says_what_it_is_for() -> None:
    schema = config.json_schema()
    assert [n for n, d in schema["$defs"].items() if not d.get("description")] == []
