"""The notebook API (issue 21): models compared from DataFrames / Arrow tables without files,
the same frozen result as from files; a short repr and a rich display; no matplotlib state
changed; the package root documents itself (``help(reportgen)``)."""

from __future__ import annotations

import dataclasses
import pydoc
import subprocess
import sys
from pathlib import Path

import markupsafe
import numpy as np
import pandas as pd
import pyarrow as pa
import pyarrow.parquet as pq
import pytest
import yaml

import reportgen
from reportgen.errors import ConfigError, InputError
from reportgen.results import ComparisonResult

ROOT = Path(__file__).resolve().parents[2]
DEMO = ROOT / "configs" / "demo.yaml"
DATA = ROOT / "configs" / "data"
NOW = "2026-01-01T00:00:00Z"
#: The audit fields that name where rows came from (a file and its bytes, or a frame).
SOURCE_FIELDS = ("files", "config", "config_path", "run_id")


def _demo_settings(resamples: int = 40) -> tuple[dict, dict]:
    raw = yaml.safe_load(DEMO.read_text(encoding="utf-8"))
    # the credit section reads files (compare_frames refuses it): left out of both runs
    settings = {
        k: v
        for k, v in raw.items()
        if k not in ("models", "label", "id", "task", "output", "credit", "segment", "segments")
    }
    settings["bootstrap"] = {"resamples": resamples, "seed": 7}
    scores = {
        m["name"]: {k: v for k, v in m.items() if k not in ("name", "file", "pd", "reference", "initial_auc")}
        for m in raw["models"]
    }
    return settings, scores


def _without_sources(result: ComparisonResult) -> dict:
    """The result's JSON minus what records the inputs' origin (paths, hashes, the config's files)."""
    doc = result.to_json()
    for key in SOURCE_FIELDS:
        doc["run"].pop(key)
    for m in doc["models"].values():
        m.pop("file")
    doc.pop("digest")  # of the whole document, the sources included
    return doc


@pytest.fixture(scope="module")
def from_files() -> ComparisonResult:
    settings, _ = _demo_settings()
    cfg, path = reportgen.load_config(DEMO)
    cfg = cfg.with_overrides(bootstrap=settings["bootstrap"], credit=None, segment=None, segments=[])
    return reportgen.compare_models(cfg, path, now=NOW)


@pytest.fixture(scope="module")
def from_frames() -> ComparisonResult:
    settings, scores = _demo_settings()
    frames = {
        "champion": pd.read_csv(DATA / "champion_scorecard.csv"),
        "challenger": pq.read_table(DATA / "challenger.parquet"),  # an Arrow table
        "naive": pd.read_csv(DATA / "naive.csv"),
    }
    return reportgen.compare_frames(
        frames, label="default_flag", id="application_id", scores=scores, now=NOW, **settings
    )


def test_frames_give_the_result_the_files_give(from_files, from_frames) -> None:
    assert isinstance(from_frames, ComparisonResult)
    assert _without_sources(from_frames) == _without_sources(from_files)
    # every metric, interval, test and verdict is there (not two empty documents)
    assert from_frames.comparisons[0].verdict == from_files.comparisons[0].verdict
    assert from_frames.models["challenger"].metrics["gini"] == pytest.approx(0.566, abs=1e-3)
    # the audit trail says the rows came from memory, with a hash of their values
    files = from_frames.run.files
    assert [f.path for f in files] == ["<data['champion']>", "<data['challenger']>", "<data['naive']>"]
    assert all(len(f.sha256) == 64 and f.rows == 6000 for f in files)
    assert from_frames.run.config_path == "<in memory>"


def test_the_result_is_frozen(from_frames) -> None:
    with pytest.raises(dataclasses.FrozenInstanceError):
        from_frames.run = None  # type: ignore[misc]
    with pytest.raises(TypeError):
        from_frames.models["naive"].metrics["gini"] = 1.0  # type: ignore[index]


def _one_frame(n: int = 400, seed: int = 3) -> pd.DataFrame:
    rng = np.random.default_rng(seed)
    y = rng.random(n) < 0.3
    return pd.DataFrame(
        {
            "id": np.arange(n),
            "y": y.astype(int),
            "a": np.round(np.clip(0.3 * y + rng.normal(0.35, 0.2, n), 0, 1), 3),
            "b": np.round(np.clip(0.1 * y + rng.normal(0.4, 0.2, n), 0, 1), 3),
            "w": rng.integers(1, 4, n).astype(float),
        }
    )


