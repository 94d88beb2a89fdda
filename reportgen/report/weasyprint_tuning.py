"""Two adjustments to WeasyPrint, made only while reportgen lays out its own PDF, that cut its
time without changing what a reader sees or can select.

**SVG text as runs** (:func:`svg_text_runs`). WeasyPrint (63–70, ``weasyprint/svg/text.py``)
lays out and draws each *character* of an SVG ``<text>`` on its own: a Pango layout, a text
matrix and a show operator per glyph, so that per-glyph ``x``/``y``/``dx``/``dy``/``rotate``
lists can place each one. Matplotlib's labels have none of those: one ``x`` and one ``y``. Such
a text is laid out here as one run, exactly as WeasyPrint lays out a line of HTML text (one
:func:`~weasyprint.text.line_break.split_first_line`, one
:func:`~weasyprint.draw.text.draw_first_line`), at the same baseline, size, font and colour;
anything else goes to WeasyPrint's own function. The run is shaped as a whole, so the font's
kerning applies between its glyphs (as when matplotlib draws the same label to PNG or PDF) and
the PDF holds one text object per label, which copies as one string; glyphs move by the
kerning only (under a point; a centred title by half its total kerning). A three-model report's
figures hold about 270 labels and 2,500 characters: its PDF takes about 8 % less CPU time
(1.63 → 1.50 s, 5.37 → 5.05 million Python calls).

A run also places its own ``text-anchor`` (middle or end: matplotlib centres tick labels and
right-aligns the y axis's), since it knows its width: WeasyPrint draws an anchored text into a
PDF form XObject of its own and shifts that by the text's width, so each label was a separate,
separately compressed PDF object. Before the text is drawn, ``SVG.draw_node`` moves the anchor
of a text that will be drawn as a run out of WeasyPrint's sight (``reportgen-text-anchor``),
and the run shifts itself by its width, or half of it. The three-model report's PDF shrinks
from 200 to 104 kB (4.88 → 4.79 million calls, about 2 % of the CPU time).

**A user-agent stylesheet without universal pseudo-elements** (:func:`html_class`). WeasyPrint's
``html5_ua.css`` styles ``::marker`` and the GCPM ``::footnote-call``, ``::footnote-marker``,
``::note-call``, ``::note-marker`` and ``::note-callback`` for every element, so the cascade
computes six pseudo-element styles for each of a report's ~1,600 elements (table cells mostly),
uncached. The report has no footnotes or notes (it does not use ``float: footnote``), and only
list items have markers: the same stylesheet with those rules removed and ``::marker``
restricted to ``li`` (the only element the report displays as a list item) styles every
element that is drawn the same way (the demo's pages are pixel-identical); the cascade takes
about half the time (0.12 → 0.07 s), the three-model report's PDF 5 % less CPU time.

**Its libraries found without a compiler** (:func:`import_weasyprint`). WeasyPrint (63–70,
``weasyprint/text/ffi.py``) opens GObject, Pango, HarfBuzz and Fontconfig by trying several
names each through cffi, which asks ``ctypes.util.find_library``; on Linux each name that
``ldconfig``'s cache does not know runs ``gcc`` and ``ld`` to look for it (about 9 ms each),
and the Windows and macOS spellings come first: 18 misses, 0.15 s of a 0.4 s import, serial in
every PDF render. Imported here, those lookups read the linker cache once and look in
``LD_LIBRARY_PATH``; if that finds too little the import is simply made again as WeasyPrint
makes it.

Both check that WeasyPrint still has the shape they rely on and otherwise leave it alone (the
PDF is then only slower). The SVG change is made for the length of the ``with`` block, under a
lock, counted so nested and concurrent renders share one installation, and undone after the
last: outside reportgen's PDF renders, the process draws SVG text as WeasyPrint does (another
thread's WeasyPrint render that overlaps one of reportgen's draws its labels as runs too).
"""

from __future__ import annotations

import os
import sys
import threading
from collections.abc import Iterator
from contextlib import contextmanager
from math import inf
from typing import Any

