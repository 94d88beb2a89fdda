"""The credit section's loader and config keys (reportgen/reduce/credit_rows.py, config.py)."""

from __future__ import annotations

import dataclasses
from pathlib import Path

import pandas as pd
import pytest
import yaml

from reportgen.config import load_config, parse_config
from reportgen.errors import ConfigError, InputError
from reportgen.reduce.credit_rows import credit_section


def _write(tmp: Path, frame: pd.DataFrame, **extra) -> Path:
    frame.to_csv(tmp / "cur.csv", index=False)
    model = {
        "name": "sc",
        "file": "cur.csv",
        "score": "points",
        "direction": "lower",
        "pd": "pd",
        **extra.pop("model", {}),
    }
    cfg = {"label": "y", "models": [model], "credit": {"grades": {"edges": [0.05, 0.2]}}, **extra}
    path = tmp / "c.yaml"
    path.write_text(yaml.safe_dump(cfg))
    return path


def _frame(n: int = 40) -> pd.DataFrame:
    return pd.DataFrame({"y": [1, 0, 0, 0] * (n // 4), "points": range(n), "pd": [0.3, 0.1, 0.02, 0.01] * (n // 4)})


def test_demo_config_gives_every_model_a_credit_entry() -> None:
    cfg, _ = load_config(Path(__file__).resolve().parents[2] / "configs" / "demo.yaml")
    sec = credit_section(cfg)
    assert list(sec.models) == ["champion", "challenger", "naive"]
    assert sec.models["champion"].pd_source == "pd_column" and sec.models["challenger"].pd_source == "score"
    assert sec.models["champion"].migration is not None and sec.models["champion"].migration.matched == 3000
    assert sec.segment == "product" and {g.key for g in sec.models["naive"].segments} == {
        "auto",
        "card",
        "personal loan",
    }


def _book(tmp: Path, n: int = 5000) -> Path:
    import numpy as np

    rng = np.random.default_rng(8)
    points = rng.integers(300, 700, n)
    pd_ = np.round(1 / (1 + np.exp((points - 480) / 50)), 4)
    frame = pd.DataFrame(
        {
            "y": (rng.random(n) < pd_).astype(int),
            "points": points,
            "pd": pd_,
            "when": (np.datetime64("2024-01-01") + rng.integers(0, 500, n).astype("timedelta64[D]")).astype(str),
            "seg": rng.choice(["a", "b", "c"], n),
            "id": np.arange(n),
            "w": rng.integers(0, 3, n),
        }
    )
    frame.to_csv(tmp / "cur.csv", index=False)
    frame.assign(points=frame.points + rng.integers(-30, 30, n)).to_csv(tmp / "dev.csv", index=False)
    return tmp


@pytest.mark.slow  # three engines and a local Dask cluster per case: ~3 s each
@pytest.mark.dask
@pytest.mark.parametrize(
    "extra", [{}, {"weight": "w", "weight_kind": "frequency"}, {"credit": {"grades": {"quantiles": 6}}}]
)
def test_streamed_and_dask_engines_give_the_memory_engines_section(tmp_path: Path, extra: dict) -> None:
    """The batched reader (distinct rows with counts, batches of 1 000 rows) gives the numbers of the
    in-memory reader; only the migration, a join of rows by id, is the memory engine's."""
    from test_credit import _close

    from reportgen.results import to_jsonable

    _book(tmp_path)
    body = {
        "date": "when",
        "segment": "seg",
        "id": "id",
        "stream": {"batch_rows": 1000},
        "model": {"reference": "dev.csv", "initial_auc": 0.7},
        **extra,
    }
    cfg, _ = load_config(_write(tmp_path, pd.read_csv(tmp_path / "cur.csv"), **body))
    memory = to_jsonable(credit_section(cfg))
    for engine in ("stream", "dask"):
        other = to_jsonable(credit_section(dataclasses.replace(cfg, engine=engine)))
        mig = other["models"]["sc"].pop("migration"), memory["models"]["sc"]["migration"]
        assert mig[0] is None and mig[1] is not None
        assert other["models"]["sc"]["capabilities"] == {"migration": "needs_rows"}
        other["models"]["sc"]["capabilities"] = memory["models"]["sc"]["capabilities"]
        _close({k: v for k, v in memory["models"]["sc"].items() if k != "migration"}, other["models"]["sc"])
        assert {k: v for k, v in other.items() if k != "models"} == {k: v for k, v in memory.items() if k != "models"}


def test_a_bad_value_past_the_first_batch_names_its_row_in_a_streamed_run(tmp_path: Path) -> None:
    _book(tmp_path)
    frame = pd.read_csv(tmp_path / "cur.csv")
    frame.loc[2500, "pd"] = 3.0
    cfg, _ = load_config(_write(tmp_path, frame, engine="stream", stream={"batch_rows": 1000}))
    with pytest.raises(InputError, match=r"cur\.csv: column 'pd', row 2502: PD 3 outside \[0, 1\]"):
        credit_section(cfg)


def test_a_missing_pd_column_names_the_config_key(tmp_path: Path) -> None:
    cfg, _ = load_config(_write(tmp_path, _frame().drop(columns="pd")))
    with pytest.raises(InputError, match=r"models\[0\]\.pd: column 'pd' not found"):
        credit_section(cfg)


def test_a_pd_outside_0_1_names_file_column_and_row(tmp_path: Path) -> None:
    f = _frame()
    f.loc[5, "pd"] = 1.5
    cfg, _ = load_config(_write(tmp_path, f))
    with pytest.raises(InputError, match=r"cur.csv: column 'pd', row 7: PD 1.5 outside \[0, 1\]"):
        credit_section(cfg)


def test_reference_resolves_against_the_config_and_is_audited(tmp_path: Path) -> None:
    _frame().to_csv(tmp_path / "dev.csv", index=False)
    cfg, _ = load_config(_write(tmp_path, _frame(), model={"reference": "dev.csv"}))
    assert cfg.models[0].reference == tmp_path / "dev.csv"
    m = credit_section(cfg).models["sc"]
    assert m.stability is not None and m.stability.psi.statistic == pytest.approx(0.0)


@pytest.mark.parametrize(
    "credit, message",
    [
        ({"grades": {"edges": [0.1], "quantiles": 5}}, "exactly one of edges / column / quantiles"),
        ({"grades": {"edges": [0.2, 0.1]}}, "strictly increasing"),
        ({"traffic_lights": {"amber": 0.01, "red": 0.05}}, "red must be a smaller p-value"),
        ({"grade": {"edges": [0.1]}}, "did you mean 'grades'"),
        ({"grades": {"quantiles": 4, "order": ["A", "B"]}}, "order .the rating scale. goes with column"),
        ({"grades": {"column": "r", "order": ["A", "B", "A"]}}, "grade 'A' is listed twice"),
        ({"grades": {"column": "r", "order": ["A", ""]}}, "a grade label is empty"),
        ({"grades": {"column": "r", "order": ["A"]}}, "at least 2 items"),
    ],
)
def test_credit_config_errors(credit: dict, message: str) -> None:
    text = yaml.safe_dump({"label": "y", "models": [{"name": "a", "file": "a.csv", "score": "s"}], "credit": credit})
    with pytest.raises(ConfigError, match=message):
        parse_config(text, "c.yaml")


def test_a_missing_value_names_the_column_that_is_empty_in_the_first_bad_row(tmp_path: Path) -> None:
    f = _frame().astype({"points": float})
    f.loc[9, "points"] = None
    f.loc[3, "pd"] = None
    cfg, _ = load_config(_write(tmp_path, f))
    with pytest.raises(InputError, match=r"column 'pd', row 5: missing value"):
        credit_section(cfg)
    cfg, _ = load_config(_write(tmp_path, f, missing="drop"))
    assert credit_section(cfg).models["sc"].n == 38


def _weighted(tmp: Path, kind: str, weights: list[float]) -> Path:
    frame = _frame(40).assign(
        w=weights, when=pd.date_range("2024-01-01", periods=40, freq="5D").strftime("%Y-%m-%d"), seg=["a", "b"] * 20
    )
    return _write(tmp, frame, weight="w", weight_kind=kind, date="when", segment="seg")


def test_frequency_weights_count_obligors_exactly_as_repeated_rows(tmp_path: Path) -> None:
    import numpy as np

    from reportgen.results import to_jsonable

    w = np.random.default_rng(3).integers(0, 4, 40)
    cfg, _ = load_config(_weighted(tmp_path, "frequency", w.tolist()))
    weighted = credit_section(cfg)
    assert weighted.capabilities == {"weights": "frequency"}
    frame = _frame(40).assign(
        when=pd.date_range("2024-01-01", periods=40, freq="5D").strftime("%Y-%m-%d"), seg=["a", "b"] * 20
    )
    (tmp_path / "rep").mkdir()
    cfg2, _ = load_config(_write(tmp_path / "rep", frame.loc[frame.index.repeat(w)], date="when", segment="seg"))
    repeated = credit_section(cfg2)
    assert to_jsonable(weighted.models["sc"]) == to_jsonable(repeated.models["sc"])
    assert weighted.models["sc"].n == int(w.sum())


def test_a_fractional_frequency_weight_names_file_column_and_row(tmp_path: Path) -> None:
    cfg, _ = load_config(_weighted(tmp_path, "frequency", [1.0] * 6 + [2.5] + [1.0] * 33))
    with pytest.raises(
        InputError, match=r"cur\.csv: column 'w', row 8: weight 2\.5: weight_kind: frequency needs whole"
    ):
        credit_section(cfg)


def test_sampling_weights_are_stated_not_applied(tmp_path: Path) -> None:
    cfg, _ = load_config(_weighted(tmp_path, "sampling", [0.5, 2.0] * 20))
    sec = credit_section(cfg)
    assert sec.capabilities == {"weights": "unweighted"} and sec.models["sc"].n == 40


@pytest.mark.parametrize(
    ("change", "message"),
    [
        ({"model": {"pd": "pd_mapping"}}, r"models\[0\]\.pd: column 'pd_mapping' not found in .*cur\.csv"),
        ({"segment": "product"}, r"segment: column 'product' not found in .*cur\.csv"),
        ({"date": "when"}, r"date: column 'when' not found in .*cur\.csv"),
        ({"credit": {"grades": {"column": "rating"}}}, r"credit\.grades\.column: column 'rating' not found"),
        ({"model": {"reference": "dev.csv"}}, r"models\[0\]\.reference: column 'pd' not found in .*dev\.csv"),
    ],
)
def test_validate_checks_the_credit_columns_in_one_line_with_exit_2(
    tmp_path: Path, capsys, change: dict, message: str
) -> None:
    from reportgen import cli

    _frame().drop(columns="pd").to_csv(tmp_path / "dev.csv", index=False)
    path = _write(tmp_path, _frame(), **change)
    assert cli.main(["validate", str(path)]) == 2
    err = capsys.readouterr().err.strip()
    assert len(err.splitlines()) == 1 and "Traceback" not in err
    assert __import__("re").search(message, err), err


def test_validate_checks_credit_values_and_passes_a_good_config(tmp_path: Path, capsys) -> None:
    from reportgen import cli

    bad = _frame()
    bad.loc[5, "pd"] = 1.7
    assert cli.main(["validate", str(_write(tmp_path, bad))]) == 2
    assert "cur.csv: column 'pd', row 7: PD 1.7 outside [0, 1]" in capsys.readouterr().err
    assert cli.main(["validate", str(_write(tmp_path, _frame()))]) == 0
    assert "credit section inputs checked (1 model(s), 40 current rows)" in capsys.readouterr().out
    # a streamed run on small inputs: validate checks every batch, as the run reads them
    assert cli.main(["validate", str(_write(tmp_path, _frame().drop(columns="pd"), engine="stream"))]) == 2
    assert "models[0].pd: column 'pd' not found" in capsys.readouterr().err
    assert cli.main(["validate", str(_write(tmp_path, bad, engine="stream"))]) == 2
    assert "cur.csv: column 'pd', row 7: PD 1.7 outside [0, 1]" in capsys.readouterr().err
    assert cli.main(["validate", str(_write(tmp_path, _frame(), engine="stream"))]) == 0
    assert "credit section inputs checked (1 model(s), 40 current rows)" in capsys.readouterr().out


def test_validate_of_large_streamed_inputs_checks_the_credit_columns_and_first_batches(
    tmp_path: Path, capsys, monkeypatch
) -> None:
    """Past SMALL_INPUT_BYTES a streamed validate reads no file whole: the section's columns and
    the first batch of each file."""
    import reportgen.io.files as files
    from reportgen import cli

    monkeypatch.setattr(files, "SMALL_INPUT_BYTES", 0)
    for row, code in ((5, 2), (None, 0)):  # a bad PD in the first batch; none
        frame = _frame()
        if row is not None:
            frame.loc[row, "pd"] = 1.7
        assert cli.main(["validate", str(_write(tmp_path, frame, engine="stream"))]) == code
    said = capsys.readouterr()
    assert "cur.csv: column 'pd', row 7: PD 1.7 outside [0, 1]" in said.err
    assert "first batch of each file valid (engine: stream" in said.out


def test_sampling_weights_not_applied_is_a_run_warning(tmp_path: Path) -> None:
    from reportgen.pipeline import analyse

    path = _weighted(tmp_path, "sampling", [0.5, 2.0] * 20)
    cfg, path = load_config(path)
    result = analyse(dataclasses.replace(cfg, bootstrap=dataclasses.replace(cfg.bootstrap, resamples=0)), path)
    assert any("sampling weights do not apply" in w for w in result.run.warnings)


def _rated(tmp: Path, ratings: list[str], order: list, **extra) -> Path:
    f = _frame(len(ratings)).assign(rating=ratings)
    return _write(tmp, f, credit={"grades": {"column": "rating", "order": order}}, **extra)


@pytest.mark.parametrize("engine", ["memory", "stream", "dask"])
def test_the_rating_scale_orders_letter_grades_in_every_engine(tmp_path: Path, engine: str) -> None:
    """credit.grades.order: letter grades in the scale's order (text order would put A before AAA),
    a grade of the scale nobody holds kept (K = the scale's grades), whole numbers as their digits."""
    ratings = ["BBB", "A", "AA", "AAA"] * 10  # the frame's PDs 0.3, 0.1, 0.02, 0.01 in turn
    cfg, _ = load_config(_rated(tmp_path, ratings, ["AAA", "AA", "A", "BBB", "BB"], engine=engine))
    m = credit_section(cfg).models["sc"]
    assert [g.grade for g in m.grades] == ["AAA", "AA", "A", "BBB", "BB"]
    assert [g.mean_pd for g in m.grades] == pytest.approx([0.01, 0.02, 0.1, 0.3, None])
    assert [g.n for g in m.grades] == [10, 10, 10, 10, 0] and m.monotonic
    cfg, _ = load_config(_rated(tmp_path, ["3", "2", "1", "1"] * 10, [1, 2, 3], engine=engine))
    assert [g.grade for g in credit_section(cfg).models["sc"].grades] == ["1", "2", "3"]


@pytest.mark.parametrize("engine", ["memory", "stream"])
def test_a_grade_outside_the_rating_scale_names_file_column_and_row(tmp_path: Path, engine: str) -> None:
    ratings = ["AAA", "AA"] * 20
    ratings[13] = "AA+"
    cfg, _ = load_config(_rated(tmp_path, ratings, ["AAA", "AA", "A"], engine=engine))
    with pytest.raises(
        InputError,
        match=r"cur.csv: column 'rating', row 15: grade 'AA\+' is not in "
        r"credit.grades.order \(AAA, AA, A\); add it to the rating scale",
    ):
        credit_section(cfg)


def test_letter_grades_without_a_scale_are_flagged_and_warned_of(tmp_path: Path) -> None:
    """Without credit.grades.order, letter grades run in text order: the section says so
    (capability grade_order: text) and the run warns; a scale given, or numeric grades, are not flagged."""
    from reportgen.report.wording import notice_text
    from reportgen.results import Notice

    f = _frame(40).assign(rating=["BBB", "A", "AA", "AAA"] * 10)
    cfg, _ = load_config(_write(tmp_path, f, credit={"grades": {"column": "rating"}}))
    sec = credit_section(cfg)
    assert sec.capabilities == {"grade_order": "text"}
    assert [g.grade for g in sec.models["sc"].grades] == ["A", "AA", "AAA", "BBB"]
    cfg, _ = load_config(_rated(tmp_path, ["BBB", "A", "AA", "AAA"] * 10, ["AAA", "AA", "A", "BBB"]))
    assert credit_section(cfg).capabilities == {}
    cfg, _ = load_config(_write(tmp_path, f.assign(rating=[4, 3, 2, 1] * 10), credit={"grades": {"column": "rating"}}))
    assert credit_section(cfg).capabilities == {}
    assert "set credit.grades.order" in notice_text(Notice("credit_grade_order", {}))
