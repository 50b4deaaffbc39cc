"""Opening a PostgreSQL connection, and every driver error translated into the stable tree.

The URL is checked before any connection is tried (a clear ``InvalidInputError`` for a string
that is not one), and a password never appears in a message: ``redact`` replaces it.
"""

from __future__ import annotations

import re
from collections.abc import Callable
from typing import Any
from urllib.parse import urlsplit, urlunsplit

from reverie.errors import CorruptStoreError, InvalidInputError, ReverieError, StorageError

SCHEMES = ("postgresql://", "postgres://")


def is_url(target: object) -> bool:
    """True for a PostgreSQL connection URL (``postgresql://`` or ``postgres://``)."""
    return isinstance(target, str) and target.lower().startswith(SCHEMES)


def redact(url: str) -> str:
    """``url`` with its password (if any) replaced by ``***``, for messages and logs."""
    try:
        parts = urlsplit(url)
        if parts.password is None:
            return url
        netloc = parts.netloc.rsplit("@", 1)
        user = netloc[0].split(":", 1)[0]
        return urlunsplit(parts._replace(netloc=f"{user}:***@{netloc[1]}"))
    except ValueError:
        return re.sub(r"://([^:/@]*):[^@]*@", r"://\1:***@", url)


def check_url(url: str) -> None:
    """Refuse a string that cannot be a connection URL, before anything is tried."""
    if "\x00" in url:
        raise InvalidInputError("a PostgreSQL URL cannot contain a NUL character")
    try:
        parts = urlsplit(url)
        _ = parts.port  # a non-numeric port raises here
    except ValueError as exc:
        raise InvalidInputError(
            f"{redact(url)!r} is not a valid PostgreSQL URL ({exc}); write it as "
            "postgresql://USER:PASSWORD@HOST:PORT/DATABASE and percent-encode reserved characters "
            "in the user or password (@ as %40, : as %3A, / as %2F)"
        ) from None


def connect(url: str, *, autocommit: bool = True) -> Any:
    """A psycopg connection to ``url``, or a ``ReverieError`` saying what to fix."""
    check_url(url)
    try:
        import psycopg
    except ImportError:
        raise StorageError("PostgreSQL support needs the psycopg driver: pip install 'reverie[postgres]'") from None
    try:
        return psycopg.connect(url, autocommit=autocommit, connect_timeout=10)
    except psycopg.ProgrammingError as exc:  # a malformed conninfo (bad option, bad escape)
        raise InvalidInputError(f"{redact(url)!r} is not a usable PostgreSQL URL: {_first_line(exc)}") from None
    except psycopg.Error as exc:
        raise translate(exc, url) from None


def pipelines() -> bool:
    """The driver's libpq can pipeline (libpq 14+): a read's statement goes in one round trip with
    its scopes' naming (``PostgresStore._named``)."""
    import psycopg

    return bool(psycopg.Pipeline.is_supported())


def busy(text: str) -> StorageError:
    """A write that waited ``lock_timeout`` for another writer: SQLite's busy error, word for word."""
    return StorageError(f"the store stayed locked by another writer past the busy timeout ({text}); retry")


def ensure_vector(q: Callable[[str], list[tuple[Any, ...]]], x: Callable[[str], int], where: str) -> None:
    """Enable pgvector in the database, or say exactly what the operator must do; creates nothing else.

    Runs before the first table is created, so a refusal leaves the database as it was. Two
    causes need two different people: the extension is not *installed* on the server (the
    server's administrator installs the package for that PostgreSQL version), or it is installed
    but this role may not *enable* it (pgvector is not a trusted extension before 0.5: a
    superuser, or the database owner for a trusted one, runs CREATE EXTENSION once).
    """
    if q("SELECT 1 FROM pg_extension WHERE extname = 'vector'"):
        return
    if not q("SELECT 1 FROM pg_available_extensions WHERE name = 'vector'"):
        major = int(q("SELECT current_setting('server_version_num')::int / 10000")[0][0])
        raise StorageError(
            f"the PostgreSQL {major} server of {where} has no pgvector extension installed, and reverie stores "
            f"its vectors with it. Install pgvector for PostgreSQL {major} on the server (Debian/Ubuntu: apt "
            f"install postgresql-{major}-pgvector; others: https://github.com/pgvector/pgvector#installation), or "
            "use a managed PostgreSQL that offers pgvector; then open the store again. Nothing was created"
        )
    try:
        x("CREATE EXTENSION IF NOT EXISTS vector")
    except StorageError as exc:
        user, db = q("SELECT current_user::text, current_database()::text")[0]
        raise StorageError(
            f"pgvector is installed on the server of {where}, but role {user!r} may not enable it in database "
            f"{db!r} ({exc.message}). Have a superuser (or the database owner, where pgvector is a trusted "
            f"extension) run: CREATE EXTENSION vector;  in database {db!r}, then open the store again. "
            "Nothing was created"
        ) from None


def _first_line(exc: BaseException) -> str:
    text = str(exc).strip().splitlines()
    return redact(text[0]) if text else type(exc).__name__


def translate(exc: BaseException, url: str = "") -> ReverieError:
    """A driver error as a ``ReverieError``: every write runs in one transaction the server rolls
    back on failure, so "nothing was changed" holds for each of these."""
    import psycopg

    where = f" ({redact(url)})" if url else ""
    state = getattr(exc, "sqlstate", None) or ""
    text = _first_line(exc)
    if state == "28P01" or "password authentication failed" in text:
        return StorageError(f"PostgreSQL refused the password{where}: check the user and password in the URL")
    if state.startswith("28"):
        return StorageError(f"PostgreSQL refused the login{where}: {text}")
    if state == "3D000":
        return StorageError(f"the database does not exist{where}: create it first (createdb NAME)")
    if state == "55P03":  # lock_not_available: a write's lock_timeout ran out (the store uses no NOWAIT)
        return busy(text)
    if state in ("40001", "40P01"):
        return StorageError(f"the write collided with a concurrent one and was rolled back ({text}); retry")
    if state == "42501":
        return StorageError(f"PostgreSQL denied the statement{where}: {text}; nothing was changed")
    if state.startswith("53"):
        return StorageError(f"the PostgreSQL server ran out of a resource ({text}); nothing was changed; retry")
    if state.startswith("XX") or state == "22P02":
        return CorruptStoreError(f"the PostgreSQL store returned damaged data ({text})")
    if isinstance(exc, psycopg.OperationalError) or state.startswith(("08", "57")):
        return StorageError(
            f"the PostgreSQL server could not be reached or went away{where} ({text}); the transaction "
            "in flight was rolled back, nothing of it was written; check the server and retry"
        )
    return StorageError(f"PostgreSQL storage failure ({text})")
