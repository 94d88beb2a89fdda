"""The German credit public pack read as a committee reads it (issue 40, the last page-by-page
read): nothing said twice on the summary, every method note under its heading and McNemar's
reading under its table, no sentence starting with a model's lower-case name, the scorecard's
reliability curve drawn from its PD column with its rows per bin, and the config as run with the
paths the config gives. One HTML-only run with 100 resamples, shared by the module."""

from __future__ import annotations

import re
from pathlib import Path

import pytest

PUBLIC = Path(__file__).resolve().parents[2] / "configs" / "public"

pytestmark = pytest.mark.slow


@pytest.fixture(scope="module")
def credit_html(tmp_path_factory, cli) -> str:
    out = tmp_path_factory.mktemp("german_credit") / "out"
    argv = ["run", str(PUBLIC / "german_credit.yaml"), "--out", str(out), "--format", "html", "--quiet"]
    assert cli([*argv, "--set", "bootstrap.resamples=100"]) == 0
    return (out / "report.html").read_text(encoding="utf-8")


def _summary(html: str) -> str:
    return html[html.index('<section id="summary"') : html.index("</section>", html.index('<section id="summary"'))]


def test_a_red_credit_result_is_listed_once_on_the_summary(credit_html: str) -> None:
    summary = _summary(credit_html)
    assert "every red and amber finding" in summary
    assert "credit validation red" not in summary  # the warnings box's copy


def test_one_challengers_method_notes_have_their_heading_and_mcnemar_sits_by_its_table(credit_html: str) -> None:
    assert "How every comparison above was made" in credit_html
    mcnemar = credit_html.index("McNemar&#39;s test on rows")
    assert credit_html.index('class="mcnemar"') < mcnemar < credit_html.index("At champion&#39;s approval rate")


def test_no_sentence_starts_with_a_lower_case_model_name(credit_html: str) -> None:
    text = re.sub(r"<[^>]+>", " ", credit_html)
    assert not re.search(r"\. (champion|challenger) ", text)
    assert "Against champion, challenger swaps in" in text


def test_the_scorecards_reliability_curve_is_its_pd_columns_with_counts(credit_html: str) -> None:
    assert "Drawn from the PD column (scores are not probabilities): champion." in credit_html
    assert "Rows per bin" in credit_html and "Not drawn (scores are not probabilities)" not in credit_html


def test_config_as_run_gives_model_files_as_the_config_does(credit_html: str) -> None:
    assert "file: data/credit_champion_val.csv" in credit_html
    assert str(PUBLIC) not in credit_html


def test_the_pack_shows_partial_auc_operating_points_and_calibration(credit_html: str) -> None:
    """The one shipped config that exercises ``partial_auc:``, ``operating_points:`` and
    ``calibration:`` (a new user sees those sections), with their values, not an empty shell."""
    for section in ("partial_auc", "operating_points", "calibration"):
        start = credit_html.index(f'<section id="{section}"')
        body = credit_html[start : credit_html.index("</section>", start)]
        assert "<table" in body and '<td class="num">n/a' not in body, section
    assert "Specificity 0.800 to 1.000" in credit_html and "<td>FPR 10.0" in credit_html
    assert "10 equal-count (quantile) bins" in credit_html
