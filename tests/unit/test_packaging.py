"""Packaging (issue 21): a free distribution name, floors for every dependency, one version
source, py.typed and a licence in the wheel, a command line that imports nothing heavy.

The floors themselves are installed and the demo rendered by ``.ci/floors`` (CI's second step);
here: that every dependency has a floor that script can pin, and the wheel's declared contents.
"""

from __future__ import annotations

import json
import re
import runpy
import subprocess
import sys
import tomllib
from pathlib import Path

import pytest

ROOT = Path(__file__).resolve().parents[2]
PYPROJECT = tomllib.loads((ROOT / "pyproject.toml").read_text(encoding="utf-8"))

#: What ``reportgen --help`` / ``--version`` must not load (pandas alone was 0.5 s and 150 MB).
HEAVY = ("pandas", "numpy", "matplotlib", "pyarrow", "weasyprint", "pydantic", "jinja2", "yaml", "scipy")


def _loaded_after(code: str) -> list[str]:
    """Top-level packages in HEAVY that a fresh interpreter has imported after running ``code``."""
    probe = f"import sys\n{code}\nimport json\nprint(json.dumps(sorted(m for m in {HEAVY!r} if m in sys.modules)))"
    out = subprocess.run(
        [sys.executable, "-c", probe],
        capture_output=True,
        text=True,
        cwd=ROOT,
        check=True,
        env={"PYTHONPATH": str(ROOT), "PATH": "/usr/bin:/bin"},
    )
    return json.loads(out.stdout.strip().splitlines()[-1])


@pytest.mark.parametrize("argv", [["--help"], ["--version"], ["run", "--help"], ["render", "--help"]])
def test_cli_help_and_version_import_nothing_heavy(argv: list[str]) -> None:
    code = (
        f"import contextlib, io\nfrom reportgen.cli import main\n"
        f"with contextlib.redirect_stdout(io.StringIO()):\n"
        f"    try:\n        main({argv!r})\n    except SystemExit:\n        pass"
    )
    assert _loaded_after(code) == []


@pytest.mark.slow  # imports the package in fresh interpreters: ~6 s
def test_importing_the_package_imports_nothing_heavy_until_a_name_is_used() -> None:
    assert _loaded_after("import reportgen; reportgen.__version__; reportgen.ConfigError") == []
    assert "pandas" in _loaded_after("import reportgen; reportgen.compare_frames")


def test_the_distribution_name_is_not_the_taken_reportgen_but_the_command_and_package_are() -> None:
    project = PYPROJECT["project"]
    # 'reportgen' on PyPI is an unrelated package (0.1.8): with --extra-index-url pip would take it
    assert project["name"] == "classifier-comparison-report"
    assert project["scripts"] == {"reportgen": "reportgen.cli:entrypoint"}
    assert "reportgen" in PYPROJECT["tool"]["setuptools"]["packages"]


def test_one_version_source() -> None:
    from reportgen.pipeline import reportgen_version
    from reportgen.version import __version__

    assert PYPROJECT["project"]["dynamic"] == ["version"] and "version" not in PYPROJECT["project"]
    assert PYPROJECT["tool"]["setuptools"]["dynamic"]["version"] == {"attr": "reportgen.version.__version__"}
    # the run records the code's version, not the metadata of whatever is installed as "reportgen"
    assert reportgen_version() == __version__
    import reportgen

    assert reportgen.__version__ == __version__


def test_every_dependency_has_a_floor_the_ci_can_pin() -> None:
    floors = runpy.run_path(str(ROOT / ".ci" / "floors.py"))["floors"](ROOT / "pyproject.toml")
    names = {d.split(">=")[0].split("[")[0].strip().lower() for d in PYPROJECT["project"]["dependencies"]}
    assert set(floors) == names
    # 60.2, 61.2 and 62.3 crash at the PDF step with a current pydyf (issue 21)
    assert tuple(int(x) for x in floors["weasyprint"].split(".")) >= (63,)


def test_the_floors_script_refuses_a_dependency_without_a_floor(tmp_path: Path) -> None:
    bad = tmp_path / "pyproject.toml"
    bad.write_text('[project]\nname = "x"\ndependencies = ["numpy>=1.24", "pandas"]\n', encoding="utf-8")
    with pytest.raises(SystemExit, match="'pandas' has no '>=' floor"):
        runpy.run_path(str(ROOT / ".ci" / "floors.py"))["floors"](bad)


def test_ci_runs_the_floors_job() -> None:
    run = (ROOT / ".ci" / "run").read_text(encoding="utf-8")
    assert ".ci/floors" in run.split("pytest", 1)[1]


def test_py_typed_licence_and_package_data_are_declared() -> None:
    assert (ROOT / "reportgen" / "py.typed").is_file()
    licence = (ROOT / "LICENSE").read_text(encoding="utf-8")
    assert licence.startswith("MIT License") and PYPROJECT["project"]["license"] == "MIT"
    data = PYPROJECT["tool"]["setuptools"]["package-data"]
    assert "py.typed" in data["reportgen"]
    assert "*.json" in data["reportgen.schema"] and "*.html" in data["reportgen.templates"]


# ---- templates and extras as packaged ----------------------------------------------------------------------------------------


def test_every_template_directory_is_a_declared_package():
    # setuptools warned at every build that 'reportgen.templates.sections' is importable but not in
    # `packages` ("Package would be ignored"): its templates were shipped only as data of the parent
    config = tomllib.loads((ROOT / "pyproject.toml").read_text(encoding="utf-8"))["tool"]["setuptools"]
    assert "reportgen.templates.sections" in config["packages"]
    assert config["package-data"]["reportgen.templates.sections"] == ["*.html"]


def test_the_readme_installs_extras_under_the_distribution_name():
    # the README warned never to `pip install reportgen` (an unrelated PyPI package), then said
    # `pip install 'reportgen[sql]'` (and [xlsx], [dask]) for the extras
    readme = (ROOT / "README.md").read_text(encoding="utf-8")
    assert not re.search(r"pip install '?reportgen\[", readme)
    for extra in ("sql", "xlsx", "dask"):
        assert f"classifier-comparison-report[{extra}]" in readme
