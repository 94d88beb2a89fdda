"""Exports (issue 20): the key tables as CSV files and one xlsx workbook, formula cells neutralised."""

from __future__ import annotations

import csv
import json
from pathlib import Path

import pytest

from reportgen.report.export import tables, to_csv
from reportgen.results import ComparisonResult

PINNED_NOW = "2026-01-01T00:00:00Z"


def _read_csv(path: Path) -> list[dict[str, str]]:
    with path.open(encoding="utf-8", newline="") as f:
        return list(csv.DictReader(f))


def _is_number(text: str) -> bool:
    try:
        float(text)
    except ValueError:
        return False
    return True


def _num(text: str) -> float | None:
    return None if text == "" else float(text)


@pytest.mark.slow  # a run writing json, csv and xlsx: ~3 s (the formula test keeps the export in the inner loop)
def test_csv_and_xlsx_hold_the_numbers_of_metrics_json(tmp_path: Path, fast_config_factory, cli, capsys) -> None:
    import openpyxl

    cfg = fast_config_factory(tmp_path / "c.yaml", checks=[{"metric": "gini", "at_least": 0.1}])
    out = tmp_path / "out"
    assert cli(["run", str(cfg), "--out", str(out), "--now", PINNED_NOW, "--format", "json,csv,xlsx"]) == 0
    printed = capsys.readouterr().out
    assert sorted(p.name for p in out.iterdir()) == [
        "bands.csv",
        "checks.csv",
        "comparisons.csv",
        "credit_grades.csv",
        "credit_groups.csv",
        "credit_tests.csv",
        "metrics.csv",
        "metrics.json",
        "segments.csv",
        "tables.xlsx",
        "thresholds.csv",
    ]
    assert "comparisons.csv" in printed and "tables.xlsx" in printed
    doc = json.loads((out / "metrics.json").read_text(encoding="utf-8"))
    rows = _read_csv(out / "metrics.csv")
    assert len(rows) == sum(len(m["metrics"]) for m in doc["models"].values())
    for r in rows:
        m = doc["models"][r["model"]]
        assert _num(r["value"]) == m["metrics"][r["metric"]]  # full precision (repr round trip)
        ci = m["ci"].get(r["metric"])
        assert [_num(r["ci_low"]), _num(r["ci_high"])] == (ci or [None, None])
        assert r["undefined"] == m["undefined_reasons"].get(r["metric"], {}).get("code", "")
    comp = _read_csv(out / "comparisons.csv")
    for r in comp:
        c = next(c for c in doc["comparisons"] if c["model"] == r["model"])
        assert _num(r["delta"]) == c["delta"][r["metric"]]
        assert r["verdict"] == (c["decision"]["direction"] if r["metric"] == c["primary_metric"] else "")
    thr = _read_csv(out / "thresholds.csv")
    for r in thr:
        o = doc["models"][r["model"]]["optimal_thresholds"][r["criterion"]]
        assert (_num(r["threshold"]), _num(r["value"]), _num(r["tp"])) == (o["threshold"], o["value"], o["tp"])
    assert len(_read_csv(out / "checks.csv")) == len(doc["checks"])

    wb = openpyxl.load_workbook(out / "tables.xlsx", read_only=True)
    assert wb.sheetnames == [
        "metrics",
        "comparisons",
        "thresholds",
        "checks",
        "credit_grades",
        "credit_tests",
        "credit_groups",
        "segments",
        "bands",
    ]
    sheet = list(wb["metrics"].iter_rows(values_only=True))
    assert list(sheet[0]) == list(rows[0].keys()) and len(sheet) == len(rows) + 1
    for got, r in zip(sheet[1:], rows):  # a workbook keeps Excel's 15 significant digits
        want = _num(r["value"])
        assert got[0] == r["model"]
        assert got[2] is None if want is None else got[2] == pytest.approx(want, rel=1e-14, abs=0)


def _renamed(node: object, names: dict[str, str]) -> object:
    """``node`` with every string (and mapping key) that is a model name replaced by its new name."""
    if isinstance(node, dict):
        return {names.get(k, k): _renamed(v, names) for k, v in node.items()}
    if isinstance(node, list):
        return [_renamed(v, names) for v in node]
    return names.get(node, node) if isinstance(node, str) else node


def test_formula_cells_are_neutralised_in_csv_and_xlsx(tmp_path: Path, demo_run) -> None:
    import openpyxl

    from reportgen.report.export import write_xlsx

    doc = demo_run.metrics
    hostile = {"naive": '=HYPERLINK("http://evil","x")', "challenger": "+cmd|' /C calc'!A0", "champion": "@SUM(1+1)"}
    doc["models"] = {hostile[k]: dict(v, name=hostile[k]) for k, v in doc["models"].items()}
    doc["comparisons"] = [
        dict(c, model=hostile[c["model"]], baseline=hostile[c["baseline"]]) for c in doc["comparisons"]
    ]
    doc["run"]["baseline"] = hostile[doc["run"]["baseline"]]
    doc["pairwise"] = []
    doc["credit"]["models"] = {hostile[k]: dict(v, model=hostile[k]) for k, v in doc["credit"]["models"].items()}
    doc["segments"] = _renamed(doc["segments"], hostile)
    result = ComparisonResult.from_json(doc)
    for name, t in tables(result).items():
        text = to_csv(t)
        for row in csv.reader(text.splitlines()):  # only a plain number (a negative delta) may start with '-'
            assert not any(cell.startswith(("=", "+", "-", "@")) and not _is_number(cell) for cell in row), (name, row)
        if name != "thresholds" or t[1]:
            assert "'=HYPERLINK" in text or "'+cmd" in text or "'@SUM" in text
    path = tmp_path / "t.xlsx"
    write_xlsx(result, path)
    wb = openpyxl.load_workbook(path)
    for ws in wb.worksheets:
        for row in ws.iter_rows():
            for cell in row:
                assert cell.data_type != "f", (ws.title, cell.coordinate, cell.value)
                if isinstance(cell.value, str):
                    assert not cell.value.startswith(("=", "+", "-", "@"))
    # negative numbers stay numbers (a delta of -0.2 is not text "'-0.2")
    deltas = [r[3] for r in tables(result)["comparisons"][1]]
    assert any(isinstance(d, float) and d < 0 for d in deltas)
