"""Random bytes and random YAML never crash ``reportgen validate``: exit 0 or a clean exit 2.

Scheduled runs meet files nobody looked at; whatever they hold, the answer is either "ok" or
one line saying what is wrong, never a traceback (exit 1 would mean a bug in reportgen).
"""

from __future__ import annotations

from pathlib import Path

import yaml
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from reportgen import cli

_SETTINGS = settings(max_examples=60, deadline=None, suppress_health_check=[HealthCheck.function_scoped_fixture])

_scalars = st.one_of(st.none(), st.booleans(), st.integers(-5, 5), st.floats(allow_nan=True), st.text(max_size=8))
_keys = st.sampled_from(
    [
        "title",
        "task",
        "label",
        "positive",
        "id",
        "weight",
        "threshold",
        "beta",
        "costs",
        "baseline",
        "models",
        "output",
        "name",
        "file",
        "score",
        "direction",
        "fn",
        "fp",
        "bootstrap",
        "missing",
        "prevalences",
        "constraints",
        "x",
    ]
)
_docs = st.recursive(
    _scalars,
    lambda inner: st.one_of(st.lists(inner, max_size=3), st.dictionaries(_keys, inner, max_size=5)),
    max_leaves=12,
)


def _validate(tmp: Path, config_text: str, csv: bytes, capsys) -> None:
    (tmp / "a.csv").write_bytes(csv)
    path = tmp / "c.yaml"
    path.write_text(config_text, encoding="utf-8")
    code = cli.main(["validate", str(path)])
    err = capsys.readouterr().err
    assert code in (0, 2), err
    assert "Traceback" not in err
    if code == 2:
        assert len(err.strip().splitlines()) == 1, err


@_SETTINGS
@given(doc=_docs)
def test_random_yaml_documents(doc, tmp_path_factory, capsys) -> None:
    tmp = tmp_path_factory.mktemp("yaml")
    _validate(tmp, yaml.safe_dump(doc), b"id,y,s\n1,0,0.1\n2,1,0.9\n", capsys)


@_SETTINGS
@given(csv=st.binary(max_size=200) | st.text(alphabet='01,.;\n"ysid-e', max_size=200).map(str.encode))
def test_random_csv_bytes(csv, tmp_path_factory, capsys) -> None:
    tmp = tmp_path_factory.mktemp("csv")
    config = "title: fuzz\nlabel: y\nid: id\nmodels: [{name: a, file: a.csv, score: s}]\n"
    _validate(tmp, config, csv, capsys)
