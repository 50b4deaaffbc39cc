"""The read capability: one item (now or as it stood), its history, filtered lists, the log.

Reads never write (recall, which records use, lives in ``retrieval``); every one takes the scope
first and sees only that scope.
"""

from __future__ import annotations

import builtins
from collections.abc import Sequence
from dataclasses import dataclass
from datetime import datetime
from typing import Any

from reverie.errors import InvalidInputError, InvalidQueryError, LimitExceededError, NotFoundError
from reverie.memory.core import Core
from reverie.model import lineage
from reverie.model.clock import ensure_aware
from reverie.model.cursor import decode as decode_cursor
from reverie.model.cursor import encode as encode_cursor
from reverie.model.cursor import listing_fingerprint
from reverie.model.events import Event
from reverie.model.item import Edge, Item
from reverie.model.query import All, Filter, Q, parse_sort
from reverie.model.valid_reads import standing, stands
from reverie.model.validate import check_count, check_id, check_seq, shown
from reverie.store.protocol import Store
from reverie.store.replay import item_at


@dataclass(frozen=True, slots=True)
class Page:
    """One page of ``list`` results; pass ``next_cursor`` back to continue (None = no more)."""

    items: list[Item]
    next_cursor: str | None


@dataclass(frozen=True, slots=True)
class History:
    """Every version of a claim (oldest first) and every event that touched any of them."""

    versions: list[Item]
    events: list[Event]


def versions_of(store: Store, scope: str, item_id: str) -> builtins.list[str]:
    """Ids of every version of the claim (``model.lineage.versions`` over the store's edges)."""
    return lineage.versions(item_id, lambda i: store.edges(scope, i, include_closed=True))


