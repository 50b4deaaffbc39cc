"""Is this word a person? Evidence beyond a capital letter, and the word lists that decide it.

Why: an outside labelled set showed the first rules taking a sentence's first capitalised word
for a person ("Around 60 euros a head." → a person "Around"; "Monday", "Paris", "Google",
"Honestly", "Mom" alike). At the start of a sentence every word is capitalised, so a capital says
nothing there; mid-sentence it says "proper noun", which is a place or a company as often as a
person. A word is taken for a person only with evidence:

- it is known: a speaker of the conversation, a person named before with evidence, a name the
  scope's person records already hold;
- it is a common given name (``given_names``) that is not also a common word;
- it stands where only a person stands: "X and I", "X's sister", "X said", "called X",
  "my sister X" / "X, my sister," (the relation rules);
- a title is in front of it ("Dr. Patel", "Professor Kowalski").

And never — whatever the context — when it is a common word (``COMMON_WORDS``: weekdays,
months, interjections, function words, the nouns and verbs a chat sentence opens with, and
words for people in general: "People", "Everyone", "Customers", ``lexicon.GENERIC_PEOPLE``),
unless it is a speaker's own name. A missed person costs a fact its ``about`` edge; a wrong one files
the fact under somebody else, or invents a person: precision is preferred, on purpose.
"""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass, field

from reverie.conversation.people.given_names import ALL as GIVEN_NAMES
from reverie.conversation.people.given_names import gender as given_gender
from reverie.conversation.people.lexicon import NOT_NAMES, RELATION_ADJECTIVES, RELATIONS
from reverie.conversation.people.names import fits, given_forms, tokens


def _words(text: str) -> frozenset[str]:
    return frozenset(text.split())


#: Words that are never a person on their own (``lexicon.NOT_NAMES``: the words a chat sentence
#: opens with, weekdays, months, kinship words, the capitalised non-names of everyday talk).
COMMON_WORDS = NOT_NAMES

#: Kinship words used as a name ("Mom wants a quiet dinner"): the relation they stand for.
KINSHIP_NAMES = {
    "mom": "mother",
    "mum": "mother",
    "mommy": "mother",
    "mummy": "mother",
    "mama": "mother",
    "ma": "mother",
    "dad": "father",
    "daddy": "father",
    "papa": "father",
    "pa": "father",
    "grandma": "grandmother",
    "granny": "grandmother",
    "gran": "grandmother",
    "nana": "grandmother",
    "nan": "grandmother",
    "grandpa": "grandfather",
    "grandad": "grandfather",
    "granddad": "grandfather",
}
#: Words in front of a name that are not part of it ("Grandpa Walter", "Aunt Samira").
KINSHIP_TITLES = frozenset(KINSHIP_NAMES) | _words("aunt auntie uncle cousin grandmother grandfather")

#: Relation nouns that say the person's gender (used only to choose between two people a pronoun
#: may point to).
FEMININE_RELATIONS = _words(
    """
    aunt daughter fiancee fiancée girlfriend granddaughter grandma grandmother granny landlady mom mother mum
    niece sister stepdaughter stepmother wife
    """
)
MASCULINE_RELATIONS = _words(
    """
    boyfriend brother dad father fiance fiancé grandfather grandpa grandson husband landlord nephew son
    stepfather stepson uncle
    """
)
_SAME_RELATION = {"mom": "mother", "mum": "mother", "dad": "father", "grandma": "grandmother",
                  "granny": "grandmother", "grandpa": "grandfather", "fiancé": "fiance", "fiancée": "fiancee",
                  "neighbour": "neighbor", "co-worker": "coworker", "cofounder": "co-founder"}  # fmt: skip

