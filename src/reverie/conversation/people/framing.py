"""How a statement is framed around its words: a label in front of it, a denial after it.

Why (outside probe 4, findings 10 and 15): the rules read a sentence from its first word, so
"Correction: I'm allergic to cashews, not peanuts." — the way people mark a correction — opened
with a word that is neither a person nor "I", and nothing was mined; the correction was lost and
the old allergy stayed the only belief. And the rules read a sentence as a statement, so "My
friend told me that Kenji lives in Osaka, but that's not true." became the fact "Kenji lives in
Osaka, …" about Kenji: the speaker's own denial was stored as what she asserted.

- ``unlabel``: a note label ("Correction:", "Update:", "Quick note —", "For the record:") is taken
  off and the statement after it read as if said alone. A label that is another person ("Dana: I
  live in Berlin", a line of a pasted chat) says the "I" may be someone else's: nothing is mined.
- ``denials``: a clause the speaker denies ("…, but that's not true", "…, which is false", "… — not
  really", "… (not true)", a next sentence "That's not true.") is cut off and marked denied; what
  follows the denial ("…, but that's not true, he lives in Kyoto") is still a statement. Only
  epistemic words deny: "which is wrong" may judge a deed it asserts, so it is left alone unless
  it "turned out" so. The same words said in front deny too ("It's not true that Dana lives in
  Lisbon", "It is false that …", "It's a myth that …", "That Dana lives in Lisbon is a myth": the
  outside tester of session 32 found these stored word for word as claims); "It's true that …"
  is taken off and the statement after it said.

Both are pure text rules: whether a label names a person is the caller's question (``person``).
"""

from __future__ import annotations

import re
from collections.abc import Callable

from reverie.conversation.people.lexicon import LABEL_MODIFIERS, LABEL_NOUNS, LABEL_PHRASES

_APOS = "['’]"
#: A label: up to four words, then ": " or a spaced dash ("Update - ", "Update — "); never "10:30".
_LABEL = re.compile(r"^([A-Za-z][\w.'’/&;-]*(?:\s+[A-Za-z][\w.'’/&-]*){0,3})\s*(?::\s+|\s+[-–—]\s+|[–—]\s*)(\S.*)$")

# -- denials -------------------------------------------------------------------------------------
_TRUE = r"(?:true|correct|accurate|the\s+case|so)"
#: Said of a statement ("that's a lie", "which is false"), never of a thing ("it's fake", "it's
#: rubbish" may say what a phone is); only the first four deny with no "that" ("(not true)").
_FALSE = r"(?:false|untrue|(?:(?:just|all|totally|completely)\s+)?(?:a\s+)?(?:lie|lies|rumou?r|myth))"
_FALSE_BARE = r"(?:false|untrue|a\s+lie|all\s+lies)"
#: "that's", "thats", "it is", "which was" ...
_BE = rf"(?:that|this|it|which)(?:{_APOS}s|s|\s+is|\s+was)"
_SAID_DENIAL = (
    rf"(?:{_BE}\s+(?:not|no\s+longer)|(?:that|this|it|which)\s+(?:isn|wasn){_APOS}?t)\s+{_TRUE}"
    rf"|{_BE}\s+{_FALSE}"
    rf"|(?:that|this|it|which)\s+(?:turned\s+out|proved)\s+(?:to\s+be\s+)?(?:{_FALSE}|wrong|incorrect)"
    rf"|(?:that|this|it|which)\s+turned\s+out\s+not\s+to\s+be\s+{_TRUE}"
    rf"|i\s+(?:don{_APOS}?t|do\s+not|never)\s+believe\s+(?:it|that|this|him|her|them|a\s+word(?:\s+of\s+it)?)"
    rf"|i\s+doubt\s+(?:it|that)"
)
#: A denial that needs no "that": "(not true)", "— not really", "Not true!".
_BARE_DENIAL = rf"(?:not\s+{_TRUE}|{_FALSE_BARE})"
_AFTER = r"(?:,?\s*(?:though|anyway|anymore|any\s+more|at\s+all|either|of\s+course|obviously|btw))?\)?"
_END = r"(?=\s*(?:[,;.!?)]|$))"
_JOIN = r"(?:(?:but|and|though|although|yet|well|oh|no|nope|actually|sadly),?\s+)*"
#: A denial after what it denies (a separator before it: a comma, semicolon, dash or bracket).
_AFTER_CLAUSE = re.compile(
    rf"(?:,|;|\s[-–—]|[–—]|\s?\()\s*{_JOIN}(?:{_SAID_DENIAL}|{_BARE_DENIAL}|not\s+really){_AFTER}{_END}", re.I
)
#: A denial that opens a sentence: it takes back the sentence said before it.
_OPENING = re.compile(rf"^{_JOIN}(?:{_SAID_DENIAL}|{_BARE_DENIAL}){_AFTER}{_END}", re.I)
#: A denial said in front of what it denies: "It's not true that …", "It is false that …", "It's a
#: myth that …", "Not true that …" (the same words as a denial after it, then "that").
_DENIED_NEXT = re.compile(
    rf"^{_JOIN}(?:{_BE}\s+(?:not|no\s+longer)\s+{_TRUE}|(?:it|this)\s+(?:isn|wasn){_APOS}?t\s+{_TRUE}"
    rf"|{_BE}\s+{_FALSE}|not\s+{_TRUE})\s+that\s+",
    re.I,
)
#: Where a clause denied in front ends: what follows ("…; she lives in Porto", "…, but he …") is said.
_DENIED_END = re.compile(r"\s*(?:;|\s[-–—]\s|,\s*(?=(?:but|and|though|actually|in\s+fact|she|he|they|i|we)\b))", re.I)
#: A subject clause denied after it: "That Dana lives in Lisbon is a myth / is not true / was false".
_DENIED_THAT = re.compile(rf"^that\s+(\S+(?:\s+\S+){{2,}}?)\s+(?:is|was)\s+(?:not\s+{_TRUE}|{_FALSE})\W*$", re.I)
#: Said true: "It's true that …", "It is true, …", "True, …": the statement after it is said.
_AFFIRMED = re.compile(rf"^(?:it|that)(?:{_APOS}s|\s+is)\s+(?:true|correct)(?:\s+that\s+|\s*,\s*)|^true,\s+", re.I)


