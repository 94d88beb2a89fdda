"""The verdict names its Holm family as it is: with ``partial_auc:``, the partial AUC tests join
the verdicts' family, and one challenger's verdict read "Holm-adjusted over the 2 comparisons
with champion" (the German credit pack, issue 45's 80-dpi read)."""

from __future__ import annotations

import numpy as np
import pandas as pd
import pytest

from reportgen.api import compare_frames
from reportgen.report.wording import family_words, verdict


def test_the_verdicts_family_with_partial_auc_tests_is_not_called_comparisons():
    assert family_words("verdicts", 2, "a") == "the 2 comparisons with a"
    assert family_words("verdicts", 2, "a", partial_auc=True) == "the 2 tests against a (verdicts and partial AUC)"
    assert family_words("mcnemar", 2, "a", partial_auc=True) == "the 2 McNemar tests against a"


@pytest.fixture(scope="module")
def result():
    rng = np.random.default_rng(3)
    n = 300
    y = (rng.random(n) < 0.3).astype(int)
    df = pd.DataFrame(
        {"y": y, "a": np.round(rng.normal(size=n) + y, 2), "b": np.round(rng.normal(size=n) + 1.1 * y, 2)}
    )
    return compare_frames(
        df, label="y", scores=["a", "b"], threshold=0.5, partial_auc=[{"specificity": [0.8, 1.0]}],
        bootstrap={"resamples": 20, "seed": 1}, now="2026-01-01T00:00:00Z",
    )  # fmt: skip


def test_one_challengers_verdict_names_its_partial_auc_test(result):
    (c,) = result.comparisons
    assert c.decision.family_size == 2 and c.partial_auc[0].p_value is not None
    text = verdict(c)
    assert "Holm-adjusted over the 2 tests against a (verdicts and partial AUC)" in text
    assert "comparisons with" not in text
