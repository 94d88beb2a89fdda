"""Human names of metrics and optimal-threshold criteria, shared by the figures and the report."""

from __future__ import annotations

LABELS: dict[str, str] = {
    "accuracy": "Accuracy",
    "error_rate": "Error rate",
    "baseline_accuracy": "Baseline accuracy (majority class)",
    "precision": "Precision (PPV)",
    "recall": "Recall (TPR, sensitivity)",
    "specificity": "Specificity (TNR)",
    "npv": "Negative predictive value",
    "fpr": "False positive rate",
    "fnr": "False negative rate",
    "type_i_error": "Type I error share (FP / m)",
    "type_ii_error": "Type II error share (FN / m)",
    "f1": "F1",
    "fbeta": "F-beta",
    "balanced_accuracy": "Balanced accuracy",
    "youden_j": "Youden's J",
    "cohen_kappa": "Cohen's kappa",
    "mcc": "Matthews correlation (MCC)",
    "expected_cost": "Expected cost per row",
    "roc_auc": "ROC AUC",
    "gini": "Gini (2·AUC − 1)",
    "average_precision": "Average precision",
    "r_precision": "R-precision (break-even)",
    "ks": "Kolmogorov–Smirnov",
    "defective_pairs": "Defective pairs share",
    "log_loss": "Log-loss",
    "brier": "Brier score",
    # multiclass
    "quadratic_weighted_kappa": "Quadratic-weighted kappa (ordinal)",
    "precision_micro": "Precision, micro (pooled counts)",
    "precision_macro": "Precision, macro (mean over classes)",
    "precision_weighted": "Precision, weighted (by support)",
    "recall_micro": "Recall, micro",
    "recall_macro": "Recall, macro",
    "recall_weighted": "Recall, weighted",
    "f1_micro": "F1, micro (= accuracy)",
    "f1_macro": "F1, macro (mean of per-class F1)",
    "f1_weighted": "F1, weighted",
    "f1_of_macro_pr": "F1 of macro precision and recall",
    "fbeta_micro": "F-beta, micro",
    "fbeta_macro": "F-beta, macro",
    "fbeta_weighted": "F-beta, weighted",
    "roc_auc_ovr_micro": "ROC AUC, one-vs-rest micro",
    "roc_auc_ovr_macro": "ROC AUC, one-vs-rest macro",
    "roc_auc_ovr_weighted": "ROC AUC, one-vs-rest weighted",
    "roc_auc_ovo_macro": "ROC AUC, one-vs-one (Hand & Till)",
}

CRITERION_LABELS = {
    "f1": "max F1",
    "fbeta": "max F-beta",
    "mcc": "max MCC",
    "cohen_kappa": "max Cohen's kappa",
    "balanced_accuracy": "max balanced accuracy",
    "youden_j": "max Youden's J",
    "accuracy": "max accuracy",
    "expected_cost": "min expected cost",
    "break_even": "break-even (P = R)",
}


def short_label(metric: str) -> str:
    """The label without its parenthesised gloss ("Gini (2·AUC − 1)" → "Gini"), for figure text."""
    return LABELS.get(metric, metric.replace("_", " ")).split(" (")[0]

