"""Conflicts explain themselves: spans point at the words, reasons name them, output is stable."""

from __future__ import annotations

import json

import pytest

from reverie.conflict import Claim, Conflict, Span, detect

PAIRS = [
    ("Nadia isn't allergic to latex.", "Nadia is allergic to latex."),
    ("The search feature is enabled.", "The search feature is disabled."),
    ("The request quota is 200 calls per hour.", "The request quota is 800 calls per hour."),
    ("Hugo lives in Madrid.", "Hugo lives in Seville."),
    ("The board meeting is on June 4.", "The board meeting is on June 11."),
    ("The backup runs before the vacuum job.", "The backup runs after the vacuum job."),
    ("Café Ünïcode is in Zürich.", "Café Ünïcode is in Genève."),
]


def _found(a: str, b: str) -> Conflict:
    found = detect(Claim(a), Claim(b))
    assert found is not None
    return found


@pytest.mark.parametrize(("a", "b"), PAIRS)
def test_spans_point_at_the_text_they_quote(a: str, b: str) -> None:
    found = _found(a, b)
    assert found.spans_a or found.spans_b
    for text, spans in ((a, found.spans_a), (b, found.spans_b)):
        for span in spans:
            assert text[span.start : span.end] == span.text


@pytest.mark.parametrize(
    ("a", "b", "words_a", "words_b"),
    [
        ("Nadia isn't allergic to latex.", "Nadia is allergic to latex.", ["n't"], []),
        ("The search feature is enabled.", "The search feature is disabled.", ["enabled"], ["disabled"]),
        ("Hugo lives in Madrid.", "Hugo lives in Seville.", ["Madrid"], ["Seville"]),
        (
            "The quota is 200 calls per hour.",
            "The quota is 800 calls per hour.",
            ["200 calls per hour"],
            ["800 calls per hour"],
        ),
        ("The board meeting is on June 4.", "The board meeting is on June 11.", ["June 4"], ["June 11"]),
    ],
)
def test_spans_cover_exactly_the_disagreeing_words(a: str, b: str, words_a: list[str], words_b: list[str]) -> None:
    found = _found(a, b)
    assert [s.text for s in found.spans_a] == words_a
    assert [s.text for s in found.spans_b] == words_b


@pytest.mark.parametrize(("a", "b"), PAIRS)
def test_reason_is_one_sentence_naming_the_disagreeing_words(a: str, b: str) -> None:
    found = _found(a, b)
    assert found.reason.endswith(".") and "\n" not in found.reason
    for span in (*found.spans_a, *found.spans_b):
        assert span.text in found.reason


def test_reason_reads_in_the_callers_order() -> None:
    one = _found("Hugo lives in Seville.", "Hugo lives in Madrid.")
    other = _found("Hugo lives in Madrid.", "Hugo lives in Seville.")
    assert one.reason.index("Seville") < one.reason.index("Madrid")
    assert other.reason.index("Madrid") < other.reason.index("Seville")
    assert one.spans_a == other.spans_b and one.spans_b == other.spans_a


@pytest.mark.parametrize(("a", "b"), PAIRS)
def test_confidence_is_a_probability(a: str, b: str) -> None:
    assert 0.0 < _found(a, b).confidence <= 1.0


def test_hedged_claims_get_lower_confidence() -> None:
    plain = _found("Hugo lives in Madrid.", "Hugo lives in Seville.")
    hedged = _found("Hugo probably lives in Madrid.", "Hugo lives in Seville.")
    assert hedged.confidence < plain.confidence


def test_to_dict_is_json_ready_and_complete() -> None:
    found = _found("Hugo lives in Madrid.", "Hugo lives in Seville.")
    data = found.to_dict()
    assert set(data) == {"axis", "confidence", "reason", "spans_a", "spans_b", "mutable"}
    assert data["spans_a"] == [{"start": 14, "end": 20, "text": "Madrid"}]
    assert json.loads(json.dumps(data)) == data


@pytest.mark.parametrize(
    ("a", "b", "mutable"),
    [
        ("Hugo lives in Madrid.", "Hugo lives in Seville.", True),  # where one lives changes
        ("The on-call engineer is Priti.", "The on-call engineer is Sam.", True),
        ("The search feature is enabled.", "The search feature is disabled.", True),
        ("Hugo was born in Madrid.", "Hugo was born in Seville.", False),  # a fixed fact
        ("Lena graduated in 2015.", "Lena graduated in 2017.", False),  # a past event
        ("Nadia is allergic to latex.", "Nadia is not allergic to latex.", False),
    ],
)
def test_mutable_marks_slots_that_change_over_time(a: str, b: str, mutable: bool) -> None:
    assert _found(a, b).mutable is mutable


@pytest.mark.parametrize(("a", "b"), PAIRS)
def test_detection_is_deterministic(a: str, b: str) -> None:
    runs = {repr(detect(Claim(a), Claim(b))) for _ in range(3)}
    assert len(runs) == 1


def test_span_is_a_plain_value() -> None:
    assert Span(0, 3, "not").to_dict() == {"start": 0, "end": 3, "text": "not"}
