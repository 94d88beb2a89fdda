"""Output and process safety (issue 18) and ``--now`` as a value (issue 15).

A report set appears as a whole or not at all, one run at a time, and a killed run leaves the
previous report intact. The kill tests start a real ``reportgen run`` that stops at a named
point of :mod:`reportgen.report.writer` (``REPORTGEN_TEST_PAUSE_AT``), kill it there with SIGTERM or
SIGKILL, and compare the output directory byte for byte with the previous report. Small data,
``--format json`` (HTML where it matters), so each process takes a second or two.
"""

from __future__ import annotations

import json
import os
import random
import re
import signal
import subprocess
import sys
from pathlib import Path

import pytest
import yaml

from reportgen import cli
from reportgen.errors import OutputError
from reportgen.report import render, writer

ROOT = Path(__file__).resolve().parents[2]
OLD_NOW, NEW_NOW = "2026-01-01T00:00:00Z", "2026-02-02T00:00:00Z"
SCRATCH = writer.SCRATCH_PREFIX


# --------------------------------------------------------------------------------------
# Helpers
# --------------------------------------------------------------------------------------


def make_config(folder: Path, name: str = "q.yaml", **output) -> Path:
    """A two-model binary config with 40 rows per model and no bootstrap, in ``folder``."""
    folder.mkdir(parents=True, exist_ok=True)
    for file, seed in (("a.csv", 1), ("b.csv", 2)):
        rng = random.Random(seed)
        rows = "".join(f"{i},{i % 2},{rng.random():.3f}\n" for i in range(1, 41))
        (folder / file).write_text("id,y,s\n" + rows)
    cfg = {
        "title": "t",
        "label": "y",
        "id": "id",
        "bootstrap": {"resamples": 0},
        "output": {"formats": ["json"], **output},
        "models": [{"name": "a", "file": "a.csv", "score": "s"}, {"name": "b", "file": "b.csv", "score": "s"}],
    }
    path = folder / name
    path.write_text(yaml.safe_dump(cfg))
    return path


def snapshot(directory: Path) -> dict[str, bytes]:
    """Every file of a directory (recursively) by relative path, with its bytes; a report.html
    without its audit trail's provenance rows, which name the directory the set was written to
    (the reference sets are rendered elsewhere)."""
    return {
        str(p.relative_to(directory)): _without_provenance(p.read_bytes())
        if p.name == "report.html"
        else p.read_bytes()
        for p in sorted(directory.rglob("*"))
        if p.is_file()
    }


def _without_provenance(html: bytes) -> bytes:
    return re.sub(rb'<tr class="provenance">.*?</tr>', b"", html, flags=re.S)


def scratch(parent: Path) -> list[str]:
    """reportgen's own entries (lock, temporary and aside directories) anywhere below ``parent``."""
    return sorted(str(p.relative_to(parent)) for p in parent.rglob(f"{SCRATCH}*"))


def run(*args: str) -> int:
    return cli.main(["run", *args, "-q"])


def report(cfg: Path, out: Path, now: str, formats: str = "json") -> dict[str, bytes]:
    """Run in-process into ``out`` (overwriting) and return the report set written."""
    assert run(str(cfg), "--out", str(out), "--now", now, "--format", formats, "--overwrite") == 0
    return snapshot(out)


class Paused:
    """A real ``reportgen`` process stopped at a named point of the writer, ready to be killed."""

    def __init__(self, point: str, argv: list[str]) -> None:
        env = {**os.environ, "PYTHONPATH": str(ROOT), writer.PAUSE_ENV: point}
        env.pop("REPORTGEN_NOW", None)
        cmd = [sys.executable, "-m", "reportgen", *argv]
        self.proc = subprocess.Popen(cmd, env=env, stdout=subprocess.PIPE, stderr=subprocess.PIPE, text=True)
        seen = []
        for line in self.proc.stderr:  # until the pause line (or the end: the run failed first)
            if f"test pause at {point}" in line:
                return
            seen.append(line)
        self.proc.wait()
        pytest.fail(f"the run did not reach {point!r} (exit {self.proc.returncode}): {''.join(seen)}")

    def kill(self, sig: int) -> tuple[int, str]:
        """Send ``sig``; the exit code and the rest of stderr."""
        self.proc.send_signal(sig)
        _, err = self.proc.communicate(timeout=60)
        return self.proc.returncode, err


