"""Invariants of extraction over random chats: idempotent, fully linked, the same on both backends."""

from __future__ import annotations

from typing import Any

from hypothesis import given, settings
from hypothesis import strategies as st

from reverie import ManualClock, Memory
from reverie.store.reference import ReferenceStore

SCOPE = "user:p"
NAMES = ["Dana", "Bob", "Bob Smith", "Robert", "Kate", "Omar"]
RELS = ["sister", "manager", "friend", "neighbor"]
sentence = st.one_of(
    st.builds("I live in {}.".format, st.sampled_from(["Porto", "Leeds", "Oslo"])),
    st.builds("My {} {} works at a bank.".format, st.sampled_from(RELS), st.sampled_from(NAMES)),
    st.builds("{} is my {}.".format, st.sampled_from(NAMES), st.sampled_from(RELS)),
    st.builds("{} loves jazz.".format, st.sampled_from(NAMES)),
    st.builds('{} said "I hate sushi" yesterday.'.format, st.sampled_from(NAMES)),
    st.sampled_from(["She moved to Rome.", "He plays chess.", "Where do you live?", "ok", "I'm worried."]),
)
turn = st.tuples(st.sampled_from(["Ann", "Ben", "assistant"]), sentence)


def _play(mem: Memory, turns: list[tuple[str, str]]) -> Any:
    conv = mem.conversation("c", scope=SCOPE)
    for speaker, text in turns:
        role = "assistant" if speaker == "assistant" else "user"
        conv.add(text, speaker=None if role == "assistant" else speaker, role=role)
    conv.close()
    events = len(mem.events(scope=SCOPE, limit=100_000))
    again = conv.close().extraction
    assert again.claims == [] and len(mem.events(scope=SCOPE, limit=100_000)) == events
    items = mem.list(scope=SCOPE, limit=1000).items
    claims = [i for i in items if i.meta.get("extracted")]
    persons = {i.id for i in items if i.kind == "person"}
    for c in claims:
        edges = mem.edges(c.id, scope=SCOPE)
        assert any(e.type == "derived_from" for e in edges)
        assert any(e.type == "about" and e.dst in persons for e in edges)
        assert c.author in ("Ann", "Ben")  # the assistant's words are never mined
    assert mem.doctor().ok
    people = sorted((p.name, tuple(sorted(p.aliases))) for p in mem.people(scope=SCOPE))
    return sorted((c.text, c.evidence_count) for c in claims), people


@settings(max_examples=10, deadline=None)
@given(turns=st.lists(turn, min_size=1, max_size=12))
def test_extraction_is_idempotent_linked_and_backend_independent(turns: list[tuple[str, str]]) -> None:
    start = ManualClock().now()
    played = []
    for store in (None, ReferenceStore()):
        clock = ManualClock(start)
        mem = (
            Memory(":memory:", embedder="hash", clock=clock, seed=0)
            if store is None
            else Memory(store=store, embedder="hash", clock=clock, seed=0)
        )
        played.append(_play(mem, turns))
        mem.close()
    assert played[0] == played[1]
