"""Steps 4, 5, 6, 8 and 9 of a pass: hubs, keep-budget, tiers, provenance, importance settling.

Each step is one function over the shared ``Planner``; read them in the order ``plan_pass``
calls them. None of them touches an item this pass consolidates (``untouched``) or forgets
(``closing``), and protection (manual, durable, high salience, load-bearing) is checked in
one place, ``salience.protection`` (through ``Planner.guard``); an item a step leaves alone
only because of it is listed in the report's ``spared`` with the reason.
"""

from __future__ import annotations

import math

from reverie.dream.hubs import find_hubs
from reverie.dream.plan import Planner
from reverie.dream.queue import attention
from reverie.dream.salience import IMPORTANCE_STATED, age_days, is_gist, keep_score, salience, stated_importance
from reverie.model.gists import RETRACTED
from reverie.model.item import Item
from reverie.model.records import is_message_memory
from reverie.store.protocol import Store

HUB = "hub"
STALE_DERIVED = "stale_derived"
SUBCONSCIOUS = "subconscious"
#: Why a pass forgets a gist none of whose sources stands (``provenance``).
ORPHANED_GIST = "every claim this gist consolidated was corrected or dismissed: nothing it restates stands"


def hubs(p: Planner, store: Store | None) -> None:
    """Step 4: flag ``hub`` on items in the top-k of more than ``hub_share`` of probe queries,
    and remove the flag from items that no longer are (recall down-weights a hub: a stale
    flag would bury an item for good). Only when probes ran: a scope below ``hub_min_items``
    has no measurement, and an absent measurement is not evidence either way."""
    found, probes = find_hubs(p.snap, store, p.config, p.ranks)
    p.stats["hub_probes"] = probes
    p.stats["hubs"] = len(found)
    if probes:
        _unflag_hubs(p, {h.row for h in found}, probes)
    for h in found:
        item = p.snap.items[h.row]
        if HUB in item.flags or item.id in p.untouched:
            continue
        p.processed.add(item.id)
        p.add(
            "hub",
            "flag",
            (item,),
            f"in the dense/full-text top-{p.config.hub_k} of {h.hits} of {probes} probe queries "
            f"({h.share:.0%} > hub_share {p.config.hub_share:.0%}): matches almost every query",
            add=[HUB],
        )


def _unflag_hubs(p: Planner, rows: set[int], probes: int) -> None:
    cleared = 0
    for row, item in enumerate(p.snap.items):
        if HUB not in item.flags or row in rows or item.id in p.untouched:
            continue
        cleared += 1
        p.add(
            "hub",
            "flag",
            (item,),
            f"no longer a universal matcher: in the top-{p.config.hub_k} of at most {p.config.hub_share:.0%} "
            f"of {probes} probe queries now; hub flag removed",
            add=[],
            remove=[HUB],
        )
    p.stats["hubs_cleared"] = cleared


def _contested(p: Planner) -> set[str]:
    """Items on either side of a current ``contradicts`` edge."""
    return {x for e in p.snap.edges if e.type == "contradicts" for x in (e.src, e.dst)}


def provenance(p: Planner) -> None:
    """Step 8: derived items whose parents were retracted or contradicted: flag, then demote.

    A gist's parents are evidence, not premises: pruning one (forget) leaves the gist standing,
    while a dismissed, superseded or contradicted parent makes it stale. Any other derived
    item goes stale when any parent is closed. Protected items are flagged but not demoted.
    A gist none of whose sources stands (every one corrected or dismissed) is forgotten, as the
    correction itself does now (``model.gists``): one written before that rule, or imported so,
    would otherwise keep answering with the corrected-away value (outside probe, finding 4).
    """
    snap = p.snap
    contested: dict[str, str] = {}
    for e in snap.edges:
        if e.type == "contradicts":
            contested.setdefault(e.src, e.dst)
            contested.setdefault(e.dst, e.src)
    stale = orphaned = 0
    for item in snap.items:
        if not item.parents or item.id in p.untouched or item.id in p.closing:
            continue
        if is_gist(item) and not _source_stands(p, item):
            orphaned += 1
            p.closing.add(item.id)
            p.add("provenance", "forget", (item,), ORPHANED_GIST, retracted=True)
            continue
        if STALE_DERIVED in item.flags:
            continue
        why = _stale_reason(p, item, contested)
        if why is None:
            continue
        stale += 1
        p.add("provenance", "flag", (item,), why, add=[STALE_DERIVED])
        if item.tier == SUBCONSCIOUS:
            continue
        guard = p.guard(item)
        if guard is None:
            p.add("provenance", "set_tier", (item,), why + "; demoted until used again", tier=SUBCONSCIOUS)
        else:
            p.spare("provenance", item, f"{guard}: flagged {STALE_DERIVED} ({why}) but not demoted")
    p.stats["stale_derived"] = stale
    p.stats["orphaned_gists"] = orphaned


