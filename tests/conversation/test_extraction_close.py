"""Extraction into long-term memory when a conversation is closed: through remember, linked, idempotent."""

from __future__ import annotations

from typing import Any

import pytest

from reverie import ManualClock, Memory
from reverie.model.query import Q

SCOPE = "user:alice"


def chat(mem: Memory, cid: str = "c1") -> Any:
    conv = mem.conversation(cid, scope=SCOPE)
    conv.add("I live in Porto now.", speaker="Alice")
    conv.add("How long have you lived there?", speaker="Bot", role="assistant")
    conv.add("About two years. My sister Dana lives in Lisbon.", speaker="Alice")
    conv.tool_call("weather", args={"city": "Porto"}, status="ok", detail="I live in the cloud, 18C")
    return conv


def extracted(mem: Memory) -> list[Any]:
    return [i for i in mem.list(scope=SCOPE, limit=500).items if i.meta.get("extracted")]


def test_close_writes_claims_linked_to_their_message(mem: Memory) -> None:
    conv = chat(mem)
    closed = conv.close()
    assert closed.recap is not None and closed.extraction.stopped is None
    claims = {c.text: c for c in extracted(mem)}
    assert set(claims) == {
        "Alice lives in Porto now.",
        "Alice: About two years.",  # a verbless answer to "How long have you …": the one asked
        "Dana is Alice's sister.",
        "Dana lives in Lisbon.",
    }
    porto = claims["Alice lives in Porto now."]
    first = conv.messages()[0]
    assert porto.meta["message_id"] == first.id and porto.source == "user_stated" and porto.author == "Alice"
    assert porto.provenance.origin == "conversation" and porto.provenance.locator == first.id
    memory = mem.list(scope=SCOPE, where=Q.meta("message", first.id), limit=1).items[0]
    assert porto.parents == (memory.id,)
    assert any(e.type == "derived_from" and e.dst == memory.id for e in mem.edges(porto.id, scope=SCOPE))
    assert claims["Dana lives in Lisbon."].source == "observed"  # hearsay about someone else


def test_tool_output_and_the_assistant_never_become_claims(mem: Memory) -> None:
    chat(mem).close()
    texts = " ".join(c.text for c in extracted(mem))
    assert "cloud" not in texts and "18C" not in texts and "How long" not in texts


def test_closing_twice_writes_nothing_more(mem: Memory) -> None:
    conv = chat(mem)
    conv.close()
    before = len(mem.events(scope=SCOPE, limit=10_000))
    again = conv.close()
    assert again.recap is None and again.extraction.claims == [] and again.extraction.messages_already_mined == 2
    assert len(mem.events(scope=SCOPE, limit=10_000)) == before


def test_a_repeated_fact_in_a_later_session_is_corroborated_not_duplicated(mem: Memory) -> None:
    conv = chat(mem)
    conv.close()
    conv.add("I live in Porto now.", speaker="Alice")
    conv.close()
    [porto] = [c for c in extracted(mem) if c.text == "Alice lives in Porto now."]
    assert porto.evidence_count == 2


def test_the_idle_timeout_extracts_too(mem: Memory, clock: ManualClock) -> None:
    chat(mem)
    clock.advance(minutes=31)
    assert mem.recap(scope=SCOPE) is not None
    assert len(extracted(mem)) == 4


def test_a_message_after_an_idle_gap_mines_the_session_it_closes(mem: Memory, clock: ManualClock) -> None:
    conv = chat(mem)
    clock.advance(hours=2)
    conv.add("new day", speaker="Alice")
    assert len(extracted(mem)) == 4


def test_paused_learning_stops_extraction_with_a_reason_and_writes_no_claim(mem: Memory) -> None:
    conv = chat(mem)
    mem.pause_learning(SCOPE)
    closed = conv.close()
    assert closed.extraction.stopped is not None and "paused" in closed.extraction.stopped
    assert extracted(mem) == [] and mem.people(scope=SCOPE) == []
    mem.resume_learning(SCOPE)
    assert len(conv.extract().claims) == 4  # the messages stayed unmined: a later pass learns them


def test_a_dismissed_claim_is_skipped_with_its_reason(mem: Memory) -> None:
    conv = chat(mem)
    conv.close()
    [porto] = [c for c in extracted(mem) if c.text.startswith("Alice lives")]
    mem.dismiss(porto.id, scope=SCOPE, reason="wrong")
    conv.add("I live in Porto now.", speaker="Alice")
    report = conv.close().extraction
    assert [s.reason.split(":")[0] for s in report.skipped] == ["dismissed_value"]
    assert not [c for c in extracted(mem) if c.text.startswith("Alice lives")]


def test_conflict_detection_runs_on_extracted_claims(mem: Memory) -> None:
    mem.remember("Alice lives in Berlin.", scope=SCOPE, source="user_stated")
    chat(mem).close()
    [porto] = [c for c in extracted(mem) if c.text.startswith("Alice lives")]
    assert any(e.type == "contradicts" for e in mem.edges(porto.id, scope=SCOPE))


def test_purging_a_message_purges_the_claims_mined_from_it(mem: Memory) -> None:
    conv = chat(mem)
    conv.close()
    conv.purge(conv.messages()[2].id, reason="privacy")
    texts = [c.text for c in extracted(mem)]
    assert texts == ["Alice lives in Porto now."]


def test_rebuild_replays_the_extraction_without_duplicating_it(mem: Memory) -> None:
    chat(mem).close()
    before = sorted((c.id, c.text) for c in extracted(mem))
    mem.rebuild()
    assert sorted((c.id, c.text) for c in extracted(mem)) == before
    assert mem.doctor().ok


@pytest.mark.parametrize("meta", [{"dia_id": "D1:3"}])
def test_the_message_meta_travels_with_its_claims(mem: Memory, meta: dict[str, str]) -> None:
    conv = mem.conversation("c", scope=SCOPE)
    conv.add("I love jazz.", speaker="Alice", meta=meta)
    conv.close()
    [claim] = extracted(mem)
    assert claim.meta["dia_id"] == "D1:3" and "turn" not in claim.meta  # no neighbour spread for claims
