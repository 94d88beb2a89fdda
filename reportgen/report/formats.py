"""The one home of the report's number formats: its tables, sentences, figures and the Jinja
filters (:data:`FILTERS`) all format here (a leaf: catalog only); and the isolation of
right-to-left names among them.

Two rules the report keeps everywhere (issue 17, item 9):

* **never round to a bound**: a metric whose range is closed (AUC in [0, 1], Gini in [−1, 1])
  and whose value is not the bound is never printed as the bound — 0.99965 is "0.9997" (more
  digits, up to :data:`MAX_DIGITS`), and only beyond that "> 0.999999"; 1.0 itself stays "1.000";
* **thresholds print exactly**: the shortest decimal that reads back as the same float
  (``repr``; Steele & White / Gay's shortest round trip), so "positive when score ≥ t" applied
  to the data reproduces the reported counts, and one threshold always prints one way.
"""

from __future__ import annotations

import math
import re
import unicodedata
from collections.abc import Callable, Sequence
from decimal import ROUND_CEILING, ROUND_FLOOR, Decimal
from typing import TYPE_CHECKING, Any

import reportgen.catalog as catalog

if TYPE_CHECKING:
    from markupsafe import Markup

#: The most decimals a bounded metric is given to keep it off its bound.
MAX_DIGITS = 6


def bounds_of(key: str | None) -> tuple[float, float] | None:
    """The finite ends of a metric's range (None for an unknown or open-ended metric)."""
    if key is None:
        return None
    try:
        m = catalog.metric(key)
    except KeyError:
        return None
    lo = m.lo if math.isfinite(m.lo) else None
    hi = m.hi if math.isfinite(m.hi) else None
    return (
        None if lo is None and hi is None else (lo if lo is not None else -math.inf, hi if hi is not None else math.inf)
    )


def fmt_bounded(v: float, digits: int = 3, lo: float = -math.inf, hi: float = math.inf) -> str:
    """``v`` with ``digits`` decimals, more when that would print a bound ``v`` does not equal.

    0.99965 in [0, 1] → "0.9997"; 0.9999999 → "> 0.999999"; 1.0 → "1.000"; 0.0003 → "0.0003".
    """
    for d in range(digits, MAX_DIGITS + 1):
        text = f"{v:.{d}f}"
        r = float(text)
        if not ((r == hi and v != hi) or (r == lo and v != lo)):
            return text
    if v > lo and float(f"{v:.{MAX_DIGITS}f}") == hi:
        return f"> {hi - 10.0**-MAX_DIGITS:.{MAX_DIGITS}f}"
    return f"< {lo + 10.0**-MAX_DIGITS:.{MAX_DIGITS}f}"


def fmt_metric(v: float | None, key: str | None = None, digits: int = 3) -> str:
    """A metric's value for a table or legend: 'n/a' when undefined, never rounded to its bound;
    a negative value with the minus sign (U+2212) of the tables' differences."""
    if v is None or not math.isfinite(v):
        return "n/a"
    b = bounds_of(key)
    return minus(fmt_bounded(v, digits, *b) if b else f"{v:.{digits}f}")


#: Significant digits of a printed threshold (a score), more only where the next distinct score
#: is nearer than that precision can tell apart (:func:`fmt_threshold`).
THRESHOLD_DIGITS = 4


def fmt_threshold(t: float | None, toward: float | None = None, digits: int = THRESHOLD_DIGITS) -> str:
    """A threshold (a score of the data) that applied as printed reproduces the reported counts.

    ``toward`` is the nearest distinct score on the other side of the rule (the engine's
    ``next_score``; ±inf when there is none): every decimal from ``t`` (inclusive) up to
    ``toward`` (exclusive) cuts the data the same way. The printed value is ``t`` rounded
    toward ``toward`` to ``digits`` significant digits (never fewer than the integer part),
    with more digits only when the gap is narrower than that: for "score ≥ t", 0.217799 next
    to 0.2171 prints "0.2177" (every score from 0.2171 exclusive to 0.217799 is flagged alike),
    and 0.1582994156 next to 0.158299415 prints "0.1582994156"; for "score ≤ t" the rounding
    is upward (555.2 next to 556 prints "555.2", 555.21 next to 557 "555.3"). Without ``toward`` the exact value
    (the shortest decimal that reads back as the same float, Steele & White / Gay). Always
    positional, never an exponent (1.58e-05 is "0.0000158"); integral scores without a decimal
    point (560); 'none positive' for None.
    """
    if t is None:
        return "none positive"
    t = float(t) + 0.0  # -0.0 → 0.0
    if not math.isfinite(t):
        return repr(t)
    exact = Decimal(repr(t))
    text = exact
    if toward is not None and toward != t:
        rounding = ROUND_FLOOR if toward < t else ROUND_CEILING
        top = exact.adjusted()  # the exponent of the leading digit
        for sig in range(digits, 18):
            cand = exact.quantize(Decimal(1).scaleb(min(top - sig + 1, 0)), rounding=rounding)
            f = float(cand)
            if (toward < f <= t) if toward < t else (t <= f < toward):
                text = cand
                break
    return _positional(text)


