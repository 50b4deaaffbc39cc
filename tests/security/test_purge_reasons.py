"""Finding 1 (issue #14): a reason given on an operation *about* the purged claim is its content.

``resolve(edge, keep=x, reason=…)`` writes the reason twice: into ``memory.superseded`` (names
both items) and into ``edge.unlinked`` of the conflict edge (names only the edge id). ``unlink``
of any edge touching the claim does the same. The SQLite store found events to rewrite by the
purged ids alone, so the unlink's reason survived in its log and file while the reference
store (which reads the whole log) erased it: the backends disagreed and the secret stayed on disk.
"""

from __future__ import annotations

from collections.abc import Callable
from pathlib import Path

import pytest

from reverie import ManualClock, Memory
from reverie.model.redact import REDACTED

from .kit import everything_readable, found_on_disk

SCOPE = "user:alice"
SECRET = "Zq7Secret0Reason"
WHY = f"{SECRET} left the company"


def _backends(open_mem: Callable[..., Memory], tmp_path: Path) -> list[Memory]:
    return [open_mem(tmp_path / "purge.db"), open_mem(reference=True)]


def _unlink_events(mem: Memory) -> list[dict[str, object]]:
    return [e.payload for e in mem.events(scope=SCOPE, limit=10_000) if e.type == "edge.unlinked"]


@pytest.mark.parametrize("purged_side", ["kept", "loser"])
def test_purge_erases_the_reason_of_a_resolve_from_the_unlink_event_on_both_backends(
    open_mem: Callable[..., Memory], tmp_path: Path, clock: ManualClock, purged_side: str
) -> None:
    logs = []
    for mem in _backends(open_mem, tmp_path):
        loser = mem.remember("Alice works at Initech", scope=SCOPE)
        kept = mem.remember("Alice works at Globex", scope=SCOPE)
        edge = mem.link(loser.id, kept.id, "contradicts", scope=SCOPE)
        clock.advance(seconds=1)
        mem.resolve(edge.id, keep=kept.id, scope=SCOPE, reason=WHY)
        assert SECRET.casefold() in everything_readable(mem, SCOPE)  # the check below can fail
        mem.forget((kept if purged_side == "kept" else loser).id, scope=SCOPE, purge=True)
        assert SECRET.casefold() not in everything_readable(mem, SCOPE)
        assert [p["reason"] for p in _unlink_events(mem)] == [REDACTED]
        logs.append([(e.type, e.payload) for e in mem.events(scope=SCOPE, limit=10_000)])
    assert [t for t, _ in logs[0]] == [t for t, _ in logs[1]]
    assert found_on_disk(tmp_path / "purge.db", [SECRET]) == {}


def test_purge_erases_the_reason_of_unlinking_an_edge_of_the_purged_claim(
    open_mem: Callable[..., Memory], tmp_path: Path
) -> None:
    for mem in _backends(open_mem, tmp_path):
        secret = mem.remember("Alice's badge number", scope=SCOPE)
        other = mem.remember("Bob's desk", scope=SCOPE)
        edge = mem.link(secret.id, other.id, "about", scope=SCOPE)
        mem.unlink(edge.id, scope=SCOPE, reason=WHY)
        mem.forget(secret.id, scope=SCOPE, purge=True)
        assert [p["reason"] for p in _unlink_events(mem)] == [REDACTED]
        assert SECRET.casefold() not in everything_readable(mem, SCOPE)
        mem.rebuild()
        assert SECRET.casefold() not in everything_readable(mem, SCOPE)
    assert found_on_disk(tmp_path / "purge.db", [SECRET]) == {}


def test_purge_keeps_the_reason_of_unlinking_an_edge_between_two_other_claims(
    open_mem: Callable[..., Memory], tmp_path: Path
) -> None:
    """The rule is "about the purged claim", not "any reason": a bystander edge keeps its reason."""
    for mem in _backends(open_mem, tmp_path):
        secret = mem.remember("Alice's badge number", scope=SCOPE)
        a = mem.remember("Bob's desk", scope=SCOPE)
        b = mem.remember("Carol's desk", scope=SCOPE)
        edge = mem.link(a.id, b.id, "about", scope=SCOPE)
        mem.unlink(edge.id, scope=SCOPE, reason="desks moved")
        mem.forget(secret.id, scope=SCOPE, purge=True)
        assert [p["reason"] for p in _unlink_events(mem)] == ["desks moved"]
