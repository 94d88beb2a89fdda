"""The run configuration: its sections, strict and frozen, and the config file read into them.

Every section is a frozen dataclass whose keys are checked by one validator
(:func:`reportgen.config_base.validated`): unknown keys are errors that suggest the closest valid
key, and each problem is said in the config's words (a mapping, a list, a number, text), with its
key path. Each default lives here and nowhere else. YAML is read by :mod:`reportgen.config_yaml`.
Relative data paths resolve against the directory of the config file; the output directory
against the working directory (or ``--out``).
"""

import dataclasses
import itertools
import os
import re
import stat
import string
import typing
import unicodedata
from collections.abc import Mapping, Sequence
from dataclasses import dataclass
from pathlib import Path
from typing import Annotated, Any, Literal, Self
from urllib.parse import parse_qsl, quote, urlencode, urlsplit, urlunsplit

import reportgen.catalog as catalog
from reportgen.config_base import (
    InvalidConfig,
    InvalidKey,
    Problem,
    ScalarLabel,
    close_matches,
    format_loc,
    json_data,
    json_schema_of,
    key,
    section_keys,
    validated,
)
from reportgen.config_yaml import from_set, read_yaml, yaml_line
from reportgen.errors import ConfigError, UserError
from reportgen.logo import image_kind, read_logo
from reportgen.redact import VAR_ONLY, is_secret_key, masked
from reportgen.result_base import Favourable
from reportgen.results import MAX_TEXT_CHARS
from reportgen.smallfiles import read_user_file
from reportgen.value import Value

Task = Literal["binary", "multiclass"]
Format = Literal["html", "pdf", "json", "csv", "xlsx"]
#: A column name: never empty (``score: ''`` read as "no score column" and failed deep in a run)
Column = Annotated[str, ("min_length", 1)]
#: The branches of the config's unions, with their words for a value that fits none of them.
CostMatrix = Annotated[list[list[float]], ("words", "a cost matrix (a list of lists of numbers, one row per class)")]
ColumnList = Annotated[list[Column], ("words", "a list of column names (one per class, in class order)")]
ColumnOfClass = Annotated[dict[ScalarLabel, Column], ("words", "a mapping of each class to its column name")]

#: Metrics a constraint rule may name (threshold metrics that vary with the cut).
CONSTRAINT_METRICS: tuple[str, ...] = catalog.constraint_metrics()
ConstraintMetric = Literal[CONSTRAINT_METRICS]  # type: ignore[valid-type]

#: Metrics a binary run may rank by (``primary_metric``): those with a better direction.
PRIMARY_METRICS: tuple[str, ...] = catalog.primary_metrics("binary")

#: Metrics a multiclass run may rank by (``primary_metric``).
MULTICLASS_PRIMARY_METRICS: tuple[str, ...] = catalog.primary_metrics("multiclass")


#: The most models one report compares: every model adds a column to each table, a curve to
#: each figure and a row and column to the pairwise tests; 300 models made a 3.4 GB PDF run.
MAX_MODELS = 40
#: The largest cost of one outcome and the largest β. A cost times a count of rows (or of
#: weights) and β² times one must stay finite: fn: 1e308 gave an expected cost of None and β
#: 1e160 an F-β of None, both with numpy's overflow warnings on stderr. 1e15 per row still holds
#: any currency; β = 1e6 weighs recall a trillion times precision (F-β is recall long before).
MAX_COST, MAX_BETA = 1e15, 1e6

#: The most bins a binned model's scores are cut into (``stream.bins``): the default limit of
#: distinct scores, past which binning saves nothing. ``bins: 1e20`` was an internal error
#: ("Maximum allowed size exceeded"), ``2**63 - 1`` an IndexError, ``4e9`` out of memory.
MAX_BINS = 2_000_000

#: What ``output.dir`` may contain: the config file's stem, the run date, the run id.
OUTPUT_PLACEHOLDERS = ("config", "date", "run_id")


def _looks(name: str) -> str:
    """How a model name reads on the page: NFKC-normalised (``é`` composed or not, fullwidth
    U+FF41 as ``a``), without format characters (zero-width space and joiners, direction marks:
    Unicode category Cf), inner runs of white space as one space, none at the ends. Two names
    that read the same made a report whose tables, figures and verdicts showed "a" twice."""
    text = "".join(c for c in unicodedata.normalize("NFKC", name) if unicodedata.category(c) != "Cf")
    return " ".join(text.split())


@dataclass(frozen=True, kw_only=True, repr=False, eq=False)
class CostsConfig(Value):
    """Cost of each outcome per row (binary). Only relative sizes matter for the optimum."""

    fn: float = key(
        1.0, ge=0, le=MAX_COST, description=("Cost of one false negative (a positive row predicted negative), per row.")
    )
    fp: float = key(
        1.0, ge=0, le=MAX_COST, description=("Cost of one false positive (a negative row predicted positive), per row.")
    )
    tp: float = key(0.0, ge=0, le=MAX_COST, description="Cost of one true positive, per row (usually 0).")
    tn: float = key(0.0, ge=0, le=MAX_COST, description="Cost of one true negative, per row (usually 0).")


@dataclass(frozen=True, kw_only=True, repr=False, eq=False)
class ConstraintConfig(Value):
    """``{maximize: precision, where: recall, at_least: 0.8}``: an optimal-threshold rule."""

    maximize: ConstraintMetric = key(
        description=("The metric this rule's optimal threshold maximises (e.g. precision).")
    )
    where: ConstraintMetric = key(
        description=("The metric the rule constrains (e.g. recall); give at_least or at_most with it.")
    )
    at_least: float | None = key(
        None, description=("Lower bound on the `where` metric (inclusive); give this or at_most.")
    )
    at_most: float | None = key(
        None, description=("Upper bound on the `where` metric (inclusive); give this or at_least.")
    )

    def _rules(self) -> None:
        if (self.at_least is None) == (self.at_most is None):
            raise ValueError("give exactly one of at_least / at_most")


@dataclass(frozen=True, kw_only=True, repr=False, eq=False)
class CalibrationConfig(Value):
    """``{bins: 10, strategy: quantile}``: how probability models' calibration is binned."""

    bins: int = key(10, ge=2, le=100, description="Number of bins of the predicted probability (2 to 100).")
    strategy: Literal["uniform", "quantile"] = key(
        "uniform",
        description=(
            "uniform: equal-width bins of [0, 1] (as scikit-learn's calibration_curve); quantile: bins of about "
            "equal rows, a distinct score never split."
        ),
    )


@dataclass(frozen=True, kw_only=True, repr=False, eq=False)
class PartialAucRange(Value):
    """``{specificity: [0.9, 1]}`` or ``{sensitivity: [0.8, 1]}``: one range of a partial AUC."""

    specificity: tuple[float, float] | None = key(
        None,
        description=(
            "Partial AUC over these specificities [lo, hi] (1 - false positive rate), e.g. [0.9, 1] for a low "
            "false positive rate; give this or sensitivity."
        ),
    )
    sensitivity: tuple[float, float] | None = key(
        None,
        description=("Partial AUC over these sensitivities [lo, hi] (true positive rate); give this or specificity."),
    )

    def _rules(self) -> None:
        if (self.specificity is None) == (self.sensitivity is None):
            raise ValueError("give exactly one of specificity: [lo, hi] / sensitivity: [lo, hi]")
        lo, hi = self.bounds
        if not 0.0 <= lo < hi <= 1.0:
            raise ValueError(f"a range [lo, hi] needs 0 <= lo < hi <= 1, found [{lo:g}, {hi:g}]")

    @property
    def focus(self) -> Literal["specificity", "sensitivity"]:
        return "specificity" if self.specificity is not None else "sensitivity"

    @property
    def bounds(self) -> tuple[float, float]:
        lo, hi = self.specificity if self.specificity is not None else self.sensitivity  # type: ignore[misc]
        return float(lo), float(hi)


@dataclass(frozen=True, kw_only=True, repr=False, eq=False)
class OperatingPointsConfig(Value):
    """``{fpr: [0.01, 0.05], recall: [0.8]}``: fixed points on each model's ROC and PR curves."""

    fpr: list[float] = key(
        [],
        description=(
            "False positive rates at which to report each model's true positive rate (TPR at FPR), read off the "
            "ROC curve: at an FPR some cut reaches exactly, the highest TPR there; otherwise interpolated "
            "linearly between the neighbouring cuts (pROC's coords with input specificity). Each in (0, 1)."
        ),
    )
    recall: list[float] = key(
        [],
        description=(
            "Recalls (true positive rates) at which to report each model's precision: the lowest FPR at that "
            "recall on the ROC curve (interpolated linearly between cuts), then precision = r*P / (r*P + FPR*N). "
            "Each in (0, 1]."
        ),
    )
    optimal_thresholds: bool = key(
        True,
        description=(
            "Also give each optimal threshold a bootstrap interval, with the intervals of its criterion's value "
            "and of TPR and FPR there (every resample finds its own optimum, as pROC's ci.coords with x = best)."
        ),
    )

    def _rules(self) -> None:
        for name, values, top in (("fpr", self.fpr, 1.0), ("recall", self.recall, 1.0)):
            for v in values:
                if not (0.0 < v < top or (name == "recall" and v == 1.0)):
                    raise ValueError(f"{name}: {v:g} is outside {'(0, 1]' if name == 'recall' else '(0, 1)'}")
            if len(set(values)) != len(values):
                raise ValueError(f"{name}: a value is listed twice")


#: Schemes handed to pyarrow's filesystems (``file`` is turned into a local path instead).
#: ``gcs`` is pyarrow's alias of ``gs``; ``viewfs`` of ``hdfs``; ``abfss`` the TLS form of ``abfs``.
SCHEMES = ("s3", "gs", "gcs", "hdfs", "viewfs", "abfs", "abfss")

