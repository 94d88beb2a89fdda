"""DeLong's cross-moments of a pairing are summed per range of common rows, whatever the batches.

Memory adds a file's rows at once, stream batch by batch, dask part by part (each pairing starting
at its part's first common row, merged in order): the float sums must be the same bits. The ranges
are made small here (``PAIRED_CHUNK``) so that batches and parts cut them in every way.
"""

from __future__ import annotations

import numpy as np
import pytest

import reportgen.reduce.local as L
from reportgen.config import config_from_mapping
from reportgen.engine.curve import ScoreTable


def _table(scores: np.ndarray, y: np.ndarray) -> ScoreTable:
    from reportgen.reduce import accumulators as S

    acc = S.TableAccumulator()
    acc.add(scores, y)
    return acc.table()


@pytest.fixture
def rows():
    rng = np.random.default_rng(5)
    n = 1_037
    y = rng.random(n) < 0.35
    scores = [np.round(rng.random(n) + 0.4 * y * j, 3) for j in range(3)]
    return scores, y


def _pairs(scores, y) -> L.BinaryPairs:
    cfg = config_from_mapping(
        {"label": "y", "models": [{"name": f"m{j}", "file": "a.csv", "score": "s"} for j in range(3)]}
    )
    tables = [_table(s, y) for s in scores]
    from reportgen.reduce import accumulators as S

    return L.BinaryPairs(cfg, (tables, [S.exact_grouper(t) for t in tables]))


def _feed(pairs: L.BinaryPairs, scores, y, lo: int, hi: int) -> None:
    codes = [g(s[lo:hi]) for g, s in zip(pairs.groupers, scores)]
    correct = [(c < ci) == y[lo:hi] for c, ci in zip(codes, pairs.cuts)]
    pairs.add_rows(codes, correct, y[lo:hi])


@pytest.mark.parametrize(
    "cuts", [[1_037], [1_000, 1_037], [13, 500, 501, 999, 1_037], [*list(range(97, 1037, 97)), 1037]]
)
def test_the_moments_are_the_same_bits_however_the_rows_are_batched_or_split_in_parts(rows, cuts, monkeypatch):
    monkeypatch.setattr(L, "PAIRED_CHUNK", 100)
    scores, y = rows
    whole = _pairs(scores, y)
    _feed(whole, scores, y, 0, len(y))
    expected = whole.result()[0]

    batched = _pairs(scores, y)  # stream: one pairing, batch after batch
    for lo, hi in zip([0, *cuts[:-1]], cuts):
        _feed(batched, scores, y, lo, hi)
    parts = []  # dask: a pairing per part, starting at its first common row, merged in order
    for lo, hi in zip([0, *cuts[:-1]], cuts):
        p = _pairs(scores, y).starting_at(lo)
        _feed(p, scores, y, lo, hi)
        parts.append(p)
    while len(parts) > 1:  # a tree of merges, each of neighbours in order
        parts = [parts[i].merge(parts[i + 1]) if i + 1 < len(parts) else parts[i] for i in range(0, len(parts), 2)]
    for got in (batched.result()[0], parts[0].result()[0]):
        assert np.array_equal(got.c10, expected.c10) and np.array_equal(got.c01, expected.c01)
        assert np.array_equal(got.agree, expected.agree) and np.array_equal(got.joint, expected.joint)
    assert not batched.open and not parts[0].open


def test_the_moments_are_those_of_the_rows(rows, monkeypatch):
    """Summed by range, the cross-moments are still Σ over the rows of the placement deviations' products."""
    monkeypatch.setattr(L, "PAIRED_CHUNK", 100)
    scores, y = rows
    pairs = _pairs(scores, y)
    _feed(pairs, scores, y, 0, len(y))
    acc = pairs.result()[0]
    rows_of = [g(s) for g, s in zip(pairs.groupers, scores)]
    dev = np.array([v[r] for v, r in zip(acc._v10, rows_of)])[:, y]
    np.testing.assert_allclose(acc.c10, dev @ dev.T, rtol=1e-12)


