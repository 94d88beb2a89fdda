"""What every result type is made of: deep freezing, the frozen base class, and the vocabularies
and values the run's results, the optional sections' and the opted-into analyses' results share.

A leaf below :mod:`reportgen.results` (the run's types, always imported),
:mod:`reportgen.section_results` (the credit-risk, fairness and segment types, imported only where a
section is built, drawn or read) and :mod:`reportgen.option_results` (the types of the analyses a
config opts into, likewise), so that none imports another's types to build its own.
"""

from __future__ import annotations

import dataclasses
from collections.abc import Mapping
from dataclasses import dataclass, field
from typing import Any, Literal, NoReturn

import numpy as np

from reportgen.value import Shown, Value

#: The Holm family an adjusted p belongs to (reportgen.engine.multiplicity): the verdicts on the primary metric
#: against the baseline, DeLong's or McNemar's tests against the baseline, the pairs of challengers, or a
#: challenger over the tested values of a segment column.
HolmFamily = Literal["verdicts", "delong", "mcnemar", "challenger_pairs", "segments"]

#: A traffic light: green (no evidence against the model), amber (watch), red (act).
Light = Literal["green", "amber", "red"]

#: Which decision is the favourable outcome of the four-fifths rule (``fairness.favourable``).
Favourable = Literal["flagged", "not_flagged"]


def doc(text: str) -> dict[str, str]:
    """A field's metadata: its description in the JSON Schema (:func:`reportgen.results.json_schema`)."""
    return {"description": text}


class FrozenDict(dict[Any, Any]):
    """A dict that refuses every in-place change (``d[k] = v``, ``del``, ``update``, ``pop``, …).

    A dict subclass rather than :class:`types.MappingProxyType` so that frozen results still
    compare equal to dicts, pass ``isinstance(x, dict)`` checks, serialise with :mod:`json`
    and pickle (for process pools); ``copy()`` returns an ordinary, mutable dict.
    """

    __slots__ = ()

    def _refuse(self, *args: Any, **kwargs: Any) -> NoReturn:
        raise TypeError("a result's mappings are read-only; build a new result (dataclasses.replace) instead")

    __setitem__ = __delitem__ = __ior__ = _refuse
    clear = pop = popitem = setdefault = update = _refuse

    def __reduce__(self) -> tuple[Any, ...]:
        return (FrozenDict, (dict(self),))

    def __repr__(self) -> str:
        return f"FrozenDict({dict.__repr__(self)})"


def lengths_differ(**arrays: np.ndarray | None) -> str | None:
    """A message when the given arrays (None: absent) do not all have one length."""
    present = {k: len(v) for k, v in arrays.items() if v is not None}
    if len(set(present.values())) > 1:
        return "expected arrays of one length, found " + ", ".join(f"{k}: {n}" for k, n in present.items())
    return None


def freeze(value: Any) -> Any:
    """A deeply immutable copy of ``value``: dicts → :class:`FrozenDict`, lists and tuples →
    tuples, numpy arrays → read-only copies (their data no longer shared with the caller);
    everything else (numbers, strings, the frozen result dataclasses) as it is.

    Numbers, strings, None and reportgen's dataclasses are returned before the test against
    :class:`~collections.abc.Mapping`: that ABC remembers each type it is asked about in a weak
    reference in every ABC below it, some 20 a type, 700 long-lived objects for the types of a
    small run's results."""
    if isinstance(value, np.ndarray):
        if value.flags.writeable or value.base is not None:
            value = value.copy()
        value.setflags(write=False)
        return value
    if value is None or isinstance(value, (str, int, float, Shown)):
        return value
    if isinstance(value, (list, tuple)):
        return tuple(freeze(v) for v in value)
    if isinstance(value, FrozenDict):
        return value
    if isinstance(value, Mapping):
        return FrozenDict({k: freeze(v) for k, v in value.items()})
    return value


class Frozen(Value):
    """Base of every result type: freezes each field after construction (see :func:`freeze`);
    its ``repr``, ``==`` and ``hash`` are :class:`~reportgen.value.Value`'s (each type's
    decorator says ``repr=False, eq=False``)."""

    __slots__ = ()

    def problem(self) -> str | None:
        """What is inconsistent between the fields (array lengths, matrix shape), or None.

        Types alone cannot say that a curve's x and y have one length; the loader asks each
        value it builds, so that a broken metrics.json is refused with its JSON path instead of
        failing half-way through drawing a figure.
        """
        return None

    def __post_init__(self) -> None:
        for f in dataclasses.fields(self):  # type: ignore[arg-type]  # a mixin: every subclass is a dataclass
            v = getattr(self, f.name)
            fv = freeze(v)
            if fv is not v:
                object.__setattr__(self, f.name, fv)


# The values the run's results share with the sections' or the opted-into analyses'


@dataclass(frozen=True, slots=True, repr=False, eq=False)
class CurveData(Frozen):
    """A drawable curve: x, y and the score threshold of each point (decimated)."""

    x: np.ndarray
    y: np.ndarray
    thresholds: np.ndarray | None = None

    def problem(self) -> str | None:
        return lengths_differ(x=self.x, y=self.y, thresholds=self.thresholds)


@dataclass(frozen=True, slots=True, repr=False, eq=False)
class CalibrationData(Frozen):
    """Reliability diagram: mean predicted probability vs observed positive share per bin."""

    mean_predicted: np.ndarray
    observed: np.ndarray
    counts: np.ndarray

    def problem(self) -> str | None:
        return lengths_differ(mean_predicted=self.mean_predicted, observed=self.observed, counts=self.counts)


@dataclass(frozen=True, slots=True, repr=False, eq=False)
class Optimum(Frozen):
    """The best cut for one criterion.

    ``threshold`` is None when the best decision is to predict no row positive; ``value`` (and
    ``threshold``) are None when no cut has a defined value (the report says "undefined on these
    data"). ``description`` is the criterion's label (a constraint rule's own words).
    """

    criterion: str
    threshold: float | None
    value: float | None
    tp: float
    fp: float
    fn: float
    tn: float
    description: str = ""
    next_score: float | None = field(
        default=None,
        metadata={
            "description": (
                "The nearest distinct score the rule at 'threshold' does not flag (null when it flags every "
                "score, or flags none): any threshold from 'threshold' up to but excluding this score gives "
                "the same counts, so the report prints the shortest such decimal."
            )
        },
    )
