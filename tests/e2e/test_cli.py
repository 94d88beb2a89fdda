"""The command line end to end: the demo run, its files and numbers, batches, exit codes.

The numbers in metrics.json are checked against scikit-learn computed here from the demo's own
data files, so the whole path config -> sources -> engine -> JSON is covered by an oracle.
"""

from __future__ import annotations

import json
import re
import signal
import subprocess
import sys
from pathlib import Path

import jsonschema
import numpy as np
import pandas as pd
import pytest
import yaml
from sklearn.metrics import (
    accuracy_score,
    average_precision_score,
    brier_score_loss,
    cohen_kappa_score,
    f1_score,
    log_loss,
    matthews_corrcoef,
    precision_score,
    recall_score,
    roc_auc_score,
)

ROOT = Path(__file__).resolve().parents[2]
DEMO_CONFIG = ROOT / "configs" / "demo.yaml"
PINNED_NOW = "2026-01-01T00:00:00Z"  # the clock the session's demo run (conftest) is pinned to
DEMO = yaml.safe_load(DEMO_CONFIG.read_text(encoding="utf-8"))


def _demo_frame(model: dict) -> pd.DataFrame:
    path = DEMO_CONFIG.parent / model["file"]
    return pd.read_parquet(path) if path.suffix == ".parquet" else pd.read_csv(path)


# ---- the demo, in-process (fast config: 50 bootstrap resamples) ---------------------------


def test_demo_run_writes_all_three_files(demo_pdf):
    assert demo_pdf.exit_code == 0
    for name in ("report.html", "report.pdf", "metrics.json"):
        assert (demo_pdf.out / name).stat().st_size > 0, name
    assert (demo_pdf.out / "report.pdf").read_bytes().startswith(b"%PDF")
    assert not [p for p in demo_pdf.out.iterdir() if p.name.startswith(".")], "temporary files left behind"


def test_metrics_json_validates_against_the_schema(demo_run, metrics_schema):
    jsonschema.Draft202012Validator.check_schema(metrics_schema)
    jsonschema.validate(demo_run.metrics, metrics_schema)


def test_schema_rejects_a_nan_string_and_a_missing_metric(demo_run, metrics_schema):
    broken = json.loads(json.dumps(demo_run.metrics))
    broken["models"]["challenger"]["metrics"]["roc_auc"] = "NaN"
    with pytest.raises(jsonschema.ValidationError):
        jsonschema.validate(broken, metrics_schema)
    broken = json.loads(json.dumps(demo_run.metrics))
    del broken["models"]["challenger"]["metrics"]["gini"]
    with pytest.raises(jsonschema.ValidationError):
        jsonschema.validate(broken, metrics_schema)


@pytest.mark.parametrize("model", DEMO["models"], ids=[m["name"] for m in DEMO["models"]])
def test_demo_numbers_match_scikit_learn(demo_run, model):
    """Every headline number of every demo model, recomputed by scikit-learn from the raw files."""
    df = _demo_frame(model)
    y = (df[DEMO["label"]] == DEMO["positive"]).to_numpy()
    s = df[model["score"]].to_numpy(dtype=float)
    lower = model.get("direction") == "lower"
    t = model.get("threshold", DEMO["threshold"])
    pred = (s <= t) if lower else (s >= t)
    ranking = -s if lower else s
    got = demo_run.metrics["models"][model["name"]]
    m = got["metrics"]
    assert got["n"] == len(df) and got["positives"] == y.sum()
    auc = roc_auc_score(y, ranking)
    want = {
        "roc_auc": auc,
        "gini": 2 * auc - 1,
        "average_precision": average_precision_score(y, ranking),
        "accuracy": accuracy_score(y, pred),
        "precision": precision_score(y, pred),
        "recall": recall_score(y, pred),
        "f1": f1_score(y, pred),
        "cohen_kappa": cohen_kappa_score(y, pred),
        "mcc": matthews_corrcoef(y, pred),
        "expected_cost": (DEMO["costs"]["fn"] * np.sum(~pred & y) + DEMO["costs"]["fp"] * np.sum(pred & ~y)) / len(y),
    }
    if not lower:  # probabilities
        want["log_loss"] = log_loss(y, s)
        want["brier"] = brier_score_loss(y, s)
    else:  # scorecard points: the Brier score and log-loss are its PD column's (credit: pd:)
        pd_col = df[model["pd"]].to_numpy(dtype=float)
        want["log_loss"] = log_loss(y, pd_col)
        want["brier"] = brier_score_loss(y, pd_col)
        assert got["metric_sources"] == {"brier": "pd_column", "log_loss": "pd_column"}
    for key, value in want.items():
        assert m[key] == pytest.approx(value, rel=1e-9, abs=1e-12), key
    c = got["confusion"]
    assert (c["tp"], c["fp"]) == (np.sum(pred & y), np.sum(pred & ~y))


