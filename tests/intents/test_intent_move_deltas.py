"""Promise: an intent's moves add to the log only what each changed, and older logs replay as they did.

Every intent move's event used to carry the whole intent — its label, owner, priority, parent and
claim ids, none of which a move changes — so the log grew with moves times the record's size
(``bench/intent_move_bytes.py`` measures it, old tree against new). A move now carries a delta
(``{"intent": {"id", "scope", "status", "reason", "version", "updated_at"}, "delta": true}``) that
the projection applies to the intent as it stood, as a task's moves do.

Logs written before (``data/old_intent_log.json``, written by the earlier code with
``data/write_old_intent_log.py``: moves carrying the whole intent, a principal's blind quote
among them) must replay to the same intents on every backend, read the same for a principal,
and go on with deltas. The property test checks, over random move sequences, that the state the
deltas give is the state the whole records give: live, rebuilt from the log on SQLite, and from
a log of whole-record moves appended raw.
"""

from __future__ import annotations

import json
import tempfile
from dataclasses import replace
from datetime import timedelta
from pathlib import Path
from typing import Any

from agenda_kit import SCOPE, migrated
from hypothesis import given, settings
from hypothesis import strategies as st

from reverie import ManualClock, Memory, ReverieError
from reverie.model import agenda as ag
from reverie.model.conceal import conceal_text
from reverie.model.events import Event
from reverie.store.reference import ReferenceStore

DATA = Path(__file__).parent / "data"
OLD_LOG = json.loads((DATA / "old_intent_log.json").read_text(encoding="utf-8"))
BOB, OPS = "agent:bob", "agent:ops"


def _payload_bytes(event: Event) -> int:
    return len(json.dumps(event.payload, sort_keys=True))


def test_an_intent_move_event_carries_only_what_the_move_changed(any_mem: Memory) -> None:
    claims = [any_mem.remember(f"fact number {i} about the trip", scope=SCOPE).id for i in range(20)]
    goal = any_mem.intents.create("plan the trip " * 40, scope=SCOPE, memory_ids=claims, owner="agent:lead")
    created = any_mem.intents.history(goal, scope=SCOPE)[0]
    for i in range(20):
        any_mem.intents.pause(goal, scope=SCOPE, reason=f"waiting {i:02d}")
        any_mem.intents.resume(goal, scope=SCOPE)
    done = any_mem.intents.complete(goal, scope=SCOPE, reason="booked")
    assert (done.status, done.version, done.reason, done.label) == ("completed", 42, "booked", goal.label)
    assert done.memory_ids == tuple(claims) and done.owner == "agent:lead"
    history = any_mem.intents.history(goal, scope=SCOPE)
    paused = [e for e in history if e.type == "intent.paused"]
    assert paused[-1].payload == {
        "delta": True,
        "intent": {
            "id": goal.id,
            "scope": SCOPE,
            "status": "paused",
            "reason": "waiting 19",
            "version": 40,
            "updated_at": paused[-1].payload["intent"]["updated_at"],
        },
    }
    # no move copies the label or the claim ids: each is a fraction of the creation's payload, and
    # the 41st no larger than the first (a version number may gain a digit)
    moves = history[1:]
    assert all(_payload_bytes(e) * 4 < _payload_bytes(created) for e in moves)
    assert _payload_bytes(moves[-1]) <= _payload_bytes(moves[0]) + 4
    assert all("label" not in e.payload["intent"] and "memory_ids" not in e.payload["intent"] for e in moves)
    before = any_mem.intents.get(goal, scope=SCOPE)
    any_mem.rebuild()
    assert any_mem.intents.get(goal, scope=SCOPE) == before == done
    assert any_mem.doctor().ok


def _intents(mem: Memory) -> list[dict[str, Any]]:
    return [i.to_dict() for i in mem.intents.list(scope=SCOPE, limit=1000)]


def test_an_old_log_of_whole_intent_events_replays_identically(memories: Any, store_url: str) -> None:
    ref = ReferenceStore()
    old = memories.open(reference=True, store=ref)
    for d in OLD_LOG["events"]:
        ref.append_event(Event.from_dict(d))
    old.rebuild()
    assert _intents(old) == OLD_LOG["intents"]
    assert old.doctor().ok

    mem = migrated(memories, ref, store_url)
    assert _intents(mem) == OLD_LOG["intents"]
    mem.rebuild()
    assert _intents(mem) == OLD_LOG["intents"]
    assert mem.doctor().ok
    # a principal reads the old records and the old log as the earlier code showed them
    bob = mem.as_principal(OLD_LOG["principal"])
    assert [i.to_dict() for i in bob.intents.list(scope=SCOPE, limit=1000)] == OLD_LOG["intents_as_bob"]
    shown = [e.to_dict() for e in bob.events(scope=SCOPE, limit=10_000)]
    assert [{k: v for k, v in e.items() if k != "seq"} for e in shown] == [
        {k: v for k, v in e.items() if k != "seq"} for e in OLD_LOG["events_as_bob"]
    ]

    # the old log goes on with new moves (deltas after whole records), and still rebuilds the same
    paused = next(i for i in OLD_LOG["intents"] if i["status"] == "paused")
    live = mem.intents.resume(paused["id"], scope=SCOPE, reason="back on it")
    live = mem.intents.complete(paused["id"], scope=SCOPE, reason="allergy confirmed")
    assert (live.status, live.version, live.label, live.memory_ids) == (
        "completed",
        paused["version"] + 2,
        paused["label"],
        tuple(paused["memory_ids"]),
    )
    now = _intents(mem)
    mem.rebuild()
    assert _intents(mem) == now and mem.intents.get(paused["id"], scope=SCOPE) == live
    assert mem.doctor().ok
    history = mem.intents.history(paused["id"], scope=SCOPE)
    assert ["delta" in e.payload for e in history] == [False] * (len(history) - 2) + [True, True]
    # the sub-intent's blind quote (an old whole record's unseen) still reads as written for bob
    sub = next(i for i in OLD_LOG["intents"] if i["parent"] is not None)
    assert mem.intents.get(sub["id"], scope=SCOPE).unseen == (OLD_LOG["hidden"],)


