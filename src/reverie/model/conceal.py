"""What a principal is shown of a visible item that *refers to* an item it may not see.

An item a principal may see can point at one it may not: its ``parents`` (a claim derived from a
restricted one, or a dream gist whose member was restricted later), an id in its ``meta`` (a
gist's ``representative``) or in its ``provenance`` (a gist's ``locator``). Returning those as
stored told the principal the hidden item's id — that it exists, and what it was used for — which
the visibility promise rules out ("a principal learns nothing about a claim it may not see, not
even that it exists"). This module says what is shown instead; ``store.visible.VisibleStore``
applies it to every item, edge and filter of a principal's read.

The rule is *omit*, never *mark*: a hidden parent is left out of ``parents`` (the others keep
their order), a ``meta`` entry whose value (or key) is a hidden id is left out (a list keeps its
other elements), a provenance ``ref`` / ``locator`` that is a hidden id reads ``None``. Why not
"1 hidden parent": a count of what you may not see is itself the existence the promise denies.

Filters are rewritten to agree with what is shown, or they would be an oracle: ``Q.parent(h)``
for a hidden ``h`` matches nothing, ``Q.parents_count`` counts only shown parents, and a
``Q.meta`` / ``Q.meta_has`` that names a hidden id, or whose value there is one, matches as the
concealed ``meta`` would. Only whole strings are ids: an id quoted inside a longer string (a
caller's text, a caller's free-form meta sentence) is the caller's words and is left as written.

Pure: no I/O; ``hidden`` is the set of item ids the reading principal may not see.
"""

from __future__ import annotations

import re
from collections.abc import Sequence, Set
from dataclasses import replace
from typing import Any

from reverie.model.agenda import Intent, IntentQuery, Task, TaskQuery, is_move_delta
from reverie.model.item import Edge, Item, Provenance
from reverie.model.query import And, Filter, MetaEq, MetaHas, Not, Or, ParentIncludes, ParentsCount
from reverie.model.suggestion_text import WITHHELD_LABEL, is_suggestion_reason, suggested_about

#: Matches nothing (``Or`` of no parts): what a filter naming a hidden id becomes.
NOTHING: Filter = Or(())


def conceal_item(item: Item, hidden: Set[str]) -> Item:
    """``item`` as a principal that may not see ``hidden`` is shown it (``item`` itself if unchanged)."""
    if not hidden:
        return item
    parents = tuple(p for p in item.parents if p not in hidden)
    meta = conceal_meta(item.meta, hidden)
    prov = _provenance(item.provenance, hidden)
    if parents == item.parents and meta is item.meta and prov is item.provenance:
        return item
    return replace(item, parents=parents, meta=meta, provenance=prov)


def conceal_edge(edge: Edge, hidden: Set[str]) -> Edge:
    """``edge`` (both ends visible: an edge with a hidden end is never shown) with its ``meta`` concealed."""
    meta = conceal_meta(edge.meta, hidden) if hidden else edge.meta
    return edge if meta is edge.meta else replace(edge, meta=meta)


def conceal_meta(meta: dict[str, Any], hidden: Set[str]) -> dict[str, Any]:
    """``meta`` without the entries and list elements that are hidden ids (the same dict if none)."""
    out = _value(meta, hidden)
    return meta if out is meta else dict(out)


def conceal_filter(where: Filter, hidden: Set[str]) -> Filter:
    """``where`` rewritten to match exactly the items whose *concealed* form ``where`` matches."""
    if not hidden:
        return where
    if isinstance(where, And):
        return And(tuple(conceal_filter(p, hidden) for p in where.parts))
    if isinstance(where, Or):
        return Or(tuple(conceal_filter(p, hidden) for p in where.parts))
    if isinstance(where, Not):
        return Not(conceal_filter(where.part, hidden))
    if isinstance(where, ParentIncludes):
        return NOTHING if where.parent in hidden else where
    if isinstance(where, ParentsCount):
        return replace(where, ignoring=frozenset(hidden))
    if isinstance(where, MetaEq):
        named = set(where.path) | ({where.value} if isinstance(where.value, str) else set())
        return NOTHING if named & hidden else where
    if isinstance(where, MetaHas):
        return NOTHING if set(where.path) & hidden else replace(where, ignoring=frozenset(hidden))
    return where


