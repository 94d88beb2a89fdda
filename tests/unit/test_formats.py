"""Number formats of the report (reportgen/formats.py, render's fmt_signed and better_mark), and
the log-loss clipping count behind the warning (issue 17, item 9)."""

from __future__ import annotations

import math

import numpy as np
import pytest
from hypothesis import given
from hypothesis import strategies as st
from sklearn.metrics import log_loss

from reportgen.engine import binary as B
from reportgen.engine import class_tables as CT
from reportgen.engine.curve import build_table
from reportgen.report.formats import MAX_DIGITS, fmt_bounded, fmt_metric, fmt_signed, fmt_threshold, wbr
from reportgen.report.views.common import better_mark, excludes_zero
from reportgen.report.wording import log_loss_clipping_sentence, notice_text, zero_variance_note
from reportgen.results import Notice


@pytest.mark.parametrize(
    ("value", "key", "text"),
    [
        (0.99965, "roc_auc", "0.9997"),  # the case: not "1.000"
        (1.0, "roc_auc", "1.000"),  # the bound itself stays
        (0.9999996, "roc_auc", "> 0.999999"),
        (0.0003, "roc_auc", "0.0003"),  # not "0.000"
        (0.0, "roc_auc", "0.000"),
        (-0.99995, "gini", "−0.99995"),  # the minus sign of the tables' differences, not a hyphen
        (0.5, "roc_auc", "0.500"),
        (2.75, "log_loss", "2.750"),  # open above: no extra digits
        (None, "roc_auc", "n/a"),
        (0.1234, "not_a_metric", "0.123"),
    ],
)
def test_fmt_metric_cases(value, key, text):
    assert fmt_metric(value, key) == text


@given(st.floats(0.0, 1.0, allow_nan=False), st.integers(1, 4))
def test_a_bounded_value_prints_as_a_bound_only_when_it_is_one(v, digits):
    text = fmt_bounded(v, digits, 0.0, 1.0)
    if text.startswith(("> ", "< ")):
        bound = float(text[2:])
        assert (v > bound) if text[0] == ">" else (v < bound)
        assert 0.0 < v < 1.0
        return
    printed = float(text)
    assert (printed == 1.0) == (v == 1.0) and (printed == 0.0) == (v == 0.0)
    assert abs(printed - v) <= 0.5 * 10.0**-digits + 1e-15
    assert len(text.split(".")[1]) <= max(digits, MAX_DIGITS)


@given(st.floats(allow_nan=False, allow_infinity=False))
def test_thresholds_read_back_exactly(t):
    """Without the next score, every digit (positional, never an exponent that could wrap)."""
    text = fmt_threshold(t)
    assert float(text.replace("\u2212", "-")) == t
    assert "e" not in text and (not t.is_integer() or "." not in text)


def test_threshold_cases():
    assert fmt_threshold(0.0350002) == "0.0350002"
    assert fmt_threshold(0.1 + 0.2) == "0.30000000000000004"  # six significant digits would say 0.3: a different score
    assert fmt_threshold(560.0) == "560" and fmt_threshold(None) == "none positive"


@given(st.floats(-1.0, 1.0, allow_nan=False))
def test_signed_differences_never_print_as_zero_unless_zero(v):
    text = fmt_signed(v)
    if v == 0:
        assert text == "0.000"
    elif "<" in text:
        assert abs(v) < 10.0**-MAX_DIGITS
    else:
        assert float(text.replace("−", "-")) != 0 and (text[0] == "+") == (v > 0)


def test_better_mark_follows_the_metric_direction():
    assert better_mark(-0.028, "higher") == "worse"  # accuracy down
    assert better_mark(-0.054, "lower") == "better"  # cost down
    assert better_mark(0.01, "lower") == "worse" and better_mark(0.0, "higher") == "equal"
    assert better_mark(None, "higher") == "" and better_mark(0.1, None) == ""
    assert excludes_zero([0.1, 0.2]) and excludes_zero([-0.2, -0.1])
    assert excludes_zero([-0.1, 0.2]) is False and excludes_zero([0.0, 0.0]) is False and excludes_zero(None) is None


def test_wbr_breaks_long_names_only_and_escapes():
    assert str(wbr("short_name")) == "short_name"
    long = "PD_retail_gbm_challenger_v1.0_<b>"
    assert str(wbr(long)) == "PD_<wbr>retail_<wbr>gbm_<wbr>challenger_<wbr>v1.<wbr>0_<wbr>&lt;b&gt;"


