"""Run history (issue 20): three scheduled runs varied with --set share one store; the report's
trend section and ``reportgen history`` show them; concurrent appends lose nothing."""

from __future__ import annotations

import json
import sqlite3
import subprocess
import sys
import time
from pathlib import Path

import numpy as np
import pandas as pd
import pytest

from reportgen.history import append, export, read
from reportgen.report.export import safe_cell
from reportgen.results import ComparisonResult

ROOT = Path(__file__).resolve().parents[2]
PINNED = ["2026-01-01T00:00:00Z", "2026-02-01T00:00:00Z", "2026-03-01T00:00:00Z"]


@pytest.fixture(scope="module")
def naive_variants(tmp_path_factory) -> list[Path]:
    """The demo's naive model with its scores perturbed three ways (same ids and labels)."""
    base = pd.read_csv(ROOT / "configs" / "data" / "naive.csv")
    out = []
    d = tmp_path_factory.mktemp("variants")
    for seed in range(3):
        rng = np.random.default_rng(seed)
        v = base.copy()
        v["pd"] = np.clip(v["pd"] + rng.normal(0, 0.05 * (seed + 1), len(v)), 0, 1).round(4)
        out.append(d / f"naive_{seed}.csv")
        v.to_csv(out[-1], index=False)
    return out


@pytest.mark.slow
def test_three_runs_share_a_history_trend_and_history_command(
    tmp_path: Path, fast_config_factory, cli, capsys, naive_variants, no_figures
) -> None:
    # the third run's HTML is read for its trend tables only: rendered without figures
    store = tmp_path / "hist" / "runs.sqlite"
    cfg = fast_config_factory(tmp_path / "c.yaml", history={"path": "hist/runs.sqlite"})  # relative to the config
    docs = []
    for i, variant in enumerate(naive_variants):
        out = tmp_path / f"out{i}"
        code = cli(
            [
                "run",
                str(cfg),
                "--out",
                str(out),
                "--now",
                PINNED[i],
                "--format",
                "json,html" if i == 2 else "json",
                "-q",
                "--set",
                f"models[2].file={variant}",
                "--set",
                f"bootstrap.seed={i + 1}",
            ]
        )
        assert code == 0
        docs.append(json.loads((out / "metrics.json").read_text(encoding="utf-8")))
    ginis = [d["models"]["naive"]["metrics"]["gini"] for d in docs]
    assert len(set(ginis)) == 3  # the --set values really changed the data

    runs = read(store)
    assert [r["run_id"] for r in runs] == [d["run"]["run_id"] for d in docs]
    assert [r["created"] for r in runs] == PINNED
    assert [r["inputs"][2]["sha256"] for r in runs] == [d["run"]["files"][2]["sha256"] for d in docs]
    for r, d in zip(runs, docs):
        got = {(p.subject, p.metric): p for p in r["numbers"]}
        for name, m in d["models"].items():
            for k in ("gini", "ks", "roc_auc"):
                assert got[(name, k)].value == m["metrics"][k] and list(got[(name, k)].ci) == m["ci"][k]
            assert got[(name, "default_rate")].value == m["positives"] / (m["positives"] + m["negatives"])
        for c in d["comparisons"]:
            p = got[(f"{c['model']} vs {c['baseline']}", "gini")]
            assert p.kind == "comparison" and p.value == c["delta"]["gini"] and list(p.ci) == c["ci"]["gini"]

    # the third report's trend: all three runs, oldest first, this run last; saved in metrics.json too
    trend = docs[2]["trend"]
    naive = [p for p in trend if p["subject"] == "naive" and p["metric"] == "gini"]
    assert [p["value"] for p in naive] == ginis and [p["created"] for p in naive] == PINNED
    assert [p["value"] for p in docs[0]["trend"] if p["subject"] == "naive" and p["metric"] == "gini"] == ginis[:1]
    html = (tmp_path / "out2" / "report.html").read_text(encoding="utf-8")
    section = html[html.index('<section id="trend">') :]
    section = section[: section.index("</section>")]
    # gini, ks, roc_auc, default rate, PSI (the demo's credit section), comparison deltas
    assert section.count('<table class="trend">') == 6 and "Population stability index" in section
    gini_table = section[: section.index("</table>")]
    assert gini_table.count("<tr") == 4 and gini_table.count('class="current"') == 1
    for run_id, g in zip([d["run"]["run_id"] for d in docs], ginis):
        assert run_id in gini_table and f"{g:.3f}".replace("-", "−") in gini_table

    # reportgen history: one line per run with its date; csv and json exports carry the numbers
    capsys.readouterr()
    assert cli(["history", str(store)]) == 0
    lines = capsys.readouterr().out.splitlines()
    assert len(lines) == 4 and lines[0].startswith("run_id") and "naive.gini" in lines[0]
    assert [ln.split()[1] for ln in lines[1:]] == PINNED
    assert cli(["history", str(store), "--format", "csv"]) == 0
    csv_text = capsys.readouterr().out
    frame = pd.read_csv(pd.io.common.StringIO(csv_text))
    assert list(frame["naive.gini"]) == ginis and list(frame["run_id"]) == [d["run"]["run_id"] for d in docs]
    assert list(frame["naive.gini_lo"]) == [d["models"]["naive"]["ci"]["gini"][0] for d in docs]
    assert cli(["history", str(store), "--format", "json"]) == 0
    doc = json.loads(capsys.readouterr().out)
    assert [r["created"] for r in doc] == PINNED and doc[1]["inputs"] == runs[1]["inputs"]


