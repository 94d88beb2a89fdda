"""The libraries' versions a run records (``run.versions``) read from the metadata headers equal
``importlib.metadata.version``'s, which parses the whole file."""

from importlib import metadata

import pytest

from reportgen import pipeline


def test_versions_are_the_metadata_versions(monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setattr(pipeline, "LIBRARIES", (*pipeline.LIBRARIES, "surely-not-a-distribution-xyz"))
    got = pipeline.versions()
    for lib in pipeline.LIBRARIES[:-1]:
        try:
            want = metadata.version(lib)
        except metadata.PackageNotFoundError:
            want = "not installed"
        assert got[lib] == want, lib
    assert got["surely-not-a-distribution-xyz"] == "not installed"
