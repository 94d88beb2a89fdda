"""The engine returns facts and codes; the report layer writes every sentence (issue 15).

Each notice code's sentence is pinned to the text the engine used to write itself (the
messages users and scripts grep for), the engine's own results carry no prose, and a saved
``metrics.json`` re-renders with the same verdicts and warnings.
"""

from __future__ import annotations

import ast
import json
import typing
from pathlib import Path

import numpy as np
import pytest

import reportgen.results as results
from reportgen.engine.compare import Settings
from reportgen.engine.compare_multiclass import result_of
from reportgen.engine.multiclass import compute_multiclass
from reportgen.reduce.rows import ModelRows, compare_rows
from reportgen.report.wording import (
    NOTICE_CODES,
    UNDEFINED_TEXT,
    model_warnings,
    notice_text,
    undefined_of,
    undefined_text,
)
from reportgen.results import ModelResult, Notice, Reason, from_jsonable, to_jsonable

FIXTURES = Path(__file__).resolve().parents[1] / "snapshots" / "fixtures"

#: (notice, the sentence the engine wrote before the move: kept word for word)
PINNED = [
    (
        Notice(
            "scores_binned",
            {"model": "a", "max_distinct": 2000000, "bins": 99871, "binning": "quantile", "bound": 0.000123},
        ),
        "model 'a': more than 2,000,000 distinct scores, binned into 99,871 quantile bins; its AUC is within ±0.00012 "
        "of the exact value and its thresholds are bin boundaries that occur in the data",
    ),
    (
        Notice("ids_not_shared", {"model": "b", "rows": 3}),
        "model 'b': 3 row(s) whose id is not in every model were dropped",
    ),
    (
        Notice("unpaired_lengths", {"names": ["a", "b"], "rows": [12000, 11990]}),
        "the models' files have different numbers of rows (a: 12\u2009000, b: 11\u2009990) and no 'id' joins them, so the "
        "models are compared as independent samples (unpaired tests, wider intervals, no McNemar test); to pair them, "
        "give every file an id column and set 'id:' (or models[].id), with 'id_mismatch: intersect' to keep the ids "
        "present in every file",
    ),
    (
        Notice("class_never_in_truth", {"class": "cat", "predicted_by": ["a", "b"]}),
        "class 'cat' never occurs in the truth; predicted by 'a', 'b' (its recall and support are 0 / undefined)",
    ),
    (
        Notice("class_never_in_truth", {"class": "7", "predicted_by": []}),
        "class '7' never occurs in the truth (its recall and support are 0 / undefined)",
    ),
    (
        Notice("class_never_predicted", {"model": "a", "classes": ["x", "y"]}),
        "model 'a' never predicts class(es) 'x', 'y'",
    ),
    (
        Notice(
            "threshold_outside_scores",
            {
                "model": "a",
                "threshold": 0.9,
                "score_min": 0.1,
                "score_max": 0.75,
                "predicted": "negative",
                "threshold_key": "models[0].threshold",
            },
        ),
        "threshold 0.9 lies outside the scores of model 'a' (0.1 to 0.75), so every row is predicted negative; "
        "check 'models[0].threshold' (or the model's 'direction')",
    ),
    (
        Notice("auc_below_half", {"model": "a", "auc": 0.41234, "direction": "lower"}),
        "model 'a': AUC 0.412 < 0.5 — the score may point the other way; check 'direction' (now 'lower')",
    ),
    (
        Notice("small_class", {"model": "a", "rows": 6.0}),
        "model 'a': only 6 rows in the smaller class; intervals and tests are unreliable",
    ),
    (
        Notice("log_loss_clipped", {"model": "a", "weight": 2.0, "log_loss": 1.5, "total": 100.0}),
        "model 'a': log-loss: 2 row(s) give the true class probability 0 (below ε = 2.2e-16); clipped to ε, each adds "
        "−log ε ≈ 36.0, together 48 % of the log-loss",
    ),
    (
        Notice("log_loss_clipped", {"model": "a", "weight": 3.0, "log_loss": 1.5, "total": 100.0}),
        "model 'a': log-loss: 3 row(s) give the true class probability 0 (below ε = 2.2e-16); clipped to ε, each adds "
        "−log ε ≈ 36.0, together 72 % of the log-loss, so the log-loss reflects the clipping constant more than the "
        "model",
    ),
    (
        Notice("log_loss_clipped", {"model": "a", "weight": 0.25, "log_loss": 1.5, "total": 1e4, "weighted": True}),
        "model 'a': log-loss: rows of total weight 0.25 give the true class probability 0 (below ε = 2.2e-16); clipped "
        "to ε, each adds −log ε ≈ 36.0, together under 1 % of the log-loss",
    ),
    (
        Notice("delong_zero_variance", {"model": "a", "auc": 1.0}),
        "model 'a': AUC interval: DeLong's variance is 0 (AUC = 1: the classes are perfectly separated), so the "
        "interval has zero width and understates the uncertainty",
    ),
    (
        Notice("zero_width_interval", {"model": "a", "level": 0.95, "metrics": ["accuracy", "f1"]}),
        "model 'a': the 95 % interval of accuracy, f1 has zero width (every resample gave the same value), which "
        "understates the uncertainty",
    ),
    (
        Notice("class_note", {"model": "m", "metric": "precision_macro", "note": "counted as 0"}),
        "model 'm': Precision, macro (mean over classes): counted as 0",
    ),
    (
        Notice(
            "classes_counted_as_zero",
            {"model": "m", "metric": "precision_macro", "stem": "precision", "classes": ["c", "e"]},
        ),
        "model 'm': Precision, macro (mean over classes): precision undefined for 'c', 'e'; counted as 0 (scikit-learn "
        "zero_division=0)",
    ),
    (
        Notice("macro_pr_counted_as_zero", {"model": "m", "metric": "f1_of_macro_pr"}),
        "model 'm': F1 of macro precision and recall: built from macro precision / recall with undefined classes "
        "counted as 0",
    ),
    (
        Notice("classes_without_support", {"model": "m", "metric": "balanced_accuracy", "classes": ["d", "e"]}),
        "model 'm': Balanced accuracy: mean recall over classes with support; left out: 'd', 'e'",
    ),
    (
        Notice("probability_rows_unnormalised", {"model": "m", "metric": "log_loss", "max_row_dev": 0.0123456}),
        "model 'm': Log-loss: probability rows do not sum to 1 (largest deviation 0.0123); used unnormalised, as "
        "scikit-learn does",
    ),
    (
        Notice(
            "classes_left_out_of_auc",
            {
                "model": "m",
                "metric": "roc_auc_ovr_macro",
                "classes": ["c", "a"],
                "why": ["class_no_positives", "class_no_negatives"],
            },
        ),
        "model 'm': ROC AUC, one-vs-rest macro: classes left out: 'c' (no positives for class 'c'), 'a' (no negatives for "
        "class 'a' (every row is of it))",
    ),
    (
        Notice(
            "class_pairs_left_out",
            {"model": "m", "metric": "roc_auc_ovo_macro", "first": ["a", "a"], "second": ["c", "d"]},
        ),
        "model 'm': ROC AUC, one-vs-one (Hand & Till): pairs left out (a class has no rows): ('a', 'c'), ('a', 'd')",
    ),
    (
        Notice("zero_width_class_interval", {"model": "m", "level": 0.95, "metric": "roc_auc", "classes": ["0", "6"]}),
        "model 'm': the 95 % interval of the one-vs-rest AUC of class(es) '0', '6' has zero width (every resample gave "
        "the same value, e.g. the class's scores separate it perfectly), which understates the uncertainty",
    ),
    (
        Notice("small_classes", {"model": "m", "classes": ["late", "early"], "min_rows": 30}),
        "model 'm': class(es) 'late', 'early' have fewer than 30 rows; their per-class metrics and the intervals are "
        "unreliable",
    ),
    (
        Notice("delong_small_sample", {"sample": None, "positives": 7, "negatives": 8}),
        "DeLong's test: only 7 positives and 8 negatives; DeLong's normal approximation is weak with fewer than 30 "
        "rows in a class, so treat the interval and p-value as rough",
    ),
    (
        Notice("delong_small_sample", {"sample": "b", "positives": 5, "negatives": 40}),
        "DeLong's test (sample b): only 5 positives and 40 negatives; DeLong's normal approximation is weak with fewer "
        "than 30 rows in a class, so treat the interval and p-value as rough",
    ),
    (
        Notice("delong_infinite_z", {"delta": 1.0}),
        "DeLong's test: the standard error of the AUC difference is 0 while the AUCs differ (perfect separation), so z "
        "is infinite and p = 0 is a convention, not an estimate",
    ),
    (
        Notice("zero_width_difference", {"level": 0.9, "metrics": ["accuracy"]}),
        "The 90 % interval of the difference in accuracy has zero width: the difference was the same on every resample "
        "(e.g. both models decide alike on every row), so the interval shows no sampling variation, not certainty "
        "about other data.",
    ),
    (
        Notice("rows_dropped", {"model": "b", "rows": 1500000, "reason": "missing score"}),
        "model 'b': 1500000 row(s) dropped (missing score)",
    ),
    (
        Notice("credit_red", {"model": "b", "failures": ["hosmer_lemeshow", "psi"]}),
        "model 'b': credit validation red: Hosmer–Lemeshow over the grades; population stability index (see Credit "
        "validation)",
    ),
    (
        Notice("credit_sampling_weights", {}),
        "the credit validation section counts obligors (rows): sampling weights do not apply there "
        "(weight_kind: frequency makes a weight count obligors)",
    ),
    (
        Notice("credit_grade_order", {}),
        "the credit validation section sorts the rating column's grades as text (A before AA before AAA): set "
        "credit.grades.order to the rating scale, best grade first, for the rank-order check and the migration",
    ),
    (
        Notice("segment_deprecated", {"column": "housing"}),
        "'segment: housing' is deprecated: it is read as 'segments: [housing]'; write that instead",
    ),
    (
        Notice(
            "segment_reversal",
            {
                "model": "gbm",
                "column": "age_band",
                "value": "46-55",
                "overall": "better",
                "segment": "worse",
                "delta": -0.1234,
                "p_adjusted": 0.012,
                "metric": "gini",
            },
        ),
        "Better than the baseline overall, gbm is significantly worse on age_band = 46-55 (gini difference "
        "\u2212"
        "0.123, Holm-adjusted p = 0.012)",
    ),
]