def fmt_threshold_ci(ci: Sequence[float] | None, digits: int = THRESHOLD_DIGITS) -> str:
    """A threshold's interval, each end to ``digits`` significant digits (never fewer than the
    integer part), positional: [543.8000000000001, 574] → "[543.8, 574]"; "" without one."""
    if not ci:
        return ""
    ends = []
    for v in ci:
        d = Decimal(repr(float(v) + 0.0))
        ends.append(_positional(d.quantize(Decimal(1).scaleb(min(d.adjusted() - digits + 1, 0)))))
    return f"[{ends[0]}, {ends[1]}]"


def _positional(d: Decimal) -> str:
    """A decimal without an exponent or trailing zeros, with the report's minus sign."""
    out = format(d.normalize(), "f")
    return minus("0" if out in ("-0", "0") else out)


def fmt_int(v: float) -> str:
    """A count with a thin space between thousands (6 000, 12 345), as every table of the report
    prints counts: a sentence and a table never show one count two ways (6,000 against 6 000)."""
    return f"{int(round(v)):,}".replace(",", "\u2009")


def minus(text: str) -> str:
    """A formatted number with the minus sign (U+2212) the report's tables use, not a hyphen:
    "-0.294" → "−0.294", so a column or sentence never mixes "−0.028" and "-3.5 %"."""
    return text.replace("-", "\u2212")


def fmt_num(v: float | None, digits: int = 3) -> str:
    """A number with ``digits`` decimals; integers of counts without decimals; None → 'n/a'."""
    if v is None or (isinstance(v, float) and not math.isfinite(v)):
        return "n/a"
    if isinstance(v, (int,)) or (float(v).is_integer() and abs(v) >= 1000):
        return minus(fmt_int(v))
    # the minus sign of the tables' differences (−0.028), never a hyphen (z = −8.14, S = −0.096)
    return minus(f"{v:.{digits}f}")


def fmt_count(v: float | None) -> str:
    """Counts: thin-space thousands; weighted counts keep one decimal."""
    if v is None:
        return "n/a"
    if float(v).is_integer():
        return f"{int(v):,}".replace(",", "\u2009")
    return f"{v:,.1f}".replace(",", "\u2009")


def fmt_pct(v: float | None, digits: int = 1, signed: bool = False) -> str:
    """A fraction in per cent with ``digits`` decimals; zero is "0.0 %", never "−0.0 %", and a
    non-zero value is never printed as zero: more decimals (up to :data:`MAX_DIGITS` in per cent),
    beyond them "< 0.000001 %" with its sign (−0.0004 → "−0.04 %")."""
    if v is None or not math.isfinite(v):
        return "n/a"
    sign = "+" if signed and v > 0 else ""
    if v == 0:
        return f"{0:.{digits}f} %"
    for d in range(digits, MAX_DIGITS + 1):
        if float(f"{abs(v) * 100:.{d}f}") != 0:
            return minus(f"{sign}{v * 100:.{d}f} %")
    return minus(f"{sign if v > 0 else '-'}< {10.0**-MAX_DIGITS:.{MAX_DIGITS}f} %")


def fmt_share(v: float | None, digits: int = 0) -> str:
    """A share in per cent (``digits`` decimals) never rounded to a bound it does not equal: 12 of
    2 975 rows is "< 1 %", not "0 %" (which reads as none), and 2 970 of 2 975 is "> 99 %"; with
    one decimal, 1 row flagged of 6 000 is "< 0.1 %" and the 5 999 approved "> 99.9 %". Also a
    probability near its bounds, as a test's power: 0.99996 is "> 99.9 %", not "100.0 %", which
    reads as a certainty the test does not have."""
    if v is None or not math.isfinite(v):
        return "n/a"
    step = 10.0**-digits  # the smallest share shown, in per cent
    if 0 < v * 100 < step / 2:
        return f"< {step:.{digits}f} %"
    if 100 - step / 2 <= v * 100 < 100:
        return f"> {100 - step:.{digits}f} %"
    return fmt_pct(v, digits)


def fmt_share_of_sum(v: float | None, digits: int = 4) -> str:
    """A non-negative term of a sum (a bin's PSI contribution) with ``digits`` decimals; a positive
    term too small to show is "< 0.0001", never "0.0000", which reads as none at all."""
    if v is None or not math.isfinite(v):
        return "n/a"
    if 0 < v < 0.5 * 10.0**-digits:
        return f"< {10.0**-digits:.{digits}f}"
    return fmt_num(v, digits)