def _source_stands(p: Planner, gist: Item) -> bool:
    """Does any source of ``gist`` (parents, ``derived_from`` edges) still vouch for it? A source
    the snapshot cannot place counts as standing: the pass never forgets on a guess."""
    linked = (e.dst for e in p.snap.edges if e.type == "derived_from" and e.src == gist.id)
    for source in dict.fromkeys((*gist.parents, *linked)):
        closed = p.snap.closed_parents.get(source)
        if p.snap.item(source) is not None or closed is None or closed.status not in RETRACTED:
            return True
    return False


def _stale_reason(p: Planner, item: Item, contested: dict[str, str]) -> str | None:
    """Why ``item`` lost its footing (None: it has not). A parent that is evidence rather than a
    premise — any parent of a gist, a conversation message's memory for any item — may be pruned
    (forgotten) without that: only its retraction (dismissed, superseded) or loss takes the footing."""
    gist = is_gist(item)
    for parent in item.parents:
        if parent in contested:
            return f"parent {parent} is contradicted by {contested[parent]}"
        if p.snap.item(parent) is not None:
            continue
        closed = p.snap.closed_parents.get(parent)
        if closed is None:
            return f"parent {parent} no longer exists"
        evidence = gist or is_message_memory(closed)
        if not evidence or closed.status in ("dismissed", "superseded"):
            return f"parent {parent} was retracted ({closed.status})"
    return None


def keep_budget(p: Planner) -> None:
    """Step 5: over budget, forget the unprotected items with the lowest keep score.

    The keep score blends learned value, salience and recency (``salience.keep_score``), so a
    cold but critical fact outranks a busy trivial one; protected items never count as surplus.
    Neither do sides of a contradiction: a conflict is settled by a person or a rule, not by
    pruning whichever side happens to score lower. A protected item that would have ranked
    among the surplus without its protection is reported as spared, with the protection.

    Members this pass consolidates into a gist are ranked like any other item: the gist
    restates them, so they are the most redundant items of the scope, and holding them back
    put the whole cut on the few unclustered claims (outside probe 6: a user-stated claim was
    forgotten while 29 of 30 near-duplicates stayed). The gist is written first (the consolidate
    step precedes this one) and stays; a forgotten member keeps its text and scores. At an equal
    keep score an item a gist restates goes before one whose content lives nowhere else.

    A conversation message's memory from which current claims were mined is ranked no higher
    than the lowest of them (``_ranks``), and first at a tie: the claims are the facts distilled
    from the raw turn, which stays word for word in the conversation archive; forgetting it
    leaves them current. It used to be load-bearing through them, so the cut fell on the claims.
    """
    budget = p.config.keep_budget
    if budget is None:
        return
    projected = len(p.snap.items) + p.new_gists
    surplus = projected - budget
    p.stats["keep_budget"] = {"budget": budget, "projected": projected, "surplus": max(0, surplus)}
    if surplus <= 0:
        return
    hold = p.attention_hold | _contested(p)
    guards = {it.id: p.guard(it) for it in p.snap.items if it.id not in hold}
    ranks = _ranks(p, guards)
    # A gist restates them, or claims mined from them do: first to go at an equal score.
    redundant = p.redundant | p.untouched | ranks.keys() & p.mined.keys()
    scored = sorted(
        ((ranks[it.id], it.id, it) for it in p.snap.items if it.id in guards),
        key=lambda t: (t[0], t[1] not in redundant, t[1]),
    )
    victims = [it for _, i, it in scored if guards[i] is None][:surplus]
    for score, i, it in scored[:surplus]:  # the surplus had nothing been protected
        why = guards[i]
        if why is not None:
            p.spare("keep_budget", it, f"{why}: kept, though its keep score {score:.4f} is among the {surplus} lowest")
    if len(victims) < surplus:
        p.notes.append(
            f"keep budget {budget} unmet by {surplus - len(victims)}: the rest are protected "
            "(manual, durable, high salience, load-bearing, the open agenda) or sides of a contradiction"
        )
    now = p.snap.now
    cutoff = ranks[victims[-1].id] if victims else 0.0
    unmet = f"; the other {surplus - len(victims)} are protected" if len(victims) < surplus else ""
    for it in victims:
        p.closing.add(it.id)
        own = keep_score(it, now, p.config)
        mined = len(p.mined.get(it.id, ()))
        ranked = (
            f", ranked no higher than the {mined} current claim(s) mined from this message ({ranks[it.id]:.4f})"
            if mined and ranks[it.id] < own
            else ""
        )
        p.add(
            "keep_budget",
            "forget",
            (it,),
            f"keep budget {budget} < {projected} current items ({surplus} over budget): keep score "
            f"{own:.4f} (value {it.scores.value:.2f}, salience {salience(it):.2f}, "
            f"idle {age_days(it, now):.0f} d){ranked} is among the {len(victims)} lowest unprotected, forgotten "
            f"(cutoff {cutoff:.4f}){unmet}",
        )


