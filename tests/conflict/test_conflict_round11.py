"""Round 11 readings: a name that is also an English word, "all of it" inside a relation, a
numbered place a journey leaves from, people as a class.

What must hold:
- a word capitalised like a name in mid-sentence is a name even when its lower-case form is a
  word the paraphrase classes know ("written in Go", the game "Go"): before, "Go" was read as the
  verb of "went" and "is written in Go" / "is written in Java" — the issue's own example — was
  silent; capitals like "PhD" and "TTL" still name a concept;
- an adverb of "all of it" may split a two-word relation: "written entirely in Go" is "written
  in Go";
- a journey departs from one platform, gate or terminal: "departs from platform 4" / "leaves
  from platform 9" disagree, as two cities of departure do;
- people as a class ("wheelchair users", "visitors") are not another holder of what a place or
  service allows.
Look-alikes stay silent: another service; two shops; log lines numbered by which call they
report; "mostly" / "partly" (several languages); another train, another day, "used to",
"also"; a different numbered noun after "support call".
"""

from __future__ import annotations

import pytest
from conflict_pairs import conflicts_both_ways, silent_both_ways

from reverie.conflict import Claim, detect


@pytest.mark.parametrize(
    ("a", "b", "axis"),
    [
        ("The ledger service is written in Go.", "The ledger service is written in Kotlin.", "entity"),
        ("The ledger service is written entirely in Go.", "The ledger service is implemented in Kotlin.", "entity"),
        ("Mia's favourite board game is Go.", "Mia's favourite board game is Chess.", "entity"),
        ("The night train to Vienna departs from platform 7.", "The night train to Vienna leaves from platform 2.",
         "numeric"),
        ("The shuttle leaves from gate 14.", "The shuttle leaves from gate 3.", "numeric"),
        ("Our charter flight departed from Tromsø.", "Our charter flight departed from Bodø.", "entity"),
        ("The lower garden is accessible to wheelchairs.", "Wheelchair users cannot access the lower garden.",
         "polarity"),
    ],
)  # fmt: skip
def test_conflicts_are_found(a: str, b: str, axis: str) -> None:
    conflicts_both_ways(a, b, axis)


@pytest.mark.parametrize(
    ("a", "b"),
    [
        # Another service; a name in a shop's name; several languages at once.
        ("The ledger service is written in Go.", "The billing service is written in Kotlin."),
        ("Kai shops at Best Buy.", "Kai shops at Home Depot."),
        ("The ledger service is written mostly in Go.", "The ledger service is written partly in Kotlin."),
        # A number that says which call or which train, not where one thing leaves from.
        ("Logged support call 8812 from a customer in Porto.", "Logged support call 8820 from a customer in Porto."),
        ("The 7:05 train departs from platform 4.", "The 8:40 train departs from platform 6."),
        ("The bus to Leeds departs from stop 4.", "The bus to York departs from stop 9."),
        # Another day, another time, another member.
        ("The ferry departs from pier 2 on weekdays.", "The ferry leaves from pier 5 on Sundays."),
        ("The ferry used to depart from pier 2.", "The ferry leaves from pier 5."),
        ("Trains to Leeds depart from platform 4.", "Trains to Leeds also depart from platform 9."),
        # People as a class, but another place.
        ("The lower garden is accessible to wheelchairs.", "Wheelchair users cannot access the upper terrace."),
    ],
)
def test_look_alikes_stay_silent(a: str, b: str) -> None:
    silent_both_ways(a, b)


def test_capitals_that_spell_a_concept_stay_concepts() -> None:
    """ "PhD" is the doctorate however it is written: the dates of one doctorate still disagree."""
    found = detect(Claim("Umar finished his PhD in 2018."), Claim("Umar completed his doctorate in 2021."))
    assert found is not None and found.axis == "temporal"


@pytest.mark.parametrize(
    "correction",
    [
        "Alice doesn't live in Boston anymore, Alice lives in Denver.",
        "Alice doesn't live in Boston anymore, she lives in Denver.",
        "Alice doesn't live in Boston anymore, and she lives in Denver now.",
    ],
)
def test_a_correction_whose_clauses_both_deny_the_claim_is_a_conflict(correction: str) -> None:
    """Outside probe 7, finding 2: each clause alone conflicts with "Alice lives in Boston", and
    the whole said nothing, because only a single conflicting clause was reported."""
    found = detect(Claim("Alice lives in Boston."), Claim(correction))
    assert found is not None and found.axis in ("entity", "polarity")
    assert "2 clauses" in found.reason
    assert detect(Claim(correction), Claim("Alice lives in Boston.")) is not None


@pytest.mark.parametrize(
    ("a", "b"),
    [
        # Clauses of both claims conflicting: too loose to report (unchanged).
        ("Alice lives in Boston and works at Acme.", "Alice lives in Denver and works at Initech."),
        # A bare comma before a list, a place or an aside is not a clause.
        ("Alice lives in Boston.", "Alice lives in Boston, Massachusetts."),
        ("Alice works at Acme.", "Alice works at Acme, Initech's old rival."),
        ("Alice lives in Boston.", "Alice lives in Boston, Bob lives in Denver."),
    ],
)
def test_loose_compound_readings_stay_silent(a: str, b: str) -> None:
    silent_both_ways(a, b)


def test_a_verb_straight_onto_a_numbered_noun_names_which_thing() -> None:
    """Found by the identifier property (``test_conflict_labels``): "shipped" is a single-valued
    relation ("shipped to Lyon"), but "Shipped build 1" / "Shipped build 2" are two builds."""
    silent_both_ways("Shipped build 1.", "Shipped build 2.")
    silent_both_ways("Deployed release 14 to staging.", "Deployed release 15 to staging.")
