"""What a closed conversation writes when people correct, deny and relate (outside probe 4, findings
10, 11, 15 and 17), through ``Memory`` on a real SQLite file.

- "Correction: I'm allergic to cashews, not peanuts." said in a later session was dropped: the old
  allergy stayed the only belief, with no conflict. Now it is mined and meets the old claim.
- "My sister Dana lives in Lisbon." was written "Alice's sister Dana lives in Lisbon.", and a later
  "Dana lives in Madrid." never met it (the possessive read as a second holder): both cities were
  current truth. Now Dana's fact is written in her name, the relation beside it.
- "…Kenji lives in Osaka, but that's not true." was a current fact about Kenji.
- "I slept badly." was written "Alice slepts badly." (and meants, learnts, lents, bets).
"""

from __future__ import annotations

from reverie import Memory, Q

SCOPE = "user:alice"


def close_session(mem: Memory, *texts: str, speaker: str = "Alice") -> list[str]:
    """One session of ``texts`` said by ``speaker``, closed; the texts of the claims it wrote."""
    conv = mem.conversation("chat", scope=SCOPE)
    for text in texts:
        conv.add(text, speaker=speaker, role="user")
    closed = conv.close()
    assert closed.extraction is not None
    return [mem.get(i, scope=SCOPE).text for i in closed.extraction.claims]


def conflicts(mem: Memory) -> set[frozenset[str]]:
    return {frozenset((c.a.text, c.b.text)) for c in mem.contradictions(scope=SCOPE)}


def test_a_labelled_correction_in_a_later_session_is_mined_and_meets_the_old_claim(mem: Memory) -> None:
    close_session(mem, "I'm allergic to peanuts.", "I live in Porto.")
    mined = close_session(mem, "Correction: I'm allergic to cashews, not peanuts.", "Update: I live in Berlin now.")
    assert mined == ["Alice is allergic to cashews, not peanuts.", "Alice lives in Berlin now."]
    found = conflicts(mem)
    assert frozenset(("Alice is allergic to peanuts.", "Alice is allergic to cashews, not peanuts.")) in found
    assert frozenset(("Alice lives in Porto.", "Alice lives in Berlin now.")) in found


def test_a_sisters_later_fact_meets_her_earlier_one(mem: Memory) -> None:
    assert close_session(mem, "My sister Dana lives in Lisbon.") == ["Dana is Alice's sister.", "Dana lives in Lisbon."]
    assert close_session(mem, "Dana lives in Madrid.") == ["Dana lives in Madrid."]
    assert frozenset(("Dana lives in Lisbon.", "Dana lives in Madrid.")) in conflicts(mem)
    dana = mem.person("Dana", scope=SCOPE)
    assert [(r.person_name, r.type, r.of_name) for r in dana.relations] == [("Dana", "sister", "Alice")]
    assert {"Dana lives in Lisbon.", "Dana lives in Madrid."} <= {c.text for c in dana.claims}


def test_where_does_alices_sister_live_still_finds_danas_own_fact(mem: Memory) -> None:
    close_session(mem, "I had pasta for lunch today.", "My sister Dana lives in Lisbon.", "I bought new shoes.")
    hits = mem.recall("where does Alice's sister live?", scope=SCOPE, k=3)
    about_dana = {c.id for c in mem.person("Dana", scope=SCOPE).claims}
    assert "Dana lives in Lisbon." in [h.item.text for h in hits if h.item.id in about_dana]


def test_a_denied_statement_is_not_a_fact_about_the_person(mem: Memory) -> None:
    mined = close_session(mem, "My friend told me that Kenji lives in Osaka, but that's not true.")
    assert not [t for t in mined if "Osaka" in t]
    claims = [i.text for i in mem.list(scope=SCOPE).items if "message" not in i.meta]  # not the message's memory
    assert not [t for t in claims if "Osaka" in t]
    hits = mem.recall("where does Kenji live?", scope=SCOPE)
    assert all(h.item.meta.get("message") for h in hits if "Osaka" in h.item.text)  # only the message itself


def test_irregular_pasts_are_stored_as_said(mem: Memory) -> None:
    said = ("I slept badly.", "I meant to call Dana.", "I learnt Spanish in Madrid.", "I lent my car to Tom.")
    close_session(mem, *said, "I bet 50 euros on the match.")
    stated = {i.text for i in mem.list(scope=SCOPE, where=Q.source("user_stated")).items}
    assert {
        "Alice slept badly.",
        "Alice meant to call Dana.",
        "Alice learnt Spanish in Madrid.",
        "Alice lent Alice's car to Tom.",
        "Alice bet 50 euros on the match.",
    } <= stated