#: (metric, reason, the sentence the engine wrote before the move: kept word for word)
PINNED_UNDEFINED = [
    ("precision", Reason("no_predicted_positives"), "no row predicted positive (TP + FP = 0)"),
    ("npv", Reason("no_predicted_negatives"), "no row predicted negative (TN + FN = 0)"),
    ("recall", Reason("no_positives"), "no positives in the data"),
    ("specificity", Reason("no_negatives"), "no negatives in the data"),
    ("roc_auc", Reason("needs_both_classes"), "needs both classes in the data"),
    ("f1", Reason("no_positives_no_predicted"), "no positives and no predicted positives (2TP + FP + FN = 0)"),
    ("fbeta", Reason("no_positives_no_predicted"), "no positives and no predicted positives"),
    ("cohen_kappa", Reason("chance_agreement_one"), "chance agreement is 1 (all rows in one class and one prediction)"),
    ("mcc", Reason("empty_confusion_line"), "a row or column of the confusion matrix is empty"),
    (
        "defective_pairs",
        Reason("frequency_weight_below_one_row"),
        "weights are frequency weights here, and a class has less than one row's worth of weight",
    ),
    ("log_loss", Reason("no_rows"), "no rows"),
    ("log_loss", Reason("not_probabilities_direction"), "scores are not probabilities (direction: lower)"),
    ("brier", Reason("not_probabilities_range"), "scores are not probabilities (outside [0, 1])"),
    ("brier", Reason("declared_not_probabilities"), "scores declared not to be probabilities"),
    ("youden_j", Reason("undefined"), "undefined on these data"),
    ("precision", Reason("class_no_predicted_positives", {"class": "c"}), "no predicted positives for class 'c'"),
    ("recall", Reason("class_no_support", {"class": "d"}), "no true rows of class 'd' (support 0)"),
    ("roc_auc", Reason("class_no_positives", {"class": "c"}), "no positives for class 'c'"),
    ("roc_auc", Reason("class_no_positives", {"class": None}), "no positives for the micro-average"),
    ("specificity", Reason("class_no_negatives", {"class": 3}), "no negatives for class 3 (every row is of it)"),
    ("f1", Reason("class_absent", {"class": "e"}), "class 'e' neither occurs nor is predicted"),
    ("log_loss", Reason("no_probabilities"), "no probabilities given"),
    ("expected_cost", Reason("no_cost_matrix"), "no cost matrix given"),
    (
        "cohen_kappa",
        Reason("one_same_class"),
        "truth and predictions are all one and the same class (chance agreement is 1)",
    ),
    ("quadratic_weighted_kappa", Reason("zero_expected_disagreement"), "expected disagreement is zero"),
    (
        "quadratic_weighted_kappa",
        Reason("classes_not_ordinal"),
        "the classes are not declared ordered by ordinal: true",
    ),
    (
        "mcc",
        Reason("single_class", {"truth": True, "predictions": False}),
        "the truth has a single class (0/0; scikit-learn returns 0)",
    ),
    (
        "mcc",
        Reason("single_class", {"truth": True, "predictions": True}),
        "the truth has a single class and a single class is predicted (0/0; scikit-learn returns 0)",
    ),
    (
        "mcc",
        Reason("single_class", {"truth": False, "predictions": True}),
        "a single class is predicted (0/0; scikit-learn returns 0)",
    ),
    ("log_loss", Reason("proba_outside_unit"), "proba has values outside [0, 1]; scores are not probabilities"),
    ("roc_auc_ovr_macro", Reason("no_class_with_both"), "no class has both positives and negatives"),
    ("roc_auc_ovo_macro", Reason("no_class_pair"), "no pair of classes with rows of both classes"),
]


