"""Writing a report set into its output directory: the whole set or nothing, one run at a time.

A report set is ``report.html``, ``report.pdf`` and ``metrics.json`` (the formats asked for).
For a target directory ``P/X`` everything happens beside it, in ``P``::

    P/.reportgen-lock.X           advisory lock (fcntl.flock), held from the checks to the commit
    P/.reportgen-tmp.X.<8 hex>    the new set is rendered here (same filesystem, so renames work);
                                  after the swap it holds the previous set until that is removed
    P/.reportgen-old.X.<8 hex>    the previous set, for the instant between the two renames
    P/X                           the report set, and nothing else

**Commit.** Every format is rendered in the fresh sibling ``tmp`` and its data flushed to disk
(``fsync``); then ``rename(X, old)`` moves the previous set aside and ``rename(tmp, X)`` puts the
new one in place (``os.rename``: atomic within one filesystem, POSIX rename(2)). The second
rename is the commit point. The previous set is then removed. When ``X`` does not exist yet,
``rename(tmp, X)`` alone is the commit.

**What survives a power cut.** A reader, and a run killed at any instant, only ever see whole
sets: that is the renames' doing, with or without a flush. After a power cut (or a kernel
crash) the disk holds what the filesystem had committed: the files' data is flushed before the
commit, so a rename that reached the disk names files whose bytes reached it too (without the
flush, ext4 may commit the rename before the delayed data: a set of empty files). The entries
and the renames are metadata, which journaling filesystems (ext4, XFS, btrfs) commit in the
order they were made; no directory is flushed. So after a power cut the directory holds the old
set or the new one, whole; a run that had just reported its set written may find the old one
back (the commit is durable at the filesystem's next commit, seconds later). One flush per file:
each directory flush waited for the journal again (tens of milliseconds while other programs
write, of a small run's 0.6 s).

**Crash windows (kill -9 at any instant).** (1) Before ``tmp`` exists, or while it is filled:
``X`` is the old set untouched; ``tmp`` is partial. (2) Between the two renames ``X`` is absent
and the complete old set is ``old``: the next run into ``X`` finds ``X`` absent and renames
``old`` back before anything else (a failed second rename is undone at once). (3) After the
commit: ``X`` is the complete new set; ``old`` (or ``tmp``) holds the old set, possibly half
removed. So after any kill the complete old or the complete new set exists, never a mix; the
only strays are dot names beside ``X`` (``.reportgen-*.X.*`` and the lock file), which every
reader ignores and the next run into ``X`` removes, by exact name, under the lock.

**Why the clean-up is safe.** Scratch entries are only created and only removed by a run that
holds the target's lock, and only those whose name carries the target's exact name (``a`` never
touches ``.reportgen-tmp.a.b.<hex>``). So a run never removes a directory another live run is
filling; what it finds was left by a dead one. The lock file itself is unlinked by its holder
before release; a run that locked the unlinked file notices (inode check) and locks again.

**Signals.** The CLI's handlers (:func:`reportgen.signals.handlers`) raise
:class:`~reportgen.signals.Interrupted`, which unwinds through the clean-up here (removing
``tmp``, releasing the lock). During the swap and the clean-up the signal is held back
(:func:`reportgen.signals.held`) and raised right after, so a signal never leaves a half-done
swap or a stray directory.

The directory belongs to reportgen: the new set replaces the previous one *as a whole* (a
``--format html`` run leaves no ``metrics.json`` of an earlier run beside the new report), and a
directory holding anything else is refused rather than emptied. Not kept across a swap: the
directory's owner (the new one is created by this process) and files added to it while a run
is writing (it is locked against other reportgen runs only; the lock is advisory).
"""

from __future__ import annotations

import contextlib
import dataclasses
import errno
import fcntl
import hashlib
import json
import os
import re
import secrets
import shutil
import stat
import sys
import time
from collections.abc import Callable, Iterable, Iterator, Mapping
from contextlib import AbstractContextManager, contextmanager, nullcontext, suppress
from pathlib import Path
from typing import TYPE_CHECKING

from reportgen.errors import OutputError
from reportgen.frames import COLUMNS
from reportgen.signals import Interrupted, held, signal_pending
from reportgen.smallfiles import file_on_the_way

if TYPE_CHECKING:
    from reportgen.report.theme import Theme
    from reportgen.report.views import ReportView
    from reportgen.results import ComparisonResult

