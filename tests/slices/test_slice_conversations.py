"""The ``conversations`` section of a slice (format version 2): conversations travel whole and come
home append-only, with provenance kept and trust not travelling (issue #15's slice gap).

Before it, a slice carried a scope's conversations only as their messages' memories: the archive,
tool-call records, summaries and recaps stayed behind, and each memory named a message of another store.
"""

from __future__ import annotations

import copy
import json
from pathlib import Path
from typing import Any

import pytest

from reverie import InvalidInputError, LimitExceededError, ManualClock, Memory
from reverie.errors import InvalidSliceError, SliceConflictError
from reverie.model.redact import REDACTED
from reverie.slice import IMPORTED_AUTHORITY, VERSION, Slice

MAIN, TASK = "user:alice", "task:trip"


def _entries(mem: Memory, scope: str, name: str = "c") -> list[Any]:
    return mem.conversation(name, scope=scope, create=False).entries()


def _shape(entries: list[Any]) -> list[tuple[Any, ...]]:
    """What an entry says, without what belongs to each store (ids, record times, the origin mark)."""
    out = []
    for e in entries:
        meta = {k: v for k, v in e.meta.items() if k != "slice_origin"}
        out.append((e.position, e.kind, e.text, e.at, e.speaker, e.role, e.turn, meta))
    return out


def _chat(mem: Memory, clock: ManualClock) -> None:
    conv = mem.conversation("c", scope=MAIN)
    conv.add("My sister Dana lives in Lisbon.", speaker="Alice", meta={"channel": "web"})
    conv.tool_call("weather", args={"city": "Lisbon"}, status="ok", detail="sunny")
    conv.add("Lisbon is lovely in May.", speaker="Bot", role="assistant")
    conv.close()
    clock.advance(minutes=5)
    conv.add("I booked the flight for the 3rd.", speaker="Alice")


@pytest.fixture
def main(mem: Memory, clock: ManualClock) -> Memory:
    _chat(mem, clock)
    return mem


@pytest.fixture
def sandbox(open_mem: Any, tmp_path: Path) -> Memory:
    sandbox: Memory = open_mem(tmp_path / "sandbox.db")
    return sandbox


def test_export_carries_each_conversation_whole_with_its_memories_as_version_2(main: Memory) -> None:
    sl = main.export_slice(scope=MAIN, include_conversations=True)
    assert sl.version == 2 < VERSION and sl.to_dict()["version"] == 2  # version 3 only with a restricted claim
    [conv] = sl.conversations or ()
    assert [e.kind for e in conv.entries] == ["message", "tool_call", "message", "recap", "message"]
    items = {i.id: i for i in sl.items}
    memories = [e.memory for e in conv.entries if e.kind == "message"]
    assert all(
        m in items and items[m].meta["message"] == e.id for m, e in zip(memories, conv.entries[::2], strict=True)
    )
    plain = main.export_slice(scope=MAIN)
    assert plain.version == 1 and plain.to_dict()["version"] == 1 and "conversations" not in plain.to_dict()["sections"]


def test_export_with_memory_ids_carries_the_conversations_of_those_items(main: Memory) -> None:
    other = main.conversation("other", scope=MAIN)
    other.add("Unrelated small talk.", speaker="Alice")
    claim = next(i for i in main.list(scope=MAIN, limit=100).items if i.kind == "assertion")
    sl = main.export_slice(scope=MAIN, memory_ids=[claim.id], include_conversations=True)
    assert [c.id for c in sl.conversations or ()] == ["c"]
    assert sum(1 for i in sl.items if "message" in i.meta) == 3  # every message's memory travels with it


