"""The PostgreSQL store: the same belief store as the SQLite file, on a server many processes share.

The class is assembled from layers, one module each, each importing only the ones below it:

- ``base.py`` (``PostgresBase``): the connection, the schema, statements and transactions
  (``_txn``, ``_read``, ``_snapshot``, ``atomic``); why they are shaped as they are (scopes named
  per transaction, advisory locks per scope, nothing left on a pooled session) is written there.
- ``reads.py`` (``PostgresReads``): the reducer's ``StateView`` and the ``Store`` reads.
- ``writes.py`` (``PostgresWrites``, over the reads): the log, its projections, keys, leases, runs.
- ``search.py`` (``PostgresSearch``): lexical and dense search, their caches, the embedder, HNSW.
- this module (``PostgresStore``): both, plus maintenance (``doctor``, ``rebuild``, ``replay``,
  ``scrub_purged``), which reads and writes across all of them.

Why classes stacked as mixins, not functions taking the connection: every method shares the
store's state besides its connection (the lock, the open transaction's scopes and locks, the
caches of scope figures and vectors, the ``atomic`` flag), ``projections.py`` and ``ann.py``
already take the store itself, and the tests use it as the reducer's view; the layers only cut
the one 1,160-line class into modules by what each part does.
"""

from __future__ import annotations

from collections.abc import Callable, Mapping, Sequence

import numpy as np

from reverie.errors import InvalidInputError
from reverie.model.events import Event
from reverie.model.projection import ProjectionView, project
from reverie.store.postgres import agenda, health
from reverie.store.postgres import connect as pgconnect
from reverie.store.postgres.base import _SCOPES
from reverie.store.postgres.base import ALL_SCOPES as ALL_SCOPES
from reverie.store.postgres.reads import _ABOUT_ITEM as _ABOUT_ITEM
from reverie.store.postgres.reads import _EVENTS as _EVENTS
from reverie.store.postgres.reads import _event
from reverie.store.postgres.schema import PROJECTION_TABLES
from reverie.store.postgres.search import PostgresSearch
from reverie.store.postgres.writes import PostgresWrites
from reverie.store.protocol import DoctorReport, Embed


class PostgresStore(PostgresSearch, PostgresWrites):
    """A store in one PostgreSQL database. Thread-safe: one connection behind a lock."""

    # -- health ---------------------------------------------------------------------------
    def doctor(self) -> DoctorReport:
        with self._snapshot([]):  # one commit's state: a write landing meanwhile is no drift
            scopes = [str(r[0]) for r in self.q(_SCOPES)]
            self._allow(scopes)
            report = health.check(self.q, scopes, self.made_by())
            problems, counts = agenda.check(self.q, scopes)
        report.problems += problems
        report.counts.update(counts)
        return report

    def scrub_purged(self) -> list[str]:
        """Rewrite every table (``VACUUM (FULL)``, as the owner) so purged text leaves their pages;
        returns the tables. Locks each table while it is copied: see ``store/postgres/scrub.py``."""
        from reverie.store.postgres.scrub import scrub

        with self._lock:
            self._check_open()
            if self.read_only:
                from reverie.errors import ReadOnlyError

                raise ReadOnlyError(f"{self.path} is open read-only; open it without --read-only to scrub it")
            return scrub(self.q, self.x)

    def rebuild(self, embed: Embed) -> None:
        """Empty every projection and replay the event log through the same projection code."""
        with self._txn([], write=True):
            scopes = [str(r[0]) for r in self.q(_SCOPES)]
            self._write_scopes(scopes)
            self._bump_vectors_epoch()
            for table in PROJECTION_TABLES:
                self.x(f"DELETE FROM {table} WHERE scope = ANY (%s)", (scopes,))  # nosec B608 # constant table
            view = ProjectionView(self.item, self.edge, self.task, self.intent)
            for r in self.q(_EVENTS + " WHERE scope = ANY (%s) ORDER BY seq", (scopes,)):
                event = _event(r)
                texts = [event.payload["item"]["text"]] if "item" in event.payload else []
                vecs = dict(zip(texts, embed(texts), strict=True)) if texts else {}
                for change in project(event, view):
                    self.apply_change(change, vecs)

    def replay(self, events: Sequence[Event], vectors: Callable[[Event], Mapping[str, np.ndarray]]) -> None:
        """Append ``events`` (another store's log, in its order) and project them, in one transaction
        (``reverie migrate``): the copy gets new ``seq`` numbers in the same order."""
        with self._txn([], write=True):
            view = ProjectionView(self.item, self.edge, self.task, self.intent)
            for event in events:
                stored = self.append_event(event)
                for change in project(stored, view):
                    self.apply_change(change, vectors(event))


def check_url_or_raise(url: str) -> None:
    """``InvalidInputError`` unless ``url`` is a PostgreSQL URL (for callers that route by scheme)."""
    if not pgconnect.is_url(url):
        raise InvalidInputError(f"{url!r} is not a postgresql:// URL")
