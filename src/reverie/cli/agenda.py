"""``reverie intent …`` and ``reverie task …``: intents and tasks from the command line.

Each subcommand is one ``mem.intents`` / ``mem.tasks`` call; the CLI adds no rule of its own, so
what the API refuses (an invalid move, an intent of another scope) the CLI refuses with the same
code and message, in the one error shape.
"""

from __future__ import annotations

from collections.abc import Sequence
from typing import Any

import click

from reverie.cli.parse import FLOAT
from reverie.cli.render import clean, fields, score, table, when
from reverie.cli.state import json_option, scoped, state

_INTENT_MOVES = {
    "pause": "active → paused",
    "resume": "paused → active",
    "complete": "active or paused → completed (final)",
    "cancel": "active or paused → cancelled (final)",
}
_TASK_MOVES = {"start": "pending → running", "retry": "failed → running (a new attempt)"}


def _intent_text(it: Any) -> str:
    return fields(
        [
            ("id", it.id),
            ("label", clean(it.label)),
            ("status", it.status),
            ("owner", clean(it.owner or "-")),
            ("priority", score(it.priority)),
            ("parent", it.parent or "-"),
            ("memories", ", ".join(it.memory_ids) or "-"),
            ("reason", clean(it.reason or "-")),
            ("updated", when(it.updated_at)),
        ]
    )


def _task_text(t: Any) -> str:
    failures = "; ".join(f"attempt {f.attempt}: {clean(f.reason)}" for f in t.failures) or "-"
    return fields(
        [
            ("id", t.id),
            ("action", clean(t.action)),
            ("status", t.status),
            ("intent", t.intent or "-"),
            ("agent", clean(t.agent or "-")),
            ("parent", t.parent or "-"),
            ("inputs", ", ".join(t.inputs) or "-"),
            ("outputs", ", ".join(t.outputs) or "-"),
            ("attempts", t.attempts),
            ("failures", failures),
            ("updated", when(t.updated_at)),
        ]
    )


def _intent_table(found: Sequence[Any]) -> str:
    if not found:
        return "no intents match"
    rows = [[i.id, i.status, score(i.priority), clean(i.owner or "-"), clean(i.label)] for i in found]
    return table(["ID", "STATUS", "PRIORITY", "OWNER", "LABEL"], rows)


def _task_table(found: Sequence[Any]) -> str:
    if not found:
        return "no tasks match"
    rows = [[t.id, t.status, t.attempts, clean(t.agent or "-"), clean(t.action)] for t in found]
    return table(["ID", "STATUS", "ATTEMPTS", "AGENT", "ACTION"], rows)


def _emit_intent(action: str, it: Any) -> None:
    state().emit({"action": action, "intent": it.to_dict()}, lambda: f"{action} intent {it.id} ({it.status})")


def _emit_task(action: str, t: Any) -> None:
    state().emit({"action": action, "task": t.to_dict()}, lambda: f"{action} task {t.id} ({t.status})")


# -- reverie intent -------------------------------------------------------------------------------
@click.group()
def intent() -> None:
    """Intents: what is wanted (create, list, show, pause, resume, complete, cancel, suggest)."""


@intent.command("create")
@click.argument("label")
@click.option("--owner", help="Who pursues it.")
@click.option("--priority", type=FLOAT, default=0.5, show_default=True, help="In [0, 1]; higher first.")
@click.option("--parent", metavar="ID", help="Make it a sub-intent of this intent.")
@click.option("--memory", "memories", multiple=True, metavar="ID", help="A claim it is about (repeatable).")
@click.option("--reason", default="", help="Why (kept in its history).")
@scoped
@json_option
def intent_create(
    label: str, owner: str | None, priority: float, parent: str | None, memories: tuple[str, ...], reason: str
) -> None:
    """Create an active intent."""
    st = state()
    made = st.memory().intents.create(
        label,
        scope=st.require_scope(),
        owner=owner,
        priority=priority,
        parent=parent,
        memory_ids=memories,
        reason=reason,
    )
    _emit_intent("created", made)


