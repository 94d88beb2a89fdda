"""``--summary-json`` (issue 42): the last line of stdout is one JSON object a scheduler keeps
(Airflow's XCom takes the last line), with ``--quiet`` too and on failure; it follows
``reportgen/schema/summary.schema.json`` and holds no secret."""

from __future__ import annotations

import json
from pathlib import Path

import jsonschema
import numpy as np
import pandas as pd
import pytest
import yaml

from reportgen.summary import SCHEMA_FILE, Summary

SCHEMA = json.loads(SCHEMA_FILE.read_text(encoding="utf-8"))


def _config(tmp: Path, name: str = "q.yaml", **extra) -> Path:
    rng = np.random.default_rng(8)
    n = 300
    y = (rng.random(n) < 0.3).astype(int)
    pd.DataFrame(
        {
            "id": np.arange(n),
            "y": y,
            "a": np.round(0.3 * y + 0.7 * rng.random(n), 3),
            "b": np.round(0.2 * y + 0.8 * rng.random(n), 3),
        }
    ).to_csv(tmp / "p.csv", index=False)
    cfg = {
        "title": "t",
        "label": "y",
        "id": "id",
        "baseline": "a",
        "bootstrap": {"resamples": 20, "seed": 1},
        "models": [{"name": "a", "file": "p.csv", "score": "a"}, {"name": "b", "file": "p.csv", "score": "b"}],
        "output": {"dir": f"out-{Path(name).stem}", "formats": ["json"]},
        **extra,
    }
    path = tmp / name
    path.write_text(yaml.safe_dump(cfg, sort_keys=False), encoding="utf-8")
    return path


def _summary(out: str) -> dict:
    """The last line of stdout, parsed and checked against the schema."""
    assert out.endswith("\n"), out
    doc = json.loads(out.splitlines()[-1])
    jsonschema.validate(doc, SCHEMA)
    return doc


def test_quiet_run_prints_only_the_summary_with_paths_verdicts_and_checks(cli, tmp_path: Path, capsys) -> None:
    cfg = _config(
        tmp_path,
        checks=[{"model": "b", "metric": "gini", "at_least": 0.99}, {"comparison": "b", "must_not_be": "worse"}],
    )
    assert cli(["run", str(cfg), "-q", "--summary-json"]) == 3
    out = capsys.readouterr().out
    assert out.count("\n") == 1  # --quiet: the summary alone
    doc = _summary(out)
    assert (doc["command"], doc["exit_code"], doc["exit_reason"], doc["error"]) == ("run", 3, "check_failed", None)
    (entry,) = doc["results"]
    metrics_json = tmp_path / "out-q" / "metrics.json"
    assert entry["written"] == {"metrics.json": str(metrics_json)} and doc["written"] == [str(metrics_json)]
    saved = json.loads(metrics_json.read_text(encoding="utf-8"))
    decision = saved["comparisons"][0]["decision"]
    assert entry["run_id"] == saved["run"]["run_id"] and entry["baseline"] == "a"
    assert entry["verdicts"] == {
        "b": {
            "metric": "gini",
            "direction": decision["direction"],
            "significant": decision["significant"],
            "delta": decision["delta"],
            "ci": decision["ci"],
            "p_value_adjusted": decision["p_value_adjusted"],
        }
    }
    assert [c["passed"] for c in entry["checks"]] == [c["passed"] for c in saved["checks"]]
    assert entry["checks"][0]["passed"] is False and entry["checks_passed"] is False


def test_the_summary_is_the_last_line_after_the_usual_ones(cli, tmp_path: Path, capsys) -> None:
    cfg = _config(tmp_path)
    assert cli(["run", str(cfg), "--summary-json"]) == 0
    out = capsys.readouterr().out
    assert "wrote" in out.splitlines()[0]
    doc = _summary(out)
    assert (doc["exit_code"], doc["exit_reason"]) == (0, "ok") and doc["results"][0]["checks_passed"] is None