#: Verbs a sentence opens with to ask or tell someone to do something: no fact ("Bring Lotte").
IMPERATIVES = _words(
    """
    ask book bring call check come don't find forget get give go have help invite keep let let's look
    make meet pick please put read remember remind send show sign stop take tell text try wait write
    """
)
#: Past tenses a chat sentence opens with, "I" left out ("Found a studio in Malmö.").
IMPLICIT_I = _words(
    """
    applied bought booked called finished found got had joined left lost made met moved passed quit saw sold
    spent started took tried visited went won
    """
)
#: Words that open a sentence by setting its time or scene, the doer still to come ("Monday I'm
#: back at work", "Last year we moved", "After the conference, Giulia and I drove to Bologna").
SCENE_WORDS = _words(
    """
    monday tuesday wednesday thursday friday saturday sunday january february march april may june july august
    september october november december christmas easter summer winter spring autumn yesterday today tomorrow
    tonight now then last next this after before since on in at during every around later earlier lately recently
    the a an someone somebody
    """
)
#: Verbs a sentence's subject takes only if it is a person ("Kwame lives in Accra", "Siobhan turned
#: forty"): evidence for an opening word that is no listed name. Not "is", "got", "called",
#: "wants": places and companies take those too ("Porto is lovely", "Amazon called me back").
HUMAN_VERBS = _words(
    """
    lives lived works worked studies studied teaches taught loves loved hates hated married graduated retired
    feels felt thinks said told texted likes liked prefers enjoys enjoyed cooks cooked sings sang turned turns
    divorced adopted
    """
)
#: What a person has that a place or company does not ("Kwame's birthday").
PERSON_THINGS = _words("birthday wedding funeral graduation surgery retirement kids children parents family")
#: Verbs after a name that only a person does (evidence for a name not in ``given_names``).
PERSON_VERBS = _words("said told texted mentioned thinks thought")


def is_common(word: str) -> bool:
    """A common word (never a person on its own)."""
    return _fold(word) in COMMON_WORDS


def in_slot(name: str) -> bool:
    """May ``name`` be a person where only a person can stand ("my sister X", "X is my sister")?
    A title or kinship word in front is looked past ("Dr. Patel", "Grandpa Walter")."""
    words = [core(w) for w in name.split()]
    while len(words) > 1 and (words[0].casefold().rstrip(".") in _TITLE_WORDS or words[0].casefold() in KINSHIP_TITLES):
        words = words[1:]
    w = words[0] if words else ""
    return is_capitalised(w) and (_fold(w) in GIVEN_NAMES or not is_common(w))


def listed_name(word: str) -> bool:
    """A common given name that is not also a common word."""
    w = _fold(word)
    return w in GIVEN_NAMES and w not in COMMON_WORDS


def relation_gender(noun: str) -> str | None:
    n = noun.casefold().split()[-1] if noun.split() else ""
    if n in FEMININE_RELATIONS:
        return "f"
    if n in MASCULINE_RELATIONS:
        return "m"
    return None


def same_relation(noun: str) -> str:
    """One spelling per relation, so "Mom" finds a "mother" ("mum", "mother" and "mom" are one)."""
    n = noun.casefold().split()[-1] if noun.split() else ""
    n = KINSHIP_NAMES.get(n, n)
    return _SAME_RELATION.get(n, n)


def _fold(word: str) -> str:
    w = word.casefold().strip('.,;:!?"“”()')
    return w[:-2] if w.endswith(("'s", "’s")) else w


_TITLE_WORDS = _words("dr dr. mr mr. mrs mrs. ms ms. miss prof prof. professor doctor sir dame")
_TITLE_GENDER = {"mr": "m", "sir": "m", "mrs": "f", "ms": "f", "miss": "f", "dame": "f"}
_PERSON_NOUNS = _words("guy girl man woman person someone somebody boy kid lady friend dude bloke chap colleague")
_PLACE_PREPOSITIONS = _words("in at near around via outside inside")
_PREPOSITIONS = _words("about at by for from in into of on to with without")
#: Adverbs between a subject and its verb ("Kemi basically lives ...").
_VERB_ADVERBS = _words("basically literally still already actually really just also always never now usually")
#: How many messages back (this one included) a "he" / "she" may point.
PRONOUN_WINDOW = 5


