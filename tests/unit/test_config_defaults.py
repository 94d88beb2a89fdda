"""Nested config defaults are built as plain dataclass instances (no validation at import): each
must equal the same section validated from its own JSON data."""

from __future__ import annotations

import dataclasses

import reportgen.config as C
from reportgen.config_base import json_data, validated


def _defaults(section: type):
    for f in dataclasses.fields(section):
        if dataclasses.is_dataclass(f.default):
            yield f"{section.__name__}.{f.name}", f.default


def test_section_defaults_equal_validated_sections():
    sections = [v for v in vars(C).values() if isinstance(v, type) and dataclasses.is_dataclass(v)]
    found = [d for s in sections for d in _defaults(s)]
    assert len(found) >= 8
    for where, d in found:
        assert validated(type(d), json_data(d)) == d, where


def test_default_config_sections_equal_explicit_empty_ones():
    base = {"title": "t", "label": "y", "models": [{"name": "a", "file": "a.csv", "score": "s"}]}
    a = validated(C.Config, base)
    b = validated(C.Config, base | {k: {} for k in ("bootstrap", "output", "report", "stream")} | {"costs": {}})
    assert a == b
