"""A signal in the first moments of a run gives its documented exit code and one line.

A SIGTERM or SIGINT in the first tenths of a second, before :func:`reportgen.cli.main` has
installed its handlers, ended the process with -15 (killed by the signal) or a
``KeyboardInterrupt`` traceback instead of the documented 143 / 130 and one line: the handlers
came after the imports and after argparse, and ``--format`` made argparse import the renderer
(0.45 s). The signal is delivered here at an exact moment (an import hook, a patched argparse),
not after a sleep, so the tests do not depend on the machine's speed.
"""

from __future__ import annotations

import os
import subprocess
import sys
from pathlib import Path

import pytest

from reportgen import cli
from reportgen.report import render

ROOT = Path(__file__).resolve().parents[2]

#: ``python -m reportgen`` as runpy runs it, with a signal sent the moment ``reportgen.cli`` is
#: about to be imported (after ``reportgen.__main__`` began, before any of the command's code).
SIGNAL_ON_CLI_IMPORT = """
import os, runpy, signal, sys
SIG = getattr(signal, sys.argv[1])
class Hook:
    def find_spec(self, name, path=None, target=None):
        if name == "reportgen.cli":
            os.kill(os.getpid(), SIG)
        return None
sys.meta_path.insert(0, Hook())
sys.argv = ["reportgen", "run", "missing.yaml", "--format", "json"]
runpy.run_module("reportgen", run_name="__main__", alter_sys=True)
"""

#: The console script (``reportgen.cli:entrypoint``), with a signal sent while argparse parses.
SIGNAL_WHILE_PARSING = """
import argparse, os, signal, sys
SIG = getattr(signal, sys.argv[1])
parse = argparse.ArgumentParser.parse_known_args
def parse_known_args(self, *args, **kwargs):
    os.kill(os.getpid(), SIG)
    return parse(self, *args, **kwargs)
argparse.ArgumentParser.parse_known_args = parse_known_args
from reportgen.cli import entrypoint
sys.argv = ["reportgen", "run", "missing.yaml", "--format", "json"]
entrypoint()
"""


def _python(code: str, signame: str, cwd: Path) -> subprocess.CompletedProcess[str]:
    env = {**os.environ, "PYTHONPATH": str(ROOT)}
    return subprocess.run(
        [sys.executable, "-c", code, signame], env=env, cwd=cwd, capture_output=True, text=True, timeout=60
    )


@pytest.mark.parametrize(("signame", "code"), [("SIGTERM", 143), ("SIGINT", 130)])
def test_a_signal_before_the_cli_is_imported_is_its_exit_code_and_one_line(signame, code, tmp_path) -> None:
    done = _python(SIGNAL_ON_CLI_IMPORT, signame, tmp_path)
    assert done.returncode == code, done.stderr
    assert done.stderr == f"reportgen: error: interrupted by {signame} while starting; nothing was written\n"
    assert list(tmp_path.iterdir()) == []


@pytest.mark.parametrize(("signame", "code"), [("SIGTERM", 143), ("SIGINT", 130)])
def test_a_signal_while_the_arguments_are_parsed_is_its_exit_code_and_one_line(signame, code, tmp_path) -> None:
    done = _python(SIGNAL_WHILE_PARSING, signame, tmp_path)
    assert done.returncode == code, done.stderr
    assert done.stderr == f"reportgen: error: interrupted by {signame}; nothing was written\n"
    assert list(tmp_path.iterdir()) == []


def test_parsing_formats_imports_no_renderer_and_the_choices_agree() -> None:
    assert cli.FORMATS == render.FORMATS
    code = (
        "import sys; from reportgen import cli; cli.build_parser().parse_args(['run', 'x.yaml', '--format', 'pdf,json']); "
        "print(sorted(m for m in sys.modules if m in ('reportgen.report.render', 'matplotlib', 'pandas', 'pyarrow')))"
    )
    done = subprocess.run(
        [sys.executable, "-c", code],
        env={**os.environ, "PYTHONPATH": str(ROOT)},
        capture_output=True,
        text=True,
        timeout=60,
        check=True,
    )
    assert done.stdout.strip() == "[]"
