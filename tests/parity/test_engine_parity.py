"""Every engine gives the same metrics.json (issue 15): memory, stream and dask on the same inputs.

The promise of the architecture is that "a number never depends on which engine produced it":
each engine reduces rows to evidence and one driver turns evidence into results. These tests
hold the engines to it on small inputs that exercise what differs between the reading paths:
ties, weights (sampling and frequency), both score directions, an id join of shuffled files, rows dropped by
``missing: drop``, a threshold outside the scores, several files against one file and a
partitioned Parquet dataset, for ``task: binary`` and ``task: multiclass``, plus the two demos.

What is compared: the whole ``metrics.json`` document (``ComparisonResult.to_json`` through
``json``), minus the ``run`` block, whose ids, timings, paths, engine name and hashes
legitimately differ — except the run's facts about the data (:data:`RUN_FACTS`: warnings,
dropped rows, whether models were paired, the date range, the classes), which must not.
Point metrics, curves, optima, McNemar and the bootstrap intervals (same seed) must be equal to
the bit. The one tolerance (relative 1e-12, :data:`SUMMATION_ORDER`) is for DeLong's variance
and the numbers derived from it: the memory engine sums the placement values of the rows, the
streamed engines the same terms grouped by distinct score from merged tables, so the sums
agree to the last bits only (``tests/parity/test_scale.py`` documents the same). Weighted tables agree
exactly, binary and multiclass: weighted rows are counted per (cell, weight) and their weights
summed in one canonical order (:func:`reportgen.reduce.cells.weight_cells`).

A case that differs today is listed in ``known_differences.py`` and xfailed strictly with its cause: when
a fix lands, the case passes, strict xfail turns that into a failure, and the marker must go.
The comparison message names the first differing JSON path (``tests/parity/docdiff.py``).
"""

from __future__ import annotations

import json
from dataclasses import dataclass
from pathlib import Path
from typing import Any

import numpy as np
import pandas as pd
import pyarrow as pa
import pyarrow.parquet as pq
import pytest
import yaml
from docdiff import Difference, differences, matches
from known_differences import CAUSES, KNOWN

from reportgen.config import load_config
from reportgen.pipeline import analyse

ROOT = Path(__file__).resolve().parents[2]
CONFIGS = ROOT / "configs"
#: Rows of the synthetic inputs: three stream batches of the smallest allowed size (1,000).
N = 2_500
BATCH_ROWS = 1_000
#: Fields of ``run`` that are facts about the data, not about the run: they must agree too.
RUN_FACTS = ("warnings", "notices", "dropped", "paired", "date_range", "classes")
#: Where the float summation order legitimately differs between engines (see the module docstring).
#: Patterns are ``fnmatch`` globs over JSON paths (``*`` only: ``[`` starts a character class).
SUMMATION_ORDER = (
    "$.comparisons*.tests.delong.*",
    "$.comparisons*.ci.roc_auc*",
    "$.comparisons*.ci.gini*",
    "$.pairwise*.p_value",
    "$.pairwise*.p_value_holm",
    "$.comparisons*.decision.*",
    "$.models.*.ci.roc_auc*",
    "$.models.*.ci.gini*",
)
ENGINE_PAIRS = (("memory", "stream"), ("memory", "dask"), ("stream", "dask"))
#: What the document says, in five parts, so that a difference in one (say the bootstrap) does
#: not hide whether the others agree. A path belongs to the first aspect whose glob it matches;
#: ``point_metrics`` takes everything else (metrics, confusions, curves, optima, deltas, …).
ASPECTS: dict[str, tuple[str, ...]] = {
    "delong_mcnemar": ("$.comparisons*.tests.delong*", "$.comparisons*.tests.mcnemar*", "$.pairwise*"),
    "method_notes": ("$.comparisons*.tests.notes*", "$.comparisons*.tests.notices*"),
    "data_facts": ("$.run_facts*", "$.models.*.warnings*", "$.models.*.notices*"),
    "intervals": ("$.models.*.ci*", "$.comparisons*.ci*", "$.comparisons*.verdict"),
    "credit": ("$.credit*",),
    "point_metrics": ("*",),
}


# --- inputs ------------------------------------------------------------------------------------


