"""SQL sources: a model's predictions read from a database (``source: {connection | url, query, params}``).

Three clients, chosen by the URL's scheme (:func:`path_of`), each handing back Arrow:

* **ADBC** (``postgresql://``, ``sqlite:///``): for PostgreSQL the binary COPY protocol, Arrow
  record batches with no per-row Python objects, libpq bundled in one wheel.
* **DuckDB** (``duckdb:///path.duckdb``, opened read-only): Arrow natively; DuckDB also reads
  Parquet and CSV lakes from a query.
* **SQLAlchemy 2** (any other ``dialect+driver://`` URL: ``mysql+pymysql://``,
  ``mssql+pyodbc://``, ``snowflake://``, ``sqlite+pysqlite:///`` ...): the DB-API cursor read in
  batches (``stream_results``: a server-side cursor where the driver has one), each batch made an
  Arrow batch, so no driver holds the whole result as Python rows.

Each is imported only when a config uses it (start-up time). connectorx, as fast as ADBC,
cannot bind parameters, which the contract requires. The documentation's databases page names
which dialects are tested.

Three promises, kept here and only here:

* **bound parameters only**: ``:name`` in the query becomes the driver's marker (``$1``, ``?``,
  or SQLAlchemy's bound parameter) and the value travels separately; the SQL text is never
  formatted with a value.
* **no secret leaves**: ``${VAR}`` in a URL or a connection's options is expanded only when
  connecting (:data:`reportgen.config_yaml.DEFERRED_KEYS`), the password percent-encoded; every
  message is scrubbed of the secrets and the expanded URL; the audit keeps the redacted URL
  (no password, no query string), the query text and a SHA-256 of the result.
* **one-line errors, exit 2**: a bad URL, an unknown dialect, a missing driver, a bad query, a
  wrong password, a missing table or an unreachable server is a
  :class:`~reportgen.errors.ConfigError` or :class:`~reportgen.errors.InputError` naming the
  config key.

:func:`materialised` is the hook the runners use: each SQL model's result is written once to
a Parquet file in a private temporary directory and the config handed to the loaders names
that file, so the memory, stream and Dask engines read a database exactly as they read the
same data from Parquet, by one rule set. :func:`relabel` then puts the source's description
back in place of the temporary path in the evidence (files, audit). :func:`grouped` is the
pushed-down reduction (``GROUP BY score, label[, weight]``, built with SQLAlchemy Core for the
SQLAlchemy dialects); :func:`query_rows` numbers a query's rows from 1.
"""

from __future__ import annotations

import dataclasses
import hashlib
import os
import re
import tempfile
import threading
from collections.abc import Callable, Iterator, Mapping
from contextlib import contextmanager
from pathlib import Path
from typing import Any
from urllib.parse import quote, urlsplit, urlunsplit

from reportgen.config import Config, ModelConfig, SourceConfig, dialect_of
from reportgen.config_yaml import expand_vars
from reportgen.errors import ConfigError, InputError, UserError
from reportgen.io.pairs import scratch_error
from reportgen.io.validate import HEADER_ROWS, check_columns
from reportgen.redact import is_secret_key, masked
from reportgen.terminal import one_line
from reportgen.value import Value

#: Schemes read through ADBC, with the driver module of each (the ``sql`` extra installs both).
DRIVERS = {
    "postgresql": "adbc_driver_postgresql.dbapi",
    "postgres": "adbc_driver_postgresql.dbapi",
    "sqlite": "adbc_driver_sqlite.dbapi",
}

#: The install hint of every client and driver the ``sql`` extra holds.
EXTRA_HINT = "pip install 'classifier-comparison-report[sql]'"

#: Driver modules the ``sql`` extra installs (a missing one is the extra's to install).
EXTRA_MODULES = frozenset(("adbc_driver_postgresql", "adbc_driver_sqlite", "duckdb", "sqlalchemy", "pymysql"))

#: Rows per batch read from a DB-API cursor (SQLAlchemy's ``yield_per``): a batch of Python rows
#: at a time, each made an Arrow batch at once.
CURSOR_BATCH_ROWS = 65_536

#: Rows of a SQLite result typed together. The driver types a column by the values of its first
#: batch (1,024 rows by default) and stops at a later value of another type ("Type mismatch in
#: column 2: expected DOUBLE but got STRING": a REAL column loaded with 'NA' past row 1,024, where
#: the CSV of the table runs); a result is held whole anyway, so its batches are made large.
SQLITE_BATCH_ROWS = 1 << 22

#: How long a cancelled query is given to end before the run stops without it.
_CANCEL_WAIT_S = 2.0

# a string literal, a quoted identifier, a comment, a cast (::), or a :name parameter
_TOKENS = re.compile(r"'(?:[^']|'')*'|\"(?:[^\"]|\"\")*\"|--[^\n]*|/\*.*?\*/|::|:([A-Za-z_][A-Za-z0-9_]*)", re.S)

#: A query's statement ends: a ``;`` outside string literals, quoted identifiers, dollar quotes and comments.
_ENDS = re.compile(r"'(?:[^']|'')*'|\"(?:[^\"]|\"\")*\"|--[^\n]*|/\*.*?\*/|\$((?:[A-Za-z_]\w*)?)\$.*?\$\1\$|(;)", re.S)
_BLANK = re.compile(r"(?:\s|--[^\n]*|/\*.*?\*/|;)*", re.S)


