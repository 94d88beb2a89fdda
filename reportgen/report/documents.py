"""A report's HTML and PDF pages: made here, or by a process forked before the data is read.

:class:`Documents` makes the two pages of one result from one view (:func:`reportgen.report.render.start_view`):
the PDF first, laid out while the figures are drawn, then the HTML filled with the same drawings.

:class:`ReportProcess` makes the same pages, byte for byte, in a process that ``reportgen run``
forks as it starts, before any data is read. Why: a report's libraries take about 0.8 CPU
seconds to import (WeasyPrint 0.35–0.45 s, matplotlib 0.4 s), and in one process they are
imported on the report's critical path (WeasyPrint as the PDF starts; matplotlib while the
models are compared, on cores the comparison uses). The forked process imports them while the
main process reads and reduces the data, then waits. When the result is known it is sent over
(pickled, some 70 kB for three models: its curves are the stored, simplified ones) with the
theme, and the pages come back as bytes, which the main process writes into the report set as
before (whole or nothing, :mod:`reportgen.report.writer`). The main process never imports WeasyPrint or
matplotlib then, so its heap stays small for the garbage collector too.

Nothing changes what a report says or where it is written: any failure of the process (it could
not start, was killed, met an error, a result that does not pickle) is not reported from it:
the main process makes the pages itself, as without it, so every error, warning and exit code
is the one a single process gives. Warnings the process logs (``reportgen.*`` loggers: figure
notes, missing fonts) are handed to the main process's loggers in their order, with the pages.

Linux only (fork is its default start method; elsewhere a fork would not be safe with the
libraries loaded and a spawn would import everything again), and only from a process that
holds little memory (:data:`MAX_PARENT_RESIDENT`: copy-on-write); ``REPORTGEN_REPORT_PROCESS=0``
turns it off, ``=1`` forks whatever the process holds. Like the figure workers, the process leaves SIGINT and SIGTERM to its parent
(from the fork on: :func:`reportgen.report.children.forking`) and dies with it (:func:`reportgen.report.children.child_of`); it ends with ``os._exit``, so it never runs
the parent's exit handlers nor flushes its buffers.
"""

from __future__ import annotations

import logging
import os
import pickle
import sys
import tempfile
import traceback
from collections.abc import Callable
from pathlib import Path
from typing import TYPE_CHECKING, Any

from reportgen.report.children import child_of, forking
from reportgen.report.heap import young_collections_only

if TYPE_CHECKING:
    from reportgen.report.render import Theme, ViewInProgress
    from reportgen.results import ComparisonResult

log = logging.getLogger(__name__)

#: ``REPORTGEN_REPORT_PROCESS=0``: make the pages in the main process (:class:`ReportProcess`).
PROCESS_ENV = "REPORTGEN_REPORT_PROCESS"
#: Formats whose pages this module makes.
PAGES = ("pdf", "html")
#: A process holding more than this in memory makes the pages itself (unless
#: ``REPORTGEN_REPORT_PROCESS=1``): after a fork, every page either process writes that was in
#: memory before is copied first (copy-on-write), and a process that has held gigabytes (a host
#: that ran earlier reports in-process, or read 10M rows) rewrites them as it reads the data:
#: measured 3 CPU seconds more for a three-model run at 10M rows forked from such a process,
#: where ``reportgen run`` forks at about 120 MiB.
MAX_PARENT_RESIDENT = 256 << 20


class Documents:
    """The HTML and PDF pages of ``result`` in ``theme``, made in this process from one view.

    ``pdf_variant``: an archival PDF (:func:`reportgen.report.render.render_pdf`) with ``attached``
    (file name → bytes: the run's ``metrics.json``) embedded. The view and its figures start with the first
    page asked for; :meth:`close` stops figure workers still running.
    """

    def __init__(self, result: ComparisonResult, theme: Theme, pdf_variant: str | None = None,
                 attached: dict[str, bytes] | None = None) -> None:
        self.result, self.theme, self.pdf_variant, self.attached = result, theme, pdf_variant, attached
        self._view: ViewInProgress | None = None

    def view(self) -> ViewInProgress:
        """The report's view, its figures drawn meanwhile (the PDF is laid out as they are drawn)."""
        import reportgen.report.render as render  # noqa: PLC0415

        if self._view is None:
            self._view = render.start_view(self.result, self.theme)
        return self._view

    def write_pdf(self, path: Path) -> None:
        import reportgen.report.render as render  # noqa: PLC0415

        v = self.view()
        attached = None if self.pdf_variant is None else self.attached
        html = render.render_html(self.result, self.theme, for_pdf=True, view=v.view)
        render.render_pdf(html, path, variant=self.pdf_variant, attachments=attached, when=self.result.run.created,
                          figures=v.drawn)
        if v.remade:  # the view was built again with its figures, after the page was made from it
            html = render.render_html(self.result, self.theme, for_pdf=True, view=v.view)
            render.render_pdf(html, path, variant=self.pdf_variant, attachments=attached,
                              when=self.result.run.created, check_fonts=False)

    def write_html(self, path: Path) -> None:
        import reportgen.report.render as render  # noqa: PLC0415

        v = self.view()
        v.drawn()  # every figure drawn first: the view is final then
        path.write_text(v.fill(render.render_html(self.result, self.theme, view=v.view)), encoding="utf-8")

    def close(self) -> None:
        if self._view is not None:
            self._view.close()


