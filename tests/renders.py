"""Report sets rendered once per test run and shared by every xdist worker of the run.

A report set is the costly part of a test that reads a report (bootstrap, figures, WeasyPrint):
``pytest`` runs two workers, each of which rendered the demo for itself, and several modules
rendered the same multiclass demo again. Here a set is named by a key and rendered by the first
worker that asks for it, into a directory both workers see, under an exclusive lock
(``fcntl.flock``): the other worker waits for the lock and reads the same files. A test that
writes into a set copies it first (``shutil.copytree``); the sets themselves are read only.

The root conftest registers this module as a plugin (``pytest_plugins``), so a test names the
fixture it uses as an argument, as with conftest's own.
"""

from __future__ import annotations

import fcntl
import os
import shutil
from collections.abc import Callable
from pathlib import Path

import pytest
import yaml
from conftest import PINNED_NOW, DemoRun, run_cli, write_fast_demo_config

ROOT = Path(__file__).resolve().parent.parent


def _run_dir(tmp_path_factory: pytest.TempPathFactory) -> Path:
    """The directory every worker of this run sees: under xdist a worker's base temporary
    directory is ``pytest-N/popen-gwK``, so its parent is the run's; in one process the base
    directory itself (its parent holds earlier runs, whose renders may be stale)."""
    base = tmp_path_factory.getbasetemp()
    return base.parent if os.environ.get("PYTEST_XDIST_WORKER") else base


def shared(tmp_path_factory: pytest.TempPathFactory, key: str, make: Callable[[Path], int]) -> tuple[Path, int]:
    """The directory of the set ``key`` and the exit code ``make`` returned when it filled it.

    ``make(directory)`` runs once per test run, whichever worker asks first; a worker that asks
    while another renders waits for it. A ``make`` that raised leaves no record: the next asker
    renders again (and fails the same way, in its own test)."""
    root = _run_dir(tmp_path_factory) / "shared_renders"
    root.mkdir(exist_ok=True)
    target, done = root / key, root / f"{key}.exit_code"
    with (root / f"{key}.lock").open("w") as lock:
        fcntl.flock(lock, fcntl.LOCK_EX)
        if not done.exists():
            shutil.rmtree(target, ignore_errors=True)
            target.mkdir()
            done.write_text(str(make(target)), encoding="utf-8")
    return target, int(done.read_text(encoding="utf-8"))


def shared_demo(tmp_path_factory: pytest.TempPathFactory, key: str, formats: str) -> DemoRun:
    """The fast demo config run in-process in ``formats`` (pinned clock), once per test run as
    the set ``key`` (:func:`shared`)."""

    def make(d: Path) -> int:
        config = write_fast_demo_config(d / "demo_fast.yaml")
        return run_cli(
            ["run", str(config), "--out", str(d / "out"), "--now", PINNED_NOW, "--format", formats, "--quiet"]
        )

    d, code = shared(tmp_path_factory, key, make)
    return DemoRun(d / "demo_fast.yaml", d / "out", code)


@pytest.fixture(scope="session")
def demo_run(tmp_path_factory: pytest.TempPathFactory) -> DemoRun:
    """The fast demo config run in-process to ``report.html`` and ``metrics.json`` (pinned clock),
    once per test run: the tests that read the demo's page or its numbers (about 7 CPU-s; the PDF
    would double it, :func:`demo_pdf`)."""
    return shared_demo(tmp_path_factory, "demo", "html,json")


@pytest.fixture(scope="session")
def demo_pdf(tmp_path_factory: pytest.TempPathFactory) -> DemoRun:
    """The same run in all three formats, once per test run: the tests that read its PDF (about
    16 CPU-s, so they are ``slow``: tests/conftest.py's ``MARKS_BY_FIXTURE``)."""
    return shared_demo(tmp_path_factory, "demo_pdf", "html,pdf,json")


#: The clock of the shared multiclass run.
MULTICLASS_NOW = "2026-01-31T06:00:00Z"


@pytest.fixture(scope="session")
def multiclass_run(tmp_path_factory: pytest.TempPathFactory) -> Path:
    """The output directory of configs/demo_multiclass.yaml run once per test run through the
    CLI, three formats, with 40 bootstrap resamples (seed 3) at :data:`MULTICLASS_NOW`."""

    def make(d: Path) -> int:
        cfg = yaml.safe_load((ROOT / "configs" / "demo_multiclass.yaml").read_text(encoding="utf-8"))
        cfg["bootstrap"] = {"resamples": 40, "seed": 3}
        for m in cfg["models"]:
            m["file"] = str(ROOT / "configs" / m["file"])
        path = d / "mc.yaml"
        path.write_text(yaml.safe_dump(cfg, sort_keys=False), encoding="utf-8")
        return run_cli(["run", str(path), "--out", str(d / "out"), "--now", MULTICLASS_NOW])

    d, code = shared(tmp_path_factory, "multiclass", make)
    assert code == 0
    return d / "out"


@pytest.fixture
def no_figures(monkeypatch: pytest.MonkeyPatch) -> None:
    """Skip drawing the figures (about 1.6 CPU-s a render) for a test whose pages show none of them:
    a theme's template, the title page and page head, the audit rows, the PDF's archival parts."""
    from reportgen.report import render

    monkeypatch.setattr(render, "_draw_figures", lambda result, theme, sections: {})
