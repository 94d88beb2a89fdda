"""MLflow logging (issue 42): one MLflow run per report against real tracking stores (a SQLite
backend, and an ``mlflow server`` on 127.0.0.1 started here), with the report's numbers; a
logging failure is one line and exit 4, the report intact."""

from __future__ import annotations

import json
import os
import signal
import socket
import subprocess
import sys
import time
import urllib.request
from pathlib import Path

import pytest
import yaml

NOW = "2026-01-01T00:00:00Z"


def _config(factory, path: Path, **overrides) -> Path:
    return factory(path, bootstrap={"resamples": 20, "seed": 7}, **overrides)


def _only_run(uri: str, experiment: str):
    from mlflow.tracking import MlflowClient  # 3 s to import: not at collection

    client = MlflowClient(tracking_uri=uri)
    exp = client.get_experiment_by_name(experiment)
    assert exp is not None
    runs = client.search_runs([exp.experiment_id])
    assert len(runs) == 1
    return client, runs[0]


def _artifacts(client, run_id: str) -> set[str]:
    return {a.path for a in client.list_artifacts(run_id)}


def _check_run(client, run, doc: dict) -> None:
    """The MLflow run holds the report's numbers, config, run id and input hashes."""
    metrics, params, tags = run.data.metrics, run.data.params, run.data.tags
    for name, m in doc["models"].items():
        assert metrics[f"{name}.gini"] == m["metrics"]["gini"]
    for c in doc["comparisons"]:
        stem = f"{c['model']}_vs_{c['baseline']}.gini"
        assert metrics[f"{stem}.delta"] == c["delta"]["gini"]
        assert metrics[f"{stem}.p_adjusted"] == c["decision"]["p_value_adjusted"]
    assert params["bootstrap.resamples"] == "20"
    assert params["models.1.name"] == "challenger"
    assert tags["reportgen.run_id"] == doc["run"]["run_id"]
    assert tags["reportgen.input.0.sha256"] == doc["run"]["files"][0]["sha256"]
    assert run.info.status == "FINISHED"


@pytest.mark.slow
@pytest.mark.pdf
def test_a_config_with_mlflow_leaves_one_run_with_each_gini_and_report_pdf(
    tmp_path, fast_config_factory, cli, no_figures
) -> None:
    uri = f"sqlite:///{tmp_path / 'store' / 'mlflow.db'}"
    (tmp_path / "store").mkdir()
    cfg = _config(
        fast_config_factory,
        tmp_path / "c.yaml",
        mlflow={"tracking_uri": uri, "experiment": "e", "tags": {"team": "risk"}},
        report={"sections": ["summary"]},
    )  # the PDF is logged, not read: one section, no figures
    out = tmp_path / "out"
    assert cli(["run", str(cfg), "--out", str(out), "--now", NOW, "--format", "json,pdf"]) == 0
    doc = json.loads((out / "metrics.json").read_text(encoding="utf-8"))
    client, run = _only_run(uri, "e")
    _check_run(client, run, doc)
    assert run.data.tags["team"] == "risk"
    assert _artifacts(client, run.info.run_id) == {"report.pdf", "metrics.json"}
    # the artifacts of an experiment reportgen creates on a SQLite store: beside the database
    assert (tmp_path / "store" / "mlartifacts").is_dir()


