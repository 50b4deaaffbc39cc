"""Each ASCII shortcut of the comparison and index forms returns what its general path returns.

Why: every write and every query goes through ``textform.canonical`` / ``strip_format`` /
``spellings`` and ``fts_tokens.index_form``; each returns early for ASCII text (no format
character, nothing to compose, no CJK character) so English text pays nothing for them. These
tests hold the shortcuts to the rule itself (Cf off, then NFC; CJK spaced apart; a word-initial
``#`` blanked), written out here from ``unicodedata`` and the module's own patterns, over random
text: ASCII for the shortcut, any Unicode for the general path.
"""

from __future__ import annotations

import unicodedata

from hypothesis import given, settings
from hypothesis import strategies as st

from reverie.model.textform import canonical, spellings, strip_format
from reverie.store.fts_tokens import _CJK, _hash_starts, index_form


def _no_format(text: str) -> str:
    return "".join(c for c in text if unicodedata.category(c) != "Cf")


def _canonical(text: str) -> str:
    return unicodedata.normalize("NFC", _no_format(text))


def _index_form(text: str) -> str:
    return _hash_starts(_CJK.sub(r" \g<0> ", _canonical(text)))


ascii_text = st.text(st.characters(max_codepoint=0x7F), max_size=80)
any_text = st.text(st.characters(blacklist_categories=("Cs",)), max_size=60)
tricky = st.lists(
    st.sampled_from(["#", "#12", "C#", " ", "e\u0301", "\u200b", "\u00ad", "東京", "서울", "\ufeff", "x", "1"]),
    max_size=12,
).map("".join)


@settings(max_examples=500, deadline=None)
@given(text=st.one_of(ascii_text, any_text, tricky))
def test_strip_format_and_canonical_follow_the_rule(text: str) -> None:
    assert strip_format(text) == _no_format(text)
    assert canonical(text) == _canonical(text)


@settings(max_examples=500, deadline=None)
@given(text=st.one_of(ascii_text, any_text, tricky))
def test_index_form_follows_the_rule(text: str) -> None:
    assert index_form(text) == _index_form(text)


@settings(max_examples=300, deadline=None)
@given(text=ascii_text)
def test_an_ascii_value_is_its_only_spelling(text: str) -> None:
    assert spellings(text) == (text,)
    assert canonical(text) is text  # returned as is: no copy made
