"""Warnings go through ``logging`` (issue 18): one logger per module, where the warning arises.

Before, warnings were printed to stdout by the CLI after the run (``-q`` dropped them, an
Airflow task log got nothing) and matplotlib printed one warning per missing glyph and figure.
"""

from __future__ import annotations

import json
import logging
import os
import subprocess
import sys
import warnings
from pathlib import Path

import numpy as np
import pandas as pd
import pytest
import yaml

from reportgen import cli
from reportgen.report import figures

ROOT = Path(__file__).resolve().parents[2]


def two_files(tmp: Path, **extra) -> Path:
    """Two models joined by id; b has one id that a lacks (a warning under intersect)."""
    n = 30
    ids = np.arange(n)
    rng = np.random.default_rng(2)
    pd.DataFrame({"id": ids, "y": ids % 2, "s": rng.random(n).round(3)}).to_csv(tmp / "a.csv", index=False)
    b = pd.DataFrame({"id": np.append(ids, 99), "y": np.append(ids % 2, 0), "s": rng.random(n + 1).round(3)})
    b.to_csv(tmp / "b.csv", index=False)
    cfg = {
        "title": "t",
        "label": "y",
        "id": "id",
        "id_mismatch": "intersect",
        "bootstrap": {"resamples": 0},
        "output": {"formats": ["json"]},
        **extra,
        "models": [{"name": "a", "file": "a.csv", "score": "s"}, {"name": "b", "file": "b.csv", "score": "s"}],
    }
    path = tmp / "run.yaml"
    path.write_text(yaml.safe_dump(cfg, sort_keys=False), encoding="utf-8")
    return path


def test_a_loader_warning_is_a_code_worded_and_logged_once_by_the_pipeline(tmp_path, caplog, capsys):
    caplog.set_level(logging.WARNING)
    out = tmp_path / "out"
    assert cli.main(["run", str(two_files(tmp_path)), "--out", str(out)]) == 0
    notices = json.loads((out / "metrics.json").read_text(encoding="utf-8"))["run"]["notices"]
    assert {"code": "ids_not_shared", "params": {"model": "b", "rows": 1}} in notices
    align = [r for r in caplog.records if "whose id is not in every model" in r.getMessage()]
    assert [r.name for r in align] == ["reportgen.pipeline"]
    assert [r.getMessage() for r in align] == ["model 'b': 1 row(s) whose id is not in every model were dropped"]
    assert align[0].levelno == logging.WARNING
    err = capsys.readouterr().err
    assert "reportgen: warning: model 'b': 1 row(s) whose id is not in every model were dropped" in err.splitlines()


def test_every_warning_of_metrics_json_was_logged_once(tmp_path, caplog, capsys):
    caplog.set_level(logging.WARNING)
    out = tmp_path / "out"
    assert cli.main(["run", str(two_files(tmp_path)), "--out", str(out)]) == 0
    kept = json.loads((out / "metrics.json").read_text(encoding="utf-8"))["run"]["warnings"]
    logged = [r.getMessage() for r in caplog.records if r.name.startswith("reportgen.")]
    assert kept and sorted(logged) == sorted(kept)
    assert {r.name for r in caplog.records if r.name.startswith("reportgen.")} >= {"reportgen.pipeline"}
    capsys.readouterr()


def test_ids_left_out_by_the_join_are_warned_of_once(tmp_path, capsys):
    """id_mismatch: intersect warned of one fact twice: "model 'b': 1 row(s) whose id is not in
    every model were dropped" and "model 'b': 1 row(s) dropped (id not in every model)". The
    count stays in run.dropped (per model and reason), the sentence once."""
    out = tmp_path / "out"
    assert cli.main(["run", str(two_files(tmp_path)), "--out", str(out)]) == 0
    run = json.loads((out / "metrics.json").read_text(encoding="utf-8"))["run"]
    about_ids = [w for w in run["warnings"] if "id not in every model" in w or "whose id is not in every model" in w]
    assert about_ids == ["model 'b': 1 row(s) whose id is not in every model were dropped"]
    assert {"model": "b", "reason": "id not in every model", "rows": 1} in run["dropped"]
    err = capsys.readouterr().err
    assert "(id not in every model)" not in err and err.count("whose id is not in every model") == 1


def test_quiet_hides_warnings_on_stderr_but_a_root_handler_still_receives_them(tmp_path, capsys):
    """What an Airflow task log (a handler on the root logger) gets from an in-process run."""
    got: list[logging.LogRecord] = []

    class Collect(logging.Handler):
        def emit(self, record: logging.LogRecord) -> None:
            got.append(record)

    handler = Collect(logging.WARNING)
    root = logging.getLogger()
    root.addHandler(handler)
    try:
        assert cli.main(["run", str(two_files(tmp_path)), "--out", str(tmp_path / "out"), "-q"]) == 0
    finally:
        root.removeHandler(handler)
    captured = capsys.readouterr()
    assert captured.err == "" and captured.out == ""
    assert "model 'b': 1 row(s) whose id is not in every model were dropped" in [r.getMessage() for r in got]
    # the CLI's stderr handler is gone after main(): only the package's NullHandler is left
    assert all(type(h) is logging.NullHandler for h in logging.getLogger("reportgen").handlers)


