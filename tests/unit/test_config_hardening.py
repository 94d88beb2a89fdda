"""Config documents a scheduled job may receive: every problem is a one-line ConfigError (issue 18).

Duplicate keys, non-finite numbers, negative seeds and deep nesting used to be accepted
silently or end in an internal error; a typo'd top-level key hid its own suggestion behind
"models: required key is missing (and 1 more problem)".
"""

from __future__ import annotations

import math

import pytest
import yaml
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from reportgen.config import Config, parse_config
from reportgen.config_base import validated
from reportgen.config_yaml import MAX_DEPTH
from reportgen.errors import ConfigError

BASE = "label: y\nmodels:\n  - {name: a, file: a.csv, score: s}\n"


def _error(text: str) -> str:
    with pytest.raises(ConfigError) as info:
        parse_config(text, "q.yaml")
    msg = str(info.value)
    assert "\n" not in msg
    return msg


def test_duplicate_key_is_refused_with_both_lines() -> None:
    msg = _error("title: first\n" + BASE + "title: second\n")
    assert msg.startswith("q.yaml:5: duplicate key 'title' (first given at line 1)")


def test_duplicate_nested_key_is_refused() -> None:
    msg = _error(BASE + "costs:\n  fn: 5\n  fn: 1\n")
    assert "q.yaml:6: duplicate key 'fn'" in msg


@pytest.mark.parametrize(
    ("extra", "key"),
    [
        ("threshold: .nan", "threshold"),
        ("beta: .inf", "beta"),
        ("costs: {fn: .inf, fp: 1}", "costs.fn"),
        ("confidence_level: .nan", "confidence_level"),
        ("prevalences: [.nan]", "prevalences[0]"),
        ("costs: [[0, 1], [.inf, 0]]", "costs"),
        ("constraints: [{maximize: precision, where: recall, at_least: .nan}]", "constraints[0].at_least"),
    ],
)
def test_non_finite_numbers_are_refused(extra: str, key: str) -> None:
    msg = _error(BASE + extra + "\n")
    assert key in msg and ("finite" in msg or "nan" in msg.lower()), msg


def test_non_finite_model_threshold_is_refused() -> None:
    msg = _error("label: y\nmodels:\n  - {name: a, file: a.csv, score: s, threshold: -.inf}\n")
    assert "models[0].threshold" in msg and "finite" in msg


def test_negative_bootstrap_seed_is_a_config_error() -> None:
    msg = _error(BASE + "bootstrap: {seed: -1}\n")
    assert "bootstrap.seed: expected a whole number ≥ 0 (found -1)" in msg, msg


def test_typo_in_top_level_key_shows_its_suggestion_first() -> None:
    msg = _error("label: y\nmodles:\n  - {name: a, file: a.csv, score: s}\n")
    assert msg.startswith("q.yaml:2: modles: unknown key; did you mean 'models'?")
    assert "models: required key is missing" in msg  # every problem is listed, after the cause


def test_many_problems_are_capped_on_one_line() -> None:
    text = BASE + "".join(f"unknown_{i}: 1\n" for i in range(9))
    msg = _error(text)
    assert msg.count("unknown key") == 5 and msg.endswith("(and 4 more problems)")


@pytest.mark.slow
@pytest.mark.parametrize("depth", [MAX_DEPTH + 1, 2000])
def test_deep_nesting_is_a_config_error(depth: int) -> None:
    msg = _error("title: " + "[" * depth + "]" * depth + "\n" + BASE)
    assert "nests too deeply" in msg


def test_valid_config_still_parses() -> None:
    cfg = parse_config(BASE + "threshold: 0.3\nbootstrap: {seed: 0}\n", "q.yaml")
    assert isinstance(cfg, Config) and cfg.threshold == 0.3 and cfg.bootstrap.seed == 0


# --- fuzz: any document gives a Config or a one-line ConfigError, never another exception ---------