__all__ = ["html_class", "import_weasyprint", "redraw_svg_images", "svg_text_runs"]

#: Attributes that place or stretch glyphs one by one: a text with any of them (own or
#: inherited) is drawn by WeasyPrint, glyph by glyph.
_PER_GLYPH = frozenset({"dx", "dy", "rotate", "textLength", "lengthAdjust", "letter-spacing"})

_LOCK = threading.Lock()
#: [renders inside svg_text_runs, (WeasyPrint's package, its functions, the replacements) while installed]
_STATE: list[Any] = [0, None]


def _new_lock() -> None:
    """A forked child gets a fresh lock (another thread may have held it at the fork); what the
    parent had installed stays installed in the child, which draws the same with it."""
    global _LOCK
    _LOCK = threading.Lock()


if hasattr(os, "register_at_fork"):
    os.register_at_fork(after_in_child=_new_lock)


def _weasy_svg() -> tuple[Any, Any] | None:
    """WeasyPrint's ``svg`` package and its ``svg.text`` module, if both are as expected."""
    try:
        import weasyprint.svg as svg_pkg  # noqa: PLC0415
        import weasyprint.svg.text  # noqa: F401, PLC0415  (the module; the package rebinds ``text``)
    except ImportError:
        return None
    text_mod = sys.modules.get("weasyprint.svg.text")
    tags = getattr(svg_pkg, "TAGS", None)
    original = getattr(text_mod, "text", None)
    if (not isinstance(tags, dict) or original is None or tags.get("text") is not original
            or getattr(svg_pkg, "text", None) is not original
            or not callable(getattr(getattr(svg_pkg, "SVG", None), "draw_node", None))
            or not all(hasattr(text_mod, n) for n in ("Style", "TextBox"))):
        return None
    return svg_pkg, text_mod


#: Where a run keeps its text's ``text-anchor`` (middle or end), out of WeasyPrint's sight
_ANCHOR = "reportgen-text-anchor"


