"""Command line: ``reportgen run | validate | render | history | init``. The only place that prints or exits.

Exit codes: 0 success, 2 a user error (config, data, output), 1 an internal error, 3 the report
was written but a ``checks:`` rule (a gate) failed, 143 / 130 after SIGTERM / SIGINT. A user error
prints one line ``reportgen: error: <where>: <what> ; <what to do>`` and no traceback unless
``--debug``. ``run`` takes several configs; the exit code is the
worst of them. ``--now`` travels as a value (``analyse(now=...)``), never through the environment.

Warnings are logged where they arise (one logger per module under ``reportgen``); ``main``
shows them on stderr as ``reportgen: warning: <message>`` through a handler on the ``reportgen``
logger for the length of the call (``--quiet``: errors only). They still propagate, so a root
handler (an Airflow task's log) receives them too, and they are kept in ``metrics.json``.
"""

from __future__ import annotations

import argparse
import atexit
import dataclasses
import functools
import logging
import os
import shutil
import signal
import string
import sys
import threading
import time
import traceback
from collections.abc import Callable, Iterator, Sequence
from contextlib import ExitStack, contextmanager
from dataclasses import dataclass
from pathlib import Path
from typing import TYPE_CHECKING, Any, NoReturn

import reportgen.clock as clock
from reportgen.errors import ConfigError, HistoryError, OutputError, ReportgenError, UserError
from reportgen.redact import masked
from reportgen.report.writer import Reservation, output_path, private_tempdir, reserve, shown_tempdir, write_outputs
from reportgen.signals import Interrupted, answer_signals_early, command_finished, handlers
from reportgen.terminal import one_line
from reportgen.value import Value
from reportgen.version import __version__

if TYPE_CHECKING:
    from reportgen.config import Config
    from reportgen.history import Entry

EXIT_OK, EXIT_INTERNAL, EXIT_USER = 0, 1, 2
#: ``run``: the report was written but a ``checks:`` rule of the config failed (a scheduler's alert).
EXIT_CHECK = 3
#: ``run``: the report was written but logging it to MLflow failed (:class:`~reportgen.errors.TrackingError`).
EXIT_TRACKING = 4
#: ``--pdf-variant`` choices (:data:`reportgen.report.render.PDF_VARIANTS`; written here so that
#: ``--help`` imports no renderer; a test checks the two agree).
PDF_VARIANTS = ("pdf/a-3b", "pdf/a-3u")
#: ``--format`` choices (:data:`reportgen.report.render.FORMATS`; written here so that parsing the
#: arguments imports no renderer: that took 0.45 s, before the signal handlers; a test checks).
FORMATS = ("html", "pdf", "json", "csv", "xlsx")
#: Exit codes after SIGINT and SIGTERM (128 + the signal number, as a shell reports them).
EXIT_SIGINT, EXIT_SIGTERM = 128 + signal.SIGINT, 128 + signal.SIGTERM
INTERRUPTED = (EXIT_SIGINT, EXIT_SIGTERM)


def _parse_formats(text: str) -> list[str]:
    items = [f.strip().lower() for f in text.split(",") if f.strip()]
    bad = [f for f in items if f not in FORMATS]
    if bad or not items:
        raise argparse.ArgumentTypeError(f"unknown format {', '.join(bad) or text!r}; choose from {', '.join(FORMATS)}")
    return items


def _local_dir(text: str) -> str:
    """``--out``: a local directory, as ``output.dir`` (docs/user-guide/your-data.md, "Outputs stay local"): a remote URI
    is a command-line mistake (``--out s3://b/x`` wrote a local directory named ``s3:``), a
    ``file://`` URI its local path."""
    from reportgen.config import local_path, scheme_of  # noqa: PLC0415  (yaml: not for --help)

    if scheme_of(text) is None:
        return text
    try:
        return local_path(text)
    except ValueError as exc:
        raise argparse.ArgumentTypeError(str(exc).replace("this path must be local", "--out must be local")) from None


class _Parser(argparse.ArgumentParser):
    """argparse, with a command-line mistake reported as every other user error: one line on
    stderr, exit 2 (argparse prints its multi-line usage block first; a scheduler's log then
    shows seven lines for one wrong flag). ``--help`` still prints the usage."""

    def error(self, message: str) -> NoReturn:
        # an unrecognised argument is quoted as typed
        self.exit(EXIT_USER, f"reportgen: error: {one_line(masked(message))}; see '{self.prog} --help'\n")


#: The distribution's name on PyPI (the import package and the command are ``reportgen``).
DISTRIBUTION = "classifier-comparison-report"
EXIT_CODES = (
    "Exit codes: 0 success, 2 bad config/data/output, 3 a check (gate) failed, "
    "4 written but not logged to MLflow, 1 internal error."
)


def documentation_line() -> str:
    """Where the documentation is: the ``Documentation`` URL of the installed distribution's
    metadata (``[project.urls]`` in pyproject.toml), so a pip user is sent to a page they can
    open, not to a README they do not have."""
    from importlib import metadata  # noqa: PLC0415  (0.2-0.3 s to import: only when help is printed)

    try:
        urls = metadata.metadata(DISTRIBUTION).get_all("Project-URL") or []
    except metadata.PackageNotFoundError:
        urls = []
    for entry in urls:
        label, _, url = entry.partition(",")
        if label.strip().lower() == "documentation" and url.strip():
            return f"Documentation: {url.strip()}"
    return f"Documentation: see the project page of {DISTRIBUTION} on PyPI (package metadata not found)"


class _TopParser(_Parser):
    """The ``reportgen`` parser: its epilog names the documentation, looked up only when the help
    is printed (importlib.metadata costs about 0.2 s to import on a busy machine; every command
    would pay it)."""

    def format_help(self) -> str:
        self.epilog = f"{EXIT_CODES}\n{documentation_line()}"  # on its own line, the URL unbroken
        return super().format_help()


