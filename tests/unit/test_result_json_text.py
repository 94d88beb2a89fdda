"""metrics.json's text is json.dumps(indent=2) with each list of numbers on one line: checked
against that definition (the dump, then a regex joining the number lists) on awkward documents."""

from __future__ import annotations

import json
import re
from types import SimpleNamespace

import pytest

from reportgen.results_io import result_json

# the definition: a JSON string is kept as written; a list of numbers and nulls is joined on one line
_NUMBER_LIST = re.compile(r'"(?:[^"\\]|\\.)*"|\[\s*((?:-?[\d.eE+-]+|null)(?:,\s*(?:-?[\d.eE+-]+|null))*)\s*\]')


def _reference(doc) -> str:
    text = json.dumps(doc, indent=2, ensure_ascii=False, allow_nan=False)

    def join(m: re.Match[str]) -> str:
        return m.group(0) if m.group(1) is None else "[" + ", ".join(x.strip() for x in m.group(1).split(",")) + "]"

    return _NUMBER_LIST.sub(join, text) + "\n"


DOC = {
    "title": 'a "quoted" [1, 2] title\nwith ünïcode, a tab\t and \\ backslash',
    "curve": [0.0, -0.0, 1e-300, 1.5e16, 12345678901234567890, -3, None, 0.1],
    "nested": [[1, 2], [], [None], [[0.5]], {"k": []}, {}],
    "mixed": [1, "2", True, None],
    "bools": [True, False],
    "nulls": [None, None],
    "empty": {"list": [], "dict": {}},
    "deep": {"a": {"b": {"c": [1.25, 2], "d": "[3,4]"}}},
    "ints": [1, 2, 3],
    "one": [7],
    "flag": False,
    "none": None,
    "ключ": "значение",
}


def test_text_equals_the_indented_dump_with_number_lists_joined():
    assert result_json(SimpleNamespace(to_json=lambda: DOC)) == _reference(DOC)


@pytest.mark.parametrize("bad", [float("nan"), float("inf"), -float("inf")])
def test_non_finite_numbers_refused_like_json(bad):
    doc = {"x": [1.0, bad]}
    with pytest.raises(ValueError):
        json.dumps(doc, allow_nan=False)
    with pytest.raises(ValueError):
        result_json(SimpleNamespace(to_json=lambda: doc))
