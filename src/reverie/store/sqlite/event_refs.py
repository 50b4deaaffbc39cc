"""The log indexed by the ids its events are about (``event_refs``), written with each event.

Why: replaying one item (``get(id, as_of=T)``, and ``recall(as_of=T)`` for every candidate changed
since T) read the item's events by testing every payload of the scope for the id: 16-40 ms per
item at 10k events, linear in the log, once per replayed candidate (``bench/as_of_recall.py``).
``ABOUT_ITEM`` is that test; each event's ids at the same JSON paths are written to
``event_refs`` with the event, so the read looks up the few events naming the id and applies the
same test to them: the same events, in the same order (``tests/recall/test_as_of_event_refs.py``
holds it to the scan on real files).

- **One definition.** ``ABOUT_PATHS`` and ``ABOUT_LISTS`` make the test, ``refs_of`` (the store
  reads the ids from the payload dict it holds: no JSON is parsed) and the SQL that reads them
  from stored payloads (``fill``; the triggers on a payload a purge rewrites). A file whose
  triggers were made from other paths is refilled on the next writable open (``ensure``).
- **Whole up to a watermark, whoever writes.** ``settings.event_refs_seq``: every event up to it
  is indexed. The store moves it with each event it writes (``record``); a writer without the
  index (an older reverie of the same schema: the file needs no new schema version, like
  ``edges_by_type``) leaves it behind, so reads also take every event past it (``LOOKUP``) and
  the next ``record`` indexes those from their payloads first. Not a projection: ``rebuild``
  leaves it, as it leaves ``events``.
- **No trigger on INSERT.** A statement whose triggers write another table runs in a statement
  transaction, and FTS5 flushes its pending terms at each one (``xSavepoint``): a trigger that
  copied the ids cost +15 % of a batched ``remember``'s instructions, whatever it did. Payload
  rewrites (purges) are rare and keep their triggers.
- **Only canonical UUIDs** (``UUID_GLOB``, what ``model.ids`` makes) are indexed; the store reads
  the events of any other id by the scan, as before (``is_indexed``).
"""

from __future__ import annotations

import re
import sqlite3
from collections.abc import Callable, Mapping
from typing import Any

#: The JSON paths whose string value is the id an event is about (besides ``ABOUT_LISTS``).
ABOUT_PATHS = ("$.id", "$.old_id", "$.item.id", "$.edge.src", "$.edge.dst", "$.intent.id", "$.task.id")
#: (event type, array, path in each element): events about every id listed in an array.
ABOUT_LISTS = (("memory.used", "$.uses", "$[0]"), ("memory.tiers_set", "$.changes", "$.id"))

#: ``events`` rows about the id bound to each ``?`` (``SQLiteStore.events(item_id=…)``): not ones
#: that merely quote it (a child's parents, a text), as in the reference store.
ABOUT_ITEM = " OR ".join(
    [f"json_extract(payload, '{path}') = ?" for path in ABOUT_PATHS]
    + [
        f"(type = '{kind}' AND EXISTS "  # nosec B608 # constant event types and JSON paths
        f"(SELECT 1 FROM json_each(payload, '{array}') WHERE json_extract(json_each.value, '{path}') = ?))"
        for kind, array, path in ABOUT_LISTS
    ]
)

Exec = Callable[..., sqlite3.Cursor]
ExecMany = Callable[..., None]

_HEX = "[0-9a-f]"
UUID_GLOB = "-".join(_HEX * n for n in (8, 4, 4, 4, 12))
_UUID = re.compile(r"[0-9a-f]{8}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{12}")


def _steps(path: str) -> list[str | int]:
    """``$.item.id`` -> ["item", "id"]; ``$[0]`` -> [0] (the path forms ``ABOUT_PATHS`` uses)."""
    out: list[str | int] = []
    for part in re.findall(r"\.(\w+)|\[(\d+)\]", path):
        out.append(part[0] if part[0] else int(part[1]))
    return out


def _at(value: Any, steps: list[str | int]) -> Any:
    """``json_extract`` of the JSON ``json.dumps`` makes of ``value`` (tuples are arrays there)."""
    for step in steps:
        if isinstance(step, int):
            if not isinstance(value, list | tuple) or step >= len(value):
                return None
            value = value[step]
        elif isinstance(value, Mapping):
            value = value.get(step)
        else:
            return None
    return value


_SCALARS = [_steps(p) for p in ABOUT_PATHS]
_LISTS = {kind: (_steps(array), _steps(path)) for kind, array, path in ABOUT_LISTS}


