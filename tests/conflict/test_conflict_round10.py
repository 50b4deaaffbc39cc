"""Round 10 readings: a trailing apposition, "until" an event the other claim dates, a height
said with "stands".

What must hold:
- "… Gatwick, his home airport" also says "his home airport is Gatwick", and "… Memcached, the
  session store" says "the session store is Memcached": a trailing apposition names the role
  of the name before it (with "his" / "her" / "its" / "their" only for a role that holds one
  value, "the" for any);
- "worked until his retirement in 2020" dates the retirement the other claim dates; "was sold
  until it was discontinued in 2022" dates the discontinuation;
- "stands 1.65 metres tall" is a height, as "is 1.80 m tall" is, not a place;
- "repaired the fence by herself" says nobody else did, as "alone" does;
- "was deployed without being reviewed" also says "was not reviewed", and denies only that:
  "shipped without being paid for" still says it was shipped.
Look-alikes stay silent: an apposition naming one of many ("Tom, her neighbour"), the same
value in the apposition, "until" a bare date (a state that ended, not an event), a height of
another holder, "stands in Oslo".
"""

from __future__ import annotations

import pytest
from conflict_pairs import conflicts_both_ways, silent_both_ways

from reverie.conflict import Claim, detect


@pytest.mark.parametrize(
    ("a", "b", "axis"),
    [
        ("Priya's home airport is Schiphol.", "Priya usually flies from Eindhoven, her home airport.", "entity"),
        ("Tomasz's hometown is Gdansk.", "Tomasz was raised in Poznan, his hometown.", "entity"),
        ("The message broker is RabbitMQ.", "Events are published to Kafka, the message broker.", "entity"),
        ("Helga retired in 2011.", "Helga taught full-time until her retirement in 2016.", "temporal"),
        ("The Zephyr model was discontinued in 2009.", "The Zephyr model sold well until it was discontinued in 2014.",
         "temporal"),
        ("Anouk is 1.72 m tall.", "Anouk stands 1.58 metres tall.", "numeric"),
        ("The Brandt tower stands 210 metres tall.", "The Brandt tower is 180 m high.", "numeric"),
        ("The garden fence was repaired by Jonas Berg.", "Lena Holt repaired the garden fence by herself.", "entity"),
        ("The migration script was reviewed.", "The migration script was deployed without being reviewed.", "polarity"),
    ],
)  # fmt: skip
def test_paraphrased_conflicts_are_found(a: str, b: str, axis: str) -> None:
    conflicts_both_ways(a, b, axis)


@pytest.mark.parametrize(
    ("a", "b"),
    [
        # One of many: a neighbour, a friend.
        ("Ana's neighbour is Bea.", "Ana met Tom, her neighbour."),
        ("Leo's friend is Sam.", "Leo went hiking with Max, his friend."),
        # The same value in the apposition.
        ("Priya's home airport is Schiphol.", "Priya usually flies from Schiphol, her home airport."),
        # "until" a date: a state that ended, not the dated event.
        ("Helga worked until 2011.", "Helga retired in 2016."),
        ("Helga lived in Graz until 2011.", "Helga moved to Linz in 2016."),
        # Another holder's height; a statue that stands somewhere.
        ("Anouk is 1.72 m tall.", "Anouk's brother stands 1.85 metres tall."),
        ("The statue stands 3 m tall.", "The statue stands in Oslo."),
        # Two may do one thing unless one did it "by herself"; living alone names nobody else.
        ("The garden fence was repaired by Jonas Berg.", "Lena Holt repaired the garden fence."),
        ("Lena Holt lives by herself.", "Jonas Berg lives by himself."),
        # "without being paid for" denies a second event, not the first (a false alarm before).
        ("The order was shipped.", "The order was shipped without being paid for."),
        ("The pull request was closed.", "The pull request was closed without being merged."),
        ("Tom left the restaurant.", "Tom left the restaurant without paying."),
    ],
)
def test_look_alikes_stay_silent(a: str, b: str) -> None:
    silent_both_ways(a, b)


def test_apposition_spans_point_at_the_name_in_the_original_text() -> None:
    a = "Priya's home airport is Schiphol."
    b = "Priya usually flies from Eindhoven, her home airport."
    found = detect(Claim(a), Claim(b))
    assert found is not None
    assert [s.text for s in found.spans_a] == ["Schiphol"]
    assert [s.text for s in found.spans_b] == ["Eindhoven"]
    assert all(b[s.start : s.end] == s.text for s in found.spans_b)
