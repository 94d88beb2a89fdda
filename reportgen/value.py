"""The ``repr``, ``==`` and ``hash`` of reportgen's frozen dataclasses, written once.

On Python 3.11 :func:`dataclasses.dataclass` compiles each method it generates with its own
``exec`` when the class is created: a frozen type's ``__repr__``, ``__eq__`` and ``__hash__``
are three of them, paid at import by every command, ``--help`` and a small run alike (issue 46:
some 190 dataclasses on a JSON-only run). A type that derives from :class:`Value` and is
declared ``repr=False, eq=False`` gets the same three methods, compiled once, here; one that
derives from :class:`Shown` and is declared ``repr=False`` gets the ``repr``. A leaf: every
layer may use it.
"""

from __future__ import annotations

import dataclasses
from typing import Any


class Shown:
    """Base of a dataclass declared ``repr=False``: the ``repr`` :func:`dataclasses.dataclass`
    would generate (``Type(field=value, ...)``). For the engine's and the runners' internal types
    (tables, evidence, draws, accumulators), which compare by identity (``eq=False``: their
    fields hold arrays, which ``==`` cannot reduce to one truth value)."""

    __slots__ = ()

    def __repr__(self) -> str:
        fields = dataclasses.fields(self)  # type: ignore[arg-type]  # a mixin: every subclass is a dataclass
        shown = ", ".join(f"{f.name}={getattr(self, f.name)!r}" for f in fields if f.repr)
        return f"{type(self).__qualname__}({shown})"


class Value(Shown):
    """Base of a frozen dataclass declared ``repr=False, eq=False``: the ``repr``, ``==`` and
    ``hash`` :func:`dataclasses.dataclass` would generate (``Type(field=value, ...)``; equal when
    of one type with equal fields; the hash of the field values)."""

    __slots__ = ()

    def __eq__(self, other: object) -> bool:
        if other.__class__ is not self.__class__:
            return NotImplemented
        return field_values(self) == field_values(other)

    def __hash__(self) -> int:
        return hash(field_values(self))


def field_values(value: Any) -> tuple[Any, ...]:
    """A dataclass's field values, in declaration order (what its ``==`` and ``hash`` compare)."""
    return tuple(getattr(value, f.name) for f in dataclasses.fields(value))


__all__ = ["Shown", "Value", "field_values"]
