"""Results are frozen values with a strict, versioned JSON round trip.

* Deep immutability: no metric, list or curve of a result can be edited in place, whether the
  result was built by the engine from dicts and arrays or loaded from a metrics.json.
* Round trip: metrics.json → result → metrics.json is byte-identical (binary and multiclass).
* Strict loading: a broken metrics.json (unknown key, wrong type, missing key, bad
  schema_version) is a user error (``reportgen render`` exits 2) with one line naming the JSON
  path, never a traceback; checked on hand-picked cases through the CLI and on random
  mutations (hypothesis) through :meth:`ComparisonResult.from_json`.
"""

from __future__ import annotations

import copy
import dataclasses
import json
import pickle
from collections.abc import Mapping
from pathlib import Path
from typing import Any

import jsonschema
import numpy as np
import pytest
import yaml
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from reportgen.errors import ResultError
from reportgen.report.render import result_json
from reportgen.results import (
    SCHEMA_VERSION,
    ComparisonResult,
    CurveData,
    FrozenDict,
    ModelResult,
    Optimum,
    json_schema,
)

ROOT = Path(__file__).resolve().parents[2]


@pytest.fixture(scope="module")
def binary_text(demo_run) -> str:
    assert demo_run.exit_code == 0
    return (demo_run.out / "metrics.json").read_text(encoding="utf-8")


@pytest.fixture(scope="module")
def multiclass_text(tmp_path_factory, cli) -> str:
    """The multiclass demo with a short bootstrap, JSON only."""
    tmp = tmp_path_factory.mktemp("mc_results")
    cfg = yaml.safe_load((ROOT / "configs" / "demo_multiclass.yaml").read_text(encoding="utf-8"))
    cfg["bootstrap"] = {"resamples": 20, "seed": 3}
    for m in cfg["models"]:
        m["file"] = str(ROOT / "configs" / m["file"])
        if "reference" in m:
            m["reference"] = str(ROOT / "configs" / m["reference"])
    path = tmp / "mc.yaml"
    path.write_text(yaml.safe_dump(cfg, sort_keys=False), encoding="utf-8")
    assert (
        cli(["run", str(path), "--out", str(tmp / "out"), "--now", "2026-01-31T06:00:00Z", "--format", "json", "-q"])
        == 0
    )
    return (tmp / "out" / "metrics.json").read_text(encoding="utf-8")


def _model(**over: Any) -> ModelResult:
    kw: dict[str, Any] = dict(
        name="m",
        file="m.csv",
        n=10,
        positives=4.0,
        negatives=6.0,
        weighted=False,
        metrics={"gini": 0.5, "roc_auc": 0.75},
        undefined={},
        ci={"gini": [0.4, 0.6]},
        ci_method={"gini": "DeLong"},
        warnings=["w"],
    )
    kw.update(over)
    return ModelResult(**kw)


# --------------------------------------------------------------------------------------
# Deep immutability
# --------------------------------------------------------------------------------------


def test_constructed_result_cannot_be_edited_in_place():
    m = _model()
    with pytest.raises(TypeError):
        m.metrics["gini"] = 0.9
    with pytest.raises(TypeError):
        del m.metrics["gini"]
    with pytest.raises(TypeError):
        m.metrics.update(gini=0.9)
    with pytest.raises(TypeError):
        m.ci["gini"][0] = 0.0  # the CI is a tuple now
    with pytest.raises(AttributeError):
        m.warnings.append("x")  # type: ignore[attr-defined]
    with pytest.raises(AttributeError):
        m.n = 11  # type: ignore[misc]
    assert m.metrics == {"gini": 0.5, "roc_auc": 0.75} and m.ci["gini"] == (0.4, 0.6)


def test_freezing_copies_so_the_callers_objects_stay_theirs():
    metrics = {"gini": 0.5}
    x = np.array([0.0, 0.5, 1.0])
    m = _model(metrics=metrics)
    c = CurveData(x=x, y=x)
    metrics["gini"] = 0.1  # the caller may go on using its own dict and array
    x[1] = 0.9
    assert m.metrics["gini"] == 0.5 and c.x[1] == 0.5 and c.y[1] == 0.5
    with pytest.raises(ValueError):
        c.x[0] = 1.0
    assert x.flags.writeable  # the caller's array is left writeable


