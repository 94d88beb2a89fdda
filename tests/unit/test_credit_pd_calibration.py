"""The credit section's calibration of a model's PD (issue 40): Brier score, log-loss and the
reliability curve with counts on the PD column of a scorecard (points stay the ranking), checked
against scikit-learn; a migration with no shared id is not applicable, said; the AUC test's red
names its reference."""

from __future__ import annotations

import numpy as np
import pytest
from sklearn.calibration import calibration_curve
from sklearn.metrics import brier_score_loss, log_loss

import reportgen.engine.credit as C
from reportgen.report.views.credit import CAPABILITY_TEXT, auc_reference, credit_view, summary_notes
from reportgen.section_results import CreditSection


def _scorecard(n: int = 400, seed: int = 3) -> tuple[np.ndarray, np.ndarray, np.ndarray]:
    """(defaults, points, PD): points fall as the PD rises (a scorecard, direction lower)."""
    rng = np.random.default_rng(seed)
    pd_ = np.round(rng.beta(1.2, 8.0, n), 4)
    pd_[:3] = [0.0, 1.0, 0.5]  # the clipped ends of the log-loss, and a bin edge
    y = rng.random(n) < pd_
    points = np.round(600 - 50 * np.log(pd_ / (1 - pd_ + 1e-9) + 1e-9))
    return y, points, pd_


def _model(y, points, pd_, count=None, **kw):
    s = C.CreditSettings()
    return C.credit_model(
        "champion",
        C.CreditSample(y=y, score=points, pd=pd_, count=count),
        None,
        "lower",
        C.Grading("quantiles", quantiles=5),
        s,
        **kw,
    )


def test_a_scorecards_pd_gets_sklearns_brier_and_log_loss():
    y, points, pd_ = _scorecard()
    c = _model(y, points, pd_).calibration
    assert c is not None
    assert c.brier == pytest.approx(brier_score_loss(y, pd_), rel=1e-12)
    assert c.log_loss == pytest.approx(log_loss(y, pd_, labels=[False, True]), rel=1e-12)


def test_frequency_counts_weigh_the_pd_losses_as_sklearns_sample_weight():
    y, points, pd_ = _scorecard(seed=8)
    w = np.random.default_rng(1).integers(1, 5, len(y))
    c = _model(y, points, pd_, count=w).calibration
    assert c is not None
    assert c.brier == pytest.approx(brier_score_loss(y, pd_, sample_weight=w), rel=1e-12)
    assert c.log_loss == pytest.approx(log_loss(y, pd_, sample_weight=w, labels=[False, True]), rel=1e-12)
    # the same as the rows repeated (what a count means)
    rep = _model(np.repeat(y, w), np.repeat(points, w), np.repeat(pd_, w)).calibration
    assert rep is not None
    assert rep.brier == pytest.approx(c.brier, rel=1e-12) and rep.log_loss == pytest.approx(c.log_loss, rel=1e-12)


def test_the_pds_reliability_curve_is_sklearns_uniform_curve_with_its_counts():
    y, points, pd_ = _scorecard(seed=5)
    pd_[2] = 0.55  # off the bins' inner edges, where scikit-learn's bins are closed on the right
    w = np.random.default_rng(2).integers(1, 4, len(y))
    r = _model(y, points, pd_, count=w).calibration.reliability
    yy, pp = np.repeat(y, w), np.repeat(pd_, w)
    observed, predicted = calibration_curve(yy, pp, n_bins=10, strategy="uniform")
    np.testing.assert_allclose(r.observed, observed, rtol=1e-12)
    np.testing.assert_allclose(r.mean_predicted, predicted, rtol=1e-12)
    counts = np.histogram(pp, bins=np.linspace(0, 1, 11))[0]  # [a, b) bins, the last closed
    np.testing.assert_array_equal(r.counts, counts[counts > 0])
    assert r.counts.sum() == w.sum()


def test_a_pd_on_a_bins_edge_is_in_the_upper_bin_as_in_the_comparisons_diagram():
    y = np.array([False, True, False, True])
    r = C.reliability(y, np.array([0.2, 0.5, 0.95, 1.0]), np.array([1, 2, 3, 4]))
    np.testing.assert_array_equal(r.counts, [1, 2, 7])  # bins [0.2, 0.3), [0.5, 0.6), [0.9, 1.0]
    np.testing.assert_allclose(r.mean_predicted, [0.2, 0.5, (3 * 0.95 + 4 * 1.0) / 7])
    np.testing.assert_allclose(r.observed, [0.0, 1.0, 4 / 7])