def run_argv(cfg: Path, out: Path, formats: str = "json") -> list[str]:
    return ["run", str(cfg), "--out", str(out), "--now", NEW_NOW, "--format", formats, "--overwrite", "-q"]


@pytest.fixture(scope="session")
def references(tmp_path_factory) -> tuple[Path, dict[str, bytes], dict[str, bytes]]:
    """A config and the bytes of its HTML + JSON report set at the old and the new timestamp
    (rendered once per session: HTML is the slow part). The old set is drawn without figures: it
    is only ever compared with itself, where the new one is compared with what a ``reportgen``
    process writes."""
    base = tmp_path_factory.mktemp("output_safety")
    cfg = make_config(base / "cfg")
    with pytest.MonkeyPatch.context() as mp:
        mp.setattr(render, "_draw_figures", lambda result, theme, sections: {})
        old = report(cfg, base / "old", OLD_NOW, "html,json")
    new = report(cfg, base / "new", NEW_NOW, "html,json")
    assert old != new and set(old) == set(new) == {"metrics.json", "report.html"}
    return cfg, old, new


@pytest.fixture
def setup(references, tmp_path: Path) -> tuple[Path, Path, dict[str, bytes], dict[str, bytes]]:
    """The config, a work directory whose ``X`` holds the previous (old) report set, and the
    bytes of the old and of the new set."""
    cfg, old, new = references
    work = tmp_path / "work"
    (work / "X").mkdir(parents=True)
    for name, data in old.items():
        (work / "X" / name).write_bytes(data)
    return cfg, work, old, new


# --------------------------------------------------------------------------------------
# Killed runs: SIGTERM is handled, SIGKILL leaves the old or the new set, never a mix
# --------------------------------------------------------------------------------------


@pytest.mark.slow
@pytest.mark.parametrize("point", ["locked", "staged"])
def test_sigterm_keeps_the_previous_report_and_leaves_no_temporary_directory(setup, point: str) -> None:
    cfg, work, old, _ = setup
    paused = Paused(point, run_argv(cfg, work / "X"))
    if point == "staged":  # the new set is complete in a sibling, not inside the target
        tmp = [p for p in work.iterdir() if p.name.startswith(f"{SCRATCH}tmp.X.")]
        assert len(tmp) == 1 and set(snapshot(tmp[0])) == {"metrics.json"}
        assert scratch(work / "X") == []
    code, err = paused.kill(signal.SIGTERM)
    assert code == 143, err
    assert err.splitlines() == [
        f"reportgen: error: {cfg}: interrupted by SIGTERM; nothing was written, the previous report is intact"
    ]
    assert snapshot(work / "X") == old
    assert scratch(work) == []  # not even the lock file


@pytest.mark.slow
def test_sigint_is_exit_130_with_the_same_guarantee(setup) -> None:
    cfg, work, old, _ = setup
    code, err = Paused("staged", run_argv(cfg, work / "X")).kill(signal.SIGINT)
    assert code == 130, err
    assert "interrupted by SIGINT; nothing was written, the previous report is intact" in err
    assert snapshot(work / "X") == old and scratch(work) == []


@pytest.mark.slow
def test_sigterm_during_the_swap_is_held_until_the_new_set_is_in_place(setup) -> None:
    cfg, work, _, new = setup
    code, err = Paused("swapped", run_argv(cfg, work / "X", "html,json")).kill(signal.SIGTERM)
    assert code == 143, err
    assert len(err.splitlines()) == 1 and "interrupted by SIGTERM just after the new report was written" in err
    assert snapshot(work / "X") == new
    assert scratch(work) == []