@pytest.mark.slow  # two appender processes: ~2 s
def test_two_concurrent_appenders_lose_nothing(tmp_path: Path, demo_run) -> None:
    """Two processes append 25 runs each, released at the same instant: 50 complete entries, none torn.

    The test holds the store's write lock (``BEGIN IMMEDIATE``) until both processes are waiting
    on it at their first append, so they really contend (a process that finished before the
    other started would test nothing); each entry carries its process and index in its run id."""
    store = tmp_path / "runs.sqlite"
    saved = demo_run.out / "metrics.json"
    first = ComparisonResult.from_json(json.loads(saved.read_text(encoding="utf-8")))
    append(store, first)  # creates the store, so that the test can hold its lock
    waiting = [tmp_path / f"waiting{k}" for k in range(2)]
    code = (
        "import dataclasses, json, sys; from pathlib import Path; from reportgen.history import append; "
        "from reportgen.results import ComparisonResult; "
        f"r = ComparisonResult.from_json(json.loads(Path({str(saved)!r}).read_text())); "
        "k = sys.argv[1]; Path(sys.argv[2]).touch(); "
        f"[append(Path({str(store)!r}), dataclasses.replace(r, run=dataclasses.replace(r.run, run_id=f'p{{k}}-{{i}}'))) "
        "for i in range(25)]"
    )
    env = {"PYTHONPATH": str(ROOT), "PATH": "/usr/bin:/bin"}
    lock = sqlite3.connect(store, isolation_level=None)
    lock.execute("BEGIN IMMEDIATE")
    try:
        procs = [
            subprocess.Popen([sys.executable, "-c", code, str(k), str(waiting[k])], env=env, stderr=subprocess.PIPE)
            for k in range(2)
        ]
        deadline = time.monotonic() + 120
        while not all(w.exists() for w in waiting) and time.monotonic() < deadline:
            time.sleep(0.05)
        time.sleep(0.5)  # both are now blocked in their first BEGIN IMMEDIATE (or about to be)
        assert all(p.poll() is None for p in procs), "an appender finished while the store was locked"
    finally:
        lock.execute("COMMIT")
        lock.close()
    for p in procs:
        _, err = p.communicate(timeout=300)
        assert p.returncode == 0, err.decode()
    runs = read(store)
    assert len(runs) == 51 and [r["seq"] for r in runs] == list(range(1, 52))
    ids = [r["run_id"] for r in runs[1:]]
    assert sorted(ids) == sorted(f"p{k}-{i}" for k in range(2) for i in range(25))
    for k in range(2):  # each process's entries in its own order
        assert [x for x in ids if x.startswith(f"p{k}-")] == [f"p{k}-{i}" for i in range(25)]
    per_run = {len(r["numbers"]) for r in runs}
    assert per_run == {len(runs[0]["numbers"])} and per_run != {0}
    assert all({p.run_id for p in r["numbers"]} == {r["run_id"]} for r in runs)