class _Collected(logging.Handler):
    """Every record of the ``reportgen`` loggers, kept (in the forked process) to be handed over."""

    def __init__(self) -> None:
        super().__init__(logging.NOTSET)
        self.records: list[logging.LogRecord] = []

    def emit(self, record: logging.LogRecord) -> None:
        record.msg, record.args = record.getMessage(), None  # plain text: pickles whatever the args were
        if record.exc_info:
            record.exc_text = logging.Formatter().formatException(record.exc_info)
        record.exc_info = None
        self.records.append(record)


class ReportProcess:
    """A process forked now that will make a report's pages (see the module's docstring).

    :meth:`start` forks it (None where it cannot or should not be); :meth:`documents` sends it a
    result and returns what the writer calls to write the pages; :meth:`close` ends it.
    """

    def __init__(self, pid: int, jobs: int, replies: int) -> None:
        self.pid, self._jobs, self._replies = pid, jobs, replies
        self._sent = False

    @classmethod
    def start(cls, formats: list[str] | tuple[str, ...]) -> ReportProcess | None:
        """Fork the process, if ``formats`` have pages to make and this platform forks safely."""
        if not set(PAGES) & set(formats) or not sys.platform.startswith("linux"):
            return None
        setting = os.environ.get(PROCESS_ENV, "").strip()
        if setting == "0":
            return None
        if setting != "1" and (size := _resident_bytes()) > MAX_PARENT_RESIDENT:
            log.debug("report: this process holds %d MiB; the pages are made here (a fork would copy its pages "
                      "as they are written)", size >> 20)
            return None
        try:
            job_r, job_w = os.pipe()
            reply_r, reply_w = os.pipe()
        except OSError:
            return None
        parent = os.getpid()
        process: ReportProcess | None = None
        try:
            # a signal to the process group as it forks stays with the parent (children.forking)
            with forking():
                try:
                    pid = os.fork()
                except OSError as exc:  # no processes to be had (limits): the pages are made here
                    log.debug("report: the report process could not start (%s); the pages are made in this process", exc)
                    return None
                if pid == 0:  # the child: never returns
                    os.close(job_w)
                    os.close(reply_r)
                    _serve(job_r, reply_w, parent)
                process = cls(pid, job_w, reply_r)
        except BaseException:  # a signal taken as the mask was restored: the process ends with the command
            if process is not None:
                process.close()
            raise
        finally:  # the child's ends here (and, without a process, ours: it reads no job then)
            for fd in (job_r, reply_w) if process is not None else (job_r, job_w, reply_r, reply_w):
                os.close(fd)
        return process

    def documents(self, result: ComparisonResult, theme: Theme, formats: list[str], pdf_variant: str | None,
                  attached: dict[str, bytes] | None) -> Documents:
        """The pages of ``formats`` (among :data:`PAGES`) as the writer takes them: sent to the
        process now, so it works while the writer starts; made here if the process cannot."""
        here = Documents(result, theme, pdf_variant, attached)
        wanted = [f for f in PAGES if f in formats]
        if self._sent or not wanted:
            return here
        self._sent = True
        try:
            job = pickle.dumps((result, theme, wanted, pdf_variant, attached), protocol=pickle.HIGHEST_PROTOCOL)
            with os.fdopen(os.dup(self._jobs), "wb") as pipe:
                pipe.write(job)
        except (OSError, pickle.PicklingError, TypeError, AttributeError) as exc:
            log.debug("report: the result could not be sent to the report process (%s); the pages are made here", exc)
            self.close()
            return here
        finally:
            self._close_jobs()
        return _Awaited(here, self)

    def receive(self) -> dict[str, bytes] | None:
        """The pages the process made, its warnings handed on; None when it made none (the caller
        makes them)."""
        try:
            with os.fdopen(os.dup(self._replies), "rb") as pipe:
                reply = pickle.load(pipe)
        except (OSError, EOFError, pickle.UnpicklingError, AttributeError, ImportError, IndexError) as exc:
            log.debug("report: no pages from the report process (%s); the pages are made here", exc)
            return None
        finally:
            self.close()
        status, pages, records = reply
        if status != "ok":
            log.debug("report: the report process failed; the pages are made here:\n%s", pages)
            return None
        for record in records:
            logging.getLogger(record.name).handle(record)
        log.debug("report: the pages (%s) were made by the report process", ", ".join(pages))
        return pages

    def _close_jobs(self) -> None:
        if self._jobs >= 0:
            os.close(self._jobs)
            self._jobs = -1

    def close(self) -> None:
        """End the process (at once: whatever it makes is no longer wanted) and reap it."""
        self._close_jobs()
        if self._replies >= 0:
            os.close(self._replies)
            self._replies = -1
        if self.pid > 0:
            import signal  # noqa: PLC0415

            try:
                os.kill(self.pid, signal.SIGKILL)
            except ProcessLookupError:
                pass
            try:
                os.waitpid(self.pid, 0)
            except ChildProcessError:
                pass
            self.pid = 0


