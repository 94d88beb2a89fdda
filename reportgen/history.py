"""Run history: each scheduled run appends its headline numbers to a local SQLite store.

``history: {path: runs.sqlite}`` in the config. Why SQLite rather than a directory of
``metrics.json`` files: an append is one transaction (``BEGIN IMMEDIATE`` takes the write lock,
a second process waits up to :data:`BUSY_TIMEOUT_S`), so concurrent runs can neither lose nor
half-write an entry — a directory needs unique names, atomic renames and a reader that skips
partial files, and every trend or ``reportgen history`` call would re-parse every document
(megabytes each, with curves); the store keeps only the few numbers a trend needs, is one file
to back up, and needs nothing beyond the standard library. Not for a network filesystem
(SQLite's locks need a local disk).

What a run records (:func:`headline`): per model the headline metrics (binary: Gini, KS, ROC
AUC and the default rate — the weighted share of positives; multiclass: the primary metric and
accuracy) with their intervals, per comparison the primary metric's delta with its interval;
the run id, its timestamp, the config path and the input files' SHA-256; with the credit
section and a reference sample, each model's PSI.
"""

from __future__ import annotations

import csv
import io
import json
import math
import os
import sqlite3
import time
from collections.abc import Callable, Iterator, Sequence
from contextlib import closing, contextmanager
from pathlib import Path
from typing import Any, TypeVar

from reportgen.errors import HistoryError
from reportgen.option_results import TrendPoint
from reportgen.report.export import safe_cell
from reportgen.report.formats import fmt_cell
from reportgen.results import ComparisonResult
from reportgen.signals import signal_pending
from reportgen.smallfiles import file_on_the_way
from reportgen.terminal import json_shown, one_line

#: How long an append waits for another run's transaction to finish.
BUSY_TIMEOUT_S = 60.0

#: How long one attempt waits for a lock inside SQLite before the wait goes on in Python. SQLite's
#: own busy timeout sleeps inside one C call, where Python runs no signal handler: a run waiting
#: the whole :data:`BUSY_TIMEOUT_S` there answered a SIGTERM (a scheduler's timeout) only once
#: the other run let go, up to a minute later (a Kubernetes pod is killed 30 s after its SIGTERM).
_POLL_S = 0.05

T = TypeVar("T")

#: The store's layout version (``PRAGMA user_version``).
STORE_VERSION = 1

#: What a number of the store is about (``numbers.kind``; the schema's CHECK).
_KINDS = ("model", "comparison")

#: Headline metrics of a binary model, in the trend's order.
BINARY_HEADLINE = ("gini", "ks", "roc_auc")

_SCHEMA = """
CREATE TABLE IF NOT EXISTS runs (
    seq INTEGER PRIMARY KEY AUTOINCREMENT,
    run_id TEXT NOT NULL,
    created TEXT NOT NULL,
    title TEXT NOT NULL,
    config_path TEXT NOT NULL,
    inputs TEXT NOT NULL  -- JSON: [{path, sha256, rows}]
);
CREATE TABLE IF NOT EXISTS numbers (
    seq INTEGER NOT NULL REFERENCES runs(seq),
    kind TEXT NOT NULL CHECK (kind IN ('model', 'comparison')),
    subject TEXT NOT NULL,
    metric TEXT NOT NULL,
    value REAL,
    lo REAL,
    hi REAL
);
CREATE INDEX IF NOT EXISTS numbers_seq ON numbers(seq);
"""


def headline(result: ComparisonResult) -> list[TrendPoint]:
    """This run's headline numbers (see the module docstring), models first."""
    run = result.run
    points: list[TrendPoint] = []
    metrics = BINARY_HEADLINE if run.task == "binary" else tuple(dict.fromkeys((run.primary_metric, "accuracy")))
    for name, m in result.models.items():
        for k in metrics:
            ci = m.ci.get(k)
            points.append(
                TrendPoint(run.run_id, run.created, name, "model", k, m.metrics.get(k), list(ci) if ci else None)
            )
        if (
            run.task == "binary"
            and m.positives is not None
            and m.negatives is not None
            and m.positives + m.negatives > 0
        ):
            rate = m.positives / (m.positives + m.negatives)
            points.append(TrendPoint(run.run_id, run.created, name, "model", "default_rate", rate, None))
        stability = (
            None if result.credit is None or name not in result.credit.models else result.credit.models[name].stability
        )
        if stability is not None and stability.psi.statistic is not None:  # the credit section's PSI (reference:)
            points.append(TrendPoint(run.run_id, run.created, name, "model", "psi", stability.psi.statistic, None))
    for c in result.comparisons:
        pm = c.primary_metric
        ci = c.ci.get(pm)
        points.append(
            TrendPoint(
                run.run_id,
                run.created,
                f"{c.model} vs {c.baseline}",
                "comparison",
                pm,
                c.delta.get(pm),
                list(ci) if ci else None,
            )
        )
    return points


