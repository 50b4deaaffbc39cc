"""Mechanisms that generalise beyond word lists (issue #16): derivational families, values
anchored on their unit or event phase, compound claims read clause by clause, negative
prefixes over stems, comparisons, eras. Every example was written for these tests."""

from __future__ import annotations

import pytest

from reverie.conflict import Claim, detect
from reverie.conflict.claim_frame import frame_of
from reverie.conflict.clauses import clauses
from reverie.conflict.derive import base_form


def _axis(a: str, b: str) -> str | None:
    found = detect(Claim(a), Claim(b))
    return None if found is None else found.axis


# ---- derivational families ------------------------------------------------------------------


@pytest.mark.parametrize(
    ("word", "root"),
    [
        ("monthly", "month"),
        ("quarterly", "quarter"),
        ("daily", "day"),
        ("retirement", "retire"),
        ("closure", "clos"),
        ("deliveries", "deliver"),
        ("delivery", "deliver"),
        ("completion", "complet"),
        ("team", "team"),  # short words are left alone
        ("only", "only"),
    ],
)
def test_derivational_family_maps_noun_verb_and_ly_forms_to_one_root(word: str, root: str) -> None:
    assert base_form(word) == root


def test_a_noun_and_its_ly_adjective_meet_as_one_concept() -> None:
    a, b = "The quarterly budget was 2 million euros.", "The budget for the quarter came to 5 million euros."
    assert _axis(a, b) == "numeric"


def test_a_nominalised_event_meets_its_verb() -> None:
    assert _axis("Mira retired in 2011.", "Mira's retirement came in 2016.") == "temporal"


# ---- values anchored on their unit -----------------------------------------------------------


@pytest.mark.parametrize(
    ("a", "b"),
    [
        ("The VM disk is limited to 50 GB.", "The maximum disk size of the VM is set to 200 GB."),
        ("Hillcrest Stable has 12 horses.", "There are 30 horses at Hillcrest Stable."),
        ("The mailbox is limited to 2 GB.", "The maximum size of the mailbox is 5 GB."),  # holder after "of"
    ],
)
def test_one_measured_quantity_of_one_holder_said_with_other_words_conflicts(a: str, b: str) -> None:
    found = detect(Claim(a), Claim(b))
    assert found is not None and found.axis == "numeric"
    assert found.spans_a and found.spans_b  # the two amounts are shown


@pytest.mark.parametrize(
    ("a", "b"),
    [
        ("The upload timeout is 30 seconds.", "The download timeout is 90 seconds."),  # two modifiers, two slots
        ("The boat weighs 800 kg.", "The boat's engine weighs 120 kg."),  # a part of the holder
        ("The ticket costs 40 euros.", "The ticket price was cut by 10 euros."),  # an amount of change
        ("The ticket costs 40 euros.", "The ticket price is 10 euros higher than the bus fare."),  # a comparison
        ("The van holds 900 litres.", "Every van holds 1,200 litres."),  # "every": not this one
        ("The quarterly rent is 2,000 euros.", "The quarterly deposit is 3,000 euros."),  # another head noun
    ],
)
def test_measured_quantities_of_different_holders_or_differences_stay_compatible(a: str, b: str) -> None:
    assert detect(Claim(a), Claim(b)) is None


# ---- dated phases of one event ---------------------------------------------------------------


@pytest.mark.parametrize(
    ("a", "b"),
    [
        ("The clinic was founded in 1931.", "The clinic first opened its doors in 1950."),
        ("The contract ends on March 31.", "The contract expires on June 30."),
    ],
)
def test_the_same_phase_of_one_event_at_two_dates_conflicts(a: str, b: str) -> None:
    assert _axis(a, b) == "temporal"


@pytest.mark.parametrize(
    ("a", "b"),
    [
        ("The café opens at 7 am.", "The café closes at 7 pm."),  # start and end of the day
        ("The canal opened in 1869.", "The canal was closed in 1967."),
        ("The contract ends on March 31.", "The contract was signed on June 30."),  # no shared phase
        ("The plant opened in 1961.", "The plant's new wing opened in 1999."),  # another holder
    ],
)
def test_two_phases_or_two_holders_at_two_dates_stay_compatible(a: str, b: str) -> None:
    assert detect(Claim(a), Claim(b)) is None


# ---- a thing takes many attributes ----------------------------------------------------------


@pytest.mark.parametrize(
    ("a", "b"),
    [
        ("The printer is fast.", "The printer is quiet."),  # a thing takes many adjectives
        ("Omar's bike is green.", "Omar's bike is light."),  # a possessed thing, not an attribute
    ],
)
def test_a_thing_with_many_attributes_stays_compatible(a: str, b: str) -> None:
    assert detect(Claim(a), Claim(b)) is None