@pytest.mark.slow
@pytest.mark.parametrize("point", ["locked", "staged", "swapped"])
def test_sigkill_leaves_the_complete_old_or_new_set_and_the_next_run_cleans_up(setup, point: str) -> None:
    cfg, work, old, new = setup
    formats = "html,json" if point == "swapped" else "json"  # HTML only where the new set must be whole
    code, _ = Paused(point, run_argv(cfg, work / "X", formats)).kill(signal.SIGKILL)
    assert code == -signal.SIGKILL
    assert snapshot(work / "X") == (new if point == "swapped" else old)
    # leftovers are reportgen's own dot-named siblings only, never inside the report directory
    assert all(name.startswith(SCRATCH) for name in os.listdir(work) if name != "X")
    assert scratch(work / "X") == []
    # the next run is not blocked by the dead run's lock file and removes what it left
    assert report(cfg, work / "X", OLD_NOW) == {"metrics.json": old["metrics.json"]}
    assert scratch(work) == []


@pytest.mark.slow
def test_sigkill_between_the_two_renames_is_repaired_by_the_next_run(setup) -> None:
    """The one window where the target is absent: the old set is whole under its aside name,
    and the next run puts it back before anything else."""
    cfg, work, old, _ = setup
    Paused("aside", run_argv(cfg, work / "X")).kill(signal.SIGKILL)
    assert not (work / "X").exists()
    aside = [p for p in work.iterdir() if p.name.startswith(f"{SCRATCH}old.X.")]
    assert len(aside) == 1 and snapshot(aside[0]) == old
    # a run without --overwrite first restores the old set, then refuses to replace it
    assert run(str(cfg), "--out", str(work / "X"), "--format", "json") == 2
    assert snapshot(work / "X") == old
    assert scratch(work) == []


# --------------------------------------------------------------------------------------
# One run at a time: the lock
# --------------------------------------------------------------------------------------


@pytest.mark.slow
def test_concurrent_run_into_the_same_directory_is_refused_by_the_lock(tmp_path: Path, capsys) -> None:
    """Two runs with overwrite: false used to both exit 0 (the check ran before rendering)."""
    cfg = make_config(tmp_path / "cfg")
    out = tmp_path / "X"
    first = Paused("staged", ["run", str(cfg), "--out", str(out), "--now", NEW_NOW, "-q"])
    try:
        assert run(str(cfg), "--out", str(out), "--now", OLD_NOW) == 2
        err = capsys.readouterr().err
        assert err.splitlines() == [
            f"reportgen: error: {out}: another reportgen run (pid {first.proc.pid}) is writing this directory; "
            f"wait for it to finish or choose another --out"
        ]
        assert not out.exists()
    finally:
        code, _ = first.kill(signal.SIGTERM)
    assert code == 143 and not out.exists() and scratch(tmp_path) == []


def test_second_run_without_overwrite_after_the_first_is_refused(tmp_path: Path, capsys) -> None:
    cfg = make_config(tmp_path / "cfg")
    out = tmp_path / "X"
    assert run(str(cfg), "--out", str(out), "--now", OLD_NOW) == 0
    before = snapshot(out)
    assert run(str(cfg), "--out", str(out), "--now", NEW_NOW) == 2
    assert "a report already exists" in capsys.readouterr().err
    assert snapshot(out) == before


def test_the_lock_refuses_a_second_holder_and_a_dead_holders_file_does_not_block(tmp_path: Path) -> None:
    target = tmp_path / "X"
    with (
        writer.reserve(target, overwrite=True),
        pytest.raises(OutputError, match=r"another reportgen run .* is writing this directory"),
        writer.reserve(target, overwrite=True),
    ):
        pass
    assert scratch(tmp_path) == []
    (tmp_path / f"{SCRATCH}lock.X").write_text("99999999\n")  # left by a run killed with SIGKILL
    with writer.reserve(target, overwrite=True) as held:
        assert held.target == target
    assert scratch(tmp_path) == []


# --------------------------------------------------------------------------------------
# The set replaces the directory's report as a whole
# --------------------------------------------------------------------------------------


