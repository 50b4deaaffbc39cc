"""The SQLite store: event log + projections in one file, one ``BEGIN IMMEDIATE`` per write.

The class is assembled from layers, one module each, each importing only the ones below it:

- ``base.py`` (``SQLiteBase``): the connection, its configuration and the transactions
  (``_write``, ``_read``, ``_snapshot``, ``atomic``) everything else runs in; why they are
  shaped as they are is written there.
- ``reads.py`` (``SQLiteReads``): the reducer's ``StateView`` and the ``Store`` reads.
- ``writes.py`` (``SQLiteWrites``, over the reads): the log, its projections, leases, runs, keys.
- ``search.py`` (``SQLiteSearch``): lexical and dense search, the embedder, ANN and reindex.
- this module (``SQLiteStore``): both, plus maintenance (``doctor``, ``rebuild``, ``checkpoint``,
  ``backup``), which reads and writes across all of them.

Why classes stacked as mixins, not functions taking the connection: every method shares the
store's state besides its connection (the lock, what an open write holds back, the vector and
ANN caches, the ``atomic`` flag), and the reducer and the tests use the store itself as its
view; the layers only cut the one 1,300-line class into modules by what each part does.
"""

from __future__ import annotations

import json
from pathlib import Path

from reverie.model.events import Event
from reverie.model.projection import ProjectionView, project
from reverie.store.blocks import refused_in_block
from reverie.store.protocol import DoctorReport, Embed
from reverie.store.sqlite import agenda, lexical, purge
from reverie.store.sqlite.backup import backup_target, main_file, write_backup
from reverie.store.sqlite.schema import PROJECTION_TABLES
from reverie.store.sqlite.search import SQLiteSearch
from reverie.store.sqlite.writes import SQLiteWrites

_lexical_in = lexical.ranked_in  # bench/scale.py compares the unsplit query through this name


class SQLiteStore(SQLiteSearch, SQLiteWrites):
    """A store in one SQLite file (or ``:memory:``). Thread-safe: one connection behind a lock."""

    # -- health ---------------------------------------------------------------------------
    def doctor(self) -> DoctorReport:
        from reverie.store.sqlite.health import check

        with self._snapshot() as c:  # one commit's state: a write landing meanwhile is no drift
            report = check(c)
            problems, counts = self._ann.drift(c)
            agenda_problems, agenda_counts = agenda.check(c)
            scrub_due = self.path != ":memory:" and purge.scrub_pending(c)
        problems += agenda_problems
        counts.update(agenda_counts)
        report.problems += problems
        report.counts.update(counts)
        if scrub_due:
            report.problems.append(
                "a purge is committed but the file still holds its erased bytes (its scrub did not finish): "
                "close other connections to the store, then reopen it or purge the same id again"
            )
        return report

    def rebuild(self, embed: Embed) -> None:
        """Drop every projection and replay the event log through the same projection code."""
        with self._write() as c:
            for table in PROJECTION_TABLES:
                c.execute(f"DELETE FROM {table}")  # nosec B608 # table from PROJECTION_TABLES
            view = ProjectionView(self.item, self.edge, self.task, self.intent)
            cur = c.execute("SELECT seq, id, type, scope, at, cause, payload FROM events ORDER BY seq")
            for r in cur.fetchall():
                event = Event.from_dict(
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
                texts = [event.payload["item"]["text"]] if "item" in event.payload else []
                vecs = dict(zip(texts, embed(texts), strict=True)) if texts else {}
                for change in project(event, view):
                    self.apply_change(change, vecs)
        self._vectors.clear()
        self._ann.clear(drop_files=True)

    def checkpoint(self) -> None:
        with self._read() as c:
            c.execute("PRAGMA wal_checkpoint(TRUNCATE)")

    def backup(self, target: str | Path, *, overwrite: bool = False) -> None:
        """A consistent copy through SQLite's online backup API (never a file copy of a live WAL).

        A target that names no file, the store itself or another application's database, or
        (without ``overwrite``) another reverie store holding events, is refused
        (``InvalidInputError``) before anything is written: see ``backup.py``.
        """
        with self._read() as c:
            if self._atomic:
                raise refused_in_block("backup()")
            write_backup(c, backup_target(target, main_file(c), source=c, overwrite=overwrite))
