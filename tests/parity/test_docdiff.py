"""The parity suite's comparison helper: it must name the first differing path, and be strict.

A helper that missed a difference would make every parity case pass; these cases pin down that
it does not (and that its tolerance stays where it is granted).
"""

from __future__ import annotations

from docdiff import differences, first_difference


def test_first_difference_names_the_path_of_the_first_differing_number():
    a = {"models": {"a": {"ci": {"f1": [0.41, 0.5]}}, "b": {"n": 3}}}
    b = {"models": {"a": {"ci": {"f1": [0.43, 0.5]}}, "b": {"n": 4}}}
    assert str(first_difference(a, b)) == "$.models.a.ci.f1[0]: 0.41 != 0.43"
    assert [d.path for d in differences(a, b)] == ["$.models.a.ci.f1[0]", "$.models.b.n"]


def test_equal_documents_have_no_difference():
    doc = {"x": [1, 2.5, None, "s", True, {"y": []}]}
    assert first_difference(doc, {"x": [1, 2.5, None, "s", True, {"y": []}]}) is None


def test_missing_keys_lengths_and_types_are_differences():
    assert str(first_difference({"a": 1}, {})) == "$.a: missing on the right (left: 1)"
    assert str(first_difference({}, {"a": 1})) == "$.a: missing on the left (right: 1)"
    assert first_difference({"l": [1, 2]}, {"l": [1]}).what.startswith("2 items != 1 items")
    assert first_difference({"p": True}, {"p": 1}) is not None  # equal in Python, not in a report
    assert first_difference({"v": None}, {"v": 0.0}) is not None
    assert first_difference({"s": "a"}, {"s": "b"}) is not None


def test_float_tolerance_applies_only_at_the_paths_granted():
    a = {"tests": {"delong": {"se": 0.1}}, "metrics": {"auc": 0.7}}
    b = {"tests": {"delong": {"se": 0.1 * (1 + 1e-14)}}, "metrics": {"auc": 0.7 * (1 + 1e-14)}}
    close = ("$.tests.delong.*",)
    assert [d.path for d in differences(a, b, close)] == ["$.metrics.auc"]
    far = {"tests": {"delong": {"se": 0.1 * (1 + 1e-9)}}, "metrics": {"auc": 0.7}}
    assert [d.path for d in differences(a, far, close)] == ["$.tests.delong.se"]
