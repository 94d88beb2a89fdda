"""The report process (reportgen.report.documents.ReportProcess): forked as ``reportgen run`` starts, it
imports the report's libraries while the data is read and makes the HTML and PDF pages. The pages
must be the ones one process makes, byte for byte; any failure of the process leaves the pages to
the main process; its warnings reach the main process's stderr once."""

from __future__ import annotations

import logging
import os
import subprocess
import sys
from pathlib import Path

import pytest

from reportgen.report import documents, fonts

ROOT = Path(__file__).resolve().parent.parent
PINNED = "2026-01-01T00:00:00Z"
FILES = ("report.html", "report.pdf", "metrics.json")

linux_only = pytest.mark.skipif(not sys.platform.startswith("linux"), reason="the report process forks (Linux only)")


def _run(cli, config: Path, out: Path, monkeypatch, process: bool) -> dict[str, bytes]:
    monkeypatch.setenv(documents.PROCESS_ENV, "1" if process else "0")
    assert cli(["run", str(config), "--out", str(out), "--now", PINNED, "--quiet"]) == 0
    return {name: (out / name).read_bytes() for name in FILES}


@pytest.fixture(scope="module")
def config(tmp_path_factory, fast_config_factory) -> Path:
    path = tmp_path_factory.mktemp("report-process") / "demo.yaml"
    return fast_config_factory(path, output={"formats": ["html", "pdf", "json"]})


@pytest.fixture(scope="module")
def in_process(tmp_path_factory, config, cli) -> dict[str, bytes]:
    """The pages one process makes (the reference of every test here)."""
    with pytest.MonkeyPatch.context() as mp:
        return _run(cli, config, tmp_path_factory.mktemp("one-process") / "out", mp, process=False)


@linux_only
def test_the_report_process_makes_the_pages_one_process_makes(tmp_path, config, cli, in_process, monkeypatch, caplog):
    with caplog.at_level(logging.DEBUG, logger="reportgen.report.documents"):
        pages = _run(cli, config, tmp_path / "out", monkeypatch, process=True)
    assert any("made by the report process" in r.getMessage() for r in caplog.records)  # it did make them
    assert pages == in_process


@linux_only
@pytest.mark.parametrize("how", ["raises", "dies"])
def test_a_report_process_that_fails_leaves_the_pages_to_the_main_process(how, tmp_path, config, cli, in_process,
                                                                        monkeypatch, caplog):
    def broken(*args, **kwargs):  # runs in the forked process only
        if how == "dies":
            os._exit(9)
        raise RuntimeError("the report process broke")

    monkeypatch.setattr(documents, "_make", broken)
    with caplog.at_level(logging.DEBUG, logger="reportgen.report.documents"):
        pages = _run(cli, config, tmp_path / "out", monkeypatch, process=True)
    said = " ".join(r.getMessage() for r in caplog.records)
    assert "the pages are made here" in said
    assert "made by the report process" not in said
    assert pages == in_process


@linux_only
@pytest.mark.skipif(fonts._fontconfig() is None, reason="Fontconfig cannot be asked here")
def test_warnings_of_the_report_process_reach_stderr_once(tmp_path, fast_config_factory, cli, monkeypatch, capsys):
    # U+E000 (private use) is in no font: the PDF's font check warns, in the report process
    cfg = fast_config_factory(tmp_path / "c.yaml", title="bench \ue000", output={"formats": ["pdf"]})
    monkeypatch.setenv(documents.PROCESS_ENV, "1")
    assert cli(["run", str(cfg), "--out", str(tmp_path / "out"), "--now", PINNED]) == 0
    err = capsys.readouterr().err
    assert err.count("no installed font") == 1, err


@linux_only
def test_the_main_process_never_imports_the_report_libraries(tmp_path, config):
    probe = (
        "import sys; from reportgen.cli import main\n"
        f"code = main(['run', {str(config)!r}, '--out', sys.argv[1], '--now', {PINNED!r}, '--quiet'])\n"
        "print(code, 'weasyprint' in sys.modules, 'matplotlib' in sys.modules)\n"
    )
    env = {**os.environ, "PYTHONPATH": str(ROOT)}
    on = subprocess.run([sys.executable, "-c", probe, str(tmp_path / "a")], capture_output=True, text=True,
                        env={**env, documents.PROCESS_ENV: "1"}, check=True)
    off = subprocess.run([sys.executable, "-c", probe, str(tmp_path / "b")], capture_output=True, text=True,
                         env={**env, documents.PROCESS_ENV: "0"}, check=True)
    assert on.stdout.split() == ["0", "False", "False"], on.stderr
    assert off.stdout.split() == ["0", "True", "True"], off.stderr
    assert (tmp_path / "a" / "report.pdf").read_bytes() == (tmp_path / "b" / "report.pdf").read_bytes()


def test_no_process_without_pages_or_when_turned_off(monkeypatch):
    assert documents.ReportProcess.start(["json", "csv"]) is None
    monkeypatch.setenv(documents.PROCESS_ENV, "0")
    assert documents.ReportProcess.start(["pdf"]) is None


def test_a_process_holding_much_memory_makes_the_pages_itself(monkeypatch):
    # copy-on-write: a fork of a large process copies every page either side then writes
    monkeypatch.delenv(documents.PROCESS_ENV, raising=False)
    monkeypatch.setattr(documents, "_resident_bytes", lambda: documents.MAX_PARENT_RESIDENT + 1)
    assert documents.ReportProcess.start(["pdf"]) is None
    monkeypatch.setenv(documents.PROCESS_ENV, "1")  # forced
    process = documents.ReportProcess.start(["pdf"]) if sys.platform.startswith("linux") else None
    try:
        assert process is not None or not sys.platform.startswith("linux")
    finally:
        if process is not None:
            process.close()


@linux_only
def test_resident_memory_is_read():
    assert documents._resident_bytes() > 1 << 20