_SCHEME = re.compile(r"([A-Za-z][A-Za-z0-9+.-]*)://")
# the folded form a Path gives a URI: "s3:/bucket/key?query" (scheme of 2+ characters: never a drive letter)
_FOLDED = re.compile(r"([A-Za-z][A-Za-z0-9+.-]+):/(?!/)(.*)", re.S)


def scheme_of(text: str) -> str | None:
    """The scheme of ``text`` written as a URI (``s3`` of ``s3://b/k``), lower case, or None."""
    m = _SCHEME.match(text)
    return None if m is None else m.group(1).lower()


def checked_uri(value: str) -> str:
    """A data URI as the config keeps it, or a ``ValueError`` with a one-line reason.

    Refused: a scheme pyarrow has no filesystem for (the message lists those it has), an empty
    authority (``s3:///key``), ``//`` inside the path (a Path would fold it), and any secret
    (a password in the user info, an ``access_key=`` … query key): credentials come from the
    environment (``AWS_ACCESS_KEY_ID`` / ``AWS_SECRET_ACCESS_KEY``, ``GOOGLE_APPLICATION_CREDENTIALS``,
    …) or the cloud's own configuration, never from the config. A ``/`` in a query value is
    percent-encoded (pyarrow decodes it) and a trailing ``/`` dropped, so the URI survives the
    loaders' :class:`~pathlib.Path` unchanged (see :mod:`reportgen.io.filesystems`).
    """
    scheme = scheme_of(value)
    if scheme not in SCHEMES:
        # never the value: it may hold a secret (expanded from ${VAR}); the message's key names it
        raise ValueError(
            f"{scheme}:// is not a filesystem pyarrow reads; use a local path or a "
            f"{', '.join(s + '://' for s in SCHEMES)} or file:// URI"
        )
    try:
        p = urlsplit(value)
        password = p.password
    except ValueError:
        raise ValueError(f"not a valid {scheme}:// URI") from None
    if password is not None:
        raise ValueError(
            f"{scheme}:// URI holds a password; give credentials in the environment "
            f"(e.g. AWS_ACCESS_KEY_ID / AWS_SECRET_ACCESS_KEY), never in the config"
        )
    query = parse_qsl(p.query, keep_blank_values=True)
    secret = [k for k, _ in query if is_secret_key(k)]
    if secret:
        raise ValueError(
            f"{scheme}:// URI holds a secret ({secret[0]}=…); give credentials in the environment, never in the config"
        )
    if not p.netloc:
        raise ValueError(f"{scheme}:// URI has no bucket or host; write e.g. {scheme}://bucket/path/file.parquet")
    path = p.path.rstrip("/")
    if "//" in path or p.fragment:
        raise ValueError(f"{scheme}:// URI has an empty path segment ('//') or a '#' fragment; remove it")
    return urlunsplit((scheme, p.netloc, path, urlencode(query, safe=":,", quote_via=quote), ""))


def unfolded(path: Path | str) -> str | None:
    """The data URI that ``path`` holds in the form a :class:`~pathlib.Path` gives it
    (``s3:/b/k`` → ``s3://b/k``), or None for any other path."""
    m = _FOLDED.fullmatch(str(path))
    if m is None or m.group(1).lower() not in SCHEMES:
        return None
    return f"{m.group(1).lower()}://{m.group(2)}"


def uri_text(path: Path) -> str:
    """A data path as JSON data: a URI as written (``s3://b/k``, not the folded form a Path holds)."""
    return unfolded(path) or str(path)


def is_folded(path: Path | str) -> bool:
    """Whether ``path`` is a data URI in the form a :class:`~pathlib.Path` gives it."""
    return unfolded(path) is not None


def local_path(value: Any) -> Any:
    """A ``file://`` URI → its local path, through pyarrow's filesystem resolution (so the
    URI means what it means to every pyarrow reader); ``~`` is expanded; other values pass.

    For what must stay local (the history store, templates, the logo): a URI of another
    scheme (``s3://``, ``gs://``, …) is refused with a one-line reason; only a model's
    ``file`` and ``reference`` are read through remote filesystems (:func:`data_path`).
    """
    if not isinstance(value, str):
        return value
    no_nul(value)
    m = re.match(r"([A-Za-z][A-Za-z0-9+.-]*)://", value)
    if m is None:
        return os.path.expanduser(value)
    if m.group(1).lower() != "file":
        raise ValueError(
            f"{m.group(1)}:// URIs are read for models' file and reference only; "
            f"this path must be local (a path or a file:// URI)"
        )
    import pyarrow.fs as pafs  # noqa: PLC0415  (pyarrow is a dependency; imported only for URIs)

    try:
        fs, path = pafs.FileSystem.from_uri(value)
    except (ValueError, OSError) as exc:
        raise ValueError(f"not a valid file:// URI ({masked(str(exc))})") from None
    if not isinstance(fs, pafs.LocalFileSystem):  # pragma: no cover - file:// is always local
        raise ValueError("does not name a local file")
    return path


def no_nul(value: str) -> str:
    """Refuse a path holding a NUL character (YAML's ``"\\0"``): no file name can hold one, and
    the operating system's calls raised "embedded null byte" as an internal error."""
    if "\x00" in value:
        raise ValueError(f"{masked(value)!r} holds a NUL character (\\0), which no path can hold; remove it")
    return value


def data_path(value: Any) -> Any:
    """A model's input: a local path (:func:`local_path`), or a URI read through pyarrow's
    filesystems (``s3://``, ``gs://``, ``hdfs://``, ``abfs://``), kept as written and checked
    for its form only (:func:`reportgen.io.filesystems.checked_uri`: a known scheme, no secret
    in it); the filesystem is resolved where the file is opened."""
    if isinstance(value, str) and not value.strip():
        # Path('') is '.', the config's own directory, then read as a Parquet dataset
        raise ValueError("the path is empty; give a CSV or Parquet file")
    if isinstance(value, str):
        no_nul(value)
    if (
        isinstance(value, str)
        and re.match(r"[A-Za-z][A-Za-z0-9+.-]*://", value)
        and not value.lower().startswith("file://")
    ):
        return Path(checked_uri(value))
    return local_path(value)


#: Base dialects whose URL names a local file (``sqlite:///rel.db``, ``duckdb:///rel.duckdb``,
#: ``sqlite+pysqlite:///rel.db``): relative to the config's directory, like every path in a config.
FILE_DIALECTS = ("sqlite", "duckdb")

_URL_EXAMPLE = "postgresql://user@host:5432/db, mysql+pymysql://user@host/db or duckdb:///path.duckdb"


def dialect_of(url: str) -> str:
    """The base dialect of a database URL, lower case: ``mysql`` of ``mysql+pymysql://…``."""
    return urlsplit(url).scheme.lower().partition("+")[0]


def database_url(v: str) -> str:
    """A database URL as the config keeps it, or a ``ValueError`` with a one-line reason: a
    scheme, a file for the file dialects, and no literal secret (a password in the user info or
    a credential query key: ``${VAR}`` only, expanded when connecting). Never echoes the value."""
    try:
        parts = urlsplit(v)
        password = parts.password
    except ValueError:
        raise ValueError(f"not a database URL; write e.g. {_URL_EXAMPLE}") from None
    if not re.fullmatch(r"[A-Za-z][A-Za-z0-9_]*(\+[A-Za-z0-9_]+)?", parts.scheme) or "//" not in v:
        raise ValueError(f"not a database URL (dialect[+driver]://...); write e.g. {_URL_EXAMPLE}")
    if dialect_of(v) in FILE_DIALECTS and (parts.netloc or not parts.path[1:]):
        name = {"sqlite": "SQLite", "duckdb": "DuckDB"}[dialect_of(v)]
        raise ValueError(
            f"a {name} URL names a file: {parts.scheme}:///relative/to/the/config.db or "
            f"{parts.scheme}:////absolute/path.db"
        )
    if password and not VAR_ONLY.fullmatch(password):
        # never echo the value: the message names the key only
        raise ValueError(
            "holds a literal password; put it in an environment variable and write "
            "postgresql://user:${DB_PASSWORD}@host/db (or rely on PGPASSWORD)"
        )
    # libpq also takes the password as a query key (?password=...): the report and metrics.json
    # keep the URL as written, so a literal one there would be printed in them
    secret = [
        k
        for k, val in parse_qsl(parts.query, keep_blank_values=True)
        if is_secret_key(k) and not VAR_ONLY.fullmatch(val)
    ]
    if secret:
        raise ValueError(
            f"holds a literal secret ({secret[0]}=…); put it in an environment variable "
            f"({secret[0]}=${{DB_PASSWORD}}) or rely on PGPASSWORD / ~/.pgpass"
        )
    return v


def _no_literal_secret(v: dict[str, ScalarLabel]) -> dict[str, ScalarLabel]:
    """Driver options hold a credential as ``${VAR}`` only (expanded when connecting)."""
    secret = [k for k, val in v.items() if is_secret_key(k) and not VAR_ONLY.fullmatch(str(val))]
    if secret:
        raise ValueError(
            f"{secret[0]}: holds a literal secret; write {secret[0]}: ${{DB_PASSWORD}} and set the variable"
        )
    return v


def resolved_url(url: str, base: Path) -> str:
    """A file dialect's relative URL (``sqlite:///relative.db``) made absolute against ``base``
    (the config's directory); a path starting with ``~`` or ``${`` is left to expand."""
    p = urlsplit(url)
    rel = p.path[1:]
    if dialect_of(url) not in FILE_DIALECTS or rel.startswith(("/", "~", "$")):
        return url
    return f"{p.scheme}:///{base / rel}" + (f"?{p.query}" if p.query else "")


