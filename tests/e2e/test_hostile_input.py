"""Hostile input is a one-line user error, never an internal one: CSV rows and headers longer than a
parser's limits, quotes in columns the config does not read, NUL characters in a config's
paths, terminal controls in names and titles too long to lay out.

Each test is named after what broke. Every test runs ``reportgen.cli.main`` in-process and
checks the whole of stderr: one line, exit code 2 for the user's mistake, the same words in
every engine.
"""

from __future__ import annotations

import json
import os
import random
import re
import subprocess
import sys
from pathlib import Path
from typing import Any

import pytest
import yaml

from reportgen import cli
from reportgen.terminal import UNSHOWN

ENGINES = ("memory", "stream", "dask")
ROOT = Path(__file__).resolve().parents[2]


def rows(n: int = 60, seed: int = 1) -> list[tuple[int, int, str]]:
    rng = random.Random(seed)
    return [(i, i % 2, f"{rng.random():.3f}") for i in range(1, n + 1)]


def make_run(folder: Path, a_csv: bytes, n: int = 60, **extra) -> Path:
    """Model a reads ``a_csv`` (columns id, y, s, maybe more), model b a clean file of ``n`` rows;
    no bootstrap, metrics.json only."""
    folder.mkdir(parents=True, exist_ok=True)
    (folder / "a.csv").write_bytes(a_csv)
    (folder / "b.csv").write_text("id,y,s\n" + "".join(f"{i},{y},{s}\n" for i, y, s in rows(n, 2)), encoding="utf-8")
    cfg = {
        "title": "t",
        "label": "y",
        "id": "id",
        "bootstrap": {"resamples": 0},
        "output": {"formats": ["json"], "dir": "out"},
        "models": [{"name": "a", "file": "a.csv", "score": "s"}, {"name": "b", "file": "b.csv", "score": "s"}],
    }
    cfg.update(extra)
    path = folder / "q.yaml"
    path.write_text(yaml.safe_dump(cfg), encoding="utf-8")
    return path


def run(cfg: Path, engine: str, request: pytest.FixtureRequest) -> int:
    args = ["run", str(cfg), "-q", "--overwrite", "--engine", engine]
    if engine == "dask":
        args += ["--scheduler", request.getfixturevalue("scheduler")]
    return cli.main(args)


def csv_with(header: str, lines: list[str]) -> bytes:
    return (header + "\n" + "".join(line + "\n" for line in lines)).encode("utf-8")


# --------------------------------------------------------------------------------------
# Fields longer than the csv module's limit, rows and headers longer than pyarrow's block
# --------------------------------------------------------------------------------------

#: Longer than the csv module's default field limit (131,072 characters).
LONG = "x" * 200_000


@pytest.mark.parametrize("engine", ("memory", "stream"))
def test_a_repeated_header_name_beside_a_field_over_128_kib_is_read_not_an_internal_error(
    engine: str, tmp_path: Path, request: pytest.FixtureRequest, capsys: pytest.CaptureFixture[str]
) -> None:
    """A header that pandas renames (``t``, ``t.1``) is read again as written with :mod:`csv`;
    a header field over its 131,072-character limit made that an internal error (exit 1)."""
    cfg = make_run(tmp_path, csv_with(f"id,y,s,t,t,{LONG}", [f"{i},{y},{s},z,z,z" for i, y, s in rows()]))
    assert run(cfg, engine, request) == 0, capsys.readouterr().err
    assert capsys.readouterr().err == ""
    assert json.loads((tmp_path / "out" / "metrics.json").read_text(encoding="utf-8"))["models"]


@pytest.mark.parametrize("engine", ("memory", "stream"))
def test_a_field_over_128_kib_is_not_called_a_quote_left_open(
    engine: str, tmp_path: Path, request: pytest.FixtureRequest, capsys: pytest.CaptureFixture[str]
) -> None:
    """The scan that names a ragged row's number stopped at a long value (the csv module's field
    limit) and called it a quote left open, on the long value's row: the real fault, a short
    last row, went unnamed."""
    lines = [f"{i},{y},{s},{LONG if i == 3 else 'z'}" for i, y, s in rows()] + ["61,1,0.3"]
    cfg = make_run(tmp_path, csv_with("id,y,s,t", lines))
    assert run(cfg, engine, request) == 2
    assert capsys.readouterr().err == (
        f"reportgen: error: {tmp_path / 'a.csv'}: row 62: 3 fields where the header has 4; "
        f"give every row one field per header column (quote a value that holds a comma)\n"
    )
    assert not (tmp_path / "out").exists()


