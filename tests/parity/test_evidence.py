"""Every engine gives the same evidence (issue 15): the same tables, thresholds, pairing codes
and paired counts from files read whole (memory: one batch each) as from record batches and
Dask partitions."""

from __future__ import annotations

import numpy as np
import pytest
from test_engines import _binary, _multiclass, data  # noqa: F401  (data is a fixture)

from reportgen.config import load_config
from reportgen.engine.evidence import BinaryEvidence, MulticlassEvidence, Pairing
from reportgen.pipeline import load_evidence


def _load(path, engine, scheduler=None):
    cfg, _ = load_config(path)
    over = {"engine": engine, "stream": {"batch_rows": 1000}}
    if scheduler:
        over["scheduler"] = scheduler
    return load_evidence(cfg.with_overrides(**over))


def _same_table(a, b):
    for f in ("thresholds", "pos", "neg"):
        np.testing.assert_array_equal(getattr(a, f), getattr(b, f))
    assert (a.direction, a.n_rows, a.weighted, a.sum_w2) == (b.direction, b.n_rows, b.weighted, b.sum_w2)


def test_binary_evidence_is_the_same_from_every_engine(data, scheduler):  # noqa: F811
    mem = _load(_binary(data), "memory")
    assert isinstance(mem, BinaryEvidence) and not hasattr(mem, "rows")  # one runner: binary evidence holds no rows
    for engine in ("stream", "dask"):
        got = _load(_binary(data), engine, scheduler if engine == "dask" else None)
        assert not hasattr(got, "rows")
        for m, g in zip(mem.models, got.models):
            _same_table(m.table, g.table)
            assert (m.name, m.threshold, m.threshold_key, m.probabilities) == (
                g.name,
                g.threshold,
                g.threshold_key,
                g.probabilities,
            )
        assert [m.threshold_key for m in mem.models] == ["threshold", "models[1].threshold", "models[2].threshold"]
        assert (
            (got.pairing.status, got.pairing.reason)
            == (mem.pairing.status, mem.pairing.reason)
            == ("aligned", "aligned")
        )
        np.testing.assert_array_equal(got.pairing.agree, mem.pairing.agree)
        np.testing.assert_array_equal(got.pairing.patterns, mem.pairing.patterns)
        # the same sums over other chunks: equal to rounding
        np.testing.assert_allclose(got.pairing.covariance, mem.pairing.covariance, rtol=1e-12, atol=1e-18)
        assert got.audit.files == mem.audit.files and got.audit.warnings == mem.audit.warnings


def test_weighted_binary_evidence_is_paired_alike_in_memory_and_stream(data):  # noqa: F811
    """Stream said 'weighted' (unpaired); the rows are aligned all the same: both engines give
    McNemar's frequency-weighted counts (non-integer weights: none), no DeLong covariance or patterns."""
    mem = _load(_binary(data, "weight: w\n"), "memory")
    st = _load(_binary(data, "weight: w\n"), "stream")
    for ev in (mem, st):
        assert (ev.pairing.status, ev.pairing.reason) == ("aligned", "aligned")
        assert ev.pairing.covariance is None and ev.pairing.patterns is None
    assert (mem.pairing.agree is None) == (st.pairing.agree is None)
    if mem.pairing.agree is not None:
        np.testing.assert_array_equal(mem.pairing.agree, st.pairing.agree)
    assert mem.pairing.agree[1, 0].sum() == pytest.approx(
        float(mem.models[1].table.total_pos + mem.models[1].table.total_neg)
    )
    for m, g in zip(mem.models, st.models):
        _same_table(m.table, g.table)


