"""Invisible format characters do not make a new value (outside probe 3, finding 7).

Reproduced on main: "Bob likes\\u200b red" (a zero-width space, as HTML and PDF extractors leave
behind) was a new live claim after "Bob likes red" was dismissed, and "Carl lives in\\u00ad Paris"
(a soft hyphen) was live again after Paris was corrected to Berlin. The comparison form of a claim
(``normalise_text``) now drops Unicode format characters (category Cf) as it folds case and width.
"""

from __future__ import annotations

import unicodedata

import pytest

from reverie import ManualClock, Memory
from reverie.errors import ReverieError
from reverie.model.validate import normalise_text

S = "user:a"
INVISIBLE = ["\u200b", "\u200d", "\u00ad", "\u2060", "\ufeff"]


@pytest.mark.parametrize("mark", INVISIBLE)
def test_a_dismissed_value_with_an_invisible_character_stays_dismissed(any_mem: Memory, mark: str) -> None:
    x = any_mem.remember("Bob likes red", scope=S)
    any_mem.dismiss(x.id, scope=S)
    try:
        again = any_mem.remember(f"Bob likes{mark} red", scope=S)
    except ReverieError:
        again = None
    assert again is None or again.status != "live"
    assert [i.text for i in any_mem.list(scope=S).items] == []


@pytest.mark.parametrize("mark", INVISIBLE)
def test_a_corrected_value_with_an_invisible_character_is_an_echo(
    any_mem: Memory, clock: ManualClock, mark: str
) -> None:
    p = any_mem.remember("Carl lives in Paris.", scope=S, source="inferred")
    clock.advance(days=1)
    any_mem.revise(p.id, "Carl lives in Berlin.", scope=S)
    echo = any_mem.remember(f"Carl lives in{mark} Par{mark}is", scope=S, source="inferred")
    assert echo.id == p.id and echo.status == "superseded"
    assert [i.text for i in any_mem.list(scope=S).items] == ["Carl lives in Berlin."]


def test_the_same_text_with_an_invisible_character_corroborates(any_mem: Memory) -> None:
    a = any_mem.remember("Dana works at Zentrix", scope=S)
    b = any_mem.remember("Dana\u200b works at Zen\u00adtrix\ufeff", scope=S)
    assert b.id == a.id and b.evidence_count == 2
    assert any_mem.get(a.id, scope=S).text == "Dana works at Zentrix"  # what the user wrote first stays


def test_normal_form_drops_format_characters_and_composes() -> None:
    assert normalise_text("Bob\u200b likes\u2060 r\u00aded\ufeff.") == "bob likes red"
    assert normalise_text(unicodedata.normalize("NFD", "José")) == normalise_text("José")
    assert normalise_text("a\u200b \u200bb") == "a b"  # a space next to one collapses as any other