def _intent_move(move: str, summary: str) -> click.Command:
    @click.argument("id")
    @click.option("--reason", default="", help="Why (kept in its history).")
    @click.option("--expected-version", type=int, help="Refuse (version_conflict) unless it is at this version.")
    @scoped
    @json_option
    def run(id: str, reason: str, expected_version: int | None) -> None:
        st = state()
        moved = st.memory().intents.transition(
            id, move, scope=st.require_scope(), reason=reason, expected_version=expected_version
        )
        _emit_intent(moved.status, moved)

    run.__doc__ = f"{move.capitalize()} an intent: {summary}."
    return click.command(move)(run)


for _move, _summary in _INTENT_MOVES.items():
    intent.add_command(_intent_move(_move, _summary))


@intent.command("list")
@click.option("--status", "statuses", multiple=True, help="active, paused, completed or cancelled (repeatable).")
@click.option("--owner", help="Only this owner's.")
@click.option("--parent", metavar="ID", help="Only sub-intents of this intent.")
@click.option("--memory", metavar="ID", help="Only intents about this claim.")
@click.option("--min-priority", type=FLOAT, help="Only intents with priority >= this.")
@click.option("--limit", type=int, help="At most this many (default 100).")
@scoped
@json_option
def intent_list(
    statuses: tuple[str, ...],
    owner: str | None,
    parent: str | None,
    memory: str | None,
    min_priority: float | None,
    limit: int | None,
) -> None:
    """List intents, highest priority first."""
    st = state()
    found = st.memory().intents.list(
        scope=st.require_scope(),
        status=list(statuses) or None,
        owner=owner,
        parent=parent,
        memory=memory,
        min_priority=min_priority,
        limit=limit,
    )
    st.emit({"intents": [i.to_dict() for i in found]}, lambda: _intent_table(found))


@intent.command("show")
@click.argument("id")
@scoped
@json_option
def intent_show(id: str) -> None:
    """One intent, its sub-intents, its tasks and its history."""
    st = state()
    mem, scope = st.memory(), st.require_scope()
    it = mem.intents.get(id, scope=scope)
    children = mem.intents.children(it, scope=scope)
    tasks = mem.tasks.list(scope=scope, intent=it.id, limit=mem.limits.max_k)
    history = mem.intents.history(it, scope=scope)
    doc = {
        "intent": it.to_dict(),
        "children": [c.to_dict() for c in children],
        "tasks": [t.to_dict() for t in tasks],
        "history": [e.to_dict() for e in history],
    }

    def human() -> str:
        out = _intent_text(it)
        if children:
            out += "\n\nsub-intents\n" + _intent_table(children)
        if tasks:
            out += "\n\ntasks\n" + _task_table(tasks)
        return out + "\n\nhistory\n" + "\n".join(f"  {when(e.at)}  {e.type}" for e in history)

    st.emit(doc, human)


@intent.command("suggest")
@click.option("--k", type=int, help="At most this many (default 10).")
@click.option("--accept", is_flag=True, help="Create every suggested intent shown.")
@click.option("--owner", help="Owner of the intents --accept creates.")
@scoped
@json_option
def intent_suggest(k: int | None, accept: bool, owner: str | None) -> None:
    """Important-but-uncertain claims as suggested intents (nothing is written without --accept)."""
    st = state()
    mem = st.memory()
    found = mem.intents.suggest(scope=st.require_scope(), k=k)
    made = [mem.intents.accept(s, owner=owner) for s in found] if accept else []
    doc = {"suggestions": [s.to_dict() for s in found], "created": [i.to_dict() for i in made]}

    def human() -> str:
        if not found:
            return "nothing to suggest: no important claim is uncertain"
        rows = [[score(s.priority), s.memory_ids[0], clean(s.item.text)] for s in found]
        out = table(["PRIORITY", "CLAIM", "TEXT"], rows)
        return out + (f"\n\ncreated {len(made)} intents" if accept else "\n\n(--accept creates them)")

    st.emit(doc, human)


# -- reverie task ---------------------------------------------------------------------------------
@click.group()
def task() -> None:
    """Tasks: what is done (create, list, show, start, complete, fail, retry)."""


@task.command("create")
@click.argument("action")
@click.option("--intent", "intent_id", metavar="ID", help="The intent it serves (of the same scope).")
@click.option("--agent", help="Who does it.")
@click.option("--input", "inputs", multiple=True, metavar="ID", help="A claim it works from (repeatable).")
@click.option("--parent", metavar="ID", help="Make it a subtask of this task.")
@scoped
@json_option
def task_create(
    action: str, intent_id: str | None, agent: str | None, inputs: tuple[str, ...], parent: str | None
) -> None:
    """Create a pending task."""
    st = state()
    made = st.memory().tasks.create(
        action, scope=st.require_scope(), intent=intent_id, agent=agent, inputs=inputs, parent=parent
    )
    _emit_task("created", made)


