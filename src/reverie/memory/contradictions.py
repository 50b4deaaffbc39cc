"""The contradictions capability: detect → alert → resolve.

Detection reads only (it returns ``contradicts`` links as commands), so the same code runs after
a write commits and inside a dream-pass batch; alerts rank what a person should look at; resolve
settles one conflict in a single transaction.
"""

from __future__ import annotations

import builtins
import logging
from typing import Any

from reverie.conflict.alerts import Alert, build_alert
from reverie.conflict.alerts import rank as rank_alerts
from reverie.conflict.entity import Aliases as AliasLookup
from reverie.conversation.people.apart import AliasGraph, PersonsOf
from reverie.conversation.people.follow import follow_people
from reverie.dream.text import statement
from reverie.errors import AlreadyClosedError, InvalidInputError, NotFoundError, ReaderError
from reverie.memory.core import CONFLICTS_UNREAD, Core
from reverie.model import commands as cmd
from reverie.model.item import Edge, Item
from reverie.model.query import Filter, Q, parse_sort
from reverie.model.validate import check_count, check_id, check_reason
from reverie.model.values import value_text
from reverie.store.protocol import Outcome

_log = logging.getLogger(__name__)

#: "Not read yet" for an optional argument whose read value may itself be None.
_UNREAD: Any = object()


