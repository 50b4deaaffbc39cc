"""Claims the open agenda is about: a dream pass neither forgets nor demotes them.

Why: an intent is what is wanted and a task what is being done, both over claims
(``Intent.memory_ids``, ``Task.inputs``). Pruning the claim an active intent or a pending task
names leaves the agenda pointing at a forgotten claim (outside probe 2, finding 20): the same
reason a load-bearing claim is spared. Open means an intent ``active`` or ``paused``, a task
``pending``, ``running`` or ``failed`` (a failed task can be retried); a finished one protects
nothing. An intent about an older version of a claim protects the claim's current version
(``model.lineage.versions``, as ``intents.list(memory=)`` resolves it).
"""

from __future__ import annotations

from collections.abc import Callable
from typing import Any

from reverie.model.agenda import IntentQuery, TaskQuery
from reverie.model.lineage import versions
from reverie.store.protocol import Store

OPEN_INTENTS = ("active", "paused")
OPEN_TASKS = ("pending", "running", "failed")
#: Read in one query: the agenda of a scope is far smaller than its claims.
_ALL = 10**9


def open_agenda_claims(store: Store, scope: str, current: set[str]) -> dict[str, str]:
    """Current claim id → why the open agenda holds it, for every claim of ``current`` named by
    an open intent or task (directly, or through a revision of the claim it names)."""
    intents: Callable[..., list[Any]] | None = getattr(store, "intents", None)
    tasks: Callable[..., list[Any]] | None = getattr(store, "tasks", None)
    named: dict[str, str] = {}
    if intents is not None:
        for it in intents(scope, IntentQuery(statuses=OPEN_INTENTS), limit=_ALL):
            for m in it.memory_ids:
                named.setdefault(m, f"the open agenda: {it.status} intent {it.id} is about it")
    if tasks is not None:
        for t in tasks(scope, TaskQuery(statuses=OPEN_TASKS), limit=_ALL):
            for m in t.inputs:
                named.setdefault(m, f"the open agenda: {t.status} task {t.id} takes it as an input")
    held: dict[str, str] = {}
    for claim, why in sorted(named.items()):
        if claim in current:
            held.setdefault(claim, why)
            continue
        for v in versions(claim, lambda i: store.edges(scope, i, include_closed=True)):
            if v in current:
                held.setdefault(v, f"{why} (a revision of {claim})")
    return held
