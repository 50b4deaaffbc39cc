"""Message-level visibility: a conversation message may narrow the conversation's audience, and
nothing made from it — the next turns' context, the recap, history summaries, claims extracted
from it or borrowing from it, the log — reaches a principal outside that audience.

Before this, a message had no audience of its own: restricting its memory hid that memory and its
archive entry, but the next memories quoted it in their context, the recap quoted it and the claims
extracted from it restated it, all visible to everyone (README, guarantee 7, "Not covered").
Every test runs on a SQLite file, the reference store and PostgreSQL (``any_mem``).
"""

from __future__ import annotations

from pathlib import Path

import pytest

from reverie import Memory
from reverie.errors import InvalidInputError, InvalidSliceError, NotPermittedError

from .kit import dump

SCOPE = "team:ops"


def seen_by(mem: Memory, principal: str, conversation: str = "chat-1") -> str:
    """Everything ``principal`` can read of the scope and the conversation, case-folded."""
    view = mem.as_principal(principal)
    parts: list[object] = [
        [i.to_dict() for i in view.list(scope=SCOPE, include_closed=True, limit=1000).items],
        [e.to_dict() for e in view.events(scope=SCOPE, limit=10_000)],
        [h.item.text for h in view.recall("launch code backup bike team", scope=SCOPE, k=50)],
        view.context("launch code backup bike team", scope=SCOPE),
        [(p.name, p.aliases) for p in view.people(scope=SCOPE)],
    ]
    recap = view.recap(scope=SCOPE)
    parts.append(recap.text if recap is not None else "")
    try:
        conv = view.conversation(conversation, scope=SCOPE, create=False)
    except Exception:  # a conversation the principal may not see is not found
        return dump(parts)
    parts += [[e.to_dict() for e in conv.entries()], [e.to_dict() for e in conv.history()]]
    return dump(parts)


def test_a_message_narrowed_below_the_conversation_is_hidden_from_outsiders_with_its_memory(any_mem: Memory) -> None:
    conv = any_mem.conversation("chat-1", scope=SCOPE)
    msg = conv.add("the launch code is zqone", speaker="alice", visibility=["agent:ops"])
    conv.add("noted, thanks", speaker="bob")
    assert msg.visibility == ("agent:ops",)
    assert any_mem.get(msg.item_id or "", scope=SCOPE).visibility == ("agent:ops",)
    assert "zqone" not in seen_by(any_mem, "agent:bob")
    assert "zqone" in seen_by(any_mem, "agent:ops")


def test_a_message_may_not_widen_the_conversation_audience(any_mem: Memory) -> None:
    conv = any_mem.conversation("chat-1", scope=SCOPE, visibility=["agent:a", "agent:b"])
    with pytest.raises(InvalidInputError, match="narrow"):
        conv.add("hello", speaker="alice", visibility=["agent:c"])
    with pytest.raises(InvalidInputError, match="narrow"):
        conv.add("hello", speaker="alice", visibility=["agent:a", "agent:c"])
    assert conv.messages() == []
    kept = conv.add("hello all", speaker="alice")
    assert kept.visibility == ("agent:a", "agent:b")
    assert "hello all" not in seen_by(any_mem, "agent:c")


def test_the_next_memory_quotes_only_turns_its_whole_audience_may_see(any_mem: Memory) -> None:
    conv = any_mem.conversation("chat-1", scope=SCOPE)
    conv.add("the launch code is zqone", speaker="alice", visibility=["agent:ops"])
    after = conv.add("and the weather is zqsun", speaker="alice")
    both = conv.add("the backup is zqtwo", speaker="alice", visibility=["agent:ops", "agent:sec"])
    public = any_mem.get(after.item_id or "", scope=SCOPE)
    assert "zqone" not in public.text and "zqsun" in public.text
    shared = any_mem.get(both.item_id or "", scope=SCOPE)
    assert "zqone" not in shared.text and "zqsun" in shared.text  # agent:sec may not see zqone