def test_a_principal_sees_an_intent_moves_delta_concealed_as_a_tasks(any_mem: Memory) -> None:
    """The owner's reason quoting a claim bob may not see is cut from the delta bob reads, exactly as
    from a task's; bob's own quote of it (a blind quote) reads as written; ``unseen`` is never shown."""
    hidden = any_mem.remember("the door code is 4471", scope=SCOPE, visibility=[OPS]).id
    goal = any_mem.intents.create("get in", scope=SCOPE)
    job = any_mem.tasks.create("open the door", scope=SCOPE, intent=goal.id)
    any_mem.tasks.start(job, scope=SCOPE)
    any_mem.intents.pause(goal, scope=SCOPE, reason=f"waiting on {hidden}")
    any_mem.tasks.fail(job, f"waiting on {hidden}", scope=SCOPE)
    bob, eve, ops = (any_mem.as_principal(p) for p in (BOB, "agent:eve", OPS))

    def moves(reader: Memory) -> dict[str, dict[str, Any]]:
        kinds = ("intent.paused", "intent.resumed", "task.failed", "task.retried")
        return {e.type: e.payload for e in reader.events(scope=SCOPE, limit=10_000) if e.type in kinds}

    shown = moves(bob)
    assert shown["intent.paused"]["delta"] is shown["task.failed"]["delta"] is True
    assert shown["intent.paused"]["intent"]["reason"] == shown["task.failed"]["task"]["reason"] == "waiting on"
    assert shown["task.failed"]["task"]["failure"]["reason"] == "waiting on"
    assert hidden not in json.dumps([e.to_dict() for e in bob.events(scope=SCOPE, limit=10_000)])
    assert bob.intents.get(goal, scope=SCOPE).reason == "waiting on"
    assert moves(ops)["intent.paused"]["intent"]["reason"] == f"waiting on {hidden}"  # ops may see it

    mine = bob.intents.resume(goal, scope=SCOPE, reason=f"bob checked {hidden}")
    bob.tasks.retry(job, scope=SCOPE, reason=f"bob checked {hidden}")
    assert mine.reason == f"bob checked {hidden}" and not mine.unseen
    for reader in (bob, eve, ops):
        seen = moves(reader)
        assert seen["intent.resumed"]["intent"]["reason"] == seen["task.retried"]["task"]["reason"]
        assert seen["intent.resumed"]["intent"]["reason"] == f"bob checked {hidden}"
        assert "unseen" not in json.dumps([e.to_dict() for e in reader.events(scope=SCOPE, limit=10_000)])
    owners = moves(any_mem)  # the owner's log keeps the blind quote, for the record's later readers
    assert owners["intent.resumed"]["intent"]["unseen"] == owners["task.retried"]["task"]["unseen"] == [hidden]
    assert any_mem.intents.get(goal, scope=SCOPE).unseen == (hidden,)


# -- the property: deltas give the state whole records give ---------------------------------------

REASONS = ("", "later", "see {claim}", "see {hidden}")
move_step = st.tuples(
    st.integers(0, 2),  # which intent
    st.sampled_from(sorted(ag.INTENT_MOVES)),
    st.sampled_from(REASONS),
    st.booleans(),  # written by bob (who may not see ``hidden``) rather than the owner
)


class _Oracle:
    """The intents as whole records, each accepted move applied by ``dataclasses.replace`` (the
    way the code before deltas built the record each event carried), with the old log's events."""

    def __init__(self) -> None:
        self.records: dict[str, ag.Intent] = {}
        self.old_form: list[Event] = []

    def moved(self, event: Event, before: ag.Intent, to: str, reason: str, blind: tuple[str, ...]) -> None:
        after = replace(
            before,
            status=to,
            reason=reason,
            updated_at=event.at,
            version=before.version + 1,
            unseen=tuple(sorted({*before.unseen, *blind})),
        )
        self.records[after.id] = after
        self.old_form.append(replace(event, payload={"intent": after.to_dict()}))


