"""A real PostgreSQL 16 with pgvector for the tests: the ``pgserver`` package, no root, no system package.

``pg_server`` starts one server per test run in a temporary directory (a few seconds) and makes
a template database with reverie's schema; ``pg_url`` gives each test a fresh database cloned
from it (tens of milliseconds) and drops it afterwards. If the server cannot start (the
optional ``postgres`` extra is not installed, or the binaries do not run here), every test that
needs it is skipped with the reason, and the reason is printed in the run's summary.
"""

from __future__ import annotations

import itertools
import tempfile
import warnings
from collections.abc import Iterator
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

import pytest

TEMPLATE = "reverie_template"
SKIPPED: list[str] = []  # why the PostgreSQL tests were skipped (pytest_terminal_summary prints it)


@dataclass
class PgServer:
    """A running server: the owner's URL of any database on it, and fresh databases on request."""

    uri: str
    _counter: Any = field(default_factory=itertools.count)
    _pool: list[str] = field(default_factory=list)

    def url(self, database: str) -> str:
        base, _, query = self.uri.partition("?")
        return base.rsplit("/", 1)[0] + "/" + database + ("?" + query if query else "")

    def admin(self) -> Any:
        import psycopg

        return psycopg.connect(self.uri, autocommit=True)

    def fresh(self) -> tuple[str, str]:
        """A database holding reverie's empty schema: one given back by ``drop`` (emptied), else a new
        clone of the template. Why a pool: CREATE DATABASE costs about a second here, TRUNCATE 20 ms."""
        if self._pool:
            name = self._pool.pop()
        else:
            name = f"t{next(self._counter)}"
            with self.admin() as c:
                c.execute(f'CREATE DATABASE "{name}" TEMPLATE {TEMPLATE}')
        return name, self.url(name)

    def drop(self, name: str) -> None:
        """Empty the database (ending any session a test left open on it) and keep it for the next test."""
        import psycopg

        with self.admin() as c:
            c.execute("SELECT pg_terminate_backend(pid) FROM pg_stat_activity WHERE datname = %s", (name,))
        with psycopg.connect(self.url(name), autocommit=True) as c:
            tables = [r[0] for r in c.execute("SELECT tablename FROM pg_tables WHERE schemaname = 'public'")]
            for table in tables:  # DELETE, not TRUNCATE: a test's few rows go in ms, new table files do not
                keep = " WHERE k NOT IN ('schema_version', 'event_seq')" if table == "settings" else ""
                c.execute(f"DELETE FROM {table}{keep}")
            c.execute("UPDATE settings SET v = '0' WHERE k = 'event_seq'")
            for table, column in (("items", "n"), ("dream_runs", "n"), ("conv_entries", "n")):
                c.execute("SELECT setval(pg_get_serial_sequence(%s, %s), 1, false)", (table, column))
            hnsw = c.execute("SELECT indexname FROM pg_indexes WHERE indexname LIKE 'items\\_hnsw%%'").fetchall()
            for (index,) in hnsw:
                c.execute(f'DROP INDEX "{index}"')  # a scope's HNSW index (store.warm) goes with its test
            for (role,) in c.execute("SELECT rolname FROM pg_roles WHERE rolname LIKE 'reverie\\_%%'").fetchall():
                c.execute(f'DROP OWNED BY "{role}"')  # roles are the server's: a test's role goes with its test
                c.execute(f'DROP ROLE "{role}"')
        self._pool.append(name)


_SHARED: list[PgServer] = []


def shared() -> PgServer:
    """The run's server for code that cannot take a fixture (a Hypothesis state machine); the
    ``pg`` fixture must have started it (a test using this takes ``pg`` as an argument)."""
    assert _SHARED, "take the `pg` fixture in the test that needs the server"
    return _SHARED[0]


def start() -> Iterator[PgServer]:
    try:
        with warnings.catch_warnings():
            warnings.simplefilter("ignore")  # platformdirs warns about XDG_RUNTIME_DIR (under root) at import
            import pgserver  # type: ignore[import-untyped]
        import psycopg  # noqa: F401
    except ImportError as exc:
        reason = f"PostgreSQL tests skipped: {exc} (install the extra: pip install -e '.[postgres]')"
        SKIPPED.append(reason)
        pytest.skip(reason)
    tmp = tempfile.mkdtemp(prefix="reverie-pg-")
    try:
        with warnings.catch_warnings():
            warnings.simplefilter("ignore")  # platformdirs warns about XDG_RUNTIME_DIR under root
            srv = pgserver.get_server(Path(tmp), cleanup_mode="delete")
            uri = srv.get_uri()
    except Exception as exc:  # the binaries do not run here: say so, loudly
        reason = f"PostgreSQL tests skipped: pgserver could not start a server ({type(exc).__name__}: {exc})"
        SKIPPED.append(reason)
        pytest.skip(reason)
    server = PgServer(uri)
    from reverie.store.postgres import PostgresStore

    with server.admin() as c:
        # A throwaway server: no fsync (the tests check behaviour, not durability; bench/ measures that)
        for setting in ("fsync = off", "synchronous_commit = off", "full_page_writes = off"):
            c.execute(f"ALTER SYSTEM SET {setting}")
        c.execute("SELECT pg_reload_conf()")
        c.execute(f"DROP DATABASE IF EXISTS {TEMPLATE}")
        c.execute(f"CREATE DATABASE {TEMPLATE}")
    PostgresStore(server.url(TEMPLATE)).close()  # the schema (and the vector extension) once
    _SHARED.append(server)
    try:
        yield server
    finally:
        _SHARED.clear()
        with warnings.catch_warnings():
            warnings.simplefilter("ignore")
            srv.cleanup()