def test_partial_format_overwrite_leaves_no_stale_file_of_an_earlier_run(setup) -> None:
    cfg, work, _, new = setup  # X holds report.html and metrics.json of an earlier run
    assert report(cfg, work / "X", NEW_NOW, "json") == {"metrics.json": new["metrics.json"]}


def test_directory_holding_other_files_is_refused_not_emptied(tmp_path: Path, capsys) -> None:
    cfg = make_config(tmp_path / "cfg")
    out = tmp_path / "X"
    out.mkdir()
    (out / "report.pdf.sig").write_text("signature of an earlier report\n")
    (out / "metrics.json").write_text("{}\n")
    assert run(str(cfg), "--out", str(out), "--overwrite") == 2
    err = capsys.readouterr().err
    assert len(err.splitlines()) == 1
    assert f"{out}: holds report.pdf.sig, which reportgen did not write" in err and "--out" in err
    assert snapshot(out) == {"report.pdf.sig": b"signature of an earlier report\n", "metrics.json": b"{}\n"}
    assert scratch(tmp_path) == []


def test_temporary_directory_left_inside_by_an_older_version_is_ignored_and_removed(tmp_path: Path) -> None:
    cfg = make_config(tmp_path / "cfg")
    out = tmp_path / "X"
    (out / f"{SCRATCH}k2j4h1").mkdir(parents=True)
    (out / f"{SCRATCH}k2j4h1" / "report.html").write_text("<p>partial")
    report(cfg, out, NEW_NOW)
    assert sorted(os.listdir(out)) == ["metrics.json"]


@pytest.mark.slow
def test_render_keeps_the_metrics_json_it_was_rendered_from(tmp_path: Path, no_figures: None) -> None:
    cfg = make_config(tmp_path / "cfg")
    out = tmp_path / "X"
    saved = report(cfg, out, OLD_NOW)["metrics.json"]
    assert cli.main(["render", str(out / "metrics.json"), "--format", "html", "-q"]) == 0
    assert sorted(os.listdir(out)) == ["metrics.json", "report.html"]
    assert (out / "metrics.json").read_bytes() == saved
    assert scratch(tmp_path) == []


def test_symlinked_output_directory_stays_a_symlink(tmp_path: Path) -> None:
    cfg = make_config(tmp_path / "cfg")
    real = tmp_path / "real"
    real.mkdir()
    link = tmp_path / "X"
    link.symlink_to(real)
    report(cfg, link, OLD_NOW)
    assert link.is_symlink() and sorted(os.listdir(real)) == ["metrics.json"]


def test_output_directory_that_is_a_file_is_refused(tmp_path: Path, capsys) -> None:
    cfg = make_config(tmp_path / "cfg")
    (tmp_path / "X").write_text("a file\n")
    assert run(str(cfg), "--out", str(tmp_path / "X")) == 2
    assert "is a file, not a directory" in capsys.readouterr().err


# --------------------------------------------------------------------------------------
# Batches and directory names
# --------------------------------------------------------------------------------------


def test_batch_of_two_configs_with_one_name_into_one_out_dir_is_refused_before_any_work(tmp_path: Path, capsys) -> None:
    """``run a/q.yaml b/q.yaml --out X --overwrite`` used to write both into X/q."""
    a, b = make_config(tmp_path / "a"), make_config(tmp_path / "b")
    out = tmp_path / "X"
    assert run(str(a), str(b), "--out", str(out), "--overwrite") == 2
    err = capsys.readouterr().err.splitlines()
    assert err == [
        f"reportgen: error: {out / 'q'}: configs {a} and {b} would both write their report here; "
        f"give the config files distinct names (or distinct output.dir) and rerun; nothing was run"
    ]
    assert not out.exists()


def test_batch_of_two_configs_with_one_output_dir_is_refused(tmp_path: Path, capsys) -> None:
    a = make_config(tmp_path / "a", dir=str(tmp_path / "R" / "fixed"))
    b = make_config(tmp_path / "b", name="other.yaml", dir=str(tmp_path / "R" / "fixed"))
    assert run(str(a), str(b), "--overwrite") == 2
    assert "would both write their report here" in capsys.readouterr().err
    assert not (tmp_path / "R").exists()


