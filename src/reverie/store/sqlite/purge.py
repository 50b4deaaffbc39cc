"""Purge on SQLite: erase a claim's content from the rows, the log and the bytes of the file.

Logical erasure (which rows and payloads change) is decided by the pure ``model.redact``;
this module writes it, then makes sure the old bytes are gone from disk, because SQLite
keeps deleted content in three places a plain ``DELETE`` / ``UPDATE`` leaves behind:

1. **Free space**: a deleted cell stays in its page (and a freed page on the freelist) until
   overwritten. ``PRAGMA secure_delete`` zeroes what the purge transaction frees; content
   freed *earlier* (a revise, an FTS merge, before the purge was asked for) is only gone
   after ``VACUUM`` rewrites the file from its live rows.
2. **FTS5 segments**: deleting a row from an FTS5 table appends a delete marker; the old
   tokens stay in their segment until a merge drops them. SQLite 3.40 has no FTS5
   ``secure-delete`` option, so the purge runs ``'optimize'`` (merge everything into one
   segment) on both full-text tables inside the same transaction (a message's purge merges the
   archive index, ``conv_fts``, in ``conversation.erase_entries``).

Every step runs for a batch that erases content (``commands.erases_content``: an item's
``Purge`` or a ``PurgeMessage``), even a message purge with no item left to purge.
3. **The WAL**: frames of earlier transactions hold old page images, and a WAL is reused
   from its start without being shortened, so stale frames survive past its current end.
   ``wal_checkpoint(TRUNCATE)`` copies the pages back and cuts the file to zero bytes.

What this cannot reach: copies outside the database (backups, exports, the OS page cache,
SSD wear-levelling remnants) and other processes' memory.
"""

from __future__ import annotations

import json
import re
import sqlite3
from collections.abc import Callable, Mapping, Sequence
from typing import Any

import numpy as np

from reverie.errors import StorageError
from reverie.model.events import Event
from reverie.model.item import Item
from reverie.model.projection import EraseContent
from reverie.model.redact import REDACTED, plan_erasure, revision_chain, used_queries
from reverie.model.validate import fingerprints
from reverie.store.fts_tokens import index_form
from reverie.store.sqlite.sql import SELECT_ITEM, stored_value

Exec = Callable[..., sqlite3.Cursor]
_EVENT_COLUMNS = "seq, id, type, scope, at, cause, payload"
_CHUNK = 200  # bound parameters per statement, well under SQLite's limit
#: A canonical id (``model.ids``) wherever it stands in a payload.
_UUID = re.compile(r"[0-9a-f]{8}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{12}")
_QUOTES_FN = "reverie_quotes_purged"  # registered only for the one scan that uses it


def revisions(c: sqlite3.Connection, scope: str, item_id: str) -> list[str]:
    """Every version of the claim ``item_id`` belongs to, from the revise events of its scope."""
    rows = c.execute(
        "SELECT json_extract(payload, '$.old_id'), json_extract(payload, '$.item.id') FROM events "
        "WHERE scope = ? AND type = 'memory.revised'",
        (scope,),
    ).fetchall()
    return revision_chain(((str(a), str(b)) for a, b in rows), item_id)


def derived_rows(c: sqlite3.Connection, scope: str, parent_ids: Sequence[str]) -> list[tuple[Any, ...]]:
    """Item rows of ``scope`` listing one of ``parent_ids`` as a parent, by id.

    Scans the scope's items with parents (no index on them): a purge rewrites the whole file
    anyway, and nothing else asks this.
    """
    rows: dict[str, Any] = {}
    for chunk in _chunks(list(parent_ids)):
        marks = ", ".join("?" * len(chunk))
        sql = (
            f"{SELECT_ITEM} WHERE scope = ? AND parents != '[]' AND EXISTS "  # nosec B608 # only ? marks
            f"(SELECT 1 FROM json_each(items.parents) WHERE json_each.value IN ({marks}))"
        )
        rows.update((r[0], r) for r in c.execute(sql, (scope, *chunk)))
    return [rows[k] for k in sorted(rows)]


def _event(r: Sequence[Any]) -> Event:
    return Event.from_dict(
        {"seq": r[0], "id": r[1], "type": r[2], "scope": r[3], "at": r[4], "cause": r[5], "payload": json.loads(r[6])}
    )


def _chunks(values: Sequence[str]) -> list[Sequence[str]]:
    return [values[i : i + _CHUNK] for i in range(0, len(values), _CHUNK)]


