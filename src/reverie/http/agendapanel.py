"""The review page's view of intents and tasks: a scope's open ones, and what produced an item.

Read-only, through ``mem.intents`` / ``mem.tasks`` only. Everything shown is caller-written text
(labels, actions, failure reasons), so every value goes through ``render.fmt`` (escaped). A
scope with no intents and no tasks shows nothing, so the page stays as it was for memories that
do not use them.
"""

from __future__ import annotations

from collections.abc import Sequence
from datetime import datetime

from reverie.errors import ReverieError
from reverie.http import humane as h
from reverie.http import render as r
from reverie.memory import Memory
from reverie.model.agenda import INTENT_META, TASK_META, Intent, Task

#: Most open intents and tasks the scope page lists (each list says when there are more).
PANEL_ROWS = 50


def panel(mem: Memory, scope: str, now: datetime) -> r.Safe:
    """The section of the scope page: open intents (active, paused) and open tasks (not completed).

    A page served as a principal shows the same records, without the claims it may not see
    (``store.visible.VisibleStore`` conceals them; nothing here re-derives them).
    """
    rows = min(PANEL_ROWS, mem.limits.max_k)
    intents = mem.intents.list(scope=scope, status=["active", "paused"], limit=rows)
    tasks = mem.tasks.list(scope=scope, status=["pending", "running", "failed"], limit=rows)
    if not intents and not tasks:
        return r.EMPTY
    return r.fmt(
        '<section class="agenda"><h3>Open intents ({ni})</h3>{it}<h3>Open tasks ({nt})</h3>{tt}</section>',
        ni=_count(intents, rows),
        it=_intent_table(intents, now),
        nt=_count(tasks, rows),
        tt=_task_table(tasks, now),
    )


def _count(rows: Sequence[object], cap: int) -> str:
    return f"{cap}+" if len(rows) >= cap else str(len(rows))


def _intent_table(intents: Sequence[Intent], now: datetime) -> r.Safe:
    if not intents:
        return r.Safe('<p class="empty">No open intents.</p>')
    body = r.join(
        r.fmt(
            '<tr class="intent {status}" data-id="{id}"><td data-label="intent">{label}</td>'
            '<td data-label="status">{status}</td><td data-label="priority">{p}</td>'
            '<td data-label="owner">{owner}</td><td data-label="updated">{at}</td></tr>',
            id=i.id,
            label=i.label,
            status=i.status,
            p=f"{i.priority:.2f}",
            owner=i.owner or "—",
            at=h.time(i.updated_at, now),
        )
        for i in intents
    )
    return r.fmt(
        '<table class="edges intents"><thead><tr><th>intent</th><th>status</th><th>priority</th><th>owner</th>'
        "<th>updated</th></tr></thead><tbody>{body}</tbody></table>",
        body=body,
    )


def _task_table(tasks: Sequence[Task], now: datetime) -> r.Safe:
    if not tasks:
        return r.Safe('<p class="empty">No open tasks.</p>')
    body = r.join(
        r.fmt(
            '<tr class="task {status}" data-id="{id}"><td data-label="task">{action}</td>'
            '<td data-label="status">{status}</td><td data-label="attempts">{n}</td>'
            '<td data-label="agent">{agent}</td><td data-label="last failure">{failure}</td></tr>',
            id=t.id,
            action=t.action,
            status=t.status,
            n=t.attempts,
            agent=t.agent or "—",
            failure=t.failures[-1].reason if t.failures else "—",
        )
        for t in tasks
    )
    return r.fmt(
        '<table class="edges tasks"><thead><tr><th>task</th><th>status</th><th>attempts</th><th>agent</th>'
        "<th>last failure</th></tr></thead><tbody>{body}</tbody></table>",
        body=body,
    )


def produced_by(mem: Memory, scope: str, meta: dict[str, object], item_id: str) -> r.Safe:
    """On an item's page: the task it was written in (``meta.task_id``) or that lists it as an
    output, and that task's intent. Nothing when no task is linked to it.
    """
    tasks: dict[str, Task] = {}
    task_id = meta.get(TASK_META)
    if isinstance(task_id, str):
        tasks.update({t.id: t for t in _task(mem, scope, task_id)})
    for t in mem.tasks.list(scope=scope, memory=item_id, limit=min(PANEL_ROWS, mem.limits.max_k)):
        if item_id in t.outputs:
            tasks.setdefault(t.id, t)
    intent_ids = {t.intent for t in tasks.values() if t.intent}
    written_for = meta.get(INTENT_META)
    if isinstance(written_for, str):
        intent_ids.add(written_for)
    intents = [i for iid in sorted(intent_ids) for i in _intent(mem, scope, iid)]
    if not tasks and not intents:
        return r.EMPTY
    task_rows = r.join(
        r.fmt(
            '<li class="task" data-id="{id}">task <strong>{action}</strong> '
            "<small>({status}, attempt {n})</small></li>",
            id=t.id,
            action=t.action,
            status=t.status,
            n=max(1, t.attempts),
        )
        for t in tasks.values()
    )
    intent_rows = r.join(
        r.fmt(
            '<li class="intent" data-id="{id}">intent <strong>{label}</strong> <small>({status})</small></li>',
            id=i.id,
            label=i.label,
            status=i.status,
        )
        for i in intents
    )
    return r.fmt('<section class="produced"><h3>Produced by</h3><ul>{t}{i}</ul></section>', t=task_rows, i=intent_rows)


def _task(mem: Memory, scope: str, task_id: str) -> list[Task]:
    """The task, or nothing if the id names none in this scope (a claim's meta is caller data)."""
    try:
        return [mem.tasks.get(task_id, scope=scope)]
    except ReverieError:
        return []


def _intent(mem: Memory, scope: str, intent_id: str) -> list[Intent]:
    try:
        return [mem.intents.get(intent_id, scope=scope)]
    except ReverieError:
        return []
