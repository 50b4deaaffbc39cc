"""A small, realistic scope for looking at the review page: a person's assistant after a few
weeks — facts, preferences and episodes, a correction, a contradiction, derived items, a
dismissed value and two dream passes. Deterministic (the suite's ``ManualClock``), so the
screenshots taken from it are comparable run to run; ``docs/review-page.png`` is one of them.
"""

from __future__ import annotations

from dataclasses import dataclass
from datetime import timedelta

from reverie import ManualClock, Memory
from reverie.model.item import Item

SCOPE = "user:alice"


@dataclass
class Demo:
    """The items a test wants to open by name."""

    allergy: Item
    city: Item
    tea: Item
    derived: Item
    dismissed: Item


def populate(mem: Memory, clock: ManualClock, scope: str = SCOPE) -> Demo:
    allergy = mem.remember(
        "Alice is allergic to peanuts",
        scope=scope,
        kind="assertion",
        source="user_stated",
        key="alice.allergy",
        value="peanuts",
        importance=0.9,
    )
    mem.remember_many(
        [
            {"text": "Alice prefers window seats on long flights", "kind": "trait"},
            {"text": "Alice's team ships the billing service on Thursdays", "kind": "semantic"},
            {"text": "Had lunch with Alice at the Thai place on Friday", "kind": "episodic"},
            {"text": "Alice is training for the Berlin marathon", "kind": "episodic", "source": "user_stated"},
        ],
        scope=scope,
    )
    clock.advance(days=4)
    city = mem.remember("Alice lives in Paris", scope=scope, kind="assertion", key="alice.city", value="Paris")
    mem.remember("Never book Alice on flights before 7 am", scope=scope, kind="policy", source="user_stated")
    tea = mem.remember("Alice drinks green tea every morning", scope=scope, kind="trait")
    mem.remember("Alice drinks green tea every morning at home", scope=scope, kind="trait", source="inferred")
    mem.remember("Every morning Alice drinks green tea", scope=scope, kind="trait", source="inferred")
    clock.advance(days=6)
    mem.dream(scope=scope)
    derived = mem.remember(
        "Alice avoids Thai dishes with peanut sauce",
        scope=scope,
        kind="derivation",
        source="inferred",
        parents=[allergy.id],
    )
    mem.link(derived.id, allergy.id, "supports", scope=scope)
    clock.advance(days=5)
    city = mem.revise(city.id, "Alice lives in Lyon", scope=scope, reason="she moved in March", value="Lyon")
    mem.remember("Alice lives in Berlin", scope=scope, kind="assertion", source="inferred")
    dismissed = mem.remember("Alice hates jazz", scope=scope, source="inferred")
    mem.dismiss(dismissed.id, scope=scope, reason="a joke she made, not a preference")
    mem.remember("Alice asked for vegetarian options at the offsite", scope=scope, kind="episodic")
    mem.promote(allergy.id, scope=scope, to="durable", reason="a health fact: never let it fade")
    mem.remember("Alice works at Acme", scope=scope, kind="assertion", valid_from=clock.now() - timedelta(days=200))
    clock.advance(days=9)
    for query in ("what is Alice allergic to", "where does Alice live", "Alice flights", "Alice tea"):
        mem.recall(query, scope=scope, k=2)  # the agent uses some memories: they stay active
    clock.advance(days=24)
    mem.dream(scope=scope)
    clock.advance(hours=3)
    return Demo(allergy=allergy, city=city, tea=tea, derived=derived, dismissed=dismissed)
