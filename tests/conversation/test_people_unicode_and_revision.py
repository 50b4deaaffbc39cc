"""A person keeps their claims through corrections, and one name is one person in any Unicode spelling.

Outside probe 3:
- finding 8: ``revise`` of a claim mined about Dana made a new version with no ``about`` link, so
  ``person("Dana").claims`` and ``people()[...].claim_count`` dropped it. The person's claims are
  now the current versions of the claims linked to them (a revised claim is followed to its
  correction).
- finding 9: "José" typed precomposed (NFC) and decomposed (NFD, as macOS gives) became two
  persons, the second named "Jose" (the accent dropped), and ``person(NFD)`` found that one.
"""

from __future__ import annotations

import unicodedata

from reverie import Memory

S = "user:alice"


def _nfd(text: str) -> str:
    return unicodedata.normalize("NFD", text)


def test_a_revised_claim_stays_one_of_the_persons_claims(any_mem: Memory) -> None:
    conv = any_mem.conversation("c1", scope=S)
    conv.add("My sister Dana lives in Porto.", speaker="Alice", role="user")
    conv.add("Dana works at Zentrix as a nurse.", speaker="Alice", role="user")
    conv.close()
    before = {c.text: c for c in any_mem.person("Dana", scope=S).claims}
    count = {p.name: p.claim_count for p in any_mem.people(scope=S)}["Dana"]
    old = before["Dana works at Zentrix as a nurse."]
    new = any_mem.revise(old.id, "Dana works at Medline as a nurse.", scope=S)
    newer = any_mem.revise(new.id, "Dana works at Medline as a surgeon.", scope=S)
    after = [c.text for c in any_mem.person("Dana", scope=S).claims]
    assert "Dana works at Medline as a surgeon." in after
    assert old.text not in after and new.text not in after  # only the current version
    assert len(after) == len(before)
    assert {p.name: p.claim_count for p in any_mem.people(scope=S)}["Dana"] == count
    assert newer.id in {c.id for c in any_mem.person("Dana", scope=S).claims}


def test_a_claim_revised_into_one_the_person_already_has_is_counted_once(any_mem: Memory) -> None:
    conv = any_mem.conversation("c1", scope=S)
    conv.add("My sister Dana lives in Porto.", speaker="Alice", role="user")
    conv.add("Dana works at Zentrix as a nurse.", speaker="Alice", role="user")
    conv.close()
    claims = {c.text: c for c in any_mem.person("Dana", scope=S).claims}
    other = next(t for t in claims if "Porto" in t and "sister" not in t.split()[-1])
    any_mem.revise(claims["Dana works at Zentrix as a nurse."].id, other, scope=S)  # says what another says
    after = [c.text for c in any_mem.person("Dana", scope=S).claims]
    assert after.count(other) == 1 and len(after) == len(claims) - 1
    assert {p.name: p.claim_count for p in any_mem.people(scope=S)}["Dana"] == len(after)


def test_a_name_in_nfc_and_nfd_is_one_person(any_mem: Memory) -> None:
    conv = any_mem.conversation("c", scope=S)
    conv.add("My brother José lives in Porto.", speaker="Alice", role="user")
    conv.add(_nfd("My brother José works at Zentrix."), speaker="Alice", role="user")
    conv.close()
    names = [p.name for p in any_mem.people(scope=S)]
    assert sorted(names) == ["Alice", "José"]
    jose = any_mem.person(_nfd("José"), scope=S)
    assert jose.name == "José" and jose.id == any_mem.person("José", scope=S).id
    texts = " ".join(c.text for c in jose.claims)
    assert "Porto" in texts and "Zentrix" in texts


def test_a_speaker_in_nfd_and_nfc_is_one_person(any_mem: Memory) -> None:
    conv = any_mem.conversation("c", scope=S)
    conv.add("I live in Porto.", speaker="José", role="user")
    conv.add("I work at Zentrix.", speaker=_nfd("José"), role="user")
    conv.close()
    assert [p.name for p in any_mem.people(scope=S)] == ["José"]
