"""Binned models and reference samples agree across engines: one regression test per disagreement
found, every engine run on the same input.

A throwaway harness ran combinations through ``reportgen run`` and
``reportgen validate`` with ``--engine memory``, ``stream`` and ``dask`` and compared metrics.json
(the run block aside, its facts about the data kept) and the exit codes and error lines:
multiclass with weights, an id join, ``missing: drop`` and rows dropped by one model only;
Parquet parts of different row-group sizes beside a part of no rows; scores of heavy ties,
±0.0 and subnormals, all equal; models binned past ``stream.max_distinct_scores``; the credit
section with a segment; thresholds per model and run-wide; several challengers; SQLite sources
against the same rows as CSV; ``--set`` overrides; both score directions.

Rules decided here:

* a model binned past ``stream.max_distinct_scores`` has its decision threshold as a bin edge,
  so its counts at the threshold — the confusion table, every threshold metric, McNemar's
  table — are those of the raw rows, as memory gives them; only the ranking metrics (AUC within
  ``binning.auc_error_bound``), log-loss and Brier (each bin's rows at its lowest score), the
  optima (bin boundaries) and the intervals drawn on the binned cells stay the binned engines'
  own (README, "Binning");
* a higher-is-riskier binned model also has an edge just above 1, so its scores are
  probabilities exactly when the rows' are; it keeps its highest score, so a notice names the
  rows' range; weighted, its rows per (bin, class, weight) are its cells (intervals, row counts);
* a sample of no rows at all is named as every input is, by the credit section's batch reader too.

Everything else the harness tried agreed (100 random binary, 30 multiclass and 30 credit
configs, besides the cases above); the grade migration stays memory's alone, said alike by
stream and dask (capability ``migration: needs_rows``).
"""

from __future__ import annotations

import json
import sys
from pathlib import Path

import numpy as np
import pandas as pd
import pyarrow as pa
import pyarrow.parquet as pq
import pytest
import yaml

from reportgen import cli
from reportgen.reduce import accumulators as S

sys.path.insert(0, str(Path(__file__).parent))
from docdiff import first_difference
from test_bad_input_parity import config, rows
from test_engine_parity_credit import refused_alike_by_validate

ENGINES = ("memory", "stream", "dask")
RUN_FACTS = ("warnings", "notices", "dropped", "paired", "date_range", "classes")


def _write(tmp: Path, cfg: dict) -> Path:
    path = tmp / "run.yaml"
    path.write_text(
        yaml.safe_dump(
            {
                "title": "t",
                "output": {"formats": ["json"]},
                "bootstrap": {"resamples": 0},
                **cfg,
                "stream": {"batch_rows": 1000, **cfg.get("stream", {})},
            },
            sort_keys=False,
        ),
        encoding="utf-8",
    )
    return path


def _docs(cfg: Path, scheduler: str, capsys, *sets: str) -> dict[str, dict]:
    """Each engine's metrics.json minus ``run`` (its facts about the data kept); every run exits
    0, and so does ``validate`` with that engine."""
    docs = {}
    over = [a for s in sets for a in ("--set", s)]
    for engine in ENGINES:
        out = cfg.parent / f"out_{engine}"
        extra = ["--scheduler", scheduler] if engine == "dask" else []
        args = [
            "run",
            str(cfg),
            "--engine",
            engine,
            "--out",
            str(out),
            "--overwrite",
            "--quiet",
            "--now",
            "2026-01-01T00:00:00",
            *over,
            *extra,
        ]
        assert cli.main(args) == 0, f"{engine}: {capsys.readouterr().err}"
        validate = ["validate", str(cfg), "--quiet", *over, "--set", f"engine={engine}"]
        validate += ["--set", f"scheduler={scheduler}"] if engine == "dask" else []
        assert cli.main(validate) == 0, f"validate {engine}: {capsys.readouterr().err}"
        doc = json.loads((out / "metrics.json").read_text(encoding="utf-8"))
        run = doc.pop("run")
        doc.pop("digest", None)  # a digest of the whole document, run included
        doc["run_facts"] = {k: run.get(k) for k in RUN_FACTS}
        docs[engine] = doc
    return docs


