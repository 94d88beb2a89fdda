"""fairness: config and input errors are one line naming the key, the file and the column."""

from __future__ import annotations

from pathlib import Path

import pytest

from reportgen.config import load_config, parse_config
from reportgen.errors import ConfigError, InputError
from reportgen.reduce.fairness_rows import check_fairness

BASE = "label: y\nmodels: [{name: a, file: a.csv, score: s}]\n"


@pytest.mark.parametrize(
    ("extra", "message"),
    [
        ("fairness: {groups: []}\n", "fairness.groups"),
        ("fairness: {groups: [sex], reference: {age: '26-40'}}\n", "not among groups"),
        ("fairness: {groups: [sex, sex]}\n", "twice"),
        ("fairness: {groups: [sex], referense: {}}\n", "referense"),
    ],
)
def test_bad_fairness_blocks_are_config_errors(extra: str, message: str) -> None:
    with pytest.raises(ConfigError, match=message):
        parse_config(BASE + extra, "c.yaml")


def test_fairness_needs_a_binary_task() -> None:
    text = "task: multiclass\nlabel: y\nclasses: [a, b, c]\nmodels: [{name: m, file: a.csv, prediction: p}]\nfairness: {groups: [sex]}\n"
    with pytest.raises(ConfigError, match=r"fairness.*task: binary"):
        parse_config(text, "c.yaml")


def test_a_missing_group_column_names_the_key_file_and_columns(tmp_path: Path) -> None:
    (tmp_path / "a.csv").write_text("y,s,gender\n1,0.9,f\n0,0.1,m\n", encoding="utf-8")
    (tmp_path / "c.yaml").write_text(BASE + "fairness: {groups: [sex]}\n", encoding="utf-8")
    cfg, _ = load_config(tmp_path / "c.yaml")
    with pytest.raises(InputError, match=r"fairness\.groups\[0\].*'sex' not found in .*a\.csv.*columns: y, s, gender"):
        check_fairness(cfg)


def test_validate_counts_the_groups(tmp_path: Path) -> None:
    (tmp_path / "a.csv").write_text("y,s,sex\n1,0.9,f\n0,0.1,m\n0,0.2,x\n", encoding="utf-8")
    (tmp_path / "c.yaml").write_text(BASE + "fairness: {groups: [sex]}\n", encoding="utf-8")
    cfg, _ = load_config(tmp_path / "c.yaml")
    assert check_fairness(cfg) == "fairness columns checked (sex: 3 groups)"
