"""Speed of the multiclass engine against scikit-learn, measured in the same run (issue 5).

Run: ``python benchmarks/bench_multiclass.py [--rows 10000000] [--classes 10] [--repeat 2]``
(``--rows 1000000`` for a quick run: scikit-learn alone takes minutes at 10M rows).

Data (deterministic, seed 0): ``--rows`` rows, ``--classes`` K classes with unequal shares
(class c drawn with probability ∝ 0.8^c), a float64 probability matrix (n, K) that is the
softmax of noisy logits (standard normal noise, +1.5 on the true class; every row sums to 1,
every score distinct), and the predicted label = the argmax of each row.

Timed, best of ``--repeat`` (scikit-learn: once unless ``--sk-repeat``), in four parts that
together are every quantity :func:`reportgen.engine.multiclass.compute_multiclass` returns:

1. ``labels``: the confusion matrix and everything derived from it. reportgen:
   ``compute_multiclass`` with the predictions only (confusion matrix by one ``bincount``
   over ``true·K + pred``, per-class table, micro / macro / weighted averages, balanced
   accuracy, Cohen's and quadratic kappa, MCC). scikit-learn: ``confusion_matrix``,
   ``precision_recall_fscore_support`` per class and for micro / macro / weighted,
   ``balanced_accuracy_score``, ``cohen_kappa_score``, ``matthews_corrcoef``.
2. ``log-loss``: ``log_loss`` of the probability matrix.
3. ``AUC ovr+ovo``: the one-vs-rest AUC per class with its macro and support-weighted means,
   and Hand & Till's one-vs-one AUC. reportgen: from the class tables (below), shared by both.
   scikit-learn: ``roc_auc_score(multi_class="ovr", average="macro")``, the same with
   ``average="weighted"``, ``roc_auc_score(multi_class="ovo")`` and ``roc_auc_score`` per
   class (``average=None``) for the per-class values.
4. ``AUC micro``: the pooled one-vs-rest AUC over the n·K cells
   (``roc_auc_score(multi_class="ovr", average="micro")``). reportgen: the score table of the
   cells by one value sort of label-carrying keys (not from the class tables).

reportgen reduces the probability matrix once to its class tables
(:mod:`reportgen.engine.class_tables`: per score column and true class, the distinct scores
and their counts, by value sorts of the K² blocks); parts 2 and 3 each include building them, so
every part is timed as if it were the only one asked for, and the ``(tables)`` line shows the
build alone. ``total`` for reportgen is one ``compute_multiclass`` call with predictions and
probabilities (not the sum of the parts); for scikit-learn the sum of its parts. The ratio
column is scikit-learn / reportgen (target ≥ 1 for every part: reportgen is never slower).
Peak memory is traced with tracemalloc (numpy allocations) for the full reportgen call, as a
multiple of the input bytes (true labels, predictions and the probability matrix).

Before timing, every number is checked against scikit-learn to 1e-9 (an AssertionError
otherwise). Timings on a shared machine are noisy; the ratios, measured in the same run, less.
"""

from __future__ import annotations

import argparse
import time

import numpy as np
from bench_binary import best_of, peak_bytes

from reportgen.engine import class_tables as CT
from reportgen.engine import multiclass as MC


def make_data(n: int, k: int, seed: int = 0) -> tuple[np.ndarray, np.ndarray, np.ndarray]:
    """(true labels, predicted labels = argmax, probability matrix (n, k) float64)."""
    rng = np.random.default_rng(seed)
    share = 0.8 ** np.arange(k)
    share /= share.sum()
    y = rng.choice(k, size=n, p=share).astype(np.int64)
    z = rng.normal(size=(n, k))
    z[np.arange(n), y] += 1.5
    z -= z.max(axis=1, keepdims=True)
    np.exp(z, out=z)
    z /= z.sum(axis=1, keepdims=True)
    pred = np.argmax(z, axis=1).astype(np.int64)
    return y, pred, z


