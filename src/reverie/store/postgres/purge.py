"""Purge on PostgreSQL: the log rewrite ``model.redact`` plans, written with the scope's predicate.

What a plain ``UPDATE`` leaves behind here is different from SQLite: the old row versions stay
in the table's pages as dead tuples until ``VACUUM`` reclaims them (and WAL segments and base
backups keep what they kept). Plain ``VACUUM`` makes the space reusable but leaves the bytes;
``PostgresStore.scrub_purged()`` (``scrub.py``: ``VACUUM (FULL)`` as the owner, an operator's step,
not run after each purge) takes them out of the tables' files. PostgreSQL has no secure-delete,
so erasure from the disk itself is the operator's (encrypted storage, backup retention); this is
weaker than the SQLite store's file scrub, and the README says so.
"""

from __future__ import annotations

import json
import re
from collections.abc import Sequence
from typing import TYPE_CHECKING, Any

from reverie.model.events import Event
from reverie.model.projection import EraseContent
from reverie.model.redact import REDACTED, plan_erasure, revision_chain, used_queries
from reverie.store.postgres import prefetch
from reverie.store.postgres.schema import UUID_PATTERN
from reverie.store.sqlite.sql import SELECT_ITEM

if TYPE_CHECKING:
    from reverie.store.postgres.projections import Writer

_EVENT_COLUMNS = "seq, id, type, scope, at, cause, payload"
_FEW = 200  # needles tested one by one in each payload (``_quoting``)
_UUID = re.compile(UUID_PATTERN)
Query = Any


def revisions(q: Query, scope: str, item_id: str) -> list[str]:
    rows = q(
        "SELECT payload::jsonb ->> 'old_id', payload::jsonb #>> '{item,id}' FROM events "
        "WHERE scope = %s AND type = 'memory.revised'",
        (scope,),
    )
    return revision_chain(((str(a), str(b)) for a, b in rows), item_id)


def derived_rows(q: Query, scope: str, parent_ids: Sequence[str]) -> list[tuple[Any, ...]]:
    """Item rows of ``scope`` listing one of ``parent_ids`` as a parent, by id."""
    sql = f"{SELECT_ITEM} WHERE scope = %s AND parents != '[]' AND parents::jsonb ?| %s ORDER BY id"  # nosec B608 # constant
    return list(q(sql, (scope, list(parent_ids))))


def _event(r: Sequence[Any]) -> Event:
    return Event.from_dict(
        {"seq": r[0], "id": r[1], "type": r[2], "scope": r[3], "at": r[4], "cause": r[5], "payload": json.loads(r[6])}
    )


def _candidates(w: Writer, change: EraseContent) -> list[Event]:
    """A superset of the events the plan may rewrite (see ``store/sqlite/purge.py``)."""
    found: dict[int, Event] = {}
    base = f"SELECT {_EVENT_COLUMNS} FROM events WHERE scope = %s AND seq < %s"  # nosec B608 # constant columns
    params: list[Any] = [change.scope, change.before_seq]
    for r in w.q(base + " AND type IN ('memory.dismissed', 'memory.undismissed')", params):
        found[r[0]] = _event(r)
    edges = w.q(
        "SELECT id FROM edges WHERE scope = %s AND (src = ANY (%s) OR dst = ANY (%s)) ORDER BY id",
        (change.scope, list(change.ids), list(change.ids)),
    )
    for r in _quoting(w, base, params, [*change.ids, *(str(e[0]) for e in edges)]):
        found[r[0]] = _event(r)
    queries = sorted(used_queries(found.values(), frozenset(change.ids)))
    if queries:
        sql = base + " AND type = 'memory.used' AND (payload::jsonb ->> 'query') = ANY (%s)"
        for r in w.q(sql, [*params, queries]):
            found[r[0]] = _event(r)
    return [found[k] for k in sorted(found)]


def _quoting(w: Writer, base: str, params: list[Any], needles: list[str]) -> list[tuple[Any, ...]]:
    """Rows of ``base`` whose payload contains one of ``needles`` (ids), in one pass over the log.

    Up to ``_FEW`` needles, ``strpos`` per needle. More (a claim revised a thousand times): that is
    versions x events, quadratic in the versions under the scope's write lock (probe 3, finding 17;
    ``bench/purge_versions.py``), so each payload's UUIDs are read once and matched against the
    needles' array (hashed by PostgreSQL 14+); an id that is not a canonical UUID keeps its ``strpos``.
    """
    uuids = sorted(n for n in needles if len(needles) > _FEW and _UUID.fullmatch(n))
    others = sorted(set(needles) - set(uuids))
    rows: dict[int, tuple[Any, ...]] = {}
    if uuids:
        sql = base + " AND EXISTS (SELECT 1 FROM regexp_matches(payload, %s, 'g') AS m WHERE m[1] = ANY (%s::text[]))"  # nosec B608 # constants
        rows.update((r[0], r) for r in w.q(sql, [*params, f"({UUID_PATTERN})", uuids]))
    if others:
        sql = base + " AND EXISTS (SELECT 1 FROM unnest(%s::text[]) AS k WHERE strpos(payload, k) > 0)"  # nosec B608 # constants
        rows.update((r[0], r) for r in w.q(sql, [*params, others]))
    return [rows[k] for k in sorted(rows)]


def erase_log(w: Writer, change: EraseContent) -> None:
    """Rewrite the events, edge metas, last-used queries and tombstones the plan names."""
    plan = plan_erasure(_candidates(w, change), change.ids, change.fingerprints)
    for event in plan.events:
        w.x(
            "UPDATE events SET payload = %s WHERE scope = %s AND seq = %s",
            (json.dumps(event.payload, ensure_ascii=False), change.scope, event.seq),
        )
    for edge_id, meta in plan.edge_meta.items():
        w.x(
            "UPDATE edges SET meta = %s WHERE scope = %s AND id = %s",
            (json.dumps(meta, ensure_ascii=False, sort_keys=True), change.scope, edge_id),
        )
    if plan.queries:
        w.x(
            "UPDATE items SET last_used_query = %s WHERE scope = %s AND last_used_query = ANY (%s)",
            (REDACTED, change.scope, sorted(plan.queries)),
        )
    for fp, holder in plan.tombstones.items():
        if holder is None:
            w.x("DELETE FROM tombstones WHERE scope = %s AND fp = %s", (change.scope, fp))
        else:
            w.x(prefetch.INSERT_TOMBSTONE, (change.scope, fp, holder))
