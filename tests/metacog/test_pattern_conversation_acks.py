"""Patterns over a conversation are about what the user does and asks, not the assistant's acks.

Regression: the pattern step read every message memory as an event — the assistant's too, and
read as the window the memory holds (date, speaker, the text, the two turns before it as
context). A bot that answers "Noted." every day, and a user's daily "Ok thanks.", made
"Recurring pattern" items out of acknowledgements (noise that pushed the scope over its keep
budget), and the acks quoted in each user message's context changed that message's kind of event.
Here a generated stream plants user patterns (``pattern_streams.stream``) in a conversation and
adds a daily bot ack and a daily user ack: the patterns found are the planted ones, exactly as in
the same stream without the acks, and none has an ack among its members.
"""

from __future__ import annotations

from collections.abc import Callable
from datetime import datetime, timedelta

from pattern_streams import SPAN_DAYS, START, Planted, stream

from reverie import ManualClock, Memory, Q
from reverie.dream.patterns import Event
from reverie.model.item import Item

#: Days of daily acks: a month is enough for a time-of-day rhythm (and keeps the test fast).
ACK_DAYS = 30


def _talk(mem: Memory, scope: str, events: list[Event], *, acks: bool) -> set[str]:
    """``events`` said by Alice in one conversation (plus the daily acks); the acks' memory ids."""
    clock = mem.clock
    assert isinstance(clock, ManualClock)
    # The planted kind's own words ("The cache job overflowed"), without the stream's run number.
    said: list[tuple[datetime, int, str, str]] = [(e.at, 1, e.text.split(" (run ")[0], "user") for e in events]
    if acks:
        for day in range(ACK_DAYS):
            at = START + timedelta(days=day, hours=9)
            said += [(at, 2, "Noted.", "assistant"), (at + timedelta(minutes=1), 3, "Ok thanks.", "user")]
    conv = mem.conversation("support", scope=scope)
    ack_ids = set()
    for at, order, text, role in sorted(said):
        clock.set(at)
        msg = conv.add(text, speaker="Bot" if role == "assistant" else "Alice", role=role)
        if order > 1:
            ack_ids.add(msg.item_id)
    clock.set(START + timedelta(days=SPAN_DAYS + 1))
    return ack_ids


def _found(mem: Memory, scope: str) -> list[Item]:
    mem.dream(scope=scope)
    where = Q.kind("pattern") & Q.status("live")
    return [p for p in mem.list(scope=scope, where=where, limit=100).items if p.is_current]


def _rules(pats: list[Item]) -> set[tuple[tuple[str, ...], str, str]]:
    return {(tuple(p.meta["pattern"]["template"]), p.meta["pattern"]["rule"], p.meta["pattern"]["value"]) for p in pats}


def _matches(found: tuple[tuple[str, ...], str, str], planted: Planted) -> bool:
    kind, rule, value = found
    if kind != tuple(sorted({*planted.kind, "alice"})) or rule != planted.rule:
        return False
    if rule in ("hour", "interval"):
        return abs(int(value) - int(planted.value)) <= 1
    return value == planted.value


def test_user_patterns_are_found_and_no_pattern_is_built_of_acks(open_mem: Callable[..., Memory]) -> None:
    events, planted = stream(7, ("weekday", "month_end"), noise_kinds=4)
    mem = open_mem()
    _talk(mem, "user:clean", events, acks=False)
    acks = _talk(mem, "user:acks", events, acks=True)
    clean, noisy = _found(mem, "user:clean"), _found(mem, "user:acks")
    # Every planted pattern found, nothing else: precision and recall 1, with the acks as without.
    assert all(any(_matches(f, p) for f in _rules(clean)) for p in planted)
    assert all(any(_matches(f, p) for p in planted) for f in _rules(clean))
    assert _rules(noisy) == _rules(clean)
    for pat in noisy:
        members = {e.dst for e in mem.edges(pat.id, scope="user:acks") if e.type == "derived_from"}
        assert not members & acks