# --- reportgen: the parts -------------------------------------------------------------


def rg_labels(y, pred, p, labels):
    return MC.compute_multiclass(y, labels, y_pred_idx=pred)


def rg_tables(y, p):
    return CT.build_class_tables(y, p, None, p.shape[1])


def rg_log_loss(y, pred, p, labels):
    t = rg_tables(y, p)
    return MC._log_loss(t, float(y.shape[0]), {}, {})


def rg_auc(y, pred, p, labels):
    t = rg_tables(y, p)
    support = np.bincount(y, minlength=len(labels)).astype(np.float64)
    S = CT.pair_sums(t)
    aucs, why = MC._ovr_aucs(S, support, tuple(labels))
    macro, weighted = MC._ovr_averages(aucs, why, support, tuple(labels), {}, {})
    ovo, _ = MC._ovo_macro(S, support, tuple(labels))
    return aucs, macro, weighted, ovo


def rg_micro(y, pred, p, labels):
    return CT.table_auc(MC._micro_table(y, p, None))


def rg_total(y, pred, p, labels):
    return MC.compute_multiclass(y, labels, y_pred_idx=pred, proba=p)


# --- scikit-learn: the same quantities ------------------------------------------------


def sk_labels(y, pred, p, labels):
    from sklearn import metrics as skm

    out = {"confusion": skm.confusion_matrix(y, pred, labels=labels)}
    out["per_class"] = skm.precision_recall_fscore_support(y, pred, labels=labels, zero_division=0)
    for avg in ("micro", "macro", "weighted"):
        out[avg] = skm.precision_recall_fscore_support(y, pred, labels=labels, average=avg, zero_division=0)
    out["balanced_accuracy"] = skm.balanced_accuracy_score(y, pred)
    out["kappa"] = skm.cohen_kappa_score(y, pred, labels=labels)
    out["mcc"] = skm.matthews_corrcoef(y, pred)
    return out


def sk_log_loss(y, pred, p, labels):
    from sklearn.metrics import log_loss

    return log_loss(y, p, labels=labels)


def sk_auc(y, pred, p, labels):
    from sklearn.metrics import roc_auc_score

    return {
        "per_class": roc_auc_score(y, p, multi_class="ovr", average=None, labels=labels),
        "macro": roc_auc_score(y, p, multi_class="ovr", average="macro", labels=labels),
        "weighted": roc_auc_score(y, p, multi_class="ovr", average="weighted", labels=labels),
        "ovo": roc_auc_score(y, p, multi_class="ovo", labels=labels),
    }


def sk_micro(y, pred, p, labels):
    from sklearn.metrics import roc_auc_score

    return roc_auc_score(y, p, multi_class="ovr", average="micro", labels=labels)


PARTS = (
    ("labels", rg_labels, sk_labels),
    ("log-loss", rg_log_loss, sk_log_loss),
    ("AUC ovr+ovo", rg_auc, sk_auc),
    ("AUC micro", rg_micro, sk_micro),
)


