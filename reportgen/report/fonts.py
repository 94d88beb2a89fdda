"""Which characters of a PDF no installed font can draw, so a report says so instead of printing
empty boxes in silence.

WeasyPrint draws a PDF's text (its tables and the labels of its SVG figures) with the fonts
Fontconfig knows; a character that none of them has becomes an empty box. Model names, class
labels and grades are the user's data, often in the script of the lecture notes this tool
follows (Chinese, Russian): on a server with only Latin and Cyrillic fonts, Chinese names print
as boxes. The HTML is not affected (the reader's browser draws it with its own fonts).

:func:`undrawable` asks Fontconfig itself, through its C library, whether any installed font
has each character (``FcFontList`` with a one-character charset: the fonts Pango would fall
back on), once per character and process. Where the library cannot be asked (another platform,
no Fontconfig), nothing is reported: the check only ever adds a warning.
"""

from __future__ import annotations

import ctypes
import ctypes.util
import functools
import threading
import unicodedata
from collections.abc import Callable, Iterable

#: Characters listed in a warning; the rest are counted.
SHOWN = 10

#: Unicode categories that are never drawn as a glyph of their own (controls, format marks such
#: as the bidi isolates the report wraps names in, separators, surrogates, unassigned).
_INVISIBLE = frozenset({"Cc", "Cf", "Cs", "Cn", "Zs", "Zl", "Zp"})

_LOCK = threading.Lock()


class _FcFontSet(ctypes.Structure):
    _fields_ = [("nfont", ctypes.c_int), ("sfont", ctypes.c_int), ("fonts", ctypes.c_void_p)]


def _drawn_without_font(ch: str) -> bool:
    """Characters that need no font of their own: invisible ones and variation selectors."""
    cp = ord(ch)
    return (unicodedata.category(ch) in _INVISIBLE or 0xFE00 <= cp <= 0xFE0F or 0xE0100 <= cp <= 0xE01EF)


@functools.cache
def _fontconfig() -> Callable[[str], bool] | None:
    """``has_font(ch)`` backed by Fontconfig, or None when its library cannot be used."""
    name = "libfontconfig.so.1"
    try:
        lib = ctypes.CDLL(name)
    except OSError:
        found = ctypes.util.find_library("fontconfig")
        if found is None:
            return None
        try:
            lib = ctypes.CDLL(found)
        except OSError:
            return None
    try:
        p = ctypes.c_void_p
        for fn, res, args in (
            ("FcInit", ctypes.c_int, []),
            ("FcCharSetCreate", p, []), ("FcCharSetAddChar", ctypes.c_int, [p, ctypes.c_uint32]),
            ("FcCharSetDestroy", None, [p]),
            ("FcPatternCreate", p, []), ("FcPatternAddCharSet", ctypes.c_int, [p, ctypes.c_char_p, p]),
            ("FcPatternDestroy", None, [p]),
            ("FcObjectSetCreate", p, []), ("FcObjectSetAdd", ctypes.c_int, [p, ctypes.c_char_p]),
            ("FcObjectSetDestroy", None, [p]),
            ("FcFontList", ctypes.POINTER(_FcFontSet), [p, p, p]), ("FcFontSetDestroy", None, [p]),
        ):
            f = getattr(lib, fn)
            f.restype, f.argtypes = res, args
        if not lib.FcInit():
            return None
    except AttributeError:
        return None

    def has_font(ch: str) -> bool:
        cs, pat, objs, fonts = lib.FcCharSetCreate(), lib.FcPatternCreate(), lib.FcObjectSetCreate(), None
        try:
            if not (cs and pat and objs) or not lib.FcCharSetAddChar(cs, ord(ch)):
                return True  # cannot tell: say nothing
            lib.FcPatternAddCharSet(pat, b"charset", cs)
            lib.FcObjectSetAdd(objs, b"family")
            fonts = lib.FcFontList(None, pat, objs)
            return not fonts or fonts.contents.nfont > 0
        finally:
            if fonts:
                lib.FcFontSetDestroy(ctypes.cast(fonts, p))
            for obj, free in ((objs, lib.FcObjectSetDestroy), (pat, lib.FcPatternDestroy), (cs, lib.FcCharSetDestroy)):
                if obj:
                    free(obj)

    if not has_font("A"):  # no font at all, or a Fontconfig that answers otherwise: not trusted
        return None
    return has_font


@functools.cache
def _has_font(ch: str) -> bool:
    query = _fontconfig()
    return True if query is None else query(ch)


def undrawable(texts: Iterable[str]) -> list[str]:
    """The distinct characters of ``texts``, in order of first appearance, that no installed
    font can draw (empty when every one can, or when Fontconfig cannot be asked). Printable
    ASCII is taken as drawable (a PDF without it would not be readable at all)."""
    out: list[str] = []
    seen: set[str] = set()
    with _LOCK:  # one Fontconfig query at a time (its cache is shared by the process)
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
    return (f"PDF: no installed font has the characters {shown}{more}; the PDF prints them as empty boxes "
            f"(the HTML is not affected). Install a font that has them (Debian/Ubuntu: fonts-noto-cjk for "
            f"Chinese, Japanese and Korean, fonts-noto-color-emoji for emoji) and run again")
