"""One function per intent / task tool: checked arguments in, a ``mem.intents`` / ``mem.tasks`` call, JSON out.

Results carry caller-written text (labels, actions, reasons), so each is marked as stored data.
"""

from __future__ import annotations

from collections.abc import Callable, Mapping
from typing import Any

from reverie import Memory
from reverie.mcp.serialize import marked

Handler = Callable[[Memory, dict[str, Any]], dict[str, Any]]


def _pick(args: Mapping[str, Any], *names: str) -> dict[str, Any]:
    return {n: args[n] for n in names if args.get(n) is not None}


def intent_create(mem: Memory, a: dict[str, Any]) -> dict[str, Any]:
    made = mem.intents.create(
        a["label"], scope=a["scope"], **_pick(a, "owner", "priority", "parent", "memory_ids", "reason")
    )
    return marked({"intent": made})


def intent_move(mem: Memory, a: dict[str, Any]) -> dict[str, Any]:
    moved = mem.intents.transition(a["id"], a["move"], scope=a["scope"], **_pick(a, "reason", "expected_version"))
    return marked({"intent": moved})


def intent_list(mem: Memory, a: dict[str, Any]) -> dict[str, Any]:
    found = mem.intents.list(
        scope=a["scope"], **_pick(a, "status", "owner", "parent", "memory", "min_priority", "limit")
    )
    return marked({"count": len(found), "intents": found})


def intent_get(mem: Memory, a: dict[str, Any]) -> dict[str, Any]:
    it = mem.intents.get(a["id"], scope=a["scope"])
    return marked(
        {
            "intent": it,
            "children": mem.intents.children(it, scope=a["scope"]),
            "tasks": mem.tasks.list(scope=a["scope"], intent=it.id, limit=mem.limits.max_k),
            "history": mem.intents.history(it, scope=a["scope"]),
        }
    )


def intent_suggest(mem: Memory, a: dict[str, Any]) -> dict[str, Any]:
    found = mem.intents.suggest(scope=a["scope"], **_pick(a, "k"))
    return marked({"count": len(found), "suggestions": [s.to_dict() for s in found]})


def task_create(mem: Memory, a: dict[str, Any]) -> dict[str, Any]:
    made = mem.tasks.create(a["action"], scope=a["scope"], **_pick(a, "intent", "agent", "inputs", "parent"))
    return marked({"task": made})


def task_move(mem: Memory, a: dict[str, Any]) -> dict[str, Any]:
    moved = mem.tasks.transition(
        a["id"], a["move"], scope=a["scope"], **_pick(a, "reason", "outputs", "expected_version")
    )
    return marked({"task": moved})


def task_list(mem: Memory, a: dict[str, Any]) -> dict[str, Any]:
    fields = _pick(a, "intent", "agent", "status", "parent", "memory", "failed", "limit")
    found = mem.tasks.list(scope=a["scope"], **fields)
    return marked({"count": len(found), "tasks": found})


def task_get(mem: Memory, a: dict[str, Any]) -> dict[str, Any]:
    t = mem.tasks.get(a["id"], scope=a["scope"])
    return marked(
        {
            "task": t,
            "subtasks": mem.tasks.subtasks(t, scope=a["scope"]),
            "history": mem.tasks.history(t, scope=a["scope"]),
        }
    )


AGENDA_HANDLERS: Mapping[str, Handler] = {
    "intent_create": intent_create,
    "intent_move": intent_move,
    "intent_list": intent_list,
    "intent_get": intent_get,
    "intent_suggest": intent_suggest,
    "task_create": task_create,
    "task_move": task_move,
    "task_list": task_list,
    "task_get": task_get,
}
