"""A recurring event's time of day or weekday, said twice in other words.

What must hold: two statements of one holder's schedule that give it two times of day, or two
weekdays when it happens once a week, conflict on the temporal axis whatever verbs they use;
look-alikes stay compatible — several weekdays of a class that may meet more than once, an
exception for some days against the usual hours, two phases, two frequencies, two holders, two
events of one holder, two past occasions, a hedge, one clock time said two ways.
"""

from __future__ import annotations

import pytest

from reverie.conflict import Claim, detect


@pytest.mark.parametrize(
    ("a", "b", "shown"),
    [
        ("The nightly export runs at 01:00.", "Exports start every night at 03:15.", ("01:00", "03:15")),
        ("The team retro happens once a week, on Thursdays.", "The team retro is held weekly on Mondays.",
         ("Thursdays", "Mondays")),
        ("Mira's Wednesday piano lesson starts at 4 pm.", "Mira's Wednesday piano lesson begins at 6 pm.",
         ("4 pm", "6 pm")),
        ("The invoice reconciliation runs once a week, on Tuesdays.",
         "Invoices are reconciled once a week, every Friday.", ("Tuesdays", "Friday")),
    ],
)  # fmt: skip
def test_two_slots_of_one_schedule_conflict(a: str, b: str, shown: tuple[str, str]) -> None:
    found = detect(Claim(text=a), Claim(text=b))
    assert found is not None and found.axis == "temporal", found
    assert [s.text for s in found.spans_a] == [shown[0]]
    assert [s.text for s in found.spans_b] == [shown[1]]
    assert all(a[s.start : s.end] == s.text for s in found.spans_a)  # spans index the text as written
    assert all(b[s.start : s.end] == s.text for s in found.spans_b)
    back = detect(Claim(text=b), Claim(text=a))
    assert back is not None and back.axis == "temporal"


@pytest.mark.parametrize(
    ("a", "b"),
    [
        ("The gym class runs on Mondays.", "The gym class runs on Thursdays."),  # may meet twice a week
        ("Ana's gym session is on Mondays at 7 am.", "Ana's gym session is on Fridays at 7 am."),
        ("The library opens at 7 am on Saturdays.", "The library opens at 9 am."),  # the exception and the rule
        ("The backup starts at 02:00.", "The backup finishes at 03:30."),  # two phases
        ("The nightly backup runs at 02:00.", "The weekly backup runs at 04:00."),  # two frequencies: two jobs
        ("The backup runs at 02:00.", "The backup is verified at 04:00."),  # two events of one holder
        ("Checked the pump at 08:00.", "Checked the pump at 14:00."),  # two occasions
        ("The staging deploy window opens at 13:00.", "The production deploy window opens at 09:00."),
        ("The standup might move to 10:00.", "The standup is at 09:30."),  # a hedge
        ("The report job runs at 6:30 pm.", "The report job runs at 18:30."),  # one time, two spellings
        ("The book club meets on the first Tuesday of the month.",
         "The book club meets on the last Friday of the month."),
        ("The backup runs at 02:00 and at 14:00.", "The backup runs at 02:00."),  # a second slot, not another value
    ],
)  # fmt: skip
def test_look_alikes_of_a_schedule_stay_compatible(a: str, b: str) -> None:
    assert detect(Claim(text=a), Claim(text=b)) is None
    assert detect(Claim(text=b), Claim(text=a)) is None


def test_sole_and_only_say_how_many_not_what_about() -> None:
    """ "sole" / "exclusively" are not a topic word: "Tomas's only bicycle" and "the sole bicycle
    Tomas owns" are one holder, so two makes conflict; two things each someone's only one do not."""
    found = detect(Claim("Tomas's only bicycle is a Cannondale."), Claim("The sole bicycle Tomas owns is a Trek."))
    assert found is not None and found.axis == "entity"
    assert detect(Claim("Tomas's only bicycle is a Trek."), Claim("Tomas's only car is a Volvo.")) is None
