"""The readers' shortcuts give exactly what the plain definitions give.

Each claim's text is read token by token, and the dream pass reads thousands of claims, so a
few readers take a shortcut: a dict of antonym words instead of a scan of the classes, bound
phrases looked up by their first word, date parsers skipped on tokens none of them can start
on, and a string test before the per-character one in ``Token.cap``. Each test here states
the plain definition once and checks the shortcut against it on arbitrary text.
"""

from __future__ import annotations

from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from reverie.conflict import dates, lexicon, numeric
from reverie.conflict.frame import _state_use, antonym_of
from reverie.conflict.text import Token, tokenize

# Words that reach every shortcut's interesting branch, mixed with arbitrary text.
_VOCAB = st.sampled_from(
    [
        "is", "on", "off", "up", "down", "enabled", "Disabled", "likes", "hates", "before", "after",
        "at", "least", "most", "more", "than", "no", "less", "up", "to", "fewer", "upwards", "of",
        "over", "under", ">", "<", "max", "minimum", "about", "between", "and", "100", "3pm", "9:30",
        "2025-05-03", "May", "may", "March", "Mondays", "monday", "weekend", "Q2", "q5", "early",
        "mid", "late", "noon", "midnight", "3rd", "1999", "ǅ", "İ", "ß", "x²", "٣", "ÉTÉ", "a1", "_",
        "can't", "isn't", "Lucía's", "us-east-1", "$", "°", "F", "%", "-", "twenty-five", "a", "dozen",
    ]
)  # fmt: skip
_TEXT = st.one_of(
    st.text(max_size=60),
    st.lists(st.one_of(_VOCAB, st.text(max_size=5)), max_size=14).map(" ".join),
)
_SETTINGS = settings(max_examples=400, deadline=None, suppress_health_check=[HealthCheck.too_slow])


def _plain_cap(tok: Token) -> bool:
    return any(ch.isupper() or ch.isdigit() for ch in tok.text)


def _plain_antonym(tokens: tuple[Token, ...], i: int) -> tuple[str, int] | None:
    """A scan of the classes in order, positive side first (``antonym_of`` before its index)."""
    low = tokens[i].low
    if low in lexicon.STATE_CONTEXT_WORDS and not _state_use(tokens, i):
        return None
    for cls in lexicon.ANTONYMS:
        if low in cls.positive:
            return cls.name, 0
        if low in cls.negative:
            return cls.name, 1
    return None


def _plain_phrase(tokens: tuple[Token, ...], i: int, phrases: tuple[tuple[str, ...], ...]) -> int:
    for phrase in phrases:
        if tuple(t.low for t in tokens[i : i + len(phrase)]) == phrase:
            return len(phrase)
    return 0


def _plain_part_at(tokens: tuple[Token, ...], i: int) -> tuple[dates.DateValue, int] | None:
    """Every date parser tried in turn, with no look at the token first."""
    parsers = (
        dates._iso, dates._clock, dates._meridiem, dates._named_time, dates._month_first,
        dates._day_first, dates._weekday, dates._quarter, dates._part,
    )  # fmt: skip
    for parser in parsers:
        found = parser(tokens, i)
        if found is not None:
            return found
    return dates._year(tokens, i)


@_SETTINGS
@given(_TEXT)
def test_cap_equals_its_per_character_definition(text: str) -> None:
    for tok in tokenize(text):
        assert tok.cap == _plain_cap(tok)
    for word in text.split():
        tok = Token(word, 0, len(word), word.lower(), "word")
        assert tok.cap == _plain_cap(tok)


@_SETTINGS
@given(_TEXT)
def test_antonym_lookup_equals_a_scan_of_the_classes(text: str) -> None:
    tokens = tokenize(text)
    for i in range(len(tokens)):
        found = antonym_of(tokens, i)
        assert (None if found is None else (found[0].name, found[1])) == _plain_antonym(tokens, i)


def test_antonym_index_keeps_the_first_class_that_lists_a_word() -> None:
    for word in sorted({w for cls in lexicon.ANTONYMS for w in cls.positive | cls.negative}):
        # after "is", so "on"/"off"/"up"/"down" count as states too
        tokens = (Token("is", 0, 2, "is", "word"), Token(word, 3, 3 + len(word), word, "word"))
        found = antonym_of(tokens, 1)
        assert found is not None
        assert (found[0].name, found[1]) == _plain_antonym(tokens, 1)


@_SETTINGS
@given(_TEXT)
def test_bound_phrases_by_first_word_match_as_a_scan_does(text: str) -> None:
    tokens = tokenize(text)
    for i in range(len(tokens)):
        assert numeric._match_phrase(tokens, i, numeric._LOWER_BY_FIRST) == _plain_phrase(
            tokens, i, numeric._LOWER_BOUNDS
        )
        assert numeric._match_phrase(tokens, i, numeric._UPPER_BY_FIRST) == _plain_phrase(
            tokens, i, numeric._UPPER_BOUNDS
        )


@_SETTINGS
@given(_TEXT)
def test_date_parts_start_only_where_the_token_filter_lets_them(text: str) -> None:
    tokens = tokenize(text)
    for i in range(len(tokens)):
        assert dates._part_at(tokens, i) == _plain_part_at(tokens, i)


def test_every_date_word_and_bound_phrase_still_starts_its_part() -> None:
    # Hypothesis may miss a rare word; here each one is tried, capitalised or not, in context.
    words = {*dates._MONTHS, *dates._WEEKDAYS, *dates._WEEKDAY_SETS, *dates._PARTS, *dates._MERIDIEM}
    words |= {d + "s" for d in dates._WEEKDAYS} | {"noon", "midday", "midnight", "q1", "q4", "q5", "q"}
    words |= {w for phrase in numeric._LOWER_BOUNDS + numeric._UPPER_BOUNDS for w in phrase}
    forms = {f for w in words for f in (w, w.capitalize(), w.upper())}
    forms |= {" ".join(phrase) for phrase in numeric._LOWER_BOUNDS + numeric._UPPER_BOUNDS}
    for form in sorted(forms):
        for text in (form, f"in {form} 3", f"{form} - May 2025", f"3 {form} of June", f"{form} than 5 GB"):
            tokens = tokenize(text)
            for i in range(len(tokens)):
                assert dates._part_at(tokens, i) == _plain_part_at(tokens, i), (text, i)
                for by_first, phrases in (
                    (numeric._LOWER_BY_FIRST, numeric._LOWER_BOUNDS),
                    (numeric._UPPER_BY_FIRST, numeric._UPPER_BOUNDS),
                ):
                    assert numeric._match_phrase(tokens, i, by_first) == _plain_phrase(tokens, i, phrases)


def test_only_words_with_an_apostrophe_or_cannot_are_cut() -> None:
    lows = [t.low for t in tokenize("Bob CANNOT stay, cannot go, can't sit; us-east-1 isn’t")]
    assert lows == ["bob", "can", "not", "stay", "can", "not", "go", "can", "not", "sit", "us-east-1", "is", "not"]
    assert [(t.text, t.start, t.end) for t in tokenize("Cannotx")] == [("Cannotx", 0, 7)]
