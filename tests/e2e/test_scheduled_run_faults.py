"""A scheduled run's faults end in one line and a known state: the history store, signals while a
run records itself or waits on a database, secrets in a database URL, and config values given
on the command line.

Each test is named after what broke. The processes are real where a signal or a permission is
the point (the signal sent at an exact moment by a patched function, never after a guessed
sleep); the rest run ``reportgen.cli.main`` in-process.
"""

from __future__ import annotations

import os
import random
import shutil
import signal
import sqlite3
import subprocess
import sys
import threading
import time
from pathlib import Path
from types import SimpleNamespace

import pytest
import yaml

from reportgen import cli, history
from reportgen.config import parse_config
from reportgen.errors import ConfigError
from reportgen.io.sql import resolve_url

ROOT = Path(__file__).resolve().parents[2]


def make_config(folder: Path, **extra) -> Path:
    """Two binary models of 60 rows each, no bootstrap, JSON only, a history store beside it."""
    folder.mkdir(parents=True, exist_ok=True)
    for file, seed in (("a.csv", 1), ("b.csv", 2)):
        rng = random.Random(seed)
        rows = "".join(f"{i},{i % 2},{rng.random():.3f}\n" for i in range(1, 61))
        (folder / file).write_text("id,y,s\n" + rows, encoding="utf-8")
    cfg = {
        "title": "t",
        "label": "y",
        "id": "id",
        "bootstrap": {"resamples": 0},
        "output": {"formats": ["json"], "dir": "out"},
        "history": {"path": "hist.sqlite"},
        "models": [{"name": "a", "file": "a.csv", "score": "s"}, {"name": "b", "file": "b.csv", "score": "s"}],
    }
    cfg.update(extra)
    path = folder / "q.yaml"
    path.write_text(yaml.safe_dump(cfg), encoding="utf-8")
    return path


def run(*argv: str) -> int:
    return cli.main(["run", *argv, "-q"])


#: ``reportgen run`` in a process whose function ``sys.argv[1]`` (``module:name``) sends the
#: process ``sys.argv[2]`` the first time it is called (the signal is raised there).
SIGNAL_AT = """
import importlib, os, signal, sys
module, name = sys.argv[1].split(":")
sig = getattr(signal, sys.argv[2])
m = importlib.import_module(module)
original = getattr(m, name)
def patched(*args, **kwargs):
    os.kill(os.getpid(), sig)
    return original(*args, **kwargs)
setattr(m, name, patched)
from reportgen.cli import main
sys.exit(main(sys.argv[3:]))
"""


def _python(code: str, *argv: str, cwd: Path, prefix: tuple[str, ...] = ()) -> subprocess.CompletedProcess[str]:
    env = {**os.environ, "PYTHONPATH": str(ROOT)}
    env.pop("REPORTGEN_NOW", None)
    return subprocess.run(
        [*prefix, sys.executable, "-c", code, *argv], env=env, cwd=cwd, capture_output=True, text=True, timeout=120
    )


def _unprivileged() -> tuple[str, ...]:
    """A command prefix under which file permissions apply: none for a normal user; for root,
    setpriv dropping the capabilities that override them (skip when it is missing)."""
    if os.geteuid() != 0:
        return ()
    setpriv = shutil.which("setpriv")
    if setpriv is None:
        pytest.skip("running as root without setpriv: permissions cannot be tested")
    caps = "-dac_override,-dac_read_search,-fowner"
    return (setpriv, f"--bounding-set={caps}", f"--inh-caps={caps}")


# --------------------------------------------------------------------------------------
# The history store
# --------------------------------------------------------------------------------------


@pytest.mark.slow
def test_sigterm_while_the_run_is_recorded_says_the_report_was_written(tmp_path: Path) -> None:
    """The history is appended after the report set is swapped in. A SIGTERM there said
    "nothing was written, the previous report is intact" while the directory held the new report.
    (Round 5: the entry is now committed with the report, signals held, so the run is recorded.)"""
    cfg = make_config(tmp_path)
    done = _python(SIGNAL_AT, "reportgen.history:_commit", "SIGTERM", "run", str(cfg), "-q", cwd=tmp_path)
    assert done.returncode == 143, done.stderr
    assert done.stderr.count("\n") == 1, done.stderr
    assert "just after the new report was written" in done.stderr
    assert "not recorded" not in done.stderr and "nothing was written" not in done.stderr
    assert (tmp_path / "out" / "metrics.json").is_file()
    assert len(history.read(tmp_path / "hist.sqlite")) == 1  # recorded with the report


@pytest.mark.slow
@pytest.mark.parametrize("point", ["reportgen.report.writer:_remove", "reportgen.cli:_gate"])
def test_sigterm_after_the_commit_says_the_new_report_was_written(point: str, tmp_path: Path) -> None:
    """A signal held back while the previous set was removed (just after the swap), or arriving
    later (the lock released, the checks), was reported as "nothing was written, the previous
    report is intact" although the directory held the new set."""
    cfg = make_config(tmp_path, history=None)
    assert run(str(cfg), "--now", "2026-01-01T00:00:00Z") == 0
    done = _python(
        SIGNAL_AT, point, "SIGTERM", "run", str(cfg), "--overwrite", "--now", "2026-02-02T00:00:00Z", "-q", cwd=tmp_path
    )
    assert done.returncode == 143, done.stderr
    assert done.stderr == (
        f"reportgen: error: {cfg}: interrupted by SIGTERM just after the new report was written "
        f"({tmp_path / 'out' / 'metrics.json'}); stopped (the report is complete; to run again, "
        f"pass --overwrite)\n"
    )
    assert '"created": "2026-02-02T00:00:00Z"' in (tmp_path / "out" / "metrics.json").read_text(encoding="utf-8")
    assert [p.name for p in tmp_path.iterdir() if p.name.startswith(".reportgen-tmp")] == []