def _busy(exc: sqlite3.Error) -> bool:
    """Whether ``exc`` is another connection's lock (worth waiting for), not a fault."""
    return isinstance(exc, sqlite3.OperationalError) and any(w in str(exc) for w in ("locked", "busy"))


def _patiently(attempt: Callable[[], T], give_up: Callable[[], bool] = lambda: False) -> T:
    """``attempt()``, run again while the store is locked by another run, for up to
    :data:`BUSY_TIMEOUT_S` (or until ``give_up()``); the waits are Python sleeps, so a signal is
    answered within :data:`_POLL_S`. An attempt must leave nothing half done (a transaction rolled back)."""
    deadline = time.monotonic() + BUSY_TIMEOUT_S
    while True:
        try:
            return attempt()
        except sqlite3.Error as exc:
            if not _busy(exc) or time.monotonic() >= deadline or give_up():
                raise
        time.sleep(_POLL_S)


def _connect(path: Path, create: bool) -> sqlite3.Connection:
    if not create and not path.is_file():
        raise HistoryError(f"{path}: no history store here; a run with 'history: {{path: ...}}' creates it")
    if path.exists() and not path.is_file():  # a directory, a FIFO (opening it would wait forever), a device
        raise HistoryError(f"{path}: not a regular file; history.path must name a SQLite file")
    if create:
        try:
            path.parent.mkdir(parents=True, exist_ok=True)
        except OSError as exc:
            if (blocker := file_on_the_way(path)) is not None:
                raise HistoryError(
                    f"{path}: cannot create its directory: {blocker} is a file, not a directory; check history.path"
                ) from None
            raise HistoryError(f"{path}: cannot create its directory ({exc.strerror}); check history.path") from None
    try:
        conn = sqlite3.connect(path, timeout=_POLL_S, isolation_level=None)
    except sqlite3.Error as exc:
        raise HistoryError(f"{path}: cannot open the history store ({exc}); {_access_hint(path)}") from None
    try:
        # one snapshot: a store another run creates meanwhile is seen whole or not at all (read
        # apart, its tables could come after a layout read before its commit)
        conn.execute("BEGIN")
        version = conn.execute("PRAGMA user_version").fetchone()[0]
        tables = {r[0] for r in conn.execute("SELECT name FROM sqlite_master WHERE type = 'table'")}
        conn.execute("COMMIT")
    except sqlite3.DatabaseError as exc:
        conn.close()  # rolls back the read
        if _busy(exc):
            raise
        if isinstance(exc, sqlite3.OperationalError) and "unable to open" in str(exc):
            raise HistoryError(f"{path}: cannot open the history store ({exc}); {_access_hint(path)}") from None
        raise HistoryError(
            f"{path}: not a reportgen history store, or a damaged one ({exc}); "
            f"restore it from a backup or give another history.path"
        ) from None
    if tables and isinstance(version, int) and version > STORE_VERSION and {"runs", "numbers"} <= tables:
        conn.close()
        raise HistoryError(
            f"{path}: written by a newer reportgen (store layout {version}; this version reads "
            f"layout {STORE_VERSION}); upgrade reportgen or give another history.path"
        )
    if tables and (version != STORE_VERSION or not {"runs", "numbers"} <= tables):
        conn.close()
        raise HistoryError(
            f"{path}: not a reportgen history store (layout {version}, tables {', '.join(sorted(tables))}); "
            f"give another history.path"
        )
    if not tables:
        if not create:
            conn.close()
            raise HistoryError(f"{path}: an empty file, not a reportgen history store")
        try:
            conn.executescript(f"BEGIN IMMEDIATE; {_SCHEMA} PRAGMA user_version = {STORE_VERSION}; COMMIT;")
        except sqlite3.Error:
            conn.close()  # rolls back a creation whose commit another run's read held off; the caller waits and retries
            raise
    return conn


def _rollback(conn: sqlite3.Connection) -> None:
    """End the open transaction, if SQLite has not already ended it after an error."""
    if conn.in_transaction:
        conn.execute("ROLLBACK")


