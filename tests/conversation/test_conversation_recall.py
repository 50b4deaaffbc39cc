"""Conversation-aware recall by default: plain ``recall`` on a scope with conversations finds the turns."""

from __future__ import annotations

from datetime import timedelta

from reverie import ManualClock, Memory
from reverie.recall.conversational import (
    CONVERSATION_NEIGHBOURS,
    CONVERSATION_RRF_K,
    conversation_default,
    conversation_options,
)
from reverie.recall.engine import RecallOptions
from reverie.store.reference import ReferenceStore

SCOPE = "user:chat"


def _dialogue(mem: Memory, clock: ManualClock) -> list[str]:
    conv = mem.conversation("c", scope=SCOPE)
    at = clock.now() - timedelta(days=10)
    turns = [
        ("Caroline", "I went to a pottery class last weekend."),
        ("Melanie", "Nice! I started painting sunsets with my kids."),
        ("Caroline", "My screenplay is finally finished."),
        ("Melanie", "What genre is it?"),
        ("Caroline", "A mix of drama and romance!"),
        ("Melanie", "I signed up for a pottery class too."),
    ]
    return [conv.add(text, speaker=who, at=at).item_id or "" for who, text in turns]


def test_a_named_speaker_is_matched_as_the_author(mem: Memory, clock: ManualClock) -> None:
    ids = _dialogue(mem, clock)
    hits = mem.recall("When did Caroline go to a pottery class?", scope=SCOPE, k=3, record_use=False)
    assert hits[0].item.id == ids[0]  # Caroline's pottery class, not Melanie's
    assert hits[0].why.get("author_named") is True
    assert not any(h.why.get("author_named") for h in hits if h.item.author == "Melanie")


def test_a_reply_lends_weight_to_the_turn_it_answers(mem: Memory, clock: ManualClock) -> None:
    ids = _dialogue(mem, clock)
    hits = mem.recall("what genre of screenplay", scope=SCOPE, k=6, record_use=False)
    by_id = {h.item.id: h for h in hits}
    assert by_id[ids[3]].why.get("neighbour_bonus", 0) > 0  # "What genre is it?" gains from its reply


def test_caller_options_turn_the_conversation_default_off(mem: Memory, clock: ManualClock) -> None:
    _dialogue(mem, clock)
    hits = mem.recall(
        "When did Caroline go to a pottery class?", scope=SCOPE, k=6, record_use=False, options=RecallOptions(k=6)
    )
    assert not any("author_named" in h.why or "neighbour_bonus" in h.why for h in hits)


def test_a_scope_without_conversations_keeps_the_plain_default(mem: Memory, clock: ManualClock) -> None:
    _dialogue(mem, clock)
    mem.remember("Caroline likes pottery", scope="user:notes", author="Caroline")
    hits = mem.recall("what does Caroline like", scope="user:notes", record_use=False)
    assert hits and "author_named" not in hits[0].why
    opts = RecallOptions()
    assert conversation_default(mem.store, "user:notes", "q", opts) == ("q", opts)
    assert conversation_default(object(), SCOPE, "q", opts) == ("q", opts)  # a store that keeps no speakers


def test_the_defaults_split_the_speakers_out_of_the_query() -> None:
    query, opts = conversation_options(
        "What did Caroline's friend Melanie paint?", ["Caroline", "Melanie"], RecallOptions()
    )
    assert query == "What did friend paint?"
    assert opts.authors == ("Caroline", "Melanie")
    assert (opts.rrf_k, opts.neighbours, opts.author_boost > 0) == (CONVERSATION_RRF_K, CONVERSATION_NEIGHBOURS, True)


def test_both_backends_rank_conversation_recall_alike(tmp_path: object, clock: ManualClock) -> None:
    mem = Memory(store=ReferenceStore(), embedder="hash", clock=clock, seed=0)
    ids = _dialogue(mem, clock)
    hits = mem.recall("When did Caroline go to a pottery class?", scope=SCOPE, k=3, record_use=False)
    assert hits[0].item.id == ids[0] and hits[0].why.get("author_named") is True
    mem.close()
