"""The report sets of tests/renders.py are the ones the tests get, rendered once per test run.

pytest prefers a conftest's fixture to a plugin's of the same name, so a conftest fixture named
like one of tests/renders.py's silently replaces the shared set by its own: tests/conftest.py's
``demo_run`` rendered the demo (PDF included) once per xdist worker, not once per run.
"""

from __future__ import annotations

import ast
from pathlib import Path

TESTS = Path(__file__).resolve().parents[1]


def _fixtures(path: Path) -> set[str]:
    """The names of the module-level functions of ``path`` decorated as pytest fixtures."""
    tree = ast.parse(path.read_text(encoding="utf-8"))
    return {
        node.name
        for node in tree.body
        if isinstance(node, ast.FunctionDef) and any("fixture" in ast.unparse(d) for d in node.decorator_list)
    }


def test_no_conftest_fixture_shadows_a_shared_render() -> None:
    shared = _fixtures(TESTS / "renders.py")
    assert {"demo_run", "demo_pdf", "multiclass_run"} <= shared
    for conftest in sorted(TESTS.rglob("conftest.py")):
        assert not shared & _fixtures(conftest), f"{conftest} redefines {sorted(shared & _fixtures(conftest))}"