@pytest.mark.parametrize("engine", ("memory", "stream"))
def test_a_short_row_after_a_row_longer_than_a_megabyte_is_refused_by_every_engine(
    engine: str, tmp_path: Path, request: pytest.FixtureRequest, capsys: pytest.CaptureFixture[str]
) -> None:
    """A row longer than pyarrow's default block (1 MiB) sent the in-memory engine to pandas,
    which padded a short row with missing cells: the file was accepted there (and its last
    row's missing score then refused, or a short row's id compared) where the streamed engine
    refused the row by its field count."""
    lines = [f"{i},{y},{s},{'x' * (3 << 20) if i == 3 else 'z'}" for i, y, s in rows()] + ["61,1,0.3"]
    cfg = make_run(tmp_path, csv_with("id,y,s,t", lines), id_mismatch="intersect")
    assert run(cfg, engine, request) == 2
    assert capsys.readouterr().err == (
        f"reportgen: error: {tmp_path / 'a.csv'}: row 62: 3 fields where the header has 4; "
        f"give every row one field per header column (quote a value that holds a comma)\n"
    )


@pytest.mark.parametrize("engine", ("memory", "stream"))
def test_a_header_longer_than_a_megabyte_above_short_rows_is_refused_by_every_engine(
    engine: str, tmp_path: Path, request: pytest.FixtureRequest, capsys: pytest.CaptureFixture[str]
) -> None:
    """A header longer than pyarrow's block ("Empty CSV file or block") sent the in-memory engine
    to pandas, which read rows one field short as if complete: the run succeeded."""
    cfg = make_run(tmp_path, csv_with(f"id,y,s,{'x' * (2 << 20)}", [f"{i},{y},{s}" for i, y, s in rows()]))
    assert run(cfg, engine, request) == 2
    assert capsys.readouterr().err == (
        f"reportgen: error: {tmp_path / 'a.csv'}: row 2: 3 fields where the header has 4; "
        f"give every row one field per header column (quote a value that holds a comma)\n"
    )


@pytest.mark.parametrize("engine", ENGINES)
def test_a_header_longer_than_the_streamed_block_is_read_not_called_empty(
    engine: str, tmp_path: Path, request: pytest.FixtureRequest, capsys: pytest.CaptureFixture[str]
) -> None:
    """With small batches (a 1 MiB block) a header longer than the block was "the file has a
    header but no rows" in the stream and dask engines: pyarrow words it as an empty file."""
    n = 1500
    lines = [f"{i},{y},{s},z" for i, y, s in rows(n)]
    cfg = make_run(tmp_path, csv_with(f"id,y,s,{'x' * (2 << 20)}", lines), n=n, stream={"batch_rows": 1000})
    assert run(cfg, engine, request) == 0, capsys.readouterr().err
    assert capsys.readouterr().err == ""
    metrics = json.loads((tmp_path / "out" / "metrics.json").read_text(encoding="utf-8"))
    assert not metrics["run"]["dropped"]


# --------------------------------------------------------------------------------------
# Quotes in columns the config does not read
# --------------------------------------------------------------------------------------


@pytest.mark.parametrize("where", (5, 61))
@pytest.mark.parametrize("engine", ENGINES)
def test_a_quote_left_open_in_an_unread_column_loses_no_rows_in_any_engine(
    engine: str, where: int, tmp_path: Path, request: pytest.FixtureRequest, capsys: pytest.CaptureFixture[str]
) -> None:
    """A quote left open in a column no model reads took every later row into that one value in
    the stream and dask engines: with ``id_mismatch: intersect`` the run compared 5 rows of 60
    and exited 0 (the in-memory engine refused the file)."""
    lines = [f"{i},{y},{s},{chr(34) if i == where else 'z'}" for i, y, s in rows()]
    if where > 60:
        lines.append(f"{where},1,0.3,{chr(34)}")
    cfg = make_run(tmp_path, csv_with("id,y,s,t", lines), id_mismatch="intersect")
    assert run(cfg, engine, request) == 2
    assert capsys.readouterr().err == (
        f"reportgen: error: {tmp_path / 'a.csv'}: row {where + 1}: a quote is left open "
        f"or misplaced (malformed CSV); close the quote or remove the stray one\n"
    )
    assert not (tmp_path / "out").exists()


