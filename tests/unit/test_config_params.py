"""Config paths and parameters (issue 20): ``${VAR}`` interpolation, ``~``, ``file://`` URIs and
``--set KEY=VALUE`` overrides validated like the file, each problem one line naming the key."""

from __future__ import annotations

from pathlib import Path

import pytest
from hypothesis import given
from hypothesis import strategies as st

from reportgen.config import checked_uri, load_config, parse_config, unfolded
from reportgen.config_base import json_data
from reportgen.config_yaml import expand_vars, parse_set
from reportgen.errors import ConfigError

BASE = "label: y\nmodels:\n  - {name: a, file: '${D}/a.csv', score: s}\n  - {name: b, file: b.csv, score: s}\n"


def test_a_variable_is_expanded_from_the_environment() -> None:
    assert parse_config(BASE, "q.yaml", environ={"D": "/data"}).models[0].file == Path("/data/a.csv")


def test_a_missing_variable_is_one_line_naming_file_line_key_and_variable() -> None:
    with pytest.raises(ConfigError) as e:
        parse_config(BASE, "q.yaml", environ={"OTHER": "x"})
    msg = str(e.value)
    assert msg.startswith("q.yaml:3: models[0].file: environment variable D is not set")
    assert "\n" not in msg


def test_default_escape_and_empty_value() -> None:
    env: dict[str, str] = {}
    assert expand_vars("${X:-d}/f", env, "k") == "d/f"
    assert expand_vars("${X:-d}/f", {"X": ""}, "k") == "d/f"  # POSIX :- also replaces an empty value
    assert expand_vars("${X}/f", {"X": ""}, "k") == "/f"
    assert expand_vars("$${X} and $5 and ${X}", {"X": "v"}, "k") == "${X} and $5 and v"
    with pytest.raises(ConfigError, match=r"k: \$\{1bad\} is not a variable reference"):
        expand_vars("${1bad}", env, "k")


@given(st.text(alphabet=st.characters(blacklist_characters="${}"), max_size=30))
def test_text_without_references_is_unchanged(text: str) -> None:
    assert expand_vars(text, {}, "k") == text


@given(
    st.text(alphabet=st.characters(blacklist_categories=("Cs",), blacklist_characters="\x00"), min_size=1, max_size=30)
)
def test_the_value_is_inserted_verbatim_never_expanded_again(value: str) -> None:
    # a value holding "${Y}" is data, not a second reference (no recursive expansion)
    assert expand_vars("<${X}>", {"X": value}, "k") == f"<{value}>"


def test_keys_are_not_interpolated_and_numbers_are_coerced_after_expansion() -> None:
    cfg = parse_config(BASE + "bootstrap: {seed: '${SEED}'}\n", "q.yaml", environ={"D": "d", "SEED": "11"})
    assert cfg.bootstrap.seed == 11