@dataclasses.dataclass(frozen=True, repr=False, eq=False, slots=True)
class Fetched(Value):
    """One SQL model's result, written as Parquet: its columns and what the audit keeps of it."""

    columns: tuple[str, ...]
    rows: int
    label: str  # "postgresql://user@host/db: SELECT ..." (no secret)
    sha256: str  # of the result (Arrow IPC stream bytes)
    size_bytes: int


@dataclasses.dataclass(frozen=True, repr=False, eq=False, slots=True)
class Database(Value):
    """Where a source's query runs: the URL as written (``${VAR}`` unexpanded), the driver's
    options (likewise) and the config key that gave the URL (for messages)."""

    url: str
    options: Mapping[str, Any] = dataclasses.field(default_factory=dict)
    key: str = "url"


def database(cfg: Config, i: int) -> Database:
    """Model ``i``'s database: its ``source.connection`` looked up in ``connections``, or its own ``url``."""
    source = cfg.models[i].source
    assert source is not None
    if source.connection is None:
        assert source.url is not None
        return Database(source.url, {}, f"{cfg.where('models', i, 'source')}.url")
    conn = cfg.connections[source.connection]
    return Database(conn.url, dict(conn.options), cfg.where("connections", source.connection, "url"))


def _db(source: SourceConfig, db: Database | None) -> Database:
    if db is not None:
        return db
    assert source.url is not None, "a source naming a connection needs its Database"
    return Database(source.url)


def path_of(url: str) -> str:
    """The client of a URL: ``adbc`` (``postgresql://``, ``sqlite:///``), ``duckdb`` or ``sqlalchemy``."""
    scheme = urlsplit(url).scheme.lower()
    if scheme in DRIVERS:
        return "adbc"
    return "duckdb" if scheme == "duckdb" else "sqlalchemy"


def redact(url: str) -> str:
    """The URL without password or query string: ``postgresql://user@host:5432/db``."""
    p = urlsplit(url)
    if dialect_of(url) in ("sqlite", "duckdb"):  # a file, no authority (urlunsplit folds "sqlite:////abs" into a host)
        return f"{p.scheme}://{p.path}"
    # the authority as written, less the password: never p.port, which raises on a port given as
    # ${DB_PORT} (expanded only when connecting) and on one out of range (an internal error, exit 1)
    userinfo, at, hostport = p.netloc.rpartition("@")
    user = userinfo.partition(":")[0]
    netloc = (f"{user}@" if at and user else "") + hostport
    return urlunsplit((p.scheme, netloc, p.path, "", ""))


def describe(source: SourceConfig, db: Database | None = None) -> str:
    """What the audit and the report show for a source: redacted URL and the query on one line."""
    return f"{redact(_db(source, db).url)}: {' '.join(source.query.split())}"


def resolve_url(url: str, where: str, environ: Mapping[str, str] | None = None) -> tuple[str, list[str]]:
    """(URL to connect with, the secrets in it): ``${VAR}`` expanded now, each secret's value
    (the password, a :func:`~reportgen.redact.is_secret_key` query value such as ``sslpassword``)
    percent-encoded so any character is safe in the URL."""
    env = os.environ if environ is None else environ
    p = urlsplit(url)
    secrets = []
    netloc = p.netloc
    if p.password is not None:
        password = expand_vars(p.password, env, where)
        secrets.append(password)
        user = expand_vars(p.username or "", env, where)
        host = netloc.rpartition("@")[2]
        netloc = f"{quote(user, safe='')}:{quote(password, safe='')}@{expand_vars(host, env, where)}"
    else:
        netloc = expand_vars(netloc, env, where)
    query = []
    for item in p.query.split("&") if p.query else ():  # ?password=${DB_PASSWORD}: libpq's query key
        key, eq, value = item.partition("=")
        if eq and is_secret_key(key):
            secret = expand_vars(value, env, where)
            secrets.append(secret)
            query.append(f"{key}={quote(secret, safe='')}")
        else:
            query.append(expand_vars(item, env, where))
    rest = [expand_vars(p.path, env, where), "&".join(query)]
    if dialect_of(url) in ("sqlite", "duckdb"):
        return f"{p.scheme}://{rest[0]}" + (f"?{rest[1]}" if rest[1] else ""), secrets
    return urlunsplit((p.scheme, netloc, rest[0], rest[1], "")), secrets


def bind(query: str, params: Mapping[str, Any], where: str, marker: str = "$") -> tuple[str, tuple[Any, ...]]:
    """``:name`` markers → ``$1, $2, ...`` (``marker="?"``: ``?, ?, ...``, SQLite's positional
    form) and the values in that order (a name used twice is bound twice). Markers inside string
    literals, quoted identifiers and comments, and ``::`` casts, are left alone. A marker without
    a value, or a value no marker uses, is an error."""
    query = one_statement(query, where)
    order: list[str] = []

    def sub(m: re.Match[str]) -> str:
        name = m.group(1)
        if name is None:
            return m.group(0)
        if name not in params:
            raise ConfigError(f"{where}.query: parameter :{name} has no value; add it to {where}.params")
        order.append(name)
        return "?" if marker == "?" else f"${len(order)}"

    sql = _TOKENS.sub(sub, query)
    unused = sorted(set(params) - set(order))
    if unused:
        raise ConfigError(f"{where}.params: {', '.join(unused)} not used in the query (no :{unused[0]} in it)")
    return sql, tuple(params[n] for n in order)