@pytest.fixture(scope="module")
def mlflow_server(tmp_path_factory):
    """``mlflow server`` on 127.0.0.1 at a free port (SQLite backend, proxied artifacts), started
    in its own process group and torn down with it (SIGTERM, then SIGKILL).

    Without MLflow's job execution (``MLFLOW_SERVER_ENABLE_JOB_EXECUTION=false``, MLflow's own
    setting): by default the server also starts a job runner and seven huey consumers, each a
    Python process importing mlflow, for GenAI jobs reportgen never submits (about 20 of the
    fixture's 30 CPU-seconds)."""
    home = tmp_path_factory.mktemp("mlflow-server")
    with socket.socket() as s:
        s.bind(("127.0.0.1", 0))
        port = s.getsockname()[1]
    log = (home / "server.log").open("wb")
    proc = subprocess.Popen(
        [
            sys.executable,
            "-m",
            "mlflow",
            "server",
            "--host",
            "127.0.0.1",
            "--port",
            str(port),
            "--backend-store-uri",
            f"sqlite:///{home / 'mlflow.db'}",
            "--artifacts-destination",
            str(home / "artifacts"),
            "--workers",
            "1",
        ],
        stdout=log,
        stderr=subprocess.STDOUT,
        start_new_session=True,
        cwd=home,
        env={**os.environ, "MLFLOW_SERVER_ENABLE_JOB_EXECUTION": "false"},
    )
    url = f"http://127.0.0.1:{port}"
    try:
        deadline = time.monotonic() + 300  # 61 s and 98 s measured under a load of 15-17 on 2 cores
        while True:
            try:
                with urllib.request.urlopen(f"{url}/health", timeout=2) as r:
                    if r.status == 200:
                        break
            except OSError:
                pass
            assert proc.poll() is None, (home / "server.log").read_text(errors="replace")[-2000:]
            assert time.monotonic() < deadline, "mlflow server did not start in 300 s"
            time.sleep(0.1)
        yield url
    finally:
        try:
            os.killpg(proc.pid, signal.SIGTERM)
            proc.wait(timeout=15)
        except ProcessLookupError:
            pass
        except subprocess.TimeoutExpired:
            os.killpg(proc.pid, signal.SIGKILL)
            proc.wait(timeout=15)
        log.close()


@pytest.mark.slow
def test_dash_dash_mlflow_logs_to_a_tracking_server_over_http(
    tmp_path, fast_config_factory, cli, mlflow_server
) -> None:
    cfg = _config(fast_config_factory, tmp_path / "q3.yaml")
    out = tmp_path / "out"
    assert (
        cli(["run", str(cfg), "--out", str(out), "--now", NOW, "--format", "json,csv", "--mlflow", mlflow_server]) == 0
    )
    doc = json.loads((out / "metrics.json").read_text(encoding="utf-8"))
    client, run = _only_run(mlflow_server, "q3")  # the experiment: the config's name
    _check_run(client, run, doc)
    assert _artifacts(client, run.info.run_id) == {p.name for p in out.iterdir()}


def _free_port() -> int:
    with socket.socket() as s:
        s.bind(("127.0.0.1", 0))
        return s.getsockname()[1]


def _failed_run(tmp_path: Path, factory, cli, capsys, uri: str) -> tuple[int, list[str], Path]:
    cfg = _config(factory, tmp_path / "c.yaml", mlflow={"tracking_uri": uri, "experiment": "e"})
    out = tmp_path / "out"
    code = cli(["run", str(cfg), "--out", str(out), "--now", NOW, "--format", "json"])
    err = [line for line in capsys.readouterr().err.splitlines() if line.startswith("reportgen: error")]
    return code, err, out


@pytest.mark.slow
def test_an_unreachable_server_is_one_line_and_exit_4_with_the_report_intact(
    tmp_path, fast_config_factory, cli, capsys, monkeypatch
) -> None:
    monkeypatch.setenv("MLFLOW_HTTP_REQUEST_MAX_RETRIES", "0")  # MLflow's own retries, cut for the test
    code, err, out = _failed_run(tmp_path, fast_config_factory, cli, capsys, f"http://127.0.0.1:{_free_port()}")
    assert code == 4
    assert len(err) == 1 and "MLflow http://127.0.0.1:" in err[0] and "the report was written" in err[0], err
    assert sorted(p.name for p in out.iterdir()) == ["metrics.json"]
    json.loads((out / "metrics.json").read_text(encoding="utf-8"))


@pytest.mark.slow
def test_mlflow_not_installed_is_one_line_naming_the_extra(
    tmp_path, fast_config_factory, cli, capsys, monkeypatch
) -> None:
    for name in [m for m in sys.modules if m == "mlflow" or m.startswith("mlflow.")]:
        monkeypatch.delitem(sys.modules, name)
    monkeypatch.setitem(sys.modules, "mlflow", None)  # import mlflow raises ImportError
    code, err, out = _failed_run(tmp_path, fast_config_factory, cli, capsys, f"sqlite:///{tmp_path / 'm.db'}")
    assert code == 4
    assert len(err) == 1 and "pip install 'classifier-comparison-report[mlflow]'" in err[0], err
    assert (out / "metrics.json").is_file()


