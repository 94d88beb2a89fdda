"""Bad input is named where it is and what to do: a query's rows named in a weight
message, config values of the wrong shape, Excel's ``sep=`` line, an output directory that can
never be made, YAML binary values, C1 control characters in ``history --format json`` and
what a scheduled job's config or files hold.

Each test is named after what broke. Every test runs ``reportgen.cli.main`` in-process and
checks the whole of stderr: one line, exit code 2 for the user's mistake, the same words in
every engine.
"""

from __future__ import annotations

import json
from pathlib import Path

import pytest
import yaml
from test_hostile_input import (  # the hostile-input helpers: model a as given, model b clean
    csv_with,
    make_run,
    rows,
    run,
)

from reportgen import cli

ENGINES = ("memory", "stream", "dask")


CLEAN = csv_with("id,y,s", [f"{i},{y},{s}" for i, y, s in rows()])


# --------------------------------------------------------------------------------------
# A query's rows
# --------------------------------------------------------------------------------------


@pytest.mark.sql
@pytest.mark.parametrize("engine", ENGINES)
def test_a_frequency_weight_mismatch_names_a_querys_row_from_1(
    engine: str, tmp_path: Path, request: pytest.FixtureRequest, capsys: pytest.CaptureFixture[str]
) -> None:
    """Two models weighing one row differently under ``weight_kind: frequency``: with the first
    model a SQL query the message named "row 5" for the query's 4th row, a file's line number
    (the header line 1) where every other message numbers a query's rows from 1."""
    import adbc_driver_sqlite.dbapi as dbapi
    import pyarrow as pa

    ids = list(range(1, 11))
    with dbapi.connect(str(tmp_path / "p.db")) as conn:
        cur = conn.cursor()
        cur.adbc_ingest(
            "a", pa.table({"id": ids, "y": [i % 2 for i in ids], "s": [i / 11 for i in ids], "w": [1] * 10})
        )
        conn.commit()
        cur.close()
    b = csv_with("id,y,s,w", [f"{i},{i % 2},{i / 11},{2 if i == 4 else 1}" for i in ids])
    query = "SELECT id, y, s, w FROM a"
    cfg = make_run(tmp_path, b, weight="w", weight_kind="frequency")
    doc = yaml.safe_load(cfg.read_text(encoding="utf-8"))
    doc["models"] = [
        {"name": "a", "source": {"url": "sqlite:///p.db", "query": query}, "score": "s"},
        {"name": "b", "file": "a.csv", "score": "s"},
    ]
    cfg.write_text(yaml.safe_dump(doc), encoding="utf-8")
    line = next(i for i, x in enumerate(cfg.read_text(encoding="utf-8").splitlines(), 1) if "source:" in x)
    assert run(cfg, engine, request) == 2
    assert capsys.readouterr().err == (
        f"reportgen: error: {cfg}:{line}: models[0].source (sqlite:///{tmp_path / 'p.db'}: {query}): model 'a': row 4 "
        f"weighs 1 and the same row of model 'b' ({tmp_path / 'a.csv'}) weighs 2; weight_kind: frequency repeats each "
        f"row by its weight, so every model must weigh a row alike: fix the weights (or use weight_kind: sampling)\n"
    )
    assert not (tmp_path / "out").exists()


