"""Coverage of the 95 % intervals on simulated populations with known values (issue 16).

Run: ``python benchmarks/coverage_intervals.py [--samples 400] [--sizes 1000 100000]
[--check-every 4] [--first 0]``; ``--ks-only`` (the one-model KS columns alone, same seeds and
draws) and ``--auc-only`` (DeLong alone, cheap enough for thousands of samples) re-measure one
column. Not part of the test suite (minutes of CPU; at 100k rows about 1–2 CPU s per sample for
``--ks-only``).

Population (binormal, known in closed form): a case-control sample of ``n`` rows, 20 %
positives (class sizes fixed, as the stratified bootstrap assumes); model a scores
``N(0, 1)`` on negatives and ``N(μ_a, 1)`` on positives, model b ``N(μ_b, 1)``, the two
correlated ρ = 0.6 within each class; scores rounded to 6 decimals (so at 100k rows each
model has more than 4,096 distinct scores and its per-model bootstrap is drawn on the binned
table). The true values:

* AUC_a = Φ(μ_a/√2); paired ΔAUC = Φ(μ_a/√2) − Φ(μ_b/√2) (interval: DeLong, paired);
* KS_a = 2Φ(μ_a/2) − 1 (the TPR − FPR gap is largest at t = μ_a/2): the reshaped bootstrap-t
  the driver reports (:func:`~reportgen.engine.intervals.ks_interval`), and beside it the
  percentile interval of the same resamples, which it replaced (the study's reason);
* F1_a at threshold t: with TPR = 1 − Φ(t − μ_a), FPR = 1 − Φ(t), P and N the class sizes,
  F1 = 2·P·TPR / (2·P·TPR + N·FPR + P·(1 − TPR)), the value on the population's expected
  counts (bootstrap). (F1 is a ratio, its finite-sample mean is not exactly this value; the
  difference is O(1/n) and does not move coverage at these sizes.)
* ΔKS (paired bootstrap of the joint score table).

Engines: each sample is reduced three ways — memory (:func:`~reportgen.reduce.rows.
evidence_of_rows`: the local runner over the rows held whole), stream (the streamed engines'
accumulators over chunks of 10,000 rows) and dask (accumulators per part of the rows, merged) —
and the study checks that the three give bit-identical score tables and pair counts and the
same DeLong covariance (rtol 1e-12); the driver is one function of that evidence, so the
intervals (and their coverage) are the same in every engine. The intervals are computed by the
functions the driver calls for them
(DeLong from the table and the paired covariance; :func:`~reportgen.engine.intervals.
model_bootstrap` and :func:`~reportgen.engine.intervals.ks_interval`;
:func:`~reportgen.engine.intervals.pair_bootstrap`), without the curves,
optima and report the driver also makes. Coverage is the share of samples whose interval holds the true value; with 400
samples its Monte-Carlo standard error at 95 % is 1.1 points.
"""

from __future__ import annotations

import argparse
import math
import time

import numpy as np

from reportgen.engine import binary as B
from reportgen.engine import intervals as IV
from reportgen.engine.curve import build_table
from reportgen.engine.distributions import norm_ppf
from reportgen.engine.evidence import BinaryEvidence, BinaryModelEvidence, LoadAudit, Pairing
from reportgen.engine.streaming import delong_from_table
from reportgen.reduce import accumulators as S
from reportgen.reduce.rows import ModelRows, evidence_of_rows

MU_A, MU_B, RHO, PREV, THRESHOLD = 1.2, 1.0, 0.6, 0.2, 0.8
IDX = {m: q for q, m in enumerate(B.METRICS)}
#: Rows per chunk of the streamed reductions (the smallest batch the stream engine allows is 1,000).
CHUNK = 10_000


def phi(x: float) -> float:
    return 0.5 * (1.0 + math.erf(x / math.sqrt(2.0)))


def truth(n: int) -> dict[str, float]:
    P = round(n * PREV)
    N = n - P
    tpr, fpr = 1.0 - phi(THRESHOLD - MU_A), 1.0 - phi(THRESHOLD)
    return {
        "roc_auc": phi(MU_A / math.sqrt(2.0)),
        "ks": 2.0 * phi(MU_A / 2.0) - 1.0,
        "f1": 2 * P * tpr / (2 * P * tpr + N * fpr + P * (1 - tpr)),
        "delta_roc_auc": phi(MU_A / math.sqrt(2.0)) - phi(MU_B / math.sqrt(2.0)),
        "delta_ks": (2.0 * phi(MU_A / 2.0) - 1.0) - (2.0 * phi(MU_B / 2.0) - 1.0),
    }