# -- intents and tasks ---------------------------------------------------------------------
#
# An intent or task has no audience of its own: it is shown to everyone in its scope, as it
# always was (it is the scope's shared agenda, and who may act on it is a separate question).
# What it *names* is concealed like an item's references: a hidden claim's id is left out of
# ``memory_ids`` / ``inputs`` / ``outputs``. Its free text (label, action, reasons, failure
# reasons, owner, agent) is concealed too — unlike a claim's text — because reverie writes ids
# there itself: an accepted suggestion's label is "Confirm or correct the uncertain fact <id>",
# and a task run that failed on a claim says so in its reason. Such a suggestion's label and
# reason also carry the claim's kind and scores, so when its claim is hidden they are withheld
# whole (``model.suggestion_text``). Records never copy a claim's words (``model.agenda``), so
# ids are all there is to conceal.
#
# A principal's own words are not cut: a principal may quote any id in its free text (a hidden
# one is stored exactly as an unknown one, ``model.free_text``), and the ids it quoted without
# being allowed to see them are kept in the record's ``unseen``. Those are its words, like an
# unknown id, and are shown as written to every reader. Cutting them on read told the writer, by
# reading its own label back, that the id it guessed exists (a wrong guess read back whole); and
# cutting them only for other readers told a reader who knows the text the same. What is cut is
# an id whoever wrote the text could see: reverie's own words, the owner's, a principal's quote
# of a claim of its audience. ``unseen`` itself is never shown to a principal (it lists hidden ids).

#: A reverie id (a canonical lower-case UUID), alone or inside a longer string.
_ID = re.compile(r"[0-9a-f]{8}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{12}")
_SPACES = re.compile(r"[ \t]{2,}")


def conceal_text(text: str, hidden: Set[str]) -> str:
    """``text`` without the hidden ids it quotes (runs of blanks left behind closed up); ``text`` if none."""
    if not hidden or len(text) < 36:
        return text
    out = _ID.sub(lambda m: "" if m.group(0) in hidden else m.group(0), text)
    return text if out == text else _SPACES.sub(" ", out).strip()


def _name(value: str | None, hidden: Set[str]) -> str | None:
    return None if value is None else (conceal_text(value, hidden) or None)


def _ids(ids: tuple[str, ...], hidden: Set[str]) -> tuple[str, ...]:
    return tuple(i for i in ids if i not in hidden)


def conceal_intent(intent: Intent, hidden: Set[str]) -> Intent:
    """``intent`` without the hidden claims it names (``intent`` itself if it names none).

    An accepted suggestion about a hidden claim is shown ``WITHHELD_LABEL`` and no reason: cutting
    only the id out of reverie's words left the claim's kind and scores in them. Ids in
    ``intent.unseen`` (a principal's blind quotes) stay in its words; ``unseen`` is not shown.
    """
    if not hidden and not intent.unseen:
        return intent
    words = frozenset(hidden) - set(intent.unseen)
    label, reason = intent.label, intent.reason
    if suggested_about(label) in words:
        label = WITHHELD_LABEL
        reason = "" if is_suggestion_reason(reason) else reason
    shown = replace(
        intent,
        label=conceal_text(label, words),
        reason=conceal_text(reason, words),
        owner=_name(intent.owner, words),
        memory_ids=_ids(intent.memory_ids, hidden),
        unseen=(),
    )
    return intent if shown == intent else shown


def conceal_task(task: Task, hidden: Set[str]) -> Task:
    """``task`` without the hidden claims it names (``task`` itself if it names none); as ``conceal_intent``."""
    if not hidden and not task.unseen:
        return task
    words = frozenset(hidden) - set(task.unseen)
    shown = replace(
        task,
        action=conceal_text(task.action, words),
        reason=conceal_text(task.reason, words),
        agent=_name(task.agent, words),
        inputs=_ids(task.inputs, hidden),
        outputs=_ids(task.outputs, hidden),
        failures=tuple(replace(f, reason=conceal_text(f.reason, words)) for f in task.failures),
        unseen=(),
    )
    return task if shown == task else shown