def fmt_points(v: float | None, digits: int = 2) -> str:
    """A difference of two rates in percentage points, signed: 0.0025 → "+0.25 percentage points"
    (a difference of percentages printed as "0.25 %" reads as a relative change)."""
    if v is None or not math.isfinite(v):
        return "n/a"
    return minus(f"{v * 100:+.{digits}f}") + " percentage points"


def fmt_ci_pct(ci: Sequence[float] | None, digits: int = 2) -> str:
    """An interval of a rate in percent, as the rate beside it is printed: [0.0091, 0.0331] →
    "[0.91 %, 3.31 %]" (a default rate of 1.83 % with its interval as fractions mixes units)."""
    if not ci or ci[0] is None or ci[1] is None:
        return ""
    return "[" + ", ".join(fmt_pct(float(v), digits) for v in ci) + "]"


def fmt_signed(v: float | None, digits: int = 3) -> str:
    """A difference with its sign; a non-zero one never prints as zero (0.0003 → "+0.0003",
    beyond :data:`MAX_DIGITS` decimals "+< 0.000001"); zero is "0.000"."""
    if v is None or not math.isfinite(v):
        return "n/a"
    if v == 0:
        return f"{0:.{digits}f}"
    for d in range(digits, MAX_DIGITS + 1):
        if float(f"{abs(v):.{d}f}") != 0:
            return f"{v:+.{d}f}".replace("-", "−")
    return ("+" if v > 0 else "−") + f"< {10.0**-MAX_DIGITS:.{MAX_DIGITS}f}"


def fmt_pvalue(p: float | None) -> str:
    if p is None or not math.isfinite(p):
        return "n/a"
    if p < 0.0001:
        return "< 0.0001"
    if p < 0.01:
        return f"{p:.4f}"
    return f"{p:.3f}"


def fmt_p(p: float | None, bound: bool = False) -> str:
    """'p = 0.027' or 'p < 0.0001' (the phrase, for running text); 'p n/a' when undefined; a p
    that is only an upper bound (a bootstrap floor, or Holm of one) as 'p ≤ 0.0033'."""
    if p is None or not math.isfinite(p):
        return "p n/a"
    if bound:
        return f"p ≤ {p:.2g}"
    text = fmt_pvalue(p)
    return f"p {text}" if text.startswith("<") else f"p = {text}"


def fmt_ci(ci: Sequence[float] | None, digits: int = 3, key: str | None = None) -> str:
    """An interval as "[lo, hi]" with ``digits`` decimals, an end near 0 with as many more as show
    its side of 0 (:func:`_off_zero`). With the metric's ``key``, an end is never
    rounded to a bound of the metric's range it does not equal (:func:`fmt_bounded`):
    the logit-scale DeLong interval of AUC 0.9991 is [0.996, 0.9998], not [0.996, 1.000], which
    would read as the certainty the transform exists to avoid."""
    if not ci or ci[0] is None or ci[1] is None:
        return ""
    b = bounds_of(key)
    if b is not None:
        ends = [fmt_bounded(float(v) + 0.0, digits, *b) for v in ci]
        ends = [_off_zero(float(v), digits) if float(e) == 0.0 else e for v, e in zip(ci, ends)]
        return ("[" + ", ".join(ends) + "]").replace("-", "−")
    return "[" + ", ".join(_off_zero(float(v), digits) for v in ci) + "]"


def _off_zero(v: float, digits: int) -> str:
    """An interval's end with ``digits`` decimals, more (up to :data:`MAX_DIGITS`) when it would
    round to 0 without being 0, so the side of zero it lies on shows: −0.0002 is "−0.0002", not
    "0.000" (an interval [−0.015, −0.0002] read [−0.015, 0.000] beside a "worse" verdict); 0 is
    "0.000", never "−0.000"; beyond MAX_DIGITS, "−< 0.000001"."""
    if v == 0:
        return f"{0:.{digits}f}"
    for d in range(digits, MAX_DIGITS + 1):
        if float(f"{abs(v):.{d}f}") != 0:
            return f"{v:.{d}f}".replace("-", "−")
    return ("" if v > 0 else "−") + f"< {10.0**-MAX_DIGITS:.{MAX_DIGITS}f}"


def fmt_level(level: float) -> str:
    """A confidence level as the report names it: 0.95 → "95 %"."""
    return f"{level * 100:g} %"


def fmt_cell(v: object) -> str:
    """A cell of a plain-text table (``reportgen history --format text``): 'n/a' for None, a
    float with four decimals, anything else as its text."""
    if v is None:
        return "n/a"
    if isinstance(v, float):
        return f"{v:.4f}"
    return str(v)


