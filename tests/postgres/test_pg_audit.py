"""Every statement the PostgreSQL store issues carries the scope predicate (the schema is Citus-ready).

A workload touching every write and read path runs with a hook that records each statement;
each must name ``scope`` in its filter (or, for an INSERT, in its columns). The exceptions are
few and named: the global ``settings`` table (a Citus reference table), transaction-scoped
settings, advisory locks (their key is the scope's hash), and the statements marked
``ALL_SCOPES`` (maintenance that lists scopes on purpose).
"""

from __future__ import annotations

import re

from reverie import Memory
from reverie.store.postgres.store import ALL_SCOPES

_PREDICATE = re.compile(r"\bscope\s*(=\s*(%s|ANY)|IN\b)|starts_with\(scope", re.IGNORECASE)
_INSERT = re.compile(r"^\s*INSERT INTO \w+ \([^)]*\bscope\b", re.IGNORECASE)


def _exempt(sql: str) -> bool:
    text = " ".join(sql.split())
    return (
        ALL_SCOPES in text
        or text.startswith("SELECT set_config(")  # transaction settings: the scopes RLS sees, ef_search
        or text.startswith(("SELECT pg_advisory_", "SELECT pg_try_advisory_"))  # lock keys hashed from the scope
        or " settings " in f" {text} "
        or text.startswith(("DROP INDEX IF EXISTS items_hnsw", "CREATE INDEX items_hnsw"))
        or " FROM pg_class c JOIN pg_index i " in text  # catalog: whether a scope's HNSW index is valid
    )


def test_every_statement_of_a_full_workload_names_its_scope(memories, pg_url: str) -> None:  # type: ignore[no-untyped-def]
    mem: Memory = memories.open(pg_url)
    seen: list[str] = []
    mem.store._statement_hook = seen.append  # type: ignore[attr-defined]
    a = mem.remember("Alice is allergic to peanuts", scope="s", key="alice.allergy", value="peanuts")
    b = mem.remember("Alice is not allergic to peanuts", scope="s", key="alice.allergy", value="none")
    c = mem.remember_many(["Bob likes tea", "Bob likes green tea", "Carol runs"], scope="s")
    mem.link(a.id, c[0].id, type="supports", scope="s")
    mem.revise(c[0].id, "Bob likes black tea", scope="s")
    mem.recall("what is Alice allergic to", scope="s")
    mem.recall("tea", scope="s", include_history=True)
    mem.dismiss(c[2].id, scope="s")
    mem.forget(b.id, scope="s")
    mem.list(scope="s", subscopes=True)
    mem.history(a.id, scope="s")
    mem.contradictions(scope="s")
    mem.summary(scope="s")
    mem.dream(scope="s")
    mem.dream_runs(scope="s")
    conv = mem.conversation("c1", scope="s")
    conv.add("I moved to Lisbon last spring", speaker="alice")
    mem.archive_search("Lisbon", scope="s")
    mem.store.take_lease("s", "me", now=mem.clock.now(), expires_at=mem.clock.now())
    mem.store.release_lease("s", "me")
    with mem.idempotency.claim("key-1", scope="s", request="0" * 64) as pending:  # an HTTP write's key
        mem.remember("Dana likes jazz", scope="s")
    mem.idempotency.record(pending.claim, status=201, body="{}")
    mem.idempotency.recorded("key-1", scope="s")
    mem.forget(a.id, scope="s", purge=True)  # erases recorded answers too
    mem.doctor()
    mem.rebuild()
    mem.store._statement_hook = None  # type: ignore[attr-defined]
    assert len(seen) > 100
    missing = sorted(
        {
            " ".join(s.split())[:160]
            for s in seen
            if not _exempt(s) and not _PREDICATE.search(s) and not _INSERT.search(s)
        }
    )
    assert missing == [], "statements without the scope predicate:\n" + "\n".join(missing)
