"""A period or segment too small to test is one line saying why, not a row of n/a (issue 40)."""

from __future__ import annotations

from reportgen.report.views.credit import _group_table
from reportgen.section_results import CreditGroup


def _group(key: str, n: int, defaults: int, auc: float | None) -> CreditGroup:
    gini = None if auc is None else 2 * auc - 1
    return CreditGroup(
        key=key,
        n=n,
        defaults=defaults,
        default_rate=defaults / n,
        mean_pd=0.05,
        auc=auc,
        auc_ci=None if auc is None else [auc - 0.05, auc + 0.05],
        gini=gini,
        gini_ci=None if gini is None else [gini - 0.1, gini + 0.1],
        ks=None,
        few_defaults=defaults < 5,
    )


def test_a_segment_without_an_auc_is_a_line_not_a_row() -> None:
    table = _group_table(
        "Performance per product", "Product", [_group("card", 3000, 300, 0.71), _group("auto", 12, 1, None)]
    )
    assert [r.key for r in table.rows] == ["card"]
    assert table.untested == (
        "Product auto: 12 rows, 1 default — too small to test (the AUC needs at least two defaults and two non-defaults)",
    )


def test_every_segment_too_small_leaves_only_the_lines() -> None:
    table = _group_table("Performance per product", "Product", [_group("auto", 3, 0, None)])
    assert table.rows == () and len(table.untested) == 1