def _replayed(events: list[Event]) -> dict[str, ag.Intent]:
    """``events`` projected in a dict (the pure projection, no store)."""
    got: dict[tuple[str, str], ag.Intent] = {}

    def read(scope: str, intent_id: str) -> ag.Intent | None:
        return got.get((scope, intent_id))

    for e in events:
        for change in ag.project_agenda(e.type, e.payload, intent=read):
            assert isinstance(change, ag.PutIntent)
            got[(change.intent.scope, change.intent.id)] = change.intent
    return {k[1]: v for k, v in got.items()}


def _play(mem: Memory, clock: ManualClock, steps: list[tuple[int, str, str, bool]]) -> tuple[_Oracle, list[Event]]:
    claim = mem.remember("Alice may be allergic to peanuts", scope=SCOPE).id
    hidden = mem.remember("the door code is 4471", scope=SCOPE, visibility=[OPS]).id
    bob = mem.as_principal(BOB)
    made = [
        mem.intents.create(f"find out, see {claim}", scope=SCOPE, memory_ids=[claim, hidden], owner="agent:lead"),
        bob.intents.create(f"bob's look at {hidden}", scope=SCOPE, memory_ids=[claim], priority=0.9),
    ]
    made.append(mem.intents.create("ask the doctor", scope=SCOPE, parent=made[0].id))
    oracle = _Oracle()
    oracle.records = {i.id: mem.intents.get(i, scope=SCOPE) for i in made}
    oracle.old_form = [e for e in mem.events(scope=SCOPE, limit=10_000) if e.type == ag.INTENT_CREATED]
    written: list[tuple[str, bool]] = []  # each accepted move's reason and whether bob wrote it
    for n, move, template, as_bob in steps:
        clock.advance(timedelta(seconds=1))
        target = made[n].id
        before = oracle.records[target]
        reason = template.format(claim=claim, hidden=hidden)
        try:
            (bob if as_bob else mem).intents.transition(target, move, scope=SCOPE, reason=reason)
        except ReverieError as exc:
            assert exc.code == "invalid_transition" and before.status not in ag.INTENT_MOVES[move][0]
            continue
        event = mem.intents.history(target, scope=SCOPE)[-1]
        blind = (hidden,) if as_bob and hidden in reason else ()
        oracle.moved(event, before, ag.INTENT_MOVES[move][1], reason, blind)
        written.append((reason, as_bob))
    _check_privacy(bob, hidden, written)
    return oracle, [e for e in mem.events(scope=SCOPE, limit=10_000) if ag.is_agenda_event(e.type)]


def _check_privacy(bob: Memory, hidden: str, written: list[tuple[str, bool]]) -> None:
    """Bob's log shows each move's delta concealed as a task's is: the hidden id cut from the owner's
    reason, kept in bob's own (a blind quote), and ``unseen`` never shown."""
    shown = [e for e in bob.events(scope=SCOPE, limit=10_000) if e.type in ag.INTENT_EVENTS[1:]]
    assert len(shown) == len(written)
    for event, (reason, as_bob) in zip(shown, written, strict=True):
        delta = event.payload["intent"]
        assert event.payload["delta"] is True and "unseen" not in delta and "label" not in delta
        assert delta["reason"] == (reason if as_bob else conceal_text(reason, {hidden}))


@settings(max_examples=30, deadline=None)
@given(steps=st.lists(move_step, min_size=1, max_size=30))
def test_random_intent_moves_as_deltas_give_the_state_whole_records_give(
    steps: list[tuple[int, str, str, bool]],
) -> None:
    clock = ManualClock()
    with tempfile.TemporaryDirectory() as tmp, Memory(Path(tmp) / "live.db", embedder="hash", clock=clock) as mem:
        oracle, log = _play(mem, clock, steps)
        want = oracle.records
        assert {i.id: i for i in mem.intents.list(scope=SCOPE, limit=100)} == want  # live, from deltas
        assert all(e.payload.get("delta") is True for e in log if e.type != ag.INTENT_CREATED)
        assert _replayed(log) == _replayed(oracle.old_form) == want  # the pure projection, both forms
        mem.rebuild()  # the SQLite rows rebuilt from the log of deltas
        assert {i.id: i for i in mem.intents.list(scope=SCOPE, limit=100)} == want
        assert mem.doctor().ok
        items = [e for e in mem.events(scope=SCOPE, limit=10_000) if not ag.is_agenda_event(e.type)]
        with Memory(Path(tmp) / "old.db", embedder="hash", clock=clock) as old:
            # the same history as the earlier code logged it, appended raw to a SQLite file, rebuilt
            with old.store.atomic(SCOPE):
                for e in sorted([*items, *oracle.old_form], key=lambda e: e.seq):
                    old.store.append_event(e)
            old.rebuild()
            assert {i.id: i for i in old.intents.list(scope=SCOPE, limit=100)} == want
            assert old.doctor().ok
