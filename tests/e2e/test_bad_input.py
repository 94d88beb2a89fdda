"""Every bad input ends in exit code 2, one clear line on stderr, no traceback, no output file.

Table-driven: each case writes a small config and data into ``tmp_path``, breaks one thing,
and runs ``reportgen run`` in-process. The message must name where (file, row, column or
config key) and what to do; these key words are checked.
"""

from __future__ import annotations

import builtins
import errno
import gzip
import io
import os
import random
from collections.abc import Callable
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

import pytest
import yaml

from reportgen import cli
from reportgen.config import PRIMARY_METRICS
from reportgen.engine.binary import METRICS
from reportgen.report import render

REPORT_FILES = ("report.html", "report.pdf", "metrics.json")


# --------------------------------------------------------------------------------------
# Fixtures: a small valid run that each case breaks in one place
# --------------------------------------------------------------------------------------


def csv_text(n: int = 20, seed: int = 1, header: str = "id,y,s") -> str:
    rng = random.Random(seed)
    rows = [header] + [f"{i},{i % 2},{rng.random():.3f}" for i in range(1, n + 1)]
    return "\n".join(rows) + "\n"


def latin1_csv() -> bytes:
    """Labels 'ok' / 'défaut' saved in latin-1 (é as the single byte 0xE9)."""
    text = csv_text().replace(",1,", ",défaut,").replace(",0,", ",ok,")
    return text.encode("latin-1")


def base_config() -> dict[str, Any]:
    return {
        "title": "t",
        "label": "y",
        "id": "id",
        "bootstrap": {"resamples": 0},
        "output": {"formats": ["json"]},
        "models": [
            {"name": "a", "file": "a.csv", "score": "s"},
            {"name": "b", "file": "b.csv", "score": "s"},
        ],
    }


def base_files() -> dict[str, str | bytes]:
    return {"a.csv": csv_text(seed=1), "b.csv": csv_text(seed=2)}


@dataclass
class Case:
    """One bad input: how to break the valid run, and key words the message must contain."""

    id: str
    expect: tuple[str, ...]
    cfg: Callable[[dict[str, Any]], None] | None = None
    files: Callable[[dict[str, str | bytes]], None] | None = None
    text: str | None = None  # raw config text instead of the dict
    args: tuple[str, ...] = ()
    use_out: bool = True
    setup: Callable[[Path, pytest.MonkeyPatch], None] | None = None
    extra: dict[str, Any] = field(default_factory=dict)


def write_case(tmp_path: Path, case: Case) -> Path:
    cfg = base_config()
    files = base_files()
    if case.cfg:
        case.cfg(cfg)
    if case.files:
        case.files(files)
    for name, content in files.items():
        p = tmp_path / name
        if isinstance(content, bytes):
            p.write_bytes(content)
        else:
            p.write_text(content, encoding="utf-8")
    cfg_path = tmp_path / "run.yaml"
    text = case.text if case.text is not None else yaml.safe_dump(cfg, sort_keys=False)
    cfg_path.write_text(text, encoding="utf-8")
    return cfg_path


def set_(path: str, value: Any) -> Callable[[dict[str, Any]], None]:
    """Set a dotted key (``models.0.score``) of the config."""

    def apply(cfg: dict[str, Any]) -> None:
        node: Any = cfg
        *head, last = path.split(".")
        for part in head:
            node = node[int(part)] if isinstance(node, list) else node[part]
        if isinstance(node, list):
            node[int(last)] = value
        else:
            node[last] = value

    return apply


def drop(path: str) -> Callable[[dict[str, Any]], None]:
    def apply(cfg: dict[str, Any]) -> None:
        node: Any = cfg
        *head, last = path.split(".")
        for part in head:
            node = node[int(part)] if isinstance(node, list) else node[part]
        del node[last]

    return apply


def file_(name: str, content: str | bytes) -> Callable[[dict[str, str | bytes]], None]:
    def apply(files: dict[str, str | bytes]) -> None:
        files[name] = content

    return apply


def edit_row(name: str, row: int, line: str, seed: int = 1) -> Callable[[dict[str, str | bytes]], None]:
    """Replace data line ``row`` (1-based, header = 1) of ``name``."""

    def apply(files: dict[str, str | bytes]) -> None:
        lines = str(files[name]).splitlines()
        lines[row - 1] = line
        files[name] = "\n".join(lines) + "\n"

    return apply


def both(*fns: Callable[[Any], None]) -> Callable[[Any], None]:
    def apply(x: Any) -> None:
        for f in fns:
            f(x)

    return apply


