"""No secret is printed or stored, whether the run succeeds or fails (issue 38).

For a random secret, placed in each URI-valued config key — as the password of the URI's user
info or as the value of each query key a client takes as a credential
(:data:`reportgen.redact.SECRET_KEYS`), written literally or given by ``${RG_SECRET}`` — the
CLI is run in-process on tiny data, and no output holds the secret: stdout, stderr, every log
record, and every file the run wrote (the output directory, the history store, anything else
under the run's folder). Refused at load (a file URI holding a credential, an output that must
be local), refused at connecting (an unreachable database), failing mid-run (a query on a
missing table) or succeeding (a SQLite source whose URL carries ``?sslpassword=${RG_SECRET}``):
every path is drawn.
"""

from __future__ import annotations

import contextlib
import io
import logging
import string
from pathlib import Path
from urllib.parse import quote

import numpy as np
import pandas as pd
import pytest
import yaml
from hypothesis import HealthCheck, event, example, given, settings
from hypothesis import strategies as st

from reportgen.redact import SECRET_KEYS

PINNED_NOW = "2026-01-01T00:00:00Z"

#: Config keys whose value is a URL or URI (a path may be written as a ``file://`` URI).
URI_KEYS = (
    "models[0].file",
    "models[0].reference",
    "history.path",
    "report.logo",
    "report.template_dir",
    "output.dir",
    "models[1].source.url",
)

#: Where a secret goes: the user info's password, or the value of a query key.
PLACES = ("userinfo", *sorted(SECRET_KEYS))

# unreserved characters: the secret is written in a URI as it is (no percent-encoding to search for)
secrets = st.text(string.ascii_letters + string.digits + "-._~", min_size=8, max_size=24).map(lambda s: "Zq" + s + "9x")


@pytest.fixture(scope="module")
def data(tmp_path_factory: pytest.TempPathFactory) -> Path:
    """Two models' predictions of 40 rows, as CSV files and as a SQLite table."""
    folder = tmp_path_factory.mktemp("leaks")
    rng = np.random.default_rng(5)
    n = 40
    y = (np.arange(n) % 3 == 0).astype(int)
    frames = {
        name: pd.DataFrame({"id": np.arange(n), "y": y, "s": np.round(0.3 * y + 0.7 * rng.random(n), 4)})
        for name in ("a", "b")
    }
    for name, df in frames.items():
        df.to_csv(folder / f"{name}.csv", index=False)
    pytest.importorskip("adbc_driver_sqlite.dbapi", reason="the sql extra is not installed")
    import sqlite3

    with sqlite3.connect(folder / "p.db") as conn:
        frames["b"].to_sql("b", conn, index=False)
    return folder


def _uri(key: str, scheme: str, place: str, secret: str, data: Path, query_ok: bool) -> tuple[str, str]:
    """(the config's value for ``key`` with the secret in ``place``, the rest of the model's source query)."""
    if key.endswith("source.url"):
        if place == "userinfo":  # nothing listens on port 9: refused at connecting
            return f"postgresql://scorer:{secret}@127.0.0.1:9/risk?connect_timeout=2", ""
        table = "b" if query_ok else "no_such_table"
        return f"sqlite:///{data / 'p.db'}?{place}={secret}", table
    where = "bucket/out/a.csv" if scheme != "file" else "localhost" + str(data / "a.csv")
    if place == "userinfo":
        return f"{scheme}://KEY:{secret}@{where}", ""
    return f"{scheme}://{where}?{place}={secret}", ""


def _config(folder: Path, data: Path, key: str, value: str, table: str) -> Path:
    cfg = {
        "title": "leaks",
        "label": "y",
        "id": "id",
        "bootstrap": {"resamples": 0},
        "output": {"dir": str(folder / "out"), "formats": ["json"]},
        "history": {"path": str(folder / "runs.sqlite")},
        "models": [
            {"name": "a", "file": str(data / "a.csv"), "score": "s"},
            {"name": "b", "file": str(data / "b.csv"), "score": "s"},
        ],
    }
    if key == "models[0].file":
        cfg["models"][0]["file"] = value
    elif key == "models[0].reference":
        cfg["models"][0]["reference"] = value
    elif key == "models[1].source.url":
        del cfg["models"][1]["file"]
        cfg["models"][1]["source"] = {"url": value, "query": f"SELECT id, y, s FROM {table or 'b'}"}
    else:
        section, name = key.split(".")
        cfg.setdefault(section, {})[name] = value
    path = folder / "q.yaml"
    path.write_text(yaml.safe_dump(cfg, sort_keys=False), encoding="utf-8")
    return path


class _Records(logging.Handler):
    def __init__(self) -> None:
        super().__init__(logging.DEBUG)
        self.records: list[logging.LogRecord] = []

    def emit(self, record: logging.LogRecord) -> None:
        self.records.append(record)


@contextlib.contextmanager
def _every_log_record():
    handler, logger = _Records(), logging.getLogger()
    level = logging.getLogger("reportgen").level
    logger.addHandler(handler)
    logging.getLogger("reportgen").setLevel(logging.DEBUG)
    try:
        yield handler.records
    finally:
        logger.removeHandler(handler)
        logging.getLogger("reportgen").setLevel(level)


@pytest.mark.parametrize("key", URI_KEYS)
@example(secret="Zq-secret-9x", place="sslpassword", from_env=True, scheme="s3", query_ok=True)  # a run that succeeds
@example(secret="Zq-secret-9x", place="token", from_env=True, scheme="https", query_ok=False)  # one failing mid-run
@settings(max_examples=10, deadline=None, suppress_health_check=[HealthCheck.too_slow])
@given(
    secret=secrets,
    place=st.sampled_from(PLACES),
    from_env=st.booleans(),
    scheme=st.sampled_from(["s3", "https", "abfs", "file"]),
    query_ok=st.booleans(),
)
def test_no_output_holds_a_secret_from_any_uri_valued_key(
    data: Path,
    tmp_path_factory: pytest.TempPathFactory,
    cli,
    key: str,
    secret: str,
    place: str,
    from_env: bool,
    scheme: str,
    query_ok: bool,
) -> None:
    folder = tmp_path_factory.mktemp("run")
    value, table = _uri(key, scheme, place, "${RG_SECRET}" if from_env else secret, data, query_ok)
    path = _config(folder, data, key, value, table)
    before = {p: p.stat().st_mtime_ns for p in folder.rglob("*")}
    out, err = io.StringIO(), io.StringIO()
    with (
        pytest.MonkeyPatch.context() as mp,
        _every_log_record() as records,
        contextlib.redirect_stdout(out),
        contextlib.redirect_stderr(err),
    ):
        mp.setenv("RG_SECRET", secret)
        code = cli(["run", str(path), "--now", PINNED_NOW])
    event(f"exit {code}")
    assert code in (0, 2), (code, err.getvalue())  # a user's run or a user's error, never an internal one
    if (not from_env and place == "userinfo") or (not from_env and key.endswith("source.url")):
        assert code == 2  # a literal secret is refused at load
    shown = [out.getvalue(), err.getvalue(), *(r.getMessage() for r in records), *(r.exc_text or "" for r in records)]
    for forms in (secret, quote(secret, safe="")):
        assert not any(forms in text for text in shown), (code, shown)
    written = [p for p in folder.rglob("*") if p.is_file() and p != path and before.get(p) != p.stat().st_mtime_ns]
    for p in written:
        assert secret.encode() not in p.read_bytes(), p
    if code == 0:  # a run that went through wrote its record: the search above looked at it
        assert (folder / "out" / "metrics.json") in written and (folder / "runs.sqlite") in written
