"""Speed of the binary engine against one argsort / one sort and against scikit-learn.

Run: ``python benchmarks/bench_binary.py [--rows 1000000 10000000] [--repeat 3]``.
Prints, per size and score shape, the best-of-``repeat`` wall time of:

- ``engine``: the whole binary engine for one model: the score table (one grouping pass),
  every metric at the threshold, all optimal thresholds, the curves for the report (the
  threshold, the median score, is chosen outside the timed call: it comes from the config);
- ``argsort`` / ``sort``: one ``np.argsort`` / ``np.sort`` of the same scores (the floor a
  sort-based engine cannot beat);
- ``sklearn``: the scikit-learn sequence for the subset it can do: roc_auc_score,
  average_precision_score, roc_curve, precision_recall_curve, log_loss, then F1 and MCC at
  every distinct threshold from the curve's counts;

and the ratios the issue sets as targets: engine / argsort (target <= 1.0) and
sklearn / engine (target >= 10). Peak memory is traced with tracemalloc for the engine
(numpy allocations), as a multiple of the bytes of the score and label columns (target <= 6).
Measured in the same run on the same machine, so the ratios are comparable; absolute
times depend on the machine.
"""

from __future__ import annotations

import argparse
import time
import tracemalloc

import numpy as np

from reportgen.engine import binary as B
from reportgen.engine.curve import build_table


def make_scores(n: int, shape: str, seed: int = 0) -> tuple[np.ndarray, np.ndarray]:
    """10 % positives; 'rounded' (6 decimals), 'continuous', or 'points' (integer scorecard)."""
    rng = np.random.default_rng(seed)
    y = rng.random(n) < 0.10
    z = rng.normal(size=n) + 1.2 * y
    p = 1.0 / (1.0 + np.exp(-z))
    if shape == "rounded":
        return np.round(p, 6), y
    if shape == "points":
        return np.round(600 - 50 * z), y
    return p, y


def engine(s: np.ndarray, y: np.ndarray, probabilities: bool, thr: float) -> None:
    # scorecard points: lower = riskier (direction: lower), as in the demo's champion
    table = build_table(s, y, direction="higher" if probabilities else "lower")
    B.compute_metrics(table, thr, 2.0, B.Costs(fn=5, fp=1), probabilities=probabilities)
    B.optimal_thresholds(table, 2.0, B.Costs(fn=5, fp=1))
    B.compute_curves(table, thr, 2.0, B.Costs(fn=5, fp=1))


def sklearn_sequence(s: np.ndarray, y: np.ndarray, probabilities: bool) -> None:
    from sklearn.metrics import (
        average_precision_score,
        log_loss,
        precision_recall_curve,
        roc_auc_score,
        roc_curve,
    )

    if not probabilities:  # points: lower = riskier
        s = -s
    roc_auc_score(y, s)
    average_precision_score(y, s)
    fpr, tpr, _ = roc_curve(y, s, drop_intermediate=False)
    precision_recall_curve(y, s)
    if probabilities:
        log_loss(y, np.clip(s, 1e-15, 1 - 1e-15))
    P, N = y.sum(), (~y).sum()
    tp, fp = tpr * P, fpr * N
    fn, tn = P - tp, N - fp
    with np.errstate(divide="ignore", invalid="ignore"):
        _ = 2 * tp / (2 * tp + fp + fn)
        _ = (tp * tn - fp * fn) / np.sqrt((tp + fp) * (tp + fn) * (tn + fp) * (tn + fn))


def best_of(fn, repeat: int) -> float:
    times = []
    for _ in range(repeat):
        t0 = time.perf_counter()
        fn()
        times.append(time.perf_counter() - t0)
    return min(times)


def peak_bytes(fn) -> int:
    tracemalloc.start()
    fn()
    _, peak = tracemalloc.get_traced_memory()
    tracemalloc.stop()
    return peak


def main() -> None:
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--rows", type=int, nargs="+", default=[1_000_000, 10_000_000])
    ap.add_argument("--repeat", type=int, default=3)
    ap.add_argument("--no-sklearn", action="store_true", help="skip the (slow) scikit-learn sequence")
    args = ap.parse_args()
    head = (
        f"{'rows':>11} {'shape':>10} {'engine s':>9} {'argsort s':>9} {'sort s':>7} {'sklearn s':>9}"
        f" {'eng/argsort':>11} {'sk/eng':>7} {'peak/input':>10}"
    )
    print(head)
    print("-" * len(head))
    for n in args.rows:
        for shape in ("rounded", "continuous", "points"):
            s, y = make_scores(n, shape)
            prob = shape != "points"
            thr = float(np.median(s))  # the decision threshold: configured, not engine work
            t_eng = best_of(lambda: engine(s, y, prob, thr), args.repeat)
            t_arg = best_of(lambda: np.argsort(s), args.repeat)
            t_sort = best_of(lambda: np.sort(s), args.repeat)
            t_sk = float("nan") if args.no_sklearn else best_of(lambda: sklearn_sequence(s, y, prob), 1)
            peak = peak_bytes(lambda: engine(s, y, prob, thr)) / (s.nbytes + y.nbytes)
            print(
                f"{n:>11,} {shape:>10} {t_eng:>9.3f} {t_arg:>9.3f} {t_sort:>7.3f} {t_sk:>9.3f}"
                f" {t_eng / t_arg:>11.2f} {t_sk / t_eng:>7.1f} {peak:>10.2f}",
                flush=True,
            )


if __name__ == "__main__":
    main()
