"""``doctor`` on PostgreSQL: every projection agrees with the record store, scope by scope.

The full-text document and the vector sit on the item's own row, so "missing from the index"
here means a row whose document or vector is absent where it should be present (or present
where it should not), plus the cross-row checks the SQLite doctor makes (fingerprints, edges,
the conversation archive) and the embedder tags of every vector.
"""

from __future__ import annotations

from collections.abc import Sequence
from typing import Any

from reverie.store import record_order
from reverie.store.protocol import VECTOR_PENDING, DoctorReport

Query = Any


def check(q: Query, scopes: Sequence[str], embedder: str | None) -> DoctorReport:
    report = DoctorReport()
    counts = dict.fromkeys(("items", "current", "closed", "events", "edges", "vectors_pending", "messages"), 0)
    problems: dict[str, int] = {}
    for scope in scopes:
        _scope(q, scope, embedder, counts, problems)
    report.counts = counts
    report.problems = [f"{n} {what}" for what, n in sorted(problems.items()) if n]
    return report


def _add(problems: dict[str, int], what: str, n: Any) -> None:
    problems[what] = problems.get(what, 0) + int(n or 0)


def _scope(q: Query, scope: str, embedder: str | None, counts: dict[str, int], problems: dict[str, int]) -> None:
    row = q(
        "SELECT count(*) FILTER (WHERE closed_at IS NULL), count(*) FILTER (WHERE closed_at IS NOT NULL), "
        "count(*) FILTER (WHERE closed_at IS NULL AND vec IS NULL AND flags::jsonb ? %s), "
        "count(*) FILTER (WHERE vec IS NULL AND NOT (flags::jsonb ? %s)), "
        "count(*) FILTER (WHERE vec IS NOT NULL), "
        "count(*) FILTER (WHERE vec IS NOT NULL AND made_by IS DISTINCT FROM %s), "
        "count(*) FILTER (WHERE ntok IS NULL OR ntok < 0 OR (ntok = 0) <> (length(tsv) = 0)) "
        "FROM items WHERE scope = %s",
        (VECTOR_PENDING, VECTOR_PENDING, embedder, scope),
    )[0]
    current, closed, pending, unvectored, vectored, foreign, bad_fts = (int(v or 0) for v in row)
    counts["items"] += current + closed
    counts["current"] += current
    counts["closed"] += closed
    counts["vectors_pending"] += pending
    counts["events"] += int(q("SELECT count(*) FROM events WHERE scope = %s", (scope,))[0][0])
    counts["edges"] += int(q("SELECT count(*) FROM edges WHERE scope = %s", (scope,))[0][0])
    if embedder is not None:
        _add(problems, "items missing from the vector index (no vector, not pending)", unvectored)
        _add(problems, "vectors made by another embedder than the recorded one (run `reverie reindex`)", foreign)
    elif vectored:
        _add(problems, "vectors stored but no embedder is recorded", vectored)
    _add(problems, "items whose full-text document disagrees with its token count", bad_fts)
    bad_fp = q(
        "SELECT count(*) FROM fingerprints f LEFT JOIN items i ON i.scope = f.scope AND i.id = f.item_id "
        "WHERE f.scope = %s AND (i.id IS NULL OR CASE WHEN substr(f.fp, 1, 4) = 'was:' "
        "THEN i.status != 'superseded' ELSE i.closed_at IS NOT NULL END)",
        (scope,),
    )[0][0]
    _add(problems, "fingerprint rows point at missing or closed items", bad_fp)
    stepped, early = q(
        "SELECT (SELECT count(*) FROM (SELECT at, lag(at) OVER (ORDER BY seq) AS prev FROM events "
        "WHERE scope = %s) AS t WHERE at < prev), "
        "(SELECT count(*) FROM items WHERE scope = %s AND closed_at < recorded_at)",
        (scope, scope),
    )[0]
    _add(problems, record_order.STEPPED_BACK, stepped)
    _add(problems, record_order.CLOSED_BEFORE_RECORDED, early)
    bad_edges = q(
        "SELECT count(*) FROM edges e WHERE e.scope = %s AND (NOT EXISTS "
        "(SELECT 1 FROM items a WHERE a.scope = e.scope AND a.id = e.src) OR NOT EXISTS "
        "(SELECT 1 FROM items b WHERE b.scope = e.scope AND b.id = e.dst))",
        (scope,),
    )[0][0]
    _add(problems, "edges point at missing items", bad_edges)
    messages, unindexed, stray = q(
        "SELECT count(*) FILTER (WHERE kind = 'message' AND (entry::jsonb ->> 'text') != '[purged]'), "
        "count(*) FILTER (WHERE kind = 'message' AND (entry::jsonb ->> 'text') != '[purged]' AND tsv IS NULL), "
        "count(*) FILTER (WHERE (kind != 'message' OR (entry::jsonb ->> 'text') = '[purged]') AND tsv IS NOT NULL) "
        "FROM conv_entries WHERE scope = %s",
        (scope,),
    )[0]
    counts["messages"] += int(messages)
    _add(problems, "messages missing from the conversation archive index", unindexed)
    _add(problems, "rows in the conversation archive index have no matching message", stray)
