"""The ASCII fast path of the query's terms (``normalize._word_terms``) gives what the full path gives.

Why: ``_word_terms`` skips the CJK check for an ASCII word, on the ground that no ASCII word
tokenizes to a CJK character. These tests hold that ground (over random ASCII) and compare the
terms with the path that always checks (over random Unicode, CJK and ``#`` included).
"""

from __future__ import annotations

import itertools
import re
from collections.abc import Iterator

from hypothesis import given, settings
from hypothesis import strategies as st

from reverie.recall.normalize import MAX_PHRASE_TOKENS, _cjk_terms, _is_cjk, _word_terms, fts_query, tokenize


def _every_word_checked(text: str) -> Iterator[tuple[str, ...]]:
    """``_word_terms`` without the fast path: every word's tokens checked for CJK characters."""
    for match in re.finditer(r"\S+", text):
        tokens = tokenize(match.group())
        if any(_is_cjk(t) for t in tokens):
            yield from _cjk_terms(tokens)
        elif tokens:
            yield tuple(tokens[:MAX_PHRASE_TOKENS])


no_surrogates = st.characters(blacklist_categories=("Cs",))
cjk = st.sampled_from(list("東京で会議がある서울에서カタカナｶﾀ漢字𠀋"))
mixed_text = st.lists(
    st.one_of(
        st.text(no_surrogates, max_size=8), st.text(cjk, min_size=1, max_size=4), st.sampled_from(["#", " ", "#12"])
    ),
    max_size=10,
).map("".join)


@settings(max_examples=500, deadline=None)
@given(text=st.text(st.characters(max_codepoint=0x7F), max_size=80))
def test_no_ascii_text_tokenizes_to_a_cjk_character(text: str) -> None:
    assert not any(_is_cjk(t) for t in tokenize(text))


@settings(max_examples=1_000, deadline=None)
@given(text=st.one_of(mixed_text, st.text(no_surrogates, max_size=60)))
def test_word_terms_are_those_of_the_path_that_checks_every_word(text: str) -> None:
    assert list(_word_terms(text)) == list(_every_word_checked(text))


def test_a_question_in_ascii_and_one_in_japanese_keep_their_terms() -> None:
    assert fts_query("When did Caroline go to the LGBTQ support group?") == (
        '"caroline" OR "go" OR "lgbtq" OR "support" OR "group"'
    )
    assert fts_query("#1182 C# c++") == '"1182" OR "c#" OR "c++"'
    assert list(_word_terms("東京で会議")) == list(itertools.pairwise("東京で会議"))
