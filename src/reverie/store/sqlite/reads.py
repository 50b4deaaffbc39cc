"""The SQLite store's reads: the reducer's view of state (``StateView``) and the ``Store`` reads
of items, edges, the log, tombstones, counts, intents, tasks, conversations, dream runs and
idempotency keys.

Why a layer of its own: these only read (in ``_read``, or on the open write's connection for
the reducer's view), so the writes layer builds on them and nothing here can write.
"""

from __future__ import annotations

import json
from collections.abc import Sequence
from datetime import datetime
from typing import Any

from reverie.model.agenda import Intent, IntentQuery, Task, TaskQuery
from reverie.model.clock import from_iso
from reverie.model.conversation import ConversationState
from reverie.model.conversation import Entry as ConversationEntry
from reverie.model.events import Event
from reverie.model.item import Edge, Item
from reverie.model.projection import SUPERSEDED_PREFIX
from reverie.model.query import Filter, Sort
from reverie.store import evidence
from reverie.store.fts_tokens import tokenize
from reverie.store.idempotency import Recorded
from reverie.store.protocol import dream_run
from reverie.store.sqlite import agenda, event_refs, purge
from reverie.store.sqlite import conversation as conv
from reverie.store.sqlite import idempotency as keys
from reverie.store.sqlite.base import SQLiteBase
from reverie.store.sqlite.event_refs import ABOUT_ITEM as _ABOUT_ITEM
from reverie.store.sqlite.sql import SELECT_ITEM, compile_filter, compile_sort, row_to_edge, row_to_item

#: ``edges_by_type``'s two statements, whole (no SQL is assembled from parts at run time).
_EDGES_OF_TYPE_ALL = "SELECT * FROM edges WHERE scope = ? AND type = ? ORDER BY id"
_EDGES_OF_TYPE_CURRENT = "SELECT * FROM edges WHERE scope = ? AND type = ? AND closed_at IS NULL ORDER BY id"
#: The distinct scopes of the log, in order, as a skip scan of ``events_by_scope``: each step seeks
#: the next scope above the last one, so the cost grows with the scopes, not with the events
#: (``SELECT DISTINCT`` walked the whole index: ~60x slower at 200k events).
_SCOPES = (
    "WITH RECURSIVE s(scope) AS (SELECT min(scope) FROM events "
    "UNION ALL SELECT (SELECT min(scope) FROM events WHERE scope > s.scope) FROM s WHERE s.scope IS NOT NULL) "
    "SELECT scope FROM s WHERE scope IS NOT NULL"
)


