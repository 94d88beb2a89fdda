"""The config's JSON Schema (issue 21): generated from the config sections, shipped as
``reportgen/schema/config.schema.json`` for editor completion, up to date, accepting every
shipped config and refusing a typo'd key at any level (as the loader does)."""

from __future__ import annotations

import copy
import json
from pathlib import Path

import jsonschema
import pytest
import yaml

import reportgen.config as config
from reportgen.errors import ConfigError

ROOT = Path(__file__).resolve().parents[2]
SHIPPED = sorted((ROOT / "configs").glob("*.yaml"))


@pytest.fixture(scope="module")
def schema() -> dict:
    return json.loads(config.SCHEMA_FILE.read_text(encoding="utf-8"))


def test_the_shipped_schema_is_the_generated_one(schema) -> None:
    """Regenerate with the command in :func:`reportgen.config.json_schema`'s docstring."""
    assert schema == config.json_schema()
    jsonschema.Draft202012Validator.check_schema(schema)


def test_the_shipped_configs_point_editors_at_the_schema() -> None:
    for path in SHIPPED:
        first = path.read_text(encoding="utf-8").splitlines()[0]
        assert first == "# yaml-language-server: $schema=../reportgen/schema/config.schema.json", path
        # the repository's copy of the schema (the installed package's is the same file, shipped:
        # CI installs the package, so SCHEMA_FILE may live in site-packages)
        target = (path.parent / first.split("=", 1)[1]).resolve()
        assert target == (ROOT / "reportgen" / "schema" / "config.schema.json").resolve()
        assert json.loads(target.read_text(encoding="utf-8")) == json.loads(
            config.SCHEMA_FILE.read_text(encoding="utf-8")
        )


@pytest.mark.parametrize("path", SHIPPED, ids=lambda p: p.name)
def test_every_shipped_config_validates(schema, path: Path) -> None:
    assert SHIPPED, "no configs found"
    jsonschema.validate(yaml.safe_load(path.read_text(encoding="utf-8")), schema)
    config.load_config(path)  # and reportgen agrees


@pytest.mark.parametrize(
    ("where", "typo"),
    [((), "treshold"), (("models", 0), "scroe"), (("bootstrap",), "resample"), (("output",), "format")],
)
def test_a_typo_d_key_is_refused_at_every_level(schema, where: tuple, typo: str) -> None:
    data = yaml.safe_load((ROOT / "configs" / "demo.yaml").read_text(encoding="utf-8"))
    broken = copy.deepcopy(data)
    node = broken
    for part in where:
        node = node[part]
    node[typo] = 1
    with pytest.raises(jsonschema.ValidationError, match=f"'{typo}' was unexpected"):
        jsonschema.validate(broken, schema)
    with pytest.raises(ConfigError, match="unknown key"):  # the loader refuses it too
        config.parse_config(yaml.safe_dump(broken))


def test_a_wrong_choice_is_refused(schema) -> None:
    data = yaml.safe_load((ROOT / "configs" / "demo.yaml").read_text(encoding="utf-8"))
    data["task"] = "regression"
    with pytest.raises(jsonschema.ValidationError):
        jsonschema.validate(data, schema)