def _binary_frame(seed: int = 11, n: int = N) -> pd.DataFrame:
    """Two scores with heavy ties: ``a`` higher = riskier (one decimal), ``b`` points, lower = riskier."""
    rng = np.random.default_rng(seed)
    y = (rng.random(n) < 0.2).astype(int)
    return pd.DataFrame(
        {
            "id": np.arange(100_000, 100_000 + n),
            "day": (np.datetime64("2025-01-01") + rng.integers(0, 90, n)).astype(str),
            "y": y,
            "a": np.round(rng.normal(size=n) + 1.2 * y, 1),
            "b": 600 - np.round(20 * (rng.normal(size=n) + 0.8 * y)),
            "w": np.round(rng.uniform(0.25, 3.0, n), 2),
            # a third model (two decimals, higher = riskier) and whole-number weights with zeros
            # (frequency weights: a row of weight 0 is no row; a score whose rows all weigh 0 is none)
            "c": np.round(rng.normal(size=n) + 0.6 * y, 2),
            "wi": rng.integers(0, 4, n),
        }
    )


def _multiclass_frame(seed: int = 12, n: int = N) -> pd.DataFrame:
    """Three classes, probabilities of two models (two decimals: ties) and a predicted label."""
    rng = np.random.default_rng(seed)
    classes = np.array(["low", "mid", "high"])
    k = rng.choice(3, n, p=[0.6, 0.3, 0.1])
    df = pd.DataFrame({"id": np.arange(1, n + 1), "y": classes[k], "w": np.round(rng.uniform(0.5, 2.0, n), 2)})
    for name, signal in (("m", 1.5), ("g", 0.8)):
        logits = rng.normal(size=(n, 3)) + signal * np.eye(3)[k]
        p = np.exp(logits) / np.exp(logits).sum(axis=1, keepdims=True)
        p = np.round(p, 2)
        p[:, 0] = np.round(1.0 - p[:, 1] - p[:, 2], 2)
        p = np.clip(p, 0.0, 1.0)
        for j, c in enumerate(classes):
            df[f"{name}_{c}"] = p[:, j]
    df["rule"] = classes[np.where(rng.random(n) < 0.7, k, rng.choice(3, n))]
    df["wi"] = rng.integers(1, 4, n)  # whole-number weights (frequency weights)
    return df


@pytest.fixture(scope="module")
def data_dir(tmp_path_factory) -> Path:
    """The synthetic inputs of every case, written once per module."""
    d = tmp_path_factory.mktemp("parity")
    b = _binary_frame()
    b.to_csv(d / "bin.csv", index=False)
    b[["id", "day", "y", "a", "w", "wi"]].to_csv(d / "bin_a.csv", index=False)
    b[["id", "day", "y", "b", "w", "wi"]].to_csv(d / "bin_b.csv", index=False)
    b[["id", "day", "y", "b", "w", "wi"]].sample(frac=1.0, random_state=3).to_csv(d / "bin_b_shuffled.csv", index=False)
    rng = np.random.default_rng(5)
    holes = b.astype({"y": float})
    rows = rng.choice(N, 60, replace=False)
    holes.loc[rows[:35], "y"] = np.nan  # dropped for every model: the rows still line up
    holes.loc[rows[35:], ["a", "b"]] = np.nan
    holes.to_csv(d / "bin_holes.csv", index=False)
    own = b.copy()  # each model its own holes: only an id join lines the rows up again
    own.loc[rng.choice(N, 40, replace=False), "a"] = np.nan
    own.loc[rng.choice(N, 25, replace=False), "b"] = np.nan
    own.to_csv(d / "bin_own_holes.csv", index=False)
    parts = b.assign(part=np.random.default_rng(6).integers(0, 4, N))
    pq.write_to_dataset(pa.Table.from_pandas(parts, preserve_index=False), d / "bin_ds", partition_cols=["part"])
    m = _multiclass_frame()
    m.to_csv(d / "mc.csv", index=False)
    m.drop(columns=[c for c in m if c.startswith("g_")]).to_csv(d / "mc_m.csv", index=False)
    m[["id", "y", "w", "g_low", "g_mid", "g_high"]].sample(frac=1.0, random_state=4).to_csv(
        d / "mc_g_shuffled.csv", index=False
    )
    rng = np.random.default_rng(7)
    mh = m.copy()
    mh.loc[rng.choice(N, 30, replace=False), "y"] = np.nan  # dropped for every model
    mh.to_csv(d / "mc_holes.csv", index=False)
    mo = m.copy()
    mo.loc[rng.choice(N, 30, replace=False), "m_mid"] = np.nan  # model m's own holes
    mo.to_csv(d / "mc_own_holes.csv", index=False)
    return d


# --- cases -------------------------------------------------------------------------------------


@dataclass(frozen=True)
class Case:
    """A config (as a dict, data paths relative to the data directory) and how to compare it."""

    name: str
    config: dict[str, Any]
    close: tuple[str, ...] = SUMMATION_ORDER


