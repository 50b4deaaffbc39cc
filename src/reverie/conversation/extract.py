"""The default extractor: rules that turn what people said into candidate claims, and say whom each is about.

Rule-based, deterministic and offline. For each sentence of a user's message it finds the
subject (the speaker for "I" / "my" / "we"; a named person; the person a "she" / "his" points
back to; the speaker of quoted speech), rewrites first-person words to the speaker's name
("I live in Porto" said by Alice → "Alice lives in Porto"), and keeps the sentence when it
states something: questions, greetings, moods ("I'm worried") and fragments are left out.
Relations ("my sister Dana", "Omar is my manager", "Yuki's fiance is called Kenji") become
claims of their own. Assistant and system messages and tool calls are never mined: the first
are the agent's own words, the others are not things a person said.

Proposals only: what is written is decided in ``conversation.learn`` (and by ``remember``).
"""

from __future__ import annotations

import re
from collections.abc import Sequence
from dataclasses import dataclass, field

from reverie.conversation.people.lexicon import (
    ADVERBS,
    FEELINGS,
    IRREGULAR_VERBS,
    MODALS,
    POSSESSIVE_PRONOUNS,
    RELATION_ADJECTIVES,
    RELATIONS,
    SPEECH_VERBS,
    SUBJECT_PRONOUNS,
    UNCHANGED_VERBS,
)
from reverie.conversation.people.names import may_be_name
from reverie.model.conversation import Entry
from reverie.model.redact import REDACTED

#: What a claim is, by the words that carry it.
CATEGORIES = ("fact", "preference", "plan", "decision", "relation")
_PREFERENCE = re.compile(r"\b(love|loves|like|likes|hate|hates|prefer|prefers|favou?rite|enjoy|enjoys|dislike)\b", re.I)
_DECISION = re.compile(r"\b(decided|decide|chose|chosen|agreed|settled on|going with|go with)\b", re.I)
_PLAN = re.compile(
    r"\b(will|'ll|going to|planning|plan to|plans to|want to|wants to|next (week|month|year)|tomorrow|"
    r"on (monday|tuesday|wednesday|thursday|friday|saturday|sunday)|starting|visiting)\b",
    re.I,
)
_NAME = r"(?:(?:Dr|Mr|Mrs|Ms|Prof)\.?\s|(?:Professor|Doctor)\s)?[A-Z][\w'-]*(?:\s[A-Z][\w'-]*)?"
_REL = (
    r"(?i:(?:(?:"
    + "|".join(sorted(RELATION_ADJECTIVES))
    + r")\s)?(?:"
    + "|".join(sorted((re.escape(r) for r in RELATIONS), key=len, reverse=True))
    + r"))"
)
#: "my sister Dana", "our CTO Hannah", "his girlfriend Ana" (anywhere in a sentence).
_APPOSITIVE = re.compile(r"\b((?i:my|our|his|her))\s(" + _REL + r")\s(" + _NAME + r")")
#: "Dana is my sister", "Rob is my old boss from Acme".
_IS_MY = re.compile(r"^(" + _NAME + r")\sis\s((?i:my|our|his|her))\s(" + _REL + r")\b")
#: "Yuki's fiance is called Kenji".
_POSSESSED_IS = re.compile(r"^(" + _NAME + r")'s\s(" + _REL + r")\sis\s(?:called\s|named\s)?(" + _NAME + r")")
_QUOTED = re.compile(r"^(" + _NAME + r")\s(?:" + "|".join(SPEECH_VERBS) + r")[:,]?\s[\"“](.+?)[\"”]")
_LEAD = re.compile(
    r"^(?:(?:yes|no|yeah|yep|nope|well|oh|so|and|but|also|thanks|ok|okay|sure|honestly|sometimes|probably)\b[,.!]?\s*)+",
    re.I,
)
_SPLIT = re.compile(r"(?<=[.!?])\s+(?=[\"“A-Z0-9])")
_TITLE_DOT = re.compile(r"\b(Dr|Mr|Mrs|Ms|Prof|St)\.\s")
_QUESTION_START = re.compile(
    r"^(what|who|whom|whose|which|where|when|why|how|should|can|could|would|do|does|did|is|are|am|will|any)\b", re.I
)


