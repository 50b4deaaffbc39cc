"""The default extractor: rules that turn what people said into candidate claims, and say whom each is about.

Rule-based, deterministic and offline. For each sentence of a user's message it finds the
subject (the speaker for "I" / "my" / "we"; a named person — named with evidence, not just a
capital letter, see ``people.recognise``; the person a "she" / "his" points back to, chosen by
salience and gender in ``recognise.Context.refer``; the speaker of quoted speech), rewrites
first-person words to the speaker's name ("I live in Porto" said by Alice → "Alice lives in
Porto"), and keeps the sentence when it states something: questions, greetings, moods ("I'm
worried") and fragments are left out.
Relations ("my sister Dana", "Omar is my manager", "Yuki's fiance is called Kenji") become
claims of their own. Assistant and system messages and tool calls are never mined: the first
are the agent's own words, the others are not things a person said (the assistant's messages
are read, though, for the people they name). When the rules cannot tell who a sentence is
about they write nothing rather than guess: a fact filed under the wrong person is worse than
one left in the message's own memory, which recall still finds.

Proposals only: what is written is decided in ``conversation.learn`` (and by ``remember``).
"""

from __future__ import annotations

import re
from collections.abc import Sequence
from dataclasses import dataclass

from reverie.conversation.people.anonymous import anonymous_speaker
from reverie.conversation.people.chat import answer, casual, clauses, fragment, recase
from reverie.conversation.people.framing import denials, unlabel
from reverie.conversation.people.lexicon import (
    PLACES_AND_COMPANIES,
    POSSESSIVE_PRONOUNS,
    RELATION_ADJECTIVES,
    RELATIONS,
    SPEECH_VERBS,
    SUBJECT_PRONOUNS,
)
from reverie.conversation.people.names import tokens
from reverie.conversation.people.recognise import (
    IMPERATIVES,
    IMPLICIT_I,
    KINSHIP_NAMES,
    SCENE_WORDS,
    Context,
    core,
    in_slot,
    is_capitalised,
    is_common,
    listed_name,
    relation_gender,
)
from reverie.conversation.rewrite import category as _category
from reverie.conversation.rewrite import finish as _finish
from reverie.conversation.rewrite import first_person as _first_person
from reverie.conversation.rewrite import gender_of_pronoun as _gender_of_pronoun
from reverie.conversation.rewrite import mood as _mood
from reverie.conversation.rewrite import pronoun_verb as _pronoun_verb
from reverie.model.conversation import Entry
from reverie.model.redact import REDACTED
from reverie.model.textform import canonical

