"""Shared fixtures: a fast copy of the demo config, the CLI in-process, the Dask cluster, markers.

The demo runs the end-to-end tests read are rendered once per test run (``demo_run``,
``demo_pdf``: tests/renders.py); tests that need the shipped, unmodified ``configs/demo.yaml``
run it themselves (see ``tests/e2e/test_cli.py``).
"""

from __future__ import annotations

import faulthandler
import json
import os
import sys
import threading
from dataclasses import dataclass
from pathlib import Path

import pytest
import yaml
from hypothesis import settings

# Property tests draw their examples from a fixed seed (one per test), so CI on a clean clone
# runs the examples every developer ran: a failure there is the code's, never the draw's.
# ``HYPOTHESIS_PROFILE=explore`` draws fresh examples, more of them, to hunt for new failures.
settings.register_profile("reportgen", derandomize=True, print_blob=True)
settings.register_profile("explore", derandomize=False, max_examples=500, print_blob=True)
settings.load_profile(os.environ.get("HYPOTHESIS_PROFILE", "reportgen"))

#: The shared report sets and their fixtures (``demo_run``, ``demo_pdf``, ``multiclass_run``, ``no_figures``), available
#: to every test module by name, as conftest fixtures are.
pytest_plugins = ["renders"]

ROOT = Path(__file__).resolve().parent.parent
DEMO_CONFIG = ROOT / "configs" / "demo.yaml"
SCHEMA_PATH = ROOT / "reportgen" / "schema" / "metrics.schema.json"
#: The timestamp every pinned-clock run in the tests uses.
PINNED_NOW = "2026-01-01T00:00:00Z"


def write_fast_demo_config(path: Path, **overrides) -> Path:
    """A copy of configs/demo.yaml with 50 bootstrap resamples and absolute data paths."""
    cfg = yaml.safe_load(DEMO_CONFIG.read_text(encoding="utf-8"))
    cfg["bootstrap"] = {"resamples": 50, "seed": 7}
    for m in cfg["models"]:
        m["file"] = str((DEMO_CONFIG.parent / m["file"]).resolve())
        if "reference" in m:
            m["reference"] = str((DEMO_CONFIG.parent / m["reference"]).resolve())
    cfg.update(overrides)
    path.write_text(yaml.safe_dump(cfg, sort_keys=False, allow_unicode=True), encoding="utf-8")
    return path


def run_cli(argv: list[str]) -> int:
    """``reportgen.cli.main`` in-process, restoring the environment variable ``--now`` sets."""
    from reportgen.cli import main

    saved = os.environ.get("REPORTGEN_NOW")
    try:
        return main(argv)
    finally:
        if saved is None:
            os.environ.pop("REPORTGEN_NOW", None)
        else:
            os.environ["REPORTGEN_NOW"] = saved


@dataclass(frozen=True)
class DemoRun:
    config: Path
    out: Path
    exit_code: int

    @property
    def metrics(self) -> dict:
        return json.loads((self.out / "metrics.json").read_text(encoding="utf-8"))


@pytest.fixture(scope="session")
def fast_demo_config(tmp_path_factory) -> Path:
    return write_fast_demo_config(tmp_path_factory.mktemp("config") / "demo_fast.yaml")


@pytest.fixture(scope="session")
def metrics_schema() -> dict:
    return json.loads(SCHEMA_PATH.read_text(encoding="utf-8"))


@pytest.fixture(scope="session")
def cli():
    """:func:`run_cli` as a fixture, so test modules need not import conftest."""
    return run_cli


@pytest.fixture(scope="session")
def fast_config_factory():
    """:func:`write_fast_demo_config` as a fixture."""
    return write_fast_demo_config


def pytest_addoption(parser):
    """``--update-snapshots``: rewrite the HTML snapshots of ``tests/snapshots`` instead of comparing.

    Declared here, at the tests' root, so the option exists however pytest is started
    (``pytest tests/snapshots`` or the whole suite). ``REPORTGEN_UPDATE_SNAPSHOTS=1`` does the same.
    """
    parser.addoption(
        "--update-snapshots",
        action="store_true",
        default=False,
        help="rewrite tests/snapshots/html/*.html from the current templates instead of comparing",
    )