def is_capitalised(word: str) -> bool:
    return bool(word) and word[0].isupper()


def core(word: str) -> str:
    """``word`` without surrounding punctuation or a possessive "'s"."""
    w = word.strip('.,;:!?"“”()')
    return w[:-2] if w.endswith(("'s", "’s")) else w


def title_gender(name: str) -> str | None:
    first = name.split()[0].casefold().rstrip(".") if name.split() else ""
    return _TITLE_GENDER.get(first)


@dataclass(slots=True)
class Mention:
    name: str
    message: int


@dataclass(slots=True)
class Context:
    """Who a session has mentioned so far, and what is known of them: the evidence the rules use.

    ``known``: names with evidence (speakers, persons named before, the scope's person records);
    ``mentions``: persons in the order they were last mentioned (the most salient last);
    ``genders`` and ``relations`` ((owner, relation) → person) as the session stated them.
    """

    known: list[str] = field(default_factory=list)
    speakers: list[str] = field(default_factory=list)
    mentions: list[Mention] = field(default_factory=list)
    genders: dict[tuple[str, ...], str] = field(default_factory=dict)
    relations: dict[tuple[tuple[str, ...], str], str] = field(default_factory=dict)
    speaker: str = "the user"
    addressee: str | None = None
    #: The person the talk is about (the subject of the last claim) and the message that made them so.
    topic: str | None = None
    topic_message: int = 0
    #: The persons a "they" may mean ("Chris and Jess never do the dishes"), and when they were named.
    group: tuple[str, ...] = ()
    group_message: int = 0
    #: The message answers a question another put: ``"you"`` if it asked about the one answering
    #: ("Do you have a budget?"), ``"other"`` if not ("What's the role?"); else None.
    asked: str | None = None
    message: int = 0
    _memo: dict[str, str | None] = field(default_factory=dict)
    _memo_size: int = 0
    # ``known`` indexed by words and by every given form of a word (``_index``): a word is compared
    # with the names sharing a form with it, not with every name the session and scope know (one
    # message naming 800 people was quadratic: outside probe 2, finding 11). ``known`` only grows
    # (``mention``, a caller's ``extend``); ``_indexed`` is how much of it the index holds.
    _by_words: dict[tuple[str, ...], str] = field(default_factory=dict)
    _by_form: dict[str, list[int]] = field(default_factory=dict)
    _indexed: int = 0

    def start_message(self, speaker: str, addressee: str | None) -> None:
        self.message += 1
        self.speaker, self.addressee = speaker, addressee

    def known_as(self, word: str) -> str | None:
        """The known name ``word`` is (exactly, or the one name it fits), else None.

        Memoised per word until a name is added (a scope may know thousands of names, and every
        capitalised word of every sentence asks)."""
        if len(self._memo) and self._memo_size != len(self.known):
            self._memo.clear()
        self._memo_size = len(self.known)
        if word not in self._memo:
            self._memo[word] = self._known_as(word)
        return self._memo[word]

    def _index(self) -> None:
        """Take the names added to ``known`` since the last call into the index."""
        for at in range(self._indexed, len(self.known)):
            words = tokens(self.known[at])
            self._by_words.setdefault(words, self.known[at])
            for form in {f for w in words for f in given_forms(w)}:
                self._by_form.setdefault(form, []).append(at)
        self._indexed = len(self.known)

    def _known_as(self, word: str) -> str | None:
        if not word:
            return None
        self._index()
        exact = self._by_words.get(tokens(word))
        if exact is not None:
            return exact
        # A name ``word`` fits shares a given form with it (``names.fits``), in ``known``'s order.
        near: set[int] = set()
        for form in {f for w in tokens(word) for f in given_forms(w)}:
            near.update(self._by_form.get(form, ()))
        fitting = list(dict.fromkeys(self.known[at] for at in sorted(near) if fits(word, self.known[at])))
        if fitting and all(fits(a, b) or fits(b, a) for a in fitting for b in fitting):
            return fitting[0]  # one person said two ways ("Bill Turner", "William")
        return None

    def is_speaker(self, word: str) -> bool:
        return any(tokens(sp) == tokens(word) for sp in self.speakers)

    def mention(self, name: str, gender: str | None = None) -> None:
        if not name:
            return
        self._index()
        if tokens(name) not in self._by_words:
            self.known.append(name)
        self.mentions.append(Mention(name, self.message))
        if gender is not None:
            self.genders[tokens(name)] = gender

    def relate(self, person: str, relation: str, owner: str) -> None:
        self.relations[(tokens(owner), same_relation(relation))] = person
        self.mention(person, relation_gender(relation))

    def related(self, owner: str, relation: str) -> str | None:
        return self.relations.get((tokens(owner), same_relation(relation)))

    def gender_of(self, name: str) -> str | None:
        said = self.genders.get(tokens(name))
        if said is not None:
            return said
        full = self.known_as(name)
        if full is not None and tokens(full) in self.genders:
            return self.genders[tokens(full)]
        return title_gender(name) or given_gender(name.split()[-1] if title_gender(name) else name)

    def refer(self, gender: str) -> str | None:
        """The person a "he" (``"m"``) or "she" (``"f"``) of the current message points to, or None.

        Candidates: the persons mentioned in the last ``PRONOUN_WINDOW`` messages, most recent
        first, never the speaker (who says "I") nor the one spoken to (who is "you"). The most
        recent one known to be of that gender wins; if none is, the one candidate whose gender is
        unknown — and nobody when there are several: a fact about nobody beats a fact filed under
        the wrong person.
        """
        seen: list[str] = []
        for m in reversed(self.mentions):
            if m.message <= self.message - PRONOUN_WINDOW:
                break
            if self._same(m.name, self.speaker) or (self.addressee and self._same(m.name, self.addressee)):
                continue
            if not any(self._same(m.name, s) for s in seen):
                seen.append(m.name)
        for name in seen:
            if self.gender_of(name) == gender:
                return name
        unknown = [n for n in seen if self.gender_of(n) is None]
        return unknown[0] if len(unknown) == 1 else None

    def about(self, name: str) -> None:
        """A claim was about ``name``: the talk's topic, which a fragment with no subject continues."""
        self.topic, self.topic_message = name, self.message

    def current_topic(self, within: int = 2) -> str | None:
        """The topic if it was set in this message or the ``within`` before it, else None."""
        return self.topic if self.topic is not None and self.message - self.topic_message <= within else None

    def they(self) -> tuple[str, ...]:
        """The group a "they" means: the last persons named together, within the pronoun window."""
        return self.group if self.group and self.message - self.group_message < PRONOUN_WINDOW else ()

    def bind(self, name: str, gender: str) -> None:
        """A pronoun of ``gender`` was taken to mean ``name``: say so, and make them the most salient."""
        self.genders.setdefault(tokens(name), gender)
        self.mentions.append(Mention(name, self.message))

    def _same(self, a: str, b: str) -> bool:
        return tokens(a) == tokens(b) or fits(a, b)

    def person_at(self, words: Sequence[str], i: int) -> tuple[str, int] | None:
        """The person named at ``words[i]`` with evidence (see the module doc): (name, words used)."""
        w = core(words[i])
        if not is_capitalised(w):
            return None
        nxt = core(words[i + 1]) if i + 1 < len(words) else ""
        joined = not words[i].endswith((",", ".", "'s", "’s", ":", ";", "!", "?"))
        if words[i].rstrip(".").casefold() in _TITLE_WORDS and is_capitalised(nxt) and not is_common(nxt):
            return self._titled(f"{words[i]} {nxt}"), 2
        if w.casefold() in KINSHIP_TITLES and joined and is_capitalised(nxt) and not is_common(nxt):
            return nxt, 2  # "Grandpa Walter": the name is Walter
        if is_common(w) and not (self.is_speaker(w) or (_fold(w) in GIVEN_NAMES and self.known_as(w))):
            return None  # "Monday", "Honestly", "Mom", "People"; "Bill" only once a Bill is known
        if not (self.known_as(w) or listed_name(w) or self.is_speaker(w) or _slot(words, i)):
            return None
        if joined and is_capitalised(nxt) and not is_common(nxt) and not listed_name(nxt):
            return f"{w} {nxt}", 2  # "Bob Smith"
        return w, 1

    def _titled(self, name: str) -> str:
        """ "Mrs. Moore" is the one known Moore she can be (Katherine, not her husband Bill)."""
        g = title_gender(name)
        surname = tokens(name)[-1:] if tokens(name) else ()
        same = [k for k in dict.fromkeys(self.known) if len(tokens(k)) > 1 and tokens(k)[-1:] == surname]
        if g is not None:
            same = [k for k in same if self.gender_of(k) in (g, None)]
        return same[0] if len(same) == 1 else name

    def persons_in(self, words: Sequence[str], start: int = 0) -> list[tuple[int, str]]:
        """Every person named with evidence in ``words[start:]``: (position, name).

        A listed name after "in" / "at" / "near" is a place as often as not ("in Victoria",
        "dinner at Luigi's"): there it counts only when the person is known.
        """
        out: list[tuple[int, str]] = []
        i = start
        while i < len(words):
            found = self.person_at(words, i)
            if found is None:
                i += 1
                continue
            place = i > 0 and words[i - 1].casefold() in _PLACE_PREPOSITIONS
            if not place or self.known_as(found[0]) is not None:
                out.append((i, found[0]))
            i += found[1]
        return out


