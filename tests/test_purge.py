"""``forget(purge=True)``: the one real deletion. What every read returns after a purge.

The byte-level promise (no trace in the database, WAL or shm files) is in
``tests/reliability/test_purge_canary.py``; here: every read path, both backends, rebuild,
scope isolation, refusals, and agreement between SQLite and the reference store.
"""

from __future__ import annotations

import json
import tempfile
from pathlib import Path
from typing import Any

import pytest
from click.testing import CliRunner
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from reverie import (
    DismissedValueError,
    InvalidInputError,
    ManualClock,
    Memory,
    NotFoundError,
    ReverieError,
    VersionConflictError,
)
from reverie.cli import cli
from reverie.cli.transfer import export_events
from reverie.model.redact import REDACTED
from reverie.store.reference import ReferenceStore
from strategies import OTHER_SCOPE, SCOPE, START, state_of

#: One FTS token (letters and digits only), mixed case so the lowercased form is a second needle.
CANARY = "Qvx7Canary0Tok"


def _dump(value: Any) -> str:
    return json.dumps(value, ensure_ascii=False, default=str).lower()


def _seed(mem: Memory, clock: ManualClock) -> dict[str, Any]:
    """A canary claim (text, key/value, tag, meta), used, linked and revised once; a bystander."""
    secret = mem.remember(
        f"The vault code is {CANARY} for Alice",
        scope=SCOPE,
        key="alice.vault",
        value=CANARY,
        tags=[CANARY, "vault"],
        meta={"secret": CANARY, "nested": {"list": [CANARY]}},
    )
    bystander = mem.remember("Bob likes green tea", scope=SCOPE, tags=["drinks"], meta={"turn": 2})
    mem.link(secret.id, bystander.id, "about", scope=SCOPE, meta={"note": f"quotes {CANARY}"})
    clock.advance(seconds=5)
    hits = mem.recall(CANARY, scope=SCOPE, k=5)
    assert secret.id in [h.item.id for h in hits]
    clock.advance(seconds=5)
    middle = clock.now()
    clock.advance(seconds=5)
    revised = mem.revise(secret.id, f"The vault code is {CANARY} (rotated)", scope=SCOPE, reason=f"was {CANARY}")
    clock.advance(seconds=5)
    return {"first": secret, "current": revised, "bystander": bystander, "middle": middle}


def _assert_no_canary(mem: Memory, seeded: dict[str, Any]) -> None:
    first, current = seeded["first"], seeded["current"]
    needle = CANARY.lower()
    everything = mem.list(scope=SCOPE, include_closed=True, limit=1000).items
    assert needle not in _dump([i.to_dict() for i in everything])
    assert needle not in _dump([e.to_dict() for e in mem.events(scope=SCOPE, limit=100_000)])
    assert needle not in _dump([e.to_dict() for e in mem.edges(scope=SCOPE, include_closed=True)])
    assert needle not in _dump(mem.store.tombstones(SCOPE))
    history = mem.history(first.id, scope=SCOPE)
    assert {v.id for v in history.versions} >= {first.id, current.id}
    assert needle not in _dump([v.to_dict() for v in history.versions] + [e.to_dict() for e in history.events])
    for item_id, times in (
        (first.id, (None, seeded["middle"], mem.clock.now())),
        (current.id, (None, mem.clock.now())),
    ):
        for when in times:
            got = mem.get(item_id, scope=SCOPE, as_of=when) if when else mem.get(item_id, scope=SCOPE)
            assert got.text == REDACTED and needle not in _dump(got.to_dict())
    for kwargs in ({}, {"include_history": True}, {"as_of": seeded["middle"]}):
        hits = mem.recall(CANARY, scope=SCOPE, k=20, record_use=False, **kwargs)  # type: ignore[arg-type]
        assert needle not in _dump([h.item.to_dict() for h in hits])
        assert all(h.item.text != seeded["current"].text for h in hits)
    lines: list[str] = []
    export_events(mem, SCOPE, lines.append)
    assert lines and needle not in "".join(lines).lower()