@dataclass(frozen=True, kw_only=True, repr=False, eq=False)
class ConnectionConfig(Value):
    """``connections: {NAME: {url, options}}``: a database named once and used by any model's
    ``source: {connection: NAME}``, so a warehouse is written once and a password rotated in one place."""

    url: str = key(
        min_length=1,
        check=database_url,
        description=(
            "Database URL: postgresql:// and sqlite:/// (ADBC), duckdb:///path.duckdb (read-only), or any "
            "SQLAlchemy URL dialect+driver://user@host/db (mysql+pymysql://, mssql+pyodbc://, snowflake://, "
            "...; its driver installed). File URLs are relative to the config. Never a literal password: "
            "${VAR}, expanded only when connecting."
        ),
    )
    options: dict[str, ScalarLabel] = key(
        {},
        check=_no_literal_secret,
        description=(
            "Options handed to the driver when connecting (SQLAlchemy's connect_args, DuckDB's config, "
            "ADBC's database options), e.g. {connect_timeout: 10}. A credential option holds ${VAR} only."
        ),
    )


@dataclass(frozen=True, kw_only=True, repr=False, eq=False)
class SourceConfig(Value):
    """A model's predictions from a SQL database instead of a file (``pip install 'classifier-comparison-report[sql]'``).

    ``connection``: the name of an entry of the top-level ``connections``; or ``url``, the
    model's own database URL (see :class:`ConnectionConfig`). A password is never written in
    it literally but comes from the environment: ``${VAR}``, which (unlike everywhere else) is
    expanded only when connecting, so the secret is never held in the config, printed, or
    written to the report or metrics.json.
    ``query``: one SELECT whose columns are the model's (``score``, ``label``, ``id``, ...);
    ``:name`` marks a bound parameter, given in ``params`` (never formatted into the SQL).
    ``pushdown``: send ``GROUP BY score, label`` to the database so only the score table
    crosses the network (binary task; every model pushed down; see the documentation's SQL page).
    """

    connection: str | None = key(
        None,
        min_length=1,
        description="The name of an entry of the top-level connections. Give this or url.",
    )
    url: str | None = key(
        None,
        min_length=1,
        check=database_url,
        description=(
            "This model's own database URL, as a connection's url (postgresql://user@host:5432/db, "
            "sqlite:///path.db, duckdb:///path.duckdb, any SQLAlchemy dialect+driver:// URL). Never a literal "
            "password: use ${VAR} (expanded only when connecting). Give this or connection."
        ),
    )
    query: str = key(
        min_length=1,
        description=(
            "One SELECT returning the model's columns (score, label, id, ...); :name marks a bound parameter "
            "given in params. A trailing ';' is allowed, a second statement is not."
        ),
    )
    params: dict[str, ScalarLabel | None] = key(
        {},
        description=(
            "Values of the query's :name parameters, sent to the server apart from the SQL text (never "
            "formatted into it). A ${VAR} value is text: cast it in SQL."
        ),
    )
    pushdown: bool = key(
        False,
        description=(
            "true: the database computes the score table (GROUP BY score, label, built for its dialect), so "
            "one row per distinct score and label crosses the network (binary task; every model)."
        ),
    )

    def resolved(self, base: Path) -> Self:
        """A file dialect's relative URL made absolute against ``base`` (:func:`resolved_url`)."""
        return self if self.url is None else dataclasses.replace(self, url=resolved_url(self.url, base))

    def _rules(self) -> None:
        if (self.url is None) == (self.connection is None):
            raise ValueError("give exactly one of 'connection' (a name under connections:) and 'url'")


@dataclass(frozen=True, kw_only=True, repr=False, eq=False)
class ModelConfig(Value):
    """One model: its name, where its rows are (``file`` or ``source``) and which columns hold its
    scores; ``label``, ``id`` and ``weight`` default to the top-level keys."""

    name: str = key(
        min_length=1,
        max_length=MAX_TEXT_CHARS,
        description=(
            "The model's name, shown in the report and used as its key in metrics.json; unique within a config."
        ),
    )
    file: Path | None = key(
        None,
        before=data_path,
        json=uri_text,
        description=(
            "CSV or Parquet file, or a directory of Parquet parts (hive partitions), local or a URI (s3://, "
            "gs://, hdfs://, abfs://, file://); relative to the config file. Give this or source."
        ),
    )
    source: SourceConfig | None = key(
        None,
        description=(
            "Read the model's rows from a SQL database instead of a file (needs the sql extra). Give this or file."
        ),
    )
    score: Column | None = key(
        None, description=("Score column (binary): the higher (or lower, see direction) the more likely positive.")
    )
    direction: Literal["higher", "lower"] = key(
        "higher",
        description=("higher: a higher score means more likely positive; lower: the reverse (e.g. scorecard points)."),
    )
    threshold: float | None = key(
        None,
        description=(
            "This model's own decision threshold, on its own scale (e.g. scorecard points); default: the top-"
            "level threshold."
        ),
    )
    label: Column | None = key(
        None, description=("This model's label column when it differs from the top-level label.")
    )
    id: Column | None = key(None, description="This model's id column when it differs from the top-level id.")
    weight: Column | None = key(
        None, description=("This model's weight column when it differs from the top-level weight.")
    )
    probabilities: bool | None = key(
        None,
        description=(
            "true asserts the scores are probabilities in [0, 1] (a value outside is an error); false treats "
            "them as scores (no log-loss or Brier score); default: inferred from the values."
        ),
    )
    prediction: Column | None = key(
        None, description=("Multiclass: a column holding the predicted class (instead of, or besides, class scores).")
    )
    scores: ColumnList | ColumnOfClass | None = key(
        None,
        description=(
            "Multiclass: one score (probability) column per class, as a list in the order of classes or a "
            "mapping class -> column."
        ),
    )
    # credit validation (issue 19): the PD column of a scorecard (the score stays the ranking),
    # the development / initial-validation sample (same columns), the AUC at initial validation
    pd: Column | None = key(
        None,
        description=(
            "Credit validation: a column holding the model's probability of default, when the score is not "
            "one (e.g. scorecard points); the score stays the ranking."
        ),
    )
    reference: Path | None = key(
        None,
        before=data_path,
        json=uri_text,
        description=(
            "Credit validation: the development or initial-validation sample, with the same columns; enables "
            "the PSI, the concentration test and the grade migration."
        ),
    )
    initial_auc: float | None = key(
        None,
        gt=0,
        lt=1,
        description=(
            "Credit validation: the AUC at initial validation, against which the current AUC is tested "
            "(default: the reference sample's AUC)."
        ),
    )

    def _rules(self) -> None:
        if (self.file is None) == (self.source is None):
            raise ValueError("give exactly one of 'file' (CSV or Parquet) and 'source' (a SQL query)")


def _local_dir(v: Any) -> Any:
    """Outputs stay local, as the history store, templates and logo (:func:`local_path`): a
    remote URI is refused (``s3://b/x`` was written to a local directory named ``s3:``), a
    ``file://`` URI is its local path, placeholders kept (pyarrow cannot parse ``{``)."""
    if isinstance(v, str) and scheme_of(v) is not None:
        return local_path(v if scheme_of(v) != "file" else v.replace("{", "%7B").replace("}", "%7D"))
    return v


def _placeholders(v: str) -> str:
    """``output.dir`` names only the placeholders :data:`OUTPUT_PLACEHOLDERS`."""
    no_nul(v)
    try:
        fields = [(f, spec, conv) for _, f, spec, conv in string.Formatter().parse(v) if f is not None]
    except ValueError:  # an unbalanced brace
        fields = [("{", "", None)]
    if any(f not in OUTPUT_PLACEHOLDERS or spec or conv for f, spec, conv in fields):
        raise ValueError(
            f"{masked(v)!r} uses an unknown placeholder; only {{config}}, {{date}} and {{run_id}} may be used"
        )
    return v


@dataclass(frozen=True, kw_only=True, repr=False, eq=False)
class OutputConfig(Value):
    """Where reports go. ``dir`` may use ``{config}`` (config file stem), ``{date}``, ``{run_id}``;
    relative to the config file's directory, like every path in a config."""

    dir: str = key(
        "reports/{config}",
        before=_local_dir,
        check=_placeholders,
        description=(
            "Output directory, relative to the config file; may use {config} (the config file's stem), {date}"
            " and {run_id}. Local paths only."
        ),
    )
    formats: list[Format] = key(
        ["html", "pdf", "json"],
        min_length=1,
        description=(
            "Which files to write: html (report.html), pdf (report.pdf), json (metrics.json), csv (the key "
            "tables), xlsx (tables.xlsx, needs the xlsx extra)."
        ),
    )
    overwrite: bool = key(
        False,
        description=(
            "Replace an existing report set in dir (as --overwrite); without it an existing report is an error."
        ),
    )


#: Sections of a report, in the default reading order; ``report.sections`` picks them in its own
#: order. ``credit`` and ``trend`` appear only when the run has them (``credit:``, ``history:``).
ReportSection = Literal[
    "summary",
    "comparison",
    "partial_auc",
    "calibration",
    "operating_points",
    "metrics",
    "per_class",
    "confusion",
    "curves",
    "thresholds",
    "bands",
    "credit",
    "fairness",
    "segments",
    "trend",
    "glossary",
    "appendix",
]
REPORT_SECTIONS: tuple[str, ...] = typing.get_args(ReportSection)


@dataclass(frozen=True, kw_only=True, repr=False, eq=False)
class RecommendationConfig(Value):
    """The rule behind the brief's recommendation (``report.layout: brief``).

    A challenger is *adopt* when its verdict on the primary metric is significantly better than
    the baseline's and it has no finding at or above ``block_on``; *conditional* when significantly
    better with findings below ``block_on`` only (those findings are the conditions); *retain* (the
    baseline) otherwise.
    """

    block_on: Literal["red", "amber"] = key(
        "red",
        description=(
            "The lowest traffic light that blocks adopting a challenger: red (amber findings become "
            "conditions) or amber (any red or amber finding blocks)."
        ),
    )


