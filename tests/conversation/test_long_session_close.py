"""A long conversation closes. Regression: with 100 or more messages in one session ``close()``
raised ``StorageError: parser stack overflow`` — the messages' memories were looked up with 100
``Q.meta`` filters chained by ``|``, a 100-deep nest of ORs that SQLite's parser refuses."""

from __future__ import annotations

from pathlib import Path

from reverie import Memory
from reverie.model.query import And, Or, Q

SCOPE = "user:alice"


def test_a_session_of_250_messages_closes_and_mines_every_one(tmp_path: Path) -> None:
    with Memory(tmp_path / "long.db", embedder="hash") as mem:
        conv = mem.conversation("c-long", scope=SCOPE)
        for i in range(250):
            conv.add(f"I moved to city number {i} in the spring." if i % 50 == 0 else f"ok {i}", speaker="Alice")
        closed = conv.close()
        assert closed.extraction.stopped is None
        mined = [i for i in mem.list(scope=SCOPE, limit=1000).items if i.meta.get("extracted")]
        assert {i.text for i in mined} >= {"Alice moved to city number 200 in the spring."}


def test_chained_filters_stay_flat_and_a_long_chain_queries(tmp_path: Path) -> None:
    where = Q.meta("n", 0)
    for i in range(1, 400):
        where = where | Q.meta("n", i)
    assert isinstance(where, Or) and len(where.parts) == 400  # one level, not 400
    both = Q.kind("observation") & Q.status("live") & Q.tag("x")
    assert isinstance(both, And) and len(both.parts) == 3
    with Memory(tmp_path / "q.db", embedder="hash") as mem:
        for i in (0, 150, 399, 400):
            mem.remember(f"note {i}", scope=SCOPE, meta={"n": i})
        found = mem.list(scope=SCOPE, where=where, limit=10).items
        assert sorted(i.meta["n"] for i in found) == [0, 150, 399]