def test_pinned_notices_cover_every_code() -> None:
    assert {n.code for n, _ in PINNED} == set(NOTICE_CODES)


@pytest.mark.parametrize(("notice", "text"), PINNED, ids=[f"{i}-{n.code}" for i, (n, _) in enumerate(PINNED)])
def test_each_notice_reads_as_pinned(notice: Notice, text: str) -> None:
    # the list above was only checked for its codes: a sentence could change without a test noticing
    assert notice_text(notice) == text


def test_every_code_of_the_result_types_has_a_sentence_and_no_other() -> None:
    """The codes are enumerated once (reportgen.results: the Literals the schema lists as enums);
    the report layer words exactly those."""
    assert set(NOTICE_CODES) == set(results.NOTICE_CODES) == set(typing.get_args(results.NoticeCode))
    assert set(UNDEFINED_TEXT) == set(results.UNDEFINED_CODES) == set(typing.get_args(results.UndefinedCode))
    assert {r.code for _, r, _ in PINNED_UNDEFINED} == set(results.UNDEFINED_CODES)
    schema = results.json_schema()["$defs"]
    assert schema["Reason"]["properties"]["code"]["enum"] == list(results.UNDEFINED_CODES)
    assert schema["Notice"]["properties"]["code"]["enum"] == list(results.NOTICE_CODES)


