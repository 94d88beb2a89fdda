"""Multiclass inputs: class lists, label normalisation, score columns, alignment and errors."""

from __future__ import annotations

from pathlib import Path

import numpy as np
import pytest

from reportgen.config import load_config
from reportgen.errors import InputError
from reportgen.pipeline import analyse, load_evidence
from reportgen.report.wording import notice_text


def _setup(tmp_path: Path, files: dict[str, str], models: str, extra: str = "") -> Path:
    for name, text in files.items():
        (tmp_path / name).write_text(text)
    cfg = tmp_path / "mc.yaml"
    cfg.write_text(f"title: t\ntask: multiclass\nlabel: y\nbootstrap: {{resamples: 0}}\n{extra}models:\n{models}")
    return cfg


def _load(cfg: Path):
    """The evidence of the config's rows (``engine: memory``)."""
    c, _ = load_config(cfg)
    return load_evidence(c)


def test_integer_labels_sort_numerically_and_match_configured_text(tmp_path):
    cfg = _setup(tmp_path, {"a.csv": "y,p\n9,9\n10,10\n2,9\n10,2\n"}, "  - {name: a, file: a.csv, prediction: p}\n")
    data = _load(cfg)
    assert data.classes == ("2", "9", "10")
    # truth (9, 10, 2, 10) → classes (1, 2, 0, 2), predictions (9, 10, 9, 2) → (1, 2, 1, 0)
    assert data.models[0].confusion.tolist() == [[0, 1, 0], [0, 1, 0], [1, 0, 1]]
    cfg2 = _setup(tmp_path, {}, "  - {name: a, file: a.csv, prediction: p}\n", extra="classes: [10, '9', 2.0]\n")
    assert _load(cfg2).classes == ("10", "9", "2")


def test_score_mapping_and_list_give_the_same_matrix(tmp_path):
    text = "y,pa,pb,pc\na,0.7,0.2,0.1\nb,0.1,0.8,0.1\nc,0.3,0.3,0.4\na,0.2,0.5,0.3\n"
    models = (
        "  - {name: m, file: s.csv, scores: {c: pc, a: pa, b: pb}}\n  - {name: l, file: s.csv, scores: [pa, pb, pc]}\n"
    )
    data = _load(_setup(tmp_path, {"s.csv": text}, models))
    m, ls = data.models
    for j in range(3):
        for i in range(3):
            assert np.array_equal(m.tables.values[j][i], ls.tables.values[j][i])
    # argmax per row (a, b, c, b) against the truth (a, b, c, a): column pa is class a's
    assert m.confusion.tolist() == ls.confusion.tolist() == [[1, 1, 0], [0, 1, 0], [0, 0, 1]]
    assert m.tables.values[0][0].max() == 0.7  # class a's scores of its own rows: 0.7 and 0.2


def test_rows_are_joined_by_id(tmp_path):
    files = {"a.csv": "id,y,p\n1,a,a\n2,b,a\n3,b,b\n", "b.csv": "id,y,p\n3,b,a\n1,a,a\n2,b,b\n"}
    models = "  - {name: a, file: a.csv, prediction: p}\n  - {name: b, file: b.csv, prediction: p}\n"
    cfg = _setup(tmp_path, files, models, extra="id: id\n")
    c, path = load_config(cfg)
    result = analyse(c, path)
    assert result.models["a"].confusion_matrix.matrix == ((1, 0), (1, 1))
    assert result.models["b"].confusion_matrix.matrix == ((1, 0), (1, 1))
    # id 1: both right; id 2: only b right; id 3: only a (the baseline) right
    assert result.comparisons[0].tests.mcnemar.table == ((1, 1), (1, 0))


