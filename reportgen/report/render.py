"""Result → view model → Jinja templates → HTML, PDF (WeasyPrint) and JSON text.

Templates only display: they receive the typed, frozen view of :mod:`reportgen.report.views`
(ready-formatted strings and flags); number formatting lives in :mod:`reportgen.report.formats`,
which also supplies the Jinja filters. The environment autoescapes and uses ``StrictUndefined``; a custom
theme directory can override any template or the CSS but cannot include files outside itself.
WeasyPrint gets a URL fetcher that refuses everything except ``data:`` URLs, so rendering
never touches the network or the file system.

Writing them to disk (the whole set or nothing, locked, swapped in by one rename) is
:mod:`reportgen.report.writer` (which imports this module, never the other way).
"""

from __future__ import annotations

import base64
import functools
import hashlib
import logging
import os
import re
import tempfile
import traceback
from collections.abc import Callable, Iterator, Sequence
from contextlib import ExitStack, contextmanager
from datetime import datetime
from importlib import resources
from pathlib import Path
from typing import Any
from urllib.parse import unquote_to_bytes

from jinja2 import ChoiceLoader, Environment, FileSystemLoader, StrictUndefined, select_autoescape
from jinja2.exceptions import SecurityError
from jinja2.sandbox import ImmutableSandboxedEnvironment
from markupsafe import Markup

from reportgen.errors import ReportgenError, ThemeError
from reportgen.report.formats import FILTERS
from reportgen.report.theme import Provenance, Theme
from reportgen.report.views import ReportView, report_view
from reportgen.results import ComparisonResult
from reportgen.results_io import result_json

log = logging.getLogger(__name__)

FORMATS = ("html", "pdf", "json", "csv", "xlsx")


# --------------------------------------------------------------------------------------
# Theme
# --------------------------------------------------------------------------------------


def build_view(result: ComparisonResult, theme: Theme = Theme()) -> ReportView:
    """Everything the templates show, as formatted strings and flags (:mod:`reportgen.report.views`);
    the figures of the sections shown, the credit section's among them, drawn as inline SVG."""
    return report_view(result, theme, functools.partial(_draw_figures, result, theme))


def _draw_figures(result: ComparisonResult, theme: Theme, sections: Sequence[str]) -> dict[str, str]:
    """The figures of ``sections``, the credit section's among them (:func:`reportgen.report.figures.render_figures`)."""
    import reportgen.report.figures as figures  # noqa: PLC0415  (figures are only needed to render)

    return figures.render_figures(result, theme.palette or figures.PALETTE, sections)


# --------------------------------------------------------------------------------------
# Jinja environment
# --------------------------------------------------------------------------------------


def default_template_dir() -> Path:
    """The shipped templates (``templates/`` in the repo, ``reportgen/templates`` in the wheel)."""
    repo = Path(__file__).resolve().parents[2] / "templates"
    if (repo / "report.html").exists():
        return repo
    return Path(str(resources.files("reportgen.templates")))


class _ConfinedLoader(FileSystemLoader):
    """A FileSystemLoader that refuses template names escaping its directory."""

    def get_source(self, environment: Environment, template: str) -> tuple[str, str, Callable[[], bool]]:
        parts = Path(template.replace("\\", "/")).parts
        if template.startswith(("/", "\\")) or ".." in parts or (parts and ":" in parts[0]):
            raise ThemeError(
                f"{self.searchpath[0]}: template {template!r} points outside the template directory; "
                f"a theme may include only its own files and the shipped templates"
            )
        source, filename, uptodate = super().get_source(environment, template)
        root = Path(self.searchpath[0]).resolve()
        if not Path(filename).resolve().is_relative_to(root):  # a symlink leading out
            raise ThemeError(
                f"{self.searchpath[0]}: template {template!r} points outside the template directory (symlink); "
                f"a theme may include only its own files and the shipped templates"
            )
        return source, filename, uptodate


#: A number and the per cent sign after it (``9.95 %``): joined by a no-break space on output.
_NUMBER_PERCENT = re.compile(r"(?<=\d) %")


