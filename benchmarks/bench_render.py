"""Render time of the report against the input size: it must not grow with the rows.

Run: ``python benchmarks/bench_render.py [--rows 10000 1000000 10000000] [--models 3]``.

For each size, computes a binary comparison of ``--models`` models (continuous scores, the
shape with the most distinct thresholds; bootstrap off, it is not part of rendering), then
times, from the saved result: the figures (matplotlib → inline SVG), the HTML (Jinja), the
PDF (WeasyPrint) and metrics.json, and prints their sizes. Target (issue 6): the whole
render under 10 s at any input size on this machine; curves are decimated to about a
thousand points, so the time and the file sizes should be flat in the number of rows.
"""

from __future__ import annotations

import argparse
import tempfile
import time
from pathlib import Path

import numpy as np

from reportgen.engine.compare import Settings
from reportgen.reduce.rows import ModelRows, compare_rows
from reportgen.report import figures
from reportgen.report.render import render_html, render_pdf, result_json
from reportgen.results import ComparisonResult, RunInfo


def make_result(n: int, k: int, seed: int = 0) -> ComparisonResult:
    rng = np.random.default_rng(seed)
    y = rng.random(n) < 0.10
    inputs = []
    for j in range(k):
        z = rng.normal(size=n) + (0.6 + 0.4 * j) * y
        inputs.append(ModelRows(f"model_{j}", "bench", 1 / (1 + np.exp(-z)), y, probabilities=True))
    s = Settings(resamples=0, prevalences=(0.05, 0.1, 0.2))
    models, comps, pairwise = compare_rows(inputs, s, threshold=0.5)
    run = RunInfo(
        title=f"render benchmark, {n:,} rows",
        task="binary",
        created="2026-01-01T00:00:00Z",
        run_id="bench",
        reportgen_version="bench",
        versions={},
        config={},
        config_path="bench.yaml",
        files=[],
        dropped=[],
        warnings=[],
        paired=True,
        baseline="model_0",
        primary_metric="gini",
        threshold=0.5,
        beta=1.0,
        costs={"fn": 1.0, "fp": 1.0},
        confidence_level=0.95,
        bootstrap_resamples=0,
        bootstrap_seed=0,
        duration_seconds=0.0,
    )
    return ComparisonResult(run=run, models=models, comparisons=comps, pairwise=pairwise)


def timed(fn):
    t0 = time.perf_counter()
    out = fn()
    return out, time.perf_counter() - t0


def main() -> None:
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--rows", type=int, nargs="+", default=[10_000, 1_000_000, 10_000_000])
    ap.add_argument("--models", type=int, default=3)
    args = ap.parse_args()
    head = (
        f"{'rows':>11} {'engine s':>9} {'figures s':>9} {'html s':>7} {'pdf s':>7} {'json s':>7}"
        f" {'render s':>9} {'html KB':>8} {'pdf KB':>8} {'json KB':>8}"
    )
    print(head)
    print("-" * len(head))
    for n in args.rows:
        result, t_engine = timed(lambda: make_result(n, args.models))
        _, t_fig = timed(lambda: figures.render_figures(result))
        html, t_html = timed(lambda: render_html(result))  # includes the figures again
        pdf_html = render_html(result, for_pdf=True)
        with tempfile.TemporaryDirectory() as d:
            target = Path(d) / "report.pdf"
            _, t_pdf = timed(lambda: render_pdf(pdf_html, target))
            pdf_kb = target.stat().st_size / 1024
        text, t_json = timed(lambda: result_json(result))
        total = (
            t_html + t_pdf + t_json
        )  # what `reportgen run` spends after the engine (HTML and PDF each draw the figures)
        print(
            f"{n:>11,} {t_engine:>9.2f} {t_fig:>9.2f} {t_html:>7.2f} {t_pdf:>7.2f} {t_json:>7.2f} {total:>9.2f}"
            f" {len(html.encode()) / 1024:>8.0f} {pdf_kb:>8.0f} {len(text.encode()) / 1024:>8.0f}",
            flush=True,
        )
    print("target: render s < 10 at every size")


if __name__ == "__main__":
    main()