def _one_run(original: Any, text_mod: Any, draw_node: Any) -> tuple[Any, Any]:
    """The replacements of WeasyPrint's ``svg.text.text`` and ``SVG.draw_node``: see the module
    docstring."""
    from weasyprint.css.properties import INITIAL_VALUES  # noqa: PLC0415
    from weasyprint.draw.text import draw_emojis, draw_first_line  # noqa: PLC0415
    from weasyprint.matrix import Matrix  # noqa: PLC0415
    from weasyprint.svg.bounding_box import extend_bounding_box  # noqa: PLC0415
    from weasyprint.svg.utils import normalize, size  # noqa: PLC0415
    from weasyprint.text.line_break import split_first_line  # noqa: PLC0415

    def simple(node: Any) -> tuple[str, str] | None:
        """The one x and one y of a text drawn as a run, or None."""
        attrib = node.attrib
        xs = normalize(attrib.get("x", "")).split()
        ys = normalize(attrib.get("y", "")).split()
        if (node.tag != "text" or not node.text or len(xs) != 1 or len(ys) != 1 or any(True for _ in node)
                or _PER_GLYPH.intersection(attrib) or node.get("direction") not in (None, "ltr")):
            return None
        return xs[0], ys[0]

    def drawn(svg: Any, node: Any, font_size: float, fill_stroke: bool = True, context: Any = None) -> Any:
        # a run places its own anchor (it knows its width): WeasyPrint would draw the text into
        # a PDF form XObject of its own and shift that by the text's width
        if (node.tag == "text" and node.attrib.get("text-anchor") in ("middle", "end")
                and not str(node.get("fill", "")).startswith("url(") and simple(node) is not None):
            node.attrib[_ANCHOR] = node.attrib.pop("text-anchor")
        return draw_node(svg, node, font_size, fill_stroke, context)

    def text(svg: Any, node: Any, font_size: float) -> None:
        position = simple(node)
        if position is None:
            return original(svg, node, font_size)
        xs, ys = [position[0]], [position[1]]
        # the style WeasyPrint's own function builds (weasyprint/svg/text.py), field by field
        style = text_mod.Style()
        style.update(INITIAL_VALUES)
        style.font_config = svg.font_config
        style["font_family"] = [font.strip("\"'") for font in node.get("font-family", "sans-serif").split(",")]
        style["font_style"] = node.get("font-style", "normal")
        weight = node.get("font-weight", 400)
        if weight == "normal":
            weight = 400
        elif weight == "bold":
            weight = 700
        else:
            try:
                weight = int(weight)
            except ValueError:
                weight = 400
        style["font_weight"] = weight
        style["font_size"] = font_size
        layout, _, _, width, height, baseline = split_first_line(node.text, style, svg.context, inf, 0)
        x = size(xs[0], font_size, svg.inner_width)
        y = size(ys[0], font_size, svg.inner_height)
        # vertical alignment, as WeasyPrint's function does it
        ascent, descent = font_size * 0.8, font_size * 0.2
        y_align = 0.0
        anchor = node.get("display-anchor")
        alignment = node.get("dominant-baseline", node.get("alignment-baseline"))
        if anchor == "middle":
            y_align = -height / 2
        elif anchor == "top":
            pass
        elif anchor == "bottom":
            y_align = -height
        elif alignment in ("central", "middle"):
            y_align = (ascent + descent) / 2 - descent
        elif alignment in ("text-before-edge", "before_edge", "top", "hanging", "text-top"):
            y_align = ascent
        elif alignment in ("text-after-edge", "after_edge", "bottom", "text-bottom"):
            y_align = -descent
        svg.cursor_d_position[0] = svg.cursor_d_position[1] = 0  # an x and a y reset them
        svg.cursor_position = x + width, y
        anchor = node.attrib.get(_ANCHOR)
        if anchor == "middle":
            x -= width / 2
        elif anchor == "end":
            x -= width
        y_position = y + y_align
        node.text_bounding_box = extend_bounding_box(
            node.text_bounding_box, ((x, y_position - baseline), (x + width, y_position - baseline + height)))
        svg.stream.push_state()
        fill, stroke = svg.set_graphical_state(node, font_size)
        svg.stream.begin_text()
        layout.reactivate(style)
        svg.fill_stroke(fill, stroke, text=True)
        box = text_mod.TextBox(layout, style)
        box.baseline = baseline
        emojis = draw_first_line(svg.stream, box, "none", "none", Matrix(d=-1, e=x, f=y_position))
        svg.stream.end_text()
        svg.stream.pop_state()
        draw_emojis(svg.stream, style, x, y, emojis)

    return text, drawn


def _swap(svg_pkg: Any, old: tuple[Any, Any], new: tuple[Any, Any]) -> None:
    for tag, fn in list(svg_pkg.TAGS.items()):
        if fn is old[0]:
            svg_pkg.TAGS[tag] = new[0]
    svg_pkg.text = new[0]  # draw_node tells text nodes by ``TAGS.get(tag) == text``
    svg_pkg.SVG.draw_node = new[1]


@contextmanager
def svg_text_runs() -> Iterator[None]:
    """Inside the block, WeasyPrint draws each single-position SVG ``<text>`` as one run (module
    docstring); nestable and thread-safe; WeasyPrint of another shape is left as it is."""
    with _LOCK:
        found = _weasy_svg() if _STATE[0] == 0 else None
        if _STATE[0] == 0 and found is None:
            installed = False
        else:
            if _STATE[0] == 0:
                svg_pkg, text_mod = found
                own = (text_mod.text, svg_pkg.SVG.draw_node)
                _STATE[1] = (svg_pkg, own, _one_run(own[0], text_mod, own[1]))
                _swap(svg_pkg, own, _STATE[1][2])
            _STATE[0] += 1
            installed = True
    try:
        yield
    finally:
        if installed:
            with _LOCK:
                _STATE[0] -= 1
                if _STATE[0] == 0:
                    svg_pkg, original, replacement = _STATE[1]
                    _swap(svg_pkg, replacement, original)
                    _STATE[1] = None


