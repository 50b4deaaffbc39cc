"""Conversation scopes under a keep-budget: the raw messages go before the claims mined from them.

Regression (session 33): a closed conversation's claims list their message's memory as a parent
(and link to it ``derived_from``), so every mined message counted as load-bearing and the budget's
whole cut fell on the extracted claims — the distilled facts — while the raw turns stayed. And a
forgotten message made the next pass flag its claims ``stale_derived`` and demote them. A message's
memory is a transcript: evidence for its claims, not a premise of them (its words stay in the
conversation archive either way), so it bears no weight, ranks no higher than the claims mined
from it, and forgetting it leaves them current. Dismissing it (what was recorded is withdrawn)
still takes their footing away, as for a gist's sources.

Every store is a real SQLite file (``mem`` fixture); the conversation goes through the public API.
"""

from __future__ import annotations

from reverie import ManualClock, Memory
from reverie.dream import DreamConfig
from reverie.dream.dependents import count_dependents
from reverie.dream.snapshot import read_snapshot
from reverie.model.item import Item
from reverie.model.records import is_message_memory
from reverie.testing import dream_host

from .kit import S, ids

FACTS = (
    "I live in Lisbon.",
    "I work as a nurse at the city hospital.",
    "My favourite food is grilled sardines.",
    "I am allergic to peanuts.",
)


def _chat(mem: Memory, clock: ManualClock, lines: tuple[str, ...] = FACTS, *, acks: bool = True) -> None:
    """Alice says ``lines`` (each answered by the assistant when ``acks``); the conversation is
    closed (its messages mined), then ten days pass."""
    conv = mem.conversation("c", scope=S)
    for line in lines:
        conv.add(line, speaker="Alice", role="user")
        clock.advance(minutes=1)
        if acks:
            conv.add("Noted!", speaker="Bot", role="assistant")
            clock.advance(minutes=1)
    conv.close()
    clock.advance(days=10)


def _split(mem: Memory, least: int = len(FACTS)) -> tuple[dict[str, Item], dict[str, Item], dict[str, Item]]:
    """Current (mined messages by id, claims by id, person records by id); at least ``least`` claims."""
    items = mem.list(scope=S, limit=1000).items
    claims = {i.id: i for i in items if "extracted" in i.meta and i.kind != "person"}
    mined = {p for c in claims.values() for p in c.parents}
    messages = {i.id: i for i in items if is_message_memory(i) and i.id in mined}
    persons = {i.id: i for i in items if i.kind == "person"}
    assert messages and len(claims) >= least, "extraction changed: the test no longer tests anything"
    return messages, claims, persons


def test_regression_keep_budget_forgets_raw_messages_before_the_claims_mined_from_them(
    mem: Memory, clock: ManualClock
) -> None:
    _chat(mem, clock)
    messages, claims, persons = _split(mem)
    budget = len(claims) + len(persons)  # room for the facts and the people they are about
    report = mem.dream(scope=S, config=DreamConfig(keep_budget=budget))

    current = {i.id for i in mem.list(scope=S, limit=1000).items}
    assert set(claims) <= current, "the budget forgot extracted facts while raw turns stayed"
    assert set(persons) <= current  # still protected: current claims are about them
    assert not set(messages) & current and len(current) == budget
    assert report.ids("keep_budget", "applied") >= set(messages)
    for claim in claims.values():
        now = mem.get(claim.id, scope=S)
        assert now.is_current and "stale_derived" not in now.flags and now.tier == "active"
        (parent,) = now.parents  # provenance stays readable: the forgotten message is still there
        assert parent in messages and not mem.get(parent, scope=S).is_current
    assert mem.archive_search("allergic to peanuts", scope=S)  # the words stay in the archive
    peanuts = [c for c in claims.values() if "peanuts" in c.text]
    assert peanuts and peanuts[0].id in ids(mem.recall("peanuts allergy", scope=S, k=3, record_use=False))

    clock.advance(days=1)  # the next pass must not find the claims standing on nothing
    again = mem.dream(scope=S, dry_run=True, config=DreamConfig(keep_budget=budget))
    assert not set(claims) & (again.ids("provenance") | again.ids("keep_budget") | again.ids("tier"))


