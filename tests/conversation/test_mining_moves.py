"""A move the speaker reports as done also says where they live now (outside probe 7, finding 2):
"Correction: I moved to Denver." after "I live in Boston." was only "Alice moved to Denver.", a
change over time the rules rightly do not call a conflict, so Boston stayed believed. Through
``Memory`` on a real SQLite file.
"""

from __future__ import annotations

import pytest

from reverie import ManualClock, Memory

SCOPE = "user:alice"


def close_session(mem: Memory, *texts: str, name: str = "chat") -> list[str]:
    conv = mem.conversation(name, scope=SCOPE)
    for text in texts:
        conv.add(text, speaker="Alice", role="user")
    closed = conv.close()
    assert closed.extraction is not None
    return [mem.get(i, scope=SCOPE).text for i in closed.extraction.claims]


@pytest.mark.parametrize(
    "said",
    [
        "Correction: I moved to Denver.",
        "I moved to Denver.",
        "I've just moved to Denver.",
        "I relocated to Denver last month.",
        "I moved back to Denver.",
    ],
)
def test_a_move_says_where_the_speaker_lives_and_meets_the_old_residence(
    mem: Memory, clock: ManualClock, said: str
) -> None:
    close_session(mem, "I live in Boston.")
    clock.advance(days=20)
    mined = close_session(mem, said, name="later")
    assert "Alice lives in Denver." in mined
    pairs = {frozenset((c.a.text, c.b.text)) for c in mem.contradictions(scope=SCOPE)}
    assert frozenset(("Alice lives in Boston.", "Alice lives in Denver.")) in pairs


@pytest.mark.parametrize(
    "said",
    [
        "I moved to Google.",  # an employer, not a place
        "I moved to Marketing last year.",  # a team
        "I moved to Denver in 2010.",  # a dated move says nothing of now
        "I'm moving to Denver next month.",  # a plan
        "I might move to Denver.",  # a hedge
        "Dana moved to Denver.",  # someone else's move is hearsay: left as said
    ],
)
def test_what_is_no_present_residence_stays_as_said(mem: Memory, said: str) -> None:
    mined = close_session(mem, said)
    assert not any(" lives in " in t for t in mined), mined