def _slot(words: Sequence[str], i: int) -> bool:
    """Does ``words[i]`` stand where only a person stands ("X and I", "X's sister", "X said", "called X")?"""
    low = [w.casefold().strip(',.;:!?"“”') for w in words]
    after = low[i + 1 : i + 3]
    if after[:2] in (["and", "i"], ["and", "me"]):
        return True
    if words[i].endswith(("'s", "’s")) and after and (after[0] in RELATIONS or after[0] in PERSON_THINGS or (
        after[0] in RELATION_ADJECTIVES and len(after) > 1 and after[1] in RELATIONS
    )):  # fmt: skip
        return True
    if after[:1] == ["who"] or low[i + 1 : i + 5] == ["is", "the", "one", "who"]:
        return True  # "Folasade, who ...", "Folasade is the one who handles budgets": "who" is for people
    if words[i].endswith(",") and after[:1] in (["the"], ["a"]) and len(after) > 1 and after[1] in _PERSON_NOUNS:
        return True  # "Pete, the guy at number 12"
    if i == 0 and len(after) > 1 and after[0] in _VERB_ADVERBS and after[1] in HUMAN_VERBS:
        after = after[1:]  # "Kemi basically lives at the office"
    if i == 0 and after and after[0] in HUMAN_VERBS and not words[i].endswith((",", "'s", "’s")):
        return not low[i].endswith("ing")  # "Kwame lives in Accra"; not "Winning felt amazing"
    if after and after[0] in PERSON_VERBS and not words[i].endswith(","):
        # "Felipe said", not "someone from DeepMind asked" nor "Google Maps says"
        return i == 0 or (low[i - 1] not in _PREPOSITIONS and not is_capitalised(words[i - 1]))
    # "a guy called Felipe" — not "a game called Counter-Strike", "a dog named Max"
    return i > 1 and low[i - 1] in ("called", "named") and low[i - 2] in _PERSON_NOUNS
