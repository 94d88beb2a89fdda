"""The CLI's progress line (issue 16): a phase longer than a couple of seconds shows on a
terminal with its elapsed time and count; short phases, ``--quiet`` and a non-terminal stderr
print nothing."""

from __future__ import annotations

import io
import time

from reportgen import cli


class _Tty(io.StringIO):
    def isatty(self) -> bool:
        return True


def test_a_long_phase_shows_and_ends_with_its_duration(monkeypatch):
    monkeypatch.setattr(cli.Phases, "AFTER", 0.05)
    monkeypatch.setattr(cli.Phases, "EVERY", 0.01)
    out = _Tty()
    p = cli.Phases("demo.yaml", out)
    p("quick")  # ends before AFTER: never shown
    p("intervals")
    p.progress(250, 500)
    time.sleep(0.3)
    p("PDF")
    p.close()
    text = out.getvalue()
    assert "quick" not in text and "PDF" not in text
    assert "\rdemo.yaml: intervals… 250/500 0 s" in text
    assert "demo.yaml: intervals done in " in text and text.endswith("\n")


def test_silent_when_quiet_or_not_a_terminal(monkeypatch):
    monkeypatch.setattr(cli.sys, "stderr", _Tty())
    assert cli._Printer(quiet=True).phases("x") is None
    shown = cli._Printer(quiet=False).phases("x")
    assert shown is not None
    shown.close()
    monkeypatch.setattr(cli.sys, "stderr", io.StringIO())
    assert cli._Printer(quiet=False).phases("x") is None
