"""engine: stream and engine: dask give the in-memory numbers; binning states an honest bound.

The data is a hive-partitioned Parquet dataset (and a CSV) written by the tests; the Dask tests
start a real LocalCluster with two worker processes.
"""

from __future__ import annotations

import json
from pathlib import Path

import numpy as np
import pandas as pd
import pyarrow as pa
import pyarrow.parquet as pq
import pytest

from reportgen.config import load_config
from reportgen.errors import InputError
from reportgen.pipeline import analyse
from reportgen.report.render import render_html
from reportgen.report.wording import comparison_notes

N = 60_000


@pytest.fixture(scope="module")
def lake(tmp_path_factory) -> Path:
    """Two models' scores and the truth in one partitioned dataset, plus the same rows as CSV."""
    d = tmp_path_factory.mktemp("lake")
    rng = np.random.default_rng(11)
    y = (rng.random(N) < 0.12).astype(int)
    df = pd.DataFrame(
        {
            "y": y,
            "a": np.round(rng.normal(size=N) + 1.1 * y, 3),  # many ties
            "b": 600 - np.round(40 * (rng.normal(size=N) + 0.7 * y)),  # points, lower = riskier
            "part": rng.integers(0, 5, N),
        }
    )
    days = np.random.default_rng(12).integers(0, 365, N)
    days[[17, 40_000]] = [0, 364]  # the first and last day occur, in different parts
    df["day"] = (np.datetime64("2025-01-01") + days).astype(str)
    pq.write_to_dataset(pa.Table.from_pandas(df), d / "ds", partition_cols=["part"])
    df.drop(columns="part").to_csv(d / "all.csv", index=False)
    return d


def _config(d: Path, file: str, extra: str = "") -> Path:
    cfg = d / f"c_{abs(hash((file, extra)))}.yaml"
    cfg.write_text(
        "title: scale\nlabel: y\ndate: day\nthreshold: 0.5\nbootstrap: {resamples: 0}\n"
        + extra
        + f"models:\n  - {{name: a, file: {file}, score: a}}\n"
        f"  - {{name: b, file: {file}, score: b, direction: lower, threshold: 580}}\n"
    )
    return cfg


def _run(cfg_path: Path, engine: str, **over):
    cfg, p = load_config(cfg_path)
    return analyse(cfg.with_overrides(engine=engine, **over), p)


def _assert_same(x, y):
    assert x.run.date_range == y.run.date_range == ("2025-01-01", "2025-12-31")
    for name in x.models:
        mx, my = x.models[name], y.models[name]
        assert mx.metrics == my.metrics, name
        # DeLong from the table sums the same terms in another order: equal to the last bits
        assert mx.ci["roc_auc"] == pytest.approx(my.ci["roc_auc"], rel=1e-12, abs=1e-15)
        assert mx.ci["gini"] == pytest.approx(my.ci["gini"], rel=1e-12, abs=1e-15)
        assert mx.optimal_thresholds == my.optimal_thresholds
        assert np.array_equal(mx.curves.roc.x, my.curves.roc.x)
    cx, cy = x.comparisons[0].tests, y.comparisons[0].tests
    assert cx.delong.z == pytest.approx(cy.delong.z, rel=1e-9) and cx.delong.se == pytest.approx(cy.delong.se, rel=1e-9)
    assert cx.mcnemar.table == cy.mcnemar.table and cx.mcnemar.p_value == cy.mcnemar.p_value


@pytest.mark.parametrize("file", ["ds", "all.csv"])
def test_stream_equals_memory(lake, file):
    cfg = _config(lake, file)
    mem = _run(cfg, "memory")
    st = _run(cfg, "stream", stream={"batch_rows": 7_000})
    _assert_same(mem, st)
    assert st.run.engine == "stream" and all(m.binning is None for m in st.models.values())


@pytest.mark.parametrize("over", [{}, {"max_distinct_scores": 300, "bins": 100}])
def test_paired_pass_from_kept_codes_equals_reading_again(lake, monkeypatch, over):
    """The paired pass runs on the codes kept by passes 1 and 2; without room for them it reads
    the file again: the same tests either way (exact and binned models)."""
    import reportgen.reduce.local as SS

    cfg = _config(lake, "ds")
    kept = _run(cfg, "stream", stream={"batch_rows": 7_000, **over})
    monkeypatch.setattr(SS, "ROW_CODES_BUDGET", 0)
    read = _run(cfg, "stream", stream={"batch_rows": 7_000, **over})
    for x, y in ((kept, read),):
        cx, cy = x.comparisons[0].tests, y.comparisons[0].tests
        assert cx.mcnemar.table == cy.mcnemar.table and cx.mcnemar.p_value == cy.mcnemar.p_value
        assert cx.delong.z == pytest.approx(cy.delong.z, rel=1e-12) and cx.delong.paired and cy.delong.paired
        assert x.models["a"].metrics == y.models["a"].metrics


