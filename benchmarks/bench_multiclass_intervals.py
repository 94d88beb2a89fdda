"""Multiclass run with the default intervals against the same run without them, in one run (issue 46).

Run: ``python benchmarks/bench_multiclass_intervals.py [--rows 50000] [--classes 10] [--models 3]
[--repeat 3] [--engine memory]``.

Data (deterministic): ``--rows`` rows of ``--classes`` classes (shares ∝ 0.8^c), one Parquet file
per model holding an id, the label and the model's probability matrix (softmax of noisy logits,
the model's own noise; :func:`bench_multiclass.make_data`'s recipe). The config is loaded once;
:func:`reportgen.api.compare_models` is then timed with ``bootstrap.resamples`` at its default
(every interval: confusion metrics and log-loss on the counts, per-class AUCs on the class
tables, the averaged AUCs and every difference by the paired row bootstrap) and at 0 (no
intervals), alternated ``--repeat`` times; each side's fastest wall time and its CPU time are
printed, and their ratio (issue 46's target: at most 3). The machine is shared: CPU time shows
how much of the wall time was this process's.
"""

from __future__ import annotations

import argparse
import os
import tempfile
import time
from pathlib import Path

import numpy as np
import pyarrow as pa
import pyarrow.parquet as pq

from reportgen.api import compare_models
from reportgen.config import load_config


def write_data(folder: Path, n: int, k: int, models: int) -> Path:
    """The models' Parquet files and a config naming them; returns the config's path."""
    rng = np.random.default_rng(0)
    share = 0.8 ** np.arange(k)
    y = rng.choice(k, size=n, p=share / share.sum())
    classes = [f"c{c}" for c in range(k)]
    lines = ["task: multiclass", "label: y", "id: id", f"classes: {classes}", "models:"]
    for m in range(models):
        z = rng.normal(size=(n, k))
        z[np.arange(n), y] += 1.0 + 0.3 * m
        p = np.exp(z - z.max(axis=1, keepdims=True))
        p /= p.sum(axis=1, keepdims=True)
        cols = {"id": np.arange(n), "y": np.array(classes)[y]} | {f"p{c}": p[:, c] for c in range(k)}
        pq.write_table(pa.table(cols), folder / f"m{m}.parquet")
        score_cols = [f"p{c}" for c in range(k)]
        lines += [f"  - name: m{m}", f"    file: m{m}.parquet", f"    scores: {score_cols}", "    probabilities: true"]
    lines += ["output: {dir: out, formats: [json]}"]
    path = folder / "bench.yaml"
    path.write_text("\n".join(lines) + "\n")
    return path


def main() -> None:
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--rows", type=int, default=50_000)
    ap.add_argument("--classes", type=int, default=10)
    ap.add_argument("--models", type=int, default=3)
    ap.add_argument("--repeat", type=int, default=3)
    ap.add_argument("--engine", default="memory")
    a = ap.parse_args()
    with tempfile.TemporaryDirectory() as tmp:
        path = write_data(Path(tmp), a.rows, a.classes, a.models)
        runs = {
            "with intervals": load_config(path, [f"engine={a.engine}"])[0],
            "without": load_config(path, [f"engine={a.engine}", "bootstrap.resamples=0"])[0],
        }
        print(
            f"{a.rows:,} rows x {a.classes} classes x {a.models} models, engine {a.engine}, "
            f"{runs['with intervals'].bootstrap.resamples} resamples; load {os.getloadavg()[0]:.1f}"
        )
        best = {name: (np.inf, np.inf) for name in runs}
        for _ in range(a.repeat):
            for name, cfg in runs.items():
                t, c = time.perf_counter(), time.process_time()
                compare_models(cfg, path, now="2026-01-01T00:00:00Z")
                wall, cpu = time.perf_counter() - t, time.process_time() - c
                best[name] = (min(best[name][0], wall), min(best[name][1], cpu))
        for name, (wall, cpu) in best.items():
            print(f"  {name:15s} wall {wall:7.2f} s   cpu {cpu:7.2f} s")
        (ww, wc), (ow, oc) = best["with intervals"], best["without"]
        print(f"  ratio           wall {ww / ow:7.2f} x   cpu {wc / oc:7.2f} x   (target <= 3)")


if __name__ == "__main__":
    main()
