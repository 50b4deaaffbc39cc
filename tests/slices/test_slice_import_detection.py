"""Write-time detection on a conversation import runs as it does on the live writes it replays.

Regression for the slow conversation import (4-5x the time of adding the same messages one by
one): every imported message's memory went through conflict detection, which ``conv.add`` never
runs on a message (only on the claims extraction mines from it), and the alias groups were read
again for every imported item. The stores are the real SQLite and reference stores, subclassed only
to count the reads detection makes (a full-text candidate search per item checked, an alias read).
"""

from __future__ import annotations

from pathlib import Path
from typing import Any

import pytest

from reverie import ManualClock, Memory
from reverie.memory import CONFLICTS_UNCHECKED
from reverie.model.item import Edge, Item
from reverie.model.query import Q
from reverie.slice import Slice
from reverie.store.reference import ReferenceStore
from reverie.store.sqlite import SQLiteStore
from strategies import START

MAIN, TASK = "user:alice", "task:trip"


class _Counting:
    """Counts full-text searches (detection's candidates) and alias-edge reads (its alias groups)."""

    searches = 0
    alias_reads = 0

    def lexical(self, scope: str, match: str, **kw: Any) -> list[tuple[str, float]]:
        self.searches += 1
        found: list[tuple[str, float]] = super().lexical(scope, match, **kw)  # type: ignore[misc]
        return found

    def edges_by_type(self, scope: str, type: str, *, include_closed: bool = False) -> list[Edge]:
        self.alias_reads += type == "alias"
        found: list[Edge] = super().edges_by_type(scope, type, include_closed=include_closed)  # type: ignore[misc]
        return found


class CountingSQLite(_Counting, SQLiteStore):
    pass


class CountingReference(_Counting, ReferenceStore):
    pass


def _source_slice(tmp_path: Path, clock: ManualClock, messages: int) -> Slice:
    """A version-2 slice of a scope with one conversation: ``messages`` messages, a claim mined from each third."""
    with Memory(tmp_path / "src.db", embedder="hash", clock=clock, seed=1) as src:
        conv = src.conversation("c", scope=MAIN)
        for i in range(messages):
            text = f"I live in town number {i}." if i % 3 == 0 else f"Message {i}: we talked about the garden."
            conv.add(text, speaker="Alice")
        conv.release()
        return src.export_slice(scope=MAIN, include_conversations=True)


def _items(store: Any, scope: str) -> list[Item]:
    found: list[Item] = store.query(scope, Q.status("live"), (("id", False),), limit=1000)
    return found


@pytest.fixture(params=["sqlite", "reference"])
def store(request: pytest.FixtureRequest, tmp_path: Path) -> Any:
    return CountingSQLite(tmp_path / "dst.db") if request.param == "sqlite" else CountingReference()


def test_imported_messages_are_not_checked_for_conflicts_and_aliases_are_read_once(store: Any, tmp_path: Path) -> None:
    clock = ManualClock(START)
    sl = _source_slice(tmp_path, clock, 12)
    with Memory(store=store, embedder="hash", clock=clock, seed=2) as dst:
        searches, aliases = store.searches, store.alias_reads
        report = dst.import_slice(sl, scope=TASK)
        items = _items(store, TASK)
        searches, aliases = store.searches - searches, store.alias_reads - aliases
    messages = [i for i in items if "message" in i.meta]
    claims = [i for i in items if "message" not in i.meta]
    assert len(messages) == 12 and claims, (len(messages), [i.text for i in claims])
    assert len(report.created) == len(items)
    # One candidate search per claim, none per message (a live conv.add runs none for its message).
    assert searches == len(claims), f"{searches} searches for {len(claims)} claims and {len(messages)} messages"
    assert aliases <= 1, f"the alias groups were read {aliases} times for one import"


def test_an_imported_claim_still_meets_the_claim_here_it_contradicts(store: Any, tmp_path: Path) -> None:
    clock = ManualClock(START)
    with Memory(tmp_path / "src.db", embedder="hash", clock=clock, seed=1) as src:
        src.conversation("c", scope=MAIN).add("We talked about the garden.", speaker="Alice")
        src.remember("Alice lives in Porto", scope=MAIN, key="alice.city", value="Porto")
        sl = src.export_slice(scope=MAIN, include_conversations=True)
    with Memory(store=store, embedder="hash", clock=clock, seed=2) as dst:
        here = dst.remember("Alice lives in Lisbon", scope=TASK, key="alice.city", value="Lisbon")
        report = dst.import_slice(sl, scope=TASK)
        found = dst.contradictions(scope=TASK)
    assert len(found) == 1, found
    sides = {found[0].a.id, found[0].b.id}
    assert here.id in sides and sides & set(report.created), (sides, report.created)


def test_with_detection_off_only_claims_carry_the_unchecked_marker(store: Any, tmp_path: Path) -> None:
    clock = ManualClock(START)
    sl = _source_slice(tmp_path, clock, 6)
    with Memory(store=store, embedder="hash", clock=clock, seed=2, detect_conflicts=False) as dst:
        dst.import_slice(sl, scope=TASK)
        live = dst.conversation("live", scope=TASK)
        live.add("Message 99: we talked about the garden.", speaker="Alice")
        items = _items(store, TASK)
    messages = [i for i in items if "message" in i.meta]
    claims = [i for i in items if "message" not in i.meta]
    assert len(messages) == 7 and claims
    # A message's memory, imported or added live, carries none (detection never runs on it).
    assert [i.text for i in messages if CONFLICTS_UNCHECKED in i.flags] == []
    # A claim detection missed stays flagged for the dream pass.
    assert [i.text for i in claims if CONFLICTS_UNCHECKED not in i.flags] == []
