"""Use is the signal value reinforcement, decay resets and graduation learn from: only hits the
legs really backed count (``reverie.recall.signals``), and ``context`` counts what it packed."""

from __future__ import annotations

import pytest

from reverie import Memory

S = "user:alice"
FACTS = [
    "The deploy pipeline runs on Jenkins",
    "Alice prefers green tea in the morning",
    "The office printer is on floor two",
    "Backups run every night at 2am",
]
QUERIES = [
    "which CI runs the deploy pipeline",
    "what tea does Alice drink",
    "where is the printer",
    "when do the backups run",
    "which floor has the office printer",
]


def test_unrelated_episodic_memory_in_weak_tails_does_not_graduate(mem: Memory) -> None:
    """Regression: every returned hit counted as used, so an unrelated episodic memory that sat in
    the tail of three unrelated recalls was used three times and graduated to semantic."""
    umbrella = mem.remember("Yesterday I bought a blue umbrella at the market", scope=S, kind="episodic").id
    for text in FACTS:
        mem.remember(text, scope=S)
    in_tail = 0
    for q in QUERIES:
        hits = mem.recall(q, scope=S, k=10)
        ids = [h.item.id for h in hits]
        in_tail += umbrella in ids[1:]
        assert hits[0].item.text in FACTS
    assert in_tail >= 3  # the setting of the bug: it was returned, in the tail, at least three times
    item = mem.get(umbrella, scope=S)
    assert (item.kind, item.use_count, item.last_used_at) == ("episodic", 0, None)
    assert item.scores.value == pytest.approx(0.5)  # no reinforcement either


def test_the_hit_that_answers_is_still_used_and_graduates(mem: Memory) -> None:
    """The floor keeps the signal: an episodic memory that *answers* three recalls graduates."""
    trip = mem.remember("I flew to Lisbon for the conference in May", scope=S, kind="episodic").id
    for text in FACTS:
        mem.remember(text, scope=S)
    for q in ["when did I fly to Lisbon", "the Lisbon conference trip", "which conference in May"]:
        hits = mem.recall(q, scope=S, k=10)
        assert hits[0].item.id == trip
    item = mem.get(trip, scope=S)
    assert (item.kind, item.use_count) == ("semantic", 3)


@pytest.mark.parametrize("mode", ["lexical", "dense", "hybrid"])
def test_each_mode_marks_the_weak_tail_as_not_used(mem: Memory, mode: str) -> None:
    for text in FACTS:
        mem.remember(text, scope=S)
    hits = mem.recall("where is the office printer", scope=S, k=10, mode=mode, record_use=False)
    assert hits[0].item.text == "The office printer is on floor two"
    assert hits[0].why["counts_as_use"]
    tail = [h for h in hits[1:] if h.why["counts_as_use"]]
    assert tail == []
    # what decided it is in why: the legs' shares of each hit, and its strength
    assert (
        set(hits[0].why["shares"]) == {"lexical": {"lexical"}, "dense": {"dense"}, "hybrid": {"lexical", "dense"}}[mode]
    )
    assert hits[0].why["strength"] == pytest.approx(1.0)


def test_context_records_use_only_for_the_items_it_packed(mem: Memory) -> None:
    """Regression: context() recalled 50 items and recorded all of them as used, even when the
    budget let one line into the prompt."""
    texts = [f"Alice's printer note {i}: the printer on floor {i} needs toner" for i in range(6)]
    ids = [mem.remember(t, scope=S).id for t in texts]
    block = mem.context("printer toner floor", scope=S, budget_tokens=40)
    packed = [i for i, t in zip(ids, texts, strict=True) if t in block]
    assert len(packed) == 1  # one line fitted the budget
    used = {i for i in ids if mem.get(i, scope=S).use_count > 0}
    assert used == set(packed)


def test_context_with_record_use_false_records_nothing(mem: Memory) -> None:
    ids = [mem.remember(f"The printer on floor {i} needs toner", scope=S).id for i in range(3)]
    assert "toner" in mem.context("printer toner", scope=S, budget_tokens=400, record_use=False)
    assert all(mem.get(i, scope=S).use_count == 0 for i in ids)
