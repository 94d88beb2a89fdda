"""Start-up of a small run (issue 46): what a scheduled job or a CI check pays per config.

Run: ``python benchmarks/bench_startup.py [--runs 7] [--dir /tmp/bench_startup]``.

Three commands, each in its own new process as a shell starts them, alternated run by run
(``ref``, ``run``, ``validate``, ``ref``, …) so that a drift of the machine's speed touches all
three alike:

- ``ref``: ``python -c "import numpy, pyarrow.parquet"``, the floor any reader of Parquet pays;
- ``run``: ``reportgen run`` of a 1,000-row, two-model Parquet file with the default config
  (every metric, curve and interval), JSON only;
- ``validate``: ``reportgen validate`` of the same config.

The package's bytecode is written first, as an install writes it, so that no run compiles
reportgen's modules (``PYTHONDONTWRITEBYTECODE`` would otherwise make every run do so).

Prints each command's median wall and CPU seconds (user + system of the process) and their
ratios to the reference's medians (issue 46's target: the small run at most 3x; on a shared
machine the CPU ratio is the steadier one), then the ten slowest imports of the small run by
cumulative time (``python -X importtime``), which say where the rest goes.
"""

from __future__ import annotations

import argparse
import compileall
import os
import statistics
import subprocess
import sys
import time
from pathlib import Path

import numpy as np
import pyarrow as pa
import pyarrow.parquet as pq

ROWS = 1_000


def make_inputs(folder: Path) -> Path:
    """A 1,000-row Parquet file (label ``y``, scores ``a`` and ``b``) and its config; returns the config."""
    folder.mkdir(parents=True, exist_ok=True)
    rng = np.random.default_rng(0)
    y = rng.random(ROWS) < 0.2
    z = rng.normal(size=ROWS) + 1.2 * y
    cols = {"y": y.astype(np.int8)}
    for name in ("a", "b"):
        cols[name] = np.round(1 / (1 + np.exp(-(z + rng.normal(size=ROWS)) + 1.5)), 6)
    pq.write_table(pa.table(cols), folder / "small.parquet")
    config = folder / "small.yaml"
    config.write_text(
        "title: small\nlabel: y\npositive: 1\nmodels:\n"
        "  - {name: a, file: small.parquet, score: a}\n"
        "  - {name: b, file: small.parquet, score: b}\n"
        f"output: {{dir: {folder / 'out'}, formats: [json], overwrite: true}}\n",
        encoding="utf-8",
    )
    return config


def wall(argv: list[str]) -> tuple[float, float]:
    """Wall and CPU seconds (user + system of the child) of ``argv`` in a new process."""
    before, start = os.times(), time.perf_counter()
    subprocess.run(argv, check=True, stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL)
    after = os.times()
    cpu = after.children_user + after.children_system - before.children_user - before.children_system
    return time.perf_counter() - start, cpu


def import_top(config: Path, n: int = 10) -> list[tuple[float, str]]:
    """The ``n`` imports of the small run with the largest cumulative time (seconds, module)."""
    err = subprocess.run(
        [sys.executable, "-X", "importtime", "-m", "reportgen", "run", str(config), "-q"],
        capture_output=True,
        text=True,
        check=True,
    ).stderr
    rows = []
    for line in err.splitlines():
        parts = [p.strip() for p in line.removeprefix("import time:").split("|")]
        if len(parts) == 3 and parts[1].isdigit():
            rows.append((int(parts[1]) / 1e6, parts[2]))
    return sorted(rows, reverse=True)[:n]


def main() -> None:
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--runs", type=int, default=7, help="counted runs of each command (after one warm-up each)")
    ap.add_argument("--dir", type=Path, default=Path("/tmp/bench_startup"))
    args = ap.parse_args()
    config = make_inputs(args.dir)
    # the package's bytecode, as ``pip install`` writes it: with PYTHONDONTWRITEBYTECODE set (or a
    # read-only checkout) an editable install would otherwise compile every module in every run,
    # while numpy and pyarrow load theirs
    import reportgen

    compileall.compile_dir(Path(reportgen.__file__).parent, quiet=1)
    commands = {
        "ref: import numpy, pyarrow.parquet": [sys.executable, "-c", "import numpy, pyarrow.parquet"],
        "reportgen run (1,000 rows, 2 models, JSON)": [sys.executable, "-m", "reportgen", "run", str(config), "-q"],
        "reportgen validate": [sys.executable, "-m", "reportgen", "validate", str(config), "-q"],
    }
    times: dict[str, list[tuple[float, float]]] = {name: [] for name in commands}
    for i in range(args.runs + 1):
        for name, argv in commands.items():
            t = wall(argv)
            if i:  # the first round warms the file cache
                times[name].append(t)
    ref = [statistics.median(t[k] for t in times[next(iter(commands))]) for k in (0, 1)]
    print(f"{'command':45s} {'median s':>9s} {'min s':>7s} {'max s':>7s} {'/ ref':>6s} {'CPU s':>6s} {'/ ref':>6s}")
    for name, ts in times.items():
        walls, cpus = [t[0] for t in ts], [t[1] for t in ts]
        med, cpu = statistics.median(walls), statistics.median(cpus)
        print(
            f"{name:45s} {med:9.3f} {min(walls):7.3f} {max(walls):7.3f} {med / ref[0]:6.2f} {cpu:6.3f} {cpu / ref[1]:6.2f}"
        )
    print(f"load average {' '.join(f'{x:.1f}' for x in os.getloadavg())} ({os.cpu_count()} cores)")
    print("\nslowest imports of the small run (cumulative s):")
    for seconds, module in import_top(config):
        print(f"  {seconds:6.3f}  {module}")


if __name__ == "__main__":
    main()
