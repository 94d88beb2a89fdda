"""The result types' repr, ``==`` and hash, written once on their base (``results._Frozen``) instead
of generated per type: the same as :func:`dataclasses.dataclass` generates, checked against a plain
frozen dataclass with the same fields and values."""

from __future__ import annotations

import dataclasses
import pickle

import pytest

from reportgen.results import Confusion, CurveData, Notice, Optimum, Reason


def _generated(value: object) -> object:
    """``value`` as a plain frozen dataclass of the same name and fields (its methods generated)."""
    names = [f.name for f in dataclasses.fields(value)]  # type: ignore[arg-type]
    plain = dataclasses.make_dataclass(type(value).__name__, names, frozen=True)
    plain.__qualname__ = type(value).__qualname__
    return plain(*(getattr(value, n) for n in names))


CASES = [
    Confusion(3.0, 1.0, 2.0, 4.0),
    Optimum("youden", None, 0.25, 1.0, 2.0, 3.0, 4.0, description="Youden's J"),
    Reason("no_predicted_positives"),
    Notice("small_class", {"model": "a", "count": 3}),
]


@pytest.mark.parametrize("value", CASES, ids=lambda v: type(v).__name__)
def test_repr_and_hash_are_the_generated_ones(value: object) -> None:
    plain = _generated(value)
    assert repr(value) == repr(plain)
    try:
        expected = hash(plain)
    except TypeError:  # a field holds a mapping (a code's facts): unhashable, as generated
        with pytest.raises(TypeError):
            hash(value)
    else:
        assert hash(value) == expected


def test_equal_when_one_type_with_equal_fields() -> None:
    a, b = Confusion(3.0, 1.0, 2.0, 4.0), Confusion(3.0, 1.0, 2.0, 4.0)
    assert a == b and hash(a) == hash(b) and len({a, b}) == 1
    assert a != dataclasses.replace(a, tn=5.0)
    assert a != (3.0, 1.0, 2.0, 4.0) and a != _generated(a)  # another type is never equal
    assert pickle.loads(pickle.dumps(a)) == a


def test_array_fields_compare_as_generated() -> None:
    """Two curves with arrays: ``==`` raises numpy's ambiguity error, as a generated ``__eq__`` does."""
    import numpy as np

    def curve() -> CurveData:
        return CurveData(x=np.array([0.0, 1.0]), y=np.array([0.0, 1.0]), thresholds=np.array([1.0, 0.0]))

    c = curve()
    assert c == c  # the same arrays: the tuple comparison's identity shortcut, as generated
    with pytest.raises(ValueError, match="ambiguous"):
        _ = c == curve()