def test_demo_comparison_against_the_baseline(demo_run):
    data = demo_run.metrics
    comps = {c["model"]: c for c in data["comparisons"]}
    assert set(comps) == {"challenger", "naive"} and all(c["baseline"] == "champion" for c in comps.values())
    ch, base = data["models"]["challenger"]["metrics"], data["models"]["champion"]["metrics"]
    c = comps["challenger"]
    assert c["delta"]["gini"] == pytest.approx(ch["gini"] - base["gini"], abs=1e-12)
    assert c["tests"]["delong"]["delta"] == pytest.approx(c["delta"]["gini"] / 2, abs=1e-12)
    rer = ((1 - base["accuracy"]) - (1 - ch["accuracy"])) / (1 - base["accuracy"])
    assert c["relative_error_reduction"] == pytest.approx(rer, rel=1e-12)
    lo, hi = c["ci"]["gini"]
    assert lo < c["delta"]["gini"] < hi
    assert "Gini" in c["verdict"] and "champion" in c["verdict"]


# ---- determinism, validate, batches, exit codes --------------------------------------------


@pytest.mark.slow
def test_pinned_clock_gives_byte_identical_html_and_json(demo_run, cli, tmp_path):
    out = tmp_path / "again"
    assert (
        cli(["run", str(demo_run.config), "--out", str(out), "--now", PINNED_NOW, "--format", "html,json", "--quiet"])
        == 0
    )
    for name in ("report.html", "metrics.json"):
        first = (demo_run.out / name).read_bytes()
        second = (out / name).read_bytes()
        # the run id and duration are the only things a second run may change
        a = json.loads(first) if name.endswith(".json") else None
        if a is not None:
            b = json.loads(second)
            for d in (a, b):
                d["run"].pop("duration_seconds", None)
            assert a == b
        else:  # the audit trail names each run's output directory (issue 40)
            assert first.count(b'<tr class="provenance">') == 1
            strip = re.compile(rb'<tr class="provenance">.*?</tr>')
            assert strip.sub(b"", first) == strip.sub(b"", second)


def test_validate_checks_and_writes_nothing(fast_demo_config, cli, tmp_path, capsys, monkeypatch):
    monkeypatch.chdir(tmp_path)
    assert cli(["validate", str(fast_demo_config)]) == 0
    assert "ok" in capsys.readouterr().out.lower()
    assert list(tmp_path.iterdir()) == []


def test_bad_config_is_exit_2_with_one_line_and_no_traceback(tmp_path, cli, capsys):
    cfg = tmp_path / "bad.yaml"
    cfg.write_text("title: x\nlabel: y\nthreshhold: 0.5\nmodels: [{name: a, file: a.csv, score: s}]\n")
    assert cli(["run", str(cfg), "--out", str(tmp_path / "out")]) == 2
    err = capsys.readouterr().err
    assert len(err.strip().splitlines()) == 1 and "Traceback" not in err
    assert "threshhold" in err and "threshold" in err  # the unknown key and the closest valid one
    assert not (tmp_path / "out").exists()


def test_batch_writes_each_config_to_its_own_dir_and_returns_the_worst_code(fast_config_factory, cli, tmp_path, capsys):
    good = fast_config_factory(tmp_path / "good.yaml", bootstrap={"resamples": 0})
    bad = tmp_path / "broken.yaml"
    bad.write_text("title: [unclosed\n")
    out = tmp_path / "batch"
    assert cli(["run", str(good), str(bad), "--out", str(out), "--format", "json", "--now", PINNED_NOW]) == 2
    captured = capsys.readouterr()
    assert (out / "good" / "metrics.json").exists()
    assert not (out / "broken").exists()
    assert "broken.yaml" in captured.err and "Traceback" not in captured.err


