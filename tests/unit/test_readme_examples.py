"""The README's examples cannot rot: every ```yaml block parses and validates, both by the config
loader and by the shipped JSON Schema an editor checks it against, and every option the "Command
line" section lists exists on its command.

A block that is a whole config (it names its ``label``) is checked as written; a fragment (the SQL
source, ``history:``, ``checks:``) is checked inside the big example of "Config", whose keys it
replaces (a model the one of its name), as a reader would paste it.
"""

from __future__ import annotations

import json
import re
from pathlib import Path

import jsonschema
import pytest
import yaml

import reportgen
import reportgen.config as config
from reportgen.cli import build_parser

ROOT = Path(__file__).resolve().parents[2]
README = (ROOT / "README.md").read_text(encoding="utf-8")
BLOCKS = re.findall(r"^```yaml\n(.*?)^```", README, re.S | re.M)
ENV = {"RUN_DATE": "2026-03-01", "DB_PASSWORD": "not-a-secret"}


def _big_example() -> dict:
    """The first whole config of the README: the one under "Config" that shows every key."""
    whole = [yaml.safe_load(b) for b in BLOCKS if isinstance(yaml.safe_load(b), dict) and "label" in yaml.safe_load(b)]
    return whole[0]


@pytest.mark.parametrize("index", range(len(BLOCKS)))
def test_every_yaml_block_of_the_readme_validates(index: int) -> None:
    block = BLOCKS[index]
    data = yaml.safe_load(block)
    if data is None:  # the yaml-language-server line: it points at the shipped schema
        target = block.strip().split("$schema=", 1)[1]
        # the repository's copy (the package may be installed elsewhere: its copy must be the same file)
        assert (ROOT / "configs" / target).resolve() == (ROOT / "reportgen" / "schema" / "config.schema.json").resolve()
        assert (ROOT / "configs" / target).read_bytes() == config.SCHEMA_FILE.read_bytes()
        return
    if "label" not in data:  # a fragment: in the big example, in place of its keys (a model: of its name)
        big = _big_example()
        mine = {m["name"]: m for m in data.get("models", [])}
        data = {**big, **data, "models": [mine.get(m["name"], m) for m in big["models"]]}
        block = yaml.safe_dump(data, sort_keys=False, allow_unicode=True)
    cfg = config.parse_config(block, f"README block {index}", environ=ENV)
    assert cfg.models
    schema = json.loads(config.SCHEMA_FILE.read_text(encoding="utf-8"))
    jsonschema.Draft202012Validator(schema).validate(data)


def test_the_readme_shows_the_blocks_it_is_checked_by() -> None:
    """The fragments this module merges are where the README puts them (a moved block is a loud
    failure here, not a silently skipped check)."""
    keys = [set(yaml.safe_load(b) or {}) for b in BLOCKS]
    assert {"history"} in keys and {"checks"} in keys and {"models"} in keys
    assert sum("label" in k for k in keys) >= 3  # Config's example, the monthly job, Multiclass
    big = _big_example()
    assert {"credit", "segment", "output", "report", "constraints", "approval_rates"} <= set(big)


def _command_line_block() -> str:
    section = README.split("## Command line", 1)[1]
    return section.split("```", 2)[1]


def test_every_option_of_the_command_line_section_exists() -> None:
    parser = build_parser()
    subparsers = next(a for a in parser._actions if a.choices and "run" in a.choices).choices  # noqa: SLF001
    seen = 0
    for line in _command_line_block().splitlines():
        m = re.match(r"reportgen (\w+)\s(.*?)(?:#|$)", line.strip())
        if m is None:
            continue
        options = set(re.findall(r"(--[a-z][a-z-]*)", m.group(2)))
        known = {s for a in subparsers[m.group(1)]._actions for s in a.option_strings}  # noqa: SLF001
        assert options <= known, (line, options - known)
        seen += len(options)
    assert seen >= 15


def test_the_readme_says_write_report_replaces_by_default():
    # the library's write_report replaced an existing report (overwrite=True by default) where the
    # README's only word on it was the command line's "never replaced silently"
    import inspect  # noqa: PLC0415

    assert inspect.signature(reportgen.write_report).parameters["overwrite"].default is True
    assert "`write_report` replaces the report set already in the directory (`overwrite=True` by default" in README