def _task_move(move: str, summary: str) -> click.Command:
    @click.argument("id")
    @click.option("--reason", default="", help="Why (kept in its history).")
    @click.option("--expected-version", type=int, help="Refuse (version_conflict) unless it is at this version.")
    @scoped
    @json_option
    def run(id: str, reason: str, expected_version: int | None) -> None:
        st = state()
        moved = st.memory().tasks.transition(
            id, move, scope=st.require_scope(), reason=reason, expected_version=expected_version
        )
        _emit_task("started" if move == "start" else "retried", moved)

    run.__doc__ = f"{move.capitalize()} a task: {summary}."
    return click.command(move)(run)


for _move, _summary in _TASK_MOVES.items():
    task.add_command(_task_move(_move, _summary))


@task.command("complete")
@click.argument("id")
@click.option("--output", "outputs", multiple=True, metavar="ID", help="A claim it produced (repeatable).")
@click.option("--reason", default="", help="Why (kept in its history).")
@click.option("--expected-version", type=int, help="Refuse (version_conflict) unless it is at this version.")
@scoped
@json_option
def task_complete(id: str, outputs: tuple[str, ...], reason: str, expected_version: int | None) -> None:
    """Complete a running task: running → completed, with its outputs."""
    st = state()
    done = st.memory().tasks.complete(
        id, scope=st.require_scope(), outputs=outputs, reason=reason, expected_version=expected_version
    )
    _emit_task("completed", done)


@task.command("fail")
@click.argument("id")
@click.option("--reason", required=True, help="What went wrong (kept for the next attempt or agent).")
@click.option("--expected-version", type=int, help="Refuse (version_conflict) unless it is at this version.")
@scoped
@json_option
def task_fail(id: str, reason: str, expected_version: int | None) -> None:
    """Fail a running task: running → failed; the reason stays on record."""
    st = state()
    _emit_task(
        "failed", st.memory().tasks.fail(id, reason, scope=st.require_scope(), expected_version=expected_version)
    )


@task.command("list")
@click.option("--intent", "intent_id", metavar="ID", help="Only tasks of this intent.")
@click.option("--agent", help="Only this agent's.")
@click.option("--status", "statuses", multiple=True, help="pending, running, completed or failed (repeatable).")
@click.option("--parent", metavar="ID", help="Only subtasks of this task.")
@click.option("--memory", metavar="ID", help="Only tasks that took or produced this claim.")
@click.option("--failed", is_flag=True, help="Only tasks with a failed attempt on record.")
@click.option("--limit", type=int, help="At most this many (default 100).")
@scoped
@json_option
def task_list(
    intent_id: str | None,
    agent: str | None,
    statuses: tuple[str, ...],
    parent: str | None,
    memory: str | None,
    failed: bool,
    limit: int | None,
) -> None:
    """List tasks, oldest first."""
    st = state()
    found = st.memory().tasks.list(
        scope=st.require_scope(),
        intent=intent_id,
        agent=agent,
        status=list(statuses) or None,
        parent=parent,
        memory=memory,
        failed=failed,
        limit=limit,
    )
    st.emit({"tasks": [t.to_dict() for t in found]}, lambda: _task_table(found))


@task.command("show")
@click.argument("id")
@scoped
@json_option
def task_show(id: str) -> None:
    """One task, its subtasks and its history (every attempt and failure)."""
    st = state()
    mem, scope = st.memory(), st.require_scope()
    t = mem.tasks.get(id, scope=scope)
    subs = mem.tasks.subtasks(t, scope=scope)
    history = mem.tasks.history(t, scope=scope)
    doc = {"task": t.to_dict(), "subtasks": [s.to_dict() for s in subs], "history": [e.to_dict() for e in history]}

    def human() -> str:
        out = _task_text(t)
        if subs:
            out += "\n\nsubtasks\n" + _task_table(subs)
        return out + "\n\nhistory\n" + "\n".join(f"  {when(e.at)}  {e.type}" for e in history)

    st.emit(doc, human)


COMMANDS = (intent, task)
