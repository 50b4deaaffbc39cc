"""Planning one pass: from a ``Snapshot`` to a list of ``Action`` values, in step order.

Pure: it reads the snapshot (and, for hub probes, the store's full-text index) and never
writes. The ``Planner`` carries what later steps must know about earlier ones — which items
this pass forgets, which it consolidates (those are left untouched), which it processed —
so one item never gets contradictory actions from two steps.
"""

from __future__ import annotations

from collections.abc import Callable, Iterable
from dataclasses import dataclass, field
from datetime import timedelta
from typing import Any

from reverie.dream.config import DreamConfig
from reverie.dream.dependents import Dependents, weigh
from reverie.dream.neighbours import Pair, clusters, rank_frames, ranked_near_duplicates
from reverie.dream.report import Action
from reverie.dream.salience import is_gist, is_pattern, protection, salience
from reverie.dream.snapshot import Snapshot
from reverie.dream.text import disagreement, frame, gist_text
from reverie.limits import DEFAULT_LIMITS, Limits
from reverie.model.item import Item
from reverie.model.records import is_message_memory
from reverie.store.protocol import Store

AUTHOR = "dream"
#: Flag of items whose write-time conflict detection did not run (``reverie.memory.CONFLICTS_UNCHECKED``).
UNCHECKED = "conflicts_unchecked"
#: Flag of items the second reader has not read yet (``reverie.memory.CONFLICTS_UNREAD``).
UNREAD = "conflicts_unread"
#: Why the near-duplicate step leaves a pair alone that a person closed as not a conflict
#: (``unlink`` / ``dismiss_contradiction``; ``snapshot.dismissed_pairs``): never linked again.
NOT_A_CONFLICT = "a person said they do not conflict (the contradiction was dismissed)"


@dataclass(slots=True)
class Planner:
    snap: Snapshot
    config: DreamConfig
    limits: Limits = DEFAULT_LIMITS
    actions: list[Action] = field(default_factory=list)
    closing: set[str] = field(default_factory=set)  # forgotten by this pass
    untouched: set[str] = field(default_factory=set)  # consolidated by this pass: never modified
    #: Items a current gist restates (consolidated before, or planned now): at an equal keep
    #: score the budget forgets these first, since their content stays in the gist.
    redundant: set[str] = field(default_factory=set)
    processed: set[str] = field(default_factory=set)  # flagged hub this pass: their importance settles
    attention_hold: set[str] = field(default_factory=set)  # contradiction sides: keep their importance
    new_gists: int = 0
    attention: list[dict[str, Any]] = field(default_factory=list)
    ranks: dict[str, int] = field(default_factory=dict)  # frame token → rarity rank (0 = rarest)
    stats: dict[str, Any] = field(default_factory=dict)
    notes: list[str] = field(default_factory=list)
    #: Item id → current items resting on it (``dependents``), counted once per pass.
    dependents: dict[str, Dependents] = field(default_factory=dict)
    #: A conversation message's memory → the current items mined from it (``dependents.weigh``):
    #: it bears no weight, and the keep-budget ranks it no higher than they are.
    mined: dict[str, frozenset[str]] = field(default_factory=dict)
    #: Items a step would have forgotten or demoted but for a protection, with the reason.
    spared: list[dict[str, Any]] = field(default_factory=list)
    #: Bias alerts this pass computed (``reverie.dream.bias``), JSON-ready, ranked.
    alerts: list[dict[str, Any]] = field(default_factory=list)
    stopped: bool = False  # cancelled between steps: the plan is incomplete and must not be applied
    #: The host has a second reader of contradictions: ``conflicts_unread`` items are planned.
    reads_conflicts: bool = False

    def add(self, step: str, op: str, items: Iterable[Item], reason: str, **params: Any) -> None:
        group = list(items)
        self.actions.append(
            Action(step, op, tuple(i.id for i in group), tuple(i.version for i in group), reason, params)
        )

    def guard(self, item: Item) -> str | None:
        """Why no step may forget or demote ``item`` in this pass (``salience.protection``, else
        the open agenda naming it: ``agenda_hold``)."""
        return protection(item, self.config, self.dependents.get(item.id), self.snap.now) or self.snap.agenda.get(
            item.id
        )

    def spare(self, step: str, item: Item, reason: str) -> None:
        """Record that ``step`` left ``item`` alone because of a protection (shown in the report)."""
        self.spared.append({"step": step, "id": item.id, "reason": reason})
        by_step = self.stats.setdefault("spared", {})
        by_step[step] = by_step.get(step, 0) + 1


