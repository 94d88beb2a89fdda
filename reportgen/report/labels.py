"""Human names of metrics and optimal-threshold criteria, for the figures and the report.

Kept for the code that imports these names; the labels themselves are rows of
:mod:`reportgen.catalog` and are only read here.
"""

from __future__ import annotations

import reportgen.catalog as catalog

#: Metric key → report label, every metric of every task.
LABELS: dict[str, str] = {m.key: m.label for m in catalog.METRICS}

#: Criterion key → the label of its optimum (the text stored as ``Optimum.description``).
CRITERION_LABELS: dict[str, str] = {c.key: c.label for c in catalog.CRITERIA}

short_label = catalog.short_label

#: Credit validation test key → its name in the report (the section's tables, its verdicts, the
#: summary and the warnings all say the same words; a failure is never shown as its key).
CREDIT_TEST_NAMES: dict[str, str] = {
    "jeffreys": "Jeffreys (ECB 2019)",
    "binomial": "Binomial, exact",
    "hosmer_lemeshow": "Hosmer–Lemeshow over the grades",
    "spiegelhalter": "Spiegelhalter z",
    "in_the_large": "Calibration in the large",
    "slope": "Calibration slope",
    "intercept": "Calibration intercept",
    "auc_history": "AUC against initial validation (ECB 2019)",
    "psi": "Population stability index",
    "herfindahl": "Herfindahl index (ECB 2019)",
    "cap": "CAP and accuracy ratio",
    "migration": "Grade migration (ECB 2019)",
    "binomial_correlated": "Binomial with correlated defaults (Vasicek)",
    "power": "Power of the grade tests",
    "period_normal": "Normal test over the periods (BCBS WP14)",
    "heterogeneity": "Adjacent-grade heterogeneity",
}

#: Names that start with a common word: lower-cased inside a sentence ("…; calibration slope; …").
_COMMON_START = ("Binomial", "Calibration", "Population", "Grade")


def credit_failure_names(failures: list[str] | tuple[str, ...], sentence: bool = False) -> str:
    """What is red, in words: ``["hosmer_lemeshow", "slope", "grade:4 % – 7 %"]`` →
    "Hosmer–Lemeshow over the grades; Calibration slope; Jeffreys in grade 4 % – 7 %".

    ``sentence``: the names stand inside running text, so a name that starts with a common word
    is lower-cased ("calibration slope"); names of people and tests (Hosmer–Lemeshow, Jeffreys,
    AUC) keep their capitals. An unknown key is shown as it is.
    """
    out = []
    for f in failures:
        name = f"Jeffreys in grade {f[6:]}" if f.startswith("grade:") else CREDIT_TEST_NAMES.get(f, f)
        if sentence and name.startswith(_COMMON_START):
            name = name[:1].lower() + name[1:]
        out.append(name)
    return "; ".join(out)


__all__ = ["LABELS", "CREDIT_TEST_NAMES", "CRITERION_LABELS", "credit_failure_names", "short_label"]
