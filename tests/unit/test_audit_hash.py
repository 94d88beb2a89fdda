"""The audit trail's SHA-256 is of the bytes that were parsed, in every engine (issue 18).

Before, the hash came from a second read after the analysis: a file replaced during the run
was reported with the new file's hash beside the old file's numbers. Each test here replaces
the file between the parse and the point where the audit record is built (a hook on a function
the loader calls in between) and checks the recorded hash is that of the parsed bytes.
"""

from __future__ import annotations

import hashlib
import json
import os
from pathlib import Path

import numpy as np
import pandas as pd
import pyarrow as pa
import pyarrow.parquet as pq
import pytest
import yaml

from reportgen import cli
from reportgen.errors import InputError
from reportgen.io import files as F

ENGINES = ("memory", "stream", "dask")


def frame(n: int = 40, seed: int = 3) -> pd.DataFrame:
    rng = np.random.default_rng(seed)
    return pd.DataFrame({"id": np.arange(n), "y": np.arange(n) % 2, "s": np.round(rng.random(n), 4)})


def config(tmp: Path, file: str, **extra) -> Path:
    cfg = {
        "title": "t",
        "label": "y",
        "bootstrap": {"resamples": 0},
        "output": {"formats": ["json"]},
        "stream": {"batch_rows": 1000},
        **extra,
        "models": [{"name": "a", "file": file, "score": "s"}],
    }
    path = tmp / "run.yaml"
    path.write_text(yaml.safe_dump(cfg, sort_keys=False), encoding="utf-8")
    return path


def run(cfg: Path, engine: str, scheduler: str) -> tuple[int, dict | None]:
    out = cfg.parent / f"out_{engine}"
    args = ["run", str(cfg), "--engine", engine, "--out", str(out), "--overwrite", "--quiet"]
    if engine == "dask":
        args += ["--scheduler", scheduler]
    code = cli.main(args)
    metrics = out / "metrics.json"
    return code, json.loads(metrics.read_text(encoding="utf-8")) if code == 0 else None


def sha(data: bytes) -> str:
    return hashlib.sha256(data).hexdigest()


def dataset_digest(root: Path) -> str:
    """What ``sha256sum`` over the parts, piped into ``sha256sum``, prints (an independent oracle)."""
    lines = []
    for f in sorted(p for p in root.rglob("*") if p.is_file() and not p.name.startswith((".", "_"))):
        lines.append(f"{sha(f.read_bytes())}  {f.relative_to(root).as_posix()}\n")
    return sha("".join(lines).encode())


def replace_after_parse(monkeypatch, engine: str, path: Path, new_bytes: bytes) -> None:
    """Overwrite ``path`` (in place, as ``cp`` does) once the engine has parsed it and before
    the audit record is built: at the call that follows the reading in each loader."""

    def overwrite():
        if path.is_dir():
            for f in sorted(path.rglob("*.parquet")):
                f.write_bytes(new_bytes)
        else:
            path.write_bytes(new_bytes)

    if engine == "memory":
        import reportgen.io.batches as D

        original = D.read_table

        def hooked(*args, **kwargs):
            df = original(*args, **kwargs)
            overwrite()
            return df

        monkeypatch.setattr(D, "read_table", hooked)
    else:  # stream and dask: both join the kept ids after the first reading
        import reportgen.reduce.local as L

        original = L.join_states

        def hooked(*args, **kwargs):
            overwrite()
            return original(*args, **kwargs)

        monkeypatch.setattr(L, "join_states", hooked)


def inputs_of(metrics: dict) -> list[dict]:
    """The input records of a metrics.json (wherever the schema keeps them)."""
    found = []

    def walk(x):
        if isinstance(x, dict):
            if "sha256" in x and "path" in x:
                found.append(x)
            for v in x.values():
                walk(v)
        elif isinstance(x, list):
            for v in x:
                walk(v)

    walk(metrics)
    return found


