"""Structured slots, caller-supplied aliases and validity intervals."""

from __future__ import annotations

from collections.abc import Callable
from datetime import UTC, datetime, timedelta, timezone

import pytest

from reverie.conflict import Claim, detect


def _groups(*groups: set[str]) -> Callable[[str], frozenset[str]]:
    frozen = [frozenset(g) for g in groups]

    def lookup(name: str) -> frozenset[str]:
        return next((g for g in frozen if name in g), frozenset({name}))

    return lookup


def test_same_key_different_value_is_an_entity_conflict_even_when_texts_differ() -> None:
    a = Claim("Hugo lives in Madrid.", key="hugo.city", value="Madrid")
    b = Claim("Hugo's home town these days is Seville.", key="hugo.city", value="Seville")
    found = detect(a, b)
    assert found is not None
    assert (found.axis, found.confidence) == ("entity", 0.95)
    assert [s.text for s in found.spans_a] == ["Madrid"] and [s.text for s in found.spans_b] == ["Seville"]
    assert found.mutable


def test_same_key_numeric_values_compare_with_units() -> None:
    a = Claim("The lock timeout is short.", key="lock.timeout", value="90 s")
    same = Claim("The lock timeout is short.", key="lock.timeout", value="1.5 min")
    other = Claim("The lock timeout is long.", key="lock.timeout", value="15 min")
    assert detect(a, same) is None
    found = detect(a, other)
    assert found is not None and found.axis == "numeric"


def test_same_key_dates_compare_as_dates() -> None:
    a = Claim("Launch day.", key="launch.date", value="2025-06-04")
    b = Claim("Launch day.", key="launch.date", value="2025-06-11")
    found = detect(a, b)
    assert found is not None and found.axis == "temporal"


def test_same_key_aliased_values_agree() -> None:
    a = Claim("Nadia works at Meta.", key="nadia.employer", value="Meta")
    b = Claim("Nadia works at Facebook.", key="nadia.employer", value="Facebook")
    assert detect(a, b) is not None
    assert detect(a, b, aliases=_groups({"meta", "facebook"})) is None


def test_different_keys_fall_back_to_the_text() -> None:
    a = Claim("Hugo lives in Madrid.", key="hugo.city", value="Madrid")
    b = Claim("Hugo's favourite city is Seville.", key="hugo.favourite_city", value="Seville")
    assert detect(a, b) is None


def test_aliases_make_names_the_same_entity() -> None:
    a, b = Claim("Ivan lives in Peking."), Claim("Ivan lives in Beijing.")
    assert detect(a, b) is not None
    assert detect(a, b, aliases=_groups({"peking", "beijing"})) is None


def test_initialisms_are_the_same_entity_without_aliases() -> None:
    assert detect(Claim("The app runs on AWS."), Claim("The app runs on Amazon Web Services.")) is None


_T0 = datetime(2024, 1, 1, tzinfo=UTC)


@pytest.mark.parametrize(
    ("a_valid", "b_valid", "conflicts"),
    [
        ((_T0, _T0 + timedelta(days=30)), (_T0 + timedelta(days=30), None), False),  # back to back
        ((_T0, _T0 + timedelta(days=30)), (_T0 + timedelta(days=60), None), False),  # gap
        ((_T0, _T0 + timedelta(days=30)), (_T0 + timedelta(days=10), None), True),  # overlap
        ((_T0, None), (_T0 + timedelta(days=10), None), True),  # both still valid
        ((None, None), (_T0, _T0 + timedelta(days=1)), True),  # one side says nothing
    ],
)
def test_validity_intervals_decide_whether_claims_meet(
    a_valid: tuple[datetime | None, datetime | None], b_valid: tuple[datetime | None, datetime | None], conflicts: bool
) -> None:
    a = Claim("The on-call engineer is Priti.", valid_from=a_valid[0], valid_to=a_valid[1])
    b = Claim("The on-call engineer is Sam.", valid_from=b_valid[0], valid_to=b_valid[1])
    assert (detect(a, b) is not None) is conflicts


def test_naive_and_aware_validity_bounds_mix_without_error() -> None:
    a = Claim("Hugo lives in Madrid.", valid_from=datetime(2020, 1, 1), valid_to=datetime(2021, 1, 1))
    b = Claim("Hugo lives in Seville.", valid_from=datetime(2021, 1, 1, 2, tzinfo=timezone(timedelta(hours=2))))
    assert detect(a, b) is None