def conceal_agenda_payload(payload: dict[str, Any], hidden: Set[str]) -> dict[str, Any]:
    """An ``intent.*`` / ``task.*`` event's payload with its record, or its move's delta, concealed
    (the same dict if unchanged)."""
    out = dict(payload)
    for key in ("intent", "task"):
        if isinstance(payload.get(key), dict):
            out[key] = _conceal_record(key, payload[key], hidden, is_move_delta(payload))
    return payload if out == payload else out  # a record left as stored is not re-serialised


def _conceal_record(key: str, record: dict[str, Any], hidden: Set[str], delta: bool) -> dict[str, Any]:
    """One payload's ``intent`` / ``task``: a move's delta, or a whole record (``record`` if unchanged)."""
    if delta:
        return conceal_move_delta(record, hidden)
    if key == "intent":
        intent = Intent.from_dict(record)
        shown_i = conceal_intent(intent, hidden)
        return record if shown_i is intent else shown_i.to_dict()
    task = Task.from_dict(record)
    shown_t = conceal_task(task, hidden)
    return record if shown_t is task else shown_t.to_dict()


def conceal_move_delta(delta: dict[str, Any], hidden: Set[str], record_unseen: Sequence[str] = ()) -> dict[str, Any]:
    """An intent's or task's move delta (``model.agenda.intent_move_payload`` /
    ``task_move_payload``) concealed as ``conceal_intent`` / ``conceal_task`` conceal the same fields
    of the whole record: its reason; a task's failure reason and the outputs it adds. Blind quotes
    (``unseen``, the record's own so far and this move's) read as written, and the list itself is
    never shown."""
    blind = set(record_unseen) | {str(i) for i in delta.get("unseen") or ()}  # this move's own blind quotes
    words = frozenset(hidden) - blind
    out = {k: v for k, v in delta.items() if k != "unseen"}
    out["reason"] = conceal_text(str(delta.get("reason") or ""), words)
    if isinstance(delta.get("failure"), dict):
        out["failure"] = {**delta["failure"], "reason": conceal_text(str(delta["failure"].get("reason", "")), words)}
    if isinstance(delta.get("outputs"), list):
        out["outputs"] = [o for o in delta["outputs"] if o not in hidden]
    return delta if out == delta else out


def agenda_unseen(payload: dict[str, Any]) -> frozenset[str]:
    """The blind quotes (``unseen``) of an ``intent.*`` / ``task.*`` event's record: its writer's
    words, which do not make the event one that names a hidden claim."""
    out: set[str] = set()
    for key in ("intent", "task"):
        record = payload.get(key)
        if isinstance(record, dict) and isinstance(record.get("unseen"), list):
            out.update(str(i) for i in record["unseen"])
    return frozenset(out)


def agenda_query_names_hidden(where: IntentQuery | TaskQuery, hidden: Set[str]) -> bool:
    """Whether ``where`` filters on a hidden claim: it then matches nothing (as the concealed records read)."""
    return where.memory is not None and where.memory in hidden


def _value(v: Any, hidden: Set[str]) -> Any:
    """``v`` with hidden ids dropped from every dict and list inside it; ``v`` itself if none was."""
    if isinstance(v, dict):
        kept = {k: _value(x, hidden) for k, x in v.items() if k not in hidden and not _is_hidden(x, hidden)}
        same = len(kept) == len(v) and all(kept[k] is v[k] for k in kept)
        return v if same else kept
    if isinstance(v, list):
        items = [_value(x, hidden) for x in v if not _is_hidden(x, hidden)]
        same = len(items) == len(v) and all(a is b for a, b in zip(items, v, strict=True))
        return v if same else items
    return v


def _is_hidden(v: Any, hidden: Set[str]) -> bool:
    return isinstance(v, str) and v in hidden


def _provenance(prov: Provenance, hidden: Set[str]) -> Provenance:
    ref = None if prov.ref in hidden else prov.ref
    locator = None if prov.locator in hidden else prov.locator
    if ref == prov.ref and locator == prov.locator:
        return prov
    return replace(prov, ref=ref, locator=locator)


__all__ = [
    "NOTHING",
    "agenda_query_names_hidden",
    "agenda_unseen",
    "conceal_agenda_payload",
    "conceal_edge",
    "conceal_filter",
    "conceal_intent",
    "conceal_item",
    "conceal_meta",
    "conceal_move_delta",
    "conceal_task",
    "conceal_text",
]