# ---- negative prefixes over stems ------------------------------------------------------------


def test_a_negative_prefix_on_an_irregular_form_negates_it() -> None:
    """ "paid" stems to "pay"; "unpaid" must still read as its negation."""
    assert _axis("The parking fine has been paid.", "The parking fine is still unpaid.") == "polarity"


# ---- compound claims -------------------------------------------------------------------------


def test_a_compound_claim_splits_into_clauses_with_the_subject_carried_over() -> None:
    parts = clauses("Dev left the choir and is not a member anymore.")
    assert [p.text for p in parts] == ["Dev left the choir.", "Dev is not a member anymore."]
    parts = clauses("Hugo's passport is Irish and he has no other citizenship.")
    assert parts[1].text == "Hugo has no other citizenship."


@pytest.mark.parametrize(
    "text",
    [
        "Ines speaks French, German, and Portuguese.",  # a list of values
        "Salt and pepper are on the table.",
        "If the build fails, the deploy stops and the team is paged.",  # a condition
        "The bakery was open until noon and then closed.",  # a timeline
    ],
)
def test_lists_conditions_and_timelines_are_not_split(text: str) -> None:
    assert clauses(text) == ()


def test_a_conflict_in_one_clause_is_found_and_points_into_the_original_text() -> None:
    a = "Lina sold her flat, and she lives in Porto now."
    found = detect(Claim(a), Claim("Lina lives in Braga."))
    assert found is not None and found.axis == "entity"
    assert found.reason.startswith("In one clause:")
    assert [s.text for s in found.spans_a] == ["Porto"]
    assert all(a[s.start : s.end] == s.text for s in found.spans_a)


def test_a_clause_conflict_is_symmetric() -> None:
    a, b = "The hall has 200 seats and the stage is 12 metres wide.", "The hall has 350 seats."
    one, two = detect(Claim(a), Claim(b)), detect(Claim(b), Claim(a))
    assert one is not None and two is not None
    assert (one.axis, one.spans_a, one.spans_b) == (two.axis, two.spans_b, two.spans_a)


def test_a_compound_claim_agreeing_in_every_clause_stays_compatible() -> None:
    a = "The payments service is written in Go and uses Postgres."
    assert detect(Claim(a), Claim("The payments service is written in Go.")) is None


# ---- frame details ---------------------------------------------------------------------------


def test_the_subject_head_is_its_last_noun_before_a_preposition() -> None:
    assert frame_of("The maximum heap size for the JVM is set to 8 GB.").head == "heap"
    assert frame_of("The rent for the studio is 900 euros.").head == "rent"
    assert frame_of("The car's engine is diesel.").head == "engin"


def test_a_comparison_after_a_quantity_is_marked() -> None:
    assert frame_of("The ticket is 10 euros cheaper than the fare.").compared
    assert not frame_of("The ticket costs more than 10 euros.").compared


# ---- decades, centuries and lone days of the month -------------------------------------------


@pytest.mark.parametrize(
    ("a", "b", "axis"),
    [
        ("The chapel was built in the 18th century.", "The chapel was built in 1911.", "temporal"),
        ("The band formed in the 1970s.", "The band formed in 1984.", "temporal"),
        ("The rent is due on the 1st.", "The rent is due on the 5th.", "temporal"),
    ],
)
def test_eras_and_lone_days_are_dates(a: str, b: str, axis: str) -> None:
    assert _axis(a, b) == axis


@pytest.mark.parametrize(
    ("a", "b"),
    [
        ("The chapel was built in the 18th century.", "The chapel was built in 1766."),  # inside the century
        ("The band formed in the 1970s.", "The band formed in 1974."),
        ("The clinic is on the 3rd floor.", "The clinic is on the 3rd floor of the annex."),
    ],
)
def test_a_year_inside_an_era_refines_it(a: str, b: str) -> None:
    assert detect(Claim(a), Claim(b)) is None


def test_an_age_in_decades_and_an_ordinal_floor_are_not_dates() -> None:
    from reverie.conflict.frame import analyse

    assert all(u.kind != "date" for u in analyse("She is in her 80s.").units)
    assert all(u.kind != "date" for u in analyse("The clinic is on the 5th floor.").units)


# ---- regressions found while probing the readings with new look-alikes ----------------------


@pytest.mark.parametrize(
    ("a", "b"),
    [
        ("The bridge is 300 m long.", "The bridge is 40 m high."),
        ("The pool is 25 metres long.", "The pool is 2 metres deep."),
        ("The room is 5 m wide.", "The room is 8 m long."),
    ],
)
def test_regression_two_lengths_along_different_axes_are_different_attributes(a: str, b: str) -> None:
    """The frame dropped "long" / "high" / "wide" / "deep" as mere measure words, so two
    lengths of one thing along different axes read as one value said twice."""
    assert detect(Claim(a), Claim(b)) is None