def test_a_credential_in_the_tracking_uri_is_refused_without_echoing_it(
    tmp_path, fast_config_factory, cli, capsys
) -> None:
    cfg = _config(
        fast_config_factory,
        tmp_path / "c.yaml",
        mlflow={"tracking_uri": "https://u:hunter2@mlflow.example/", "experiment": "e"},
    )
    assert cli(["run", str(cfg), "--out", str(tmp_path / "out")]) == 2
    err = capsys.readouterr().err
    assert "mlflow.tracking_uri" in err and "MLFLOW_TRACKING_PASSWORD" in err and "hunter2" not in err
    assert not (tmp_path / "out").exists()


def test_params_are_the_config_as_written_never_a_secret(tmp_path, fast_config_factory) -> None:
    from reportgen.config import load_config
    from reportgen.tracking import MAX_PARAM_VALUE, flat_params

    cfg_path = _config(fast_config_factory, tmp_path / "c.yaml")
    raw = yaml.safe_load(cfg_path.read_text(encoding="utf-8"))
    raw["title"] = "${REPORT_TITLE}"
    cfg_path.write_text(yaml.safe_dump(raw), encoding="utf-8")
    os.environ["REPORT_TITLE"] = "expanded title"
    try:
        cfg, _ = load_config(cfg_path)
    finally:
        del os.environ["REPORT_TITLE"]
    long = {"url": "postgresql://u:s3cret@h/db?sslpassword=p4ss&x=1", "author": "x" * 7000}
    params = flat_params({**cfg.as_written(), **long})
    assert params["title"] == "${REPORT_TITLE}"
    assert params["url"] == "postgresql://u:***@h/db?sslpassword=***&x=1"
    assert len(params["author"]) == MAX_PARAM_VALUE and params["author"].endswith("…")
    assert params["models.0.direction"] == "lower" and params["bootstrap.seed"] == "7"
    assert params["checks"] == "[]" and params["history"] == "null"


def test_metric_names_are_made_of_what_mlflow_accepts() -> None:
    from reportgen.tracking import mlflow_name

    assert mlflow_name("challenger v2") == "challenger v2"
    assert mlflow_name("a/../b") == "a_.._b"
    assert mlflow_name("pd(%)=new") == "pd____new"
    assert mlflow_name("") == "_"


def test_a_relative_tracking_store_is_relative_to_the_config() -> None:
    from reportgen.tracking import tracking_uri

    base = Path("/srv/models")
    assert tracking_uri("sqlite:///runs/mlflow.db", base) == "sqlite:////srv/models/runs/mlflow.db"
    assert tracking_uri("sqlite:////abs/mlflow.db", base) == "sqlite:////abs/mlflow.db"
    assert tracking_uri("mlruns", base) == "file:///srv/models/mlruns"
    assert tracking_uri("http://mlflow:5000", base) == "http://mlflow:5000"


def test_log_run_without_mlflow_raises_one_line_naming_the_extra(monkeypatch) -> None:
    import numpy as np
    import pandas as pd

    import reportgen
    from reportgen.config import MlflowConfig
    from reportgen.errors import TrackingError
    from reportgen.tracking import log_run

    result = reportgen.compare_frames(
        pd.DataFrame({"y": [0, 1] * 20, "s": np.linspace(0, 1, 40)}),
        label="y",
        scores=["s"],
        bootstrap={"resamples": 0},
    )
    monkeypatch.setitem(sys.modules, "mlflow", None)  # import mlflow raises ImportError
    with pytest.raises(
        TrackingError,
        match=r"^logging to MLflow needs mlflow: pip install "
        r"'classifier-comparison-report\[mlflow\]'$",
    ) as caught:
        log_run(result, [], MlflowConfig(tracking_uri="sqlite:///m.db", experiment="e"))
    assert caught.value.exit_code == 4
