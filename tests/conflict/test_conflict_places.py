"""A place and a place inside it are a refinement, not two values of one slot.

Regression (found on the dev split of the second blind pair set): "held in Bulgaria" / "held in
Plovdiv" and "based in Wales" / "based in Cardiff" were reported as entity conflicts, and a
second reader called "lives in Canada" / "lives in Vancouver" a contradiction."""

from __future__ import annotations

import pytest

from reverie.conflict import Claim, detect
from reverie.conflict.entity import same_value
from reverie.conflict.places import most_specific, readings, refines
from reverie.conflict.second import compatible_reason


@pytest.mark.parametrize(
    ("outer", "inner"),
    [
        ("Bulgaria", "Plovdiv"),
        ("Wales", "Cardiff"),
        ("South America", "Buenos Aires"),
        ("Canada", "Vancouver"),
        ("Texas", "Austin"),
        ("the Netherlands", "Rotterdam"),
        ("Europe", "Germany"),
        ("Georgia", "Tbilisi"),  # the country
        ("Georgia", "Atlanta"),  # the US state: every reading counts
    ],
)
def test_a_place_inside_another_refines_it(outer: str, inner: str) -> None:
    assert refines(outer.split(), inner.split())
    assert refines(inner.split(), outer.split())
    assert same_value(outer, inner, None)


@pytest.mark.parametrize(
    ("a", "b"),
    [("Paris", "Berlin"), ("France", "Berlin"), ("Plovdiv, Bulgaria", "Sofia, Bulgaria"), ("England", "Cardiff")],
)
def test_places_side_by_side_are_not_refinements(a: str, b: str) -> None:
    assert not refines(a.replace(",", " ").split(), b.replace(",", " ").split())
    assert not same_value(a, b, None)


def test_names_fold_case_accents_and_hyphens() -> None:
    assert readings(["saint", "etienne"]) == readings(["Saint-Étienne"])
    assert readings(["Atlantis"]) == frozenset()


def test_the_most_specific_place_of_a_phrase() -> None:
    [only] = most_specific(["a", "flat", "in", "Plovdiv", ",", "Bulgaria"])
    assert only == readings(["Plovdiv"])


@pytest.mark.parametrize(
    ("a", "b"),
    [
        ("The 2027 World Rowing Championships will be held in Bulgaria.", "The championships will be held in Plovdiv."),
        ("The Oberlin Trust is based in Wales.", "The Oberlin Trust is based in Cardiff."),
    ],
)
def test_the_rules_read_a_refined_place_as_no_conflict(a: str, b: str) -> None:
    assert detect(Claim(a), Claim(b)) is None


def test_two_cities_of_one_slot_still_conflict() -> None:
    found = detect(Claim("The Oberlin Trust is based in Cardiff."), Claim("The Oberlin Trust is based in Leeds."))
    assert found is not None and found.axis == "entity"


def test_the_second_reader_is_not_asked_about_a_refined_place() -> None:
    pair = (Claim("Rosa lives in Canada."), Claim("Rosa's home is in Vancouver."))
    assert compatible_reason(*pair) == "a place and a place inside it"
    # Negated on one side it may be a conflict ("never been to Japan" / "visited Kyoto"): read it.
    assert compatible_reason(Claim("Kai has never been to Japan."), Claim("Kai visited Kyoto last spring.")) is None


def test_a_place_name_with_a_joining_word_is_read_whole() -> None:
    pair = (Claim("Ana lives in Brazil."), Claim("Ana lives in Rio de Janeiro."))
    assert compatible_reason(*pair) == "a place and a place inside it"
