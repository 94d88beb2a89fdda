"""``reportgen --help`` sends a user to the documentation by the project's URL, read from the
installed package's metadata (a pip user has no README.md)."""

from __future__ import annotations

import tomllib
from importlib import metadata
from pathlib import Path

import pytest

from reportgen import cli

ROOT = Path(__file__).resolve().parents[2]


def test_the_help_names_the_documentation_url_of_the_package_metadata() -> None:
    try:
        urls = metadata.metadata(cli.DISTRIBUTION).get_all("Project-URL") or []
    except metadata.PackageNotFoundError:
        pytest.skip("the distribution is not installed")
    declared = tomllib.loads((ROOT / "pyproject.toml").read_text(encoding="utf-8"))["project"]["urls"]["Documentation"]
    if not any(u.endswith(declared) for u in urls):
        pytest.skip("installed metadata predates [project.urls]; reinstall the package")
    text = " ".join(cli.build_parser().format_help().split())
    assert f"Documentation: {declared}" in text and "README.md" not in text
    assert "Exit codes: 0 success" in text


def test_without_metadata_the_help_still_names_where_to_look(monkeypatch: pytest.MonkeyPatch) -> None:
    def missing(name: str) -> None:
        raise metadata.PackageNotFoundError(name)

    monkeypatch.setattr(metadata, "metadata", missing)
    line = cli.documentation_line()
    assert line.startswith("Documentation:") and cli.DISTRIBUTION in line
