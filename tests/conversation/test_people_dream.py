"""People and the dream pass: a person record stays while current claims are about it."""

from __future__ import annotations

from reverie import Memory
from reverie.dream import DreamConfig

SCOPE = "user:alice"


def test_keep_budget_never_forgets_a_person_that_current_claims_are_about(mem: Memory) -> None:
    """Regression: ``about`` edges did not count as dependents, so a tight keep-budget forgot person
    records (bare names, low salience) while claims about them stayed, and ``mem.person`` lost them."""
    conv = mem.conversation("c", scope=SCOPE)
    conv.add("My sister Dana lives in Lisbon.", speaker="Alice")
    conv.add("She works as a nurse.", speaker="Alice")
    for i in range(12):
        # (These once yielded claims about a person "Filler" — the capitalised-first-word bug — and
        # the test leaned on them; now the fillers are claims about Dana on purpose.)
        conv.add(f"Dana ran race number {i} this year.", speaker="Alice")
    conv.close()
    mem.dream(scope=SCOPE, config=DreamConfig(keep_budget=8))
    current = {i.id: i for i in mem.list(scope=SCOPE, limit=1000).items}
    about = [e for e in mem.edges(scope=SCOPE) if e.type == "about" and e.src in current]
    assert about, "no claim about anyone survived: the test no longer tests anything"
    assert all(e.dst in current for e in about)
    known = {n for p in mem.people(scope=SCOPE) for n in (p.name, *p.aliases)}
    assert {current[e.dst].text for e in about} <= known
