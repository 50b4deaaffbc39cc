"""Dense search of large scopes on PostgreSQL: each such scope's own HNSW index, built by ``warm``.

Schema 3 dropped the one HNSW index over every scope's vectors (each item insert of every scope
updated it); a scope at ``ANN_THRESHOLD`` vectors gets a partial index of its own when ``warm``
runs (the dream pass's last step). These tests hold where the index is, that the query reaches
it, that nothing else does, that a batch's prefetched absences never hide a row the batch wrote,
and the in-place upgrade of a schema-2 database.
"""

from __future__ import annotations

from collections.abc import Iterator

import numpy as np
import psycopg
import pytest

from pg_server import TEMPLATE, PgServer
from reverie import DismissedValueError, Memory
from reverie.store.postgres import ann
from reverie.store.postgres.roles import create_app_role
from reverie.store.postgres.schema import SCHEMA_VERSION, hnsw_index_name

BIG = "user:o.b-1@x/y"  # a scope using every punctuation a scope may hold: it becomes an SQL literal
SMALL = "user:small"


def _indexes(url: str) -> dict[str, str]:
    with psycopg.connect(url) as c:
        rows = c.execute("SELECT indexname, indexdef FROM pg_indexes WHERE indexname LIKE 'items%%hnsw%%'").fetchall()
    return {str(r[0]): str(r[1]) for r in rows}


def _fill(mem: Memory, scope: str, n: int) -> None:
    mem.remember_many([f"note {i} about topic {i % 7} and thing {i % 11}" for i in range(n)], scope=scope)


def test_warm_builds_an_index_for_a_large_scope_only(memories, pg_url: str, monkeypatch) -> None:  # type: ignore[no-untyped-def]
    monkeypatch.setattr(ann, "ANN_THRESHOLD", 40)
    mem: Memory = memories.open(pg_url)
    _fill(mem, BIG, 60)
    _fill(mem, SMALL, 10)
    assert _indexes(pg_url) == {}  # nothing is indexed by a write
    query = mem.embedder.embed(["topic 3 thing 5"])[0]
    assert mem.store.nearest(BIG, query, limit=5) is None  # no index yet: the exact scan answers
    assert mem.store.warm(SMALL) is False
    assert mem.store.warm(BIG) is True
    indexes = _indexes(pg_url)
    assert list(indexes) == [hnsw_index_name(BIG)]
    assert f"scope = '{BIG}'" in indexes[hnsw_index_name(BIG)]
    assert mem.store.warm(BIG) is True  # already there: nothing rebuilt
    ids, mat = mem.store.vectors(BIG)
    exact = [ids[i] for i in np.argsort(-(mat @ query), kind="stable")[:5]]
    found = mem.store.nearest(BIG, query, limit=5)
    assert found is not None and set(found) == set(exact)  # 60 rows, ef_search 100: the graph is exact
    assert mem.recall("topic 3 thing 5", scope=BIG, k=5)


def test_the_nearest_query_reaches_the_scopes_index_and_no_other_scope_does(memories, pg_url: str, monkeypatch) -> None:  # type: ignore[no-untyped-def]
    monkeypatch.setattr(ann, "ANN_THRESHOLD", 40)
    mem: Memory = memories.open(pg_url)
    _fill(mem, BIG, 50)
    _fill(mem, SMALL, 5)
    assert mem.store.warm(BIG)
    vec = "[" + ",".join(["0.1"] * mem.embedder.dim) + "]"
    sql = (
        "EXPLAIN SELECT id FROM items WHERE scope = %s AND closed_at IS NULL AND vec IS NOT NULL "
        f"ORDER BY vec::vector({mem.embedder.dim}) <=> %s::vector({mem.embedder.dim}) LIMIT 5"
    )
    with psycopg.connect(pg_url) as c:
        c.execute("SET enable_seqscan = off")  # a 50-row table would be scanned and sorted:
        c.execute("SET enable_sort = off")  # ask whether the index can give the order
        c.execute("SET plan_cache_mode = force_custom_plan")
        big = "\n".join(r[0] for r in c.execute(sql, (BIG, vec)).fetchall())
        small = "\n".join(r[0] for r in c.execute(sql, (SMALL, vec)).fetchall())
    assert hnsw_index_name(BIG) in big
    assert "hnsw" not in small


