"""An interrupted run leaves a report and its history entry together or neither: a signal between
the report's commit and the history's, two runs recording one run id, temporary directories a SIGKILL left behind,
the resource tracker's note after a killed Dask run, and more hostile inputs.

Each test is named after what broke. Processes are real where a signal is the point (sent at an
exact moment by a patched function, never after a guessed sleep); the rest run
``reportgen.cli.main`` in-process.
"""

from __future__ import annotations

import json
import os
import sqlite3
import subprocess
import sys
import time
from pathlib import Path

import pytest
from test_scheduled_run_faults import ROOT, SIGNAL_AT, _python, make_config, run

from reportgen import cli, history


def _metrics(out: Path) -> dict:
    return json.loads((out / "metrics.json").read_text(encoding="utf-8"))


# --------------------------------------------------------------------------------------
# The report and its history entry: both or neither
# --------------------------------------------------------------------------------------


@pytest.mark.slow  # real reportgen processes signalled mid-run: 3 to 10 s
def test_sigterm_during_the_swap_records_the_run_with_its_report(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    """The entry was appended after the swap, outside the held-signal section: a SIGTERM there left
    the new report without its history entry, and the rerun was refused ("a report already
    exists") with the history one run short. Now the entry is committed inside the swap's
    held-signal section: the report and its entry are both there, the line says what to do, and
    the rerun's refusal names the run that wrote the report."""
    cfg = make_config(tmp_path)
    assert run(str(cfg), "--now", "2026-01-01T00:00:00Z") == 0
    done = _python(
        SIGNAL_AT,
        "reportgen.report.writer:_swap",
        "SIGTERM",
        "run",
        str(cfg),
        "--overwrite",
        "--now",
        "2026-02-02T00:00:00Z",
        "-q",
        cwd=tmp_path,
    )
    assert done.returncode == 143, done.stderr
    assert done.stderr == (
        f"reportgen: error: {cfg}: interrupted by SIGTERM just after the new report was written "
        f"({tmp_path / 'out' / 'metrics.json'}); stopped (the report is complete; to run again, "
        f"pass --overwrite)\n"
    )
    written = _metrics(tmp_path / "out")["run"]
    assert written["created"] == "2026-02-02T00:00:00Z"
    assert [r["run_id"] for r in history.read(tmp_path / "hist.sqlite")][-1] == written["run_id"]
    capsys.readouterr()
    assert run(str(cfg)) == 2
    assert capsys.readouterr().err == (
        f"reportgen: error: {tmp_path / 'out' / 'metrics.json'}: a report already exists (run {written['run_id']} of "
        f"2026-02-02T00:00:00Z, complete); pass --overwrite (or set output.overwrite: true) to replace it, "
        f"or choose another --out\n"
    )


@pytest.mark.slow  # real reportgen processes signalled mid-run: 3 to 10 s
def test_sigterm_while_the_entry_is_prepared_writes_neither(tmp_path: Path) -> None:
    """The entry is written (not committed) once the set is staged, before the swap; a signal while
    it waits for the store or writes leaves the previous report and the history as they were."""
    cfg = make_config(tmp_path)
    assert run(str(cfg), "--now", "2026-01-01T00:00:00Z") == 0
    before = (tmp_path / "out" / "metrics.json").read_bytes()
    done = _python(
        SIGNAL_AT,
        "reportgen.history:_insert",
        "SIGTERM",
        "run",
        str(cfg),
        "--overwrite",
        "--now",
        "2026-02-02T00:00:00Z",
        "-q",
        cwd=tmp_path,
    )
    assert done.returncode == 143, done.stderr
    assert (
        done.stderr
        == f"reportgen: error: {cfg}: interrupted by SIGTERM; nothing was written, the previous report is intact\n"
    )
    assert (tmp_path / "out" / "metrics.json").read_bytes() == before
    assert [r["created"] for r in history.read(tmp_path / "hist.sqlite")] == ["2026-01-01T00:00:00Z"]
    assert sorted(p.name for p in tmp_path.iterdir() if p.name.startswith(".reportgen-")) == []


def test_a_store_that_fails_before_the_swap_leaves_the_previous_report(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch, capsys: pytest.CaptureFixture[str]
) -> None:
    """A store that breaks between the check and the commit (the disk fills) is found while the
    entry is written, before the swap: nothing replaced, and the line says so."""
    cfg = make_config(tmp_path)
    assert run(str(cfg), "--now", "2026-01-01T00:00:00Z") == 0
    before = (tmp_path / "out" / "metrics.json").read_bytes()

    def full(conn: sqlite3.Connection, result) -> int:
        raise sqlite3.OperationalError("database or disk is full")

    monkeypatch.setattr(history, "_insert", full)
    capsys.readouterr()
    assert run(str(cfg), "--overwrite", "--now", "2026-02-02T00:00:00Z") == 2
    assert capsys.readouterr().err == (
        f"reportgen: error: {tmp_path / 'hist.sqlite'}: cannot record the run (database or disk is full); is its disk "
        f"full? free some space or give another history.path; nothing was written, the previous report is intact\n"
    )
    assert (tmp_path / "out" / "metrics.json").read_bytes() == before
    assert len(history.read(tmp_path / "hist.sqlite")) == 1


def test_a_rerun_of_the_same_run_is_recorded_once(tmp_path: Path) -> None:
    """Two runs of one config with the same inputs at the same instant (``--now`` pinned, or two
    jobs started in one second) have one run id; both were appended, so the history held the run
    twice and the trend showed it twice."""
    cfg = make_config(tmp_path)
    for _ in range(2):
        assert run(str(cfg), "--overwrite", "--now", "2026-01-01T00:00:00Z") == 0
    runs = history.read(tmp_path / "hist.sqlite")
    assert [r["run_id"] for r in runs] == [_metrics(tmp_path / "out")["run"]["run_id"]]
    trend = _metrics(tmp_path / "out")["trend"]
    assert len({p["run_id"] for p in trend}) == 1 and len(trend) == len(runs[0]["numbers"])


@pytest.mark.slow
def test_concurrent_overwriting_runs_record_one_entry_per_run_id(tmp_path: Path) -> None:
    """Two processes running one config with ``--overwrite`` into one directory at once: each run
    that wrote the report recorded it, the same run id twice."""
    cfg = make_config(tmp_path, output={"formats": ["json"], "dir": "out/{run_id}"})
    env = {**os.environ, "PYTHONPATH": str(ROOT)}
    env.pop("REPORTGEN_NOW", None)
    argv = [sys.executable, "-m", "reportgen", "run", str(cfg), "--overwrite", "--now", "2026-01-01T00:00:00Z", "-q"]
    procs = [subprocess.Popen(argv, env=env, cwd=tmp_path, stderr=subprocess.PIPE, text=True) for _ in range(3)]
    results = [(p.wait(timeout=180), p.stderr.read()) for p in procs]
    for p in procs:
        p.stderr.close()
    assert all(code in (0, 2) for code, _ in results), results
    assert any(code == 0 for code, _ in results), results
    for code, err in results:  # a loser was told another run was writing; nothing else
        assert code == 0 or "another reportgen run" in err, err
    runs = history.read(tmp_path / "hist.sqlite")
    assert len(runs) == 1, [r["run_id"] for r in runs]
    (out,) = (tmp_path / "out").iterdir()
    assert runs[0]["run_id"] == out.name == _metrics(out)["run"]["run_id"]


# --------------------------------------------------------------------------------------
# Temporary directories left by a SIGKILL
# --------------------------------------------------------------------------------------


def _sql_config(tmp_path: Path) -> Path:
    import adbc_driver_sqlite.dbapi  # noqa: F401 - a test dependency: missing, the test fails

    cfg = make_config(tmp_path, history=None, engine="stream")
    with sqlite3.connect(tmp_path / "p.db") as conn:
        conn.execute("CREATE TABLE preds (id INTEGER, y INTEGER, s REAL)")
        conn.executemany("INSERT INTO preds VALUES (?, ?, ?)", [(i, i % 2, (i * 37 % 101) / 101) for i in range(1, 61)])
    text = cfg.read_text(encoding="utf-8").replace(
        "- file: a.csv\n  name: a\n  score: s",
        "- name: a\n  score: s\n  source: {url: 'sqlite:///p.db', query: 'SELECT id, y, s FROM preds'}",
    )
    assert "p.db" in text, text
    cfg.write_text(text, encoding="utf-8")
    return cfg


@pytest.mark.slow  # real reportgen processes signalled mid-run: 3 to 10 s
@pytest.mark.sql
def test_a_sigkilled_runs_temporary_files_are_removed_by_the_next_run(tmp_path: Path) -> None:
    """A run killed by SIGKILL (the OOM killer, a scheduler's hard kill) left its
    ``reportgen-sql-*`` directory (the rows of a database source, as large as the query's result)
    in TMPDIR for good. Now every temporary file of a command lives in one private directory,
    locked for the command's life; the next command removes those whose lock is free."""
    cfg = _sql_config(tmp_path)
    scratch = tmp_path / "scratch"
    scratch.mkdir()
    env = {**os.environ, "PYTHONPATH": str(ROOT), "TMPDIR": str(scratch)}
    env.pop("REPORTGEN_NOW", None)
    killed = subprocess.run(
        [sys.executable, "-c", SIGNAL_AT, "reportgen.io.sql:relabel", "SIGKILL", "run", str(cfg), "-q"],
        env=env,
        cwd=tmp_path,
        capture_output=True,
        text=True,
        timeout=120,
    )
    assert killed.returncode == -9, killed.stderr
    left = list(scratch.iterdir())
    assert [p.name.split(".")[0] for p in left] == ["reportgen-run"]
    assert [p.name.split("-")[1] for p in left[0].iterdir() if p.name != ".lock"] == ["sql"]
    done = subprocess.run(
        [sys.executable, "-m", "reportgen", "run", str(cfg), "-q"],
        env=env,
        cwd=tmp_path,
        capture_output=True,
        text=True,
        timeout=120,
    )
    assert done.returncode == 0, done.stderr
    assert list(scratch.iterdir()) == []


def test_a_live_commands_temporary_directory_is_never_removed(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    """The sweep removes only this user's ``reportgen-run.<hex>`` directories whose lock is free: not
    one whose command is alive (its lock held, here by another process), not a symlink with that
    name, not a directory of that name without the lock file, nor anything else in TMPDIR."""
    cfg = make_config(tmp_path, history=None)
    scratch = tmp_path / "scratch"
    scratch.mkdir()
    live = scratch / "reportgen-run.0123456789abcdef"
    live.mkdir()
    (live / ".lock").touch()
    (live / "reportgen-sql-x").mkdir()
    unlocked = scratch / "reportgen-run.1111111111111111"
    unlocked.mkdir()
    (unlocked / "data").touch()
    target = tmp_path / "elsewhere"
    target.mkdir()
    (target / ".lock").touch()
    (scratch / "reportgen-run.2222222222222222").symlink_to(target)
    (scratch / "reportgen-sql-other").mkdir()
    holder = subprocess.Popen(
        [
            sys.executable,
            "-c",
            "import fcntl, os, sys, time; fd = os.open(sys.argv[1], os.O_RDWR); "
            "fcntl.flock(fd, fcntl.LOCK_EX); print('locked', flush=True); time.sleep(120)",
            str(live / ".lock"),
        ],
        stdout=subprocess.PIPE,
        text=True,
    )
    try:
        assert holder.stdout is not None and holder.stdout.readline() == "locked\n"
        monkeypatch.setenv("TMPDIR", str(scratch))
        monkeypatch.setattr("tempfile.tempdir", None)
        assert run(str(cfg)) == 0
    finally:
        holder.kill()
        holder.wait()
        if holder.stdout is not None:
            holder.stdout.close()
    assert sorted(p.name for p in scratch.iterdir()) == [
        "reportgen-run.0123456789abcdef",
        "reportgen-run.1111111111111111",
        "reportgen-run.2222222222222222",
        "reportgen-sql-other",
    ]
    assert (live / "reportgen-sql-x").is_dir() and (target / ".lock").is_file()
    # the holder is gone now: its directory goes with the next command
    assert run(str(cfg), "--overwrite") == 0
    assert not live.exists()


def test_the_private_temporary_directory_is_restored_and_removed(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    """``main`` runs in-process too (tests, library users): the temporary directory it pointed
    ``tempfile`` at is put back and removed when it returns."""
    import tempfile

    cfg = make_config(tmp_path, history=None)
    monkeypatch.setenv("TMPDIR", str(tmp_path))
    monkeypatch.setattr("tempfile.tempdir", None)
    before = tempfile.gettempdir()
    assert run(str(cfg)) == 0
    assert tempfile.gettempdir() == before
    assert not [p for p in tmp_path.iterdir() if p.name.startswith("reportgen-")]


# --------------------------------------------------------------------------------------
# kill -9 under engine: dask
# --------------------------------------------------------------------------------------

KILL_AFTER_CLUSTER = """
import os, signal, sys
if __name__ == "__main__":  # the cluster's workers are spawned: they import this module
    import reportgen.reduce.dask as d
    original = d.client_for
    def started(cfg):
        client = original(cfg)
        os.kill(os.getpid(), signal.SIGKILL)
        return client
    d.client_for = started
    from reportgen.cli import main
    sys.exit(main(sys.argv[1:]))
"""


@pytest.mark.dask
@pytest.mark.slow
def test_kill_9_under_dask_prints_no_leaked_semaphore_warning(tmp_path: Path) -> None:
    """multiprocessing's resource tracker outlives a run killed with its local Dask cluster
    running, unlinks the nannies' semaphores and warned "There appear to be 12 leaked semaphore
    objects to clean up at shutdown" on the stderr the run had (a scheduler's log, read with the
    next run's lines). Harmless: the tracker just cleaned them up; it keeps that note to itself."""
    import dask.distributed  # noqa: F401 - a test dependency: missing, the test fails

    cfg = make_config(tmp_path, history=None, engine="dask")
    script = tmp_path / "kill_after_cluster.py"
    script.write_text(KILL_AFTER_CLUSTER, encoding="utf-8")
    env = {**os.environ, "PYTHONPATH": str(ROOT)}
    # stderr is a pipe: read to its end, once every process that had it (the tracker, the workers) is gone
    killed = subprocess.run(
        [sys.executable, str(script), "run", str(cfg), "-q"],
        env=env,
        cwd=tmp_path,
        capture_output=True,
        text=True,
        timeout=180,
    )
    assert killed.returncode == -9
    assert "leaked semaphore" not in killed.stderr, killed.stderr
    done = subprocess.run(
        [sys.executable, "-m", "reportgen", "run", str(cfg), "-q", "--overwrite"],
        env=env,
        cwd=tmp_path,
        capture_output=True,
        text=True,
        timeout=180,
    )
    assert done.returncode == 0, done.stderr
    assert done.stderr == ""


def test_the_resource_trackers_warning_option_is_put_back() -> None:
    """The filter is handed to the tracker through ``sys.warnoptions`` only while ``main`` runs."""
    before = list(sys.warnoptions)
    seen = []
    original = cli._command

    def spy(*args):
        seen.append(list(sys.warnoptions))
        return original(*args)

    with pytest.MonkeyPatch.context() as mp:
        mp.setattr(cli, "_command", spy)
        assert cli.main(["history", "/nonexistent/x.sqlite", "-q"]) == 2
    assert seen == [[*before, cli.TRACKER_WARNINGS]] and sys.warnoptions == before


# --------------------------------------------------------------------------------------
# The history's entries, as found
# --------------------------------------------------------------------------------------


def test_an_entry_of_a_foreign_kind_is_damage_not_a_trend_render_refuses(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    """A number whose kind is neither ``model`` nor ``comparison`` (the schema's CHECK turned off,
    another program) went into the report's trend: the run wrote a ``metrics.json`` that
    ``reportgen render`` then refused (``trend[0].kind``). It is damage, found before any work."""
    cfg = make_config(tmp_path)
    assert run(str(cfg), "--now", "2026-01-01T00:00:00Z") == 0
    store = tmp_path / "hist.sqlite"
    with sqlite3.connect(store) as conn:
        conn.executescript("PRAGMA ignore_check_constraints = 1; UPDATE numbers SET kind = 'zzz' WHERE rowid = 1;")
    before = store.read_bytes()
    capsys.readouterr()
    assert run(str(cfg), "--overwrite", "--now", "2026-02-01T00:00:00Z") == 2
    assert capsys.readouterr().err == (
        f"reportgen: error: {store}: a damaged history store (run 1: 'a' 'gini' is of kind 'zzz', not one of model, "
        f"comparison); restore it from a backup or give another history.path\n"
    )
    assert store.read_bytes() == before
    assert _metrics(tmp_path / "out")["run"]["created"] == "2026-01-01T00:00:00Z"


def test_history_text_is_one_line_per_run_whatever_a_name_holds(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    """``reportgen history`` promises one line per run; a title or model name with a line break
    (a YAML block scalar) split a run's line in two."""
    cfg = make_config(tmp_path, title="Q3\nmonitoring")
    assert run(str(cfg)) == 0
    capsys.readouterr()
    assert cli.main(["history", str(tmp_path / "hist.sqlite")]) == 0
    lines = capsys.readouterr().out.splitlines()
    assert len(lines) == 2 and "Q3 monitoring" in lines[1], lines


@pytest.mark.slow  # real reportgen processes signalled mid-run: 3 to 10 s
def test_a_sigterm_while_a_reader_delays_the_commit_is_answered_at_once(tmp_path: Path) -> None:
    """The entry's commit runs with signals held (inside the report's swap) and waits for readers
    of the store: with a reader holding it, a SIGTERM waited up to a minute (a pod is killed 30 s
    after its SIGTERM). A pending signal now ends the wait: the run stops at once and says the
    report was written but not recorded."""
    cfg = make_config(tmp_path)
    assert run(str(cfg), "--now", "2026-01-01T00:00:00Z") == 0
    store = tmp_path / "hist.sqlite"
    reader = sqlite3.connect(store, isolation_level=None)
    reader.execute("BEGIN")
    reader.execute("SELECT * FROM runs").fetchall()  # a SHARED lock until the transaction ends
    try:
        started = time.monotonic()
        done = _python(
            SIGNAL_AT,
            "reportgen.history:_commit",
            "SIGTERM",
            "run",
            str(cfg),
            "--overwrite",
            "--now",
            "2026-02-02T00:00:00Z",
            "-q",
            cwd=tmp_path,
        )
        elapsed = time.monotonic() - started
    finally:
        reader.execute("ROLLBACK")
        reader.close()
    assert done.returncode == 143, done.stderr
    assert elapsed < 30, f"answered after {elapsed:.1f} s"
    assert done.stderr == (
        f"reportgen: error: {cfg}: interrupted by SIGTERM just after the new report was written "
        f"({tmp_path / 'out' / 'metrics.json'}); the run was not recorded in the history {store}; "
        f"stopped (the report is complete; to run again, pass --overwrite)\n"
    )
    assert [r["created"] for r in history.read(store)] == ["2026-01-01T00:00:00Z"]


def test_a_config_given_twice_in_one_run_is_named_once(tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    """``reportgen run q.yaml q.yaml`` said "configs q.yaml and q.yaml would both write their report here"."""
    cfg = make_config(tmp_path, history=None)
    assert run(str(cfg), str(cfg)) == 2
    assert (
        capsys.readouterr().err
        == f"reportgen: error: {cfg}: given twice in one run; give each config once; nothing was run\n"
    )


@pytest.mark.slow  # real reportgen processes signalled mid-run: 3 to 10 s
def test_sigkill_just_after_the_swap_finds_the_report_and_its_entry(tmp_path: Path) -> None:
    """The entry was committed after the swap's pause point ("swapped"): a SIGKILL there (the
    OOM killer, a pod's hard kill 30 s after its SIGTERM) left the new report without its entry.
    The entry is now committed right after the rename, before anything else."""
    cfg = make_config(tmp_path)
    assert run(str(cfg), "--now", "2026-01-01T00:00:00Z") == 0
    env = {**os.environ, "PYTHONPATH": str(ROOT), "REPORTGEN_TEST_PAUSE_AT": "swapped"}
    env.pop("REPORTGEN_NOW", None)
    proc = subprocess.Popen(
        [sys.executable, "-m", "reportgen", "run", str(cfg), "--overwrite", "--now", "2026-02-02T00:00:00Z", "-q"],
        env=env,
        cwd=tmp_path,
        stderr=subprocess.PIPE,
        text=True,
    )
    try:
        assert proc.stderr is not None
        assert proc.stderr.readline() == "reportgen: test pause at swapped\n"
        proc.kill()
        proc.wait(timeout=60)
    finally:
        if proc.poll() is None:
            proc.kill()
        if proc.stderr is not None:
            proc.stderr.close()
    written = _metrics(tmp_path / "out")["run"]
    assert written["created"] == "2026-02-02T00:00:00Z"
    assert [r["run_id"] for r in history.read(tmp_path / "hist.sqlite")][-1] == written["run_id"]
