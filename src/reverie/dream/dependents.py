"""Load-bearing items: how many current beliefs rest on each item of a snapshot.

Why this is a protection and not part of salience: forgetting an item that other current
items derive from does more damage than the item's own value — provenance upkeep (step 8)
then flags every child ``stale_derived`` and demotes it, a cascade from one forget. So a
pass must not let the keep-budget or the tier step take such an item while it still bears
weight. Salience stays a function of what the item itself carries and never decays; the
dependent count changes as the scope changes (a child forgotten, a new one derived), so it
gates protection pass by pass instead, and an item whose dependents are gone is ordinary
again at the next pass (forgetting proceeds leaf first).

What counts as a dependent of ``x`` (each current item counted once, scope-local):

- a current item that lists ``x`` in ``parents`` (derived from it, its provenance);
- the source of a current ``derived_from`` edge to ``x``;
- the source of a current ``about`` edge to ``x`` (a claim about the person record ``x``,
  ``reverie.conversation.people``: the record must stay while claims are about it);
- the target of a current ``supports`` edge from ``x`` (``x`` supports it: ``link(src, dst,
  "supports")`` reads "src supports dst", so the target rests on ``x``).

A ``derived_from`` or ``about`` edge stays on the versions it was written between; ``revise``
writes a new version with no edges. So either end that was replaced counts as its current
version, followed along ``supersedes``: a claim about Dana that was revised still rests on
her record, and a renamed record still bears the claims about its first name (session 31:
with every claim about Dana revised, a tight keep-budget forgot her record). But a current
version with ``about`` links of its own is about exactly those persons, as ``people.holders``
reads it: "Omar is Bob's manager." revised to "Priya is Bob's manager." (linked to Priya and Bob
when written, ``people.follow``) no longer rests on Omar's record through its first version's
link, so a pass may forget Omar's record once nothing current is about him.

Not a base: a conversation message's memory (``model.records.is_message_memory``). It is a
transcript, and the claims mined from it (which list it in ``parents`` and link to it
``derived_from``) restate what it said: it is their evidence, not their premise, and its words stay
in the conversation archive whatever a pass does to the memory. Forgetting it does them no damage
(``upkeep.provenance`` leaves them current, as it leaves a gist whose member was pruned), so it bears
no weight; counting it pinned every mined turn and put a keep-budget's whole cut on the extracted
facts (session 33). Instead ``weigh`` lists what was mined from each one, and the keep-budget ranks
a message no higher than the claims mined from it, so the raw turns go first.

Not counted: a dream gist or pattern item (its parents and ``derived_from`` edges are evidence,
not premises — pruning one leaves the gist standing, see ``upkeep.provenance``, and the next pass
re-reads a pattern's support; counting them would pin every consolidated near-duplicate and
every event of a recurring pattern); a dependent already flagged ``stale_derived`` (it has lost its
footing, forgetting ``x`` adds no damage); an item depending on itself.
"""

from __future__ import annotations

from typing import NamedTuple

from reverie.dream.salience import is_gist, is_pattern
from reverie.dream.snapshot import Snapshot
from reverie.model.records import is_message_memory

STALE_DERIVED = "stale_derived"


class Dependents(NamedTuple):
    """Current items resting on one item: ``derive`` derive from it (parents or a
    ``derived_from`` edge); ``support`` are only supported by it (a ``supports`` edge)."""

    derive: int
    support: int

    @property
    def total(self) -> int:
        return self.derive + self.support

    def describe(self) -> str:
        """The protection reason the report shows, e.g. "3 current items derive from it"."""
        n = self.total
        verb = "derives" if n == 1 else "derive"
        what = f"{n} current item{'' if n == 1 else 's'}"
        if self.support == 0:
            return f"load-bearing: {what} {verb} from it"
        return f"load-bearing: {what} {verb} from it or {'is' if n == 1 else 'are'} supported by it"


def count_dependents(snap: Snapshot) -> dict[str, Dependents]:
    """Item id → its current dependents, for every item of ``snap`` that has any (``weigh``)."""
    return weigh(snap)[0]


def weigh(snap: Snapshot) -> tuple[dict[str, Dependents], dict[str, frozenset[str]]]:
    """(item id → its current dependents, for every item that has any and is not a message's
    memory; message memory id → the current items derived from it, for every mined one).

    One pass over the items' parents and one over the edges: O(items + edges), computed once
    per dream pass (a set of (item, dependent) pairs removes double counting when a child
    both lists a parent and links to it).
    """
    live = {it.id for it in snap.items if STALE_DERIVED not in it.flags and not is_gist(it) and not is_pattern(it)}
    derive: set[tuple[str, str]] = set()
    for it in snap.items:
        if it.id not in live:
            continue
        for parent in it.parents:
            if parent != it.id and parent in snap.index:
                derive.add((parent, it.id))
    support: set[tuple[str, str]] = set()
    newer = {e.dst: e.src for e in snap.edges if e.type == "supersedes"}  # a replaced version -> its successor
    linked = {e.src for e in snap.edges if e.type == "about"}  # versions with ``about`` links of their own
    for e in snap.edges:
        if e.type in ("derived_from", "about"):
            src, dst = _current(e.src, newer, snap), _current(e.dst, newer, snap)
            if e.type == "about" and src != e.src and src in linked:
                continue  # the current version says whom it is about: its earlier version's links are history
            if src in live and dst != src and dst in snap.index:
                derive.add((dst, src))
        elif e.type == "supports" and e.dst in live and e.dst != e.src and e.src in snap.index:
            support.add((e.src, e.dst))
    support -= derive
    transcripts = {base for base, _ in derive | support if _is_transcript(base, snap)}
    counts: dict[str, list[int]] = {}
    mined: dict[str, set[str]] = {}
    for base, dep in derive:
        if base in transcripts:
            mined.setdefault(base, set()).add(dep)
        else:
            counts.setdefault(base, [0, 0])[0] += 1
    for base, _ in support:
        if base not in transcripts:
            counts.setdefault(base, [0, 0])[1] += 1
    return {k: Dependents(v[0], v[1]) for k, v in counts.items()}, {k: frozenset(v) for k, v in mined.items()}


def _is_transcript(item_id: str, snap: Snapshot) -> bool:
    item = snap.item(item_id)
    return item is not None and is_message_memory(item)


def _current(item_id: str, newer: dict[str, str], snap: Snapshot) -> str:
    """``item_id``, or the current version that replaced it (``item_id`` when none is current)."""
    seen = {item_id}
    at = item_id
    while at not in snap.index and at in newer and newer[at] not in seen:
        at = newer[at]
        seen.add(at)
    return at if at in snap.index else item_id


__all__ = ["Dependents", "count_dependents", "weigh"]
