"""The engine returns facts and codes; the report layer writes every sentence (issue 15).

Each notice code's sentence is pinned to the text the engine used to write itself (the
messages users and scripts grep for), the engine's own results carry no prose, and a saved
``metrics.json`` re-renders with the same verdicts and warnings.
"""

from __future__ import annotations

import json
from pathlib import Path

import numpy as np
import pytest

from reportgen.engine.compare import Settings
from reportgen.reduce.evidence_of import ModelRows, compare_rows
from reportgen.results import ComparisonResult, ModelResult, Notice, from_jsonable, to_jsonable
from reportgen.wording import NOTICE_CODES, caveats_of, model_warnings, notice_text, rule, verdict, worded

FIXTURES = Path(__file__).resolve().parents[1] / "snapshots" / "fixtures"

#: (notice, the sentence the engine wrote before the move: kept word for word)
PINNED = [
    (Notice("threshold_outside_scores", {"model": "a", "threshold": 0.9, "score_min": 0.1, "score_max": 0.75,
                                         "predicted": "negative", "threshold_key": "models[0].threshold"}),
     "threshold 0.9 lies outside the scores of model 'a' (0.1 to 0.75), so every row is predicted negative; "
     "check 'models[0].threshold' (or the model's 'direction')"),
    (Notice("auc_below_half", {"model": "a", "auc": 0.41234, "direction": "lower"}),
     "model 'a': AUC 0.412 < 0.5 — the score may point the other way; check 'direction' (now 'lower')"),
    (Notice("small_class", {"model": "a", "rows": 6.0}),
     "model 'a': only 6 rows in the smaller class; intervals and tests are unreliable"),
    (Notice("log_loss_clipped", {"model": "a", "weight": 2.0, "log_loss": 1.5, "total": 100.0}),
     "model 'a': log-loss: 2 row(s) give the true class probability 0 (below ε = 2.2e-16); clipped to ε, each adds "
     "−log ε ≈ 36.0, together 48 % of the log-loss, so the log-loss reflects the clipping constant more than the "
     "model"),
    (Notice("delong_zero_variance", {"model": "a", "auc": 1.0}),
     "model 'a': AUC interval: DeLong's variance is 0 (AUC = 1: the classes are perfectly separated), so the "
     "interval has zero width and understates the uncertainty"),
    (Notice("zero_width_interval", {"model": "a", "level": 0.95, "metrics": ["accuracy", "f1"]}),
     "model 'a': the 95 % interval of accuracy, f1 has zero width (every resample gave the same value), which "
     "understates the uncertainty"),
    (Notice("class_note", {"model": "m", "metric": "precision_macro", "note": "counted as 0"}),
     "model 'm': precision macro: counted as 0"),
    (Notice("small_classes", {"model": "m", "classes": ["late", "early"], "min_rows": 30}),
     "model 'm': class(es) 'late', 'early' have fewer than 30 rows; their per-class metrics and the intervals are "
     "unreliable"),
    (Notice("delong_small_sample", {"sample": None, "positives": 7, "negatives": 8}),
     "DeLong's test: only 7 positives and 8 negatives; DeLong's normal approximation is weak with fewer than 30 "
     "rows in a class, so treat the interval and p-value as rough"),
    (Notice("delong_small_sample", {"sample": "b", "positives": 5, "negatives": 40}),
     "DeLong's test (sample b): only 5 positives and 40 negatives; DeLong's normal approximation is weak with fewer "
     "than 30 rows in a class, so treat the interval and p-value as rough"),
    (Notice("delong_infinite_z", {"delta": 1.0}),
     "DeLong's test: the standard error of the AUC difference is 0 while the AUCs differ (perfect separation), so z "
     "is infinite and p = 0 is a convention, not an estimate"),
    (Notice("zero_width_difference", {"level": 0.9, "metrics": ["accuracy"]}),
     "The 90 % interval of the difference in accuracy has zero width: the difference was the same on every resample "
     "(e.g. both models decide alike on every row), so the interval shows no sampling variation, not certainty "
     "about other data."),
    (Notice("rows_dropped", {"model": "b", "rows": 1500000, "reason": "missing score"}),
     "model 'b': 1500000 row(s) dropped (missing score)"),
    (Notice("credit_red", {"model": "b", "failures": ["hosmer_lemeshow", "psi"]}),
     "model 'b': credit validation red: hosmer_lemeshow, psi (see Credit validation)"),
    (Notice("credit_sampling_weights", {}),
     "the credit validation section counts obligors (rows): sampling weights do not apply there "
     "(weight_kind: frequency makes a weight count obligors)"),
]