def test_regression_forgetting_a_message_leaves_the_claims_mined_from_it_current(
    mem: Memory, clock: ManualClock
) -> None:
    _chat(mem, clock, acks=False)
    messages, claims, _ = _split(mem)
    (claim,) = [c for c in claims.values() if "peanuts" in c.text]
    (message,) = claim.parents
    assert message in messages
    mem.forget(message, scope=S, reason="raw turn no longer needed")
    report = mem.dream(scope=S)
    assert claim.id not in report.ids("provenance")
    kept = mem.get(claim.id, scope=S)
    assert kept.is_current and "stale_derived" not in kept.flags and kept.tier == "active"
    assert ids(mem.recall("allergic to peanuts", scope=S, k=1, record_use=False)) == [claim.id]


def test_dismissing_a_message_still_takes_the_footing_from_its_claims(mem: Memory, clock: ManualClock) -> None:
    """Forgetting a transcript prunes evidence; dismissing it says what was recorded is void."""
    _chat(mem, clock, acks=False)
    _, claims, _ = _split(mem)
    (claim,) = [c for c in claims.values() if "peanuts" in c.text]
    mem.dismiss(claim.parents[0], scope=S, reason="recorded in the wrong conversation")
    mem.dream(scope=S)
    assert "stale_derived" in mem.get(claim.id, scope=S).flags


def test_a_message_goes_before_even_a_hedged_claim_mined_from_it(mem: Memory, clock: ManualClock) -> None:
    """A hedged claim carries less salience than the message it came from; the message still
    goes first (it ranks no higher than the claims mined from it, and first at a tie)."""
    _chat(mem, clock, ("Maybe Dana is moving to Berlin.",), acks=False)
    messages, claims, _ = _split(mem, least=1)
    (message,) = messages
    (hedged,) = claims.values()
    assert hedged.kind == "hypothesis"
    total = len(mem.list(scope=S, limit=1000).items)
    report = mem.dream(scope=S, config=DreamConfig(keep_budget=total - 1))
    assert report.ids("keep_budget", "applied") == {message}
    assert mem.get(hedged.id, scope=S).is_current
    (why,) = [a["reason"] for a in report.to_dict()["actions"] if a["step"] == "keep_budget"]
    assert "ranked no higher than the 1 current claim(s) mined from this message" in why


def test_a_pinned_message_is_kept_while_its_neighbours_go(mem: Memory, clock: ManualClock) -> None:
    """Every other protection still holds for a message: a person's pin (durable tier) keeps it."""
    _chat(mem, clock, acks=False)
    messages, claims, persons = _split(mem)
    pinned = sorted(messages)[0]
    mem.set_tiers({pinned: "durable"}, scope=S)
    budget = len(claims) + len(persons) + 1
    report = mem.dream(scope=S, config=DreamConfig(keep_budget=budget))
    assert report.ids("keep_budget", "applied") == set(messages) - {pinned}
    assert mem.get(pinned, scope=S).is_current
    assert all(mem.get(c, scope=S).is_current for c in claims)


def test_a_message_bears_no_weight_but_a_person_record_still_does(mem: Memory, clock: ManualClock) -> None:
    _chat(mem, clock, ("My sister Dana is a pilot.", *FACTS), acks=False)
    messages, _, persons = _split(mem)
    deps = count_dependents(read_snapshot(dream_host(mem), S))
    assert not set(messages) & set(deps)
    assert set(persons) <= set(deps)  # claims are about Alice and Dana: their records stay load-bearing


def test_regression_chat_turns_are_never_consolidated_into_a_gist_that_outranks_the_claims(
    mem: Memory, clock: ManualClock
) -> None:
    """Bench finding (bench/chat_retention.py): short turns that recur ("Ok thanks.", "Noted.") with
    like context windows were near-duplicates, so the pass made gists of them — a chat line stated
    as a ``semantic`` belief whose salience (one piece of evidence per member) outranked every
    claim — and at a 10 % budget the gists took the whole budget. Two turns saying the same words
    are two events, not one belief restated: a message's memory is never joined."""
    conv = mem.conversation("c", scope=S)
    for line in FACTS:
        for text in (line, "Ok thanks.", "Ok thanks."):
            conv.add(text, speaker="Alice", role="user")
            clock.advance(minutes=1)
            conv.add("Noted.", speaker="Bot", role="assistant")
            clock.advance(minutes=1)
    conv.close()
    clock.advance(days=10)
    _, claims, persons = _split(mem)
    budget = len(claims) + len(persons)
    report = mem.dream(scope=S, config=DreamConfig(keep_budget=budget))
    assert report.count("consolidate") == 0
    current = {i.id for i in mem.list(scope=S, limit=1000).items}
    assert current == set(claims) | set(persons)