def test_the_head_to_head_table_lists_every_model_with_a_pd():
    y, points, pd_ = _scorecard()
    champion = _model(y, points, pd_)
    challenger = C.credit_model(
        "challenger",
        C.CreditSample(y=y, score=pd_, pd=pd_),
        None,
        "higher",
        C.Grading("quantiles", quantiles=5),
        C.CreditSettings(),
        pd_source="score",
    )
    section = CreditSection(
        models={"champion": champion, "challenger": challenger},
        amber=0.05,
        red=0.001,
        psi_amber=0.1,
        psi_red=0.25,
        min_defaults=5,
        segment=None,
        capabilities={},
    )
    rows = credit_view(section, {}, {}).calibrations
    assert [r.name for r in rows] == ["champion", "challenger"]
    assert rows[0].source == "the model's PD column" and rows[1].source == "the score (probabilities)"
    # the same PDs, the same Brier (summed in another row order: to the last bits)
    assert champion.calibration.brier == pytest.approx(challenger.calibration.brier, rel=1e-12)
    assert rows[0].brier == rows[1].brier == f"{champion.calibration.brier:.4f}"


def test_a_migration_without_a_shared_id_is_not_applicable_not_a_matrix_of_zeros():
    """'Grade migration of the 0 obligors … 0 cells …' above a matrix of zeros read as a test passed."""
    y, points, pd_ = _scorecard()
    ids = np.array([str(i) for i in range(len(y))])
    cur = C.CreditSample(y=y, score=points, pd=pd_, ids=ids)
    ref = C.CreditSample(y=y, score=points, pd=pd_, ids=np.char.add("r", ids))
    m = C.credit_model("a", cur, ref, "lower", C.Grading("quantiles", quantiles=5), C.CreditSettings())
    assert m.migration is None and m.capabilities["migration"] == "no_shared_ids"
    assert "no id is in both" in CAPABILITY_TEXT["no_shared_ids"]
    shared = C.credit_model(
        "a",
        cur,
        C.CreditSample(y=y, score=points, pd=pd_, ids=ids),
        "lower",
        C.Grading("quantiles", quantiles=5),
        C.CreditSettings(),
    )
    assert shared.migration is not None and shared.migration.matched == len(y)
    assert "migration" not in shared.capabilities


@pytest.mark.parametrize(
    "initial, words",
    [
        (0.95, "from the config (models[].initial_auc), taken as exact"),
        (None, "the reference sample's AUC"),
    ],
)
def test_a_red_auc_test_names_its_reference_and_whether_it_is_in_sample(initial, words):
    """A challenger's red compared its AUC with its own in-sample development AUC, taken as exact,
    and the summary did not say so."""
    rng = np.random.default_rng(4)
    n = 3000
    pd_ = rng.beta(1.2, 8.0, n)
    y = rng.random(n) < pd_
    ref_y = rng.random(n) < pd_
    ref = C.CreditSample(y=ref_y, score=np.where(ref_y, pd_ + 0.5, pd_), pd=pd_)  # a near-perfect development AUC
    m = C.credit_model(
        "challenger",
        C.CreditSample(y=y, score=pd_, pd=pd_),
        ref,
        "higher",
        C.Grading("quantiles", quantiles=5),
        C.CreditSettings(),
        initial_auc=initial,
        pd_source="score",
    )
    assert "auc_history" in m.failures
    section = CreditSection(
        models={"challenger": m},
        amber=0.05,
        red=0.001,
        psi_amber=0.1,
        psi_red=0.25,
        min_defaults=5,
        segment=None,
        capabilities={},
    )
    note = summary_notes(section)["challenger"]
    assert words in note and f"current AUC {m.auc_history.current_auc:.3f}" in note
    if initial is None:
        assert "in-sample" in note and "taken as exact" in note
    assert auc_reference(m.auc_history) == credit_view(section, {}, {}).models[0].auc.reference
