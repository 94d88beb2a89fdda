"""SQL sources through SQLAlchemy against a real network server: MariaDB (issue 43).

The server is Debian's ``mariadb-server`` (``mariadbd``; ``.ci/run`` installs it when missing),
started by this module in a temporary directory on 127.0.0.1 and a free port, as the ``mysql``
user when the tests run as root (mariadbd refuses root), and stopped at the end. The generic
path (``mysql+pymysql://``: SQLAlchemy 2, the DB-API cursor read in batches, the pushed-down
``GROUP BY`` compiled for the dialect) must give the numbers of the same rows read from files;
a failed login, a query error, a missing column, a missing driver and an unknown dialect are
each one line, exit 2, the password never shown.
"""

from __future__ import annotations

import json
import os
import pwd
import shutil
import socket
import subprocess
import sys
import tempfile
import time
from pathlib import Path

import numpy as np
import pandas as pd
import pytest
import yaml

pytestmark = [pytest.mark.sql, pytest.mark.slow]

SECRET = "m@ria:pw/#1%"  # characters that need percent-encoding in a URL (ASCII: PyMySQL sends a password as Latin-1)
PINNED_NOW = "2026-01-01T00:00:00Z"


def _binary(*names: str) -> str:
    for name in names:
        found = shutil.which(name) or next(
            (p for d in ("/usr/sbin", "/usr/bin") if os.access(p := f"{d}/{name}", os.X_OK)), None
        )
        if found:
            return found
    pytest.fail(f"{' / '.join(names)} not found: install Debian's mariadb-server (apt-get install -y mariadb-server)")


def _free_port() -> int:
    with socket.socket() as s:
        s.bind(("127.0.0.1", 0))
        return s.getsockname()[1]


def _data(n: int = 200, seed: int = 5) -> pd.DataFrame:
    """Two models' scores on ``n`` rows: an id, a 0/1 label, a weight, scores with ties."""
    rng = np.random.default_rng(seed)
    y = (rng.random(n) < 0.3).astype(int)
    return pd.DataFrame(
        {
            "id": np.arange(1, n + 1),
            "y": y,
            "s1": np.round(np.clip(0.35 * y + rng.random(n) * 0.7, 0, 1), 2),
            "s2": np.round(rng.random(n), 3),
            "w": rng.integers(1, 4, n).astype(float),
        }
    )


@pytest.fixture(scope="module")
def mariadb():
    """A MariaDB server with the table ``preds`` (:func:`_data`) in database ``risk`` and a
    password-protected user ``scorer`` allowed to read it."""
    import pymysql

    install, server = _binary("mariadb-install-db", "mysql_install_db"), _binary("mariadbd", "mysqld")
    root = Path(tempfile.mkdtemp(prefix="reportgen-maria-"))
    data, sock, port = root / "data", root / "s.sock", _free_port()
    data.mkdir()
    user: list[str] = []
    if os.geteuid() == 0:  # mariadbd refuses to run as root: the Debian package's unprivileged user
        pw = pwd.getpwnam("mysql")
        os.chown(root, pw.pw_uid, pw.pw_gid)
        os.chown(data, pw.pw_uid, pw.pw_gid)
        user = ["--user=mysql"]
    subprocess.run(
        [
            install,
            "--no-defaults",
            f"--datadir={data}",
            "--auth-root-authentication-method=normal",
            "--skip-test-db",
            *user,
        ],
        check=True,
        capture_output=True,
        timeout=120,
    )
    proc = subprocess.Popen(
        [
            server,
            "--no-defaults",
            f"--datadir={data}",
            f"--socket={sock}",
            f"--port={port}",
            "--bind-address=127.0.0.1",
            f"--pid-file={root / 'p.pid'}",
            f"--log-error={root / 'err.log'}",
            "--innodb-buffer-pool-size=16M",
            "--skip-name-resolve",
            *user,
        ],
        stdout=subprocess.DEVNULL,
        stderr=subprocess.DEVNULL,
    )
    try:
        deadline = time.monotonic() + 60
        while True:
            try:
                con = pymysql.connect(unix_socket=str(sock), user="root", autocommit=True)
                break
            except pymysql.err.OperationalError:
                if proc.poll() is not None or time.monotonic() > deadline:
                    log = (root / "err.log").read_text(errors="replace")[-2000:] if (root / "err.log").exists() else ""
                    pytest.fail(f"mariadbd did not start (exit {proc.poll()}): {log}")
                time.sleep(0.2)
        with con.cursor() as cur:
            cur.execute("CREATE DATABASE risk")
            cur.execute("CREATE TABLE risk.preds (id INT, y INT, s1 DOUBLE, s2 DOUBLE, w DOUBLE)")
            cur.executemany(
                "INSERT INTO risk.preds VALUES (%s, %s, %s, %s, %s)",
                [tuple(r) for r in _data().astype(object).itertuples(index=False)],
            )
            cur.execute("CREATE TABLE risk.texts (id INT, y VARCHAR(10), s1 VARCHAR(20), s2 DECIMAL(6,3), w DOUBLE)")
            cur.execute("INSERT INTO risk.texts SELECT id, CAST(y AS CHAR), CAST(s1 AS CHAR), s2, w FROM risk.preds")
            cur.execute("CREATE USER 'scorer'@'127.0.0.1' IDENTIFIED BY %s", (SECRET,))
            cur.execute("GRANT SELECT ON risk.* TO 'scorer'@'127.0.0.1'")
        con.close()
        yield {"url": f"mysql+pymysql://scorer:${{MARIA_PW}}@127.0.0.1:{port}/risk", "port": port}
    finally:
        proc.terminate()
        try:
            proc.wait(30)
        except subprocess.TimeoutExpired:
            proc.kill()
            proc.wait(10)
        shutil.rmtree(root, ignore_errors=True)


