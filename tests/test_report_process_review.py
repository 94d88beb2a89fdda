"""Review of the report process (reportgen.report.documents.ReportProcess) and of the forked helpers'
set-up (reportgen.report.children.child_of), in a scheduled job's terms.

A signal that reaches a helper between ``os.fork()`` and :func:`~reportgen.report.children.child_of`
(a SIGTERM or SIGINT sent to the process group: ``systemctl stop``, Ctrl-C, ``kill -- -PGID``)
found the command's handler still installed in it: :class:`~reportgen.report.writer.Interrupted` was
raised in the forked copy of the command, outside the helper's own code, and that copy ran the
command's clean-up as if it were the command: a second "interrupted" line on stderr, a second
exit, and the private temporary directory of the real command removed under it (whose report
then failed: "writing the report failed (No such file or directory)", exit 2). The signal is
delivered here at the exact moment (``os.fork`` wrapped), not after a sleep.
"""

from __future__ import annotations

import os
import subprocess
import sys
from pathlib import Path

import pytest

from reportgen.report import documents

ROOT = Path(__file__).resolve().parent.parent
PINNED = "2026-01-01T00:00:00Z"

linux_only = pytest.mark.skipif(not sys.platform.startswith("linux"), reason="the helpers fork (Linux only)")

#: ``reportgen run`` in-process with every ``os.fork`` of the given caller followed, in the forked
#: child, by a signal: to that child alone, or to the whole process group (the command too).
SIGNAL_AFTER_FORK = """
import os, signal, sys
from pathlib import Path
SIG, WHO, CALLER = getattr(signal, sys.argv[1]), sys.argv[2], sys.argv[3]
real = os.fork
def fork():
    caller = Path(sys._getframe(1).f_code.co_filename).stem
    pid = real()
    if pid == 0 and caller == CALLER:
        os.kill(0 if WHO == "group" else os.getpid(), SIG)
    return pid
os.fork = fork
from reportgen.cli import main
code = main(["run", sys.argv[4], "--out", sys.argv[5], "--now", "2026-01-01T00:00:00Z", "--quiet", "--overwrite"])
print("exit", code, os.getpid(), flush=True)
"""


@pytest.fixture(scope="module")
def config(tmp_path_factory, fast_config_factory) -> Path:
    path = tmp_path_factory.mktemp("review") / "demo.yaml"
    return fast_config_factory(path, output={"formats": ["pdf", "json"]})


def _run(config: Path, out: Path, signame: str, who: str, caller: str, **env: str) -> subprocess.CompletedProcess[str]:
    env = {**os.environ, "PYTHONPATH": str(ROOT), **env}
    env.pop("REPORTGEN_TEST_PAUSE_AT", None)
    return subprocess.run([sys.executable, "-c", SIGNAL_AFTER_FORK, signame, who, caller, str(config), str(out)],
                          env=env, capture_output=True, text=True, timeout=300, start_new_session=True)


@linux_only
@pytest.mark.parametrize("signame", ["SIGTERM", "SIGINT"])
def test_a_signal_just_after_the_report_process_forks_is_ignored_by_it(signame, config, tmp_path):
    done = _run(config, tmp_path / "out", signame, "child", "documents",
                **{documents.PROCESS_ENV: "1", "REPORTGEN_FIGURE_PROCESSES": "1"})
    # one command, one exit: the forked process never runs the command's code
    assert done.stdout.count("exit") == 1, (done.stdout, done.stderr)
    assert done.stdout.startswith("exit 0 "), (done.stdout, done.stderr)
    assert "interrupted" not in done.stderr
    assert sorted(p.name for p in (tmp_path / "out").iterdir()) == ["metrics.json", "report.pdf"]


@linux_only
@pytest.mark.parametrize(("signame", "code"), [("SIGTERM", 143), ("SIGINT", 130)])
def test_a_group_signal_just_after_the_report_process_forks_stops_the_command_once(signame, code, config, tmp_path):
    (tmp_path / "out").mkdir()
    done = _run(config, tmp_path / "out", signame, "group", "documents",
                **{documents.PROCESS_ENV: "1", "REPORTGEN_FIGURE_PROCESSES": "1"})
    assert done.stdout.split()[:2] == ["exit", str(code)] and done.stdout.count("exit") == 1, (done.stdout, done.stderr)
    assert done.stderr.count("interrupted") == 1, done.stderr
    assert f"interrupted by {signame}; nothing was written" in done.stderr
    assert list((tmp_path / "out").iterdir()) == []


@linux_only
def test_a_signal_just_after_a_figure_worker_forks_is_ignored_by_it(config, tmp_path):
    done = _run(config, tmp_path / "out", "SIGTERM", "child", "popen_fork",  # multiprocessing/popen_fork.py forks them
                **{documents.PROCESS_ENV: "0", "REPORTGEN_FIGURE_PROCESSES": "2"})
    assert done.stdout.count("exit") == 1, (done.stdout, done.stderr)
    assert done.stdout.startswith("exit 0 "), (done.stdout, done.stderr)
    assert "interrupted" not in done.stderr
    assert sorted(p.name for p in (tmp_path / "out").iterdir()) == ["metrics.json", "report.pdf"]
