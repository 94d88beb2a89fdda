"""The segments section gives the same numbers in every engine: memory reads the file whole, stream
and Dask in record batches reduced to distinct rows with counts (three batches here), and the
separate-files path joins by id in each. The whole run through Dask is the slow test."""

from __future__ import annotations

from pathlib import Path

import pandas as pd
import pytest
from segment_cases import config, planted

from reportgen.config_base import json_data
from reportgen.engine.driver import compare_evidence
from reportgen.pipeline import analyse, load_evidence, settings_from
from reportgen.reduce.segment_rows import segment_section


@pytest.fixture(scope="module")
def case(tmp_path_factory: pytest.TempPathFactory):
    rows = planted(tmp_path_factory.mktemp("segp") / "rows.csv", n=2500)
    cfg = config(rows, segments=["band"], stream={"batch_rows": 1000})  # three batches
    _, comparisons, _ = compare_evidence(load_evidence(cfg), settings_from(cfg))
    return rows, cfg, comparisons


def _section(cfg, comparisons, engine: str):
    one = cfg.with_overrides(engine=engine)
    return segment_section(one, settings_from(one), comparisons)


@pytest.fixture(scope="module")
def memory(case):
    _, cfg, comparisons = case
    return _section(cfg, comparisons, "memory")


@pytest.mark.parametrize("engine", ["stream", "dask"])
def test_batched_engines_equal_memory(case, memory, engine: str) -> None:
    _, cfg, comparisons = case
    assert memory.reversals  # the planted case is there to compare
    assert _section(cfg, comparisons, engine) == memory


def test_ids_in_separate_files_equal_the_one_file(tmp_path: Path, case, memory) -> None:
    rows, cfg, comparisons = case
    df = pd.read_csv(rows).reset_index(names="id")
    files = {}
    for name in ("champion", "challenger", "third"):  # each file in its own order
        files[name] = tmp_path / f"{name}.csv"
        df.sample(frac=1.0, random_state=len(name)).drop(
            columns=[m for m in ("champion", "challenger", "third") if m != name]
        ).to_csv(files[name], index=False)
    joined = cfg.with_overrides(id="id", models=[{**json_data(m), "file": str(files[m.name])} for m in cfg.models])
    assert _section(joined, comparisons, "memory") == memory  # the join pairs the rows the one file holds
    assert _section(joined, comparisons, "stream") == memory


@pytest.mark.slow
def test_a_dask_run_equals_a_memory_run(case, scheduler: str) -> None:
    _, cfg, _ = case

    def run(engine: str, **extra):
        return analyse(cfg.with_overrides(engine=engine, **extra), "s.yaml", now="2026-01-01T00:00:00Z").segments

    assert run("dask", scheduler=scheduler) == run("memory")
