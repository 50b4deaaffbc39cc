"""Purging a message erases its words everywhere reverie stored them, and nothing else."""

from __future__ import annotations

from pathlib import Path
from typing import Any

from reverie import ManualClock, Memory
from reverie.model.redact import REDACTED

SCOPE = "user:alice"
SECRET = "my bank PIN is 90210"


def _chat(mem: Memory, clock: ManualClock) -> tuple[Any, Any]:
    conv = mem.conversation("c", scope=SCOPE, history_chars=150)
    conv.add("hello there, can you help with my account?", speaker="Alice")
    secret = conv.add(SECRET, speaker="Alice")
    for i in range(4):
        conv.add(f"reply number {i} about the account settings", speaker="Bot", role="assistant")
    conv.history()  # a summary that may quote the secret
    return conv, secret


def _everything(mem: Memory) -> str:
    store: Any = mem.store
    events = " ".join(str(e.payload) for e in mem.events(scope=SCOPE, limit=10_000))
    items = " ".join(i.text + str(i.meta) for i in mem.list(scope=SCOPE, include_closed=True, limit=1000).items)
    entries = " ".join(e.text for e in store.conversation_entries(SCOPE, "c"))
    return events + items + entries


def test_purge_erases_the_message_from_archive_log_summaries_and_memories(
    mem: Memory, clock: ManualClock, db_path: Path
) -> None:
    conv, secret = _chat(mem, clock)
    assert "90210" in _everything(mem)
    conv.purge(secret.id, reason="user asked")
    assert "90210" not in _everything(mem)
    assert mem.archive_search("90210", scope=SCOPE) == []
    assert all(
        "90210" not in h.item.text
        for h in mem.recall("bank PIN 90210", scope=SCOPE, include_history=True, record_use=False)
    )
    assert [e.text for e in conv.messages()][1] == REDACTED
    mem.store.close()
    assert b"90210" not in db_path.read_bytes()  # the file is scrubbed, as for a claim's purge


def test_the_turns_after_it_stay_recallable_without_quoting_it(mem: Memory, clock: ManualClock) -> None:
    conv, secret = _chat(mem, clock)
    conv.purge(secret.id)
    current = mem.list(scope=SCOPE).items
    assert len(current) == 5  # the purged one gone from current truth, the two that quoted it remembered again
    assert {i.meta["turn"] for i in current} == {1, 3, 4, 5, 6}
    assert any("reply number 0" in h.item.text for h in mem.recall("reply number 0", scope=SCOPE))


def test_purge_replays_to_the_same_state(mem: Memory, clock: ManualClock) -> None:
    conv, secret = _chat(mem, clock)
    conv.purge(secret.id)
    store: Any = mem.store
    before = [(e.id, e.text, e.meta) for e in store.conversation_entries(SCOPE, "c")]
    mem.rebuild()
    assert [(e.id, e.text, e.meta) for e in store.conversation_entries(SCOPE, "c")] == before
    assert "90210" not in _everything(mem)


def test_purge_on_the_reference_store_erases_the_same(clock: ManualClock) -> None:
    from reverie.store.reference import ReferenceStore

    mem = Memory(store=ReferenceStore(), embedder="hash", clock=clock, seed=0)
    conv, secret = _chat(mem, clock)
    conv.purge(secret.id)
    assert "90210" not in _everything(mem)
    mem.close()


def test_history_after_a_purge_summarises_again_without_it(mem: Memory, clock: ManualClock) -> None:
    conv, secret = _chat(mem, clock)
    conv.purge(secret.id)
    hist = conv.history()
    assert hist[0].kind == "summary" and hist[0].text != REDACTED and "90210" not in hist[0].text