def test_matplotlib_warnings_are_handled_at_the_figure_missing_glyphs_dropped_others_logged_once(caplog):
    caplog.set_level(logging.WARNING)
    with figures._matplotlib_notes():
        for _ in range(3):
            warnings.warn(
                "Glyph 27169 (\\N{CJK UNIFIED IDEOGRAPH-6A21}) missing from font(s) DejaVu Sans.",
                UserWarning,
                stacklevel=1,
            )
            warnings.warn("constrained_layout not applied", UserWarning, stacklevel=1)
    assert [(r.name, r.getMessage()) for r in caplog.records] == [
        ("reportgen.report.figures", "figure: constrained_layout not applied")
    ]
    with warnings.catch_warnings(record=True) as outside:  # the process's own filters are untouched after
        warnings.simplefilter("always")
        warnings.warn("after", UserWarning, stacklevel=1)
    assert [str(w.message) for w in outside] == ["after"]


@pytest.mark.slow
@pytest.mark.pdf
def test_a_successful_demo_run_prints_nothing_on_stderr(tmp_path, fast_config_factory):
    """The demo, with a model and the title in scripts DejaVu Sans lacks (each missing glyph was a
    matplotlib warning per figure), run as a user would: a separate process, HTML and PDF."""
    cfg_path = fast_config_factory(tmp_path / "demo.yaml", title="Титул 模型 report")
    cfg = yaml.safe_load(cfg_path.read_text(encoding="utf-8"))
    cfg["models"][1]["name"] = "模型 𝔘"  # noqa: RUF001 - a letter no font draws, on purpose
    cfg.pop("credit", None)  # its traffic lights warn, by design, of the naive model's calibration
    cfg.pop("segment", None)
    cfg_path.write_text(yaml.safe_dump(cfg, sort_keys=False, allow_unicode=True), encoding="utf-8")
    env = {**os.environ, "PYTHONPATH": str(ROOT)}
    proc = subprocess.run(
        [
            sys.executable,
            "-m",
            "reportgen",
            "run",
            str(cfg_path),
            "--out",
            str(tmp_path / "out"),
            "--format",
            "html,pdf",
            "--now",
            "2026-01-01T00:00:00Z",
        ],
        capture_output=True,
        text=True,
        env=env,
        timeout=300,
        check=False,
    )
    assert proc.returncode == 0, proc.stderr
    # no matplotlib glyph noise; the one thing said is that the PDF prints boxes, when (and only
    # when) no installed font has the characters (reportgen.report.fonts asks Fontconfig, as Pango does)
    from reportgen.report.fonts import undrawable, undrawable_warning

    missing = undrawable(["Титул 模型 report 模型 𝔘"])  # noqa: RUF001 - as above
    expected = "" if not missing else f"reportgen: warning: {undrawable_warning(missing)}\n"
    assert proc.stderr == expected
    assert " wrote " in proc.stdout


@pytest.mark.slow
@pytest.mark.dask
def test_a_user_error_on_the_dask_engine_is_one_line_without_the_workers_tracebacks(tmp_path):
    """The local cluster's workers logged 'Compute Failed' with a traceback, and its scheduler
    warned of a busy dashboard port, on the user's stderr, around the one-line error."""
    (tmp_path / "a.csv").write_text("y,s\n0,0.1\n1,abc\n0,0.3\n1,0.7\n", encoding="utf-8")
    cfg = {
        "title": "t",
        "label": "y",
        "bootstrap": {"resamples": 0},
        "output": {"formats": ["json"]},
        "models": [{"name": "a", "file": "a.csv", "score": "s"}],
    }
    (tmp_path / "c.yaml").write_text(yaml.safe_dump(cfg), encoding="utf-8")
    env = {**os.environ, "PYTHONPATH": str(ROOT)}
    proc = subprocess.run(
        [
            sys.executable,
            "-m",
            "reportgen",
            "run",
            str(tmp_path / "c.yaml"),
            "--engine",
            "dask",
            "--out",
            str(tmp_path / "out"),
        ],
        capture_output=True,
        text=True,
        env=env,
        timeout=300,
        check=False,
    )
    assert proc.returncode == 2
    assert proc.stderr.splitlines() == [
        f"reportgen: error: {tmp_path / 'a.csv'}: column 's', row 3: non-numeric value 'abc'; expected a number"
    ]


def test_distributed_large_graph_warning_stays_off_stderr_of_a_dask_run(scheduler):
    """A 300k-row paired dask run printed distributed's four-line "Sending large graph of size
    12.29 MiB … Consider loading the data with Dask directly" on stderr of a successful run."""
    from reportgen.config import parse_config
    from reportgen.reduce.dask import cluster_for

    cfg = parse_config(f"label: y\nscheduler: {scheduler}\nmodels:\n  - {{name: a, file: a.csv, score: s}}\n")
    with warnings.catch_warnings(record=True) as seen:
        warnings.simplefilter("always")
        with cluster_for(cfg):
            warnings.warn(
                "Sending large graph of size 12.29 MiB.\nThis may cause some slowdown.", UserWarning, stacklevel=1
            )
        warnings.warn("another warning", UserWarning, stacklevel=1)
    assert [str(w.message) for w in seen] == ["another warning"]