#: ``html5_ua.css`` rules that style a pseudo-element of every element (module docstring)
_UNIVERSAL = ("::footnote-call", "::footnote-marker", "::note-call", "::note-marker", "::note-callback")
_HTML_CLASS: list[Any] = []


def _lean_ua(source: str) -> str | None:
    """``html5_ua.css`` without the universal pseudo-element rules and with ``::marker`` for
    ``li`` only; None when the file does not have them as one-line rules, as in WeasyPrint 63–70."""
    lines = source.splitlines()
    markers = [i for i, line in enumerate(lines) if line.startswith("::marker {") and line.rstrip().endswith("}")]
    dropped = [i for i, line in enumerate(lines) if line.startswith(_UNIVERSAL)]
    if (len(markers) != 1 or len(dropped) != len(_UNIVERSAL)
            or any(not lines[i].rstrip().endswith("}") for i in dropped)
            or any(line.lstrip().startswith("::") for i, line in enumerate(lines) if i not in dropped and i not in markers)):
        return None
    lines[markers[0]] = "li" + lines[markers[0]]
    return "\n".join(line for i, line in enumerate(lines) if i not in set(dropped)) + "\n"


def html_class() -> Any:
    """``weasyprint.HTML``, or a subclass of it whose user-agent stylesheet is the lean one
    (module docstring) where WeasyPrint's stylesheet has the expected rules."""
    if _HTML_CLASS:
        return _HTML_CLASS[0]
    import weasyprint  # noqa: PLC0415
    from pathlib import Path  # noqa: PLC0415

    cls = weasyprint.HTML
    path = Path(weasyprint.__file__).parent / "css" / "html5_ua.css"
    try:
        lean = _lean_ua(path.read_text(encoding="utf-8"))
    except OSError:
        lean = None
    if lean is not None and callable(getattr(weasyprint.HTML, "_ua_stylesheets", None)):
        sheet = weasyprint.CSS(string=lean, base_url=str(path))

        class LeanHTML(weasyprint.HTML):
            """``weasyprint.HTML`` with the lean user-agent stylesheet (forms keep WeasyPrint's)."""

            def _ua_stylesheets(self, forms: bool = False) -> list[Any]:
                sheets = super()._ua_stylesheets(forms)
                return [sheet, *sheets[1:]] if sheets and not forms else sheets

        cls = LeanHTML
    _HTML_CLASS.append(cls)
    return cls


def _linker_cache() -> bytes | None:
    """``ldconfig -p``'s listing of the dynamic linker's cache, or None without one."""
    import subprocess  # noqa: PLC0415

    for exe in ("/sbin/ldconfig", "/usr/sbin/ldconfig"):
        try:
            return subprocess.run([exe, "-p"], stdin=subprocess.DEVNULL, stderr=subprocess.DEVNULL,
                                  stdout=subprocess.PIPE, env={"LC_ALL": "C", "LANG": "C"}, check=False).stdout
        except OSError:
            continue
    return None


def _cached_find_library(listing: bytes) -> Any:
    """``ctypes.util.find_library`` answered from one ``ldconfig -p`` listing (the same match
    as CPython's ``_findSoname_ldconfig``), then from ``LD_LIBRARY_PATH``; None, never a compiler
    run, for a name found in neither."""
    import glob  # noqa: PLC0415
    import re  # noqa: PLC0415
    import struct  # noqa: PLC0415

    machine = os.uname().machine + ("-32" if struct.calcsize("l") == 4 else "-64")
    abi = {"x86_64-64": "libc6,x86-64", "ppc64-64": "libc6,64bit", "sparc64-64": "libc6,64bit",
           "s390x-64": "libc6,64bit", "ia64-64": "libc6,IA-64"}.get(machine, "libc6")

    def find(name: str) -> str | None:
        found = re.search(os.fsencode(r"\s+(lib%s\.[^\s]+)\s+\(%s" % (re.escape(name), abi)), listing)
        if found:
            return os.fsdecode(found.group(1))
        for folder in filter(None, os.environ.get("LD_LIBRARY_PATH", "").split(os.pathsep)):
            hits = sorted(glob.glob(os.path.join(glob.escape(folder), f"lib{glob.escape(name)}.so*")))
            if hits:
                return hits[0]
        return None

    return find


