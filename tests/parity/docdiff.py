"""Where two JSON documents differ: every differing path, in document order.

The parity suite compares whole ``metrics.json`` documents produced by different engines. An
``assert a == b`` on two documents of a few hundred kilobytes says nothing useful; these
helpers walk both documents together and name each path that differs
(``$.models.champion.ci.f1[0]: 0.41 != 0.43``), so an xfail reason and a failure both point
at the number that broke.

Exact by default. A float may differ by a relative ``rel`` (plus ``abs_tol``) only at paths that
match one of the ``close`` glob patterns (``fnmatch``; write ``*``, never ``[``, which starts a
character class) — the places where summation order legitimately differs between engines —
so tolerance is never granted to the whole document by accident.
"""

from __future__ import annotations

import math
from collections.abc import Iterator
from dataclasses import dataclass
from fnmatch import fnmatchcase
from typing import Any


@dataclass(frozen=True)
class Difference:
    """One differing place: its JSON path (``$.a.b[2]``) and what differs there."""

    path: str
    what: str

    def __str__(self) -> str:
        return f"{self.path}: {self.what}"


def matches(path: str, patterns: tuple[str, ...]) -> bool:
    """Whether ``path`` matches one of the glob ``patterns``."""
    return any(fnmatchcase(path, p) for p in patterns)


def differences(
    a: Any, b: Any, close: tuple[str, ...] = (), rel: float = 1e-12, abs_tol: float = 1e-15, path: str = "$"
) -> Iterator[Difference]:
    """Every differing path of ``a`` and ``b``, in the left document's order.

    A key on one side only is one difference (keys of the right side alone come after the
    left's); lists are compared element by element, and a length mismatch is one difference at
    the list. ``True`` never equals ``1`` here (it does in Python, not in a report). Floats at
    paths matching a ``close`` pattern may differ by ``rel``/``abs_tol``; elsewhere exact.
    """
    if isinstance(a, dict) and isinstance(b, dict):
        for k in [*a, *(k for k in b if k not in a)]:
            p = f"{path}.{k}"
            if k not in a:
                yield Difference(p, f"missing on the left (right: {_short(b[k])})")
            elif k not in b:
                yield Difference(p, f"missing on the right (left: {_short(a[k])})")
            else:
                yield from differences(a[k], b[k], close, rel, abs_tol, p)
        return
    if isinstance(a, list) and isinstance(b, list):
        if len(a) != len(b):
            yield Difference(path, f"{len(a)} items != {len(b)} items (left: {_short(a)}, right: {_short(b)})")
            return
        for i, (x, y) in enumerate(zip(a, b)):
            yield from differences(x, y, close, rel, abs_tol, f"{path}[{i}]")
        return
    numbers = all(isinstance(v, (int, float)) and type(v) is not bool for v in (a, b))
    if not numbers:
        if type(a) is not type(b) or a != b:
            yield Difference(path, f"{_short(a)} != {_short(b)}")
        return
    if a == b:
        return
    if (
        isinstance(a, float)
        and isinstance(b, float)
        and matches(path, close)
        and math.isclose(a, b, rel_tol=rel, abs_tol=abs_tol)
    ):
        return
    yield Difference(path, f"{a!r} != {b!r}")


def first_difference(
    a: Any, b: Any, close: tuple[str, ...] = (), rel: float = 1e-12, abs_tol: float = 1e-15
) -> Difference | None:
    """The first differing path of ``a`` and ``b`` (``None`` when they agree); see :func:`differences`."""
    return next(differences(a, b, close, rel, abs_tol), None)


def _short(x: Any, limit: int = 100) -> str:
    text = repr(x)
    return text if len(text) <= limit else text[: limit - 1] + "…"
