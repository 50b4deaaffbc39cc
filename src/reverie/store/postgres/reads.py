"""The PostgreSQL store's reads: the reducer's view of state (``StateView``) and the ``Store``
reads of items, edges, the log, tombstones, counts, intents, tasks, conversations, dream runs
and idempotency keys.

Why a layer of its own: these only read (``_read``, or inside the open write's transaction
for the reducer's view), so the writes layer builds on them and nothing here can write.
"""

from __future__ import annotations

import json
import re
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
from reverie.store.idempotency import Recorded
from reverie.store.postgres import agenda, projections, purge
from reverie.store.postgres import conversation as conv
from reverie.store.postgres import idempotency as keys
from reverie.store.postgres.base import _SCOPES, PostgresBase
from reverie.store.postgres.filters import compile_filter, compile_sort
from reverie.store.postgres.schema import UUID_PATTERN
from reverie.store.protocol import dream_run
from reverie.store.sqlite.sql import SELECT_ITEM, row_to_edge, row_to_item

_EVENTS = "SELECT seq, id, type, scope, at, cause, payload FROM events"
#: An id the log's index holds (``schema._V6``); any other id is found by the scan.
_UUID = re.compile(UUID_PATTERN)
_ABOUT_ITEM = (
    "((payload::jsonb ->> 'id') = %s OR (payload::jsonb ->> 'old_id') = %s "
    "OR (payload::jsonb #>> '{item,id}') = %s "
    "OR (payload::jsonb #>> '{edge,src}') = %s OR (payload::jsonb #>> '{edge,dst}') = %s "
    "OR (payload::jsonb #>> '{intent,id}') = %s OR (payload::jsonb #>> '{task,id}') = %s "
    "OR (type = 'memory.used' AND EXISTS "
    "(SELECT 1 FROM jsonb_array_elements(payload::jsonb -> 'uses') u WHERE (u ->> 0) = %s)) "
    "OR (type = 'memory.tiers_set' AND EXISTS "
    "(SELECT 1 FROM jsonb_array_elements(payload::jsonb -> 'changes') c WHERE (c ->> 'id') = %s)))"
)

#: ``summary_counts`` in one scan: the items grouped by each column on its own (grouping sets),
#: every group with its current and its total count; ``grouping()`` says which column a row is of
#: (its bit is 0: tier 7, kind 11, source 13, status 14). The columns are NOT NULL.
_SUMMARY = (
    "SELECT grouping(tier, kind, source, status), coalesce(tier, kind, source, status), "
    "count(*) FILTER (WHERE closed_at IS NULL), count(*) FROM items WHERE scope = %s "
    "GROUP BY GROUPING SETS ((tier), (kind), (source), (status)) ORDER BY 1, 2"
)
_SUMMARY_SETS = {7: "tier", 11: "kind", 13: "source", 14: "status"}


def _event(r: Sequence[Any]) -> Event:
    return Event.from_dict(
        {"seq": r[0], "id": r[1], "type": r[2], "scope": r[3], "at": r[4], "cause": r[5], "payload": json.loads(r[6])}
    )