def _parts(path: Path, df: pd.DataFrame, sizes: list[int], row_groups: list[int]) -> str:
    """``df`` as a directory of Parquet parts of ``sizes`` rows (0: a part of no rows), each
    written in row groups of its ``row_groups`` rows."""
    path.mkdir()
    start = 0
    for i, (size, group) in enumerate(zip(sizes, row_groups, strict=True)):
        pq.write_table(
            pa.Table.from_pandas(df.iloc[start : start + size], preserve_index=False),
            path / f"part-{i:02d}.parquet",
            row_group_size=group,
        )
        start += size
    assert start == len(df)
    return path.name


# --- 1. a binned model's counts at its decision threshold ---------------------------------------


#: what a binned model's document must share with memory's exact one: its counts at the threshold
AT_THRESHOLD = (
    "accuracy",
    "error_rate",
    "precision",
    "recall",
    "specificity",
    "npv",
    "fpr",
    "fnr",
    "f1",
    "fbeta",
    "mcc",
    "balanced_accuracy",
    "cohen_kappa",
    "youden_j",
    "expected_cost",
)


def _at_threshold(doc: dict) -> dict:
    """The facts of a document that depend only on each model's counts at its threshold."""
    return {
        "models": {
            name: {
                "confusion": m["confusion"],
                "threshold": m["threshold"],
                "confusion_rows": m["confusion_rows"],
                "positives_rows": m["positives_rows"],
                "metrics": {k: v for k, v in m["metrics"].items() if k in AT_THRESHOLD},
            }
            for name, m in doc["models"].items()
        },
        "mcnemar": [c["tests"]["mcnemar"] for c in doc["comparisons"]],
    }


@pytest.mark.parametrize("weighted", [False, True], ids=["unweighted", "weighted"])
def test_a_binned_model_counts_its_threshold_s_rows_as_memory_does(weighted, tmp_path, scheduler, capsys):
    """Past ``stream.max_distinct_scores`` stream and dask bin a model at quantiles of its scores,
    each bin's threshold its lowest score. A bin holding the configured threshold counted all its
    rows on one side of it: at threshold 0.5 (run-wide) and 620 (per model, points, lower is
    riskier) the binned engines reported recall 0.885 where memory, exact, gave 0.870, and
    McNemar's table of other rows. The threshold is now an edge of the model's bins, so its
    counts at the threshold are the raw rows' in every engine."""
    n = 1_200
    rng = np.random.default_rng(5)
    y = np.arange(n) % 2
    df = pd.DataFrame(
        {
            "y": y,
            "a": rng.random(n) + 0.4 * y,
            "b": 700 - 200 * rng.random(n) - 30 * y,
            "c": (rng.random(n) + 0.2 * y).round(2),
            "w": rng.integers(1, 4, n).astype(float),
        }
    )
    df.to_csv(tmp_path / "a.csv", index=False)
    cfg = _write(
        tmp_path,
        {
            "label": "y",
            **({"weight": "w"} if weighted else {}),
            "stream": {"max_distinct_scores": 300, "bins": 25},
            "models": [
                {"name": "a", "file": "a.csv", "score": "a"},
                {"name": "b", "file": "a.csv", "score": "b", "direction": "lower", "threshold": 620},
                {"name": "c", "file": "a.csv", "score": "c"},
            ],
        },
    )
    docs = _docs(cfg, scheduler, capsys)
    assert docs["memory"]["models"]["a"]["binning"] is None
    for engine in ("stream", "dask"):
        for name in ("a", "b"):
            assert docs[engine]["models"][name]["binning"]["bins"] <= 25
        assert docs[engine]["models"]["c"]["binning"] is None
        diff = first_difference(_at_threshold(docs["memory"]), _at_threshold(docs[engine]))
        assert diff is None, f"memory vs {engine}: {diff}"
    assert first_difference(docs["stream"], docs["dask"]) is None