@pytest.mark.parametrize("over", [{}, {"max_distinct_scores": 300, "bins": 100}])
def test_threads_give_the_single_thread_result(lake, monkeypatch, over):
    """Batches are validated, binned and reduced in threads, but added up in the main thread in
    their order: the same bits as one thread (exact and binned models, the paired pass)."""
    import reportgen.parallel as P

    cfg = _config(lake, "ds")
    runs = []
    for threads in (4, 1):
        monkeypatch.setattr(P, "THREADS", threads)
        j = _run(cfg, "stream", stream={"batch_rows": 2_000, "sample_per_batch": 50, **over}).to_json()
        for volatile in ("created", "run_id", "duration_seconds"):
            j["run"].pop(volatile)
        j.pop("digest")  # of the whole document, the volatile fields included
        runs.append(j)
    assert runs[0] == runs[1]
    assert runs[0]["comparisons"][0]["tests"]["mcnemar"] is not None


@pytest.mark.dask
@pytest.mark.slow
def test_dask_local_cluster_equals_memory(lake):
    import dask.distributed  # noqa: F401 - a test dependency: missing, the test fails

    cfg = lake / "dask_boot.yaml"
    cfg.write_text(_config(lake, "ds").read_text().replace("resamples: 0", "resamples: 100, seed: 3"))
    mem = _run(cfg, "memory")
    dk = _run(cfg, "dask", stream={"batch_rows": 5_000})
    _assert_same(mem, dk)
    assert dk.run.engine == "dask"
    # the bootstrap drawn on the merged tables and pattern counts: the streamed numbers exactly
    st = _run(cfg, "stream")
    assert dk.comparisons[0].ci == st.comparisons[0].ci and "f1" in dk.comparisons[0].ci
    assert all(dk.models[n].ci == st.models[n].ci for n in st.models)


def test_binning_bounds_the_auc_error_and_keeps_thresholds_honest(lake):
    cfg = _config(lake, "ds")
    mem = _run(cfg, "memory")
    binned = _run(cfg, "stream", stream={"max_distinct_scores": 300, "bins": 100, "batch_rows": 9_000})
    df = pd.read_csv(lake / "all.csv")
    for name in ("a", "b"):
        b = binned.models[name].binning
        assert b is not None and b.bins <= 100 and b.auc_error_bound > 0
        exact, approx = mem.models[name].metrics["roc_auc"], binned.models[name].metrics["roc_auc"]
        assert abs(exact - approx) <= b.auc_error_bound
        # every reported threshold reproduces its counts on the raw rows
        s, y = df[name].to_numpy(), df["y"].to_numpy() == 1
        for o in binned.models[name].optimal_thresholds.values():
            if o.threshold is None:
                continue
            flagged = s >= o.threshold if name == "a" else s <= o.threshold
            assert (o.tp, o.fp) == (float((flagged & y).sum()), float((flagged & ~y).sum())), o.criterion
    assert any("binned into" in w for w in binned.run.warnings)


def test_stream_errors_name_the_global_row(lake, tmp_path):
    rows = ["y,a,b,day"] + [f"{i % 2},{i / 10:.1f},{600 - i},2025-03-01" for i in range(3000)]
    rows[2501] = "1,oops,5,2025-03-01"
    (tmp_path / "bad.csv").write_text("\n".join(rows) + "\n")
    cfg = _config(tmp_path, "bad.csv", "stream: {batch_rows: 1000}\n")
    from reportgen.errors import InputError

    with pytest.raises(InputError, match=r"column 'a', row 2502: non-numeric value 'oops'"):
        _run(cfg, "stream", stream={"batch_rows": 1000})
    rows[2501] = "1,0.5,5,2025-02-30"  # not a date: the same one-line error from both engines
    (tmp_path / "bad.csv").write_text("\n".join(rows) + "\n")
    for engine in ("stream", "memory"):
        with pytest.raises(InputError, match=r"column 'day', row 2502: '2025-02-30' is not a date"):
            _run(cfg, engine, stream={"batch_rows": 1000})