def _colours(v: list[str]) -> list[str]:
    """A palette of ``#rrggbb`` (or ``#rgb``) colours."""
    for c in v:
        if not re.fullmatch(r"#(?:[0-9a-fA-F]{3}|[0-9a-fA-F]{6})", c):
            raise ValueError(f"{c!r} is not a colour; write colours as '#rrggbb'")
    return v


@dataclass(frozen=True, kw_only=True, repr=False, eq=False)
class ReportConfig(Value):
    """Look of the report without forking the templates (paths resolve against the config file).

    ``template_dir`` may override any template (``report.html``, ``sections/*.html``) or
    ``report.css``; ``palette`` gives the model colours in order; ``sections`` which sections to
    include, in which order (the title block and contents are always there); ``layout: brief``
    puts a sign-off brief before the full report.
    """

    template_dir: Path | None = key(
        None,
        before=local_path,
        description=(
            "A theme: a directory whose files replace the shipped templates of the same name (report.html, "
            "sections/*.html, report.css). Relative to the config file."
        ),
    )
    logo: Path | None = key(
        None,
        before=local_path,
        description=(
            "A PNG, JPEG, GIF or SVG (no scripts) of at most 1 MB inside the config's directory, inlined on "
            "the title page."
        ),
    )
    palette: list[str] | None = key(
        None, min_length=1, check=_colours, description=("Model colours in config order, as '#rrggbb' (or '#rgb').")
    )
    sections: list[ReportSection] | None = key(
        None,
        min_length=1,
        description=(
            "Which sections to include, in the order given (the title block and contents are always "
            "there; credit, trend, partial_auc, calibration and operating_points only when the run has them). "
            "Default: every "
            "section."
        ),
    )
    layout: Literal["full", "brief"] = key(
        "full",
        description=(
            "full: the report; brief: at most four pages for sign-off (recommendation, every red and amber "
            "finding, the key comparison, sample, limitations, sign-off block) with the full report as its "
            "appendix."
        ),
    )
    recommendation: RecommendationConfig = key(
        RecommendationConfig(),
        description=("The brief's recommendation rule: which traffic light blocks adopting a challenger."),
    )
    domain: Literal["credit", "generic"] | None = key(
        None,
        description=(
            "The report's words for a binary decision. credit: approvals, approval rates, bad rates, "
            "applications and swap sets; generic: positives, rows predicted negative and positive rates. "
            "Default: credit when a credit: block or approval_rates is configured, else generic. The domain "
            "also sets fairness.favourable's default."
        ),
    )


@dataclass(frozen=True, kw_only=True, repr=False, eq=False)
class StreamConfig(Value):
    """Reading in record batches (``engine: stream`` and ``dask``): memory grows with distinct scores.

    ``max_distinct_scores``: above this many distinct scores in a model, its scores are binned
    into ``bins`` bins (``quantile`` of a sample of the scores, or ``fixed`` width); the report
    states the binning and the exact bound on the AUC error it can cause. ``task: multiclass``
    is not binned: a score column with more table entries is an error (round the scores); the
    compared rows kept as distinct rows for the row bootstrap of the averaged AUCs and of the
    differences stop at this many too (past it: capability ``needs_rows``).

    ``seed``: of the sample of scores that places the bins' edges: the ``max(sample_per_batch,
    2 · bins)`` distinct scores of smallest hash seeded by it, each with its rows — a function of
    the scores alone, so stream and dask (any batches, any parts) bin a model alike. Binning
    shapes the reduction itself, so it has its own seed: ``bootstrap.seed`` (applied after the
    reduction) changes the intervals, never the tables.
    """

    batch_rows: int = key(
        1_000_000,
        ge=1_000,
        description=(
            "Rows per record batch read by engine: stream and dask (task: multiclass: at most 131,072, "
            "its per-batch score matrices being several times the batch)."
        ),
    )
    max_distinct_scores: int = key(
        2_000_000,
        ge=100,
        description=(
            "Above this many distinct scores a model's scores are binned into `bins` bins (binary); a "
            "multiclass score column past it is an error."
        ),
    )
    bins: int = key(
        100_000,
        ge=10,
        le=MAX_BINS,
        description=(
            "How many bins a binned model's scores go into (the report states the exact bound on the AUC error)."
        ),
    )
    binning: Literal["quantile", "fixed"] = key(
        "quantile",
        description=("quantile: bins at quantiles of a seeded sample of the scores; fixed: equal-width bins."),
    )
    sample_per_batch: int = key(
        2_000,
        ge=10,
        description=(
            "Size of the seeded sample of distinct scores that places quantile bin edges (at least 2 x bins are kept)."
        ),
    )
    seed: int = key(
        20240601,
        ge=0,
        lt=2**63,
        description=(
            "Seed of the sample that places the bin edges (independent of bootstrap.seed, so intervals and "
            "tables do not move together)."
        ),
    )


@dataclass(frozen=True, kw_only=True, repr=False, eq=False)
class CheckConfig(Value):
    """A gate a scheduler can act on (``checks:``); a failed check makes ``reportgen run`` exit 3.

    Two kinds: a metric bound, ``{model: challenger, metric: gini, at_least: 0.45}`` (without
    ``model``: every model), and a comparison, ``{comparison: challenger, must_not_be: worse}``
    (the model against the baseline on the primary metric, significant at the run's level).
    Metric names are checked against the catalogue of the run's task.
    """

    model: str | None = key(None, description="Metric check: the model it applies to; without it, every model.")
    metric: str | None = key(
        None,
        description=(
            "Metric check: the metric bounded (a key of the task's metrics, e.g. gini, ks, brier, or psi with credit:)."
        ),
    )
    at_least: float | None = key(None, description="Metric check: the smallest passing value (inclusive).")
    at_most: float | None = key(None, description="Metric check: the largest passing value (inclusive).")
    comparison: str | None = key(
        None, description=("Comparison check: the model compared with the baseline on the primary metric.")
    )
    must_not_be: Literal["worse"] | None = key(
        None,
        description=(
            "Comparison check: worse fails the check when the model is significantly worse than the baseline."
        ),
    )

    def _rules(self) -> None:
        if self.comparison is not None or self.must_not_be is not None:
            extra = [k for k in ("model", "metric", "at_least", "at_most") if getattr(self, k) is not None]
            if self.comparison is None or self.must_not_be is None or extra:
                raise ValueError(
                    "a comparison check is {comparison: MODEL, must_not_be: worse} and nothing else"
                    + (f" (remove {', '.join(extra)})" if extra else "")
                )
            return
        if self.metric is None:
            raise ValueError(
                "a check needs 'metric' with at_least / at_most (optionally 'model'), "
                "or 'comparison' with must_not_be: worse"
            )
        if (self.at_least is None) == (self.at_most is None):
            raise ValueError("give exactly one of at_least / at_most")


@dataclass(frozen=True, kw_only=True, repr=False, eq=False)
class HistoryConfig(Value):
    """``history: {path: runs.sqlite}``: the SQLite store each run appends its headline numbers to
    (relative to the config file; see :mod:`reportgen.history`)."""

    path: Path = key(
        before=local_path,
        description=(
            "SQLite history store each run appends its headline numbers to (created when absent); relative to"
            " the config file; a local disk."
        ),
    )
    trend_runs: int = key(
        24, ge=1, le=1000, description=("How many recorded runs the report's trend section shows (this run last).")
    )


def _no_credentials(v: str) -> str:
    """A tracking URI without a password or a credential query key."""
    try:
        parts = urlsplit(v)
        password = parts.password
    except ValueError:
        raise ValueError("not a tracking URI; write e.g. http://mlflow.internal:5000 or sqlite:///mlflow.db") from None
    secret = [k for k, _ in parse_qsl(parts.query, keep_blank_values=True) if is_secret_key(k)]
    if password or secret:  # never echo the value: the message names the key only
        raise ValueError(
            f"holds a credential ({'a password' if password else secret[0] + '=…'}); give it in the environment "
            "(MLFLOW_TRACKING_USERNAME / MLFLOW_TRACKING_PASSWORD or MLFLOW_TRACKING_TOKEN), never in the config"
        )
    return v


@dataclass(frozen=True, kw_only=True, repr=False, eq=False)
class MlflowConfig(Value):
    """``mlflow: {tracking_uri: …, experiment: …}``: after the report set is written, one MLflow run
    records the config, the key metrics, the comparisons and the report files
    (``pip install 'classifier-comparison-report[mlflow]'``; see :mod:`reportgen.tracking`)."""

    tracking_uri: str = key(
        min_length=1,
        check=_no_credentials,
        description=(
            "MLflow tracking URI: http(s)://host:5000 (a tracking server), sqlite:///mlflow.db or a local "
            "directory (file:///…). No credentials in it: MLflow reads MLFLOW_TRACKING_USERNAME / "
            "MLFLOW_TRACKING_PASSWORD or MLFLOW_TRACKING_TOKEN from the environment. --mlflow URI overrides it."
        ),
    )
    experiment: str = key(
        min_length=1,
        max_length=500,
        description="MLflow experiment the run is logged to (created when absent).",
    )
    run_name: str | None = key(
        None,
        min_length=1,
        max_length=250,
        description="Name of the MLflow run; default: the report's title.",
    )
    tags: dict[str, str] = key(
        {},
        description=(
            "Extra tags of the MLflow run (name: text), beside the ones reportgen sets (reportgen.run_id, "
            "reportgen.input.N.sha256, …)."
        ),
    )


