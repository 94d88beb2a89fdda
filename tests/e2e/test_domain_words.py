"""``report.domain``: a generic pack speaks of positives and rows predicted negative, never of
approvals, bad rates, applications, obligors or swap sets; a credit pack keeps those words. The
default follows the run: credit with a credit section or configured approval rates."""

from __future__ import annotations

import re

import numpy as np
import pandas as pd
import pytest

from reportgen import compare_frames
from reportgen.report.render import render_html
from reportgen.report.theme import Theme
from reportgen.report.wording import CREDIT_WORDS, GENERIC_WORDS, vocabulary

pytestmark = pytest.mark.slow  # renders four reports (about 5 s each)

CREDIT_TERMS = re.compile(r"approv|bad rate|\bbads?\b|applicati|obligor|swap|declin", re.IGNORECASE)


def _text(page: str) -> str:
    """The page's visible words, without its style, script and figures, up to the config as run
    (whose keys, approval_rates among them, are the config's names, not the report's words)."""
    page = re.sub(r"<(style|script|svg)\b.*?</\1>", " ", page, flags=re.S)
    return re.sub(r"<[^>]+>", " ", page).replace("\u00a0", " ").split("Config as run")[0]


@pytest.fixture(scope="module")
def frame() -> pd.DataFrame:
    rng = np.random.default_rng(3)
    y = rng.random(400) < 0.3
    return pd.DataFrame(
        {
            "y": y.astype(int),
            "a": np.round(np.clip(0.3 + 0.3 * y + rng.normal(0, 0.2, 400), 0, 1), 3),
            "b": np.round(np.clip(0.3 + 0.2 * y + rng.normal(0, 0.2, 400), 0, 1), 3),
        }
    )


def test_a_generic_pack_has_no_credit_words(frame: pd.DataFrame) -> None:
    result = compare_frames(frame, label="y", scores=["a", "b"], bootstrap={"resamples": 0}, now="2026-01-01T00:00:00Z")
    assert vocabulary(None, result) is GENERIC_WORDS
    page = _text(render_html(result))
    assert "Predicted negative" in page  # the generic words are there ...
    assert CREDIT_TERMS.findall(page) == []  # ... and no credit word
    credit = _text(render_html(result, Theme(domain="credit")))  # the same run in credit words
    assert "approval rate" in credit and "Bad rate of approved" in credit and "swaps in" in credit


def test_configured_approval_rates_default_to_credit_words(frame: pd.DataFrame) -> None:
    result = compare_frames(
        frame,
        label="y",
        scores=["a", "b"],
        approval_rates=[0.8],
        bootstrap={"resamples": 0},
        now="2026-01-01T00:00:00Z",
    )
    assert vocabulary(None, result) is CREDIT_WORDS
    assert vocabulary("generic", result) is GENERIC_WORDS
    page = _text(render_html(result))
    assert "target approval rate of 80.0 %" in page
