"""Invariants over arbitrary input: never raise, symmetric decision, stable answer."""

from __future__ import annotations

from datetime import UTC, datetime

from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from reverie.conflict import Claim, baseline_negation, detect

# Words that steer the text into the rules' interesting branches, mixed with arbitrary text.
_VOCAB = st.sampled_from(
    [
        "Alice", "lives", "in", "Paris", "is", "not", "never", "the", "on-call", "enabled", "disabled",
        "100", "500", "requests", "per", "minute", "about", "between", "and", "May", "3", "3pm", "before",
        "after", "than", "older", "over", "prefers", "2025-05-03", "GB", "MB", "$", "°", "F", "%", "-",
        "Q2", "Mondays", "at", "least", "isn't", "can't", "'s", "9:30", "km", "NYC", "New", "York",
        "City", "555-1234", "a", "dozen", "twenty-five", "k", "/", "min", "9" * 40, "1,000", "0",
    ]
)  # fmt: skip
_TEXT = st.one_of(
    st.text(max_size=80),
    st.lists(st.one_of(_VOCAB, st.text(max_size=6)), max_size=14).map(" ".join),
)
_WHEN = st.one_of(st.none(), st.datetimes(), st.datetimes(timezones=st.just(UTC)))
_CLAIMS = st.builds(
    Claim,
    text=_TEXT,
    key=st.one_of(st.none(), st.sampled_from(["alice.city", "svc.timeout"])),
    value=st.one_of(st.none(), _TEXT),
    valid_from=_WHEN,
    valid_to=_WHEN,
)
_FAST = settings(max_examples=300, deadline=None, suppress_health_check=[HealthCheck.too_slow])


@_FAST
@given(_CLAIMS, _CLAIMS)
def test_detect_never_raises_and_is_symmetric_in_whether_it_detects(a: Claim, b: Claim) -> None:
    ab, ba = detect(a, b), detect(b, a)
    assert (ab is None) == (ba is None)
    if ab is not None and ba is not None:
        assert ab.axis == ba.axis
        assert 0.0 <= ab.confidence <= 1.0
        for text, spans in ((a.text, ab.spans_a), (b.text, ab.spans_b)):
            for span in spans:
                assert text[span.start : span.end] == span.text


@_FAST
@given(_TEXT, _TEXT)
def test_baseline_never_raises_and_is_symmetric(a: str, b: str) -> None:
    assert baseline_negation(a, b) == baseline_negation(b, a)


@settings(max_examples=100, deadline=None)
@given(_CLAIMS)
def test_a_claim_never_contradicts_itself(a: Claim) -> None:
    assert detect(a, a) is None


def test_extreme_validity_bounds_do_not_raise() -> None:
    a = Claim("Alice lives in Paris.", valid_from=datetime.min, valid_to=datetime.max)
    b = Claim("Alice lives in Berlin.", valid_from=datetime.min.replace(tzinfo=UTC))
    assert detect(a, b) is not None
