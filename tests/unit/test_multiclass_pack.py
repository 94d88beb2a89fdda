"""A multiclass pack a committee can read (issue 40): no metric row that repeats another, weighted
kappa only for classes declared ordinal, zero-width intervals warned, a warning once per fact, a
missing interval said in its cell, the config as run without another task's settings.

Oracles: scikit-learn for every identity and value the tables rely on."""

from __future__ import annotations

import numpy as np
import pandas as pd
import pytest
import yaml
from sklearn import metrics as skm

import reportgen.catalog as catalog
from reportgen.api import compare_models
from reportgen.config import config_from_mapping
from reportgen.engine.multiclass import compute_multiclass
from reportgen.errors import ConfigError
from reportgen.report import figures
from reportgen.report.views.appendix import appendix_view
from reportgen.report.views.common import Models
from reportgen.report.views.metrics import metrics_view
from reportgen.report.views.per_class import per_class_view
from reportgen.report.wording import merged, notice_texts
from reportgen.results import Notice

#: scikit-learn's value of each metric key (y, pred, beta) for the identities of catalog.TWINS.
_SK = {
    "accuracy": lambda y, p, b: skm.accuracy_score(y, p),
    "balanced_accuracy": lambda y, p, b: skm.balanced_accuracy_score(y, p),
    "precision_micro": lambda y, p, b: skm.precision_score(y, p, average="micro"),
    "recall_micro": lambda y, p, b: skm.recall_score(y, p, average="micro"),
    "f1_micro": lambda y, p, b: skm.f1_score(y, p, average="micro"),
    "fbeta_micro": lambda y, p, b: skm.fbeta_score(y, p, beta=b, average="micro"),
    "recall_weighted": lambda y, p, b: skm.recall_score(y, p, average="weighted", zero_division=0),
    "recall_macro": lambda y, p, b: skm.recall_score(y, p, average="macro", zero_division=0),
    "f1_macro": lambda y, p, b: skm.f1_score(y, p, average="macro", zero_division=0),
    "f1_weighted": lambda y, p, b: skm.f1_score(y, p, average="weighted", zero_division=0),
    "fbeta_macro": lambda y, p, b: skm.fbeta_score(y, p, beta=b, average="macro", zero_division=0),
    "fbeta_weighted": lambda y, p, b: skm.fbeta_score(y, p, beta=b, average="weighted", zero_division=0),
}


@pytest.mark.parametrize("seed", range(5))
@pytest.mark.parametrize("beta", [1.0, 2.0])
def test_every_twin_the_table_leaves_out_equals_its_row_by_scikit_learn(seed, beta):
    rng = np.random.default_rng(seed)
    k = 4
    y = rng.integers(0, k, 300)
    pred = np.where(rng.random(300) < 0.6, y, rng.integers(0, k, 300))
    for key, (other, _) in catalog.TWINS.items():
        if "multiclass" not in catalog.metric(key).tasks:
            continue
        if catalog.twin_of(key, "multiclass", beta=beta, every_class_occurs=True) is None:
            assert key.startswith("fbeta") and beta != 1.0
            assert _SK[key](y, pred, beta) != pytest.approx(_SK[other](y, pred, beta))
            continue
        assert _SK[key](y, pred, beta) == pytest.approx(_SK[other](y, pred, beta), abs=1e-12), key


def test_macro_recall_is_a_twin_only_when_every_class_occurs():
    y = np.array([0, 0, 1, 1, 1, 2, 2, 0])  # class 3 never occurs in the truth
    pred = np.array([0, 1, 1, 1, 3, 2, 0, 0])
    labels = [0, 1, 2, 3]
    assert skm.balanced_accuracy_score(y, pred) != pytest.approx(
        skm.recall_score(y, pred, labels=labels, average="macro", zero_division=0)
    )
    assert catalog.twin_of("recall_macro", "multiclass", beta=1.0, every_class_occurs=False) is None
    assert catalog.twin_of("recall_macro", "multiclass", beta=1.0, every_class_occurs=True) == "balanced_accuracy"
    # binary F-beta is F1 at β = 1 as well
    assert catalog.twin_of("fbeta", "binary", beta=1.0, every_class_occurs=True) == "f1"
    assert catalog.twin_of("fbeta", "binary", beta=0.5, every_class_occurs=True) is None


def test_weighted_kappa_only_for_classes_declared_ordinal():
    rng = np.random.default_rng(3)
    y = rng.integers(0, 5, 200)
    pred = np.clip(y + rng.integers(-1, 2, 200), 0, 4)
    nominal = compute_multiclass(y, list("abcde"), y_pred_idx=pred)
    assert nominal.quadratic_weighted_kappa is None
    assert nominal.reason("quadratic_weighted_kappa").code == "classes_not_ordinal"
    assert nominal.cohen_kappa == pytest.approx(skm.cohen_kappa_score(y, pred), abs=1e-12)
    ordinal = compute_multiclass(y, list("abcde"), y_pred_idx=pred, ordinal=True)
    assert ordinal.quadratic_weighted_kappa == pytest.approx(
        skm.cohen_kappa_score(y, pred, weights="quadratic"), abs=1e-12
    )
    assert ordinal.reason("quadratic_weighted_kappa") is None


def test_ordinal_is_refused_for_a_binary_run():
    with pytest.raises(ConfigError, match="ordinal"):
        config_from_mapping(
            {"task": "binary", "label": "y", "ordinal": True, "models": [{"name": "a", "file": "a.csv", "score": "s"}]}
        )