@pytest.mark.parametrize("engine", ENGINES)
def test_hash_is_of_the_parsed_csv_when_the_file_is_replaced_during_the_run(tmp_path, engine, scheduler, monkeypatch):
    path = tmp_path / "a.csv"
    frame().to_csv(path, index=False)
    parsed = path.read_bytes()
    other = frame(seed=99).to_csv(index=False).encode()
    replace_after_parse(monkeypatch, engine, path, other)
    code, metrics = run(config(tmp_path, "a.csv"), engine, scheduler)
    assert code == 0
    assert path.read_bytes() == other  # the file really was replaced before the record was built
    (rec,) = inputs_of(metrics)
    assert rec["sha256"] == sha(parsed) != sha(other)


@pytest.mark.parametrize("engine", ENGINES)
def test_hash_is_of_the_parsed_parquet_dataset_when_a_part_is_replaced_during_the_run(
    tmp_path, engine, scheduler, monkeypatch
):
    root = tmp_path / "ds"
    df = frame(60)
    for k in range(3):
        (root / f"k={k}").mkdir(parents=True)
        pq.write_table(
            pa.Table.from_pandas(df.iloc[k * 20 : (k + 1) * 20], preserve_index=False), root / f"k={k}" / "part.parquet"
        )
    parsed = dataset_digest(root)
    replacement = tmp_path / "other.parquet"
    pq.write_table(pa.Table.from_pandas(frame(20, seed=5), preserve_index=False), replacement)
    replace_after_parse(monkeypatch, engine, root, replacement.read_bytes())
    code, metrics = run(config(tmp_path, "ds"), engine, scheduler)
    assert code == 0
    (rec,) = inputs_of(metrics)
    assert rec["sha256"] == parsed != dataset_digest(root)


@pytest.mark.parametrize("engine", ENGINES)
def test_hash_of_a_single_parquet_file_is_its_sha256sum(tmp_path, engine, scheduler):
    path = tmp_path / "a.parquet"
    pq.write_table(pa.Table.from_pandas(frame(), preserve_index=False), path)
    code, metrics = run(config(tmp_path, "a.parquet"), engine, scheduler)
    assert code == 0
    (rec,) = inputs_of(metrics)
    assert rec["sha256"] == sha(path.read_bytes())


def test_a_file_that_changes_between_two_reads_is_an_error(tmp_path):
    """The streamed engines read a file more than once; every read must parse the same bytes."""
    path = tmp_path / "a.csv"
    frame().to_csv(path, index=False)
    with F.hashing() as digests:
        list(F.record_batches(path, ["s", "y"], 7, ["s"], ["y"]))
        first = digests.of(path)
        list(F.record_batches(path, ["s", "y"], 7, ["s"], ["y"]))  # the same bytes again: fine
        frame(seed=8).to_csv(path, index=False)
        with pytest.raises(InputError, match="changed while reportgen was reading it"):
            list(F.record_batches(path, ["s", "y"], 7, ["s"], ["y"]))
    assert first == sha(frame().to_csv(index=False).encode())


def test_a_large_parquet_part_is_hashed_through_the_descriptor_it_is_parsed_from(tmp_path, monkeypatch):
    """Past HASH_IN_MEMORY a part is hashed and parsed through one open file: a rename over the
    path after the open changes neither the digest nor the rows."""
    path = tmp_path / "a.parquet"
    df = frame(50)
    pq.write_table(pa.Table.from_pandas(df, preserve_index=False), path)
    original = path.read_bytes()
    monkeypatch.setattr(F, "HASH_IN_MEMORY", 0)
    with F.hashing() as digests:
        batches = F.record_batches(path, ["s"], 10)
        first = next(batches)
        other = tmp_path / "other.parquet"
        pq.write_table(pa.Table.from_pandas(frame(50, seed=4), preserve_index=False), other)
        os.replace(other, path)
        rest = list(batches)
        got = np.concatenate([first.column(0).to_numpy(), *[b.column(0).to_numpy() for b in rest]])
        assert digests.of(path) == sha(original)
    np.testing.assert_array_equal(got, df["s"].to_numpy())


def test_reading_without_hashing_records_nothing(tmp_path):
    path = tmp_path / "a.csv"
    frame().to_csv(path, index=False)
    assert F.opened(path) is path
    with pytest.raises(RuntimeError):
        F.file_info(path, 1)