def test_tilde_is_expanded_in_data_paths_and_output_dir(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setenv("HOME", str(tmp_path))
    (tmp_path / "c.yaml").write_text(
        BASE.replace("${D}", "~") + "output: {dir: '~/reports/{config}'}\n", encoding="utf-8"
    )
    cfg, _ = load_config(tmp_path / "c.yaml")
    assert cfg.models[0].file == tmp_path / "a.csv"
    assert cfg.output.dir == f"{tmp_path}/reports/{{config}}"


def test_file_uri_is_a_local_path_through_pyarrow(tmp_path: Path) -> None:
    target = tmp_path / "with space" / "a.csv"
    cfg = parse_config(BASE.replace("'${D}/a.csv'", f"'{target.as_uri()}'"), "q.yaml")
    assert cfg.models[0].file == target


def test_a_remote_uri_is_kept_as_written_and_dumped_as_written(tmp_path: Path) -> None:
    uri = "s3://bucket/runs/a.parquet?endpoint_override=127.0.0.1:9000&scheme=http"
    (tmp_path / "c.yaml").write_text(BASE.replace("'${D}/a.csv'", f"'{uri}'"), encoding="utf-8")
    cfg, _ = load_config(tmp_path / "c.yaml")  # not joined to the config's directory, no network
    assert unfolded(cfg.models[0].file) == uri
    assert json_data(cfg)["models"][0]["file"] == uri
    ref = (
        parse_config(
            BASE.replace("b.csv, score: s", "b.csv, score: s, reference: 'gs://b/dev.csv'"),
            "q.yaml",
            environ={"D": "d"},
        )
        .models[1]
        .reference
    )
    assert unfolded(ref) == "gs://b/dev.csv"


def test_a_slash_in_a_query_value_survives_the_path_form() -> None:
    uri = checked_uri("s3://b/k.csv?endpoint_override=http://127.0.0.1:9000")
    assert "//" not in uri.split("://", 1)[1]
    assert unfolded(Path(uri)) == uri


@pytest.mark.parametrize(
    ("uri", "words"),
    [
        ("ftp://host/a.csv", "ftp:// is not a filesystem pyarrow reads"),
        ("s3://key:secret@bucket/a.csv", "holds a password; give credentials in the environment"),
        ("s3://bucket/a.csv?secret_key=abc", "holds a secret (secret_key=…)"),
        ("s3:///a.csv", "has no bucket or host"),
        ("s3://bucket//a.csv", "empty path segment"),
    ],
)
def test_a_bad_uri_is_one_line_naming_the_key_and_no_secret(uri: str, words: str) -> None:
    with pytest.raises(ConfigError) as e:
        parse_config(BASE.replace("'${D}/a.csv'", f"'{uri}'"), "q.yaml")
    msg = str(e.value)
    assert msg.startswith("q.yaml:3: models[0].file: ") and words in msg and "\n" not in msg
    assert "secret" not in msg.replace("holds a secret", "").replace("secret_key", "")
    assert "abc" not in msg


def test_what_must_stay_local_refuses_a_remote_uri() -> None:
    with pytest.raises(ConfigError, match=r"history.path: s3:// URIs are read for models' file"):
        parse_config(BASE + "history: {path: 's3://b/h.sqlite'}\n", "q.yaml", environ={"D": "d"})


def test_output_dir_refuses_a_remote_uri_and_reads_a_file_uri() -> None:
    """README: 'output.dir ... take[s] local paths only (a remote URI there is exit 2)'. It was
    accepted, and the report was written to a local directory named ``s3:`` (``s3:/b/x``)."""
    with pytest.raises(
        ConfigError,
        match=r"q.yaml:5: output.dir: s3:// URIs are read for models' "
        r"file and reference only; this path must be local",
    ):
        parse_config(BASE + "output: {dir: 's3://b/{config}'}\n", "q.yaml", environ={"D": "d"})
    cfg = parse_config(BASE + "output: {dir: 'file:///tmp/r/{config}-{date}'}\n", "q.yaml", environ={"D": "d"})
    assert cfg.output.dir == "/tmp/r/{config}-{date}"


def test_cli_output_dir_as_a_remote_uri_is_exit_2_with_nothing_written(
    tmp_path: Path, fast_config_factory, cli, capsys
) -> None:
    cfg = fast_config_factory(tmp_path / "c.yaml")
    assert cli(["run", str(cfg), "--set", "output.dir=s3://bucket/reports", "--format", "json"]) == 2
    err = capsys.readouterr().err.strip()
    assert err.count("\n") == 0 and "output.dir: s3:// URIs are read" in err and "(from --set)" in err
    assert not (tmp_path / "s3:").exists()


@pytest.mark.parametrize(
    ("item", "loc", "value"),
    [
        ("models[1].file=x/b.parquet", ("models", 1, "file"), "x/b.parquet"),
        ("bootstrap.resamples=100", ("bootstrap", "resamples"), 100),
        ("date=2024-03-31", ("date",), "2024-03-31"),  # a date stays text, as typed
        ("report.sections=[summary, metrics]", ("report", "sections"), ["summary", "metrics"]),
        ("title=a=b", ("title",), "a=b"),
        ("output.dir=C:/reports", ("output", "dir"), "C:/reports"),
    ],
)
def test_parse_set(item: str, loc: tuple, value: object) -> None:
    assert parse_set(item) == (loc, value)


def test_set_overrides_are_validated_like_the_file() -> None:
    env = {"D": "d"}
    cfg = parse_config(BASE, "q.yaml", ["models[1].file=/x/c.csv", "bootstrap.seed=3"], environ=env)
    assert (cfg.models[1].file, cfg.bootstrap.seed) == (Path("/x/c.csv"), 3)
    for item, expected in [
        (
            "bootstrap.resamples=-1",
            "q.yaml: bootstrap.resamples: expected a whole number ≥ 0 (found -1) (from --set)",
        ),
        ("modles=[]", "q.yaml: modles: unknown key; did you mean 'models'? (from --set)"),
        ("models[2].file=x", "--set models[2].file=x: models[2]: no such entry (models has 2)"),
        ("models[0].name.x=1", "--set models[0].name.x=1: models[0].name is not a mapping"),
        ("title.x=1", "q.yaml: title: expected text (from --set)"),
        ("nolist[0]=1", "--set nolist[0]=1: nolist: no such list in the config"),
        ("=1", "--set =1: expected KEY=VALUE"),
    ]:
        with pytest.raises(ConfigError) as e:
            parse_config(BASE, "q.yaml", [item], environ=env)
        assert str(e.value).startswith(expected), (item, str(e.value))


def test_a_set_value_may_reference_a_variable() -> None:
    cfg = parse_config(BASE, "q.yaml", ["models[1].file=${D}/run.csv"], environ={"D": "/d"})
    assert cfg.models[1].file == Path("/d/run.csv")


def test_cli_set_and_missing_variable_exit_2_with_one_line(
    tmp_path: Path, fast_config_factory, cli, capsys, monkeypatch: pytest.MonkeyPatch
) -> None:
    cfg = fast_config_factory(tmp_path / "c.yaml", title="${RUN_TITLE}")
    monkeypatch.delenv("RUN_TITLE", raising=False)
    assert cli(["validate", str(cfg)]) == 2
    err = capsys.readouterr().err.strip()
    assert err.count("\n") == 0 and "title: environment variable RUN_TITLE is not set" in err
    monkeypatch.setenv("RUN_TITLE", "Q3")
    assert cli(["validate", str(cfg), "--set", "bootstrap.resamples=10"]) == 0
    assert cli(["validate", str(cfg), "--set", "models[9].file=x.csv"]) == 2
    assert "models[9]: no such entry (models has 3)" in capsys.readouterr().err


def test_the_readme_scheduled_example_config_is_valid(monkeypatch: pytest.MonkeyPatch) -> None:
    """The scheduled-runs page's cron / Airflow config parses, with its --set re-run override (it cannot rot)."""
    text = (Path(__file__).resolve().parents[2] / "docs" / "user-guide" / "scheduled-runs.md").read_text(
        encoding="utf-8"
    )
    block = text.split("`/etc/reportgen/monthly.yaml`:")[1].split("```yaml")[1].split("```")[0]
    monkeypatch.setenv("RUN_DATE", "2026-03-01")
    cfg = parse_config(block, "monthly.yaml")
    assert [m.source.params for m in cfg.models] == [{"d": "2026-03-01"}] * 2
    again = parse_config(
        block, "monthly.yaml", ["models[1].file=/data/2026-03/challenger.parquet", "models[1].source=null"]
    )
    assert again.models[1].file == Path("/data/2026-03/challenger.parquet") and again.models[1].source is None
    assert len(cfg.checks) == 2 and cfg.history is not None


@pytest.mark.parametrize("command", [["run", "CFG"], ["render", "CFG"]])
def test_cli_out_as_a_remote_uri_is_exit_2_with_nothing_written(
    tmp_path: Path, fast_config_factory, cli, capsys, monkeypatch: pytest.MonkeyPatch, command
) -> None:
    """``--out s3://b/x`` was taken as a local path: the report went to ``./s3:/b/x``."""
    monkeypatch.chdir(tmp_path)
    cfg = fast_config_factory(tmp_path / "c.yaml")
    args = [str(cfg) if a == "CFG" else a for a in command]
    with pytest.raises(SystemExit) as exc:  # a command-line mistake: argparse's exit, code 2
        cli([*args, "--out", "s3://bucket/reports", "--format", "json"])
    assert exc.value.code == 2
    err = capsys.readouterr().err.strip()
    assert err.count("\n") == 0 and "argument --out: s3:// URIs are read" in err and "--out must be local" in err
    assert not (tmp_path / "s3:").exists()
