"""A principal's write must not read every edge of a scope that holds hidden items.

Regression: ``VisibleStore._hidden_refs`` (which refuses writes naming a hidden item or an edge
with a hidden end) read ``edges(scope, include_closed=True)`` — every edge of the scope — on each
write as soon as the scope held one item the principal may not see, so writes grew with the
scope's links (quadratic over a growing scope, the class of read ``edges_by_type`` fixed for
extraction). The stores here are the real SQLite and reference stores, subclassed only to count
the edge rows their reads return.
"""

from __future__ import annotations

from pathlib import Path
from typing import Any

import pytest

from counting_stores import CountingReference, CountingSQLite
from reverie import ManualClock, Memory, NotFoundError
from strategies import START

SCOPE = "team:acme"


@pytest.fixture(params=["sqlite", "reference"])
def owner(request: pytest.FixtureRequest, tmp_path: Path) -> Any:
    store: Any = CountingSQLite(tmp_path / "v.db") if request.param == "sqlite" else CountingReference()
    mem = Memory(store=store, embedder="hash", clock=ManualClock(START), seed=0, detect_conflicts=False)
    yield mem, store
    mem.close()


def _link_visible(mem: Memory, n: int, start: int = 0) -> None:
    """``n`` visible claims, each linked to the one before: edges carol may see, none near the secret."""
    prev = mem.remember(f"public note {start}", scope=SCOPE).id
    for i in range(start + 1, start + 1 + n):
        claim = mem.remember(f"public note {i}", scope=SCOPE).id
        mem.link(claim, prev, "supports", scope=SCOPE)
        prev = claim


def _rows_for(store: Any, write: Any) -> int:
    before = store.rows
    write()
    return int(store.rows - before)


def test_a_principals_write_reads_no_more_edges_as_unrelated_edges_grow(owner: Any) -> None:
    mem, store = owner
    secret = mem.remember("the launch date is March 3", scope=SCOPE, visibility=["bob"]).id
    near = mem.remember("launch planning", scope=SCOPE).id
    mem.link(near, secret, "about", scope=SCOPE)  # an edge with a hidden end: one carol must not name
    _link_visible(mem, 3)
    carol = mem.as_principal("carol")
    few = _rows_for(store, lambda: carol.remember("carol likes tea", scope=SCOPE))
    _link_visible(mem, 40, start=10)
    many = _rows_for(store, lambda: carol.remember("carol likes green tea", scope=SCOPE))
    assert many == few, f"one write read {few} edge rows beside 3 visible edges, {many} beside 43"
    batch = _rows_for(store, lambda: carol.remember_many([{"text": f"fact {i}"} for i in range(20)], scope=SCOPE))
    assert batch == few, f"a batch of 20 read {batch} edge rows (one write reads {few})"


def test_writes_naming_a_hidden_item_or_its_edge_are_still_refused(owner: Any) -> None:
    mem, _ = owner
    secret = mem.remember("the launch date is March 3", scope=SCOPE, visibility=["bob"]).id
    near = mem.remember("launch planning", scope=SCOPE).id
    hidden_edge = mem.link(near, secret, "about", scope=SCOPE)
    _link_visible(mem, 5)
    closed = mem.link(near, mem.remember("old plan", scope=SCOPE).id, "supports", scope=SCOPE)
    mem.unlink(closed.id, scope=SCOPE, reason="superseded")
    closed_hidden = mem.link(secret, near, "supports", scope=SCOPE)
    mem.unlink(closed_hidden.id, scope=SCOPE, reason="wrong")  # a closed edge with a hidden end
    carol = mem.as_principal("carol")
    with pytest.raises(NotFoundError):
        carol.link(near, secret, "supports", scope=SCOPE)
    with pytest.raises(NotFoundError):
        carol.unlink(hidden_edge.id, scope=SCOPE, reason="x")
    with pytest.raises(NotFoundError):
        carol.unlink(closed_hidden.id, scope=SCOPE, reason="x")
    with pytest.raises(NotFoundError):
        carol.remember_many([{"text": "fine"}, {"text": "child", "parents": [secret]}], scope=SCOPE)
    assert carol.remember("a visible claim", scope=SCOPE).text == "a visible claim"
    assert [e.id for e in carol.store.edges(SCOPE, include_closed=True) if secret in (e.src, e.dst)] == []
