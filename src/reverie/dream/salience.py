"""Salience: how much an item matters, from signals it carries — and the protection rule.

Why not ``scores.importance``: importance is the *attention* grade that step 9 lets settle
pass after pass; salience must not decay, or a cold but critical fact would drift towards
the budget's chopping block just by being old. So salience reads only what does not change
with time: the kind of claim (a policy, a decision, a procedure or a verified result outweighs
a remark or an episode), the author's confidence, how often it was corroborated, and the
authority of its source — and the importance a person stated (``stated_importance``): a
person's word that a claim matters is a signal it carries, and stated importance never
settles, so it does not decay either (outside probe 6: a user-stated importance-0.95 claim had
salience 0.55 and the keep-budget forgot it ahead of inferred chatter).
"""

from __future__ import annotations

import math
from datetime import datetime
from typing import TYPE_CHECKING

from reverie.dream.config import DreamConfig
from reverie.model.gists import made_by_dream
from reverie.model.item import Item

if TYPE_CHECKING:
    from reverie.dream.dependents import Dependents

#: Weight of each kind of claim. Kinds outside the list weigh like an observation.
KIND_WEIGHT: dict[str, float] = {
    "policy": 1.0,
    "decision": 1.0,
    "procedural": 0.9,
    "trait": 0.7,
    "assertion": 0.6,
    "semantic": 0.6,
    "derivation": 0.5,
    "observation": 0.4,
    "hypothesis": 0.3,
    "assumption": 0.3,
    "simulation": 0.3,
    "episodic": 0.25,
    "remark": 0.1,
}
DEFAULT_KIND_WEIGHT = 0.4
#: A result someone verified weighs like a decision, whatever its kind.
VERIFIED_WEIGHT = 0.9
VERIFIED_TAGS = frozenset({"verified", "decision", "policy"})
#: Corroborations at which the evidence signal saturates.
EVIDENCE_SATURATION = 8

W_KIND, W_CONFIDENCE, W_EVIDENCE, W_AUTHORITY = 0.40, 0.20, 0.15, 0.25
#: Flag ``Memory.set_scores`` puts on an item whose importance a person set: it never settles.
IMPORTANCE_STATED = "importance_stated"


def salience(item: Item) -> float:
    """A score in [0, 1] from kind, confidence, evidence count and authority; it never decays.

    A gist (made by a dream pass) counts each item it consolidates as one piece of evidence.
    An importance a person stated (``stated_importance``) is a floor: the signals can raise
    salience above it, never lower it below what the person said.
    """
    kind = KIND_WEIGHT.get(item.kind, DEFAULT_KIND_WEIGHT)
    if VERIFIED_TAGS.intersection(item.tags) or item.meta.get("verified") is True:
        kind = max(kind, VERIFIED_WEIGHT)
    evidence = item.evidence_count
    if is_gist(item):
        evidence = max(evidence, len(item.parents))
    ev = min(1.0, math.log2(1 + max(1, evidence)) / math.log2(1 + EVIDENCE_SATURATION))
    s = W_KIND * kind + W_CONFIDENCE * item.scores.confidence + W_EVIDENCE * ev + W_AUTHORITY * item.scores.authority
    stated = stated_importance(item)
    if stated is not None:
        s = max(s, stated)
    return min(1.0, max(0.0, s))


def stated_importance(item: Item) -> float | None:
    """The importance a person gave this item, which settling never lowers; None if none did.

    A person stated it when the claim's source is ``manual`` (a person vouches) or
    ``user_stated`` (the user said it, with the importance they gave it), or when a person set
    it with ``Memory.set_scores`` (which flags the item ``IMPORTANCE_STATED``). Settling lowers
    only importance the system derived; a person who wants it lower sets it (an event too).
    """
    if item.source in ("manual", "user_stated") or IMPORTANCE_STATED in item.flags:
        return item.scores.importance
    return None


def is_gist(item: Item) -> bool:
    """Made by a dream pass's consolidation (``meta.dream == "gist"``; see ``made_by_dream``)."""
    return made_by_dream(item, "gist")


def is_pattern(item: Item) -> bool:
    """Made by a dream pass's pattern step (``meta.dream == "pattern"``; see ``made_by_dream``)."""
    return made_by_dream(item, "pattern")


def protection(
    item: Item, config: DreamConfig, dependents: Dependents | None = None, now: datetime | None = None
) -> str | None:
    """Why a pass may neither forget nor demote ``item`` (None: it is unprotected).

    ``manual`` items are a person's word; ``durable`` is a person's pin; high salience is
    the cold-but-critical rule; ``dependents`` (this pass's count of current items resting
    on it, ``dependents.count_dependents``) at or above ``protect_dependents`` is the
    load-bearing rule: forgetting it would leave them ``stale_derived``. A claim whose
    validity starts after ``now`` (the pass's clock) is out of current truth until then, so
    nobody could have used it: idleness says nothing about its worth.
    """
    if now is not None and item.valid_from is not None and item.valid_from > now:
        return f"not valid until {item.valid_from.isoformat()} (unused because it has not started)"
    if item.source == "manual":
        return "manual source"
    if item.tier == "durable":
        return "durable tier"
    if salience(item) >= config.protect_salience:
        return f"salience >= {config.protect_salience}"
    if dependents is not None and 0 < config.protect_dependents <= dependents.total:
        return dependents.describe()
    return None


def last_touch(item: Item) -> datetime:
    """When the item was last used, else when it was recorded: the clock recency runs on."""
    if item.last_used_at is not None and item.last_used_at > item.recorded_at:
        return item.last_used_at
    return item.recorded_at


def age_days(item: Item, now: datetime) -> float:
    return max(0.0, (now - last_touch(item)).total_seconds() / 86400.0)


def keep_score(item: Item, now: datetime, config: DreamConfig) -> float:
    """The keep-budget blend of learned value, salience and recency (never access count alone)."""
    recency = float(0.5 ** (age_days(item, now) / config.recency_half_life_days))
    s = (
        config.keep_weight_value * item.scores.value
        + config.keep_weight_salience * salience(item)
        + config.keep_weight_recency * recency
    )
    return s


__all__ = [
    "IMPORTANCE_STATED",
    "KIND_WEIGHT",
    "age_days",
    "is_gist",
    "keep_score",
    "last_touch",
    "protection",
    "salience",
    "stated_importance",
]
