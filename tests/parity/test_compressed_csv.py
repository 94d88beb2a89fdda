"""Compressed CSV (``.csv.gz``, ``.csv.bz2``, ``.csv.zst``) is the uncompressed file to every engine.

The same predictions written plain and compressed three ways give the same ``metrics.json``
numbers in ``engine: memory``, ``stream`` and ``dask`` (the digest, the run record and the file
names aside), the audit trail's SHA-256 and size are of the bytes as stored, and a bad row is
refused with the uncompressed file's message (row number, column) but the compressed file's
name. A damaged or truncated file is one line naming it, exit 2.
"""

from __future__ import annotations

import bz2
import gzip
import hashlib
import json
from pathlib import Path

import numpy as np
import pyarrow as pa
import pytest
import yaml

from reportgen import cli
from reportgen.io.files import codec_of

CODECS = ("", ".gz", ".bz2", ".zst")


def compress(data: bytes, suffix: str) -> bytes:
    """``data`` as a file named ``*.csv{suffix}`` holds it (written by the usual tools' libraries)."""
    if suffix == ".gz":
        return gzip.compress(data)
    if suffix == ".bz2":
        return bz2.compress(data)
    if suffix == ".zst":
        return pa.compress(data, codec="zstd", asbytes=True)  # one zstd frame, as `zstd` writes it
    return data


def predictions(n: int = 2500, seed: int = 3) -> str:
    """CSV text of two models' scores with ids and a 0/1 label (ties and a blank-free file)."""
    rng = np.random.default_rng(seed)
    y = rng.integers(0, 2, n)
    a = np.round(np.clip(0.3 * y + 0.7 * rng.random(n), 0, 1), 3)
    b = np.round(np.clip(0.2 * y + 0.8 * rng.random(n), 0, 1), 2)
    return "id,y,a,b\n" + "".join(f"{i},{t},{x},{z}\n" for i, (t, x, z) in enumerate(zip(y, a, b), start=1))


def config(tmp: Path, name: str, **extra) -> Path:
    cfg = {
        "title": "t",
        "label": "y",
        "id": "id",
        "baseline": "a",
        "bootstrap": {"resamples": 20, "seed": 5},
        "output": {"formats": ["json"]},
        "stream": {"batch_rows": 1000},
        **extra,
        "models": [{"name": "a", "file": name, "score": "a"}, {"name": "b", "file": name, "score": "b"}],
    }
    path = tmp / f"{name}.yaml"
    path.write_text(yaml.safe_dump(cfg, sort_keys=False), encoding="utf-8")
    return path


def run(cfg: Path, engine: str, scheduler: str | None, capsys) -> tuple[int, str, Path]:
    out = cfg.parent / f"out-{cfg.stem}-{engine}"
    args = [
        "run",
        str(cfg),
        "--engine",
        engine,
        "--out",
        str(out),
        "--overwrite",
        "-q",
        "--now",
        "2026-01-01T00:00:00Z",
    ]
    if engine == "dask":
        args += ["--scheduler", str(scheduler)]
    code = cli.main(args)
    return code, capsys.readouterr().err.strip(), out


def numbers(doc: dict) -> dict:
    """metrics.json without what names the file (its path, digest, run record)."""
    models = {n: {k: v for k, v in m.items() if k != "file"} for n, m in doc["models"].items()}
    return {
        **{k: v for k, v in doc.items() if k not in ("digest", "run", "models")},
        "models": models,
        "paired": doc["run"]["paired"],
        "dropped": doc["run"]["dropped"],
    }


def test_codec_of_names_the_compression_by_the_last_suffix() -> None:
    assert [codec_of(Path(f"d/a.csv{s}")) for s in CODECS] == [None, "gzip", "bz2", "zstd"]
    assert codec_of(Path("a.CSV.GZ")) == "gzip" and codec_of(Path("a.parquet")) is None
    assert codec_of("s3:/b/k/a.csv.zst?region=x") == "zstd"  # a folded URI: its path, not its query


def _same_numbers(tmp_path: Path, engine: str, scheduler: str | None, capsys) -> None:
    text = predictions().encode()
    docs = {}
    for suffix in CODECS:
        name = f"p.csv{suffix}"
        stored = compress(text, suffix)
        (tmp_path / name).write_bytes(stored)
        code, err, out = run(config(tmp_path, name), engine, scheduler, capsys)
        assert code == 0, f"{name}: {err}"
        doc = json.loads((out / "metrics.json").read_text(encoding="utf-8"))
        (record,) = doc["run"]["files"]
        # the audit trail: the bytes as stored, not the text parsed
        assert record["sha256"] == hashlib.sha256(stored).hexdigest() and record["size_bytes"] == len(stored)
        assert record["rows"] == 2500
        docs[suffix] = numbers(doc)
    for suffix in CODECS[1:]:
        assert docs[suffix] == docs[""], suffix