def test_nested_mappings_are_frozen_too():
    m = _model(per_class={"a": {"f1": 0.5}}, optimal_thresholds={"f1": Optimum("f1", 0.5, 0.7, 1, 2, 3, 4)})
    with pytest.raises(TypeError):
        m.per_class["a"]["f1"] = 0.0
    with pytest.raises(TypeError):
        m.optimal_thresholds["f1"] = None


def test_frozen_results_still_pickle_copy_and_serialise():
    m = _model(per_class={"a": {"f1": 0.5}})
    for other in (pickle.loads(pickle.dumps(m)), copy.deepcopy(m)):
        assert other == m and isinstance(other.metrics, FrozenDict)
    assert json.loads(json.dumps(m.metrics)) == {"gini": 0.5, "roc_auc": 0.75}
    thawed = m.metrics.copy()
    thawed["gini"] = 0.0  # a copy is an ordinary dict
    assert m.metrics["gini"] == 0.5


@pytest.mark.slow
@pytest.mark.parametrize("task", ["binary", "multiclass"])
def test_a_loaded_result_cannot_be_edited(task, request):
    text = request.getfixturevalue(f"{task}_text")
    r = ComparisonResult.from_json(json.loads(text))
    m = next(iter(r.models.values()))
    with pytest.raises(TypeError):
        m.metrics["accuracy"] = 1.0
    with pytest.raises(TypeError):
        r.models["other"] = m
    with pytest.raises(AttributeError):
        r.comparisons.append(r.comparisons[0])  # type: ignore[attr-defined]
    with pytest.raises(TypeError):
        r.run.config["title"] = "edited"
    curve = m.curves.roc if m.curves is not None else next(iter(m.multiclass_curves.per_class_roc.values()))
    with pytest.raises(ValueError):
        curve.x[0] = 0.5


# --------------------------------------------------------------------------------------
# Round trip
# --------------------------------------------------------------------------------------


@pytest.mark.parametrize("task", ["binary", "multiclass"])
def test_round_trip_is_byte_identical(task, request):
    text = request.getfixturevalue(f"{task}_text")
    result = ComparisonResult.from_json(json.loads(text))
    assert result_json(result) == text
    assert result.to_json() == json.loads(text)


# --------------------------------------------------------------------------------------
# Strict loading through the CLI: exit 2, one line, the JSON path
# --------------------------------------------------------------------------------------


def _set(path: tuple, value: Any):
    def edit(d: dict) -> None:
        *head, last = path
        for p in head:
            d = d[p]
        d[last] = value

    return edit


def _delete(path: tuple):
    def edit(d: dict) -> None:
        *head, last = path
        for p in head:
            d = d[p]
        del d[last]

    return edit


