"""The log indexed by the ids its events are about (``event_refs``), kept by triggers on ``events``.

Why: replaying one item (``get(id, as_of=T)``, and ``recall(as_of=T)`` for every candidate changed
since T) read the item's events by testing every payload of the scope for the id: 16-40 ms per
item at 10k events, linear in the log, once per replayed candidate (``bench/as_of_recall.py``).
``ABOUT_ITEM`` is that test; each event's ids at the same JSON paths are written to
``event_refs`` when the event is, so the read looks up the few events naming the id and applies
the same test to them: the same events, in the same order (``tests/recall/test_as_of_event_refs.py``
holds it to the scan on real files).

- **One definition.** ``ABOUT_PATHS`` and ``ABOUT_LISTS`` make both the test and the triggers.
  A file whose triggers were made from other paths has them dropped and its rows refilled on
  the next writable open (``ensure``), so a change here can never leave an index that misses.
- **Triggers, not the store's insert**: every writer of the file (an older reverie of the same
  schema too) keeps the index whole, so it needs no schema version, like ``edges_by_type``. A
  payload rewritten by a purge adds its ids again (``INSERT OR IGNORE``; a row left over only
  costs a lookup). Not a projection: ``rebuild`` leaves it, as it leaves ``events``.
- **Only canonical UUIDs** (``UUID_GLOB``, what ``model.ids`` makes) are indexed; the store reads
  the events of any other id by the scan, as before (``is_indexed``).
- **Cost**: one ``json_extract`` of all the scalar paths per event (one parse; a list's trigger
  runs only for its event type): ~5 µs per event inserted, where walking every value of the
  payload (``json_tree``) cost ~58 µs and +17 % of a batched ``remember``'s instructions.
"""

from __future__ import annotations

import re
import sqlite3

#: The JSON paths whose string value is the id an event is about (besides ``ABOUT_LISTS``).
ABOUT_PATHS = ("$.id", "$.old_id", "$.item.id", "$.edge.src", "$.edge.dst", "$.intent.id", "$.task.id")
#: (event type, array, path in each element): events about every id listed in an array.
ABOUT_LISTS = (("memory.used", "$.uses", "$[0]"), ("memory.tiers_set", "$.changes", "$.id"))

#: ``events`` rows about the id bound to each ``?`` (``SQLiteStore.events(item_id=…)``): not ones
#: that merely quote it (a child's parents, a text), as in the reference store.
ABOUT_ITEM = " OR ".join(
    [f"json_extract(payload, '{path}') = ?" for path in ABOUT_PATHS]
    + [
        f"(type = '{kind}' AND EXISTS "
        f"(SELECT 1 FROM json_each(payload, '{array}') WHERE json_extract(json_each.value, '{path}') = ?))"
        for kind, array, path in ABOUT_LISTS
    ]
)

_HEX = "[0-9a-f]"
UUID_GLOB = "-".join(_HEX * n for n in (8, 4, 4, 4, 12))
_UUID = re.compile(r"[0-9a-f]{8}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{12}")


def is_indexed(item_id: str) -> bool:
    """Would ``event_refs`` hold this id's events (a canonical UUID)? Else the store scans."""
    return _UUID.fullmatch(item_id) is not None


def _inserts(seq: str, payload: str, kind: str, source: str = "") -> list[tuple[str | None, str]]:
    """(the event type it is for, or None: every event; the statement) pairs that write the ids an
    event is about (``ABOUT_ITEM``'s paths) with its ``seq``: one over the scalar paths (one
    ``json_extract`` of them all, one parse), one per list. ``source``: the table the names come
    from (``events AS ev, ``), empty in a trigger (``NEW``)."""
    doc = f"CASE WHEN json_valid({payload}) THEN {payload} ELSE '{{}}' END"  # a bad payload never fails a write
    paths = ", ".join(f"'{p}'" for p in ABOUT_PATHS)
    head = "INSERT OR IGNORE INTO event_refs (ref, seq) SELECT"
    out: list[tuple[str | None, str]] = [
        (
            None,
            f"{head} j.value, {seq} FROM {source}json_each(json_extract({doc}, {paths})) AS j "
            f"WHERE j.type = 'text' AND j.value GLOB '{UUID_GLOB}'",
        )
    ]
    for name, array, path in ABOUT_LISTS:
        ref = f"json_extract(e.value, '{path}')"
        only = f"{kind} = '{name}' AND " if source else ""  # a trigger's WHEN says it before any parse
        out.append(
            (
                name,
                f"{head} {ref}, {seq} FROM {source}json_each({doc}, '{array}') AS e "
                f"WHERE {only}{ref} GLOB '{UUID_GLOB}'",
            )
        )
    return out


TABLE = (
    "CREATE TABLE IF NOT EXISTS event_refs (ref TEXT NOT NULL, seq INTEGER NOT NULL, PRIMARY KEY (ref, seq)) "
    "WITHOUT ROWID"
)


def _triggers() -> dict[str, str]:
    """name -> the statement that makes it, as ``sqlite_master.sql`` keeps it: for a new event and
    for a rewritten payload, one trigger over the scalar paths and one per list (``WHEN`` its type)."""
    out: dict[str, str] = {}
    for name, on in (("added", "INSERT"), ("rewritten", "UPDATE OF payload")):
        for n, (kind, sql) in enumerate(_inserts("NEW.seq", "NEW.payload", "NEW.type")):
            when = f" WHEN NEW.type = '{kind}'" if kind else ""
            trigger = f"event_refs_{name}" + (f"_{n}" if n else "")
            out[trigger] = f"CREATE TRIGGER {trigger} AFTER {on} ON events{when} BEGIN {sql}; END"
    return out


TRIGGERS = _triggers()
_FILL = [sql for _, sql in _inserts("ev.seq", "ev.payload", "ev.type", source="events AS ev, ")]


def available(conn: sqlite3.Connection) -> bool:
    """True when the file keeps ``event_refs`` (one no writer of this reverie has opened does not)."""
    row = conn.execute("SELECT 1 FROM sqlite_master WHERE type = 'table' AND name = 'event_refs'").fetchone()
    return row is not None


def ensure(conn: sqlite3.Connection) -> None:
    """Inside the migration's transaction: the table and these triggers, the rows filled from the
    log when the table is new or its triggers were made from other paths."""
    rows = conn.execute("SELECT name, sql FROM sqlite_master WHERE type = 'trigger' AND tbl_name = 'events'")
    found = {str(name): str(sql) for name, sql in rows if str(name).startswith("event_refs_")}
    if available(conn) and found == TRIGGERS:
        return
    for name in found:
        conn.execute(f'DROP TRIGGER "{name}"')
    conn.execute(TABLE)
    conn.execute("DELETE FROM event_refs")
    for sql in TRIGGERS.values():
        conn.execute(sql)
    for sql in _FILL:
        conn.execute(sql)
