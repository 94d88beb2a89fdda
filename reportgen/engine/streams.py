"""The random streams of a comparison: one per purpose and model (or pair), from the config's seed.

Every random draw of a run (the bootstraps of intervals, paired differences, equal approval
rates) comes from a generator made here, never from one stream shared in config order. Each
stream is NumPy's PCG64 on ``SeedSequence(seed, spawn_key=(purpose, *names))`` — the spawn key
is how NumPy derives independent, reproducible child streams from one seed (NumPy's "Parallel
random number generation" guide) — where each model contributes a 32-bit key of its name.

So a model's interval depends only on the seed, its own evidence and its name: not on which
other models the config lists, nor in what order (adding a challenger leaves the champion's
intervals as they were), and the models and pairs can be drawn in threads in any order with
the same bits. Two purposes never share a stream (each draws its own numbers).
"""

from __future__ import annotations

import hashlib

import numpy as np

#: The purposes, in a fixed order (their index is the stream's first key; never reorder).
PURPOSES = (
    "model",  # a binary model's own bootstrap (its table's cells, or its weight cells)
    "patterns",  # threshold-metric differences: all models' decision patterns at once
    "pair",  # a comparison's joint score table (ranking-metric differences)
    "weighted_pairs",  # weighted models: the joint weight cells of every model at once
    "approval",  # comparisons at equal approval rates
    "class_counts",  # multiclass: a model's confusion-count draws
    "class_rows",  # multiclass: the rows' bootstrap of every model at once (averaged AUCs, log-loss)
    "class_auc",  # multiclass: a model's per-class AUC draws (its class tables)
    "class_pairs",  # multiclass: a comparison's joint confusion counts
    "fairness",  # a model's per-group count tables of one protected column
    "partial_auc",  # a binary model's partial AUC bootstrap (its table's cells)
    "partial_auc_pair",  # a comparison's partial AUC differences (the pair's joint score table)
    "calibration",  # a binary model's calibration bootstrap (its table's cells)
    "class_report",  # multiclass: a model's classification-table draws (its confusion counts)
    "class_pair_deltas",  # retired (per-class differences now read class_pairs' draws); kept: the order is the key
    "calibration_pair",  # a comparison's calibration differences (the pair's joint score table)
    "operating_points",  # a binary model's operating points and optima (its table's cells)
    "operating_points_pair",  # a comparison's differences at the operating points (joint table)
    "class_top_k",  # multiclass: a model's top-k accuracy draws (its counts by the true class's rank)
    "class_brier",  # multiclass: a model's Brier score and top-label ECE draws (its error cells)
    "class_brier_pair",  # multiclass: a comparison's Brier change (the pair's per-row error differences)
    "class_log_loss",  # multiclass: a class's rows picked for every model's log-loss draws (keyed by the class)
)


def name_key(name: str) -> int:
    """A model name as a 32-bit key: the first four bytes of its UTF-8 SHA-256 (little-endian)."""
    return int.from_bytes(hashlib.sha256(name.encode("utf-8")).digest()[:4], "little")


def stream(seed: int, purpose: str, *names: str) -> np.random.Generator:
    """The generator of ``purpose`` for the models ``names`` (none: one stream for the purpose)."""
    key = (PURPOSES.index(purpose), *(name_key(n) for n in names))
    return np.random.Generator(np.random.PCG64(np.random.SeedSequence(seed, spawn_key=key)))