CLI_CASES = [
    (
        "wrong-type-metric",
        _set(("models", "champion", "metrics", "gini"), "abc"),
        "models.champion.metrics.gini: expected a number or null, found 'abc'",
    ),
    (
        "wrong-type-count",
        _set(("models", "champion", "n"), 1.5),
        "models.champion.n: expected a whole number, found 1.5",
    ),
    ("wrong-type-bool", _set(("run", "paired"), "yes"), "run.paired: expected true or false, found 'yes'"),
    (
        "wrong-type-array",
        _set(("models", "champion", "curves", "roc", "x"), {"a": 1}),
        "models.champion.curves.roc.x: expected an array of numbers, found an object",
    ),
    (
        "wrong-type-list-item",
        _set(("comparisons", 0, "ci", "gini", 1), "hi"),
        "comparisons[0].ci.gini[1]: expected a number",
    ),
    ("wrong-literal", _set(("run", "task"), "regression"), "run.task: expected one of 'binary', 'multiclass'"),
    ("unknown-key-top", _set(("extra",), 1), "extra: unknown key"),
    (
        "unknown-key-nested",
        _set(("models", "champion", "confusion", "tq"), 1),
        "models.champion.confusion.tq: unknown key",
    ),
    (
        "unknown-metric",
        _set(("models", "champion", "metrics", "giny"), 0.5),
        "models.champion.metrics.giny: unknown metric for task: binary",
    ),
    (
        "curve-lengths",
        _set(("models", "champion", "curves", "roc", "y"), [0.0, 1.0]),
        "models.champion.curves.roc: expected arrays of one length, found x: ",
    ),
    (
        "histogram-edges",
        _set(("models", "champion", "curves", "histogram", "edges"), [0.0, 1.0]),
        "models.champion.curves.histogram: expected one more edge than bins, found 2 edges for ",
    ),
    ("missing-key", _delete(("models", "champion", "metrics")), "models.champion.metrics: required key is missing"),
    ("missing-run", _delete(("run",)), "run: required key is missing"),
    ("unknown-baseline", _set(("run", "baseline"), "nobody"), "run.baseline: 'nobody' is not among the models"),
    ("schema-missing", _delete(("schema_version",)), "schema_version is missing"),
    (
        "schema-newer",
        _set(("schema_version",), "2"),
        f"schema_version '2' is newer than this reportgen reads ('{SCHEMA_VERSION}')",
    ),
    (
        "schema-unknown",
        _set(("schema_version",), 1),
        f"schema_version: unknown version 1; this reportgen reads schema_version '{SCHEMA_VERSION}'",
    ),
    ("not-an-object", lambda d: d.clear() or None, "schema_version is missing"),
    (
        "metric-out-of-range",
        _set(("models", "champion", "metrics", "gini"), 1e308),
        "models.champion.metrics.gini: 1e+308 is outside the range of gini [-1, 1]",
    ),
    (
        "interval-out-of-range",
        _set(("models", "champion", "ci", "roc_auc"), [0.5, 1.5]),
        "models.champion.ci.roc_auc: 1.5 is outside the range of roc_auc [0, 1]",
    ),
    (
        "negative-count",
        _set(("models", "champion", "n"), -5),
        "models.champion.n: expected a count of rows (a number >= 0), found -5",
    ),
    (
        "negative-positives",
        _set(("models", "champion", "positives"), -1.0),
        "models.champion.positives: expected a count of rows (a number >= 0), found -1.0",
    ),
]


@pytest.mark.parametrize(("case", "edit", "expect"), CLI_CASES, ids=[c[0] for c in CLI_CASES])
def test_broken_metrics_json_is_a_user_error(case, edit, expect, binary_text, tmp_path, cli, capsys):
    data = json.loads(binary_text)
    edit(data)
    path = tmp_path / "metrics.json"
    path.write_text(json.dumps(data), encoding="utf-8")
    capsys.readouterr()
    assert cli(["render", str(path), "--out", str(tmp_path / "out"), "--format", "html"]) == 2
    err = capsys.readouterr().err
    lines = err.strip().splitlines()
    assert len(lines) == 1, err
    assert "Traceback" not in err and "internal error" not in err
    assert f"{path}: {expect}" in lines[0]
    assert not (tmp_path / "out").exists()


def test_a_json_array_is_not_a_result(tmp_path, cli, capsys):
    path = tmp_path / "metrics.json"
    path.write_text("[1, 2]", encoding="utf-8")
    assert cli(["render", str(path), "--format", "html"]) == 2
    assert "expected a JSON object (a reportgen metrics.json), found an array" in capsys.readouterr().err


# --------------------------------------------------------------------------------------
# Strict loading on random mutations
# --------------------------------------------------------------------------------------


def _paths(doc: Any, prefix: tuple = ()) -> list[tuple]:
    """Every path into ``doc``, arrays sampled at their first two items (curves are long)."""
    out = [prefix] if prefix else []
    if isinstance(doc, dict):
        for k, v in doc.items():
            out += _paths(v, (*prefix, k))
    elif isinstance(doc, list):
        for i, v in enumerate(doc[:2]):
            out += _paths(v, (*prefix, i))
    return out


def _dotted(path: tuple) -> str:
    text = ""
    for p in path:
        text += f"[{p}]" if isinstance(p, int) else (f".{p}" if text else p)
    return text


#: Where any key is accepted: the config as run and the costs (free-form), a class's per-class
#: fields. Everywhere else an added key is an error.
_FREE = (("run", "config"), ("run", "costs"))