def _candidates(c: sqlite3.Connection, change: EraseContent) -> list[Event]:
    """A superset of the events the plan may rewrite: cheap substring and type prefilters.

    ``instr`` finds every event quoting a purged id or the id of an edge touching one (the plan
    decides which are really about it): ``edge.unlinked`` names only its edge, and the reason of
    unlinking (or resolving) an edge of the purged claim is that claim's content too. Dismiss /
    undismiss events are all read because a fingerprint is JSON-escaped text a substring match
    could miss; usage events are fetched again by the queries they share.
    """
    found: dict[int, Event] = {}
    base = f"SELECT {_EVENT_COLUMNS} FROM events WHERE scope = ? AND seq < ?"  # nosec B608 # constant column list
    params: list[Any] = [change.scope, change.before_seq]
    for r in c.execute(base + " AND type IN ('memory.dismissed', 'memory.undismissed')", params):
        found[r[0]] = _event(r)
    for r in _quoting(c, base, params, [*change.ids, *_edges_touching(c, change)]):
        found[r[0]] = _event(r)
    queries = sorted(used_queries(found.values(), frozenset(change.ids)))
    for chunk in _chunks(queries):
        marks = ", ".join("?" * len(chunk))
        sql = f"{base} AND type = 'memory.used' AND json_extract(payload, '$.query') IN ({marks})"
        for r in c.execute(sql, [*params, *chunk]):
            found[r[0]] = _event(r)
    return [found[k] for k in sorted(found)]


def _quoting(c: sqlite3.Connection, base: str, params: list[Any], needles: list[str]) -> list[tuple[Any, ...]]:
    """Rows of ``base`` whose payload contains one of ``needles`` (ids), in one pass over the log.

    Up to ``_CHUNK`` needles: one scan, each payload tested with ``instr`` per needle. More (a claim
    revised a thousand times has a thousand versions): testing every needle in every payload, 200 at
    a time, cost versions x events, quadratic in the versions and all under the write lock (probe 3,
    finding 17; ``bench/purge_versions.py``). Then each payload's UUIDs are read once and looked up
    in a set, so the scan stays one pass whatever the number of versions; an id that is not a
    canonical UUID (written by hand or an old import) still gets its own ``instr``.
    """
    if len(needles) <= _CHUNK:
        if not needles:
            return []
        cond = " OR ".join("instr(payload, ?) > 0" for _ in needles)
        return c.execute(f"{base} AND ({cond})", [*params, *needles]).fetchall()
    uuids = frozenset(n for n in needles if _UUID.fullmatch(n))
    rows: dict[int, tuple[Any, ...]] = {}

    def quotes(payload: object) -> bool:
        return isinstance(payload, str) and not uuids.isdisjoint(_UUID.findall(payload))

    c.create_function(_QUOTES_FN, 1, quotes, deterministic=True)
    try:
        rows.update((r[0], r) for r in c.execute(f"{base} AND {_QUOTES_FN}(payload)", params))
    finally:
        c.create_function(_QUOTES_FN, 1, None)
    for chunk in _chunks([n for n in needles if n not in uuids]):
        cond = " OR ".join("instr(payload, ?) > 0" for _ in chunk)
        rows.update((r[0], r) for r in c.execute(f"{base} AND ({cond})", [*params, *chunk]))
    return [rows[k] for k in sorted(rows)]


def _edges_touching(c: sqlite3.Connection, change: EraseContent) -> list[str]:
    """Ids of the scope's edges (open or closed) with a purged version at either end, sorted."""
    found: set[str] = set()
    for chunk in _chunks(list(change.ids)):
        marks = ", ".join("?" * len(chunk))
        sql = f"SELECT id FROM edges WHERE scope = ? AND (src IN ({marks}) OR dst IN ({marks}))"  # nosec B608 # only ? marks
        found.update(str(r[0]) for r in c.execute(sql, (change.scope, *chunk, *chunk)))
    return sorted(found)


def erase_log(x: Exec, c: sqlite3.Connection, change: EraseContent) -> None:
    """Rewrite the events, edge metas, last-used queries and tombstones the plan names."""
    plan = plan_erasure(_candidates(c, change), change.ids, change.fingerprints)
    for event in plan.events:
        x("UPDATE events SET payload = ? WHERE seq = ?", (json.dumps(event.payload, ensure_ascii=False), event.seq))
    for edge_id, meta in plan.edge_meta.items():
        x(
            "UPDATE edges SET meta = ? WHERE id = ? AND scope = ?",
            (json.dumps(meta, ensure_ascii=False, sort_keys=True), edge_id, change.scope),
        )
    for chunk in _chunks(sorted(plan.queries)):
        marks = ", ".join("?" * len(chunk))
        x(
            f"UPDATE items SET last_used_query = ? WHERE scope = ? AND last_used_query IN ({marks})",  # nosec B608 # only ? marks
            (REDACTED, change.scope, *chunk),
        )
    for fp, holder in plan.tombstones.items():
        if holder is None:
            x("DELETE FROM tombstones WHERE scope = ? AND fp = ?", (change.scope, fp))
        else:
            x("INSERT OR REPLACE INTO tombstones VALUES (?, ?, ?)", (change.scope, fp, holder))


