"""The engine differences that remain after the evidence contract landed (issue 15), by test id.

Each entry is xfailed *strictly* by ``test_engine_parity.py`` with the cause of its aspect
(:data:`CAUSES`): when a fix makes an entry agree, the test fails until the entry is removed.
Regenerate nothing by hand-waving: every entry here was observed failing on the merged main.
"""

from __future__ import annotations

#: Why an aspect still differs between engines (the remaining work of issue 15).
CAUSES: dict[str, str] = {
    "point_metrics": "(none left: every engine gives every metric, curve, optimum and comparison, capability codes alike)",
    "intervals": (
        "(none left: counts, score tables, joint pair tables, weight cells and joint weight cells (binary), class "
        "tables, joint confusion counts and distinct rows (multiclass) are counted alike in every engine)"
    ),
    "delong_mcnemar": "(none left: every engine pairs files joined by id in any order and after dropped rows, "
    "and counts McNemar's tables in rows beside the weighted ones)",
    "data_facts": "(none left: run.paired, dropped rows and warnings agree)",
    "method_notes": "(none left: the tests' notes agree)",
}

#: (case, engine pair, aspect) observed differing.
KNOWN: frozenset[tuple[str, str, str]] = frozenset({})