_VALUES = st.sampled_from(["abc", 1.5, 7, True, None, [], {}, [1, "x"], {"x": 1}])


def _trim(doc: Any, key: str = "") -> Any:
    """``doc`` with every list of numbers cut to four items (curves; five histogram edges for
    four bins), so that validating it against the JSON Schema takes milliseconds; the result
    is as valid as ``doc``."""
    if isinstance(doc, dict):
        return {k: _trim(v, k) for k, v in doc.items()}
    if isinstance(doc, list):
        keep = 5 if key == "edges" else 4
        if len(doc) > keep + 1 and all(v is None or isinstance(v, (int, float)) for v in doc):
            return doc[:keep]
        return [_trim(v) for v in doc]
    return doc


#: What the loader refuses but a JSON Schema cannot express: names that point nowhere, array
#: lengths that disagree, a binary model without class counts, a metric outside its catalogue
#: range (the metrics are one free-form mapping in the schema), a negative count of rows.
_CROSS_REFERENCE = (
    "is not among the models",
    "primary_metric: unknown metric",
    "(the key it is filed under)",
    "expected arrays of one length",
    "expected one more edge",
    "matrix (one row and column per label)",
    "expected a number for task: binary",
    "is outside the range of",
    "expected a count of rows",
)


def _is_mapping_at(obj: Any, path: tuple) -> bool:
    """Whether ``path`` leads, in a loaded result, to a mapping (free-form keys: classes, metrics,
    the config as run) rather than to a record (a dataclass, whose keys are fixed)."""
    for p in path:
        obj = getattr(obj, p) if dataclasses.is_dataclass(obj) else obj[p]
    return isinstance(obj, Mapping)


@pytest.mark.slow
@pytest.mark.parametrize("task", ["binary", "multiclass"])
def test_random_mutations_load_or_fail_with_one_line_and_agree_with_the_schema(task, request):
    """Replace a value, add a key or delete one anywhere: the loader either accepts the
    document or raises one ResultError line, and it accepts exactly what the published JSON
    Schema accepts, but for cross references, which only the loader checks."""
    doc = _trim(json.loads(request.getfixturevalue(f"{task}_text")))
    text = json.dumps(doc)
    loaded = ComparisonResult.from_json(doc)
    validator = jsonschema.Draft202012Validator(json_schema())
    paths = _paths(doc)

    @settings(max_examples=150, deadline=None, suppress_health_check=list(HealthCheck), derandomize=True)
    @given(st.sampled_from(paths), st.sampled_from(["replace", "add", "delete"]), _VALUES)
    def check(path: tuple, how: str, value: Any) -> None:
        d = json.loads(text)
        *head, last = path
        parent = d
        for p in head:
            parent = parent[p]
        target = path
        if how == "replace":
            parent[last] = value
        elif how == "add":
            if not isinstance(parent[last], dict):
                return
            parent[last]["zz_unknown"] = value
            target = (*path, "zz_unknown")
        elif isinstance(parent, dict):
            del parent[last]
        else:
            return
        try:
            ComparisonResult.from_json(d)
        except ResultError as exc:
            msg = str(exc)
            assert "\n" not in msg and msg.startswith("metrics.json: "), msg
            assert not validator.is_valid(d) or any(c in msg for c in _CROSS_REFERENCE), msg
            return
        assert validator.is_valid(d), (_dotted(target), how, value)
        # Loaded: only a mutation the format allows (a free-form or optional value, a key with
        # a default); an added key is refused everywhere but in the free-form parts.
        if how == "add":  # the key went into a mapping of the loaded result (class or metric names), not a record
            assert _is_mapping_at(loaded, path), _dotted(target)

    check()