@dataclass(frozen=True, slots=True)
class Proposal:
    """One candidate claim from one message.

    ``subject`` is the name (as said, or the speaker's) of the person it is about; ``mentions``
    the other people it names; ``relation`` = (person, relation noun, of whom) for a relation.
    ``first_person``: the speaker said it of themselves (stated), else it is hearsay (observed).
    """

    text: str
    subject: str | None
    category: str
    first_person: bool
    mentions: tuple[str, ...] = ()
    relation: tuple[str, str, str] | None = None
    origin: str = "rules"
    confidence: float = 0.7


@dataclass(slots=True)
class _Context:
    """What the sentences so far of a session established: the person a pronoun points back to."""

    last_person: str | None = None
    known: list[str] = field(default_factory=list)


def sentences(text: str) -> list[str]:
    """The sentences of a message (titles such as "Dr." do not end one)."""
    protected = _TITLE_DOT.sub(lambda m: m.group(1) + "\x00 ", text.replace("\n", " "))
    return [s.replace("\x00", ".").strip() for s in _SPLIT.split(protected) if s.strip()]


def minable(entry: Entry) -> bool:
    """Only people's messages are mined: not the assistant's words, system prompts or tool calls."""
    return entry.kind == "message" and entry.role == "user" and entry.text != REDACTED


class RuleExtractor:
    """The default extractor (no model). ``propose`` reads a session's messages in order."""

    name = "rules"

    def propose(self, messages: Sequence[Entry]) -> list[tuple[Entry, list[Proposal]]]:
        ctx = _Context()
        out: list[tuple[Entry, list[Proposal]]] = []
        for m in messages:
            if not minable(m):
                continue
            speaker = m.speaker or "the user"
            found: list[Proposal] = []
            for s in sentences(m.text):
                found.extend(_sentence(s, speaker, ctx))
            out.append((m, _dedupe(found)))
        return out


def _dedupe(found: list[Proposal]) -> list[Proposal]:
    seen: set[str] = set()
    out = []
    for p in found:
        if p.text.casefold() not in seen:
            seen.add(p.text.casefold())
            out.append(p)
    return out


def _sentence(raw: str, speaker: str, ctx: _Context) -> list[Proposal]:
    """The proposals of one sentence: its relations, then its main claim (if it states one)."""
    s = _LEAD.sub("", raw).strip()
    if not s or s.endswith("?") or _QUESTION_START.match(s):
        return []
    quoted = _QUOTED.match(s)
    if quoted and may_be_name(quoted.group(1).split()[0]):
        who = quoted.group(1)
        _mention(ctx, who)
        inner = quoted.group(2).strip().rstrip(".!")
        claim = _first_person(inner, who)
        if claim is None:
            return []
        return [Proposal(_finish(claim), who, _category(inner), first_person=False)]
    before = ctx.last_person  # what a "she" / "his" in this sentence points back to
    out = _relations(s, speaker, ctx, before)
    ctx.last_person, latest = before, ctx.last_person
    main = _main(s, speaker, ctx, out)
    if ctx.last_person == before:
        ctx.last_person = latest
    return out + ([main] if main is not None else [])


def _relations(s: str, speaker: str, ctx: _Context, before: str | None) -> list[Proposal]:
    out: list[Proposal] = []
    possessed = _POSSESSED_IS.match(s)
    if possessed and may_be_name(possessed.group(1)) and may_be_name(possessed.group(3)):
        owner, rel, who = possessed.group(1), possessed.group(2).lower(), possessed.group(3)
        out.append(_relation(who, rel, owner))
    is_my = _IS_MY.match(s)
    if is_my and may_be_name(is_my.group(1).split()[0]):
        owner = _owner(is_my.group(2), speaker, before)
        if owner is not None:
            out.append(_relation(is_my.group(1), is_my.group(3).lower(), owner))
    for m in _APPOSITIVE.finditer(s):
        who = _trim_name(m.group(3))
        owner = _owner(m.group(1), speaker, before)
        if owner is not None and who and may_be_name(who.split()[0]):
            out.append(_relation(who, m.group(2).lower(), owner))
    for p in out:
        _mention(ctx, p.subject or "")
    return out


