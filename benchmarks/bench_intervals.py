"""The default run with intervals at 10M rows against pandas + scikit-learn, in one run (issue 16).

Run: ``python benchmarks/bench_intervals.py [--rows 10000000] [--dir /tmp/bench_intervals] [--repeat 3]``.

One generated data set (``--rows`` rows, 10 % positives, three models' probabilities rounded to 6
decimals, about 0.78 M distinct scores each at 10M rows), written as CSV and as Parquet (the
same values; ``--formats`` picks which are measured, default both), is measured, in this process,
for each format by:

- ``sklearn``: ``pandas.read_csv`` (``pandas.read_parquet`` for the Parquet file) of the label
  and one score, then roc_auc_score,
  average_precision_score, roc_curve, precision_recall_curve, log_loss, and the best F1 and
  MCC over every threshold of the curve (the reference, without intervals);
- ``one model, JSON``: ``reportgen run`` of the default config (500 bootstrap resamples, memory
  engine, every metric, curve, optimum and interval) for that one model, JSON only;
- ``three models, HTML+PDF+JSON``: the same file, three models, every comparison with the
  baseline (DeLong, McNemar, paired intervals), the full report set;
- the same two runs with ``--engine stream``.

With ``--fresh`` the same commands are also timed as a user runs them from a shell: each in
its own new process (``python -m reportgen run …``; the reference as ``python -c`` of the same
sequence), imports and start-up included, CPU of the child process.

Each command runs ``--repeat`` times, interleaved with the others, and its fastest run is
shown (noise on a shared machine only adds time). Each row shows wall and CPU seconds (CPU
counts ended child processes too) and the ratios
the issues set: sklearn / one model (target ≥ 10, issue 46; ≥ 5, issue 39) and three models /
one model (target ≤ 3). Imports and first calls are done before timing, for both sides: each
side runs once on a 20,000-row file first.
"""

from __future__ import annotations

import argparse
import contextlib
import io
import os
import sys
import time
from collections.abc import Callable
from pathlib import Path

import numpy as np
import pandas as pd

N_MODELS = 3


def make_file(path: Path, n: int, seed: int = 0) -> None:
    """The benchmark file: label ``y`` and scores ``m1..m3`` (shared signal plus own noise),
    as CSV, and the same values as Parquet beside it (``path`` with suffix ``.parquet``)."""
    rng = np.random.default_rng(seed)
    y = rng.random(n) < 0.10
    z = rng.normal(size=n) + 1.2 * y
    cols = {"y": y.astype(np.int8)}
    for i in range(N_MODELS):
        cols[f"m{i + 1}"] = np.round(1.0 / (1.0 + np.exp(-(z + 0.6 * rng.normal(size=n)) + 2.0)), 6)
    frame = pd.DataFrame(cols)
    frame.to_csv(path, index=False, float_format="%.6f")
    frame.to_parquet(path.with_suffix(".parquet"), index=False)


def write_config(path: Path, data: Path, models: int, formats: list[str], out: Path) -> None:
    lines = [
        "title: bench",
        "label: y",
        "positive: 1",
        "threshold: 0.2",
        "models:",
        *(f"  - {{name: m{i + 1}, file: {data}, score: m{i + 1}}}" for i in range(models)),
        f"output: {{dir: {out}, formats: [{', '.join(formats)}], overwrite: true}}",
    ]
    path.write_text("\n".join(lines) + "\n")


def sklearn_sequence(path: Path) -> None:
    from sklearn.metrics import (
        average_precision_score,
        log_loss,
        precision_recall_curve,
        roc_auc_score,
        roc_curve,
    )

    cols = ["y", "m1"]
    df = pd.read_parquet(path, columns=cols) if path.suffix == ".parquet" else pd.read_csv(path, usecols=cols)
    y, s = df["y"].to_numpy() == 1, df["m1"].to_numpy()
    roc_auc_score(y, s)
    average_precision_score(y, s)
    fpr, tpr, _ = roc_curve(y, s, drop_intermediate=False)
    precision_recall_curve(y, s)
    log_loss(y, np.clip(s, 1e-15, 1 - 1e-15))
    P, N = y.sum(), (~y).sum()
    tp, fp = tpr * P, fpr * N
    fn, tn = P - tp, N - fp
    with np.errstate(divide="ignore", invalid="ignore"):
        np.nanmax(2 * tp / (2 * tp + fp + fn))
        np.nanmax((tp * tn - fp * fn) / np.sqrt((tp + fp) * (tp + fn) * (tn + fp) * (tn + fn)))


