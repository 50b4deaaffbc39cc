"""Tag and author filters match every Unicode spelling of one word (outside probe 3, finding 14).

Reproduced on main: a claim tagged "café" typed decomposed (NFD, as macOS gives it) and written
by "José" (NFD) was missed by ``Q.tag("café")`` and ``Q.author("José")`` typed composed, although
corroboration already treated the two spellings as one value. Tags and authors are kept byte for byte as
given (Guarantees: arbitrary Unicode round-trips byte-exact), so a filter matches each stored
spelling of its value: as given, composed (NFC, format characters off) and decomposed (NFD).
"""

from __future__ import annotations

import unicodedata

from reverie import Memory, Q

S = "user:a"


def _nfd(text: str) -> str:
    return unicodedata.normalize("NFD", text)


def _texts(mem: Memory, where: object) -> list[str]:
    return sorted(i.text for i in mem.list(scope=S, where=where).items)  # type: ignore[arg-type]


def test_tag_and_author_filters_match_nfc_and_nfd_spellings(any_mem: Memory) -> None:
    any_mem.remember("Meeting at the café", scope=S, tags=["café"], author="José")
    any_mem.remember(_nfd("Dinner at the bistro"), scope=S, tags=[_nfd("café")], author=_nfd("José"))
    any_mem.remember("Lunch at home", scope=S, tags=["cafe"], author="Jose")
    both = ["Dinner at the bistro", "Meeting at the café"]
    for spelling in ("café", _nfd("café"), "caf\u00e9\u200b"):
        assert _texts(any_mem, Q.tag(spelling)) == both
        assert _texts(any_mem, Q.tags_any(spelling, "nothing")) == both
    for spelling in ("José", _nfd("José")):
        assert _texts(any_mem, Q.author(spelling)) == both
    assert _texts(any_mem, Q.tag("cafe")) == ["Lunch at home"]  # an accent still matters
    assert _texts(any_mem, Q.author("Jose")) == ["Lunch at home"]


def test_tags_and_author_are_kept_as_given(any_mem: Memory) -> None:
    item = any_mem.remember("Dinner at the bistro", scope=S, tags=[_nfd("café")], author=_nfd("José"))
    assert item.tags == (_nfd("café"),) and item.author == _nfd("José")


def test_a_filter_holds_each_spelling_of_its_value() -> None:
    """The SQL compilers and the reference evaluator read the same values: each spelling, OR-ed."""
    from reverie.model.query import Eq, HasTag, Or

    tag = Q.tag("café")
    assert isinstance(tag, Or) and {p.tag for p in tag.parts if isinstance(p, HasTag)} == {"café", _nfd("café")}
    author = Q.author(_nfd("José"))
    assert isinstance(author, Eq) and set(author.values) == {"José", _nfd("José")}
    assert Q.tag("plain") == HasTag("plain") and Q.author("Ann") == Eq("author", ("Ann",))  # ASCII as before