def _access_hint(path: Path, exc: sqlite3.Error | None = None) -> str:
    """What to check when SQLite cannot open or write the store: the disk's space, the file's or
    its directory's permissions (SQLite writes a journal beside the store, so the directory must
    be writable too)."""
    if exc is not None and any(w in str(exc) for w in ("disk is full", "disk I/O error")):
        return "is its disk full? free some space or give another history.path"
    if path.exists() and not os.access(path, os.R_OK | os.W_OK):
        return "this user cannot read and write the file; fix its permissions or give another history.path"
    if not os.access(path.parent, os.W_OK | os.X_OK):
        return (
            f"this user cannot write its directory {path.parent} (SQLite keeps a journal beside the store); "
            f"fix the permissions or give another history.path"
        )
    return "check history.path (a local disk: SQLite's locks do not work on every network filesystem)"


def check_writable(path: Path) -> None:
    """Before a run computes anything: the store at ``path`` opens (it is created when absent),
    is a reportgen history of a layout this version reads, can be written (a write inside a
    transaction that is rolled back, so its directory's permissions are tested too: SQLite
    writes a journal there), and holds entries :func:`read` takes (numbers, dates, inputs).
    Otherwise a :class:`HistoryError`, while nothing is written yet —
    rather than after the report, which a rerun without ``--overwrite`` would then refuse."""

    def probe() -> None:
        with closing(_connect(path, create=True)) as conn:
            conn.execute("BEGIN IMMEDIATE")
            try:
                conn.execute(f"PRAGMA user_version = {STORE_VERSION}")  # a write, of the value it holds
            finally:
                _rollback(conn)

    try:
        _patiently(probe)
    except sqlite3.Error as exc:
        hint = "another run held it for over a minute; retry later" if _busy(exc) else _access_hint(path, exc)
        raise HistoryError(f"{path}: cannot write the history store ({exc}); {hint}") from None
    read(path)  # its entries too: a damaged one is refused now, not when the trend is drawn


def check_usable(path: Path) -> None:
    """For ``reportgen validate``: what :func:`check_writable` finds wrong, without creating or
    writing anything — an existing store is read (layout, entries) and its file and directory
    must be writable; a missing one must be creatable (its nearest existing directory writable)."""
    if path.exists():
        read(path)
        if not (os.access(path, os.R_OK | os.W_OK) and os.access(path.parent, os.W_OK | os.X_OK)):
            raise HistoryError(f"{path}: cannot write the history store; {_access_hint(path)}")
        return
    ancestor = path.parent
    while not ancestor.exists() and ancestor != ancestor.parent:
        ancestor = ancestor.parent
    if not ancestor.is_dir() or not os.access(ancestor, os.W_OK | os.X_OK):
        raise HistoryError(
            f"{path}: cannot create the history store: this user cannot write {ancestor}; "
            f"fix the permissions or give another history.path"
        )


def _insert(conn: sqlite3.Connection, result: ComparisonResult) -> int:
    """Inside a write transaction: ``result``'s entry (its sequence number). A run already recorded
    (the same run id: the same config, inputs and timestamp, so the same numbers; two runs of one
    config at one instant, or a rerun with ``--now`` pinned) is not recorded twice: its entry's
    sequence number is returned."""
    run = result.run
    found = conn.execute("SELECT seq FROM runs WHERE run_id = ? ORDER BY seq LIMIT 1", (run.run_id,)).fetchone()
    if found is not None:
        return int(found[0])
    inputs = json.dumps([{"path": f.path, "sha256": f.sha256, "rows": f.rows} for f in run.files])
    cur = conn.execute(
        "INSERT INTO runs (run_id, created, title, config_path, inputs) VALUES (?, ?, ?, ?, ?)",
        (run.run_id, run.created, run.title, run.config_path, inputs),
    )
    seq = int(cur.lastrowid or 0)
    conn.executemany(
        "INSERT INTO numbers (seq, kind, subject, metric, value, lo, hi) VALUES (?, ?, ?, ?, ?, ?, ?)",
        [(seq, p.kind, p.subject, p.metric, p.value, *(p.ci if p.ci else (None, None))) for p in headline(result)],
    )
    return seq


def append(path: Path, result: ComparisonResult) -> int:
    """Record ``result``'s headline numbers in one transaction; returns the entry's sequence number
    (an entry of the same run id already there: that one's, nothing added)."""
    entry = Entry(path, result)
    with entry.prepared() as commit:
        commit()
    assert entry.seq is not None  # set by the transaction just committed
    return entry.seq