def reportgen_run(config: Path, engine: str) -> None:
    from reportgen.cli import main

    with contextlib.redirect_stdout(io.StringIO()):
        code = main(["run", str(config), "--quiet", "--engine", engine, "--now", "2026-01-01T00:00:00"])
    if code != 0:
        raise SystemExit(f"reportgen run {config} exited {code}")


def fresh(argv: list[str]) -> tuple[float, float]:
    """Wall and CPU seconds of ``argv`` run as a new process (imports and start-up included)."""
    import subprocess

    before = os.times()
    w0 = time.perf_counter()
    subprocess.run(argv, check=True, stdout=subprocess.DEVNULL)
    wall = time.perf_counter() - w0
    after = os.times()
    return wall, (after.children_user + after.children_system) - (before.children_user + before.children_system)


def fresh_rows(
    data: Path, one: Path, three: Path, engines: list[str]
) -> list[tuple[str, Callable[[], tuple[float, float]]]]:
    """The table's runs, each to be timed in a new process."""
    py = sys.executable
    here = str(Path(__file__).resolve().parent)
    reader = "read_parquet" if data.suffix == ".parquet" else "read_csv"
    rows = [
        (
            f"pandas {reader} + scikit-learn sequence (fresh process)",
            lambda: fresh(
                [
                    py,
                    "-c",
                    f"import sys; sys.path.insert(0, {here!r}); import bench_intervals as b; "
                    f"from pathlib import Path; b.sklearn_sequence(Path({str(data)!r}))",
                ]
            ),
        )
    ]
    for engine in engines:
        for name, cfg in (
            (f"reportgen run, 1 model, JSON ({engine}, fresh process)", one),
            (f"reportgen run, {N_MODELS} models, HTML+PDF+JSON ({engine}, fresh process)", three),
        ):
            rows.append(
                (
                    name,
                    lambda e=engine, c=cfg: fresh(
                        [py, "-m", "reportgen", "run", str(c), "--quiet", "--engine", e, "--now", "2026-01-01T00:00:00"]
                    ),
                )
            )
    return rows


def best_of(
    repeat: int, runs: list[tuple[str, Callable[[], tuple[float, float]]]]
) -> list[tuple[str, tuple[float, float]]]:
    """Each run ``repeat`` times, the runs interleaved (a slow spell of a shared machine then
    spreads over all of them), keeping each one's fastest (wall, CPU): noise only ever adds
    time, so the minimum is the steadiest estimate of what a run costs (as :mod:`timeit`)."""
    times: dict[str, list[tuple[float, float]]] = {name: [] for name, _ in runs}
    for _ in range(max(1, repeat)):
        for name, run in runs:
            times[name].append(run())
    return [(name, min(times[name])) for name, _ in runs]


def print_rows(rows: list[tuple[str, tuple[float, float]]], engines: list[str]) -> None:
    """The table and the two ratios per engine (rows: the reference, then per engine one, three)."""
    print(f"| {'what':<72} | {'wall s':>7} | {'CPU s':>7} |")
    print(f"|{'-' * 74}|{'-' * 9}|{'-' * 9}|")
    for name, (w, c) in rows:
        print(f"| {name:<72} | {w:>7.1f} | {c:>7.1f} |")
    sk = rows[0][1]
    for i, engine in enumerate(engines):
        o, t = rows[1 + 2 * i][1], rows[2 + 2 * i][1]
        print(
            f"{engine}: sklearn / one model = {sk[0] / o[0]:.2f} (wall), {sk[1] / o[1]:.2f} (CPU), "
            "target >= 10 (issue 46; >= 5 issue 39); "
            f"three models / one model = {t[0] / o[0]:.2f} (wall), {t[1] / o[1]:.2f} (CPU), target <= 3"
        )


def cpu_seconds() -> float:
    """CPU seconds of this process and of its ended children (a local Dask cluster's workers:
    their seconds count too, or the run would look cheaper than it is)."""
    t = os.times()
    return t.user + t.system + t.children_user + t.children_system


def timed(fn) -> tuple[float, float]:
    w0, c0 = time.perf_counter(), cpu_seconds()
    fn()
    return time.perf_counter() - w0, cpu_seconds() - c0


#: The phases :func:`phase_times` times: (module, function, name shown).
PHASES = (
    ("reportgen.pipeline", "load_evidence", "read, validate, reduce to evidence"),
    ("reportgen.pipeline", "compare_evidence", "metrics, tests, intervals"),
    ("reportgen.report.render", "build_view", "report view and figures"),
    ("reportgen.report.render", "render_pdf", "PDF (WeasyPrint)"),
)


