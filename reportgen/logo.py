"""A report's logo: which bytes make an image a report may embed (PNG, JPEG, GIF, a plain SVG),
checked when the config is loaded (a run stops before reading any data) and when the logo is
embedded as a data: URI."""

from __future__ import annotations

import base64
import os
import re
import stat
from pathlib import Path

from reportgen.errors import UserError

#: The largest logo embedded in a report (bytes); a logo is a mark, not a photograph.
MAX_LOGO_BYTES = 1_000_000

IMAGE_MAGIC = (
    (b"\x89PNG\r\n\x1a\n", "image/png"),
    (b"\xff\xd8\xff", "image/jpeg"),
    (b"GIF87a", "image/gif"),
    (b"GIF89a", "image/gif"),
)

#: What an SVG logo may not contain: scripts, event handlers, foreign HTML, entity
#: declarations, references to anything but its own fragments or inline raster data.
SVG_FORBIDDEN = (
    rb"(?i)<!DOCTYPE|<!ENTITY|<script|<foreignObject|<iframe|<object|<embed|\son[a-z]+\s*=|javascript:|@import"
    rb"|url\(\s*['\"]?(?!#|data:image/(?:png|jpeg|gif);)"
    rb"|href\s*=\s*['\"](?!#|data:image/(?:png|jpeg|gif);)"
)


def image_kind(data: bytes) -> tuple[str | None, str | None]:
    """(MIME type, None) of a logo's bytes, or (None, what is wrong and what to do). The bytes
    decide, not the extension: PNG, JPEG and GIF by their signature, SVG when it is an ``<svg>``
    document with nothing active in it (scripts, event handlers, external references, entities)."""
    kind = next((mime for magic, mime in IMAGE_MAGIC if data.startswith(magic)), None)
    if kind is not None:
        return kind, None
    head = data.lstrip(b"\xef\xbb\xbf \t\r\n")
    if re.match(rb"(<\?xml[^>]*>\s*)?(<!--.*?-->\s*)*<svg[\s>]", head, re.DOTALL) is None:
        return None, (
            "is not a PNG, JPEG, GIF or SVG image (judged by its bytes, not its name); "
            "give an image file in report.logo (or --logo)"
        )
    if (bad := re.search(SVG_FORBIDDEN, data)) is not None:
        return None, (
            f"is an SVG with active or external content ({bad.group(0)[:30].decode('latin-1')!r}); "
            f"export a plain SVG or a PNG"
        )
    return "image/svg+xml", None


def read_logo(path: Path, where: str) -> bytes:
    """A logo file's bytes (``where``: how messages name it); a FIFO or device, a file over
    :data:`MAX_LOGO_BYTES` or one that cannot be read is a :class:`~reportgen.errors.UserError`."""
    try:
        st = os.stat(path)
        if not stat.S_ISREG(st.st_mode):
            raise UserError(f"{where} is not a regular file; give a PNG, JPEG, GIF or SVG file")
        if st.st_size > MAX_LOGO_BYTES:
            raise UserError(f"{where} is {st.st_size:,} bytes (at most {MAX_LOGO_BYTES:,}); use a smaller image")
        with open(path, "rb") as fh:
            data = fh.read(MAX_LOGO_BYTES + 1)
    except OSError as exc:
        raise UserError(f"{path}: cannot read the logo ({exc.strerror}); check report.logo in the config") from None
    if len(data) > MAX_LOGO_BYTES:
        raise UserError(f"{where} is larger than {MAX_LOGO_BYTES:,} bytes; use a smaller image")
    return data


def logo_data_uri(path: Path | None) -> str | None:
    """A logo file as an inline data: URI (the report stays self-contained); see :func:`image_kind`."""
    if path is None:
        return None
    where = f"{path}: the logo"
    data = read_logo(path, where)
    kind, problem = image_kind(data)
    if problem is not None:
        raise UserError(f"{where} {problem}")
    return f"data:{kind};base64,{base64.b64encode(data).decode('ascii')}"