#: A transaction committed together with a report set (:meth:`Reservation.write`).
Along = Callable[[], AbstractContextManager[Callable[[], None]]]

FORMATS = ("html", "pdf", "json", "csv", "xlsx")
#: File name of each format; a report directory holds these and nothing else.
FILE_NAMES = {
    "html": "report.html",
    "pdf": "report.pdf",
    "json": "metrics.json",
    "csv": "metrics.csv",
    "xlsx": "tables.xlsx",
}
#: ``csv`` writes one file per frame of the result (:mod:`reportgen.report.export`, the tables of
#: :data:`reportgen.frames.COLUMNS` it has); FILE_NAMES names the first.
CSV_FILES = tuple(f"{name}.csv" for name in COLUMNS)
REPORT_FILES = frozenset(FILE_NAMES.values()) | frozenset(CSV_FILES)
#: Names reportgen gives its own scratch entries (ignored by readers, removed by the next run).
SCRATCH_PREFIX = ".reportgen-"
_SCRATCH = re.compile(r"^\.reportgen-(?P<kind>tmp|old)\.(?P<key>.+)\.[0-9a-f]{8}$")
#: Test-only: ``REPORTGEN_TEST_PAUSE_AT=<point>`` makes a run stop at that named point (see
#: :func:`checkpoint`) so that the tests can kill a real process there.
PAUSE_ENV = "REPORTGEN_TEST_PAUSE_AT"
#: A ``metrics.json`` larger than this is not read to name the run of a report already there.
_RUN_JSON_LIMIT = 64 << 20


def checkpoint(point: str) -> None:
    """Test-only pause: with ``REPORTGEN_TEST_PAUSE_AT=point``, say so on stderr and wait.

    The end-to-end tests kill a real ``reportgen run`` at these points. The wait ends after 60 s,
    or at once when a held-back signal is pending (so a SIGTERM during the swap is not delayed).
    """
    if os.environ.get(PAUSE_ENV) != point:
        return
    sys.stderr.write(f"reportgen: test pause at {point}\n")
    sys.stderr.flush()
    deadline = time.monotonic() + 60
    while time.monotonic() < deadline and not signal_pending():
        time.sleep(0.02)


# --------------------------------------------------------------------------------------
# Directory swap
# --------------------------------------------------------------------------------------


def _fsync(path: Path) -> None:
    """Flush a file's data to disk, so that a commit never names unwritten bytes (module docstring)."""
    fd = os.open(path, os.O_RDONLY)
    try:
        os.fsync(fd)
    finally:
        os.close(fd)


def _key(name: str) -> str:
    """The target's name as used in scratch names; hashed when it would make them too long."""
    return name if len(os.fsencode(name)) <= 200 else "h" + hashlib.sha256(os.fsencode(name)).hexdigest()[:16]


def _scratch(parent: Path, key: str) -> list[tuple[str, Path]]:
    """``(kind, path)`` of this target's scratch directories left in ``parent`` (exact key)."""
    found = []
    try:
        names = os.listdir(parent)
    except FileNotFoundError:
        return []
    for name in names:
        m = _SCRATCH.match(name)
        if m and m.group("key") == key:
            found.append((m.group("kind"), parent / name))
    return found


def _remove(path: Path) -> None:
    if path.is_dir() and not path.is_symlink():
        shutil.rmtree(path, ignore_errors=True)
    else:
        with suppress(FileNotFoundError):
            path.unlink()


# --------------------------------------------------------------------------------------
# Reservation: the lock, the checks, the swap
# --------------------------------------------------------------------------------------


def output_path(out_dir: str | Path) -> Path:
    """The absolute path a report set for ``out_dir`` goes to (symlinks resolved: the swap
    replaces a directory, never a link to one)."""
    out = Path(os.path.realpath(os.path.abspath(os.fspath(out_dir))))
    if out.name in ("", ".", ".."):
        raise OutputError(f"{out}: cannot be an output directory (it is a filesystem root); choose another --out")
    return out