def plan_pass(
    snap: Snapshot,
    store: Store | None,
    config: DreamConfig,
    limits: Limits = DEFAULT_LIMITS,
    *,
    tick: Callable[[int, int], bool] | None = None,
    reads_conflicts: bool = False,
) -> Planner:
    """Every step's actions for ``snap``, in the order they will be applied.

    ``limits`` are the Memory's: a gist's text and parent list must pass its boundary checks.
    ``tick(done, total)`` runs after each step; returning False stops planning (``stopped``).
    ``reads_conflicts``: the host has a second reader, so items it has not read are planned.
    """
    from reverie.dream import pattern_step, upkeep
    from reverie.dream.bias import bias_step

    p = Planner(snap, config, limits, reads_conflicts=reads_conflicts)
    p.stats["items"] = len(snap.items)
    if config.protect_dependents > 0 or config.keep_budget is not None:
        dependents, p.mined = weigh(snap)
        if config.protect_dependents > 0:
            p.dependents = dependents
            p.stats["load_bearing"] = sum(1 for d in dependents.values() if d.total >= config.protect_dependents)
    steps: list[Callable[[], None]] = [
        lambda: consolidate(p),
        lambda: upkeep.hubs(p, store),
        lambda: upkeep.provenance(p),
        lambda: upkeep.keep_budget(p),
        lambda: upkeep.tiers(p),
        lambda: upkeep.settle(p),
        lambda: pattern_step.patterns(p, store),  # h-patterns: after every step that may forget a member
        lambda: bias_step(p, store),  # h-patterns: bias alerts (no actions; ``Planner.alerts``)
    ]
    for done, step in enumerate(steps, 1):
        step()
        if tick is not None and not tick(done, len(steps)):
            p.stopped = done < len(steps)
            break
    return p


def _unread(p: Planner, room: int, done: set[str]) -> list[Item]:
    """Items the rules checked at write time and the second reader has not read: read now."""
    if not p.reads_conflicts:
        return []
    unread = [it for it in p.snap.items if UNREAD in it.flags and it.id not in done]  # oldest first
    why = f"flagged {UNREAD}: the rules checked it when written; the second reader reads it now and the flag is cleared"
    _plan_rechecks(p, unread[: max(0, room)], why)
    if len(unread) > room:
        p.notes.append(f"{len(unread) - max(0, room)} item(s) flagged {UNREAD} keep their flag for the next pass")
    p.stats["unread"] = len(unread)
    return unread[: max(0, room)]