@pytest.fixture
def env(monkeypatch: pytest.MonkeyPatch):
    monkeypatch.setenv("MARIA_PW", SECRET)


def _config(tmp: Path, models: list[dict], **extra) -> Path:
    cfg = {
        "title": "t",
        "label": "y",
        "id": "id",
        "bootstrap": {"resamples": 30, "seed": 3},
        "output": {"formats": ["json"]},
        **extra,
        "models": models,
    }
    path = tmp / f"c{len(list(tmp.glob('c*.yaml')))}.yaml"
    path.write_text(yaml.safe_dump(cfg, sort_keys=False, allow_unicode=True), encoding="utf-8")
    return path


def _doc(cli, cfg: Path, engine: str = "memory") -> dict:
    out = cfg.parent / f"o_{cfg.stem}_{engine}"
    code = cli(["run", str(cfg), "--engine", engine, "--out", str(out), "--overwrite", "--quiet", "--now", PINNED_NOW])
    assert code == 0
    text = (out / "metrics.json").read_text(encoding="utf-8")
    assert SECRET not in text and "m@ria" not in text
    doc = json.loads(text)
    doc.pop("run")
    doc.pop("digest", None)
    for m in doc["models"].values():
        m["file"] = None
    return doc


def _files(tmp: Path) -> list[dict]:
    _data().to_csv(tmp / "p.csv", index=False)
    return [{"name": "a", "file": "p.csv", "score": "s1"}, {"name": "b", "file": "p.csv", "score": "s2"}]


def _sources(table: str = "preds", pushdown: bool = False) -> list[dict]:
    return [
        {
            "name": n,
            "score": s,
            "source": {
                "connection": "maria",
                "query": f"SELECT * FROM {table} WHERE id >= :lo",
                "params": {"lo": 1},
                "pushdown": pushdown,
            },
        }
        for n, s in (("a", "s1"), ("b", "s2"))
    ]


@pytest.mark.parametrize("engine", ["memory", "stream"])
def test_mariadb_rows_through_a_connection_give_the_numbers_of_the_files(
    mariadb, env, tmp_path, cli, engine, monkeypatch
) -> None:
    """The cursor read 64 rows at a time (a server-side cursor: pymysql's SSCursor), each batch
    made Arrow and the batches joined: the numbers of the file, stored as numbers or as text."""
    import reportgen.io.sql as sql

    monkeypatch.setattr(sql, "CURSOR_BATCH_ROWS", 64)
    want = _doc(cli, _config(tmp_path, _files(tmp_path), weight="w"))
    conns = {"maria": {"url": mariadb["url"], "options": {"connect_timeout": 10}}}
    for table in ("preds", "texts"):  # numbers, and the same numbers stored as text and DECIMAL
        got = _doc(cli, _config(tmp_path, _sources(table), weight="w", connections=conns), engine)
        assert got == want, table


