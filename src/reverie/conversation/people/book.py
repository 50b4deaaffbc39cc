"""The person records of one scope, read from the store: names, aliases, relations, claims about each.

Everything here is derived from items and edges, so it replays, scopes and purges like the rest
of the memory:

- a *name* is a current item of kind ``person`` whose text is the name;
- names joined by ``alias`` edges are one *person*, identified by its oldest name item's id;
- a claim is *about* a person when it has an ``about`` edge (claim → one of their name items);
- a *relation* is such a claim carrying ``meta["relation"] = {"type", "person", "of"}`` (names
  as said) — "Dana is Alice's sister" has ``type="sister"``, ``person`` Dana, ``of`` Alice;
- a name item with ``meta["ambiguous"]`` (a short name several persons fitted and nothing told
  apart: ``is_ambiguous``) is no person while no ``alias`` edge joins it to one: the claims about
  it are about nobody, and ``pending`` lists it.

Everything is read from the *current* version, valid now: a claim revised since it was linked is
followed to its correction (``current_versions``), which is about the persons its words name
(``holders``), and whose relation is read from its words (``relation_text``: ``revise`` carries
the old ``meta`` over); a name item revised since is followed back to the edges its first
version holds (``earlier_names``). A claim whose valid time has ended (a change in the world) is
no longer one of the person's claims, as it is no longer current truth.

``Book`` is a snapshot: build it, resolve mentions against it, write, and build a new one.
"""

from __future__ import annotations

import builtins
from collections.abc import Callable, Sequence
from dataclasses import dataclass, field
from datetime import datetime
from typing import Any

from reverie.conversation.people.holders import FOLLOWED, Holders
from reverie.conversation.people.names import best_display, fits, fits_person, given_forms, tokens
from reverie.conversation.people.relation_text import stated_relation
from reverie.model.item import Edge, Item
from reverie.model.query import Q, parse_sort
from reverie.store.protocol import Store

PERSON_KIND = "person"
#: At most this many person names are read per scope (a scope is one user's or one team's memory).
MAX_NAMES = 5_000
#: At most this many claims are listed per person.
MAX_CLAIMS = 500


@dataclass(frozen=True, slots=True)
class Relation:
    """``person`` is ``of``'s ``type`` ("Dana is Alice's sister"), as ``claim`` says (its evidence)."""

    type: str
    person: str
    person_name: str
    of: str
    of_name: str
    claim: str
    text: str
    message_id: str | None


@dataclass(frozen=True, slots=True)
class Person:
    """One person: ``id`` (their oldest name item), the ``name`` shown, every alias, attributes,
    relations (both ways) and the current claims about them (newest first)."""

    id: str
    name: str
    aliases: tuple[str, ...]
    attributes: dict[str, Any] = field(default_factory=dict)
    relations: tuple[Relation, ...] = ()
    claims: tuple[Item, ...] = ()


@dataclass(frozen=True, slots=True)
class PersonSummary:
    """One person as the people list shows them: ``Person`` without the claims, which it counts.

    Why not ``Person`` with ``claims=()``: a list that says nobody has a claim is read as "nobody
    has one"; a count is true, and ``person(id)`` gives the claims (the newest ``MAX_CLAIMS``).
    ``relations`` are exactly ``person(id).relations``; ``claim_count`` counts every current claim
    about the person.
    """

    id: str
    name: str
    aliases: tuple[str, ...]
    attributes: dict[str, Any] = field(default_factory=dict)
    relations: tuple[Relation, ...] = ()
    claim_count: int = 0


@dataclass(slots=True)
class Group:
    """The name items of one person while a ``Book`` is built."""

    id: str
    names: list[Item]
    #: Earlier versions of its name items (a revised name): the edges mined before point at them.
    former: list[str] = field(default_factory=list)

    @property
    def display(self) -> str:
        return best_display([n.text for n in self.names])

    @property
    def item_ids(self) -> builtins.list[str]:
        return [n.id for n in self.names]