def _unreadable(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    target = tmp_path / "a.csv"
    target.chmod(0)
    if os.geteuid() == 0:  # root ignores permission bits: make opening the file fail as it would
        real = builtins.open

        def refuse(path: Any, *a: Any, **k: Any) -> Any:
            if isinstance(path, (str, os.PathLike)) and Path(path) == target:
                raise PermissionError(errno.EACCES, "Permission denied", str(path))
            return real(path, *a, **k)

        monkeypatch.setattr(builtins, "open", refuse)
        monkeypatch.setattr(io, "open", refuse)


def _under_a_file(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    (tmp_path / "blocker.txt").write_text("not a directory\n")


def _disk_full(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    def full(*a: Any, **k: Any) -> Any:
        raise OSError(errno.ENOSPC, "No space left on device")

    monkeypatch.setattr(Path, "write_text", full)


def _disk_full_at_the_lock(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    """The first write of a run is the output lock's pid line: on a full disk it failed with an
    internal error (exit 1, "OSError: [Errno 28]")."""

    def full(*a: Any, **k: Any) -> Any:
        raise OSError(errno.ENOSPC, "No space left on device")

    monkeypatch.setattr(os, "ftruncate", full)


def _existing_report(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    out = tmp_path / "out"
    out.mkdir()
    (out / "metrics.json").write_text("previous\n")


def _missing_config(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    (tmp_path / "run.yaml").unlink()


CASES = [
    # ---- config --------------------------------------------------------------------
    Case("config-missing-file", ("run.yaml", "not found"), setup=_missing_config),
    Case(
        "config-yaml-syntax",
        ("run.yaml:4:6", "invalid YAML", "line 3"),
        text="title: t\nmodels:\n  - {name: a, file: a.csv\nlabel: y\n",
    ),
    Case("config-empty", ("run.yaml", "empty"), text="# nothing here\n"),
    Case("config-not-a-mapping", ("run.yaml", "mapping"), text="- a\n- b\n"),
    Case("config-wrong-type-threshold", ("threshold", "number", "'high'"), cfg=set_("threshold", "high")),
    Case("config-wrong-type-models", ("models", "list"), cfg=set_("models", "a.csv")),
    Case(
        "config-wrong-type-resamples",
        ("bootstrap.resamples", "whole number"),
        cfg=set_("bootstrap", {"resamples": "many"}),
    ),
    Case("config-unknown-key", ("treshold", "unknown key", "did you mean 'threshold'"), cfg=set_("treshold", 0.3)),
    Case("config-unknown-nested-key", ("models[1].scroe", "did you mean 'score'"), cfg=set_("models.1.scroe", "s")),
    Case(
        "config-unknown-output-key", ("output.overwrit", "did you mean 'overwrite'"), cfg=set_("output.overwrit", True)
    ),
    Case("config-missing-models", ("models", "required"), cfg=drop("models")),
    Case("config-duplicate-models", ("duplicate model names", "a"), cfg=set_("models.1.name", "a")),
    Case("config-baseline-no-model", ("baseline", "'chamion' names no model", "a, b"), cfg=set_("baseline", "chamion")),
    Case("config-cost-matrix-not-square", ("costs", "square"), cfg=set_("costs", [[0, 1], [1, 0, 2]])),
    Case("config-cost-matrix-3x3-binary", ("costs", "2x2"), cfg=set_("costs", [[0, 1, 1], [1, 0, 1], [1, 1, 0]])),
    Case("config-cost-matrix-negative", ("costs", "non-negative", "-1"), cfg=set_("costs", [[0, -1], [1, 0]])),
    Case("config-cost-negative", ("costs.fn", "expected a number ≥ 0", "-5"), cfg=set_("costs", {"fn": -5, "fp": 1})),
    Case("config-beta-zero", ("beta", "expected a number > 0"), cfg=set_("beta", 0)),
    Case("config-beta-negative", ("beta", "expected a number > 0"), cfg=set_("beta", -2)),
    Case("config-task-unsupported", ("task", "'regression'", "binary"), cfg=set_("task", "regression")),
    Case(
        "config-primary-metric-unknown",
        ("primary_metric", "'giny'", "did you mean 'gini'"),
        cfg=set_("primary_metric", "giny"),
    ),
    Case("config-no-score", ("models[0]", "'score'"), cfg=drop("models.0.score")),
    Case("config-no-label", ("no label column",), cfg=drop("label")),
    Case(
        "config-confidence-level", ("confidence_level", "expected a number < 1", "95"), cfg=set_("confidence_level", 95)
    ),
    Case(
        "config-constraint-two-bounds",
        ("constraints[0]", "exactly one"),
        cfg=set_("constraints", [{"maximize": "precision", "where": "recall", "at_least": 0.8, "at_most": 0.9}]),
    ),
    Case("config-unknown-format", ("output.formats[0]", "'docx'"), cfg=set_("output.formats", ["docx"])),
    Case(
        "config-output-dir-placeholder",
        ("output.dir", "{user}", "{config}"),
        cfg=set_("output.dir", "reports/{user}"),
        use_out=False,
    ),
    Case(
        "config-python-tag",
        ("run.yaml", "not allowed"),
        text='title: !!python/object/apply:os.system ["echo pwned"]\nmodels: []\n',
    ),
    Case(
        "config-relative-data-path",
        ("not found", "nowhere.csv", "relative paths resolve against the config file"),
        cfg=set_("models.0.file", "data/nowhere.csv"),
    ),
    # ---- data ----------------------------------------------------------------------
    Case("data-unreadable", ("a.csv", "cannot open", "Permission denied", "permissions"), setup=_unreadable),
    Case(
        "data-is-directory",
        ("a.csv", "directory"),
        files=lambda f: f.pop("a.csv"),
        setup=lambda t, m: (t / "a.csv").mkdir(),
    ),
    Case("data-empty-file", ("a.csv", "empty"), files=file_("a.csv", "")),
    Case("data-header-only", ("a.csv", "header but no rows"), files=file_("a.csv", "id,y,s\n")),
    Case("data-wrong-delimiter", ("a.csv", "not found", "comma"), files=file_("a.csv", csv_text().replace(",", ";"))),
    Case("data-latin1", ("a.csv", "UTF-8"), cfg=set_("positive", "défaut"), files=file_("a.csv", latin1_csv())),
    Case(
        "data-missing-column",
        ("models[0].score", "'p_default' not found", "columns: id, y, s"),
        cfg=set_("models.0.score", "p_default"),
    ),
    Case("data-non-numeric-score", ("a.csv", "row 4", "'s'", "'high'"), files=edit_row("a.csv", 4, "3,1,high")),
    Case("data-nan-score", ("a.csv", "row 5", "non-finite", "missing: drop"), files=edit_row("a.csv", 5, "4,0,")),
    Case("data-inf-score", ("a.csv", "row 3", "non-finite"), files=edit_row("a.csv", 3, "2,0,inf")),
    Case(
        "data-nan-label",
        ("a.csv", "row 6", "missing or non-finite label", "missing: drop"),
        files=edit_row("a.csv", 6, "5,,0.3"),
    ),
    Case("data-inf-label", ("a.csv", "row 6", "label"), files=edit_row("a.csv", 6, "5,inf,0.3")),
    Case(
        "data-not-probability",
        ("a.csv", "row 2", "not a probability", "probabilities: true"),
        cfg=set_("models.0.probabilities", True),
        files=edit_row("a.csv", 2, "1,1,1.7"),
    ),
    Case("data-three-labels", ("a.csv", "3 distinct labels", "multiclass"), files=edit_row("a.csv", 7, "6,2,0.5")),
    Case("data-positive-absent", ("a.csv", "positive label 'bad'", "labels found"), cfg=set_("positive", "bad")),
    Case(
        "data-single-class",
        ("a.csv", "every row is positive", "both classes"),
        files=file_("a.csv", csv_text().replace(",0,", ",1,")),
    ),
    Case("data-duplicated-id", ("a.csv", "row 4", "duplicated id"), files=edit_row("a.csv", 4, "2,1,0.4")),
    Case(
        "data-id-mismatch",
        ("a.csv", "missing from model 'b'", "id_mismatch: intersect"),
        files=edit_row("b.csv", 21, "99,0,0.4", seed=2),
    ),
    # files of different lengths without an id are two samples compared unpaired in every engine
    # (tests/parity/test_bad_input_parity.py), no longer an error of the memory engine
    Case(
        "data-negative-weight",
        ("a.csv", "negative weight"),
        cfg=set_("weight", "s"),
        files=edit_row("a.csv", 3, "2,0,-0.5"),
    ),
    # ---- output --------------------------------------------------------------------
    Case(
        "output-under-a-file",
        ("cannot create the output directory", "--out"),
        args=("--out", "{tmp}/blocker.txt/sub"),
        setup=_under_a_file,
    ),
    Case("output-disk-full", ("disk full", "nothing was replaced"), setup=_disk_full),
    Case(
        "output-disk-full-at-the-lock",
        ("out: disk full", "free some space or choose another --out"),
        setup=_disk_full_at_the_lock,
    ),
    Case(
        "data-gzip-truncated",
        ("a.csv.gz", "cannot decompress as gzip", "gzip -t"),
        cfg=set_("models.0.file", "a.csv.gz"),
        files=file_("a.csv.gz", gzip.compress(csv_text().encode(), mtime=0)[:30]),
    ),
    Case(
        "data-huge-weight",
        ("a.csv", "column 's', row 2", "too large"),
        cfg=set_("weight", "s"),
        files=edit_row("a.csv", 2, "1,1,1e300"),
    ),
    Case("output-exists-no-overwrite", ("already exists", "--overwrite"), setup=_existing_report),
]


@pytest.mark.parametrize("case", CASES, ids=[c.id for c in CASES])
def test_bad_input_is_a_clean_user_error(
    case: Case, tmp_path: Path, monkeypatch: pytest.MonkeyPatch, capsys: pytest.CaptureFixture[str]
) -> None:
    cfg_path = write_case(tmp_path, case)
    if case.setup:
        case.setup(tmp_path, monkeypatch)
    out = tmp_path / "out"
    before = {p: p.read_bytes() for p in out.glob("*")} if out.exists() else {}
    monkeypatch.chdir(tmp_path)
    args = ["run", str(cfg_path), *[a.replace("{tmp}", str(tmp_path)) for a in case.args]]
    if case.use_out and "--out" not in case.args:
        args += ["--out", str(out)]

    code = cli.main(args)

    err = capsys.readouterr().err
    assert code == 2, err
    assert "Traceback" not in err
    lines = [x for x in err.splitlines() if not x.startswith("reportgen: warning: ")]  # warnings of the run before it
    assert len(lines) == 1, err
    assert lines[0].startswith("reportgen: error: ")
    for word in case.expect:
        assert word in lines[0], f"{word!r} not in {lines[0]!r}"
    # nothing written: no new report files, the previous one (if any) untouched, no temp dirs
    written = [p for p in tmp_path.rglob("*") if p.name in REPORT_FILES and p not in before]
    assert written == []
    assert {p: p.read_bytes() for p in before} == before
    assert not list(tmp_path.rglob(".reportgen-*"))


def test_there_are_enough_cases() -> None:
    assert len(CASES) >= 30


def test_primary_metrics_match_the_engine() -> None:
    """Every metric the engine computes may rank models, but the baseline accuracy (no direction)."""
    assert set(PRIMARY_METRICS) == set(METRICS) - {"baseline_accuracy"}


def test_valid_base_case_runs(tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    """The unbroken fixture succeeds, so every case above fails for its own reason."""
    cfg_path = write_case(tmp_path, Case("ok", ()))
    assert cli.main(["run", str(cfg_path), "--out", str(tmp_path / "out"), "-q"]) == 0
    assert (tmp_path / "out" / "metrics.json").exists()


def test_relative_paths_resolve_against_the_config_not_the_cwd(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch, capsys: pytest.CaptureFixture[str]
) -> None:
    proj = tmp_path / "proj"
    (proj / "data").mkdir(parents=True)
    cfg = base_config()
    for m in cfg["models"]:
        m["file"] = f"data/{m['file']}"
    for name, text in base_files().items():
        (proj / "data" / name).write_text(str(text))
    (proj / "run.yaml").write_text(yaml.safe_dump(cfg))
    elsewhere = tmp_path / "elsewhere"
    elsewhere.mkdir()
    monkeypatch.chdir(elsewhere)
    assert cli.main(["validate", "../proj/run.yaml"]) == 0, capsys.readouterr().err
    assert cli.main(["run", "../proj/run.yaml", "--out", "out", "-q"]) == 0
    assert (elsewhere / "out" / "metrics.json").exists()


def test_missing_drop_counts_the_dropped_rows(tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    case = Case(
        "drop",
        (),
        cfg=both(set_("missing", "drop"), drop("id")),
        files=both(edit_row("a.csv", 5, "4,0,"), edit_row("b.csv", 5, "4,0,nan")),
    )
    cfg_path = write_case(tmp_path, case)
    cfg = yaml.safe_load(cfg_path.read_text())
    cfg["id"] = "id"
    cfg_path.write_text(yaml.safe_dump(cfg))
    assert cli.main(["validate", str(cfg_path)]) == 0
    err = capsys.readouterr().err  # warnings go to stderr through logging (issue 18)
    assert "reportgen: warning: " in err and "1 row(s) would be dropped" in err
    assert len(set(err.splitlines())) == len(err.splitlines()), err  # each warning once


def test_id_mismatch_intersect_warns(tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    case = Case("intersect", (), cfg=set_("id_mismatch", "intersect"), files=edit_row("b.csv", 21, "99,0,0.4"))
    cfg_path = write_case(tmp_path, case)
    assert cli.main(["validate", str(cfg_path)]) == 0
    err = capsys.readouterr().err  # warnings go to stderr through logging (issue 18)
    assert "reportgen: warning: " in err and "1 row(s) whose id is not in every model were dropped" in err
    assert len(set(err.splitlines())) == len(err.splitlines()), err  # each warning once


def test_threshold_outside_the_score_range_is_a_warning(tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    cfg_path = write_case(tmp_path, Case("threshold", (), cfg=set_("threshold", 5.0)))
    assert cli.main(["validate", str(cfg_path)]) == 0
    err = capsys.readouterr().err  # warnings go to stderr through logging (issue 18)
    assert "reportgen: warning: " in err and "threshold 5 lies outside the scores of model 'a'" in err
    assert len(set(err.splitlines())) == len(err.splitlines()), err  # each warning once


def test_existing_report_with_overwrite_in_config_is_replaced(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    cfg_path = write_case(tmp_path, Case("ow", (), cfg=set_("output.overwrite", True)))
    out = tmp_path / "out"
    out.mkdir()
    (out / "metrics.json").write_text("previous\n")
    assert cli.main(["run", str(cfg_path), "--out", str(out), "-q"]) == 0
    assert (out / "metrics.json").read_text() != "previous\n"


def test_output_dir_placeholders(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch, capsys: pytest.CaptureFixture[str]
) -> None:
    cfg_path = write_case(tmp_path, Case("ph", (), cfg=set_("output.dir", "reports/{config}/{date}/{run_id}")))
    monkeypatch.chdir(tmp_path)
    assert cli.main(["run", str(cfg_path), "-q", "--now", "2024-06-01T12:00:00Z"]) == 0
    found = list((tmp_path / "reports" / "run" / "2024-06-01").glob("*/metrics.json"))
    assert len(found) == 1 and len(found[0].parent.name) == 12


def test_failing_pdf_leaves_the_previous_report_untouched(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch, capsys: pytest.CaptureFixture[str], no_figures: None
) -> None:
    cfg_path = write_case(tmp_path, Case("pdf", ()))
    out = tmp_path / "out"
    out.mkdir()
    previous = {"report.html": "<p>old</p>\n", "report.pdf": "%PDF old\n", "metrics.json": "{}\n"}
    for name, text in previous.items():
        (out / name).write_text(text)

    def full(html: str, target: Path, **_: object) -> None:  # render_pdf's options too
        Path(target).write_bytes(b"%PDF partial")
        raise OSError(errno.ENOSPC, "No space left on device")

    monkeypatch.setattr(render, "render_pdf", full)
    code = cli.main(["run", str(cfg_path), "--out", str(out), "--format", "html,pdf,json", "--overwrite"])
    err = capsys.readouterr().err
    assert code == 2
    errors = [x for x in err.splitlines() if not x.startswith("reportgen: warning: ")]
    assert len(errors) == 1 and "disk full" in err and "Traceback" not in err
    assert {p.name: p.read_text() for p in out.iterdir()} == previous
    assert not list(out.glob(".reportgen-*"))


def test_debug_shows_the_traceback(tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    cfg_path = write_case(tmp_path, Case("dbg", (), cfg=set_("beta", 0)))
    assert cli.main(["run", str(cfg_path), "--out", str(tmp_path / "out"), "--debug"]) == 2
    err = capsys.readouterr().err
    assert "Traceback" in err and err.strip().splitlines()[-1].startswith("reportgen: error: ")


@pytest.mark.parametrize(
    "name, content, words",
    [
        ("a.csv.gz", gzip.compress(csv_text().encode(), mtime=0)[:30], "cannot decompress as gzip"),  # a truncated gzip
        ("a.csv", b"", "the file is empty"),  # "cannot read as CSV (No columns to parse from file)"
        ("a.csv", latin1_csv().replace(b"id,y,s", b"id,\xe9,s"), "not UTF-8 text"),  # pandas' codec message
    ],
)
def test_init_refuses_a_hostile_file_with_the_line_run_gives(
    name: str, content: bytes, words: str, tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    (tmp_path / name).write_bytes(content)
    assert cli.main(["init", str(tmp_path / name), "--out", str(tmp_path / "c.yaml")]) == 2
    err = capsys.readouterr().err
    assert words in err and err.count("\n") == 1 and not (tmp_path / "c.yaml").exists(), err