#: Bidirectional classes that can reorder what stands beside a text in a left-to-right sentence:
#: right-to-left letters, Arabic digits, and the explicit embeddings, overrides and isolates.
_BIDI_ACTIVE = frozenset({"R", "AL", "AN", "RLE", "RLO", "LRE", "LRO", "PDF", "RLI", "LRI", "FSI", "PDI"})
#: FIRST STRONG ISOLATE … POP DIRECTIONAL ISOLATE: the plain-text form of ``<bdi>``.
FSI, PDI = "\u2068", "\u2069"


def needs_isolation(text: str) -> bool:
    """Whether ``text`` (a model or class name) can reorder its neighbours: it holds a
    right-to-left letter or a directional control. Names in Latin, CJK, … cannot, and print as
    they are."""
    return any(unicodedata.bidirectional(ch) in _BIDI_ACTIVE for ch in text)


def text_direction(text: str) -> str:
    """ "rtl" or "ltr" by the first strong letter (the Unicode bidi algorithm's rules P2–P3, as
    ``dir="auto"``, which WeasyPrint does not implement): "ltr" when there is none."""
    for ch in text:
        kind = unicodedata.bidirectional(ch)
        if kind in ("R", "AL"):
            return "rtl"
        if kind == "L":
            return "ltr"
    return "ltr"


def isolate(text: str) -> str:
    """``text`` between FSI and PDI when it :func:`needs_isolation`: in a sentence, a Hebrew or
    Arabic name then keeps its own order and leaves the numbers and punctuation after it in
    theirs ("מודל 2: 0.5" printed "0.5 :2 מודל" in the browser and in the PDF)."""
    return f"{FSI}{text}{PDI}" if needs_isolation(text) else text


#: Names up to this long get no extra break opportunities (:func:`wbr`).
WBR_AFTER = 20
#: Where :func:`wbr` puts its break opportunities: after these separators.
BREAK_AFTER = re.compile(r"([_./:\\-]+)")


def wbr(text: Any, after: int = WBR_AFTER) -> Markup:
    """Text escaped, with a line-break opportunity (``<wbr>``) after each ``_ . / : - \\``.

    Model, class and file names (``PD_retail_gbm_challenger_v1.0_monotone_2024Q3``) have no
    spaces; without these a table column or heading cannot be narrower than the whole name, and
    the PDF loses columns past the right margin. The text itself is unchanged (copying it out of
    the page gives the name), and CSS ``overflow-wrap: anywhere`` breaks a name that has none.
    Text of at most ``after`` characters (:data:`WBR_AFTER`) fits any column and is left as it
    is; file names, in a narrow column, get them from any length (``wbr(0)``), so
    ``challenger.parquet`` breaks after its dot, not inside a word.
    """
    from markupsafe import Markup, escape  # noqa: PLC0415  (only pages use it: a JSON-only run never does)

    if needs_isolation(str(text)):
        # a right-to-left name is isolated (<bdi>) with its direction stated: WeasyPrint isolates
        # a <bdi> but reads it left to right unless told ("نموذج 2 (v3.1)" came out in the wrong
        # order); and without <wbr>, which WeasyPrint reorders as separate boxes ("(v3.<wbr>1)"
        # printed "(1.v3)"): a long one breaks where it must (overflow-wrap: anywhere)
        return Markup('<bdi dir="{}">{}</bdi>').format(text_direction(str(text)), text)
    if len(str(text)) <= after:
        return Markup(escape(text))
    parts = BREAK_AFTER.split(str(text))
    return Markup("").join(Markup(escape(p)) + (Markup("<wbr>") if i % 2 else Markup("")) for i, p in enumerate(parts))


#: The filters every template may use (:func:`reportgen.report.render.make_environment`
#: registers them by these names).
FILTERS: dict[str, Callable[..., str]] = {
    "fmt_num": fmt_num,
    "fmt_pct": fmt_pct,
    "fmt_pvalue": fmt_pvalue,
    "fmt_p": fmt_p,
    "fmt_ci": fmt_ci,
    "fmt_count": fmt_count,
    "fmt_points": fmt_points,
    "fmt_ci_pct": fmt_ci_pct,
    "fmt_share_of_sum": fmt_share_of_sum,
    "wbr": wbr,
}

__all__ = [
    "FILTERS",
    "FSI",
    "PDI",
    "isolate",
    "needs_isolation",
    "text_direction",
    "MAX_DIGITS",
    "bounds_of",
    "fmt_bounded",
    "fmt_cell",
    "fmt_ci",
    "fmt_ci_pct",
    "fmt_count",
    "fmt_int",
    "fmt_level",
    "fmt_metric",
    "fmt_num",
    "fmt_p",
    "fmt_pct",
    "fmt_points",
    "fmt_pvalue",
    "fmt_share",
    "fmt_share_of_sum",
    "fmt_signed",
    "fmt_threshold",
    "fmt_threshold_ci",
    "minus",
    "THRESHOLD_DIGITS",
    "wbr",
    "WBR_AFTER",
]