def sample(n: int, rng: np.random.Generator) -> tuple[np.ndarray, np.ndarray, np.ndarray]:
    P = round(n * PREV)
    y = np.zeros(n, dtype=bool)
    y[:P] = True
    za = rng.normal(size=n)
    zb = RHO * za + math.sqrt(1 - RHO * RHO) * rng.normal(size=n)
    return y, np.round(za + MU_A * y, 6), np.round(zb + MU_B * y, 6)


def accumulated(y: np.ndarray, scores: list[np.ndarray], parts: list[slice]) -> BinaryEvidence:
    """Evidence as the streamed engines reduce it: per part, each model's table accumulator over
    chunks; tables merged; then the paired pass over the same parts, accumulators merged."""
    tables = []
    for s in scores:
        whole = None
        for part in parts:
            acc = S.TableAccumulator()
            for lo in range(part.start, part.stop, CHUNK):
                hi = min(lo + CHUNK, part.stop)
                acc.add(s[lo:hi], y[lo:hi])
            t = acc.table()
            if whole is None:
                whole = S.TableAccumulator()
            whole.add_table(t)
        tables.append(whole.table())
    paired = None
    for part in parts:
        acc = S.PairedAccumulator(tables, [THRESHOLD, THRESHOLD])
        for lo in range(part.start, part.stop, CHUNK):
            hi = min(lo + CHUNK, part.stop)
            acc.add([s[lo:hi] for s in scores], y[lo:hi])
        if paired is None:
            paired = acc
        else:
            paired.merge(acc)
    assert paired is not None and paired.pair_tables is not None
    pairing = Pairing(
        "aligned",
        "aligned",
        covariance=paired.covariance(),
        agree=paired.agree.copy(),
        patterns=paired.joint.copy(),
        pair_counts=paired.pair_tables.finish(),
    )
    models = tuple(BinaryModelEvidence(name, "sim", t, THRESHOLD) for name, t in zip("ab", tables))
    return BinaryEvidence(models, pairing, LoadAudit(()))


def same_evidence(a: BinaryEvidence, b: BinaryEvidence) -> bool:
    for ma, mb in zip(a.models, b.models):
        for f in ("thresholds", "pos", "neg"):
            if not np.array_equal(getattr(ma.table, f), getattr(mb.table, f)):
                return False
    pa, pb = a.pairing.pair_counts, b.pairing.pair_counts
    assert pa is not None and pb is not None
    return (
        all(np.array_equal(x, z) for x, z in zip(pa.counts, pb.counts))
        and np.array_equal(a.pairing.patterns, b.pairing.patterns)
        and np.allclose(a.pairing.covariance, b.pairing.covariance, rtol=1e-12, atol=0)
    )


def normal_interval(estimate: float, variance: float, level: float) -> tuple[float, float]:
    """``estimate ± z·√variance`` (DeLong's interval of one AUC on the normal scale)."""
    z = float(norm_ppf(0.5 + level / 2.0)) * math.sqrt(max(variance, 0.0))
    return estimate - z, estimate + z


def covered(iv: list[float] | None, value: float) -> bool:
    return iv is not None and iv[0] <= value <= iv[1]


def auc_only(args: argparse.Namespace) -> None:
    """Coverage of the one-model DeLong interval alone (samples as :func:`main` draws them)."""
    print("| n | samples | AUC (DeLong) | misses below / above | seconds |\n|---|---|---|---|---|")
    for n in args.sizes:
        true, t0 = truth(n)["roc_auc"], time.perf_counter()
        below = above = 0
        for i in range(args.first, args.first + args.samples):
            y, a, _ = sample(n, np.random.default_rng((n, i)))
            d = delong_from_table(build_table(a, y))
            lo, hi = normal_interval(d.auc, d.variance, 0.95)
            below += true < lo
            above += true > hi
        k = args.samples
        print(
            f"| {n:,} | {k} | {100 * (k - below - above) / k:.1f} % | {below} / {above} | "
            f"{time.perf_counter() - t0:.0f} |",
            flush=True,
        )


