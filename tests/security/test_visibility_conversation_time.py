"""A message a principal may not see does not show it its date: not in a refusal, not in the state.

Found by the lead (session 30): a conversation blocked by a message dated in the future (a wrong
clock, issue #15) that a principal may not see refused that principal's ``add`` with
"… is before the previous message … (2099-01-01T00:00:00+00:00)", and ``conv.state().last_at``
(and ``mem.conversations``) showed the same date: the hidden message's time, which is part of it.

Messages stay appended in time order for everyone (the bound is the latest message of the whole
conversation, so positions and times never disagree for the owner or any audience); what a
principal is *shown* of the conversation's time is computed over the messages it may see, and a
refusal caused by a message it may not see names no date. Runs on a SQLite file and PostgreSQL.
"""

from __future__ import annotations

from datetime import UTC, datetime

import pytest
from fastapi.testclient import TestClient

from reverie import InvalidInputError, ManualClock, Memory
from reverie.http import create_app

SCOPE = "team:ops"
FAR = datetime(2099, 1, 1, tzinfo=UTC)
NOW = datetime(2026, 3, 1, 9, 0, tzinfo=UTC)
ANN, BOB = "user:ann", "user:bob"
OPERATOR = "operator-token-0123456789"
AGENT = "user-bob-token-0123456789"


def _blocked_store(url: str) -> None:
    """bob's and ann's conversation: one shared message at NOW, then one for ann only dated 2099."""
    with Memory(url, embedder="hash", clock=ManualClock(NOW), seed=7) as mem:
        mem.conversation("chat", scope=SCOPE, visibility=[ANN, BOB]).add("the team meets at noon", speaker="ann")
    with Memory(url, embedder="hash", clock=ManualClock(FAR), seed=8) as wrong:
        wrong.conversation("chat", scope=SCOPE).add("just for me: zqhidden", speaker="ann", visibility=[ANN])


def _refusal(mem: Memory) -> str:
    with pytest.raises(InvalidInputError) as refused:
        mem.conversation("chat", scope=SCOPE).add("a message at a real time", speaker="bob")
    return refused.value.message


def test_a_principal_blocked_by_a_hidden_message_is_not_shown_its_date(store_url: str) -> None:
    _blocked_store(store_url)
    with Memory(store_url, embedder="hash", clock=ManualClock(NOW), seed=9) as owner:
        bob = owner.as_principal(BOB)
        said = _refusal(bob)  # still refused: the conversation's messages stay in time order
        assert "2099" not in said, said
        assert "may not see" in said and "owner" in said
        # The owner and the message's audience see the date that blocks them.
        assert "2099" in _refusal(owner)
        assert "2099" in _refusal(owner.as_principal(ANN))


def test_a_principals_view_of_a_conversations_time_counts_only_the_messages_it_may_see(store_url: str) -> None:
    _blocked_store(store_url)
    with Memory(store_url, embedder="hash", clock=ManualClock(NOW), seed=9) as owner:
        bob = owner.as_principal(BOB)
        state = bob.conversation("chat", scope=SCOPE).state()
        assert state.last_at == NOW and state.active_at == NOW
        (listed,) = bob.conversations(scope=SCOPE)
        assert listed.last_at == NOW and listed.active_at == NOW
        # Those who may see it are shown it.
        assert owner.conversation("chat", scope=SCOPE).state().last_at == FAR
        assert owner.as_principal(ANN).conversation("chat", scope=SCOPE).state().last_at == FAR
        assert [c.last_at for c in owner.as_principal(ANN).conversations(scope=SCOPE)] == [FAR]


def test_http_a_principals_refusal_and_conversation_list_carry_no_hidden_date(tmp_path: object) -> None:
    db = str(tmp_path) + "/c.db"
    _blocked_store(db)
    with Memory(db, embedder="hash", clock=ManualClock(NOW), seed=9) as mem:
        app = create_app(mem, token=OPERATOR, principals={AGENT: BOB})
        with TestClient(app, base_url="http://127.0.0.1") as http:
            agent = {"Authorization": f"Bearer {AGENT}"}
            r = http.post(
                f"/v1/scopes/{SCOPE}/conversations/chat/messages", json={"text": "hi", "speaker": "bob"}, headers=agent
            )
            assert r.status_code == 400 and "2099" not in r.text, r.text
            page = http.get(f"/conversations?scope={SCOPE}", headers=agent)
            assert "2099" not in page.text
