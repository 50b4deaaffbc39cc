"""Is a statement meant as said? Sarcasm, a question put as a statement, and a condition.

Why (helper mining33, session 33, generated messages): "I love Mondays /s" was stored as
"Alice loves Mondays /s." and "I love Mondays... NOT" as "Alice loves Mondays." — the speaker
says the opposite; "Not sure whether Dana moved to Oslo." and "Wondering if Dana moved to Oslo."
were stored as facts about Dana, though they ask; "I'll move to Berlin if I get the job." and "If
Dana gets the job she'll move to Berlin." were firm plans, though nothing is decided.

- ``sarcastic``: a clause marked as sarcasm — "/s" at its end, a closing "NOT" ("… NOT!", "… —
  not!"), "…, said no one ever", "Yeah right, …" in front — states nothing. ``retracts``: a
  sentence that is only "Not." / "NOT!" takes back the sentence before it, as "That's not true."
  does (``people.framing``).
- ``asks``: "I wonder if …", "I was wondering whether …", "Not sure if …", "No idea whether …",
  "Curious whether …": a question, and like one it yields nothing.
- ``conditional``: a claim that holds only if something else does — it opens with "If" /
  "Unless" / "In case" / "Provided" / "Assuming" / "As long as", or a will / would / could … is
  followed by "if" or "unless" ("I'd move to Berlin if I could") — is written as a hypothesis,
  its condition kept in its words. "I asked if …", "I'll check if …" ("if" meaning whether) are no
  condition, nor are "Even if it rains, I'm going" and "… if that's what you mean".
"""

from __future__ import annotations

import re

_SARCASM_END = re.compile(
    r"(?:\s/s(?:arcasm)?|(?:\.{2,}|…|,|\s-+|\s—)\s*(?-i:NOT|Not|not)\s*!*|\s(?-i:NOT)!*|,?\s+said\s+no\s+one\s+ever)"
    r"[.!]*\s*$",
    re.I,
)
_SARCASM_LEAD = re.compile(r"^(?:(?:oh|well|and)\W+)?(?:yeah|yea|ya)\s*,?\s+right\b[,.!]?\s*", re.I)
_RETRACTS = re.compile(r"^\s*(?i:not)\s*[.!]+\s*$|^\s*NOT\s*$")
_ASKS = re.compile(
    r"^(?:(?:i\s+(?:was\s+|am\s+|['’]m\s+)?(?:just\s+)?)?(?:wonder|wondering|wondered|curious)"
    r"|(?:i\s+am\s+|i['’]m\s+)?(?:not\s+sure|unsure|no\s+idea)"
    r"|(?:i\s+)?(?:don['’]t|do\s+not)\s+know|idk|dunno)"
    r"\s+(?:if|whether)\b",
    re.I,
)
_IF_FIRST = re.compile(r"^(?:if|unless|in\s+case|provided|assuming|as\s+long\s+as|only\s+if)\b", re.I)
#: An "if" that sets no condition on what is said: "even if" (it holds all the same), "if that's
#: what you mean", "if you must know".
_NO_CONDITION = re.compile(
    r"\beven\s+if\b|\bif\s+(?:that['’]s\s+what\s+you\s+mean|you\s+must\s+know|that\s+makes\s+sense|you\s+know\s+what)",
    re.I,
)
_MODAL_IF = re.compile(
    r"\b(?:will|would|['’]ll|['’]d|could|can|might|may|should|shall|gonna|going\s+to)\b(?P<between>.*?)"
    r"\b(?P<before>\w+)\s+(?:if|unless)\b",
    re.I,
)
#: Words after which "if" means "whether" ("ask if", "see if", "check if"): no condition.
_WHETHER_VERBS = frozenset(
    str.split(
        """
    ask asks asked asking see sees saw seeing check checks checked checking know knows knew find found wonder
    wonders wondered sure decide decides decided tell tells told out
    """
    )
)


def sarcastic(clause: str) -> bool:
    """Is ``clause`` marked as sarcasm ("… /s", "… NOT!", "Yeah right, …", "…, said no one ever")?"""
    return bool(_SARCASM_END.search(clause) or _SARCASM_LEAD.match(clause))


def retracts(sentence: str) -> bool:
    """Is ``sentence`` only a sarcastic "Not." taking back the one before it?"""
    return bool(_RETRACTS.match(sentence))


def asks(clause: str) -> bool:
    """Is ``clause`` a question put as a statement ("I wonder if …", "Not sure whether …")?"""
    return bool(_ASKS.match(clause.strip()))


def conditional(clause: str) -> bool:
    """Does what ``clause`` says hold only on a condition ("If I get the job …", "… if I could")?"""
    s = clause.strip()
    if _NO_CONDITION.search(s):
        return False
    if _IF_FIRST.match(s):
        return True
    m = _MODAL_IF.search(s)
    return m is not None and m.group("before").casefold() not in _WHETHER_VERBS
