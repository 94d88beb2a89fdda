"""Coverage of the multiclass averaged-AUC and log-loss intervals drawn on counts (issue 46).

Run: ``python benchmarks/coverage_multiclass_intervals.py [--reps 2000] [--rows 400] [--classes 4]
[--resamples 300]``.

A population with known metrics: classes with shares ∝ 0.8^c, probabilities the softmax of
normal logits with +1 on the true class. Its OvR macro / weighted, micro and Hand & Till AUCs and
its log-loss are computed once on 400,000 rows. Each repetition draws ``--rows`` rows, reduces
them to distinct rows with counts (:mod:`reportgen.engine.distinct_rows`), draws the stratified
resamples as the engine does and evaluates them on counts
(:func:`reportgen.engine.class_row_draws.probability_draws`: draw for draw the values the
per-resample row evaluation gave, so the row bootstrap's coverage by construction — but the
micro AUC, by its linear projection at the drawn sample's rows, printed beside the resampled
micro AUC's coverage on the same resamples, ``micro (resampled)``), and records whether the 95 %
percentile interval holds the population value. Printed: coverage per metric
with its Monte-Carlo standard error (the row bootstrap's percentile intervals under-cover
slightly at small n; that is the reference, not 95 % exactly). A few hundred repetitions
leave a standard error of 0.013–0.017: too few to tell 0.93 from 0.95.
"""

from __future__ import annotations

import argparse

import numpy as np

from reportgen.engine import class_row_draws as RD
from reportgen.engine import distinct_rows as DR


def draw(rng: np.random.Generator, n: int, k: int) -> tuple[np.ndarray, np.ndarray]:
    share = 0.8 ** np.arange(k)
    y = rng.choice(k, size=n, p=share / share.sum())
    z = rng.normal(size=(n, k))
    z[np.arange(n), y] += 1.0
    p = np.exp(z - z.max(axis=1, keepdims=True))
    return y, p / p.sum(axis=1, keepdims=True)


def _resampled_micro(y: np.ndarray, p: np.ndarray, W: np.ndarray) -> np.ndarray:
    """Each resample's micro AUC, the pooled cells ranked again (scikit-learn's definition: the
    rows' one-hot labels against their scores, ties one half), the reference for the projection."""
    k = p.shape[1]
    pos = (y[:, None] == np.arange(k)).ravel()
    order = np.argsort(p.ravel(), kind="stable")
    s, is_pos = p.ravel()[order], pos[order]
    first = np.concatenate([[True], s[1:] != s[:-1]])
    group = np.cumsum(first) - 1  # tied scores share a group
    out = np.empty(W.shape[0])
    for r, w in enumerate(W):
        cw = np.repeat(w, k)[order]
        wp, wn = np.bincount(group, cw * is_pos), np.bincount(group, cw * ~is_pos)
        below = np.cumsum(wp) - wp
        out[r] = float(wn @ (below + 0.5 * wp)) / (wp.sum() * wn.sum())
    return 1.0 - out


def main() -> None:
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--reps", type=int, default=2000)  # binomial SE about 0.005 at 95 %
    ap.add_argument("--rows", type=int, default=400)
    ap.add_argument("--classes", type=int, default=4)
    ap.add_argument("--resamples", type=int, default=300)
    a = ap.parse_args()
    rng = np.random.default_rng(0)
    y, p = draw(rng, 400_000, a.classes)
    truth = {
        key: float(v[0]) for key, v in RD.probability_draws(RD.ModelRows.of(y, p), np.ones((1, y.shape[0]))).items()
    }
    truth["micro (resampled)"] = truth["roc_auc_ovr_micro"]
    hits = {key: 0 for key in truth}
    for _ in range(a.reps):
        y, p = draw(rng, a.rows, a.classes)
        d = DR.distinct(DR.row_matrix(y, None, [None], [p]))
        yd, _, _, (pd_,) = DR.split(d, [(False, True)], a.classes)
        rows = RD.ModelRows.of(yd, pd_, d.counts)
        got: dict[str, list[np.ndarray]] = {key: [] for key in truth}
        for block in DR.stratified_multinomial_blocks(yd, d.counts, a.resamples, rng):
            for key, v in RD.probability_draws(rows, block.astype(np.float64)).items():
                got[key].append(v)
            got["micro (resampled)"].append(_resampled_micro(yd, pd_, block))
        for key, parts in got.items():
            lo, hi = np.nanquantile(np.concatenate(parts), [0.025, 0.975])
            hits[key] += int(lo <= truth[key] <= hi)
    print(f"{a.reps} reps, {a.rows} rows, {a.classes} classes, {a.resamples} resamples; 95 % percentile intervals")
    for key, h in hits.items():
        c = h / a.reps
        print(f"  {key:22s} truth {truth[key]:.4f}   coverage {c:.3f} ± {np.sqrt(c * (1 - c) / a.reps):.3f}")


if __name__ == "__main__":
    main()