def test_version_and_help(cli, capsys):
    from reportgen import __version__

    with pytest.raises(SystemExit) as exc:
        cli(["--version"])
    assert exc.value.code == 0 and __version__ in capsys.readouterr().out
    with pytest.raises(SystemExit) as exc:
        cli(["run", "--help"])
    assert exc.value.code == 0 and "--format" in capsys.readouterr().out


@pytest.mark.slow
def test_console_script_runs_as_a_process(fast_config_factory, tmp_path):
    """The installed entry point (not only main()) exits 0 and says where it wrote."""
    cfg = fast_config_factory(tmp_path / "proc.yaml", bootstrap={"resamples": 0})
    proc = subprocess.run(
        [sys.executable, "-m", "reportgen", "run", str(cfg), "--out", str(tmp_path / "o"), "--format", "json"],
        capture_output=True,
        text=True,
        timeout=300,
    )
    assert proc.returncode == 0, proc.stderr
    assert str(tmp_path / "o" / "metrics.json") in proc.stdout


def test_a_minimal_multiclass_config_runs_end_to_end(tmp_path, cli):
    """Prediction column only, string labels, a class never predicted: exit 0 and a warning."""
    (tmp_path / "m.csv").write_text("y,p\na,a\nb,b\nc,a\na,a\nb,a\n")
    cfg = tmp_path / "multi.yaml"
    cfg.write_text(
        "title: m\ntask: multiclass\nlabel: y\nbootstrap: {resamples: 20}\n"
        "models: [{name: a, file: m.csv, prediction: p}]\n"
    )
    assert cli(["run", str(cfg), "--out", str(tmp_path / "out"), "--format", "html,json"]) == 0
    data = json.loads((tmp_path / "out" / "metrics.json").read_text())
    assert any("never predicts class(es) 'c'" in w for w in data["run"]["warnings"])
    assert data["models"]["a"]["confusion_matrix"] == {
        "labels": ["a", "b", "c"],
        "matrix": [[2, 0, 0], [1, 1, 0], [1, 0, 0]],
    }
    assert data["models"]["a"]["metrics"]["accuracy"] == 0.6


def test_every_template_is_shipped_in_the_wheel():
    """Regression: templates/sections/*.html were missing from the wheel, so an installed
    reportgen (not an editable one) failed on its first report."""
    import fnmatch
    import tomllib

    project = tomllib.loads((ROOT / "pyproject.toml").read_text(encoding="utf-8"))
    data = project["tool"]["setuptools"]["package-data"]
    # each template directory is a package with its own globs (reportgen.templates.sections: *.html)
    globs = [g for g in data["reportgen.templates"]]
    globs += [
        f"{pkg.split('.', 2)[2].replace('.', '/')}/{g}"
        for pkg in data
        if pkg.startswith("reportgen.templates.")
        for g in data[pkg]
    ]
    templates = ROOT / "templates"
    for path in templates.rglob("*"):
        if path.is_file() and path.suffix not in (".py", ".pyc"):
            rel = path.relative_to(templates).as_posix()
            assert any(fnmatch.fnmatch(rel, g) and rel.count("/") == g.count("/") for g in globs), rel


def test_the_command_reads_with_the_system_allocator_unless_told(fast_demo_config, cli, monkeypatch):
    """`reportgen run` / `validate` put pyarrow on the system allocator (mimalloc hands freed
    pages back at once and the next buffers fault them in again: ~1 s of a three-model 10M-row
    run); an explicit ARROW_DEFAULT_MEMORY_POOL is left alone."""
    import pyarrow as pa

    before = pa.default_memory_pool()
    try:
        monkeypatch.setenv("ARROW_DEFAULT_MEMORY_POOL", "mimalloc")
        pa.set_memory_pool(pa.mimalloc_memory_pool())
        assert cli(["validate", str(fast_demo_config)]) == 0
        assert pa.default_memory_pool().backend_name == "mimalloc"
        monkeypatch.delenv("ARROW_DEFAULT_MEMORY_POOL")
        assert cli(["validate", str(fast_demo_config)]) == 0
        assert pa.default_memory_pool().backend_name == "system"
        import os

        assert os.environ["ARROW_DEFAULT_MEMORY_POOL"] == "system"  # worker processes inherit it
    finally:
        pa.set_memory_pool(before)


