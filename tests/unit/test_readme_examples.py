"""The examples of the README and of the documentation site (``docs/**/*.md``) cannot rot.

- Every ```yaml block parses and validates, both by the config loader and by the shipped JSON
  Schema an editor checks it against. A block that is a whole config (it names its ``label``) is
  checked as written; a fragment (``checks:``, ``history:``, ...) is checked inside the big
  example of the configuration reference, whose keys it replaces (a model the one of its name;
  a model of another name is added), as a reader would paste it.
- Every ``reportgen`` command in a shell block (bash, sh, console, cron) names a command that
  exists, and every option it gives exists on that command.
- Every ```python block compiles and every ```json block parses.
"""

from __future__ import annotations

import json
import re
import shlex
import textwrap
from pathlib import Path

import jsonschema
import pytest
import yaml

import reportgen
import reportgen.config as config
from reportgen.cli import build_parser

ROOT = Path(__file__).resolve().parents[2]
PAGES = [
    ROOT / "README.md",
    *sorted(
        p
        for p in (ROOT / "docs").rglob("*.md")
        if not {"_build", "_generated"} & set(p.relative_to(ROOT / "docs").parts)
    ),
]
ENV = {"RUN_DATE": "2026-03-01", "DB_PASSWORD": "not-a-secret"}
SHELLS = ("bash", "sh", "shell", "console", "cron")
FENCE = re.compile(r"^( *)```(\w+)[^\n]*\n(.*?)^\1```", re.S | re.M)


def _blocks(*languages: str) -> list[tuple[str, str]]:
    """(where, text) of every fenced block in one of ``languages``, indentation removed."""
    found = []
    for page in PAGES:
        text = page.read_text(encoding="utf-8")
        for n, m in enumerate(b for b in FENCE.finditer(text) if b.group(2) in languages):
            found.append((f"{page.relative_to(ROOT)}#{n}", textwrap.dedent(m.group(3))))
    return found


YAML = _blocks("yaml")
SHELL = _blocks(*SHELLS)
README_YAML = [b for w, b in YAML if w.startswith("README.md")]


def _big_example() -> dict:
    """The configuration reference's example that shows most keys: the base of every fragment."""
    whole = [yaml.safe_load(b) for w, b in YAML if w.startswith("docs/reference/configuration.md")]
    return next(d for d in whole if isinstance(d, dict) and "label" in d and "credit" in d)


@pytest.mark.parametrize("where, block", YAML, ids=[w for w, _ in YAML])
def test_every_yaml_block_validates(where: str, block: str) -> None:
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
        models = [mine.pop(m["name"], m) for m in big["models"]] + list(mine.values())
        data = {**big, **data, "models": models}
        block = yaml.safe_dump(data, sort_keys=False, allow_unicode=True)
    cfg = config.parse_config(block, where, environ=ENV)
    assert cfg.models
    schema = json.loads(config.SCHEMA_FILE.read_text(encoding="utf-8"))
    jsonschema.Draft202012Validator(schema).validate(data)


def test_the_pages_show_the_blocks_they_are_checked_by() -> None:
    """The blocks this module relies on are where it looks (a moved block is a loud failure here,
    not a silently skipped check)."""
    assert len(README_YAML) >= 1 and "label" in yaml.safe_load(README_YAML[0])
    keys = [set(yaml.safe_load(b) or {}) for _, b in YAML]
    assert {"history"} in keys and {"checks"} in keys
    assert sum("label" in k for k in keys) >= 8
    big = _big_example()
    assert {"credit", "segment", "output", "report", "constraints", "approval_rates"} <= set(big)
    assert len(SHELL) >= 10


def _subparsers() -> dict:
    parser = build_parser()
    return next(a for a in parser._actions if a.choices and "run" in a.choices).choices


def _commands(block: str) -> list[list[str]]:
    """The ``reportgen`` command lines of a shell block, as tokens after ``reportgen``: each line
    (a trailing backslash joins the next) cut at ``;``, ``&&``, ``||`` and ``|``, the words after
    a word that is ``reportgen`` or a path to it (behind ``VAR=value`` assignments or a crontab's
    schedule; a quoted message that mentions reportgen is one word, not the command)."""
    found = []
    for line in block.replace("\\\n", " ").splitlines():
        for segment in re.split(r"\s*(?:;|&&|\|\||\|)\s*", line):
            try:
                tokens = shlex.split(segment, comments=True)
            except ValueError:  # an unbalanced quote across a cut: the segment's own words
                tokens = segment.split("#", 1)[0].split()
            at = [i for i, t in enumerate(tokens) if t.rsplit("/", 1)[-1] == "reportgen"]  # a quoted word is one token
            if at:
                found.append(tokens[at[0] + 1 :])
    return found


def test_every_reportgen_command_in_a_shell_block_exists() -> None:
    subparsers = _subparsers()
    top = {s for a in build_parser()._actions for s in a.option_strings}
    seen = 0
    for where, block in SHELL:
        for args in _commands(block):
            options = {m.group(1) for a in args if (m := re.match(r"^\[?(--?[A-Za-z][\w-]*)", a))}
            if args and not args[0].startswith(("-", "[")):
                assert args[0] in subparsers, (where, args)
                known = {s for a in subparsers[args[0]]._actions for s in a.option_strings}
            else:
                known = top
            assert options <= known, (where, args, options - known)
            seen += 1
    assert seen >= 25


def test_the_command_parser_reads_the_forms_the_pages_use() -> None:
    """The splitter finds commands behind pip, assignments, paths and in a crontab line, and not
    the word in an echoed message."""
    assert _commands("pip install . && reportgen run configs/demo.yaml") == [["run", "configs/demo.yaml"]]
    cron = (
        "0 6 2 * * RUN_DATE=$(date -d 'last month' +\\%Y-\\%m-01) /opt/reportgen/bin/reportgen run m.yaml -q; "
        "echo 'a reportgen gate failed'"
    )
    assert _commands(cron) == [["run", "m.yaml", "-q"]]
    assert _commands("reportgen history S [--format text|csv|json]")[0] == ["history", "S", "[--format", "text"]


@pytest.mark.parametrize("where, block", _blocks("python"), ids=[w for w, _ in _blocks("python")])
def test_every_python_block_compiles(where: str, block: str) -> None:
    compile(block, where, "exec")


@pytest.mark.parametrize("where, block", _blocks("json"), ids=[w for w, _ in _blocks("json")])
def test_every_json_block_parses(where: str, block: str) -> None:
    assert isinstance(json.loads(block), dict)


def test_the_api_page_says_write_report_replaces_by_default() -> None:
    # the library's write_report replaced an existing report (overwrite=True by default) where the
    # only word on it was the command line's "never replaced silently"
    import inspect

    assert inspect.signature(reportgen.write_report).parameters["overwrite"].default is True
    page = " ".join((ROOT / "docs" / "reference" / "api.md").read_text(encoding="utf-8").split())
    assert "`write_report` replaces the report set already in the directory (`overwrite=True` by default" in page
