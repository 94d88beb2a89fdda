"""The library versions a run records (``run.versions``), read from each distribution's metadata
headers only: the same as :func:`importlib.metadata.version` (the oracle), without parsing the
long description."""

from __future__ import annotations

from importlib import metadata
from pathlib import Path

import pytest

from reportgen.pipeline import LIBRARIES, _installed_version, versions


def test_versions_are_importlib_metadatas() -> None:
    expected = {}
    for lib in LIBRARIES:
        try:
            expected[lib] = metadata.version(lib)
        except metadata.PackageNotFoundError:
            expected[lib] = "not installed"
    assert versions() == expected


def test_a_missing_distribution_is_not_installed() -> None:
    assert _installed_version("reportgen-no-such-distribution") == "not installed"


@pytest.mark.parametrize("layout", ["fake_dist-1.2.0.dist-info/METADATA", "fake_dist.egg-info/PKG-INFO"])
def test_the_version_header_not_a_line_of_the_description(
    layout: str, tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    path = tmp_path / layout
    path.parent.mkdir()
    path.write_text(
        "Metadata-Version: 2.1\nName: fake-dist\nVersion: 1.2.0\nSummary: x\n\n"
        "Version: 9.9 is not this distribution's version\n",
        encoding="utf-8",
    )
    monkeypatch.syspath_prepend(str(tmp_path))
    assert _installed_version("fake-dist") == metadata.version("fake-dist") == "1.2.0"