def test_batch_with_run_id_directories_refuses_a_second_write_into_one_directory(tmp_path: Path, capsys) -> None:
    """Identical configs (same data, same pinned clock) have the same run id: the second one
    resolves to the directory the first just wrote, which is an error, not an overwrite."""
    a = make_config(tmp_path / "a", dir=str(tmp_path / "R" / "{run_id}"), overwrite=True)
    b = tmp_path / "a" / "b.yaml"
    b.write_text(a.read_text())
    assert cli.main(["run", str(a), str(b), "--now", OLD_NOW, "-q"]) == 2
    err = capsys.readouterr().err.splitlines()
    assert len(err) == 1 and f"{a} of this batch already wrote its report here" in err[0]
    assert len(list((tmp_path / "R").iterdir())) == 1


@pytest.mark.parametrize("name, expanded", [("...yaml", ".."), ("..yaml", ".")])
def test_config_name_cannot_expand_to_a_parent_or_current_directory(
    tmp_path: Path, capsys, name: str, expanded: str
) -> None:
    """A config named ``...yaml`` expanded ``{config}`` to ``..``: the report went one level up."""
    cfg = make_config(tmp_path / "proj", name=name, dir=str(tmp_path / "R" / "deep" / "{config}"))
    assert run(str(cfg)) == 2
    err = capsys.readouterr().err.splitlines()
    assert err == [
        f"reportgen: error: {cfg}: {{config}} would be {expanded!r}, which cannot name an output directory; "
        f"rename the config file or change output.dir"
    ]
    assert not (tmp_path / "R").exists()
    # with --out and several configs the name is checked the same way; the other config runs
    other = make_config(tmp_path / "proj", name="ok.yaml")
    assert run(str(cfg), str(other), "--out", str(tmp_path / "X")) == 2
    assert "the config's name would be" in capsys.readouterr().err
    assert sorted(os.listdir(tmp_path / "X")) == ["ok"]


def test_wrote_line_gives_absolute_paths(tmp_path: Path, monkeypatch: pytest.MonkeyPatch, capsys) -> None:
    cfg = make_config(tmp_path / "cfg")
    monkeypatch.chdir(tmp_path)
    assert cli.main(["run", "cfg/q.yaml", "--out", "rel/../rel/out", "--format", "json"]) == 0
    line = next(x for x in capsys.readouterr().out.splitlines() if " wrote " in x)
    assert line == f"cfg/q.yaml: wrote {tmp_path / 'rel' / 'out' / 'metrics.json'}"
    assert cfg.exists()


# --------------------------------------------------------------------------------------
# --now is a value (issue 15)
# --------------------------------------------------------------------------------------


