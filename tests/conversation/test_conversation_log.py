"""Messages, tool calls, summaries and recaps are events: replayable, identical on both backends."""

from __future__ import annotations

from datetime import timedelta
from pathlib import Path
from typing import Any

from reverie import ManualClock, Memory
from reverie.model import events as ev
from reverie.store.reference import ReferenceStore

SCOPE = "user:alice"


def _chat(mem: Memory, clock: ManualClock) -> None:
    conv = mem.conversation("chat-1", scope=SCOPE, history_chars=200)
    for i in range(12):
        conv.add(f"message {i}: we talked about the garden and tomato number {i}.", speaker="Alice" if i % 2 else "Bob")
    conv.tool_call("calendar", args={"day": "monday"}, detail="booked")
    conv.history()  # writes a summary (200 characters)
    clock.advance(hours=1)
    mem.recap(scope=SCOPE)  # releases: a recap
    conv.add("back again", speaker="Alice")


def _entries(mem: Memory) -> list[tuple[Any, ...]]:
    store: Any = mem.store
    return [(e.kind, e.position, e.turn, e.text, e.meta) for e in store.conversation_entries(SCOPE, "chat-1")]


def test_every_entry_is_an_event_of_its_own_type(mem: Memory, clock: ManualClock) -> None:
    _chat(mem, clock)
    types = [e.type for e in mem.events(scope=SCOPE) if e.type.startswith("conversation.")]
    assert types[0] == ev.CONVERSATION_OPENED
    assert types.count(ev.MESSAGE_ADDED) == 13
    assert {ev.TOOL_CALLED, ev.SUMMARIZED, ev.RELEASED} <= set(types)
    assert all(t in ev.EVENT_TYPES for t in types)


def test_rebuild_replays_conversations_into_the_same_projections(mem: Memory, clock: ManualClock) -> None:
    _chat(mem, clock)
    store: Any = mem.store
    before = (_entries(mem), store.conversations(SCOPE), store.conversation_speakers(SCOPE))
    hits = [h.message_id for h in mem.archive_search("tomato number 3", scope=SCOPE)]
    mem.rebuild()
    assert (_entries(mem), store.conversations(SCOPE), store.conversation_speakers(SCOPE)) == before
    assert [h.message_id for h in mem.archive_search("tomato number 3", scope=SCOPE)] == hits
    assert mem.doctor().ok


def test_reopening_the_file_keeps_everything(tmp_path: Path, clock: ManualClock) -> None:
    path = tmp_path / "m.db"
    with Memory(path, embedder="hash", clock=clock, seed=0) as mem:
        _chat(mem, clock)
        before = _entries(mem)
    with Memory(path, embedder="hash", clock=clock, seed=0) as mem:
        assert _entries(mem) == before


def test_the_reference_store_and_sqlite_agree(tmp_path: Path) -> None:
    start = ManualClock().now()
    mems = []
    for store in (None, ReferenceStore()):
        clock = ManualClock(start)
        m = Memory(tmp_path / "s.db", embedder="hash", clock=clock, seed=0) if store is None else None
        m = m or Memory(store=store, embedder="hash", clock=clock, seed=0)
        _chat(m, clock)
        mems.append(m)
    a, b = mems
    assert _entries(a) == _entries(b)
    assert [e.to_dict() for e in a.events(scope=SCOPE)] == [e.to_dict() for e in b.events(scope=SCOPE)]
    assert [h.message_id for h in a.archive_search("garden", scope=SCOPE, k=5)] == [
        h.message_id for h in b.archive_search("garden", scope=SCOPE, k=5)
    ]
    for m in mems:
        m.close()


def test_a_file_without_conversation_tables_gains_them_in_place(tmp_path: Path, clock: ManualClock) -> None:
    import sqlite3

    path = tmp_path / "old.db"
    with Memory(path, embedder="hash", clock=clock) as mem:
        mem.remember("an old claim", scope=SCOPE)
    with sqlite3.connect(path) as c:  # as a file written before the conversation wing
        for table in ("conv_state", "conv_entries", "conv_fts", "conv_speakers"):
            c.execute(f"DROP TABLE {table}")
        c.execute("DELETE FROM settings WHERE k = 'conversation_schema'")
    with Memory(path, embedder="hash", clock=clock) as mem:
        mem.conversation("c", scope=SCOPE).add("new message", speaker="A", at=clock.now() + timedelta(0))
        assert [h.quote for h in mem.archive_search("new message", scope=SCOPE)] == ["new message"]
        assert mem.doctor().ok


def test_doctor_sees_an_archive_index_that_disagrees_and_rebuild_fixes_it(mem: Memory, clock: ManualClock) -> None:
    _chat(mem, clock)
    store: Any = mem.store
    with store._write() as c:  # damage the projection by hand: one message dropped from the index
        c.execute("DELETE FROM conv_fts WHERE rowid = (SELECT min(n) FROM conv_entries WHERE kind = 'message')")
    report = mem.doctor()
    assert not report.ok and "conversation archive index" in " ".join(report.problems)
    mem.rebuild()
    assert mem.doctor().ok and mem.doctor().counts["messages"] == 13


def test_both_backends_implement_the_conversation_reads_scope_first() -> None:
    import inspect

    from reverie.conversation.host import ConversationStore
    from reverie.store.sqlite import SQLiteStore

    names = sorted(n for n, v in vars(ConversationStore).items() if callable(v) and not n.startswith("_"))
    assert len(names) == 6
    for cls in (SQLiteStore, ReferenceStore):
        for name in names:
            want = [p.name for p in inspect.signature(getattr(ConversationStore, name)).parameters.values()]
            got = [p.name for p in inspect.signature(getattr(cls, name)).parameters.values()]
            assert got == want and got[1] == "scope", f"{cls.__name__}.{name}"