def _ranks(p: Planner, guards: dict[str, str | None]) -> dict[str, float]:
    """The keep score each candidate (``guards``' keys) is ranked by. A conversation message's
    memory ranks no higher than the lowest of the current claims mined from it (``Planner.mined``):
    they restate it, its words stay in the conversation archive, and forgetting it leaves them
    current (``_stale_reason``) — so the raw turn goes before the facts distilled from it."""
    now, cfg = p.snap.now, p.config
    ranks = {it.id: keep_score(it, now, cfg) for it in p.snap.items if it.id in guards}
    for message, claims in p.mined.items():
        if message not in ranks:
            continue
        for claim in claims:
            it = p.snap.item(claim)
            if it is not None:
                ranks[message] = min(ranks[message], ranks[claim] if claim in ranks else keep_score(it, now, cfg))
    return ranks


def tiers(p: Planner) -> None:
    """Step 6: stale, low-use, unprotected active items move to the subconscious tier.

    Sides of a contradiction found in this pass stay visible: hiding one would settle the
    conflict by neglect. Members of a gist made in this pass *may* move: their content now
    has a conscious home in the gist, and a tier move changes neither text nor scores (it
    used to wait for the next pass, so a stale log tail stayed active one pass too long).
    The gist's own links run first (the consolidate step precedes this one), and the
    applier carries each member's bumped version forward.
    """
    skip = {a.item_ids[0] for a in p.actions if a.op == "set_tier"} | p.closing | p.attention_hold
    now, cfg = p.snap.now, p.config
    n = 0
    for it in p.snap.items:
        if it.tier != "active" or it.id in skip:
            continue
        idle = age_days(it, now)
        if idle < cfg.stale_after_days or it.use_count > cfg.low_use_max:
            continue
        guard = p.guard(it)
        if guard is not None:
            p.spare("tier", it, f"{guard}: stays active, though stale and low-use (idle {idle:.0f} d)")
            continue
        n += 1
        p.add(
            "tier",
            "set_tier",
            (it,),
            f"stale and low-use: idle {idle:.0f} d >= {cfg.stale_after_days:g} d, used {it.use_count} time(s) "
            f"<= {cfg.low_use_max}, unprotected (salience {salience(it):.2f}); recall promotes it back on use",
            tier=SUBCONSCIOUS,
        )
    p.stats["demoted"] = n


def settle(p: Planner) -> None:
    """Step 9: importance of what this pass processed settles with time, towards a floor.

    Processed = flagged as a hub, or surfaced at the top of the thinking queue (the report's
    ``attention``; ``settle_attended``). Settling the surfaced items rotates the queue, so
    newer items get attention next. Demoted items are not settled: the subconscious tier is
    already out of the queue, and a second write per demotion would buy nothing. Contradiction
    sides keep their importance (they still need someone), items consolidated this pass are
    left untouched, and a stated importance (``stated_importance``) is never settled.

    How much: ``settled_importance`` — a function of the time since the item last changed, so
    the number of passes in between does not matter (regression: each pass multiplied by 0.9,
    and seven passes in 30 s took a user-stated 0.9 to 0.43).
    """
    cfg = p.config
    leaving = p.closing | {a.item_ids[0] for a in p.actions if a.op == "set_tier"}
    top = attention([it for it in p.snap.items if it.id not in leaving], cfg.attention_k)
    p.attention = [entry.to_dict() for entry in top]
    ids = set(p.processed)
    if cfg.settle_attended:
        ids |= {entry.item.id for entry in top}
    ids -= p.closing | p.untouched | p.attention_hold
    n = kept = 0
    for item_id in sorted(ids):
        it = p.snap.item(item_id)
        if it is None:
            continue
        if stated_importance(it) is not None:
            kept += 1
            continue
        old = it.scores.importance
        days = max(0.0, (p.snap.now - it.updated_at).total_seconds() / 86400)
        new = settled_importance(old, days, cfg.settle_half_life_days, cfg.importance_floor)
        if old - new < cfg.settle_min_step:
            continue  # not written: updated_at stays, so the time keeps counting for a later pass
        n += 1
        p.add(
            "settle",
            "set_scores",
            (it,),
            f"processed by this pass: importance settles {old:.3f} → {new:.3f} after {days:.1f} d unchanged "
            f"(halves every {cfg.settle_half_life_days:g} d, floor {cfg.importance_floor:g}) "
            "so newer items get attention",
            scores={"importance": new},
        )
    p.stats["settled"] = n
    p.stats["settle_kept_stated"] = kept


def settled_importance(importance: float, days: float, half_life_days: float, floor: float) -> float:
    """``importance`` after ``days`` of settling: halved every ``half_life_days``, never below
    ``floor`` (nor raised to it). Composes: settling a days then b days equals settling a + b."""
    if importance <= floor:
        return importance
    return min(importance, round(max(floor, importance * math.pow(0.5, days / half_life_days)), 6))


__all__ = [
    "HUB",
    "IMPORTANCE_STATED",
    "STALE_DERIVED",
    "hubs",
    "keep_budget",
    "provenance",
    "settle",
    "settled_importance",
    "stated_importance",
    "tiers",
]
