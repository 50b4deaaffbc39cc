"""Shared fixtures for the belief-store suite.

Every ``Memory`` a test opens through these fixtures is registered with ``memories``; after
the test it is checked with ``doctor()`` (the guarantee that indexes never disagree with the
record store) and then closed. A test that closed its own file-backed ``Memory`` gets the
file reopened and checked, so closing early never skips the check.
"""

from __future__ import annotations

import os
import tempfile
from collections.abc import Callable, Iterator
from pathlib import Path
from typing import Any

import pytest
from hypothesis import settings

import pg_server
from memory_registry import MemoryRegistry
from reverie import ManualClock, Memory
from strategies import START

# Property tests draw the same examples on every run, so a CI run never meets a new example by
# chance (a rare counterexample once turned a green main red); HYPOTHESIS_PROFILE=explore draws
# fresh ones, for a developer hunting for them.
settings.register_profile("reverie", derandomize=True)
settings.register_profile("explore", derandomize=False)
settings.load_profile(os.environ.get("HYPOTHESIS_PROFILE", "reverie"))

#: The fixtures reverie ships for its users' tests (``reverie_mem``, ``reverie_clock``); used here too.
pytest_plugins = ["reverie.testing"]

#: Where the run's temporary files go when nobody chose (``TMPDIR``): a RAM file system if the
#: machine has one with room to spare. Why: the suite opens thousands of SQLite files with
#: ``durability="full"``; on a disk each commit's fsync waits for the device (shared with
#: every other process on the machine), on tmpfs the same calls return at once. Nothing a
#: test checks changes: the files, locks, WAL and fsync calls are the same, only not waited on.
RAM_TMP = "/dev/shm"
#: pytest keeps the last three runs' directories: a whole run leaves about 1 GB (300 MB of it the
#: wheel-install test's venv), so room for several runs with plenty to spare.
RAM_TMP_FREE_BYTES = 4 * 2**30


def _ram_tmpdir() -> str | None:
    if os.environ.get("TMPDIR") or not os.path.isdir(RAM_TMP) or not os.access(RAM_TMP, os.W_OK):
        return None
    stats = os.statvfs(RAM_TMP)
    return RAM_TMP if stats.f_bavail * stats.f_frsize >= RAM_TMP_FREE_BYTES else None


def pytest_configure(config: pytest.Config) -> None:
    """Point ``tmp_path``, ``tempfile`` and the subprocesses the tests start at ``RAM_TMP`` (see there)."""
    ram = _ram_tmpdir()
    if ram is not None and config.option.basetemp is None:
        os.environ["TMPDIR"] = ram  # subprocesses (CLI, servers, the PostgreSQL server) inherit it
        tempfile.tempdir = None  # gettempdir() is cached: read TMPDIR again


@pytest.fixture
def clock() -> ManualClock:
    return ManualClock(START)


@pytest.fixture(autouse=True)
def memories(clock: ManualClock) -> Iterator[MemoryRegistry]:
    """Autouse: after every test, ``doctor()`` each memory it opened; a problem fails the test."""
    registry = MemoryRegistry(clock)
    yield registry
    problems = registry.check_and_close()
    if problems:
        pytest.fail("doctor() found index problems after the test: " + "; ".join(problems))


@pytest.fixture
def open_mem(memories: MemoryRegistry, tmp_path: Path) -> Callable[..., Memory]:
    """Factory: ``open_mem()`` opens (or reopens) ``tmp_path/reverie.db``; ``open_mem(path)`` another file."""

    def factory(path: str | Path | None = None, **kwargs: Any) -> Memory:
        return memories.open(path if path is not None else tmp_path / "reverie.db", **kwargs)

    return factory


@pytest.fixture
def db_path(tmp_path: Path) -> Path:
    return tmp_path / "reverie.db"


@pytest.fixture
def mem(memories: MemoryRegistry, db_path: Path) -> Memory:
    """A ``Memory`` on a real SQLite file with the hash embedder, the manual clock and seed 0."""
    return memories.open(db_path)


@pytest.fixture(scope="session")
def pg() -> Iterator[pg_server.PgServer]:
    """One real PostgreSQL (with pgvector) per test run (``tests/pg_server.py``); skips if it cannot start."""
    yield from pg_server.start()


@pytest.fixture
def pg_url(pg: pg_server.PgServer, memories: MemoryRegistry) -> str:
    """A fresh database with reverie's schema on the shared server, dropped after the test (once
    ``memories`` has doctored and closed what the test opened on it)."""
    name, url = pg.fresh()
    memories.after_close.append(lambda: pg.drop(name))
    return url


@pytest.fixture(params=["sqlite", "postgres"])
def store_url(request: pytest.FixtureRequest, db_path: Path) -> str:
    """Where a store-level test opens its store: a SQLite file, then a fresh PostgreSQL database."""
    if request.param == "sqlite":
        return str(db_path)
    return str(request.getfixturevalue("pg_url"))


@pytest.fixture(params=["sqlite", "reference", "postgres"])
def any_mem(request: pytest.FixtureRequest, memories: MemoryRegistry, db_path: Path) -> Memory:
    """The same ``Memory`` API over each backend: a SQLite file, the in-memory reference store, PostgreSQL."""
    if request.param == "sqlite":
        return memories.open(db_path)
    if request.param == "postgres":
        return memories.open(request.getfixturevalue("pg_url"))
    return memories.open(reference=True)


@pytest.fixture(params=["sqlite", "postgres"])
def store_mem(request: pytest.FixtureRequest, memories: MemoryRegistry, db_path: Path) -> Memory:
    """A ``Memory`` on each persistent backend: a module overrides ``mem`` with it to run on both."""
    if request.param == "postgres":
        return memories.open(request.getfixturevalue("pg_url"))
    return memories.open(db_path)


def pytest_terminal_summary(terminalreporter: Any) -> None:
    """Say loudly, at the end of the run, why the PostgreSQL tests did not run (if they did not)."""
    for reason in dict.fromkeys(pg_server.SKIPPED):
        terminalreporter.write_line(f"WARNING: {reason}", yellow=True, bold=True)


@pytest.fixture
def anyio_backend() -> str:
    """The MCP tests' async runner: asyncio only (the MCP SDK is written against it)."""
    return "asyncio"