_scalars = st.one_of(
    st.none(),
    st.booleans(),
    st.integers(-(10**20), 10**20),
    st.text(max_size=8),
    st.floats(allow_nan=True, allow_infinity=True),
)
_keys = st.sampled_from(
    [
        "title",
        "label",
        "threshold",
        "beta",
        "costs",
        "models",
        "bootstrap",
        "seed",
        "fn",
        "fp",
        "name",
        "file",
        "score",
        "prevalences",
        "confidence_level",
        "modles",
        "x",
    ]
)
_docs = st.recursive(
    _scalars,
    lambda inner: st.one_of(st.lists(inner, max_size=4), st.dictionaries(_keys, inner, max_size=5)),
    max_leaves=25,
)


def _dump(doc: object) -> str:
    return yaml.safe_dump(doc, allow_unicode=True)


@pytest.mark.slow
@settings(max_examples=300, deadline=None, suppress_health_check=[HealthCheck.too_slow])
@given(_docs, st.booleans(), st.integers(0, 60))
def test_fuzzed_documents_give_a_config_or_one_line_error(doc: object, duplicate: bool, nest: int) -> None:
    text = _dump({"label": "y", "models": [{"name": "a", "file": "a.csv", "score": "s"}], "extra": doc})
    if duplicate:
        text += "label: z\n"
    if nest:
        text += "deep: " + "[" * nest + "]" * nest + "\n"
    try:
        parse_config(text, "f.yaml")
    except ConfigError as exc:
        assert "\n" not in str(exc) and str(exc).startswith("f.yaml")
    else:  # pragma: no cover - 'extra' is never a valid key
        raise AssertionError("an unknown key was accepted")


@pytest.mark.slow  # 200 hypothesis examples of a config load: ~1.5 s
@settings(max_examples=200, deadline=None)
@given(st.floats(allow_nan=True, allow_infinity=True))
def test_fuzzed_thresholds_are_finite_or_refused(x: float) -> None:
    text = BASE + f"threshold: {yaml.safe_dump(x).splitlines()[0]}\n"
    try:
        cfg = parse_config(text, "f.yaml")
    except ConfigError:
        assert not math.isfinite(x)
    else:
        assert math.isfinite(cfg.threshold)


def test_too_many_models_is_a_config_error_not_an_unbounded_run() -> None:
    """300 models with PDF ran for minutes towards a 3.4 GB report (issue 18)."""
    from reportgen.config import MAX_MODELS

    models = "".join(f"  - {{name: m{i}, file: a.csv, score: s}}\n" for i in range(MAX_MODELS + 1))
    msg = _error("label: y\nmodels:\n" + models)
    assert f"{MAX_MODELS + 1} models; a report compares at most {MAX_MODELS}" in msg
    parse_config(
        "label: y\nmodels:\n" + "".join(f"  - {{name: m{i}, file: a.csv, score: s}}\n" for i in range(MAX_MODELS))
    )


def test_yaml_alias_bomb_is_refused_in_bounded_time() -> None:
    """ "Billion laughs": ten lines whose aliases expand to 9**9 values. PyYAML builds them as
    shared references, but the nesting check walked every copy and hung (> 30 s, unbounded)."""
    import time

    bomb = "x0: &a0 [lol]\n" + "".join(f"x{i + 1}: &a{i + 1} [" + ", ".join([f"*a{i}"] * 9) + "]\n" for i in range(9))
    start = time.monotonic()
    msg = _error(bomb + BASE)
    assert time.monotonic() - start < 5
    assert msg.startswith("q.yaml: the config holds more than 100,000 values once its YAML aliases"), msg


def test_a_few_aliases_are_still_fine() -> None:
    cfg = parse_config("label: y\nmodels:\n  - &m {name: a, file: a.csv, score: s}\n  - {<<: *m, name: b}\n", "q.yaml")
    assert [m.name for m in cfg.models] == ["a", "b"]


@pytest.mark.parametrize("kind", ["fifo", "device", "directory"])
def test_config_that_is_not_a_regular_file_is_refused_without_blocking(kind, tmp_path) -> None:
    """A FIFO as the config blocked ``read_text`` until a writer came (forever in a scheduled
    job); /dev/zero read until memory ran out."""
    import os

    from reportgen.config import load_config

    path = tmp_path / "q.yaml"
    if kind == "fifo":
        os.mkfifo(path)
    elif kind == "device":
        path.symlink_to("/dev/zero")
    else:
        path.mkdir()
    with pytest.raises(ConfigError) as info:
        load_config(path)
    expected = "is a directory" if kind == "directory" else "not a regular file (a FIFO, socket or device)"
    assert str(info.value).startswith(f"{path}: {expected}"), info.value


