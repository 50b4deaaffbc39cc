"""The relations a sentence states, and the name patterns they are read with: "my sister Dana",
"Omar is my manager", "Marco is Jess's dad", "I'm Yuki's cousin", "my friends Tom and Liam",
"Yuki's fiance is called Kenji", "Dana, my sister,", "Lucia, who is my neighbour,", "Theo, the
best friend of my son Max,", "that's Sam, my wife's brother". Each relation is a claim of its own
(``Proposal.relation``) and is taken into the context as it is found, so a "his" further on may
mean its person. Moved out of ``extract`` (which was past 750 lines); no change in behaviour.
"""

from __future__ import annotations

import re

from reverie.conversation.people.lexicon import RELATION_ADJECTIVES, RELATIONS
from reverie.conversation.people.recognise import Context, in_slot, is_common, listed_name
from reverie.conversation.proposal import Proposal
from reverie.conversation.rewrite import finish as _finish
from reverie.conversation.rewrite import first_person as _first_person
from reverie.conversation.rewrite import gender_of_pronoun as _gender_of_pronoun

NAME = r"(?:(?:Dr|Mr|Mrs|Ms|Prof)\.?\s|(?:Professor|Doctor)\s)?[A-Z][\w'-]*(?:\s[A-Z][\w'-]*)?"
_ADJ = r"(?:(?:" + "|".join(sorted(RELATION_ADJECTIVES)) + r")\s)?"
_NOUNS = "|".join(sorted((re.escape(r) for r in RELATIONS), key=len, reverse=True))
_REL = r"(?i:" + _ADJ + r"(?:" + _NOUNS + r"))"
_REL_PLURAL = r"(?i:" + _ADJ + r"(?:" + _NOUNS + r")(?:es|s))"
#: "my sister Dana", "our CTO Hannah", "his girlfriend Ana", "my flatmate jonas" (anywhere in a sentence).
APPOSITIVE = re.compile(r"\b((?i:my|our|his|her|your))\s(" + _REL + r"),?\s(" + NAME + r"|[a-z][\w'-]*)")
#: "my friends Tom and Liam".
PLURAL = re.compile(r"\b((?i:my|our|his|her))\s(" + _REL_PLURAL + r")\s(" + NAME + r")\sand\s(" + NAME + r")")
#: "Marco is Jess's dad".
_IS_POSSESSED = re.compile(r"^(" + NAME + r")\sis\s(" + NAME + r")['’]s\s(" + _REL + r")\b")
#: "I'm Dana's sister", "I'm his mentor".
I_AM = re.compile(r"^(?i:i'm|i am)\s(?:(" + NAME + r")['’]s|((?i:his|her)))\s(" + _REL + r")\b")
#: "My sister's name is Dana".
NAME_IS = re.compile(r"\b((?i:my|our|his|her))\s(" + _REL + r")['’]s\sname\sis\s(" + NAME + r")")
#: "Dana is my sister", "Rob is my old boss from Acme".
IS_MY = re.compile(r"^(" + NAME + r")\sis\s((?i:my|our|his|her))\s(" + _REL + r")\b")
#: "Yuki's fiance is called Kenji".
POSSESSED_IS = re.compile(r"^(" + NAME + r")'s\s(" + _REL + r")\sis\s(?:called\s|named\s)?(" + NAME + r")")
#: "Omar's wife Lena grew up in Berlin" (a sentence that opens with it).
POSSESSED_LEAD = re.compile(r"^(" + NAME + r")['’]s\s(" + _REL + r")\s(" + NAME + r")")
#: "Dana, my sister, just got engaged".
COMMA_MY = re.compile(r"^(" + NAME + r"),\s((?i:my|our|his|her))\s(" + _REL + r")\b")
#: "My wife is Mira".
MY_R_IS = re.compile(r"^((?i:my|our))\s(" + _REL + r")\sis\s(" + NAME + r")")
#: "my wife's brother Sam": a person named by a relation of a relation.
CHAIN = re.compile(r"^((?i:my|our))\s(" + _REL + r")['’]s\s(" + _REL + r")\s(" + NAME + r")")
#: "Dana and her husband Omar": the "her" is Dana.
_AND_OWNER = re.compile(r"(" + NAME + r")\sand\s$")
#: "Lucia, who is my neighbour, might come too".
_WHO_IS = re.compile(r"^(" + NAME + r"),\s(?i:who\sis|who's)\s((?i:my|our|his|her))\s(" + _REL + r"),?\s*(.*)$")
#: "Theo, the best friend of my son Max, is coming".
_THE_R_OF = re.compile(
    r"^("
    + NAME
    + r"),\s(?i:the|a|an)\s("
    + _REL
    + r")\sof\s(?:(?i:my|our|his|her)\s"
    + _REL
    + r"\s)?("
    + NAME
    + r"),\s*(.*)$"
)
#: "Pete, the guy at number 12." / "Pete, the guy next door, offered to pay".
_THE_NOUN = re.compile(
    r"^(" + NAME + r"),\s((?i:the|a)\s(?i:guy|woman|man|girl|lady|bloke|kid|boy|one)\b[^,]*?)(?:,\s*(.*)|\.?)$"
)
#: "that's Sam, my wife's brother".
_THAT_IS = re.compile(r"^(?i:that's|that is|this is|it's)\s(" + NAME + r"),\s(.+)$")