class Contradictions:
    """``detect_conflicts``, ``contradictions``, ``resolve`` and ``dismiss_contradiction`` over one ``Core``."""

    def __init__(self, core: Core) -> None:
        self._core = core

    def detect_conflicts(self, id: str, *, scope: str, candidates: int | None = None) -> builtins.list[Edge]:
        """Check one current item against similar current items of its scope; link what conflicts.

        Candidates: items with the same ``key``, plus the best lexical and dense matches. Each
        pair goes through the rule-based detector (polarity, numeric, entity, temporal), then,
        if this Memory reads at write time (``conflict_reader=..., read_at_write=True``), the
        pairs the rules left undecided go to the second reader (``reverie.conflict.second``); a hit
        becomes a ``contradicts`` edge carrying the axis, evidence spans, confidence and reason.
        Both items stay. Runs after every ``remember`` / ``revise`` (``detect=True``) and in the
        dream pass; idempotent (an existing edge between the pair is not duplicated).
        """
        return self.detect_after_write(id, scope=scope, candidates=candidates)

    def detect_after_write(
        self, id: str, *, scope: str, candidates: int | None = None, aliases: Any = _UNREAD
    ) -> builtins.list[Edge]:
        """``detect_conflicts`` with the scope's alias groups passed in: a batched write reads
        them once for all its items (detection adds only ``contradicts`` edges, so the groups
        cannot change in between)."""
        core = self._core
        s = core.scope(scope)
        item = core.must_get(s, check_id(id))
        if not item.is_current:
            return []
        count = check_count(candidates, "candidates", default=10, limits=core.limits)
        try:
            commands = self.conflict_links(item, count, aliases=aliases, second=core.read_at_write)
        except ReaderError as exc:  # the rules' links still land now; the dream pass reads it later
            _log.warning(
                "%s; the rules ran and item %s is flagged %s for the dream pass", exc, item.id, CONFLICTS_UNREAD
            )
            commands = self.conflict_links(item, count, aliases=aliases, second=False)
            commands.append(cmd.SetFlags(s, item.id, (CONFLICTS_UNREAD,), (), "the second reader failed at write time"))
        if not commands:
            return []
        out = core.store.execute(commands, now=core.clock.now(), new_id=core.new_id, vectors={})
        new_ids = {e.payload["edge"]["id"] for o in out for e in o.events if "edge" in e.payload}
        return [e for e in core.store.edges(s, item.id) if e.id in new_ids]

    def conflict_links(
        self,
        item: Item,
        candidates: int = 10,
        *,
        aliases: Any = _UNREAD,
        match: str | None = None,
        second: bool = True,
        people: AliasGraph | None = None,
    ) -> builtins.list[cmd.Command]:
        """The ``contradicts`` links ``detect_conflicts`` would add for ``item`` (reads only).

        Split out so the dream pass can run it inside its own batch transaction, reading the
        alias groups once per batch (``aliases``, from ``alias_lookup``) and querying the
        full-text index with the item's rarest words (``match``) instead of its whole text.
        ``second``: also ask the second reader, if this Memory has one (the dream pass always
        does; a write only with ``read_at_write``). Claims about two different persons (each
        ``about`` somebody, nobody in common: ``people.apart``) are not compared; ``people``, the
        scope's alias graph, may be shared by a batch so it is read once.
        """
        from reverie.conflict import Claim, detect
        from reverie.conflict.second import read_undecided

        store = self._core.store
        s = item.scope
        others = self._candidates(item, candidates, match)
        # Closed edges too: between two current claims (``others`` are), a closed one is a person's
        # word that they do not conflict (``dismissed_pairs``), and that pair is never linked again.
        linked = {
            frozenset((e.src, e.dst)) for e in store.edges(s, item.id, include_closed=True) if e.type == "contradicts"
        }
        if aliases is _UNREAD:
            aliases = self.alias_lookup(s)
        mine = _claim(Claim, item)
        commands: builtins.list[cmd.Command] = []
        persons = PersonsOf(store, s, people)  # claims about two different persons are not compared (session 33)
        fresh = [o for o in others if frozenset((item.id, o.id)) not in linked and not persons.apart(item.id, o.id)]
        verdicts = [detect(mine, _claim(Claim, other), aliases=aliases) for other in fresh]
        reader = self._core.conflict_reader() if second else None
        if reader is not None:  # the second reader speaks only where the rules found nothing
            undecided = [i for i, v in enumerate(verdicts) if v is None]
            try:
                read = read_undecided([(mine, _claim(Claim, fresh[i])) for i in undecided], reader)
            except ReaderError:
                raise
            except Exception as exc:  # a model's own failure, whatever its type: one error to catch
                raise ReaderError(f"the second reader failed on item {item.id}: {type(exc).__name__}: {exc}") from exc
            for i, v in zip(undecided, read, strict=True):
                verdicts[i] = v
        for other, found in zip(fresh, verdicts, strict=True):
            if found is None:
                continue
            meta = found.to_dict()
            meta["newer"] = item.id if item.recorded_at >= other.recorded_at else other.id
            commands.append(
                cmd.Link(s, "contradicts", item.id, other.id, "reverie.conflict", float(found.confidence), meta)
            )
        return commands

    def _candidates(self, item: Item, n: int, match: str | None = None) -> builtins.list[Item]:
        from reverie.recall.normalize import fts_query

        store = self._core.store
        s = item.scope
        ids: dict[str, None] = {}
        if item.key:
            for other in store.query(s, Q.key(item.key) & current(), parse_sort(None), limit=n):
                ids[other.id] = None
        match = match or fts_query(item.text)
        if match:
            for other_id, _ in store.lexical(s, match, limit=n):
                ids[other_id] = None
        ids.pop(item.id, None)
        # Nor its parents: a claim restates what it was derived from. Why it matters: each claim
        # mined from a long message found that message (it holds every name) and compared all of
        # its 32,000 characters, once per claim (outside probe 2, finding 11).
        for parent in item.parents:
            ids.pop(parent, None)
        found = store.get_many(s, builtins.list(ids))
        return [found[i] for i in ids if i in found and found[i].is_current]

    def alias_lookup(self, scope: str) -> AliasLookup | None:
        """Alias groups (transitive, over current ``alias`` edges) as a name → group lookup.

        Read per claim by write-time detection, so it reads the alias edges alone
        (``edges_by_type``): ``edges(scope)`` returned every about / derived_from edge extraction
        adds, and conversation ingest grew quadratically with them (issue #15 follow-up).
        """
        return self._lookup(scope, self._core.store.edges_by_type(scope, "alias"))

    def alias_views(self, scope: str) -> tuple[AliasLookup | None, AliasGraph]:
        """``alias_lookup`` and the persons' alias graph (``people.apart``) from one read of the
        scope's alias edges: what a batch (a slice import) checks every claim with."""
        edges = self._core.store.edges_by_type(scope, "alias")
        return self._lookup(scope, edges), AliasGraph(self._core.store, scope, edges)

    def _lookup(self, scope: str, edges: builtins.list[Edge]) -> AliasLookup | None:
        store = self._core.store
        groups: dict[str, set[str]] = {}
        if not edges:
            return None
        items = store.get_many(scope, [i for e in edges for i in (e.src, e.dst)])
        for e in edges:
            a, b = items.get(e.src), items.get(e.dst)
            if a is None or b is None:
                continue
            values = (value_text(v) for v in (a.value, b.value) if v is not None)
            names = {a.text.casefold(), b.text.casefold()} | {v.casefold() for v in values if v}
            merged = set(names)
            for name in names:
                merged |= groups.get(name, set())
            for name in merged:
                groups[name] = merged
        return lambda name: frozenset(groups.get(name.casefold(), {name.casefold()}))

    def contradictions(
        self, *, scope: str, alerts_only: bool = False, limit: int | None = None
    ) -> builtins.list[Alert]:
        """Open conflicts (both sides current), hypercorrections and established beliefs first.

        ``limit``: at most this many (default 100, or ``Limits.max_k`` if lower).
        """
        core = self._core
        s = core.scope(scope)
        limit = check_count(limit, "limit", default=100, limits=core.limits)
        edges = core.store.edges_by_type(s, "contradicts")
        items = core.store.get_many(s, [i for e in edges for i in (e.src, e.dst)])
        alerts = []
        for e in edges:
            a, b = items.get(e.src), items.get(e.dst)
            if a is None or b is None or not a.is_current or not b.is_current:
                continue
            alert = build_alert(e, a, b)
            if alert.alert or not alerts_only:
                alerts.append(alert)
        return rank_alerts(alerts)[:limit]

    def dismiss_contradiction(self, conflict: str, *, scope: str, reason: str = "") -> Edge:
        """Close a conflict as "not a conflict": both claims stay believed, and no detector
        (write-time or dream) links the same two claims again. Returns the closed edge.

        The record is the edge's ``edge.unlinked`` event (the same one ``unlink`` of a
        ``contradicts`` edge writes: one act, two names), so it survives a rebuild and an
        export / import. A new version of either claim (``revise``: a new id) is checked again.
        Use ``resolve`` instead when one of the two is wrong.
        """
        core = self._core
        s = core.scope(scope)
        edge_id = check_id(conflict, "conflict")
        store = core.store
        edge = next((e for e in store.edges_by_type(s, "contradicts", include_closed=True) if e.id == edge_id), None)
        if edge is None:
            other = next((e for e in store.edges(s, include_closed=True) if e.id == edge_id), None)  # the error path
            if other is not None:
                raise InvalidInputError(
                    f"edge {edge_id} is a {other.type} edge, not a contradiction: close it with unlink instead"
                )
            raise NotFoundError(f"no open conflict {edge_id} in scope {s!r}")
        if not edge.is_current:
            raise AlreadyClosedError(f"conflict {edge_id} is already closed (dismissed, or resolved by a correction)")
        core.run([cmd.Unlink(s, edge_id, check_reason(reason))])
        return next(e for e in store.edges(s, edge.src, include_closed=True) if e.id == edge_id)

    def resolve(self, conflict: str, *, keep: str, scope: str, reason: str = "") -> Item:
        """Settle a conflict: ``keep`` stays, the other side is superseded (lower authority,
        ``supersedes`` edge, validity closed), the conflict edge closes, and current items derived
        from the loser are flagged ``stale_derived`` and demoted — all in one transaction.
        """
        core = self._core
        s = core.scope(scope)
        edge_id, keep_id = check_id(conflict, "conflict"), check_id(keep, "keep")
        edge = next((e for e in core.store.edges_by_type(s, "contradicts") if e.id == edge_id), None)
        if edge is None:
            raise NotFoundError(f"no open conflict {edge_id} in scope {s!r}")
        if keep_id not in (edge.src, edge.dst):
            raise InvalidInputError(f"keep must be one side of the conflict: {edge.src} or {edge.dst}")
        loser = edge.dst if keep_id == edge.src else edge.src
        why = check_reason(reason) or "conflict resolved"
        # Supersede closes the loser's contradicts edges itself, this one first (model.reducer).
        commands: builtins.list[cmd.Command] = [cmd.Supersede(s, loser, keep_id, why)]
        derived = core.store.query(s, Q.parent(loser) & current(), parse_sort(None), limit=core.limits.max_batch)
        for d in derived:
            commands.append(cmd.SetFlags(s, d.id, ("stale_derived",), (), f"parent {loser} lost a conflict"))
            commands.append(cmd.SetTier(s, d.id, "subconscious", f"parent {loser} lost a conflict"))

        def follow(_: builtins.list[Outcome]) -> None:
            # A kept claim no person was linked to takes the loser's persons that its words name
            # (and enrolls one its relation names), as a revised version does (``people.follow``).
            follow_people(core, s, keep_id)

        core.run(commands, after=follow)
        return core.must_get(s, keep_id)


def _claim(factory: Any, item: Item) -> Any:
    value = None if item.value is None else value_text(item.value)  # the rules read text (``model.values``)
    return factory(text=statement(item), key=item.key, value=value, valid_from=item.valid_from, valid_to=item.valid_to)


def current() -> Filter:
    """Items still in current truth (the status every "current" read filters on)."""
    return Q.status("live")