class _Awaited(Documents):
    """The pages from the report process, written when the writer asks; made here if it made none."""

    def __init__(self, here: Documents, process: ReportProcess) -> None:
        super().__init__(here.result, here.theme, here.pdf_variant, here.attached)
        self._process: ReportProcess | None = process
        self._pages: dict[str, bytes] | None = None

    def _page(self, fmt: str) -> bytes | None:
        if self._process is not None:
            self._pages = self._process.receive()
            self._process = None
        return None if self._pages is None else self._pages.get(fmt)

    def write_pdf(self, path: Path) -> None:
        self._write("pdf", path, super().write_pdf)

    def write_html(self, path: Path) -> None:
        self._write("html", path, super().write_html)

    def _write(self, fmt: str, path: Path, here: Callable[[Path], None]) -> None:
        data = self._page(fmt)
        if data is None:
            here(path)
        else:
            path.write_bytes(data)

    def close(self) -> None:
        if self._process is not None:
            self._process.close()
            self._process = None
        super().close()


def _resident_bytes() -> int:
    """This process's resident memory (Linux ``/proc/self/statm``; 0 where it cannot be read)."""
    try:
        with open("/proc/self/statm", encoding="ascii") as f:
            return int(f.read().split()[1]) * os.sysconf("SC_PAGE_SIZE")
    except (OSError, ValueError, IndexError):
        return 0


def _serve(jobs: int, replies: int, parent: int) -> None:
    """The forked process: import the report's libraries, wait for a job, make its pages, reply."""
    try:
        child_of(parent)
        preload()
        with os.fdopen(jobs, "rb") as pipe:
            data = pipe.read()
        if not data:  # the parent wants nothing (a JSON-only set, or it failed first)
            return
        collected = _Collected()
        logger = logging.getLogger("reportgen")
        logger.handlers, logger.propagate = [collected], False  # handed to the parent's loggers, not shown here
        try:
            result, theme, wanted, pdf_variant, attached = pickle.loads(data)
            reply: tuple[str, Any, list[logging.LogRecord]] = ("ok", _make(result, theme, wanted, pdf_variant, attached),
                                                                 collected.records)
        except BaseException:  # noqa: BLE001  (the parent makes the pages and meets the error itself)
            reply = ("failed", traceback.format_exc(), [])
        try:
            text = pickle.dumps(reply, protocol=pickle.HIGHEST_PROTOCOL)
        except Exception:  # noqa: BLE001
            text = pickle.dumps(("failed", traceback.format_exc(), []), protocol=pickle.HIGHEST_PROTOCOL)
        with os.fdopen(replies, "wb") as pipe:
            pipe.write(text)
    finally:
        os._exit(0)


def _make(result: ComparisonResult, theme: Theme, wanted: list[str], pdf_variant: str | None,
          attached: dict[str, bytes] | None) -> dict[str, bytes]:
    """The pages, in the order one process makes them (the PDF first: laid out while the figures
    are drawn), as bytes."""
    out: dict[str, bytes] = {}
    docs = Documents(result, theme, pdf_variant, attached)
    try:
        with young_collections_only(), tempfile.TemporaryDirectory(prefix="reportgen-pages-") as folder:
            for fmt in wanted:
                path = Path(folder) / f"report.{fmt}"
                (docs.write_pdf if fmt == "pdf" else docs.write_html)(path)
                out[fmt] = path.read_bytes()
    finally:
        docs.close()
    return out


def preload() -> None:
    """Import what the pages need and compile the shipped templates: what the report process does
    as it starts, while the parent reads the data. A process that calls it first hands all that
    to the report processes it forks (a long-lived host running several reports, or a benchmark
    that keeps imports out of its timings). A failure here is met again where the pages need
    what failed."""
    try:
        import concurrent.futures.process  # noqa: F401, PLC0415  (the figure workers' pool)
        import multiprocessing  # noqa: F401, PLC0415

        import matplotlib.backends.backend_svg  # noqa: F401, PLC0415  (savefig's SVG canvas)

        import reportgen.report.figures  # noqa: F401, PLC0415
        import reportgen.report.render as render  # noqa: PLC0415
        import reportgen.report.weasyprint_tuning as tuning  # noqa: PLC0415

        tuning.import_weasyprint()
        render.compile_templates()  # the shipped theme's (a custom theme's are compiled when used)
    except Exception:  # noqa: BLE001, S110
        pass


__all__ = ["Documents", "ReportProcess", "PAGES", "PROCESS_ENV", "preload"]