#: What a claim is, by the words that carry it.
CATEGORIES = ("fact", "preference", "plan", "decision", "relation")
_NAME = r"(?:(?:Dr|Mr|Mrs|Ms|Prof)\.?\s|(?:Professor|Doctor)\s)?[A-Z][\w'-]*(?:\s[A-Z][\w'-]*)?"
_ADJ = r"(?:(?:" + "|".join(sorted(RELATION_ADJECTIVES)) + r")\s)?"
_NOUNS = "|".join(sorted((re.escape(r) for r in RELATIONS), key=len, reverse=True))
_REL = r"(?i:" + _ADJ + r"(?:" + _NOUNS + r"))"
_REL_PLURAL = r"(?i:" + _ADJ + r"(?:" + _NOUNS + r")(?:es|s))"
#: "my sister Dana", "our CTO Hannah", "his girlfriend Ana", "my flatmate jonas" (anywhere in a sentence).
_APPOSITIVE = re.compile(r"\b((?i:my|our|his|her|your))\s(" + _REL + r"),?\s(" + _NAME + r"|[a-z][\w'-]*)")
#: "my friends Tom and Liam".
_PLURAL = re.compile(r"\b((?i:my|our|his|her))\s(" + _REL_PLURAL + r")\s(" + _NAME + r")\sand\s(" + _NAME + r")")
#: "Marco is Jess's dad".
_IS_POSSESSED = re.compile(r"^(" + _NAME + r")\sis\s(" + _NAME + r")['’]s\s(" + _REL + r")\b")
#: "I'm Dana's sister", "I'm his mentor".
_I_AM = re.compile(r"^(?i:i'm|i am)\s(?:(" + _NAME + r")['’]s|((?i:his|her)))\s(" + _REL + r")\b")
#: "My sister's name is Dana".
_NAME_IS = re.compile(r"\b((?i:my|our|his|her))\s(" + _REL + r")['’]s\sname\sis\s(" + _NAME + r")")
#: "Dana is my sister", "Rob is my old boss from Acme".
_IS_MY = re.compile(r"^(" + _NAME + r")\sis\s((?i:my|our|his|her))\s(" + _REL + r")\b")
#: "Yuki's fiance is called Kenji".
_POSSESSED_IS = re.compile(r"^(" + _NAME + r")'s\s(" + _REL + r")\sis\s(?:called\s|named\s)?(" + _NAME + r")")
#: "Omar's wife Lena grew up in Berlin" (a sentence that opens with it).
_POSSESSED_LEAD = re.compile(r"^(" + _NAME + r")['’]s\s(" + _REL + r")\s(" + _NAME + r")")
#: "Dana, my sister, just got engaged".
_COMMA_MY = re.compile(r"^(" + _NAME + r"),\s((?i:my|our|his|her))\s(" + _REL + r")\b")
#: "My wife is Mira".
_MY_R_IS = re.compile(r"^((?i:my|our))\s(" + _REL + r")\sis\s(" + _NAME + r")")
#: "my wife's brother Sam": a person named by a relation of a relation.
_CHAIN = re.compile(r"^((?i:my|our))\s(" + _REL + r")['’]s\s(" + _REL + r")\s(" + _NAME + r")")
#: "Dana and her husband Omar": the "her" is Dana.
_AND_OWNER = re.compile(r"(" + _NAME + r")\sand\s$")
#: "Lucia, who is my neighbour, might come too".
_WHO_IS = re.compile(r"^(" + _NAME + r"),\s(?i:who\sis|who's)\s((?i:my|our|his|her))\s(" + _REL + r"),?\s*(.*)$")
#: "Theo, the best friend of my son Max, is coming".
_THE_R_OF = re.compile(
    r"^("
    + _NAME
    + r"),\s(?i:the|a|an)\s("
    + _REL
    + r")\sof\s(?:(?i:my|our|his|her)\s"
    + _REL
    + r"\s)?("
    + _NAME
    + r"),\s*(.*)$"
)
#: "Pete, the guy at number 12." / "Pete, the guy next door, offered to pay".
_THE_NOUN = re.compile(
    r"^(" + _NAME + r"),\s((?i:the|a)\s(?i:guy|woman|man|girl|lady|bloke|kid|boy|one)\b[^,]*?)(?:,\s*(.*)|\.?)$"
)
#: "that's Sam, my wife's brother".
_THAT_IS = re.compile(r"^(?i:that's|that is|this is|it's)\s(" + _NAME + r"),\s(.+)$")
#: Reported speech without quotes: "she told me Omar got promoted", "Priya said he's been ...".
_REPORTED = re.compile(
    r"\b(?:told|tells)\s(?:me|us)\s(?:that\s)?(.+)$|\b(?:said|says|mentioned|heard)\s(?:that\s)?(.+)$"
)
#: Words a clause opens with that give it a doer of its own (after an aside: "once a year maybe, he lives ...").
_CLAUSE_DOERS = frozenset(
    ("i", "i'm", "i've", "i'll", "my", "we", "we're", "our", "he", "she", "he's", "she's", "his", "her", "they")
)
#: A name after one of these is the object of the sentence, not its doer ("a letter from Alice").
_OBJECT_PREPOSITIONS = frozenset(("from", "to", "with", "by", "for", "of", "about"))
_THEY = frozenset(("they", "they're", "they've", "they'll", "they'd"))
_FIRST_PERSON = frozenset(("i", "i'm", "i've", "i'll", "i'd", "my", "we", "we're", "we've", "we'll", "our"))
#: First-person words that make the speaker the one who did or has something ("me" / "us" do not:
#: "Thanks for telling me" states nothing about the speaker).
_FIRST_PERSON_DOER = _FIRST_PERSON | {"i", "we'd"}
_YOU = frozenset(("you", "you're", "you've", "you'll", "your"))
_QUOTED = re.compile(r"^(" + _NAME + r")\s(?:" + "|".join(SPEECH_VERBS) + r")[:,]?\s[\"“](.+?)[\"”]")
_LEAD = re.compile(
    r"^(?:(?:yes|no|yeah|yep|nope|well|oh|so|and|but|also|thanks|ok|okay|sure|honestly|sometimes|probably|anyway|"
    r"haha|lol|wow|btw|plus|hmm|um|actually|basically|apparently|hey|hi|hello|congrats|congratulations|cheers|"
    r"dear|ya|yup|yea|ah|ahh|oof|ugh|omg|tbh|nah)\b[,.!]?\s*)+",
    re.I,
)
#: A greeting, thanks or farewell, to someone or to all ("Good morning Bob", "Thanks, Dana!", "Hi
#: everyone"): said to a person, it states nothing about them (outside probe 2: "Good morning Bob"
#: was stored as a claim and Bob enrolled as a person).
_GREETING = re.compile(
    r"^(?i:good\s+(?:morning|afternoon|evening|night|day)|morning|evening|hi|hello|hey|welcome(?:\s+back)?|bye|"
    r"goodbye|good\s*bye|see\s+you(?:\s+(?:soon|later|tomorrow))?|thanks|thank\s+you|cheers|happy\s+birthday|"
    r"congrats|congratulations|nice\s+to\s+meet\s+you|take\s+care|good\s+luck)"
    r"(?:\s*,?\s*(?:" + _NAME + r"(?:\s+and\s+" + _NAME + r")?|(?i:everyone|everybody|all|guys|team|folks|there)))?"
    r"\s*[.!]*$"
)
_SPLIT = re.compile(r"(?<=[.!?])\s+(?=[\"“A-Z0-9])")
_TITLE_DOT = re.compile(r"\b(Dr|Mr|Mrs|Ms|Prof|St)\.\s")
_QUESTION_START = re.compile(
    r"^(what|who|whom|whose|which|where|when|why|how|should|can|could|would|do|does|did|is|are|am|will|any)\b", re.I
)