def unlabel(sentence: str, person: Callable[[list[str]], str | None]) -> str | None:
    """``sentence`` without the labels in front of it; None when its label is another person.

    ``person(words)``: ``"speaker"`` when the label's words name the speaker ("Alice: I moved",
    said by Alice: her own line), ``"other"`` for anyone else, None for no person. A label that
    is neither a note nor a person (a heading: "Budget: 900 euros") is left in place: the rules
    read the sentence as before."""
    while (m := _LABEL.match(sentence)) is not None:
        words = m.group(1).split()
        colon = sentence[m.end(1) :].lstrip().startswith(":")
        who = person(words) if colon else None
        if note_label(words) or who == "speaker":
            sentence = m.group(2)
            continue
        return None if who == "other" else sentence
    return sentence


def note_label(words: list[str]) -> bool:
    """Do ``words`` ("Quick update", "PS", "For the record") make a note label?"""
    low = [w.casefold().strip(".;") for w in words]
    if " ".join(low) in LABEL_PHRASES:
        return True
    return bool(low) and low[-1] in LABEL_NOUNS and all(w in LABEL_MODIFIERS for w in low[:-1])


def denials(clause: str) -> tuple[bool, list[tuple[str, bool]]]:
    """``(takes back the sentence before, parts)``: ``clause`` cut at each denial in it, each part
    with whether the speaker denied it. A denial opening the clause denies what was said before it
    (``True`` first); the part before a denial later in it is denied; the rest is said."""
    back = False
    opening = _OPENING.match(clause)
    if opening is not None:
        back, clause = True, _rest(clause, opening.end())
    parts: list[tuple[str, bool]] = []
    denied_that = _DENIED_THAT.match(clause)
    if denied_that is not None:
        return back, [(denied_that.group(1), True)]
    affirmed = _AFFIRMED.match(clause)
    if affirmed is not None:
        clause = _rest(clause, affirmed.end())
    denied_next = _DENIED_NEXT.match(clause)
    if denied_next is not None:
        clause = clause[denied_next.end() :]
        end = _DENIED_END.search(clause)
        parts.append((clause[: end.start()] if end else clause, True))
        clause = _rest(clause, end.end()) if end else ""
    while clause and (m := _AFTER_CLAUSE.search(clause)) is not None:
        parts.append((clause[: m.start()].strip(), True))
        clause = _rest(clause, m.end())
    if clause:
        parts.append((clause, False))
    return back, [(text, denied) for text, denied in parts if text]


def _rest(clause: str, end: int) -> str:
    """What follows a denial: its punctuation off, its first letter up ("he lives in Kyoto" → "He …")."""
    rest = clause[end:].lstrip(" ,;.!?)")
    return rest[:1].upper() + rest[1:] if rest else ""
