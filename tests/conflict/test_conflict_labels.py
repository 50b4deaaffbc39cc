"""Numbers that label (which thing) vs numbers that measure (how much, when): issue #13 item 6.

A templated observation ("Checked the dashboard at 13:00, nothing unusual on panel 216.")
repeated with another panel number or another time is another observation, not a second value
of one attribute. The same identified thing given two quantities still conflicts.
"""

from __future__ import annotations

from hypothesis import given, settings
from hypothesis import strategies as st

from reverie.conflict import Claim, detect
from reverie.conflict.frame import analyse
from reverie.conflict.text import tokenize


def _conflict(a: str, b: str) -> str | None:
    found = detect(Claim(a), Claim(b))
    return None if found is None else found.axis


# ---- which numbers are labels --------------------------------------------------------------


def test_number_after_a_noun_or_numbering_mark_aligns_as_a_name() -> None:
    for text, digits in (
        ("nothing unusual on panel 216", "216"),
        ("deployed build #1234", "1234"),
        ("packed order No. 5512", "5512"),
        ("closed ticket number 881", "881"),
        ("the build uses Node 18", "18"),
    ):
        labels = [u for u in analyse(text).units if u.label]
        assert [u.text for u in labels] == [digits], text
        assert all(u.kind == "word" and u.qty is None for u in labels)


def test_numbers_that_measure_stay_quantities() -> None:
    for text in (
        "Alice is 34",
        "Alice turns 34 in May",
        "the patient, age 34, was discharged",
        "ticket PROJ-881 has priority 2",
        "the timeout is 30 s",
        "the rate limit is 100/min",
        "we need 3",
        "Alice, 34, lives in Paris",
        "the disk holds nearly 500 GB",
    ):
        units = analyse(text).units
        assert not any(u.label for u in units), text
        assert any(u.kind == "qty" for u in units), text


def test_codes_with_letters_or_a_leading_zero_part_are_one_word() -> None:
    for text, code in (("seat 14C", "14C"), ("invoice 2024-0113", "2024-0113"), ("flight BA117", "BA117")):
        tokens = tokenize(text)
        assert tokens[-1].text == code and tokens[-1].kind == "word"
    assert [t.text for t in tokenize("10M users, 5K rows, 90-110 ms")][:4] == ["10", "M", "users", "5"]


def test_numero_abbreviation_is_not_the_negation_no() -> None:
    """Regression: "order No. 5512" read "No" as a negation, a polarity conflict with "order 5512"."""
    assert _conflict("Packed order No. 5512 today.", "Packed order 5512 today.") is None
    assert _conflict("There is no order today.", "There is an order today.") == "polarity"


def test_count_noun_must_follow_its_number_directly() -> None:
    """Regression: "freezer 3: all normal" parsed as a count of "all" (3 vs 5 of them)."""
    assert (
        _conflict(
            "Temperature check at 07:00 on freezer 3: all normal.",
            "Temperature check at 07:00 on freezer 5: all normal.",
        )
        is None
    )


def test_base_form_verb_after_a_word_is_a_label_noun() -> None:
    """Regression: "build", "run" and "call" are verbs too, which kept "build 1234" a quantity."""
    assert _conflict("Deployed build 1234 to staging.", "Deployed build 1240 to staging.") is None
    assert _conflict("Answered support call 5521 today.", "Answered support call 5530 today.") is None
    assert _conflict("We need 3.", "We need 5.") == "numeric"


# ---- label differences -----------------------------------------------------------------------


def test_log_line_differing_in_panel_number_is_no_conflict() -> None:
    """Regression for issue #13: 300 such lines made 1,728 numeric contradiction pairs."""
    a = "Checked the dashboard at 13:00, nothing unusual on panel 216."
    assert _conflict(a, a.replace("216", "240")) is None


def test_label_in_a_single_valued_slot_still_conflicts_and_names_the_label() -> None:
    found = detect(Claim("The build uses Node 18."), Claim("The build uses Node 20."))
    assert found is not None and found.axis == "numeric"
    assert "'Node 18'" in found.reason and "'Node 20'" in found.reason
    assert [s.text for s in found.spans_a] == ["18"]
    assert _conflict("The service runs on Postgres 15.", "The service runs on Postgres 16.") == "numeric"
    assert _conflict("The payments service listens on port 8080.", "The payments service listens on port 9090.")


def test_gerund_noun_and_split_code_label_a_value_in_a_slot() -> None:
    """ "in building 4" is a building, not "building" the verb; "4B" splits as 4 + B (B is billions)."""
    found = detect(Claim("The team is in building 4."), Claim("The team is in building 6."))
    assert found is not None and "'building 4'" in found.reason
    found = detect(Claim("Alice lives in apartment 4B."), Claim("Alice lives in apartment 5A."))
    assert found is not None and "'apartment 4B'" in found.reason
    assert _conflict("The team is using 4.", "The team is using 6.") == "numeric"


def test_labelled_subject_is_one_specific_thing() -> None:
    assert _conflict("Room 12 is on floor 3.", "Room 12 is on floor 5.") == "numeric"
    assert _conflict("Order 5512 is in warehouse 3.", "Order 5512 is in warehouse 7.") == "numeric"