def test_sigterm_while_waiting_for_a_locked_history_store_is_answered_at_once(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    """SQLite's busy timeout waited for another run's lock inside one C call, where Python runs
    no signal handler: a SIGTERM was answered only when the lock was released (up to 60 s; a
    Kubernetes pod is killed 30 s after its SIGTERM). Now the wait is a Python loop."""
    monkeypatch.setattr(history, "BUSY_TIMEOUT_S", 20.0)
    cfg = make_config(tmp_path)
    assert run(str(cfg)) == 0
    holder = sqlite3.connect(tmp_path / "hist.sqlite", isolation_level=None)
    holder.execute("BEGIN EXCLUSIVE")  # another run's transaction, held
    timer = threading.Timer(0.5, os.kill, (os.getpid(), signal.SIGTERM))
    try:
        started = time.monotonic()
        timer.start()
        code = run(str(cfg), "--overwrite")
        elapsed = time.monotonic() - started
    finally:
        timer.cancel()
        holder.execute("ROLLBACK")
        holder.close()
    assert code == 143
    assert elapsed < 8, f"the SIGTERM was answered after {elapsed:.1f} s"


@pytest.mark.parametrize(
    ("damage", "expected"),
    [
        (
            "PRAGMA user_version = 2",
            "written by a newer reportgen (store layout 2; this version reads layout 1); upgrade reportgen",
        ),
        ("truncated", "not a reportgen history store, or a damaged one (database disk image is malformed)"),
        # SQLite keeps any type in any column: entries edited by hand or by another program
        (
            "UPDATE runs SET inputs = 'not json'",
            "a damaged history store (run 1: its run id, date, title, config path or inputs",
        ),
        (
            "UPDATE numbers SET value = 'abc' WHERE rowid = 1",
            "a damaged history store (run 1: 'a' 'gini' holds 'abc' [",
        ),
        ("UPDATE numbers SET lo = 1e999 WHERE rowid = 1", "a damaged history store (run 1: 'a' 'gini' holds "),
    ],
)
def test_a_store_that_cannot_be_used_is_exit_2_before_any_work(
    damage: str, expected: str, tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    """The store was opened only after the models were compared (an hour's run lost), a store
    of a newer layout was called "not a reportgen history store", and an entry that was not
    what reportgen writes (text where a number goes, inputs that are not JSON) was an internal
    error (JSONDecodeError, ValueError: could not convert string to float), exit 1."""
    cfg = make_config(tmp_path)
    store = tmp_path / "hist.sqlite"
    assert run(str(cfg), "--out", str(tmp_path / "first")) == 0
    if damage == "truncated":
        data = store.read_bytes()
        store.write_bytes(data[: len(data) // 2 + 100])
    else:
        with sqlite3.connect(store) as conn:
            conn.execute(damage)
    before = store.read_bytes()
    capsys.readouterr()
    assert cli.main(["run", str(cfg)]) == 2  # not quiet: a warning from the analysis would show
    err = capsys.readouterr().err
    assert err == f"reportgen: error: {store}: {expected}" + err.split(expected, 1)[1] and err.count("\n") == 1, err
    assert not (tmp_path / "out").exists()
    assert store.read_bytes() == before
    assert cli.main(["history", str(store)]) == 2  # the history command too: one line, not a traceback
    assert capsys.readouterr().err.startswith(f"reportgen: error: {store}: {expected}")


def test_a_history_store_inside_the_output_directory_is_refused_before_any_work(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    """``history: {path: out/hist.sqlite}`` with ``output.dir: out``: the first run created the
    store in ``out``, the swap then dropped it with the previous set (the trend lost), the append
    made a new one in the new set, and every later run refused ``out`` as "holding hist.sqlite"."""
    cfg = make_config(tmp_path, history={"path": "out/hist.sqlite"})
    assert run(str(cfg)) == 2
    assert capsys.readouterr().err == (
        f"reportgen: error: {cfg}:4: history.path: {tmp_path / 'out' / 'hist.sqlite'} lies "
        f"inside the output directory {tmp_path / 'out'}, which every run replaces as a "
        f"whole; keep the history store outside it\n"
    )
    assert sorted(p.name for p in tmp_path.iterdir()) == ["a.csv", "b.csv", "q.yaml"]


def test_an_output_directory_inside_an_input_dataset_is_refused_before_any_work(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    """``--out ds/report`` with ``file: ds`` (a directory of Parquet parts): the first run wrote
    its report into the dataset, and every later run failed reading ``report/metrics.json`` as
    a Parquet part."""
    import pyarrow as pa
    import pyarrow.parquet as pq

    (tmp_path / "ds").mkdir()
    pq.write_table(
        pa.table({"y": [i % 2 for i in range(40)], "s": [i / 40 for i in range(40)]}), tmp_path / "ds" / "p0.parquet"
    )
    cfg = tmp_path / "q.yaml"
    cfg.write_text(
        yaml.safe_dump(
            {
                "title": "t",
                "label": "y",
                "bootstrap": {"resamples": 0},
                "output": {"formats": ["json"]},
                "models": [{"name": "a", "file": "ds", "score": "s"}],
            }
        ),
        encoding="utf-8",
    )
    assert run(str(cfg), "--out", str(tmp_path / "ds" / "report")) == 2
    assert capsys.readouterr().err == (
        f"reportgen: error: {cfg}:5: models[0].file: the output directory "
        f"{tmp_path / 'ds' / 'report'} lies inside the dataset {tmp_path / 'ds'}, whose "
        f"every file is read as a part; write the report elsewhere\n"
    )
    assert [p.name for p in (tmp_path / "ds").iterdir()] == ["p0.parquet"]
    assert run(str(cfg), "--out", str(tmp_path / "report")) == 0


def test_validate_checks_the_history_store_and_creates_none(tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    """``reportgen validate`` (a scheduler's pre-flight) passed a config whose store the run
    would then refuse (a newer layout, damaged entries)."""
    cfg = make_config(tmp_path)
    store = tmp_path / "hist.sqlite"
    assert cli.main(["validate", str(cfg), "-q"]) == 0
    assert not store.exists()  # validate writes nothing
    assert run(str(cfg)) == 0
    with sqlite3.connect(store) as conn:
        conn.execute("PRAGMA user_version = 2")
    capsys.readouterr()
    assert cli.main(["validate", str(cfg)]) == 2
    assert capsys.readouterr().err == (
        f"reportgen: error: {store}: written by a newer reportgen (store layout 2; this "
        f"version reads layout 1); upgrade reportgen or give another history.path\n"
    )


@pytest.mark.slow
def test_a_history_store_in_a_read_only_directory_is_exit_2_before_any_work(tmp_path: Path) -> None:
    """SQLite writes a journal beside the store: a store in a directory this user cannot write
    failed only at the append, after the report was written (so a rerun without --overwrite was
    refused too), and a store that could not be created was "not a reportgen history store"."""
    prefix = _unprivileged()
    cfg = make_config(tmp_path, history={"path": "ro/hist.sqlite"})
    ro = tmp_path / "ro"
    ro.mkdir()
    code = "import sys; from reportgen.cli import main; sys.exit(main(sys.argv[1:]))"
    try:
        ro.chmod(0o555)
        done = _python(code, "run", str(cfg), cwd=tmp_path, prefix=prefix)
        assert done.returncode == 2, done.stderr
        assert done.stderr == (
            f"reportgen: error: {ro / 'hist.sqlite'}: cannot open the history store (unable to open "
            f"database file); this user cannot write its directory {ro} (SQLite keeps a journal "
            f"beside the store); fix the permissions or give another history.path\n"
        )
        assert not (tmp_path / "out").exists()
        ro.chmod(0o755)
        assert run(str(cfg), "--out", str(tmp_path / "first")) == 0  # the store exists now
        ro.chmod(0o555)
        done = _python(code, "run", str(cfg), cwd=tmp_path, prefix=prefix)
        assert done.returncode == 2, done.stderr
        assert done.stderr.startswith(
            f"reportgen: error: {ro / 'hist.sqlite'}: cannot write the history store "
            f"(attempt to write a readonly database); this user cannot write its directory"
        )
        assert not (tmp_path / "out").exists()
    finally:
        ro.chmod(0o755)
    assert len(history.read(ro / "hist.sqlite")) == 1


@pytest.mark.slow  # reportgen in a subprocess under a resource limit: 3 to 6 s
def test_a_read_only_output_directory_is_refused_before_any_work(tmp_path: Path) -> None:
    """A report directory this user cannot write (mode 555) was found out only after the
    analysis, when the new set (given the directory's mode before its files were written)
    could not be filled."""
    prefix = _unprivileged()
    cfg = make_config(tmp_path, history=None)
    assert run(str(cfg)) == 0
    out = tmp_path / "out"
    before = {p.name: p.read_bytes() for p in out.iterdir()}
    code = "import sys; from reportgen.cli import main; sys.exit(main(sys.argv[1:]))"
    try:
        out.chmod(0o555)
        done = _python(code, "run", str(cfg), "--overwrite", cwd=tmp_path, prefix=prefix)
    finally:
        out.chmod(0o755)
    assert done.returncode == 2, done.stderr
    # one line, and no warning of the analysis before it: refused before any work
    assert done.stderr == (
        f"reportgen: error: {out}: this user cannot write this directory (mode 555); "
        f"make it writable (chmod u+w) or choose another --out\n"
    )
    assert {p.name: p.read_bytes() for p in out.iterdir()} == before
    assert sorted(p.name for p in tmp_path.iterdir() if p.name.startswith(".reportgen-")) == []


def test_a_failed_append_says_the_report_was_written(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch, capsys: pytest.CaptureFixture[str]
) -> None:
    """A store that fails after the check (the disk fills while it is appended to): the line
    said only "cannot record the run", as if nothing had been written."""
    cfg = make_config(tmp_path)

    def full(conn: sqlite3.Connection) -> None:  # the commit fails (the entry is committed with the report)
        raise sqlite3.OperationalError("database or disk is full")

    monkeypatch.setattr(history, "_commit", full)
    assert run(str(cfg)) == 2
    err = capsys.readouterr().err
    out = tmp_path / "out" / "metrics.json"
    assert err == (
        f"reportgen: error: {tmp_path / 'hist.sqlite'}: cannot record the run (database or disk is full); "
        f"is its disk full? free some space or give another history.path; the report was written ({out}) "
        f"but this run is missing from the history\n"
    )
    assert out.is_file()


def test_a_failed_append_still_prints_the_failed_checks(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch, capsys: pytest.CaptureFixture[str]
) -> None:
    """The exit code is 2 (an error outranks a failed check), but the failed check's line, which
    a scheduler's log is read for, was never printed: the history error came first and ended the run."""
    cfg = make_config(tmp_path, checks=[{"model": "a", "metric": "gini", "at_least": 0.99}])

    def full(conn: sqlite3.Connection) -> None:
        raise sqlite3.OperationalError("database or disk is full")

    monkeypatch.setattr(history, "_commit", full)
    assert cli.main(["run", str(cfg)]) == 2
    captured = capsys.readouterr()
    lines = [line for line in captured.err.splitlines() if not line.startswith("reportgen: warning:")]
    assert lines[0].startswith(f"reportgen: error: {cfg}: check failed: a: gini at least 0.99: gini = ")
    assert (
        lines[1].startswith(f"reportgen: error: {tmp_path / 'hist.sqlite'}: cannot record the run") and len(lines) == 2
    )
    assert captured.out == f"{cfg}: wrote {tmp_path / 'out' / 'metrics.json'}\n"


def test_reading_the_history_while_a_run_is_appended_sees_one_snapshot(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    """The runs and their numbers were read by two statements outside a transaction: a run
    committed between them had numbers without a run, and ``by_seq[seq]`` raised KeyError (an
    internal error, exit 1, in the trend of a run or in ``reportgen history``)."""
    cfg = make_config(tmp_path)
    assert run(str(cfg)) == 0
    store = tmp_path / "hist.sqlite"
    connect = history._connect

    class Between:
        """A connection that lets another one try to append a run after the first SELECT."""

        def __init__(self, conn: sqlite3.Connection) -> None:
            self.conn = conn

        def __getattr__(self, name: str):
            return getattr(self.conn, name)

        def execute(self, sql: str, *args):
            cur = self.conn.execute(sql, *args)
            if sql.startswith("SELECT seq, run_id"):
                rows = cur.fetchall()
                other = sqlite3.connect(store, timeout=0, isolation_level=None)
                try:
                    other.execute("BEGIN IMMEDIATE")
                    seq = other.execute(
                        "INSERT INTO runs (run_id, created, title, config_path, inputs) "
                        "VALUES ('x', 'c', 't', 'p', '[]')"
                    ).lastrowid
                    other.execute(
                        "INSERT INTO numbers (seq, kind, subject, metric, value) VALUES (?, 'model', 'a', 'gini', 0.5)",
                        (seq,),
                    )
                    other.execute("COMMIT")
                except sqlite3.OperationalError:  # the reader's snapshot holds: the writer waits its turn
                    if other.in_transaction:
                        other.execute("ROLLBACK")
                finally:
                    other.close()
                return SimpleNamespace(fetchall=lambda: rows)
            return cur

    before = history.read(store)
    monkeypatch.setattr(history, "_connect", lambda path, create: Between(connect(path, create)))
    assert history.read(store) == before


# --------------------------------------------------------------------------------------
# SQL sources
# --------------------------------------------------------------------------------------


def test_a_literal_password_in_the_url_query_is_refused_and_never_echoed() -> None:
    """libpq takes ``?password=`` too: such a URL was accepted, and the report and metrics.json
    keep the URL as written — the password with it."""
    text = yaml.safe_dump(
        {
            "title": "t",
            "label": "y",
            "models": [
                {
                    "name": "a",
                    "score": "s",
                    "source": {
                        "url": "postgresql://u@db:5432/risk?sslmode=require&Password=hunter2",
                        "query": "SELECT 1",
                    },
                }
            ],
        }
    )
    with pytest.raises(ConfigError) as err:
        parse_config(text, "q.yaml")
    assert "models[0].source.url: holds a literal secret (Password=…)" in str(err.value)
    assert "hunter2" not in str(err.value)
    ok = text.replace("Password=hunter2", "password=${DB_PASSWORD}")
    assert parse_config(ok, "q.yaml").models[0].source.url.endswith("password=${DB_PASSWORD}")


def test_a_password_from_the_environment_in_the_url_query_is_percent_encoded_and_masked() -> None:
    url, secret = resolve_url(
        "postgresql://u@h:5/db?host=${SOCK}&password=${PW}", "k", {"PW": "a@b&c=d/%", "SOCK": "/s"}
    )
    assert url == "postgresql://u@h:5/db?host=/s&password=a%40b%26c%3Dd%2F%25"
    assert secret == ["a@b&c=d/%"]  # what run_query masks in a driver's message


@pytest.mark.sql
def test_a_port_from_the_environment_is_a_one_line_error_not_an_internal_one(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch, capsys: pytest.CaptureFixture[str]
) -> None:
    """``postgresql://u:${PW}@${DB_HOST}:${DB_PORT}/risk`` (the usual scheduled form): the
    message's redacted URL read ``urlsplit(url).port``, which raises on ``${DB_PORT}``, so a
    server that was down gave "internal error (ValueError: Port could not be cast ...)", exit 1."""
    import adbc_driver_postgresql.dbapi  # noqa: F401 - a test dependency: missing, the test fails

    monkeypatch.setenv("PW", "s3cr3t-pw")
    monkeypatch.setenv("DB_HOST", "127.0.0.1")
    monkeypatch.setenv("DB_PORT", "1")  # nothing listens there: connection refused at once
    cfg = tmp_path / "q.yaml"
    cfg.write_text(
        yaml.safe_dump(
            {
                "title": "t",
                "label": "y",
                "models": [
                    {
                        "name": "a",
                        "score": "s",
                        "source": {
                            "url": "postgresql://scorer:${PW}@${DB_HOST}:${DB_PORT}/risk",
                            "query": "SELECT id, y, s FROM preds",
                        },
                    }
                ],
            }
        ),
        encoding="utf-8",
    )
    assert run(str(cfg), "--out", str(tmp_path / "out")) == 2
    err = capsys.readouterr().err
    assert err.startswith(f"reportgen: error: {cfg}:") and err.count("\n") == 1, err
    assert "models[0].source (postgresql://scorer@${DB_HOST}:${DB_PORT}/risk): " in err and "Connection refused" in err
    assert "s3cr3t-pw" not in err


@pytest.mark.sql
@pytest.mark.parametrize(
    ("value", "expected"),
    [
        ("abc", "column 's': non-numeric value 'abc'; expected a number (fix the data or cast it in the query)\n"),
        # was "np.float64(inf)"; a non-finite score is a missing one, as the pulled rows read it
        ("inf", "1 row(s) with missing or non-finite score in 's'; fix the data or set missing: drop\n"),
    ],
)
def test_a_text_score_pushed_down_is_a_one_line_error_not_an_internal_one(
    value: str, expected: str, tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    """SQLite keeps text in a REAL column: the pushed-down score table's text score reached
    ``astype(np.float64)`` and was "internal error (ValueError: could not convert string to
    float: 'abc')", exit 1 (pulled rows said which value, exit 2)."""
    import adbc_driver_sqlite.dbapi  # noqa: F401 - a test dependency: missing, the test fails

    with sqlite3.connect(tmp_path / "p.db") as conn:
        conn.execute("CREATE TABLE preds (id INTEGER, y INTEGER, s REAL)")
        conn.executemany(
            "INSERT INTO preds VALUES (?, ?, ?)", [(i, i % 2, str((i * 37 % 100) / 100)) for i in range(1, 61)]
        )
        conn.execute("INSERT INTO preds VALUES (61, 1, ?)", (value,))
    cfg = tmp_path / "q.yaml"
    source = {"url": "sqlite:///p.db", "query": "SELECT id, y, s FROM preds", "pushdown": True}
    cfg.write_text(
        yaml.safe_dump(
            {
                "title": "t",
                "label": "y",
                "bootstrap": {"resamples": 0},
                "output": {"formats": ["json"], "dir": "out"},
                "models": [{"name": "a", "score": "s", "source": source}],
            }
        ),
        encoding="utf-8",
    )
    assert run(str(cfg)) == 2
    err = capsys.readouterr().err
    assert err.startswith(f"reportgen: error: {cfg}:") and err.count("\n") == 1, err
    assert err.endswith(expected), err


@pytest.mark.dask
@pytest.mark.parametrize(
    ("address", "expected"),
    [
        (
            "tcp://scorer:hunter2@127.0.0.1:1",
            "scheduler: holds credentials (user@ or user:password@); give the scheduler's address as tcp://host:8786",
        ),
        ("tcp://127.0.0.1:1:2", "scheduler: 'tcp://127.0.0.1:1:2' is not a Dask scheduler address (invalid address"),
    ],
)
def test_a_scheduler_address_dask_cannot_parse_is_exit_2_and_never_echoes_a_password(
    address: str, expected: str, tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    """distributed refuses such addresses with a ValueError quoting them: "internal error
    (ValueError: invalid address 'scorer:hunter2@127.0.0.1:1' ...)", exit 1, the password printed."""
    import dask.distributed  # noqa: F401 - a test dependency: missing, the test fails

    cfg = make_config(tmp_path, history=None)
    assert run(str(cfg), "--engine", "dask", "--scheduler", address) == 2
    err = capsys.readouterr().err
    assert err.startswith(f"reportgen: error: {cfg}: {expected}") and err.count("\n") == 1, err
    assert "hunter2" not in err


#: ``reportgen run`` whose database cursor, as its query starts, has SIGTERM sent to the process
#: 0.3 s later (from another thread, as a scheduler's kill arrives).
SIGTERM_DURING_QUERY = """
import os, signal, sys, threading
import reportgen.io.sql as sql
module = sql._module
class Cursor:
    def __init__(self, cur): self.cur = cur
    def __getattr__(self, name): return getattr(self.cur, name)
    def execute(self, *args, **kwargs):
        threading.Timer(0.3, os.kill, (os.getpid(), signal.SIGTERM)).start()
        return self.cur.execute(*args, **kwargs)
class Connection:
    def __init__(self, conn): self.conn = conn
    def __enter__(self): return self
    def __exit__(self, *exc): return self.conn.__exit__(*exc)
    def cursor(self): return Cursor(self.conn.cursor())
class Dbapi:
    def __init__(self, module): self.module = module
    def connect(self, target, **kw): return Connection(self.module.connect(target, **kw).__enter__())
sql._module = lambda name, key: Dbapi(module(name, key)) if name.startswith('adbc') else module(name, key)
from reportgen.cli import main
sys.exit(main(sys.argv[1:]))
"""


@pytest.mark.slow
@pytest.mark.sql
def test_sigterm_during_a_long_query_is_answered_at_once(tmp_path: Path) -> None:
    """A query runs inside one call into the driver's C code, where Python runs no signal
    handler: a SIGTERM sent during a long query stopped the run only when the query ended."""
    import adbc_driver_sqlite.dbapi  # noqa: F401 - a test dependency: missing, the test fails

    db = tmp_path / "p.db"
    with sqlite3.connect(db) as conn:
        conn.execute("CREATE TABLE preds (id INTEGER, y INTEGER, s REAL)")
        conn.executemany("INSERT INTO preds VALUES (?, ?, ?)", [(i, i % 2, (i * 37 % 100) / 100) for i in range(1, 61)])
    # a query that computes for many seconds before its first row (a slow server's query)
    slow = (
        "WITH RECURSIVE c(x) AS (SELECT 1 UNION ALL SELECT x + 1 FROM c WHERE x < 300000000) "
        "SELECT id, y, s FROM preds WHERE id > (SELECT count(*) FROM c) - 300000000"
    )
    _sigterm_during_query(tmp_path, "sqlite:///p.db", slow, within=15)


def _sigterm_during_query(folder: Path, url: str, query: str, within: float) -> None:
    """Run a one-model config reading ``query`` from ``url`` with SIGTERM sent 0.3 s after the
    query starts: exit 143 with the one line, within ``within`` seconds of the start, nothing written."""
    cfg = folder / "q.yaml"
    cfg.write_text(
        yaml.safe_dump(
            {
                "title": "t",
                "label": "y",
                "bootstrap": {"resamples": 0},
                "output": {"formats": ["json"], "dir": "out"},
                "models": [{"name": "a", "score": "s", "source": {"url": url, "query": query}}],
            }
        ),
        encoding="utf-8",
    )
    started = time.monotonic()
    done = _python(SIGTERM_DURING_QUERY, "run", str(cfg), "-q", cwd=folder)
    elapsed = time.monotonic() - started
    assert done.returncode == 143, done.stderr
    assert (
        done.stderr
        == f"reportgen: error: {cfg}: interrupted by SIGTERM; nothing was written, the previous report is intact\n"
    )
    assert elapsed < within, f"the run stopped {elapsed:.1f} s after it started"
    assert not (folder / "out").exists()


@pytest.mark.slow
@pytest.mark.sql
def test_sigterm_during_a_long_postgresql_query_cancels_it_on_the_server(tmp_path: Path) -> None:
    """The same with a real PostgreSQL (pgserver, a test dependency): the run
    stops at once, and the query does not go on running on the server after the client left."""
    import adbc_driver_postgresql.dbapi as dbapi
    import pgserver

    root = tmp_path / "pg"
    try:
        srv = pgserver.get_server(root, cleanup_mode="delete")  # cleanup() leaves no atexit hook
    except Exception as exc:  # noqa: BLE001 - a server that cannot start here is a skip with its reason
        pytest.skip(f"PostgreSQL (pgserver) could not start: {exc}")
    try:
        url = f"postgresql://postgres@/postgres?host={root}"
        _sigterm_during_query(
            tmp_path,
            url,
            "SELECT g AS id, g % 2 AS y, g / 10.0 AS s FROM generate_series(1, 10) g, pg_sleep(60) reportgen_slow",
            within=20,
        )
        with dbapi.connect(url) as conn:
            cur = conn.cursor()
            cur.execute(
                "SELECT count(*) FROM pg_stat_activity WHERE query LIKE '%reportgen_slow%' AND pid <> pg_backend_pid()"
            )
            assert cur.fetchall() == [(0,)]  # cancelled, not left sleeping for a minute
            cur.close()
    finally:
        srv.cleanup()


# --------------------------------------------------------------------------------------
# Temporary files on a full disk
# --------------------------------------------------------------------------------------

#: ``reportgen run`` with files limited to 64 KB (RLIMIT_FSIZE, as ``ulimit -f``): a write past
#: it fails with EFBIG, as one on a full disk fails with ENOSPC (Python ignores SIGXFSZ).
LIMITED = """
import resource, sys
resource.setrlimit(resource.RLIMIT_FSIZE, (64 * 1024, 64 * 1024))
from reportgen.cli import main
sys.exit(main(sys.argv[1:]))
"""


@pytest.mark.slow  # reportgen in a subprocess under a resource limit: 3 to 6 s
@pytest.mark.parametrize("source", ["files", "sql"])
def test_a_full_temporary_disk_is_exit_2_with_one_line(source: str, tmp_path: Path) -> None:
    """The stream engine spills the paired rows, and a SQL source its rows, to temporary files:
    a full disk there was "internal error (OSError: [Errno 27] File too large)", exit 1."""
    rng = random.Random(3)
    rows = [(i, i % 2, round(rng.random(), 6)) for i in range(1, 20001)]
    models = []
    if source == "files":
        for name in ("a", "b"):
            (tmp_path / f"{name}.csv").write_text(
                "id,y,s\n" + "".join(f"{i},{y},{rng.random():.6f}\n" for i, y, _ in rows), encoding="utf-8"
            )
            models.append({"name": name, "file": f"{name}.csv", "score": "s"})
        what = "the paired rows"
    else:
        import adbc_driver_sqlite.dbapi  # noqa: F401 - a test dependency: missing, the test fails

        with sqlite3.connect(tmp_path / "p.db") as conn:
            conn.execute("CREATE TABLE preds (id INTEGER, y INTEGER, s REAL)")
            conn.executemany("INSERT INTO preds VALUES (?, ?, ?)", rows)
        models.append(
            {"name": "a", "score": "s", "source": {"url": "sqlite:///p.db", "query": "SELECT id, y, s FROM preds"}}
        )
        what = "the rows of"
    cfg = tmp_path / "q.yaml"
    cfg.write_text(
        yaml.safe_dump(
            {
                "title": "t",
                "label": "y",
                "id": "id",
                "bootstrap": {"resamples": 0},
                "engine": "stream",
                "output": {"formats": ["json"], "dir": "out"},
                "models": models,
            }
        ),
        encoding="utf-8",
    )
    scratch = tmp_path / "scratch"
    scratch.mkdir()
    env = {**os.environ, "PYTHONPATH": str(ROOT), "TMPDIR": str(scratch)}
    done = subprocess.run(
        [sys.executable, "-c", LIMITED, "run", str(cfg), "-q"],
        env=env,
        cwd=tmp_path,
        capture_output=True,
        text=True,
        timeout=120,
    )
    assert done.returncode == 2, done.stderr
    assert done.stderr.startswith(f"reportgen: error: {scratch}: cannot write {what}") and done.stderr.count("\n") == 1
    assert done.stderr.endswith(
        "to a temporary file there (File too large); free some space there or point TMPDIR at a larger disk\n"
    ), done.stderr
    assert list(scratch.iterdir()) == [] and not (tmp_path / "out").exists()


@pytest.mark.slow  # reportgen in a subprocess under a resource limit: 3 to 6 s
def test_a_history_store_on_a_full_disk_is_refused_before_any_work_and_says_so(tmp_path: Path) -> None:
    """SQLite's "disk I/O error" (its journal cannot be written) came with the advice to check
    history.path and the filesystem's locks."""
    cfg = make_config(tmp_path)
    assert run(str(cfg), "--out", str(tmp_path / "first")) == 0
    code = LIMITED.replace("64 * 1024", "4 * 1024")
    done = _python(code, "run", str(cfg), "-q", cwd=tmp_path)
    assert done.returncode == 2, done.stderr
    assert done.stderr == (
        f"reportgen: error: {tmp_path / 'hist.sqlite'}: cannot write the history store (disk I/O error); "
        f"is its disk full? free some space or give another history.path\n"
    )
    assert not (tmp_path / "out").exists()
    assert len(history.read(tmp_path / "hist.sqlite")) == 1


@pytest.mark.slow  # reportgen in a subprocess under a resource limit: 3 to 6 s
def test_init_on_a_full_disk_leaves_no_truncated_config(tmp_path: Path) -> None:
    """``reportgen init`` wrote the starter config in place: a full disk left a truncated file,
    which the next ``init`` refused to replace ("already exists") and ``validate`` read as a config."""
    make_config(tmp_path, history=None)
    code = LIMITED.replace("64 * 1024", "512")  # the starter config takes about 1 KB
    done = _python(code, "init", "a.csv", "--out", "starter.yaml", cwd=tmp_path)
    assert done.returncode == 2, done.stderr
    assert done.stderr == (
        "reportgen: error: starter.yaml: cannot write the config (File too large); choose another file with --out\n"
    )
    assert not [p.name for p in tmp_path.iterdir() if "starter" in p.name]
    assert cli.main(["init", str(tmp_path / "a.csv"), "--out", str(tmp_path / "starter.yaml"), "-q"]) == 0


@pytest.mark.slow  # reportgen in a subprocess under a resource limit: 3 to 6 s
def test_a_full_disk_while_the_workbook_is_saved_prints_one_line_and_no_traceback(tmp_path: Path) -> None:
    """openpyxl stages each sheet in a temporary file through a generator, and ``save`` leaves its
    zip file open when a write fails: collected later, they failed again and printed "Exception
    ignored in ..." tracebacks on stderr after the one-line error."""
    import openpyxl  # noqa: F401 - a test dependency: missing, the test fails

    cfg = make_config(tmp_path, history=None)
    scratch = tmp_path / "scratch"
    scratch.mkdir()
    env = {**os.environ, "PYTHONPATH": str(ROOT), "TMPDIR": str(scratch)}
    code = LIMITED.replace("64 * 1024", "2 * 1024")
    done = subprocess.run(
        [sys.executable, "-c", code, "run", str(cfg), "--format", "xlsx", "-q"],
        env=env,
        cwd=tmp_path,
        capture_output=True,
        text=True,
        timeout=120,
    )
    assert done.returncode == 2, done.stderr
    assert done.stderr == (
        f"reportgen: error: {tmp_path / 'out'}: writing the report failed (File too large); "
        f"choose another --out; nothing was replaced\n"
    )
    assert not (tmp_path / "out").exists()


# --------------------------------------------------------------------------------------
# Standard streams a scheduler closed, or whose reader left
# --------------------------------------------------------------------------------------

RUN = "import sys; from reportgen.cli import main; sys.exit(main(sys.argv[1:]))"


def _env() -> dict[str, str]:
    env = {**os.environ, "PYTHONPATH": str(ROOT)}
    env.pop("REPORTGEN_NOW", None)
    return env


@pytest.mark.slow  # reportgen in a subprocess under a resource limit: 3 to 6 s
def test_a_closed_stderr_still_writes_the_report(tmp_path: Path) -> None:
    """Started with stderr closed (``2>&-``, some supervisors), Python's ``sys.stderr`` is None:
    ``sys.stderr.isatty()`` raised before the analysis, "internal error", exit 1, no report."""
    cfg = make_config(tmp_path, history=None)
    done = subprocess.run(
        ["sh", "-c", 'exec "$0" -c "$1" run "$2" 2>&-', sys.executable, RUN, str(cfg)],
        env=_env(),
        cwd=tmp_path,
        capture_output=True,
        text=True,
        timeout=120,
    )
    assert done.returncode == 0
    assert done.stdout == f"{cfg}: wrote {tmp_path / 'out' / 'metrics.json'}\n"
    assert (tmp_path / "out" / "metrics.json").is_file()


@pytest.mark.slow  # reportgen in a subprocess under a resource limit: 3 to 6 s
@pytest.mark.parametrize("stdout", ["a pipe whose reader left", "/dev/full"])
def test_stdout_that_cannot_be_written_is_not_an_internal_error_after_the_report(stdout: str, tmp_path: Path) -> None:
    """``reportgen run ... | head -0`` or a log on a full disk: printing the "wrote" line raised
    BrokenPipeError / ENOSPC once the report was written: "internal error", exit 1 (and the
    interpreter's own last flush failed again)."""
    if stdout == "/dev/full" and not Path("/dev/full").exists():
        pytest.skip("no /dev/full here")
    cfg = make_config(tmp_path, history=None)
    with open(os.devnull if stdout != "/dev/full" else "/dev/full", "w") as sink:
        proc = subprocess.Popen(
            [sys.executable, "-c", RUN, "run", str(cfg)],
            env=_env(),
            cwd=tmp_path,
            stdout=subprocess.PIPE if stdout != "/dev/full" else sink,
            stderr=subprocess.PIPE,
            text=True,
        )
        if proc.stdout is not None:
            proc.stdout.close()  # the reader leaves before the command prints anything
        _, err = proc.communicate(timeout=120)
    assert proc.returncode == 0, err
    assert "error" not in err and "Traceback" not in err and "Exception ignored" not in err, err
    assert (tmp_path / "out" / "metrics.json").is_file()


# --------------------------------------------------------------------------------------
# Values from the command line
# --------------------------------------------------------------------------------------


def test_a_missing_variable_in_a_set_value_names_the_command_line(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch, capsys: pytest.CaptureFixture[str]
) -> None:
    """``--set output.dir=${RUN_DIR}/x`` with RUN_DIR unset pointed at the file's line of
    ``output.dir`` (which holds another value), not at the --set item."""
    monkeypatch.delenv("RUN_DIR", raising=False)
    cfg = make_config(tmp_path)
    assert cli.main(["validate", str(cfg), "--set", "output.dir=${RUN_DIR}/x"]) == 2
    assert capsys.readouterr().err == (
        f"reportgen: error: {cfg}: output.dir (from --set): environment variable RUN_DIR "
        f"is not set; export it, or write ${{RUN_DIR:-default}} for a default\n"
    )


def test_an_empty_now_is_exit_2_not_the_wall_clock(tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    """``--now {{ ... }}`` whose template rendered to nothing gave an empty --now, taken as
    "not pinned": the run went on with the wall clock, silently not reproducible."""
    cfg = make_config(tmp_path)
    assert run(str(cfg), "--now", "") == 2
    assert capsys.readouterr().err == (
        "reportgen: error: --now '': not an ISO 8601 timestamp (e.g. 2026-01-31T06:00:00Z)\n"
    )
    assert not (tmp_path / "out").exists() and not (tmp_path / "hist.sqlite").exists()