#: How sure a claim is whose subject was left out and supplied from the talk ("900 quid last time").
FRAGMENT_CONFIDENCE = 0.5


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


def sentences(text: str) -> list[str]:
    """The sentences of a message (titles such as "Dr." do not end one)."""
    protected = _TITLE_DOT.sub(lambda m: m.group(1) + "\x00 ", text.replace("\n", " "))
    return [s.replace("\x00", ".").strip() for s in _SPLIT.split(protected) if s.strip()]


def minable(entry: Entry) -> bool:
    """Only people's messages are mined: not the assistant's words, system prompts or tool calls."""
    return entry.kind == "message" and entry.role == "user" and entry.text != REDACTED


class RuleExtractor:
    """The default extractor (no model). ``propose`` reads a session's messages in order.

    ``known``: names the scope already holds (its person records): evidence that a word is a
    person. The assistant's messages are read too — never mined, but a person it names ("your
    son Eli") is who a "he" in the reply may mean.
    """

    name = "rules"

    def __init__(self, known: Sequence[str] = ()) -> None:
        self._known = [k for k in known if k and not is_common(k)]

    def propose(self, messages: Sequence[Entry]) -> list[tuple[Entry, list[Proposal]]]:
        ctx = Context(known=list(self._known))
        ctx.speakers = list(dict.fromkeys(canonical(m.speaker) for m in messages if m.speaker and m.role == "user"))
        ctx.known.extend(ctx.speakers)
        out: list[tuple[Entry, list[Proposal]]] = []
        previous: Entry | None = None
        for m in messages:
            if m.kind != "message" or m.text == REDACTED:
                continue
            speaker = canonical(m.speaker) if m.speaker else anonymous_speaker(m.conversation)
            ctx.start_message(speaker, _addressee(m, previous))
            ctx.asked = _asked(m, previous)
            previous = m
            if not minable(m):
                for s in sentences(canonical(m.text)):
                    _listen(s, ctx)  # the assistant's words: who it names, nothing more
                continue
            found: list[Proposal] = []
            said = canonical(m.text)  # "José" typed decomposed is one name, not "Jose" and an accent
            text = recase(said, lambda w: _typed_name(w, ctx)) if casual(said) else said
            last: list[Proposal] = []  # what the last clause said: a denial opening the next takes it back
            for s in sentences(text):
                for clause in clauses(s):
                    back, parts = _framed(clause, speaker, ctx)
                    if back:
                        found = [p for p in found if not any(p is q for q in last)]
                    for part, denied in parts:
                        if denied:
                            _listen(part, ctx)  # who it names is still who a "he" after it means
                            continue
                        last = _sentence(part, speaker, ctx)
                        found.extend(last)
            # a whole sentence's claim about a person first; a fragment's or one about no person after
            found.sort(key=lambda p: (p.subject is None, p.confidence < FRAGMENT_CONFIDENCE + 0.01))
            out.append((m, _dedupe(found)))
        return out


def _framed(clause: str, speaker: str, ctx: Context) -> tuple[bool, list[tuple[str, bool]]]:
    """``framing`` applied to a clause: its labels off, then cut at its denials (see there). A
    clause labelled with another person's name ("Dana: I live in Berlin") is all denied: whose
    "I" it is cannot be told."""
    bare = _LEAD.sub("", clause).strip() or clause

    def person(words: list[str]) -> str | None:
        found = ctx.person_at(words, 0)
        if found is None and core(words[0]).casefold() not in KINSHIP_NAMES:
            return None
        return "speaker" if found is not None and tokens(found[0]) == tokens(speaker) else "other"

    unlabelled = unlabel(bare, person)
    if unlabelled is None:
        return False, [(clause, True)]
    return denials(unlabelled)


def _typed_name(word: str, ctx: Context) -> bool:
    """Is a lower-case word of a casual message a name ("priya", "jess")? A common given name or a
    person the conversation knows — never a common word ("will", "may")."""
    return not is_common(word) and (listed_name(word) or ctx.known_as(word.capitalize()) is not None)


def _asked(m: Entry, previous: Entry | None) -> str | None:
    """Does ``m`` answer a question someone else just put ("What's the role?")? ``"you"`` when the
    question was about the one answering ("Do you have a budget?"), ``"other"`` when not."""
    if previous is None or previous.speaker == m.speaker or not previous.text.rstrip().endswith("?"):
        return None
    question = sentences(previous.text)[-1].lower()
    return "you" if re.search(r"\byou(?:r|'re|'ve)?\b", question) else "other"


