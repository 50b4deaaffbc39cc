"""``forget(item_id, purge=True)`` of a conversation message's memory purges the message itself.

Probe 3, finding 1: the item ``recall`` returns for a message is its memory; a user who found
"My card number is ..." that way and purged the item was told it was done, yet the words stayed in
the archive (``archive_search``, ``messages()``), in the next turn's memory (its context quotes the
message, and ``recall`` still returned it), in the log and in the database file, and the
``memory.purged`` event's ``kept`` named nothing. The memory's content *is* the message, so its
purge is the message's purge (``conv.purge``): archive, log, summaries and recaps, every memory
quoting it, and the file scrubbed. Both backends; the byte scan on SQLite.
"""

from __future__ import annotations

import json
from pathlib import Path

import pytest

from reverie import Memory, NotPermittedError
from reverie.model.redact import REDACTED
from reverie.store.sqlite import SQLiteStore

SCOPE = "user:alice"
#: Letters and digits only (one full-text token), mixed case so the lowercase is a second needle.
CANARY = "Xq9CardCanaryZ7"


def _talk(mem: Memory) -> tuple[str, str, str]:
    conv = mem.conversation("support", scope=SCOPE)
    conv.add("Hello, I need to update my payment details", speaker="Alice", role="user")
    secret = conv.add(f"My card number is {CANARY}", speaker="Alice", role="user")
    reply = conv.add("Thanks, noted.", speaker="Bot", role="assistant")
    assert secret.item_id is not None and reply.item_id is not None
    return secret.id, secret.item_id, reply.item_id


def _quoting(mem: Memory) -> list[str]:
    """Every place a read still shows the canary."""
    out = [f"archive:{h.message_id}" for h in mem.archive_search(CANARY, scope=SCOPE)]
    out += [f"message:{m.id}" for m in mem.conversation("support", scope=SCOPE).messages() if CANARY in m.text]
    out += [f"recall:{h.item.id}" for h in mem.recall("card number", scope=SCOPE) if CANARY in h.item.text]
    out += [f"event:{e.type}" for e in mem.events(scope=SCOPE) if CANARY.lower() in json.dumps(e.payload).lower()]
    return out


def test_purging_a_message_memory_purges_the_message_everywhere(store_mem: Memory, db_path: Path) -> None:
    message_id, item_id, reply_item = _talk(store_mem)
    assert store_mem.recall("card number", scope=SCOPE)  # what the user finds
    assert CANARY in store_mem.get(reply_item, scope=SCOPE).text  # the next turn quotes it in its context
    assert _quoting(store_mem)
    purged = store_mem.forget(item_id, scope=SCOPE, purge=True, reason="gdpr")
    assert purged.text == REDACTED
    assert _quoting(store_mem) == []
    kept = {m.id: m.text for m in store_mem.conversation("support", scope=SCOPE).messages()}
    assert kept.get(message_id, REDACTED) == REDACTED  # its place may stay; its words do not
    later = [i for i in store_mem.list(scope=SCOPE, limit=100).items if i.meta.get("speaker") == "Bot"]
    assert [i.text.split("] ", 1)[-1].split(" || ")[0] for i in later] == ["Bot: Thanks, noted."]
    assert [e.type for e in store_mem.events(scope=SCOPE) if e.type == "conversation.message_purged"]
    if isinstance(store_mem.store, SQLiteStore):
        store_mem.close()
        files = [p for p in db_path.parent.iterdir() if p.name.startswith(db_path.name) and p.is_file()]
        assert sum(p.read_bytes().lower().count(CANARY.lower().encode()) for p in files) == 0


def test_a_principal_purging_a_message_memory_is_refused_as_a_message_purge_is(mem: Memory) -> None:
    _, item_id, _ = _talk(mem)
    before = _quoting(mem)
    with pytest.raises(NotPermittedError):
        mem.as_principal("agent:helper").forget(item_id, scope=SCOPE, purge=True)
    assert _quoting(mem) == before


def test_a_claim_that_merely_names_a_message_in_its_meta_is_purged_alone(mem: Memory) -> None:
    message_id, _, _ = _talk(mem)
    own = mem.remember("Alice called about payments", scope=SCOPE, meta={"message": message_id})
    mem.forget(own.id, scope=SCOPE, purge=True)
    assert [h.message_id for h in mem.archive_search(CANARY, scope=SCOPE)] == [message_id]
