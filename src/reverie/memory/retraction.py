"""The retraction capability: take back a claim and everything that rests on it, at once.

Why its own module and one transaction: a retraction that stops half-way (a crash, a refused
write) would leave conclusions standing on a premise that is gone. The whole dependent set is
found first — through ``parents`` *and* ``derived_from`` edges, passing through links that are
already closed (a forgotten intermediate still carried its own dependants) — and then every
current member is forgotten in one write: all or nothing.
"""

from __future__ import annotations

import builtins

from reverie.memory.core import Core
from reverie.model import commands as cmd
from reverie.model.query import Q, parse_sort
from reverie.model.validate import check_id, check_reason

#: Upper bound on the members one retraction may close (each is one command in one transaction).
_EVERYTHING = 10**9


class Retraction:
    """``cascade_retract`` over one ``Core``."""

    def __init__(self, core: Core) -> None:
        self._core = core

    def cascade_retract(self, id: str, *, scope: str, reason: str = "") -> builtins.list[str]:
        """Forget ``id`` and every current item derived from it, transitively, in one transaction.

        Derived means: lists it in ``parents``, or has a current ``derived_from`` edge to it — and so
        on down, also through members that are already closed. Each forget carries the reason and
        the root. Returns the ids forgotten (breadth-first from ``id``; already closed members are
        passed through, not listed). Nothing is written if any member cannot be forgotten.
        """
        core = self._core
        s = core.scope(scope)
        root = check_id(id)
        why = check_reason(reason)
        core.must_get(s, root)  # NotFoundError for an unknown id, before anything is written
        members = self._dependents(s, root)
        items = core.store.get_many(s, members)
        commands: builtins.list[cmd.Command] = []
        done: builtins.list[str] = []
        for member in members:
            item = items.get(member)
            if item is None or not item.is_current:
                continue
            note = "cascade_retract" if member == root else f"cascade_retract from {root} (dependency chain)"
            commands.append(cmd.Forget(s, member, f"{note}: {why}" if why else note, None))
            done.append(member)
        if commands:
            core.run(commands)
        return done

    def _dependents(self, scope: str, root: str) -> builtins.list[str]:
        """``root`` and everything derived from it, breadth-first, each once (ties by id)."""
        store = self._core.store
        order = [root]
        seen = {root}
        at = 0
        while at < len(order):
            current = order[at]
            at += 1
            children = {c.id for c in store.query(scope, Q.parent(current), parse_sort(["id"]), limit=_EVERYTHING)}
            children |= {e.src for e in store.edges(scope, current) if e.type == "derived_from" and e.dst == current}
            for child in sorted(children - seen):
                seen.add(child)
                order.append(child)
        return order
