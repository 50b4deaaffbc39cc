"""Word lists the people rules read: relation nouns, titles, nicknames, words that are not names.

Kept apart from the rules so a reviewer can see (and extend) the vocabulary without reading
regular expressions. Everything is lower case; matching folds case first.
"""

from __future__ import annotations


def _words(text: str) -> frozenset[str]:
    return frozenset(text.split())


def _words_per_line(text: str) -> frozenset[str]:
    return frozenset(line.strip() for line in text.splitlines() if line.strip())


#: Nouns that name how one person stands to another ("my sister Dana", "Omar is my manager").
#: Singular only: "Melanie's kids" names several people, and rewriting it to one of them would
#: be wrong more often than right.
RELATIONS = _words(
    """
    accountant adviser advisor assistant aunt babysitter bassist boss boyfriend brother ceo cfo classmate co-founder
    co-worker coach cofounder colleague cousin coworker cto dad daughter dentist designer doctor
    drummer father fiance fiancee fiancé fiancée flatmate founder friend girlfriend granddaughter grandfather
    grandma grandmother grandpa grandson granny guitarist housemate husband landlady landlord lawyer manager
    mentee mentor mom mother mum nanny neighbor neighbour nephew niece partner pastor roommate sibling singer
    sister son spouse stepdaughter stepfather stepmother stepson student supervisor teacher teammate tenant
    therapist trainer tutor twin uncle vet wife
    brother-in-law daughter-in-law father-in-law mother-in-law sister-in-law son-in-law stepbrother stepsister
    half-brother half-sister godfather godmother godson goddaughter
    """
)

#: Words that may sit between the possessive and the relation noun ("my old boss", "her best friend").
RELATION_ADJECTIVES = _words(
    """
    baby best big close direct ex former good little new old older oldest team thesis twin younger youngest
    """
)

#: Titles in front of a name: kept in the displayed name, ignored when names are compared.
TITLES = _words(
    """
    aunt dame doctor dr dr. miss mr mr. mrs mrs. ms ms. prof prof. professor sir uncle
    """
)

#: Short forms of given names (nickname → the full names it is short for).
NICKNAMES: dict[str, tuple[str, ...]] = {
    "bob": ("robert",),
    "bobby": ("robert",),
    "rob": ("robert",),
    "robbie": ("robert",),
    "bert": ("robert", "albert"),
    "bill": ("william",),
    "billy": ("william",),
    "will": ("william",),
    "willy": ("william",),
    "kate": ("katherine", "catherine", "kathryn"),
    "katie": ("katherine", "catherine", "kathryn"),
    "kathy": ("katherine", "catherine", "kathryn"),
    "cathy": ("catherine",),
    "alex": ("alexander", "alexandra", "alexis"),
    "sasha": ("alexander", "alexandra"),
    "jim": ("james",),
    "jimmy": ("james",),
    "jamie": ("james",),
    "mike": ("michael",),
    "mickey": ("michael",),
    "tom": ("thomas",),
    "tommy": ("thomas",),
    "dan": ("daniel",),
    "danny": ("daniel",),
    "sam": ("samuel", "samantha"),
    "sammy": ("samuel", "samantha"),
    "ben": ("benjamin",),
    "benny": ("benjamin",),
    "joe": ("joseph",),
    "joey": ("joseph",),
    "liz": ("elizabeth",),
    "lizzie": ("elizabeth",),
    "beth": ("elizabeth",),
    "betty": ("elizabeth",),
    "dave": ("david",),
    "chris": ("christopher", "christine", "christina"),
    "nick": ("nicholas",),
    "matt": ("matthew",),
    "andy": ("andrew",),
    "drew": ("andrew",),
    "tony": ("anthony",),
    "steve": ("steven", "stephen"),
    "pat": ("patrick", "patricia"),
    "jen": ("jennifer",),
    "jenny": ("jennifer",),
    "meg": ("margaret",),
    "maggie": ("margaret",),
    "peggy": ("margaret",),
    "sue": ("susan",),
    "ed": ("edward",),
    "eddie": ("edward",),
    "ted": ("edward", "theodore"),
    "rick": ("richard",),
    "dick": ("richard",),
    "greg": ("gregory",),
    "jeff": ("jeffrey",),
    "larry": ("lawrence",),
    "fred": ("frederick",),
    "frank": ("francis", "franklin"),
    "charlie": ("charles",),
    "chuck": ("charles",),
    "tim": ("timothy",),
    "josh": ("joshua",),
    "nate": ("nathan", "nathaniel"),
    "abby": ("abigail",),
    "vicky": ("victoria",),
    "becky": ("rebecca",),
    "nico": ("nicolas", "nicholas"),
}
_FIRST_NOT_NAMES = _words(
    """
    a about actually after also am an and anyway april are august be because been before but can christmas
    cool could december did do does easter february friday god great had haha halfway has have he hello her
    here hey hi his honestly how i i'd i'll i'm i've if is it it's its january july june just lol march may
    maybe me monday my nice no not november october oh ok okay or our please probably really saturday
    september she should so sometimes sorry still sunday sure thank thanks that the their them then there
    these they this those thursday today tomorrow tonight tuesday was we we're we've wednesday well were what
    when where which who whom whose why will would wow yes yesterday you your
    """
)

