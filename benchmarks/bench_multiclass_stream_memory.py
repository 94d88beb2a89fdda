"""Peak memory of a multiclass run, ``engine: stream`` against ``engine: memory``, in one run (issue 46).

Run: ``python benchmarks/bench_multiclass_stream_memory.py [--rows 2000000] [--classes 5]
[--models 3] [--repeat 1]``.

Data: :func:`bench_multiclass_intervals.write_data`'s (one Parquet file per model: id, label,
the model's probability matrix). Each engine runs the same config with the default intervals in
a fresh Python process (``python -c`` calling :func:`reportgen.api.compare_models`), alternated
``--repeat`` times; the child's peak resident set (``VmHWM`` of its ``/proc/self/status`` at the
end: the high-water mark of its own address space) and its CPU time are printed, with stream's
peak over memory's (issue 46's target: at most 0.5). Not ``getrusage``'s ``ru_maxrss``: Linux
starts a forked child's from its parent's resident set, and this parent holds about 0.66 GiB
once it has written the data, a floor under the child's own peak. A child's peak includes the
interpreter and imports (about 115 MiB), the same for both engines.
"""

from __future__ import annotations

import argparse
import os
import resource
import subprocess
import sys
import tempfile
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parent))
from bench_multiclass_intervals import write_data

CHILD = """
import sys
from reportgen.api import compare_models
from reportgen.config import load_config
cfg = load_config(sys.argv[1], ["engine=" + sys.argv[2]])[0]
compare_models(cfg, sys.argv[1], now="2026-01-01T00:00:00Z")
print(next(int(line.split()[1]) for line in open("/proc/self/status") if line.startswith("VmHWM:")))
"""


def run(path: Path, engine: str) -> tuple[float, float]:
    """(peak RSS in GiB, CPU seconds) of one fresh process running ``engine``."""
    before = resource.getrusage(resource.RUSAGE_CHILDREN)
    out = subprocess.run(
        [sys.executable, "-c", CHILD, str(path), engine], check=True, capture_output=True, text=True
    ).stdout
    after = resource.getrusage(resource.RUSAGE_CHILDREN)
    cpu = (after.ru_utime + after.ru_stime) - (before.ru_utime + before.ru_stime)
    return int(out.split()[-1]) / 2**20, cpu  # VmHWM: KiB


def main() -> None:
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--rows", type=int, default=2_000_000)
    ap.add_argument("--classes", type=int, default=5)
    ap.add_argument("--models", type=int, default=3)
    ap.add_argument("--repeat", type=int, default=1)
    a = ap.parse_args()
    with tempfile.TemporaryDirectory() as tmp:
        path = write_data(Path(tmp), a.rows, a.classes, a.models)
        print(f"{a.rows:,} rows x {a.classes} classes x {a.models} models; load {os.getloadavg()[0]:.1f}")
        peak = {"memory": 0.0, "stream": 0.0}
        for _ in range(a.repeat):
            for engine in peak:
                gib, cpu = run(path, engine)
                peak[engine] = max(peak[engine], gib)
                print(f"  {engine:7s} peak RSS {gib:6.2f} GiB   cpu {cpu:7.1f} s")
        print(f"  stream / memory peak: {peak['stream'] / peak['memory']:.2f}   (target <= 0.5)")


if __name__ == "__main__":
    main()
