"""Text for a terminal: one line, every character visible (the command's messages and the
history's text table quote data — model names, titles, paths — that may hold anything)."""

from __future__ import annotations

import re

#: Characters a terminal acts on instead of showing them: C0 and C1 controls (ESC starts the
#: sequences that move the cursor, recolour, retitle or clear the screen; BEL, backspace, DEL)
#: and the bidirectional controls that reorder the text after them (U+061C, U+200E, U+200F,
#: U+202A-U+202E, U+2066-U+2069).
UNSHOWN = "[\x00-\x1f\x7f-\x9f\u061c\u200e\u200f\u202a-\u202e\u2066-\u2069]"


def one_line(text: str) -> str:
    """``text`` as a terminal should show it: one line, every character visible.

    Every line break (``\\n``, ``\\r``, ``\\v``, ``\\f``, ``\\x1c``-``\\x1e``, ``\\x85``,
    ``\\u2028``, ``\\u2029`` — what :meth:`str.splitlines` splits on) becomes a space, so a
    message quoting data stays one line; any other character of :data:`UNSHOWN` is written as
    its escape (``\\x1b``): a model name holding ``ESC [2J`` cleared the user's screen, and one
    holding U+202E showed the rest of the line reversed."""
    return re.sub(UNSHOWN, lambda m: m.group().encode("unicode_escape").decode("ascii"), " ".join(text.splitlines()))


def json_shown(text: str) -> str:
    """JSON text (``json.dumps(..., ensure_ascii=False)``) with every character a terminal would act
    on written as its ``\\uXXXX`` escape: the same JSON value. ``json.dumps`` escapes C0 controls
    only, and left DEL, the C1 controls (U+0080-U+009F; U+009B is a terminal's CSI, as ESC [) and
    the bidirectional controls of a model name or title raw in ``reportgen history --format json``.
    Outside strings JSON text holds none of :data:`UNSHOWN` but the line breaks of its indent (kept;
    inside a string ``json.dumps`` wrote ``\\n``), so every other match is inside one."""
    return re.sub(UNSHOWN, lambda m: m.group() if m.group() == "\n" else f"\\u{ord(m.group()):04x}", text)