#: Capitalised words that start sentences or name things, never people (lower case): function
#: words, interjections, weekdays, months, holidays, kinship words used as names, titles, the nouns
#: and verbs a chat sentence opens with, and the given names that are also common words ("Will",
#: "May", "Grace": those need more evidence than the name list, see ``recognise``), and a few
#: companies and places that chats name often (``PLACES_AND_COMPANIES``, below).
NOT_NAMES = _FIRST_NOT_NAMES | _words(
    """
    above across after afternoon again against ago ahead all almost alone along already alright although
    always among another any anybody anyone anything anyway anywhere apparently around as ask at autumn
    away awesome awful back bad basically be beautiful before behind being below beside besides best
    better between beyond big both brb breakfast bring btw by call called came can't cannot careful
    cheers check congrats congratulations cost costs could couldn't dear definitely despite did didn't
    dinner do does doesn't doing don't done down during each early earlier either else enough especially
    even evening eventually ever every everybody everyone everything everywhere exactly except fair far
    few finally fine first for found from fun funny further get gets getting give go goes going gone
    good goodbye goodnight got gotta great guess guys had hadn't half happy hardly has hasn't haven't
    having he'd he'll he's hello hence her hers herself hey hi him himself hm hmm home hope hopefully
    hours however huge i'll idk imagine in indeed instead into isn't it'll itself just kind kinda last
    late lately later least less let let's like likely little long look looks lot lots lovely lunch
    made make many maybe meanwhile meh mine minutes mm month months more morning most mostly much must
    my myself near nearly need needs neither never nevertheless new next night nobody none nope nor
    nothing now nowhere obviously of off often omg on once one only onto other others otherwise ought
    ours ourselves out outside over overall own perfect perhaps personally plus pm point pretty quite
    rather re ready real right same see seems seriously several she'd she'll she's should shouldn't
    since sir small some somebody someday somehow someone something sometime somewhere soon speaking
    spring still such summer super supposedly take tbh than thankfully that's the them themselves
    there's therefore they they'd they'll they're they've thing things think though through thus till
    to together tomorrow too totally toward towards true try turns two ugh uh um under unfortunately
    unless until up upon us usually very via wait want wanted was wasn't way we'd weather week weekend
    weeks weird weren't what's whatever whenever wherever whether while whoever whole why will winter
    with within without won't wonderful work works worse would wouldn't yay yeah year years yep yet
    you'd you'll you're you've yours yourself yup
    afterwards all-in-all also around bank cafe car city class coffee college company country court
    dad daddy doctor family food friday's game gym hospital house job kitchen mama market meeting mom
    mommy monday's mum mummy nan nana office papa party pub rent restaurant saturday's school shop station
    store street sunday's team thursday's town train trip tuesday's uni university wednesday's
    january february march april may june july august september october november december
    monday tuesday wednesday thursday friday saturday sunday christmas easter halloween thanksgiving
    ramadan eid diwali hanukkah passover new year's valentine's
    grandma grandpa granny gran grandad granddad grandmother grandfather auntie mother father
    mr mrs ms miss dr prof professor doctor
    will may june april august grace mark bill frank rose hope joy faith dawn eve ruby amber guy
    don ray art rich sunny penny sky reese chase summer autumn iris lily daisy ivy holly
    absolutely agreed almost amazing anyways certainly clearly damn depends feels fortunately frankly
    generally glad happens hopefully interesting literally lucky luckily mainly makes means normally oops
    partly poor possibly sadly shame sounds sucks surely typical typically wish noted
    """
)
#: Companies and places chats name often: never a person, but a sentence may open with one and go
#: on about the speaker ("Spotify rejected my application").
PLACES_AND_COMPANIES = _words(
    """
    google apple amazon microsoft facebook meta netflix spotify tesla uber airbnb ikea twitter instagram tiktok
    youtube whatsapp linkedin reddit slack zoom samsung sony nike adidas starbucks costco walmart target lidl
    aldi tesco deloitte accenture mckinsey ibm intel nvidia openai siemens bmw toyota ryanair easyjet
    london paris berlin rome madrid lisbon porto amsterdam dublin vienna prague barcelona milan munich
    tokyo beijing delhi mumbai dubai sydney toronto chicago boston seattle texas california florida
    europe asia africa america canada mexico brazil spain france germany italy japan china india
    """
)
NOT_NAMES = NOT_NAMES | PLACES_AND_COMPANIES

#: Nouns for what a person is to others or does (singular; their plurals are built below).
ROLE_NOUNS = RELATIONS | _words(
    """
    adult agent artist author buyer child client critic customer developer employee engineer expert fan farmer
    guest kid local member nurse official owner parent passenger patient player reader relative researcher
    resident scientist seller shopper stranger tourist user viewer visitor voter worker
    """
)


