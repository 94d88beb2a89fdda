"""SQL sources: a model's predictions read from a database (``source: {url, query, params}``).

The client is ADBC (``adbc-driver-postgresql`` and ``adbc-driver-sqlite``, the ``sql`` extra;
``postgresql://`` and ``sqlite:///`` URLs): for PostgreSQL it speaks the
binary COPY protocol and hands back Arrow record batches, which is what every reader of
reportgen already takes, with no per-row Python objects (SQLAlchemy + psycopg builds a tuple
per row) and a small footprint (one wheel bundling libpq, no ORM). connectorx, as fast, cannot
bind parameters, which the contract requires. The documentation's performance page has the measurements.

Three promises, kept here and only here:

* **bound parameters only**: ``:name`` in the query becomes the driver's positional marker
  (``$1``) and the value travels separately; the SQL text is never formatted with a value.
* **no secret leaves**: ``${VAR}`` in the URL is expanded only when connecting
  (:data:`reportgen.config.DEFERRED_KEYS`), the password percent-encoded; every message is
  scrubbed of the password and the expanded URL; the audit keeps the redacted URL
  (no password, no query string), the query text and a SHA-256 of the result.
* **one-line errors, exit 2**: a bad query, a wrong password, a missing table or an
  unreachable server is an :class:`~reportgen.errors.InputError` naming the config key.

:func:`materialised` is the hook the runners use: each SQL model's result is written once to
a Parquet file in a private temporary directory and the config handed to the loaders names
that file, so the memory, stream and Dask engines read a database exactly as they read the
same data from Parquet. :func:`relabel` then puts the source's description back in place of
the temporary path in the evidence (files, audit). :func:`pushdown_query` is the pushed-down
reduction (``GROUP BY score, label[, weight]``); :func:`query_rows` numbers a query's rows from 1.
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

from reportgen.config import Config, ModelConfig, SourceConfig, expand_vars
from reportgen.errors import ConfigError, InputError
from reportgen.io.pairs import scratch_error
from reportgen.io.validate import HEADER_ROWS, check_columns
from reportgen.redact import is_secret_key, masked
from reportgen.terminal import one_line

#: Schemes this version connects to, with the ADBC driver module of each (the ``sql`` extra
#: installs both drivers).
DRIVERS = {
    "postgresql": "adbc_driver_postgresql.dbapi",
    "postgres": "adbc_driver_postgresql.dbapi",
    "sqlite": "adbc_driver_sqlite.dbapi",
}

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


@dataclasses.dataclass(frozen=True, slots=True)
class Fetched:
    """One SQL model's result: the Arrow table and what the audit keeps of it."""

    table: Any  # pyarrow.Table
    label: str  # "postgresql://user@host/db: SELECT ..." (no secret)
    sha256: str  # of the result (Arrow IPC stream bytes)
    size_bytes: int


def redact(url: str) -> str:
    """The URL without password or query string: ``postgresql://user@host:5432/db``."""
    p = urlsplit(url)
    if p.scheme.lower() == "sqlite":  # a file, no authority (urlunsplit would fold "sqlite:////abs" into a host)
        return f"sqlite://{p.path}"
    # the authority as written, less the password: never p.port, which raises on a port given as
    # ${DB_PORT} (expanded only when connecting) and on one out of range (an internal error, exit 1)
    userinfo, at, hostport = p.netloc.rpartition("@")
    user = userinfo.partition(":")[0]
    netloc = (f"{user}@" if at and user else "") + hostport
    return urlunsplit((p.scheme, netloc, p.path, "", ""))


def describe(source: SourceConfig) -> str:
    """What the audit and the report show for a source: redacted URL and the query on one line."""
    return f"{redact(source.url)}: {' '.join(source.query.split())}"


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
    if p.scheme.lower() == "sqlite":
        return f"sqlite://{rest[0]}" + (f"?{rest[1]}" if rest[1] else ""), secrets
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