@contextlib.contextmanager
def phase_times(out: dict[str, list[float]]):
    """Wall and CPU seconds (children included) of each of :data:`PHASES`, summed into ``out``."""
    import importlib

    saved = []
    for module, name, shown in PHASES:
        mod = importlib.import_module(module)
        fn = getattr(mod, name)
        saved.append((mod, name, fn))

        def wrapped(*args, _fn=fn, _shown=shown, **kwargs):
            w0, c0 = time.perf_counter(), cpu_seconds()
            try:
                return _fn(*args, **kwargs)
            finally:
                got = out.setdefault(_shown, [0.0, 0.0])
                got[0] += time.perf_counter() - w0
                got[1] += cpu_seconds() - c0

        setattr(mod, name, wrapped)
    try:
        yield out
    finally:
        for mod, name, fn in saved:
            setattr(mod, name, fn)


def main() -> None:
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--rows", type=int, default=10_000_000)
    ap.add_argument("--dir", type=Path, default=Path("/tmp/bench_intervals"))
    ap.add_argument("--engines", nargs="+", default=["memory", "stream"])
    ap.add_argument(
        "--formats",
        nargs="+",
        choices=["parquet", "csv"],
        default=["parquet", "csv"],
        help="which copies of the data are measured, each against its own pandas reader (default both)",
    )
    ap.add_argument("--phases", action="store_true", help="also time the phases of the three-model run (memory)")
    ap.add_argument("--fresh", action="store_true", help="also time every command in its own new process")
    ap.add_argument(
        "--repeat", type=int, default=3, help="runs of each command, interleaved; the fastest is shown (default 3)"
    )
    args = ap.parse_args()
    d = args.dir
    d.mkdir(parents=True, exist_ok=True)
    csv = d / f"scores_{args.rows}.csv"
    if not (csv.exists() and csv.with_suffix(".parquet").exists()):
        t = time.perf_counter()
        make_file(csv, args.rows)
        print(
            f"generated {csv} ({csv.stat().st_size / 1e6:.0f} MB) and its Parquet copy in "
            f"{time.perf_counter() - t:.0f} s",
            file=sys.stderr,
        )
    # imports and first calls before timing, for both sides: each runs once on a small file
    # (reportgen imports most of its modules lazily, on its first run)
    small = d / "scores_warmup.csv"
    if not (small.exists() and small.with_suffix(".parquet").exists()):
        make_file(small, 20_000, seed=1)
    for fmt in args.formats:
        warm = d / f"warmup_{fmt}.yaml"
        write_config(warm, small.with_suffix(f".{fmt}"), N_MODELS, ["html", "pdf", "json"], d / "out_warmup")
        sklearn_sequence(small.with_suffix(f".{fmt}"))
        reportgen_run(warm, "memory")

    for fmt in args.formats:
        data = csv.with_suffix(f".{fmt}")
        reader = "read_parquet" if fmt == "parquet" else "read_csv"
        one, three = d / f"one_{fmt}.yaml", d / f"three_{fmt}.yaml"
        write_config(one, data, 1, ["json"], d / "out_one")
        write_config(three, data, N_MODELS, ["html", "pdf", "json"], d / "out_three")
        runs = [
            (f"pandas {reader} + scikit-learn sequence (1 model, no intervals)", lambda p=data: sklearn_sequence(p))
        ]
        for engine in args.engines:
            runs.append((f"reportgen run, 1 model, JSON ({engine})", lambda e=engine, c=one: reportgen_run(c, e)))
            runs.append(
                (
                    f"reportgen run, {N_MODELS} models, HTML+PDF+JSON ({engine})",
                    lambda e=engine, c=three: reportgen_run(c, e),
                )
            )
        rows = best_of(args.repeat, [(name, lambda fn=fn: timed(fn)) for name, fn in runs])
        print(
            f"{fmt.upper()}, {args.rows:,} rows; wall and CPU seconds of this process and its children, the "
            f"fastest of {args.repeat} interleaved runs each ({os.cpu_count()} cores, load average "
            f"{' '.join(f'{x:.1f}' for x in os.getloadavg())})"
        )
        print_rows(rows, args.engines)
        if args.phases:
            phases: dict[str, list[float]] = {}
            with phase_times(phases):
                total = timed(lambda c=three: reportgen_run(c, "memory"))
            print(f"phases of a second three-model run (memory): {total[0]:.1f} s wall, {total[1]:.1f} s CPU")
            for name, (w, c) in phases.items():
                print(f"  {name:<40} {w:>6.1f} s wall {c:>6.1f} s CPU")
        if args.fresh:
            print(
                f"{fmt.upper()}, each command in its own new process (as from a shell; imports and start-up included):"
            )
            print_rows(best_of(args.repeat, fresh_rows(data, one, three, args.engines)), args.engines)


if __name__ == "__main__":
    main()
