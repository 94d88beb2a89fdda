"""``reportgen init DATAFILE`` (issue 21): a commented starter config guessed from the columns,
valid as written (``reportgen validate`` accepts it, the config schema too)."""

from __future__ import annotations

import json
from pathlib import Path

import jsonschema
import numpy as np
import pandas as pd
import yaml

from reportgen.config import SCHEMA_FILE, load_config

ROOT = Path(__file__).resolve().parents[2]


def _init(cli, data: Path, out: Path, *extra: str) -> int:
    return cli(["init", str(data), "--out", str(out), "--quiet", *extra])


def test_the_demo_scorecard_gives_a_config_that_validates(cli, tmp_path: Path) -> None:
    out = tmp_path / "starter.yaml"
    assert _init(cli, ROOT / "configs" / "data" / "champion_scorecard.csv", out) == 0
    text = out.read_text(encoding="utf-8")
    data = yaml.safe_load(text)
    assert (data["label"], data["positive"], data["id"], data["date"]) == (
        "default_flag",
        1,
        "application_id",
        "application_date",
    )
    # the scorecard's points and its PD mapping (the credit section's pd column) are both score columns
    models = {m["score"]: m for m in data["models"]}
    assert set(models) == {"score_points", "pd_points"}
    model = models["score_points"]
    # scorecard points: high = safe, so lower scores go with a default; its own threshold
    assert model["score"] == "score_points" and model["direction"] == "lower" and 300 < model["threshold"] < 900
    assert "sample AUC 0.7" in text and "# Every value below is a guess" in text
    jsonschema.validate(data, json.loads(SCHEMA_FILE.read_text(encoding="utf-8")))
    assert cli(["validate", str(out), "--quiet"]) == 0
    cfg, _ = load_config(out)
    assert all(m.file.resolve() == cfg.models[0].file.resolve() for m in cfg.models)
    assert cfg.models[0].file.resolve() == (ROOT / "configs" / "data" / "champion_scorecard.csv").resolve()


def test_text_labels_weights_and_a_reversed_score(cli, tmp_path: Path) -> None:
    rng = np.random.default_rng(5)
    n = 500
    bad = rng.random(n) < 0.2
    df = pd.DataFrame(
        {
            "segment": rng.choice(["a", "b", "c"], n),
            "outcome": np.where(bad, "yes", "no"),
            "p_model": np.round(np.clip(0.3 * bad + rng.normal(0.3, 0.15, n), 0, 1), 4),
            "points": np.round(700 - 120 * bad + rng.normal(0, 60, n)),
            "weight": rng.integers(1, 5, n),
        }
    )
    data = tmp_path / "holdout.csv"
    df.to_csv(data, index=False)
    out = tmp_path / "cfg" / "starter.yaml"
    out.parent.mkdir()
    assert _init(cli, data, out) == 0
    text = out.read_text(encoding="utf-8")
    cfg = yaml.safe_load(text)
    assert cfg["label"] == "outcome" and cfg["positive"] == "yes"
    assert "id" not in cfg and "# id: null" in text  # no unique id column: by position
    assert "weight" not in cfg and '# weight: "weight"' in text  # suggested, not switched on
    models = {m["name"]: m for m in cfg["models"]}
    assert set(models) == {"p_model", "points"}
    assert models["p_model"].get("direction", "higher") == "higher" and "threshold" not in models["p_model"]
    assert models["points"]["direction"] == "lower" and "threshold" in models["points"]
    assert models["points"]["file"] == "../holdout.csv"  # relative to the config's directory
    assert cli(["validate", str(out), "--quiet"]) == 0


def test_no_label_and_an_existing_file_are_one_line_errors(cli, tmp_path: Path, capsys) -> None:
    data = tmp_path / "scores.csv"
    pd.DataFrame({"a": [0.1, 0.2, 0.3], "b": [1, 2, 3]}).to_csv(data, index=False)
    assert _init(cli, data, tmp_path / "x.yaml") == 2
    err = capsys.readouterr().err
    assert "no column has exactly two distinct values" in err and err.count("\n") == 1
    existing = tmp_path / "exists.yaml"
    existing.write_text("keep me\n", encoding="utf-8")
    good = ROOT / "configs" / "data" / "naive.csv"
    assert _init(cli, good, existing) == 2
    assert "already exists; pass --overwrite" in capsys.readouterr().err
    assert existing.read_text(encoding="utf-8") == "keep me\n"
    assert _init(cli, good, existing, "--overwrite") == 0
    assert yaml.safe_load(existing.read_text(encoding="utf-8"))["label"] == "default_flag"


