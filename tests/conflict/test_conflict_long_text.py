"""Long claims: the word rules read claims up to ``MAX_RULE_TEXT`` characters.

An outside tester found a write next to a similar claim taking tens of seconds once the text
ran to a few kilobytes (the check grew about cubically). Past the bound a text is a document:
the rules do not read it (their cost is not linear), and its structured slot still decides.
Cost itself lives in ``bench/conflict_long_text.py``; these tests pin the behaviour.
"""

from __future__ import annotations

from reverie import Memory
from reverie.conflict import Claim, detect
from reverie.conflict.clauses import clauses
from reverie.conflict.detect import MAX_RULE_TEXT


def _long(shift: int, chars: int) -> str:
    text = " ".join(f"the limit is {i + shift}/min and" for i in range(chars // 20 + 1))
    return text[:chars]


def _padded(city: str, chars: int) -> str:
    """One statement, then a neutral sentence repeated: the longest such text within ``chars``."""
    text = f"Marta lives in {city}."
    while len(text) + len(" The garden has roses.") <= chars:
        text += " The garden has roses."
    return text


def test_the_word_rules_read_a_claim_up_to_the_bound() -> None:
    a, b = _padded("Lisbon", MAX_RULE_TEXT), _padded("Porto", MAX_RULE_TEXT)
    found = detect(Claim(a), Claim(b))
    assert found is not None
    assert found.axis == "entity"


def test_a_text_past_the_bound_is_not_read_by_the_word_rules() -> None:
    a, b = _padded("Lisbon", MAX_RULE_TEXT + 100), _padded("Porto", MAX_RULE_TEXT + 100)
    assert max(len(a), len(b)) > MAX_RULE_TEXT
    assert detect(Claim(a), Claim(b)) is None


def test_a_long_text_is_still_compared_by_its_slot() -> None:
    a, b = _long(0, MAX_RULE_TEXT * 4), _long(7, MAX_RULE_TEXT * 4)
    found = detect(Claim(a, key="api.limit", value="60/min"), Claim(b, key="api.limit", value="90/min"))
    assert found is not None
    assert found.axis == "numeric"


def test_a_short_claim_next_to_a_long_one_is_not_read_either() -> None:
    long = _padded("Porto", MAX_RULE_TEXT + 100)
    assert detect(Claim("Marta lives in Lisbon."), Claim(long)) is None


def test_a_list_of_many_clauses_is_not_split() -> None:
    # More clauses than are read: () as before, found before reading the whole text.
    text = " and ".join(f"Worker{i} is idle" for i in range(500)) + "."
    assert clauses(text) == ()


def test_remember_of_a_long_text_next_to_a_similar_one_writes_both(tmp_path) -> None:  # type: ignore[no-untyped-def]
    with Memory(tmp_path / "m.db", embedder="hash") as mem:
        first = mem.remember(_long(0, 20_000), scope="user:x")
        second = mem.remember(_long(7, 20_000), scope="user:x")
        assert first.id != second.id
        assert mem.get(second.id, scope="user:x").text == _long(7, 20_000)