@pytest.mark.parametrize("value", ('ab"c', '"two\nlines"'))
def test_a_stray_or_multi_line_quote_in_an_unread_column_is_still_read(
    value: str, tmp_path: Path, request: pytest.FixtureRequest
) -> None:
    """The check above refuses only what the strict scan finds malformed: a quote inside an
    unquoted value, and a quoted value of two lines, are read as before."""
    cfg = make_run(tmp_path, csv_with("id,y,s,t", [f"{i},{y},{s},{value if i == 5 else 'z'}" for i, y, s in rows()]))
    assert run(cfg, "stream", request) == 0


# --------------------------------------------------------------------------------------
# NUL characters in a config's paths
# --------------------------------------------------------------------------------------


@pytest.mark.parametrize(
    ("key", "value"),
    [
        ("models[0].file", "a\x00.csv"),
        ("models[0].reference", "r\x00.csv"),
        ("output.dir", "o\x00ut"),
        ("history.path", "h\x00.sqlite"),
    ],
)
def test_a_nul_character_in_a_path_is_exit_2_naming_the_key(
    key: str, value: str, tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    """``file: "a\\0.csv"`` (YAML's escape) reached the operating system, which raised
    "embedded null byte": an internal error (exit 1) instead of the key and what to do."""
    cfg = make_run(tmp_path, csv_with("id,y,s", [f"{i},{y},{s}" for i, y, s in rows()]))
    doc = yaml.safe_load(cfg.read_text(encoding="utf-8"))
    doc["history"] = {"path": "h.sqlite"}
    if key == "models[0].file":
        doc["models"][0]["file"] = value
    elif key == "models[0].reference":
        doc["models"][0]["reference"] = value
    elif key == "output.dir":
        doc["output"]["dir"] = value
    else:
        doc["history"]["path"] = value
    cfg.write_text(yaml.safe_dump(doc), encoding="utf-8")
    line = next(i for i, x in enumerate(cfg.read_text(encoding="utf-8").splitlines(), 1) if "\\0" in x)
    assert cli.main(["run", str(cfg), "-q"]) == 2
    shown = repr(value)
    assert capsys.readouterr().err == (
        f"reportgen: error: {cfg}:{line}: {key}: {shown} holds a NUL character (\\0), "
        f"which no path can hold; remove it\n"
    )
    assert not (tmp_path / "out").exists() and not (tmp_path / "h.sqlite").exists()


# --------------------------------------------------------------------------------------
# Names that a terminal would act on
# --------------------------------------------------------------------------------------


@pytest.mark.parametrize(
    ("name", "shown"),
    [
        ("a\x1b[2J\x1b]0;pwned\x07b", "a\\x1b[2J\\x1b]0;pwned\\x07b"),
        ("a\u202eb\tc", "a\\u202eb\\tc"),
        ("a\nreportgen: error: forged", "a reportgen: error: forged"),
    ],
)
def test_a_model_name_with_terminal_controls_is_shown_escaped_in_errors_and_warnings(
    name: str, shown: str, tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    """A model name holding ESC sequences (clear the screen, set the window title), BEL, a tab
    or a right-to-left override reached the terminal raw in every message quoting it: the
    screen was cleared, or the rest of the line shown reversed. Line breaks were already a space."""
    lines = [f"{i},{y},{s}" for i, y, s in rows()] + ["99,1,0.5"]  # an id model b lacks: a warning, or an error
    cfg = make_run(tmp_path, csv_with("id,y,s", lines))
    doc = yaml.safe_load(cfg.read_text(encoding="utf-8"))
    doc["models"][0]["name"] = name
    cfg.write_text(yaml.safe_dump(doc), encoding="utf-8")
    assert cli.main(["run", str(cfg), "-q"]) == 2
    err = capsys.readouterr().err
    assert err.startswith(f"reportgen: error: {tmp_path / 'a.csv'}: model '{shown}' has 1 id(s) not shared"), err
    assert err.count("\n") == 1 and not re.search(UNSHOWN, err.rstrip("\n"))
    doc["id_mismatch"] = "intersect"
    cfg.write_text(yaml.safe_dump(doc), encoding="utf-8")
    assert cli.main(["run", str(cfg)]) == 0
    captured = capsys.readouterr()
    warned = [x for x in captured.err.splitlines() if f"model '{shown}'" in x]
    assert warned and all(x.startswith("reportgen: warning: ") for x in captured.err.splitlines()), captured.err
    assert not re.search(UNSHOWN, captured.err.replace("\n", "")) and not re.search(
        UNSHOWN, captured.out.replace("\n", "")
    )


def test_history_text_shows_a_title_with_terminal_controls_escaped(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    """``reportgen history`` printed a recorded title's ESC sequence raw (its line breaks
    already became spaces)."""
    cfg = make_run(
        tmp_path,
        csv_with("id,y,s", [f"{i},{y},{s}" for i, y, s in rows()]),
        title="Q3\x1b[31m red",
        history={"path": "h.sqlite"},
    )
    assert cli.main(["run", str(cfg), "-q"]) == 0
    capsys.readouterr()
    assert cli.main(["history", str(tmp_path / "h.sqlite")]) == 0
    out = capsys.readouterr().out
    assert "\x1b" not in out and "Q3\\x1b[31m red" in out, out


# --------------------------------------------------------------------------------------
# A file where a directory of the output or the history store should be
# --------------------------------------------------------------------------------------


@pytest.mark.parametrize("out", ("a.csv/out", "a.csv/x/y/out"))
def test_an_output_directory_under_a_file_names_the_file(
    out: str, tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    """``--out a.csv/out`` said "cannot create the output directory (File exists)": mkdir's words,
    naming neither the file in the way nor that it is one."""
    cfg = make_run(tmp_path, csv_with("id,y,s", [f"{i},{y},{s}" for i, y, s in rows()]))
    before = (tmp_path / "a.csv").read_bytes()
    assert cli.main(["run", str(cfg), "-q", "--out", str(tmp_path / out)]) == 2
    assert capsys.readouterr().err == (
        f"reportgen: error: {tmp_path / out}: cannot create the output directory: "
        f"{tmp_path / 'a.csv'} is a file, not a directory; choose another --out\n"
    )
    assert (tmp_path / "a.csv").read_bytes() == before


def test_a_history_store_under_a_file_names_the_file(tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    """``history: {path: a.csv/h.sqlite}`` said "cannot create its directory (File exists)"."""
    cfg = make_run(
        tmp_path, csv_with("id,y,s", [f"{i},{y},{s}" for i, y, s in rows()]), history={"path": "a.csv/h.sqlite"}
    )
    assert cli.main(["run", str(cfg), "-q"]) == 2
    assert capsys.readouterr().err == (
        f"reportgen: error: {tmp_path / 'a.csv' / 'h.sqlite'}: cannot create its directory: "
        f"{tmp_path / 'a.csv'} is a file, not a directory; check history.path\n"
    )
    assert not (tmp_path / "out").exists()


# --------------------------------------------------------------------------------------
# Header cells pandas names for itself
# --------------------------------------------------------------------------------------


@pytest.mark.parametrize("engine", ENGINES)
def test_a_config_naming_pandas_name_for_an_empty_header_cell_is_refused_by_every_engine(
    engine: str, tmp_path: Path, request: pytest.FixtureRequest, capsys: pytest.CaptureFixture[str]
) -> None:
    """An empty header cell is ``Unnamed: 2`` to pandas, and the column list of the error named
    it so: a config using that name ran in memory (pandas read it) and was "cannot read (Column
    'Unnamed: 2' in include_columns does not exist in CSV file)" in the stream and dask engines."""
    cfg = make_run(tmp_path, csv_with("id,y,", [f"{i},{y},{s}" for i, y, s in rows()]))
    doc = yaml.safe_load(cfg.read_text(encoding="utf-8"))
    doc["models"][0]["score"] = "Unnamed: 2"
    cfg.write_text(yaml.safe_dump(doc), encoding="utf-8")
    line = next(i for i, x in enumerate(cfg.read_text(encoding="utf-8").splitlines(), 1) if "Unnamed: 2" in x)
    assert run(cfg, engine, request) == 2
    assert capsys.readouterr().err == (
        f"reportgen: error: {cfg}:{line}: models[0].score: column 'Unnamed: 2' not found in "
        f"{tmp_path / 'a.csv'} (columns: id, y, '')\n"
    )


@pytest.mark.parametrize(
    ("header", "line", "kept"),
    [
        ("id,y,,s", "{i},{y},{s},{t}", "s"),
        ("id,y,s,s,t", "{i},{y},{s},{s},{t}", "t"),
    ],
)
def test_init_proposes_no_column_the_run_cannot_name(
    header: str, line: str, kept: str, tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    """``reportgen init`` read the sample with pandas and proposed its invented names — ``Unnamed: 2``
    for an empty header cell, ``s.1`` for a repeated one — as score columns: the config it wrote
    failed ``reportgen validate``."""
    rng = random.Random(5)
    data = tmp_path / "d.csv"
    data.write_text(
        header
        + "\n"
        + "".join(
            line.format(i=i, y=i % 2, s=f"{rng.random():.3f}", t=f"{rng.random():.3f}") + "\n" for i in range(100)
        ),
        encoding="utf-8",
    )
    target = tmp_path / "d.yaml"
    assert cli.main(["init", str(data), "--out", str(target), "-q"]) == 0
    doc = yaml.safe_load(target.read_text(encoding="utf-8"))
    assert [m["score"] for m in doc["models"]] == [kept]
    assert cli.main(["validate", str(target), "-q"]) == 0, capsys.readouterr().err


# --------------------------------------------------------------------------------------
# A saved metrics.json fed back
# --------------------------------------------------------------------------------------


@pytest.mark.slow
def test_render_reads_a_metrics_json_an_editor_saved_with_a_bom(
    tmp_path: Path, capsys: pytest.CaptureFixture[str], no_figures: None
) -> None:
    """A metrics.json opened and saved by an editor that writes a UTF-8 BOM was "not a reportgen
    metrics.json (Unexpected UTF-8 BOM (decode using utf-8-sig): line 1 column 1 (char 0))"."""
    cfg = make_run(tmp_path, csv_with("id,y,s", [f"{i},{y},{s}" for i, y, s in rows()]))
    assert cli.main(["run", str(cfg), "-q"]) == 0
    saved = tmp_path / "saved.json"
    saved.write_bytes(b"\xef\xbb\xbf" + (tmp_path / "out" / "metrics.json").read_bytes())
    assert cli.main(["render", str(saved), "-q", "--format", "html", "--out", str(tmp_path / "again")]) == 0, (
        capsys.readouterr().err
    )
    assert (tmp_path / "again" / "report.html").is_file()
    assert (tmp_path / "again" / "metrics.json").read_bytes() == saved.read_bytes()  # the bytes rendered from, kept


# --------------------------------------------------------------------------------------
# A busy machine
# --------------------------------------------------------------------------------------


#: ``reportgen run`` in a process whose local cluster's scheduler takes over a second to create
#: its scratch directory (distributed warns past one second).
SLOW_SCRATCH = """
import sys, time
import distributed.core as core
original = core.WorkSpace
class SlowWorkSpace(original):
    def __init__(self, *args, **kwargs):
        time.sleep(1.1)
        super().__init__(*args, **kwargs)
core.WorkSpace = SlowWorkSpace
from reportgen.cli import main
sys.exit(main(sys.argv[1:]))
"""


@pytest.mark.dask
@pytest.mark.slow
def test_a_slow_dask_scratch_directory_prints_nothing_on_a_successful_run(tmp_path: Path) -> None:
    """On a busy machine the local cluster's scheduler took over a second to create its scratch
    directory, and distributed's advice ("Creating scratch directories is taking a surprisingly
    long time ... Consider specifying a local-directory", three lines naming contextlib.py)
    reached stderr of a successful run. The delay is made here, in a process of its own (pytest
    would catch the warning)."""
    import distributed.core  # noqa: F401 - a test dependency: missing, the test fails

    cfg = make_run(tmp_path, csv_with("id,y,s", [f"{i},{y},{s}" for i, y, s in rows()]))
    env = {**os.environ, "PYTHONPATH": str(ROOT)}
    done = subprocess.run(
        [sys.executable, "-c", SLOW_SCRATCH, "run", str(cfg), "-q", "--engine", "dask"],
        capture_output=True,
        text=True,
        cwd=tmp_path,
        env=env,
        timeout=300,
    )
    assert (done.returncode, done.stderr) == (0, "")


# --------------------------------------------------------------------------------------
# Values from the command line
# --------------------------------------------------------------------------------------

#: An alias bomb in one flow value: 10 * 10 * 10 * 10 * 11 = 110,000 values once expanded.
BOMB = (
    "[&a [x,x,x,x,x,x,x,x,x,x], &b [*a,*a,*a,*a,*a,*a,*a,*a,*a,*a], &c [*b,*b,*b,*b,*b,*b,*b,*b,*b,*b], "
    "&d [*c,*c,*c,*c,*c,*c,*c,*c,*c,*c], [*d,*d,*d,*d,*d,*d,*d,*d,*d,*d,*d]]"
)


@pytest.mark.parametrize(
    ("value", "expected"),
    [
        ("&a [*a]", "the value nests too deeply (more than 32 levels)"),
        ("[" * 40 + "1" + "]" * 40, "the value nests too deeply (more than 32 levels)"),
        (
            BOMB,
            "the value holds more than 100,000 values once its YAML aliases (*name) are expanded; write the value out",
        ),
    ],
)
def test_a_set_value_nesting_too_deeply_names_the_set_item_not_the_config_file(
    value: str, expected: str, tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    """``--set title=&a [*a]`` (a recursive alias), a value nested 40 deep or an alias bomb was
    "q.yaml: the config nests too deeply" (or "holds more than 100,000 values"): the config
    file was blamed for what the command line gave."""
    cfg = make_run(tmp_path, csv_with("id,y,s", [f"{i},{y},{s}" for i, y, s in rows()]))
    assert cli.main(["validate", str(cfg), "--set", f"title={value}"]) == 2
    assert capsys.readouterr().err == f"reportgen: error: --set title: {expected}\n"


@pytest.mark.parametrize(
    ("key", "value", "found"),
    [
        ("models[0].file", "5", " (found 5)"),
        ("models[0].file", "[a.csv]", ""),
        ("history.path", "true", " (found True)"),
    ],
)
def test_a_path_of_another_type_is_explained_in_words_not_pythons(
    key: str, value: str, found: str, tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    """``file: 5`` was "Input is not a valid path for <class 'pathlib.Path'>": pydantic's words,
    naming a Python class, not what the key wants."""
    cfg = make_run(tmp_path, csv_with("id,y,s", [f"{i},{y},{s}" for i, y, s in rows()]), history={"path": "h.sqlite"})
    assert cli.main(["validate", str(cfg), "--set", f"{key}={value}"]) == 2
    assert capsys.readouterr().err == f"reportgen: error: {cfg}: {key}: expected a path as text{found} (from --set)\n"


@pytest.mark.parametrize(("value", "found"), [([1], ""), ({"a": 1}, ""), (None, " (found None)")])
def test_a_label_that_is_no_scalar_is_one_problem_not_one_per_python_type(
    value: Any, found: str, tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    """``positive: [1]`` was four problems named by Python type: "positive.int: Input should be a
    valid integer; also positive.str: ...; also positive.bool: ...; also positive.float: ..."."""
    cfg = make_run(tmp_path, csv_with("id,y,s", [f"{i},{y},{s}" for i, y, s in rows()]), positive=value)
    line = next(i for i, x in enumerate(cfg.read_text(encoding="utf-8").splitlines(), 1) if x.startswith("positive:"))
    assert cli.main(["validate", str(cfg)]) == 2
    assert capsys.readouterr().err == (
        f"reportgen: error: {cfg}:{line}: positive: expected one label (a number, text or true/false){found}\n"
    )


# --------------------------------------------------------------------------------------
# Texts too long to lay out
# --------------------------------------------------------------------------------------


@pytest.mark.parametrize("key", ("title", "author", "name"))
def test_a_title_author_or_name_too_long_to_lay_out_is_exit_2_quoting_a_little_of_it(
    key: str, tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    """A 200,000-character title (or model name) kept the PDF of a two-model run going past five
    minutes (WeasyPrint's line breaking is quadratic in an unbroken text); the error that now
    refuses it quotes 60 characters of it, not all 200,000."""
    long = "W" * 200_000
    extra = {"title": long} if key == "title" else {"author": long} if key == "author" else {}
    cfg = make_run(tmp_path, csv_with("id,y,s", [f"{i},{y},{s}" for i, y, s in rows()]), **extra)
    if key == "name":
        doc = yaml.safe_load(cfg.read_text(encoding="utf-8"))
        doc["models"][0]["name"] = long
        cfg.write_text(yaml.safe_dump(doc, width=1 << 20), encoding="utf-8")
    where = "models[0].name" if key == "name" else key
    line = next(i for i, x in enumerate(cfg.read_text(encoding="utf-8").splitlines(), 1) if "WWWW" in x)
    assert cli.main(["validate", str(cfg)]) == 2
    assert capsys.readouterr().err == (
        f"reportgen: error: {cfg}:{line}: {where}: expected at most 1000 characters "
        f"(found '{'W' * 58}… (200,002 characters))\n"
    )


def test_render_refuses_a_title_too_long_to_lay_out(tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    """A received metrics.json with a 200,000-character title went on to a PDF that took minutes."""
    cfg = make_run(tmp_path, csv_with("id,y,s", [f"{i},{y},{s}" for i, y, s in rows()]))
    assert cli.main(["run", str(cfg), "-q"]) == 0
    doc = json.loads((tmp_path / "out" / "metrics.json").read_text(encoding="utf-8"))
    doc["run"]["title"] = "W" * 200_000
    received = tmp_path / "received.json"
    received.write_text(json.dumps(doc), encoding="utf-8")
    assert cli.main(["render", str(received), "-q", "--format", "pdf", "--out", str(tmp_path / "again")]) == 2
    assert capsys.readouterr().err == (
        f"reportgen: error: {received}: run.title: 200,000 characters; a report lays out "
        f"at most 1,000 (this file was not written by reportgen)\n"
    )
    assert not (tmp_path / "again").exists()


def test_a_wrong_value_is_quoted_in_at_most_60_characters(tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    """A wrong value of 5,000 characters was quoted whole: one error line of 5 kB."""
    cfg = make_run(tmp_path, csv_with("id,y,s", [f"{i},{y},{s}" for i, y, s in rows()]))
    assert cli.main(["validate", str(cfg), "--set", "models[0].direction=" + "x" * 5000]) == 2
    assert capsys.readouterr().err == (
        f"reportgen: error: {cfg}: models[0].direction: expected 'higher' or 'lower' "
        f"(found '{'x' * 58}… (5,002 characters)) (from --set)\n"
    )


@pytest.mark.slow
def test_the_pdf_page_header_repeats_at_most_120_characters_of_the_title(tmp_path: Path, no_figures: None) -> None:
    """The page header (CSS string-set, laid out again on every page) held the whole title: a
    20,000-character title added 15 s to a 36-page PDF. The title block still shows it whole."""
    from reportgen.report.render import build_view, render_html
    from reportgen.results_io import load_result

    title = "Quarterly monitoring " * 40  # 840 characters, within the limit
    cfg = make_run(tmp_path, csv_with("id,y,s", [f"{i},{y},{s}" for i, y, s in rows()]), title=title)
    assert cli.main(["run", str(cfg), "-q"]) == 0
    result = load_result(tmp_path / "out" / "metrics.json")
    view = build_view(result)
    assert view.running_title == title[:119].rstrip() + "…"
    html = render_html(result)
    assert f'<div class="running-title">{title[:119].rstrip()}…</div>' in html
