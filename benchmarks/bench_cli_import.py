"""Import time of the command line (issue 21): ``reportgen --help`` / ``--version`` must import
nothing heavy; budget 0.15 s of import time.

Runs ``python -X importtime -c "import reportgen.cli"`` in fresh interpreters and prints the
cumulative import time of ``reportgen.cli`` (everything it pulls in, the interpreter's own
start-up excluded), the best of the runs, next to the same measure for ``import pandas`` in
the same session as a reference (what ``--help`` used to cost). Which heavy modules get loaded
is checked by tests/unit/test_packaging.py (a subprocess inspecting ``sys.modules``), not here.

    PYTHONPATH=. python benchmarks/bench_cli_import.py [runs]
"""

from __future__ import annotations

import os
import subprocess
import sys
from pathlib import Path

ROOT = Path(__file__).resolve().parents[1]
BUDGET_S = 0.15


def cumulative_us(statement: str, module: str) -> int:
    """Cumulative import time (µs) of ``module`` when a fresh interpreter runs ``statement``."""
    env = {**os.environ, "PYTHONPATH": str(ROOT)}
    err = subprocess.run(
        [sys.executable, "-X", "importtime", "-c", statement], capture_output=True, text=True, env=env, check=True
    ).stderr
    for line in err.splitlines():
        parts = [p.strip() for p in line.removeprefix("import time:").split("|")]
        if len(parts) == 3 and parts[2] == module:
            return int(parts[1])
    raise SystemExit(f"{module} not in the -X importtime output")


def main(runs: int) -> int:
    cli = min(cumulative_us("import reportgen.cli", "reportgen.cli") for _ in range(runs))
    pandas = min(cumulative_us("import pandas", "pandas") for _ in range(runs))
    print(f"import reportgen.cli: {cli / 1e6:.3f} s (best of {runs}; budget {BUDGET_S} s)")
    print(f"import pandas:        {pandas / 1e6:.3f} s (reference; --help imported it before issue 21)")
    print(f"ratio cli / pandas:   {cli / pandas:.2f}")
    return 0 if cli / 1e6 < BUDGET_S else 1


if __name__ == "__main__":
    raise SystemExit(main(int(sys.argv[1]) if len(sys.argv) > 1 else 5))