def relations(s: str, speaker: str, ctx: Context) -> list[Proposal]:
    """The relations a sentence states, in the order said (so "his" in "my brother Karim and his
    wife Sophie" is Karim); each is taken into the context as it is found."""
    found: list[tuple[int, Proposal]] = []
    possessed = POSSESSED_IS.match(s) or POSSESSED_LEAD.match(s)
    if possessed and in_slot(possessed.group(1)) and in_slot(possessed.group(3)):
        found.append((0, _relation(trim_name(possessed.group(3)), possessed.group(2).lower(), possessed.group(1))))
    is_my = IS_MY.match(s) or COMMA_MY.match(s)
    if is_my and in_slot(is_my.group(1)):
        owner = _owner(is_my.group(2), speaker, ctx, is_my.group(3))
        if owner is not None:
            found.append((0, _relation(trim_name(is_my.group(1)), is_my.group(3).lower(), owner)))
    found += _more_relations(s, speaker, ctx)
    for m in APPOSITIVE.finditer(s):
        who = _appositive_name(m.group(3))
        owner = _owner(m.group(1), speaker, ctx, m.group(2))
        joint = _AND_OWNER.search(s[: m.start()])
        if joint and m.group(1).lower() in ("his", "her") and in_slot(joint.group(1)):
            owner = trim_name(joint.group(1))  # "Dana and her husband Omar": Dana's
            ctx.group, ctx.group_message = (owner, who or owner), ctx.message
        if who and owner is not None and not any(p.subject == who for _, p in found):
            found.append((m.start(), _relation(who, m.group(2).lower(), owner)))
            ctx.relate(who, m.group(2), owner)  # at once: a "his" further on may mean this person
    out = [p for _, p in sorted(found, key=lambda f: f[0])]
    for p in out:
        if p.relation is not None:
            ctx.relate(p.relation[0], p.relation[1], p.relation[2])
    return out


def apposition(s: str, speaker: str, ctx: Context) -> tuple[str, list[Proposal]]:
    """A person said with a clause or phrase in apposition, and the sentence without it:
    "Lucia, who is my neighbour, might come" → (Lucia's) relation, "Lucia might come";
    "Theo, the best friend of my son Max, is coming" → Theo is Max's friend, "Theo is coming";
    "Pete, the guy at number 12." → "Pete is the guy at number 12."; "that's Sam, my wife's
    brother" → "Sam is my wife's brother". The apposition is evidence the name is a person."""
    m = _WHO_IS.match(s)
    if m and in_slot(m.group(1)):
        owner = _owner(m.group(2), speaker, ctx, m.group(3))
        name = trim_name(m.group(1))
        found = [_relation(name, m.group(3).lower(), owner)] if owner is not None else []
        ctx.mention(name)
        return (f"{name} {m.group(4)}" if len(m.group(4).split()) > 1 else ""), found
    m = _THE_R_OF.match(s)
    if m and in_slot(m.group(1)) and in_slot(m.group(3)):
        name, of = trim_name(m.group(1)), trim_name(m.group(3))
        rels = relations(s[m.start(2) :], speaker, ctx)  # "my son Max" inside the apposition
        ctx.mention(name)
        return f"{name} {m.group(4)}", [*rels, _relation(name, m.group(2).lower(), of)]
    m = _THE_NOUN.match(s)
    if m and (in_slot(m.group(1)) or not is_common(m.group(1))):
        name = trim_name(m.group(1))
        ctx.mention(name)
        if m.group(3) and len(m.group(3).split()) > 1:
            return f"{name} {m.group(3)}", []
        return "", [Proposal(_finish(f"{name} is {m.group(2)}"), name, "fact", first_person=False)]
    m = _THAT_IS.match(s)
    if m and in_slot(m.group(1)):
        name = trim_name(m.group(1))
        ctx.mention(name)
        text = _first_person(f"{name} is {m.group(2).rstrip('.!')}", speaker) or ""
        return "", [Proposal(_finish(text), name, "fact", first_person=False, mentions=(speaker,))]
    return s, []


