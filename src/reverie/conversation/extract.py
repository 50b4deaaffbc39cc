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

The parts: ``relations`` (who is whose what), ``claims`` (a sentence's own claim and its
subject), ``proposal`` (what is proposed), ``extract_titles`` (a title named as a favourite),
``extract_stance`` (sarcasm, a question put as a statement, a condition); this module reads a
session's messages in order and frames each clause (labels, denials) before those read it.
"""

from __future__ import annotations

import re
from collections.abc import Sequence

from reverie.conversation.claims import main_claim, reported
from reverie.conversation.compound import compound
from reverie.conversation.extract_stance import asks, conditional, retracts, sarcastic
from reverie.conversation.extract_titles import keeps_lead, title_preference
from reverie.conversation.hedging import HEDGED_CONFIDENCE, as_hypothesis, frame, hedged
from reverie.conversation.moves import PlaceCheck, residence
from reverie.conversation.people.anonymous import anonymous_speaker
from reverie.conversation.people.chat import casual, clauses, recase
from reverie.conversation.people.framing import denials, unlabel
from reverie.conversation.people.lexicon import SPEECH_VERBS
from reverie.conversation.people.names import tokens
from reverie.conversation.people.recognise import KINSHIP_NAMES, Context, core, in_slot, is_common, listed_name
from reverie.conversation.proposal import CATEGORIES, FRAGMENT_CONFIDENCE, Proposal
from reverie.conversation.relations import NAME, apposition, relations
from reverie.conversation.rewrite import category as _category
from reverie.conversation.rewrite import finish as _finish
from reverie.conversation.rewrite import first_person as _first_person
from reverie.model.conversation import Entry
from reverie.model.redact import REDACTED
from reverie.model.textform import canonical

__all__ = [
    "CATEGORIES",
    "FRAGMENT_CONFIDENCE",
    "HEDGED_CONFIDENCE",
    "Proposal",
    "RuleExtractor",
    "lead_off",
    "minable",
    "sentences",
]

_QUOTED = re.compile(
    r"^(" + NAME + r")\s(?:" + "|".join(SPEECH_VERBS) + r")[:,]?\s(?:[\"“](.+?)[\"”]|['‘](.+?)['’](?=[\s.,!?]*$))"
)
#: A filler word a sentence may open with ("Well, …", "Oh …", "Hey, …"): dropped before it is read.
_FILLER = re.compile(
    r"(?:yes|no|yeah|yep|nope|well|oh|so|and|but|also|thanks|ok|okay|sure|honestly|sometimes|anyway|"
    r"haha|lol|wow|btw|plus|hmm|um|actually|basically|hey|hi|hello|congrats|congratulations|cheers|"
    r"dear|ya|yup|yea|ah|ahh|oof|ugh|omg|tbh|nah)\b[,.!]?\s*",
    re.I,
)
#: Greetings that may name the one greeted before a statement ("Hey Dana, I moved to Denver").
_GREETINGS = frozenset(str.split("hey hi hello dear"))
#: A name greeted and what the speaker goes on to say of themselves: "Dana[,] I moved …".
_GREETED = re.compile(r"[A-Z][\w'’-]*,?\s+(?=(?:i|i'm|i've|i'll|i'd|my|we|we're|we've|our)\b)", re.I)
_SPLIT = re.compile(r"(?<=[.!?])\s+(?=[\"“A-Z0-9])")
_TITLE_DOT = re.compile(r"\b(Dr|Mr|Mrs|Ms|Prof|St)\.\s")
_QUESTION_START = re.compile(
    r"^(what|who|whom|whose|which|where|when|why|how|should|can|could|would|do|does|did|is|are|am|will|any)\b", re.I
)


def lead_off(s: str) -> str:
    """``s`` without the filler words it opens with ("Well, honestly, I …" → "I …"), and a name
    greeted before the speaker's own statement ("Hey Dana I moved to Denver" → "I moved to
    Denver": Dana is spoken to, not the one who moved). A greeting or interjection that opens a
    title is kept ("Hey Jude is my favourite song": see ``extract_titles``)."""
    pos, greeted = 0, False
    while (m := _FILLER.match(s, pos)) is not None:
        word = m.group(0).strip(" ,.!")
        if keeps_lead(s[pos:], word):
            break
        greeted = word.casefold() in _GREETINGS
        pos = m.end()
    if greeted and (g := _GREETED.match(s, pos)) is not None and s[pos : g.end()].strip(" ,")[:1].isupper():
        pos = g.end()
    return s[pos:].strip()


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

    def __init__(self, known: Sequence[str] = (), is_place: PlaceCheck | None = None) -> None:
        self._known = [k for k in known if k and not is_common(k)]
        self._is_place = is_place  # a move to a place also says where the speaker lives (``moves``)

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
                        last = _said(part, speaker, ctx)
                        found.extend(last)
            # a whole sentence's claim about a person first; a fragment's or one about no person after
            found.sort(key=lambda p: (p.subject is None, p.confidence < FRAGMENT_CONFIDENCE + 0.01))
            found += [r for p in found if (r := residence(p, self._is_place)) is not None]
            out.append((m, _dedupe(found)))
        return out


def _framed(clause: str, speaker: str, ctx: Context) -> tuple[bool, list[tuple[str, bool]]]:
    """``framing`` applied to a clause: its labels off, then cut at its denials (see there). A
    clause labelled with another person's name ("Dana: I live in Berlin") is all denied: whose
    "I" it is cannot be told. Sarcasm ("I love Mondays /s") is denied too, and a lone "Not." takes
    back the sentence before it (``extract_stance``)."""
    if retracts(clause):
        return True, []
    if sarcastic(clause):
        return False, [(clause, True)]
    bare = lead_off(clause) or clause
    if _QUOTED.match(bare):
        return False, [(bare, False)]  # 'Dana said: "I hate Mondays."' is quoted speech, no label

    def person(words: list[str]) -> str | None:
        found = ctx.person_at(words, 0)
        if found is None and core(words[0]).casefold() not in KINSHIP_NAMES:
            return None
        return "speaker" if found is not None and tokens(found[0]) == tokens(speaker) else "other"

    unlabelled = unlabel(bare, person)
    if unlabelled is None:
        return False, [(clause, True)]
    return denials(unlabelled)


def _said(part: str, speaker: str, ctx: Context) -> list[Proposal]:
    """The proposals of a part the speaker did not deny; hearsay and hedges as hypotheses
    ("Rumour has it that …", "I heard that …", "Dana probably …": see ``hedging``). A frame that
    hedges only a statement ("I heard …") leaves a part that states nothing after it as it was."""
    said = frame(part)
    if said is not None:
        inner = [p for c in _compound(said.statement, ctx) for p in _sentence(c, speaker, ctx)]
        if inner or said.always:
            return [as_hypothesis(p, speaker, said) for p in inner]
    iffy = conditional(lead_off(part))  # "I'll move to Berlin if I get the job": nothing decided yet
    found = [p for c in _compound(part, ctx) for p in _sentence(c, speaker, ctx)]
    return [as_hypothesis(p, speaker) if iffy or hedged(p.text) else p for p in found]


def _compound(part: str, ctx: Context) -> list[str]:
    """``part`` cut into its clauses ("I work at Acme and my sister Dana lives in Lisbon": see
    ``compound``), its opening filler off first; quoted speech is read whole."""
    bare = lead_off(part) or part
    if _QUOTED.match(bare):
        return [part]
    return compound(bare, lambda words: (ctx.person_at(words, 0) or (None, 0))[1])


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
    relations(lead_off(s), ctx.speaker, ctx)
    for _, name in ctx.persons_in(s.split()):
        ctx.mention(name)


def _sentence(raw: str, speaker: str, ctx: Context) -> list[Proposal]:
    """The proposals of one sentence: its relations, then its main claim (if it states one)."""
    s = lead_off(raw)
    if not s:
        return []
    if s.endswith("?") or _QUESTION_START.match(s) or asks(s):
        _listen(s, ctx)
        return []
    titled = title_preference(s, speaker, lambda words: (ctx.person_at(words, 0) or (None,))[0])
    if titled is not None:  # "Perfect Day is my favourite song": no person named in the title
        if titled.subject and titled.subject != speaker:
            ctx.mention(titled.subject)
        return _topical([titled], ctx)
    quoted = _QUOTED.match(s)
    if quoted and in_slot(quoted.group(1)):
        who = quoted.group(1)
        ctx.mention(who)
        inner = (quoted.group(2) or quoted.group(3)).strip().rstrip(".!")
        claim = _first_person(inner, who)
        if claim is None:
            return []
        return [Proposal(_finish(claim), who, _category(inner), first_person=False)]
    s, out = apposition(s, speaker, ctx)
    if not s:
        return _topical(out, ctx)
    out += relations(s, speaker, ctx)
    main = reported(s, speaker, ctx) or main_claim(s, speaker, ctx, out)
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