@pytest.fixture(scope="session")
def scheduler():
    """The address of one LocalCluster (two worker processes) shared by every Dask test of the run:
    starting a cluster costs seconds, so the modules that compare engines share this one."""
    import dask.distributed as distributed

    with distributed.LocalCluster(n_workers=2, threads_per_worker=1, processes=True, dashboard_address=None) as cluster:
        yield cluster.scheduler_address


#: Markers that follow from what a test uses, so they cannot drift from it: the session's Dask
#: cluster, the demo's PDF (its render takes about 16 CPU-s: ``slow`` too; the demo's HTML and
#: numbers, ``demo_run``, keep the report in the inner loop), the PostgreSQL server (its start, an
#: initdb, takes seconds: ``slow`` too; SQLite keeps SQL sources in the inner loop). The other uses are marked
#: in their modules (``pytestmark``) or on the test.
MARKS_BY_FIXTURE = {
    "scheduler": ("dask",),
    "demo_pdf": ("pdf", "slow"),
    "pg": ("sql", "slow"),
    "pg_server": ("sql", "slow"),
}


def pytest_collection_modifyitems(items):
    """Add ``dask`` / ``pdf`` / ``sql`` from the fixtures a test uses, and ``dask`` and ``slow`` to
    each case parametrized with the engine ``"dask"``: its memory and stream cases stay in the
    inner loop (and in ``-m "not dask"``); the Dask case, a cluster of worker processes or a
    scheduler round trip per run, runs with the whole suite. The inner loop keeps Dask through the
    tests that compare the three engines in one test (``tests/parity/test_engines.py``)."""
    for item in items:
        used = set(getattr(item, "fixturenames", ()))
        for fixture, marks in MARKS_BY_FIXTURE.items():
            if fixture in used:
                for mark in marks:
                    item.add_marker(mark)
        callspec = getattr(item, "callspec", None)
        if callspec is not None and any(isinstance(v, str) and v == "dask" for v in callspec.params.values()):
            item.add_marker("dask")
            item.add_marker("slow")


#: Seconds a test process may take to exit once pytest is done with it (atexit handlers, thread
#: joins) before :func:`pytest_unconfigure`'s watchdog prints every thread's stack and ends it.
EXIT_WATCHDOG_S = 60


def _left_alive() -> list[str]:
    """Threads that keep the process from exiting (non-daemon, but the main one and the idle
    threads of reportgen's long-lived pool, ``reportgen.parallel``, which end at exit) and child
    processes still running, but multiprocessing's resource tracker (it ends with its parent)."""
    import psutil

    left = [
        f"thread {t.name!r}"
        for t in threading.enumerate()
        if t is not threading.main_thread() and not t.daemon and t.is_alive() and not t.name.startswith("reportgen_")
    ]
    for child in psutil.Process().children(recursive=True):
        try:
            cmd = " ".join(child.cmdline())[:160]
        except psutil.Error:
            continue
        if "resource_tracker" not in cmd:
            left.append(f"process {child.pid}: {cmd}")
    return left


def pytest_unconfigure(config):
    """A test process that outlives its run is a leak: say what is left, and never hang.

    Every fixture closes what it starts (a Dask cluster, a PostgreSQL server, a browser), so
    nothing should be left here. What is left is named on stderr; and a process that has not
    exited :data:`EXIT_WATCHDOG_S` seconds later (an atexit handler or a thread that waits
    forever) prints every thread's stack and ends with status 1 (faulthandler's watchdog,
    cancelled by a normal exit), instead of holding the run open for minutes after its summary."""
    left = _left_alive()
    if left:
        who = os.environ.get("PYTEST_XDIST_WORKER", "pytest")
        sys.stderr.write(f"{who}: left alive after the tests: {'; '.join(left)}\n")
    faulthandler.dump_traceback_later(EXIT_WATCHDOG_S, exit=True, file=sys.__stderr__)