def test_multiclass_evidence_is_the_same_from_every_engine(data):  # noqa: F811
    mem = _load(_multiclass(data), "memory")
    st = _load(_multiclass(data), "stream")
    assert isinstance(mem, MulticlassEvidence) and mem.rows is not None and st.rows is not None
    # the rows, compressed to distinct rows with counts: the same rows in the same order
    for f in ("y_idx", "counts"):
        np.testing.assert_array_equal(getattr(mem.rows, f), getattr(st.rows, f))
    assert mem.rows.weights is None and st.rows.weights is None
    for a, b in zip(mem.rows.pred_idx + mem.rows.proba, st.rows.pred_idx + st.rows.proba):
        assert (a is None) == (b is None)
        if a is not None:
            np.testing.assert_array_equal(a, b)
    assert mem.rows.counts.sum() == mem.models[0].n_rows
    assert mem.classes == st.classes
    for m, g in zip(mem.models, st.models):
        np.testing.assert_array_equal(m.confusion, g.confusion)
        assert (m.n_rows, m.weighted, m.predicted_from_column) == (g.n_rows, g.weighted, g.predicted_from_column)
        assert (m.tables is None) == (g.tables is None)
        if m.tables is not None:
            for j in range(m.tables.k):
                for i in range(m.tables.k):
                    np.testing.assert_array_equal(m.tables.values[j][i], g.tables.values[j][i])
                    np.testing.assert_array_equal(m.tables.counts[j][i], g.tables.counts[j][i])
    # the streamed engines count each model against the baseline only
    np.testing.assert_array_equal(st.pairing.agreement(1, 0), mem.pairing.agreement(1, 0))
    np.testing.assert_array_equal(st.pairing.agreement(0, 1), mem.pairing.agreement(0, 1))


def test_pairing_rejects_contradictions():
    with pytest.raises(ValueError, match="unknown pairing reason"):
        Pairing("unpaired", "because")
    with pytest.raises(ValueError, match="contradicts"):
        Pairing("aligned", "rows_dropped")
    with pytest.raises(ValueError, match="contradicts"):
        Pairing("unpaired", "aligned")


def test_paired_counts_do_not_depend_on_the_chunking(monkeypatch):
    """The in-memory paired pass (rows held whole: pieces of PAIRED_CHUNK rows) adds chunks in
    order: the same counts as one chunk, and the covariance equal to rounding (sums in another grouping)."""
    import reportgen.reduce.local as L
    from reportgen.reduce.rows import ModelRows, evidence_of_rows

    rng = np.random.default_rng(3)
    y = rng.random(3000) < 0.2
    rows = [
        ModelRows("a", "f", np.round(rng.random(3000) + y, 2), y),
        ModelRows("b", "f", np.round(rng.normal(size=3000) - y, 1), y, direction="lower", threshold=-0.5),
    ]
    whole = evidence_of_rows(rows).pairing
    monkeypatch.setattr(L, "PAIRED_CHUNK", 700)
    parts = evidence_of_rows(rows).pairing
    np.testing.assert_array_equal(parts.agree, whole.agree)
    np.testing.assert_array_equal(parts.patterns, whole.patterns)
    np.testing.assert_allclose(parts.covariance, whole.covariance, rtol=1e-12)


def test_held_raw_float_scores_pair_in_pieces_as_in_one(monkeypatch):
    """Scores that are not short decimals take the paired pass of held files (each model's table
    rows found by one value sort, the moments in pieces of PAIRED_CHUNK rows in threads): the same
    counts as one piece and the covariance equal to rounding; the table rows are the scores' own
    (an independent oracle: np.unique's inverse)."""
    import reportgen.reduce.local as L
    from reportgen.reduce.rows import ModelRows, evidence_of_rows

    rng = np.random.default_rng(5)
    y = rng.random(2500) < 0.3
    a, b = rng.normal(size=2500) + y, np.exp(rng.normal(size=2500) - 0.5 * y)
    rows = [ModelRows("a", "f", a, y), ModelRows("b", "f", b, y, direction="lower", threshold=1.0)]
    whole = evidence_of_rows(rows)
    monkeypatch.setattr(L, "PAIRED_CHUNK", 600)
    parts = evidence_of_rows(rows)
    np.testing.assert_array_equal(parts.pairing.agree, whole.pairing.agree)
    np.testing.assert_array_equal(parts.pairing.patterns, whole.pairing.patterns)
    np.testing.assert_allclose(parts.pairing.covariance, whole.pairing.covariance, rtol=1e-12)
    # McNemar's table of (a right?, b right?) by hand
    right_a, right_b = (a >= 0.5) == y, (b <= 1.0) == y
    table = [
        [np.sum(right_a & right_b), np.sum(right_a & ~right_b)],
        [np.sum(~right_a & right_b), np.sum(~right_a & ~right_b)],
    ]
    assert whole.pairing.agree[0, 1].tolist() == table
    assert whole.models[0].table.n_distinct == np.unique(a).shape[0]