@dataclass(frozen=True, kw_only=True, repr=False, eq=False)
class BootstrapConfig(Value):
    """The stratified bootstrap behind every interval that is not DeLong's or Clopper-Pearson's."""

    resamples: int = key(
        500,
        ge=0,
        le=100_000,
        description=(
            "Number of stratified bootstrap resamples for intervals and bootstrap tests; 0 turns the bootstrap off."
        ),
    )
    seed: int = key(
        20240601,
        ge=0,
        lt=2**63,
        description=(
            "Seed of the bootstrap: the same seed, inputs and config give the same intervals in every engine."
        ),
    )


def _labels(v: Any) -> Any:
    """A whole-number grade (``order: [1, 2, 3]``) is its digits, as the rating column's keys are."""
    if isinstance(v, list):
        return [str(x) if isinstance(x, int) and not isinstance(x, bool) else x for x in v]
    return v


@dataclass(frozen=True, kw_only=True, repr=False, eq=False)
class GradesConfig(Value):
    """How rows become grades: exactly one of ``edges`` (PD edges: grade i holds
    ``edges[i-1] <= pd < edges[i]``), ``column`` (a rating column in every file, in the
    ``order`` given, best grade first) or
    ``quantiles`` (that many buckets at quantiles of the reference sample's PD, or of the
    current sample's without a reference; of the score for a model without a PD; a value on an
    edge goes to the riskier bucket, as with edges; fewer buckets when ties leave one empty)."""

    edges: list[float] | None = key(
        None,
        min_length=1,
        max_length=99,
        description=("PD edges, strictly increasing in (0, 1): grade i holds edges[i-1] <= PD < edges[i]."),
    )
    column: Column | None = key(None, description="A rating column in every file whose values are the grades.")
    quantiles: int | None = key(
        None,
        ge=2,
        le=100,
        description=(
            "This many grades cut at quantiles of the reference sample's PD (else the current sample's; of "
            "the score for a model without a PD)."
        ),
    )
    #: With ``column``: the rating scale, best grade (lowest PD) first, e.g. [AAA, AA, A, BBB]. Every
    #: grade listed is a grade of the section (one nobody holds included: the ECB's K counts the
    #: grades of the scale); a label in the data that is not listed is an error. Without it the
    #: labels sort as numbers when every label is one, else as text (A < AA < AAA: give the order).
    order: list[str] | None = key(
        None,
        before=_labels,
        min_length=2,
        max_length=1000,
        description=(
            "With column: the rating scale, best grade first (e.g. [AAA, AA, A, BBB]); every listed grade is "
            "kept, an unlisted label is an error. Without it labels sort as numbers if all are, else as text."
        ),
    )

    def _rules(self) -> None:
        given = [k for k in ("edges", "column", "quantiles") if getattr(self, k) is not None]
        if len(given) != 1:
            raise ValueError("give exactly one of edges / column / quantiles")
        if self.order is not None:
            if self.column is None:
                raise ValueError("order (the rating scale) goes with column: it orders a rating column's labels")
            if any(not v.strip() for v in self.order):
                raise ValueError("order: a grade label is empty")
            twice = sorted({v for v in self.order if self.order.count(v) > 1})
            if twice:
                raise ValueError(f"order: grade {twice[0]!r} is listed twice")
        e = self.edges or []
        if any(not 0.0 < v < 1.0 for v in e) or any(b <= a for a, b in itertools.pairwise(e)):
            raise ValueError("edges must be PDs strictly between 0 and 1, strictly increasing")


@dataclass(frozen=True, kw_only=True, repr=False, eq=False)
class TrafficLightsConfig(Value):
    """Levels of the credit section's traffic lights. A test is amber when its p-value is below
    ``amber``, red below ``red`` (BCBS WP14's 95 % and 99.9 % levels); stability is amber from a PSI
    of ``psi_amber`` and red from ``psi_red`` (the usual 0.10 / 0.25)."""

    amber: float = key(0.05, gt=0, lt=1, description="A test is amber when its p-value is below this level.")
    red: float = key(
        0.001, gt=0, lt=1, description=("A test is red when its p-value is below this level (smaller than amber).")
    )
    psi_amber: float = key(0.10, gt=0, description="Stability is amber from this population stability index.")
    psi_red: float = key(
        0.25, gt=0, description=("Stability is red from this population stability index (larger than psi_amber).")
    )

    def _rules(self) -> None:
        if self.red >= self.amber:
            raise ValueError("red must be a smaller p-value than amber")
        if self.psi_red <= self.psi_amber:
            raise ValueError("psi_red must be larger than psi_amber")


def _correlation_in_range(v: float | str) -> float | str:
    """An asset correlation in (0, 1), or irb_corporate."""
    if isinstance(v, float | int) and not 0.0 < v < 1.0:
        raise ValueError(f"asset_correlation must lie strictly between 0 and 1 (or be irb_corporate), got {v}")
    return v


@dataclass(frozen=True, kw_only=True, repr=False, eq=False)
class CreditConfig(Value):
    """The credit-risk validation section (calibration by grade, stability, performance over time).

    ``min_defaults``: a grade, period or segment with fewer defaults (or non-defaults) is marked,
    its tests weak.
    """

    grades: GradesConfig = key(
        GradesConfig(quantiles=10),
        description=("How rows become grades: exactly one of quantiles, edges or column (with its order)."),
    )
    traffic_lights: TrafficLightsConfig = key(
        TrafficLightsConfig(),
        description=("p-value and PSI levels of the section's amber and red lights."),
    )
    min_defaults: int = key(
        5,
        ge=1,
        description=(
            "A grade, period or segment with fewer defaults (or non-defaults) than this is marked and its "
            "tests called weak."
        ),
    )
    asset_correlation: float | Literal["irb_corporate"] = key(
        0.12,
        check=_correlation_in_range,
        description=(
            "Asset correlation rho of the binomial test with correlated defaults (Vasicek's one-factor model), a number "
            "in (0, 1): 0.12 by default, the Basel IRB corporate correlation's floor; or irb_corporate for the Basel II "
            "corporate formula at each grade's PD (0.12 to 0.24). Retail books: the IRB uses 0.15 for mortgages, 0.04 "
            "for revolving exposures and 0.03 to 0.16 for other retail."
        ),
    )
    power_ratio: float = key(
        1.5,
        gt=1.0,
        description=(
            "The power of each grade's Jeffreys and binomial tests is their chance to turn amber if the grade's true "
            "default rate were its PD times this (1.5: 50 % above the PD)."
        ),
    )


@dataclass(frozen=True, kw_only=True, repr=False, eq=False)
class FairnessConfig(Value):
    """The fairness section (binary): each model's decisions and ranking by protected group."""

    groups: list[Column] = key(
        min_length=1,
        description=(
            "Columns of protected attributes (e.g. sex, age_band), in every model's file; each value of a column "
            "is a group."
        ),
    )
    reference: dict[str, ScalarLabel] = key(
        {},
        description=(
            "column -> its reference group, against which adverse-impact ratios are taken (default: the "
            "column's largest group)."
        ),
    )
    favourable: Favourable | None = key(
        None,
        description=(
            "The favourable outcome whose rate the adverse-impact ratios (the four-fifths rule) compare: "
            "flagged, the share predicted positive; not_flagged, the share predicted negative (in credit, where "
            "the positive class is the default, the approval rate). Default: not_flagged when the run's domain "
            "is credit (report.domain, else a credit: block or approval_rates), else flagged. The other "
            "disparities are fairlearn's, on the share predicted positive, either way."
        ),
    )

    def _rules(self) -> None:
        unknown = [c for c in self.reference if c not in self.groups]
        if unknown:
            raise ValueError(f"reference names {unknown[0]!r}, which is not among groups ({', '.join(self.groups)})")
        if len(set(self.groups)) != len(self.groups):
            raise ValueError("groups lists a column twice")


def _none_is_empty(v: Any) -> Any:
    """A list key whose every entry is commented out ("checks:" and nothing under it) is YAML's
    null: no entries, as "[]" (and as history: null or credit: null mean none)."""
    return [] if v is None else v


def _scheduler_without_credentials(v: str) -> str:
    """distributed refused "tcp://user:pw@host:8786" with a ValueError quoting the address (an
    internal error, the password printed); Dask's TLS settings come from its own config."""
    if "@" in v.rpartition("://")[2].partition("/")[0]:
        raise ValueError(
            "holds credentials (user@ or user:password@); give the scheduler's address as "
            "tcp://host:8786 (or tls://host:8786 with the certificates in Dask's configuration)"
        )
    return v


def _prevalences(v: list[float]) -> list[float]:
    for p in v:
        if not 0.0 < p < 1.0:
            raise ValueError(f"each prevalence must lie strictly between 0 and 1, found {p}")
    return v


def _approval_rates(v: list[float]) -> list[float]:
    for p in v:
        if not 0.0 < p < 1.0:
            raise ValueError(f"each approval rate must lie strictly between 0 and 1, found {p}")
    return v


def _cost_matrix(v: Any) -> Any:
    """A cost matrix is square, each cost in [0, :data:`MAX_COST`]."""
    if isinstance(v, list):
        k = len(v)
        if k < 2 or any(len(row) != k for row in v):
            raise ValueError("a cost matrix must be square (one row and one column per class)")
        negative = [c for row in v for c in row if c < 0]
        if negative:
            raise ValueError(f"every cost must be non-negative, found {negative[0]:g}")
        huge = [c for row in v for c in row if c > MAX_COST]
        if huge:
            raise ValueError(f"every cost must be at most {MAX_COST:g}, found {huge[0]:g}")
    return v


def _segment_is_segments(data: Any) -> Any:
    """The deprecated ``segment: col`` read as ``segments: [col]`` (appended when absent), so a
    scheduled config keeps running; ``segment`` stays set only to say so (the run warns)."""
    if isinstance(data, dict) and isinstance(data.get("segment"), str):
        listed = data.get("segments") or []
        if isinstance(listed, list) and data["segment"] not in listed:
            data = {**data, "segments": [*listed, data["segment"]]}
    return data