def import_weasyprint() -> Any:
    """``import weasyprint`` with its library lookups answered from the linker cache (module
    docstring); the plain import where that is not possible or does not succeed."""
    if "weasyprint" in sys.modules or not sys.platform.startswith("linux"):
        import weasyprint  # noqa: PLC0415

        return weasyprint
    import contextlib  # noqa: PLC0415
    import ctypes.util  # noqa: PLC0415
    import io  # noqa: PLC0415

    listing = _linker_cache()
    if listing:
        original = ctypes.util.find_library
        ctypes.util.find_library = _cached_find_library(listing)
        try:
            # WeasyPrint prints its installation help before it fails to open a library: kept
            # for the plain import below, which says it if the libraries are really missing
            with contextlib.redirect_stdout(io.StringIO()):
                import weasyprint  # noqa: PLC0415

            return weasyprint
        except (ImportError, OSError):
            for name in [m for m in sys.modules if m == "weasyprint" or m.startswith("weasyprint.")]:
                del sys.modules[name]
        finally:
            ctypes.util.find_library = original
    import weasyprint  # noqa: PLC0415

    return weasyprint


def redraw_svg_images(document: Any, drawings: dict[str, tuple[str, bytes]]) -> bool:
    """Give the SVG images of a laid-out ``document`` other drawings before it is painted:
    ``drawings`` maps the URL an image was laid out from to (the URL, the SVG bytes) it is to
    be drawn from instead, as if the page had named that URL. Each such image object is
    rebuilt in place as WeasyPrint builds one on fetching it (``SVGImage(tree, url, fetcher,
    context)``, WeasyPrint 63–70), so every box that shows it draws the new SVG; the layout is
    kept, which is right when the new SVG states the same size (the caller checks).

    Why: the report's PDF is laid out while its figures are still being drawn, each figure an
    empty SVG of its size meanwhile (:func:`reportgen.report.figures.pending_svg`); WeasyPrint reads
    an SVG image's drawing only when it paints the page. False, with nothing changed, if
    WeasyPrint is not of that shape or some URL of ``drawings`` is not an SVG image of the
    document: the caller then lays the page out again with the drawings.
    """
    try:
        from weasyprint.formatting_structure.boxes import ReplacedBox  # noqa: PLC0415
        from weasyprint.images import SVGImage  # noqa: PLC0415
    except ImportError:
        return False
    found: dict[str, Any] = {}
    for page in getattr(document, "pages", ()):
        root = getattr(page, "_page_box", None)
        if root is None or not callable(getattr(root, "descendants", None)):
            return False
        for box in root.descendants():
            image = getattr(box, "replacement", None) if isinstance(box, ReplacedBox) else None
            if isinstance(image, SVGImage) and getattr(image, "_base_url", None) in drawings:
                found[image._base_url] = image
    if set(found) != set(drawings) or not all(
            hasattr(image, name) for image in found.values() for name in ("_svg", "_url_fetcher", "_context")):
        return False
    import xml.etree.ElementTree as ET  # noqa: PLC0415  (as WeasyPrint parses a fetched SVG)

    try:
        rebuilt = {url: SVGImage(ET.fromstring(data), new_url, found[url]._url_fetcher, found[url]._context)
                   for url, (new_url, data) in drawings.items()}
    except Exception:  # noqa: BLE001  (a drawing WeasyPrint cannot take: laid out again by the caller)
        return False
    for url, image in rebuilt.items():
        found[url].__dict__.update(image.__dict__)
    return True
