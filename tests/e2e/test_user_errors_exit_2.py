"""The "exit 1 for a user error" cases of issue 18, each exit 2 with one line, named after what broke.

Already covered elsewhere (kept there, listed here so the issue's list is checked in one place):
``--now`` / ``SOURCE_DATE_EPOCH`` out of range (tests/unit/test_writer.py::
test_now_or_source_date_epoch_out_of_range_is_exit_2_with_one_line), wrong types in a
``metrics.json`` passed to ``render`` (tests/unit/test_results.py::test_broken_metrics_json_is_a_user_error),
a binary class whose weights are all zero in every engine (tests/parity/test_bad_input_parity.py).
"""

from __future__ import annotations

import json
import os
from pathlib import Path

import pytest
import yaml

from reportgen import cli


def one_error(capsys) -> str:
    err = capsys.readouterr().err
    lines = [x for x in err.splitlines() if not x.startswith("reportgen: warning: ")]
    assert len(lines) == 1 and lines[0].startswith("reportgen: error: ") and "Traceback" not in err, err
    assert "internal error" not in err, err
    return lines[0]


def binary_run(tmp: Path, weights: list[float] | None = None, engine: str = "memory") -> Path:
    """A small binary run's output directory (json only)."""
    rows = ["y,s,w", "0,0.1,1", "1,0.9,1", "0,0.3,1", "1,0.7,1", "0,0.6,1", "1,0.2,1"]
    if weights is not None:
        rows = [rows[0]] + [r.rsplit(",", 1)[0] + f",{w}" for r, w in zip(rows[1:], weights)]
    (tmp / "a.csv").write_text("\n".join(rows) + "\n", encoding="utf-8")
    cfg = {
        "title": "t",
        "label": "y",
        "bootstrap": {"resamples": 0},
        "output": {"formats": ["json"]},
        **({"weight": "w"} if weights is not None else {}),
        "models": [{"name": "a", "file": "a.csv", "score": "s"}],
    }
    (tmp / "run.yaml").write_text(yaml.safe_dump(cfg), encoding="utf-8")
    return tmp / "run.yaml"


@pytest.fixture()
def saved(tmp_path, capsys) -> Path:
    out = tmp_path / "out"
    assert cli.main(["run", str(binary_run(tmp_path)), "--out", str(out), "-q"]) == 0
    capsys.readouterr()
    return out / "metrics.json"


def theme_with(tmp: Path, template: str) -> Path:
    theme = tmp / "theme"
    theme.mkdir()
    (theme / "report.html").write_text(template, encoding="utf-8")
    return theme


def test_undefined_variable_in_a_theme_is_exit_2(saved, tmp_path, capsys, no_figures):
    theme = theme_with(tmp_path, "<html>{{ no_such_value }}</html>")
    code = cli.main(["render", str(saved), "--theme", str(theme), "--out", str(tmp_path / "r"), "--format", "html"])
    assert code == 2
    assert "'no_such_value' is undefined" in one_error(capsys)
    assert not (tmp_path / "r").exists()


@pytest.mark.parametrize(
    "expression, found",
    [
        ("{{ 1 / 0 }}", "ZeroDivisionError: division by zero"),
        ('{{ view.title | int + "a" }}', "TypeError: unsupported operand type(s) for +: 'int' and 'str'"),
    ],
)
def test_a_theme_expression_that_raises_at_render_time_is_exit_2_naming_its_line(
    expression, found, saved, tmp_path, capsys, no_figures
):
    """Were 'internal error (ZeroDivisionError ...)', exit 1."""
    theme = theme_with(tmp_path, "<html>\n<p>" + expression + "</p></html>")
    code = cli.main(["render", str(saved), "--theme", str(theme), "--out", str(tmp_path / "r"), "--format", "html"])
    assert code == 2
    line = one_error(capsys)
    assert f"{theme / 'report.html'}:2: the template failed while rendering ({found})" in line