@pytest.mark.parametrize(
    ("argv", "words"),
    [
        (["run", "x.yaml", "--format", "html,zzz"], "argument --format: unknown format 'zzz'"),
        (["run", "x.yaml", "--engine", "spark"], "argument --engine: invalid choice: 'spark'"),
        (["render"], "the following arguments are required: METRICS_JSON"),
        (["run", "x.yaml", "--bogus\nline"], "unrecognized arguments: --bogus line"),
    ],
)
def test_a_command_line_mistake_is_one_line_exit_2_not_a_usage_block(cli, capsys, argv, words):
    """argparse printed its usage block (seven lines) before the error."""
    with pytest.raises(SystemExit) as exc:
        cli(argv)
    err = capsys.readouterr().err
    assert exc.value.code == 2 and len(err.splitlines()) == 1, err
    assert err.startswith("reportgen: error: ") and words in err and "--help'" in err


@pytest.mark.parametrize("signum", [signal.SIGTERM, signal.SIGINT])
def test_a_signal_while_pyarrow_is_imported_is_one_line_not_a_traceback(signum, tmp_path, capsys, monkeypatch):
    """SIGTERM half a second into ``reportgen run`` arrived while ``_arrow_allocator`` imported
    pyarrow, outside every command's guard: a traceback and exit 1 instead of 143 and one line."""
    from reportgen import cli as cli_mod
    from reportgen.signals import on_signal

    monkeypatch.setattr(cli_mod, "_arrow_allocator", lambda: on_signal(signum))
    code = cli_mod.main(["run", str(tmp_path / "q.yaml")])
    err = capsys.readouterr().err
    assert code == 128 + signum
    assert err == (
        f"reportgen: error: {tmp_path / 'q.yaml'}: interrupted by {signal.Signals(signum).name}; "
        f"nothing was written, the previous report is intact\n"
    )


@pytest.mark.slow
def test_a_read_only_home_gives_matplotlib_a_cache_outside_the_private_directory(tmp_path: Path) -> None:
    """With a home that cannot be written (a read-only container), matplotlib made its temporary
    cache inside the command's private temporary directory, which the command removed: its own
    removal at exit then printed a 7-line FileNotFoundError traceback after a successful run.
    Now the run is silent under --quiet, and leaves no temporary directory behind."""
    rng = np.random.default_rng(4)
    y = rng.random(300) < 0.3
    pd.DataFrame({"y": y.astype(int), "s": np.round(rng.random(300) * 0.5 + 0.4 * y, 3)}).to_csv(
        tmp_path / "a.csv", index=False
    )
    (tmp_path / "c.yaml").write_text(
        yaml.safe_dump(
            {
                "title": "t",
                "label": "y",
                "bootstrap": {"resamples": 0},
                "output": {"formats": ["html"]},
                "models": [{"name": "a", "file": "a.csv", "score": "s"}],
            }
        ),
        encoding="utf-8",
    )
    (tmp_path / "home").write_text("")  # a file: nothing can be made under it
    (tmp_path / "tmp").mkdir()
    env = {k: v for k, v in __import__("os").environ.items() if not k.startswith(("MPL", "XDG_"))}
    env.update(HOME=str(tmp_path / "home"), TMPDIR=str(tmp_path / "tmp"), PYTHONPATH=str(ROOT))
    proc = subprocess.run(
        [sys.executable, "-m", "reportgen", "run", str(tmp_path / "c.yaml"), "--quiet", "--out", str(tmp_path / "out")],
        capture_output=True,
        text=True,
        env=env,
        timeout=300,
    )
    assert (proc.returncode, proc.stderr) == (0, "")
    assert (tmp_path / "out" / "report.html").is_file()
    assert list((tmp_path / "tmp").iterdir()) == []