# -- steps 2, 3 and 7: near-duplicates, the toggle guard, cluster-triggered consolidation ------
def consolidate(p: Planner) -> None:
    snap = p.snap
    items = snap.items
    # A generator: each frame becomes token ids at once and is dropped (``rank_frames``).
    # Gists and pattern items (``meta.dream``) are the pass's own products: never joined as near-duplicates.
    # Nor is a conversation message's memory: it records one turn, and two turns in the same words
    # are two events, not one belief restated. A gist of them stated a chat line ("Bot: Noted.") as
    # a semantic belief that outranked every mined claim under a keep-budget (bench/chat_retention.py).
    ranked, p.ranks = rank_frames(
        frame(it.text) if not (is_gist(it) or is_pattern(it) or is_message_memory(it)) else frozenset[str]()
        for it in items
    )
    covered = _coverage(snap)
    p.redundant.update(covered)
    linked = {frozenset((e.src, e.dst)) for e in snap.edges if e.type == "contradicts"}

    def guard(a: int, b: int) -> str | None:
        """Ask the detector only about pairs whose answer is not already on record."""
        ia, ib = items[a].id, items[b].id
        if frozenset((ia, ib)) in linked:
            return "already linked as a contradiction"
        if frozenset((ia, ib)) in snap.dismissed:
            return NOT_A_CONFLICT  # nor merged: a person keeps both, as two claims
        if covered.get(ia, set()) & covered.get(ib, set()):
            return None  # consolidated together before: texts never change, so they still agree
        return disagreement(items[a], items[b])

    pairs, join = ranked_near_duplicates(ranked, snap.vectors, snap.has_vector, p.config, guard)
    p.stats.update(candidate_pairs=join.candidates, token_groups_skipped=join.groups_skipped)
    p.stats["near_duplicate_pairs"] = sum(1 for q in pairs if q.conflict is None)
    p.stats["contradiction_pairs"] = sum(1 for q in pairs if q.conflict is not None)
    if join.groups_skipped:
        p.notes.append(
            f"{join.groups_skipped} token group(s) larger than max_token_group={p.config.max_token_group} "
            f"or past the pair budget (max_pairs_per_item={p.config.max_pairs_per_item}, rarest tokens first) "
            "were not joined: items made only of common words were not compared through them"
        )
    _contradictions(p, [q for q in pairs if q.conflict is not None])
    _recheck(p)
    _repair_gists(p)
    groups = clusters(len(snap.items), pairs)
    p.stats["clusters"] = len(groups)
    p.stats["clusters_consolidated"] = 0
    p.stats["clusters_sparse"] = 0
    where = {r: k for k, rows in enumerate(groups) for r in rows}
    inside: dict[int, list[Pair]] = {}
    for q in pairs:
        k = where.get(q.a, -1)
        if q.conflict is None and k >= 0 and where.get(q.b) == k:
            inside.setdefault(k, []).append(q)
    # A contested claim never seeds or joins a gist: the gist would go stale_derived as soon
    # as the contradiction is seen (step 8), and would restate a claim in dispute.
    contested = p.attention_hold | {x for e in snap.edges if e.type == "contradicts" for x in (e.src, e.dst)}
    p.stats["cluster_members_contested"] = 0
    for k, rows in enumerate(groups):
        members = [snap.items[r] for r in rows if snap.items[r].id not in contested]
        p.stats["cluster_members_contested"] += len(rows) - len(members)
        # A gist merges only items of equal visibility (issue #14.8) and carries it: a gist
        # quoting a member whose audience is narrower than another's would show that text to
        # principals who may not see it. A mixed cluster consolidates per audience.
        for audience in sorted({m.audience for m in members}):
            _consolidate_cluster(p, [m for m in members if m.audience == audience], inside.get(k, []), covered)


def _consolidate_cluster(p: Planner, members: list[Item], pairs: list[Pair], covered: dict[str, set[str]]) -> None:
    """One cluster's members of one visibility: extend the gist that covers them, or start one."""
    if len(members) < 2:
        p.stats["clusters_sparse"] += 1
        return
    audience = members[0].audience
    owners = sorted({g for m in members for g in covered.get(m.id, ()) if _audience(p, g) == audience})
    if owners:
        _extend_gist(p, owners, members, covered)
    elif len(members) >= p.config.cluster_min_size:
        _new_gist(p, members, pairs)
    else:
        p.stats["clusters_sparse"] += 1


def _audience(p: Planner, item_id: str) -> tuple[str, ...] | None:
    item = p.snap.item(item_id)
    return None if item is None else item.audience