def test_a_new_embedder_dimension_drops_every_scope_index(memories, pg_url: str, monkeypatch) -> None:  # type: ignore[no-untyped-def]
    monkeypatch.setattr(ann, "ANN_THRESHOLD", 20)
    mem: Memory = memories.open(pg_url)
    _fill(mem, BIG, 25)
    assert mem.store.warm(BIG)
    name, dim = mem.store.embedder()
    mem.store.set_embedder("hash-16", 16)
    assert _indexes(pg_url) == {}
    mem.store.set_embedder(name, dim)  # back, so the store's vectors match its embedder again


def test_an_application_role_cannot_build_an_index_and_keeps_exact_scans(memories, pg_url: str, monkeypatch) -> None:  # type: ignore[no-untyped-def]
    monkeypatch.setattr(ann, "ANN_THRESHOLD", 20)
    owner: Memory = memories.open(pg_url)
    _fill(owner, BIG, 25)
    create_app_role(pg_url, "reverie_app_ann", "pw")
    app = memories.open(pg_url.replace("postgresql://postgres:@", "postgresql://reverie_app_ann:pw@", 1))
    assert app.store.warm(BIG) is False
    assert _indexes(pg_url) == {}
    assert app.recall("topic 3", scope=BIG, k=3)


def test_a_batch_sees_the_fingerprints_it_wrote_itself(memories, pg_url: str) -> None:  # type: ignore[no-untyped-def]
    """The batch's keys are read as absent before it runs; its own writes must still be found."""
    mem: Memory = memories.open(pg_url)
    first, again, other = mem.remember_many(["Bob keeps bees", "bob keeps bees!", "Carol runs"], scope=SMALL)
    assert first.id == again.id and again.evidence_count == 2  # corroborated inside the batch
    keyed = mem.remember_many(
        [{"text": "Dana lives in Oslo", "key": "dana.city", "value": "Oslo"}, {"text": "Dana lives in Oslo"}],
        scope=SMALL,
    )
    assert keyed[0].id == keyed[1].id
    mem.dismiss(other.id, scope=SMALL)
    with pytest.raises(DismissedValueError):
        mem.remember_many(["Erin sings", "Carol runs"], scope=SMALL)
    assert [i.text for i in mem.list(scope=SMALL).items if i.text.startswith("Erin")] == []  # all or nothing


@pytest.fixture
def own_db(pg: PgServer) -> Iterator[str]:
    """A database of its own (not the shared pool: this test changes its schema)."""
    with pg.admin() as c:
        c.execute("DROP DATABASE IF EXISTS schema3_up")
        c.execute(f"CREATE DATABASE schema3_up TEMPLATE {TEMPLATE}")
    yield pg.url("schema3_up")
    with pg.admin() as c:
        c.execute("SELECT pg_terminate_backend(pid) FROM pg_stat_activity WHERE datname = 'schema3_up'")
        c.execute("DROP DATABASE IF EXISTS schema3_up")


