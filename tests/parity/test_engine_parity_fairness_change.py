"""The challenger's paired fairness change is the same from every engine.

Each model's rows are reduced to a joint count table per group (rows by label and the two
models' decisions); memory reads each file whole, stream and Dask in record batches. Here the
challenger's file is joined by id in another order with rows the baseline lacks, and a second
challenger shares the baseline's file (paired row by row): the changes, their paired intervals
and the per-group adverse-impact ratio changes are equal in memory, stream and Dask, and the
point change equals the two models' reported values' difference when every row pairs.
"""

from __future__ import annotations

from pathlib import Path
from types import SimpleNamespace

import numpy as np
import pandas as pd
import pytest
import yaml

from reportgen.config import load_config
from reportgen.reduce.fairness_rows import fairness_section

N = 2_500


@pytest.fixture(scope="module")
def config_path(tmp_path_factory) -> Path:
    d = tmp_path_factory.mktemp("fairx")
    rng = np.random.default_rng(49)
    sex = rng.choice(["f", "m"], N, p=[0.4, 0.6])
    age = rng.choice(["18-25", "26-40", "41+"], N, p=[0.2, 0.5, 0.3])
    y = (rng.random(N) < 0.25).astype(int)
    ids = np.arange(1, N + 1)
    base = pd.DataFrame(
        {
            "id": ids,
            "y": y,
            "sex": sex,
            "age": age,
            "a": np.round(rng.normal(size=N) + y, 1),
            "c": np.round(rng.normal(size=N) + 1.3 * y, 1),
        }
    )
    base.to_csv(d / "base.csv", index=False)
    other = base[["id", "y", "sex", "age"]].assign(b=np.round(rng.normal(size=N) + 1.5 * y + 0.4 * (sex == "m"), 1))
    extra = pd.DataFrame({"id": [N + 1, N + 2], "y": [0, 1], "sex": ["f", "m"], "age": ["41+", "41+"], "b": [0.1, 2.0]})
    pd.concat([other, extra]).sample(frac=1.0, random_state=3).to_csv(d / "other.csv", index=False)
    cfg = {
        "title": "fairness change",
        "label": "y",
        "id": "id",
        "threshold": 0.9,
        "bootstrap": {"resamples": 200, "seed": 5},
        "fairness": {"groups": ["sex", "age"]},
        "models": [
            {"name": "a", "file": "base.csv", "score": "a"},
            {"name": "b", "file": "other.csv", "score": "b"},
            {"name": "c", "file": "base.csv", "score": "c", "threshold": 1.1},
        ],
    }
    (d / "fairx.yaml").write_text(yaml.safe_dump(cfg), encoding="utf-8")
    return d / "fairx.yaml"


def _section(path: Path, engine: str, **over):
    cfg, _ = load_config(path)
    cfg = cfg.with_overrides(engine=engine, stream={"batch_rows": 1_000}, **over)
    models = {m.name: SimpleNamespace(threshold=m.threshold) for m in cfg.models}
    return fairness_section(cfg, models)


@pytest.fixture(scope="module")
def memory(config_path):
    return _section(config_path, "memory")


@pytest.mark.parametrize("engine", ["stream", pytest.param("dask", marks=pytest.mark.dask)])
def test_engines_give_memorys_paired_changes(config_path, memory, engine):
    assert _section(config_path, engine) == memory


def test_changes_are_paired_with_intervals(memory):
    for name, rows in (("b", N), ("c", N)):  # b: joined by id (its two extra rows unpaired)
        paired = memory.models[name].paired
        assert [p.column for p in paired] == ["sex", "age"]
        for p in paired:
            assert p.rows == rows and p.unpaired is None and p.method
            assert set(p.changes_ci) == set(memory.models[name].changes[p.column])
            assert set(p.adverse_impact_ratio_changes) == ({"f"} if p.column == "sex" else {"18-25", "41+"})
    assert memory.models["a"].paired == ()


def test_point_change_is_the_difference_of_the_reported_values(memory):
    a, c = memory.models["a"], memory.models["c"]  # every row of the file pairs: the paired point is the difference
    for col_a, col_c in zip(a.columns, c.columns, strict=True):
        for k, v in c.changes[col_c.column].items():
            want = (
                col_c.min_adverse_impact_ratio - col_a.min_adverse_impact_ratio
                if k == "min_adverse_impact_ratio"
                else col_c.disparities[k] - col_a.disparities[k]
            )
            assert v == pytest.approx(want, abs=1e-15), k


def test_unpaired_rows_say_why(config_path):
    raw = yaml.safe_load(config_path.read_text())
    del raw["id"]
    path = config_path.with_name("noid.yaml")
    path.write_text(yaml.safe_dump(raw), encoding="utf-8")
    sec = _section(path, "memory", bootstrap={"resamples": 0})
    assert {p.unpaired for p in sec.models["b"].paired} == {"lengths_differ"}
    assert {p.unpaired for p in sec.models["c"].paired} == {None}


def test_a_group_that_differs_between_the_files_is_one_line_naming_the_id(config_path):
    from reportgen.errors import InputError

    other = config_path.with_name("other.csv")
    df = pd.read_csv(other)
    df.loc[df["id"] == 7, "sex"] = "x"
    bad = config_path.with_name("bad.csv")
    df.to_csv(bad, index=False)
    raw = yaml.safe_load(config_path.read_text())
    raw["models"][1]["file"] = "bad.csv"
    path = config_path.with_name("bad.yaml")
    path.write_text(yaml.safe_dump(raw), encoding="utf-8")
    with pytest.raises(InputError, match=r"fairness\.groups\[0\]: the group of id '7' differs between"):
        _section(path, "memory", bootstrap={"resamples": 0})