def test_the_same_axis_said_with_a_verb_or_an_adjective_still_conflicts() -> None:
    assert _axis("The bridge spans 1.2 km.", "The bridge is just 400 metres long.") == "numeric"
    assert _axis("The mast is 30 m high.", "The mast's height is 45 m.") == "numeric"


@pytest.mark.parametrize(
    ("a", "b"),
    [
        ("The museum charges 12 euros for adults.", "The museum charges 6 euros for children."),
        ("The laptop has 16 GB of memory.", "The laptop has 512 GB of storage."),
        ("The car holds 50 litres of fuel.", "The car holds 400 litres of luggage."),
    ],
)
def test_regression_a_quantity_qualified_by_different_words_is_another_slot(a: str, b: str) -> None:
    """What follows the amount ("for adults", "of storage") says what it measures."""
    assert detect(Claim(a), Claim(b)) is None


@pytest.mark.parametrize(
    ("a", "b"),
    [
        ("The car's engine is diesel.", "The car's engine is loud."),
        ("The kitchen floor is tiled.", "The kitchen floor is wet."),
        ("The family dog is a labrador.", "The family dog is a puppy."),
    ],
)
def test_two_adjectives_or_classes_of_one_thing_stay_compatible(a: str, b: str) -> None:
    assert detect(Claim(a), Claim(b)) is None


def test_he_and_she_are_not_the_same_subject() -> None:
    parts = clauses("She lives in Oslo and he lives in Bergen.")
    assert all(not p.text.startswith("She lives in Bergen") for p in parts)


@pytest.mark.parametrize(
    ("a", "b"),
    [
        ("Rosa finished school in 2009.", "Rosa finished her master's in 2015."),  # one phase, two events
        ("Paulo paid the invoice.", "Paulo's invoice for March is unpaid."),  # one names which invoice
        ("The order has been shipped.", "The third order is unshipped."),  # another member
        ("The office closes at 6 pm.", "The office closed early at 3 pm on Friday."),  # a habit vs one day
    ],
)
def test_regression_another_event_or_occasion_beside_a_paraphrase_stays_compatible(a: str, b: str) -> None:
    assert detect(Claim(a), Claim(b)) is None


# ---- ceasing as negation ---------------------------------------------------------------------


@pytest.mark.parametrize(
    ("a", "b"),
    [
        ("The gym still offers yoga.", "The gym has stopped offering yoga."),
        ("Sam has quit smoking.", "Sam smokes."),
    ],
)
def test_has_stopped_doing_negates_doing_now(a: str, b: str) -> None:
    found = detect(Claim(a), Claim(b))
    assert found is not None and found.axis == "polarity"
    assert any(s.text in {"stopped", "quit"} for s in (*found.spans_a, *found.spans_b))


@pytest.mark.parametrize(
    ("a", "b"),
    [
        ("Sam has quit smoking.", "Sam smoked in 2010."),  # before he quit
        ("Sam stopped at the bakery.", "Sam goes to the bakery."),  # "stopped" as an event, not a ceasing
    ],
)
def test_a_past_activity_or_a_dated_stop_is_no_present_negation(a: str, b: str) -> None:
    assert detect(Claim(a), Claim(b)) is None


# ---- bounds that state a rule ----------------------------------------------------------------


def test_two_minimums_of_one_rule_conflict() -> None:
    a, b = "The passphrase must be at least 16 characters.", "The passphrase must be at least 10 characters."
    assert _axis(a, b) == "numeric"


@pytest.mark.parametrize(
    ("a", "b"),
    [
        ("At least 200 people attended.", "At least 300 people attended."),  # two true lower bounds
        ("The hall seats at least 200 people.", "The hall seats at least 300 people."),
    ],
)
def test_two_bounds_stated_as_facts_may_both_hold(a: str, b: str) -> None:
    assert detect(Claim(a), Claim(b)) is None


def test_limits_disagree_compares_the_ends_of_same_direction_bounds() -> None:
    from reverie.conflict.numeric import limits_disagree, parse_value

    def q(text: str):  # type: ignore[no-untyped-def]
        value = parse_value(text)
        assert value is not None
        return value

    assert limits_disagree(q("at least 12 characters"), q("at least 8 characters"))
    assert limits_disagree(q("at most 5 GB"), q("up to 10 GB"))
    assert not limits_disagree(q("at least 12 characters"), q("at least 12 characters"))
    assert not limits_disagree(q("at least 12 characters"), q("at most 8 characters"))  # ``disagree``'s case
    assert not limits_disagree(q("at least 12 characters"), q("12 characters"))
