"""People and the dream pass: a person record stays while current claims are about it."""

from __future__ import annotations

from pathlib import Path

from reverie import Memory
from reverie.dream import DreamConfig

SCOPE = "user:alice"
#: Tight, yet above the scope's load-bearing core (the message log claims derive from, the two
#: person records): consolidated race claims are ranked with the rest since outside probe 6, so a
#: budget of 8 forgot every claim about Dana and these tests no longer tested anything.
BUDGET = 20


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
    mem.dream(scope=SCOPE, config=DreamConfig(keep_budget=BUDGET))
    current = {i.id: i for i in mem.list(scope=SCOPE, limit=1000).items}
    about = [e for e in mem.edges(scope=SCOPE) if e.type == "about" and e.src in current]
    assert about, "no claim about anyone survived: the test no longer tests anything"
    assert all(e.dst in current for e in about)
    known = {n for p in mem.people(scope=SCOPE) for n in (p.name, *p.aliases)}
    assert {current[e.dst].text for e in about} <= known


def test_regression_keep_budget_keeps_a_person_whose_claims_were_all_revised(mem: Memory) -> None:
    """Session 31: ``about`` edges stay on the version extraction linked; once every claim about
    Dana (and Alice) was revised, no current claim pointed at their records, so a tight
    keep-budget forgot both and ``mem.person("Dana")`` was not found while claims about her stood."""
    conv = mem.conversation("c", scope=SCOPE)
    conv.add("My sister Dana lives in Lisbon.", speaker="Alice")
    for i in range(12):
        conv.add(f"Dana ran race number {i} this year.", speaker="Alice")
    conv.close()
    for claim in mem.person("Dana", scope=SCOPE).claims:
        mem.revise(claim.id, claim.text.rstrip(".") + " indeed.", scope=SCOPE)
    mem.dream(scope=SCOPE, config=DreamConfig(keep_budget=BUDGET))
    dana = mem.person("Dana", scope=SCOPE)
    assert dana.claims, "no claim about Dana survived: the test no longer tests anything"
    assert {p.name for p in mem.people(scope=SCOPE)} == {"Alice", "Dana"}


def test_keep_budget_keeps_a_revised_name_while_claims_are_about_it(mem: Memory) -> None:
    conv = mem.conversation("c", scope=SCOPE)
    conv.add("My sister Dana lives in Lisbon.", speaker="Alice")
    for i in range(12):
        conv.add(f"Dana ran race number {i} this year.", speaker="Alice")
    conv.close()
    mem.revise(mem.person("Dana", scope=SCOPE).id, "Dana Smith", scope=SCOPE)
    mem.dream(scope=SCOPE, config=DreamConfig(keep_budget=BUDGET))
    assert mem.person("Dana Smith", scope=SCOPE).claims


def test_keep_budget_follows_a_revised_claims_current_persons_not_its_first(tmp_path: Path) -> None:
    """Leftover of session 31: the dream counted a claim as resting on every person its *first*
    version was about. "Omar is Bob's manager." revised to "Priya is Bob's manager." is about Priya
    and Bob (its new version's own ``about`` links, ``people.follow``), yet Omar's record stayed
    load-bearing, spared by the keep-budget although no current claim is about him. Real SQLite."""
    mem = Memory(tmp_path / "dream.db", embedder="hash")
    conv = mem.conversation("c", scope=SCOPE)
    conv.add("Omar is Bob's manager.", speaker="Alice")
    for i in range(10):
        conv.add(f"Bob ran race number {i} this year.", speaker="Alice")
    conv.close()
    (claim,) = mem.person("Omar", scope=SCOPE).claims
    mem.revise(claim.id, "Priya is Bob's manager.", scope=SCOPE)
    names = {p.id: p.name for p in mem.people(scope=SCOPE)}
    assert {"Omar", "Bob", "Priya"} <= set(names.values())

    report = mem.dream(scope=SCOPE, dry_run=True, config=DreamConfig(keep_budget=3))
    spared = {names[s["id"]] for s in report.spared if s["id"] in names and "load-bearing" in s["reason"]}
    assert "Omar" not in spared
    assert {"Bob", "Priya"} <= spared  # the current version rests on its own persons

    mem.dream(scope=SCOPE, config=DreamConfig(keep_budget=3))
    left = {p.name for p in mem.people(scope=SCOPE)}
    assert "Omar" not in left and {"Bob", "Priya"} <= left
    mem.close()
