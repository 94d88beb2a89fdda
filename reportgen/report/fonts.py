"""Which characters of a PDF no installed font can draw, so a report says so instead of printing
empty boxes in silence.

WeasyPrint draws a PDF's text (its tables and the labels of its SVG figures) with the fonts
Fontconfig knows; a character that none of them has becomes an empty box. Model names, class
labels and grades are the user's data, often in the script of the lecture notes this tool
follows (Chinese, Russian): on a server with only Latin and Cyrillic fonts, Chinese names print
as boxes. The HTML is not affected (the reader's browser draws it with its own fonts).

:func:`undrawable` asks Fontconfig which characters its fonts have: one ``fc-list`` listing of
every installed font's character set (the fonts Pango falls back on), read once per process,
then a lookup per character. Where it cannot be asked (no ``fc-list``, another platform, no
font at all), nothing is reported: the check only ever adds a warning.
"""

from __future__ import annotations

import bisect
import functools
import shutil
import subprocess
import threading
import unicodedata
from collections.abc import Iterable

#: Characters listed in a warning; the rest are counted.
SHOWN = 10

#: Unicode categories that are never drawn as a glyph of their own (controls, format marks such
#: as the bidi isolates the report wraps names in, separators, surrogates, unassigned).
_INVISIBLE = frozenset({"Cc", "Cf", "Cs", "Cn", "Zs", "Zl", "Zp"})

#: How long the one ``fc-list`` call may take before the check gives up (it reads Fontconfig's
#: cache: about 20 ms).
_FC_LIST_TIMEOUT_S = 10

_LOCK = threading.Lock()


def _drawn_without_font(ch: str) -> bool:
    """Characters that need no font of their own: invisible ones and variation selectors."""
    cp = ord(ch)
    return unicodedata.category(ch) in _INVISIBLE or 0xFE00 <= cp <= 0xFE0F or 0xE0100 <= cp <= 0xE01EF


def _ranges(listing: str) -> list[tuple[int, int]]:
    """The code-point ranges ``(first, last)`` of ``fc-list --format '%{charset}\\n'``'s output
    (one line per font, each a space-separated list of hex ``a`` or ``a-b``), merged and sorted."""
    spans: list[tuple[int, int]] = []
    for item in listing.split():
        low, _, high = item.partition("-")
        spans.append((int(low, 16), int(high or low, 16)))
    spans.sort()
    merged: list[tuple[int, int]] = []
    for first, last in spans:
        if merged and first <= merged[-1][1] + 1:
            merged[-1] = (merged[-1][0], max(merged[-1][1], last))
        else:
            merged.append((first, last))
    return merged


@functools.cache
def _fontconfig() -> list[tuple[int, int]] | None:
    """The code points some installed font has, as sorted ranges (:func:`_ranges`), or None when
    Fontconfig cannot be asked or answers that no font has even "A"."""
    exe = shutil.which("fc-list")
    if exe is None:
        return None
    try:
        done = subprocess.run(
            [exe, "--format", "%{charset}\\n"],
            stdin=subprocess.DEVNULL,
            stdout=subprocess.PIPE,
            stderr=subprocess.DEVNULL,
            timeout=_FC_LIST_TIMEOUT_S,
            check=False,
        )
        ranges = _ranges(done.stdout.decode("ascii")) if done.returncode == 0 else []
    except (OSError, subprocess.SubprocessError, ValueError):
        return None
    return ranges if _covered(ranges, ord("A")) else None


def _covered(ranges: list[tuple[int, int]], cp: int) -> bool:
    i = bisect.bisect_right(ranges, (cp, 0x10FFFF + 1)) - 1
    return i >= 0 and ranges[i][0] <= cp <= ranges[i][1]


@functools.cache
def _has_font(ch: str) -> bool:
    ranges = _fontconfig()
    return True if ranges is None else _covered(ranges, ord(ch))


def undrawable(texts: Iterable[str]) -> list[str]:
    """The distinct characters of ``texts``, in order of first appearance, that no installed
    font can draw (empty when every one can, or when Fontconfig cannot be asked). Printable
    ASCII is taken as drawable (a PDF without it would not be readable at all)."""
    out: list[str] = []
    seen: set[str] = set()
    with _LOCK:  # one fc-list call, whoever asks first
        for text in texts:
            for ch in dict.fromkeys(text):
                if ch in seen or " " <= ch <= "~" or _drawn_without_font(ch):
                    continue
                seen.add(ch)
                if not _has_font(ch):
                    out.append(ch)
    return out


def undrawable_warning(chars: list[str]) -> str | None:
    """The one-line warning for :func:`undrawable`'s characters, or None when there are none."""
    if not chars:
        return None
    shown = ", ".join(f"{c} (U+{ord(c):04X})" for c in chars[:SHOWN])
    more = f" and {len(chars) - SHOWN} more" if len(chars) > SHOWN else ""
    return (
        f"PDF: no installed font has the characters {shown}{more}; the PDF prints them as empty boxes "
        f"(the HTML is not affected). Install a font that has them (Debian/Ubuntu: fonts-noto-cjk for "
        f"Chinese, Japanese and Korean, fonts-noto-color-emoji for emoji) and run again"
    )
