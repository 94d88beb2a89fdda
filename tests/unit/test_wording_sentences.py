"""What a validation committee reads: sentences that claim only what their test supports, and one
way to print each kind of number (reportgen.report.wording and reportgen.report.formats).

Each test is named after what the report said before: a McNemar sentence that called a side
"errs more" at p = 0.78, credit failures shown by their keys, a hyphen beside the tables' minus
sign, "0 %" for 12 rows, "%" alone at the start of a line.
"""

from __future__ import annotations

from markupsafe import Markup

from reportgen.report.formats import fmt_ci_pct, fmt_int, fmt_metric, fmt_num, fmt_pct, fmt_points, fmt_share, minus
from reportgen.report.labels import CREDIT_TEST_NAMES, credit_failure_names
from reportgen.report.render import keep_units, make_environment
from reportgen.report.wording import mcnemar_sentence, notice_text
from reportgen.results import McNemarSummary, Notice


def _mcnemar(p: float, holm: float | None, b: int, c: int) -> McNemarSummary:
    return McNemarSummary(
        statistic=0.077,
        p_value=p,
        p_value_holm=holm,
        method="chi-square (continuity-corrected)",
        table=[[4214, b], [c, 479]],
        model_only_right=b,
        baseline_only_right=c,
        errs_more="model" if c > b else "baseline" if b > c else "neither",
    )


# --- McNemar: a side "errs more" only when the test says so ----------------------------------------


def test_a_non_significant_mcnemar_does_not_say_a_model_errs_more():
    # the demo's naive vs champion: 648 against 659 discordant rows, p = 0.782
    text = mcnemar_sentence("naive", "champion", _mcnemar(0.782, 0.782, 648, 659))
    assert "so naive errs more" not in text and not text.endswith("naive errs more.")
    assert "but not significantly at the 5 % level" in text and "no difference in error rates" in text
    assert "naive alone is right on 648, champion alone on 659" in text


def test_a_significant_mcnemar_names_the_side_and_its_holm_adjusted_p():
    text = mcnemar_sentence("challenger", "champion", _mcnemar(0.03, 0.06, 482, 651))
    # the raw p is below 0.05 but the Holm-adjusted one, which decides, is not
    assert "p = 0.030, Holm-adjusted p = 0.060" in text and "not significantly" in text
    text = mcnemar_sentence("challenger", "champion", _mcnemar(1e-6, 2e-6, 482, 651))
    assert text.endswith(
        "(chi-square (continuity-corrected), p < 0.0001, Holm-adjusted p < 0.0001): challenger errs more."
    )


def test_the_level_of_the_mcnemar_sentence_is_the_runs_alpha():
    text = mcnemar_sentence("a", "b", _mcnemar(0.03, None, 10, 30), alpha=0.01)
    assert "not significantly at the 1 % level" in text


def test_mcnemar_counts_are_printed_as_the_tables_print_them():
    text = mcnemar_sentence("a", "b", _mcnemar(0.5, None, 12345, 23456))
    assert "a alone is right on 12\u2009345, b alone on 23\u2009456" in text and "12,345" not in text


# --- credit failures by their names -----------------------------------------------------------------


def test_credit_failures_are_named_not_keyed_in_warnings_and_sentences():
    text = notice_text(
        Notice("credit_red", {"model": "naive", "failures": ["hosmer_lemeshow", "slope", "grade:4 % – 7 %"]})
    )
    assert text == (
        "model 'naive': credit validation red: Hosmer–Lemeshow over the grades; calibration slope; "
        "Jeffreys in grade 4 % – 7 % (see Credit validation)"
    )
    assert "hosmer_lemeshow" not in text and "grade:" not in text


def test_credit_failure_names_lower_case_common_words_only_inside_a_sentence():
    keys = ["slope", "psi", "auc_history", "binomial"]
    assert credit_failure_names(keys) == (
        "Calibration slope; Population stability index; AUC against initial validation (ECB 2019); Binomial, exact"
    )
    assert credit_failure_names(keys, sentence=True) == (
        "calibration slope; population stability index; AUC against initial validation (ECB 2019); binomial, exact"
    )
    assert credit_failure_names(["not_a_test"]) == "not_a_test"