@pytest.mark.slow
def test_cli_engine_flag_and_report(lake, tmp_path, cli, metrics_schema, no_figures):  # the HTML is read for a sentence
    import jsonschema

    cfg = _config(lake, "ds", "stream: {max_distinct_scores: 300, bins: 50}\n")
    out = tmp_path / "o"
    assert cli(["run", str(cfg), "--engine", "stream", "--out", str(out), "--format", "html,json"]) == 0
    data = json.loads((out / "metrics.json").read_text())
    jsonschema.validate(data, metrics_schema)
    assert data["run"]["engine"] == "stream"
    assert data["models"]["a"]["binning"]["method"] == "quantile" and data["models"]["a"]["binning"]["bins"] <= 50
    html = (out / "report.html").read_text()
    assert "streamed in record batches" in html


def test_dask_without_dask_says_how_to_install(lake, tmp_path, cli, capsys, monkeypatch):
    import builtins

    real = builtins.__import__

    def no_dask(name, *a, **k):
        if name == "dask" or name.startswith("dask."):
            raise ImportError(name)
        return real(name, *a, **k)

    monkeypatch.setattr(builtins, "__import__", no_dask)
    cfg = _config(lake, "ds")
    assert cli(["run", str(cfg), "--engine", "dask", "--out", str(tmp_path / "o")]) == 2
    err = capsys.readouterr().err
    assert "pip install 'classifier-comparison-report[dask]'" in err and "Traceback" not in err


@pytest.mark.slow
def test_stream_bootstraps_each_model_from_its_table(lake, no_figures):  # the report's page is read for a sentence
    """Streamed models get stratified bootstrap intervals drawn on their tables: the in-memory
    scheme, so the same width up to resampling noise; fixed by the seed; the report says so."""
    cfg = _config(lake, "ds").read_text().replace("resamples: 0", "resamples: 400, seed: 5")
    path = lake / "boot.yaml"
    path.write_text(cfg)
    st = _run(path, "stream", stream={"batch_rows": 7_000})
    again = _run(path, "stream", stream={"batch_rows": 9_000})
    mem = _run(path, "memory")
    for name in ("a", "b"):
        ms, mm = st.models[name], mem.models[name]
        assert ms.ci == again.models[name].ci
        for metric in ("f1", "ks", "mcc", "average_precision", "accuracy"):
            # drawn on the table's cells, binned above 4,096 distinct scores (issue 16)
            # (KS, a maximum: the reshaped bootstrap-t of the same draws)
            kinds = (
                ("reshaped bootstrap-t", "reshaped bootstrap-t (binned score table)")
                if metric == "ks"
                else ("bootstrap", "bootstrap (binned score table)")
            )
            assert ms.ci_method[metric] == mm.ci_method[metric] in kinds
            lo, hi = ms.ci[metric]
            assert lo <= ms.metrics[metric] <= hi
            w_s, w_m = hi - lo, mm.ci[metric][1] - mm.ci[metric][0]
            assert w_s == pytest.approx(w_m, rel=0.2), (name, metric)
        assert ms.ci_method["roc_auc"] == "DeLong"
    notes = " ".join(comparison_notes(st.comparisons[0], st))
    assert "stratified bootstrap drawn on its score table" in notes and "400 resamples, seed 5" in notes
    assert "paired stratified bootstrap of the models' decisions" in notes
    # differences of threshold metrics: the paired bootstrap of the decisions, as wide as in memory
    cs, cm = st.comparisons[0], mem.comparisons[0]
    for metric in ("f1", "mcc", "accuracy", "expected_cost", "recall"):
        lo, hi = cs.ci[metric]
        assert lo <= cs.delta[metric] <= hi
        assert hi - lo == pytest.approx(cm.ci[metric][1] - cm.ci[metric][0], rel=0.2), metric
    # differences of ranking metrics: the pair's joint score table, counted by every engine (issue 16)
    for metric in ("ks", "average_precision"):
        assert cs.ci_method[metric] == cm.ci_method[metric] == "paired bootstrap of the binned joint score table"
        lo, hi = cs.ci[metric]
        assert hi - lo == pytest.approx(cm.ci[metric][1] - cm.ci[metric][0], rel=0.2), metric
    assert cs.ci == again.comparisons[0].ci
    # the report's page of the streamed run (rendered from its result: another streamed run of the
    # 60,000 rows would only repeat the one above)
    assert "stratified bootstrap drawn on each model" in render_html(st)


