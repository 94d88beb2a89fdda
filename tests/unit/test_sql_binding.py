"""SQL sources without a server (issue 20): parameter binding, URL redaction, secrets in URLs."""

from __future__ import annotations

import pytest

from reportgen.config import SourceConfig
from reportgen.config_base import json_data
from reportgen.errors import ConfigError
from reportgen.io.sql import bind, describe, pushdown_query, redact, resolve_url


@pytest.mark.parametrize(
    ("query", "params", "sql", "values"),
    [
        (
            "SELECT * FROM t WHERE d = :run_date",
            {"run_date": "2026-03-31"},
            "SELECT * FROM t WHERE d = $1",
            ("2026-03-31",),
        ),
        ("SELECT :a, :b, :a", {"a": 1, "b": "x"}, "SELECT $1, $2, $3", (1, "x", 1)),  # each use bound
        (
            "SELECT x::int, ':no', \":no\" FROM t WHERE y = :v -- :no\n/* :no */",
            {"v": 2},
            "SELECT x::int, ':no', \":no\" FROM t WHERE y = $1 -- :no\n/* :no */",
            (2,),
        ),
        ("SELECT 'it''s :no' WHERE a = :v::text", {"v": "z"}, "SELECT 'it''s :no' WHERE a = $1::text", ("z",)),
        ("SELECT 1", {}, "SELECT 1", ()),
    ],
)
def test_bind_markers_become_positional_parameters(query, params, sql, values) -> None:
    assert bind(query, params, "q.yaml: models[0].source") == (sql, values)


def test_bind_refuses_missing_and_unused_values() -> None:
    with pytest.raises(ConfigError, match=r"models\[0\].source.query: parameter :d has no value; add it to "):
        bind("SELECT * WHERE x = :d", {}, "models[0].source")
    with pytest.raises(ConfigError, match=r"models\[0\].source.params: dd not used in the query"):
        bind("SELECT * WHERE x = :d", {"d": 1, "dd": 2}, "models[0].source")


def test_a_value_is_never_part_of_the_sql_text() -> None:
    evil = "x'; DROP TABLE t; --"
    sql, values = bind("SELECT * FROM t WHERE a = :v", {"v": evil}, "k")
    assert evil not in sql and values == (evil,)


def test_redact_and_describe_drop_password_and_query_string() -> None:
    url = "postgresql://scorer:${PW}@db.bank:5432/risk?sslmode=require&password=${PW2}"
    assert redact(url) == "postgresql://scorer@db.bank:5432/risk"
    assert (
        describe(SourceConfig(url=url, query="SELECT a,\n  b FROM t"))
        == "postgresql://scorer@db.bank:5432/risk: SELECT a, b FROM t"
    )


def test_the_password_variable_is_expanded_only_when_connecting_and_percent_encoded() -> None:
    url, pw = resolve_url("postgresql://u:${PW}@h:5/db?host=${SOCK}", "k", {"PW": "a@b:c/d%", "SOCK": "/tmp/s"})
    assert url == "postgresql://u:a%40b%3Ac%2Fd%25@h:5/db?host=/tmp/s" and pw == ["a@b:c/d%"]
    with pytest.raises(ConfigError) as e:
        resolve_url("postgresql://u:${PW}@h/db", "q.yaml: models[0].source.url", {})
    assert str(e.value) == (
        "q.yaml: models[0].source.url: environment variable PW is not set; export it, "
        "or write ${PW:-default} for a default"
    )


def test_pushdown_query_groups_by_score_label_and_weight() -> None:
    src = SourceConfig(
        url="postgresql://u@h/db", query="SELECT * FROM p WHERE d = :d", params={"d": "x"}, pushdown=True
    )
    sql, values = pushdown_query(src, {"score": 'p"d', "label": "y", "weight": "w"}, "k")
    assert values == ("x",)
    assert sql == (
        'SELECT "p""d" AS score, "y" AS label, "w" AS weight, COUNT(*) AS n FROM (SELECT * FROM p WHERE d = $1\n) '
        'AS reportgen_rows GROUP BY "p""d", "y", "w"'
    )  # the weight cells; values as stored, never cast
    # (the query closed on its own line: a trailing "-- comment" in it cannot comment the wrapper out)


def test_the_url_keeps_its_variables_in_the_config_and_a_literal_password_is_refused() -> None:
    from reportgen.config import parse_config

    base = (
        "label: y\nmodels:\n  - {name: a, file: a.csv, score: s}\n"
        "  - {name: b, score: s, source: {url: '%s', query: 'SELECT 1'}}\n"
    )
    cfg = parse_config(base % "postgresql://u:${PW}@h/db", "q.yaml", environ={})  # PW unset: fine until connecting
    assert cfg.models[1].source.url == "postgresql://u:${PW}@h/db"
    assert "${PW}" in str(json_data(cfg))  # what metrics.json's run.config keeps
    with pytest.raises(ConfigError) as e:
        parse_config(base % "postgresql://u:hunter2@h/db", "q.yaml")
    assert "hunter2" not in str(e.value) and "models[1].source.url: holds a literal password" in str(e.value)
    with pytest.raises(ConfigError, match=r"models\[0\]: give exactly one of 'file'"):
        parse_config(
            base.replace("file: a.csv, ", "file: a.csv, source: {url: 'postgresql://h/d', query: q}, "), "q.yaml"
        )


def test_pushdown_needs_every_model_pushed_down_and_task_binary() -> None:
    from reportgen.config import parse_config

    text = (
        "label: y\nmodels:\n  - {name: a, file: a.csv, score: s}\n"
        "  - {name: b, score: s, source: {url: 'postgresql://h/d', query: 'SELECT 1', pushdown: true}}\n"
    )
    with pytest.raises(
        ConfigError, match=r"models\[1\].source.pushdown: pushdown works for task: binary with every model"
    ):
        parse_config(text, "q.yaml")
