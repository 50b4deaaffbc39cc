"""A write transaction's scope lock and its own scope figures (``scopestats.py``) on PostgreSQL.

A dream pass reads a scope inside its batch transaction before it writes there (the version
check, the conflict recheck's lexical search); the write must still take the scope's lock, and
the figures bm25 reads inside that transaction must follow the transaction's own writes, its
rolled-back savepoints, and nothing else.
"""

from __future__ import annotations

from typing import Any

from reverie import Memory
from reverie.errors import NotFoundError
from reverie.model import commands as cmd
from reverie.store.protocol import Batch

S = "s"
_LOCKS = "SELECT count(*) FROM pg_locks WHERE locktype = 'advisory' AND pid = pg_backend_pid()"


def _steps(mem: Memory, *steps: Any) -> list[Any]:
    new_id = mem._core.new_id  # the Memory's own id source (seeded)
    return mem.store.execute_steps(list(steps), now=mem.clock.now(), new_id=new_id, vectors={})


def test_a_write_takes_the_scope_lock_even_after_a_read_named_the_scope(memories, pg_url: str) -> None:  # type: ignore[no-untyped-def]
    mem: Memory = memories.open(pg_url)
    item = mem.remember("Alice likes tea", scope=S)

    def read_then_write(b: Batch) -> int:
        assert b.item(S, item.id) is not None  # names the scope for row-level security, unlocked
        b.run([cmd.Forget(S, item.id, "test", item.version)])
        return int(mem.store.q(_LOCKS)[0][0])  # type: ignore[attr-defined]

    assert _steps(mem, read_then_write) == [1]


def test_figures_in_a_write_follow_its_own_writes_and_rolled_back_savepoints(memories, pg_url: str) -> None:  # type: ignore[no-untyped-def]
    mem: Memory = memories.open(pg_url)
    a, b_, _ = mem.remember_many(["Alice likes tea", "Bob likes coffee", "Carol likes juice"], scope=S)
    store: Any = mem.store
    seen: list[tuple[int, int]] = []
    scans: list[str] = []

    def figures() -> None:
        st = store.scope_stats(S, True)
        seen.append((st.rows, st.tokens))

    def flag_then_read(b: Batch) -> None:
        figures()  # before the step's first write: the scope is not locked yet, nothing is kept
        b.run([cmd.SetFlags(S, a.id, ("x",), (), "test", a.version)])  # the row stays current
        figures()  # read under the lock and kept
        figures()  # kept: no scan

    def forget_then_fail(b: Batch) -> None:
        b.run([cmd.Forget(S, b_.id, "test", b_.version)])
        figures()  # one row fewer, inside the savepoint
        raise NotFoundError("roll this step back")

    def forget_for_good(b: Batch) -> None:
        figures()  # the rollback gave the row back
        b.run([cmd.Forget(S, b_.id, "test", b_.version)])
        figures()

    store._statement_hook = lambda sql: scans.append(sql) if "coalesce(sum(ntok)" in sql else None
    out = _steps(mem, flag_then_read, forget_then_fail, forget_for_good)
    store._statement_hook = None
    assert isinstance(out[1], NotFoundError)
    full, less = seen[0], seen[3]
    assert less[0] == full[0] - 1 and less[1] < full[1]
    assert seen == [full, full, full, less, full, less]
    # one scan before the lock, one under it (kept), then one after each forget and the rollback
    assert len(scans) == 5
    after = store.scope_stats(S, True)
    assert (after.rows, after.tokens) == less