def test_import_replays_the_conversation_with_fresh_ids_provenance_and_capped_trust(
    main: Memory, sandbox: Memory
) -> None:
    sl = main.export_slice(scope=MAIN, include_conversations=True)
    report = sandbox.import_slice(sl.to_json(), scope=TASK)
    assert report.conversations == {"c": "c"} and len(report.entries) == 5
    home, here = _entries(main, MAIN), _entries(sandbox, TASK)
    assert _shape(here) == _shape(home)
    assert [e.meta["slice_origin"] for e in here] == [e.id for e in home]
    assert not {e.id for e in here} & {e.id for e in home}
    memories = [i for i in sandbox.list(scope=TASK, limit=100).items if "message" in i.meta]
    by_message = {i.meta["message"]: i for i in memories}
    assert set(by_message) == {e.id for e in here if e.kind == "message"}
    assert all(i.source == "imported" and i.scores.authority <= IMPORTED_AUTHORITY for i in memories)
    mined = [i for i in sandbox.list(scope=TASK, limit=100).items if "message_id" in i.meta]
    assert mined and {i.meta["message_id"] for i in mined} <= set(by_message)
    assert {i.provenance.locator for i in mined} <= set(by_message)
    assert [h.conversation for h in sandbox.archive_search("booked the flight", scope=TASK)] == ["c"]


def test_a_purge_of_an_imported_message_finds_its_memory_and_claims(main: Memory, sandbox: Memory) -> None:
    sandbox.import_slice(main.export_slice(scope=MAIN, include_conversations=True), scope=TASK)
    conv = sandbox.conversation("c", scope=TASK, create=False)
    first = conv.messages()[0]
    conv.purge(first.id)
    texts = " ".join(i.text for i in sandbox.list(scope=TASK, include_closed=True, limit=100).items)
    assert "Dana" not in texts and conv.messages()[0].text == REDACTED


def test_importing_twice_and_importing_home_write_nothing(main: Memory, sandbox: Memory) -> None:
    sl = main.export_slice(scope=MAIN, include_conversations=True).to_json()
    sandbox.import_slice(sl, scope=TASK)
    again = sandbox.import_slice(sl, scope=TASK)
    assert again.created == [] and again.conversations_skipped == [{"id": "c", "target": "c", "reason": "already here"}]
    back = sandbox.export_slice(scope=TASK, include_conversations=True)
    events = len(main.events(scope=MAIN, limit=100_000))
    home = main.import_slice(back, scope=MAIN)
    assert home.created == [] and home.conversations_skipped[0]["reason"] == "already here"
    assert len(main.events(scope=MAIN, limit=100_000)) == events


def test_the_sandboxs_continuation_comes_home_appended_and_a_purge_at_home_stays(main: Memory, sandbox: Memory) -> None:
    sandbox.import_slice(main.export_slice(scope=MAIN, include_conversations=True), scope=TASK)
    work = sandbox.conversation("c", scope=TASK, create=False)
    work.tool_call("book_hotel", args={"city": "Lisbon"}, status="ok")
    work.add("The hotel is booked near the river.", speaker="Agent", role="assistant")
    home_conv = main.conversation("c", scope=MAIN, create=False)
    purged = home_conv.messages()[0]
    home_conv.purge(purged.id)  # at home, while the sandbox worked
    report = main.import_slice(sandbox.export_slice(scope=TASK, include_conversations=True), scope=MAIN)
    home = _entries(main, MAIN)
    assert [e.kind for e in home[-2:]] == ["tool_call", "message"] and len(home) == 7
    assert home[-1].text == "The hotel is booked near the river." and home[-1].turn == 4
    assert home[0].text == REDACTED  # the slice's copy of the purged words did not come back
    assert "Dana lives" not in json.dumps([e.text for e in home])
    assert any(s["reason"] == "purged here" for s in report.skipped)
    new_memories = [main.get(i, scope=MAIN) for i in report.created]
    assert [m.meta["message"] for m in new_memories if "message" in m.meta] == [home[-1].id]


def test_imported_messages_are_not_mined_again(main: Memory, sandbox: Memory) -> None:
    sandbox.import_slice(main.export_slice(scope=MAIN, include_conversations=True), scope=TASK)
    before = {i.id for i in sandbox.list(scope=TASK, limit=100).items}
    closed = sandbox.conversation("c", scope=TASK, create=False).close()
    assert closed.extraction.claims == []
    assert any("imported in a slice" in s.reason for s in closed.extraction.skipped)
    assert {i.id for i in sandbox.list(scope=TASK, limit=100).items} == before