@pytest.mark.parametrize(
    ("extra", "expected"),
    [
        ("yes: 1\n", "q.yaml: (top level): key True is not text"),
        ("1: 2\n", "q.yaml: (top level): key 1 is not text"),
        ("bootstrap: {1: 2}\n", "q.yaml:4: bootstrap: key 1 is not text"),
    ],
)
def test_a_key_that_yaml_reads_as_a_value_is_named_not_shown_as_a_list_index(extra, expected) -> None:
    """``yes:`` (a YAML 1.1 boolean) or ``1:`` as a key gave "[1]: Keys should be strings"."""
    msg = _error(BASE + extra)
    assert msg.startswith(expected) and "[1]" not in msg, msg


@pytest.mark.parametrize(
    ("model", "key"),
    [
        ("score: ''", "models[0].score"),
        ("score: s, weight: ''", "models[0].weight"),
        ("score: s, id: ''", "models[0].id"),
    ],
)
def test_an_empty_column_name_is_refused_where_it_is_written(model, key) -> None:
    """``score: ''`` passed validation as "no score column", then failed in the run with
    KeyError: 'score' (exit 1, "internal error")."""
    msg = _error(f"label: y\nmodels:\n  - {{name: a, file: a.csv, {model}}}\n")
    assert f"q.yaml:3: {key}: expected at least 1 character (found '')" in msg, msg


def test_an_empty_file_path_is_refused_not_read_as_the_config_directory() -> None:
    """``file: ''`` became Path('.'): the config's directory, read as a Parquet dataset."""
    msg = _error("label: y\nmodels:\n  - {name: a, file: '', score: s}\n")
    assert "q.yaml:3: models[0].file: the path is empty; give a CSV or Parquet file" in msg, msg


def test_an_alias_bomb_given_with_set_is_refused_too() -> None:
    """The size check ran before --set items were applied; a bomb in a --set value (one flow
    collection: anchors and aliases work within it) went unchecked into every later walk."""
    levels = ["&a0 [" + ", ".join(["x"] * 9) + "]"]
    levels += [f"&a{i + 1} [" + ", ".join([f"*a{i}"] * 9) + "]" for i in range(8)]
    with pytest.raises(ConfigError, match="more than 100,000 values"):
        parse_config(BASE, "q.yaml", overrides=["title=[" + ", ".join(levels) + "]"])


@pytest.mark.parametrize(
    ("extra", "key"),
    [
        ("beta: 1.0e160", "beta: expected a number ≤ 1000000"),
        ("costs: {fn: 1.0e308, fp: 1}", "costs.fn: expected a number ≤ 1000000000000000"),
        ("costs: [[0, 1.0e308], [1, 0]]", "costs: every cost must be at most 1e+15, found 1e+308"),
    ],
)
def test_a_beta_or_cost_whose_square_or_product_overflows_is_refused(extra: str, key: str) -> None:
    """β = 1e160 gave an F-β of None and fn: 1e308 an expected cost of None, silently but for
    numpy's overflow warnings on stderr (β² and cost × count are infinite)."""
    assert key in _error(BASE + extra + "\n")
    assert validated(Config, yaml.safe_load(BASE + "beta: 1.0e6\ncosts: {fn: 1.0e15, fp: 1}\n")).beta == 1e6