def test_purge_erases_the_content_from_every_read(any_mem: Memory, clock: ManualClock) -> None:
    seeded = _seed(any_mem, clock)
    bystander = seeded["bystander"]
    purged = any_mem.forget(seeded["current"].id, scope=SCOPE, reason="GDPR erasure request", purge=True)

    assert (purged.text, purged.key, purged.value, purged.tags, purged.meta) == (REDACTED, None, None, (), {})
    assert purged.status == "forgotten" and not purged.is_current and "purged" in purged.flags
    # what provenance needs survives: id, scope, kind, source and the record times
    first = any_mem.get(seeded["first"].id, scope=SCOPE)
    assert (first.id, first.scope, first.kind, first.recorded_at) == (
        seeded["first"].id,
        SCOPE,
        seeded["first"].kind,
        seeded["first"].recorded_at,
    )
    _assert_no_canary(any_mem, seeded)
    # the log says what happened, with the reason and no content
    purge_events = [e for e in any_mem.events(scope=SCOPE) if e.type == "memory.purged"]
    assert len(purge_events) == 1
    assert purge_events[0].payload == {
        "id": purged.id,
        "ids": sorted([seeded["first"].id, purged.id]),
        "copies": [],
        "kept": [],
        "reason": "GDPR erasure request",
    }
    # every earlier event keeps its place, id and type (the log's shape survives)
    assert [e.type for e in any_mem.events(scope=SCOPE)][:3] == [
        "memory.remembered",
        "memory.remembered",
        "edge.linked",
    ]
    # the bystander keeps its own content; only a query that quoted the canary is erased
    kept = any_mem.get(bystander.id, scope=SCOPE)
    assert (kept.text, kept.tags, kept.meta, kept.is_current) == ("Bob likes green tea", ("drinks",), {"turn": 2}, True)
    assert kept.last_used_query in (None, REDACTED)
    assert [h.item.id for h in any_mem.recall("green tea", scope=SCOPE)][:1] == [bystander.id]


def test_rebuild_after_purge_gives_the_same_projections(any_mem: Memory, clock: ManualClock) -> None:
    seeded = _seed(any_mem, clock)
    any_mem.forget(seeded["current"].id, scope=SCOPE, purge=True)
    before = state_of(any_mem)
    vectors_before = any_mem.store.vectors(SCOPE, current_only=False)
    any_mem.rebuild()
    assert state_of(any_mem) == before
    ids, mat = any_mem.store.vectors(SCOPE, current_only=False)
    order = [vectors_before[0].index(i) for i in ids]
    assert sorted(ids) == sorted(vectors_before[0]) and (mat == vectors_before[1][order]).all()
    assert any_mem.doctor().ok
    _assert_no_canary(any_mem, seeded)


def test_purge_of_an_already_forgotten_item_erases_its_history(any_mem: Memory) -> None:
    item = any_mem.remember(f"old address {CANARY}", scope=SCOPE, meta={"a": CANARY})
    any_mem.forget(item.id, scope=SCOPE, reason=f"moved from {CANARY}")
    closed_at = any_mem.get(item.id, scope=SCOPE).closed_at
    purged = any_mem.forget(item.id, scope=SCOPE, purge=True)
    assert purged.text == REDACTED and purged.closed_at == closed_at and purged.status == "forgotten"
    assert CANARY.lower() not in _dump([e.to_dict() for e in any_mem.events(scope=SCOPE)])
    hits = any_mem.recall(CANARY, scope=SCOPE, include_history=True, record_use=False)
    assert all(h.item.id != item.id or h.item.text == REDACTED for h in hits)