def _addressee(m: Entry, previous: Entry | None) -> str | None:
    """Who "you" is in ``m``: the person whose message it answers (never the speaker or the assistant)."""
    if previous is None or not previous.speaker or previous.speaker == m.speaker:
        return None
    if m.role == "user" and previous.role != "user":
        return None  # a person answering the assistant: "you" is the assistant, no person
    if m.role != "user" and previous.role == "user":
        return previous.speaker  # the assistant answering a person
    return previous.speaker if previous.role == "user" else None


def _dedupe(found: list[Proposal]) -> list[Proposal]:
    seen: set[str] = set()
    out = []
    for p in found:
        if p.text.casefold() not in seen:
            seen.add(p.text.casefold())
            out.append(p)
    return out


def _listen(s: str, ctx: Context) -> None:
    """Take in who a sentence names (its relations included) without proposing anything."""
    _relations(_LEAD.sub("", s).strip(), ctx.speaker, ctx)
    for _, name in ctx.persons_in(s.split()):
        ctx.mention(name)


def _sentence(raw: str, speaker: str, ctx: Context) -> list[Proposal]:
    """The proposals of one sentence: its relations, then its main claim (if it states one)."""
    s = _LEAD.sub("", raw).strip()
    if not s:
        return []
    if s.endswith("?") or _QUESTION_START.match(s):
        _listen(s, ctx)
        return []
    quoted = _QUOTED.match(s)
    if quoted and in_slot(quoted.group(1)):
        who = quoted.group(1)
        ctx.mention(who)
        inner = quoted.group(2).strip().rstrip(".!")
        claim = _first_person(inner, who)
        if claim is None:
            return []
        return [Proposal(_finish(claim), who, _category(inner), first_person=False)]
    s, out = _apposition(s, speaker, ctx)
    if not s:
        return _topical(out, ctx)
    out += _relations(s, speaker, ctx)
    main = _reported(s, speaker, ctx) or _main(s, speaker, ctx, out)
    subject = main.subject if main is not None else None
    for _, name in ctx.persons_in(s.split()):
        if name not in (speaker, subject):
            ctx.mention(name)
    if subject and subject != speaker:
        ctx.mention(subject)  # the sentence's subject is the most salient person after it
    return _topical(out + ([main] if main is not None else []), ctx)


def _topical(found: list[Proposal], ctx: Context) -> list[Proposal]:
    """Make the subject of the sentence's claim (its own before its relations') the talk's topic."""
    own = [p for p in found if p.relation is None and p.subject] or [p for p in found if p.subject]
    if own and own[-1].subject:
        ctx.about(own[-1].subject)
    return found


def _relations(s: str, speaker: str, ctx: Context) -> list[Proposal]:
    """The relations a sentence states, in the order said (so "his" in "my brother Karim and his
    wife Sophie" is Karim); each is taken into the context as it is found."""
    found: list[tuple[int, Proposal]] = []
    possessed = _POSSESSED_IS.match(s) or _POSSESSED_LEAD.match(s)
    if possessed and in_slot(possessed.group(1)) and in_slot(possessed.group(3)):
        found.append((0, _relation(_trim_name(possessed.group(3)), possessed.group(2).lower(), possessed.group(1))))
    is_my = _IS_MY.match(s) or _COMMA_MY.match(s)
    if is_my and in_slot(is_my.group(1)):
        owner = _owner(is_my.group(2), speaker, ctx, is_my.group(3))
        if owner is not None:
            found.append((0, _relation(_trim_name(is_my.group(1)), is_my.group(3).lower(), owner)))
    found += _more_relations(s, speaker, ctx)
    for m in _APPOSITIVE.finditer(s):
        who = _appositive_name(m.group(3))
        owner = _owner(m.group(1), speaker, ctx, m.group(2))
        joint = _AND_OWNER.search(s[: m.start()])
        if joint and m.group(1).lower() in ("his", "her") and in_slot(joint.group(1)):
            owner = _trim_name(joint.group(1))  # "Dana and her husband Omar": Dana's
            ctx.group, ctx.group_message = (owner, who or owner), ctx.message
        if who and owner is not None and not any(p.subject == who for _, p in found):
            found.append((m.start(), _relation(who, m.group(2).lower(), owner)))
            ctx.relate(who, m.group(2), owner)  # at once: a "his" further on may mean this person
    out = [p for _, p in sorted(found, key=lambda f: f[0])]
    for p in out:
        if p.relation is not None:
            ctx.relate(p.relation[0], p.relation[1], p.relation[2])
    return out


