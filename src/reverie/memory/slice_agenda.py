"""Intents and tasks in slices: which records an export carries, and how an import replays them.

Which records (decided for issue #18): with ``memory_ids`` named, the intents linked to an
exported claim and the tasks that took or produced one; with none named (the whole scope), every
open intent (active, paused) and open task (pending, running, failed). Then, to a fixpoint of
what a record needs to make sense: their sub-intents and subtasks (whatever their status), the
tasks serving an exported intent, each task's intent (a task always travels with its intent),
and every ancestor (a parent is needed to replay a child; an ancestor's other children are not).
A memory id outside the slice is written as its claim's origin id, so the store it came from
(the sandbox pattern) recognises it.

Import replays every record through the status machine (``model/agenda_rules.py``) inside the
import's one transaction: every record is created first (parents first, intents before tasks,
so a sub-intent or task is never added under a record already final), then the tasks' moves,
then the intents'. A record this scope already holds (same origin) is skipped when it has the
slice's moves, *advanced* by the moves it lacks when the slice continues it (a sandboxed task
coming home completed), and otherwise a conflict, decided by ``on_conflict`` as for claims.
"""

from __future__ import annotations

from collections.abc import Callable, Iterable, Mapping, Sequence
from dataclasses import dataclass, field
from typing import Any

from reverie.errors import ReverieError, SliceConflictError
from reverie.memory.agenda_common import AgendaStore, agenda_store
from reverie.model import agenda as ag
from reverie.model.events import Event
from reverie.model.item import Item
from reverie.slice.agenda import SliceIntent, SliceMove, SliceTask
from reverie.slice.format import ORIGIN_META, Slice
from reverie.slice.report import SliceReport
from reverie.store.protocol import Batch, Store

#: The most intents (and, apart, tasks) one scope's slice reads: a bound, like every input's.
MAX_RECORDS = 100_000
_MOVE_OF = {event: move for table in (ag.INTENT_MOVES, ag.TASK_MOVES) for move, (_, _, event) in table.items()}
Record = ag.Intent | ag.Task
Events = Callable[[str], list[Event]]
Same = Callable[[Record, SliceIntent | SliceTask], bool]


# -- export --------------------------------------------------------------------------------------
def export_agenda(
    store: Store,
    scope: str,
    chosen: Mapping[str, Item],
    whole_scope: bool,
    intents_on: bool,
    tasks_on: bool,
    events: Events,
) -> tuple[tuple[SliceIntent, ...] | None, tuple[SliceTask, ...] | None]:
    """The ``intents`` / ``tasks`` sections for a slice of ``chosen`` (None: not asked for)."""
    if not (intents_on or tasks_on):
        return None, None
    agenda = agenda_store(store)
    intents = {i.id: i for i in agenda.intents(scope, ag.IntentQuery(), limit=MAX_RECORDS)}
    tasks = {t.id: t for t in agenda.tasks(scope, ag.TaskQuery(), limit=MAX_RECORDS)} if tasks_on else {}
    about = set(chosen)
    if whole_scope:
        pick_i = {i for i, r in intents.items() if r.is_open}
        pick_t = {t for t, r in tasks.items() if r.is_open}
    else:
        pick_i = {i for i, r in intents.items() if about & set(r.memory_ids)}
        pick_t = {t for t, r in tasks.items() if about & {*r.inputs, *r.outputs}}
    if not intents_on:
        pick_i = set()
    pick_i = _down(pick_i, intents)
    pick_t = _down(pick_t | {t for t, r in tasks.items() if r.intent in pick_i}, tasks)
    pick_t = _up(pick_t, tasks)
    pick_i = _up(pick_i | {r.intent for t in pick_t if (r := tasks[t]).intent is not None}, intents)
    names = _OriginNames(store, scope, chosen)
    out_i = tuple(_slice_intent(intents[i], events(i), names) for i in _by_age(pick_i, intents))
    out_t = tuple(_slice_task(tasks[t], events(t), names) for t in _by_age(pick_t, tasks))
    return out_i, (out_t if tasks_on else None)


def _down(picked: set[str], records: Mapping[str, Record]) -> set[str]:
    """``picked`` with every descendant (sub-intents, subtasks), whatever its status."""
    children: dict[str, list[str]] = {}
    for r in records.values():
        if r.parent is not None:
            children.setdefault(r.parent, []).append(r.id)
    out, frontier = set(picked), list(picked)
    while frontier:
        nxt = [c for p in frontier for c in children.get(p, []) if c not in out]
        out.update(nxt)
        frontier = nxt
    return out


def _up(picked: set[str], records: Mapping[str, Record]) -> set[str]:
    """``picked`` with every ancestor (replaying a child needs its parent)."""
    out = set()
    for r in picked:
        at: str | None = r
        while at is not None and at not in out and at in records:
            out.add(at)
            at = records[at].parent
    return out


def _by_age(ids: Iterable[str], records: Mapping[str, Record]) -> list[str]:
    return sorted(ids, key=lambda i: (records[i].created_at, i))


