"""A sentence's own claim and whom it is about: the speaker ("I live in Porto"), the person a
pronoun points back to ("She works as a nurse"), a named person ("Bob used to work at Google"),
a relative ("Mom wants a quiet dinner"), a group ("they said they'd ..."), a clause reported
without quotes ("she told me Omar got promoted"), or the topic of the talk for a fragment ("900
quid last time"). When it cannot tell, nothing: a fact filed under the wrong person is worse than
one left in the message's own memory. Moved out of ``extract`` (past 750 lines); no change in
behaviour.
"""

from __future__ import annotations

import re

from reverie.conversation.hedging import opens_title
from reverie.conversation.people.chat import answer, fragment
from reverie.conversation.people.lexicon import PLACES_AND_COMPANIES, POSSESSIVE_PRONOUNS, SUBJECT_PRONOUNS
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
    relation_gender,
)
from reverie.conversation.proposal import FRAGMENT_CONFIDENCE, Proposal
from reverie.conversation.relations import (
    APPOSITIVE,
    CHAIN,
    COMMA_MY,
    I_AM,
    IS_MY,
    MY_R_IS,
    NAME,
    NAME_IS,
    PLURAL,
    POSSESSED_IS,
    POSSESSED_LEAD,
    trim_name,
)
from reverie.conversation.rewrite import category as _category
from reverie.conversation.rewrite import finish as _finish
from reverie.conversation.rewrite import first_person as _first_person
from reverie.conversation.rewrite import gender_of_pronoun as _gender_of_pronoun
from reverie.conversation.rewrite import mood as _mood
from reverie.conversation.rewrite import pronoun_verb as _pronoun_verb

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
#: A greeting, thanks or farewell, to someone or to all ("Good morning Bob", "Thanks, Dana!", "Hi
#: everyone"): said to a person, it states nothing about them (outside probe 2: "Good morning Bob"
#: was stored as a claim and Bob enrolled as a person).
_GREETING = re.compile(
    r"^(?i:good\s+(?:morning|afternoon|evening|night|day)|morning|evening|hi|hello|hey|welcome(?:\s+back)?|bye|"
    r"goodbye|good\s*bye|see\s+you(?:\s+(?:soon|later|tomorrow))?|thanks|thank\s+you|cheers|happy\s+birthday|"
    r"congrats|congratulations|nice\s+to\s+meet\s+you|take\s+care|good\s+luck)"
    r"(?:\s*,?\s*(?:" + NAME + r"(?:\s+and\s+" + NAME + r")?|(?i:everyone|everybody|all|guys|team|folks|there)))?"
    r"\s*[.!]*$"
)

#: A speaker saying who they are: "I'm Alice", "I am Alice Smith", "My name is Alice", "Call me Al".
_INTRODUCTION = re.compile(r"^(?i:i'm|i’m|i am|my name is|my name's|my name’s|call me)\s(" + NAME + r")[.!]?$")


def main_claim(s: str, speaker: str, ctx: Context, relations: list[Proposal]) -> Proposal | None:
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
        return main_claim(" ".join(words[aside + 1 :]), speaker, ctx, relations)  # "not sure, my contract ends ..."
    return _unnamed_lead(stated, words, speaker, ctx) or _fragment(stated, words, speaker, ctx)


def _about_speaker(s: str, stated: str, speaker: str, ctx: Context, relations: list[Proposal]) -> Proposal | None:
    """ "I live in Porto", "My sister Dana lives in Lisbon" (about Dana), "We decided ..."."""
    if _mood(stated) or _introduces(stated, speaker):
        return None
    subject = speaker
    only = NAME_IS.match(stated) or I_AM.match(stated) or MY_R_IS.match(stated)
    if only and relations and len(stated[only.end() :].split()) < 2:
        return None  # "My sister's name is Dana.", "I'm his mentor.": only the relation was said
    chain = CHAIN.match(stated)
    if chain and in_slot(chain.group(4)):  # "my wife's brother Sam is staying": about Sam
        subject = trim_name(chain.group(4))
        ctx.mention(subject, relation_gender(chain.group(3)))
    lead = APPOSITIVE.match(stated) or PLURAL.match(stated)
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


def _introduces(stated: str, speaker: str) -> bool:
    """ "I'm Alice", "My name is Alice Smith" said by Alice: the speaker saying their own name is
    no claim ("Alice is Alice." was written, outside probe 7, finding 12); at most it confirms who
    speaks, which the message's speaker already says. "I'm Alice's sister" is no introduction."""
    m = _INTRODUCTION.match(stated)
    if m is None:
        return False
    said, own = set(tokens(m.group(1))), set(tokens(speaker))
    return bool(said) and (said <= own or own <= said)


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
        lead = APPOSITIVE.match(stated)
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
    if words[used - 1].endswith(",") and not COMMA_MY.match(s):
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
    if relations and (IS_MY.match(s) or POSSESSED_IS.match(s)):
        return None
    subject = name
    own = None
    possessed, comma = POSSESSED_LEAD.match(s), COMMA_MY.match(s)
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
    scene = (
        first.casefold() in SCENE_WORDS
        or first.casefold() in PLACES_AND_COMPANIES
        or not is_common(first)
        or opens_title(words)  # "Maybe Tomorrow is my favourite song": a thing named, like "Spotify"
    )
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


def reported(s: str, speaker: str, ctx: Context) -> Proposal | None:
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