class Reads:
    """get, history, list, edges, events, summary and scopes over one ``Core``."""

    def __init__(self, core: Core) -> None:
        self._core = core

    def get(self, id: str, *, scope: str, as_of: datetime | None = None, valid_at: datetime | None = None) -> Item:
        """The item by id, or as it stood at ``as_of`` (record time: what we believed then).

        ``valid_at=T`` asks valid time instead — what was true in the world at T: the version of
        this claim (any version linked to it by ``supersedes``, as ``history`` finds them) that is
        believed or forgotten (now, or at ``as_of`` when given: forgetting closes validity, so a
        forgotten version still answers for T before its ``valid_to``) and valid at T; ``id``
        itself when it qualifies, else the newest such version. ``NotFoundError`` if there is none.
        """
        core = self._core
        s = core.scope(scope)
        item_id = check_id(id)
        when = ensure_aware(as_of, "as_of") if as_of is not None else None
        if valid_at is not None:
            return self._valid_version(s, item_id, ensure_aware(valid_at, "valid_at"), when)
        if when is None:
            return core.must_get(s, item_id)
        state = self._item_at(s, item_id, when)
        if state is None:
            raise NotFoundError(f"no item {item_id} in scope {s!r} as of {when.isoformat()}")
        return state

    def _valid_version(self, scope: str, item_id: str, valid_at: datetime, as_of: datetime | None) -> Item:
        """``get(valid_at=...)``: the standing version of the claim that was true at ``valid_at``."""
        start = self._core.must_get(scope, item_id)
        ids = self._versions_of(scope, start.id)
        if as_of is None:
            states = builtins.list(self._core.store.get_many(scope, ids).values())
        else:
            states = [st for i in ids if (st := self._item_at(scope, i, as_of)) is not None]
        test = Q.valid_at(valid_at)
        fits = [st for st in states if stands(st) and test.matches(st)]
        if not fits:
            told = f" as believed at {as_of.isoformat()}" if as_of is not None else ""
            raise NotFoundError(
                f"no version of item {item_id} in scope {scope!r} was true at {valid_at.isoformat()}{told} "
                "(valid time); history() lists every version with its valid_from / valid_to"
            )
        own = [st for st in fits if st.id == item_id]
        return own[0] if own else max(fits, key=lambda st: (st.recorded_at, st.id))

    def _item_at(self, scope: str, item_id: str, when: datetime) -> Item | None:
        """This item's state at ``when`` (``store.replay.item_at``: the definition recall shares)."""
        return item_at(self._core.store, scope, item_id, when)

    def _versions_of(self, scope: str, item_id: str) -> builtins.list[str]:
        return versions_of(self._core.store, scope, item_id)

    def history(self, id: str, *, scope: str) -> History:
        """All versions of the claim (following ``supersedes`` both ways) and their events."""
        core = self._core
        s = core.scope(scope)
        start = core.must_get(s, check_id(id))
        seen = self._versions_of(s, start.id)
        versions = sorted(core.store.get_many(s, list(seen)).values(), key=lambda i: (i.recorded_at, i.id))
        events: builtins.list[Event] = []
        for v in versions:
            events += core.store.events(s, item_id=v.id, limit=1_000_000)
        unique = {e.seq: e for e in events}
        return History(versions=versions, events=[unique[k] for k in sorted(unique)])

    def list(
        self,
        *,
        scope: str,
        where: Filter | None = None,
        sort: Sequence[str] | str | None = None,
        limit: int | None = None,
        cursor: str | None = None,
        include_closed: bool = False,
        subscopes: bool = False,
        valid_at: datetime | None = None,
    ) -> Page:
        """Items matching a query-algebra filter (``reverie.Q``), sorted, paged.

        By default only current truth: believed now (not forgotten, superseded or dismissed) and
        true in the world now (``valid_from`` unset or at or before now, no ``valid_to`` at or
        before now; now is the Memory's clock). ``valid_at=T``: believed now, or forgotten (its
        validity closed at the forget), and true in the world at T (valid time; ``model.valid_reads``).
        ``include_closed=True`` adds forgotten, superseded and dismissed
        ones (and, without ``valid_at``, ended and not yet started ones). ``subscopes=True`` also
        reads ``scope/…`` child scopes.

        ``cursor``: the previous page's ``next_cursor``, with the same arguments (``limit`` may
        change). It holds the last row's sort key (``model.cursor``), so items written or
        forgotten between pages never make this page skip or repeat one.
        """
        core = self._core
        s = core.scope(scope)
        if where is not None and not isinstance(where, Filter):
            raise InvalidQueryError("where must be a filter built with reverie.Q")
        f: Filter = where or All()
        if valid_at is not None:
            f = f & Q.valid_at(valid_at)
        if not include_closed:
            # current truth; or, at a valid time, what still stands there (``model.valid_reads``)
            f = f & (Q.status("live") & Q.valid_at(core.clock.now()) if valid_at is None else standing())
        limit = check_count(limit, "limit", default=50, limits=core.limits)
        order = parse_sort(sort)
        listing = listing_fingerprint(
            scope=s, where=where, sort=order, include_closed=include_closed, subscopes=subscopes, valid_at=valid_at
        )
        after = decode_cursor(cursor, order, listing)
        if after is not None:
            f = f & after
        items = core.store.query(s, f, order, limit=limit + 1, subscopes=subscopes)
        more = len(items) > limit
        return Page(items[:limit], encode_cursor(order, items[limit - 1], listing) if more else None)

    def edges(self, id: str | None = None, *, scope: str, include_closed: bool = False) -> builtins.list[Edge]:
        """Edges of the scope, or those touching item ``id``."""
        core = self._core
        s = core.scope(scope)
        return core.store.edges(s, check_id(id) if id is not None else None, include_closed=include_closed)

    def events(self, *, scope: str, after_seq: int = 0, limit: int | None = None) -> builtins.list[Event]:
        """The scope's event log, in order (for audit, export and replication).

        ``limit``: at most this many (default 1000, or ``Limits.max_events`` if lower: like
        ``max_k``'s counts, lowering the bound never breaks a caller that relied on the default).
        """
        core = self._core
        s = core.scope(scope)
        bound = core.limits.max_events
        if limit is None:
            limit = min(1000, bound)
        if isinstance(limit, bool) or not isinstance(limit, int) or limit < 1:
            raise InvalidInputError(f"limit must be a positive int (at most {bound}), got {shown(limit)}")
        if limit > bound:
            raise LimitExceededError(
                f"limit is {shown(limit)}; the limit is Limits.max_events ({bound}): read the log in pages "
                "(pass the last seq you saw as after_seq) or raise Limits.max_events"
            )
        return core.store.events(s, after_seq=check_seq(after_seq), limit=limit)

    def summary(self, *, scope: str) -> dict[str, Any]:
        """Counts by tier (subconscious separately), kind, source, and dismissed / forgotten, plus pause state.

        ``current`` and the counts by tier, kind and source are of believed claims (record time);
        ``not_yet_valid`` and ``ended`` say how many of them lie outside their validity now, which
        ``list()`` and ``recall()`` leave out (so ``list()`` holds ``current`` minus those two).
        Every figure is of one commit (``Store.read_snapshot``): a write another process commits
        meanwhile is in all of them or in none.
        """
        core = self._core
        s = core.scope(scope)
        now, live = core.clock.now(), Q.status("live")
        with core.store.read_snapshot():
            by = core.store.summary_counts(s)
            ended = core.store.count(s, live & ~Q.ongoing(now))
            not_started = core.store.count(s, live & Q.ongoing(now) & ~Q.valid_at(now))
            tombstones = len(core.store.tombstones(s))
            paused = core.store.paused(s)
            pending = core.pending_vectors(s)
        return {
            "scope": s,
            "current": sum(by["tier"].values()),
            "active": by["tier"].get("active", 0) + by["tier"].get("durable", 0),
            "subconscious": by["tier"].get("subconscious", 0),
            "by_tier": dict(sorted(by["tier"].items())),
            "by_kind": dict(sorted(by["kind"].items())),
            "by_source": dict(sorted(by["source"].items())),
            "dismissed": by["status"].get("dismissed", 0),
            "forgotten": by["status"].get("forgotten", 0),
            "superseded": by["status"].get("superseded", 0),
            "not_yet_valid": not_started,
            "ended": ended,
            "tombstones": tombstones,
            "learning_paused": paused,
            # stored while the embedder was down; found by full-text only until backfilled
            "vectors_pending": pending,
        }

    def scopes(self) -> builtins.list[str]:
        """Every scope that holds anything, sorted (for operators; agents should know their scope).

        A scope is listed once its log holds an event of any kind: items, but also intents,
        tasks, conversations or a learning pause without a single item (what a copy or a dump of
        the whole store must walk). For a principal: the scopes where it sees something (an item or
        a conversation of its audience, an intent or a task)."""
        return self._core.store.scopes()