def test_the_recap_and_extracted_claims_are_made_per_audience(any_mem: Memory) -> None:
    conv = any_mem.conversation("chat-1", scope=SCOPE)
    conv.add("I live in Zqlisbon", speaker="alice", visibility=["agent:ops"])
    conv.add("I work at Zqacme", speaker="alice")
    closed = conv.close()
    assert closed.extraction.claims
    outsider = seen_by(any_mem, "agent:bob")
    assert "zqlisbon" not in outsider and "zqacme" in outsider
    insider = seen_by(any_mem, "agent:ops")
    assert "zqlisbon" in insider and "zqacme" in insider
    recap = any_mem.as_principal("agent:ops").recap(scope=SCOPE)
    assert recap is not None and "Zqlisbon" in recap.text


def test_a_claim_borrowing_a_name_from_a_restricted_message_does_not_reach_outsiders(any_mem: Memory) -> None:
    conv = any_mem.conversation("chat-1", scope=SCOPE)
    conv.add("My sister Zorvina joined the team", speaker="alice", visibility=["agent:ops"])
    conv.add("She just bought a bike", speaker="alice")
    conv.close()
    assert "zorvina" not in seen_by(any_mem, "agent:bob")


def test_set_visibility_narrows_everything_that_quotes_the_message_in_one_event(any_mem: Memory) -> None:
    conv = any_mem.conversation("chat-1", scope=SCOPE)
    first = conv.add("I live in Zqlisbon", speaker="alice")
    conv.add("the weather is nice today", speaker="alice")
    conv.close()
    conv.add("I work at Zqacme", speaker="alice")  # the next session: its recap is not touched
    assert "zqlisbon" in seen_by(any_mem, "agent:bob")
    before = len(any_mem.events(scope=SCOPE, limit=10_000))
    shown = conv.set_visibility(first.id, ["agent:ops"], reason="private")
    assert shown.visibility == ("agent:ops",)
    new_events = any_mem.events(scope=SCOPE, after_seq=0, limit=10_000)[before:]
    assert [e.type for e in new_events].count("conversation.visibility_set") == 1
    assert "zqlisbon" not in seen_by(any_mem, "agent:bob")
    assert "zqlisbon" in seen_by(any_mem, "agent:ops")
    assert "zqacme" in seen_by(any_mem, "agent:bob")


def test_set_visibility_may_not_widen_the_conversation_audience(any_mem: Memory) -> None:
    conv = any_mem.conversation("chat-1", scope=SCOPE, visibility=["agent:a"])
    msg = conv.add("hello", speaker="alice")
    with pytest.raises(InvalidInputError, match="narrow"):
        conv.set_visibility(msg.id, ["agent:b"])
    assert conv.messages()[0].visibility == ("agent:a",)


def test_a_principal_may_neither_set_a_message_visibility_nor_purge_a_message(any_mem: Memory) -> None:
    conv = any_mem.conversation("chat-1", scope=SCOPE)
    msg = conv.add("hello there", speaker="alice")
    view = any_mem.as_principal("agent:ops").conversation("chat-1", scope=SCOPE)
    with pytest.raises(NotPermittedError):
        view.set_visibility(msg.id, ["agent:ops"])
    with pytest.raises(NotPermittedError):
        view.purge(msg.id)
    assert conv.messages()[0].text == "hello there"


def test_a_conversation_restricted_to_others_is_not_found_by_an_outsider(any_mem: Memory) -> None:
    conv = any_mem.conversation("chat-1", scope=SCOPE, visibility=["agent:ops"])
    conv.add("the launch code is zqone", speaker="alice")
    assert "zqone" not in seen_by(any_mem, "agent:bob")
    assert [c.id for c in any_mem.as_principal("agent:bob").conversations(scope=SCOPE)] == []


