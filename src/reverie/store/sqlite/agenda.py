"""SQLite side of intents and tasks: their tables, projection writes and reads (``model/agenda.py``).

Kept in one module with its own schema step (``AGENDA_SCHEMA``, settings key ``agenda_schema``)
so another backend can port it as a unit. A row keeps the record as the JSON its last event
carried, so a row and a replay can never disagree on a field; only what lists filter or sort on
(status, owner, parent, priority, intent, agent) has its own column.
"""

from __future__ import annotations

import json
import sqlite3
from collections.abc import Callable
from typing import Any

from reverie.model.agenda import (
    Intent,
    IntentQuery,
    PutIntent,
    PutTask,
    Task,
    TaskQuery,
    agenda_problems,
)

Exec = Callable[..., sqlite3.Cursor]

#: The agenda tables' own version, apart from the belief store's ``SCHEMA_VERSION``.
AGENDA_SCHEMA = 1
#: Projection tables a rebuild empties and refills from the log.
AGENDA_TABLES = ("intents", "tasks")

_V1 = [
    """CREATE TABLE IF NOT EXISTS intents (
        scope TEXT NOT NULL, id TEXT NOT NULL, status TEXT NOT NULL, owner TEXT, parent TEXT,
        priority REAL NOT NULL, record TEXT NOT NULL,
        PRIMARY KEY (scope, id)
    ) WITHOUT ROWID""",
    # Each list filter has an index ending in the list's order, so no filter scans the scope.
    "CREATE INDEX IF NOT EXISTS intents_by_status ON intents(scope, status, priority DESC, id)",
    "CREATE INDEX IF NOT EXISTS intents_by_owner ON intents(scope, owner, priority DESC, id)",
    "CREATE INDEX IF NOT EXISTS intents_by_parent ON intents(scope, parent, priority DESC, id)",
    """CREATE TABLE IF NOT EXISTS tasks (
        scope TEXT NOT NULL, id TEXT NOT NULL, status TEXT NOT NULL, intent TEXT, agent TEXT,
        parent TEXT, record TEXT NOT NULL,
        PRIMARY KEY (scope, id)
    ) WITHOUT ROWID""",
    "CREATE INDEX IF NOT EXISTS tasks_by_intent ON tasks(scope, intent, id)",
    "CREATE INDEX IF NOT EXISTS tasks_by_status ON tasks(scope, status, id)",
    "CREATE INDEX IF NOT EXISTS tasks_by_agent ON tasks(scope, agent, id)",
    "CREATE INDEX IF NOT EXISTS tasks_by_parent ON tasks(scope, parent, id)",
]


def migrate(conn: sqlite3.Connection) -> None:
    """The agenda tables, in their own step: a file of any earlier version gains them in place."""
    row = conn.execute("SELECT v FROM settings WHERE k = 'agenda_schema'").fetchone()
    if (int(row[0]) if row else 0) < 1:
        for stmt in _V1:
            conn.execute(stmt)
    conn.execute("INSERT OR REPLACE INTO settings VALUES ('agenda_schema', ?)", (str(AGENDA_SCHEMA),))


def _dump(value: object) -> str:
    return json.dumps(value, ensure_ascii=False, sort_keys=True)


def put_intent(x: Exec, change: PutIntent) -> None:
    it = change.intent
    x(
        "INSERT OR REPLACE INTO intents VALUES (?, ?, ?, ?, ?, ?, ?)",
        (it.scope, it.id, it.status, it.owner, it.parent, it.priority, _dump(it.to_dict())),
    )


def put_task(x: Exec, change: PutTask) -> None:
    t = change.task
    x(
        "INSERT OR REPLACE INTO tasks VALUES (?, ?, ?, ?, ?, ?, ?)",
        (t.scope, t.id, t.status, t.intent, t.agent, t.parent, _dump(t.to_dict())),
    )


def intent(c: sqlite3.Connection, scope: str, intent_id: str) -> Intent | None:
    row = c.execute("SELECT record FROM intents WHERE scope = ? AND id = ?", (scope, intent_id)).fetchone()
    return Intent.from_dict(json.loads(row[0])) if row else None


def task(c: sqlite3.Connection, scope: str, task_id: str) -> Task | None:
    row = c.execute("SELECT record FROM tasks WHERE scope = ? AND id = ?", (scope, task_id)).fetchone()
    return Task.from_dict(json.loads(row[0])) if row else None


def _in(column: str, values: tuple[str, ...], where: list[str], params: list[Any]) -> None:
    if values:
        where.append(f"{column} IN ({', '.join('?' * len(values))})")
        params.extend(values)