def _more_relations(s: str, speaker: str, ctx: Context) -> list[tuple[int, Proposal]]:
    """ "Marco is Jess's dad", "I'm Dana's sister", "my friends Tom and Liam", "my sister's name is Dana"."""
    found: list[tuple[int, Proposal]] = []
    m = MY_R_IS.match(s)
    if m and in_slot(m.group(3)):
        found.append((0, _relation(trim_name(m.group(3)), m.group(2).lower(), speaker)))
    m = _IS_POSSESSED.match(s)
    if m and in_slot(m.group(1)) and in_slot(m.group(2)):
        found.append((0, _relation(trim_name(m.group(1)), m.group(3).lower(), m.group(2))))
    m = I_AM.match(s)
    if m:
        owner = m.group(1) if m.group(1) and in_slot(m.group(1)) else None
        if m.group(2):
            owner = ctx.refer(_gender_of_pronoun(m.group(2)))
        if owner is not None:
            found.append((0, _relation(speaker, m.group(3).lower(), owner)))
    for m in PLURAL.finditer(s):
        owner = _owner(m.group(1), speaker, ctx, m.group(2))
        noun = re.sub(r"(?:es|s)$", "", m.group(2).lower())
        noun = noun if noun.split()[-1] in RELATIONS else m.group(2).lower()[:-1]
        for g in (3, 4):
            if owner is not None and in_slot(m.group(g)):
                found.append((m.start(g), _relation(trim_name(m.group(g)), noun, owner)))
    for m in NAME_IS.finditer(s):
        owner = _owner(m.group(1), speaker, ctx, m.group(2))
        if owner is not None and in_slot(m.group(3)):
            found.append((m.start(), _relation(trim_name(m.group(3)), m.group(2).lower(), owner)))
    return found


def _appositive_name(raw: str) -> str | None:
    """The name after "my sister": capitalised ("Dana", "Bob Smith"), or a lower-case given name
    a chat may type ("my flatmate jonas"); None for a word that is no name ("my sister lives")."""
    first = raw.split()[0]
    if in_slot(first) or in_slot(raw):
        return trim_name(raw)
    if listed_name(first) and not is_common(first):
        return first.capitalize()
    return None


def trim_name(name: str) -> str:
    """A name caught with a following capitalised word that is not a name ("Ana Monday")."""
    words = name.split()
    if words and words[0].casefold().rstrip(".") in ("dr", "mr", "mrs", "ms", "prof", "professor", "doctor"):
        return name  # "Dr Ahmed": the title and the name
    return words[0] if len(words) > 1 and (is_common(words[1]) or listed_name(words[1])) else name


def _owner(possessive: str, speaker: str, ctx: Context, relation: str) -> str | None:
    """Whose relation "my" / "his" / "her" / "your" names (None when a pronoun points nowhere sure)."""
    low = possessive.lower()
    if low in ("my", "our"):
        return speaker
    if low == "your":
        return ctx.addressee
    return ctx.refer("m" if low == "his" else "f")


def _relation(who: str, rel: str, owner: str) -> Proposal:
    noun = rel.split()[-1]
    text = f"{who} is {owner}'s {rel}."
    return Proposal(text, who, "relation", first_person=False, mentions=(owner,), relation=(who, noun, owner))