def test_now_travels_as_a_value_and_never_sets_the_environment(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.delenv("REPORTGEN_NOW", raising=False)
    monkeypatch.delenv("SOURCE_DATE_EPOCH", raising=False)
    cfg = make_config(tmp_path / "cfg")
    report(cfg, tmp_path / "X", "2024-06-01T12:00:00+02:00")
    assert "REPORTGEN_NOW" not in os.environ
    run_info = json.loads((tmp_path / "X" / "metrics.json").read_text())["run"]
    assert run_info["created"] == "2024-06-01T10:00:00Z" and run_info["duration_seconds"] == 0.0


def test_now_overrides_the_environment(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setenv("REPORTGEN_NOW", "2020-01-01T00:00:00Z")
    monkeypatch.setenv("SOURCE_DATE_EPOCH", "0")
    cfg = make_config(tmp_path / "cfg")
    report(cfg, tmp_path / "X", NEW_NOW)
    assert json.loads((tmp_path / "X" / "metrics.json").read_text())["run"]["created"] == NEW_NOW


@pytest.mark.parametrize(
    "now, env, expect",
    [
        ("99999-01-01", {}, "--now '99999-01-01': not an ISO 8601 timestamp"),
        ("0001-01-01T00:00:00+01:00", {}, "--now '0001-01-01T00:00:00+01:00': out of range"),
        ("9999-12-31T23:30:00-01:00", {}, "out of range once converted to UTC"),
        (None, {"SOURCE_DATE_EPOCH": "99999999999999999"}, "SOURCE_DATE_EPOCH='99999999999999999': out of range"),
        (None, {"SOURCE_DATE_EPOCH": "-99999999999999999"}, "out of range"),
        (None, {"SOURCE_DATE_EPOCH": "soon"}, "expected whole seconds since 1970"),
        (
            None,
            {"REPORTGEN_NOW": "0001-01-01T00:00:00+05:00"},
            "REPORTGEN_NOW='0001-01-01T00:00:00+05:00': out of range",
        ),
    ],
)
def test_now_or_source_date_epoch_out_of_range_is_exit_2_with_one_line(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch, capsys, now, env, expect
) -> None:
    monkeypatch.delenv("REPORTGEN_NOW", raising=False)
    monkeypatch.delenv("SOURCE_DATE_EPOCH", raising=False)
    for k, v in env.items():
        monkeypatch.setenv(k, v)
    cfg = make_config(tmp_path / "cfg")
    args = [str(cfg), "--out", str(tmp_path / "X")] + (["--now", now] if now else [])
    assert run(*args) == 2
    err = capsys.readouterr().err.splitlines()
    assert len(err) == 1 and err[0].startswith("reportgen: error: ") and expect in err[0], err
    assert not (tmp_path / "X").exists()


def test_render_with_only_json_is_refused_rather_than_dropping_the_report(tmp_path: Path, capsys) -> None:
    """With whole-set replacement, ``render --format json`` would have left metrics.json alone."""
    cfg = make_config(tmp_path / "cfg")
    out = tmp_path / "X"
    out.mkdir()
    (out / "report.html").write_text("<p>signed</p>\n")
    report_json = report(cfg, tmp_path / "json", OLD_NOW)["metrics.json"]
    (out / "metrics.json").write_bytes(report_json)
    assert cli.main(["render", str(out / "metrics.json"), "--format", "json"]) == 2
    err = capsys.readouterr().err.splitlines()
    assert len(err) == 1 and "pass --format html,pdf" in err[0]
    assert snapshot(out) == {"metrics.json": report_json, "report.html": b"<p>signed</p>\n"}


def test_sigterm_during_the_analysis_in_process_releases_the_lock_and_restores_the_handlers(
    setup, monkeypatch: pytest.MonkeyPatch, capsys
) -> None:
    """The handlers ``main`` installs raise through the analysis; afterwards they are the
    caller's again (``main`` is also called in-process)."""
    from reportgen import pipeline

    cfg, work, old, _ = setup
    real = pipeline.analyse

    def killed(*args, **kwargs):
        os.kill(os.getpid(), signal.SIGTERM)
        return real(*args, **kwargs)

    monkeypatch.setattr(pipeline, "analyse", killed)
    before = signal.getsignal(signal.SIGTERM), signal.getsignal(signal.SIGINT)
    assert cli.main(["run", str(cfg), "--out", str(work / "X"), "--overwrite", "-q"]) == 143
    assert capsys.readouterr().err.splitlines() == [
        f"reportgen: error: {cfg}: interrupted by SIGTERM; nothing was written, the previous report is intact"
    ]
    assert (signal.getsignal(signal.SIGTERM), signal.getsignal(signal.SIGINT)) == before
    assert snapshot(work / "X") == old and scratch(work) == []


@pytest.mark.parametrize("value", ["", ".", "..", "a/b", "a\\b", "a\0b"])
def test_a_placeholder_can_never_expand_to_a_path_step_or_separator(value: str) -> None:
    with pytest.raises(cli.ConfigError, match=r"cannot name an output directory; change output\.dir"):
        cli._dir_name(value, "{run_id}", Path("q.yaml"), "change output.dir")
    assert cli._dir_name("q.v2", "{config}", Path("q.v2.yaml"), "-") == "q.v2"