def check_agreement(y, pred, p, labels, sk: dict) -> None:
    """Every value of the full reportgen call equals scikit-learn's to 1e-9 (absolute)."""
    mm = rg_total(y, pred, p, labels)

    def close(a, b, what):
        assert a is not None, what
        assert np.allclose(np.asarray(a, dtype=np.float64), np.asarray(b, dtype=np.float64), rtol=0, atol=1e-9), (
            f"{what}: reportgen {a} vs scikit-learn {b}"
        )

    lab, ll, auc, micro = sk["labels"], sk["log-loss"], sk["AUC ovr+ovo"], sk["AUC micro"]
    close(mm.confusion, lab["confusion"], "confusion matrix")
    prec, rec, f1, support = lab["per_class"]
    close([c.precision or 0.0 for c in mm.per_class], prec, "per-class precision")
    close([c.recall or 0.0 for c in mm.per_class], rec, "per-class recall")
    close([c.f1 or 0.0 for c in mm.per_class], f1, "per-class f1")
    close([c.support for c in mm.per_class], support, "per-class support")
    for avg in ("micro", "macro", "weighted"):
        p_, r_, f_, _ = lab[avg]
        close(getattr(mm, f"precision_{avg}"), p_, f"precision_{avg}")
        close(getattr(mm, f"recall_{avg}"), r_, f"recall_{avg}")
        close(getattr(mm, f"f1_{avg}"), f_, f"f1_{avg}")
    close(mm.balanced_accuracy, lab["balanced_accuracy"], "balanced_accuracy")
    close(mm.cohen_kappa, lab["kappa"], "cohen_kappa")
    close(mm.mcc, lab["mcc"], "mcc")
    close(mm.log_loss, ll, "log_loss")
    close([c.roc_auc for c in mm.per_class], auc["per_class"], "per-class roc_auc")
    close(mm.roc_auc_ovr_macro, auc["macro"], "roc_auc_ovr_macro")
    close(mm.roc_auc_ovr_weighted, auc["weighted"], "roc_auc_ovr_weighted")
    close(mm.roc_auc_ovo_macro, auc["ovo"], "roc_auc_ovo_macro")
    close(mm.roc_auc_ovr_micro, micro, "roc_auc_ovr_micro")


def timed(fn, repeat: int):
    """(best time, the result of the first call)."""
    t0 = time.perf_counter()
    out = fn()
    times = [time.perf_counter() - t0]
    for _ in range(repeat - 1):
        t0 = time.perf_counter()
        fn()
        times.append(time.perf_counter() - t0)
    return min(times), out


def main() -> None:
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--rows", type=int, nargs="+", default=[10_000_000])
    ap.add_argument("--classes", type=int, default=10)
    ap.add_argument("--repeat", type=int, default=2)
    ap.add_argument("--sk-repeat", type=int, default=1, help="repeats of the (slow) scikit-learn sequence")
    ap.add_argument("--no-check", action="store_true", help="skip the agreement check against scikit-learn")
    args = ap.parse_args()
    k = args.classes
    labels = list(range(k))
    head = f"{'rows':>11} {'K':>3} {'part':>12} {'reportgen s':>11} {'sklearn s':>10} {'sk/rg':>7}"
    print(head)
    print("-" * len(head))
    for n in args.rows:
        y, pred, p = make_data(n, k)
        sk: dict = {}
        t_sk_total = 0.0
        rows = []
        for name, rg, skf in PARTS:
            t_rg = best_of(lambda: rg(y, pred, p, labels), args.repeat)
            t_sk, sk[name] = timed(lambda: skf(y, pred, p, labels), args.sk_repeat)
            t_sk_total += t_sk
            rows.append((name, t_rg, t_sk))
            print(f"{n:>11,} {k:>3} {name:>12} {t_rg:>11.3f} {t_sk:>10.3f} {t_sk / t_rg:>7.1f}", flush=True)
        if not args.no_check:
            check_agreement(y, pred, p, labels, sk)
        t_tab = best_of(lambda: rg_tables(y, p), args.repeat)
        print(f"{n:>11,} {k:>3} {'(tables)':>12} {t_tab:>11.3f} {'':>10} {'':>7}")
        t_total = best_of(lambda: rg_total(y, pred, p, labels), args.repeat)
        print(f"{n:>11,} {k:>3} {'total':>12} {t_total:>11.3f} {t_sk_total:>10.3f} {t_sk_total / t_total:>7.1f}")
        peak = peak_bytes(lambda: rg_total(y, pred, p, labels)) / (y.nbytes + pred.nbytes + p.nbytes)
        check = "skipped" if args.no_check else "agrees with scikit-learn to 1e-9"
        print(f"{'':>11} reportgen peak numpy memory / input bytes: {peak:.2f}; {check}", flush=True)


if __name__ == "__main__":
    main()