def build_parser() -> argparse.ArgumentParser:
    p = _TopParser(
        prog="reportgen",
        formatter_class=argparse.RawDescriptionHelpFormatter,
        description="Compare classification models and write the evidence up as HTML, PDF and metrics.json.",
        epilog=EXIT_CODES,
    )
    p.add_argument("--version", action="version", version=f"reportgen {__version__}")
    sub = p.add_subparsers(dest="command", metavar="COMMAND")

    common = _TopParser(add_help=False)  # a parent of arguments only: the subcommands' own class
    common.add_argument("--debug", action="store_true", help="show tracebacks")
    common.add_argument("--quiet", "-q", action="store_true", help="print nothing but errors")

    run = sub.add_parser("run", parents=[common], help="compare the models of one or more configs and write reports")
    run.add_argument("configs", nargs="+", metavar="CONFIG", help="YAML config file(s)")
    run.add_argument(
        "--out",
        metavar="DIR",
        type=_local_dir,
        help="output directory (default: output.dir of the config); "
        "with several configs, each writes to DIR/<config name>",
    )
    run.add_argument(
        "--format",
        dest="formats",
        type=_parse_formats,
        metavar="LIST",
        help="comma-separated subset of html,pdf,json,csv,xlsx (default: output.formats of the config); "
        "csv: metrics, comparisons, thresholds (and checks) tables; xlsx: one workbook of them",
    )
    run.add_argument("--overwrite", action="store_true", help="replace an existing report in the output directory")
    run.add_argument("--now", metavar="ISO8601", help="pin the report's timestamp (reproducible output)")
    run.add_argument(
        "--engine",
        choices=("memory", "stream", "dask"),
        help="memory (default), stream (record batches, bounded memory) or dask (a cluster)",
    )
    run.add_argument(
        "--scheduler", metavar="ADDRESS", help="Dask scheduler (tcp://host:8786); default: a local cluster"
    )
    run.add_argument(
        "--set",
        dest="overrides",
        action="append",
        default=[],
        metavar="KEY=VALUE",
        help="override a config key, validated like the file (repeatable): "
        "--set models[1].file=b.parquet --set bootstrap.seed=7",
    )
    run.add_argument("--pdf-variant", choices=PDF_VARIANTS, help="archival PDF/A with metrics.json embedded")
    run.add_argument(
        "--mlflow",
        metavar="URI",
        help="log each report to this MLflow tracking URI once written (overrides mlflow.tracking_uri; "
        "experiment: mlflow.experiment, else the config's name)",
    )
    run.add_argument(
        "--full-curves",
        action="store_true",
        help="store every curve point the engine kept in metrics.json (default: simplified as drawn)",
    )
    _summary_option(run)

    val = sub.add_parser("validate", parents=[common], help="check configs and their data; render nothing")
    val.add_argument("configs", nargs="+", metavar="CONFIG")
    val.add_argument(
        "--set",
        dest="overrides",
        action="append",
        default=[],
        metavar="KEY=VALUE",
        help="override a config key, as for run",
    )
    _summary_option(val)

    his = sub.add_parser("history", parents=[common], help="print the runs recorded in a history store")
    his.add_argument("store", metavar="PATH", help="the history store (history.path of a config)")
    his.add_argument(
        "--format",
        dest="history_format",
        choices=("text", "csv", "json"),
        default="text",
        help="text (one line per run, default), csv or json",
    )

    ren = sub.add_parser("render", parents=[common], help="re-render a report from a saved metrics.json")
    ren.add_argument("result", metavar="METRICS_JSON")
    ren.add_argument(
        "--out", metavar="DIR", type=_local_dir, help="output directory (default: the directory of METRICS_JSON)"
    )
    ren.add_argument("--format", dest="formats", type=_parse_formats, default=["html", "pdf"], metavar="LIST")
    ren.add_argument("--theme", metavar="DIR", help="template directory overriding any template or report.css")
    ren.add_argument("--logo", metavar="FILE", help="logo to show (the one named in the JSON is never opened)")
    ren.add_argument("--overwrite", action="store_true", default=True, help=argparse.SUPPRESS)
    ren.add_argument("--pdf-variant", choices=PDF_VARIANTS, help="archival PDF/A with the metrics.json embedded")
    ren.add_argument(
        "--allow-edited",
        action="store_true",
        help="render a metrics.json whose results do not match their digest, every page marked EDITED "
        "(refused by default)",
    )
    _summary_option(ren)

    ini = sub.add_parser("init", parents=[common], help="write a commented starter config from data files' columns")
    ini.add_argument(
        "data",
        nargs="+",
        metavar="DATAFILE",
        help="CSV or Parquet file(s) with a label column: one file, one model per score column; "
        "several files, one model per file (the first the baseline)",
    )
    ini.add_argument(
        "--out", "-o", metavar="CONFIG", help="config file to write (default: <first DATAFILE name>.yaml here)"
    )
    ini.add_argument("--overwrite", action="store_true", help="replace an existing config file")
    return p


log = logging.getLogger(__name__)


def _summary_option(parser: argparse.ArgumentParser) -> None:
    """``--summary-json`` (:mod:`reportgen.summary`) on a command that runs configs or renders."""
    parser.add_argument(
        "--summary-json",
        action="store_true",
        help="end stdout with one line of JSON: paths written, verdicts, checks, exit code and reason "
        "(printed with --quiet too, and on failure)",
    )


def _emit(name: str, text: str) -> None:
    """Write ``text`` to ``sys.stdout`` or ``sys.stderr`` (``name``), whatever became of it.

    A scheduler or a shell may start the command with the stream closed (``2>&-``: Python's
    ``sys.stderr`` is then None), give it a pipe whose reader has left (``| head -1``) or a file
    on a full disk. Writing there raised after the report was written, or before it (stderr's
    ``isatty``): exit 1, "internal error". The text is dropped (the exit code still tells), and
    the stream's descriptor is pointed at /dev/null so that the interpreter's own last flush
    does not fail again (a traceback and exit 120)."""
    stream = getattr(sys, name)
    if stream is None:
        return
    status = Phases.current
    if status is not None and status.stream is stream:  # a line of its own, not the status line's end
        status.let_through(lambda erase: _write(stream, erase + text))
    else:
        _write(stream, text)


def _write(stream, text: str) -> None:
    """:func:`_emit`'s write: the text, or nothing when the stream is gone."""
    try:
        stream.write(_encodable(text, stream))
        stream.flush()
    except (OSError, ValueError):  # EPIPE, ENOSPC, EIO; ValueError: the stream was closed
        try:
            devnull = os.open(os.devnull, os.O_WRONLY)
            try:
                os.dup2(devnull, stream.fileno())
            finally:
                os.close(devnull)
        except (OSError, ValueError, AttributeError):  # no descriptor (an in-memory stream)
            pass