class Reservation:
    """The right to write one output directory, from the checks to the commit.

    Holds the advisory lock; :meth:`write` renders a set into a fresh sibling and swaps it in.
    Create it with :func:`reserve`, which releases it.
    """

    def __init__(self, target: Path, fd: int, lock: Path) -> None:
        self.target = target
        self._fd = fd
        self._lock = lock
        self._key = _key(target.name)
        #: The files of the set swapped in, from the commit point on (None before): a signal raised
        #: later (while the previous set is removed, the lock released, ...) must not be reported
        #: as "nothing was written".
        self.written: dict[str, Path] | None = None

    def write(self, files: Mapping[str, Callable[[Path], object]], along: Along | None = None) -> dict[str, Path]:
        """Write ``files`` (file name → function writing that file) as the directory's new set.

        Returns the absolute path of each file. On any failure nothing is replaced and the
        sibling is removed; an ``OSError`` becomes an :class:`OutputError` saying what to do.
        ``along``: a transaction committed with the set (the run's history entry). Entered once
        the set is staged (its wait may be interrupted: nothing is replaced then); the function
        it yields is called right after the swap, signals still held, so that a signal cannot
        fall between the two commits; leaving it without that call rolls it back.
        """
        target, parent = self.target, self.target.parent
        targets = {name: target / name for name in files}
        tmp = parent / f"{SCRATCH_PREFIX}tmp.{self._key}.{secrets.token_hex(4)}"
        try:
            os.mkdir(tmp)
            with contextlib.suppress(FileNotFoundError):
                os.chmod(tmp, stat.S_IMODE(target.stat().st_mode))  # the directory keeps its mode
            for name, write in files.items():
                write(tmp / name)
                _fsync(tmp / name)
            checkpoint("staged")
            with along() if along is not None else nullcontext(None) as commit:

                def committed() -> None:  # right after the commit point, before anything else
                    self.written = targets
                    if commit is not None:
                        commit()

                try:
                    with held():
                        _swap(self.target, tmp, self._key, committed)
                except Interrupted as exc:  # held back during the swap, raised once the new set was in place
                    exc.written = self.written
                    raise
        except BaseException as exc:
            with held(during=exc):
                _remove(tmp)
            if isinstance(exc, OSError):
                raise OutputError(f"{target}: {_write_failure(exc)}; nothing was replaced") from None
            raise
        try:
            with held():
                _remove(tmp)  # the previous set
        except Interrupted as exc:  # held back while it was removed: the new set is in place
            exc.written = targets
            raise
        return targets

    def _release(self, during: BaseException | None = None) -> None:
        with held(during):
            with contextlib.suppress(FileNotFoundError):
                os.unlink(self._lock)  # while still holding it: see _acquire
            os.close(self._fd)


def _swap(target: Path, tmp: Path, key: str, committed: Callable[[], None]) -> None:
    """Put ``tmp`` in place of the target (the commit point: a rename), then call
    ``committed()`` at once (the history's commit follows the report's with no step between:
    a kill at any later point finds both done); afterwards ``tmp`` holds the previous set, or
    nothing. An ``OSError`` means nothing was replaced (see the module docstring)."""
    parent = target.parent
    if not target.exists():
        os.rename(tmp, target)  # commit point (first run)
        committed()
    else:
        old = parent / f"{SCRATCH_PREFIX}old.{key}.{secrets.token_hex(4)}"
        os.rename(target, old)
        checkpoint("aside")
        try:
            os.rename(tmp, target)  # commit point
        except BaseException:
            os.rename(old, target)
            raise
        committed()
        checkpoint("swapped")
        with contextlib.suppress(OSError):  # left as .reportgen-old.X.*: the next run removes it
            os.rename(old, tmp)  # so that the caller's clean-up removes it


def _write_failure(exc: OSError) -> str:
    """What went wrong while writing, in words a user can act on."""
    if exc.errno in (errno.ENOSPC, errno.EDQUOT):
        return "disk full (no space left on device); free some space or choose another --out"
    if exc.errno in (errno.EACCES, errno.EPERM, errno.EROFS):
        return f"cannot write there ({exc.strerror}); choose another --out"
    if exc.errno == errno.EBUSY:
        return "the directory is in use (a mount point?); write to a subdirectory of it with --out"
    if exc.errno == errno.ENOENT:  # the directory exists but takes no new file (/proc, /sys), or went away
        return f"cannot create files there ({exc.strerror}); choose another --out"
    return f"writing the report failed ({exc.strerror or exc}); choose another --out"