@pytest.mark.parametrize(
    ("other", "shown"),
    [
        ("a\\u200b", r"'a\u200b'"),  # a zero-width space
        ("a ", "'a '"),  # a space at the end
        ("\\uff41", "'ａ'"),  # fullwidth a  # noqa: RUF001 - the character under test
        ("\\u200fa", r"'\u200fa'"),  # a right-to-left mark
    ],
)
def test_model_names_that_read_the_same_are_refused(other: str, shown: str) -> None:
    msg = _error(
        f'label: y\nmodels:\n  - {{name: a, file: a.csv, score: s}}\n  - {{name: "{other}", file: a.csv, score: s}}\n'
    )
    assert msg.startswith(f"q.yaml:4: models[1].name: {shown} looks the same as model 'a'"), msg
    parse_config(
        "label: y\nmodels:\n  - {name: a, file: a.csv, score: s}\n  - {name: A, file: a.csv, score: s}\n", "q.yaml"
    )
    composed, decomposed = "\u00e9", "e\u0301"
    msg = _error(
        f'label: y\nmodels:\n  - {{name: "{composed}", file: a.csv, score: s}}\n  - {{name: "{decomposed}", file: a.csv, score: s}}\n'
    )
    assert "looks the same as model" in msg


@pytest.mark.parametrize("name", ["\\u200b", " \\u200d ", "\\u202e"])
def test_a_model_name_without_a_visible_character_is_refused(name: str) -> None:
    msg = _error(f'label: y\nmodels:\n  - {{name: "{name}", file: a.csv, score: s}}\n')
    assert msg.startswith("q.yaml:3: models[0].name: ") and msg.endswith(
        "has no visible character; give the model a name to show"
    )
    assert msg.isprintable(), msg


@pytest.mark.parametrize(
    ("extra", "key"),
    [
        ("threshold: true\n", "threshold"),  # was a threshold of 1
        ("bootstrap: {resamples: yes}\n", "bootstrap.resamples"),  # was one resample
        ("beta: on\n", "beta"),
        ("costs: {fn: off, fp: 1}\n", "costs.fn"),
        ("confidence_level: no\n", "confidence_level"),
    ],
)
def test_a_yaml_boolean_is_not_taken_for_a_number(extra: str, key: str) -> None:
    """YAML 1.1 reads yes/no/on/off/true/false as booleans, and pydantic took them as 1 and 0."""
    msg = _error(BASE + extra)
    assert f"{key}: expected a number, found a boolean" in msg, msg


def test_booleans_stay_where_they_are_meant() -> None:
    cfg = parse_config(BASE + "positive: true\noutput: {overwrite: yes}\nthreshold: 0.5\n", "q.yaml")
    assert cfg.positive is True and cfg.output.overwrite is True and cfg.threshold == 0.5


def test_a_list_key_with_every_entry_commented_out_is_empty() -> None:
    """``checks:`` with its entries commented out is YAML's null: no checks, as ``[]`` (it was
    exit 2, "checks: Input should be a valid list"; ``history: null`` already meant none)."""
    text = BASE + "checks:\n#  - {metric: auc, at_least: 0.6}\nprevalences:\nconstraints:\napproval_rates:\n"
    cfg = parse_config(text, "q.yaml")
    assert (cfg.checks, cfg.prevalences, cfg.constraints, cfg.approval_rates) == ([], [], [], [])


@pytest.mark.parametrize(
    ("extra", "expected"),
    [
        ("task: bin", "q.yaml:4: task: expected 'binary' or 'multiclass' (found 'bin')"),
        ("beta: 0", "q.yaml:4: beta: expected a number > 0 (found 0)"),
        ("bootstrap: {resamples: -1}", "q.yaml:4: bootstrap.resamples: expected a whole number ≥ 0 (found -1)"),
        ("threshold: .nan", "q.yaml:4: threshold: expected a finite number (found nan)"),
        (
            "partial_auc: [{specificity: [0.9]}]",
            "q.yaml:4: partial_auc[0].specificity: expected a list of 2 numbers, found 1",
        ),
        ("segments: []\nfairness: {groups: []}", "q.yaml:5: fairness.groups: expected at least 1 item, found 0"),
    ],
)
def test_a_refusal_is_said_in_the_configs_words(extra: str, expected: str) -> None:
    """A choice, a bound, NaN, a pair and an empty list were refused in pydantic's words ("Input
    should be greater than 0", "List should have at least 1 item after validation, not 0")."""
    assert _error(BASE + extra + "\n") == expected
