"""One function per tool: checked arguments in, a ``Memory`` call, a JSON object out.

Handlers are synchronous and run in a worker thread (see ``server``): ``Memory`` does
blocking SQLite and embedding work that must not stall the event loop. They use only the
public API, so the MCP face can never do something the Python face cannot.
"""

from __future__ import annotations

from collections.abc import Callable, Mapping
from datetime import datetime
from typing import Any

from reverie import InvalidInputError, Memory
from reverie.mcp.agenda_handlers import AGENDA_HANDLERS
from reverie.mcp.conversation_handlers import CONVERSATION_HANDLERS
from reverie.mcp.serialize import edge_data, hit_data, item_data, jsonable, marked, written_data
from reverie.model.query import Q
from reverie.model.query_json import parse_filter
from reverie.recall.options_json import recall_args
from reverie.recall.shortcuts import shortcut_filter

Handler = Callable[[Memory, dict[str, Any]], dict[str, Any]]
#: Where a claim written through MCP says it came from, unless the caller names another origin.
MCP_ORIGIN = "mcp"


class ToolError(Exception):
    """An adapter-level refusal with its own stable code (``unknown_tool``, ``not_available``)."""

    def __init__(self, code: str, message: str) -> None:
        super().__init__(message)
        self.code = code
        self.message = message

    def to_dict(self) -> dict[str, str]:
        return {"code": self.code, "error": self.message}


def _pick(args: Mapping[str, Any], *names: str) -> dict[str, Any]:
    """The optional arguments the caller actually gave, so ``Memory``'s own defaults apply."""
    return {n: args[n] for n in names if args.get(n) is not None}


def _time(args: Mapping[str, Any], name: str) -> datetime | None:
    raw = args.get(name)
    if raw is None:
        return None
    try:
        return datetime.fromisoformat(raw)
    except ValueError:
        raise InvalidInputError(f"{name} {raw[:60]!r} is not an ISO-8601 time, e.g. 2025-01-31T12:00:00Z") from None


def remember(mem: Memory, a: dict[str, Any]) -> dict[str, Any]:
    fields = _pick(
        a, "kind", "source", "key", "value", "author", "tags", "meta", "parents", "provenance",
        "authority", "confidence", "importance", "durability", "visibility",
    )  # fmt: skip
    fields["provenance"] = {"origin": MCP_ORIGIN, **(fields.get("provenance") or {})}
    result = mem.remember_checked(
        a["text"], scope=a["scope"], valid_from=_time(a, "valid_from"), valid_to=_time(a, "valid_to"), **fields
    )
    return written_data(result)


def recall(mem: Memory, a: dict[str, Any]) -> dict[str, Any]:
    hits = mem.recall(a["query"], scope=a["scope"], **_pick(a, "k"), **_recall_args(a))
    return {"count": len(hits), "hits": [hit_data(h) for h in hits]}


def _recall_args(a: Mapping[str, Any]) -> dict[str, Any]:
    """``Memory.recall`` keywords from a tool's arguments: the shared conversions of the options
    (``options_json``) and of the shortcuts (``shortcuts``: ``kind`` / ``source`` / ``tag``, with the
    older ``kinds`` / ``tags``), ``where`` AND-ed with them."""
    where = parse_filter(a["where"]) if a.get("where") is not None else None
    return {**recall_args(a), "where": shortcut_filter(a, where)}


def get(mem: Memory, a: dict[str, Any]) -> dict[str, Any]:
    item = mem.get(a["id"], scope=a["scope"], as_of=_time(a, "as_of"), valid_at=_time(a, "valid_at"))
    return {"item": item_data(item)}


def history(mem: Memory, a: dict[str, Any]) -> dict[str, Any]:
    # Event payloads carry the remembered text and reasons: marked as data like the versions.
    h = mem.history(a["id"], scope=a["scope"])
    return {
        "count": len(h.versions),
        "versions": [item_data(v) for v in h.versions],
        "events": [marked(e) for e in h.events],
    }


def list_items(mem: Memory, a: dict[str, Any]) -> dict[str, Any]:
    """A page of items: ``where`` AND-ed with the filter shortcuts (``kind`` / ``source`` / ``tag``, as
    recall's and HTTP's) and ``tier`` (as HTTP's and the CLI's), each one value or a list of any."""
    where = parse_filter(a["where"]) if a.get("where") is not None else None
    where = shortcut_filter(a, where)
    if a.get("tier"):
        tiers = Q.tier(*([a["tier"]] if isinstance(a["tier"], str) else a["tier"]))
        where = tiers if where is None else where & tiers
    fields = _pick(a, "sort", "limit", "cursor", "include_closed")
    page = mem.list(scope=a["scope"], where=where, valid_at=_time(a, "valid_at"), **fields)
    return {"count": len(page.items), "items": [item_data(i) for i in page.items], "next_cursor": page.next_cursor}


def context(mem: Memory, a: dict[str, Any]) -> dict[str, Any]:
    text = mem.context(a["query"], scope=a["scope"], **_pick(a, "budget_tokens", "k"), **_recall_args(a))
    return marked({"context": text})


