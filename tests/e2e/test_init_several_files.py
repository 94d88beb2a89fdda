"""``reportgen init FILE...`` (issue 42): several files give one model per file, named by the file,
the first the baseline, the label shared, a shared unique id written as ``id:`` (the models are
paired), and the config runs as written."""

from __future__ import annotations

import gzip
import json
from pathlib import Path

import numpy as np
import pandas as pd
import pytest
import yaml


def _files(tmp: Path, names: tuple[str, ...] = ("champion", "challenger", "naive"), n: int = 300) -> list[Path]:
    """One file per model: the same accounts (each file in its own row order), label and a PD."""
    rng = np.random.default_rng(4)
    y = (rng.random(n) < 0.3).astype(int)
    ids = rng.permutation(n) + 1000
    paths = []
    for k, name in enumerate(names):
        df = pd.DataFrame(
            {
                "account_id": ids,
                "default_flag": y,
                "pd": np.round(np.clip(0.1 * (3 - k) * y + 0.6 * rng.random(n), 0, 1), 4),
            }
        )
        path = tmp / f"{name}.csv"
        df.sample(frac=1, random_state=k).to_csv(path, index=False)
        paths.append(path)
    return paths


def _init(cli, out: Path, *data: Path) -> int:
    return cli(["init", *map(str, data), "-o", str(out), "-q"])


def test_three_files_give_three_paired_models_the_first_the_baseline(cli, tmp_path: Path, capsys) -> None:
    a, b, c = _files(tmp_path)
    c_gz = c.with_name("naive.csv.gz")
    c_gz.write_bytes(gzip.compress(c.read_bytes()))
    out = tmp_path / "cfg.yaml"
    assert _init(cli, out, a, b, c_gz) == 0
    text = out.read_text(encoding="utf-8")
    cfg = yaml.safe_load(text)
    assert [(m["name"], m["file"], m["score"]) for m in cfg["models"]] == [
        ("champion", "champion.csv", "pd"),
        ("challenger", "challenger.csv", "pd"),
        ("naive", "naive.csv.gz", "pd"),
    ]
    assert (cfg["label"], cfg["positive"], cfg["id"], cfg["baseline"]) == ("default_flag", 1, "account_id", "champion")
    assert "# the first file's model" in text
    capsys.readouterr()
    run = ["run", str(out), "--out", str(tmp_path / "r"), "--format", "json", "--set", "bootstrap.resamples=20", "-q"]
    assert cli(run) == 0, capsys.readouterr().err
    doc = json.loads((tmp_path / "r" / "metrics.json").read_text(encoding="utf-8"))
    assert set(doc["models"]) == {"champion", "challenger", "naive"}
    assert doc["run"]["paired"] is True  # joined by the id: every comparison is paired
    assert all(m["n"] == 300 for m in doc["models"].values())


@pytest.mark.slow
@pytest.mark.pdf
def test_the_written_config_runs_as_written(cli, tmp_path: Path, monkeypatch, no_figures) -> None:
    """``reportgen init a.csv b.csv c.csv -o cfg.yaml && reportgen run cfg.yaml``: exit 0, the
    config's own output (HTML, PDF, JSON) beside it (which files, not what they show: no figures)."""
    files = _files(tmp_path, ("a", "b", "c"))
    monkeypatch.chdir(tmp_path)
    assert cli(["init", "a.csv", "b.csv", "c.csv", "-o", "cfg.yaml"]) == 0
    assert cli(["run", "cfg.yaml", "-q"]) == 0
    written = {p.name for p in (tmp_path / "reports" / "cfg").iterdir()}
    assert {"report.html", "report.pdf", "metrics.json"} <= written
    assert all(f.exists() for f in files)


def test_files_without_a_shared_unique_id_are_matched_by_position(cli, tmp_path: Path) -> None:
    a, b = _files(tmp_path, ("a", "b"))
    pd.read_csv(b).drop(columns="account_id").to_csv(b, index=False)
    out = tmp_path / "cfg.yaml"
    assert _init(cli, out, a, b) == 0
    text = out.read_text(encoding="utf-8")
    assert "id" not in yaml.safe_load(text) and "# id: null  # no id column unique in every file" in text


def test_a_file_of_several_numeric_columns_gives_its_score_named_column(cli, tmp_path: Path) -> None:
    a, b = _files(tmp_path, ("a", "b"))
    df = pd.read_csv(b)
    df.insert(2, "income", np.arange(len(df)) * 10.0)
    df.rename(columns={"pd": "score"}).to_csv(b, index=False)
    out = tmp_path / "cfg.yaml"
    assert _init(cli, out, a, b) == 0
    text = out.read_text(encoding="utf-8")
    assert [m["score"] for m in yaml.safe_load(text)["models"]] == ["pd", "score"]
    assert "other numeric columns: income" in text


def _one_line(capsys) -> str:
    err = capsys.readouterr().err
    assert err.count("\n") == 1 and "Traceback" not in err, err
    return err


def test_files_with_different_label_columns_are_one_line(cli, tmp_path: Path, capsys) -> None:
    a, b = _files(tmp_path, ("a", "b"))
    pd.read_csv(b).rename(columns={"default_flag": "target"}).to_csv(b, index=False)
    assert _init(cli, tmp_path / "cfg.yaml", a, b) == 2
    err = _one_line(capsys)
    assert f"{b}: its label column looks like 'target', but {a}'s is 'default_flag'" in err, err
    assert not (tmp_path / "cfg.yaml").exists()


def test_a_file_without_a_score_column_is_one_line(cli, tmp_path: Path, capsys) -> None:
    a, b = _files(tmp_path, ("a", "b"))
    pd.read_csv(b).drop(columns="pd").assign(segment="x").to_csv(b, index=False)
    assert _init(cli, tmp_path / "cfg.yaml", a, b) == 2
    assert f"{b}: no numeric score column besides the label 'default_flag'" in _one_line(capsys)


def test_an_existing_config_and_a_file_given_twice_are_one_line(cli, tmp_path: Path, capsys) -> None:
    a, b = _files(tmp_path, ("a", "b"))
    out = tmp_path / "cfg.yaml"
    out.write_text("keep\n", encoding="utf-8")
    assert _init(cli, out, a, b) == 2
    assert "cfg.yaml: already exists; pass --overwrite" in _one_line(capsys)
    assert out.read_text(encoding="utf-8") == "keep\n"
    assert _init(cli, tmp_path / "new.yaml", a, b, a) == 2
    assert f"{a}: given twice" in _one_line(capsys)


def test_two_files_of_one_name_get_distinct_model_names(cli, tmp_path: Path) -> None:
    (tmp_path / "q1").mkdir()
    (tmp_path / "q2").mkdir()
    a = _files(tmp_path / "q1", ("scores",))[0]
    b = _files(tmp_path / "q2", ("scores",))[0]
    out = tmp_path / "cfg.yaml"
    assert _init(cli, out, a, b) == 0
    assert [m["name"] for m in yaml.safe_load(out.read_text(encoding="utf-8"))["models"]] == ["scores", "scores_2"]


def test_the_default_config_is_named_by_the_first_file(cli, tmp_path: Path, monkeypatch) -> None:
    _files(tmp_path, ("a", "b"))
    (tmp_path / "a.csv.gz").write_bytes(gzip.compress((tmp_path / "a.csv").read_bytes()))
    monkeypatch.chdir(tmp_path)
    assert cli(["init", "a.csv.gz", "b.csv", "-q"]) == 0
    assert (tmp_path / "a.yaml").exists()
