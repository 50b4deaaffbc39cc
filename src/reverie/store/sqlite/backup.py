"""Where ``Memory.backup`` may write: a file path that is neither the store itself nor somebody else's database.

Why each refusal: SQLite reads ``""`` (and a blank name) as a private temporary database and
``":memory:"`` as one in memory, so a backup "to" either returned success and wrote nothing a
caller could ever restore. A backup onto the store's own file (by any spelling: a relative path,
a symlink) or onto its ``-wal`` / ``-shm`` / ``-journal`` companions would overwrite the data it
copies (the rule every written file follows: ``reverie/outfiles.py``), and so would one onto a
companion of another database. A target that already holds another application's SQLite database
is refused as opening it as a store is (``foreign.py``).

Replacing an earlier backup of this store stays the ordinary case (a nightly copy into one file):
its event log is a prefix of this store's. A target that is *another* reverie store holding events
is refused unless the caller says ``overwrite=True``: one slip in a backup path (a sibling store)
replaced that store's claims with ours, silently (outside probe 5 #2).
"""

from __future__ import annotations

import contextlib
import os
import sqlite3
from pathlib import Path

from reverie.errors import InvalidInputError, StorageError
from reverie.outfiles import database_under, is_store_file
from reverie.store.sqlite.foreign import check_reverie_file


def backup_target(
    target: object, store_path: str, *, source: sqlite3.Connection | None = None, overwrite: bool = False
) -> str:
    """``target`` as a path a backup of the store at ``store_path`` may write, or ``InvalidInputError``.

    ``store_path`` is the file the store's connection has open (``main_file``); ``""`` for an
    in-memory store, which has no file a backup could overwrite. ``source`` (the store's
    connection) tells an earlier backup of this store from another store; ``overwrite`` lets a
    caller replace another reverie store on purpose.
    """
    if not isinstance(target, str | Path):
        raise InvalidInputError(
            f"backup target must be a file path (str or Path), got {type(target).__name__}: name the copy's file"
        )
    text = str(target)
    if not text.strip() or text == ":memory:":
        raise InvalidInputError(
            f"backup target {text!r} names no file (SQLite would copy into a temporary database and keep "
            "nothing): give the backup's file path, such as backup.db"
        )
    if is_store_file(text, store_path):
        raise InvalidInputError(
            f"backup target {text} is the store itself (or a file SQLite keeps beside it): a backup there "
            "would overwrite what it copies; give another file path"
        )
    if os.path.isdir(text):
        raise InvalidInputError(
            f"backup target {text} is a folder: give a file path inside it, such as {text}/backup.db"
        )
    base = database_under(text)
    if base is not None and base != text:
        raise InvalidInputError(
            f"backup target {text} is a file SQLite keeps beside the database {base}: a backup there would "
            "damage that database; give another file path, such as backup.db"
        )
    _check_existing(text, source, overwrite)
    return text


def _check_existing(target: str, source: sqlite3.Connection | None, overwrite: bool) -> None:
    """Refuse an existing target that is a database but not reverie's, or another reverie store
    holding events (read-only look; writes nothing)."""
    if not os.path.isfile(target) or os.path.getsize(target) == 0:
        return
    uri = Path(target).resolve().as_uri() + "?mode=ro"
    try:
        with contextlib.closing(sqlite3.connect(uri, uri=True)) as conn:
            check_reverie_file(conn, target)
            if not overwrite and source is not None and not _earlier_copy(conn, source):
                raise InvalidInputError(
                    f"backup target {target} is another reverie store that holds events (not an earlier backup "
                    "of this one): a backup would replace everything it holds; give another file path, or pass "
                    "overwrite=True if you mean to replace that store"
                )
    except StorageError:
        raise InvalidInputError(
            f"backup target {target} exists and is not a SQLite database: a backup would overwrite it; "
            "give another file path (or remove that file first)"
        ) from None
    except sqlite3.Error:
        return  # unreadable for another reason (locked, permissions): the backup itself reports it


def _earlier_copy(target: sqlite3.Connection, source: sqlite3.Connection) -> bool:
    """Is ``target``'s event log empty, or a prefix of ``source``'s (an earlier backup of it)?

    Events are never deleted (a purge rewrites payloads, not ids), so an earlier copy's first and
    last events sit at the same ``seq`` with the same id in the store it was copied from."""
    try:
        ends = target.execute(
            "SELECT seq, id FROM events WHERE seq IN ((SELECT min(seq) FROM events), (SELECT max(seq) FROM events))"
        ).fetchall()
    except sqlite3.OperationalError:  # no event log at all (a store too new to have one): nothing to lose
        return True
    for seq, event_id in ends:
        row = source.execute("SELECT id FROM events WHERE seq = ?", (seq,)).fetchone()
        if row is None or row[0] != event_id:
            return False
    return True


def main_file(conn: sqlite3.Connection) -> str:
    """The absolute path of the file ``conn`` has open (``""`` in memory): right whatever the working
    directory has become since the store was opened with a relative path."""
    row = conn.execute("PRAGMA database_list").fetchone()  # (seq, name, file) of "main"
    return str(row[2]) if row and row[2] else ""


def write_backup(source: sqlite3.Connection, target: str) -> None:
    """Copy ``source`` into ``target`` with SQLite's online backup API; a failure names the target."""
    try:
        dest = sqlite3.connect(target)
    except sqlite3.Error as exc:
        raise _cannot_write(target, exc) from None
    try:
        source.backup(dest)
    except sqlite3.Error as exc:
        raise _cannot_write(target, exc) from None
    finally:
        dest.close()


def _cannot_write(target: str, exc: sqlite3.Error) -> StorageError:
    name = str(getattr(exc, "sqlite_errorname", None) or "")
    return StorageError(
        f"cannot write the backup to {target} ({exc}{', ' + name if name else ''}); the store is unchanged: "
        "check that its folder exists and is writable"
    )


__all__ = ["backup_target", "is_store_file", "main_file", "write_backup"]