def test_purging_twice_is_allowed_and_changes_nothing_visible(any_mem: Memory) -> None:
    item = any_mem.remember(f"token {CANARY}", scope=SCOPE)
    once = any_mem.forget(item.id, scope=SCOPE, purge=True)
    twice = any_mem.forget(item.id, scope=SCOPE, purge=True)  # a retry after a failed scrub
    assert twice.to_dict() | {"version": 0, "updated_at": None} == once.to_dict() | {"version": 0, "updated_at": None}
    assert [e.type for e in any_mem.events(scope=SCOPE)].count("memory.purged") == 2


def test_purge_of_an_id_in_another_scope_is_indistinguishable_from_a_missing_one(any_mem: Memory) -> None:
    theirs = any_mem.remember(f"bob's {CANARY}", scope=OTHER_SCOPE)
    missing = "01900000-0000-7000-8000-000000000000"
    with pytest.raises(NotFoundError) as foreign:
        any_mem.forget(theirs.id, scope=SCOPE, purge=True)
    with pytest.raises(NotFoundError) as absent:
        any_mem.forget(missing, scope=SCOPE, purge=True)
    assert foreign.value.message.replace(theirs.id, "ID") == absent.value.message.replace(missing, "ID")
    assert any_mem.get(theirs.id, scope=OTHER_SCOPE).text == f"bob's {CANARY}"
    assert not any(e.type == "memory.purged" for e in any_mem.events(scope=OTHER_SCOPE))


@pytest.mark.parametrize(
    ("kwargs", "error", "says"),
    [
        ({"purge": "yes"}, InvalidInputError, "purge must be True or False"),
        ({"purge": 1}, InvalidInputError, "purge must be True or False"),
        ({"purge": True, "expected_version": 7}, VersionConflictError, "not 7"),
        ({"purge": True, "reason": 5}, InvalidInputError, "reason"),
    ],
)
def test_bad_purge_input_is_refused_clearly_and_changes_nothing(
    any_mem: Memory, kwargs: dict[str, Any], error: type[ReverieError], says: str
) -> None:
    item = any_mem.remember(f"keep {CANARY}", scope=SCOPE)
    events = len(any_mem.events(scope=SCOPE))
    with pytest.raises(error, match=says):
        any_mem.forget(item.id, scope=SCOPE, **kwargs)
    assert any_mem.get(item.id, scope=SCOPE).text == f"keep {CANARY}"
    assert len(any_mem.events(scope=SCOPE)) == events
    with pytest.raises(InvalidInputError):
        any_mem.forget("not an id", scope=SCOPE, purge=True)


def test_memory_is_usable_after_a_purge(any_mem: Memory) -> None:
    item = any_mem.remember(f"token {CANARY}", scope=SCOPE)
    any_mem.forget(item.id, scope=SCOPE, purge=True)
    again = any_mem.remember(f"token {CANARY}", scope=SCOPE)  # the value may be learned again
    assert again.id != item.id and again.is_current
    assert [h.item.id for h in any_mem.recall(CANARY, scope=SCOPE)] == [again.id]
    revised = any_mem.revise(again.id, "token rotated", scope=SCOPE)
    assert any_mem.get(revised.id, scope=SCOPE).text == "token rotated"


def test_purge_works_while_learning_is_paused(any_mem: Memory) -> None:
    item = any_mem.remember(f"token {CANARY}", scope=SCOPE)
    any_mem.pause_learning(SCOPE)
    assert any_mem.forget(item.id, scope=SCOPE, purge=True).text == REDACTED


def test_purging_a_dismissed_item_seals_its_tombstone(any_mem: Memory) -> None:
    """A tombstone is the value's normalised text: it becomes a digest, and still refuses the value."""
    item = any_mem.remember(f"token {CANARY}", scope=SCOPE)
    any_mem.dismiss(item.id, scope=SCOPE, reason=f"wrong {CANARY}")
    assert CANARY.lower() in _dump(any_mem.store.tombstones(SCOPE))
    any_mem.forget(item.id, scope=SCOPE, purge=True)
    assert [(fp.startswith("sealed:"), holder) for fp, holder in any_mem.store.tombstones(SCOPE)] == [(True, item.id)]
    assert CANARY.lower() not in _dump(any_mem.store.tombstones(SCOPE))
    assert CANARY.lower() not in _dump([e.to_dict() for e in any_mem.events(scope=SCOPE)])
    with pytest.raises(DismissedValueError):
        any_mem.remember(f"token {CANARY}", scope=SCOPE)