def one_statement(query: str, where: str) -> str:
    """``query`` without its trailing ``;`` (and what follows it: blanks, comments), which the
    pushed-down ``GROUP BY`` wraps (``FROM (SELECT ...;)`` was a syntax error); a second statement
    is an error (SQLite ran the first and ignored the rest silently; PostgreSQL refuses it with
    "cannot insert multiple commands into a prepared statement", which sent users to the credentials)."""
    for m in _ENDS.finditer(query):
        if m.group(2) is None:
            continue
        if not _BLANK.fullmatch(query, m.end()):
            raise ConfigError(
                f"{where}.query: holds more than one SQL statement (a ';' before "
                f"{one_line(query[m.end() :].strip())[:40]!r}); give one SELECT"
            )
        return query[: m.start()]
    return query


def marker_of(url: str) -> str:
    """The positional parameter marker of an ADBC or DuckDB URL: ``$n`` for PostgreSQL, ``?`` otherwise."""
    return "$" if urlsplit(url).scheme.lower() in ("postgresql", "postgres") else "?"


def sqlite_path(url: str) -> str:
    """The database file of ``sqlite:///relative.db`` / ``sqlite:////absolute.db`` (SQLAlchemy's form)."""
    return urlsplit(url).path[1:]


def _file(url: str, key: str) -> str:
    """The existing database file of a file dialect's URL (a run never creates a database: a
    missing file is an error, not an empty database)."""
    path = os.path.expanduser(sqlite_path(url))
    if not os.path.isfile(path):
        scheme = urlsplit(url).scheme
        raise InputError(
            f"{key}: {path}: database file not found; check the path "
            f"({scheme}:///relative/to/the/config.db or {scheme}:////absolute/path.db)"
        )
    return os.path.abspath(path)


def _target(url: str, key: str) -> str:
    """What the ADBC driver connects to: the URL, or for SQLite the file opened read-only (``mode=ro``)."""
    if urlsplit(url).scheme.lower() != "sqlite":
        return url
    return f"file:{quote(_file(url, key))}?mode=ro"


def _module(name: str, key: str) -> Any:
    """``import name``, or the one-line error naming the extra that installs it."""
    import importlib  # noqa: PLC0415

    try:
        return importlib.import_module(name)
    except ImportError:
        raise ConfigError(
            f"{key}: reading from this database needs the sql extra ({name.partition('.')[0]} is not "
            f"installed): {EXTRA_HINT}"
        ) from None


def _clean(exc: BaseException, secrets: list[str]) -> str:
    """The driver's message as one line without any secret: its first line (libpq repeats the
    query and a caret below), PostgreSQL's ``ERROR:`` prefix dropped, secrets masked."""
    text = str(exc).strip()
    first = text.splitlines()[0] if text else type(exc).__name__
    first = re.sub(r"^[A-Z_]+: ", "", first)  # ADBC status code
    first = first.split("ERROR:", 1)[-1].strip() if "ERROR:" in first else first
    for s in sorted(secrets, key=len, reverse=True):  # the URL first: it holds the others
        if s:
            first = first.replace(s, "***").replace(quote(s, safe=""), "***")
    return " ".join(masked(first).split())


def run_query(db: Database, query: str, params: Mapping[str, Any], where: str) -> Any:
    """The result of ``query`` (``:name`` markers, their values in ``params``) as a pyarrow
    Table, through the URL's client (:func:`path_of`); every failure one line."""
    if path_of(db.url) == "sqlalchemy":
        return _sqlalchemy_rows(db, query, params, where)
    return _native_rows(db, *bind(query, params, where, marker_of(db.url)), where)


def _options(db: Database) -> tuple[dict[str, Any], list[str]]:
    """The connection's options with ``${VAR}`` expanded now, and the secret ones' values."""
    at = db.key.rpartition(".")[0]
    options = {
        k: expand_vars(v, os.environ, f"{at}.options.{k}") if isinstance(v, str) else v for k, v in db.options.items()
    }
    return options, [str(v) for k, v in options.items() if is_secret_key(k)]