def test_the_credit_tables_and_the_warnings_use_one_set_of_names():
    from reportgen.report.views.credit import TEST_LABELS

    assert {k: v[0] for k, v in TEST_LABELS.items()} == CREDIT_TEST_NAMES


# --- one way to print a number ----------------------------------------------------------------------


def test_negative_numbers_use_the_minus_sign_of_the_differences():
    # the comparison table printed Δ "−0.028" beside a relative change "-3.5 %"
    assert fmt_pct(-0.035, 1, signed=True) == "\u22123.5 %"
    assert fmt_pct(0.348, 1, signed=True) == "+34.8 %"
    assert fmt_num(-8.1423, 2) == "\u22128.14"  # DeLong's z, the Herfindahl test's S
    assert fmt_metric(-0.25, "mcc") == "\u22120.250"
    assert minus("-0.294 to -0.180") == "\u22120.294 to \u22120.180"


def test_counts_in_sentences_have_thin_space_thousands_like_the_tables():
    assert fmt_int(5036) == "5\u2009036" and fmt_int(597) == "597" and fmt_int(1234567) == "1\u2009234\u2009567"


def test_a_share_of_a_few_rows_never_prints_as_none_or_all():
    # gbm's 12 of 2 975 'current' rows predicted 'default' were shown as "0 %"
    assert fmt_share(12 / 2975) == "< 1 %"
    assert fmt_share(2970 / 2975) == "> 99 %"
    assert fmt_share(0.0) == "0 %" and fmt_share(1.0) == "100 %" and fmt_share(0.06) == "6 %"


def test_a_difference_of_rates_is_in_percentage_points_and_an_interval_of_a_rate_in_percent():
    # "difference 0.25 %" read as a relative change; the Jeffreys interval [0.0091, 0.0331] sat beside 1.83 %
    assert fmt_points(0.0025) == "+0.25 percentage points"
    assert fmt_points(-0.0071) == "\u22120.71 percentage points"
    assert fmt_ci_pct([0.0091, 0.0331]) == "[0.91 %, 3.31 %]"
    assert fmt_ci_pct(None) == ""


def test_a_number_is_never_split_from_its_percent_sign():
    # the PDF wrapped "… at 10.2" / "%." and "97.5" / "% CI"
    env = make_environment()
    out = env.from_string("{{ x }}").render(x="bad for 698 at 10.2 %; simultaneous 97.5 % CI")
    assert out == "bad for 698 at 10.2\u00a0%; simultaneous 97.5\u00a0% CI"
    # only a digit's per cent sign; markup (a figure, a broken name) is left alone
    assert keep_units("100 % of it") == "100\u00a0% of it" and keep_units("a % b") == "a % b"
    svg = Markup("<text>50 %</text>")
    assert keep_units(svg) is svg
    # escaping still applies to the text
    assert env.from_string("{{ x }}").render(x="<b>5 %</b>") == "&lt;b&gt;5\u00a0%&lt;/b&gt;"


def test_a_small_psi_contribution_is_not_printed_as_zero():
    from reportgen.report.formats import fmt_share_of_sum

    # the champion's bins printed "0.0000" for contributions of about 1e-5
    assert fmt_share_of_sum(0.0000123) == "< 0.0001"
    assert fmt_share_of_sum(0.0) == "0.0000" and fmt_share_of_sum(0.00072) == "0.0007"
    assert fmt_share_of_sum(None) == "n/a"


def test_one_flagged_row_of_six_thousand_is_not_printed_as_none():
    # the optimal-thresholds table printed max accuracy's 1 flagged row as "0.0 %", approval "100.0 %"
    assert fmt_share(1 / 6000, 1) == "< 0.1 %" and fmt_share(5999 / 6000, 1) == "> 99.9 %"
    assert fmt_share(0.0, 1) == "0.0 %" and fmt_share(1.0, 1) == "100.0 %" and fmt_share(0.259, 1) == "25.9 %"
    assert fmt_share(0.0004, 1) == "< 0.1 %" and fmt_share(0.0005, 1) == "0.1 %"
