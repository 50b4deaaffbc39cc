"""Which backend a location names: a ``postgresql://`` URL opens PostgreSQL, anything else a SQLite file.

One rule for every face (``Memory(...)``, ``REVERIE_DB``, ``--db``), so a URL given anywhere
opens the same store.
"""

from __future__ import annotations

from pathlib import Path

from reverie.errors import InvalidInputError
from reverie.store.protocol import BUSY_TIMEOUT_MS, Store


def is_server_url(location: str | Path) -> bool:
    """True when ``location`` names a database server (a PostgreSQL URL) rather than a file."""
    from reverie.store.postgres.connect import is_url

    return isinstance(location, str) and is_url(location)


def open_store(
    location: str | Path, *, durability: str = "full", read_only: bool = False, busy_timeout_ms: int = BUSY_TIMEOUT_MS
) -> Store:
    """The store at ``location``: PostgreSQL for a ``postgresql://`` URL, else the SQLite file.

    ``busy_timeout_ms``: how long a write waits for another writer's lock before it fails with
    ``error[storage]`` (SQLite's busy timeout, PostgreSQL's ``lock_timeout``; 0 fails at once)."""
    if isinstance(busy_timeout_ms, bool) or not isinstance(busy_timeout_ms, int) or busy_timeout_ms < 0:
        raise InvalidInputError(f"busy_timeout_ms must be a whole number of milliseconds >= 0, got {busy_timeout_ms!r}")
    if not isinstance(location, str | Path):
        raise InvalidInputError("path must be a file path, ':memory:' or a postgresql:// URL")
    if isinstance(location, str) and not location.strip():
        # SQLite reads "" as a private temporary file, which then failed as "could not switch  to
        # WAL mode" (a blank where the path belongs): the caller meant a path and gave none.
        raise InvalidInputError(
            f"the store path is empty ({location!r}): give a file path such as memory.db, ':memory:' for a "
            "store that lives only in this process, or a postgresql:// URL"
        )
    if is_server_url(location):
        from reverie.store.postgres import PostgresStore

        if durability not in ("full", "fast"):
            raise InvalidInputError(f"durability must be 'full' or 'fast', got {durability!r}")
        return PostgresStore(str(location), read_only=read_only, lock_timeout_ms=busy_timeout_ms)
    from reverie.store.sqlite import SQLiteStore

    return SQLiteStore(location, durability=durability, read_only=read_only, busy_timeout_ms=busy_timeout_ms)
