"""The metric catalogue against what the engines compute, and everything that reads it.

A metric an engine computes without a catalogue row (or a row no engine computes) fails here,
as does any list elsewhere (config choices, engine tuples, report and figure selections) that
no longer agrees with the rows.
"""

from __future__ import annotations

import dataclasses
import typing

import numpy as np
import pytest

from reportgen import catalog, config
from reportgen.engine import binary as B
from reportgen.engine import compare as CMP
from reportgen.engine import compare_multiclass as CMC
from reportgen.engine import multiclass as MC
from reportgen.engine.class_tables import build_class_tables
from reportgen.engine.compare import Settings
from reportgen.engine.curve import build_table
from reportgen.engine.driver import compare_evidence
from reportgen.engine.evidence import LoadAudit, MulticlassEvidence, MulticlassModelEvidence, Pairing
from reportgen.errors import ConfigError
from reportgen.report import figures
from reportgen.report.labels import CRITERION_LABELS, LABELS, short_label
from reportgen.report.views import comparison

LABELS_MC = ("a", "b", "c")


def _binary_table(seed: int = 0, n: int = 200):
    rng = np.random.default_rng(seed)
    y = rng.random(n) < 0.3
    scores = np.round(rng.random(n) * 0.6 + 0.4 * y, 2)
    return build_table(scores, y)


def _multiclass_result(with_proba: bool, costs: np.ndarray | None = None):
    rng = np.random.default_rng(1)
    n, k = 120, len(LABELS_MC)
    y = rng.integers(0, k, n)
    proba = rng.dirichlet(np.ones(k), n)
    proba[np.arange(n), y] += 0.5
    proba /= proba.sum(axis=1, keepdims=True)
    confusion = MC.confusion_matrix(y, proba.argmax(axis=1), k)
    tables = build_class_tables(y, proba, None, k) if with_proba else None
    model = MulticlassModelEvidence("m", "m.csv", confusion, n, tables, False, not with_proba)
    evidence = MulticlassEvidence(LABELS_MC, (model,), Pairing("aligned", "single_model"), LoadAudit(()))
    models, _, _ = compare_evidence(
        evidence, Settings(primary_metric="f1_macro", resamples=0, cost_matrix=costs, ordinal=True)
    )
    return models["m"]


# --------------------------------------------------------------------------------------
# Rows against the engines
# --------------------------------------------------------------------------------------


def test_binary_engine_computes_exactly_the_catalogue_rows_in_order():
    m = B.compute_metrics(_binary_table(), 0.5)
    assert [k for k, _ in m.values] == list(catalog.keys("binary"))


def test_binary_threshold_arrays_are_the_threshold_rows():
    t = _binary_table()
    tp, fp = t.cumulative_view()
    arrays = B.metric_arrays(tp, fp, t.total_pos, t.total_neg)
    assert set(arrays) == set(catalog.keys("binary", "threshold"))


def test_binary_threshold_metrics_depend_only_on_the_confusion_counts():
    """Two score tables with the same counts at the threshold agree on every threshold metric
    and (here) differ on a ranking metric: the ``kind`` column says which is which."""
    y = np.array([1, 1, 0, 1, 0, 0, 0, 1, 0, 0], dtype=bool)
    a = np.array([0.9, 0.8, 0.7, 0.6, 0.3, 0.2, 0.1, 0.45, 0.4, 0.05])
    b = np.array([0.6, 0.95, 0.55, 0.7, 0.1, 0.35, 0.2, 0.05, 0.45, 0.4])  # same cut at 0.5, other order
    ma, mb = B.compute_metrics(build_table(a, y), 0.5), B.compute_metrics(build_table(b, y), 0.5)
    assert ma.confusion == mb.confusion
    for key in catalog.keys("binary", "threshold"):
        assert ma.get(key) == mb.get(key), key
    assert ma.get("roc_auc") != mb.get("roc_auc")


def test_binary_probability_rows_are_the_metrics_undefined_without_probabilities():
    m = B.compute_metrics(_binary_table(), 0.5, probabilities=False)
    undefined = {k for k, v in m.values if v is None}
    assert undefined == {r.key for r in catalog.metrics_of("binary") if r.probabilities}


def test_binary_values_lie_in_their_catalogue_ranges():
    for seed in range(5):
        m = B.compute_metrics(_binary_table(seed), 0.5, costs=B.Costs(fn=3.0, fp=1.0))
        for key, v in m.values:
            row = catalog.metric(key)
            assert v is None or row.lo <= v <= row.hi, (key, v)


def test_multiclass_engine_computes_exactly_the_catalogue_rows_in_order():
    m = _multiclass_result(with_proba=True, costs=np.ones((3, 3)) - np.eye(3))
    assert list(m.metrics) == list(catalog.keys("multiclass"))


def test_every_multiclass_engine_field_has_a_catalogue_row():
    """The scalar fields of ``MulticlassMetrics`` are catalogue rows (error_rate is derived
    from accuracy by the comparison, so it is the one row without a field)."""
    hints = typing.get_type_hints(MC.MulticlassMetrics)
    scalar = {
        f.name
        for f in dataclasses.fields(MC.MulticlassMetrics)
        if hints[f.name] in (float, float | None) and f.name not in ("total_weight", "beta")
    }
    assert scalar == set(catalog.keys("multiclass")) - {"error_rate"}


