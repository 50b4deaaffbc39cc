"""Recall understands people: a relation phrase finds the person it names (the marked people hook)."""

from __future__ import annotations

from reverie import Memory

SCOPE = "user:alice"
FILLER = [
    "I had pasta for lunch today.",
    "The weather in Porto is lovely this week.",
    "I finished reading a novel about sailors.",
    "My laptop battery is getting weak.",
    "I started learning the piano last month.",
    "The train to Braga was late again.",
    "I bought new running shoes.",
    "My neighbour's dog barks at night.",
]


def chat(mem: Memory) -> None:
    conv = mem.conversation("alice-chat", scope=SCOPE)
    for text in FILLER[:4]:
        conv.add(text, speaker="Alice")
    conv.add("My sister Dana lives in Lisbon.", speaker="Alice")
    for text in FILLER[4:]:
        conv.add(text, speaker="Alice")
    conv.add("Noted!", speaker="Bot", role="assistant")
    conv.close()


def about_dana(mem: Memory, hits: list) -> list[str]:  # type: ignore[type-arg]
    dana = {c.id for c in mem.person("Dana", scope=SCOPE).claims}
    return [h.item.text for h in hits if h.item.id in dana]


def test_where_does_alices_sister_live_finds_the_claim_about_dana(mem: Memory) -> None:
    chat(mem)
    hits = mem.recall("where does Alice's sister live?", scope=SCOPE, k=3)
    assert "Dana lives in Lisbon." in about_dana(mem, hits)
    assert any(h.why.get("about_person") for h in hits)


def test_in_alices_conversation_my_sister_is_alices_sister(mem: Memory) -> None:
    chat(mem)
    conv = mem.conversation("alice-chat", scope=SCOPE)
    hits = conv.recall("where does my sister live?", k=3)
    assert "Dana lives in Lisbon." in about_dana(mem, hits)


def test_an_explicit_asker_overrides_the_last_speaker(mem: Memory) -> None:
    chat(mem)
    conv = mem.conversation("alice-chat", scope=SCOPE)
    hits = conv.recall("where does my sister live?", speaker="Omar", k=3)
    assert not any(h.why.get("about_person") for h in hits)  # Omar has no known sister


def test_person_records_are_not_recalled_as_memories(mem: Memory) -> None:
    chat(mem)
    hits = mem.recall("Dana", scope=SCOPE, k=20)
    assert hits and all(h.item.kind != "person" for h in hits)


def test_a_relation_nobody_has_leaves_the_query_alone(mem: Memory) -> None:
    chat(mem)
    hits = mem.recall("where does Alice's brother live?", scope=SCOPE, k=5)
    assert not any(h.why.get("about_person") for h in hits)


def test_a_message_and_the_claims_mined_from_it_take_one_slot_of_the_answer(mem: Memory) -> None:
    """Regression (LoCoMo k=10 recall fell 0.782 → 0.777 once extraction ran): a claim and the
    message it came from answered the same question twice, pushing another turn out of the top k."""
    chat(mem)
    hits = mem.recall("Dana Lisbon sister", scope=SCOPE, k=10)
    sources = [h.item.meta.get("message") or h.item.meta.get("message_id") for h in hits]
    sources = [s for s in sources if s]
    assert len(sources) == len(set(sources))
    assert any(h.why.get("same_source_folded") for h in hits)