def keep_units(value: Any) -> Any:
    """The environment's ``finalize``: in every text value a template prints, the space between a
    number and its per cent sign is a no-break space, so a line never ends "at 10.2" with "%" on
    the next line (nor "97.5" over "% CI"). Markup (figures, names broken by :func:`wbr`) is left
    as it is; the text reads and copies as before."""
    if isinstance(value, str) and not isinstance(value, Markup) and " %" in value:
        return _NUMBER_PERCENT.sub("\u00a0%", value)
    return value


#: The longest string or sequence a template may build with ``*``, and the largest power it may
#: raise an integer to: a theme's ``{{ 'a' * 10**9 }}`` would otherwise fill the memory and the
#: report (Jinja's sandbox bounds ``range`` only).
MAX_REPEAT = 1_000_000
MAX_POWER = 10_000


class _ReportSandbox(ImmutableSandboxedEnvironment):
    """The sandbox, with ``*`` and ``**`` bounded (:data:`MAX_REPEAT`, :data:`MAX_POWER`)."""

    intercepted_binops = frozenset({"*", "**"})

    def call_binop(self, context: Any, operator: str, left: Any, right: Any) -> Any:
        if operator == "*":
            for seq, times in ((left, right), (right, left)):
                if (
                    isinstance(seq, (str, bytes, list, tuple))
                    and isinstance(times, int)
                    and len(seq) * times > MAX_REPEAT
                ):
                    raise SecurityError(f"a repetition longer than {MAX_REPEAT:,} items")
        elif (
            operator == "**"
            and isinstance(left, int)
            and isinstance(right, int)
            and abs(right) > MAX_POWER
            and abs(left) > 1
        ):
            raise SecurityError(f"a power above {MAX_POWER:,}")
        return super().call_binop(context, operator, left, right)


def make_environment(theme: Theme = Theme()) -> Environment:
    loaders = []
    if theme.template_dir is not None:
        loaders.append(_ConfinedLoader(str(theme.template_dir)))
    loaders.append(_ConfinedLoader(str(default_template_dir())))
    # The sandbox: a template (a theme's, or one named by anything the user did not write) can
    # display values but never reach Python internals (``cycler.__init__.__globals__.os``, …) nor
    # mutate the view model.
    env = _ReportSandbox(
        loader=ChoiceLoader(loaders),
        autoescape=select_autoescape(enabled_extensions=("html", "xml", "j2"), default=True, default_for_string=True),
        undefined=StrictUndefined,
        trim_blocks=True,
        lstrip_blocks=True,
        keep_trailing_newline=True,
        finalize=keep_units,
    )
    env.filters.update(FILTERS)
    return env


_LAST_ENVIRONMENT: list[tuple[Path | None, Environment]] = []


def _environment(theme: Theme) -> Environment:
    """:func:`make_environment` of the theme's template directory, kept for the next page of the
    same directory: a report set renders two pages (HTML and the PDF's), and compiling the
    templates took about as long as rendering them. Jinja re-reads a template whose file
    changed (``auto_reload``), through the same confined loader."""
    key = theme.template_dir
    if not _LAST_ENVIRONMENT or _LAST_ENVIRONMENT[0][0] != key:
        _LAST_ENVIRONMENT[:] = [(key, make_environment(theme))]
    return _LAST_ENVIRONMENT[0][1]


def render_html(
    result: ComparisonResult, theme: Theme = Theme(), for_pdf: bool = False, view: ReportView | None = None
) -> str:
    """The report as one self-contained HTML page (``for_pdf``: the print flavour for WeasyPrint)."""
    env = _environment(theme)
    view = build_view(result, theme) if view is None else view
    css = env.loader.get_source(env, "report.css")[0]  # type: ignore[union-attr]
    script = (default_template_dir() / "sort.js").read_text(encoding="utf-8")
    with theme_errors(theme):  # here, before the writer takes a TemplateNotFound (an OSError) for a disk error
        page = env.get_template("report.html").render(
            view=view, css=Markup(css), script=Markup(script), for_pdf=for_pdf
        )
    return _with_content_policy(page, script)


