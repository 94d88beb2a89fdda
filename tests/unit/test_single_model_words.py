"""A single-model run with ``approval_rates`` speaks of approvals, as a comparison does: the words
come from the saved result, and one model has no comparison to carry the configured rates, so
they are read from the config as run (regression: a single model got the generic words)."""

from __future__ import annotations

import numpy as np
import pandas as pd
import pytest

from reportgen import compare_frames
from reportgen.report.wording import CREDIT_WORDS, GENERIC_WORDS, vocabulary


@pytest.fixture(scope="module")
def frame() -> pd.DataFrame:
    rng = np.random.default_rng(5)
    y = rng.random(200) < 0.3
    return pd.DataFrame({"y": y.astype(int), "a": np.round(np.clip(0.3 + 0.3 * y + rng.normal(0, 0.2, 200), 0, 1), 3)})


def _run(frame: pd.DataFrame, **kw):
    return compare_frames(frame, label="y", scores=["a"], bootstrap={"resamples": 0}, now="2026-01-01T00:00:00Z", **kw)


def test_a_single_model_with_approval_rates_gets_the_credit_words(frame: pd.DataFrame) -> None:
    result = _run(frame, approval_rates=[0.8])
    assert result.comparisons == [] or len(result.comparisons) == 0
    assert vocabulary(None, result) is CREDIT_WORDS
    assert vocabulary("generic", result) is GENERIC_WORDS  # report.domain still decides when set


def test_a_single_model_without_them_keeps_the_generic_words(frame: pd.DataFrame) -> None:
    assert vocabulary(None, _run(frame)) is GENERIC_WORDS