class _StderrWarnings(logging.Handler):
    """``reportgen: warning: <one line>`` on stderr; remembers what it showed (``seen``)."""

    def __init__(self, quiet: bool) -> None:
        super().__init__(logging.WARNING)
        self.quiet = quiet
        self.seen: set[str] = set()

    def format(self, record: logging.LogRecord) -> str:
        return f"reportgen: {record.levelname.lower()}: {one_line(masked(record.getMessage()))}"

    def emit(self, record: logging.LogRecord) -> None:
        self.seen.add(record.getMessage())
        if record.levelno >= logging.ERROR or not self.quiet:
            _emit("stderr", self.format(record) + "\n")


@contextmanager
def _warnings_on_stderr(quiet: bool) -> Iterator[_StderrWarnings]:
    """The handler of :class:`_StderrWarnings` on the ``reportgen`` logger while the block runs
    (``main`` also runs in-process: tests, library users), removed after."""
    handler = _StderrWarnings(quiet)
    logger = logging.getLogger("reportgen")
    logger.addHandler(handler)
    try:
        yield handler
    finally:
        logger.removeHandler(handler)


def _init(args: argparse.Namespace, printer: _Printer) -> int:
    """``reportgen init``: the starter config (:mod:`reportgen.starter`), never over a file unasked."""
    from reportgen.starter import starter_config, stem_of  # noqa: PLC0415

    target = Path(args.out) if args.out else Path(f"{stem_of(Path(args.data[0]))}.yaml")
    if target.exists() and not args.overwrite:
        raise UserError(f"{target}: already exists; pass --overwrite or choose another file with --out")
    text = starter_config(args.data, target)
    # whole or nothing: a full disk left a truncated config, which the next init then refused to
    # replace ("already exists") and validate read as the user's
    tmp = target.with_name(f".{target.name}.reportgen-tmp.{os.getpid()}")
    try:
        tmp.write_text(text, encoding="utf-8")
        os.replace(tmp, target)
    except OSError as exc:
        tmp.unlink(missing_ok=True)
        raise OutputError(
            f"{target}: cannot write the config ({exc.strerror or exc}); choose another file with --out"
        ) from None
    printer.info(
        f"{' '.join(args.data)}: wrote {target}; check the guessed columns, then run: reportgen validate {target}"
    )
    return EXIT_OK


def _encodable(text: str, stream: object) -> str:
    """``text`` as ``stream`` can encode it: a path's undecodable byte (held as a lone surrogate)
    shown as the byte it is (``caf\\xe9``), a character outside the stream's encoding (an ASCII
    locale) escaped. Under a UTF-8 locale stdout is strict, so printing the "wrote" line of a
    report written to such a path raised UnicodeEncodeError: exit 1 after a successful run."""
    encoding = getattr(stream, "encoding", None) or "utf-8"
    try:
        text.encode(encoding)
    except (UnicodeEncodeError, LookupError):
        shown = text.encode("utf-8", "surrogateescape").decode("utf-8", "backslashreplace")
        try:
            return shown.encode(encoding, "backslashreplace").decode(encoding)
        except LookupError:
            return shown.encode("ascii", "backslashreplace").decode("ascii")
    return text


class _Printer:
    def __init__(self, quiet: bool) -> None:
        self.quiet = quiet
        self.errors: list[str] = []  # the error lines printed, for --summary-json

    def info(self, msg: str) -> None:
        if not self.quiet:
            _emit("stdout", f"{one_line(msg)}\n")

    def error(self, msg: str) -> None:
        self.errors.append(one_line(masked(msg)))
        _emit("stderr", f"reportgen: error: {self.errors[-1]}\n")

    def phases(self, label: str) -> Phases | None:
        """A :class:`Phases` line on stderr, or None when quiet or stderr is not a terminal (or closed)."""
        if self.quiet or sys.stderr is None or not sys.stderr.isatty():
            return None
        return Phases(label, sys.stderr)