class PostgresReads(PostgresBase):
    """``PostgresBase`` plus every read of the store's tables (search lives in ``search.py``)."""

    # -- StateView ------------------------------------------------------------------------
    def item(self, scope: str, item_id: str) -> Item | None:
        with self._read([scope]):
            rows = self.q(SELECT_ITEM + " WHERE scope = %s AND id = %s", (scope, item_id))
        return row_to_item(rows[0]) if rows else None

    def last_recorded_at(self, scopes: Sequence[str]) -> datetime | None:
        """The last event time in ``scopes``: exact under their write locks, taken before the
        batch runs. Per scope, not per store: the one row ordering every writer (``event_seq``)
        is locked only at the first append, after the batch's record time is chosen."""
        with self._read(list(scopes)):
            times = [self.q("SELECT at FROM events WHERE scope = %s ORDER BY seq DESC LIMIT 1", (s,)) for s in scopes]
        found = [from_iso(str(rows[0][0])) for rows in times if rows]
        return max(found) if found else None  # a batch names one scope nearly always: one round trip

    def versions(self, scope: str, item_ids: Sequence[str]) -> dict[str, int]:
        with self._read([scope]):
            rows = self.q("SELECT id, version FROM items WHERE scope = %s AND id = ANY (%s)", (scope, list(item_ids)))
        return {str(r[0]): int(r[1]) for r in rows}

    def live_holders(self, scope: str, fingerprint: str) -> list[Item]:
        if self._absent is not None and (scope, fingerprint) in self._absent.fingerprints:
            return []
        with self._read([scope]):
            rows = self.q(
                "SELECT item_id FROM fingerprints WHERE scope = %s AND fp = %s ORDER BY item_id",
                (scope, fingerprint),
            )
            return [item for item in (self.item(scope, r[0]) for r in rows) if item is not None]

    def tombstone(self, scope: str, fingerprint: str) -> str | None:
        if self._absent is not None and (scope, fingerprint) in self._absent.tombstones:
            return None
        with self._read([scope]):
            rows = self.q("SELECT item_id FROM tombstones WHERE scope = %s AND fp = %s", (scope, fingerprint))
        return str(rows[0][0]) if rows else None

    def paused(self, scope: str) -> bool:
        with self._read([scope]):
            rows = self.q("SELECT paused FROM scope_state WHERE scope = %s", (scope,))
        return bool(rows and rows[0][0])

    def edge(self, scope: str, edge_id: str) -> Edge | None:
        with self._read([scope]):
            rows = self.q(
                f"SELECT {projections._EDGE_COLUMNS} FROM edges WHERE scope = %s AND id = %s",  # nosec B608 # constant
                (scope, edge_id),
            )
        return row_to_edge(rows[0]) if rows else None

    def _edges(self, scope: str, where: str, params: Sequence[Any], *, keep_run: bool = False) -> list[Edge]:
        sql = f"SELECT {projections._EDGE_COLUMNS} FROM edges WHERE scope = %s AND {where} ORDER BY id"  # nosec B608 # constant
        with self._read([scope], keep_run=keep_run):
            return [row_to_edge(r) for r in self.q(sql, (scope, *params))]

    def edges_between(self, scope: str, a: str, b: str) -> list[Edge]:
        return self._edges(scope, "((src = %s AND dst = %s) OR (src = %s AND dst = %s))", (a, b, b, a))

    def revisions(self, scope: str, item_id: str) -> list[str]:
        with self._read([scope]):
            return purge.revisions(self.q, scope, item_id)

    def superseded_by_fingerprint(self, scope: str, fingerprint: str) -> Item | None:
        if self._absent is not None and (scope, SUPERSEDED_PREFIX + fingerprint) in self._absent.fingerprints:
            return None
        with self._read([scope]):
            rows = self.q(
                "SELECT item_id FROM fingerprints WHERE scope = %s AND fp = %s ORDER BY item_id DESC LIMIT 1",
                (scope, SUPERSEDED_PREFIX + fingerprint),
            )
            return self.item(scope, rows[0][0]) if rows else None

    def edges_of(self, scope: str, item_id: str) -> list[Edge]:
        return self._edges(scope, "(src = %s OR dst = %s) AND closed_at IS NULL", (item_id, item_id))

    def edges_from(self, scope: str, item_id: str, type: str) -> list[Edge]:
        return self._edges(scope, "src = %s AND type = %s AND closed_at IS NULL", (item_id, type))

    def evidence_sources(self, scope: str, item_id: str) -> frozenset[tuple[str, str]]:
        return evidence.sources(self.events, scope, item_id)

    def derived(self, scope: str, parent_ids: Sequence[str]) -> list[Item]:
        with self._read([scope]):
            return [row_to_item(r) for r in purge.derived_rows(self.q, scope, parent_ids)]

    def conversation_state(self, scope: str, conversation: str) -> ConversationState | None:
        with self._read([scope]):
            return conv.state(self.q, scope, conversation)

    def conversation_entry(self, scope: str, entry_id: str) -> ConversationEntry | None:
        with self._read([scope]):
            return conv.entry(self.q, scope, entry_id)

    # -- conversations: reads -------------------------------------------------------------
    def conversation_entries(
        self, scope: str, conversation: str, *, after_position: int = 0, kinds: Sequence[str] | None = None
    ) -> list[ConversationEntry]:
        with self._read([scope]):
            return conv.entries(self.q, scope, conversation, after_position, kinds)

    def conversations(self, scope: str) -> list[ConversationState]:
        with self._read([scope]):
            return conv.conversations(self.q, scope)

    def conversation_speakers(self, scope: str) -> list[str]:
        with self._read([scope]):
            return conv.speakers(self.q, scope)

    def archive_search(
        self, scope: str, query: str, *, conversation: str | None, limit: int
    ) -> list[ConversationEntry]:
        with self._read([scope]):
            return conv.archive_search(self.q, scope, query, conversation, limit)

    def idempotency(self, scope: str, key: str, *, now: datetime) -> Recorded | None:
        with self._read([scope]):
            return keys.lookup(self.q, scope, key, now)

    def idempotency_rows(self, scope: str, *, now: datetime) -> list[Recorded]:
        with self._read([scope]):
            return keys.rows(self.q, scope, now)

    # -- intents and tasks (store/postgres/agenda.py) --------------------------------------
    def intent(self, scope: str, intent_id: str) -> Intent | None:
        with self._read([scope]):
            return agenda.intent(self.q, scope, intent_id)

    def task(self, scope: str, task_id: str) -> Task | None:
        with self._read([scope]):
            return agenda.task(self.q, scope, task_id)

    def intents(self, scope: str, where: IntentQuery, *, limit: int) -> list[Intent]:
        """The scope's intents matching ``where``, highest priority first (ties: by id)."""
        with self._read([scope]):
            return agenda.intents(self.q, scope, where, limit)

    def tasks(self, scope: str, where: TaskQuery, *, limit: int) -> list[Task]:
        """The scope's tasks matching ``where``, in creation order (by id)."""
        with self._read([scope]):
            return agenda.tasks(self.q, scope, where, limit)

    def dream_runs(self, scope: str, *, limit: int) -> list[dict[str, Any]]:
        with self._read([scope]):
            rows = self.q(
                "SELECT scope, at, summary FROM dream_runs WHERE scope = %s ORDER BY n DESC LIMIT %s",
                (scope, max(limit, 0)),
            )
        return [dream_run(r[0], r[1], json.loads(r[2])) for r in rows]

    # -- Store protocol: reads ------------------------------------------------------------
    def get(self, scope: str, item_id: str) -> Item | None:
        return self.item(scope, item_id)

    def get_many(self, scope: str, item_ids: Sequence[str]) -> dict[str, Item]:
        ids = list(dict.fromkeys(item_ids))
        with self._read([scope], keep_run=True):
            rows = self.q(SELECT_ITEM + " WHERE scope = %s AND id = ANY (%s)", (scope, ids))
            if self._txn_scopes is None:
                self._edge_run.saw(scope, ids)  # recall asks their edges next (edgerun.py)
        return {r[0]: row_to_item(r) for r in rows}

    def query(
        self, scope: str, where: Filter, sort: Sort, *, limit: int, offset: int = 0, subscopes: bool = False
    ) -> list[Item]:
        params: list[Any] = [scope]
        scope_sql = "scope = %s"
        if subscopes:
            scope_sql = "(scope = %s OR starts_with(scope, %s))"
            params.append(scope + "/")
        cond = compile_filter(where, params)
        sql = f"{SELECT_ITEM} WHERE {scope_sql} AND {cond} ORDER BY {compile_sort(sort)} LIMIT %s OFFSET %s"
        with self._txn([scope], subscopes=subscopes):
            return [row_to_item(r) for r in self.q(sql, (*params, limit, offset))]

    def count(self, scope: str, where: Filter) -> int:
        params: list[Any] = [scope]
        cond = compile_filter(where, params)
        with self._read([scope]):
            return int(self.q(f"SELECT count(*) FROM items WHERE scope = %s AND {cond}", params)[0][0])  # nosec B608 # compiled: values are params

    def edges(self, scope: str, item_id: str | None = None, *, include_closed: bool = False) -> list[Edge]:
        where, params = ("true", ()) if item_id is None else ("(src = %s OR dst = %s)", (item_id, item_id))
        if not include_closed:
            where += " AND closed_at IS NULL"
        if item_id is None or include_closed:
            return self._edges(scope, where, params)
        with self._read([scope], keep_run=True):  # an item get_many just read: its run's one statement
            if self._txn_scopes is None and self._edge_run.covers(scope, item_id):
                return self._edge_run.edges(self.q, scope, item_id)
            return self._edges(scope, where, params, keep_run=True)

    def edges_by_type(self, scope: str, type: str, *, include_closed: bool = False) -> list[Edge]:
        return self._edges(scope, "type = %s" + ("" if include_closed else " AND closed_at IS NULL"), (type,))

    def events(self, scope: str, *, item_id: str | None = None, after_seq: int = 0, limit: int = 1000) -> list[Event]:
        sql = _EVENTS + " WHERE scope = %s AND seq > %s"
        params: list[Any] = [scope, after_seq]
        if item_id is not None:
            if _UUID.fullmatch(item_id):  # the events naming the id (schema 6), not a scan of the scope's
                sql += " AND reverie_event_refs(payload) @> ARRAY[%s]::text[]"
                params.append(item_id)
            sql += f" AND strpos(payload, %s) > 0 AND {_ABOUT_ITEM}"
            params += [item_id] * (1 + _ABOUT_ITEM.count("%s"))
        sql += " ORDER BY seq LIMIT %s"
        params.append(limit)
        with self._read([scope]):
            return [_event(r) for r in self.q(sql, params)]

    def tombstones(self, scope: str) -> list[tuple[str, str]]:
        with self._read([scope]):
            rows = self.q("SELECT fp, item_id FROM tombstones WHERE scope = %s ORDER BY fp", (scope,))
        return [(r[0], r[1]) for r in rows]

    def scopes(self) -> list[str]:
        """Every scope with an event in its log (``Store.scopes``), sorted, by a skip scan of the
        log's primary key (``_SCOPES``): one index probe per scope, however long the log."""
        with self._txn([]):
            return [str(r[0]) for r in self.q(_SCOPES)]

    def summary_counts(self, scope: str) -> dict[str, dict[str, int]]:
        """Counts by tier / kind / source (current items) and by status (all items), in one
        statement, so all four are of one commit: as four statements, a write committed between
        them was in the counts by status and not in those by tier (``_SUMMARY``)."""
        out: dict[str, dict[str, int]] = {col: {} for col in _SUMMARY_SETS.values()}
        with self._read([scope]):
            for mask, value, current, every in self.q(_SUMMARY, (scope,)):
                col = _SUMMARY_SETS[int(mask)]
                n = int(every if col == "status" else current)
                if n:
                    out[col][str(value)] = n
        return out
