"""What mining makes of a compound sentence, an adverb between "I" and its verb, and a speaker
introducing themself (outside probe 7, findings 3, 10 and 12), through ``Memory`` on a real
SQLite file.

- "I work at Acme and my sister Dana lives in Lisbon." was one claim, "Alice works at Acme and
  Alice's sister Dana lives in Lisbon.": the possessive the README says is never written, and a
  later "Dana lives in Porto." met nothing. Now each clause is mined on its own.
- "I no longer work at Acme" was "Alice noes longer work at Acme." (and "nows", "onlies",
  "rarelies", "nearlies"): the adverb took the verb's -s.
- "Hi, I'm Alice." said by Alice was the belief "Alice is Alice.".
"""

from __future__ import annotations

from reverie import ManualClock, Memory

SCOPE = "user:alice"


def close_session(mem: Memory, *texts: str, name: str = "chat", speaker: str = "Alice") -> list[str]:
    """One session of ``texts`` said by ``speaker``, closed; the texts of the claims it wrote."""
    conv = mem.conversation(name, scope=SCOPE)
    for text in texts:
        conv.add(text, speaker=speaker, role="user")
    closed = conv.close()
    assert closed.extraction is not None
    return [mem.get(i, scope=SCOPE).text for i in closed.extraction.claims]


def conflicts(mem: Memory) -> set[frozenset[str]]:
    return {frozenset((c.a.text, c.b.text)) for c in mem.contradictions(scope=SCOPE)}


def test_a_compound_sentence_gives_each_clause_its_own_claim(mem: Memory, clock: ManualClock) -> None:
    mined = close_session(mem, "I live in Boston and my sister Dana lives in Lisbon.")
    assert sorted(mined) == sorted(["Alice lives in Boston.", "Dana is Alice's sister.", "Dana lives in Lisbon."])
    clock.advance(days=3)
    assert close_session(mem, "Dana lives in Porto.", name="later") == ["Dana lives in Porto."]
    assert frozenset(("Dana lives in Lisbon.", "Dana lives in Porto.")) in conflicts(mem)


def test_the_probes_compound_sentence_writes_no_possessive(mem: Memory, clock: ManualClock) -> None:
    mined = close_session(mem, "I work at Acme and my sister Dana lives in Lisbon.")
    assert sorted(mined) == sorted(["Alice works at Acme.", "Dana is Alice's sister.", "Dana lives in Lisbon."])
    clock.advance(days=3)
    close_session(mem, "Dana lives in Porto.", name="later")
    assert frozenset(("Dana lives in Lisbon.", "Dana lives in Porto.")) in conflicts(mem)


def test_a_phrase_joined_by_and_is_no_clause_of_its_own(mem: Memory) -> None:
    mined = close_session(
        mem,
        "My husband and I live in Boston.",
        "I visited my mom and my sister Dana in Lisbon.",
        "I moved to Lisbon and I love it there.",
    )
    assert "Alice and Alice's husband live in Boston." not in mined  # never cut as "My husband." / "I live …"
    assert not any(t in ("Alice's husband.", "Alice's sister Dana in Lisbon.", "Alice loves it there.") for t in mined)
    assert "Alice moved to Lisbon and Alice loves it there." in mined  # "it there" points back: read whole


def test_an_adverb_after_i_leaves_the_verb_to_agree(mem: Memory) -> None:
    mined = close_session(
        mem,
        "I no longer work at Acme.",
        "Update: I now live in Denver.",
        "I only drink tea.",
        "I rarely drink coffee.",
        "I nearly missed the train.",
        "I seldom eat meat.",
        "I occasionally play chess.",
        "I really apply myself.",
    )
    assert sorted(mined) == sorted(
        [
            "Alice no longer works at Acme.",
            "Alice now lives in Denver.",
            "Alice only drinks tea.",
            "Alice rarely drinks coffee.",
            "Alice nearly missed the train.",
            "Alice seldom eats meat.",
            "Alice occasionally plays chess.",
            "Alice really applies Alice.",
        ]
    )


def test_two_clauses_of_the_speakers_joined_by_a_comma_are_two_claims(mem: Memory) -> None:
    mined = close_session(mem, "I don't drink coffee, I drink tea.", "Dana lives in Lisbon, I live in Boston.")
    assert mined[:2] == ["Alice doesn't drink coffee.", "Alice drinks tea."]
    assert "Alice lives in Boston." not in mined  # a comma after another's clause is no cut: read whole


def test_the_speaker_introducing_themself_is_no_claim(mem: Memory) -> None:
    assert close_session(mem, "Hi, I'm Alice.", "My name is Alice.", "I am Alice Smith.") == []
    assert [p.claim_count for p in mem.people(scope=SCOPE) if p.name == "Alice"] in ([], [0])
    assert close_session(mem, "Hi, I'm Alice, I work at Acme.", name="again") == ["Alice works at Acme."]


def test_what_a_speaker_says_they_are_is_still_mined(mem: Memory) -> None:
    mined = close_session(mem, "I'm a nurse.", "I'm Dana's sister.")
    assert "Alice is a nurse." in mined
    assert "Alice is Dana's sister." in mined
