"""Where ``Memory.backup`` may write: a file path that is neither the store itself nor somebody else's database.

Why each refusal: SQLite reads ``""`` (and a blank name) as a private temporary database and
``":memory:"`` as one in memory, so a backup "to" either returned success and wrote nothing a
caller could ever restore. A backup onto the store's own file (by any spelling: a relative path,
a symlink) or onto its ``-wal`` / ``-shm`` / ``-journal`` companions would overwrite the data it
copies. A target that already holds another application's SQLite database is refused as opening
it as a store is (``foreign.py``); replacing an earlier reverie backup stays the ordinary case.
"""

from __future__ import annotations

import contextlib
import os
import sqlite3
from pathlib import Path

from reverie.errors import InvalidInputError, StorageError
from reverie.store.sqlite.foreign import check_reverie_file

#: Files SQLite keeps beside a database: a backup onto one of them would damage the store.
COMPANIONS = ("", "-wal", "-shm", "-journal")


def backup_target(target: object, store_path: str) -> str:
    """``target`` as a path a backup of the store at ``store_path`` may write, or ``InvalidInputError``.

    ``store_path`` is the file the store's connection has open (``main_file``); ``""`` for an
    in-memory store, which has no file a backup could overwrite.
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
    _check_existing(text)
    return text


def is_store_file(target: str, store_path: str) -> bool:
    """Is ``target`` the store's file, or one of its companions, however it is spelt?"""
    if not store_path:
        return False
    wanted = os.path.realpath(target)
    for suffix in COMPANIONS:
        own = store_path + suffix
        if wanted == os.path.realpath(own):
            return True
        with contextlib.suppress(OSError):
            if os.path.exists(target) and os.path.exists(own) and os.path.samefile(target, own):
                return True  # a hard link: another name for the same file
    return False


def _check_existing(target: str) -> None:
    """Refuse an existing target that is a database but not reverie's (read-only look; writes nothing)."""
    if not os.path.isfile(target) or os.path.getsize(target) == 0:
        return
    uri = Path(target).resolve().as_uri() + "?mode=ro"
    try:
        with contextlib.closing(sqlite3.connect(uri, uri=True)) as conn:
            check_reverie_file(conn, target)
    except StorageError:
        raise InvalidInputError(
            f"backup target {target} exists and is not a SQLite database: a backup would overwrite it; "
            "give another file path (or remove that file first)"
        ) from None
    except sqlite3.Error:
        return  # unreadable for another reason (locked, permissions): the backup itself reports it


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


__all__ = ["backup_target", "main_file", "write_backup"]
