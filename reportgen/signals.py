"""SIGTERM and SIGINT for the ``reportgen`` command: every handler, and the state they share.

A leaf (standard library only), so that ``python -m reportgen`` can install the first handlers
before anything heavy is imported, and the writer and the history store can hold a signal back
without importing each other or the report package.

Three stages, one module:

- :func:`answer_signals_early`: the process's first code. Nothing is written yet, so a signal
  only says so on one line and exits with 128 + the signal number (a process killed by the
  default SIGTERM disposition shows -15 to Airflow or Kubernetes, not the documented 143; a
  SIGINT raised ``KeyboardInterrupt`` inside an import, with a traceback).
- :func:`handlers`: while the command runs, a signal raises :class:`Interrupted` (a
  BaseException), so every ``finally`` runs: the staged report set and the command's temporary
  directory go, the output lock is released, the previous report stays.
- :func:`held`: around a swap or a clean-up, a signal is only remembered and raised on the way
  out, so it never leaves half a swap or a stray directory (:mod:`reportgen.report.writer`);
  :func:`signal_pending` lets a wait inside end early (:mod:`reportgen.history`).

Python runs signal handlers in the main thread between bytecodes, so a flag is enough to hold a
signal back (a signal mask would not do: another thread may take the signal).
"""

from __future__ import annotations

import signal
import sys
import threading
from collections.abc import Iterator
from contextlib import contextmanager
from pathlib import Path
from types import FrameType

__all__ = ["Interrupted", "answer_signals_early", "command_finished", "handlers", "held", "on_signal", "signal_pending"]

#: The signals the command answers.
HANDLED = (signal.SIGTERM, signal.SIGINT)


class Interrupted(BaseException):
    """SIGTERM or SIGINT arrived. A BaseException, so that no ``except Exception`` swallows it.

    ``written`` holds the paths of the new report when the signal arrived during the swap and
    was raised once the new set was in place (or later, while the run was recorded in its
    history store: ``unrecorded`` names that store); None means nothing was written.
    """

    def __init__(self, signum: int) -> None:
        super().__init__(signal.Signals(signum).name)
        self.signum = signum
        self.written: dict[str, Path] | None = None
        self.unrecorded: Path | None = None

    @property
    def name(self) -> str:
        return signal.Signals(self.signum).name

    @property
    def exit_code(self) -> int:
        """128 + the signal number, as a shell reports a process killed by it (143, 130)."""
        return 128 + self.signum


# --------------------------------------------------------------------------------------
# Before the command: one line and the exit code
# --------------------------------------------------------------------------------------

#: True once the command has run (:func:`command_finished`): a late signal prints nothing.
_finished = False


def _early_signal(signum: int, frame: FrameType | None = None) -> None:
    """Before the command's handlers exist: one line, exit 128 + signum (nothing was written yet)."""
    if not _finished:
        try:
            sys.stderr.write(
                f"reportgen: error: interrupted by {signal.Signals(signum).name} while starting; nothing was written\n"
            )
            sys.stderr.flush()
        except (OSError, ValueError):  # stderr closed: the exit code still tells
            pass
    raise SystemExit(128 + signum)


def answer_signals_early() -> None:
    """Install :func:`_early_signal` for SIGTERM and SIGINT (the main thread only, as signals require).

    The command's own handlers (:func:`handlers`) exist only once :mod:`reportgen.cli` and
    argparse are imported; :mod:`reportgen.__main__` calls this before that, the console script
    as its first statement. Once the command returns (:func:`command_finished`), a signal only
    sets the exit code."""
    for sig in HANDLED:
        signal.signal(sig, _early_signal)


def command_finished() -> None:
    """The command returned: a signal from now on only sets the exit code."""
    global _finished
    _finished = True


# --------------------------------------------------------------------------------------
# While the command runs: raise at once, or hold back during a swap or a clean-up
# --------------------------------------------------------------------------------------

_held_depth = 0
_held_signal: int | None = None


def on_signal(signum: int, frame: FrameType | None = None) -> None:
    """Signal handler: raise :class:`Interrupted`, or remember it while signals are :func:`held`."""
    global _held_signal
    if _held_depth:
        if _held_signal is None:
            _held_signal = signum
        return
    raise Interrupted(signum)


@contextmanager
def handlers() -> Iterator[None]:
    """SIGTERM (what Airflow and Kubernetes send on a timeout) and SIGINT raise :class:`Interrupted`
    in the block; the previous handlers are restored on the way out (``reportgen.cli.main`` is
    also called in-process, by tests and library users). Outside the main thread, nothing changes
    (Python takes signals there only)."""
    if threading.current_thread() is not threading.main_thread():
        yield
        return
    previous = {sig: signal.signal(sig, on_signal) for sig in HANDLED}
    try:
        yield
    finally:
        for sig, handler in previous.items():
            signal.signal(sig, handler)


def signal_pending() -> bool:
    """Whether a signal is being held back (:func:`held`): a wait inside may end early."""
    return _held_signal is not None


@contextmanager
def held(during: BaseException | None = None) -> Iterator[None]:
    """While inside, :func:`on_signal` only remembers a signal; it is raised on the way out.

    Nestable: the signal is raised when the outermost block ends. ``during`` is an error already
    on its way out (a clean-up in an ``except`` clause): a held signal replaces it, since the
    process is being asked to stop, unless it is an :class:`Interrupted` itself.
    """
    global _held_depth, _held_signal
    _held_depth += 1
    failure: BaseException | None = during
    try:
        yield
    except BaseException as exc:
        failure = exc
        raise
    finally:
        _held_depth -= 1
        if _held_depth == 0 and _held_signal is not None:
            signum, _held_signal = _held_signal, None
            if not isinstance(failure, Interrupted):
                raise Interrupted(signum) from failure