def test_a_binned_weighted_model_keeps_its_cells_for_intervals_and_row_counts(tmp_path, scheduler, capsys):
    """A weighted model binned past the cap kept no weight cells in stream and dask, so it had no
    interval at all (capability ``model_interval.bootstrap: weighted``), no ``positives_rows``
    and no ``confusion_rows``, where memory had them all. The binned accumulator counts its rows
    per (bin, class, weight) anyway (its weight sums come from them): these are now the model's
    cells, put at its table rows, and the weighted bootstrap is drawn on them — the same in
    stream and dask, and the same capabilities as memory's."""
    n = 1_200
    rng = np.random.default_rng(7)
    y = np.arange(n) % 2
    df = pd.DataFrame(
        {
            "y": y,
            "a": rng.random(n) + 0.4 * y,
            "b": (rng.random(n) + 0.2 * y).round(2),
            "w": rng.integers(1, 4, n).astype(float),
        }
    )
    data = _parts(tmp_path / "parts", df, [500, 0, 700], [7, 1, 1000])
    cfg = _write(
        tmp_path,
        {
            "label": "y",
            "weight": "w",
            "bootstrap": {"resamples": 30, "seed": 2},
            "approval_rates": [0.6],
            "stream": {"max_distinct_scores": 300, "bins": 25},
            "models": [{"name": "a", "file": data, "score": "a"}, {"name": "b", "file": data, "score": "b"}],
        },
    )
    docs = _docs(cfg, scheduler, capsys)
    mem = docs["memory"]["models"]["a"]
    for engine in ("stream", "dask"):
        got = docs[engine]["models"]["a"]
        assert got["binning"] is not None
        assert sorted(got["ci"]) == sorted(mem["ci"]) and got["ci_method"] == mem["ci_method"], engine
        assert got.get("capabilities") == mem.get("capabilities"), engine
        assert (
            (got["positives_rows"], got["negatives_rows"])
            == (mem["positives_rows"], mem["negatives_rows"])
            == (600, 600)
        )
        assert got["confusion_rows"] == mem["confusion_rows"]
        assert docs[engine]["comparisons"][0].get("capabilities") == docs["memory"]["comparisons"][0].get(
            "capabilities"
        )
    assert first_difference(docs["stream"], docs["dask"]) is None


@pytest.mark.parametrize("method", ["quantile", "fixed"])
def test_bin_edges_hold_the_cut_and_no_more_bins(method):
    """The threshold is one of the edges, in place of a quantile's: ``bins`` bins at most."""
    s = np.random.default_rng(1).random(1000)
    plain, cut = S.bin_edges(s, 10, method), S.bin_edges(s, 10, method, (0.4321,))
    assert plain.shape[0] == 9 and cut.shape[0] == 9 and 0.4321 in cut
    assert np.all(np.diff(cut) < 0)
    assert S.bin_edges(s, 10, method, (float("nan"),)).tolist() == plain.tolist()
    assert S.bin_edges(np.zeros(0), 10, method, (-0.0,)).tolist() == [0.0]