@pytest.mark.dask
def test_every_engine_cuts_the_ranges_at_the_same_common_rows(tmp_path, monkeypatch):
    """Ranges of 100 common rows, a dataset of parts of 137 rows, rows dropped by one model and by
    every model: memory (one piece), stream (batches) and dask (each part's pairing started at its
    first common row, ``Part.kept``) give DeLong's covariance to the bit. Dask runs in this process
    (threads), so its workers see the small ranges too; starting the parts at their file rows fails."""
    import dask.distributed as distributed

    import reportgen.io.pairs as P
    import reportgen.reduce.dask as D
    from reportgen.pipeline import load_evidence

    for module in (L, P, D):
        monkeypatch.setattr(module, "PAIRED_CHUNK", 100)
    rng = np.random.default_rng(4)
    n = 1_234
    y = (rng.random(n) < 0.4).astype(float)
    t = __import__("pandas").DataFrame(
        {"id": np.arange(n), "y": y, "s": np.round(rng.random(n), 3), "s2": np.round(rng.random(n) * 0.6 + 0.4 * y, 3)}
    )
    t.loc[[3, 250, 251, 700], "s2"] = np.nan
    t.loc[[10, 400], "y"] = np.nan
    (tmp_path / "ds").mkdir()
    for k, lo in enumerate(range(0, n, 137)):
        t.iloc[lo : lo + 137].to_parquet(tmp_path / "ds" / f"p{k:02d}.parquet", index=False)
    with distributed.LocalCluster(
        n_workers=2, threads_per_worker=1, processes=False, dashboard_address=None
    ) as cluster:
        for join in ({}, {"id": "id"}):
            cfg = {
                "label": "y",
                "missing": "drop",
                "stream": {"batch_rows": 1_000},
                "scheduler": cluster.scheduler_address,
                **join,
                "models": [
                    {"name": "a", "file": str(tmp_path / "ds"), "score": "s"},
                    {"name": "b", "file": str(tmp_path / "ds"), "score": "s2"},
                ],
            }
            cov = {
                e: load_evidence(config_from_mapping({**cfg, "engine": e})).pairing.covariance
                for e in ("memory", "stream", "dask")
            }
            assert np.array_equal(cov["stream"], cov["memory"]) and np.array_equal(cov["dask"], cov["memory"]), join


@pytest.mark.parametrize("weighted", [False, True], ids=["unweighted", "weighted"])
def test_mcnemar_pairing_does_not_depend_on_its_ranges(tmp_path, monkeypatch, weighted):
    """Multiclass McNemar pairs are whole counts and per-cell weight sums in one order, so the
    stream's spill ranges (McNemarPairs.range_rows, a quarter of the binary's) change nothing:
    ranges of 7 rows, cut by every batch, give the same metrics.json document."""
    import json

    import pandas as pd

    from reportgen.pipeline import analyse

    rng = np.random.default_rng(9)
    n, classes = 2500, ["a", "b", "c"]
    y = rng.integers(0, 3, n)
    models = []
    for j in range(3):
        p = rng.dirichlet(np.ones(3), n) + 0.6 * j * np.eye(3)[y]
        p = np.round(p / p.sum(axis=1, keepdims=True), 2)
        frame = pd.DataFrame({"id": rng.permutation(n) if j else np.arange(n), "y": np.array(classes)[y]})
        order = frame["id"].to_numpy()
        frame["y"] = np.array(classes)[y[order]]
        for c in range(3):
            frame[f"p{c}"] = p[order, c]
        frame["w"] = (rng.integers(1, 4, n) * 0.5)[order] if weighted else 1.0
        frame.to_csv(tmp_path / f"m{j}.csv", index=False)
        models.append({"name": f"m{j}", "file": str(tmp_path / f"m{j}.csv"), "scores": [f"p{c}" for c in range(3)]})
    cfg = config_from_mapping(
        {
            "task": "multiclass",
            "label": "y",
            "id": "id",
            "classes": classes,
            "engine": "stream",
            "stream": {"batch_rows": 1000},
            "bootstrap": {"resamples": 30},
            "models": models,
            **({"weight": "w"} if weighted else {}),
        },
        str(tmp_path / "c.yaml"),
    )

    def document() -> dict:
        doc = analyse(cfg, tmp_path / "c.yaml", now="2026-01-01T00:00:00Z").to_json()
        for key in ("duration_seconds", "run_id"):  # the run's own, not its numbers
            doc["run"].pop(key)
        doc.pop("digest")  # of the document with them
        return json.loads(json.dumps(doc))

    default = document()
    monkeypatch.setattr(L.McNemarPairs, "range_rows", 7)
    assert document() == default