def _acquire(target: Path) -> tuple[int, Path]:
    """Lock ``P/.reportgen-lock.X`` without waiting; refuse if another run holds it.

    The holder unlinks the file before it lets go, so a run that opened the file just before
    may lock a file no longer in the directory: it checks the path still names the inode it
    locked, and starts again if not. A file left by a killed run is simply locked again.
    """
    lock = target.parent / f"{SCRATCH_PREFIX}lock.{_key(target.name)}"
    while True:
        try:
            fd = os.open(lock, os.O_RDWR | os.O_CREAT | os.O_CLOEXEC, 0o644)
        except OSError as exc:
            raise OutputError(f"{target}: {_write_failure(exc)}") from None
        try:
            fcntl.flock(fd, fcntl.LOCK_EX | fcntl.LOCK_NB)
        except BlockingIOError:
            holder = os.read(fd, 32).decode("ascii", "replace").strip()
            os.close(fd)
            who = f" (pid {holder})" if holder.isdigit() else ""
            raise OutputError(
                f"{target}: another reportgen run{who} is writing this directory; "
                f"wait for it to finish or choose another --out"
            ) from None
        try:
            same = os.path.samestat(os.fstat(fd), os.stat(lock))
        except FileNotFoundError:
            same = False
        if same:
            try:
                os.ftruncate(fd, 0)
                os.write(fd, f"{os.getpid()}\n".encode())
            except OSError as exc:  # a full disk fails here first (the lock's one line)
                os.close(fd)
                lock.unlink(missing_ok=True)
                raise OutputError(f"{target}: {_write_failure(exc)}") from None
            return fd, lock
        os.close(fd)


def _recover(target: Path) -> None:
    """Undo what a killed run left for this target: put a set moved aside back, drop scratch."""
    key = _key(target.name)
    leftovers = _scratch(target.parent, key)
    old = sorted((p for kind, p in leftovers if kind == "old"), key=lambda p: p.stat().st_mtime)
    if old and not target.exists():
        os.rename(old[-1], target)  # killed between the fallback's two renames: the old set is whole
    for _, path in leftovers:
        if path.exists():
            _remove(path)
    if target.is_dir():  # scratch of reportgen <= 0.1, which staged inside the directory
        for entry in target.iterdir():
            if entry.name.startswith(SCRATCH_PREFIX):
                _remove(entry)


def _check(target: Path, overwrite: bool) -> None:
    """Refuse a target that is not a directory, a mount point, holds foreign files, or (without
    ``overwrite``) already holds a report."""
    if target.exists() and not target.is_dir():
        raise OutputError(f"{target}: is a file, not a directory; choose another --out")
    if not target.exists():
        return
    if os.path.ismount(target):
        raise OutputError(
            f"{target}: is a mount point, and a report directory is swapped in whole by a rename; "
            f"write to a subdirectory, e.g. --out {target / 'report'}"
        )
    if not os.access(target, os.W_OK | os.X_OK):
        # the previous set is removed from it after the swap, and the new one keeps its mode: a
        # read-only directory failed only once the report was computed, or left the old set behind
        raise OutputError(
            f"{target}: this user cannot write this directory (mode {stat.S_IMODE(target.stat().st_mode):o}); "
            f"make it writable (chmod u+w) or choose another --out"
        )
    entries = sorted(e.name for e in target.iterdir() if not e.name.startswith(SCRATCH_PREFIX))
    foreign = [e for e in entries if e not in REPORT_FILES]
    if foreign:
        shown = ", ".join(foreign[:3]) + (f" and {len(foreign) - 3} more" if len(foreign) > 3 else "")
        raise OutputError(
            f"{target}: holds {shown}, which reportgen did not write; a report directory is replaced "
            f"as a whole, so move them out or choose another --out"
        )
    if not overwrite:
        existing = [e for e in entries if e in REPORT_FILES]
        if existing:
            raise OutputError(
                f"{target / existing[0]}: a report already exists{_which_run(target)}; pass --overwrite (or set "
                f"output.overwrite: true) to replace it, or choose another --out"
            )