def _apposition(s: str, speaker: str, ctx: Context) -> tuple[str, list[Proposal]]:
    """A person said with a clause or phrase in apposition, and the sentence without it:
    "Lucia, who is my neighbour, might come" → (Lucia's) relation, "Lucia might come";
    "Theo, the best friend of my son Max, is coming" → Theo is Max's friend, "Theo is coming";
    "Pete, the guy at number 12." → "Pete is the guy at number 12."; "that's Sam, my wife's
    brother" → "Sam is my wife's brother". The apposition is evidence the name is a person."""
    m = _WHO_IS.match(s)
    if m and in_slot(m.group(1)):
        owner = _owner(m.group(2), speaker, ctx, m.group(3))
        name = _trim_name(m.group(1))
        found = [_relation(name, m.group(3).lower(), owner)] if owner is not None else []
        ctx.mention(name)
        return (f"{name} {m.group(4)}" if len(m.group(4).split()) > 1 else ""), found
    m = _THE_R_OF.match(s)
    if m and in_slot(m.group(1)) and in_slot(m.group(3)):
        name, of = _trim_name(m.group(1)), _trim_name(m.group(3))
        rels = _relations(s[m.start(2) :], speaker, ctx)  # "my son Max" inside the apposition
        ctx.mention(name)
        return f"{name} {m.group(4)}", [*rels, _relation(name, m.group(2).lower(), of)]
    m = _THE_NOUN.match(s)
    if m and (in_slot(m.group(1)) or not is_common(m.group(1))):
        name = _trim_name(m.group(1))
        ctx.mention(name)
        if m.group(3) and len(m.group(3).split()) > 1:
            return f"{name} {m.group(3)}", []
        return "", [Proposal(_finish(f"{name} is {m.group(2)}"), name, "fact", first_person=False)]
    m = _THAT_IS.match(s)
    if m and in_slot(m.group(1)):
        name = _trim_name(m.group(1))
        ctx.mention(name)
        text = _first_person(f"{name} is {m.group(2).rstrip('.!')}", speaker) or ""
        return "", [Proposal(_finish(text), name, "fact", first_person=False, mentions=(speaker,))]
    return s, []


def _reported(s: str, speaker: str, ctx: Context) -> Proposal | None:
    """A fact reported about a third person without quotes ("I had lunch with Priya and she told
    me Omar got promoted", "Priya said he's been chasing it"): about whom the reported clause is
    — a person named with evidence, or the one its "he" / "she" points to; not the teller."""
    m = _REPORTED.search(s)
    if m is None:
        return None
    clause = (m.group(1) or m.group(2) or "").strip().rstrip(".!")
    words = clause.split()
    if len(words) < 3 or s.endswith("?"):
        return None
    first = words[0].lower()
    if first in SUBJECT_PRONOUNS:
        who = ctx.refer(_gender_of_pronoun(first))
        if who is None:
            return None
        ctx.bind(who, _gender_of_pronoun(first))
        text = f"{who}{_pronoun_verb(words[0], words[1])} {' '.join(words[1:])}"
    else:
        lead = ctx.person_at(words, 0)
        if lead is None or ctx.is_speaker(lead[0]) or words[lead[1] - 1].endswith(","):
            return None
        who, text = lead[0], clause
    teller = tuple(n for _, n in ctx.persons_in(s[: m.start()].split()) if n not in (who, speaker))
    return Proposal(_finish(_first_person(text, speaker) or text), who, _category(clause), first_person=False,
                    mentions=teller)  # fmt: skip


def _fragment(stated: str, words: list[str], speaker: str, ctx: Context) -> Proposal | None:
    """A fact with its subject left out ("900 quid last time", "needs help with boxes", "due in
    august"): about the person the talk is about (the subject of the last claim, two messages back
    at most); a verb with the third-person -s says that is not the speaker."""
    kind = ("answer" if ctx.asked and answer(words) else None) or fragment(words)
    low = {w.lower().strip(",.;:!") for w in words}
    if (
        kind is None
        or low & (_YOU | _FIRST_PERSON_DOER | SUBJECT_PRONOUNS | _THEY)
        or core(words[0]).casefold() in IMPERATIVES
    ):
        return None
    who = speaker if kind == "answer" and ctx.asked == "you" else ctx.current_topic()
    if who is None or (kind == "third" and who == speaker):
        return None
    body = stated[0].lower() + stated[1:] if kind == "third" and not is_capitalised(stated[1:2]) else stated
    text = f"{who} {body}" if kind == "third" else f"{who}: {body}"
    return Proposal(_finish(text), who, _category(stated), first_person=who == speaker, confidence=FRAGMENT_CONFIDENCE)


def _group_lead(stated: str, words: list[str], speaker: str, ctx: Context) -> Proposal | None:
    """ "they said they'd make a rota": about the persons last named together, the first the subject."""
    group = ctx.they()
    if not group or len(words) < 3:
        return None
    first = words[0].lower()
    verb = {"they're": " are", "they've": " have", "they'll": " will", "they'd": " would"}.get(first, "")
    text = f"{' and '.join(group)}{verb} {' '.join(words[1:])}"
    return Proposal(_finish(_first_person(text, speaker) or text), group[0], _category(stated), first_person=False,
                    mentions=group[1:])  # fmt: skip


def _done_to_speaker(words: list[str], used: int) -> bool:
    """ "He offered me a job", "Marcus invited us": what was done to the speaker is the speaker's
    fact ("told me" is not: what was told is the fact)."""
    rest = [w.lower().strip(",.!") for w in words[used : used + 2]]
    return len(rest) == 2 and rest[1] in ("me", "us") and rest[0] not in ("told", "tells", "texted", "said")