def reindex_redacted(
    x: Exec, c: sqlite3.Connection, item: Item, vectors: Mapping[str, np.ndarray], extra: Callable[[Item], str]
) -> bool | None:
    """Replace every index row of a purged version; None if its content did not change.

    None (replaying an already rewritten log) sends the caller down the ordinary update path.
    Otherwise returns whether a *current* vector row changed (the vector cache must reload).
    """
    row = c.execute("SELECT n, text, key, value, tags FROM items WHERE id = ?", (item.id,)).fetchone()
    if row is None or (row[1], row[2], row[3], tuple(json.loads(row[4]))) == (
        item.text,
        item.key,
        stored_value(item.value),
        item.tags,
    ):
        return None
    n = row[0]
    fts, vec_table = ("fts", "vectors") if item.is_current else ("fts_history", "vectors_history")
    x("DELETE FROM fts WHERE rowid = ?", (n,))
    x("DELETE FROM fts_history WHERE rowid = ?", (n,))
    indexed = (n, index_form(item.text), index_form(extra(item)))  # nosec B610 # extra is ours, not Django's
    x(f"INSERT INTO {fts} (rowid, text, extra) VALUES (?, ?, ?)", indexed)  # nosec B608 # fts: a constant name
    old = c.execute("SELECT vec FROM vectors WHERE n = ? UNION ALL SELECT vec FROM vectors_history WHERE n = ?", (n, n))
    old_vec = old.fetchone()
    current_changed = x("DELETE FROM vectors WHERE n = ?", (n,)).rowcount > 0
    x("DELETE FROM vectors_history WHERE n = ?", (n,))
    blob: bytes | None = old_vec[0] if old_vec is not None and row[1] == item.text else None
    if item.text in vectors and row[1] != item.text:
        blob = np.asarray(vectors[item.text], dtype=np.float32).tobytes()
    if blob is not None:
        x(f"INSERT INTO {vec_table} (n, scope, vec) VALUES (?, ?, ?)", (n, item.scope, blob))  # nosec B608 # constant table name
        current_changed = current_changed or item.is_current
    x("DELETE FROM fingerprints WHERE item_id = ?", (item.id,))
    if item.is_current:
        for fp in fingerprints(item.text, item.key, item.value):
            x("INSERT OR IGNORE INTO fingerprints VALUES (?, ?, ?)", (item.scope, fp, item.id))
    return current_changed


def optimize_fts(x: Exec) -> None:
    """Merge each full-text index into one segment, dropping the deleted rows' tokens."""
    for table in ("fts", "fts_history"):
        x(f"INSERT INTO {table} ({table}) VALUES ('optimize')")  # nosec B608 # table: fts or fts_history


#: Settings key written in a purge's own transaction and deleted once its file scrub is done:
#: a process killed in between leaves it, and the next open finishes the scrub (``SQLiteStore``).
SCRUB_PENDING = "purge_scrub_pending"


def mark_scrub_pending(x: Exec) -> None:
    """Inside the purge's transaction: the file still holds erased bytes until ``scrub_file`` ends."""
    x("INSERT OR REPLACE INTO settings VALUES (?, '1')", (SCRUB_PENDING,))


def scrub_pending(c: sqlite3.Connection) -> bool:
    """Whether a committed purge has not finished scrubbing the file yet."""
    return c.execute("SELECT 1 FROM settings WHERE k = ?", (SCRUB_PENDING,)).fetchone() is not None


def scrub_file(c: sqlite3.Connection, path: str) -> None:
    """After the purge commits: rewrite the file from its live rows, empty the WAL, clear the marker.

    Runs outside any transaction (VACUUM cannot run inside one). The purge is already
    durable, so a failure here says so: the content is gone from every read, the marker stays,
    and running the purge again (it is allowed on a purged item) or reopening the store retries
    the scrubbing. The marker is cleared only once the WAL was emptied *after* the VACUUM: from
    then on the WAL holds only frames of clean pages, so the last checkpoint may be refused.
    """
    if path == ":memory:":
        return  # nothing on disk
    try:
        c.execute("PRAGMA wal_checkpoint(TRUNCATE)").fetchall()  # VACUUM's frames then start at 0
        c.execute("VACUUM")
        busy = c.execute("PRAGMA wal_checkpoint(TRUNCATE)").fetchone()[0]
        if not busy:
            c.execute("DELETE FROM settings WHERE k = ?", (SCRUB_PENDING,))
            c.execute("PRAGMA wal_checkpoint(TRUNCATE)").fetchall()  # the marker's frame: clean pages only
    except sqlite3.Error as exc:
        raise StorageError(
            f"the purge is committed (no read returns the content) but scrubbing the file failed ({exc}); "
            "free disk space or wait for other writers, then purge the same id again"
        ) from None
    if busy:
        raise StorageError(
            "the purge is committed (no read returns the content) but the WAL could not be emptied: another "
            "connection kept reading past the busy timeout; close other readers, then purge the same id again"
        )
