"""Opening a store file for inspection only: a connection that cannot change it.

Why the ``mode=ro`` URI and not only ``PRAGMA query_only``: ``mode=ro`` is SQLite's own
guarantee that the connection never writes the file, and it opens a file the user may not write
(chmod 0444) where a read-write open would fail; ``query_only`` is set as a second lock. A
read-only open cannot migrate, so a file of another schema is refused with the fix instead of
read with the wrong layout. The store's write path refuses first (``SQLiteStore._write``), so
no write reaches SQLite at all and the caller gets ``ReadOnlyError``, not a driver error.
"""

from __future__ import annotations

import sqlite3
from pathlib import Path

from reverie.errors import CorruptStoreError, NotFoundError, ReadOnlyError, StorageError
from reverie.store.sqlite.foreign import check_reverie_file
from reverie.store.sqlite.schema import SCHEMA_VERSION, read_schema_version


def connect(path: str, timeout: float) -> sqlite3.Connection:
    """A ``mode=ro`` connection to the existing file at ``path`` (never creates one)."""
    if path == ":memory:":
        raise NotFoundError("cannot open ':memory:' read-only: an in-memory store is always empty; name a store file")
    if not Path(path).is_file():
        raise NotFoundError(f"cannot open {path} read-only: no such file; name an existing store file")
    uri = Path(path).resolve().as_uri() + "?mode=ro"
    return sqlite3.connect(uri, uri=True, isolation_level=None, check_same_thread=False, timeout=timeout)


def configure(conn: sqlite3.Connection, path: str, busy_timeout_ms: int) -> None:
    """Pragmas that change nothing on disk, then the schema check (other ``sqlite3.Error`` raise as is)."""
    try:
        _check_schema(conn, path, busy_timeout_ms)
    except sqlite3.Error as exc:
        name = str(getattr(exc, "sqlite_errorname", None) or "")
        if name.startswith(("SQLITE_READONLY", "SQLITE_CANTOPEN")):
            # A WAL file is read through its -shm index, which the first reader creates beside it.
            raise StorageError(
                f"cannot open {path} read-only: SQLite must create {Path(path).name}-shm beside it to read a "
                f"WAL store, and its folder is not writable ({exc}); copy the file into a writable folder to inspect it"
            ) from None
        raise


def _check_schema(conn: sqlite3.Connection, path: str, busy_timeout_ms: int) -> None:
    conn.execute(f"PRAGMA busy_timeout = {int(busy_timeout_ms)}")
    check_reverie_file(conn, path)  # another application's database: refused, not read as schema 0
    conn.execute("PRAGMA query_only = ON")
    conn.execute("PRAGMA foreign_keys = ON")
    has_settings = conn.execute("SELECT 1 FROM sqlite_master WHERE type = 'table' AND name = 'settings'").fetchone()
    found = read_schema_version(conn) if has_settings else 0  # a damaged version row: CorruptStoreError
    if found > SCHEMA_VERSION:
        raise CorruptStoreError(
            f"this store was written by a newer reverie (schema {found} > {SCHEMA_VERSION}); upgrade reverie"
        )
    if found < SCHEMA_VERSION:
        raise StorageError(
            f"{path} is not a current reverie store (schema {found}; this reverie reads {SCHEMA_VERSION}) and a "
            "read-only open cannot upgrade it: check the path, or open it once for writing"
        )


def refusal(path: str) -> ReadOnlyError:
    """What every write on a read-only store raises, before it touches the file."""
    return ReadOnlyError(
        f"{path} is open read-only (for inspection), so nothing was written; "
        "open it without read-only mode to change it"
    )