def test_stream_verdict_on_a_threshold_metric_has_a_bootstrap_p_value(lake):
    text = _config(lake, "ds").read_text().replace("resamples: 0", "resamples: 300, seed: 2") + "primary_metric: f1\n"
    path = lake / "f1.yaml"
    path.write_text(text)
    st = _run(path, "stream")
    mem = _run(path, "memory")
    vs, vm = st.comparisons[0].verdict, mem.comparisons[0].verdict
    assert "(paired bootstrap, normal test on its SE)" in vs and "(paired bootstrap, normal test on its SE)" in vm
    assert (
        st.comparisons[0].decision.method
        == mem.comparisons[0].decision.method
        == "bootstrap (normal, SE of the replicates)"
    )
    assert vs.split(",")[0] == vm.split(",")[0]  # same delta, same words


def test_binned_models_are_tested_by_the_rule_behind_their_counts(lake):
    """A binned model decides per bin (a bin straddling the threshold is one side of it as a
    whole); McNemar's table and the paired bootstrap of differences must use that rule, or
    the reported difference can fall outside its own interval."""
    text = (
        _config(lake, "ds").read_text().replace("resamples: 0", "resamples: 300, seed: 1")
        + "primary_metric: accuracy\n"
    )
    path = lake / "binned_boot.yaml"
    path.write_text(text)
    for budget in (None, 0):  # codes kept in memory, or the file read again
        import reportgen.reduce.local as SS

        old = SS.ROW_CODES_BUDGET
        if budget is not None:
            SS.ROW_CODES_BUDGET = budget
        try:
            st = _run(path, "stream", stream={"batch_rows": 7_000, "max_distinct_scores": 300, "bins": 10})
        finally:
            SS.ROW_CODES_BUDGET = old
        assert st.models["a"].binning is not None
        c = st.comparisons[0]
        for metric in ("accuracy", "f1", "mcc", "expected_cost"):
            lo, hi = c.ci[metric]
            assert lo <= c.delta[metric] <= hi, (budget, metric, c.delta[metric], c.ci[metric])
        # McNemar's table: the rows each model got right are its TP + TN
        table = np.array(c.tests.mcnemar.table)
        for name, right in ((c.model, table[0].sum()), (c.baseline, table[:, 0].sum())):
            conf = st.models[name].confusion
            assert right == conf.tp + conf.tn, name


def test_models_with_their_own_label_columns_that_differ_are_refused_as_in_memory(tmp_path):
    """Two models in one file whose label columns differ on some rows: stream skipped the paired
    tests and went on; memory refuses the run (the rows do not line up). Both now say the same."""
    rng = np.random.default_rng(8)
    n = 9_000
    la = (rng.random(n) < 0.2).astype(int)
    lb = la.copy()
    lb[rng.choice(n, 50, replace=False)] ^= 1
    pd.DataFrame(
        {"la": la, "lb": lb, "a": np.round(rng.normal(size=n) + la, 2), "b": np.round(rng.normal(size=n) + lb, 2)}
    ).to_csv(tmp_path / "two.csv", index=False)
    cfg = tmp_path / "two.yaml"
    cfg.write_text(
        "title: t\nlabel: la\nthreshold: 0.5\nbootstrap: {resamples: 0}\nmodels:\n"
        "  - {name: a, file: two.csv, score: a}\n  - {name: b, file: two.csv, score: b, label: lb}\n"
    )
    first = int(np.flatnonzero(la != lb)[0]) + 2
    for engine, extra in (("memory", {}), ("stream", {"stream": {"batch_rows": 1_000}})):
        with pytest.raises(InputError, match=rf"model 'b': row {first} has a different label than in 'a'"):
            _run(cfg, engine, **extra)


def test_binning_has_its_own_seed_and_the_bootstrap_seed_never_moves_the_tables(lake):
    """stream.seed places the quantile bins (the reduction); bootstrap.seed, applied after the
    reduction, changes intervals only (issue 15: settings that shape the reduction are separate)."""
    cfg = _config(lake, "ds")
    binning = {"max_distinct_scores": 300, "bins": 100, "batch_rows": 9_000}

    def run(boot_seed: int, stream_seed: int):
        return _run(
            cfg, "stream", stream={**binning, "seed": stream_seed}, bootstrap={"resamples": 0, "seed": boot_seed}
        )

    base = run(1, 5)
    other_boot = run(2, 5)
    other_stream = run(1, 6)
    for name in ("a", "b"):
        assert other_boot.models[name].metrics == base.models[name].metrics
        assert other_boot.models[name].binning == base.models[name].binning
    assert any(other_stream.models[n].binning != base.models[n].binning for n in ("a", "b"))
