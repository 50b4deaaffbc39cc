"""Schema 8 on PostgreSQL: fingerprints recomputed, tombstones re-normalised (``store.print_form``).

As SQLite's (``store.sqlite.print_form``), inside the migration's transaction, the items read a
page at a time (keyset on scope, id).
"""

from __future__ import annotations

from collections.abc import Callable, Sequence
from typing import Any

from reverie.store.print_form import item_prints, tombstone_moves
from reverie.store.sqlite.sql import SELECT_ITEM, row_to_item

Query = Callable[[str, Sequence[Any]], list[tuple[Any, ...]]]

_PAGE = 2_000
_INSERT = (
    "INSERT INTO fingerprints (scope, fp, item_id) "
    "SELECT * FROM unnest(%s::text[], %s::text[], %s::text[]) ON CONFLICT DO NOTHING"
)


def rewrite(q: Query, x: Callable[[str, Sequence[Any]], Any]) -> None:
    """Rebuild the ``fingerprints`` rows from the items; move each old-form tombstone to today's key
    (one already held under that key keeps its holder)."""
    x("DELETE FROM fingerprints", ())
    after = ("", "")
    while True:
        rows = q(SELECT_ITEM + " WHERE (scope, id) > (%s, %s) ORDER BY scope, id LIMIT %s", (*after, _PAGE))
        items = [row_to_item(r) for r in rows]
        prints = [(it.scope, fp, it.id) for it in items for fp in item_prints(it)]
        if prints:
            x(_INSERT, [list(col) for col in zip(*prints, strict=True)])
        if len(rows) < _PAGE:
            break
        after = (items[-1].scope, items[-1].id)
    found = q("SELECT scope, fp, item_id FROM tombstones", ())
    for scope, old, new, item_id in tombstone_moves((str(s), str(fp), str(i)) for s, fp, i in found):
        x("DELETE FROM tombstones WHERE scope = %s AND fp = %s", (scope, old))
        x(
            "INSERT INTO tombstones (scope, fp, item_id) VALUES (%s, %s, %s) ON CONFLICT (scope, fp) DO NOTHING",
            (scope, new, item_id),
        )
