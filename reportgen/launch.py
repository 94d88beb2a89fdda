"""The command's first code: SIGTERM and SIGINT answered from the first moment of a run.

A process starts with the default dispositions: SIGTERM kills it (a shell, Airflow or Kubernetes
then sees -15, not the documented 143) and SIGINT raises ``KeyboardInterrupt`` wherever Python
happens to be (a traceback from inside an import). The command's own handlers
(:func:`reportgen.cli.main`) exist only once :mod:`reportgen.cli`, argparse and, for ``--format``,
the renderer have been imported: 0.1 s to 0.6 s after the process started. Until then
:func:`answer_signals_early` holds the fort: this module imports only :mod:`signal` and
:mod:`sys`, so ``python -m reportgen`` (:mod:`reportgen.__main__`) installs the handlers before
anything heavy is imported; the console script (``reportgen.cli:entrypoint``) installs them as its
first statement, once :mod:`reportgen.cli` is imported.

Nothing has been written before the command starts, so the handler only says so on one line and
exits with 128 + the signal number, as the command does after a signal. Once :func:`reportgen.cli.main`
returns, its handlers give these back; a signal then (the process is already on its way out)
gives the same exit code without a second line. Only the interpreter's own start-up (about
40 ms) remains uncovered: no Python code runs there.
"""

from __future__ import annotations

import signal
import sys
from types import FrameType

#: True once the command has run (:func:`command_finished`): a late signal prints nothing.
_finished = False


def _early_signal(signum: int, frame: FrameType | None = None) -> None:
    """Before the command's handlers exist: one line, exit 128 + signum (nothing was written yet)."""
    if not _finished:
        try:
            sys.stderr.write(f"reportgen: error: interrupted by {signal.Signals(signum).name} while starting; "
                             "nothing was written\n")
            sys.stderr.flush()
        except (OSError, ValueError):  # stderr closed: the exit code still tells
            pass
    raise SystemExit(128 + signum)


def answer_signals_early() -> None:
    """Install :func:`_early_signal` for SIGTERM and SIGINT (the main thread only, as signals require)."""
    for sig in (signal.SIGTERM, signal.SIGINT):
        signal.signal(sig, _early_signal)


def command_finished() -> None:
    """The command returned: a signal from now on only sets the exit code."""
    global _finished
    _finished = True
