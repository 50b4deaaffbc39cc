"""PostgreSQL side of intents and tasks: projection writes, reads and doctor's check.

The twin of ``store/sqlite/agenda.py`` (its tables are schema 2 in ``schema.py``): a row keeps
the record as the JSON its last event carried, so a row and a replay cannot disagree on a field;
only what lists filter or sort on (status, owner, parent, priority, intent, agent) has a column.
Lists answer with the same rows in the same order as ``IntentQuery.matches`` /
``intent_sort_key`` give the reference store (ids compare bytewise: ``COLLATE "C"``).
"""

from __future__ import annotations

import json
from collections.abc import Callable, Sequence
from typing import Any

from reverie.model.agenda import Intent, IntentQuery, PutIntent, PutTask, Task, TaskQuery, agenda_problems

Query = Callable[[str, Sequence[Any]], list[tuple[Any, ...]]]


def _dump(value: object) -> str:
    return json.dumps(value, ensure_ascii=False, sort_keys=True)


def put_intent(w: Any, change: PutIntent, _vectors: Any) -> None:
    it = change.intent
    w.x(
        "INSERT INTO intents (scope, id, status, owner, parent, priority, record) VALUES (%s, %s, %s, %s, %s, %s, %s) "
        "ON CONFLICT (scope, id) DO UPDATE SET status = excluded.status, owner = excluded.owner, "
        "parent = excluded.parent, priority = excluded.priority, record = excluded.record",
        (it.scope, it.id, it.status, it.owner, it.parent, it.priority, _dump(it.to_dict())),
    )


def put_task(w: Any, change: PutTask, _vectors: Any) -> None:
    t = change.task
    w.x(
        "INSERT INTO tasks (scope, id, status, intent, agent, parent, record) VALUES (%s, %s, %s, %s, %s, %s, %s) "
        "ON CONFLICT (scope, id) DO UPDATE SET status = excluded.status, intent = excluded.intent, "
        "agent = excluded.agent, parent = excluded.parent, record = excluded.record",
        (t.scope, t.id, t.status, t.intent, t.agent, t.parent, _dump(t.to_dict())),
    )


def intent(q: Query, scope: str, intent_id: str) -> Intent | None:
    rows = q("SELECT record FROM intents WHERE scope = %s AND id = %s", (scope, intent_id))
    return Intent.from_dict(json.loads(rows[0][0])) if rows else None


def task(q: Query, scope: str, task_id: str) -> Task | None:
    rows = q("SELECT record FROM tasks WHERE scope = %s AND id = %s", (scope, task_id))
    return Task.from_dict(json.loads(rows[0][0])) if rows else None


def _in(column: str, values: tuple[str, ...], where: list[str], params: list[Any]) -> None:
    if values:
        where.append(f"{column} = ANY (%s)")
        params.append(list(values))


def _eq(column: str, value: str | None, where: list[str], params: list[Any]) -> None:
    if value is not None:
        where.append(f"{column} = %s")
        params.append(value)


def _has(path: str) -> str:
    """A JSON list in the record holds the parameter (a string element, compared exactly)."""
    return f"(record::jsonb -> '{path}') ? %s"


def intents(q: Query, scope: str, where_: IntentQuery, limit: int) -> list[Intent]:
    """``IntentQuery`` compiled to SQL: highest priority first, ties by id."""
    where: list[str] = ["scope = %s"]
    params: list[Any] = [scope]
    _in("status", where_.statuses, where, params)
    _eq("owner", where_.owner, where, params)
    _eq("parent", where_.parent, where, params)
    if where_.memory is not None:
        where.append(_has("memory_ids"))
        params.append(where_.memory)
    if where_.min_priority is not None:
        where.append("priority >= %s")
        params.append(where_.min_priority)
    sql = "SELECT record FROM intents WHERE " + " AND ".join(where) + " ORDER BY priority DESC, id LIMIT %s"  # nosec B608 # constant columns, %s marks
    return [Intent.from_dict(json.loads(r[0])) for r in q(sql, (*params, max(limit, 0)))]


def tasks(q: Query, scope: str, where_: TaskQuery, limit: int) -> list[Task]:
    """``TaskQuery`` compiled to SQL, in creation order (by id)."""
    where: list[str] = ["scope = %s"]
    params: list[Any] = [scope]
    _in("status", where_.statuses, where, params)
    _eq("intent", where_.intent, where, params)
    _eq("agent", where_.agent, where, params)
    _eq("parent", where_.parent, where, params)
    if where_.memory is not None:
        where.append(f"({_has('inputs')} OR {_has('outputs')})")
        params += [where_.memory, where_.memory]
    if where_.failed:
        where.append("jsonb_array_length(record::jsonb -> 'failures') > 0")
    sql = "SELECT record FROM tasks WHERE " + " AND ".join(where) + " ORDER BY id LIMIT %s"  # nosec B608 # constant columns, %s marks
    return [Task.from_dict(json.loads(r[0])) for r in q(sql, (*params, max(limit, 0)))]


_INTENT_ROWS = "SELECT scope, id, status, owner, parent, priority, record FROM intents WHERE scope = %s"
_TASK_ROWS = "SELECT scope, id, status, intent, agent, parent, record FROM tasks WHERE scope = %s"


def check(q: Query, scopes: Sequence[str]) -> tuple[list[str], dict[str, int]]:
    """``doctor``'s view of the agenda: rows that disagree with the log, and how many there are.

    A row is read as lists see it (its columns over its record), so a damaged column is caught
    as surely as a damaged record. Scope by scope, as every statement here names its scope.
    """
    events: list[tuple[str, Any]] = []
    have_i: dict[tuple[str, str], Intent] = {}
    have_t: dict[tuple[str, str], Task] = {}
    for scope in scopes:
        rows = q(
            "SELECT type, payload FROM events WHERE scope = %s AND (type LIKE 'intent.%%' OR type LIKE 'task.%%') "
            "ORDER BY seq",
            (scope,),
        )
        events += [(str(r[0]), json.loads(r[1])) for r in rows]
        have_i.update({(i.scope, i.id): i for i in map(_intent_row, q(_INTENT_ROWS, (scope,)))})
        have_t.update({(t.scope, t.id): t for t in map(_task_row, q(_TASK_ROWS, (scope,)))})
    return agenda_problems(events, have_i, have_t), {"intents": len(have_i), "tasks": len(have_t)}


def _intent_row(row: tuple[Any, ...]) -> Intent:
    rec = json.loads(row[6])
    keys = ("scope", "id", "status", "owner", "parent", "priority")
    return Intent.from_dict({**rec, **dict(zip(keys, row[:6], strict=True))})


def _task_row(row: tuple[Any, ...]) -> Task:
    rec = json.loads(row[6])
    keys = ("scope", "id", "status", "intent", "agent", "parent")
    return Task.from_dict({**rec, **dict(zip(keys, row[:6], strict=True))})
