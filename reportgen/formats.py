"""Number formats shared by the report's tables, sentences and figures (a leaf: catalog only).

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


__all__ = ["MAX_DIGITS", "bounds_of", "fmt_bounded", "fmt_int", "fmt_metric", "fmt_threshold", "minus"]