#: What ``reportgen render`` takes back from a saved run's config (colours, section names, checked
#: by their own rules, never a secret): recorded as read by :meth:`Config.as_written`, not as written.
_READ_BACK = (
    ("report", "palette"),
    ("report", "sections"),
    ("report", "layout"),
    ("report", "recommendation"),
    ("report", "domain"),
)


@dataclass(frozen=True, kw_only=True)
class Config:
    """A comparison run. The YAML shape documented in the configuration reference is the public contract."""

    title: str = key(
        "Model comparison",
        max_length=MAX_TEXT_CHARS,
        description=("Report title, shown on the title page and as the PDF's running title."),
    )
    author: str | None = key(None, max_length=MAX_TEXT_CHARS, description="Owner shown on the title page.")
    task: Task = key(
        "binary",
        description=("binary (one score per model) or multiclass (class scores or a predicted class per model)."),
    )
    label: Column | None = key(None, description="Label column, the default for every model.")
    positive: ScalarLabel = key(
        1, description=("The positive class (binary); 1 is also true in a boolean label column.")
    )
    classes: list[ScalarLabel] | None = key(
        None,
        description=(
            "Multiclass: the class list in the order of every table (default: the labels sorted); a label "
            "outside it is an error."
        ),
    )
    ordinal: bool = key(
        False,
        description=(
            "Multiclass: the classes are ordered categories (grades, stages) in the order of classes (or "
            "their sorted order): adds the quadratic-weighted kappa, which is meaningless for unordered "
            "classes."
        ),
    )
    top_k: int | None = key(
        None,
        ge=1,
        le=100,
        description=(
            "Multiclass: the k of top-k accuracy (the share of rows whose true class is among the k highest "
            "scores); default 2 with more than two classes, none with two."
        ),
    )
    id: Column | None = key(
        None,
        description=(
            "Join key across the models' files: rows are matched by id in any order (without it, by position)."
        ),
    )
    weight: Column | None = key(None, description="Weight column, the default for every model.")
    #: what the weights mean: sampling (tests count rows; weights shape the estimates) or frequency
    #: (a row of weight w is w identical rows in every metric, interval and test)
    weight_kind: Literal["sampling", "frequency"] = key(
        "sampling",
        description=(
            "sampling: weights shape the estimates, tests count rows; frequency: a row of weight w is w "
            "identical rows everywhere (whole-number weights)."
        ),
    )
    #: approval rates (share of rows approved, i.e. predicted negative) at which to compare bad rates,
    #: besides the baseline's own
    approval_rates: list[float] = key(
        [],
        before=_none_is_empty,
        check=_approval_rates,
        description=(
            "Binary: also compare bad rates at these shares of rows approved (predicted negative), besides "
            "the baseline's own approval rate."
        ),
    )
    date: Column | None = key(
        None,
        description=(
            "A date column: its first and last date are shown as the period; the credit section adds a table "
            "per month or quarter."
        ),
    )
    threshold: float = key(
        0.5,
        description=(
            "Decision threshold: a row is positive when score >= threshold (<= for direction: lower); a "
            "model's own threshold overrides it."
        ),
    )
    beta: float = key(1.0, gt=0, le=MAX_BETA, description="The β of the F-beta score (β > 1 weighs recall more).")
    costs: CostsConfig | CostMatrix = key(
        CostsConfig(),
        check=_cost_matrix,
        description=(
            "Binary: cost per row of each outcome {fn, fp, tp, tn}; multiclass: a K x K matrix (rows true "
            "class, columns predicted)."
        ),
    )
    baseline: str | None = key(
        None, description=("The model every other one is compared with (default: the first model).")
    )
    primary_metric: str | None = key(
        None,
        description=(
            "The metric that drives the verdicts, the ranking and the forest plot (default: gini for binary, "
            "f1_macro for multiclass)."
        ),
    )
    confidence_level: float = key(
        0.95,
        gt=0,
        lt=1,
        description=(
            "Confidence level of every interval; a test is significant when its Holm-adjusted p is below 1 - "
            "confidence_level."
        ),
    )
    bands: int = key(
        10,
        ge=2,
        le=100,
        description=(
            "Binary: bands of the score-band table (10: deciles), riskiest first, of about equal rows; a band "
            "closes at the first score where the cumulative share of rows reaches k / bands, and equal scores "
            "are never split between bands, so a large tie can leave fewer bands."
        ),
    )
    prevalences: list[float] = key(
        [],
        before=_none_is_empty,
        check=_prevalences,
        description=("Also report optimal thresholds as if the share of positives were each of these."),
    )
    constraints: list[ConstraintConfig] = key(
        [],
        before=_none_is_empty,
        description=("Extra optimal-threshold rules, e.g. {maximize: precision, where: recall, at_least: 0.8}."),
    )
    bootstrap: BootstrapConfig = key(BootstrapConfig(), description="Bootstrap resamples and seed.")
    calibration: CalibrationConfig | None = key(
        None,
        description=(
            "Binary probability models: ECE and MCE, each bin's observed rate with its Clopper-Pearson interval, "
            "Brier's decomposition (reliability, resolution, uncertainty) and skill score, with bootstrap "
            "intervals and each challenger's differences."
        ),
    )
    partial_auc: list[PartialAucRange] = key(
        [],
        before=_none_is_empty,
        description=(
            "Binary: partial AUCs to report and compare, each {specificity: [lo, hi]} or {sensitivity: [lo, hi]}: "
            "the raw area and McClish's corrected one as pROC defines them, with bootstrap intervals and a paired "
            "bootstrap test per challenger (Holm-adjusted with the verdicts)."
        ),
    )
    operating_points: OperatingPointsConfig | None = key(
        None,
        description=(
            "Binary: each model's TPR at the listed false positive rates and precision at the listed recalls, with "
            "bootstrap intervals, each challenger's paired difference from the baseline (descriptive: not in the "
            "verdicts' Holm family), and intervals of every optimal threshold and its values."
        ),
    )
    missing: Literal["error", "drop"] = key(
        "error",
        description=(
            "error: a missing value stops the run; drop: drop the row for every model (counted in the audit)."
        ),
    )
    id_mismatch: Literal["error", "intersect"] = key(
        "error",
        description=(
            "error: an id not in every model stops the run; intersect: keep the ids present in every model (counted)."
        ),
    )
    connections: dict[str, ConnectionConfig] = key(
        {},
        description=(
            "Databases named once, each {url, options}, used by a model's source: {connection: NAME, query: ...} "
            "(needs the sql extra)."
        ),
    )
    models: list[ModelConfig] = key(
        min_length=1,
        description=("The models compared (at most 40): each a name, a file or source, and its score columns."),
    )
    output: OutputConfig = key(OutputConfig(), description="Where and in which formats the report set is written.")
    report: ReportConfig = key(
        ReportConfig(),
        description=("The report's look: a theme directory, a logo, model colours, which sections."),
    )
    engine: Literal["memory", "stream", "dask"] = key(
        "memory",
        description=(
            "memory: read each file whole; stream: record batches in bounded memory on one machine; dask: map"
            " over Parquet parts on a Dask cluster (needs the dask extra). Same numbers in all three."
        ),
    )
    scheduler: str | None = key(
        None,
        check=_scheduler_without_credentials,
        description=(
            "engine: dask: address of a running scheduler (tcp://host:8786); none starts a local cluster. No "
            "credentials in it."
        ),
    )
    stream: StreamConfig = key(
        StreamConfig(),
        description=("Settings of the batched reading (engine: stream and dask): batch size and score binning."),
    )
    checks: list[CheckConfig] = key(
        [],
        before=_none_is_empty,
        description=(
            "Gates a scheduler can act on: reportgen run exits 3 when any check fails (the report is still written)."
        ),
    )
    history: HistoryConfig | None = key(
        None, description=("A SQLite store each run appends its headline numbers to; the report gains a trend section.")
    )
    mlflow: MlflowConfig | None = key(
        None,
        description=(
            "Log each run to MLflow once its report is written: the config as params, key metrics and comparisons "
            "as metrics, the report files as artifacts (the mlflow extra)."
        ),
    )
    credit: CreditConfig | None = key(
        None,
        description=(
            "Turns on the credit validation section (binary): calibration by grade, stability, discrimination"
            " over time."
        ),
    )
    segment: Column | None = key(
        None,
        description=(
            "Deprecated: read as segments: [column] (the run warns). Also turns on the credit section, as it "
            "always did."
        ),
    )
    segments: list[Column] = key(
        [],
        description=(
            "Columns to compare the models within (e.g. age_band, product), each in every model's file: per value "
            "rows, positives, each model's key metrics and each challenger's paired difference of the primary "
            "metric, Holm-adjusted over the values of a column (binary). The credit section breaks its headline "
            "numbers down by the first."
        ),
    )
    segments_min_rows: int = key(
        10,
        ge=2,
        description=(
            "A segment value with fewer positive or fewer negative rows than this is listed as too small to test "
            "(as credit.min_defaults marks a grade)."
        ),
    )
    fairness: FairnessConfig | None = key(
        None,
        description=(
            "Turns on the fairness section (binary): per protected group selection rate, TPR, FPR, precision "
            "and AUC; demographic parity, equalized odds, equal opportunity and adverse-impact ratios between groups."
        ),
    )

    # not keys of the config: where it was read, for messages (kept by dataclasses.replace)
    _source: str | None = dataclasses.field(default=None, repr=False, compare=False)  # config file name
    _text: str | None = dataclasses.field(default=None, repr=False, compare=False)  # its YAML text (key lines)
    #: values holding ${VAR}, as written
    _written: dict[tuple[Any, ...], str] = dataclasses.field(default_factory=dict, repr=False, compare=False)

    def as_written(self) -> dict[str, Any]:
        """The config as JSON data for the audit trail (``metrics.json``'s ``run.config``): each
        value that held ``${VAR}`` as written, never the value of the variable (which may be a
        secret), passed through :func:`reportgen.redact.masked`; every other value as validated."""
        data = json_data(self)
        for (*path, last), text in self._written.items():
            if tuple(path[:2]) in _READ_BACK:
                continue
            node: Any = data
            try:
                for part in path:
                    node = node[part]
                if isinstance(node[last], str):  # a number read from "${N}" stays the number
                    node[last] = masked(text)
            except (KeyError, IndexError, TypeError):  # a value the validation reshaped or dropped
                continue
        return data

    def where(self, *loc: str | int) -> str:
        """``'configs/q3.yaml:12: models[1].score'``: the file, line and key of a config value.

        Lets later stages (sources) point a data problem at the config key that named it.
        """
        path = format_loc(loc)
        if self._source is None:
            return path
        line = yaml_line(self._text, loc) if self._text is not None else None
        return f"{self._source}{f':{line}' if line else ''}: {path}"

    def _rules(self) -> None:
        self._primary_metric()
        self._known_connections()
        self._consistent()

    def _primary_metric(self) -> None:
        """``primary_metric`` is a metric of the task's catalogue with a better direction."""
        v, allowed = self.primary_metric, PRIMARY_METRICS if self.task == "binary" else MULTICLASS_PRIMARY_METRICS
        if v is None or v in allowed:
            return
        if v in catalog.keys(self.task):
            raise InvalidKey(
                ("primary_metric",),
                f"{v!r} cannot rank models: it has no better direction (it depends only on the labels); "
                f"choose one of {', '.join(allowed)}",
            )
        hint = close_matches(v, allowed)
        tip = f"did you mean '{hint[0]}'?" if hint else f"choose one of {', '.join(allowed)}"
        raise InvalidKey(("primary_metric",), f"unknown metric {v!r} for task: {self.task}; {tip}")

    def _known_connections(self) -> None:
        for i, m in enumerate(self.models):
            name = None if m.source is None else m.source.connection
            if name is not None and name not in self.connections:
                hint = close_matches(name, list(self.connections))
                tip = f"did you mean '{hint[0]}'?" if hint else "add it under connections: (with its url)"
                known = f" (connections: {', '.join(self.connections)})" if self.connections else ""
                raise InvalidKey(("models", i, "source", "connection"), f"no connection named {name!r}{known}; {tip}")

    def _consistent(self) -> None:
        if len(self.models) > MAX_MODELS:
            raise InvalidKey(
                ("models",),
                f"{len(self.models)} models; a report compares at most {MAX_MODELS} "
                f"(each adds curves, tables and pairwise tests); split them into several configs",
            )
        names = [m.name for m in self.models]
        dupes = sorted({n for n in names if names.count(n) > 1})
        if dupes:
            raise InvalidKey(
                ("models", names.index(dupes[0], names.index(dupes[0]) + 1), "name"),
                f"duplicate model names: {', '.join(dupes)}; give every model a unique name",
            )
        seen: dict[str, str] = {}
        for i, name in enumerate(names):
            if not _looks(name):
                raise InvalidKey(
                    ("models", i, "name"), f"{name!r} has no visible character; give the model a name to show"
                )
            if (first := seen.setdefault(_looks(name), name)) != name:
                raise InvalidKey(
                    ("models", i, "name"),
                    f"{name!r} looks the same as model {first!r} (they differ only in invisible characters, "
                    f"spaces at the ends or Unicode normalisation); give every model a visibly distinct name",
                )
        if self.baseline is not None and self.baseline not in names:
            hint = close_matches(self.baseline, names)
            tip = f" (did you mean '{hint[0]}'?)" if hint else ""
            raise InvalidKey(("baseline",), f"'{self.baseline}' names no model{tip}; models: {', '.join(names)}")
        for i, m in enumerate(self.models):
            if (m.label or self.label) is None:
                raise InvalidKey(
                    ("models", i), f"no label column for model '{m.name}'; set 'label' at the top or per model"
                )
            if self.task == "binary" and m.score is None:
                raise InvalidKey(
                    ("models", i),
                    f"'score' (the column with the score) is required for task: binary (model '{m.name}')",
                )
            if self.task == "multiclass" and m.prediction is None and m.scores is None:
                raise InvalidKey(
                    ("models", i), f"give 'prediction' and/or 'scores' for task: multiclass (model '{m.name}')"
                )
        for i, c in enumerate(self.checks):
            self._check_rule(i, c, names)
        pushed = [i for i, m in enumerate(self.models) if m.source is not None and m.source.pushdown]
        if pushed and (self.task != "binary" or len(pushed) != len(self.models)):
            raise InvalidKey(
                ("models", pushed[0], "source", "pushdown"),
                "pushdown works for task: binary with every model pushed down (the database returns "
                "score tables, not rows); set pushdown: false to read the rows",
            )
        if (self.credit is not None or self.segment is not None) and self.task != "binary":
            raise InvalidKey(
                ("credit" if self.credit is not None else "segment",),
                "the credit validation section needs task: binary (a default flag)",
            )
        if self.segments and self.task != "binary":
            raise InvalidKey(("segments",), "segments: needs task: binary (the paired comparison of a primary metric)")
        if len(set(self.segments)) != len(self.segments):
            raise InvalidKey(("segments",), "segments lists a column twice")
        if self.fairness is not None and self.task != "binary":
            raise InvalidKey(("fairness",), "the fairness section is for task: binary (a decision threshold per model)")
        if self.calibration is not None and self.task != "binary":
            raise InvalidKey(("calibration",), "calibration: needs task: binary (probabilities of the positive class)")
        if self.operating_points is not None and self.task != "binary":
            raise InvalidKey(("operating_points",), "operating_points: needs task: binary (a ROC curve); remove it")
        if self.partial_auc and self.task != "binary":
            raise InvalidKey(("partial_auc",), "partial AUCs need task: binary (a ROC curve); remove partial_auc")
        if self.top_k is not None and self.task != "multiclass":
            raise InvalidKey(("top_k",), "top_k: is the k of top-k accuracy for task: multiclass; remove it")
        if self.ordinal and self.task != "multiclass":
            raise InvalidKey(
                ("ordinal",), "ordinal: true orders the classes of task: multiclass; remove it for task: binary"
            )
        if self.task == "binary" and isinstance(self.costs, list) and len(self.costs) != 2:
            raise InvalidKey(
                ("costs",),
                f"a {len(self.costs)}x{len(self.costs)} matrix for task: binary; give {{fn: .., fp: ..}} or a 2x2 matrix",
            )
        if (
            self.task == "multiclass"
            and isinstance(self.costs, list)
            and self.classes is not None
            and len(self.costs) != len(self.classes)
        ):
            raise InvalidKey(
                ("costs",),
                f"a {len(self.costs)}x{len(self.costs)} matrix for {len(self.classes)} classes; "
                f"give one row and one column per class",
            )

    def _check_rule(self, i: int, c: CheckConfig, names: list[str]) -> None:
        """A check names models of this run and metrics of its task's catalogue."""
        for role in ("model", "comparison"):
            name = getattr(c, role)
            if name is not None and name not in names:
                hint = close_matches(name, names)
                tip = f"did you mean '{hint[0]}'?" if hint else f"models: {', '.join(names)}"
                raise InvalidKey(("checks", i, role), f"'{name}' names no model; {tip}")
        if c.comparison is not None and c.comparison == self.baseline_name:
            raise InvalidKey(
                ("checks", i, "comparison"),
                f"'{c.comparison}' is the baseline; a comparison check names a model compared with it",
            )
        if c.metric is not None:
            sections = (*catalog.CREDIT_CHECK_METRICS, *catalog.FAIRNESS_CHECK_METRICS, *catalog.SEGMENT_CHECK_METRICS)
            if c.metric in catalog.SEGMENT_CHECK_METRICS and self.task == "binary" and not self.segments:
                raise InvalidKey(
                    ("checks", i, "metric"), f"'{c.metric}' comes from the segments section; set 'segments:'"
                )
            known = catalog.keys(self.task) + (sections if self.task == "binary" else ())
            if c.metric in catalog.FAIRNESS_CHECK_METRICS and self.task == "binary" and self.fairness is None:
                raise InvalidKey(
                    ("checks", i, "metric"), f"'{c.metric}' comes from the fairness section; set 'fairness:'"
                )
            if c.metric in catalog.FAIRNESS_CHANGE_METRICS and c.model is not None and c.model == self.baseline_name:
                raise InvalidKey(
                    ("checks", i, "model"), f"'{c.model}' is the baseline; '{c.metric}' bounds a challenger's change"
                )
            if c.metric in catalog.CREDIT_CHECK_METRICS and self.task == "binary" and self.credit is None:
                raise InvalidKey(
                    ("checks", i, "metric"),
                    f"'{c.metric}' comes from the credit validation section; "
                    f"set 'credit:' (and models[].reference for the PSI)",
                )
            if c.metric not in known:
                hint = close_matches(c.metric, known)
                tip = f"did you mean '{hint[0]}'?" if hint else f"choose one of {', '.join(known)}"
                raise InvalidKey(("checks", i, "metric"), f"unknown metric {c.metric!r} for task: {self.task}; {tip}")

    def with_overrides(self, **values: Any) -> "Config":
        """A copy with top-level keys replaced and validated again (command-line overrides)."""
        data = {name: getattr(self, name) for name in section_keys(Config)} | values
        try:
            cfg = _checked(data)
        except InvalidConfig as exc:
            raise ConfigError(
                f"{self._source or '<config>'}: {_said(exc.problems[0])} (from the command line)"
            ) from None
        return dataclasses.replace(cfg, _source=self._source, _text=self._text, _written=self._written)

    @property
    def primary(self) -> str:
        """The metric that ranks the models and drives the verdicts."""
        if self.primary_metric is not None:
            return self.primary_metric
        return "gini" if self.task == "binary" else "f1_macro"

    @property
    def baseline_name(self) -> str:
        return self.baseline if self.baseline is not None else self.models[0].name

    @property
    def domain(self) -> Literal["credit", "generic"]:
        """The run's domain for a binary decision (:func:`resolved_domain`)."""
        return resolved_domain(self.report.domain, self.credit is not None or bool(self.approval_rates))

    @property
    def favourable(self) -> Favourable:
        """The fairness section's favourable outcome: ``fairness.favourable``, else not_flagged (a
        decline is the flag, approval the favourable outcome) in the credit domain, flagged otherwise."""
        if self.fairness is not None and self.fairness.favourable is not None:
            return self.fairness.favourable
        return "not_flagged" if self.domain == "credit" else "flagged"

    def binary_costs(self) -> CostsConfig:
        """Binary costs; a 2×2 matrix is read as rows = true (neg, pos), columns = predicted."""
        if isinstance(self.costs, CostsConfig):
            return self.costs
        (tn, fp), (fn, tp) = self.costs
        return CostsConfig(fn=fn, fp=fp, tp=tp, tn=tn)


