"""Where ``output.dir`` goes (issue 18): relative to the config file, not the working directory.

Airflow's BashOperator runs a task in a temporary working directory and deletes it afterwards:
the default ``reports/{config}`` resolved there vanished with it. Every relative path in a
config (data files, the logo, the theme, now the output) resolves against the config file's
directory; ``--out`` on the command line stays relative to the working directory.
"""

from __future__ import annotations

import yaml

from reportgen import cli


def write_config(folder, **output):
    folder.mkdir(parents=True)
    (folder / "a.csv").write_text("y,s\n0,0.1\n1,0.9\n0,0.3\n1,0.7\n", encoding="utf-8")
    cfg = {
        "title": "t",
        "label": "y",
        "bootstrap": {"resamples": 0},
        "output": {"formats": ["json"], **output},
        "models": [{"name": "a", "file": "a.csv", "score": "s"}],
    }
    path = folder / "q3.yaml"
    path.write_text(yaml.safe_dump(cfg), encoding="utf-8")
    return path


def test_default_output_dir_resolves_against_the_config_not_a_temporary_working_directory(
    tmp_path, monkeypatch, capsys
):
    cfg = write_config(tmp_path / "dags" / "configs")
    task_cwd = tmp_path / "airflowtmp123"
    task_cwd.mkdir()
    monkeypatch.chdir(task_cwd)
    assert cli.main(["run", str(cfg)]) == 0
    report = tmp_path / "dags" / "configs" / "reports" / "q3" / "metrics.json"
    assert report.is_file()
    assert list(task_cwd.iterdir()) == []  # nothing left in the directory the scheduler deletes
    wrote = [x for x in capsys.readouterr().out.splitlines() if " wrote " in x]
    assert wrote == [f"{cfg}: wrote {report}"]


def test_relative_output_dir_in_the_config_and_out_on_the_command_line(tmp_path, monkeypatch, capsys):
    cfg = write_config(tmp_path / "proj", dir="../shared/{config}")
    monkeypatch.chdir(tmp_path / "proj")
    assert cli.main(["run", str(cfg)]) == 0
    assert (tmp_path / "shared" / "q3" / "metrics.json").is_file()
    elsewhere = tmp_path / "elsewhere"
    elsewhere.mkdir()
    monkeypatch.chdir(elsewhere)
    assert cli.main(["run", str(cfg), "--out", "here"]) == 0  # a command-line path: the working directory
    assert (elsewhere / "here" / "metrics.json").is_file()