def _other_chat(mem: Memory) -> None:
    mem.conversation("c", scope=TASK).add("A different conversation that happens to be called c.", speaker="Bob")


def test_a_conversation_of_the_same_name_with_other_entries_is_a_conflict(main: Memory, sandbox: Memory) -> None:
    sl = main.export_slice(scope=MAIN, include_conversations=True)
    _other_chat(sandbox)
    events = len(sandbox.events(scope=TASK, limit=100_000))
    with pytest.raises(SliceConflictError) as refused:
        sandbox.import_slice(sl, scope=TASK)
    assert refused.value.code == "slice_conflict" and "on_conflict" in refused.value.message
    assert len(sandbox.events(scope=TASK, limit=100_000)) == events
    kept = sandbox.import_slice(sl, scope=TASK, on_conflict="skip")
    assert [e.speaker for e in _entries(sandbox, TASK)] == ["Bob"]
    assert not any("message" in i.meta for i in sandbox.list(scope=TASK, limit=100).items if i.source == "imported")
    assert kept.conversations_skipped[0]["reason"].startswith("conflict")
    copied = sandbox.import_slice(sl, scope=TASK, on_conflict="reid")
    assert copied.conversations == {"c": "c~2"}
    assert _shape(_entries(sandbox, TASK, "c~2")) == _shape(_entries(main, MAIN))
    assert {i.meta["conversation"] for i in sandbox.list(scope=TASK, limit=100).items if "message" in i.meta} == {
        "c",
        "c~2",
    }


def test_a_version_1_slice_still_imports(main: Memory, sandbox: Memory) -> None:
    old = main.export_slice(scope=MAIN).to_dict()
    assert old["version"] == 1
    report = sandbox.import_slice(json.dumps(old), scope=TASK)
    assert report.created and report.conversations == {}
    assert sandbox.conversations(scope=TASK) == []  # as before: the memories alone


def _good(main: Memory) -> dict[str, Any]:
    return main.export_slice(scope=MAIN, include_conversations=True).to_dict()


def _conv(d: dict[str, Any]) -> dict[str, Any]:
    found: dict[str, Any] = d["sections"]["conversations"][0]
    return found


BAD = {
    "in a version-1 slice": lambda d: d.update(version=1),
    "a newer version": lambda d: d.update(version=VERSION + 1),
    "an unknown entry field": lambda d: _conv(d)["entries"][0].update(output="x"),
    "an unknown kind": lambda d: _conv(d)["entries"][0].update(kind="note"),
    "a message without a role": lambda d: _conv(d)["entries"][0].update(role=None),
    "a role on a tool call": lambda d: _conv(d)["entries"][1].update(role="user"),
    "positions out of order": lambda d: _conv(d)["entries"][1].update(position=1),
    "a message before the previous": lambda d: _conv(d)["entries"][2].update(at="2000-01-01T00:00:00Z"),
    "a memory not in the slice": lambda d: _conv(d)["entries"][0].update(memory="01900000-0000-7000-8000-000000000000"),
    "a memory on a tool call": lambda d: _conv(d)["entries"][1].update(memory=_conv(d)["entries"][0]["memory"]),
    "a conversation twice": lambda d: d["sections"]["conversations"].append(copy.deepcopy(_conv(d))),
    "a speaker with a control character": lambda d: _conv(d)["entries"][0].update(speaker="Al\x1bice"),
    "a blank text": lambda d: _conv(d)["entries"][0].update(text=" "),
}


@pytest.mark.parametrize("name", sorted(BAD))
def test_a_bad_conversations_section_is_refused_and_nothing_is_written(
    main: Memory, sandbox: Memory, name: str
) -> None:
    d = _good(main)
    BAD[name](d)
    with pytest.raises(InvalidSliceError):
        sandbox.import_slice(json.dumps(d), scope=TASK)
    assert sandbox.events(scope=TASK, limit=10) == [] and sandbox.conversations(scope=TASK) == []