def resolved_domain(domain: str | None, credit: bool) -> Literal["credit", "generic"]:
    """The run's domain for a binary decision, the one rule for its default: ``report.domain`` when
    set, else credit when the run has a credit: block or configured approval rates (``credit``),
    else generic. It picks the report's words and the fairness section's favourable outcome."""
    if domain is not None:
        return "credit" if domain == "credit" else "generic"
    return "credit" if credit else "generic"


# --------------------------------------------------------------------------------------
# Reading a config: YAML text → Config, every problem on one line
# --------------------------------------------------------------------------------------

#: The most characters of a wrong value an error line quotes.
FOUND_CHARS = 60


def _at_most(text: str) -> str:
    """``text`` cut to :data:`FOUND_CHARS` characters with an ellipsis and its full length: a
    wrong value of 100,000 characters was quoted whole, one error line of 100 kB."""
    if len(text) <= FOUND_CHARS:
        return text
    return f"{text[: FOUND_CHARS - 1]}… ({len(text):,} characters)"


#: At most this many problems are listed in one error line.
MAX_PROBLEMS_SHOWN = 5

#: The largest config file read (a config is a few KB).
MAX_CONFIG_BYTES = 16 * 1024 * 1024


def parse_config(
    text: str, source: str = "<config>", overrides: Sequence[str] = (), environ: Mapping[str, str] | None = None
) -> Config:
    """Parse and validate YAML text. Raises :class:`ConfigError` with file, line and key.

    Every problem is listed on one line, unknown keys (with the closest valid key) first:
    a typo such as ``modles`` is the cause of the "models: required key is missing" after it.
    ``overrides`` are ``--set KEY=VALUE`` items, applied before validation (so they are
    validated like the file); then ``${VAR}`` references are expanded from ``environ``
    (default: the process environment).
    """
    data, set_keys, written = read_yaml(text, source, overrides, os.environ if environ is None else environ)
    try:
        cfg = _checked(data)
    except InvalidConfig as exc:
        raise ConfigError(_problems_line(exc.problems, text, source, set_keys)) from None
    except RecursionError:
        raise ConfigError(f"{source}: the config nests too deeply; see configs/demo.yaml for its shape") from None
    return dataclasses.replace(cfg, _source=source, _text=text, _written=written)