def _with_content_policy(page: str, script: str) -> str:
    """The page with a Content-Security-Policy that lets a browser fetch nothing.

    Inserted by code after ``<head>`` (or first, when a theme's page has no head), so no theme
    can drop it: images and fonts only from inline ``data:`` URLs, inline styles, and only the
    shipped table-sorting script (by its hash); no network, no file, no other script.
    """
    digest = base64.b64encode(hashlib.sha256(script.encode("utf-8")).digest()).decode("ascii")
    policy = (
        "default-src 'none'; img-src data:; font-src data:; style-src 'unsafe-inline'; "
        f"script-src 'sha256-{digest}'; base-uri 'none'; form-action 'none'"
    )
    meta = f'<meta http-equiv="Content-Security-Policy" content="{policy}">'
    head = re.search(r"<head(\s[^>]*)?>", page, re.IGNORECASE)
    if head is None:
        return meta + "\n" + page
    return page[: head.end()] + "\n" + meta + page[head.end() :]


def _decode_data_url(url: str) -> tuple[bytes, str]:
    """Body and media type of an RFC 2397 ``data:`` URL (decoded here; nothing is opened)."""
    header, sep, payload = url[5:].partition(",")
    if not sep:
        raise ValueError(f"malformed data URL ({url[:80]})")
    parts = header.split(";")
    mime = parts[0] or "text/plain"
    if parts[-1].lower() == "base64":
        return base64.b64decode(unquote_to_bytes(payload)), mime
    return unquote_to_bytes(payload), mime


def _refuse_urls(url: str, *_: Any, **__: Any) -> dict[str, Any]:
    """Resolve a URL for WeasyPrint: inline ``data:`` URLs only, nothing from network or disk.

    Returns the classic fetcher dict (``string``, ``mime_type``); ``_LocalOnlyFetcher`` wraps
    it for WeasyPrint ≥ 68, whose fetchers are ``URLFetcher`` objects.
    """
    if url.startswith("data:"):
        body, mime = _decode_data_url(url)
        return {"string": body, "mime_type": mime}
    raise ValueError(f"reportgen does not fetch external resources ({url[:80]})")


def _url_fetcher() -> Any:
    """The fetcher object or function this WeasyPrint version expects, refusing all but data:."""
    import weasyprint.urls as wurls  # noqa: PLC0415

    if not hasattr(wurls, "URLFetcher"):  # WeasyPrint < 68: a plain function
        return lambda url, *a, **k: _refuse_urls(url)

    class _LocalOnlyFetcher(wurls.URLFetcher):
        def fetch(self, url: str, headers: Any = None) -> Any:
            got = _refuse_urls(url)
            return wurls.URLFetcherResponse(url, got["string"], {"Content-Type": got["mime_type"]})

    return _LocalOnlyFetcher(allowed_protocols={"data"}, allow_redirects=False)


@contextmanager
def _quiet(*names: str) -> Iterator[None]:
    """Raise the named loggers (and their children) to ERROR for one call, then restore them.

    WeasyPrint's and fontTools' notes on CSS they ignore and fonts they subset are noise in a
    report run; they are kept out only while reportgen's own PDF is laid out, so other code in
    the process (an Airflow task) keeps those libraries' loggers as it configured them.
    """
    loggers = [logging.getLogger(n) for n in names]
    before = [lg.level for lg in loggers]
    for lg in loggers:
        if lg.getEffectiveLevel() < logging.ERROR:
            lg.setLevel(logging.ERROR)
    try:
        yield
    finally:
        for lg, level in zip(loggers, before):
            lg.setLevel(level)


#: Archival PDF variants ``--pdf-variant`` offers: PDF/A-3 is the part of ISO 19005 that allows
#: embedded files (``metrics.json`` travels inside the PDF); b = visual appearance, u = also
#: Unicode text.
PDF_VARIANTS = ("pdf/a-3b", "pdf/a-3u")