def test_bad_entry_contents_are_refused_as_a_live_write_would_be(main: Memory, sandbox: Memory) -> None:
    d = _good(main)
    _conv(d)["entries"][1]["meta"]["args"] = {"blob": "x" * 9_000}
    with pytest.raises(LimitExceededError, match="tool call args"):
        sandbox.import_slice(d, scope=TASK)
    d = _good(main)
    _conv(d)["entries"][1]["meta"]["status"] = "exploded"
    with pytest.raises(InvalidInputError, match="status"):
        sandbox.import_slice(d, scope=TASK)
    assert sandbox.events(scope=TASK, limit=10) == []


def test_a_caller_cannot_forge_an_entrys_origin() -> None:
    with Memory(":memory:", embedder="hash") as mem:
        conv = mem.conversation("c", scope=MAIN)
        with pytest.raises(InvalidInputError, match="slice_origin"):
            conv.add("hello", meta={"slice_origin": "01900000-0000-7000-8000-000000000000"})


def test_a_slice_object_round_trips_through_json(main: Memory) -> None:
    sl = main.export_slice(scope=MAIN, include_conversations=True)
    again = Slice.from_json(sl.to_json())
    assert again.conversations == sl.conversations and again.to_json() == sl.to_json()


def test_conversations_travel_between_scopes_on_every_backend(any_mem: Memory, clock: ManualClock) -> None:
    """The same section through the reference store, SQLite and PostgreSQL: both scopes in one store."""
    _chat(any_mem, clock)
    sl = any_mem.export_slice(scope=MAIN, include_conversations=True)
    report = any_mem.import_slice(sl.to_json(), scope=TASK)
    assert report.conversations == {"c": "c"}
    assert _shape(_entries(any_mem, TASK)) == _shape(_entries(any_mem, MAIN))
    again = any_mem.import_slice(sl.to_json(), scope=TASK)
    assert again.created == [] and again.conversations_skipped[0]["reason"] == "already here"


def test_reid_import_of_the_same_slice_twice_recognises_its_copy(main: Memory, sandbox: Memory) -> None:
    """Regression (outside probe 7 #9): a second ``reid`` import of the same slice archived the
    conversation again as ``c~3`` (a duplicate of every message) while its claims were "already here"."""
    sl = main.export_slice(scope=MAIN, include_conversations=True)
    _other_chat(sandbox)
    first = sandbox.import_slice(sl, scope=TASK, on_conflict="reid")
    events = len(sandbox.events(scope=TASK, limit=100_000))
    again = sandbox.import_slice(sl, scope=TASK, on_conflict="reid")
    assert first.conversations == again.conversations == {"c": "c~2"}
    assert {"id": "c", "target": "c~2", "reason": "already here"} in again.conversations_skipped
    assert again.conflicts == [] and not again.created
    assert sorted(c.id for c in sandbox.conversations(scope=TASK)) == ["c", "c~2"]
    assert _shape(_entries(sandbox, TASK, "c~2")) == _shape(_entries(main, MAIN))
    assert len(sandbox.events(scope=TASK, limit=100_000)) == events  # nothing written


def test_reid_import_of_a_grown_slice_continues_its_copy(main: Memory, sandbox: Memory) -> None:
    _other_chat(sandbox)
    sandbox.import_slice(main.export_slice(scope=MAIN, include_conversations=True), scope=TASK, on_conflict="reid")
    main.conversation("c", scope=MAIN).add("And the hotel for the 4th.", speaker="Alice")
    grown = sandbox.import_slice(
        main.export_slice(scope=MAIN, include_conversations=True), scope=TASK, on_conflict="reid"
    )
    assert grown.conversations == {"c": "c~2"}
    assert sorted(c.id for c in sandbox.conversations(scope=TASK)) == ["c", "c~2"]
    assert _shape(_entries(sandbox, TASK, "c~2")) == _shape(_entries(main, MAIN))
