"""Number formats shared by the report's tables, sentences and figures (a leaf: catalog only),
and the isolation of right-to-left names among them.

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
import unicodedata

import reportgen.catalog as catalog

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
    return None if lo is None and hi is None else (lo if lo is not None else -math.inf, hi if hi is not None else math.inf)


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
        return f"> {hi - 10.0 ** -MAX_DIGITS:.{MAX_DIGITS}f}"
    return f"< {lo + 10.0 ** -MAX_DIGITS:.{MAX_DIGITS}f}"


def fmt_metric(v: float | None, key: str | None = None, digits: int = 3) -> str:
    """A metric's value for a table or legend: 'n/a' when undefined, never rounded to its bound;
    a negative value with the minus sign (U+2212) of the tables' differences."""
    if v is None or not math.isfinite(v):
        return "n/a"
    b = bounds_of(key)
    return minus(fmt_bounded(v, digits, *b) if b else f"{v:.{digits}f}")


def fmt_threshold(t: float | None) -> str:
    """A threshold (a score of the data) as the shortest decimal that reads back as the same float.

    Integral scores print without a decimal point (560, not 560.0); 'none positive' for None.
    """
    if t is None:
        return "none positive"
    t = float(t)
    if t.is_integer() and abs(t) < 1e15:
        return str(int(t))
    return repr(t)


def fmt_int(v: float) -> str:
    """A count with a thin space between thousands (6 000, 12 345), as every table of the report
    prints counts: a sentence and a table never show one count two ways (6,000 against 6 000)."""
    return f"{int(round(v)):,}".replace(",", "\u2009")


def minus(text: str) -> str:
    """A formatted number with the minus sign (U+2212) the report's tables use, not a hyphen:
    "-0.294" → "−0.294", so a column or sentence never mixes "−0.028" and "-3.5 %"."""
    return text.replace("-", "\u2212")


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
    """"rtl" or "ltr" by the first strong letter (the Unicode bidi algorithm's rules P2–P3, as
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


__all__ = ["FSI", "PDI", "isolate", "needs_isolation", "text_direction", "MAX_DIGITS", "bounds_of", "fmt_bounded", "fmt_int", "fmt_metric", "fmt_threshold", "minus"]
