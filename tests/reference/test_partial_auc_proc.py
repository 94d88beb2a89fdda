"""Verified case: partial AUC on pROC's aSAH data equals pROC's published values.

Source: pROC's own test suite, github.com/xrobin/pROC ``tests/testthat/test-auc.R`` (tests
"partial auc works on arbitrary intervals", "... with focus on SE", "... with correction enabled",
"... with focus on SE and correction enabled"); ``r.wfns <- roc(aSAH$outcome, aSAH$wfns)`` and
``r.ndka`` likewise (``helper-rocs.R``): cases "Poor", higher values more likely poor (pROC's
automatic direction "<"). ``auc(r, partial.auc = c(1, .9))`` is the range [0.9, 1]."""

from __future__ import annotations

import csv
import math
from pathlib import Path

import numpy as np
import pytest

from reportgen.engine import partial_auc as PA
from reportgen.engine.curve import build_table

ASAH = Path(__file__).resolve().parents[1] / "data" / "asah.csv"

# (predictor, focus, lo, hi): (raw, corrected) from test-auc.R; None: pROC returns NA (with a warning)
PROC = {
    ("wfns", "specificity", 0.9, 1.0): (0.0334417344173442, 0.649693339038653),
    ("wfns", "specificity", 0.8, 0.9): (0.0598373983739837, 0.763749402199904),
    ("wfns", "specificity", 0.0, 0.5): (0.488134475939354, 0.952537903757416),
    ("wfns", "specificity", 0.0, 1.0): (0.823678861788618, 0.823678861788618),
    ("ndka", "specificity", 0.9, 1.0): (0.0107046070460705, 0.530024247610897),
    ("ndka", "specificity", 0.8, 0.9): (0.0277777777777778, 0.575163398692811),
    ("ndka", "specificity", 0.0, 0.5): (0.416836043360434, 0.667344173441734),
    ("ndka", "specificity", 0.0, 1.0): (0.611957994579946, 0.611957994579946),
    ("wfns", "sensitivity", 0.9, 1.0): (0.0400999322493225, 0.68473648552275),
    ("wfns", "sensitivity", 0.8, 0.9): (0.0609953703703703, 0.770561002178649),
    ("wfns", "sensitivity", 0.0, 0.5): (0.483358739837398, 0.933434959349593),
    ("wfns", "sensitivity", 0.0, 1.0): (0.823678861788618, 0.823678861788618),
    ("ndka", "sensitivity", 0.9, 1.0): (0.0037940379403794, None),
    ("ndka", "sensitivity", 0.8, 0.9): (0.0242547425474255, 0.554439662043679),
    ("ndka", "sensitivity", 0.0, 0.5): (0.428523035230352, 0.714092140921409),
    ("ndka", "sensitivity", 0.0, 1.0): (0.611957994579946, 0.611957994579946),
}


def _tables():
    with ASAH.open() as f:
        rows = list(csv.DictReader(f))
    y = np.array([r["outcome"] == "Poor" for r in rows])
    return {c: build_table(np.array([float(r[c]) for r in rows]), y) for c in ("wfns", "ndka")}


TABLES = _tables()


@pytest.mark.parametrize("key", sorted(PROC), ids=lambda k: f"{k[0]}-{k[1]}-{k[2]}-{k[3]}")
def test_partial_auc_equals_proc_published_values(key):
    col, focus, lo, hi = key
    raw, corr = PROC[key]
    r = PA.PartialRange(focus, lo, hi)
    got = PA.partial_auc(TABLES[col], r)
    assert got == pytest.approx(raw, rel=1e-12, abs=1e-14)
    c = float(PA.corrected(got, r))
    if corr is None:
        assert math.isnan(c)
    else:
        assert c == pytest.approx(corr, rel=1e-12)


def test_model_result_holds_the_published_values():
    """The engine's per-model step (with its bootstrap) reports pROC's value and an interval around it."""
    r = PA.PartialRange("specificity", 0.9, 1.0)
    (p,) = PA.model_partial_aucs(TABLES["wfns"], 2.5, (r,), 200, np.random.default_rng(1), 0.95)
    assert p.value == pytest.approx(0.0334417344173442, rel=1e-12)
    assert p.corrected == pytest.approx(0.649693339038653, rel=1e-12)
    assert p.ci is not None and p.ci[0] <= p.value <= p.ci[1]
    assert p.ci[0] >= 0.0 and p.ci[1] <= 0.1
