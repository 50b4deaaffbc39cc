"""Read-only views a person or an agent steers by: the thinking queue and value by cohort.

The thinking queue ranks by importance × (1 − authority): what matters but is not yet
trusted deserves attention (a check, a question to the user, a source). Manual items have
authority 1 and never appear at the top. ``value_by_cohort`` shows where learned value sits
(by tag or by month recorded), e.g. to see whether a budget would eat a whole topic.
"""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass
from typing import TYPE_CHECKING, Any

from reverie.dream.salience import salience
from reverie.errors import InvalidInputError
from reverie.model.item import Item
from reverie.model.query import Q, parse_sort
from reverie.model.validate import check_scope

if TYPE_CHECKING:
    from reverie.dream.host import DreamHost

UNTAGGED = "(untagged)"


@dataclass(frozen=True, slots=True)
class QueueEntry:
    """One item of the thinking queue and its priority = importance × (1 − authority)."""

    item: Item
    priority: float

    def to_dict(self) -> dict[str, Any]:
        return {
            "id": self.item.id,
            "priority": round(self.priority, 6),
            "importance": self.item.scores.importance,
            "authority": self.item.scores.authority,
            "text": self.item.text[:200],
        }


@dataclass(frozen=True, slots=True)
class Cohort:
    """Current items sharing a tag (or a month recorded): how many, and the value they hold."""

    name: str
    count: int
    value_sum: float
    value_mean: float
    salience_mean: float
    uses: int

    def to_dict(self) -> dict[str, Any]:
        return {
            "name": self.name,
            "count": self.count,
            "value_sum": self.value_sum,
            "value_mean": self.value_mean,
            "salience_mean": self.salience_mean,
            "uses": self.uses,
        }


def priority(item: Item) -> float:
    return item.scores.importance * (1.0 - item.scores.authority)


def attention(items: Sequence[Item], k: int) -> list[QueueEntry]:
    """The top ``k`` current, non-subconscious items by priority (ties by id), priority > 0.

    Subconscious items are out of attention by definition; recall brings them back on use.
    """
    ranked = sorted(
        (QueueEntry(it, priority(it)) for it in items if it.is_current and it.tier != "subconscious"),
        key=lambda e: (-e.priority, e.item.id),
    )
    return [e for e in ranked if e.priority > 0.0][:k]


def _current(mem: DreamHost, scope: str) -> list[Item]:
    """Every current item of the scope in one read (see ``snapshot`` for why the store)."""
    s = check_scope(scope, mem.limits)
    return [it for it in mem.store.query(s, Q.status("live"), parse_sort(["id"]), limit=10**9) if it.is_current]


def thinking_queue(mem: DreamHost, *, scope: str, k: int = 10) -> list[QueueEntry]:
    """What deserves attention in ``scope``: importance × (1 − authority), highest first."""
    if isinstance(k, bool) or not isinstance(k, int) or not 1 <= k <= mem.limits.max_k:
        raise InvalidInputError(f"k must be an int in [1, {mem.limits.max_k}]")
    return attention(_current(mem, scope), k)


def value_by_cohort(mem: DreamHost, *, scope: str, by: str = "tag") -> list[Cohort]:
    """Learned value of current items grouped ``by`` ``"tag"`` (an item counts in each of its
    tags; untagged items in ``"(untagged)"``) or ``"month"`` recorded (UTC, ``YYYY-MM``)."""
    if by not in ("tag", "month"):
        raise InvalidInputError("by must be 'tag' or 'month'")
    groups: dict[str, list[Item]] = {}
    for it in _current(mem, scope):
        if by == "month":
            names: Sequence[str] = (it.recorded_at.strftime("%Y-%m"),)
        else:
            names = it.tags or (UNTAGGED,)
        for name in names:
            groups.setdefault(name, []).append(it)
    out = []
    for name in sorted(groups):
        members = groups[name]
        total = sum(it.scores.value for it in members)
        out.append(
            Cohort(
                name=name,
                count=len(members),
                value_sum=round(total, 6),
                value_mean=round(total / len(members), 6),
                salience_mean=round(sum(salience(it) for it in members) / len(members), 6),
                uses=sum(it.use_count for it in members),
            )
        )
    return out


__all__ = ["Cohort", "QueueEntry", "attention", "priority", "thinking_queue", "value_by_cohort"]
