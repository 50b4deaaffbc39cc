"""Schema 8 on SQLite: fingerprints recomputed, tombstones re-normalised (``store.print_form``)."""

from __future__ import annotations

import sqlite3

from reverie.store.print_form import item_prints, tombstone_moves
from reverie.store.sqlite.sql import SELECT_ITEM, row_to_item


def rewrite(conn: sqlite3.Connection) -> None:
    """Rebuild the ``fingerprints`` rows from the items, and move each old-form tombstone to its key today.

    A tombstone already held under today's key keeps its holder (``INSERT OR IGNORE``).
    """
    conn.execute("DELETE FROM fingerprints")
    rows = (
        (item.scope, fp, item.id)
        for r in conn.execute(SELECT_ITEM)
        for item in (row_to_item(r),)
        for fp in item_prints(item)
    )
    conn.executemany("INSERT OR IGNORE INTO fingerprints VALUES (?, ?, ?)", list(rows))
    moves = tombstone_moves(
        (str(s), str(fp), str(i)) for s, fp, i in conn.execute("SELECT scope, fp, item_id FROM tombstones")
    )
    for scope, old, new, item_id in moves:
        conn.execute("DELETE FROM tombstones WHERE scope = ? AND fp = ?", (scope, old))
        conn.execute("INSERT OR IGNORE INTO tombstones VALUES (?, ?, ?)", (scope, new, item_id))