def test_zero_variance_note_names_the_reason():
    assert "perfectly separated" in zero_variance_note(1.0) and "perfectly separated" in zero_variance_note(0.0)
    constant = zero_variance_note(0.5)
    assert "perfectly separated" not in constant and "constant score" in constant


def test_clipped_log_loss_count_matches_a_direct_count():
    rng = np.random.default_rng(4)
    y = (rng.random(400) < 0.3).astype(int)
    s = rng.random(400)
    s[:12] = np.where(y[:12] == 1, 0.0, 1.0)  # probability 0 for the true class
    w = rng.integers(1, 4, 400).astype(float)
    table = build_table(s, y, w, "higher")
    eps = np.finfo(float).eps
    direct = float(w[((y == 1) & (s < eps)) | ((y == 0) & (s > 1 - eps))].sum())
    assert B.log_loss_clipped(table) == pytest.approx(direct)
    ll = B.probability_losses(table)[0]
    assert ll == pytest.approx(log_loss(y, s, sample_weight=w), rel=1e-12)
    share = direct * -math.log(eps) / float(w.sum()) / ll
    assert CT.log_loss_clipping_share(direct, ll, float(w.sum())) == pytest.approx(min(1.0, share), rel=1e-12)
    note = log_loss_clipping_sentence(direct, ll, float(w.sum()))
    assert f"together {min(1.0, share) * 100:.0f} % of the log-loss" in note
    assert CT.log_loss_clipping_share(0.0, ll, float(w.sum())) is None


def test_multiclass_clipped_count_matches_a_direct_count():
    from reportgen.engine.multiclass import compute_multiclass

    rng = np.random.default_rng(9)
    y = rng.integers(0, 3, 300)
    p = rng.dirichlet([1, 1, 1], 300)
    p[:5] = 0.0
    p[np.arange(5), (y[:5] + 1) % 3] = 1.0  # the true class gets 0
    mm = compute_multiclass(y, (0, 1, 2), proba=p)
    assert mm.log_loss == pytest.approx(log_loss(y, p, labels=[0, 1, 2]), rel=1e-12)
    (clip,) = [n for n in mm.notes_of("log_loss") if n.code == "log_loss_clipped"]
    assert clip.params["weight"] == 5.0 and clip.params["total"] == 300.0
    note = notice_text(Notice(clip.code, {"model": "m", **clip.params}))
    assert "5 row(s) give the true class probability 0" in note
    assert np.finfo(float).eps == CT.LOG_LOSS_EPS


def test_logit_delong_interval_near_one_never_prints_its_end_as_one():
    """Regression: the logit-scale DeLong interval of AUC 0.9991 stays inside (0, 1), but the report
    printed its upper end 0.99982 as "1.000" (and Gini's 0.99964 likewise): the certainty the
    transform exists to avoid. With the metric's key an end keeps digits until it is off the bound."""
    from reportgen.engine.proportions import logit_auc_interval
    from reportgen.report.formats import fmt_ci

    lo, hi = logit_auc_interval(0.9991471734892787, 4.05e-7, 0.95)
    assert hi < 1.0 and f"{hi:.3f}" == "1.000"
    text = fmt_ci([lo, hi], key="roc_auc")
    assert "1.000" not in text and text.startswith("[0.99")
    assert "1.000" not in fmt_ci([2 * lo - 1, 2 * hi - 1], key="gini")
    # exact bounds stay as they are; no key keeps the old fixed digits; no "−0.000"
    assert fmt_ci([0.0, 0.0256], key="fpr") == "[0.000, 0.026]"
    assert fmt_ci([0.999, 1.0], key="roc_auc") == "[0.999, 1.000]"
    # an end near 0 shows its side of 0 (issue 40), never "−0.000"
    assert fmt_ci([-0.0004, 0.5], key="gini") == "[−0.0004, 0.500]"
    assert fmt_ci([-0.0, 0.5], key="gini") == "[0.000, 0.500]"
    assert fmt_ci([0.1, 0.99965]) == "[0.100, 1.000]"
    assert fmt_ci([-1.0, -0.99991], key="gini") == "[−1.000, −0.9999]"