def test_a_theme_including_a_missing_template_names_it_not_a_disk_error(saved, tmp_path, capsys, no_figures):
    """Was 'writing the report failed (nope.html)': Jinja's TemplateNotFound is an OSError."""
    theme = theme_with(tmp_path, '<html>{% include "nope.html" %}</html>')
    code = cli.main(["render", str(saved), "--theme", str(theme), "--out", str(tmp_path / "r"), "--format", "html"])
    assert code == 2
    assert "template 'nope.html' not found in the theme or the shipped templates" in one_error(capsys)


def test_wrong_types_in_metrics_json_passed_to_render_are_exit_2(saved, tmp_path, capsys):
    data = json.loads(saved.read_text(encoding="utf-8"))
    data["run"]["warnings"] = "not a list"
    bad = tmp_path / "bad.json"
    bad.write_text(json.dumps(data), encoding="utf-8")
    assert cli.main(["render", str(bad), "--out", str(tmp_path / "r"), "--format", "html"]) == 2
    assert f"{bad}: run.warnings:" in one_error(capsys)


@pytest.mark.parametrize("engine", ["memory", "stream"])
def test_all_weights_zero_is_exit_2_binary(engine, tmp_path, capsys):
    cfg = binary_run(tmp_path, [0, 0, 0, 0, 0, 0])
    assert cli.main(["run", str(cfg), "--engine", engine, "--out", str(tmp_path / "r")]) == 2
    assert "column 'w': every row has weight 0" in one_error(capsys)


@pytest.mark.parametrize("engine", ["memory", "stream"])
def test_all_weights_zero_is_exit_2_multiclass(engine, tmp_path, capsys):
    """Was 'internal error (ZeroDivisionError: float division by zero)', exit 1."""
    (tmp_path / "m.csv").write_text("y,p,w\na,a,0\nb,b,0\nc,a,0\nb,c,0\n", encoding="utf-8")
    cfg = {
        "title": "t",
        "task": "multiclass",
        "label": "y",
        "weight": "w",
        "bootstrap": {"resamples": 0},
        "output": {"formats": ["json"]},
        "models": [{"name": "a", "file": "m.csv", "prediction": "p"}],
    }
    (tmp_path / "m.yaml").write_text(yaml.safe_dump(cfg), encoding="utf-8")
    assert cli.main(["run", str(tmp_path / "m.yaml"), "--engine", engine, "--out", str(tmp_path / "r")]) == 2
    assert f"{tmp_path / 'm.csv'}: column 'w': every row has weight 0" in one_error(capsys)


# --- found by a fuzz of the CLI with hostile files (tests named after what broke) ---


@pytest.mark.parametrize(
    ("kind", "expected"),
    [
        ("directory", "is a directory"),
        ("fifo", "not a regular file (a FIFO, socket or device)"),
        ("device", "not a regular file (a FIFO, socket or device)"),
    ],
)
def test_render_of_a_metrics_json_that_is_not_a_file_is_exit_2_without_blocking(kind, expected, tmp_path, capsys):
    """A directory was an internal error (exit 1); a FIFO blocked forever; /dev/zero read until
    memory ran out."""
    path = tmp_path / "metrics.json"
    if kind == "directory":
        path.mkdir()
    elif kind == "fifo":
        os.mkfifo(path)
    else:
        path.symlink_to("/dev/zero")
    assert cli.main(["render", str(path), "--out", str(tmp_path / "r"), "--format", "html"]) == 2
    assert one_error(capsys) == f"reportgen: error: {path}: {expected}; pass the metrics.json of a previous run"
    assert not (tmp_path / "r").exists()