def _which_run(target: Path) -> str:
    """`` (run ID of CREATED)``: which run wrote the report in ``target``, from its ``metrics.json``
    (the set is always whole), so that a user rerunning after an interrupted run (a signal after
    its commit) knows the report is that run's; empty when it cannot be told."""
    path = target / FILE_NAMES["json"]
    try:  # never waits on a FIFO, never follows a link out of the directory
        fd = os.open(path, os.O_RDONLY | os.O_NONBLOCK | os.O_NOFOLLOW | os.O_CLOEXEC)
        with os.fdopen(fd, "rb") as f:
            info = os.fstat(fd)
            if not stat.S_ISREG(info.st_mode) or info.st_size > _RUN_JSON_LIMIT:
                return ""
            run = json.loads(f.read()).get("run")
        run_id, created = run["run_id"], run["created"]
    except (OSError, ValueError, TypeError, KeyError, AttributeError, RecursionError):
        return ""
    if not (isinstance(run_id, str) and isinstance(created, str)) or len(run_id) + len(created) > 200:
        return ""
    return f" (run {' '.join(run_id.split())} of {' '.join(created.split())}, complete)"


@contextmanager
def reserve(out_dir: str | Path, overwrite: bool) -> Iterator[Reservation]:
    """Lock ``out_dir`` for this run and check it can be written; release on the way out.

    Creates the parent directories, takes the lock (another run holding it: ``OutputError``),
    repairs what a killed run left, then checks the target (see :func:`_check`). Held for as
    long as the block runs, so a check made here still holds at the commit.
    """
    target = output_path(out_dir)
    try:
        target.parent.mkdir(parents=True, exist_ok=True)
    except OSError as exc:
        if (blocker := file_on_the_way(target)) is not None:
            raise OutputError(
                f"{target}: cannot create the output directory: {blocker} is a file, not a directory; "
                f"choose another --out"
            ) from None
        raise OutputError(
            f"{target}: cannot create the output directory ({exc.strerror}); choose another --out"
        ) from None
    fd, lock = _acquire(target)
    reservation = Reservation(target, fd, lock)
    try:
        try:
            with held():
                _recover(target)
            _check(target, overwrite)
        except OSError as exc:
            raise OutputError(f"{target}: {_write_failure(exc)}") from None
        checkpoint("locked")
        yield reservation
    except BaseException as exc:
        reservation._release(during=exc)
        raise
    reservation._release()


# --------------------------------------------------------------------------------------
# The report set
# --------------------------------------------------------------------------------------


def write_outputs(
    result: ComparisonResult,
    out_dir: str | Path,
    formats: Iterable[str] = FORMATS,
    theme: Theme | None = None,
    overwrite: bool = True,
    extra: Mapping[str, bytes] | None = None,
    reservation: Reservation | None = None,
    pdf_variant: str | None = None,
    full_curves: bool = False,
    phase: Callable[[str], None] | None = None,
    along: Along | None = None,
) -> dict[str, Path]:
    """Write the chosen formats into ``out_dir`` as its new report set: all of them, or none.

    The set replaces the directory's previous report files as a whole (a format not asked for
    now does not survive from an earlier run). ``extra`` adds report files given as bytes
    (``reportgen render`` keeps the ``metrics.json`` it rendered from). ``reservation`` is a
    directory already locked with :func:`reserve` (the CLI locks before computing); without
    it the directory is locked here. ``pdf_variant`` (``"pdf/a-3b"``): the PDF is archival
    PDF/A with the run's ``metrics.json`` embedded (the bytes written beside it, or ``extra``'s).
    ``metrics.json`` stores curves simplified to what a figure shows (:mod:`reportgen.report.stored_curves`),
    and the figures are drawn from those; ``full_curves`` keeps every point the engine kept.
    ``phase(name)`` is told as each format starts (the CLI's progress line). ``along`` is a
    transaction committed with the set (:meth:`Reservation.write`: the run's history entry).
    Returns the absolute path of each file written, by format (and by file name for ``extra``).
    """
    from reportgen.report.theme import Theme  # noqa: PLC0415  (the config module: not for --help)

    theme = theme if theme is not None else Theme()
    formats = [f for f in FORMATS if f in set(formats)]
    extra = dict(extra or {})
    unknown = sorted(set(extra) - REPORT_FILES)
    if unknown:
        raise ValueError(f"extra files must be report files ({', '.join(sorted(REPORT_FILES))}), not {unknown}")
    if reservation is None:
        with reserve(out_dir, overwrite) as reserved:
            return write_outputs(
                result, out_dir, formats, theme, overwrite, extra, reserved, pdf_variant, full_curves, phase, along
            )
    if output_path(out_dir) != reservation.target:
        raise ValueError(f"{out_dir} is not the reserved directory {reservation.target}")
    # the audit trail names the directory the set goes to (not output.dir's template)
    theme = dataclasses.replace(
        theme, provenance=dataclasses.replace(theme.provenance, output_dir=str(reservation.target))
    )
    return _write_set(result, formats, theme, extra, reservation, pdf_variant, full_curves, phase, along)