def refs_of(kind: str, payload: Mapping[str, Any]) -> list[str]:
    """The UUIDs an event this reverie writes is about (``ABOUT_ITEM``'s paths), read from the
    payload it already holds: no JSON is parsed."""
    found = [_at(payload, steps) for steps in _SCALARS]
    if kind in _LISTS:
        array, inner = _LISTS[kind]
        elements = _at(payload, array)
        found += [_at(e, inner) for e in elements] if isinstance(elements, list | tuple) else []
    refs = dict.fromkeys(v for v in found if isinstance(v, str) and _UUID.fullmatch(v))
    return list(refs)


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
#: ``settings`` key: every event up to this ``seq`` has its rows (``record``; readers scan past it).
WATERMARK = "event_refs_seq"
_READ_MARK = "SELECT CAST(v AS INTEGER) FROM settings WHERE k = 'event_refs_seq'"
#: The events a read of one id takes: those the index names, and any past the watermark.
LOOKUP = (
    " AND seq IN (SELECT seq FROM event_refs WHERE ref = ? "  # nosec B608 # a constant subquery
    f"UNION ALL SELECT seq FROM events WHERE seq > ({_READ_MARK}))"
)


def _triggers() -> dict[str, str]:
    """name -> the statement that makes it, as ``sqlite_master.sql`` keeps it: a payload a purge
    rewrites (any writer's) adds its ids, one trigger over the scalar paths and one per list.
    Never a trigger on INSERT: a statement whose triggers write another table runs in a statement
    transaction, which makes FTS5 flush its pending terms (``xSavepoint``) on every event written
    — +15 % of a batched ``remember``'s instructions, whatever the trigger did."""
    out: dict[str, str] = {}
    for n, (kind, sql) in enumerate(_inserts("NEW.seq", "NEW.payload", "NEW.type")):
        when = f" WHEN NEW.type = '{kind}'" if kind else ""
        trigger = "event_refs_rewritten" + (f"_{n}" if n else "")
        out[trigger] = f"CREATE TRIGGER {trigger} AFTER UPDATE OF payload ON events{when} BEGIN {sql}; END"
    return out


TRIGGERS = _triggers()
_FILL = [
    sql + " AND ev.seq BETWEEN ? AND ?" for _, sql in _inserts("ev.seq", "ev.payload", "ev.type", "events AS ev, ")
]


def available(conn: sqlite3.Connection) -> bool:
    """True when the file keeps ``event_refs`` (one no writer of this reverie has opened does not)."""
    row = conn.execute("SELECT 1 FROM sqlite_master WHERE type = 'table' AND name = 'event_refs'").fetchone()
    return row is not None


def _found_triggers(conn: sqlite3.Connection) -> dict[str, str]:
    rows = conn.execute("SELECT name, sql FROM sqlite_master WHERE type = 'trigger' AND tbl_name = 'events'")
    return {str(name): str(sql) for name, sql in rows if str(name).startswith("event_refs_")}


def current(conn: sqlite3.Connection) -> bool:
    """True when ``ensure`` has nothing to do: the table, today's triggers and the watermark are there.
    Reads only, so an open can ask it without the write lock (``schema.current``)."""
    return available(conn) and _found_triggers(conn) == TRIGGERS and conn.execute(_READ_MARK).fetchone() is not None


def ensure(conn: sqlite3.Connection) -> None:
    """Inside the migration's transaction: the table, the triggers and the watermark; every event's
    rows filled from the log when the table is new or its triggers were made from other paths."""
    if current(conn):
        return
    found = _found_triggers(conn)
    for name in found:
        conn.execute(f'DROP TRIGGER "{name}"')
    conn.execute(TABLE)
    conn.execute("DELETE FROM event_refs")
    for sql in TRIGGERS.values():
        conn.execute(sql)
    last = int(conn.execute("SELECT coalesce(max(seq), 0) FROM events").fetchone()[0])
    fill(conn.execute, 1, last)
    conn.execute("INSERT OR REPLACE INTO settings (k, v) VALUES (?, ?)", (WATERMARK, str(last)))


def fill(x: Exec, first: int, last: int) -> None:
    """Add the ids of the events ``first`` to ``last`` (seq), read from their payloads."""
    for sql in _FILL:
        x(sql, (first, last))


def record(x: Exec, xmany: ExecMany, seq: int, refs: list[str]) -> None:
    """Index the event just written as ``seq`` (``refs``: ``refs_of`` its payload) and move the
    watermark to it. Events written since the watermark by a writer without this index (an older
    reverie of the same schema) are read from their payloads first, so the index is whole up to
    the watermark. ``x`` / ``xmany``: the store's write statements, inside the event's transaction."""
    found = x(_READ_MARK).fetchone()
    if found is None:  # a file without the index
        return
    if int(found[0]) < seq - 1:
        fill(x, int(found[0]) + 1, seq - 1)
    if refs:
        xmany("INSERT OR IGNORE INTO event_refs (ref, seq) VALUES (?, ?)", [(r, seq) for r in refs])
    x("UPDATE settings SET v = ? WHERE k = 'event_refs_seq'", (str(seq),))