@pytest.mark.parametrize("text", ["[" * 100_000 + "]" * 100_000, '{"a": ' * 100_000 + "1" + "}" * 100_000])
def test_render_of_deeply_nested_json_is_exit_2_not_a_recursion_error(text, tmp_path, capsys):
    """json.loads raised RecursionError: exit 1, "internal error … report it"."""
    path = tmp_path / "metrics.json"
    path.write_text(text, encoding="utf-8")
    assert cli.main(["render", str(path), "--format", "html"]) == 2
    assert one_error(capsys) == f"reportgen: error: {path}: not a reportgen metrics.json (it nests too deeply)"
    assert sorted(p.name for p in tmp_path.iterdir()) == ["metrics.json"]


@pytest.mark.slow
def test_render_keeps_the_bytes_it_rendered_from(saved, tmp_path, capsys, no_figures):
    """The kept metrics.json is the file parsed (one read), byte for byte."""
    before = saved.read_bytes()
    assert cli.main(["render", str(saved), "--format", "html", "-q"]) == 0
    assert saved.read_bytes() == before
    assert (saved.parent / "report.html").is_file()


@pytest.mark.parametrize(
    ("report", "expected"),
    [
        ("x", "run.config.report: expected an object or null, found 'x'"),
        (
            {"palette": ["red;}</style><script>alert(1)</script>"]},
            "run.config.report.palette: 'red;}</style><script>alert(1)</script>' is not a colour; write colours as '#rrggbb'",
        ),
        ({"sections": ["../../etc/passwd"]}, "run.config.report.sections[0]: expected 'summary', "),
    ],
)
def test_render_refuses_a_report_block_the_config_would_refuse(report, expected, saved, tmp_path, capsys):
    """A string ``run.config.report`` was an AttributeError (exit 1), a palette entry that is not a
    colour a matplotlib ValueError (exit 1), an unknown section was dropped silently (a report
    with no section at all)."""
    data = json.loads(saved.read_text(encoding="utf-8"))
    data["run"]["config"]["report"] = report
    bad = tmp_path / "bad.json"
    bad.write_text(json.dumps(data), encoding="utf-8")
    assert cli.main(["render", str(bad), "--out", str(tmp_path / "r"), "--format", "html"]) == 2
    assert one_error(capsys).startswith(f"reportgen: error: {bad}: {expected}")
    assert not (tmp_path / "r").exists()


def test_render_refuses_a_key_repeated_in_a_metrics_json(saved, tmp_path, capsys):
    """json keeps the last of two equal keys: a received file could read one way to a person
    and render another."""
    text = saved.read_text(encoding="utf-8")
    bad = tmp_path / "bad.json"
    bad.write_text(text.replace('"run": {', '"run": {"title": "hidden", ', 1), encoding="utf-8")
    assert cli.main(["render", str(bad), "--out", str(tmp_path / "r"), "--format", "html"]) == 2
    assert one_error(capsys).startswith(f"reportgen: error: {bad}: key 'title' is given twice in one object")


@pytest.mark.parametrize(
    ("value", "expected"),
    [
        ("1" * 5000, "an integer of 5000 digits"),  # was exit 1: Python's 4,300-digit limit (ValueError)
        ("1e999", "the number 1e999 is too large for a float"),  # was read as inf and rendered
        ("NaN", "NaN is not a JSON number; a reportgen metrics.json writes an undefined value as null"),
        ("-Infinity", "-Infinity is not a JSON number; a reportgen metrics.json writes an undefined value as null"),
    ],
)
def test_render_refuses_a_number_no_metrics_json_holds(value, expected, saved, tmp_path, capsys):
    text = saved.read_text(encoding="utf-8")
    bad = tmp_path / "bad.json"
    bad.write_text(text.replace('"run": {', f'"run": {{"extra_number": {value}, ', 1), encoding="utf-8")
    assert cli.main(["render", str(bad), "--out", str(tmp_path / "r"), "--format", "html"]) == 2
    assert one_error(capsys) == f"reportgen: error: {bad}: not a reportgen metrics.json ({expected})"
    assert not (tmp_path / "r").exists()
