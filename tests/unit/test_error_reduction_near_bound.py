"""The relative error reduction is left out where it is noise (issue 40: an AUC near 1 read
−2665 %): when the baseline's error 1 − r₁ is smaller than the interval of the difference is wide."""

from __future__ import annotations

import pytest

from reportgen.engine.compare import relative_error_reduction
from reportgen.report.views.comparison import _error_within_noise


def test_an_auc_near_one_has_no_error_reduction_its_interval_cannot_resolve():
    # baseline AUC 0.99996 (error 0.00004), challenger 0.99889: the ratio is −2675 %
    rer = relative_error_reduction(0.99996, 0.99889)
    assert rer == pytest.approx(-(0.00111 - 0.00004) / 0.00004)
    assert _error_within_noise(0.99996, [-0.002, 0.0001])


@pytest.mark.parametrize(("base", "ci", "noise"), [
    (0.80, [0.01, 0.05], False),  # error 0.20 against a width 0.04: a reduction that means something
    (0.999, [-0.002, 0.001], True),  # error 0.001 against a width 0.003
    (0.999, None, False),  # no interval: cannot be judged, shown as before
    (None, [0.0, 0.1], False),
])
def test_noise_is_an_error_smaller_than_the_interval_width(base, ci, noise):
    assert _error_within_noise(base, ci) is noise