def test_pinned_notices_cover_every_code() -> None:
    assert {n.code for n, _ in PINNED} == set(NOTICE_CODES)


@pytest.mark.parametrize(("notice", "text"), PINNED, ids=[n.code for n, _ in PINNED])
def test_each_notice_reads_as_the_engine_used_to_write_it(notice: Notice, text: str) -> None:
    assert notice_text(notice) == text
    loaded = from_jsonable(Notice, json.loads(json.dumps(to_jsonable(notice))))
    assert loaded == notice and notice_text(loaded) == text  # a saved notice words alike


def test_an_unknown_notice_code_is_an_error_not_a_silent_blank() -> None:
    with pytest.raises(ValueError, match="unknown notice code 'nope'"):
        notice_text(Notice("nope", {}))


def _small_run():
    """Two models on 15 rows, one perfect: small samples, an infinite z, zero-width intervals."""
    y = np.array([0] * 8 + [1] * 7, dtype=bool)
    s = np.linspace(0.0, 1.0, 15)
    return compare_rows([ModelRows("perfect", "f", s, y), ModelRows("inverted", "f", 1 - s, y)],
                        Settings(resamples=40, seed=3))


def test_the_engine_returns_codes_and_no_sentences() -> None:
    models, comps, _ = _small_run()
    for m in models.values():
        assert m.rule == "" and list(m.warnings) == [] and m.decision_rule == "threshold"
        assert m.notices and all(n.code in NOTICE_CODES for n in m.notices)
    c = comps[0]
    assert c.verdict == "" and list(c.tests.notes) == [] and c.decision is not None
    codes = [n.code for n in c.tests.notices]
    assert codes[:2] == ["delong_small_sample", "delong_infinite_z"]
    assert models["inverted"].notices[0].code == "auc_below_half"
    # the report layer writes them from the facts
    assert rule(models["perfect"]) == "positive when score ≥ 0.5"
    assert "only 7 positives and 8 negatives" in " ".join(caveats_of(c))
    assert verdict(c).startswith("inverted's Gini is 2.000 lower than perfect's")
    assert any("AUC 0.000 < 0.5" in w for w in model_warnings(models["inverted"]))


def test_a_lower_direction_rule_and_the_multiclass_rules_are_worded_from_facts() -> None:
    base = dict(name="m", file="f", n=1, positives=None, negatives=None, weighted=False, metrics={}, undefined={},
                ci={}, ci_method={})
    assert rule(ModelResult(**base, direction="lower", threshold=612.5, decision_rule="threshold")) == \
        "positive when score ≤ 612.5"
    assert rule(ModelResult(**base, decision_rule="argmax")).startswith("predicted class = the highest class score")
    assert rule(ModelResult(**base, decision_rule="prediction_column")) == "predicted class from the prediction column"
    assert rule(ModelResult(**base, rule="as stored")) == "as stored"  # an older metrics.json: its own sentence


@pytest.mark.parametrize("task", ["binary", "multiclass"])
def test_a_saved_result_rewords_to_the_sentences_it_stores(task: str) -> None:
    """metrics.json keeps the sentences worded at the edge; re-wording the loaded facts gives them back."""
    doc = json.loads((FIXTURES / f"{task}.metrics.json").read_text(encoding="utf-8"))
    result = ComparisonResult.from_json(doc)
    assert worded(result).to_json() == doc
    assert all(c.verdict == verdict(c) != "" for c in result.comparisons)
    found = [w for m in result.models.values() for w in model_warnings(m)]
    assert [w for w in result.run.warnings if w in found] == found  # the run lists every model's warning
    assert [notice_text(n) for n in result.run.notices] == [w for w in result.run.warnings if w in
                                                            {notice_text(n) for n in result.run.notices}]
