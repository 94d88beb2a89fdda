"""Cost of the comparison statistics against the binary engine, measured in the same run.

Run: ``python benchmarks/bench_compare.py [--rows 10000000] [--boot-rows 100000 1000000]``.
Prints, best of ``--repeat`` wall times:

1. DeLong, paired, at ``--rows`` (default 10M): two models scored on the same rows, the
   variances of both AUCs, their covariance and the test (``delong.delong_paired``), against
   the binary engine for one model (score table, every metric, every optimum, every curve,
   as ``bench_binary.engine``). Target (issue 4): DeLong / engine <= 3.
2. The bootstrap at each of ``--boot-rows`` (default 100k and 1M): one resample as
   ``compare._bootstrap_metrics`` does it for one model (stratified multinomial row counts
   per class, then every metric from the model's resample kernel: bincounts of the counts
   into the compressed table, dot products, see ``engine/resample.py``), averaged over
   ``--resamples`` resamples, against one full engine run. The kernel is built once per model
   and comparison (like the score table, outside the timing; its cost is printed apart, as a
   multiple of the engine run). Target: resample / engine < 1/3.

A missed target is flagged in the last column. Continuous scores (probabilities with ~n
distinct values, 10 % positives), the hardest case for both.
"""

from __future__ import annotations

import argparse
import time

import numpy as np
from bench_binary import best_of, engine, make_scores

from reportgen.engine import binary as B
from reportgen.engine import delong, stats
from reportgen.engine.curve import build_table, row_groups
from reportgen.engine.resample import resample_kernel, resampled_metrics


def challenger(s: np.ndarray, y: np.ndarray, seed: int = 1) -> np.ndarray:
    """A second model on the same rows: the first one's scores plus noise (correlated AUCs)."""
    rng = np.random.default_rng(seed)
    z = np.log(s / (1 - s)) + 0.5 * rng.normal(size=s.shape[0])
    return 1.0 / (1.0 + np.exp(-z))


def bootstrap_resamples(s: np.ndarray, y: np.ndarray, n_resamples: int, seed: int = 0) -> tuple[float, float]:
    """(seconds per resample, seconds of the kernel) of the engine's bootstrap for one model.

    The score table is setup (the engine builds it anyway); the kernel is built once per
    comparison and timed apart.
    """
    table = build_table(s, y)
    thr = float(np.median(s))
    t0 = time.perf_counter()
    kernel = resample_kernel(table, row_groups(table, s), y, stats.bootstrap_strata(y), thr, probabilities=True)
    t_kernel = time.perf_counter() - t0
    rng = np.random.default_rng(seed)
    t0 = time.perf_counter()
    for block in stats.stratified_bootstrap_blocks(y, n_resamples, rng):
        resampled_metrics(kernel, block, 2.0, B.Costs(fn=5, fp=1))
    return (time.perf_counter() - t0) / n_resamples, t_kernel


def delong_against_engine(rows: int, repeat: int) -> tuple[float, float]:
    """(paired DeLong seconds, one-model engine seconds) at ``rows`` continuous scores."""
    s, y = make_scores(rows, "continuous")
    s2 = challenger(s, y)
    thr = float(np.median(s))
    t_eng = best_of(lambda: engine(s, y, True, thr), repeat)
    t_dl = best_of(lambda: delong.delong_paired(s, s2, y), repeat)
    return t_dl, t_eng


def main() -> None:
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--rows", type=int, default=10_000_000, help="rows for DeLong vs engine")
    ap.add_argument("--boot-rows", type=int, nargs="+", default=[100_000, 1_000_000])
    ap.add_argument("--resamples", type=int, default=8, help="bootstrap resamples timed per size")
    ap.add_argument("--repeat", type=int, default=2)
    args = ap.parse_args()

    head = f"{'what':<34} {'rows':>11} {'stat s':>8} {'engine s':>9} {'ratio':>7}  target"
    print(head)
    print("-" * (len(head) + 24))

    t_dl, t_eng = delong_against_engine(args.rows, args.repeat)
    r = t_dl / t_eng
    flag = "met" if r <= 3 else f"MISSED by {r / 3:.2f}x"
    print(
        f"{'DeLong paired (2 models) / engine':<34} {args.rows:>11,} {t_dl:>8.3f} {t_eng:>9.3f} {r:>7.2f}  <= 3: {flag}"
    )

    for n in args.boot_rows:
        s, y = make_scores(n, "continuous")
        thr = float(np.median(s))
        t_eng = best_of(lambda: engine(s, y, True, thr), args.repeat)
        runs = [bootstrap_resamples(s, y, args.resamples, seed) for seed in range(args.repeat)]
        t_res, t_ker = min(t for t, _ in runs), min(k for _, k in runs)
        r = t_res / t_eng
        flag = "met" if r < 1 / 3 else f"MISSED by {r * 3:.2f}x"
        print(
            f"{'one bootstrap resample / engine':<34} {n:>11,} {t_res:>8.4f} {t_eng:>9.4f} {r:>7.3f}  < 1/3: {flag}",
            flush=True,
        )
        print(
            f"{'  (kernel, once per model) / engine':<34} {n:>11,} {t_ker:>8.4f} {t_eng:>9.4f} {t_ker / t_eng:>7.3f}",
            flush=True,
        )


if __name__ == "__main__":
    main()