def test_numbering_noun_is_part_of_the_value_not_a_role() -> None:
    """ "number" names a single-valued role ("the phone number is …"), but not in "ticket number 881"."""
    assert _conflict("Called support about ticket number 881.", "Called support about ticket number 882.") is None
    assert _conflict("Alice's phone number is 555-1234.", "Alice's phone number is 555-9876.") == "entity"


# ---- times of day --------------------------------------------------------------------------


def test_time_of_day_in_a_past_report_is_when_it_happened() -> None:
    for template, (ta, tb) in (
        ("Checked the dashboard at {}, nothing unusual on panel 216.", ("09:15", "16:45")),
        ("The nightly backup of shard 4 finished at {}.", ("03:10", "03:40")),
        ("Server rack 12 was inspected at {}.", ("09:00", "15:00")),
        ("Reviewed build 1 at {}, nothing unusual.", ("00:00", "00:10")),  # found by the property below
    ):
        assert _conflict(template.format(ta), template.format(tb)) is None, template


def test_time_of_a_scheduled_event_or_a_stated_time_still_conflicts() -> None:
    assert _conflict("The meeting is at 3pm.", "The meeting is at 5pm.") == "temporal"
    assert _conflict("Maya's flight landed at 14:20.", "Maya's flight landed at 16:45.") == "temporal"
    assert _conflict("The outage was at 13:00.", "The outage was at 14:00.") == "temporal"
    assert _conflict("Flight BA117 departs at 09:40.", "Flight BA117 departs at 11:15.") == "temporal"


# ---- properties ------------------------------------------------------------------------------

_NOUNS = st.sampled_from(["panel", "room", "build", "order", "sensor", "ticket", "node", "locker", "bay", "job"])
_PAST = st.sampled_from(["Checked", "Restarted", "Cleaned", "Closed", "Reviewed", "Inspected", "Deployed", "Shipped"])
_REST = st.sampled_from(["", " at 13:00", " without errors", " for the audit", " after the alert", " at 07:45 today"])
_STATES = st.sampled_from(["was checked", "passed all tests", "reported nothing unusual", "was closed by Sven"])


@st.composite
def _ids(draw: st.DrawFn) -> tuple[str, str]:
    """Two different identifiers written the same way: 216, #216, No. 216, OPS-216, 216C."""
    x, y = draw(st.lists(st.integers(1, 99_999), min_size=2, max_size=2, unique=True))
    form = draw(st.sampled_from(["{}", "#{}", "No. {}", "OPS-{}", "{}C"]))
    return form.format(x), form.format(y)


@st.composite
def _templated(draw: st.DrawFn) -> tuple[str, str]:
    """One observation template, filled with two identifiers; nothing else differs."""
    noun, (ia, ib), rest = draw(_NOUNS), draw(_ids()), draw(_REST)
    if draw(st.booleans()):
        verb = draw(_PAST)
        template = f"{verb} {noun} {{}}{rest}."
    else:
        template = f"{noun.capitalize()} {{}} {draw(_STATES)}{rest}."
    return template.format(ia), template.format(ib)


_QUANTITIES = st.sampled_from(["weighs {} kg", "costs {} euros", "takes {} minutes", "holds {} items", "is {} cm wide"])


@settings(max_examples=150, deadline=None)
@given(_templated())
def test_changing_only_the_identifier_never_conflicts(pair: tuple[str, str]) -> None:
    a, b = pair
    assert detect(Claim(a), Claim(b)) is None, (a, b)


@settings(max_examples=150, deadline=None)
@given(_NOUNS, _ids(), _QUANTITIES, st.lists(st.integers(1, 5_000), min_size=2, max_size=2, unique=True))
def test_changing_a_quantity_of_the_same_identified_thing_conflicts(
    noun: str, ids: tuple[str, str], quantity: str, amounts: list[int]
) -> None:
    template = f"{noun.capitalize()} {ids[0]} {quantity}."
    a, b = template.format(amounts[0]), template.format(amounts[1])
    found = detect(Claim(a), Claim(b))
    assert found is not None and found.axis == "numeric", (a, b)


_CLOCK = st.tuples(st.integers(0, 23), st.sampled_from([0, 10, 15, 30, 45])).map(lambda t: f"{t[0]:02d}:{t[1]:02d}")


@settings(max_examples=100, deadline=None)
@given(_PAST, _NOUNS, _ids(), st.lists(_CLOCK, min_size=2, max_size=2, unique=True))
def test_changing_only_the_time_of_a_past_report_never_conflicts(
    verb: str, noun: str, ids: tuple[str, str], times: list[str]
) -> None:
    template = f"{verb} {noun} {ids[0]} at {{}}, nothing unusual."
    a, b = template.format(times[0]), template.format(times[1])
    assert detect(Claim(a), Claim(b)) is None, (a, b)


@settings(max_examples=100, deadline=None)
@given(
    st.sampled_from(["meeting", "standup", "flight", "demo", "interview"]),
    st.lists(_CLOCK, min_size=2, max_size=2, unique=True),
)
def test_changing_the_time_of_a_scheduled_event_conflicts(event: str, times: list[str]) -> None:
    template = f"The {event} is at {{}}."
    found = detect(Claim(template.format(times[0])), Claim(template.format(times[1])))
    assert found is not None and found.axis == "temporal"