def _native_rows(db: Database, sql: str, values: tuple[Any, ...], where: str) -> Any:
    """The result of ``sql`` (positional markers, :func:`bind`) through ADBC or DuckDB."""
    kind = path_of(db.url)
    url, secrets = resolve_url(db.url, db.key)
    options, hidden = _options(db)
    secrets = [*secrets, url, *hidden]
    cancels: list[Callable[[], None]] = []
    if kind == "duckdb":
        duckdb = _module("duckdb", db.key)
        path = _file(url, db.key)

        def fetch_table() -> Any:
            con = duckdb.connect(path, read_only=True, config=options)
            cancels.append(con.interrupt)
            try:
                rel = con.sql(sql, params=list(values) or None)
                # DuckDB 2 names it to_arrow_table, 1.x arrow
                return (getattr(rel, "to_arrow_table", None) or rel.arrow)()
            finally:
                con.close()

    else:
        dbapi = _module(DRIVERS[urlsplit(url).scheme.lower()], db.key)
        target = _target(url, db.key)
        sqlite = urlsplit(url).scheme.lower() == "sqlite"

        def fetch_table() -> Any:
            kwargs = {"db_kwargs": {k: str(v) for k, v in options.items()}} if options else {}
            with dbapi.connect(target, **kwargs) as conn:
                cur = conn.cursor()
                cancels.append(cur.adbc_cancel)
                try:
                    if sqlite:  # the driver types each column by its first batch and refuses a change later
                        cur.adbc_statement.set_options(**{"adbc.sqlite.query.batch_rows": str(SQLITE_BATCH_ROWS)})
                    cur.execute(sql, parameters=values or None)
                    return cur.fetch_arrow_table()
                finally:
                    cur.close()

    def cancel() -> bool:
        try:
            for c in cancels:
                c()  # PostgreSQL and DuckDB stop the query; SQLite cannot (NOT_IMPLEMENTED)
        except Exception:  # noqa: BLE001  (best effort: the process is stopping)
            return False
        return bool(cancels)

    try:
        table = _interruptible(fetch_table, cancel)
    except UserError:
        raise
    except Exception as exc:  # noqa: BLE001  (the drivers' errors: adbc_driver_manager.Error, duckdb.Error, OSError)
        raise InputError(
            f"{where} ({redact(db.url)}): {_clean(exc, secrets)}; check the query, the table and the credentials"
        ) from None
    return _stored(table)


def _sa_text(query: str, params: Mapping[str, Any], where: str) -> Any:
    """``query`` as a SQLAlchemy ``text()`` clause with its ``:name`` parameters bound: the
    markers found by the one rule of :func:`bind` (its checks: one statement, every marker
    given, every value used), every other ``:`` escaped (``\\:``) so SQLAlchemy binds nothing else
    (a ``':'`` in a literal, a ``::`` cast)."""
    from sqlalchemy import bindparam, text  # noqa: PLC0415

    bind(query, params, where)  # the checks
    query = one_statement(query, where)
    out, at = [], 0
    for m in _TOKENS.finditer(query):
        out.append(query[at : m.start()].replace(":", "\\:"))
        out.append(m.group(0) if m.group(1) is not None else m.group(0).replace(":", "\\:"))
        at = m.end()
    out.append(query[at:].replace(":", "\\:"))
    clause = text("".join(out))
    # each value typed by itself (a None as NULL): SQLAlchemy's bindparam infers the type of a value
    return clause.bindparams(*(bindparam(k, v) for k, v in params.items()))


def _engine(db: Database) -> tuple[Any, list[str]]:
    """A SQLAlchemy engine for ``db`` (no pool: one connection, closed after the query) and the
    secrets to scrub; a bad URL, an unknown dialect or a missing driver is one line naming the key."""
    _module("sqlalchemy", db.key)
    import sqlalchemy as sa  # noqa: PLC0415
    from sqlalchemy.pool import NullPool  # noqa: PLC0415

    url, secrets = resolve_url(db.url, db.key)
    options, hidden = _options(db)
    secrets = [*secrets, url, *hidden]
    scheme = urlsplit(db.url).scheme
    if dialect_of(db.url) == "sqlite":
        path = _file(url, db.key)  # read-only, never created: SQLite's own URI form
        url = f"{scheme}:///file:{quote(path)}?mode=ro&uri=true"
    try:
        sa_url = sa.engine.make_url(url)
    except (sa.exc.ArgumentError, ValueError):
        raise ConfigError(
            f"{db.key}: not a database URL SQLAlchemy reads; write dialect+driver://user@host/db"
        ) from None
    try:
        engine = sa.create_engine(sa_url, poolclass=NullPool, connect_args=options)
    except sa.exc.NoSuchModuleError:
        raise ConfigError(
            f"{db.key}: {scheme}:// names no SQLAlchemy dialect installed here; check the spelling "
            f"(dialect+driver://) or install the dialect's package (e.g. snowflake-sqlalchemy for snowflake://)"
        ) from None
    except ImportError as exc:  # the dialect's DB-API driver
        module = (exc.name or "").partition(".")[0]
        hint = EXTRA_HINT if module in EXTRA_MODULES else f"pip install the driver that provides '{module}'"
        raise ConfigError(
            f"{db.key}: {scheme}:// needs the Python driver {module or 'of its dialect'}: {hint}"
        ) from None
    except (sa.exc.ArgumentError, TypeError, ValueError) as exc:
        raise ConfigError(f"{db.key}: {_clean(exc, secrets)}") from None
    return engine, secrets