def test_one_frame_pandas_and_arrow_agree_and_weights_count() -> None:
    df = _one_frame()
    kw = dict(label="y", scores=["a", "b"], bootstrap={"resamples": 0, "seed": 1}, now=NOW)
    from_pandas = reportgen.compare_frames(df, **kw)
    from_arrow = reportgen.compare_frames(pa.Table.from_pandas(df, preserve_index=False), **kw)
    assert from_pandas.to_json() == from_arrow.to_json()
    assert list(from_pandas.models) == ["a", "b"] and from_pandas.run.baseline == "a"
    weighted = reportgen.compare_frames(df, weight="w", **kw)
    assert weighted.models["a"].positives == pytest.approx(float(df.loc[df.y == 1, "w"].sum()))
    from sklearn.metrics import roc_auc_score

    assert weighted.models["a"].metrics["roc_auc"] == pytest.approx(
        roc_auc_score(df.y, df.a, sample_weight=df.w), abs=1e-12
    )


def test_a_frame_column_of_mixed_python_types_is_read_as_text() -> None:
    """Regression (issue 15: engine memory validates each frame as one Arrow batch, the row rules
    of every engine): a label column mixing ints and strings, which Arrow cannot type, is read as
    its keys, so 1 and "1" are one label and the result is that of the integer column."""
    df = _one_frame()
    kw = dict(label="y", scores=["a", "b"], bootstrap={"resamples": 0, "seed": 1}, now=NOW)
    mixed = df.assign(y=pd.Series([str(v) if i % 2 else int(v) for i, v in enumerate(df.y)], dtype=object))
    with pytest.raises(pa.ArrowException):
        pa.Table.from_pandas(mixed, preserve_index=False)  # what the reader must work around
    got, want = reportgen.compare_frames(mixed, **kw).to_json(), reportgen.compare_frames(df, **kw).to_json()
    assert got["models"] == want["models"] and got["comparisons"] == want["comparisons"]


def test_bad_input_is_a_one_line_error_naming_the_key_or_column() -> None:
    df = _one_frame()
    with pytest.raises(ConfigError, match=r"treshold: unknown key; did you mean 'threshold'\?"):
        reportgen.compare_frames(df, label="y", scores=["a"], treshold=0.3)
    with pytest.raises(InputError, match=r"models\[0\]\.score: column 'aa' not found in <data> .*did you mean 'a'"):
        reportgen.compare_frames(df, label="y", scores={"m": "aa"})
    with pytest.raises(ConfigError, match="'task' is set by compare_frames"):
        reportgen.compare_frames(df, label="y", scores=["a"], task="multiclass")
    with pytest.raises(ConfigError, match="no frame for model 'b'"):
        reportgen.compare_frames({"a": df}, label="y", scores=["a", "b"])
    with pytest.raises(InputError, match="expected a pandas DataFrame or a pyarrow Table, found dict"):
        reportgen.compare_frames({"a": {"y": [0, 1]}}, label="y", scores=["a"])
    bad = df.assign(a=df.a.astype(object))
    bad.loc[5, "a"] = "x"
    with pytest.raises(InputError, match=r"<data>: column 'a', row at position 5: non-numeric value 'x'"):
        reportgen.compare_frames(bad, label="y", scores=["a"])


def test_a_frames_bad_row_is_named_by_its_position_and_index_label() -> None:
    """A frame's row is named as a notebook finds it, ``df.iloc[position]`` and its index label,
    not as a CSV's line (before: "row 7" for ``df.iloc[5]``, the header counted as line 1)."""
    df = _one_frame()
    gap = df.assign(a=df.a.mask(df.index == 5))
    with pytest.raises(InputError, match=r"^<data>: row at position 5: missing or non-finite score in 'a'"):
        reportgen.compare_frames(gap, label="y", scores=["a"])
    labelled = gap.set_index(pd.Index([f"k{i}" for i in range(len(gap))]))
    with pytest.raises(InputError, match=r"^<data>: row at position 5 \(index 'k5'\): missing"):
        reportgen.compare_frames(labelled, label="y", scores=["a"])
    twice = df.assign(id=np.arange(len(df)))
    twice.loc[9, "id"] = 3
    with pytest.raises(InputError, match=r"^<data>: column 'id', row at position 9: duplicated id '3'"):
        reportgen.compare_frames(twice, label="y", id="id", scores=["a"])
    with pytest.raises(InputError, match=r"^<data\['b'\]>: model 'b': row at position 0 has a different label"):
        reportgen.compare_frames({"a": df, "b": df.assign(y=1 - df.y)}, label="y", scores=["a", "b"])