def ks_only(args: argparse.Namespace) -> None:
    """The full study's KS columns alone: model a's table (as every engine reduces it) and its
    bootstrap with the full study's seed, so the same intervals at a fraction of the cost."""
    print(
        "| n | samples | KS (reshaped bootstrap-t) | misses below / above | KS (percentile, replaced) | seconds |\n"
        "|---|---|---|---|---|---|"
    )
    for n in args.sizes:
        true, t0 = truth(n)["ks"], time.perf_counter()
        below = above = pct = 0
        for i in range(args.first, args.first + args.samples):
            y, a, _ = sample(n, np.random.default_rng((n, i)))
            boot = IV.model_bootstrap(build_table(a, y), THRESHOLD, args.resamples, np.random.default_rng((7, n, i)))
            assert boot.ks is not None
            iv = IV.ks_interval(boot.ks, 0.95)
            below += iv is not None and true < iv[0]
            above += iv is not None and true > iv[1]
            pct += covered(
                IV.percentile(boot.samples[:, IDX["ks"]], float(boot.shift[IDX["ks"]]), 0.95, 0.0, 1.0), true
            )
        k = args.samples
        print(
            f"| {n:,} | {k} | {100 * (k - below - above) / k:.1f} % | {below} / {above} | {100 * pct / k:.1f} % | "
            f"{time.perf_counter() - t0:.0f} |",
            flush=True,
        )


def _pi(a: np.ndarray) -> np.ndarray:
    """Inclusion probability of a population row in the weighted sample: 0.2 + 0.8·Φ(a − 1)."""
    from scipy.special import ndtr

    return 0.2 + 0.8 * ndtr(a - 1.0)


def weighted_sample(n: int, rng: np.random.Generator) -> tuple[np.ndarray, np.ndarray, np.ndarray, np.ndarray]:
    """``n`` rows of a weighted sample of the binormal population, class sizes fixed (20 %
    positives, as the stratified bootstrap assumes): within each class, population rows
    (``sample``'s scores) are kept with probability π = 0.2 + 0.8·Φ(a − 1) (high scores
    oversampled) and weigh 1/π (rounded to 4 decimals: continuous weights); the weighted
    metrics estimate the population's within-class rates, :func:`weighted_truth`."""
    P = round(n * PREV)
    out: list[list[np.ndarray]] = [[], [], [], []]
    for cls, size in ((True, P), (False, n - P)):
        mu_a, mu_b = (MU_A, MU_B) if cls else (0.0, 0.0)
        got = 0
        while got < size:
            m = 2 * size
            za = rng.normal(size=m)
            zb = RHO * za + math.sqrt(1 - RHO * RHO) * rng.normal(size=m)
            a, b = za + mu_a, zb + mu_b
            pi = _pi(a)
            keep = np.flatnonzero(rng.random(m) < pi)[: size - got]
            for part, x in zip(out, (np.full(keep.shape[0], cls), a[keep], b[keep], np.round(1.0 / pi[keep], 4))):
                part.append(x)
            got += keep.shape[0]
    y, a, b, w = (np.concatenate(x) for x in out)
    return y, np.round(a, 6), np.round(b, 6), w


def weighted_truth(n: int) -> dict[str, float]:
    """:func:`truth`, F1 at the weighted class totals' ratio: a class of P rows kept with mean
    inclusion E[π | class] = 0.2 + 0.8·Φ((μ − 1)/√2) weighs P / E[π | class] in expectation."""
    true = truth(n)
    P = round(n * PREV) / (0.2 + 0.8 * phi((MU_A - 1.0) / math.sqrt(2.0)))
    N = (n - round(n * PREV)) / (0.2 + 0.8 * phi(-1.0 / math.sqrt(2.0)))
    tpr, fpr = 1.0 - phi(THRESHOLD - MU_A), 1.0 - phi(THRESHOLD)
    true["f1"] = 2 * P * tpr / (2 * P * tpr + N * fpr + P * (1 - tpr))
    return true


