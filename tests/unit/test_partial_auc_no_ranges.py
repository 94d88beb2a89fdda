"""Regression: a model without partial AUC ranges (the default) drew a whole bootstrap for none.

At 10M rows that was 0.37 s of a default run (issue 46); the draws are skipped, and the
generator is left untouched.
"""

import numpy as np

from reportgen.engine import partial_auc as PA
from reportgen.engine.curve import build_table


def test_no_ranges_draw_nothing():
    rng = np.random.default_rng(5)
    table = build_table(rng.random(300), rng.random(300) < 0.3)
    gen = np.random.default_rng(1)
    before = gen.bit_generator.state
    assert PA.model_partial_aucs(table, 0.5, (), 200, gen, 0.95) == []
    assert gen.bit_generator.state == before
    # with a range the same call draws (the check above can fail)
    (p,) = PA.model_partial_aucs(table, 0.5, (PA.PartialRange("specificity", 0.8, 1.0),), 50, gen, 0.95)
    assert p.ci is not None and gen.bit_generator.state != before
