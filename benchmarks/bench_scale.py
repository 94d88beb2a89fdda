"""Scale: 100M rows × 3 models from partitioned Parquet, streamed and on Dask (issue 8).

Run: ``python benchmarks/bench_scale.py [--rows 100000000] [--parts 40] [--dir /tmp/reportgen_scale]``.

Writes (once; reused when present) a hive-partitioned Parquet dataset: a 0/1 label (10 %
positives) and three models' scores — probabilities rounded to 6 decimals, integer scorecard
points (direction lower) and continuous float64 probabilities (more distinct values than the
default cap, so that model is binned and its AUC error bound printed). Then prints, each
measured in a fresh subprocess (peak RSS from ``getrusage``):

- ``baseline``: pyarrow reads the same columns into memory, plus one ``np.sort`` per model;
- ``stream``: ``reportgen`` with ``engine: stream`` (every metric, curve and optimum of the three
  models, DeLong intervals, the paired DeLong tests and McNemar's tables; no bootstrap);
- ``dask-1`` / ``dask-2``: the same with ``engine: dask`` on a LocalCluster of 1 and 2 worker
  processes; the Gini of each model is compared with the streamed result (must be equal).

Targets: stream peak RSS < 4 GiB; stream wall ≤ 1.5 × baseline.
"""

from __future__ import annotations

import argparse
import json
import subprocess
import sys
import time
from pathlib import Path

CONFIG = """title: scale benchmark
label: y
threshold: 0.5
bootstrap: {{resamples: 0}}
engine: {engine}
{scheduler}models:
  - {{name: rounded, file: {data}, score: p6}}
  - {{name: points, file: {data}, score: points, direction: lower, threshold: 560}}
  - {{name: continuous, file: {data}, score: p}}
output: {{dir: {out}, formats: [json], overwrite: true}}
"""


def write_dataset(root: Path, rows: int, parts: int) -> None:
    import numpy as np
    import pyarrow as pa
    import pyarrow.parquet as pq

    root.mkdir(parents=True, exist_ok=True)
    per = rows // parts
    for k in range(parts):
        rng = np.random.default_rng(k)
        y = rng.random(per) < 0.10
        z = rng.normal(size=per) + 1.2 * y
        p = 1.0 / (1.0 + np.exp(-(z - 2.0)))
        pts = np.round(600 - 40 * (0.8 * z + 0.6 * rng.normal(size=per)))
        table = pa.table({"y": y.astype(np.int8), "p6": np.round(p, 6), "points": pts, "p": p})
        d = root / f"month={k:03d}"
        d.mkdir(exist_ok=True)
        pq.write_table(table, d / "part-0.parquet")
        print(f"\rwrote part {k + 1}/{parts}", end="", file=sys.stderr, flush=True)
    print(file=sys.stderr)


def child_baseline(data: str) -> dict:
    import numpy as np
    import pyarrow.dataset as ds

    t0 = time.perf_counter()
    table = ds.dataset(data, format="parquet", partitioning="hive").to_table(columns=["y", "p6", "points", "p"])
    for c in ("p6", "points", "p"):
        np.sort(table.column(c).to_numpy())
    return {"seconds": time.perf_counter() - t0, "rows": table.num_rows}


def child_reportgen(data: str, engine: str, out: str, workers: int) -> dict:
    from reportgen.config import parse_config
    from reportgen.pipeline import analyse

    cluster = client = None
    scheduler = ""
    if engine == "dask":
        from dask.distributed import Client, LocalCluster

        cluster = LocalCluster(n_workers=workers, threads_per_worker=1, processes=True, dashboard_address=None)
        client = Client(cluster)
        scheduler = f"scheduler: {cluster.scheduler_address}\n"
    text = CONFIG.format(engine=engine, scheduler=scheduler, data=data, out=out)
    cfg = parse_config(text, "bench.yaml")
    t0 = time.perf_counter()
    result = analyse(cfg, "bench.yaml")
    seconds = time.perf_counter() - t0
    if client is not None:
        client.close()
        cluster.close()
    return {
        "seconds": seconds,
        "rows": result.models["rounded"].n,
        "gini": {n: m.metrics["gini"] for n, m in result.models.items()},
        "binning": {n: (m.binning.auc_error_bound if m.binning else None) for n, m in result.models.items()},
        "paired": result.comparisons[0].tests.mcnemar is not None,
    }


def run_child(*args: str) -> dict:
    proc = subprocess.run([sys.executable, __file__, "--child", *args], capture_output=True, text=True, check=False)
    if proc.returncode != 0:
        raise SystemExit(proc.stderr)
    return json.loads(proc.stdout.strip().splitlines()[-1])


def main() -> None:
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--rows", type=int, default=100_000_000)
    ap.add_argument("--parts", type=int, default=40)
    ap.add_argument("--dir", default="/tmp/reportgen_scale")
    ap.add_argument("--no-dask", action="store_true")
    ap.add_argument("--child", nargs="+", help=argparse.SUPPRESS)
    args = ap.parse_args()
    if args.child:
        kind, *rest = args.child
        out = child_baseline(rest[0]) if kind == "baseline" else child_reportgen(rest[0], kind, rest[1], int(rest[2]))
        # VmHWM, the child's own address space: ru_maxrss starts at the parent's resident set
        # (Linux), which holds the dataset it has just written
        with open("/proc/self/status") as f:
            out["peak_rss_gib"] = next(int(line.split()[1]) for line in f if line.startswith("VmHWM:")) / 2**20
        print(json.dumps(out))
        return
    data = Path(args.dir) / f"rows={args.rows}"
    if not data.exists():
        write_dataset(data, args.rows, args.parts)
    out = str(Path(args.dir) / "out")
    runs = {"baseline": run_child("baseline", str(data)), "stream": run_child("stream", str(data), out, "0")}
    if not args.no_dask:
        for w in (1, 2):
            runs[f"dask-{w}"] = run_child("dask", str(data), out, str(w))
    base = runs["baseline"]["seconds"]
    print(f"{'run':>9} {'wall s':>8} {'x baseline':>10} {'rows/s':>12} {'peak RSS GiB':>12}  notes")
    for name, r in runs.items():
        note = ""
        if name != "baseline":
            note = f"Gini {', '.join(f'{k} {v:.6f}' for k, v in r['gini'].items())}"
            bounds = {k: v for k, v in r["binning"].items() if v is not None}
            if bounds:
                note += f"; binned, |AUC error| <= {', '.join(f'{k} {v:.1e}' for k, v in bounds.items())}"
            if name.startswith("dask"):  # exact models must be equal; binned ones agree within their bounds
                exact = [k for k, v in r["binning"].items() if v is None]
                same = all(r["gini"][k] == runs["stream"]["gini"][k] for k in exact)
                note += f"; exact models {'equal to' if same else 'DIFFER from'} stream"
        print(
            f"{name:>9} {r['seconds']:>8.1f} {r['seconds'] / base:>10.2f} {r['rows'] / r['seconds']:>12,.0f}"
            f" {r['peak_rss_gib']:>12.2f}  {note}",
            flush=True,
        )
    if "dask-1" in runs and "dask-2" in runs:
        print(f"dask speed-up 1 → 2 workers: {runs['dask-1']['seconds'] / runs['dask-2']['seconds']:.2f}x")
    print("targets: stream peak RSS < 4 GiB; stream wall <= 1.5 x baseline")


if __name__ == "__main__":
    main()