def marker_of(source: SourceConfig) -> str:
    """The positional parameter marker of the source's database: ``?`` for SQLite, ``$n`` otherwise."""
    return "?" if urlsplit(source.url).scheme.lower() == "sqlite" else "$"


def sqlite_path(url: str) -> str:
    """The database file of ``sqlite:///relative.db`` / ``sqlite:////absolute.db`` (SQLAlchemy's form)."""
    return urlsplit(url).path[1:]


def _target(url: str, where: str) -> str:
    """What the driver connects to: the URL, or for SQLite the file opened read-only (``mode=ro``:
    a run never creates or changes a database; a missing file is an error, not an empty database)."""
    if urlsplit(url).scheme.lower() != "sqlite":
        return url
    path = os.path.expanduser(sqlite_path(url))
    if not os.path.isfile(path):
        raise InputError(
            f"{where}.url: {path}: database file not found; check the path "
            f"(sqlite:///relative/to/the/config.db or sqlite:////absolute/path.db)"
        )
    return f"file:{quote(os.path.abspath(path))}?mode=ro"


def _driver(url: str, where: str) -> Any:
    scheme = urlsplit(url).scheme.lower()
    module = DRIVERS.get(scheme)
    if module is None:
        raise ConfigError(f"{where}.url: {scheme}:// databases are not supported; use postgresql:// or sqlite:///")
    try:
        import importlib  # noqa: PLC0415

        return importlib.import_module(module)
    except ImportError:
        raise ConfigError(
            f"{where}: reading from a database needs the sql extra: pip install 'classifier-comparison-report[sql]'"
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


def run_query(source: SourceConfig, query: str, params: tuple[Any, ...], where: str) -> Any:
    """The query's result as a pyarrow Table; every failure one :class:`InputError` line."""
    url, secrets = resolve_url(source.url, f"{where}.url")
    dbapi = _driver(url, where)
    target = _target(url, where)
    secrets = [*secrets, url]
    cursors: list[Any] = []
    sqlite = urlsplit(url).scheme.lower() == "sqlite"

    def fetch_table() -> Any:
        with dbapi.connect(target) as conn:
            cur = conn.cursor()
            cursors.append(cur)
            try:
                if sqlite:  # the driver types each column by its first batch and refuses a change later
                    cur.adbc_statement.set_options(**{"adbc.sqlite.query.batch_rows": str(SQLITE_BATCH_ROWS)})
                cur.execute(query, parameters=params or None)
                return cur.fetch_arrow_table()
            finally:
                cur.close()

    def cancel() -> bool:
        try:
            for cur in cursors:
                cur.adbc_cancel()  # PostgreSQL: the server stops the query; SQLite cannot (NOT_IMPLEMENTED)
        except Exception:  # noqa: BLE001  (best effort: the process is stopping)
            return False
        return bool(cursors)

    try:
        table = _interruptible(fetch_table, cancel)
    except Exception as exc:  # noqa: BLE001  (the driver's errors: adbc_driver_manager.Error and OSError alike)
        raise InputError(
            f"{where} ({redact(source.url)}): {_clean(exc, secrets)}; check the query, the table and the credentials"
        ) from None
    return _stored(table)


def _stored(table: Any) -> Any:
    """``table`` with each column of an extension type as its storage: PostgreSQL's NUMERIC comes
    as an opaque type over its text (``'1.0'``), which the readers' kernels do not take (a NUMERIC
    label or id column stopped every engine with an internal error); as text it is read by the
    rules of text (a number, a label key, an id key). A UUID (16 bytes, not text: "Invalid UTF8
    payload", an internal error too) becomes the text PostgreSQL shows for it."""
    import uuid  # noqa: PLC0415

    import pyarrow as pa  # noqa: PLC0415

    for j, field in enumerate(table.schema):
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


def fetch(cfg: Config, i: int) -> Fetched:
    """Model ``i``'s rows from its source, with their audit facts."""
    import pyarrow as pa  # noqa: PLC0415

    m = cfg.models[i]
    assert m.source is not None
    where = cfg.where("models", i, "source")
    query, params = bind(m.source.query, m.source.params, where, marker_of(m.source))
    table = run_query(m.source, query, params, where)
    if table.num_rows == 0:
        raise InputError(f"{where}: the query returned no rows; check its WHERE clause and params")
    twice = sorted({c for c in table.column_names if table.column_names.count(c) > 1})
    if twice:  # the readers find a column by its name: a second one was an internal error
        raise InputError(
            f"{where}: the query returns more than one column named {', '.join(map(repr, twice))}; "
            f"give each column its own name (SELECT ... AS another_name)"
        )
    mixed = [c for c in _read_columns(cfg, m) if c in table.column_names and pa.types.is_string(table.column(c).type)]
    if mixed and marker_of(m.source) == "?":
        table = _sqlite_reals(m.source, query, params, where, mixed)
    sink = pa.BufferOutputStream()
    with pa.ipc.new_stream(sink, table.schema) as w:
        w.write_table(table)
    buf = sink.getvalue()
    return Fetched(table, describe(m.source), hashlib.sha256(memoryview(buf)).hexdigest(), buf.size)


def _read_columns(cfg: Config, m: ModelConfig) -> list[str]:
    """The columns model ``m`` reads: score, weight, class scores, label, id, prediction, date."""
    from reportgen.io.validate import columns_for, score_columns  # noqa: PLC0415

    scores = score_columns(m)
    return list(
        dict.fromkeys([*columns_for(cfg, m).values(), *(scores.values() if isinstance(scores, dict) else scores or [])])
    )


def _sqlite_reals(source: SourceConfig, query: str, params: tuple[Any, ...], where: str, columns: list[str]) -> Any:
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
    table = run_query(source, f"SELECT *, {extra} FROM ({query}) AS reportgen_rows", params, where)
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
    import pyarrow.parquet as pq  # noqa: PLC0415

    with tempfile.TemporaryDirectory(prefix="reportgen-sql-") as tmp:
        models: list[ModelConfig] = []
        fetched: dict[str, Fetched] = {}
        shown: dict[str, str] = {}
        for i, m in enumerate(cfg.models):
            if m.source is None:
                models.append(m)
                continue
            f = fetch(cfg, i)
            where = f"{cfg.where('models', i, 'source')} ({f.label})"
            check_columns(cfg, i, m, where, f.table.column_names)
            path = Path(tmp) / f"model-{i}.parquet"
            try:
                pq.write_table(f.table, path)
            except OSError as exc:
                raise scratch_error(exc, f"the rows of {where}") from None
            fetched[str(path)] = f
            shown[str(path)] = where
            models.append(m.model_copy(update={"file": path}))
        try:
            yield cfg.model_copy(update={"models": models}), fetched
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


def pushdown_query(source: SourceConfig, cols: Mapping[str, str], where: str) -> tuple[str, tuple[Any, ...]]:
    """The binary score table's rows computed by the database: the user's query wrapped in
    ``SELECT score, label[, weight], COUNT(*) ... GROUP BY score, label[, weight]``, so that one
    row per distinct (score, label) — with a weight column, per distinct (score, label, weight):
    the weight cells every engine counts — crosses the network. The values come back as stored
    and are read by the row rule (:func:`reportgen.io.validate.numeric`), never cast by the
    database (PostgreSQL refused ``CAST('NA' AS DOUBLE PRECISION)``; SQLite made 0 of it).

    SQLite keeps text beside numbers in one column, and its driver turns such a column's numbers
    into text with 7 digits (``2.000000e+00``), or refuses a column whose type changes after its
    first rows: each value column is returned there as its ``typeof`` (``<role>_type``), its text
    (``<role>_text``) and its number (``<role>_num``), none ever NULL; the label as text.
    Column names are quoted identifiers, never values."""

    ident = _ident
    inner, params = bind(source.query, source.params, where, marker_of(source))
    sqlite = marker_of(source) == "?"
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
