"""Are two claims about two different persons? Then they cannot contradict each other.

"Dana works at Google now." about Alice's sister and "Dana works at Acme." about Carl's friend
share every word but the employer, and the rules, which compare words, flagged them (session
33). Extraction already told the two Danas apart (two person items, each claim ``about`` its
own), so conflict detection asks here before comparing a pair (``Contradictions.conflict_links``,
which both the write-time check and the dream pass's rechecks run).

A claim's persons are the name items its current ``about`` edges point to, widened over
``alias`` edges (the names of one person are joined by them, as ``book.Book`` joins them). A
mention attributed to nobody (``book.is_ambiguous``, no ``alias`` edge) is no person: a claim
about it may be about either Dana, so it is compared as before. Two claims are *apart* only when
both are about somebody and no person is shared; a claim linked to nobody (a plain ``remember``)
is compared with everything, as before.

Reads only the two claims' edges and the scope's ``alias`` edges (once per check), never the
whole book: detection runs for every claim written.
"""

from __future__ import annotations

from collections.abc import Sequence

from reverie.conversation.people.book import is_ambiguous
from reverie.model.item import Edge
from reverie.store.protocol import Store


class AliasGraph:
    """A scope's ``alias`` edges as a graph, read when first needed (a claim about nobody needs
    none) and then shared: a batch of checks (a slice import) reads them once."""

    def __init__(self, store: Store, scope: str, edges: Sequence[Edge] | None = None) -> None:
        """``edges``: the scope's alias edges when the caller already read them."""
        self._store, self._scope = store, scope
        self._edges: dict[str, set[str]] | None = None if edges is None else _graph(edges)

    def joined(self, name_id: str) -> set[str]:
        """The name items directly joined to ``name_id``."""
        if self._edges is None:
            self._edges = _graph(self._store.edges_by_type(self._scope, "alias"))
        return self._edges.get(name_id, set())


def _graph(edges: Sequence[Edge]) -> dict[str, set[str]]:
    out: dict[str, set[str]] = {}
    for e in edges:
        out.setdefault(e.src, set()).add(e.dst)
        out.setdefault(e.dst, set()).add(e.src)
    return out


class PersonsOf:
    """The persons (as sets of name item ids) a claim is about, read once per claim and name."""

    def __init__(self, store: Store, scope: str, graph: AliasGraph | None = None) -> None:
        self._store, self._scope = store, scope
        self._claims: dict[str, frozenset[str]] = {}
        self._names: dict[str, frozenset[str]] = {}
        self._graph = graph or AliasGraph(store, scope)  # a scope's alias edges are a handful

    def of(self, claim_id: str) -> frozenset[str]:
        """Every name item id of every person ``claim_id`` is about (empty: about nobody)."""
        if claim_id not in self._claims:
            named = {e.dst for e in self._store.edges(self._scope, claim_id) if e.type == "about" and e.src == claim_id}
            self._claims[claim_id] = frozenset().union(*(self._person(n) for n in sorted(named)))
        return self._claims[claim_id]

    def apart(self, a: str, b: str) -> bool:
        """Are claims ``a`` and ``b`` each about somebody, and about nobody in common?"""
        mine = self.of(a)
        if not mine:
            return False
        theirs = self.of(b)
        return bool(theirs) and not (mine & theirs)

    def _person(self, name_id: str) -> frozenset[str]:
        """The name items joined to ``name_id`` by ``alias`` edges; empty for an unattributed mention."""
        if name_id in self._names:
            return self._names[name_id]
        seen, todo = {name_id}, [name_id]
        while todo:
            for other in self._graph.joined(todo.pop()):
                if other not in seen:
                    seen.add(other)
                    todo.append(other)
        if len(seen) == 1:
            item = self._store.get(self._scope, name_id)
            if item is None or is_ambiguous(item):
                seen = set()
        person = frozenset(seen)
        for n in seen:
            self._names[n] = person
        return person
