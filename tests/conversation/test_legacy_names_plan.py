"""Where a conversation hidden under another principal's name moves, and what of a payload names it
(``model.legacy_names``; the stores' renames are tested in tests/security/test_visibility_legacy_own_names.py)."""

from __future__ import annotations

from datetime import UTC, datetime

from reverie.model.conversation import ConversationState
from reverie.model.legacy_names import plan, renamed_name, rewrite_payload

AT = datetime(2026, 1, 2, tzinfo=UTC)


def _state(name: str, *audience: str, scope: str = "s") -> ConversationState:
    return ConversationState(scope=scope, id=name, opened_at=AT, visibility=tuple(sorted(audience)))


def test_only_a_name_hidden_from_its_principal_moves_under_its_audiences_first_principal() -> None:
    states = [
        _state("agent:b+old", "agent:c", "agent:a"),  # hidden from agent:b: moves
        _state("agent:b+ours", "agent:a", "agent:b"),  # includes agent:b: stays
        _state("agent:b+all"),  # everyone: stays
        _state("plain", "agent:a"),  # nobody's own name: stays
        _state("agent:a+agent:b+old", "agent:a"),  # the first choice is taken: ~2
    ]
    (moved,) = plan(states)
    assert (moved.old, moved.new, moved.state.id) == ("agent:b+old", "agent:a+agent:b+old~2", "agent:a+agent:b+old~2")
    assert moved.state.visibility == ("agent:a", "agent:c")
    assert moved.event(AT).id == moved.event(AT).id  # derived: a second run writes the same event


def test_a_renamed_name_stays_within_the_name_limit() -> None:
    long = "agent:b+" + "x" * 192
    assert len(renamed_name(long, ["agent:a"])) == 200
    assert renamed_name(long, ["agent:a"], taken={renamed_name(long, ["agent:a"])}).endswith("~2")


def test_a_payload_names_the_new_name_where_it_named_the_conversation_never_in_words() -> None:
    old, new = "agent:b+old", "agent:a+agent:b+old"
    state = _state(old, "agent:a").to_dict()
    payload = {
        "entry": {"conversation": old, "text": f"we moved from {old}", "meta": {}},
        "conversation": state,
        "item": {"meta": {"conversation": old}, "provenance": {"origin": "conversation", "ref": old}},
        "other": {"provenance": {"origin": "document", "ref": old}},
    }
    out = rewrite_payload(payload, old, new)
    assert out["entry"] == {"conversation": new, "text": f"we moved from {old}", "meta": {}}
    assert out["conversation"]["id"] == new and out["item"]["meta"]["conversation"] == new
    assert out["item"]["provenance"]["ref"] == new and out["other"] == payload["other"]
    untouched = {"entry": {"conversation": "talk"}}
    assert rewrite_payload(untouched, old, new) is untouched
