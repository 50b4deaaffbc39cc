"""Purging a message leaves nothing of a person it alone introduced (last session's privacy gap).

The person record is derived data: a name item (kind ``person``), its alias edges and the relation
claims about it. When the purged message was the only evidence for it, the name must go with the
message — from the items, the log, the full-text index and the file — as a purged claim does. A
person with other evidence stays, and so do its other names.
"""

from __future__ import annotations

from pathlib import Path
from typing import Any

import pytest

from reverie import Memory, NotFoundError
from reverie.model.redact import REDACTED

SCOPE = "user:alice"
#: A name no other text of the test holds; mixed case, so its lowercase (full-text tokens) is a second needle.
CANARY = "Quillonby"
NEEDLES = (CANARY.encode(), CANARY.lower().encode())


def _everything(mem: Memory) -> str:
    """Every text reverie keeps for the scope: the log, every item (closed too), entries and edge meta."""
    store: Any = mem.store
    events = " ".join(str(e.payload) for e in mem.events(scope=SCOPE, limit=100_000))
    items = mem.list(scope=SCOPE, include_closed=True, limit=1000).items
    texts = " ".join(i.text + str(i.meta) + str(i.tags) for i in items)
    edges = " ".join(str(e.meta) for i in items for e in store.edges(SCOPE, i.id))
    convs = [c.id for c in mem.conversations(scope=SCOPE)]
    entries = " ".join(e.text + str(e.meta) for c in convs for e in store.conversation_entries(SCOPE, c))
    return events + texts + edges + entries


def _chat(mem: Memory) -> tuple[Any, Any]:
    conv = mem.conversation("c", scope=SCOPE)
    conv.add("My sister Dana lives in Lisbon.", speaker="Alice")
    secret = conv.add(f"My cousin {CANARY} works at the harbour in Porto.", speaker="Alice")
    conv.add("Dana is coming over on Sunday.", speaker="Alice")
    conv.close()
    return conv, secret


def test_a_person_only_the_purged_message_named_is_gone_from_records_log_index_and_file(
    mem: Memory, db_path: Path
) -> None:
    conv, secret = _chat(mem)
    assert CANARY in {p.name for p in mem.people(scope=SCOPE)}  # the test can fail: the name was recorded
    assert CANARY in _everything(mem)
    conv.purge(secret.id, reason="user asked")
    assert CANARY not in _everything(mem) and CANARY.lower() not in _everything(mem).lower()
    assert {p.name for p in mem.people(scope=SCOPE)} == {"Alice", "Dana"}
    with pytest.raises(NotFoundError):
        mem.person(CANARY, scope=SCOPE)
    hits = mem.recall(CANARY, scope=SCOPE, include_history=True, record_use=False)
    assert all(CANARY not in h.item.text for h in hits)
    mem.store.close()
    data = b"".join(p.read_bytes() for p in db_path.parent.iterdir() if p.name.startswith(db_path.name) and p.is_file())
    assert all(n not in data for n in NEEDLES)


def test_a_person_with_other_evidence_stays_and_keeps_its_relations(mem: Memory) -> None:
    conv, secret = _chat(mem)
    dana = mem.person("Dana", scope=SCOPE)
    conv.purge(secret.id)
    after = mem.person("Dana", scope=SCOPE)
    assert after.id == dana.id and [r.type for r in after.relations] == ["sister"]
    assert mem.person("Alice", scope=SCOPE).id == mem.person("Alice", scope=SCOPE).id


def test_a_relation_and_the_person_it_alone_named_go_with_their_message(mem: Memory) -> None:
    conv = mem.conversation("c", scope=SCOPE)
    conv.add("My sister Dana lives in Lisbon.", speaker="Alice")
    said = conv.add(f"{CANARY} is my manager.", speaker="Alice")
    conv.close()
    assert {r.type for r in mem.person("Alice", scope=SCOPE).relations} == {"sister", "manager"}
    conv.purge(said.id)
    assert {r.type for r in mem.person("Alice", scope=SCOPE).relations} == {"sister"}
    assert CANARY not in _everything(mem)