def test_a_missing_file_is_exit_2(cli, tmp_path: Path, capsys) -> None:
    assert _init(cli, tmp_path / "nope.csv", tmp_path / "x.yaml") == 2
    assert "file not found" in capsys.readouterr().err


def test_column_names_and_labels_from_the_data_stay_data_in_the_config(cli, tmp_path: Path, monkeypatch) -> None:
    """A column named ``${HOME}`` was written as ``"${HOME}"`` and read back as the home
    directory (``${NOPE}``: "environment variable NOPE is not set", so the starter config did
    not validate as written); a label with a line break (a quoted CSV cell) ended the comment
    that lists the labels, and the rest of it became config keys."""
    monkeypatch.delenv("NOPE_Q", raising=False)
    rng = np.random.default_rng(3)
    df = pd.DataFrame(
        {
            "id": range(40),
            "target": ["ok", "bad\nmodels: []\ntitle: injected"] * 20,
            "${HOME}": rng.random(40),
            "${NOPE_Q}": rng.random(40),
        }
    )
    df.to_csv(tmp_path / "e.csv", index=False)
    out = tmp_path / "e.yaml"
    assert _init(cli, tmp_path / "e.csv", out) == 0
    cfg, _ = load_config(out)
    assert [m.score for m in cfg.models] == ["${HOME}", "${NOPE_Q}"]
    assert cfg.title == "Model comparison: e" and cfg.label == "target"
    assert cli(["validate", str(out), "--quiet"]) == 0


def test_a_control_character_in_a_column_name_stays_escaped_in_the_one_line_error(cli, tmp_path: Path, capsys) -> None:
    """The column list was joined raw: a NUL byte of a binary header went to the terminal as is."""
    data = tmp_path / "nul.csv"
    data.write_bytes(b"y,s\x00\n1,0.5\n0,0.2\n")
    assert _init(cli, data, tmp_path / "x.yaml") == 2
    err = capsys.readouterr().err
    assert err.count("\n") == 1 and err[:-1].isprintable() and "(columns: y, 's\\x00')" in err, err


def test_a_probability_that_half_does_not_split_gets_its_own_threshold(cli, tmp_path: Path, capsys) -> None:
    """The demo's naive model scores at most 0.434: the starter wrote threshold 0.5, and the first
    run warned that it lies outside the scores. A probability 0.5 does not split gets the sample
    quantile that flags as many rows as there are positives, as a score outside [0, 1] does."""
    out = tmp_path / "starter.yaml"
    assert _init(cli, ROOT / "configs" / "data" / "naive.csv", out) == 0
    cfg = yaml.safe_load(out.read_text(encoding="utf-8"))
    df = pd.read_csv(ROOT / "configs" / "data" / "naive.csv")
    model = cfg["models"][0]
    scores = df[model["score"]]
    assert scores.max() < 0.5 and scores.min() < model["threshold"] < scores.max()
    flagged = (scores >= model["threshold"]).mean()
    positives = (df[cfg["label"]] == cfg["positive"]).mean()
    assert abs(flagged - positives) < 0.05
    capsys.readouterr()
    assert cli(["run", str(out), "--out", str(tmp_path / "out"), "--format", "json"]) == 0
    assert "outside the scores" not in capsys.readouterr().err


def test_a_date_column_is_found_by_its_values_or_a_credit_name(cli, tmp_path: Path) -> None:
    """`as_of` and `snapshot` (credit data's usual names) and an unnamed column of ISO dates are
    the report's date column; a text column that is not dates is not (before, only names with
    date/time/month/period were tried, so `as_of` was missed)."""
    rng = np.random.default_rng(2)
    n = 400
    bad = rng.random(n) < 0.2
    days = pd.to_datetime("2025-01-01") + pd.to_timedelta(rng.integers(0, 365, n), unit="D")
    for column, values, expected in [
        ("as_of", days.strftime("%Y-%m-%d"), "as_of"),
        ("snapshot", days.strftime("%Y-%m-%d %H:%M:%S"), "snapshot"),
        ("booked", days.strftime("%Y-%m-%d"), "booked"),
        ("branch", rng.choice(["north", "south"], n), None),
    ]:
        df = pd.DataFrame(
            {
                "default_flag": bad.astype(int),
                column: values,
                "p": np.round(np.clip(0.3 * bad + rng.normal(0.3, 0.15, n), 0, 1), 4),
            }
        )
        data = tmp_path / f"{column}.csv"
        df.to_csv(data, index=False)
        out = tmp_path / f"{column}.yaml"
        assert _init(cli, data, out) == 0
        cfg = yaml.safe_load(out.read_text(encoding="utf-8"))
        assert cfg.get("date") == expected, column
        assert cli(["validate", str(out), "--quiet"]) == 0
