"""Two files of different lengths without an id are compared as independent samples: the run says
so in its warnings (and so in the report's summary) and says how to pair them."""

from __future__ import annotations

import numpy as np
import pandas as pd

from reportgen.api import compare_frames
from reportgen.report.views.common import Models
from reportgen.report.views.summary import summary_view


def _frame(n: int, seed: int) -> pd.DataFrame:
    rng = np.random.default_rng(seed)
    y = (rng.random(n) < 0.3).astype(int)
    return pd.DataFrame({"y": y, "s": np.round(rng.normal(size=n) + y, 2)})


def _run(a: pd.DataFrame, b: pd.DataFrame, **kw):
    return compare_frames(
        {"a": a, "b": b},
        label="y",
        scores={"a": "s", "b": "s"},
        threshold=0.5,
        bootstrap={"resamples": 0, "seed": 1},
        now="2026-01-01T00:00:00Z",
        **kw,
    )


def test_files_of_different_lengths_without_id_are_named_unpaired_with_how_to_pair():
    r = _run(_frame(60, 1), _frame(45, 2))
    assert r.run.paired is False
    (n,) = [n for n in r.run.notices if n.code == "unpaired_lengths"]
    assert list(n.params["names"]) == ["a", "b"] and list(n.params["rows"]) == [60, 45]
    (w,) = [w for w in r.run.warnings if "independent samples" in w]
    assert "a: 60, b: 45" in w and "set 'id:'" in w and "unpaired tests" in w
    view = summary_view(r, Models.of(r, ["#000000", "#111111"]), {})
    assert w in view.warnings


def test_paired_files_and_files_joined_by_id_have_no_such_notice():
    a = _frame(50, 1)
    b = a.assign(s=a["s"] + np.random.default_rng(2).normal(size=50))  # the same rows, another model
    assert not [n for n in _run(a, b).run.notices if n.code == "unpaired_lengths"]
    ia, ib = a.assign(id=range(50)), b.assign(id=range(50)).iloc[:40]
    r = _run(ia, ib, id="id", id_mismatch="intersect")
    assert r.run.paired is True
    assert not [n for n in r.run.notices if n.code == "unpaired_lengths"]
