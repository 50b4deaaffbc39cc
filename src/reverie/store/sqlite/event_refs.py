"""The log indexed by the ids its events are about (``event_refs``), kept by triggers on ``events``.

Why: replaying one item (``get(id, as_of=T)``, and ``recall(as_of=T)`` for every candidate changed
since T) read the item's events by testing every payload of the scope for the id: 16-40 ms per
item at 10k events, linear in the log, once per replayed candidate (``bench/as_of_recall.py``).
``ABOUT_ITEM`` is that test; each event's ids at the same JSON paths are written to
``event_refs`` when the event is, so the read looks up the few events naming the id and applies
the same test to them: the same events, in the same order (``tests/recall/test_as_of_event_refs.py``
holds it to the scan on real files).

- **One definition.** ``ABOUT_PATHS`` and ``ABOUT_LISTS`` make the test, the triggers and
  ``refs_of``. A file whose triggers were made from other paths has them dropped and its rows
  refilled on the next writable open (``ensure``), so a change here never leaves an index that
  misses.
- **Triggers keep it whole, whoever writes.** This reverie writes each event's ids beside it
  (``events.refs``, from the payload it holds: ``refs_of``) and a trigger copies them. A writer
  that predates the column (an older reverie of the same schema) leaves it NULL, and another
  trigger reads the ids from the payload; so the index needs no schema version, like
  ``edges_by_type``. A payload a purge rewrites adds its ids again (``INSERT OR IGNORE``; a row
  left over only costs a lookup). Not a projection: ``rebuild`` leaves it, as it leaves ``events``.
- **Only canonical UUIDs** (``UUID_GLOB``, what ``model.ids`` makes) are indexed; the store reads
  the events of any other id by the scan, as before (``is_indexed``).
- **Cost** (``bench/write_cost.py``, batched ``remember_many``): reading the ids from the payload
  in SQL parses it — linear in the memory's text, +13 % of the instructions per item (walking
  every value, ``json_tree``: +17 %); ``refs_of`` reads them from the dict already in hand.
"""

from __future__ import annotations

import json
import re
import sqlite3
from collections.abc import Mapping
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
        f"(type = '{kind}' AND EXISTS "
        f"(SELECT 1 FROM json_each(payload, '{array}') WHERE json_extract(json_each.value, '{path}') = ?))"
        for kind, array, path in ABOUT_LISTS
    ]
)

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


def refs_of(kind: str, payload: Mapping[str, Any]) -> str:
    """The ``events.refs`` of an event this reverie writes: the UUIDs it is about (``ABOUT_ITEM``'s
    paths, read from the payload it already holds), as a JSON array. The ``event_refs_added``
    trigger copies them; no payload is parsed (that cost up to ~190k instructions per event for
    a long text, +13 % of a batched ``remember``)."""
    found = [_at(payload, steps) for steps in _SCALARS]
    if kind in _LISTS:
        array, inner = _LISTS[kind]
        elements = _at(payload, array)
        found += [_at(e, inner) for e in elements] if isinstance(elements, list | tuple) else []
    refs = dict.fromkeys(v for v in found if isinstance(v, str) and _UUID.fullmatch(v))
    return json.dumps(list(refs))


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


#: ``events.refs``: the ids an event is about as its writer computed them (``refs_of``), NULL
#: from a writer that predates the column (its trigger then reads them from the payload).
REFS_COLUMN = "ALTER TABLE events ADD COLUMN refs TEXT"
_COPY = (
    "INSERT OR IGNORE INTO event_refs (ref, seq) SELECT j.value, NEW.seq FROM json_each(NEW.refs) AS j "
    f"WHERE j.type = 'text' AND j.value GLOB '{UUID_GLOB}'"
)


def _triggers() -> dict[str, str]:
    """name -> the statement that makes it, as ``sqlite_master.sql`` keeps it. A new event with
    ``refs`` (this reverie's): copy them. One without (an older writer's), and a rewritten payload:
    read the payload, one trigger over the scalar paths and one per list (``WHEN`` its type)."""
    copied = "CREATE TRIGGER event_refs_copied AFTER INSERT ON events WHEN NEW.refs IS NOT NULL"
    out = {"event_refs_copied": f"{copied} BEGIN {_COPY}; END"}
    for name, on, only in (("added", "INSERT", "NEW.refs IS NULL"), ("rewritten", "UPDATE OF payload", "")):
        for n, (kind, sql) in enumerate(_inserts("NEW.seq", "NEW.payload", "NEW.type")):
            when = " AND ".join(c for c in (only, f"NEW.type = '{kind}'" if kind else "") if c)
            trigger = f"event_refs_{name}" + (f"_{n}" if n else "")
            out[trigger] = (
                f"CREATE TRIGGER {trigger} AFTER {on} ON events{' WHEN ' + when if when else ''} BEGIN {sql}; END"
            )
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
    if "refs" not in {str(r[1]) for r in conn.execute("PRAGMA table_info(events)")}:
        conn.execute(REFS_COLUMN)
    if available(conn) and found == TRIGGERS:
        return
    for name in found:
        conn.execute(f'DROP TRIGGER "{name}"')
    conn.execute(TABLE)
    conn.execute("DELETE FROM event_refs")
    for sql in TRIGGERS.values():
        conn.execute(sql)
    fill(conn)


def fill(conn: sqlite3.Connection) -> None:
    """Add every event's ids read from its payload (what an older writer's trigger does)."""
    for sql in _FILL:
        conn.execute(sql)