class Book:
    """The persons of ``scope`` at the moment it was built.

    ``now`` (the Memory's clock): a claim is the person's, and a relation holds, only while the
    claim is valid then — "Dana is Alice's girlfriend" revised with ``valid_from`` (a change in
    the world) to "… wife" stays believed until then, but is no longer a relation, nor one of
    Dana's current claims (current truth decides the same way). None: every believed claim.
    """

    def __init__(self, store: Store, scope: str, *, now: datetime | None = None) -> None:
        self.store = store
        self.scope = scope
        self._valid_now = Q.valid_at(now) if now is not None else None
        self._holders = Holders(store, scope)
        self._followed: set[str] = set()  # claims linked by ``follow`` (they took a linked claim's place)
        where = Q.kind(PERSON_KIND) & Q.status("live")
        names = store.query(scope, where, parse_sort(None), limit=MAX_NAMES)
        names.sort(key=lambda i: i.id)
        self._by_item = {n.id: n for n in names}
        current_of = earlier_names(store, scope, names)
        parent = {n.id: n.id for n in names}

        def root(x: str) -> str:
            while parent[x] != x:
                parent[x] = parent[parent[x]]
                x = parent[x]
            return x

        # The scope's alias edges alone: reading each name's edges read every ``about`` edge into
        # it too, and a book is rebuilt on each new name extraction enrolls.
        for e in store.edges_by_type(scope, "alias"):
            src, dst = current_of.get(e.src, e.src), current_of.get(e.dst, e.dst)
            if src in parent and dst in parent:
                a, b = root(src), root(dst)
                if a != b:
                    parent[max(a, b)] = min(a, b)
        groups: dict[str, Group] = {}
        for n in names:
            groups.setdefault(root(n.id), Group(root(n.id), [])).names.append(n)
        self._sorted: builtins.list[Group] | None = None
        self._group_of = {n.id: root(n.id) for n in names}
        for old, cur in current_of.items():
            self._group_of[old] = root(cur)
            groups[root(cur)].former.append(old)
        # A mention nobody could tell apart (``ambiguous``) is no person until it is linked to one.
        self._pending: dict[str, Item] = {}
        for gid in [gid for gid, g in groups.items() if all(is_ambiguous(n) for n in g.names)]:
            g = groups.pop(gid)
            self._pending.update((n.id, n) for n in g.names)
            for x in (*g.item_ids, *g.former):
                self._group_of.pop(x, None)
        names = [n for n in names if n.id not in self._pending]
        self._groups = groups
        self._displays: dict[str, str] = {}
        # Name item ids by their words (``exact``) and by every given form of a word (``fitting``):
        # a mention is compared with the persons sharing one, not with every person of the scope
        # (one message naming 800 people compared each with all: outside probe 2, finding 11).
        self._by_words: dict[tuple[str, ...], set[str]] = {}
        self._by_form: dict[str, set[str]] = {}
        for n in names:
            self._index(n)

    @property
    def groups(self) -> builtins.list[Group]:
        """Every person, oldest first (sorted when first asked after a change, not on each ``add``)."""
        if self._sorted is None:
            self._sorted = sorted(self._groups.values(), key=lambda g: g.id)
        return self._sorted

    def _index(self, name: Item) -> None:
        words = tokens(name.text)
        self._by_words.setdefault(words, set()).add(name.id)
        for form in _forms(words):
            self._by_form.setdefault(form, set()).add(name.id)

    def _holding(self, ids: set[str]) -> builtins.list[Group]:
        """The persons holding the name items ``ids``, oldest first."""
        found = {g.id: g for g in (self.group(i) for i in ids) if g is not None}
        return [found[k] for k in sorted(found)]

    def add(self, name: Item, alias_of: Group | None = None) -> None:
        """Take in a name item just written — a new person, or (``alias_of``) a new name of one —
        exactly as a rebuild would see it. Why: extraction enrolls names one by one, and rebuilding
        the book after each read every name of the scope again (quadratic in the names; LoCoMo
        conversations mention ~150)."""
        if alias_of is None and is_ambiguous(name):
            self._pending[name.id] = name
            return
        self._by_item[name.id] = name
        self._displays.clear()  # a new name may be the one a person is now shown by
        group = alias_of if alias_of is not None else Group(name.id, [])
        self._groups.pop(group.id, None)
        group.names.append(name)
        group.names.sort(key=lambda n: n.id)
        group.id = min(group.id, name.id)  # a group's id is its oldest name's (the union's root)
        self._groups[group.id] = group
        for x in (*group.item_ids, *group.former):
            self._group_of[x] = group.id
        self._sorted = None
        self._index(name)

    def __len__(self) -> int:
        return len(self.groups)

    def group(self, person_id: str) -> Group | None:
        """The person whose id — or one of whose name items' ids — is ``person_id``."""
        root = self._group_of.get(person_id)
        return self._groups.get(root) if root is not None else None

    def exact(self, name: str) -> Group | None:
        """The person one of whose names is ``name`` (case, spacing and titles aside)."""
        holding = self._holding(self._by_words.get(tokens(name), set()))
        return holding[0] if holding else None

    def resolve(
        self, mention: str, *, prefer: Sequence[str] = (), rule_out: Callable[[Group], bool] | None = None
    ) -> Group | None:
        """The one person ``mention`` can be (``names.fits_person``), or None when none — or several — fit.

        A full name one person holds is theirs, and so is the name a speaker speaks under (a
        participant's label). A short name is only ever a guess: it is that person's only if no
        other person fits it too — "Bob" said of Robert Smith is ambiguous once a Robert Jones
        is known. Several fit ("Alex" with an Alex Kim and an Alex Wu): the ones in ``prefer``
        (persons of this conversation, most recent first) decide; otherwise nobody is guessed.
        ``rule_out``: the persons a short name fits that what else is known says it is not
        (``evidence.someone_else``) are left out of that guess.
        """
        held = self.held(mention)
        if held is not None:
            return held
        fitting = self.contenders(mention, rule_out)
        if len(fitting) == 1:
            return fitting[0]
        for pid in prefer:
            for g in fitting:
                if g.id == pid:
                    return g
        return None

    def held(self, mention: str) -> Group | None:
        """The person whose full name ``mention`` is, or who speaks under it; None for a guess."""
        held = self.exact(mention)
        if held is not None and (len(tokens(mention)) > 1 or self._speaks_as(held, mention)):
            return held
        return None

    def contenders(self, mention: str, rule_out: Callable[[Group], bool] | None = None) -> builtins.list[Group]:
        """The persons a guess at ``mention`` chooses between: those it fits, less those ``rule_out`` excludes."""
        fitting = self.fitting(mention)
        held = self.exact(mention)
        if held is not None and held not in fitting:
            fitting.insert(0, held)  # a record fused before names were checked against every name
        if rule_out is not None:
            fitting = [g for g in fitting if not rule_out(g)]
        return fitting

    def pending(self, mention: str) -> builtins.list[Item]:
        """The mentions of ``mention`` (its words) attributed to nobody yet (``is_ambiguous``), oldest first."""
        words = tokens(mention)
        return sorted((n for n in self._pending.values() if tokens(n.text) == words), key=lambda n: n.id)

    def pending_item(self, item_id: str) -> Item | None:
        """The mention attributed to nobody whose id is ``item_id``, if it is one."""
        return self._pending.get(item_id)

    def fitting(self, mention: str) -> builtins.list[Group]:
        """Every person ``mention`` may name: it fits one of their names and clashes with none."""
        # A name ``mention`` fits shares a given form with it (``names.fits``: equal words, a
        # nickname, a surname), so the persons sharing none cannot fit and are not compared.
        ids: set[str] = set()
        for form in _forms(tokens(mention)):
            ids |= self._by_form.get(form, set())
        return [g for g in self._holding(ids) if fits_person(mention, [n.text for n in g.names])]

    @staticmethod
    def _speaks_as(group: Group, mention: str) -> bool:
        return any(n.meta.get("speaker") and tokens(n.text) == tokens(mention) for n in group.names)

    def about_edges(self, group: Group) -> builtins.list[Edge]:
        """Current ``about`` edges into any of the person's names (an earlier version's included)."""
        out: builtins.list[Edge] = []
        for item_id in (*group.item_ids, *group.former):
            out.extend(e for e in self.store.edges(self.scope, item_id) if e.type == "about" and e.dst == item_id)
        return out

    def claims_about(self, group: Group, *, limit: int | None = MAX_CLAIMS) -> builtins.list[Item]:
        """The current claims about ``group``, newest first (``limit`` of them; None: every one)."""
        ids = list(dict.fromkeys(e.src for e in self.about_edges(group)))
        current = self.current_versions(ids)
        items = [
            c
            for c in {c.id: c for i in ids for c in current.get(i, ())}.values()
            if self._valid(c) and group.id in {g.id for g in self.holders(c, self._about)}
        ]
        items.sort(key=lambda i: i.id, reverse=True)
        return items if limit is None else items[:limit]

    def current_versions(self, ids: Sequence[str]) -> dict[str, builtins.list[Item]]:
        """Each linked claim id -> its current versions: itself if current, and the corrections of it.

        Why: ``about`` links a claim as it was mined; ``revise`` writes a new version (a new id)
        that carries no link, so the person lost every claim corrected since (outside probe 3,
        finding 8). Following ``supersedes`` at read time covers every way a claim is replaced
        (revise, a correction into a claim that already existed, a manual link) and stores written
        before this, with nothing to migrate. Only a claim that was replaced or given an end
        (``valid_to``: a change in the world keeps the old version believed) is followed, so a
        person whose claims were never corrected costs what it did.
        """
        found = self.store.get_many(self.scope, builtins.list(ids))
        out: dict[str, builtins.list[Item]] = {}
        follow: dict[str, str] = {}  # a replaced version -> the linked claim it stands for
        for i in ids:
            item = found.get(i)
            if item is None:
                continue
            if item.is_current:
                out.setdefault(i, []).append(item)
            if item.status == "superseded" or item.valid_to is not None:
                follow[i] = i
        seen = set(follow)
        while follow:
            successors: dict[str, str] = {}
            for old, origin in follow.items():
                for e in self.store.edges(self.scope, old):
                    if e.type == "supersedes" and e.dst == old and e.src not in seen:
                        seen.add(e.src)
                        successors[e.src] = origin
            newer = self.store.get_many(self.scope, builtins.list(successors))
            follow = {}
            for new_id, origin in successors.items():
                item = newer.get(new_id)
                if item is None:
                    continue
                if item.is_current:
                    out.setdefault(origin, []).append(item)
                if item.status == "superseded" or item.valid_to is not None:
                    follow[new_id] = origin
        return out

    def holders(self, claim: Item, about: Callable[[str], builtins.list[Group]]) -> builtins.list[Group]:
        """The persons the claim version ``claim`` is about (``holders``); ``about(claim id)``: its own links."""
        return self._holders.of(claim, about)

    def _valid(self, claim: Item) -> bool:
        return self._valid_now is None or self._valid_now.matches(claim)

    def relations(self, group: Group, claims: Sequence[Item] | None = None) -> builtins.list[Relation]:
        """The relations ``group`` takes part in, either side, from the claims about them
        (``claims``: ``claims_about(group, limit=None)`` when the caller has read them already)."""
        found = self.claims_about(group, limit=None) if claims is None else claims
        return self._relations(group, found, self._about)

    def _relations(
        self, group: Group, claims: Sequence[Item], about: Callable[[str], builtins.list[Group]]
    ) -> builtins.list[Relation]:
        """The relations ``group`` is a side of that ``claims`` (current versions) state;
        ``about(claim id)`` is the persons a claim's own ``about`` edges name (``holders``)."""
        out: builtins.list[Relation] = []
        for claim in claims:
            if not self._valid(claim):
                continue
            found = self._stated(claim, about)
            if found is None:
                continue
            rel, linked = found
            person = _side(linked, str(rel.get("person", "")))
            of = _side(linked, str(rel.get("of", "")))
            if person is None or of is None or group.id not in (person.id, of.id):
                continue
            out.append(
                Relation(
                    type=str(rel.get("type", "")),
                    person=person.id,
                    person_name=self._display(person),
                    of=of.id,
                    of_name=self._display(of),
                    claim=claim.id,
                    text=claim.text,
                    message_id=claim.meta.get("message_id"),
                )
            )
        return out

    def _display(self, group: Group) -> str:
        """``group.display``, memoised per build: a list names each person once per relation."""
        if group.id not in self._displays:
            self._displays[group.id] = group.display
        return self._displays[group.id]

    def _stated(
        self, claim: Item, about: Callable[[str], builtins.list[Group]]
    ) -> tuple[dict[str, Any], builtins.list[Group]] | None:
        """The relation ``claim`` states and the persons it is about, or None if it states none.

        A claim as extraction wrote it states the relation it was written with. A later version
        (``revise`` carries ``meta`` over, so "Dana is Alice's cousin." still said
        ``type="sister"``: session 31), or a claim that took a linked one's place, states what its
        words say (``relation_text``).
        """
        linked = self.holders(claim, about)
        carried = claim.meta.get("relation")
        carried = carried if isinstance(carried, dict) else None
        if claim.version > 1 or claim.id in self._holders.inherited or claim.id in self._followed:
            rel = stated_relation(claim.text, carried)
        else:
            rel = carried
        return (dict(rel), linked) if rel is not None else None

    def own_about(self, claim_id: str) -> builtins.list[Group]:
        """The persons ``claim_id``'s own ``about`` edges name (none: it was linked to nobody itself)."""
        return self._about(claim_id)

    def _about(self, claim_id: str) -> builtins.list[Group]:
        """The persons ``claim_id``'s own ``about`` edges name."""
        out: builtins.list[Group] = []
        for e in self.store.edges(self.scope, claim_id):
            if e.type == "about" and e.src == claim_id and (g := self.group(e.dst)) is not None:
                if g not in out:
                    out.append(g)
                if e.meta.get("rule") == FOLLOWED:
                    self._followed.add(claim_id)
        return out

    def person(self, group: Group) -> Person:
        """``group`` in full: names, attributes, relations and the newest ``MAX_CLAIMS`` claims about them."""
        claims = self.claims_about(group, limit=None)
        return Person(
            id=group.id,
            name=group.display,
            aliases=_aliases(group),
            attributes=_attributes(group),
            relations=tuple(self._relations(group, claims, self._about)),
            claims=tuple(claims[:MAX_CLAIMS]),
        )

    def summaries(self) -> builtins.list[PersonSummary]:
        """Every person as a list shows them — relations, and how many claims are about them.

        Why one pass over the scope's ``about`` edges and one ``get_many``, not ``person`` per
        group: that read every name's edges and every relation claim's edges again, 0.84 s for 300
        people on this machine (``bench/people_list.py``) against a few tens of ms this way.
        """
        about: dict[str, builtins.list[Group]] = {}  # claim id -> the persons it is about
        for e in self.store.edges_by_type(self.scope, "about"):
            if e.meta.get("rule") == FOLLOWED:
                self._followed.add(e.src)
            g = self.group(e.dst)
            if g is not None and g not in (linked := about.setdefault(e.src, [])):
                linked.append(g)
        current = self.current_versions(builtins.list(about))

        def own(claim_id: str) -> builtins.list[Group]:
            return about.get(claim_id, [])

        versions = {c.id: c for cs in current.values() for c in cs if self._valid(c)}
        claims: dict[str, builtins.list[Item]] = {}
        for claim_id in sorted(versions, reverse=True):  # newest first, as ``person`` lists them
            for g in self.holders(versions[claim_id], own):
                claims.setdefault(g.id, []).append(versions[claim_id])
        return [
            PersonSummary(
                id=g.id,
                name=g.display,
                aliases=_aliases(g),
                attributes=_attributes(g),
                relations=tuple(self._relations(g, claims.get(g.id, []), own)),
                claim_count=len(claims.get(g.id, [])),
            )
            for g in self.groups
        ]