class Phases:
    """One status line on a terminal for the phase under way (reading, intervals, figures, PDF, …).

    A phase shows only once it has lasted :attr:`AFTER` seconds (short runs print nothing);
    then a ticker thread rewrites the line every :attr:`EVERY` seconds with the elapsed time and
    the last progress count (``progress(done, total)``, e.g. bootstrap resamples), and the
    line ends with the phase's duration when the next phase starts or :meth:`close` is called.
    One thread writes, so the line is never interleaved.
    """

    AFTER = 2.0
    EVERY = 0.5
    #: The status line open on the terminal, if any: :func:`_emit` erases it before a warning or
    #: an error line (``…3/3 6 sreportgen: warning: …`` ran on from it), and the next tick redraws it.
    current: Phases | None = None

    def __init__(self, label: str, stream) -> None:
        from reportgen.pipeline import READING  # noqa: PLC0415  (a run's module: not for --help)

        self.label, self.stream = label, stream
        self.reading = READING  # the phase whose count is the input's bytes read
        self.lock = threading.Lock()
        self.name: str | None = None
        self.started = 0.0
        self.count = ""
        self.shown = False
        self.last = ""
        self.stop = threading.Event()
        self.thread = threading.Thread(target=self._tick, name="reportgen-progress", daemon=True)
        self.thread.start()
        Phases.current = self

    def __call__(self, name: str) -> None:
        """Start phase ``name`` (ending the previous one)."""
        with self.lock:
            self._end()
            self.name, self.started, self.count, self.shown = name, time.monotonic(), "", False

    def progress(self, done: int, total: int) -> None:
        """The current phase's count (the engine's ``Progress`` callback): ``done/total`` of a few
        things (files, models), a percentage of many (resamples; the bytes of the input, which
        the reading phase says it has read: its reduction goes on after 100 %)."""
        if total <= 100:
            self.count = f" {done}/{total}"
            return
        share = min(100, done * 100 // total)
        self.count = f" {share} % read" if self.name == self.reading else f" {share} %"

    def close(self) -> None:
        with self.lock:
            self._end()
            self.name = None
        self.stop.set()
        self.thread.join()
        if Phases.current is self:
            Phases.current = None

    def let_through(self, write: Callable[[str], None]) -> None:
        """Run ``write`` (another line for the stream) with what erases the status line shown, to
        write first; the next tick draws the status line again below."""
        with self.lock:
            erase = "\r\033[K" if self.last else ""
            self.last = ""
            write(erase)

    def _end(self) -> None:
        if self.name is not None and self.shown:
            self.stream.write(f"\r{self.label}: {self.name} done in {time.monotonic() - self.started:.1f} s\033[K\n")
            self.stream.flush()
        self.last = ""  # the line ended: nothing on screen to erase or to leave as it is

    def _tick(self) -> None:
        while not self.stop.wait(self.EVERY):
            with self.lock:
                if self.name is None:
                    continue
                elapsed = time.monotonic() - self.started
                if elapsed < self.AFTER:
                    continue
                line = f"\r{self.label}: {self.name}…{self.count} {elapsed:.0f} s\033[K"
                if line != self.last:
                    self.shown, self.last = True, line
                    self.stream.write(line)
                    self.stream.flush()


@dataclass(frozen=True, repr=False, eq=False)
class _Job(Value):
    """One config of a ``run``, loaded, with its output directory when known before computing."""

    path: str
    cfg: Config
    cfg_path: Path
    planned: Path | None


def _dir_name(value: str, placeholder: str, cfg_path: Path, fix: str) -> str:
    """``value`` as one directory name: never empty, ``.``, ``..`` or holding a path separator
    (a config named ``...yaml`` would otherwise write its report into the parent directory)."""
    if value in ("", ".", "..") or any(c in value for c in ("/", "\\", "\0")):
        raise ConfigError(f"{cfg_path}: {placeholder} would be {value!r}, which cannot name an output directory; {fix}")
    return value


def _placeholders(template: str) -> set[str]:
    return {f for _, f, _, _ in string.Formatter().parse(template) if f}


def _planned_dir(cfg: Config, cfg_path: Path, out: str | None, several: bool) -> Path | None:
    """The output directory when it is known before computing (``--out``, or ``output.dir``
    without ``{date}`` or ``{run_id}``), so that it is checked and locked before any work."""
    if not out and _placeholders(cfg.output.dir) & {"date", "run_id"}:
        return None
    return _output_dir(cfg, cfg_path, out, several, run_id="", created="")


def _output_dir(cfg: Config, cfg_path: Path, out: str | None, several: bool, run_id: str, created: str) -> Path:
    """Where this config's report goes: ``--out`` (``DIR/<config name>`` with several configs;
    relative to the working directory, as any path on the command line) or ``output.dir`` with
    its placeholders expanded, each to a single safe directory name, relative to the config
    file's directory like every other path in the config. Not the working directory: a
    scheduler's (Airflow's BashOperator runs each task in a temporary directory it deletes
    afterwards) would take the report with it."""
    if out:
        base = Path(out)
        return (
            base / _dir_name(cfg_path.stem, "the config's name", cfg_path, "rename the config file")
            if several
            else base
        )
    # placeholders were checked when the config was loaded (OutputConfig)
    used = _placeholders(cfg.output.dir)
    values = {
        "config": _dir_name(cfg_path.stem, "{config}", cfg_path, "rename the config file or change output.dir")
        if "config" in used
        else "",
        "date": created[:10],
        "run_id": _dir_name(run_id, "{run_id}", cfg_path, "change output.dir") if "run_id" in used else "",
    }
    return cfg_path.parent / cfg.output.dir.format(**values)


def _prepare(path: str, args: argparse.Namespace, several: bool) -> _Job:
    from reportgen.config import load_config  # noqa: PLC0415
    from reportgen.config_base import json_data  # noqa: PLC0415

    cfg, cfg_path = load_config(path, args.overrides)
    overrides = {k: v for k, v in (("engine", args.engine), ("scheduler", args.scheduler)) if v is not None}
    if getattr(args, "mlflow", None):  # --mlflow URI: the config's block with this URI, or a new one
        block = json_data(cfg.mlflow) if cfg.mlflow is not None else {"experiment": cfg_path.stem}
        from reportgen.tracking import tracking_uri  # noqa: PLC0415

        # a relative store on the command line is relative to the current directory, as --out is
        overrides["mlflow"] = {**block, "tracking_uri": tracking_uri(args.mlflow, Path.cwd())}
    if overrides:
        cfg = cfg.with_overrides(**overrides)
    planned = _planned_dir(cfg, cfg_path, args.out, several)
    return _Job(path, cfg, cfg_path, output_path(planned) if planned is not None else None)


def _run_one(job: _Job, args: argparse.Namespace, printer: _Printer, written: dict[Path, Path]) -> int:
    """Compute one config and write its report set; ``written`` maps the directories this batch
    wrote to their config (a second config resolving to one of them is refused)."""
    from reportgen.config_base import json_data  # noqa: PLC0415
    from reportgen.pipeline import analyse  # noqa: PLC0415
    from reportgen.report.theme import Theme  # noqa: PLC0415

    cfg, cfg_path = job.cfg, job.cfg_path
    overwrite = args.overwrite or cfg.output.overwrite
    # the reservation, once taken: a signal after its commit (while the previous set is removed,
    # the lock released) is reported with the new report's paths, never as "nothing was written"
    reserved: list[Reservation | None] = []
    formats = args.formats or list(cfg.output.formats)
    try:
        with ExitStack() as stack:
            held = stack.enter_context(reserve(job.planned, overwrite)) if job.planned is not None else None
            reserved.append(held)
            if job.planned is not None:
                _apart(cfg, cfg_path, job.planned)
            if cfg.history is not None:  # a store that cannot be written: exit 2 now, while nothing is written
                from reportgen.history import check_writable  # noqa: PLC0415

                check_writable(cfg.history.path)
            phases = printer.phases(cfg_path.name)
            if phases is not None:
                stack.callback(phases.close)
            result = analyse(cfg, cfg_path, None if phases is None else phases.progress, now=args.now, phase=phases)
            if cfg.history is not None:  # the trend of earlier runs, this one last
                from reportgen.history import with_trend  # noqa: PLC0415

                result = with_trend(result, cfg.history.path, cfg.history.trend_runs)
            out_dir = output_path(
                _output_dir(cfg, cfg_path, args.out, len(args.configs) > 1, result.run.run_id, result.run.created)
            )
            if held is None:
                if out_dir in written:
                    raise OutputError(
                        f"{out_dir}: {written[out_dir]} of this batch already wrote its report here; "
                        f"give each config its own output.dir (e.g. with {{config}}) and rerun"
                    )
                _apart(cfg, cfg_path, out_dir)
                held = stack.enter_context(reserve(out_dir, overwrite))
                reserved.append(held)
            theme = Theme.from_config(json_data(cfg.report))
            # the run's history entry is committed with the report set: both or neither
            entry: Entry | None = None
            if cfg.history is not None:
                from reportgen.history import Entry  # noqa: PLC0415  (sqlite3: only for a history)

                entry = Entry(cfg.history.path, result)
            unrecorded: HistoryError | None = None
            try:
                targets = write_outputs(
                    result,
                    out_dir,
                    formats,
                    theme=theme,
                    overwrite=overwrite,
                    reservation=held,
                    pdf_variant=args.pdf_variant,
                    full_curves=args.full_curves,
                    phase=phases,
                    along=None if entry is None else entry.prepared,
                )
            except Interrupted as exc:
                if exc.written and entry is not None and not entry.committed:
                    exc.unrecorded = entry.path
                raise
            except HistoryError as exc:
                if held.written is None:
                    raise HistoryError(f"{exc}; nothing was written, the previous report is intact") from None
                # the entry's commit failed just after the report's: said after the report's lines
                targets = held.written
                unrecorded = HistoryError(
                    f"{exc}; the report was written ({', '.join(map(str, targets.values()))}) "
                    f"but this run is missing from the history"
                )
        written[out_dir] = cfg_path  # its warnings were logged as they arose (and are in run.warnings)
        printer.info(f"{cfg_path}: wrote {', '.join(str(p) for p in targets.values())}")
        code = _gate(result, cfg_path, printer)
        if cfg.mlflow is not None:  # after the report set is in place: a failure here never touches it
            code = _worst(code, _track(result, list(targets.values()), cfg, cfg_path, printer, args.debug))
        if unrecorded is not None:
            raise unrecorded
        if args.summary is not None:
            args.summary.written(job.path, targets, result, code)
        return code
    except Interrupted as exc:
        committed = reserved[-1].written if reserved and reserved[-1] is not None else None
        if exc.written is None and committed is not None:
            exc.written = committed
        raise


def _apart(cfg: Config, cfg_path: Path, out_dir: Path) -> None:
    """Refuse an output directory tangled with the run's other files.

    A history store inside it: each run replaces the directory as a whole, so the store went
    with the previous set (the trend lost) and, recreated in the new one, made the next run
    refuse the directory as holding a file reportgen did not write. The directory inside an
    input dataset (a directory of Parquet parts): the report's files became parts of the
    dataset, and the next run failed reading ``metrics.json`` as Parquet."""
    from reportgen.config import is_folded  # noqa: PLC0415

    if cfg.history is not None and Path(os.path.realpath(cfg.history.path)).is_relative_to(out_dir):
        raise ConfigError(
            f"{cfg.where('history', 'path')}: {cfg.history.path} lies inside the output directory {out_dir}, "
            f"which every run replaces as a whole; keep the history store outside it"
        )
    for i, m in enumerate(cfg.models):
        for key in ("file", "reference"):
            data = getattr(m, key)
            if data is None or is_folded(data) or not data.is_dir():
                continue
            if out_dir.is_relative_to(Path(os.path.realpath(data))):
                raise ConfigError(
                    f"{cfg.where('models', i, key)}: the output directory {out_dir} lies inside the "
                    f"dataset {data}, whose every file is read as a part; write the report elsewhere"
                )


def _gate(result, cfg_path: Path, printer: _Printer) -> int:
    """Exit 3 when a ``checks:`` rule failed (the report is written either way), one line each."""
    bad = [c for c in result.checks if not c.passed]
    for c in bad:
        printer.error(f"{cfg_path}: check failed: {c.rule}: {c.detail}")
    if result.checks and not bad:
        printer.info(f"{cfg_path}: all {len(result.checks)} check(s) passed")
    return EXIT_CHECK if bad else EXIT_OK


def _track(result, files: list[Path], cfg: Config, cfg_path: Path, printer: _Printer, debug: bool) -> int:
    """Log the written report to MLflow (:func:`reportgen.tracking.log_run`); a failure is one
    line and exit 4, the report set left as written."""
    from reportgen.errors import TrackingError  # noqa: PLC0415
    from reportgen.tracking import log_run  # noqa: PLC0415

    assert cfg.mlflow is not None
    try:
        run_id, _ = log_run(result, files, cfg.mlflow, cfg_path.parent)
    except TrackingError as exc:
        if debug:
            traceback.print_exc()
        printer.error(f"{cfg_path}: {exc}; the report was written and is complete")
        return EXIT_TRACKING
    printer.info(f"{cfg_path}: logged to MLflow run {run_id} (experiment {cfg.mlflow.experiment!r})")
    return EXIT_OK


def _worst(a: int, b: int) -> int:
    """The worse of two exit codes: a report written but not logged to MLflow (4) ranks below a
    failed check (3), which ranks below an error (1, 2), so a batch with a broken config and a
    failed gate exits 2, not 3 (the gate's report was written)."""
    rank = {EXIT_OK: 0, EXIT_TRACKING: 1, EXIT_CHECK: 2}
    return max(a, b, key=lambda c: (rank.get(c, 3), c))


def _run_batch(args: argparse.Namespace, printer: _Printer) -> int:
    """Check ``--now`` and every config, refuse two configs writing one directory, then run.

    A config that fails to load is reported and skipped (the others run; the exit code is
    the worst); a clash of output directories stops the whole batch before any work.
    """
    several = len(args.configs) > 1
    jobs: list[_Job] = []

    def check_clock() -> int:
        clock.now(args.now)  # a bad --now / REPORTGEN_NOW / SOURCE_DATE_EPOCH: exit 2 before any work
        return EXIT_OK

    def prepare(path: str) -> int:
        jobs.append(_prepare(path, args, several))
        return EXIT_OK

    code = _guarded(check_clock, "--now", printer, args.debug, writes=True)
    if code != EXIT_OK:
        return code
    worst = EXIT_OK
    for path in args.configs:
        code = _guarded(functools.partial(prepare, path), path, printer, args.debug, writes=True)
        _failed(args, path, code, printer)
        if code in INTERRUPTED:
            return code
        worst = _worst(worst, code)
    seen: dict[Path, _Job] = {}
    for job in jobs:
        if job.planned is None:
            continue
        if job.planned in seen:
            first = seen[job.planned]
            if first.cfg_path == job.cfg_path:
                printer.error(f"{job.cfg_path}: given twice in one run; give each config once; nothing was run")
                return EXIT_USER
            printer.error(
                f"{job.planned}: configs {first.path} and {job.path} would both write their report here; "
                f"give the config files distinct names (or distinct output.dir) and rerun; nothing was run"
            )
            return EXIT_USER
        seen[job.planned] = job
    written: dict[Path, Path] = {}
    for job in jobs:
        code = _guarded(
            functools.partial(_run_one, job, args, printer, written), job.path, printer, args.debug, writes=True
        )
        _failed(args, job.path, code, printer)
        if code in INTERRUPTED:
            return code
        worst = _worst(worst, code)
    return worst


def _failed(args: argparse.Namespace, source: str, code: int, printer: _Printer) -> None:
    """For ``--summary-json``: ``source`` ended with ``code`` and the last error line printed
    (a report written with a failed check was recorded as written)."""
    if args.summary is not None and code not in (EXIT_OK, EXIT_CHECK):
        args.summary.failed(source, code, printer.errors[-1] if printer.errors else None)


def _validate_one(path: str, printer: _Printer, shown: _StderrWarnings, overrides: Sequence[str] = ()) -> int:
    from reportgen.io.files import rows_as_lines  # noqa: PLC0415
    from reportgen.io.filesystems import shown_errors  # noqa: PLC0415

    # a URI input is named as written (s3://b/k), not in the form a Path holds; a row as the file's line
    with shown_errors(), rows_as_lines():
        return _validate_checked(path, printer, shown, overrides)


def _validate_checked(path: str, printer: _Printer, shown: _StderrWarnings, overrides: Sequence[str] = ()) -> int:
    """``reportgen validate`` of one config: the data checked as a run checks it, then the credit
    section's own inputs — in the run's order (a run reduces the data before it reads the credit
    section), so that an input with a fault in both gives the run's message, in every engine."""
    from reportgen.config import load_config  # noqa: PLC0415

    cfg, cfg_path = load_config(path, overrides)
    if cfg.history is not None:  # the store a run would append to: readable, writable, nothing created
        from reportgen.history import check_usable  # noqa: PLC0415

        check_usable(cfg.history.path)
    verdict = _validate_data(cfg, cfg_path, shown)
    if cfg.credit is not None or cfg.segment is not None:  # the credit section's own columns and files
        from reportgen.reduce.credit_rows import check_credit  # noqa: PLC0415

        printer.info(f"{cfg_path}: {check_credit(cfg)}")
    if cfg.fairness is not None:  # the fairness section's group columns
        from reportgen.reduce.fairness_rows import check_fairness  # noqa: PLC0415

        printer.info(f"{cfg_path}: {check_fairness(cfg)}")
    if cfg.segments:  # the segment columns, in every model's file
        from reportgen.reduce.segment_rows import check_segments  # noqa: PLC0415
        from reportgen.report.wording import notice_text  # noqa: PLC0415
        from reportgen.results import Notice  # noqa: PLC0415

        if cfg.segment is not None:  # the run's warning, before the run
            log.warning(notice_text(Notice("segment_deprecated", {"column": cfg.segment})))

        printer.info(f"{cfg_path}: {check_segments(cfg)}")
    printer.info(verdict)
    return EXIT_OK


def _validate_data(cfg: Config, cfg_path: Path, shown: _StderrWarnings) -> str:
    """The data of a validated config checked (an error raises): the line to print when it is valid."""
    from reportgen.io.filesystems import shown_text  # noqa: PLC0415

    if any(m.source is not None for m in cfg.models):  # SQL sources: query and check them all
        from reportgen.pipeline import load_evidence  # noqa: PLC0415

        load_evidence(cfg)
        return f"{cfg_path}: OK — {len(cfg.models)} model(s), task {cfg.task}: queries run, every row checked"
    if cfg.engine != "memory":  # bounded memory: the plan and the first batch of each file
        from reportgen.io.files import SMALL_INPUT_BYTES, input_bytes  # noqa: PLC0415
        from reportgen.reduce.local import check_first_batches  # noqa: PLC0415

        checked, whole = check_first_batches(cfg)
        first = ", ".join(f"{shown_text(str(p))} ({n} rows)" for p, n in checked.items())
        # every file one batch, or small inputs: the run's whole-file rules too (classes, both classes
        # present, weight totals, the id join, every part), at the cost of reading them once
        if whole or sum(input_bytes(p) for p in checked) <= SMALL_INPUT_BYTES:
            from reportgen.pipeline import load_evidence  # noqa: PLC0415

            load_evidence(dataclasses.replace(cfg, engine="stream"))  # the same rules, no cluster started
            return (
                f"{cfg_path}: OK — {len(cfg.models)} model(s), task {cfg.task}, engine: {cfg.engine}: "
                f"every row checked ({', '.join(shown_text(str(p)) for p in checked)})"
            )
        return (
            f"{cfg_path}: OK — {len(cfg.models)} model(s), task {cfg.task}, engine: {cfg.engine}: "
            f"files, columns and every part checked; the first batch of each file is valid: {first}"
        )
    from reportgen.reduce.local import check_rows  # noqa: PLC0415

    notices, dropped, rows = check_rows(cfg)
    if notices:  # the wording imports the comparison engine: only when there is something to word
        from reportgen.report.wording import notice_text  # noqa: PLC0415

        for w in map(notice_text, notices):
            if w not in shown.seen:  # the threshold check: reported by the engine in a run, here by validate
                log.warning(w)
    for name, reason, count in dropped:
        log.warning(f"model '{name}': {count} row(s) would be dropped ({reason})")
    return f"{cfg_path}: OK — {len(cfg.models)} model(s), {rows} rows each, task {cfg.task}"


def _render(args: argparse.Namespace, printer: _Printer) -> int:
    from reportgen.clock import now  # noqa: PLC0415
    from reportgen.report.render import Provenance, Theme  # noqa: PLC0415
    from reportgen.results_io import EDITED, read_result  # noqa: PLC0415

    saved = read_result(args.result)
    result = saved.result
    provenance = Provenance(source=args.result, rendered=now().isoformat().replace("+00:00", "Z"), digest=saved.digest)
    d = None
    if args.theme:
        d = Path(args.theme)
        if not d.is_dir():
            raise UserError(f"{d}: --theme must be a directory of templates")
    logo = None
    if args.logo:
        logo = Path(args.logo)
        if not logo.is_file():
            raise UserError(f"{logo}: --logo must be an image file (PNG, JPEG, GIF or SVG)")
    # Nothing in a received metrics.json names a file that is opened: templates come only from
    # --theme, the logo only from --logo.
    theme = Theme.from_saved_result(
        result.run.config.get("report"), template_dir=d, logo=logo, source=args.result, provenance=provenance
    )
    # tamper evidence, once the file is known to be a metrics.json: an edited one is refused unless
    # asked for, then marked on every page; one without a digest (written before 0.2.0, or the
    # key removed) renders marked unverified on every page, with a warning
    if saved.digest == "edited" and not args.allow_edited:
        raise UserError(
            f"{args.result}: {EDITED}; refusing to render it (pass --allow-edited to render it "
            f"with every page marked EDITED)"
        )
    if saved.digest == "edited":
        log.warning(f"{args.result}: {EDITED}; rendered with every page marked EDITED (--allow-edited)")
    elif saved.digest == "missing":
        log.warning(
            f"{args.result}: no digest, so an edit to its results cannot be detected; every page is marked unverified"
        )
    out = Path(args.out) if args.out else Path(args.result).parent
    formats = [f for f in args.formats if f != "json"]
    if not formats:  # the set would be metrics.json alone: the report files would just be dropped
        raise UserError(
            f"{args.result}: render writes html and/or pdf (metrics.json is its input); pass --format html,pdf"
        )
    # the new set replaces the directory's report files as a whole: it keeps the metrics.json it
    # was rendered from (the bytes parsed, byte for byte; never re-serialised, so an edited file
    # keeps a digest that does not match)
    targets = write_outputs(
        result,
        out,
        formats,
        theme=theme,
        overwrite=True,
        extra={"metrics.json": saved.raw},
        pdf_variant=args.pdf_variant,
    )
    printer.info(f"{args.result}: wrote {', '.join(str(p) for p in targets.values())}")
    if args.summary is not None:
        args.summary.written(args.result, targets, result, EXIT_OK)
    return EXIT_OK


def _history(args: argparse.Namespace) -> int:
    """``reportgen history PATH``: the recorded runs on stdout, one line per run (or CSV / JSON)."""
    from reportgen.history import export, read  # noqa: PLC0415

    _emit("stdout", export(read(Path(args.store)), args.history_format))
    return EXIT_OK


def _guarded(fn: Callable[[], int], label: str, printer: _Printer, debug: bool, writes: bool = False) -> int:
    """Run ``fn`` and turn what it raises into one line and an exit code (the only place)."""
    try:
        return fn()
    except UserError as exc:
        if debug:
            traceback.print_exc()
        printer.error(shown_tempdir(str(exc)))
        return EXIT_USER
    except ReportgenError as exc:
        if debug:
            traceback.print_exc()
        printer.error(f"{label}: {shown_tempdir(str(exc))}")
        return exc.exit_code
    except Interrupted as exc:
        if exc.written:
            # what is on disk, and what a rerun must do: the complete report is there, so a rerun
            # without --overwrite is refused ("a report already exists")
            paths = ", ".join(str(p) for p in exc.written.values())
            unrecorded = f"; the run was not recorded in the history {exc.unrecorded}" if exc.unrecorded else ""
            printer.error(
                f"{label}: interrupted by {exc.name} just after the new report was written ({paths}){unrecorded}; "
                f"stopped (the report is complete; to run again, pass --overwrite)"
            )
        elif writes:
            printer.error(f"{label}: interrupted by {exc.name}; nothing was written, the previous report is intact")
        else:
            printer.error(f"{label}: interrupted by {exc.name}")
        return exc.exit_code
    except KeyboardInterrupt:
        printer.error(
            f"{label}: interrupted; nothing was written" + (", the previous report is intact" if writes else "")
        )
        return EXIT_SIGINT
    except MemoryError:
        printer.error(f"{label}: out of memory; try fewer bootstrap resamples or a larger machine")
        return EXIT_INTERNAL
    except Exception as exc:  # noqa: BLE001  (a bug: say so, show the traceback only with --debug)
        if debug:
            traceback.print_exc()
        printer.error(f"{label}: internal error ({type(exc).__name__}: {exc}); rerun with --debug and report it")
        return EXIT_INTERNAL


#: The ``-W`` option handed to multiprocessing's resource tracker (:func:`_quiet_resource_tracker`).
TRACKER_WARNINGS = "ignore::UserWarning:multiprocessing.resource_tracker"


@contextmanager
def _quiet_resource_tracker() -> Iterator[None]:
    """The resource tracker that multiprocessing starts for a local Dask cluster (its nannies'
    queues and locks are named semaphores) is told to keep its leak report to itself.

    After a ``kill -9`` of the run, the tracker outlives it, unlinks the semaphores the run
    left, and warns "There appear to be 12 leaked semaphore objects to clean up at shutdown",
    a two-line UserWarning on the stderr the run inherited (a scheduler's log, the next run's
    lines when both append to one file). It is harmless, and said by a process of ours about
    what it just cleaned up: nothing is left in ``/dev/shm``. The tracker takes its warning
    options from ``sys.warnoptions`` when it starts (``multiprocessing.util._args_from_interpreter_flags``),
    so this one filter reaches it and nothing else; restored on the way out (``main`` is also
    called in-process)."""
    added = TRACKER_WARNINGS not in sys.warnoptions
    if added:
        sys.warnoptions.append(TRACKER_WARNINGS)
    try:
        yield
    finally:
        if added and TRACKER_WARNINGS in sys.warnoptions:
            sys.warnoptions.remove(TRACKER_WARNINGS)


def _arrow_allocator() -> None:
    """The command's pyarrow buffers come from the system allocator (glibc malloc), unless
    ``ARROW_DEFAULT_MEMORY_POOL`` names another.

    pyarrow's default, mimalloc, hands freed pages back to the kernel within milliseconds, so the
    next file's or batch's buffers fault in freshly zeroed pages again. Measured on a three-model
    10M-row run (a new process each, idle 2-core machine): 2.4–3.0 s of kernel time with
    mimalloc, 1.2–1.4 s with the system allocator, 0.7–1.7 s less wall time and a peak about
    100 MB lower (stream: 170 MB); one model: the same time, 60–100 MB less memory. Only the
    ``reportgen`` command sets it (a library does not choose its host's allocator); worker
    processes it starts inherit the variable.
    """
    if "ARROW_DEFAULT_MEMORY_POOL" in os.environ:
        return
    os.environ["ARROW_DEFAULT_MEMORY_POOL"] = "system"
    import pyarrow as pa  # noqa: PLC0415  (the commands that read data import it anyway)

    pa.set_memory_pool(pa.system_memory_pool())


def main(argv: Sequence[str] | None = None) -> int:
    parser = build_parser()
    with handlers(), _quiet_resource_tracker():
        args = None
        try:
            args = _parsed(parser, argv)
            if args.command is None:
                parser.print_help()
                return EXIT_USER
            printer = _Printer(args.quiet)
            args.summary = _summary_of(args)
            with _warnings_on_stderr(args.quiet) as shown:
                code = _command(args, printer, shown)
            failed = code not in (EXIT_OK, EXIT_CHECK) and printer.errors
            _print_summary(args, code, printer.errors[0] if failed else None)
            return code
        except (Interrupted, KeyboardInterrupt) as exc:
            # a signal between the commands' own guards (while the arguments are parsed, while
            # pyarrow is imported, between two configs): the same one line and exit code as
            # inside them, never a traceback
            name = exc.name if isinstance(exc, Interrupted) else "SIGINT"
            code = exc.exit_code if isinstance(exc, Interrupted) else EXIT_SIGINT
            if args is None or args.command is None:
                _Printer(False).error(f"interrupted by {name}; nothing was written")
                return code
            label = " ".join(
                getattr(args, "configs", None)
                or getattr(args, "data", None)
                or [getattr(args, attr) for attr in ("result", "store") if getattr(args, attr, None)]
            )
            writes = args.command in ("run", "render")
            printer = _Printer(args.quiet)
            printer.error(
                f"{label}: interrupted by {name}"
                + ("; nothing was written, the previous report is intact" if writes else "")
            )
            _print_summary(args, code, printer.errors[-1])
            return code


def _parsed(parser: argparse.ArgumentParser, argv: Sequence[str] | None) -> argparse.Namespace:
    """The parsed arguments; arguments refused (exit 2, the usage error on stderr) still end
    stdout with the summary line when ``--summary-json`` was among them."""
    try:
        return parser.parse_args(argv)
    except SystemExit as exc:
        words = sys.argv[1:] if argv is None else list(argv)
        if exc.code == EXIT_USER and "--summary-json" in words:
            from reportgen.summary import Summary  # noqa: PLC0415

            command = next((w for w in words if not w.startswith("-")), "")
            _emit("stdout", Summary(command).line(EXIT_USER, "invalid arguments; see the error on stderr") + "\n")
        raise


def _summary_of(args: argparse.Namespace) -> Any:
    """The :class:`reportgen.summary.Summary` the command fills in with ``--summary-json``, or None."""
    if not getattr(args, "summary_json", False):
        return None
    from reportgen.summary import Summary  # noqa: PLC0415

    return Summary(args.command, list(getattr(args, "configs", None) or [getattr(args, "result", "")]))


def _print_summary(args: argparse.Namespace, code: int, error: str | None = None) -> None:
    """With ``--summary-json``: the summary's one line, last on stdout, ``--quiet`` or not."""
    summary = getattr(args, "summary", None)
    if summary is not None:
        _emit("stdout", summary.line(code, error) + "\n")


def _command(args: argparse.Namespace, printer: _Printer, shown: _StderrWarnings) -> int:
    """Run the parsed command; every user error is one line and its exit code (:func:`_guarded`)."""
    if args.command in ("run", "validate", "render"):
        if args.command != "validate":
            _matplotlib_home()
        with private_tempdir():  # the command's temporary files, gone with it (even after a SIGKILL)
            return _command_with_data(args, printer, shown)
    if args.command == "history":
        return _guarded(lambda: _history(args), args.store, printer, args.debug)
    return _guarded(lambda: _init(args, printer), " ".join(args.data), printer, args.debug)


def _matplotlib_home() -> None:
    """Where matplotlib keeps its font cache when it cannot write its own (a read-only home in a
    container): a ``reportgen-mpl-*`` directory in ``TMPDIR`` as ``MPLCONFIGDIR``, removed at exit.

    matplotlib, finding its configuration or cache directory unwritable, makes a temporary one
    when it is imported — inside the command's private temporary directory, which the command
    removes on its way out; matplotlib's own removal at exit then printed a 7-line
    ``FileNotFoundError`` traceback after a successful run (``--quiet`` too). Nothing changes
    when ``MPLCONFIGDIR`` is set or the usual directories (``XDG_CONFIG_HOME`` / ``~/.config``,
    ``XDG_CACHE_HOME`` / ``~/.cache``) are writable or can be made; nothing is created then."""
    import tempfile  # noqa: PLC0415

    if os.environ.get("MPLCONFIGDIR") or all(_writable_or_makeable(d) for d in _matplotlib_dirs()):
        return
    try:
        home = tempfile.mkdtemp(prefix="reportgen-mpl-")
    except OSError:
        return  # TMPDIR is unwritable too: matplotlib says so itself
    atexit.register(shutil.rmtree, home, ignore_errors=True)
    os.environ["MPLCONFIGDIR"] = home


def _matplotlib_dirs() -> list[Path]:
    """matplotlib's configuration and cache directories when ``MPLCONFIGDIR`` is not set."""
    try:
        home = Path.home()
    except (RuntimeError, KeyError):  # no home directory at all
        return [Path("/nonexistent")]
    return [
        Path(os.environ.get("XDG_CONFIG_HOME") or home / ".config") / "matplotlib",
        Path(os.environ.get("XDG_CACHE_HOME") or home / ".cache") / "matplotlib",
    ]


def _writable_or_makeable(path: Path) -> bool:
    """Whether ``path`` is a writable directory, or could be made (its nearest existing ancestor
    is a writable directory)."""
    while not path.exists():
        if path.parent == path:
            return False
        path = path.parent
    return path.is_dir() and os.access(path, os.W_OK | os.X_OK)


def _command_with_data(args: argparse.Namespace, printer: _Printer, shown: _StderrWarnings) -> int:
    """``run``, ``validate`` or ``render``."""
    if args.command == "render":
        code = _guarded(lambda: _render(args, printer), args.result, printer, args.debug, writes=True)
        _failed(args, args.result, code, printer)
        return code
    _arrow_allocator()
    if args.command == "run":
        return _run_batch(args, printer)
    worst = EXIT_OK
    for path in args.configs:
        code = _guarded(
            functools.partial(_validate_one, path, printer, shown, args.overrides), path, printer, args.debug
        )
        _failed(args, path, code, printer)
        if code == EXIT_OK and args.summary is not None:
            args.summary.validated(path)
        if code in INTERRUPTED:
            return code
        worst = max(worst, code)
    return worst


def entrypoint() -> None:  # pragma: no cover - thin wrapper for the console script
    """The console script: signals answered before argparse runs (:mod:`reportgen.signals`)."""
    answer_signals_early()
    code = main()
    command_finished()
    sys.exit(code)


if __name__ == "__main__":  # pragma: no cover
    entrypoint()