def _checked(data: Any) -> Config:
    """``data`` validated as a :class:`Config` (the deprecated ``segment`` read as ``segments``)."""
    return validated(Config, _segment_is_segments(data))


#: Where the config's JSON Schema ships (regenerate with :func:`json_schema`; a test checks it).
SCHEMA_FILE = Path(__file__).resolve().parent / "schema" / "config.schema.json"


def json_schema() -> dict[str, Any]:
    """The config's JSON Schema (draft 2020-12), generated from the sections above so it cannot
    drift: every key, type, choice, bound and default, and ``additionalProperties: false`` at every
    level (a typo is refused by an editor as by :func:`parse_config`). Cross-field rules (a
    label for every model, ``baseline`` naming a model, …) are checked only by reportgen.

    Regenerate ``reportgen/schema/config.schema.json`` after changing a config section::

        PYTHONPATH=. python -c "import json, reportgen.config as c; \\
        print(json.dumps(c.json_schema(), indent=2, ensure_ascii=False))" > reportgen/schema/config.schema.json
    """
    return json_schema_of(Config)


def config_from_mapping(data: dict[str, Any], source: str = "<config>") -> Config:
    """Validate config keys given as a mapping (the library's in-memory entry point,
    :func:`reportgen.api.compare_frames`): the rules and one-line messages of
    :func:`parse_config`, without line numbers. Raises :class:`ConfigError`."""
    try:
        cfg = _checked(data)
    except InvalidConfig as exc:
        raise ConfigError(_problems_line(exc.problems, "", source)) from None
    return dataclasses.replace(cfg, _source=source)


def _said(p: Problem) -> str:
    """A problem as it is printed: the key path, the message, the value found (a scalar, cut to
    :data:`FOUND_CHARS` characters)."""
    quoted = p.quotes and not isinstance(p.found, (dict, list))
    return f"{format_loc(p.loc)}: {p.message}" + (f" (found {_at_most(repr(p.found))})" if quoted else "")


def _problems_line(
    problems: Sequence[Problem], text: str, source: str, set_keys: Sequence[tuple[Any, ...]] = ()
) -> str:
    """Every validation problem on one line, unknown keys first, each with its line number
    (or "(from --set)" for a key given on the command line)."""
    ordered = sorted(problems, key=lambda p: not p.unknown)  # stable: keeps the keys' order
    shown: list[tuple[int | None, str]] = []
    for p in ordered[:MAX_PROBLEMS_SHOWN]:
        if p.loc and from_set(p.loc, set_keys):
            shown.append((None, f"{_said(p)} (from --set)"))
            continue
        shown.append((yaml_line(text, p.loc), _said(p)))
    first_line, first_msg = shown[0]
    out = f"{source}{f':{first_line}' if first_line else ''}: {first_msg}"
    for line, msg in shown[1:]:
        out += f"; also {f'line {line}: ' if line else ''}{msg}"
    more = len(ordered) - len(shown)
    if more:
        out += f" (and {more} more problem{'s' if more > 1 else ''})"
    return out


def load_config(path: str | Path, overrides: Sequence[str] = ()) -> tuple[Config, Path]:
    """Read a config file; return it with data paths resolved against its directory.

    ``overrides``: ``--set KEY=VALUE`` items (see :func:`parse_config`)."""
    p = Path(path)
    # never blocks on a FIFO nor reads a device without end (a scheduled job would hang)
    raw = read_user_file(p, MAX_CONFIG_BYTES, ConfigError, "give the path of a YAML config file")
    try:
        text = raw.decode("utf-8")
    except UnicodeDecodeError:
        raise ConfigError(f"{p}: not UTF-8 text; save the config as UTF-8") from None
    cfg = parse_config(text, str(p), overrides)
    base = p.resolve().parent
    models = [
        dataclasses.replace(
            m,
            file=m.file if m.file is None or m.file.is_absolute() or is_folded(m.file) else (base / m.file),
            source=m.source if m.source is None else m.source.resolved(base),
            reference=m.reference
            if m.reference is None or m.reference.is_absolute() or is_folded(m.reference)
            else base / m.reference,
        )
        for m in cfg.models
    ]
    report = dataclasses.replace(
        cfg.report,
        **{
            k: (v if v.is_absolute() else base / v)
            for k in ("template_dir", "logo")
            if (v := getattr(cfg.report, k)) is not None
        },
    )
    for attr in ("template_dir", "logo"):
        target = getattr(report, attr)
        if target is None:
            continue
        if not target.exists() or target.is_dir() != (attr == "template_dir"):
            what = "a directory of templates" if attr == "template_dir" else "an image file"
            raise ConfigError(
                f"{cfg.where('report', attr)}: {target} is not {what}; fix the path (relative to the config file)"
            )
        if attr == "logo":
            # A logo is embedded in the report: it must be the config's own regular file, never
            # a symlink or path leading out of the config's directory tree (a secret inlined as
            # base64), nor a device or FIFO.
            real = target.resolve()
            if not real.is_relative_to(base):
                raise ConfigError(
                    f"{cfg.where('report', 'logo')}: {target} lies outside the config's directory {base} "
                    f"(or is a symlink leading out of it); copy the logo next to the config"
                )
            if not stat.S_ISREG(real.stat().st_mode):
                raise ConfigError(f"{cfg.where('report', 'logo')}: {target} is not a regular file; give an image file")
            # its bytes too, before any data is read: a run refused a text file named logo.png
            # only when the report was rendered, after the whole computation
            where = f"{cfg.where('report', 'logo')}: {target}"
            try:
                _kind, problem = image_kind(read_logo(real, where))
            except UserError as exc:
                raise ConfigError(str(exc)) from None
            if problem is not None:
                raise ConfigError(f"{where} {problem}")
    connections = {k: dataclasses.replace(c, url=resolved_url(c.url, base)) for k, c in cfg.connections.items()}
    output = dataclasses.replace(cfg.output, dir=os.path.expanduser(cfg.output.dir))
    history = cfg.history
    if history is not None and not history.path.is_absolute():
        history = dataclasses.replace(history, path=base / history.path)
    return dataclasses.replace(
        cfg, models=models, report=report, output=output, history=history, connections=connections
    ), p