def weighted_coverage(args: argparse.Namespace) -> None:
    """Coverage of weighted models' intervals (``--weighted``): the engine's own reduction (the
    counters every engine uses: a model's weight cells, the pair's joint cells on their bins) and
    the driver's draws — exact cells at 1k rows, pooled cells (moment-matched weight sums) past
    2^15 cells at 100k — percentile intervals moved by the binning error; KS by the reshaped
    bootstrap-t the driver reports, and beside it the percentile interval of the same draws."""
    from reportgen.engine.approval import joint_cell_luts
    from reportgen.engine.curve import row_groups

    print(
        "| n | samples | AUC | F1 at t=0.8 | KS (reshaped bootstrap-t) | KS (percentile) | ΔAUC paired | methods "
        "| seconds |"
    )
    print("|---|---|---|---|---|---|---|---|---|")
    for n in args.sizes:
        true = weighted_truth(n)
        hits = dict.fromkeys(["roc_auc", "f1", "ks", "ks_percentile", "delta_roc_auc"], 0)
        methods: set[str] = set()
        t0 = time.perf_counter()
        for i in range(args.first, args.first + args.samples):
            y, a, b, w = weighted_sample(n, np.random.default_rng((n, i, 1)))
            tables, codes = [], []
            for s in (a, b):
                acc = S.TableAccumulator()
                for lo in range(0, n, CHUNK):
                    acc.add(s[lo : lo + CHUNK], y[lo : lo + CHUNK], w[lo : lo + CHUNK])
                table = acc.table()
                assert table is not None and acc.weight_cells is not None
                cells = acc.weight_cells.cells(table)
                tables.append((S.table_of_cells(table, cells), cells))
                codes.append(row_groups(table, s))
            (ta, ca), (tb, _) = tables
            boot = IV.weighted_model_bootstrap(ta, ca, THRESHOLD, args.resamples, np.random.default_rng((7, n, i)))
            for q, key in (("roc_auc", "roc_auc"), ("f1", "f1"), ("ks", "ks_percentile")):
                hits[key] += covered(
                    IV.percentile(boot.samples[:, IDX[q]], float(boot.shift[IDX[q]]), 0.95, 0.0, 1.0), true[q]
                )
            assert boot.ks is not None
            hits["ks"] += covered(IV.ks_interval(boot.ks, 0.95), true["ks"])
            joint = S.JointCellCounter(joint_cell_luts([ta, tb], [THRESHOLD, THRESHOLD]))
            for lo in range(0, n, CHUNK):
                joint.add([c[lo : lo + CHUNK] for c in codes], y[lo : lo + CHUNK], [w[lo : lo + CHUNK]] * 2)
            jc = joint.result()
            assert jc is not None
            pair = IV.weighted_joint_bootstrap(
                jc, [ta, tb], [THRESHOLD] * 2, [None, None], args.resamples, np.random.default_rng((8, n, i))
            )
            q = IDX["roc_auc"]
            d = pair.samples[:, 0, q] - pair.samples[:, 1, q]
            hits["delta_roc_auc"] += covered(
                IV.percentile(d, float(pair.shift[0, q] - pair.shift[1, q]), 0.95), true["delta_roc_auc"]
            )
            methods |= {boot.method, boot.ks.method, pair.method}
        k = args.samples
        pct = {q: f"{100 * h / k:.1f} %" for q, h in hits.items()}
        print(
            f"| {n:,} | {k} | {pct['roc_auc']} | {pct['f1']} | {pct['ks']} | {pct['ks_percentile']} | "
            f"{pct['delta_roc_auc']} | "
            f"{'; '.join(sorted(methods))} | {time.perf_counter() - t0:.0f} |",
            flush=True,
        )
        print(f"<!-- weighted n={n:,} samples {args.first}..{args.first + k - 1} hits {hits} -->", flush=True)


