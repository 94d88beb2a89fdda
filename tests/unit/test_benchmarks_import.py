"""The benchmark scripts import (their own functions and the engine names they use).

They are not run by the suite (minutes of CPU each), so nothing else notices when an engine
function they call is renamed or removed: ``coverage_intervals.py`` imported
``streaming.normal_interval`` for months after it was removed.
"""

from __future__ import annotations

import importlib.util
import sys
from pathlib import Path

import pytest

BENCHMARKS = Path(__file__).resolve().parents[2] / "benchmarks"


@pytest.mark.parametrize("script", sorted(p.name for p in BENCHMARKS.glob("*.py")))
def test_benchmark_script_imports(script, monkeypatch):
    monkeypatch.syspath_prepend(str(BENCHMARKS))  # sibling imports (bench_compare uses bench_binary)
    spec = importlib.util.spec_from_file_location(f"_bench_{script[:-3]}", BENCHMARKS / script)
    assert spec is not None and spec.loader is not None
    module = importlib.util.module_from_spec(spec)
    monkeypatch.setitem(sys.modules, spec.name, module)
    spec.loader.exec_module(module)
    assert callable(getattr(module, "main", None)), f"{script} has no main()"