def test_items_derived_from_a_purged_item_keep_their_own_text(any_mem: Memory) -> None:
    parent = any_mem.remember(f"token {CANARY}", scope=SCOPE)
    child = any_mem.remember(f"a summary quoting {CANARY}", scope=SCOPE, parents=[parent.id])
    any_mem.forget(parent.id, scope=SCOPE, purge=True)
    kept = any_mem.get(child.id, scope=SCOPE)
    assert kept.text == f"a summary quoting {CANARY}" and kept.parents == (parent.id,)
    any_mem.forget(child.id, scope=SCOPE, purge=True)  # the caller purges derived items explicitly
    assert CANARY.lower() not in _dump([e.to_dict() for e in any_mem.events(scope=SCOPE)])


def test_purge_does_not_touch_a_claim_it_superseded_by_conflict_resolution(any_mem: Memory) -> None:
    """Only revise links versions of one claim; ``supersede`` joins two different claims."""
    loser = any_mem.remember("Alice lives in Paris", scope=SCOPE)
    winner = any_mem.remember(f"Alice lives in Rome {CANARY}", scope=SCOPE)
    edge = any_mem.link(loser.id, winner.id, "contradicts", scope=SCOPE)
    any_mem.resolve(edge.id, keep=winner.id, scope=SCOPE)
    any_mem.forget(winner.id, scope=SCOPE, purge=True)
    assert any_mem.get(loser.id, scope=SCOPE).text == "Alice lives in Paris"


def test_cli_forget_purge(tmp_path: Path) -> None:
    head = ["--db", str(tmp_path / "cli.db"), "--embedder", "hash", "--scope", SCOPE]
    env: dict[str, str | None] = {"REVERIE_DB": None, "REVERIE_SCOPE": None, "REVERIE_EMBEDDER": None}
    runner = CliRunner()
    made = runner.invoke(cli, [*head, "--json", "remember", f"token {CANARY}"], env=env)
    item_id = json.loads(made.stdout)["item"]["id"]
    out = runner.invoke(cli, [*head, "forget", item_id, "--purge", "--reason", "leaked"], env=env)
    assert out.exit_code == 0 and out.stdout.strip() == f"purged {item_id}", out.output
    shown = runner.invoke(cli, [*head, "--json", "show", item_id], env=env)
    assert json.loads(shown.stdout)["item"]["text"] == REDACTED
    assert CANARY.lower() not in runner.invoke(cli, [*head, "export"], env=env).stdout.lower()
    helped = runner.invoke(cli, ["forget", "--help"], env=env)
    assert "--purge" in helped.stdout


# -- properties: rebuild and the reference store agree with a live purge --------------------------------------

TEXTS = [f"alpha {CANARY}", "beta gamma", f"gamma {CANARY} delta", "delta"]
OPS = ["remember", "revise", "forget", "purge", "dismiss", "undismiss", "link", "use", "tier"]