def test_a_schema_3_database_gets_the_edge_type_index_and_loses_the_shared_graph(own_db: str) -> None:
    with Memory(own_db, embedder="hash") as mem:
        a = mem.remember("Alice is allergic to peanuts", scope=SMALL)
        b = mem.remember("Alice carries an epipen", scope=SMALL)
        mem.link(a.id, b.id, type="supports", scope=SMALL)
    with psycopg.connect(own_db, autocommit=True) as c:  # schema 3 exactly: schema 4 is it minus / plus these
        c.execute("DROP INDEX edges_by_type")
        c.execute(
            "CREATE INDEX items_hnsw ON items USING hnsw ((vec::vector(384)) vector_cosine_ops) "
            "WHERE closed_at IS NULL AND vec IS NOT NULL"
        )
        c.execute("UPDATE settings SET v = '3' WHERE k = 'schema_version'")
    with Memory(own_db, embedder="hash") as mem:
        assert [e.type for e in mem.store.edges_by_type(SMALL, "supports")] == ["supports"]
        assert mem.doctor().ok
    with psycopg.connect(own_db) as c:
        assert c.execute("SELECT v FROM settings WHERE k = 'schema_version'").fetchone() == (str(SCHEMA_VERSION),)
        names = {r[0] for r in c.execute("SELECT indexname FROM pg_indexes WHERE tablename IN ('items', 'edges')")}
    assert "edges_by_type" in names and "items_hnsw" not in names


def test_scope_figures_are_read_once_while_the_log_stands_and_follow_another_process(memories, pg_url: str) -> None:  # type: ignore[no-untyped-def]
    """``scopestats.py``: the whole-scope aggregates a recall needs are kept until the scope's log moves,
    whoever moves it."""
    mem: Memory = memories.open(pg_url)
    _fill(mem, SMALL, 12)
    seen: list[str] = []
    mem.store._statement_hook = seen.append  # type: ignore[attr-defined]
    assert mem.store.scope_stats(SMALL, True).rows == 12
    scans = len([s for s in seen if "sum(ntok)" in s])
    mem.recall("topic 3", scope=SMALL, k=3, record_use=False)  # (a recorded use would move the log)
    mem.recall("thing 5", scope=SMALL, k=3, record_use=False)
    assert len([s for s in seen if "sum(ntok)" in s]) == scans  # no scan of the scope again
    with Memory(pg_url, embedder="hash", seed=7) as other:  # another connection: another process, to the server
        other.remember("a thirteenth note", scope=SMALL)
    assert mem.store.scope_stats(SMALL, True).rows == 13
    assert mem.store.scope_stats(SMALL, True).vectors == 13
    mem.forget(mem.recall("thirteenth", scope=SMALL, k=1)[0].item.id, scope=SMALL)
    assert (mem.store.scope_stats(SMALL, True).rows, mem.store.scope_stats(SMALL, False).rows) == (12, 1)
    mem.store._statement_hook = None  # type: ignore[attr-defined]


def test_warm_leaves_no_setting_on_a_pooled_server_session(memories, pg_url: str, monkeypatch) -> None:  # type: ignore[no-untyped-def]
    """Behind a transaction pooler each statement outside a transaction may run on another server
    session, and the session goes on to other clients. Regression: the build ``SET`` 256MB of
    ``maintenance_work_mem`` on one session and ``RESET`` it on whichever ran the last statement,
    so the first kept it. The pooler's choice stands in here: from the build statement on, the
    store's statements run on a second server session (``_statement_hook``, the store's own)."""
    from reverie.store.postgres import connect as pgconnect

    monkeypatch.setattr(ann, "ANN_THRESHOLD", 20)
    mem: Memory = memories.open(pg_url)
    _fill(mem, BIG, 25)
    store = mem.store
    first, second = store._conn, pgconnect.connect(pg_url)  # type: ignore[attr-defined]
    default = first.execute("SHOW maintenance_work_mem").fetchone()[0]

    def pooler(sql: str) -> None:
        if sql.startswith("CREATE INDEX CONCURRENTLY"):
            store._conn = second  # type: ignore[attr-defined]

    store._statement_hook = pooler  # type: ignore[attr-defined]
    try:
        assert store.warm(BIG) is True
    finally:
        store._statement_hook = None  # type: ignore[attr-defined]
        store._conn = first  # type: ignore[attr-defined]
    try:
        assert store._conn is first and hnsw_index_name(BIG) in _indexes(pg_url)  # type: ignore[attr-defined]
        for session in (first, second):
            assert session.execute("SHOW maintenance_work_mem").fetchone()[0] == default
    finally:
        second.close()