@pytest.mark.parametrize("engine", ["memory", "stream"])
def test_compressed_predictions_give_the_plain_files_numbers(tmp_path: Path, engine: str, capsys) -> None:
    _same_numbers(tmp_path, engine, None, capsys)


@pytest.mark.slow
def test_compressed_predictions_give_the_plain_files_numbers_in_dask(tmp_path: Path, scheduler: str, capsys) -> None:
    _same_numbers(tmp_path, "dask", scheduler, capsys)


def _edited(text: str, row: int, line: str) -> str:
    lines = text.splitlines()
    lines[row - 1] = line
    return "\n".join(lines) + "\n"


#: A fault in the text, and what the message says of it (the row as the file's line).
FAULTS = [
    ("missing score", lambda t: _edited(t, 11, "10,0,,0.5"), "row 11: missing or non-finite score in 'a'"),
    ("not a number", lambda t: _edited(t, 1801, "1800,1,abc,0.5"), "column 'a', row 1801: non-numeric value 'abc'"),
    ("short row", lambda t: _edited(t, 11, "10,0,0.5"), "row 11: 3 fields where the header has 4"),
    ("quote left open", lambda t: _edited(t, 11, '10,"0,0.5,0.5'), "row 11: a quote is left open"),
    ("after a blank line", lambda t: _edited(t, 5, "\n4,0,,0.1"), "row 6: missing or non-finite score in 'a'"),
]


def _same_messages(tmp_path: Path, engine: str, scheduler: str | None, capsys, fault, words: str) -> None:
    text = fault(predictions())
    lines = {}
    for suffix in CODECS:
        name = f"p.csv{suffix}"
        (tmp_path / name).write_bytes(compress(text.encode(), suffix))
        code, err, _ = run(config(tmp_path, name), engine, scheduler, capsys)
        assert code == 2 and len(err.splitlines()) == 1, err
        assert err.startswith(f"reportgen: error: {tmp_path / name}: "), err
        lines[suffix] = err.replace(name, "p.csv")
    assert words in lines[""], lines[""]
    assert all(line == lines[""] for line in lines.values()), lines


@pytest.mark.parametrize("engine", ["memory", "stream"])
@pytest.mark.parametrize("case, fault, words", FAULTS, ids=[f[0] for f in FAULTS])
def test_a_bad_row_of_a_compressed_file_gets_the_plain_files_message(
    tmp_path: Path, engine: str, case: str, fault, words: str, capsys
) -> None:
    _same_messages(tmp_path, engine, None, capsys, fault, words)


@pytest.mark.slow
def test_a_bad_row_of_a_compressed_file_gets_the_plain_files_message_in_dask(
    tmp_path: Path, scheduler: str, capsys
) -> None:
    for _case, fault, words in FAULTS[:2]:
        _same_messages(tmp_path, "dask", scheduler, capsys, fault, words)


@pytest.mark.parametrize("engine", ["memory", "stream"])
@pytest.mark.parametrize(
    "suffix, damage, words",
    [
        (".gz", lambda b: b[: len(b) // 2], "cannot decompress as gzip"),  # truncated
        (".gz", lambda b: b[:200] + bytes(x ^ 0xFF for x in b[200:260]) + b[260:], "cannot decompress as gzip"),
        (".bz2", lambda b: b[: len(b) // 2], "cannot decompress as bz2"),
        (".zst", lambda b: b[: len(b) // 2], "cannot decompress as zstd"),
        (
            ".gz",
            lambda _b: predictions().encode(),
            "named as gzip-compressed (.gz) but the file is not gzip-compressed",
        ),
    ],
    ids=["truncated gz", "damaged gz", "truncated bz2", "truncated zst", "plain text named .gz"],
)
def test_a_damaged_compressed_file_is_one_line_naming_it(
    tmp_path: Path, engine: str, suffix: str, damage, words: str, capsys
) -> None:
    name = f"p.csv{suffix}"
    (tmp_path / name).write_bytes(damage(compress(predictions().encode(), suffix)))
    code, err, out = run(config(tmp_path, name), engine, None, capsys)
    assert code == 2 and len(err.splitlines()) == 1 and "Traceback" not in err, err
    assert f"{tmp_path / name}: " in err and words in err, err
    assert not out.exists()


def test_validate_reads_a_compressed_file_as_run_does(tmp_path: Path, capsys) -> None:
    (tmp_path / "p.csv.zst").write_bytes(compress(predictions().encode(), ".zst"))
    assert cli.main(["validate", str(config(tmp_path, "p.csv.zst"))]) == 0
    assert "2500 rows each" in capsys.readouterr().out