def test_an_alias_only_the_purged_message_used_is_gone_and_the_person_keeps_its_name(mem: Memory) -> None:
    conv = mem.conversation("c", scope=SCOPE)
    conv.add("My neighbour Quentin Vexley lives next door.", speaker="Alice")
    said = conv.add("Quentin brought us apples.", speaker="Alice")
    conv.close()
    person = mem.person("Quentin Vexley", scope=SCOPE)
    assert person.aliases == ("Quentin",)  # the purged message made the alias
    alias_items = [i for i in mem.list(scope=SCOPE, limit=100).items if i.kind == "person" and i.text == "Quentin"]
    conv.purge(said.id)
    after = mem.person("Quentin Vexley", scope=SCOPE)
    assert (after.id, after.aliases) == (person.id, ())
    assert [mem.get(i.id, scope=SCOPE).text for i in alias_items] == [REDACTED]
    assert not any(
        e.type == "alias" and e.is_current
        for i in alias_items
        for e in mem.store.edges(SCOPE, i.id)  # type: ignore[attr-defined]
    )


def test_the_purge_of_people_replays_to_the_same_state(mem: Memory) -> None:
    conv, secret = _chat(mem)
    conv.purge(secret.id)
    before = sorted((p.id, p.name) for p in mem.people(scope=SCOPE))
    mem.rebuild()
    assert sorted((p.id, p.name) for p in mem.people(scope=SCOPE)) == before
    assert CANARY not in _everything(mem)


def test_a_claim_mined_from_the_message_and_forgotten_since_is_purged_too(mem: Memory) -> None:
    """Regression: only live claims were purged with their message; a forgotten one kept quoting it."""
    conv, secret = _chat(mem)
    mined = [i for i in mem.list(scope=SCOPE, limit=100).items if i.meta.get("message_id") == secret.id]
    assert mined
    mem.forget(mined[0].id, scope=SCOPE)
    conv.purge(secret.id)
    assert [mem.get(i.id, scope=SCOPE).text for i in mined] == [REDACTED] * len(mined)
    assert CANARY not in _everything(mem)


def test_a_speaker_of_other_messages_keeps_their_record(mem: Memory) -> None:
    conv = mem.conversation("c", scope=SCOPE)
    conv.add("Hi there.", speaker="Brunhild")
    said = conv.add("I live in Quillonby Street.", speaker="Brunhild")
    conv.close()
    brunhild = mem.person("Brunhild", scope=SCOPE)
    conv.purge(said.id)
    assert mem.person("Brunhild", scope=SCOPE).id == brunhild.id


def test_the_people_only_a_message_named_go_with_it_on_every_backend(any_mem: Memory) -> None:
    conv, secret = _chat(any_mem)
    conv.purge(secret.id)
    assert {p.name for p in any_mem.people(scope=SCOPE)} == {"Alice", "Dana"}
    assert CANARY not in _everything(any_mem)


def test_regression_a_revised_name_only_the_purged_message_named_goes_with_every_version(mem: Memory) -> None:
    """Session 31: the name's ``about`` edges stay on its first version; after ``revise`` of the
    name ("Quillonby" → "Quillonby Hart") the purge looked only at current names those edges
    point to, found none, and kept both versions — the canary stayed in the records and log."""
    conv, secret = _chat(mem)
    mem.revise(mem.person(CANARY, scope=SCOPE).id, f"{CANARY} Hart", scope=SCOPE)
    assert f"{CANARY} Hart" in {p.name for p in mem.people(scope=SCOPE)}
    conv.purge(secret.id, reason="user asked")
    assert CANARY not in _everything(mem) and CANARY.lower() not in _everything(mem).lower()
    assert {p.name for p in mem.people(scope=SCOPE)} == {"Alice", "Dana"}
