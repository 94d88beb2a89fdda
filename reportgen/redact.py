"""What a URL or URI may show: the one place that knows which of its parts are secret.

A URI names a secret in two places: the password of its user info (``scheme://user:PASSWORD@host``)
and the value of a query key that a client takes as a credential (``?sslpassword=…``,
``?token=…``). :data:`SECRET_KEYS` lists those keys for the clients reportgen hands a URI to or
whose URIs a user may paste: libpq (and so ADBC's PostgreSQL driver), ADBC's other drivers,
SQLAlchemy dialects, pyarrow's and fsspec's filesystems, and signed object-store URLs.

:func:`masked` writes each such part as ``***`` wherever a URI stands in a text (a bare URI or a
message quoting one), and leaves a ``${NAME}`` reference as written: it names where the secret
comes from without being it. The config refuses a literal secret in those places
(:mod:`reportgen.config`), keeps ``${NAME}`` unexpanded in what it records, and every message
and record that shows a URI passes it through :func:`masked`. Standard library only: a leaf.
"""

from __future__ import annotations

import re
from urllib.parse import unquote

#: Query keys whose value is a credential, lower case, ``-`` read as ``_``. A dotted key
#: (ADBC's ``adbc.flight.sql.authorization_header``) is matched by its last part.
#: Sources: libpq's connection parameters (PostgreSQL 18, section 32.1.2: ``password``,
#: ``sslpassword``, ``oauth_client_secret``; ``passfile``/``sslkey`` are paths, not secrets);
#: ADBC drivers' options (``password``, ``token``, ``authorization_header``); SQLAlchemy dialects
#: (``password``, ``pwd`` of ODBC strings, Snowflake's ``private_key_file_pwd``, ``passcode``,
#: ``token``); pyarrow's and fsspec's filesystems (S3 ``access_key``/``secret_key``/``session_token``
#: and s3fs ``key``/``secret``/``token``; Azure ``account_key``/``sas_token``/``client_secret``/
#: ``connection_string``/``credential``; GCS ``access_token``/``token``/``credentials``); signed URLs
#: (Azure SAS ``sig``, S3 ``x_amz_signature``/``x_amz_security_token``/``x_amz_credential``, GCS
#: ``x_goog_signature``/``x_goog_credential``); and the usual API names (``api_key``, ``apikey``).
SECRET_KEYS = frozenset(
    (
        "password",
        "passwd",
        "pwd",
        "pass",
        "sslpassword",
        "oauth_client_secret",
        "passcode",
        "passphrase",
        "private_key",
        "private_key_pwd",
        "private_key_file_pwd",
        "access_key",
        "secret_key",
        "session_token",
        "secret_access_key",
        "security_token",
        "key",
        "secret",
        "token",
        "access_token",
        "refresh_token",
        "id_token",
        "auth_token",
        "bearer_token",
        "api_key",
        "apikey",
        "authorization",
        "authorization_header",
        "auth",
        "account_key",
        "sas_token",
        "client_secret",
        "connection_string",
        "credential",
        "credentials",
        "sig",
        "signature",
        "x_amz_signature",
        "x_amz_security_token",
        "x_amz_credential",
        "x_goog_signature",
        "x_goog_credential",
    )
)

#: What :func:`masked` writes in place of a secret.
MASK = "***"

#: A value that is one ``${NAME}`` reference and nothing else (a secret given by the environment).
VAR_ONLY = re.compile(r"\$\{[A-Za-z_][A-Za-z0-9_]*\}")

# scheme://user:PASSWORD@ — the password runs to the last '@' before the path (it may hold '@' or ':')
_USERINFO = re.compile(r"(?P<head>\b[A-Za-z][A-Za-z0-9+.-]*://[^\s/?#@:'\"]*:)(?P<secret>[^\s/?#'\"]*)(?=@)")
# ?key=VALUE or &key=VALUE, in a URI or a text quoting one
_QUERY = re.compile(r"(?P<head>[?&;](?P<key>[^\s=&;#'\"?]+)=)(?P<secret>[^\s&;#'\"]*)")


def is_secret_key(key: str) -> bool:
    """Whether a query key names a credential (:data:`SECRET_KEYS`), as clients read it:
    case-insensitive, ``-`` as ``_``, a dotted key by its last part; percent-escapes decoded."""
    name = unquote(key).strip().lower().replace("-", "_")
    return name in SECRET_KEYS or name.rpartition(".")[2] in SECRET_KEYS


def masked(text: str) -> str:
    """``text`` with every secret of every URI in it written as ``***``: the password of a user
    info and the value of each query key of :data:`SECRET_KEYS`. A ``${NAME}`` reference is kept
    (it names the secret's variable, not its value); anything else in those places is masked."""

    def password(m: re.Match[str]) -> str:
        s = m.group("secret")
        return m.group(0) if VAR_ONLY.fullmatch(s) else m.group("head") + MASK

    def query(m: re.Match[str]) -> str:
        s = m.group("secret")
        if not is_secret_key(m.group("key")) or VAR_ONLY.fullmatch(s):
            return m.group(0)
        return m.group("head") + MASK

    return _QUERY.sub(query, _USERINFO.sub(password, text))


__all__ = ["MASK", "SECRET_KEYS", "VAR_ONLY", "is_secret_key", "masked"]