@pytest.mark.parametrize(
    ("metric", "reason", "text"),
    PINNED_UNDEFINED,
    ids=[f"{m}-{r.code}-{i}" for i, (m, r, _) in enumerate(PINNED_UNDEFINED)],
)
def test_each_undefined_reason_reads_as_the_engine_used_to_write_it(metric: str, reason: Reason, text: str) -> None:
    assert undefined_text(metric, reason) == text
    loaded = from_jsonable(Reason, json.loads(json.dumps(to_jsonable(reason))))
    assert loaded == reason and undefined_text(metric, loaded) == text


def test_an_unknown_undefined_code_is_an_error() -> None:
    with pytest.raises(ValueError, match="unknown undefined-reason code 'nope'"):
        Reason("nope")  # type: ignore[arg-type]


def _codes_in_source() -> set[tuple[str, str]]:
    """Every (type, code) that the package's source passes as a literal to Notice(...) / Reason(...)."""
    found = set()
    root = Path(results.__file__).resolve().parent
    for path in root.rglob("*.py"):
        for node in ast.walk(ast.parse(path.read_text(encoding="utf-8"))):
            if not isinstance(node, ast.Call) or not node.args:
                continue
            name = getattr(node.func, "id", getattr(node.func, "attr", None))
            arg = node.args[0]
            if name in ("Notice", "Reason"):
                if isinstance(arg, ast.Constant) and isinstance(arg.value, str):
                    found.add((name, arg.value))
                elif isinstance(arg, ast.IfExp):  # Reason("a" if … else "b")
                    found |= {(name, b.value) for b in (arg.body, arg.orelse) if isinstance(b, ast.Constant)}
    return found