def _sqlalchemy_rows(db: Database, query: Any, params: Mapping[str, Any], where: str, spool: Path | None = None) -> Any:
    """Rows through SQLAlchemy: ``query`` (SQL text with ``:name`` markers, or a Core statement)
    run with ``stream_results`` and read :data:`CURSOR_BATCH_ROWS` rows at a time, each batch an
    Arrow table at once (:func:`arrow_rows`). Returned as one table (the batches joined by one
    type per column, :func:`joined`), or with ``spool``, written there as Parquet one batch at a
    time (:func:`spooled`) and ``(columns, (rows, sha256, bytes))`` returned: no more than a
    batch of the result is held in memory."""
    engine, secrets = _engine(db)
    stmt = _sa_text(query, params, where) if isinstance(query, str) else query

    def fetch_table() -> Any:
        with engine.connect() as conn:
            result = conn.execution_options(stream_results=True, yield_per=CURSOR_BATCH_ROWS).execute(stmt)
            names = list(result.keys())
            # fetchmany: partitions() without a size gave one-row batches on pysqlite (SQLAlchemy 2.1)
            parts = (arrow_rows(names, rows) for rows in iter(lambda: result.fetchmany(CURSOR_BATCH_ROWS), []))
            if spool is None:
                return joined(names, list(parts))
            one_name_each(names, where)
            return names, spooled(names, parts, spool, where)

    def cancel() -> bool:
        return False  # DB-API has no portable cancel: the query is left to its daemon thread

    import sqlalchemy as sa  # noqa: PLC0415

    try:
        return _interruptible(fetch_table, cancel)
    except sa.exc.NoSuchModuleError:
        raise ConfigError(
            f"{db.key}: {urlsplit(db.url).scheme}:// names no SQLAlchemy dialect installed here"
        ) from None
    except (sa.exc.SQLAlchemyError, OSError) as exc:
        orig = getattr(exc, "orig", None) or exc
        raise InputError(
            f"{where} ({redact(db.url)}): {_clean(orig, secrets)}; check the query, the table and the credentials"
        ) from None
    finally:
        engine.dispose()


def arrow_rows(names: list[str], rows: list[Any]) -> Any:
    """Rows of Python values (a DB-API batch) as a pyarrow Table, column by column: a column's
    values as Arrow infers them (ints and floats together are floats), a ``Decimal`` column
    (NUMERIC) as its text, as the ADBC path gives PostgreSQL's NUMERIC; a column mixing text
    and numbers (SQLite's dynamic types) as text, each number written as the shortest text that
    reads back as it, so the row rule reads it as the file's reader reads the same cell."""
    import decimal  # noqa: PLC0415

    import pyarrow as pa  # noqa: PLC0415

    columns = list(zip(*rows)) if rows else [() for _ in names]
    arrays = []
    for values in columns:
        if any(isinstance(v, decimal.Decimal) for v in values):
            values = tuple(None if v is None else str(v) for v in values)
        try:
            arrays.append(pa.array(values))
        except (pa.ArrowInvalid, pa.ArrowTypeError):
            arrays.append(pa.array([None if v is None else str(v) for v in values], pa.string()))
    return pa.Table.from_arrays(arrays, names=names)


def _one_type(types: set[Any]) -> Any:
    """The type of a column typed ``types`` by the batches of one result: one type as it is,
    numbers of two kinds as floats (as Arrow infers a list of ints and floats), anything else
    with text as text."""
    import pyarrow as pa  # noqa: PLC0415

    kinds = types - {pa.null()}
    if len(kinds) <= 1:
        return kinds.pop() if kinds else pa.null()
    if all(pa.types.is_integer(k) or pa.types.is_floating(k) or pa.types.is_boolean(k) for k in kinds):
        return pa.float64()
    return pa.string()


def joined(names: list[str], parts: list[Any]) -> Any:
    """Batches of one result joined with one type per column (:func:`_one_type`)."""
    import pyarrow as pa  # noqa: PLC0415

    types = [_one_type({t.column(j).type for t in parts}) for j in range(len(names))]
    schema = pa.schema([pa.field(n, t) for n, t in zip(names, types)])
    tables = [
        pa.Table.from_arrays([t.column(j).cast(types[j]) for j in range(len(names))], schema=schema) for t in parts
    ]
    return pa.Table.from_batches([b for t in tables for b in t.to_batches()], schema=schema)


class _Digest:
    """A write-only file that keeps the SHA-256 and the length of what is written to it."""

    def __init__(self) -> None:
        self.sha = hashlib.sha256()
        self.size = 0
        self.closed = False

    def write(self, data: Any) -> int:
        view = memoryview(data)
        self.sha.update(view)
        self.size += view.nbytes
        return view.nbytes

    def flush(self) -> None:
        pass

    def close(self) -> None:
        self.closed = True


