"""A claim's new version is linked to the persons its words name, as extraction would link it.

Why: "Omar is Bob's manager." revised to "Priya is Bob's manager." kept its ``about`` links on
the first version only, so the relation's other person stayed Omar, Omar held Priya's claim and
there was no person Priya (outside probe 4, finding 7). When a linked claim gets a new version
(``revise``, either kind), the new version is linked here, in the same transaction, to:

- the persons the earlier version was about that its words still name (``holders``) — all of
  them when its words name none ("Lives in Lisbon now." stays the person's);
- each person its relation names (``relation_text``) who was not among them, enrolled the way
  extraction enrolls a mention (``Enroller.ensure``: an existing person, a new alias, or a new
  person shown to the claim's audience).

A claim no person was linked to is left alone: it is no person's claim. A name that cannot be
enrolled (dismissed, not a plain name) is skipped, as extraction skips it.
"""

from __future__ import annotations

from reverie.conversation.host import ConversationHost
from reverie.conversation.people.enroll import AUTHOR, Enroller
from reverie.conversation.people.holders import FOLLOWED, names, said_name
from reverie.conversation.people.relation_text import stated_relation
from reverie.errors import ConflictError, InvalidInputError
from reverie.model import commands as cmd


def follow_people(host: ConversationHost, scope: str, item_id: str) -> list[str]:
    """Link the claim version ``item_id`` to the persons it is about; the name item ids linked.

    Run inside the write's transaction (``store.atomic``), right after the version is written.
    """
    store = host.store
    item = store.get(scope, item_id)
    if item is None or not item.is_current:
        return []
    enroller = Enroller(host, scope)
    book = enroller.book
    if book.own_about(item_id):
        return []  # linked in its own right (a correction into a claim extraction had linked)
    holders = book.holders(item, book.own_about)
    if not holders:
        return []
    targets = [said_name(item.text, g) or g.id for g in holders]
    carried = item.meta.get("relation")
    rel = stated_relation(item.text, carried if isinstance(carried, dict) else None)
    for said in (rel["person"], rel["of"]) if rel is not None else ():
        if any(names(said, g) for g in holders):
            continue
        conversation, speaker = item.meta.get("conversation"), item.meta.get("speaker")
        try:
            name_id = enroller.ensure(
                said,
                conversation=str(conversation) if conversation else None,
                visibility=item.audience,
                said_by=str(speaker) if speaker else None,  # as extraction enrolled the first version's
            )
        except (ConflictError, InvalidInputError):
            continue
        if name_id not in targets:
            targets.append(name_id)
    meta = {"rule": FOLLOWED}  # as extraction's links say which rule mined them
    host.run([cmd.Link(scope, "about", item_id, target, AUTHOR, 0.7, meta) for target in targets])
    return targets