def _trim_name(name: str) -> str:
    """A name caught with a following capitalised word that is not a name ("Ana Monday")."""
    words = name.split()
    return words[0] if len(words) > 1 and not may_be_name(words[1]) else name


def _owner(possessive: str, speaker: str, before: str | None) -> str | None:
    return speaker if possessive.lower() in ("my", "our") else before


def _relation(who: str, rel: str, owner: str) -> Proposal:
    noun = rel.split()[-1]
    text = f"{who} is {owner}'s {rel}."
    return Proposal(text, who, "relation", first_person=False, mentions=(owner,), relation=(who, noun, owner))


def _main(s: str, speaker: str, ctx: _Context, relations: list[Proposal]) -> Proposal | None:
    """The sentence's own claim, with its subject, or None when it states nothing about anyone."""
    words = s.split()
    first = words[0].lower().strip(",")
    stated = s.rstrip(".!").strip()
    if first in ("i", "i'm", "i've", "i'll", "i'd", "my", "we", "we're", "we've", "we'll", "our"):
        if _mood(stated):
            return None
        subject = speaker
        lead = _APPOSITIVE.match(stated)
        if lead and lead.start() == 0 and relations:  # "My sister Dana lives in Lisbon": about Dana
            subject = relations[0].subject or speaker
            if len(stated[lead.end() :].split()) < 2:
                return None  # only the relation was said
        text = _first_person(stated, speaker)
        if text is None:
            return None
        mentions = tuple(p.subject for p in relations if p.subject and p.subject != subject)
        return Proposal(_finish(text), subject, _category(stated), first_person=subject == speaker, mentions=mentions)
    if first in SUBJECT_PRONOUNS or first in POSSESSIVE_PRONOUNS:
        who = ctx.last_person
        if who is None or len(words) < 3:
            return None
        rest = " ".join(words[1:])
        if first in POSSESSIVE_PRONOUNS:
            text = f"{who}'s {rest}"
            subject = (relations[0].subject if relations and _APPOSITIVE.match(stated) else None) or who
        else:
            text = f"{who}{_pronoun_verb(words[0])} {rest}"
            subject = who
        return Proposal(_finish(_first_person(text, speaker) or text), subject, _category(stated), first_person=False)
    return _named(s, stated, words, speaker, ctx, relations)


def _named(
    s: str, stated: str, words: list[str], speaker: str, ctx: _Context, relations: list[Proposal]
) -> Proposal | None:
    """A sentence that opens with a name ("Bob used to work at Google", "Sam's birthday is ...")."""
    m = re.match(_NAME, s)
    if m is None:
        return None
    name = m.group(0)
    head = name.split()
    if not may_be_name(head[0]) or (len(head) > 1 and not may_be_name(head[1])):
        name = head[0]
        if not may_be_name(name):
            return None
    rest = s[len(name) :].strip()
    if name.endswith("'s"):
        name = name[:-2]
    elif rest.startswith("'s"):
        rest = rest[2:].strip()
    if len(rest.split()) < 2 and not relations:
        return None
    if relations and any(p.text.rstrip(".") == stated for p in relations):
        return None  # "Dana is my sister." is the relation itself
    if relations and _IS_MY.match(s):
        return None
    if relations and _POSSESSED_IS.match(s):
        return None
    _mention(ctx, name)
    text = _first_person(stated, speaker)
    if text is None or len(rest.split()) < 2:
        return None
    mentions = tuple(p.subject for p in relations if p.subject and p.subject != name)
    return Proposal(_finish(text), name, _category(stated), first_person=False, mentions=mentions)


def _mention(ctx: _Context, name: str) -> None:
    if name:
        ctx.last_person = name
        ctx.known.append(name)


