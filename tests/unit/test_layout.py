"""The package's shape (issue 15): imports point forward, no cycles, no private names across modules.

Read from the source with ``ast`` (nothing is imported): an edge is any ``from reportgen... import``
at any level of a module, including imports inside functions, so a lazy import cannot hide a cycle.
``from reportgen import x`` counts as an edge to the submodule ``reportgen.x`` when there is one.
"""

from __future__ import annotations

import ast
import functools
from pathlib import Path

ROOT = Path(__file__).resolve().parents[2] / "reportgen"


def _modules() -> dict[str, Path]:
    out = {}
    for f in ROOT.rglob("*.py"):
        name = ".".join(f.relative_to(ROOT.parent).with_suffix("").parts)
        out[name.removesuffix(".__init__")] = f
    return out


@functools.cache  # the package parsed once for the three tests that read its imports
def _imports() -> tuple[dict[str, set[str]], list[tuple[str, str, str]]]:
    mods = _modules()
    graph: dict[str, set[str]] = {m: set() for m in mods}
    private = []
    for name, path in mods.items():
        nodes = list(ast.walk(ast.parse(path.read_text(encoding="utf-8"))))  # parsed and walked once
        for node in nodes:
            if isinstance(node, ast.ImportFrom) and node.module and node.module.startswith("reportgen"):
                if node.module in mods and node.module != "reportgen" and node.module != name:
                    # ``from reportgen.reduce import local`` runs reportgen/reduce/__init__.py first: a
                    # subpackage's __init__ is an import of every module that names it (the root's
                    # public API is lazy, so the root is left out)
                    graph[name].add(node.module)
                for alias in node.names:
                    sub = f"{node.module}.{alias.name}"
                    graph[name].add(sub if sub in mods else node.module)
                    if alias.name.startswith("_") and not alias.name.startswith("__"):
                        private.append((name, node.module, alias.name))
            elif isinstance(node, ast.Import):
                graph[name].update(a.name for a in node.names if a.name.startswith("reportgen"))
        private += [(name, module, attr) for module, attr in _private_attributes(nodes, mods)]
    return graph, private


def _private_attributes(nodes: list[ast.AST], mods: dict[str, Path]) -> list[tuple[str, str]]:
    """``(module, name)`` of each ``alias._name`` read through another reportgen module bound by an
    import (``from reportgen.engine import stats`` … ``stats.normal_test``) in a module's syntax
    tree (``nodes``, every node): the same private name reached without importing it by name."""
    bound: dict[str, str] = {}
    for node in nodes:
        if isinstance(node, ast.ImportFrom) and node.module and node.module.startswith("reportgen"):
            for alias in node.names:
                if f"{node.module}.{alias.name}" in mods:
                    bound[alias.asname or alias.name] = f"{node.module}.{alias.name}"
        elif isinstance(node, ast.Import):
            for alias in node.names:
                if alias.name.startswith("reportgen") and alias.asname:
                    bound[alias.asname] = alias.name
    return [
        (bound[node.value.id], node.attr)
        for node in nodes
        if isinstance(node, ast.Attribute)
        and isinstance(node.value, ast.Name)
        and node.value.id in bound
        and node.attr.startswith("_")
        and not node.attr.startswith("__")
    ]


def _cycle(graph: dict[str, set[str]]) -> list[str] | None:
    """An import cycle (its modules in order, the first repeated at the end), or None, the package
    root included (its __init__ imports the public API, so a module importing a name from the root
    closes a loop). A depth-first walk: an import of a module on the walk's current path closes a
    cycle, and a module whose imports were all walked closes none (any length, each edge once)."""
    done: set[str] = set()
    for root in graph:
        if root in done:
            continue
        path, todo = [root], [iter(sorted(graph[root]))]
        while todo:
            nxt = next(todo[-1], None)
            if nxt is None:
                done.add(path.pop())
                todo.pop()
            elif nxt in path:
                return [*path[path.index(nxt) :], nxt]
            elif nxt not in done:
                path.append(nxt)
                todo.append(iter(sorted(graph.get(nxt, ()))))
    return None


def test_no_import_cycles() -> None:
    cycle = _cycle(_imports()[0])
    assert cycle is None, f"import cycle: {' -> '.join(cycle)}"


def test_the_cycle_check_finds_a_loop_of_any_length() -> None:
    assert _cycle({"a": {"b", "c"}, "b": {"c"}, "c": set()}) is None
    assert _cycle({"a": {"b"}, "b": {"a"}}) == ["a", "b", "a"]
    ring = {f"m{i:02d}": {f"m{(i + 1) % 20:02d}"} for i in range(20)}
    assert _cycle(ring) == [*sorted(ring), "m00"]


def test_no_module_imports_another_modules_private_names() -> None:
    private = _imports()[1]
    assert not private, f"{private[0][0]} imports {private[0][2]} from {private[0][1]}"


def test_results_is_a_leaf_and_the_engine_never_imports_the_report_layer() -> None:
    graph, _ = _imports()
    base = {"reportgen.catalog", "reportgen.errors", "reportgen.frames", "reportgen.value", "reportgen.result_base"}
    assert graph["reportgen.results"] <= base | {"reportgen.section_results", "reportgen.option_results"}
    # the optional sections' types (credit, fairness, segments) and the opted-into analyses' (partial
    # AUC, operating points, multiclass tables, checks, trend), imported where they are built: below results
    assert graph["reportgen.section_results"] <= base | {"reportgen.option_results"}  # calibration by grade
    assert graph["reportgen.option_results"] <= base
    assert graph["reportgen.result_base"] <= {"reportgen.value"}  # freezing, the frozen base, shared values
    assert not graph["reportgen.value"]  # the dataclass methods every layer's types share: a leaf
    assert graph["reportgen.frames"] <= {"reportgen.catalog"}  # result.frames()'s module: a leaf below results
    report_layer = {
        "reportgen.report.render",
        "reportgen.report.figures",
        "reportgen.report.writer",
        "reportgen.report.wording",
        "reportgen.cli",
    }
    for name, targets in graph.items():
        if name.startswith("reportgen.engine"):
            assert not targets & report_layer, f"{name} imports {targets & report_layer}"
            assert not any(t.startswith(("reportgen.io", "reportgen.sources", "reportgen.reduce")) for t in targets), (
                name
            )


def test_every_package_is_in_the_wheel() -> None:
    """pyproject lists packages explicitly: a new subpackage missing there installs without it
    (reportgen.io and reportgen.reduce did, and every import failed on a fresh machine)."""
    import tomllib

    listed = set(
        tomllib.loads((ROOT.parent / "pyproject.toml").read_text(encoding="utf-8"))["tool"]["setuptools"]["packages"]
    )
    packages = {".".join(p.parent.relative_to(ROOT.parent).parts) for p in ROOT.rglob("__init__.py")}
    assert packages <= listed, f"not in pyproject's packages: {sorted(packages - listed)}"
