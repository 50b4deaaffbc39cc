"""Lexical recall and the archive search find a word in every form it is written in (outside probe 3).

- finding 12: "#1182" in "My order #1182 never arrived" was one token ("#" is a token character,
  for C#), so neither ``archive_search("1182")`` / ``("#1182")`` / ``("order #1182")`` nor
  ``recall("1182", mode="lexical")`` found it. A "#" that starts a word is now a separator in the
  full-text form (``fts_tokens.index_form``); "C#" and "C++" keep theirs.
- finding 13: Japanese and Chinese are written without spaces, so "東京" inside "東京で会議がある"
  was never a token. Every CJK character (Han, kana, Hangul syllables) is now its own token, and a
  query's CJK run is a phrase of them: "東京" matches where 東 and 京 stand together.
- finding 14: ``archive_search("café")`` missed a message typed decomposed (NFD), and a zero-width
  space inside a word split it. The full-text form and the quote match read the comparison form
  (``textform.canonical``); the span still points into the message as it was written.
"""

from __future__ import annotations

import unicodedata

from reverie import Memory

S = "user:alice"


def _lexical(mem: Memory, query: str, scope: str = S) -> list[str]:
    return [h.item.text for h in mem.recall(query, scope=scope, mode="lexical", record_use=False)]


def _archive(mem: Memory, query: str) -> list[tuple[str, str]]:
    return [(h.text, h.quote) for h in mem.archive_search(query, scope=S)]


def test_a_number_after_a_hash_is_found_by_archive_search_and_recall(any_mem: Memory) -> None:
    conv = any_mem.conversation("support-42", scope=S)
    conv.add("My order #1182 never arrived", speaker="Alice", role="user")
    conv.add("Invoice 20931 was paid twice", speaker="Alice", role="user")
    msg = "My order #1182 never arrived"
    assert _archive(any_mem, "1182") == [(msg, "1182")]
    assert _archive(any_mem, "#1182") == [(msg, "1182")]
    assert _archive(any_mem, "order #1182") == [(msg, "order #1182")]
    assert _archive(any_mem, "11") == []  # still whole words
    any_mem.remember("My order #1182 never arrived", scope="user:bob")
    any_mem.remember("Order 1183 arrived early", scope="user:bob")
    for query in ("1182", "#1182", "order #1182"):
        assert _lexical(any_mem, query, "user:bob")[0] == msg


def test_c_sharp_and_c_plus_plus_keep_their_marks(any_mem: Memory) -> None:
    any_mem.remember("I write C# every day", scope=S)
    any_mem.remember("I write C++ every day", scope=S)
    any_mem.remember("I write C every day", scope=S)
    assert _lexical(any_mem, "C#") == ["I write C# every day"]
    assert _lexical(any_mem, "C++") == ["I write C++ every day"]


def test_a_cjk_word_inside_a_sentence_is_found(any_mem: Memory) -> None:
    any_mem.remember("東京で会議がある", scope=S)  # there is a meeting in Tokyo
    any_mem.remember("大阪で食事をした", scope=S)  # had a meal in Osaka
    any_mem.remember("京都の東にある", scope=S)  # east of Kyoto: 東 and 京, not together
    any_mem.remember("서울에서 회의가 있다", scope=S)  # a meeting in Seoul
    assert _lexical(any_mem, "東京") == ["東京で会議がある"]
    assert _lexical(any_mem, "会議") == ["東京で会議がある"]
    assert _lexical(any_mem, "서울") == ["서울에서 회의가 있다"]
    conv = any_mem.conversation("c", scope=S)
    conv.add("会議は東京です", speaker="Ken", role="user")
    conv.add("京都に行きます", speaker="Ken", role="user")
    assert _archive(any_mem, "東京") == [("会議は東京です", "東京")]
    assert _archive(any_mem, "東京です") == [("会議は東京です", "東京です")]
    assert _archive(any_mem, "京東") == []


def test_archive_search_finds_decomposed_and_invisible_spellings(any_mem: Memory) -> None:
    conv = any_mem.conversation("c", scope=S)
    nfd = unicodedata.normalize("NFD", "The café is closed today")
    conv.add(nfd, speaker="Ana", role="user")
    conv.add("The order never\u200b arri\u00adved", speaker="Ana", role="user")
    [hit] = any_mem.archive_search("café is", scope=S)
    assert hit.text == nfd and hit.quote == nfd[4:12] and hit.span == (4, 12)  # offsets into what was written
    [hit] = any_mem.archive_search(unicodedata.normalize("NFD", "café"), scope=S)
    assert hit.text == nfd
    assert any_mem.archive_search("cafe", scope=S) == []  # an accent still matters in an exact quote
    [hit] = any_mem.archive_search("never arrived", scope=S)
    assert hit.quote == "never\u200b arri\u00adved"


def test_lexical_recall_finds_cyrillic_typed_decomposed(any_mem: Memory) -> None:
    any_mem.remember(unicodedata.normalize("NFD", "Мой город Йошкар-Ола"), scope=S)
    assert len(_lexical(any_mem, "Йошкар")) == 1
    any_mem.remember("Kids play hide\u00adand\u200bseek", scope=S)
    assert _lexical(any_mem, "hideandseek") == ["Kids play hide\u00adand\u200bseek"]
