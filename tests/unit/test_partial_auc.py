"""Partial AUC (reportgen.engine.partial_auc): its config, an oracle on random tied scores, the
bootstrap test between models and its place in the verdicts' Holm family, the report table."""

from __future__ import annotations

import numpy as np
import pandas as pd
import pytest
from sklearn.metrics import roc_auc_score

from reportgen.api import compare_frames
from reportgen.config import config_from_mapping
from reportgen.engine import partial_auc as PA
from reportgen.engine.curve import build_table
from reportgen.engine.stats import holm
from reportgen.errors import ConfigError
from reportgen.report.views.common import Models
from reportgen.report.views.partial_auc import partial_auc_view

BASE = {"label": "y", "models": [{"name": "a", "file": "a.csv", "score": "s"}]}


@pytest.mark.parametrize(
    "entry, words",
    [
        ({"specificity": [0.9, 1.0], "sensitivity": [0.8, 1.0]}, "exactly one of"),
        ({}, "exactly one of"),
        ({"specificity": [0.9, 0.8]}, "0 <= lo < hi <= 1"),
        ({"sensitivity": [0.5, 1.2]}, "0 <= lo < hi <= 1"),
        ({"specificty": [0.9, 1.0]}, "specificty"),
    ],
)
def test_a_partial_auc_range_is_one_axis_and_an_ordered_pair_in_0_1(entry, words):
    with pytest.raises(ConfigError, match=words):
        config_from_mapping({**BASE, "partial_auc": [entry]})


def test_partial_auc_needs_task_binary():
    mc = {"label": "y", "task": "multiclass", "models": [{"name": "a", "file": "a.csv", "prediction": "p"}]}
    with pytest.raises(ConfigError, match="partial_auc"):
        config_from_mapping({**mc, "partial_auc": [{"specificity": [0.9, 1.0]}]})


@pytest.mark.parametrize("seed", range(5))
@pytest.mark.parametrize("max_fpr", [0.05, 0.1, 0.37])
def test_corrected_specificity_range_equals_scikit_learn_max_fpr(seed, max_fpr):
    """Oracle: scikit-learn's ``roc_auc_score(max_fpr=m)`` is McClish's standardised area over
    FPR ≤ m with linear interpolation at m, i.e. pROC's corrected pAUC over specificity [1 − m, 1]."""
    rng = np.random.default_rng(seed)
    y = rng.random(400) < 0.3
    s = np.round(rng.normal(size=400) + 0.8 * y, 1)  # heavy ties
    t = build_table(s, y)
    r = PA.PartialRange("specificity", 1.0 - max_fpr, 1.0)
    assert float(PA.corrected(PA.partial_auc(t, r), r)) == pytest.approx(
        roc_auc_score(y, s, max_fpr=max_fpr), rel=1e-10
    )


def test_the_sensitivity_range_is_the_specificity_range_of_the_swapped_classes():
    """Swapping the classes and negating the score swaps sensitivity and specificity: the
    sensitivity pAUC of a model is the specificity pAUC of its mirror (an independent identity)."""
    rng = np.random.default_rng(3)
    y = rng.random(300) < 0.4
    s = np.round(rng.normal(size=300) + y, 1)
    for lo, hi in ((0.8, 1.0), (0.1, 0.35)):
        se = PA.partial_auc(build_table(s, y), PA.PartialRange("sensitivity", lo, hi))
        sp = PA.partial_auc(build_table(-s, ~y), PA.PartialRange("specificity", lo, hi))
        assert se == pytest.approx(sp, rel=1e-12)


def test_the_full_range_is_the_auc():
    rng = np.random.default_rng(4)
    y = rng.random(200) < 0.5
    s = np.round(rng.normal(size=200) + y, 1)
    t = build_table(s, y)
    for focus in ("specificity", "sensitivity"):
        assert PA.partial_auc(t, PA.PartialRange(focus, 0.0, 1.0)) == pytest.approx(roc_auc_score(y, s), rel=1e-12)


@pytest.fixture(scope="module")
def result():
    rng = np.random.default_rng(8)
    n = 1500
    y = (rng.random(n) < 0.25).astype(int)
    df = pd.DataFrame(
        {
            "y": y,
            "good": np.round(rng.normal(size=n) + 1.4 * y, 2),
            "weak": np.round(rng.normal(size=n) + 0.5 * y, 2),
            "same": np.round(rng.normal(size=n) + 1.4 * y, 2),
        }
    )
    return compare_frames(
        df,
        label="y",
        scores=["good", "weak", "same"],
        threshold=0.5,
        partial_auc=[{"specificity": [0.9, 1.0]}, {"sensitivity": [0.8, 1.0]}],
        bootstrap={"resamples": 200, "seed": 3},
        now="2026-01-01T00:00:00Z",
    )


def test_each_model_reports_its_partial_aucs_in_config_order_with_intervals(result):
    for m in result.models.values():
        assert [(p.focus, p.lo, p.hi) for p in m.partial_auc] == [("specificity", 0.9, 1.0), ("sensitivity", 0.8, 1.0)]
        for p in m.partial_auc:
            assert p.ci is not None and p.ci[0] <= p.value <= p.ci[1]
            assert p.corrected_ci is not None and p.corrected_ci[0] <= p.corrected <= p.corrected_ci[1]


def test_the_paired_test_finds_a_clear_difference_and_not_an_absent_one(result):
    by = {c.model: c for c in result.comparisons}
    weak = by["weak"].partial_auc[0]
    assert weak.paired and weak.delta < 0 and weak.significant and weak.ci[1] < 0
    assert weak.delta == pytest.approx(
        result.models["weak"].partial_auc[0].value - result.models["good"].partial_auc[0].value
    )
    same = by["same"].partial_auc
    assert all(t.p_value > 0.001 for t in same)


def test_partial_auc_tests_are_holm_adjusted_with_the_verdicts(result):
    """One family: the verdicts' size counts the partial AUC tests, and every adjusted p is Holm's
    over the verdicts' and the partial AUC tests' raw p-values together."""
    comps = result.comparisons
    raw = [c.decision.p_value for c in comps] + [t.p_value for c in comps for t in c.partial_auc]
    adjusted = holm(raw)
    assert all(c.decision.family_size == 6 for c in comps)
    got = [c.decision.p_value_adjusted for c in comps] + [t.p_value_adjusted for c in comps for t in c.partial_auc]
    assert got == pytest.approx(adjusted)
    assert all(t.family_size == 6 for c in comps for t in c.partial_auc)


def test_the_report_table_shows_every_model_and_challenger_per_range(result):
    view = partial_auc_view(result, Models.of(result, ["#000000", "#111111", "#222222"]))
    assert len(view.tables) == 2
    t = view.tables[0]
    assert t.title.startswith("Specificity 0.900 to 1.000")
    assert [r.model for r in t.rows] == ["good", "weak", "same"]
    assert [r.model for r in t.tests] == ["weak", "same"]
    assert t.tests[0].verdict == "lower" and t.tests[0].delta.startswith("−")