def _more_relations(s: str, speaker: str, ctx: Context) -> list[tuple[int, Proposal]]:
    """ "Marco is Jess's dad", "I'm Dana's sister", "my friends Tom and Liam", "my sister's name is Dana"."""
    found: list[tuple[int, Proposal]] = []
    m = _MY_R_IS.match(s)
    if m and in_slot(m.group(3)):
        found.append((0, _relation(_trim_name(m.group(3)), m.group(2).lower(), speaker)))
    m = _IS_POSSESSED.match(s)
    if m and in_slot(m.group(1)) and in_slot(m.group(2)):
        found.append((0, _relation(_trim_name(m.group(1)), m.group(3).lower(), m.group(2))))
    m = _I_AM.match(s)
    if m:
        owner = m.group(1) if m.group(1) and in_slot(m.group(1)) else None
        if m.group(2):
            owner = ctx.refer(_gender_of_pronoun(m.group(2)))
        if owner is not None:
            found.append((0, _relation(speaker, m.group(3).lower(), owner)))
    for m in _PLURAL.finditer(s):
        owner = _owner(m.group(1), speaker, ctx, m.group(2))
        noun = re.sub(r"(?:es|s)$", "", m.group(2).lower())
        noun = noun if noun.split()[-1] in RELATIONS else m.group(2).lower()[:-1]
        for g in (3, 4):
            if owner is not None and in_slot(m.group(g)):
                found.append((m.start(g), _relation(_trim_name(m.group(g)), noun, owner)))
    for m in _NAME_IS.finditer(s):
        owner = _owner(m.group(1), speaker, ctx, m.group(2))
        if owner is not None and in_slot(m.group(3)):
            found.append((m.start(), _relation(_trim_name(m.group(3)), m.group(2).lower(), owner)))
    return found


def _appositive_name(raw: str) -> str | None:
    """The name after "my sister": capitalised ("Dana", "Bob Smith"), or a lower-case given name
    a chat may type ("my flatmate jonas"); None for a word that is no name ("my sister lives")."""
    first = raw.split()[0]
    if in_slot(first) or in_slot(raw):
        return _trim_name(raw)
    if listed_name(first) and not is_common(first):
        return first.capitalize()
    return None


def _trim_name(name: str) -> str:
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


def _main(s: str, speaker: str, ctx: Context, relations: list[Proposal]) -> Proposal | None:
    """The sentence's own claim, with its subject, or None when it states nothing about anyone."""
    words = s.split()
    first = words[0].lower().strip(",")
    stated = s.rstrip(".!").strip()
    if _GREETING.match(s.strip()):
        return None
    if first in _FIRST_PERSON:
        return _about_speaker(s, stated, speaker, ctx, relations)
    if first in SUBJECT_PRONOUNS or first in POSSESSIVE_PRONOUNS:
        return _pronoun_lead(stated, words, speaker, ctx, relations)
    if first in _THEY:
        return _group_lead(stated, words, speaker, ctx)
    if first in KINSHIP_NAMES and words[0].endswith(","):
        return None  # "Mom, I got the job!": spoken to
    if first == "your" or (first in KINSHIP_NAMES and not ctx.person_at(words, 0)):
        return _relative_lead(stated, words, speaker, ctx)
    lead = ctx.person_at(words, 0)
    if lead is not None:
        return _named(s, stated, words, lead, speaker, ctx, relations)
    aside = next((i for i, w in enumerate(words[:4]) if w.endswith(",")), None)
    doer = aside is not None and len(words) > aside + 3 and words[aside + 1].lower() in _CLAUSE_DOERS
    if aside is not None and doer and not ctx.persons_in(words[: aside + 1]):
        return _main(" ".join(words[aside + 1 :]), speaker, ctx, relations)  # "not sure, my contract ends ..."
    return _unnamed_lead(stated, words, speaker, ctx) or _fragment(stated, words, speaker, ctx)


def _about_speaker(s: str, stated: str, speaker: str, ctx: Context, relations: list[Proposal]) -> Proposal | None:
    """ "I live in Porto", "My sister Dana lives in Lisbon" (about Dana), "We decided ..."."""
    if _mood(stated):
        return None
    subject = speaker
    only = _NAME_IS.match(stated) or _I_AM.match(stated) or _MY_R_IS.match(stated)
    if only and relations and len(stated[only.end() :].split()) < 2:
        return None  # "My sister's name is Dana.", "I'm his mentor.": only the relation was said
    chain = _CHAIN.match(stated)
    if chain and in_slot(chain.group(4)):  # "my wife's brother Sam is staying": about Sam
        subject = _trim_name(chain.group(4))
        ctx.mention(subject, relation_gender(chain.group(3)))
    lead = _APPOSITIVE.match(stated) or _PLURAL.match(stated)
    own = None
    if lead and lead.start() == 0 and relations:  # "My sister Dana lives in Lisbon": about Dana
        subject = relations[0].subject or speaker
        if len(stated[lead.end() :].split()) < 2:
            return None  # only the relation was said
        own = _in_own_name(stated[lead.start(3) :], subject, relations)
    text = _first_person(own or stated, speaker)
    if text is None:
        return None
    mentions = _others(s, subject, speaker, ctx, relations)
    if own is not None:
        mentions = _named_in(own, mentions)
    return Proposal(_finish(text), subject, _category(stated), first_person=subject == speaker, mentions=mentions)