def test_a_frequency_weight_mismatch_names_a_files_row_by_its_line(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    """The same message about two files still names the first file's line (its header line 1)."""
    a = csv_with("id,y,s,w", [f"{i},{y},{s},1" for i, y, s in rows()])
    cfg = make_run(tmp_path, a, weight="w", weight_kind="frequency")
    (tmp_path / "b.csv").write_bytes(csv_with("id,y,s,w", [f"{i},{y},{s},{3 if i == 7 else 1}" for i, y, s in rows()]))
    assert cli.main(["run", str(cfg), "-q"]) == 2
    assert capsys.readouterr().err == (
        f"reportgen: error: {tmp_path / 'a.csv'}: model 'a': row 8 weighs 1 and the same row of model 'b' "
        f"({tmp_path / 'b.csv'}) weighs 3; weight_kind: frequency repeats each row by its weight, so every model must "
        f"weigh a row alike: fix the weights (or use weight_kind: sampling)\n"
    )


# --------------------------------------------------------------------------------------
# Config values of the wrong shape
# --------------------------------------------------------------------------------------


@pytest.mark.parametrize(
    ("item", "expected"),
    [
        (
            "costs=[1,2]",
            "costs: expected a mapping of keys (fn, fp, tp, tn) or a cost matrix (a list of lists of numbers, "
            "one row per class)",
        ),
        (
            "costs=5",
            "costs: expected a mapping of keys (fn, fp, tp, tn) or a cost matrix (a list of lists of numbers, "
            "one row per class) (found 5)",
        ),
        (
            "models[0].scores=5",
            "models[0].scores: expected a list of column names (one per class, in class order) or a "
            "mapping of each class to its column name (found 5)",
        ),
        ("costs={fp: [1]}", "costs.fp: expected a number"),
        ("costs=[[1,x],[1,2]]", "costs[0][1]: expected a number (found 'x')"),
        ("bootstrap=3", "bootstrap: expected a mapping of keys (resamples, seed) (found 3)"),
        ("bootstrap.resamples=[1]", "bootstrap.resamples: expected a whole number"),
        ("output.formats=json", "output.formats: expected a list ([a, b] or one '- ' line per item) (found 'json')"),
        ("title=[a]", "title: expected text"),
        ("beta=x", "beta: expected a number (found 'x')"),
    ],
)
def test_a_set_value_of_the_wrong_shape_names_the_key_and_the_shape_not_a_python_class(
    item: str, expected: str, tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    """``--set 'costs=[1,2]'`` was "costs: Input should be a valid dictionary or instance of
    CostsConfig; also costs[0]: Input should be a valid list; also costs[1]: ...": pydantic's
    words, one per branch of the union, naming a Python class."""
    cfg = make_run(tmp_path, CLEAN)
    assert cli.main(["validate", str(cfg), "--set", item]) == 2
    assert capsys.readouterr().err == f"reportgen: error: {cfg}: {expected} (from --set)\n"


def test_a_config_section_of_the_wrong_shape_in_the_file_names_its_line_and_keys(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    """The same words for the file: ``history: h.sqlite`` (a path where a mapping is meant)."""
    cfg = make_run(tmp_path, CLEAN, history="h.sqlite")
    line = next(i for i, x in enumerate(cfg.read_text(encoding="utf-8").splitlines(), 1) if x.startswith("history"))
    assert cli.main(["validate", str(cfg)]) == 2
    assert capsys.readouterr().err == (
        f"reportgen: error: {cfg}:{line}: history: expected a mapping of keys (path, trend_runs) (found 'h.sqlite')\n"
    )


@pytest.mark.parametrize(
    ("item", "expected"),
    [
        ("Title=x", "Title: unknown key; did you mean 'title'?"),
        ("models[0].Score=s", "models[0].Score: unknown key; did you mean 'score'?"),
    ],
)
def test_an_unknown_key_starting_with_a_capital_is_named_not_an_internal_error(
    item: str, expected: str, tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    """A key such as ``Title`` was taken for a pydantic class name and dropped from the error's
    location: at the top level an internal error (IndexError, exit 1), in a model "models[0]:
    unknown key; valid keys: ...", the key the user wrote never named."""
    cfg = make_run(tmp_path, CLEAN)
    assert cli.main(["validate", str(cfg), "--set", item]) == 2
    assert capsys.readouterr().err == f"reportgen: error: {cfg}: {expected} (from --set)\n"


# --------------------------------------------------------------------------------------
# Excel's sep= line
# --------------------------------------------------------------------------------------


@pytest.mark.parametrize(
    ("first", "sep", "todo"),
    [
        (b"sep=,\n", ",", "delete that line"),
        (b"\xef\xbb\xbfSEP=;\r\n", ";", "save the file as comma-separated CSV without that line"),
    ],
)
@pytest.mark.parametrize("engine", ENGINES)
def test_excels_sep_line_is_refused_by_every_engine_and_validate_not_read_as_the_header(
    engine: str,
    first: bytes,
    sep: str,
    todo: str,
    tmp_path: Path,
    request: pytest.FixtureRequest,
    capsys: pytest.CaptureFixture[str],
) -> None:
    """A CSV saved by Excel with its ``sep=,`` hint on line 1 was read with that line as the
    header: "label: column 'y' not found in a.csv (columns: sep=, '')", the real header unnamed."""
    body = CLEAN if sep == "," else CLEAN.replace(b",", b";")
    cfg = make_run(tmp_path, first + body)
    expected = (
        f"reportgen: error: {tmp_path / 'a.csv'}: line 1 is Excel's 'sep={sep}' hint, not a header (reportgen "
        f"reads comma-separated CSV with its header on line 1); {todo}\n"
    )
    assert run(cfg, engine, request) == 2
    assert capsys.readouterr().err == expected
    assert not (tmp_path / "out").exists()
    args = ["validate", str(cfg)] + (["--set", f"engine={engine}"] if engine != "dask" else [])
    assert cli.main(args) == 2
    assert capsys.readouterr().err == expected


# --------------------------------------------------------------------------------------
# An output directory that can never be made
# --------------------------------------------------------------------------------------

needs_proc = pytest.mark.skipif(not Path("/proc/self").is_dir(), reason="no /proc (not Linux)")


@needs_proc
def test_an_output_directory_under_proc_says_what_to_do(tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    """``--out /proc/out`` (a directory that exists but takes no new file) was "writing the
    report failed (No such file or directory)": no what-to-do."""
    cfg = make_run(tmp_path, CLEAN)
    assert cli.main(["run", str(cfg), "-q", "--out", "/proc/out"]) == 2
    assert capsys.readouterr().err == (
        "reportgen: error: /proc/out: cannot create files there (No such file or directory); choose another --out\n"
    )


@needs_proc
def test_init_writing_under_proc_says_what_to_do(tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    """``reportgen init data.csv --out /proc/x.yaml`` was "cannot write the config (No such file
    or directory)": no what-to-do."""
    make_run(tmp_path, CLEAN)
    assert cli.main(["init", str(tmp_path / "a.csv"), "--out", "/proc/x.yaml", "-q"]) == 2
    assert capsys.readouterr().err == (
        "reportgen: error: /proc/x.yaml: cannot write the config (No such file or "
        "directory); choose another file with --out\n"
    )


# --------------------------------------------------------------------------------------
# YAML values of YAML's own types
# --------------------------------------------------------------------------------------


@pytest.mark.parametrize(
    ("written", "key", "line_of"),
    [
        ("title: !!binary aGVsbG8=", "title", "title:"),
        ("  name: !!binary YQ==", "models[0].name", "name: !!binary"),
    ],
)
def test_a_yaml_binary_title_or_model_name_is_refused_naming_the_key(
    written: str, key: str, line_of: str, tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    """``title: !!binary aGVsbG8=`` was read as bytes and decoded by pydantic: the run's title
    was "hello", a value no one wrote as text (and a model name of bytes likewise)."""
    cfg = make_run(tmp_path, CLEAN)
    text = cfg.read_text(encoding="utf-8")
    text = text.replace("title: t", written) if key == "title" else text.replace("  name: a\n", written + "\n")
    cfg.write_text(text, encoding="utf-8")
    line = next(i for i, x in enumerate(text.splitlines(), 1) if line_of in x)
    assert cli.main(["run", str(cfg), "-q"]) == 2
    assert capsys.readouterr().err == (
        f"reportgen: error: {cfg}:{line}: {key}: a YAML !!binary value (bytes), where "
        f"every value is text, a number or true/false; write the value out as plain text\n"
    )
    assert not (tmp_path / "out").exists()


def test_a_yaml_binary_set_value_names_the_command_line(tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    cfg = make_run(tmp_path, CLEAN)
    assert cli.main(["validate", str(cfg), "--set", "output.formats=[!!binary anNvbg==]"]) == 2
    assert capsys.readouterr().err == (
        f"reportgen: error: {cfg}: output.formats[0] (from --set): a YAML !!binary value "
        f"(bytes), where every value is text, a number or true/false; write the value out "
        f"as plain text\n"
    )


@pytest.mark.parametrize(("value", "found"), [("2024", "2024"), ("yes", "True"), ("null", "None")])
def test_a_model_name_yaml_reads_as_a_number_says_to_quote_it(
    value: str, found: str, tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    """``name: 2024`` (a model named after its vintage) was "Input should be a valid string
    (found 2024)": pydantic's words, and nothing said YAML made it a number or what to do."""
    cfg = make_run(tmp_path, CLEAN)
    text = cfg.read_text(encoding="utf-8").replace("  name: a\n", f"  name: {value}\n")
    cfg.write_text(text, encoding="utf-8")
    line = next(i for i, x in enumerate(text.splitlines(), 1) if f"name: {value}" in x)
    assert cli.main(["validate", str(cfg)]) == 2
    assert capsys.readouterr().err == (
        f"reportgen: error: {cfg}:{line}: models[0].name: expected text, found {found} "
        f"(YAML reads unquoted numbers, yes/no, true/false and null as values, not text); "
        f"quote it\n"
    )


# --------------------------------------------------------------------------------------
# History as JSON on a terminal
# --------------------------------------------------------------------------------------


def test_history_json_escapes_c1_and_bidirectional_controls_of_names_and_titles(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    """``reportgen history --format json`` wrote a title's U+009B (a terminal's CSI, as ESC [),
    a model name's U+0085 and U+202E raw: ``json.dumps`` escapes C0 controls only. They are
    now ``\\u`` escapes, the same JSON value."""
    title, name = "Q3\x9b2J red\x7f", "a\x85b\u202ec"
    cfg = make_run(tmp_path, CLEAN, title=title, history={"path": "h.sqlite"})
    doc = yaml.safe_load(cfg.read_text(encoding="utf-8"))
    doc["models"][0]["name"] = name
    cfg.write_text(yaml.safe_dump(doc), encoding="utf-8")
    assert cli.main(["run", str(cfg), "-q"]) == 0
    capsys.readouterr()
    assert cli.main(["history", str(tmp_path / "h.sqlite"), "--format", "json"]) == 0
    out = capsys.readouterr().out
    assert not any(c in out for c in "\x7f\x85\x9b\u202e"), out
    assert "Q3\\u009b2J red\\u007f" in out and "a\\u0085b\\u202ec" in out
    runs = json.loads(out)
    assert runs[0]["title"] == title and any(p["subject"] == name for p in runs[0]["numbers"])


# --------------------------------------------------------------------------------------
# Scores as a spreadsheet exports them
# --------------------------------------------------------------------------------------


@pytest.mark.parametrize(
    ("cell", "todo"),
    [
        ("71.4%", "write it without the % sign (71.4% as 0.714)"),
        ('"0,714"', "write it with a dot as the decimal separator (0,714 as 0.714)"),
    ],
)
@pytest.mark.parametrize("engine", ENGINES)
def test_a_score_as_a_percentage_or_with_a_decimal_comma_says_how_to_write_it(
    engine: str,
    cell: str,
    todo: str,
    tmp_path: Path,
    request: pytest.FixtureRequest,
    capsys: pytest.CaptureFixture[str],
) -> None:
    """A score exported as ``71.4%`` or ``0,714`` was "non-numeric value '71.4%'; expected a
    number": the user was left to guess that the sign or the comma was the fault."""
    cfg = make_run(tmp_path, csv_with("id,y,s", [f"{i},{y},{cell if i == 3 else s}" for i, y, s in rows()]))
    shown = cell.strip('"')
    assert run(cfg, engine, request) == 2
    assert capsys.readouterr().err == (
        f"reportgen: error: {tmp_path / 'a.csv'}: column 's', row 4: non-numeric value "
        f"'{shown}'; expected a number; {todo}\n"
    )
    assert not (tmp_path / "out").exists()


# --------------------------------------------------------------------------------------
# Huge numbers in numeric config values
# --------------------------------------------------------------------------------------


@pytest.mark.parametrize("bins", ("99999999999999999999", "9223372036854775807", "4000000000"))
def test_a_huge_number_of_bins_is_a_config_error_not_an_internal_one(
    bins: str, tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    """``stream.bins: 99999999999999999999`` passed validation and, once a model had more distinct
    scores than ``max_distinct_scores``, the streamed run stopped with an internal error
    ("Maximum allowed size exceeded"; 2**63 - 1: an IndexError; 4e9: out of memory)."""
    cfg = make_run(tmp_path, CLEAN)
    assert (
        cli.main(
            [
                "run",
                str(cfg),
                "-q",
                "--engine",
                "stream",
                "--set",
                f"stream.bins={bins}",
                "--set",
                "stream.max_distinct_scores=100",
            ]
        )
        == 2
    )
    assert capsys.readouterr().err == (
        f"reportgen: error: {cfg}: stream.bins: expected a whole number ≤ 2000000 (found {bins}) (from --set)\n"
    )


# --------------------------------------------------------------------------------------
# Anchors and merge keys
# --------------------------------------------------------------------------------------

MERGED_TWICE = """title: t
label: y
id: id
bootstrap: {resamples: 0}
output: {formats: [json], dir: out}
models:
  - {name: a, file: a.csv, score: s}
  - <<: {name: b, file: b.csv, score: s}
    <<: {name: c}
"""


def test_two_merge_keys_in_one_mapping_are_a_duplicate_key_not_a_silent_choice(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    """Two ``<<:`` keys in one mapping were both merged, and which one's value won a clash
    depended on how each was written: the model above was silently named 'c'."""
    make_run(tmp_path, CLEAN)
    cfg = tmp_path / "m.yaml"
    cfg.write_text(MERGED_TWICE, encoding="utf-8")
    assert cli.main(["validate", str(cfg)]) == 2
    assert capsys.readouterr().err == (
        f"reportgen: error: {cfg}:9: duplicate key '<<' (first given at line 8); merge "
        f"several mappings with one key: <<: [*first, *second]\n"
    )


def test_one_merge_key_of_an_anchored_model_is_still_read(tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    """The check above refuses a second merge key only: ``<<: *model`` beside keys of the
    mapping's own (which override the merged ones) is read as before."""
    make_run(tmp_path, CLEAN)
    cfg = tmp_path / "m.yaml"
    cfg.write_text(
        MERGED_TWICE.replace("  - {name: a, file: a.csv, score: s}", "  - &m {name: a, file: a.csv, score: s}").replace(
            "  - <<: {name: b, file: b.csv, score: s}\n    <<: {name: c}\n",
            "  - <<: *m\n    name: b\n    file: b.csv\n",
        ),
        encoding="utf-8",
    )
    assert cli.main(["validate", str(cfg), "-q"]) == 0, capsys.readouterr().err


# --------------------------------------------------------------------------------------
# Parquet columns of nested values
# --------------------------------------------------------------------------------------


@pytest.mark.parametrize(
    ("column", "what"),
    [
        ("y", "lists (list<element: int64>)"),
        ("id", "lists (list<element: int64>)"),
        ("s", "records (struct<v: double>)"),
    ],
)
@pytest.mark.parametrize("engine", ENGINES)
def test_a_parquet_column_of_lists_or_structs_is_refused_by_every_engine(
    engine: str,
    column: str,
    what: str,
    tmp_path: Path,
    request: pytest.FixtureRequest,
    capsys: pytest.CaptureFixture[str],
) -> None:
    """A Parquet label or id column of lists was an internal error in every engine
    (ArrowNotImplementedError: no ``dictionary_encode`` / ``cast`` kernel for a list), a score of
    structs "non-numeric value {'v': 0.714}"."""
    import pyarrow as pa
    import pyarrow.parquet as pq

    data = rows()
    cols = {"id": [i for i, _, _ in data], "y": [y for _, y, _ in data], "s": [float(s) for _, _, s in data]}
    cols[column] = [{"v": v} for v in cols[column]] if column == "s" else [[v] for v in cols[column]]
    cfg = make_run(tmp_path, CLEAN)
    pq.write_table(pa.table(cols), tmp_path / "a.parquet")
    doc = yaml.safe_load(cfg.read_text(encoding="utf-8"))
    doc["models"][0]["file"] = "a.parquet"
    cfg.write_text(yaml.safe_dump(doc), encoding="utf-8")
    expected = (
        f"reportgen: error: {tmp_path / 'a.parquet'}: column '{column}' holds {what}, not one value per row; "
        f"name a column of single values (numbers or text), or flatten it when the file is written\n"
    )
    assert run(cfg, engine, request) == 2
    assert capsys.readouterr().err == expected
    assert not (tmp_path / "out").exists()


# --------------------------------------------------------------------------------------
# Blank lines
# --------------------------------------------------------------------------------------


@pytest.mark.parametrize("engine", ENGINES)
def test_a_bad_row_after_a_blank_line_is_named_by_its_line_in_every_engine_and_validate(
    engine: str, tmp_path: Path, request: pytest.FixtureRequest, capsys: pytest.CaptureFixture[str]
) -> None:
    """Every reader skips a blank line, and every message counted the rows it read: the bad
    score on the file's line 10, after a blank line 5, was "row 9" (the README: a file's rows
    are numbered as its lines, the header line 1)."""
    lines = [f"{i},{y},{'bad' if i == 8 else s}" for i, y, s in rows()]
    lines.insert(3, "")  # line 5
    cfg = make_run(tmp_path, csv_with("id,y,s", lines))
    assert (tmp_path / "a.csv").read_text(encoding="utf-8").splitlines()[9] == "8,0,bad"
    expected = (
        f"reportgen: error: {tmp_path / 'a.csv'}: column 's', row 10: non-numeric value 'bad'; expected a number\n"
    )
    assert run(cfg, engine, request) == 2
    assert capsys.readouterr().err == expected
    if engine != "dask":
        assert cli.main(["validate", str(cfg), "--set", f"engine={engine}"]) == 2
        assert capsys.readouterr().err == expected


def test_a_short_row_after_blank_lines_and_a_two_line_value_is_named_by_its_row(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    """Blank lines count as rows; a quoted value of two lines (one with an empty line inside)
    stays one row, as a spreadsheet shows it."""
    lines = [
        f"{i},{y},{s},{chr(34) + 'x' + chr(10) + chr(10) + 'y' + chr(34) if i == 2 else 'z'}" for i, y, s in rows()
    ]
    lines[10] = "11,1"  # a short row
    lines.insert(5, "")
    lines.insert(0, "")  # before the first row: line 2
    cfg = make_run(tmp_path, csv_with("id,y,s,t", lines))
    assert cli.main(["run", str(cfg), "-q", "--engine", "stream"]) == 2
    assert capsys.readouterr().err == (
        f"reportgen: error: {tmp_path / 'a.csv'}: row 14: 2 fields where the header has 4; "
        f"give every row one field per header column (quote a value that holds a comma)\n"
    )


def test_init_leaves_out_a_parquet_column_of_lists_not_an_internal_error(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    """``reportgen init`` on a Parquet file with a column of lists was an internal error
    ("unhashable type: 'numpy.ndarray'") when it counted the column's distinct values. The
    column is left out (a run refuses it); the config it writes validates."""
    import pyarrow as pa
    import pyarrow.parquet as pq

    data = rows(200)
    pq.write_table(
        pa.table(
            {
                "id": [i for i, _, _ in data],
                "y": [y for _, y, _ in data],
                "s": [float(s) for _, _, s in data],
                "tags": [[i, i] for i, _, _ in data],
            }
        ),
        tmp_path / "d.parquet",
    )
    target = tmp_path / "d.yaml"
    assert cli.main(["init", str(tmp_path / "d.parquet"), "--out", str(target), "-q"]) == 0, capsys.readouterr().err
    doc = yaml.safe_load(target.read_text(encoding="utf-8"))
    assert [m["score"] for m in doc["models"]] == ["s"] and "tags" not in target.read_text(encoding="utf-8")
    assert cli.main(["validate", str(target), "-q"]) == 0, capsys.readouterr().err


# --------------------------------------------------------------------------------------
# A logo that is no image
# --------------------------------------------------------------------------------------


def test_a_logo_that_is_no_image_is_refused_before_any_data_is_read(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    """``report.logo: logo.png`` holding text passed the config's checks (a regular file next to
    the config) and was refused when the report was rendered, after the whole computation — a
    scheduled job's hour lost — and ``validate`` said OK. The bytes are now judged with the
    config, before the data (here: a missing data file, not reached), in ``validate`` too."""
    cfg = make_run(tmp_path, CLEAN, report={"logo": "logo.png"})
    (tmp_path / "logo.png").write_bytes(b"password=hunter2\n")
    (tmp_path / "a.csv").unlink()
    line = next(i for i, x in enumerate(cfg.read_text(encoding="utf-8").splitlines(), 1) if "logo:" in x)
    expected = (
        f"reportgen: error: {cfg}:{line}: report.logo: {tmp_path / 'logo.png'} is not a PNG, JPEG, GIF or SVG "
        f"image (judged by its bytes, not its name); give an image file in report.logo (or --logo)\n"
    )
    for command in ("run", "validate"):
        assert cli.main([command, str(cfg), "-q"]) == 2
        assert capsys.readouterr().err == expected
    assert not (tmp_path / "out").exists()


# --------------------------------------------------------------------------------------
# Ids
# --------------------------------------------------------------------------------------


@pytest.mark.parametrize("engine", ENGINES)
def test_a_duplicated_id_says_what_to_do(
    engine: str, tmp_path: Path, request: pytest.FixtureRequest, capsys: pytest.CaptureFixture[str]
) -> None:
    """A repeated id (here ``4`` again, with spaces: ids are stripped) was "duplicated id '4';
    ids must be unique": a rule, not what to do."""
    cfg = make_run(tmp_path, csv_with("id,y,s", [f"{' 4 ' if i == 5 else i},{y},{s}" for i, y, s in rows()]))
    assert run(cfg, engine, request) == 2
    assert capsys.readouterr().err == (
        f"reportgen: error: {tmp_path / 'a.csv'}: column 'id', row 6: duplicated id '4'; "
        f"ids must be unique — remove the repeated row or give it its own id\n"
    )


# --------------------------------------------------------------------------------------
# Multiclass classes written two ways
# --------------------------------------------------------------------------------------


def multiclass_run(folder: Path, **extra) -> Path:
    """Two multiclass models of one file (labels 0, 1, 2; class scores s0, s1, s2)."""
    folder.mkdir(parents=True, exist_ok=True)
    (folder / "m.csv").write_bytes(
        csv_with("id,y,p,s0,s1,s2", [f"{i},{i % 3},{(i + (i % 5 == 0)) % 3},{s},{s},{s}" for i, _, s in rows(90)])
    )
    cfg = {
        "title": "t",
        "task": "multiclass",
        "label": "y",
        "id": "id",
        "bootstrap": {"resamples": 0},
        "output": {"formats": ["json"], "dir": "out"},
        "models": [
            {"name": "a", "file": "m.csv", "prediction": "p"},
            {"name": "b", "file": "m.csv", "prediction": "p"},
        ],
    }
    cfg.update(extra)
    path = folder / "q.yaml"
    path.write_text(yaml.safe_dump(cfg), encoding="utf-8")
    return path


@pytest.mark.parametrize("engine", ENGINES)
def test_a_class_given_twice_in_a_scores_mapping_is_refused_not_one_column_dropped(
    engine: str, tmp_path: Path, request: pytest.FixtureRequest, capsys: pytest.CaptureFixture[str]
) -> None:
    """``scores: {0: s0, 1: s1, "1": s2, 2: s0}``: ``1`` and ``"1"`` are one class, and one of
    their two columns was dropped without a word (the run exited 0)."""
    cfg = multiclass_run(tmp_path)
    assert run(cfg, engine, request) == 0  # the config runs without the mapping
    capsys.readouterr()
    text = cfg.read_text(encoding="utf-8").replace(
        "  prediction: p\n", "  prediction: p\n  scores: {0: s0, 1: s1, '1': s2, 2: s0}\n", 1
    )
    cfg.write_text(text, encoding="utf-8")
    line = next(i for i, x in enumerate(text.splitlines(), 1) if "scores:" in x)
    assert run(cfg, engine, request) == 2
    assert capsys.readouterr().err == (
        f"reportgen: error: {cfg}:{line}: models[0].scores: class '1' is given twice (as 1 "
        f"and '1'); map every class to one column\n"
    )


@pytest.mark.parametrize("classes", ([], [0]))
@pytest.mark.parametrize("engine", ENGINES)
def test_a_multiclass_list_of_fewer_than_two_classes_names_the_key(
    engine: str, classes: list[int], tmp_path: Path, request: pytest.FixtureRequest, capsys: pytest.CaptureFixture[str]
) -> None:
    """``classes: []`` was "column 'y', row 2: label '1' is not one of the configured classes ();
    add it to 'classes'": the data blamed for an empty list."""
    cfg = multiclass_run(tmp_path, classes=classes)
    line = next(i for i, x in enumerate(cfg.read_text(encoding="utf-8").splitlines(), 1) if x.startswith("classes:"))
    assert run(cfg, engine, request) == 2
    assert capsys.readouterr().err == (
        f"reportgen: error: {cfg}:{line}: classes: {len(classes)} class(es) listed; list "
        f"every class (at least two), or leave 'classes' out to take them from the data\n"
    )


# --------------------------------------------------------------------------------------
# Labels written two ways
# --------------------------------------------------------------------------------------


@pytest.mark.parametrize("engine", ENGINES)
def test_labels_mixing_true_false_and_1_0_say_they_are_different_labels(
    engine: str, tmp_path: Path, request: pytest.FixtureRequest, capsys: pytest.CaptureFixture[str]
) -> None:
    """Two exports appended, one writing TRUE / FALSE and the other 1 / 0: "a third distinct
    label '0' (3 distinct labels: '0', 'False', 'True')" said only to map the labels, not that
    the spellings were the fault."""
    lines = [f"{i},{['FALSE', 'TRUE'][y] if i < 30 else y},{s}" for i, y, s in rows()]
    cfg = make_run(tmp_path, csv_with("id,y,s", lines))
    assert run(cfg, engine, request) == 2
    assert capsys.readouterr().err == (
        f"reportgen: error: {tmp_path / 'a.csv'}: column 'y', row 31: a third distinct label '0' (3 distinct labels: "
        f"'0', 'False', 'True'); task: binary needs two — use task: multiclass or map the labels; 'False' and '0' are "
        f"different labels (true/false and 1/0 are not mixed) — write every label the same way\n"
    )
