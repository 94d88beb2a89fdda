"""The CLI's progress line (issue 16): a phase longer than a couple of seconds shows on a
terminal with its elapsed time and count; short phases, ``--quiet`` and a non-terminal stderr
print nothing."""

from __future__ import annotations

import io
import time
from pathlib import Path

from reportgen import cli
from reportgen.io.files import hashing, opened
from reportgen.io.progress import ReadProgress
from reportgen.pipeline import READING


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
    p.progress(2, 3)
    time.sleep(0.3)
    p("PDF")
    p.close()
    text = out.getvalue()
    assert "quick" not in text and "PDF" not in text
    assert "\rdemo.yaml: intervals… 2/3 0 s" in text
    assert "demo.yaml: intervals done in " in text and text.endswith("\n")


def test_silent_when_quiet_or_not_a_terminal(monkeypatch):
    monkeypatch.setattr(cli.sys, "stderr", _Tty())
    assert cli._Printer(quiet=True).phases("x") is None
    shown = cli._Printer(quiet=False).phases("x")
    assert shown is not None
    shown.close()
    monkeypatch.setattr(cli.sys, "stderr", io.StringIO())
    assert cli._Printer(quiet=False).phases("x") is None


def test_many_units_show_as_a_percentage_and_the_reading_phase_says_read():
    p = cli.Phases("demo.yaml", _Tty())
    try:
        p("intervals")
        p.progress(250, 500)
        assert p.count == " 50 %"
        p(READING)
        p.progress(1, 2)  # files of unknown size
        assert p.count == " 1/2"
        p.progress(750_000, 1_000_000)  # bytes: the reduction goes on after 100 %
        assert p.count == " 75 % read"
    finally:
        p.close()


def _read_all(paths: list[Path], told: ReadProgress) -> None:
    with hashing():
        for k, path in enumerate(paths):
            with told.file(k):
                src = opened(path)
                try:
                    while src.read(1000):  # the parser's reads, in blocks
                        pass
                finally:
                    src.close()


def test_reading_progress_counts_the_bytes_of_every_file(tmp_path):
    a, b = tmp_path / "a.csv", tmp_path / "b.csv"
    a.write_text("y,s\n" + "1,0.5\n" * 400_000)
    b.write_text("y,s\n" + "0,0.25\n" * 300_000)
    total = a.stat().st_size + b.stat().st_size
    told: list[tuple[int, int]] = []
    _read_all([a, b], ReadProgress([a, b], lambda done, of: told.append((done, of))))
    assert {of for _, of in told} == {total}
    done = [d for d, _ in told]
    assert done == sorted(done) and done[-1] == total
    assert any(0 < d < a.stat().st_size for d in done)  # told while the first file is read
    assert a.stat().st_size in done  # and when it ends


def test_reading_progress_counts_files_when_a_size_is_unknown(tmp_path):
    a = tmp_path / "a.csv"
    a.write_text("y,s\n1,0.5\n")
    parts = tmp_path / "parts"
    parts.mkdir()  # a dataset directory: no size up front
    told: list[tuple[int, int]] = []
    progress = ReadProgress([a, parts], lambda done, of: told.append((done, of)))
    with progress.file(0):
        pass
    with progress.file(1):
        pass
    assert told == [(1, 2), (2, 2)]
    silent = ReadProgress([a], None)
    with silent.file(0):
        pass


def test_a_failing_progress_callback_never_breaks_the_read(tmp_path):
    a = tmp_path / "a.csv"
    a.write_text("y,s\n" + "1,0.5\n" * 200_000)

    told: list[int] = []

    def broken(done: int, total: int) -> None:
        told.append(done)
        if done < total:  # while the parser reads (its thread): the read goes on, untold
            raise RuntimeError("display gone")

    _read_all([a], ReadProgress([a], broken))
    assert len(told) == 2 and told[-1] == a.stat().st_size  # the first block's, then the file's end


def test_a_warning_during_a_shown_phase_starts_its_own_line(monkeypatch):
    """A warning logged while the status line was on screen ran on from it (``…3/3 6 sreportgen:
    warning: …`` on the demo, on a terminal): the line is now erased first and drawn again."""
    monkeypatch.setattr(cli.Phases, "AFTER", 0.0)
    monkeypatch.setattr(cli.Phases, "EVERY", 0.01)
    out = _Tty()
    monkeypatch.setattr(cli.sys, "stderr", out)
    p = cli.Phases("demo.yaml", out)
    try:
        p("intervals")
        p.progress(3, 3)
        deadline = time.monotonic() + 5
        while not p.last and time.monotonic() < deadline:
            time.sleep(0.01)
        with cli._warnings_on_stderr(quiet=False):
            cli.logging.getLogger("reportgen.test").warning("model 'naive': credit validation red")
        time.sleep(0.1)  # the next ticks draw the status line again
    finally:
        p.close()
    text = out.getvalue()
    assert "s\033[K\r\033[Kreportgen: warning: model 'naive': credit validation red\n" in text
    after = text.split("credit validation red\n", 1)[1]
    assert after.startswith("\rdemo.yaml: intervals… 3/3 ")
    assert cli.Phases.current is None