class SQLiteReads(SQLiteBase):
    """``SQLiteBase`` plus every read of the store's tables (search lives in ``search.py``)."""

    # -- StateView ------------------------------------------------------------------------
    def item(self, scope: str, item_id: str) -> Item | None:
        row = self._conn.execute(SELECT_ITEM + " WHERE id = ? AND scope = ?", (item_id, scope)).fetchone()
        return row_to_item(row) if row else None

    def versions(self, scope: str, item_ids: Sequence[str]) -> dict[str, int]:
        out: dict[str, int] = {}
        for start in range(0, len(item_ids), 500):
            chunk = item_ids[start : start + 500]
            # ``+scope``: one unique-index probe per id, never a scan of the scope (see get_many)
            sql = f"SELECT id, version FROM items WHERE id IN ({', '.join('?' * len(chunk))}) AND +scope = ?"  # nosec B608 # only ? marks
            out.update(self._conn.execute(sql, (*chunk, scope)).fetchall())
        return out

    def live_holders(self, scope: str, fingerprint: str) -> list[Item]:
        rows = self._conn.execute(
            # oldest first (uuid7 ids sort by creation time)
            "SELECT item_id FROM fingerprints WHERE scope = ? AND fp = ? ORDER BY item_id",
            (scope, fingerprint),
        ).fetchall()
        return [item for item in (self.item(scope, r[0]) for r in rows) if item is not None]

    def tombstone(self, scope: str, fingerprint: str) -> str | None:
        row = self._conn.execute(
            "SELECT item_id FROM tombstones WHERE scope = ? AND fp = ?", (scope, fingerprint)
        ).fetchone()
        return str(row[0]) if row else None

    def last_recorded_at(self, scopes: Sequence[str]) -> datetime | None:
        """The store's last event time (one writer at a time: exact inside the write)."""
        row = self._conn.execute("SELECT at FROM events ORDER BY seq DESC LIMIT 1").fetchone()
        return from_iso(row[0]) if row else None

    def paused(self, scope: str) -> bool:
        with self._read(flush=False) as c:  # ``paused`` is written directly, never pending
            row = c.execute("SELECT paused FROM scope_state WHERE scope = ?", (scope,)).fetchone()
            return bool(row and row[0])

    def edge(self, scope: str, edge_id: str) -> Edge | None:
        row = self._conn.execute("SELECT * FROM edges WHERE id = ? AND scope = ?", (edge_id, scope)).fetchone()
        return row_to_edge(row) if row else None

    def edges_between(self, scope: str, a: str, b: str) -> list[Edge]:
        # Two full (scope, src, dst) conjuncts so SQLite probes an index per direction (MULTI-INDEX
        # OR); ``scope = ? AND (… OR …)`` scanned the scope's edges: 0.3 ms per call at 3.6k edges,
        # once per link a dream pass writes.
        rows = self._conn.execute(
            "SELECT * FROM edges WHERE (scope = ? AND src = ? AND dst = ?) OR (scope = ? AND src = ? AND dst = ?) "
            "ORDER BY id",
            (scope, a, b, scope, b, a),
        )
        return [row_to_edge(r) for r in rows]

    def revisions(self, scope: str, item_id: str) -> list[str]:
        return purge.revisions(self._conn, scope, item_id)

    def superseded_by_fingerprint(self, scope: str, fingerprint: str) -> Item | None:
        row = self._conn.execute(
            # the newest superseded holder (uuid7 ids sort by creation time)
            "SELECT item_id FROM fingerprints WHERE scope = ? AND fp = ? ORDER BY item_id DESC LIMIT 1",
            (scope, SUPERSEDED_PREFIX + fingerprint),
        ).fetchone()
        return self.item(scope, row[0]) if row else None

    def edges_of(self, scope: str, item_id: str) -> list[Edge]:
        rows = self._conn.execute(  # two (scope, end) probes, as in ``edges``
            "SELECT * FROM edges WHERE ((scope = ? AND src = ?) OR (scope = ? AND dst = ?)) AND closed_at IS NULL "
            "ORDER BY id",
            (scope, item_id, scope, item_id),
        )
        return [row_to_edge(r) for r in rows]

    def edges_from(self, scope: str, item_id: str, type: str) -> list[Edge]:
        rows = self._conn.execute(  # the (scope, src) prefix of an index: this item's own edges
            # ``+type``: not the (scope, type) index, which holds every edge of the type in the scope
            "SELECT * FROM edges WHERE scope = ? AND src = ? AND +type = ? AND closed_at IS NULL ORDER BY id",
            (scope, item_id, type),
        )
        return [row_to_edge(r) for r in rows]

    def evidence_sources(self, scope: str, item_id: str) -> frozenset[tuple[str, str]]:
        return evidence.sources(self.events, scope, item_id)

    def derived(self, scope: str, parent_ids: Sequence[str]) -> list[Item]:
        return [row_to_item(r) for r in purge.derived_rows(self._conn, scope, parent_ids)]

    # The reducer's reads below touch no table the pending moves change: no flush (see ``_read``).
    def conversation_state(self, scope: str, conversation: str) -> ConversationState | None:
        with self._read(flush=False) as c:
            return conv.state(c, scope, conversation)

    def conversation_entry(self, scope: str, entry_id: str) -> ConversationEntry | None:
        with self._read(flush=False) as c:
            return conv.entry(c, scope, entry_id)

    def intent(self, scope: str, intent_id: str) -> Intent | None:
        with self._read(flush=False) as c:
            return agenda.intent(c, scope, intent_id)

    def task(self, scope: str, task_id: str) -> Task | None:
        with self._read(flush=False) as c:
            return agenda.task(c, scope, task_id)

    # -- intents and tasks: reads (store/sqlite/agenda.py) -------------------------------
    def intents(self, scope: str, where: IntentQuery, *, limit: int) -> list[Intent]:
        """The scope's intents matching ``where``, highest priority first (ties: by id)."""
        with self._read() as c:
            return agenda.intents(c, scope, where, limit)

    def tasks(self, scope: str, where: TaskQuery, *, limit: int) -> list[Task]:
        """The scope's tasks matching ``where``, in creation order (by id)."""
        with self._read() as c:
            return agenda.tasks(c, scope, where, limit)

    # -- conversations: reads (store/sqlite/conversation.py) -----------------------------
    def conversation_entries(
        self, scope: str, conversation: str, *, after_position: int = 0, kinds: Sequence[str] | None = None
    ) -> list[ConversationEntry]:
        """The conversation's entries after ``after_position``, in order (of ``kinds`` when given)."""
        with self._read() as c:
            return conv.entries(c, scope, conversation, after_position, kinds)

    def conversations(self, scope: str) -> list[ConversationState]:
        """Every conversation of the scope, most recently active first (ties: by id)."""
        with self._read() as c:
            return conv.conversations(c, scope)

    def conversation_speakers(self, scope: str) -> list[str]:
        """Every speaker of a message in the scope, sorted (recall matches them as authors)."""
        with self._read() as c:
            return conv.speakers(c, scope)

    def archive_search(
        self, scope: str, query: str, *, conversation: str | None, limit: int
    ) -> list[ConversationEntry]:
        """Messages whose words hold ``query``'s words as a phrase, newest first (spans: the caller).

        The phrase is the query's tokens as the archive's rows hold them (``fts_tokens.tokenize``:
        "#1182" is "1182", "東京" is "東 京"), quoted: FTS5 tokenizes a string literal again, and
        these tokens come out of it unchanged."""
        tokens = tokenize(query)
        if not tokens:
            return []
        match = '"' + " ".join(tokens).replace('"', '""') + '"'
        with self._read() as c:
            return conv.archive_search(c, scope, match, conversation, limit)

    def dream_runs(self, scope: str, *, limit: int) -> list[dict[str, Any]]:
        with self._read() as c:
            rows = c.execute(
                "SELECT scope, at, summary FROM dream_runs WHERE scope = ? ORDER BY n DESC LIMIT ?",
                (scope, max(limit, 0)),
            ).fetchall()
        return [dream_run(r[0], r[1], json.loads(r[2])) for r in rows]

    # -- idempotency keys (store/idempotency.py) -------------------------------------------
    def idempotency(self, scope: str, key: str, *, now: datetime) -> Recorded | None:
        with self._read() as c:
            return keys.lookup(c, scope, key, now)

    def idempotency_rows(self, scope: str, *, now: datetime) -> list[Recorded]:
        with self._read() as c:
            return keys.rows(c, scope, now)

    # -- Store protocol: reads ------------------------------------------------------------
    def get(self, scope: str, item_id: str) -> Item | None:
        with self._read():
            return self.item(scope, item_id)

    def get_many(self, scope: str, item_ids: Sequence[str]) -> dict[str, Item]:
        out: dict[str, Item] = {}
        ids = list(dict.fromkeys(item_ids))
        with self._read() as c:
            for start in range(0, len(ids), 500):
                chunk = ids[start : start + 500]
                # ``+scope`` keeps SQLite off the scope indexes: with more than a few ids and no
                # ANALYZE statistics its planner preferred scanning the whole scope (5 ms at 10k
                # items, linear in the scope) over one unique-index probe per id (0.1 ms).
                sql = SELECT_ITEM + f" WHERE id IN ({', '.join('?' * len(chunk))}) AND +scope = ?"
                for row in c.execute(sql, (*chunk, scope)):
                    out[row[0]] = row_to_item(row)
        return out

    def query(
        self, scope: str, where: Filter, sort: Sort, *, limit: int, offset: int = 0, subscopes: bool = False
    ) -> list[Item]:
        params: list[Any] = [scope]
        scope_sql = "scope = ?"
        if subscopes:
            scope_sql = "(scope = ? OR (scope >= ? AND scope < ?))"
            params += [scope + "/", scope + "0"]  # '0' is the character after '/'
        cond = compile_filter(where, params)
        sql = f"{SELECT_ITEM} WHERE {scope_sql} AND {cond} ORDER BY {compile_sort(sort)} LIMIT ? OFFSET ?"
        with self._read() as c:
            return [row_to_item(r) for r in c.execute(sql, (*params, limit, offset))]

    def count(self, scope: str, where: Filter) -> int:
        params: list[Any] = [scope]
        cond = compile_filter(where, params)
        with self._read() as c:
            return int(c.execute(f"SELECT count(*) FROM items WHERE scope = ? AND {cond}", params).fetchone()[0])  # nosec B608 # compile_filter: values are ? params

    def edges(self, scope: str, item_id: str | None = None, *, include_closed: bool = False) -> list[Edge]:
        sql = "SELECT * FROM edges WHERE scope = ?"
        params: list[Any] = [scope]
        if item_id is not None:
            # Spelled as two (scope, end) pairs so SQLite probes edges_by_src and edges_by_dst
            # (MULTI-INDEX OR); ``scope = ? AND (src = ? OR dst = ?)`` scanned every edge of the
            # scope (7 ms per call at 20k edges; recall makes one call per returned hit).
            sql = "SELECT * FROM edges WHERE ((scope = ? AND src = ?) OR (scope = ? AND dst = ?))"
            params = [scope, item_id, scope, item_id]
        if not include_closed:
            sql += " AND closed_at IS NULL"
        with self._read() as c:
            return [row_to_edge(r) for r in c.execute(sql + " ORDER BY id", params)]

    def edges_by_type(self, scope: str, type: str, *, include_closed: bool = False) -> list[Edge]:
        # Probes ``edges_by_type`` (scope, type): an alias lookup reads the scope's alias edges,
        # not every about / derived_from edge extraction adds (it read all of them once per claim).
        sql = _EDGES_OF_TYPE_ALL if include_closed else _EDGES_OF_TYPE_CURRENT
        with self._read() as c:
            return [row_to_edge(r) for r in c.execute(sql, (scope, type))]

    def events(self, scope: str, *, item_id: str | None = None, after_seq: int = 0, limit: int = 1000) -> list[Event]:
        sql = "SELECT seq, id, type, scope, at, cause, payload FROM events WHERE scope = ? AND seq > ?"
        params: list[Any] = [scope, after_seq]
        if item_id is not None:
            if self._event_refs and event_refs.is_indexed(item_id):
                # The events about the id (``event_refs``), not a scan of every payload.
                sql += event_refs.LOOKUP
                params.append(item_id)
            # instr() is a cheap prefilter; _ABOUT_ITEM keeps only events *about* the item (as the
            # reference store does), not ones that merely quote its id (a child's parents, a text).
            sql += f" AND instr(payload, ?) > 0 AND ({_ABOUT_ITEM})"
            params += [item_id] * (1 + _ABOUT_ITEM.count("?"))
        sql += " ORDER BY seq LIMIT ?"
        params.append(limit)
        with self._read() as c:
            rows = c.execute(sql, params).fetchall()
        return [
            Event.from_dict(
                {
                    "seq": r[0],
                    "id": r[1],
                    "type": r[2],
                    "scope": r[3],
                    "at": r[4],
                    "cause": r[5],
                    "payload": json.loads(r[6]),
                }
            )
            for r in rows
        ]

    def tombstones(self, scope: str) -> list[tuple[str, str]]:
        with self._read() as c:
            rows = c.execute("SELECT fp, item_id FROM tombstones WHERE scope = ? ORDER BY fp", (scope,))
            return [(r[0], r[1]) for r in rows]

    def scopes(self) -> list[str]:
        """Every scope with an event in its log (``Store.scopes``), sorted: one index seek per scope
        (``_SCOPES``), not a walk of the whole log, since the review page reads it on every view."""
        with self._read() as c:
            return [str(r[0]) for r in c.execute(_SCOPES)]

    def summary_counts(self, scope: str) -> dict[str, dict[str, int]]:
        """Counts by tier / kind / source (current items) and by status (all items)."""
        out: dict[str, dict[str, int]] = {}
        with self._read() as c:
            for col, current in (("tier", True), ("kind", True), ("source", True), ("status", False)):
                where = "scope = ? AND closed_at IS NULL" if current else "scope = ?"
                rows = c.execute(
                    f"SELECT {col}, count(*) FROM items WHERE {where} GROUP BY {col} ORDER BY {col}",  # nosec B608 # constants
                    (scope,),
                )
                out[col] = {r[0]: r[1] for r in rows}
        return out
