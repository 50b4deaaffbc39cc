"""Whom a claim's version is about: its own ``about`` links, else its earlier versions' that it still names.

Why: ``about`` links a claim as extraction mined it. Its later versions — a ``revise``, the
winner of a ``resolve``, a correction into a claim that already existed — were read as being
about whoever the first version was about, so after "Omar is Bob's manager." was corrected (or
lost a conflict) to "Priya is Bob's manager.", Omar held Priya's claim (outside probe 4, findings
6 and 7). Now:

- a version with ``about`` links of its own is about exactly those persons (extraction linked the
  winner of a conflict itself; ``follow.follow_people`` links a revised version when it is written);
- a version without any (a store written before that, or a plain claim that replaced a linked
  one) is about the persons its earlier versions are about that its words still name — or, when
  its words name none of them ("Lives in Lisbon now."), all of them.

Decided per version, whatever claim the read started from, so ``person()`` (which starts from
one person's links) and ``people()`` (which reads every link of the scope) always agree.
"""

from __future__ import annotations

import re
from collections.abc import Callable, Sequence
from typing import TYPE_CHECKING

from reverie.conversation.people.names import fits, tokens
from reverie.model.item import Item
from reverie.store.protocol import Store

if TYPE_CHECKING:
    from reverie.conversation.people.book import Group

#: ``meta["rule"]`` of the ``about`` links ``follow.follow_people`` writes: the version they link
#: took a linked claim's place, so its relation is read from its words.
FOLLOWED = "revised"
#: A word as a text says it, an apostrophe's possessive included ("Bob's").
_WORD = re.compile(r"[^\W\d_][\w'’-]*")


class Holders:
    """Memoised per ``Book`` build: the persons each claim version is about."""

    def __init__(self, store: Store, scope: str) -> None:
        self.store = store
        self.scope = scope
        self._memo: dict[str, list[Group]] = {}
        #: Versions whose persons come from earlier versions (no ``about`` links of their own).
        self.inherited: set[str] = set()

    def of(self, item: Item, own: Callable[[str], list[Group]]) -> list[Group]:
        """The persons ``item`` is about; ``own(claim id)``: the persons its own ``about`` links name."""
        return self._of(item.id, item.text, own)

    def _of(self, item_id: str, text: str, own: Callable[[str], list[Group]]) -> list[Group]:
        if item_id in self._memo:
            return self._memo[item_id]
        mine = own(item_id)
        if mine:
            self._memo[item_id] = mine
            return mine
        self._memo[item_id] = []  # a cycle of ``supersedes`` edges ends here
        earlier = [
            e.dst
            for e in self.store.edges(self.scope, item_id)
            if e.type == "supersedes" and e.src == item_id and e.dst != item_id
        ]
        found = self.store.get_many(self.scope, earlier) if earlier else {}
        inherited: list[Group] = []
        for pid in earlier:
            prev = found.get(pid)
            if prev is None:
                continue
            inherited.extend(g for g in self._of(pid, prev.text, own) if g.id not in {h.id for h in inherited})
        if inherited:
            self.inherited.add(item_id)
        still = [g for g in inherited if names(text, g)]
        self._memo[item_id] = still or inherited
        return self._memo[item_id]


def names(text: str, group: Group) -> bool:
    """Does ``text`` name the person ``group``: one of their names in full, or a capitalised word that fits one?"""
    if said_name(text, group) is not None:
        return True
    return any(w[:1].isupper() and fits(w, n.text) for w in _words(text) for n in group.names)


def said_name(text: str, group: Group) -> str | None:
    """The id of the first of ``group``'s name items that ``text`` says in full, or None."""
    folded = [t for w in _words(text) for t in tokens(w)]
    for n in group.names:
        want = list(tokens(n.text))
        if want and any(folded[i : i + len(want)] == want for i in range(len(folded) - len(want) + 1)):
            return n.id
    return None


def _words(text: str) -> Sequence[str]:
    return [w[:-2] if w.endswith(("'s", "’s")) else w for w in _WORD.findall(text)]