@pytest.mark.slow
def test_unknown_keys_are_refused_wherever_the_format_is_fixed(binary_text):
    doc = _trim(json.loads(binary_text))
    names = set(doc["models"])
    # one path per place in the format: every model (and every item of a list) has the same
    # fields, so the first of each is tried
    places: dict[tuple, tuple] = {}
    for path in _paths(doc):
        place = tuple("*" if isinstance(p, int) or p in names or " vs " in p else p for p in path)
        places.setdefault(place, path)
    refused = 0
    for path in places.values():
        node = doc
        for p in path:
            node = node[p]
        if (
            not isinstance(node, dict)
            or any(path[: len(f)] == f for f in _FREE)
            or "per_class" in path
            or "params" in path
        ):  # a notice's parameters: named by its code
            continue
        # the key is added to the one document and taken out again after its load: a fresh copy
        # per place (json.loads of the whole text) took half the test's time
        node["zz_unknown"] = 1
        try:
            with pytest.raises(ResultError, match=r"zz_unknown"):
                ComparisonResult.from_json(doc)
        finally:
            del node["zz_unknown"]
        refused += 1
    assert refused > 40
    ComparisonResult.from_json(doc)  # the document, every key taken out again, still loads


def test_every_metric_of_the_task_must_be_present(binary_text):
    d = json.loads(binary_text)
    del d["models"]["challenger"]["metrics"]["brier"]
    with pytest.raises(ResultError, match=r"^metrics.json: models.challenger.metrics.brier: required key is missing"):
        ComparisonResult.from_json(d)


# --------------------------------------------------------------------------------------
# The published JSON Schema
# --------------------------------------------------------------------------------------


def test_the_schema_file_is_generated_from_the_result_types():
    """Regenerate after changing a result type:
    ``python -c "import json; from reportgen.results import json_schema;
    print(json.dumps(json_schema(), indent=2, ensure_ascii=False))" > reportgen/schema/metrics.schema.json``"""
    path = ROOT / "reportgen" / "schema" / "metrics.schema.json"
    assert json.loads(path.read_text(encoding="utf-8")) == json_schema()
    jsonschema.Draft202012Validator.check_schema(json_schema())


@pytest.mark.parametrize("task", ["binary", "multiclass"])
def test_the_demo_metrics_json_follows_the_schema(task, request, metrics_schema):
    jsonschema.validate(json.loads(request.getfixturevalue(f"{task}_text")), metrics_schema)


def test_the_schema_requires_every_metric_of_the_task_and_no_other(binary_text):
    v = jsonschema.Draft202012Validator(json_schema())
    d = _trim(json.loads(binary_text))
    assert v.is_valid(d)
    d["models"]["champion"]["metrics"]["f1_macro"] = 0.5  # a multiclass metric in a binary run
    assert not v.is_valid(d)
    del d["models"]["champion"]["metrics"]["f1_macro"]
    del d["models"]["champion"]["metrics"]["ks"]
    assert not v.is_valid(d)


# --------------------------------------------------------------------------------------
# Leaves
# --------------------------------------------------------------------------------------


def _reportgen_imports(module: str) -> set[str]:
    import ast

    tree = ast.parse((ROOT / "reportgen" / f"{module}.py").read_text(encoding="utf-8"))
    names = set()
    for node in ast.walk(tree):
        if isinstance(node, ast.ImportFrom) and node.module and node.module.startswith("reportgen"):
            names.add(node.module + "".join(f".{a.name}" for a in node.names if node.module == "reportgen"))
        elif isinstance(node, ast.Import):
            names.update(a.name for a in node.names if a.name.startswith("reportgen"))
    return names


def test_results_and_catalog_are_leaves():
    """results imports only the catalogue, the error tree, the types' base (result_base), (lazily,
    for ``frames()``) the frames module, itself a leaf over the catalogue, and (lazily, to read or
    describe them) the optional sections' and the opted-into analyses' types, which import only
    the base; the base only the dataclass methods (value); the catalogue only the dataclass
    methods, which import nothing of reportgen."""
    assert _reportgen_imports("results") == {
        "reportgen.catalog",
        "reportgen.errors",
        "reportgen.frames",
        "reportgen.option_results",
        "reportgen.result_base",
        "reportgen.section_results",
    }
    assert _reportgen_imports("section_results") == {"reportgen.option_results", "reportgen.result_base"}
    assert _reportgen_imports("option_results") == {"reportgen.result_base"}
    assert _reportgen_imports("result_base") == {"reportgen.value"}
    assert _reportgen_imports("frames") == {"reportgen.catalog"}
    assert _reportgen_imports("catalog") == {"reportgen.value"}
    assert _reportgen_imports("value") == set()