def test_multiclass_probability_rows_are_the_metrics_undefined_with_predictions_only():
    m = _multiclass_result(with_proba=False, costs=np.ones((3, 3)) - np.eye(3))
    undefined = {k for k, v in m.metrics.items() if v is None}
    assert undefined == {r.key for r in catalog.metrics_of("multiclass") if r.probabilities}
    assert set(MC._PROBABILITY_FIELDS) == undefined


def test_optimal_thresholds_follow_the_criterion_rows():
    opts = B.optimal_thresholds(_binary_table())
    assert [o.criterion for o in opts] == [c.key for c in catalog.CRITERIA]
    assert [o.description for o in opts] == [c.label for c in catalog.CRITERIA]
    for o in opts:
        if o.criterion != "break_even":
            assert catalog.criterion(o.criterion).better == catalog.metric(o.criterion).better


# --------------------------------------------------------------------------------------
# Everything else reads the rows
# --------------------------------------------------------------------------------------


def test_engine_lists_are_the_catalogue():
    assert catalog.keys("binary") == B.METRICS
    assert catalog.better("binary") == B.BETTER
    assert tuple(c.key for c in catalog.CRITERIA) == B.CRITERIA
    assert catalog.keys("multiclass") == CMC.METRICS
    assert catalog.better("multiclass") == CMC.BETTER
    assert set(CMC._PROBA_METRICS) == {r.key for r in catalog.metrics_of("multiclass") if r.probabilities}
    assert tuple(r.key for r in catalog.metrics_of("binary") if r.ideal_one) == CMP.MAX_ONE
    assert tuple(r.key for r in catalog.metrics_of("multiclass") if r.ideal_one) == CMC.MAX_ONE
    assert set(CMP.DELONG_METRICS) <= set(catalog.keys("binary", "ranking"))


def test_binary_clipping_ranges_are_the_bounded_rows():
    assert {r.key: (r.lo, r.hi) for r in catalog.metrics_of("binary") if r.bounded} == B.RANGES
    assert "log_loss" not in B.RANGES and "expected_cost" not in B.RANGES


def test_config_choices_are_the_catalogue():
    assert catalog.primary_metrics("binary") == config.PRIMARY_METRICS
    assert catalog.primary_metrics("multiclass") == config.MULTICLASS_PRIMARY_METRICS
    assert typing.get_args(config.ConstraintMetric) == catalog.constraint_metrics()
    assert catalog.constraint_metrics() == config.CONSTRAINT_METRICS


def test_constraint_metrics_have_a_known_search_behaviour():
    assert set(catalog.constraint_metrics()) <= set(B._ALONG_RUN)


def test_labels_are_the_catalogue():
    assert {r.key: r.label for r in catalog.METRICS} == LABELS
    assert {c.key: c.label for c in catalog.CRITERIA} == CRITERION_LABELS
    assert short_label("gini") == "Gini"
    assert short_label("precision_at_recall_ge_0.8") == "precision at recall ge 0.8"


def test_report_and_figure_selections_name_catalogue_rows():
    assert set(comparison.KEY_COMPARISON_METRICS) <= set(catalog.keys("binary"))
    assert set(comparison.KEY_MULTICLASS_METRICS) <= set(catalog.keys("multiclass"))
    assert set(figures._PANEL) <= set(catalog.keys("binary", "threshold"))
    assert set(figures.PREVALENCE_CRITERIA) <= {c.key for c in catalog.CRITERIA}


def test_rows_are_unique_and_well_formed():
    keys = [r.key for r in catalog.METRICS]
    assert len(keys) == len(set(keys))
    assert len({c.key for c in catalog.CRITERIA}) == len(catalog.CRITERIA)
    for r in catalog.METRICS:
        assert r.lo < r.hi and r.tasks and set(r.tasks) <= {"binary", "multiclass"}
        assert not r.constraint or ("binary" in r.tasks and r.kind == "threshold")


# --------------------------------------------------------------------------------------
# Config: the drift that was fixed
# --------------------------------------------------------------------------------------


def _cfg(task: str, primary: str) -> str:
    extra = "classes: [a, b, c]\n" if task == "multiclass" else ""
    model = "prediction: p" if task == "multiclass" else "score: s"
    return f"task: {task}\n{extra}label: y\nprimary_metric: {primary}\nmodels:\n  - {{name: m, file: m.csv, {model}}}\n"


@pytest.mark.parametrize("task", ["binary", "multiclass"])
def test_every_directed_metric_of_the_task_may_be_the_primary_metric(task):
    for key in catalog.primary_metrics(task):
        assert config.parse_config(_cfg(task, key)).primary == key


def test_multiclass_error_rate_may_rank_models():
    """Regression: the multiclass engine reports error_rate but the config refused it."""
    assert config.parse_config(_cfg("multiclass", "error_rate")).primary == "error_rate"


@pytest.mark.parametrize("task", ["binary", "multiclass"])
def test_baseline_accuracy_cannot_rank_models(task):
    with pytest.raises(ConfigError, match="no better direction"):
        config.parse_config(_cfg(task, "baseline_accuracy"))


def test_a_metric_of_the_other_task_is_refused():
    with pytest.raises(ConfigError, match="unknown metric 'gini' for task: multiclass"):
        config.parse_config(_cfg("multiclass", "gini"))
