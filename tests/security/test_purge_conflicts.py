"""A purged claim leaves current truth, so its open conflicts close with it — on both backends.

Regression: after a purge the other side of a ``contradicts`` edge was still marked contested by
recall (``contradicted_by`` pointed at a claim nobody believes any more) while
``contradictions()`` listed nothing: the two reads disagreed.
"""

from __future__ import annotations

from collections.abc import Callable
from pathlib import Path

from reverie import Memory

SCOPE = "team:ops"


def test_purging_one_side_closes_its_conflicts_on_both_backends(
    open_mem: Callable[..., Memory], tmp_path: Path
) -> None:
    for mem in (open_mem(tmp_path / "p.db"), open_mem(reference=True)):
        bob = mem.remember("The on-call engineer is Bob", scope=SCOPE)
        carol = mem.remember("The on-call engineer is Carol", scope=SCOPE)
        assert [e.type for e in mem.edges(carol.id, scope=SCOPE)] == ["contradicts"]
        mem.forget(carol.id, scope=SCOPE, purge=True, reason="wrong person")
        assert mem.contradictions(scope=SCOPE) == []
        assert [e for e in mem.edges(bob.id, scope=SCOPE) if e.type == "contradicts"] == []
        hit = mem.recall("who is on call", scope=SCOPE, record_use=False)[0]
        assert hit.item.id == bob.id and not hit.contradicted_by
        assert mem.doctor().ok