def spooled(names: list[str], parts: Iterator[Any], path: Path, where: str) -> tuple[int, str, int]:
    """Batches of one result (their types may differ: :func:`arrow_rows` types each batch by
    its values) written to ``path`` as Parquet with one type per column (:func:`_one_type`),
    holding one batch at a time: each batch is first written beside ``path`` as an Arrow file,
    then read back, cast, and written to the Parquet file. Returns (rows, SHA-256 of the Arrow
    IPC stream of the result, its bytes): the audit's record of the result."""
    import pyarrow as pa  # noqa: PLC0415
    import pyarrow.parquet as pq  # noqa: PLC0415

    files: list[Path] = []
    types: list[set[Any]] = [set() for _ in names]
    try:
        for k, t in enumerate(parts):
            files.append(path.with_name(f"{path.stem}.{k}.arrow"))
            with pa.OSFile(str(files[-1]), "wb") as out, pa.ipc.new_file(out, t.schema) as w:
                w.write_table(t)
            for j in range(len(names)):
                types[j].add(t.column(j).type)
        schema = pa.schema([pa.field(n, _one_type(ts)) for n, ts in zip(names, types)])
        digest, rows = _Digest(), 0
        with pq.ParquetWriter(str(path), schema) as pw, pa.ipc.new_stream(pa.PythonFile(digest, "w"), schema) as sw:
            for f in files:
                with pa.memory_map(str(f)) as src:
                    t = pa.ipc.open_file(src).read_all()
                    t = pa.Table.from_arrays(
                        [t.column(j).cast(schema.field(j).type) for j in range(len(names))], schema=schema
                    )
                    pw.write_table(t)
                    sw.write_table(t)
                    rows += t.num_rows
                f.unlink()
    except OSError as exc:
        raise scratch_error(exc, f"the rows of {where}") from None
    finally:
        for f in files:
            f.unlink(missing_ok=True)
    return rows, digest.sha.hexdigest(), digest.size


def one_name_each(names: list[str], where: str) -> None:
    """A result whose columns repeat a name is an error: the readers find a column by its name."""
    twice = sorted({c for c in names if names.count(c) > 1})
    if twice:  # an internal error once
        raise InputError(
            f"{where}: the query returns more than one column named {', '.join(map(repr, twice))}; "
            f"give each column its own name (SELECT ... AS another_name)"
        )


def _stored(table: Any) -> Any:
    """``table`` with each column of an extension type as its storage: PostgreSQL's NUMERIC comes
    as an opaque type over its text (``'1.0'``), which the readers' kernels do not take (a NUMERIC
    label or id column stopped every engine with an internal error); as text it is read by the
    rules of text (a number, a label key, an id key). A UUID (16 bytes, not text: "Invalid UTF8
    payload", an internal error too) becomes the text PostgreSQL shows for it. A DECIMAL column
    (DuckDB's, an Arrow driver's) is its text likewise."""
    import uuid  # noqa: PLC0415

    import pyarrow as pa  # noqa: PLC0415

    for j, field in enumerate(table.schema):
        if pa.types.is_decimal(field.type):  # DuckDB's and Arrow drivers' DECIMAL: as its text, as NUMERIC
            table = table.set_column(j, field.name, table.column(j).cast(pa.string()))
            continue
        if not isinstance(field.type, pa.BaseExtensionType):
            continue
        col = table.column(j)
        if field.type.extension_name == "arrow.uuid":  # 16 bytes: as the text PostgreSQL writes
            text = [None if b is None else str(uuid.UUID(bytes=b)) for c in col.chunks for b in c.storage.to_pylist()]
            table = table.set_column(j, field.name, pa.array(text, pa.string()))
        else:
            table = table.set_column(
                j, field.name, pa.chunked_array([c.storage for c in col.chunks], field.type.storage_type)
            )
    return table


def _interruptible(work: Callable[[], Any], cancel: Callable[[], bool]) -> Any:
    """``work()`` in a daemon thread, waited for here, so that a signal is answered at once.

    A query runs inside one call into the driver's C code, and Python runs signal handlers only
    between bytecodes of the main thread: a SIGTERM (a scheduler's timeout) sent during a long
    query stopped the run only when the query ended, minutes later maybe (a Kubernetes pod is
    killed 30 s after its SIGTERM). Here the main thread waits on an event, which a signal
    interrupts: the query is cancelled where the driver can (``cancel()`` is True: PostgreSQL)
    and given a moment to end, and otherwise left to its daemon thread, which does not keep the
    process alive.
    """
    box: dict[str, Any] = {}
    done = threading.Event()

    def run() -> None:
        try:
            box["value"] = work()
        except BaseException as exc:  # noqa: BLE001  (handed to the waiting thread)
            box["error"] = exc
        finally:
            done.set()

    worker = threading.Thread(target=run, name="reportgen-sql", daemon=True)
    worker.start()
    try:
        while not done.wait(0.5):
            pass
    except BaseException:  # a signal's exception (Interrupted, KeyboardInterrupt)
        if cancel():  # a cancelled query ends soon: its connection closed before the run stops
            worker.join(_CANCEL_WAIT_S)
        raise
    if "error" in box:
        raise box["error"]
    return box["value"]