def _mood(stated: str) -> bool:
    """ "I'm worried", "I was surprised", "I'll miss him", "I'm thinking about it": no fact."""
    low = stated.lower()
    words = re.findall(r"[\w']+", low)
    rest = [
        w
        for w in words
        if w
        not in (
            "i",
            "i'm",
            "am",
            "was",
            "feel",
            "so",
            "very",
            "really",
            "honestly",
            "kind",
            "of",
            "a",
            "bit",
            "little",
            "just",
            "too",
        )
    ]
    if len(rest) <= 1 and (not rest or rest[0] in FEELINGS):
        return True
    return low.startswith(("i'm thinking about", "i'll miss", "i miss", "i'll think", "i'm not sure", "i don't know"))


def _pronoun_verb(word: str) -> str:
    low = word.lower()
    return {
        "he's": " is",
        "she's": " is",
        "he'll": " will",
        "she'll": " will",
        "he'd": " would",
        "she'd": " would",
    }.get(low, "")


def _category(text: str) -> str:
    if _DECISION.search(text):
        return "decision"
    if _PREFERENCE.search(text):
        return "preference"
    if _PLAN.search(text):
        return "plan"
    return "fact"


def _finish(text: str) -> str:
    text = text.strip()
    text = text[0].upper() + text[1:] if text else text
    return text if text.endswith((".", "!")) else text + "."


_CONTRACTIONS = {
    "i'm": " is",
    "i've": " has",
    "i'll": " will",
    "i'd": " would",
    "we're": " are",
    "we've": " have",
    "we'll": " will",
    "we'd": " would",
}


def _first_person(text: str, speaker: str) -> str | None:
    """``text`` with "I" / "me" / "my" / "we" / "our" put in the speaker's name; None if nothing is left."""
    words = text.split()
    if not words:
        return None
    out: list[str] = []
    i = 0
    while i < len(words):
        w = words[i]
        low = w.lower()
        core = low.strip(",.;:!")
        tail = w[len(w.rstrip(",.;:!")) :]
        if core in _CONTRACTIONS:
            who = speaker if core.startswith("i") else f"{speaker} and others"
            out.append(who + _CONTRACTIONS[core] + tail)
        elif core == "i":
            out.append(speaker + tail)
            i = _conjugate(words, i + 1, out)
            continue
        elif core == "we":
            out.append(f"{speaker} and others{tail}")
        elif core in ("my", "our"):
            out.append(f"{speaker}'s{tail}")
        elif core in ("me", "myself", "us"):
            out.append(speaker + tail)
        elif core == "mine":
            out.append(f"{speaker}'s{tail}")
        else:
            out.append(w)
        i += 1
    return " ".join(out)


def _conjugate(words: list[str], i: int, out: list[str]) -> int:
    """After "I": keep adverbs, then give the verb its third-person form ("I live" → "lives")."""
    while i < len(words) and words[i].lower().strip(",") in ADVERBS:
        out.append(words[i])
        i += 1
    if i >= len(words):
        return i
    w = words[i]
    low = w.lower()
    core = low.strip(",.;:!")
    tail = w[len(w.rstrip(",.;:!")) :]
    if core in ("don't", "do not"):
        out.append("doesn't" + tail)
    elif core in ("am", "was", "were"):
        out.append(("is" if core == "am" else "was") + tail)
    elif core in IRREGULAR_VERBS:
        out.append(IRREGULAR_VERBS[core] + tail)
    elif (
        core in MODALS
        or core in UNCHANGED_VERBS
        or (core.endswith("ed") and not core.endswith("eed"))
        or "'" in core
        or not core.isalpha()
    ):
        out.append(w)
    elif core.endswith(("s", "sh", "ch", "x", "z", "o")):
        out.append(core + "es" + tail)
    elif core.endswith("y") and len(core) > 2 and core[-2] not in "aeiou":
        out.append(core[:-1] + "ies" + tail)
    else:
        out.append(core + "s" + tail)
    return i + 1