BOOT = {"resamples": 30, "seed": 5}
A = {"name": "a", "file": "bin.csv", "score": "a"}
B_LOWER = {"name": "b", "file": "bin.csv", "score": "b", "direction": "lower", "threshold": 585}
C = {"name": "c", "file": "bin.csv", "score": "c", "threshold": 0.3}
#: frequency weights (whole numbers, zeros among them): every engine counts a row of weight w as w rows
FREQUENCY = {"weight": "wi", "weight_kind": "frequency", "approval_rates": [0.7]}
BINARY = {"title": "parity", "label": "y", "threshold": 0.5, "beta": 2, "bootstrap": BOOT, "date": "day"}
MC_CLASSES = ["low", "mid", "high"]
MC_M = {"name": "m", "file": "mc.csv", "scores": {c: f"m_{c}" for c in MC_CLASSES}, "probabilities": True}
MC_G = {"name": "g", "file": "mc.csv", "scores": [f"g_{c}" for c in MC_CLASSES], "probabilities": True}
MC_RULE = {"name": "rule", "file": "mc.csv", "prediction": "rule"}
MULTICLASS = {"title": "parity", "task": "multiclass", "label": "y", "classes": MC_CLASSES, "bootstrap": BOOT}

CASES = [
    Case(
        "binary_demo",
        {
            "demo": "demo.yaml",
            "bootstrap": {"resamples": 20, "seed": 7},
            "calibration": {"bins": 8, "strategy": "quantile"},
        },
    ),
    Case("binary_ties_both_directions_one_file", {**BINARY, "models": [A, B_LOWER]}),
    Case(
        "binary_partial_auc",
        {
            **BINARY,
            "partial_auc": [{"specificity": [0.9, 1.0]}, {"sensitivity": [0.8, 1.0]}],
            "models": [A, B_LOWER, C],
        },
    ),
    Case("binary_weights", {**BINARY, "weight": "w", "models": [A, B_LOWER]}),
    # a weighted model joined by id to a shuffled file: its weights are read in another order
    Case(
        "binary_weights_id_join_shuffled_file",
        {
            **BINARY,
            "weight": "w",
            "id": "id",
            "models": [{**A, "file": "bin_a.csv"}, {**B_LOWER, "file": "bin_b_shuffled.csv"}],
        },
    ),
    Case("binary_frequency_weights_three_models", {**BINARY, **FREQUENCY, "models": [A, B_LOWER, C]}),
    Case(
        "binary_frequency_weights_id_join_shuffled_file",
        {
            **BINARY,
            **FREQUENCY,
            "id": "id",
            "models": [{**A, "file": "bin_a.csv"}, {**B_LOWER, "file": "bin_b_shuffled.csv"}],
        },
    ),
    # the same rows in two files (in the same order, or shuffled): memory joins them by id
    *(
        Case(name, {**BINARY, "id": "id", "models": [{**A, "file": "bin_a.csv"}, {**B_LOWER, "file": file_b}]})
        for name, file_b in (
            ("binary_several_files_same_order", "bin_b.csv"),
            ("binary_id_join_shuffled_file", "bin_b_shuffled.csv"),
        )
    ),
    Case(
        "binary_missing_drop_same_rows",
        {**BINARY, "missing": "drop", "models": [{**A, "file": "bin_holes.csv"}, {**B_LOWER, "file": "bin_holes.csv"}]},
    ),
    Case(
        "binary_missing_drop_id_intersect",
        {
            **BINARY,
            "missing": "drop",
            "id": "id",
            "id_mismatch": "intersect",
            "models": [{**A, "file": "bin_own_holes.csv"}, {**B_LOWER, "file": "bin_own_holes.csv"}],
        },
    ),
    Case("binary_threshold_outside_scores", {**BINARY, "threshold": 9.5, "models": [A, B_LOWER]}),
    Case("binary_parquet_parts", {**BINARY, "models": [{**A, "file": "bin_ds"}, {**B_LOWER, "file": "bin_ds"}]}),
    Case("multiclass_demo", {"demo": "demo_multiclass.yaml", "bootstrap": {"resamples": 20, "seed": 7}}),
    Case("multiclass_one_file", {**MULTICLASS, "models": [MC_M, MC_G, MC_RULE]}),
    Case("multiclass_weights", {**MULTICLASS, "weight": "w", "models": [MC_M, MC_G, MC_RULE]}),
    Case(
        "multiclass_frequency_weights",
        {**MULTICLASS, "weight": "wi", "weight_kind": "frequency", "models": [MC_M, MC_G, MC_RULE]},
    ),
    Case(
        "multiclass_id_join_shuffled_file",
        {**MULTICLASS, "id": "id", "models": [{**MC_M, "file": "mc_m.csv"}, {**MC_G, "file": "mc_g_shuffled.csv"}]},
    ),
    Case(
        "multiclass_missing_drop_same_rows",
        {
            **MULTICLASS,
            "missing": "drop",
            "models": [{**MC_M, "file": "mc_holes.csv"}, {**MC_RULE, "file": "mc_holes.csv"}],
        },
    ),
    Case(
        "multiclass_missing_drop_id_intersect",
        {
            **MULTICLASS,
            "missing": "drop",
            "id": "id",
            "id_mismatch": "intersect",
            "models": [{**MC_M, "file": "mc_own_holes.csv"}, {**MC_RULE, "file": "mc_own_holes.csv"}],
        },
    ),
]


