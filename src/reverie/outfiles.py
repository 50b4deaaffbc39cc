"""The one rule for a file reverie writes: it is never a store, nor a file SQLite keeps beside one.

Why: ``reverie export --out agent.db`` atomically replaced the store it exported with one scope's
JSON lines, and ``--out agent.db-wal`` overwrote the live WAL; ``Memory.backup`` and ``migrate``
already refused their own store by any spelling. Every face that writes a file asks here first:
the store it has open (by any spelling: relative, symlink, hard link) and its ``-wal`` / ``-shm``
/ ``-journal`` companions are refused, and so is any other SQLite database on disk, or its
companions, since no export, slice or note is meant to land on one. (A backup, whose output *is*
a database, makes its own choice about an existing one: ``store/sqlite/backup.py``.)

Foundation-level (imports only ``errors``): the store, the CLI and any other face use it alike.
"""

from __future__ import annotations

import contextlib
import os

from reverie.errors import InvalidInputError

#: Files SQLite keeps beside a database (``""``: the database itself).
COMPANIONS = ("", "-wal", "-shm", "-journal")
#: The first 16 bytes of every SQLite 3 database file.
SQLITE_HEADER = b"SQLite format 3\x00"


def is_store_file(target: str, store_path: str) -> bool:
    """Is ``target`` the file at ``store_path``, or one of its companions, however it is spelt?

    ``store_path`` ``""`` (an in-memory store) or a server URL has no file to overwrite."""
    if not store_path or "://" in store_path or store_path == ":memory:":
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


def database_under(target: str) -> str | None:
    """The SQLite database ``target`` is, or is a companion of (``team.db`` for ``team.db-wal``); else ``None``."""
    for suffix in COMPANIONS:
        if suffix and not target.endswith(suffix):
            continue
        base = target[: len(target) - len(suffix)] if suffix else target
        if base and is_sqlite_file(base):
            return base
    return None


def is_sqlite_file(path: str) -> bool:
    """Does ``path`` hold a SQLite database (its header)? Reads 16 bytes; a missing file is not one."""
    try:
        with open(path, "rb") as fh:
            return fh.read(len(SQLITE_HEADER)) == SQLITE_HEADER
    except OSError:
        return False


def check_output_file(target: str, store_path: str, *, what: str, option: str) -> None:
    """Refuse (``InvalidInputError``, nothing written) to write ``what`` to ``target`` when it is the
    store at ``store_path``, a companion of it, or any SQLite database or companion of one.

    ``option`` names where the path came from in the message (``--out``), so the fix is plain.
    """
    if is_store_file(target, store_path):
        raise InvalidInputError(
            f"{option} {target} is the store itself (or a file SQLite keeps beside it: -wal, -shm, -journal): "
            f"writing {what} there would overwrite the store it comes from; give another file path, "
            "such as export.jsonl"
        )
    base = database_under(target)
    if base is not None:
        where = "is a SQLite database" if base == target else f"is a file SQLite keeps beside the database {base}"
        raise InvalidInputError(
            f"{option} {target} {where} (a reverie store, or another program's): writing {what} there would "
            "destroy it; give another file path (or move that file away first, if you mean to replace it)"
        )


__all__ = ["COMPANIONS", "check_output_file", "database_under", "is_sqlite_file", "is_store_file"]