def test_mariadb_pushed_down_score_tables_give_the_numbers_of_the_files(mariadb, env, tmp_path, cli) -> None:
    """Pushed down (the GROUP BY compiled by SQLAlchemy for MySQL: backquoted names, a derived
    table's alias, %s parameters), one model's score table equals the file's, weighted too."""
    conns = {"maria": {"url": mariadb["url"]}}
    for weight in (None, "w"):
        want = _doc(cli, _config(tmp_path, _files(tmp_path)[:1], weight=weight, id=None))
        for table in ("preds", "texts"):
            got = _doc(
                cli, _config(tmp_path, _sources(table, pushdown=True)[:1], weight=weight, id=None, connections=conns)
            )
            assert got == want, (weight, table)


@pytest.mark.parametrize(
    ("change", "expected"),
    [
        ({"password": "wrong-password"}, "Access denied for user 'scorer'"),
        ({"query": "SELECT * FROM missing_table"}, "missing_table' doesn't exist"),
        ({"query": "SELECT id, y, s2 FROM preds"}, "column 's1' not found"),
        ({"query": "SELEC * FROM preds"}, "You have an error in your SQL syntax"),
        ({"url": "mysql+mysqldb://scorer@127.0.0.1/risk"}, "needs the Python driver MySQLdb"),
        ({"url": "nosuchdb+x://scorer@127.0.0.1/risk"}, "nosuchdb+x:// names no SQLAlchemy dialect installed here"),
        ({"url": "mysql+pymysql://scorer:${MARIA_PW}@127.0.0.1:1/risk"}, "Can't connect to MySQL server"),
    ],
)
def test_mariadb_faults_are_one_line_exit_2_without_the_password(
    mariadb, env, tmp_path, cli, capsys, monkeypatch, change, expected
) -> None:
    if "password" in change:
        monkeypatch.setenv("MARIA_PW", change["password"])
    model = {
        "name": "a",
        "score": "s1",
        "source": {"connection": "maria", "query": change.get("query", "SELECT * FROM preds")},
    }
    cfg = _config(tmp_path, [model], connections={"maria": {"url": change.get("url", mariadb["url"])}})
    assert cli(["run", str(cfg), "--out", str(tmp_path / "o"), "--quiet"]) == 2
    err = capsys.readouterr().err
    assert err.count("\n") == 1 and "Traceback" not in err, err
    assert expected in err, err
    assert SECRET not in err and "m@ria" not in err and "wrong-password" not in err


def test_a_missing_driver_names_the_extra(mariadb, env, tmp_path, cli, capsys, monkeypatch) -> None:
    monkeypatch.setitem(sys.modules, "pymysql", None)  # import pymysql raises ImportError
    cfg = _config(
        tmp_path, [{"name": "a", "score": "s1", "source": {"url": mariadb["url"], "query": "SELECT * FROM preds"}}]
    )
    assert cli(["run", str(cfg), "--out", str(tmp_path / "o"), "--quiet"]) == 2
    err = capsys.readouterr().err
    assert err.count("\n") == 1 and "pip install 'classifier-comparison-report[sql]'" in err, err
    assert "models[0].source.url" in err


def test_percent_and_colons_in_the_query_are_sql_not_parameters_for_pyformat(mariadb, env, tmp_path, cli) -> None:
    """PyMySQL's parameter style is %s: a LIKE pattern's % and a ':' in a literal reach the server as written."""
    want = _doc(cli, _config(tmp_path, _files(tmp_path)[:1]))
    query = "SELECT * FROM preds WHERE CONCAT('a:b', id) LIKE 'a:%' AND id >= :lo -- :c"
    model = {"name": "a", "score": "s1", "source": {"url": mariadb["url"], "query": query, "params": {"lo": 1}}}
    assert _doc(cli, _config(tmp_path, [model])) == want
