"""Helpers for the visibility suite (issue #14.8): a world of claims with audiences, and every read.

Each claim's text carries its own canary token, so "the principal saw this text" is a substring
check over everything a read returned. ``readings`` makes every read a principal can make —
recall (with and without its corrective pass), context, list (paged), get, history, events,
edges, contradictions, summary, tombstones, dream runs — and returns them as one text plus the
ids and counts it saw.
"""

from __future__ import annotations

from typing import Any

from reverie import Memory, NotFoundError
from reverie.model.visibility import may_see

from .kit import dump

SCOPE = "team:ops"
PRINCIPALS = ("agent:a", "agent:b", "user:c")
#: Audiences a claim may get: everyone, one principal, two principals.
AUDIENCES: tuple[tuple[str, ...], ...] = ((), ("agent:a",), ("agent:b",), ("agent:a", "user:c"))


def canary(n: int) -> str:
    return f"zqv{n:03d}x"


def all_items(owner: Memory) -> list[Any]:
    return owner.list(scope=SCOPE, include_closed=True, limit=1000).items


def hidden_from(owner: Memory, principal: str) -> list[Any]:
    """What ``principal`` may not see, by the owner's unfiltered reads (the oracle)."""
    return [i for i in all_items(owner) if not may_see(i.visibility, principal)]


def readings(view: Memory, ids: list[str]) -> dict[str, Any]:
    """Everything ``view`` can read in ``SCOPE``: one case-folded text, the ids and the counts it saw."""
    seen: list[Any] = []
    listed = []
    cursor = None
    while True:  # paged, 3 at a time: pages must be exact, not shortened by hidden rows
        page = view.list(scope=SCOPE, include_closed=True, limit=3, cursor=cursor)
        listed += page.items
        cursor = page.next_cursor
        if cursor is None:
            break
    seen.append([i.to_dict() for i in listed])
    got = []
    for item_id in ids:
        try:
            got.append(view.get(item_id, scope=SCOPE))
            history = view.history(item_id, scope=SCOPE)
        except NotFoundError:
            continue
        seen.append([v.to_dict() for v in history.versions])
        seen.append([e.to_dict() for e in history.events])
    seen.append([i.to_dict() for i in got])
    query = "topic0 topic1 topic2 note claim"
    hits = view.recall(query, scope=SCOPE, k=50, record_use=False, include_history=True)
    seen.append([h.item.to_dict() for h in hits])
    # No use recorded: a use promotes a demoted claim (``stale_derived``), so one principal's
    # reads would change what the next one's see, and SQLite's bm25 (its scope idf floor) and the
    # reference store's count different hits as used — the backends would diverge for that alone.
    seen.append(view.context(query, scope=SCOPE, budget_tokens=4000, record_use=False))
    seen.append([e.to_dict() for e in view.events(scope=SCOPE, limit=10_000)])
    seen.append([e.to_dict() for e in view.edges(scope=SCOPE, include_closed=True)])
    seen.append([a.to_dict() for a in view.contradictions(scope=SCOPE)])
    seen.append(view.store.tombstones(SCOPE))
    seen.append(view.dream_runs(scope=SCOPE))
    summary = view.summary(scope=SCOPE)
    return {
        "text": dump(seen),
        "listed": sorted(i.id for i in listed),
        "got": sorted(i.id for i in got),
        "recalled": sorted(h.item.id for h in hits),
        "summary": summary,
    }


def expected_summary(owner: Memory, principal: str) -> dict[str, int]:
    """The counts a principal's summary must show: the owner's items it may see, counted."""
    items = [i for i in all_items(owner) if may_see(i.visibility, principal)]
    current = [i for i in items if i.is_current]
    return {
        "current": len(current),
        "dismissed": sum(1 for i in items if i.status == "dismissed"),
        "forgotten": sum(1 for i in items if i.status == "forgotten"),
        "superseded": sum(1 for i in items if i.status == "superseded"),
    }
