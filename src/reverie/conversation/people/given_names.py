"""Common given names, written by hand for the people rules: evidence that a capitalised word is a person.

Why a list: capitalisation alone says nothing at the start of a sentence ("Monday", "Paris",
"Google", "Honestly" are capitalised there too), and a wrong person is worse than a missed one.
A word in this list is taken for a name where a name can stand; a word that is also a common
English word ("Will", "May", "Grace", "Mark") needs more than the list (see
``recognise.COMMON_WORDS``). The gender is only used to choose between two people a "he" or
"she" might mean; a name in neither gendered list leaves that open.

Not exhaustive and not meant to be: a name missing here is still recognised from its context
("my sister Bruna", "Bruna and I", "Bruna said"), or from having been a speaker. Written for
this project from general knowledge — place names that are also given names ("Georgia",
"Florence", "Santiago", "Jordan") are left out (English, Romance, Germanic, Nordic, Slavic, Greek, Arabic,
Turkish, Persian, South and East Asian, African given names), lower case.
"""

from __future__ import annotations


def _words(text: str) -> frozenset[str]:
    return frozenset(text.split())


FEMININE = _words(
    """
    abby abigail ada adele adriana agnes aisha alexandra alice alicia alina alison amanda amara amelia amina amy
    ana anastasia andrea angela angelica anita ann anna anne annie antonia anya ariana astrid audrey ava ayesha
    ayse barbara bea beatrice beth beatriz becky bella bianca brenda bridget brigitte bruna camila camille carla carmen
    carol caroline carolina cassandra catherine cathy cecilia celine charlotte chiara chloe christina christine
    cindy claire clara claudia colette cristina daisy daniela daphne deborah denise diana dina dolores donna
    dorothy eleanor edith elena eliza elizabeth ella ellen eloise elsa emilia emily emma erica erika esther eva evelyn
    fatima federica fiona francesca freya gabriela gabriella gemma gina giulia gloria grace greta
    gwen hala hana hanna hannah harriet heather heidi helen helena hilda ida ines ingrid irene iris isabel
    isabella isla ivana jade jana jane janet janice jasmine jean jennifer jenny jess jessica jill joan joanna
    jolene josephine joyce judith judy julia julie juliet justine kamala karen karin katarina kate katherine
    kathryn kathy katie katya kayla keiko kirsten kristina laila lakshmi laura lauren layla leah leila lena
    lia liliana lily linda lisa liz lizzie lois lorena lotte louise lucia lucy luisa lydia madeleine maggie
    maja malika mara margaret margot maria mariam marie marina marisa marta martha mary matilda maya meera megan
    mei melanie melissa mia michelle mila milena mina miriam molly monica nadia nadine naomi natalia natasha
    nicole nina nisha noor nora olga olivia paola patricia paula pauline penelope petra phoebe pia pilar
    polly priya rachel rebecca renata rita roberta rosa rosalind rosie ruth sabrina sadia sakura samira sandra
    sara sarah sasha selena seren shira silvia simone sofia sonia sophia sophie stella stephanie susan susanna
    svetlana sylvia tamara tanya tara teresa tess tessa thea theresa tina ursula valentina valeria vanessa
    vera veronica victoria vivian wanda wendy yara yasmin yuki yulia yvonne zara zoe zofia zuzana
    """
)

MASCULINE = _words(
    """
    aaron abdul abel adam adrian ahmed aidan alan albert alberto alejandro alessandro alex alexander alexei
    alfred ali amir anders andre andreas andrei andrew andy angus anton antonio arjun armando arthur aziz
    ben benjamin bernard bill billy bob bobby boris brad brandon brian bruce bruno callum calvin carl carlos
    charles charlie chen chris christian christopher colin conor craig dale damian dan daniel danny darius
    dave david dean declan dennis derek diego dimitri dmitri dominic donald doug douglas duncan dylan ed eddie
    edgar eduardo edward eli elias emil emilio enrique eric erik ethan evan fabio farid felipe felix fernando
    filip finn francesco francis franco frank fred frederick gabriel gary gavin george gerald giorgio giovanni
    giuseppe graham greg gregory gustav hamid hans harold harry harvey hassan hector henrik henry hiro hiroshi
    howard hugo hussein ian igor imran isaac ivan jack jacob jake jakob james jamal jamie jan jason javier jay
    jeff jeremy jerome jim jimmy joao joe joel johan john jon jonah jonas jonathan jorge jose joseph josh joshua
    juan julian julio justin kai kamal karim karl kemal ken kenji kevin khalid kofi konstantin kurt lars
    laurence lawrence leo leon leonardo liam lorenzo louis luca lucas luigi luis luke magnus malik manuel marc
    marcel marco marcus mario martin mateo matt matteo matthew max maxim michael miguel mike mohamed mohammed
    muhammad murat nathan neil niall nick nicholas nico nikolai noah oliver omar oscar otto owen pablo paolo
    patrick paul pedro peter philip pierre rafael rahul raj rajesh ralph ramon ravi raymond reza ricardo
    richard rick robert roberto rob robin rodrigo roger roman ronald rory ruben rupert ryan salim sam samir
    samuel scott sean sebastian sergei sergio simon stefan stephen steve steven stuart sven takeshi
    tariq ted theo theodore thomas tiago tim timothy tobias todd tom tommy tony tyler umar victor vikram
    vincent vladimir walter warren wayne wei william yannick yusuf yuri zach zachary
    """
)

#: Given names used for anyone (no gender is guessed from them).
EITHER = _words(
    """
    alexis ali ariel ashley avery casey dana drew eden elliot emery frankie hiro jackie jesse
    kim kris lee lin logan morgan nikita pat quinn reese riley rowan sam sasha shay sky taylor toni yu
    """
)

ALL = FEMININE | MASCULINE | EITHER


def gender(name: str) -> str | None:
    """``"f"``, ``"m"``, or None when the first word of ``name`` does not say."""
    first = name.split()[0].casefold() if name.split() else ""
    if first in EITHER:
        return None
    if first in FEMININE:
        return "f"
    if first in MASCULINE:
        return "m"
    return None