def plural(noun: str) -> str:
    """The regular English plural of a lower-case noun ("city" → "cities", "coach" → "coaches")."""
    if noun.endswith("y") and noun[-2:-1] not in ("a", "e", "o", "u"):
        return noun[:-1] + "ies"
    if noun.endswith(("s", "sh", "ch", "x", "z")):
        return noun + "es"
    return noun + "s"


#: Words for people in general, never one person ("People said the food was good", "Customers
#: say the app is slow"): indefinite pronouns, collective nouns, and the plural of every role
#: noun. A closed class of English, not a list of names: a capital at the start of a sentence
#: makes none of them a person (helper mining2, session 32: "People" and "Customers" were
#: enrolled as persons).
GENERIC_PEOPLE = (
    _words(
        """
        people folks folk everyone everybody someone somebody anyone anybody nobody no-one noone whoever
        others many most some few all both each either neither none they them
        guys kids children men women ladies gentlemen grownups adults teens teenagers
        management staff personnel crew team board council committee government police press media public
        audience crowd family families company companies
        """
    )
    | frozenset(plural(n) for n in ROLE_NOUNS)
    | _words("people-pleasers brothers-in-law sisters-in-law mothers-in-law fathers-in-law")
)
NOT_NAMES = NOT_NAMES | GENERIC_PEOPLE


#: How a person may feel without that being a fact worth keeping ("I'm worried", "I was surprised").
FEELINGS = _words(
    """
    angry annoyed anxious bored confused curious devastated drained excited exhausted fine frustrated glad good
    great happy heartbroken lonely nervous ok okay overwhelmed relieved sad scared shocked sorry stressed sure
    surprised terrified thrilled tired upset worried
    """
)

#: Third-person pronouns that open a sentence about the person last mentioned.
SUBJECT_PRONOUNS = _words("he she he's she's he'll she'll he'd she'd")
POSSESSIVE_PRONOUNS = _words("his her")
#: Words in front of a verb that do not change whose fact it is ("I just adopted", "I really love").
ADVERBS = _words(
    """
    absolutely actually already also always currently definitely finally honestly just mostly never often
    really recently sometimes still totally usually
    """
)

MODALS = _words("can could will would should must may might shall")
#: Past tenses that do not end in -ed (and verbs whose past is their present: "bet", "cut", "put"):
#: after "I" they keep their form ("I slept" → "Alice slept"). Why a table: a past tense cannot be
#: told by its ending ("slept", "meant" end as "want", "eat" do), and the -s a present verb takes
#: made "Alice slepts" and turned "I bet 50 euros" into the present (outside probe 4, finding 17).
#: A word here that is also another verb's present ("found", "saw", "lay") keeps the speaker's
#: form either way, which is never a change of tense.
IRREGULAR_PASTS = _words(
    """
    arose ate awoke bade beat became befell began begot beheld bent besought bet bid bit bled blew bore
    bound bred broadcast broke brought built burnt burst bought cast caught chose clung came cost crept cut
    dealt did dove drank drew dreamt drove dug dwelt fed fell felt fled flew flung forbade forecast foresaw
    forgave forgot fought found froze gave got grew ground had heard held hid hit hung hurt kept knelt knew
    laid lay leant leapt learnt led left lent let lit lost made meant met misheard mislaid misled mistook
    misunderstood outdid outgrew outran overate overcame overdid overheard overran oversaw overslept overtook
    overthrew paid put quit ran rang read rebuilt redid remade resold retook rewrote rid rode rose said sang
    sank sat saw sent set shed shone shook shot shrank shut slept slew slid slung slunk smelt sold sought
    spat sped spelt spent spilt spoilt spoke sprang spread spun split stank stole stood strode struck strove
    stuck stung swam swept swore swung taught thought threw thrust told took tore trod undid understood
    undertook underwent upheld upset wed went wept withdrew withheld woke won wore wound wove wrote wrung
    """
)
#: Note labels in front of a statement ("Correction: I'm allergic to cashews", "Quick update —
#: ..."): the last word of a label, the words that may come before it, and whole phrases.
LABEL_NOUNS = _words(
    """
    addendum aside caveat clarification context correction corrections disclaimer edit eta erratum fact fyi
    heads-up info nb n.b note notes p.s ps pps psa recap reminder summary tl;dr tldr update updates
    """
)
LABEL_MODIFIERS = _words(
    """
    a an another big brief final fun general important last latest little minor new one personal progress
    quick random short side slight small status tiny
    """
)
LABEL_PHRASES = _words_per_line(
    """
    for the record
    for context
    for your information
    just so you know
    heads up
    note to self
    to clarify
    just to clarify
    to be clear
    just to be clear
    """
)

#: Verbs whose third-person form is irregular.
IRREGULAR_VERBS = {"have": "has", "do": "does", "go": "goes", "am": "is", "be": "is"}
#: Speech verbs of reported speech ("Jake said \"I'm moving\"").
SPEECH_VERBS = ("said", "says", "told me", "told us", "wrote", "texted", "mentioned")