def test_purging_a_message_leaves_no_borrowed_name_in_a_later_claim(any_mem: Memory) -> None:
    conv = any_mem.conversation("chat-1", scope=SCOPE)
    first = conv.add("My sister Zorvina joined the team", speaker="alice")
    conv.add("She just bought a bike", speaker="alice")
    conv.close()
    texts = [i.text for i in any_mem.list(scope=SCOPE, include_closed=True, limit=1000).items]
    assert any("Zorvina" in t and "bike" in t for t in texts), texts  # the gap is real before the purge
    conv.purge(first.id, reason="erase")
    left = dump([i.to_dict() for i in any_mem.list(scope=SCOPE, include_closed=True, limit=1000).items])
    assert "zorvina" not in left


def test_history_summaries_are_made_per_audience(any_mem: Memory) -> None:
    conv = any_mem.conversation("chat-1", scope=SCOPE, history_chars=400)
    conv.add("the launch code is zqone " + "x" * 150, speaker="alice", visibility=["agent:ops"])
    for n in range(6):
        conv.add(f"public line {n} " + "y" * 100, speaker="bob")
    assert any(e.kind == "summary" for e in conv.history())
    view = any_mem.as_principal("agent:bob").conversation("chat-1", scope=SCOPE, history_chars=400)
    assert "zqone" not in dump([e.to_dict() for e in view.history()])
    assert "zqone" not in seen_by(any_mem, "agent:bob")


def test_rebuild_reproduces_message_visibility(tmp_path: Path, open_mem: object) -> None:
    mem = open_mem(tmp_path / "m.db")  # type: ignore[operator]
    conv = mem.conversation("chat-1", scope=SCOPE)
    first = conv.add("I live in Zqlisbon", speaker="alice")
    conv.add("the weather is nice today", speaker="alice")
    conv.set_visibility(first.id, ["agent:ops"])
    before = [e.to_dict() for e in conv.entries()], sorted(i.text for i in mem.list(scope=SCOPE).items)
    mem.rebuild()
    after = [e.to_dict() for e in conv.entries()], sorted(i.text for i in mem.list(scope=SCOPE).items)
    assert before == after
    assert conv.messages()[0].visibility == ("agent:ops",)
    assert "zqlisbon" not in seen_by(mem, "agent:bob")


def test_a_slice_carries_message_audiences_as_version_4_and_older_versions_still_import(
    any_mem: Memory, open_mem: object
) -> None:
    conv = any_mem.conversation("chat-1", scope=SCOPE)
    conv.add("the launch code is zqone", speaker="alice", visibility=["agent:ops"])
    conv.add("noted, thanks", speaker="bob")
    conv.close()
    sl = any_mem.export_slice(scope=SCOPE, include_conversations=True)
    data = sl.to_dict()
    assert data["version"] == 4
    entries = data["sections"]["conversations"][0]["entries"]
    assert [e.get("visibility") for e in entries if e["kind"] == "message"] == [["agent:ops"], None]
    other = open_mem(reference=True)  # type: ignore[operator]
    other.import_slice(sl.to_json(), scope=SCOPE)
    assert "zqone" not in seen_by(other, "agent:bob")
    assert "zqone" in seen_by(other, "agent:ops")
    # A version-2 slice (no audiences) still imports; one claiming version 2 with an audience is refused.
    public = any_mem.export_slice(scope=SCOPE, include_conversations=True).to_dict()
    public["version"] = 2
    public["items"] = [{k: v for k, v in i.items() if k != "visibility"} for i in public["items"]]
    with pytest.raises(InvalidSliceError, match="version 4"):
        open_mem(reference=True).import_slice(public, scope=SCOPE)  # type: ignore[operator]
    for c in public["sections"]["conversations"]:
        for e in c["entries"]:
            e.pop("visibility", None)
    third = open_mem(reference=True)  # type: ignore[operator]
    third.import_slice(public, scope=SCOPE)
    assert len(third.conversation("chat-1", scope=SCOPE, create=False).messages()) == 2
