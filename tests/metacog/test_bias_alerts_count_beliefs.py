"""Bias alerts count beliefs only: never chat transcripts (message memories) or person records.

Outside probe 4, finding 16: Alice stated 4 facts about herself in 3 sessions; the single_source alert
read "96% of the evidence behind 17 established belief(s) about 'alice'", and 12 of its 17 items were
the verbatim message memories (a transcript is what was said, not something believed) and 1 was her
person record (a record, not a memory). Real SQLite, through the conversation API.
"""

from __future__ import annotations

from collections.abc import Iterator
from pathlib import Path

import pytest

from reverie import ManualClock, Memory
from reverie.model.item import Item
from reverie.testing import EPOCH

S = "user:alice"
FACTS = ["I live in Porto.", "I work at Acme.", "I am allergic to peanuts.", "I have two cats."]


@pytest.fixture()
def mem(tmp_path: Path) -> Iterator[Memory]:
    with Memory(tmp_path / "b.db", embedder="hash", clock=ManualClock(EPOCH), seed=0) as m:
        yield m


def _three_sessions(mem: Memory) -> None:
    clock = mem.clock
    assert isinstance(clock, ManualClock)
    for _ in range(3):
        conv = mem.conversation("c", scope=S)
        for text in FACTS:
            conv.add(text, speaker="Alice", role="user")
        conv.close()
        clock.advance(days=2)


def _is_record(item: Item) -> bool:
    return item.kind == "person" or "message" in item.meta


def test_a_single_source_alert_counts_the_claims_not_the_transcripts_or_the_person_record(mem: Memory) -> None:
    _three_sessions(mem)
    mem.dream(scope=S)
    (alert,) = [a for a in mem.alerts(scope=S) if a.kind == "single_source" and a.subject == "alice"]
    items = [mem.get(i, scope=S) for i in alert.items]
    assert [i.text for i in items if _is_record(i)] == []
    assert sorted(i.text for i in items) == [
        "Alice has two cats.",
        "Alice is allergic to peanuts.",
        "Alice lives in Porto.",
        "Alice works at Acme.",
    ]
    assert "behind 4 established belief(s) about 'alice'" in alert.reason and "100%" in alert.reason


def test_no_bias_alert_of_any_kind_names_a_transcript_or_a_person_record(mem: Memory) -> None:
    _three_sessions(mem)
    mem.dream(scope=S)
    named = {i for a in mem.alerts(scope=S) for i in a.items}
    assert named
    assert [i.text for i in (mem.get(x, scope=S) for x in sorted(named)) if _is_record(i)] == []


def test_the_record_names_the_model_knows_are_the_ones_conversations_write(mem: Memory) -> None:
    from reverie.conversation.people import PERSON_KIND
    from reverie.model import records

    assert records.PERSON_KIND == PERSON_KIND
    msg = mem.conversation("c", scope=S).add("I live in Porto.", speaker="Alice", role="user")
    memory = mem.get(msg.item_id, scope=S)
    assert memory is not None and records.is_message_memory(memory) and records.is_record(memory)
    claim = mem.remember("Alice lives in Porto", scope=S)
    assert not records.is_record(claim)