@pytest.mark.slow
def test_every_code_the_source_emits_is_enumerated_and_worded() -> None:
    """Static: a new Notice("…") / Reason("…") anywhere in the package needs its code in the enum
    (and so, by the test above, its sentence), even on a path no other test runs."""
    found = _codes_in_source()
    assert {c for t, c in found if t == "Notice"} <= set(NOTICE_CODES)
    assert {c for t, c in found if t == "Reason"} <= set(UNDEFINED_TEXT)
    # the scan sees the engine's codes (it is not vacuous): binary, multiclass, the driver
    assert {
        ("Reason", "no_predicted_positives"),
        ("Reason", "class_no_positives"),
        ("Reason", "single_class"),
        ("Notice", "classes_counted_as_zero"),
        ("Notice", "threshold_outside_scores"),
    } <= found


def test_undefined_metrics_come_as_codes_and_are_worded_at_the_edge() -> None:
    """Binary: a model that predicts no row positive, its scores not probabilities; every null
    metric has a reason code, and no words until the report layer writes them."""
    y = np.array([0, 1] * 10, dtype=bool)
    s = np.linspace(2.0, 3.0, 20)
    models, _, _ = compare_rows(
        [ModelRows("a", "f", s, y, threshold=5.0), ModelRows("b", "f", s[::-1], y)], Settings(resamples=0)
    )
    m = models["a"]
    nulls = {k for k, v in m.metrics.items() if v is None}
    assert {"precision", "mcc", "log_loss", "brier"} <= nulls
    assert set(m.undefined_reasons) == nulls and dict(m.undefined) == {}
    assert m.undefined_reasons["precision"] == Reason("no_predicted_positives")
    assert undefined_of(m)["precision"] == "no row predicted positive (TP + FP = 0)"
    assert undefined_of(m)["brier"] == "scores are not probabilities (outside [0, 1])"
    doc = json.loads(json.dumps(to_jsonable(m)))
    assert doc["undefined_reasons"]["precision"] == {"code": "no_predicted_positives", "params": {}}
    assert to_jsonable(from_jsonable(ModelResult, doc)) == to_jsonable(m)


def test_multiclass_caveats_and_undefined_metrics_come_as_codes() -> None:
    """Absent and never-predicted classes, no probabilities: codes with the classes as facts, one
    notice per distinct fact (macro and weighted share theirs), worded as before."""
    labels = ["a", "b", "c", "d", "e"]
    y = np.array([0, 0, 1, 1, 2, 2, 0, 1])
    pred = np.array([0, 1, 1, 3, 0, 1, 0, 3])
    mm = compute_multiclass(y, labels, y_pred_idx=pred)
    m = result_of(
        "m", "f", mm, labels, weighted=False, has_proba=False, from_column=True, curves=None, ci={}, ci_method={}
    )
    assert dict(m.undefined) == {} and set(m.undefined_reasons) == {k for k, v in m.metrics.items() if v is None}
    assert m.undefined_reasons["expected_cost"] == Reason("no_cost_matrix")
    codes = [(n.code, n.params["metric"]) for n in m.notices if n.code != "small_classes"]
    assert codes[:5] == [
        ("classes_counted_as_zero", "precision_macro"),
        ("classes_counted_as_zero", "recall_macro"),
        ("classes_counted_as_zero", "f1_macro"),
        ("classes_counted_as_zero", "fbeta_macro"),
        ("macro_pr_counted_as_zero", "f1_of_macro_pr"),
    ]
    assert "model 'm': Balanced accuracy: mean recall over classes with support; left out: 'd', 'e'" in model_warnings(
        m
    )
    assert model_warnings(m)[0] == (
        "model 'm': Precision, macro (mean over classes): precision undefined for 'c', "
        "'e'; counted as 0 "
        "(scikit-learn zero_division=0)"
    )
    assert undefined_of(m)["roc_auc_ovo_macro"] == "no probabilities given"
