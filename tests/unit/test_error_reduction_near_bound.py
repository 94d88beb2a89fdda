"""The relative error reduction is left out where it is noise (issue 40: an AUC near 1 read
−2665 %): when the baseline's error 1 − r₁ is smaller than the half-width of the baseline's own
interval, so the ratio's denominator cannot be told from 0."""

from __future__ import annotations

import pytest
from sklearn.metrics import roc_auc_score

from reportgen.engine.compare import relative_error_reduction
from reportgen.engine.proportions import logit_auc_interval
from reportgen.report.views.comparison import _error_within_noise


def test_an_auc_near_one_has_no_error_reduction_its_interval_cannot_resolve():
    # 3 positives scored above all but one of 2000 negatives, against a baseline that orders all
    y = [1] * 30 + [0] * 2000
    base = roc_auc_score(y, [1.0] * 29 + [0.5] + [0.0] * 1999 + [0.6])
    model = roc_auc_score(y, [1.0] * 25 + [0.1] * 5 + [0.2] * 1000 + [0.0] * 1000)
    rer = relative_error_reduction(base, model)
    assert rer < -10  # below −1000 %: the number the report printed
    lo, hi = logit_auc_interval(base, 1e-6, 0.95)
    assert _error_within_noise(base, [lo, hi])


@pytest.mark.parametrize(
    ("base", "ci", "noise"),
    [
        (0.80, [0.75, 0.85], False),  # error 0.20 against a half-width 0.05: a reduction that means something
        (0.79, [0.70, 0.85], False),  # a wide interval far from the bound
        (0.9996, [0.9985, 0.99995], True),  # error 0.0004 against a half-width 0.0007
        (0.999, None, False),  # no interval: cannot be judged, shown as before
        (None, [0.0, 0.1], False),
    ],
)
def test_noise_is_an_error_smaller_than_the_baselines_half_width(base, ci, noise):
    assert _error_within_noise(base, ci) is noise
