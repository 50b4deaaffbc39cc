"""People and relations: person records built from speakers and mentions, aliases, relations, ``about`` edges.

A person is an item of kind ``person`` (its text is a name); two names of one person are person
items joined by an ``alias`` edge; a claim is linked to each person it is about by an ``about``
edge (claim → person); a relation ("Dana is Alice's sister") is a claim with
``meta["relation"]``, about both people, whose provenance is the message that said it (once
revised, its relation is read from its current words: ``relation_text``).
"""

from reverie.conversation.people.api import People
from reverie.conversation.people.book import PERSON_KIND, Person, PersonSummary, Relation

__all__ = ["PERSON_KIND", "People", "Person", "PersonSummary", "Relation"]