def _write_config(case: Case, data_dir: Path) -> Path:
    """The case's YAML next to its data (a demo: the shipped config, with absolute data paths)."""
    cfg = dict(case.config)
    if "demo" in cfg:
        shipped = CONFIGS / cfg.pop("demo")
        demo = yaml.safe_load(shipped.read_text(encoding="utf-8"))
        for m in demo["models"]:
            m["file"] = str((shipped.parent / m["file"]).resolve())
            if "reference" in m:
                m["reference"] = str((shipped.parent / m["reference"]).resolve())
        cfg = {**demo, **cfg}
    path = data_dir / f"{case.name}.yaml"
    path.write_text(yaml.safe_dump(cfg, sort_keys=False), encoding="utf-8")
    return path


def comparable(doc: dict[str, Any]) -> dict[str, Any]:
    """``metrics.json`` without the run block, but with the run's facts about the data."""
    doc = json.loads(json.dumps(doc))  # exactly what metrics.json holds (tuples → lists, …)
    run = doc.pop("run")
    doc.pop("digest", None)  # a digest of the whole document, run included
    # the credit section is the same in every engine (its battery reads the distinct rows with
    # their counts in one canonical order, engine.credit.merged_rows) except the grade migration,
    # which joins rows by id: the memory engine computes it, the others state capability
    # needs_rows; that one entry is left out, the capability checked beside
    for m in (doc.get("credit") or {}).get("models", {}).values():
        m.pop("migration", None)
        m.get("capabilities", {}).pop("migration", None)
    doc["run_facts"] = {k: run.get(k) for k in RUN_FACTS}
    return doc


@pytest.fixture(scope="module")
def documents(data_dir, request):
    """``documents(case, engine)``: the case's comparable document from that engine, computed once
    (an engine that fails on the case fails every test of it, without running again)."""
    cache: dict[tuple[str, str], dict[str, Any] | Exception] = {}

    def get(case: Case, engine: str) -> dict[str, Any]:
        if (case.name, engine) not in cache:
            cfg, path = load_config(_write_config(case, data_dir))
            over: dict[str, Any] = {"engine": engine}
            if engine != "memory":
                over["stream"] = {"batch_rows": BATCH_ROWS}
            if engine == "dask":
                over["scheduler"] = request.getfixturevalue("scheduler")
            try:
                cache[case.name, engine] = comparable(analyse(cfg.with_overrides(**over), path).to_json())
            except Exception as exc:  # noqa: BLE001  (re-raised below, for every aspect)
                cache[case.name, engine] = exc
        got = cache[case.name, engine]
        if isinstance(got, Exception):
            raise got
        return got

    return get


def aspect_of(d: Difference) -> str:
    """The aspect (a key of :data:`ASPECTS`) a difference belongs to."""
    return next(name for name, globs in ASPECTS.items() if matches(d.path, globs))


def _params():
    for case in CASES:
        for left, right in ENGINE_PAIRS:
            for aspect in ASPECTS:
                pair = f"{left}-vs-{right}"
                reason = CAUSES[aspect] if (case.name, pair, aspect) in KNOWN else None
                marks = () if reason is None else (pytest.mark.xfail(strict=True, reason=f"issue 15: {reason}"),)
                yield pytest.param(case, (left, right), aspect, id=f"{case.name}-{pair}-{aspect}", marks=marks)


@pytest.mark.slow
@pytest.mark.parametrize(("case", "engines", "aspect"), list(_params()))
def test_engines_write_the_same_metrics_json(documents, case, engines, aspect):
    """The two engines' documents agree at every JSON path of the aspect (exactly, or to 1e-12
    where the summation order legitimately differs); the message names the first that does not."""
    left, right = (documents(case, e) for e in engines)
    diffs = [d for d in differences(left, right, case.close) if aspect_of(d) == aspect]
    assert not diffs, f"{engines[0]} vs {engines[1]}, {aspect}: {len(diffs)} difference(s), first: {diffs[0]}"
