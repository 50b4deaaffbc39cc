"""``scrub_purged``: after it, a purged claim's text is in none of the tables' files (heap, TOAST, indexes).

The check reads the server's own files (the test server is local), after a ``CHECKPOINT`` has
written the pages out. It first shows that the text *is* still there after the purge and after
a plain ``VACUUM`` (so the check can fail), then that ``VACUUM (FULL)`` removed it. WAL segments
are not checked: they keep it until recycled, as the README says.
"""

from __future__ import annotations

import glob
import os
from pathlib import Path
from typing import Any

import psycopg
import pytest

from reverie import Memory
from reverie.errors import NotPermittedError
from reverie.store.postgres import PostgresStore
from reverie.store.postgres.roles import create_app_role
from reverie.store.postgres.schema import SCOPED_TABLES

WORD = b"xylophonistically"


def _files_with_word(url: str) -> list[str]:
    """The relations (tables, their TOAST tables and indexes) whose files hold ``WORD``."""
    with psycopg.connect(url, autocommit=True) as c:
        c.execute("CHECKPOINT")
        datadir = str(c.execute("SHOW data_directory").fetchone()[0])  # type: ignore[index]
        rels = c.execute(
            "SELECT c.relname, pg_relation_filepath(c.oid) FROM pg_class c "
            "JOIN pg_namespace n ON n.oid = c.relnamespace "
            "WHERE (n.nspname = 'public' OR n.nspname = 'pg_toast') AND c.relkind IN ('r', 't', 'i') "
            "AND pg_relation_filepath(c.oid) IS NOT NULL"
        ).fetchall()
    if not os.access(datadir, os.R_OK):
        pytest.skip(f"the server's data directory {datadir} is not readable here")
    found = []
    for name, path in rels:
        for f in glob.glob(os.path.join(datadir, str(path)) + "*"):
            if WORD in Path(f).read_bytes().lower():
                found.append(str(name))
    return sorted(set(found))


def test_scrub_takes_purged_text_out_of_every_tables_pages(memories: Any, pg_url: str) -> None:
    mem: Memory = memories.open(pg_url)
    for i in range(30):
        mem.remember(f"Filler fact number {i} about the garden", scope="s")
    secret = mem.remember("The locker code is Xylophonistically 4411", scope="s", tags=["codes"])
    mem.recall("Xylophonistically", scope="s")  # the query is recorded on the item (last_used_query) and the log
    assert _files_with_word(pg_url)  # written: the check sees it
    mem.forget(secret.id, scope="s", purge=True, reason="leaked")
    assert not [i for i in mem.list(scope="s", include_closed=True).items if "ylophon" in i.text.lower()]
    with psycopg.connect(pg_url, autocommit=True) as c:
        for table in SCOPED_TABLES:
            c.execute(f"VACUUM {table}")
    assert _files_with_word(pg_url)  # purged rows and plain VACUUM: the bytes are still in the pages
    store = mem.store
    assert isinstance(store, PostgresStore)
    assert store.scrub_purged() == list(SCOPED_TABLES)
    assert _files_with_word(pg_url) == []
    assert len(mem.list(scope="s").items) == 30 and mem.doctor().ok  # the rest is untouched


def test_scrub_is_refused_to_an_application_role(memories: Any, pg_url: str) -> None:
    memories.open(pg_url).remember("Something", scope="s")
    create_app_role(pg_url, "reverie_scrubber", "pw-scrub")
    app = PostgresStore(pg_url.replace("postgresql://postgres:@", "postgresql://reverie_scrubber:pw-scrub@", 1))
    try:
        with pytest.raises(NotPermittedError, match="owner"):
            app.scrub_purged()
    finally:
        app.close()