def _apply(mem: Memory, clock: ManualClock, ops: list[tuple[str, int, int, int]]) -> list[str]:
    ids: list[str] = []
    outcomes: list[str] = []
    for op, t, i, j in ops:
        clock.advance(seconds=1)
        text = TEXTS[t % len(TEXTS)]
        pick = (lambda n: ids[n % len(ids)]) if ids else None
        try:
            if op == "remember" or pick is None:
                ids.append(mem.remember(text, scope=SCOPE, tags=[text.split()[0]], meta={"t": text}).id)
            elif op == "revise":
                ids.append(mem.revise(pick(i), text, scope=SCOPE, reason=text).id)
            elif op == "forget":
                mem.forget(pick(i), scope=SCOPE, reason=text)
            elif op == "purge":
                mem.forget(pick(i), scope=SCOPE, purge=True)
            elif op == "dismiss":
                mem.dismiss(pick(i), scope=SCOPE, reason=text)
            elif op == "undismiss":
                mem.undismiss(text, scope=SCOPE)
            elif op == "link":
                mem.link(pick(i), pick(j), "supports", scope=SCOPE, meta={"why": text})
            elif op == "use":
                mem.record_use(SCOPE, [(pick(i), 0.5), (pick(j), 0.25)], text)
            elif op == "tier":
                mem.set_tier(pick(i), "durable", scope=SCOPE, reason=text)
            outcomes.append("ok")
        except ReverieError as err:
            outcomes.append(type(err).__name__)
    return outcomes


@settings(max_examples=40, deadline=None, suppress_health_check=[HealthCheck.too_slow])
@given(
    ops=st.lists(
        st.tuples(st.sampled_from(OPS), st.integers(0, 3), st.integers(0, 20), st.integers(0, 20)),
        min_size=1,
        max_size=25,
    )
)
def test_purge_agrees_between_sqlite_and_reference_and_survives_rebuild(ops: list[tuple[str, int, int, int]]) -> None:
    with tempfile.TemporaryDirectory() as tmp:
        clocks = ManualClock(START), ManualClock(START)
        with (
            Memory(Path(tmp) / "p.db", embedder="hash", clock=clocks[0], seed=5, durability="fast") as lite,
            Memory(store=ReferenceStore(), embedder="hash", clock=clocks[1], seed=5) as ref,
        ):
            assert _apply(lite, clocks[0], ops) == _apply(ref, clocks[1], ops)
            live = state_of(lite)
            assert live == state_of(ref)
            for mem in (lite, ref):
                mem.rebuild()
                assert state_of(mem) == live
                assert mem.doctor().ok
            purged = [i for i in live["items"] if "purged" in i["flags"]]
            assert all(i["text"] == REDACTED and not i["tags"] and not i["meta"] for i in purged)


def test_purge_events_are_pinned_in_the_event_vocabulary() -> None:
    from reverie.model.events import EVENT_TYPES, PURGED

    assert PURGED == "memory.purged" and PURGED in EVENT_TYPES


def test_purge_of_a_claim_with_hundreds_of_versions_erases_what_quotes_any_of_them(
    any_mem: Memory, clock: ManualClock
) -> None:
    """Past 200 versions the search for events quoting a version takes one pass over the log
    (``store/*/purge.py::_quoting``, probe 3 finding 17: it was quadratic in the versions); it must
    still find every event about an early, a middle and the last version."""
    first = any_mem.remember(f"Build status is 0 ({CANARY})", scope=SCOPE)
    other = any_mem.remember("Bob likes green tea", scope=SCOPE)
    any_mem.link(first.id, other.id, "about", scope=SCOPE, meta={"note": f"first quotes {CANARY}"})
    current = first
    for i in range(1, 251):
        clock.advance(seconds=1)
        current = any_mem.revise(current.id, f"Build status is {i} ({CANARY})", scope=SCOPE, reason=f"r{i} {CANARY}")
        if i == 125:
            any_mem.set_scores(current.id, scope=SCOPE, reason=f"middle {CANARY}", importance=0.9)
    assert any_mem.recall(CANARY, scope=SCOPE, k=3)  # a used query naming the newest version
    any_mem.forget(current.id, scope=SCOPE, purge=True, reason="gdpr")
    events = any_mem.events(scope=SCOPE)
    assert not [e.type for e in events if CANARY.lower() in _dump(e.payload)]
    assert not [e.meta for e in any_mem.edges(scope=SCOPE, include_closed=True) if CANARY.lower() in _dump(e.meta)]
    assert any_mem.get(other.id, scope=SCOPE).text == "Bob likes green tea"
