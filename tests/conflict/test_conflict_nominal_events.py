"""One event told as a verb and as a noun: "was signed on" / "the signing took place on".

What must hold: a dated once-only event said once with its verb and once with its noun
("diagnosed" / "diagnosis", "signed" / "signature", "completed" / "completion", "born" / "birth
year") disagrees when the two dates differ, whatever light verb dates the noun ("came", "took
place", "was") and whatever the tense of a birth, founding or death. Look-alikes stay silent:
another event of the same thing, another holder, the same date said twice, a phrase whose
light verb is the event itself ("came down"), and a value that may change with the tense.
"""

from __future__ import annotations

import pytest

from reverie.conflict import Claim, detect


@pytest.mark.parametrize(
    ("a", "b", "shown"),
    [
        ("Ines was diagnosed with asthma in 2011.", "Ines's asthma diagnosis came in 2014.", ("2011", "2014")),
        ("The Orla treaty was signed on 4 March.", "Signature of the Orla treaty took place on 9 May.",
         ("4 March", "9 May")),
        ("The Halden tunnel was completed in 1931.", "The Halden tunnel's completion came in 1936.",
         ("1931", "1936")),
        ("Tomasz was born in 1979.", "Tomasz's birth year is 1983.", ("1979", "1983")),
        ("The Vell choir was founded in 1911.", "The Vell choir dates from its founding in 1925.",
         ("1911", "1925")),
    ],
)  # fmt: skip
def test_one_event_as_verb_and_as_noun_conflicts(a: str, b: str, shown: tuple[str, str]) -> None:
    for first, second, pair in ((a, b, shown), (b, a, shown[::-1])):
        found = detect(Claim(text=first), Claim(text=second))
        assert found is not None and found.axis == "temporal", (first, second, found)
        assert [s.text for s in found.spans_a] == [pair[0]]
        assert [s.text for s in found.spans_b] == [pair[1]]


@pytest.mark.parametrize(
    ("a", "b"),
    [
        # another event of the same thing
        ("Ines was diagnosed with asthma in 2011.", "Ines's asthma treatment came in 2014."),
        ("The Orla treaty was signed on 4 March.", "Ratification of the Orla treaty took place on 9 May."),
        ("The Halden tunnel was completed in 1931.", "The Halden tunnel's renovation came in 1986."),
        # another holder
        ("Tomasz was born in 1979.", "Tomasz's daughter's birth year is 2008."),
        ("Ines was diagnosed with asthma in 2011.", "Ines's brother's asthma diagnosis came in 2014."),
        # the same date said twice
        ("The Orla treaty was signed on 4 March.", "Signature of the Orla treaty took place on 4 March."),
        ("Tomasz was born in 1979.", "Tomasz's birth year is 1979."),
        # "came down" is the event, not a light verb; same year
        ("The old bridge fell in 1990.", "The old bridge came down in 1990."),
        # a value that may change, told in two tenses
        ("The club had 40 members in 2010.", "The club has 75 members."),
    ],
)  # fmt: skip
def test_look_alikes_stay_compatible(a: str, b: str) -> None:
    assert detect(Claim(text=a), Claim(text=b)) is None
    assert detect(Claim(text=b), Claim(text=a)) is None
