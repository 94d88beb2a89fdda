"""Random CSV bytes through ``reportgen run`` in every engine: exit 0, or exit 2 with one line (issue 18).

A scheduled run meets files nobody looked at: random bytes, CSV-ish text with odd quoting, a
byte-order mark, NULs, huge fields, numbers mixed with words, an empty file, a header alone.
Whatever the file holds, each engine either writes the report or says in one line what is
wrong; a traceback or exit 1 (an internal error) is a bug. In-process runs (json only, no
bootstrap) keep each example fast; Dask runs on the session's shared cluster.
"""

from __future__ import annotations

import json
from pathlib import Path

import pytest
import yaml
from hypothesis import HealthCheck, example, given, settings
from hypothesis import strategies as st

from reportgen import cli

_SETTINGS = settings(
    max_examples=40,
    deadline=None,
    derandomize=True,
    suppress_health_check=[HealthCheck.function_scoped_fixture, HealthCheck.too_slow],
)

_words = st.sampled_from(
    [
        "0",
        "1",
        "0.5",
        "1e308",
        "-1e308",
        "1e-400",
        "nan",
        "NaN",
        "NA",
        "",
        "inf",
        "-inf",
        "null",
        "None",
        "abc",
        "1,5",
        " 1",
        "1 ",
        "0x10",
        "\uff11",
        "TRUE",
        "2026-01-31",
        "9" * 30,
        "-0",
        "\x00",
        "1\x002",
        "é",
    ]
)
_cell = st.one_of(_words, _words, st.floats().map(repr), st.integers(-(10**20), 10**20).map(str), st.text(max_size=6))


def _quoted(cell: str, how: int) -> str:
    if how == 1:
        return '"' + cell.replace('"', '""') + '"'  # proper quoting
    if how == 2:
        return '"' + cell  # unterminated
    if how == 3:
        return cell + '"x"'  # a quote in the middle
    return cell


_cells = st.tuples(_cell, st.integers(0, 6)).map(lambda t: _quoted(*t))
_header = st.one_of(
    st.just(["id", "y", "s", "t"]),
    st.permutations(["id", "y", "s", "t"]),
    st.lists(st.sampled_from(["id", "y", "s", "t", "", "s", '"y"', "Y", "x"]), max_size=6),
)


@st.composite
def csv_documents(draw) -> bytes:
    """A CSV of ids, 0/1 labels and two score columns, then mutated: cells replaced by odd ones
    (quoted, unterminated, words, NULs, huge numbers), rows added or cut, the header changed."""
    header = draw(st.one_of(st.just(["id", "y", "s", "t"]), st.just(["id", "y", "s", "t"]), _header))
    n = draw(st.integers(0, 16))
    rows = [[str(i), str(i % 2), f"0.{i:02d}", f"0.{(i * 7) % 100:02d}"] for i in range(n)]
    for _ in range(draw(st.integers(0, 4))):  # odd cells in place of good ones
        if rows:
            r, c = draw(st.integers(0, len(rows) - 1)), draw(st.integers(0, 3))
            rows[r][c] = draw(_cells)
    if draw(st.integers(0, 3)) == 0:  # ragged rows
        rows += draw(st.lists(st.lists(_cells, max_size=6), max_size=3))
    if draw(st.integers(0, 9)) == 0:  # a huge field (past pyarrow's block size)
        rows.append(["99", "0", "9" * draw(st.sampled_from([70_000, 1_100_000])), "0.5"])
    eol = draw(st.sampled_from(["\n", "\n", "\r\n", "\r"]))
    text = eol.join(",".join(r) for r in [header, *rows]) + draw(st.sampled_from(["", eol]))
    data = text.encode("utf-8") if draw(st.integers(0, 4)) else text.encode("latin-1", "replace")
    if draw(st.integers(0, 3)) == 0:
        data = b"\xef\xbb\xbf" + data  # a byte-order mark
    if draw(st.integers(0, 7)) == 0:
        at = draw(st.integers(0, len(data)))
        data = data[:at] + b"\x00" + data[at:]
    return data


CONFIG = {
    "title": "fuzz",
    "label": "y",
    "id": "id",
    "bootstrap": {"resamples": 0},
    "missing": "drop",
    "output": {"formats": ["json"]},
    "stream": {"batch_rows": 1000},
    "models": [{"name": "a", "file": "a.csv", "score": "s"}, {"name": "b", "file": "a.csv", "score": "t"}],
}


def _run(tmp: Path, data: bytes, engine: str, scheduler: str | None, capsys) -> None:
    (tmp / "a.csv").write_bytes(data)
    cfg = tmp / "c.yaml"
    cfg.write_text(yaml.safe_dump(CONFIG), encoding="utf-8")
    out = tmp / "out"
    args = ["run", str(cfg), "--engine", engine, "--out", str(out), "--overwrite", "-q"]
    if scheduler is not None:
        args += ["--scheduler", scheduler]
    code = cli.main(args)
    err = capsys.readouterr().err
    assert code in (0, 2), f"{engine}: exit {code}: {err}\n{data[:300]!r}"
    assert "Traceback" not in err and "internal error" not in err, err
    if code == 2:
        lines = err.strip().splitlines()
        assert len(lines) == 1 and lines[0].startswith("reportgen: error: "), err
    else:
        assert json.loads((out / "metrics.json").read_text(encoding="utf-8"))["run"]["files"][0]["rows"] >= 2


_EXAMPLES = [
    b"",
    b"id,y,s,t\n",
    b"id,y,s,t",
    b"\xef\xbb\xbfid,y,s,t\n1,0,0.1,0.2\n2,1,0.9,0.8\n",
    b"id,y,s,t\n1,0,0.1,0.2\n2,1,\x00,0.8\n",
    b"\x00\x00\x00",
    b"id,y,s,t\n1,0,0.1\n2,1,0.9,0.8,7\n",
]


def _with_examples(test):
    for e in _EXAMPLES:
        test = example(data=e)(test)
    return test


@_SETTINGS
@_with_examples
@given(data=csv_documents() | st.binary(max_size=300))
def test_random_csv_memory(data, tmp_path_factory, capsys) -> None:
    _run(tmp_path_factory.mktemp("fuzz"), data, "memory", None, capsys)


@_SETTINGS
@_with_examples
@given(data=csv_documents() | st.binary(max_size=300))
def test_random_csv_stream(data, tmp_path_factory, capsys) -> None:
    _run(tmp_path_factory.mktemp("fuzz"), data, "stream", None, capsys)


@pytest.mark.slow  # 40 runs through the session's cluster: about 8 CPU-s (the inner loop keeps memory and stream)
@_SETTINGS
@_with_examples
@given(data=csv_documents() | st.binary(max_size=300))
def test_random_csv_dask(data, tmp_path_factory, scheduler, capsys) -> None:
    _run(tmp_path_factory.mktemp("fuzz"), data, "dask", scheduler, capsys)