def revise(mem: Memory, a: dict[str, Any]) -> dict[str, Any]:
    fields = _pick(a, "reason", "key", "value", "expected_version")
    when, until = _time(a, "valid_from"), _time(a, "valid_to")
    result = mem.revise_checked(a["id"], a["new_text"], scope=a["scope"], valid_from=when, valid_to=until, **fields)
    return written_data(result)


def forget(mem: Memory, a: dict[str, Any]) -> dict[str, Any]:
    return {"item": item_data(mem.forget(a["id"], scope=a["scope"], **_pick(a, "reason", "expected_version", "purge")))}


def dismiss(mem: Memory, a: dict[str, Any]) -> dict[str, Any]:
    return {"item": item_data(mem.dismiss(a["id"], scope=a["scope"], **_pick(a, "reason")))}


def link(mem: Memory, a: dict[str, Any]) -> dict[str, Any]:
    edge = mem.link(a["src"], a["dst"], a["type"], scope=a["scope"], **_pick(a, "author", "authority", "meta"))
    return {"edge": edge_data(edge)}


def contradictions(mem: Memory, a: dict[str, Any]) -> dict[str, Any]:
    alerts = mem.contradictions(scope=a["scope"], **_pick(a, "alerts_only", "limit"))
    return {"count": len(alerts), "contradictions": [marked(alert) for alert in alerts]}


def resolve(mem: Memory, a: dict[str, Any]) -> dict[str, Any]:
    item = mem.resolve(a["conflict"], keep=a["keep"], scope=a["scope"], **_pick(a, "reason"))
    return {"item": item_data(item)}


def dismiss_contradiction(mem: Memory, a: dict[str, Any]) -> dict[str, Any]:
    return {"edge": edge_data(mem.dismiss_contradiction(a["conflict"], scope=a["scope"], **_pick(a, "reason")))}


def alerts(mem: Memory, a: dict[str, Any]) -> dict[str, Any]:
    found = mem.alerts(scope=a["scope"], **_pick(a, "kind", "include_dismissed", "limit"))
    return marked({"count": len(found), "alerts": [x.to_dict() for x in found]})


def dismiss_alert(mem: Memory, a: dict[str, Any]) -> dict[str, Any]:
    return marked({"alert": mem.dismiss_alert(a["id"], scope=a["scope"], **_pick(a, "reason")).to_dict()})


def dream(mem: Memory, a: dict[str, Any]) -> dict[str, Any]:
    """Looked up at call time: the dream pass may land in ``Memory`` after this adapter."""
    dream_pass = getattr(Memory, "dream", None)
    if dream_pass is None:
        raise ToolError("not_available", "this reverie version has no dream pass")
    report = dream_pass(mem, scope=a["scope"], **_pick(a, "dry_run"))
    return marked({"dream": jsonable(report)})


def summary(mem: Memory, a: dict[str, Any]) -> dict[str, Any]:
    # Kind, source and scope names are caller-chosen strings: marked as data like the rest.
    # ``pending_uses``: recalls whose use waits for another writer's lock (``Memory.pending_uses``),
    # under the name HTTP's summary uses too (this server serves one Memory: all of them).
    return marked({**mem.summary(scope=a["scope"]), "pending_uses": mem.pending_uses})


def pause_learning(mem: Memory, a: dict[str, Any]) -> dict[str, Any]:
    mem.pause_learning(a["scope"], **_pick(a, "reason"))
    return {"scope": a["scope"], "learning_paused": True}


def resume_learning(mem: Memory, a: dict[str, Any]) -> dict[str, Any]:
    mem.resume_learning(a["scope"], **_pick(a, "reason"))
    return {"scope": a["scope"], "learning_paused": False}


def slice_export(mem: Memory, a: dict[str, Any]) -> dict[str, Any]:
    fields = _pick(
        a,
        "memory_ids",
        "include_parents",
        "include_aliases",
        "include_contradictions",
        "include_intents",
        "include_tasks",
        "include_conversations",
    )
    sl = mem.export_slice(scope=a["scope"], **fields)
    return marked({"slice": sl.to_dict()})


def slice_import(mem: Memory, a: dict[str, Any]) -> dict[str, Any]:
    report = mem.import_slice(a["slice"], scope=a["scope"], **_pick(a, "on_conflict", "allow_future"))
    return report.to_dict()


HANDLERS: Mapping[str, Handler] = {
    "remember": remember,
    "recall": recall,
    "get": get,
    "history": history,
    "list": list_items,
    "context": context,
    "revise": revise,
    "forget": forget,
    "dismiss": dismiss,
    "link": link,
    "contradictions": contradictions,
    "resolve": resolve,
    "dismiss_contradiction": dismiss_contradiction,
    "alerts": alerts,
    "dismiss_alert": dismiss_alert,
    "dream": dream,
    "summary": summary,
    "pause_learning": pause_learning,
    "resume_learning": resume_learning,
    "slice_export": slice_export,
    "slice_import": slice_import,
    **AGENDA_HANDLERS,
    **CONVERSATION_HANDLERS,
}
