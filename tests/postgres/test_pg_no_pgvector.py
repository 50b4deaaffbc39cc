"""A database that cannot give reverie pgvector: the message says who must do what, and nothing is created.

Two causes, two people to ask, each tested against a real server:

- **not installed on the server**: Debian's own PostgreSQL (the ``postgresql`` package, which has
  no pgvector), started here in a temporary directory on a free port. ``scripts/bootstrap``
  installs it when it runs as root with apt; where it is missing or cannot start, these tests
  are skipped and the reason is printed in the run's summary (as ``tests/pg_server.py`` does).
- **installed, but this role may not enable it**: the pgserver PostgreSQL (which ships pgvector),
  opened by a role that is neither a superuser nor allowed to create the extension.
"""

from __future__ import annotations

import glob
import os
import shutil
import socket
import subprocess
import tempfile
from collections.abc import Iterator
from pathlib import Path

import pytest

import pg_server
from reverie import StorageError
from reverie.store.postgres import PostgresStore


def _binaries() -> Path | None:
    """The bin directory of a system PostgreSQL without pgvector (Debian's layout first)."""
    for found in sorted(glob.glob("/usr/lib/postgresql/*/bin/initdb"), reverse=True):
        bindir = Path(found).parent
        share = Path("/usr/share/postgresql") / bindir.parent.name / "extension"
        if not (share / "vector.control").exists():
            return bindir
    return None


def _skip(reason: str) -> None:
    text = f"PostgreSQL-without-pgvector tests skipped: {reason}"
    pg_server.SKIPPED.append(text)
    pytest.skip(text)


def _as_server_user(cmd: list[str]) -> list[str]:
    """initdb and postgres refuse to run as root: as root, run them as the ``postgres`` user."""
    if os.geteuid() != 0:
        return cmd
    return ["runuser", "-u", "postgres", "--", *cmd]


@pytest.fixture(scope="module")
def plain_pg() -> Iterator[str]:
    """The owner's URL of database ``postgres`` on a fresh system PostgreSQL that lacks pgvector."""
    bindir = _binaries()
    if bindir is None:
        _skip("no system PostgreSQL without pgvector (Debian: apt-get install postgresql; scripts/bootstrap does)")
    assert bindir is not None
    if os.geteuid() == 0 and shutil.which("runuser") is None:
        _skip("running as root without runuser, so initdb cannot run as the postgres user")
    tmp = Path(tempfile.mkdtemp(prefix="reverie-plainpg-"))
    data = tmp / "data"
    if os.geteuid() == 0:
        shutil.chown(tmp, "postgres", "postgres")
    with socket.socket() as s:
        s.bind(("127.0.0.1", 0))
        port = s.getsockname()[1]
    run = {"capture_output": True, "text": True, "timeout": 120}
    init = subprocess.run(
        _as_server_user([str(bindir / "initdb"), "-D", str(data), "-U", "postgres", "--auth=trust", "-E", "UTF8"]),
        check=False,
        **run,  # type: ignore[call-overload]
    )
    if init.returncode != 0:
        shutil.rmtree(tmp, ignore_errors=True)
        _skip(f"initdb failed: {init.stderr.strip()[-300:]}")
    opts = f"-p {port} -k {tmp} -c listen_addresses=127.0.0.1 -c fsync=off"
    start = subprocess.run(
        _as_server_user([str(bindir / "pg_ctl"), "-D", str(data), "-o", opts, "-l", str(tmp / "log"), "-w", "start"]),
        check=False,
        **run,  # type: ignore[call-overload]
    )
    if start.returncode != 0:
        log = (tmp / "log").read_text(errors="replace")[-300:] if (tmp / "log").exists() else start.stderr
        shutil.rmtree(tmp, ignore_errors=True)
        _skip(f"the server did not start: {log.strip()}")
    try:
        yield f"postgresql://postgres@127.0.0.1:{port}/postgres"
    finally:
        subprocess.run(
            _as_server_user([str(bindir / "pg_ctl"), "-D", str(data), "-m", "immediate", "-w", "stop"]),
            check=False,
            **run,  # type: ignore[call-overload]
        )
        shutil.rmtree(tmp, ignore_errors=True)


def _tables(url: str) -> list[str]:
    import psycopg

    with psycopg.connect(url, autocommit=True) as c:
        rows = c.execute("SELECT tablename FROM pg_tables WHERE schemaname = 'public' ORDER BY 1").fetchall()
        exts = c.execute("SELECT extname FROM pg_extension WHERE extname <> 'plpgsql'").fetchall()
    return [r[0] for r in rows] + [f"extension {r[0]}" for r in exts]


def test_a_server_without_pgvector_says_what_to_install_and_creates_nothing(plain_pg: str) -> None:
    import psycopg

    with psycopg.connect(plain_pg, autocommit=True) as c:
        major = int(c.execute("SELECT current_setting('server_version_num')::int / 10000").fetchone()[0])  # type: ignore[index]
    with pytest.raises(StorageError) as caught:
        PostgresStore(plain_pg)
    text = caught.value.message
    assert f"postgresql-{major}-pgvector" in text  # the package for *this* server's version
    assert "managed PostgreSQL" in text and "Nothing was created" in text
    assert "CREATE EXTENSION" not in text  # not the other cause: nobody can enable what is not there
    assert _tables(plain_pg) == []
    with pytest.raises(StorageError):  # and a second try says the same, still creating nothing
        PostgresStore(plain_pg)
    assert _tables(plain_pg) == []


def test_a_role_that_may_not_enable_pgvector_is_told_to_ask_for_create_extension(pg: pg_server.PgServer) -> None:
    import psycopg

    db, role = "noext", "reverie_noext"
    with pg.admin() as c:
        c.execute(f"DROP DATABASE IF EXISTS {db}")
        c.execute(f"DROP ROLE IF EXISTS {role}")
        c.execute(f"CREATE ROLE {role} LOGIN PASSWORD 'pw' NOSUPERUSER")
        # The role even owns the database; pgvector is installed on the server, not enabled in it,
        # and (not being a trusted extension in this version) only a superuser may enable it.
        c.execute(f"CREATE DATABASE {db} OWNER {role} TEMPLATE template0")
    owner_url = pg.url(db)
    base, _, query = owner_url.partition("?")
    netloc = base.split("://", 1)[1].split("@", 1)[-1]
    role_url = f"postgresql://{role}:pw@{netloc}" + ("?" + query if query else "")
    try:
        with pytest.raises(StorageError) as caught:
            PostgresStore(role_url)
        text = caught.value.message
        assert "installed" in text and "CREATE EXTENSION vector" in text and role in text
        assert "apt install" not in text  # not the other cause: nothing needs installing
        assert "pw" not in text.replace("pgvector", "")  # the password never appears
        assert _tables(owner_url) == []
        with psycopg.connect(owner_url, autocommit=True) as c:
            c.execute("CREATE EXTENSION vector")  # what the message asked a superuser to do
        PostgresStore(role_url).close()  # now the role opens it and creates the schema
        assert "items" in _tables(owner_url)
    finally:
        with pg.admin() as c:
            c.execute("SELECT pg_terminate_backend(pid) FROM pg_stat_activity WHERE datname = %s", (db,))
            c.execute(f"DROP DATABASE IF EXISTS {db}")
            c.execute(f"DROP ROLE IF EXISTS {role}")