def _pronoun_lead(
    stated: str, words: list[str], speaker: str, ctx: Context, relations: list[Proposal]
) -> Proposal | None:
    """ "She works as a nurse", "His birthday is ...": the person the pronoun points back to."""
    first = words[0].lower().strip(",")
    gender = _gender_of_pronoun(first)
    who = ctx.refer(gender)
    if who is None or len(words) < 3:
        return None
    ctx.bind(who, gender)
    rest = " ".join(words[1:])
    if first in SUBJECT_PRONOUNS and _done_to_speaker(words, 1):
        text = _first_person(f"{who}{_pronoun_verb(words[0], words[1])} {rest}", speaker) or rest
        return Proposal(_finish(text), speaker, _category(stated), first_person=True, mentions=(who,))
    own = None
    if first in POSSESSIVE_PRONOUNS:
        text = f"{who}'s {rest}"
        lead = _APPOSITIVE.match(stated)
        subject = (relations[0].subject if relations and lead else None) or who
        if lead is not None and subject != who:  # "His girlfriend Ana got a job there": Ana's own fact
            own = _in_own_name(stated[lead.start(3) :], subject, relations)
    else:
        text = f"{who}{_pronoun_verb(words[0], words[1])} {rest}"
        subject = who
    mentions = _others(stated, subject, speaker, ctx, relations)
    if own is not None:
        text, mentions = own, _named_in(own, mentions)
    text = _first_person(text, speaker) or text
    return Proposal(_finish(text), subject, _category(stated), first_person=False, mentions=mentions)


def _relative_lead(stated: str, words: list[str], speaker: str, ctx: Context) -> Proposal | None:
    """ "Mom wants a quiet dinner", "Your dad is so handy": the person that relation is, if the
    session named them; "Mom" unnamed is the speaker's mother, and the fact is filed under the
    speaker (as "my mom ..." is), never under a person called "Mom"."""
    first = words[0].lower().strip(",")
    if first == "your":
        if len(words) < 4 or ctx.addressee is None:
            return None
        noun, owner, rest = words[1].lower().strip(",'s"), ctx.addressee, words[2:]
    else:
        noun, owner, rest = KINSHIP_NAMES[core(first)], speaker, words[1:]
    if len(rest) < 2 or _mood(" ".join(rest)):
        return None
    who = ctx.related(owner, noun)
    said = " ".join(words[:2] if first == "your" else words[:1])
    tail = " ".join(rest)
    if who is not None:
        possessive = "'s" if said.endswith(("'s", "’s")) else ""
        return Proposal(_finish(_first_person(f"{who}{possessive} {tail}", speaker) or tail), who,
                        _category(stated), first_person=False)  # fmt: skip
    if owner != speaker:
        return None
    text = _first_person(f"my {said.lower()} {tail}", speaker)
    return Proposal(_finish(text or tail), speaker, _category(stated), first_person=True) if text else None


def _named(
    s: str,
    stated: str,
    words: list[str],
    lead: tuple[str, int],
    speaker: str,
    ctx: Context,
    relations: list[Proposal],
) -> Proposal | None:
    """A sentence that opens with a person ("Bob used to work at Google", "Sam's birthday is ...")."""
    name, used = lead
    rest_words = words[used:]
    low = [w.lower().strip(",.!") for w in rest_words]
    if words[used - 1].endswith(",") and not _COMMA_MY.match(s):
        return None  # "Ana, you still have my drill", "Marco, thanks for the wine": spoken to, not about
    if low[:2] in (["and", "i"], ["and", "me"]):  # "Simon and I went hiking": the speaker's fact
        text = _first_person(stated, speaker)
        return (
            Proposal(_finish(text), speaker, _category(stated), first_person=True, mentions=(name,)) if text else None
        )
    if low[:1] == ["and"] and (other := ctx.person_at(rest_words, 1)) is not None:
        ctx.group, ctx.group_message = (name, other[0]), ctx.message  # "Chris and Jess ...": a "they" to come
    if relations and any(p.text.rstrip(".") == stated for p in relations):
        return None  # "Dana is my sister." is the relation itself
    if relations and (_IS_MY.match(s) or _POSSESSED_IS.match(s)):
        return None
    subject = name
    own = None
    possessed, comma = _POSSESSED_LEAD.match(s), _COMMA_MY.match(s)
    if (possessed or comma) and relations:  # "Omar's wife Lena grew up in Berlin", "Dana, my sister, got engaged"
        subject = relations[0].subject or name
        if possessed is not None:
            own = _in_own_name(stated[possessed.start(3) :], subject, relations)
        elif comma is not None:
            own = _in_own_name(f"{comma.group(1)} {stated[comma.end() :].lstrip(' ,')}", subject, relations)
    if len(rest_words) < 2:
        return None
    text = _first_person(own or stated, speaker)
    if text is None:
        return None
    mentions = _others(s, subject, speaker, ctx, relations, start=used)
    if own is not None:
        mentions = _named_in(own, mentions)
    first_person = subject == speaker
    return Proposal(_finish(text), subject, _category(stated), first_person=first_person, mentions=mentions)


