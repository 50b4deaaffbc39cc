"""Offices and services one holder fills at a time, said in other words.

What must hold: two different people named as the mayor of one town, one person's accountant
or hairdresser, or two languages named as one person's mother tongue disagree on the entity
axis ("current" adds nothing: the present tense says it already). Look-alikes stay silent:
another town, another role of the same person, a past holder with an end date, a second
language that is not the native one.
"""

from __future__ import annotations

import pytest

from reverie.conflict import Claim, detect


@pytest.mark.parametrize(
    ("a", "b"),
    [
        ("The mayor of Tolvik is Greta Lund.", "Tolvik's current mayor is Jonas Berg."),
        ("Oskar's accountant is Mira Falk.", "Oskar's accountant is Petra Lind."),
        ("Ines's native language is Portuguese.", "Ines's mother tongue is Spanish."),
        ("Ravi's regular barber is Tom.", "Ravi gets his hair cut by Ken, his regular barber."),
    ],
)
def test_two_holders_of_one_role_conflict(a: str, b: str) -> None:
    for first, second in ((a, b), (b, a)):
        found = detect(Claim(text=first), Claim(text=second))
        assert found is not None and found.axis == "entity", (first, second, found)


@pytest.mark.parametrize(
    ("a", "b"),
    [
        ("The mayor of Tolvik is Greta Lund.", "The mayor of Arnes is Jonas Berg."),
        ("Oskar's accountant is Mira Falk.", "Oskar's lawyer is Petra Lind."),
        ("Oskar's coach is Lena.", "Oskar's coach was Mira until 2019."),
        ("Ines's native language is Portuguese.", "Ines also speaks Spanish."),
        ("Ines's native language is Portuguese.", "Ines's second language is Spanish."),
    ],
)
def test_look_alikes_stay_compatible(a: str, b: str) -> None:
    assert detect(Claim(text=a), Claim(text=b)) is None
    assert detect(Claim(text=b), Claim(text=a)) is None