class _OriginNames:
    """A memory id as a slice names it: itself inside the slice, its claim's origin id outside."""

    def __init__(self, store: Store, scope: str, chosen: Mapping[str, Item]) -> None:
        self._store, self._scope, self._chosen = store, scope, chosen
        self._seen: dict[str, str] = {}

    def __call__(self, ids: Sequence[str]) -> tuple[str, ...]:
        want = [i for i in ids if i not in self._chosen and i not in self._seen]
        for i, item in self._store.get_many(self._scope, want).items() if want else ():
            origin = item.meta.get(ORIGIN_META)
            self._seen[i] = origin if isinstance(origin, str) else i
        return tuple(i if i in self._chosen else self._seen.get(i, i) for i in ids)


def _moves(history: Sequence[Event], key: str) -> tuple[str, tuple[SliceMove, ...]]:
    """The reason given at creation and every move after it, from the record's events."""
    created = next((e for e in history if e.type in (ag.INTENT_CREATED, ag.TASK_CREATED)), None)
    reason = str(created.payload[key].get("reason") or "") if created is not None else ""
    moves = tuple(
        SliceMove(_MOVE_OF[e.type], str(e.payload[key].get("reason") or ""), e.at)
        for e in history
        if e.type in _MOVE_OF
    )
    return reason, moves


def _slice_intent(it: ag.Intent, history: Sequence[Event], names: _OriginNames) -> SliceIntent:
    reason, moves = _moves(history, "intent")
    return SliceIntent(
        id=it.id,
        origin_id=it.origin or it.id,
        label=it.label,
        status=it.status,
        created_at=it.created_at,
        owner=it.owner,
        priority=it.priority,
        parent=it.parent,
        memory_ids=names(it.memory_ids),
        reason=reason,
        moves=moves,
    )


def _slice_task(t: ag.Task, history: Sequence[Event], names: _OriginNames) -> SliceTask:
    _, moves = _moves(history, "task")
    return SliceTask(
        id=t.id,
        origin_id=t.origin or t.id,
        action=t.action,
        status=t.status,
        created_at=t.created_at,
        intent=t.intent,
        agent=t.agent,
        parent=t.parent,
        inputs=names(t.inputs),
        outputs=names(t.outputs),
        moves=moves,
    )


# -- import: plan (reads, before the transaction) --------------------------------------------------
@dataclass
class AgendaPlan:
    """What an import does with each slice record: create it, advance a held one, or map to one."""

    create: set[str] = field(default_factory=set)  # slice ids to create
    reid: set[str] = field(default_factory=set)  # created without an origin (conflict, reid)
    held: dict[str, str] = field(default_factory=dict)  # slice id -> the record here it is
    advance: dict[str, tuple[SliceMove, ...]] = field(default_factory=dict)  # slice id -> moves to replay

    @property
    def empty(self) -> bool:
        return not (self.create or self.held)


def plan_agenda(
    sl: Slice, store: Store, scope: str, on_conflict: str, report: SliceReport, events: Events
) -> AgendaPlan:
    """Classify the slice's records against this scope's (by origin); conflicts per ``on_conflict``."""
    plan = AgendaPlan()
    if not (sl.intents or sl.tasks):
        return plan
    agenda: AgendaStore = agenda_store(store)
    here_i = agenda.intents(scope, ag.IntentQuery(), limit=MAX_RECORDS)
    here_t = agenda.tasks(scope, ag.TaskQuery(), limit=MAX_RECORDS)
    conflicts: list[dict[str, str]] = []
    families: list[tuple[str, Sequence[SliceIntent | SliceTask], Sequence[Record], Same]] = [
        ("intent", sl.intents or (), here_i, _same_intent),
        ("task", sl.tasks or (), here_t, _same_task),
    ]
    for kind, records, here, same in families:
        by_origin = {(r.origin or r.id): r for r in sorted(here, key=lambda r: r.id, reverse=True)}
        for rec in records:
            held = by_origin.get(rec.origin_id)
            if held is None:
                plan.create.add(rec.id)
                continue
            ours = tuple(m.move for m in _moves(events(held.id), kind)[1])
            theirs = tuple(m.move for m in rec.moves)
            if same(held, rec) and theirs[: len(ours)] == ours:
                plan.held[rec.id] = held.id
                if len(theirs) > len(ours):
                    plan.advance[rec.id] = rec.moves[len(ours) :]
                    report.records_advanced.append({"id": rec.id, "target": held.id, "moves": len(theirs) - len(ours)})
                else:
                    report.records_skipped.append({"id": rec.id, "target": held.id, "reason": "already here"})
            elif same(held, rec) and ours[: len(theirs)] == theirs:
                plan.held[rec.id] = held.id
                report.records_skipped.append({"id": rec.id, "target": held.id, "reason": "further along here"})
            else:
                conflicts.append({"id": rec.id, "target": held.id, "reason": f"this scope holds the {kind} diverged"})
    if conflicts and on_conflict == "report":
        shown = ", ".join(f"{c['id']} (here {c['target']})" for c in conflicts[:5])
        raise SliceConflictError(
            f"{len(conflicts)} intent(s) or task(s) of the slice are held here with another content or history: "
            f"{shown}; nothing was imported. Pass on_conflict='skip' to keep this scope's or 'reid' to import "
            "the slice's as new records",
            conflicts,
        )
    report.conflicts.extend(conflicts)
    for c in conflicts:
        if on_conflict == "skip":
            plan.held[c["id"]] = c["target"]
            report.records_skipped.append({"id": c["id"], "target": c["target"], "reason": "conflict: kept ours"})
        else:
            plan.create.add(c["id"])
            plan.reid.add(c["id"])
    return plan