def fetch(cfg: Config, i: int, path: Path) -> Fetched:
    """Model ``i``'s rows from its source written to ``path`` as Parquet, with their audit facts.
    Through SQLAlchemy one batch at a time (:func:`spooled`); ADBC and DuckDB hand back one
    Arrow table."""
    import pyarrow as pa  # noqa: PLC0415
    import pyarrow.parquet as pq  # noqa: PLC0415

    m = cfg.models[i]
    assert m.source is not None
    db = database(cfg, i)
    where = cfg.where("models", i, "source")
    label = describe(m.source, db)
    if path_of(db.url) == "sqlalchemy":
        names, (rows, sha, size) = _sqlalchemy_rows(db, m.source.query, m.source.params, where, spool=path)
    else:
        table = run_query(db, m.source.query, m.source.params, where)
        names, rows = table.column_names, table.num_rows
        if rows == 0:
            raise InputError(f"{where}: the query returned no rows; check its WHERE clause and params")
        one_name_each(names, where)
        mixed = [c for c in _read_columns(cfg, m) if c in names and pa.types.is_string(table.column(c).type)]
        if mixed and urlsplit(db.url).scheme.lower() == "sqlite":  # ADBC's SQLite driver
            query, params = bind(m.source.query, m.source.params, where, "?")
            table = _sqlite_reals(db, query, params, where, mixed)
        sink = pa.BufferOutputStream()
        with pa.ipc.new_stream(sink, table.schema) as w:
            w.write_table(table)
        buf = sink.getvalue()
        sha, size = hashlib.sha256(memoryview(buf)).hexdigest(), buf.size
        try:
            pq.write_table(table, path)
        except OSError as exc:
            raise scratch_error(exc, f"the rows of {where} ({label})") from None
    if rows == 0:
        raise InputError(f"{where}: the query returned no rows; check its WHERE clause and params")
    return Fetched(tuple(names), rows, label, sha, size)


def _read_columns(cfg: Config, m: ModelConfig) -> list[str]:
    """The columns model ``m`` reads: score, weight, class scores, label, id, prediction, date."""
    from reportgen.io.validate import columns_for, score_columns  # noqa: PLC0415

    scores = score_columns(m)
    return list(
        dict.fromkeys([*columns_for(cfg, m).values(), *(scores.values() if isinstance(scores, dict) else scores or [])])
    )


def _sqlite_reals(db: Database, query: str, params: tuple[Any, ...], where: str, columns: list[str]) -> Any:
    """The query's result with the reals of SQLite columns that also hold text kept whole.

    SQLite keeps text beside numbers in one column (a REAL column loaded with 'NA'), and its driver
    hands such a column back as text with its reals written to 7 digits (``1.234568e+00``): the
    rows then read 1.234568 where the file and the pushed-down query read 1.23456789, and the id
    12345678.0 became 12345680. The query
    is run again with each such column's reals beside it (``typeof``), which replace the text."""
    import pyarrow as pa  # noqa: PLC0415
    import pyarrow.compute as pc  # noqa: PLC0415

    extra = ", ".join(
        f"CASE WHEN typeof({_ident(c)}) = 'real' THEN {_ident(c)} END AS {_ident(f'reportgen_real_{j}')}"
        for j, c in enumerate(columns)
    )
    table = _native_rows(db, f"SELECT *, {extra} FROM ({query}) AS reportgen_rows", params, where)
    for j, c in enumerate(columns):
        real = table.column(f"reportgen_real_{j}")
        if pa.types.is_floating(real.type):  # the shortest text that reads back as the same double
            whole = pc.if_else(pc.is_valid(real), pc.cast(real, pa.string()), table.column(c))
            table = table.set_column(table.column_names.index(c), c, whole)
    return table.drop_columns([f"reportgen_real_{j}" for j in range(len(columns))])


def _ident(name: str) -> str:
    """A quoted SQL identifier."""
    return '"' + name.replace('"', '""') + '"'


@contextmanager
def materialised(cfg: Config) -> Iterator[tuple[Config, dict[str, Fetched]]]:
    """``cfg`` with each SQL model's ``file`` pointing at its result written as Parquet in a
    private temporary directory (removed on exit), and {temporary path: what was fetched}.
    A config without SQL sources is handed back unchanged."""
    if not any(m.source is not None for m in cfg.models):
        yield cfg, {}
        return
    with tempfile.TemporaryDirectory(prefix="reportgen-sql-") as tmp:
        models: list[ModelConfig] = []
        fetched: dict[str, Fetched] = {}
        shown: dict[str, str] = {}
        for i, m in enumerate(cfg.models):
            if m.source is None:
                models.append(m)
                continue
            path = Path(tmp) / f"model-{i}.parquet"
            f = fetch(cfg, i, path)
            where = f"{cfg.where('models', i, 'source')} ({f.label})"
            check_columns(cfg, i, m, where, list(f.columns))
            fetched[str(path)] = f
            shown[str(path)] = where
            models.append(dataclasses.replace(m, file=path))
        try:
            yield dataclasses.replace(cfg, models=models), fetched
        except InputError as exc:  # a data problem found by a reader: name the source, not the temporary file
            msg = str(exc)
            for file, where in shown.items():
                msg = query_rows(msg, file, where)
            raise InputError(msg) from None


def query_rows(msg: str, path: str, where: str) -> str:
    """A reader's message about the file ``path`` (a query's rows written as Parquet) about the
    query ``where``: the readers number a file's rows as a CSV's lines (its header is line 1, its
    first row 2), a query's rows are numbered from 1 (row 1 = the first row of the result)."""
    pattern = re.compile(re.escape(path) + r"(: (?:column '[^']*', |model '[^']*': )?row )(\d+)")
    msg = pattern.sub(lambda m: f"{where}{m.group(1)}{int(m.group(2)) - HEADER_ROWS + 1}", msg)
    return msg.replace(path, where)