def _in_own_name(said: str, subject: str, relations: list[Proposal]) -> str | None:
    """The fact a relation's person was said with, in their own name: "my sister Dana lives in
    Lisbon" → "Dana lives in Lisbon" (``said`` starts at the name), the relation being a claim
    of its own ("Dana is Alice's sister."). Why: written "Alice's sister Dana lives in Lisbon.",
    the possessive made Alice a second holder, and Dana's later "Dana lives in Madrid." never met
    it (outside probe 4, finding 11). None — the words kept — when no relation claim says who the
    person is ("my wife's brother Sam": Sam's is the only place that is said)."""
    if not any(p.relation is not None and p.relation[0] == subject for p in relations):
        return None
    if not said.casefold().startswith(subject.casefold()) or len(said.split()) < 2:
        return None
    return subject + said[len(subject) :]


def _named_in(text: str, mentions: tuple[str, ...]) -> tuple[str, ...]:
    """The persons of ``mentions`` that ``text`` still names (the relation's owner went with its words)."""
    said = {core(w).casefold() for w in text.split()}
    return tuple(n for n in mentions if n.split()[-1].casefold() in said or n.split()[0].casefold() in said)


def _unnamed_lead(stated: str, words: list[str], speaker: str, ctx: Context) -> Proposal | None:
    """A sentence that opens with no person ("Monday I'm back at work", "Spotify rejected my
    application", "Paris was my first choice", "Found a studio in Malmö"): the first person it
    names as a doer is its subject — "I" / "my" the speaker, a "she" whom she points to, a name
    with evidence; none, and it is about nobody and yields nothing."""
    first = core(words[0])
    if not is_capitalised(first) or first.casefold() in IMPERATIVES or len(words) < 2:
        return None  # "no idea how I'll ...", "Bring Lotte if you can", "Let's do Friday"
    names = dict(ctx.persons_in(words, 1))
    if first.casefold() in IMPLICIT_I and len(words) >= 3:  # "Found a studio in Malmö.", "Went there with Chris."
        others = tuple(dict.fromkeys(n for n in names.values() if n != speaker))
        done = _first_person(f"{speaker} {first.lower()} {' '.join(words[1:])}", speaker) or stated
        return Proposal(_finish(done), speaker, _category(stated), first_person=True, mentions=others)
    # A scene-setting opening ("Monday", "Last year", "Paris", "Spotify") leaves the sentence's
    # doer to come; any other ("Not sure I agree", "Sounds good, I'll ...") is an aside, and only
    # a named person after it is taken.
    scene = first.casefold() in SCENE_WORDS or first.casefold() in PLACES_AND_COMPANIES or not is_common(first)
    for i, w in enumerate(words):
        low = w.lower().strip(",.;:!")
        if low in _YOU:
            return None
        if (low in _FIRST_PERSON_DOER or low in SUBJECT_PRONOUNS) and not scene:
            return None
        if low in _FIRST_PERSON_DOER and low not in ("my", "our") and first.casefold() not in SCENE_WORDS:
            return None  # "Spotify rejected my application" is the speaker's; "Sounds good, I'll ..." is not a fact
        if i in names and i == len(words) - 1 and words[i - 1].endswith(","):
            return None  # "Good luck with the move, Tom!": spoken to
        if low in _FIRST_PERSON_DOER:
            if _mood(" ".join(words[i:])):
                return None
            text = _first_person(stated, speaker)
            others = tuple(n for n in names.values() if n != speaker)
            return (
                Proposal(_finish(text), speaker, _category(stated), first_person=True, mentions=others)
                if text
                else None
            )
        if low in SUBJECT_PRONOUNS and i > 0:
            who = ctx.refer(_gender_of_pronoun(low))
            if who is None:
                return None
            ctx.bind(who, _gender_of_pronoun(low))
            text = " ".join([*words[:i], who + _pronoun_verb(low) + w[len(low) :], *words[i + 1 :]])
            return Proposal(_finish(text.rstrip(".!")), who, _category(stated), first_person=False)
        if i in names and i > 0 and words[i - 1].lower() in _OBJECT_PREPOSITIONS:
            ctx.mention(names[i])  # "message 1 from Alice", "talked to Priya, she's ...": no doer, a "she" to come
            continue
        if i in names:
            return Proposal(_finish(stated), names[i], _category(stated), first_person=False)
    return None


def _others(
    s: str, subject: str, speaker: str, ctx: Context, relations: list[Proposal], start: int = 1
) -> tuple[str, ...]:
    """The other persons a claim is about: its relations' people and the names said with evidence."""
    out = [p.subject for p in relations if p.subject and p.subject != subject]
    for _, name in ctx.persons_in(s.split(), start):
        if name not in out and name not in (subject, speaker):
            out.append(name)
    return tuple(n for n in out if n)
