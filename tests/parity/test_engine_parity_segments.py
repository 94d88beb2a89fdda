"""The segments section gives the same numbers in every engine: memory reads the file whole, stream
and Dask in record batches reduced to distinct rows with counts (several batches here), and the
separate-files path joins by id in each."""

from __future__ import annotations

from pathlib import Path

import pandas as pd
import pytest
from segment_cases import config, planted

from reportgen.pipeline import analyse


def _segments(cfg, engine: str, **extra):
    return analyse(cfg.with_overrides(engine=engine, **extra), "segments.yaml", now="2026-01-01T00:00:00Z").segments


@pytest.fixture(scope="module")
def rows(tmp_path_factory: pytest.TempPathFactory) -> Path:
    return planted(tmp_path_factory.mktemp("segp") / "rows.csv", n=2500)


def test_stream_equals_memory(rows: Path) -> None:
    cfg = config(rows, stream={"batch_rows": 1000})  # three batches
    memory = _segments(cfg, "memory")
    assert memory.reversals  # the planted case is there to compare
    assert _segments(cfg, "stream") == memory


def test_stream_equals_memory_with_ids_in_separate_files(tmp_path: Path, rows: Path) -> None:
    df = pd.read_csv(rows).reset_index(names="id")
    files = {}
    for name in ("champion", "challenger", "third"):  # each file in its own order
        files[name] = tmp_path / f"{name}.csv"
        df.sample(frac=1.0, random_state=len(name)).drop(
            columns=[m for m in ("champion", "challenger", "third") if m != name]
        ).to_csv(files[name], index=False)
    cfg = config(rows, id="id")
    cfg = cfg.with_overrides(models=[{**m.model_dump(), "file": str(files[m.name])} for m in cfg.models])
    memory = _segments(cfg, "memory")
    assert memory == _segments(config(rows), "memory")  # the join pairs the rows the one file holds
    assert _segments(cfg, "stream") == memory


def test_dask_equals_memory(rows: Path, scheduler: str) -> None:
    cfg = config(rows, stream={"batch_rows": 1000})
    assert _segments(cfg, "dask", scheduler=scheduler) == _segments(cfg, "memory")