def relabel(evidence: Any, fetched: Mapping[str, Fetched]) -> Any:
    """Evidence with every temporary path replaced by its source's description, and the audit's
    hash and size those of the fetched result (not of the temporary Parquet file)."""
    if not fetched:
        return evidence
    models = tuple(
        dataclasses.replace(m, file=fetched[m.file].label) if m.file in fetched else m for m in evidence.models
    )
    files = tuple(
        dataclasses.replace(
            f, path=fetched[f.path].label, sha256=fetched[f.path].sha256, size_bytes=fetched[f.path].size_bytes
        )
        if f.path in fetched
        else f
        for f in evidence.audit.files
    )
    return dataclasses.replace(evidence, models=models, audit=dataclasses.replace(evidence.audit, files=files))


def pushdown_query(
    source: SourceConfig, cols: Mapping[str, str], where: str, db: Database | None = None
) -> tuple[str, tuple[Any, ...]]:
    """The binary score table's rows computed by an ADBC or DuckDB database: the user's query
    wrapped in ``SELECT score, label[, weight], COUNT(*) ... GROUP BY score, label[, weight]``,
    so that one row per distinct (score, label) — with a weight column, per distinct (score,
    label, weight): the weight cells every engine counts — crosses the network. The values come
    back as stored and are read by the row rule (:func:`reportgen.io.validate.numeric`), never
    cast by the database (PostgreSQL refused ``CAST('NA' AS DOUBLE PRECISION)``; SQLite made 0 of it).

    SQLite keeps text beside numbers in one column, and its ADBC driver turns such a column's
    numbers into text with 7 digits (``2.000000e+00``), or refuses a column whose type changes
    after its first rows: each value column is returned there as its ``typeof``
    (``<role>_type``), its text (``<role>_text``) and its number (``<role>_num``), none ever
    NULL; the label as text. Column names are quoted identifiers, never values. (The
    SQLAlchemy dialects' statement is built by SQLAlchemy Core: :func:`grouped`.)"""

    ident = _ident
    url = _db(source, db).url
    inner, params = bind(source.query, source.params, where, marker_of(url))
    sqlite = urlsplit(url).scheme.lower() == "sqlite"
    roles = ["score", "label", *(["weight"] if "weight" in cols else [])]
    out = []
    for role in roles:
        c = ident(cols[role])
        if sqlite and role == "label":  # text, '' for NULL (missing, as an empty label is)
            out.append(f"COALESCE(CAST({c} AS TEXT), '') AS {role}")
        elif sqlite:  # never NULL: the driver types a column by its first rows, and refuses a change later
            out += [
                f"typeof({c}) AS {role}_type",
                f"COALESCE(CASE WHEN typeof({c}) IN ('text', 'blob') THEN CAST({c} AS TEXT) END, '') AS {role}_text",
                f"COALESCE(CASE WHEN typeof({c}) IN ('integer', 'real') THEN CAST({c} AS REAL) END, 0.0) AS {role}_num",
            ]
        else:
            out.append(f"{c} AS {role}")
    groups = ", ".join(ident(cols[r]) for r in roles)
    return f"SELECT {', '.join(out)}, COUNT(*) AS n FROM ({inner}\n) AS reportgen_rows GROUP BY {groups}", params


def grouped_statement(source: SourceConfig, cols: Mapping[str, str], where: str) -> Any:
    """The pushed-down ``GROUP BY`` as a SQLAlchemy Core statement, compiled by each dialect
    (its quoting, its derived-table syntax, its parameter style): the user's query as a textual
    subquery with the model's columns declared, ``SELECT score, label[, weight], COUNT(*) AS n``
    grouped by the same columns, values as stored (see :func:`pushdown_query`)."""
    from sqlalchemy import column, func, select  # noqa: PLC0415

    roles = ["score", "label", *(["weight"] if "weight" in cols else [])]
    names = list(dict.fromkeys(cols[r] for r in roles))
    rows = _sa_text(source.query, source.params, where).columns(*(column(c) for c in names)).subquery("reportgen_rows")
    return select(*(rows.c[cols[r]].label(r) for r in roles), func.count().label("n")).group_by(
        *(rows.c[cols[r]] for r in roles)
    )


class NotPushed(Exception):
    """A dialect that cannot compile the pushed-down ``GROUP BY``: the message says so, and the
    runner reads the rows instead (:func:`reportgen.pipeline.load_evidence`)."""


def grouped(db: Database, source: SourceConfig, cols: Mapping[str, str], where: str) -> Any:
    """The score table's grouped rows from ``db`` as a pyarrow Table (see :func:`pushdown_query`);
    :class:`NotPushed` when the dialect cannot compile the statement."""
    if path_of(db.url) == "sqlalchemy":
        _module("sqlalchemy", db.key)
        import sqlalchemy as sa  # noqa: PLC0415

        stmt = grouped_statement(source, cols, where)
        engine, _secrets = _engine(db)
        try:
            stmt.compile(dialect=engine.dialect)
        except (sa.exc.CompileError, NotImplementedError) as exc:
            raise NotPushed(
                f"{where}.pushdown: the {engine.dialect.name} dialect cannot compile the grouped query "
                f"({one_line(str(exc))[:120]}); its rows are read instead"
            ) from None
        finally:
            engine.dispose()
        return _sqlalchemy_rows(db, stmt, {}, where)
    return _native_rows(db, *pushdown_query(source, cols, where, db), where)
