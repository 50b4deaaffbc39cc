"""The conversation revision in the log: purges and new audiences carry it, older logs replay as before.

A purge (``conversation.message_purged``) and a new audience (``conversation.visibility_set``)
carry the conversation's state after them (``state``: its ``revision`` moved on), so a rebuild
agrees with the live store and a write built from a read before them is refused as stale. Logs
written before the revision existed carry no ``state`` in those events: they replay (``rebuild``,
``reverie import``) to the conversation as it was, revision 0, and the conversation goes on.
"""

from __future__ import annotations

import json
import sqlite3
from collections.abc import Callable
from pathlib import Path
from typing import Any

import pytest

from reverie import ManualClock, Memory, VersionConflictError
from reverie.memory.replay_conversations import REPLAYED
from reverie.model.conversation import Entry, RecordEntry

SCOPE = "team:a"
CHANGES = ("conversation.message_purged", "conversation.visibility_set")


def _chat(mem: Memory) -> tuple[Any, list[Any]]:
    conv = mem.conversation("chat", scope=SCOPE, visibility=["user:ann", "user:bob"])
    said = [conv.add(f"turn {n} says zq{n}", speaker="ann") for n in range(3)]
    return conv, said


def _rows(mem: Memory) -> list[tuple[str, str, tuple[str, ...]]]:
    store: Any = mem.store
    return [(e.id, e.text, e.visibility) for e in store.conversation_entries(SCOPE, "chat")]


def test_a_purge_and_a_new_audience_each_move_the_revision_on_every_backend(any_mem: Memory) -> None:
    conv, said = _chat(any_mem)
    assert conv.state().revision == 0
    conv.set_visibility(said[0].id, ["user:ann"])
    assert conv.state().revision == 1
    conv.purge(said[1].id)
    state = conv.state()
    assert (state.revision, state.position) == (2, 3)
    conv.add("and on it goes", speaker="bob")
    assert conv.state().revision == 2  # an append moves the position, not the revision


def test_an_entry_built_from_a_read_before_a_purge_is_refused_on_every_backend(
    any_mem: Memory, clock: ManualClock
) -> None:
    conv, said = _chat(any_mem)
    read = conv.state()
    conv.purge(said[1].id)
    entry = Entry(id="x" * 26, scope=SCOPE, conversation="chat", kind="tool_call", text="t", at=clock.now())
    stale = RecordEntry(SCOPE, entry, read.position, read.revision)
    with pytest.raises(VersionConflictError, match="purged a message or changed its audience"):
        any_mem.store.execute([stale], now=clock.now(), new_id=lambda: "y" * 26, vectors={})
    assert conv.state().position == read.position  # nothing appended


def test_rebuild_reproduces_the_revision(mem: Memory) -> None:
    conv, said = _chat(mem)
    conv.set_visibility(said[0].id, ["user:ann"])
    conv.purge(said[1].id)
    before, rows = conv.state(), _rows(mem)
    mem.rebuild()
    assert conv.state() == before and _rows(mem) == rows


def _as_older_log(db: Path) -> None:
    """Strip the state from the purge and audience events, as a reverie before the revision wrote them."""
    with sqlite3.connect(db) as c:
        for seq, payload in c.execute(f"SELECT seq, payload FROM events WHERE type IN {CHANGES}").fetchall():
            p = json.loads(payload)
            p.pop("state", None)
            c.execute("UPDATE events SET payload = ? WHERE seq = ?", (json.dumps(p), seq))
    c.close()


def test_an_older_log_without_the_revision_rebuilds_and_goes_on(open_mem: Callable[..., Memory], db_path: Path) -> None:
    mem = open_mem(db_path)
    conv, said = _chat(mem)
    conv.set_visibility(said[0].id, ["user:ann"])
    conv.purge(said[1].id)
    rows = _rows(mem)
    mem.close()
    _as_older_log(db_path)

    mem = open_mem(db_path, seed=1)  # another id sequence than the first opening's
    mem.rebuild()
    conv = mem.conversation("chat", scope=SCOPE)
    assert conv.state().revision == 0 and conv.state().position == 3
    assert _rows(mem) == rows
    conv.add("after the rebuild", speaker="bob")
    conv.purge(said[2].id)
    assert conv.state().revision == 1
    assert "zq2" not in " ".join(i.text for i in mem.list(scope=SCOPE, limit=100).items)


def test_an_older_log_without_the_revision_imports(open_mem: Callable[..., Memory], tmp_path: Path) -> None:
    first = tmp_path / "old.db"
    mem = open_mem(first)
    conv, said = _chat(mem)
    conv.set_visibility(said[0].id, ["user:ann"])
    conv.purge(said[1].id)
    mem.close()
    _as_older_log(first)

    events = [e for e in open_mem(first, seed=1).events(scope=SCOPE, limit=10_000) if e.type in REPLAYED]
    assert all("state" not in e.payload for e in events if e.type in CHANGES)
    copy = open_mem(tmp_path / "copy.db", seed=2)
    replay = copy.conversation_replay(scope=SCOPE)
    for event in events:
        replay.replay(event)
    again = copy.conversation("chat", scope=SCOPE, create=False)
    assert [(e.text, e.visibility) for e in again.messages()][:2] == [
        ("turn 0 says zq0", ("user:ann",)),
        ("[purged]", ("user:ann", "user:bob")),
    ]
    assert again.state().revision == 2  # the import's own purge and new audience
    again.add("imported and going on", speaker="bob")
