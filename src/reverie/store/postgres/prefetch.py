"""Absent fingerprints and tombstones of a write batch, read in one statement each.

Why: before writing a claim the reducer asks, one key at a time, whether a live item carries
its fingerprints, whether a corrected version does, and whether its value was dismissed (two
tombstone keys per fingerprint). On SQLite those are in-process reads; on PostgreSQL each was
a round trip, four to six per remembered item, most of a batched write's time once the vector
index was out of the way. ``execute`` now asks the server once, before the batch runs, which
of those keys exist; the answer "absent" is then given without a round trip.

Only absence is remembered, and only until the transaction writes that key: every statement
that inserts a fingerprint or a tombstone goes through ``PostgresStore.x``, which drops the
keys it writes (``discard``), or everything for a statement it does not recognise. Deletes
only make present keys absent, so a remembered absence stays true. A key the prefetch did not
cover is read from the server as before. The cache lives for one transaction.
"""

from __future__ import annotations

from collections.abc import Callable, Sequence
from typing import Any

from reverie.model.commands import Command, Remember
from reverie.model.projection import SUPERSEDED_PREFIX
from reverie.model.redact import dismissal_keys
from reverie.model.validate import fingerprints

Query = Callable[[str, Sequence[Any]], list[tuple[Any, ...]]]

#: The two insert statements whose keys ``discard`` understands (``projections.py`` uses them).
INSERT_FINGERPRINTS = (
    "INSERT INTO fingerprints (scope, fp, item_id) SELECT %s, fp, %s FROM unnest(%s::text[]) AS fp "
    "ON CONFLICT DO NOTHING"
)
INSERT_TOMBSTONE = (
    "INSERT INTO tombstones (scope, fp, item_id) VALUES (%s, %s, %s) "
    "ON CONFLICT (scope, fp) DO UPDATE SET item_id = excluded.item_id"
)


class Absent:
    """Keys known absent from ``fingerprints`` / ``tombstones`` in this transaction, per scope."""

    def __init__(self) -> None:
        self.fingerprints: set[tuple[str, str]] = set()
        self.tombstones: set[tuple[str, str]] = set()

    def load(self, query: Query, commands: Sequence[Command]) -> None:
        """Ask the server, one statement per table and scope, which keys of ``commands`` exist."""
        prints: dict[str, set[str]] = {}
        tombs: dict[str, set[str]] = {}
        for cmd in commands:
            if not isinstance(cmd, Remember):
                continue
            for fp in fingerprints(cmd.text, cmd.key, cmd.value):
                prints.setdefault(cmd.scope, set()).update((fp, SUPERSEDED_PREFIX + fp))
                tombs.setdefault(cmd.scope, set()).update(dismissal_keys(fp))
        for scope, keys in prints.items():
            found = query(
                "SELECT DISTINCT fp FROM fingerprints WHERE scope = %s AND fp = ANY (%s)", (scope, sorted(keys))
            )
            self.fingerprints |= {(scope, k) for k in keys - {str(r[0]) for r in found}}
        for scope, keys in tombs.items():
            found = query("SELECT fp FROM tombstones WHERE scope = %s AND fp = ANY (%s)", (scope, sorted(keys)))
            self.tombstones |= {(scope, k) for k in keys - {str(r[0]) for r in found}}

    def discard(self, sql: str, params: Sequence[Any]) -> None:
        """Forget the absence of every key ``sql`` may write (a statement run in this transaction)."""
        if sql == INSERT_FINGERPRINTS:
            self.fingerprints -= {(str(params[0]), str(k)) for k in params[2]}
        elif sql == INSERT_TOMBSTONE:
            self.tombstones.discard((str(params[0]), str(params[1])))
        elif "fingerprints" in sql or "tombstones" in sql:
            lowered = " ".join(sql.split()).lower()
            if lowered.startswith(("insert", "update", "with")):  # not understood: forget everything
                self.fingerprints.clear()
                self.tombstones.clear()