def test_notices_of_one_fact_for_several_models_are_one_warning():
    ns = [Notice("small_classes", {"model": m, "classes": ["x"], "min_rows": 30}) for m in ("a", "b", "c")]
    ns.insert(1, Notice("small_classes", {"model": "d", "classes": ["y"], "min_rows": 30}))
    out = merged(ns)
    assert [n.code for n in out] == ["small_classes", "small_classes"]
    texts = notice_texts(ns)
    assert texts[0].startswith("models 'a', 'b' and 'c': class(es) 'x' have fewer than 30 rows")
    assert texts[1].startswith("model 'd': class(es) 'y'")


@pytest.fixture(scope="module")
def digits_like(tmp_path_factory):
    """Three models on 6 nominal classes, one class separated perfectly by every model's scores
    (its one-vs-rest AUC interval is [1, 1]), one class of 20 rows (small for every model)."""
    d = tmp_path_factory.mktemp("pack")
    rng = np.random.default_rng(11)
    sizes = [60, 60, 60, 60, 60, 20]
    y = np.repeat(np.arange(6), sizes)
    files = []
    for j, name in enumerate(("m1", "m2", "m3")):
        logits = rng.normal(0, 1, (y.size, 6)) + (1.5 + 0.5 * j) * np.eye(6)[y]
        logits[:, 0] = np.where(y == 0, 50.0, -50.0)  # class 'c0' perfectly separated
        p = np.exp(logits - logits.max(axis=1, keepdims=True))
        p /= p.sum(axis=1, keepdims=True)
        df = pd.DataFrame(p, columns=[f"p{c}" for c in range(6)])
        df.insert(0, "label", [f"c{v}" for v in y])
        df.insert(0, "id", range(y.size))
        df.to_csv(d / f"{name}.csv", index=False)
        files.append(name)
    cfg = {
        "title": "pack",
        "task": "multiclass",
        "label": "label",
        "id": "id",
        "classes": [f"c{c}" for c in range(6)],
        "bootstrap": {"resamples": 60, "seed": 2},
        "models": [
            {"name": n, "file": str(d / f"{n}.csv"), "scores": [f"p{c}" for c in range(6)], "probabilities": True}
            for n in files
        ],
    }
    path = d / "pack.yaml"
    path.write_text(yaml.safe_dump(cfg))
    result = compare_models(config_from_mapping(cfg, str(path)), path, now="2026-01-01T00:00:00Z")
    return result, Models.of(result, figures.PALETTE)


def test_the_metrics_table_has_no_repeated_row_and_says_which_it_left_out(digits_like):
    result, ms = digits_like
    view = metrics_view(result, ms)
    keys = [r.key for r in view.rows]
    for twin in (
        "precision_micro",
        "recall_micro",
        "f1_micro",
        "fbeta_micro",
        "recall_weighted",
        "recall_macro",
        "fbeta_macro",
        "fbeta_weighted",
        "quadratic_weighted_kappa",
        "expected_cost",
    ):
        assert twin not in keys, twin
        assert twin in result.models["m1"].metrics  # metrics.json keeps every key
    assert "Recall, weighted" in view.omitted and "equal to Accuracy" in view.omitted
    assert "F-beta, macro" in view.omitted and "at β = 1" in view.omitted
    assert "Quadratic-weighted kappa (n/a for every model: the classes are not declared ordered" in view.omitted
    # the cells that have no interval say why; a cell with one shows it
    base = next(r for r in view.rows if r.key == "baseline_accuracy")
    assert {c.ci for c in base.cells} == {"no interval: fixed by the labels"}
    assert all(c.ci.startswith("[") for r in view.rows if r.key == "accuracy" for c in r.cells)


def test_a_zero_width_per_class_interval_is_warned_once_naming_every_model(digits_like):
    result, _ = digits_like
    for m in result.models.values():
        assert list(m.per_class_ci["c0"]["roc_auc"]) == [1.0, 1.0]
        assert any(n.code == "zero_width_class_interval" and list(n.params["classes"]) == ["c0"] for n in m.notices)
    warnings = result.run.warnings
    zero = [w for w in warnings if "one-vs-rest AUC of class(es) 'c0' has zero width" in w]
    assert zero == [w for w in zero if w.startswith("models 'm1', 'm2' and 'm3'")] and len(zero) == 1
    small = [w for w in warnings if "fewer than 30 rows" in w]
    assert len(small) == 1 and small[0].startswith("models 'm1', 'm2' and 'm3': class(es) 'c5'")


def test_every_value_of_the_classification_tables_has_its_interval(digits_like):
    result, ms = digits_like
    view = per_class_view(result, ms)
    assert [t.title for t in view.tables] == ["ROC AUC (one-vs-rest)"]
    for report in view.reports:
        assert [r.label for r in report.rows][-3:] == ["Macro average", "Weighted average", "Micro (pooled)"]
        assert all(c.ci for r in report.rows for c in r.cells), report.name
        assert "no-information rate" in report.nir


def test_the_config_as_run_shows_only_the_tasks_own_settings(digits_like):
    result, _ = digits_like
    cfg = yaml.safe_load(appendix_view(result).config_yaml)
    assert "costs" not in cfg  # the binary default {fn: 1, fp: 1, ...} meant nothing here
    for key in ("approval_rates", "weight_kind", "positive", "threshold", "prevalences", "constraints"):
        assert key not in cfg, key
    assert cfg["classes"] == [f"c{c}" for c in range(6)]