def _same_intent(held: Record, rec: SliceIntent | SliceTask) -> bool:
    assert isinstance(held, ag.Intent) and isinstance(rec, SliceIntent)
    return (held.label, held.owner, held.priority) == (rec.label, rec.owner, rec.priority)


def _same_task(held: Record, rec: SliceIntent | SliceTask) -> bool:
    assert isinstance(held, ag.Task) and isinstance(rec, SliceTask)
    return (held.action, held.agent) == (rec.action, rec.agent)


def memory_refs(sl: Slice) -> list[str]:
    """Every memory id the slice's records name that is not an item of the slice."""
    inside = {i.id for i in sl.items}
    refs = [m for i in sl.intents or () for m in i.memory_ids]
    refs += [m for t in sl.tasks or () for m in (*t.inputs, *t.outputs)]
    return sorted({m for m in refs if m not in inside})


# -- import: apply (inside the transaction) --------------------------------------------------------
def apply_agenda(
    batch: Batch, sl: Slice, plan: AgendaPlan, scope: str, report: SliceReport, external: Mapping[str, str]
) -> None:
    """Create, then move, every record the plan writes; fills the report's maps."""
    if plan.empty:
        return
    intent_ids = {i.id for i in sl.intents or ()}
    report.intents.update({k: v for k, v in plan.held.items() if k in intent_ids})
    report.tasks.update({k: v for k, v in plan.held.items() if k not in intent_ids})

    def refs(rec_id: str, name: str, ids: Sequence[str]) -> tuple[str, ...]:
        out = []
        for m in ids:
            target = report.ids.get(m) or external.get(m)
            if target is None:
                report.dropped_refs.append({"record": rec_id, "field": name, "memory": m})
            else:
                out.append(target)
        return tuple(dict.fromkeys(out))

    for it in _parents_first(sl.intents or ()):
        if it.id in plan.create:
            command = ag.CreateIntent(
                scope, it.label, it.owner, it.priority, _map(report.intents, it.parent),
                refs(it.id, "memory_ids", it.memory_ids), it.reason, None if it.id in plan.reid else it.origin_id,
            )  # fmt: skip
            report.intents[it.id] = _run(batch, command, it.id, "intent")
            report.records_created.append(report.intents[it.id])
    for t in _parents_first(sl.tasks or ()):
        if t.id in plan.create:
            command_t = ag.CreateTask(
                scope, t.action, _map(report.intents, t.intent), t.agent, _map(report.tasks, t.parent),
                refs(t.id, "inputs", t.inputs), None if t.id in plan.reid else t.origin_id,
            )  # fmt: skip
            report.tasks[t.id] = _run(batch, command_t, t.id, "task")
            report.records_created.append(report.tasks[t.id])
    for t in sl.tasks or ():
        for m in _to_replay(plan, t.id, t.moves):
            outputs = refs(t.id, "outputs", t.outputs) if m.move == "complete" else ()
            _run(batch, ag.MoveTask(scope, report.tasks[t.id], m.move, m.reason, outputs), t.id, "task")
    for it in sl.intents or ():
        for m in _to_replay(plan, it.id, it.moves):
            _run(batch, ag.MoveIntent(scope, report.intents[it.id], m.move, m.reason), it.id, "intent")


def _to_replay(plan: AgendaPlan, rec_id: str, moves: tuple[SliceMove, ...]) -> tuple[SliceMove, ...]:
    if rec_id in plan.create:
        return moves
    return plan.advance.get(rec_id, ())


def _map(ids: Mapping[str, str], ref: str | None) -> str | None:
    return None if ref is None else ids[ref]


def _run(batch: Batch, command: Any, rec_id: str, kind: str) -> str:
    """Run one agenda command; a refusal names the slice record it replays (and rolls all back)."""
    try:
        out = batch.run([command])[0]
    except ReverieError as exc:
        try:
            named = type(exc)(f"slice {kind} {rec_id}: {exc.message}")
        except TypeError:  # an error type that takes more than a message: raised as it is
            raise exc from None
        raise named from None
    return str(out.events[-1].payload[kind]["id"])


def _parents_first(records: Sequence[SliceIntent] | Sequence[SliceTask]) -> list[Any]:
    """Parents before children (``check_sections`` refused cycles and dangling parents)."""
    by_id = {r.id: r for r in records}
    done: set[str] = set()
    out: list[Any] = []
    for r in records:
        chain = []
        at: str | None = r.id
        while at is not None and at not in done:
            chain.append(by_id[at])
            done.add(at)
            at = by_id[at].parent
        out.extend(reversed(chain))
    return out