def _write_set(
    result: ComparisonResult,
    formats: list[str],
    theme: Theme,
    extra: dict[str, bytes],
    reservation: Reservation,
    pdf_variant: str | None,
    full_curves: bool,
    phase: Callable[[str], None] | None,
    along: Along | None,
) -> dict[str, Path]:
    """:func:`write_outputs` once the directory is reserved and the arguments checked."""
    import reportgen.report.export as export  # noqa: PLC0415
    from reportgen.results_io import result_json  # noqa: PLC0415

    if not full_curves and FILE_NAMES["json"] not in extra:
        # the curves metrics.json stores (simplified, exact points); the figures are drawn from
        # them too, so a report re-rendered from its metrics.json is the same report. A result
        # rendered from a saved metrics.json (``extra``) is drawn as it was saved.
        import reportgen.report.stored_curves as stored_curves  # noqa: PLC0415

        result = stored_curves.for_json(result)
    stored_json: str | None = None

    def json_text() -> str:
        nonlocal stored_json
        if stored_json is None:
            stored_json = result_json(result)
        return stored_json

    def write_json(path: Path) -> None:
        path.write_text(json_text(), encoding="utf-8")

    attached = None
    if pdf_variant is not None and "pdf" in formats:  # the PDF/A embeds the run's metrics.json
        saved = extra.get(FILE_NAMES["json"])
        attached = {FILE_NAMES["json"]: saved if saved is not None else json_text().encode("utf-8")}

    def write_bytes(data: bytes) -> Callable[[Path], object]:
        return lambda path: path.write_bytes(data)

    def write_xlsx(path: Path) -> None:
        export.write_xlsx(result, path)

    def write_csv(text: str) -> Callable[[Path], object]:
        return lambda path: path.write_text(text, encoding="utf-8", newline="")

    def staged(name: str, write: Callable[[Path], None]) -> Callable[[Path], None]:
        def run(path: Path) -> None:
            if phase is not None:
                phase(name)
            write(path)

        return run

    # Jinja, the views, matplotlib and WeasyPrint only for a page: a JSON-only run imports none of them
    guard: AbstractContextManager[None] = nullcontext()
    if "html" in formats or "pdf" in formats:
        import reportgen.report.render as render  # noqa: PLC0415

        guard = render.theme_errors(theme)
    views: list[ReportView] = []

    def view() -> ReportView:  # built once, its figures drawn once, for both pages
        if not views:
            views.append(render.build_view(result, theme))
        return views[0]

    def write_html(path: Path) -> None:
        path.write_text(render.render_html(result, theme, view=view()), encoding="utf-8")

    def write_pdf(path: Path) -> None:
        html = render.render_html(result, theme, for_pdf=True, view=view())
        render.render_pdf(html, path, variant=pdf_variant, attachments=attached, when=result.run.created)

    writers = {
        "json": staged("JSON", write_json),
        "html": staged("figures and HTML", write_html),
        "pdf": staged("PDF" if "html" in formats else "figures and PDF", write_pdf),
        "xlsx": staged("Excel workbook", write_xlsx),
    }
    files: dict[str, Callable[[Path], object]] = {FILE_NAMES[f]: writers[f] for f in formats if f != "csv"}
    if "csv" in formats:
        files.update({f"{name}.csv": write_csv(export.to_csv(t)) for name, t in export.tables(result).items()})
    files.update({name: write_bytes(data) for name, data in extra.items() if name not in files})
    with guard:
        written = reservation.write(files, along)
    out = {f: written[FILE_NAMES[f]] for f in formats}
    out.update({name: written[name] for name in extra if name not in {FILE_NAMES[f] for f in formats}})
    out.update({name: path for name, path in written.items() if name in CSV_FILES and name != FILE_NAMES["csv"]})
    return out


# --------------------------------------------------------------------------------------
# The run's private temporary directory
# --------------------------------------------------------------------------------------

#: ``TMPDIR/reportgen-run.<16 hex>``: a command's private temporary directory (see :func:`private_tempdir`).
_RUN_TMP = re.compile(r"^reportgen-run\.[0-9a-f]{16}$")
_RUN_TMP_LOCK = ".lock"
#: (the private directory, the directory it is in) while :func:`private_tempdir` is active.
_private: tuple[str, str] | None = None