@pytest.mark.parametrize(
    ("files", "models", "extra", "expected"),
    [
        (
            {"a.csv": "y,p\na,a\nz,a\n"},
            "  - {name: a, file: a.csv, prediction: p}\n",
            "classes: [a, b]\n",
            ("a.csv", "column 'y', row 3", "'z'", "classes"),
        ),
        (
            {"a.csv": "y,p\na,a\nb,q\n"},
            "  - {name: a, file: a.csv, prediction: p}\n",
            "classes: [a, b]\n",
            ("column 'p', row 3", "'q'"),
        ),
        (
            {"a.csv": "y,pa,pb\na,0.5,0.5\nb,0.2,0.8\nc,0.1,0.1\n"},
            "  - {name: a, file: a.csv, scores: [pa, pb]}\n",
            "",
            ("models[0].scores", "2 score columns for 3 classes"),
        ),
        (
            {"a.csv": "y,pa,pb\na,0.5,0.5\nb,0.2,0.8\n"},
            "  - {name: a, file: a.csv, scores: {a: pa}}\n",
            "",
            ("models[0].scores", "no score column for class(es) b"),
        ),
        (
            {"a.csv": "y,pa,pb\na,0.5,0.5\nb,0.2,1.8\n"},
            "  - {name: a, file: a.csv, scores: [pa, pb], probabilities: true}\n",
            "",
            ("column 'pb', row 3", "not a probability"),
        ),
        (
            {"a.csv": "y,pa,pb\na,0.5,0.5\nb,0.2,0.8\n"},
            "  - {name: a, file: a.csv, scores: [pa, pz]}\n",
            "",
            ("models[0].scores", "'pz' not found"),
        ),
        (
            {"a.csv": "y,p\na,a\nb,\n"},
            "  - {name: a, file: a.csv, prediction: p}\n",
            "",
            ("row 3", "missing prediction", "missing: drop"),
        ),
        ({"a.csv": "y,p\na,a\na,a\n"}, "  - {name: a, file: a.csv, prediction: p}\n", "", ("single class", "classes")),
        (
            {"a.csv": "y,p\na,a\nb,b\n"},
            "  - {name: a, file: a.csv, prediction: p}\n",
            "classes: [a, b, a]\n",
            ("classes", "'a' is listed twice"),
        ),
    ],
    ids=[
        "truth-outside-classes",
        "prediction-outside-classes",
        "score-list-length",
        "mapping-missing-class",
        "not-a-probability",
        "unknown-score-column",
        "missing-prediction",
        "one-class",
        "duplicate-class",
    ],
)
def test_bad_multiclass_input_names_the_place(tmp_path, files, models, extra, expected):
    cfg = _setup(tmp_path, files, models, extra)
    with pytest.raises(InputError) as exc:
        _load(cfg)
    msg = str(exc.value)
    assert "\n" not in msg
    for part in expected:
        assert part in msg, (part, msg)


def test_missing_rows_can_be_dropped_and_are_counted(tmp_path):
    cfg = _setup(
        tmp_path,
        {"a.csv": "y,p\na,a\nb,\nb,b\n"},
        "  - {name: a, file: a.csv, prediction: p}\n",
        extra="missing: drop\n",
    )
    data = _load(cfg)
    assert data.models[0].n_rows == 2 and data.audit.dropped == (("a", "missing prediction in 'p'", 1),)


def test_classes_only_predicted_or_never_predicted_are_reported(tmp_path):
    cfg = _setup(tmp_path, {"a.csv": "y,p\na,a\nb,a\nb,c\n"}, "  - {name: a, file: a.csv, prediction: p}\n")
    data = _load(cfg)
    assert data.classes == ("a", "b", "c")
    assert any("'c' never occurs in the truth" in w and "'a'" in w for w in map(notice_text, data.audit.warnings))
    assert any("never predicts class(es) 'b'" in w for w in map(notice_text, data.audit.warnings))


@pytest.mark.parametrize("engine", ["memory", "stream"])
@pytest.mark.parametrize("weights", ["fractional", "whole"])
def test_sampling_weights_mcnemar_counts_rows_with_the_weighted_table_beside(tmp_path, engine, weights):
    """Sampling weights never inflate McNemar's evidence: the test runs on the 2×2 table of rows
    (here counted independently of the engine), the weighted table stands beside it — in every
    engine, whole-number weights or not (the streamed pass counts both)."""
    rng = np.random.default_rng(8)
    n, labels = 300, np.array(["a", "b", "c"])
    y = rng.integers(0, 3, n)
    pa = np.where(rng.random(n) < 0.6, y, rng.integers(0, 3, n))
    pb = np.where(rng.random(n) < 0.7, y, rng.integers(0, 3, n))
    w = np.round(rng.uniform(0.5, 3.0, n), 2) if weights == "fractional" else rng.integers(1, 4, n).astype(float)
    lines = ["y,a,b,w"] + [f"{labels[t]},{labels[i]},{labels[j]},{v}" for t, i, j, v in zip(y, pa, pb, w)]
    models = "  - {name: a, file: s.csv, prediction: a}\n  - {name: b, file: s.csv, prediction: b}\n"
    cfg = _setup(tmp_path, {"s.csv": "\n".join(lines) + "\n"}, models, extra="weight: w\nclasses: [a, b, c]\n")
    c, path = load_config(cfg)
    mc = analyse(c.with_overrides(engine=engine), path).comparisons[0].tests.mcnemar
    right_a, right_b = pa == y, pb == y  # [model right?][baseline right?], 0 = right
    rows = [
        [np.sum(right_b & right_a), np.sum(right_b & ~right_a)],
        [np.sum(~right_b & right_a), np.sum(~right_b & ~right_a)],
    ]
    weighted = [
        [w[right_b & right_a].sum(), w[right_b & ~right_a].sum()],
        [w[~right_b & right_a].sum(), w[~right_b & ~right_a].sum()],
    ]
    assert mc.basis == "rows"
    assert np.array_equal(np.array(mc.table), rows)
    assert np.allclose(np.array(mc.weighted_table), weighted, rtol=0, atol=1e-9)