def test_a_failed_run_gives_the_reason_and_no_paths(cli, tmp_path: Path, capsys) -> None:
    cfg = _config(tmp_path)
    (tmp_path / "p.csv").write_text("id,y,a,b\n1,1,0.5,\n", encoding="utf-8")
    assert cli(["run", str(cfg), "-q", "--summary-json"]) == 2
    captured = capsys.readouterr()
    doc = _summary(captured.out)
    assert (doc["exit_code"], doc["exit_reason"], doc["written"]) == (2, "user_error", [])
    assert doc["error"] == captured.err.strip().removeprefix("reportgen: error: ")
    assert "p.csv: row 2" in doc["error"]
    assert doc["results"] == [
        {"source": str(cfg), "exit_code": 2, "exit_reason": "user_error", "error": doc["error"], "written": {}}
    ]


def test_several_configs_are_listed_in_order_the_exit_code_the_worst(cli, tmp_path: Path, capsys) -> None:
    good = _config(tmp_path, "good.yaml")
    missing = tmp_path / "missing.yaml"
    assert cli(["run", str(good), str(missing), "-q", "--summary-json"]) == 2
    doc = _summary(capsys.readouterr().out)
    assert [(e["source"], e["exit_reason"]) for e in doc["results"]] == [
        (str(good), "ok"),
        (str(missing), "user_error"),
    ]
    assert doc["written"] == [str(tmp_path / "out-good" / "metrics.json")] and "missing.yaml" in doc["error"]


def test_an_error_before_any_config_is_the_summarys_error(cli, tmp_path: Path, capsys) -> None:
    assert cli(["run", str(_config(tmp_path)), "--now", "yesterday", "-q", "--summary-json"]) == 2
    captured = capsys.readouterr()
    doc = _summary(captured.out)
    assert doc["error"] == captured.err.strip().removeprefix("reportgen: error: ") and "--now" in doc["error"]
    assert (doc["exit_reason"], doc["results"], doc["written"]) == ("user_error", [], [])


def test_refused_arguments_still_end_with_the_summary(cli, tmp_path: Path, capsys) -> None:
    with pytest.raises(SystemExit) as exc:
        cli(["run", "x.yaml", "--bogus", "--summary-json"])
    assert exc.value.code == 2
    doc = _summary(capsys.readouterr().out)
    assert (doc["command"], doc["exit_code"], doc["exit_reason"], doc["results"]) == ("run", 2, "user_error", [])


@pytest.mark.slow  # renders the HTML report
def test_validate_and_render_summaries(cli, tmp_path: Path, capsys, no_figures) -> None:
    # the summary line is read, never the HTML: rendered without figures
    cfg = _config(tmp_path)
    assert cli(["validate", str(cfg), "--summary-json"]) == 0
    doc = _summary(capsys.readouterr().out)
    assert (doc["command"], doc["exit_reason"], doc["results"][0]["source"]) == ("validate", "ok", str(cfg))
    assert cli(["run", str(cfg), "-q"]) == 0
    capsys.readouterr()
    saved = tmp_path / "out-q" / "metrics.json"
    assert cli(["render", str(saved), "--format", "html", "--out", str(tmp_path / "html"), "-q", "--summary-json"]) == 0
    doc = _summary(capsys.readouterr().out)
    assert doc["results"][0]["written"]["report.html"] == str(tmp_path / "html" / "report.html")
    assert "b" in doc["results"][0]["verdicts"]


def test_no_secret_reaches_the_summary() -> None:
    """Every string is masked as the messages are: a URI's password, a secret query value."""
    s = Summary("run", ["q.yaml"])
    s.failed("q.yaml", 2, "q.yaml: cannot reach postgresql://u:hunter2@db/x?sslpassword=s3cret&token=abc")
    line = s.line(2)
    assert "hunter2" not in line and "s3cret" not in line and "abc" not in line
    assert json.loads(line)["error"].startswith("q.yaml: cannot reach postgresql://u:***@db/x")


def test_a_non_finite_number_is_null() -> None:
    s = Summary("run")
    s.entries.append({"source": "q.yaml", "exit_code": 0, "exit_reason": "ok", "error": None, "x": float("nan")})
    assert json.loads(s.line(0))["results"][0]["x"] is None