def private_tempdir() -> AbstractContextManager[Path | None]:
    """Every temporary file of the command (a SQL source's rows, the stream engine's paired rows,
    a PDF's attachments) inside one private directory ``TMPDIR/reportgen-run.<hex>``, removed on
    the way out, and those of earlier commands killed by SIGKILL removed on the way in.

    ``tempfile.tempdir`` points at it while the block runs (the command owns its process; a
    library call does not choose its host's temporary directory). A killed run (SIGKILL, a
    crash, the OOM killer) left ``reportgen-sql-*`` and ``reportgen-pairs-*`` directories, some
    of them the size of its input, that nothing removed. Which leftovers are safe to remove: the
    directory holds a ``.lock`` file its command keeps ``flock``-ed for its whole life; the
    kernel releases that lock when the process dies, whatever killed it. So a directory is
    removed only when it is this user's, has reportgen's exact name, and its lock can be taken
    — never one of a live command, even in another container sharing the directory (a pid check
    could not tell). The directory gets its name only once its lock is held (it is created as
    ``reportgen-new.*`` and renamed), so a sweep never sees one that is not locked yet. Yields
    None, and changes nothing, when the directory cannot be made (``TMPDIR`` full or read-only:
    the first temporary file then says so)."""
    return _private_tempdir()


@contextmanager
def _private_tempdir() -> Iterator[Path | None]:
    global _private
    import tempfile  # noqa: PLC0415

    base = tempfile.gettempdir()
    _sweep(base)
    made = _make_private(base)
    if made is None:
        yield None
        return
    final, fd = made
    previous, previous_private = tempfile.tempdir, _private
    tempfile.tempdir, _private = final, (final, base)
    try:
        yield Path(final)
    finally:
        tempfile.tempdir, _private = previous, previous_private
        with held():
            shutil.rmtree(final, ignore_errors=True)
            os.close(fd)


def _make_private(base: str) -> tuple[str, int] | None:
    """A new ``reportgen-run.*`` directory in ``base``, already locked: (its path, the lock's fd)."""
    import tempfile  # noqa: PLC0415

    try:
        staging = tempfile.mkdtemp(prefix="reportgen-new.", dir=base)
    except OSError:
        return None
    fd = -1
    try:
        fd = os.open(os.path.join(staging, _RUN_TMP_LOCK), os.O_RDWR | os.O_CREAT | os.O_NOFOLLOW | os.O_CLOEXEC, 0o600)
        fcntl.flock(fd, fcntl.LOCK_EX)
        final = os.path.join(base, f"reportgen-run.{secrets.token_hex(8)}")
        os.rename(staging, final)
    except OSError:
        if fd >= 0:
            os.close(fd)
        shutil.rmtree(staging, ignore_errors=True)
        return None
    return final, fd


def _sweep(base: str) -> None:
    """Remove the private directories in ``base`` of this user's commands that are gone (their
    lock free); see :func:`private_tempdir`."""
    try:
        names = [n for n in os.listdir(base) if _RUN_TMP.match(n)]
    except OSError:
        return
    uid = os.geteuid()
    for name in names:
        path = os.path.join(base, name)
        try:
            info = os.lstat(path)
            if not stat.S_ISDIR(info.st_mode) or info.st_uid != uid:
                continue
            fd = os.open(os.path.join(path, _RUN_TMP_LOCK), os.O_RDWR | os.O_NOFOLLOW | os.O_CLOEXEC)
        except OSError:
            continue
        try:
            fcntl.flock(fd, fcntl.LOCK_EX | fcntl.LOCK_NB)
        except OSError:  # its command is alive
            os.close(fd)
            continue
        try:
            with held():
                shutil.rmtree(path, ignore_errors=True)
        finally:
            os.close(fd)


def shown_tempdir(text: str) -> str:
    """``text`` (a message) naming ``TMPDIR`` where it names the private directory inside it: the
    user chose the one (a full disk there: "point TMPDIR at a larger disk"), not the other."""
    if _private is None:
        return text
    return text.replace(_private[0], _private[1])


__all__ = [
    "FILE_NAMES",
    "FORMATS",
    "Interrupted",
    "Reservation",
    "output_path",
    "private_tempdir",
    "reserve",
    "shown_tempdir",
    "write_outputs",
]
