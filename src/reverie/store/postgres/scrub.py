"""After a purge on PostgreSQL: rewrite the tables so the erased text leaves their pages (``scrub_purged``).

A purge's ``UPDATE``/``DELETE`` leaves the old row versions in the table's pages, and plain
``VACUUM`` does not remove those bytes: it marks the space reusable, and the text stays in the
heap and in the full-text (GIN) index until that space happens to be overwritten (measured:
``tests/postgres/test_pg_scrub.py`` finds the purged word in the files after ``VACUUM`` and not
after ``VACUUM (FULL)``). ``VACUUM (FULL)`` writes each table and its indexes into new files.

Why the store does not run it after every purge by itself:
- it takes an ``ACCESS EXCLUSIVE`` lock and rewrites the *whole* table: every scope's readers and
  writers wait for the length of a full copy, for a purge of one claim;
- only the tables' owner may run it, and agents connect as an application role
  (``roles.create_app_role``), for which it would be skipped with a mere warning;
- the server keeps what it kept anyway: WAL segments until they are recycled, base backups and
  replicas until they expire. Erasure from the disk is the operator's (encrypted storage,
  backup retention), which an automatic step would pretend otherwise.
So it is an operator's step, run as the owner in a quiet moment: ``PostgresStore.scrub_purged()``.
"""

from __future__ import annotations

from collections.abc import Callable, Sequence
from typing import Any

from reverie.errors import NotPermittedError
from reverie.store.postgres.schema import SCOPED_TABLES

Rows = Callable[[str, Sequence[Any]], list[tuple[Any, ...]]]
Run = Callable[[str], int]


def scrub(q: Rows, x: Run) -> list[str]:
    """``VACUUM (FULL)`` every table that can hold a claim's text (each in its own statement, outside
    any transaction); returns the tables rewritten. Refused, before touching anything, unless the
    current role owns them all."""
    tables = list(SCOPED_TABLES)
    foreign = [
        str(r[0])
        for r in q(
            "SELECT tablename FROM pg_tables WHERE schemaname = current_schema() AND tablename = ANY (%s) "
            "AND NOT pg_has_role(current_user, tableowner, 'USAGE') ORDER BY tablename",
            (tables,),
        )
    ]
    if foreign:
        raise NotPermittedError(
            f"only the owner of reverie's tables may rewrite them (not owned by this role: {', '.join(foreign)}); "
            "run scrub_purged() connected as the role that created the store"
        )
    for table in tables:
        x(f"VACUUM (FULL) {table}")
    return tables
