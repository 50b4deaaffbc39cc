"""Which relation a claim's current words state: read again after a claim was corrected.

Why: extraction writes a relation claim ("Dana is Alice's sister.") with ``meta["relation"]``,
and ``revise`` carries ``meta`` over to the new version unchanged, so a claim corrected to
"Dana is Alice's cousin." still carried ``type="sister"`` (session 31). A corrected claim's
relation is therefore read from its text: the shapes relation claims are written in ("X is Y's
R", "Y's R is [called] X"), or — for words in another shape, such as a model's — the relation
it carried, kept only while the text still says it ("Y's R", and X, with no negation).
"""

from __future__ import annotations

import re
from collections.abc import Mapping
from typing import Any

from reverie.conversation.people.lexicon import RELATION_ADJECTIVES, RELATIONS
from reverie.conversation.people.names import tokens

#: A name as relation claims write it: one or two capitalised words, maybe after a title.
_WORD = r"[^\W\d_][\w'’-]*"
_NAME = r"(?:(?:Dr|Mr|Mrs|Ms|Prof)\.?\s|(?:Professor|Doctor)\s)?" + _WORD + r"(?:\s" + _WORD + r")?"
_ADJ = r"(?:(?i:" + "|".join(sorted(re.escape(a) for a in RELATION_ADJECTIVES)) + r")\s)?"
_NOUN = r"(?:" + "|".join(sorted((re.escape(r) for r in RELATIONS), key=len, reverse=True)) + r")"
_REL = r"(?i:" + _ADJ + _NOUN + r")"
#: "Dana is Alice's cousin", "Dana Smith is Alice's older half-sister".
_IS_POSSESSED = re.compile(r"^(" + _NAME + r")\sis\s(" + _NAME + r")['’]s\s(" + _REL + r")\b")
#: "Alice's sister is Dana", "Alice's sister is called Dana".
_POSSESSED_IS = re.compile(r"^(" + _NAME + r")['’]s\s(" + _REL + r")\sis\s(?:called\s|named\s)?(" + _NAME + r")\b")
#: Words that unsay what a sentence says ("Dana is not Alice's sister", "no longer").
_NEGATION = re.compile(r"\b(?:not|no\s+longer|never|nor)\b|n['’]t\b", re.I)


def stated_relation(text: str, carried: Mapping[str, Any] | None = None) -> dict[str, str] | None:
    """``{"person", "type", "of"}`` that ``text`` states, or None when it states no relation.

    ``carried``: the relation an earlier version of the claim stated; kept when ``text`` says
    it in a shape not read above, dropped when the text no longer says it.
    """
    said = text.strip()
    m = _IS_POSSESSED.match(said)
    if m and _capitalised(m.group(1), m.group(2)):
        return _relation(m.group(1), m.group(3), m.group(2))
    m = _POSSESSED_IS.match(said)
    if m and _capitalised(m.group(1), m.group(3)):
        return _relation(m.group(3), m.group(2), m.group(1))
    if carried is not None and _still_says(said, carried):
        return {k: str(carried.get(k, "")) for k in ("person", "type", "of")}
    return None


def _relation(person: str, rel: str, of: str) -> dict[str, str]:
    """As extraction records one: the relation noun is the last word ("old boss" → ``boss``)."""
    return {"person": person, "type": rel.split()[-1].lower(), "of": of}


def _capitalised(*names: str) -> bool:
    return all(w[:1].isupper() for name in names for w in name.split())


def _still_says(text: str, carried: Mapping[str, Any]) -> bool:
    """Does ``text`` still say the carried relation: the person named, "<of>'s [adj] <type>", no negation?"""
    person, kind, of = (str(carried.get(k, "")) for k in ("person", "type", "of"))
    if not (person and kind and of) or _NEGATION.search(text):
        return False
    words = tokens(text)
    named = tokens(person)
    if not any(words[i : i + len(named)] == named for i in range(len(words))):
        return False
    phrase = r"(?i:" + re.escape(of) + r"['’]s\s" + _ADJ + re.escape(kind) + r")\b"
    return re.search(phrase, text) is not None