def _contradictions(p: Planner, pairs: list[Pair]) -> None:
    linked = {frozenset((e.src, e.dst)) for e in p.snap.edges if e.type == "contradicts"}
    for q in pairs:
        older, newer = p.snap.items[q.a], p.snap.items[q.b]  # rows are in id order: uuid7 ids sort by time
        if frozenset((older.id, newer.id)) in p.snap.dismissed:
            p.stats["not_a_conflict_pairs"] = p.stats.get("not_a_conflict_pairs", 0) + 1
            continue
        p.attention_hold.update((older.id, newer.id))
        if frozenset((older.id, newer.id)) in linked:
            continue
        p.add(
            "contradiction",
            "link",
            (newer, older),
            f"near-duplicates (cosine {q.cosine:.3f}, frame overlap {q.overlap:.2f}) that disagree — "
            f"{q.conflict}; reported as a contradiction, never merged",
            type="contradicts",
            src=newer.id,
            dst=older.id,
        )


def _recheck(p: Planner) -> None:
    """Conflict detection for items that missed it at write time, then (opt-in) recent ones.

    Flagged ``conflicts_unchecked`` (written with ``detect_conflicts=False``): checked oldest
    first, and the flag is cleared in the same savepoint, so a later pass continues where this
    one stopped. ``recheck_days`` also re-runs it on recent items (write-time detection runs
    after the commit, so a crash in between skips it; detection is idempotent).
    """
    cfg = p.config
    unchecked = [it for it in p.snap.items if UNCHECKED in it.flags]  # in id order = oldest first
    chosen = unchecked[: cfg.recheck_max]
    why = (
        f"flagged {UNCHECKED}: conflict detection did not run when it was written (detect_conflicts off); "
        "it runs now and the flag is cleared"
    )
    _plan_rechecks(p, chosen, why)
    if len(unchecked) > len(chosen):
        p.notes.append(
            f"{len(unchecked) - len(chosen)} item(s) flagged {UNCHECKED} over recheck_max={cfg.recheck_max} "
            "keep their flag for the next pass"
        )
    chosen = chosen + _unread(p, cfg.recheck_max - len(chosen), {it.id for it in chosen})
    recent: list[Item] = []
    room = cfg.recheck_max - len(chosen)
    if cfg.recheck_days > 0 and room > 0:
        since = p.snap.now - timedelta(days=cfg.recheck_days)
        done = {it.id for it in chosen}
        recent = [it for it in p.snap.items if it.recorded_at >= since and not is_gist(it) and it.id not in done]
        recent.sort(key=lambda it: (it.recorded_at, it.id), reverse=True)
        why = (
            f"recorded within the last {cfg.recheck_days:g} day(s): write-time conflict detection is re-run "
            "(it runs after the commit and is idempotent)"
        )
        _plan_rechecks(p, recent[:room], why)
        if len(recent) > room:
            p.notes.append(f"{len(recent) - room} recent item(s) over recheck_max were not rechecked")
    p.stats["unchecked"] = len(unchecked)
    p.stats["rechecked"] = len(chosen) + min(len(recent), max(0, room))


def _plan_rechecks(p: Planner, items: list[Item], why: str) -> None:
    """One ``detect_conflicts`` action per item, querying candidates with its rarest words."""
    for it in items:
        p.add("recheck", "detect_conflicts", (it,), why, terms=_rare_terms(p, it))


#: Words of an item's full-text candidate query in a recheck (its rarest frame words).
RECHECK_TERMS = 6


def _rare_terms(p: Planner, item: Item) -> list[str]:
    """The item's rarest content words: bm25's top candidates are decided by them, and a query
    of every word costs ~35 ms at 100k items when the text holds common words (DESIGN.md)."""
    return sorted(frame(item.text), key=lambda t: (p.ranks.get(t, 0), t))[:RECHECK_TERMS]


def _coverage(snap: Snapshot) -> dict[str, set[str]]:
    """Member id → ids of current gists that consolidate it (as a parent or by an edge)."""
    gists = {it.id: it for it in snap.items if is_gist(it)}
    covered: dict[str, set[str]] = {}
    for gid, gist in gists.items():
        for member in gist.parents:
            covered.setdefault(member, set()).add(gid)
    for e in snap.edges:
        if e.type == "derived_from" and e.src in gists:
            covered.setdefault(e.dst, set()).add(e.src)
    return covered