def render_pdf(
    html: str,
    target: Path,
    variant: str | None = None,
    attachments: dict[str, bytes] | None = None,
    when: str | None = None,
) -> None:
    """Lay ``html`` out as a PDF at ``target`` with WeasyPrint.

    ``variant`` (one of :data:`PDF_VARIANTS`): an archival PDF/A file (WeasyPrint's
    ``pdf_variant``: sRGB output intent, XMP metadata, a document identifier), tagged where the
    installed WeasyPrint can (``pdf_tags``, WeasyPrint ≥ 67), with ``attachments`` (file name →
    bytes) embedded; ``when`` (ISO 8601, the run's timestamp) dates the attachments so the same
    run gives the same file.

    Warns (this module's logger, one line) when ``html`` has characters no installed font can
    draw (:func:`reportgen.report.fonts.undrawable`), as the PDF prints them as empty boxes.
    The figures go in as images of fewer SVG nodes (:func:`reportgen.report.figures.pdf_figures`).
    """
    import weasyprint  # noqa: PLC0415  (only a PDF needs it)

    import reportgen.report.figures as drawing  # noqa: PLC0415  (figures are only needed to render)
    from reportgen.report.fonts import undrawable, undrawable_warning  # noqa: PLC0415

    if (warning := undrawable_warning(undrawable([html]))) is not None:
        log.warning("%s", warning)

    options: dict[str, object] = {}
    with ExitStack() as stack:
        if variant is not None:
            if variant not in PDF_VARIANTS:
                raise ValueError(f"unknown PDF variant {variant!r}; choose from {', '.join(PDF_VARIANTS)}")
            options["pdf_variant"] = variant
            if "pdf_tags" in weasyprint.DEFAULT_OPTIONS:
                options["pdf_tags"] = True
            stamp = datetime.fromisoformat(when.replace("Z", "+00:00")) if when else None
            folder = Path(stack.enter_context(tempfile.TemporaryDirectory(prefix="reportgen-attach-")))
            files = []
            for name, data in (attachments or {}).items():
                # a file, not a string: every WeasyPrint since 63 names the attachment after it
                (folder / name).write_bytes(data)
                files.append(
                    weasyprint.Attachment(
                        filename=str(folder / name),
                        created=stamp,
                        modified=stamp,
                        relationship="Data",
                        description=f"{name} of this report",
                    )
                )
            options["attachments"] = files
        options = {**weasyprint.DEFAULT_OPTIONS, **options}
        with _quiet("weasyprint", "fontTools"):
            page = drawing.pdf_figures(html)
            document = weasyprint.HTML(string=page, url_fetcher=_url_fetcher(), base_url=None).render(**options)
            document.write_pdf(str(target), **options)


@contextmanager
def theme_errors(theme: Theme) -> Iterator[None]:
    """A broken custom theme is the user's to fix; a broken shipped template stays a bug."""
    from jinja2 import TemplateNotFound, TemplateSyntaxError, UndefinedError  # noqa: PLC0415

    try:
        yield
    except SecurityError as exc:
        if theme.template_dir is None:
            raise
        raise ThemeError(
            f"{theme.template_dir}: the theme tried something templates may not do ({exc}); "
            f"a template may only display the report's values"
        ) from None
    except UndefinedError as exc:
        if theme.template_dir is None:
            raise
        raise ThemeError(f"{theme.template_dir}: a template uses an undefined value ({exc.message})") from None
    except TemplateSyntaxError as exc:
        if theme.template_dir is None:
            raise
        raise ThemeError(
            f"{exc.filename or theme.template_dir}:{exc.lineno}: template syntax error: {exc.message}"
        ) from None
    except TemplateNotFound as exc:
        if theme.template_dir is None:
            raise
        raise ThemeError(
            f"{theme.template_dir}: template {exc.name!r} not found in the theme or the shipped templates"
        ) from None
    except ReportgenError:
        raise
    except Exception as exc:  # a theme's expression failed at render time ({{ 1/0 }}, {{ 1 + "a" }})
        where = _theme_frame(exc, theme.template_dir) if theme.template_dir is not None else None
        if where is None:  # not raised in the theme's own templates: ours
            raise
        message = " ".join(str(exc).split()) or type(exc).__name__
        raise ThemeError(
            f"{where}: the template failed while rendering ({type(exc).__name__}: {message}); "
            f"fix the expression in the theme"
        ) from None


def _theme_frame(exc: BaseException, template_dir: str | Path) -> str | None:
    """``file:line`` of the innermost traceback frame inside the theme's directory, if any
    (Jinja compiles each template with its file name, so its frames carry the template's lines)."""
    root = os.path.realpath(template_dir)
    found = None
    for frame in traceback.extract_tb(exc.__traceback__):
        name = os.path.realpath(frame.filename) if frame.filename else ""
        if name.startswith(root + os.sep):
            found = f"{frame.filename}:{frame.lineno}"
    return found


__all__ = ["render_html", "build_view", "Provenance", "Theme", "make_environment", "render_pdf", "result_json"]