def _eq(column: str, value: str | None, where: list[str], params: list[Any]) -> None:
    if value is not None:
        where.append(f"{column} = ?")
        params.append(value)


def _index(table: str, **filters: object) -> str:
    """``INDEXED BY`` the index of the first given filter (a status list only if it names one status).

    Why force it: without ``ANALYZE`` statistics SQLite 3.40 scans the scope's primary key for
    ``tasks WHERE intent = ?`` (the key already gives the order), reading every task of the scope;
    each of these indexes holds the filter and the order, so the plan stays one seek at any size.
    """
    for column, value in filters.items():
        given = len(value) == 1 if isinstance(value, tuple) else value is not None
        if given:
            return f" INDEXED BY {table}_by_{column}"
    return ""


def intents(c: sqlite3.Connection, scope: str, q: IntentQuery, limit: int) -> list[Intent]:
    """``IntentQuery`` compiled to SQL: the same rows and order as ``IntentQuery.matches`` and
    ``intent_sort_key`` give the reference store."""
    where: list[str] = ["scope = ?"]
    params: list[Any] = [scope]
    _in("status", q.statuses, where, params)
    _eq("owner", q.owner, where, params)
    _eq("parent", q.parent, where, params)
    if q.memory is not None:
        where.append("EXISTS (SELECT 1 FROM json_each(record, '$.memory_ids') WHERE value = ?)")
        params.append(q.memory)
    if q.min_priority is not None:
        where.append("priority >= ?")
        params.append(q.min_priority)
    index = _index("intents", parent=q.parent, owner=q.owner, status=q.statuses)
    sql = f"SELECT record FROM intents{index} WHERE " + " AND ".join(where) + " ORDER BY priority DESC, id LIMIT ?"  # nosec B608 # constant columns and index names, ? marks
    return [Intent.from_dict(json.loads(r[0])) for r in c.execute(sql, (*params, limit))]


def tasks(c: sqlite3.Connection, scope: str, q: TaskQuery, limit: int) -> list[Task]:
    """``TaskQuery`` compiled to SQL, in creation order (by id)."""
    where: list[str] = ["scope = ?"]
    params: list[Any] = [scope]
    _in("status", q.statuses, where, params)
    _eq("intent", q.intent, where, params)
    _eq("agent", q.agent, where, params)
    _eq("parent", q.parent, where, params)
    if q.memory is not None:
        where.append(
            "(EXISTS (SELECT 1 FROM json_each(record, '$.inputs') WHERE value = ?) "
            "OR EXISTS (SELECT 1 FROM json_each(record, '$.outputs') WHERE value = ?))"
        )
        params += [q.memory, q.memory]
    if q.failed:
        where.append("json_array_length(record, '$.failures') > 0")
    index = _index("tasks", intent=q.intent, parent=q.parent, agent=q.agent, status=q.statuses)
    sql = f"SELECT record FROM tasks{index} WHERE " + " AND ".join(where) + " ORDER BY id LIMIT ?"  # nosec B608 # constant columns and index names, ? marks
    return [Task.from_dict(json.loads(r[0])) for r in c.execute(sql, (*params, limit))]


def check(c: sqlite3.Connection) -> tuple[list[str], dict[str, int]]:
    """``doctor``'s view of the agenda: rows that disagree with the log, and how many there are.

    A row is read as lists see it: its columns over its record, so a damaged column (which lists
    filter on) is caught as surely as a damaged record.
    """
    rows = c.execute(
        "SELECT type, payload FROM events WHERE type LIKE 'intent.%' OR type LIKE 'task.%' ORDER BY seq"
    ).fetchall()
    events = ((str(r[0]), json.loads(r[1])) for r in rows)
    have_i = {(i.scope, i.id): i for i in map(_intent_row, c.execute(_INTENT_ROWS))}
    have_t = {(t.scope, t.id): t for t in map(_task_row, c.execute(_TASK_ROWS))}
    return agenda_problems(events, have_i, have_t), {"intents": len(have_i), "tasks": len(have_t)}


_INTENT_ROWS = "SELECT scope, id, status, owner, parent, priority, record FROM intents"
_TASK_ROWS = "SELECT scope, id, status, intent, agent, parent, record FROM tasks"


def _intent_row(row: tuple[Any, ...]) -> Intent:
    rec = json.loads(row[6])
    keys = ("scope", "id", "status", "owner", "parent", "priority")
    return Intent.from_dict({**rec, **dict(zip(keys, row[:6], strict=True))})


def _task_row(row: tuple[Any, ...]) -> Task:
    rec = json.loads(row[6])
    keys = ("scope", "id", "status", "intent", "agent", "parent")
    return Task.from_dict({**rec, **dict(zip(keys, row[:6], strict=True))})