def _commit(conn: sqlite3.Connection) -> None:
    """COMMIT; busy while a reader holds the store (the transaction stays open: tried again)."""
    conn.execute("COMMIT")


class Entry:
    """A run's entry, written into the store's write transaction and committed with its report.

    :meth:`prepared` is the ``along`` of :meth:`reportgen.report.writer.Reservation.write`: the CLI
    commits the entry inside the report's commit, signals held, so that it goes in with the
    report set or not at all — a signal never leaves a report the history does not know of (whose
    rerun is then refused without ``--overwrite``), nor an entry for a report never written.
    Preparing waits for another run's lock (a signal is answered meanwhile); committing waits
    only for readers, which hold the store for a moment. A failed commit is a :class:`HistoryError`.
    """

    def __init__(self, path: Path, result: ComparisonResult) -> None:
        self.path, self.result = path, result
        #: The entry's sequence number once prepared; :attr:`committed` says whether it is in the store.
        self.seq: int | None = None
        self.committed = False

    @contextmanager
    def prepared(self) -> Iterator[Callable[[], None]]:
        """The entry written, not committed; the block calls the function it is given to commit
        it, or leaves without calling it to roll it back."""
        conn, self.seq = self._prepare()

        def commit() -> None:
            # signals are held here (the report's swap): a reader in the way is waited for, but not
            # once a SIGTERM is pending — a pod is killed 30 s after it; the run then stops unrecorded
            try:
                _patiently(lambda: _commit(conn), give_up=signal_pending)
            except sqlite3.Error as exc:
                raise HistoryError(
                    f"{self.path}: cannot record the run ({exc}); {_access_hint(self.path, exc)}"
                ) from None
            self.committed = True

        try:
            yield commit
        finally:
            try:
                if not self.committed:
                    _rollback(conn)
            finally:
                conn.close()

    def _prepare(self) -> tuple[sqlite3.Connection, int]:
        def attempt() -> tuple[sqlite3.Connection, int]:
            conn = _connect(self.path, create=True)
            try:
                conn.execute("BEGIN IMMEDIATE")
                return conn, _insert(conn, self.result)
            except BaseException:
                _rollback(conn)
                conn.close()
                raise

        try:
            return _patiently(attempt)
        except sqlite3.Error as exc:
            hint = "another run held it for over a minute; retry later" if _busy(exc) else _access_hint(self.path, exc)
            raise HistoryError(f"{self.path}: cannot record the run ({exc}); {hint}") from None


def read(path: Path, create: bool = False) -> list[dict[str, Any]]:
    """Every recorded run, oldest first: ``{seq, run_id, created, title, config_path, inputs, numbers: [TrendPoint]}``."""

    def attempt() -> tuple[list[Any], list[Any]]:
        with closing(_connect(path, create=create)) as conn:
            conn.execute("BEGIN")  # one snapshot: no run appended between the two reads
            try:
                runs = conn.execute(
                    "SELECT seq, run_id, created, title, config_path, inputs FROM runs ORDER BY seq"
                ).fetchall()
                nums = conn.execute(
                    "SELECT n.seq, n.kind, n.subject, n.metric, n.value, n.lo, n.hi, r.run_id, r.created "
                    "FROM numbers n JOIN runs r ON r.seq = n.seq ORDER BY n.rowid"
                ).fetchall()
            finally:
                _rollback(conn)
        return runs, nums

    try:
        runs, nums = _patiently(attempt)
    except sqlite3.Error as exc:
        raise HistoryError(f"{path}: cannot read the history ({exc})") from None
    by_seq: dict[int, list[TrendPoint]] = {r[0]: [] for r in runs}
    for seq, kind, subject, metric, value, lo, hi, run_id, created in nums:
        if kind not in _KINDS:  # the schema's CHECK bypassed: ``reportgen render`` refused the trend of the report
            raise _damaged(
                path, f"run {seq}: {subject!r} {metric!r} is of kind {kind!r}, not one of {', '.join(_KINDS)}"
            )
        if not all(isinstance(t, str) for t in (subject, metric)) or not all(map(_number, (value, lo, hi))):
            raise _damaged(path, f"run {seq}: {subject!r} {metric!r} holds {value!r} [{lo!r}, {hi!r}]")
        by_seq[seq].append(
            TrendPoint(
                run_id, created, subject, kind, metric, value, [lo, hi] if lo is not None and hi is not None else None
            )
        )
    out = []
    for seq, run_id, created, title, cfg, inputs in runs:
        try:
            files = json.loads(inputs) if isinstance(inputs, str) else None
        except ValueError:  # JSONDecodeError
            files = None
        if not isinstance(files, list) or not all(isinstance(t, str) for t in (run_id, created, title, cfg)):
            raise _damaged(
                path, f"run {seq}: its run id, date, title, config path or inputs are not what reportgen writes"
            )
        out.append(
            {
                "seq": seq,
                "run_id": run_id,
                "created": created,
                "title": title,
                "config_path": cfg,
                "inputs": files,
                "numbers": by_seq[seq],
            }
        )
    return out


