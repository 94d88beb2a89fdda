"""Install hints name the real distribution: ``reportgen`` on PyPI is an unrelated package, so a
hint like ``pip install 'reportgen[sql]'`` would install someone else's code. Every message,
docstring and shipped schema of the package says ``classifier-comparison-report[...]``."""

from __future__ import annotations

import re
import tomllib
from pathlib import Path

ROOT = Path(__file__).resolve().parents[2]
PACKAGE = ROOT / "reportgen"
WRONG = re.compile(r"reportgen\[")


def test_no_file_of_the_package_or_its_schemas_names_reportgen_extras() -> None:
    files = [*PACKAGE.rglob("*.py"), *PACKAGE.rglob("*.json"), *(ROOT / "templates").rglob("*.html")]
    assert len(files) > 50
    offenders = [
        f"{p.relative_to(ROOT)}:{n}"
        for p in files
        for n, line in enumerate(p.read_text(encoding="utf-8").splitlines(), 1)
        if WRONG.search(line)
    ]
    assert offenders == []


def test_every_extra_a_hint_names_exists() -> None:
    """A hint's extra is one pyproject.toml declares (a renamed extra would leave hints that fail)."""
    extras = set(
        tomllib.loads((ROOT / "pyproject.toml").read_text(encoding="utf-8"))["project"]["optional-dependencies"]
    )
    named = {
        m.group(1)
        for p in PACKAGE.rglob("*.py")
        for m in re.finditer(r"classifier-comparison-report\[(\w+)\]", p.read_text(encoding="utf-8"))
    }
    assert {"sql", "xlsx", "dask"} <= named <= extras