def test_a_binned_model_with_scores_above_1_has_no_log_loss_as_in_memory(tmp_path, scheduler, capsys):
    """A binned table's scores are its bins' lowest scores, so a top bin holding 0.97 and 1.19
    looked like probabilities: stream and dask gave a log-loss, a Brier score and
    ``probabilities: true`` where memory, seeing 1.19, says "scores are not probabilities
    (outside [0, 1])". The float just above 1 is now a bin edge of a higher-is-riskier model, so
    a bin's lowest score is above 1 exactly when one of its rows is."""
    n = 1_200
    rng = np.random.default_rng(5)
    y = np.arange(n) % 2
    pd.DataFrame({"y": y, "a": rng.random(n) * 0.9 + 0.3 * y}).to_csv(tmp_path / "a.csv", index=False)
    cfg = _write(
        tmp_path,
        {
            "label": "y",
            "stream": {"max_distinct_scores": 300, "bins": 10},
            "models": [{"name": "a", "file": "a.csv", "score": "a"}],
        },
    )
    docs = _docs(cfg, scheduler, capsys)
    for engine in ENGINES:
        m = docs[engine]["models"]["a"]
        assert (m["binning"] is None) == (engine == "memory")
        assert m["metrics"]["log_loss"] is None and m["metrics"]["brier"] is None and m["probabilities"] is False, (
            engine
        )
        assert m["undefined_reasons"] == docs["memory"]["models"]["a"]["undefined_reasons"], engine
        assert m["undefined_reasons"]["log_loss"]["code"] == "not_probabilities_range"


@pytest.mark.parametrize("weighted", [False, True], ids=["unweighted", "weighted"])
def test_a_binned_model_names_its_raw_score_range_when_the_threshold_is_outside(weighted, tmp_path, scheduler, capsys):
    """ "threshold 2 lies outside the scores of model 'a' (… to 1.00179)": a binned table keeps
    each bin's lowest score, so the binned engines named the top bin's lowest score as the
    highest (memory: 1.19926), and for a lower-is-riskier model the bottom bin's highest as the
    lowest (533.6 against 500.05). The binned accumulator now keeps the highest score too, and
    the notice names the rows' range in every engine."""
    n = 1_200
    rng = np.random.default_rng(5)
    y = np.arange(n) % 2
    pd.DataFrame(
        {
            "y": y,
            "a": rng.random(n) * 0.9 + 0.3 * y,
            "b": 500 + 300 * rng.random(n),
            "w": rng.integers(1, 3, n).astype(float),
        }
    ).to_csv(tmp_path / "a.csv", index=False)
    cfg = _write(
        tmp_path,
        {
            "label": "y",
            **({"weight": "w"} if weighted else {}),
            "stream": {"max_distinct_scores": 300, "bins": 10},
            "models": [
                {"name": "a", "file": "a.csv", "score": "a", "threshold": 2},
                {"name": "b", "file": "a.csv", "score": "b", "direction": "lower", "threshold": 1000},
            ],
        },
    )
    docs = _docs(cfg, scheduler, capsys)
    for engine in ("stream", "dask"):
        for name in ("a", "b"):
            assert docs[engine]["models"][name]["binning"] is not None
            assert docs[engine]["models"][name]["notices"] == docs["memory"]["models"][name]["notices"], engine
    assert [n["code"] for n in docs["memory"]["models"]["b"]["notices"]] == ["threshold_outside_scores"]
    assert docs["memory"]["models"]["b"]["notices"][0]["params"]["score_min"] < 501


# --- 2. the credit section's reference sample ---------------------------------------------------


@pytest.mark.parametrize("kind", ["csv header", "parquet parts of no rows"])
def test_a_reference_sample_without_rows_is_named_as_memory_names_it(kind, tmp_path, scheduler, capsys):
    """A reference sample of no rows at all: memory said "the file has a header but no rows" (or
    "the file has no rows" for Parquet), as for any input; the streamed and Dask credit reader,
    meeting no batch, said "no rows left for the credit section after dropping rows with
    missing values" — of rows that were never there."""
    rows(40).to_csv(tmp_path / "a.csv", index=False)
    if kind == "csv header":
        rows(0).to_csv(tmp_path / "ref.csv", index=False)
        ref, words = "ref.csv", "ref.csv: the file has a header but no rows"
    else:
        ref, words = _parts(tmp_path / "ref", rows(0), [0, 0], [1, 1]), "ref: the file has no rows"
    cfg = config(tmp_path, [{"name": "a", "file": "a.csv", "score": "s", "reference": ref}], credit={})
    assert refused_alike_by_validate(cfg, scheduler, capsys).endswith(words)