def main() -> None:
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--samples", type=int, default=400)
    ap.add_argument("--sizes", type=int, nargs="+", default=[1_000, 100_000])
    ap.add_argument("--resamples", type=int, default=500)
    ap.add_argument("--check-every", type=int, default=1, help="compare the engines' evidence on every k-th sample")
    ap.add_argument(
        "--first",
        type=int,
        default=0,
        help="index of the first sample (split a study across processes; the hit counts add up)",
    )
    ap.add_argument(
        "--auc-only",
        action="store_true",
        help="only the one-model AUC (DeLong from the table): cheap, for many samples",
    )
    ap.add_argument(
        "--ks-only",
        action="store_true",
        help="only the one-model KS intervals (same tables, seeds and draws as the full study)",
    )
    ap.add_argument(
        "--weighted",
        action="store_true",
        help="weighted models (inverse-probability weights of an oversampled population) instead",
    )
    args = ap.parse_args()
    if args.weighted:
        weighted_coverage(args)
        return
    if args.auc_only:
        auc_only(args)
        return
    if args.ks_only:
        ks_only(args)
        return
    print(
        f"| n | samples | AUC (DeLong) | F1 at t={THRESHOLD} (bootstrap) | KS (reshaped bootstrap-t) "
        f"| KS (percentile, replaced) | ΔAUC paired (DeLong) | ΔKS paired (joint table) | engines agree (checked) "
        f"| seconds |"
    )
    print("|---|---|---|---|---|---|---|---|---|---|")
    for n in args.sizes:
        true = truth(n)
        hits = dict.fromkeys([*true, "ks_percentile"], 0)
        agree = checked = 0
        methods: set[str] = set()
        t0 = time.perf_counter()
        for i in range(args.first, args.first + args.samples):
            rng = np.random.default_rng((n, i))
            y, a, b = sample(n, rng)
            mem = evidence_of_rows(
                [ModelRows("a", "sim", a, y, threshold=THRESHOLD), ModelRows("b", "sim", b, y, threshold=THRESHOLD)],
                THRESHOLD,
            )
            if i % args.check_every == 0:
                checked += 1
                stream = accumulated(y, [a, b], [slice(0, n)])
                cut = n // 3
                dask = accumulated(y, [a, b], [slice(0, cut), slice(cut, 2 * cut), slice(2 * cut, n)])
                agree += same_evidence(mem, stream) and same_evidence(mem, dask)
            ta, tb = mem.models[0].table, mem.models[1].table
            da, db = delong_from_table(ta), delong_from_table(tb)
            hits["roc_auc"] += covered(list(normal_interval(da.auc, da.variance, 0.95)), true["roc_auc"])
            boot = IV.model_bootstrap(ta, THRESHOLD, args.resamples, np.random.default_rng((7, n, i)))
            for q, key in (("f1", "f1"), ("ks", "ks_percentile")):
                hits[key] += covered(
                    IV.percentile(boot.samples[:, IDX[q]], float(boot.shift[IDX[q]]), 0.95, 0.0, 1.0), true[q]
                )
            assert boot.ks is not None
            hits["ks"] += covered(IV.ks_interval(boot.ks, 0.95), true["ks"])
            cov = mem.pairing.covariance
            var_d = cov[0, 0] + cov[1, 1] - 2 * cov[0, 1]
            z = 1.959963984540054 * math.sqrt(max(var_d, 0.0))
            d_auc = da.auc - db.auc
            hits["delta_roc_auc"] += covered([d_auc - z, d_auc + z], true["delta_roc_auc"])
            pc = mem.pairing.pair_counts
            pair = IV.pair_bootstrap(
                pc.of(0, 1),
                pc.luts[0],
                pc.luts[1],
                (ta, tb),
                (THRESHOLD, THRESHOLD),
                (None, None),
                args.resamples,
                np.random.default_rng((8, n, i)),
            )
            hits["delta_ks"] += covered(
                IV.percentile(pair.samples[:, IDX["ks"]], float(pair.shift[IDX["ks"]]), 0.95), true["delta_ks"]
            )
            methods |= {boot.method, boot.ks.method, "binned joint table" if pair.binned else "exact joint table"}
        k = args.samples
        pct = {q: f"{100 * h / k:.1f} %" for q, h in hits.items()}
        print(
            f"| {n:,} | {k} | {pct['roc_auc']} | {pct['f1']} | {pct['ks']} | {pct['ks_percentile']} | "
            f"{pct['delta_roc_auc']} | {pct['delta_ks']} | {agree}/{checked} | {time.perf_counter() - t0:.0f} |",
            flush=True,
        )
        print(
            f"<!-- n={n:,} samples {args.first}..{args.first + k - 1} hits {hits} methods: {sorted(methods)} -->",
            flush=True,
        )


if __name__ == "__main__":
    main()