def test_a_store_another_run_creates_between_our_reads_is_not_taken_for_a_foreign_file(
    tmp_path: Path, demo_run, monkeypatch
) -> None:
    """Runs started together on a new store: one run read the layout (0, nothing yet), another
    created the store, then the first read its tables and called it 'not a reportgen history
    store (layout 0, tables numbers, runs)'. The layout and the tables are read in one snapshot
    now: the other run's creation lands before it (seen whole) or waits for it (not seen)."""
    import reportgen.history as H

    store = tmp_path / "new.sqlite"
    connect = sqlite3.connect
    injected: list[str] = []

    class Racing(sqlite3.Connection):
        def execute(self, sql, *args):  # type: ignore[override]
            if sql.startswith("SELECT name FROM sqlite_master") and not injected:  # after the layout's read
                other = connect(store, timeout=0, isolation_level=None)
                try:
                    other.executescript(
                        f"BEGIN IMMEDIATE; {H._SCHEMA} PRAGMA user_version = {H.STORE_VERSION}; COMMIT;"
                    )
                    injected.append("created")
                except sqlite3.OperationalError as exc:  # held off by this read's snapshot
                    assert "locked" in str(exc)
                    other.execute("ROLLBACK")
                    injected.append("waited")
                finally:
                    other.close()
            return super().execute(sql, *args)

    monkeypatch.setattr(sqlite3, "connect", lambda *a, **kw: connect(*a, factory=Racing, **kw))
    result = ComparisonResult.from_json(json.loads((demo_run.out / "metrics.json").read_text(encoding="utf-8")))
    append(store, result)
    assert injected in (["created"], ["waited"])
    monkeypatch.setattr(sqlite3, "connect", connect)
    assert len(read(store)) == 1


def test_a_file_that_is_not_a_store_is_one_line_exit_2(tmp_path: Path, cli, capsys) -> None:
    bad = tmp_path / "notes.txt"
    bad.write_text("not a database " * 100, encoding="utf-8")
    assert cli(["history", str(bad)]) == 2
    err = capsys.readouterr().err
    assert err.count("\n") == 1 and "not a reportgen history store" in err
    assert cli(["history", str(tmp_path / "none.sqlite")]) == 2
    assert "no history store here" in capsys.readouterr().err


@pytest.mark.parametrize(
    ("value", "expected"),
    [
        ('=HYPERLINK("http://x")', '\'=HYPERLINK("http://x")'),
        ("+1", "'+1"),
        ("-cmd", "'-cmd"),
        ("@SUM(A1)", "'@SUM(A1)"),
        ("\tx", "'\tx"),
        ("champion", "champion"),
        (-0.5, -0.5),
        (None, None),
        ("a=b", "a=b"),
    ],
)
def test_spreadsheet_cells_are_neutralised(value, expected) -> None:
    assert safe_cell(value) == expected


def test_csv_export_neutralises_a_hostile_model_name(tmp_path: Path, demo_run) -> None:
    doc = demo_run.metrics
    doc["models"] = {
        ("=cmd()" if k == "naive" else k): dict(v, name="=cmd()" if k == "naive" else k)
        for k, v in doc["models"].items()
    }
    doc["comparisons"] = [dict(c, model="=cmd()" if c["model"] == "naive" else c["model"]) for c in doc["comparisons"]]
    doc["pairwise"] = []
    result = ComparisonResult.from_json(doc)
    append(tmp_path / "h.sqlite", result)
    text = export(read(tmp_path / "h.sqlite"), "csv")
    assert "'=cmd().gini" in text and ",=cmd" not in text
