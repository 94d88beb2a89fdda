"""Start-up (issue 46): a command imports only what it uses. ``--help``, ``validate`` and a
JSON-only run of a small Parquet file load no plotting, PDF, Dask, SciPy or database module, nor
``pyarrow.compute`` or ``pyarrow.dataset``, nor the SQL sources' module, the credit, fairness and
segment result types or those of the analyses a config opts into; ``validate`` loads nothing of
the comparison either (each checked in a fresh interpreter, through ``sys.modules``).

Nor pandas: a single Parquet file is read through ``pyarrow.parquet.ParquetFile`` (``pyarrow.dataset``
imports pandas whenever it is installed) and its columns come to numpy from their buffers
(pyarrow's ``to_numpy`` imports pandas too).
"""

from __future__ import annotations

import json
import subprocess
import sys
from pathlib import Path

import numpy as np
import pyarrow as pa
import pyarrow.parquet as pq
import pytest

ROOT = Path(__file__).resolve().parents[2]

#: Modules a run that writes only metrics.json never needs.
HEAVY = (
    "matplotlib",
    "weasyprint",
    "jinja2",
    "dask",
    "distributed",
    "scipy",
    "sqlalchemy",
    "adbc_driver_manager",
    "adbc_driver_postgresql",
    "adbc_driver_sqlite",
    "openpyxl",
    "markupsafe",  # the pages' escaping (reportgen.report.formats.wbr): a JSON-only run writes no page
    "pyarrow.compute",  # its import wraps ~280 kernels (about 0.1 s); a small Parquet run needs none
    "pyarrow.dataset",
    "sqlite3",  # the history store's (reportgen.history): only when a config keeps one
    "reportgen.section_results",  # the credit, fairness and segment result types: only with those sections
    "reportgen.io.sql",  # SQL sources' fetching: only when a model has a source
    # the types of partial AUC, operating points, calibration deltas, multiclass tables, checks and
    # trend: only when the config (or, multiclass, the data) asks for them
    "reportgen.option_results",
    "reportgen.engine.partial_auc",  # the engines of partial AUC, operating points and calibration: likewise
    "reportgen.engine.operating_points",
    "reportgen.engine.calibration",
    "reportgen.engine.delong",  # DeLong on rows: the credit section's; a run takes DeLong from score tables
    "difflib",  # the "did you mean" of a mistyped key or name (reportgen.config): only for a mistake
    "numpy.typing",  # annotations only (reportgen.engine.distributions)
    "pydantic",  # not a dependency: reportgen.config validates the config itself (it may still be installed)
)

#: What a run compares and words: ``validate`` of data with nothing to warn about loads none of it.
COMPARING = (
    "reportgen.pipeline",
    "reportgen.engine.driver",
    "reportgen.engine.compare",
    "reportgen.gates",
    "reportgen.report.wording",
)


def _loaded_after(argv: list[str], cwd: Path, also: tuple[str, ...] = ()) -> list[str]:
    """The modules of HEAVY (and pandas, and ``also``) a fresh interpreter holds after ``reportgen ARGV``."""
    probe = (
        "import contextlib, io, json, sys\n"
        "from reportgen.cli import main\n"
        "with contextlib.redirect_stdout(io.StringIO()):\n"
        "    try:\n"
        f"        code = main({argv!r})\n"
        "    except SystemExit as exc:\n"
        "        code = exc.code\n"
        f"print(json.dumps([code, sorted(m for m in {(*HEAVY, 'pandas', *also)!r} if m in sys.modules)]))"
    )
    out = subprocess.run(
        [sys.executable, "-c", probe],
        capture_output=True,
        text=True,
        cwd=cwd,
        check=True,
        env={"PYTHONPATH": str(ROOT), "PATH": "/usr/bin:/bin"},
    )
    code, loaded = json.loads(out.stdout.strip().splitlines()[-1])
    assert code in (0, None), out.stderr
    return loaded


@pytest.fixture(scope="module")
def small_config(tmp_path_factory: pytest.TempPathFactory) -> Path:
    folder = tmp_path_factory.mktemp("small")
    rng = np.random.default_rng(0)
    y = (rng.random(200) < 0.3).astype(np.int8)
    pq.write_table(pa.table({"y": y, "a": rng.random(200), "b": rng.random(200)}), folder / "s.parquet")
    config = folder / "small.yaml"
    config.write_text(
        "title: small\nlabel: y\npositive: 1\nbootstrap: {resamples: 20}\nmodels:\n"
        "  - {name: a, file: s.parquet, score: a}\n  - {name: b, file: s.parquet, score: b}\n"
        f"output: {{dir: {folder / 'out'}, formats: [json], overwrite: true}}\n",
        encoding="utf-8",
    )
    return config


def test_help_loads_no_heavy_module_nor_pandas() -> None:
    assert _loaded_after(["--help"], ROOT) == []


def test_validate_loads_no_heavy_module_nor_pandas_nor_the_comparison(small_config: Path) -> None:
    assert _loaded_after(["validate", str(small_config), "-q"], small_config.parent, COMPARING) == []


def test_a_json_only_run_of_parquet_loads_no_heavy_module_nor_pandas(small_config: Path) -> None:
    loaded = _loaded_after(["run", str(small_config), "-q"], small_config.parent)
    assert (small_config.parent / "out" / "metrics.json").is_file()
    assert loaded == []