def _number(v: Any) -> bool:
    """A value a store may hold for a number: NULL (undefined) or a finite real (SQLite keeps any
    type in any column: text or an infinity put there by hand is damage, not a number)."""
    return v is None or (isinstance(v, (int, float)) and not isinstance(v, bool) and math.isfinite(v))


def _damaged(path: Path, what: str) -> HistoryError:
    return HistoryError(
        f"{path}: a damaged history store ({what}); restore it from a backup or give another history.path"
    )


def with_trend(result: ComparisonResult, path: Path, limit: int = 24) -> ComparisonResult:
    """``result`` with the trend of its history store: the last ``limit - 1`` recorded runs of
    the same title, then this run (not yet recorded: :func:`append` follows the report)."""
    import dataclasses  # noqa: PLC0415

    run = result.run  # an entry of this very run (a rerun with --now pinned) is this run, shown once
    past = [r for r in read(path, create=True) if r["title"] == run.title and r["run_id"] != run.run_id]
    past = past[-(limit - 1) :] if limit > 1 else []
    points = [p for r in past for p in r["numbers"]] + headline(result)
    return dataclasses.replace(result, trend=points)


def columns(runs: Sequence[dict[str, Any]]) -> list[str]:
    """The table's number columns, ``SUBJECT.METRIC`` (and ``_lo`` / ``_hi``), in first-seen order."""
    out: dict[str, None] = {}
    for r in runs:
        for p in r["numbers"]:
            out[f"{p.subject}.{p.metric}"] = None
    return list(out)


def table(runs: Sequence[dict[str, Any]]) -> tuple[list[str], list[list[Any]]]:
    """One row per run: run id, date, title, then each number with its interval bounds."""
    cols = columns(runs)
    header = ["run_id", "created", "title"] + [f"{c}{s}" for c in cols for s in ("", "_lo", "_hi")]
    rows = []
    for r in runs:
        got = {f"{p.subject}.{p.metric}": p for p in r["numbers"]}
        row: list[Any] = [r["run_id"], r["created"], r["title"]]
        for c in cols:
            p = got.get(c)
            row += [p.value if p else None, *(p.ci if p and p.ci else (None, None))]
        rows.append(row)
    return header, rows


def export(runs: Sequence[dict[str, Any]], fmt: str) -> str:
    """The history as ``csv`` (cells neutralised for spreadsheets), ``json`` or a ``text`` table."""
    if fmt == "json":
        doc = [
            {
                **{k: v for k, v in r.items() if k != "numbers"},
                "numbers": [
                    {
                        "kind": p.kind,
                        "subject": p.subject,
                        "metric": p.metric,
                        "value": p.value,
                        "ci": list(p.ci) if p.ci else None,
                    }
                    for p in r["numbers"]
                ],
            }
            for r in runs
        ]
        return json_shown(json.dumps(doc, indent=2, ensure_ascii=False)) + "\n"
    header, rows = table(runs)
    if fmt == "csv":
        buf = io.StringIO()
        w = csv.writer(buf, lineterminator="\n")
        w.writerow([safe_cell(h) for h in header])
        w.writerows([[safe_cell(v) for v in row] for row in rows])
        return buf.getvalue()
    # text: one line per run with its date and the model metrics (no bounds), aligned
    keep = [i for i, h in enumerate(header) if i < 3 or not h.endswith(("_lo", "_hi"))]
    # one line per run, whatever a title or a model name holds
    cells = [[one_line(fmt_cell(header[i])) for i in keep]] + [
        [one_line(fmt_cell(row[i])) for i in keep] for row in rows
    ]
    widths = [max(len(r[j]) for r in cells) for j in range(len(keep))]
    return "".join("  ".join(c.ljust(w) for c, w in zip(r, widths)).rstrip() + "\n" for r in cells)
