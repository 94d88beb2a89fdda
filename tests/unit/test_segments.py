"""The segments section: the deprecated key, the planted reversal, Holm by column, small values."""

from __future__ import annotations

from pathlib import Path

import pytest
from segment_cases import config, planted

from reportgen.config import config_from_mapping
from reportgen.config_base import json_data
from reportgen.engine.driver import compare_evidence
from reportgen.errors import InputError
from reportgen.pipeline import analyse, load_evidence, settings_from
from reportgen.reduce.segment_rows import segment_section
from reportgen.report.views.brief import segment_findings
from reportgen.report.views.segments import segments_view


@pytest.fixture(scope="module")
def case(tmp_path_factory: pytest.TempPathFactory):
    path = planted(tmp_path_factory.mktemp("seg") / "rows.csv")
    cfg = config(path, bootstrap={"resamples": 0, "seed": 1})  # the verdicts are DeLong's
    _, comparisons, _ = compare_evidence(load_evidence(cfg), settings_from(cfg))
    return cfg, comparisons, segment_section(cfg, settings_from(cfg), comparisons)


def test_segment_key_is_read_as_segments(tmp_path: Path) -> None:
    cfg = config(planted(tmp_path / "r.csv", n=60), segments=["other"], segment="band")
    assert cfg.segments == ["other", "band"] and cfg.segment == "band"
    again = cfg.with_overrides(threshold=0.4)  # revalidated: the column is not added twice
    assert again.segments == ["other", "band"]
    only = config_from_mapping({**{k: v for k, v in json_data(cfg).items() if k != "segments"}, "segment": "band"})
    assert only.segments == ["band"]


def test_planted_reversal_is_flagged(case) -> None:
    _, comparisons, section = case
    overall = next(c for c in comparisons if c.model == "challenger").decision
    assert overall.delta > 0  # better overall
    flagged = [(r.model, r.column, r.value, r.overall, r.segment) for r in section.reversals]
    assert ("challenger", "band", "c", "better", "worse") in flagged
    assert not any(r.column == "other" for r in section.reversals)


def test_holm_is_over_a_columns_values(case) -> None:
    _, _, section = case
    band = next(c for c in section.columns if c.column == "band")
    deltas = [d for v in band.values for d in v.deltas if d.model == "challenger"]
    assert [d.family_size for d in deltas] == [3, 3, 3] and {d.family for d in deltas} == {"segments"}
    ps = sorted(d.p_value for d in deltas)
    adj = sorted(d.p_value_adjusted for d in deltas)
    assert adj[0] == pytest.approx(min(1.0, 3 * ps[0]))  # Holm's first step
    assert all(a >= p for a, p in zip(adj, ps))
    assert {d.method for d in deltas} == {"DeLong (paired)"}


def test_small_value_is_listed_not_tested(tmp_path: Path) -> None:
    cfg = config(planted(tmp_path / "r.csv", n=120), segments=["band"], segments_min_rows=12)
    _, comparisons, _ = compare_evidence(load_evidence(cfg), settings_from(cfg))
    section = segment_section(cfg, settings_from(cfg), comparisons)
    c = next(v for v in section.columns[0].values if v.value == "c")
    assert not c.tested and not c.models and not c.deltas and c.rows > 0


@pytest.fixture(scope="module")
def run(tmp_path_factory: pytest.TempPathFactory):
    path = planted(tmp_path_factory.mktemp("segrun") / "rows.csv")
    checks = [{"model": "challenger", "metric": "segments_significantly_worse", "at_most": 0}]
    cfg = config(path, checks=checks, segment="other", bootstrap={"resamples": 0, "seed": 1})
    return analyse(cfg, "segments.yaml", now="2026-01-01T00:00:00Z")


def test_reversal_reaches_warnings_summary_brief_and_gate(run) -> None:
    assert any(
        "Better than the baseline overall, challenger is significantly worse on band = c" in w for w in run.run.warnings
    )
    assert any("'segment: other' is deprecated" in w for w in run.run.warnings)
    (check,) = run.checks
    assert not check.passed and check.value >= 1
    found = segment_findings(run)["challenger"]
    assert [f.test for f in found if f.light == "amber"] == ["By segment: band = c"]
    view = segments_view(run.segments, tuple(run.models), {}, "95 %", {})
    band = view.columns[0]
    assert next(c.mark for r in band.rows if r.value == "c" for c in r.deltas) == "worse"
    assert view.reversals and view.reversals[0].startswith(
        "Better than champion overall, challenger is significantly worse"
    )


def test_segments_frame(run) -> None:
    f = run.frames()["segments"]
    primary = f[f["delta"].notna()]
    assert set(primary["metric"]) == {"gini"} and set(primary["model"]) == {"challenger", "third"}
    assert (primary.loc[(primary.segment == "c") & (primary.model == "challenger"), "direction"] == "worse").all()
    assert set(f["metric"].dropna()) == {"roc_auc", "gini", "ks", "brier", "log_loss"}


def test_missing_column_names_the_key(tmp_path: Path) -> None:
    cfg = config(planted(tmp_path / "r.csv", n=60), segments=["bnad"])
    with pytest.raises(InputError, match=r"segments\[0\].*'bnad' not found.*did you mean"):
        segment_section(cfg, settings_from(cfg), [])


@pytest.mark.slow  # 3 s: the unpaired (Welch) DeLong's t quantile is found by bisection
def test_separate_files_that_cannot_be_paired_are_compared_unpaired(tmp_path: Path) -> None:
    import pandas as pd

    df = pd.read_csv(planted(tmp_path / "r.csv", n=400))
    df.loc[5, "champion"] = None  # dropped under missing: drop, so the files no longer line up by position
    files = {}
    for name in ("champion", "challenger", "third"):
        files[name] = tmp_path / f"{name}.csv"
        df.to_csv(files[name], index=False)
    cfg = config(tmp_path / "r.csv", segments=["other"], missing="drop", bootstrap={"resamples": 0, "seed": 1})
    cfg = cfg.with_overrides(models=[{**json_data(m), "file": str(files[m.name])} for m in cfg.models])
    section = segment_section(cfg, settings_from(cfg), [])
    methods = {d.method for v in section.columns[0].values for d in v.deltas}
    assert methods == {"DeLong (unpaired, Welch t)"}
    assert sum(v.rows for v in section.columns[0].values) == 399  # the baseline's rows


def test_validate_checks_the_columns_and_warns_of_segment(tmp_path: Path, cli, capsys) -> None:
    import yaml

    planted(tmp_path / "rows.csv", n=60)
    cfg = {
        "task": "binary",
        "label": "y",
        "models": [{"name": n, "file": "rows.csv", "score": n} for n in ("champion", "challenger")],
        "segment": "band",
        "segments": ["other"],
    }
    path = tmp_path / "c.yaml"
    path.write_text(yaml.safe_dump(cfg), encoding="utf-8")
    assert cli(["validate", str(path)]) == 0
    out = capsys.readouterr()
    assert "segment columns checked (other: 2 values, band: 3 values)" in out.out + out.err
    assert "'segment: band' is deprecated" in out.err
    path.write_text(yaml.safe_dump({**cfg, "segments": ["bnad"]}), encoding="utf-8")
    assert cli(["validate", str(path)]) == 2
    assert "segments[0]: column 'bnad' not found" in capsys.readouterr().err


def test_segments_round_trip_through_metrics_json(run) -> None:
    from reportgen.results import ComparisonResult

    back = ComparisonResult.from_json(run.to_json())
    assert back.segments == run.segments
    assert back.frames()["segments"].equals(run.frames()["segments"])
