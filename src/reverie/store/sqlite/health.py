"""``doctor``: checks that every projection agrees with the record store.

It reports problems instead of fixing them; ``Memory.rebuild`` is the fix.
"""

from __future__ import annotations

import sqlite3

from reverie.store import record_order
from reverie.store.protocol import VECTOR_PENDING, DoctorReport

# Items stored while the embedder was down (``VECTOR_PENDING``): no vector row yet, and not damage.
_PENDING = (
    "SELECT n FROM items WHERE flags != '[]' AND EXISTS "
    "(SELECT 1 FROM json_each(items.flags) WHERE json_each.value = ?)"
)

# Events earlier than the one before them in their scope (``record_order``); the times are
# fixed-width UTC text, so text order is time order.
_STEPPED_BACK = (
    "SELECT count(*) FROM (SELECT at, lag(at) OVER (PARTITION BY scope ORDER BY seq) AS prev FROM events) "
    "WHERE at < prev"
)


def _ids(c: sqlite3.Connection, sql: str) -> set[int]:
    return {r[0] for r in c.execute(sql)}


def check(c: sqlite3.Connection) -> DoctorReport:
    report = DoctorReport()
    live = _ids(c, "SELECT n FROM items WHERE closed_at IS NULL")
    closed = _ids(c, "SELECT n FROM items WHERE closed_at IS NOT NULL")
    fts = _ids(c, "SELECT rowid FROM fts")
    fts_h = _ids(c, "SELECT rowid FROM fts_history")
    vec = _ids(c, "SELECT n FROM vectors")
    vec_h = _ids(c, "SELECT n FROM vectors_history")
    embedder = c.execute("SELECT v FROM settings WHERE k = 'embedder'").fetchone()
    pending = {r[0] for r in c.execute(_PENDING, (VECTOR_PENDING,))}
    report.counts = {
        "items": len(live) + len(closed),
        "current": len(live),
        "closed": len(closed),
        "events": int(c.execute("SELECT count(*) FROM events").fetchone()[0]),
        "edges": int(c.execute("SELECT count(*) FROM edges").fetchone()[0]),
        "vectors_pending": len(pending & live),
    }
    _diff(report, "full-text index", live, fts)
    _diff(report, "full-text history index", closed, fts_h)
    if embedder is not None:
        # a pending item counts as indexed: it is expected to lack its row until the backfill
        _diff(report, "vector index", live, vec | (pending & live))
        _diff(report, "vector history index", closed, vec_h | (pending & closed))
        _makers(c, report, str(embedder[0]))
    elif vec or vec_h:
        report.problems.append("vectors are stored but no embedder is recorded")
    bad_fp = c.execute(
        # "was:" rows index superseded versions (a correction's echo guard); the rest, current items
        "SELECT count(*) FROM fingerprints f LEFT JOIN items i ON i.id = f.item_id "
        "WHERE i.id IS NULL OR i.scope != f.scope OR CASE WHEN substr(f.fp, 1, 4) = 'was:' "
        "THEN i.status != 'superseded' ELSE i.closed_at IS NOT NULL END"
    ).fetchone()[0]
    if bad_fp:
        report.problems.append(f"{bad_fp} fingerprint rows point at missing, closed or foreign-scope items")
    report.problems += record_order.problems(
        int(c.execute(_STEPPED_BACK).fetchone()[0]),
        int(c.execute("SELECT count(*) FROM items WHERE closed_at < recorded_at").fetchone()[0]),
    )
    bad_edges = c.execute(
        "SELECT count(*) FROM edges e LEFT JOIN items a ON a.id = e.src LEFT JOIN items b ON b.id = e.dst "
        "WHERE a.id IS NULL OR b.id IS NULL OR a.scope != e.scope OR b.scope != e.scope"
    ).fetchone()[0]
    if bad_edges:
        report.problems.append(f"{bad_edges} edges point at missing or foreign-scope items")
    _check_archive(c, report)
    integrity = c.execute("PRAGMA quick_check").fetchone()[0]
    if integrity != "ok":
        report.problems.append(f"SQLite quick_check: {integrity}")
    return report


def _makers(c: sqlite3.Connection, report: DoctorReport, embedder: str) -> None:
    """Vector rows made by another embedder than the recorded one: a reindex that did not finish."""
    for table, name in (("vectors", "vector index"), ("vectors_history", "vector history index")):
        rows = c.execute(f"SELECT made_by, count(*) FROM {table} GROUP BY made_by ORDER BY made_by")  # nosec B608 # constants
        for made_by, count in rows:
            if made_by != embedder:
                report.problems.append(
                    f"{count} rows in the {name} were made by {made_by!r}, not by the recorded embedder "
                    f"{embedder!r} (an interrupted reindex?); run `reverie reindex`"
                )
    report.counts["reindex_staged"] = int(c.execute("SELECT count(*) FROM vectors_staging").fetchone()[0])


def _diff(report: DoctorReport, name: str, want: set[int], have: set[int]) -> None:
    if want - have:
        report.problems.append(f"{len(want - have)} items missing from the {name}")
    if have - want:
        report.problems.append(f"{len(have - want)} rows in the {name} have no matching item")


def _check_archive(c: sqlite3.Connection, report: DoctorReport) -> None:
    """Conversations: every unpurged message is in the archive index and nothing else is."""
    messages = _ids(
        c, "SELECT n FROM conv_entries WHERE kind = 'message' AND json_extract(entry, '$.text') != '[purged]'"
    )
    report.counts["messages"] = len(messages)
    _diff(report, "conversation archive index", messages, _ids(c, "SELECT rowid FROM conv_fts"))
