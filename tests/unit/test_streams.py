"""Random streams (reportgen.engine.streams): one per purpose and model, so a model's intervals
depend on the seed, its own rows and its name only — not on the other models or their order —
and the threaded comparison gives the bits of a one-thread run."""

from __future__ import annotations

import json

import numpy as np
import pytest

from reportgen import parallel
from reportgen.engine import compare as C
from reportgen.engine import streams
from reportgen.engine.driver import compare_evidence
from reportgen.reduce.rows import ModelRows, evidence_of_rows
from reportgen.results import to_jsonable


def rows(n: int = 3000, seed: int = 4) -> list[ModelRows]:
    rng = np.random.default_rng(seed)
    y = rng.random(n) < 0.2
    z = rng.normal(size=n) + 1.1 * y
    return [
        ModelRows("champion", "a.csv", np.round(1 / (1 + np.exp(-z - rng.normal(size=n))), 3), y),
        ModelRows("challenger", "a.csv", np.round(1 / (1 + np.exp(-z - 0.5 * rng.normal(size=n))), 3), y),
        ModelRows(
            "naive", "a.csv", np.round(600 - 40 * (z + 2 * rng.normal(size=n))), y, direction="lower", threshold=600.0
        ),
    ]


SETTINGS = C.Settings(resamples=200, seed=99, baseline="champion", primary_metric="gini")


def compared(models: list[ModelRows], settings: C.Settings = SETTINGS):
    return compare_evidence(evidence_of_rows(models, threshold=0.3), settings)


def test_a_models_intervals_do_not_depend_on_the_other_models_or_their_order():
    m = rows()
    alone = compared([m[0]])[0]["champion"]
    among, comparisons, _ = compared(m)
    reordered, comparisons_r, _ = compared([m[2], m[1], m[0]])
    for other in (among["champion"], reordered["champion"]):
        assert other.ci == alone.ci
        assert other.ci_method == alone.ci_method
    assert among["naive"].ci == reordered["naive"].ci
    # a comparison's ranking-metric interval (the pair's joint table) is the pair's own stream too
    by_name = {c.model: c for c in comparisons}
    by_name_r = {c.model: c for c in comparisons_r}
    for name in ("challenger", "naive"):
        assert by_name[name].ci["ks"] == by_name_r[name].ci["ks"]
        assert (
            by_name[name].ci["log_loss" if name == "challenger" else "average_precision"]
            == by_name_r[name].ci["log_loss" if name == "challenger" else "average_precision"]
        )


def test_the_seed_still_decides():
    m = rows()
    a = compared(m)[0]["challenger"].ci
    b = compared(m, C.Settings(resamples=200, seed=100, baseline="champion"))[0]["challenger"].ci
    assert a["f1"] != b["f1"] or a["brier"] != b["brier"]


def test_threads_give_the_bits_of_one_thread(monkeypatch):
    m = rows()
    threaded = compared(m)
    monkeypatch.setattr(parallel, "THREADS", 1)
    single = compared(m)
    assert json.dumps(to_jsonable(threaded)) == json.dumps(to_jsonable(single))


def test_streams_are_distinct_per_purpose_and_name():
    draws = {
        (p, n): streams.stream(7, p, *n).integers(0, 2**62, 4).tolist()
        for p in streams.PURPOSES
        for n in [(), ("a",), ("b",), ("a", "b"), ("b", "a")]
    }
    assert len({tuple(v) for v in draws.values()}) == len(draws)
    assert streams.stream(7, "model", "a").random() == streams.stream(7, "model", "a").random()
    with pytest.raises(ValueError):
        streams.stream(7, "no such purpose")


def _multiclass_log_loss_ci(tmp_path, names: list[str]) -> dict[str, list[float]]:
    import pandas as pd
    import yaml

    from reportgen.config import load_config
    from reportgen.pipeline import analyse

    rng = np.random.default_rng(5)
    n, classes = 1500, ["x", "y", "z"]
    y = rng.choice(3, n, p=[0.5, 0.3, 0.2])
    df = pd.DataFrame({"id": np.arange(n), "label": np.array(classes)[y]})
    for name, signal in (("a", 1.5), ("b", 0.8), ("c", 1.1)):
        logits = rng.normal(size=(n, 3)) + signal * np.eye(3)[y]
        p = np.exp(logits) / np.exp(logits).sum(axis=1, keepdims=True)
        for j, cls in enumerate(classes):
            df[f"{name}_{cls}"] = p[:, j]
    df.to_csv(tmp_path / "mc.csv", index=False)
    cfg = {
        "task": "multiclass",
        "label": "label",
        "classes": classes,
        "id": "id",
        "bootstrap": {"resamples": 60, "seed": 17},
        "output": {"dir": "out", "formats": ["json"]},
        "models": [
            {"name": m, "file": "mc.csv", "scores": [f"{m}_{c}" for c in classes], "probabilities": True} for m in names
        ],
    }
    path = tmp_path / f"mc_{''.join(names)}.yaml"
    path.write_text(yaml.safe_dump(cfg, sort_keys=False), encoding="utf-8")
    result = analyse(load_config(path)[0], path)
    return {name: m.ci["log_loss"] for name, m in result.models.items()}


def test_a_multiclass_models_log_loss_interval_does_not_depend_on_the_other_models(tmp_path):
    """The log-loss draws pick each class's rows once for every model with those rows (stream
    ``class_log_loss``, keyed by the class): a model's interval is still the same alone, among
    other models and in another order."""
    alone = _multiclass_log_loss_ci(tmp_path, ["a"])
    among = _multiclass_log_loss_ci(tmp_path, ["b", "a", "c"])
    reordered = _multiclass_log_loss_ci(tmp_path, ["c", "a"])
    assert alone["a"] == among["a"] == reordered["a"]
    assert among["c"] == reordered["c"]