def test_repr_is_one_short_line(from_frames) -> None:
    text = repr(from_frames)
    assert "\n" not in text and len(text) < 400
    assert text.startswith("<ComparisonResult 'Champion vs challenger") and "challenger gini 0.566" in text


def test_repr_html_shows_the_summary_and_two_figures(from_frames) -> None:
    html = from_frames._repr_html_()
    assert html is not None and html.count("<svg") == 2
    for c in from_frames.comparisons:  # every verdict, autoescaped (a number joined to its "%" by a no-break space)
        assert str(markupsafe.escape(c.verdict)) in html.replace("\u00a0%", " %")
    assert "Ranking by Gini" in html and "<script" not in html


@pytest.mark.slow
@pytest.mark.pdf
def test_matplotlib_backend_and_pyplot_are_left_alone(tmp_path: Path) -> None:
    """A notebook's backend (here 'svg', set by the user) survives importing, comparing,
    displaying and writing every format; pyplot is never imported."""
    code = f"""
import matplotlib, sys
matplotlib.use("svg")
import pandas as pd, numpy as np
import reportgen
rng = np.random.default_rng(0)
y = rng.random(300) < 0.4
df = pd.DataFrame({{"y": y.astype(int), "s": np.round(y * 0.3 + rng.random(300), 3)}})
r = reportgen.compare_frames(df, label="y", scores=["s"], bootstrap={{"resamples": 0, "seed": 1}})
r._repr_html_()
reportgen.write_report(r, {str(tmp_path / "out")!r}, formats=("html", "pdf", "json"))
print(matplotlib.get_backend(), "matplotlib.pyplot" in sys.modules)
"""
    out = subprocess.run(
        [sys.executable, "-c", code],
        capture_output=True,
        text=True,
        check=True,
        env={"PYTHONPATH": str(ROOT), "PATH": "/usr/bin:/bin", "MPLBACKEND": ""},
    )
    assert out.stdout.split() == ["svg", "False"]
    assert (tmp_path / "out" / "report.pdf").read_bytes().startswith(b"%PDF-")


def test_help_of_the_package_reads_well() -> None:
    text = pydoc.render_doc(reportgen, renderer=pydoc.plaintext)
    for name in reportgen.__all__:
        assert name in text or name == "__version__"
    assert f"VERSION\n    {reportgen.__version__}" in text
    assert "compare_frames(data" in text and "Compare binary classifiers whose scores are in memory" in text
    assert "_HOME" not in text
    for name in ("compare_frames", "compare_models", "write_report", "load_result"):
        fn = getattr(reportgen, name)
        assert fn.__doc__ and fn.__annotations__, name


def test_public_names_are_listed_and_resolve() -> None:
    assert set(dir(reportgen)) >= set(reportgen.__all__)
    for name in reportgen.__all__:
        assert getattr(reportgen, name) is not None
    with pytest.raises(AttributeError, match="no attribute 'nope'"):
        reportgen.nope  # noqa: B018


def test_write_report_errors_name_its_arguments_not_the_command_lines(tmp_path: Path) -> None:
    """A notebook user was told to "pass --overwrite … or choose another --out"."""
    from reportgen.errors import OutputError

    rng = np.random.default_rng(0)
    y = rng.random(200) < 0.4
    df = pd.DataFrame({"y": y.astype(int), "s": np.round(y * 0.3 + rng.random(200), 3)})
    r = reportgen.compare_frames(df, label="y", scores=["s"], bootstrap={"resamples": 0, "seed": 1})
    reportgen.write_report(r, tmp_path / "out", formats=("json",))
    with pytest.raises(OutputError) as err:
        reportgen.write_report(r, tmp_path / "out", formats=("json",), overwrite=False)
    text = str(err.value)
    assert "a report already exists" in text and "overwrite=True" in text and "another out_dir" in text
    assert "--" not in text and "output.overwrite" not in text
    (tmp_path / "file").write_text("x")
    with pytest.raises(OutputError, match="another out_dir"):
        reportgen.write_report(r, tmp_path / "file", formats=("json",))
