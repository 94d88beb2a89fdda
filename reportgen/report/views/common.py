"""What every section's builder shares: the models' names, colours and keys, once per report."""

from __future__ import annotations

import math
from collections.abc import Mapping, Sequence
from dataclasses import dataclass

import reportgen.catalog as catalog
from reportgen.report.formats import fmt_share, fmt_threshold
from reportgen.report.wording import CREDIT_WORDS, Vocabulary, undefined_of, vocabulary
from reportgen.results import ApprovalSide, ComparisonResult, Optimum


@dataclass(frozen=True, slots=True)
class Models:
    """The models of a report as its sections name and colour them.

    ``short``: the name where a column is narrow (table headers), the key (M1, M2, …) when
    names are long (``keyed``); ``why_undefined``: model → metric → why it is n/a."""

    names: tuple[str, ...]
    colours: Mapping[str, str]
    keys: Mapping[str, str]
    keyed: bool
    short: Mapping[str, str]
    binary: bool
    better_of: Mapping[str, str | None]
    why_undefined: Mapping[str, Mapping[str, str]]
    #: the report's words for a binary decision (``report.domain``), chosen once
    words: Vocabulary = CREDIT_WORDS

    @classmethod
    def of(cls, result: ComparisonResult, palette: Sequence[str], domain: str | None = None) -> Models:
        import reportgen.report.figures as figures  # noqa: PLC0415  (figures are only needed to render)

        names = list(result.models)
        keys = figures.model_keys(names)
        keyed = figures.uses_keys(names)
        binary = result.run.task == "binary"
        return cls(
            names=tuple(names),
            colours=figures.colours(names, palette),
            keys=keys,
            keyed=keyed,
            short={n: keys[n] if keyed else n for n in names},
            binary=binary,
            better_of=catalog.better("binary" if binary else "multiclass"),
            why_undefined={n: undefined_of(result.models[n]) for n in names},
            words=vocabulary(domain, result),
        )


def best_index(values: Sequence[float | None], better: str | None) -> set[int]:
    """Positions of the best value of a row (none when all are equal, or fewer than two exist)."""
    vals = [(i, v) for i, v in enumerate(values) if v is not None]
    if not vals or better is None or len(vals) < 2:
        return set()
    target = max(v for _, v in vals) if better == "higher" else min(v for _, v in vals)
    if all(v == target for _, v in vals):
        return set()
    return {i for i, v in vals if v == target}


def better_mark(delta: float | None, better: str | None) -> str:
    """Whether a difference is an improvement, by the metric's better direction
    (:mod:`reportgen.catalog`): "better", "worse", "equal", or "" when neither way is better."""
    if delta is None or not math.isfinite(delta) or better not in ("higher", "lower"):
        return ""
    if delta == 0:
        return "equal"
    return "better" if (delta > 0) == (better == "higher") else "worse"


def excludes_zero(ci: Sequence[float] | None) -> bool | None:
    """Whether an interval of a difference lies clear of 0 (None without an interval)."""
    if not ci or ci[0] is None or ci[1] is None:
        return None
    return ci[0] > 0 or ci[1] < 0


def optimum_threshold(o: Optimum | ApprovalSide) -> str:
    """An optimum's (or an approval cut's) threshold as printed: the shortest decimal of
    :data:`~reportgen.report.formats.THRESHOLD_DIGITS` or more significant digits that lies
    between it and the next distinct score (:func:`~reportgen.report.formats.fmt_threshold`),
    so the stated rule reproduces the counts beside it."""
    return fmt_threshold(o.threshold, o.next_score)


def kept_share(o: Optimum) -> str:
    """The share of rows a cut leaves unflagged (approved, predicted negative), beside every
    recommended threshold: "86.0 %"."""
    total = o.tp + o.fp + o.fn + o.tn
    return fmt_share((o.fn + o.tn) / total if total else None, 1)


def rule_text(direction: str, threshold: float | str) -> str:
    """The decision rule in words: 'positive when score ≥ 0.15'."""
    op = "≥" if direction == "higher" else "≤"
    t = threshold if isinstance(threshold, str) else fmt_threshold(threshold)
    return f"positive when score {op} {t}"
