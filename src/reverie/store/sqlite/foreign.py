"""Is the SQLite file at a path a reverie store, a new one, or somebody else's database?

Why: opening a store migrates it, and migrating an unknown file meant writing reverie's whole
schema (and WAL mode) into another application's database — even for a read command, whose
answer was then "no items". A path is a store only if it is empty (a new store) or its
``settings`` table holds reverie's ``schema_version``; a file that holds reverie's own ``events``
table without one is a damaged store (``schema.read_schema_version`` says so). Anything else is
refused before a byte of it changes, naming the path and the fix.
"""

from __future__ import annotations

import sqlite3

from reverie.errors import InvalidInputError, StorageError

#: The columns of reverie's event log: a file with an ``events`` table of these is reverie's.
EVENT_COLUMNS = frozenset({"seq", "id", "type", "scope", "at", "cause", "payload"})
#: How many of a foreign file's table names an error quotes.
NAMES_SHOWN = 5


def check_reverie_file(conn: sqlite3.Connection, path: str) -> None:
    """Refuse (``InvalidInputError``) a non-empty database at ``path`` that is not a reverie store.

    Reads only ``sqlite_master`` and ``settings``: nothing is written, and an empty database (a
    zero-byte file, a fresh ``sqlite3.connect``) passes, as a new store. A file that is not a
    SQLite database at all raises ``StorageError`` naming ``path``.
    """
    try:
        names = [str(r[0]) for r in conn.execute("SELECT name FROM sqlite_master WHERE type = 'table' ORDER BY name")]
        if not names and conn.execute("SELECT count(*) FROM sqlite_master").fetchone()[0] == 0:
            return
        if _has_version(conn, names) or _has_event_log(conn, names):
            return
    except sqlite3.DatabaseError as exc:
        if str(getattr(exc, "sqlite_errorname", "") or "") == "SQLITE_NOTADB":
            raise not_a_database(path) from None
        raise
    raise foreign_file(path, names)


def not_a_database(path: str) -> StorageError:
    """What a path naming a file that is no SQLite database at all gets (a text file, a damaged header)."""
    return StorageError(
        f"{path} is not a SQLite database (SQLITE_NOTADB), so it is no reverie store; nothing was changed. "
        "Check the path; if it is your store, its header is damaged: restore a backup"
    )


def foreign_file(path: str, tables: list[str]) -> InvalidInputError:
    """What a path naming another application's SQLite database gets."""
    shown = ", ".join(tables[:NAMES_SHOWN]) + (", …" if len(tables) > NAMES_SHOWN else "")
    holds = f"tables: {shown}" if tables else "no tables, only other schema objects"
    return InvalidInputError(
        f"{path} is a SQLite database but not a reverie store ({holds}; no reverie schema_version), so "
        "reverie will not write its tables into it; nothing was changed. Check the path: name a reverie "
        "store, or a new file to make one"
    )


def _has_version(conn: sqlite3.Connection, tables: list[str]) -> bool:
    if "settings" not in tables:
        return False
    try:
        return conn.execute("SELECT 1 FROM settings WHERE k = 'schema_version'").fetchone() is not None
    except sqlite3.OperationalError:  # a foreign table named settings, without reverie's columns
        return False


def _has_event_log(conn: sqlite3.Connection, tables: list[str]) -> bool:
    if "events" not in tables:
        return False
    columns = {str(r[1]) for r in conn.execute("PRAGMA table_info(events)")}
    return columns >= EVENT_COLUMNS


__all__ = ["check_reverie_file", "foreign_file", "not_a_database"]