def earlier_names(store: Store, scope: str, names: Sequence[Item]) -> dict[str, str]:
    """Each earlier version of a current name item of ``names`` -> that name item.

    Why: ``about`` and ``alias`` edges point at the name item extraction wrote; ``revise``
    ("Dana" → "Dana Smith") writes a new version with a new id and no edges, so the person lost
    every claim, alias and relation, and the new name stood alone (session 31). Only a name that
    was revised (version > 1) or took another's place (a correction into an existing name
    corroborates it) is followed back, so a scope whose names never changed costs what it did.
    """
    live = {n.id for n in names}
    out: dict[str, str] = {}
    for n in names:
        if n.version < 2 and n.evidence_count < 2:
            continue
        todo = [n.id]
        while todo:
            x = todo.pop()
            for e in store.edges(scope, x):
                if e.type == "supersedes" and e.src == x and e.dst not in live and e.dst not in out:
                    out[e.dst] = n.id
                    todo.append(e.dst)
    return out


def is_ambiguous(name: Item) -> bool:
    """Is ``name`` a mention extraction could attribute to none of the persons it fits?

    Such a name item (``meta["ambiguous"]``: the ids of the persons it might be, when it was said)
    is no person: the claims about it are about nobody until an ``alias`` edge joins it to one.
    """
    return bool(name.meta.get("ambiguous"))


def _side(linked: Sequence[Group], name: str) -> Group | None:
    """Which of the persons a claim is about (``linked``) is called ``name``."""
    for g in linked:
        if any(tokens(n.text) == tokens(name) for n in g.names):
            return g
    for g in linked:
        if any(fits(name, n.text) for n in g.names):
            return g
    return None


def _aliases(group: Group) -> tuple[str, ...]:
    display = group.display
    return tuple(dict.fromkeys(n.text for n in group.names if n.text != display))


def _attributes(group: Group) -> dict[str, Any]:
    return {
        "speaker": any(n.meta.get("speaker") for n in group.names),
        "conversations": sorted({str(n.meta["conversation"]) for n in group.names if n.meta.get("conversation")}),
    }


def _forms(words: Sequence[str]) -> set[str]:
    """Every given form of every word (``names.given_forms``): the keys ``Book.fitting`` looks up."""
    return {f for w in words for f in given_forms(w)}