def _repair_gists(p: Planner) -> None:
    """A pass that stopped between creating a gist and linking it: finish the job."""
    snap = p.snap
    gists = [it for it in snap.items if is_gist(it)]
    edges = {(e.src, e.dst) for e in snap.edges if e.type == "derived_from"}
    for gist in gists:
        for parent in gist.parents:
            target = snap.item(parent)
            if (gist.id, parent) not in edges and target is not None:
                p.add(
                    "consolidate",
                    "link",
                    (gist, target),
                    "gist lists this item as a parent but has no derived_from edge to it",
                    type="derived_from",
                    src=gist.id,
                    dst=parent,
                )
    p.stats["gists"] = len(gists)


def _extend_gist(p: Planner, owners: list[str], members: list[Item], covered: dict[str, set[str]]) -> None:
    """The cluster grew: link its new members to the gist that already covers most of it."""
    snap = p.snap
    counts = {g: sum(1 for m in members if g in covered.get(m.id, ())) for g in owners}
    best = min(owners, key=lambda g: (-counts[g], g))
    gist = snap.item(best)
    assert gist is not None
    fresh = [m for m in members if best not in covered.get(m.id, ()) and m.id != best]
    for m in fresh:
        p.untouched.add(m.id)
        p.add(
            "consolidate",
            "link",
            (gist, m),
            f"near-duplicate joined a consolidated cluster ({len(members)} members); linked to its gist",
            type="derived_from",
            src=gist.id,
            dst=m.id,
        )
    low = min([gist.scores.authority, *(m.scores.authority for m in fresh)])
    if fresh and low < gist.scores.authority:
        p.add(
            "consolidate",
            "set_scores",
            (gist,),
            f"a gist's authority is the lowest of its inputs: a new member has authority {low}",
            scores={"authority": low},
        )


def _new_gist(p: Planner, members: list[Item], pairs: list[Pair]) -> None:
    """Plan a gist quoting the most salient member, parents = the originals.

    The gist carries ``GIST_MARK`` so it never duplicates a current claim's text (#13.3).

    A cluster larger than ``Limits.max_parents`` lists its most salient members as parents;
    every member still gets its ``derived_from`` edge (coverage reads both).
    """
    ranked = sorted(members, key=lambda m: (-salience(m), -m.evidence_count, m.id))
    rep = ranked[0]
    parents = sorted(m.id for m in ranked[: p.limits.max_parents])
    authority = min(m.scores.authority for m in members)
    p.untouched.update(m.id for m in members)
    p.new_gists += 1
    p.stats["clusters_consolidated"] += 1
    cos = min((q.cosine for q in pairs), default=1.0)
    overlap = min((q.overlap for q in pairs), default=1.0)
    p.add(
        "consolidate",
        "remember_gist",
        members,
        f"topic cluster of {len(members)} near-duplicates (cosine >= {cos:.3f}, frame overlap >= {overlap:.2f}) "
        f"reached cluster_min_size={p.config.cluster_min_size}: consolidated into a gist quoting its most salient "
        f"member {rep.id} (its words, marked as consolidated); originals keep their text and scores; "
        f"authority = lowest of inputs ({authority})",
        text=gist_text(rep.text, p.limits.max_text_chars),
        kind="semantic",
        parents=parents,
        authority=authority,
        confidence=min(m.scores.confidence for m in members),
        importance=max(m.scores.importance for m in members),
        tags=list(rep.tags),
        meta={"dream": "gist", "representative": rep.id, "members": len(members)},
        visibility=list(rep.audience),
    )


__all__ = ["AUTHOR", "UNCHECKED", "UNREAD", "Planner", "consolidate", "plan_pass"]
